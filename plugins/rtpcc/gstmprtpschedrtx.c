/* mprtpsched: retransmissions on the best path (Singh's thesis,
 * Publication VII: the path with the lowest RTT).
 *
 * A path's receiver NACKs its losses by subflow sequence number back to
 * that path's rtpccsink, the only one that knows which media packet a
 * subflow number was (docs/multipath.md, "Loss repair per path"). Before
 * that sink retransmits, it asks here (an upstream rtpcc-mprtp-rtx query
 * naming the media seq). The scheduler (rtpcc_mprtp_sched_route_rtx)
 * decides; if another path is to carry the repair, the original packet is
 * sent again on it as a media packet of that path: that path's subflow
 * element and next FSSN, so its receiver accounts it as one of its own
 * packets, neither lost nor a gap, and hands it to playoutbuffer, whose
 * merge by media seq fills the hole (the first copy wins, as for the
 * duplicates on unused paths). The lossy path's own numbering is
 * untouched: its FSSN stays a loss there, which it is.
 *
 * The original comes from a ring of the recent media packets, by media
 * seq, with the paths each went on: a request for a seq not in it, or
 * one that never went on the asking path (a spoofed NACK could only name
 * what its path carried), is refused and counted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmprtpschedpriv.h"
#include "gstrtpccevent.h"
#include "gstrtpccnow.h"

GST_DEBUG_CATEGORY_EXTERN (mprtp_sched_debug);
#define GST_CAT_DEFAULT mprtp_sched_debug

/* Packets remembered: over a second at 2000 packets/s, longer than the
 * sinks' default RTX history (rtx-time 1 s) at the rates we run. */
#define SENT_RING 2048

typedef struct
{
  GstBuffer *buf;               /* the media packet as it came, or NULL */
  guint16 seq;
  guint32 paths;                /* bit i: sent on path position i */
} Sent;

struct _GstMprtpSchedSent
{
  Sent slot[SENT_RING];
};

void
gst_mprtp_sched_rtx_remember (GstMprtpSched * self, GstBuffer * buf,
    guint32 mask)
{
  guint8 hdr[4];
  Sent *e;
  guint16 seq;

  if (gst_buffer_extract (buf, 0, hdr, 4) != 4 || (hdr[0] >> 6) != 2)
    return;
  seq = GST_READ_UINT16_BE (hdr + 2);
  if (!self->sent)
    self->sent = g_new0 (struct _GstMprtpSchedSent, 1);
  e = &self->sent->slot[seq % SENT_RING];
  gst_clear_buffer (&e->buf);
  /* a pooled buffer is copied: held for a second it would drain the pool
   * of the element upstream */
  e->buf = buf->pool ? gst_buffer_copy_deep (buf) : gst_buffer_ref (buf);
  e->seq = seq;
  e->paths = mask;
}

void
gst_mprtp_sched_rtx_clear (GstMprtpSched * self)
{
  if (!self->sent)
    return;
  for (guint i = 0; i < SENT_RING; i++)
    gst_buffer_replace (&self->sent->slot[i].buf, NULL);
  g_clear_pointer (&self->sent, g_free);
}

/* Under the lock: the path (position) to carry the repair of @seq
 * asked for on @pad, charged to it, or -1 (the sink repairs on its own
 * path). */
static gint
route (GstMprtpSched * self, GstPad * pad, guint16 seq, guint size,
    guint8 ext_id)
{
  GstMprtpSchedPath *from = NULL;
  RtpccTime now;
  guint pos = 0;
  gint via;
  Sent *e;

  for (guint i = 0; i < self->paths->len; i++) {
    GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
    if (p->pad == pad) {
      from = p;
      pos = i;
    }
  }
  if (!from || !self->sched || self->paths->len < 2 || ext_id == 0)
    return -1;
  e = self->sent ? &self->sent->slot[seq % SENT_RING] : NULL;
  if (!e || !e->buf || e->seq != seq || !(e->paths & (1u << pos))) {
    GST_DEBUG_OBJECT (pad, "repair of seq %u: not sent on this path lately",
        seq);
    self->rtx_unknown++;
    return -1;
  }
  now = gst_rtpcc_now (GST_ELEMENT (self), &self->clock_cache, NULL, NULL,
      &self->last_now);
  via = rtpcc_mprtp_sched_route_rtx (self->sched, pos, now, size);
  if (via >= 0)
    GST_LOG_OBJECT (self, "repair of seq %u lost on subflow %u: on subflow "
        "%u", seq, from->index, ((GstMprtpSchedPath *)
            g_ptr_array_index (self->paths, (guint) via))->index);
  return via;
}

typedef struct
{
  guint16 seq;
  gint via;
} GstMprtpSchedRepair;

/* Under the lock and the streaming thread's: the packet @seq stamped for
 * path @via, or NULL (its pad released, the packet forgotten, or no room
 * for the element). */
static GstBuffer *
stamp_repair (GstMprtpSched * self, guint16 seq, gint via, guint8 ext_id,
    GstPad ** to_pad, GstEvent ** announce)
{
  GstMprtpSchedPath *to;
  Sent *e = self->sent ? &self->sent->slot[seq % SENT_RING] : NULL;
  GstBuffer *out;

  if (!e || !e->buf || e->seq != seq || (guint) via >= self->paths->len)
    return NULL;
  to = g_ptr_array_index (self->paths, (guint) via);
  if (!to->pad)
    return NULL;
  out = gst_mprtp_sched_stamp (self, e->buf, to, ext_id);
  if (!out)
    return NULL;
  if (!to->announced) {
    *announce = gst_rtpcc_mprtp_event_new (ext_id, to->index);
    to->announced = TRUE;
  }
  e->paths |= 1u << (guint) via;
  self->rtx_moved++;
  *to_pad = gst_object_ref (to->pad);
  return out;
}

/* The repair task: pushes each repair down its path. Not from the asking
 * sink's thread: the push waits for the streaming thread (the repair
 * takes the next FSSN of its path and must not overtake, nor be overtaken
 * by, the media packet stamped just before or after it), which may wait
 * in a sink's preroll while the pipeline stops; a sink's task held there
 * would keep that sink from stopping. */
static void
rtx_loop (gpointer data)
{
  GstMprtpSched *self = data;
  GstMprtpSchedRepair job;
  GstPad *to_pad = NULL;
  GstEvent *announce = NULL;
  GstBuffer *out;
  guint ext_id;

  g_mutex_lock (&self->lock);
  while (self->rtx_pending->len == 0 && !self->rtx_stopping)
    g_cond_wait (&self->rtx_cond, &self->lock);
  if (self->rtx_stopping) {
    g_mutex_unlock (&self->lock);
    return;
  }
  job = g_array_index (self->rtx_pending, GstMprtpSchedRepair, 0);
  g_array_remove_index (self->rtx_pending, 0);
  g_mutex_unlock (&self->lock);

  GST_OBJECT_LOCK (self);
  ext_id = self->ext_id;
  GST_OBJECT_UNLOCK (self);
  GST_PAD_STREAM_LOCK (self->sinkpad);
  g_mutex_lock (&self->lock);
  out = stamp_repair (self, job.seq, job.via, (guint8) ext_id, &to_pad,
      &announce);
  g_mutex_unlock (&self->lock);
  if (out) {
    if (announce)
      gst_pad_push_event (to_pad, announce);
    /* the path's trouble, if any, is the stream's to report */
    (void) gst_pad_push (to_pad, out);
    gst_object_unref (to_pad);
  }
  GST_PAD_STREAM_UNLOCK (self->sinkpad);
}

void
gst_mprtp_sched_rtx_init (GstMprtpSched * self)
{
  self->rtx_pending = g_array_new (FALSE, FALSE,
      sizeof (GstMprtpSchedRepair));
  g_cond_init (&self->rtx_cond);
  g_rec_mutex_init (&self->rtx_task_lock);
}

void
gst_mprtp_sched_rtx_finalize (GstMprtpSched * self)
{
  gst_mprtp_sched_rtx_stop (self);
  gst_mprtp_sched_rtx_clear (self);
  g_array_unref (self->rtx_pending);
  g_cond_clear (&self->rtx_cond);
  g_rec_mutex_clear (&self->rtx_task_lock);
}

void
gst_mprtp_sched_rtx_start (GstMprtpSched * self)
{
  GstTask *task = gst_task_new (rtx_loop, self, NULL);

  gst_task_set_lock (task, &self->rtx_task_lock);
  g_mutex_lock (&self->lock);
  self->rtx_stopping = FALSE;
  self->rtx_task = task;
  g_mutex_unlock (&self->lock);
  gst_task_start (task);
}

void
gst_mprtp_sched_rtx_stop (GstMprtpSched * self)
{
  GstTask *task;

  g_mutex_lock (&self->lock);
  task = self->rtx_task;
  self->rtx_task = NULL;
  self->rtx_stopping = TRUE;
  g_array_set_size (self->rtx_pending, 0);
  g_cond_broadcast (&self->rtx_cond);
  g_mutex_unlock (&self->lock);
  if (!task)
    return;
  gst_task_stop (task);
  gst_task_join (task);
  gst_object_unref (task);
}

gboolean
gst_mprtp_sched_rtx_query (GstMprtpSched * self, GstPad * pad,
    GstQuery * query)
{
  GstMprtpSchedRepair job;
  guint16 seq = 0;
  guint size = 0, ext_id;
  gboolean moved = FALSE;

  if (!gst_rtpcc_mprtp_rtx_query_parse (query, &seq, &size)) {
    g_mutex_lock (&self->lock);
    self->rtx_malformed++;
    g_mutex_unlock (&self->lock);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  ext_id = self->ext_id;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->lock);
  if (self->rtx_task && !self->rtx_stopping) {
    job.seq = seq;
    job.via = route (self, pad, seq, size, (guint8) ext_id);
    if (job.via >= 0) {
      g_array_append_val (self->rtx_pending, job);
      g_cond_signal (&self->rtx_cond);
      moved = TRUE;
    }
  }
  g_mutex_unlock (&self->lock);
  gst_rtpcc_mprtp_rtx_query_set_moved (query, moved);
  return TRUE;
}

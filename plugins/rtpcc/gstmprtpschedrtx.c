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
  gst_buffer_replace (&e->buf, buf);
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
  now = gst_rtpcc_now (GST_ELEMENT (self), NULL, NULL, &self->last_now);
  via = rtpcc_mprtp_sched_route_rtx (self->sched, pos, now, size);
  if (via >= 0)
    GST_LOG_OBJECT (self, "repair of seq %u lost on subflow %u: on subflow "
        "%u", seq, from->index, ((GstMprtpSchedPath *)
            g_ptr_array_index (self->paths, (guint) via))->index);
  return via;
}

/* Under the lock and the streaming thread's: the packet @seq stamped for
 * path @via, or NULL (its pad released, or no room for the element). */
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

gboolean
gst_mprtp_sched_rtx_query (GstMprtpSched * self, GstPad * pad,
    GstQuery * query)
{
  GstPad *to_pad = NULL;
  GstEvent *announce = NULL;
  GstBuffer *out = NULL;
  guint16 seq = 0;
  guint size = 0, ext_id;
  gboolean playing;
  gint via;

  if (!gst_rtpcc_mprtp_rtx_query_parse (query, &seq, &size)) {
    g_mutex_lock (&self->lock);
    self->rtx_malformed++;
    g_mutex_unlock (&self->lock);
    return FALSE;
  }
  /* only while PLAYING: in PAUSED a sink downstream may hold the push in
   * its preroll while the asking sink is being stopped */
  GST_OBJECT_LOCK (self);
  ext_id = self->ext_id;
  playing = GST_STATE (self) == GST_STATE_PLAYING;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->lock);
  via = playing ? route (self, pad, seq, size, (guint8) ext_id) : -1;
  g_mutex_unlock (&self->lock);
  if (via >= 0) {
    /* the streaming thread's lock: the repair takes the next FSSN of its
     * path and must not overtake, nor be overtaken by, the media packet
     * stamped just before or after it (taken only for a repair that
     * moves: one that stays is not held up by a frame being pushed) */
    GST_PAD_STREAM_LOCK (self->sinkpad);
    g_mutex_lock (&self->lock);
    out = stamp_repair (self, seq, via, (guint8) ext_id, &to_pad, &announce);
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
  gst_rtpcc_mprtp_rtx_query_set_moved (query, out != NULL);
  return TRUE;
}

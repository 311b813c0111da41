/* mprtpsched: the multipath RTP sender's scheduler.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-mprtpsched
 * @title: mprtpsched
 *
 * Sends one RTP stream over several paths (draft-ietf-avtcore-mprtp; the
 * scheduler of Singh's thesis, Publication VII). Each request pad `src_%u`
 * is one path and leads to an rtpccsink of its own, which runs its own
 * congestion controller on that path. A skin over RtpccMprtpSched
 * (gst/rtpcc/mprtp/sched.h):
 *
 *   chain()     picks the path of each packet (key-frame packets on the
 *               best path, the rest by start-time fair queueing over the
 *               paths' allowed rates), stamps the MPRTP subflow header
 *               extension (subflow ID = the pad's number, a gap-free
 *               subflow sequence number per path) and pushes it there;
 *               once a second an unused path gets a duplicate (keep-alive
 *               and RTT, draft §7.4; the receiver keeps the first copy)
 *   src event   each path's rtpcc-target (from its rtpccsink): that path's
 *               controller rate; consumed here, never passed upstream.
 *   src query   a path's rtpcc-mprtp-rtx (its rtpccsink got a NACK for a
 *               media packet it sent): when another healthy path has a
 *               clearly lower RTT, the packet goes out again there, with
 *               that path's own subflow element (pushed by a task of its
 *               own), and the sink sends no RTX itself (gstmprtpschedrtx.c)
 *   polling     each path's rtpccsink "stats" (every 25 ms, from chain()):
 *               RTT, queuing delay, send and receive rates, packets
 *               reported received and lost — feedback that reports no new
 *               media for long enough marks the path failed and it is
 *               drained to the others at once; once feedback returns it is
 *               re-admitted at a tenth of its rate and ramped up; the
 *               packets that were in flight on it are lost, so the encoder
 *               is asked for a key frame (upstream force-key-unit) at once
 *               rather than the picture waiting for the next one; the
 *               path's MPRTCP subflow reports (loss and playout discards
 *               by subflow, from its rtpccsrc, kept by the sink) classify
 *               it (without them: the loss its feedback reports, once a
 *               second)
 *
 * and publishes ONE aggregate rtpcc-target upstream (and as a bus message
 * from itself): media-bitrate is the sum of the paths' coupled rates
 * (mprtp/couple.h: paths that share a bottleneck count once), which with
 * encoder-control=auto it also sets on the encoder it finds upstream.
 *
 * On each src pad it first sends a sticky "rtpcc-mprtp" event: an
 * rtpccsink that receives it then leaves the encoder alone (its target
 * still goes on the bus, but upstream it reaches mprtpsched only) and,
 * with two paths or more, runs its
 * sender on the subflow sequence numbers, so each path's feedback and loss
 * count speak of that path alone; rtpccsrc does the same at the receiver
 * (its mprtp-ext-id). No wiring is needed beyond linking the pads.
 *
 * With one src pad the element is a passthrough: no extension, every
 * packet on it, the aggregate is that path's target.
 *
 * Src pads are requested before the stream starts; the number of paths is
 * fixed at the first buffer.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! x264enc tune=zerolatency ! \
 *     rtph264pay ! mprtpsched name=m \
 *     m.src_0 ! rtpccsink port=5000 controller=gcc \
 *     m.src_1 ! rtpccsink port=5002 controller=gcc
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmprtpschedpriv.h"
#include "gstmprtpschedreport.h"
#include "rtpccelements.h"
#include "gstrtpccevent.h"
#include "gstrtpccnow.h"

#include <gst/video/video-event.h>
#include <rtpcc/feedback/rtpext.h>
#include <rtpcc/mprtp/ext.h>
#include <stdio.h>
#include <string.h>

GST_DEBUG_CATEGORY (mprtp_sched_debug);
#define GST_CAT_DEFAULT mprtp_sched_debug

/* how often the paths' sinks are read, and a reporting interval */
#define POLL_INTERVAL RTPCC_MSEC (25)
#define CLASS_INTERVAL RTPCC_SEC (1)
/* elements between a src pad and its rtpccsink (queues) */
#define MAX_HOPS 8

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src_%u",
    GST_PAD_SRC, GST_PAD_REQUEST, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_mprtp_sched_parent_class parent_class
G_DEFINE_TYPE (GstMprtpSched, gst_mprtp_sched, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (mprtpsched, "mprtpsched", GST_RANK_NONE,
    GST_TYPE_MPRTP_SCHED);

/* ---- paths -------------------------------------------------------------- */

static GstMprtpSchedPath *
path_of_pad (GstMprtpSched * self, GstPad * pad, guint * pos)
{
  for (guint i = 0; i < self->paths->len; i++) {
    GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
    if (p->pad == pad) {
      if (pos)
        *pos = i;
      return p;
    }
  }
  return NULL;
}

/* The rtpccsink downstream of @pad, through elements with one src pad
 * (queues), or NULL. */
static GstElement *
find_sink (GstPad * pad)
{
  GstPad *cur = gst_object_ref (pad);

  for (guint hop = 0; hop < MAX_HOPS; hop++) {
    GstPad *peer = gst_pad_get_peer (cur);
    GstElement *e;
    GParamSpec *ps;
    GstIterator *it;
    GValue v = G_VALUE_INIT;
    GstPad *next = NULL;
    guint n = 0;

    gst_object_unref (cur);
    if (!peer)
      return NULL;
    e = gst_pad_get_parent_element (peer);
    gst_object_unref (peer);
    if (!e)
      return NULL;
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "stats");
    if (GST_IS_RTPCC_SINK (e) && ps)
      return e;
    it = gst_element_iterate_src_pads (e);
    while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      if (n++ == 0)
        next = g_value_dup_object (&v);
      g_value_reset (&v);
    }
    g_value_unset (&v);
    gst_iterator_free (it);
    gst_object_unref (e);
    if (n != 1) {
      g_clear_object (&next);
      return NULL;
    }
    cur = next;
  }
  gst_object_unref (cur);
  return NULL;
}

static guint64
stat_u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = 0;
  return gst_structure_get_uint64 (s, name, &v) ? v : 0;
}

/* The counters of an rtpccsink's stats @s the scheduler reads. */
static void
sender_stats_of (const GstStructure * s, RtpccMprtpSenderStats * st)
{
  st->rtcp_received = stat_u64 (s, "rtcp-received");
  st->reported_received = stat_u64 (s, "reported-received");
  st->reported_lost = stat_u64 (s, "reported-lost");
  st->rtt = stat_u64 (s, "rtt");
  st->queue_delay = stat_u64 (s, "queue-delay");
  st->send_rate = stat_u64 (s, "send-rate");
  st->receive_rate = stat_u64 (s, "receive-rate");
}

/* ---- the aggregate target ----------------------------------------------- */

/* The aggregate rtpcc-target when the encoder rate changed, else NULL.
 * With the lock. */
static GstStructure *
aggregate_if_changed (GstMprtpSched * self, guint64 * media_out)
{
  GstRtpccTargetInfo t;
  guint64 media = rtpcc_mprtp_sched_get_encoder_rate (self->sched);
  const RtpccMprtpPathSender *senders[RTPCC_MPRTP_MAX_PATHS];
  guint n = MIN (self->paths->len, RTPCC_MPRTP_MAX_PATHS);
  RtpccTime rtt;

  if (media == 0 || media == self->published_rate)
    return NULL;
  self->published_rate = media;
  self->aggregate_updates++;
  for (guint i = 0; i < n; i++)
    senders[i] = &((GstMprtpSchedPath *)
        g_ptr_array_index (self->paths, i))->sender;
  memset (&t, 0, sizeof t);
  t.media_bitrate = media;
  t.target_bitrate = rtpcc_mprtp_aggregate_target (self->sched, senders, n,
      media, &rtt);
  t.pacing_rate = t.target_bitrate;
  t.media_pacing_rate = media;
  t.rtt = rtt == RTPCC_TIME_NONE ? GST_CLOCK_TIME_NONE : (GstClockTime) rtt;
  t.controller = "mprtp";
  t.state = self->paths->len > 1 ? "multipath" : "single-path";
  *media_out = media;
  return gst_rtpcc_target_structure_new (&t);
}

/* The newest aggregate to the encoder. With encoder_lock, without the
 * lock (setting the encoder's property can block on it). */
static void
apply_encoder (GstMprtpSched * self)
{
  GstRtpccEncoderControl ec;
  RtpccTime now;
  guint64 media;

  GST_OBJECT_LOCK (self);
  ec = self->encoder_control;
  GST_OBJECT_UNLOCK (self);
  if (ec != GST_RTPCC_ENCODER_CONTROL_AUTO)
    return;
  g_mutex_lock (&self->lock);
  now = gst_rtpcc_now (GST_ELEMENT (self), &self->clock_cache, NULL, NULL,
      &self->last_now);
  media = self->published_rate;
  g_mutex_unlock (&self->lock);
  if (media > 0)
    gst_rtpcc_encoder_setter_apply (&self->encoder, self->sinkpad, now,
        media);
}

/* An increase the encoder hysteresis held back, once it is due, or the
 * target again when the correction for the encoder's output changed. */
static void
retry_encoder (GstMprtpSched * self, RtpccTime now)
{
  g_mutex_lock (&self->encoder_lock);
  if ((self->encoder.retry_at != RTPCC_TIME_NONE
          && now >= self->encoder.retry_at)
      || gst_rtpcc_encoder_setter_take_reapply (&self->encoder)) {
    self->encoder.retry_at = RTPCC_TIME_NONE;
    apply_encoder (self);
  }
  g_mutex_unlock (&self->encoder_lock);
}

/* Takes @s. Without the lock. Aggregates are computed under the lock by
 * the streaming thread and the sinks' threads (src_event) but published
 * after it is released: one computed earlier can reach here later. The
 * encoder and listeners must end with the newest, so a superseded one is
 * dropped (its successor is published, or already was). */
static void
publish_aggregate (GstMprtpSched * self, GstStructure * s, guint64 media)
{
  gboolean current;

  g_mutex_lock (&self->encoder_lock);
  g_mutex_lock (&self->lock);
  current = media == self->published_rate;
  if (!current)
    self->superseded_targets++;
  g_mutex_unlock (&self->lock);
  if (!current) {
    g_mutex_unlock (&self->encoder_lock);
    GST_DEBUG_OBJECT (self, "aggregate %" G_GUINT64_FORMAT " superseded "
        "before it was published", media);
    gst_structure_free (s);
    return;
  }
  GST_DEBUG_OBJECT (self, "aggregate target %" GST_PTR_FORMAT, s);
  gst_pad_push_event (self->sinkpad,
      gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, gst_structure_copy (s)));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
  g_object_notify (G_OBJECT (self), "target-bitrate");
  apply_encoder (self);
  g_mutex_unlock (&self->encoder_lock);
}

/* ---- streaming ---------------------------------------------------------- */

/* max-bitrate, latency-bound or probe-interval set while playing: to the
 * running scheduler (with the lock; the aggregate follows with this
 * packet). Not from set_property: a handler of our own bus message or
 * target-bitrate notification may set them while we publish. */
static void
apply_changed_limits (GstMprtpSched * self, RtpccTime now)
{
  guint64 media_max;
  guint bound_ms, probe_ms;

  GST_OBJECT_LOCK (self);
  if (!self->limits_changed) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  self->limits_changed = FALSE;
  media_max = self->max_bitrate;
  bound_ms = self->latency_bound_ms;
  probe_ms = self->probe_interval_ms;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "max-bitrate %" G_GUINT64_FORMAT ", latency-bound "
      "%u ms, probe-interval %u ms from now on", media_max, bound_ms,
      probe_ms);
  rtpcc_mprtp_sched_set_limits (self->sched, now, media_max,
      RTPCC_MSEC (bound_ms), RTPCC_MSEC (probe_ms));
}

static gboolean
create_sched (GstMprtpSched * self, RtpccTime now)
{
  RtpccMprtpSchedConfig cfg;
  GError *err = NULL;

  rtpcc_mprtp_sched_config_init (&cfg);
  GST_OBJECT_LOCK (self);
  cfg.media_max = self->max_bitrate;
  cfg.latency_bound = RTPCC_MSEC (self->latency_bound_ms);
  cfg.probe_interval = RTPCC_MSEC (self->probe_interval_ms);
  self->limits_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  self->sched = rtpcc_mprtp_sched_new (&cfg, self->paths->len, now, &err);
  if (!self->sched) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", err->message),
        ("request one to %u src pads before the stream starts",
            RTPCC_MPRTP_MAX_PATHS));
    g_clear_error (&err);
    return FALSE;
  }
  for (guint i = 0; i < self->paths->len; i++) {
    GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
    if (p->sender.have_target)
      rtpcc_mprtp_sched_set_rate (self->sched, i, now, p->sender.media);
  }
  self->last_poll = self->last_interval = now;
  return TRUE;
}

GstBuffer *
gst_mprtp_sched_stamp (GstMprtpSched * self, GstBuffer * buf,
    GstMprtpSchedPath * p, guint8 ext_id)
{
  RtpccMprtpSubflow sf = { (guint16) p->index, p->fssn };
  GstMapInfo in, out;
  GstBuffer *o;
  gsize n;

  if (!gst_buffer_map (buf, &in, GST_MAP_READ))
    return NULL;
  /* the element adds at most 12 bytes (new block, padding) */
  o = gst_buffer_new_allocate (NULL, in.size + 16, NULL);
  gst_buffer_map (o, &out, GST_MAP_WRITE);
  n = rtpcc_mprtp_add_subflow (in.data, in.size, ext_id, &sf, out.data,
      out.size);
  gst_buffer_unmap (o, &out);
  gst_buffer_unmap (buf, &in);
  if (n == 0) {
    self->ext_failures++;
    gst_buffer_unref (o);
    return NULL;
  }
  gst_buffer_set_size (o, n);
  gst_buffer_copy_into (o, buf, GST_BUFFER_COPY_METADATA, 0, -1);
  p->fssn++;
  return o;
}

typedef struct
{
  GstPad *pad;
  GstBuffer *buf;
  GstEvent *announce;
} Out;

/* One media stream goes through mprtpsched: the subflow sequence numbers
 * are per path, not per SSRC. A second SSRC (fecenc in front of it, two
 * streams muxed) breaks the receivers' statistics and FEC parity; its
 * packets still go out, but the user is told once, and they are counted. */
static void
check_one_stream (GstMprtpSched * self, GstBuffer * buf)
{
  GstMapInfo map;
  RtpccRtpLayout l;
  gboolean rtp, warn = FALSE;
  guint32 ssrc, first;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return;
  rtp = rtpcc_rtp_parse_layout (map.data, map.size, &l);
  gst_buffer_unmap (buf, &map);
  if (!rtp)
    return;
  ssrc = l.ssrc;
  g_mutex_lock (&self->lock);
  if (!self->have_ssrc) {
    self->have_ssrc = TRUE;
    self->ssrc = ssrc;
  } else if (ssrc != self->ssrc) {
    warn = self->other_ssrc_packets++ == 0;
  }
  first = self->ssrc;
  g_mutex_unlock (&self->lock);
  if (warn)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("mprtpsched got a second RTP stream (SSRC 0x%08x after 0x%08x)",
            ssrc, first),
        ("It schedules one media stream: put fecenc after it on each path "
            "(m.src_N ! fecenc ! rtpccsink), and one mprtpsched per stream; "
            "these packets go out but break the receivers' per-path "
            "statistics and FEC (stat other-ssrc-packets)"));
}

static GstFlowReturn
gst_mprtp_sched_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (parent);
  GstPad **pads = NULL;
  GstStructure **stats = NULL;
  GstStructure *publish = NULL;
  Out out[2] = { {NULL, NULL, NULL}, {NULL, NULL, NULL} };
  guint n_paths, path, ext_id;
  RtpccTime now;
  gboolean poll, keyframe, key_unit;
  RtpccMprtpPacketFlags flags = RTPCC_MPRTP_PACKET_MEDIA;
  guint64 media = 0;
  gint probe;
  GstFlowReturn ret = GST_FLOW_OK;
  gsize size = gst_buffer_get_size (buf);

  GST_OBJECT_LOCK (self);
  ext_id = self->ext_id;
  GST_OBJECT_UNLOCK (self);

  check_one_stream (self, buf);
  g_mutex_lock (&self->lock);
  now = gst_rtpcc_now (GST_ELEMENT (self), &self->clock_cache,
      &self->segment, buf, &self->last_now);
  if (!self->sched && !create_sched (self, now)) {
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  apply_changed_limits (self, now);
  n_paths = self->paths->len;
  poll = n_paths > 1 && now - self->last_poll >= POLL_INTERVAL;
  if (poll) {
    self->last_poll = now;
    pads = g_new0 (GstPad *, n_paths);
    stats = g_new0 (GstStructure *, n_paths);
    for (guint i = 0; i < n_paths; i++) {
      GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
      if (p->pad)
        pads[i] = gst_object_ref (p->pad);
    }
  }
  g_mutex_unlock (&self->lock);

  /* the sinks' stats, without our lock (a sink publishes its target to
   * us from its own thread) */
  if (poll) {
    for (guint i = 0; i < n_paths; i++) {
      GstElement *sink = pads[i] ? find_sink (pads[i]) : NULL;
      g_clear_object (&pads[i]);
      if (sink)
        g_object_get (sink, "stats", &stats[i], NULL);
      g_clear_object (&sink);
    }
  }

  g_mutex_lock (&self->lock);
  if (poll) {
    gboolean interval = now - self->last_interval >= CLASS_INTERVAL;
    for (guint i = 0; i < n_paths; i++) {
      GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
      RtpccMprtpSenderStats st;
      RtpccMprtpSubflowReport rep;
      gboolean have_rep;

      if (!stats[i])
        continue;
      sender_stats_of (stats[i], &st);
      have_rep = gst_mprtp_sched_report_from_stats (stats[i], &p->mprtcp_seen,
          &rep);
      rtpcc_mprtp_path_sender_poll (&p->sender, self->sched, i, now, &st,
          have_rep ? &rep : NULL, interval);
      gst_structure_free (stats[i]);
    }
    if (interval)
      self->last_interval = now;
    g_free (stats);
    g_free (pads);
  }
  rtpcc_mprtp_sched_tick (self->sched, now);
  key_unit = rtpcc_mprtp_sched_take_losses (self->sched);
  if (key_unit)
    self->key_unit_requests++;

  if (!GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT))
    keyframe = self->seen_delta;
  else {
    self->seen_delta = TRUE;
    keyframe = FALSE;
  }
  /* a payloader that never marks delta units has no key frames to single
   * out */
  if (keyframe)
    flags |= RTPCC_MPRTP_PACKET_KEYFRAME;
  path = rtpcc_mprtp_sched_pick (self->sched, now, (guint) size, flags);
  probe = n_paths > 1 ? rtpcc_mprtp_sched_probe (self->sched, now) : -1;

  for (guint k = 0; k < 2; k++) {
    guint idx = k == 0 ? path : (guint) probe;
    GstMprtpSchedPath *p;
    if (k == 1 && probe < 0)
      break;
    p = g_ptr_array_index (self->paths, idx);
    if (!p->pad) {
      /* its pad was released while streaming: the packet has nowhere to
       * go (counted) */
      if (k == 0)
        self->released_drops++;
      continue;
    }
    if (!p->announced) {
      out[k].announce = gst_rtpcc_mprtp_event_new (n_paths > 1 ? ext_id : 0,
          p->index);
      p->announced = TRUE;
    }
    if (n_paths > 1)
      out[k].buf = gst_mprtp_sched_stamp (self, buf, p, (guint8) ext_id);
    else
      out[k].buf = gst_buffer_ref (buf);
    if (!out[k].buf) {
      /* no room for the element (a header extension block in the
       * two-byte form, or at its size limit): sent as it is, counted */
      out[k].buf = gst_buffer_ref (buf);
    }
    out[k].pad = gst_object_ref (p->pad);
    if (k == 0) {
      p->pushed++;
      p->pushed_bytes += size;
    } else {
      p->probes++;
    }
  }
  if (n_paths > 1)
    gst_mprtp_sched_rtx_remember (self, buf,
        (1u << path) | (probe >= 0 ? 1u << (guint) probe : 0));
  publish = aggregate_if_changed (self, &media);
  if (!publish)
    media = self->published_rate;
  g_mutex_unlock (&self->lock);
  /* the encoder's output against the aggregate it was given; a changed
   * correction is applied below with the retries */
  {
    GstMapInfo map;

    if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
      gst_rtpcc_encoder_setter_produced (&self->encoder, GST_BUFFER_PTS (buf),
          map.data, map.size, -1);
      gst_buffer_unmap (buf, &map);
    }
  }
  gst_buffer_unref (buf);

  for (guint k = 0; k < 2; k++) {
    GstFlowReturn r;
    if (!out[k].pad)
      continue;
    if (out[k].announce)
      gst_pad_push_event (out[k].pad, out[k].announce);
    r = gst_pad_push (out[k].pad, out[k].buf);
    gst_object_unref (out[k].pad);
    /* one path's trouble is not the stream's: its packets were given to
     * it like to a lossy link; only flushing and errors stop the stream */
    if (k == 0 && (r == GST_FLOW_FLUSHING || r < GST_FLOW_EOS))
      ret = r;
  }
  /* the encoder gets the surviving paths' rate before the key frame
   * request, so that an encoder applying both at once codes the key frame
   * at the rate the paths can carry */
  if (publish)
    publish_aggregate (self, publish, media);
  else if (media > 0)
    retry_encoder (self, now);
  if (key_unit) {
    GST_INFO_OBJECT (self, "a path failed or collapsed: asking for a key "
        "frame");
    gst_pad_push_event (self->sinkpad,
        gst_video_event_new_upstream_force_key_unit (GST_CLOCK_TIME_NONE,
            TRUE, 0));
  }
  return ret;
}

static gboolean
gst_mprtp_sched_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (parent);
  GstClockTime room;

  /* a sendbuffer before the scheduler: the encoder is ours to bound */
  if (gst_rtpcc_frame_room_event_parse (event, &room))
    gst_rtpcc_encoder_setter_set_room (&self->encoder, room);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEGMENT:
      g_mutex_lock (&self->lock);
      gst_event_copy_segment (event, &self->segment);
      g_mutex_unlock (&self->lock);
      break;
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock (&self->lock);
      gst_segment_init (&self->segment, GST_FORMAT_TIME);
      g_mutex_unlock (&self->lock);
      break;
    default:
      break;
  }
  /* to every src pad */
  return gst_pad_event_default (pad, parent, event);
}

/* A path's rtpcc-target is that path's rate; it stops here (the encoder
 * gets the aggregate). Everything else goes upstream. */
static gboolean
gst_mprtp_sched_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (parent);
  GstRtpccTargetInfo t;
  GstMprtpSchedPath *p;
  GstStructure *publish = NULL;
  guint64 media = 0;
  guint pos = 0;

  if (!gst_rtpcc_target_event_is (event))
    return gst_pad_event_default (pad, parent, event);
  if (!gst_rtpcc_target_event_parse (event, &t)) {
    GST_WARNING_OBJECT (pad, "malformed rtpcc-target: %" GST_PTR_FORMAT,
        gst_event_get_structure (event));
    g_mutex_lock (&self->lock);
    self->malformed_targets++;
    g_mutex_unlock (&self->lock);
    gst_event_unref (event);
    return FALSE;
  }
  g_mutex_lock (&self->lock);
  p = path_of_pad (self, pad, &pos);
  if (p) {
    RtpccTime now = self->sched ? gst_rtpcc_now (GST_ELEMENT (self),
        &self->clock_cache, NULL, NULL, &self->last_now) : RTPCC_TIME_NONE;

    rtpcc_mprtp_path_sender_set_target (&p->sender, self->sched, pos, now,
        t.target_bitrate, t.media_bitrate, GST_CLOCK_TIME_IS_VALID (t.rtt) ?
        (RtpccTime) t.rtt : RTPCC_TIME_NONE);
    if (self->sched)
      publish = aggregate_if_changed (self, &media);
  }
  g_mutex_unlock (&self->lock);
  gst_event_unref (event);
  if (publish)
    publish_aggregate (self, publish, media);
  return TRUE;
}

/* A path's sink asks whether a repair goes on another path. */
static gboolean
gst_mprtp_sched_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (gst_rtpcc_mprtp_rtx_query_is (query))
    return gst_mprtp_sched_rtx_query (GST_MPRTP_SCHED (parent), pad, query);
  return gst_pad_query_default (pad, parent, query);
}

/* ---- pads --------------------------------------------------------------- */

static GstPad *
gst_mprtp_sched_request_new_pad (GstElement * element, GstPadTemplate * templ,
    const gchar * name, const GstCaps * caps)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (element);
  GstMprtpSchedPath *p;
  GstPad *pad;
  guint index;
  gchar *pad_name;

  g_mutex_lock (&self->lock);
  if (self->sched) {
    g_mutex_unlock (&self->lock);
    GST_WARNING_OBJECT (self, "the paths are fixed once the stream runs");
    return NULL;
  }
  if (self->paths->len >= RTPCC_MPRTP_MAX_PATHS) {
    g_mutex_unlock (&self->lock);
    GST_WARNING_OBJECT (self, "at most %u paths", RTPCC_MPRTP_MAX_PATHS);
    return NULL;
  }
  if (name && sscanf (name, "src_%u", &index) == 1) {
    if (index > G_MAXUINT16) {
      g_mutex_unlock (&self->lock);
      return NULL;
    }
    for (guint i = 0; i < self->paths->len; i++) {
      GstMprtpSchedPath *q = g_ptr_array_index (self->paths, i);
      if (q->index == index) {
        g_mutex_unlock (&self->lock);
        GST_WARNING_OBJECT (self, "pad %s exists", name);
        return NULL;
      }
    }
  } else {
    index = self->next_index;
  }
  self->next_index = MAX (self->next_index, index + 1);
  pad_name = g_strdup_printf ("src_%u", index);
  pad = gst_pad_new_from_template (templ, pad_name);
  g_free (pad_name);
  gst_pad_set_event_function (pad,
      GST_DEBUG_FUNCPTR (gst_mprtp_sched_src_event));
  gst_pad_set_query_function (pad,
      GST_DEBUG_FUNCPTR (gst_mprtp_sched_src_query));
  p = g_new0 (GstMprtpSchedPath, 1);
  p->pad = pad;
  p->index = index;
  rtpcc_mprtp_path_sender_init (&p->sender);
  g_ptr_array_add (self->paths, p);
  g_mutex_unlock (&self->lock);

  gst_pad_set_active (pad, TRUE);
  gst_element_add_pad (element, pad);
  return pad;
}

static void
gst_mprtp_sched_release_pad (GstElement * element, GstPad * pad)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (element);
  guint pos = 0;
  GstMprtpSchedPath *p;

  g_mutex_lock (&self->lock);
  p = path_of_pad (self, pad, &pos);
  if (p) {
    if (self->sched)
      p->pad = NULL;            /* the scheduler keeps its slot */
    else
      g_ptr_array_remove_index (self->paths, pos);
  }
  g_mutex_unlock (&self->lock);
  gst_pad_set_active (pad, FALSE);
  gst_element_remove_pad (element, pad);
}

static GstStateChangeReturn
gst_mprtp_sched_change_state (GstElement * element, GstStateChange transition)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (element);
  GstStateChangeReturn ret;
  guint buffer_ms;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_mutex_lock (&self->lock);
    gst_segment_init (&self->segment, GST_FORMAT_TIME);
    self->last_now = 0;
    self->published_rate = 0;
    self->seen_delta = FALSE;
    self->have_ssrc = FALSE;
    g_mutex_unlock (&self->lock);
    GST_OBJECT_LOCK (self);
    buffer_ms = self->encoder_buffer_ms;
    GST_OBJECT_UNLOCK (self);
    g_mutex_lock (&self->encoder_lock);
    gst_rtpcc_encoder_setter_reset (&self->encoder);
    self->encoder.buffer_ms = buffer_ms;
    g_mutex_unlock (&self->encoder_lock);
    gst_mprtp_sched_rtx_start (self);
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    gst_mprtp_sched_rtx_stop (self);
    g_mutex_lock (&self->lock);
    g_clear_pointer (&self->sched, rtpcc_mprtp_sched_free);
    gst_mprtp_sched_rtx_clear (self);
    self->rtx_moved = self->rtx_unknown = self->rtx_malformed = 0;
    for (guint i = 0; i < self->paths->len;) {
      GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
      if (!p->pad) {
        g_ptr_array_remove_index (self->paths, i);
        continue;
      }
      p->announced = FALSE;
      p->fssn = 0;
      rtpcc_mprtp_path_sender_restart (&p->sender);
      p->pushed = p->pushed_bytes = p->probes = 0;
      i++;
    }
    g_mutex_unlock (&self->lock);
  }
  return ret;
}

/* ---- GObject ------------------------------------------------------------ */

static void
path_free (gpointer data)
{
  g_free (data);
}

static void
gst_mprtp_sched_finalize (GObject * object)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (object);

  g_clear_pointer (&self->sched, rtpcc_mprtp_sched_free);
  gst_mprtp_sched_rtx_finalize (self);
  g_ptr_array_unref (self->paths);
  gst_rtpcc_encoder_setter_clear (&self->encoder);
  gst_rtpcc_clock_cache_clear (&self->clock_cache);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->encoder_lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mprtp_sched_class_init (GstMprtpSchedClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_mprtp_sched_set_property;
  gobject_class->get_property = gst_mprtp_sched_get_property;
  gobject_class->finalize = gst_mprtp_sched_finalize;

  gst_mprtp_sched_install_properties (gobject_class);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Multipath RTP scheduler", "Network/RTP",
      "Sends one RTP stream over several rtpccsink paths (MPRTP subflow "
      "extension), splits it by the paths' coupled rates, drains failed "
      "paths and drives the encoder with the aggregate",
      "gst-rtpcc developers");
  /* the rtpccsinks' encoder search stops here: the encoder is ours */
  gst_element_class_add_static_metadata (element_class,
      GST_RTPCC_RATE_OWNER_KEY, "aggregate of the src pads' targets");

  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_mprtp_sched_request_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_mprtp_sched_release_pad);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_mprtp_sched_change_state);

  GST_DEBUG_CATEGORY_INIT (mprtp_sched_debug, "mprtpsched", 0,
      "multipath RTP scheduler");
}

static void
gst_mprtp_sched_init (GstMprtpSched * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mprtp_sched_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_mprtp_sched_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->ext_id = DEFAULT_EXT_ID;
  self->encoder_control = DEFAULT_ENCODER_CONTROL;
  self->encoder_buffer_ms = DEFAULT_ENCODER_BUFFER;
  self->max_bitrate = DEFAULT_MAX_BITRATE;
  self->latency_bound_ms = DEFAULT_LATENCY_BOUND;
  self->probe_interval_ms = DEFAULT_PROBE_INTERVAL;
  g_mutex_init (&self->lock);
  g_mutex_init (&self->encoder_lock);
  gst_mprtp_sched_rtx_init (self);
  self->paths = g_ptr_array_new_with_free_func (path_free);
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
  gst_rtpcc_encoder_setter_init (&self->encoder, GST_ELEMENT (self));
}

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
 *               controller rate; consumed here, never passed upstream
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

#include "gstmprtpsched.h"
#include "gstmprtpschedreport.h"
#include "rtpccelements.h"
#include "gstrtpccevent.h"
#include "gstrtpccnow.h"

#include <gst/video/video-event.h>
#include <rtpcc/feedback/rtpext.h>
#include <rtpcc/mprtp/ext.h>
#include <stdio.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (mprtp_sched_debug);
#define GST_CAT_DEFAULT mprtp_sched_debug

#define DEFAULT_EXT_ID 5
#define DEFAULT_ENCODER_CONTROL GST_RTPCC_ENCODER_CONTROL_AUTO
#define DEFAULT_MAX_BITRATE 0
#define DEFAULT_LATENCY_BOUND 500
#define DEFAULT_PROBE_INTERVAL 1000

/* how often the paths' sinks are read, and a reporting interval */
#define POLL_INTERVAL RTPCC_MSEC (25)
#define CLASS_INTERVAL RTPCC_SEC (1)
/* elements between a src pad and its rtpccsink (queues) */
#define MAX_HOPS 8

enum
{
  PROP_0,
  PROP_EXT_ID,
  PROP_ENCODER_CONTROL,
  PROP_MAX_BITRATE,
  PROP_LATENCY_BOUND,
  PROP_PROBE_INTERVAL,
  PROP_TARGET_BITRATE,
  PROP_STATS,
};

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

/* One poll of path @i's sink stats @s (with the lock): feedback, and a
 * reporting interval once a second. */
static void
feed_path (GstMprtpSched * self, guint i, RtpccTime now, const GstStructure * s)
{
  GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
  guint64 rtcp = stat_u64 (s, "rtcp-received");
  guint64 rcvd = stat_u64 (s, "reported-received");
  guint64 lost = stat_u64 (s, "reported-lost");
  RtpccMprtpFeedbackInfo fb;

  if (rtcp != p->rtcp_received) {
    guint64 rtt = stat_u64 (s, "rtt");
    memset (&fb, 0, sizeof fb);
    fb.srtt = rtt > 0 ? (RtpccTime) rtt : RTPCC_TIME_NONE;
    fb.queue_delay = (RtpccTime) stat_u64 (s, "queue-delay");
    fb.progress = rcvd > p->reported_received;
    fb.send_rate = stat_u64 (s, "send-rate");
    fb.receive_rate = stat_u64 (s, "receive-rate");
    fb.reported_received = rcvd >= p->reported_received ?
        rcvd - p->reported_received : 0;
    fb.reported_lost = lost >= p->reported_lost ? lost - p->reported_lost : 0;
    rtpcc_mprtp_sched_on_feedback (self->sched, i, now, &fb);
    p->rtt = fb.srtt == RTPCC_TIME_NONE ? GST_CLOCK_TIME_NONE : rtt;
  }
  p->rtcp_received = rtcp;
  p->reported_received = rcvd;
  p->reported_lost = lost;
}

/* TRUE when a path has newly failed or collapsed since the last call (with
 * the lock): what was in flight on it is lost. */
static gboolean
paths_lost_packets (GstMprtpSched * self)
{
  gboolean lost = FALSE;

  for (guint i = 0; i < self->paths->len; i++) {
    GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
    RtpccMprtpPathInfo pi;
    if (!rtpcc_mprtp_sched_get_path (self->sched, i, &pi))
      continue;
    if (pi.failures > p->failures || pi.collapses > p->collapses)
      lost = TRUE;
    p->failures = pi.failures;
    p->collapses = pi.collapses;
  }
  if (lost)
    self->key_unit_requests++;
  return lost;
}

/* ---- the aggregate target ----------------------------------------------- */

/* The aggregate rtpcc-target when the encoder rate changed, else NULL.
 * With the lock. */
static GstStructure *
aggregate_if_changed (GstMprtpSched * self, guint64 * media_out)
{
  GstRtpccTargetInfo t;
  guint64 media = rtpcc_mprtp_sched_get_encoder_rate (self->sched);
  guint64 sum_target = 0, sum_media = 0;
  GstClockTime rtt = GST_CLOCK_TIME_NONE;

  if (media == 0 || media == self->published_rate)
    return NULL;
  self->published_rate = media;
  self->aggregate_updates++;
  for (guint i = 0; i < self->paths->len; i++) {
    GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
    RtpccMprtpPathInfo pi;
    if (!p->have_target || !rtpcc_mprtp_sched_get_path (self->sched, i, &pi)
        || pi.allowed == 0)
      continue;
    sum_target += p->target;
    sum_media += p->media;
    /* the slowest path in use bounds what upstream may plan for */
    if (GST_CLOCK_TIME_IS_VALID (p->rtt)
        && (!GST_CLOCK_TIME_IS_VALID (rtt) || p->rtt > rtt))
      rtt = p->rtt;
  }
  memset (&t, 0, sizeof t);
  t.media_bitrate = media;
  /* the paths' own headroom (headers, probing) in proportion */
  t.target_bitrate = sum_media > 0 ?
      (guint64) ((gdouble) media * sum_target / sum_media) : media;
  t.target_bitrate = MAX (t.target_bitrate, media);
  t.pacing_rate = t.target_bitrate;
  t.media_pacing_rate = media;
  t.rtt = rtt;
  t.controller = "mprtp";
  t.state = self->paths->len > 1 ? "multipath" : "single-path";
  *media_out = media;
  return gst_rtpcc_target_structure_new (&t);
}

/* Without the lock (setting the encoder's property can block on it). */
static void
apply_encoder (GstMprtpSched * self, guint64 media)
{
  GstRtpccEncoderControl ec;
  RtpccTime now;

  GST_OBJECT_LOCK (self);
  ec = self->encoder_control;
  GST_OBJECT_UNLOCK (self);
  if (ec != GST_RTPCC_ENCODER_CONTROL_AUTO)
    return;
  g_mutex_lock (&self->lock);
  now = gst_rtpcc_now (GST_ELEMENT (self), NULL, NULL, &self->last_now);
  g_mutex_unlock (&self->lock);
  /* the setter is used by this element's streaming thread and the
   * sinks' threads (via src_event): serialised */
  g_mutex_lock (&self->encoder_lock);
  gst_rtpcc_encoder_setter_apply (&self->encoder, self->sinkpad, now, media);
  g_mutex_unlock (&self->encoder_lock);
}

/* An increase the encoder hysteresis held back, once it is due. */
static void
retry_encoder (GstMprtpSched * self, RtpccTime now, guint64 media)
{
  g_mutex_lock (&self->encoder_lock);
  if (self->encoder.retry_at != RTPCC_TIME_NONE
      && now >= self->encoder.retry_at) {
    self->encoder.retry_at = RTPCC_TIME_NONE;
    g_mutex_unlock (&self->encoder_lock);
    apply_encoder (self, media);
    return;
  }
  g_mutex_unlock (&self->encoder_lock);
}

/* Takes @s. Without the lock. */
static void
publish_aggregate (GstMprtpSched * self, GstStructure * s, guint64 media)
{
  GST_DEBUG_OBJECT (self, "aggregate target %" GST_PTR_FORMAT, s);
  gst_pad_push_event (self->sinkpad,
      gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, gst_structure_copy (s)));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
  g_object_notify (G_OBJECT (self), "target-bitrate");
  apply_encoder (self, media);
}

/* ---- streaming ---------------------------------------------------------- */

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
    if (p->have_target)
      rtpcc_mprtp_sched_set_rate (self->sched, i, now, p->media);
  }
  self->last_poll = self->last_interval = now;
  return TRUE;
}

/* @buf with the subflow element of path @p, or NULL (counted). */
static GstBuffer *
stamp (GstMprtpSched * self, GstBuffer * buf, GstMprtpSchedPath * p,
    guint8 ext_id)
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

  g_mutex_lock (&self->lock);
  now = gst_rtpcc_now (GST_ELEMENT (self), &self->segment, buf,
      &self->last_now);
  if (!self->sched && !create_sched (self, now)) {
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buf);
    return GST_FLOW_NOT_NEGOTIATED;
  }
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
      RtpccMprtpSubflowReport rep;
      if (!stats[i])
        continue;
      feed_path (self, i, now, stats[i]);
      if (gst_mprtp_sched_report_from_stats (stats[i], &p->mprtcp_seen, &rep)) {
        /* the path's receiver reports its loss and discards by subflow
         * (MPRTCP): the path's class from them */
        rtpcc_mprtp_sched_on_report (self->sched, i, now, &rep);
      } else if (interval && p->mprtcp_seen == 0) {
        /* a receiver without subflow reports: loss per interval from the
         * path's own feedback (its subflow seq space) */
        guint64 r, l;
        /* (a sink restarted: its counters began again) */
        p->iv_received = MIN (p->iv_received, p->reported_received);
        p->iv_lost = MIN (p->iv_lost, p->reported_lost);
        r = p->reported_received - p->iv_received;
        l = p->reported_lost - p->iv_lost;
        rtpcc_mprtp_sched_on_interval (self->sched, i, now, r + l, l, 0);
        p->iv_received = p->reported_received;
        p->iv_lost = p->reported_lost;
      }
      gst_structure_free (stats[i]);
    }
    if (interval)
      self->last_interval = now;
    g_free (stats);
    g_free (pads);
  }
  rtpcc_mprtp_sched_tick (self->sched, now);
  key_unit = paths_lost_packets (self);

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
      out[k].buf = stamp (self, buf, p, (guint8) ext_id);
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
  publish = aggregate_if_changed (self, &media);
  if (!publish)
    media = self->published_rate;
  g_mutex_unlock (&self->lock);
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
  if (key_unit) {
    GST_INFO_OBJECT (self, "a path failed or collapsed: asking for a key "
        "frame");
    gst_pad_push_event (self->sinkpad,
        gst_video_event_new_upstream_force_key_unit (GST_CLOCK_TIME_NONE,
            TRUE, 0));
  }
  if (publish)
    publish_aggregate (self, publish, media);
  else if (media > 0)
    retry_encoder (self, now, media);
  return ret;
}

static gboolean
gst_mprtp_sched_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (parent);

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
    p->target = t.target_bitrate;
    p->media = t.media_bitrate;
    p->have_target = TRUE;
    if (GST_CLOCK_TIME_IS_VALID (t.rtt))
      p->rtt = t.rtt;
    if (self->sched) {
      RtpccTime now = gst_rtpcc_now (GST_ELEMENT (self), NULL, NULL,
          &self->last_now);
      rtpcc_mprtp_sched_set_rate (self->sched, pos, now, t.media_bitrate);
      publish = aggregate_if_changed (self, &media);
    }
  }
  g_mutex_unlock (&self->lock);
  gst_event_unref (event);
  if (publish)
    publish_aggregate (self, publish, media);
  return TRUE;
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
  p = g_new0 (GstMprtpSchedPath, 1);
  p->pad = pad;
  p->index = index;
  p->rtt = GST_CLOCK_TIME_NONE;
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

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_mutex_lock (&self->lock);
    gst_segment_init (&self->segment, GST_FORMAT_TIME);
    self->last_now = 0;
    self->published_rate = 0;
    self->seen_delta = FALSE;
    g_mutex_unlock (&self->lock);
    g_mutex_lock (&self->encoder_lock);
    gst_rtpcc_encoder_setter_reset (&self->encoder);
    g_mutex_unlock (&self->encoder_lock);
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    g_mutex_lock (&self->lock);
    g_clear_pointer (&self->sched, rtpcc_mprtp_sched_free);
    for (guint i = 0; i < self->paths->len;) {
      GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
      if (!p->pad) {
        g_ptr_array_remove_index (self->paths, i);
        continue;
      }
      p->announced = FALSE;
      p->fssn = 0;
      p->have_target = FALSE;
      p->rtcp_received = p->reported_received = p->reported_lost = 0;
      p->iv_received = p->iv_lost = 0;
      p->pushed = p->pushed_bytes = p->probes = 0;
      p->failures = p->collapses = 0;
      i++;
    }
    g_mutex_unlock (&self->lock);
  }
  return ret;
}

/* ---- GObject ------------------------------------------------------------ */

static GstStructure *
make_stats (GstMprtpSched * self)
{
  GstStructure *s;
  GValue list = G_VALUE_INIT;
  guint64 enc_updates;
  gchar *enc_name;

  g_mutex_lock (&self->encoder_lock);
  enc_updates = self->encoder.updates;
  enc_name = g_strdup (self->encoder.encoder_name);
  g_mutex_unlock (&self->encoder_lock);
  g_value_init (&list, GST_TYPE_LIST);
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->paths->len; i++) {
    GstMprtpSchedPath *p = g_ptr_array_index (self->paths, i);
    RtpccMprtpPathInfo pi;
    GstStructure *ps;
    GValue v = G_VALUE_INIT;

    memset (&pi, 0, sizeof pi);
    if (self->sched)
      rtpcc_mprtp_sched_get_path (self->sched, i, &pi);
    ps = gst_structure_new ("application/x-mprtp-path",
        "subflow-id", G_TYPE_UINT, p->index,
        "packets", G_TYPE_UINT64, p->pushed,
        "bytes", G_TYPE_UINT64, p->pushed_bytes,
        "probes", G_TYPE_UINT64, p->probes,
        "keyframe-packets", G_TYPE_UINT64, pi.keyframe_packets,
        "state", G_TYPE_STRING, rtpcc_mprtp_path_state_name (pi.state),
        "class", G_TYPE_STRING, rtpcc_mprtp_path_class_name (pi.klass),
        "rate", G_TYPE_UINT64, pi.rate,
        "allowed", G_TYPE_UINT64, pi.allowed,
        "failures", G_TYPE_UINT, pi.failures,
        "collapses", G_TYPE_UINT, pi.collapses,
        "parks", G_TYPE_UINT, pi.parks, NULL);
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, ps);
    gst_value_list_append_and_take_value (&list, &v);
  }
  s = gst_structure_new ("application/x-mprtp-sched-stats",
      "paths", G_TYPE_UINT, self->paths->len,
      "encoder-rate", G_TYPE_UINT64, self->sched ?
      rtpcc_mprtp_sched_get_encoder_rate (self->sched) : 0,
      "aggregate-updates", G_TYPE_UINT64, self->aggregate_updates,
      "key-unit-requests", G_TYPE_UINT64, self->key_unit_requests,
      "ext-failures", G_TYPE_UINT64, self->ext_failures,
      "released-drops", G_TYPE_UINT64, self->released_drops,
      "malformed-targets", G_TYPE_UINT64, self->malformed_targets,
      "encoder-updates", G_TYPE_UINT64, enc_updates,
      "encoder", G_TYPE_STRING, enc_name, NULL);
  g_mutex_unlock (&self->lock);
  g_free (enc_name);
  gst_structure_take_value (s, "path-stats", &list);
  return s;
}

static void
gst_mprtp_sched_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_EXT_ID:
      self->ext_id = g_value_get_uint (value);
      break;
    case PROP_ENCODER_CONTROL:
      self->encoder_control = g_value_get_enum (value);
      break;
    case PROP_MAX_BITRATE:
      self->max_bitrate = g_value_get_uint64 (value);
      break;
    case PROP_LATENCY_BOUND:
      self->latency_bound_ms = g_value_get_uint (value);
      break;
    case PROP_PROBE_INTERVAL:
      self->probe_interval_ms = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mprtp_sched_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMprtpSched *self = GST_MPRTP_SCHED (object);

  switch (prop_id) {
    case PROP_STATS:
      g_value_take_boxed (value, make_stats (self));
      return;
    case PROP_TARGET_BITRATE:
      g_mutex_lock (&self->lock);
      g_value_set_uint64 (value, self->published_rate);
      g_mutex_unlock (&self->lock);
      return;
    default:
      break;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_EXT_ID:
      g_value_set_uint (value, self->ext_id);
      break;
    case PROP_ENCODER_CONTROL:
      g_value_set_enum (value, self->encoder_control);
      break;
    case PROP_MAX_BITRATE:
      g_value_set_uint64 (value, self->max_bitrate);
      break;
    case PROP_LATENCY_BOUND:
      g_value_set_uint (value, self->latency_bound_ms);
      break;
    case PROP_PROBE_INTERVAL:
      g_value_set_uint (value, self->probe_interval_ms);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

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
  g_ptr_array_unref (self->paths);
  gst_rtpcc_encoder_setter_clear (&self->encoder);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->encoder_lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mprtp_sched_class_init (GstMprtpSchedClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  /* read when the stream starts (the first buffer) */
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_mprtp_sched_set_property;
  gobject_class->get_property = gst_mprtp_sched_get_property;
  gobject_class->finalize = gst_mprtp_sched_finalize;

  /**
   * GstMprtpSched:ext-id:
   *
   * RFC 8285 one-byte header extension ID of the MPRTP subflow element
   * (urn:ietf:params:rtp-hdrext:mprtp); the receivers' rtpccsrc
   * mprtp-ext-id must be the same. Not used with one path.
   */
  g_object_class_install_property (gobject_class, PROP_EXT_ID,
      g_param_spec_uint ("ext-id", "Extension ID",
          "One-byte header extension ID of the MPRTP subflow element", 1, 14,
          DEFAULT_EXT_ID, rw));
  /**
   * GstMprtpSched:encoder-control:
   *
   * "auto": find the encoder upstream and set its bitrate to the aggregate
   * on each change (the rtpccsinks behind mprtpsched never touch it).
   * "none": only publish the aggregate (upstream rtpcc-target event, bus
   * message, target-bitrate).
   */
  g_object_class_install_property (gobject_class, PROP_ENCODER_CONTROL,
      g_param_spec_enum ("encoder-control", "Encoder control",
          "Apply the aggregate target to the upstream encoder",
          gst_rtpcc_encoder_control_get_type (), DEFAULT_ENCODER_CONTROL,
          rw));
  /**
   * GstMprtpSched:max-bitrate:
   *
   * The media's requirement in bit/s (0: as much as the paths give). Below
   * what the paths allow, the paths with the best latency are used and the
   * rest kept passive (probed only); the aggregate never exceeds it.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_BITRATE,
      g_param_spec_uint64 ("max-bitrate", "Maximum bitrate",
          "Media requirement in bit/s (0 = as much as the paths give)", 0,
          G_MAXUINT64, DEFAULT_MAX_BITRATE, rw));
  /**
   * GstMprtpSched:latency-bound:
   *
   * End-to-end latency bound in ms: a path whose one-way latency (RTT / 2)
   * plus the receiver's playout margin (100 ms) exceeds it carries no
   * media (it is kept passive and probed).
   */
  g_object_class_install_property (gobject_class, PROP_LATENCY_BOUND,
      g_param_spec_uint ("latency-bound", "Latency bound",
          "End-to-end latency bound (ms)", 100, 10000,
          DEFAULT_LATENCY_BOUND, rw));
  /**
   * GstMprtpSched:probe-interval:
   *
   * A path that carries no media (passive, failed) gets a duplicate of a
   * media packet this often, in ms, which keeps it alive and measures it
   * (draft-ietf-avtcore-mprtp §7.4). 0: never.
   */
  g_object_class_install_property (gobject_class, PROP_PROBE_INTERVAL,
      g_param_spec_uint ("probe-interval", "Probe interval",
          "Interval of the duplicates on each unused path (ms, 0 = none)", 0,
          60000, DEFAULT_PROBE_INTERVAL, rw));
  /**
   * GstMprtpSched:target-bitrate:
   *
   * The aggregate media bitrate last published, bit/s
   * (notify::target-bitrate on change).
   */
  g_object_class_install_property (gobject_class, PROP_TARGET_BITRATE,
      g_param_spec_uint64 ("target-bitrate", "Target bitrate",
          "Aggregate media bitrate published upstream (bit/s)", 0,
          G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstMprtpSched:stats:
   *
   * "application/x-mprtp-sched-stats": paths, encoder-rate,
   * aggregate-updates, key-unit-requests (force-key-unit events sent
   * upstream after a path failed or collapsed), ext-failures (packets
   * sent without the element: no room, or not RTP), released-drops
   * (packets picked for a path whose pad was released while streaming),
   * malformed-targets (rtpcc-target events from a path without the
   * bitrates, dropped), and path-stats, a list of
   * "application/x-mprtp-path" (subflow ID, packets and bytes sent,
   * duplicates, key-frame packets, state, class, controller rate, allowed
   * rate, failures, collapses, parks).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Scheduler statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

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
  self->max_bitrate = DEFAULT_MAX_BITRATE;
  self->latency_bound_ms = DEFAULT_LATENCY_BOUND;
  self->probe_interval_ms = DEFAULT_PROBE_INTERVAL;
  g_mutex_init (&self->lock);
  g_mutex_init (&self->encoder_lock);
  self->paths = g_ptr_array_new_with_free_func (path_free);
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
  gst_rtpcc_encoder_setter_init (&self->encoder, GST_ELEMENT (self));
}

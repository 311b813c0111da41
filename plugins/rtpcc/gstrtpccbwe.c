/* rtpccbwe: the rtpcc controllers inside rtpbin / webrtcbin.
 *
 * Where gst-plugins-rs' rtpgccbwe sits: right before an rtpsession's
 * send_rtp_sink, as the element rtpbin's (or webrtcbin's)
 * request-aux-sender signal returns. The session stamps every RTP packet
 * with its own transport-wide seq, parses the receiver's TWCC feedback and
 * sends it upstream as an "RTPTWCCPackets" custom event, which arrives here
 * on the src pad. A skin over RtpccSender (gst/rtpcc/sender.h), the same
 * as rtpccsink's, in TWCC mode without SRs (the session sends those):
 *
 *   chain()      packet bytes + buffer → rtpcc_sender_enqueue_rtp
 *   src task     rtpcc_sender_dequeue when the pacer allows → a buffer of
 *                the header the sender wrote (the TWCC extension stamped
 *                with the session's ID, which the session overwrites) and
 *                the original payload memory → pushed to the session
 *   src event    RTPTWCCPackets → rtpcc_sender_transport_feedback, which
 *                maps the session's numbering onto ours
 *                (transportfeedback.h)
 *
 *   src event    GstRTPRetransmissionRequest (a NACK, on its way to
 *                rtprtxsend upstream) → passed on only if RtpccRtxHistory
 *                (rtx.h) grants it: not again within an RTT, and within
 *                the target bitrate over the last second
 *
 * and publishes each new target like rtpccsink: a bus message, an upstream
 * rtpcc-target event, the target-bitrate property and — with
 * encoder-control=auto — the bitrate of the encoder upstream, corrected
 * by what the encoders produce against it (encoderloop.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccbwe.h"
#include "rtpccelements.h"
#include "rtpccutil.h"
#include "gstrtpccevent.h"
#include "gstrtpccsenderprops.h"

#include <gst/rtp/gstrtpbuffer.h>
#include <rtpcc/feedback/twcc.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (rtpcc_bwe_debug);
#define GST_CAT_DEFAULT rtpcc_bwe_debug

#define DEFAULT_CONTROLLER "gcc"
#define DEFAULT_MAX_PACING_DELAY 1000
/* leave the encoder's buffer: key frames may spread over max-pacing-delay */
#define DEFAULT_ENCODER_BUFFER 0
#define DEFAULT_TWCC_EXT_ID 0
#define DEFAULT_PROBING FALSE
#define DEFAULT_CIRCUIT_BREAKER FALSE
#define DEFAULT_FEC_PT -1

/* the event rtpsession sends upstream on its send_rtp_sink for each TWCC
 * feedback packet it parses (gstrtpsession.c, rtpstats.c) */
#define TWCC_PACKETS_EVENT "RTPTWCCPackets"
/* what rtpsession sends upstream for each packet a NACK names */
#define RTX_REQUEST_EVENT "GstRTPRetransmissionRequest"
/* the extension's name in SDP and in caps (extmap-N) */
#define TWCC_URI RTPCC_TWCC_EXTMAP_URI
#define MAX_EXT_ID 14

enum
{
  PROP_0,
  /* controller … target-bitrate (gstrtpccsenderprops.h) */
  PROP_SENDER,
  PROP_TWCC_EXT_ID = PROP_SENDER + GST_RTPCC_SENDER_N_PROPS,
  PROP_PROBING,
  PROP_CIRCUIT_BREAKER,
  PROP_FEC_PT,
  PROP_STATS,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_rtpcc_bwe_parent_class parent_class
G_DEFINE_TYPE (GstRtpccBwe, gst_rtpcc_bwe, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (rtpccbwe, "rtpccbwe", GST_RANK_NONE,
    GST_TYPE_RTPCC_BWE);

static void
kick (GstRtpccBwe * self)
{
  self->kicked = TRUE;
  g_cond_signal (&self->cond);
}

/* ---- the sender --------------------------------------------------------- */

/* A sender stamping extension @ext_id, configured from the properties.
 * Called with the object lock. */
static RtpccSender *
make_sender (GstRtpccBwe * self, guint8 ext_id, GError ** error)
{
  RtpccSenderConfig cfg;
  RtpccSender *s;

  rtpcc_sender_config_init (&cfg);
  gst_rtpcc_sender_props_to_config (&self->props, &cfg);
  self->encoder.buffer_ms =
      gst_rtpcc_sender_props_encoder_buffer_ms (&self->props);
  cfg.feedback = RTPCC_FEEDBACK_TWCC;
  /* the session reads RRs and sends SRs: the breaker here sees only the
   * TWCC (RFC 8083 §4.1's timeout), see the property */
  cfg.circuit_breaker = self->circuit_breaker;
  cfg.sender_reports = FALSE;
  cfg.probing = self->probing;
  cfg.probe_ssrc_mode = RTPCC_PROBE_SSRC_MEDIA;
  cfg.twcc_ext_id = ext_id;
  cfg.fec_pt = self->fec_pt;
  cfg.clock_rate = 90000;
  cfg.seed = (guint64) g_get_real_time ();
  s = rtpcc_sender_new (&cfg, rtpcc_mono_now (), error);
  if (s && !gst_rtpcc_sender_props_apply_params (&self->props, s, error)) {
    rtpcc_sender_free (s);
    return NULL;
  }
  if (s)
    rtpcc_sender_set_free_func (s, (GDestroyNotify) gst_buffer_unref);
  return s;
}

/* ---- caps: the TWCC extension ID ----------------------------------------- */

/* The extension @v (an extmap-N value: the URI, or webrtcbin's array of
 * direction, URI, attributes) names. */
static const gchar *
extmap_uri (const GValue * v)
{
  if (G_VALUE_HOLDS_STRING (v))
    return g_value_get_string (v);
  if (GST_VALUE_HOLDS_ARRAY (v) && gst_value_array_get_size (v) >= 2) {
    const GValue *u = gst_value_array_get_value (v, 1);
    if (G_VALUE_HOLDS_STRING (u))
      return g_value_get_string (u);
  }
  return NULL;
}

typedef struct
{
  guint twcc;                   /* the TWCC extension's ID, 0 if absent */
  guint16 used;                 /* bit N: extmap-N is in use */
} ExtMaps;

static gboolean
scan_extmap (GQuark field, const GValue * value, gpointer user_data)
{
  ExtMaps *m = user_data;
  const gchar *name = g_quark_to_string (field);
  const gchar *uri;
  gchar *end;
  guint64 id;

  if (!g_str_has_prefix (name, "extmap-"))
    return TRUE;
  id = g_ascii_strtoull (name + 7, &end, 10);
  if (*end || id < 1 || id > MAX_EXT_ID)
    return TRUE;
  m->used |= 1u << id;
  uri = extmap_uri (value);
  if (uri && strcmp (uri, TWCC_URI) == 0 && !m->twcc)
    m->twcc = (guint) id;
  return TRUE;
}

/* The caps to push: @caps, with extmap-N=<TWCC URI> added when they name
 * no TWCC extension (so the session stamps the packets; the receiver
 * must be told the same ID). *@ext_id gets N; NULL if no ID is free. */
static GstCaps *
twcc_caps (GstRtpccBwe * self, GstCaps * caps, guint8 * ext_id)
{
  ExtMaps m = { 0, };
  GstStructure *s;
  guint want;
  gchar *field;

  if (gst_caps_get_size (caps) < 1)
    return NULL;
  gst_structure_foreach (gst_caps_get_structure (caps, 0), scan_extmap, &m);
  if (m.twcc) {
    *ext_id = (guint8) m.twcc;
    return gst_caps_ref (caps);
  }
  GST_OBJECT_LOCK (self);
  want = self->twcc_ext_id;
  GST_OBJECT_UNLOCK (self);
  if (want == 0 || (m.used & (1u << want))) {
    want = 0;
    for (guint id = 1; id <= MAX_EXT_ID && !want; id++)
      if (!(m.used & (1u << id)))
        want = id;
    if (!want)
      return NULL;
  }
  caps = gst_caps_copy (caps);
  s = gst_caps_get_structure (caps, 0);
  field = g_strdup_printf ("extmap-%u", want);
  gst_structure_set (s, field, G_TYPE_STRING, TWCC_URI, NULL);
  g_free (field);
  *ext_id = (guint8) want;
  return caps;
}

static gboolean
handle_caps (GstRtpccBwe * self, GstEvent * event)
{
  GstCaps *caps, *out;
  guint8 id = 0;
  gboolean ok;

  gst_event_parse_caps (event, &caps);
  out = twcc_caps (self, caps, &id);
  gst_event_unref (event);
  if (!out) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("No RTP header extension ID is free for transport-wide CC"),
        ("extmap-1 … extmap-%d are all in use", MAX_EXT_ID));
    return FALSE;
  }
  g_mutex_lock (&self->lock);
  if (self->sender && id != self->sender_ext_id) {
    if (rtpcc_sender_get_stats (self->sender,
            rtpcc_mono_now ())->packets_enqueued == 0) {
      /* nothing went out yet: start over with the session's ID */
      RtpccSender *s;
      GError *err = NULL;
      GST_OBJECT_LOCK (self);
      s = make_sender (self, id, &err);
      GST_OBJECT_UNLOCK (self);
      if (s) {
        rtpcc_sender_free (self->sender);
        self->sender = s;
        self->sender_ext_id = id;
        self->published_generation = G_MAXUINT64;
        self->published_channel = G_MAXUINT64;
      }
      g_clear_error (&err);
    } else {
      self->ext_id_conflicts++;
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("The TWCC extension ID changed mid-stream (%u -> %u)",
              self->sender_ext_id, id),
          ("packets keep the first ID; the session will not number them"));
    }
  }
  g_mutex_unlock (&self->lock);
  GST_DEBUG_OBJECT (self, "TWCC extension ID %u, caps %" GST_PTR_FORMAT, id,
      out);
  ok = gst_pad_push_event (self->srcpad, gst_event_new_caps (out));
  gst_caps_unref (out);
  return ok;
}

/* ---- feedback from the session ------------------------------------------ */

/* A uint-like field (payload-type is a guchar, the others uint/uint64). */
static gboolean
get_u64 (const GstStructure * s, const gchar * name, guint64 * out)
{
  const GValue *v = gst_structure_get_value (s, name);

  if (!v)
    return FALSE;
  if (G_VALUE_HOLDS_UINT64 (v))
    *out = g_value_get_uint64 (v);
  else if (G_VALUE_HOLDS_UINT (v))
    *out = g_value_get_uint (v);
  else if (G_VALUE_HOLDS_UCHAR (v))
    *out = g_value_get_uchar (v);
  else if (G_VALUE_HOLDS_INT (v) && g_value_get_int (v) >= 0)
    *out = (guint64) g_value_get_int (v);
  else
    return FALSE;
  return TRUE;
}

/* One packet of RTPTWCCPackets: seqnum, lost, remote-ts (arrival on the
 * receiver's clock), local-ts (NONE when the session had no record; then
 * its payload-type and size mean nothing). FALSE if unusable. */
static gboolean
parse_twcc_packet (const GstStructure * s, RtpccTransportPacket * p)
{
  guint64 seq, remote = GST_CLOCK_TIME_NONE, local = GST_CLOCK_TIME_NONE;
  guint64 pt, size;
  gboolean lost = FALSE;

  if (!get_u64 (s, "seqnum", &seq) || seq > G_MAXUINT16
      || !gst_structure_get_boolean (s, "lost", &lost))
    return FALSE;
  get_u64 (s, "remote-ts", &remote);
  get_u64 (s, "local-ts", &local);
  p->seq = (guint16) seq;
  p->lost = lost;
  p->arrival = !lost && GST_CLOCK_TIME_IS_VALID (remote)
      && remote <= G_MAXINT64 ? (RtpccTime) remote : RTPCC_TIME_NONE;
  p->pt = p->payload = -1;
  p->sent = GST_CLOCK_TIME_IS_VALID (local) && local <= G_MAXINT64 ?
      (RtpccTime) local : RTPCC_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (local) && get_u64 (s, "payload-type", &pt)
      && pt <= 127 && get_u64 (s, "size", &size) && size <= G_MAXINT) {
    p->pt = (gint) pt;
    p->payload = (gint) size;
  }
  return TRUE;
}

static void
handle_twcc_packets (GstRtpccBwe * self, const GstStructure * s)
{
  const GValue *v = gst_structure_get_value (s, "packets");
  RtpccTransportPacket *pkts;
  guint n = 0, total, bad = 0;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  /* rtpsession puts a GValueArray of RTPTWCCPacket structures here */
  if (!v || !G_VALUE_HOLDS (v, g_value_array_get_type ())
      || !g_value_get_boxed (v)) {
    g_mutex_lock (&self->lock);
    self->twcc_malformed++;
    g_mutex_unlock (&self->lock);
    return;
  }
  {
    GValueArray *arr = g_value_get_boxed (v);
    total = arr->n_values;
    pkts = g_new0 (RtpccTransportPacket, MAX (total, 1));
    for (guint i = 0; i < total; i++) {
      const GValue *pv = g_value_array_get_nth (arr, i);
      if (GST_VALUE_HOLDS_STRUCTURE (pv)
          && parse_twcc_packet (gst_value_get_structure (pv), &pkts[n]))
        n++;
      else
        bad++;
    }
  }
  G_GNUC_END_IGNORE_DEPRECATIONS;

  g_mutex_lock (&self->lock);
  self->twcc_events++;
  if (bad)
    self->twcc_malformed++;
  if (self->sender && n > 0) {
    rtpcc_sender_transport_feedback (self->sender, rtpcc_mono_now (), pkts,
        n);
    kick (self);
  }
  g_mutex_unlock (&self->lock);
  g_free (pkts);
}

/* ---- target publication ------------------------------------------------- */

/* Takes @s. */
static void
push_target_upstream (GstRtpccBwe * self, GstStructure * s)
{
  /* not delivered: pushed again once the pad is active */
  gboolean pending = gst_rtpcc_sender_push_target (self->sinkpad, s);

  g_mutex_lock (&self->lock);
  self->upstream_pending = pending;
  g_mutex_unlock (&self->lock);
}

/* Takes @s. */
static void
publish_target (GstRtpccBwe * self, GstStructure * s, guint64 media_bps)
{
  gboolean pending;

  GST_DEBUG_OBJECT (self, "new target %" GST_PTR_FORMAT, s);
  pending = gst_rtpcc_sender_publish_target (GST_ELEMENT (self),
      self->sinkpad, s);
  g_mutex_lock (&self->lock);
  self->upstream_pending = pending;
  g_mutex_unlock (&self->lock);
  if (self->props.encoder_control == GST_RTPCC_ENCODER_CONTROL_AUTO)
    gst_rtpcc_encoder_setter_apply (&self->encoder, self->sinkpad,
        rtpcc_mono_now (), media_bps);
}

/* ---- the pacing task ---------------------------------------------------- */

/* The header the sender wrote, then the buffer's own memory from
 * tail_offset on (shared, not copied), its timestamps and flags. */
static GstBuffer *
wire_buffer (const RtpccWirePacket * w, GstBuffer * b)
{
  GstBuffer *out = gst_buffer_new_memdup (w->head, w->head_len);

  gst_buffer_copy_into (out, b, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_META, 0, -1);
  if (gst_buffer_get_size (b) > w->tail_offset)
    gst_buffer_copy_into (out, b, GST_BUFFER_COPY_MEMORY, w->tail_offset, -1);
  return out;
}

/* Everything due now, taken under the lock. */
typedef struct
{
  GQueue buffers;
  GstStructure *publish, *resend;
  guint64 media_bps;
  gboolean breaker_changed, tripped;
  const gchar *breaker_reason;
  gboolean eos;
  gint feedback_note;           /* 1: warn, -1: it arrives now */
  RtpccTime next;
} Round;

static void
service (GstRtpccBwe * self, RtpccTime now, Round * r)
{
  RtpccSender *s = self->sender;
  const RtpccSenderStats *st;
  RtpccWirePacket w;
  GstBuffer *b;

  rtpcc_sender_tick (s, now);
  while ((b = rtpcc_sender_dequeue (s, now, &w))) {
    GstMapInfo map;
    self->last_pts = GST_BUFFER_PTS (b);
    self->last_dts = GST_BUFFER_DTS (b);
    /* what a NACK may ask for, as it leaves (a packet may wait up to
     * max-pacing-delay here; retransmissions are not kept) */
    if (self->rtx && !GST_BUFFER_FLAG_IS_SET (b,
            GST_RTP_BUFFER_FLAG_RETRANSMISSION)
        && gst_buffer_map (b, &map, GST_MAP_READ)) {
      rtpcc_rtx_history_put (self->rtx, now, map.data, map.size);
      gst_buffer_unmap (b, &map);
    }
    g_queue_push_tail (&r->buffers, wire_buffer (&w, b));
    gst_buffer_unref (b);
  }
  /* probes the controller asked for: padding-only RTP, whole */
  for (guint i = 0; i < 64 && rtpcc_sender_dequeue_probe (s, now, &w); i++) {
    b = gst_buffer_new_memdup (w.head, w.head_len);
    GST_BUFFER_PTS (b) = self->last_pts;
    GST_BUFFER_DTS (b) = self->last_dts;
    g_queue_push_tail (&r->buffers, b);
  }
  st = rtpcc_sender_get_stats (s, now);
  if ((rtpcc_sender_get_generation (s) != self->published_generation
      || rtpcc_sender_get_channel_generation (s) !=
      self->published_channel)) {
    GstRtpccTargetInfo info;
    self->published_generation = rtpcc_sender_get_generation (s);
    self->published_channel = rtpcc_sender_get_channel_generation (s);
    gst_rtpcc_target_info_from_sender (s, now, &info);
    r->publish = gst_rtpcc_target_structure_new (&info);
    r->media_bps = info.media_bitrate;
    r->tripped = st->breaker_tripped;
    r->breaker_reason = st->breaker_reason;
    r->breaker_changed = r->tripped != self->last_tripped;
    self->last_tripped = r->tripped;
  } else if (self->upstream_pending && !GST_PAD_IS_FLUSHING (self->sinkpad)) {
    GstRtpccTargetInfo info;
    gst_rtpcc_target_info_from_sender (s, now, &info);
    r->resend = gst_rtpcc_target_structure_new (&info);
  }
  /* EOS once everything queued before it has left */
  if (self->eos_pending && st->packets_enqueued == st->packets_sent +
      st->pacer_drops + st->breaker_drops) {
    self->eos_pending = FALSE;
    r->eos = TRUE;
  }
  r->next = rtpcc_sender_next_timeout (s, now);
  if (rtpcc_sender_get_feedback_problem (s, now) && !self->feedback_warned) {
    self->feedback_warned = TRUE;
    r->feedback_note = 1;
  } else if (self->feedback_warned && rtpcc_sender_has_feedback (s)) {
    self->feedback_warned = FALSE;
    r->feedback_note = -1;
  }
  /* look again once the feedback's grace period can have run out */
  if (!rtpcc_sender_has_feedback (s) && st->packets_sent > 0) {
    RtpccTime check = now + RTPCC_MSEC (500);
    r->next = r->next == RTPCC_TIME_NONE ? check : MIN (r->next, check);
  }
}

static void
warn_feedback (GstRtpccBwe * self, gint note)
{
  guint64 unmatched;

  if (note < 0) {
    GST_ELEMENT_INFO (self, STREAM, FAILED,
        ("Transport-wide CC feedback is arriving"), (NULL));
    return;
  }
  g_mutex_lock (&self->lock);
  unmatched = rtpcc_sender_get_transport_feedback_stats
      (self->sender)->unmatched;
  g_mutex_unlock (&self->lock);
  if (unmatched > 0)
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("Transport-wide CC feedback matches none of the packets sent"),
        ("%" G_GUINT64_FORMAT " reports from the rtpsession downstream "
            "named packets whose payload types and sizes are not ours: does "
            "another stream enter the session after rtpccbwe?", unmatched));
  else
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("No transport-wide CC feedback from the rtpsession downstream"),
        ("rtpccbwe must sit right before an rtpsession (what rtpbin's or "
            "webrtcbin's request-aux-sender returns); the receiver must "
            "know the TWCC header extension (extmap-%u=" TWCC_URI
            " in its caps, in webrtcbin: rtphdrexttwcc added to the "
            "payloader so the SDP offers it) and send transport-cc "
            "feedback (rtp-profile=avpf, SDP a=rtcp-fb:* transport-cc)",
            self->sender_ext_id));
}

/* pushes one buffer; FALSE once the task must stop */
static gboolean
push_one (GstRtpccBwe * self, GstBuffer * buf)
{
  GstFlowReturn ret = gst_pad_push (self->srcpad, buf);

  if (ret == GST_FLOW_OK)
    return TRUE;
  g_mutex_lock (&self->lock);
  self->srcresult = ret;
  g_mutex_unlock (&self->lock);
  if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS)
    GST_ELEMENT_FLOW_ERROR (self, ret);
  GST_DEBUG_OBJECT (self, "pausing: %s", gst_flow_get_name (ret));
  gst_pad_pause_task (self->srcpad);
  return FALSE;
}

static void
gst_rtpcc_bwe_loop (gpointer user_data)
{
  GstRtpccBwe *self = user_data;
  Round r = { G_QUEUE_INIT, NULL, };
  RtpccTime now;
  GstBuffer *buf;
  gboolean go = TRUE;

  g_mutex_lock (&self->lock);
  if (self->flushing || !self->sender) {
    g_mutex_unlock (&self->lock);
    gst_pad_pause_task (self->srcpad);
    return;
  }
  self->kicked = FALSE;
  now = rtpcc_mono_now ();
  service (self, now, &r);
  g_mutex_unlock (&self->lock);

  while ((buf = g_queue_pop_head (&r.buffers))) {
    if (go)
      go = push_one (self, buf);
    else
      gst_buffer_unref (buf);
  }
  if (r.eos && go)
    gst_pad_push_event (self->srcpad, gst_event_new_eos ());
  if (r.feedback_note)
    warn_feedback (self, r.feedback_note);
  if (r.breaker_changed) {
    if (r.tripped)
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("Circuit breaker tripped: %s", r.breaker_reason ?
              r.breaker_reason : "?"),
          ("RFC 8083: no transport-wide feedback for too long; sending is "
              "cut back until it returns"));
    else
      GST_ELEMENT_INFO (self, STREAM, FAILED, ("Circuit breaker cleared"),
          ("feedback has returned"));
  }
  if (r.publish)
    publish_target (self, r.publish, r.media_bps);
  if (r.resend)
    push_target_upstream (self, r.resend);
  if (((self->encoder.retry_at != RTPCC_TIME_NONE
              && now >= self->encoder.retry_at)
          || gst_rtpcc_encoder_setter_take_reapply (&self->encoder))
      && self->props.encoder_control == GST_RTPCC_ENCODER_CONTROL_AUTO) {
    guint64 bps;
    self->encoder.retry_at = RTPCC_TIME_NONE;
    g_mutex_lock (&self->lock);
    bps = rtpcc_sender_get_target (self->sender)->media_bitrate;
    g_mutex_unlock (&self->lock);
    gst_rtpcc_encoder_setter_apply (&self->encoder, self->sinkpad,
        rtpcc_mono_now (), bps);
  }
  if (self->encoder.retry_at != RTPCC_TIME_NONE)
    r.next = r.next == RTPCC_TIME_NONE ? self->encoder.retry_at :
        MIN (r.next, self->encoder.retry_at);
  if (!go)
    return;

  g_mutex_lock (&self->lock);
  if (!self->kicked && !self->flushing) {
    if (r.next == RTPCC_TIME_NONE) {
      g_cond_wait (&self->cond, &self->lock);
    } else {
      /* something due that did not happen (a window controller holding
       * back): look again in 1 ms rather than spin */
      RtpccTime until = MAX (r.next, now + (r.next <= now ? RTPCC_MSEC (1) :
              0));
      g_cond_wait_until (&self->cond, &self->lock,
          (until + RTPCC_NSEC_PER_USEC - 1) / RTPCC_NSEC_PER_USEC);
    }
  }
  g_mutex_unlock (&self->lock);
}

/* ---- pads --------------------------------------------------------------- */

static GstFlowReturn
gst_rtpcc_bwe_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  GstRtpccBwe *self = GST_RTPCC_BWE (parent);
  GstMapInfo map;
  GstFlowReturn ret;

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    g_mutex_lock (&self->lock);
    self->invalid_rtp++;
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buffer);
    return GST_FLOW_OK;
  }
  g_mutex_lock (&self->lock);
  ret = self->srcresult;
  if (ret == GST_FLOW_OK && self->sender) {
    /* not RTP: dropped and counted by the sender (it frees the reference
     * in any case) */
    if (rtpcc_sender_enqueue_rtp (self->sender, rtpcc_mono_now (), map.data,
            map.size, map.size, gst_buffer_ref (buffer)) ==
        RTPCC_SENDER_INVALID)
      GST_LOG_OBJECT (self, "dropping a buffer that is not valid RTP");
    /* the encoders' output against the target they were given (as
     * rtpccsink): every stream through here counts, audio and rtprtxsend's
     * retransmissions too, as the one target covers them all; a changed
     * correction is applied by the src task (take_reapply) */
    if (self->props.encoder_control == GST_RTPCC_ENCODER_CONTROL_AUTO)
      gst_rtpcc_encoder_setter_produced (&self->encoder,
          GST_BUFFER_PTS (buffer), map.data, map.size, self->fec_pt);
    kick (self);
  }
  g_mutex_unlock (&self->lock);
  gst_buffer_unmap (buffer, &map);
  gst_buffer_unref (buffer);
  return ret;
}

static GstFlowReturn
gst_rtpcc_bwe_chain_list (GstPad * pad, GstObject * parent,
    GstBufferList * list)
{
  GstFlowReturn ret = GST_FLOW_OK;
  guint n = gst_buffer_list_length (list);

  for (guint i = 0; i < n && ret == GST_FLOW_OK; i++)
    ret = gst_rtpcc_bwe_chain (pad, parent,
        gst_buffer_ref (gst_buffer_list_get (list, i)));
  gst_buffer_list_unref (list);
  return ret;
}

static gboolean
gst_rtpcc_bwe_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstRtpccBwe *self = GST_RTPCC_BWE (parent);
  gboolean ret;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
      return handle_caps (self, event);
    case GST_EVENT_FLUSH_START:
      ret = gst_pad_push_event (self->srcpad, event);
      g_mutex_lock (&self->lock);
      self->flushing = TRUE;
      self->srcresult = GST_FLOW_FLUSHING;
      kick (self);
      g_mutex_unlock (&self->lock);
      gst_pad_pause_task (self->srcpad);
      return ret;
    case GST_EVENT_FLUSH_STOP:
      /* what the pacer still holds is valid RTP: it goes out after the
       * flush, at the pacing rate */
      ret = gst_pad_push_event (self->srcpad, event);
      g_mutex_lock (&self->lock);
      self->flushing = FALSE;
      self->srcresult = GST_FLOW_OK;
      self->eos_pending = FALSE;
      g_mutex_unlock (&self->lock);
      gst_pad_start_task (self->srcpad, gst_rtpcc_bwe_loop, self, NULL);
      return ret;
    case GST_EVENT_EOS:
      g_mutex_lock (&self->lock);
      self->eos_pending = TRUE;
      kick (self);
      g_mutex_unlock (&self->lock);
      gst_event_unref (event);
      return TRUE;
    default:{
      GstClockTime room;

      /* a sendbuffer upstream tells its frame room, which bounds the
       * encoder's rate-control buffer (as rtpccsink does); the loop
       * applies it */
      if (gst_rtpcc_frame_room_event_parse (event, &room)) {
        GST_DEBUG_OBJECT (self, "frame room %" GST_TIME_FORMAT,
            GST_TIME_ARGS (room));
        gst_rtpcc_encoder_setter_set_room (&self->encoder, room);
        g_mutex_lock (&self->lock);
        kick (self);
        g_mutex_unlock (&self->lock);
      }
      return gst_pad_event_default (pad, parent, event);
    }
  }
}

/* TRUE if the retransmission the NACK event @s asks for may go: a
 * retransmitter that answers every NACK turns loss on a full path into
 * more traffic (rtx.h) */
static gboolean
grant_retransmission (GstRtpccBwe * self, const GstStructure * s)
{
  guint ssrc, seqnum;
  const guint8 *pkt;
  gsize len;
  gboolean ok = TRUE;

  if (!gst_structure_get_uint (s, "ssrc", &ssrc)
      || !gst_structure_get_uint (s, "seqnum", &seqnum) || seqnum > 65535)
    return TRUE;                /* not ours to judge */
  g_mutex_lock (&self->lock);
  if (self->rtx && self->sender) {
    const RtpccSenderStats *st = rtpcc_sender_get_stats (self->sender,
        rtpcc_mono_now ());
    RtpccRtxVerdict v = rtpcc_rtx_history_request (self->rtx,
        rtpcc_mono_now (), ssrc, (guint16) seqnum, st->srtt,
        rtpcc_sender_get_target (self->sender)->target_bitrate, &pkt, &len);
    GST_LOG_OBJECT (self, "retransmission of %08x/%u: %s", ssrc, seqnum,
        rtpcc_rtx_verdict_name (v));
    ok = v == RTPCC_RTX_SEND;
  }
  g_mutex_unlock (&self->lock);
  return ok;
}

static gboolean
gst_rtpcc_bwe_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstRtpccBwe *self = GST_RTPCC_BWE (parent);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM
      && gst_event_has_name (event, TWCC_PACKETS_EVENT)) {
    handle_twcc_packets (self, gst_event_get_structure (event));
    gst_event_unref (event);
    return TRUE;
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM
      && gst_event_has_name (event, RTX_REQUEST_EVENT)
      && !grant_retransmission (self, gst_event_get_structure (event))) {
    gst_event_unref (event);
    return TRUE;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_rtpcc_bwe_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstRtpccBwe *self = GST_RTPCC_BWE (parent);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  g_mutex_lock (&self->lock);
  self->flushing = !active;
  self->srcresult = active ? GST_FLOW_OK : GST_FLOW_FLUSHING;
  kick (self);
  g_mutex_unlock (&self->lock);
  if (active)
    return gst_pad_start_task (pad, gst_rtpcc_bwe_loop, self, NULL);
  return gst_pad_stop_task (pad);
}

/* ---- GstElement --------------------------------------------------------- */

static GstStateChangeReturn
gst_rtpcc_bwe_change_state (GstElement * element, GstStateChange transition)
{
  GstRtpccBwe *self = GST_RTPCC_BWE (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    /* made here, so that an unknown controller or bad parameters fail the
     * state change as with rtpccsink; remade with the session's extension
     * ID when the caps name another one */
    GError *err = NULL;
    RtpccSender *s;
    guint8 id;
    GST_OBJECT_LOCK (self);
    id = (guint8) (self->twcc_ext_id ? self->twcc_ext_id : 1);
    s = make_sender (self, id, &err);
    GST_OBJECT_UNLOCK (self);
    if (!s) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
          (NULL));
      g_clear_error (&err);
      return GST_STATE_CHANGE_FAILURE;
    }
    g_mutex_lock (&self->lock);
    self->sender = s;
    {
      RtpccRtxHistoryConfig rc;
      rtpcc_rtx_history_config_init (&rc);
      self->rtx = rtpcc_rtx_history_new (&rc);
    }
    self->sender_ext_id = id;
    self->published_generation = G_MAXUINT64;
    self->published_channel = G_MAXUINT64;
    self->last_tripped = self->feedback_warned = FALSE;
    self->upstream_pending = self->eos_pending = FALSE;
    self->last_pts = self->last_dts = GST_CLOCK_TIME_NONE;
    self->twcc_events = self->twcc_malformed = 0;
    self->invalid_rtp = self->ext_id_conflicts = 0;
    g_mutex_unlock (&self->lock);
    gst_rtpcc_encoder_setter_reset (&self->encoder);
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
    g_mutex_lock (&self->lock);
    rtpcc_sender_free (self->sender);
    self->sender = NULL;
    rtpcc_rtx_history_free (self->rtx);
    self->rtx = NULL;
    g_mutex_unlock (&self->lock);
  }
  return ret;
}

/* ---- GObject ------------------------------------------------------------ */

static GstStructure *
make_stats (GstRtpccBwe * self)
{
  GstStructure *s;
  const RtpccSenderStats *st;
  const RtpccTransportFeedbackStats *tf;
  RtpccTime now = rtpcc_mono_now ();

  g_mutex_lock (&self->lock);
  if (!self->sender) {
    s = gst_structure_new ("application/x-rtpcc-bwe-stats",
        "invalid-rtp", G_TYPE_UINT64, self->invalid_rtp, NULL);
    g_mutex_unlock (&self->lock);
    return s;
  }
  st = rtpcc_sender_get_stats (self->sender, now);
  tf = rtpcc_sender_get_transport_feedback_stats (self->sender);
  s = gst_structure_new ("application/x-rtpcc-bwe-stats",
      "media-bitrate", G_TYPE_UINT64,
      rtpcc_sender_get_target (self->sender)->media_bitrate,
      "invalid-rtp", G_TYPE_UINT64, self->invalid_rtp + st->invalid_rtp,
      "twcc-ext-id", G_TYPE_UINT, (guint) self->sender_ext_id,
      "twcc-events", G_TYPE_UINT64, self->twcc_events,
      "twcc-malformed", G_TYPE_UINT64, self->twcc_malformed,
      "twcc-reports", G_TYPE_UINT64, tf->reports,
      "twcc-unmatched", G_TYPE_UINT64, tf->unmatched,
      "twcc-syncs", G_TYPE_UINT64, tf->syncs,
      "twcc-offset", G_TYPE_INT, tf->offset,
      "ext-id-conflicts", G_TYPE_UINT64, self->ext_id_conflicts,
      "feedback-problem", G_TYPE_BOOLEAN, self->feedback_warned, NULL);
  gst_rtpcc_sender_props_add_stats (s, self->sender, now, &self->encoder);
  if (self->rtx) {
    RtpccRtxHistoryStats rs;
    rtpcc_rtx_history_get_stats (self->rtx, &rs);
    gst_structure_set (s, "rtx-requests", G_TYPE_UINT64, rs.requests,
        "rtx-granted", G_TYPE_UINT64, rs.retransmitted,
        "rtx-too-soon", G_TYPE_UINT64, rs.too_soon,
        "rtx-rate-limited", G_TYPE_UINT64, rs.rate_limited,
        "rtx-unknown", G_TYPE_UINT64, rs.unknown + rs.too_old, NULL);
  }
  g_mutex_unlock (&self->lock);
  return s;
}

static void
gst_rtpcc_bwe_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRtpccBwe *self = GST_RTPCC_BWE (object);

  if (gst_rtpcc_sender_props_set_property (&self->props, GST_OBJECT (self),
          PROP_SENDER, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TWCC_EXT_ID:
      self->twcc_ext_id = g_value_get_uint (value);
      break;
    case PROP_PROBING:
      self->probing = g_value_get_boolean (value);
      break;
    case PROP_CIRCUIT_BREAKER:
      self->circuit_breaker = g_value_get_boolean (value);
      break;
    case PROP_FEC_PT:
      self->fec_pt = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rtpcc_bwe_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstRtpccBwe *self = GST_RTPCC_BWE (object);

  if (gst_rtpcc_sender_props_get_property (&self->props, GST_OBJECT (self),
          PROP_SENDER, prop_id, value, &self->lock, &self->sender))
    return;
  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, make_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TWCC_EXT_ID:
      g_value_set_uint (value, self->twcc_ext_id);
      break;
    case PROP_PROBING:
      g_value_set_boolean (value, self->probing);
      break;
    case PROP_CIRCUIT_BREAKER:
      g_value_set_boolean (value, self->circuit_breaker);
      break;
    case PROP_FEC_PT:
      g_value_set_int (value, self->fec_pt);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rtpcc_bwe_finalize (GObject * object)
{
  GstRtpccBwe *self = GST_RTPCC_BWE (object);

  rtpcc_sender_free (self->sender);
  rtpcc_rtx_history_free (self->rtx);
  gst_rtpcc_sender_props_clear (&self->props);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  gst_rtpcc_encoder_setter_clear (&self->encoder);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_rtpcc_bwe_class_init (GstRtpccBweClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  /* the sender is made on NULL→READY: settings apply from the next one */
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  gobject_class->set_property = gst_rtpcc_bwe_set_property;
  gobject_class->get_property = gst_rtpcc_bwe_get_property;
  gobject_class->finalize = gst_rtpcc_bwe_finalize;

  /* controller, controller-params, min/max/start-bitrate, encoder-control,
   * pacing, max-pacing-delay, target-bitrate (gstrtpccsenderprops.h) */
  gst_rtpcc_sender_props_install (gobject_class, PROP_SENDER,
      DEFAULT_CONTROLLER, DEFAULT_MAX_PACING_DELAY, DEFAULT_ENCODER_BUFFER);
  /**
   * GstRtpccBwe:twcc-ext-id:
   *
   * RFC 8285 one-byte extension ID of the transport-wide seq, used only
   * when the caps name none (extmap-N=<TWCC URI>, which a payloader with
   * rtphdrexttwcc and webrtcbin put there): it is then added to the caps,
   * so the session stamps the packets, and the receiver must be given the
   * same ID. 0 (default): the lowest ID the caps leave free.
   */
  g_object_class_install_property (gobject_class, PROP_TWCC_EXT_ID,
      g_param_spec_uint ("twcc-ext-id", "TWCC extension ID",
          "Extension ID if the caps name none (0 = lowest free)", 0,
          MAX_EXT_ID, DEFAULT_TWCC_EXT_ID, rw));
  /**
   * GstRtpccBwe:probing:
   *
   * Send the probe bytes a controller asks for as padding-only packets on
   * the media SSRC, which is then renumbered on the wire (docs/transport.md,
   * "Probes on the media SSRC"). Off by default: rtprtxsend upstream (as
   * in webrtcbin) answers NACKs by the seqs it saw, which would no longer
   * be those on the wire.
   */
  g_object_class_install_property (gobject_class, PROP_PROBING,
      g_param_spec_boolean ("probing", "Probing",
          "Send padding-only probe packets when the controller asks "
          "(renumbers the media SSRC)", DEFAULT_PROBING, rw));
  /**
   * GstRtpccBwe:circuit-breaker:
   *
   * RFC 8083 circuit breaker. The session consumes the receiver reports
   * the congestion and media-timeout rules need, so here it can only act
   * on the transport-wide feedback stopping (§4.1): media stops 15 s after
   * the last feedback. Off by default, since a peer that never negotiated
   * transport-cc would be cut off too.
   */
  g_object_class_install_property (gobject_class, PROP_CIRCUIT_BREAKER,
      g_param_spec_boolean ("circuit-breaker", "Circuit breaker",
          "RFC 8083 RTCP timeout on the transport-wide feedback",
          DEFAULT_CIRCUIT_BREAKER, rw));
  /**
   * GstRtpccBwe:fec-pt:
   *
   * Payload type of FEC packets (their loss is not media loss; fecenc's
   * format is rewritten if probes renumber its SSRC), -1 = none.
   */
  g_object_class_install_property (gobject_class, PROP_FEC_PT,
      g_param_spec_int ("fec-pt", "FEC payload type",
          "Payload type of FEC packets (-1 = none)", -1, 127, DEFAULT_FEC_PT,
          rw));
  /**
   * GstRtpccBwe:stats:
   *
   * Counters and estimates ("application/x-rtpcc-bwe-stats"): packets
   * sent and dropped, the session's TWCC reports (events, malformed,
   * unmatched, offset of its numbering from ours), reported
   * received/lost, RTT, loss, receive rate, queue delay, target, state,
   * encoder updates.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Congestion-controlled RTP pacer for rtpbin/webrtcbin",
      "Filter/Network/RTP",
      "Runs an rtpcc congestion controller in front of an rtpsession "
      "(rtpbin's or webrtcbin's aux sender) on its transport-wide CC "
      "feedback, paces the RTP and drives the encoder's bitrate",
      "gst-rtpcc developers");
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_rtpcc_bwe_change_state);

  GST_DEBUG_CATEGORY_INIT (rtpcc_bwe_debug, "rtpccbwe", 0,
      "rtpcc congestion control inside rtpbin");
}

static void
gst_rtpcc_bwe_init (GstRtpccBwe * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_rtpcc_bwe_chain));
  gst_pad_set_chain_list_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_rtpcc_bwe_chain_list));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_rtpcc_bwe_sink_event));
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_rtpcc_bwe_src_event));
  gst_pad_set_activatemode_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_rtpcc_bwe_src_activate_mode));
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  gst_rtpcc_sender_props_init (&self->props, DEFAULT_CONTROLLER,
      DEFAULT_MAX_PACING_DELAY, DEFAULT_ENCODER_BUFFER);
  self->twcc_ext_id = DEFAULT_TWCC_EXT_ID;
  self->probing = DEFAULT_PROBING;
  self->circuit_breaker = DEFAULT_CIRCUIT_BREAKER;
  self->fec_pt = DEFAULT_FEC_PT;
  self->srcresult = GST_FLOW_FLUSHING;
  self->flushing = TRUE;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  gst_rtpcc_encoder_setter_init (&self->encoder, GST_ELEMENT (self));
}

/* sendbuffer: priority, expiry and frame-aware drop policies on the send
 * path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-sendbuffer
 * @title: sendbuffer
 *
 * The single queue on the send path, in front of rtpccsink. RTP streams
 * come in on request pads `sink_%u`, each with a #GstSendBufferPad:priority
 * (by default audio, recognised from the caps' `media` field, above
 * everything else); one source pad carries the merged RTP stream out,
 * pushed from the element's own streaming thread.
 *
 * The queue drains at the rate the congestion controller allows: rtpccsink
 * sends an "rtpcc-target" upstream event with the round-trip time and its
 * pacing, target and media rates; sendbuffer takes the RTT from it, drains
 * at the media share of the pacing rate (pacing × media / target: FEC and
 * probing use the rest), and forwards the event further upstream (to
 * encoders). Before the first event nothing limits the drain.
 *
 * The #GstSendBuffer:policy decides what to drop (see #GstSendBufferPolicy
 * and the library's RtpccSendbuf): UltraGrid's deadline rule (Saurin,
 * "Congestion Control for Video-conferencing Applications", MSc thesis,
 * University of Glasgow 2006, §6.3.2), the expiry and priority rules of
 * SFDPS (Parejiya, Desai, Chaubey, "Streaming Application QoS: Controlling
 * Congestion Video Streaming Media Data Quality through Sending the Finest
 * Data Package Subsequent") or ring-buffer overflow. It drops whole frames
 * only (a frame is the packets of one SSRC with one RTP timestamp, ended by
 * the marker bit), and never a frame whose first packet has been sent. Keyframes and
 * non-reference frames are recognised from the payload for H264 and VP8
 * (caps encoding-name), else from the buffers' DELTA_UNIT and DROPPABLE
 * flags. Deliberate drops must not
 * look like network loss, so every SSRC's sequence numbers are rewritten on
 * output without holes (the receiver's RFC 3550 loss count and RR, and so
 * the controller and the circuit breaker, see no gap).
 *
 * With #GstSendBuffer:block, a full queue blocks upstream instead of
 * dropping (not with the ring policies, whose overflow rule is the point).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 sendbuffer name=sb policy=ring-sfdps2 budget=200 ! \
 *     rtpccsink host=127.0.0.1 port=5004 \
 *   audiotestsrc is-live=true ! opusenc ! rtpopuspay ! sb. \
 *   videotestsrc is-live=true ! vp8enc deadline=1 ! rtpvp8pay ! sb.
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <gst/rtp/gstrtpbuffer.h>

#include <rtpcc/feedback/rtpext.h>

#include "gstsendbuffer.h"
#include "gstsendbufferpad.h"
#include "gstsendbufferstats.h"
#include "gstrtpccevent.h"
#include "gstrtpcctimedtask.h"

GST_DEBUG_CATEGORY (gst_send_buffer_debug);
#define GST_CAT_DEFAULT gst_send_buffer_debug

#define DEFAULT_POLICY GST_SEND_BUFFER_POLICY_RING_SFDPS2
#define DEFAULT_BUDGET 200             /* ms */
#define DEFAULT_PLAYOUT_DELAY 0        /* ms */
#define DEFAULT_MAX_PACKETS 0
#define DEFAULT_MAX_BYTES (2 * 1000 * 1000)
#define DEFAULT_MAX_FRAMES 0
#define DEFAULT_DROP_DEPENDENTS FALSE
#define DEFAULT_BLOCK FALSE
#define DEFAULT_STATS_INTERVAL 1000

/* ---- element -------------------------------------------------------------- */

struct _GstSendBuffer
{
  GstElement parent;

  GstPad *srcpad;

  GMutex lock;                  /* protects everything below */
  GstRtpccTimedTask task;       /* pushes each packet when it may go */
  GCond room;                   /* a blocked chain: the queue shrank,
                                 * limits changed or flushing */
  RtpccSendbuf *sb;
  RtpccSendbufConfig config;    /* property values */
  gboolean block;
  GstFlowReturn srcresult;
  gboolean need_stream_start, need_caps, need_segment;
  gboolean eos_pushed;
  guint next_pad;
  guint64 invalid;
  guint64 target_events;
  guint64 renumbered;
  guint stats_interval;         /* ms, 0 = no bus messages */
  RtpccTime last_stats;
};

enum
{
  PROP_0,
  PROP_POLICY,
  PROP_BUDGET,
  PROP_PLAYOUT_DELAY,
  PROP_MAX_PACKETS,
  PROP_MAX_BYTES,
  PROP_MAX_FRAMES,
  PROP_DROP_DEPENDENTS,
  PROP_BLOCK,
  PROP_STATS_INTERVAL,
  PROP_STATS,
};

static GstStaticPadTemplate sink_template =
GST_STATIC_PAD_TEMPLATE ("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS ("application/x-rtp"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_send_buffer_parent_class parent_class
G_DEFINE_TYPE (GstSendBuffer, gst_send_buffer, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (sendbuffer, "sendbuffer", GST_RANK_NONE,
    GST_TYPE_SEND_BUFFER);

GType
gst_send_buffer_policy_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_SEND_BUFFER_POLICY_FIFO, "Arrival order, tail drop when full",
        "fifo"},
    {GST_SEND_BUFFER_POLICY_DEADLINE,
          "UltraGrid: drop a whole frame at transmission if it cannot make "
          "the budget", "deadline"},
    {GST_SEND_BUFFER_POLICY_SFDPS1,
        "Priority order, drop if created + budget < now + RTT/2", "sfdps1"},
    {GST_SEND_BUFFER_POLICY_SFDPS2,
        "SFDPS1, but send an expired frame that is alone", "sfdps2"},
    {GST_SEND_BUFFER_POLICY_RING,
          "Arrival order, overflow drops the oldest lowest-priority frame",
        "ring"},
    {GST_SEND_BUFFER_POLICY_RING_SFDPS2, "Ring overflow rule plus SFDPS2",
        "ring-sfdps2"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSendBufferPolicy", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

/* The library's now: the running time the task waits in (the system
 * clock's when the element has no clock, e.g. in a harness without one);
 * 0 before the clock reaches the base time. */
static RtpccTime
now_of (GstSendBuffer * self)
{
  RtpccTime now = gst_rtpcc_timed_task_now (&self->task);

  return now == RTPCC_TIME_NONE ? 0 : now;
}

/* Lock held: the queue changed what may be due; wake the task if it
 * sleeps past that. */
static void
kick (GstSendBuffer * self, RtpccTime now)
{
  RtpccTime next = rtpcc_sendbuf_next_time (self->sb, now);

  gst_rtpcc_timed_task_kick (&self->task, next == RTPCC_TIME_NONE ?
      RTPCC_TIME_INFINITE : next);
}

static void
release_buffer (gpointer buf)
{
  gst_buffer_unref (buf);
}

static GstFlowReturn
gst_send_buffer_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstSendBuffer *self = GST_SEND_BUFFER (parent);
  RtpccSendbufPacket p;
  GstClockTime rt;
  RtpccTime now;
  GstFlowReturn ret;
  gboolean has_clock;

  if (!gst_send_buffer_pad_describe (GST_SEND_BUFFER_PAD (pad), buf, &p,
          &rt)) {
    GST_DEBUG_OBJECT (pad, "dropping a buffer that is not RTP");
    g_mutex_lock (&self->lock);
    self->invalid++;
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  /* creation time = capture time (the expiry rules count the budget from
   * capture): the buffer's running time, else its arrival */
  now = now_of (self);
  GST_OBJECT_LOCK (self);
  has_clock = GST_ELEMENT_CLOCK (self) != NULL;
  GST_OBJECT_UNLOCK (self);
  if (GST_CLOCK_TIME_IS_VALID (rt) && has_clock) {
    p.created = (RtpccTime) rt;
  } else {
    p.created = now;
  }
  /* nothing is captured after it arrives: a timestamp ahead of the clock
   * (e.g. a synthetic source stamping a whole buffer at once) counts from
   * now */
  p.created = MIN (p.created, now);
  /* output timestamps are running time in our own segment */
  buf = gst_buffer_make_writable (buf);
  GST_BUFFER_PTS (buf) = rt;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;

  g_mutex_lock (&self->lock);
  if (self->block && self->config.policy != RTPCC_SENDBUF_RING
      && self->config.policy != RTPCC_SENDBUF_RING_SFDPS2) {
    while (!self->task.flushing && self->srcresult == GST_FLOW_OK
        && !rtpcc_sendbuf_has_room (self->sb, p.size))
      g_cond_wait (&self->room, &self->lock);
  }
  if (self->task.flushing || self->srcresult != GST_FLOW_OK) {
    ret = self->task.flushing ? GST_FLOW_FLUSHING : self->srcresult;
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buf);
    return ret;
  }
  rtpcc_sendbuf_enqueue (self->sb, now, &p, buf);
  kick (self, now);
  g_mutex_unlock (&self->lock);
  return GST_FLOW_OK;
}

static gboolean
all_eos (GstSendBuffer * self)
{
  gboolean eos = TRUE;
  GList *l;

  GST_OBJECT_LOCK (self);
  if (!GST_ELEMENT_CAST (self)->sinkpads)
    eos = FALSE;
  for (l = GST_ELEMENT_CAST (self)->sinkpads; l; l = l->next)
    eos = eos && gst_send_buffer_pad_is_eos (l->data);
  GST_OBJECT_UNLOCK (self);
  return eos;
}

static void
start_task (GstSendBuffer * self);

static gboolean
gst_send_buffer_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstSendBuffer *self = GST_SEND_BUFFER (parent);

  /* what the pad keeps of its stream: caps, segment, EOS */
  gst_send_buffer_pad_track_event (GST_SEND_BUFFER_PAD (pad), event);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
    case GST_EVENT_SEGMENT:
    case GST_EVENT_STREAM_START:
      /* the merged stream has its own */
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_EOS:
      gst_event_unref (event);
      g_mutex_lock (&self->lock);
      /* the task pushes EOS once drained */
      gst_rtpcc_timed_task_wake (&self->task);
      g_mutex_unlock (&self->lock);
      return TRUE;
    case GST_EVENT_FLUSH_START:
      g_mutex_lock (&self->lock);
      gst_rtpcc_timed_task_set_flushing (&self->task, TRUE);
      g_cond_broadcast (&self->room);
      g_mutex_unlock (&self->lock);
      gst_pad_push_event (self->srcpad, event);
      gst_pad_pause_task (self->srcpad);
      return TRUE;
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock (&self->lock);
      if (self->sb)
        rtpcc_sendbuf_flush (self->sb);
      gst_rtpcc_timed_task_set_flushing (&self->task, FALSE);
      self->srcresult = GST_FLOW_OK;
      self->eos_pushed = FALSE;
      self->need_segment = TRUE;        /* flush-stop may reset downstream */
      g_mutex_unlock (&self->lock);
      gst_pad_push_event (self->srcpad, event);
      start_task (self);
      return TRUE;
    case GST_EVENT_TAG:
    case GST_EVENT_GAP:
      /* per-stream information the merged stream cannot carry */
      gst_event_unref (event);
      return TRUE;
    default:
      return gst_pad_event_default (pad, parent, event);
  }
}

/* "rtpcc-target" from rtpccsink: the round-trip time and the rate media
 * leaves the sender at (the media share of the pacing rate: FEC from a
 * fecenc after this element and probe padding use the rest), which the
 * expiry policies judge a frame by; then on upstream to whoever adapts
 * (encoders). */
static gboolean
gst_send_buffer_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstSendBuffer *self = GST_SEND_BUFFER (parent);
  GstRtpccTargetInfo t;

  if (gst_rtpcc_target_event_parse (event, &t)) {
    g_mutex_lock (&self->lock);
    self->target_events++;
    if (self->sb) {
      rtpcc_sendbuf_set_rtt (self->sb, GST_CLOCK_TIME_IS_VALID (t.rtt)
          && t.rtt < G_MAXINT64 ? (RtpccTime) t.rtt : RTPCC_TIME_NONE);
      rtpcc_sendbuf_set_rate (self->sb, t.media_pacing_rate);
    }
    /* the rate changed: re-plan the wait */
    gst_rtpcc_timed_task_wake (&self->task);
    g_mutex_unlock (&self->lock);
    GST_LOG_OBJECT (self, "rtt %" GST_TIME_FORMAT ", drain %"
        G_GUINT64_FORMAT " bit/s", GST_TIME_ARGS (t.rtt),
        t.media_pacing_rate);
  }
  return gst_pad_event_default (pad, parent, event);
}

static GstStructure *make_stats (GstSendBuffer * self);

/* The stats on the bus at most once per interval while packets flow, so an
 * application can follow the drops without polling. Called without the
 * lock. */
static void
maybe_post_stats (GstSendBuffer * self, RtpccTime now)
{
  guint interval;
  gboolean due;

  g_mutex_lock (&self->lock);
  interval = self->stats_interval;
  due = interval > 0 && (self->last_stats == RTPCC_TIME_NONE
      || now >= self->last_stats + RTPCC_MSEC (interval));
  if (due)
    self->last_stats = now;
  g_mutex_unlock (&self->lock);
  if (due)
    gst_element_post_message (GST_ELEMENT_CAST (self),
        gst_message_new_element (GST_OBJECT_CAST (self), make_stats (self)));
}

static void
push_sticky (GstSendBuffer * self)
{
  if (self->need_stream_start) {
    gchar *id = g_strdup_printf ("sendbuffer-%08x", g_random_int ());
    gst_pad_push_event (self->srcpad, gst_event_new_stream_start (id));
    g_free (id);
    self->need_stream_start = FALSE;
  }
  if (self->need_caps) {
    GstCaps *caps = gst_caps_new_empty_simple ("application/x-rtp");
    gst_pad_push_event (self->srcpad, gst_event_new_caps (caps));
    gst_caps_unref (caps);
    self->need_caps = FALSE;
  }
  if (self->need_segment) {
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    gst_pad_push_event (self->srcpad, gst_event_new_segment (&seg));
    self->need_segment = FALSE;
  }
}

static void
gst_send_buffer_loop (gpointer user_data)
{
  GstSendBuffer *self = GST_SEND_BUFFER (user_data);
  RtpccSendbufOut out;
  GstBuffer *buf = NULL;
  GstFlowReturn ret;
  RtpccTime now = 0, room = RTPCC_TIME_NONE;
  gboolean tell_room;

  g_mutex_lock (&self->lock);
  while (!self->task.flushing && !buf) {
    RtpccTime next;

    if (rtpcc_sendbuf_get_stats (self->sb)->queued_packets == 0) {
      if (!self->eos_pushed && all_eos (self)) {
        self->eos_pushed = TRUE;
        g_mutex_unlock (&self->lock);
        push_sticky (self);
        gst_pad_push_event (self->srcpad, gst_event_new_eos ());
        g_mutex_lock (&self->lock);
        continue;
      }
      gst_rtpcc_timed_task_wait (&self->task, RTPCC_TIME_INFINITE);
      continue;
    }
    now = now_of (self);
    next = rtpcc_sendbuf_next_time (self->sb, now);
    if (next == RTPCC_TIME_NONE) {
      /* only frames held until they show a keyframe: wait for input */
      gst_rtpcc_timed_task_wait (&self->task, RTPCC_TIME_INFINITE);
      continue;
    }
    if (next > now) {
      gst_rtpcc_timed_task_wait (&self->task, next);
      continue;
    }
    buf = rtpcc_sendbuf_dequeue (self->sb, now, &out);
    g_cond_broadcast (&self->room);
  }
  if (self->task.flushing) {
    g_mutex_unlock (&self->lock);
    if (buf)
      gst_buffer_unref (buf);
    gst_pad_pause_task (self->srcpad);
    return;
  }
  if (out.seq != out.packet.seq)
    self->renumbered++;
  /* Eq. 6.3 for the encoder, through whoever drives it downstream */
  tell_room = rtpcc_sendbuf_take_frame_room (self->sb, &room);
  g_mutex_unlock (&self->lock);
  GST_LOG_OBJECT (self, "ssrc %08x seq %u -> %u, priority %u, age %"
      G_GINT64_FORMAT " us%s%s", out.packet.ssrc, out.packet.seq, out.seq,
      out.packet.priority, out.age / 1000, out.packet.keyframe ? ", key" : "",
      out.packet.droppable ? ", droppable" : "");

  /* no holes per SSRC for what the policy dropped: deliberate drops must
   * not look like network loss to the receiver and the controller */
  if (out.seq != out.packet.seq) {
    GstMapInfo map;

    buf = gst_buffer_make_writable (buf);
    if (gst_buffer_map (buf, &map, GST_MAP_READWRITE)) {
      /* valid RTP: describe() checked it when the buffer came in */
      rtpcc_rtp_set_seq (map.data, map.size, out.seq);
      gst_buffer_unmap (buf, &map);
    }
  }
  push_sticky (self);
  if (tell_room) {
    GST_DEBUG_OBJECT (self, "frame room %" G_GINT64_FORMAT " ms",
        room == RTPCC_TIME_NONE ? -1 : room / RTPCC_NSEC_PER_MSEC);
    gst_pad_push_event (self->srcpad, gst_rtpcc_frame_room_event_new
        (room == RTPCC_TIME_NONE ? GST_CLOCK_TIME_NONE : (GstClockTime) room));
  }
  ret = gst_pad_push (self->srcpad, buf);
  /* the release time (one clock read per packet, not two) */
  maybe_post_stats (self, now);
  if (ret != GST_FLOW_OK) {
    g_mutex_lock (&self->lock);
    self->srcresult = ret;
    g_cond_broadcast (&self->room);
    g_mutex_unlock (&self->lock);
    GST_DEBUG_OBJECT (self, "pausing: %s", gst_flow_get_name (ret));
    if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS)
      GST_ELEMENT_FLOW_ERROR (self, ret);
    gst_pad_pause_task (self->srcpad);
  }
}

static void
start_task (GstSendBuffer * self)
{
  gst_pad_start_task (self->srcpad, gst_send_buffer_loop, self, NULL);
}

static gboolean
gst_send_buffer_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstSendBuffer *self = GST_SEND_BUFFER (parent);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  g_mutex_lock (&self->lock);
  if (active) {
    self->srcresult = GST_FLOW_OK;
  } else {
    /* a chain blocked on a full queue gives up before the task stops */
    gst_rtpcc_timed_task_set_flushing (&self->task, TRUE);
    g_cond_broadcast (&self->room);
  }
  g_mutex_unlock (&self->lock);
  return gst_rtpcc_timed_task_activate (&self->task, active,
      gst_send_buffer_loop, self);
}

static GstPad *
gst_send_buffer_request_new_pad (GstElement * element, GstPadTemplate * templ,
    const gchar * name, const GstCaps * caps)
{
  GstSendBuffer *self = GST_SEND_BUFFER (element);
  GstPad *pad;
  gchar *pad_name;
  guint n;

  GST_OBJECT_LOCK (self);
  if (name && sscanf (name, "sink_%u", &n) == 1) {
    if (n >= self->next_pad)
      self->next_pad = n + 1;
  } else {
    n = self->next_pad++;
  }
  GST_OBJECT_UNLOCK (self);
  pad_name = g_strdup_printf ("sink_%u", n);
  pad = g_object_new (GST_TYPE_SEND_BUFFER_PAD, "name", pad_name,
      "direction", GST_PAD_SINK, "template", templ, NULL);
  g_free (pad_name);
  gst_pad_set_chain_function (pad, GST_DEBUG_FUNCPTR (gst_send_buffer_chain));
  gst_pad_set_event_function (pad,
      GST_DEBUG_FUNCPTR (gst_send_buffer_sink_event));
  GST_OBJECT_FLAG_SET (pad, GST_PAD_FLAG_PROXY_ALLOCATION);
  gst_pad_set_active (pad, TRUE);
  if (!gst_element_add_pad (element, pad)) {
    gst_object_unref (pad);
    return NULL;
  }
  return pad;
}

static void
gst_send_buffer_release_pad (GstElement * element, GstPad * pad)
{
  gst_pad_set_active (pad, FALSE);
  gst_element_remove_pad (element, pad);
}

static GstStructure *
make_stats (GstSendBuffer * self)
{
  GstSendBufferCounters counters;
  GstStructure *s;

  g_mutex_lock (&self->lock);
  counters.invalid = self->invalid;
  counters.renumbered = self->renumbered;
  counters.target_events = self->target_events;
  s = gst_send_buffer_stats_new (self->sb, &counters);
  g_mutex_unlock (&self->lock);
  return s;
}

static void
apply_config (GstSendBuffer * self)
{
  if (!self->sb)
    return;
  rtpcc_sendbuf_set_policy (self->sb, self->config.policy);
  rtpcc_sendbuf_set_budget (self->sb, self->config.budget);
  rtpcc_sendbuf_set_playout_delay (self->sb, self->config.playout_delay);
  rtpcc_sendbuf_set_drop_dependents (self->sb, self->config.drop_dependents);
  rtpcc_sendbuf_set_limits (self->sb, self->config.max_packets,
      self->config.max_bytes, self->config.max_frames);
}

static void
gst_send_buffer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSendBuffer *self = GST_SEND_BUFFER (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_POLICY:
      self->config.policy = g_value_get_enum (value);
      break;
    case PROP_BUDGET:
      self->config.budget = RTPCC_MSEC (g_value_get_uint (value));
      break;
    case PROP_PLAYOUT_DELAY:
      self->config.playout_delay = RTPCC_MSEC (g_value_get_uint (value));
      break;
    case PROP_MAX_PACKETS:
      self->config.max_packets = g_value_get_uint (value);
      break;
    case PROP_MAX_BYTES:
      self->config.max_bytes = g_value_get_uint64 (value);
      break;
    case PROP_MAX_FRAMES:
      self->config.max_frames = g_value_get_uint (value);
      break;
    case PROP_DROP_DEPENDENTS:
      self->config.drop_dependents = g_value_get_boolean (value);
      break;
    case PROP_BLOCK:
      self->block = g_value_get_boolean (value);
      break;
    case PROP_STATS_INTERVAL:
      self->stats_interval = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  apply_config (self);
  /* policy, rate or limits may have changed what is due or what fits */
  gst_rtpcc_timed_task_wake (&self->task);
  g_cond_broadcast (&self->room);
  g_mutex_unlock (&self->lock);
}

static void
gst_send_buffer_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstSendBuffer *self = GST_SEND_BUFFER (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, make_stats (self));
    return;
  }
  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_POLICY:
      g_value_set_enum (value, self->config.policy);
      break;
    case PROP_BUDGET:
      g_value_set_uint (value,
          (guint) (self->config.budget / RTPCC_NSEC_PER_MSEC));
      break;
    case PROP_PLAYOUT_DELAY:
      g_value_set_uint (value,
          (guint) (self->config.playout_delay / RTPCC_NSEC_PER_MSEC));
      break;
    case PROP_MAX_PACKETS:
      g_value_set_uint (value, self->config.max_packets);
      break;
    case PROP_MAX_BYTES:
      g_value_set_uint64 (value, self->config.max_bytes);
      break;
    case PROP_MAX_FRAMES:
      g_value_set_uint (value, self->config.max_frames);
      break;
    case PROP_DROP_DEPENDENTS:
      g_value_set_boolean (value, self->config.drop_dependents);
      break;
    case PROP_BLOCK:
      g_value_set_boolean (value, self->block);
      break;
    case PROP_STATS_INTERVAL:
      g_value_set_uint (value, self->stats_interval);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static GstStateChangeReturn
gst_send_buffer_change_state (GstElement * element, GstStateChange transition)
{
  GstSendBuffer *self = GST_SEND_BUFFER (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_mutex_lock (&self->lock);
    rtpcc_sendbuf_free (self->sb);
    self->sb = rtpcc_sendbuf_new (&self->config);
    rtpcc_sendbuf_set_free_func (self->sb, release_buffer);
    self->need_stream_start = self->need_caps = self->need_segment = TRUE;
    self->eos_pushed = FALSE;
    self->srcresult = GST_FLOW_OK;
    self->last_stats = RTPCC_TIME_NONE;
    g_mutex_unlock (&self->lock);
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    /* the task is stopped (pads deactivated): keep the stats, drop the
     * packets */
    g_mutex_lock (&self->lock);
    if (self->sb)
      rtpcc_sendbuf_flush (self->sb);
    g_mutex_unlock (&self->lock);
  }
  return ret;
}

static void
gst_send_buffer_finalize (GObject * object)
{
  GstSendBuffer *self = GST_SEND_BUFFER (object);

  rtpcc_sendbuf_free (self->sb);
  gst_rtpcc_timed_task_clear (&self->task);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->room);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_send_buffer_class_init (GstSendBufferClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_send_buffer_debug, "sendbuffer", 0,
      "Sending buffer policies");

  gobject_class->finalize = gst_send_buffer_finalize;
  gobject_class->set_property = gst_send_buffer_set_property;
  gobject_class->get_property = gst_send_buffer_get_property;

  /**
   * GstSendBuffer:policy:
   *
   * What to send next and what to drop; see #GstSendBufferPolicy.
   * ring-sfdps2 (default) kept the most audio on time in the SFDPS
   * reproduction of docs/sendbuffer.md. Can be changed in any state; the
   * new policy applies from the next packet.
   */
  g_object_class_install_property (gobject_class, PROP_POLICY,
      g_param_spec_enum ("policy", "Policy", "Send and drop policy",
          GST_TYPE_SEND_BUFFER_POLICY, DEFAULT_POLICY, flags));

  /**
   * GstSendBuffer:budget:
   *
   * End-to-end delay budget from capture to arrival at the receiver, in
   * milliseconds (0 to 10000): γ in UltraGrid's deadline rule, the expiry
   * in SFDPS. A frame has expired when capture + budget < now + RTT/2.
   * The receiver's playout deadline should use the same value. Can be
   * changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_BUDGET,
      g_param_spec_uint ("budget", "Budget",
          "Delay budget from capture to arrival at the receiver (ms)",
          0, 10000, DEFAULT_BUDGET, flags));

  /**
   * GstSendBuffer:playout-delay:
   *
   * The receiver's playout buffering in milliseconds (0 to 10000; t_pbuf
   * in UltraGrid's deadline rule), which the deadline policy subtracts
   * from the budget. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_PLAYOUT_DELAY,
      g_param_spec_uint ("playout-delay", "Playout delay",
          "Receiver playout delay the deadline policy allows for (ms)",
          0, 10000, DEFAULT_PLAYOUT_DELAY, flags));

  /**
   * GstSendBuffer:max-packets:
   *
   * Queue limit in packets; 0 (default) = none. When exceeded, fifo,
   * sfdps and deadline drop the arriving frame, the ring policies the
   * oldest frame of the lowest priority (or block, see
   * #GstSendBuffer:block). Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_PACKETS,
      g_param_spec_uint ("max-packets", "Max packets",
          "Queue limit in packets (0 = none)", 0, G_MAXUINT,
          DEFAULT_MAX_PACKETS, flags));

  /**
   * GstSendBuffer:max-bytes:
   *
   * Queue limit in bytes; 0 = none. Default 2 MB. Can be changed in any
   * state.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_BYTES,
      g_param_spec_uint64 ("max-bytes", "Max bytes",
          "Queue limit in bytes (0 = none)", 0, G_MAXUINT64,
          DEFAULT_MAX_BYTES, flags));

  /**
   * GstSendBuffer:max-frames:
   *
   * Queue limit in frames (UltraGrid's hard frame cap); 0 (default) =
   * none. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_FRAMES,
      g_param_spec_uint ("max-frames", "Max frames",
          "Queue limit in frames (0 = none)", 0, G_MAXUINT,
          DEFAULT_MAX_FRAMES, flags));

  /**
   * GstSendBuffer:drop-dependents:
   *
   * After dropping a reference frame, drop the same SSRC's later delta
   * frames until its next keyframe: they could not be decoded. Frame types
   * come from the payload for H264 and VP8, else from the DELTA_UNIT and
   * DROPPABLE buffer flags. Can be changed in any state; frames already
   * held for a keyframe stay held until they show one.
   */
  g_object_class_install_property (gobject_class, PROP_DROP_DEPENDENTS,
      g_param_spec_boolean ("drop-dependents", "Drop dependents",
          "Drop delta frames that depend on a dropped reference frame",
          DEFAULT_DROP_DEPENDENTS, flags));

  /**
   * GstSendBuffer:block:
   *
   * When the queue is at a limit, block upstream until there is room
   * instead of dropping (fifo, deadline, sfdps1, sfdps2; the ring policies
   * always apply their overflow rule). Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_BLOCK,
      g_param_spec_boolean ("block", "Block",
          "Block upstream when full instead of dropping (not the ring "
          "policies)", DEFAULT_BLOCK, flags));

  /**
   * GstSendBuffer:stats-interval:
   *
   * Post the #GstSendBuffer:stats structure as an element message on the
   * bus at most this often, in milliseconds, while packets flow; 0 = never.
   * Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint ("stats-interval", "Stats interval",
          "Interval between stats element messages (ms), 0 = none", 0,
          G_MAXUINT, DEFAULT_STATS_INTERVAL, flags));

  /**
   * GstSendBuffer:stats:
   *
   * An "application/x-sendbuffer-stats" structure: queued-packets/-bytes/
   * -frames, enqueued-packets, sent-packets/-bytes/-frames,
   * dropped-packets/-bytes/-frames, dropped-REASON for each reason
   * (expired, late, overflow, frame, dependent, flush), per priority P seen
   * sent-priority-P and dropped-priority-P, invalid-packets,
   * renumbered-packets, target-events (counts); age-mean-priority-P and
   * age-max-priority-P (guint64 ns from capture to send) and rtt (guint64
   * ns), as GstClockTime values; drain-rate (guint64 bit/s) as learned
   * from rtpccsink; max-frame-bytes (gint64, UltraGrid's Eq. 6.3, -1 while
   * the drain rate is unknown).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Queue statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_template, GST_TYPE_SEND_BUFFER_PAD);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "RTP sending buffer",
      "Filter/Network/RTP",
      "A priority queue in front of a congestion-controlled RTP sender that "
      "drops expired or overflowing frames whole", "gst-rtpcc developers");

  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_send_buffer_request_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_send_buffer_release_pad);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_send_buffer_change_state);

  gst_type_mark_as_plugin_api (GST_TYPE_SEND_BUFFER_POLICY, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SEND_BUFFER_PAD, 0);
}

static void
gst_send_buffer_init (GstSendBuffer * self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->room);
  rtpcc_sendbuf_config_init (&self->config);
  self->config.policy = (RtpccSendbufPolicy) DEFAULT_POLICY;
  self->config.budget = RTPCC_MSEC (DEFAULT_BUDGET);
  self->config.playout_delay = RTPCC_MSEC (DEFAULT_PLAYOUT_DELAY);
  self->config.max_packets = DEFAULT_MAX_PACKETS;
  self->config.max_bytes = DEFAULT_MAX_BYTES;
  self->config.max_frames = DEFAULT_MAX_FRAMES;
  self->config.drop_dependents = DEFAULT_DROP_DEPENDENTS;
  self->block = DEFAULT_BLOCK;
  self->stats_interval = DEFAULT_STATS_INTERVAL;
  self->last_stats = RTPCC_TIME_NONE;
  self->srcresult = GST_FLOW_OK;

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_send_buffer_src_event));
  gst_pad_set_activatemode_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_send_buffer_src_activate_mode));
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
  /* without a clock (a harness without one) time on the system clock */
  gst_rtpcc_timed_task_init (&self->task, GST_ELEMENT (self), self->srcpad,
      &self->lock, TRUE);
}

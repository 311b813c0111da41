/* The sender-side property group of rtpccsink and rtpccbwe
 * (gstrtpccsenderprops.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccsenderprops.h"
#include "gstrtpccstringprop.h"

#define DEFAULT_MIN_BITRATE 150000
#define DEFAULT_MAX_BITRATE 5000000
#define DEFAULT_START_BITRATE 300000
#define DEFAULT_ENCODER_CONTROL GST_RTPCC_ENCODER_CONTROL_AUTO
#define DEFAULT_PACING TRUE

void
gst_rtpcc_sender_props_init (GstRtpccSenderProps * p,
    const gchar * default_controller, guint default_max_pacing_delay_ms,
    gint default_encoder_buffer_ms)
{
  p->default_controller = default_controller;
  p->controller = g_strdup (default_controller);
  p->controller_params = NULL;
  p->min_bitrate = DEFAULT_MIN_BITRATE;
  p->max_bitrate = DEFAULT_MAX_BITRATE;
  p->start_bitrate = DEFAULT_START_BITRATE;
  p->encoder_control = DEFAULT_ENCODER_CONTROL;
  p->pacing = DEFAULT_PACING;
  p->max_pacing_delay_ms = default_max_pacing_delay_ms;
  p->encoder_buffer_ms = default_encoder_buffer_ms;
}

void
gst_rtpcc_sender_props_clear (GstRtpccSenderProps * p)
{
  g_clear_pointer (&p->controller, g_free);
  g_clear_pointer (&p->controller_params, g_free);
}

void
gst_rtpcc_sender_props_install (GObjectClass * klass, guint first_prop_id,
    const gchar * default_controller, guint default_max_pacing_delay_ms,
    gint default_encoder_buffer_ms)
{
  /* the sender is made on NULL→READY: settings apply from the next one,
   * so they are not flagged mutable in READY */
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  gchar **names = rtpcc_controller_list ();
  gchar *controllers = g_strjoinv (", ", names);
  gchar *blurb;

  g_strfreev (names);
  /**
   * controller:
   *
   * Congestion controller by registry name: "tfrc" (RFC 5348), "ccid2"
   * (RFC 4341's window as a rate), "gcc" (delay-based, draft-ietf-rmcat-gcc),
   * "nada" (RFC 8698), "fbra" (FEC-based rate adaptation), "rr" (RTCP
   * receiver-report baseline), "rrtcc" (2013 RTCWEB loss-based rate under
   * the receiver's REMB: pair with rtpccsrc remb=true), "fixed"
   * (start-bitrate, no adaptation), and
   * any registered with rtpcc_controller_register(). The blurb lists those
   * registered when the plugin loaded. An unknown name fails the NULL→READY
   * change with an error that lists the known ones. Behind rtpccbwe every
   * controller is fed the per-packet reports of the session's
   * transport-wide CC feedback; those that want receiver reports (rr,
   * rrtcc, and the RR-based parts of others) get none, as the session
   * consumes them.
   */
  blurb = g_strdup_printf ("Congestion controller, one of: %s", controllers);
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_CONTROLLER,
      g_param_spec_string ("controller", "Controller", blurb,
          default_controller, G_PARAM_READWRITE | G_PARAM_STATIC_NAME |
          G_PARAM_STATIC_NICK));
  g_free (blurb);
  g_free (controllers);
  /**
   * controller-params:
   *
   * Tuning parameters of the controller, "key=value" pairs separated by
   * ';' or ',' (e.g. "estimator=kalman" for gcc, "catch-up=1;logwin=250"
   * for nada; each controller's keys are listed in docs/transport.md).
   * Applied in order when the element starts, right after the controller
   * is made; a key the controller does not know, or a bad value, fails that
   * state change with an error naming it. NULL (default): the controller's
   * defaults.
   */
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_CONTROLLER_PARAMS,
      g_param_spec_string ("controller-params", "Controller parameters",
          "Controller tuning, \"key=value;key=value\" (applied at start)",
          NULL, rw));
  /**
   * min-bitrate:
   *
   * Lowest target in bit/s.
   */
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_MIN_BITRATE,
      g_param_spec_uint ("min-bitrate", "Minimum bitrate",
          "Lowest target bitrate (bit/s)", 1000, G_MAXINT, DEFAULT_MIN_BITRATE,
          rw));
  /**
   * max-bitrate:
   *
   * Highest target in bit/s.
   */
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_MAX_BITRATE,
      g_param_spec_uint ("max-bitrate", "Maximum bitrate",
          "Highest target bitrate (bit/s)", 1000, G_MAXINT,
          DEFAULT_MAX_BITRATE, rw));
  /**
   * start-bitrate:
   *
   * Initial target in bit/s (0 = the controller's own start).
   */
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_START_BITRATE,
      g_param_spec_uint ("start-bitrate", "Start bitrate",
          "Initial target bitrate (bit/s, 0 = controller default)", 0,
          G_MAXINT, DEFAULT_START_BITRATE, rw));
  /**
   * encoder-control:
   *
   * "auto": find the encoders upstream (x264enc, vp8enc, openh264enc,
   * opusenc, …, through payloaders, queues, funnels, ghost pads and
   * webrtcbin's own elements) and set their bitrate properties in their
   * own units on each target change (with hysteresis, never forcing a
   * keyframe): one encoder gets the target; with several, audio keeps its
   * configured rate (at most half the target) and the video encoders share
   * the rest. What they produce is measured and the value they are given
   * corrected when they overshoot (stats encoder-produced,
   * encoder-correction). "none": only publish (bus message, upstream
   * rtpcc-target event, target-bitrate).
   */
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_ENCODER_CONTROL,
      g_param_spec_enum ("encoder-control", "Encoder control",
          "Apply the target to the upstream encoder",
          gst_rtpcc_encoder_control_get_type (), DEFAULT_ENCODER_CONTROL,
          rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * pacing:
   *
   * Spread packets at the controller's pacing rate (bounded by
   * max-pacing-delay) rather than sending each frame as a burst.
   */
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_PACING,
      g_param_spec_boolean ("pacing", "Pacing", "Pace packets", DEFAULT_PACING,
          rw));
  /**
   * max-pacing-delay:
   *
   * No packet waits longer than this in the pacer (ms): the pacing rate
   * rises to make it. rtpccsink: 100 ms. rtpccbwe: 1 s, so that a
   * keyframe a receiver's PLI asked for is spread at the pacing rate
   * rather than pushed into a slow bottleneck's queue in 100 ms, where
   * most of it would be dropped and asked for again (libwebrtc's pacer
   * allows 2 s).
   */
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_MAX_PACING_DELAY,
      g_param_spec_uint ("max-pacing-delay", "Max pacing delay",
          "Bound on pacer queueing (ms)", 0, 10000,
          default_max_pacing_delay_ms, rw));
  /**
   * encoder-buffer:
   *
   * With encoder-control=auto, the size (ms) of the rate-control buffer
   * (VBV) set on an encoder that has one (x264enc's vbv-buf-capacity),
   * when the element starts: how far the encoder may run ahead of its
   * bitrate with a key frame, or in the lag after a rate cut, before its
   * output slows down. What it runs ahead must go through the pacer
   * within max-pacing-delay, so -1 takes that value; 0 leaves the
   * encoder's own (x264enc: 600 ms). rtpccsink: -1. rtpccbwe: 0 (it
   * spreads key frames over up to a second). Behind a sendbuffer with a
   * delay budget, the buffer is at most the time a frame may wait in that
   * queue (its rtpcc-frame-room; UltraGrid's Eq. 6.3). The value applied
   * is encoder-buffer in stats.
   */
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_ENCODER_BUFFER,
      g_param_spec_int ("encoder-buffer", "Encoder buffer",
          "Rate-control buffer set on the encoder (ms; -1 = "
          "max-pacing-delay, 0 = leave the encoder's)", -1, 10000,
          default_encoder_buffer_ms, rw));
  /**
   * target-bitrate:
   *
   * The current target in bit/s (notify::target-bitrate on change).
   */
  g_object_class_install_property (klass,
      first_prop_id + GST_RTPCC_SENDER_PROP_TARGET_BITRATE,
      g_param_spec_uint ("target-bitrate", "Target bitrate",
          "Current target bitrate (bit/s)", 0, G_MAXUINT, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static gboolean
set_locked (GstRtpccSenderProps * p, guint id, const GValue * value)
{
  switch (id) {
    case GST_RTPCC_SENDER_PROP_CONTROLLER:
      gst_rtpcc_set_string_prop (&p->controller, value, p->default_controller);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_CONTROLLER_PARAMS:
      g_free (p->controller_params);
      p->controller_params = g_value_dup_string (value);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_MIN_BITRATE:
      p->min_bitrate = g_value_get_uint (value);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_MAX_BITRATE:
      p->max_bitrate = g_value_get_uint (value);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_START_BITRATE:
      p->start_bitrate = g_value_get_uint (value);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_ENCODER_CONTROL:
      p->encoder_control = g_value_get_enum (value);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_PACING:
      p->pacing = g_value_get_boolean (value);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_MAX_PACING_DELAY:
      p->max_pacing_delay_ms = g_value_get_uint (value);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_ENCODER_BUFFER:
      p->encoder_buffer_ms = g_value_get_int (value);
      return TRUE;
    default:
      return FALSE;
  }
}

gboolean
gst_rtpcc_sender_props_set_property (GstRtpccSenderProps * p,
    GstObject * obj, guint first_prop_id, guint prop_id, const GValue * value)
{
  gboolean handled;

  if (prop_id < first_prop_id)
    return FALSE;
  GST_OBJECT_LOCK (obj);
  handled = set_locked (p, prop_id - first_prop_id, value);
  GST_OBJECT_UNLOCK (obj);
  return handled;
}

static gboolean
get_locked (const GstRtpccSenderProps * p, guint id, GValue * value)
{
  switch (id) {
    case GST_RTPCC_SENDER_PROP_CONTROLLER:
      g_value_set_string (value, p->controller);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_CONTROLLER_PARAMS:
      g_value_set_string (value, p->controller_params);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_MIN_BITRATE:
      g_value_set_uint (value, p->min_bitrate);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_MAX_BITRATE:
      g_value_set_uint (value, p->max_bitrate);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_START_BITRATE:
      g_value_set_uint (value, p->start_bitrate);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_ENCODER_CONTROL:
      g_value_set_enum (value, p->encoder_control);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_PACING:
      g_value_set_boolean (value, p->pacing);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_MAX_PACING_DELAY:
      g_value_set_uint (value, p->max_pacing_delay_ms);
      return TRUE;
    case GST_RTPCC_SENDER_PROP_ENCODER_BUFFER:
      g_value_set_int (value, p->encoder_buffer_ms);
      return TRUE;
    default:
      return FALSE;
  }
}

gboolean
gst_rtpcc_sender_props_get_property (const GstRtpccSenderProps * p,
    GstObject * obj, guint first_prop_id, guint prop_id, GValue * value,
    GMutex * sender_lock, RtpccSender * const *sender)
{
  gboolean handled;

  if (prop_id < first_prop_id)
    return FALSE;
  if (prop_id - first_prop_id == GST_RTPCC_SENDER_PROP_TARGET_BITRATE) {
    guint64 t = 0;

    g_mutex_lock (sender_lock);
    if (*sender)
      t = rtpcc_sender_get_target (*sender)->target_bitrate;
    g_mutex_unlock (sender_lock);
    g_value_set_uint (value, (guint) MIN (t, G_MAXUINT));
    return TRUE;
  }
  GST_OBJECT_LOCK (obj);
  handled = get_locked (p, prop_id - first_prop_id, value);
  GST_OBJECT_UNLOCK (obj);
  return handled;
}

void
gst_rtpcc_sender_props_to_config (const GstRtpccSenderProps * p,
    RtpccSenderConfig * cfg)
{
  cfg->controller = p->controller;
  cfg->cc.min_bitrate = p->min_bitrate;
  cfg->cc.max_bitrate = p->max_bitrate;
  cfg->cc.start_bitrate = p->start_bitrate;
  cfg->pacing = p->pacing;
  cfg->pacer.max_delay = RTPCC_MSEC (p->max_pacing_delay_ms);
}

guint
gst_rtpcc_sender_props_encoder_buffer_ms (const GstRtpccSenderProps * p)
{
  return p->encoder_buffer_ms < 0 ? p->max_pacing_delay_ms :
      (guint) p->encoder_buffer_ms;
}

gboolean
gst_rtpcc_sender_props_apply_params (const GstRtpccSenderProps * p,
    RtpccSender * sender, GError ** error)
{
  return rtpcc_controller_set_params (rtpcc_sender_get_controller (sender),
      p->controller_params, error);
}

gboolean
gst_rtpcc_sender_push_target (GstPad * sinkpad, GstStructure * s)
{
  gboolean was_flushing = GST_PAD_IS_FLUSHING (sinkpad);

  /* the task may start before the pad is active, and a flushing pad drops
   * the event */
  return !gst_pad_push_event (sinkpad,
      gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s))
      && (was_flushing || GST_PAD_IS_FLUSHING (sinkpad));
}

gboolean
gst_rtpcc_sender_publish_target (GstElement * element, GstPad * sinkpad,
    GstStructure * s)
{
  gboolean pending;

  pending = gst_rtpcc_sender_push_target (sinkpad, gst_structure_copy (s));
  gst_element_post_message (element,
      gst_message_new_element (GST_OBJECT (element), s));
  g_object_notify (G_OBJECT (element), "target-bitrate");
  return pending;
}

void
gst_rtpcc_sender_props_add_stats (GstStructure * s, RtpccSender * sender,
    RtpccTime now, const GstRtpccEncoderSetter * encoder)
{
  const RtpccSenderStats *st = rtpcc_sender_get_stats (sender, now);
  const RtpccTarget *t = rtpcc_sender_get_target (sender);

  gst_structure_set (s,
      "controller", G_TYPE_STRING, rtpcc_sender_get_controller_name (sender),
      "state", G_TYPE_STRING, t->state ? t->state : "",
      "target-bitrate", G_TYPE_UINT64, t->target_bitrate,
      "pacing-rate", G_TYPE_UINT64, t->pacing_rate,
      "packets-enqueued", G_TYPE_UINT64, st->packets_enqueued,
      "packets-sent", G_TYPE_UINT64, st->packets_sent,
      "bytes-sent", G_TYPE_UINT64, st->bytes_sent,
      "send-rate", G_TYPE_UINT64, st->send_rate,
      "pacer-drops", G_TYPE_UINT64, st->pacer_drops,
      "breaker-drops", G_TYPE_UINT64, st->breaker_drops,
      "twcc-stamp-errors", G_TYPE_UINT64, st->twcc_stamp_errors,
      "reported-received", G_TYPE_UINT64, st->reported_received,
      "reported-lost", G_TYPE_UINT64, st->reported_lost,
      "rtt", G_TYPE_UINT64, (guint64) (st->srtt == RTPCC_TIME_NONE ? 0 :
          st->srtt),
      "loss", G_TYPE_DOUBLE, st->loss,
      "loss-burst", G_TYPE_DOUBLE, st->loss_burst,
      "loss-window", G_TYPE_DOUBLE, st->loss_window,
      "fec-reserved", G_TYPE_UINT64, st->fec_reserved,
      "fec-nack-chances", G_TYPE_UINT, st->fec_nack_chances,
      "receive-rate", G_TYPE_UINT64, st->receive_rate,
      "queue-delay", G_TYPE_UINT64, (guint64) MAX (st->queue_delay, 0),
      "breaker-tripped", G_TYPE_BOOLEAN, st->breaker_tripped,
      "probe-packets", G_TYPE_UINT64, st->probe_packets,
      "probe-reported-received", G_TYPE_UINT64, st->probe_reported_received,
      "encoder-updates", G_TYPE_UINT64, encoder->updates,
      "encoder-refused", G_TYPE_UINT64, encoder->refused,
      "encoder-buffer-refused", G_TYPE_UINT64, encoder->buffer_refused,
      "encoder", G_TYPE_STRING, encoder->encoder_name, NULL);
  gst_rtpcc_encoder_setter_add_stats (encoder, s);
}

/* mprtpsched's properties and stats (gstmprtpschedpriv.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmprtpschedpriv.h"

#include <string.h>

void
gst_mprtp_sched_install_properties (GObjectClass * gobject_class)
{
  /* read when the stream starts (the first buffer) */
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

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
   * GstMprtpSched:encoder-buffer:
   *
   * With encoder-control=auto, the size (ms) of the rate-control buffer
   * (VBV) set on an encoder that has one (x264enc's vbv-buf-capacity) when
   * the element starts: how far the encoder may run ahead of the aggregate
   * with a key frame, or in the lag after the aggregate drops because a
   * path failed, which the surviving paths must carry at once. The
   * default is rtpccsink's max-pacing-delay; 0 leaves the encoder's own
   * (x264enc: 600 ms).
   */
  g_object_class_install_property (gobject_class, PROP_ENCODER_BUFFER,
      g_param_spec_uint ("encoder-buffer", "Encoder buffer",
          "Rate-control buffer set on the encoder (ms, 0 = leave the "
          "encoder's)", 0, 10000, DEFAULT_ENCODER_BUFFER, rw));
  /**
   * GstMprtpSched:max-bitrate:
   *
   * The media's requirement in bit/s (0: as much as the paths give). Below
   * what the paths allow, the paths with the best latency are used and the
   * rest kept passive (probed only); the aggregate never exceeds it.
   * Changeable while playing (from the next packet on), like
   * latency-bound and probe-interval.
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
   * aggregate-updates, superseded-targets (aggregates a newer one
   * overtook before they were published: not published),
   * other-ssrc-packets (packets of an RTP stream other than the first:
   * one warning, see the element's description), key-unit-requests
   * (force-key-unit events sent
   * upstream after a path failed or collapsed), ext-failures (packets
   * sent without the element: no room, or not RTP), released-drops
   * (packets picked for a path whose pad was released while streaming),
   * malformed-targets (rtpcc-target events from a path without the
   * bitrates, dropped), rtx-moved (repairs a path's rtpccsink asked for
   * that went out on another path, the one with the clearly lower RTT),
   * rtx-unknown (repair requests for a media seq not sent lately on the
   * asking path, refused), rtx-malformed (repair requests without a seq
   * or size, refused), and path-stats, a list of
   * "application/x-mprtp-path" (subflow ID, packets and bytes sent,
   * duplicates, key-frame packets, rtx-in / rtx-out (repairs it carried
   * for other paths' losses / of its losses carried by another), state, class, controller rate, allowed
   * rate, failures, collapses, parks; intervals-non-congested,
   * intervals-lossy, intervals-mildly-congested and intervals-congested,
   * the path's reporting intervals so far by class; srtt and feedback-interval, the
   * path's smoothed RTT and interval between its feedback reports, and
   * failed-at, the running time of its last failure, all in ns,
   * GST_CLOCK_TIME_NONE while unknown).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Scheduler statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static guint64
clock_time_or_none (RtpccTime t)
{
  return t == RTPCC_TIME_NONE || t < 0 ? GST_CLOCK_TIME_NONE : (guint64) t;
}

static GstStructure *
make_stats (GstMprtpSched * self)
{
  GstStructure *s;
  GValue list = G_VALUE_INIT;
  guint64 enc_updates, enc_buffer_refused;
  gchar *enc_name;

  g_mutex_lock (&self->encoder_lock);
  enc_updates = self->encoder.updates;
  enc_buffer_refused = self->encoder.buffer_refused;
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
        "rtx-in", G_TYPE_UINT64, pi.rtx_in,
        "rtx-out", G_TYPE_UINT64, pi.rtx_out,
        "state", G_TYPE_STRING, rtpcc_mprtp_path_state_name (pi.state),
        "class", G_TYPE_STRING, rtpcc_mprtp_path_class_name (pi.klass),
        "rate", G_TYPE_UINT64, pi.rate,
        "allowed", G_TYPE_UINT64, pi.allowed,
        "failures", G_TYPE_UINT, pi.failures,
        "collapses", G_TYPE_UINT, pi.collapses,
        "parks", G_TYPE_UINT, pi.parks,
        "intervals-non-congested", G_TYPE_UINT64,
        pi.intervals[RTPCC_MPRTP_CLASS_NON_CONGESTED],
        "intervals-lossy", G_TYPE_UINT64,
        pi.intervals[RTPCC_MPRTP_CLASS_LOSSY],
        "intervals-mildly-congested", G_TYPE_UINT64,
        pi.intervals[RTPCC_MPRTP_CLASS_MILDLY_CONGESTED],
        "intervals-congested", G_TYPE_UINT64,
        pi.intervals[RTPCC_MPRTP_CLASS_CONGESTED],
        "srtt", G_TYPE_UINT64, clock_time_or_none (pi.srtt),
        "feedback-interval", G_TYPE_UINT64,
        clock_time_or_none (pi.feedback_gap),
        "failed-at", G_TYPE_UINT64, clock_time_or_none (pi.failed_at), NULL);
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, ps);
    gst_value_list_append_and_take_value (&list, &v);
  }
  s = gst_structure_new ("application/x-mprtp-sched-stats",
      "paths", G_TYPE_UINT, self->paths->len,
      "encoder-rate", G_TYPE_UINT64, self->sched ?
      rtpcc_mprtp_sched_get_encoder_rate (self->sched) : 0,
      "aggregate-updates", G_TYPE_UINT64, self->aggregate_updates,
      "superseded-targets", G_TYPE_UINT64, self->superseded_targets,
      "other-ssrc-packets", G_TYPE_UINT64, self->other_ssrc_packets,
      "key-unit-requests", G_TYPE_UINT64, self->key_unit_requests,
      "ext-failures", G_TYPE_UINT64, self->ext_failures,
      "released-drops", G_TYPE_UINT64, self->released_drops,
      "malformed-targets", G_TYPE_UINT64, self->malformed_targets,
      "rtx-moved", G_TYPE_UINT64, self->rtx_moved,
      "rtx-unknown", G_TYPE_UINT64, self->rtx_unknown,
      "rtx-malformed", G_TYPE_UINT64, self->rtx_malformed,
      "encoder-updates", G_TYPE_UINT64, enc_updates,
      "encoder-buffer-refused", G_TYPE_UINT64, enc_buffer_refused,
      "encoder", G_TYPE_STRING, enc_name, NULL);
  g_mutex_unlock (&self->lock);
  g_free (enc_name);
  gst_structure_take_value (s, "path-stats", &list);
  gst_rtpcc_encoder_setter_add_stats (&self->encoder, s);
  return s;
}

void
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
    case PROP_ENCODER_BUFFER:
      self->encoder_buffer_ms = g_value_get_uint (value);
      break;
    case PROP_MAX_BITRATE:
      self->max_bitrate = g_value_get_uint64 (value);
      self->limits_changed = TRUE;
      break;
    case PROP_LATENCY_BOUND:
      self->latency_bound_ms = g_value_get_uint (value);
      self->limits_changed = TRUE;
      break;
    case PROP_PROBE_INTERVAL:
      self->probe_interval_ms = g_value_get_uint (value);
      self->limits_changed = TRUE;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

void
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
    case PROP_ENCODER_BUFFER:
      g_value_set_uint (value, self->encoder_buffer_ms);
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

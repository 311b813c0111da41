/* fecenc: forwards RTP media unchanged and adds FEC packets on their own
 * SSRC, payload type and sequence space.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-fecenc
 * @title: fecenc
 *
 * Protects an RTP stream with XOR parity (one packet per #GstFecEnc:n),
 * Reed-Solomon (#GstFecEnc:m parity packets per #GstFecEnc:k, any m losses
 * recoverable) or 2-D XOR (rows and interleaved columns, for bursts). FEC
 * packets use their own SSRC (#GstFecEnc:ssrc), payload type
 * (#GstFecEnc:pt) and sequence numbers, so a lost FEC packet never shows
 * as a gap in the media sequence (unlike rtpulpfecenc).
 *
 * With #GstFecEnc:follow-target, the "rtpcc-target" upstream event from
 * rtpccsink sets N = clamp (round (media-bitrate / fec-bitrate), 2, 14) and
 * disables FEC while fec-bitrate is 0 (an optional "fec-interval" field
 * gives N directly): the FEC rate of FBRA (Nagy, Singh, Ott, Eggert,
 * "Congestion control using FEC for conversational multimedia
 * communication", ACM MMSys 2014).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! x264enc tune=zerolatency ! \
 *     rtph264pay ! fecenc n=5 follow-target=false ! linkemu loss=0.05 ! \
 *     fecdec ! rtph264depay ! avdec_h264 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfec.h"
#include "gstrtpccevent.h"
#include "gstrtpccmap.h"
#include "gstrtpccnow.h"
#include "gstrtpcctimedtask.h"

#include <rtpcc/ratewindow.h>
#include <rtpcc/fec/strength.h>

GST_DEBUG_CATEGORY_STATIC (gst_fec_enc_debug);
#define GST_CAT_DEFAULT gst_fec_enc_debug

#define DEFAULT_SCHEME GST_FEC_ENC_SCHEME_XOR
#define DEFAULT_N 5
#define DEFAULT_K 10
#define DEFAULT_M 2
#define DEFAULT_DEPTH 4
#define DEFAULT_MAX_BLOCK_TIME 100     /* ms */
#define DEFAULT_ENABLED TRUE
#define DEFAULT_PT RTPCC_FEC_DEFAULT_PT
#define DEFAULT_SSRC 0
#define DEFAULT_FOLLOW_TARGET TRUE
#define RATE_WINDOW GST_SECOND

enum
{
  PROP_0,
  PROP_SCHEME,
  PROP_N,
  PROP_K,
  PROP_M,
  PROP_DEPTH,
  PROP_MAX_BLOCK_TIME,
  PROP_ENABLED,
  PROP_PT,
  PROP_SSRC,
  PROP_FOLLOW_TARGET,
  PROP_STATS,
};

struct _GstFecEnc
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* protects everything below (properties and the encoder) */
  GMutex lock;
  RtpccFecEncoderConfig cfg;
  /* the max-block-time property: a controller's own interval (FBRA) sets
   * blocks by count alone (cfg.max_block_time 0) while it is in force */
  RtpccTime max_block_time;
  gboolean announce;            /* max_block_time not yet told downstream */
  gboolean enabled;
  gboolean follow_target;
  gboolean auto_scheme;         /* scheme=auto: cfg holds its last choice */
  gdouble predicted_residual;   /* auto: the choice's MDS bound, else -1 */
  guint ssrc_prop;              /* 0: a random one, chosen on start */
  RtpccFecEncoder *enc;
  GstSegment segment;
  RtpccTime last_now;
  GstRtpccClockCache clock_cache;       /* object lock */
  RtpccRateWindow fec_window, media_window;     /* the last RATE_WINDOW */
  RtpccRateWindow packet_window;        /* media packets, one "byte" each */
  RtpccFecSizes media_sizes;    /* what a parity packet costs in bytes */
  guint64 target_events;

  /* closes a block at its time bound when no packet comes */
  GstRtpccTimedTask task;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_fec_enc_parent_class parent_class
G_DEFINE_TYPE (GstFecEnc, gst_fec_enc, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (fecenc, "fecenc", GST_RANK_NONE,
    GST_TYPE_FEC_ENC);

GType
gst_fec_enc_scheme_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_FEC_ENC_SCHEME_XOR, "XOR parity, one per n packets", "xor"},
    {GST_FEC_ENC_SCHEME_RS, "Reed-Solomon, m parity per k packets", "rs"},
    {GST_FEC_ENC_SCHEME_XOR_2D, "2-D XOR: rows of n, columns over depth rows",
        "xor-2d"},
    {GST_FEC_ENC_SCHEME_AUTO, "XOR or Reed-Solomon and their strength from "
          "the channel (rtpcc-target's loss, loss-burst and FEC rate)",
        "auto"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstFecEncScheme", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

static RtpccTime
get_now (GstFecEnc * self, GstBuffer * buf)
{
  return gst_rtpcc_now (GST_ELEMENT (self), &self->clock_cache,
      &self->segment, buf, &self->last_now);
}

/* Queued FEC packets as buffers (lock held). */
static void
collect (GstFecEnc * self, GstFecOut * out, GstBuffer * ref,
    RtpccTime now)
{
  GBytes *b;

  while ((b = rtpcc_fec_encoder_pop (self->enc)) != NULL) {
    GstBuffer *buf = gst_buffer_new_wrapped_bytes (b);

    rtpcc_rate_window_push (&self->fec_window, now, g_bytes_get_size (b));
    g_bytes_unref (b);
    if (ref) {
      GST_BUFFER_PTS (buf) = GST_BUFFER_PTS (ref);
      GST_BUFFER_DTS (buf) = GST_BUFFER_DTS (ref);
    }
    gst_fec_out_add (out, buf);
  }
}

static GstFlowReturn
gst_fec_enc_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstFecEnc *self = GST_FEC_ENC (parent);
  GstFecOut out = GST_FEC_OUT_INIT;
  GstMapInfo map;
  RtpccTime now;
  GstClockTime block_time;
  gboolean announce;

  if (!gst_rtpcc_buffer_map_read (buf, &map)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  g_mutex_lock (&self->lock);
  now = get_now (self, buf);
  /* an expired block's parity goes before the new packet */
  rtpcc_fec_encoder_poll (self->enc, now);
  collect (self, &out, buf, now);
  rtpcc_fec_encoder_push (self->enc, map.data, map.size, now);
  /* the next packet expected after the bound: close the block now rather
   * than leave it to the timer */
  rtpcc_fec_encoder_close_early (self->enc, now);
  rtpcc_rate_window_push (&self->media_window, now, map.size);
  rtpcc_rate_window_push (&self->packet_window, now, 1);
  rtpcc_fec_sizes_add (&self->media_sizes, now, map.size);
  gst_buffer_unmap (buf, &map);
  gst_fec_out_add (&out, buf);
  collect (self, &out, buf, now);
  /* a new block may need the timer earlier */
  gst_rtpcc_timed_task_kick (&self->task,
      rtpcc_fec_encoder_next_deadline (self->enc));
  announce = self->announce;
  self->announce = FALSE;
  block_time = (GstClockTime) self->max_block_time;
  g_mutex_unlock (&self->lock);

  /* rtpccsink reserves FEC (max-fec-share) for codes that fill a block
   * within our bound */
  if (announce)
    gst_pad_push_event (self->srcpad,
        gst_rtpcc_fec_encoder_event_new (block_time));
  return gst_fec_out_push (self->srcpad, &out);
}

static RtpccTime
enc_next_time (gpointer data)
{
  GstFecEnc *self = data;

  return rtpcc_fec_encoder_next_deadline (self->enc);
}

static GstFlowReturn
enc_release (gpointer data)
{
  GstFecEnc *self = data;
  GstFecOut out = GST_FEC_OUT_INIT;

  g_mutex_lock (&self->lock);
  if (!self->task.flushing) {
    RtpccTime now = get_now (self, NULL);

    rtpcc_fec_encoder_poll (self->enc, now);
    collect (self, &out, NULL, now);
  }
  g_mutex_unlock (&self->lock);
  return gst_fec_out_push (self->srcpad, &out);
}

/* Sleeps until the open block's time bound, then closes it: the block
 * ends in time when no packet comes. */
static void
gst_fec_enc_loop (gpointer data)
{
  GstFecEnc *self = data;

  gst_rtpcc_timed_task_release_due (&self->task, self->sinkpad,
      enc_next_time, enc_release, self);
}

static gboolean
gst_fec_enc_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstFecEnc *self = GST_FEC_ENC (parent);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  return gst_rtpcc_timed_task_activate (&self->task, active,
      gst_fec_enc_loop, self);
}

static gboolean
gst_fec_enc_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFecEnc *self = GST_FEC_ENC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEGMENT:
      g_mutex_lock (&self->lock);
      gst_event_copy_segment (event, &self->segment);
      g_mutex_unlock (&self->lock);
      break;
    case GST_EVENT_FLUSH_START:
      gst_rtpcc_timed_task_flush_start (&self->task);
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_rtpcc_timed_task_flush_stop (&self->task, gst_fec_enc_loop, self);
      break;
    case GST_EVENT_EOS:{
      GstFecOut out = GST_FEC_OUT_INIT;

      g_mutex_lock (&self->lock);
      rtpcc_fec_encoder_flush (self->enc);
      collect (self, &out, NULL, self->last_now);
      g_mutex_unlock (&self->lock);
      gst_fec_out_push (self->srcpad, &out);
      break;
    }
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* scheme=auto: the code the sink reserved the rate for, if it names one,
 * else the code with the least residual loss on the channel the target
 * reports, within the FEC share of the rate and blocks that fill within
 * max-block-time at the media packet rate of the last second
 * (rtpcc_fec_choose_named, fec/strength.h). FALSE when no code fits. */
static gboolean
choose_code (GstFecEnc * self, const GstRtpccTargetInfo * t,
    RtpccFecEncoderConfig * cfg)
{
  RtpccFecChannel ch = { 0 };
  RtpccFecChoice c;
  gdouble ratios[RTPCC_FEC_MAX_SPAN + 1];

  /* the loss over the same packets as the bursts: steadier than the
   * controller's recent loss */
  ch.loss = t->loss_window;
  ch.burst = t->loss_burst;     /* 0 before any loss: taken as independent */
  ch.packet_rate = (gdouble) rtpcc_rate_window_bytes (&self->packet_window,
      self->last_now) / RTPCC_TIME_AS_SEC (RATE_WINDOW);
  ch.budget = cfg->max_block_time > 0 ? cfg->max_block_time : RTPCC_TIME_NONE;
  /* the FEC rate is bytes, and a parity packet is as long as the longest
   * it protects: fewer parity than media packets per byte (fec.h) */
  ch.max_overhead = (gdouble) t->fec_bitrate / t->media_bitrate;
  rtpcc_fec_sizes_ratios (&self->media_sizes, ratios);
  ch.parity_ratios = ratios;
  if (!rtpcc_fec_choose_named (&ch, t->fec_scheme, t->fec_k, t->fec_m, &c))
    return FALSE;
  cfg->scheme = c.scheme;
  if (c.scheme == RTPCC_FEC_SCHEME_XOR)
    cfg->n = c.k;
  else {
    cfg->k = c.k;
    cfg->m = c.m;
  }
  self->predicted_residual = c.residual;
  GST_DEBUG_OBJECT (self, "channel: loss %.4f, burst %.2f, %.0f packets/s, "
      "parity share %.3f -> %s k %u m %u, residual %.5f", ch.loss, ch.burst,
      ch.packet_rate, ch.max_overhead, rtpcc_fec_scheme_name (c.scheme), c.k,
      c.m, c.residual);
  return TRUE;
}

/* N from the controller's media / FEC rate split; with scheme=auto the
 * code from the channel. */
static void
apply_target (GstFecEnc * self, const GstRtpccTargetInfo * t)
{
  RtpccFecEncoderConfig cfg = self->cfg;

  if (!self->follow_target)
    return;
  self->target_events++;
  cfg.max_block_time = self->max_block_time;
  if (t->fec_interval > 0) {
    /* a controller's own interval (FBRA): XOR at it, by count */
    cfg.scheme = self->auto_scheme ? RTPCC_FEC_SCHEME_XOR : cfg.scheme;
    self->enabled = rtpcc_fec_config_follow (&cfg, t->media_bitrate,
        t->fec_bitrate, t->fec_interval, self->max_block_time, NULL);
    self->predicted_residual = -1;
  } else if (self->auto_scheme) {
    self->predicted_residual = -1;
    self->enabled = t->media_bitrate > 0 && t->fec_bitrate > 0
        && choose_code (self, t, &cfg);
  } else {
    self->enabled = rtpcc_fec_config_follow (&cfg, t->media_bitrate,
        t->fec_bitrate, 0, self->max_block_time, &self->media_sizes);
  }
  GST_DEBUG_OBJECT (self, "target: media %" G_GUINT64_FORMAT " fec %"
      G_GUINT64_FORMAT " -> %s, n %u", t->media_bitrate, t->fec_bitrate,
      self->enabled ? "on" : "off", cfg.n);
  rtpcc_fec_encoder_set_enabled (self->enc, self->enabled);
  if (rtpcc_fec_encoder_set_config (self->enc, &cfg, NULL))
    self->cfg = cfg;
}

static gboolean
gst_fec_enc_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFecEnc *self = GST_FEC_ENC (parent);
  GstRtpccTargetInfo t;

  if (gst_rtpcc_target_event_parse (event, &t)) {
    g_mutex_lock (&self->lock);
    apply_target (self, &t);
    g_mutex_unlock (&self->lock);
  }
  /* the encoder upstream wants the same event */
  return gst_pad_event_default (pad, parent, event);
}

static GstStructure *
make_stats (GstFecEnc * self)
{
  RtpccFecEncoderStats st;

  rtpcc_fec_encoder_get_stats (self->enc, &st);
  return gst_structure_new ("application/x-fecenc-stats",
      "media-packets", G_TYPE_UINT64, st.media_packets,
      "media-bytes", G_TYPE_UINT64, st.media_bytes,
      "fec-packets", G_TYPE_UINT64, st.fec_packets,
      "fec-bytes", G_TYPE_UINT64, st.fec_bytes,
      "blocks", G_TYPE_UINT64, st.blocks,
      "blocks-closed-by-time", G_TYPE_UINT64, st.blocks_closed_by_time,
      "skipped", G_TYPE_UINT64, st.skipped,
      /* bytes of the last second (RATE_WINDOW) */
      "fec-bitrate", G_TYPE_UINT64,
      rtpcc_rate_window_bytes (&self->fec_window, self->last_now) * 8,
      "media-bitrate", G_TYPE_UINT64,
      rtpcc_rate_window_bytes (&self->media_window, self->last_now) * 8,
      "n", G_TYPE_UINT, self->cfg.n,
      "k", G_TYPE_UINT, self->cfg.k,
      "m", G_TYPE_UINT, self->cfg.m,
      "scheme", G_TYPE_STRING, rtpcc_fec_scheme_name (self->cfg.scheme),
      "predicted-residual", G_TYPE_DOUBLE, self->predicted_residual,
      "parity-ratio", G_TYPE_DOUBLE, rtpcc_fec_sizes_ratio (&self->media_sizes,
          CLAMP (self->cfg.scheme == RTPCC_FEC_SCHEME_RS ? self->cfg.k :
              self->cfg.n, 1, RTPCC_FEC_MAX_SPAN)),
      "ssrc", G_TYPE_UINT, self->cfg.ssrc,
      "enabled", G_TYPE_BOOLEAN, self->enabled,
      "target-events", G_TYPE_UINT64, self->target_events, NULL);
}

static void
apply_cfg (GstFecEnc * self, RtpccFecEncoderConfig * cfg)
{
  GError *err = NULL;

  if (rtpcc_fec_encoder_set_config (self->enc, cfg, &err)) {
    self->cfg = *cfg;
  } else {
    GST_WARNING_OBJECT (self, "rejected: %s", err->message);
    g_error_free (err);
  }
}

static void
gst_fec_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFecEnc *self = GST_FEC_ENC (object);
  RtpccFecEncoderConfig cfg;

  g_mutex_lock (&self->lock);
  cfg = self->cfg;
  switch (prop_id) {
    case PROP_SCHEME:
      /* auto keeps the code in use until the next target event */
      self->auto_scheme = g_value_get_enum (value) == GST_FEC_ENC_SCHEME_AUTO;
      if (!self->auto_scheme) {
        cfg.scheme = (RtpccFecScheme) g_value_get_enum (value);
        self->predicted_residual = -1;
        apply_cfg (self, &cfg);
      }
      break;
    case PROP_N:
      cfg.n = g_value_get_uint (value);
      apply_cfg (self, &cfg);
      break;
    case PROP_K:
      cfg.k = g_value_get_uint (value);
      apply_cfg (self, &cfg);
      break;
    case PROP_M:
      cfg.m = g_value_get_uint (value);
      apply_cfg (self, &cfg);
      break;
    case PROP_DEPTH:
      cfg.depth = g_value_get_uint (value);
      apply_cfg (self, &cfg);
      break;
    case PROP_MAX_BLOCK_TIME:
      cfg.max_block_time = RTPCC_MSEC (g_value_get_uint (value));
      self->max_block_time = cfg.max_block_time;
      self->announce = TRUE;
      apply_cfg (self, &cfg);
      break;
    case PROP_PT:
      cfg.pt = (guint8) g_value_get_uint (value);
      apply_cfg (self, &cfg);
      break;
    case PROP_SSRC:
      self->ssrc_prop = g_value_get_uint (value);
      if (self->ssrc_prop != 0) {
        cfg.ssrc = self->ssrc_prop;
        apply_cfg (self, &cfg);
      }
      break;
    case PROP_ENABLED:
      self->enabled = g_value_get_boolean (value);
      rtpcc_fec_encoder_set_enabled (self->enc, self->enabled);
      break;
    case PROP_FOLLOW_TARGET:
      self->follow_target = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_fec_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFecEnc *self = GST_FEC_ENC (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_SCHEME:
      g_value_set_enum (value, self->auto_scheme ? GST_FEC_ENC_SCHEME_AUTO :
          (gint) self->cfg.scheme);
      break;
    case PROP_N:
      g_value_set_uint (value, self->cfg.n);
      break;
    case PROP_K:
      g_value_set_uint (value, self->cfg.k);
      break;
    case PROP_M:
      g_value_set_uint (value, self->cfg.m);
      break;
    case PROP_DEPTH:
      g_value_set_uint (value, self->cfg.depth);
      break;
    case PROP_MAX_BLOCK_TIME:
      g_value_set_uint (value,
          (guint) (self->max_block_time / RTPCC_NSEC_PER_MSEC));
      break;
    case PROP_PT:
      g_value_set_uint (value, self->cfg.pt);
      break;
    case PROP_SSRC:
      g_value_set_uint (value, self->ssrc_prop);
      break;
    case PROP_ENABLED:
      g_value_set_boolean (value, self->enabled);
      break;
    case PROP_FOLLOW_TARGET:
      g_value_set_boolean (value, self->follow_target);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, make_stats (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

/* A random SSRC, never 0 (0 means "pick one"). */
static guint32
random_ssrc (void)
{
  guint32 r;

  do
    r = g_random_int ();
  while (r == 0);
  return r;
}

static GstStateChangeReturn
gst_fec_enc_change_state (GstElement * element, GstStateChange transition)
{
  GstFecEnc *self = GST_FEC_ENC (element);

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_mutex_lock (&self->lock);
    self->announce = TRUE;
    if (self->ssrc_prop == 0) {
      RtpccFecEncoderConfig cfg = self->cfg;

      cfg.ssrc = random_ssrc ();
      apply_cfg (self, &cfg);
    }
    g_mutex_unlock (&self->lock);
  }
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static void
gst_fec_enc_finalize (GObject * object)
{
  GstFecEnc *self = GST_FEC_ENC (object);

  rtpcc_fec_encoder_free (self->enc);
  rtpcc_rate_window_clear (&self->fec_window);
  rtpcc_rate_window_clear (&self->media_window);
  rtpcc_rate_window_clear (&self->packet_window);
  gst_rtpcc_timed_task_clear (&self->task);
  gst_rtpcc_clock_cache_clear (&self->clock_cache);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_fec_enc_class_init (GstFecEncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_fec_enc_debug, "fecenc", 0,
      "FEC encoder (own SSRC / sequence space)");

  gobject_class->set_property = gst_fec_enc_set_property;
  gobject_class->get_property = gst_fec_enc_get_property;
  gobject_class->finalize = gst_fec_enc_finalize;
  element_class->change_state = GST_DEBUG_FUNCPTR (gst_fec_enc_change_state);

  /**
   * GstFecEnc:scheme:
   *
   * The code: xor (one parity packet per #GstFecEnc:n media packets), rs
   * (#GstFecEnc:m Reed-Solomon parity packets per #GstFecEnc:k), xor-2d
   * (rows of #GstFecEnc:n and interleaved columns over #GstFecEnc:depth
   * rows), or auto: with #GstFecEnc:follow-target, each rtpcc-target
   * event chooses xor or rs and sets n or k and m, for the least residual
   * loss on the channel it reports (loss, loss-burst) with no more parity
   * than its fec-bitrate allows and blocks that fill within
   * #GstFecEnc:max-block-time (see the stats' scheme, k, m and
   * predicted-residual); until the first event the code set before is
   * kept. Can be changed in any state; a change closes the open block.
   */
  g_object_class_install_property (gobject_class, PROP_SCHEME,
      g_param_spec_enum ("scheme", "Scheme", "FEC code",
          GST_TYPE_FEC_ENC_SCHEME, DEFAULT_SCHEME, flags));
  /**
   * GstFecEnc:n:
   *
   * XOR parity interval: one parity packet per n media packets (1/n packet
   * overhead), 2 to 14 as FBRA's FEC interval; also the row length of
   * xor-2d. Can be changed in any state; with #GstFecEnc:follow-target the
   * controller sets it.
   */
  g_object_class_install_property (gobject_class, PROP_N,
      g_param_spec_uint ("n", "N", "Media packets per XOR parity packet",
          RTPCC_FEC_MIN_N, RTPCC_FEC_MAX_N, DEFAULT_N, flags));
  /**
   * GstFecEnc:k:
   *
   * Reed-Solomon block length in media packets, 1 to 48. Can be changed in
   * any state.
   */
  g_object_class_install_property (gobject_class, PROP_K,
      g_param_spec_uint ("k", "K", "Media packets per Reed-Solomon block",
          1, RTPCC_FEC_MAX_SPAN, DEFAULT_K, flags));
  /**
   * GstFecEnc:m:
   *
   * Reed-Solomon parity packets per block, 1 to 16: any m losses among the
   * k + m packets are recoverable. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_M,
      g_param_spec_uint ("m", "M", "Reed-Solomon parity packets per block",
          1, RTPCC_FEC_MAX_PARITY, DEFAULT_M, flags));
  /**
   * GstFecEnc:depth:
   *
   * xor-2d: rows per matrix, 2 to 8, with n * depth at most 48 (a larger
   * product is refused with a warning). A burst of up to n consecutive
   * losses is repaired by the column parities. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_DEPTH,
      g_param_spec_uint ("depth", "Depth", "Rows of the 2-D XOR matrix",
          2, 8, DEFAULT_DEPTH, flags));
  /**
   * GstFecEnc:max-block-time:
   *
   * A block closes (its parity is sent) at the latest this many
   * milliseconds after its first packet; 0 closes blocks by packet count
   * only. A timer task on the element clock enforces it when no packet
   * arrives, and a block is also closed early when the next packet is
   * expected (mean spacing) after the bound. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_BLOCK_TIME,
      g_param_spec_uint ("max-block-time", "Max block time",
          "Longest time from a block's first packet to its parity (ms), "
          "0 = by packet count only", 0, 10000, DEFAULT_MAX_BLOCK_TIME,
          flags));
  /**
   * GstFecEnc:enabled:
   *
   * When FALSE no parity is produced (the open block is dropped) and media
   * passes unchanged. Can be changed in any state; with
   * #GstFecEnc:follow-target the controller sets it.
   */
  g_object_class_install_property (gobject_class, PROP_ENABLED,
      g_param_spec_boolean ("enabled", "Enabled", "Produce FEC packets",
          DEFAULT_ENABLED, flags));
  /**
   * GstFecEnc:pt:
   *
   * Payload type of the FEC packets, 0 to 127; rtpccsink's fec-pt and
   * fecdec's pt must match. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_PT,
      g_param_spec_uint ("pt", "Payload type", "FEC payload type",
          0, 127, DEFAULT_PT, flags));
  /**
   * GstFecEnc:ssrc:
   *
   * SSRC of the FEC stream. 0 (default): a random one, chosen each time the
   * element starts (READY to PAUSED); the SSRC in use is the "ssrc" field
   * of #GstFecEnc:stats. A non-zero value applies at once, in any state.
   */
  g_object_class_install_property (gobject_class, PROP_SSRC,
      g_param_spec_uint ("ssrc", "SSRC",
          "FEC stream SSRC (0 = random, chosen on start)",
          0, G_MAXUINT32, DEFAULT_SSRC, flags));
  /**
   * GstFecEnc:follow-target:
   *
   * Follow the "rtpcc-target" upstream event: n = clamp (round
   * (media-bitrate / fec-bitrate), 2, 14) (with #GstFecEnc:scheme auto,
   * the code from the channel), FEC off while fec-bitrate is 0. A
   * controller that sets its own interval (FBRA's fec-interval) gets XOR
   * at that interval with blocks closed by count alone: its FEC is its
   * probe, and #GstFecEnc:max-block-time would raise its rate above the
   * one it asked for at low packet rates.
   * Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_FOLLOW_TARGET,
      g_param_spec_boolean ("follow-target", "Follow target",
          "Set n and enabled from rtpcc-target upstream events",
          DEFAULT_FOLLOW_TARGET, flags));
  /**
   * GstFecEnc:stats:
   *
   * An "application/x-fecenc-stats" structure: media-packets, media-bytes,
   * fec-packets, fec-bytes, blocks, blocks-closed-by-time, skipped,
   * target-events (guint64 counts); fec-bitrate and media-bitrate (guint64,
   * bit/s actually sent over the last second); n, k, m and ssrc (guint, in
   * use); scheme (string: xor, rs or xor-2d, in use); predicted-residual
   * (gdouble: with scheme auto, the media loss the chosen code leaves on
   * the reported channel if decoded in time, its MDS bound; -1 otherwise);
   * parity-ratio (gdouble: a parity packet's bytes over a media packet's
   * in blocks of the code in use, from the last media packets: what turns
   * the FEC bit rate into parity packets); enabled (gboolean).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Encoder statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "RTP FEC Encoder",
      "Codec/Payloader/Network/RTP",
      "Adds XOR, Reed-Solomon or 2-D XOR FEC packets on their own SSRC and "
      "sequence space", "gst-rtpcc developers");
  gst_type_mark_as_plugin_api (GST_TYPE_FEC_ENC_SCHEME, 0);
}

static void
gst_fec_enc_init (GstFecEnc * self)
{
  g_mutex_init (&self->lock);
  rtpcc_fec_encoder_config_init (&self->cfg);
  self->cfg.scheme = (RtpccFecScheme) DEFAULT_SCHEME;
  self->cfg.n = DEFAULT_N;
  self->cfg.k = DEFAULT_K;
  self->cfg.m = DEFAULT_M;
  self->cfg.depth = DEFAULT_DEPTH;
  self->cfg.max_block_time = RTPCC_MSEC (DEFAULT_MAX_BLOCK_TIME);
  self->max_block_time = self->cfg.max_block_time;
  self->cfg.pt = DEFAULT_PT;
  /* replaced on start unless the ssrc property is set */
  self->cfg.ssrc = random_ssrc ();
  self->enabled = DEFAULT_ENABLED;
  self->follow_target = DEFAULT_FOLLOW_TARGET;
  self->predicted_residual = -1;
  self->enc = rtpcc_fec_encoder_new (&self->cfg, NULL);
  gst_segment_init (&self->segment, GST_FORMAT_UNDEFINED);
  rtpcc_rate_window_init (&self->fec_window, RATE_WINDOW);
  rtpcc_rate_window_init (&self->media_window, RATE_WINDOW);
  rtpcc_rate_window_init (&self->packet_window, RATE_WINDOW);
  rtpcc_fec_sizes_init (&self->media_sizes, RATE_WINDOW);

  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_fec_enc_chain);
  gst_pad_set_event_function (self->sinkpad, gst_fec_enc_sink_event);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad, gst_fec_enc_src_event);
  gst_pad_set_activatemode_function (self->srcpad,
      gst_fec_enc_src_activate_mode);
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
  /* without a clock "now" is the buffers' running time: nothing to time */
  gst_rtpcc_timed_task_init (&self->task, GST_ELEMENT (self), self->srcpad,
      &self->lock, FALSE);
}

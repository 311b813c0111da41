/* playoutbuffer: adaptive playout delay, reorder buffer and multipath merge.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-playoutbuffer
 * @title: playoutbuffer
 *
 * An RTP playout (jitter) buffer whose delay adapts to the measured delay
 * distribution instead of a fixed latency. Every request pad `sink_%u` is one
 * subflow (path) of the same RTP stream; with one pad it is a plain jitter
 * buffer. Packets leave the src pad in sequence order at their playout time,
 * which is also their PTS (running time): media time + the playout offset in
 * force, see gst/rtpcc/playout.h. In the default adaptive mode the offset
 * covers each subflow's delay floor plus a margin steered towards
 * #GstPlayoutBuffer:late-target late packets (the slowest subflow sets the
 * pace), plus the FEC repair window, bounded by
 * #GstPlayoutBuffer:min-delay and #GstPlayoutBuffer:max-delay; clock drift
 * between the sender's RTP clock and ours is estimated and removed, so the
 * delay never creeps upwards. The stream's first frame is never discarded
 * as late while nothing after it has left: a key frame's packets spread by
 * the sender's pacer raise the delay instead.
 *
 * A packet that arrives after its playout time (or after a later packet has
 * left) is discarded, counted, and reported upstream through the sink pad it
 * came on as a custom upstream event "rtpcc-discard" with fields "ssrc",
 * "seqnum" and "count" (G_TYPE_UINT), which rtpccsrc turns into discard
 * feedback (RFC 7097).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 rtpccsrc port=5000 \
 *     caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264" ! \
 *     playoutbuffer max-delay=400 ! rtph264depay ! avdec_h264 ! \
 *     videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gstplayoutbuffer.h"
#include "gstrtpccevent.h"
#include "gstrtpcctimedtask.h"

GST_DEBUG_CATEGORY_STATIC (gst_playout_buffer_debug);
#define GST_CAT_DEFAULT gst_playout_buffer_debug

#define DEFAULT_PERCENTILE 99.9
/* times in ms */
#define DEFAULT_MIN_DELAY 0
#define DEFAULT_MAX_DELAY 400
#define DEFAULT_FEC_WINDOW (-1)
#define DEFAULT_MODE GST_PLAYOUT_BUFFER_MODE_ADAPTIVE
#define DEFAULT_WINDOW 2000
#define DEFAULT_DOWN_RATE 0.5
#define DEFAULT_LATE_BUMP TRUE
#define DEFAULT_LATE_TARGET 0.5
#define DEFAULT_RETURN_TIME 100
#define DEFAULT_LEVEL_WINDOW 2000
#define DEFAULT_CLOCK_RATE 90000

enum
{
  PROP_0,
  PROP_PERCENTILE,
  PROP_MIN_DELAY,
  PROP_MAX_DELAY,
  PROP_FEC_WINDOW,
  PROP_MODE,
  PROP_WINDOW,
  PROP_DOWN_RATE,
  PROP_LATE_BUMP,
  PROP_LATE_TARGET,
  PROP_RETURN_TIME,
  PROP_LEVEL_WINDOW,
  PROP_CLOCK_RATE,
  PROP_TARGET_DELAY,
  PROP_STATS,
};

typedef struct
{
  guint subflow;
  gboolean eos;
  guint clock_rate;             /* from caps, 0 = unknown */
} SinkPadData;

struct _GstPlayoutBuffer
{
  GstElement parent;

  GstPad *srcpad;

  GMutex lock;
  /* the src pad's task: sleeps until the head packet is due */
  GstRtpccTimedTask task;

  /* properties */
  RtpccPlayoutConfig config;
  gint fec_window_prop;         /* ms, -1 = auto */
  guint clock_rate_prop;

  RtpccPlayout *playout;
  guint clock_rate;             /* from the caps, 0 = none */
  guint clock_rate_start;       /* clock-rate as the playout started */

  /* fecdec's deadline from its rtpcc-fec-window event; NONE: none came */
  GstClockTime fec_deadline;

  gboolean playing;
  RtpccTime last_now;
  gboolean eos;
  GstFlowReturn srcresult;
  gboolean sent_stream_start, sent_caps, sent_segment;

  guint64 invalid, ssrc_changes, discard_events, pushed;
  guint64 fillers_other_ssrc;   /* padding-only, not of the current SSRC */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink_%u",
    GST_PAD_SINK,
    GST_PAD_REQUEST,
    GST_STATIC_CAPS ("application/x-rtp"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("application/x-rtp"));

#define gst_playout_buffer_parent_class parent_class
G_DEFINE_TYPE (GstPlayoutBuffer, gst_playout_buffer, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (playoutbuffer, "playoutbuffer",
    GST_RANK_NONE, GST_TYPE_PLAYOUT_BUFFER,
    GST_DEBUG_CATEGORY_INIT (gst_playout_buffer_debug, "playoutbuffer", 0,
        "adaptive RTP playout buffer"));

static void gst_playout_buffer_finalize (GObject * object);
static void gst_playout_buffer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_playout_buffer_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstStateChangeReturn gst_playout_buffer_change_state (GstElement *
    element, GstStateChange transition);
static GstPad *gst_playout_buffer_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps);
static void gst_playout_buffer_release_pad (GstElement * element,
    GstPad * pad);
static GstFlowReturn gst_playout_buffer_chain (GstPad * pad,
    GstObject * parent, GstBuffer * buffer);
static gboolean gst_playout_buffer_sink_event (GstPad * pad,
    GstObject * parent, GstEvent * event);
static gboolean gst_playout_buffer_src_activate_mode (GstPad * pad,
    GstObject * parent, GstPadMode mode, gboolean active);
static gboolean gst_playout_buffer_src_query (GstPad * pad,
    GstObject * parent, GstQuery * query);
static void gst_playout_buffer_loop (gpointer user_data);

GType
gst_playout_buffer_mode_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_PLAYOUT_BUFFER_MODE_ADAPTIVE,
          "Delay floor plus a margin steered to late-target (or a "
          "percentile); the slowest subflow sets the pace", "adaptive"},
    {GST_PLAYOUT_BUFFER_MODE_SINGH,
          "MPRTP skew-compensating playout of Singh's doctoral thesis "
          "\"Protocols and Algorithms for Adaptive Multimedia Systems\"",
        "singh"},
    {GST_PLAYOUT_BUFFER_MODE_FIXED, "Constant delay of min-delay", "fixed"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstPlayoutBufferMode", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

static void
gst_playout_buffer_class_init (GstPlayoutBufferClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->finalize = gst_playout_buffer_finalize;
  gobject_class->set_property = gst_playout_buffer_set_property;
  gobject_class->get_property = gst_playout_buffer_get_property;

  /**
   * GstPlayoutBuffer:percentile:
   *
   * Percentile (0.1 to 100) of the measured delay distribution over
   * #GstPlayoutBuffer:window that the playout delay covers; its complement
   * is roughly the late-loss fraction traded for delay. With
   * #GstPlayoutBuffer:late-target > 0 it only sets the margin for the first
   * 100 packets of a path. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_PERCENTILE,
      g_param_spec_double ("percentile", "Percentile",
          "Percentile of the delay distribution to cover (adaptive mode; "
          "with late-target > 0 only the start value)",
          0.1, 100.0, DEFAULT_PERCENTILE, flags));

  /**
   * GstPlayoutBuffer:min-delay:
   *
   * Lower bound of the buffering delay over the fastest transit, in
   * milliseconds (0 to 10000); in fixed mode the constant delay. Can be
   * changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_MIN_DELAY,
      g_param_spec_uint ("min-delay", "Minimum delay",
          "Lower bound of the buffering delay (ms); fixed mode: the delay",
          0, 10000, DEFAULT_MIN_DELAY, flags));

  /**
   * GstPlayoutBuffer:max-delay:
   *
   * Upper bound of the buffering delay over the fastest transit, FEC window
   * included, in milliseconds (0 to 10000): packets later than this are
   * discarded (FBRA's delay_max). Below #GstPlayoutBuffer:min-delay,
   * min-delay wins. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_DELAY,
      g_param_spec_uint ("max-delay", "Maximum delay",
          "Upper bound of the buffering delay (ms)",
          0, 10000, DEFAULT_MAX_DELAY, flags));

  /**
   * GstPlayoutBuffer:fec-window:
   *
   * Extra delay for FEC repair, in milliseconds (0 to 10000). -1 =
   * automatic: when fecdec is upstream (it announces its deadline in a
   * sticky "rtpcc-fec-window" event), 14 mean packet intervals, at most
   * that deadline; else 0. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_FEC_WINDOW,
      g_param_spec_int ("fec-window", "FEC window",
          "Extra delay for FEC repair (ms), -1 = automatic when fecdec is "
          "upstream", -1, 10000, DEFAULT_FEC_WINDOW, flags));

  /**
   * GstPlayoutBuffer:mode:
   *
   * How the playout delay is computed; see #GstPlayoutBufferMode. Can be
   * changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "How the playout delay is computed",
          GST_TYPE_PLAYOUT_BUFFER_MODE, DEFAULT_MODE, flags));

  /**
   * GstPlayoutBuffer:window:
   *
   * Span of the delay history the percentile is taken over, in
   * milliseconds (100 to 120000; at most 500 packets per subflow). Shorter
   * adapts faster, longer is steadier. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_uint ("window", "Window",
          "Span of the delay history (ms)", 100, 120000, DEFAULT_WINDOW,
          flags));

  /**
   * GstPlayoutBuffer:down-rate:
   *
   * How fast the delay falls at least when it is above what is needed, in
   * seconds per second (0 to 1; 0.5: 500 ms per second);
   * #GstPlayoutBuffer:return-time may make it faster. Rises are immediate.
   * Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_DOWN_RATE,
      g_param_spec_double ("down-rate", "Down rate",
          "Decrease of the delay when above the need (s per s)", 0.0, 1.0,
          DEFAULT_DOWN_RATE, flags));

  /**
   * GstPlayoutBuffer:return-time:
   *
   * Time constant of the return after a delay spike, in milliseconds (0 to
   * 10000): the delay above the need falls exponentially with it when that
   * is faster than #GstPlayoutBuffer:down-rate, never faster than real time
   * (the output pauses, it never goes backwards). 0 = down-rate only. Can
   * be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_RETURN_TIME,
      g_param_spec_uint ("return-time", "Return time",
          "Time constant of the fall back after a spike (ms), 0 = off",
          0, 10000, DEFAULT_RETURN_TIME, flags));

  /**
   * GstPlayoutBuffer:late-bump:
   *
   * React to late packets at once: with #GstPlayoutBuffer:late-target > 0
   * a late packet far out, or a second one within 500 ms, jumps the floor to
   * its delay (a delay episode, held until the delay comes back down);
   * otherwise the delay is raised to cover it. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_LATE_BUMP,
      g_param_spec_boolean ("late-bump", "Late bump",
          "Raise the delay to cover a late packet", DEFAULT_LATE_BUMP, flags));

  /**
   * GstPlayoutBuffer:late-target:
   *
   * Late-loss rate to aim at, in percent (0 to 20; adaptive mode). > 0:
   * the margin over the path's delay floor is steered online so that this
   * fraction of packets is late (each late packet raises it, each packet
   * on time lowers it by the matching share). 0: the margin is the
   * #GstPlayoutBuffer:percentile of the recent jitter instead. Can be
   * changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_LATE_TARGET,
      g_param_spec_double ("late-target", "Late target",
          "Late-loss rate to aim at (%), 0 = use the percentile", 0.0, 20.0,
          DEFAULT_LATE_TARGET, flags));

  /**
   * GstPlayoutBuffer:level-window:
   *
   * Span over which a path's delay floor is the lowest delay seen, in
   * milliseconds (10 to 60000): the floor follows a fall at once and a rise
   * after this long (unless late packets jump it up first). Can be changed
   * in any state.
   */
  g_object_class_install_property (gobject_class, PROP_LEVEL_WINDOW,
      g_param_spec_uint ("level-window", "Level window",
          "Span of the delay floor (ms)", 10, 60000, DEFAULT_LEVEL_WINDOW,
          flags));

  /**
   * GstPlayoutBuffer:clock-rate:
   *
   * RTP clock rate in Hz used when the caps carry none. Read when the
   * stream starts, so it can only be changed in NULL or READY.
   */
  g_object_class_install_property (gobject_class, PROP_CLOCK_RATE,
      g_param_spec_uint ("clock-rate", "Clock rate",
          "RTP clock rate when the caps have none (Hz)", 1, G_MAXINT32,
          DEFAULT_CLOCK_RATE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstPlayoutBuffer:target-delay:
   *
   * The buffering delay over the fastest transit currently in force, in
   * milliseconds (rounded; the "target-delay" field of
   * #GstPlayoutBuffer:stats has it in ns).
   */
  g_object_class_install_property (gobject_class, PROP_TARGET_DELAY,
      g_param_spec_uint ("target-delay", "Target delay",
          "Buffering delay currently in force (ms)", 0, G_MAXUINT, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstPlayoutBuffer:stats:
   *
   * An "application/x-playoutbuffer-stats" structure: received, released,
   * late (discarded late), duplicates, overflows, reordered, skipped (gaps
   * played over), fillers (padding-only packets: kept in sequence, not
   * timed), fillers-late (dropped past their slot, not reported),
   * fillers-other-ssrc (padding-only packets not of the current SSRC:
   * dropped, they never switch streams), invalid, ssrc-changes,
   * discard-events, refused (sequence jumps nothing confirmed: dropped),
   * restarts (sequence jumps confirmed: the stream started over) (guint64
   * counts); target-delay, jitter-percentile,
   * fec-window (guint64 nanoseconds, as GstClockTime); drift-ppm (gdouble);
   * queued, subflows (guint).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Playout statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  gst_element_class_set_static_metadata (element_class,
      "RTP adaptive playout buffer", "Filter/Network/RTP",
      "A jitter buffer whose delay adapts to the measured delay, that reports "
      "late packets upstream and merges the subflows of a multipath stream",
      "gst-rtpcc developers");

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_playout_buffer_change_state);
  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_playout_buffer_request_new_pad);
  element_class->release_pad =
      GST_DEBUG_FUNCPTR (gst_playout_buffer_release_pad);

  gst_type_mark_as_plugin_api (GST_TYPE_PLAYOUT_BUFFER_MODE, 0);
}

static void
gst_playout_buffer_init (GstPlayoutBuffer * self)
{
  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_activatemode_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_playout_buffer_src_activate_mode));
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_playout_buffer_src_query));
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT_CAST (self), self->srcpad);

  g_mutex_init (&self->lock);
  /* without a clock the system clock times the playout (as "now" does) */
  gst_rtpcc_timed_task_init (&self->task, GST_ELEMENT_CAST (self),
      self->srcpad, &self->lock, TRUE);

  rtpcc_playout_config_init (&self->config);
  self->config.percentile = DEFAULT_PERCENTILE;
  self->config.min_delay = RTPCC_MSEC (DEFAULT_MIN_DELAY);
  self->config.max_delay = RTPCC_MSEC (DEFAULT_MAX_DELAY);
  self->config.mode = (RtpccPlayoutMode) DEFAULT_MODE;
  self->config.window = RTPCC_MSEC (DEFAULT_WINDOW);
  self->config.down_rate = DEFAULT_DOWN_RATE;
  self->config.late_bump = DEFAULT_LATE_BUMP;
  self->config.late_target = DEFAULT_LATE_TARGET;
  self->config.return_time = RTPCC_MSEC (DEFAULT_RETURN_TIME);
  self->config.level_window = RTPCC_MSEC (DEFAULT_LEVEL_WINDOW);
  self->fec_window_prop = DEFAULT_FEC_WINDOW;
  self->clock_rate_prop = self->clock_rate_start = DEFAULT_CLOCK_RATE;
  self->srcresult = GST_FLOW_FLUSHING;
  self->fec_deadline = GST_CLOCK_TIME_NONE;
}

static void
gst_playout_buffer_finalize (GObject * object)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (object);

  rtpcc_playout_free (self->playout, (GDestroyNotify) gst_buffer_unref);
  gst_rtpcc_timed_task_clear (&self->task);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* The FEC window in force: the property, or the automatic one. */
static RtpccTime
gst_playout_buffer_fec_window_locked (GstPlayoutBuffer * self)
{
  if (self->fec_window_prop >= 0)
    return RTPCC_MSEC (self->fec_window_prop);
  /* the library measures the packet rate and sizes the window from it */
  return GST_CLOCK_TIME_IS_VALID (self->fec_deadline) ?
      RTPCC_PLAYOUT_FEC_AUTO : 0;
}

/* The configuration in force: the properties, the caps' clock rate and
 * what fecdec announced. */
static RtpccPlayoutConfig
gst_playout_buffer_config_locked (GstPlayoutBuffer * self)
{
  RtpccPlayoutConfig c = self->config;

  c.clock_rate = self->clock_rate ? self->clock_rate : self->clock_rate_start;
  c.fec_window = gst_playout_buffer_fec_window_locked (self);
  /* fecdec holds a packet at most its deadline: repair never takes longer */
  if (GST_CLOCK_TIME_IS_VALID (self->fec_deadline))
    c.fec_window_max = (RtpccTime) MIN (self->fec_deadline,
        (GstClockTime) G_MAXINT64);
  if (c.max_delay < c.min_delay)
    c.max_delay = c.min_delay;
  return c;
}

static void
gst_playout_buffer_apply_config_locked (GstPlayoutBuffer * self)
{
  RtpccPlayoutConfig c = gst_playout_buffer_config_locked (self);

  if (self->playout)
    rtpcc_playout_set_config (self->playout, &c);
}

/* A library time as a property value in ms, rounded. */
static guint
ms_of (RtpccTime t)
{
  return (guint) MIN ((MAX (t, 0) + RTPCC_NSEC_PER_MSEC / 2) /
      RTPCC_NSEC_PER_MSEC, (RtpccTime) G_MAXUINT);
}

static void
gst_playout_buffer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_PERCENTILE:
      self->config.percentile = g_value_get_double (value);
      break;
    case PROP_MIN_DELAY:
      self->config.min_delay = RTPCC_MSEC (g_value_get_uint (value));
      break;
    case PROP_MAX_DELAY:
      self->config.max_delay = RTPCC_MSEC (g_value_get_uint (value));
      break;
    case PROP_FEC_WINDOW:
      self->fec_window_prop = g_value_get_int (value);
      break;
    case PROP_MODE:
      self->config.mode = (RtpccPlayoutMode) g_value_get_enum (value);
      break;
    case PROP_WINDOW:
      self->config.window = RTPCC_MSEC (g_value_get_uint (value));
      break;
    case PROP_DOWN_RATE:
      self->config.down_rate = g_value_get_double (value);
      break;
    case PROP_LATE_BUMP:
      self->config.late_bump = g_value_get_boolean (value);
      break;
    case PROP_LATE_TARGET:
      self->config.late_target = g_value_get_double (value);
      break;
    case PROP_RETURN_TIME:
      self->config.return_time = RTPCC_MSEC (g_value_get_uint (value));
      break;
    case PROP_LEVEL_WINDOW:
      self->config.level_window = RTPCC_MSEC (g_value_get_uint (value));
      break;
    case PROP_CLOCK_RATE:
      self->clock_rate_prop = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (self->config.max_delay < self->config.min_delay)
    GST_WARNING_OBJECT (self, "max-delay < min-delay: min-delay wins");
  gst_playout_buffer_apply_config_locked (self);
  gst_rtpcc_timed_task_wake (&self->task);
  g_mutex_unlock (&self->lock);
}

static GstStructure *
gst_playout_buffer_stats_locked (GstPlayoutBuffer * self)
{
  RtpccPlayoutStats st;

  memset (&st, 0, sizeof (st));
  if (self->playout)
    rtpcc_playout_get_stats (self->playout, &st);
  return gst_structure_new ("application/x-playoutbuffer-stats",
      "received", G_TYPE_UINT64, st.received,
      "released", G_TYPE_UINT64, st.released,
      "late", G_TYPE_UINT64, st.late,
      "duplicates", G_TYPE_UINT64, st.duplicates,
      "overflows", G_TYPE_UINT64, st.overflows,
      "reordered", G_TYPE_UINT64, st.reordered,
      "skipped", G_TYPE_UINT64, st.skipped,
      "fillers", G_TYPE_UINT64, st.fillers,
      "fillers-late", G_TYPE_UINT64, st.fillers_late,
      "invalid", G_TYPE_UINT64, self->invalid,
      "ssrc-changes", G_TYPE_UINT64, self->ssrc_changes,
      "fillers-other-ssrc", G_TYPE_UINT64, self->fillers_other_ssrc,
      "discard-events", G_TYPE_UINT64, self->discard_events,
      "refused", G_TYPE_UINT64, st.refused,
      "restarts", G_TYPE_UINT64, st.restarts,
      "target-delay", G_TYPE_UINT64, (guint64) MAX (st.target_delay, 0),
      "jitter-percentile", G_TYPE_UINT64,
      (guint64) MAX (st.jitter_percentile, 0),
      "fec-window", G_TYPE_UINT64, (guint64) MAX (st.fec_window, 0),
      "drift-ppm", G_TYPE_DOUBLE, st.drift_ppm,
      "queued", G_TYPE_UINT, st.queued,
      "subflows", G_TYPE_UINT, st.subflows, NULL);
}

static void
gst_playout_buffer_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_PERCENTILE:
      g_value_set_double (value, self->config.percentile);
      break;
    case PROP_MIN_DELAY:
      g_value_set_uint (value, ms_of (self->config.min_delay));
      break;
    case PROP_MAX_DELAY:
      g_value_set_uint (value, ms_of (self->config.max_delay));
      break;
    case PROP_FEC_WINDOW:
      g_value_set_int (value, self->fec_window_prop);
      break;
    case PROP_MODE:
      g_value_set_enum (value, (gint) self->config.mode);
      break;
    case PROP_WINDOW:
      g_value_set_uint (value, ms_of (self->config.window));
      break;
    case PROP_DOWN_RATE:
      g_value_set_double (value, self->config.down_rate);
      break;
    case PROP_LATE_BUMP:
      g_value_set_boolean (value, self->config.late_bump);
      break;
    case PROP_LATE_TARGET:
      g_value_set_double (value, self->config.late_target);
      break;
    case PROP_RETURN_TIME:
      g_value_set_uint (value, ms_of (self->config.return_time));
      break;
    case PROP_LEVEL_WINDOW:
      g_value_set_uint (value, ms_of (self->config.level_window));
      break;
    case PROP_CLOCK_RATE:
      g_value_set_uint (value, self->clock_rate_prop);
      break;
    case PROP_TARGET_DELAY:{
      RtpccPlayoutStats st;

      memset (&st, 0, sizeof (st));
      if (self->playout)
        rtpcc_playout_get_stats (self->playout, &st);
      g_value_set_uint (value, ms_of (st.target_delay));
      break;
    }
    case PROP_STATS:
      g_value_take_boxed (value, gst_playout_buffer_stats_locked (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

/* --- pads -------------------------------------------------------------------- */

static GstPad *
gst_playout_buffer_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (element);
  SinkPadData *data;
  GstPad *pad;
  guint index = 0;
  GList *l;

  if (name && sscanf (name, "sink_%u", &index) != 1) {
    GST_WARNING_OBJECT (self, "bad pad name %s", name);
    return NULL;
  }

  GST_OBJECT_LOCK (self);
  if (name == NULL) {
    /* the lowest free index */
    gboolean taken;

    do {
      taken = FALSE;
      for (l = element->sinkpads; l != NULL; l = l->next) {
        SinkPadData *d = gst_pad_get_element_private (l->data);

        if (d && d->subflow == index) {
          taken = TRUE;
          index++;
          break;
        }
      }
    } while (taken);
  }
  GST_OBJECT_UNLOCK (self);

  if (index >= RTPCC_PLAYOUT_MAX_SUBFLOWS) {
    GST_WARNING_OBJECT (self, "at most %d subflows",
        RTPCC_PLAYOUT_MAX_SUBFLOWS);
    return NULL;
  }

  {
    gchar *pad_name = g_strdup_printf ("sink_%u", index);

    pad = gst_pad_new_from_template (templ, pad_name);
    g_free (pad_name);
  }
  data = g_new0 (SinkPadData, 1);
  data->subflow = index;
  gst_pad_set_element_private (pad, data);
  gst_pad_set_chain_function (pad,
      GST_DEBUG_FUNCPTR (gst_playout_buffer_chain));
  gst_pad_set_event_function (pad,
      GST_DEBUG_FUNCPTR (gst_playout_buffer_sink_event));
  GST_PAD_SET_PROXY_CAPS (pad);

  if (GST_STATE (element) >= GST_STATE_PAUSED)
    gst_pad_set_active (pad, TRUE);
  if (!gst_element_add_pad (element, pad)) {
    g_free (data);
    gst_object_unref (pad);
    return NULL;
  }
  return pad;
}

static void
gst_playout_buffer_release_pad (GstElement * element, GstPad * pad)
{
  SinkPadData *data = gst_pad_get_element_private (pad);

  gst_pad_set_active (pad, FALSE);
  gst_element_remove_pad (element, pad);
  g_free (data);
}

/* --- time -------------------------------------------------------------------- */

/* Running time, never going backwards; frozen while not PLAYING. */
static RtpccTime
gst_playout_buffer_now_locked (GstPlayoutBuffer * self)
{
  GstElement *element = GST_ELEMENT_CAST (self);
  GstClockTime clock_time = GST_CLOCK_TIME_NONE, base_time;
  gboolean have_clock;
  RtpccTime now;

  if (!self->playing)
    return self->last_now;
  /* clock and base time under one object lock, without a reference: this
   * runs several times per packet */
  GST_OBJECT_LOCK (element);
  base_time = element->base_time;
  have_clock = element->clock != NULL;
  if (have_clock)
    clock_time = gst_clock_get_time (element->clock);
  GST_OBJECT_UNLOCK (element);
  if (!have_clock) {
    GstClock *clock = gst_system_clock_obtain ();

    clock_time = gst_clock_get_time (clock);
    gst_object_unref (clock);
  }
  if (!GST_CLOCK_TIME_IS_VALID (clock_time) || clock_time < base_time)
    return self->last_now;
  now = (RtpccTime) (clock_time - base_time);
  self->last_now = MAX (now, self->last_now);
  return self->last_now;
}

/* --- data flow --------------------------------------------------------------- */

static void
gst_playout_buffer_emit_discard (GstPlayoutBuffer * self, GstPad * pad,
    guint32 ssrc, guint16 seq)
{
  GST_DEBUG_OBJECT (self, "late discard ssrc %08x seq %u", ssrc, seq);
  gst_pad_push_event (pad, gst_rtpcc_discard_event_new (ssrc, seq, 1));
}

static GstFlowReturn
gst_playout_buffer_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (parent);
  SinkPadData *pdata = gst_pad_get_element_private (pad);
  RtpccPlayoutVerdict verdict;
  RtpccPlayoutRtp rtp;
  GstMapInfo map;
  RtpccTime now;
  GstFlowReturn ret;
  gboolean valid;

  /* the library reads the header (bounds-checked, fuzzed) */
  valid = gst_buffer_map (buffer, &map, GST_MAP_READ);
  if (valid) {
    valid = rtpcc_playout_read_rtp (map.data, map.size, &rtp);
    gst_buffer_unmap (buffer, &map);
  }
  if (!valid) {
    g_mutex_lock (&self->lock);
    self->invalid++;
    g_mutex_unlock (&self->lock);
    GST_LOG_OBJECT (self, "dropping a buffer that is not RTP");
    gst_buffer_unref (buffer);
    return GST_FLOW_OK;
  }

  g_mutex_lock (&self->lock);
  if (self->task.flushing || self->srcresult != GST_FLOW_OK) {
    ret = self->task.flushing ? GST_FLOW_FLUSHING : self->srcresult;
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buffer);
    return ret;
  }
  if (self->clock_rate == 0 && pdata->clock_rate != 0)
    self->clock_rate = pdata->clock_rate;
  if (self->playout == NULL) {
    RtpccPlayoutConfig c;

    /* clock-rate is read once per stream: a change under a running playout
     * would shift every media time */
    self->clock_rate_start = self->clock_rate_prop;
    c = gst_playout_buffer_config_locked (self);
    self->playout = rtpcc_playout_new (&c);
    if (self->playout == NULL) {
      g_mutex_unlock (&self->lock);
      gst_buffer_unref (buffer);
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, (NULL),
          ("invalid playout configuration"));
      return GST_FLOW_ERROR;
    }
    /* a packet held on probation that nothing confirms is ours to drop */
    rtpcc_playout_set_free_func (self->playout,
        (GDestroyNotify) gst_buffer_unref);
  }
  switch (rtpcc_playout_check_ssrc (self->playout, rtp.ssrc, rtp.filler,
          (GDestroyNotify) gst_buffer_unref)) {
    case RTPCC_PLAYOUT_SSRC_IGNORE:
      self->fillers_other_ssrc++;
      g_mutex_unlock (&self->lock);
      gst_buffer_unref (buffer);
      return GST_FLOW_OK;
    case RTPCC_PLAYOUT_SSRC_NEW:
      GST_INFO_OBJECT (self, "SSRC changed to %08x: restart", rtp.ssrc);
      self->ssrc_changes++;
      break;
    case RTPCC_PLAYOUT_SSRC_SAME:
      break;
  }

  now = gst_playout_buffer_now_locked (self);

  verdict = rtp.filler ?
      rtpcc_playout_push_filler (self->playout, now, pdata->subflow, rtp.seq,
      rtp.rtp_ts, buffer) :
      rtpcc_playout_push (self->playout, now, pdata->subflow, rtp.seq,
      rtp.rtp_ts, buffer);
  if (verdict == RTPCC_PLAYOUT_QUEUED) {
    RtpccTime due = rtpcc_playout_next_due (self->playout, now);

    /* the head or the target may have changed: wake the task if it sleeps
     * past the head's time now */
    gst_rtpcc_timed_task_kick (&self->task, due == RTPCC_TIME_NONE ?
        RTPCC_TIME_INFINITE : due);
  } else if (verdict == RTPCC_PLAYOUT_LATE) {
    self->discard_events++;
  }
  g_mutex_unlock (&self->lock);

  if (verdict != RTPCC_PLAYOUT_QUEUED) {
    GST_LOG_OBJECT (self, "seq %u: %s", rtp.seq,
        verdict == RTPCC_PLAYOUT_LATE ? "late" :
        verdict == RTPCC_PLAYOUT_FILLER_LATE ? "late filler" :
        verdict == RTPCC_PLAYOUT_DUPLICATE ? "duplicate" : "overflow");
    gst_buffer_unref (buffer);
    if (verdict == RTPCC_PLAYOUT_LATE)
      gst_playout_buffer_emit_discard (self, pad, rtp.ssrc, rtp.seq);
  }
  return GST_FLOW_OK;
}

static gboolean
all_sinks_eos_locked (GstPlayoutBuffer * self)
{
  GList *l;
  gboolean all = TRUE;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT_CAST (self)->sinkpads; l != NULL; l = l->next) {
    SinkPadData *d = gst_pad_get_element_private (l->data);

    if (d && !d->eos)
      all = FALSE;
  }
  GST_OBJECT_UNLOCK (self);
  return all;
}

static void
gst_playout_buffer_flush_locked (GstPlayoutBuffer * self)
{
  if (self->playout)
    rtpcc_playout_reset (self->playout, (GDestroyNotify) gst_buffer_unref);
}

static gboolean
gst_playout_buffer_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (parent);
  SinkPadData *pdata = gst_pad_get_element_private (pad);

  GST_LOG_OBJECT (pad, "event %" GST_PTR_FORMAT, event);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      g_mutex_lock (&self->lock);
      gst_rtpcc_timed_task_set_flushing (&self->task, TRUE);
      self->srcresult = GST_FLOW_FLUSHING;
      g_mutex_unlock (&self->lock);
      gst_pad_push_event (self->srcpad, event);
      gst_pad_pause_task (self->srcpad);
      return TRUE;
    case GST_EVENT_FLUSH_STOP:
      gst_pad_push_event (self->srcpad, event);
      g_mutex_lock (&self->lock);
      gst_playout_buffer_flush_locked (self);
      self->eos = FALSE;
      pdata->eos = FALSE;
      if (gst_pad_is_active (self->srcpad)) {
        gst_rtpcc_timed_task_set_flushing (&self->task, FALSE);
        self->srcresult = GST_FLOW_OK;
        gst_pad_start_task (self->srcpad, gst_playout_buffer_loop, self, NULL);
      }
      g_mutex_unlock (&self->lock);
      return TRUE;
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      const GstStructure *s;
      gint rate = 0;
      gboolean forward;

      gst_event_parse_caps (event, &caps);
      s = gst_caps_get_structure (caps, 0);
      if (s && gst_structure_get_int (s, "clock-rate", &rate) && rate > 0) {
        g_mutex_lock (&self->lock);
        pdata->clock_rate = (guint) rate;
        if (self->clock_rate != (guint) rate) {
          self->clock_rate = (guint) rate;
          gst_playout_buffer_apply_config_locked (self);
        }
        g_mutex_unlock (&self->lock);
      }
      /* all subflows carry the same stream: the first caps speak for all */
      g_mutex_lock (&self->lock);
      forward = !self->sent_caps;
      self->sent_caps = TRUE;
      g_mutex_unlock (&self->lock);
      if (forward)
        return gst_pad_push_event (self->srcpad, event);
      gst_event_unref (event);
      return TRUE;
    }
    case GST_EVENT_STREAM_START:{
      gboolean forward;

      g_mutex_lock (&self->lock);
      forward = !self->sent_stream_start;
      self->sent_stream_start = TRUE;
      pdata->eos = FALSE;
      self->eos = FALSE;
      g_mutex_unlock (&self->lock);
      if (forward)
        return gst_pad_push_event (self->srcpad, event);
      gst_event_unref (event);
      return TRUE;
    }
    case GST_EVENT_SEGMENT:{
      gboolean forward;
      GstSegment seg;

      /* Output PTS are running times (the playout times), so downstream
       * gets a plain TIME segment from 0. */
      gst_event_unref (event);
      g_mutex_lock (&self->lock);
      forward = !self->sent_segment;
      self->sent_segment = TRUE;
      g_mutex_unlock (&self->lock);
      if (!forward)
        return TRUE;
      gst_segment_init (&seg, GST_FORMAT_TIME);
      return gst_pad_push_event (self->srcpad, gst_event_new_segment (&seg));
    }
    case GST_EVENT_EOS:
      g_mutex_lock (&self->lock);
      pdata->eos = TRUE;
      if (all_sinks_eos_locked (self)) {
        self->eos = TRUE;
        gst_rtpcc_timed_task_wake (&self->task);
      }
      g_mutex_unlock (&self->lock);
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_CUSTOM_DOWNSTREAM_STICKY:{
      GstClockTime deadline;

      if (!gst_rtpcc_fec_window_event_parse (event, &deadline))
        break;
      /* fecdec upstream: its repair time goes into the delay */
      GST_INFO_OBJECT (self, "fecdec upstream, deadline %" GST_TIME_FORMAT,
          GST_TIME_ARGS (deadline));
      g_mutex_lock (&self->lock);
      self->fec_deadline = deadline;
      gst_playout_buffer_apply_config_locked (self);
      g_mutex_unlock (&self->lock);
      gst_event_unref (event);
      return TRUE;
    }
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static void
gst_playout_buffer_loop (gpointer user_data)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (user_data);
  GstBuffer *buffer = NULL;
  GstFlowReturn ret;
  RtpccTime due = 0, now;
  guint16 seq;

  g_mutex_lock (&self->lock);
  for (;;) {
    if (self->task.flushing)
      goto out_flushing;
    if (self->playout && self->playing) {
      now = gst_playout_buffer_now_locked (self);
      buffer = rtpcc_playout_pop (self->playout, now, &seq, &due);
      if (buffer) {
        /* the offset may have fallen while it waited: never in the past */
        due = MAX (due, now);
        break;
      }
      due = rtpcc_playout_next_due (self->playout, now);
      if (due != RTPCC_TIME_NONE) {
        gst_rtpcc_timed_task_wait (&self->task, due);
        continue;
      }
    }
    if (self->eos && (self->playout == NULL ||
            rtpcc_playout_next_due (self->playout, 0) == RTPCC_TIME_NONE))
      goto out_eos;
    if (self->eos && !self->playing && self->playout) {
      /* EOS while paused: nothing will advance the clock, drain now */
      buffer = rtpcc_playout_pop_any (self->playout, &seq);
      due = self->last_now;
      if (buffer)
        break;
    }
    gst_rtpcc_timed_task_wait (&self->task, RTPCC_TIME_INFINITE);
  }
  self->pushed++;
  g_mutex_unlock (&self->lock);

  buffer = gst_buffer_make_writable (buffer);
  GST_BUFFER_PTS (buffer) = (GstClockTime) MAX (due, 0);
  GST_BUFFER_DTS (buffer) = GST_CLOCK_TIME_NONE;
  GST_LOG_OBJECT (self, "push seq %u at %" GST_STIME_FORMAT, seq,
      GST_STIME_ARGS (due));
  ret = gst_pad_push (self->srcpad, buffer);
  if (ret == GST_FLOW_OK)
    return;

  g_mutex_lock (&self->lock);
  if (!self->task.flushing)
    self->srcresult = ret;
  g_mutex_unlock (&self->lock);
  GST_DEBUG_OBJECT (self, "pausing task: %s", gst_flow_get_name (ret));
  if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS)
    GST_ELEMENT_FLOW_ERROR (self, ret);
  gst_pad_pause_task (self->srcpad);
  return;

out_eos:
  self->srcresult = GST_FLOW_EOS;
  g_mutex_unlock (&self->lock);
  gst_pad_push_event (self->srcpad, gst_event_new_eos ());
  gst_pad_pause_task (self->srcpad);
  return;

out_flushing:
  g_mutex_unlock (&self->lock);
  gst_pad_pause_task (self->srcpad);
}

static gboolean
gst_playout_buffer_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (parent);
  gboolean res;

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  g_mutex_lock (&self->lock);
  self->srcresult = active ? GST_FLOW_OK : GST_FLOW_FLUSHING;
  if (active)
    self->eos = FALSE;
  g_mutex_unlock (&self->lock);
  res = gst_rtpcc_timed_task_activate (&self->task, active,
      gst_playout_buffer_loop, self);
  if (active)
    return res;
  g_mutex_lock (&self->lock);
  gst_playout_buffer_flush_locked (self);
  g_mutex_unlock (&self->lock);
  return res;
}

static gboolean
gst_playout_buffer_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:{
      GstClockTime min, max;
      gboolean live;
      GstPad *sink = NULL;
      gboolean res;

      GST_OBJECT_LOCK (self);
      if (GST_ELEMENT_CAST (self)->sinkpads)
        sink = gst_object_ref (GST_ELEMENT_CAST (self)->sinkpads->data);
      GST_OBJECT_UNLOCK (self);
      if (sink == NULL)
        return FALSE;
      res = gst_pad_peer_query (sink, query);
      gst_object_unref (sink);
      if (!res)
        return FALSE;
      /* The playout delay is already in the PTS we stamp (running times at
       * which we push), so the minimum does not grow; we hold packets for up
       * to max-delay. */
      gst_query_parse_latency (query, &live, &min, &max);
      g_mutex_lock (&self->lock);
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += (GstClockTime) self->config.max_delay;
      g_mutex_unlock (&self->lock);
      gst_query_set_latency (query, live, min, max);
      return TRUE;
    }
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

static GstStateChangeReturn
gst_playout_buffer_change_state (GstElement * element,
    GstStateChange transition)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
      g_mutex_lock (&self->lock);
      self->playing = TRUE;
      gst_rtpcc_timed_task_wake (&self->task);
      g_mutex_unlock (&self->lock);
      break;
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      g_mutex_lock (&self->lock);
      self->sent_caps = self->sent_segment = self->sent_stream_start = FALSE;
      self->last_now = 0;
      g_mutex_unlock (&self->lock);
      break;
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  switch (transition) {
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      g_mutex_lock (&self->lock);
      self->playing = FALSE;
      gst_rtpcc_timed_task_wake (&self->task);
      g_mutex_unlock (&self->lock);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      g_mutex_lock (&self->lock);
      rtpcc_playout_free (self->playout, (GDestroyNotify) gst_buffer_unref);
      self->playout = NULL;
      /* fecdec announces itself again when its pads are active again */
      self->fec_deadline = GST_CLOCK_TIME_NONE;
      g_mutex_unlock (&self->lock);
      break;
    default:
      break;
  }
  /* live: a jitter buffer produces nothing in PAUSED */
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED &&
      ret == GST_STATE_CHANGE_SUCCESS)
    ret = GST_STATE_CHANGE_NO_PREROLL;
  if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED &&
      ret == GST_STATE_CHANGE_SUCCESS)
    ret = GST_STATE_CHANGE_NO_PREROLL;
  return ret;
}

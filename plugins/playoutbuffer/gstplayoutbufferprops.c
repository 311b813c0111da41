/* playoutbuffer's properties: their documentation, the RtpccPlayout
 * configuration they make, and the stats structure
 * (gstplayoutbufferpriv.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstplayoutbufferpriv.h"

void
gst_playout_buffer_install_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

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
   * discard-events, state-events ("rtpcc-playout-state" sent upstream),
   * refused (sequence jumps nothing confirmed: dropped),
   * restarts (sequence jumps confirmed: the stream started over) (guint64
   * counts); target-delay, jitter-percentile,
   * fec-window (guint64 nanoseconds, as GstClockTime); drift-ppm (gdouble);
   * queued, subflows (guint).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Playout statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
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
RtpccPlayoutConfig
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

void
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

void
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
      "state-events", G_TYPE_UINT64, self->state_events,
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

void
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

/* linkemu's properties: their documentation, what they mean to the
 * RtpccLink (applied at once where the model allows, else at the next
 * start), and the stats structure (gstlinkemupriv.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstlinkemupriv.h"

void
gst_link_emu_install_properties (GObjectClass * gobject_class)
{
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  /**
   * GstLinkEmu:rate:
   *
   * Constant bottleneck capacity in kbit/s; 0 means unlimited. Ignored when
   * #GstLinkEmu:schedule or #GstLinkEmu:trace is set. Can be changed in any
   * state; a change applies to packets arriving after it.
   */
  g_object_class_install_property (gobject_class, PROP_RATE,
      g_param_spec_uint ("rate", "Rate",
          "Constant capacity (kbit/s), 0 = unlimited; schedule and trace "
          "override it", 0, G_MAXUINT, DEFAULT_RATE, flags));

  /**
   * GstLinkEmu:schedule:
   *
   * Piecewise-constant capacity "kbit/s@seconds,...", e.g.
   * "1000@0,2500@40,600@60,1000@80". The first entry is at 0, times strictly
   * increase, a rate of 0 is an outage and the last rate holds forever.
   * Times are running time (0 = when the pipeline first goes to PLAYING),
   * also when the schedule is replaced while playing. Overrides
   * #GstLinkEmu:rate. A malformed schedule makes the change to PAUSED fail.
   * Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_SCHEDULE,
      g_param_spec_string ("schedule", "Schedule",
          "Capacity schedule \"kbit/s@seconds,...\" (overrides rate)",
          DEFAULT_SCHEDULE, flags));

  /**
   * GstLinkEmu:trace:
   *
   * File name of a mahimahi delivery trace: one millisecond timestamp per
   * line, each a 1500-byte delivery opportunity, looping with a period equal
   * to the last timestamp. Overrides #GstLinkEmu:rate. Setting both
   * #GstLinkEmu:schedule and #GstLinkEmu:trace makes the change to PAUSED
   * fail; while playing the trace takes precedence. Can be changed in any
   * state.
   */
  g_object_class_install_property (gobject_class, PROP_TRACE,
      g_param_spec_string ("trace", "Trace",
          "mahimahi trace file (overrides rate; exclusive with schedule)",
          DEFAULT_TRACE, flags));

  /**
   * GstLinkEmu:queue-ms:
   *
   * Drop-tail queue limit in milliseconds of the capacity in force when a
   * packet arrives; 0 disables the time limit. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_QUEUE_MS,
      g_param_spec_uint ("queue-ms", "Queue ms",
          "Drop-tail queue limit at the capacity in force (ms), 0 = no time "
          "limit", 0, G_MAXUINT, DEFAULT_QUEUE_MS, flags));

  /**
   * GstLinkEmu:queue-bytes:
   *
   * Drop-tail queue limit in bytes; 0 disables the byte limit. With both
   * limits set the tighter one applies. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_QUEUE_BYTES,
      g_param_spec_uint ("queue-bytes", "Queue bytes",
          "Drop-tail queue limit (bytes), 0 = no byte limit",
          0, G_MAXUINT, DEFAULT_QUEUE_BYTES, flags));

  /**
   * GstLinkEmu:burst:
   *
   * Token bucket depth in bytes, as tc's tbf `burst`: a bucket that fills
   * at the capacity lets a packet leave as soon as it holds the packet's
   * size, so an idle link passes this many bytes at once and a link a flow
   * uses below its rate holds nothing. 0 (the default) is a plain
   * serializer: every packet takes its transmission time. With a queue
   * limit the bucket's bytes come on top, as with tbf. Can be changed in
   * any state.
   */
  g_object_class_install_property (gobject_class, PROP_BURST,
      g_param_spec_uint ("burst", "Burst",
          "Token bucket depth (bytes), as tbf's burst; 0 = plain serializer",
          0, G_MAXUINT, DEFAULT_BURST, flags));

  /**
   * GstLinkEmu:delay:
   *
   * One-way propagation delay in milliseconds, added after serialization.
   * Can be changed in any state; packets already accepted keep theirs.
   */
  g_object_class_install_property (gobject_class, PROP_DELAY,
      g_param_spec_uint ("delay", "Delay",
          "One-way propagation delay (ms)", 0, G_MAXUINT, DEFAULT_DELAY,
          flags));

  /**
   * GstLinkEmu:jitter:
   *
   * Delay jitter in milliseconds: the delay of each packet is drawn
   * uniformly from [delay - jitter, delay + jitter] (never below 0).
   * Packets are not reordered unless #GstLinkEmu:allow-reorder is set. Can
   * be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_JITTER,
      g_param_spec_uint ("jitter", "Jitter",
          "Uniform delay jitter, plus or minus (ms)", 0, G_MAXUINT,
          DEFAULT_JITTER, flags));

  /**
   * GstLinkEmu:allow-reorder:
   *
   * Let jitter reorder packets: each packet is delivered at its own
   * delivery time even if an earlier packet is delivered later. Can be
   * changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_ALLOW_REORDER,
      g_param_spec_boolean ("allow-reorder", "Allow reorder",
          "Let jitter reorder packets", DEFAULT_ALLOW_REORDER, flags));

  /**
   * GstLinkEmu:loss:
   *
   * Bernoulli loss probability, 0 to 1 (used with loss-model=bernoulli).
   * Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_LOSS,
      g_param_spec_double ("loss", "Loss",
          "Bernoulli loss probability", 0.0, 1.0, DEFAULT_LOSS, flags));

  /**
   * GstLinkEmu:loss-model:
   *
   * Which random loss model applies. Can be changed in any state; the
   * Gilbert-Elliott state carries on across changes.
   */
  g_object_class_install_property (gobject_class, PROP_LOSS_MODEL,
      g_param_spec_enum ("loss-model", "Loss model",
          "Random loss model", GST_TYPE_LINK_EMU_LOSS_MODEL,
          DEFAULT_LOSS_MODEL, flags));

  /**
   * GstLinkEmu:ge-p:
   *
   * Gilbert–Elliott P(Good→Bad) per packet, 0 to 1. Can be changed in any
   * state.
   */
  g_object_class_install_property (gobject_class, PROP_GE_P,
      g_param_spec_double ("ge-p", "GE p",
          "Gilbert-Elliott P(good -> bad)", 0.0, 1.0, DEFAULT_GE_P, flags));

  /**
   * GstLinkEmu:ge-r:
   *
   * Gilbert–Elliott P(Bad→Good) per packet, 0 to 1. Can be changed in any
   * state.
   */
  g_object_class_install_property (gobject_class, PROP_GE_R,
      g_param_spec_double ("ge-r", "GE r",
          "Gilbert-Elliott P(bad -> good)", 0.0, 1.0, DEFAULT_GE_R, flags));

  /**
   * GstLinkEmu:ge-k:
   *
   * Gilbert–Elliott P(no loss | Good), 0 to 1, as netem's gemodel 1-k. Can
   * be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_GE_K,
      g_param_spec_double ("ge-k", "GE k",
          "Gilbert-Elliott P(no loss | good)", 0.0, 1.0, DEFAULT_GE_K,
          flags));

  /**
   * GstLinkEmu:ge-h:
   *
   * Gilbert–Elliott P(no loss | Bad), 0 to 1, as netem's gemodel 1-h. Can
   * be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_GE_H,
      g_param_spec_double ("ge-h", "GE h",
          "Gilbert-Elliott P(no loss | bad)", 0.0, 1.0, DEFAULT_GE_H, flags));

  /**
   * GstLinkEmu:seed:
   *
   * Seed of the loss and jitter random streams. Read when the element goes
   * to PAUSED (a flush restarts the streams from it), so it can only be
   * changed in NULL or READY.
   */
  g_object_class_install_property (gobject_class, PROP_SEED,
      g_param_spec_uint64 ("seed", "Seed",
          "Random seed for loss and jitter", 0, G_MAXUINT64, DEFAULT_SEED,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstLinkEmu:stats:
   *
   * Counters as an "application/x-linkemu-stats" structure: packets-in,
   * bytes-in, packets-delivered, bytes-delivered (pushed downstream),
   * packets-in-flight (accepted by the model, not yet pushed), queue-drops,
   * loss-drops, flush-drops (accepted but discarded by a flush or a stop),
   * all #guint64; queue-delay and max-queue-delay (#guint64 nanoseconds, as
   * GstClockTime); unlimited (#gboolean: the link has no capacity limit)
   * and, only when it has one, capacity (#guint64 bit/s now; 0 in an
   * outage). packets-in = packets-delivered + packets-in-flight +
   * queue-drops + loss-drops + flush-drops.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Link statistics", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

/* --- configuration ------------------------------------------------------ */

/* The capacity the properties describe, as a new reference. With @strict,
 * setting both schedule and trace is an error; otherwise the trace wins. */
static RtpccCapacity *
gst_link_emu_make_capacity_locked (GstLinkEmu * self, gboolean strict,
    GError ** error)
{
  if (self->trace && self->schedule) {
    if (strict) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
          "Both schedule (\"%s\") and trace (\"%s\") are set; set only one",
          self->schedule, self->trace);
      return NULL;
    }
    GST_WARNING_OBJECT (self, "both schedule and trace are set; using the "
        "trace");
  }

  if (self->trace) {
    if (self->trace_error) {
      g_set_error (error, self->trace_error->domain, self->trace_error->code,
          "Invalid trace: %s", self->trace_error->message);
      return NULL;
    }
    return rtpcc_capacity_ref (self->trace_cap);
  }

  if (self->schedule) {
    if (self->schedule_error) {
      g_set_error (error, self->schedule_error->domain,
          self->schedule_error->code, "Invalid schedule: %s",
          self->schedule_error->message);
      return NULL;
    }
    return rtpcc_capacity_ref (self->schedule_cap);
  }

  if (self->rate == 0)
    return rtpcc_capacity_new_unlimited ();
  return rtpcc_capacity_new_constant ((guint64) self->rate * 1000);
}

static void
gst_link_emu_loss_params_locked (GstLinkEmu * self, RtpccLossParams * params)
{
  rtpcc_loss_params_init (params);
  params->model = (RtpccLossModel) self->loss_model;
  params->loss = self->loss;
  params->ge_p = self->ge_p;
  params->ge_r = self->ge_r;
  params->ge_k = self->ge_k;
  params->ge_h = self->ge_h;
}

/* Creates the link from the properties. */
gboolean
gst_link_emu_create_link_locked (GstLinkEmu * self, GError ** error)
{
  RtpccLinkConfig config;

  rtpcc_link_config_init (&config);
  gst_link_emu_loss_params_locked (self, &config.loss);
  if (!rtpcc_loss_params_validate (&config.loss, error))
    return FALSE;

  config.capacity = gst_link_emu_make_capacity_locked (self, TRUE, error);
  if (config.capacity == NULL)
    return FALSE;
  config.queue_limit_time = RTPCC_MSEC (self->queue_ms);
  config.queue_limit_bytes = self->queue_bytes;
  config.burst_bytes = self->burst;
  config.delay = RTPCC_MSEC (self->delay);
  config.jitter = RTPCC_MSEC (self->jitter);
  config.allow_reorder = self->allow_reorder;
  config.seed = self->seed;

  g_clear_pointer (&self->link, rtpcc_link_free);
  self->link = rtpcc_link_new (&config);
  rtpcc_capacity_unref (config.capacity);
  /* schedule time 0 = running time 0 */
  rtpcc_link_set_epoch (self->link, 0);

  return TRUE;
}

/* Folds the link's counters into the element's and frees it. */
void
gst_link_emu_free_link_locked (GstLinkEmu * self)
{
  const RtpccLinkStats *s;

  if (self->link == NULL)
    return;

  s = rtpcc_link_get_stats (self->link);
  self->past.packets_in += s->packets_in;
  self->past.bytes_in += s->bytes_in;
  self->past.packets_delivered += s->packets_delivered;
  self->past.bytes_delivered += s->bytes_delivered;
  self->past.queue_drops += s->queue_drops;
  self->past.queue_drop_bytes += s->queue_drop_bytes;
  self->past.loss_drops += s->loss_drops;
  self->past.loss_drop_bytes += s->loss_drop_bytes;
  self->past.max_queue_delay =
      MAX (self->past.max_queue_delay, s->max_queue_delay);

  g_clear_pointer (&self->link, rtpcc_link_free);
}

/* After a flush the running time may restart at 0 and the flushed packets
 * are gone, so the model restarts empty with the configuration in force
 * (including runtime changes). */
void
gst_link_emu_restart_link_locked (GstLinkEmu * self)
{
  RtpccLinkConfig config;

  if (self->link == NULL)
    return;

  config = *rtpcc_link_get_config (self->link);
  if (config.capacity)
    rtpcc_capacity_ref (config.capacity);
  gst_link_emu_free_link_locked (self);
  self->link = rtpcc_link_new (&config);
  if (config.capacity)
    rtpcc_capacity_unref (config.capacity);
  rtpcc_link_set_epoch (self->link, 0);
  self->last_now = 0;
}

static void
gst_link_emu_apply_capacity_locked (GstLinkEmu * self)
{
  RtpccCapacity *cap;
  GError *err = NULL;

  if (self->link == NULL)
    return;

  cap = gst_link_emu_make_capacity_locked (self, FALSE, &err);
  if (cap == NULL) {
    GST_WARNING_OBJECT (self, "keeping the current capacity: %s",
        err->message);
    g_clear_error (&err);
    return;
  }
  rtpcc_link_set_capacity (self->link, cap);
  rtpcc_capacity_unref (cap);
}

static void
gst_link_emu_apply_loss_locked (GstLinkEmu * self)
{
  RtpccLossParams params;

  if (self->link == NULL)
    return;

  gst_link_emu_loss_params_locked (self, &params);
  rtpcc_link_set_loss (self->link, &params);
}

static void
gst_link_emu_apply_delay_locked (GstLinkEmu * self)
{
  if (self->link == NULL)
    return;

  rtpcc_link_set_delay (self->link, RTPCC_MSEC (self->delay),
      RTPCC_MSEC (self->jitter), self->allow_reorder);
}

static void
gst_link_emu_apply_queue_locked (GstLinkEmu * self)
{
  if (self->link == NULL)
    return;

  rtpcc_link_set_queue_limits (self->link, RTPCC_MSEC (self->queue_ms),
      self->queue_bytes);
  rtpcc_link_set_burst (self->link, self->burst, 0);
}

/* Empty strings mean "unset" so that gst-launch can clear a value. */
static gchar *
dup_nonempty (const GValue * value)
{
  const gchar *s = g_value_get_string (value);

  return (s != NULL && *s != '\0') ? g_strdup (s) : NULL;
}

static void
gst_link_emu_set_schedule_locked (GstLinkEmu * self, gchar * schedule)
{
  g_free (self->schedule);
  self->schedule = schedule;
  g_clear_pointer (&self->schedule_cap, rtpcc_capacity_unref);
  g_clear_error (&self->schedule_error);

  if (schedule == NULL)
    return;

  self->schedule_cap =
      rtpcc_capacity_new_schedule (schedule, &self->schedule_error);
  if (self->schedule_cap == NULL) {
    GST_WARNING_OBJECT (self, "invalid schedule \"%s\": %s", schedule,
        self->schedule_error ? self->schedule_error->message : "?");
    if (self->schedule_error == NULL)
      g_set_error_literal (&self->schedule_error, RTPCC_ERROR,
          RTPCC_ERROR_PARSE, "parse error");
  }
}

static void
gst_link_emu_set_trace_locked (GstLinkEmu * self, gchar * trace)
{
  g_free (self->trace);
  self->trace = trace;
  g_clear_pointer (&self->trace_cap, rtpcc_capacity_unref);
  g_clear_error (&self->trace_error);

  if (trace == NULL)
    return;

  self->trace_cap = rtpcc_capacity_new_trace_file (trace, &self->trace_error);
  if (self->trace_cap == NULL) {
    GST_WARNING_OBJECT (self, "invalid trace \"%s\": %s", trace,
        self->trace_error ? self->trace_error->message : "?");
    if (self->trace_error == NULL)
      g_set_error_literal (&self->trace_error, RTPCC_ERROR,
          RTPCC_ERROR_PARSE, "parse error");
  }
}

void
gst_link_emu_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstLinkEmu *self = GST_LINK_EMU (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_RATE:
      self->rate = g_value_get_uint (value);
      gst_link_emu_apply_capacity_locked (self);
      break;
    case PROP_SCHEDULE:
      gst_link_emu_set_schedule_locked (self, dup_nonempty (value));
      gst_link_emu_apply_capacity_locked (self);
      break;
    case PROP_TRACE:
      gst_link_emu_set_trace_locked (self, dup_nonempty (value));
      gst_link_emu_apply_capacity_locked (self);
      break;
    case PROP_QUEUE_MS:
      self->queue_ms = g_value_get_uint (value);
      gst_link_emu_apply_queue_locked (self);
      break;
    case PROP_QUEUE_BYTES:
      self->queue_bytes = g_value_get_uint (value);
      gst_link_emu_apply_queue_locked (self);
      break;
    case PROP_BURST:
      self->burst = g_value_get_uint (value);
      gst_link_emu_apply_queue_locked (self);
      break;
    case PROP_DELAY:
      self->delay = g_value_get_uint (value);
      gst_link_emu_apply_delay_locked (self);
      break;
    case PROP_JITTER:
      self->jitter = g_value_get_uint (value);
      gst_link_emu_apply_delay_locked (self);
      break;
    case PROP_ALLOW_REORDER:
      self->allow_reorder = g_value_get_boolean (value);
      gst_link_emu_apply_delay_locked (self);
      break;
    case PROP_LOSS:
      self->loss = g_value_get_double (value);
      gst_link_emu_apply_loss_locked (self);
      break;
    case PROP_LOSS_MODEL:
      self->loss_model = g_value_get_enum (value);
      gst_link_emu_apply_loss_locked (self);
      break;
    case PROP_GE_P:
      self->ge_p = g_value_get_double (value);
      gst_link_emu_apply_loss_locked (self);
      break;
    case PROP_GE_R:
      self->ge_r = g_value_get_double (value);
      gst_link_emu_apply_loss_locked (self);
      break;
    case PROP_GE_K:
      self->ge_k = g_value_get_double (value);
      gst_link_emu_apply_loss_locked (self);
      break;
    case PROP_GE_H:
      self->ge_h = g_value_get_double (value);
      gst_link_emu_apply_loss_locked (self);
      break;
    case PROP_SEED:
      self->seed = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

/* --- stats --------------------------------------------------------------- */

static GstStructure *
gst_link_emu_get_stats_locked (GstLinkEmu * self)
{
  RtpccLinkStats s = self->past;
  RtpccTime queue_delay = 0;
  guint64 capacity = 0, accepted, in_flight;
  GstStructure *st;

  if (self->link) {
    const RtpccLinkStats *l = rtpcc_link_get_stats (self->link);
    RtpccTime now = gst_link_emu_now_locked (self);

    /* the queue state is advanced to @now: later arrivals must not be
     * earlier */
    self->last_now = now;
    s.packets_in += l->packets_in;
    s.bytes_in += l->bytes_in;
    s.packets_delivered += l->packets_delivered;
    s.bytes_delivered += l->bytes_delivered;
    s.queue_drops += l->queue_drops;
    s.loss_drops += l->loss_drops;
    s.max_queue_delay = MAX (s.max_queue_delay, l->max_queue_delay);
    queue_delay = rtpcc_link_queue_delay (self->link, now);
    capacity = rtpcc_link_capacity_at (self->link, now);
  } else {
    RtpccCapacity *cap = gst_link_emu_make_capacity_locked (self, FALSE, NULL);

    /* not running: what the link would start with */
    if (cap) {
      capacity = rtpcc_capacity_rate_at (cap, 0, 0);
      rtpcc_capacity_unref (cap);
    }
  }

  accepted = s.packets_delivered;
  in_flight = accepted - MIN (accepted, self->pushed_packets +
      self->flushed_packets);
  st = gst_structure_new ("application/x-linkemu-stats",
      "packets-in", G_TYPE_UINT64, s.packets_in,
      "bytes-in", G_TYPE_UINT64, s.bytes_in,
      "packets-delivered", G_TYPE_UINT64, self->pushed_packets,
      "bytes-delivered", G_TYPE_UINT64, self->pushed_bytes,
      "packets-in-flight", G_TYPE_UINT64, in_flight,
      "queue-drops", G_TYPE_UINT64, s.queue_drops,
      "loss-drops", G_TYPE_UINT64, s.loss_drops,
      "flush-drops", G_TYPE_UINT64, self->flushed_packets,
      "queue-delay", G_TYPE_UINT64, (guint64) MAX (queue_delay, 0),
      "max-queue-delay", G_TYPE_UINT64, (guint64) MAX (s.max_queue_delay, 0),
      "unlimited", G_TYPE_BOOLEAN, capacity == G_MAXUINT64, NULL);
  /* an unlimited link has no rate to show */
  if (capacity != G_MAXUINT64)
    gst_structure_set (st, "capacity", G_TYPE_UINT64, capacity, NULL);
  return st;
}

void
gst_link_emu_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstLinkEmu *self = GST_LINK_EMU (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_RATE:
      g_value_set_uint (value, self->rate);
      break;
    case PROP_SCHEDULE:
      g_value_set_string (value, self->schedule);
      break;
    case PROP_TRACE:
      g_value_set_string (value, self->trace);
      break;
    case PROP_QUEUE_MS:
      g_value_set_uint (value, self->queue_ms);
      break;
    case PROP_QUEUE_BYTES:
      g_value_set_uint (value, self->queue_bytes);
      break;
    case PROP_BURST:
      g_value_set_uint (value, self->burst);
      break;
    case PROP_DELAY:
      g_value_set_uint (value, self->delay);
      break;
    case PROP_JITTER:
      g_value_set_uint (value, self->jitter);
      break;
    case PROP_ALLOW_REORDER:
      g_value_set_boolean (value, self->allow_reorder);
      break;
    case PROP_LOSS:
      g_value_set_double (value, self->loss);
      break;
    case PROP_LOSS_MODEL:
      g_value_set_enum (value, self->loss_model);
      break;
    case PROP_GE_P:
      g_value_set_double (value, self->ge_p);
      break;
    case PROP_GE_R:
      g_value_set_double (value, self->ge_r);
      break;
    case PROP_GE_K:
      g_value_set_double (value, self->ge_k);
      break;
    case PROP_GE_H:
      g_value_set_double (value, self->ge_h);
      break;
    case PROP_SEED:
      g_value_set_uint64 (value, self->seed);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, gst_link_emu_get_stats_locked (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

/* linkemu: a bottleneck link emulator element.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-linkemu
 * @title: linkemu
 *
 * Emulates a bottleneck network link: a capacity (constant, a schedule or a
 * mahimahi trace), a drop-tail queue limited in milliseconds and/or bytes, a
 * one-way propagation delay with optional jitter, and Bernoulli or
 * Gilbert–Elliott random loss, all seeded so runs replay exactly.
 *
 * The element is a thin I/O skin over the sans-I/O #RtpccLink of
 * libgstrtpcc: each incoming buffer is offered to the link model at its
 * arrival running time, the model decides its fate (dropped, or delivered at
 * some time), and a streaming thread on the source pad pushes delivered
 * buffers when the pipeline clock reaches their delivery time.
 *
 * The schedule/trace epoch (schedule time 0) is running time 0, i.e. the
 * moment the pipeline first goes to PLAYING. Because delivery follows the
 * clock, linkemu is a live element: it returns NO_PREROLL when going to
 * PAUSED, and holds buffers while PAUSED.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 udpsrc port=5000 ! linkemu schedule=1000@0,2500@40,600@60,1000@80 queue-ms=300 delay=50 ! udpsink host=127.0.0.1 port=5002 sync=false
 * ]|
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! x264enc tune=zerolatency ! rtph264pay ! linkemu rate=1500 loss=0.01 ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstlinkemu.h"
#include "gstrtpcctimedtask.h"

GST_DEBUG_CATEGORY_STATIC (gst_link_emu_debug);
#define GST_CAT_DEFAULT gst_link_emu_debug

#define DEFAULT_RATE            0
#define DEFAULT_SCHEDULE        NULL
#define DEFAULT_TRACE           NULL
#define DEFAULT_QUEUE_MS        300
#define DEFAULT_QUEUE_BYTES     0
#define DEFAULT_DELAY           0
#define DEFAULT_JITTER          0
#define DEFAULT_ALLOW_REORDER   FALSE
#define DEFAULT_LOSS            0.0
#define DEFAULT_LOSS_MODEL      GST_LINK_EMU_LOSS_MODEL_BERNOULLI
#define DEFAULT_GE_P            0.0
#define DEFAULT_GE_R            1.0
#define DEFAULT_GE_K            1.0
#define DEFAULT_GE_H            0.0
#define DEFAULT_SEED            0

enum
{
  PROP_0,
  PROP_RATE,
  PROP_SCHEDULE,
  PROP_TRACE,
  PROP_QUEUE_MS,
  PROP_QUEUE_BYTES,
  PROP_DELAY,
  PROP_JITTER,
  PROP_ALLOW_REORDER,
  PROP_LOSS,
  PROP_LOSS_MODEL,
  PROP_GE_P,
  PROP_GE_R,
  PROP_GE_K,
  PROP_GE_H,
  PROP_SEED,
  PROP_STATS,
};

/* One entry of the delivery queue: a buffer with its delivery time, or a
 * serialized event that keeps its place behind the buffers before it. */
typedef struct
{
  GstBuffer *buffer;
  GstEvent *event;
  RtpccTime deliver_at;
  gsize size;
} GstLinkEmuItem;

struct _GstLinkEmu
{
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;

  /* Protects everything below. Lock order: lock, then any GstObject lock. */
  GMutex lock;
  /* The src pad's task: sleeps until the head's delivery time; woken when
   * the head may be due sooner, on PLAYING and on flushing. */
  GstRtpccTimedTask task;

  /* properties */
  guint rate;
  gchar *schedule;
  gchar *trace;
  guint queue_ms;
  guint queue_bytes;
  guint delay;
  guint jitter;
  gboolean allow_reorder;
  gdouble loss;
  GstLinkEmuLossModel loss_model;
  gdouble ge_p, ge_r, ge_k, ge_h;
  guint64 seed;

  /* Parsed on set so errors show up early; a failed parse is kept and
   * reported when going to PAUSED. */
  RtpccCapacity *schedule_cap;
  GError *schedule_error;
  RtpccCapacity *trace_cap;
  GError *trace_error;

  /* streaming state */
  RtpccLink *link;
  GQueue queue;                 /* of GstLinkEmuItem */
  gboolean playing;
  gboolean eos;
  GstFlowReturn srcresult;
  RtpccTime last_now;

  /* Counters of links freed by a flush or a stop; the live link's own stats
   * are added on top. */
  RtpccLinkStats past;
  guint64 pushed_packets, pushed_bytes;
  guint64 flushed_packets;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS_ANY);

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS_ANY);

#define gst_link_emu_parent_class parent_class
G_DEFINE_TYPE (GstLinkEmu, gst_link_emu, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (linkemu, "linkemu", GST_RANK_NONE,
    GST_TYPE_LINK_EMU);

static void gst_link_emu_finalize (GObject * object);
static void gst_link_emu_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_link_emu_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstStateChangeReturn gst_link_emu_change_state (GstElement * element,
    GstStateChange transition);
static GstFlowReturn gst_link_emu_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buffer);
static GstFlowReturn gst_link_emu_sink_event (GstPad * pad,
    GstObject * parent, GstEvent * event);
static gboolean gst_link_emu_src_activate_mode (GstPad * pad,
    GstObject * parent, GstPadMode mode, gboolean active);
static gboolean gst_link_emu_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query);
static void gst_link_emu_loop (gpointer user_data);

GType
gst_link_emu_loss_model_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_LINK_EMU_LOSS_MODEL_BERNOULLI,
        "Independent losses with probability 'loss'", "bernoulli"},
    {GST_LINK_EMU_LOSS_MODEL_GILBERT_ELLIOTT,
          "Gilbert-Elliott bursty losses (ge-p, ge-r, ge-k, ge-h)",
        "gilbert-elliott"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstLinkEmuLossModel", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

static void
gst_link_emu_class_init (GstLinkEmuClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_link_emu_debug, "linkemu", 0,
      "Bottleneck link emulator");

  gobject_class->finalize = gst_link_emu_finalize;
  gobject_class->set_property = gst_link_emu_set_property;
  gobject_class->get_property = gst_link_emu_get_property;

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

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  gst_element_class_set_static_metadata (element_class,
      "Bottleneck link emulator", "Filter/Network",
      "An element that emulates a bottleneck link: capacity (constant, "
      "schedule or trace), drop-tail queue, delay, jitter and random loss",
      "gst-rtpcc developers");

  element_class->change_state = GST_DEBUG_FUNCPTR (gst_link_emu_change_state);

  gst_type_mark_as_plugin_api (GST_TYPE_LINK_EMU_LOSS_MODEL, 0);
}

static void
gst_link_emu_init (GstLinkEmu * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_link_emu_chain));
  gst_pad_set_event_full_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_link_emu_sink_event));
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT_CAST (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_activatemode_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_link_emu_src_activate_mode));
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (gst_link_emu_src_query));
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT_CAST (self), self->srcpad);

  g_mutex_init (&self->lock);
  /* without a clock, delivery is timed on the system clock */
  gst_rtpcc_timed_task_init (&self->task, GST_ELEMENT_CAST (self),
      self->srcpad, &self->lock, TRUE);
  g_queue_init (&self->queue);

  self->rate = DEFAULT_RATE;
  self->queue_ms = DEFAULT_QUEUE_MS;
  self->queue_bytes = DEFAULT_QUEUE_BYTES;
  self->delay = DEFAULT_DELAY;
  self->jitter = DEFAULT_JITTER;
  self->allow_reorder = DEFAULT_ALLOW_REORDER;
  self->loss = DEFAULT_LOSS;
  self->loss_model = DEFAULT_LOSS_MODEL;
  self->ge_p = DEFAULT_GE_P;
  self->ge_r = DEFAULT_GE_R;
  self->ge_k = DEFAULT_GE_K;
  self->ge_h = DEFAULT_GE_H;
  self->seed = DEFAULT_SEED;

  self->srcresult = GST_FLOW_FLUSHING;
}

static void
gst_link_emu_item_free (GstLinkEmuItem * item)
{
  if (item->buffer)
    gst_buffer_unref (item->buffer);
  if (item->event)
    gst_event_unref (item->event);
  g_free (item);
}

/* Drops everything queued; accepted packets count as flush drops so the
 * stats keep adding up. */
static void
gst_link_emu_drop_queue_locked (GstLinkEmu * self)
{
  GstLinkEmuItem *item;

  while ((item = g_queue_pop_head (&self->queue)) != NULL) {
    if (item->buffer)
      self->flushed_packets++;
    gst_link_emu_item_free (item);
  }
}

static void
gst_link_emu_finalize (GObject * object)
{
  GstLinkEmu *self = GST_LINK_EMU (object);

  gst_link_emu_drop_queue_locked (self);
  g_clear_pointer (&self->link, rtpcc_link_free);
  g_clear_pointer (&self->schedule_cap, rtpcc_capacity_unref);
  g_clear_pointer (&self->trace_cap, rtpcc_capacity_unref);
  g_clear_error (&self->schedule_error);
  g_clear_error (&self->trace_error);
  g_free (self->schedule);
  g_free (self->trace);
  g_mutex_clear (&self->lock);
  gst_rtpcc_timed_task_clear (&self->task);

  G_OBJECT_CLASS (parent_class)->finalize (object);
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
static gboolean
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
static void
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
static void
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

static void
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

/* --- time ---------------------------------------------------------------- */

/* The element's clock, or the system clock when there is none yet (e.g. an
 * element used outside a pipeline). Returns a new reference. */
static GstClock *
gst_link_emu_get_clock (GstLinkEmu * self)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT_CAST (self));

  return clock ? clock : gst_system_clock_obtain ();
}

/* Current running time, never going backwards (the model wants
 * non-decreasing times). Running time does not advance while PAUSED, so
 * packets arriving then count as arriving at the last known time. */
static RtpccTime
gst_link_emu_now_locked (GstLinkEmu * self)
{
  GstClock *clock;
  GstClockTime clock_time, base_time;
  RtpccTime now;

  if (!self->playing)
    return self->last_now;

  clock = gst_link_emu_get_clock (self);
  clock_time = gst_clock_get_time (clock);
  gst_object_unref (clock);
  base_time = gst_element_get_base_time (GST_ELEMENT_CAST (self));

  if (!GST_CLOCK_TIME_IS_VALID (clock_time) || clock_time < base_time)
    return self->last_now;
  now = (RtpccTime) (clock_time - base_time);
  return MAX (now, self->last_now);
}

/* --- data flow ----------------------------------------------------------- */

static GstClockTime
shift_time (GstClockTime t, RtpccTime shift)
{
  if (shift < 0 && (GstClockTime) (-shift) > t)
    return 0;
  return (GstClockTime) ((RtpccTime) t + shift);
}

static void
gst_link_emu_enqueue_buffer_locked (GstLinkEmu * self, GstLinkEmuItem * item)
{
  GList *l;

  if (!self->allow_reorder) {
    g_queue_push_tail (&self->queue, item);
    if (self->queue.length == 1)
      gst_rtpcc_timed_task_kick (&self->task, item->deliver_at);
    return;
  }

  /* Sorted by delivery time, but never ahead of an event: events keep their
   * place relative to the buffers that came before them. */
  for (l = self->queue.tail; l != NULL; l = l->prev) {
    GstLinkEmuItem *other = l->data;

    if (other->buffer == NULL || other->deliver_at <= item->deliver_at)
      break;
  }

  if (l != NULL) {
    g_queue_insert_after (&self->queue, l, item);
  } else {
    g_queue_push_head (&self->queue, item);
    /* a new, earlier head: interrupt the wait for the old one */
    gst_rtpcc_timed_task_kick (&self->task, item->deliver_at);
  }
}

static GstFlowReturn
gst_link_emu_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  GstLinkEmu *self = GST_LINK_EMU (parent);
  RtpccLinkOutcome outcome;
  GstLinkEmuItem *item;
  GstFlowReturn ret;
  RtpccTime now;
  gsize size;

  size = gst_buffer_get_size (buffer);

  g_mutex_lock (&self->lock);
  if (self->task.flushing || self->srcresult != GST_FLOW_OK)
    goto out_flow;
  if (self->eos)
    goto out_eos;
  if (G_UNLIKELY (self->link == NULL))
    goto out_flushing;

  now = gst_link_emu_now_locked (self);
  self->last_now = now;
  rtpcc_link_send (self->link, now, (guint) MIN (size, G_MAXUINT), &outcome);

  if (outcome.verdict != RTPCC_LINK_DELIVERED) {
    GST_LOG_OBJECT (self, "dropped %" G_GSIZE_FORMAT " bytes at %"
        GST_STIME_FORMAT ": %s", size, GST_STIME_ARGS (now),
        rtpcc_link_verdict_name (outcome.verdict));
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buffer);
    return GST_FLOW_OK;
  }

  GST_LOG_OBJECT (self, "%" G_GSIZE_FORMAT " bytes at %" GST_STIME_FORMAT
      " deliver at %" GST_STIME_FORMAT, size, GST_STIME_ARGS (now),
      GST_STIME_ARGS (outcome.deliver_at));

  /* Timestamps move with the data, so downstream sees the link's delay.
   * (The model drops packets it could never serve; the check is only
   * defensive.) */
  if (outcome.deliver_at != RTPCC_TIME_INFINITE) {
    RtpccTime shift = outcome.deliver_at - now;

    buffer = gst_buffer_make_writable (buffer);
    if (GST_BUFFER_PTS_IS_VALID (buffer))
      GST_BUFFER_PTS (buffer) = shift_time (GST_BUFFER_PTS (buffer), shift);
    else
      GST_BUFFER_PTS (buffer) = (GstClockTime) MAX (outcome.deliver_at, 0);
    if (GST_BUFFER_DTS_IS_VALID (buffer))
      GST_BUFFER_DTS (buffer) = shift_time (GST_BUFFER_DTS (buffer), shift);
  }

  item = g_new0 (GstLinkEmuItem, 1);
  item->buffer = buffer;
  item->deliver_at = outcome.deliver_at;
  item->size = size;
  gst_link_emu_enqueue_buffer_locked (self, item);
  g_mutex_unlock (&self->lock);

  return GST_FLOW_OK;

out_flow:
  {
    ret = self->task.flushing ? GST_FLOW_FLUSHING : self->srcresult;
    GST_LOG_OBJECT (self, "refusing buffer: %s", gst_flow_get_name (ret));
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buffer);
    return ret;
  }
out_eos:
  {
    GST_LOG_OBJECT (self, "refusing buffer after EOS");
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buffer);
    return GST_FLOW_EOS;
  }
out_flushing:
  {
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buffer);
    return GST_FLOW_FLUSHING;
  }
}

static GstFlowReturn
gst_link_emu_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstLinkEmu *self = GST_LINK_EMU (parent);
  GstLinkEmuItem *item;
  GstFlowReturn ret;

  GST_LOG_OBJECT (self, "event %" GST_PTR_FORMAT, event);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      /* downstream first, so that a blocked push returns */
      gst_pad_push_event (self->srcpad, event);

      g_mutex_lock (&self->lock);
      gst_rtpcc_timed_task_set_flushing (&self->task, TRUE);
      self->srcresult = GST_FLOW_FLUSHING;
      g_mutex_unlock (&self->lock);

      /* once paused, the streaming thread no longer touches the queue */
      gst_pad_pause_task (self->srcpad);
      g_mutex_lock (&self->lock);
      gst_link_emu_drop_queue_locked (self);
      g_mutex_unlock (&self->lock);
      return GST_FLOW_OK;

    case GST_EVENT_FLUSH_STOP:
      gst_pad_push_event (self->srcpad, event);

      g_mutex_lock (&self->lock);
      gst_link_emu_drop_queue_locked (self);
      gst_link_emu_restart_link_locked (self);
      self->eos = FALSE;
      if (gst_pad_is_active (self->srcpad)) {
        gst_rtpcc_timed_task_set_flushing (&self->task, FALSE);
        self->srcresult = GST_FLOW_OK;
        gst_pad_start_task (self->srcpad, gst_link_emu_loop, self, NULL);
      }
      g_mutex_unlock (&self->lock);
      return GST_FLOW_OK;

    default:
      break;
  }

  if (!GST_EVENT_IS_SERIALIZED (event)) {
    return gst_pad_push_event (self->srcpad, event) ? GST_FLOW_OK :
        GST_FLOW_ERROR;
  }

  g_mutex_lock (&self->lock);
  if (self->task.flushing) {
    ret = GST_FLOW_FLUSHING;
    goto refuse;
  }

  /* STREAM_START and SEGMENT start a new stream after EOS */
  if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START ||
      GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT) {
    if (self->eos || self->srcresult == GST_FLOW_EOS) {
      self->eos = FALSE;
      if (self->srcresult == GST_FLOW_EOS) {
        self->srcresult = GST_FLOW_OK;
        gst_pad_start_task (self->srcpad, gst_link_emu_loop, self, NULL);
      }
    }
  }

  if (self->srcresult != GST_FLOW_OK) {
    ret = self->srcresult;
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
      /* as queue does: nobody else will report the fatal error now */
      if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
        g_mutex_unlock (&self->lock);
        GST_ELEMENT_FLOW_ERROR (self, ret);
        gst_event_unref (event);
        return ret;
      }
      goto refuse;
    }
    if (GST_EVENT_IS_STICKY (event)) {
      /* kept on the src pad so a relinked peer still gets it */
      gst_pad_store_sticky_event (self->srcpad, event);
      g_mutex_unlock (&self->lock);
      gst_event_unref (event);
      return GST_FLOW_OK;
    }
    goto refuse;
  }

  if (self->eos) {
    ret = GST_FLOW_EOS;
    goto refuse;
  }

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    self->eos = TRUE;

  item = g_new0 (GstLinkEmuItem, 1);
  item->event = event;
  g_queue_push_tail (&self->queue, item);
  /* an event goes out as soon as it is the head */
  if (self->queue.length == 1)
    gst_rtpcc_timed_task_wake (&self->task);
  g_mutex_unlock (&self->lock);

  return GST_FLOW_OK;

refuse:
  GST_DEBUG_OBJECT (self, "refusing event %s: %s",
      GST_EVENT_TYPE_NAME (event), gst_flow_get_name (ret));
  g_mutex_unlock (&self->lock);
  gst_event_unref (event);
  return ret;
}

static void
gst_link_emu_loop (gpointer user_data)
{
  GstLinkEmu *self = GST_LINK_EMU (user_data);
  GstLinkEmuItem *item;
  GstFlowReturn ret = GST_FLOW_OK;

  g_mutex_lock (&self->lock);
  for (;;) {
    if (self->task.flushing)
      goto out_flushing;

    item = g_queue_peek_head (&self->queue);
    if (item != NULL && item->event != NULL)
      break;

    /* Buffers wait for PLAYING (running time only advances then) and for
     * their delivery time. */
    if (item == NULL || !self->playing ||
        item->deliver_at == RTPCC_TIME_INFINITE) {
      gst_rtpcc_timed_task_wait (&self->task, RTPCC_TIME_INFINITE);
      continue;
    }

    if (gst_rtpcc_timed_task_wait (&self->task, item->deliver_at))
      break;
  }

  item = g_queue_pop_head (&self->queue);
  if (item->buffer) {
    self->pushed_packets++;
    self->pushed_bytes += item->size;
  }
  g_mutex_unlock (&self->lock);

  if (item->buffer) {
    GstBuffer *buffer = item->buffer;

    item->buffer = NULL;
    ret = gst_pad_push (self->srcpad, buffer);
  } else {
    GstEvent *event = item->event;
    gboolean is_eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;

    item->event = NULL;
    gst_pad_push_event (self->srcpad, event);
    if (is_eos)
      ret = GST_FLOW_EOS;
  }
  gst_link_emu_item_free (item);

  if (ret == GST_FLOW_OK)
    return;

  g_mutex_lock (&self->lock);
  if (!self->task.flushing)
    self->srcresult = ret;
  GST_DEBUG_OBJECT (self, "pausing task: %s", gst_flow_get_name (ret));
  /* as queue does: after upstream's EOS nobody else reports a fatal error */
  if (self->eos && (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS)) {
    g_mutex_unlock (&self->lock);
    GST_ELEMENT_FLOW_ERROR (self, ret);
    gst_pad_push_event (self->srcpad, gst_event_new_eos ());
  } else {
    g_mutex_unlock (&self->lock);
  }
  gst_pad_pause_task (self->srcpad);
  return;

out_flushing:
  GST_DEBUG_OBJECT (self, "flushing, pausing task");
  g_mutex_unlock (&self->lock);
  gst_pad_pause_task (self->srcpad);
}

static gboolean
gst_link_emu_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstLinkEmu *self = GST_LINK_EMU (parent);
  gboolean res;

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;

  g_mutex_lock (&self->lock);
  self->srcresult = active ? GST_FLOW_OK : GST_FLOW_FLUSHING;
  if (active)
    self->eos = FALSE;
  g_mutex_unlock (&self->lock);
  /* stopping joins the streaming thread, out of any clock wait */
  res = gst_rtpcc_timed_task_activate (&self->task, active,
      gst_link_emu_loop, self);
  if (active)
    return res;

  g_mutex_lock (&self->lock);
  gst_link_emu_drop_queue_locked (self);
  g_mutex_unlock (&self->lock);

  return res;
}

static gboolean
gst_link_emu_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstLinkEmu *self = GST_LINK_EMU (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:{
      GstClockTime min, max;
      gboolean live;

      if (!gst_pad_peer_query (self->sinkpad, query))
        return FALSE;
      /* Packets wait here as long as the link holds them, so the element
       * buffers without bound. The link's delay is not reported as latency:
       * it is already in the shifted timestamps. */
      gst_query_parse_latency (query, &live, &min, &max);
      gst_query_set_latency (query, live, min, GST_CLOCK_TIME_NONE);
      return TRUE;
    }
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

static GstStateChangeReturn
gst_link_emu_change_state (GstElement * element, GstStateChange transition)
{
  GstLinkEmu *self = GST_LINK_EMU (element);
  GstStateChangeReturn ret;
  GError *err = NULL;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      g_mutex_lock (&self->lock);
      memset (&self->past, 0, sizeof (self->past));
      self->pushed_packets = self->pushed_bytes = 0;
      self->flushed_packets = 0;
      self->last_now = 0;
      self->playing = FALSE;
      if (!gst_link_emu_create_link_locked (self, &err)) {
        g_mutex_unlock (&self->lock);
        GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
            ("linkemu cannot start with these properties"));
        g_clear_error (&err);
        return GST_STATE_CHANGE_FAILURE;
      }
      g_mutex_unlock (&self->lock);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
      g_mutex_lock (&self->lock);
      self->playing = TRUE;
      gst_rtpcc_timed_task_wake (&self->task);
      g_mutex_unlock (&self->lock);
      break;
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      /* stop waiting on the clock: buffers are held until PLAYING again */
      g_mutex_lock (&self->lock);
      self->last_now = gst_link_emu_now_locked (self);
      self->playing = FALSE;
      gst_rtpcc_timed_task_wake (&self->task);
      g_mutex_unlock (&self->lock);
      break;
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE)
    goto failure;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      /* live: delivery needs the running clock of PLAYING */
      ret = GST_STATE_CHANGE_NO_PREROLL;
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      g_mutex_lock (&self->lock);
      gst_link_emu_free_link_locked (self);
      g_mutex_unlock (&self->lock);
      break;
    default:
      break;
  }

  return ret;

failure:
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_mutex_lock (&self->lock);
    gst_link_emu_free_link_locked (self);
    g_mutex_unlock (&self->lock);
  }
  return ret;
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

static void
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

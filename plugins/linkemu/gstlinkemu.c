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

#include "gstlinkemupriv.h"

GST_DEBUG_CATEGORY (gst_link_emu_debug);

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

  GST_DEBUG_CATEGORY_INIT (gst_link_emu_debug, "linkemu", 0,
      "Bottleneck link emulator");

  gobject_class->finalize = gst_link_emu_finalize;
  gobject_class->set_property = gst_link_emu_set_property;
  gobject_class->get_property = gst_link_emu_get_property;
  gst_link_emu_install_properties (gobject_class);

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
  self->burst = DEFAULT_BURST;
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

/* --- time ---------------------------------------------------------------- */

/* Current running time, never going backwards (the model wants
 * non-decreasing times). Running time does not advance while PAUSED, so
 * packets arriving then count as arriving at the last known time. */
RtpccTime
gst_link_emu_now_locked (GstLinkEmu * self)
{
  return gst_rtpcc_timed_task_playing_now (&self->task, self->playing,
      &self->last_now);
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

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  /* stopping joins the streaming thread, out of any clock wait */
  return gst_rtpcc_timed_task_activate_holding (&self->task, active,
      gst_link_emu_loop, self, &self->srcresult, &self->eos,
      (void (*)(gpointer)) gst_link_emu_drop_queue_locked);
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

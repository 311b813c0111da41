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

#include "gstplayoutbufferpriv.h"
#include "gstrtpccevent.h"
#include "gstrtpccmap.h"

GST_DEBUG_CATEGORY (gst_playout_buffer_debug);

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
static gboolean gst_playout_buffer_sink_query (GstPad * pad,
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

  gobject_class->finalize = gst_playout_buffer_finalize;
  gobject_class->set_property = gst_playout_buffer_set_property;
  gobject_class->get_property = gst_playout_buffer_get_property;
  gst_playout_buffer_install_properties (gobject_class);

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
  g_mutex_init (&self->sticky_lock);
  /* without a clock the system clock times the playout (as "now" does) */
  gst_rtpcc_timed_task_init (&self->task, GST_ELEMENT_CAST (self),
      self->srcpad, &self->lock, TRUE);

  rtpcc_playout_config_init (&self->config);
  rtpcc_playout_djb_meter_init (&self->djb_meter,
      (RtpccTime) GST_RTPCC_PLAYOUT_STATE_INTERVAL);
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
  g_mutex_clear (&self->sticky_lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
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
  gst_pad_set_query_function (pad,
      GST_DEBUG_FUNCPTR (gst_playout_buffer_sink_query));
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
  return gst_rtpcc_timed_task_playing_now (&self->task, self->playing,
      &self->last_now);
}

/* --- data flow --------------------------------------------------------------- */

static void
gst_playout_buffer_emit_discard (GstPlayoutBuffer * self, GstPad * pad,
    guint32 ssrc, guint16 seq)
{
  GST_DEBUG_OBJECT (self, "late discard ssrc %08x seq %u", ssrc, seq);
  gst_pad_push_event (pad, gst_rtpcc_discard_event_new (ssrc, seq, 1));
}

/* The de-jitter state after a packet went in (lock held): an event for
 * rtpccsrc if one is due. The nominal delay is the target (what a packet
 * arriving on time waits); the maximum the most the target may grow to
 * (a fixed buffer: its delay). */
static GstEvent *
gst_playout_buffer_state_event_locked (GstPlayoutBuffer * self,
    RtpccTime now, guint32 ssrc)
{
  RtpccTime target = rtpcc_playout_get_target_delay (self->playout);
  RtpccPlayoutDjb d;
  GstRtpccPlayoutState ev = { 0, };
  gboolean adaptive = self->config.mode != RTPCC_PLAYOUT_MODE_FIXED;

  rtpcc_playout_djb_meter_sample (&self->djb_meter, adaptive, target,
      adaptive ? MAX (self->config.max_delay, self->config.min_delay) :
      target);
  if (!rtpcc_playout_djb_meter_due (&self->djb_meter, now, &d))
    return NULL;
#define T(x) ((x) == RTPCC_TIME_NONE ? GST_CLOCK_TIME_NONE : (GstClockTime) (x))
  ev.ssrc = ssrc;
  ev.adaptive = d.adaptive;
  ev.nominal = T (d.nominal);
  ev.maximum = T (d.maximum);
  ev.high_water = T (d.high_water);
  ev.low_water = T (d.low_water);
#undef T
  {
    RtpccTime due;
    if (rtpcc_playout_next_unit (self->playout, now, &ev.next_seq, &due)) {
      /* for the receiver's NADU: what plays next, and in how long */
      ev.have_next = TRUE;
      ev.next_in = due > now ? (GstClockTime) (due - now) : 0;
    }
  }
  self->state_events++;
  return gst_rtpcc_playout_state_event_new (&ev);
}

static GstFlowReturn
gst_playout_buffer_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER_CAST (parent);
  SinkPadData *pdata = gst_pad_get_element_private (pad);
  RtpccPlayoutVerdict verdict;
  RtpccPlayoutRtp rtp;
  GstMapInfo map;
  RtpccTime now;
  GstFlowReturn ret;
  GstEvent *state = NULL;
  gboolean valid;

  /* the library reads the header (bounds-checked, fuzzed) */
  valid = gst_rtpcc_buffer_map_read (buffer, &map);
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
  if (!rtp.filler)
    state = gst_playout_buffer_state_event_locked (self, now, rtp.ssrc);
  g_mutex_unlock (&self->lock);
  if (state)
    gst_pad_push_event (pad, state);

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

/* Pushes @event (taken) if it is the first of its kind (*@sent) from any
 * subflow, else drops it. Under sticky_lock: a second subflow's copy waits
 * until the first is downstream, so that subflow's data, queued after it,
 * cannot be played out ahead of the stream-start, caps or segment. */
static gboolean
forward_first (GstPlayoutBuffer * self, gboolean * sent, GstEvent * event)
{
  gboolean forward, ret = TRUE;

  g_mutex_lock (&self->sticky_lock);
  g_mutex_lock (&self->lock);
  forward = !*sent;
  *sent = TRUE;
  g_mutex_unlock (&self->lock);
  if (forward)
    ret = gst_pad_push_event (self->srcpad, event);
  else
    gst_event_unref (event);
  g_mutex_unlock (&self->sticky_lock);
  return ret;
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
      return forward_first (self, &self->sent_caps, event);
    }
    case GST_EVENT_STREAM_START:
      g_mutex_lock (&self->lock);
      pdata->eos = FALSE;
      self->eos = FALSE;
      g_mutex_unlock (&self->lock);
      return forward_first (self, &self->sent_stream_start, event);
    case GST_EVENT_SEGMENT:{
      GstSegment seg;

      /* Output PTS are running times (the playout times), so downstream
       * gets a plain TIME segment from 0. */
      gst_event_unref (event);
      gst_segment_init (&seg, GST_FORMAT_TIME);
      return forward_first (self, &self->sent_segment,
          gst_event_new_segment (&seg));
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
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER_CAST (user_data);
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

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  return gst_rtpcc_timed_task_activate_holding (&self->task, active,
      gst_playout_buffer_loop, self, &self->srcresult, &self->eos,
      (void (*)(gpointer)) gst_playout_buffer_flush_locked);
}

/* A path's rtpccsrc asks whether the merge has a range of media packets
 * (one of them lost on its path): then another path brought it. */
static gboolean
gst_playout_buffer_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstPlayoutBuffer *self = GST_PLAYOUT_BUFFER (parent);
  guint32 ssrc;
  guint16 first, last;

  if (gst_rtpcc_merged_query_parse (query, &ssrc, &first, &last)) {
    gboolean all;

    g_mutex_lock (&self->lock);
    all = self->playout != NULL && rtpcc_playout_has_range (self->playout,
        ssrc, first, last);
    g_mutex_unlock (&self->lock);
    gst_rtpcc_merged_query_set_answer (query, all);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
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

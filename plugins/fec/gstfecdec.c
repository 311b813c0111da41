/* fecdec: rebuilds lost RTP media packets from fecenc's FEC (or RFC 5109
 * ULPFEC) and pushes the media in sequence order.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-fecdec
 * @title: fecdec
 *
 * Takes the media and FEC packets of one session on its sink pad (FEC is
 * told apart by #GstFecDec:pt), rebuilds lost media packets bit-exact and
 * pushes media only, in sequence order. A hole is waited for at most
 * #GstFecDec:deadline after the next packet arrived; a packet rebuilt after
 * that counts as late-recovered and is discarded, not pushed. Without any
 * FEC the element only reorders.
 *
 * With #GstFecDec:mode=ulpfec it reads RFC 5109 packets from GStreamer's
 * rtpulpfecenc instead; those share the media sequence space, so a lost FEC
 * packet is indistinguishable from lost media and is waited for like one
 * (and counted unrecoverable): the flaw fecenc's separate sequence space
 * avoids.
 *
 * Holes are released when a buffer arrives, at EOS, or by a timer task on
 * the source pad when the deadline passes and nothing arrives. The
 * deadline goes downstream in a sticky "rtpcc-fec-window" event, from
 * which playoutbuffer sizes the repair time it adds to its delay.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! x264enc tune=zerolatency ! \
 *     rtph264pay ! fecenc n=5 follow-target=false ! linkemu loss=0.05 ! \
 *     fecdec deadline=50 ! rtph264depay ! avdec_h264 ! videoconvert ! \
 *     autovideosink
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

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_fec_dec_debug);
#define GST_CAT_DEFAULT gst_fec_dec_debug

#define DEFAULT_PT RTPCC_FEC_DEFAULT_PT
#define DEFAULT_MODE GST_FEC_DEC_MODE_RTPCC
#define DEFAULT_DEADLINE 100           /* ms */

enum
{
  PROP_0,
  PROP_PT,
  PROP_MODE,
  PROP_DEADLINE,
  PROP_STATS,
};

struct _GstFecDec
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* protects everything below */
  GMutex lock;
  guint pt;
  GstFecDecMode mode;
  guint deadline;               /* ms */
  RtpccFecDecoder *dec;
  GstSegment segment;
  RtpccTime last_now;
  GstRtpccClockCache clock_cache;       /* object lock */
  GstClockTime last_pts;
  gboolean announce;            /* the deadline goes downstream (again) */

  /* releases holes whose deadline passed while nothing arrives */
  GstRtpccTimedTask task;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_fec_dec_parent_class parent_class
G_DEFINE_TYPE (GstFecDec, gst_fec_dec, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (fecdec, "fecdec", GST_RANK_NONE,
    GST_TYPE_FEC_DEC);

GType
gst_fec_dec_mode_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GST_FEC_DEC_MODE_RTPCC, "fecenc format, own SSRC / sequence space",
        "rtpcc"},
    {GST_FEC_DEC_MODE_ULPFEC, "RFC 5109 ULPFEC in the media sequence space "
          "(rtpulpfecenc)", "ulpfec"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstFecDecMode", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

static void
reset_decoder (GstFecDec * self)
{
  RtpccFecDecoderConfig cfg;

  rtpcc_fec_decoder_free (self->dec);
  rtpcc_fec_decoder_config_init (&cfg);
  cfg.deadline = RTPCC_MSEC (self->deadline);
  cfg.ulpfec = self->mode == GST_FEC_DEC_MODE_ULPFEC;
  cfg.fec_pt = (guint8) self->pt;
  self->dec = rtpcc_fec_decoder_new (&cfg);
  self->last_pts = GST_CLOCK_TIME_NONE;
}

static RtpccTime
get_now (GstFecDec * self, GstBuffer * buf)
{
  return gst_rtpcc_now (GST_ELEMENT_CAST (self), &self->clock_cache,
      &self->segment, buf, &self->last_now);
}

/* Everything the decoder releases at @now, as buffers (lock held). @in
 * (mapped as @in_map), if any, is the buffer just pushed, which the
 * decoder stored as @in_stored (if it did). Each packet
 * rebuilt adds an "rtpcc-repaired" event to @repaired, for rtpccsrc
 * upstream: the receiver reports it received after repair (RFC 5725).
 * One per packet rebuilt, so never more than the packets lost. */
static void
collect (GstFecDec * self, RtpccTime now, GstFecOut * out, GstBuffer * in,
    const GstMapInfo * in_map, GBytes * in_stored, GQueue * repaired)
{
  GBytes *b;
  gboolean rec;
  guint64 pts;

  while ((b = rtpcc_fec_decoder_pop_tagged (self->dec, now, &rec, &pts))) {
    gsize len;
    const guint8 *data = g_bytes_get_data (b, &len);
    GstBuffer *buf;

    if (in && !rec && (b == in_stored || (len == in_map->size
                && memcmp (data, in_map->data, len) == 0))) {
      /* the packet just pushed, released at once (the usual case): the
       * input buffer goes on, rather than a new one around the
       * decoder's copy */
      buf = gst_buffer_ref (in);
      in = NULL;
      g_bytes_unref (b);
      gst_fec_out_add (out, buf);
      continue;
    }
    buf = gst_buffer_new_wrapped_bytes (b);
    /* a rebuilt packet gets the arrival PTS of the packet that completed
     * it; an original keeps its own (its tag) */
    GST_BUFFER_PTS (buf) = rec ? self->last_pts : (GstClockTime) pts;
    if (rec && len >= 12) {
      GST_DEBUG_OBJECT (self, "recovered a packet");
      g_queue_push_tail (repaired,
          gst_rtpcc_repaired_event_new (GST_READ_UINT32_BE (data + 8),
              GST_READ_UINT16_BE (data + 2)));
    }
    g_bytes_unref (b);
    gst_fec_out_add (out, buf);
  }
}

/* The "rtpcc-repaired" events collect gathered, upstream (no lock held). */
static void
push_repaired (GstFecDec * self, GQueue * repaired)
{
  GstEvent *ev;

  while ((ev = g_queue_pop_head (repaired)))
    gst_pad_push_event (self->sinkpad, ev);
}

static GstFlowReturn
gst_fec_dec_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstFecDec *self = GST_FEC_DEC_CAST (parent);
  GstFecOut out = GST_FEC_OUT_INIT;
  GQueue repaired = G_QUEUE_INIT;
  GstEvent *window = NULL;
  GstMapInfo map;
  RtpccFecInput r;
  RtpccTime now;

  if (!gst_rtpcc_buffer_map_read (buf, &map)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  g_mutex_lock (&self->lock);
  if (self->announce) {
    /* how long packets may be held back for a repair: playoutbuffer adds
     * it to its delay (sticky, so it reaches it before this buffer) */
    window = gst_rtpcc_fec_window_event_new (self->deadline * GST_MSECOND);
    self->announce = FALSE;
  }
  now = get_now (self, buf);
  if (GST_BUFFER_PTS_IS_VALID (buf))
    self->last_pts = GST_BUFFER_PTS (buf);
  /* the library tells FEC from media and reads the headers */
  r = rtpcc_fec_decoder_push (self->dec, map.data, map.size, now,
      GST_BUFFER_PTS (buf));
  if (r == RTPCC_FEC_INPUT_PASS) {
    gst_fec_out_add (&out, gst_buffer_ref (buf));
  } else if (r == RTPCC_FEC_INPUT_FEC_CORRUPT) {
    GST_LOG_OBJECT (self, "dropped a malformed FEC packet");
  }
  collect (self, now, &out, buf, &map,
      rtpcc_fec_decoder_last_stored (self->dec), &repaired);
  /* a new hole may need the timer earlier */
  gst_rtpcc_timed_task_kick (&self->task,
      rtpcc_fec_decoder_next_timeout (self->dec));
  g_mutex_unlock (&self->lock);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);

  if (window)
    gst_pad_push_event (self->srcpad, window);
  push_repaired (self, &repaired);
  return gst_fec_out_push (self->srcpad, &out);
}

static RtpccTime
dec_next_time (gpointer data)
{
  GstFecDec *self = data;

  return rtpcc_fec_decoder_next_timeout (self->dec);
}

static GstFlowReturn
dec_release (gpointer data)
{
  GstFecDec *self = data;
  GstFecOut out = GST_FEC_OUT_INIT;
  GQueue repaired = G_QUEUE_INIT;

  g_mutex_lock (&self->lock);
  if (!self->task.flushing)
    collect (self, get_now (self, NULL), &out, NULL, NULL, NULL, &repaired);
  g_mutex_unlock (&self->lock);
  push_repaired (self, &repaired);
  return gst_fec_out_push (self->srcpad, &out);
}

/* Sleeps until the oldest hole's deadline, then releases what waited for
 * it: holes are given up in time when no packet comes. */
static void
gst_fec_dec_loop (gpointer data)
{
  GstFecDec *self = data;

  gst_rtpcc_timed_task_release_due (&self->task, self->sinkpad,
      dec_next_time, dec_release, self);
}

static gboolean
gst_fec_dec_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstFecDec *self = GST_FEC_DEC (parent);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  /* a deactivated pad forgot its sticky events: announce the deadline
   * again with the next buffer */
  g_mutex_lock (&self->lock);
  self->announce = TRUE;
  g_mutex_unlock (&self->lock);
  return gst_rtpcc_timed_task_activate (&self->task, active,
      gst_fec_dec_loop, self);
}

static gboolean
gst_fec_dec_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFecDec *self = GST_FEC_DEC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEGMENT:
      g_mutex_lock (&self->lock);
      gst_event_copy_segment (event, &self->segment);
      g_mutex_unlock (&self->lock);
      break;
    case GST_EVENT_EOS:{
      GstFecOut out = GST_FEC_OUT_INIT;
      GQueue repaired = G_QUEUE_INIT;

      /* nothing more will arrive: every hole is final */
      g_mutex_lock (&self->lock);
      collect (self, RTPCC_TIME_INFINITE, &out, NULL, NULL, NULL,
          &repaired);
      g_mutex_unlock (&self->lock);
      push_repaired (self, &repaired);
      gst_fec_out_push (self->srcpad, &out);
      break;
    }
    case GST_EVENT_FLUSH_START:
      gst_rtpcc_timed_task_flush_start (&self->task);
      break;
    case GST_EVENT_FLUSH_STOP:
      /* the task is flushing: it does not touch the decoder */
      g_mutex_lock (&self->lock);
      reset_decoder (self);
      g_mutex_unlock (&self->lock);
      gst_rtpcc_timed_task_flush_stop (&self->task, gst_fec_dec_loop, self);
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* Upstream events (playoutbuffer's "rtpcc-playout-state" several times a
 * second, "rtpcc-discard", QoS, latency) go to the one sink pad, without
 * the default handler's iteration over the internal links. */
static gboolean
gst_fec_dec_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFecDec *self = GST_FEC_DEC_CAST (parent);

  return gst_pad_push_event (self->sinkpad, event);
}

static GstStructure *
make_stats (GstFecDec * self)
{
  RtpccFecDecoderStats st;

  rtpcc_fec_decoder_get_stats (self->dec, &st);
  return gst_structure_new ("application/x-fecdec-stats",
      "media-packets", G_TYPE_UINT64, st.media_packets,
      "fec-packets", G_TYPE_UINT64, st.fec_packets,
      "fec-corrupt", G_TYPE_UINT64, st.fec_corrupt,
      "bad-recoveries", G_TYPE_UINT64, st.bad_recoveries,
      "recovered", G_TYPE_UINT64, st.recovered,
      "late-recovered", G_TYPE_UINT64, st.late_recovered,
      "unrecoverable", G_TYPE_UINT64, st.unrecoverable,
      "late-media", G_TYPE_UINT64, st.late_media,
      "duplicates", G_TYPE_UINT64, st.duplicates,
      "pushed", G_TYPE_UINT64, st.pushed,
      "passed", G_TYPE_UINT64, st.passed + st.not_rtp,
      "refused", G_TYPE_UINT64, st.refused,
      "restarts", G_TYPE_UINT64, st.restarts,
      "ssrc-changes", G_TYPE_UINT64, st.ssrc_changes, NULL);
}

static void
gst_fec_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFecDec *self = GST_FEC_DEC (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_PT:
      self->pt = g_value_get_uint (value);
      rtpcc_fec_decoder_set_fec_pt (self->dec, (guint8) self->pt);
      break;
    case PROP_MODE:
      /* a different wire format: start over */
      self->mode = (GstFecDecMode) g_value_get_enum (value);
      reset_decoder (self);
      break;
    case PROP_DEADLINE:
      self->deadline = g_value_get_uint (value);
      rtpcc_fec_decoder_set_deadline (self->dec, RTPCC_MSEC (self->deadline));
      self->announce = TRUE;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_fec_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFecDec *self = GST_FEC_DEC (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_PT:
      g_value_set_uint (value, self->pt);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_DEADLINE:
      g_value_set_uint (value, self->deadline);
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

static void
gst_fec_dec_finalize (GObject * object)
{
  GstFecDec *self = GST_FEC_DEC (object);

  rtpcc_fec_decoder_free (self->dec);
  gst_rtpcc_timed_task_clear (&self->task);
  gst_rtpcc_clock_cache_clear (&self->clock_cache);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_fec_dec_class_init (GstFecDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_fec_dec_debug, "fecdec", 0,
      "FEC decoder (own SSRC / sequence space, or ULPFEC)");

  gobject_class->set_property = gst_fec_dec_set_property;
  gobject_class->get_property = gst_fec_dec_get_property;
  gobject_class->finalize = gst_fec_dec_finalize;

  /**
   * GstFecDec:pt:
   *
   * Payload type that marks FEC packets, 0 to 127; everything else is
   * media. Must match fecenc's pt. Can be changed in any state.
   */
  g_object_class_install_property (gobject_class, PROP_PT,
      g_param_spec_uint ("pt", "Payload type", "FEC payload type",
          0, 127, DEFAULT_PT, flags));
  /**
   * GstFecDec:mode:
   *
   * Wire format of the FEC packets: rtpcc (fecenc) or ulpfec (RFC 5109 as
   * rtpulpfecenc sends it). Can be changed in any state; a change resets
   * the decoder (packets held are dropped).
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "FEC wire format",
          GST_TYPE_FEC_DEC_MODE, DEFAULT_MODE, flags));
  /**
   * GstFecDec:deadline:
   *
   * Longest wait for a missing packet, in milliseconds (0 to 10000),
   * counted from the arrival of the first packet after it; 0 gives up on a
   * hole at once unless its repair is already there. A packet rebuilt
   * later is counted late-recovered and discarded. Can be changed in any
   * state.
   */
  g_object_class_install_property (gobject_class, PROP_DEADLINE,
      g_param_spec_uint ("deadline", "Deadline",
          "Longest wait for a missing packet, from the next packet's "
          "arrival (ms)", 0, 10000, DEFAULT_DEADLINE, flags));
  /**
   * GstFecDec:stats:
   *
   * An "application/x-fecdec-stats" structure of guint64 counts:
   * media-packets, fec-packets, fec-corrupt (malformed FEC dropped),
   * bad-recoveries, recovered (rebuilt in time and pushed), late-recovered
   * (rebuilt past the deadline: discarded), unrecoverable (holes given up),
   * late-media, duplicates, pushed, passed (other SSRCs and non-RTP),
   * refused (sequence jumps no packet confirmed: dropped), restarts
   * (sequence jumps confirmed: the window started over), ssrc-changes (the
   * stream moved to another SSRC: a sender restart).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Decoder statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "RTP FEC Decoder",
      "Codec/Depayloader/Network/RTP",
      "Recovers lost RTP packets from XOR, Reed-Solomon or RFC 5109 ULPFEC "
      "parity and pushes the media in sequence order", "gst-rtpcc developers");
  gst_type_mark_as_plugin_api (GST_TYPE_FEC_DEC_MODE, 0);
}

static void
gst_fec_dec_init (GstFecDec * self)
{
  g_mutex_init (&self->lock);
  self->pt = DEFAULT_PT;
  self->mode = DEFAULT_MODE;
  self->deadline = DEFAULT_DEADLINE;
  self->announce = TRUE;
  reset_decoder (self);
  gst_segment_init (&self->segment, GST_FORMAT_UNDEFINED);

  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_fec_dec_chain);
  gst_pad_set_event_function (self->sinkpad, gst_fec_dec_sink_event);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_activatemode_function (self->srcpad,
      gst_fec_dec_src_activate_mode);
  gst_pad_set_event_function (self->srcpad, gst_fec_dec_src_event);
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
  /* without a clock "now" is the buffers' running time: nothing to time */
  gst_rtpcc_timed_task_init (&self->task, GST_ELEMENT (self), self->srcpad,
      &self->lock, FALSE);
}

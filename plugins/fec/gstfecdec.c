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
 * the source pad when the deadline passes and nothing arrives.
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
  GstClockTime *pts;            /* [65536] by media seq: PTS to restore */
  GstClockTime last_pts;
  guint64 non_rtp;

  /* timer task: releases holes whose deadline passed while nothing arrives */
  GCond cond;
  gboolean flushing;
  GstClockID clock_id;
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
  self->dec = rtpcc_fec_decoder_new (&cfg);
  self->last_pts = GST_CLOCK_TIME_NONE;
  for (guint i = 0; i < 65536; i++)
    self->pts[i] = GST_CLOCK_TIME_NONE;
}

static RtpccTime
get_now (GstFecDec * self, GstBuffer * buf)
{
  return gst_fec_now (GST_ELEMENT (self), &self->segment, buf,
      &self->last_now);
}

/* Everything the decoder releases at @now, as buffers (lock held). */
static void
collect (GstFecDec * self, RtpccTime now, GList ** out)
{
  GBytes *b;
  gboolean rec;

  while ((b = rtpcc_fec_decoder_pop (self->dec, now, &rec)) != NULL) {
    gsize len;
    const guint8 *d = g_bytes_get_data (b, &len);
    guint16 seq = (guint16) ((d[2] << 8) | d[3]);
    GstBuffer *buf = gst_buffer_new_wrapped_bytes (b);

    /* a rebuilt packet gets the arrival PTS of the packet that completed
     * it; an original keeps its own */
    GST_BUFFER_PTS (buf) = rec ? self->last_pts : self->pts[seq];
    if (rec)
      GST_DEBUG_OBJECT (self, "recovered seq %u", seq);
    g_bytes_unref (b);
    *out = g_list_append (*out, buf);
  }
}

static GstFlowReturn
push_list (GstFecDec * self, GList * list)
{
  return gst_fec_push_list (self->srcpad, list);
}

static GstFlowReturn
gst_fec_dec_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstFecDec *self = GST_FEC_DEC (parent);
  GstMapInfo map;
  GList *out = NULL;
  GstBuffer *pass = NULL;
  RtpccTime now;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  g_mutex_lock (&self->lock);
  now = get_now (self, buf);
  if (GST_BUFFER_PTS_IS_VALID (buf))
    self->last_pts = GST_BUFFER_PTS (buf);
  if (map.size >= 12 && (map.data[1] & 0x7f) == self->pt) {
    if (!rtpcc_fec_decoder_push_fec (self->dec, map.data, map.size, now))
      GST_LOG_OBJECT (self, "dropped a malformed FEC packet");
  } else if (map.size < 12) {
    self->non_rtp++;
  } else {
    switch (rtpcc_fec_decoder_push_media (self->dec, map.data, map.size, now)) {
      case RTPCC_FEC_MEDIA_QUEUED:
        self->pts[(map.data[2] << 8) | map.data[3]] = GST_BUFFER_PTS (buf);
        break;
      case RTPCC_FEC_MEDIA_PASS:
        pass = gst_buffer_ref (buf);
        break;
      case RTPCC_FEC_MEDIA_DROPPED:
        break;
    }
  }
  collect (self, now, &out);
  /* a new hole may need the timer */
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);

  if (pass)
    out = g_list_prepend (out, pass);
  return push_list (self, out);
}

/* called with the lock held: reads the current dec (a property change
 * may replace it while the task waits) */
static RtpccTime
dec_next_time (gpointer data)
{
  GstFecDec *self = data;

  return rtpcc_fec_decoder_next_timeout (self->dec);
}

/* Waits on the element clock for the oldest hole's deadline, then releases
 * under the sink pad's stream lock so pushes never interleave with chain. */
static void
gst_fec_dec_loop (gpointer data)
{
  GstFecDec *self = data;
  GstFecWait w = { &self->lock, &self->cond, &self->flushing,
    &self->clock_id
  };
  GList *out = NULL;
  GstFlowReturn ret;

  if (!gst_fec_wait_next (GST_ELEMENT (self), self->srcpad, &w,
          dec_next_time, self))
    return;

  GST_PAD_STREAM_LOCK (self->sinkpad);
  g_mutex_lock (&self->lock);
  if (!self->flushing)
    collect (self, get_now (self, NULL), &out);
  g_mutex_unlock (&self->lock);
  ret = push_list (self, out);
  GST_PAD_STREAM_UNLOCK (self->sinkpad);
  if (ret == GST_FLOW_FLUSHING)
    gst_pad_pause_task (self->srcpad);
}

static gboolean
gst_fec_dec_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstFecDec *self = GST_FEC_DEC (parent);
  GstFecWait w = { &self->lock, &self->cond, &self->flushing,
    &self->clock_id
  };

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  return gst_fec_task_activate (pad, &w, active, gst_fec_dec_loop, self);
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
      GList *out = NULL;

      /* nothing more will arrive: every hole is final */
      g_mutex_lock (&self->lock);
      collect (self, RTPCC_TIME_INFINITE, &out);
      g_mutex_unlock (&self->lock);
      push_list (self, out);
      break;
    }
    case GST_EVENT_FLUSH_START:
      g_mutex_lock (&self->lock);
      self->flushing = TRUE;
      if (self->clock_id)
        gst_clock_id_unschedule (self->clock_id);
      g_cond_signal (&self->cond);
      g_mutex_unlock (&self->lock);
      break;
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock (&self->lock);
      reset_decoder (self);
      self->flushing = FALSE;
      g_mutex_unlock (&self->lock);
      gst_pad_start_task (self->srcpad, gst_fec_dec_loop, self, NULL);
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
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
      "passed", G_TYPE_UINT64, st.passed + self->non_rtp, NULL);
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
      break;
    case PROP_MODE:
      /* a different wire format: start over */
      self->mode = (GstFecDecMode) g_value_get_enum (value);
      reset_decoder (self);
      break;
    case PROP_DEADLINE:
      self->deadline = g_value_get_uint (value);
      rtpcc_fec_decoder_set_deadline (self->dec, RTPCC_MSEC (self->deadline));
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
  g_free (self->pts);
  g_cond_clear (&self->cond);
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
   * late-media, duplicates, pushed, passed (other SSRCs and non-RTP).
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
  g_cond_init (&self->cond);
  self->pt = DEFAULT_PT;
  self->mode = DEFAULT_MODE;
  self->deadline = DEFAULT_DEADLINE;
  self->pts = g_new (GstClockTime, 65536);
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
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}

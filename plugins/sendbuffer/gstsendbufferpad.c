/* GstSendBufferPad (gstsendbufferpad.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <rtpcc/feedback/rtpext.h>

#include "gstsendbufferpad.h"
#include "gstrtpccmap.h"

GST_DEBUG_CATEGORY_EXTERN (gst_send_buffer_debug);
#define GST_CAT_DEFAULT gst_send_buffer_debug

#define DEFAULT_PRIORITY -1

struct _GstSendBufferPad
{
  GstPad parent;

  gint priority;                /* property; -1 = from the caps */
  gboolean audio;               /* caps say media=audio */
  RtpccSendbufCodec codec;      /* from encoding-name: frame types */
  GstSegment segment;
  gboolean eos;
};

enum
{
  PROP_PAD_0,
  PROP_PAD_PRIORITY,
};

G_DEFINE_TYPE (GstSendBufferPad, gst_send_buffer_pad, GST_TYPE_PAD);

static void
gst_send_buffer_pad_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSendBufferPad *pad = GST_SEND_BUFFER_PAD (object);

  switch (prop_id) {
    case PROP_PAD_PRIORITY:
      GST_OBJECT_LOCK (pad);
      pad->priority = g_value_get_int (value);
      GST_OBJECT_UNLOCK (pad);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_send_buffer_pad_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstSendBufferPad *pad = GST_SEND_BUFFER_PAD (object);

  switch (prop_id) {
    case PROP_PAD_PRIORITY:
      GST_OBJECT_LOCK (pad);
      g_value_set_int (value, pad->priority);
      GST_OBJECT_UNLOCK (pad);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_send_buffer_pad_class_init (GstSendBufferPadClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->set_property = gst_send_buffer_pad_set_property;
  gobject_class->get_property = gst_send_buffer_pad_get_property;

  /**
   * GstSendBufferPad:priority:
   *
   * Priority of this pad's packets, 0 to 7, higher is sent first (except
   * in the fifo and ring baselines). -1 (default): 4 when the caps say
   * media=audio, else 2, so audio goes before video. Can be changed in any
   * state; it applies to packets arriving after the change.
   */
  g_object_class_install_property (gobject_class, PROP_PAD_PRIORITY,
      g_param_spec_int ("priority", "Priority",
          "Priority 0..7 (higher first); -1 = audio 4, other media 2",
          -1, RTPCC_SENDBUF_MAX_PRIORITY, DEFAULT_PRIORITY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
}

static void
gst_send_buffer_pad_init (GstSendBufferPad * pad)
{
  pad->priority = DEFAULT_PRIORITY;
  gst_segment_init (&pad->segment, GST_FORMAT_UNDEFINED);
}

static guint
pad_priority (GstSendBufferPad * pad)
{
  guint p;

  GST_OBJECT_LOCK (pad);
  if (pad->priority >= 0)
    p = (guint) pad->priority;
  else
    p = pad->audio ? RTPCC_SENDBUF_PRIORITY_AUDIO :
        RTPCC_SENDBUF_PRIORITY_VIDEO;
  GST_OBJECT_UNLOCK (pad);
  return p;
}

gboolean
gst_send_buffer_pad_describe (GstSendBufferPad * pad, GstBuffer * buf,
    RtpccSendbufPacket * p, GstClockTime * running_time)
{
  GstMapInfo map;
  RtpccRtpLayout rtp;
  RtpccSendbufCodec codec;
  GstClockTime ts;

  memset (p, 0, sizeof (*p));
  /* the library's parser on a plain mapping: gst_rtp_buffer_map costs
   * several times as much per packet */
  if (!gst_rtpcc_buffer_map_read (buf, &map))
    return FALSE;
  if (!rtpcc_rtp_parse_layout (map.data, map.size, &rtp)) {
    gst_buffer_unmap (buf, &map);
    return FALSE;
  }
  p->ssrc = rtp.ssrc;
  p->seq = rtp.seq;
  p->rtp_ts = rtp.timestamp;
  p->marker = rtp.marker;
  GST_OBJECT_LOCK (pad);
  codec = pad->codec;
  GST_OBJECT_UNLOCK (pad);
  if (codec != RTPCC_SENDBUF_CODEC_OTHER) {
    /* stock payloaders do not flag delta units: read the payload (an
     * AUD or SEI packet tells nothing; the frame's other packets do) */
    p->type_unknown = !rtpcc_sendbuf_classify (codec,
        map.data + rtp.header_len, rtp.payload_len, &p->keyframe,
        &p->droppable);
    GST_TRACE_OBJECT (pad, "seq %u: key %d droppable %d unknown %d", p->seq,
        p->keyframe, p->droppable, p->type_unknown);
  } else {
    p->keyframe = !GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
    p->droppable = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DROPPABLE);
  }
  gst_buffer_unmap (buf, &map);
  p->size = (guint) MIN (gst_buffer_get_size (buf), G_MAXUINT);
  p->priority = pad_priority (pad);

  *running_time = GST_CLOCK_TIME_NONE;
  ts = GST_BUFFER_PTS_IS_VALID (buf) ? GST_BUFFER_PTS (buf) :
      GST_BUFFER_DTS (buf);
  GST_OBJECT_LOCK (pad);
  if (GST_CLOCK_TIME_IS_VALID (ts) && pad->segment.format == GST_FORMAT_TIME)
    *running_time = gst_segment_to_running_time (&pad->segment,
        GST_FORMAT_TIME, ts);
  GST_OBJECT_UNLOCK (pad);
  return TRUE;
}

void
gst_send_buffer_pad_track_event (GstSendBufferPad * pad, GstEvent * event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      const GstStructure *s;

      gst_event_parse_caps (event, &caps);
      s = gst_caps_get_structure (caps, 0);
      GST_OBJECT_LOCK (pad);
      pad->audio = g_strcmp0 (gst_structure_get_string (s, "media"),
          "audio") == 0;
      pad->codec = rtpcc_sendbuf_codec_from_name (gst_structure_get_string (s,
              "encoding-name"));
      GST_OBJECT_UNLOCK (pad);
      break;
    }
    case GST_EVENT_SEGMENT:{
      const GstSegment *seg;

      gst_event_parse_segment (event, &seg);
      GST_OBJECT_LOCK (pad);
      gst_segment_copy_into (seg, &pad->segment);
      GST_OBJECT_UNLOCK (pad);
      break;
    }
    case GST_EVENT_STREAM_START:
    case GST_EVENT_EOS:
      GST_OBJECT_LOCK (pad);
      pad->eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;
      GST_OBJECT_UNLOCK (pad);
      break;
    case GST_EVENT_FLUSH_STOP:
      GST_OBJECT_LOCK (pad);
      pad->eos = FALSE;
      gst_segment_init (&pad->segment, GST_FORMAT_UNDEFINED);
      GST_OBJECT_UNLOCK (pad);
      break;
    default:
      break;
  }
}

gboolean
gst_send_buffer_pad_is_eos (GstSendBufferPad * pad)
{
  gboolean eos;

  GST_OBJECT_LOCK (pad);
  eos = pad->eos;
  GST_OBJECT_UNLOCK (pad);
  return eos;
}

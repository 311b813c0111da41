/* Frame types from the RTP payload (frametype.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/frametype.h>

RtpccSendbufCodec
rtpcc_sendbuf_codec_from_name (const gchar * name)
{
  if (name && g_ascii_strcasecmp (name, "H264") == 0)
    return RTPCC_SENDBUF_CODEC_H264;
  if (name && g_ascii_strcasecmp (name, "VP8") == 0)
    return RTPCC_SENDBUF_CODEC_VP8;
  return RTPCC_SENDBUF_CODEC_OTHER;
}

/* One H.264 NAL header byte: TRUE if it decides something. */
static gboolean
h264_nal (guint8 hdr, gboolean * key, gboolean * droppable)
{
  guint type = hdr & 0x1f, nri = (hdr >> 5) & 3;

  switch (type) {
    case 5:                    /* IDR slice */
    case 7:                    /* SPS */
    case 8:                    /* PPS */
      *key = TRUE;
      *droppable = FALSE;
      return TRUE;
    case 1:                    /* non-IDR slice */
    case 2:                    /* slice data partition A */
      *key = FALSE;
      *droppable = nri == 0;
      return TRUE;
    default:
      return FALSE;
  }
}

static gboolean
classify_h264 (const guint8 * d, gsize len, gboolean * keyframe,
    gboolean * droppable)
{
  guint type;
  gboolean key = FALSE, drop = TRUE, known = FALSE;

  if (len < 1)
    return FALSE;
  type = d[0] & 0x1f;
  if (type >= 1 && type <= 23) {
    known = h264_nal (d[0], &key, &drop);
  } else if (type == 24) {      /* STAP-A: 16-bit size + NAL, repeated */
    gsize pos = 1;
    while (pos + 2 < len) {
      gsize n = ((gsize) d[pos] << 8) | d[pos + 1];
      gboolean k = FALSE, dr = TRUE;
      if (n == 0 || pos + 2 + n > len)
        break;
      if (h264_nal (d[pos + 2], &k, &dr)) {
        known = TRUE;
        key = key || k;
        drop = drop && dr;
      }
      pos += 2 + n;
    }
  } else if (type == 28 && len >= 2) { /* FU-A: type in the FU header */
    known = h264_nal ((guint8) ((d[0] & 0xe0) | (d[1] & 0x1f)), &key, &drop);
  }
  if (!known)
    return FALSE;
  *keyframe = key;
  *droppable = drop;
  return TRUE;
}

static gboolean
classify_vp8 (const guint8 * d, gsize len, gboolean * keyframe,
    gboolean * droppable)
{
  gsize pos = 1;
  gboolean start, non_ref;

  if (len < 1)
    return FALSE;
  non_ref = (d[0] >> 5) & 1;    /* N */
  start = ((d[0] >> 4) & 1) && (d[0] & 0x07) == 0;     /* S, PID 0 */
  if (d[0] & 0x80) {            /* X: extension byte */
    guint8 x;
    if (len < 2)
      return FALSE;
    x = d[1];
    pos = 2;
    if (x & 0x80) {             /* I: PictureID, 7 or 15 bits */
      if (pos >= len)
        return FALSE;
      pos += (d[pos] & 0x80) ? 2 : 1;
    }
    if (x & 0x40)               /* L: TL0PICIDX */
      pos++;
    if (x & 0x30)               /* T or K: TID/Y/KEYIDX */
      pos++;
  }
  *droppable = non_ref;
  if (start) {
    if (pos >= len)
      return FALSE;
    *keyframe = (d[pos] & 0x01) == 0;   /* P bit: 0 = key frame */
    if (*keyframe)
      *droppable = FALSE;
    return TRUE;
  }
  /* continuation: only the N bit is known */
  return non_ref;
}

gboolean
rtpcc_sendbuf_classify (RtpccSendbufCodec codec, const guint8 * payload,
    gsize len, gboolean * keyframe, gboolean * droppable)
{
  gboolean k = FALSE, d = FALSE;
  gboolean known;

  if (!payload)
    return FALSE;
  switch (codec) {
    case RTPCC_SENDBUF_CODEC_H264:
      known = classify_h264 (payload, len, &k, &d);
      break;
    case RTPCC_SENDBUF_CODEC_VP8:
      known = classify_vp8 (payload, len, &k, &d);
      break;
    default:
      return FALSE;
  }
  if (known) {
    *keyframe = k;
    *droppable = d;
  }
  return known;
}

/* TRUE if a NAL header byte is an IDR slice's. */
static gboolean
h264_idr (guint8 hdr)
{
  return (hdr & 0x1f) == 5;
}

gboolean
rtpcc_frametype_has_keyframe (RtpccSendbufCodec codec,
    const guint8 * payload, gsize len)
{
  gboolean k = FALSE, d = FALSE;

  if (!payload || len < 1)
    return FALSE;
  if (codec == RTPCC_SENDBUF_CODEC_VP8)
    return classify_vp8 (payload, len, &k, &d) && k;
  if (codec != RTPCC_SENDBUF_CODEC_H264)
    return FALSE;
  switch (payload[0] & 0x1f) {
    case 24:{                  /* STAP-A */
      gsize pos = 1;
      while (pos + 2 < len) {
        gsize n = ((gsize) payload[pos] << 8) | payload[pos + 1];
        if (n == 0 || pos + 2 + n > len)
          return FALSE;
        if (h264_idr (payload[pos + 2]))
          return TRUE;
        pos += 2 + n;
      }
      return FALSE;
    }
    case 28:                   /* FU-A */
      return len >= 2 && h264_idr (payload[1]);
    default:
      return h264_idr (payload[0]);
  }
}

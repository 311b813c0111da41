/* REMB (draft-alvestrand-rmcat-remb-03): build and parse.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "remb.h"
#include "rtcp.h"
#include "fbheader.h"

#include <string.h>

#define MANTISSA_BITS 18
#define MANTISSA_MAX ((1u << MANTISSA_BITS) - 1)
#define REMB_FIXED 8            /* identifier, count, exponent, mantissa */

static const guint8 remb_id[4] = { 'R', 'E', 'M', 'B' };

void
rtpcc_remb_encode_bitrate (guint64 bitrate, guint8 * exp, guint32 * mantissa)
{
  guint8 e = 0;

  while ((bitrate >> e) > MANTISSA_MAX)
    e++;
  *exp = e;
  *mantissa = (guint32) (bitrate >> e);
}

gsize
rtpcc_remb_size (guint n_ssrcs)
{
  if (n_ssrcs > RTPCC_REMB_MAX_SSRCS)
    return 0;
  return RTPCC_FB_HEADER_SIZE + REMB_FIXED + (gsize) n_ssrcs * 4;
}

gsize
rtpcc_remb_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint64 bitrate, const guint32 * ssrcs, guint n_ssrcs)
{
  gsize len = rtpcc_remb_size (n_ssrcs);
  guint8 exp;
  guint32 mantissa;

  if (buf == NULL || len == 0 || len > max || (n_ssrcs > 0 && !ssrcs))
    return 0;
  rtpcc_remb_encode_bitrate (bitrate, &exp, &mantissa);
  rtpcc_fb_write_header (buf, len, RTPCC_RTCP_PSFB, RTPCC_PSFB_FMT_AFB,
      sender_ssrc, 0);
  memcpy (buf + RTPCC_FB_HEADER_SIZE, remb_id, 4);
  rtpcc_wr32 (buf + RTPCC_FB_HEADER_SIZE + 4, (n_ssrcs << 24)
      | ((guint32) exp << MANTISSA_BITS) | mantissa);
  for (guint i = 0; i < n_ssrcs; i++)
    rtpcc_wr32 (buf + RTPCC_FB_HEADER_SIZE + REMB_FIXED + 4 * i, ssrcs[i]);
  return len;
}

gboolean
rtpcc_remb_parse (const guint8 * pkt, gsize len, RtpccRemb * out,
    GError ** error)
{
  const guint8 *fci;
  gsize fci_len;
  guint32 w;
  guint n, exp;
  guint64 mantissa;

  if (!rtpcc_fb_check_header (pkt, len, RTPCC_RTCP_PSFB, RTPCC_PSFB_FMT_AFB,
          "REMB", &fci_len, error))
    return FALSE;
  fci = pkt + RTPCC_FB_HEADER_SIZE;
  if (fci_len < REMB_FIXED || memcmp (fci, remb_id, 4) != 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "REMB: not a REMB (no 'REMB' identifier)");
    return FALSE;
  }
  w = rtpcc_rd32 (fci + 4);
  n = w >> 24;
  if (fci_len != REMB_FIXED + (gsize) n * 4) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "REMB: %u SSRCs announced, %" G_GSIZE_FORMAT " FCI bytes", n,
        fci_len);
    return FALSE;
  }
  exp = (w >> MANTISSA_BITS) & 0x3F;
  mantissa = w & MANTISSA_MAX;
  /* 18 bits shifted by up to 63: refuse what 64 bits cannot hold */
  if (mantissa != 0 && exp > 64 - MANTISSA_BITS
      && (mantissa >> (64 - exp)) != 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "REMB: bit rate %" G_GUINT64_FORMAT "·2^%u past 2^64", mantissa, exp);
    return FALSE;
  }
  out->sender_ssrc = rtpcc_rd32 (pkt + 4);
  out->bitrate = mantissa << exp;
  out->n_ssrcs = n;
  for (guint i = 0; i < n; i++)
    out->ssrcs[i] = rtpcc_rd32 (fci + REMB_FIXED + 4 * i);
  return TRUE;
}

gboolean
rtpcc_remb_names (const RtpccRemb * remb, guint32 ssrc)
{
  for (guint i = 0; i < remb->n_ssrcs; i++)
    if (remb->ssrcs[i] == ssrc)
      return TRUE;
  return FALSE;
}

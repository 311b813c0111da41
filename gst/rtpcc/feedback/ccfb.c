/* RFC 8888 Congestion Control Feedback: build and parse.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "ccfb.h"
#include "rtcp.h"
#include "bytes.h"

#include <string.h>

/* header + sender SSRC + report timestamp */
#define CCFB_FIXED 12
/* media SSRC + begin_seq + num_reports */
#define CCFB_BLOCK_HDR 8

static gsize
metrics_bytes (guint num_reports)
{
  /* 16 bits each, padded to 32 bits */
  return ((gsize) num_reports * 2 + 3) & ~(gsize) 3;
}

gsize
rtpcc_ccfb_size (const RtpccCcfbBlockIn * blocks, guint n_blocks)
{
  gsize len = CCFB_FIXED;
  guint i;

  if (n_blocks > 0 && blocks == NULL)
    return 0;
  for (i = 0; i < n_blocks; i++) {
    if (blocks[i].num_reports > RTPCC_CCFB_MAX_REPORTS)
      return 0;
    len += CCFB_BLOCK_HDR + metrics_bytes (blocks[i].num_reports);
    /* the 16-bit length field counts 32-bit words minus one */
    if (len > (gsize) (G_MAXUINT16 + 1) * 4)
      return 0;
  }
  return len;
}

gsize
rtpcc_ccfb_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 report_timestamp, const RtpccCcfbBlockIn * blocks,
    guint n_blocks)
{
  gsize len = rtpcc_ccfb_size (blocks, n_blocks), off;
  guint i, j;

  if (buf == NULL || len == 0 || len > max)
    return 0;
  for (i = 0; i < n_blocks; i++)
    if (blocks[i].num_reports > 0 && blocks[i].metrics == NULL)
      return 0;

  buf[0] = 0x80 | RTPCC_CCFB_FMT;
  buf[1] = RTPCC_RTCP_RTPFB;
  rtpcc_wr16 (buf + 2, (guint16) (len / 4 - 1));
  rtpcc_wr32 (buf + 4, sender_ssrc);
  off = 8;
  for (i = 0; i < n_blocks; i++) {
    const RtpccCcfbBlockIn *b = &blocks[i];

    rtpcc_wr32 (buf + off, b->media_ssrc);
    rtpcc_wr16 (buf + off + 4, b->begin_seq);
    rtpcc_wr16 (buf + off + 6, b->num_reports);
    off += CCFB_BLOCK_HDR;
    for (j = 0; j < b->num_reports; j++) {
      const RtpccCcfbMetric *m = &b->metrics[j];
      guint16 v = 0;

      if (m->received)
        v = (guint16) (0x8000 | ((m->ecn & 0x3) << 13) | (m->ato & 0x1fff));
      rtpcc_wr16 (buf + off, v);
      off += 2;
    }
    if (b->num_reports & 1) {
      rtpcc_wr16 (buf + off, 0);
      off += 2;
    }
  }
  rtpcc_wr32 (buf + off, report_timestamp);
  off += 4;
  g_assert (off == len);
  return len;
}

RtpccCcfb *
rtpcc_ccfb_parse (const guint8 * pkt, gsize len, GError ** error)
{
  gsize end, off, total = 0, alloc;
  guint n_blocks = 0, i, j;
  RtpccCcfb *fb;
  RtpccCcfbMetric *metrics;

  if (pkt == NULL || len < CCFB_FIXED) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "CCFB: %" G_GSIZE_FORMAT " bytes, need at least %d", len, CCFB_FIXED);
    return NULL;
  }
  if ((pkt[0] >> 6) != 2) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "CCFB: RTP version %u, expected 2", pkt[0] >> 6);
    return NULL;
  }
  if (pkt[1] != RTPCC_RTCP_RTPFB) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "CCFB: packet type %u, expected %u", pkt[1], RTPCC_RTCP_RTPFB);
    return NULL;
  }
  if ((pkt[0] & 0x1f) != RTPCC_CCFB_FMT) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "CCFB: FMT %u, expected %u", pkt[0] & 0x1f, RTPCC_CCFB_FMT);
    return NULL;
  }
  if (((gsize) rtpcc_rd16 (pkt + 2) + 1) * 4 != len) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "CCFB: length field says %u bytes, packet has %" G_GSIZE_FORMAT,
        ((guint) rtpcc_rd16 (pkt + 2) + 1) * 4, len);
    return NULL;
  }

  end = len;
  if (pkt[0] & 0x20) {
    guint8 pad = pkt[len - 1];
    /* RFC 3550 §6.4.1: the count includes itself and is a multiple of 4 */
    if (pad == 0 || (pad & 3) != 0 || pad > len - CCFB_FIXED) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "CCFB: bad padding count %u", pad);
      return NULL;
    }
    end -= pad;
  }

  /* pass 1: validate the block structure and count what to allocate */
  off = 8;
  while (off < end - 4) {
    guint num;
    gsize mlen;

    if (end - 4 - off < CCFB_BLOCK_HDR) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "CCFB: truncated report block at byte %" G_GSIZE_FORMAT, off);
      return NULL;
    }
    num = rtpcc_rd16 (pkt + off + 6);
    if (num > RTPCC_CCFB_MAX_REPORTS) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "CCFB: num_reports %u over the limit of %d", num,
          RTPCC_CCFB_MAX_REPORTS);
      return NULL;
    }
    mlen = metrics_bytes (num);
    if (mlen > end - 4 - off - CCFB_BLOCK_HDR) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "CCFB: num_reports %u runs past the report timestamp", num);
      return NULL;
    }
    off += CCFB_BLOCK_HDR + mlen;
    n_blocks++;
    total += num;
  }
  /* blocks are whole 32-bit words and end is word-aligned, so the loop can
   * only stop exactly at the report timestamp */
  g_assert (off == end - 4);

  /* pass 2: one allocation holds the struct, the blocks and the metrics;
   * zeroed by hand (padding included, so parses compare with memcmp):
   * calloc skips the allocator's fast path, and this runs per report */
  alloc = sizeof (RtpccCcfb) + n_blocks * sizeof (RtpccCcfbBlock) +
      total * sizeof (RtpccCcfbMetric);
  fb = g_malloc (alloc);
  memset (fb, 0, alloc);
  fb->sender_ssrc = rtpcc_rd32 (pkt + 4);
  fb->report_timestamp = rtpcc_rd32 (pkt + end - 4);
  fb->n_blocks = n_blocks;
  fb->blocks = n_blocks ? (RtpccCcfbBlock *) (fb + 1) : NULL;
  metrics = (RtpccCcfbMetric *) ((guint8 *) (fb + 1) +
      n_blocks * sizeof (RtpccCcfbBlock));

  off = 8;
  for (i = 0; i < n_blocks; i++) {
    RtpccCcfbBlock *b = &fb->blocks[i];

    b->media_ssrc = rtpcc_rd32 (pkt + off);
    b->begin_seq = rtpcc_rd16 (pkt + off + 4);
    b->num_reports = rtpcc_rd16 (pkt + off + 6);
    b->metrics = b->num_reports ? metrics : NULL;
    off += CCFB_BLOCK_HDR;
    for (j = 0; j < b->num_reports; j++) {
      guint16 v = rtpcc_rd16 (pkt + off + 2 * j);
      RtpccCcfbMetric *m = &metrics[j];

      m->seq = (guint16) (b->begin_seq + j);
      m->received = (v & 0x8000) != 0;
      /* liberal in what we accept: junk bits of a lost packet are dropped */
      m->ecn = m->received ? (v >> 13) & 0x3 : 0;
      m->ato = m->received ? v & 0x1fff : 0;
    }
    metrics += b->num_reports;
    off += metrics_bytes (b->num_reports);
  }
  return fb;
}

void
rtpcc_ccfb_free (RtpccCcfb * fb)
{
  g_free (fb);
}

guint16
rtpcc_ccfb_ato_from_delta (RtpccTime d)
{
  if (d == RTPCC_TIME_NONE || d < 0)
    return RTPCC_CCFB_ATO_UNAVAILABLE;
  /* "greater than 8189/1024 s" is over-range, even if it would round down
   * to 0x1FFD; the first test keeps d × 1024 from overflowing */
  if (d > RTPCC_SEC (9) || d * 1024 > RTPCC_CCFB_ATO_MAX * RTPCC_NSEC_PER_SEC)
    return RTPCC_CCFB_ATO_OVER_RANGE;
  return (guint16) ((d * 1024 + RTPCC_NSEC_PER_SEC / 2) / RTPCC_NSEC_PER_SEC);
}

RtpccTime
rtpcc_ccfb_ato_to_delta (guint16 ato)
{
  ato &= 0x1fff;
  if (ato == RTPCC_CCFB_ATO_OVER_RANGE)
    return RTPCC_TIME_INFINITE;
  if (ato == RTPCC_CCFB_ATO_UNAVAILABLE)
    return RTPCC_TIME_NONE;
  /* truncated: rounding 0x1FFD up would land past 8189/1024 s */
  return (RtpccTime) ato * RTPCC_NSEC_PER_SEC / 1024;
}

/* RTCP XR (RFC 3611): the packet around the report blocks — header,
 * padding, block framing — and the two APIs over it: RLE blocks only
 * (rtpcc_xr_parse / _write) and every block type (rtpcc_xr_report_*).
 * The blocks themselves are in xr-rle.c and xr-metrics.c.
 *
 *  |V=2|P|reserved |   PT=XR=207   |             length            |
 *  |                              SSRC                             |
 *  :                         report blocks                         :
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "xr-private.h"
#include <rtpcc/feedback/rtcp.h>
#include "bytes.h"

#include <string.h>


gboolean
rtpcc_xr_fail (GError ** error, const gchar * what)
{
  g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "XR: %s", what);
  return FALSE;
}

/* (xr-private.h) @exact is the strict parser's; the RLE-only parser and
 * the RRTR / DLRR finders take the lax reading, as it has always been. */
gboolean
rtpcc_xr_check_header (const guint8 * data, gsize len, gboolean exact,
    gsize * end, GError ** error)
{
  gsize plen;

  if (!data || len < RTPCC_XR_HEADER_SIZE)
    return rtpcc_xr_fail (error, "too short");
  if ((data[0] >> 6) != 2 || data[1] != RTPCC_RTCP_XR)
    return rtpcc_xr_fail (error, "not an XR packet");
  plen = ((gsize) rtpcc_rd16 (data + 2) + 1) * 4;
  if (plen > len)
    return rtpcc_xr_fail (error, "length past the buffer");
  if (exact && plen != len)
    return rtpcc_xr_fail (error, "length field disagrees with the packet");
  if (data[0] & 0x20) {
    guint pad = data[plen - 1];
    if (pad == 0 || pad > plen - RTPCC_XR_HEADER_SIZE
        || (exact && pad % 4 != 0))
      return rtpcc_xr_fail (error, "bad padding");
    plen -= pad;
  }
  *end = plen;
  return TRUE;
}

/* The block at *@off (before @end): its type and whole length. */
gboolean
rtpcc_xr_next_block (const guint8 * data, gsize end, gsize off, guint8 * bt,
    gsize * blen, GError ** error)
{
  if (end - off < RTPCC_XR_BLOCK_HEADER_SIZE)
    return rtpcc_xr_fail (error, "block length past the packet");
  *bt = data[off];
  *blen = ((gsize) rtpcc_rd16 (data + off + 2) + 1) * 4;
  if (*blen > end - off)
    return rtpcc_xr_fail (error, "block length past the packet");
  return TRUE;
}

void
rtpcc_xr_write_header (guint8 * buf, gsize total, guint32 sender_ssrc)
{
  buf[0] = 0x80;
  buf[1] = RTPCC_RTCP_XR;
  rtpcc_wr16 (buf + 2, (guint16) (total / 4 - 1));
  rtpcc_wr32 (buf + 4, sender_ssrc);
}

/* ---- Loss and Discard RLE only ----------------------------------------- */

void
rtpcc_xr_free (RtpccXr * xr)
{
  if (!xr)
    return;
  for (guint i = 0; i < xr->n_blocks; i++)
    g_free (xr->blocks[i].bits);
  g_free (xr->blocks);
  g_free (xr);
}

RtpccXr *
rtpcc_xr_parse (const guint8 * data, gsize len, GError ** error)
{
  RtpccXr *xr;
  gsize end, off, blen;
  guint bits_left = RTPCC_XR_MAX_BITS;
  guint8 bt;

  if (!rtpcc_xr_check_header (data, len, FALSE, &end, error))
    return NULL;

  xr = g_new0 (RtpccXr, 1);
  xr->ssrc = rtpcc_rd32 (data + 4);
  xr->blocks = g_new0 (RtpccXrRleBlock, RTPCC_XR_MAX_BLOCKS);
  for (off = RTPCC_XR_HEADER_SIZE; off < end; off += blen) {
    if (!rtpcc_xr_next_block (data, end, off, &bt, &blen, error))
      goto bad;
    if ((bt != RTPCC_XR_BT_LOSS_RLE && bt != RTPCC_XR_BT_DISCARD_RLE)
        || xr->n_blocks == RTPCC_XR_MAX_BLOCKS) {
      xr->n_skipped++;
      continue;
    }
    if (!rtpcc_xr_rle_read (data + off, blen, bt, &bits_left,
            &xr->blocks[xr->n_blocks], error))
      goto bad;
    xr->n_blocks++;
  }
  return xr;

bad:
  rtpcc_xr_free (xr);
  return NULL;
}

gsize
rtpcc_xr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccXrRleBlock * blocks, guint n_blocks)
{
  gsize total = RTPCC_XR_HEADER_SIZE, off;

  for (guint i = 0; i < n_blocks; i++) {
    const RtpccXrRleBlock *b = &blocks[i];
    if ((b->bt != RTPCC_XR_BT_LOSS_RLE && b->bt != RTPCC_XR_BT_DISCARD_RLE)
        || b->thinning != 0 || !rtpcc_xr_rle_range_ok (b->begin_seq,
            b->end_seq) || b->n_bits != rtpcc_xr_rle_range_bits (b->begin_seq,
            b->end_seq, 0) || (b->n_bits > 0 && !b->bits))
      return 0;
    total += rtpcc_xr_rle_block_size (b);
  }
  if (total > max || total / 4 - 1 > G_MAXUINT16)
    return 0;
  rtpcc_xr_write_header (buf, total, sender_ssrc);
  off = RTPCC_XR_HEADER_SIZE;
  for (guint i = 0; i < n_blocks; i++) {
    gsize bs = rtpcc_xr_rle_block_size (&blocks[i]);
    rtpcc_xr_rle_write (buf + off, bs, &blocks[i]);
    off += bs;
  }
  return total;
}

/* ---- Every block type -------------------------------------------------- */

void
rtpcc_xr_report_free (RtpccXrReport * report)
{
  if (!report)
    return;
  for (guint i = 0; i < report->n_blocks; i++)
    if (rtpcc_xr_is_rle_type (report->blocks[i].bt))
      g_free (report->blocks[i].rle.bits);
  g_free (report->blocks);
  g_free (report);
}

RtpccXrReport *
rtpcc_xr_report_parse (const guint8 * data, gsize len, GError ** error)
{
  RtpccXrReport *r;
  gsize end, off, blen;
  guint bits_left = RTPCC_XR_MAX_BITS;
  guint8 bt;

  if (!rtpcc_xr_check_header (data, len, TRUE, &end, error))
    return NULL;

  r = g_new0 (RtpccXrReport, 1);
  r->ssrc = rtpcc_rd32 (data + 4);
  /* every block is at least one word */
  r->blocks = g_new0 (RtpccXrBlock, MIN (RTPCC_XR_MAX_BLOCKS,
          MAX ((end - RTPCC_XR_HEADER_SIZE) / 4, 1)));
  for (off = RTPCC_XR_HEADER_SIZE; off < end; off += blen) {
    RtpccXrBlock *b;

    if (!rtpcc_xr_next_block (data, end, off, &bt, &blen, error))
      goto bad;
    if (!rtpcc_xr_is_rle_type (bt) && rtpcc_xr_metric_size (bt) == 0) {
      r->n_unknown++;
      continue;
    }
    if (r->n_blocks == RTPCC_XR_MAX_BLOCKS) {
      r->n_over_cap++;
      continue;
    }
    b = &r->blocks[r->n_blocks];
    if (rtpcc_xr_is_rle_type (bt)) {
      b->bt = bt;
      if (!rtpcc_xr_rle_read (data + off, blen, bt, &bits_left, &b->rle,
              error))
        goto bad;
    } else if (!rtpcc_xr_metric_read (data + off, blen, b, error)) {
      goto bad;
    } else if (!rtpcc_xr_metric_valid (b)) {
      /* an I or DT its RFC does not allow: the block is discarded, the
       * rest of the packet still counts */
      r->n_discarded++;
      continue;
    }
    r->n_blocks++;
  }
  return r;

bad:
  rtpcc_xr_report_free (r);
  return NULL;
}

gsize
rtpcc_xr_block_size (const RtpccXrBlock * b)
{
  if (b == NULL)
    return 0;
  if (rtpcc_xr_is_rle_type (b->bt))
    return b->rle.bt == b->bt ? rtpcc_xr_rle_size (&b->rle) : 0;
  return rtpcc_xr_metric_valid (b) ? rtpcc_xr_metric_size (b->bt) : 0;
}

gsize
rtpcc_xr_report_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccXrBlock * blocks, guint n_blocks)
{
  gsize total = RTPCC_XR_HEADER_SIZE, off;

  if (buf == NULL || (n_blocks > 0 && blocks == NULL))
    return 0;
  for (guint i = 0; i < n_blocks; i++) {
    gsize bs = rtpcc_xr_block_size (&blocks[i]);
    if (bs == 0 || bs > max)
      return 0;
    total += bs;
    if (total > max)
      return 0;
  }
  if (total / 4 - 1 > G_MAXUINT16)
    return 0;
  rtpcc_xr_write_header (buf, total, sender_ssrc);
  off = RTPCC_XR_HEADER_SIZE;
  for (guint i = 0; i < n_blocks; i++) {
    const RtpccXrBlock *b = &blocks[i];
    gsize bs = rtpcc_xr_block_size (b);

    if (rtpcc_xr_is_rle_type (b->bt))
      rtpcc_xr_rle_write (buf + off, bs, &b->rle);
    else
      rtpcc_xr_metric_write (buf + off, b);
    off += bs;
  }
  return total;
}

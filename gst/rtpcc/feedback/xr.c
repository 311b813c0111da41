/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/feedback/xr.h>
#include <rtpcc/feedback/rtcp.h>
#include "bytes.h"

#include <string.h>

#define RUN_MAX 0x3FFF          /* 14-bit run length */
#define VEC_BITS 15

static gboolean
fail (GError ** error, const gchar * what)
{
  g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "XR: %s", what);
  return FALSE;
}

/* positions a [begin, end) block covers with thinning @t */
static guint
range_bits (guint16 begin, guint16 end, guint t)
{
  guint span = (guint16) (end - begin);
  guint step = 1u << t;
  return (span + step - 1) / step;
}

static gboolean
decode_chunks (const guint8 * p, gsize len, RtpccXrRleBlock * b,
    GError ** error)
{
  guint pos = 0;

  for (gsize off = 0; off + 2 <= len; off += 2) {
    guint16 c = rtpcc_rd16 (p + off);
    if (c == 0) {
      /* null chunk: padding, only after the range is covered */
      if (pos < b->n_bits)
        return fail (error, "null chunk before the end of the range");
      continue;
    }
    if (pos >= b->n_bits)
      return fail (error, "chunk after the end of the range");
    if (c & 0x8000) {
      for (guint i = 0; i < VEC_BITS && pos < b->n_bits; i++)
        b->bits[pos++] = (c >> (VEC_BITS - 1 - i)) & 1;
    } else {
      guint run = c & RUN_MAX;
      guint8 v = (c >> 14) & 1;
      if (run == 0)
        return fail (error, "empty run");
      if (run > b->n_bits - pos)
        return fail (error, "run past the end of the range");
      memset (b->bits + pos, v, run);
      pos += run;
    }
  }
  if (pos < b->n_bits)
    return fail (error, "chunks do not cover the range");
  return TRUE;
}

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
  gsize end, off;
  guint total_bits = 0;

  if (!data || len < 8)
    return fail (error, "too short"), NULL;
  if ((data[0] >> 6) != 2 || data[1] != RTPCC_RTCP_XR)
    return fail (error, "not an XR packet"), NULL;
  end = ((gsize) rtpcc_rd16 (data + 2) + 1) * 4;
  if (end > len)
    return fail (error, "length past the buffer"), NULL;
  if (data[0] & 0x20) {
    guint pad = data[end - 1];
    if (pad == 0 || pad > end - 8)
      return fail (error, "bad padding"), NULL;
    end -= pad;
  }

  xr = g_new0 (RtpccXr, 1);
  xr->ssrc = rtpcc_rd32 (data + 4);
  xr->blocks = g_new0 (RtpccXrRleBlock, RTPCC_XR_MAX_BLOCKS);
  for (off = 8; off < end;) {
    guint8 bt;
    gsize blen;
    RtpccXrRleBlock *b;

    if (end - off < 4)
      goto bad_short;
    bt = data[off];
    blen = ((gsize) rtpcc_rd16 (data + off + 2) + 1) * 4;
    if (blen > end - off)
      goto bad_short;
    if ((bt != RTPCC_XR_BT_LOSS_RLE && bt != RTPCC_XR_BT_DISCARD_RLE)
        || xr->n_blocks == RTPCC_XR_MAX_BLOCKS) {
      xr->n_skipped++;
      off += blen;
      continue;
    }
    if (blen < 12) {
      fail (error, "RLE block too short");
      goto bad;
    }
    b = &xr->blocks[xr->n_blocks];
    b->bt = bt;
    b->thinning = data[off + 1] & 0x0F;
    b->early = bt == RTPCC_XR_BT_DISCARD_RLE && (data[off + 1] & 0x10);
    b->ssrc = rtpcc_rd32 (data + off + 4);
    b->begin_seq = rtpcc_rd16 (data + off + 8);
    b->end_seq = rtpcc_rd16 (data + off + 10);
    b->n_bits = range_bits (b->begin_seq, b->end_seq, b->thinning);
    if (b->n_bits > RTPCC_XR_MAX_BITS - total_bits) {
      fail (error, "too many positions in one packet");
      goto bad;
    }
    total_bits += b->n_bits;
    b->bits = g_malloc0 (MAX (b->n_bits, 1));
    xr->n_blocks++;
    if (!decode_chunks (data + off + 12, blen - 12, b, error))
      goto bad;
    off += blen;
  }
  return xr;

bad_short:
  fail (error, "block length past the packet");
bad:
  rtpcc_xr_free (xr);
  return NULL;
}

/* chunk count for one block's bits (the writer's greedy encoding) */
static guint
encode (const RtpccXrRleBlock * b, guint8 * out)
{
  guint i = 0, n = 0;

  while (i < b->n_bits) {
    guint8 v = b->bits[i] ? 1 : 0;
    guint run = 1;
    while (i + run < b->n_bits && run < RUN_MAX
        && (b->bits[i + run] ? 1 : 0) == v)
      run++;
    if (run >= VEC_BITS || i + run == b->n_bits) {
      if (out)
        rtpcc_wr16 (out + 2 * n, (guint16) ((v << 14) | run));
      i += run;
    } else {
      guint16 c = 0x8000;
      for (guint k = 0; k < VEC_BITS && i + k < b->n_bits; k++)
        if (b->bits[i + k])
          c |= 1u << (VEC_BITS - 1 - k);
      if (out)
        rtpcc_wr16 (out + 2 * n, c);
      i += MIN (VEC_BITS, b->n_bits - i);
    }
    n++;
  }
  return n;
}

gsize
rtpcc_xr_rle_block_size (const RtpccXrRleBlock * b)
{
  guint chunks = encode (b, NULL);
  /* a whole number of words: an odd chunk count gets a null chunk */
  return 12 + ((chunks + 1) / 2) * 4;
}

gsize
rtpcc_xr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccXrRleBlock * blocks, guint n_blocks)
{
  gsize total = 8, off;

  for (guint i = 0; i < n_blocks; i++) {
    const RtpccXrRleBlock *b = &blocks[i];
    if ((b->bt != RTPCC_XR_BT_LOSS_RLE && b->bt != RTPCC_XR_BT_DISCARD_RLE)
        || b->thinning != 0 || b->n_bits != range_bits (b->begin_seq,
            b->end_seq, 0) || (b->n_bits > 0 && !b->bits))
      return 0;
    total += rtpcc_xr_rle_block_size (b);
  }
  if (total > max || total / 4 - 1 > 0xFFFF)
    return 0;
  memset (buf, 0, total);
  buf[0] = 0x80;
  buf[1] = RTPCC_RTCP_XR;
  rtpcc_wr16 (buf + 2, (guint16) (total / 4 - 1));
  rtpcc_wr32 (buf + 4, sender_ssrc);
  off = 8;
  for (guint i = 0; i < n_blocks; i++) {
    const RtpccXrRleBlock *b = &blocks[i];
    gsize bs = rtpcc_xr_rle_block_size (b);
    buf[off] = b->bt;
    buf[off + 1] = (b->bt == RTPCC_XR_BT_DISCARD_RLE && b->early) ? 0x10 : 0;
    rtpcc_wr16 (buf + off + 2, (guint16) (bs / 4 - 1));
    rtpcc_wr32 (buf + off + 4, b->ssrc);
    rtpcc_wr16 (buf + off + 8, b->begin_seq);
    rtpcc_wr16 (buf + off + 10, b->end_seq);
    encode (b, buf + off + 12);
    off += bs;
  }
  return total;
}

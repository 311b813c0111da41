/* RTCP XR run-length encoded blocks (RFC 3611 §4.1 chunks): Loss RLE,
 * Post-repair Loss RLE (RFC 5725 §3), Discarded Packets RLE (RFC 7097 §3;
 * only it has the E bit, the others keep the 4 bits reserved).
 *
 *  |      BT       | rsvd. |E|  T  |         block length          |
 *  |                        SSRC of source                         |
 *  |          begin_seq            |             end_seq           |
 *  |          chunk 1              |             chunk 2           |  …
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "xr-private.h"
#include "bytes.h"

#include <string.h>

#define RUN_MAX 0x3FFF          /* 14-bit run length */
#define VEC_BITS 15
#define RLE_FIXED 12            /* header, SSRC, begin and end seq */

gboolean
rtpcc_xr_is_rle_type (guint8 bt)
{
  return bt == RTPCC_XR_BT_LOSS_RLE || bt == RTPCC_XR_BT_POST_REPAIR_RLE
      || bt == RTPCC_XR_BT_DISCARD_RLE;
}

/* RFC 3611 §4.1: "MUST NOT be used to report upon a range of 65,534 or
 * greater in the sequence number space, as there is no means of
 * identifying multiple wraparounds". */
#define RANGE_MAX 65533

gboolean
rtpcc_xr_rle_range_ok (guint16 begin, guint16 end)
{
  return (guint16) (end - begin) <= RANGE_MAX;
}

/* From @begin to the first multiple of 2^@t; 2^16 is one too, so this
 * holds across the wrap. */
static guint
skip_to_multiple (guint16 begin, guint t)
{
  guint step = 1u << t;

  return (step - (begin & (step - 1))) & (step - 1);
}

guint
rtpcc_xr_rle_range_bits (guint16 begin, guint16 end, guint t)
{
  guint span = (guint16) (end - begin);
  guint skip = skip_to_multiple (begin, t);

  return span > skip ? (span - skip + (1u << t) - 1) >> t : 0;
}

guint16
rtpcc_xr_rle_seq (const RtpccXrRleBlock * b, guint i)
{
  g_return_val_if_fail (b != NULL && b->thinning <= 15, 0);
  return (guint16) (b->begin_seq + skip_to_multiple (b->begin_seq,
          b->thinning) + (i << b->thinning));
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
        return rtpcc_xr_fail (error, "null chunk before the end of the range");
      continue;
    }
    if (pos >= b->n_bits)
      return rtpcc_xr_fail (error, "chunk after the end of the range");
    if (c & 0x8000) {
      for (guint i = 0; i < VEC_BITS && pos < b->n_bits; i++)
        b->bits[pos++] = (c >> (VEC_BITS - 1 - i)) & 1;
    } else {
      guint run = c & RUN_MAX;
      guint8 v = (c >> 14) & 1;
      if (run == 0)
        return rtpcc_xr_fail (error, "empty run");
      if (run > b->n_bits - pos)
        return rtpcc_xr_fail (error, "run past the end of the range");
      memset (b->bits + pos, v, run);
      pos += run;
    }
  }
  if (pos < b->n_bits)
    return rtpcc_xr_fail (error, "chunks do not cover the range");
  return TRUE;
}

gboolean
rtpcc_xr_rle_read (const guint8 * blk, gsize blen, guint8 bt,
    guint * bits_left, RtpccXrRleBlock * b, GError ** error)
{
  memset (b, 0, sizeof (*b));
  if (blen < RLE_FIXED)
    return rtpcc_xr_fail (error, "RLE block too short");
  b->bt = bt;
  b->thinning = blk[1] & 0x0F;
  b->early = bt == RTPCC_XR_BT_DISCARD_RLE && (blk[1] & 0x10);
  b->ssrc = rtpcc_rd32 (blk + 4);
  b->begin_seq = rtpcc_rd16 (blk + 8);
  b->end_seq = rtpcc_rd16 (blk + 10);
  if (!rtpcc_xr_rle_range_ok (b->begin_seq, b->end_seq))
    return rtpcc_xr_fail (error, "RLE range of 65534 or more");
  b->n_bits = rtpcc_xr_rle_range_bits (b->begin_seq, b->end_seq, b->thinning);
  if (b->n_bits > *bits_left)
    return rtpcc_xr_fail (error, "too many positions in one packet");
  *bits_left -= b->n_bits;
  b->bits = g_malloc0 (MAX (b->n_bits, 1));
  if (!decode_chunks (blk + RLE_FIXED, blen - RLE_FIXED, b, error)) {
    g_clear_pointer (&b->bits, g_free);
    return FALSE;
  }
  return TRUE;
}

/* The writer's greedy encoding: a run chunk for 15 or more equal bits (or
 * the tail), a bit vector otherwise. Writes the chunks to @out unless it
 * is NULL; returns how many. */
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
  return RLE_FIXED + ((gsize) (chunks + 1) / 2) * 4;
}

gsize
rtpcc_xr_rle_size (const RtpccXrRleBlock * b)
{
  gsize size;

  if (!rtpcc_xr_is_rle_type (b->bt) || b->thinning > 15
      || !rtpcc_xr_rle_range_ok (b->begin_seq, b->end_seq)
      || b->n_bits != rtpcc_xr_rle_range_bits (b->begin_seq, b->end_seq,
          b->thinning) || (b->n_bits > 0 && b->bits == NULL))
    return 0;
  size = rtpcc_xr_rle_block_size (b);
  /* at most 65533 positions, so at most as many chunks: the length field
   * always holds it, checked anyway */
  if (size / 4 - 1 > G_MAXUINT16)
    return 0;
  return size;
}

void
rtpcc_xr_rle_write (guint8 * p, gsize size, const RtpccXrRleBlock * b)
{
  memset (p, 0, size);
  p[0] = b->bt;
  p[1] = (guint8) (((b->bt == RTPCC_XR_BT_DISCARD_RLE && b->early) ? 0x10 : 0)
      | b->thinning);
  rtpcc_wr16 (p + 2, (guint16) (size / 4 - 1));
  rtpcc_wr32 (p + 4, b->ssrc);
  rtpcc_wr16 (p + 8, b->begin_seq);
  rtpcc_wr16 (p + 10, b->end_seq);
  encode (b, p + RLE_FIXED);
}

/* RTCP Extended Reports (XR, RFC 3611): the run-length encoded per-packet
 * blocks FBRA needs — Loss RLE (RFC 3611 §4.1, BT 1: bit 1 = received) and
 * Discarded Packets RLE (RFC 7097, BT 25: bit 1 = received but discarded,
 * E = 0 late / 1 early). Both share RFC 3611's chunk format: a run-length
 * chunk (0 R len14), a bit-vector chunk (1 + 15 bits, first packet in the
 * most significant bit) and the null chunk (0x0000, padding). A block
 * covers begin_seq up to end_seq − 1 (mod 2^16), every 2^T-th seq with
 * thinning T.
 *
 * The parser is bounds-checked and refuses any block whose chunks do not
 * cover its range or whose length overruns the packet; decoded bits per
 * packet are capped (RTPCC_XR_MAX_BITS) so a run-length bomb cannot make
 * it allocate without limit. Unknown block types are skipped and counted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_XR_H__
#define __RTPCC_FEEDBACK_XR_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_XR_BT_LOSS_RLE 1
#define RTPCC_XR_BT_DISCARD_RLE 25

/* at most this many seq positions decoded per XR packet */
#define RTPCC_XR_MAX_BITS (1 << 18)
/* at most this many RLE blocks kept per XR packet (more are skipped) */
#define RTPCC_XR_MAX_BLOCKS 64

typedef struct
{
  guint8 bt;                    /* RTPCC_XR_BT_LOSS_RLE / _DISCARD_RLE */
  guint8 thinning;              /* T, 0..15 */
  gboolean early;               /* discard RLE: E bit (too early) */
  guint32 ssrc;                 /* the media source reported on */
  guint16 begin_seq, end_seq;   /* [begin, end) mod 2^16 */
  guint n_bits;                 /* positions: ceil (((end − begin) mod 2^16) / 2^T) */
  guint8 *bits;                 /* n_bits values 0/1; seq of bit i = begin + i·2^T */
} RtpccXrRleBlock;

typedef struct
{
  guint32 ssrc;                 /* the XR sender's SSRC */
  guint n_blocks;
  RtpccXrRleBlock *blocks;
  guint n_skipped;              /* unknown types, or over the block cap */
} RtpccXr;

/* @data/@len: one RTCP packet of type XR (PT 207), header included, as the
 * compound iterator yields it. NULL and @error (RTPCC_ERROR_PARSE) when
 * malformed. */
RtpccXr *rtpcc_xr_parse (const guint8 * data, gsize len, GError ** error);
void rtpcc_xr_free (RtpccXr * xr);

/* Bytes one RLE block with these bits needs (header + chunks + padding). */
gsize rtpcc_xr_rle_block_size (const RtpccXrRleBlock * block);
/* Write one XR packet from @sender_ssrc holding @n_blocks RLE blocks. Each
 * block's n_bits must equal its [begin, end) range (thinning 0 only; n_bits
 * ≤ 65535). Returns bytes written (multiple of 4) or 0 if it does not fit
 * or a block is inconsistent. */
gsize rtpcc_xr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccXrRleBlock * blocks, guint n_blocks);

G_END_DECLS

#endif

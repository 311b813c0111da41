/* What the XR files share: one report block's framing inside a packet,
 * the RLE chunk codec (xr-rle.c) and the fixed-size metric blocks
 * (xr-metrics.c). Private, not installed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_XR_PRIVATE_H__
#define __RTPCC_FEEDBACK_XR_PRIVATE_H__

#include <rtpcc/feedback/xr.h>

G_BEGIN_DECLS

/* BT, type-specific byte, 16-bit length (words − 1) */
#define RTPCC_XR_BLOCK_HEADER_SIZE 4
/* V P reserved, PT = 207, length; the sender's SSRC */
#define RTPCC_XR_HEADER_SIZE 8

/* Checks version, type and length of the XR packet @data; *@end is where
 * its blocks end (before any padding). @exact: the length field must say
 * exactly @len and a padding count be whole words; otherwise bytes after
 * the packet are ignored and any count that fits is taken. */
gboolean rtpcc_xr_check_header (const guint8 * data, gsize len,
    gboolean exact, gsize * end, GError ** error);
/* The block at @off (before @end): its type and whole length. */
gboolean rtpcc_xr_next_block (const guint8 * data, gsize end, gsize off,
    guint8 * bt, gsize * blen, GError ** error);
/* The packet header of a @total-byte XR packet from @sender_ssrc. */
void rtpcc_xr_write_header (guint8 * buf, gsize total, guint32 sender_ssrc);

/* Sets @error (RTPCC_ERROR_PARSE, "XR: @what"); returns FALSE. */
gboolean rtpcc_xr_fail (GError ** error, const gchar * what);

gboolean rtpcc_xr_is_rle_type (guint8 bt);

/* Positions a [@begin, @end) block covers with thinning @t: the
 * multiples of 2^@t in the range (RFC 3611 §4.1). */
guint rtpcc_xr_rle_range_bits (guint16 begin, guint16 end, guint t);
/* Whether an RLE block may report on [@begin, @end): a range below 65534
 * (RFC 3611 §4.1, for all three RLE block types). */
gboolean rtpcc_xr_rle_range_ok (guint16 begin, guint16 end);

/* Reads one RLE block of type @bt (@blk = the whole block, header
 * included, @blen bytes). Allocates out->bits; *@bits_left is the
 * packet's remaining position budget, reduced by what the block decodes.
 * On failure out->bits is freed and NULL. */
gboolean rtpcc_xr_rle_read (const guint8 * blk, gsize blen, guint8 bt,
    guint * bits_left, RtpccXrRleBlock * out, GError ** error);
/* Bytes the block takes (header, chunks, a null chunk to a whole word),
 * or 0 if it cannot be written (see rtpcc_xr_block_size). */
gsize rtpcc_xr_rle_size (const RtpccXrRleBlock * b);
/* Writes a block rtpcc_xr_rle_size() accepted, @size bytes of it. */
void rtpcc_xr_rle_write (guint8 * p, gsize size, const RtpccXrRleBlock * b);

/* The fixed size of a metric block of type @bt (header included), or 0
 * if @bt is not one. */
gsize rtpcc_xr_metric_size (guint8 bt);
/* Reads one metric block (@blk header included, @blen bytes: exactly its
 * fixed size, else an error) into @out. */
gboolean rtpcc_xr_metric_read (const guint8 * blk, gsize blen,
    RtpccXrBlock * out, GError ** error);
/* Whether every field of a metric block fits its wire width and has a
 * value its RFC allows (I, DT): the writer refuses the others, the
 * parser discards them. */
gboolean rtpcc_xr_metric_valid (const RtpccXrBlock * b);
/* Writes a metric block rtpcc_xr_metric_valid() accepted. */
void rtpcc_xr_metric_write (guint8 * p, const RtpccXrBlock * b);

G_END_DECLS

#endif

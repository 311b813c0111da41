/* RTCP Extended Reports (XR, RFC 3611): every block type the project
 * sends or consumes, one XR packet built from a set of them, and a parser
 * that walks all blocks of a packet.
 *
 * Run-length encoded per-packet blocks, RFC 3611's chunk format:
 *  - Loss RLE (RFC 3611 §4.1, BT 1): bit 1 = received;
 *  - Post-repair Loss RLE (RFC 5725, BT 10): the same block, reporting what
 *    is still missing after FEC / retransmission repair (bit 1 = received
 *    or repaired, 0 = lost for good);
 *  - Discarded Packets RLE (RFC 7097, BT 25): bit 1 = received but
 *    discarded, E = 0 late / 1 early.
 * A run-length chunk is 0 R len14, a bit-vector chunk 1 + 15 bits (first
 * packet in the most significant bit), the null chunk 0x0000 is padding.
 * A block covers begin_seq up to end_seq − 1 (mod 2^16), every 2^T-th seq
 * with thinning T.
 *
 * Fixed-size metric blocks (the "I" Interval Metric flag: 01 sampled,
 * 10 interval, 11 cumulative; 00 is reserved):
 *  - Delay Metrics (RFC 6843, BT 16): mean / min / max network round trip
 *    (16.16 s) and end-system delay (32.32 s), all ones = unavailable;
 *  - De-Jitter Buffer Metrics (RFC 7005, BT 23): nominal, maximum,
 *    high- and low-water mark delay of the jitter buffer in ms, C = 1
 *    adaptive / 0 fixed; 0xFFFE over range, 0xFFFF unavailable;
 *  - Discard Count (RFC 7002, BT 24): packets discarded, DT says why
 *    (1 too early, 2 too late, 3 both);
 *  - Bytes Discarded (RFC 7243, BT 26): RTP payload bytes discarded,
 *    E = 1 too early / 0 too late.
 *
 *  |      BT       | type-specific |         block length          |
 *  |                        SSRC of source                         |
 *  :                  block contents (length words − 1)            :
 *
 * The parsers are bounds-checked and refuse a block whose length overruns
 * the packet, a metric block whose length is not the one its RFC fixes,
 * and an RLE block whose chunks do not cover its range; decoded bits per
 * packet are capped (RTPCC_XR_MAX_BITS) so a run-length bomb cannot make
 * them allocate without limit. Unknown block types are skipped and
 * counted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_XR_H__
#define __RTPCC_FEEDBACK_XR_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_XR_BT_LOSS_RLE 1
#define RTPCC_XR_BT_POST_REPAIR_RLE 10
#define RTPCC_XR_BT_DELAY 16
#define RTPCC_XR_BT_DEJITTER 23
#define RTPCC_XR_BT_DISCARD_COUNT 24
#define RTPCC_XR_BT_DISCARD_RLE 25
#define RTPCC_XR_BT_BYTES_DISCARDED 26

/* at most this many seq positions decoded per XR packet */
#define RTPCC_XR_MAX_BITS (1 << 18)
/* at most this many blocks kept per XR packet (more are skipped) */
#define RTPCC_XR_MAX_BLOCKS 64

typedef struct
{
  guint8 bt;                    /* RTPCC_XR_BT_LOSS_RLE / _POST_REPAIR_RLE /
                                 * _DISCARD_RLE */
  guint8 thinning;              /* T, 0..15 */
  gboolean early;               /* discard RLE: E bit (too early) */
  guint32 ssrc;                 /* the media source reported on */
  guint16 begin_seq, end_seq;   /* [begin, end) mod 2^16 */
  guint n_bits;                 /* positions: ceil (((end − begin) mod 2^16) / 2^T) */
  guint8 *bits;                 /* n_bits values 0/1; seq of bit i = begin + i·2^T */
} RtpccXrRleBlock;

/* ---- Loss and Discard RLE only ------------------------------------------ */

typedef struct
{
  guint32 ssrc;                 /* the XR sender's SSRC */
  guint n_blocks;
  RtpccXrRleBlock *blocks;
  guint n_skipped;              /* unknown types, or over the block cap */
} RtpccXr;

/* @data/@len: one RTCP packet of type XR (PT 207), header included, as the
 * compound iterator yields it. NULL and @error (RTPCC_ERROR_PARSE) when
 * malformed. Keeps Loss RLE and Discard RLE blocks only; every other block
 * type (Post-repair RLE included) is skipped unchecked and counted in
 * n_skipped. */
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

/* ---- Every block type ---------------------------------------------------- */

/* The Interval Metric flag ("I") of the metric blocks. */
#define RTPCC_XR_I_SAMPLED 1
#define RTPCC_XR_I_INTERVAL 2
#define RTPCC_XR_I_CUMULATIVE 3

/* Discard Count: why the packets counted were discarded (DT). */
#define RTPCC_XR_DT_EARLY 1
#define RTPCC_XR_DT_LATE 2
#define RTPCC_XR_DT_BOTH 3

/* "unavailable" in RFC 6843's 32- and 64-bit delay fields */
#define RTPCC_XR_DELAY_UNAVAILABLE G_MAXUINT32
#define RTPCC_XR_ES_DELAY_UNAVAILABLE G_MAXUINT64
/* RFC 7005's 16-bit millisecond fields */
#define RTPCC_XR_DJB_OVER_RANGE 0xFFFE
#define RTPCC_XR_DJB_UNAVAILABLE 0xFFFF

typedef struct
{
  guint8 interval;              /* I: RTPCC_XR_I_*, 0..3 */
  guint32 ssrc;
  /* network round trip, 16.16 s, or RTPCC_XR_DELAY_UNAVAILABLE */
  guint32 mean_rtt, min_rtt, max_rtt;
  /* end-system delay, 32.32 s, or RTPCC_XR_ES_DELAY_UNAVAILABLE */
  guint64 end_system_delay;
} RtpccXrDelayMetrics;

typedef struct
{
  guint8 interval;              /* I, 0..3 */
  gboolean adaptive;            /* C: adaptive (TRUE) or fixed buffer */
  guint32 ssrc;
  /* ms, or RTPCC_XR_DJB_OVER_RANGE / _UNAVAILABLE */
  guint16 nominal, maximum, high_water, low_water;
} RtpccXrDejitter;

typedef struct
{
  guint8 interval;              /* I, 0..3 */
  guint8 discard_type;          /* DT: RTPCC_XR_DT_*, 0..3 */
  guint32 ssrc;
  guint32 packets;
} RtpccXrDiscardCount;

typedef struct
{
  guint8 interval;              /* I, 0..3 */
  gboolean early;               /* E */
  guint32 ssrc;
  guint32 bytes;                /* RTP payload bytes */
} RtpccXrBytesDiscarded;

/* One report block; @bt says which member is meant. For the RLE types
 * rle.bt must equal @bt. */
typedef struct
{
  guint8 bt;
  union
  {
    RtpccXrRleBlock rle;        /* BT 1, 10, 25 */
    RtpccXrDelayMetrics delay;  /* BT 16 */
    RtpccXrDejitter dejitter;   /* BT 23 */
    RtpccXrDiscardCount discard_count;  /* BT 24 */
    RtpccXrBytesDiscarded bytes_discarded;      /* BT 26 */
  };
} RtpccXrBlock;

typedef struct
{
  guint32 ssrc;                 /* the XR sender's SSRC */
  guint n_blocks;
  RtpccXrBlock *blocks;         /* in packet order */
  guint n_unknown;              /* blocks of other types, skipped */
  guint n_over_cap;             /* known blocks past RTPCC_XR_MAX_BLOCKS */
} RtpccXrReport;

/* Bytes @block takes on the wire (header included), or 0 if it cannot be
 * written: an unknown type, a field out of range, or RLE bits that do not
 * match the block's [begin, end) range and thinning. */
gsize rtpcc_xr_block_size (const RtpccXrBlock * block);
/* Writes one XR packet from @sender_ssrc holding @blocks in order (none is
 * allowed: an empty report). Returns bytes written (a multiple of 4, no
 * padding) or 0 if a block cannot be written or it does not fit in @max. */
gsize rtpcc_xr_report_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccXrBlock * blocks, guint n_blocks);
/* Parses exactly one XR packet (@len = its length field, padding
 * included), every block in order. NULL and @error (RTPCC_ERROR_PARSE)
 * when malformed. */
RtpccXrReport *rtpcc_xr_report_parse (const guint8 * data, gsize len,
    GError ** error);
void rtpcc_xr_report_free (RtpccXrReport * report);

/* RFC 6843 delays: a duration in 16.16 s (truncated; at most one unit
 * below "unavailable"), RTPCC_TIME_NONE ↔ unavailable, negative → 0. */
guint32 rtpcc_xr_delay_from_time (RtpccTime d);
RtpccTime rtpcc_xr_delay_to_time (guint32 v);
/* The same for the 32.32 end-system delay. */
guint64 rtpcc_xr_es_delay_from_time (RtpccTime d);
RtpccTime rtpcc_xr_es_delay_to_time (guint64 v);
/* RFC 7005 milliseconds: truncated, 65534 ms and more are "over range",
 * RTPCC_TIME_NONE ↔ unavailable; over range reads as RTPCC_TIME_NONE too
 * (no value is known). */
guint16 rtpcc_xr_djb_from_time (RtpccTime d);
RtpccTime rtpcc_xr_djb_to_time (guint16 v);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtpccXrReport, rtpcc_xr_report_free)

G_END_DECLS

#endif

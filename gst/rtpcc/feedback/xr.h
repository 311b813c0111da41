/* RTCP Extended Reports (XR, RFC 3611): every block type the project
 * sends or consumes, one XR packet built from a set of them, and a parser
 * that walks all blocks of a packet.
 *
 * Run-length encoded per-packet blocks, RFC 3611's chunk format:
 *  - Loss RLE (RFC 3611 §4.1, BT 1): bit 1 = received;
 *  - Post-repair Loss RLE (RFC 5725, BT 10): the same block, reporting
 *    what is still missing after all loss repair (FEC, retransmission):
 *    bit 1 = received or repaired, 0 = lost for good (a partly repaired
 *    packet counts as lost);
 *  - Discarded Packets RLE (RFC 7097, BT 25): bit 1 = received but
 *    discarded, E = 1 too early / 0 too late.
 * A run-length chunk is 0 R len14, a bit-vector chunk 1 + 15 bits (first
 * packet in the most significant bit), the null chunk 0x0000 ends a block
 * of an odd chunk count. A block covers begin_seq up to end_seq − 1
 * (mod 2^16), a range of at most 65533 (RFC 3611 §4.1: "MUST NOT be used
 * to report upon a range of 65,534 or greater"); with thinning T it
 * reports only the sequence numbers in that range that are multiples of
 * 2^T (RFC 3611 §4.1, whose example reports 13824, 13828, … 13864 of
 * 13821..13865 with T = 2).
 *
 * Fixed-size metric blocks. Their "I" Interval Metric flag says what the
 * values cover: 01 a sampled value, 10 the last interval, 11 the whole
 * session; each RFC allows only some of them, and the writer refuses and
 * the parser discards a block with another (as RFC 7002, 7005 and 7243
 * require of a receiver):
 *  - Delay Metrics (RFC 6843 §3, BT 16, I = 01, 10 or 11): mean / min /
 *    max network round trip (16.16 s) and end-system delay (32.32 s, an
 *    NTP-format duration), all ones = unavailable;
 *  - De-Jitter Buffer Metrics (RFC 7005 §4, BT 23, I = 01 only: "can only
 *    be sampled"): nominal, maximum, high- and low-water mark delay of the
 *    jitter buffer in ms, C = 1 adaptive / 0 fixed; 0xFFFE over range,
 *    0xFFFF unavailable;
 *  - Discard Count (RFC 7002 §3, BT 24, I = 10 or 11): packets discarded,
 *    DT says why (0 duplicates, 1 too early, 2 too late; 3 is reserved and
 *    discarded); 0xFFFFFFFE over range, 0xFFFFFFFF unavailable;
 *  - Bytes Discarded (RFC 7243 §3, BT 26, I = 10 or 11): RTP payload bytes
 *    discarded, E = 1 too early / 0 too late.
 *
 *  |      BT       | type-specific |         block length          |
 *  |                        SSRC of source                         |
 *  :                  block contents (length words − 1)            :
 *
 * The parsers are bounds-checked and refuse a block whose length overruns
 * the packet, a metric block whose length is not the one its RFC fixes,
 * and an RLE block whose chunks do not cover its range or whose range is
 * 65534 or more; decoded bits per packet are capped (RTPCC_XR_MAX_BITS)
 * so a run-length bomb cannot make them allocate without limit. Unknown
 * block types are skipped and counted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_XR_H__
#define __RTPCC_FEEDBACK_XR_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_XR_BT_LOSS_RLE 1
#define RTPCC_XR_BT_RRTR 4
#define RTPCC_XR_BT_DLRR 5
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
  guint n_bits;                 /* positions: the multiples of 2^T in
                                 * [begin, end) */
  guint8 *bits;                 /* n_bits values 0/1; bit i is the i-th
                                 * multiple of 2^T from begin on */
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

/* The sequence number bit @i of @block reports on: the @i-th multiple of
 * 2^thinning from begin_seq on (begin_seq + i when not thinned). */
guint16 rtpcc_xr_rle_seq (const RtpccXrRleBlock * block, guint i);

/* Bytes one RLE block with these bits needs (header + chunks + padding). */
gsize rtpcc_xr_rle_block_size (const RtpccXrRleBlock * block);
/* Write one XR packet from @sender_ssrc holding @n_blocks RLE blocks. Each
 * block's n_bits must equal its [begin, end) range (thinning 0 only; a
 * range of at most 65533). Returns bytes written (multiple of 4) or 0 if
 * it does not fit or a block is inconsistent. */
gsize rtpcc_xr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccXrRleBlock * blocks, guint n_blocks);

/* ---- Every block type ---------------------------------------------------- */

/* The Interval Metric flag ("I") of the metric blocks (00 is reserved);
 * which of these a block type allows is in the comment at the top. */
#define RTPCC_XR_I_SAMPLED 1
#define RTPCC_XR_I_INTERVAL 2
#define RTPCC_XR_I_CUMULATIVE 3

/* Discard Count: why the packets counted were discarded (DT, RFC 7002
 * §3.2; 3 is reserved). To report several reasons, send one block each. */
#define RTPCC_XR_DT_DUPLICATE 0
#define RTPCC_XR_DT_EARLY 1
#define RTPCC_XR_DT_LATE 2

/* RFC 7002's packet count */
#define RTPCC_XR_COUNT_OVER_RANGE 0xFFFFFFFEu
#define RTPCC_XR_COUNT_UNAVAILABLE 0xFFFFFFFFu

/* "unavailable" in RFC 6843's 32- and 64-bit delay fields */
#define RTPCC_XR_DELAY_UNAVAILABLE G_MAXUINT32
#define RTPCC_XR_ES_DELAY_UNAVAILABLE G_MAXUINT64
/* RFC 7005's 16-bit millisecond fields */
#define RTPCC_XR_DJB_OVER_RANGE 0xFFFE
#define RTPCC_XR_DJB_UNAVAILABLE 0xFFFF

typedef struct
{
  guint8 interval;              /* I: RTPCC_XR_I_* */
  guint32 ssrc;
  /* network round trip, 16.16 s, or RTPCC_XR_DELAY_UNAVAILABLE */
  guint32 mean_rtt, min_rtt, max_rtt;
  /* end-system delay, 32.32 s, or RTPCC_XR_ES_DELAY_UNAVAILABLE */
  guint64 end_system_delay;
} RtpccXrDelayMetrics;

typedef struct
{
  guint8 interval;              /* I: RTPCC_XR_I_SAMPLED only */
  gboolean adaptive;            /* C: adaptive (TRUE) or fixed buffer */
  guint32 ssrc;
  /* ms, or RTPCC_XR_DJB_OVER_RANGE / _UNAVAILABLE */
  guint16 nominal, maximum, high_water, low_water;
} RtpccXrDejitter;

typedef struct
{
  guint8 interval;              /* I: _INTERVAL or _CUMULATIVE */
  guint8 discard_type;          /* DT: RTPCC_XR_DT_* */
  guint32 ssrc;
  guint32 packets;              /* or RTPCC_XR_COUNT_OVER_RANGE /
                                 * _UNAVAILABLE */
} RtpccXrDiscardCount;

typedef struct
{
  guint8 interval;              /* I: _INTERVAL or _CUMULATIVE */
  gboolean early;               /* E: too early (TRUE) or too late */
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
  guint n_discarded;            /* metric blocks with an I or DT value
                                 * their RFC does not allow, skipped */
} RtpccXrReport;

/* Bytes @block takes on the wire (header included), or 0 if it cannot be
 * written: an unknown type, a field out of range or not allowed by the
 * block's RFC (I, DT), or RLE bits that do not match the block's
 * [begin, end) range and thinning. */
gsize rtpcc_xr_block_size (const RtpccXrBlock * block);
/* Writes one XR packet from @sender_ssrc holding @blocks in order (none is
 * allowed: an empty report). Returns bytes written (a multiple of 4, no
 * padding) or 0 if a block cannot be written or it does not fit in @max. */
gsize rtpcc_xr_report_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccXrBlock * blocks, guint n_blocks);
/* Parses exactly one XR packet (@len = its length field, padding
 * included), every block in order; metric blocks the writer would refuse
 * for their I or DT are skipped and counted in n_discarded. NULL and
 * @error (RTPCC_ERROR_PARSE) when malformed. */
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

/* ---- Round trips for a receiver (RFC 3611 §4.4, §4.5; xr-rtt.c) --------- */

/* One XR packet from @sender_ssrc holding a Receiver Reference Time
 * block with the 64-bit NTP timestamp @ntp: 20 bytes, 0 if @max is less. */
gsize rtpcc_xr_rrtr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint64 ntp);
/* One XR packet from @sender_ssrc holding a DLRR block with one
 * sub-block: receiver @ssrc, @lrr (the middle 32 bits of its RRTR's
 * timestamp) and @dlrr (the time since, 16.16 s): 24 bytes, 0 if @max is
 * less. */
gsize rtpcc_xr_dlrr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 ssrc, guint32 lrr, guint32 dlrr);
/* In one XR packet (@len = its length field): the first RRTR block's
 * timestamp, or the DLRR sub-block about @ssrc. 1 found, 0 none, -1 a
 * broken packet or a block of the wrong length (RRTR 12 bytes, DLRR 4 +
 * 12 per sub-block). */
gint rtpcc_xr_find_rrtr (const guint8 * data, gsize len, guint64 * ntp);
gint rtpcc_xr_find_dlrr (const guint8 * data, gsize len, guint32 ssrc,
    guint32 * lrr, guint32 * dlrr);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtpccXrReport, rtpcc_xr_report_free)

G_END_DECLS

#endif

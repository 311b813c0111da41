/* RFC 8888 RTCP Congestion Control Feedback (CCFB): RTPFB (PT 205), FMT 11.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |V=2|P| FMT=11  |   PT = 205    |          length               |
 *  |                 SSRC of RTCP packet sender                    |
 *  |                   SSRC of 1st RTP stream                      |
 *  |          begin_seq            |          num_reports          |
 *  |R|ECN|  Arrival time offset    | ...   (num_reports × 16 bits, |
 *  |  a zero 16-bit word if num_reports is odd)                    |
 *  .  … more per-SSRC report blocks …                              .
 *  |                 Report Timestamp (32 bits)                    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * num_reports is the number of metric blocks; they cover begin_seq up to,
 * but not including, begin_seq + num_reports (mod 2^16). RFC 8888 §3.1's
 * text says "inclusive", which would make one more block than num_reports;
 * erratum 8166 corrects it, and libwebrtc and pion encode num_reports as
 * the count, as we do. At most 16384 blocks per SSRC.
 *
 * The report timestamp (RTS) is the middle 32 bits of the NTP time at which
 * the report was made. ATO is in 1/1024 s before RTS; 0x1FFE means
 * "over-range" (more than 8189/1024 s before RTS) and 0x1FFF "unavailable,
 * or arrived after RTS". A not-received packet has R = 0, ECN = 0, ATO = 0.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_CCFB_H__
#define __RTPCC_FEEDBACK_CCFB_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_CCFB_FMT 11
/* one quarter of the sequence-number space (RFC 8888 §3.1) */
#define RTPCC_CCFB_MAX_REPORTS 16384
#define RTPCC_CCFB_ATO_MAX 0x1FFD
#define RTPCC_CCFB_ATO_OVER_RANGE 0x1FFE
#define RTPCC_CCFB_ATO_UNAVAILABLE 0x1FFF

/* ECN codepoints as carried in the 2-bit field (RFC 3168 order). */
#define RTPCC_ECN_NOT_ECT 0
#define RTPCC_ECN_ECT1 1
#define RTPCC_ECN_ECT0 2
#define RTPCC_ECN_CE 3

typedef struct
{
  guint16 seq;                  /* set by the parser; the writer ignores it */
  gboolean received;
  guint8 ecn;                   /* 2 bits */
  guint16 ato;                  /* 13 bits */
} RtpccCcfbMetric;

/* Writer input: @metrics[i] is about begin_seq + i. */
typedef struct
{
  guint32 media_ssrc;
  guint16 begin_seq;
  guint16 num_reports;
  const RtpccCcfbMetric *metrics;
} RtpccCcfbBlockIn;

typedef struct
{
  guint32 media_ssrc;
  guint16 begin_seq;
  guint16 num_reports;
  RtpccCcfbMetric *metrics;     /* num_reports entries, seq filled in */
} RtpccCcfbBlock;

typedef struct
{
  guint32 sender_ssrc;
  guint32 report_timestamp;
  guint n_blocks;
  RtpccCcfbBlock *blocks;
} RtpccCcfb;

/* Bytes a CCFB with these blocks takes, or 0 if it cannot be encoded (a
 * block over 16384 reports, or over the 16-bit RTCP length). */
gsize rtpcc_ccfb_size (const RtpccCcfbBlockIn * blocks, guint n_blocks);
/* Writes one CCFB packet (no padding bit); returns its size or 0 if it does
 * not fit in @max or cannot be encoded. ECN and ATO of a not-received
 * packet are written as zero whatever the input says. */
gsize rtpcc_ccfb_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 report_timestamp, const RtpccCcfbBlockIn * blocks,
    guint n_blocks);
/* Parses exactly one RTCP packet (@len = its length field, padding
 * included: e.g. an RtpccRtcpPacket's data and len). NULL and @error (RTPCC_ERROR_PARSE) on: short input, version
 * ≠ 2, PT ≠ 205, FMT ≠ 11, a length field that disagrees with @len, bad
 * padding, a report block running past the report timestamp, num_reports
 * over 16384, or bytes left over. Not-received metrics are returned with
 * ECN and ATO zero. */
RtpccCcfb *rtpcc_ccfb_parse (const guint8 * pkt, gsize len, GError ** error);
void rtpcc_ccfb_free (RtpccCcfb * fb);

/* ATO of a packet that arrived @report_time_minus_arrival before the report
 * timestamp: rounded to 1/1024 s; over 0x1FFD → 0x1FFE (over-range);
 * negative or NONE → 0x1FFF (unavailable). */
guint16 rtpcc_ccfb_ato_from_delta (RtpccTime report_time_minus_arrival);
/* ATO → ns before the report timestamp (truncated). 0x1FFE (over-range) gives
 * RTPCC_TIME_INFINITE, 0x1FFF (unavailable) RTPCC_TIME_NONE: check both
 * before doing arithmetic. Only the low 13 bits of @ato are used. */
RtpccTime rtpcc_ccfb_ato_to_delta (guint16 ato);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtpccCcfb, rtpcc_ccfb_free)

G_END_DECLS

#endif

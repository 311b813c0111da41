/* RTCP (RFC 3550) on plain byte arrays: NTP time helpers, a validating
 * compound-packet iterator, SR/RR/SDES build and parse, and the receiver-side
 * statistics of RFC 3550 Appendix A.1/A.3/A.8 that fill a reception report.
 *
 * Compound packets. We write full compounds per RFC 3550 §6.1 — SR or RR
 * first, then SDES with a CNAME, then feedback (CCFB, …) — for every regular
 * report. Feedback sent between regular reports may be reduced-size RTCP
 * (RFC 5506): a lone RTPFB packet, only when the peer signalled rtcp-rsize.
 * The iterator accepts both; it reports which one it saw in
 * RtpccRtcpIter.reduced_size so a strict caller can refuse the latter.
 *
 * Everything here is pure: no clock is read. Times are RtpccTime (ns on the
 * caller's monotonic clock); ntp_offset maps that clock to NTP time (ns since
 * 1900-01-01), e.g. realtime − monotonic + RTPCC_NTP_UNIX_EPOCH_NS.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_RTCP_H__
#define __RTPCC_FEEDBACK_RTCP_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* RTCP packet types (RFC 3550 §12.1, RFC 4585 §6.1, RFC 3611). */
#define RTPCC_RTCP_SR    200
#define RTPCC_RTCP_RR    201
#define RTPCC_RTCP_SDES  202
#define RTPCC_RTCP_BYE   203
#define RTPCC_RTCP_APP   204
#define RTPCC_RTCP_RTPFB 205
#define RTPCC_RTCP_PSFB  206
#define RTPCC_RTCP_XR    207

#define RTPCC_RTCP_SDES_CNAME 1

/* Up to 31 report blocks fit the 5-bit count. */
#define RTPCC_RTCP_MAX_BLOCKS 31

/* 1970-01-01 − 1900-01-01 in ns: add to a Unix realtime to get NTP time. */
#define RTPCC_NTP_UNIX_EPOCH_NS \
  (G_GINT64_CONSTANT (2208988800) * RTPCC_NSEC_PER_SEC)

/* An LSR/DLSR round trip above this is treated as garbage (a stale or
 * forged LSR), not as a measurement. */
#define RTPCC_RTCP_RTT_MAX RTPCC_SEC (60)

/* ---- NTP ---------------------------------------------------------------- */

/* 64-bit NTP timestamp (32.32) of monotonic time @t; @ntp_offset is NTP time
 * (ns since 1900) minus monotonic time. Times before the NTP epoch give 0;
 * the seconds wrap modulo 2^32 (NTP era). The fraction is truncated. */
guint64   rtpcc_ntp_from_time (RtpccTime t, RtpccTime ntp_offset);
/* Inverse of rtpcc_ntp_from_time within NTP era 0 (rounded to nearest ns). */
RtpccTime rtpcc_ntp_to_time (guint64 ntp, RtpccTime ntp_offset);
/* The middle 32 bits (16.16), as in LSR and the CCFB report timestamp. */
guint32   rtpcc_ntp_short (guint64 ntp);
/* A 16.16 value (e.g. DLSR, or an RTT in those units) in ns, rounded. */
RtpccTime rtpcc_ntp_short_to_time (guint32 v);
/* A non-negative duration in 16.16 units, truncated, saturating at
 * 0xFFFFFFFF; negative or NONE gives 0. */
guint32   rtpcc_ntp_short_from_time (RtpccTime d);
/* Round trip from a report block (RFC 3550 §6.4.1): A − LSR − DLSR in 16.16
 * arithmetic modulo 2^32, so the 18.2-hour wrap of the short format is
 * harmless. RTPCC_TIME_NONE when @lsr is 0 (no SR received yet), when the
 * result is negative, or above RTPCC_RTCP_RTT_MAX. */
RtpccTime rtpcc_rtcp_rtt_from_lsr (guint32 now_ntp_short, guint32 lsr,
    guint32 dlsr);

/* ---- Compound packets -------------------------------------------------- */

/* One RTCP packet inside a compound. */
typedef struct
{
  guint8 pt;
  /* the low 5 bits of the first octet: RC/SC, or FMT for RTPFB/PSFB */
  guint8 count;
  gboolean padding;
  guint8 padding_len;           /* 0 unless @padding */
  const guint8 *data;           /* the packet as on the wire, header included */
  gsize len;                    /* (length + 1) * 4 bytes, padding included */
  const guint8 *body;           /* after the 4-byte header */
  gsize body_len;               /* up to the padding */
} RtpccRtcpPacket;

typedef struct
{
  const guint8 *data;
  gsize len;
  gsize offset;
  guint n_packets;
  /* TRUE if the first packet is not an SR or RR (RFC 5506 reduced-size) */
  gboolean reduced_size;
} RtpccRtcpIter;

/* Cheap RTP/RTCP demultiplexing on one port (RFC 5761 §4): version 2 and a
 * second octet in 192..223. Anything shorter than an RTCP header is not. */
gboolean rtpcc_rtcp_is_rtcp (const guint8 * data, gsize len);

/* Validates the whole compound before iteration starts (RFC 3550 A.2,
 * relaxed for RFC 5506): at least one packet; every packet version 2 with a
 * length that fits; lengths sum exactly to @len; padding only on the last
 * packet, its count a multiple of 4 in 4..(length * 4). FALSE on any
 * violation — a compound is used whole or not at all. */
gboolean rtpcc_rtcp_iter_init (RtpccRtcpIter * iter, const guint8 * data,
    gsize len);
/* The next packet, or FALSE at the end. */
gboolean rtpcc_rtcp_iter_next (RtpccRtcpIter * iter, RtpccRtcpPacket * out);

/* ---- SR / RR / SDES ---------------------------------------------------- */

/* A reception report block (RFC 3550 §6.4.1). */
typedef struct
{
  guint32 ssrc;
  guint8 fraction_lost;
  gint32 cumulative_lost;       /* 24-bit signed on the wire */
  guint32 ext_highest_seq;
  guint32 jitter;
  guint32 lsr;
  guint32 dlsr;
} RtpccRtcpReportBlock;

typedef struct
{
  guint32 ssrc;
  guint64 ntp;
  guint32 rtp_ts;
  guint32 packet_count;
  guint32 octet_count;
  guint n_blocks;
  RtpccRtcpReportBlock blocks[RTPCC_RTCP_MAX_BLOCKS];
} RtpccRtcpSR;

typedef struct
{
  guint32 ssrc;
  guint n_blocks;
  RtpccRtcpReportBlock blocks[RTPCC_RTCP_MAX_BLOCKS];
} RtpccRtcpRR;

/* Parse an SR / RR from an iterated packet. FALSE if the type is wrong or
 * the blocks announced do not fit. Bytes after the blocks (profile-specific
 * extensions) are ignored. */
gboolean rtpcc_rtcp_parse_sr (const RtpccRtcpPacket * pkt, RtpccRtcpSR * sr);
gboolean rtpcc_rtcp_parse_rr (const RtpccRtcpPacket * pkt, RtpccRtcpRR * rr);

/* Writers return the bytes written (a multiple of 4), or 0 if it does not
 * fit in @max or n_blocks > 31. Cumulative loss is clamped to 24 bits. */
gsize rtpcc_rtcp_write_sr (guint8 * buf, gsize max, const RtpccRtcpSR * sr);
gsize rtpcc_rtcp_write_rr (guint8 * buf, gsize max, const RtpccRtcpRR * rr);
/* An SDES packet with one chunk carrying only a CNAME (1..255 bytes of
 * UTF-8), null-terminated and padded to 32 bits as §6.5 requires. */
gsize rtpcc_rtcp_write_sdes_cname (guint8 * buf, gsize max, guint32 ssrc,
    const gchar * cname);

/* ---- Receiver statistics (RFC 3550 A.1, A.3, A.8) ---------------------- */

/* A.1 constants */
#define RTPCC_RTP_MAX_DROPOUT   3000
#define RTPCC_RTP_MAX_MISORDER  100
#define RTPCC_RTP_MIN_SEQUENTIAL 2

typedef struct
{
  guint32 ssrc;
  /* packets in sequence a new source needs before it is valid; set after
   * init, before the first packet (1 = valid on the first packet) */
  guint min_sequential;

  /* A.1 state */
  gboolean started;
  guint16 max_seq;
  guint32 cycles;               /* shifted count of wraps (multiples of 2^16) */
  guint32 base_seq;
  guint32 bad_seq;
  guint probation;
  guint32 received;
  guint32 expected_prior;
  guint32 received_prior;

  /* A.8 state */
  gboolean have_transit;
  guint32 transit;
  guint32 jitter_q4;            /* jitter × 16 (A.8's integer form) */
} RtpccRtpSourceStats;

void     rtpcc_rtp_source_init (RtpccRtpSourceStats * s, guint32 ssrc);
/* A.1 update_seq: TRUE if the packet counts (the source is valid and the
 * sequence number is plausible), FALSE while on probation or after a jump
 * that waits for confirmation. Duplicates and reordered packets count (and
 * can make the cumulative loss negative), as in the RFC. */
gboolean rtpcc_rtp_source_update_seq (RtpccRtpSourceStats * s, guint16 seq);
/* A.8 interarrival jitter. @arrival is converted to RTP units of
 * @clock_rate; the first call only primes the transit time. */
void     rtpcc_rtp_source_update_jitter (RtpccRtpSourceStats * s,
    RtpccTime arrival, guint32 rtp_ts, guint32 clock_rate);
guint32  rtpcc_rtp_source_ext_highest_seq (const RtpccRtpSourceStats * s);
/* Jitter in RTP timestamp units, as reported. */
guint32  rtpcc_rtp_source_jitter (const RtpccRtpSourceStats * s);
/* Fill a report block (A.3: fraction lost since the previous call, which
 * this call resets; cumulative loss clamped to 24-bit signed). DLSR is
 * @now − @last_sr_arrival in 1/65536 s, or 0 when @lsr is 0 or
 * @last_sr_arrival is NONE. FALSE (and nothing changed) while the source is
 * not valid yet: a report must not be sent for it. */
gboolean rtpcc_rtp_source_make_report_block (RtpccRtpSourceStats * s,
    RtpccTime now, guint32 lsr, RtpccTime last_sr_arrival,
    RtpccRtcpReportBlock * out);

G_END_DECLS

#endif

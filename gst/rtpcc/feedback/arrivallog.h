/* The per-packet arrival log: what a receiver saw, per media SSRC, and the
 * RFC 8888 feedback built from it.
 *
 * One ring per SSRC holds the last sequence numbers (extended to 64 bits)
 * with arrival time and ECN mark: at most @capacity of them, and as many
 * as the stream needs. It starts at RTPCC_ARRIVAL_LOG_START_CAPACITY and
 * doubles when the entry it would overwrite still matters: it arrived
 * within RTPCC_ARRIVAL_LOG_KEEP, or it is still to be reported (fewer
 * than @redundancy reports covered it, or it is the late packet the next
 * report reaches back to). Its memory follows the packet rate and the
 * feedback interval, not the most the stream could ever use. Feedback generators (CCFB here;
 * TWCC, XR and loss accounting later) read it instead of keeping their own
 * copies, so every report agrees on what arrived when.
 *
 * Extended sequence numbers are 64-bit counters with (ext & 0xFFFF) == seq;
 * the first packet of an SSRC gets 65536 + seq, so reordering before it
 * never goes below zero. A 16-bit seq is unwrapped to the value nearest the
 * highest one seen.
 *
 * CCFB coverage policy (rtpcc_arrival_log_write_ccfb): per SSRC, a report
 * covers every sequence number after the highest one that the report
 * @redundancy reports before it covered, up to the highest received
 * (default 2: each packet is in two consecutive reports). So every packet,
 * received or not, is reported a fixed number of times, whatever the loss:
 * one lost report loses no information, and the feedback's size does not
 * grow with the media's loss (a report that reached back to every
 * unacknowledged packet of the last 500 ms re-reported everything since
 * the first loss). One exception, bounded too: a packet that arrives out
 * of order while fewer than RTPCC_NDUPACK later packets have arrived makes
 * the next report reach back to it once, since the sender declares a
 * missing packet lost only when that many have (RFC 5348 §5.1): a
 * reordered packet is reported received in time. Later than that, it is
 * not reported again; the sender has declared it lost.
 * The range is limited to the newest @max_reports_per_ssrc packets (and to
 * the ring and RFC 8888's 16384); older, never-reported packets beyond it
 * are left out, which the sender must treat as unreported: neither received
 * nor lost. If @max bytes cannot hold every block, the oldest packets of
 * the largest blocks are dropped first. An SSRC with nothing new, but which
 * sent within the inactivity timeout (default 5 s), gets an empty block
 * (num_reports 0, begin_seq = its highest sequence number) so the sender
 * learns that nothing arrived.
 *
 * Duplicates keep the first arrival time; a CE-marked copy marks the packet
 * CE (RFC 8888 §3.1). A packet more than 16384 behind the highest is
 * dropped, unless the next packet follows it: then the sender restarted its
 * sequence numbers (RFC 3550 A.1's rule) and the SSRC starts afresh, with
 * extended numbers above all earlier ones.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_ARRIVALLOG_H__
#define __RTPCC_FEEDBACK_ARRIVALLOG_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_ARRIVAL_LOG_MIN_CAPACITY 16
#define RTPCC_ARRIVAL_LOG_MAX_CAPACITY 16384
#define RTPCC_ARRIVAL_LOG_START_CAPACITY 64
#define RTPCC_ARRIVAL_LOG_KEEP RTPCC_SEC (2)
/* SSRCs tracked at once; a new one evicts the longest silent */
#define RTPCC_ARRIVAL_LOG_MAX_SSRCS 64
/* reports that cover each packet */
#define RTPCC_ARRIVAL_LOG_DEFAULT_REDUNDANCY 2
#define RTPCC_ARRIVAL_LOG_MAX_REDUNDANCY 8
#define RTPCC_ARRIVAL_LOG_DEFAULT_INACTIVE_TIMEOUT RTPCC_SEC (5)

typedef struct _RtpccArrivalLog RtpccArrivalLog;

/* @capacity packets per SSRC, clamped to [16, 16384]. */
RtpccArrivalLog *rtpcc_arrival_log_new (guint capacity);
void     rtpcc_arrival_log_free (RtpccArrivalLog * log);
guint    rtpcc_arrival_log_get_capacity (const RtpccArrivalLog * log);
/* Entries the ring of @ssrc holds now (0: no such SSRC). */
guint    rtpcc_arrival_log_get_stream_capacity (const RtpccArrivalLog * log,
    guint32 ssrc);

/* @reports (clamped to [1, RTPCC_ARRIVAL_LOG_MAX_REDUNDANCY]) consecutive
 * reports cover each packet */
void     rtpcc_arrival_log_set_redundancy (RtpccArrivalLog * log,
    guint reports);
void     rtpcc_arrival_log_set_inactive_timeout (RtpccArrivalLog * log,
    RtpccTime timeout);

/* Logs a packet. TRUE if it is new; FALSE for a duplicate (its CE mark is
 * still merged) or a packet older than the ring. */
gboolean rtpcc_arrival_log_add (RtpccArrivalLog * log, guint32 ssrc,
    guint16 seq, RtpccTime arrival, guint8 ecn);
/* Forgets an SSRC (RTCP BYE, or a new SSRC after a collision). */
void     rtpcc_arrival_log_remove_ssrc (RtpccArrivalLog * log, guint32 ssrc);

/* @seq extended against the SSRC's highest; FALSE if the SSRC is unknown. */
gboolean rtpcc_arrival_log_extend_seq (const RtpccArrivalLog * log,
    guint32 ssrc, guint16 seq, guint64 * ext_seq);
/* Highest extended seq received, and unique packets logged so far. */
gboolean rtpcc_arrival_log_get_highest (const RtpccArrivalLog * log,
    guint32 ssrc, guint64 * ext_seq, guint64 * n_received);
/* TRUE if @ext_seq was received and is still in the ring; @arrival and
 * @ecn may be NULL. */
gboolean rtpcc_arrival_log_lookup (const RtpccArrivalLog * log, guint32 ssrc,
    guint64 ext_seq, RtpccTime * arrival, guint8 * ecn);

/* Builds one CCFB packet (RFC 8888) into @buf for all active SSRCs and
 * marks what it covered as reported. The report timestamp is @now in NTP
 * (ntp_offset: NTP − monotonic, see rtcp.h) rounded up to 1/65536 s, so
 * that no packet logged before @now counts as arriving after it. Returns
 * the bytes written, or 0 when there is nothing to report or it cannot fit
 * (then nothing is marked). @max_reports_per_ssrc = 0 means the ring
 * capacity. */
gsize    rtpcc_arrival_log_write_ccfb (RtpccArrivalLog * log, RtpccTime now,
    RtpccTime ntp_offset, guint32 sender_ssrc, guint max_reports_per_ssrc,
    guint8 * buf, gsize max);

G_END_DECLS

#endif

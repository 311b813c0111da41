/* RtpccFeedbackAdapter: every feedback format a sender hears, turned into
 * one per-packet report type for the controller.
 *
 * What libwebrtc's TransportFeedbackAdapter does for its controllers:
 *
 *   RFC 8888 CCFB     packets by SSRC + RTP seq, arrival as an offset from
 *                     the report time (1/1024 s)              ┐
 *   transport-wide CC packets by transport-wide seq, arrival  ├▶ RtpccPacketReport
 *                     deltas (250 µs), no report time         ┘   + RTT sample
 *   RTCP XR           Discard RLE (RFC 7097): received, then discarded late
 *                     Delay Metrics (RFC 6843): the receiver's round trip
 *                     ─▶ the controller (FBRA's one-way delay)
 *                     Loss RLE (RFC 3611): RR mode's per-packet feedback
 *                     (received or not, no arrival time) ─▶ RtpccPacketReport
 *                     Loss / Post-repair RLE, Discard Count, Bytes
 *                     Discarded, De-jitter Buffer: into the stats
 *   RR report blocks  fraction lost, LSR/DLSR round trip ─▶ RtpccReceiverReport
 *
 * Each sent packet is reported exactly once: received (its arrival mapped
 * from the receiver's clock onto ours with a constant unknown offset, so
 * only differences between arrivals mean anything), or lost once reported
 * missing and NDUPACK later packets arrived, or — all reports about it lost
 * — counted as unreported (RtpccSentHistory). Reports go out in ascending
 * sender-wide seq. The adapter also keeps what a sender measures from
 * feedback: RTT (RFC 6298 smoothing), the media loss fraction, the receive
 * rate, the one-way queueing delay, and the loss-event rate the circuit
 * breaker's TCP equation wants between two RTCP reports.
 *
 * Plausibility. Feedback steers the sender's rate, and anyone who can put
 * the peer's address on a datagram can send some. A per-packet report
 * (one CCFB or TWCC packet) is checked whole before anything in it is
 * used, and dropped (counted) if
 *   - it is implausible: it acknowledges a packet never sent (beyond the
 *     newest one sent on its SSRC, or transport-wide), or it is older than
 *     a report already used (CCFB report timestamp: reordered on the way,
 *     or replayed);
 *   - it contradicts an earlier one: a packet reported received is now
 *     reported missing, or received at another time (beyond the format's
 *     resolution: a receiver reports the same arrival each time). One of
 *     the two lies; the sender cannot tell which, so neither counts for the
 *     delivery rate (the packets' acknowledgements are withdrawn) and the
 *     sender's target may not rise for a while (target.h).
 * Packets no longer in the history (too old to check) are skipped, as
 * before. The delivery rate derived from acknowledgements never exceeds
 * the rate the packets were sent at (deliveryrate.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_ADAPTER_H__
#define __RTPCC_FEEDBACK_ADAPTER_H__

#include <rtpcc/common.h>
#include <rtpcc/packet.h>
#include <rtpcc/controller.h>
#include <rtpcc/senthistory.h>
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/twcc.h>

G_BEGIN_DECLS

typedef struct _RtpccFeedbackAdapter RtpccFeedbackAdapter;

/* RTCP XR blocks about our media (feedback/xr.h), Discard RLE aside */
typedef struct
{
  /* blocks used; blocks dropped (in a packet the strict parser refused,
   * or with an I / DT value the block's RFC does not allow) */
  guint64 blocks, dropped;
  /* packets reported in Loss RLE (RFC 3611) and Post-repair Loss RLE
   * (RFC 5725) blocks, lost (bit 0) and received */
  guint64 loss_lost, loss_received;
  guint64 post_repair_lost, post_repair_received;
  /* the latest Discard Count (RFC 7002) and Bytes Discarded (RFC 7243):
   * cumulative counts as the receiver sends them, interval ones summed */
  guint64 discarded_packets, discarded_bytes;
  /* the latest Delay Metrics (RFC 6843) round trip, NONE if unavailable */
  RtpccTime rtt_mean, rtt_min, rtt_max;
  /* the latest De-jitter Buffer Metrics (RFC 7005), NONE if unavailable */
  RtpccTime djb_nominal, djb_maximum, djb_high, djb_low;
} RtpccXrFeedbackStats;

typedef struct
{
  RtpccTime rtt;                /* latest sample, RTPCC_TIME_NONE if none */
  RtpccTime srtt;
  gdouble loss;                 /* media loss fraction, EWMA per feedback */
  /* over every packet on the wire, the last few thousand (lossburst.h):
   * the loss rate, and the mean loss burst (0: no loss) */
  gdouble loss_window, loss_burst;
  guint64 receive_rate;         /* bit/s, from the receiver's arrival times */
  RtpccTime queue_delay;        /* one-way delay above the observed minimum */
  guint64 reported_received, reported_lost, reported_discarded;
  guint64 probe_reported_received;      /* padding probes reported received */
  guint64 rtcp_received;        /* valid RTCP packets about our media */
  guint64 rtcp_malformed;       /* dropped: not parseable */
  guint64 rtcp_unknown_ssrc;    /* dropped: about an SSRC we do not send */
  /* per-packet reports dropped as implausible / contradictory (above) */
  guint64 feedback_implausible, feedback_contradictory;
  RtpccTime last_contradiction; /* NONE if never */
  guint64 delivery_rate;        /* bit/s, deliveryrate.h (0: none yet) */
  RtpccXrFeedbackStats xr;
  gboolean any_rtcp;            /* a valid RTCP compound was seen */
  gboolean has_feedback;        /* feedback of the configured mode was seen */
} RtpccFeedbackAdapterStats;

/* Where the results go, in the order the compound carries them (a
 * sender's controller and circuit breaker). */
typedef struct
{
  /* a valid compound arrived (a sign of life for the RFC 8083 breaker,
   * before anything in it is handled) */
  void (*rtcp) (gpointer user_data, RtpccTime now);
  /* a report block about our media: @rr for the controller; @breaker_rr
   * for the breaker, whose fraction lost is the loss-event rate measured
   * from per-packet feedback since the last report (RR's fraction counts
   * every packet of a drop-tail burst; RFC 8083 §4.3's TCP equation wants
   * events), or the RR's own without per-packet feedback */
  void (*receiver_report) (gpointer user_data, RtpccTime now,
      const RtpccReceiverReport * rr, const RtpccReceiverReport * breaker_rr);
  /* packets reported received before that the receiver then discarded as
   * too late (XR Discard RLE): with the next per-packet feedback of the
   * compound, or at once without per-packet feedback (RR mode) */
  void (*discards) (gpointer user_data, RtpccTime now,
      const RtpccPacketReport * reports, guint n_reports);
  /* a per-packet feedback about our media was handled; @fb is NULL when it
   * resolved no packet (nothing for a controller) */
  void (*feedback) (gpointer user_data, RtpccTime now,
      const RtpccFeedback * fb);
  /* optional: an XR Delay Metrics block about our media (RFC 6843):
   * mean, min, max network round trip, NONE where unavailable */
  void (*xr_delay) (gpointer user_data, RtpccTime now, RtpccTime mean_rtt,
      RtpccTime min_rtt, RtpccTime max_rtt);
} RtpccFeedbackSink;

/* @history is the sender's (not owned); @ntp_offset maps our clock to NTP
 * (for LSR/DLSR). */
RtpccFeedbackAdapter *rtpcc_feedback_adapter_new (RtpccSentHistory * history,
    RtpccFeedbackMode mode, RtpccTime ntp_offset,
    const RtpccFeedbackSink * sink, gpointer user_data);
void rtpcc_feedback_adapter_free (RtpccFeedbackAdapter * adapter);

/* An RTCP compound (or reduced-size packet) from the peer, arrived at
 * @now. TRUE if something in it was about our media. Malformed packets,
 * and reports only about SSRCs we do not send, are dropped and counted. */
gboolean rtpcc_feedback_adapter_receive (RtpccFeedbackAdapter * adapter,
    RtpccTime now, const guint8 * data, gsize len);

/* Transport-wide CC feedback that is already parsed (@fb in the sender's
 * transport-wide numbering; see transportfeedback.h), arrived at @now:
 * handled as an RTCP packet holding only it. TRUE if it was about our
 * media. */
gboolean rtpcc_feedback_adapter_receive_twcc (RtpccFeedbackAdapter * adapter,
    RtpccTime now, const RtpccTwcc * fb);

/* Feedback has stopped (the no-feedback timer, nofeedback.h) and this is
 * @now: packets sent before @now that are reported later crossed an outage
 * (held in a queue, or the feedback about them was), so their delay
 * measures the outage, not the path. Their RTTs (and LSR/DLSR RTTs of SRs
 * sent before @now) are not samples, as Karn's algorithm leaves out the
 * RTT of a segment sent before a retransmission timeout (RFC 6298 §3):
 * one 30 s sample would hold srtt, every RTT-scaled gain and the restart's
 * doubling period up for seconds after the path is back. */
void rtpcc_feedback_adapter_outage (RtpccFeedbackAdapter * adapter,
    RtpccTime now);

const RtpccFeedbackAdapterStats
    * rtpcc_feedback_adapter_get_stats (const RtpccFeedbackAdapter * adapter);

G_END_DECLS

#endif

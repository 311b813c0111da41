/* RtpccNoFeedback: what every controller does when feedback stops.
 *
 * RFC 5348 §4.4's no-feedback timer, for any controller. While we send and
 * no feedback shows progress — per-packet feedback resolving packets, or,
 * for a controller that only hears RTCP receiver reports, a report whose
 * highest sequence number advanced — for an interval T, the rate is
 * halved, and again after every further T, down to the minimum:
 *
 *   T = max (4 × srtt, 4 × the mean gap between feedbacks, 500 ms)
 *
 * RFC 5348's max (4 R, 2 s / X) for feedback that comes once per RTT; ours
 * comes per frame (CCFB) or per second (RR), so four of whichever is
 * longer: one or two lost reports never halve the rate, a link or a
 * feedback path that died does within a fraction of a second, long before
 * the RFC 8083 circuit breaker's 3 × 5 s. The floor keeps a short-RTT
 * path's host from halving the rate over a scheduling stall (a loaded
 * 2-core machine stalls a real-time pipeline for a few hundred ms). It runs
 * once feedback has been seen (and T is 2 s, RFC 5348 §4.2's initial value,
 * until a second feedback shows the rhythm): a receiver that never answers
 * is the RFC 8083 breaker's RTCP timeout and the sender's feedback-problem.
 * An idle sender expects no feedback: the halving pauses until it sends
 * again.
 *
 * The controller hears of each halving (RtpccControllerOps.on_no_feedback)
 * and lowers its own state, so that it restarts from there when feedback
 * returns. The cap stays in force after that, doubling per RTT (slow start
 * after a retransmission timeout, RFC 5681 §3.1; at least 100 ms per
 * doubling) until the controller's own target is below it: a controller
 * that kept the rate it had before the stop still climbs back to it
 * instead of jumping.
 *
 * Sans I/O: the controller wrapper (controller.c) feeds it and applies the
 * cap; times are arguments.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_NO_FEEDBACK_H__
#define __RTPCC_NO_FEEDBACK_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_NO_FEEDBACK_INTERVALS 4
#define RTPCC_NO_FEEDBACK_MIN_TIMEOUT RTPCC_MSEC (500)
#define RTPCC_NO_FEEDBACK_MIN_DOUBLING RTPCC_MSEC (100)
/* T until the feedback's rhythm is known (RFC 5348 §4.2's initial value) */
#define RTPCC_NO_FEEDBACK_INITIAL RTPCC_SEC (2)

typedef struct
{
  /*< private > */
  guint64 min_bitrate;
  RtpccTime last_progress;      /* NONE before the first feedback */
  RtpccTime first_unanswered;   /* first send since then, NONE if none */
  RtpccTime gap;                /* mean gap between feedbacks, 0: unknown */
  RtpccTime srtt;               /* NONE: unknown */
  RtpccTime stopped_at;         /* the first halving, NONE: not stopped */
  RtpccTime next_halving;       /* NONE while idle */
  RtpccTime restored_at;        /* feedback back, cap ramping; NONE */
  guint64 cap;                  /* bit/s, 0: no cap */
  guint64 cap_at_restore;
  guint halvings;               /* since feedback stopped */
  guint64 packets_unanswered;   /* sent since the last progress */
  gboolean per_packet;          /* per-packet feedback seen: RRs don't count */
  guint32 rr_ssrc[4], rr_seq[4];        /* last extended highest seq per SSRC */
  guint n_rr;
  /* the controller's own target when the wrapper last capped it, and the
   * generation that capping produced (controller.c) */
  guint64 own_target, own_fec, capped_generation;
  gdouble own_pacing_factor;
  const gchar *own_state, *own_reason;
} RtpccNoFeedback;

void rtpcc_no_feedback_init (RtpccNoFeedback * nf, guint64 min_bitrate);

/* We sent a packet. */
void rtpcc_no_feedback_on_sent (RtpccNoFeedback * nf, RtpccTime now);
/* Per-packet feedback that resolved packets arrived; @srtt the sender's
 * smoothed RTT (or NONE). TRUE when it ends a stop. */
gboolean rtpcc_no_feedback_on_feedback (RtpccNoFeedback * nf, RtpccTime now,
    RtpccTime srtt);
/* An RTCP report block about our @ssrc: progress if its extended highest
 * sequence number advanced and no per-packet feedback was ever seen (with
 * it, RRs say nothing the per-packet feedback does not); @rtt from
 * LSR/DLSR or NONE. TRUE when it ends a stop. */
gboolean rtpcc_no_feedback_on_report (RtpccNoFeedback * nf, RtpccTime now,
    guint32 ssrc, guint32 ext_highest_seq, RtpccTime rtt);

/* When the next halving is due (RTPCC_TIME_NONE: none can be). */
RtpccTime rtpcc_no_feedback_deadline (const RtpccNoFeedback * nf);
/* At or after the deadline: halves (the first time: @target, the
 * controller's rate) and returns the new cap; 0 if nothing was sent since
 * the previous halving (no halving: the timer pauses until we send). */
guint64 rtpcc_no_feedback_expire (RtpccNoFeedback * nf, RtpccTime now,
    guint64 target);

/* The cap on the target at @now (0: none): the halved rate while feedback
 * is missing, then growing; released (0) for good once @target, the
 * controller's own, is no higher. */
guint64 rtpcc_no_feedback_cap (RtpccNoFeedback * nf, RtpccTime now,
    guint64 target);

/* TRUE while feedback is missing (from the first halving until progress);
 * @since: when the last progress was. */
gboolean rtpcc_no_feedback_stopped (const RtpccNoFeedback * nf,
    RtpccTime * since);

/* The interval T now. */
RtpccTime rtpcc_no_feedback_interval (const RtpccNoFeedback * nf);

G_END_DECLS

#endif

/* "rrtcc": the sender half of the 2013 RTCWEB congestion control
 * (draft-alvestrand-rtcweb-congestion-03 §4; the "receive-side real-time
 * congestion control" Singh et al. measured, Packet Video 2013). The
 * receiver estimates the path from arrival times and sends REMB
 * (rtpccsrc remb=true, rembestimator.h); the sender keeps a loss-based
 * rate As, updated at each RTCP receiver report from its fraction lost p:
 *
 *   p > 10 %          As = As (1 - 0.5 p)
 *   2 % <= p <= 10 %  As unchanged
 *   p < 2 %           As = 1.05 (As + 1 kbit/s)
 *
 * and bounded below by the TCP throughput equation for that p and RTT
 * (RFC 5348 §3.1, the draft's TFRC rate; only while there is loss) and
 * above by the receiver's estimate A (REMB; or a TMMBR): As <= A holds in
 * the state, not only in what is published, so As does not grow out of
 * reach of A while A holds it back. Without a REMB it is the loss rule
 * alone. The reports come once per RR interval (the receiver's RTCP
 * interval, 1 s by default): the rule's 5 % per report is 5 % per second.
 *
 * A report showing nothing new received of what we sent says nothing
 * about loss and is not acted on. When feedback stops, As halves once (as the no-feedback timer's cap
 * would), and the first report after it is not taken as the loss of the
 * outage.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/rrrate.h>

#define LOSS_HIGH 0.10
#define LOSS_LOW 0.02
#define INCREASE 1.05
#define INCREASE_ADD 1000.0     /* bit/s */

typedef struct
{
  RtpccController parent;
  RtpccRrRate r;                /* r.rate is As */
} Rrtcc;

static void
rrtcc_init (RtpccController * cc, RtpccTime now)
{
  rtpcc_rr_rate_init (&((Rrtcc *) cc)->r, cc);
}

static void
rrtcc_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  rtpcc_rr_rate_on_sent (&((Rrtcc *) cc)->r, pkt);
}

static void
rrtcc_on_receiver_report (RtpccController * cc, RtpccTime now,
    const RtpccReceiverReport * rr)
{
  RtpccRrRate *r = &((Rrtcc *) cc)->r;
  gdouble p = rr->fraction_lost / 256.0, x;

  switch (rtpcc_rr_rate_admit (r, rr)) {
    case RTPCC_RR_RATE_IGNORE:
      return;
    case RTPCC_RR_RATE_PUBLISH:
      rtpcc_rr_rate_publish (r, cc);
      return;
    case RTPCC_RR_RATE_ACT:
      break;
  }
  if (p > LOSS_HIGH) {
    r->rate *= 1.0 - 0.5 * p;
    r->state = "decrease";
    r->reason = "loss";
  } else if (p >= LOSS_LOW) {
    r->state = "hold";
    r->reason = "some-loss";
  } else {
    r->rate = INCREASE * (r->rate + INCREASE_ADD);
    r->state = "increase";
    r->reason = "no-loss";
  }
  /* never below what TCP would get on this path (the draft's TFRC
   * bound): a loss rate a TCP flow lives with is not congestion we
   * caused */
  x = rtpcc_rr_rate_tcp (r, p, rr->rtt);
  if (r->rate < x) {
    r->rate = x;
    r->reason = "tfrc-floor";
  }
  if (r->rate > (gdouble) r->limit)
    r->reason = "receiver-estimate";
  rtpcc_rr_rate_clamp (r, cc);
  rtpcc_rr_rate_publish (r, cc);
}

static void
rrtcc_on_receiver_limit (RtpccController * cc, RtpccTime now, guint64 limit)
{
  rtpcc_rr_rate_set_limit (&((Rrtcc *) cc)->r, cc, limit);
}

static void
rrtcc_on_no_feedback (RtpccController * cc, RtpccTime now, guint64 rate)
{
  RtpccRrRate *r = &((Rrtcc *) cc)->r;

  /* As halves once (as the no-feedback timer's cap would) */
  rtpcc_rr_rate_no_feedback (r, cc, r->restart ? r->rate : r->rate / 2.0);
}

const RtpccControllerOps rtpcc_cc_rrtcc_ops = {
  .name = "rrtcc",
  .description = "2013 RTCWEB congestion control, sender half: loss-based "
      "rate under the receiver's REMB estimate (rtpccsrc remb=true)",
  .instance_size = sizeof (Rrtcc),
  .init = rrtcc_init,
  .on_packet_sent = rrtcc_on_packet_sent,
  .on_receiver_report = rrtcc_on_receiver_report,
  .on_receiver_limit = rrtcc_on_receiver_limit,
  .on_no_feedback = rrtcc_on_no_feedback,
};

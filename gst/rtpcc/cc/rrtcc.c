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
#include <rtpcc/tcpeq.h>

#define LOSS_HIGH 0.10
#define LOSS_LOW 0.02
#define INCREASE 1.05
#define INCREASE_ADD 1000.0     /* bit/s */
#define PACING_FACTOR 1.25
/* the mean packet size (bytes) for the equation, before one is measured */
#define DEFAULT_PACKET_SIZE 1200.0

typedef struct
{
  RtpccController parent;
  gdouble as;                   /* bit/s */
  guint64 limit;                /* the receiver's A, G_MAXUINT64 = none */
  gdouble packet_size;          /* EWMA of the media packets sent, bytes */
  gboolean restart;             /* feedback stopped */
  guint32 last_hsn;
  gboolean seen_report;
  const gchar *state;
  const gchar *reason;
} Rrtcc;

static void
rrtcc_clamp (Rrtcc * r)
{
  RtpccController *cc = &r->parent;
  gdouble hi = MIN ((gdouble) cc->config.max_bitrate, (gdouble) r->limit);

  r->as = CLAMP (r->as, (gdouble) cc->config.min_bitrate,
      MAX (hi, (gdouble) cc->config.min_bitrate));
}

static void
rrtcc_publish (Rrtcc * r)
{
  rtpcc_controller_update_target (&r->parent, (guint64) r->as, 0,
      PACING_FACTOR, r->state, r->reason);
}

static void
rrtcc_init (RtpccController * cc, RtpccTime now)
{
  Rrtcc *r = (Rrtcc *) cc;

  r->as = cc->config.start_bitrate ? (gdouble) cc->config.start_bitrate :
      (gdouble) cc->config.min_bitrate;
  r->limit = G_MAXUINT64;
  r->packet_size = DEFAULT_PACKET_SIZE;
  r->state = "hold";
  r->reason = "initial";
  rrtcc_clamp (r);
  rrtcc_publish (r);
}

static void
rrtcc_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  Rrtcc *r = (Rrtcc *) cc;

  if (!pkt->is_fec && pkt->size > 0)
    r->packet_size = 0.95 * r->packet_size + 0.05 * pkt->size;
}

static void
rrtcc_on_receiver_report (RtpccController * cc, RtpccTime now,
    const RtpccReceiverReport * rr)
{
  Rrtcc *r = (Rrtcc *) cc;
  gdouble p = rr->fraction_lost / 256.0;

  if (r->restart) {
    gboolean progress = rr->ext_highest_seq != r->last_hsn;

    r->last_hsn = rr->ext_highest_seq;
    if (!progress)
      return;
    /* the first report after the stop: its loss is the outage's */
    r->restart = FALSE;
    r->reason = "feedback-back";
    rrtcc_publish (r);
    return;
  }
  if (rr->ext_highest_seq == r->last_hsn && rr->packets_sent_interval > 0
      && r->seen_report) {
    /* nothing arrived of what we sent: its "no loss" means nothing (the
     * no-feedback timer deals with the silence) */
    r->state = "hold";
    r->reason = "no-progress";
    rrtcc_publish (r);
    return;
  }
  r->seen_report = TRUE;
  r->last_hsn = rr->ext_highest_seq;
  if (p > LOSS_HIGH) {
    r->as *= 1.0 - 0.5 * p;
    r->state = "decrease";
    r->reason = "loss";
  } else if (p >= LOSS_LOW) {
    r->state = "hold";
    r->reason = "some-loss";
  } else {
    r->as = INCREASE * (r->as + INCREASE_ADD);
    r->state = "increase";
    r->reason = "no-loss";
  }
  /* never below what TCP would get on this path (the draft's TFRC
   * bound): a loss rate a TCP flow lives with is not congestion we
   * caused */
  if (p > 0 && rr->rtt != RTPCC_TIME_NONE && rr->rtt > 0) {
    gdouble x = 8.0 * rtpcc_tcpeq_throughput (r->packet_size,
        RTPCC_TIME_AS_SEC (rr->rtt), p);

    if (r->as < x) {
      r->as = x;
      r->reason = "tfrc-floor";
    }
  }
  if (r->as > (gdouble) r->limit)
    r->reason = "receiver-estimate";
  rrtcc_clamp (r);
  rrtcc_publish (r);
}

static void
rrtcc_on_receiver_limit (RtpccController * cc, RtpccTime now, guint64 limit)
{
  Rrtcc *r = (Rrtcc *) cc;

  r->limit = limit;
  if (r->as > (gdouble) limit) {
    r->reason = "receiver-estimate";
    rrtcc_clamp (r);
    rrtcc_publish (r);
  }
}

static void
rrtcc_on_no_feedback (RtpccController * cc, RtpccTime now, guint64 rate)
{
  Rrtcc *r = (Rrtcc *) cc;

  if (!r->restart) {
    r->as /= 2.0;
    r->restart = TRUE;
    rrtcc_clamp (r);
  }
  r->reason = "no-feedback";
  rrtcc_publish (r);
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

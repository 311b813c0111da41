/* "cnadu": the sender half of C-NADU, the cooperative congestion control
 * of Singh, Ott and Curcio ("Rate adaptation for conversational 3G
 * video", INFOCOM Workshops 2009; Singh's thesis, Aalto 2015, §4.1.3).
 * Its receiver (rtpccsrc nadu=true, naduestimator.h) judges frames against
 * their playout deadline, reports its playout buffer in NADU and sends its
 * estimate as a REMB. The sender "computes the TCP-friendly rate, measures
 * RTT variation (75th and 90th percentile), the fraction of video frames
 * that missed their playout deadline" and chooses its rate from these
 * cues and the receiver's estimate, "a value in between". The
 * publications give no constants or combination rule; ours, once per
 * receiver report (its cues evaluated after the whole compound, so the
 * NADU and REMB of the same report count):
 *
 *   cues: p, the RR's fraction lost; the RR's round trip against the
 *         75th / 90th percentiles of the previous 32 (once 8 are known);
 *         m, the packets the receiver discarded as late (XR Discard RLE:
 *         frames that missed their deadline) over those sent; and the
 *         NADU's playout delay "not defined": no frame waits to play.
 *   the sender's estimate S, from the rate R now published:
 *   decrease (S = 0.85 R, or R (1 - p / 2) when lower): m > 0, the buffer
 *         empty, p > 10 %, or the RTT above its p90;
 *   hold (S = R): p >= 2 % or the RTT above its p75;
 *   increase: S = 1.05 (R + 1 kbit/s);
 *   S never below the TCP throughput equation for p and the RTT (RFC 5348
 *   §3.1) while there is loss: what a TCP flow would get on the path;
 *   then, with the receiver's estimate A: R = A when A < S; when A is
 *   above and this report increased, R halfway from S to A (the value "in
 *   between"); else R = S.
 *
 * A stays a maximum, as REMB means (the sender enforces it over any
 * controller): where the receiver sees frames late it knows before the
 * sender does. Against a loss-based flow that keeps the queue full, the
 * receiver stops cutting for lateness (its competitor rule,
 * naduestimator.h) and the loss rules set the share.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/rrrate.h>

#define LOSS_HIGH 0.10
#define LOSS_LOW 0.02
#define DECREASE 0.85
#define INCREASE 1.05
#define INCREASE_ADD 1000.0     /* bit/s */
#define RTT_SAMPLES 32
#define RTT_MIN_SAMPLES 8

typedef struct
{
  RtpccController parent;
  RtpccRrRate r;                /* r.rate is R, r.limit A */
  RtpccTime rtts[RTT_SAMPLES];  /* ring of the previous round trips */
  guint rtt_head, n_rtts;
  guint discarded;              /* media packets discarded since the RR */
  gboolean buffer_empty;        /* the last NADU had no playout delay */
  gboolean pending;             /* an RR waits for the tick */
  RtpccReceiverReport rr;
} Cnadu;

static void
cnadu_init (RtpccController * cc, RtpccTime now)
{
  cc->next_tick = RTPCC_TIME_NONE;
  rtpcc_rr_rate_init (&((Cnadu *) cc)->r, cc);
}

static void
cnadu_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  rtpcc_rr_rate_on_sent (&((Cnadu *) cc)->r, pkt);
}

static int
cmp_time (gconstpointer a, gconstpointer b)
{
  RtpccTime x = *(const RtpccTime *) a, y = *(const RtpccTime *) b;

  return x < y ? -1 : x > y;
}

/* The @q quantile (nearest rank) of the previous round trips. */
static RtpccTime
rtt_quantile (const Cnadu * c, const RtpccTime * sorted, gdouble q)
{
  guint i = (guint) (q * c->n_rtts + 0.999999);

  return sorted[CLAMP (i, 1, c->n_rtts) - 1];
}

static void
cnadu_on_receiver_report (RtpccController * cc, RtpccTime now,
    const RtpccReceiverReport * rr)
{
  Cnadu *c = (Cnadu *) cc;

  c->rr = *rr;
  c->pending = TRUE;
  cc->next_tick = now;
}

static void
evaluate (Cnadu * c, const RtpccReceiverReport * rr)
{
  RtpccRrRate *r = &c->r;
  gdouble p = rr->fraction_lost / 256.0, m, est;
  gboolean rtt_high = FALSE, rtt_up = FALSE;

  if (rr->rtt != RTPCC_TIME_NONE && rr->rtt > 0) {
    if (c->n_rtts >= RTT_MIN_SAMPLES) {
      RtpccTime sorted[RTT_SAMPLES];
      memcpy (sorted, c->rtts, c->n_rtts * sizeof (RtpccTime));
      qsort (sorted, c->n_rtts, sizeof (RtpccTime), cmp_time);
      rtt_high = rr->rtt > rtt_quantile (c, sorted, 0.90);
      rtt_up = rr->rtt > rtt_quantile (c, sorted, 0.75);
    }
    c->rtts[c->rtt_head] = rr->rtt;
    c->rtt_head = (c->rtt_head + 1) % RTT_SAMPLES;
    c->n_rtts = MIN (c->n_rtts + 1, RTT_SAMPLES);
  }
  m = rr->packets_sent_interval > 0 ?
      (gdouble) c->discarded / rr->packets_sent_interval : 0.0;
  c->discarded = 0;

  if (m > 0 || c->buffer_empty || p > LOSS_HIGH || rtt_high) {
    est = MIN (DECREASE * r->rate, r->rate * (1.0 - 0.5 * p));
    r->state = "decrease";
    r->reason = m > 0 ? "missed-deadline" : c->buffer_empty ? "buffer-empty"
        : p > LOSS_HIGH ? "loss" : "rtt-p90";
  } else if (p >= LOSS_LOW || rtt_up) {
    est = r->rate;
    r->state = "hold";
    r->reason = p >= LOSS_LOW ? "some-loss" : "rtt-p75";
  } else {
    est = INCREASE * (r->rate + INCREASE_ADD);
    r->state = "increase";
    r->reason = "no-loss";
  }
  if (est < rtpcc_rr_rate_tcp (r, p, rr->rtt)) {
    est = rtpcc_rr_rate_tcp (r, p, rr->rtt);
    r->reason = "tfrc-floor";
  }
  if (r->limit != G_MAXUINT64) {
    gdouble a = (gdouble) r->limit;
    if (a < est) {
      est = a;
      r->reason = "receiver-estimate";
    } else if (g_str_equal (r->state, "increase") && (est + a) / 2.0 > est) {
      est = (est + a) / 2.0;
      r->reason = "toward-receiver";
    }
  }
  r->rate = est;
  rtpcc_rr_rate_clamp (r, &c->parent);
}

static void
cnadu_on_tick (RtpccController * cc, RtpccTime now)
{
  Cnadu *c = (Cnadu *) cc;

  cc->next_tick = RTPCC_TIME_NONE;
  if (!c->pending)
    return;
  c->pending = FALSE;
  switch (rtpcc_rr_rate_admit (&c->r, &c->rr)) {
    case RTPCC_RR_RATE_IGNORE:
      return;
    case RTPCC_RR_RATE_PUBLISH:
      /* the discards of an outage are the outage's */
      if (g_str_equal (c->r.reason, "feedback-back"))
        c->discarded = 0;
      rtpcc_rr_rate_publish (&c->r, cc);
      return;
    case RTPCC_RR_RATE_ACT:
      break;
  }
  evaluate (c, &c->rr);
  rtpcc_rr_rate_publish (&c->r, cc);
}

static void
cnadu_on_discards (RtpccController * cc, RtpccTime now,
    const RtpccPacketReport * reports, guint n)
{
  Cnadu *c = (Cnadu *) cc;

  for (guint i = 0; i < n; i++)
    if (!reports[i].is_fec)
      c->discarded++;
}

static void
cnadu_on_nadu (RtpccController * cc, RtpccTime now,
    const RtpccNaduBlock * block)
{
  ((Cnadu *) cc)->buffer_empty =
      block->playout_delay == RTPCC_NADU_DELAY_UNSET;
}

static void
cnadu_on_receiver_limit (RtpccController * cc, RtpccTime now, guint64 limit)
{
  rtpcc_rr_rate_set_limit (&((Cnadu *) cc)->r, cc, limit);
}

static void
cnadu_on_no_feedback (RtpccController * cc, RtpccTime now, guint64 rate)
{
  RtpccRrRate *r = &((Cnadu *) cc)->r;

  rtpcc_rr_rate_no_feedback (r, cc, MIN (r->rate, (gdouble) rate));
}

const RtpccControllerOps rtpcc_cc_cnadu_ops = {
  .name = "cnadu",
  .description = "C-NADU cooperative control, sender half: TCP-friendly "
      "rate, RTT percentiles and missed playout deadlines, with the "
      "receiver's estimate (rtpccsrc nadu=true)",
  .instance_size = sizeof (Cnadu),
  .init = cnadu_init,
  .on_packet_sent = cnadu_on_packet_sent,
  .on_receiver_report = cnadu_on_receiver_report,
  .on_tick = cnadu_on_tick,
  .on_discards = cnadu_on_discards,
  .on_nadu = cnadu_on_nadu,
  .on_receiver_limit = cnadu_on_receiver_limit,
  .on_no_feedback = cnadu_on_no_feedback,
};

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
#include <rtpcc/tcpeq.h>

#define LOSS_HIGH 0.10
#define LOSS_LOW 0.02
#define DECREASE 0.85
#define INCREASE 1.05
#define INCREASE_ADD 1000.0     /* bit/s */
#define PACING_FACTOR 1.25
#define DEFAULT_PACKET_SIZE 1200.0
#define RTT_SAMPLES 32
#define RTT_MIN_SAMPLES 8

typedef struct
{
  RtpccController parent;
  gdouble s;                    /* R, the rate published, bit/s */
  guint64 limit;                /* the receiver's estimate A, G_MAXUINT64 = none */
  gdouble packet_size;
  RtpccTime rtts[RTT_SAMPLES];  /* ring of the previous round trips */
  guint rtt_head, n_rtts;
  guint discarded;              /* media packets discarded since the RR */
  gboolean buffer_empty;        /* the last NADU had no playout delay */
  gboolean pending;             /* an RR waits for the tick */
  RtpccReceiverReport rr;
  gboolean restart;
  guint32 last_hsn;
  gboolean seen_report;
  const gchar *state;
  const gchar *reason;
} Cnadu;

static void
cnadu_clamp (Cnadu * c)
{
  RtpccController *cc = &c->parent;

  gdouble hi = MIN ((gdouble) cc->config.max_bitrate, (gdouble) c->limit);

  /* (a REMB below min-bitrate still limits: the sender enforces it) */
  c->s = CLAMP (c->s, (gdouble) cc->config.min_bitrate,
      MAX (hi, (gdouble) cc->config.min_bitrate));
}

static void
cnadu_publish (Cnadu * c)
{
  rtpcc_controller_update_target (&c->parent, (guint64) c->s, 0,
      PACING_FACTOR, c->state, c->reason);
}

static void
cnadu_init (RtpccController * cc, RtpccTime now)
{
  Cnadu *c = (Cnadu *) cc;

  c->s = cc->config.start_bitrate ? (gdouble) cc->config.start_bitrate :
      (gdouble) cc->config.min_bitrate;
  c->limit = G_MAXUINT64;
  c->packet_size = DEFAULT_PACKET_SIZE;
  c->state = "hold";
  c->reason = "initial";
  cc->next_tick = RTPCC_TIME_NONE;
  cnadu_clamp (c);
  cnadu_publish (c);
}

static void
cnadu_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  Cnadu *c = (Cnadu *) cc;

  if (!pkt->is_fec && pkt->size > 0)
    c->packet_size = 0.95 * c->packet_size + 0.05 * pkt->size;
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
    est = MIN (DECREASE * c->s, c->s * (1.0 - 0.5 * p));
    c->state = "decrease";
    c->reason = m > 0 ? "missed-deadline" : c->buffer_empty ? "buffer-empty"
        : p > LOSS_HIGH ? "loss" : "rtt-p90";
  } else if (p >= LOSS_LOW || rtt_up) {
    est = c->s;
    c->state = "hold";
    c->reason = p >= LOSS_LOW ? "some-loss" : "rtt-p75";
  } else {
    est = INCREASE * (c->s + INCREASE_ADD);
    c->state = "increase";
    c->reason = "no-loss";
  }
  if (p > 0 && rr->rtt != RTPCC_TIME_NONE && rr->rtt > 0) {
    gdouble x = 8.0 * rtpcc_tcpeq_throughput (c->packet_size,
        RTPCC_TIME_AS_SEC (rr->rtt), p);
    if (est < x) {
      est = x;
      c->reason = "tfrc-floor";
    }
  }
  if (c->limit != G_MAXUINT64) {
    gdouble a = (gdouble) c->limit;
    if (a < est) {
      est = a;
      c->reason = "receiver-estimate";
    } else if (g_str_equal (c->state, "increase") && (est + a) / 2.0 > est) {
      est = (est + a) / 2.0;
      c->reason = "toward-receiver";
    }
  }
  c->s = est;
  cnadu_clamp (c);
}

static void
cnadu_on_tick (RtpccController * cc, RtpccTime now)
{
  Cnadu *c = (Cnadu *) cc;
  const RtpccReceiverReport *rr = &c->rr;

  cc->next_tick = RTPCC_TIME_NONE;
  if (!c->pending)
    return;
  c->pending = FALSE;
  if (c->restart) {
    gboolean progress = rr->ext_highest_seq != c->last_hsn;
    c->last_hsn = rr->ext_highest_seq;
    if (!progress)
      return;
    /* the first report after a stop: its loss is the outage's */
    c->restart = FALSE;
    c->discarded = 0;
    c->reason = "feedback-back";
    cnadu_publish (c);
    return;
  }
  if (rr->ext_highest_seq == c->last_hsn && rr->packets_sent_interval > 0
      && c->seen_report) {
    /* nothing new arrived: the no-feedback timer deals with silence */
    c->state = "hold";
    c->reason = "no-progress";
    cnadu_publish (c);
    return;
  }
  c->seen_report = TRUE;
  c->last_hsn = rr->ext_highest_seq;
  evaluate (c, rr);
  cnadu_publish (c);
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
  Cnadu *c = (Cnadu *) cc;

  /* the sender enforces it on what we publish; keep the state there too,
   * so that the rate does not grow out of its reach meanwhile */
  c->limit = limit;
  if (c->s > (gdouble) limit) {
    c->reason = "receiver-estimate";
    cnadu_clamp (c);
    cnadu_publish (c);
  }
}

static void
cnadu_on_no_feedback (RtpccController * cc, RtpccTime now, guint64 rate)
{
  Cnadu *c = (Cnadu *) cc;

  if (!c->restart) {
    c->s = MIN (c->s, (gdouble) rate);
    c->restart = TRUE;
    cnadu_clamp (c);
  }
  c->reason = "no-feedback";
  cnadu_publish (c);
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

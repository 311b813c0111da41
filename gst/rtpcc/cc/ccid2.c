/* "ccid2": TCP-like AIMD congestion window in packets, after DCCP CCID 2
 * (RFC 4341), driven by per-packet feedback instead of DCCP Ack Vectors.
 *
 * Window rules (cwnd, ssthresh and pipe count packets, as DCCP sequence
 * numbers do):
 *  - initial cwnd = min (4, max (2, 4380 / s)) packets (RFC 3390 in packets,
 *    as RFC 4341 uses it); ssthresh starts at infinity.
 *  - slow start: +1 packet per TWO newly acknowledged packets. TCP adds one
 *    segment per ACK; CCID 2's default Ack Ratio of 2 means one Ack per two
 *    data packets (TCP's delayed ACKs), and RFC 4341 caps the slow-start gain
 *    of one Ack at Ack Ratio / 2 packets. Counted per packet — our feedback
 *    arrives in batches, not as Acks — that is +1 per 2 acknowledged
 *    packets, ×1.5 per RTT; the Linux CCID 2 and the Jero thesis (§1.2) do
 *    the same. The "+1 per 2 acked" is therefore the faithful reading.
 *  - congestion avoidance: +1 packet per window (cwnd packets acknowledged).
 *  - a lost or ECN-CE-marked packet halves cwnd, ssthresh = the new cwnd
 *    (at least 2), at most once per window of data: losses of packets sent
 *    before the last cut belong to the window already punished. Acks of those
 *    packets do not grow cwnd either: the "virtual recovery period" that
 *    CCID 2 lacks and that makes it grab bandwidth right after a loss (Jero
 *    §1.2, [LL08]); TCP NewReno's fast recovery behaves the same way.
 *  - timeout (no feedback for an RTO while packets are in flight):
 *    ssthresh = cwnd / 2, cwnd = 1, pipe = 0, slow start; the RTO doubles on
 *    each consecutive timeout (≤ 60 s) and is re-armed by the next packet sent.
 *    Consecutive timeouts keep the first one's ssthresh, and the loss of a
 *    packet sent while timed out is no new congestion event (RFC 5681
 *    §3.1): an outage is one reduction, as it is for TCP.
 *    The first acknowledgement after it (the path is back) takes the packets
 *    sent since out of the pipe too, so that slow start is not held until
 *    the next, backed-off, timeout.
 *    RTO = SRTT + 4·RTTVAR (RFC 6298, as RFC 4341 borrows TCP's), 1 s before
 *    the first sample, with the samples taken as TCP's are: send → the
 *    feedback that acknowledges the packet (the longest wait of each
 *    feedback), so that the receiver's report hold is inside the RTO, as a
 *    delayed ACK is inside TCP's. SRTT alone (the path's RTT) serves until
 *    the first such sample. TCP's 1 s minimum is not required by DCCP; we floor at
 *    200 ms instead (param "min-rto") so one late feedback batch is no loss.
 *  - cwnd only grows while the window is used (RFC 4341 §5.1 points to
 *    congestion window validation): in slow start when cwnd < 2 × the peak
 *    packets in flight (right after a send) over this and the previous
 *    round, in congestion avoidance when that peak reached cwnd. A video encoder below the window must not
 *    inflate it, or the first I-frame after a quiet scene would burst. After
 *    an idle period longer than the RTO, cwnd halves per RTO idle, not below
 *    the restart window min (cwnd, initial) (RFC 2861 / RFC 5681 §4.1).
 *
 * Jero's thesis shows what sank CCID 2 under video: the application saw
 * only backpressure (a full socket queue), learned of a halving too late
 * and had to probe blindly, and every encoder re-init forced an I-frame that
 * overflowed the queue again (§1.8–1.12). So besides gating packets
 * (can_send: packets in flight < cwnd) this controller publishes the window
 * as an explicit rate the encoder can follow smoothly:
 *   target = cwnd × mean packet size / SRTT
 * with pacing at 1.25 × target so the pacer, not the window, is never the
 * bottleneck. RtpccTarget.cwnd carries the window.
 *
 * States: "slow-start", "congestion-avoidance", "timeout" (until the next
 * acknowledgement). Reasons: "ack", "loss", "rto", "idle".
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/params.h>

#include <stdlib.h>

#define INITIAL_RTO RTPCC_SEC (1)       /* RFC 6298 §2.1 */
#define DEFAULT_MIN_RTO RTPCC_MSEC (200)
#define MAX_RTO RTPCC_SEC (60)  /* RFC 6298 §2.5 allows a 60 s cap */
#define MAX_CWND (1u << 20)     /* keeps the arithmetic far from overflow */
#define PACING_FACTOR 1.25
#define ECN_CE 3

typedef struct
{
  RtpccController parent;

  guint32 cwnd;
  guint32 ssthresh;             /* G_MAXUINT32 = infinity */
  guint32 initial_cwnd;
  guint32 ss_acked;             /* acked packets toward the next slow-start +1 */
  guint32 ca_acked;             /* acked packets toward the next CA +1 */

  guint64 in_flight;            /* pipe */
  guint64 forgiven;             /* outstanding at the last RTO, out of pipe */
  guint64 rto_seq;              /* highest seq sent at the last RTO */
  guint64 highest_sent;
  gboolean have_sent;
  guint64 recovery_seq;         /* packets up to here predate the last cut */
  gboolean have_recovery;
  guint64 timeout_seq;          /* the last packet sent into a timeout */
  gboolean have_timeout_seq;

  /* rounds, for the cwnd-limited test */
  guint64 round_end_seq;
  guint64 peak, prev_peak;

  RtpccTime srtt, rttvar;
  /* smoothed send → acknowledging-feedback time: the window's real cycle,
   * which includes the receiver's feedback hold time that srtt leaves out */
  RtpccTime sack;
  /* the timer's estimator (RFC 6298 §2) over the longest wait of each
   * feedback: send → the feedback that acknowledges the packet */
  RtpccTime scyc, cycvar;
  RtpccTime min_rto;
  guint backoff;
  RtpccTime last_send;
  gdouble mean_size;
  gboolean timed_out;
} Ccid2;

static RtpccTime
ccid2_rto (const Ccid2 * c)
{
  RtpccTime rto;

  /* The timer waits for feedback, so it is estimated from how long
   * feedback takes (as TCP's samples include the delayed ACK), not from
   * the path's RTT: the receiver holds a report for up to a frame
   * interval, and with a window of a packet or two that hold is most of
   * the wait. An RTO from the RTT alone expired before each report. */
  if (c->scyc != RTPCC_TIME_NONE)
    rto = c->scyc + 4 * c->cycvar;
  else if (c->srtt != RTPCC_TIME_NONE)
    rto = c->srtt + 4 * c->rttvar;
  else
    rto = INITIAL_RTO;

  rto = CLAMP (rto, c->min_rto, MAX_RTO);
  for (guint i = 0; i < c->backoff && rto < MAX_RTO; i++)
    rto *= 2;
  return MIN (rto, MAX_RTO);
}

static void
ccid2_publish (Ccid2 * c, const gchar * reason)
{
  RtpccController *cc = &c->parent;
  guint64 gen = cc->generation;
  guint64 rate = cc->target.target_bitrate;
  const gchar *state;

  if (c->timed_out)
    state = "timeout";
  else if (c->cwnd < c->ssthresh)
    state = "slow-start";
  else
    state = "congestion-avoidance";
  /* The window as a rate: cwnd packets of mean size per window cycle. The
   * cycle is send → acknowledging feedback, not the RTT: with feedback held
   * up to a frame interval at the receiver, cwnd/srtt overstates what the
   * window lets through by up to ~20 %, and an encoder fed that rate grows
   * the sender's queue without bound (found in the §5.1 simulation). */
  if (c->sack != RTPCC_TIME_NONE && c->sack > 0)
    rate = (guint64) (c->cwnd * c->mean_size * 8.0 /
        RTPCC_TIME_AS_SEC (c->sack));
  else if (c->srtt != RTPCC_TIME_NONE && c->srtt > 0)
    rate = (guint64) (c->cwnd * c->mean_size * 8.0 /
        RTPCC_TIME_AS_SEC (c->srtt));
  rtpcc_controller_update_target (cc, rate, 0, PACING_FACTOR, state, reason);
  if (cc->target.cwnd != c->cwnd) {
    cc->target.cwnd = c->cwnd;
    if (cc->generation == gen)
      cc->generation++;
  }
}

static void
ccid2_init (RtpccController * cc, RtpccTime now)
{
  Ccid2 *c = (Ccid2 *) cc;
  guint s = cc->config.packet_size;

  /* RFC 4341 §5 / RFC 3390: min (4, max (2, 4380 / MSS)) packets */
  c->initial_cwnd = MIN (4, MAX (2, 4380 / s));
  c->cwnd = c->initial_cwnd;
  c->ssthresh = G_MAXUINT32;
  c->srtt = c->rttvar = RTPCC_TIME_NONE;
  c->sack = RTPCC_TIME_NONE;
  c->scyc = c->cycvar = RTPCC_TIME_NONE;
  c->min_rto = DEFAULT_MIN_RTO;
  c->last_send = RTPCC_TIME_NONE;
  c->mean_size = s;
  ccid2_publish (c, "initial");
}

/* RFC 6298 §2.2–2.3: one sample @r into a smoothed mean and deviation */
static void
rfc6298_sample (RtpccTime * smooth, RtpccTime * var, RtpccTime r)
{
  if (*smooth == RTPCC_TIME_NONE) {
    *smooth = r;
    *var = r / 2;
  } else {
    *var = (3 * *var + llabs (*smooth - r)) / 4;
    *smooth = (7 * *smooth + r) / 8;
  }
}

static void
ccid2_update_rtt (Ccid2 * c, RtpccTime r)
{
  if (r < 0)
    return;
  rfc6298_sample (&c->srtt, &c->rttvar, r);
  /* RFC 6298 §5.7: a fresh sample ends the backoff */
  c->backoff = 0;
}

static void
ccid2_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  Ccid2 *c = (Ccid2 *) cc;
  const gchar *reason = NULL;

  if (c->in_flight == 0 && c->last_send != RTPCC_TIME_NONE) {
    RtpccTime rto = ccid2_rto (c);
    RtpccTime idle = now - c->last_send;
    if (idle >= rto) {
      /* RFC 2861: halve per RTO idle, keep a restart window */
      guint32 restart = MIN (c->cwnd, c->initial_cwnd);
      guint32 w = c->cwnd;
      for (RtpccTime t = idle; t >= rto && w > restart; t -= rto)
        w /= 2;
      w = MAX (w, restart);
      if (w != c->cwnd) {
        c->ssthresh = MAX (c->ssthresh, c->cwnd / 4 * 3);
        c->cwnd = w;
        c->ss_acked = c->ca_acked = 0;
        reason = "idle";
      }
    }
  }

  c->in_flight++;
  if (!c->have_sent || pkt->seq > c->highest_sent)
    c->highest_sent = pkt->seq;
  if (!c->have_sent)
    c->round_end_seq = pkt->seq;
  c->have_sent = TRUE;
  /* sent into a timeout (the window of one probing a path that may be
   * down): its loss belongs to the episode the timeout already punished,
   * as TCP's retransmissions by the timer do (RFC 5681 §3.1); an outage
   * must not cut ssthresh to 2 when the path returns */
  if (c->timed_out) {
    c->timeout_seq = c->highest_sent;
    c->have_timeout_seq = TRUE;
  }
  c->peak = MAX (c->peak, c->in_flight);
  c->last_send = now;
  c->mean_size += (pkt->size - c->mean_size) / 8.0;

  /* RFC 6298 §5.1: start the timer if it is not running */
  if (cc->next_tick == RTPCC_TIME_NONE)
    cc->next_tick = now + ccid2_rto (c);
  if (reason)
    ccid2_publish (c, reason);
}

static gboolean
ccid2_cwnd_limited (const Ccid2 * c)
{
  guint64 used = MAX (c->peak, c->prev_peak);

  if (c->cwnd < c->ssthresh)
    return c->cwnd < 2 * used;
  return used >= c->cwnd;
}

static void
ccid2_congestion (Ccid2 * c)
{
  c->ssthresh = MAX (c->cwnd / 2, 2);
  c->cwnd = c->ssthresh;
  c->recovery_seq = c->highest_sent;
  c->have_recovery = TRUE;
  c->ss_acked = c->ca_acked = 0;
}

static void
ccid2_on_feedback (RtpccController * cc, RtpccTime now,
    const RtpccFeedback * fb)
{
  Ccid2 *c = (Ccid2 *) cc;
  gboolean acked = FALSE, loss = FALSE;

  if (fb->rtt_sample != RTPCC_TIME_NONE)
    ccid2_update_rtt (c, fb->rtt_sample);
  else if (c->srtt == RTPCC_TIME_NONE && fb->srtt != RTPCC_TIME_NONE)
    ccid2_update_rtt (c, fb->srtt);

  /* the mean cycle of the packets this feedback acknowledges: the newest
   * alone has the shortest hold and would understate it */
  {
    gdouble sum = 0;
    guint n = 0;
    for (guint i = 0; i < fb->n_reports; i++) {
      const RtpccPacketReport *r = &fb->reports[i];
      if (r->received && now > r->send_time) {
        sum += (gdouble) (now - r->send_time);
        n++;
      }
    }
    if (n > 0) {
      RtpccTime cyc = (RtpccTime) (sum / n);
      c->sack = c->sack == RTPCC_TIME_NONE ? cyc : (7 * c->sack + cyc) / 8;
    }
  }
  /* the timer's sample: the longest wait in this feedback, of packets sent
   * after the last timeout (Karn: the timer, not the path, decided the
   * fate of those before it) */
  {
    RtpccTime w = -1;
    for (guint i = 0; i < fb->n_reports; i++) {
      const RtpccPacketReport *r = &fb->reports[i];
      if (r->received && now > r->send_time && r->seq > c->rto_seq)
        w = MAX (w, now - r->send_time);
    }
    if (w > 0)
      rfc6298_sample (&c->scyc, &c->cycvar, w);
  }

  /* packets whose reports were all lost have left the network too; no
   * congestion signal either way */
  for (guint i = 0; i < fb->n_unreported && c->in_flight > 0; i++) {
    if (c->forgiven > 0)
      c->forgiven--;
    else
      c->in_flight--;
  }

  for (guint i = 0; i < fb->n_reports; i++) {
    const RtpccPacketReport *r = &fb->reports[i];
    gboolean ce = r->received && r->ecn == ECN_CE;
    gboolean before_cut = c->have_recovery && r->seq <= c->recovery_seq;

    /* pipe: packets forgiven by an RTO are no longer in it */
    if (c->forgiven > 0 && r->seq <= c->rto_seq)
      c->forgiven--;
    else if (c->in_flight > 0)
      c->in_flight--;

    /* a new round starts when a packet sent after the last round's end is
     * acknowledged; its peak counts only what is sent during it, so an
     * application-limited round cannot borrow the previous one's usage */
    if (r->seq > c->round_end_seq) {
      c->prev_peak = c->peak;
      c->peak = 0;
      c->round_end_seq = c->highest_sent;
    }

    if (r->received)
      acked = TRUE;
    if (!r->received || ce) {
      gboolean into_timeout = !r->received && c->have_timeout_seq
          && r->seq <= c->timeout_seq;
      if (!before_cut && !into_timeout) {
        ccid2_congestion (c);
        loss = TRUE;
      }
      continue;
    }
    if (before_cut || !ccid2_cwnd_limited (c) || c->cwnd >= MAX_CWND)
      continue;
    if (c->cwnd < c->ssthresh) {
      if (++c->ss_acked >= 2) {
        c->cwnd++;
        c->ss_acked = 0;
      }
    } else if (++c->ca_acked >= c->cwnd) {
      c->cwnd++;
      c->ca_acked = 0;
    }
  }

  /* Acknowledgements after a timeout: the path delivers again (an outage
   * ended). The packets sent since the timeout went into it, and a window
   * of one would wait for their fate until the next, backed-off, timeout
   * (seconds): they leave the pipe as those outstanding at the timeout did,
   * and slow start goes on. */
  if (acked && c->timed_out) {
    c->forgiven += c->in_flight;
    c->in_flight = 0;
    c->rto_seq = c->highest_sent;
  }
  if (acked)
    c->timed_out = FALSE;
  /* RFC 6298 §5.2–5.3: stop when nothing is outstanding, else restart on
   * new acknowledgements */
  if (c->in_flight == 0)
    cc->next_tick = RTPCC_TIME_NONE;
  else if (acked || cc->next_tick == RTPCC_TIME_NONE)
    cc->next_tick = now + ccid2_rto (c);
  ccid2_publish (c, loss ? "loss" : "ack");
}

static void
ccid2_on_tick (RtpccController * cc, RtpccTime now)
{
  Ccid2 *c = (Ccid2 *) cc;

  if (c->in_flight == 0)
    return;
  /* RFC 4341 §5 timeout: pipe = 0, ssthresh = cwnd / 2, cwnd = 1. Only
   * the first of consecutive timeouts sets ssthresh (RFC 5681 §3.1: held
   * constant while the same data times out again): a window of one halved
   * per backed-off RTO through an outage left ssthresh at 2, and the path,
   * once back, was refilled by congestion avoidance, a packet per RTT. */
  if (!c->timed_out)
    c->ssthresh = MAX (c->cwnd / 2, 2);
  c->cwnd = 1;
  c->forgiven += c->in_flight;
  c->in_flight = 0;
  c->rto_seq = c->highest_sent;
  c->recovery_seq = c->highest_sent;
  c->have_recovery = TRUE;
  c->ss_acked = c->ca_acked = 0;
  c->peak = c->prev_peak = 0;
  c->backoff++;
  c->timed_out = TRUE;
  /* the next packet sent re-arms the (backed-off) timer */
  cc->next_tick = RTPCC_TIME_NONE;
  ccid2_publish (c, "rto");
}

static gboolean
ccid2_can_send (RtpccController * cc, RtpccTime now, guint size)
{
  Ccid2 *c = (Ccid2 *) cc;
  return c->in_flight < c->cwnd;
}

static const RtpccParamSpec param_specs[] = {
  RTPCC_PARAM_TIME ("min-rto", Ccid2, min_rto, 1, 60000, 0),
  RTPCC_PARAM_UINT ("initial-cwnd", Ccid2, initial_cwnd, 1, 1000),
};

static gboolean
ccid2_set_param (RtpccController * cc, const gchar * key, const gchar * value)
{
  Ccid2 *c = (Ccid2 *) cc;
  const RtpccParamSpec *spec = rtpcc_params_set (param_specs,
      G_N_ELEMENTS (param_specs), c, key, value);

  if (!spec)
    return FALSE;
  if (spec->offset == G_STRUCT_OFFSET (Ccid2, initial_cwnd)) {
    /* only meaningful before the first packet */
    c->cwnd = c->initial_cwnd;
    ccid2_publish (c, "configured");
  }
  return TRUE;
}

const RtpccControllerOps rtpcc_cc_ccid2_ops = {
  .name = "ccid2",
  .description = "TCP-like AIMD window in packets (DCCP CCID 2, RFC 4341), "
      "published as an allowed rate",
  .instance_size = sizeof (Ccid2),
  .init = ccid2_init,
  .on_packet_sent = ccid2_on_packet_sent,
  .on_feedback = ccid2_on_feedback,
  .on_tick = ccid2_on_tick,
  .can_send = ccid2_can_send,
  .set_param = ccid2_set_param,
};

/* "nada": Network-Assisted Dynamic Adaptation (RFC 8698), computed at the
 * sender.
 *
 * Where the receiver's part runs. RFC 8698 splits NADA in two: the receiver
 * (§4.2, §5.1) measures one-way delay, loss and marking, builds the aggregate
 * congestion signal x_curr, picks the rate-update mode (rmode) and measures
 * r_recv; the sender (§4.3, §5.2) turns (rmode, x_curr, r_recv) into r_ref.
 * Our feedback (RFC 8888 CCFB / TWCC) tells the sender the fate and arrival
 * time of every packet, so the sender runs the receiver's calculations itself
 * (the sender-based variant the RFC's §5.3 feedback discussion allows):
 *
 *  - d_fwd = arrival - send_time per received packet. The arrival is on the
 *    receiver's clock with an unknown constant offset, so d_fwd carries that
 *    offset too; d_base is the minimum d_fwd seen (LEDBAT-style history,
 *    RFC 6817: minima per minute of send time over the last 10 minutes, so a
 *    route change is forgotten eventually), and d_queue = d_fwd - d_base, in
 *    which the offset cancels (§5.1.1).
 *  - d_queue is 15-tap minimum filtered (§5.1.1) over the newest received
 *    packets whose arrival lies within DFILT of the newest arrival: the RFC
 *    budgets DFILT for the filter's delay (Eq. 3), and at low packet rates 15
 *    packets would span far more than that.
 *  - p_loss / p_mark: the lost (resp. CE-marked) share of the packets sent
 *    in the last LOGWIN (by send time), exponentially smoothed with ALPHA at
 *    each update (§5.1.2).
 *  - Eq. (1) warping applies while losses are recent: the last loss is less
 *    than loss_exp = MULTILOSS x loss_int packets old (§4.2, §5.1.2), where
 *    loss_int is the mean of the last 8 closed loss intervals in packets
 *    (the first runs from the first packet to the first loss; a run of
 *    consecutive losses is one burst). The RFC does not say how to average;
 *    8 intervals is TFRC's history (RFC 5348 §5.4), which ns3-rmcat's NADA
 *    reuses, but the open interval is left out: counting it (as ns3-rmcat
 *    does) makes loss_exp grow with the time since the last loss, so the
 *    warping would never expire.
 *  - x_curr per Eq. (2), capped at XMAX (ns3-rmcat's cap).
 *  - r_recv: bytes that arrived within the last LOGWIN of receiver time,
 *    divided by LOGWIN (§5.1.3) — by the time the arrivals span (not less
 *    than DELTA) while the flow is younger than LOGWIN: dividing a
 *    half-empty window by LOGWIN under-read the rate and held Eq. (4)
 *    back for the first ~0.5 s.
 *  - rmode: accelerated ramp-up while the last LOGWIN of packets has no loss,
 *    no CE mark and every raw sample d_fwd - d_base < QEPS (§4.2); else
 *    gradual update. (The RFC names loss and delay; a CE mark is a congestion
 *    signal too, so it also ends the ramp-up.)
 *
 * Sender (§4.3): on initialisation r_ref = RMIN (or the configured start
 * rate), rtt = 0, x_prev = 0, t_last = now, rmode = 0. At each update
 * (delta = now - t_last): accelerated ramp-up, Eq. (3)-(4), or gradual update,
 * Eq. (5)-(7); r_ref clipped to [RMIN, RMAX] = [min_bitrate, max_bitrate];
 * x_prev = x_curr; t_last = now.
 *
 * Update timing. The RFC updates on each feedback report, which it expects
 * about every DELTA; gamma (Eq. 3) is a growth factor per DELTA, so updating
 * on every 20 ms CCFB report would ramp five times too fast. Here an update
 * runs on a feedback that arrives at least DELTA after the previous update
 * (immediately, with the observed delta), or on the DELTA tick when feedback
 * has arrived since the previous update; the gradual update uses the observed
 * delta, capped at TAU so a long gap cannot make one step arbitrarily large.
 *
 * Rate shaping (§5.2.2, Eq. 8-9). r_vin (the encoder's target) and r_send
 * (the pacing rate) differ from r_ref by BETA_V / BETA_S x 8 x buffer_len x
 * FPS, buffer_len being the sender's rate-shaping queue: RtpccSender's
 * pacer, whose size each RtpccSentPacket carries (queued_bytes). The
 * encoder gets r_vin, the pacer drains at r_send.
 *
 * Missing feedback. While feedback is missing no update runs, so the rate is
 * held: there is no ramp-up without fresh measurements. RFC 8698 gives no
 * timer of its own; the no-feedback timer every controller runs under
 * (nofeedback.h: TFRC's, RFC 5348 §4.4, as RFC 8836 asks) halves the
 * published rate per interval, and on its first halving r_ref becomes half
 * of what it was, once — a TCP sender's ssthresh after a timeout (RFC 5681
 * §3.1). When feedback returns the timer's cap climbs back to r_ref in
 * slow start and NADA carries on from there; the packets sent before
 * feedback returned were lost to the outage, not to congestion, and are
 * left out of its loss and delay statistics.
 *
 * Catch-up (parameter "catch-up", 0 = off by default: NOT RFC 8698). A flow
 * that joins a link with a standing queue (NADA's equilibrium, 17-26 ms with
 * two or three flows) sees samples above QEPS at once, so RFC 8698 puts it
 * in gradual update, whose growth is additive and bounded: with x_curr >= 0,
 * Eq. (7)'s offset term adds at most KAPPA PRIO XREF RMAX DELTA / TAU^2 per
 * update, 60 kbit/s per second with RMAX = 3 Mbit/s: 0.55 -> 0.875 Mbit/s
 * (half of a 1.75 Mbit/s share) takes >= 5.4 s (docs/simulator.md). With
 * catch-up = c > 0, during the flow's start-up an update that RFC 8698 would
 * make gradual (no loss, no mark) uses Eq. (3)-(4) instead while r_ref < c x
 * min (RMAX, PRIO XREF RMAX / x_curr): the rate at which the RFC's own
 * x_offset (Eq. 5) would be 0 for the signal it sees; c = 1 is "while the
 * gradual update would raise the rate". The first update that does not
 * qualify ends the start-up for good: a flow that joined a standing queue
 * holds part of it in d_base (RFC 8698 §6.3), reads x_curr low and, catching
 * up later, would push past its share.
 *
 * Competitive mode (parameter "competitive", on by default: NOT RFC 8698).
 * Eq. (1)'s warping is RFC 8698's answer to a loss-based flow sharing the
 * queue, but it only lowers the delay term while losses are recent: with
 * a TCP flow keeping a drop-tail queue full, x_curr stays far above XREF
 * and the gradual update hands the link to TCP (RFC 8867 §5.6 shares of
 * 0.1-0.2 in the simulator). The same detector gcc uses (cc/competitor.h:
 * the queue never drains below its ON threshold for a whole window while
 * such a flow runs) raises the published rate to at least the TCP
 * throughput equation's rate for NADA's own loss events and RTT, which is
 * what a TCP flow would get there; r_ref itself runs on unchanged, and the
 * detector's periodic drains fall back to it to see whether the
 * competitor has left.
 *
 * States: "accelerated-ramp-up", "gradual-update", "competitive",
 * "no-feedback". Reasons: "initial", "ramp-up", "catch-up", "queue-delay",
 * "loss", "ecn", "competitor", "no-feedback", "configured".
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/competitor.h>
#include <rtpcc/cc/nada.h>
#include <rtpcc/cc/params.h>

#include <math.h>
#include <string.h>

#define FILTER_TAPS     15      /* §5.1.1 */
#define BASE_HISTORY    10      /* RFC 6817 BASE_HISTORY, in minutes */
#define BASE_BUCKET     RTPCC_SEC (60)
#define LOG_MIN_CAP     256
#define LOG_MAX_CAP     65536
#define ECN_CE          3
#define LOSS_INTERVALS  8
#define COMPETITOR_DEFAULT_RTT RTPCC_MSEC (200)  /* before an RTT sample */

/* ---- equations ---------------------------------------------------------- */

void
rtpcc_nada_params_init (RtpccNadaParams * p)
{
  /* RFC 8698 §4.1 defaults (ns3-rmcat nada-controller.cc agrees) */
  p->prio = 1.0;
  p->xref = 10.0;
  p->kappa = 0.5;
  p->eta = 2.0;
  p->tau = 500.0;
  p->delta = 100.0;
  p->logwin = 500.0;
  p->qeps = 10.0;
  p->dfilt = 120.0;
  p->gamma_max = 0.5;
  p->qbound = 50.0;
  p->multiloss = 7.0;
  p->qth = 50.0;
  p->lambda = 0.5;
  p->plrref = 0.01;
  p->pmrref = 0.01;
  p->dloss = 10.0;
  p->dmark = 2.0;
  p->xmax = 500.0;
  p->alpha = 0.1;
  p->beta_s = 0.1;
  p->beta_v = 0.1;
  p->fps = 30.0;
  p->catch_up = 0.0;            /* off: not part of RFC 8698 */
  p->competitive = TRUE;        /* not RFC 8698 either; see the top */
}

gdouble
rtpcc_nada_warp_delay (const RtpccNadaParams * p, gdouble d_queue)
{
  if (d_queue < p->qth)
    return d_queue;
  return p->qth * exp (-p->lambda * (d_queue - p->qth) / p->qth);
}

gdouble
rtpcc_nada_congestion_signal (const RtpccNadaParams * p, gdouble d_queue,
    gboolean warp, gdouble p_loss, gdouble p_mark)
{
  gdouble d = warp ? rtpcc_nada_warp_delay (p, d_queue) : d_queue;
  gdouble m = p_mark / p->pmrref, l = p_loss / p->plrref;
  gdouble x = d + p->dmark * m * m + p->dloss * l * l;

  return MIN (x, p->xmax);
}

gdouble
rtpcc_nada_ramp_up_gamma (const RtpccNadaParams * p, gdouble rtt)
{
  return MIN (p->gamma_max, p->qbound / (rtt + p->delta + p->dfilt));
}

gdouble
rtpcc_nada_accelerated_ramp_up (const RtpccNadaParams * p, gdouble r_ref,
    gdouble r_recv, gdouble rtt)
{
  return MAX (r_ref, (1.0 + rtpcc_nada_ramp_up_gamma (p, rtt)) * r_recv);
}

gdouble
rtpcc_nada_gradual_update (const RtpccNadaParams * p, gdouble r_ref,
    gdouble rmax, gdouble x_curr, gdouble x_prev, gdouble delta)
{
  gdouble x_offset = x_curr - p->prio * p->xref * rmax / r_ref;
  gdouble x_diff = x_curr - x_prev;

  return r_ref - p->kappa * (delta / p->tau) * (x_offset / p->tau) * r_ref
      - p->kappa * p->eta * (x_diff / p->tau) * r_ref;
}

gboolean
rtpcc_nada_catch_up (const RtpccNadaParams * p, gdouble r_ref, gdouble rmax,
    gdouble x_curr)
{
  gdouble r_eq;

  if (!(p->catch_up > 0.0))
    return FALSE;
  /* no signal: the equilibrium is RMAX (x_offset < 0 up to RMAX) */
  r_eq = x_curr > 0.0 ? MIN (rmax, p->prio * p->xref * rmax / x_curr) : rmax;
  return r_ref < p->catch_up * r_eq;
}

void
rtpcc_nada_shaping_rates (const RtpccNadaParams * p, gdouble r_ref,
    gdouble rmin, gdouble rmax, gdouble buffer_len, gdouble * r_vin,
    gdouble * r_send)
{
  gdouble b = 8.0 * buffer_len * p->fps;

  if (r_vin)
    *r_vin = MAX (rmin, r_ref - p->beta_v * b);
  if (r_send)
    *r_send = MIN (rmax, r_ref + p->beta_s * b);
}

gdouble
rtpcc_nada_equilibrium_delay (const RtpccNadaParams * p, gdouble rmax,
    gdouble rate)
{
  return p->prio * p->xref * rmax / rate;
}

/* ---- controller --------------------------------------------------------- */

typedef struct
{
  guint64 seq;
  RtpccTime send_time;
  RtpccTime arrival;            /* receiver clock; RTPCC_TIME_NONE: lost */
  guint size;
  gboolean ce;
} NadaPkt;

typedef struct
{
  RtpccController parent;
  RtpccNadaParams p;

  gdouble r_ref, r_vin, r_send, r_recv;
  guint64 buffer_len;           /* the sender's queue after the last packet */
  gdouble x_curr, x_prev, d_queue, d_queue_raw;
  gdouble p_loss, p_mark, p_loss_win;
  gdouble rtt;                  /* ms */
  gboolean have_rtt;
  gdouble gamma, last_delta;
  gboolean accelerated, catching_up, catch_up_over;
  guint64 n_catch_up;
  RtpccTime t_last;

  /* d_base: minima of d_fwd per BASE_BUCKET of send time, oldest first */
  RtpccTime base[BASE_HISTORY];
  guint n_base;
  RtpccTime base_bucket_start;

  /* losses */
  gboolean have_loss, have_first_seq;
  guint64 first_seq, last_loss_seq, highest_reported;
  guint64 burst_seq;            /* first loss of the newest burst */
  guint64 intervals[LOSS_INTERVALS];    /* closed, newest first */
  guint n_intervals;
  gdouble loss_int;

  /* per-packet log (ring), ascending seq */
  NadaPkt *log;
  guint log_cap, log_head, log_len;
  RtpccTime s_newest, a_newest;
  RtpccTime a_first;            /* the first arrival reported */

  guint64 n_new;                /* reports since the last update */
  guint64 n_updates;

  gboolean have_feedback;
  guint n_nofb;
  /* feedback stopped: on its return, reports of packets sent before it are
   * left out (restart_epoch) */
  gboolean restart;
  RtpccTime restart_epoch;

  /* a loss-based flow holds the queue (competitor.h) */
  RtpccCompetitor competitor;
  gboolean competing;
  gdouble r_competitive;

  const gchar *state;
} Nada;

#define NADA(cc) ((Nada *) (cc))

static RtpccTime
ms_to_time (gdouble ms)
{
  return (RtpccTime) (ms * RTPCC_NSEC_PER_MSEC + 0.5);
}

static NadaPkt *
log_at (Nada * n, guint i)
{
  return &n->log[(n->log_head + i) & (n->log_cap - 1)];
}

static void
log_push (Nada * n, const NadaPkt * e)
{
  if (n->log_len == n->log_cap) {
    if (n->log_cap >= LOG_MAX_CAP) {
      n->log_head = (n->log_head + 1) & (n->log_cap - 1);
      n->log_len--;
    } else {
      NadaPkt *log = g_new (NadaPkt, n->log_cap * 2);
      for (guint i = 0; i < n->log_len; i++)
        log[i] = *log_at (n, i);
      g_free (n->log);
      n->log = log;
      n->log_cap *= 2;
      n->log_head = 0;
    }
  }
  n->log[(n->log_head + n->log_len) & (n->log_cap - 1)] = *e;
  n->log_len++;
}

/* Forget what no window needs any more: sent before the LOGWIN send-time
 * window and lost or arrived before the LOGWIN arrival window. */
static void
log_prune (Nada * n)
{
  RtpccTime w = ms_to_time (n->p.logwin);

  while (n->log_len > 0) {
    const NadaPkt *e = log_at (n, 0);
    if (e->send_time > n->s_newest - w)
      break;
    if (e->arrival != RTPCC_TIME_NONE && n->a_newest != RTPCC_TIME_NONE
        && e->arrival > n->a_newest - w)
      break;
    n->log_head = (n->log_head + 1) & (n->log_cap - 1);
    n->log_len--;
  }
}

static RtpccTime
base_delay (const Nada * n)
{
  RtpccTime b = RTPCC_TIME_INFINITE;

  for (guint i = 0; i < n->n_base; i++)
    b = MIN (b, n->base[i]);
  return b;
}

static void
base_update (Nada * n, RtpccTime send_time, RtpccTime d_fwd)
{
  if (n->n_base == 0) {
    n->base[0] = d_fwd;
    n->n_base = 1;
    n->base_bucket_start = send_time;
    return;
  }
  if (send_time >= n->base_bucket_start + BASE_BUCKET) {
    /* a new minute: open a bucket, forgetting the oldest */
    if (n->n_base == BASE_HISTORY) {
      memmove (&n->base[0], &n->base[1], (BASE_HISTORY - 1) *
          sizeof (RtpccTime));
      n->n_base--;
    }
    n->base[n->n_base++] = d_fwd;
    n->base_bucket_start = send_time;
    return;
  }
  n->base[n->n_base - 1] = MIN (n->base[n->n_base - 1], d_fwd);
}

static gdouble
queue_ms (RtpccTime d_fwd, RtpccTime d_base)
{
  return MAX (0.0, (gdouble) (d_fwd - d_base) / RTPCC_NSEC_PER_MSEC);
}

static void
ingest (Nada * n, const RtpccPacketReport * r)
{
  NadaPkt e = { r->seq, r->send_time, RTPCC_TIME_NONE, r->size, FALSE };

  if (!n->have_first_seq) {
    n->first_seq = r->seq;
    n->have_first_seq = TRUE;
    n->highest_reported = r->seq;
  }
  n->highest_reported = MAX (n->highest_reported, r->seq);
  if (n->s_newest == RTPCC_TIME_NONE || r->send_time > n->s_newest)
    n->s_newest = r->send_time;

  if (r->received && r->arrival != RTPCC_TIME_NONE) {
    e.arrival = r->arrival;
    e.ce = r->ecn == ECN_CE;
    base_update (n, r->send_time, r->arrival - r->send_time);
    if (n->a_newest == RTPCC_TIME_NONE || r->arrival > n->a_newest)
      n->a_newest = r->arrival;
    if (n->a_first == RTPCC_TIME_NONE || r->arrival < n->a_first)
      n->a_first = r->arrival;
  } else {
    /* loss intervals in packets; a run of consecutive losses is one burst */
    if (!n->have_loss || r->seq > n->last_loss_seq + 1) {
      guint64 len = n->have_loss ? r->seq - n->burst_seq :
          r->seq - n->first_seq + 1;
      guint64 sum = 0;

      memmove (&n->intervals[1], &n->intervals[0], (LOSS_INTERVALS - 1) *
          sizeof (guint64));
      n->intervals[0] = len;
      n->n_intervals = MIN (n->n_intervals + 1, LOSS_INTERVALS);
      for (guint i = 0; i < n->n_intervals; i++)
        sum += n->intervals[i];
      n->loss_int = (gdouble) sum / n->n_intervals;
      n->burst_seq = r->seq;
      n->have_loss = TRUE;
    }
    n->last_loss_seq = r->seq;
  }
  log_push (n, &e);
  n->n_new++;
}

/* §5.1.3: the bytes that arrived in the last LOGWIN over "the time span" of
 * that window. In the flow's first LOGWIN the arrivals span less than that:
 * dividing by LOGWIN would under-read r_recv and stall Eq. (4) at the
 * start; not less than DELTA, so the first few packets cannot over-read. */
static RtpccTime
recv_span (const Nada * n)
{
  RtpccTime w = ms_to_time (n->p.logwin);

  if (n->a_first == RTPCC_TIME_NONE || n->a_newest == RTPCC_TIME_NONE)
    return w;
  return CLAMP (n->a_newest - n->a_first, MIN (ms_to_time (n->p.delta), w),
      w);
}

static RtpccTime
nada_rtt (const Nada * n)
{
  return n->have_rtt && n->rtt > 0 ? ms_to_time (n->rtt) :
      COMPETITOR_DEFAULT_RTT;
}

static gboolean
warping_active (const Nada * n)
{
  if (!n->have_loss || n->loss_int <= 0.0)
    return FALSE;
  return (gdouble) (n->highest_reported - n->last_loss_seq) <
      n->p.multiloss * n->loss_int;
}

static void
publish (Nada * n, const gchar * reason)
{
  RtpccController *cc = &n->parent;
  gdouble rmin = cc->config.min_bitrate, rmax = cc->config.max_bitrate;

  /* Eq. (8)-(9): the encoder gets less and the pacer drains faster while
   * the sender's queue holds data (buffer_len from the last packet sent) */
  rtpcc_nada_shaping_rates (&n->p, MAX (n->r_ref, n->r_competitive), rmin,
      rmax, (gdouble) n->buffer_len, &n->r_vin, &n->r_send);
  rtpcc_controller_update_target (cc, (guint64) (n->r_vin + 0.5), 0,
      n->r_send / n->r_vin, n->state, reason);
}

static void
nada_update (Nada * n, RtpccTime now)
{
  RtpccController *cc = &n->parent;
  const RtpccNadaParams *p = &n->p;
  RtpccTime w = ms_to_time (p->logwin), dfilt = ms_to_time (p->dfilt);
  RtpccTime d_base = base_delay (n);
  gdouble rmin = cc->config.min_bitrate, rmax = cc->config.max_bitrate;
  guint total = 0, lost = 0, recv = 0, marked = 0, taps = 0;
  guint64 bytes = 0;
  gboolean queue_seen = FALSE, have_raw = FALSE;
  gdouble filtered = G_MAXDOUBLE, delta;
  const gchar *reason;

  /* receiver statistics over the log (§4.2, §5.1) */
  for (guint i = 0; i < n->log_len; i++) {
    const NadaPkt *e = log_at (n, i);
    gboolean rx = e->arrival != RTPCC_TIME_NONE;

    if (e->send_time > n->s_newest - w) {
      total++;
      if (!rx) {
        lost++;
      } else {
        recv++;
        if (e->ce)
          marked++;
        if (queue_ms (e->arrival - e->send_time, d_base) >= p->qeps)
          queue_seen = TRUE;
      }
    }
    if (rx && e->arrival > n->a_newest - w)
      bytes += e->size;
  }
  /* 15-tap minimum filter, newest first, within DFILT of the newest arrival */
  for (guint i = n->log_len; i > 0 && taps < FILTER_TAPS; i--) {
    const NadaPkt *e = log_at (n, i - 1);
    gdouble q;

    if (e->arrival == RTPCC_TIME_NONE)
      continue;
    q = queue_ms (e->arrival - e->send_time, d_base);
    if (!have_raw) {
      n->d_queue_raw = q;
      have_raw = TRUE;
    }
    if (e->arrival < n->a_newest - dfilt)
      continue;
    filtered = MIN (filtered, q);
    taps++;
  }
  if (taps > 0)
    n->d_queue = filtered;
  else if (have_raw)
    n->d_queue = n->d_queue_raw;

  n->p_loss_win = total > 0 ? (gdouble) lost / total : 0.0;
  n->p_loss += p->alpha * (n->p_loss_win - n->p_loss);
  n->p_mark += p->alpha * ((recv > 0 ? (gdouble) marked / recv : 0.0) -
      n->p_mark);
  n->x_curr = rtpcc_nada_congestion_signal (p, n->d_queue, warping_active (n),
      n->p_loss, n->p_mark);
  n->r_recv = bytes * 8.0 / RTPCC_TIME_AS_SEC (recv_span (n));

  /* the sender (§4.3) */
  delta = CLAMP (RTPCC_TIME_AS_MSEC (now - n->t_last), 0.0, p->tau);
  n->accelerated = lost == 0 && marked == 0 && !queue_seen;
  /* the catch-up deviation (off by default): a flow far below the
   * equilibrium rate of the signal it sees ramps up as if alone */
  n->catching_up = FALSE;
  if (!n->accelerated && !n->catch_up_over) {
    n->catching_up = lost == 0 && marked == 0
        && rtpcc_nada_catch_up (p, n->r_ref, rmax, n->x_curr);
    /* start-up only: once the flow has caught up (or met loss), its own
     * d_base may hold a standing queue it joined (RFC 8698 §6.3), so its
     * x_curr reads low and a later catch-up would push past its share */
    n->catch_up_over = !n->catching_up;
  }
  if (n->accelerated || n->catching_up) {
    n->gamma = rtpcc_nada_ramp_up_gamma (p, n->rtt);
    n->r_ref = rtpcc_nada_accelerated_ramp_up (p, n->r_ref, n->r_recv, n->rtt);
    n->state = "accelerated-ramp-up";
    reason = n->catching_up ? "catch-up" : "ramp-up";
    n->n_catch_up += n->catching_up;
  } else {
    n->gamma = 0.0;
    n->r_ref = rtpcc_nada_gradual_update (p, n->r_ref, rmax, n->x_curr,
        n->x_prev, delta);
    n->state = "gradual-update";
    reason = lost > 0 ? "loss" : marked > 0 ? "ecn" : "queue-delay";
  }
  if (!(n->r_ref >= rmin))      /* also catches NaN */
    n->r_ref = rmin;
  n->r_ref = MIN (n->r_ref, rmax);
  n->competitor.enabled = p->competitive;
  n->competing = rtpcc_competitor_update (&n->competitor, now);
  n->r_competitive = 0.0;
  if (n->competing) {
    n->r_competitive = MIN (rtpcc_competitor_rate (&n->competitor,
            nada_rtt (n)), rmax);
    if (n->r_competitive > n->r_ref) {
      n->state = "competitive";
      reason = "competitor";
    }
  }
  n->x_prev = n->x_curr;
  n->t_last = now;
  n->last_delta = delta;
  n->n_new = 0;
  n->n_updates++;
  publish (n, reason);
  cc->next_tick = now + ms_to_time (p->delta);
}

static void
nada_init (RtpccController * cc, RtpccTime now)
{
  Nada *n = NADA (cc);

  rtpcc_nada_params_init (&n->p);
  rtpcc_competitor_init (&n->competitor);
  /* §4.3 initialisation: r_ref = RMIN (or the configured start rate) */
  n->r_ref = cc->config.start_bitrate ? cc->config.start_bitrate :
      cc->config.min_bitrate;
  n->t_last = now;
  n->s_newest = n->a_newest = n->a_first = RTPCC_TIME_NONE;
  n->restart_epoch = G_MININT64 + 1;
  n->log_cap = LOG_MIN_CAP;
  n->log = g_new (NadaPkt, n->log_cap);
  n->accelerated = TRUE;
  n->state = "accelerated-ramp-up";
  cc->next_tick = now + ms_to_time (n->p.delta);
  publish (n, "initial");
}

static void
nada_finalize (RtpccController * cc)
{
  g_free (NADA (cc)->log);
}

static void
nada_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  Nada *n = NADA (cc);

  n->buffer_len = pkt->queued_bytes;
}

static void
nada_on_feedback (RtpccController * cc, RtpccTime now,
    const RtpccFeedback * fb)
{
  Nada *n = NADA (cc);

  if (fb->srtt != RTPCC_TIME_NONE && fb->srtt >= 0) {
    n->rtt = RTPCC_TIME_AS_MSEC (fb->srtt);
    n->have_rtt = TRUE;
  } else if (fb->rtt_sample != RTPCC_TIME_NONE && fb->rtt_sample >= 0) {
    gdouble r = RTPCC_TIME_AS_MSEC (fb->rtt_sample);
    n->rtt = n->have_rtt ? 0.875 * n->rtt + 0.125 * r : r;
    n->have_rtt = TRUE;
  }
  if (fb->n_reports == 0)
    return;
  if (n->restart) {
    n->restart = FALSE;
    n->restart_epoch = now;
    n->log_len = 0;
    n->p_loss = n->p_mark = 0;
    n->have_loss = FALSE;
    n->n_intervals = 0;
    n->a_first = RTPCC_TIME_NONE;
    n->x_prev = 0;
    /* the queue before the outage says nothing about who holds it now */
    rtpcc_competitor_init (&n->competitor);
    n->competing = FALSE;
    n->r_competitive = 0.0;
  }
  for (guint i = 0; i < fb->n_reports; i++) {
    const RtpccPacketReport *r = &fb->reports[i];

    if (r->send_time < n->restart_epoch)
      continue;
    ingest (n, r);
    /* FEC and probes are expendable: their loss is not the media's */
    if (!r->is_fec)
      rtpcc_competitor_add (&n->competitor, now, r, nada_rtt (n));
  }
  n->have_feedback = TRUE;
  log_prune (n);
  if (now - n->t_last >= ms_to_time (n->p.delta))
    nada_update (n, now);
}

static void
nada_on_tick (RtpccController * cc, RtpccTime now)
{
  Nada *n = NADA (cc);

  if (n->n_new > 0) {
    nada_update (n, now);
    return;
  }
  /* nothing new since the last update: hold */
  cc->next_tick = now + ms_to_time (n->p.delta);
}

/* Feedback stopped (nofeedback.h): half of r_ref, once (ssthresh). */
static void
nada_on_no_feedback (RtpccController * cc, RtpccTime now, guint64 rate)
{
  Nada *n = NADA (cc);

  if (!n->restart) {
    n->r_ref = MAX ((gdouble) cc->config.min_bitrate, n->r_ref / 2.0);
    n->restart = TRUE;
  }
  n->n_nofb++;
  n->state = "no-feedback";
  publish (n, "no-feedback");
}

#define SPEC(name, field, lo, hi) \
  RTPCC_PARAM_DOUBLE (name, RtpccNadaParams, field, lo, hi, 0)
#define POS 1e-9

static const RtpccParamSpec param_specs[] = {
  SPEC ("prio", prio, POS, 1000.0),
  SPEC ("xref", xref, POS, 10000.0),
  SPEC ("kappa", kappa, POS, 100.0),
  SPEC ("eta", eta, 0.0, 1000.0),
  SPEC ("tau", tau, POS, 100000.0),
  SPEC ("delta", delta, 1.0, 10000.0),
  SPEC ("logwin", logwin, 10.0, 60000.0),
  SPEC ("qeps", qeps, 0.0, 10000.0),
  SPEC ("dfilt", dfilt, 0.0, 10000.0),
  SPEC ("gamma-max", gamma_max, 0.0, 100.0),
  SPEC ("qbound", qbound, 0.0, 100000.0),
  SPEC ("multiloss", multiloss, 0.0, 1000.0),
  SPEC ("qth", qth, POS, 100000.0),
  SPEC ("lambda", lambda, 0.0, 1000.0),
  SPEC ("plrref", plrref, POS, 1.0),
  SPEC ("pmrref", pmrref, POS, 1.0),
  SPEC ("dloss", dloss, 0.0, 100000.0),
  SPEC ("dmark", dmark, 0.0, 100000.0),
  SPEC ("xmax", xmax, POS, 1e6),
  SPEC ("alpha", alpha, POS, 1.0),
  SPEC ("beta-s", beta_s, 0.0, 100.0),
  SPEC ("beta-v", beta_v, 0.0, 100.0),
  SPEC ("fps", fps, POS, 1000.0),
  SPEC ("catch-up", catch_up, 0.0, 1.0),
  RTPCC_PARAM_BOOL ("competitive", RtpccNadaParams, competitive),
};

#undef SPEC
#undef POS

static gboolean
nada_set_param (RtpccController * cc, const gchar * key, const gchar * value)
{
  return rtpcc_params_set (param_specs, G_N_ELEMENTS (param_specs),
      &NADA (cc)->p, key, value) != NULL;
}

gboolean
rtpcc_nada_get_info (RtpccController * cc, RtpccNadaInfo * info)
{
  Nada *n;

  g_return_val_if_fail (cc != NULL && info != NULL, FALSE);
  if (cc->ops != &rtpcc_cc_nada_ops)
    return FALSE;
  n = NADA (cc);
  memset (info, 0, sizeof (*info));
  info->r_ref = n->r_ref;
  info->r_vin = n->r_vin;
  info->r_send = n->r_send;
  info->r_recv = n->r_recv;
  info->x_curr = n->x_curr;
  info->x_prev = n->x_prev;
  info->d_queue = n->d_queue;
  info->d_queue_raw = n->d_queue_raw;
  info->p_loss = n->p_loss;
  info->p_mark = n->p_mark;
  info->p_loss_window = n->p_loss_win;
  info->loss_int = n->have_loss ? n->loss_int : 0.0;
  info->warping = warping_active (n);
  info->accelerated = n->accelerated;
  info->catching_up = n->catching_up;
  info->n_catch_up = n->n_catch_up;
  info->gamma = n->gamma;
  info->rtt = n->have_rtt ? n->rtt : 0.0;
  info->last_delta = n->last_delta;
  info->n_updates = n->n_updates;
  info->n_nofeedback = n->n_nofb;
  info->n_competitor_entries = n->competitor.n_entries;
  info->have_feedback = n->have_feedback;
  info->competing = n->competing;
  info->r_competitive = n->r_competitive;
  info->params = n->p;
  return TRUE;
}

const RtpccControllerOps rtpcc_cc_nada_ops = {
  .name = "nada",
  .description = "Network-Assisted Dynamic Adaptation (RFC 8698), "
      "sender-side over per-packet feedback",
  .instance_size = sizeof (Nada),
  .init = nada_init,
  .finalize = nada_finalize,
  .on_packet_sent = nada_on_packet_sent,
  .on_feedback = nada_on_feedback,
  .on_tick = nada_on_tick,
  .set_param = nada_set_param,
  .on_no_feedback = nada_on_no_feedback,
};

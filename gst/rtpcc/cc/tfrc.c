/* "tfrc": TCP-Friendly Rate Control (RFC 5348), computed at the sender.
 *
 * Where p is computed. RFC 5348 puts the loss-event estimator at the receiver
 * (§5, §6.3) because a TFRC receiver reports only p, X_recv and a timestamp.
 * Our feedback (RFC 8888 CCFB, or TWCC) tells the sender the fate and arrival
 * time of every packet, so the sender runs the very same §5 loss-interval
 * method itself: loss events are grouped by the exact send times of the lost
 * packets (no interpolation of "nominal arrival times" needed), and X_recv is
 * measured from the receiver's arrival timestamps. This is the sender-based
 * TFRC Saurin proposes ("Congestion Control for Video-conferencing
 * Applications", MSc thesis, University of Glasgow 2006), and it gives the
 * sender the per-packet send log needed to tell its own stalls (a pacing
 * timer that wakes late) from congestion.
 *
 * Rounds. Every TFRC constant (q = 0.9, the 2-RTT X_recv_set, doubling per
 * RTT) assumes one feedback per RTT, but CCFB may report every few ms. Per-
 * packet results go into the loss history at once, and p (with X under the
 * last receive limit) follows every report; the rest of the §4.3 update runs
 * once per "round": the first feedback at least R (receiver clock) after the
 * previous round, or at once when a new loss event starts (the receiver's
 * immediate report of RFC 5348 §6.2). X_recv is the bytes reported received
 * since the previous round over the time between the two report times,
 * merged with the previous window when shorter than R/2 (early loss
 * reports would otherwise measure noise); a report the receiver held for more than R/2
 * ends its window at its newest arrival (a receiver stall).
 *
 * Data-limited rounds (§4.3, §8.2). A round is data-limited when every packet
 * sent in the interval it covers was sent with an empty queue and below the
 * allowed rate, or when the sender put less than half of what it was allowed
 * on the wire in that interval — whatever the cause: a quiet encoder sending
 * 10 frames/s in bursts, or the sender's own timer waking late (Saurin's thesis,
 * §4.1). A low X_recv then says nothing about the path, so the X_recv_set
 * keeps its maximum instead of letting 2·X_recv collapse X.
 *
 * Timer-error compensation. The controller never sends, but it sees every
 * packet's send time. While the sender is backlogged (the previous packet was
 * not app-limited) the gaps should add up to size/target; if they add up to
 * more, the pacer wakes late (Saurin's "Type 1" error). Replacing X by X_real
 * would oscillate (as Saurin's thesis observes); instead the published pacing rate is raised by a
 * bounded gain (<= 1.5) until the achieved backlogged rate meets the target:
 * TFRC's X, and what the encoder is told, are left alone.
 *
 * A stop is one loss event. When feedback stops (the no-feedback timer
 * every controller runs under, nofeedback.h; TFRC's own §4.4 timer halves
 * X too), the packets sent from the newest one acknowledged before the stop
 * until feedback returns went into an outage: their losses, reported when
 * feedback is back, are one congestion event, as a TCP retransmission
 * timeout is one reduction (RFC 5681 §3.1), not one event per RTT of the
 * outage — which filled the loss history with one-packet intervals and held
 * X near the floor for seconds after the path was back.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/params.h>
#include <rtpcc/cc/tfrc.h>
#include <rtpcc/cc/tfrc/recvset.h>
#include <rtpcc/cc/tfrc/sendlog.h>
#include <rtpcc/tcpeq.h>
#include <rtpcc/lossevents.h>

#include <math.h>
#include <string.h>

#define T_MBI           64.0    /* s: the rate never goes below s/t_mbi */
#define Q_RTT           0.9     /* §4.3 step 2 */
#define Q2_SQMEAN       0.9     /* §4.5 */
#define NOFB_INITIAL    RTPCC_SEC (2)   /* §4.2: before any RTT sample */
#define GAIN_MAX        1.5
#define GAIN_BLOCK_PKTS 8

/* ---- controller -------------------------------------------------------- */

typedef struct
{
  RtpccController parent;

  /* tunables */
  guint s;
  gboolean discounting;
  gboolean osc_prevention;
  gboolean data_limited_rule;
  gboolean timer_comp;

  /* rates in bytes/s */
  gdouble x, x_inst, x_calc, x_pre, p, recv_limit, x_recv;
  RtpccTime tld;
  gboolean have_feedback, have_rtt, nofeedback;
  gdouble r, r_sample, r_sqmean;        /* seconds, sqrt (seconds) */

  RtpccTfrcRecvSet xrs;

  /* X_recv windows, on the receiver's clock */
  RtpccTime win_start;
  guint64 win_bytes;
  RtpccTime prev_win_len;
  guint64 prev_win_bytes;

  /* send time of the newest acknowledged packet: now / at the last round */
  RtpccTime newest_acked, round_acked;

  /* loss events */
  RtpccTfrcLossHistory lh;
  gboolean have_loss, any_resolved;
  guint64 max_seq;
  RtpccLossEvents events;

  /* nofeedback timer */
  RtpccTime nfb_set, last_send;
  /* spacing of the receiver's feedback (EWMA), and the last one's arrival */
  RtpccTime fb_gap, last_fb;

  RtpccTfrcSendLog log;

  /* timer-error compensation */
  gdouble gain, x_real, blk_ideal;
  RtpccTime blk_gap, prev_send;
  guint64 blk_bytes;
  guint blk_n;
  gboolean prev_backlog;

  guint n_nfb;
  /* a stop (on_no_feedback): losses of packets sent in (stop_from,
   * stop_until) are one loss event; stop_until NONE while it lasts */
  gboolean stopped;
  RtpccTime stop_from, stop_until;
  gboolean stop_event;
  guint64 n_rounds;
  gboolean last_data_limited;
} Tfrc;

#define TFRC(cc) ((Tfrc *) (cc))

static RtpccTime
sec_to_time (gdouble s)
{
  return (RtpccTime) (s * RTPCC_NSEC_PER_SEC + 0.5);
}

static gdouble
tfrc_floor (Tfrc * tf)
{
  return tf->s / T_MBI;
}

/* RFC 5348 §4.2: W_init / R once R is known (also the §4.4 recover_rate) */
static gdouble
tfrc_initial_rate (Tfrc * tf)
{
  gdouble w = MIN (4.0 * tf->s, MAX (2.0 * tf->s, 4380.0));
  return tf->have_rtt ? w / tf->r : tf->x_pre;
}

static gdouble
tfrc_loss_event_rate (Tfrc * tf)
{
  gdouble mean;

  if (!tf->have_loss)
    return 0.0;
  /* the open interval as it stands now: p must follow every packet (the
   * Linux CCID-3 bug froze it for the whole second interval, Jero 2013) */
  mean = rtpcc_tfrc_loss_history_mean (&tf->lh,
      (gdouble) (tf->max_seq - tf->events.first_seq + 1), tf->discounting,
      NULL);
  return mean >= 1.0 ? 1.0 / mean : 1.0;
}

/* X_recv over the current window up to @rt, or < 0 if unknown */
static gdouble
measure_x_recv (Tfrc * tf, RtpccTime rt, gdouble r)
{
  RtpccTime len;
  guint64 bytes;

  if (rt == RTPCC_TIME_NONE || tf->win_start == RTPCC_TIME_NONE
      || rt <= tf->win_start)
    return -1.0;
  len = rt - tf->win_start;
  bytes = tf->win_bytes;
  if (len < sec_to_time (r / 2.0) && tf->prev_win_len > 0) {
    len += tf->prev_win_len;
    bytes += tf->prev_win_bytes;
  }
  return bytes / RTPCC_TIME_AS_SEC (len);
}

/* A congestion indication (loss or CE mark) for packet @seq: TRUE if it
 * starts a new loss event. */
static gboolean
loss_event_on (Tfrc * tf, guint64 seq, RtpccTime send_time, gdouble r,
    gdouble x_recv)
{
  gdouble df = 1.0;
  guint64 interval;

  if (!rtpcc_loss_events_on_loss (&tf->events, seq, send_time,
          sec_to_time (r), &interval))
    return FALSE;
  if (!tf->have_loss) {
    /* §6.3.1: the packets before the first loss reflect slow start, not
     * the path; seed I_1 with the interval at which the full equation gives
     * the receive rate (the thesis's Eq. 3.9 drops two squares) */
    gdouble target = x_recv > 0.0 ? x_recv : tf->x;
    gdouble p = rtpcc_tcpeq_loss_event_rate (tf->s, r, target);
    rtpcc_tfrc_loss_history_push (&tf->lh, 1.0 / p, 1.0);
    tf->have_loss = TRUE;
    return TRUE;
  }
  rtpcc_tfrc_loss_history_mean (&tf->lh, (gdouble) interval,
      tf->discounting, &df);
  rtpcc_tfrc_loss_history_push (&tf->lh, (gdouble) interval, df);
  return TRUE;
}

static void
update_x_inst (Tfrc * tf)
{
  /* §4.5: pace at X·R_sqmean/sqrt(R_sample), damping queue-driven swings */
  if (tf->osc_prevention && tf->have_rtt && tf->r_sample > 0.0)
    tf->x_inst = tf->x * tf->r_sqmean / sqrt (tf->r_sample);
  else
    tf->x_inst = tf->x;
}

static void
tfrc_publish (Tfrc * tf, const gchar * reason)
{
  gdouble bits = tf->x_inst * 8.0;
  guint64 b = bits >= 1e18 ? (guint64) 1e18 : (guint64) (bits + 0.5);
  const gchar *state = tf->nofeedback ? "no-feedback" :
      tf->p > 0.0 ? "congestion-avoidance" : "slow-start";

  rtpcc_controller_update_target (&tf->parent, b, 0, tf->gain, state, reason);
}

static void
arm_nofeedback (Tfrc * tf, RtpccTime now)
{
  gdouble t = 2.0 * tf->s / tf->x;

  /* max (4R, 2s/X) (§4.3 step 6); before any RTT the §4.2 initial 2 s is
   * also the minimum, so a configured start rate is not halved every few
   * hundred ms while the first feedback is on its way */
  t = tf->have_rtt ? MAX (4.0 * tf->r, t) : MAX (2.0, t);
  /* RFC 5348 assumes a receiver reporting at least once per RTT. Ours
   * reports once per video frame (>= 20 ms): on a path with RTT below a
   * quarter of that, max (4R, 2s/X) expires between two regular reports
   * and halves X for nothing. Two feedback intervals of silence it is. */
  if (tf->fb_gap > 0)
    t = MAX (t, 2.0 * RTPCC_TIME_AS_SEC (tf->fb_gap));
  else if (tf->have_feedback)
    /* rhythm not learned yet: assume the slowest our receiver uses */
    t = MAX (t, 2.0 * 0.100);
  tf->nfb_set = now;
  tf->parent.next_tick = now + sec_to_time (t);
}

static void
tfrc_round (Tfrc * tf, RtpccTime now, RtpccTime sample, RtpccTime rt,
    gdouble x_recv, gboolean new_event)
{
  gboolean first = !tf->have_feedback, data_limited, loss_up, doubled = FALSE;
  gdouble p_old = tf->p, recv_limit;
  const gchar *reason;

  /* §4.3 steps 1-2, once per round so that q = 0.9 keeps its per-RTT
   * meaning however often CCFB reports */
  if (sample != RTPCC_TIME_NONE) {
    gdouble r_s = RTPCC_TIME_AS_SEC (sample);
    if (!tf->have_rtt) {
      tf->r = r_s;
      tf->r_sqmean = sqrt (r_s);
      tf->have_rtt = TRUE;
    } else {
      tf->r = Q_RTT * tf->r + (1.0 - Q_RTT) * r_s;
      tf->r_sqmean = Q2_SQMEAN * tf->r_sqmean + (1.0 - Q2_SQMEAN) * sqrt (r_s);
    }
    tf->r_sample = r_s;
  }

  /* close the X_recv window */
  if (rt != RTPCC_TIME_NONE) {
    if (tf->win_start != RTPCC_TIME_NONE && rt > tf->win_start) {
      tf->prev_win_len = rt - tf->win_start;
      tf->prev_win_bytes = tf->win_bytes;
    }
    if (tf->win_start == RTPCC_TIME_NONE || rt > tf->win_start) {
      tf->win_start = rt;
      tf->win_bytes = 0;
    }
  }

  data_limited = !first && tf->data_limited_rule
      && rtpcc_tfrc_send_log_data_limited (&tf->log, tf->round_acked,
      tf->newest_acked);
  tf->round_acked = tf->newest_acked;

  tf->p = tf->have_loss ? tfrc_loss_event_rate (tf) : 0.0;
  loss_up = new_event || tf->p > p_old;

  if (first) {
    /* §4.2: the first RTT sample sets X to the initial rate; X_recv_set
     * starts as {Infinity} so the first reports cannot limit slow start */
    tf->have_feedback = TRUE;
    tf->x = tfrc_initial_rate (tf);
    tf->tld = now;
    rtpcc_tfrc_recv_set_reset (&tf->xrs, now, INFINITY);
  }

  /* §4.3 step 4 */
  if (data_limited) {
    if (loss_up) {
      rtpcc_tfrc_recv_set_halve (&tf->xrs);
      rtpcc_tfrc_recv_set_maximize (&tf->xrs, now,
          x_recv >= 0.0 ? 0.85 * x_recv : x_recv);
      recv_limit = rtpcc_tfrc_recv_set_max (&tf->xrs);
    } else {
      rtpcc_tfrc_recv_set_maximize (&tf->xrs, now, x_recv);
      recv_limit = 2.0 * rtpcc_tfrc_recv_set_max (&tf->xrs);
    }
  } else {
    /* values older than 2 R are forgotten */
    rtpcc_tfrc_recv_set_update (&tf->xrs, now, x_recv,
        sec_to_time (2.0 * tf->r));
    recv_limit = 2.0 * rtpcc_tfrc_recv_set_max (&tf->xrs);
  }
  tf->recv_limit = recv_limit;
  tf->x_recv = x_recv;

  if (tf->p > 0.0) {
    tf->x_calc = rtpcc_tcpeq_throughput (tf->s, tf->r, tf->p);
    tf->x = MAX (MIN (tf->x_calc, recv_limit), tfrc_floor (tf));
  } else if (now - tf->tld >= sec_to_time (tf->r)) {
    tf->x = MAX (MIN (2.0 * tf->x, recv_limit), tfrc_initial_rate (tf));
    tf->tld = now;
    doubled = TRUE;
  }

  update_x_inst (tf);
  arm_nofeedback (tf, now);
  tf->nofeedback = FALSE;
  tf->n_rounds++;
  tf->last_data_limited = data_limited;

  if (new_event)
    reason = "loss-event";
  else if (data_limited)
    reason = "data-limited";
  else if (first)
    reason = "initial-rate";
  else if (doubled)
    reason = "slow-start";
  else
    reason = "rtt-update";
  tfrc_publish (tf, reason);
}

static void
tfrc_on_feedback (RtpccController * cc, RtpccTime now, const RtpccFeedback * fb)
{
  Tfrc *tf = TFRC (cc);
  RtpccTime rt = fb->report_time, max_arrival = RTPCC_TIME_NONE, sample;
  guint n_recv = 0;
  gboolean new_event = FALSE;
  gdouble r_est, x_recv;

  /* feedback spacing, for the nofeedback timer (gaps over 2 s are silences,
   * not the receiver's rhythm) */
  if (tf->last_fb != RTPCC_TIME_NONE && now > tf->last_fb
      && now - tf->last_fb < RTPCC_SEC (2))
    tf->fb_gap = tf->fb_gap ? (7 * tf->fb_gap + (now - tf->last_fb)) / 8 :
        now - tf->last_fb;
  tf->last_fb = now;

  if (fb->rtt_sample != RTPCC_TIME_NONE && fb->rtt_sample > 0)
    sample = fb->rtt_sample;
  else if (fb->srtt != RTPCC_TIME_NONE && fb->srtt > 0)
    sample = fb->srtt;
  else
    sample = RTPCC_TIME_NONE;

  /* pass 1: what arrived. Every reported byte counts once, in the window
   * it is reported in: a packet stamped before the previous report but
   * missing from it was still unread when that report was written (the
   * receiver stall Saurin's thesis describes); dropped, it would be lost from
   * both windows and X_recv would collapse for nothing. */
  for (guint i = 0; i < fb->n_reports; i++) {
    const RtpccPacketReport *r = &fb->reports[i];

    if (!tf->any_resolved || r->seq > tf->max_seq)
      tf->max_seq = r->seq;
    tf->any_resolved = TRUE;
    if (!r->received)
      continue;
    n_recv++;
    if (tf->newest_acked == RTPCC_TIME_NONE || r->send_time > tf->newest_acked)
      tf->newest_acked = r->send_time;
    tf->win_bytes += r->size;
    if (r->arrival != RTPCC_TIME_NONE && (max_arrival == RTPCC_TIME_NONE
            || r->arrival > max_arrival))
      max_arrival = r->arrival;
  }
  if (rt == RTPCC_TIME_NONE)
    rt = max_arrival;
  /* A receiver holds a report a fraction of an RTT after the newest packet
   * in it; a longer hold means it stalled with packets unread. The window
   * then ends at that newest arrival and the rest goes to the next round. */
  if (tf->have_rtt && rt != RTPCC_TIME_NONE && max_arrival != RTPCC_TIME_NONE
      && rt - max_arrival > sec_to_time (tf->r / 2.0)
      && (tf->win_start == RTPCC_TIME_NONE || max_arrival > tf->win_start))
    rt = max_arrival;

  /* a feedback without any RTT information is only possible from a broken
   * sender; 100 ms keeps loss grouping sane until a sample arrives */
  r_est = tf->have_rtt ? tf->r :
      sample != RTPCC_TIME_NONE ? RTPCC_TIME_AS_SEC (sample) : 0.1;
  x_recv = measure_x_recv (tf, rt, r_est);

  if (tf->stopped && n_recv > 0) {
    tf->stopped = FALSE;
    tf->stop_until = now;
  }
  /* pass 2: losses and CE marks into loss events */
  for (guint i = 0; i < fb->n_reports; i++) {
    const RtpccPacketReport *r = &fb->reports[i];
    if (!r->received || (r->ecn & 0x3) == 0x3) {
      if (tf->stop_from != RTPCC_TIME_NONE && r->send_time > tf->stop_from
          && (tf->stop_until == RTPCC_TIME_NONE
              || r->send_time < tf->stop_until)) {
        if (tf->stop_event)
          continue;             /* the stop's event has begun */
        tf->stop_event = TRUE;
      }
      if (loss_event_on (tf, r->seq, r->send_time, r_est, x_recv))
        new_event = TRUE;
    }
  }

  if (sample == RTPCC_TIME_NONE && !tf->have_rtt)
    return;
  if (tf->have_feedback && !new_event) {
    /* only reports of newly received data count as feedback: a receiver
     * that hears nothing must not keep the nofeedback timer at bay */
    if (n_recv == 0)
      return;
    if (rt == RTPCC_TIME_NONE || tf->win_start == RTPCC_TIME_NONE
        || rt - tf->win_start < sec_to_time (tf->r)) {
      /* between rounds p still follows the open interval packet by packet,
       * as a receiver's p would (the Linux CCID-3 freeze, Jero 2013); X
       * tracks it under the last round's receive limit */
      if (tf->have_loss) {
        tf->p = tfrc_loss_event_rate (tf);
        tf->x_calc = rtpcc_tcpeq_throughput (tf->s, tf->r, tf->p);
        tf->x = MAX (MIN (tf->x_calc, tf->recv_limit), tfrc_floor (tf));
        update_x_inst (tf);
      }
      tf->nofeedback = FALSE;
      arm_nofeedback (tf, now);
      tfrc_publish (tf, NULL);
      return;
    }
  }
  tfrc_round (tf, now, sample, rt, x_recv, new_event);
}

/* §4.4: cache a halved limit in X_recv_set and recompute X from it */
static void
update_limits (Tfrc * tf, RtpccTime now, gdouble timer_limit)
{
  timer_limit = MAX (timer_limit, tfrc_floor (tf));
  rtpcc_tfrc_recv_set_reset (&tf->xrs, now, timer_limit / 2.0);
  tf->recv_limit = timer_limit;
  tf->x_calc = rtpcc_tcpeq_throughput (tf->s, tf->r, tf->p);
  tf->x = MAX (MIN (tf->x_calc, tf->recv_limit), tfrc_floor (tf));
}

static void
tfrc_on_tick (RtpccController * cc, RtpccTime now)
{
  Tfrc *tf = TFRC (cc);
  gboolean idle = tf->last_send == RTPCC_TIME_NONE
      || tf->last_send < tf->nfb_set;
  gdouble x_recv = rtpcc_tfrc_recv_set_max (&tf->xrs);
  gdouble recover = tfrc_initial_rate (tf);

  /* RFC 5348 §4.4, nofeedback timer expiry */
  if (!tf->have_rtt && !tf->have_feedback && !idle) {
    tf->x = MAX (tf->x / 2.0, tfrc_floor (tf));
  } else if (((tf->p > 0.0 && x_recv < recover)
          || (tf->p == 0.0 && tf->x < 2.0 * recover)) && idle) {
    /* idle since the timer was set and already at the restart rate: a
     * quiet period must not push the rate below what a restart would use */
  } else if (tf->p == 0.0) {
    tf->x = MAX (tf->x / 2.0, tfrc_floor (tf));
  } else if (tf->x_calc > 2.0 * x_recv) {
    update_limits (tf, now, x_recv);    /* 2·X_recv was the limit */
  } else {
    update_limits (tf, now, tf->x_calc / 2.0);
  }
  tf->nofeedback = TRUE;
  tf->n_nfb++;
  update_x_inst (tf);
  arm_nofeedback (tf, now);
  tfrc_publish (tf, "nofeedback-timer");
}

/* Feedback stopped (nofeedback.h): remember where, for the one loss
 * event; TFRC's own timer does the rate. */
static void
tfrc_on_no_feedback (RtpccController * cc, RtpccTime now, guint64 rate)
{
  Tfrc *tf = TFRC (cc);

  if (tf->stopped)
    return;
  tf->stopped = TRUE;
  tf->stop_from = tf->newest_acked;
  tf->stop_until = RTPCC_TIME_NONE;
  tf->stop_event = FALSE;
}

static void
tfrc_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  Tfrc *tf = TFRC (cc);
  gdouble allowed = cc->target.target_bitrate / 8.0;
  RtpccTfrcSentEntry e =
      { pkt->send_time, allowed, pkt->size, pkt->app_limited };
  RtpccTime cutoff;

  rtpcc_tfrc_send_log_push (&tf->log, &e);
  cutoff = pkt->send_time - (tf->have_rtt ?
      MAX (RTPCC_SEC (2), sec_to_time (8.0 * tf->r)) : RTPCC_SEC (4));
  /* keep what the next round's data-limited check will look at */
  if (tf->round_acked != RTPCC_TIME_NONE)
    cutoff = MIN (cutoff, tf->round_acked);
  rtpcc_tfrc_send_log_prune (&tf->log, cutoff);

  /* timer-error compensation: a gap after a packet that left a backlog
   * behind should have been size/target long */
  if (tf->prev_send != RTPCC_TIME_NONE && tf->prev_backlog
      && pkt->send_time > tf->prev_send && allowed > 0.0) {
    RtpccTime min_len = tf->have_rtt ?
        MAX (RTPCC_MSEC (100), sec_to_time (tf->r)) : RTPCC_MSEC (100);

    tf->blk_gap += pkt->send_time - tf->prev_send;
    tf->blk_ideal += pkt->size / allowed;
    tf->blk_bytes += pkt->size;
    tf->blk_n++;
    if (tf->blk_n >= GAIN_BLOCK_PKTS && tf->blk_gap >= min_len) {
      gdouble gap = RTPCC_TIME_AS_SEC (tf->blk_gap);
      tf->x_real = tf->blk_bytes / gap;
      if (tf->timer_comp) {
        /* multiplicative, half-step (sqrt) correction: converges to the
         * gain at which the late-waking pacer still averages the target */
        gdouble g = CLAMP (tf->gain * sqrt (gap / tf->blk_ideal), 1.0,
            GAIN_MAX);
        if (g != tf->gain) {
          tf->gain = g;
          tfrc_publish (tf, NULL);
        }
      }
      tf->blk_gap = 0;
      tf->blk_ideal = 0.0;
      tf->blk_bytes = 0;
      tf->blk_n = 0;
    }
  }
  tf->prev_send = pkt->send_time;
  tf->prev_backlog = !pkt->app_limited;
  tf->last_send = pkt->send_time;
}

static void
tfrc_init (RtpccController * cc, RtpccTime now)
{
  Tfrc *tf = TFRC (cc);

  tf->s = cc->config.packet_size;
  tf->discounting = TRUE;
  tf->osc_prevention = TRUE;
  tf->data_limited_rule = TRUE;
  tf->timer_comp = TRUE;

  /* before an RTT is known: the configured start rate, else min-bitrate,
   * but never below RFC 5348 §4.2's one packet per second */
  tf->x_pre = cc->config.start_bitrate ? cc->config.start_bitrate / 8.0 :
      MAX (cc->config.min_bitrate / 8.0, (gdouble) tf->s);
  tf->x = tf->x_inst = tf->x_pre;
  tf->x_recv = tf->x_real = -1.0;
  tf->recv_limit = INFINITY;
  tf->gain = 1.0;
  tf->tld = tf->win_start = tf->newest_acked = tf->round_acked =
      tf->last_send = tf->prev_send = tf->last_fb = RTPCC_TIME_NONE;
  tf->stop_from = tf->stop_until = RTPCC_TIME_NONE;
  rtpcc_loss_events_init (&tf->events);
  tf->fb_gap = 0;
  rtpcc_tfrc_loss_history_init (&tf->lh);
  rtpcc_tfrc_send_log_init (&tf->log);

  tf->nfb_set = now;
  cc->next_tick = now + NOFB_INITIAL;
  tfrc_publish (tf, "initial");
}

static void
tfrc_finalize (RtpccController * cc)
{
  rtpcc_tfrc_send_log_clear (&TFRC (cc)->log);
}

static const RtpccParamSpec param_specs[] = {
  RTPCC_PARAM_UINT ("packet-size", Tfrc, s, 1, 65535),
  RTPCC_PARAM_BOOL ("history-discounting", Tfrc, discounting),
  RTPCC_PARAM_BOOL ("data-limited-handling", Tfrc, data_limited_rule),
  RTPCC_PARAM_BOOL ("oscillation-prevention", Tfrc, osc_prevention),
  RTPCC_PARAM_BOOL ("timer-compensation", Tfrc, timer_comp),
};

static gboolean
tfrc_set_param (RtpccController * cc, const gchar * key, const gchar * value)
{
  Tfrc *tf = TFRC (cc);
  const RtpccParamSpec *spec = rtpcc_params_set (param_specs,
      G_N_ELEMENTS (param_specs), tf, key, value);

  if (!spec)
    return FALSE;
  switch (spec->offset) {
    case G_STRUCT_OFFSET (Tfrc, osc_prevention):
      update_x_inst (tf);
      tfrc_publish (tf, NULL);
      break;
    case G_STRUCT_OFFSET (Tfrc, timer_comp):
      if (!tf->timer_comp) {
        tf->gain = 1.0;
        tfrc_publish (tf, NULL);
      }
      break;
    default:
      break;
  }
  return TRUE;
}

gboolean
rtpcc_tfrc_get_info (RtpccController * cc, RtpccTfrcInfo * info)
{
  Tfrc *tf;

  g_return_val_if_fail (cc != NULL && info != NULL, FALSE);
  if (cc->ops != &rtpcc_cc_tfrc_ops)
    return FALSE;
  tf = TFRC (cc);
  memset (info, 0, sizeof (*info));
  info->x = tf->x;
  info->x_inst = tf->x_inst;
  info->x_calc = tf->p > 0.0 ? tf->x_calc : 0.0;
  info->x_recv = tf->x_recv;
  info->x_recv_max = tf->have_feedback ?
      rtpcc_tfrc_recv_set_max (&tf->xrs) : INFINITY;
  info->recv_limit = tf->recv_limit;
  info->x_real = tf->x_real;
  info->pacing_gain = tf->gain;
  info->initial_rate = tfrc_initial_rate (tf);
  info->p = tf->p;
  info->rtt = tf->have_rtt ? tf->r : 0.0;
  info->r_sqmean = tf->r_sqmean;
  info->s = tf->s;
  info->n_loss_events = (guint) tf->events.n_events;
  info->n_nofeedback = tf->n_nfb;
  info->n_rounds = tf->n_rounds;
  info->data_limited = tf->last_data_limited;
  info->have_feedback = tf->have_feedback;
  info->nofeedback_deadline = cc->next_tick;
  return TRUE;
}

const RtpccControllerOps rtpcc_cc_tfrc_ops = {
  .name = "tfrc",
  .description = "TCP-Friendly Rate Control (RFC 5348), sender-side over "
      "per-packet feedback",
  .instance_size = sizeof (Tfrc),
  .init = tfrc_init,
  .finalize = tfrc_finalize,
  .on_packet_sent = tfrc_on_packet_sent,
  .on_feedback = tfrc_on_feedback,
  .on_tick = tfrc_on_tick,
  .set_param = tfrc_set_param,
  .on_no_feedback = tfrc_on_no_feedback,
};

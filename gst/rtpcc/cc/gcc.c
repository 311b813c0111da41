/* "gcc": Google Congestion Control after draft-ietf-rmcat-gcc-02 and the
 * libwebrtc goog_cc design it documents, run at the sender from per-packet
 * feedback (RFC 8888 CCFB or TWCC); RTCP receiver reports alone run the
 * loss-based part only (draft §7).
 *
 * Per feedback:
 *   reports -> grouper -> d(i) -> trendline | Kalman -> over-use detector
 *           -> AIMD on the received rate                              = A
 *   reports -> loss fraction over a window                            = As
 *   target = min (A, As); a probe adds fec_bitrate on top.
 * While a loss-based flow holds the queue (cc/competitor.h), A is at
 * least the TCP equation's rate for our loss-event rate and RTT.
 *
 * This file is the glue: it feeds the parts under cc/gcc/, publishes the
 * target, and maps controller-params onto them. docs/gcc.md has what each
 * part does beyond the draft, every parameter, and how the defaults were
 * chosen.
 *
 * States "startup", "increase", "decrease", "hold", "probe"; reasons
 * "overuse", "underuse", "normal", "loss", "probe", "standing-queue",
 * "queue-hold", "competitor" (the competitive mode's rate is above A's).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/gcc.h>
#include <rtpcc/cc/gcc/aimd.h>
#include <rtpcc/cc/gcc/applimit.h>
#include <rtpcc/cc/gcc/burst.h>
#include <rtpcc/cc/competitor.h>
#include <rtpcc/cc/gcc/detector.h>
#include <rtpcc/cc/gcc/freepath.h>
#include <rtpcc/cc/gcc/grouper.h>
#include <rtpcc/cc/gcc/kalman.h>
#include <rtpcc/cc/gcc/loss.h>
#include <rtpcc/cc/gcc/probe.h>
#include <rtpcc/cc/gcc/sendlog.h>
#include <rtpcc/cc/gcc/standing.h>
#include <rtpcc/cc/gcc/trendline.h>
#include <rtpcc/cc/params.h>
#include <rtpcc/ratewindow.h>

#include <string.h>

/* arrivals this far apart: the stream paused, start the delay path again */
#define STREAM_TIMEOUT        RTPCC_SEC (2)
/* threshold adaptation stays off after our own over-use until the rate
 * controller is back in increase with the signal normal this long, or
 * for at most THRESHOLD_FREEZE if the over-use persists (then it is not
 * ours) */
#define THRESHOLD_FREEZE      RTPCC_SEC (1)
#define THRESHOLD_FREEZE_NORMAL RTPCC_MSEC (500)
/* the rate controller runs once per control interval (draft §5.5) */
#define CONTROL_INTERVAL      RTPCC_MSEC (100)
/* the received rate R over this much of arrivals (draft's T), and at least
 * this span while younger */
#define RATE_WINDOW           RTPCC_MSEC (500)
#define RATE_MIN_SPAN         RTPCC_MSEC (100)
/* the send rate the application-limited test reads */
#define SEND_WINDOW           RTPCC_SEC (1)
/* With app-limit=R the estimate is not raised while the media sent over
 * the last APP_LIMIT_WINDOW (libwebrtc's AlrDetector budget window) is
 * below R × what the target allowed. R = the draft's decrease factor beta
 * (0.85): a sender below beta × A sends less than an over-use would leave
 * it, so the delay signal is not testing A at all. docs/gcc.md (c') has
 * what it changes in real pipelines and in the simulator. */
#define APP_LIMIT_WINDOW      RTPCC_MSEC (500)
#define APP_LIMIT_RATIO       0.85
/* defaults of the AIMD's additions, each explained in docs/gcc.md:
 * fast recovery to 0.91 of the congestion point at 2 × per second, the
 * newcomer's ramp at 1.5 × per second while over-uses come 1.7 × higher,
 * the free-path climb at 1.3 × per second */
#define RECOVERY_FRAC         0.91
#define RECOVERY_GAIN         2.0
#define RAMP_GAIN             1.5
#define RAMP_RISE             1.7
#define FREE_GAIN             1.3
/* the pacer drains at this × the target: a frame sent much faster than the
 * link drains builds its own queue, which reads as a delay trend */
#define PACING_FACTOR         1.1

const gchar *
rtpcc_gcc_signal_name (RtpccGccSignal s)
{
  switch (s) {
    case RTPCC_GCC_OVERUSE:
      return "overuse";
    case RTPCC_GCC_UNDERUSE:
      return "underuse";
    default:
      return "normal";
  }
}

typedef struct
{
  RtpccController parent;

  /* configuration the parts are (re)built from */
  RtpccGccEstimator estimator;
  RtpccTime burst_time;
  gdouble beta;
  gdouble startup_gain;
  gdouble pacing_factor;
  guint trendline_window;

  /* delay path: grouper -> filter -> detector */
  RtpccGccGrouper grouper;
  RtpccGccTrendline trendline;
  RtpccGccKalman kalman;
  RtpccGccDetector detector;
  gdouble accumulated;
  gdouble estimate, modified;
  guint64 n_overuse;
  gboolean overuse_latched;
  RtpccTime last_arrival;
  RtpccTime last_not_normal;    /* sender time the signal was last not normal */
  RtpccTime freeze_until;       /* threshold adaptation suspended until */

  RtpccGccBurst burst;          /* our own key-frame bursts */

  /* rates */
  RtpccGccAimd aimd;            /* A */
  RtpccTime last_rc;
  guint64 n_decreases, n_loss_decreases;
  RtpccGccLoss loss;            /* As */
  gboolean have_packet_feedback;
  gboolean rr_only;             /* running on RTCP RR loss alone (§7) */
  RtpccRateWindow recv;
  gdouble received_rate;        /* R, -1 unknown */
  RtpccGccFreePath free_path;   /* no queue for a while: the free climb */
  RtpccGccStanding standing;    /* a queue the trend does not see */
  guint64 n_drains;
  RtpccTime queue_hold;         /* no increase on a queue above it, 0 off */
  guint64 n_queue_holds;        /* increases held on a standing queue */
  gboolean cut_drain;           /* an over-use cut drains the queue too */
  gboolean free_above_point;    /* the free climb only past the point */
  guint64 n_free_steps;
  guint64 n_cut_drains;
  RtpccGccAppLimit allowance;   /* the media target over time */
  gdouble app_limit_ratio;      /* 0 = off */
  gboolean app_limited;
  guint64 n_app_limited;        /* rate-control steps held by it */
  RtpccCompetitor competitor;        /* a loss-based flow holds the queue */
  gboolean competing;           /* its rate applies */
  RtpccTime srtt;

  /* probing */
  RtpccGccSendLog sent;         /* media only, sender clock */
  RtpccTime last_send_time;
  RtpccGccProber probe;

  const gchar *reason;
  /* feedback stopped (on_no_feedback): restart when it returns */
  gboolean restart;
} Gcc;

static void
gcc_reset_delay_path (Gcc * g)
{
  rtpcc_gcc_grouper_init (&g->grouper, g->burst_time);
  rtpcc_gcc_trendline_init (&g->trendline, g->trendline_window);
  rtpcc_gcc_kalman_init (&g->kalman);
  rtpcc_gcc_detector_init (&g->detector);
  g->detector.strict_adapt = TRUE;
  g->accumulated = 0;
  g->estimate = g->modified = 0;
  rtpcc_gcc_standing_restart (&g->standing);
}

static RtpccTime
gcc_rtt (const Gcc * g)
{
  return g->srtt != RTPCC_TIME_NONE && g->srtt > 0 ? g->srtt :
      RTPCC_GCC_DEFAULT_RTT;
}

/* A, or against a loss-based flow at least what TCP would get there
 * (competitor.h) */
static gdouble
gcc_delay_rate (const Gcc * g)
{
  if (g->competing)
    return MAX (g->aimd.rate, MIN (rtpcc_competitor_rate
            (&g->competitor, gcc_rtt (g)), g->aimd.max_rate));
  return g->aimd.rate;
}

static gdouble
gcc_rate (const Gcc * g)
{
  return MIN (gcc_delay_rate (g), g->loss.rate);
}

/* Publishes the target; @now (NONE: the rate did not change) starts the
 * media rate's allowance there. */
static void
gcc_publish (Gcc * g, RtpccTime now)
{
  RtpccController *cc = &g->parent;
  gdouble rate = gcc_rate (g);
  guint64 target, fec = 0;
  const gchar *state;

  if (g->probe.state == RTPCC_GCC_PROBE_SENDING) {
    target = (guint64) MAX (g->probe.rate, rate);
    fec = target - (guint64) rate;
    state = "probe";
  } else if (g->aimd.startup) {
    target = (guint64) rate;
    state = "startup";
  } else {
    target = (guint64) rate;
    if (g->loss.limiting && g->reason && strcmp (g->reason, "loss") == 0)
      state = "decrease";
    else
      switch (g->aimd.state) {
        case RTPCC_GCC_RC_DECREASE:
          state = "decrease";
          break;
        case RTPCC_GCC_RC_HOLD:
          state = "hold";
          break;
        default:
          state = "increase";
          break;
      }
  }
  rtpcc_controller_update_target (cc, target, fec, g->pacing_factor, state,
      g->reason);
  if (now != RTPCC_TIME_NONE)
    rtpcc_gcc_app_limit_set_rate (&g->allowance, now, rate);
}

static void
gcc_init (RtpccController * cc, RtpccTime now)
{
  Gcc *g = (Gcc *) cc;
  gdouble start = cc->target.target_bitrate;

  g->estimator = RTPCC_GCC_ESTIMATOR_TRENDLINE;
  g->burst_time = RTPCC_GCC_BURST_TIME;
  g->beta = RTPCC_GCC_BETA;
  g->startup_gain = RTPCC_GCC_STARTUP_GAIN;
  g->pacing_factor = PACING_FACTOR;
  g->trendline_window = RTPCC_GCC_TRENDLINE_WINDOW;
  gcc_reset_delay_path (g);
  g->last_arrival = RTPCC_TIME_NONE;
  g->last_not_normal = now;
  g->freeze_until = RTPCC_TIME_NONE;
  rtpcc_gcc_aimd_init (&g->aimd, start, cc->config.min_bitrate,
      cc->config.max_bitrate, g->beta);
  g->aimd.startup_gain = g->startup_gain;
  g->aimd.recovery_frac = RECOVERY_FRAC;
  g->aimd.recovery_gain = RECOVERY_GAIN;
  g->aimd.ramp_gain = RAMP_GAIN;
  g->aimd.ramp_rise = RAMP_RISE;
  g->aimd.free_gain = FREE_GAIN;
  g->last_rc = RTPCC_TIME_NONE;
  rtpcc_gcc_loss_init (&g->loss, g->aimd.rate);
  rtpcc_rate_window_init (&g->recv, RATE_WINDOW);
  rtpcc_gcc_send_log_init (&g->sent);
  rtpcc_gcc_burst_init (&g->burst);
  g->received_rate = -1;
  g->srtt = RTPCC_TIME_NONE;
  rtpcc_gcc_prober_init (&g->probe, now);
  rtpcc_gcc_free_path_init (&g->free_path);
  /* opt-in (standing-queue=50): docs/gcc.md (f) */
  rtpcc_gcc_standing_init (&g->standing, 0);
  /* docs/gcc.md (h) */
  g->queue_hold = RTPCC_GCC_STANDING_TARGET;
  /* docs/gcc.md (g) */
  g->cut_drain = TRUE;
  rtpcc_gcc_app_limit_init (&g->allowance);
  g->app_limit_ratio = APP_LIMIT_RATIO;
  rtpcc_competitor_init (&g->competitor);
  g->reason = "initial";
  gcc_publish (g, now);
}

static void
gcc_finalize (RtpccController * cc)
{
  Gcc *g = (Gcc *) cc;

  rtpcc_rate_window_clear (&g->recv);
  rtpcc_gcc_send_log_clear (&g->sent);
  rtpcc_gcc_app_limit_clear (&g->allowance);
  rtpcc_gcc_burst_clear (&g->burst);
}

static void
gcc_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  Gcc *g = (Gcc *) cc;

  g->last_send_time = pkt->send_time;
  /* FEC outside a probe of ours is the sender's share of our target
   * (rtpccsink max-fec-share moves it from the media): it uses the rate
   * too, and the application-limited test must see that */
  if (!pkt->is_fec || g->probe.state == RTPCC_GCC_PROBE_IDLE)
    rtpcc_gcc_send_log_add (&g->sent, pkt->send_time, pkt->size);
  if (!pkt->is_fec)
    rtpcc_gcc_burst_sent (&g->burst, pkt,
        g->probe.state == RTPCC_GCC_PROBE_IDLE);
  rtpcc_gcc_prober_sent (&g->probe, pkt);
}

/* One inter-group sample through the filter and the detector. */
static void
gcc_process_delta (Gcc * g, RtpccTime now, const RtpccGccDelta * d)
{
  guint n;
  RtpccGccSignal s;
  gboolean burst;

  g->accumulated += d->d;
  /* Threshold adaptation is suspended from our own over-use signal until
   * the rate controller is back in increase with the signal normal for a
   * while: the overshoot before our cut and the drain after it are ours,
   * and learning from them (K_d takes ~5 s to undo a rise) would ratchet
   * the threshold up tooth by tooth, each over-use detected later with
   * more queue. One that persists beyond THRESHOLD_FREEZE despite our cut
   * is foreign (a loss-based flow filling the queue) and adapts it. */
  if (g->freeze_until != RTPCC_TIME_NONE
      && ((now >= g->freeze_until && g->modified > g->detector.threshold)
          || (g->aimd.state == RTPCC_GCC_RC_INCREASE
              && now - g->last_not_normal >= THRESHOLD_FREEZE_NORMAL)))
    g->freeze_until = RTPCC_TIME_NONE;
  g->detector.adapt = g->freeze_until == RTPCC_TIME_NONE;
  if (g->estimator == RTPCC_GCC_ESTIMATOR_KALMAN) {
    g->estimate = rtpcc_gcc_kalman_update (&g->kalman, d->d, d->send_delta);
    g->modified = rtpcc_gcc_kalman_modified (&g->kalman);
    n = g->kalman.num_deltas;
  } else {
    g->modified = rtpcc_gcc_trendline_update (&g->trendline,
        d->arrival_delta, d->send_delta, d->arrival);
    g->estimate = g->trendline.trend;
    n = g->trendline.num_deltas;
  }
  /* (a) was this group sent in our own burst (a key frame and the frames
   * the pacer caught up with after it)? It may not fire an over-use. */
  burst = rtpcc_gcc_burst_check (&g->burst, d->send, g->accumulated);
  s = rtpcc_gcc_detector_update (&g->detector, g->modified, g->estimate,
      d->send_delta, g->accumulated, n, burst, d->arrival);
  if (g->detector.fired) {
    if (g->freeze_until == RTPCC_TIME_NONE)
      g->freeze_until = now + THRESHOLD_FREEZE;
    g->n_overuse++;
    /* held until the rate controller runs, so a short over-use inside one
     * feedback batch is not lost */
    g->overuse_latched = TRUE;
  }
  if (s != RTPCC_GCC_NORMAL)
    g->last_not_normal = now;
}

/* Judges a running probe; a success lifts A (and As with it) to what got
 * through, and the old congestion point no longer describes the path. */
static void
gcc_probe_evaluate (Gcc * g, RtpccTime now, gboolean all_reported)
{
  gdouble r = 0;

  switch (rtpcc_gcc_prober_evaluate (&g->probe, now, all_reported,
          g->aimd.rate, &r)) {
    case RTPCC_GCC_PROBE_RUNNING:
      return;
    case RTPCC_GCC_PROBE_SUCCEEDED:
      g->aimd.rate = CLAMP (MAX (g->aimd.rate, r), g->aimd.min_rate,
          g->aimd.max_rate);
      g->aimd.have_cp = FALSE;
      g->loss.rate = g->aimd.rate;
      g->loss.limiting = FALSE;
      g->reason = "probe";
      break;
    case RTPCC_GCC_PROBE_FAILED:
      break;
  }
  g->parent.next_tick = RTPCC_TIME_NONE;
}

static void
gcc_probe_maybe_start (Gcc * g, RtpccTime now)
{
  RtpccController *cc = &g->parent;
  RtpccGccProbeInput in;

  in.rate = gcc_rate (g);
  in.target = cc->target.target_bitrate;
  in.max_rate = cc->config.max_bitrate;
  in.send_rate = rtpcc_gcc_send_log_rate (&g->sent, now, SEND_WINDOW);
  in.received_rate = g->received_rate;
  in.signal = g->detector.signal;
  in.last_not_normal = g->last_not_normal;
  in.rc_state = g->aimd.state;
  in.startup = g->aimd.startup;
  in.loss_limiting = g->loss.limiting;
  in.loss_fraction = g->loss.last_fraction;
  in.have_cp = g->aimd.have_cp;
  in.cp_mean = g->aimd.cp_mean;
  in.quiet_time = rtpcc_gcc_free_path_quiet_time (&g->free_path, now);
  if (rtpcc_gcc_prober_maybe_start (&g->probe, now, &in)) {
    g->reason = "probe";
    cc->next_tick = g->probe.end;
  }
}

static void
gcc_update_rtt (Gcc * g, const RtpccFeedback * fb)
{
  if (fb->srtt != RTPCC_TIME_NONE && fb->srtt > 0)
    g->srtt = fb->srtt;
  else if (fb->rtt_sample != RTPCC_TIME_NONE && fb->rtt_sample > 0)
    g->srtt = g->srtt == RTPCC_TIME_NONE ? fb->rtt_sample :
        (7 * g->srtt + fb->rtt_sample) / 8;
}

static void
gcc_on_feedback (RtpccController * cc, RtpccTime now, const RtpccFeedback * fb)
{
  Gcc *g = (Gcc *) cc;
  gboolean probe_all_reported = FALSE, rc_due, loss_cut = FALSE;
  gboolean drained = FALSE;
  RtpccGccLossAction la;
  RtpccGccSignal signal;
  gdouble before = gcc_rate (g), R;

  gcc_update_rtt (g, fb);
  g->have_packet_feedback = TRUE;
  if (g->restart) {
    /* Feedback is back after a stop: a start-up again (2 × per second
     * from half the rate before the stop until the first over-use, capped
     * by what gets through), under the no-feedback cap's slow start up to
     * that half. What the path was before the stop — its congestion
     * point, the queue the delay filter tracked — says nothing now, and
     * the packets sent into the outage were lost to it, not to
     * congestion: the loss window starts afresh. */
    g->restart = FALSE;
    g->aimd.startup = TRUE;
    g->aimd.have_cp = FALSE;
    g->aimd.ramp = FALSE;
    g->aimd.recover_to = 0;
    g->aimd.state = RTPCC_GCC_RC_INCREASE;
    /* growth counts from now, not from the last update before the stop */
    g->aimd.last_update = RTPCC_TIME_NONE;
    g->last_rc = RTPCC_TIME_NONE;
    g->loss.epoch = now;
    g->loss.n_total = g->loss.n_lost = 0;
    g->loss.first_send = RTPCC_TIME_NONE;
    g->loss.limiting = FALSE;
    gcc_reset_delay_path (g);
    g->last_arrival = RTPCC_TIME_NONE;
    g->overuse_latched = FALSE;
    g->freeze_until = RTPCC_TIME_NONE;
  }
  if (g->rr_only) {
    /* per-packet feedback after all: the delay-based estimate takes over
     * from where the loss-based one got to */
    g->rr_only = FALSE;
    g->aimd.rate = g->loss.rate;
    g->loss.limiting = FALSE;
    /* an RR that merely arrived before the first per-packet feedback must
     * not cost the start-up phase (seen with stock rtpbin receivers) */
    g->aimd.startup = g->n_decreases == 0 && g->n_loss_decreases == 0
        && g->n_drains == 0;
  }

  for (guint i = 0; i < fb->n_reports; i++) {
    const RtpccPacketReport *r = &fb->reports[i];
    RtpccGccDelta d;

    if (rtpcc_gcc_prober_account (&g->probe, r))
      probe_all_reported = TRUE;
    /* FEC and probe packets are expendable: their loss says little about
     * what the media suffers, and a failed probe must not cut the rate */
    if (!r->is_fec) {
      rtpcc_gcc_loss_add (&g->loss, r->send_time, r->received);
      rtpcc_competitor_add (&g->competitor, now, r, gcc_rtt (g));
    }
    if (!r->received || r->arrival == RTPCC_TIME_NONE)
      continue;
    /* but every byte that crossed the link counts for the receive rate and
     * every packet for the delay: they share the queue */
    rtpcc_rate_window_push (&g->recv, r->arrival, r->size);
    if (g->last_arrival != RTPCC_TIME_NONE
        && r->arrival - g->last_arrival > STREAM_TIMEOUT)
      gcc_reset_delay_path (g);
    if (g->last_arrival == RTPCC_TIME_NONE || r->arrival > g->last_arrival)
      g->last_arrival = r->arrival;
    rtpcc_gcc_free_path_track (&g->free_path, now, r,
        fb->arrival_resolution, cc->target.pacing_rate);
    rtpcc_gcc_standing_add (&g->standing, r->send_time, r->arrival);
    if (rtpcc_gcc_grouper_add (&g->grouper, r->send_time, r->arrival,
            r->size, &d))
      gcc_process_delta (g, now, &d);
  }

  R = rtpcc_rate_window_rate (&g->recv, RTPCC_TIME_NONE, RATE_MIN_SPAN);
  g->received_rate = R;
  signal = g->overuse_latched ? RTPCC_GCC_OVERUSE : g->detector.signal;

  if (signal == RTPCC_GCC_OVERUSE)
    rtpcc_gcc_prober_overuse (&g->probe);

  /* the rate controller runs once per control interval, and at once when
   * an over-use may be acted on */
  rc_due = g->last_rc == RTPCC_TIME_NONE || now - g->last_rc >= CONTROL_INTERVAL
      || (signal == RTPCC_GCC_OVERUSE && rtpcc_gcc_aimd_may_decrease (&g->aimd,
              now, CLAMP (gcc_rtt (g), RTPCC_MSEC (10), RTPCC_MSEC (200)), R));
  if (rc_due) {
    gdouble used = rtpcc_gcc_app_limit_used (&g->allowance, &g->sent, now,
        APP_LIMIT_WINDOW);

    g->app_limited = g->app_limit_ratio > 0 && used >= 0
        && used < g->app_limit_ratio;
    g->aimd.app_limited = g->app_limited;
    /* A free path (no packet queued for free_time): capacity grew, or
     * others left. Every flow through the FIFO sees it at once, so all of
     * them grow multiplicatively from where they are and keep their
     * ratio; the old congestion point says nothing any more. */
    g->aimd.free = rtpcc_gcc_free_path_update (&g->free_path, now);
    /* ... unless we sent too little to fill it: then an empty queue was
     * to be expected, and the congestion point still holds */
    if (g->app_limited)
      g->aimd.free = FALSE;
    {
      gdouble hi;

      /* docs/gcc.md (c''): an empty queue while less than the congestion
       * point gets through is what a token bucket shows any flow under
       * its rate, not a sign that capacity grew */
      if (g->aimd.free && g->free_above_point
          && rtpcc_gcc_aimd_get_band (&g->aimd, NULL, &hi) && R <= hi)
        g->aimd.free = FALSE;
    }
    if (g->aimd.free && g->aimd.state == RTPCC_GCC_RC_INCREASE
        && !g->aimd.startup)
      g->aimd.have_cp = FALSE;
    g->competing = rtpcc_competitor_update (&g->competitor, now);
    /* docs/gcc.md (h): not a probe's queue (on purpose), nor a loss-based
     * flow's (it does not drain for us) */
    g->aimd.queue_standing = rtpcc_gcc_standing_above (&g->standing,
        g->queue_hold) && g->probe.state == RTPCC_GCC_PROBE_IDLE
        && !g->competitor.active;
    rtpcc_gcc_aimd_update (&g->aimd, now, signal, R, gcc_rtt (g));
    if (g->aimd.last_was_queue_held)
      g->n_queue_holds++;
    if (g->aimd.free && g->aimd.last_was_ramp)
      g->n_free_steps++;
    if (g->aimd.last_decreased && g->cut_drain && !g->competitor.active) {
      /* docs/gcc.md (g): a cut that lowers the estimate goes deep enough
       * to drain the queue found, not only to stop its growth (a due cut
       * that does not lower it leaves the last one's drain to act); a
       * loss-based flow's queue does not drain for us */
      gdouble d = rtpcc_gcc_standing_cut (&g->standing, R);

      if (d >= 0 && d < g->aimd.rate) {
        g->aimd.rate = MAX (d, g->aimd.min_rate);
        g->n_cut_drains++;
      }
    }
    if (g->aimd.last_decreased)
      g->n_decreases++;
    else if (signal == RTPCC_GCC_NORMAL
        && g->probe.state == RTPCC_GCC_PROBE_IDLE
        && !g->competitor.active) {
      /* only what the trend does not see (an over-use cuts anyway, an
       * under-use is a queue draining); not a probe's packets, which queue
       * on purpose, nor a loss-based flow's queue, which does not drain
       * for us */
      gdouble d = rtpcc_gcc_standing_drain (&g->standing, now, R);

      if (d >= 0 && rtpcc_gcc_aimd_drain (&g->aimd, now, d)) {
        g->n_drains++;
        drained = TRUE;
        /* the drain's falling delay is ours, as an over-use cut's is: the
         * threshold must not learn from it */
        if (g->freeze_until == RTPCC_TIME_NONE)
          g->freeze_until = now + THRESHOLD_FREEZE;
      }
    }
    if (g->aimd.last_was_app_limited)
      g->n_app_limited++;
    g->last_rc = now;
    g->overuse_latched = FALSE;
  }

  la = rtpcc_gcc_loss_evaluate (&g->loss, now, gcc_delay_rate (g));
  if (la == RTPCC_GCC_LOSS_DECREASE) {
    g->n_loss_decreases++;
    g->aimd.startup = FALSE;
    loss_cut = TRUE;
  }

  if (loss_cut)
    g->reason = "loss";
  else if (drained)
    g->reason = "standing-queue";
  else if (g->aimd.last_was_queue_held)
    g->reason = "queue-hold";
  else if (g->probe.state == RTPCC_GCC_PROBE_SENDING)
    g->reason = "probe";
  else if (g->competing && gcc_delay_rate (g) > g->aimd.rate)
    g->reason = "competitor";   /* the TCP equation's rate applies */
  else
    g->reason = rtpcc_gcc_signal_name (signal);

  rtpcc_gcc_prober_note_rate (&g->probe, now, before, gcc_rate (g));
  gcc_probe_evaluate (g, now, probe_all_reported);
  gcc_probe_maybe_start (g, now);
  gcc_publish (g, now);
}

static void
gcc_on_receiver_report (RtpccController * cc, RtpccTime now,
    const RtpccReceiverReport * rr)
{
  Gcc *g = (Gcc *) cc;
  gdouble before = gcc_rate (g);

  if (rr->rtt != RTPCC_TIME_NONE && rr->rtt > 0 && g->srtt == RTPCC_TIME_NONE)
    g->srtt = rr->rtt;
  /* draft §7: without per-packet feedback only the loss-based controller
   * runs, on the RR's fraction lost (one report interval >= the control
   * interval); the delay-based one is off, so As is bounded by the
   * configured maximum instead of by A */
  if (g->have_packet_feedback)
    return;
  if (!g->rr_only) {
    g->rr_only = TRUE;
    g->aimd.startup = FALSE;
    g->loss.rate = before;
    g->aimd.rate = g->aimd.max_rate;
  }
  g->loss.limiting = TRUE;
  if (rtpcc_gcc_loss_apply (&g->loss, now, rr->fraction_lost / 256.0,
          g->aimd.max_rate) == RTPCC_GCC_LOSS_DECREASE) {
    g->n_loss_decreases++;
    g->reason = "loss";
  } else {
    g->reason = "normal";
  }
  g->loss.limiting = TRUE;
  rtpcc_gcc_prober_note_rate (&g->probe, now, before, gcc_rate (g));
  gcc_publish (g, now);
}

static void
gcc_on_tick (RtpccController * cc, RtpccTime now)
{
  Gcc *g = (Gcc *) cc;

  if (g->probe.state == RTPCC_GCC_PROBE_SENDING && now >= g->probe.end) {
    /* stop asking for probe bytes; wait for their feedback */
    if (rtpcc_gcc_prober_stop (&g->probe, now, gcc_rtt (g)) ==
        RTPCC_GCC_PROBE_RUNNING)
      cc->next_tick = g->probe.deadline;
    else
      cc->next_tick = RTPCC_TIME_NONE;
    g->reason = rtpcc_gcc_signal_name (g->detector.signal);
    gcc_publish (g, now);
    return;
  }
  if (g->probe.state == RTPCC_GCC_PROBE_WAITING && now >= g->probe.deadline) {
    gcc_probe_evaluate (g, now, TRUE);
    gcc_publish (g, now);
  }
}

/* Feedback stopped (nofeedback.h): the published target is capped at
 * @rate, halved per interval. As after a TCP retransmission timeout
 * (RFC 5681 §3.1: ssthresh = half the flight, held on further timeouts),
 * the estimate becomes half the rate before the stop, once: when feedback
 * returns, the cap climbs back to it at 2 × per RTT (slow start) and the
 * restart (gcc_on_feedback) goes on from there as a start-up. */
static void
gcc_on_no_feedback (RtpccController * cc, RtpccTime now, guint64 rate)
{
  Gcc *g = (Gcc *) cc;

  if (!g->restart) {
    gdouble half = gcc_rate (g) / 2;

    g->aimd.rate = CLAMP (half, g->aimd.min_rate, g->aimd.max_rate);
    g->loss.rate = g->aimd.rate;
    g->restart = TRUE;
  }
  g->reason = "no-feedback";
  gcc_publish (g, now);
}

static const gchar *const estimator_names[] = { "trendline", "kalman", NULL };
static const gchar *const queue_test_names[] = { "all", "size", NULL };
static const gchar *const burst_detect_names[] = { "busy", "size", NULL };

/* docs/gcc.md describes each */
static const RtpccParamSpec param_specs[] = {
  RTPCC_PARAM_CHOICE ("estimator", Gcc, estimator, estimator_names),
  RTPCC_PARAM_CHOICE ("queue-test", Gcc, free_path.by_size,
      queue_test_names),
  RTPCC_PARAM_CHOICE ("burst-detect", Gcc, burst.by_size, burst_detect_names),
  RTPCC_PARAM_BOOL ("probing", Gcc, probe.enabled),
  RTPCC_PARAM_BOOL ("burst-guard", Gcc, burst.guard),
  RTPCC_PARAM_BOOL ("periodic-probing", Gcc, probe.periodic),
  RTPCC_PARAM_BOOL ("capacity-probing", Gcc, probe.capacity),
  RTPCC_PARAM_BOOL ("recovery-probes", Gcc, probe.recovery),
  RTPCC_PARAM_BOOL ("competitive", Gcc, competitor.enabled),
  RTPCC_PARAM_BOOL ("cut-drain", Gcc, cut_drain),
  RTPCC_PARAM_BOOL ("free-above-point", Gcc, free_above_point),
  RTPCC_PARAM_TIME ("burst-time", Gcc, burst_time, 0, 100, RTPCC_PARAM_USEC),
  RTPCC_PARAM_DOUBLE ("free-gain", Gcc, aimd.free_gain, 1.0, 4.0, 0),
  RTPCC_PARAM_DOUBLE ("app-limit", Gcc, app_limit_ratio, 0.0, 1.0, 0),
  RTPCC_PARAM_TIME ("free-time", Gcc, free_path.free_time, 0, 60000, 0),
  RTPCC_PARAM_TIME ("standing-queue", Gcc, standing.target, 0, 10000, 0),
  RTPCC_PARAM_TIME ("queue-hold", Gcc, queue_hold, 0, 10000, 0),
  RTPCC_PARAM_DOUBLE ("capacity-jump", Gcc, probe.capacity_jump, 0.0, 1.0,
      RTPCC_PARAM_MIN_OPEN),
  RTPCC_PARAM_DOUBLE ("beta", Gcc, beta, 0.5, 1.0, RTPCC_PARAM_MAX_OPEN),
  RTPCC_PARAM_DOUBLE ("startup-gain", Gcc, startup_gain, 1.0, 8.0, 0),
  RTPCC_PARAM_DOUBLE ("recovery-frac", Gcc, aimd.recovery_frac, 0.0, 1.0,
      RTPCC_PARAM_MAX_OPEN),
  RTPCC_PARAM_DOUBLE ("recovery-gain", Gcc, aimd.recovery_gain, 1.0, 8.0, 0),
  RTPCC_PARAM_DOUBLE ("ramp-gain", Gcc, aimd.ramp_gain, 1.0, 8.0, 0),
  RTPCC_PARAM_DOUBLE ("ramp-rise", Gcc, aimd.ramp_rise, 1.0, 4.0, 0),
  RTPCC_PARAM_DOUBLE ("pacing-factor", Gcc, pacing_factor, 1.0, 5.0, 0),
  RTPCC_PARAM_TIME ("rate-window", Gcc, recv.window, 100, 5000, 0),
  RTPCC_PARAM_UINT ("trendline-window", Gcc, trendline_window, 2,
      RTPCC_GCC_TRENDLINE_MAX_WINDOW),
  RTPCC_PARAM_TIME ("probe-duration", Gcc, probe.duration, 10, 2000, 0),
};

static gboolean
gcc_set_param (RtpccController * cc, const gchar * key, const gchar * value)
{
  Gcc *g = (Gcc *) cc;
  const RtpccParamSpec *spec = rtpcc_params_set (param_specs,
      G_N_ELEMENTS (param_specs), g, key, value);

  if (!spec)
    return FALSE;
  switch (spec->offset) {
    case G_STRUCT_OFFSET (Gcc, estimator):
      /* the two filters' outputs are not comparable: start the delay path
       * again rather than mixing them */
      gcc_reset_delay_path (g);
      break;
    case G_STRUCT_OFFSET (Gcc, burst_time):
      if (g->burst_time == 0)
        g->burst_time = 1;      /* 0 would mean "default" in the grouper */
      g->grouper.burst_time = g->burst_time;
      break;
    case G_STRUCT_OFFSET (Gcc, beta):
      g->aimd.beta = g->beta;
      break;
    case G_STRUCT_OFFSET (Gcc, startup_gain):
      g->aimd.startup_gain = g->startup_gain;
      break;
    case G_STRUCT_OFFSET (Gcc, aimd.recovery_frac):
      /* 0 turns fast recovery off */
      if (g->aimd.recovery_frac == 0.0)
        g->aimd.recover_to = 0;
      break;
    case G_STRUCT_OFFSET (Gcc, aimd.ramp_gain):
      /* 1 turns the post-start-up ramp off */
      if (g->aimd.ramp_gain <= 1.0)
        g->aimd.ramp = FALSE;
      break;
    case G_STRUCT_OFFSET (Gcc, pacing_factor):
      gcc_publish (g, RTPCC_TIME_NONE);
      break;
    case G_STRUCT_OFFSET (Gcc, trendline_window):
      rtpcc_gcc_trendline_init (&g->trendline, g->trendline_window);
      break;
    default:
      break;
  }
  return TRUE;
}

gboolean
rtpcc_gcc_get_info (RtpccController * cc, RtpccGccInfo * info)
{
  Gcc *g = (Gcc *) cc;

  if (!cc || cc->ops != &rtpcc_cc_gcc_ops)
    return FALSE;
  memset (info, 0, sizeof (*info));
  info->estimator = g->estimator;
  info->delay_rate = g->aimd.rate;
  info->loss_rate = g->loss.rate;
  info->received_rate = g->received_rate;
  info->send_rate = rtpcc_gcc_send_log_rate (&g->sent, g->last_send_time,
      SEND_WINDOW);
  info->n_self_bursts = g->burst.n_self_bursts;
  info->n_key_frames = g->burst.n_key_frames;
  info->free_path = g->free_path.free_since != RTPCC_TIME_NONE;
  info->app_limited = g->app_limited;
  info->n_app_limited = g->n_app_limited;
  info->signal = g->detector.signal;
  info->rc_state = g->aimd.state;
  info->startup = g->aimd.startup;
  info->estimate = g->estimate;
  info->modified = g->modified;
  info->threshold = g->detector.threshold;
  info->accumulated = g->accumulated;
  info->loss_fraction = g->loss.last_fraction;
  info->n_groups = g->grouper.n_groups;
  info->n_overuse = g->n_overuse;
  info->n_decreases = g->n_decreases;
  info->n_drains = g->n_drains;
  info->n_queue_holds = g->n_queue_holds;
  info->n_cut_drains = g->n_cut_drains;
  info->n_free_steps = g->n_free_steps;
  info->n_loss_decreases = g->n_loss_decreases;
  info->competing = g->competing;
  info->n_competitor_entries = g->competitor.n_entries;
  info->probe_state = g->probe.state;
  info->probe_rate = g->probe.rate;
  info->n_probes = g->probe.n_probes;
  info->n_probe_success = g->probe.n_success;
  info->n_probe_fail = g->probe.n_fail;
  info->last_probe_result = g->probe.last_result;
  info->srtt = g->srtt;
  return TRUE;
}

const RtpccControllerOps rtpcc_cc_gcc_ops = {
  .name = "gcc",
  .description = "Google Congestion Control (draft-ietf-rmcat-gcc-02): "
      "delay-gradient over-use detection with AIMD, loss-based bound, "
      "FEC-based probing",
  .instance_size = sizeof (Gcc),
  .init = gcc_init,
  .finalize = gcc_finalize,
  .on_packet_sent = gcc_on_packet_sent,
  .on_feedback = gcc_on_feedback,
  .on_receiver_report = gcc_on_receiver_report,
  .on_tick = gcc_on_tick,
  .set_param = gcc_set_param,
  .on_no_feedback = gcc_on_no_feedback,
};

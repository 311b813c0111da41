/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/aimd.h>

#include <math.h>
#include <string.h>

/* multiplicative increase per second (draft §5.5) */
#define ETA                   1.08
/* A < 1.5 R (draft §5.5), plus libwebrtc's allowance for the received
 * rate's lag at low rates, bit/s */
#define RECV_CAP              1.5
#define RECV_CAP_SLACK        10000.0
/* the congestion point: EMA weight of its mean and variance, and the
 * variance's clamp, normalised kbit/s (libwebrtc link_capacity_estimator) */
#define CP_SMOOTHING          0.95
#define CP_VAR_MIN            0.4
#define CP_VAR_MAX            2.5

void
rtpcc_gcc_aimd_init (RtpccGccAimd * a, gdouble start, gdouble min_rate,
    gdouble max_rate, gdouble beta)
{
  memset (a, 0, sizeof (*a));
  a->min_rate = min_rate;
  a->max_rate = max_rate;
  a->rate = CLAMP (start, min_rate, max_rate);
  a->beta = beta > 0 ? beta : RTPCC_GCC_BETA;
  a->startup_gain = RTPCC_GCC_STARTUP_GAIN;
  a->startup = TRUE;
  a->state = RTPCC_GCC_RC_INCREASE;     /* the draft starts in increase */
  a->last_update = RTPCC_TIME_NONE;
  a->last_decrease = RTPCC_TIME_NONE;
}

static gdouble
cp_sigma (const RtpccGccAimd * a)
{
  /* kbit/s: the variance is kept normalised by the mean */
  return sqrt (a->cp_var * MAX (a->cp_mean / 1000.0, 1.0)) * 1000.0;
}

gboolean
rtpcc_gcc_aimd_get_band (const RtpccGccAimd * a, gdouble * lo, gdouble * hi)
{
  gdouble s;

  if (!a->have_cp)
    return FALSE;
  s = cp_sigma (a);
  if (lo)
    *lo = a->cp_mean - 3.0 * s;
  if (hi)
    *hi = a->cp_mean + 3.0 * s;
  return TRUE;
}

/* Adds a congestion point; FALSE if R fell far below the known one (the
 * link shrank or others joined) and a new point starts there. */
static gboolean
cp_add (RtpccGccAimd * a, gdouble R)
{
  gdouble lo, err, norm;

  /* far below the old point: the link changed (or others joined); start
   * afresh rather than averaging two different situations */
  gboolean dropped = rtpcc_gcc_aimd_get_band (a, &lo, NULL) && R < lo;

  if (dropped || !a->have_cp) {
    a->cp_mean = R;
    a->cp_var = CP_VAR_MIN;
    a->have_cp = TRUE;
    return !dropped;
  }
  a->cp_mean = CP_SMOOTHING * a->cp_mean + (1.0 - CP_SMOOTHING) * R;
  norm = MAX (a->cp_mean / 1000.0, 1.0);
  err = (a->cp_mean - R) / 1000.0;
  a->cp_var = CP_SMOOTHING * a->cp_var + (1.0 - CP_SMOOTHING) * err * err /
      norm;
  a->cp_var = CLAMP (a->cp_var, CP_VAR_MIN, CP_VAR_MAX);
  return TRUE;
}

gboolean
rtpcc_gcc_aimd_may_decrease (const RtpccGccAimd * a, RtpccTime now,
    RtpccTime interval, gdouble R)
{
  if (a->last_decrease == RTPCC_TIME_NONE)
    return TRUE;
  if (now - a->last_decrease >= interval)
    return TRUE;
  /* the link collapsed: do not wait for the previous cut to show */
  return R >= 0 && R < 0.5 * a->rate;
}

gboolean
rtpcc_gcc_aimd_drain (RtpccGccAimd * a, RtpccTime now, gdouble rate)
{
  rate = CLAMP (rate, a->min_rate, a->max_rate);
  if (rate >= a->rate)
    return FALSE;
  a->rate = rate;
  a->state = RTPCC_GCC_RC_HOLD;
  /* the queue outlived the last point: it no longer tells the link */
  a->recover_to = 0;
  a->startup = FALSE;
  a->last_decrease = now;
  a->last_decreased = TRUE;
  return TRUE;
}

static gdouble
additive_increase (const RtpccGccAimd * a, gdouble dt_ms, RtpccTime rtt)
{
  gdouble response_ms = 100.0 + RTPCC_TIME_AS_MSEC (rtt);
  gdouble alpha = 0.5 * MIN (dt_ms / response_ms, 1.0);
  gdouble bits_per_frame = a->rate / 30.0;
  gdouble packets_per_frame = MAX (ceil (bits_per_frame / (1200 * 8)), 1.0);
  gdouble avg_packet_bits = bits_per_frame / packets_per_frame;

  return MAX (1000.0, alpha * avg_packet_bits);
}

gdouble
rtpcc_gcc_aimd_update (RtpccGccAimd * a, RtpccTime now, RtpccGccSignal signal,
    gdouble R, RtpccTime rtt)
{
  gdouble dt_ms = a->last_update == RTPCC_TIME_NONE ? 0.0 :
      RTPCC_TIME_AS_MSEC (now - a->last_update);
  gdouble rate = a->rate;
  RtpccTime reduce_interval;

  if (rtt == RTPCC_TIME_NONE || rtt <= 0)
    rtt = RTPCC_GCC_DEFAULT_RTT;
  dt_ms = MAX (dt_ms, 0.0);
  a->last_update = now;
  a->last_was_additive = a->last_was_capped = a->last_decreased = FALSE;
  a->last_was_app_limited = a->last_was_queue_held = FALSE;
  a->last_was_recovery = a->last_was_ramp = FALSE;

  /* draft §5.5 state table */
  switch (signal) {
    case RTPCC_GCC_OVERUSE:
      a->state = RTPCC_GCC_RC_DECREASE;
      break;
    case RTPCC_GCC_NORMAL:
      if (a->state == RTPCC_GCC_RC_HOLD)
        a->state = RTPCC_GCC_RC_INCREASE;
      else if (a->state == RTPCC_GCC_RC_DECREASE)
        a->state = RTPCC_GCC_RC_HOLD;
      break;
    case RTPCC_GCC_UNDERUSE:
      a->state = RTPCC_GCC_RC_HOLD;
      break;
  }

  switch (a->state) {
    case RTPCC_GCC_RC_HOLD:
      break;
    case RTPCC_GCC_RC_INCREASE:{
      gdouble lo G_GNUC_UNUSED, hi, increased;
      gboolean near = FALSE;

      /* back in increase: the next over-use is a new episode */
      a->in_episode = FALSE;

      /* "Near" the congestion point is anywhere up to its band's top, as
       * in libwebrtc's AimdRateControl, not just inside ±3σ as the draft
       * says: after each cut a flow sits ~15 % below its point, and with
       * the draft both flows of a shared link would recover by 8 %/s —
       * multiplicative increase keeps their ratio (MIMD never converges,
       * Chiu–Jain) and the first flow keeps its advantage over the second
       * for good. Additive increase adds the same to both: the gap closes
       * by beta at every shared cut. A received rate above the band
       * (capacity grew, others left) still means "far": back to 8 %/s;
       * one below it at a cut restarts the point (cp_add). */
      if (rtpcc_gcc_aimd_get_band (a, &lo, &hi)) {
        if (R > hi)
          a->have_cp = FALSE;
        else
          near = TRUE;
      }
      if (R < 0 && !a->startup)
        break;                  /* nothing measured: do not run blind */
      if (a->app_limited && !a->startup) {
        /* The sender does not use the estimate (an encoder lagging its
         * target, content that needs less): a normal delay signal only
         * shows that what was sent fits, and an empty queue is expected
         * whatever the capacity. Growing on it lets the estimate run
         * ahead until the encoder catches up with a rate the path never
         * carried. Start-up is left to the cap on R below: it has to
         * find the link's rate in seconds. */
        a->last_was_app_limited = TRUE;
        break;
      }
      if (a->queue_standing && !a->startup) {
        /* Even the least-delayed packet of the last interval waited more
         * than queue-hold: the link is full and the trend is flat only
         * because the queue stopped growing. Climbing from there refills
         * what the last cut began to drain. Hold until it has drained. */
        a->last_was_queue_held = TRUE;
        a->state = RTPCC_GCC_RC_HOLD;
        break;
      }
      if (a->startup) {
        increased = rate * pow (a->startup_gain, MIN (dt_ms / 1000.0, 1.0));
      } else if (a->free && a->free_gain > 1.0) {
        increased = rate * pow (a->free_gain, MIN (dt_ms / 1000.0, 1.0));
        a->last_was_ramp = TRUE;
      } else if (a->ramp) {
        increased = rate * pow (a->ramp_gain, MIN (dt_ms / 1000.0, 1.0));
        a->last_was_ramp = TRUE;
      } else if (near && rate < a->recover_to) {
        /* back to just under the point quickly: the link was full there
         * a moment ago and the cut's queue has drained (we are in
         * increase: the signal is normal again) */
        increased = MIN (a->recover_to,
            rate * pow (a->recovery_gain, MIN (dt_ms / 1000.0, 1.0)));
        a->last_was_recovery = TRUE;
        if (increased >= a->recover_to)
          a->recover_to = 0;
      } else if (near) {
        increased = rate + additive_increase (a, dt_ms, rtt);
        a->last_was_additive = TRUE;
      } else {
        increased = rate * pow (ETA, MIN (dt_ms / 1000.0, 1.0));
      }
      if (R >= 0) {
        /* A < 1.5 R: never claim much more than gets through; an estimate
         * already above the cap (app-limited) is held, not cut */
        gdouble limit = RECV_CAP * R + RECV_CAP_SLACK;
        if (increased > limit) {
          increased = MAX (rate, limit);
          a->last_was_capped = TRUE;
        }
      }
      rate = increased;
      break;
    }
    case RTPCC_GCC_RC_DECREASE:
      /* the caller decided the timing; libwebrtc waits an RTT between cuts
       * so the previous one can show in the delay */
      reduce_interval = CLAMP (rtt, RTPCC_MSEC (10), RTPCC_MSEC (200));
      if (!rtpcc_gcc_aimd_may_decrease (a, now, reduce_interval, R))
        break;
      {
        gdouble decreased = a->beta * (R >= 0 ? R : rate);
        if (decreased < rate) {
          rate = decreased;
          a->last_decreased = TRUE;
        }
        if (R >= 0) {
          gboolean same_point = cp_add (a, R);  /* not far below */

          if (a->in_episode) {
            /* a further cut of the same over-use episode (the queue kept
             * growing after the first): the episode was judged at its
             * first cut; a point that moved far down cancels recovery */
            if (!same_point)
              a->recover_to = 0;
          } else {
            /* The ramp: entered when start-up ends below the maximum rate
             * (a start-up pinned at max_rate had the link to itself: an
             * incumbent, not a newcomer), kept while every episode comes
             * at an estimate >= ramp_rise × the one at the previous
             * episode. The estimate, not R: the 500 ms received rate
             * lags a ramp by a fifth or more. */
            if (a->startup)
              a->ramp = a->ramp_gain > 1.0 && a->rate < a->max_rate;
            else if (a->ramp && a->rate < a->ramp_rise * a->last_cut_rate)
              a->ramp = FALSE;
            a->last_cut_rate = a->rate;
            /* fast recovery only at a known point: a cut far below it
             * means the link shrank or others joined, and the lower rate
             * is the point to learn (and the share to leave to a
             * newcomer) */
            a->recover_to = same_point && !a->ramp && a->recovery_frac > 0 ?
                a->recovery_frac * a->cp_mean : 0;
          }
          a->in_episode = TRUE;
        }
        a->last_decrease = now;
        a->startup = FALSE;
      }
      break;
  }
  a->rate = CLAMP (rate, a->min_rate, a->max_rate);
  return a->rate;
}

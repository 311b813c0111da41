/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/detector.h>

#include <math.h>
#include <string.h>

/* draft Table 1: del_var_th(0) (ms), K_u and K_d (per ms),
 * overuse_time_th (ms) */
#define THRESHOLD_INIT        12.5
#define K_UP                  0.01
#define K_DOWN                0.00018
#define OVERUSE_TIME_TH       10.0
/* draft §5.4: the threshold stays in [6, 600] ms and does not follow |m|
 * more than 15 ms above it */
#define THRESHOLD_MIN         6.0
#define THRESHOLD_MAX         600.0
#define MAX_ADAPT_OFFSET      15.0
/* the adaptation's time step is capped (libwebrtc, ms) */
#define THRESHOLD_MAX_STEP    100.0

void
rtpcc_gcc_detector_init (RtpccGccDetector * d)
{
  memset (d, 0, sizeof (*d));
  d->threshold = THRESHOLD_INIT;
  d->k_up = K_UP;
  d->k_down = K_DOWN;
  d->overuse_time_th = OVERUSE_TIME_TH;
  d->time_over_using = -1;
  d->last_update = RTPCC_TIME_NONE;
  d->signal = RTPCC_GCC_NORMAL;
  d->adapt = TRUE;
  d->strict_adapt = FALSE;
}

void
rtpcc_gcc_detector_update_threshold (RtpccGccDetector * d, gdouble modified,
    RtpccTime now)
{
  gdouble a = fabs (modified), k, dt;

  if (d->last_update == RTPCC_TIME_NONE)
    d->last_update = now;
  /* a big spike (e.g. a sudden capacity drop) must not drag the threshold
   * up with it: the detector would go blind to the over-use it signals */
  if (a - d->threshold > MAX_ADAPT_OFFSET) {
    d->last_update = now;
    return;
  }
  /* K_u > K_d: rise quickly when a loss-based flow fills the queue (so we
   * are not starved), come down slowly */
  k = a < d->threshold ? d->k_down : d->k_up;
  dt = MIN (RTPCC_TIME_AS_MSEC (now - d->last_update), THRESHOLD_MAX_STEP);
  if (dt < 0)
    dt = 0;
  d->threshold += k * (a - d->threshold) * dt;
  d->threshold = CLAMP (d->threshold, THRESHOLD_MIN, THRESHOLD_MAX);
  d->last_update = now;
}

RtpccGccSignal
rtpcc_gcc_detector_update (RtpccGccDetector * d, gdouble modified,
    gdouble estimate, gdouble send_delta, gdouble accumulated,
    guint num_deltas, gboolean self_burst, RtpccTime now)
{
  gboolean adapt, rising = FALSE;

  d->fired = FALSE;
  if (num_deltas < 2) {
    d->signal = RTPCC_GCC_NORMAL;
    d->prev_estimate = estimate;
    return d->signal;
  }

  if (modified > d->threshold) {
    if (d->time_over_using < 0) {
      /* assume we have been over for half the time since the last sample */
      d->time_over_using = send_delta / 2;
      d->episode_max = accumulated;
    } else {
      d->time_over_using += send_delta;
    }
    /* "still increasing": the filtered estimate (the draft's m(i) >=
     * m(i−1)) and the raw delay, at its highest since the crossing. After
     * a one-off step (a burst) the filter keeps rising for a few samples
     * (the EMA's lag) while the raw delay already drains. */
    rising = estimate >= d->prev_estimate && accumulated >= d->episode_max;
    d->episode_max = MAX (d->episode_max, accumulated);
    d->overuse_counter++;
    if (d->time_over_using >= d->overuse_time_th && d->overuse_counter > 1
        && rising && !self_burst) {
      d->time_over_using = 0;
      d->overuse_counter = 0;
      d->signal = RTPCC_GCC_OVERUSE;
      d->fired = TRUE;
    }
  } else if (modified < -d->threshold) {
    d->time_over_using = -1;
    d->overuse_counter = 0;
    d->signal = RTPCC_GCC_UNDERUSE;
  } else {
    d->time_over_using = -1;
    d->overuse_counter = 0;
    d->signal = RTPCC_GCC_NORMAL;
  }
  d->prev_estimate = estimate;

  /* Strict adaptation: the threshold exists to tolerate a competing
   * loss-based flow that keeps filling the queue (draft §5.4, [Pv13]), so
   * only a growing over-use that is not our own burst raises it. A key
   * frame's ramp, the lag of the trend after it, or a queue draining say
   * nothing about competitors, and with K_d taking ~5 s to undo each rise
   * they would only blunt the detector. Lowering (K_d) always runs. */
  adapt = d->adapt;
  if (d->strict_adapt && fabs (modified) >= d->threshold
      && (modified < 0 || !rising || self_burst))
    adapt = FALSE;
  if (adapt)
    rtpcc_gcc_detector_update_threshold (d, modified, now);
  else
    d->last_update = now;
  return d->signal;
}

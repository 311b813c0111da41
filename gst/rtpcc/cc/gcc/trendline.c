/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/trendline.h>

#include <string.h>

/* EMA weight of the accumulated delay (libwebrtc's smoothing coefficient) */
#define SMOOTHING             0.9
/* slope -> "ms" for the threshold (libwebrtc's threshold gain) */
#define GAIN                  4.0
/* the slope is amplified by the sample count up to this (kMinNumDeltas) */
#define MAX_NUM_DELTAS        60
/* samples counted at most (kDeltaCounterMax) */
#define DELTA_COUNTER_MAX     1000

void
rtpcc_gcc_trendline_init (RtpccGccTrendline * t, guint window)
{
  memset (t, 0, sizeof (*t));
  t->window = CLAMP (window ? window : RTPCC_GCC_TRENDLINE_WINDOW, 2,
      RTPCC_GCC_TRENDLINE_MAX_WINDOW);
  t->smoothing = SMOOTHING;
  t->gain = GAIN;
  t->first_arrival = RTPCC_TIME_NONE;
}

gboolean
rtpcc_gcc_linear_slope (const gdouble * x, const gdouble * y, guint n,
    gdouble * slope)
{
  gdouble sx = 0, sy = 0, xm, ym, num = 0, den = 0;

  if (n < 2)
    return FALSE;
  for (guint i = 0; i < n; i++) {
    sx += x[i];
    sy += y[i];
  }
  xm = sx / n;
  ym = sy / n;
  for (guint i = 0; i < n; i++) {
    num += (x[i] - xm) * (y[i] - ym);
    den += (x[i] - xm) * (x[i] - xm);
  }
  if (den == 0)
    return FALSE;
  *slope = num / den;
  return TRUE;
}

gdouble
rtpcc_gcc_trendline_update (RtpccGccTrendline * t, gdouble arrival_delta,
    gdouble send_delta, RtpccTime arrival)
{
  guint idx;

  t->num_deltas = MIN (t->num_deltas + 1, DELTA_COUNTER_MAX);
  if (t->first_arrival == RTPCC_TIME_NONE)
    t->first_arrival = arrival;
  t->accumulated += arrival_delta - send_delta;
  t->smoothed = t->smoothing * t->smoothed +
      (1.0 - t->smoothing) * t->accumulated;

  idx = (t->head + t->count) % t->window;
  if (t->count == t->window) {
    t->head = (t->head + 1) % t->window;
    idx = (t->head + t->window - 1) % t->window;
  } else {
    t->count++;
  }
  t->x[idx] = RTPCC_TIME_AS_MSEC (arrival - t->first_arrival);
  t->y[idx] = t->smoothed;

  if (t->count == t->window) {
    /* the regression is order-independent: the ring is used as is */
    gdouble s;
    if (rtpcc_gcc_linear_slope (t->x, t->y, t->count, &s))
      t->trend = s;
  }
  /* libwebrtc: the slope is (send rate − capacity) / capacity; scaled up by
   * the number of samples (up to 60) and the gain into "ms" for the
   * threshold, so the detector is less eager while the window is young */
  return MIN (t->num_deltas, MAX_NUM_DELTAS) * t->trend * t->gain;
}

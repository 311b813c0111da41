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

static void
sums_add (RtpccGccTrendline * t, gdouble x, gdouble y, gdouble sign)
{
  gdouble dx = x - t->x0, dy = y - t->y0;

  t->sx += sign * dx;
  t->sy += sign * dy;
  t->sxx += sign * dx * dx;
  t->sxy += sign * dx * dy;
}

/* the sums from the ring, about its newest sample */
static void
sums_rebuild (RtpccGccTrendline * t, guint newest)
{
  t->x0 = t->x[newest];
  t->y0 = t->y[newest];
  t->sx = t->sy = t->sxx = t->sxy = 0;
  for (guint i = 0; i < t->count; i++)
    sums_add (t, t->x[(t->head + i) % t->window],
        t->y[(t->head + i) % t->window], 1.0);
  t->since_rebuild = 0;
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
    /* the oldest leaves the window */
    sums_add (t, t->x[t->head], t->y[t->head], -1.0);
    t->head = (t->head + 1) % t->window;
    idx = (t->head + t->window - 1) % t->window;
  } else {
    t->count++;
  }
  t->x[idx] = RTPCC_TIME_AS_MSEC (arrival - t->first_arrival);
  t->y[idx] = t->smoothed;
  if (t->count == 1 || ++t->since_rebuild >= t->window)
    sums_rebuild (t, idx);
  else
    sums_add (t, t->x[idx], t->y[idx], 1.0);

  if (t->count == t->window) {
    /* least squares: Σ(x − x̄)(y − ȳ) / Σ(x − x̄)², as n·Sxy − Sx·Sy over
     * n·Sxx − Sx²; all x equal (what is left of the denominator is
     * rounding) leaves the trend as it was */
    gdouble n = t->count;
    gdouble den = n * t->sxx - t->sx * t->sx;

    if (den > 1e-9 * n * t->sxx)
      t->trend = (n * t->sxy - t->sx * t->sy) / den;
  }
  /* libwebrtc: the slope is (send rate − capacity) / capacity; scaled up by
   * the number of samples (up to 60) and the gain into "ms" for the
   * threshold, so the detector is less eager while the window is young */
  return MIN (t->num_deltas, MAX_NUM_DELTAS) * t->trend * t->gain;
}

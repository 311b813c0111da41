/* gcc trendline filter (libwebrtc trendline_estimator, the default
 * arrival-time filter): the least-squares slope of the smoothed accumulated
 * delay over the last samples, amplified into the "ms" the over-use
 * detector compares with its threshold.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_TRENDLINE_H__
#define __RTPCC_CC_GCC_TRENDLINE_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* samples in the regression by default (libwebrtc) */
#define RTPCC_GCC_TRENDLINE_WINDOW 20
#define RTPCC_GCC_TRENDLINE_MAX_WINDOW 200

typedef struct
{
  guint window;                 /* samples in the regression, 20 */
  gdouble smoothing;            /* 0.9 */
  gdouble gain;                 /* threshold gain, 4 */
  gdouble accumulated;          /* sum of d(i), ms */
  gdouble smoothed;             /* EMA of accumulated, ms */
  RtpccTime first_arrival;
  gdouble x[RTPCC_GCC_TRENDLINE_MAX_WINDOW];    /* arrival, ms since first */
  gdouble y[RTPCC_GCC_TRENDLINE_MAX_WINDOW];    /* smoothed delay, ms */
  guint head, count;
  /* the regression's sums over the ring, kept as samples come and go (an
   * update is O(1), not two passes over the window), about an origin
   * (x0, y0) in the window so that they stay small; rebuilt from the ring
   * every window updates, so rounding cannot build up */
  gdouble x0, y0, sx, sy, sxx, sxy;
  guint since_rebuild;
  gdouble trend;                /* last slope (ms per ms); 0 until full */
  guint num_deltas;             /* samples seen, capped at 1000 */
} RtpccGccTrendline;

/* @window 0 = RTPCC_GCC_TRENDLINE_WINDOW; clamped to [2, MAX_WINDOW] */
void rtpcc_gcc_trendline_init (RtpccGccTrendline * t, guint window);
/* Adds d(i) = @arrival_delta − @send_delta at @arrival; returns the
 * modified trend min(num_deltas, 60) × slope × gain (ms), the value the
 * detector compares with its threshold. */
gdouble rtpcc_gcc_trendline_update (RtpccGccTrendline * t,
    gdouble arrival_delta, gdouble send_delta, RtpccTime arrival);
/* Least-squares slope of @n points; FALSE when all x are equal. */
gboolean rtpcc_gcc_linear_slope (const gdouble * x, const gdouble * y,
    guint n, gdouble * slope);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_TRENDLINE_H__ */

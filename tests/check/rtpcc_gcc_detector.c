/* Unit tests for gcc's over-use detector (gst/rtpcc/cc/gcc/detector.c):
 * the adaptive threshold computed by hand from draft-ietf-rmcat-gcc-02
 * §5.4, the over-use state machine, strict adaptation, and the detector
 * behind the trendline on crafted delay series.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/detector.h>
#include <rtpcc/cc/gcc/trendline.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)

GST_START_TEST (test_threshold_math)
{
  RtpccGccDetector d;
  gdouble th;

  rtpcc_gcc_detector_init (&d);
  fail_unless (d.threshold == 12.5);
  /* the first call only starts the clock */
  rtpcc_gcc_detector_update_threshold (&d, 20.0, MS (1000));
  fail_unless (d.threshold == 12.5);
  /* |m| = 20 >= 12.5: K_u; 12.5 + 0.01·(20 − 12.5)·10 = 13.25 */
  rtpcc_gcc_detector_update_threshold (&d, 20.0, MS (1010));
  fail_unless (fabs (d.threshold - 13.25) < 1e-12, "%.12f", d.threshold);
  /* |m| = 5 < 13.25: K_d; 13.25 + 0.00018·(5 − 13.25)·10 = 13.23515 */
  rtpcc_gcc_detector_update_threshold (&d, -5.0, MS (1020));
  fail_unless (fabs (d.threshold - 13.23515) < 1e-12, "%.12f", d.threshold);
  /* |m| − th = 40 − 13.235 > 15: no update (but the clock moves) */
  rtpcc_gcc_detector_update_threshold (&d, 40.0, MS (1030));
  fail_unless (fabs (d.threshold - 13.23515) < 1e-12);
  /* the time step is capped at 100 ms: 500 ms later with |m| = 13:
   * 13.23515 + 0.00018·(13 − 13.23515)·100 = 13.230917300 */
  rtpcc_gcc_detector_update_threshold (&d, 13.0, MS (1530));
  th = 13.23515 + 0.00018 * (13.0 - 13.23515) * 100.0;
  fail_unless (fabs (d.threshold - th) < 1e-12, "%.12f", d.threshold);

  /* clamps: 6 below, 600 above */
  for (guint i = 0; i < 1000; i++)
    rtpcc_gcc_detector_update_threshold (&d, 0.0, MS (1600 + 100 * i));
  fail_unless (d.threshold == 6.0, "%g", d.threshold);
  for (guint i = 0; i < 100000; i++)
    rtpcc_gcc_detector_update_threshold (&d, d.threshold + 14.0,
        MS (200000 + 100 * i));
  fail_unless (d.threshold == 600.0, "%g", d.threshold);
}

GST_END_TEST;

GST_START_TEST (test_detector_overuse_sustained)
{
  RtpccGccDetector d;
  RtpccGccSignal s;
  RtpccTime t = MS (100);

  /* the state machine alone (threshold fixed at 12.5): samples 5 ms apart
   * above the threshold, estimate and raw delay rising. Time over:
   * 2.5 (half the first interval), 7.5, 12.5 ms: over-use on the third. */
  rtpcc_gcc_detector_init (&d);
  d.adapt = FALSE;
  s = rtpcc_gcc_detector_update (&d, 0.0, 0.0, 5.0, 0.0, 100, FALSE, t);
  fail_unless (s == RTPCC_GCC_NORMAL);
  s = rtpcc_gcc_detector_update (&d, 20.0, 0.01, 5.0, 1.0, 100, FALSE,
      t += MS (5));
  fail_unless (s == RTPCC_GCC_NORMAL && d.time_over_using == 2.5);
  s = rtpcc_gcc_detector_update (&d, 21.0, 0.02, 5.0, 2.0, 100, FALSE,
      t += MS (5));
  fail_unless (s == RTPCC_GCC_NORMAL && d.time_over_using == 7.5);
  s = rtpcc_gcc_detector_update (&d, 22.0, 0.03, 5.0, 3.0, 100, FALSE,
      t += MS (5));
  fail_unless (s == RTPCC_GCC_OVERUSE && d.fired);
  fail_unless (d.time_over_using == 0.0 && d.overuse_counter == 0);
  /* the hypothesis holds while above the threshold, without re-firing */
  s = rtpcc_gcc_detector_update (&d, 22.5, 0.035, 5.0, 3.5, 100, FALSE,
      t += MS (5));
  fail_unless (s == RTPCC_GCC_OVERUSE && !d.fired);
  /* back under: normal at once */
  s = rtpcc_gcc_detector_update (&d, 5.0, 0.01, 5.0, 3.0, 100, FALSE,
      t += MS (5));
  fail_unless (s == RTPCC_GCC_NORMAL && d.time_over_using < 0);

  /* 9.5 ms of over-use is not enough: 1 ms samples (0.5 + 9 × 1) */
  rtpcc_gcc_detector_init (&d);
  d.adapt = FALSE;
  for (guint i = 0; i < 10; i++) {
    s = rtpcc_gcc_detector_update (&d, 20.0, 0.01 * (i + 1), 1.0, i + 1.0,
        100, FALSE, t += MS (1));
    fail_unless (s == RTPCC_GCC_NORMAL, "sample %u, %g ms", i,
        d.time_over_using);
  }
  fail_unless (d.time_over_using == 9.5);
  s = rtpcc_gcc_detector_update (&d, 20.0, 0.2, 1.0, 20.0, 100, FALSE,
      t += MS (1));
  fail_unless (s == RTPCC_GCC_OVERUSE);

  /* sustained but the estimate is falling (m(i) < m(i−1)): no over-use */
  rtpcc_gcc_detector_init (&d);
  d.adapt = FALSE;
  for (guint i = 0; i < 10; i++) {
    s = rtpcc_gcc_detector_update (&d, 30.0 - i, 0.1 - 0.001 * i, 5.0,
        i + 1.0, 100, FALSE, t += MS (5));
    fail_unless (s == RTPCC_GCC_NORMAL);
  }

  /* sustained and the filtered estimate still rising, but the raw delay has
   * not grown since the crossing (a burst draining): no over-use */
  rtpcc_gcc_detector_init (&d);
  d.adapt = FALSE;
  for (guint i = 0; i < 10; i++) {
    s = rtpcc_gcc_detector_update (&d, 20.0 + i, 0.1 + 0.01 * i, 5.0,
        100.0 - 10.0 * i, 100, FALSE, t += MS (5));
    fail_unless (s == RTPCC_GCC_NORMAL);
  }

  /* fewer than 2 deltas: always normal */
  rtpcc_gcc_detector_init (&d);
  s = rtpcc_gcc_detector_update (&d, 100.0, 1.0, 50.0, 50.0, 1, FALSE, t);
  fail_unless (s == RTPCC_GCC_NORMAL);

  /* under-use: below −threshold, at once */
  rtpcc_gcc_detector_init (&d);
  d.adapt = FALSE;
  s = rtpcc_gcc_detector_update (&d, -13.0, -0.05, 5.0, -1.0, 100, FALSE, t);
  fail_unless (s == RTPCC_GCC_UNDERUSE);
  s = rtpcc_gcc_detector_update (&d, -12.0, -0.04, 5.0, -2.0, 100, FALSE,
      t + MS (5));
  fail_unless (s == RTPCC_GCC_NORMAL);

  /* samples sent during our own burst may not fire, however sustained;
   * the first one after the burst may */
  rtpcc_gcc_detector_init (&d);
  d.adapt = FALSE;
  for (guint i = 0; i < 10; i++) {
    s = rtpcc_gcc_detector_update (&d, 20.0 + i, 0.1 + 0.01 * i, 5.0,
        i + 1.0, 100, TRUE, t += MS (5));
    fail_unless (s == RTPCC_GCC_NORMAL);
  }
  s = rtpcc_gcc_detector_update (&d, 30.0, 0.2, 5.0, 11.0, 100, FALSE,
      t += MS (5));
  fail_unless (s == RTPCC_GCC_OVERUSE);
}

GST_END_TEST;

GST_START_TEST (test_detector_threshold_gating)
{
  RtpccGccDetector d;
  RtpccTime t = MS (1000);
  gdouble th;

  /* the draft: every sample adapts, whatever its origin. First call starts
   * the clock; then |m| = 20 at +10 ms: 12.5 + 0.01·7.5·10 = 13.25 */
  rtpcc_gcc_detector_init (&d);
  rtpcc_gcc_detector_update (&d, 0.0, 0.0, 5.0, 0.0, 100, FALSE, t);
  rtpcc_gcc_detector_update (&d, -20.0, 0.0, 5.0, 0.0, 100, FALSE,
      t += MS (10));
  fail_unless (fabs (d.threshold - 13.25) < 1e-12, "%.12f", d.threshold);
  /* the draft adapts on self-burst samples too: 13.25 + 0.01·6.75·10 */
  rtpcc_gcc_detector_update (&d, 20.0, 0.0, 5.0, 0.0, 100, TRUE,
      t += MS (10));
  th = 13.25 + 0.1 * (20.0 - 13.25);
  fail_unless (fabs (d.threshold - th) < 1e-12, "%.12f", d.threshold);

  /* strict: only a growing over-use raises it */
  rtpcc_gcc_detector_init (&d);
  d.strict_adapt = TRUE;
  rtpcc_gcc_detector_update (&d, 0.0, 0.0, 5.0, 0.0, 100, FALSE, t);
  /* under-use excursion: no */
  rtpcc_gcc_detector_update (&d, -20.0, -0.1, 5.0, 0.0, 100, FALSE,
      t += MS (10));
  fail_unless (d.threshold == 12.5);
  /* over, rising, but our own burst: no */
  rtpcc_gcc_detector_update (&d, 20.0, 0.1, 5.0, 1.0, 100, TRUE,
      t += MS (10));
  fail_unless (d.threshold == 12.5);
  /* over, estimate falling: no */
  rtpcc_gcc_detector_update (&d, 19.0, 0.05, 5.0, 2.0, 100, FALSE,
      t += MS (10));
  fail_unless (d.threshold == 12.5);
  /* over, raw delay below its high since the crossing (2.0): no */
  rtpcc_gcc_detector_update (&d, 19.0, 0.06, 5.0, 0.5, 100, FALSE,
      t += MS (10));
  fail_unless (d.threshold == 12.5);
  /* over and growing: 12.5 + 0.01·(20 − 12.5)·10 = 13.25 */
  rtpcc_gcc_detector_update (&d, 20.0, 0.07, 5.0, 3.0, 100, FALSE,
      t += MS (10));
  fail_unless (fabs (d.threshold - 13.25) < 1e-12, "%.12f", d.threshold);
  /* inside the band it is lowered as usual (K_d):
   * 13.25 + 0.00018·(5 − 13.25)·10 = 13.23515 */
  rtpcc_gcc_detector_update (&d, 5.0, 0.0, 5.0, 0.0, 100, TRUE,
      t += MS (10));
  fail_unless (fabs (d.threshold - 13.23515) < 1e-12, "%.12f", d.threshold);
  /* adapt = FALSE freezes it entirely */
  d.adapt = FALSE;
  rtpcc_gcc_detector_update (&d, 20.0, 1.0, 5.0, 50.0, 100, FALSE,
      t += MS (10));
  rtpcc_gcc_detector_update (&d, 5.0, 0.0, 5.0, 0.0, 100, FALSE,
      t += MS (10));
  fail_unless (fabs (d.threshold - 13.23515) < 1e-12);
}

GST_END_TEST;

/* Trendline + detector on crafted delay series: flat, then a ramp of queue
 * growth (+1 ms per 5 ms group, i.e. sending 20 % above capacity), then a
 * draining ramp. */
GST_START_TEST (test_detector_on_series)
{
  RtpccGccTrendline tl;
  RtpccGccDetector d;
  RtpccGccSignal s = RTPCC_GCC_NORMAL;
  RtpccTime arrival = 0;
  gdouble acc = 0, th_at_reversal = 0;
  gint first_cross = -1, first_over = -1, first_neg = -1, first_under = -1;

  rtpcc_gcc_trendline_init (&tl, 20);
  rtpcc_gcc_detector_init (&d);
  for (gint i = 0; i < 300; i++) {
    gdouble ad = i < 100 ? 5.0 : i < 200 ? 6.0 : 4.0;
    gdouble mod, th = d.threshold;

    arrival += (RtpccTime) (ad * 1e6);
    acc += ad - 5.0;
    mod = rtpcc_gcc_trendline_update (&tl, ad, 5.0, arrival);
    s = rtpcc_gcc_detector_update (&d, mod, tl.trend, 5.0, acc,
        tl.num_deltas, FALSE, arrival);
    if (i < 100)
      fail_unless (s == RTPCC_GCC_NORMAL, "flat part, sample %d", i);
    if (mod > th && first_cross < 0)
      first_cross = i;
    if (s == RTPCC_GCC_OVERUSE && first_over < 0)
      first_over = i;
    if (i == 200)
      th_at_reversal = d.threshold;
    if (i >= 200 && mod < -th && first_neg < 0)
      first_neg = i;
    if (s == RTPCC_GCC_UNDERUSE && first_under < 0)
      first_under = i;
  }
  /* the ramp's slope is 1/6 ms per ms (modified 60·4/6 = 40 once the
   * window is full); the trend crosses the threshold a few samples in, and
   * the sustain rule fires on the third sample above it: 2.5 + 5 + 5 ms */
  fail_unless (first_cross > 100 && first_cross < 120, "%d", first_cross);
  fail_unless (first_over == first_cross + 2, "%d vs %d", first_over,
      first_cross);
  /* during 100 samples of sustained over-use the draft's threshold (K_u)
   * followed |m| up towards 40 ... */
  fail_unless (th_at_reversal > 35 && th_at_reversal < 40.1, "%g",
      th_at_reversal);
  /* ... so under-use waits until the draining slope brings m below minus
   * that: at once then, on the first sample past it */
  fail_unless (first_under == first_neg, "%d vs %d", first_under, first_neg);
  fail_unless (first_under > 200 && first_under < 240, "%d", first_under);
}

GST_END_TEST;

static Suite *
rtpcc_gcc_detector_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_detector");
  TCase *tc = tcase_create ("detector");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_threshold_math);
  tcase_add_test (tc, test_detector_overuse_sustained);
  tcase_add_test (tc, test_detector_threshold_gating);
  tcase_add_test (tc, test_detector_on_series);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_detector);

/* Unit tests for gcc's trendline filter (gst/rtpcc/cc/gcc/trendline.c):
 * the regression and the modified trend on ramps and noise, against values
 * computed by hand from libwebrtc's trendline_estimator rules.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/trendline.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)

GST_START_TEST (test_linear_slope)
{
  gdouble x[20], y[20], s = -1;
  RtpccRng rng;

  for (guint i = 0; i < 20; i++) {
    x[i] = 7.0 * i;
    y[i] = 0.25 * x[i] + 3.0;
  }
  fail_unless (rtpcc_gcc_linear_slope (x, y, 20, &s));
  fail_unless (fabs (s - 0.25) < 1e-12, "%g", s);

  for (guint i = 0; i < 20; i++)
    y[i] = 42.0;
  fail_unless (rtpcc_gcc_linear_slope (x, y, 20, &s));
  fail_unless (s == 0.0);

  /* all x equal: no slope */
  for (guint i = 0; i < 20; i++)
    x[i] = 5.0;
  fail_if (rtpcc_gcc_linear_slope (x, y, 20, &s));
  fail_if (rtpcc_gcc_linear_slope (x, y, 1, &s));

  /* noise around a flat line, seeded: the slope is small */
  rtpcc_rng_init (&rng, 7);
  for (guint i = 0; i < 20; i++) {
    x[i] = 10.0 * i;
    y[i] = rtpcc_rng_normal (&rng);
  }
  fail_unless (rtpcc_gcc_linear_slope (x, y, 20, &s));
  /* σ = 1 over 190 ms: the slope's standard error is 1/sqrt(Σ(x−x̄)²) =
   * 1/sqrt(66500) = 0.0039; 0.015 is almost 4 of them */
  fail_unless (fabs (s) < 0.015, "%g", s);
}

GST_END_TEST;

GST_START_TEST (test_trendline_ramp)
{
  RtpccGccTrendline t;
  gdouble mod = 0;

  /* groups sent 10 ms apart, arriving 11 ms apart: d(i) = +1 ms each. The
   * accumulated delay grows by 1 per sample, its EMA (0.9) too once the
   * transient (0.9^k) is gone; x advances 11 ms per sample: the slope of a
   * full window is 1/11, the modified trend 60 × (1/11) × 4 = 21.818. */
  rtpcc_gcc_trendline_init (&t, 20);
  for (guint i = 1; i <= 400; i++) {
    mod = rtpcc_gcc_trendline_update (&t, 11.0, 10.0, MS (11 * i));
    if (i < 20)
      fail_unless (mod == 0.0, "no trend before the window is full");
  }
  fail_unless (fabs (t.trend - 1.0 / 11.0) < 1e-9, "%.12f", t.trend);
  fail_unless (fabs (mod - 60.0 * 4.0 / 11.0) < 1e-6, "%g", mod);
  fail_unless (t.num_deltas == 400);
  fail_unless (fabs (t.accumulated - 400.0) < 1e-9);

  /* amplification: with only 30 samples the factor is 30, not 60 */
  rtpcc_gcc_trendline_init (&t, 20);
  for (guint i = 1; i <= 30; i++)
    mod = rtpcc_gcc_trendline_update (&t, 11.0, 10.0, MS (11 * i));
  fail_unless (fabs (mod - 30.0 * t.trend * 4.0) < 1e-12);
  fail_unless (t.trend > 0.0);

  /* flat: d = 0 gives exactly 0 */
  rtpcc_gcc_trendline_init (&t, 20);
  for (guint i = 1; i <= 100; i++)
    mod = rtpcc_gcc_trendline_update (&t, 10.0, 10.0, MS (10 * i));
  fail_unless (t.trend == 0.0 && mod == 0.0);

  /* a negative ramp gives the mirrored slope */
  rtpcc_gcc_trendline_init (&t, 20);
  for (guint i = 1; i <= 400; i++)
    mod = rtpcc_gcc_trendline_update (&t, 9.0, 10.0, MS (9 * i));
  fail_unless (fabs (t.trend + 1.0 / 9.0) < 1e-9, "%g", t.trend);
}

GST_END_TEST;

GST_START_TEST (test_trendline_noise)
{
  RtpccGccTrendline t;
  RtpccRng rng;
  gdouble prev_delay = 50.0, max_abs = 0;

  /* one-way delay 50 ms ± N(0, 2 ms) jitter, groups every 10 ms: the
   * accumulated delay is the jitter itself (bounded), so the trend stays
   * far below the 6 ms minimum threshold */
  rtpcc_rng_init (&rng, 12345);
  rtpcc_gcc_trendline_init (&t, 20);
  for (guint i = 1; i <= 2000; i++) {
    gdouble delay = 50.0 + 2.0 * rtpcc_rng_normal (&rng);
    gdouble mod = rtpcc_gcc_trendline_update (&t, 10.0 + delay - prev_delay,
        10.0, MS (10 * i));
    prev_delay = delay;
    if (i > 20)
      max_abs = MAX (max_abs, fabs (mod));
  }
  fail_unless (max_abs < 6.0, "max |modified trend| %g", max_abs);
  fail_unless (max_abs > 0.0);
}

GST_END_TEST;

/* The running sums give the two-pass regression's slope (to rounding):
 * over a two-hour call, with jitter, queue build-ups and drains, bursts
 * arriving in the same millisecond, and a delay that drifts far from 0. */
GST_START_TEST (test_trendline_sums)
{
  RtpccGccTrendline t;
  RtpccRng rng;
  RtpccTime arrival = 0;
  gdouble worst = 0;

  rtpcc_rng_init (&rng, 77);
  for (guint window = 2; window <= 60; window += 29) {
    rtpcc_gcc_trendline_init (&t, window);
    for (guint i = 1; i <= 720000; i++) {
      gdouble send = 10.0, d;
      gdouble slope, err;

      /* same-ms bursts now and then; ramps up and down; a clock drift */
      arrival += rtpcc_rng_below (&rng, 50) == 0 ? 0 : MS (10);
      d = (i / 3000) % 2 ? 0.5 : -0.3;
      d += 2.0 * rtpcc_rng_normal (&rng) + 0.0001;
      rtpcc_gcc_trendline_update (&t, send + d, send, arrival);
      if (t.count < t.window || i % 97 != 0)
        continue;
      if (!rtpcc_gcc_linear_slope (t.x, t.y, t.count, &slope))
        continue;
      err = fabs (t.trend - slope) / MAX (fabs (slope), 1e-3);
      worst = MAX (worst, err);
    }
  }
  GST_INFO ("worst relative error %g", worst);
  fail_unless (worst < 1e-6, "worst relative error %g", worst);
}

GST_END_TEST;

static Suite *
rtpcc_gcc_trendline_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_trendline");
  TCase *tc = tcase_create ("trendline");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_linear_slope);
  tcase_add_test (tc, test_trendline_ramp);
  tcase_add_test (tc, test_trendline_noise);
  tcase_add_test (tc, test_trendline_sums);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_trendline);

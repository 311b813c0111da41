/* Unit tests for the playout buffer's drift estimate
 * (gst/rtpcc/playout/drift.[ch]): the Theil–Sen slope through per-second
 * delay minima, its robustness to spikes, its bound, and the fastest
 * transit detrended by it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/playout/drift.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)

/* 50 packets per second for @secs with relative delay 40 ms + @ppm of the
 * time + 0..10 ms jitter; every @spike_every-th second's packets are all
 * +200 ms (0: none). */
static void
feed (RtpccPlayoutDrift * d, guint secs, gdouble ppm, guint spike_every)
{
  RtpccRng rng;

  rtpcc_rng_init (&rng, 5);
  for (guint i = 0; i < secs * 50; i++) {
    RtpccTime now = MS (20) * i + 1;
    RtpccTime delay = MS (40) + (RtpccTime) (ppm * 1e-6 * (gdouble) now) +
        (RtpccTime) rtpcc_rng_below (&rng, MS (10));

    if (spike_every && (i / 50) % spike_every == spike_every - 1)
      delay += MS (200);
    rtpcc_playout_drift_add (d, now, delay, RTPCC_SEC (30), NULL);
  }
}

GST_START_TEST (test_slope)
{
  static const gdouble ppms[] = { -300.0, 0.0, 150.0, 500.0 };

  for (guint k = 0; k < G_N_ELEMENTS (ppms); k++) {
    RtpccPlayoutDrift d;

    rtpcc_playout_drift_reset (&d);
    feed (&d, 60, ppms[k], 0);
    fail_unless (fabs (d.slope * 1e6 - ppms[k]) < 10.0, "%.1f ppm for %.1f",
        d.slope * 1e6, ppms[k]);
    /* the window holds the last 30 s of buckets only */
    fail_unless (d.len <= 31);
  }
}

GST_END_TEST;

/* Seconds whose minimum sits in a spike do not move the median slope. */
GST_START_TEST (test_spikes)
{
  RtpccPlayoutDrift d;

  rtpcc_playout_drift_reset (&d);
  feed (&d, 60, 200.0, 7);
  fail_unless (fabs (d.slope * 1e6 - 200.0) < 15.0, "%.1f ppm",
      d.slope * 1e6);
}

GST_END_TEST;

/* Beyond ±1000 ppm is no crystal: the slope is bounded. */
GST_START_TEST (test_bound)
{
  RtpccPlayoutDrift d;

  rtpcc_playout_drift_reset (&d);
  feed (&d, 30, 5000.0, 0);
  fail_unless_equals_float (d.slope, RTPCC_PLAYOUT_MAX_DRIFT);
}

GST_END_TEST;

/* The base is the lowest detrended delay: the fastest transit. */
GST_START_TEST (test_base)
{
  RtpccPlayoutDrift d;
  gdouble old = 0.0;

  rtpcc_playout_drift_reset (&d);
  /* nothing moves in the first second; the first minimum is the base */
  fail_if (rtpcc_playout_drift_add (&d, MS (10), MS (50), RTPCC_SEC (30),
          &old));
  fail_unless_equals_float (rtpcc_playout_drift_base (&d), MS (50));
  fail_if (rtpcc_playout_drift_add (&d, MS (500), MS (45), RTPCC_SEC (30),
          &old));
  fail_unless_equals_float (rtpcc_playout_drift_base (&d), MS (45));
  fail_if (rtpcc_playout_drift_add (&d, MS (900), MS (60), RTPCC_SEC (30),
          &old));
  fail_unless_equals_float (rtpcc_playout_drift_base (&d), MS (45));

  /* with a slope the base is detrended: delay − slope·t */
  rtpcc_playout_drift_reset (&d);
  feed (&d, 20, 400.0, 0);
  {
    gdouble want = G_MAXDOUBLE;

    for (guint i = 0; i < d.len; i++) {
      const RtpccPlayoutBucket *b = &d.buckets[(d.head + i) %
          RTPCC_PLAYOUT_MAX_BUCKETS];

      want = MIN (want, (gdouble) b->min_d - d.slope * (gdouble) b->t);
    }
    want = MIN (want, (gdouble) d.cur.min_d - d.slope * (gdouble) d.cur.t);
    fail_unless_equals_float (rtpcc_playout_drift_base (&d), want);
    /* about 40 ms: the jitter's floor without the drift */
    fail_unless (fabs (want - MS (40)) < MS (2), "%.2f ms", want / 1e6);
  }
}

GST_END_TEST;

/* A move of the slope is reported with the slope it replaced. */
GST_START_TEST (test_moved)
{
  RtpccPlayoutDrift d;
  gboolean moved = FALSE;
  gdouble old = -1.0, before = 0.0;

  rtpcc_playout_drift_reset (&d);
  for (guint i = 0; i < 600 && !moved; i++) {
    RtpccTime now = MS (20) * i;

    before = d.slope;
    moved = rtpcc_playout_drift_add (&d, now, MS (40) +
        (RtpccTime) (300e-6 * (gdouble) now), RTPCC_SEC (30), &old);
  }
  fail_unless (moved);
  fail_unless_equals_float (old, before);
  fail_unless (d.slope != before);
}

GST_END_TEST;

static Suite *
rtpcc_playout_drift_suite (void)
{
  Suite *s = suite_create ("rtpcc_playout_drift");
  TCase *tc = tcase_create ("drift");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_slope);
  tcase_add_test (tc, test_spikes);
  tcase_add_test (tc, test_bound);
  tcase_add_test (tc, test_base);
  tcase_add_test (tc, test_moved);
  return s;
}

GST_CHECK_MAIN (rtpcc_playout_drift);

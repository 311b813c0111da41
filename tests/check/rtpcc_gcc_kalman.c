/* Unit tests for gcc's Kalman filter (gst/rtpcc/cc/gcc/kalman.c): one
 * step computed by hand from draft-ietf-rmcat-gcc-02 §5.3, the outlier
 * filter, and tracking a step in the delay gradient.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/kalman.h>
#include <math.h>

GST_START_TEST (test_kalman_first_step)
{
  RtpccGccKalman k;
  gdouble m;

  /* by hand, draft §5.3 with e(0) = 0.1, q = 1e-3, chi = 0.01, var_v(0) =
   * 50 and groups 33.333 ms apart (f_max = 30/s: alpha = 0.99^1):
   *   z = 2; var = 0.99·50 + 0.01·4 = 49.54
   *   k = 0.101 / (49.54 + 0.101) = 0.00203461
   *   m = 2k = 0.00406922; e = (1 − k)·0.101 = 0.10079449 */
  rtpcc_gcc_kalman_init (&k);
  m = rtpcc_gcc_kalman_update (&k, 2.0, 1000.0 / 30.0);
  fail_unless (fabs (k.var_v - 49.54) < 1e-9, "%.10f", k.var_v);
  fail_unless (fabs (m - 2.0 * 0.101 / 49.641) < 1e-12, "%.12f", m);
  fail_unless (fabs (k.e - (1.0 - 0.101 / 49.641) * 0.101) < 1e-12);

  /* outlier filter: z = 100 > 3·sqrt(var) = 21.115; the variance sees
   * 21.115 instead: var = 0.99·49.54 + 0.01·9·49.54 = 1.08·49.54 */
  rtpcc_gcc_kalman_init (&k);
  rtpcc_gcc_kalman_update (&k, 2.0, 1000.0 / 30.0);
  rtpcc_gcc_kalman_update (&k, 100.0, 1000.0 / 30.0);
  fail_unless (fabs (k.var_v - 1.08 * 49.54) < 1e-9, "%.10f", k.var_v);

  /* the variance never goes below 1 */
  rtpcc_gcc_kalman_init (&k);
  for (guint i = 0; i < 5000; i++)
    rtpcc_gcc_kalman_update (&k, 0.0, 5.0);
  fail_unless (k.var_v == 1.0, "%g", k.var_v);
}

GST_END_TEST;

GST_START_TEST (test_kalman_tracks_step)
{
  RtpccGccKalman k;
  gdouble m = 0, prev;
  RtpccRng rng;
  guint i;

  /* jitter around 0 (σ 0.5 ms) for 2000 groups, then the gradient steps to
   * +2 ms per group: m_hat stays near 0, then climbs towards 2 */
  rtpcc_rng_init (&rng, 3);
  rtpcc_gcc_kalman_init (&k);
  for (i = 0; i < 2000; i++) {
    gdouble j0 = 0.5 * rtpcc_rng_normal (&rng);
    m = rtpcc_gcc_kalman_update (&k, j0, 10.0);
  }
  fail_unless (fabs (m) < 0.2, "before the step m = %g", m);
  prev = m;
  for (i = 0; i < 50; i++)
    m = rtpcc_gcc_kalman_update (&k, 2.0, 10.0);
  fail_unless (m > prev + 0.5, "m %g after 50 groups", m);
  for (i = 0; i < 1000; i++)
    m = rtpcc_gcc_kalman_update (&k, 2.0, 10.0);
  fail_unless (fabs (m - 2.0) < 0.1, "m %g after 1050 groups", m);
  /* and back */
  for (i = 0; i < 1000; i++)
    m = rtpcc_gcc_kalman_update (&k, 0.0, 10.0);
  fail_unless (fabs (m) < 0.1, "m %g", m);
}

GST_END_TEST;

GST_START_TEST (test_kalman_modified)
{
  RtpccGccKalman k;

  /* the detector reads min(num_deltas, 60) × m_hat: 30 × m after 30
   * groups, 60 × m from the 60th on */
  rtpcc_gcc_kalman_init (&k);
  fail_unless (rtpcc_gcc_kalman_modified (&k) == 0.0);
  for (guint i = 0; i < 30; i++)
    rtpcc_gcc_kalman_update (&k, 2.0, 10.0);
  fail_unless (k.m > 0.0);
  fail_unless (rtpcc_gcc_kalman_modified (&k) == 30.0 * k.m);
  for (guint i = 0; i < 70; i++)
    rtpcc_gcc_kalman_update (&k, 2.0, 10.0);
  fail_unless (k.num_deltas == 100);
  fail_unless (rtpcc_gcc_kalman_modified (&k) == 60.0 * k.m);
}

GST_END_TEST;

static Suite *
rtpcc_gcc_kalman_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_kalman");
  TCase *tc = tcase_create ("kalman");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_kalman_first_step);
  tcase_add_test (tc, test_kalman_tracks_step);
  tcase_add_test (tc, test_kalman_modified);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_kalman);

/* Unit tests for the coupling rule (gst/rtpcc/mprtp/couple.[ch]): the
 * correlation on hand-computed bins, grouping and its hysteresis, the
 * group's rate (its leader's) and the trickle, leader changes, flat
 * queues, one path.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)
#define BIN MS (250)

static RtpccMprtpCouple *
new_couple (guint n)
{
  RtpccMprtpCoupleConfig c;

  rtpcc_mprtp_couple_config_init (&c);
  return rtpcc_mprtp_couple_new (&c, n);
}

/* One sample per path in bin @k (at its middle). */
static void
feed_bin (RtpccMprtpCouple * c, guint k, RtpccTime a, RtpccTime b)
{
  RtpccTime t = (RtpccTime) k * BIN + BIN / 2;

  rtpcc_mprtp_couple_add_delay (c, 0, t, a);
  rtpcc_mprtp_couple_add_delay (c, 1, t, b);
}

/* x = 10, 20, 30, 40 ms, y = 20, 10, 40, 30 ms repeated: Pearson's r is
 * 3/5 = 0.6 (deviations ±5, ±15; covariance 75, variances 125). Bins
 * close when a later one opens; 16 are needed for a verdict. */
GST_START_TEST (test_correlation_by_hand)
{
  RtpccMprtpCouple *c = new_couple (2);
  static const gint x[] = { 10, 20, 30, 40 }, y[] = { 20, 10, 40, 30 };
  guint k;

  fail_unless (isnan (rtpcc_mprtp_couple_correlation (c, 0, 1)));
  for (k = 0; k < 16; k++)
    feed_bin (c, k, MS (x[k % 4]), MS (y[k % 4]));
  /* the 16th bin is still open */
  fail_unless (isnan (rtpcc_mprtp_couple_correlation (c, 0, 1)));
  feed_bin (c, k, MS (10), MS (20));
  fail_unless (fabs (rtpcc_mprtp_couple_correlation (c, 0, 1) - 0.6) < 1e-9,
      "%f", rtpcc_mprtp_couple_correlation (c, 0, 1));
  /* several samples in one bin count as their mean */
  rtpcc_mprtp_couple_free (c);
  c = new_couple (2);
  for (k = 0; k < 16; k++) {
    RtpccTime t = (RtpccTime) k * BIN;
    rtpcc_mprtp_couple_add_delay (c, 0, t + MS (10), MS (x[k % 4] - 5));
    rtpcc_mprtp_couple_add_delay (c, 0, t + MS (20), MS (x[k % 4] + 5));
    rtpcc_mprtp_couple_add_delay (c, 1, t + MS (30), MS (y[k % 4]));
  }
  feed_bin (c, k, 0, 0);
  fail_unless (fabs (rtpcc_mprtp_couple_correlation (c, 0, 1) - 0.6) < 1e-9);
  /* bad paths */
  fail_unless (isnan (rtpcc_mprtp_couple_correlation (c, 0, 0)));
  fail_unless (isnan (rtpcc_mprtp_couple_correlation (c, 0, 5)));
  rtpcc_mprtp_couple_free (c);
}

GST_END_TEST;

/* No delay information: each path carries its own rate. The same queue
 * seen by both (correlation 1): one group, led by the faster path, which
 * carries the group's rate less the other's trickle (5 % of it). */
GST_START_TEST (test_group_rate)
{
  RtpccMprtpCouple *c = new_couple (2);
  guint64 rates[2] = { 800000, 600000 }, allowed[2];
  guint k;

  fail_unless_equals_uint64 (rtpcc_mprtp_couple_compute (c, 0, rates,
          allowed), 1400000);
  fail_unless_equals_uint64 (allowed[0], 800000);
  fail_unless_equals_uint64 (allowed[1], 600000);
  fail_if (rtpcc_mprtp_couple_shared (c, 0, 1));

  for (k = 0; k < 17; k++) {
    RtpccTime q = MS (5) + MS (20) * (k % 5);
    feed_bin (c, k, q, q + MS (3));
  }
  fail_unless (fabs (rtpcc_mprtp_couple_correlation (c, 0, 1) - 1.0) < 1e-9);
  fail_unless_equals_uint64 (rtpcc_mprtp_couple_compute (c, k * BIN, rates,
          allowed), 800000);
  fail_unless (rtpcc_mprtp_couple_shared (c, 0, 1));
  fail_unless_equals_int (rtpcc_mprtp_couple_leader (c, 1), 0);
  fail_unless_equals_uint64 (allowed[1], 40000);
  fail_unless_equals_uint64 (allowed[0], 760000);
  /* a trickle never exceeds the member's own rate */
  rates[1] = 10000;
  rtpcc_mprtp_couple_compute (c, k * BIN, rates, allowed);
  fail_unless_equals_uint64 (allowed[1], 10000);
  fail_unless_equals_uint64 (allowed[0], 790000);
  /* a path with no rate is outside every group and carries nothing */
  rates[1] = 0;
  fail_unless_equals_uint64 (rtpcc_mprtp_couple_compute (c, k * BIN, rates,
          allowed), 800000);
  fail_unless_equals_uint64 (allowed[0], 800000);
  fail_unless_equals_uint64 (allowed[1], 0);
  rtpcc_mprtp_couple_free (c);
}

GST_END_TEST;

/* The leader stays until another member is more than 20 % above it. */
GST_START_TEST (test_leader_margin)
{
  RtpccMprtpCouple *c = new_couple (2);
  guint64 rates[2] = { 500000, 400000 }, allowed[2];
  guint k;

  for (k = 0; k < 17; k++)
    feed_bin (c, k, MS (10 * (k % 3)), MS (10 * (k % 3)));
  rtpcc_mprtp_couple_compute (c, k * BIN, rates, allowed);
  fail_unless_equals_int (rtpcc_mprtp_couple_leader (c, 1), 0);
  rates[1] = 600000;            /* 1.2 × 500k: not more than the margin */
  fail_unless_equals_uint64 (rtpcc_mprtp_couple_compute (c, k * BIN, rates,
          allowed), 500000);
  fail_unless_equals_int (rtpcc_mprtp_couple_leader (c, 0), 0);
  fail_unless_equals_uint64 (allowed[1], 25000);
  rates[1] = 600001;
  fail_unless_equals_uint64 (rtpcc_mprtp_couple_compute (c, k * BIN, rates,
          allowed), 600001);
  fail_unless_equals_int (rtpcc_mprtp_couple_leader (c, 0), 1);
  fail_unless_equals_uint64 (allowed[0], 30000);
  fail_unless_equals_uint64 (allowed[1], 570001);
  rtpcc_mprtp_couple_free (c);
}

GST_END_TEST;

/* Hysteresis: grouped at >= 0.8, kept in between, split at <= 0.5; a
 * queue that moves while the other stays flat splits; two flat queues
 * leave the verdict as it was. */
GST_START_TEST (test_hysteresis_and_flat)
{
  RtpccMprtpCouple *c = new_couple (2);
  static const gint x[] = { 10, 20, 30, 40 }, y[] = { 20, 10, 40, 30 };
  guint64 rates[2] = { 1000000, 1000000 }, allowed[2];
  guint k = 0, j;

  for (j = 0; j < 41; j++, k++)
    feed_bin (c, k, MS (x[k % 4]), MS (x[k % 4]));
  rtpcc_mprtp_couple_compute (c, k * BIN, rates, allowed);
  fail_unless (rtpcc_mprtp_couple_shared (c, 0, 1));
  /* 40 bins of r = 0.6: still one group */
  for (j = 0; j < 41; j++, k++)
    feed_bin (c, k, MS (x[k % 4]), MS (y[k % 4]));
  fail_unless (fabs (rtpcc_mprtp_couple_correlation (c, 0, 1) - 0.6) < 1e-9);
  rtpcc_mprtp_couple_compute (c, k * BIN, rates, allowed);
  fail_unless (rtpcc_mprtp_couple_shared (c, 0, 1));
  /* path 1 flat at 3 ms while path 0 moves: not one queue */
  for (j = 0; j < 41; j++, k++)
    feed_bin (c, k, MS (x[k % 4]), MS (3));
  fail_unless (rtpcc_mprtp_couple_correlation (c, 0, 1) == 0.0);
  rtpcc_mprtp_couple_compute (c, k * BIN, rates, allowed);
  fail_if (rtpcc_mprtp_couple_shared (c, 0, 1));
  fail_unless_equals_uint64 (allowed[0] + allowed[1], 2000000);
  /* both flat: no verdict, still split */
  for (j = 0; j < 41; j++, k++)
    feed_bin (c, k, MS (1), MS (2));
  fail_unless (isnan (rtpcc_mprtp_couple_correlation (c, 0, 1)));
  rtpcc_mprtp_couple_compute (c, k * BIN, rates, allowed);
  fail_if (rtpcc_mprtp_couple_shared (c, 0, 1));
  /* anti-correlated: split stays split; correlated again: grouped */
  for (j = 0; j < 41; j++, k++)
    feed_bin (c, k, MS (x[k % 4]), MS (50 - x[k % 4]));
  rtpcc_mprtp_couple_compute (c, k * BIN, rates, allowed);
  fail_if (rtpcc_mprtp_couple_shared (c, 0, 1));
  for (j = 0; j < 41; j++, k++)
    feed_bin (c, k, MS (x[k % 4]), MS (x[k % 4] + 1));
  rtpcc_mprtp_couple_compute (c, k * BIN, rates, allowed);
  fail_unless (rtpcc_mprtp_couple_shared (c, 0, 1));
  /* a gap longer than the window forgets everything: no verdict */
  k += 100;
  feed_bin (c, k, MS (1), MS (1));
  fail_unless (isnan (rtpcc_mprtp_couple_correlation (c, 0, 1)));
  rtpcc_mprtp_couple_free (c);
}

GST_END_TEST;

GST_START_TEST (test_single_path_and_config)
{
  RtpccMprtpCoupleConfig cfg;
  RtpccMprtpCouple *c = new_couple (1);
  guint64 rates[1] = { 1234567 }, allowed[1];

  rtpcc_mprtp_couple_add_delay (c, 0, 0, MS (5));
  rtpcc_mprtp_couple_add_delay (c, 3, 0, MS (5));
  fail_unless_equals_uint64 (rtpcc_mprtp_couple_compute (c, 0, rates,
          allowed), 1234567);
  fail_unless_equals_uint64 (allowed[0], 1234567);
  rtpcc_mprtp_couple_free (c);

  rtpcc_mprtp_couple_config_init (&cfg);
  fail_unless (rtpcc_mprtp_couple_new (&cfg, 0) == NULL);
  fail_unless (rtpcc_mprtp_couple_new (&cfg, RTPCC_MPRTP_MAX_PATHS + 1) ==
      NULL);
  cfg.trickle = 0.6;
  fail_unless (rtpcc_mprtp_couple_new (&cfg, 2) == NULL);
  rtpcc_mprtp_couple_config_init (&cfg);
  cfg.split_below = 0.9;
  fail_unless (rtpcc_mprtp_couple_new (&cfg, 2) == NULL);
  rtpcc_mprtp_couple_config_init (&cfg);
  cfg.min_bins = 41;
  fail_unless (rtpcc_mprtp_couple_new (&cfg, 2) == NULL);
  rtpcc_mprtp_couple_config_init (&cfg);
  cfg.leader_margin = 0.9;
  fail_unless (rtpcc_mprtp_couple_new (&cfg, 2) == NULL);
}

GST_END_TEST;

static Suite *
rtpcc_mprtp_couple_suite (void)
{
  Suite *s = suite_create ("rtpcc_mprtp_couple");
  TCase *tc = tcase_create ("couple");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_correlation_by_hand);
  tcase_add_test (tc, test_group_rate);
  tcase_add_test (tc, test_leader_margin);
  tcase_add_test (tc, test_hysteresis_and_flat);
  tcase_add_test (tc, test_single_path_and_config);
  return s;
}

GST_CHECK_MAIN (rtpcc_mprtp_couple);

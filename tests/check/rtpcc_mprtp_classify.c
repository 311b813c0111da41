/* Unit tests for the multipath scheduler's path classification
 * (gst/rtpcc/mprtp/classify.c) and latency groups (latencygroups.c):
 * intervals from cumulative subflow reports, the classes and their run,
 * the share hysteresis, and which paths a latency grouping takes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/mprtp/classify.h>
#include <rtpcc/mprtp/latencygroups.h>

#define MS(x) RTPCC_MSEC (x)

static RtpccMprtpSubflowReport
report (guint32 ext_high, gint32 cum_lost, gboolean has_discards,
    guint32 discards)
{
  RtpccMprtpSubflowReport r;

  memset (&r, 0, sizeof r);
  r.rr.ext_highest_seq = ext_high;
  r.rr.cumulative_lost = cum_lost;
  r.has_discards = has_discards;
  r.discards = discards;
  return r;
}

GST_START_TEST (test_interval_from_reports)
{
  RtpccMprtpClassifier c;
  RtpccMprtpSubflowReport r;
  guint64 e, l, d;

  rtpcc_mprtp_classifier_init (&c);
  /* the first report only starts the count */
  r = report (1000, 5, TRUE, 2);
  fail_unless (rtpcc_mprtp_classifier_interval (&c, &r, &e, &l, &d));
  fail_unless (e == 0 && l == 0 && d == 0);
  r = report (1100, 8, TRUE, 6);
  fail_unless (rtpcc_mprtp_classifier_interval (&c, &r, &e, &l, &d));
  fail_unless (e == 100 && l == 3 && d == 4);
  /* duplicates make the cumulative loss go down: no loss, not negative */
  r = report (1150, 6, FALSE, 0);
  fail_unless (rtpcc_mprtp_classifier_interval (&c, &r, &e, &l, &d));
  fail_unless (e == 50 && l == 0 && d == 0);
  /* without a discard count the last one is kept for the next */
  r = report (1200, 6, TRUE, 9);
  fail_unless (rtpcc_mprtp_classifier_interval (&c, &r, &e, &l, &d));
  fail_unless (e == 50 && l == 0 && d == 3);
  /* a highest seq that went back: ignored, the count unchanged */
  r = report (1190, 6, TRUE, 9);
  fail_if (rtpcc_mprtp_classifier_interval (&c, &r, &e, &l, &d));
  r = report (1210, 7, TRUE, 9);
  fail_unless (rtpcc_mprtp_classifier_interval (&c, &r, &e, &l, &d));
  fail_unless (e == 10 && l == 1 && d == 0);
}

GST_END_TEST;

GST_START_TEST (test_classes_and_share)
{
  RtpccMprtpClassifier c;

  rtpcc_mprtp_classifier_init (&c);
  fail_unless (c.klass == RTPCC_MPRTP_CLASS_NON_CONGESTED && c.share == 1.0);
  /* discards without loss: the playout catching up, not congestion */
  fail_unless (rtpcc_mprtp_classifier_classify (&c, 0, 5, 3) ==
      RTPCC_MPRTP_CLASS_NON_CONGESTED);
  fail_unless (rtpcc_mprtp_classifier_classify (&c, 2, 0, 3) ==
      RTPCC_MPRTP_CLASS_LOSSY);
  /* losses and discards: mildly congested, congested the third time in a
   * row; a lossy interval breaks the run */
  fail_unless (rtpcc_mprtp_classifier_classify (&c, 2, 1, 3) ==
      RTPCC_MPRTP_CLASS_MILDLY_CONGESTED);
  fail_unless (rtpcc_mprtp_classifier_classify (&c, 2, 1, 3) ==
      RTPCC_MPRTP_CLASS_MILDLY_CONGESTED);
  fail_unless (rtpcc_mprtp_classifier_classify (&c, 2, 0, 3) ==
      RTPCC_MPRTP_CLASS_LOSSY);
  fail_unless_equals_int (c.mild_run, 0);
  for (guint i = 0; i < 2; i++)
    rtpcc_mprtp_classifier_classify (&c, 1, 1, 3);
  fail_unless (rtpcc_mprtp_classifier_classify (&c, 1, 1, 3) ==
      RTPCC_MPRTP_CLASS_CONGESTED);
  fail_unless_equals_string (rtpcc_mprtp_path_class_name (c.klass),
      "congested");
  /* every interval counted under the class it got */
  fail_unless_equals_uint64 (c.intervals[RTPCC_MPRTP_CLASS_NON_CONGESTED], 1);
  fail_unless_equals_uint64 (c.intervals[RTPCC_MPRTP_CLASS_LOSSY], 2);
  fail_unless_equals_uint64 (c.intervals[RTPCC_MPRTP_CLASS_MILDLY_CONGESTED],
      4);
  fail_unless_equals_uint64 (c.intervals[RTPCC_MPRTP_CLASS_CONGESTED], 1);
  /* a share is taken at once and handed back a step at a time */
  rtpcc_mprtp_classifier_approach (&c, 0.25, 0.1);
  fail_unless (c.share == 0.25);
  rtpcc_mprtp_classifier_approach (&c, 1.0, 0.1);
  fail_unless (fabs (c.share - 0.35) < 1e-12);
  rtpcc_mprtp_classifier_approach (&c, 0.4, 0.1);
  fail_unless (c.share == 0.4);
}

GST_END_TEST;

GST_START_TEST (test_latency_groups)
{
  /* two fast paths within 50 ms of each other and a slow one */
  RtpccTime lat[3] = { MS (100), MS (20), MS (40) };
  guint64 rate[3] = { 5000000, 1000000, 1000000 };
  gboolean take[3];

  fail_unless (rtpcc_mprtp_order_latency (RTPCC_TIME_NONE) == MS (1));
  fail_unless (rtpcc_mprtp_order_latency (0) == MS (1));
  fail_unless (rtpcc_mprtp_order_latency (MS (30)) == MS (30));
  /* no requirement: everything */
  rtpcc_mprtp_latency_groups_select (lat, rate, 3, MS (50), 0, take);
  fail_unless (take[0] && take[1] && take[2]);
  /* groups {20, 40} (2 Mbit/s at a mean 30 ms) and {100} (5 Mbit/s at
   * 100 ms): the fast group scores 2/30 > 5/100, and 1.5 Mbit/s is met by
   * it alone */
  rtpcc_mprtp_latency_groups_select (lat, rate, 3, MS (50), 1500000, take);
  fail_unless (!take[0] && take[1] && take[2]);
  /* 2.5 Mbit/s needs the slow group too */
  rtpcc_mprtp_latency_groups_select (lat, rate, 3, MS (50), 2500000, take);
  fail_unless (take[0] && take[1] && take[2]);
  /* with 100 ms groups all three are one group */
  rtpcc_mprtp_latency_groups_select (lat, rate, 3, MS (100), 1000, take);
  fail_unless (take[0] && take[1] && take[2]);
  /* a much faster slow path wins the first pick */
  rate[0] = 20000000;
  rtpcc_mprtp_latency_groups_select (lat, rate, 3, MS (50), 1500000, take);
  fail_unless (take[0] && !take[1] && !take[2]);
  rtpcc_mprtp_latency_groups_select (lat, rate, 0, MS (50), 0, take);
}

GST_END_TEST;

static Suite *
rtpcc_mprtp_classify_suite (void)
{
  Suite *s = suite_create ("rtpcc_mprtp_classify");
  TCase *tc = tcase_create ("classify");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_interval_from_reports);
  tcase_add_test (tc, test_classes_and_share);
  tcase_add_test (tc, test_latency_groups);
  return s;
}

GST_CHECK_MAIN (rtpcc_mprtp_classify);

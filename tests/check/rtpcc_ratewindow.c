/* Unit tests for RtpccRateWindow (gst/rtpcc/ratewindow.[ch]).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)

/* 1000 B every 10 ms is 800 kbit/s; the window holds exactly 50 samples of
 * 500 ms (a sample at now − window has left it). */
GST_START_TEST (test_steady_rate)
{
  RtpccRateWindow w;
  guint i;

  rtpcc_rate_window_init (&w, MS (500));
  fail_unless (rtpcc_rate_window_rate (&w, RTPCC_TIME_NONE, MS (100)) < 0);
  for (i = 0; i <= 300; i++)
    rtpcc_rate_window_push (&w, (RtpccTime) i * MS (10), 1000);
  fail_unless_equals_uint64 (rtpcc_rate_window_bytes (&w, MS (3000)), 50000);
  fail_unless (fabs (rtpcc_rate_window_rate (&w, RTPCC_TIME_NONE, MS (100))
          - 800000.0) < 1e-6);
  /* reading later expires what left the window: 250 ms later, half */
  fail_unless_equals_uint64 (rtpcc_rate_window_bytes (&w, MS (3250)), 25000);
  fail_unless (fabs (rtpcc_rate_window_rate (&w, MS (3250), MS (100)) -
          400000.0) < 1e-6);
  /* memory stays bounded by about one window of samples after compaction */
  for (; i <= 3000; i++)
    rtpcc_rate_window_push (&w, (RtpccTime) i * MS (10), 1000);
  fail_unless (w.len <= 2 * 50 + 256 + 1, "%u samples held",
      w.len);
  rtpcc_rate_window_clear (&w);
}

GST_END_TEST;

/* Shorter history than the window: the rate over the span there is, without
 * the first sample (it opens the interval); -1 under the minimum span. */
GST_START_TEST (test_short_history)
{
  RtpccRateWindow w;

  rtpcc_rate_window_init (&w, GST_SECOND);
  rtpcc_rate_window_push (&w, MS (1000), 500);
  rtpcc_rate_window_push (&w, MS (1050), 500);
  fail_unless (rtpcc_rate_window_rate (&w, RTPCC_TIME_NONE, MS (100)) < 0);
  rtpcc_rate_window_push (&w, MS (1200), 1500);
  /* 2000 B in 200 ms = 80 kbit/s */
  fail_unless (fabs (rtpcc_rate_window_rate (&w, RTPCC_TIME_NONE, MS (100)) -
          80000.0) < 1e-6);
  fail_unless_equals_uint64 (rtpcc_rate_window_bytes (&w, MS (1200)), 2500);
  rtpcc_rate_window_reset (&w);
  fail_unless_equals_uint64 (rtpcc_rate_window_bytes (&w, MS (1200)), 0);
  fail_unless (rtpcc_rate_window_rate (&w, RTPCC_TIME_NONE, 0) < 0);
  rtpcc_rate_window_clear (&w);
}

GST_END_TEST;

static Suite *
rtpcc_ratewindow_suite (void)
{
  Suite *s = suite_create ("rtpcc_ratewindow");
  TCase *tc = tcase_create ("ratewindow");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_steady_rate);
  tcase_add_test (tc, test_short_history);
  return s;
}

GST_CHECK_MAIN (rtpcc_ratewindow);

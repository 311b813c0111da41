/* Unit tests for TFRC's parts (gst/rtpcc/cc/tfrc/): the X_recv set of
 * RFC 5348 §4.3 (update, maximize, the 2 R horizon) and the send log that
 * judges a round data-limited (§8.2). The loss-interval history is tested
 * in rtpcc_tfrc.c against the RFC's reference values.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/tfrc/recvset.h>
#include <rtpcc/cc/tfrc/sendlog.h>

#include <math.h>

#define MS(x) RTPCC_MSEC (x)

GST_START_TEST (test_recv_set_update)
{
  RtpccTfrcRecvSet set = { 0 };

  /* empty: no limit */
  fail_unless (isinf (rtpcc_tfrc_recv_set_max (&set)));
  rtpcc_tfrc_recv_set_update (&set, MS (0), 1000.0, MS (200));
  rtpcc_tfrc_recv_set_update (&set, MS (100), 3000.0, MS (200));
  rtpcc_tfrc_recv_set_update (&set, MS (150), 2000.0, MS (200));
  fail_unless_equals_int (set.n, 3);
  fail_unless (rtpcc_tfrc_recv_set_max (&set) == 3000.0);
  /* an unknown rate adds nothing, but ageing still applies: at 310 ms
   * the 100 ms entry (the maximum) is older than 200 ms */
  rtpcc_tfrc_recv_set_update (&set, MS (310), -1.0, MS (200));
  fail_unless_equals_int (set.n, 1);
  fail_unless (rtpcc_tfrc_recv_set_max (&set) == 2000.0);
  /* full: the oldest entry goes */
  for (guint i = 0; i < RTPCC_TFRC_RECV_SET_SIZE + 3; i++)
    rtpcc_tfrc_recv_set_update (&set, MS (320 + i), 100.0 + i, MS (200));
  fail_unless_equals_int (set.n, RTPCC_TFRC_RECV_SET_SIZE);
  fail_unless (set.entries[0].rate == 103.0);
  fail_unless (rtpcc_tfrc_recv_set_max (&set) ==
      100.0 + RTPCC_TFRC_RECV_SET_SIZE + 2);
}

GST_END_TEST;

GST_START_TEST (test_recv_set_maximize)
{
  RtpccTfrcRecvSet set = { 0 };

  /* the initial {Infinity} is dropped by maximize, not kept as the max */
  rtpcc_tfrc_recv_set_reset (&set, MS (0), INFINITY);
  rtpcc_tfrc_recv_set_maximize (&set, MS (10), 500.0);
  fail_unless_equals_int (set.n, 1);
  fail_unless (rtpcc_tfrc_recv_set_max (&set) == 500.0);
  /* the larger of the new rate and what the set held */
  rtpcc_tfrc_recv_set_update (&set, MS (20), 800.0, MS (200));
  rtpcc_tfrc_recv_set_maximize (&set, MS (30), 600.0);
  fail_unless_equals_int (set.n, 1);
  fail_unless (rtpcc_tfrc_recv_set_max (&set) == 800.0);
  fail_unless (set.entries[0].time == MS (30));
  /* halving (a loss in a data-limited round) */
  rtpcc_tfrc_recv_set_halve (&set);
  fail_unless (rtpcc_tfrc_recv_set_max (&set) == 400.0);
  /* nothing known at all: empty */
  set.n = 0;
  rtpcc_tfrc_recv_set_maximize (&set, MS (40), -1.0);
  fail_unless_equals_int (set.n, 0);
}

GST_END_TEST;

static void
push (RtpccTfrcSendLog * log, gint ms, gdouble allowed, guint size,
    gboolean app_limited)
{
  RtpccTfrcSentEntry e = { MS (ms), allowed, size, app_limited };

  rtpcc_tfrc_send_log_push (log, &e);
}

GST_START_TEST (test_send_log_data_limited)
{
  RtpccTfrcSendLog log;

  rtpcc_tfrc_send_log_init (&log);
  fail_if (rtpcc_tfrc_send_log_data_limited (&log, MS (0), MS (100)));
  /* 1000 bytes every 10 ms at an allowance of 100 kB/s: exactly the
   * allowance, backlogged: not data-limited */
  for (gint t = 0; t <= 200; t += 10)
    push (&log, t, 100000.0, 1000, FALSE);
  fail_if (rtpcc_tfrc_send_log_data_limited (&log, MS (0), MS (100)));
  /* unknown ends, or an empty interval: nothing to judge */
  fail_if (rtpcc_tfrc_send_log_data_limited (&log, RTPCC_TIME_NONE,
          MS (100)));
  fail_if (rtpcc_tfrc_send_log_data_limited (&log, MS (100), MS (100)));
  /* from 210 ms: a quarter of the allowance, backlogged: under half of
   * it went out, so data-limited (the sender's own stall) */
  for (gint t = 210; t <= 400; t += 10)
    push (&log, t, 400000.0, 1000, FALSE);
  fail_unless (rtpcc_tfrc_send_log_data_limited (&log, MS (200), MS (400)));
  /* from 410 ms: app-limited at 90 % of the allowance (§8.2) */
  for (gint t = 410; t <= 600; t += 10)
    push (&log, t, 111111.0, 1000, TRUE);
  fail_unless (rtpcc_tfrc_send_log_data_limited (&log, MS (400), MS (600)));
  /* the log cut before the interval starts: no verdict */
  rtpcc_tfrc_send_log_prune (&log, MS (450));
  fail_if (rtpcc_tfrc_send_log_data_limited (&log, MS (400), MS (600)));
  fail_unless (rtpcc_tfrc_send_log_data_limited (&log, MS (450), MS (600)));
  rtpcc_tfrc_send_log_clear (&log);
  fail_unless (log.ring == NULL);
}

GST_END_TEST;

GST_START_TEST (test_send_log_grows_and_bounds)
{
  RtpccTfrcSendLog log;

  rtpcc_tfrc_send_log_init (&log);
  /* grows past its first capacity keeping the order */
  for (guint i = 0; i < 1000; i++)
    push (&log, (gint) i, 1000.0, 100, FALSE);
  fail_unless_equals_int (log.len, 1000);
  rtpcc_tfrc_send_log_prune (&log, MS (500));
  fail_unless_equals_int (log.len, 500);
  /* never more than 65536 entries: the oldest go */
  for (guint i = 1000; i < 70000; i++)
    push (&log, (gint) i, 1000.0, 100, FALSE);
  fail_unless_equals_int (log.len, 65536);
  fail_unless (log.ring[log.head].send_time == MS (70000 - 65536));
  rtpcc_tfrc_send_log_clear (&log);
}

GST_END_TEST;

static Suite *
rtpcc_tfrc_parts_suite (void)
{
  Suite *s = suite_create ("rtpcc_tfrc_parts");
  TCase *tc = tcase_create ("parts");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_recv_set_update);
  tcase_add_test (tc, test_recv_set_maximize);
  tcase_add_test (tc, test_send_log_data_limited);
  tcase_add_test (tc, test_send_log_grows_and_bounds);
  return s;
}

GST_CHECK_MAIN (rtpcc_tfrc_parts);

/* Unit tests for gcc's send log (gst/rtpcc/cc/gcc/sendlog.c): the rate
 * over a window from the bytes sent, and how far back the log reaches.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/sendlog.h>

#define MS(x) RTPCC_MSEC (x)

GST_START_TEST (test_send_log_rate)
{
  RtpccGccSendLog l;

  rtpcc_gcc_send_log_init (&l);
  fail_unless (rtpcc_gcc_send_log_rate (&l, MS (100), MS (50)) == -1);
  /* 1000 bytes every 10 ms from 0 to 2 s: 800 kbit/s */
  for (guint i = 0; i <= 200; i++)
    rtpcc_gcc_send_log_add (&l, MS (10 * i), 1000);
  /* (0.5 s, 1.5 s]: the packets at 0.51 .. 1.5 s, 100 of them */
  fail_unless (rtpcc_gcc_send_log_rate (&l, MS (1500), RTPCC_SEC (1)) ==
      800000.0);
  /* between marks: (0.505 s, 1.505 s] holds the same 100 packets */
  fail_unless (rtpcc_gcc_send_log_rate (&l, MS (1505), RTPCC_SEC (1)) ==
      800000.0);
  /* (1.0 s, 1.25 s]: 25 packets over a quarter second */
  fail_unless (rtpcc_gcc_send_log_rate (&l, MS (1250), MS (250)) ==
      800000.0);
  /* the window must start at or after the first packet */
  fail_unless (rtpcc_gcc_send_log_rate (&l, MS (500), RTPCC_SEC (1)) == -1);
  fail_unless (rtpcc_gcc_send_log_rate (&l, MS (1000), RTPCC_SEC (1)) ==
      800000.0);
  /* two packets at the same instant both count */
  rtpcc_gcc_send_log_add (&l, MS (2000), 1000);
  fail_unless (rtpcc_gcc_send_log_rate (&l, MS (2000), MS (100)) ==
      11000 * 8.0 / 0.1);
  rtpcc_gcc_send_log_clear (&l);
}

GST_END_TEST;

GST_START_TEST (test_send_log_horizon)
{
  RtpccGccSendLog l;

  /* 20 s of packets every 10 ms: the log keeps the last 3 s, and keeps
   * its array compact */
  rtpcc_gcc_send_log_init (&l);
  for (guint i = 0; i <= 2000; i++)
    rtpcc_gcc_send_log_add (&l, MS (10 * i), 500);
  fail_unless (rtpcc_gcc_send_log_rate (&l, RTPCC_SEC (20), RTPCC_SEC (3)) ==
      400000.0);
  fail_unless (rtpcc_gcc_send_log_rate (&l, RTPCC_SEC (20), MS (3010)) == -1);
  fail_unless (l.marks->len - l.head == 301, "%u kept",
      l.marks->len - l.head);
  fail_unless (l.marks->len < 2 * 301 + 2, "%u marks", l.marks->len);
  rtpcc_gcc_send_log_clear (&l);
  fail_unless (l.marks == NULL);
}

GST_END_TEST;

static Suite *
rtpcc_gcc_sendlog_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_sendlog");
  TCase *tc = tcase_create ("sendlog");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_send_log_rate);
  tcase_add_test (tc, test_send_log_horizon);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_sendlog);

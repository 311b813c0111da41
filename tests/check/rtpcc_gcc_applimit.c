/* Unit tests for gcc's application-limited test
 * (gst/rtpcc/cc/gcc/applimit.c): the allowance as the integral of the
 * target, and the fraction of it the send log shows as sent.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/applimit.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)

GST_START_TEST (test_app_limit_allowance)
{
  RtpccGccAppLimit l;

  rtpcc_gcc_app_limit_init (&l);
  fail_unless (rtpcc_gcc_app_limit_allowed (&l, MS (500), MS (500)) == -1);
  /* 800 kbit/s from 0, 1.6 Mbit/s from 1 s */
  rtpcc_gcc_app_limit_set_rate (&l, 0, 800000);
  rtpcc_gcc_app_limit_set_rate (&l, MS (500), 800000);  /* no change */
  rtpcc_gcc_app_limit_set_rate (&l, RTPCC_SEC (1), 1600000);
  fail_unless (l.marks->len == 2, "%u marks", l.marks->len);
  /* not known before the first rate */
  fail_unless (rtpcc_gcc_app_limit_allowed (&l, MS (400), MS (500)) == -1);
  fail_unless (fabs (rtpcc_gcc_app_limit_allowed (&l, MS (800), MS (500)) -
          400000) < 1e-6);
  /* across the change: 250 ms at each rate */
  fail_unless (fabs (rtpcc_gcc_app_limit_allowed (&l, MS (1250), MS (500)) -
          (200000 + 400000)) < 1e-6);
  /* the rate in force runs on past the last mark */
  fail_unless (fabs (rtpcc_gcc_app_limit_allowed (&l, RTPCC_SEC (5),
              MS (500)) - 800000) < 1e-6);
  /* a second rate at the same instant replaces the first */
  rtpcc_gcc_app_limit_set_rate (&l, RTPCC_SEC (1), 400000);
  fail_unless (fabs (rtpcc_gcc_app_limit_allowed (&l, MS (1500), MS (500)) -
          200000) < 1e-6);
  rtpcc_gcc_app_limit_clear (&l);
  fail_unless (l.marks == NULL);
}

GST_END_TEST;

GST_START_TEST (test_app_limit_used)
{
  RtpccGccAppLimit l;
  RtpccGccSendLog sent;
  RtpccTime t;
  gdouble rate = 400000;

  rtpcc_gcc_app_limit_init (&l);
  rtpcc_gcc_send_log_init (&sent);
  fail_unless (rtpcc_gcc_app_limit_used (&l, &sent, MS (500), MS (500)) ==
      -1);
  /* a sender that follows a target growing 2 × per second at once (1000
   * bytes whenever the target has allowed them) uses all of it, though
   * the target now is well above the mean rate of the window */
  rtpcc_gcc_app_limit_set_rate (&l, 0, rate);
  {
    gdouble owed = 0;
    RtpccTime last = 0;
    for (t = MS (10); t <= RTPCC_SEC (3); t += MS (10)) {
      owed += rate * RTPCC_TIME_AS_SEC (t - last) / 8;
      last = t;
      while (owed >= 1000) {
        rtpcc_gcc_send_log_add (&sent, t, 1000);
        owed -= 1000;
      }
      rate *= pow (2.0, 0.01);
      rtpcc_gcc_app_limit_set_rate (&l, t, rate);
    }
  }
  t -= MS (10);
  fail_unless (fabs (rtpcc_gcc_app_limit_used (&l, &sent, t, MS (500)) -
          1.0) < 0.02, "%f", rtpcc_gcc_app_limit_used (&l, &sent, t,
          MS (500)));
  /* then the target jumps to 4 × what is sent: a quarter used */
  rtpcc_gcc_app_limit_set_rate (&l, t, 4 * rate);
  for (RtpccTime u = t + MS (10); u <= t + MS (500); u += MS (10))
    rtpcc_gcc_send_log_add (&sent, u, (guint) (rate * 0.01 / 8));
  t += MS (500);
  fail_unless (fabs (rtpcc_gcc_app_limit_used (&l, &sent, t, MS (500)) -
          0.25) < 0.01, "%f", rtpcc_gcc_app_limit_used (&l, &sent, t,
          MS (500)));
  /* nothing allowed: not known */
  rtpcc_gcc_app_limit_set_rate (&l, t, 0);
  fail_unless (rtpcc_gcc_app_limit_used (&l, &sent, t + MS (600),
          MS (500)) == -1);
  rtpcc_gcc_send_log_clear (&sent);
  rtpcc_gcc_app_limit_clear (&l);
}

GST_END_TEST;

GST_START_TEST (test_app_limit_horizon)
{
  RtpccGccAppLimit l;

  /* a rate change every 10 ms for 20 s: the marks older than 3 s go, the
   * one in force 3 s back stays, and the array stays compact */
  rtpcc_gcc_app_limit_init (&l);
  for (guint i = 0; i <= 2000; i++)
    rtpcc_gcc_app_limit_set_rate (&l, MS (10 * i), 100000 + (i % 2) * 100000);
  fail_unless (fabs (rtpcc_gcc_app_limit_allowed (&l, RTPCC_SEC (20),
              RTPCC_SEC (3)) - 450000) < 1e-3);
  fail_unless (rtpcc_gcc_app_limit_allowed (&l, RTPCC_SEC (20),
          MS (3010)) == -1);
  fail_unless (l.marks->len < 2 * 302 + 2, "%u marks", l.marks->len);
  rtpcc_gcc_app_limit_clear (&l);
}

GST_END_TEST;

static Suite *
rtpcc_gcc_applimit_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_applimit");
  TCase *tc = tcase_create ("applimit");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_app_limit_allowance);
  tcase_add_test (tc, test_app_limit_used);
  tcase_add_test (tc, test_app_limit_horizon);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_applimit);

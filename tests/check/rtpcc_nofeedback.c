/* Unit tests for RtpccNoFeedback (gst/rtpcc/nofeedback.[ch]) and the
 * controller wrapper that runs it (controller.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

#define MS(x) RTPCC_MSEC (x)

/* Feedback every 40 ms with a 100 ms RTT, a packet every 10 ms: T is
 * max (4 × 100 ms, 4 × the ~40 ms gap, 500 ms) = 500 ms from the first
 * unanswered packet; then a halving every T while we send, none while idle;
 * feedback back: the cap doubles per RTT until the target is below it. */
GST_START_TEST (test_timer)
{
  RtpccNoFeedback nf;
  RtpccTime t;
  guint64 cap;

  rtpcc_no_feedback_init (&nf, 150000);
  /* nothing to miss before the first feedback */
  rtpcc_no_feedback_on_sent (&nf, 0);
  fail_unless_equals_int64 (rtpcc_no_feedback_deadline (&nf), RTPCC_TIME_NONE);
  for (t = MS (10); t <= MS (1000); t += MS (10)) {
    rtpcc_no_feedback_on_sent (&nf, t);
    if (t % MS (40) == 0)
      fail_if (rtpcc_no_feedback_on_feedback (&nf, t, MS (100)));
  }
  fail_unless_equals_int64 (rtpcc_no_feedback_interval (&nf), MS (500));
  /* the last feedback at 1000 ms; the first packet after it at 1010 */
  rtpcc_no_feedback_on_sent (&nf, MS (1010));
  fail_unless_equals_int64 (rtpcc_no_feedback_deadline (&nf), MS (1510));
  fail_if (rtpcc_no_feedback_stopped (&nf, NULL));
  cap = rtpcc_no_feedback_expire (&nf, MS (1510), 2000000);
  fail_unless_equals_uint64 (cap, 1000000);
  fail_unless (rtpcc_no_feedback_stopped (&nf, &t));
  fail_unless_equals_int64 (t, MS (1000));
  fail_unless_equals_uint64 (rtpcc_no_feedback_cap (&nf, MS (1600),
          3000000), 1000000);
  /* sending on: halved again after T, down to the minimum */
  rtpcc_no_feedback_on_sent (&nf, MS (1700));
  fail_unless_equals_int64 (rtpcc_no_feedback_deadline (&nf), MS (2010));
  fail_unless_equals_uint64 (rtpcc_no_feedback_expire (&nf, MS (2010), 0),
      500000);
  rtpcc_no_feedback_on_sent (&nf, MS (2100));
  fail_unless_equals_uint64 (rtpcc_no_feedback_expire (&nf, MS (2510), 0),
      250000);
  rtpcc_no_feedback_on_sent (&nf, MS (2600));
  fail_unless_equals_uint64 (rtpcc_no_feedback_expire (&nf, MS (3010), 0),
      150000);
  /* idle since: no halving, the timer pauses until we send */
  fail_unless_equals_uint64 (rtpcc_no_feedback_expire (&nf, MS (3510), 0),
      0);
  fail_unless_equals_int64 (rtpcc_no_feedback_deadline (&nf),
      RTPCC_TIME_NONE);
  rtpcc_no_feedback_on_sent (&nf, MS (5000));
  fail_unless_equals_int64 (rtpcc_no_feedback_deadline (&nf), MS (5500));

  /* feedback returns at 6 s: the cap doubles per RTT (100 ms) from the
   * minimum and is released once the controller's own target is below */
  fail_unless (rtpcc_no_feedback_on_feedback (&nf, MS (6000), MS (100)));
  fail_if (rtpcc_no_feedback_stopped (&nf, NULL));
  fail_unless_equals_uint64 (rtpcc_no_feedback_cap (&nf, MS (6050),
          1000000), 150000);
  fail_unless_equals_uint64 (rtpcc_no_feedback_cap (&nf, MS (6100),
          1000000), 300000);
  fail_unless_equals_uint64 (rtpcc_no_feedback_cap (&nf, MS (6250),
          1000000), 600000);
  fail_unless_equals_uint64 (rtpcc_no_feedback_cap (&nf, MS (6300),
          1000000), 0);
  fail_unless_equals_uint64 (rtpcc_no_feedback_cap (&nf, MS (6400), 3000000),
      0);
}

GST_END_TEST;

/* RTCP receiver reports count as progress only when their highest
 * sequence number advances, and not at all once per-packet feedback was
 * seen. */
GST_START_TEST (test_reports)
{
  RtpccNoFeedback nf;

  rtpcc_no_feedback_init (&nf, 150000);
  rtpcc_no_feedback_on_sent (&nf, 0);
  fail_if (rtpcc_no_feedback_on_report (&nf, MS (1000), 1, 100, MS (50)));
  rtpcc_no_feedback_on_sent (&nf, MS (1010));
  /* reports a second apart: T = 4 × 1 s; the same highest seq is no
   * progress, the deadline stays */
  fail_if (rtpcc_no_feedback_on_report (&nf, MS (2000), 1, 100, MS (50)));
  fail_unless_equals_int64 (rtpcc_no_feedback_deadline (&nf), MS (5010));
  fail_unless (rtpcc_no_feedback_expire (&nf, MS (5010), 1000000) > 0);
  /* an advancing report ends the stop */
  fail_unless (rtpcc_no_feedback_on_report (&nf, MS (5100), 1, 150, MS (50)));
  /* per-packet feedback from now on: reports no longer count */
  fail_if (rtpcc_no_feedback_on_feedback (&nf, MS (5200), MS (50)));
  rtpcc_no_feedback_on_sent (&nf, MS (5210));
  fail_if (rtpcc_no_feedback_on_report (&nf, MS (5300), 1, 200, MS (50)));
  fail_unless_equals_int64 (rtpcc_no_feedback_deadline (&nf), MS (9210));
}

GST_END_TEST;

/* Through the wrapper: a controller without on_no_feedback ("fixed", 2
 * Mbit/s) is capped while feedback is missing and climbs back after. */
GST_START_TEST (test_wrapper)
{
  RtpccControllerConfig cfg;
  RtpccController *cc;
  RtpccPacketReport r = { 0, };
  RtpccFeedback fb = { 0, };
  RtpccSentPacket sp = { 0, };
  RtpccTime t;

  rtpcc_controller_config_init (&cfg);
  cfg.max_bitrate = cfg.start_bitrate = 2000000;
  cc = rtpcc_controller_new ("fixed", &cfg, 0, NULL);
  fb.reports = &r;
  fb.n_reports = 1;
  fb.srtt = MS (100);
  r.received = TRUE;
  for (t = 0; t <= MS (1000); t += MS (10)) {
    sp.seq++;
    sp.send_time = t;
    rtpcc_controller_packet_sent (cc, t, &sp);
    if (t % MS (40) == 0)
      rtpcc_controller_feedback (cc, t, &fb);
  }
  /* silence: halved at 1.51 s (T = 500 ms from the packet at 1.01 s) */
  for (; t <= MS (2100); t += MS (10)) {
    sp.seq++;
    rtpcc_controller_packet_sent (cc, t, &sp);
    fail_unless (rtpcc_controller_next_timeout (cc) > t - MS (10));
    rtpcc_controller_tick (cc, t);
    fail_unless_equals_uint64 (cc->target.target_bitrate, t < MS (1510) ?
        2000000 : t < MS (2010) ? 1000000 : 500000);
  }
  fail_unless_equals_string (cc->target.state, "no-feedback");
  fail_unless (rtpcc_controller_feedback_stopped (cc, NULL));
  /* back: 500 k, 1 M per RTT, then the controller's own 2 M */
  rtpcc_controller_feedback (cc, t, &fb);
  fail_unless_equals_uint64 (cc->target.target_bitrate, 500000);
  fail_unless_equals_string (cc->target.state, "feedback-restart");
  rtpcc_controller_packet_sent (cc, t + MS (100), &sp);
  fail_unless_equals_uint64 (cc->target.target_bitrate, 1000000);
  rtpcc_controller_packet_sent (cc, t + MS (200), &sp);
  fail_unless_equals_uint64 (cc->target.target_bitrate, 2000000);
  fail_unless_equals_string (cc->target.state, "fixed");
  rtpcc_controller_free (cc);
}

GST_END_TEST;

static Suite *
rtpcc_nofeedback_suite (void)
{
  Suite *s = suite_create ("rtpcc_nofeedback");
  TCase *tc = tcase_create ("nofeedback");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_timer);
  tcase_add_test (tc, test_reports);
  tcase_add_test (tc, test_wrapper);
  return s;
}

GST_CHECK_MAIN (rtpcc_nofeedback);

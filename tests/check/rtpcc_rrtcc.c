/* Unit tests for the "rrtcc" controller (gst/rtpcc/cc/rrtcc.c): the 2013
 * loss rule per receiver report, the TCP-equation floor, the receiver's
 * estimate as a ceiling kept in the state, and the no-feedback halving;
 * every expected rate computed by hand from the rule.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include "cc-util.h"
#include <string.h>

static guint32 hsn;

static void
rr (RtpccController * cc, RtpccTime now, guint8 fraction, RtpccTime rtt)
{
  cc_util_rr (cc, now, fraction, rtt, &hsn);
}

static guint64
rate (RtpccController * cc)
{
  return cc->target.target_bitrate;
}

/* A 500 ms round trip keeps the TCP floor (test_tcp_floor) below these
 * rates: the loss rule alone. */
#define LONG_RTT RTPCC_MSEC (500)

GST_START_TEST (test_loss_rule)
{
  RtpccController *cc = cc_util_new ("rrtcc", 50000, 5000000, 500000);

  fail_unless_equals_uint64 (rate (cc), 500000);
  /* p = 0 < 2 %: 1.05 (500000 + 1000) = 526050 */
  rr (cc, RTPCC_SEC (1), 0, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), 526050);
  fail_unless_equals_string (cc->target.state, "increase");
  /* 13/256 = 5.1 %: hold */
  rr (cc, RTPCC_SEC (2), 13, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), 526050);
  fail_unless_equals_string (cc->target.state, "hold");
  /* 5/256 = 1.95 % < 2 %: increase; 6/256 = 2.3 %: hold */
  rr (cc, RTPCC_SEC (3), 5, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), 553402);
  rr (cc, RTPCC_SEC (4), 6, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), 553402);
  /* 64/256 = 25 %: As (1 - 0.125) = 484227 */
  rr (cc, RTPCC_SEC (5), 64, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), 484227);
  fail_unless_equals_string (cc->target.state, "decrease");
  fail_unless_equals_string (cc->target.reason, "loss");
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* 30 % loss on a 1 ms path: TCP would get far more than 0.85 As, so the
 * floor holds the rate (loss that is not ours to cure); with a long RTT
 * the same loss cuts. */
GST_START_TEST (test_tcp_floor)
{
  RtpccController *cc = cc_util_new ("rrtcc", 50000, 5000000, 500000);
  guint64 before;

  rr (cc, RTPCC_SEC (1), 77, RTPCC_MSEC (1));
  fail_unless (rate (cc) > 500000, "%" G_GUINT64_FORMAT, rate (cc));
  fail_unless_equals_string (cc->target.reason, "tfrc-floor");
  rtpcc_controller_free (cc);

  cc = cc_util_new ("rrtcc", 50000, 5000000, 500000);
  before = rate (cc);
  rr (cc, RTPCC_SEC (1), 77, RTPCC_MSEC (300));
  /* 77/256 = 0.30: 500000 (1 - 0.15) = 424805 */
  fail_unless_equals_uint64 (rate (cc), (guint64) (before * (1.0 - 0.5 *
              77 / 256.0)));
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* The receiver's estimate bounds As itself: a REMB of 300 kbit/s cuts a
 * 500 kbit/s As at once, clean reports do not lift it above 300, and when
 * the REMB lifts to 400 the rate grows from 300 (not from wherever an
 * unbounded As would have got to). */
GST_START_TEST (test_receiver_estimate_bounds_state)
{
  RtpccController *cc = cc_util_new ("rrtcc", 50000, 5000000, 500000);

  rtpcc_controller_receiver_limit (cc, RTPCC_SEC (1), 300000);
  fail_unless_equals_uint64 (rate (cc), 300000);
  fail_unless_equals_string (cc->target.reason, "receiver-estimate");
  for (guint i = 0; i < 10; i++)
    rr (cc, RTPCC_SEC (2 + i), 0, RTPCC_MSEC (50));
  fail_unless_equals_uint64 (rate (cc), 300000);
  rtpcc_controller_receiver_limit (cc, RTPCC_SEC (20), 400000);
  fail_unless_equals_uint64 (rate (cc), 300000);
  rr (cc, RTPCC_SEC (21), 0, RTPCC_MSEC (50));
  fail_unless_equals_uint64 (rate (cc), 316050);
  /* the limit lifted altogether */
  rtpcc_controller_receiver_limit (cc, RTPCC_SEC (22), G_MAXUINT64);
  rr (cc, RTPCC_SEC (23), 0, RTPCC_MSEC (50));
  fail_unless_equals_uint64 (rate (cc), 332902);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* Feedback stops (the no-feedback timer calls on_no_feedback, here
 * directly so the timer's own cap on the published target stays out of
 * the figures): As halves once however often it is called; a report with
 * nothing new is ignored, and so is the loss of the first one with
 * progress (the outage's); then the rule resumes from the half. */
GST_START_TEST (test_no_feedback)
{
  RtpccController *cc = cc_util_new ("rrtcc", 50000, 5000000, 800000);
  guint64 half;

  rr (cc, RTPCC_SEC (1), 0, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), 841050);
  cc->ops->on_no_feedback (cc, RTPCC_SEC (5), 420525);
  cc->ops->on_no_feedback (cc, RTPCC_SEC (6), 210262);
  half = (guint64) (841050 / 2.0);
  fail_unless_equals_uint64 (rate (cc), half);
  /* nothing new arrived: ignored */
  hsn -= 100;
  rr (cc, RTPCC_SEC (7), 0, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), half);
  /* the outage's loss */
  rr (cc, RTPCC_SEC (8), 255, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), half);
  fail_unless_equals_string (cc->target.reason, "feedback-back");
  rr (cc, RTPCC_SEC (9), 0, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), (guint64) (1.05 * (half + 1000.0)));
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* A report showing nothing received of what was sent (the link died
 * before the no-feedback timer noticed) is not "no loss": no increase. */
GST_START_TEST (test_no_progress_no_increase)
{
  RtpccController *cc = cc_util_new ("rrtcc", 50000, 5000000, 800000);

  rr (cc, RTPCC_SEC (1), 0, LONG_RTT);
  fail_unless_equals_uint64 (rate (cc), 841050);
  for (guint i = 0; i < 3; i++) {
    hsn -= 100;
    rr (cc, RTPCC_SEC (2 + i), 0, LONG_RTT);
  }
  fail_unless_equals_uint64 (rate (cc), 841050);
  fail_unless_equals_string (cc->target.reason, "no-progress");
  rtpcc_controller_free (cc);
}

GST_END_TEST;

static Suite *
rtpcc_rrtcc_suite (void)
{
  Suite *s = suite_create ("rtpcc_rrtcc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_loss_rule);
  tcase_add_test (tc, test_tcp_floor);
  tcase_add_test (tc, test_receiver_estimate_bounds_state);
  tcase_add_test (tc, test_no_feedback);
  tcase_add_test (tc, test_no_progress_no_increase);
  return s;
}

GST_CHECK_MAIN (rtpcc_rrtcc);

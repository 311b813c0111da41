/* Unit tests for the target a sender publishes (gst/rtpcc/target.[ch]).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

#define MS(x) RTPCC_MSEC (x)

static gboolean
same (const RtpccTarget * a, const RtpccTarget * b)
{
  return a->target_bitrate == b->target_bitrate
      && a->media_bitrate == b->media_bitrate
      && a->fec_bitrate == b->fec_bitrate && a->pacing_rate == b->pacing_rate
      && a->cwnd == b->cwnd && a->state == b->state && a->reason == b->reason;
}

static RtpccTarget
adjusted (const RtpccTarget * cc, guint64 min, guint64 bytes, RtpccTime age,
    RtpccTime max_delay, const gchar * breaker)
{
  RtpccTarget t = *cc;

  rtpcc_target_for_sender (&t, min, bytes, age, max_delay, breaker);
  return t;
}

static RtpccTarget
controller_target (void)
{
  RtpccTarget t = { 0, };

  t.target_bitrate = 1000000;
  t.media_bitrate = 900000;
  t.fec_bitrate = 100000;
  t.pacing_rate = 1100000;
  t.state = "congestion-avoidance";
  t.reason = "feedback";
  return t;
}

/* A pacer backlog older than the pacer's bound lowers the media target by
 * what drains it in a second, in steps of a 32nd of the target; a short or
 * young queue changes nothing. */
GST_START_TEST (test_backlog)
{
  RtpccTarget cc = controller_target (), t;

  /* nothing queued, or the head younger than max (max_delay, 10 ms) */
  t = adjusted (&cc, 150000, 0, MS (500), MS (100), NULL);
  fail_unless (same (&t, &cc));
  t = adjusted (&cc, 150000, 20000, MS (100), MS (100), NULL);
  fail_unless (same (&t, &cc));
  t = adjusted (&cc, 150000, 20000, MS (10), 0, NULL);
  fail_unless (same (&t, &cc));
  /* 20000 B = 160 kbit/s over the 1 s drain, rounded up to the 31250
   * bit/s step: 187500 */
  t = adjusted (&cc, 150000, 20000, MS (101), MS (100), NULL);
  fail_unless_equals_uint64 (t.media_bitrate, 900000 - 187500);
  fail_unless_equals_uint64 (t.target_bitrate, cc.target_bitrate);
  fail_unless_equals_uint64 (t.pacing_rate, cc.pacing_rate);
  fail_unless_equals_string (t.reason, "sender-backlog");
  fail_unless_equals_string (t.state, cc.state);
  /* never below the minimum (nor raised to it) */
  t = adjusted (&cc, 800000, 20000, MS (200), MS (100), NULL);
  fail_unless_equals_uint64 (t.media_bitrate, 800000);
  cc.media_bitrate = 100000;
  t = adjusted (&cc, 150000, 20000, MS (200), MS (100), NULL);
  fail_unless_equals_uint64 (t.media_bitrate, 100000);
}

GST_END_TEST;

/* A tripped breaker holds everything at the minimum, no FEC or probes,
 * with its state and reason. */
GST_START_TEST (test_breaker)
{
  RtpccTarget cc = controller_target (), t;

  t = adjusted (&cc, 150000, 20000, MS (500), MS (100),
      "congestion");
  fail_unless (t.target_bitrate == 150000 && t.media_bitrate == 150000
      && t.pacing_rate == 150000 && t.fec_bitrate == 0);
  fail_unless_equals_string (t.state, "circuit-breaker");
  fail_unless_equals_string (t.reason, "congestion");
}

GST_END_TEST;

/* The delivery ceiling: the media target is not raised above three times
 * the measured delivery rate (nor the minimum), a higher one is kept, the
 * probe/FEC share is untouched; while feedback contradicts itself the
 * media target may not rise above what it was when that began. */
GST_START_TEST (test_delivery_ceiling)
{
  RtpccTargetCeiling c = { 0, };
  RtpccTarget cc = controller_target (), t;

  /* no measurement (RR only, or no acknowledgement yet): no ceiling */
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, MS (0), 150000, 0, RTPCC_TIME_NONE,
      200000);
  fail_unless (same (&t, &cc));
  /* 200 kbit/s delivered: the media target goes to 600 kbit/s, the target
   * down by as much, pacing in proportion, FEC as it was */
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, MS (0), 150000, 200000,
      RTPCC_TIME_NONE, 300000);
  fail_unless_equals_uint64 (t.media_bitrate, 600000);
  fail_unless_equals_uint64 (t.fec_bitrate, 100000);
  fail_unless_equals_uint64 (t.target_bitrate, 700000);
  fail_unless_equals_uint64 (t.pacing_rate, 1100000 * 7 / 10);
  fail_unless_equals_string (t.reason, "delivery-ceiling");
  fail_unless_equals_string (t.state, cc.state);
  /* a raise only: a media target already published above it stays */
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, MS (0), 150000, 200000,
      RTPCC_TIME_NONE, 800000);
  fail_unless_equals_uint64 (t.media_bitrate, 800000);
  fail_unless_equals_uint64 (t.target_bitrate, 900000);
  /* never below the minimum for it */
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, MS (0), 700000, 1000, RTPCC_TIME_NONE,
      0);
  fail_unless_equals_uint64 (t.media_bitrate, 700000);
  /* under the ceiling: untouched */
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, MS (0), 150000, 300000,
      RTPCC_TIME_NONE, 0);
  fail_unless (same (&t, &cc));

  /* feedback contradicted itself at 1 s, with 400 kbit/s published: for
   * 10 s the media target does not rise above it, whatever is delivered */
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, RTPCC_SEC (1), 150000, 5000000,
      RTPCC_SEC (1), 400000);
  fail_unless_equals_uint64 (t.media_bitrate, 400000);
  fail_unless_equals_string (t.reason, "feedback-contradicts");
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, RTPCC_SEC (9), 150000, 5000000,
      RTPCC_SEC (1), 400000);
  fail_unless_equals_uint64 (t.media_bitrate, 400000);
  /* it may fall */
  t = cc;
  t.media_bitrate = 300000;
  t.target_bitrate = 400000;
  rtpcc_target_apply_ceiling (&t, &c, RTPCC_SEC (9), 150000, 5000000,
      RTPCC_SEC (1), 300000);
  fail_unless_equals_uint64 (t.media_bitrate, 300000);
  /* another contradiction prolongs it, at the same level */
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, RTPCC_SEC (10), 150000, 5000000,
      RTPCC_SEC (10), 300000);
  fail_unless_equals_uint64 (t.media_bitrate, 400000);
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, RTPCC_SEC (19), 150000, 5000000,
      RTPCC_SEC (10), 400000);
  fail_unless_equals_uint64 (t.media_bitrate, 400000);
  /* 10 s after the last one: trusted again */
  t = cc;
  rtpcc_target_apply_ceiling (&t, &c, RTPCC_SEC (20), 150000, 5000000,
      RTPCC_SEC (10), 400000);
  fail_unless (same (&t, &cc));
  fail_if (c.distrust);
}

GST_END_TEST;

/* The media share of the pacing rate a sending buffer drains at. */
GST_START_TEST (test_target_media_pacing_rate)
{
  RtpccTarget t = { 0, };

  t.target_bitrate = 1000000;
  t.media_bitrate = 800000;
  t.fec_bitrate = 200000;
  t.pacing_rate = 1500000;
  fail_unless_equals_uint64 (rtpcc_target_media_pacing_rate (&t), 1200000);
  /* no pacing rate: the target's media share */
  t.pacing_rate = 0;
  fail_unless_equals_uint64 (rtpcc_target_media_pacing_rate (&t), 800000);
  /* all media (or no media figure): the whole pacing rate */
  t.pacing_rate = 1500000;
  t.media_bitrate = 1000000;
  fail_unless_equals_uint64 (rtpcc_target_media_pacing_rate (&t), 1500000);
  t.media_bitrate = 0;
  fail_unless_equals_uint64 (rtpcc_target_media_pacing_rate (&t), 1500000);
  t.target_bitrate = 0;
  t.media_bitrate = 500;
  fail_unless_equals_uint64 (rtpcc_target_media_pacing_rate (&t), 1500000);
}

GST_END_TEST;

/* FEC reserved from the media (max_fec_share): FEC becomes the overhead's
 * part of media + FEC, only what the controller's own FEC share (a probe)
 * lacks moves, the media keeps the minimum, the total and the pacing rate
 * stay. */
GST_START_TEST (test_reserve_fec)
{
  RtpccTarget t = controller_target (), before = t;

  /* no overhead: nothing moves */
  fail_unless_equals_uint64 (rtpcc_target_reserve_fec (&t, 0, 150000), 0);
  fail_unless (same (&t, &before));
  /* a fifth of media + FEC for FEC: 1 Mbit/s × 0.25 / 1.25 */
  fail_unless_equals_uint64 (rtpcc_target_reserve_fec (&t, 0.25, 150000),
      100000);
  fail_unless_equals_uint64 (t.fec_bitrate, 200000);
  fail_unless_equals_uint64 (t.media_bitrate, 800000);
  fail_unless_equals_uint64 (t.target_bitrate, before.target_bitrate);
  fail_unless_equals_uint64 (t.pacing_rate, before.pacing_rate);
  /* the controller's own FEC share covers a smaller overhead */
  t = before;
  fail_unless_equals_uint64 (rtpcc_target_reserve_fec (&t, 0.1, 150000), 0);
  fail_unless (same (&t, &before));
  /* the media keeps its minimum */
  t = before;
  fail_unless_equals_uint64 (rtpcc_target_reserve_fec (&t, 1.0, 850000),
      50000);
  fail_unless_equals_uint64 (t.media_bitrate, 850000);
  fail_unless_equals_uint64 (t.fec_bitrate, 150000);
  t = before;
  t.media_bitrate = 150000;
  fail_unless_equals_uint64 (rtpcc_target_reserve_fec (&t, 1.0, 150000), 0);
}

GST_END_TEST;

static Suite *
rtpcc_target_suite (void)
{
  Suite *s = suite_create ("rtpcc_target");
  TCase *tc = tcase_create ("target");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_backlog);
  tcase_add_test (tc, test_breaker);
  tcase_add_test (tc, test_delivery_ceiling);
  tcase_add_test (tc, test_target_media_pacing_rate);
  tcase_add_test (tc, test_reserve_fec);
  return s;
}

GST_CHECK_MAIN (rtpcc_target);

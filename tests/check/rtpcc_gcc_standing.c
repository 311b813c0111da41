/* Unit tests for gcc's standing-queue drain (gst/rtpcc/cc/gcc/standing.c):
 * which queue counts as standing, how deep the drain cuts, when the next
 * one may come, and what it leaves alone (a queue draining on its own, a
 * base that moved for good).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/standing.h>

#define MS(x) RTPCC_MSEC (x)
/* the receiver's clock runs this far from the sender's */
#define RX_OFFSET RTPCC_SEC (1000)
#define R 1000000.0

/* packets every 10 ms over [@t0, @t1) with a one-way delay of 30 ms plus
 * @q (a function of the send time) */
static void
stream (RtpccGccStanding * s, RtpccTime t0, RtpccTime t1,
    RtpccTime (*q) (RtpccTime))
{
  for (RtpccTime t = t0; t < t1; t += MS (10))
    rtpcc_gcc_standing_add (s, t, t + MS (30) + q (t) + RX_OFFSET);
}

static RtpccTime
q0 (RtpccTime t)
{
  return 0;
}

static RtpccTime
q40 (RtpccTime t)
{
  return MS (40);
}

static RtpccTime
q100 (RtpccTime t)
{
  return MS (100);
}

static RtpccTime
q800 (RtpccTime t)
{
  return MS (800);
}

/* 300 ms at 1 s, falling by 250 ms a second (a backlog the link drains) */
static RtpccTime
q_falling (RtpccTime t)
{
  RtpccTime fall = (t - RTPCC_SEC (1)) / 4;
  return fall < MS (300) ? MS (300) - fall : 0;
}

GST_START_TEST (test_standing_queue_drained)
{
  RtpccGccStanding s;
  gdouble d;

  rtpcc_gcc_standing_init (&s, RTPCC_GCC_STANDING_TARGET);
  stream (&s, 0, RTPCC_SEC (1), q0);
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (1), R) < 0);
  /* 40 ms standing: under the target */
  stream (&s, RTPCC_SEC (1), RTPCC_SEC (2), q40);
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (2), R) < 0);
  /* 100 ms standing, flat: drained within a second, R × (1 − 0.1) */
  stream (&s, RTPCC_SEC (2), RTPCC_SEC (3), q100);
  d = rtpcc_gcc_standing_drain (&s, RTPCC_SEC (3), R);
  fail_unless (fabs (d - 0.9 * R) < 1, "drain to %.0f", d);
  fail_unless_equals_uint64 (s.n_drains, 1);
  /* not again before an interval of packets sent after it has come in */
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (3), R) < 0);
  stream (&s, RTPCC_SEC (3), RTPCC_SEC (3) + MS (150), q100);
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (3) + MS (150),
          R) < 0);
  stream (&s, RTPCC_SEC (3) + MS (150), RTPCC_SEC (4), q100);
  d = rtpcc_gcc_standing_drain (&s, RTPCC_SEC (4), 0.8 * R);
  fail_unless (fabs (d - 0.72 * R) < 1, "drain to %.0f", d);
  /* a deep queue: no deeper than the floor */
  stream (&s, RTPCC_SEC (4), RTPCC_SEC (5), q800);
  d = rtpcc_gcc_standing_drain (&s, RTPCC_SEC (5), R);
  fail_unless (fabs (d - RTPCC_GCC_STANDING_FLOOR * R) < 1, "drain to %.0f",
      d);
  /* off */
  rtpcc_gcc_standing_init (&s, 0);
  stream (&s, 0, RTPCC_SEC (1), q0);
  stream (&s, RTPCC_SEC (1), RTPCC_SEC (2), q100);
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (2), R) < 0);
}

GST_END_TEST;

/* the depth an over-use cut may go to: no target needed, no rate limit
 * on how often (the cut's own timing decides) */
GST_START_TEST (test_cut_depth)
{
  RtpccGccStanding s;
  gdouble d;

  rtpcc_gcc_standing_init (&s, 0);
  fail_unless (rtpcc_gcc_standing_cut (&s, R) < 0);
  stream (&s, 0, RTPCC_SEC (1), q0);
  fail_unless (fabs (rtpcc_gcc_standing_cut (&s, R) - R) < 1);
  /* 40 ms: shallower than beta × R, so a cut at beta leaves it */
  stream (&s, RTPCC_SEC (1), RTPCC_SEC (2), q40);
  d = rtpcc_gcc_standing_cut (&s, R);
  fail_unless (fabs (d - 0.96 * R) < 1, "cut to %.0f", d);
  stream (&s, RTPCC_SEC (2), RTPCC_SEC (3), q100);
  fail_unless (fabs (rtpcc_gcc_standing_cut (&s, R) - 0.9 * R) < 1);
  fail_unless (fabs (rtpcc_gcc_standing_cut (&s, 0.5 * R) - 0.45 * R) < 1);
  stream (&s, RTPCC_SEC (3), RTPCC_SEC (4), q800);
  d = rtpcc_gcc_standing_cut (&s, R);
  fail_unless (fabs (d - RTPCC_GCC_STANDING_FLOOR * R) < 1, "cut to %.0f", d);
  fail_unless_equals_uint64 (s.n_drains, 0);
}

GST_END_TEST;

GST_START_TEST (test_draining_alone)
{
  RtpccGccStanding s;

  /* the backlog an outage leaves falls on its own: no drain, though every
   * interval's minimum stands far above the target */
  rtpcc_gcc_standing_init (&s, RTPCC_GCC_STANDING_TARGET);
  stream (&s, 0, RTPCC_SEC (1), q0);
  for (RtpccTime t = RTPCC_SEC (1); t < RTPCC_SEC (2); t += MS (100)) {
    stream (&s, t, t + MS (100), q_falling);
    fail_unless (rtpcc_gcc_standing_drain (&s, t + MS (100), R) < 0,
        "drained at %" G_GINT64_FORMAT " ms, standing %" G_GINT64_FORMAT
        " ms", (t + MS (100)) / MS (1), s.standing / MS (1));
  }
  /* a restart (the stream paused) forgets the interval: a new one is
   * needed */
  stream (&s, RTPCC_SEC (2), RTPCC_SEC (3), q100);
  rtpcc_gcc_standing_restart (&s);
  stream (&s, RTPCC_SEC (3), RTPCC_SEC (3) + MS (150), q100);
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (3) + MS (150),
          R) < 0);
  stream (&s, RTPCC_SEC (3) + MS (150), RTPCC_SEC (4), q100);
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (4), R) > 0);
}

GST_END_TEST;

/* whether the estimate may grow (queue-hold): not on a queue that stood
 * above the target over the last complete interval, even one falling on
 * its own; the drain's target plays no part */
GST_START_TEST (test_standing_above)
{
  RtpccGccStanding s;
  const RtpccTime target = RTPCC_GCC_STANDING_TARGET;

  rtpcc_gcc_standing_init (&s, 0);
  fail_if (rtpcc_gcc_standing_above (&s, target));
  stream (&s, 0, RTPCC_SEC (1), q0);
  fail_if (rtpcc_gcc_standing_above (&s, target));
  stream (&s, RTPCC_SEC (1), RTPCC_SEC (2), q40);
  fail_if (rtpcc_gcc_standing_above (&s, target));
  stream (&s, RTPCC_SEC (2), RTPCC_SEC (3), q100);
  fail_unless (rtpcc_gcc_standing_above (&s, target));
  fail_if (rtpcc_gcc_standing_above (&s, 0));
  fail_if (rtpcc_gcc_standing_above (&s, MS (150)));
  stream (&s, RTPCC_SEC (3), RTPCC_SEC (4), q40);
  fail_if (rtpcc_gcc_standing_above (&s, target));
  /* the backlog an outage leaves, falling by 250 ms a second: no drain
   * (test_draining_alone), but no growth on it either until it is under
   * the target */
  rtpcc_gcc_standing_init (&s, RTPCC_GCC_STANDING_TARGET);
  stream (&s, 0, RTPCC_SEC (1), q0);
  stream (&s, RTPCC_SEC (1), RTPCC_SEC (1) + MS (500), q_falling);
  fail_unless (s.standing > MS (150));
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (1) + MS (500),
          R) < 0);
  fail_unless (rtpcc_gcc_standing_above (&s, target));
  stream (&s, RTPCC_SEC (1) + MS (500), RTPCC_SEC (3), q_falling);
  fail_if (rtpcc_gcc_standing_above (&s, target));
}

GST_END_TEST;

GST_START_TEST (test_base_moves)
{
  RtpccGccStanding s;

  /* the one-way delay rises by 100 ms for good (a longer route, clock
   * drift): a standing queue at first, the base after two blocks */
  rtpcc_gcc_standing_init (&s, RTPCC_GCC_STANDING_TARGET);
  stream (&s, 0, RTPCC_SEC (1), q0);
  stream (&s, RTPCC_SEC (1), RTPCC_SEC (2), q100);
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (2), R) > 0);
  stream (&s, RTPCC_SEC (2), RTPCC_SEC (32), q100);
  fail_unless (rtpcc_gcc_standing_drain (&s, RTPCC_SEC (32), R) < 0,
      "standing %" G_GINT64_FORMAT " ms", s.standing / MS (1));
  fail_unless (s.standing < MS (1));
}

GST_END_TEST;

static Suite *
rtpcc_gcc_standing_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_standing");
  TCase *tc = tcase_create ("standing");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_standing_queue_drained);
  tcase_add_test (tc, test_cut_depth);
  tcase_add_test (tc, test_draining_alone);
  tcase_add_test (tc, test_standing_above);
  tcase_add_test (tc, test_base_moves);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_standing);

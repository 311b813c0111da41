/* Unit tests for the C-NADU receiver estimate (gst/rtpcc/naduestimator.c):
 * frames judged on time / late / missed against the base delay, the
 * estimate's rule per report, and the NADU block of the model buffer;
 * every expected value computed by hand from the rules.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

/* 25 frames per second, one 1000-byte packet each: 200 kbit/s */
#define FRAME_MS 40
#define TICKS (90 * FRAME_MS)

static gboolean missed;
static guint16 missed_first;
static guint missed_count;

/* Frame @i (seq @i) arriving @delay_ms after its capture time. */
static void
feed (RtpccNaduEstimator * e, guint i, guint delay_ms)
{
  guint16 first;
  guint count;

  if (rtpcc_nadu_estimator_on_packet (e, RTPCC_MSEC (i * FRAME_MS +
              delay_ms), 1000 + i * TICKS, 90000, (guint16) i, 1000, &first,
          &count) && !missed) {
    /* the first frame missed */
    missed = TRUE;
    missed_first = first;
    missed_count = count;
  }
}

static RtpccNaduEstimator *
make (void)
{
  RtpccNaduEstimatorConfig c;

  rtpcc_nadu_estimator_config_init (&c);
  fail_unless (c.playout_delay == RTPCC_MSEC (200));
  return rtpcc_nadu_estimator_new (&c);
}

GST_START_TEST (test_rule)
{
  RtpccNaduEstimator *e = make ();
  const RtpccNaduEstimatorStats *st = rtpcc_nadu_estimator_get_stats (e);

  fail_unless_equals_uint64 (rtpcc_nadu_estimator_evaluate (e, 0), 0);
  /* frames 0..24 on a 50 ms path; the first report takes what came in:
   * 25 × 8000 bits over 1 s (first packet at 50 ms) */
  for (guint i = 0; i < 25; i++)
    feed (e, i, 50);
  fail_unless_equals_uint64 (rtpcc_nadu_estimator_evaluate (e,
          RTPCC_MSEC (1050)), 200000);
  fail_unless_equals_string (st->reason, "initial");
  /* on time: 8 % per second, under 1.5 × 200k + 10k */
  for (guint i = 25; i < 50; i++)
    feed (e, i, 50);
  fail_unless_equals_uint64 (rtpcc_nadu_estimator_evaluate (e,
          RTPCC_MSEC (2050)), 216000);
  fail_unless_equals_string (st->reason, "on-time");
  fail_unless_equals_uint64 (st->frames_late + st->frames_missed, 0);
  /* from frame 60 a queue of 60 ms: over one frame interval (40 ms) but
   * within the playout delay: late; 25 packets over 1050 ms, A = min (A,
   * 190476) */
  for (guint i = 50; i < 75; i++)
    feed (e, i, i < 60 ? 50 : 110);
  fail_unless_equals_uint64 (rtpcc_nadu_estimator_evaluate (e,
          RTPCC_MSEC (3100)), 190476);
  fail_unless_equals_string (st->reason, "late");
  fail_unless (st->frames_late > 0);
  fail_unless_equals_uint64 (st->frames_missed, 0);
  fail_if (missed);
  /* 260 ms over the base: beyond the 200 ms playout delay, missed; the
   * packets of the first such frame (75) reported; 0.85 × 25 × 8000 / 1.2 */
  for (guint i = 75; i < 100; i++)
    feed (e, i, 310);
  fail_unless (missed);
  fail_unless_equals_int (missed_first, 75);
  fail_unless_equals_int (missed_count, 1);
  fail_unless_equals_uint64 (rtpcc_nadu_estimator_evaluate (e,
          RTPCC_MSEC (4300)), 141666);
  fail_unless_equals_string (st->reason, "missed");
  /* nothing new: idle, A kept */
  fail_unless_equals_uint64 (rtpcc_nadu_estimator_evaluate (e,
          RTPCC_MSEC (5300)), 141666);
  fail_unless_equals_string (st->reason, "idle");
  rtpcc_nadu_estimator_free (e);
}

GST_END_TEST;

/* On time but the estimate far above what comes in: it does not grow
 * beyond 1.5 R + 10 kbit/s, nor is it cut. */
GST_START_TEST (test_growth_cap)
{
  RtpccNaduEstimator *e = make ();
  guint64 a;

  for (guint i = 0; i < 25; i++)
    feed (e, i, 50);
  rtpcc_nadu_estimator_evaluate (e, RTPCC_MSEC (1050));
  /* ten seconds on time: 200k × 1.08^n until the cap of 310k */
  for (guint s = 1; s <= 10; s++) {
    for (guint i = 25 * s; i < 25 * (s + 1); i++)
      feed (e, i, 50);
    a = rtpcc_nadu_estimator_evaluate (e, RTPCC_MSEC (1050 + 1000 * s));
  }
  fail_unless_equals_uint64 (a, 310000);
  rtpcc_nadu_estimator_free (e);
}

GST_END_TEST;

/* A queue of 100 ms that never drains (a TCP flow holds it): late frames
 * hold A for the detector's 5 s, then A grows as if on time; 10 s on, the
 * normal rule has one report (the drain); once the base window has
 * forgotten the empty queue (10-20 s) the frames are on time, and the
 * next drain, seeing them under 15 ms, ends the competitor. */
GST_START_TEST (test_competitor)
{
  RtpccNaduEstimator *e = make ();
  const RtpccNaduEstimatorStats *st = rtpcc_nadu_estimator_get_stats (e);
  guint64 a, prev = 0;
  guint sec;

  for (guint i = 0; i < 25; i++)
    feed (e, i, 50);
  rtpcc_nadu_estimator_evaluate (e, RTPCC_MSEC (1050));
  for (sec = 1; sec < 40; sec++) {
    for (guint i = 25 * sec; i < 25 * (sec + 1); i++)
      feed (e, i, 150);
    a = rtpcc_nadu_estimator_evaluate (e, RTPCC_MSEC (1200 + 1000 * sec));
    /* the queue first counts at frame 25 (1150 ms): 5 s on at 6200 ms */
    if (sec < 5 || sec == 15) {
      fail_unless_equals_string (st->reason, "late");
      fail_unless (a <= prev || sec == 1);
    } else if (sec < 20) {
      fail_unless_equals_string (st->reason, "competitor");
      fail_unless (st->competing);
      fail_unless (a >= prev || sec == 16);
    } else {
      fail_unless_equals_string (st->reason, "on-time");
    }
    prev = a;
  }
  fail_if (st->competing);
  rtpcc_nadu_estimator_free (e);
}

GST_END_TEST;

/* The model buffer plays frame i at base + T(i) + 200 ms: at 1050 ms the
 * oldest not yet due is frame 21 (due 50 + 840 + 200 = 1090), 40 ms
 * ahead. Long after the last frame nothing waits: "not defined", and the
 * next sequence number expected. */
GST_START_TEST (test_nadu_block)
{
  RtpccNaduEstimator *e = make ();
  RtpccNaduBlock b;

  fail_if (rtpcc_nadu_estimator_fill_block (e, 0, &b));
  for (guint i = 0; i < 25; i++)
    feed (e, i, 50);
  fail_unless (rtpcc_nadu_estimator_fill_block (e, RTPCC_MSEC (1050), &b));
  fail_unless_equals_int (b.playout_delay, 40);
  fail_unless_equals_int (b.nsn, 21);
  fail_unless_equals_int (b.nun, 0);
  fail_unless (rtpcc_nadu_estimator_fill_block (e, RTPCC_SEC (5), &b));
  fail_unless_equals_int (b.playout_delay, RTPCC_NADU_DELAY_UNSET);
  fail_unless_equals_int (b.nsn, 25);
  rtpcc_nadu_estimator_free (e);
}

GST_END_TEST;

/* A packet of a frame already judged is counted, not judged again; bad
 * configs are refused. */
GST_START_TEST (test_reordered_and_config)
{
  RtpccNaduEstimator *e = make ();
  RtpccNaduEstimatorConfig c;
  guint16 f;
  guint count;

  feed (e, 0, 50);
  feed (e, 1, 50);
  feed (e, 2, 50);
  fail_if (rtpcc_nadu_estimator_on_packet (e, RTPCC_MSEC (200), 1000, 90000,
          0, 1000, &f, &count));
  fail_unless_equals_uint64 (rtpcc_nadu_estimator_get_stats (e)->reordered,
      1);
  /* a clock rate of 0 is not a packet */
  fail_if (rtpcc_nadu_estimator_on_packet (e, RTPCC_MSEC (200), 1000, 0, 3,
          1000, &f, &count));
  fail_unless_equals_uint64 (rtpcc_nadu_estimator_get_stats (e)->packets, 4);
  rtpcc_nadu_estimator_free (e);

  rtpcc_nadu_estimator_config_init (&c);
  c.playout_delay = 0;
  fail_unless (rtpcc_nadu_estimator_new (&c) == NULL);
  rtpcc_nadu_estimator_config_init (&c);
  c.min_bitrate = c.max_bitrate + 1;
  fail_unless (rtpcc_nadu_estimator_new (&c) == NULL);
  fail_unless (rtpcc_nadu_estimator_new (NULL) == NULL);
}

GST_END_TEST;

static Suite *
rtpcc_nadu_estimator_suite (void)
{
  Suite *s = suite_create ("rtpcc_nadu_estimator");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rule);
  tcase_add_test (tc, test_growth_cap);
  tcase_add_test (tc, test_competitor);
  tcase_add_test (tc, test_nadu_block);
  tcase_add_test (tc, test_reordered_and_config);
  return s;
}

GST_CHECK_MAIN (rtpcc_nadu_estimator);

/* Unit tests for the playout buffer's per-path delay estimator
 * (gst/rtpcc/playout/path.[ch]): the history window, the floor (level),
 * the percentile of the deviations over it, detrending, and the late-rate
 * controller's steps and episodes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/playout/path.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)

static void
config (RtpccPlayoutConfig * c)
{
  rtpcc_playout_config_init (c);
  c->window = RTPCC_SEC (2);
  c->level_window = RTPCC_SEC (1);
  c->window_packets = 500;
  c->percentile = 90.0;
}

/* The floor follows a step down at once and a step up after level_window;
 * the history keeps window (time) and window_packets at most. */
GST_START_TEST (test_level_and_window)
{
  RtpccPlayoutConfig c;
  RtpccPlayoutPath path;
  RtpccTime now = 0;

  config (&c);
  rtpcc_playout_path_init (&path, 100);
  for (guint i = 0; i < 50; i++, now += MS (10))
    rtpcc_playout_path_add (&path, &c, now, MS (40) + MS (i % 5), 0.0);
  fail_unless_equals_float (rtpcc_playout_path_level (&path, &c, now), MS (40));
  /* down: at once */
  rtpcc_playout_path_add (&path, &c, now, MS (30), 0.0);
  fail_unless_equals_float (rtpcc_playout_path_level (&path, &c, now), MS (30));
  /* up: only once the lower samples are older than level_window */
  for (guint i = 0; i < 150; i++) {
    now += MS (10);
    rtpcc_playout_path_add (&path, &c, now, MS (60), 0.0);
    if (i < 90)
      fail_unless_equals_float (rtpcc_playout_path_level (&path, &c, now),
          MS (30));
  }
  fail_unless_equals_float (rtpcc_playout_path_level (&path, &c, now), MS (60));
  /* 100 packets at most */
  fail_unless_equals_int (path.len, 100);
  fail_unless (path.active);
  fail_unless_equals_int (path.last_arrival, now);
  rtpcc_playout_path_clear (&path);
}

GST_END_TEST;

/* The percentile of the deviations over the floor; the largest while the
 * history is short. */
GST_START_TEST (test_percentile)
{
  RtpccPlayoutConfig c;
  RtpccPlayoutPath path;
  RtpccTime now = 0;

  config (&c);
  rtpcc_playout_path_init (&path, 500);
  /* deviations 0..9 ms, floor at 20 ms from the first sample */
  for (guint i = 0; i < 5; i++, now += MS (10))
    rtpcc_playout_path_add (&path, &c, now, MS (20) + MS (2 * i), 0.0);
  fail_unless_equals_float (rtpcc_playout_path_percentile (&path, &c), MS (8));
  for (guint i = 0; i < 95; i++, now += MS (10))
    rtpcc_playout_path_add (&path, &c, now, MS (20) + MS (i % 10), 0.0);
  /* 100 samples: the 90th of 0..9 ms (10 each, first five 0/2/4/6/8) */
  fail_unless_equals_float (rtpcc_playout_path_percentile (&path, &c), MS (8));
  fail_unless_equals_float (rtpcc_playout_path_lowest_dev (&path), 0.0);
  c.percentile = 100.0;
  fail_unless_equals_float (rtpcc_playout_path_percentile (&path, &c), MS (9));
  rtpcc_playout_path_clear (&path);
}

GST_END_TEST;

/* A new slope detrends the history and the floors kept. */
GST_START_TEST (test_detrend)
{
  RtpccPlayoutConfig c;
  RtpccPlayoutPath path;

  config (&c);
  rtpcc_playout_path_init (&path, 10);
  rtpcc_playout_path_add (&path, &c, RTPCC_SEC (1), MS (40), 0.0);
  rtpcc_playout_path_add (&path, &c, RTPCC_SEC (2), MS (41), 0.0);
  path.level = MS (40);
  rtpcc_playout_path_detrend (&path, 1e-3, 0.0, RTPCC_SEC (2));
  fail_unless_equals_float (path.ring[path.head].r, MS (40) - MS (1));
  fail_unless_equals_float (path.ring[(path.head + 1) % 10].r, MS (41) -
      MS (2));
  fail_unless_equals_float (path.level, MS (40) - MS (2));
  rtpcc_playout_path_clear (&path);
}

GST_END_TEST;

/* The controller: seeded by the percentile for the warm-up, then a late
 * packet raises the margin by a step (1/32 of it), one on time lowers it
 * by step·p/(1−p); a late packet far out jumps the floor (an episode) and
 * one back near the old floor ends it. */
GST_START_TEST (test_controller)
{
  RtpccPlayoutConfig c;
  RtpccPlayoutPath path;
  RtpccTime now = 0;
  gdouble m, p = 0.005;

  config (&c);
  c.late_target = 100.0 * p;
  rtpcc_playout_path_init (&path, 500);
  for (guint i = 0; i < RTPCC_PLAYOUT_CTRL_WARMUP; i++, now += MS (10)) {
    RtpccTime d = MS (30) + MS (i % 20);

    rtpcc_playout_path_add (&path, &c, now, d, 0.0);
    rtpcc_playout_path_track (&path, &c, now, (gdouble) d, FALSE, 0.0);
    fail_if (rtpcc_playout_path_controlled (&path, &c));
  }
  fail_unless_equals_float (path.margin,
      rtpcc_playout_path_percentile (&path, &c));
  fail_unless_equals_float (path.level, MS (30));

  /* on time: down by step·p/(1−p) */
  m = path.margin;
  rtpcc_playout_path_add (&path, &c, now, MS (35), 0.0);
  rtpcc_playout_path_track (&path, &c, now, MS (35), FALSE, 0.0);
  fail_unless (rtpcc_playout_path_controlled (&path, &c));
  fail_unless (fabs (path.margin - (m - m / 32.0 * p / (1.0 - p))) < 1e-6);
  /* late by a hair: up by a step, no episode */
  now += MS (10);
  m = path.margin;
  rtpcc_playout_path_add (&path, &c, now, MS (50), 0.0);
  rtpcc_playout_path_track (&path, &c, now, MS (50), TRUE, 1000.0);
  fail_unless (fabs (path.margin - (m + m / 32.0)) < 1e-6);
  fail_if (path.episode);
  /* late far out (a spike): the floor jumps to its delay */
  now += MS (1000);
  rtpcc_playout_path_add (&path, &c, now, MS (150), 0.0);
  rtpcc_playout_path_track (&path, &c, now, MS (150), TRUE, (gdouble) MS (80));
  fail_unless (path.episode);
  fail_unless_equals_float (path.level, MS (150));
  fail_unless_equals_float (path.level_pre, MS (30));
  /* back below the middle: over */
  now += MS (10);
  rtpcc_playout_path_add (&path, &c, now, MS (60), 0.0);
  rtpcc_playout_path_track (&path, &c, now, MS (60), FALSE, 0.0);
  fail_if (path.episode);
  fail_unless (path.level <= MS (60));
  rtpcc_playout_path_clear (&path);
}

GST_END_TEST;

/* The floor over a span comes from a monotonic queue of the samples; it is
 * exactly what scanning the history back from the newest sample gave (the
 * computation before), over random delays, gaps, evictions by time and by
 * count, spans, and new drift slopes. */
static gdouble
scan_floor (const RtpccPlayoutPath * s, const RtpccPlayoutConfig * c,
    RtpccTime now, RtpccTime since)
{
  gdouble level = G_MAXDOUBLE;

  for (guint k = s->len; k > 0; k--) {
    const RtpccPlayoutSample *x = &s->ring[(s->head + k - 1) % s->cap];

    if (k < s->len && (now - x->t > c->level_window || (since !=
                RTPCC_TIME_NONE && x->t < since)))
      break;
    level = MIN (level, x->r);
  }
  return level;
}

GST_START_TEST (test_floor_same_as_scan)
{
  for (guint run = 0; run < 12; run++) {
    RtpccPlayoutConfig c;
    RtpccPlayoutPath path;
    RtpccRng rng;
    RtpccTime now = 0;
    gdouble slope = 0.0;

    config (&c);
    rtpcc_rng_init (&rng, 50 + run);
    c.level_window = MS (20 + rtpcc_rng_below (&rng, 2000));
    c.window = MS (100 + rtpcc_rng_below (&rng, 4000));
    rtpcc_playout_path_init (&path, 20 + rtpcc_rng_below (&rng, 480));
    for (guint i = 0; i < 10000; i++) {
      RtpccTime d = MS (20) + (RtpccTime) rtpcc_rng_below (&rng, MS (50));
      RtpccTime since;

      now += (RtpccTime) rtpcc_rng_below (&rng, MS (run % 2 ? 30 : 3));
      if (rtpcc_rng_bernoulli (&rng, 0.1))
        d = MS (20);            /* ties */
      rtpcc_playout_path_add (&path, &c, now, d, slope);
      if (rtpcc_rng_bernoulli (&rng, 0.002)) {
        gdouble old = slope;

        slope = rtpcc_rng_uniform (&rng, -1e-3, 1e-3);
        rtpcc_playout_path_detrend (&path, slope, old, now);
      }
      fail_unless (rtpcc_playout_path_level (&path, &c, now) ==
          scan_floor (&path, &c, now, RTPCC_TIME_NONE), "run %u sample %u",
          run, i);
      since = now - (RtpccTime) rtpcc_rng_below (&rng, RTPCC_SEC (3));
      fail_unless (rtpcc_playout_path_floor (&path, &c, now, since) ==
          scan_floor (&path, &c, now, since), "run %u sample %u", run, i);
    }
    rtpcc_playout_path_clear (&path);
  }
}

GST_END_TEST;

static Suite *
rtpcc_playout_path_suite (void)
{
  Suite *s = suite_create ("rtpcc_playout_path");
  TCase *tc = tcase_create ("path");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_level_and_window);
  tcase_add_test (tc, test_percentile);
  tcase_add_test (tc, test_detrend);
  tcase_add_test (tc, test_controller);
  tcase_add_test (tc, test_floor_same_as_scan);
  return s;
}

GST_CHECK_MAIN (rtpcc_playout_path);

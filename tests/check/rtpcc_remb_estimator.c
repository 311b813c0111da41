/* The receiver-side estimate for REMB (gst/rtpcc/rembestimator.c): frames
 * grouped by RTP timestamp, the estimate grows on a free path and is cut
 * to beta × the incoming rate when a queue builds, and a REMB is due once
 * per second or at once after a cut.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rembestimator.h>
#include <stdio.h>

#define MS(x) RTPCC_MSEC (x)
#define CLOCK 90000

/* A sender of @fps frames of @per_frame packets of @size bytes, at
 * @send_bps (the frame's packets leave back to back at that rate), through
 * a link of @cap_bps (0 = unlimited) and 20 ms one-way delay, for
 * @seconds; the receiver feeds each arrival to @e in order. Returns the
 * time of the last arrival. */
static RtpccTime
run (RtpccRembEstimator * e, RtpccTime t0, gdouble seconds, guint fps,
    guint per_frame, guint size, guint64 cap_bps, guint32 * ts)
{
  RtpccTime link_free = t0, last = t0;
  guint frames = (guint) (seconds * fps);

  for (guint f = 0; f < frames; f++) {
    RtpccTime send = t0 + (RtpccTime) f * RTPCC_SEC (1) / fps;

    for (guint k = 0; k < per_frame; k++) {
      RtpccTime at = send + (RtpccTime) k * MS (1);

      if (cap_bps) {
        RtpccTime start = MAX (at, link_free);
        link_free = start + (RtpccTime) (size * 8.0 * RTPCC_SEC (1) /
            cap_bps);
        at = link_free;
      }
      last = at + MS (20);
      rtpcc_remb_estimator_on_packet (e, last, *ts, CLOCK, size);
    }
    *ts += CLOCK / fps;
  }
  return last;
}

static RtpccRembEstimator *
estimator (guint64 start)
{
  RtpccRembEstimatorConfig c;

  rtpcc_remb_estimator_config_init (&c);
  c.start_bitrate = start;
  return rtpcc_remb_estimator_new (&c);
}

/* 1.2 Mbit/s (30 fps × 5 × 1000 B) over an unlimited path: no over-use,
 * the estimate grows from 300 kbit/s. */
GST_START_TEST (test_free_path_grows)
{
  RtpccRembEstimator *e = estimator (300000);
  const RtpccRembEstimatorStats *st;
  guint32 ts = 1234;

  run (e, RTPCC_SEC (1), 10.0, 30, 5, 1000, 0, &ts);
  st = rtpcc_remb_estimator_get_stats (e);
  fail_unless_equals_uint64 (st->packets, 1500);
  /* one group per frame: the samples are between consecutive frames */
  fail_unless (st->groups >= 290 && st->groups <= 300, "%" G_GUINT64_FORMAT,
      st->groups);
  fail_unless_equals_uint64 (st->overuses, 0);
  fail_unless_equals_uint64 (st->decreases, 0);
  fail_unless (st->estimate > 600000, "%" G_GUINT64_FORMAT, st->estimate);
  fail_unless (st->incoming > 1100000 && st->incoming < 1300000,
      "%" G_GUINT64_FORMAT, st->incoming);
  rtpcc_remb_estimator_free (e);
}

GST_END_TEST;

/* The same stream into a 600 kbit/s link: the queue grows by 600 kbit/s,
 * the detector fires, and the estimate is cut to about beta (0.85) × the
 * 600 kbit/s that arrive. */
GST_START_TEST (test_queue_cuts_to_incoming)
{
  RtpccRembEstimator *e = estimator (2000000);
  const RtpccRembEstimatorStats *st;
  guint32 ts = 0;
  RtpccTime end;

  end = run (e, RTPCC_SEC (1), 3.0, 30, 5, 1000, 600000, &ts);
  st = rtpcc_remb_estimator_get_stats (e);
  fail_unless (st->overuses >= 1);
  fail_unless (st->decreases >= 1);
  fail_unless (st->incoming > 550000 && st->incoming < 650000,
      "%" G_GUINT64_FORMAT, st->incoming);
  fail_unless (st->estimate >= 0.85 * 0.85 * 600000
      && st->estimate <= 0.9 * 650000, "%" G_GUINT64_FORMAT, st->estimate);
  /* the first REMB is due with the first packet; after one at 2 Mbit/s,
   * the cut makes the next due at once */
  fail_unless (rtpcc_remb_estimator_due (e, end));
  rtpcc_remb_estimator_sent (e, end, 2000000);
  fail_unless (rtpcc_remb_estimator_due (e, end));
  rtpcc_remb_estimator_sent (e, end, st->estimate);
  fail_if (rtpcc_remb_estimator_due (e, end + MS (999)));
  fail_unless (rtpcc_remb_estimator_due (e, end + RTPCC_SEC (1)));
  fail_unless_equals_int64 (rtpcc_remb_estimator_next_due (e),
      end + RTPCC_SEC (1));
  fail_unless_equals_uint64 (st->sent, 2);
  rtpcc_remb_estimator_free (e);
}

GST_END_TEST;

/* The arrivals of a real-time RFC 8867 5.1 run around its capacity drop
 * (tests/check/data/remb-overflow.txt): the 300 ms queue overflows at
 * 60 s and has drained at 62.6 s, after which the media arrive with a
 * flat delay. The estimate is cut during the overflow and must stop
 * falling once the queue is gone. When the filter learnt its noise during
 * the overflow too, its trend stayed above the threshold for 8 s and the
 * estimate was cut every 100 ms, from 490 kbit/s to its 30 kbit/s floor
 * (55 cuts by 69 s; 12 with the noise held). */
GST_START_TEST (test_real_overflow_then_drain)
{
  RtpccRembEstimator *e = estimator (1500000);
  const RtpccRembEstimatorStats *st = rtpcc_remb_estimator_get_stats (e);
  gchar *path = g_build_filename (g_getenv ("RTPCC_SOURCE_ROOT") ?
      g_getenv ("RTPCC_SOURCE_ROOT") : ".", "tests", "check", "data",
      "remb-overflow.txt", NULL);
  gchar *text = NULL, **lines;
  guint64 cuts_at_64 = 0, est_at_64 = 0, n = 0;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "%s", path);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++) {
    guint64 us;
    guint32 ts;
    guint size;

    if (lines[i][0] == '#' || sscanf (lines[i], "%" G_GUINT64_FORMAT
            " %u %u", &us, &ts, &size) != 3)
      continue;
    if (us >= 64000000 && cuts_at_64 == 0) {
      cuts_at_64 = st->decreases;
      est_at_64 = st->estimate;
    }
    rtpcc_remb_estimator_on_packet (e, (RtpccTime) us * 1000, ts, CLOCK,
        size + 12);
    n++;
  }
  fail_unless (n > 2000);
  /* cut in the overflow ... */
  fail_unless (cuts_at_64 >= 2 && est_at_64 < 700000, "%" G_GUINT64_FORMAT
      " cuts, %" G_GUINT64_FORMAT, cuts_at_64, est_at_64);
  /* ... and not after it: the drain was over by 62.6 s */
  fail_unless_equals_uint64 (st->decreases, cuts_at_64);
  fail_unless (st->estimate >= est_at_64, "%" G_GUINT64_FORMAT,
      st->estimate);
  g_strfreev (lines);
  g_free (text);
  g_free (path);
  rtpcc_remb_estimator_free (e);
}

GST_END_TEST;

GST_START_TEST (test_due_and_input)
{
  RtpccRembEstimatorConfig c;
  RtpccRembEstimator *e;

  rtpcc_remb_estimator_config_init (&c);
  c.interval = 0;
  fail_unless (rtpcc_remb_estimator_new (&c) == NULL);
  rtpcc_remb_estimator_config_init (&c);
  c.min_bitrate = c.max_bitrate + 1;
  fail_unless (rtpcc_remb_estimator_new (&c) == NULL);
  rtpcc_remb_estimator_config_init (&c);
  c.decrease = 1.0;
  fail_unless (rtpcc_remb_estimator_new (&c) == NULL);
  fail_unless (rtpcc_remb_estimator_new (NULL) == NULL);

  e = estimator (500000);
  /* nothing seen: nothing to say */
  fail_if (rtpcc_remb_estimator_due (e, RTPCC_SEC (5)));
  fail_unless_equals_int64 (rtpcc_remb_estimator_next_due (e),
      RTPCC_TIME_NONE);
  fail_unless_equals_uint64 (rtpcc_remb_estimator_get_estimate (e), 500000);
  /* no clock rate: ignored */
  rtpcc_remb_estimator_on_packet (e, RTPCC_SEC (1), 0, 0, 100);
  fail_unless_equals_uint64 (rtpcc_remb_estimator_get_stats (e)->packets, 0);
  rtpcc_remb_estimator_on_packet (e, RTPCC_SEC (1), 9000, CLOCK, 100);
  fail_unless (rtpcc_remb_estimator_due (e, RTPCC_SEC (1)));
  /* an older frame's packet after a newer one: counted, no sample */
  rtpcc_remb_estimator_on_packet (e, RTPCC_SEC (1) + MS (1), 6000, CLOCK,
      100);
  fail_unless_equals_uint64 (rtpcc_remb_estimator_get_stats (e)->reordered,
      1);
  rtpcc_remb_estimator_free (e);

  /* a timestamp wrap is a step forward, not back */
  e = estimator (500000);
  for (guint i = 0; i < 4; i++)
    rtpcc_remb_estimator_on_packet (e, RTPCC_SEC (1) + i * MS (33),
        0xfffff000u + i * 3000, CLOCK, 100);
  fail_unless_equals_uint64 (rtpcc_remb_estimator_get_stats (e)->reordered,
      0);
  fail_unless_equals_uint64 (rtpcc_remb_estimator_get_stats (e)->groups, 2);
  rtpcc_remb_estimator_free (e);
  rtpcc_remb_estimator_free (NULL);
}

GST_END_TEST;

static Suite *
rtpcc_remb_estimator_suite (void)
{
  Suite *s = suite_create ("rtpcc_remb_estimator");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_free_path_grows);
  tcase_add_test (tc, test_queue_cuts_to_incoming);
  tcase_add_test (tc, test_real_overflow_then_drain);
  tcase_add_test (tc, test_due_and_input);
  return s;
}

GST_CHECK_MAIN (rtpcc_remb_estimator);

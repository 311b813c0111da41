/* Unit tests for gcc's free-path tracker (gst/rtpcc/cc/gcc/freepath.c):
 * when the path counts as free, what ends it, and what does not count as
 * queue (the pacer's back-to-back pairs, the feedback's rounding, a big
 * packet's own transmission time).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/freepath.h>

#define MS(x) RTPCC_MSEC (x)
#define US(x) RTPCC_USEC (x)
/* 1200 bytes at 1 Mbit/s: a pacing interval of 9.6 ms */
#define PACING 1000000

/* one packet sent at @send, @owd one way, reported 20 ms after arrival */
static void
packet (RtpccGccFreePath * f, RtpccTime send, RtpccTime owd, guint size,
    RtpccTime resolution)
{
  RtpccPacketReport r = { 0 };

  r.send_time = send;
  r.arrival = send + owd;
  r.size = size;
  r.received = TRUE;
  rtpcc_gcc_free_path_track (f, r.arrival + MS (20), &r, resolution, PACING);
}

/* packets every 10 ms over [@t0, @t1), updating every 100 ms; TRUE if the
 * path was free at the end */
static gboolean
steady (RtpccGccFreePath * f, RtpccTime t0, RtpccTime t1, RtpccTime owd,
    RtpccTime resolution)
{
  gboolean free = FALSE;

  for (RtpccTime t = t0; t < t1; t += MS (10)) {
    packet (f, t, owd, 1200, resolution);
    if ((t - t0) % MS (100) == 0)
      free = rtpcc_gcc_free_path_update (f, t + owd + MS (20));
  }
  return free;
}

GST_START_TEST (test_free_after_quiet)
{
  RtpccGccFreePath f;

  rtpcc_gcc_free_path_init (&f);
  fail_unless (rtpcc_gcc_free_path_quiet_time (&f, MS (100)) == -1);
  fail_if (rtpcc_gcc_free_path_update (&f, MS (100)));
  /* the first packet counts as a queue (nothing is known yet): free 800 ms
   * after it was reported, at the first update from then on */
  packet (&f, 0, MS (30), 1200, 0);
  fail_unless (f.last_queue == MS (50));
  fail_unless (rtpcc_gcc_free_path_quiet_time (&f, MS (800)) == MS (750));
  fail_if (steady (&f, MS (10), MS (800), MS (30), 0));
  fail_unless (steady (&f, MS (800), MS (1000), MS (30), 0));
  fail_unless (f.free_since == MS (850), "%" G_GINT64_FORMAT, f.free_since);
  /* a queue of 6 ms on a paced packet ends it at the next update */
  packet (&f, MS (1000), MS (36), 1200, 0);
  fail_unless (rtpcc_gcc_free_path_quiet_time (&f, MS (1056)) == 0);
  fail_if (rtpcc_gcc_free_path_update (&f, MS (1100)));
  /* and it takes another 800 ms without one to start again */
  fail_if (steady (&f, MS (1010), MS (1800), MS (30), 0));
  fail_unless (steady (&f, MS (1800), MS (2000), MS (30), 0));

  /* free-time 0: never free */
  rtpcc_gcc_free_path_init (&f);
  f.free_time = 0;
  fail_if (steady (&f, 0, RTPCC_SEC (3), MS (30), 0));
}

GST_END_TEST;

GST_START_TEST (test_not_queue)
{
  RtpccGccFreePath f;

  rtpcc_gcc_free_path_init (&f);
  fail_unless (steady (&f, 0, RTPCC_SEC (1), MS (30), 0));
  /* sent 0.3 ms after the previous packet (the pacer's burst credit): it
   * waited 9.6 ms behind it at the bottleneck, which is not a queue */
  packet (&f, RTPCC_SEC (1), MS (30), 1200, 0);
  packet (&f, RTPCC_SEC (1) + US (300), MS (39), 1200, 0);
  fail_unless (rtpcc_gcc_free_path_update (&f, RTPCC_SEC (2)));

  /* a 100-byte packet has its own minimum: the big ones' transmission
   * time does not read as queue against it ... */
  rtpcc_gcc_free_path_init (&f);
  for (RtpccTime t = 0; t < RTPCC_SEC (1); t += MS (20)) {
    packet (&f, t, MS (30), 100, 0);
    packet (&f, t + MS (10), MS (40), 1200, 0);
  }
  fail_unless (rtpcc_gcc_free_path_update (&f, MS (1100)));
  /* ... unless the minimum is over all packets (queue-test=all) */
  rtpcc_gcc_free_path_init (&f);
  f.by_size = FALSE;
  for (RtpccTime t = 0; t < RTPCC_SEC (1); t += MS (20)) {
    packet (&f, t, MS (30), 100, 0);
    packet (&f, t + MS (10), MS (40), 1200, 0);
  }
  fail_if (rtpcc_gcc_free_path_update (&f, MS (1100)));
  fail_unless (rtpcc_gcc_free_path_quiet_time (&f, MS (1100)) == MS (50));
}

GST_END_TEST;

GST_START_TEST (test_rounding)
{
  RtpccGccFreePath f;

  /* arrivals in 1 ms units: 6 ms above the minimum is within two units of
   * the 5 ms threshold, so it does not delay the start ... */
  rtpcc_gcc_free_path_init (&f);
  packet (&f, 0, MS (30), 1200, MS (1));
  packet (&f, MS (500), MS (36), 1200, MS (1));
  fail_unless (rtpcc_gcc_free_path_quiet_time (&f, MS (1000)) == MS (950));
  /* 7.5 ms does */
  packet (&f, MS (600), US (37500), 1200, MS (1));
  fail_unless (rtpcc_gcc_free_path_quiet_time (&f, MS (1000)) == MS (342) +
      US (500));

  /* ... but once free, 6 ms ends the climb, and counts as a queue for the
   * next start */
  rtpcc_gcc_free_path_init (&f);
  fail_unless (steady (&f, 0, RTPCC_SEC (1), MS (30), MS (1)));
  packet (&f, RTPCC_SEC (1), MS (36), 1200, MS (1));
  fail_if (rtpcc_gcc_free_path_update (&f, MS (1100)));
  fail_unless (rtpcc_gcc_free_path_quiet_time (&f, MS (1100)) == MS (44));
}

GST_END_TEST;

static Suite *
rtpcc_gcc_freepath_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_freepath");
  TCase *tc = tcase_create ("freepath");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_free_after_quiet);
  tcase_add_test (tc, test_not_queue);
  tcase_add_test (tc, test_rounding);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_freepath);

/* Unit tests for gcc's packet grouping (gst/rtpcc/cc/gcc/grouper.c):
 * send-time groups, arrival bursts and a key frame, against d(i) computed by
 * hand from draft-ietf-rmcat-gcc-02 §5.2.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/grouper.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)
#define US(x) RTPCC_USEC (x)
/* the receiver's clock offset, unknown to the controller */
#define RX_OFFSET RTPCC_SEC (4321)

GST_START_TEST (test_grouping_burst_time)
{
  RtpccGccGrouper g;
  RtpccGccDelta d;
  RtpccTime base = RX_OFFSET;

  rtpcc_gcc_grouper_init (&g, MS (5));
  /* group 1: sent at 0..5 ms (5 ms from the first is still in) */
  for (gint i = 0; i <= 5; i++)
    fail_if (rtpcc_gcc_grouper_add (&g, MS (i), base + MS (20 + i), 100, &d));
  fail_unless (g.cur.n_packets == 6);
  /* 5.1 ms: a new group; no delta yet (group 1 has no predecessor) */
  fail_if (rtpcc_gcc_grouper_add (&g, US (5100), base + MS (26), 100, &d));
  fail_unless (g.prev.n_packets == 6 && g.cur.n_packets == 1);
  fail_unless (g.n_groups == 1);
  for (gint i = 6; i <= 10; i++)
    fail_if (rtpcc_gcc_grouper_add (&g, MS (i), base + MS (21 + i), 100, &d));
  /* 11 ms closes group 2 (last sent 10 ms, arrived 31 ms):
   * d = (31 − 25) − (10 − 5) = +1 ms */
  fail_unless (rtpcc_gcc_grouper_add (&g, MS (11), base + MS (32), 100, &d));
  fail_unless (d.send_delta == 5.0 && d.arrival_delta == 6.0 && d.d == 1.0);
  fail_unless (d.n_packets == 6 && d.bytes == 600);
  fail_unless (d.arrival == base + MS (31));

  /* reordered (sent before the current group began): ignored */
  fail_if (rtpcc_gcc_grouper_add (&g, MS (3), base + MS (40), 100, &d));
  fail_unless (g.cur.n_packets == 1);
}

GST_END_TEST;

GST_START_TEST (test_grouping_arrival_burst)
{
  RtpccGccGrouper g;
  RtpccGccDelta d;

  /* packets sent 10 ms apart; after an outage the queue is released and
   * they arrive 1.5 ms apart (each ≤ 5 ms after the previous one, earlier
   * than its send spacing): one group, as libwebrtc merges them */
  rtpcc_gcc_grouper_init (&g, MS (5));
  fail_if (rtpcc_gcc_grouper_add (&g, MS (0), MS (300), 1000, &d));
  for (gint i = 1; i < 10; i++)
    fail_if (rtpcc_gcc_grouper_add (&g, MS (10 * i), MS (300) + US (1500) * i,
            1000, &d));
  fail_unless (g.cur.n_packets == 10 && g.n_bursts == 9);
  /* quantised arrivals: 1 ms less than the send spacing is rounding, not a
   * burst (CCFB ticks are 0.977 ms) */
  rtpcc_gcc_grouper_init (&g, MS (5));
  fail_if (rtpcc_gcc_grouper_add (&g, MS (0), MS (100), 1000, &d));
  fail_if (rtpcc_gcc_grouper_add (&g, US (3800), MS (103), 1000, &d));
  fail_if (rtpcc_gcc_grouper_add (&g, US (7600), MS (106), 1000, &d));
  fail_unless (g.n_bursts == 0 && g.prev.n_packets == 2);
}

GST_END_TEST;

GST_START_TEST (test_iframe_grouper_one_group)
{
  RtpccGccGrouper g;
  RtpccGccDelta d;
  RtpccTime link_free = MS (100);
  guint produced = 0;

  /* the same key frame through the grouper alone: one group of 20, whose
   * d(i) is the bottleneck's spread minus the 1 ms send spread */
  rtpcc_gcc_grouper_init (&g, MS (5));
  fail_if (rtpcc_gcc_grouper_add (&g, MS (60), MS (90), 1000, &d));
  fail_if (rtpcc_gcc_grouper_add (&g, MS (80), MS (110), 1000, &d));
  for (gint i = 0; i < 20; i++) {
    RtpccTime send = MS (100) + US (50) * i;
    link_free = MAX (link_free, send) + US (9600);
    produced += rtpcc_gcc_grouper_add (&g, send, link_free + MS (25), 1200,
        &d);
  }
  fail_unless (produced == 1, "only the 80 ms group closes");
  fail_unless (g.cur.n_packets == 20, "%u", g.cur.n_packets);
  fail_unless (rtpcc_gcc_grouper_add (&g, MS (120), link_free + MS (33),
          1000, &d));
  fail_unless (d.n_packets == 20 && d.bytes == 24000);
  /* T: 80 -> 100.95 ms; t: 110 -> 100 + 192 + 25 ms */
  fail_unless (fabs (d.send_delta - 20.95) < 1e-9, "%g", d.send_delta);
  fail_unless (fabs (d.arrival_delta - 207.0) < 1e-9, "%g", d.arrival_delta);
}

GST_END_TEST;

static Suite *
rtpcc_gcc_grouper_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_grouper");
  TCase *tc = tcase_create ("grouper");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_grouping_burst_time);
  tcase_add_test (tc, test_grouping_arrival_burst);
  tcase_add_test (tc, test_iframe_grouper_one_group);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_grouper);

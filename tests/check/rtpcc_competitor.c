/* Unit tests for the competitor detector (gst/rtpcc/cc/competitor.c) that
 * gcc and nada share: when it enters the competitive mode, its periodic
 * drains, how it leaves, and the TCP equation's rate it asks for.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/competitor.h>
#include <rtpcc/tcpeq.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)
#define BASE_OWD MS (40)

/* One received packet sent at @t that queued @q: reported 1 ms later. */
static void
add_rx (RtpccCompetitor * c, RtpccTime t, RtpccTime q)
{
  RtpccPacketReport r = { 0 };

  r.send_time = t;
  r.size = 1200;
  r.received = TRUE;
  r.arrival = t + BASE_OWD + q;
  rtpcc_competitor_add (c, r.arrival + MS (1), &r, MS (100));
}

static void
add_lost (RtpccCompetitor * c, RtpccTime t)
{
  RtpccPacketReport r = { 0 };

  r.send_time = t;
  r.size = 1200;
  r.arrival = RTPCC_TIME_NONE;
  rtpcc_competitor_add (c, t + MS (200), &r, MS (100));
}

/* packets every 10 ms over [@from, @to) queuing @q; update every 100 ms.
 * Returns the first time update said TRUE, or RTPCC_TIME_NONE. */
static RtpccTime
run (RtpccCompetitor * c, RtpccTime from, RtpccTime to, RtpccTime q)
{
  RtpccTime first = RTPCC_TIME_NONE;

  for (RtpccTime t = from; t < to; t += MS (10)) {
    add_rx (c, t, q);
    if ((t - from) % MS (100) == 0 && rtpcc_competitor_update (c, t)
        && first == RTPCC_TIME_NONE)
      first = t;
  }
  return first;
}

GST_START_TEST (test_enters_after_a_full_window)
{
  RtpccCompetitor c;
  RtpccTime on;

  rtpcc_competitor_init (&c);
  /* the empty queue first: the base one-way delay */
  fail_unless (run (&c, 0, MS (1000), 0) == RTPCC_TIME_NONE);
  /* then every packet above ON_DELAY: active once WINDOW has passed */
  on = run (&c, MS (1000), MS (8000), RTPCC_COMPETITOR_ON_DELAY + MS (20));
  fail_unless (on != RTPCC_TIME_NONE);
  fail_unless (on >= MS (1000) + RTPCC_COMPETITOR_WINDOW, "%"
      G_GINT64_FORMAT, on);
  fail_unless (on <= MS (1000) + RTPCC_COMPETITOR_WINDOW + MS (200));
}

GST_END_TEST;

GST_START_TEST (test_a_dip_resets_the_window)
{
  RtpccCompetitor c;
  RtpccTime t;

  rtpcc_competitor_init (&c);
  run (&c, 0, MS (500), 0);
  /* our own queue, drained below ON_DELAY every 3 s: never a competitor */
  for (t = MS (500); t < MS (20000); t += MS (3000)) {
    fail_unless (run (&c, t, t + MS (2900), MS (80)) == RTPCC_TIME_NONE);
    fail_unless (run (&c, t + MS (2900), t + MS (3000), MS (10)) ==
        RTPCC_TIME_NONE);
  }
  /* and switched off: never, however long the queue stands */
  rtpcc_competitor_init (&c);
  c.enabled = FALSE;
  run (&c, 0, MS (500), 0);
  fail_unless (run (&c, MS (500), MS (20000), MS (200)) == RTPCC_TIME_NONE);
}

GST_END_TEST;

GST_START_TEST (test_drains_and_leaves)
{
  RtpccCompetitor c;
  RtpccTime on, t, q = MS (150);
  gboolean drained = FALSE;

  rtpcc_competitor_init (&c);
  run (&c, 0, MS (500), 0);
  on = run (&c, MS (500), MS (6000), q);
  fail_unless (on != RTPCC_TIME_NONE);
  /* the queue stays full (the competitor is still there): a drain of
   * DRAIN_TIME every DRAIN_EVERY, then the mode again */
  for (t = on; t < on + RTPCC_COMPETITOR_DRAIN_EVERY + MS (2000);
      t += MS (100)) {
    add_rx (&c, t, q);
    if (!rtpcc_competitor_update (&c, t)) {
      fail_unless (t >= on + RTPCC_COMPETITOR_DRAIN_EVERY);
      fail_unless (t < on + RTPCC_COMPETITOR_DRAIN_EVERY +
          RTPCC_COMPETITOR_DRAIN_TIME + MS (200));
      drained = TRUE;
    }
  }
  fail_unless (drained);
  fail_unless (c.active);
  /* next drain: a packet sees the queue empty (below OFF_DELAY), so the
   * competitor has gone and the mode ends for good */
  for (; c.drain_until == RTPCC_TIME_NONE; t += MS (100)) {
    add_rx (&c, t, q);
    rtpcc_competitor_update (&c, t);
  }
  add_rx (&c, t, RTPCC_COMPETITOR_OFF_DELAY - MS (5));
  fail_if (rtpcc_competitor_update (&c, t));
  fail_if (c.active);
  /* a brief standing queue afterwards does not bring it back */
  fail_unless (run (&c, t, t + MS (3000), q) == RTPCC_TIME_NONE);
}

GST_END_TEST;

GST_START_TEST (test_equation_rate)
{
  RtpccCompetitor c;
  guint64 seq_t = 0;
  gdouble x;

  rtpcc_competitor_init (&c);
  /* no loss events yet: no rate of its own */
  fail_unless (rtpcc_competitor_rate (&c, MS (100)) == G_MAXDOUBLE);
  /* one loss every 100 packets, far apart in time (separate events) */
  for (guint e = 0; e < 10; e++) {
    for (guint i = 0; i < 99; i++, seq_t++)
      add_rx (&c, MS (10) * seq_t, MS (100));
    add_lost (&c, MS (10) * seq_t);
    seq_t++;
  }
  x = rtpcc_competitor_rate (&c, MS (100));
  fail_unless (x < G_MAXDOUBLE);
  /* intervals of 99-100 packets: p ~ 1 %, s = 1200 bytes, RTT 100 ms */
  {
    gdouble lo = 8.0 * rtpcc_tcpeq_throughput (1200, 0.1, 1.0 / 99.0);
    gdouble hi = 8.0 * rtpcc_tcpeq_throughput (1200, 0.1, 1.0 / 101.0);
    fail_unless (x >= lo - 1 && x <= hi + 1, "%f not in [%f, %f]", x, lo, hi);
  }
  /* twice the RTT: about half the rate (the equation is ~1/RTT) */
  fail_unless (fabs (rtpcc_competitor_rate (&c, MS (200)) / x - 0.5) < 0.05);
  fail_unless (rtpcc_competitor_rate (&c, 0) == G_MAXDOUBLE);
}

GST_END_TEST;

static Suite *
competitor_suite (void)
{
  Suite *s = suite_create ("rtpcc_competitor");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_enters_after_a_full_window);
  tcase_add_test (tc, test_a_dip_resets_the_window);
  tcase_add_test (tc, test_drains_and_leaves);
  tcase_add_test (tc, test_equation_rate);
  return s;
}

GST_CHECK_MAIN (competitor);

/* The seeded cellular-like trace generator (sim-trace.h): one seed gives
 * one trace byte for byte, the rate stays in its band outside fades, fades
 * are deep or outages, the text is a valid mahimahi trace whose loop period
 * is the duration and whose delivered rate is the steps' mean; and the link
 * model serves nothing during an outage (schedule rate 0 or a trace gap)
 * and resumes when it ends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-trace.h"
#include "sim.h"

#include <math.h>

static void
test_determinism (void)
{
  SimTraceConfig c;
  SimTrace *a, *b, *d;

  sim_trace_config_init (&c);
  c.seed = 7;
  a = sim_trace_generate (&c);
  b = sim_trace_generate (&c);
  c.seed = 8;
  d = sim_trace_generate (&c);
  g_assert_nonnull (a);
  g_assert_cmpstr (a->text->str, ==, b->text->str);
  g_assert_cmpuint (a->opportunities, ==, b->opportunities);
  g_assert_cmpstr (a->text->str, !=, d->text->str);
  sim_trace_free (a);
  sim_trace_free (b);
  sim_trace_free (d);
}

static void
test_bounds (void)
{
  SimTraceConfig c;
  guint fades = 0, outages = 0, low = 0, high = 0;

  sim_trace_config_init (&c);
  c.duration_s = 2000;
  for (guint64 seed = 1; seed <= 3; seed++) {
    SimTrace *t;
    c.seed = seed;
    t = sim_trace_generate (&c);
    g_assert_nonnull (t);
    g_assert_cmpuint (t->kbps->len, ==, 20000);
    for (guint k = 0; k < t->kbps->len; k++) {
      gdouble r = g_array_index (t->kbps, gdouble, k);
      gboolean f = g_array_index (t->fade, gboolean, k);
      if (!f) {
        g_assert_cmpfloat (r, >=, c.min_kbps - 0.001);
        g_assert_cmpfloat (r, <=, c.max_kbps + 0.001);
        low += r < 600;
        high += r > 4000;
      } else if (r == 0) {
        outages += k == 0 || !g_array_index (t->fade, gboolean, k - 1);
      } else {
        g_assert_cmpfloat (r, >=, c.fade_lo_kbps - 0.001);
        g_assert_cmpfloat (r, <=, c.fade_hi_kbps + 0.001);
      }
      fades += f && (k == 0 || !g_array_index (t->fade, gboolean, k - 1));
    }
    sim_trace_free (t);
  }
  /* 6000 s with a fade every 25 s on average, 30 % outages: the walk
   * visits both ends of its band */
  g_assert_cmpuint (fades, >, 150);
  g_assert_cmpuint (fades, <, 350);
  g_assert_cmpuint (outages, >, 20);
  g_assert_cmpuint (outages, <, fades);
  g_assert_cmpuint (low, >, 100);
  g_assert_cmpuint (high, >, 100);
}

static void
test_mahimahi (void)
{
  SimTraceConfig c;
  SimTrace *t;
  RtpccCapacity *cap;
  GError *err = NULL;
  gchar **lines;
  guint n = 0;
  gint64 prev = -1;
  gdouble mean;

  sim_trace_config_init (&c);
  c.seed = 3;
  c.duration_s = 60;
  t = sim_trace_generate (&c);
  lines = g_strsplit (t->text->str, "\n", -1);
  for (guint i = 0; lines[i] && lines[i][0]; i++) {
    gint64 ms = g_ascii_strtoll (lines[i], NULL, 10);
    g_assert_cmpint (ms, >=, prev);
    prev = ms;
    n++;
  }
  g_strfreev (lines);
  g_assert_cmpuint (n, ==, t->opportunities);
  g_assert_cmpint (prev, ==, 60000);

  cap = rtpcc_capacity_new_trace (t->text->str, t->text->len, &err);
  g_assert_no_error (err);
  mean = sim_trace_mean_kbps (t);
  {
    RtpccCapacityCursor cur = RTPCC_CAPACITY_CURSOR_INIT;
    guint64 bytes = (guint64) (t->opportunities - 1) * RTPCC_TRACE_MTU;
    RtpccTime end = rtpcc_capacity_serve (cap, 0, (guint) bytes, &cur);
    /* all the walk's opportunities fit in the period: the trace delivers
     * the steps' mean rate */
    g_assert_cmpint (end, <=, RTPCC_SEC (60));
    g_assert_cmpfloat (fabs (bytes * 8.0 / 60.0 / 1000.0 - mean), <,
        0.01 * mean);
  }
  rtpcc_capacity_unref (cap);
  sim_trace_free (t);
}

static void
test_invalid (void)
{
  SimTraceConfig c;

  sim_trace_config_init (&c);
  c.duration_s = 0;
  g_assert_null (sim_trace_generate (&c));
  sim_trace_config_init (&c);
  c.min_kbps = 7000;
  g_assert_null (sim_trace_generate (&c));
  sim_trace_config_init (&c);
  c.step_ms = 0;
  g_assert_null (sim_trace_generate (&c));
  sim_trace_config_init (&c);
  c.outage_prob = 1.5;
  g_assert_null (sim_trace_generate (&c));
}

/* 1 Mbit/s CBR of 1000-byte packets through a link whose capacity is 0
 * from 1 s to 3 s: nothing departs inside the outage, at most one packet
 * waits (the queue limit is 0 bytes at rate 0; an empty queue admits one),
 * and service resumes at once when the link returns. */
static void
check_outage (RtpccCapacity * cap, gdouble back_s, guint min_dropped,
    RtpccTime max_wait)
{
  RtpccLinkConfig lc;
  RtpccLink *link;
  RtpccTime first_after = RTPCC_TIME_NONE;
  guint delivered_in = 0, dropped_in = 0, delivered_after = 0;

  rtpcc_link_config_init (&lc);
  lc.capacity = cap;
  lc.queue_limit_time = RTPCC_MSEC (300);
  link = rtpcc_link_new (&lc);
  for (RtpccTime t = 0; t < RTPCC_SEC (6); t += RTPCC_MSEC (8)) {
    RtpccLinkOutcome o;
    rtpcc_link_send (link, t, 1000, &o);
    if (o.verdict == RTPCC_LINK_DELIVERED) {
      if (o.departure > RTPCC_MSEC (1010) &&
          o.departure < RTPCC_SEC (back_s))
        delivered_in++;
      if (t >= RTPCC_SEC (back_s)) {
        delivered_after++;
        if (first_after == RTPCC_TIME_NONE)
          first_after = o.departure - t;
      }
    } else if (t > RTPCC_SEC (1) && t < RTPCC_SEC (back_s)) {
      dropped_in++;
    }
  }
  g_assert_cmpuint (delivered_in, ==, 0);
  g_assert_cmpuint (dropped_in, >=, min_dropped);
  g_assert_cmpuint (dropped_in, <, 250);
  g_assert_cmpuint (delivered_after, >=, 370);
  /* the first packet after the outage waits for those queued during it */
  g_assert_cmpint (first_after, <, max_wait);
  rtpcc_link_free (link);
}

static void
test_outage_link (void)
{
  GError *err = NULL;
  RtpccCapacity *sched = rtpcc_capacity_new_schedule ("1000@0,0@1,1000@3",
      &err);
  GString *tr = g_string_new (NULL);
  RtpccCapacity *trace;

  g_assert_no_error (err);
  /* 2 s at 125 packets/s: all but the one the empty queue admitted */
  check_outage (sched, 3.0, 248, RTPCC_MSEC (20));
  rtpcc_capacity_unref (sched);
  /* the same as a trace: 1 Mbit/s is one 1500-byte opportunity per 12 ms,
   * none in [1 s, 3 s) */
  for (guint ms = 12; ms <= 6000; ms += 12)
    if (ms < 1000 || ms >= 3000)
      g_string_append_printf (tr, "%u\n", ms);
  trace = rtpcc_capacity_new_trace (tr->str, tr->len, &err);
  g_assert_no_error (err);
  /* a trace converts the 300 ms limit at the mean rate of the next 300 ms,
   * so the last 300 ms of the outage (37 packets) queue for its end */
  check_outage (trace, 3.0, 248 - 38, RTPCC_MSEC (20 + 38 * 8));
  rtpcc_capacity_unref (trace);
  g_string_free (tr, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/trace/determinism", test_determinism);
  g_test_add_func ("/sim/trace/bounds", test_bounds);
  g_test_add_func ("/sim/trace/mahimahi", test_mahimahi);
  g_test_add_func ("/sim/trace/invalid", test_invalid);
  g_test_add_func ("/sim/trace/outage-link", test_outage_link);
  return g_test_run ();
}

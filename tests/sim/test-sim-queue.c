/* Event queue, timers, packet pool and basic nodes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

typedef struct
{
  GArray *order;                /* ids in run order */
  GArray *times;                /* sim_now at each run */
} Log;

typedef struct
{
  Log *log;
  guint id;
} Ev;

static void
log_event (Sim * sim, gpointer user_data)
{
  Ev *ev = user_data;
  RtpccTime now = sim_now (sim);
  g_array_append_val (ev->log->order, ev->id);
  g_array_append_val (ev->log->times, now);
}

static void
log_init (Log * log)
{
  log->order = g_array_new (FALSE, FALSE, sizeof (guint));
  log->times = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
}

static void
log_clear (Log * log)
{
  g_array_free (log->order, TRUE);
  g_array_free (log->times, TRUE);
}

static void
test_equal_times_fifo (void)
{
  Sim *sim = sim_new ();
  Log log;
  Ev ev[5];

  log_init (&log);
  /* 0..4 scheduled in order, 1 and 3 at the same later time, the rest at the
   * same earlier time */
  for (guint i = 0; i < 5; i++) {
    ev[i] = (Ev) {
    &log, i};
    sim_schedule (sim, (i % 2) ? RTPCC_MSEC (5) : RTPCC_MSEC (1),
        log_event, &ev[i]);
  }
  g_assert_cmpuint (sim_run (sim), ==, 5);
  g_assert_cmpuint (log.order->len, ==, 5);
  {
    guint expect[] = { 0, 2, 4, 1, 3 };
    for (guint i = 0; i < 5; i++)
      g_assert_cmpuint (g_array_index (log.order, guint, i), ==, expect[i]);
  }
  g_assert_cmpint (sim_now (sim), ==, RTPCC_MSEC (5));
  log_clear (&log);
  sim_free (sim);
}

/* Many events with many ties, some cancelled: the run order must be the
 * stable sort by (time, scheduling order) of the survivors. */
static void
test_random_order_matches_sort (void)
{
  const guint n = 20000;
  Sim *sim = sim_new ();
  RtpccRng rng;
  Log log;
  Ev *ev = g_new (Ev, n);
  RtpccTime *at = g_new (RtpccTime, n);
  SimTimer *h = g_new (SimTimer, n);
  gboolean *cancelled = g_new0 (gboolean, n);
  guint expected = 0, prev = 0;
  RtpccTime prev_t = G_MININT64;

  rtpcc_rng_init (&rng, 42);
  log_init (&log);
  for (guint i = 0; i < n; i++) {
    ev[i] = (Ev) {
    &log, i};
    at[i] = (RtpccTime) rtpcc_rng_below (&rng, 500);  /* ~40 per time */
    h[i] = sim_schedule (sim, at[i], log_event, &ev[i]);
    g_assert_cmpuint (h[i], !=, 0);
  }
  for (guint i = 0; i < n; i += 7) {
    g_assert_true (sim_cancel (sim, h[i]));
    g_assert_false (sim_cancel (sim, h[i]));
    g_assert_false (sim_timer_pending (sim, h[i]));
    cancelled[i] = TRUE;
  }
  for (guint i = 0; i < n; i++)
    expected += !cancelled[i];
  g_assert_cmpuint (sim_pending_events (sim), ==, expected);
  sim_run (sim);
  g_assert_cmpuint (log.order->len, ==, expected);

  for (guint k = 0; k < log.order->len; k++) {
    guint id = g_array_index (log.order, guint, k);
    RtpccTime t = g_array_index (log.times, RtpccTime, k);
    g_assert_false (cancelled[id]);
    g_assert_cmpint (t, ==, at[id]);
    g_assert_cmpint (t, >=, prev_t);
    if (k > 0 && t == prev_t)
      g_assert_cmpuint (id, >, prev);   /* FIFO among equal times */
    prev = id;
    prev_t = t;
  }
  g_assert_cmpuint (sim_pending_events (sim), ==, 0);

  log_clear (&log);
  g_free (ev);
  g_free (at);
  g_free (h);
  g_free (cancelled);
  sim_free (sim);
}

typedef struct
{
  Log *log;
  Ev *child;
  SimTimer *child_handle;
  Sim *sim;
} Spawner;

static void
spawn_event (Sim * sim, gpointer user_data)
{
  Spawner *sp = user_data;
  guint id = 100;
  RtpccTime now = sim_now (sim);
  g_array_append_val (sp->log->order, id);
  g_array_append_val (sp->log->times, now);
  /* same time: runs after everything already queued for now */
  *sp->child_handle = sim_schedule (sim, now, log_event, sp->child);
}

static void
test_schedule_from_callback (void)
{
  Sim *sim = sim_new ();
  Log log;
  Ev a, b, child;
  SimTimer child_h = 0;
  Spawner sp;

  log_init (&log);
  a = (Ev) {
  &log, 1};
  b = (Ev) {
  &log, 2};
  child = (Ev) {
  &log, 3};
  sp = (Spawner) {
  &log, &child, &child_h, sim};
  sim_schedule (sim, RTPCC_MSEC (10), spawn_event, &sp);
  sim_schedule (sim, RTPCC_MSEC (10), log_event, &a);
  sim_schedule (sim, RTPCC_MSEC (10), log_event, &b);
  sim_run (sim);
  {
    guint expect[] = { 100, 1, 2, 3 };
    g_assert_cmpuint (log.order->len, ==, 4);
    for (guint i = 0; i < 4; i++)
      g_assert_cmpuint (g_array_index (log.order, guint, i), ==, expect[i]);
  }
  /* fired: the handle is stale */
  g_assert_false (sim_timer_pending (sim, child_h));
  g_assert_false (sim_cancel (sim, child_h));
  log_clear (&log);
  sim_free (sim);
}

static void
test_stale_handle_after_reuse (void)
{
  Sim *sim = sim_new ();
  Log log;
  Ev a, b;
  SimTimer ha, hb;

  log_init (&log);
  a = (Ev) {
  &log, 1};
  b = (Ev) {
  &log, 2};
  ha = sim_schedule (sim, 10, log_event, &a);
  g_assert_true (sim_cancel (sim, ha));
  /* b reuses a's slot; a's handle must not touch it */
  hb = sim_schedule (sim, 10, log_event, &b);
  g_assert_cmpuint (ha, !=, hb);
  g_assert_false (sim_cancel (sim, ha));
  g_assert_true (sim_timer_pending (sim, hb));
  g_assert_false (sim_cancel (sim, 0));
  g_assert_false (sim_cancel (sim, G_MAXUINT64));
  sim_run (sim);
  g_assert_cmpuint (log.order->len, ==, 1);
  g_assert_cmpuint (g_array_index (log.order, guint, 0), ==, 2);
  log_clear (&log);
  sim_free (sim);
}

static void
stop_event (Sim * sim, gpointer user_data)
{
  sim_stop (sim);
}

static void
test_run_until (void)
{
  Sim *sim = sim_new ();
  Log log;
  Ev ev[4];

  log_init (&log);
  for (guint i = 0; i < 4; i++) {
    ev[i] = (Ev) {
    &log, i};
    sim_schedule (sim, RTPCC_SEC (i + 1), log_event, &ev[i]);
  }
  g_assert_cmpint (sim_next_event_time (sim), ==, RTPCC_SEC (1));
  /* inclusive end */
  g_assert_cmpuint (sim_run_until (sim, RTPCC_SEC (2)), ==, 2);
  g_assert_cmpint (sim_now (sim), ==, RTPCC_SEC (2));
  g_assert_cmpuint (sim_pending_events (sim), ==, 2);
  g_assert_cmpuint (sim_run_until (sim, RTPCC_MSEC (2500)), ==, 0);
  g_assert_cmpint (sim_now (sim), ==, RTPCC_MSEC (2500));

  /* stop from inside an event */
  sim_schedule (sim, RTPCC_SEC (3), stop_event, NULL);
  g_assert_cmpuint (sim_run_until (sim, RTPCC_SEC (10)), ==, 2);
  g_assert_cmpint (sim_now (sim), ==, RTPCC_SEC (3));
  g_assert_cmpuint (sim_pending_events (sim), ==, 1);
  g_assert_cmpuint (sim_run (sim), ==, 1);
  g_assert_cmpuint (sim_events_run (sim), ==, 5);
  g_assert_cmpint (sim_next_event_time (sim), ==, RTPCC_TIME_INFINITE);
  log_clear (&log);
  sim_free (sim);
}

static void
test_schedule_in_past_rejected (void)
{
  if (g_test_subprocess ()) {
    Sim *sim = sim_new ();
    sim_run_until (sim, RTPCC_SEC (1));
    sim_schedule (sim, 0, stop_event, NULL);
    sim_free (sim);
    return;
  }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*at >= sim->now*");
}

/* ---- packets and nodes ------------------------------------------------- */

static gint payload_freed;

static void
payload_free (gpointer p)
{
  payload_freed++;
  g_free (p);
}

static void
test_packet_pool (void)
{
  Sim *sim = sim_new ();
  SimPacket *a, *b, *c;
  SimSink sink;

  a = sim_packet_new (sim);
  g_assert_cmpuint (a->frame, ==, SIM_NO_FRAME);
  g_assert_cmpint (a->sent, ==, RTPCC_TIME_NONE);
  a->size = 100;
  a->data = g_strdup ("x");
  a->data_free = payload_free;
  b = sim_packet_copy (sim, a, (SimDataCopyFunc) g_strdup);
  c = sim_packet_copy (sim, a, NULL);
  g_assert_null (c->data);
  g_assert_cmpstr (b->data, ==, "x");
  g_assert_true (b->data != a->data);
  g_assert_cmpuint (sim_packets_live (sim), ==, 3);
  sim_packet_free (sim, a);
  sim_packet_free (sim, c);
  g_assert_cmpint (payload_freed, ==, 1);
  /* reused from the free list, zeroed */
  a = sim_packet_new (sim);
  g_assert_null (a->data);
  g_assert_cmpuint (a->size, ==, 0);

  /* in-flight packets are owned by the simulator until delivered */
  sim_sink_init (&sink);
  a->size = 10;
  sim_deliver (sim, RTPCC_MSEC (5), &sink.node, a);
  sim_deliver (sim, RTPCC_SEC (50), &sink.node, b);
  sim_run_until (sim, RTPCC_SEC (1));
  g_assert_cmpuint (sink.packets, ==, 1);
  g_assert_cmpuint (sink.bytes, ==, 10);
  g_assert_cmpint (sink.last, ==, RTPCC_MSEC (5));
  g_assert_cmpuint (sim_packets_live (sim), ==, 1);
  sim_free (sim);               /* frees b (and its payload) */
  g_assert_cmpint (payload_freed, ==, 2);
}

static void
test_demux (void)
{
  Sim *sim = sim_new ();
  SimSink s1, s3, other;
  SimDemux *d;

  sim_sink_init (&s1);
  sim_sink_init (&s3);
  sim_sink_init (&other);
  d = sim_demux_new (&other.node);
  sim_demux_set_route (d, 1, &s1.node);
  sim_demux_set_route (d, 3, &s3.node);
  for (guint f = 0; f < 6; f++) {
    SimPacket *p = sim_packet_new (sim);
    p->flow = f;
    p->size = 1;
    sim_node_receive (sim_demux_node (d), sim, p);
  }
  g_assert_cmpuint (s1.packets, ==, 1);
  g_assert_cmpuint (s3.packets, ==, 1);
  g_assert_cmpuint (other.packets, ==, 4);
  /* no fallback: freed */
  sim_demux_free (d);
  d = sim_demux_new (NULL);
  sim_node_receive (sim_demux_node (d), sim, sim_packet_new (sim));
  g_assert_cmpuint (sim_packets_live (sim), ==, 0);
  sim_demux_free (d);
  sim_free (sim);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/queue/equal-times-fifo", test_equal_times_fifo);
  g_test_add_func ("/sim/queue/random-order", test_random_order_matches_sort);
  g_test_add_func ("/sim/queue/schedule-from-callback",
      test_schedule_from_callback);
  g_test_add_func ("/sim/queue/stale-handle", test_stale_handle_after_reuse);
  g_test_add_func ("/sim/queue/run-until", test_run_until);
  g_test_add_func ("/sim/queue/past-rejected",
      test_schedule_in_past_rejected);
  g_test_add_func ("/sim/packet/pool", test_packet_pool);
  g_test_add_func ("/sim/node/demux", test_demux);
  return g_test_run ();
}

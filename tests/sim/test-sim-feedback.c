/* The seams later endpoints use, exercised end to end with a toy loop:
 *
 *   CBR source → send tap → forward SimLink → receive tap → ToyReceiver
 *        ↑                                                     │ report every
 *   ToySender ← ───────────── reverse SimLink ←────────────────┘ 100 ms
 *   (AIMD on the source's rate)
 *
 * The toy controller is not a congestion controller under test; the point is
 * that feedback packets with an opaque payload cross a reverse link, timers
 * are cancelled cleanly, the source is driven through sim_source_set_rate()
 * and a run replays exactly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

#include <math.h>

typedef struct
{
  guint64 received;             /* cumulative packets */
  guint64 expected;             /* highest seq + 1 */
} Report;

typedef struct
{
  SimNode node;
  Sim *sim;
  SimNode *reverse;
  SimTimer timer;
  guint64 received, expected;
  guint64 reports;
} ToyReceiver;

typedef struct
{
  SimNode node;
  SimSource *source;
  guint64 last_received, last_expected;
  guint64 reports;
  guint64 rate_changes;
} ToySender;

static void
receiver_report (Sim * sim, gpointer user_data)
{
  ToyReceiver *r = user_data;
  SimPacket *p = sim_packet_new (sim);
  Report *rep = g_new (Report, 1);

  rep->received = r->received;
  rep->expected = r->expected;
  p->kind = SIM_PACKET_FEEDBACK;
  p->size = 80;
  p->seq = r->reports++;
  p->sent = sim_now (sim);
  p->data = rep;
  p->data_free = g_free;
  r->timer = sim_schedule (sim, sim_now (sim) + RTPCC_MSEC (100),
      receiver_report, r);
  sim_node_receive (r->reverse, sim, p);
}

static void
receiver_receive (SimNode * node, Sim * sim, SimPacket * packet)
{
  ToyReceiver *r = (ToyReceiver *) node;

  g_assert_cmpint (packet->kind, ==, SIM_PACKET_MEDIA);
  r->received++;
  r->expected = MAX (r->expected, packet->seq + 1);
  sim_packet_free (sim, packet);
}

static void
sender_receive (SimNode * node, Sim * sim, SimPacket * packet)
{
  ToySender *s = (ToySender *) node;
  const Report *rep = packet->data;
  guint64 exp = rep->expected - s->last_expected;
  guint64 rcv = rep->received - s->last_received;
  guint64 rate = sim_source_get_rate (s->source);

  g_assert_cmpint (packet->kind, ==, SIM_PACKET_FEEDBACK);
  s->reports++;
  if (exp > 0) {
    /* AIMD: back off on > 2 % loss, else probe by 20 kbit/s */
    if (rcv < exp && (gdouble) (exp - rcv) / exp > 0.02)
      rate = (guint64) (rate * 0.8);
    else
      rate += 20000;
    rate = CLAMP (rate, 100000, 5000000);
    sim_source_set_rate (s->source, rate);
    s->rate_changes++;
  }
  s->last_expected = rep->expected;
  s->last_received = rep->received;
  sim_packet_free (sim, packet);
}

static gchar *
run_loop (guint64 * reports, gdouble * recv_kbps)
{
  Sim *sim = sim_new ();
  SimMetrics *m = sim_metrics_new (0, RTPCC_MSEC (200));
  ToyReceiver rx = { {receiver_receive, "toy-receiver"}, sim, NULL, 0, };
  ToySender tx = { {sender_receive, "toy-sender"}, NULL, };
  SimTap *send_tap, *recv_tap;
  SimLink *fwd, *rev;
  RtpccLinkConfig lc;
  SimCbrConfig cc;
  SimFlowSummary s;
  GString *csv = g_string_new (NULL);

  rtpcc_link_config_init (&lc);
  lc.capacity = rtpcc_capacity_new_constant (1000000);
  lc.delay = RTPCC_MSEC (50);
  recv_tap = sim_tap_new (m, SIM_TAP_RECEIVE, &rx.node);
  fwd = sim_link_new (&lc, sim_tap_node (recv_tap));
  sim_link_set_metrics (fwd, m);
  sim_metrics_set_bottleneck (m, SIM_FLOW_ANY, sim_link_get_link (fwd));
  rtpcc_capacity_unref (lc.capacity);

  /* uncongested reverse path */
  rtpcc_link_config_init (&lc);
  lc.delay = RTPCC_MSEC (50);
  rev = sim_link_new (&lc, &tx.node);
  rx.reverse = sim_link_node (rev);

  send_tap = sim_tap_new (m, SIM_TAP_SEND, sim_link_node (fwd));
  sim_cbr_config_init (&cc);
  cc.rate_bps = 300000;
  tx.source = sim_cbr_source_new (sim, &cc, sim_tap_node (send_tap));
  rx.timer = sim_schedule (sim, RTPCC_MSEC (100), receiver_report, &rx);

  sim_run_until (sim, RTPCC_SEC (60));
  sim_metrics_finish (m, RTPCC_SEC (60));
  sim_metrics_write_csv (m, csv);
  sim_metrics_summarize (m, 0, RTPCC_SEC (20), RTPCC_SEC (60), &s);
  g_test_message ("%" G_GUINT64_FORMAT " reports, %" G_GUINT64_FORMAT
      " rate changes, recv %.1f kbit/s, loss %.2f%%, qdelay p95 %.1f ms",
      tx.reports, tx.rate_changes, s.recv_kbps, s.loss_pct,
      s.qdelay_ms_p95);
  *reports = tx.reports;
  *recv_kbps = s.recv_kbps;
  g_assert_cmpuint (rx.reports, ==, 600);
  g_assert_cmpuint (tx.rate_changes, >, 500);

  /* teardown: the receiver's timer is still armed */
  g_assert_true (sim_cancel (sim, rx.timer));
  sim_source_free (tx.source);
  sim_free (sim);
  sim_tap_free (send_tap);
  sim_tap_free (recv_tap);
  sim_link_free (fwd);
  sim_link_free (rev);
  sim_metrics_free (m);
  return g_string_free (csv, FALSE);
}

static void
test_feedback_loop (void)
{
  guint64 reports;
  gdouble kbps;
  gchar *a = run_loop (&reports, &kbps);
  gchar *b;

  /* reports sent at 0.1 .. 59.9 s arrive 50 ms later; the one sent at 60 s
   * is still in flight */
  g_assert_cmpuint (reports, ==, 599);
  /* the loop tracks the 1 Mbit/s bottleneck */
  g_assert_cmpfloat (kbps, >, 600.0);
  g_assert_cmpfloat (kbps, <=, 1001.0);
  b = run_loop (&reports, &kbps);
  g_assert_cmpstr (a, ==, b);
  g_free (a);
  g_free (b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/seams/feedback-loop", test_feedback_loop);
  return g_test_run ();
}

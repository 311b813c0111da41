/* Controllers off the lab's happy path, closed loop (the library's sender
 * and receiver, RFC 8888 CCFB on the wire):
 *
 *  - lost feedback is not lost media: with 10 % of the feedback path's
 *    packets lost and no media loss, no controller hears of a loss, and
 *    every one keeps the link used;
 *  - CCFB reports each packet a bounded number of times: the feedback's
 *    bytes hardly change with the media's loss;
 *  - when feedback stops, every controller backs off (the no-feedback
 *    timer, nofeedback.h) long before the RFC 8083 breaker, the sender says
 *    why, and when it returns the rate climbs back instead of jumping;
 *  - after a capacity outage of 1 s, 5 s or 30 s, every controller uses
 *    80 % of the link again within 5 s of its return;
 *  - gcc next to a long TCP flow takes a fair part of the link, and goes
 *    back to a short queue when the TCP flow leaves.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-rtpcc.h"
#include "sim-tcp.h"

#include <math.h>

#define KBPS 1000

static SimRtpccResult *
run (SimRtpccScenarioConfig * c)
{
  GError *err = NULL;
  SimRtpccResult *r = sim_rtpcc_run_scenario (c, &err);

  g_assert_no_error (err);
  g_assert_nonnull (r);
  g_assert_cmpuint (r->sender.stalls + r->receiver.stalls, ==, 0);
  g_assert_cmpuint (r->sender.feedback_rejected, ==, 0);
  return r;
}

/* Mean received rate over capacity from @t0 on. */
static gdouble
utilisation (const SimRtpccResult * r, RtpccTime t0)
{
  gdouble recv = 0, cap = 0;

  for (guint i = 0; i < r->n_rows; i++)
    if (r->rows[i].time >= t0) {
      recv += r->rows[i].recv_kbps;
      cap += r->rows[i].capacity_kbps;
    }
  return cap > 0 ? recv / cap : 0;
}

static void
test_feedback_loss_is_not_media_loss (void)
{
  static const gchar *ctls[] = { "gcc", "nada", "tfrc", "ccid2" };

  for (guint i = 0; i < G_N_ELEMENTS (ctls); i++) {
    SimRtpccScenarioConfig c;
    SimRtpccResult *r;
    gdouble u;

    sim_rtpcc_scenario_config_init (&c);
    c.controller = ctls[i];
    c.capacity = rtpcc_capacity_new_constant (2000 * KBPS);
    c.duration = RTPCC_SEC (60);
    c.reverse_loss.loss = 0.1;
    r = run (&c);
    u = utilisation (r, RTPCC_SEC (10));
    g_test_message ("%s, 10 %% feedback loss: %" G_GUINT64_FORMAT
        " feedback packets sent, %" G_GUINT64_FORMAT " arrived; %"
        G_GUINT64_FORMAT " packets reported lost, %" G_GUINT64_FORMAT
        " lost on the path; utilisation %.2f over 10-60 s", ctls[i],
        r->receiver.feedback_out, r->sender.feedback_in,
        r->sender_stats.reported_lost, r->receiver_stats.packets_lost, u);
    /* the premise: about a tenth of the feedback was lost */
    g_assert_cmpuint (r->sender.feedback_in * 10, <,
        r->receiver.feedback_out * 95 / 10);
    /* no loss is reported that the path did not make (the loss-based
     * controllers fill the queue and lose packets there) */
    g_assert_cmpuint (r->sender_stats.reported_lost, <=,
        r->receiver_stats.packets_lost);
    g_assert_cmpfloat (u, >=, 0.85);
    sim_rtpcc_result_free (r);
    rtpcc_capacity_unref (c.capacity);
  }
}

/* The same 1 Mbit/s of media ("fixed") over 0 %, 5 % and 20 % random
 * loss: CCFB's bytes at 5 % within 1.5 × those at 0 % (a report that
 * reached back to every unacknowledged packet of the last 500 ms sent
 * 3.2 × as many at 5 %). */
static void
test_ccfb_bytes_bounded_under_loss (void)
{
  static const gdouble loss[] = { 0, 0.05, 0.2 };
  guint64 bytes[G_N_ELEMENTS (loss)], pkts[G_N_ELEMENTS (loss)];

  for (guint i = 0; i < G_N_ELEMENTS (loss); i++) {
    SimRtpccScenarioConfig c;
    SimRtpccResult *r;

    sim_rtpcc_scenario_config_init (&c);
    c.controller = "fixed";
    c.start_bitrate = c.max_bitrate = 1000 * KBPS;
    c.capacity = rtpcc_capacity_new_constant (2000 * KBPS);
    c.duration = RTPCC_SEC (30);
    c.loss.loss = loss[i];
    r = run (&c);
    bytes[i] = r->receiver.feedback_bytes_out;
    pkts[i] = r->receiver.media_in;
    g_test_message ("%.0f %% loss: %" G_GUINT64_FORMAT " CCFB packets, %"
        G_GUINT64_FORMAT " bytes, %.1f bytes per media packet received",
        100 * loss[i], r->receiver.feedback_out, bytes[i],
        (gdouble) bytes[i] / pkts[i]);
    sim_rtpcc_result_free (r);
    rtpcc_capacity_unref (c.capacity);
  }
  g_assert_cmpuint (bytes[1] * 10, <=, bytes[0] * 15);
  g_assert_cmpuint (bytes[2] * 10, <=, bytes[0] * 15);
}

/* The feedback path dies from 20 s to 34 s (14 s: the breaker's RTCP
 * timeout is 3 × 5 s) while the forward path, 4 Mbit/s, carries on. */
#define STOP_FROM RTPCC_SEC (20)
#define STOP_TO RTPCC_SEC (34)

static void
feedback_stop (const gchar * controller, gdouble halve_s,
    gboolean restart_checks, gboolean climb_check)
{
  SimRtpccNetConfig nc;
  SimRtpccFlowConfig fc;
  SimRtpccNet *net;
  SimRtpccFlow *flow;
  RtpccSender *sender;
  GError *err = NULL;
  SimFlowTotals a, b;
  gdouble before, halved, first_half_s, later, mb;

  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = rtpcc_capacity_new_constant (4000 * KBPS);
  nc.forward.delay = RTPCC_MSEC (50);
  nc.reverse.capacity = rtpcc_capacity_new_schedule ("100000@0,0@20,"
      "100000@34", &err);
  g_assert_no_error (err);
  nc.reverse.delay = RTPCC_MSEC (50);
  net = sim_rtpcc_net_new (&nc);
  rtpcc_capacity_unref (nc.forward.capacity);
  rtpcc_capacity_unref (nc.reverse.capacity);
  sim_rtpcc_flow_config_init (&fc, 0, controller, SIM_RTPCC_FEEDBACK_AUTO, 1);
  fc.sender.sender.cc.max_bitrate = 3000 * KBPS;
  if (!g_str_equal (controller, "rr"))
    fc.sender.sender.cc.start_bitrate = 150 * KBPS;
  flow = sim_rtpcc_net_add_flow (net, &fc, &err);
  g_assert_no_error (err);
  sender = sim_rtpcc_sender_get_sender (flow->sender);

  sim_rtpcc_net_run (net, STOP_FROM);
  g_assert_null (rtpcc_sender_get_feedback_problem (sender, STOP_FROM));
  g_assert_true (sim_metrics_get_totals (net->metrics, 0, &a));
  sim_rtpcc_net_run (net, STOP_FROM + RTPCC_SEC (5));
  /* the sender says why */
  g_assert_nonnull (rtpcc_sender_get_feedback_problem (sender,
          STOP_FROM + RTPCC_SEC (5)));
  sim_rtpcc_net_run (net, STOP_TO);
  g_assert_true (sim_metrics_get_totals (net->metrics, 0, &b));
  sim_rtpcc_net_run (net, STOP_TO + RTPCC_SEC (20));
  g_assert_null (rtpcc_sender_get_feedback_problem (sender,
          STOP_TO + RTPCC_SEC (20)));

  before = sim_rtpcc_sender_target_mean (flow->sender, STOP_FROM -
      RTPCC_SEC (5), STOP_FROM);
  halved = sim_rtpcc_sender_target_at (flow->sender, STOP_FROM +
      RTPCC_SEC (halve_s));
  first_half_s = sim_rtpcc_sender_target_mean (flow->sender, STOP_TO,
      STOP_TO + RTPCC_MSEC (500));
  later = sim_rtpcc_sender_target_mean (flow->sender, STOP_TO +
      RTPCC_SEC (4), STOP_TO + RTPCC_SEC (9));
  mb = (b.sent_bytes - a.sent_bytes) / 1e6;
  g_test_message ("%s: target %.0f kbit/s before the stop, %.0f %.0f s into "
      "it; %.2f MB sent in the 14 s without feedback; after it %.0f kbit/s "
      "over the first 0.5 s, %.0f over 4-9 s", controller, before / 1e3,
      halved / 1e3, halve_s, mb, first_half_s / 1e3, later / 1e3);
  /* halved within @halve_s (the no-feedback interval: 4 RTTs or 4
   * feedback intervals, at least 500 ms; RRs come once a second), and on
   * to the minimum: at most 2 × @halve_s at the old rate (1 + 1/2 + 1/4
   * ...) and the minimum rate over the rest, instead of all 14 s at the
   * old rate */
  g_assert_cmpfloat (halved, <=, 0.5 * before + 1);
  g_assert_cmpfloat (mb, <=, (2 * halve_s * before + 14 * 150 * KBPS) / 8e6);
  if (restart_checks) {
    /* the premise: the flow had the 3 Mbit/s it may use */
    g_assert_cmpfloat (before, >=, 2500 * KBPS);
    /* no jump back to the old rate */
    g_assert_cmpfloat (first_half_s, <=, 0.6 * before);
  }
  /* but back near it within seconds (the feedback that waited out the
   * stop in the dead path's queue is no RTT sample: feedbackadapter.h) */
  if (climb_check)
    g_assert_cmpfloat (later, >=, 0.8 * before);
  sim_rtpcc_net_free (net);
}

static void
test_feedback_stop (void)
{
  feedback_stop ("gcc", 1, TRUE, TRUE);
  feedback_stop ("nada", 1, TRUE, TRUE);
  feedback_stop ("tfrc", 1, TRUE, TRUE);
  feedback_stop ("ccid2", 1, TRUE, TRUE);
  /* RTCP receiver reports alone, about one a second */
  feedback_stop ("rr", 5, FALSE, FALSE);
}

/* The seconds from @end (an outage's end) to the first 200 ms row from
 * which the mean receive rate over the next 1 s is >= 80 % of the mean
 * capacity there (the matrix's recovery_s); -1 if never. */
static gdouble
recovery_s (const SimRtpccResult * r, RtpccTime end)
{
  for (guint i = 0; i + 5 <= r->n_rows; i++) {
    gdouble recv = 0, cap = 0;

    if (r->rows[i].time < end)
      continue;
    for (guint k = i; k < i + 5; k++) {
      recv += r->rows[k].recv_kbps;
      cap += r->rows[k].capacity_kbps;
    }
    if (cap > 0 && recv >= 0.8 * cap)
      return RTPCC_TIME_AS_SEC (r->rows[i].time - end);
  }
  return -1;
}

/* A 2 Mbit/s, 50 ms link goes down at 20 s for 1, 5 or 30 s (packets in
 * its queue wait the outage out; new ones are dropped). Whatever the
 * controller did meanwhile (the no-feedback timer, TCP-like timeouts, the
 * RFC 8083 breaker's RTCP timeout after 15 s), it must use 80 % of the
 * link again within 5 s of its return. */
static void
test_outage_recovery (void)
{
  static const gchar *ctls[] = { "gcc", "nada", "tfrc", "ccid2" };
  static const guint outage_s[] = { 1, 5, 30 };

  for (guint i = 0; i < G_N_ELEMENTS (ctls); i++) {
    for (guint j = 0; j < G_N_ELEMENTS (outage_s); j++) {
      SimRtpccScenarioConfig c;
      SimRtpccResult *r;
      GError *err = NULL;
      gchar *spec = g_strdup_printf ("2000@0,0@20,2000@%u",
          20 + outage_s[j]);
      gdouble rec;

      sim_rtpcc_scenario_config_init (&c);
      c.controller = ctls[i];
      c.capacity = rtpcc_capacity_new_schedule (spec, &err);
      g_assert_no_error (err);
      c.duration = RTPCC_SEC (20 + outage_s[j] + 15);
      r = run (&c);
      rec = recovery_s (r, RTPCC_SEC (20 + outage_s[j]));
      g_test_message ("%s, %u s outage: 80 %% of the link again %.1f s "
          "after it", ctls[i], outage_s[j], rec);
      /* the premise: the link was used before the outage */
      g_assert_cmpfloat (recovery_s (r, RTPCC_SEC (12)), >=, 0);
      g_assert_cmpfloat (rec, >=, 0);
      g_assert_cmpfloat (rec, <=, 5);
      sim_rtpcc_result_free (r);
      rtpcc_capacity_unref (c.capacity);
      g_free (spec);
    }
  }
}

/* gcc on 2 Mbit/s, 50 ms one way, a 300 ms drop-tail queue; a NewReno
 * flow from 20 s to 80 s. While it runs the delay-based estimate alone
 * would leave gcc a sixth of the link (the queue never empties, every
 * delay signal is an over-use); with the competitive mode
 * (cc/competitor.h) gcc gets 0.3-0.6 of it, and once TCP has left it
 * finds the queue empty again on its next drain and keeps it short. */
static void
test_gcc_against_tcp (void)
{
  SimRtpccNetConfig nc;
  SimRtpccFlowConfig fc;
  SimRtpccNet *net;
  SimTcpConfig tc;
  SimFlowSummary m, t, late;
  GError *err = NULL;
  gdouble share;

  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = rtpcc_capacity_new_constant (2000 * KBPS);
  nc.forward.delay = RTPCC_MSEC (50);
  nc.reverse.delay = RTPCC_MSEC (50);
  net = sim_rtpcc_net_new (&nc);
  rtpcc_capacity_unref (nc.forward.capacity);
  sim_rtpcc_flow_config_init (&fc, 0, "gcc", SIM_RTPCC_FEEDBACK_AUTO, 1);
  fc.sender.sender.cc.min_bitrate = 150 * KBPS;
  fc.sender.sender.cc.start_bitrate = 150 * KBPS;
  fc.sender.sender.cc.max_bitrate = 3000 * KBPS;
  g_assert_nonnull (sim_rtpcc_net_add_flow (net, &fc, &err));
  g_assert_no_error (err);
  sim_tcp_config_init (&tc);
  tc.flow = 100;
  tc.start = RTPCC_SEC (20);
  tc.stop = RTPCC_SEC (80);
  tc.seed = 1;
  g_assert_nonnull (sim_rtpcc_net_add_tcp (net, &tc, &err));
  g_assert_no_error (err);
  sim_rtpcc_net_run (net, RTPCC_SEC (120));

  g_assert_true (sim_metrics_summarize (net->metrics, 0, RTPCC_SEC (40),
          RTPCC_SEC (80), &m));
  g_assert_true (sim_metrics_summarize (net->metrics, 100, RTPCC_SEC (40),
          RTPCC_SEC (80), &t));
  g_assert_true (sim_metrics_summarize (net->metrics, 0, RTPCC_SEC (100),
          RTPCC_SEC (120), &late));
  share = m.recv_kbps / (m.recv_kbps + t.recv_kbps);
  g_test_message ("gcc vs NewReno 40-80 s: %.0f vs %.0f kbit/s, share %.2f, "
      "queue p95 %.0f ms; alone again 100-120 s: %.0f kbit/s, queue p95 "
      "%.0f ms", m.recv_kbps, t.recv_kbps, share, m.qdelay_ms_p95,
      late.recv_kbps, late.qdelay_ms_p95);
  /* the premise: TCP filled the queue */
  g_assert_cmpfloat (m.qdelay_ms_p95, >=, 150);
  g_assert_cmpfloat (share, >=, 0.3);
  g_assert_cmpfloat (share, <=, 0.6);
  /* low delay again, and the link used */
  g_assert_cmpfloat (late.qdelay_ms_p95, <=, 50);
  g_assert_cmpfloat (late.recv_kbps, >=, 0.8 * 2000);
  sim_rtpcc_net_free (net);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/robust/feedback-loss-is-not-media-loss",
      test_feedback_loss_is_not_media_loss);
  g_test_add_func ("/sim/robust/ccfb-bytes-bounded-under-loss",
      test_ccfb_bytes_bounded_under_loss);
  g_test_add_func ("/sim/robust/feedback-stop", test_feedback_stop);
  g_test_add_func ("/sim/robust/outage-recovery", test_outage_recovery);
  g_test_add_func ("/sim/robust/gcc-against-tcp", test_gcc_against_tcp);
  return g_test_run ();
}

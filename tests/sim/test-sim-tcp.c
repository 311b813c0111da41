/* TCP NewReno / CUBIC models of the simulator (sim-tcp.h), alone and
 * together on a SimRtpccNet bottleneck: utilisation, multiplicative
 * decrease, fairness, the cubic window function, RTO recovery, short
 * on/off flows, determinism and config errors.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-tcp.h"

#include <math.h>

typedef struct
{
  SimRtpccNet *net;
  RtpccCapacity *cap;
} Net;

/* Drop-tail bottleneck of @spec kbit/s@s, @delay_ms one way both ways,
 * @queue_bytes (0: 300 ms at the capacity in force). */
static Net *
net_new (const gchar * spec, guint delay_ms, guint64 queue_bytes)
{
  Net *n = g_new0 (Net, 1);
  SimRtpccNetConfig nc;
  GError *err = NULL;

  n->cap = rtpcc_capacity_new_schedule (spec, &err);
  g_assert_no_error (err);
  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = n->cap;
  nc.forward.delay = RTPCC_MSEC (delay_ms);
  if (queue_bytes) {
    nc.forward.queue_limit_time = 0;
    nc.forward.queue_limit_bytes = queue_bytes;
  }
  nc.reverse.delay = RTPCC_MSEC (delay_ms);
  n->net = sim_rtpcc_net_new (&nc);
  return n;
}

static void
net_free (Net * n)
{
  sim_rtpcc_net_free (n->net);
  rtpcc_capacity_unref (n->cap);
  g_free (n);
}

static SimTcpFlow *
add_tcp (Net * n, guint flow, SimTcpCc cc, guint64 seed)
{
  SimTcpConfig tc;
  GError *err = NULL;
  SimTcpFlow *f;

  sim_tcp_config_init (&tc);
  tc.flow = flow;
  tc.cc = cc;
  tc.seed = seed;
  f = sim_rtpcc_net_add_tcp (n->net, &tc, &err);
  g_assert_no_error (err);
  g_assert_nonnull (f);
  return f;
}

/* Wire rate at the receiver over [t0, t1), kbit/s. */
static gdouble
recv_kbps (Net * n, guint flow, gdouble t0, gdouble t1)
{
  SimFlowSummary s;

  g_assert_true (sim_metrics_summarize (n->net->metrics, flow,
          RTPCC_SEC (t0), RTPCC_SEC (t1), &s));
  return s.recv_kbps;
}

/* 2 Mbit/s, 100 ms RTT, a one-BDP (25 kB) drop-tail queue: a single
 * NewReno flow keeps the link busy (a BDP of buffer is exactly what
 * Reno's halving needs to never drain it). */
static void
test_newreno_fills_link (void)
{
  Net *n = net_new ("2000@0", 50, 25000);
  SimTcpFlow *f = add_tcp (n, 1, SIM_TCP_NEWRENO, 1);
  SimTcpStats st;
  gdouble util, good;

  sim_rtpcc_net_run (n->net, RTPCC_SEC (60));
  sim_tcp_flow_get_stats (f, &st);
  util = recv_kbps (n, 1, 10, 60) / 2000.0;
  good = sim_tcp_flow_goodput_kbps (f, RTPCC_SEC (10), RTPCC_SEC (60));
  g_test_message ("newreno alone: utilisation %.3f goodput %.0f kbit/s, "
      "%" G_GUINT64_FORMAT " fast retransmits, %" G_GUINT64_FORMAT
      " timeouts, srtt %.1f ms", util, good, st.fast_retransmits,
      st.timeouts, RTPCC_TIME_AS_MSEC (st.srtt));
  g_assert_cmpfloat (util, >=, 0.90);
  g_assert_cmpfloat (util, <=, 1.001);
  /* goodput = wire rate minus headers minus retransmissions */
  g_assert_cmpfloat (good, <=, util * 2000.0 * 1460 / 1500 + 1.0);
  g_assert_cmpfloat (good, >=, 0.85 * 2000.0 * 1460 / 1500);
  /* it probed past the queue and recovered by fast retransmit */
  g_assert_cmpuint (st.fast_retransmits, >=, 3);
  g_assert_cmpuint (st.timeouts, ==, 0);
  /* RTT between propagation (100 ms) and propagation + full queue */
  g_assert_cmpfloat (RTPCC_TIME_AS_MSEC (st.srtt), >=, 100.0);
  g_assert_cmpfloat (RTPCC_TIME_AS_MSEC (st.srtt), <=, 100.0 + 101.0);
  net_free (n);
}

/* Every fast-retransmit reduction: NewReno ssthresh = FlightSize / 2
 * (≈ cwnd / 2: no receive window, so the flight is the window), CUBIC
 * ssthresh = 0.7 cwnd; the window after recovery is ssthresh. */
static void
check_decrease (SimTcpCc cc)
{
  Net *n = net_new ("4000@0", 25, 25000);
  SimTcpFlow *f = add_tcp (n, 1, cc, 1);
  const SimTcpCwndSample *log;
  guint len, reductions = 0;
  gdouble beta = cc == SIM_TCP_CUBIC ? 0.7 : 0.5;

  sim_rtpcc_net_run (n->net, RTPCC_SEC (60));
  log = sim_tcp_flow_get_cwnd_log (f, &len);
  for (guint i = 1; i < len; i++) {
    if (log[i].reductions == log[i - 1].reductions)
      continue;
    g_assert_cmpuint (log[i].reductions, ==, log[i - 1].reductions + 1);
    reductions++;
    if (cc == SIM_TCP_CUBIC)
      g_assert_cmpfloat (fabs (log[i].ssthresh - beta * log[i - 1].cwnd),
          <=, 1e-6 + 0.0 * beta);
    else
      /* the flight is floor(cwnd) (or one less right after a send) */
      g_assert_cmpfloat (fabs (log[i].ssthresh - beta * log[i - 1].cwnd),
          <=, 1.0);
    /* recovery: ssthresh + 3 (the three duplicates) */
    g_assert_cmpfloat (fabs (log[i].cwnd - (log[i].ssthresh + 3.0)), <=,
        1e-9);
  }
  g_test_message ("%s: %u reductions", sim_tcp_cc_name (cc), reductions);
  g_assert_cmpuint (reductions, >=, 3);
  net_free (n);
}

static void
test_newreno_halves (void)
{
  check_decrease (SIM_TCP_NEWRENO);
}

static void
test_cubic_decrease (void)
{
  check_decrease (SIM_TCP_CUBIC);
}

static gdouble
jain2 (gdouble a, gdouble b)
{
  return (a + b) * (a + b) / (2.0 * (a * a + b * b));
}

/* Two flows of one algorithm, same RTT, 4 Mbit/s, 200 s: fair shares.
 * NewReno converges within seconds. CUBIC converges slowly with drop-tail:
 * the two flows mostly lose in the same RTT and both scale by β, which
 * keeps their ratio; only fast convergence and the Reno-friendly region
 * move them together (~100 s here), so its first half is held to 0.85. */
static void
check_pair (SimTcpCc cc)
{
  Net *n = net_new ("4000@0", 50, 50000);
  SimTcpFlow *a = add_tcp (n, 1, cc, 1);
  SimTcpFlow *b = add_tcp (n, 2, cc, 2);
  gdouble ga, gb, ea, eb, util;

  sim_rtpcc_net_run (n->net, RTPCC_SEC (200));
  ea = sim_tcp_flow_goodput_kbps (a, RTPCC_SEC (20), RTPCC_SEC (100));
  eb = sim_tcp_flow_goodput_kbps (b, RTPCC_SEC (20), RTPCC_SEC (100));
  ga = sim_tcp_flow_goodput_kbps (a, RTPCC_SEC (100), RTPCC_SEC (200));
  gb = sim_tcp_flow_goodput_kbps (b, RTPCC_SEC (100), RTPCC_SEC (200));
  util = (recv_kbps (n, 1, 20, 200) + recv_kbps (n, 2, 20, 200)) / 4000.0;
  g_test_message ("two %s: 20-100 s %.0f / %.0f kbit/s (Jain %.4f), "
      "100-200 s %.0f / %.0f kbit/s (Jain %.4f), utilisation %.3f",
      sim_tcp_cc_name (cc), ea, eb, jain2 (ea, eb), ga, gb, jain2 (ga, gb),
      util);
  g_assert_cmpfloat (jain2 (ga, gb), >=, 0.95);
  g_assert_cmpfloat (jain2 (ea, eb), >=,
      cc == SIM_TCP_CUBIC ? 0.85 : 0.95);
  g_assert_cmpfloat (util, >=, 0.90);
  net_free (n);
}

static void
test_newreno_pair_fair (void)
{
  check_pair (SIM_TCP_NEWRENO);
}

static void
test_cubic_pair_fair (void)
{
  check_pair (SIM_TCP_CUBIC);
}

static gdouble
w_cubic (gdouble t, gdouble w_max, gdouble k)
{
  return 0.4 * pow (t - k, 3.0) + w_max;
}

/* CUBIC between two losses follows W(t) = C (t − K)³ + W_max with
 * K = ∛((W_max − cwnd_epoch) / C): 20 Mbit/s, 100 ms RTT, a BDP of queue, so
 * W_max is large (~340 segments) and the Reno-friendly estimate stays
 * below the cubic curve. The window lags W(t + RTT) by up to an RTT, so
 * each sample must lie between W(t − 2 RTT_max) and W(t + 2 RTT_max)
 * (W increases), RTT_max = propagation + full queue. */
static void
test_cubic_function (void)
{
  Net *n = net_new ("20000@0", 50, 250000);
  SimTcpFlow *f = add_tcp (n, 1, SIM_TCP_CUBIC, 1);
  const SimTcpCwndSample *log;
  guint len, epochs = 0, checked = 0;
  gdouble w_max = 0.0, rtt_max = 0.2;

  sim_rtpcc_net_run (n->net, RTPCC_SEC (240));
  log = sim_tcp_flow_get_cwnd_log (f, &len);
  for (guint i = 1; i < len; i++) {
    guint j, end;
    gdouble k, cwnd_before, t0;

    if (log[i].reductions == log[i - 1].reductions)
      continue;
    /* a loss: W_max with fast convergence, as RFC 9438 §4.7 */
    cwnd_before = log[i - 1].cwnd;
    w_max = cwnd_before < w_max ? cwnd_before * 0.85 : cwnd_before;
    /* the epoch starts at the first ACK in congestion avoidance, right
     * after recovery */
    for (j = i + 1; j < len && log[j].reductions == log[i].reductions &&
        log[j].recovery; j++);
    for (end = j; end < len && log[end].reductions == log[i].reductions;
        end++);
    /* only epochs that start in congestion avoidance (after a recovery
     * with several holes the window can deflate below ssthresh and slow
     * start first) and end with a loss */
    if (j >= len || end >= len || end - j < 100 ||
        log[j].cwnd < log[j].ssthresh - 1e-9)
      continue;
    /* RFC 9438 §4.2: K from the window at the epoch's start (W_max β
     * without fast convergence, as RFC 8312 writes it) */
    k = log[j].cwnd < w_max ? cbrt ((w_max - log[j].cwnd) / 0.4) : 0.0;
    if (log[j].cwnd > w_max)
      w_max = log[j].cwnd;
    t0 = RTPCC_TIME_AS_SEC (log[j].time);
    for (guint m = j + 1; m < end; m++) {
      gdouble t = RTPCC_TIME_AS_SEC (log[m].time) - t0;
      gdouble lo = w_cubic (MAX (t - 2 * rtt_max, 0.0), w_max, k) - 2.0;
      gdouble hi = w_cubic (t + 2 * rtt_max, w_max, k) + 2.0;
      if (log[m].cwnd < lo || log[m].cwnd > hi)
        g_error ("epoch at %.3f s (W_max %.1f, K %.2f s): cwnd %.2f at "
            "t = %.3f s outside [%.2f, %.2f]", t0, w_max, k, log[m].cwnd,
            t, lo, hi);
      checked++;
    }
    epochs++;
    g_test_message ("cubic epoch at %.2f s: W_max %.1f K %.2f s, %u samples",
        t0, w_max, k, end - j);
  }
  g_assert_cmpuint (epochs, >=, 2);
  g_assert_cmpuint (checked, >=, 1000);
  net_free (n);
}

/* A 3 s outage drops everything in flight: the flow times out (backoff,
 * no further halving of ssthresh), then fills the link again. */
static void
test_rto_recovery (void)
{
  Net *n = net_new ("2000@0,0@10,2000@13", 50, 25000);
  SimTcpFlow *f = add_tcp (n, 1, SIM_TCP_NEWRENO, 1);
  SimTcpStats st;
  gdouble util;

  sim_rtpcc_net_run (n->net, RTPCC_SEC (40));
  sim_tcp_flow_get_stats (f, &st);
  util = recv_kbps (n, 1, 20, 40) / 2000.0;
  g_test_message ("outage: %" G_GUINT64_FORMAT " timeouts, utilisation "
      "after %.3f", st.timeouts, util);
  g_assert_cmpuint (st.timeouts, >=, 2);
  g_assert_cmpuint (st.timeouts, <=, 6);
  g_assert_cmpfloat (util, >=, 0.85);
  net_free (n);
}

/* RFC 8867 §5.7-style short flows: files of 30-50 kB, exponential OFF
 * times with mean 10 s; every file arrives whole. */
static void
test_short_flows (void)
{
  Net *n = net_new ("2000@0", 50, 0);
  SimTcpFlow *f[10];
  guint done = 0, started = 0;
  gdouble off_sum = 0.0, fct_max = 0.0;
  guint off_n = 0;

  for (guint i = 0; i < 10; i++) {
    SimTcpConfig tc;
    GError *err = NULL;
    sim_tcp_config_init (&tc);
    tc.flow = 10 + i;
    tc.transfer_bytes = 30000;
    tc.transfer_bytes_max = 50000;
    tc.off_mean = RTPCC_SEC (10);
    tc.start_off = i >= 2;
    tc.seed = 7;
    f[i] = sim_rtpcc_net_add_tcp (n->net, &tc, &err);
    g_assert_no_error (err);
  }
  sim_rtpcc_net_run (n->net, RTPCC_SEC (300));
  for (guint i = 0; i < 10; i++) {
    guint nt;
    const SimTcpTransfer *tr = sim_tcp_flow_get_transfers (f[i], &nt);
    SimTcpStats st;
    guint64 bytes = 0;

    sim_tcp_flow_get_stats (f[i], &st);
    g_assert_cmpuint (st.transfers_started, ==, nt);
    for (guint k = 0; k < nt; k++) {
      g_assert_cmpuint (tr[k].bytes, >=, 30000);
      g_assert_cmpuint (tr[k].bytes, <=, 50000);
      if (tr[k].end != RTPCC_TIME_NONE) {
        done++;
        bytes += tr[k].bytes;
        fct_max = MAX (fct_max, RTPCC_TIME_AS_SEC (tr[k].end - tr[k].start));
        if (k + 1 < nt) {
          off_sum += RTPCC_TIME_AS_SEC (tr[k + 1].start - tr[k].end);
          off_n++;
        }
      }
    }
    started += nt;
    /* the receiver got every byte of every finished file */
    g_assert_cmpuint (st.delivered_bytes, >=, bytes);
  }
  g_test_message ("short flows: %u started, %u done, mean OFF %.2f s, "
      "max FCT %.2f s", started, done, off_sum / off_n, fct_max);
  /* ~300 s / (10 s + FCT) per flow */
  g_assert_cmpuint (started, >=, 200);
  g_assert_cmpuint (started, <=, 330);
  g_assert_cmpuint (done + 10, >=, started);
  g_assert_cmpfloat (off_sum / off_n, >=, 8.0);
  g_assert_cmpfloat (off_sum / off_n, <=, 12.0);
  g_assert_cmpfloat (fct_max, <, 10.0);
  net_free (n);
}

static gchar *
fingerprint (guint64 seed)
{
  Net *n = net_new ("3000@0,1000@20", 30, 0);
  SimTcpFlow *a = add_tcp (n, 1, SIM_TCP_CUBIC, seed);
  SimTcpFlow *b;
  SimTcpConfig tc;
  GString *s = g_string_new (NULL);
  const SimTcpCwndSample *log;
  const SimTcpTransfer *tr;
  guint len;
  GError *err = NULL;

  sim_tcp_config_init (&tc);
  tc.flow = 2;
  tc.transfer_bytes = 30000;
  tc.transfer_bytes_max = 50000;
  tc.off_mean = RTPCC_SEC (2);
  tc.seed = seed;
  b = sim_rtpcc_net_add_tcp (n->net, &tc, &err);
  g_assert_no_error (err);
  sim_rtpcc_net_run (n->net, RTPCC_SEC (40));
  log = sim_tcp_flow_get_cwnd_log (a, &len);
  for (guint i = 0; i < len; i++)
    g_string_append_printf (s, "%" G_GINT64_FORMAT " %.17g\n", log[i].time,
        log[i].cwnd);
  tr = sim_tcp_flow_get_transfers (b, &len);
  for (guint i = 0; i < len; i++)
    g_string_append_printf (s, "T %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
        " %" G_GUINT64_FORMAT "\n", tr[i].start, tr[i].end, tr[i].bytes);
  net_free (n);
  return g_string_free (s, FALSE);
}

static void
test_determinism (void)
{
  gchar *a = fingerprint (1), *b = fingerprint (1), *c = fingerprint (2);

  g_assert_cmpstr (a, ==, b);
  g_assert_cmpstr (a, !=, c);
  g_free (a);
  g_free (b);
  g_free (c);
}

/* TCP next to a media flow on one net: both get through, flow ids are
 * unique, a bad config is refused. */
static void
test_net_wiring (void)
{
  Net *n = net_new ("3000@0", 50, 0);
  SimRtpccFlowConfig fc;
  SimRtpccFlow *media;
  SimTcpConfig tc;
  SimTcpFlow *t;
  GError *err = NULL;
  SimTcpStats st;

  sim_rtpcc_flow_config_init (&fc, 0, "tfrc", SIM_RTPCC_FEEDBACK_AUTO, 1);
  fc.sender.sender.cc.min_bitrate = 150000;
  fc.sender.sender.cc.start_bitrate = 150000;
  fc.sender.sender.cc.max_bitrate = 1500000;
  media = sim_rtpcc_net_add_flow (n->net, &fc, &err);
  g_assert_no_error (err);
  t = add_tcp (n, 1, SIM_TCP_NEWRENO, 3);

  sim_tcp_config_init (&tc);
  tc.flow = 0;                  /* the media flow's id */
  g_assert_null (sim_rtpcc_net_add_tcp (n->net, &tc, &err));
  g_assert_error (err, RTPCC_ERROR, RTPCC_ERROR_INVALID);
  g_clear_error (&err);
  tc.flow = 1;                  /* the TCP flow's */
  g_assert_null (sim_rtpcc_net_add_tcp (n->net, &tc, &err));
  g_clear_error (&err);
  tc.flow = 5;
  tc.mss = 0;
  g_assert_null (sim_rtpcc_net_add_tcp (n->net, &tc, &err));
  g_clear_error (&err);
  tc.mss = 1460;
  tc.off_mean = RTPCC_SEC (1);  /* on/off without a file size */
  g_assert_null (sim_rtpcc_net_add_tcp (n->net, &tc, &err));
  g_clear_error (&err);

  sim_rtpcc_net_run (n->net, RTPCC_SEC (30));
  sim_tcp_flow_get_stats (t, &st);
  g_assert_cmpfloat (recv_kbps (n, 0, 10, 30), >, 100.0);
  g_assert_cmpfloat (recv_kbps (n, 1, 10, 30), >, 500.0);
  g_assert_cmpuint (st.acks_in, <=, st.acks_out);
  g_assert_cmpuint (st.acks_out, <=, st.data_packets);
  g_assert_nonnull (media);
  net_free (n);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/tcp/newreno-fills-link", test_newreno_fills_link);
  g_test_add_func ("/sim/tcp/newreno-halves", test_newreno_halves);
  g_test_add_func ("/sim/tcp/cubic-decrease", test_cubic_decrease);
  g_test_add_func ("/sim/tcp/newreno-pair-fair", test_newreno_pair_fair);
  g_test_add_func ("/sim/tcp/cubic-pair-fair", test_cubic_pair_fair);
  g_test_add_func ("/sim/tcp/cubic-function", test_cubic_function);
  g_test_add_func ("/sim/tcp/rto-recovery", test_rto_recovery);
  g_test_add_func ("/sim/tcp/short-flows", test_short_flows);
  g_test_add_func ("/sim/tcp/determinism", test_determinism);
  g_test_add_func ("/sim/tcp/net-wiring", test_net_wiring);
  return g_test_run ();
}

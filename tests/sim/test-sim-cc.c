/* Closed-loop congestion control in the simulator: the library's real
 * RtpccSender / RtpccReceiver (pacer, RFC 8888 CCFB and RTCP RR/SR on the
 * wire, controllers, RFC 8083 circuit breaker) against RFC 8867 §5.1.
 *
 * §5.1: capacity 1.0 → 2.5 → 0.6 → 1.0 Mbit/s at 0/40/60/80 s, 50 ms one
 * way each direction, 300 ms drop-tail queue, 100 s, one frame-based video
 * flow (25 fps, MTU 1200 incl. a 12-byte RTP header, 10 % Laplace size
 * noise). R_min = R_init = 150 kbit/s as in RFC 8867, but R_max = 3 Mbit/s
 * instead of 1.5 so a controller can follow the 2.5 Mbit/s phase. Phases
 * are measured from 5 s after each capacity change (the settling window) to
 * the next change: [5,40) [45,60) [65,80) [85,100).
 *
 * Every controller runs twice: as the product runs it (RFC 8083 circuit
 * breaker on) and alone (breaker off), and the controller thresholds hold
 * for both: the breaker must not get in the way of a responsive flow
 * (earlier library versions tripped it on TFRC and CCID2 right after the
 * 2.5 → 0.6 drop and held the flow at the minimum for ~5 s).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-rtpcc.h"

#include <math.h>
#include <string.h>

#define KBPS 1000
#define SEED 1

typedef struct
{
  const gchar *controller;
  guint64 start;                /* bit/s; 0 = the controller's (rr: max) */
  gboolean breaker;
  guint64 seed;
  RtpccTime offset;
} Spec;

static void
print_result (const gchar * title, const SimRtpccResult * r)
{
  GString *s = g_string_new (NULL);

  sim_rtpcc_result_format (r, "", s);
  sim_test_log_lines (title, s->str);
  g_string_free (s, TRUE);
}

/* Checks every run must pass, whatever the controller. */
static void
check_sane (const SimRtpccScenarioConfig * c, const SimRtpccResult * r)
{
  /* the endpoints never spun: every wake-up made progress */
  g_assert_cmpuint (r->sender.stalls, ==, 0);
  g_assert_cmpuint (r->receiver.stalls, ==, 0);
  /* every feedback packet parsed and was about our SSRC */
  g_assert_cmpuint (r->sender.feedback_rejected, ==, 0);
  g_assert_cmpuint (r->receiver.rtcp_rejected, ==, 0);
  g_assert_cmpuint (r->sender.feedback_in, >, 0);
  /* one 200 ms row per interval */
  g_assert_cmpuint (r->n_rows, ==, c->duration / c->interval);
  /* the published target stays inside [min, max] */
  for (guint i = 0; i < r->n_rows; i++) {
    g_assert_cmpfloat (r->rows[i].target_kbps, >=,
        c->min_bitrate / 1000.0 - 1e-6);
    g_assert_cmpfloat (r->rows[i].target_kbps, <=,
        c->max_bitrate / 1000.0 + 1e-6);
  }
}

static SimRtpccResult *
run_spec (const Spec * spec, SimRtpccScenarioConfig * c)
{
  SimRtpccResult *r;
  GError *err = NULL;

  sim_rtpcc_scenario_config_init (c);
  c->controller = spec->controller;
  c->start_bitrate = spec->start;
  c->circuit_breaker = spec->breaker;
  c->seed = spec->seed;
  c->clock_offset = spec->offset;
  r = sim_rtpcc_run_scenario (c, &err);
  g_assert_no_error (err);
  g_assert_nonnull (r);
  check_sane (c, r);
  return r;
}

static SimRtpccResult *
run (const gchar * controller, guint64 start, gboolean breaker)
{
  Spec spec = { controller, start, breaker, SEED, 0 };
  SimRtpccScenarioConfig c;
  SimRtpccResult *r = run_spec (&spec, &c);
  gchar *title = g_strdup_printf ("RFC 8867 5.1, %s, start %" G_GUINT64_FORMAT
      " kbit/s, max 3000 kbit/s, circuit breaker %s, seed %d:", controller,
      (start ? start : c.max_bitrate) / KBPS, breaker ? "on" : "off", SEED);

  print_result (title, r);
  g_free (title);
  return r;
}

static const SimRtpccPhase *
phase_at (const SimRtpccResult * r, gdouble t_s)
{
  for (guint i = 0; i < r->n_phases; i++)
    if (r->phases[i].start <= RTPCC_SEC (t_s)
        && RTPCC_SEC (t_s) < r->phases[i].end)
      return &r->phases[i];
  g_assert_not_reached ();
  return NULL;
}

static const SimRtpccChange *
change_at (const SimRtpccResult * r, gdouble t_s)
{
  for (guint i = 0; i < r->n_changes; i++)
    if (r->changes[i].time == RTPCC_SEC (t_s))
      return &r->changes[i];
  g_assert_not_reached ();
  return NULL;
}

/* §5.1 phases: [5,40) 1.0, [45,60) 2.5, [65,80) 0.6, [85,100) 1.0 Mbit/s */
static const gdouble phase_times[] = { 20, 50, 70, 90 };

/* Thresholds for the loss-based controllers (TFRC, CCID2).
 *
 * Utilisation >= 90 % in every steady phase (the issue asks >= 80 %): a
 * loss-based controller only backs off when the drop-tail queue overflows,
 * so the queue never empties and the link never idles; measured >= 99 %
 * over seeds 1-20.
 * Loss <= 2 % in every steady phase: the TCP equation at the RTT these
 * runs see (R ~ 0.35 s with the queue) and X = C gives p = 1.5 (s/RX)^2,
 * 0.1 % at 1 Mbit/s and 0.3 % at 0.6 Mbit/s; a drop-tail overflow loses
 * a few packets per event; measured <= 0.8 %. The fixed 1.2 Mbit/s
 * reference loses 16-47 % in the same phases.
 * Queue delay: no bound beyond the 300 ms queue: both fill it by design
 * (p95 250-285 ms, printed). */
static void
assert_loss_based (const SimRtpccResult * r)
{
  for (guint i = 0; i < G_N_ELEMENTS (phase_times); i++) {
    const SimRtpccPhase *ph = phase_at (r, phase_times[i]);
    g_assert_cmpfloat (ph->utilisation, >=, 0.90);
    g_assert_cmpfloat (ph->loss_pct, <=, 2.0);
    g_assert_cmpfloat (ph->qdelay_p95_ms, <=, 300.0 + 1.0);
  }
}

/* Rate-based controllers (TFRC, rr, fixed) drain the sender at the pacing
 * rate, which the pacer raises so that no packet waits longer than its
 * max-delay (100 ms, RtpccPacerConfig default): the wait in the sender is
 * bounded whatever the controller decides. Measured max 78-89 ms. */
static void
assert_sender_delay_bounded (const SimRtpccResult * r)
{
  g_assert_cmpfloat (r->sender_delay_max_ms, <=, 100.0 + 1.0);
}

static void
check_tfrc (const SimRtpccResult * r)
{
  assert_loss_based (r);
  /* After 2.5 → 0.6 (issue: within 3 s). TFRC can only see the drop once
   * packets behind the ~1 s of tail drops arrive: the 300 ms of 2.5 Mbit/s
   * backlog drains at 0.6 Mbit/s in 1.25 s, then one RTT of feedback and
   * the loss-event update; measured 2.2-2.6 s over seeds 1-20. */
  g_assert_cmpfloat (change_at (r, 60)->response_s, <=, 3.0);
  /* Increases: the equation rate scales with 1/RTT and the queue drains
   * within an RTT of a capacity increase, so 80 % comes within seconds;
   * 5 s is what TCP congestion avoidance (+1 packet per RTT per RTT) needs
   * to add 1.2 Mbit/s at R = 0.2 s. Measured 0.8-2.8 s (40 s), 0.4-0.8 s
   * (80 s). */
  g_assert_cmpfloat (change_at (r, 40)->response_s, <=, 5.0);
  g_assert_cmpfloat (change_at (r, 80)->response_s, <=, 5.0);
  assert_sender_delay_bounded (r);
}

static void
test_tfrc (void)
{
  SimRtpccResult *alone = run ("tfrc", 150 * KBPS, FALSE);
  SimRtpccResult *product = run ("tfrc", 150 * KBPS, TRUE);

  check_tfrc (alone);
  check_tfrc (product);
  sim_rtpcc_result_free (alone);
  sim_rtpcc_result_free (product);
}

static void
check_ccid2 (const SimRtpccResult * r)
{
  assert_loss_based (r);
  /* The window halves once per loss RTT and the published rate is
   * cwnd·s / (send→feedback cycle), which the draining backlog's RTT
   * inflation cuts too; the
   * same 1.25 s drain bounds when losses show: within 3 s like TFRC.
   * Measured 1.3-1.8 s over seeds 1-20 before the sender's backlog drain;
   * 1.84 s on seed 1 since. */
  g_assert_cmpfloat (change_at (r, 60)->response_s, <=, 3.0);
  /* A window follows an increase within an RTT or two: the ACK clock
   * speeds up as soon as the link does. Measured <= 0.8 s before the
   * backlog drain; 1.2 s / 0.2 s on seed 1 since. */
  g_assert_cmpfloat (change_at (r, 40)->response_s, <=, 2.0);
  g_assert_cmpfloat (change_at (r, 80)->response_s, <=, 2.0);
  /* The window holds packets back in the sender, beyond the pacer's
   * 100 ms bound. It used to grow without bound (the published rate used
   * SRTT, not the window's send→feedback cycle, so the encoder outran the
   * window); now the rate uses the mean cycle and the sender lowers the
   * encoder target to drain a backlog within 1 s. Measured p95 148-201 ms
   * per phase, all-run p95 ~189 ms: assert the all-run p95 stays under
   * 500 ms (one backlog-drain period plus the pacer bound, with margin). */
  g_test_message ("ccid2: wait in the sender p95 %.0f ms, max %.0f ms",
      r->sender_delay_p95_ms, r->sender_delay_max_ms);
  g_assert_cmpfloat (r->sender_delay_p95_ms, <=, 500.0);
}

static void
test_ccid2 (void)
{
  SimRtpccResult *alone = run ("ccid2", 150 * KBPS, FALSE);
  SimRtpccResult *product = run ("ccid2", 150 * KBPS, TRUE);

  check_ccid2 (alone);
  check_ccid2 (product);
  sim_rtpcc_result_free (alone);
  sim_rtpcc_result_free (product);
}

/* The linphone baseline: RTCP RR feedback only, starts at its nominal
 * bitrate (max, 3 Mbit/s) as linphone does, and is expected to do poorly.
 * It must react to the drop and must not starve. */
static void
test_rr (void)
{
  SimRtpccResult *alone = run ("rr", 0, FALSE);
  SimRtpccResult *product = run ("rr", 0, TRUE);
  const SimRtpccChange *drop = change_at (alone, 60);

  g_assert_cmpstr (alone->feedback, ==, "rr");
  /* The first cut after 2.5 → 0.6: the loss (or the doubled RTT) shows in
   * the first RR built after packets behind the tail drops arrive: backlog
   * drain 1.25 s + at most one randomised RR interval (1.5 s) + 50 ms ≈
   * 2.8 s. Measured 0.6-1.8 s. */
  g_assert_false (isnan (drop->reduce_s));
  g_assert_cmpfloat (drop->reduce_s, <=, 3.5);
  /* It never starves: every phase delivers more than the minimum rate. */
  for (guint i = 0; i < alone->n_phases; i++)
    g_assert_cmpfloat (alone->phases[i].recv_kbps, >=, 150.0);
  /* The startup blast at 3 Mbit/s into 1 Mbit/s is what the RFC 8083
   * breaker exists for: it must trip early in the product configuration. */
  g_assert_cmpuint (product->breaker_trips, >=, 1);
  g_assert_cmpint (product->breaker_first_trip, <, RTPCC_SEC (10));
  for (guint i = 0; i < product->n_phases; i++)
    g_assert_cmpfloat (product->phases[i].recv_kbps, >=, 150.0);
  assert_sender_delay_bounded (alone);
  assert_sender_delay_bounded (product);

  sim_rtpcc_result_free (alone);
  sim_rtpcc_result_free (product);
}

/* No congestion control at 1.2 Mbit/s: the reference showing what the
 * queue and the loss look like when nobody adapts. */
static void
test_fixed (void)
{
  SimRtpccResult *alone = run ("fixed", 1200 * KBPS, FALSE);
  SimRtpccResult *product = run ("fixed", 1200 * KBPS, TRUE);

  for (guint i = 0; i < alone->n_phases; i++) {
    const SimRtpccPhase *ph = &alone->phases[i];
    g_assert_cmpfloat (fabs (ph->target_kbps - 1200.0), <, 1e-6);
    if (ph->capacity_kbps < ph->send_kbps) {
      /* overloaded: the link runs flat out behind a full queue and drops
       * the excess: loss ≈ 1 − C/send (packets vs bytes: within 20 %) */
      gdouble excess = 100.0 * (1.0 - ph->capacity_kbps / ph->send_kbps);
      g_assert_cmpfloat (ph->recv_kbps, >=, 0.98 * ph->capacity_kbps);
      g_assert_cmpfloat (ph->recv_kbps, <=, 1.02 * ph->capacity_kbps);
      g_assert_cmpfloat (ph->loss_pct, >=, 0.8 * excess);
      g_assert_cmpfloat (ph->loss_pct, <=, 1.2 * excess);
      g_assert_cmpfloat (ph->qdelay_p50_ms, >=, 250.0);
    } else {
      /* 2.5 Mbit/s: everything gets through, the queue holds at most a
       * frame's burst (the pacer spreads it) */
      g_assert_cmpfloat (ph->loss_pct, ==, 0.0);
      g_assert_cmpfloat (ph->qdelay_p95_ms, <, 10.0);
    }
  }
  /* Whether RFC 8083 stops a flow at 1.2× capacity depends on how the
   * breaker estimates p (fraction lost vs loss-event rate): printed, not
   * asserted; the breaker has its own unit tests. */
  g_assert_cmpuint (alone->breaker_trips, ==, 0);
  assert_sender_delay_bounded (alone);
  assert_sender_delay_bounded (product);

  sim_rtpcc_result_free (alone);
  sim_rtpcc_result_free (product);
}

/* One line per run: the side-by-side comparison. */
static void
test_compare (void)
{
  static const Spec specs[] = {
    {"tfrc", 150 * KBPS, FALSE, SEED, 0},
    {"ccid2", 150 * KBPS, FALSE, SEED, 0},
    {"rr", 0, FALSE, SEED, 0},
    {"fixed", 1200 * KBPS, FALSE, SEED, 0},
    {"tfrc", 150 * KBPS, TRUE, SEED, 0},
    {"ccid2", 150 * KBPS, TRUE, SEED, 0},
    {"rr", 0, TRUE, SEED, 0},
    {"fixed", 1200 * KBPS, TRUE, SEED, 0},
  };

  g_test_message ("RFC 8867 5.1 (seed %d): utilisation per phase [5,40) "
      "[45,60) [65,80) [85,100), queue delay p50/p95/max over the run, loss, "
      "response to 40 s (80 %%), 60 s (target < C; first cut), 80 s (80 %%)",
      SEED);
  g_test_message ("%-6s %-3s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s "
      "%6s %7s %7s", "cc", "cb", "u1", "u2", "u3", "u4", "qd50", "qd95",
      "qdmax", "loss%", "r40", "r60", "cut60", "r80", "sd95", "sdmax");
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++) {
    SimRtpccScenarioConfig c;
    SimRtpccResult *r = run_spec (&specs[i], &c);
    g_test_message ("%-6s %-3s %5.1f%% %5.1f%% %5.1f%% %5.1f%% %6.1f %6.1f "
        "%6.1f %6.2f %6.2f %6.2f %6.2f %6.2f %7.1f %7.1f",
        specs[i].controller,
        specs[i].breaker ? "on" : "off",
        100 * phase_at (r, 20)->utilisation,
        100 * phase_at (r, 50)->utilisation,
        100 * phase_at (r, 70)->utilisation,
        100 * phase_at (r, 90)->utilisation, r->total.qdelay_ms_p50,
        r->total.qdelay_ms_p95, r->total.qdelay_ms_max, r->total.loss_pct,
        change_at (r, 40)->response_s, change_at (r, 60)->response_s,
        change_at (r, 60)->reduce_s, change_at (r, 80)->response_s,
        r->sender_delay_p95_ms, r->sender_delay_max_ms);
    sim_rtpcc_result_free (r);
  }
}

static gchar *
run_csv (const Spec * spec, SimRtpccSenderCounters * counters)
{
  SimRtpccScenarioConfig c;
  SimRtpccResult *r = run_spec (spec, &c);
  GString *csv = g_string_new (NULL);

  sim_rtpcc_result_write_csv (r, csv);
  if (counters)
    *counters = r->sender;
  sim_rtpcc_result_free (r);
  return g_string_free (csv, FALSE);
}

static void
test_determinism (void)
{
  static const Spec specs[] = {
    {"tfrc", 150 * KBPS, TRUE, 7, 0},
    {"rr", 0, TRUE, 7, 0},
  };

  for (guint i = 0; i < G_N_ELEMENTS (specs); i++) {
    Spec other = specs[i];
    SimRtpccSenderCounters ca, cb;
    gchar *a = run_csv (&specs[i], &ca);
    gchar *b = run_csv (&specs[i], &cb);
    gchar *d;

    /* same seed: the same series, byte for byte, and the same counters */
    g_assert_cmpstr (a, ==, b);
    g_assert_true (memcmp (&ca, &cb, sizeof ca) == 0);
    /* another seed (frame sizes, RTCP randomisation) gives another run */
    other.seed = 8;
    d = run_csv (&other, NULL);
    g_assert_cmpstr (a, !=, d);
    g_free (a);
    g_free (b);
    g_free (d);
  }
}

/* The receiver's clock is the simulated time plus a constant: nothing the
 * sender does may depend on it. */
static void
test_clock_offset (void)
{
  static const gchar *ctls[] = { "tfrc", "ccid2", "rr" };

  for (guint i = 0; i < G_N_ELEMENTS (ctls); i++) {
    guint64 start = g_str_equal (ctls[i], "rr") ? 0 : 150 * KBPS;
    Spec spec = { ctls[i], start, TRUE, SEED, 0 };
    gchar *ref = run_csv (&spec, NULL);

    /* Whole seconds keep every timestamp's quantisation (CCFB 1/1024 s
     * arrival offsets against a 1/65536 s report clock, DLSR) the same, so
     * the run must be identical. 65530 s puts the receiver's 16.16 NTP
     * report clock 6 s before its wrap: the sender must unwrap it. */
    static const RtpccTime offsets[] = {
      RTPCC_SEC (12345), RTPCC_SEC (65530)
    };
    for (guint k = 0; k < G_N_ELEMENTS (offsets); k++) {
      gchar *csv;
      spec.offset = offsets[k];
      csv = run_csv (&spec, NULL);
      g_assert_cmpstr (ref, ==, csv);
      g_free (csv);
    }
    g_free (ref);
  }

  /* A fractional offset moves every arrival's rounding on the wire, so
   * runs differ in detail; the controller's behaviour must not: same
   * phases within 3 points of utilisation and 25 ms of p95 delay, the
   * same responses within 0.5 s (breaker off: it is a threshold on a
   * 3-report window and turns a rounding into a trip or not). RR-only
   * feedback carries no absolute receiver time and stays identical. */
  for (guint i = 0; i < G_N_ELEMENTS (ctls); i++) {
    guint64 start = g_str_equal (ctls[i], "rr") ? 0 : 150 * KBPS;
    Spec spec = { ctls[i], start, FALSE, SEED, 0 };
    SimRtpccScenarioConfig c;
    SimRtpccResult *a = run_spec (&spec, &c), *b;

    spec.offset = RTPCC_SEC (777) + 123456789;
    b = run_spec (&spec, &c);
    g_test_message ("%s, receiver clock +777.123456789 s: utilisation "
        "%.1f/%.1f/%.1f/%.1f %% (offset 0: %.1f/%.1f/%.1f/%.1f %%)",
        ctls[i], 100 * b->phases[0].utilisation,
        100 * b->phases[1].utilisation, 100 * b->phases[2].utilisation,
        100 * b->phases[3].utilisation, 100 * a->phases[0].utilisation,
        100 * a->phases[1].utilisation, 100 * a->phases[2].utilisation,
        100 * a->phases[3].utilisation);
    g_assert_cmpuint (a->n_phases, ==, b->n_phases);
    for (guint k = 0; k < a->n_phases; k++) {
      g_assert_cmpfloat (fabs (a->phases[k].utilisation -
              b->phases[k].utilisation), <=, 0.03);
      g_assert_cmpfloat (fabs (a->phases[k].qdelay_p95_ms -
              b->phases[k].qdelay_p95_ms), <=, 25.0);
    }
    for (guint k = 0; k < a->n_changes; k++) {
      gdouble x = a->changes[k].response_s, y = b->changes[k].response_s;
      g_assert_cmpint (isnan (x), ==, isnan (y));
      if (!isnan (x))
        g_assert_cmpfloat (fabs (x - y), <=, 0.5);
    }
    if (g_str_equal (ctls[i], "rr")) {
      GString *x = g_string_new (NULL), *y = g_string_new (NULL);
      sim_rtpcc_result_write_csv (a, x);
      sim_rtpcc_result_write_csv (b, y);
      g_assert_cmpstr (x->str, ==, y->str);
      g_string_free (x, TRUE);
      g_string_free (y, TRUE);
    }
    sim_rtpcc_result_free (a);
    sim_rtpcc_result_free (b);
  }
}

/* The wiring itself, on a plain 1 Mbit/s link for 20 s: RTP sequence
 * numbers wrap, every layer's counters agree, the reverse path's delay is
 * the configured one, nothing leaks. */
static void
test_endpoints (void)
{
  SimRtpccNetConfig nc;
  SimRtpccFlowConfig fc;
  SimRtpccNet *net;
  SimRtpccFlow *flow;
  GError *err = NULL;
  SimFlowTotals tot;
  const RtpccSenderStats *ss;
  const RtpccReceiverStats *rs;
  const SimRtpccSenderCounters *sc;
  const SimRtpccReceiverCounters *rc;
  const RtpccLinkStats *ls;
  RtpccTime end = RTPCC_SEC (20);

  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = rtpcc_capacity_new_constant (1000000);
  nc.forward.delay = RTPCC_MSEC (50);
  nc.reverse.delay = RTPCC_MSEC (150);
  net = sim_rtpcc_net_new (&nc);
  rtpcc_capacity_unref (nc.forward.capacity);

  sim_rtpcc_flow_config_init (&fc, 3, "tfrc", SIM_RTPCC_FEEDBACK_AUTO, 5);
  fc.sender.sender.cc.max_bitrate = 3000000;
  fc.sender.initial_seq = 65500;
  fc.receiver.clock_offset = RTPCC_SEC (1000);
  flow = sim_rtpcc_net_add_flow (net, &fc, &err);
  g_assert_no_error (err);
  g_assert_cmpuint (flow->flow, ==, 3);

  sim_rtpcc_net_run (net, end);

  ss = rtpcc_sender_get_stats (sim_rtpcc_sender_get_sender (flow->sender),
      end);
  rs = rtpcc_receiver_get_stats (sim_rtpcc_receiver_get_receiver
      (flow->receiver), end + fc.receiver.clock_offset);
  sc = sim_rtpcc_sender_get_counters (flow->sender);
  rc = sim_rtpcc_receiver_get_counters (flow->receiver);
  ls = rtpcc_link_get_stats (sim_link_get_link (net->forward));
  g_assert_true (sim_metrics_get_totals (net->metrics, 3, &tot));

  g_test_message ("20 s at 1 Mbit/s: %" G_GUINT64_FORMAT " media packets "
      "sent, %" G_GUINT64_FORMAT " received, %" G_GUINT64_FORMAT
      " lost (receiver), %" G_GUINT64_FORMAT " link drops; srtt %.1f ms",
      sc->media_out, rc->media_in, rs->packets_lost,
      ls->queue_drops + ls->loss_drops, RTPCC_TIME_AS_MSEC (ss->srtt));

  /* every packet taken from the source went out (no pacer or breaker
   * drops here), and the sender's library stats agree */
  g_assert_cmpuint (ss->pacer_drops + ss->breaker_drops, ==, 0);
  g_assert_cmpuint (sc->media_in, >=, sc->media_out);
  g_assert_cmpuint (ss->packets_sent, ==, sc->media_out);
  /* 65500 + packets: the RTP sequence number wrapped in the run */
  g_assert_cmpuint (sc->media_out, >, 36);
  /* the taps saw media + SRs of flow 3 */
  g_assert_cmpuint (tot.sent_packets, ==, sc->media_out + sc->rtcp_out);
  g_assert_cmpuint (tot.recv_packets, ==, rc->media_in + rc->rtcp_in);
  /* the receiver tracked the wrap: its RFC 3550 loss count is what the
   * link dropped (a broken wrap would count ~65536 lost), at most the
   * drops not yet followed by a received packet fewer */
  g_assert_cmpuint (rs->packets_received, ==, rc->media_in);
  g_assert_cmpuint (rs->duplicates, ==, 0);
  g_assert_cmpuint (rs->packets_lost, <=, ls->queue_drops + ls->loss_drops);
  g_assert_cmpuint (rs->packets_lost + 50, >=, ls->queue_drops +
      ls->loss_drops);
  /* SRs crossed the forward path and were used for LSR (RR DLSR) */
  g_assert_cmpuint (sc->rtcp_out, >=, 14);
  g_assert_cmpuint (rc->rtcp_in, >=, sc->rtcp_out - 1);
  g_assert_cmpuint (rc->rtcp_rejected, ==, 0);
  /* feedback: per frame (~25/s), all parsed; at most what is in flight on
   * the 150 ms reverse path is missing */
  g_assert_cmpuint (rc->feedback_out, >=, 20 * 20);
  g_assert_cmpuint (sc->feedback_in + 10, >=, rc->feedback_out);
  g_assert_cmpuint (sc->feedback_rejected, ==, 0);
  /* the RTT is 50 + 150 ms plus queueing: the reverse delay is honoured */
  g_assert_cmpint (ss->srtt, >=, RTPCC_MSEC (200));
  g_assert_cmpint (ss->srtt, <, RTPCC_MSEC (600));
  g_assert_cmpuint (sc->stalls + rc->stalls, ==, 0);

  /* teardown with packets queued in the pacer, on both links and timers
   * armed: sim_free warns (fatal here) if any packet leaked */
  sim_rtpcc_net_free (net);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/cc/endpoints", test_endpoints);
  g_test_add_func ("/sim/cc/rfc8867-5.1/tfrc", test_tfrc);
  g_test_add_func ("/sim/cc/rfc8867-5.1/ccid2", test_ccid2);
  g_test_add_func ("/sim/cc/rfc8867-5.1/rr", test_rr);
  g_test_add_func ("/sim/cc/rfc8867-5.1/fixed", test_fixed);
  g_test_add_func ("/sim/cc/rfc8867-5.1/compare", test_compare);
  g_test_add_func ("/sim/cc/determinism", test_determinism);
  g_test_add_func ("/sim/cc/clock-offset", test_clock_offset);
  return g_test_run ();
}

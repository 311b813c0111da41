/* RFC 8867 for the delay-based controllers (gcc, nada) in the closed loop:
 * the library's real RtpccSender / RtpccReceiver (pacer, RFC 8888 CCFB or
 * TWCC on the wire, RFC 8083 breaker on, as the product runs) on one shared
 * drop-tail bottleneck, 50 ms one way each direction, 300 ms queue,
 * frame-based video (25 fps, MTU 1200 incl. a 12-byte RTP header, 10 %
 * Laplace size noise), R_min = R_init = 150 kbit/s, R_max = 3 Mbit/s (as in
 * test-sim-cc: RFC 8867's 1.5 Mbit/s would cap §5.1's 2.5 Mbit/s phase and
 * §5.2's 2 Mbit/s share).
 *
 *   §5.1  one flow, 1.0 → 2.5 → 0.6 → 1.0 Mbit/s at 0/40/60/80 s, 100 s
 *   §5.2  two flows from 0 s, 4.0 → 2.0 → 3.5 → 1.0 → 2.0 Mbit/s at
 *         0/25/50/75/100 s, 125 s
 *   §5.4  three flows on 3.5 Mbit/s joining at 0/20/40 s, every source
 *         stops at 119 s, 120 s
 *
 * Each flow is its own call: its sender, receiver and source are created
 * when it joins (not idling from 0 s), with its own seeds.
 *
 * What is measured (RFC 8868 §4 conventions; the same as SimMetrics: sends
 * and drops counted at send time, receptions and their queue delay at
 * receive time; rates are wire bytes, RTCP SRs and probe padding included):
 *
 *  - per window (a steady phase [change + 5 s, next change), or the §5.4
 *    join segments) and flow: send and receive rate, loss;
 *  - aggregate utilisation = Σ receive rate / capacity;
 *  - queue delay p50/p95/max pooled over every flow's packets received in
 *    the window (the link's own queue delay carried on each packet, see
 *    docs/simulator.md; one FIFO, so every flow sees the same queue);
 *  - Jain's index J = (Σ r_i)² / (n Σ r_i²) over the flows' mean receive
 *    rates in the window (1 = equal shares, 1/n = one flow has it all);
 *  - share_i = r_i / (C / n), the flow's receive rate relative to an equal
 *    split of the capacity (what §5.2/§5.4 call the fair share).
 *
 * Thresholds and their defence are next to each check. Where a controller
 * misses the aim the test prints "MISS" with the numbers and asserts
 * only what holds, with the reason (see also docs/simulator.md, section
 * "RFC 8867 for gcc and nada").
 *
 * The thresholds are asserted for seed 1 and hold with margin for seeds
 * 1-40 (checked with RTPCC_RFC8867_SEED=1..40, one run of the suite each).
 * Development aids, none needed in CI:
 *  - `-m thorough`: seeds 1-10 (RTPCC_RFC8867_SWEEP=n: 1-n) of every case,
 *    one summary line per run (RTPCC_RFC8867_SWEEP_FROM=m: from seed m;
 *    RTPCC_RFC8867_SWEEP_CC=gcc|nada: one controller); the counts of runs
 *    that miss each aim: tests/sim/rfc8867-sweep-summary;
 *  - RTPCC_RFC8867_SEED=n: run the tests on another seed;
 *  - RTPCC_RFC8867_PARAM=g<key=value;...> / n<key=value;...>: set gcc /
 *    nada parameters on every flow (e.g. gburst-guard=false);
 *  - RTPCC_RFC8867_LOG_DIR=dir: each run's per-flow 200 ms SimMetrics CSV;
 *  - RTPCC_RFC8867_TRACE=t0,t1: every target change in [t0, t1) s.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-rtpcc.h"

#include <rtpcc/cc/gcc.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KBPS 1000
#define SEED 1
#define MAX_FLOWS 3
#define SETTLE RTPCC_SEC (5)
#define MIN_BPS (150 * KBPS)
#define MAX_BPS (3000 * KBPS)

/* ------------------------------------------------------------------------ */
/* A multi-flow run                                                         */

typedef enum
{
  WINDOWS_PHASES,               /* steady phases of the capacity schedule */
  WINDOWS_JOINS,                /* §5.4: join segments + fairness window */
} WindowKind;

typedef struct
{
  const gchar *name;            /* "5.1", "5.2", "5.4" */
  const gchar *controller;
  SimRtpccFeedback feedback;
  const gchar *param;           /* "key=value" for the controller, or NULL */
  WindowKind windows;
  const gchar *schedule;        /* capacity, kbit/s@s */
  RtpccTime duration;
  guint n_flows;
  RtpccTime join[MAX_FLOWS];    /* each flow's call starts here */
  RtpccTime stop;               /* every source stops (RTPCC_TIME_INFINITE) */
  guint64 seed;
} Case;

/* One packet offered to the bottleneck (the link observer). */
typedef struct
{
  RtpccTime sent;               /* offered = sent: the link follows the taps */
  RtpccTime deliver;            /* RTPCC_TIME_NONE if dropped */
  RtpccTime qdelay;
  guint32 size;
  guint8 flow;
} PktRec;

/* Statistics over [t0, t1). */
typedef struct
{
  RtpccTime t0, t1;
  gdouble cap_kbps;             /* time-weighted mean */
  guint n;                      /* flows whose call is running in the window */
  gdouble send[MAX_FLOWS], recv[MAX_FLOWS], floss[MAX_FLOWS];  /* kbit/s, % */
  gdouble target[MAX_FLOWS];    /* time-weighted mean target, kbit/s */
  gdouble util;                 /* Σ recv / cap */
  gdouble jain;                 /* over the n active flows' recv */
  gdouble share_min, share_max; /* recv / (cap / n) */
  gdouble qd50, qd95, qdmax;    /* pooled, ms */
  gdouble loss;                 /* pooled, % of packets */
  gdouble sd95;                 /* sender (pacer) wait p95, worst flow, ms */
} Window;

typedef struct
{
  Case c;
  SimRtpccNet *net;
  RtpccCapacity *cap;
  SimRtpccFlow *flow[MAX_FLOWS];
  GArray *pkts;                 /* PktRec */
  FILE *log;
} Run;

static void
observe (SimLink * link, const SimPacket * p, const RtpccLinkOutcome * o,
    gpointer user_data)
{
  Run *run = user_data;
  PktRec r;

  (void) link;
  g_assert_cmpuint (p->flow, <, MAX_FLOWS);
  r.sent = o->arrival;
  r.deliver = o->verdict == RTPCC_LINK_DELIVERED ? o->deliver_at :
      RTPCC_TIME_NONE;
  r.qdelay = o->queue_delay;
  r.size = p->size;
  r.flow = (guint8) p->flow;
  g_array_append_val (run->pkts, r);
}

static void
add_flow (Run * run, guint i)
{
  SimRtpccFlowConfig fc;
  GError *err = NULL;
  guint64 seed = run->c.seed * 101 + i;

  sim_rtpcc_flow_config_init (&fc, i, run->c.controller, run->c.feedback,
      seed);
  fc.sender.sender.cc.min_bitrate = MIN_BPS;
  fc.sender.sender.cc.max_bitrate = MAX_BPS;
  fc.sender.sender.cc.start_bitrate = MIN_BPS;
  fc.sender.sender.circuit_breaker = TRUE;
  /* RTP seq starts near the wrap so every run crosses it */
  fc.sender.initial_seq = (guint16) (65000 + 100 * i);
  fc.sender.initial_rtp_ts = (guint32) (seed * 2654435761u);
  fc.frames.start = sim_now (run->net->sim);
  fc.frames.stop = run->c.stop;
  run->flow[i] = sim_rtpcc_net_add_flow (run->net, &fc, &err);
  g_assert_no_error (err);
  g_assert_nonnull (run->flow[i]);
  /* "key=value[;key=value...]" */
  rtpcc_controller_set_params (rtpcc_sender_get_controller
      (sim_rtpcc_sender_get_sender (run->flow[i]->sender)), run->c.param,
      &err);
  g_assert_no_error (err);
}

static Run *
run_case (const Case * c)
{
  Run *run = g_new0 (Run, 1);
  SimRtpccNetConfig nc;
  GError *err = NULL;
  const gchar *dir = g_getenv ("RTPCC_RFC8867_LOG_DIR");

  run->c = *c;
  run->pkts = g_array_sized_new (FALSE, FALSE, sizeof (PktRec), 1 << 16);
  run->cap = rtpcc_capacity_new_schedule (c->schedule, &err);
  g_assert_no_error (err);

  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = run->cap;
  nc.forward.delay = RTPCC_MSEC (50);
  nc.forward.queue_limit_time = RTPCC_MSEC (300);
  nc.forward.seed = c->seed;
  nc.reverse.delay = RTPCC_MSEC (50);
  nc.reverse.seed = c->seed ^ G_GUINT64_CONSTANT (0x5eed5eed5eed5eed);
  if (dir) {
    gchar *file = g_strdup_printf ("%s/rfc8867-%s-%s-%s%s-seed%"
        G_GUINT64_FORMAT ".csv", dir, c->name, c->controller,
        sim_rtpcc_feedback_name (c->feedback), c->param ? "-param" : "",
        c->seed);
    run->log = fopen (file, "w");
    g_assert_nonnull (run->log);
    g_free (file);
    nc.log = run->log;
  }
  run->net = sim_rtpcc_net_new (&nc);
  sim_link_set_observer (run->net->forward, observe, run);

  /* each call starts at its join time: run up to it, then add the flow */
  for (guint i = 0; i < c->n_flows; i++) {
    g_assert_cmpint (c->join[i], >=, sim_now (run->net->sim));
    if (c->join[i] > sim_now (run->net->sim))
      sim_rtpcc_net_run (run->net, c->join[i]);
    add_flow (run, i);
  }
  sim_rtpcc_net_run (run->net, c->duration);
  return run;
}

static void
run_free (Run * run)
{
  sim_rtpcc_net_free (run->net);
  rtpcc_capacity_unref (run->cap);
  g_array_free (run->pkts, TRUE);
  if (run->log)
    fclose (run->log);
  g_free (run);
}

static gdouble
cap_mean_kbps (const Run * run, RtpccTime t0, RtpccTime t1)
{
  gdouble acc = 0.0;
  RtpccTime t = t0;

  while (t < t1) {
    RtpccTime next = MIN (rtpcc_capacity_next_change (run->cap, t), t1);
    if (next <= t)
      next = t1;
    acc += (gdouble) rtpcc_capacity_rate_at (run->cap, t, 0) * (next - t);
    t = next;
  }
  return acc / (gdouble) (t1 - t0) / 1000.0;
}

static gboolean
flow_active (const Run * run, guint i, RtpccTime t0, RtpccTime t1)
{
  return run->c.join[i] <= t0 && t1 <= run->c.stop;
}

static int
cmp_time (gconstpointer a, gconstpointer b)
{
  RtpccTime x = *(const RtpccTime *) a, y = *(const RtpccTime *) b;
  return x < y ? -1 : x > y;
}

static gdouble
nearest_rank_ms (const RtpccTime * v, guint n, gdouble pct)
{
  guint k = (guint) ceil (pct / 100.0 * n);
  return RTPCC_TIME_AS_MSEC (v[CLAMP (k, 1, n) - 1]);
}

static gdouble
jain (const gdouble * x, guint n)
{
  gdouble s = 0.0, s2 = 0.0;

  for (guint i = 0; i < n; i++) {
    s += x[i];
    s2 += x[i] * x[i];
  }
  return s2 > 0.0 ? s * s / (n * s2) : NAN;
}

/* The window's statistics; flows whose call is not running over the whole
 * window are left out of n, Jain and the shares (their rates are kept). */
static void
window_stats (const Run * run, RtpccTime t0, RtpccTime t1, Window * w)
{
  guint64 sent_b[MAX_FLOWS] = { 0 }, recv_b[MAX_FLOWS] = { 0 };
  guint64 sent_p[MAX_FLOWS] = { 0 }, drop_p[MAX_FLOWS] = { 0 };
  guint64 sp = 0, dp = 0;
  GArray *q = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  gdouble secs = RTPCC_TIME_AS_SEC (t1 - t0), act[MAX_FLOWS];

  memset (w, 0, sizeof (*w));
  w->t0 = t0;
  w->t1 = t1;
  w->cap_kbps = cap_mean_kbps (run, t0, t1);
  for (guint k = 0; k < run->pkts->len; k++) {
    const PktRec *r = &g_array_index (run->pkts, PktRec, k);
    if (r->sent >= t0 && r->sent < t1) {
      sent_b[r->flow] += r->size;
      sent_p[r->flow]++;
      if (r->deliver == RTPCC_TIME_NONE)
        drop_p[r->flow]++;
    }
    if (r->deliver != RTPCC_TIME_NONE && r->deliver >= t0 && r->deliver < t1) {
      recv_b[r->flow] += r->size;
      g_array_append_val (q, r->qdelay);
    }
  }
  for (guint i = 0; i < run->c.n_flows; i++) {
    w->send[i] = sent_b[i] * 8.0 / secs / 1000.0;
    w->recv[i] = recv_b[i] * 8.0 / secs / 1000.0;
    w->floss[i] = sent_p[i] ? 100.0 * drop_p[i] / sent_p[i] : 0.0;
    w->target[i] = run->c.join[i] < t1 ? sim_rtpcc_sender_target_mean
        (run->flow[i]->sender, MAX (t0, run->c.join[i]), t1) / 1000.0 : NAN;
    sp += sent_p[i];
    dp += drop_p[i];
    w->util += w->recv[i] / w->cap_kbps;
    if (flow_active (run, i, t0, t1))
      act[w->n++] = w->recv[i];
  }
  w->loss = sp ? 100.0 * dp / sp : 0.0;
  /* what the pacer adds before the bottleneck: a lower pacing factor
   * moves queue from the link into the sender */
  w->sd95 = 0.0;
  for (guint i = 0; i < run->c.n_flows; i++) {
    gdouble p95 = NAN;
    if (run->c.join[i] < t1 && sim_rtpcc_sender_delay_stats
        (run->flow[i]->sender, t0, t1, NULL, &p95, NULL) > 0)
      w->sd95 = MAX (w->sd95, p95);
  }
  g_array_sort (q, cmp_time);
  if (q->len) {
    const RtpccTime *v = (const RtpccTime *) q->data;
    w->qd50 = nearest_rank_ms (v, q->len, 50.0);
    w->qd95 = nearest_rank_ms (v, q->len, 95.0);
    w->qdmax = RTPCC_TIME_AS_MSEC (v[q->len - 1]);
  } else {
    w->qd50 = w->qd95 = w->qdmax = NAN;
  }
  g_array_free (q, TRUE);

  w->jain = w->share_min = w->share_max = NAN;
  for (guint i = 0; i < run->c.n_flows; i++)
    if (run->c.join[i] < t1 && !flow_active (run, i, t0, t1))
      return;                   /* a flow joined or left inside: no shares */
  w->jain = jain (act, w->n);
  w->share_min = INFINITY;
  w->share_max = 0.0;
  for (guint i = 0; i < w->n; i++) {
    gdouble s = act[i] / (w->cap_kbps / w->n);
    w->share_min = MIN (w->share_min, s);
    w->share_max = MAX (w->share_max, s);
  }
}

/* Receive rate of each flow in 1 s bins [k, k + 1) s, kbit/s. */
static gdouble *
recv_bins (const Run * run, guint * n_bins)
{
  guint n = (guint) (run->c.duration / RTPCC_SEC (1));
  gdouble *b = g_new0 (gdouble, (gsize) n * MAX_FLOWS);

  for (guint k = 0; k < run->pkts->len; k++) {
    const PktRec *r = &g_array_index (run->pkts, PktRec, k);
    guint64 bin;
    if (r->deliver == RTPCC_TIME_NONE)
      continue;
    bin = r->deliver / RTPCC_SEC (1);
    if (bin < n)
      b[bin * MAX_FLOWS + r->flow] += r->size * 8.0 / 1000.0;
  }
  *n_bins = n;
  return b;
}

/* Checks every run must pass, whatever the controller: the endpoints never
 * spun, every RTCP packet parsed and was about us, feedback flowed, the
 * published target stayed inside [min, max], and the link observer agrees
 * with the metrics taps packet for packet. */
static void
check_sane (const Run * run)
{
  guint64 sent[MAX_FLOWS] = { 0 };

  for (guint k = 0; k < run->pkts->len; k++)
    sent[g_array_index (run->pkts, PktRec, k).flow]++;
  for (guint i = 0; i < run->c.n_flows; i++) {
    SimRtpccFlow *f = run->flow[i];
    const SimRtpccSenderCounters *sc = sim_rtpcc_sender_get_counters
        (f->sender);
    const SimRtpccReceiverCounters *rc = sim_rtpcc_receiver_get_counters
        (f->receiver);
    const SimRtpccTargetChange *log;
    SimFlowTotals tot;
    guint n;

    g_assert_cmpuint (sc->stalls, ==, 0);
    g_assert_cmpuint (rc->stalls, ==, 0);
    g_assert_cmpuint (sc->feedback_rejected, ==, 0);
    g_assert_cmpuint (rc->rtcp_rejected, ==, 0);
    g_assert_cmpuint (sc->feedback_in, >, 0);
    log = sim_rtpcc_sender_get_target_log (f->sender, &n);
    for (guint k = 0; k < n; k++) {
      g_assert_cmpuint (log[k].target_bitrate, >=, MIN_BPS);
      g_assert_cmpuint (log[k].target_bitrate, <=, MAX_BPS);
    }
    g_assert_true (sim_metrics_get_totals (run->net->metrics, i, &tot));
    g_assert_cmpuint (tot.sent_packets, ==, sent[i]);
  }
}

/* ------------------------------------------------------------------------ */
/* Printing                                                                 */

static void
print_window_header (guint n_flows)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "  %-11s %5s %1s", "window [s]", "cap", "n");
  for (guint i = 0; i < n_flows; i++)
    g_string_append_printf (s, " | f%u %5s %5s %5s %5s", i, "targt", "send",
        "recv", "loss%");
  g_string_append_printf (s, " | %6s %5s %5s %5s %6s %6s %6s %5s", "util",
      "jain", "shmin", "shmax", "qd50", "qd95", "qdmax", "loss%");
  g_test_message ("%s", s->str);
  g_string_free (s, TRUE);
}

static void
print_window (const Run * run, const Window * w)
{
  GString *s = g_string_new (NULL);
  gchar label[32];

  g_snprintf (label, sizeof label, "[%.0f,%.0f)", RTPCC_TIME_AS_SEC (w->t0),
      RTPCC_TIME_AS_SEC (w->t1));
  g_string_append_printf (s, "  %-11s %5.0f %1u", label, w->cap_kbps, w->n);
  for (guint i = 0; i < run->c.n_flows; i++) {
    if (run->c.join[i] >= w->t1)
      g_string_append_printf (s, " |    %5s %5s %5s %5s", "-", "-", "-", "-");
    else
      g_string_append_printf (s, " |    %5.0f %5.0f %5.0f %5.2f", w->target[i],
          w->send[i], w->recv[i], w->floss[i]);
  }
  g_string_append_printf (s, " | %5.1f%% %5.3f %5.2f %5.2f %6.1f %6.1f %6.1f "
      "%5.2f", 100.0 * w->util, w->jain, w->share_min, w->share_max, w->qd50,
      w->qd95, w->qdmax, w->loss);
  g_test_message ("%s", s->str);
  g_string_free (s, TRUE);
}

static void
print_title (const Run * run)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "RFC 8867 %s, %s (feedback %s%s%s), capacity "
      "%s kbit/s, seed %" G_GUINT64_FORMAT ", %u flow(s) joining at",
      run->c.name, run->c.controller, sim_rtpcc_feedback_name (run->c.feedback),
      run->c.param ? ", " : "", run->c.param ? run->c.param : "",
      run->c.schedule, run->c.seed, run->c.n_flows);
  for (guint i = 0; i < run->c.n_flows; i++)
    g_string_append_printf (s, " %.0f", RTPCC_TIME_AS_SEC (run->c.join[i]));
  g_string_append (s, " s");
  if (run->c.stop != RTPCC_TIME_INFINITE)
    g_string_append_printf (s, ", stopping at %.0f s",
        RTPCC_TIME_AS_SEC (run->c.stop));
  g_string_append_printf (s, "; rates kbit/s (wire, RTCP incl.), share = recv"
      " / (cap / n), qd = pooled link queue delay ms");
  g_test_message ("%s", s->str);
  g_string_free (s, TRUE);
}

/* The steady phases of the capacity schedule, [change + SETTLE, next). */
static guint
schedule_phases (const Run * run, Window * w, guint max)
{
  RtpccTime t = 0, end = MIN (run->c.duration, run->c.stop);
  guint n = 0;

  while (t < end && n < max) {
    RtpccTime next = MIN (rtpcc_capacity_next_change (run->cap, t), end);
    if (t + SETTLE < next)
      window_stats (run, t + SETTLE, next, &w[n++]);
    t = next;
  }
  return n;
}

/* ------------------------------------------------------------------------ */
/* §5.4 starvation: 1 s receive rates against half the fair share           */

typedef struct
{
  RtpccTime from, to;           /* join segment [join, next join or stop) */
  guint n;                      /* flows in it */
  /* per flow: 1 s bins below half the fair share, in total (cumulative)
   * and the longest run of consecutive ones */
  guint below[MAX_FLOWS], below_run[MAX_FLOWS];
} Starve;

static void
starvation (const Run * run, Starve * st, guint * n_st)
{
  guint nb;
  gdouble *b = recv_bins (run, &nb);

  *n_st = 0;
  for (guint j = 0; j < run->c.n_flows; j++) {
    Starve *s = &st[(*n_st)++];
    memset (s, 0, sizeof (*s));
    s->from = run->c.join[j];
    s->to = j + 1 < run->c.n_flows ? run->c.join[j + 1] : run->c.stop;
    s->n = j + 1;
    for (guint i = 0; i < s->n; i++) {
      guint cur = 0;
      for (RtpccTime t = s->from; t < s->to; t += RTPCC_SEC (1)) {
        guint k = (guint) (t / RTPCC_SEC (1));
        gdouble fair = cap_mean_kbps (run, t, t + RTPCC_SEC (1)) / s->n;
        g_assert_cmpuint (k, <, nb);
        if (b[k * MAX_FLOWS + i] < 0.5 * fair) {
          s->below[i]++;
          cur++;
          s->below_run[i] = MAX (s->below_run[i], cur);
        } else {
          cur = 0;
        }
      }
    }
  }
  g_free (b);
}

/* ------------------------------------------------------------------------ */
/* One measured run                                                         */

#define MAX_WINDOWS 8

typedef struct
{
  Case c;
  Window w[MAX_WINDOWS];
  guint n_w;
  Window all;                   /* the whole run */
  guint64 probe_bytes;          /* padding the senders sent for probing */
  /* §5.1 responses (s; NaN: not before the next change) */
  gdouble r40, r60, cut60, r80;
  /* §5.4 */
  gdouble jain10_min;           /* Jain per 10 s over [60, 119), minimum */
  Starve st[MAX_FLOWS];
  guint n_st;
  guint below_max;              /* worst flow's cumulative 1 s bins */
  guint64 digest;               /* of every packet record (determinism) */
} Outcome;

static guint64
digest_pkts (const GArray * pkts)
{
  /* FNV-1a over the records' fields */
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  for (guint k = 0; k < pkts->len; k++) {
    const PktRec *r = &g_array_index (pkts, PktRec, k);
    guint64 v[5] = { (guint64) r->sent, (guint64) r->deliver,
      (guint64) r->qdelay, r->size, r->flow
    };
    for (guint i = 0; i < G_N_ELEMENTS (v); i++)
      for (guint b = 0; b < 8; b++) {
        h ^= (v[i] >> (8 * b)) & 0xff;
        h *= G_GUINT64_CONSTANT (0x100000001b3);
      }
  }
  return h;
}

/* RTPCC_RFC8867_TRACE=t0,t1 (seconds): print every flow's target changes
 * in [t0, t1) (development aid, to see why a window misses). */
static void
print_trace (const Run * run)
{
  const gchar *env = g_getenv ("RTPCC_RFC8867_TRACE");
  gdouble t0, t1;

  if (!env || sscanf (env, "%lf,%lf", &t0, &t1) != 2)
    return;
  for (guint i = 0; i < run->c.n_flows; i++) {
    guint n;
    const SimRtpccTargetChange *log =
        sim_rtpcc_sender_get_target_log (run->flow[i]->sender, &n);
    for (guint k = 0; k < n; k++) {
      gdouble t = RTPCC_TIME_AS_SEC (log[k].time);
      if (t >= t0 && t < t1)
        g_test_message ("  trace f%u %8.3f target %5" G_GUINT64_FORMAT
            " media %5" G_GUINT64_FORMAT " pacing %5" G_GUINT64_FORMAT
            " %s/%s", i, t, log[k].target_bitrate / 1000,
            log[k].media_bitrate / 1000, log[k].pacing_rate / 1000,
            log[k].state, log[k].reason);
    }
  }
}

static void
measure (const Case * c, gboolean print, Outcome * o)
{
  Run *run = run_case (c);

  if (print)
    print_trace (run);

  memset (o, 0, sizeof (*o));
  o->c = *c;
  o->r40 = o->r60 = o->cut60 = o->r80 = o->jain10_min = NAN;
  check_sane (run);
  o->digest = digest_pkts (run->pkts);
  for (guint i = 0; i < c->n_flows; i++)
    o->probe_bytes += rtpcc_sender_get_stats (sim_rtpcc_sender_get_sender
        (run->flow[i]->sender), c->duration)->probe_bytes;
  window_stats (run, 0, MIN (c->duration, c->stop), &o->all);

  if (c->windows == WINDOWS_PHASES) {
    o->n_w = schedule_phases (run, o->w, MAX_WINDOWS);
  } else {
    /* the join segments after their settling window, and the fairness
     * window [60, 119): 20 s after the last join to the stop */
    g_assert_cmpuint (c->n_flows, ==, 3);
    window_stats (run, c->join[0] + SETTLE, c->join[1], &o->w[0]);
    window_stats (run, c->join[1] + SETTLE, c->join[2], &o->w[1]);
    window_stats (run, c->join[2] + SETTLE, c->join[2] + RTPCC_SEC (20),
        &o->w[2]);
    window_stats (run, c->join[2] + RTPCC_SEC (20), c->stop, &o->w[3]);
    o->n_w = 4;
  }

  if (print) {
    print_title (run);
    print_window_header (c->n_flows);
    for (guint i = 0; i < o->n_w; i++)
      print_window (run, &o->w[i]);
    print_window (run, &o->all);
  }

  for (guint i = 0; print && i < c->n_flows; i++) {
    RtpccGccInfo gi;
    if (rtpcc_gcc_get_info (rtpcc_sender_get_controller
            (sim_rtpcc_sender_get_sender (run->flow[i]->sender)), &gi))
      g_test_message ("  gcc f%u: %" G_GUINT64_FORMAT " delay groups, %"
          G_GUINT64_FORMAT " flagged as own burst (%.1f %%), %"
          G_GUINT64_FORMAT " over-use signals, %" G_GUINT64_FORMAT
          " delay / %" G_GUINT64_FORMAT " loss decreases, threshold %.1f ms "
          "at the end; probes %u (%u ok, %u failed)", i, gi.n_groups,
          gi.n_self_bursts, gi.n_groups ? 100.0 * gi.n_self_bursts /
          gi.n_groups : 0.0, gi.n_overuse, gi.n_decreases,
          gi.n_loss_decreases, gi.threshold, gi.n_probes,
          gi.n_probe_success, gi.n_probe_fail);
  }

  if (c->n_flows == 1) {
    SimRtpccResult *res = sim_rtpcc_net_collect (run->net, run->flow[0],
        SETTLE);
    for (guint i = 0; i < res->n_changes; i++) {
      const SimRtpccChange *ch = &res->changes[i];
      if (ch->time == RTPCC_SEC (40))
        o->r40 = ch->response_s;
      else if (ch->time == RTPCC_SEC (60)) {
        o->r60 = ch->response_s;
        o->cut60 = ch->reduce_s;
      } else if (ch->time == RTPCC_SEC (80))
        o->r80 = ch->response_s;
    }
    sim_rtpcc_result_free (res);
    if (print)
      g_test_message ("  responses: 40 s increase (send >= 80 %% of C, "
          "1 s mean) %.2f s; 60 s drop: target < C after %.2f s (first cut "
          "%.2f s); 80 s increase %.2f s; probe padding %" G_GUINT64_FORMAT
          " kB", o->r40, o->r60, o->cut60, o->r80, o->probe_bytes / 1000);
  }

  if (c->windows == WINDOWS_JOINS) {
    GString *s = g_string_new ("  Jain per 10 s over [60,119):");
    o->jain10_min = INFINITY;
    for (RtpccTime t = o->w[3].t0; t + RTPCC_SEC (10) <= o->w[3].t1;
        t += RTPCC_SEC (10)) {
      Window x;
      window_stats (run, t, t + RTPCC_SEC (10), &x);
      g_string_append_printf (s, " %.3f", x.jain);
      o->jain10_min = MIN (o->jain10_min, x.jain);
    }
    if (print)
      g_test_message ("%s", s->str);
    g_string_free (s, TRUE);

    starvation (run, o->st, &o->n_st);
    for (guint j = 0; j < o->n_st; j++) {
      s = g_string_new (NULL);
      g_string_append_printf (s, "  join at %3.0f s, %u flow(s), fair share "
          "%4.0f kbit/s: 1 s bins below half of it, total (longest run):",
          RTPCC_TIME_AS_SEC (o->st[j].from), o->st[j].n,
          cap_mean_kbps (run, o->st[j].from, o->st[j].to) / o->st[j].n);
      for (guint i = 0; i < o->st[j].n; i++) {
        g_string_append_printf (s, " f%u %2u (%2u)", i, o->st[j].below[i],
            o->st[j].below_run[i]);
        o->below_max = MAX (o->below_max, o->st[j].below[i]);
      }
      if (print)
        g_test_message ("%s", s->str);
      g_string_free (s, TRUE);
    }
  }
  run_free (run);
}

/* ------------------------------------------------------------------------ */
/* The cases                                                                */

#define S51 "1000@0,2500@40,600@60,1000@80"
#define S52 "4000@0,2000@25,3500@50,1000@75,2000@100"
#define FB_CCFB SIM_RTPCC_FEEDBACK_CCFB
#define FB_TWCC SIM_RTPCC_FEEDBACK_TWCC
#define INF RTPCC_TIME_INFINITE

enum
{
  C51_GCC, C51_GCC_TWCC, C51_GCC_PERIODIC, C51_NADA,
  C52_GCC, C52_NADA,
  C54_GCC, C54_NADA,
  C51_NADA_XREF5, C54_NADA_XREF5, C54_NADA_CATCH_UP,
  N_CASES
};

static const Case cases[N_CASES] = {
  [C51_GCC] = {"5.1", "gcc", FB_CCFB, NULL, WINDOWS_PHASES, S51,
      RTPCC_SEC (100), 1, {0}, INF, SEED},
  [C51_GCC_TWCC] = {"5.1", "gcc", FB_TWCC, NULL, WINDOWS_PHASES, S51,
      RTPCC_SEC (100), 1, {0}, INF, SEED},
  [C51_GCC_PERIODIC] = {"5.1", "gcc", FB_CCFB, "periodic-probing=true",
      WINDOWS_PHASES, S51, RTPCC_SEC (100), 1, {0}, INF, SEED},
  [C51_NADA] = {"5.1", "nada", FB_CCFB, NULL, WINDOWS_PHASES, S51,
      RTPCC_SEC (100), 1, {0}, INF, SEED},
  [C52_GCC] = {"5.2", "gcc", FB_CCFB, NULL, WINDOWS_PHASES, S52,
      RTPCC_SEC (125), 2, {0, 0}, INF, SEED},
  [C52_NADA] = {"5.2", "nada", FB_CCFB, NULL, WINDOWS_PHASES, S52,
      RTPCC_SEC (125), 2, {0, 0}, INF, SEED},
  [C54_GCC] = {"5.4", "gcc", FB_CCFB, NULL, WINDOWS_JOINS, "3500@0",
      RTPCC_SEC (120), 3, {0, RTPCC_SEC (20), RTPCC_SEC (40)},
      RTPCC_SEC (119), SEED},
  [C54_NADA] = {"5.4", "nada", FB_CCFB, NULL, WINDOWS_JOINS, "3500@0",
      RTPCC_SEC (120), 3, {0, RTPCC_SEC (20), RTPCC_SEC (40)},
      RTPCC_SEC (119), SEED},
  /* nada's delay/utilisation knob (RFC 8698 parameter, not the default) */
  [C51_NADA_XREF5] = {"5.1", "nada", FB_CCFB, "xref=5", WINDOWS_PHASES, S51,
      RTPCC_SEC (100), 1, {0}, INF, SEED},
  [C54_NADA_XREF5] = {"5.4", "nada", FB_CCFB, "xref=5", WINDOWS_JOINS,
        "3500@0", RTPCC_SEC (120), 3, {0, RTPCC_SEC (20), RTPCC_SEC (40)},
      RTPCC_SEC (119), SEED},
  /* nada with the catch-up deviation (not RFC 8698) and LOGWIN 250 ms */
  [C54_NADA_CATCH_UP] = {"5.4", "nada", FB_CCFB, "catch-up=1;logwin=250",
        WINDOWS_JOINS, "3500@0", RTPCC_SEC (120), 3, {0, RTPCC_SEC (20),
          RTPCC_SEC (40)}, RTPCC_SEC (119), SEED},
};

/* Seed-1 outcomes, kept for the comparison table. */
static Outcome outcomes[N_CASES];
static gboolean measured[N_CASES];

/* cases[id], with the development overrides from the environment:
 * RTPCC_RFC8867_SEED=n, RTPCC_RFC8867_PARAM=g<gcc params> or n<nada
 * params> ("key=value;key=value"; not for a case with its own). */
static Case
case_get (guint id)
{
  Case c = cases[id];
  const gchar *seed = g_getenv ("RTPCC_RFC8867_SEED");
  const gchar *param = g_getenv ("RTPCC_RFC8867_PARAM");

  if (seed)
    c.seed = g_ascii_strtoull (seed, NULL, 10);
  if (param && !c.param && ((param[0] == 'g'
              && g_str_equal (c.controller, "gcc"))
          || (param[0] == 'n' && g_str_equal (c.controller, "nada"))))
    c.param = param + 1;
  return c;
}

static const Outcome *
get (guint id)
{
  if (!measured[id]) {
    Case c = case_get (id);
    measure (&c, TRUE, &outcomes[id]);
    measured[id] = TRUE;
  }
  return &outcomes[id];
}

static gchar *
case_label (const Case * c)
{
  return g_strdup_printf ("%s/%s%s%s", c->controller,
      sim_rtpcc_feedback_name (c->feedback), c->param ? "+" : "",
      c->param ? c->param : "");
}

/* ------------------------------------------------------------------------ */
/* §5.1                                                                     */

/* ---- the aims: printed as MISS, asserted only where they hold --- */

/* Every steady window: >= 90 % utilisation, p95 queue delay <= 50 ms.
 * Multi-flow windows also: Jain >= 0.9 and every flow within ±25 % of an
 * equal split (share in [0.75, 1.25]); with two flows and a full link that
 * band means the smaller flow gets >= 60 % of the larger (Jain >= 0.94), a
 * share the eye reads as "both track C/2". §5.4 has its own (below). */
#define AIM_UTIL 0.90
#define AIM_QD95 50.0
#define AIM_JAIN 0.90
#define AIM_SHARE_LO 0.75
#define AIM_SHARE_HI 1.25
/* §5.4: no flow below half its fair share for more than 5 s (cumulative
 * 1 s bins) after each join */
#define AIM_BELOW_S 5

static guint
report_aim (const Outcome * o)
{
  gchar *who = case_label (&o->c);
  guint misses = 0;

  for (guint i = 0; i < o->n_w; i++) {
    const Window *w = &o->w[i];
    GString *m = g_string_new (NULL);
    /* flows capped at R_max cannot use more than n x R_max: the aim is
     * against what they may use (§5.4's first flow alone on 3.5 Mbit/s) */
    gdouble usable = MIN (w->cap_kbps, w->n * MAX_BPS / 1000.0);
    gdouble u = w->util * w->cap_kbps / usable;

    if (u < AIM_UTIL)
      g_string_append_printf (m, " utilisation %.1f %% of %s (aim >= %.0f "
          "%%);", 100.0 * u, usable < w->cap_kbps ? "n x R_max" : "C",
          100.0 * AIM_UTIL);
    if (w->qd95 > AIM_QD95)
      g_string_append_printf (m, " p95 queue delay %.1f ms (aim <= %.0f "
          "ms);", w->qd95, AIM_QD95);
    if (w->n > 1 && w->jain < AIM_JAIN)
      g_string_append_printf (m, " Jain %.3f (aim >= %.2f);", w->jain,
          AIM_JAIN);
    if (w->n > 1 && (w->share_min < AIM_SHARE_LO
            || w->share_max > AIM_SHARE_HI))
      g_string_append_printf (m, " shares %.2f..%.2f of C/%u (aim %.2f.."
          "%.2f);", w->share_min, w->share_max, w->n, AIM_SHARE_LO,
          AIM_SHARE_HI);
    if (m->len) {
      g_test_message ("  MISS %s %s [%.0f,%.0f) at %.0f kbit/s:%s",
          o->c.name, who, RTPCC_TIME_AS_SEC (w->t0),
          RTPCC_TIME_AS_SEC (w->t1), w->cap_kbps, m->str);
      misses++;
    }
    g_string_free (m, TRUE);
  }
  for (guint j = 0; j < o->n_st; j++)
    for (guint i = 0; i < o->st[j].n; i++)
      if (o->st[j].below[i] > AIM_BELOW_S) {
        g_test_message ("  MISS %s %s after the join at %.0f s: flow %u "
            "below half its fair share for %u s (cumulative, 1 s rates; "
            "longest run %u s; aim <= %d s)", o->c.name, who,
            RTPCC_TIME_AS_SEC (o->st[j].from), i, o->st[j].below[i],
            o->st[j].below_run[i], AIM_BELOW_S);
        misses++;
      }
  if (o->c.windows == WINDOWS_JOINS && o->w[3].jain < AIM_JAIN) {
    g_test_message ("  MISS %s %s Jain over [60,119) %.3f (aim >= %.2f)",
        o->c.name, who, o->w[3].jain, AIM_JAIN);
    misses++;
  }
  g_free (who);
  return misses;
}

/* ---- gcc ----------------------------------------------------------------- */

/* Measured ranges in these comments are over seeds 1-40 (`-m thorough`
 * with RTPCC_RFC8867_SWEEP=40) and, where said, over seeds 41-160 as a
 * hold-out; thresholds are asserted for seed 1 and leave a margin over
 * those ranges, so a change that merely moves the random trajectories
 * does not trip them.
 *
 * A delay-based controller keeps the queue short whatever the phase: the
 * median queue delay of every window <= 30 ms (measured 4-22 ms in every
 * gcc case; TFRC/CCID2 sit at 140-165 ms on the same link) and the whole
 * run's p95 <= 90 ms (measured 17-42 ms; it includes the 2.5 -> 0.6 Mbit/s
 * drop in §5.1, where up to 300 ms of backlog is queued when the capacity
 * falls). The aim's per-window p95 <= 50 ms is asserted by each case
 * below: over seeds 1-160 no §5.1 or §5.4 window exceeds it (max 49.6 ms,
 * in the 0.6 Mbit/s phase, where one 1200-byte packet is 16 ms of queue)
 * and one §5.2 window does (seed 97, 60.8 ms). */
static void
assert_gcc_queue (const Outcome * o)
{
  for (guint i = 0; i < o->n_w; i++)
    g_assert_cmpfloat (o->w[i].qd50, <=, 30.0);
  g_assert_cmpfloat (o->all.qd95, <=, 90.0);
}

/* the aim's per-window p95 */
static void
assert_gcc_qd95_aim (const Outcome * o)
{
  for (guint i = 0; i < o->n_w; i++)
    g_assert_cmpfloat (o->w[i].qd95, <=, AIM_QD95);
}

/* §5.1, gcc with CCFB or TWCC (both carry every packet's arrival time; the
 * estimator sees only RtpccFeedback, so the thresholds are the same).
 *
 * Utilisation: gcc's steady state is a sawtooth: over-use fires near C
 * (frames paced at 1.1 x queue a little before the mean reaches C), the
 * cut goes to 0.85 x the received rate, fast recovery climbs back to 0.91
 * x the congestion point, then additive increase. [45,60) is the 1 -> 2.5
 * Mbit/s climb: the free path (cc/gcc/freepath.c: no queue for 800 ms, then
 * 1.3 x/s until the first queue) reaches 80 % of 2.5 Mbit/s 3.2-4.4 s
 * after the step. Over seeds 1-40 (CCFB and TWCC) [5,40) 90.4-93.7 %,
 * [45,60) 88.5-93.9 % (below the 90 % aim in 5 runs each), [65,80)
 * 90.3-95.2 %, [85,100) 90.0-95.3 %: asserted >= 88, 85, 88 and 87 %;
 * seeds 41-160 stay within 88.4-96.4 %. The p95 aim holds in every window
 * of every run (max 47.8 ms; 49.6 over seeds 41-160): asserted.
 * Responses: the drop shows as soon as the queue grows (one RTT, the
 * 10 ms over-use time, the trendline's lag): target below 0.6 Mbit/s after
 * 0.55-0.83 s, asserted <= 1.5 s; 80 % of the new capacity 3.2-4.4 s
 * after the 40 s step, asserted <= 7 s, and 1.8-3.2 s after the 80 s one,
 * asserted <= 6 s.
 * Loss: only the drop's tail drops (0.32-0.63 % of the run), asserted
 * <= 1.5 %, none in any steady phase. */
static void
check_51_gcc (const Outcome * o)
{
  g_assert_cmpuint (o->n_w, ==, 4);
  g_assert_cmpfloat (o->w[0].util, >=, 0.88);
  g_assert_cmpfloat (o->w[1].util, >=, 0.85);
  g_assert_cmpfloat (o->w[2].util, >=, 0.88);
  g_assert_cmpfloat (o->w[3].util, >=, 0.87);
  g_assert_cmpfloat (o->r40, <=, 7.0);
  g_assert_cmpfloat (o->r60, <=, 1.5);
  g_assert_cmpfloat (o->r80, <=, 6.0);
  g_assert_cmpfloat (o->all.loss, <=, 1.5);
  for (guint i = 0; i < o->n_w; i++)
    g_assert_cmpfloat (o->w[i].loss, ==, 0.0);
  assert_gcc_queue (o);
  assert_gcc_qd95_aim (o);
}

static void
test_51_gcc (void)
{
  const Outcome *o = get (C51_GCC);
  report_aim (o);
  check_51_gcc (o);
}

static void
test_51_gcc_twcc (void)
{
  const Outcome *o = get (C51_GCC_TWCC);
  report_aim (o);
  check_51_gcc (o);
}

/* Seed 38 with the opt-in recovery probes. Once a recovery probe after
 * the 60 s drop (804 kbit/s into 0.6 Mbit/s) "succeeded" with what got
 * through, exactly C, and the estimate sat at C until the queue passed
 * 100 ms (p95 104 ms in [65,80)); a probe that saturates the path now
 * counts 0.95 of what got through. That rule is unit-tested
 * (rtpcc_gcc_probe test_probe_estimate, on this probe's numbers): today's
 * trajectory no longer sends that probe (3 probes, 1 ok; with the
 * fraction at 1.0 this run is the same), so this asserts only that
 * recovery probes keep the 0.6 Mbit/s phase within the aims. */
static void
test_51_gcc_saturated_probe (void)
{
  Case c = cases[C51_GCC];
  Outcome o;

  c.seed = 38;
  c.param = "recovery-probes=true";     /* opt-in since 3f6cd1e */
  measure (&c, FALSE, &o);
  g_assert_cmpuint (o.n_w, ==, 4);
  g_test_message ("seed 38, [65,80) at 0.6 Mbit/s: p95 %.1f ms, "
      "utilisation %.1f %%", o.w[2].qd95, 100 * o.w[2].util);
  g_assert_cmpfloat (o.w[2].qd95, <=, 50.0);
  g_assert_cmpfloat (o.w[2].util, >=, 0.88);
}

/* The opt-in periodic probe (1.5 x after 2 s of clean increase): printed
 * for comparison, asserted only as a delay-based controller. It no longer
 * helps: over seeds 1-40 [45,60) 88.1-94.1 % (88.5-93.2 % without it),
 * 80 % of the new capacity after 3.2-5.2 s (3.2-4.4 s), and p95 above
 * 50 ms in some window of 35 of 40 runs (none without): each probe is a
 * queue spike. */
static void
test_51_gcc_periodic (void)
{
  const Outcome *o = get (C51_GCC_PERIODIC);
  report_aim (o);
  g_assert_cmpuint (o->n_w, ==, 4);
  assert_gcc_queue (o);
}

/* ---- nada ---------------------------------------------------------------- */

/* RFC 8698 §4.3: gradual updates settle where x_offset = 0, i.e. where the
 * aggregate congestion signal (here the queuing delay: no loss, no ECN) is
 * x_curr = PRIO × XREF × RMAX / r_ref, XREF = 10 ms, RMAX = max_bitrate.
 * Every flow sees the same queue, so at equilibrium all have the same
 * r_ref; with n flows sharing C, r_ref ≈ C / n (their receive rates). */
static gdouble
nada_model_ms (const Window * w)
{
  gdouble r = 0.0;

  for (guint i = 0; i < w->n; i++)
    r += w->recv[i];
  r /= MAX (w->n, 1);
  return 10.0 * (MAX_BPS / 1000.0) / r;
}

/* NADA holds a standing queue by design: the equilibrium above, 30 ms at
 * 1 Mbit/s and 50 ms at 0.6 Mbit/s with R_max = 3 Mbit/s, 60 ms for two
 * flows at 0.5 Mbit/s each. Asserted: every window's median queue delay
 * within [0.7, 1.5] x that model (measured 0.77-1.40 x over seeds 1-40 in
 * §5.1, §5.2 and §5.4), except where C/n > R_max (§5.4's first flow alone:
 * capped at R_max below the equilibrium rate, p50 2.7 ms); the p95 of every
 * window <= 110 ms (measured <= 95 ms: the model plus frame-size noise).
 * The aim's p95 <= 50 ms is missed wherever the model itself is >= ~30 ms
 * (1 Mbit/s per flow and below): at 0.6 Mbit/s the model alone is the
 * aim's 50 ms. Seeds 1-40, §5.1: [5,40) 1 Mbit/s p50 29.3-37.7 ms
 * (0.95-1.25 x model), p95 55.4-66.4; [65,80) 0.6 Mbit/s p50 40.8-51.1
 * (0.77-0.98 x), p95 71.0-92.3; [85,100) 1 Mbit/s p50 27.3-34.8
 * (0.90-1.15 x), p95 51.1-71.5. A parameter choice (XREF, R_max) of RFC
 * 8698, not a bug: see test_51_nada_xref for what halving XREF trades. */
static void
assert_nada_queue_model (const Outcome * o, gdouble lo, gdouble hi)
{
  for (guint i = 0; i < o->n_w; i++) {
    const Window *w = &o->w[i];
    /* C/n > R_max: the flows are capped below their share, no queue */
    if (w->cap_kbps / w->n <= MAX_BPS / 1000.0) {
      g_assert_cmpfloat (w->qd50, >=, lo * nada_model_ms (w));
      g_assert_cmpfloat (w->qd50, <=, hi * nada_model_ms (w));
    }
    g_assert_cmpfloat (w->qd95, <=, 110.0);
  }
}

static void
assert_nada_queue (const Outcome * o)
{
  assert_nada_queue_model (o, 0.7, 1.5);
}

/* §5.1, nada. Utilisation >= 90 % in every phase: the aim holds, measured
 * 94.2-99.9 % over seeds 1-40 (a standing queue never lets the link idle).
 * Responses: accelerated ramp-up after the increases (queue < QEPS), 80 %
 * within 2.0-3.8 s, asserted <= 5 s; the drop: target below 0.6 Mbit/s
 * after 0.76-0.86 s, asserted <= 1.5 s. Loss: only the drop's tail drops,
 * 0.77-0.99 % of the run, asserted <= 1.5 %, none in a steady phase. */
static void
test_51_nada (void)
{
  const Outcome *o = get (C51_NADA);

  report_aim (o);
  g_assert_cmpuint (o->n_w, ==, 4);
  for (guint i = 0; i < o->n_w; i++) {
    g_assert_cmpfloat (o->w[i].util, >=, AIM_UTIL);
    g_assert_cmpfloat (o->w[i].loss, ==, 0.0);
  }
  g_assert_cmpfloat (o->r40, <=, 5.0);
  g_assert_cmpfloat (o->r80, <=, 5.0);
  g_assert_cmpfloat (o->r60, <=, 1.5);
  g_assert_cmpfloat (o->all.loss, <=, 1.5);
  assert_nada_queue (o);
}

/* nada's knob for miss 2: XREF (RFC 8698 §4.1, 10 ms by default) sets the
 * equilibrium x_curr = PRIO XREF RMAX / r_ref. §5.1 with XREF = 5 ms
 * against the default, per seed over seeds 1-80: in every <= 1 Mbit/s
 * phase the median queue delay is lower (by 14.1-35.1 ms) and the p95 too
 * (by 17.0-60.3 ms; p95 20.4-49.4 ms: the aim), but so is utilisation (by
 * 0.6-14.4 points; [65,80) at 0.6 Mbit/s 80.4-83.5 %, [5,40) 87.6-99.0 %:
 * the 90 % aim missed); the 2.5 Mbit/s phase moves either way (both sit
 * near capacity with a small queue). §5.4 with XREF = 5 (the gradual
 * update's pull, KAPPA PRIO XREF RMAX / TAU^2, halves): the two newcomers
 * together are 6-26 s longer below half their share than with the default
 * (11-20 s after the 20 s join, 6-24 s after 40 s), Jain over [60,119)
 * lower by 0.038-0.076 (0.921-0.960), the queue lower (p50 by 6.7-17.2 ms,
 * p95 <= 38.2 ms). Asserted: those directions, the p95 aim where XREF = 5
 * meets it, and floors under what it costs. */
static void
test_51_nada_xref (void)
{
  const Outcome *d = get (C51_NADA), *x = get (C51_NADA_XREF5);

  report_aim (x);
  g_assert_cmpuint (x->n_w, ==, d->n_w);
  for (guint i = 0; i < x->n_w; i++) {
    g_assert_cmpfloat (x->w[i].util, >=, 0.75);
    g_assert_cmpfloat (x->w[i].loss, ==, 0.0);
    if (x->w[i].cap_kbps <= 1000.0) {
      g_assert_cmpfloat (x->w[i].qd50, <, d->w[i].qd50);
      g_assert_cmpfloat (x->w[i].qd95, <, d->w[i].qd95);
      g_assert_cmpfloat (x->w[i].qd95, <=, AIM_QD95);
      g_assert_cmpfloat (x->w[i].util, <, d->w[i].util);
    }
  }
  /* the 0.6 Mbit/s phase pays: the aim's utilisation is lost there */
  g_assert_cmpfloat (x->w[2].util, <, AIM_UTIL);
}

static void
test_54_nada_xref (void)
{
  const Outcome *d = get (C54_NADA), *x = get (C54_NADA_XREF5);

  report_aim (x);
  g_assert_cmpuint (x->n_st, ==, 3);
  /* newcomers are slower: the gradual update's pull is halved */
  g_assert_cmpuint (x->st[1].below[1] + x->st[2].below[2], >,
      d->st[1].below[1] + d->st[2].below[2]);
  g_assert_cmpfloat (x->w[3].jain, <, d->w[3].jain);
  g_assert_cmpfloat (x->w[3].jain, >=, 0.85);
  for (guint i = 1; i < x->n_w; i++) {
    g_assert_cmpfloat (x->w[i].qd50, <, d->w[i].qd50);
    g_assert_cmpfloat (x->w[i].qd95, <=, AIM_QD95);
    g_assert_cmpfloat (x->w[i].util, >=, 0.95);
  }
}

/* ---- §5.2 --------------------------------------------------------------- */

/* The metric: in every steady phase [change + 5 s, next change), each
 * flow's mean receive rate r_i against an equal split, share_i =
 * r_i / (C/2), and Jain's index of (r_1, r_2). Receive rate, not target or
 * send rate: what each call actually gets through the shared queue. Both
 * flows start together, so any unfairness is the controller's dynamics
 * (noise breaking the symmetry), not a late joiner's handicap. */

/* nada: over seeds 1-40 Jain >= 0.928 in every phase (the aim holds and is
 * asserted), utilisation 93.8-100 % (asserted: the aim), shares 0.70-1.24
 * (asserted within [0.65, 1.3]; the aim's [0.75, 1.25] is missed in
 * [30,50) after 4 -> 2 Mbit/s: the drop overflows the queue, the flows lose
 * different amounts, NADA's loss term (DLOSS x (p_loss/PLRREF)^2 while
 * losses are recent) raises the unluckier flow's x_curr more, and it climbs
 * back in gradual update at tens of kbit/s per second). The common queue
 * is NADA's signal and x = XREF·RMAX/r_ref gives every flow that sees it
 * the same rate: fairness is built in. */
static void
test_52_nada (void)
{
  const Outcome *o = get (C52_NADA);

  report_aim (o);
  g_assert_cmpuint (o->n_w, ==, 5);
  for (guint i = 0; i < o->n_w; i++) {
    const Window *w = &o->w[i];
    g_assert_cmpuint (w->n, ==, 2);
    g_assert_cmpfloat (w->jain, >=, AIM_JAIN);
    g_assert_cmpfloat (w->share_min, >=, 0.65);
    g_assert_cmpfloat (w->share_max, <=, 1.3);
    g_assert_cmpfloat (w->util, >=, AIM_UTIL);
    g_assert_cmpfloat (w->loss, ==, 0.0);
  }
  assert_nada_queue (o);
}

/* gcc §5.2: over seeds 1-40 utilisation 91.0-96.3 % in every phase and
 * p95 <= 44.2 ms (seeds 41-160: one window at 60.8 ms, seed 97); Jain >=
 * 0.864, below the 0.9 aim in some phase of 2 runs (seeds 41-160: 6 of
 * 120), shares 0.56-1.30. What evens the flows out: both see the queue
 * appear at once and stop the free-path climb there
 * (cc/gcc/freepath.c), before the over-use detector, which one flow's
 * trendline reaches first and whose cut only that flow takes; after such
 * a cut, fast recovery keeps the flows' ratio and only additive increase
 * evens it out, slowly. Asserted with margin: Jain >= 0.8, shares within
 * [0.5, 1.4], utilisation >= 88 %, and the p95 aim. */
static void
test_52_gcc (void)
{
  const Outcome *o = get (C52_GCC);

  report_aim (o);
  g_assert_cmpuint (o->n_w, ==, 5);
  for (guint i = 0; i < o->n_w; i++) {
    const Window *w = &o->w[i];
    g_assert_cmpuint (w->n, ==, 2);
    g_assert_cmpfloat (w->jain, >=, 0.8);
    g_assert_cmpfloat (w->share_min, >=, 0.5);
    g_assert_cmpfloat (w->share_max, <=, 1.4);
    g_assert_cmpfloat (w->util, >=, 0.88);
    g_assert_cmpfloat (w->loss, ==, 0.0);
  }
  assert_gcc_queue (o);
  assert_gcc_qd95_aim (o);
}

/* ---- §5.4 --------------------------------------------------------------- */

/* The metrics: Jain's index of the three flows' mean receive rates over
 * [60, 119) (20 s after the last join to the stop), also per 10 s; and for
 * each join segment [join, next join or 119 s), per flow, the number of 1 s
 * bins whose receive rate is below half the fair share C/n (n = the flows
 * running), counted cumulatively (stricter than the longest consecutive
 * run, which is printed too). The newcomer counts from its first second:
 * the aim asks it to reach half its share within 5 s as well. */

/* What both nada §5.4 cases assert: the fairness aim over [60,119) and
 * per 10 s, >= 95 % utilisation with two or more flows, no loss. */
static void
check_54_nada_common (const Outcome * o)
{
  report_aim (o);
  g_assert_cmpuint (o->n_w, ==, 4);
  g_assert_cmpfloat (o->w[3].jain, >=, AIM_JAIN);
  g_assert_cmpfloat (o->jain10_min, >=, AIM_JAIN);
  for (guint i = 1; i < o->n_w; i++)
    g_assert_cmpfloat (o->w[i].util, >=, 0.95);
  for (guint i = 0; i < o->n_w; i++)
    g_assert_cmpfloat (o->w[i].loss, ==, 0.0);
  g_assert_cmpuint (o->n_st, ==, 3);
}

/* nada (RFC 8698 defaults): Jain over [60,119) >= 0.9 and per 10 s >= 0.9
 * (measured 0.990-0.998 and >= 0.952 over seeds 1-40), utilisation >= 95 %
 * once two flows share the link (98.9-100 %), and the flows already running
 * at a join never drop below half their new share (0 s in every seed):
 * those aims hold. The newcomers miss the 5 s aim: 9-13 s below half their
 * share after the join at 20 s, 4-11 s after 40 s (asserted <= 15 s), and
 * the first flow alone needs 5-6 s to reach 1.75 Mbit/s from 150 kbit/s
 * (asserted <= 7 s). Why, with RFC 8698 followed equation by equation: a
 * newcomer joins a standing queue (NADA's equilibrium, 17-26 ms with two or
 * three flows) that varies by more than QEPS = 10 ms, so after a short
 * accelerated ramp-up (to 0.3-0.6 Mbit/s) it is in gradual update
 * (accelerated ramp-up needs every sample d_fwd - d_base < QEPS over
 * LOGWIN, §4.2), where Eq. (7)'s offset term with x_curr >= 0 adds at most
 * KAPPA PRIO XREF RMAX DELTA / TAU^2 = 6 kbit/s per 100 ms: 0.55 -> 0.875
 * Mbit/s (half of 1.75) takes >= 5.4 s, 0.35 -> 0.58 Mbit/s (half of 1.17)
 * >= 3.8 s. Alone, accelerated ramp-up multiplies
 * r_recv (a 500 ms window, an RTT old) by 1 + QBOUND/(RTT + DELTA + DFILT)
 * ~ 1.16 per update: ~45 %/s, 150 -> 1750 kbit/s in >= 5.5 s. */
static void
test_54_nada (void)
{
  const Outcome *o = get (C54_NADA);

  check_54_nada_common (o);
  g_assert_cmpuint (o->st[0].below[0], <=, 7);
  for (guint j = 1; j < o->n_st; j++) {
    for (guint i = 0; i < j; i++)
      g_assert_cmpuint (o->st[j].below[i], <=, AIM_BELOW_S);
    g_assert_cmpuint (o->st[j].below[j], <=, 15);
  }
  assert_nada_queue (o);
}

/* nada with catch-up=1 (a named deviation from RFC 8698, off by default;
 * nada.c) and LOGWIN = 250 ms (an RFC 8698 parameter; 500 ms by default).
 * Catch-up: during a flow's start-up, an update RFC 8698 would make
 * gradual uses accelerated ramp-up while Eq. (5)'s x_offset is negative,
 * i.e. while r_ref is below the rate at which the RFC's equilibrium would
 * hold for the signal the flow sees; the first update that does not qualify
 * ends it for good. LOGWIN 250 ms halves r_recv's lag, which is what bounds
 * accelerated ramp-up's pace. Seeds 1-80: every flow after every join is
 * at most 5 s below half its share (first flow 3-5 s, newcomers 2-5 s at
 * 20 s and 2-5 s at 40 s): the aim holds and is asserted; Jain over
 * [60,119) 0.963-0.999, per 10 s >= 0.916; utilisation >= 99.0 % with two
 * or more flows. The price is queue: p95 up to 65.8 ms in [45,60) (58.1
 * with the defaults), medians up to 1.65 x the equilibrium model (a
 * newcomer's d_base holds part of the standing queue it joined, RFC 8698
 * §6.3, so it reads x_curr low and settles above its share). Each alone:
 * catch-up=1 leaves the first flow up to 6 s, the newcomers up to 7 s and
 * 6 s below half; LOGWIN 250 ms alone fixes the first flow (<= 5 s), not
 * the newcomers (up to 11 s). */
static void
test_54_nada_catch_up (void)
{
  const Outcome *o = get (C54_NADA_CATCH_UP);

  check_54_nada_common (o);
  for (guint j = 0; j < o->n_st; j++)
    for (guint i = 0; i <= j; i++)
      g_assert_cmpuint (o->st[j].below[i], <=, AIM_BELOW_S);
  assert_nada_queue_model (o, 0.7, 1.7);
}

/* gcc §5.4 over seeds 1-40 (and 41-160, the hold-out). Below half the
 * fair share after a join (1 s bins, cumulative):
 *  - the first flow alone: 4 s in every seed (start-up doubles the
 *    estimate every second: 150 -> 1750 kbit/s in log2(11.7) = 3.5 s
 *    plus an RTT);
 *  - the flows already running at a join: 0 s at 20 s, 0-4 s at 40 s
 *    (the aim holds; 41-160: > 5 s in 2 runs, up to 13 s);
 *  - the newcomer at 40 s: 2-4 s (the aim holds; 41-160: <= 5 s);
 *  - the newcomer at 20 s: 3-16 s, > 5 s in 4 runs (41-160: 3-11 s, 11
 *    runs). Its start-up ends at its first over-use on a loaded link
 *    (0.6-1.1 Mbit/s); the ramp after start-up (docs/gcc.md (b')) keeps it
 *    growing through the next episodes until one finds it < 1.7 x higher
 *    than the last, after which only cuts that both flows take even them
 *    out. Traced on seed 29 (16 s): a flow much smaller than the other
 *    waits behind the big flow's packets (~5-7 ms at 75 % load from the
 *    other flow), which the big flow, paced, never does behind its own:
 *    the big flow sees the free path, the small one does not.
 * Over [60,119): Jain 0.949-1.0 (41-160: >= 0.910), every flow >= 68 % of
 * its share; utilisation with two or more flows 90.0-95.9 %; p95 <= 38.3
 * ms in every window.
 * Asserted: the aim for every flow already running and for the newcomer
 * at 40 s, the newcomer at 20 s <= 20 s, the first flow <= 5 s; Jain over
 * [60,119) >= 0.9 (the aim) with every flow >= 50 % of its share;
 * utilisation >= 85 % once two flows share the link; the p95 aim. */
static void
test_54_gcc (void)
{
  const Outcome *o = get (C54_GCC);

  report_aim (o);
  g_assert_cmpuint (o->n_w, ==, 4);
  g_assert_cmpuint (o->n_st, ==, 3);
  g_assert_cmpuint (o->st[0].below[0], <=, AIM_BELOW_S);
  g_assert_cmpuint (o->st[1].below[0], <=, AIM_BELOW_S);
  g_assert_cmpuint (o->st[2].below[0], <=, AIM_BELOW_S);
  g_assert_cmpuint (o->st[2].below[1], <=, AIM_BELOW_S);
  g_assert_cmpuint (o->st[1].below[1], <=, 20);
  g_assert_cmpuint (o->st[2].below[2], <=, AIM_BELOW_S);
  g_assert_cmpfloat (o->w[3].share_min, >=, 0.5);
  g_assert_cmpfloat (o->w[3].jain, >=, AIM_JAIN);
  for (guint i = 1; i < o->n_w; i++)
    g_assert_cmpfloat (o->w[i].util, >=, 0.85);
  for (guint i = 0; i < o->n_w; i++)
    g_assert_cmpfloat (o->w[i].loss, ==, 0.0);
  assert_gcc_queue (o);
  assert_gcc_qd95_aim (o);
}

/* ------------------------------------------------------------------------ */
/* Comparison, determinism, seed sweep                                      */

static void
test_compare (void)
{
  g_test_message ("RFC 8867 comparison (seed %d): utilisation (sum of recv "
      "/ C) min..max over the steady windows, Jain and share (recv / (C/n)) "
      "minimum over them, p95 pooled queue delay maximum over them, loss "
      "over the run", SEED);
  g_test_message ("%-4s %-31s %6s %6s %6s %6s %6s %6s  %s", "case", "cc",
      "umin", "umax", "jain", "shmin", "qd95", "loss%", "notes");
  for (guint id = 0; id < N_CASES; id++) {
    const Outcome *o = get (id);
    gdouble umin = INFINITY, umax = 0, jmin = INFINITY, shmin = INFINITY,
        qd = 0;
    gchar *who = case_label (&o->c), *notes;

    for (guint i = 0; i < o->n_w; i++) {
      umin = MIN (umin, o->w[i].util);
      umax = MAX (umax, o->w[i].util);
      jmin = MIN (jmin, o->w[i].jain);
      shmin = MIN (shmin, o->w[i].share_min);
      qd = MAX (qd, o->w[i].qd95);
    }
    if (o->c.n_flows == 1)
      notes = g_strdup_printf ("r40 %.1f s, r60 %.2f s, r80 %.1f s",
          o->r40, o->r60, o->r80);
    else if (o->c.windows == WINDOWS_JOINS)
      notes = g_strdup_printf ("J[60,119) %.3f, J10 min %.3f, worst "
          "below-half %u s", o->w[3].jain, o->jain10_min, o->below_max);
    else
      notes = g_strdup ("");
    g_test_message ("%-4s %-31s %5.1f%% %5.1f%% %6.3f %6.2f %6.1f %6.2f  %s",
        o->c.name, who, 100 * umin, 100 * umax, jmin, shmin, qd,
        o->all.loss, notes);
    g_free (who);
    g_free (notes);
  }
}

/* Multi-flow runs replay exactly: the same seed gives the same packet
 * records (every send time, verdict, delivery and queue delay, per flow). */
static void
test_determinism (void)
{
  Outcome a, b;
  Case c = cases[C54_NADA];

  measure (&c, FALSE, &a);
  measure (&c, FALSE, &b);
  g_assert_cmpuint (a.digest, ==, b.digest);
  g_assert_true (memcmp (a.w, b.w, sizeof a.w) == 0);
  c.seed = 2;
  measure (&c, FALSE, &b);
  g_assert_cmpuint (a.digest, !=, b.digest);
}

/* `-m thorough`: seeds 1-10 (RTPCC_RFC8867_SWEEP=n: 1-n) of every case,
 * one line each; RTPCC_RFC8867_SWEEP_FROM=m starts at seed m,
 * RTPCC_RFC8867_SWEEP_CC=gcc|nada runs one controller's cases. */
static void
test_sweep (void)
{
  if (!g_test_thorough ()) {
    g_test_skip ("seed sweep: run with -m thorough");
    return;
  }
  const gchar *env = g_getenv ("RTPCC_RFC8867_SWEEP");
  const gchar *first_env = g_getenv ("RTPCC_RFC8867_SWEEP_FROM");
  const gchar *only = g_getenv ("RTPCC_RFC8867_SWEEP_CC");
  guint64 n_seeds = env ? g_ascii_strtoull (env, NULL, 10) : 10;
  guint64 first = first_env ? g_ascii_strtoull (first_env, NULL, 10) : 1;

  for (guint id = 0; id < N_CASES; id++) {
    for (guint64 seed = MAX (first, 1); seed <= n_seeds; seed++) {
      Case c = case_get (id);
      Outcome o;
      GString *s;
      gchar *who;

      if (only && !g_str_equal (only, c.controller))
        break;
      s = g_string_new (NULL);
      who = case_label (&c);
      c.seed = seed;
      measure (&c, FALSE, &o);
      g_string_append_printf (s, "%s %-28s seed %2" G_GUINT64_FORMAT
          " util", c.name, who, seed);
      for (guint i = 0; i < o.n_w; i++)
        g_string_append_printf (s, " %5.1f", 100 * o.w[i].util);
      g_string_append (s, " qd95");
      for (guint i = 0; i < o.n_w; i++)
        g_string_append_printf (s, " %5.1f", o.w[i].qd95);
      g_string_append (s, " sd95");
      for (guint i = 0; i < o.n_w; i++)
        g_string_append_printf (s, " %.1f", o.w[i].sd95);
      g_string_append_printf (s, " qd95all %.1f qd50", o.all.qd95);
      for (guint i = 0; i < o.n_w; i++)
        g_string_append_printf (s, " %.1f", o.w[i].qd50);
      if (g_str_equal (c.controller, "nada")) {
        /* RFC 8698 equilibrium: x_curr = XREF × RMAX / r_ref */
        g_string_append (s, " p50/model");
        for (guint i = 0; i < o.n_w; i++)
          g_string_append_printf (s, " %.2f",
              o.w[i].qd50 / nada_model_ms (&o.w[i]));
      }
      if (c.n_flows > 1) {
        g_string_append (s, " shmax");
        for (guint i = 0; i < o.n_w; i++)
          g_string_append_printf (s, " %.2f", o.w[i].share_max);
        g_string_append (s, " jain");
        for (guint i = 0; i < o.n_w; i++)
          g_string_append_printf (s, " %.3f", o.w[i].jain);
        g_string_append (s, " shmin");
        for (guint i = 0; i < o.n_w; i++)
          g_string_append_printf (s, " %.2f", o.w[i].share_min);
      }
      if (c.n_flows == 1)
        g_string_append_printf (s, " r40 %.1f r60 %.2f r80 %.1f", o.r40,
            o.r60, o.r80);
      if (c.windows == WINDOWS_JOINS) {
        g_string_append_printf (s, " J10min %.3f below", o.jain10_min);
        for (guint j = 0; j < o.n_st; j++)
          for (guint i = 0; i < o.st[j].n; i++)
            g_string_append_printf (s, " %u", o.st[j].below[i]);
      }
      {
        gdouble wl = 0.0;
        for (guint i = 0; i < o.n_w; i++)
          wl = MAX (wl, o.w[i].loss);
        g_string_append_printf (s, " loss %.2f (windows max %.2f)",
            o.all.loss, wl);
      }
      g_test_message ("%s", s->str);
      g_string_free (s, TRUE);
      g_free (who);
    }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/rfc8867/5.1-gcc", test_51_gcc);
  g_test_add_func ("/sim/rfc8867/5.1-gcc-twcc", test_51_gcc_twcc);
  g_test_add_func ("/sim/rfc8867/5.1-gcc-saturated-probe",
      test_51_gcc_saturated_probe);
  g_test_add_func ("/sim/rfc8867/5.1-gcc-periodic-probing",
      test_51_gcc_periodic);
  g_test_add_func ("/sim/rfc8867/5.1-nada", test_51_nada);
  g_test_add_func ("/sim/rfc8867/5.1-nada-xref", test_51_nada_xref);
  g_test_add_func ("/sim/rfc8867/5.2-gcc", test_52_gcc);
  g_test_add_func ("/sim/rfc8867/5.2-nada", test_52_nada);
  g_test_add_func ("/sim/rfc8867/5.4-gcc", test_54_gcc);
  g_test_add_func ("/sim/rfc8867/5.4-nada", test_54_nada);
  g_test_add_func ("/sim/rfc8867/5.4-nada-xref", test_54_nada_xref);
  g_test_add_func ("/sim/rfc8867/5.4-nada-catch-up", test_54_nada_catch_up);
  g_test_add_func ("/sim/rfc8867/compare", test_compare);
  g_test_add_func ("/sim/rfc8867/determinism", test_determinism);
  g_test_add_func ("/sim/rfc8867/seed-sweep", test_sweep);
  return g_test_run ();
}

/* FBRA (FEC-based rate adaptation) in the closed-loop simulator, side by
 * side with gcc and tfrc in the same run, through the library's real
 * RtpccSender / RtpccReceiver (pacer, RFC 8888 CCFB, RTCP RR + XR, RFC 8083
 * breaker on):
 *
 *   §5.1   one flow, 1.0 → 2.5 → 0.6 → 1.0 Mbit/s at 0/40/60/80 s, 100 s,
 *          50 ms one way each direction, 300 ms drop-tail queue,
 *          R_min = R_init = 150 kbit/s, R_max = 3 Mbit/s (as
 *          test-sim-rfc8867);
 *   §5.1 + a 150 ms playout deadline: late media packets are discarded
 *          and reported to the sender (XR Discard RLE), for all three;
 *   §5.7-like one flow against 10 short TCP NewReno flows (files of
 *          30-50 kB, exponential OFF times of mean 10 s, two start at 0 s,
 *          as test-sim-tcp's short-flow case) on 2 Mbit/s, 120 s.
 *
 * FBRA's probe is the sender's padding (is_fec) at the fec_bitrate it asks
 * for: in the simulator no fecenc produces parity, and RtpccSender makes
 * padding probes exactly when no real FEC flows. Every
 * receiver starts at the library default RR interval (1 s). FBRA, which
 * evaluates once per RR, asks its receiver for 2.5 × the min RTT (the
 * paper's "need not be shorter than 2 × RTT"): RTCP APP "FBIV" with each
 * SR, so ~250 ms here; gcc and tfrc ask for nothing (they run on the
 * per-frame CCFB).
 *
 * Metrics (sim_rtpcc_net_collect; rates are wire bytes incl. probes and
 * RTCP): per steady phase [change + 5 s, next change) utilisation = recv /
 * capacity, queue delay p95, loss; whole-run loss and p95; FBRA's probe
 * overhead (probe bytes / bytes sent), its state-machine counters (UPs,
 * undershoots, early reports, feedback timeouts). Thresholds are next to
 * each check with their reason; the numbers measured are in docs/fbra.md.
 *
 * The thresholds are asserted for seed 1 (RTPCC_FBRA_SEED=n runs another).
 * The seeds 1-20 ranges in the comments were measured with a fixed 250 ms
 * RR interval; docs/fbra.md names the seeds that miss a threshold with the
 * requested one. Development aids: RTPCC_FBRA_RTCP_MS=n fixes fbra's RR
 * interval (the request ignored),
 * RTPCC_FBRA_PARAM="key=value;..." sets fbra parameters.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-rtpcc.h"
#include "sim-tcp.h"

#include <rtpcc/cc/fbra.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* The tables go to stdout, which meson reads as TAP: print them as
 * comment lines ("# " before every line). */
static void tap_print (const gchar * fmt, ...) G_GNUC_PRINTF (1, 2);
static void
tap_print (const gchar * fmt, ...)
{
  static gboolean at_line_start = TRUE;
  va_list ap;
  gchar *str;

  va_start (ap, fmt);
  str = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  for (const gchar * p = str; *p; p++) {
    if (at_line_start)
      fputs ("# ", stdout);
    fputc (*p, stdout);
    at_line_start = *p == '\n';
  }
  fflush (stdout);
  g_free (str);
}
#include <string.h>

#define KBPS 1000
#define MIN_BPS (150 * KBPS)
#define MAX_BPS (3000 * KBPS)
#define SETTLE RTPCC_SEC (5)
#define S51 "1000@0,2500@40,600@60,1000@80"

typedef struct
{
  const gchar *controller;
  SimRtpccResult *res;
  RtpccSenderStats stats;
  RtpccFbraInfo fbra;
  gboolean is_fbra;
  /* §5.7-like */
  gdouble tcp_kbps;             /* Σ TCP goodput over the window */
  gdouble media_kbps;           /* media flow receive rate over the window */
  guint tcp_done, tcp_started;
  gdouble media_loss, media_qd95;
  /* with a playout deadline */
  guint64 media_in, late, marked;
  guint64 rx_marked, rx_reported;       /* receiver's discard counters */
  RtpccTime rx_interval;        /* receiver's RR interval at the end */
} Outcome;

/* A playout deadline in front of the receiver: a media packet older than
 * @deadline since its frame's capture when it arrives is discarded late,
 * and the receiver is told (as rtpccsrc is by the "rtpcc-discard" event);
 * it reaches the sender as an XR Discard RLE block. */
typedef struct
{
  SimNode node;
  SimNode *next;
  RtpccReceiver *rx;
  RtpccTime deadline;
  RtpccTime mark_until;         /* discards after it are not reported, so
                                 * every report is in by the run's end */
  guint64 media, late, marked;
} Playout;

static void
playout_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  Playout *pl = (Playout *) node;

  RtpccRtpInfo info;

  /* media only: the sender's padding probes carry nothing to play */
  if (sim_rtp_header_parse (p, &info, NULL) && !info.padding_only) {
    guint32 ssrc = info.ssrc;
    guint16 seq = info.seq;
    gboolean late = sim_now (sim) - p->created > pl->deadline;

    pl->media++;
    /* the receiver logs the arrival first: a discard is a packet that
     * arrived */
    sim_node_receive (pl->next, sim, p);
    if (late) {
      pl->late++;
      if (sim_now (sim) < pl->mark_until) {
        pl->marked++;
        rtpcc_receiver_mark_discarded (pl->rx, sim_now (sim), ssrc, seq, 1);
      }
    }
    return;
  }
  sim_node_receive (pl->next, sim, p);
}

/* Development aid: a fixed RR interval, the sender's request ignored. */
static RtpccTime
fbra_rtcp_interval (void)
{
  const gchar *e = g_getenv ("RTPCC_FBRA_RTCP_MS");
  return e ? RTPCC_MSEC (g_ascii_strtoull (e, NULL, 10)) : 0;
}

static guint64
seed (void)
{
  const gchar *e = g_getenv ("RTPCC_FBRA_SEED");
  return e ? g_ascii_strtoull (e, NULL, 10) : 1;
}

/* real FEC (sim-fec.h) instead of padding probes, and forward random loss
 * (Bernoulli, 0: none) */
static gboolean with_fec;
static gdouble forward_loss;

static SimRtpccNet *
net_new (const gchar * schedule, RtpccCapacity ** cap)
{
  SimRtpccNetConfig nc;
  GError *err = NULL;

  *cap = rtpcc_capacity_new_schedule (schedule, &err);
  g_assert_no_error (err);
  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = *cap;
  nc.forward.delay = RTPCC_MSEC (50);
  nc.forward.queue_limit_time = RTPCC_MSEC (300);
  nc.forward.seed = seed ();
  nc.forward.loss.loss = forward_loss;
  nc.reverse.delay = RTPCC_MSEC (50);
  nc.reverse.seed = seed () + 1;
  return sim_rtpcc_net_new (&nc);
}

/* RR + XR feedback instead of CCFB (the receiver's RTCP XR blocks, as
 * RtpccReceiverConfig.xr_blocks; 0: CCFB) */
static guint rr_xr_blocks;

static SimRtpccFlow *
add_media (SimRtpccNet * net, const gchar * controller)
{
  SimRtpccFlowConfig fc;
  GError *err = NULL;
  SimRtpccFlow *f;

  sim_rtpcc_flow_config_init (&fc, 0, controller, rr_xr_blocks ?
      SIM_RTPCC_FEEDBACK_RR : SIM_RTPCC_FEEDBACK_CCFB, 100 + seed ());
  if (rr_xr_blocks)
    fc.receiver.receiver.xr_blocks = rr_xr_blocks;
  fc.sender.sender.cc.min_bitrate = MIN_BPS;
  fc.sender.sender.cc.max_bitrate = MAX_BPS;
  fc.sender.sender.cc.start_bitrate = MIN_BPS;
  fc.sender.sender.circuit_breaker = TRUE;
  fc.sender.initial_seq = 65000;
  fc.fec = with_fec;
  if (g_strcmp0 (controller, "fbra") == 0 && fbra_rtcp_interval () > 0) {
    fc.receiver.receiver.rtcp_interval = fbra_rtcp_interval ();
    fc.receiver.receiver.honour_interval_requests = FALSE;
  }
  f = sim_rtpcc_net_add_flow (net, &fc, &err);
  g_assert_no_error (err);
  if (g_strcmp0 (controller, "fbra") == 0) {
    /* "key=value;key=value" */
    rtpcc_controller_set_params (rtpcc_sender_get_controller
        (sim_rtpcc_sender_get_sender (f->sender)),
        g_getenv ("RTPCC_FBRA_PARAM"), &err);
    g_assert_no_error (err);
  }
  return f;
}

static void
fill_outcome (Outcome * o, SimRtpccNet * net, SimRtpccFlow * f)
{
  RtpccSender *s = sim_rtpcc_sender_get_sender (f->sender);

  o->res = sim_rtpcc_net_collect (net, f, SETTLE);
  o->stats = *rtpcc_sender_get_stats (s, sim_now (net->sim));
  o->is_fbra = rtpcc_fbra_get_info (rtpcc_sender_get_controller (s),
      &o->fbra);
}

static gdouble
probe_share (const Outcome * o)
{
  return o->stats.bytes_sent ? 100.0 * o->stats.probe_bytes /
      o->stats.bytes_sent : 0.0;
}

/* ------------------------------------------------------------------------ */
/* §5.1                                                                     */

static void
run_51 (Outcome * o, const gchar * controller, RtpccTime deadline)
{
  RtpccCapacity *cap;
  SimRtpccNet *net = net_new (S51, &cap);
  SimRtpccFlow *f = add_media (net, controller);
  Playout pl = { {playout_receive, "playout"}, NULL, NULL, 0, 0, 0, 0, 0 };

  memset (o, 0, sizeof (*o));
  o->controller = controller;
  if (deadline > 0) {
    pl.next = sim_rtpcc_receiver_node (f->receiver);
    pl.rx = sim_rtpcc_receiver_get_receiver (f->receiver);
    pl.deadline = deadline;
    pl.mark_until = RTPCC_SEC (99);
    sim_demux_set_route (net->forward_demux, f->flow, &pl.node);
  }
  sim_rtpcc_net_run (net, RTPCC_SEC (100));
  fill_outcome (o, net, f);
  o->media_in = pl.media;
  o->late = pl.late;
  o->marked = pl.marked;
  {
    RtpccReceiver *rx = sim_rtpcc_receiver_get_receiver (f->receiver);
    const RtpccReceiverStats *rs = rtpcc_receiver_get_stats (rx,
        sim_now (net->sim));
    o->rx_marked = rs->discards_marked;
    o->rx_reported = rs->discards_reported;
    o->rx_interval = rs->report_interval;
  }
  sim_rtpcc_net_free (net);
  rtpcc_capacity_unref (cap);
}

static void
print_51 (const Outcome * o, guint n)
{
  if (g_getenv ("RTPCC_FBRA_ROWS"))
    for (guint r = 0; r < o[0].res->n_rows; r++)
      if (o[0].res->rows[r].loss_pct > 0)
        tap_print ("  %s row %.1f s: cap %.0f target %.0f send %.0f loss %.1f "
            "%% qd %.0f\n", o[0].controller,
            RTPCC_TIME_AS_SEC (o[0].res->rows[r].time),
            o[0].res->rows[r].capacity_kbps, o[0].res->rows[r].target_kbps,
            o[0].res->rows[r].send_kbps, o[0].res->rows[r].loss_pct,
            o[0].res->rows[r].queue_delay_ms);
  GString *s = g_string_new (NULL);

  g_string_append (s, "RFC 8867 5.1 (1.0/2.5/0.6/1.0 Mbit/s, 50 ms, "
      "300 ms queue), steady phases [change + 5 s, next):\n");
  g_string_append (s, "  phase            ");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "| %-24s", o[i].controller);
  g_string_append (s, "\n");
  for (guint p = 0; p < o[0].res->n_phases; p++) {
    const SimRtpccPhase *ph0 = &o[0].res->phases[p];
    g_string_append_printf (s, "  [%3.0f,%3.0f) %4.0f k  ",
        RTPCC_TIME_AS_SEC (ph0->start), RTPCC_TIME_AS_SEC (ph0->end),
        ph0->capacity_kbps);
    for (guint i = 0; i < n; i++) {
      const SimRtpccPhase *ph = &o[i].res->phases[p];
      g_string_append_printf (s, "| u %5.1f%% p95 %5.0f l %4.2f",
          100 * ph->utilisation, ph->qdelay_p95_ms, ph->loss_pct);
    }
    g_string_append (s, "\n");
  }
  g_string_append (s, "  whole run        ");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "| %5.0fk p95 %5.0f l %4.2f",
        o[i].res->total.recv_kbps, o[i].res->total.qdelay_ms_p95,
        o[i].res->total.loss_pct);
  g_string_append (s, "\n  response (s)     ");
  for (guint i = 0; i < n; i++) {
    GString *r = g_string_new (NULL);
    for (guint c = 0; c < o[i].res->n_changes; c++)
      g_string_append_printf (r, "%s%.1f", c ? "/" : "",
          o[i].res->changes[c].response_s);
    g_string_append_printf (s, "| %-24s", r->str);
    g_string_free (r, TRUE);
  }
  g_string_append (s, "\n");
  for (guint i = 0; i < n; i++)
    if (o[i].is_fbra)
      g_string_append_printf (s, "  fbra: probe overhead %.1f %% of bytes "
          "sent, %" G_GUINT64_FORMAT " reports, %" G_GUINT64_FORMAT
          " evaluations, %" G_GUINT64_FORMAT " UP, %" G_GUINT64_FORMAT
          " undershoots, %" G_GUINT64_FORMAT " bounce-backs, %"
          G_GUINT64_FORMAT " early, %" G_GUINT64_FORMAT " timeouts, "
          "%" G_GUINT64_FORMAT " losses\n", probe_share (&o[i]),
          o[i].fbra.reports, o[i].fbra.evaluations, o[i].fbra.ups,
          o[i].fbra.undershoots, o[i].fbra.bounce_backs, o[i].fbra.early,
          o[i].fbra.timeouts, o[i].fbra.losses);
  tap_print ("%s", s->str);
  g_string_free (s, TRUE);
}

static void
test_rfc8867_51 (void)
{
  const gchar *ctl[] = { "fbra", "gcc", "tfrc" };
  Outcome o[3];
  const Outcome *fb = &o[0];

  for (guint i = 0; i < 3; i++)
    run_51 (&o[i], ctl[i], 0);
  print_51 (o, 3);

  g_assert_cmpuint (fb->res->n_phases, ==, 4);
  /* The state machine ran on its own feedback: one evaluation per RR
   * (besides those skipped after an undershoot), no spurious early
   * reports with randomised RTCP (the early-interval rule, in the closed
   * loop) and no
   * feedback timeout on a path that never loses RTCP. */
  g_assert_cmpuint (fb->fbra.evaluations + fb->fbra.ignored, ==,
      fb->fbra.reports);
  g_assert_cmpuint (fb->fbra.early, ==, 0);
  g_assert_cmpuint (fb->fbra.timeouts, ==, 0);
  g_assert_cmpuint (fb->fbra.ups, >=, 20);
  /* The probe is FEC-sized: ≤ 1/2 of the media at most (N ≥ 2), and in
   * practice a few per cent since it runs only in PROBE (measured 1.6 %). */
  g_assert_cmpfloat (probe_share (fb), >, 0.5);
  g_assert_cmpfloat (probe_share (fb), <, 15.0);
  /* The paper's aim is low loss: FBRA adds rate in FEC-sized steps and
   * backs off on OWD before the queue overflows. Steady phases lose
   * nothing or little (seed 1: 0 in all four; seeds 1-20: at most 0.36 %
   * in a phase; tfrc loses in three phases at seed 1). The whole-run loss
   * is mostly the 4× capacity drop at 60 s, which no controller avoids
   * (seed 1: 0.85 %, gcc 0.47 %, tfrc 1.95 %; fbra seeds 1-20 0.69-1.51 %). */
  for (guint p = 0; p < fb->res->n_phases; p++)
    g_assert_cmpfloat (fb->res->phases[p].loss_pct, <, 1.0);
  g_assert_cmpfloat (fb->res->total.loss_pct, <, 2.0);
  /* The queue is not held full (300 ms): whole-run p95 seed 1 117 ms,
   * seeds 1-20 72-172 ms; a single phase can
   * reach 280 ms (the OWD watermarks follow a queue that builds without
   * loss, docs/fbra.md). */
  g_assert_cmpfloat (fb->res->total.qdelay_ms_p95, <, 200.0);
  /* Utilisation (seed 1: 76 / 87 / 95 / 96 %; seeds 1-20 at least 76 / 78 /
   * 87 / 94 %): the first phase includes the multiplicative ramp from
   * 150 kbit/s ((1 + 1/N) per STAY→PROBE→UP cycle). */
  g_assert_cmpfloat (fb->res->phases[0].utilisation, >, 0.70);
  g_assert_cmpfloat (fb->res->phases[1].utilisation, >, 0.70);
  g_assert_cmpfloat (fb->res->phases[2].utilisation, >, 0.80);
  g_assert_cmpfloat (fb->res->phases[3].utilisation, >, 0.85);
  /* the undershoot answers the 2.5 → 0.6 drop within a few reports
   * (measured 0.7 s: the target falls below 0.6 Mbit/s) */
  g_assert_true (isfinite (fb->res->changes[1].response_s));
  g_assert_cmpfloat (fb->res->changes[1].response_s, <, 2.0);
  /* The receiver runs with the library's default 1 s RR interval; FBRA
   * asked it (RTCP APP "FBIV" with each SR) for 2.5 × the min RTT of
   * ~100 ms, and it reports at that. At a fixed 1 s the same run reaches
   * 25 / 17 % in the first two phases and never meets either increase
   * (RTPCC_FBRA_RTCP_MS=1000). */
  g_assert_cmpint (fb->stats.report_interval_asked, >=, RTPCC_MSEC (240));
  g_assert_cmpint (fb->stats.report_interval_asked, <=, RTPCC_MSEC (300));
  g_assert_cmpint (fb->rx_interval, ==, fb->stats.report_interval_asked);
  /* it converges on every capacity change: each increase is met (seed 1
   * 9.6 s and 4.4 s) before the next change, each drop answered */
  g_assert_cmpuint (fb->res->n_changes, ==, 3);
  for (guint c = 0; c < fb->res->n_changes; c++)
    g_assert_true (isfinite (fb->res->changes[c].response_s));

  for (guint i = 0; i < 3; i++)
    sim_rtpcc_result_free (o[i].res);
}

/* §5.1 with real FEC (sim-fec.h) in place of the padding probe, with 1 %
 * random loss on the forward link so that there is something to rebuild,
 * beside the same run probing with padding: FBRA's probe is then parity
 * that the library's XOR encoder makes at the interval FBRA's FEC rate
 * gives (as fecenc follow-target), and the library's decoder at the
 * receiver rebuilds what it can. The paper's FEC figures (Nagy et al.,
 * Sec. 5.1): the FEC rate, FRCC (FEC episodes that did not end in DOWN)
 * and FFRE (frames rebuilt / frames that lost a protected packet and
 * were not, plus those rebuilt). Measured in docs/fbra.md. */
static void
test_rfc8867_51_fec (void)
{
  Outcome o[2];
  const Outcome *fec = &o[0], *pad = &o[1];
  const SimFecResult *r;
  gdouble secs;

  forward_loss = 0.01;
  with_fec = TRUE;
  run_51 (&o[0], "fbra", 0);
  with_fec = FALSE;
  run_51 (&o[1], "fbra", 0);
  forward_loss = 0;
  print_51 (o, 2);
  g_assert_true (fec->res->has_fec);
  g_assert_false (pad->res->has_fec);
  r = &fec->res->fec;
  secs = 100.0;
  tap_print ("  FEC: %" G_GUINT64_FORMAT " parity packets, %.1f kbit/s "
      "(%.1f %% of the media bytes), %" G_GUINT64_FORMAT " of %"
      G_GUINT64_FORMAT " media packets covered; lost %" G_GUINT64_FORMAT
      " (covered %" G_GUINT64_FORMAT "), rebuilt %" G_GUINT64_FORMAT
      "; FFRE packets %.3f, frames %.3f (%" G_GUINT64_FORMAT " rebuilt, %"
      G_GUINT64_FORMAT " lost though covered); FRCC %.3f (%"
      G_GUINT64_FORMAT " episodes: %" G_GUINT64_FORMAT " up, %"
      G_GUINT64_FORMAT " stay, %" G_GUINT64_FORMAT " down); padding %"
      G_GUINT64_FORMAT " B with FEC, %" G_GUINT64_FORMAT " B without\n",
      r->fec_packets, r->fec_bytes * 8.0 / 1000.0 / secs,
      100.0 * r->fec_bytes / MAX (fec->stats.bytes_sent - r->fec_bytes, 1),
      r->protected_packets, r->media_packets, r->lost, r->lost_protected,
      r->recovered, r->ffre_packets, r->ffre_frames, r->frames_recovered,
      r->frames_lost_protected, rtpcc_fbra_frcc (&fec->fbra),
      fec->fbra.fec_episodes, fec->fbra.fec_raised, fec->fbra.fec_kept,
      fec->fbra.fec_down, fec->stats.probe_bytes, pad->stats.probe_bytes);

  /* parity flowed, every packet the encoder made was queued, and the
   * controller saw it go out as its FEC (with the padding it still sends
   * when no parity came in time: is_fec too) */
  g_assert_cmpuint (r->fec_packets, >, 0);
  g_assert_cmpuint (fec->res->sender.fec_out, ==, r->fec_packets);
  g_assert_cmpuint (fec->fbra.fec_packets, >=, r->fec_packets * 9 / 10);
  /* at FBRA's own interval, blocks by count: every parity covers N >= 2
   * packets (a time bound would close blocks of one or two at low rates
   * and multiply the FEC rate FBRA asked for) */
  g_assert_cmpuint (r->protected_packets, >=, 2 * r->fec_packets);
  /* parity replaces padding as the probe */
  g_assert_cmpuint (fec->stats.probe_bytes, <, pad->stats.probe_bytes);
  /* the decoder rebuilt covered losses, one per parity at most (XOR); a
   * covered loss is rebuilt unless another packet of its block or its
   * parity is lost, or the parity comes after the decoder's 100 ms: with
   * 1 % random loss and N = 14, (0.99)^14 = 0.87 of them before the
   * deadline and the queue's own drops */
  g_assert_cmpuint (r->recovered, >, 0);
  g_assert_cmpuint (r->recovered, <=, r->fec_packets);
  g_assert_cmpfloat (r->ffre_packets, >, 0.5);
  g_assert_cmpfloat (r->ffre_packets, <=, 1.0);
  g_assert_cmpfloat (r->ffre_frames, >, 0.5);
  /* FRCC over the episodes that ended (the last may still be open) */
  g_assert_cmpuint (fec->fbra.fec_episodes, >, 10);
  g_assert_cmpuint (fec->fbra.fec_raised + fec->fbra.fec_kept +
      fec->fbra.fec_down + 1, >=, fec->fbra.fec_episodes);
  g_assert_cmpfloat (rtpcc_fbra_frcc (&fec->fbra), >=, 0.0);
  g_assert_cmpfloat (rtpcc_fbra_frcc (&fec->fbra), <=, 1.0);
  /* the same call otherwise: within a tenth of the padding run's rate */
  g_assert_cmpfloat (fabs (fec->res->total.recv_kbps -
          pad->res->total.recv_kbps), <, 0.1 * pad->res->total.recv_kbps);

  for (guint i = 0; i < 2; i++)
    sim_rtpcc_result_free (o[i].res);
}

/* §5.1 with FBRA on RR + XR feedback, beside FBRA on CCFB: Loss RLE (its
 * losses and goodput), Discard RLE and Delay Metrics, whose round trips
 * the receiver measures with RRTR / DLRR (RFC 3611); half the mean round
 * trip is FBRA's one-way delay. It comes close to its CCFB run. Without
 * the Delay Metrics block it backs off on losses only: it still meets
 * every change but holds the 300 ms queue nearly full. The measured
 * table is in docs/fbra.md ("§5.1 on RR + XR feedback"). */
static void
test_rfc8867_51_rr_xr (void)
{
  Outcome o[3];
  const Outcome *xr = &o[0], *loss_only = &o[1];

  rr_xr_blocks = RTPCC_RECEIVER_XR_DISCARD_RLE | RTPCC_RECEIVER_XR_LOSS_RLE
      | RTPCC_RECEIVER_XR_DELAY;
  run_51 (&o[0], "fbra", 0);
  rr_xr_blocks = RTPCC_RECEIVER_XR_DISCARD_RLE | RTPCC_RECEIVER_XR_LOSS_RLE;
  run_51 (&o[1], "fbra", 0);
  rr_xr_blocks = 0;
  run_51 (&o[2], "fbra", 0);
  print_51 (o, 3);

  for (guint i = 0; i < 2; i++) {
    /* the Loss RLE was its per-packet feedback: every loss it counted was
     * reported lost in a Loss RLE block; one evaluation per report */
    g_assert_cmpuint (o[i].fbra.losses, >, 0);
    g_assert_cmpuint (o[i].fbra.losses, <=, o[i].stats.xr.loss_lost);
    g_assert_cmpuint (o[i].stats.reported_received, >, 0);
    g_assert_cmpuint (o[i].fbra.evaluations + o[i].fbra.ignored, ==,
        o[i].fbra.reports);
    g_assert_cmpuint (o[i].fbra.timeouts, ==, 0);
    /* it meets every capacity change */
    g_assert_cmpuint (o[i].res->n_changes, ==, 3);
    for (guint c = 0; c < o[i].res->n_changes; c++)
      g_assert_true (isfinite (o[i].res->changes[c].response_s));
    for (guint p = 0; p < o[i].res->n_phases; p++)
      g_assert_cmpfloat (o[i].res->phases[p].utilisation, >, 0.6);
  }
  /* with the delay: the receiver's round trips reached the sender, the
   * queue stays well short of full and the loss near CCFB's */
  g_assert_cmpint (xr->stats.xr.rtt_mean, !=, RTPCC_TIME_NONE);
  g_assert_cmpint (xr->stats.xr.rtt_min, >=, RTPCC_MSEC (100));
  g_assert_cmpfloat (xr->res->phases[0].utilisation, >, 0.70);
  g_assert_cmpfloat (xr->res->phases[1].utilisation, >, 0.70);
  g_assert_cmpfloat (xr->res->total.qdelay_ms_p95, <, 200.0);
  g_assert_cmpfloat (xr->res->total.loss_pct, <, 2.0);
  /* without it, the queue fills: the delay is what keeps it short */
  g_assert_cmpint (loss_only->stats.xr.rtt_mean, ==, RTPCC_TIME_NONE);
  g_assert_cmpfloat (loss_only->res->total.qdelay_ms_p95, >,
      xr->res->total.qdelay_ms_p95);
  g_assert_cmpfloat (loss_only->res->total.loss_pct, <, 5.0);
  for (guint i = 0; i < 3; i++)
    sim_rtpcc_result_free (o[i].res);
}

/* §5.1 with a 150 ms playout deadline (capture to arrival): late packets
 * are discarded at the receiver and reported (RFC 7097), as the paper's
 * 400 ms delay_max does with its longer paths. The same deadline applies
 * to all three; only fbra acts on the discards. */
static void
test_rfc8867_51_deadline (void)
{
  const gchar *ctl[] = { "fbra", "gcc", "tfrc" };
  Outcome o[3];
  const Outcome *fb = &o[0];

  for (guint i = 0; i < 3; i++)
    run_51 (&o[i], ctl[i], RTPCC_MSEC (150));
  print_51 (o, 3);
  for (guint i = 0; i < 3; i++)
    tap_print ("  %-5s late (> 150 ms, discarded): %5.2f %% of %" G_GUINT64_FORMAT
        " media packets, %" G_GUINT64_FORMAT " reported to the sender\n",
        ctl[i], o[i].media_in ? 100.0 * o[i].late / o[i].media_in : 0.0,
        o[i].media_in, o[i].stats.reported_discarded);
  if (fb->is_fbra)
    tap_print ("  fbra: %" G_GUINT64_FORMAT " discards seen, %" G_GUINT64_FORMAT
        " undershoots, %" G_GUINT64_FORMAT " early, %" G_GUINT64_FORMAT
        " timeouts\n", fb->fbra.discards, fb->fbra.undershoots,
        fb->fbra.early, fb->fbra.timeouts);

  /* every discard (marked until 99 s, so that the last reports are in by
   * 100 s) reaches the sender and its controller */
  g_assert_cmpuint (fb->marked, >, 0);
  g_assert_cmpuint (fb->rx_marked, ==, fb->marked);
  g_assert_cmpuint (fb->rx_reported, ==, fb->marked);
  g_assert_cmpuint (fb->stats.reported_discarded, ==, fb->marked);
  g_assert_cmpuint (fb->fbra.discards, ==, fb->marked);
  g_assert_cmpuint (fb->fbra.early, ==, 0);
  g_assert_cmpuint (fb->fbra.timeouts, ==, 0);
  {
    gdouble late_fb = 100.0 * fb->late / fb->media_in;
    /* Discards are congestion to FBRA (recent discards → DOWN), so late
     * packets stay rare: seed 1 2.37 % (gcc 2.01 %, which ignores
     * discards: its late packets are keyframe bursts and the drop at
     * 60 s; tfrc 81.8 %, it keeps the 300 ms queue full); fbra seeds 1-20
     * 0.93-2.4 %, gcc 0.92-2.08 %. */
    g_assert_cmpfloat (late_fb, <, 3.0);
  }
  /* the queue stays short (whole-run p95 seed 1 64 ms, seeds 1-20
   * 51-69 ms) and no steady phase loses (0 for seeds 1-20) */
  g_assert_cmpfloat (fb->res->total.qdelay_ms_p95, <, 100.0);
  for (guint p = 0; p < fb->res->n_phases; p++)
    g_assert_cmpfloat (fb->res->phases[p].loss_pct, <, 0.1);
  /* The price is rate: discards undershoot hard and the 2.5 Mbit/s phase
   * is often not reached (seed 1 78 %, seeds 1-20 from 27 %); the 0.6 and
   * 1.0 Mbit/s phases are used (seed 1 84 / 96 %, seeds 1-20 at least
   * 62 / 64 %). */
  g_assert_cmpfloat (fb->res->phases[2].utilisation, >, 0.55);
  g_assert_cmpfloat (fb->res->phases[3].utilisation, >, 0.60);
  for (guint i = 0; i < 3; i++)
    sim_rtpcc_result_free (o[i].res);
}

/* ------------------------------------------------------------------------ */
/* §5.7-like: short TCP flows                                               */

static void
run_tcp (Outcome * o, const gchar * controller)
{
  RtpccCapacity *cap;
  SimRtpccNet *net = net_new ("2000@0", &cap);
  SimRtpccFlow *f = add_media (net, controller);
  SimTcpFlow *tcp[10];
  const RtpccTime t0 = RTPCC_SEC (10), t1 = RTPCC_SEC (120);

  memset (o, 0, sizeof (*o));
  o->controller = controller;
  for (guint i = 0; i < 10; i++) {
    SimTcpConfig tc;
    GError *err = NULL;
    sim_tcp_config_init (&tc);
    tc.flow = 10 + i;
    tc.transfer_bytes = 30000;
    tc.transfer_bytes_max = 50000;
    tc.off_mean = RTPCC_SEC (10);
    tc.start_off = i >= 2;
    tc.seed = 6 + seed ();
    tcp[i] = sim_rtpcc_net_add_tcp (net, &tc, &err);
    g_assert_no_error (err);
  }
  sim_rtpcc_net_run (net, t1);
  fill_outcome (o, net, f);
  for (guint i = 0; i < 10; i++) {
    SimTcpStats st;
    guint nt;
    const SimTcpTransfer *tr = sim_tcp_flow_get_transfers (tcp[i], &nt);
    o->tcp_kbps += sim_tcp_flow_goodput_kbps (tcp[i], t0, t1);
    sim_tcp_flow_get_stats (tcp[i], &st);
    o->tcp_started += st.transfers_started;
    for (guint k = 0; k < nt; k++)
      if (tr[k].end != RTPCC_TIME_NONE)
        o->tcp_done++;
  }
  {
    /* the media flow's rows from t0 on */
    gdouble recv = 0, n = 0;
    for (guint r = 0; r < o->res->n_rows; r++)
      if (o->res->rows[r].time >= t0) {
        recv += o->res->rows[r].recv_kbps;
        n++;
      }
    o->media_kbps = n > 0 ? recv / n : 0;
  }
  o->media_loss = o->res->total.loss_pct;
  o->media_qd95 = o->res->total.qdelay_ms_p95;
  sim_rtpcc_net_free (net);
  rtpcc_capacity_unref (cap);
}

static void
test_short_tcp (void)
{
  const gchar *ctl[] = { "fbra", "gcc", "tfrc" };
  Outcome o[3];
  const Outcome *fb = &o[0];

  tap_print ("5.7-like: 2 Mbit/s, 50 ms, 300 ms queue, 10 short TCP flows "
      "(30-50 kB, OFF ~ Exp(10 s)), [10, 120) s:\n");
  for (guint i = 0; i < 3; i++) {
    run_tcp (&o[i], ctl[i]);
    tap_print ("  %-5s media %6.0f kbit/s, loss %5.2f %%, p95 queue %5.0f ms"
        " | TCP %6.0f kbit/s, %u/%u files done | probe %.1f %%\n",
        ctl[i], o[i].media_kbps, o[i].media_loss, o[i].media_qd95,
        o[i].tcp_kbps, o[i].tcp_done, o[i].tcp_started, probe_share (&o[i]));
  }
  if (fb->is_fbra)
    tap_print ("  fbra: %" G_GUINT64_FORMAT " UP, %" G_GUINT64_FORMAT
        " undershoots, %" G_GUINT64_FORMAT " early, %" G_GUINT64_FORMAT
        " timeouts\n", fb->fbra.ups, fb->fbra.undershoots, fb->fbra.early,
        fb->fbra.timeouts);

  g_assert_cmpuint (fb->fbra.early, ==, 0);
  g_assert_cmpuint (fb->fbra.timeouts, ==, 0);
  /* The short flows are not starved: nearly every file started finishes
   * (one per flow may still run at the end). */
  g_assert_cmpuint (fb->tcp_done + 10, >=, fb->tcp_started);
  /* The media keeps a useful share of the 2 Mbit/s next to TCP that
   * averages ~300 kbit/s (seed 1 1198 kbit/s, gcc 734, tfrc 1692; fbra
   * seeds 1-20 1121-1347). */
  g_assert_cmpfloat (fb->media_kbps, >, 800.0);
  /* TCP's slow-start bursts fill the shared drop-tail queue for moments
   * whatever the media does, so the p95 is high for everyone: FBRA's is
   * below the loss-driven tfrc's (seed 1 255 vs 278 ms; seeds 1-20
   * 180-268 ms, each below tfrc's 268-278) and under the 300 ms queue;
   * it loses little (seed 1 0.17 %, seeds 1-20 at most 0.35 %). */
  g_assert_cmpfloat (fb->media_qd95, <, 290.0);
  g_assert_cmpfloat (fb->media_qd95, <=, o[2].media_qd95 + 10.0);
  g_assert_cmpfloat (fb->media_loss, <, 1.0);
  for (guint i = 0; i < 3; i++)
    sim_rtpcc_result_free (o[i].res);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/fbra/rfc8867-5.1", test_rfc8867_51);
  g_test_add_func ("/sim/fbra/rfc8867-5.1-deadline",
      test_rfc8867_51_deadline);
  g_test_add_func ("/sim/fbra/short-tcp", test_short_tcp);
  g_test_add_func ("/sim/fbra/rfc8867-5.1-rr-xr", test_rfc8867_51_rr_xr);
  g_test_add_func ("/sim/fbra/rfc8867-5.1-fec", test_rfc8867_51_fec);
  return g_test_run ();
}

/* "gcc": Google Congestion Control, after draft-ietf-rmcat-gcc-02 (the draft)
 * and the libwebrtc goog_cc design it documents, run entirely at the sender
 * from per-packet feedback (RFC 8888 CCFB, 1/1024 s arrival resolution, or
 * TWCC, 250 µs): only RtpccFeedback is read, so either works.
 *
 * Pipeline, per feedback:
 *   reports -> grouper (§5.2) -> d(i) -> trendline | kalman (§5.3)
 *           -> over-use detector, adaptive threshold (§5.4)
 *           -> AIMD rate controller on the received rate (§5.5)      = A
 *   reports -> loss fraction over >= the control interval (§6)        = As
 *   target = min (A, As); probes add fec_bitrate on top (see below).
 *
 * Constants and where they come from:
 *   burst_time 5 ms, q 1e-3, e(0) 0.1, chi 0.01 (the draft's range is
 *   [0.1, 0.001]), del_var_th(0) 12.5 ms, overuse_time_th 10 ms, K_u 0.01,
 *   K_d 0.00018, beta 0.85, T in [0.5, 1] s (500 ms here)  — draft Table 1;
 *   threshold clamp [6, 600] ms, no adaptation when |m| − th > 15 ms,
 *   1.08^min(dt,1) increase, half a packet per (100 ms + RTT) additive
 *   increase, A < 1.5 R, EMA 0.95 of the congestion point ± 3σ  — draft §5.4
 *   and §5.5; loss 2 % / 10 % / (1 − 0.5 p) / 1.05 (per 100 ms the loss
 *   window spans, so alike for every rate)  — draft §6;
 *   trendline window 20, smoothing 0.9, gain 4, amplification
 *   min(num_deltas, 60), threshold time step capped at 100 ms — libwebrtc
 *   trendline_estimator.cc; arrival bursts (≤ 5 ms apart, negative
 *   propagation delta, < 100 ms long) — libwebrtc inter_arrival_delta.cc;
 *   f_max over the last 60 groups — libwebrtc overuse_estimator.cc;
 *   σ floor/ceiling of the congestion point (normalised variance clamped to
 *   [0.4, 2.5] kbit/s) — libwebrtc link_capacity_estimator.cc; no second
 *   decrease within an RTT (clamped to [10, 200] ms) unless the received rate
 *   fell below half the estimate — libwebrtc aimd_rate_control.cc
 *   TimeToReduceFurther; 20 packets per loss window — libwebrtc
 *   send_side_bandwidth_estimation.cc kLimitNumPackets; probe after a drop
 *   below 0.66 at 0.85 of the old rate, at most every 5 s, ALR probes at 2×
 *   — libwebrtc probe_controller.cc.
 *
 * What we change relative to RRTCC (seed 003: aggressive, 4.27 % loss,
 * synchronised flows, the first flow starved when others join) and to
 * gst-plugins-rs rtpgccbwe (I-frame bursts, no probing on stock GStreamer,
 * loss and goodput measured over one feedback packet):
 *
 * (a) I-frame bursts. Groups are formed on *send* times (5 ms), never on
 *     frame boundaries, and the sender's pacer spreads a frame over at most
 *     100 ms, so a key frame becomes a run of groups at the pacing rate, not
 *     one wall of packets; a burst that still leaves within 5 ms is ONE
 *     group however spread out the bottleneck makes its arrivals — one d(i)
 *     sample, not twenty. Two rules then keep a key frame from reading as
 *     over-use: (1) "still increasing" is required of the *raw* accumulated
 *     delay as well as of the filtered estimate: it must be at its highest
 *     since the estimate crossed the threshold. After a one-off step the
 *     smoothed trend keeps rising for several samples (the EMA's lag), which
 *     is what lets the draft's m(i) >= m(i-1) test pass on a transient; the
 *     raw delay already drains. (2) The sender knows when it bursts: a
 *     frame of more than 2× the delta frames' mean bytes (frame ends from
 *     the RTP marker, RtpccSentPacket.frame_end) is a key frame; without
 *     frame ends, a frame keeping the pacer busy for > 1.5 frame intervals
 *     (app_limited flags). Delay samples sent around it may not fire an
 *     over-use nor raise the threshold — up to 100 ms of delay growth, what one frame
 *     pushed through the pacer's 100 ms max-delay can add; beyond that (a
 *     capacity drop during a key frame) it is an over-use whatever we sent.
 *     Loss and goodput are measured over windows of many packets (>= 20
 *     packets and >= the 100 ms control interval; the received rate over
 *     500 ms of arrivals), never over one feedback.
 * (b) Join fairness. Over-use is detected from the delay *trend*, which
 *     every flow through the queue sees alike (a newcomer is not fooled by
 *     the incumbent's standing queue, as an absolute-delay rule would be);
 *     decreases go to beta × the flow's own *received* rate, so the flow
 *     that holds more of the link gives back more, at every shared cut;
 *     increases near (below or within ±3σ of) the last congestion point are
 *     additive, the same few kbit/s for every flow, so each shared cut
 *     shrinks the gap between two flows by beta (AIMD, Chiu–Jain). The draft
 *     would return to multiplicative increase below the ±3σ band — where
 *     every flow is after its own cut — and multiplicative increase keeps the
 *     flows' ratio, freezing the incumbent's advantage; we keep libwebrtc's
 *     reading (AimdRateControl: additive while a congestion point is known,
 *     multiplicative only above its band). The estimate may not run more
 *     than 1.5× above what this flow gets through (A < 1.5 R), so no flow
 *     claims headroom the others hold. Threshold adaptation (the draft's
 *     K_u/K_d) is kept for what it is for — tolerating a loss-based flow
 *     that keeps filling the queue — and not fed with our own transients:
 *     only a growing over-use that is not our burst raises the threshold,
 *     and not from our over-use signal until we are back in increase (at
 *     most 1 s if the over-use persists). With K_d's 5.5 s time constant,
 *     every self-inflicted excursion otherwise raised it by ~15 ms (measured
 *     6 -> 35 ms) and each later over-use was detected later, with more
 *     queue: RRTCC's aggressiveness. In the two-flow tests (rtpcc_gcc) the
 *     incumbent is never below half its share, and Jain's index per 10 s is
 *     >= 0.9 from the first 10 s window after a join on 1 Mbit/s and from
 *     10 s after it on 2 Mbit/s (~40 s before the ramp of (b'): additive
 *     steps do not scale with the rate).
 * (b') Utilisation and newcomers (RFC 8867 5.1/5.4, test-sim-rfc8867).
 *     The sawtooth idled the link: over-use fires at ~0.93-0.97 C (frames
 *     paced at 1.25x queued before the mean reached C), the cut lands at
 *     0.85 R and additive increase needs ~5 s to climb back: 85-89 % per
 *     phase. Fast recovery: an episode whose first cut is at the known
 *     point (R not below its band) climbs back at recovery-gain (2x/s) to
 *     recovery-frac (0.91) x the point once the signal is normal again (the
 *     cut's queue has drained), then additive; a cut below the band (the
 *     link shrank, or others joined) does not. Fast recovery is
 *     multiplicative and keeps the flows' ratio: the additive part alone
 *     evens shares out, at n·a/S per second (a the additive pace, S the
 *     link), ~2 %/s for three flows on 3.5 Mbit/s, a 50 s time constant.
 *     A newcomer therefore gets a faster path: the over-use that ends its
 *     start-up (below max_rate: a start-up pinned at max_rate had the
 *     link to itself) starts a ramp, multiplicative at ramp-gain (1.5x/s)
 *     instead of additive, kept while each over-use episode comes at an
 *     estimate >= ramp-rise (1.7) x the previous one. Incumbents cut
 *     below their point and recover only additively, so what their cuts
 *     free goes to the ramping flow; in a fluid model the ramp stops once
 *     0.85 + 0.15 S/x < 1.7, at x = 0.18 S (0.35 of a 2-flow share,
 *     0.53 of a 3-flow share), and AIMD finishes (1.25 until the pacing
 *     factor came down to 1.1: then newcomers ramped past their share, the
 *     first flow of 5.4 seed 6 8 s below half its share; 1.4 until
 *     recovery probes became opt-in: seed 12's first flow 6 s). It cannot starve
 *     incumbents (003's flaw): it grows only through shared over-use
 *     episodes, each of which it also cuts in.
 * (c) Probing. rtpgccbwe relies on rtprtxsend stuffing that stock
 *     GStreamer lacks. Here the controller asks for probe bytes through
 *     fec_bitrate: while a probe runs, target_bitrate = the probe rate P,
 *     media_bitrate = A (the encoder is not told to change) and
 *     fec_bitrate = P − A. THE SENDER MUST send fec_bitrate worth of FEC or
 *     padding packets (flagged is_fec) on top of the media for as long as
 *     it is published, paced with the media at pacing_rate (a FEC encoder
 *     does it by raising its repair rate for that time). A sender that
 *     ignores it only makes the probe fail (the received rate does not
 *     rise) — no harm done, the target falls back at once.
 *     Which probes run by default: application-limited ones (ALR) only.
 *     The recovery probe (recovery-probes=true) and the capacity probe
 *     (capacity-probing=true) are opt-in since the free-path climb
 *     (FREE_TIME): on a shared link the flow that probed first after
 *     capacity came back took the headroom, where the free-path climb
 *     lets every flow grow alike. RFC 8867 5.2, seeds 1-80 / 81-160:
 *     Jain < 0.9 in some phase of 14 / 26 runs with recovery probes on,
 *     9 / 10 without; the utilisation and queue counts the same or
 *     better, 5.4 flows already running > 5 s below half their share 1 /
 *     2 -> 2 / 3 (ramp-rise 1.4 with them, 1.7 without).
 *     State machine (state "probe" while sending):
 *       IDLE --(delay signal normal >= 500 ms, no loss, not in startup, and
 *               either: the estimate fell below 0.66 of its pre-drop value
 *               within the last 5 s -> P = min(0.85 × pre-drop, 1.5 × A),
 *               not again until one gets >= 0.9 P through or A exceeds
 *               1.1 x what the last one got through;
 *               or the media sent is < 0.65 × target (application-limited)
 *               for >= 1 s -> P = 2 × A;
 *               or (capacity probe) in increase, no packet saw more than
 *               5 ms of queue for 500 ms, and A is >= 0.9 × the last
 *               congestion point, or none is known, or the previous probe
 *               got >= 90 % of its rate through -> P = 2 × A for
 *               max (40 ms, 6 MTU-sized packets), success only if >= 0.9 P
 *               gets through; failures back off on their own timer, 5 s
 *               doubling to 20 s)--> SENDING
 *       SENDING --(probe-duration elapsed)--> WAITING
 *       SENDING/WAITING --(over-use, or > 10 % loss among probe packets)-->
 *               IDLE, failed, next probe after a back-off (5 s, doubling to
 *               60 s); the usual over-use decrease handles the queue.
 *       WAITING --(all probe packets reported, or RTT + 500 ms)--> IDLE:
 *               success if min (send, receive) rate of the probe packets
 *               (0.95 × receive if receive < 0.9 × send: it saturated the
 *               path) >= 1.1 × A: A = As = min (that rate, P), the congestion
 *               point is forgotten, the next probe may follow after 1 s;
 *               else failed (back-off).
 *
 * Start-up. The draft's 8 %/s needs 25 s from 150 kbit/s to 1 Mbit/s;
 * libwebrtc jumps with probe clusters at 3× and 6× the start rate, which
 * needs padding a media-driven sender may not have. Until the first decrease
 * (state "startup") the estimate grows by startup-gain per second (2×),
 * still capped at 1.5 × the received rate; the first over-use ends it.
 *
 * States "startup", "increase", "decrease", "hold", "probe"; reasons
 * "overuse", "underuse", "normal", "loss", "probe".
 *
 * set_param: estimator (trendline|kalman), burst-time (ms), beta,
 * startup-gain, pacing-factor, rate-window (ms), trendline-window, probing
 * (true|false), capacity-probing (true|false, default false: the capacity
 * probe above; the free-path climb below does its job), periodic-probing
 * (true|false, default false: probe at 1.5 x after 2 s of clean
 * increase), probe-duration (ms), burst-guard (true|false: the key-frame
 * rule of (a)), burst-detect (size|busy: how (a) tells key frames when
 * frame ends are marked; busy is the fallback rule), capacity-jump (0-1,
 * CAPACITY_JUMP), free-time (ms, 0 = off) and free-gain (FREE_TIME),
 * queue-test (size|all: the queue tracker's minimum per size class or
 * over all packets), recovery-frac (0 = off), recovery-gain, ramp-gain
 * (1 = off), ramp-rise (see (b')).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/gcc.h>
#include <rtpcc/cc/gcc/aimd.h>
#include <rtpcc/cc/gcc/burst.h>
#include <rtpcc/cc/gcc/detector.h>
#include <rtpcc/cc/gcc/freepath.h>
#include <rtpcc/cc/gcc/grouper.h>
#include <rtpcc/cc/gcc/kalman.h>
#include <rtpcc/cc/gcc/loss.h>
#include <rtpcc/cc/gcc/probe.h>
#include <rtpcc/cc/gcc/sendlog.h>
#include <rtpcc/cc/gcc/trendline.h>
#include <rtpcc/cc/params.h>
#include <rtpcc/ratewindow.h>

#include <math.h>
#include <string.h>

/* grouping */
#define STREAM_TIMEOUT        RTPCC_SEC (2)

/* estimators */

/* detector */
#define THRESHOLD_FREEZE      RTPCC_SEC (1)
#define THRESHOLD_FREEZE_NORMAL RTPCC_MSEC (500)

/* rate control */
#define CONTROL_INTERVAL      RTPCC_MSEC (100)
/* Fast recovery (rtpcc_gcc_aimd_update): after a cut at the known
 * congestion point, back to RECOVERY_FRAC of it at RECOVERY_GAIN per
 * second, then additive. The cut (0.85 R) drains the queue the over-use
 * built; staying low afterwards only idles the link: with additive
 * increase alone the sawtooth spends ~5 s climbing 0.85 -> 0.93 C.
 * 0.9 until pacing came down to 1.1 x; with the link's queue lower, 0.91
 * buys some utilisation back (RFC 8867 5.1 [85,100) below 90 % in 18 runs
 * of seeds 1-80 instead of 34, 32 of seeds 81-160 instead of 37; 0.92
 * put a 5.4 newcomer 16 s below half its share on seed 30). */
#define RECOVERY_FRAC         0.91
#define RECOVERY_GAIN         2.0
/* Post-start-up ramp: per-second growth while the flow's over-use points
 * keep rising by RAMP_RISE (a newcomer taking its share from incumbents,
 * whose cuts below their old point are not followed by fast recovery) */
#define RAMP_GAIN             1.5
#define RAMP_RISE             1.7
#define RATE_WINDOW           RTPCC_MSEC (500)
#define RATE_MIN_SPAN         RTPCC_MSEC (100)
#define SEND_WINDOW           RTPCC_SEC (1)  /* ALR send rate */
/* The pacer drains at 1.1 × the target (libwebrtc: 2.5; ours was 1.25).
 * A frame sent faster than the link drains builds its own queue at the
 * bottleneck; above ~0.8 C at 1.25 × every frame did, and frame-size noise
 * turned that into delay trends that fired over-use at 0.91-0.96 C (the
 * sawtooth averaged 0.9 C), more so for flows with more packets per frame.
 * At 1.1 × the link sees a smoother stream. RFC 8867 over seeds 1-80
 * (test-sim-rfc8867 seed-sweep; the code before 9909a7c plus the size
 * rule above, measured when the two landed): 5.1 phases
 * below 90 % 11/72/5/54 -> 2/27/4/38 runs, p95 > 50 ms 16 -> 5; 5.4 flows
 * > 5 s below half their share after a join 8 / 11 / 4 -> 3 / 6 / 0. The
 * cost is in the sender: the pacer's p95 wait rose from 28 to 35 ms,
 * while the link's run p95 fell by about as much (median 34.8 -> 28.0 ms
 * on 5.1 at 9909a7c). */
#define PACING_FACTOR         1.1


/* the free-path climb's growth per second */
#define FREE_GAIN             1.3
static inline gdouble
ms (RtpccTime t)
{
  return RTPCC_TIME_AS_MSEC (t);
}

/* ---- the controller ------------------------------------------------------ */

const gchar *
rtpcc_gcc_signal_name (RtpccGccSignal s)
{
  switch (s) {
    case RTPCC_GCC_OVERUSE:
      return "overuse";
    case RTPCC_GCC_UNDERUSE:
      return "underuse";
    default:
      return "normal";
  }
}

typedef struct
{
  RtpccController parent;

  /* configuration */
  RtpccGccEstimator estimator;
  RtpccTime burst_time;
  gdouble beta;
  gdouble startup_gain;
  gdouble pacing_factor;
  guint trendline_window;

  /* delay path */
  RtpccGccGrouper grouper;
  RtpccGccTrendline trendline;
  RtpccGccKalman kalman;
  RtpccGccDetector detector;
  gdouble accumulated;
  gdouble estimate, modified;
  guint64 n_overuse;
  gboolean overuse_latched;
  RtpccTime last_arrival;
  RtpccTime last_not_normal;    /* sender time the signal was last not normal */
  RtpccTime freeze_until;       /* threshold adaptation suspended until */

  RtpccGccAimd aimd;
  RtpccTime last_rc;
  guint64 n_decreases, n_loss_decreases;

  RtpccGccLoss loss;
  gboolean have_packet_feedback;
  gboolean rr_only;             /* running on RTCP RR loss alone (§7) */

  RtpccRateWindow recv;
  RtpccGccSendLog sent;         /* media only, sender clock */
  RtpccGccBurst burst;          /* our own key-frame bursts, (a) */
  gdouble received_rate;

  RtpccTime srtt;

  RtpccTime last_send_time;
  RtpccGccProber probe;
  RtpccGccFreePath free_path;   /* the standing-queue tracker, (c) */

  const gchar *reason;
} Gcc;

static void
gcc_reset_delay_path (Gcc * g)
{
  rtpcc_gcc_grouper_init (&g->grouper, g->burst_time);
  rtpcc_gcc_trendline_init (&g->trendline, g->trendline_window);
  rtpcc_gcc_kalman_init (&g->kalman);
  rtpcc_gcc_detector_init (&g->detector);
  g->detector.strict_adapt = TRUE;
  g->accumulated = 0;
  g->estimate = g->modified = 0;
}

static RtpccTime
gcc_rtt (const Gcc * g)
{
  return g->srtt != RTPCC_TIME_NONE && g->srtt > 0 ? g->srtt : RTPCC_GCC_DEFAULT_RTT;
}

static gdouble
gcc_rate (const Gcc * g)
{
  return MIN (g->aimd.rate, g->loss.rate);
}

static void
gcc_publish (Gcc * g)
{
  RtpccController *cc = &g->parent;
  gdouble rate = gcc_rate (g);
  guint64 target, fec = 0;
  const gchar *state;

  if (g->probe.state == RTPCC_GCC_PROBE_SENDING) {
    target = (guint64) MAX (g->probe.rate, rate);
    fec = target - (guint64) rate;
    state = "probe";
  } else if (g->aimd.startup) {
    target = (guint64) rate;
    state = "startup";
  } else {
    target = (guint64) rate;
    if (g->loss.limiting && g->reason && strcmp (g->reason, "loss") == 0)
      state = "decrease";
    else
      switch (g->aimd.state) {
        case RTPCC_GCC_RC_DECREASE:
          state = "decrease";
          break;
        case RTPCC_GCC_RC_HOLD:
          state = "hold";
          break;
        default:
          state = "increase";
          break;
      }
  }
  rtpcc_controller_update_target (cc, target, fec, g->pacing_factor, state,
      g->reason);
}

static void
gcc_init (RtpccController * cc, RtpccTime now)
{
  Gcc *g = (Gcc *) cc;
  gdouble start = cc->target.target_bitrate;

  g->estimator = RTPCC_GCC_ESTIMATOR_TRENDLINE;
  g->burst_time = RTPCC_GCC_BURST_TIME;
  g->beta = RTPCC_GCC_BETA;
  g->startup_gain = RTPCC_GCC_STARTUP_GAIN;
  g->pacing_factor = PACING_FACTOR;
  g->trendline_window = RTPCC_GCC_TRENDLINE_WINDOW;
  gcc_reset_delay_path (g);
  g->last_arrival = RTPCC_TIME_NONE;
  g->last_not_normal = now;
  g->freeze_until = RTPCC_TIME_NONE;
  rtpcc_gcc_aimd_init (&g->aimd, start, cc->config.min_bitrate,
      cc->config.max_bitrate, g->beta);
  g->aimd.startup_gain = g->startup_gain;
  g->aimd.recovery_frac = RECOVERY_FRAC;
  g->aimd.recovery_gain = RECOVERY_GAIN;
  g->aimd.ramp_gain = RAMP_GAIN;
  g->aimd.ramp_rise = RAMP_RISE;
  g->aimd.free_gain = FREE_GAIN;
  g->last_rc = RTPCC_TIME_NONE;
  rtpcc_gcc_loss_init (&g->loss, g->aimd.rate);
  rtpcc_rate_window_init (&g->recv, RATE_WINDOW);
  rtpcc_gcc_send_log_init (&g->sent);
  rtpcc_gcc_burst_init (&g->burst);
  g->received_rate = -1;
  g->srtt = RTPCC_TIME_NONE;
  rtpcc_gcc_prober_init (&g->probe, now);
  rtpcc_gcc_free_path_init (&g->free_path);
  g->reason = "initial";
  gcc_publish (g);
}

static void
gcc_finalize (RtpccController * cc)
{
  Gcc *g = (Gcc *) cc;

  rtpcc_rate_window_clear (&g->recv);
  rtpcc_gcc_send_log_clear (&g->sent);
  rtpcc_gcc_burst_clear (&g->burst);
}

static void
gcc_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  Gcc *g = (Gcc *) cc;

  g->last_send_time = pkt->send_time;
  if (!pkt->is_fec) {
    rtpcc_gcc_send_log_add (&g->sent, pkt->send_time, pkt->size);
    rtpcc_gcc_burst_sent (&g->burst, pkt,
        g->probe.state == RTPCC_GCC_PROBE_IDLE);
  }
  rtpcc_gcc_prober_sent (&g->probe, pkt);
}

/* One inter-group sample through the filter and the detector. */
static void
gcc_process_delta (Gcc * g, RtpccTime now, const RtpccGccDelta * d)
{
  guint n;
  RtpccGccSignal s;
  gboolean burst;

  g->accumulated += d->d;
  /* Threshold adaptation is suspended from our own over-use signal until
   * the rate controller is back in increase with the signal normal for
   * 500 ms: the overshoot before our cut takes effect and the drain after
   * it are self-inflicted, and with K_d = 0.00018 (time constant 5.5 s)
   * learning from them ratchets the threshold up by ~15 ms per sawtooth
   * tooth (measured 6 -> 35 ms), so every tooth detects later and queues
   * more. An over-use that persists beyond THRESHOLD_FREEZE despite our cut
   * is foreign (a loss-based flow filling the queue) and adapts the
   * threshold as the draft intends; a drain is ours however long it is. */
  if (g->freeze_until != RTPCC_TIME_NONE
      && ((now >= g->freeze_until && g->modified > g->detector.threshold)
          || (g->aimd.state == RTPCC_GCC_RC_INCREASE
              && now - g->last_not_normal >= THRESHOLD_FREEZE_NORMAL)))
    g->freeze_until = RTPCC_TIME_NONE;
  g->detector.adapt = g->freeze_until == RTPCC_TIME_NONE;
  if (g->estimator == RTPCC_GCC_ESTIMATOR_KALMAN) {
    g->estimate = rtpcc_gcc_kalman_update (&g->kalman, d->d, d->send_delta);
    g->modified = rtpcc_gcc_kalman_modified (&g->kalman);
    n = g->kalman.num_deltas;
  } else {
    g->modified = rtpcc_gcc_trendline_update (&g->trendline,
        d->arrival_delta, d->send_delta, d->arrival);
    g->estimate = g->trendline.trend;
    n = g->trendline.num_deltas;
  }
  /* (a) was this group sent in our own burst (a key frame and the frames
   * the pacer caught up with after it)? It may not fire an over-use. */
  burst = rtpcc_gcc_burst_check (&g->burst, d->send, g->accumulated);
  s = rtpcc_gcc_detector_update (&g->detector, g->modified, g->estimate,
      d->send_delta, g->accumulated, n, burst, d->arrival);
  if (g->detector.fired) {
    if (g->freeze_until == RTPCC_TIME_NONE)
      g->freeze_until = now + THRESHOLD_FREEZE;
    g->n_overuse++;
    /* held until the rate controller runs, so a short over-use inside one
     * feedback batch is not lost */
    g->overuse_latched = TRUE;
  }
  if (s != RTPCC_GCC_NORMAL)
    g->last_not_normal = now;
}

/* Judges a running probe; a success lifts A (and As with it) to what got
 * through, and the old congestion point no longer describes the path. */
static void
gcc_probe_evaluate (Gcc * g, RtpccTime now, gboolean all_reported)
{
  gdouble r = 0;

  switch (rtpcc_gcc_prober_evaluate (&g->probe, now, all_reported,
          g->aimd.rate, &r)) {
    case RTPCC_GCC_PROBE_RUNNING:
      return;
    case RTPCC_GCC_PROBE_SUCCEEDED:
      g->aimd.rate = CLAMP (MAX (g->aimd.rate, r), g->aimd.min_rate,
          g->aimd.max_rate);
      g->aimd.have_cp = FALSE;
      g->loss.rate = g->aimd.rate;
      g->loss.limiting = FALSE;
      g->reason = "probe";
      break;
    case RTPCC_GCC_PROBE_FAILED:
      break;
  }
  g->parent.next_tick = RTPCC_TIME_NONE;
}

static void
gcc_probe_maybe_start (Gcc * g, RtpccTime now)
{
  RtpccController *cc = &g->parent;
  RtpccGccProbeInput in;

  in.rate = gcc_rate (g);
  in.target = cc->target.target_bitrate;
  in.max_rate = cc->config.max_bitrate;
  in.send_rate = rtpcc_gcc_send_log_rate (&g->sent, now, SEND_WINDOW);
  in.received_rate = g->received_rate;
  in.signal = g->detector.signal;
  in.last_not_normal = g->last_not_normal;
  in.rc_state = g->aimd.state;
  in.startup = g->aimd.startup;
  in.loss_limiting = g->loss.limiting;
  in.loss_fraction = g->loss.last_fraction;
  in.have_cp = g->aimd.have_cp;
  in.cp_mean = g->aimd.cp_mean;
  in.quiet_time = rtpcc_gcc_free_path_quiet_time (&g->free_path, now);
  if (rtpcc_gcc_prober_maybe_start (&g->probe, now, &in)) {
    g->reason = "probe";
    cc->next_tick = g->probe.end;
  }
}

static void
gcc_update_rtt (Gcc * g, const RtpccFeedback * fb)
{
  if (fb->srtt != RTPCC_TIME_NONE && fb->srtt > 0)
    g->srtt = fb->srtt;
  else if (fb->rtt_sample != RTPCC_TIME_NONE && fb->rtt_sample > 0)
    g->srtt = g->srtt == RTPCC_TIME_NONE ? fb->rtt_sample :
        (7 * g->srtt + fb->rtt_sample) / 8;
}

static void
gcc_on_feedback (RtpccController * cc, RtpccTime now, const RtpccFeedback * fb)
{
  Gcc *g = (Gcc *) cc;
  gboolean probe_all_reported = FALSE, rc_due, loss_cut = FALSE;
  RtpccGccLossAction la;
  RtpccGccSignal signal;
  gdouble before = gcc_rate (g), R;

  gcc_update_rtt (g, fb);
  g->have_packet_feedback = TRUE;
  if (g->rr_only) {
    /* per-packet feedback after all: the delay-based estimate takes over
     * from where the loss-based one got to */
    g->rr_only = FALSE;
    g->aimd.rate = g->loss.rate;
    g->loss.limiting = FALSE;
    /* an RR that merely arrived before the first per-packet feedback must
     * not cost the start-up phase (seen with stock rtpbin receivers) */
    g->aimd.startup = g->n_decreases == 0 && g->n_loss_decreases == 0;
  }

  for (guint i = 0; i < fb->n_reports; i++) {
    const RtpccPacketReport *r = &fb->reports[i];
    RtpccGccDelta d;

    if (rtpcc_gcc_prober_account (&g->probe, r))
      probe_all_reported = TRUE;
    /* FEC and probe packets are expendable: their loss says little about
     * what the media suffers, and a failed probe must not cut the rate */
    if (!r->is_fec)
      rtpcc_gcc_loss_add (&g->loss, r->send_time, r->received);
    if (!r->received || r->arrival == RTPCC_TIME_NONE)
      continue;
    /* but every byte that crossed the link counts for the receive rate and
     * every packet for the delay: they share the queue */
    rtpcc_rate_window_push (&g->recv, r->arrival, r->size);
    if (g->last_arrival != RTPCC_TIME_NONE
        && r->arrival - g->last_arrival > STREAM_TIMEOUT)
      gcc_reset_delay_path (g);
    if (g->last_arrival == RTPCC_TIME_NONE || r->arrival > g->last_arrival)
      g->last_arrival = r->arrival;
    rtpcc_gcc_free_path_track (&g->free_path, now, r,
        fb->arrival_resolution, cc->target.pacing_rate);
    if (rtpcc_gcc_grouper_add (&g->grouper, r->send_time, r->arrival,
            r->size, &d))
      gcc_process_delta (g, now, &d);
  }

  R = rtpcc_rate_window_rate (&g->recv, RTPCC_TIME_NONE, RATE_MIN_SPAN);
  g->received_rate = R;
  signal = g->overuse_latched ? RTPCC_GCC_OVERUSE : g->detector.signal;

  if (signal == RTPCC_GCC_OVERUSE)
    rtpcc_gcc_prober_overuse (&g->probe);

  /* the rate controller runs once per control interval, and at once when
   * an over-use may be acted on */
  rc_due = g->last_rc == RTPCC_TIME_NONE || now - g->last_rc >= CONTROL_INTERVAL
      || (signal == RTPCC_GCC_OVERUSE && rtpcc_gcc_aimd_may_decrease (&g->aimd,
              now, CLAMP (gcc_rtt (g), RTPCC_MSEC (10), RTPCC_MSEC (200)), R));
  if (rc_due) {
    /* A free path (no packet queued for free_time): capacity grew, or
     * others left. Every flow through the FIFO sees it at once, so all of
     * them grow multiplicatively from where they are and keep their
     * ratio; the old congestion point says nothing any more. */
    g->aimd.free = rtpcc_gcc_free_path_update (&g->free_path, now);
    if (g->aimd.free && g->aimd.state == RTPCC_GCC_RC_INCREASE
        && !g->aimd.startup)
      g->aimd.have_cp = FALSE;
    rtpcc_gcc_aimd_update (&g->aimd, now, signal, R, gcc_rtt (g));
    if (g->aimd.last_decreased)
      g->n_decreases++;
    g->last_rc = now;
    g->overuse_latched = FALSE;
  }

  la = rtpcc_gcc_loss_evaluate (&g->loss, now, g->aimd.rate);
  if (la == RTPCC_GCC_LOSS_DECREASE) {
    g->n_loss_decreases++;
    g->aimd.startup = FALSE;
    loss_cut = TRUE;
  }

  if (loss_cut)
    g->reason = "loss";
  else if (g->probe.state == RTPCC_GCC_PROBE_SENDING)
    g->reason = "probe";
  else
    g->reason = rtpcc_gcc_signal_name (signal);

  rtpcc_gcc_prober_note_rate (&g->probe, now, before, gcc_rate (g));
  gcc_probe_evaluate (g, now, probe_all_reported);
  gcc_probe_maybe_start (g, now);
  gcc_publish (g);
}

static void
gcc_on_receiver_report (RtpccController * cc, RtpccTime now,
    const RtpccReceiverReport * rr)
{
  Gcc *g = (Gcc *) cc;
  gdouble before = gcc_rate (g);

  if (rr->rtt != RTPCC_TIME_NONE && rr->rtt > 0 && g->srtt == RTPCC_TIME_NONE)
    g->srtt = rr->rtt;
  /* draft §7: without per-packet feedback only the loss-based controller
   * runs, on the RR's fraction lost (one report interval >= the control
   * interval); the delay-based one is off, so As is bounded by the
   * configured maximum instead of by A */
  if (g->have_packet_feedback)
    return;
  if (!g->rr_only) {
    g->rr_only = TRUE;
    g->aimd.startup = FALSE;
    g->loss.rate = before;
    g->aimd.rate = g->aimd.max_rate;
  }
  g->loss.limiting = TRUE;
  if (rtpcc_gcc_loss_apply (&g->loss, now, rr->fraction_lost / 256.0,
          g->aimd.max_rate) == RTPCC_GCC_LOSS_DECREASE) {
    g->n_loss_decreases++;
    g->reason = "loss";
  } else {
    g->reason = "normal";
  }
  g->loss.limiting = TRUE;
  rtpcc_gcc_prober_note_rate (&g->probe, now, before, gcc_rate (g));
  gcc_publish (g);
}

static void
gcc_on_tick (RtpccController * cc, RtpccTime now)
{
  Gcc *g = (Gcc *) cc;

  if (g->probe.state == RTPCC_GCC_PROBE_SENDING && now >= g->probe.end) {
    /* stop asking for probe bytes; wait for their feedback */
    if (rtpcc_gcc_prober_stop (&g->probe, now, gcc_rtt (g)) ==
        RTPCC_GCC_PROBE_RUNNING)
      cc->next_tick = g->probe.deadline;
    else
      cc->next_tick = RTPCC_TIME_NONE;
    g->reason = rtpcc_gcc_signal_name (g->detector.signal);
    gcc_publish (g);
    return;
  }
  if (g->probe.state == RTPCC_GCC_PROBE_WAITING && now >= g->probe.deadline) {
    gcc_probe_evaluate (g, now, TRUE);
    gcc_publish (g);
  }
}

static const gchar *const estimator_names[] = { "trendline", "kalman", NULL };
static const gchar *const queue_test_names[] = { "all", "size", NULL };
static const gchar *const burst_detect_names[] = { "busy", "size", NULL };

/* docs/gcc.md describes each */
static const RtpccParamSpec param_specs[] = {
  RTPCC_PARAM_CHOICE ("estimator", Gcc, estimator, estimator_names),
  RTPCC_PARAM_CHOICE ("queue-test", Gcc, free_path.by_size,
      queue_test_names),
  RTPCC_PARAM_CHOICE ("burst-detect", Gcc, burst.by_size, burst_detect_names),
  RTPCC_PARAM_BOOL ("probing", Gcc, probe.enabled),
  RTPCC_PARAM_BOOL ("burst-guard", Gcc, burst.guard),
  RTPCC_PARAM_BOOL ("periodic-probing", Gcc, probe.periodic),
  RTPCC_PARAM_BOOL ("capacity-probing", Gcc, probe.capacity),
  RTPCC_PARAM_BOOL ("recovery-probes", Gcc, probe.recovery),
  RTPCC_PARAM_TIME ("burst-time", Gcc, burst_time, 0, 100, RTPCC_PARAM_USEC),
  RTPCC_PARAM_DOUBLE ("free-gain", Gcc, aimd.free_gain, 1.0, 4.0, 0),
  RTPCC_PARAM_TIME ("free-time", Gcc, free_path.free_time, 0, 60000, 0),
  RTPCC_PARAM_DOUBLE ("capacity-jump", Gcc, probe.capacity_jump, 0.0, 1.0,
      RTPCC_PARAM_MIN_OPEN),
  RTPCC_PARAM_DOUBLE ("beta", Gcc, beta, 0.5, 1.0, RTPCC_PARAM_MAX_OPEN),
  RTPCC_PARAM_DOUBLE ("startup-gain", Gcc, startup_gain, 1.0, 8.0, 0),
  RTPCC_PARAM_DOUBLE ("recovery-frac", Gcc, aimd.recovery_frac, 0.0, 1.0,
      RTPCC_PARAM_MAX_OPEN),
  RTPCC_PARAM_DOUBLE ("recovery-gain", Gcc, aimd.recovery_gain, 1.0, 8.0, 0),
  RTPCC_PARAM_DOUBLE ("ramp-gain", Gcc, aimd.ramp_gain, 1.0, 8.0, 0),
  RTPCC_PARAM_DOUBLE ("ramp-rise", Gcc, aimd.ramp_rise, 1.0, 4.0, 0),
  RTPCC_PARAM_DOUBLE ("pacing-factor", Gcc, pacing_factor, 1.0, 5.0, 0),
  RTPCC_PARAM_TIME ("rate-window", Gcc, recv.window, 100, 5000, 0),
  RTPCC_PARAM_UINT ("trendline-window", Gcc, trendline_window, 2,
      RTPCC_GCC_TRENDLINE_MAX_WINDOW),
  RTPCC_PARAM_TIME ("probe-duration", Gcc, probe.duration, 10, 2000, 0),
};

static gboolean
gcc_set_param (RtpccController * cc, const gchar * key, const gchar * value)
{
  Gcc *g = (Gcc *) cc;
  const RtpccParamSpec *spec = rtpcc_params_set (param_specs,
      G_N_ELEMENTS (param_specs), g, key, value);

  if (!spec)
    return FALSE;
  switch (spec->offset) {
    case G_STRUCT_OFFSET (Gcc, estimator):
      /* the two filters' outputs are not comparable: start the delay path
       * again rather than mixing them */
      gcc_reset_delay_path (g);
      break;
    case G_STRUCT_OFFSET (Gcc, burst_time):
      if (g->burst_time == 0)
        g->burst_time = 1;      /* 0 would mean "default" in the grouper */
      g->grouper.burst_time = g->burst_time;
      break;
    case G_STRUCT_OFFSET (Gcc, beta):
      g->aimd.beta = g->beta;
      break;
    case G_STRUCT_OFFSET (Gcc, startup_gain):
      g->aimd.startup_gain = g->startup_gain;
      break;
    case G_STRUCT_OFFSET (Gcc, aimd.recovery_frac):
      /* 0 turns fast recovery off */
      if (g->aimd.recovery_frac == 0.0)
        g->aimd.recover_to = 0;
      break;
    case G_STRUCT_OFFSET (Gcc, aimd.ramp_gain):
      /* 1 turns the post-start-up ramp off */
      if (g->aimd.ramp_gain <= 1.0)
        g->aimd.ramp = FALSE;
      break;
    case G_STRUCT_OFFSET (Gcc, pacing_factor):
      gcc_publish (g);
      break;
    case G_STRUCT_OFFSET (Gcc, trendline_window):
      rtpcc_gcc_trendline_init (&g->trendline, g->trendline_window);
      break;
    default:
      break;
  }
  return TRUE;
}

gboolean
rtpcc_gcc_get_info (RtpccController * cc, RtpccGccInfo * info)
{
  Gcc *g = (Gcc *) cc;

  if (!cc || cc->ops != &rtpcc_cc_gcc_ops)
    return FALSE;
  memset (info, 0, sizeof (*info));
  info->estimator = g->estimator;
  info->delay_rate = g->aimd.rate;
  info->loss_rate = g->loss.rate;
  info->received_rate = g->received_rate;
  info->send_rate = rtpcc_gcc_send_log_rate (&g->sent, g->last_send_time,
      SEND_WINDOW);
  info->n_self_bursts = g->burst.n_self_bursts;
  info->n_key_frames = g->burst.n_key_frames;
  info->free_path = g->free_path.free_since != RTPCC_TIME_NONE;
  info->signal = g->detector.signal;
  info->rc_state = g->aimd.state;
  info->startup = g->aimd.startup;
  info->estimate = g->estimate;
  info->modified = g->modified;
  info->threshold = g->detector.threshold;
  info->accumulated = g->accumulated;
  info->loss_fraction = g->loss.last_fraction;
  info->n_groups = g->grouper.n_groups;
  info->n_overuse = g->n_overuse;
  info->n_decreases = g->n_decreases;
  info->n_loss_decreases = g->n_loss_decreases;
  info->probe_state = g->probe.state;
  info->probe_rate = g->probe.rate;
  info->n_probes = g->probe.n_probes;
  info->n_probe_success = g->probe.n_success;
  info->n_probe_fail = g->probe.n_fail;
  info->last_probe_result = g->probe.last_result;
  info->srtt = g->srtt;
  return TRUE;
}

const RtpccControllerOps rtpcc_cc_gcc_ops = {
  .name = "gcc",
  .description = "Google Congestion Control (draft-ietf-rmcat-gcc-02): "
      "delay-gradient over-use detection with AIMD, loss-based bound, "
      "FEC-based probing",
  .instance_size = sizeof (Gcc),
  .init = gcc_init,
  .finalize = gcc_finalize,
  .on_packet_sent = gcc_on_packet_sent,
  .on_feedback = gcc_on_feedback,
  .on_receiver_report = gcc_on_receiver_report,
  .on_tick = gcc_on_tick,
  .set_param = gcc_set_param,
};

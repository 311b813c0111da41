/* Unit tests for the "fbra" controller (gst/rtpcc/cc/fbra.c) and the RTCP
 * XR RLE blocks it needs (gst/rtpcc/feedback/xr.c).
 *
 *  - the paper's state transition table (Nagy et al., MMSys 2014), one
 *    scripted report sequence per row and previous-state variant, evaluated
 *    once per report, with each row's action (undershoot value, rate-control
 *    deactivation, FEC on/off, N);
 *  - the undershoot and its clamp, deactivation and bounce-back, the 2 s
 *    feedback timeout, early reports and randomised regular reports, the
 *    one-way-delay history, the measured FEC rate on PROBE→UP, FEC packets
 *    excluded from the media's loss, runtime parameters;
 *  - XR Loss/Discard RLE write/parse round trips, exact chunk bytes, and
 *    malformed blocks; receiver discards → XR → sender → controller.
 *
 * The table tests drive the controller with report digests
 * (rtpcc_fbra_inject_report), the others through the ops (per-packet
 * feedback, RRs, ticks) as RtpccSender does.
 *
 * OWD watermarks in the table tests: a history of 10 × 140 ms, 20 × 100 ms
 * and 20 × 60 ms gives P40 = 60 ms and P80 = 100 ms (nearest rank), so a
 * report with OWD X has Corr_low = X / 60 and Corr_high = X / 100.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/fbra.h>
#include <rtpcc/feedback/xr.h>
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/rng.h>
#include <math.h>
#include <string.h>

#define MS(x) RTPCC_MSEC (x)
#define MIN_BPS 32000
#define MAX_BPS 20000000

static RtpccTime now_t;
/* FEC (the probe) in every report of rep_full, as a share of its send
 * rate */
static gdouble rep_fec_share;

static RtpccController *
make_fbra (guint64 start)
{
  RtpccControllerConfig cfg;
  GError *err = NULL;
  RtpccController *cc;

  rtpcc_controller_config_init (&cfg);
  cfg.min_bitrate = MIN_BPS;
  cfg.max_bitrate = MAX_BPS;
  cfg.start_bitrate = start;
  cc = rtpcc_controller_new ("fbra", &cfg, 0, &err);
  fail_unless (cc != NULL, "%s", err ? err->message : "?");
  now_t = 0;
  return cc;
}

static RtpccFbraInfo
info_of (RtpccController * cc)
{
  RtpccFbraInfo info;
  fail_unless (rtpcc_fbra_get_info (cc, &info));
  return info;
}

#define assert_close(a, b, eps) \
  fail_unless (fabs ((gdouble) (a) - (gdouble) (b)) <= (eps), \
      "%s = %.6f, expected %.6f", #a, (gdouble) (a), (gdouble) (b))

/* One report every 500 ms. @send/@good 0: the media rate in force (good =
 * 0.9 × send when the report has losses or discards). */
static void
rep_full (RtpccController * cc, guint l, guint rl, guint d, guint rd,
    gdouble owd_ms, gdouble send, gdouble good)
{
  RtpccFbraReport r;
  gdouble media = (gdouble) cc->target.media_bitrate;

  memset (&r, 0, sizeof (r));
  r.losses = l;
  r.recent_losses = rl;
  r.discards = d;
  r.recent_discards = rd;
  r.received = 50;
  r.send_rate = send > 0 ? send : media;
  r.goodput = good > 0 ? good : (l + d > 0 ? 0.9 * r.send_rate : r.send_rate);
  r.fec_rate = rep_fec_share * r.send_rate;
  r.owd = owd_ms >= 0 ? (RtpccTime) (owd_ms * RTPCC_NSEC_PER_MSEC) :
      RTPCC_TIME_NONE;
  now_t += MS (500);
  fail_unless (rtpcc_fbra_inject_report (cc, now_t, &r));
}

static void
rep (RtpccController * cc, guint l, guint rl, guint d, guint rd,
    gdouble owd_ms)
{
  rep_full (cc, l, rl, d, rd, owd_ms, 0, 0);
}

/* the watermark history described at the top */
static void
prime (RtpccController * cc)
{
  RtpccFbraInfo i;

  fail_unless (rtpcc_controller_set_param (cc, "owd-samples", "256"));
  fail_unless (rtpcc_controller_set_param (cc, "owd-age", "600"));
  for (guint k = 0; k < 10; k++)
    rep (cc, 0, 0, 0, 0, 140);
  for (guint k = 0; k < 20; k++)
    rep (cc, 0, 0, 0, 0, 100);
  for (guint k = 0; k < 20; k++)
    rep (cc, 0, 0, 0, 0, 60);
  rep (cc, 0, 0, 0, 0, 60);
  i = info_of (cc);
  fail_unless_equals_int (i.owd_history, 51);
  assert_close (i.p_low_owd_ms, 60, 1e-6);
  assert_close (i.p_high_owd_ms, 100, 1e-6);
  fail_unless (i.state != RTPCC_FBRA_DOWN, "priming went DOWN (%s)",
      i.last_action);
}

/* neutral reports (OWD 60 ms: Corr_low 1, Corr_high 0.6) until the state
 * and the previous state are as asked */
static void
reach (RtpccController * cc, RtpccFbraState state, RtpccFbraState prev)
{
  for (guint k = 0; k < 12; k++) {
    RtpccFbraInfo i = info_of (cc);
    if (i.state == state && i.previous == prev)
      return;
    rep (cc, 0, 0, 0, 0, 60);
  }
  fail ("never reached %s after %s", rtpcc_fbra_state_name (state),
      rtpcc_fbra_state_name (prev));
}

typedef enum
{
  S_STAY_PREV_UP,
  S_STAY_PREV_STAY,
  S_PROBE,
  S_UP,
  S_DOWN_PREV_STAY,             /* via the feedback timeout: RC enabled */
  S_DOWN_PREV_DOWN,             /* ... then a discards-only undershoot */
} Setup;

static void
setup_state (RtpccController * cc, Setup s)
{
  switch (s) {
    case S_STAY_PREV_UP:
      reach (cc, RTPCC_FBRA_STAY, RTPCC_FBRA_UP);
      break;
    case S_STAY_PREV_STAY:
      reach (cc, RTPCC_FBRA_STAY, RTPCC_FBRA_STAY);
      break;
    case S_PROBE:
      reach (cc, RTPCC_FBRA_PROBE, RTPCC_FBRA_STAY);
      break;
    case S_UP:
      reach (cc, RTPCC_FBRA_UP, RTPCC_FBRA_PROBE);
      break;
    case S_DOWN_PREV_STAY:
    case S_DOWN_PREV_DOWN:{
      RtpccFbraInfo i;
      reach (cc, RTPCC_FBRA_STAY, RTPCC_FBRA_STAY);
      now_t += RTPCC_SEC (2);
      rtpcc_controller_tick (cc, now_t);
      i = info_of (cc);
      fail_unless_equals_int (i.state, RTPCC_FBRA_DOWN);
      fail_unless_equals_int (i.previous, RTPCC_FBRA_STAY);
      fail_unless (!i.rc_disabled);
      if (s == S_DOWN_PREV_DOWN) {
        rep (cc, 0, 0, 1, 1, 60);
        i = info_of (cc);
        fail_unless_equals_int (i.state, RTPCC_FBRA_DOWN);
        fail_unless_equals_int (i.previous, RTPCC_FBRA_DOWN);
        fail_unless (!i.rc_disabled);
      }
      break;
    }
  }
}

typedef enum
{
  U_NONE,                       /* the rate is unchanged */
  U_DEACTIVATE,                 /* undershoot, rate control off one report */
  U_KEEP_RC,                    /* undershoot, rate control stays on */
  U_UP,                         /* += FEC rate */
  U_ANY,
} Undershoot;

typedef struct
{
  const gchar *name;
  Setup setup;
  guint l, rl, d, rd;
  gdouble owd_ms;
  RtpccFbraState expect;
  Undershoot rate;
  gint fec;                     /* 1 on, 0 off, -1 don't care */
  const gchar *action;
} Row;

static const Row rows[] = {
  /* DOWN (Sub-algorithm 1a) */
  {"down: congested, prev DOWN -> STAY", S_DOWN_PREV_DOWN, 1, 1, 0, 0, 60,
      RTPCC_FBRA_STAY, U_NONE, 0, "down-persist-stay"},
  {"down: discards only -> undershoot, RC on", S_DOWN_PREV_STAY, 0, 0, 2, 1,
      60, RTPCC_FBRA_DOWN, U_KEEP_RC, 0, "down-discards-undershoot"},
  {"down: losses -> undershoot + deactivate", S_DOWN_PREV_STAY, 2, 1, 0, 0,
      60, RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "down-losses-undershoot"},
  {"down: losses and discards -> deactivate", S_DOWN_PREV_STAY, 1, 1, 1, 1,
      60, RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "down-losses-undershoot"},
  {"down: Corr_high 2.5 > 2.0 -> undershoot", S_DOWN_PREV_STAY, 0, 0, 0, 0,
      250, RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "down-owd-undershoot"},
  {"down: Corr_high 1.9 -> STAY", S_DOWN_PREV_STAY, 0, 0, 0, 0, 190,
      RTPCC_FBRA_STAY, U_NONE, 0, "down-clear"},
  {"down: old losses only -> STAY", S_DOWN_PREV_STAY, 1, 0, 0, 0, 60,
      RTPCC_FBRA_STAY, U_NONE, 0, "down-clear"},
  /* STAY (1b) */
  {"stay: recent losses -> DOWN", S_STAY_PREV_UP, 2, 1, 0, 0, 60,
      RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "stay-recent-losses"},
  {"stay: old losses -> STAY", S_STAY_PREV_UP, 1, 0, 0, 0, 60,
      RTPCC_FBRA_STAY, U_NONE, 0, "stay-old-losses"},
  {"stay: recent discards -> DOWN", S_STAY_PREV_UP, 0, 0, 1, 1, 60,
      RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "stay-recent-discards"},
  {"stay: Corr_high 1.2, prev STAY -> DOWN", S_STAY_PREV_STAY, 0, 0, 0, 0,
      120, RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "stay-owd-undershoot"},
  {"stay: Corr_high 1.2, prev UP -> STAY", S_STAY_PREV_UP, 0, 0, 0, 0, 120,
      RTPCC_FBRA_STAY, U_NONE, 0, "stay-owd-hold"},
  {"stay: near the 2 s max -> wait", S_STAY_PREV_UP, 0, 0, 0, 0, 60,
      RTPCC_FBRA_STAY, U_NONE, 0, "stay-near-max"},
  {"stay: otherwise -> PROBE", S_STAY_PREV_STAY, 0, 0, 0, 0, 60,
      RTPCC_FBRA_PROBE, U_NONE, 1, "stay-probe"},
  /* PROBE (1c) */
  {"probe: recent losses -> DOWN", S_PROBE, 1, 1, 0, 0, 60,
      RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "probe-recent-congestion"},
  {"probe: recent discards -> DOWN", S_PROBE, 0, 0, 1, 1, 60,
      RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "probe-recent-congestion"},
  {"probe: old losses -> STAY", S_PROBE, 1, 0, 0, 0, 60,
      RTPCC_FBRA_STAY, U_NONE, 0, "probe-old-congestion"},
  {"probe: old discards -> STAY", S_PROBE, 0, 0, 1, 0, 60,
      RTPCC_FBRA_STAY, U_NONE, 0, "probe-old-congestion"},
  {"probe: Corr_high 1.7 > 1.6 -> DOWN", S_PROBE, 0, 0, 0, 0, 170,
      RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "probe-owd-down"},
  {"probe: Corr_high 1.5 > 1.1 -> STAY", S_PROBE, 0, 0, 0, 0, 150,
      RTPCC_FBRA_STAY, U_NONE, 0, "probe-owd-stay"},
  {"probe: Corr_low 1.5 > 1.2 -> N++", S_PROBE, 0, 0, 0, 0, 90,
      RTPCC_FBRA_PROBE, U_NONE, 1, "probe-less-fec"},
  {"probe: otherwise -> UP", S_PROBE, 0, 0, 0, 0, 60,
      RTPCC_FBRA_UP, U_UP, 0, "probe-up-nominal"},
  /* UP (1d) */
  {"up: recent losses -> DOWN", S_UP, 1, 1, 0, 0, 60,
      RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "up-down"},
  {"up: recent discards -> DOWN", S_UP, 0, 0, 1, 1, 60,
      RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "up-down"},
  {"up: Corr_high 1.5 > 1.4 -> DOWN", S_UP, 0, 0, 0, 0, 150,
      RTPCC_FBRA_DOWN, U_DEACTIVATE, 0, "up-down"},
  {"up: Corr_high 1.3 -> STAY", S_UP, 0, 0, 0, 0, 130,
      RTPCC_FBRA_STAY, U_NONE, 0, "up-stay"},
  {"up: otherwise -> STAY", S_UP, 0, 0, 0, 0, 60,
      RTPCC_FBRA_STAY, U_NONE, 0, "up-stay"},
};

static gdouble
expected_undershoot (gdouble send, gdouble good)
{
  /* the paper's primary reading, clamped as documented */
  gdouble r = 0.9 * (send - 2.0 * (send - good));
  r = MAX (r, MAX ((gdouble) MIN_BPS, 0.5 * good));
  return MIN (r, send);
}

GST_START_TEST (test_transition_table)
{
  const Row *row = &rows[__i__];
  RtpccController *cc = make_fbra (0);
  RtpccFbraInfo before, after;
  RtpccFbraState from;
  gdouble send, good;

  prime (cc);
  setup_state (cc, row->setup);
  before = info_of (cc);
  from = before.state;
  send = (gdouble) before.media_rate;
  good = row->l + row->d > 0 ? 0.9 * send : send;
  rep (cc, row->l, row->rl, row->d, row->rd, row->owd_ms);
  after = info_of (cc);

  GST_INFO ("%s: %s -> %s (%s), media %" G_GUINT64_FORMAT " -> %"
      G_GUINT64_FORMAT, row->name, rtpcc_fbra_state_name (from),
      rtpcc_fbra_state_name (after.state), after.last_action,
      before.media_rate, after.media_rate);
  fail_unless_equals_int (after.evaluations, before.evaluations + 1);
  fail_unless_equals_int (after.state, row->expect);
  fail_unless_equals_int (after.previous, from);
  fail_unless_equals_string (after.last_action, row->action);
  fail_unless_equals_string (cc->target.state,
      rtpcc_fbra_state_name (row->expect));
  /* the FRCC counts: an episode begins on entering PROBE and ends,
   * counted by where it went, on leaving it */
  fail_unless_equals_uint64 (after.fec_episodes, before.fec_episodes +
      (from != RTPCC_FBRA_PROBE && row->expect == RTPCC_FBRA_PROBE));
  fail_unless_equals_uint64 (after.fec_raised, before.fec_raised +
      (from == RTPCC_FBRA_PROBE && row->expect == RTPCC_FBRA_UP));
  fail_unless_equals_uint64 (after.fec_kept, before.fec_kept +
      (from == RTPCC_FBRA_PROBE && row->expect == RTPCC_FBRA_STAY));
  fail_unless_equals_uint64 (after.fec_down, before.fec_down +
      (from == RTPCC_FBRA_PROBE && row->expect == RTPCC_FBRA_DOWN));

  switch (row->rate) {
    case U_NONE:
      fail_unless_equals_uint64 (after.media_rate, before.media_rate);
      fail_unless (!after.rc_disabled);
      break;
    case U_DEACTIVATE:
    case U_KEEP_RC:
      assert_close (after.media_rate, expected_undershoot (send, good), 1.0);
      fail_unless (after.media_rate < before.media_rate);
      assert_close (after.stored_goodput, good, 1e-6);
      fail_unless_equals_int (after.rc_disabled, row->rate == U_DEACTIVATE);
      fail_unless_equals_uint64 (after.undershoots, before.undershoots + 1);
      break;
    case U_UP:
      /* no FEC packet seen: the nominal FEC rate stands in */
      assert_close (after.media_rate, before.media_rate + before.fec_rate,
          1.0);
      fail_unless (before.fec_rate > 0);
      break;
    case U_ANY:
      break;
  }
  if (row->fec == 0) {
    fail_unless_equals_uint64 (after.fec_rate, 0);
    fail_unless_equals_uint64 (cc->target.target_bitrate,
        cc->target.media_bitrate);
  } else if (row->fec == 1) {
    /* the FEC rate the encoder side gets: fec = media / N,
     * target = media + fec */
    fail_unless (after.fec_rate > 0);
    fail_unless (after.fec_interval >= 2 && after.fec_interval <= 14);
    assert_close (after.fec_rate, after.media_rate / (gdouble)
        after.fec_interval, 1.0);
    fail_unless_equals_uint64 (cc->target.target_bitrate,
        cc->target.media_bitrate + cc->target.fec_bitrate);
    if (row->expect == RTPCC_FBRA_PROBE && from == RTPCC_FBRA_PROBE)
      fail_unless_equals_int (after.fec_interval,
          MIN (before.fec_interval + 2, 14));
  }
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* the undershoot below the goodput, and its clamp */
GST_START_TEST (test_undershoot)
{
  RtpccFbraParams p;

  rtpcc_fbra_params_init (&p);
  /* 0.9 (200 − 2 × 20) = 144 */
  assert_close (rtpcc_fbra_undershoot (&p, 200000, 180000, 32000), 144000,
      1e-6);
  /* 0.9 (300 − 20) = 252 */
  assert_close (rtpcc_fbra_undershoot (&p, 300000, 290000, 32000), 252000,
      1e-6);
  /* 0.9 (2 × 100 − 256) = −50.4 → max (32, 0.5 × 100) = 50 */
  assert_close (rtpcc_fbra_undershoot (&p, 256000, 100000, 32000), 50000,
      1e-6);
  /* nothing delivered: the minimum, never negative */
  assert_close (rtpcc_fbra_undershoot (&p, 256000, 0, 32000), 32000, 1e-6);
  assert_close (rtpcc_fbra_undershoot (&p, 100000, 10000, 32000), 32000,
      1e-6);
  assert_close (rtpcc_fbra_undershoot (&p, 1e9, 0, 0), 0, 1e-6);
  /* a goodput above the send rate (measurement noise) never raises it */
  assert_close (rtpcc_fbra_undershoot (&p, 200000, 260000, 32000), 200000,
      1e-6);
  for (gdouble g = 0; g <= 400000; g += 1000)
    for (gdouble r = 0; r <= 400000; r += 5000) {
      gdouble u = rtpcc_fbra_undershoot (&p, r, g, 32000);
      fail_unless (u >= 32000 && u >= 0.5 * g - 1e-6);
    }

  /* through the controller: the target never goes below min-bitrate */
  {
    RtpccController *cc = make_fbra (40000);
    rep_full (cc, 5, 5, 0, 0, -1, 40000, 1000);
    fail_unless_equals_int (info_of (cc).state, RTPCC_FBRA_DOWN);
    fail_unless_equals_uint64 (cc->target.media_bitrate, MIN_BPS);
    fail_unless_equals_uint64 (cc->target.target_bitrate, MIN_BPS);
    rtpcc_controller_free (cc);
  }
}

GST_END_TEST;

/* deactivation ignores the next report; bounce-back to 0.9 × the
 * stored goodput, or a second undershoot without deactivation */
GST_START_TEST (test_deactivation_and_bounce_back)
{
  for (guint variant = 0; variant < 2; variant++) {
    RtpccController *cc = make_fbra (0);
    RtpccFbraInfo a, b, c;
    gdouble stored;

    prime (cc);
    reach (cc, RTPCC_FBRA_STAY, RTPCC_FBRA_UP);
    rep (cc, 3, 2, 0, 0, 60);
    a = info_of (cc);
    fail_unless_equals_int (a.state, RTPCC_FBRA_DOWN);
    fail_unless (a.rc_disabled);
    stored = a.stored_goodput;

    /* ignored, even heavily congested: no state or rate change */
    rep (cc, 10, 10, 5, 5, 400);
    b = info_of (cc);
    fail_unless_equals_int (b.state, RTPCC_FBRA_DOWN);
    fail_unless_equals_uint64 (b.media_rate, a.media_rate);
    fail_unless_equals_uint64 (b.evaluations, a.evaluations);
    fail_unless_equals_uint64 (b.ignored, a.ignored + 1);
    fail_unless (b.bounce_pending && !b.rc_disabled);

    if (variant == 0) {
      rep (cc, 0, 0, 0, 0, 60);
      c = info_of (cc);
      assert_close (c.media_rate, 0.9 * stored, 1.0);
      fail_unless (c.media_rate > b.media_rate);
      fail_unless_equals_string (c.last_action, "bounce-back");
      fail_unless_equals_int (c.state, RTPCC_FBRA_STAY);
      fail_unless_equals_uint64 (c.bounce_backs, 1);
    } else {
      gdouble send = (gdouble) b.media_rate;
      rep (cc, 2, 1, 0, 0, 60);
      c = info_of (cc);
      fail_unless_equals_string (c.last_action, "bounce-undershoot");
      fail_unless_equals_int (c.state, RTPCC_FBRA_DOWN);
      assert_close (c.media_rate, expected_undershoot (send, 0.9 * send), 1.0);
      fail_unless (!c.rc_disabled);
      /* not deactivated: the next report is evaluated */
      rep (cc, 0, 0, 0, 0, 60);
      fail_unless_equals_uint64 (info_of (cc).evaluations, c.evaluations + 1);
    }
    rtpcc_controller_free (cc);
  }
}

GST_END_TEST;

/* no feedback for 2 s: the paper's timeout */
GST_START_TEST (test_feedback_timeout)
{
  RtpccController *cc = make_fbra (0);
  RtpccSentPacket sp = { 0, };
  RtpccFbraInfo i;
  RtpccTime t0;
  guint64 media;

  /* the timer runs from the first packet sent */
  sp.seq = 1;
  sp.size = 1000;
  rtpcc_controller_packet_sent (cc, 0, &sp);
  fail_unless_equals_int64 (cc->next_tick, RTPCC_SEC (2));

  prime (cc);
  t0 = now_t;
  media = cc->target.media_bitrate;
  rtpcc_controller_tick (cc, t0 + RTPCC_SEC (2) - MS (50));
  fail_unless_equals_uint64 (cc->target.media_bitrate, media);
  fail_unless_equals_uint64 (info_of (cc).timeouts, 0);
  fail_unless_equals_int64 (cc->next_tick, t0 + RTPCC_SEC (2));
  rtpcc_controller_tick (cc, t0 + RTPCC_SEC (2));
  i = info_of (cc);
  fail_unless_equals_uint64 (i.timeouts, 1);
  fail_unless_equals_int (i.state, RTPCC_FBRA_DOWN);
  assert_close (cc->target.media_bitrate, media / 2.0, 1.0);
  fail_unless_equals_uint64 (cc->target.fec_bitrate, 0);
  fail_unless_equals_string (cc->target.reason, "feedback-timeout");
  /* and again 2 s later, down to the minimum */
  for (guint k = 2; k < 20; k++)
    rtpcc_controller_tick (cc, t0 + RTPCC_SEC (2 * k));
  fail_unless_equals_uint64 (cc->target.media_bitrate, MIN_BPS);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* a report in which nothing arrived, was lost or discarded */
static void
rep_empty (RtpccController * cc)
{
  RtpccFbraReport r;

  memset (&r, 0, sizeof (r));
  r.owd = RTPCC_TIME_NONE;
  now_t += MS (500);
  fail_unless (rtpcc_fbra_inject_report (cc, now_t, &r));
}

/* Empty reports say nothing of the path: no state advances on them (the
 * published rules would probe and go UP on them), and after the feedback
 * timeout of nothing heard the rate halves as for a missing report. */
GST_START_TEST (test_empty_reports_hold)
{
  RtpccController *cc = make_fbra (0);
  RtpccFbraInfo a, b;

  prime (cc);
  reach (cc, RTPCC_FBRA_PROBE, RTPCC_FBRA_STAY);
  a = info_of (cc);
  /* 500 ms apart: three reports are 1.5 s of silence, under the 2 s */
  for (guint k = 0; k < 3; k++)
    rep_empty (cc);
  b = info_of (cc);
  fail_unless_equals_int (b.state, RTPCC_FBRA_PROBE);
  fail_unless_equals_uint64 (b.media_rate, a.media_rate);
  fail_unless_equals_uint64 (b.ups, a.ups);
  fail_unless_equals_string (b.last_action, "no-delivery-hold");
  rep_empty (cc);
  b = info_of (cc);
  fail_unless_equals_string (b.last_action, "no-delivery-timeout");
  fail_unless_equals_int (b.state, RTPCC_FBRA_DOWN);
  assert_close (b.media_rate, a.media_rate / 2.0, 1.0);
  fail_unless_equals_uint64 (b.timeouts, 1);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* An outage (reports with nothing in them, then one carrying its losses)
 * does not reset what the path was known to carry: the first clean report
 * bounces back to 0.9 × the goodput of the last clean one before it. With
 * outage-recall=0 (the paper as published) it starts over from the
 * undershoot. */
GST_START_TEST (test_outage_recall)
{
  for (guint recall = 0; recall < 2; recall++) {
    RtpccController *cc = make_fbra (0);
    RtpccFbraInfo i;
    gdouble before;

    fail_unless (rtpcc_controller_set_param (cc, "outage-recall",
            recall ? "1" : "0"));
    prime (cc);
    /* a clean report measuring 1.5 Mbit/s of goodput */
    rep_full (cc, 0, 0, 0, 0, 60, 1.5e6, 1.5e6);
    before = 1.5e6;
    for (guint k = 0; k < 8; k++)
      rep_empty (cc);
    i = info_of (cc);
    fail_unless (i.timeouts >= 1);
    if (recall)
      assert_close (i.outage_goodput, before, 1.0);
    else
      assert_close (i.outage_goodput, 0, 0);
    /* the link is back: a report with the outage's losses, little
     * delivered and delayed; then two clean ones (the first may be
     * ignored after an undershoot) */
    rep_full (cc, 40, 20, 0, 0, 200, 600e3, 60e3);
    i = info_of (cc);
    fail_unless (i.media_rate < 0.3 * before, "%" G_GUINT64_FORMAT,
        i.media_rate);
    rep (cc, 0, 0, 0, 0, 60);
    rep (cc, 0, 0, 0, 0, 60);
    i = info_of (cc);
    if (recall) {
      assert_close (i.media_rate, 0.9 * before, 1.0);
      fail_unless_equals_uint64 (i.outage_recalls, 1);
    } else {
      fail_unless (i.media_rate < 0.3 * before, "%" G_GUINT64_FORMAT,
          i.media_rate);
      fail_unless_equals_uint64 (i.outage_recalls, 0);
    }
    rtpcc_controller_free (cc);
  }
}

GST_END_TEST;

/* A link that comes back congested is left to the ordinary rules: after
 * the feedback timeout of congested reports the memory is gone. */
GST_START_TEST (test_outage_recall_expires)
{
  RtpccController *cc = make_fbra (0);
  RtpccFbraInfo i;

  prime (cc);
  rep_full (cc, 0, 0, 0, 0, 60, 1.5e6, 1.5e6);
  for (guint k = 0; k < 3; k++)
    rep_empty (cc);
  fail_unless (info_of (cc).outage_goodput > 0);
  for (guint k = 0; k < 8; k++)
    rep_full (cc, 5, 3, 0, 0, 60, 400e3, 300e3);
  i = info_of (cc);
  assert_close (i.outage_goodput, 0, 0);
  rep (cc, 0, 0, 0, 0, 60);
  rep (cc, 0, 0, 0, 0, 60);
  i = info_of (cc);
  fail_unless_equals_uint64 (i.outage_recalls, 0);
  fail_unless (i.media_rate < 1e6, "%" G_GUINT64_FORMAT, i.media_rate);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* an RR of a call in progress: packets arrived since the previous one */
static void
send_rr (RtpccController * cc, RtpccTime t, RtpccTime rtt)
{
  RtpccReceiverReport rr;

  memset (&rr, 0, sizeof (rr));
  rr.ssrc = 1;
  rr.rtt = rtt;
  rr.ext_highest_seq = (guint32) (t / MS (10));
  rtpcc_controller_receiver_report (cc, t, &rr);
  /* a second block in the same compound (FEC SSRC): the same report */
  rr.ssrc = 2;
  rtpcc_controller_receiver_report (cc, t, &rr);
  /* the evaluation runs on the tick the controller asked for */
  fail_unless_equals_int64 (cc->next_tick, t);
  rtpcc_controller_tick (cc, t);
}

/* one evaluation per report, and early reports (an RR sooner than the
 * regular interval, sent on a loss or discard) */
GST_START_TEST (test_early_report)
{
  RtpccController *cc = make_fbra (0);
  RtpccFbraInfo i;

  for (guint k = 1; k <= 6; k++) {
    send_rr (cc, RTPCC_SEC (k), MS (100));
    i = info_of (cc);
    fail_unless_equals_uint64 (i.reports, k);
    fail_unless_equals_uint64 (i.evaluations, k);
  }
  fail_unless_equals_int64 (i.rtt_median, MS (100));
  fail_unless (i.state != RTPCC_FBRA_DOWN);
  /* 100 ms after the previous: < 1.5 × 100 ms and < 1/3 × 1 s */
  send_rr (cc, RTPCC_SEC (6) + MS (100), MS (100));
  i = info_of (cc);
  fail_unless_equals_uint64 (i.early, 1);
  fail_unless_equals_int (i.state, RTPCC_FBRA_DOWN);
  fail_unless_equals_string (i.last_action, "early-report");
  fail_unless_equals_uint64 (cc->target.fec_bitrate, 0);
  /* 140 ms at RTT 100 ms is early, 160 ms is not */
  send_rr (cc, RTPCC_SEC (7), MS (100));
  send_rr (cc, RTPCC_SEC (7) + MS (160), MS (100));
  fail_unless_equals_uint64 (info_of (cc).early, 1);
  send_rr (cc, RTPCC_SEC (8), MS (100));
  send_rr (cc, RTPCC_SEC (8) + MS (140), MS (100));
  fail_unless_equals_uint64 (info_of (cc).early, 2);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* regular reports at RFC 3550-randomised intervals are never
 * taken for early ones, even where 1.5 × RTT exceeds the shortest regular
 * interval (where the paper's rule alone would fire) */
GST_START_TEST (test_randomised_rtcp_not_early)
{
  const RtpccTime rtts[] = { MS (100), MS (400), MS (900) };
  const RtpccTime intervals[] = { RTPCC_SEC (1), MS (500) };

  for (guint a = 0; a < G_N_ELEMENTS (rtts); a++)
    for (guint b = 0; b < G_N_ELEMENTS (intervals); b++)
      for (guint comp = 0; comp < 2; comp++) {
        RtpccController *cc = make_fbra (0);
        RtpccRng rng;
        RtpccTime t = 0, prev = 0;
        guint naive = 0, n = 0;
        /* RFC 3550 §6.3.1: [0.5, 1.5] × T_d, optionally / (e − 3/2) */
        gdouble div = comp ? G_E - 1.5 : 1.0;

        rtpcc_rng_init (&rng, 17 + a * 7 + b * 3 + comp);
        while (t < RTPCC_SEC (600)) {
          t += (RtpccTime) (intervals[b] * rtpcc_rng_uniform (&rng, 0.5,
                  1.5) / div);
          if (n > 0 && t - prev < (RtpccTime) (1.5 * rtts[a]))
            naive++;
          send_rr (cc, t, rtts[a]);
          prev = t;
          n++;
        }
        GST_INFO ("RTT %" G_GINT64_FORMAT " ms, T %" G_GINT64_FORMAT
            " ms, comp %u: %u reports, %u under 1.5 RTT", rtts[a] / MS (1),
            intervals[b] / MS (1), comp, n, naive);
        fail_unless_equals_uint64 (info_of (cc).early, 0);
        fail_unless_equals_uint64 (info_of (cc).evaluations, n);
        /* the 60 s run of the conformance list at RTT 100 ms is within */
        if (rtts[a] >= MS (400))
          fail_unless (naive > 0, "the case does not exercise the rule");
        rtpcc_controller_free (cc);
      }
}

GST_END_TEST;

/* per-packet feedback of @n packets from @first, 10 ms apart, 1000 bytes,
 * @queue ms of queuing on top of a 30 ms path and a 1 s clock offset;
 * packet @lost_idx (or -1) lost; @fec_every: every n-th is FEC */
static void
feed_packets (RtpccController * cc, RtpccTime t, guint64 first, guint n,
    gdouble queue_ms, gint lost_idx, guint fec_every, gboolean fec_lost)
{
  RtpccPacketReport *r = g_new0 (RtpccPacketReport, n);
  RtpccFeedback fb;

  for (guint k = 0; k < n; k++) {
    r[k].seq = first + k;
    r[k].send_time = (RtpccTime) (first + k) * MS (10);
    r[k].size = 1000;
    r[k].is_fec = fec_every && (k % fec_every) == fec_every - 1;
    r[k].received = (gint) k != lost_idx && !(r[k].is_fec && fec_lost);
    r[k].arrival = r[k].received ? r[k].send_time + MS (30) + RTPCC_SEC (1) +
        (RtpccTime) (queue_ms * RTPCC_NSEC_PER_MSEC) : RTPCC_TIME_NONE;
  }
  memset (&fb, 0, sizeof (fb));
  fb.reports = r;
  fb.n_reports = n;
  fb.rtt_sample = MS (100);
  fb.srtt = MS (100);
  fb.report_time = t;
  rtpcc_controller_feedback (cc, t, &fb);
  g_free (r);
}

/* the one-way-delay history: only reports free of losses and discards feed
 * it */
GST_START_TEST (test_owd_history)
{
  RtpccController *cc = make_fbra (0);
  guint clean = 0;
  RtpccTime hist[256];

  for (guint k = 0; k < 40; k++) {
    RtpccTime t = RTPCC_SEC (1) + k * MS (500);
    gdouble q = (k * 7) % 11;   /* 0..10 ms of queuing */
    gint lost = (k % 4 == 3) ? 5 : -1;
    guint n_hist;
    gdouble v[256], p40 = 0, p80 = 0;
    RtpccFbraInfo i;

    feed_packets (cc, t, 1 + k * 50, 50, q, lost, 0, FALSE);
    n_hist = rtpcc_fbra_get_owd_history (cc, hist, 256);
    fail_unless_equals_int (n_hist, clean);
    for (guint j = 0; j < n_hist; j++)
      v[j] = (gdouble) hist[j];
    if (n_hist >= 5) {
      /* offline nearest-rank percentiles of the same samples */
      gdouble s[256];
      memcpy (s, v, n_hist * sizeof (gdouble));
      for (guint x = 1; x < n_hist; x++)
        for (guint y = x; y > 0 && s[y - 1] > s[y]; y--) {
          gdouble tmp = s[y];
          s[y] = s[y - 1];
          s[y - 1] = tmp;
        }
      p40 = s[(guint) ceil (0.4 * n_hist) - 1] / RTPCC_NSEC_PER_MSEC;
      p80 = s[(guint) ceil (0.8 * n_hist) - 1] / RTPCC_NSEC_PER_MSEC;
    }
    {
      guint64 ign = info_of (cc).ignored;
      send_rr (cc, t, MS (100));
      i = info_of (cc);
      if (i.ignored != ign) {
        /* a report skipped after an undershoot feeds nothing */
        fail_unless_equals_int (rtpcc_fbra_get_owd_history (cc, hist, 256),
            clean);
        continue;
      }
    }
    if (n_hist >= 5) {
      assert_close (i.p_low_owd_ms, p40, 1e-9);
      assert_close (i.p_high_owd_ms, p80, 1e-9);
    }
    /* absolute scale: min RTT / 2 + queuing (the first report sets the
     * zero of the relative delay) */
    assert_close (i.owd_ms, 50.0 + q - 0.0, 1e-6);
    if (lost < 0)
      clean++;
    n_hist = rtpcc_fbra_get_owd_history (cc, hist, 256);
    fail_unless_equals_int (n_hist, clean);
    if (lost < 0)
      assert_close (RTPCC_TIME_AS_MSEC (hist[n_hist - 1]), 50.0 + q, 1e-6);
  }
  fail_unless_equals_uint64 (info_of (cc).losses, 10);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* RR + XR feedback (no per-packet feedback): the one-way delay of a
 * report is half the mean round trip of the receiver's RFC 6843 Delay
 * Metrics block in its compound; without one there is none; with
 * per-packet feedback too, the XR block wins. */
GST_START_TEST (test_xr_delay_owd)
{
  RtpccController *cc = make_fbra (0);
  RtpccTime hist[16];
  RtpccFbraInfo i;

  /* an RR alone: no delay known */
  send_rr (cc, RTPCC_SEC (1), MS (100));
  i = info_of (cc);
  fail_unless (isnan (i.owd_ms));
  fail_unless_equals_int (rtpcc_fbra_get_owd_history (cc, hist, 16), 0);

  /* RR then XR in one compound: evaluated on the tick after both */
  for (guint k = 2; k <= 4; k++) {
    RtpccReceiverReport rr;
    RtpccTime t = RTPCC_SEC (k);
    memset (&rr, 0, sizeof (rr));
    rr.ssrc = 1;
    rr.rtt = MS (100);
    rr.ext_highest_seq = 100 * k;
    rtpcc_controller_receiver_report (cc, t, &rr);
    rtpcc_controller_xr_delay (cc, t, MS (80 + 20 * k), MS (70), MS (200));
    rtpcc_controller_tick (cc, t);
    i = info_of (cc);
    assert_close (i.owd_ms, (80.0 + 20 * k) / 2, 1e-9);
    fail_unless_equals_int (rtpcc_fbra_get_owd_history (cc, hist, 16),
        k - 1);
    fail_unless_equals_int64 (hist[k - 2], MS (40 + 10 * k));
  }

  /* the next report has none (an "unavailable" mean): no delay again */
  rtpcc_controller_xr_delay (cc, RTPCC_SEC (5), RTPCC_TIME_NONE,
      RTPCC_TIME_NONE, RTPCC_TIME_NONE);
  send_rr (cc, RTPCC_SEC (5), MS (100));
  fail_unless (isnan (info_of (cc).owd_ms));

  /* per-packet feedback says 50 + 5 ms; the XR block in the same report
   * says 30 ms: the receiver's report is used */
  feed_packets (cc, RTPCC_SEC (6), 1, 50, 5, -1, 0, FALSE);
  {
    RtpccReceiverReport rr;
    memset (&rr, 0, sizeof (rr));
    rr.ssrc = 1;
    rr.rtt = MS (100);
    rtpcc_controller_receiver_report (cc, RTPCC_SEC (6), &rr);
  }
  rtpcc_controller_xr_delay (cc, RTPCC_SEC (6), MS (60), MS (60), MS (60));
  rtpcc_controller_tick (cc, RTPCC_SEC (6));
  assert_close (info_of (cc).owd_ms, 30.0, 1e-9);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* FEC packets' fate is not the media's */
GST_START_TEST (test_fec_excluded)
{
  for (guint media_loss = 0; media_loss < 2; media_loss++) {
    RtpccController *cc = make_fbra (0);
    RtpccFbraInfo i;

    for (guint k = 0; k < 8; k++) {
      RtpccTime t = RTPCC_SEC (1) + k * MS (500);
      /* every 5th packet is FEC, and all FEC is lost */
      feed_packets (cc, t, 1 + k * 50, 50, 0, media_loss && k == 6 ? 42 : -1,
          5, TRUE);
      send_rr (cc, t, MS (100));
      i = info_of (cc);
      /* goodput counts media only: 40 × 1000 B sent over the 480 ms
       * between the first and the last media packet */
      if (i.last_action && strcmp (i.last_action, "ignored") != 0)
        assert_close (i.last_goodput, (40 - (media_loss && k == 6)) *
            8000.0 / 0.48, 1.0);
    }
    i = info_of (cc);
    fail_unless_equals_uint64 (i.losses, media_loss);
    fail_unless_equals_uint64 (i.undershoots, media_loss);
    if (!media_loss)
      fail_unless (i.state != RTPCC_FBRA_DOWN);
    rtpcc_controller_free (cc);
  }
}

GST_END_TEST;

/* PROBE→UP adds the FEC rate measured during the probe */
GST_START_TEST (test_up_by_measured_fec)
{
  RtpccController *cc = make_fbra (0);
  RtpccFbraInfo a, b;
  RtpccSentPacket sp = { 0, };

  prime (cc);
  reach (cc, RTPCC_FBRA_PROBE, RTPCC_FBRA_STAY);
  a = info_of (cc);
  /* 10 FEC packets of 500 bytes over the 500 ms interval: 80 kbit/s */
  sp.is_fec = TRUE;
  sp.size = 500;
  for (guint k = 0; k < 10; k++) {
    sp.seq = 100000 + k;
    sp.send_time = now_t + k * MS (50);
    rtpcc_controller_packet_sent (cc, sp.send_time, &sp);
  }
  rep (cc, 0, 0, 0, 0, 60);
  b = info_of (cc);
  fail_unless_equals_int (b.state, RTPCC_FBRA_UP);
  fail_unless_equals_string (b.last_action, "probe-up");
  assert_close (b.measured_fec_rate, 80000, 1e-6);
  assert_close (b.media_rate, a.media_rate + 80000.0, 1.0);
  fail_unless_equals_uint64 (b.fec_rate, 0);
  fail_unless_equals_uint64 (b.fec_packets, 10);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* FEC_interval: low after an undershoot (headroom), +2 per Corr_low > β */
GST_START_TEST (test_fec_interval_adapts)
{
  RtpccController *cc = make_fbra (0);
  RtpccFbraInfo a, b;
  RtpccFbraParams p;
  guint64 m;
  guint n;

  rtpcc_fbra_params_init (&p);
  prime (cc);
  reach (cc, RTPCC_FBRA_STAY, RTPCC_FBRA_UP);
  m = cc->target.media_bitrate;
  rep (cc, 2, 1, 0, 0, 60);     /* undershoot, deactivate */
  rep (cc, 0, 0, 0, 0, 60);     /* ignored */
  rep (cc, 0, 0, 0, 0, 60);     /* bounce-back → STAY */
  fail_unless_equals_int (info_of (cc).state, RTPCC_FBRA_STAY);
  rep (cc, 0, 0, 0, 0, 60);     /* well below the 2 s max: PROBE at once */
  a = info_of (cc);
  fail_unless_equals_int (a.state, RTPCC_FBRA_PROBE);
  n = rtpcc_fbra_fec_interval (&p, a.media_rate, m, 128000);
  fail_unless (n < 14);
  fail_unless_equals_int (a.fec_interval, n);
  rep (cc, 0, 0, 0, 0, 90);     /* Corr_low 1.5 */
  b = info_of (cc);
  fail_unless_equals_int (b.state, RTPCC_FBRA_PROBE);
  fail_unless_equals_int (b.fec_interval, MIN (n + 2, 14));
  assert_close (b.fec_rate, b.media_rate / (gdouble) b.fec_interval, 1.0);
  fail_unless (b.fec_rate < a.fec_rate);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* history-all-rates: the paper's rate history holds the combined RTP + FEC
 * rate of the reports too, so with half again as much FEC going out the
 * media rate is "low" against it and the probe's FEC interval shorter
 * (more FEC) than with the media rate FBRA set alone. */
GST_START_TEST (test_history_all_rates)
{
  RtpccFbraParams p;
  guint n[2];

  rtpcc_fbra_params_init (&p);
  rep_fec_share = 0.5;
  for (guint all = 0; all < 2; all++) {
    RtpccController *cc = make_fbra (0);
    RtpccFbraInfo i;

    fail_unless (rtpcc_controller_set_param (cc, "history-all-rates",
            all ? "1" : "0"));
    prime (cc);
    reach (cc, RTPCC_FBRA_PROBE, RTPCC_FBRA_STAY);
    i = info_of (cc);
    n[all] = i.fec_interval;
    /* the reference: the media rate set in the last 2 s, or that × 1.5 */
    fail_unless_equals_int (n[all], rtpcc_fbra_fec_interval (&p,
            i.media_rate, (all ? 1.5 : 1.0) * i.media_rate, 0));
    rtpcc_controller_free (cc);
  }
  rep_fec_share = 0;
  fail_unless (n[1] < n[0], "N %u with the paper's set, %u without", n[1],
      n[0]);
}

GST_END_TEST;

/* FRCC over the ended episodes: a run through PROBE -> UP, and a probe the
 * queue ends in DOWN */
GST_START_TEST (test_frcc)
{
  RtpccController *cc = make_fbra (0);
  RtpccFbraInfo i;

  i = info_of (cc);
  fail_unless (isnan (rtpcc_fbra_frcc (&i)));
  prime (cc);
  reach (cc, RTPCC_FBRA_STAY, RTPCC_FBRA_UP);
  i = info_of (cc);
  fail_unless (i.fec_raised >= 1);
  fail_unless_equals_uint64 (i.fec_down, 0);
  assert_close (rtpcc_fbra_frcc (&i), 1.0, 1e-12);
  for (guint k = 0; k < 12 && info_of (cc).state != RTPCC_FBRA_PROBE; k++)
    rep (cc, 0, 0, 0, 0, 100);
  fail_unless_equals_int (info_of (cc).state, RTPCC_FBRA_PROBE);
  rep (cc, 3, 2, 0, 0, 100);    /* recent losses in PROBE: DOWN */
  i = info_of (cc);
  fail_unless_equals_int (i.state, RTPCC_FBRA_DOWN);
  fail_unless_equals_uint64 (i.fec_down, 1);
  assert_close (rtpcc_fbra_frcc (&i), (gdouble) (i.fec_raised + i.fec_kept)
      / (gdouble) (i.fec_raised + i.fec_kept + 1), 1e-12);
  fail_unless (rtpcc_fbra_frcc (&i) < 1.0);
  fail_unless_equals_uint64 (i.fec_episodes, i.fec_raised + i.fec_kept + 1);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* parameters by name, validated, effective at the next report */
GST_START_TEST (test_params)
{
  RtpccController *cc = make_fbra (0);
  RtpccFbraInfo i = info_of (cc);
  RtpccFbraParams d;

  rtpcc_fbra_params_init (&d);
  assert_close (d.alpha_stay, 1.1, 0);
  assert_close (d.alpha_down_probe, 1.6, 0);
  assert_close (d.alpha_down_up, 1.4, 0);
  assert_close (d.alpha_undershoot, 2.0, 0);
  assert_close (d.beta, 1.2, 0);
  assert_close (d.p_low, 40, 0);
  assert_close (d.p_high, 80, 0);
  assert_close (d.near_max, 0.9, 0);
  assert_close (d.early_rtt, 1.5, 0);
  assert_close (d.feedback_timeout, 2.0, 0);
  assert_close (d.undershoot_k, 0.9, 0);
  assert_close (d.undershoot_mult, 2.0, 0);
  assert_close (d.bounce_back, 0.9, 0);
  fail_unless (memcmp (&i.params, &d, sizeof (d)) == 0);
  /* the paper's start rate when none is configured */
  fail_unless_equals_uint64 (cc->target.media_bitrate, 128000);

  fail_if (rtpcc_controller_set_param (cc, "alpha-stay", "0.5"));
  fail_if (rtpcc_controller_set_param (cc, "alpha-stay", "x"));
  fail_if (rtpcc_controller_set_param (cc, "no-such", "1"));
  fail_if (rtpcc_controller_set_param (cc, "p-low", "90"));     /* > p-high */
  fail_unless (rtpcc_controller_set_param (cc, "alpha-stay", "1.3"));
  assert_close (info_of (cc).params.alpha_stay, 1.3, 0);

  /* Corr_high 1.2 after STAY: DOWN with 1.1, PROBE with 1.3 */
  prime (cc);
  reach (cc, RTPCC_FBRA_STAY, RTPCC_FBRA_STAY);
  rep (cc, 0, 0, 0, 0, 120);
  fail_unless_equals_int (info_of (cc).state, RTPCC_FBRA_PROBE);
  rtpcc_controller_free (cc);

  /* the FEC interval rule */
  assert_close (rtpcc_fbra_fec_interval (&d, 100, 100, 50), 14, 0);
  assert_close (rtpcc_fbra_fec_interval (&d, 50, 100, 50), 8, 0);
  assert_close (rtpcc_fbra_fec_interval (&d, 0, 100, 50), 2, 0);
  assert_close (rtpcc_fbra_fec_interval (&d, 100, 0, 0), 14, 0);
  {
    gdouble v[] = { 5, 1, 4, 2, 3 };
    assert_close (rtpcc_fbra_percentile (v, 5, 40), 2, 0);
    assert_close (rtpcc_fbra_percentile (v, 5, 80), 4, 0);
    assert_close (rtpcc_fbra_percentile (v, 5, 100), 5, 0);
    assert_close (rtpcc_fbra_percentile (v, 0, 50), 0, 0);
    /* not modified */
    assert_close (v[0], 5, 0);
  }
}

GST_END_TEST;

/* ---- XR ----------------------------------------------------------------- */

GST_START_TEST (test_xr_exact_bytes)
{
  RtpccXrRleBlock b = { 0, };
  guint8 bits[21], buf[64];
  guint8 v[6] = { 1, 0, 1, 0, 1, 0 };
  gsize n;
  GError *err = NULL;
  RtpccXr *xr;
  static const guint8 want[] = {
    0x80, 207, 0x00, 0x05, 0x11, 0x22, 0x33, 0x44,      /* XR, SSRC */
    25, 0x00, 0x00, 0x03, 0xaa, 0xbb, 0xcc, 0xdd,       /* BT 25, len 3 */
    0xff, 0xf0, 0x00, 0x05,     /* begin 65520, end 5 */
    0x40, 0x14,                 /* run of 20 ones */
    0x00, 0x01,                 /* run of 1 zero... at the end: a run chunk */
  };

  /* 20 discarded then one kept: 65520..65535, 0..4 */
  memset (bits, 1, 20);
  bits[20] = 0;
  b.bt = RTPCC_XR_BT_DISCARD_RLE;
  b.ssrc = 0xaabbccdd;
  b.begin_seq = 65520;
  b.end_seq = 5;
  b.n_bits = 21;
  b.bits = bits;
  n = rtpcc_xr_write (buf, sizeof (buf), 0x11223344, &b, 1);
  fail_unless_equals_int (n, sizeof (want));
  fail_unless (memcmp (buf, want, n) == 0);
  xr = rtpcc_xr_parse (buf, n, &err);
  fail_unless (xr != NULL, "%s", err ? err->message : "?");
  fail_unless_equals_int (xr->n_blocks, 1);
  fail_unless_equals_int (xr->blocks[0].n_bits, 21);
  fail_unless (memcmp (xr->blocks[0].bits, bits, 21) == 0);
  rtpcc_xr_free (xr);

  /* a bit vector: 1 0 1 0 ... over 6 positions, loss RLE */
  {
    b.bt = RTPCC_XR_BT_LOSS_RLE;
    b.begin_seq = 100;
    b.end_seq = 106;
    b.n_bits = 6;
    b.bits = v;
    n = rtpcc_xr_write (buf, sizeof (buf), 1, &b, 1);
    fail_unless_equals_int (n, 24);
    fail_unless_equals_int (buf[8], 1);
    /* 1 101010 000000000 = 0xd400, then a null chunk */
    fail_unless_equals_int (buf[20], 0xd4);
    fail_unless_equals_int (buf[21], 0x00);
    fail_unless_equals_int (buf[22], 0x00);
    fail_unless_equals_int (buf[23], 0x00);
  }
  /* inconsistent blocks are refused */
  b.n_bits = 7;
  fail_unless_equals_int (rtpcc_xr_write (buf, sizeof (buf), 1, &b, 1), 0);
  b.n_bits = 6;
  fail_unless_equals_int (rtpcc_xr_write (buf, 20, 1, &b, 1), 0);
}

GST_END_TEST;

GST_START_TEST (test_xr_round_trip)
{
  RtpccRng rng;
  guint8 *buf = g_malloc (70000);

  rtpcc_rng_init (&rng, 4242);
  for (guint it = 0; it < 300; it++) {
    RtpccXrRleBlock blocks[3];
    guint nb = 1 + it % 3;
    gsize n;
    GError *err = NULL;
    RtpccXr *xr;

    for (guint k = 0; k < nb; k++) {
      guint nbits = (guint) rtpcc_rng_uniform (&rng, 0, it % 10 == 0 ?
          20000 : 600);
      gdouble p_flip = rtpcc_rng_uniform (&rng, 0.001, 0.6);
      guint8 cur = 1;
      blocks[k].bt = (k + it) % 2 ? RTPCC_XR_BT_LOSS_RLE :
          RTPCC_XR_BT_DISCARD_RLE;
      blocks[k].thinning = 0;
      blocks[k].early = FALSE;
      blocks[k].ssrc = (guint32) rtpcc_rng_next_u64 (&rng);
      blocks[k].begin_seq = (guint16) rtpcc_rng_next_u64 (&rng);
      blocks[k].end_seq = (guint16) (blocks[k].begin_seq + nbits);
      blocks[k].n_bits = nbits;
      blocks[k].bits = g_malloc (MAX (nbits, 1));
      for (guint j = 0; j < nbits; j++) {
        if (rtpcc_rng_uniform (&rng, 0, 1) < p_flip)
          cur ^= 1;
        blocks[k].bits[j] = cur;
      }
    }
    n = rtpcc_xr_write (buf, 70000, 0x1234, blocks, nb);
    fail_unless (n > 0 && n % 4 == 0);
    {
      RtpccRtcpIter iter;
      RtpccRtcpPacket pkt;
      fail_unless (rtpcc_rtcp_iter_init (&iter, buf, n));
      fail_unless (rtpcc_rtcp_iter_next (&iter, &pkt));
      fail_unless_equals_int (pkt.pt, RTPCC_RTCP_XR);
    }
    xr = rtpcc_xr_parse (buf, n, &err);
    fail_unless (xr != NULL, "%s", err ? err->message : "?");
    fail_unless_equals_int (xr->ssrc, 0x1234);
    fail_unless_equals_int (xr->n_blocks, nb);
    for (guint k = 0; k < nb; k++) {
      fail_unless_equals_int (xr->blocks[k].bt, blocks[k].bt);
      fail_unless_equals_int (xr->blocks[k].ssrc, blocks[k].ssrc);
      fail_unless_equals_int (xr->blocks[k].begin_seq, blocks[k].begin_seq);
      fail_unless_equals_int (xr->blocks[k].n_bits, blocks[k].n_bits);
      fail_unless (memcmp (xr->blocks[k].bits, blocks[k].bits,
              blocks[k].n_bits) == 0);
      g_free (blocks[k].bits);
    }
    /* every strict prefix is refused, never over-read */
    for (gsize cut = 0; cut < n; cut += 1 + n / 16) {
      guint8 *copy = g_memdup2 (buf, MAX (cut, 1));
      RtpccXr *bad = rtpcc_xr_parse (copy, cut, NULL);
      fail_unless (bad == NULL);
      g_free (copy);
    }
    rtpcc_xr_free (xr);
  }
  g_free (buf);
}

GST_END_TEST;

GST_START_TEST (test_xr_malformed)
{
  guint8 p[32];
  GError *err = NULL;
  RtpccXr *xr;

  /* a run longer than the range */
  static const guint8 long_run[] = {
    0x80, 207, 0x00, 0x05, 0, 0, 0, 1,
    25, 0x00, 0x00, 0x03, 0, 0, 0, 2, 0x00, 0x00, 0x00, 0x05,
    0x40, 0x09, 0x00, 0x00,
  };
  /* chunks short of the range (a null chunk before its end) */
  static const guint8 short_chunks[] = {
    0x80, 207, 0x00, 0x05, 0, 0, 0, 1,
    1, 0x00, 0x00, 0x03, 0, 0, 0, 2, 0x00, 0x00, 0x00, 0x20,
    0x40, 0x05, 0x00, 0x00,
  };
  /* a block length past the packet */
  static const guint8 overrun[] = {
    0x80, 207, 0x00, 0x03, 0, 0, 0, 1,
    25, 0x00, 0x00, 0x09, 0, 0, 0, 2,
  };
  /* unknown block types are skipped, not errors */
  static const guint8 unknown[] = {
    0x80, 207, 0x00, 0x03, 0, 0, 0, 1,
    4, 0x00, 0x00, 0x01, 0, 0, 0, 2,
  };

  fail_unless (rtpcc_xr_parse (long_run, sizeof (long_run), &err) == NULL);
  fail_unless (err && err->domain == RTPCC_ERROR);
  g_clear_error (&err);
  fail_unless (rtpcc_xr_parse (short_chunks, sizeof (short_chunks), &err) ==
      NULL);
  g_clear_error (&err);
  fail_unless (rtpcc_xr_parse (overrun, sizeof (overrun), &err) == NULL);
  g_clear_error (&err);
  xr = rtpcc_xr_parse (unknown, sizeof (unknown), &err);
  fail_unless (xr != NULL);
  fail_unless_equals_int (xr->n_blocks, 0);
  fail_unless_equals_int (xr->n_skipped, 1);
  rtpcc_xr_free (xr);
  /* not XR */
  memcpy (p, unknown, sizeof (unknown));
  p[1] = 201;
  fail_unless (rtpcc_xr_parse (p, sizeof (unknown), NULL) == NULL);
  fail_unless (rtpcc_xr_parse (p, 3, NULL) == NULL);
}

GST_END_TEST;

/* receiver discards → XR Discard RLE in its report → sender → fbra, with
 * the RFC 3550 and per-packet feedback of the same compounds */
GST_START_TEST (test_discards_end_to_end)
{
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  RtpccSender *s;
  RtpccReceiver *r;
  GError *err = NULL;
  RtpccTime t;
  guint8 buf[1500];
  /* packet k (sent at k × 20 ms) has seq 65439 + k: 96..98 wrap */
  guint16 seq = 65439;
  const RtpccReceiverStats *rs;
  RtpccFbraInfo fi;
  gboolean marked = FALSE;

  rtpcc_sender_config_init (&sc);
  sc.controller = "fbra";
  sc.cc.min_bitrate = 32000;
  sc.cc.max_bitrate = 2000000;
  sc.circuit_breaker = FALSE;
  sc.seed = 3;
  s = rtpcc_sender_new (&sc, 0, &err);
  fail_unless (s != NULL, "%s", err ? err->message : "?");
  rtpcc_receiver_config_init (&rc);
  rc.seed = 4;
  r = rtpcc_receiver_new (&rc, 0);

  for (t = 0; t < RTPCC_SEC (4); t += MS (20)) {
    RtpccRtpInfo in = { 0, };
    RtpccWirePacket out;
    RtpccTime fbt;
    in.ssrc = 0xabc;
    in.seq = seq++;
    in.rtp_ts = (guint32) (t / 11111);
    in.pt = 96;
    in.marker = TRUE;
    in.size = 200;
    in.clock_rate = 90000;
    rtpcc_sender_enqueue (s, t, &in, GINT_TO_POINTER (1));
    while (rtpcc_sender_dequeue (s, t, &out) || rtpcc_sender_dequeue_probe (s,
            t, &out))
      rtpcc_receiver_on_rtp (r, t + MS (20), &out.info);
    if (!marked && t >= RTPCC_SEC (2)) {
      /* packets just played out late: 3 from 65535 (wrapping) and one
       * alone, plus an unknown SSRC and a count of 0 */
      fail_unless (rtpcc_receiver_mark_discarded (r, t, 0xabc, 65535, 3));
      fail_unless (rtpcc_receiver_mark_discarded (r, t, 0xabc, 65530, 1));
      fail_if (rtpcc_receiver_mark_discarded (r, t, 0xdead, 10, 1));
      fail_if (rtpcc_receiver_mark_discarded (r, t, 0xabc, 10, 0));
      marked = TRUE;
    }
    fbt = rtpcc_receiver_next_feedback_time (r);
    if (fbt != RTPCC_TIME_NONE && fbt <= t + MS (20)) {
      gsize n = rtpcc_receiver_build_feedback (r, t + MS (20), buf,
          sizeof (buf));
      if (n > 0)
        rtpcc_sender_receive_rtcp (s, t + MS (40), buf, n);
    }
    rtpcc_sender_tick (s, t + MS (40));
  }
  rs = rtpcc_receiver_get_stats (r, t);
  fail_unless_equals_uint64 (rs->discards_marked, 4);
  fail_unless_equals_uint64 (rs->discards_reported, 4);
  fail_unless_equals_uint64 (rs->discards_rejected, 2);
  fail_unless_equals_uint64 (rtpcc_sender_get_stats (s, t)->reported_discarded,
      4);
  fail_unless (rtpcc_fbra_get_info (rtpcc_sender_get_controller (s), &fi));
  fail_unless_equals_uint64 (fi.discards, 4);
  fail_unless_equals_uint64 (fi.losses, 0);
  GST_INFO ("reports %" G_GUINT64_FORMAT " evaluations %" G_GUINT64_FORMAT " ignored %" G_GUINT64_FORMAT " last %s", fi.reports, fi.evaluations, fi.ignored, fi.last_action);
  fail_unless (fi.reports >= 4);
  fail_unless_equals_uint64 (fi.evaluations + fi.ignored, fi.reports);
  rtpcc_receiver_free (r);
  rtpcc_sender_free (s);
}

GST_END_TEST;

/* early feedback on discards, at most once per two intervals */
GST_START_TEST (test_early_discard_feedback)
{
  for (guint on = 0; on < 2; on++) {
    RtpccReceiverConfig rc;
    RtpccReceiver *r;
    RtpccRtpInfo in = { 0, };
    RtpccTime t, first_rr = RTPCC_TIME_NONE;
    guint8 buf[1500];

    rtpcc_receiver_config_init (&rc);
    rc.seed = 9;
    rc.rtcp_interval = RTPCC_SEC (1);
    /* RR only: next_feedback_time is the RR schedule alone */
    rc.feedback = RTPCC_FEEDBACK_RR;
    rc.early_discard_feedback = on;
    r = rtpcc_receiver_new (&rc, 0);
    in.ssrc = 0x77;
    in.size = 100;
    rtpcc_receiver_on_rtp (r, 0, &in);
    /* drain the first RR (at 0.5 s) */
    t = rtpcc_receiver_next_feedback_time (r);
    for (; t < RTPCC_SEC (1); t += MS (10))
      if (rtpcc_receiver_next_feedback_time (r) <= t)
        rtpcc_receiver_build_feedback (r, t, buf, sizeof (buf));
    /* discards at 1.0 s, 1.2 s and 3.2 s */
    fail_unless (rtpcc_receiver_mark_discarded (r, RTPCC_SEC (1), 0x77, 0,
            1));
    if (on) {
      fail_unless_equals_int64 (rtpcc_receiver_next_feedback_time (r),
          RTPCC_SEC (1));
    } else {
      fail_unless (rtpcc_receiver_next_feedback_time (r) > RTPCC_SEC (1));
    }
    first_rr = rtpcc_receiver_next_feedback_time (r);
    rtpcc_receiver_build_feedback (r, MAX (first_rr, RTPCC_SEC (1)), buf,
        sizeof (buf));
    fail_unless (rtpcc_receiver_mark_discarded (r, MS (1200), 0x77, 1, 1));
    /* within two intervals of the early one: the regular schedule */
    fail_unless (rtpcc_receiver_next_feedback_time (r) > MS (1200));
    fail_unless_equals_uint64 (rtpcc_receiver_get_stats (r,
            MS (1200))->early_feedback, on ? 1 : 0);
    rtpcc_receiver_free (r);
  }
}

GST_END_TEST;

/* packets the sender drops on purpose (its queue
 * limit) leave RTP sequence gaps on the wire but never count as losses */
GST_START_TEST (test_intentional_drops_not_loss)
{
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  RtpccSender *s;
  RtpccReceiver *r;
  GError *err = NULL;
  guint8 buf[1500];
  guint16 seq = 1;
  RtpccFbraInfo fi;
  RtpccTime t;

  rtpcc_sender_config_init (&sc);
  sc.controller = "fbra";
  sc.cc.min_bitrate = 32000;
  sc.cc.max_bitrate = 2000000;
  sc.circuit_breaker = FALSE;
  sc.pacer.max_bytes = 3000;
  sc.seed = 5;
  s = rtpcc_sender_new (&sc, 0, &err);
  fail_unless (s != NULL);
  rtpcc_receiver_config_init (&rc);
  rc.seed = 6;
  r = rtpcc_receiver_new (&rc, 0);
  for (t = 0; t < RTPCC_SEC (6); t += MS (5)) {
    RtpccWirePacket out;
    RtpccTime fbt;
    if (t % MS (100) == 0)
      /* a 10-packet frame every 100 ms: ~800 kbit/s into a 128 kbit/s
       * pacer with a 3000-byte queue limit: most are dropped here */
      for (guint k = 0; k < 10; k++) {
        RtpccRtpInfo in = { 0, };
        in.ssrc = 0xabc;
        in.seq = seq++;
        in.rtp_ts = (guint32) (t / 11111);
        in.pt = 96;
        in.marker = k == 9;
        in.size = 1000;
        in.clock_rate = 90000;
        rtpcc_sender_enqueue (s, t, &in, GINT_TO_POINTER (1));
      }
    while (rtpcc_sender_dequeue (s, t, &out) || rtpcc_sender_dequeue_probe (s,
            t, &out))
      rtpcc_receiver_on_rtp (r, t + MS (20), &out.info);
    fbt = rtpcc_receiver_next_feedback_time (r);
    if (fbt != RTPCC_TIME_NONE && fbt <= t + MS (20)) {
      gsize n = rtpcc_receiver_build_feedback (r, t + MS (20), buf,
          sizeof (buf));
      if (n > 0)
        rtpcc_sender_receive_rtcp (s, t + MS (40), buf, n);
    }
    rtpcc_sender_tick (s, t + MS (40));
  }
  fail_unless (rtpcc_sender_get_stats (s, t)->pacer_drops > 100);
  /* the receiver saw the gaps (RFC 3550 loss) ... */
  fail_unless (rtpcc_receiver_get_stats (r, t)->packets_lost > 100);
  /* ... the controller did not */
  fail_unless (rtpcc_fbra_get_info (rtpcc_sender_get_controller (s), &fi));
  fail_unless_equals_uint64 (fi.losses, 0);
  fail_unless_equals_uint64 (fi.undershoots, 0);
  fail_unless (fi.evaluations >= 5);
  rtpcc_receiver_free (r);
  rtpcc_sender_free (s);
}

GST_END_TEST;

/* while real FEC (is_fec) is queued, no padding probes are made for
 * fec_bitrate; without it the sender's probes stand in */
GST_START_TEST (test_no_padding_while_fec_flows)
{
  for (guint with_fec = 0; with_fec < 2; with_fec++) {
    RtpccSenderConfig sc;
    RtpccSender *s;
    GError *err = NULL;
    RtpccController *cc;

    guint k = 0;

    now_t = 0;
    rtpcc_sender_config_init (&sc);
    sc.controller = "fbra";
    sc.cc.min_bitrate = 32000;
    sc.circuit_breaker = FALSE;
    s = rtpcc_sender_new (&sc, 0, &err);
    fail_unless (s != NULL);
    cc = rtpcc_sender_get_controller (s);
    /* force PROBE: FEC at media / N */
    prime (cc);
    reach (cc, RTPCC_FBRA_PROBE, RTPCC_FBRA_STAY);
    rtpcc_sender_tick (s, now_t);
    fail_unless (rtpcc_sender_get_target (s)->fec_bitrate > 0);
    for (RtpccTime t = now_t; t < now_t + MS (400); t += MS (10), k++) {
      RtpccRtpInfo in = { 0, };
      RtpccWirePacket out;
      if (with_fec && k % 4 == 0) {
        /* fecenc's parity on its own SSRC/PT, queued like media */
        in.ssrc = 0xfec;
        in.seq = (guint16) k;
        in.pt = 122;
        in.size = 200;
        in.is_fec = TRUE;
        rtpcc_sender_enqueue (s, t, &in, GINT_TO_POINTER (1));
      }
      memset (&in, 0, sizeof (in));
      in.ssrc = 0xabc;
      in.seq = (guint16) k;
      in.pt = 96;
      in.size = 200;
      rtpcc_sender_enqueue (s, t, &in, GINT_TO_POINTER (1));
      while (rtpcc_sender_dequeue (s, t, &out)
          || rtpcc_sender_dequeue_probe (s, t, &out));
    }
    if (with_fec) {
      fail_unless_equals_uint64 (rtpcc_sender_get_stats (s,
              now_t)->probe_packets, 0);
      fail_unless_equals_uint64 (rtpcc_sender_get_stats (s,
              now_t)->fec_packets_enqueued, 10);
    } else
      fail_unless (rtpcc_sender_get_stats (s, now_t)->probe_packets > 0);
    rtpcc_sender_free (s);
  }
}

GST_END_TEST;

static Suite *
rtpcc_fbra_suite (void)
{
  Suite *s = suite_create ("rtpcc_fbra");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_transition_table, 0, G_N_ELEMENTS (rows));
  tcase_add_test (tc, test_undershoot);
  tcase_add_test (tc, test_deactivation_and_bounce_back);
  tcase_add_test (tc, test_feedback_timeout);
  tcase_add_test (tc, test_empty_reports_hold);
  tcase_add_test (tc, test_outage_recall);
  tcase_add_test (tc, test_outage_recall_expires);
  tcase_add_test (tc, test_early_report);
  tcase_add_test (tc, test_randomised_rtcp_not_early);
  tcase_add_test (tc, test_owd_history);
  tcase_add_test (tc, test_xr_delay_owd);
  tcase_add_test (tc, test_fec_excluded);
  tcase_add_test (tc, test_up_by_measured_fec);
  tcase_add_test (tc, test_fec_interval_adapts);
  tcase_add_test (tc, test_frcc);
  tcase_add_test (tc, test_history_all_rates);
  tcase_add_test (tc, test_params);
  tcase_add_test (tc, test_xr_exact_bytes);
  tcase_add_test (tc, test_xr_round_trip);
  tcase_add_test (tc, test_xr_malformed);
  tcase_add_test (tc, test_discards_end_to_end);
  tcase_add_test (tc, test_no_padding_while_fec_flows);
  tcase_add_test (tc, test_intentional_drops_not_loss);
  tcase_add_test (tc, test_early_discard_feedback);
  return s;
}

GST_CHECK_MAIN (rtpcc_fbra);

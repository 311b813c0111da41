/* Unit tests for the RFC 8083 circuit breakers (gst/rtpcc/circuitbreaker.c).
 * Every trace is built so the expected trip time or rate threshold can be
 * computed by hand; each "trips" test has a "does not trip" twin just on
 * the benign side of the same threshold.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#define SSRC 0x1234

static RtpccCircuitBreaker *
make_cb (RtpccTime td, RtpccTime tdr)
{
  RtpccCircuitBreakerConfig cfg;

  rtpcc_circuit_breaker_config_init (&cfg);
  cfg.rtcp_interval = td;
  cfg.report_interval = tdr;
  return rtpcc_circuit_breaker_new (&cfg, 0);
}

static void
report (RtpccCircuitBreaker * cb, RtpccTime now, guint8 fraction, guint32 hsn,
    RtpccTime rtt, guint32 sent_interval)
{
  RtpccReceiverReport rr;

  memset (&rr, 0, sizeof (rr));
  rr.ssrc = SSRC;
  rr.fraction_lost = fraction;
  rr.ext_highest_seq = hsn;
  rr.rtt = rtt;
  rr.packets_sent_interval = sent_interval;
  rtpcc_circuit_breaker_on_report (cb, now, &rr);
}

/* One packet of @size every @gap in [@from, @to); returns the count. */
static guint
send_cbr (RtpccCircuitBreaker * cb, RtpccTime from, RtpccTime to,
    RtpccTime gap, guint size)
{
  guint n = 0;
  for (RtpccTime t = from; t < to; t += gap, n++)
    rtpcc_circuit_breaker_on_sent (cb, t, size);
  return n;
}

/* Sends CBR and an RR at every multiple of @tdr in (@from, @to]: each RR
 * carries @fraction and advances the highest sequence by what was sent. */
static void
run_reports (RtpccCircuitBreaker * cb, RtpccTime from, RtpccTime to,
    RtpccTime tdr, RtpccTime gap, guint size, guint8 fraction, guint32 * hsn)
{
  for (RtpccTime t = from; t < to; t += tdr) {
    guint n = send_cbr (cb, t + gap / 2, t + tdr, gap, size);
    *hsn += n;
    report (cb, t + tdr, fraction, *hsn, RTPCC_MSEC (200), n);
  }
}

GST_START_TEST (test_rtcp_timeout_three_intervals)
{
  /* Td = 5 s: RRs at 5, 10, 15 s, then silence while we keep sending.
   * RFC 8083 §4.1: trips 3 × 5 s after the last report, at 30 s. */
  RtpccCircuitBreaker *cb = make_cb (RTPCC_SEC (5), RTPCC_SEC (5));
  guint32 hsn = 0;

  for (RtpccTime t = 0; t < RTPCC_SEC (30); t += RTPCC_MSEC (20)) {
    rtpcc_circuit_breaker_on_sent (cb, t, 1000);
    if (t > 0 && t <= RTPCC_SEC (15) && t % RTPCC_SEC (5) == 0)
      report (cb, t, 0, hsn += 250, RTPCC_MSEC (100), 250);
  }
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  fail_unless_equals_int64 (rtpcc_circuit_breaker_next_tick (cb),
      RTPCC_SEC (30));
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (30) - 1);
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (30));
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  fail_unless_equals_int (rtpcc_circuit_breaker_get_reason (cb),
      RTPCC_CB_REASON_RTCP_TIMEOUT);
  fail_unless (strstr (rtpcc_circuit_breaker_get_detail (cb), "15.0 s"),
      "%s", rtpcc_circuit_breaker_get_detail (cb));
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_rtcp_timeout_benign_and_borderline)
{
  /* One missing RR (gap 10 s < 15 s): never trips over a minute. */
  RtpccCircuitBreaker *cb = make_cb (RTPCC_SEC (5), RTPCC_SEC (5));
  guint32 hsn = 0;

  for (RtpccTime t = 0; t < RTPCC_SEC (60); t += RTPCC_MSEC (20)) {
    rtpcc_circuit_breaker_on_sent (cb, t, 1000);
    if (t > 0 && t % RTPCC_SEC (5) == 0 && t != RTPCC_SEC (15))
      report (cb, t, 0, hsn += 250, RTPCC_MSEC (100), 250);
    rtpcc_circuit_breaker_tick (cb, t);
  }
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_free (cb);

  /* Two missing in a row: 10 s → 25 s is three intervals of silence, which
   * trips at 25 s before the late report can arrive. */
  cb = make_cb (RTPCC_SEC (5), RTPCC_SEC (5));
  hsn = 0;
  for (RtpccTime t = 0; t < RTPCC_SEC (25); t += RTPCC_MSEC (20)) {
    rtpcc_circuit_breaker_on_sent (cb, t, 1000);
    if (t > 0 && t <= RTPCC_SEC (10) && t % RTPCC_SEC (5) == 0)
      report (cb, t, 0, hsn += 250, RTPCC_MSEC (100), 250);
  }
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (25));
  fail_unless_equals_int (rtpcc_circuit_breaker_get_reason (cb),
      RTPCC_CB_REASON_RTCP_TIMEOUT);
  rtpcc_circuit_breaker_free (cb);

  /* A reduced RTCP interval (Td = 1 s) does not shorten it: Tmin = 5 s. */
  cb = make_cb (RTPCC_SEC (1), RTPCC_SEC (1));
  send_cbr (cb, 0, RTPCC_SEC (2), RTPCC_MSEC (20), 1000);
  report (cb, RTPCC_SEC (2), 0, 100, RTPCC_MSEC (100), 100);
  send_cbr (cb, RTPCC_SEC (2), RTPCC_SEC (3), RTPCC_MSEC (20), 1000);
  fail_unless_equals_int64 (rtpcc_circuit_breaker_next_tick (cb),
      RTPCC_SEC (17));
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_rtcp_timeout_only_while_sending)
{
  RtpccCircuitBreaker *cb = make_cb (RTPCC_SEC (5), RTPCC_SEC (5));

  /* we stop sending at 9 s, the receiver reports once more at 10 s and
   * then (having nothing to report on) goes quiet: no timeout */
  send_cbr (cb, 0, RTPCC_SEC (5), RTPCC_MSEC (20), 1000);
  report (cb, RTPCC_SEC (5), 0, 250, RTPCC_MSEC (100), 250);
  send_cbr (cb, RTPCC_SEC (5), RTPCC_SEC (9), RTPCC_MSEC (20), 1000);
  report (cb, RTPCC_SEC (10), 0, 450, RTPCC_MSEC (100), 200);
  fail_unless_equals_int64 (rtpcc_circuit_breaker_next_tick (cb),
      RTPCC_TIME_NONE);
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (100));
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));

  /* resuming after the long pause restarts the clock from the resume */
  rtpcc_circuit_breaker_on_sent (cb, RTPCC_SEC (100), 1000);
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  send_cbr (cb, RTPCC_SEC (100) + RTPCC_MSEC (20), RTPCC_SEC (115),
      RTPCC_MSEC (20), 1000);
  fail_unless_equals_int64 (rtpcc_circuit_breaker_next_tick (cb),
      RTPCC_SEC (115));
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (115));
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  rtpcc_circuit_breaker_free (cb);

  /* congestion feedback (CCFB) every 100 ms keeps it alive without RRs */
  cb = make_cb (RTPCC_SEC (5), RTPCC_SEC (5));
  for (RtpccTime t = 0; t < RTPCC_SEC (60); t += RTPCC_MSEC (20)) {
    rtpcc_circuit_breaker_on_sent (cb, t, 1000);
    if (t % RTPCC_MSEC (100) == 0)
      rtpcc_circuit_breaker_on_feedback (cb, t);
    rtpcc_circuit_breaker_tick (cb, t);
  }
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_media_timeout)
{
  /* Tdr = 1 s, RTT 200 ms, Tf = 1/30 s: MEDIA_TIMEOUT =
   * ceil (5 × max (0.033, 0.2, 1) / 1) = 5 stalled reports. */
  RtpccCircuitBreaker *cb = make_cb (RTPCC_SEC (1), RTPCC_SEC (1));
  RtpccTime t = 0;

  for (gint i = 1; i <= 5; i++) {
    send_cbr (cb, t, t + RTPCC_SEC (1), RTPCC_MSEC (20), 1000);
    t += RTPCC_SEC (1);
    /* the first report sets the baseline, the next four stall */
    report (cb, t, 0, 100, RTPCC_MSEC (200), 50);
  }
  fail_unless_equals_int (rtpcc_circuit_breaker_get_media_timeout (cb), 5);
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  send_cbr (cb, t, t + RTPCC_SEC (1), RTPCC_MSEC (20), 1000);
  t += RTPCC_SEC (1);
  report (cb, t, 0, 100, RTPCC_MSEC (200), 50);
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  fail_unless_equals_int (rtpcc_circuit_breaker_get_reason (cb),
      RTPCC_CB_REASON_MEDIA_TIMEOUT);
  rtpcc_circuit_breaker_free (cb);

  /* four stalls, one advance, four stalls: the count starts over */
  cb = make_cb (RTPCC_SEC (1), RTPCC_SEC (1));
  t = 0;
  for (gint i = 1; i <= 10; i++) {
    send_cbr (cb, t, t + RTPCC_SEC (1), RTPCC_MSEC (20), 1000);
    t += RTPCC_SEC (1);
    report (cb, t, 0, i <= 5 ? 100 : 200, RTPCC_MSEC (200), 50);
  }
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_free (cb);

  /* sending paused: the sequence cannot advance, and that is no timeout */
  cb = make_cb (RTPCC_SEC (1), RTPCC_SEC (1));
  send_cbr (cb, 0, RTPCC_SEC (1), RTPCC_MSEC (20), 1000);
  report (cb, RTPCC_SEC (1), 0, 50, RTPCC_MSEC (200), 50);
  for (gint i = 2; i <= 20; i++)
    report (cb, RTPCC_SEC (i), 0, 50, RTPCC_MSEC (200), 0);
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_free (cb);

  /* the caller's count says "sent" (e.g. a cumulative counter) but we
   * sent nothing since the previous report: our own count wins */
  cb = make_cb (RTPCC_SEC (1), RTPCC_SEC (1));
  send_cbr (cb, 0, RTPCC_SEC (1), RTPCC_MSEC (20), 1000);
  report (cb, RTPCC_SEC (1), 0, 50, RTPCC_MSEC (200), 50);
  for (gint i = 2; i <= 20; i++)
    report (cb, RTPCC_SEC (i), 0, 50, RTPCC_MSEC (200), 50);
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_free (cb);

  /* another stream keeps us sending, but this SSRC is idle (0 sent in the
   * interval, as the caller reports): no timeout either */
  cb = make_cb (RTPCC_SEC (1), RTPCC_SEC (1));
  t = 0;
  for (gint i = 1; i <= 20; i++) {
    send_cbr (cb, t, t + RTPCC_SEC (1), RTPCC_MSEC (20), 1000);
    t += RTPCC_SEC (1);
    report (cb, t, 0, 50, RTPCC_MSEC (200), i == 1 ? 50 : 0);
  }
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_intervals_formula)
{
  /* CB_INTERVAL = ceil (3 min (max (10 G Tf, 10 Tr, 3 Tdr),
   *                            max (15, 3 Td)) / (3 Tdr)) */
  struct
  {
    RtpccTime td, tdr, rtt;
    guint cb_interval, media_timeout;
  } cases[] = {
    /* max (0.33, 2, 3) = 3 → 3; MEDIA_TIMEOUT ceil (5·1/1) = 5 */
    {RTPCC_SEC (1), RTPCC_SEC (1), RTPCC_MSEC (200), 3, 5},
    /* 10 Tr = 10 s → 10 reports; ceil (5·1/1) = 5 */
    {RTPCC_SEC (1), RTPCC_SEC (1), RTPCC_SEC (1), 10, 5},
    /* 10 Tr = 20 s, capped by max (15, 3) = 15 s → 15; ceil (5·2/1) = 10 */
    {RTPCC_SEC (1), RTPCC_SEC (1), RTPCC_SEC (2), 15, 10},
    /* Tdr = Td = 5 s: 3 Tdr = 15 → 3 */
    {RTPCC_SEC (5), RTPCC_SEC (5), RTPCC_MSEC (100), 3, 5},
    /* Tdr = 0.5 s, Tr 0.1 s: max (0.33, 1, 1.5) = 1.5 → 1.5/0.5 = 3 */
    {RTPCC_SEC (1), RTPCC_MSEC (500), RTPCC_MSEC (100), 3, 5},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    RtpccCircuitBreaker *cb = make_cb (cases[i].td, cases[i].tdr);
    report (cb, RTPCC_SEC (1), 0, 1, cases[i].rtt, 0);
    fail_unless_equals_int (rtpcc_circuit_breaker_get_cb_interval (cb),
        cases[i].cb_interval);
    fail_unless_equals_int (rtpcc_circuit_breaker_get_media_timeout (cb),
        cases[i].media_timeout);
    rtpcc_circuit_breaker_free (cb);
  }
}

GST_END_TEST;

/* 1 Mbit/s: 1000 B every 8 ms from t = 4 ms, so each 1 s reporting interval
 * holds exactly 125 packets; RTT 200 ms, Tdr = Td = 1 s: CB_INTERVAL = 3.
 * Simple TCP equation, s = 1000 B, R = 0.2 s (computed by hand):
 *   p = 61/256: 10 X = 1003.6 kbit/s > 1000 → benign
 *   p = 62/256: 10 X =  995.5 kbit/s < 1000 → congested */
static RtpccCircuitBreaker *
run_congestion (const guint8 * fractions, guint n, gboolean full,
    guint * tripped_at)
{
  RtpccCircuitBreakerConfig cfg;
  RtpccCircuitBreaker *cb;
  guint32 hsn = 0;

  rtpcc_circuit_breaker_config_init (&cfg);
  cfg.rtcp_interval = cfg.report_interval = RTPCC_SEC (1);
  cfg.full_equation = full;
  cb = rtpcc_circuit_breaker_new (&cfg, 0);
  *tripped_at = 0;
  for (guint i = 0; i < n; i++) {
    guint sent = send_cbr (cb, RTPCC_SEC (i) + RTPCC_MSEC (4),
        RTPCC_SEC (i + 1), RTPCC_MSEC (8), 1000);
    fail_unless_equals_int (sent, 125);
    hsn += sent;
    report (cb, RTPCC_SEC (i + 1), fractions[i], hsn, RTPCC_MSEC (200), sent);
    if (rtpcc_circuit_breaker_is_tripped (cb) && *tripped_at == 0)
      *tripped_at = i + 1;
  }
  return cb;
}

GST_START_TEST (test_congestion_threshold)
{
  guint8 f[10];
  guint at;
  RtpccCircuitBreaker *cb;

  memset (f, 62, sizeof (f));
  cb = run_congestion (f, 10, FALSE, &at);
  /* only once CB_INTERVAL = 3 reports cover the congestion */
  fail_unless_equals_int (at, 3);
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  fail_unless_equals_int (rtpcc_circuit_breaker_get_reason (cb),
      RTPCC_CB_REASON_CONGESTION);
  fail_unless (strstr (rtpcc_circuit_breaker_get_detail (cb),
          "sending 1000 kbit/s"), "%s", rtpcc_circuit_breaker_get_detail (cb));
  rtpcc_circuit_breaker_free (cb);

  memset (f, 61, sizeof (f));
  cb = run_congestion (f, 10, FALSE, &at);
  fail_unless_equals_int (at, 0);
  rtpcc_circuit_breaker_free (cb);

  /* p = 40/256: 10 X = 1239 kbit/s with the simple equation (benign) but
   * 354 kbit/s with the full one (t_RTO = 4R), which trips */
  memset (f, 40, sizeof (f));
  cb = run_congestion (f, 10, FALSE, &at);
  fail_unless_equals_int (at, 0);
  rtpcc_circuit_breaker_free (cb);
  cb = run_congestion (f, 10, TRUE, &at);
  fail_unless_equals_int (at, 3);
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_congestion_needs_persistence)
{
  /* one report with 150/256 loss then clean ones: p over the window is
   * 150/768 = 0.195, 10 X = 1108.5 kbit/s: benign. Sustained, 10 X is
   * 640 kbit/s and it trips at the third report. */
  guint8 spike[10] = { 150, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
  guint8 spike2[10] = { 0, 0, 0, 150, 0, 0, 150, 0, 0, 0 };
  guint8 sustained[10];
  guint at;
  RtpccCircuitBreaker *cb;

  cb = run_congestion (spike, 10, FALSE, &at);
  fail_unless_equals_int (at, 0);
  rtpcc_circuit_breaker_free (cb);
  cb = run_congestion (spike2, 10, FALSE, &at);
  fail_unless_equals_int (at, 0);
  rtpcc_circuit_breaker_free (cb);
  memset (sustained, 150, sizeof (sustained));
  cb = run_congestion (sustained, 10, FALSE, &at);
  fail_unless_equals_int (at, 3);
  rtpcc_circuit_breaker_free (cb);

  /* heavy loss reported while we send nothing: no sending rate to break */
  cb = make_cb (RTPCC_SEC (1), RTPCC_SEC (1));
  for (gint i = 1; i <= 10; i++)
    report (cb, RTPCC_SEC (i), 255, 10, RTPCC_MSEC (200), 0);
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_congestion_loss_weighted_by_packets)
{
  /* 250 packets at 150/256 loss, then 25 + 25 clean ones: 300 kB over 3 s
   * = 800 kbit/s. Weighted by packets p = 0.586 × 250 / 300 = 0.488,
   * 10 X = 701 kbit/s: congested. (An unweighted mean, 0.195, would give
   * 10 X = 1109 kbit/s and miss it.) */
  RtpccCircuitBreaker *cb = make_cb (RTPCC_SEC (1), RTPCC_SEC (1));
  const guint count[3] = { 250, 25, 25 };
  const guint8 fraction[3] = { 150, 0, 0 };
  guint32 hsn = 0;

  for (gint i = 0; i < 3; i++) {
    RtpccTime gap = RTPCC_SEC (1) / count[i];
    guint n = send_cbr (cb, RTPCC_SEC (i) + gap / 2, RTPCC_SEC (i + 1), gap,
        1000);
    fail_unless_equals_int (n, count[i]);
    report (cb, RTPCC_SEC (i + 1), fraction[i], hsn += n, RTPCC_MSEC (200),
        n);
    fail_unless_equals_int (rtpcc_circuit_breaker_is_tripped (cb), i == 2);
  }
  fail_unless_equals_int (rtpcc_circuit_breaker_get_reason (cb),
      RTPCC_CB_REASON_CONGESTION);
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_congestion_compound_reports)
{
  /* video (62/256) and audio (0) blocks in each compound RTCP packet: the
   * worst stream counts, and CB_INTERVAL counts packets, not blocks — so
   * it trips at the third packet (six blocks), not the second */
  RtpccCircuitBreaker *cb = make_cb (RTPCC_SEC (1), RTPCC_SEC (1));
  RtpccReceiverReport rr;
  guint32 hsn = 0;

  for (gint i = 0; i < 3; i++) {
    guint n = send_cbr (cb, RTPCC_SEC (i) + RTPCC_MSEC (4), RTPCC_SEC (i + 1),
        RTPCC_MSEC (8), 1000);
    hsn += n;
    report (cb, RTPCC_SEC (i + 1), 62, hsn, RTPCC_MSEC (200), n);
    memset (&rr, 0, sizeof (rr));
    rr.ssrc = 0xa0d10;
    rr.ext_highest_seq = hsn;
    rr.rtt = RTPCC_MSEC (200);
    rr.packets_sent_interval = 50;
    rtpcc_circuit_breaker_on_report (cb, RTPCC_SEC (i + 1), &rr);
    fail_unless_equals_int (rtpcc_circuit_breaker_is_tripped (cb), i == 2);
  }
  fail_unless_equals_int (rtpcc_circuit_breaker_get_reason (cb),
      RTPCC_CB_REASON_CONGESTION);
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_congestion_reduce_first)
{
  RtpccCircuitBreakerConfig cfg;
  RtpccCircuitBreakerStatus st;
  RtpccCircuitBreaker *cb;
  guint32 hsn = 0;

  for (gint variant = 0; variant < 2; variant++) {
    rtpcc_circuit_breaker_config_init (&cfg);
    cfg.rtcp_interval = cfg.report_interval = RTPCC_SEC (1);
    cfg.reduce_first = TRUE;
    cb = rtpcc_circuit_breaker_new (&cfg, 0);
    /* 3 s at 1 Mbit/s with p = 62/256: congested */
    run_reports (cb, 0, RTPCC_SEC (3), RTPCC_SEC (1), RTPCC_MSEC (8), 1000,
        62, &hsn);
    rtpcc_circuit_breaker_get_status (cb, &st);
    fail_unless_equals_int (st.state, RTPCC_CB_STATE_REDUCED);
    fail_unless_equals_int (st.reason, RTPCC_CB_REASON_CONGESTION);
    /* a tenth of the offending 1 Mbit/s */
    fail_unless_equals_int64 (st.rate_cap, 100000);
    fail_unless (rtpcc_circuit_breaker_is_tripped (cb));
    fail_if (rtpcc_circuit_breaker_should_stop (cb));

    if (variant == 0) {
      /* the sender obeys (100 kbit/s); same loss: 10 X = 995 kbit/s is now
       * far above the rate, so after CB_INTERVAL reports it closes */
      run_reports (cb, RTPCC_SEC (3), RTPCC_SEC (5), RTPCC_SEC (1),
          RTPCC_MSEC (80), 1000, 62, &hsn);
      fail_unless_equals_int (rtpcc_circuit_breaker_get_state (cb),
          RTPCC_CB_STATE_REDUCED);
      run_reports (cb, RTPCC_SEC (5), RTPCC_SEC (6), RTPCC_SEC (1),
          RTPCC_MSEC (80), 1000, 62, &hsn);
      fail_unless_equals_int (rtpcc_circuit_breaker_get_state (cb),
          RTPCC_CB_STATE_OK);
    } else {
      /* the sender ignores it: cease after one more CB_INTERVAL */
      run_reports (cb, RTPCC_SEC (3), RTPCC_SEC (5), RTPCC_SEC (1),
          RTPCC_MSEC (8), 1000, 62, &hsn);
      fail_if (rtpcc_circuit_breaker_should_stop (cb));
      run_reports (cb, RTPCC_SEC (5), RTPCC_SEC (6), RTPCC_SEC (1),
          RTPCC_MSEC (8), 1000, 62, &hsn);
      fail_unless (rtpcc_circuit_breaker_should_stop (cb));
      fail_unless_equals_int (rtpcc_circuit_breaker_get_reason (cb),
          RTPCC_CB_REASON_CONGESTION);
    }
    rtpcc_circuit_breaker_free (cb);
  }
}

GST_END_TEST;

/* Trips on RTCP timeout at 30 s (Td = Tdr = 5 s, last report at 15 s). */
static RtpccCircuitBreaker *
trip_by_rtcp_timeout (gboolean auto_recover)
{
  RtpccCircuitBreakerConfig cfg;
  RtpccCircuitBreaker *cb;
  guint32 hsn = 0;

  rtpcc_circuit_breaker_config_init (&cfg);
  cfg.rtcp_interval = cfg.report_interval = RTPCC_SEC (5);
  cfg.auto_recover = auto_recover;
  cb = rtpcc_circuit_breaker_new (&cfg, 0);
  for (RtpccTime t = 0; t < RTPCC_SEC (30); t += RTPCC_MSEC (20)) {
    rtpcc_circuit_breaker_on_sent (cb, t, 1000);
    if (t > 0 && t <= RTPCC_SEC (15) && t % RTPCC_SEC (5) == 0)
      report (cb, t, 0, hsn += 250, RTPCC_MSEC (100), 250);
  }
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (30));
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  return cb;
}

GST_START_TEST (test_recovery)
{
  RtpccCircuitBreakerStatus st;
  RtpccCircuitBreaker *cb = trip_by_rtcp_timeout (TRUE);
  guint64 gen;
  guint32 hsn = 10000;

  /* hold-off = the 15 s that tripped it: no restart before 45 s */
  rtpcc_circuit_breaker_get_status (cb, &st);
  fail_unless_equals_int64 (st.resume_at, RTPCC_SEC (45));
  fail_unless_equals_int (st.trips, 1);
  /* without a sign of life there is nothing to wait for */
  fail_unless_equals_int64 (rtpcc_circuit_breaker_next_tick (cb),
      RTPCC_TIME_NONE);
  report (cb, RTPCC_SEC (40), 0, hsn, RTPCC_MSEC (100), 0);
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  fail_unless_equals_int64 (rtpcc_circuit_breaker_next_tick (cb),
      RTPCC_SEC (45));
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (45) - 1);
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  gen = st.generation;
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (45));
  /* probation: media may flow again, at the minimum rate */
  fail_if (rtpcc_circuit_breaker_should_stop (cb));
  fail_unless (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_get_status (cb, &st);
  fail_unless_equals_int (st.state, RTPCC_CB_STATE_PROBATION);
  fail_unless (st.generation > gen);

  /* CB_INTERVAL (= 3 here) clean reports with progress close it */
  for (gint i = 1; i <= 3; i++) {
    guint n = send_cbr (cb, RTPCC_SEC (45 + 5 * (i - 1)),
        RTPCC_SEC (45 + 5 * i), RTPCC_MSEC (100), 1000);
    fail_unless_equals_int (rtpcc_circuit_breaker_get_state (cb),
        RTPCC_CB_STATE_PROBATION);
    report (cb, RTPCC_SEC (45 + 5 * i), 0, hsn += n, RTPCC_MSEC (100), n);
  }
  rtpcc_circuit_breaker_get_status (cb, &st);
  fail_unless_equals_int (st.state, RTPCC_CB_STATE_OK);
  fail_unless_equals_int (st.reason, RTPCC_CB_REASON_NONE);
  fail_unless_equals_int (st.trips, 0);
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_probation_needs_progress)
{
  /* restarted, but our packets still do not arrive: CB_INTERVAL (3) clean
   * reports are not enough to close without a sequence advance, and the
   * media timeout (5 stalled reports) trips again with a doubled hold-off */
  RtpccCircuitBreakerStatus st;
  RtpccCircuitBreaker *cb = trip_by_rtcp_timeout (TRUE);

  rtpcc_circuit_breaker_on_feedback (cb, RTPCC_SEC (45));
  fail_unless_equals_int (rtpcc_circuit_breaker_get_state (cb),
      RTPCC_CB_STATE_PROBATION);
  for (gint i = 1; i <= 6; i++) {
    guint n = send_cbr (cb, RTPCC_SEC (45 + 5 * (i - 1)),
        RTPCC_SEC (45 + 5 * i), RTPCC_MSEC (100), 1000);
    report (cb, RTPCC_SEC (45 + 5 * i), 0, 7777, RTPCC_MSEC (100), n);
    rtpcc_circuit_breaker_get_status (cb, &st);
    if (i < 6)
      fail_unless_equals_int (st.state, RTPCC_CB_STATE_PROBATION);
  }
  fail_unless_equals_int (st.state, RTPCC_CB_STATE_TRIPPED);
  fail_unless_equals_int (st.reason, RTPCC_CB_REASON_MEDIA_TIMEOUT);
  fail_unless_equals_int (st.trips, 2);
  /* 5 stalled reports × Tdr 5 s = 25 s, doubled */
  fail_unless_equals_int64 (st.resume_at, RTPCC_SEC (75 + 50));
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_recovery_backoff_and_manual)
{
  RtpccCircuitBreakerStatus st;
  RtpccCircuitBreaker *cb = trip_by_rtcp_timeout (TRUE);

  /* feedback arrives only late (100 s): recovery happens then, at once */
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (100));
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  rtpcc_circuit_breaker_on_feedback (cb, RTPCC_SEC (100));
  fail_unless_equals_int (rtpcc_circuit_breaker_get_state (cb),
      RTPCC_CB_STATE_PROBATION);

  /* the receiver vanishes again during probation: the timeout re-arms from
   * the restart (100 s → 115 s) and the hold-off doubles to 30 s */
  send_cbr (cb, RTPCC_SEC (100), RTPCC_SEC (115), RTPCC_MSEC (100), 1000);
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (115));
  rtpcc_circuit_breaker_get_status (cb, &st);
  fail_unless_equals_int (st.state, RTPCC_CB_STATE_TRIPPED);
  fail_unless_equals_int (st.trips, 2);
  fail_unless_equals_int64 (st.resume_at, RTPCC_SEC (145));
  rtpcc_circuit_breaker_free (cb);

  /* an empty RR (no block about our stopped media) is a sign of life for
   * recovery, but does not hold off the RTCP timeout while sending */
  cb = trip_by_rtcp_timeout (TRUE);
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (60));
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  rtpcc_circuit_breaker_on_rtcp (cb, RTPCC_SEC (60));
  fail_unless_equals_int (rtpcc_circuit_breaker_get_state (cb),
      RTPCC_CB_STATE_PROBATION);
  for (RtpccTime t = RTPCC_SEC (60); t < RTPCC_SEC (75); t += RTPCC_MSEC (100)) {
    rtpcc_circuit_breaker_on_sent (cb, t, 1000);
    rtpcc_circuit_breaker_on_rtcp (cb, t);
  }
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (75));
  fail_unless_equals_int (rtpcc_circuit_breaker_get_reason (cb),
      RTPCC_CB_REASON_RTCP_TIMEOUT);
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  rtpcc_circuit_breaker_free (cb);

  /* auto_recover = FALSE: feedback alone never restarts; reset does */
  cb = trip_by_rtcp_timeout (FALSE);
  rtpcc_circuit_breaker_on_feedback (cb, RTPCC_SEC (50));
  rtpcc_circuit_breaker_tick (cb, RTPCC_SEC (1000));
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  rtpcc_circuit_breaker_reset (cb, RTPCC_SEC (1000));
  fail_if (rtpcc_circuit_breaker_is_tripped (cb));
  fail_unless_equals_int64 (rtpcc_circuit_breaker_next_tick (cb),
      RTPCC_TIME_NONE);
  rtpcc_circuit_breaker_free (cb);
}

GST_END_TEST;

GST_START_TEST (test_media_usability_hook_and_names)
{
  RtpccCircuitBreaker *cb = make_cb (RTPCC_SEC (5), 0);

  rtpcc_circuit_breaker_media_unusable (cb, RTPCC_SEC (1), "PSNR < 20 dB");
  fail_unless (rtpcc_circuit_breaker_should_stop (cb));
  fail_unless_equals_int (rtpcc_circuit_breaker_get_reason (cb),
      RTPCC_CB_REASON_MEDIA_USABILITY);
  fail_unless (strstr (rtpcc_circuit_breaker_get_detail (cb),
          "PSNR < 20 dB") != NULL);
  rtpcc_circuit_breaker_free (cb);

  fail_unless_equals_string (rtpcc_circuit_breaker_reason_name
      (RTPCC_CB_REASON_RTCP_TIMEOUT), "rtcp-timeout");
  fail_unless_equals_string (rtpcc_circuit_breaker_reason_name
      (RTPCC_CB_REASON_MEDIA_TIMEOUT), "media-timeout");
  fail_unless_equals_string (rtpcc_circuit_breaker_reason_name
      (RTPCC_CB_REASON_CONGESTION), "congestion");
  fail_unless_equals_string (rtpcc_circuit_breaker_state_name
      (RTPCC_CB_STATE_PROBATION), "probation");
}

GST_END_TEST;

static Suite *
rtpcc_circuitbreaker_suite (void)
{
  Suite *s = suite_create ("rtpcc_circuitbreaker");
  TCase *tc = tcase_create ("breaker");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rtcp_timeout_three_intervals);
  tcase_add_test (tc, test_rtcp_timeout_benign_and_borderline);
  tcase_add_test (tc, test_rtcp_timeout_only_while_sending);
  tcase_add_test (tc, test_media_timeout);
  tcase_add_test (tc, test_intervals_formula);
  tcase_add_test (tc, test_congestion_threshold);
  tcase_add_test (tc, test_congestion_needs_persistence);
  tcase_add_test (tc, test_congestion_loss_weighted_by_packets);
  tcase_add_test (tc, test_congestion_compound_reports);
  tcase_add_test (tc, test_congestion_reduce_first);
  tcase_add_test (tc, test_probation_needs_progress);
  tcase_add_test (tc, test_recovery);
  tcase_add_test (tc, test_recovery_backoff_and_manual);
  tcase_add_test (tc, test_media_usability_hook_and_names);
  return s;
}

GST_CHECK_MAIN (rtpcc_circuitbreaker);

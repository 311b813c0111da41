/* Unit tests for the multipath playout delay (gst/rtpcc/mprtp/skew.[ch]):
 * the thesis' formulas on hand-computed sequences, the Drift Window's two
 * limits, the path's drift as the sum of its PacketSkews, the settling
 * after a skew step, the live window, timestamp wrap, bad input.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)
/* 90 kHz ticks of @ms milliseconds */
#define TICKS(ms) ((guint32) ((ms) * 90))

static RtpccMprtpSkew *
new_skew_at (guint ref_rate)
{
  RtpccMprtpSkewConfig c;

  rtpcc_mprtp_skew_config_init (&c);
  c.ref_rate = ref_rate;
  return rtpcc_mprtp_skew_new (&c);
}

/* The thesis' filters as published: weights per packet. */
static RtpccMprtpSkew *
new_skew (void)
{
  return new_skew_at (0);
}

GST_START_TEST (test_formulas)
{
  /* (150 − 100) − (40 − 0) = 10 ms */
  fail_unless_equals_int64 (rtpcc_mprtp_packet_skew (MS (100), 0, MS (150),
          MS (40)), MS (10));
  /* consecutive packets spaced as sent: no skew; closer: negative */
  fail_unless_equals_int64 (rtpcc_mprtp_packet_skew (MS (100), MS (20),
          MS (120), MS (40)), 0);
  fail_unless_equals_int64 (rtpcc_mprtp_packet_skew (MS (100), MS (20),
          MS (110), MS (40)), -MS (10));
  /* 0.01·200 + 0.99·100 = 101 */
  fail_unless (fabs (rtpcc_mprtp_path_skew_next (100.0, 200.0) - 101.0) <
      1e-9);
  /* (125 + 124·0)/125 = 1; (0 + 124·125)/125 = 124 */
  fail_unless (fabs (rtpcc_mprtp_playout_delay_next (0.0, 125.0) - 1.0) <
      1e-12);
  fail_unless (fabs (rtpcc_mprtp_playout_delay_next (125.0, 0.0) - 124.0) <
      1e-12);
}

GST_END_TEST;

static void
push_expect (RtpccMprtpSkew * s, RtpccTime now, guint path, guint32 ts,
    RtpccTime skew, RtpccTime drift, RtpccTime median, gdouble delay_ms)
{
  RtpccMprtpSkewSample x;

  fail_unless (rtpcc_mprtp_skew_push (s, now, path, ts, &x));
  fail_unless_equals_int64 (x.packet_skew, skew);
  fail_unless_equals_int64 (x.drift, drift);
  fail_unless_equals_int64 (x.median, median);
  fail_unless (fabs (rtpcc_mprtp_skew_get_playout_delay (s) - delay_ms * 1e6)
      < 1e-3, "delay %.9f ms, want %.9f",
      rtpcc_mprtp_skew_get_playout_delay (s) / 1e6, delay_ms);
}

/* Two paths, 50 and 80 ms one-way, one packet every 10 ms alternating,
 * then a packet 5 ms late on path 0. Every value by hand. */
GST_START_TEST (test_hand_computed)
{
  RtpccMprtpSkew *s = new_skew ();
  gdouble ps;

  /* p0, ts 0 at 50: the stream's first packet, the origin: all 0 */
  push_expect (s, MS (50), 0, 0, 0, 0, 0, 0.0);
  /* p1, ts 10 at 90: its path's first, against the stream's previous
   * (50, 0): (90 − 50) − (10 − 0) = 30; PathSkew1 = 30 (the median);
   * SW max 30: (30 + 124·0)/125 = 0.24 */
  push_expect (s, MS (90), 1, TICKS (10), MS (30), MS (30), MS (30), 0.24);
  fail_unless (rtpcc_mprtp_skew_get_path_skew (s, 1, &ps));
  fail_unless (fabs (ps - 30e6) < 1e-6);
  /* p0, ts 20 at 70: (70 − 50) − (20 − 0) = 0; (30 + 124·0.24)/125 */
  push_expect (s, MS (70), 0, TICKS (20), 0, 0, 0, 0.47808);
  /* p1, ts 30 at 110: (110 − 90) − (30 − 10) = 0, drift stays 30;
   * PathSkew1 = 0.01·30 + 0.99·30 = 30; (30 + 124·0.47808)/125 */
  push_expect (s, MS (110), 1, TICKS (30), 0, MS (30), MS (30), 0.71425536);
  fail_unless_equals_int64 ((gint64) llround (rtpcc_mprtp_skew_get_deviation
          (s)), 0);
  /* p0, ts 40 at 95 (5 ms late): (95 − 70) − (40 − 20) = 5; DW {0, 0, 5},
   * median 0, PathSkew0 = 0; (30 + 124·0.71425536)/125 = 0.948541317;
   * v = (|5 − 0| + 124·0)/125 = 0.04 ms; target = delay + 4 v */
  push_expect (s, MS (95), 0, TICKS (40), MS (5), MS (5), 0, 0.94854131712);
  fail_unless (fabs (rtpcc_mprtp_skew_get_deviation (s) - 0.04e6) < 1e-6);
  fail_unless_equals_int64 (rtpcc_mprtp_skew_get_target (s),
      llround (0.94854131712e6 + 0.16e6));
  /* due: media time + the first packet's transit (50 ms) + target */
  fail_unless_equals_int64 (rtpcc_mprtp_skew_due (s, TICKS (60), MS (7)),
      MS (60) + MS (50) + MS (7));
  /* PathSkew of a path never seen */
  fail_if (rtpcc_mprtp_skew_get_path_skew (s, 2, &ps));
  rtpcc_mprtp_skew_free (s);
}

GST_END_TEST;

/* A path's drift, the sum of its consecutive PacketSkews, is its transit
 * over the stream's first packet's: exactly, in integer ns, on three
 * paths with jitter and late starts, across an RTP timestamp wrap. */
GST_START_TEST (test_drift_telescopes)
{
  RtpccMprtpSkew *s = new_skew ();
  RtpccRng rng;
  RtpccTime now = MS (1000), first_transit = RTPCC_TIME_NONE;
  guint32 ts0 = 0xFFFFFFFFu - TICKS (500);

  rtpcc_rng_init (&rng, 7);
  for (guint i = 0; i < 3000; i++) {
    guint path = i < 200 ? 0 : (guint) rtpcc_rng_below (&rng, 3);
    RtpccTime media = MS (10) * i;
    RtpccTime transit = MS (40) + MS (60) * path +
        (RtpccTime) rtpcc_rng_below (&rng, MS (15));
    RtpccMprtpSkewSample x;

    now = MS (1000) + media + transit;
    fail_unless (rtpcc_mprtp_skew_push (s, now, path, ts0 + TICKS (10 * i),
            &x));
    if (first_transit == RTPCC_TIME_NONE)
      first_transit = transit;
    fail_unless_equals_int64 (x.drift, transit - first_transit);
  }
  rtpcc_mprtp_skew_free (s);
}

GST_END_TEST;

/* The Drift Window is min(2 s of media, 100 packets): at 10 packets/s it
 * holds the 21 packets of the last 2 s; at 1000/s the last 100. A run of
 * packets 100 ms late moves the median once it is the majority. */
GST_START_TEST (test_drift_window_limits)
{
  for (guint pass = 0; pass < 2; pass++) {
    RtpccMprtpSkew *s = new_skew ();
    guint spacing_ms = pass == 0 ? 100 : 1;
    guint window = pass == 0 ? 21 : 100;
    RtpccMprtpSkewSample x;
    guint i;

    for (i = 0; i < 200; i++)
      rtpcc_mprtp_skew_push (s, MS (50) + MS (spacing_ms) * i, 0,
          TICKS (spacing_ms * i), &x);
    fail_unless_equals_int64 (x.median, 0);
    for (guint late = 1; late <= window; late++, i++) {
      rtpcc_mprtp_skew_push (s, MS (150) + MS (spacing_ms) * i, 0,
          TICKS (spacing_ms * i), &x);
      fail_unless_equals_int64 (x.drift, MS (100));
      if (2 * late < window)
        fail_unless (x.median == 0, "pass %u late %u", pass, late);
      else if (2 * late == window)
        fail_unless (x.median == MS (50), "pass %u late %u", pass, late);
      else
        fail_unless (x.median == MS (100), "pass %u late %u", pass, late);
    }
    rtpcc_mprtp_skew_free (s);
  }
}

GST_END_TEST;

/* A 0 → 150 ms step on one of two paths at @pps packets/s in all,
 * alternating: seconds until PlayoutDelay is within 10 % of the step. */
static gdouble
skew_step_settling (guint ref_rate, guint pps)
{
  RtpccMprtpSkew *s = new_skew_at (ref_rate);
  RtpccTime step = RTPCC_SEC (20), settled = RTPCC_TIME_NONE;
  RtpccTime spacing = RTPCC_SEC (1) / pps;
  gdouble final;

  for (guint i = 0; i < 60 * pps; i++) {
    RtpccTime media = spacing * i;
    guint path = i % 2;
    RtpccTime d = MS (40) + (path == 1 && media >= step ? MS (150) : 0);

    rtpcc_mprtp_skew_push (s, media + d, path,
        (guint32) (media * 90000 / RTPCC_NSEC_PER_SEC), NULL);
    if (media >= step && settled == RTPCC_TIME_NONE &&
        rtpcc_mprtp_skew_get_playout_delay (s) >= 0.9 * MS (150))
      settled = media - step;
  }
  final = rtpcc_mprtp_skew_get_playout_delay (s);
  fail_unless (fabs (final - MS (150)) < MS (1), "final %.3f ms", final / 1e6);
  fail_unless (settled != RTPCC_TIME_NONE);
  rtpcc_mprtp_skew_free (s);
  return RTPCC_TIME_AS_SEC (settled);
}

/* The published filters at 100 packets/s (50 per path): within 10 % of
 * the step after (by their arithmetic) 1 s for the Drift Window's median
 * to flip + ln(10)/−ln(0.99) = 229 path packets (4.6 s) for PathSkew + the
 * 1/125 playout filter's lag (125 packets, 1.25 s): about 7 s. Singh's
 * thesis reports about 3 s at the packet rate of its video; per packet,
 * the time scales with 1/packet rate. */
GST_START_TEST (test_skew_step_settling)
{
  gdouble settled = skew_step_settling (0, 100);

  g_print ("skew step 0->150 ms at 100 packets/s, per-packet filters: "
      "within 10 %% after %.2f s\n", settled);
  fail_unless (settled >= 6.5 && settled <= 8.0, "%.3f s", settled);
}

GST_END_TEST;

/* Time-weighted filters (the default, reference 250 packets/s): at 100
 * and 50 packets/s they settle about as fast as at 250 (the Drift
 * Window's median, min(2 s, 100 packets), is what still depends on the
 * rate), where the per-packet ones take 2.5 and 5 times as long. */
GST_START_TEST (test_skew_step_time_weighted)
{
  gdouble at_ref = skew_step_settling (250, 250);
  gdouble published_at_ref = skew_step_settling (0, 250);
  gdouble at_100 = skew_step_settling (250, 100);
  gdouble at_50 = skew_step_settling (250, 50);
  gdouble published_50 = skew_step_settling (0, 50);

  g_print ("skew step 0->150 ms, time-weighted filters: within 10 %% after "
      "%.2f s at 250 packets/s (per packet: %.2f), %.2f s at 100, %.2f s at "
      "50 (per packet: %.2f)\n", at_ref, published_at_ref, at_100, at_50,
      published_50);
  fail_unless (at_ref <= 3.5, "%.3f s", at_ref);
  fail_unless (published_at_ref <= 3.5, "%.3f s", published_at_ref);
  fail_unless (at_100 <= 3.5, "%.3f s", at_100);
  fail_unless (at_50 <= 4.0, "%.3f s", at_50);
  fail_unless (published_50 > 2.5 * at_50, "%.3f vs %.3f", published_50,
      at_50);
}

GST_END_TEST;

/* Packets arriving evenly at the reference rate (two paths taking turns,
 * the drifts varied through jittered timestamps): the time-weighted
 * filters are the published ones, packet for packet. */
GST_START_TEST (test_time_weighted_is_published_at_ref)
{
  RtpccMprtpSkew *a = new_skew_at (250), *b = new_skew ();
  RtpccRng rng;

  rtpcc_rng_init (&rng, 11);
  for (guint i = 0; i < 5000; i++) {
    RtpccTime now = RTPCC_SEC (1) + MS (4) * i;
    guint path = i % 2;
    RtpccTime sent = now - MS (40) - (path ? MS (30) : 0) -
        (RtpccTime) rtpcc_rng_below (&rng, MS (20));
    guint32 ts = (guint32) (sent * 90000 / RTPCC_NSEC_PER_SEC);
    gdouble da, db;

    rtpcc_mprtp_skew_push (a, now, path, ts, NULL);
    rtpcc_mprtp_skew_push (b, now, path, ts, NULL);
    da = rtpcc_mprtp_skew_get_playout_delay (a);
    db = rtpcc_mprtp_skew_get_playout_delay (b);
    fail_unless (fabs (da - db) <= 1e-6 * MAX (fabs (db), 1.0),
        "packet %u: %.9f vs %.9f ms", i, da / 1e6, db / 1e6);
    da = rtpcc_mprtp_skew_get_deviation (a);
    db = rtpcc_mprtp_skew_get_deviation (b);
    fail_unless (fabs (da - db) <= 1e-6 * MAX (fabs (db), 1.0),
        "packet %u: v %.9f vs %.9f ms", i, da / 1e6, db / 1e6);
  }
  rtpcc_mprtp_skew_free (a);
  rtpcc_mprtp_skew_free (b);
}

GST_END_TEST;

/* A slow path that stops leaves the Skew Window after live_window (2 s):
 * the playout delay then falls back towards the live path's skew. */
GST_START_TEST (test_live_window)
{
  RtpccMprtpSkew *s = new_skew ();
  RtpccTime stop = RTPCC_SEC (30);
  gdouble at_stop = 0, at_2s = 0;

  for (guint i = 0; i < 6000; i++) {
    RtpccTime media = MS (10) * i;
    guint path = i % 2;

    if (path == 1 && media >= stop)
      continue;
    rtpcc_mprtp_skew_push (s, media + MS (40) + (path ? MS (100) : 0), path,
        TICKS (10 * i), NULL);
    if (media < stop)
      at_stop = rtpcc_mprtp_skew_get_playout_delay (s);
    else if (media <= stop + RTPCC_SEC (2))
      at_2s = rtpcc_mprtp_skew_get_playout_delay (s);
  }
  fail_unless (fabs (at_stop - MS (100)) < MS (1));
  /* within the live window the dead path still counts */
  fail_unless (fabs (at_2s - MS (100)) < MS (1), "%.3f", at_2s / 1e6);
  /* 28 s later only path 0 (skew 0) is left */
  fail_unless (rtpcc_mprtp_skew_get_playout_delay (s) < MS (1));
  rtpcc_mprtp_skew_free (s);
}

GST_END_TEST;

GST_START_TEST (test_bad_input)
{
  RtpccMprtpSkewConfig c;
  RtpccMprtpSkew *s;

  rtpcc_mprtp_skew_config_init (&c);
  c.clock_rate = 0;
  fail_unless (rtpcc_mprtp_skew_new (&c) == NULL);
  rtpcc_mprtp_skew_config_init (&c);
  c.dw_packets = 0;
  fail_unless (rtpcc_mprtp_skew_new (&c) == NULL);
  c.dw_packets = 1001;
  fail_unless (rtpcc_mprtp_skew_new (&c) == NULL);
  fail_unless (rtpcc_mprtp_skew_new (NULL) == NULL);
  rtpcc_mprtp_skew_config_init (&c);
  s = rtpcc_mprtp_skew_new (&c);
  fail_unless_equals_int64 (rtpcc_mprtp_skew_due (s, 0, 0), RTPCC_TIME_NONE);
  fail_if (rtpcc_mprtp_skew_push (s, 0, RTPCC_MPRTP_MAX_PATHS, 0, NULL));
  fail_unless (rtpcc_mprtp_skew_push (s, 0, 0, 0, NULL));
  rtpcc_mprtp_skew_reset (s);
  fail_unless_equals_int64 (rtpcc_mprtp_skew_due (s, 0, 0), RTPCC_TIME_NONE);
  rtpcc_mprtp_skew_free (s);
  rtpcc_mprtp_skew_free (NULL);
}

GST_END_TEST;

/* The median comes from a sorted copy of the Drift Window kept up to date
 * packet by packet: it must equal sorting the window's drifts afresh, on
 * random arrivals over three paths (jitter, gaps longer than the 2 s span,
 * ties). */
static int
cmp_i64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

GST_START_TEST (test_median_same_as_sorting)
{
  RtpccMprtpSkew *s = new_skew ();
  RtpccRng rng;
  /* per path: the drifts and media times pushed so far */
  GArray *drift[3], *mt[3];
  RtpccTime now = MS (100);
  guint32 ts = 0;

  rtpcc_rng_init (&rng, 7);
  for (guint k = 0; k < 3; k++) {
    drift[k] = g_array_new (FALSE, FALSE, sizeof (gint64));
    mt[k] = g_array_new (FALSE, FALSE, sizeof (gint64));
  }
  for (guint i = 0; i < 50000; i++) {
    guint k = rtpcc_rng_below (&rng, 3);
    RtpccMprtpSkewSample x;
    gint64 w[100];
    guint n = 0;
    gint64 median, media;

    /* mostly 10 ms apart, sometimes a 3 s pause; jitter in whole ms so
     * that equal drifts occur */
    ts += TICKS (rtpcc_rng_below (&rng, 500) == 0 ? 3000 : 10);
    now += MS (10) + (rtpcc_rng_below (&rng, 500) == 0 ? MS (3000) : 0);
    /* (+ 0-2 ns: odd differences, for the even window's mean) */
    fail_unless (rtpcc_mprtp_skew_push (s, now + MS (rtpcc_rng_below (&rng,
                    40)) + MS (30) * k + (RtpccTime) rtpcc_rng_below (&rng, 3),
            k, ts, &x));
    media = (gint64) (ts / 90) * RTPCC_MSEC (1);
    g_array_append_val (drift[k], x.drift);
    g_array_append_val (mt[k], media);
    /* the naive window: the newest ones within 2 s of media, at most 100 */
    for (guint j = drift[k]->len; j > 0 && n < 100; j--) {
      if (n > 0 && media - g_array_index (mt[k], gint64, j - 1) > RTPCC_SEC (2))
        break;
      w[n++] = g_array_index (drift[k], gint64, j - 1);
    }
    qsort (w, n, sizeof (gint64), cmp_i64);
    median = n % 2 ? w[n / 2] : w[n / 2 - 1] + (w[n / 2] - w[n / 2 - 1]) / 2;
    fail_unless (x.median == median, "packet %u: %" G_GINT64_FORMAT " != %"
        G_GINT64_FORMAT, i, x.median, median);
  }
  for (guint k = 0; k < 3; k++) {
    g_array_unref (drift[k]);
    g_array_unref (mt[k]);
  }
  rtpcc_mprtp_skew_free (s);
}

GST_END_TEST;

static Suite *
rtpcc_mprtp_skew_suite (void)
{
  Suite *s = suite_create ("rtpcc_mprtp_skew");
  TCase *tc = tcase_create ("skew");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formulas);
  tcase_add_test (tc, test_hand_computed);
  tcase_add_test (tc, test_drift_telescopes);
  tcase_add_test (tc, test_drift_window_limits);
  tcase_add_test (tc, test_skew_step_settling);
  tcase_add_test (tc, test_skew_step_time_weighted);
  tcase_add_test (tc, test_time_weighted_is_published_at_ref);
  tcase_add_test (tc, test_live_window);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_median_same_as_sorting);
  return s;
}

GST_CHECK_MAIN (rtpcc_mprtp_skew);

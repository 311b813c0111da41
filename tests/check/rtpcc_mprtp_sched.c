/* Unit tests for the multipath scheduler (gst/rtpcc/mprtp/sched.[ch]):
 * one path is a passthrough; the equal start and the rate-weighted split;
 * path classes interval by interval with the hysteresis; subflow reports;
 * the latency bound, latency groups and the requirement; key frames and
 * retransmissions; failure drained at the computed instant and careful
 * re-admission; never a drop.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include "mprtp-util.h"
#include <math.h>

#define MS(x) RTPCC_MSEC (x)
#define PKT 1200

static void
feedback (RtpccMprtpSched * s, guint path, RtpccTime now, RtpccTime srtt,
    gboolean progress)
{
  RtpccMprtpFeedbackInfo f = { srtt, MS (1), progress };
  rtpcc_mprtp_sched_on_feedback (s, path, now, &f);
}

/* Count where @n equal packets go, one every @gap from @t. */
static void
picks (RtpccMprtpSched * s, RtpccTime t, RtpccTime gap, guint n,
    RtpccMprtpPacketFlags flags, guint * count)
{
  for (guint i = 0; i < n; i++)
    count[rtpcc_mprtp_sched_pick (s, t + gap * i, PKT, flags)]++;
}

/* One path: every packet on it whatever it is, the encoder gets exactly
 * the controller's rate, and nothing the multipath rules do applies. */
GST_START_TEST (test_single_path_passthrough)
{
  RtpccMprtpSched *s = new_sched (1, NULL);
  guint count[1] = { 0 };

  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s), 0);
  rtpcc_mprtp_sched_set_rate (s, 0, 0, 777777);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s), 777777);
  picks (s, 0, MS (1), 100, RTPCC_MPRTP_PACKET_MEDIA, count);
  picks (s, 0, MS (1), 10, RTPCC_MPRTP_PACKET_KEYFRAME, count);
  picks (s, 0, MS (1), 10, RTPCC_MPRTP_PACKET_RETRANSMISSION, count);
  fail_unless_equals_int (count[0], 120);
  /* congestion, discards, a latency far over the bound, silence */
  for (guint k = 0; k < 5; k++)
    rtpcc_mprtp_sched_on_interval (s, 0, RTPCC_SEC (k + 1), 100, 10, 10);
  feedback (s, 0, RTPCC_SEC (6), RTPCC_SEC (3), FALSE);
  rtpcc_mprtp_sched_tick (s, RTPCC_SEC (60));
  fail_unless_equals_int64 (rtpcc_mprtp_sched_next_timeout (s),
      RTPCC_TIME_NONE);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s), 777777);
  fail_unless_equals_int (rtpcc_mprtp_sched_pick (s, RTPCC_SEC (60), PKT, 0),
      0);
  fail_unless_equals_int (info (s, 0).state, RTPCC_MPRTP_PATH_ACTIVE);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* Before any rate: an equal split. With rates: the split follows them
 * to the packet (start-time fair queueing), whatever the spacing. */
GST_START_TEST (test_split)
{
  RtpccMprtpSched *s = new_sched (3, NULL);
  guint count[3] = { 0 };

  picks (s, 0, MS (50), 300, 0, count);
  fail_unless_equals_int (count[0], 100);
  fail_unless_equals_int (count[1], 100);
  fail_unless_equals_int (count[2], 100);

  rtpcc_mprtp_sched_set_rate (s, 0, 0, 1500000);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, 500000);
  rtpcc_mprtp_sched_set_rate (s, 2, 0, 1000000);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      3000000);
  count[0] = count[1] = count[2] = 0;
  picks (s, RTPCC_SEC (20), MS (1), 600, 0, count);
  fail_unless_equals_int (count[0], 300);
  fail_unless_equals_int (count[1], 100);
  fail_unless_equals_int (count[2], 200);
  /* a sparse stream (packets far apart) splits the same way */
  count[0] = count[1] = count[2] = 0;
  picks (s, RTPCC_SEC (30), MS (100), 600, 0, count);
  fail_unless_equals_int (count[0], 300);
  fail_unless_equals_int (count[1], 100);
  fail_unless_equals_int (count[2], 200);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* Path 1's class and share, and how a 1 Mbit/s requirement is spread
 * over two paths allowing 1 Mbit/s each: by rate × share, so path 1 gets
 * 1M × share / (1 + share). */
static void
expect (RtpccMprtpSched * s, RtpccMprtpPathClass k, guint run, gdouble share)
{
  RtpccMprtpPathInfo i = info (s, 1);
  guint64 p1 = (guint64) llround (1e6 * share / (1.0 + share));

  fail_unless_equals_int (i.klass, k);
  fail_unless_equals_int (i.congested_run, run);
  fail_unless (fabs (i.share - share) < 1e-9, "share %f want %f", i.share,
      share);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1000000);
  fail_unless (info (s, 1).allowed + 1 >= p1 && info (s, 1).allowed <= p1 + 1,
      "allowed %" G_GUINT64_FORMAT " want %" G_GUINT64_FORMAT,
      info (s, 1).allowed, p1);
  fail_unless (info (s, 0).allowed + info (s, 1).allowed >= 999999
      && info (s, 0).allowed + info (s, 1).allowed <= 1000001);
}

/* Path 1's classes, interval by interval: a share taken at once, handed
 * back by 0.1 per clean interval; the 1 Mbit/s requirement follows the
 * shares. */
GST_START_TEST (test_classes_one_by_one)
{
  RtpccMprtpSchedConfig c;
  RtpccMprtpSched *s;
  RtpccTime t = 0;
  const guint64 M = 1000000;

  rtpcc_mprtp_sched_config_init (&c);
  c.media_max = M;
  s = new_sched (2, &c);
  rtpcc_mprtp_sched_set_rate (s, 0, 0, M);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, M);
  {
    /* interval (expected, lost, discarded) -> class, run, share */
    static const struct
    {
      guint64 expected, lost, discarded;
      RtpccMprtpPathClass klass;
      guint run;
      gdouble share;
    } steps[] = {
      {100, 0, 0, RTPCC_MPRTP_CLASS_NON_CONGESTED, 0, 1.0},
      {100, 2, 0, RTPCC_MPRTP_CLASS_LOSSY, 0, 0.75},
      {100, 2, 1, RTPCC_MPRTP_CLASS_MILDLY_CONGESTED, 1, 0.5},
      /* discards without loss: the playout catching up, not congestion */
      {100, 0, 1, RTPCC_MPRTP_CLASS_NON_CONGESTED, 0, 0.6},
      /* losses and discards three intervals in a row */
      {100, 1, 1, RTPCC_MPRTP_CLASS_MILDLY_CONGESTED, 1, 0.5},
      {100, 1, 2, RTPCC_MPRTP_CLASS_MILDLY_CONGESTED, 2, 0.5},
      {100, 1, 1, RTPCC_MPRTP_CLASS_CONGESTED, 3, 0.25},
      {100, 1, 1, RTPCC_MPRTP_CLASS_CONGESTED, 4, 0.25},
      /* nothing expected: nothing learnt */
      {0, 0, 0, RTPCC_MPRTP_CLASS_CONGESTED, 4, 0.25},
      /* losses alone end the run; the share climbs back only a step */
      {100, 3, 0, RTPCC_MPRTP_CLASS_LOSSY, 0, 0.35},
    };
    for (guint i = 0; i < G_N_ELEMENTS (steps); i++) {
      rtpcc_mprtp_sched_on_interval (s, 1, t += RTPCC_SEC (1),
          steps[i].expected, steps[i].lost, steps[i].discarded);
      expect (s, steps[i].klass, steps[i].run, steps[i].share);
    }
  }
  for (guint k = 0; k < 7; k++) {
    rtpcc_mprtp_sched_on_interval (s, 1, t += RTPCC_SEC (1), 100, 0, 0);
    expect (s, RTPCC_MPRTP_CLASS_NON_CONGESTED, 0, MIN (1.0, 0.45 + 0.1 * k));
  }
  /* path 0 untouched throughout */
  fail_unless_equals_int (info (s, 0).klass, RTPCC_MPRTP_CLASS_NON_CONGESTED);
  /* the split follows: 4 packets of 5 on path 0 at share 1 vs 0.25 */
  rtpcc_mprtp_sched_on_interval (s, 0, t, 100, 0, 0);
  rtpcc_mprtp_sched_on_interval (s, 1, t += RTPCC_SEC (1), 100, 5, 5);
  rtpcc_mprtp_sched_on_interval (s, 1, t += RTPCC_SEC (1), 100, 5, 5);
  rtpcc_mprtp_sched_on_interval (s, 1, t += RTPCC_SEC (1), 100, 5, 5);
  expect (s, RTPCC_MPRTP_CLASS_CONGESTED, 3, 0.25);
  {
    guint count[2] = { 0 };
    picks (s, t, MS (1), 500, 0, count);
    fail_unless_equals_int (count[0], 400);
    fail_unless_equals_int (count[1], 100);
  }
  rtpcc_mprtp_sched_free (s);

  /* No requirement (an adaptive encoder): the paths' controllers set the
   * rates; a class does not cut a path below its controller's rate. */
  s = new_sched (2, NULL);
  rtpcc_mprtp_sched_set_rate (s, 0, 0, M);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, M);
  for (guint k = 0; k < 5; k++)
    rtpcc_mprtp_sched_on_interval (s, 1, RTPCC_SEC (k + 1), 100, 5, 5);
  fail_unless_equals_int (info (s, 1).klass, RTPCC_MPRTP_CLASS_CONGESTED);
  fail_unless_equals_uint64 (info (s, 1).allowed, M);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s), 2 * M);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

static void
report (RtpccMprtpSubflowReport * r, guint32 high, gint32 cum, guint32 disc)
{
  memset (r, 0, sizeof (*r));
  r->rr.ext_highest_seq = high;
  r->rr.cumulative_lost = cum;
  r->has_discards = TRUE;
  r->discards = disc;
}

/* Subflow reports become intervals by difference; the first primes. */
GST_START_TEST (test_reports)
{
  RtpccMprtpSched *s = new_sched (2, NULL);
  RtpccMprtpSubflowReport r;

  rtpcc_mprtp_sched_set_rate (s, 0, 0, 1000000);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, 1000000);
  report (&r, 65530, 10, 4);
  fail_unless (rtpcc_mprtp_sched_on_report (s, 1, RTPCC_SEC (1), &r));
  fail_unless_equals_int (info (s, 1).klass,
      RTPCC_MPRTP_CLASS_NON_CONGESTED);
  /* across the 16-bit wrap of the FSSN: 100 expected, 3 lost */
  report (&r, 65630, 13, 4);
  fail_unless (rtpcc_mprtp_sched_on_report (s, 1, RTPCC_SEC (2), &r));
  fail_unless_equals_int (info (s, 1).klass, RTPCC_MPRTP_CLASS_LOSSY);
  report (&r, 65730, 14, 6);
  fail_unless (rtpcc_mprtp_sched_on_report (s, 1, RTPCC_SEC (3), &r));
  fail_unless_equals_int (info (s, 1).klass,
      RTPCC_MPRTP_CLASS_MILDLY_CONGESTED);
  /* a stale report (going backwards) is refused and changes nothing */
  report (&r, 65700, 20, 9);
  fail_if (rtpcc_mprtp_sched_on_report (s, 1, RTPCC_SEC (4), &r));
  fail_unless_equals_int (info (s, 1).congested_run, 1);
  /* duplicates (cumulative loss falling) are no loss */
  report (&r, 65830, 11, 6);
  fail_unless (rtpcc_mprtp_sched_on_report (s, 1, RTPCC_SEC (5), &r));
  fail_unless_equals_int (info (s, 1).klass,
      RTPCC_MPRTP_CLASS_NON_CONGESTED);
  fail_if (rtpcc_mprtp_sched_on_report (s, 7, RTPCC_SEC (5), &r));
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* A path whose one-way latency (srtt/2) + the 100 ms playout margin
 * exceeds 500 ms is passive (no media, no rate in the encoder's); when it
 * comes back under the bound it is re-admitted at 10 %. */
GST_START_TEST (test_latency_bound)
{
  RtpccMprtpSched *s = new_sched (2, NULL);
  guint count[2] = { 0 };
  RtpccTime t = RTPCC_SEC (1);

  rtpcc_mprtp_sched_set_rate (s, 0, 0, 1000000);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, 1000000);
  feedback (s, 0, t, MS (100), TRUE);
  feedback (s, 1, t, MS (800), TRUE);      /* 400 + 100 = 500: still in */
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_int64 (info (s, 1).latency, MS (400));
  feedback (s, 1, t, MS (802), TRUE);      /* 401 + 100 > 500 */
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_PASSIVE);
  fail_unless_equals_uint64 (info (s, 1).allowed, 0);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1000000);
  picks (s, t, MS (1), 100, 0, count);
  picks (s, t, MS (1), 10, RTPCC_MPRTP_PACKET_KEYFRAME, count);
  picks (s, t, MS (1), 10, RTPCC_MPRTP_PACKET_RETRANSMISSION, count);
  fail_unless_equals_int (count[0], 120);
  /* back under the bound: active again, at the re-admission share */
  feedback (s, 1, t + MS (500), MS (300), TRUE);
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_uint64 (info (s, 1).ramp, 100000);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1100000);
  rtpcc_mprtp_sched_on_interval (s, 1, t + RTPCC_SEC (1), 10, 0, 0);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1200000);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* The limits changed while the call runs: the requirement caps the
 * encoder rate at once and lifts it again; a lower latency bound leaves
 * out the path beyond it; an invalid bound changes nothing. */
GST_START_TEST (test_limits_while_running)
{
  RtpccMprtpSched *s = new_sched (2, NULL);

  rtpcc_mprtp_sched_set_rate (s, 0, 0, 1000000);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, 1000000);
  /* one-way latencies 20 and 150 ms */
  feedback (s, 0, MS (100), MS (40), TRUE);
  feedback (s, 1, MS (100), MS (300), TRUE);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      2000000);
  fail_unless (rtpcc_mprtp_sched_set_limits (s, MS (200), 500000, MS (500),
          RTPCC_SEC (1)));
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s), 500000);
  /* 150 + 100 ms of playout margin > 200 ms: path 1 out */
  fail_unless (rtpcc_mprtp_sched_set_limits (s, MS (300), 0, MS (200),
          RTPCC_SEC (1)));
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1000000);
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_PASSIVE);
  fail_if (rtpcc_mprtp_sched_set_limits (s, MS (400), 300000, 0,
          RTPCC_SEC (1)));
  fail_if (rtpcc_mprtp_sched_set_limits (s, MS (400), 300000, MS (500),
          -1));
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1000000);
  fail_unless (rtpcc_mprtp_sched_set_limits (s, MS (500), 0, MS (500),
          RTPCC_SEC (1)));
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_ACTIVE);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* One path with a requirement (mprtpsched max-bitrate): the encoder gets
 * the controller's rate, never more than the requirement. */
GST_START_TEST (test_single_path_requirement)
{
  RtpccMprtpSchedConfig c;
  RtpccMprtpSched *s;

  rtpcc_mprtp_sched_config_init (&c);
  c.media_max = 600000;
  s = new_sched (1, &c);
  rtpcc_mprtp_sched_set_rate (s, 0, 0, 400000);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s), 400000);
  rtpcc_mprtp_sched_set_rate (s, 0, MS (10), 900000);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s), 600000);
  fail_unless_equals_int (rtpcc_mprtp_sched_pick (s, MS (20), PKT, 0), 0);
  rtpcc_mprtp_sched_free (s);
}
GST_END_TEST;

/* Groups of similar latency, ordered by capacity/latency, taken until
 * the requirement is met; the rest passive. */
GST_START_TEST (test_groups_and_requirement)
{
  RtpccMprtpSchedConfig c;
  RtpccMprtpSched *s;

  rtpcc_mprtp_sched_config_init (&c);
  c.media_max = 1500000;
  s = new_sched (3, &c);
  for (guint i = 0; i < 3; i++)
    rtpcc_mprtp_sched_set_rate (s, i, 0, 1000000);
  feedback (s, 0, MS (10), MS (40), TRUE);     /* 20 ms */
  feedback (s, 1, MS (10), MS (60), TRUE);     /* 30 ms: same group */
  feedback (s, 2, MS (10), MS (400), TRUE);    /* 200 ms */
  /* the first group gives 2 Mbit/s >= 1.5: the third is not needed */
  fail_unless_equals_int (info (s, 0).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_int (info (s, 2).state, RTPCC_MPRTP_PATH_PASSIVE);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1500000);
  /* the near group shrinks to 1 Mbit/s: the far one is needed too; it
   * comes in carefully, at 10 % of its rate, 0.1 more per clean interval */
  rtpcc_mprtp_sched_set_rate (s, 0, MS (20), 500000);
  rtpcc_mprtp_sched_set_rate (s, 1, MS (20), 500000);
  fail_unless_equals_int (info (s, 2).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1100000);
  for (guint k = 0; k < 3; k++)
    rtpcc_mprtp_sched_on_interval (s, 2, RTPCC_SEC (k + 1), 10, 0, 0);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1400000);
  rtpcc_mprtp_sched_on_interval (s, 2, RTPCC_SEC (4), 10, 0, 0);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1500000);
  /* capacity/latency orders the groups: 30 Mbit/s at 200 ms (150 per ms)
   * beats 1 Mbit/s at 25 ms (40 per ms) and meets the requirement alone */
  rtpcc_mprtp_sched_set_rate (s, 2, MS (30), 30000000);
  fail_unless_equals_int (info (s, 0).state, RTPCC_MPRTP_PATH_PASSIVE);
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_PASSIVE);
  fail_unless_equals_int (info (s, 2).state, RTPCC_MPRTP_PATH_ACTIVE);
  rtpcc_mprtp_sched_free (s);

  /* no requirement: every path within the bound is used */
  s = new_sched (3, NULL);
  for (guint i = 0; i < 3; i++)
    rtpcc_mprtp_sched_set_rate (s, i, 0, 1000000);
  feedback (s, 2, MS (10), MS (400), TRUE);
  fail_unless_equals_int (info (s, 2).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      3000000);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* Key frames on the best path (class first, then capacity/latency);
 * retransmissions on the lowest RTT. */
GST_START_TEST (test_keyframes_and_retransmissions)
{
  RtpccMprtpSched *s = new_sched (3, NULL);
  guint count[3] = { 0 };

  rtpcc_mprtp_sched_set_rate (s, 0, 0, 2000000);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, 1000000);
  rtpcc_mprtp_sched_set_rate (s, 2, 0, 1000000);
  feedback (s, 0, MS (10), MS (100), TRUE);
  feedback (s, 1, MS (10), MS (80), TRUE);
  feedback (s, 2, MS (10), MS (40), TRUE);
  /* capacity/latency: 2M/50 = 40k, 1M/40 = 25k, 1M/20 = 50k: path 2 */
  picks (s, MS (20), MS (1), 20, RTPCC_MPRTP_PACKET_KEYFRAME, count);
  fail_unless_equals_int (count[2], 20);
  /* path 2 lossy: the best non-congested path, 0 */
  rtpcc_mprtp_sched_on_interval (s, 2, MS (30), 100, 1, 0);
  picks (s, MS (40), MS (1), 20, RTPCC_MPRTP_PACKET_KEYFRAME, count);
  fail_unless_equals_int (count[0], 20);
  /* retransmissions: lowest RTT (path 2) even though lossy */
  picks (s, MS (60), MS (1), 7, RTPCC_MPRTP_PACKET_RETRANSMISSION, count);
  fail_unless_equals_int (count[2], 27);
  fail_unless_equals_uint64 (info (s, 0).keyframe_packets, 20);
  fail_unless_equals_uint64 (info (s, 2).rtx_packets, 7);
  /* what the key frame took from path 0 (20 × 4.8 ms of its tag) and the
   * retransmissions from path 2 the others get first: the next 10
   * packets (9.6 ms each at 1 Mbit/s) all go on path 1 */
  count[0] = count[1] = count[2] = 0;
  picks (s, MS (70), MS (1), 10, 0, count);
  fail_unless_equals_int (count[1], 10);
  picks (s, MS (80), MS (1), 30, 0, count);
  fail_unless (count[0] > 0);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* Repairs on the best path (route_rtx): the healthy path with the lowest
 * srtt, only when clearly lower (max(20 ms, 0.2 srtt)), kept while it
 * stays faster at all; congested, failed and unmeasured paths excluded;
 * one path: always its own sender, nothing charged. */
GST_START_TEST (test_rtx_route)
{
  RtpccMprtpSched *s = new_sched (1, NULL);
  RtpccTime t;
  guint count[3] = { 0 };

  /* one path: the repair stays (today's behaviour), nothing counted */
  rtpcc_mprtp_sched_set_rate (s, 0, 0, 1000000);
  feedback (s, 0, MS (10), MS (100), TRUE);
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (20), PKT),
      -1);
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 7, MS (20), PKT),
      -1);
  fail_unless_equals_uint64 (info (s, 0).packets, 0);
  fail_unless_equals_uint64 (info (s, 0).rtx_out, 0);
  rtpcc_mprtp_sched_free (s);

  s = new_sched (3, NULL);
  for (guint i = 0; i < 3; i++)
    rtpcc_mprtp_sched_set_rate (s, i, 0, 1000000);
  /* nothing measured yet: nothing to compare */
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (5), PKT),
      -1);
  feedback (s, 0, MS (10), MS (120), TRUE);
  feedback (s, 1, MS (10), MS (40), TRUE);
  /* path 2 unmeasured: never a repair path */
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (20), PKT),
      1);
  /* the fast path's own losses stay on it: nothing is 20 ms faster */
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 1, MS (20), PKT),
      -1);
  feedback (s, 2, MS (30), MS (30), TRUE);
  /* hysteresis: path 1 keeps path 0's repairs while it is faster at all,
   * although path 2 is now a bit faster still */
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (40), PKT),
      1);
  fail_unless_equals_uint64 (info (s, 1).rtx_in, 2);
  fail_unless_equals_uint64 (info (s, 1).rtx_packets, 2);
  fail_unless_equals_uint64 (info (s, 1).packets, 2);
  fail_unless_equals_uint64 (info (s, 0).rtx_out, 2);
  fail_unless_equals_uint64 (info (s, 0).packets, 0);
  /* path 1 congested (loss and discards three intervals in a row): out */
  for (guint k = 0; k < 3; k++)
    rtpcc_mprtp_sched_on_interval (s, 1, MS (100 + k), 100, 10, 10);
  fail_unless_equals_int (info (s, 1).klass, RTPCC_MPRTP_CLASS_CONGESTED);
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (110), PKT),
      2);
  fail_unless_equals_uint64 (info (s, 2).rtx_in, 1);
  fail_unless_equals_uint64 (info (s, 0).rtx_out, 3);
  /* path 2's losses: path 1 is faster but congested, path 0 slower */
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 2, MS (110), PKT),
      -1);
  rtpcc_mprtp_sched_free (s);

  /* the margin, and the hysteresis on the way out */
  s = new_sched (2, NULL);
  rtpcc_mprtp_sched_set_rate (s, 0, 0, 1000000);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, 1000000);
  feedback (s, 0, MS (10), MS (120), TRUE);
  feedback (s, 1, MS (10), MS (100), TRUE);
  /* 20 ms lower, the margin is max(20, 24) ms: stays */
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (20), PKT),
      -1);
  feedback (s, 1, MS (30), MS (96), TRUE);
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (40), PKT),
      1);
  /* within the margin again but still faster: kept */
  feedback (s, 1, MS (50), MS (110), TRUE);
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (60), PKT),
      1);
  /* slower: back to its own path, and not again until clearly faster */
  feedback (s, 1, MS (70), MS (125), TRUE);
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (80), PKT),
      -1);
  feedback (s, 1, MS (90), MS (110), TRUE);
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, MS (100), PKT),
      -1);
  fail_unless_equals_uint64 (info (s, 1).rtx_in, 2);
  /* repairs do not move the media split: equal rates, media alternates */
  picks (s, MS (100), MS (1), 10, 0, count);
  fail_unless (count[0] >= 4 && count[0] <= 6, "%u", count[0]);
  rtpcc_mprtp_sched_free (s);

  /* a failed path is no repair path; a failed path's own repairs go to
   * any healthy one */
  s = new_sched (2, NULL);
  rtpcc_mprtp_sched_set_rate (s, 0, 0, 1000000);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, 1000000);
  feedback (s, 0, 0, MS (200), TRUE);
  feedback (s, 1, 0, MS (40), TRUE);
  for (t = MS (10); t <= MS (2000); t += MS (10)) {
    rtpcc_mprtp_sched_pick (s, t, PKT, 0);
    if (t % MS (50) == 0)
      feedback (s, 0, t, MS (200), TRUE);
    rtpcc_mprtp_sched_tick (s, t);
  }
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_FAILED);
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 0, t, PKT), -1);
  fail_unless_equals_int (rtpcc_mprtp_sched_route_rtx (s, 1, t, PKT), 0);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* Feedback every 50 ms with progress on both paths, a packet every 10 ms
 * alternating; path 1's feedback stops after 1000 ms. Its first
 * unanswered packet is the one at 1010 ms; with srtt 100 ms and the
 * failure wait max(200 ms, 2 × 50 ms) it is failed at exactly 1310 ms,
 * and from then on every packet goes on path 0. */
GST_START_TEST (test_failure_and_readmission)
{
  RtpccMprtpSched *s = new_sched (2, NULL);
  RtpccTime t;
  guint after[2] = { 0 };

  rtpcc_mprtp_sched_set_rate (s, 0, 0, 1000000);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, 1000000);
  for (t = 0; t <= MS (1000); t += MS (10)) {
    if (t % MS (50) == 0) {
      feedback (s, 0, t, MS (100), TRUE);
      feedback (s, 1, t, MS (100), TRUE);
    }
    rtpcc_mprtp_sched_pick (s, t, PKT, 0);
  }
  /* the packet at 1000 ms went to one of them; 1010 ms to the other */
  for (; t < MS (1310); t += MS (10)) {
    if (t % MS (50) == 0)
      feedback (s, 0, t, MS (100), TRUE);
    rtpcc_mprtp_sched_pick (s, t, PKT, 0);
    rtpcc_mprtp_sched_tick (s, t);
  }
  fail_unless_equals_int64 (info (s, 1).feedback_gap, MS (50));
  fail_unless_equals_int64 (rtpcc_mprtp_sched_next_timeout (s), MS (1310));
  rtpcc_mprtp_sched_tick (s, MS (1310) - 1);
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_if (rtpcc_mprtp_sched_take_losses (s));
  rtpcc_mprtp_sched_tick (s, MS (1310));
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_FAILED);
  /* what was in flight on it is lost: said once */
  fail_unless (rtpcc_mprtp_sched_take_losses (s));
  fail_if (rtpcc_mprtp_sched_take_losses (s));
  fail_unless_equals_int64 (info (s, 1).failed_at, MS (1310));
  fail_unless_equals_int (info (s, 1).failures, 1);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1000000);
  picks (s, MS (1310), MS (10), 50, 0, after);
  picks (s, MS (1810), MS (10), 5, RTPCC_MPRTP_PACKET_KEYFRAME, after);
  picks (s, MS (1860), MS (10), 5, RTPCC_MPRTP_PACKET_RETRANSMISSION, after);
  fail_unless_equals_int (after[1], 0);
  /* path 0 has no deadline while it answers */
  feedback (s, 0, MS (1900), MS (100), TRUE);
  fail_unless_equals_int64 (rtpcc_mprtp_sched_next_timeout (s),
      RTPCC_TIME_NONE);

  /* feedback again on path 1 (an RR): one is not enough ... */
  feedback (s, 1, MS (3000), MS (100), FALSE);
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_FAILED);
  /* ... the second re-admits it, at 10 % of its rate */
  feedback (s, 1, MS (4000), MS (100), FALSE);
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1100000);
  after[0] = after[1] = 0;
  picks (s, MS (4000), MS (1), 110, 0, after);
  /* 1 : 0.1, to within the packet the fair queue starts with */
  fail_unless (after[1] >= 10 && after[1] <= 11, "%u", after[1]);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

static void
feedback_rates (RtpccMprtpSched * s, guint path, RtpccTime now,
    RtpccTime queue, guint64 sent, guint64 received, guint64 rep_rx,
    guint64 rep_lost)
{
  RtpccMprtpFeedbackInfo f = { MS (100), queue, rep_rx > 0, sent, received,
    rep_rx, rep_lost
  };
  rtpcc_mprtp_sched_on_feedback (s, path, now, &f);
}

/* Capacity collapse, by hand. Packets of 1250 bytes (10 kbit), so a
 * feedback every 40 ms reporting 4 packets is 1 Mbit/s delivered. */
GST_START_TEST (test_capacity_collapse)
{
  RtpccMprtpSched *s = new_sched (2, NULL);
  const guint64 M = 1000000;
  RtpccTime t = RTPCC_SEC (10);
  guint count[2] = { 0 };

  rtpcc_mprtp_sched_set_rate (s, 0, 0, M);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, M);
  for (guint i = 0; i < 100; i++)
    count[rtpcc_mprtp_sched_pick (s, MS (i), 1250, 0)]++;
  fail_unless_equals_int (count[1], 50);
  /* 1 Mbit/s delivered, with and without a queue; path 0 answers too */
  feedback_rates (s, 0, t, MS (5), M, M, 4, 0);
  for (guint i = 0; i < 10; i++)
    feedback_rates (s, 1, t += MS (40), i < 5 ? MS (10) : MS (80), M, M, 4,
        0);
  /* one packet per feedback: over the last 200 ms (5 feedbacks) that is
   * 4 + 1 = 5 ... 1 + 1 + 1 + 1 + 4 = 8 packets, 400 kbit/s < 0.5 × 1M at
   * the fourth; a stale receive rate (1M) does not hide it */
  for (guint k = 1; k <= 3; k++) {
    feedback_rates (s, 1, t += MS (40), MS (80), M, M, 1, 0);
    fail_unless (info (s, 1).collapses == 0, "k %u", k);
  }
  feedback_rates (s, 1, t += MS (40), MS (80), M, M, 1, 0);
  fail_unless_equals_int (info (s, 1).collapses, 1);
  fail_unless_equals_uint64 (info (s, 1).cap, 400000);
  /* drained for max (srtt 100 ms, 200 ms), then the ramp: 10 % of 1M */
  fail_unless_equals_uint64 (info (s, 1).allowed, 0);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s), M);
  fail_unless_equals_int64 (rtpcc_mprtp_sched_next_timeout (s),
      t + MS (200));
  /* once capped, later feedbacks (our own reduced sending) do not move it */
  feedback_rates (s, 1, t + MS (40), MS (300), M, 10000, 1, 9);
  fail_unless_equals_uint64 (info (s, 1).cap, 400000);
  rtpcc_mprtp_sched_tick (s, t + MS (200) - 1);
  fail_unless_equals_uint64 (info (s, 1).allowed, 0);
  rtpcc_mprtp_sched_tick (s, t + MS (200));
  fail_unless_equals_uint64 (info (s, 1).ramp, 100000);
  fail_unless_equals_uint64 (info (s, 1).allowed, 100000);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      M + 100000);
  /* clean intervals: the ramp +100k, the cap +100k each */
  rtpcc_mprtp_sched_on_interval (s, 1, t + RTPCC_SEC (1), 10, 0, 0);
  fail_unless_equals_uint64 (info (s, 1).ramp, 200000);
  fail_unless_equals_uint64 (info (s, 1).cap, 500000);
  /* the controller comes down below both: they are gone */
  rtpcc_mprtp_sched_set_rate (s, 1, t + RTPCC_SEC (2), 150000);
  fail_unless_equals_uint64 (info (s, 1).cap, 0);
  fail_unless_equals_uint64 (info (s, 1).ramp, 0);
  fail_unless_equals_uint64 (info (s, 1).allowed, 150000);
  rtpcc_mprtp_sched_free (s);

  /* A delay step: no feedback for 190 ms (4.75 mean gaps), then the
   * usual 5 packets at once with 150 ms more delay. Over 200 ms that is
   * 250 kbit/s, but over the usual 40 ms gap 1.25 Mbit/s: not a collapse. */
  s = new_sched (2, NULL);
  rtpcc_mprtp_sched_set_rate (s, 0, 0, M);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, M);
  for (guint i = 0; i < 100; i++)
    rtpcc_mprtp_sched_pick (s, MS (i), 1250, 0);
  t = RTPCC_SEC (10);
  for (guint i = 0; i < 10; i++)
    feedback_rates (s, 1, t += MS (40), MS (5), M, M, 4, 0);
  feedback_rates (s, 1, t += MS (190), MS (155), M, 250000, 5, 0);
  fail_unless_equals_int (info (s, 1).collapses, 0);
  /* random loss without a queue, and a queue below 50 ms: not either */
  feedback_rates (s, 0, t, MS (10), M, M, 2, 8);
  feedback_rates (s, 0, t + MS (40), MS (49), M, M, 2, 8);
  fail_unless_equals_int (info (s, 0).collapses, 0);
  /* a sender under 200 kbit/s is not judged on its rates */
  feedback_rates (s, 1, t + MS (80), MS (155), 199999, 10, 0, 0);
  fail_unless_equals_int (info (s, 1).collapses, 0);
  /* a drop-tail queue overflowing: 2 of 10 received: cap 1M × 2/10 */
  feedback_rates (s, 0, t + MS (120), MS (60), M, M, 2, 8);
  fail_unless_equals_int (info (s, 0).collapses, 1);
  fail_unless_equals_uint64 (info (s, 0).cap, 200000);
  /* still congested while it comes back: parked for 10 s */
  for (guint k = 0; k < 3; k++)
    rtpcc_mprtp_sched_on_interval (s, 0, t + RTPCC_SEC (k + 1), 10, 1, 1);
  fail_unless_equals_int (info (s, 0).klass, RTPCC_MPRTP_CLASS_CONGESTED);
  fail_unless_equals_int (info (s, 0).parks, 1);
  fail_unless_equals_int (info (s, 0).state, RTPCC_MPRTP_PATH_PASSIVE);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s), M);
  rtpcc_mprtp_sched_tick (s, t + RTPCC_SEC (13) - 1);
  fail_unless_equals_int (info (s, 0).state, RTPCC_MPRTP_PATH_PASSIVE);
  fail_unless_equals_int64 (rtpcc_mprtp_sched_next_timeout (s),
      t + RTPCC_SEC (13));
  rtpcc_mprtp_sched_tick (s, t + RTPCC_SEC (13));
  fail_unless_equals_int (info (s, 0).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_uint64 (info (s, 0).allowed, 100000);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* A path that carries no media (passive) is not failed by silence; every
 * path failed still gets the media somewhere: never a drop. */
GST_START_TEST (test_silence_and_no_drop)
{
  RtpccMprtpSched *s = new_sched (2, NULL);

  rtpcc_mprtp_sched_set_rate (s, 0, 0, 1000000);
  rtpcc_mprtp_sched_set_rate (s, 1, 0, 1000000);
  feedback (s, 0, MS (10), MS (100), TRUE);
  feedback (s, 1, MS (10), MS (100), TRUE);
  fail_unless_equals_int64 (rtpcc_mprtp_sched_next_timeout (s),
      RTPCC_TIME_NONE);
  rtpcc_mprtp_sched_tick (s, RTPCC_SEC (100));
  fail_unless_equals_int (info (s, 0).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_ACTIVE);
  /* both send and fall silent: both fail; the media still goes out, on
   * a path with a rate, and the encoder keeps a rate */
  rtpcc_mprtp_sched_pick (s, RTPCC_SEC (100), PKT, 0);
  rtpcc_mprtp_sched_pick (s, RTPCC_SEC (100), PKT, 0);
  /* one feedback each: the gap is unknown, so 1 s + srtt after sending */
  rtpcc_mprtp_sched_tick (s, RTPCC_SEC (101));
  fail_unless_equals_int (info (s, 0).state, RTPCC_MPRTP_PATH_ACTIVE);
  fail_unless_equals_int64 (rtpcc_mprtp_sched_next_timeout (s),
      RTPCC_SEC (101) + MS (100));
  rtpcc_mprtp_sched_tick (s, RTPCC_SEC (101) + MS (100));
  fail_unless_equals_int (info (s, 0).state, RTPCC_MPRTP_PATH_FAILED);
  fail_unless_equals_int (info (s, 1).state, RTPCC_MPRTP_PATH_FAILED);
  fail_unless_equals_uint64 (rtpcc_mprtp_sched_get_encoder_rate (s),
      1000000);
  fail_unless (rtpcc_mprtp_sched_pick (s, RTPCC_SEC (102), PKT, 0) < 2);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

GST_START_TEST (test_config)
{
  RtpccMprtpSchedConfig c;
  GError *err = NULL;

  rtpcc_mprtp_sched_config_init (&c);
  fail_unless (rtpcc_mprtp_sched_new (&c, 0, 0, &err) == NULL);
  fail_unless (err != NULL);
  g_clear_error (&err);
  fail_unless (rtpcc_mprtp_sched_new (&c, RTPCC_MPRTP_MAX_PATHS + 1, 0,
          &err) == NULL);
  g_clear_error (&err);
  c.mild_share = 0.0;
  fail_unless (rtpcc_mprtp_sched_new (&c, 2, 0, &err) == NULL);
  g_clear_error (&err);
  rtpcc_mprtp_sched_config_init (&c);
  c.couple.trickle = 0.9;
  fail_unless (rtpcc_mprtp_sched_new (&c, 2, 0, &err) == NULL);
  g_clear_error (&err);
  rtpcc_mprtp_sched_config_init (&c);
  c.rtx_margin_ratio = 1.0;
  fail_unless (rtpcc_mprtp_sched_new (&c, 2, 0, &err) == NULL);
  g_clear_error (&err);
  rtpcc_mprtp_sched_config_init (&c);
  c.rtx_margin = -1;
  fail_unless (rtpcc_mprtp_sched_new (&c, 2, 0, &err) == NULL);
  g_clear_error (&err);
  rtpcc_mprtp_sched_config_init (&c);
  {
    RtpccMprtpSched *s = rtpcc_mprtp_sched_new (&c, 2, 0, NULL);
    RtpccMprtpPathInfo i;
    fail_unless_equals_int (rtpcc_mprtp_sched_n_paths (s), 2);
    fail_if (rtpcc_mprtp_sched_get_path (s, 2, &i));
    rtpcc_mprtp_sched_set_rate (s, 9, 0, 1);
    rtpcc_mprtp_sched_on_interval (s, 9, 0, 1, 1, 1);
    rtpcc_mprtp_sched_on_feedback (s, 9, 0, NULL);
    rtpcc_mprtp_sched_free (s);
  }
}

GST_END_TEST;

static Suite *
rtpcc_mprtp_sched_suite (void)
{
  Suite *s = suite_create ("rtpcc_mprtp_sched");
  TCase *tc = tcase_create ("sched");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_single_path_passthrough);
  tcase_add_test (tc, test_single_path_requirement);
  tcase_add_test (tc, test_limits_while_running);
  tcase_add_test (tc, test_split);
  tcase_add_test (tc, test_classes_one_by_one);
  tcase_add_test (tc, test_reports);
  tcase_add_test (tc, test_latency_bound);
  tcase_add_test (tc, test_groups_and_requirement);
  tcase_add_test (tc, test_keyframes_and_retransmissions);
  tcase_add_test (tc, test_rtx_route);
  tcase_add_test (tc, test_failure_and_readmission);
  tcase_add_test (tc, test_capacity_collapse);
  tcase_add_test (tc, test_silence_and_no_drop);
  tcase_add_test (tc, test_config);
  return s;
}

GST_CHECK_MAIN (rtpcc_mprtp_sched);

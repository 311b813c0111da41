/* Unit tests for gcc's probe controller (gst/rtpcc/cc/gcc/probe.c): what
 * a probe shows of the path, and the probe state machine on hand-made
 * inputs.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/probe.h>
#include <math.h>
#include <string.h>

#define MS(x) RTPCC_MSEC (x)

/* A clean signal since 0, increasing, nothing lost, the media at the
 * target (not application-limited), no queue seen for 600 ms. */
static void
input_init (RtpccGccProbeInput * in, gdouble rate)
{
  memset (in, 0, sizeof (*in));
  in->rate = in->target = in->send_rate = rate;
  in->max_rate = 3e6;
  in->received_rate = rate;
  in->signal = RTPCC_GCC_NORMAL;
  in->last_not_normal = 0;
  in->rc_state = RTPCC_GCC_RC_INCREASE;
  in->loss_fraction = 0;
  in->quiet_time = MS (600);
}

/* @n packets of 1250 bytes sent from @t0 @gap apart, arriving as sent;
 * TRUE once the probe's last packet was reported */
static gboolean
feed (RtpccGccProber * p, guint64 * seq, RtpccTime t0, guint n,
    RtpccTime gap)
{
  gboolean all = FALSE;

  for (guint i = 0; i < n; i++) {
    RtpccSentPacket s = { 0 };
    RtpccPacketReport r = { 0 };

    s.seq = r.seq = (*seq)++;
    s.send_time = r.send_time = t0 + gap * i;
    s.size = r.size = 1250;
    rtpcc_gcc_prober_sent (p, &s);
    r.received = TRUE;
    r.arrival = r.send_time + MS (40);
    all |= rtpcc_gcc_prober_account (p, &r);
  }
  return all;
}

GST_START_TEST (test_probe_estimate)
{
  /* unsaturated: what both ends saw, the smaller of the two */
  fail_unless (rtpcc_gcc_probe_estimate (1.2e6, 1.2e6) == 1.2e6);
  fail_unless (rtpcc_gcc_probe_estimate (1.2e6, 1.15e6) == 1.15e6);
  fail_unless (rtpcc_gcc_probe_estimate (1.0e6, 1.3e6) == 1.0e6);
  /* at the edge (receive = 0.9 send) still unsaturated */
  fail_unless (rtpcc_gcc_probe_estimate (1.0e6, 0.9e6) == 0.9e6);
  /* saturated (RFC 8867 5.1, seed 38: a 804 kbit/s probe into 600 kbit/s):
   * 0.95 of the bottleneck, not the bottleneck itself, so a recovery
   * probe from 536 kbit/s (needing 1.1 x A = 590) no longer succeeds */
  fail_unless (fabs (rtpcc_gcc_probe_estimate (804e3, 600e3) - 570e3) < 1e-6,
      "%f", rtpcc_gcc_probe_estimate (804e3, 600e3));
  fail_unless (rtpcc_gcc_probe_estimate (804e3, 600e3) < 1.1 * 536e3);
}

GST_END_TEST;

/* An application-limited probe from start to success. */
GST_START_TEST (test_prober_alr)
{
  RtpccGccProber p;
  RtpccGccProbeInput in;
  guint64 seq = 100;
  gdouble r = 0;

  rtpcc_gcc_prober_init (&p, 0);
  input_init (&in, 500e3);
  in.send_rate = 300e3;         /* < 0.65 × 500 kbit/s */
  /* application-limited from 600 ms: not yet 1 s */
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (600), &in));
  fail_unless (p.alr_since == MS (600));
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (1599), &in));
  /* 1 s of it: a probe at 2 × A for 200 ms, which must get 1.1 × A
   * through */
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (1600), &in));
  fail_unless (p.state == RTPCC_GCC_PROBE_SENDING && p.rate == 1e6);
  fail_unless (p.end == MS (1800) && p.need == 1.1 * 500e3);
  fail_unless (p.n_probes == 1 && !p.is_capacity);
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (1700), &in));

  /* 20 packets at 1 Mbit/s (1250 bytes every 10 ms) */
  feed (&p, &seq, MS (1600), 20, MS (10));
  fail_unless (p.have_first && p.first_seq == 100);
  fail_unless (rtpcc_gcc_prober_evaluate (&p, MS (1750), FALSE, 500e3,
          &r) == RTPCC_GCC_PROBE_RUNNING, "not judged while sending");
  fail_unless (rtpcc_gcc_prober_stop (&p, MS (1800), MS (100)) ==
      RTPCC_GCC_PROBE_RUNNING);
  fail_unless (p.state == RTPCC_GCC_PROBE_WAITING);
  fail_unless (p.deadline == MS (2400) && p.last_seq == 119);
  /* a packet reported after the last one is not the probe's */
  fail_unless (feed (&p, &seq, MS (1800), 1, 0));
  fail_unless (p.rx == 20);
  fail_unless (rtpcc_gcc_prober_evaluate (&p, MS (1900), TRUE, 500e3,
          &r) == RTPCC_GCC_PROBE_SUCCEEDED);
  /* 19 × 1250 bytes over 190 ms either way: 1 Mbit/s */
  fail_unless (fabs (p.last_result - 1e6) < 1e-3, "%f", p.last_result);
  fail_unless (fabs (r - 1e6) < 1e-3 && p.chain);
  fail_unless (p.state == RTPCC_GCC_PROBE_IDLE && p.n_success == 1);
  fail_unless (p.next_time == MS (2900));
}

GST_END_TEST;

GST_START_TEST (test_prober_fails)
{
  RtpccGccProber p;
  RtpccGccProbeInput in;
  guint64 seq = 1;
  gdouble r = -1;

  rtpcc_gcc_prober_init (&p, 0);
  input_init (&in, 500e3);
  in.send_rate = 100e3;
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (600), &in));
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (1600), &in));
  /* an over-use while it runs fails it: back off 5 s, doubling */
  feed (&p, &seq, MS (1600), 10, MS (10));
  rtpcc_gcc_prober_overuse (&p);
  fail_unless (rtpcc_gcc_prober_evaluate (&p, MS (1700), FALSE, 500e3,
          &r) == RTPCC_GCC_PROBE_FAILED);
  fail_unless (r == -1, "A stays");
  fail_unless (p.n_fail == 1 && p.next_time == MS (6700));
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (6699), &in));
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (6700), &in));
  /* nothing sent during it: failed when it stops, 10 s back-off */
  fail_unless (rtpcc_gcc_prober_stop (&p, MS (6900), MS (100)) ==
      RTPCC_GCC_PROBE_FAILED);
  fail_unless (p.last_result == -1 && p.next_time == MS (16900));
  /* more than 10 % of its packets lost fails it as well */
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (16900), &in));
  feed (&p, &seq, MS (16900), 9, MS (10));
  {
    RtpccPacketReport lost = { 0 };
    lost.seq = seq++;
    rtpcc_gcc_prober_account (&p, &lost);
    lost.seq = seq++;
    rtpcc_gcc_prober_account (&p, &lost);
  }
  fail_unless (rtpcc_gcc_prober_evaluate (&p, MS (17000), FALSE, 500e3,
          &r) == RTPCC_GCC_PROBE_FAILED);
  fail_unless (p.next_time == MS (17000) + RTPCC_SEC (20));
  /* too little through: 1.1 × A is needed */
  p.next_time = 0;
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (40000), &in));
  feed (&p, &seq, MS (40000), 20, MS (20));     /* 500 kbit/s */
  fail_unless (rtpcc_gcc_prober_stop (&p, MS (40200), MS (100)) ==
      RTPCC_GCC_PROBE_RUNNING);
  fail_unless (rtpcc_gcc_prober_evaluate (&p, MS (40800), FALSE, 500e3,
          &r) == RTPCC_GCC_PROBE_FAILED, "judged at the deadline");
  fail_unless (fabs (p.last_result - 500e3) < 1e-3);
}

GST_END_TEST;

GST_START_TEST (test_prober_not_clean)
{
  RtpccGccProber p;
  RtpccGccProbeInput in;

  /* application-limited for long enough, but each of these holds it */
  rtpcc_gcc_prober_init (&p, 0);
  input_init (&in, 500e3);
  in.send_rate = 100e3;
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (100), &in));
  in.signal = RTPCC_GCC_OVERUSE;
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (2000), &in));
  input_init (&in, 500e3);
  in.send_rate = 100e3;
  in.last_not_normal = MS (1600);
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (2000), &in));
  in.last_not_normal = 0;
  in.loss_fraction = 0.02;
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (2000), &in));
  in.loss_fraction = -1;
  in.rc_state = RTPCC_GCC_RC_DECREASE;
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (2000), &in));
  in.rc_state = RTPCC_GCC_RC_HOLD;
  in.startup = TRUE;
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (2000), &in));
  in.startup = FALSE;
  in.received_rate = -1;
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (2000), &in));
  in.received_rate = 500e3;
  p.enabled = FALSE;
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (2000), &in));
  /* and with nothing holding it, it probes */
  p.enabled = TRUE;
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (2000), &in));
  /* periodic probes are off by default */
  rtpcc_gcc_prober_init (&p, 0);
  input_init (&in, 500e3);
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (3000), &in));
  p.periodic = TRUE;
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (3000), &in));
  fail_unless (p.rate == 750e3);
}

GST_END_TEST;

GST_START_TEST (test_prober_capacity)
{
  RtpccGccProber p;
  RtpccGccProbeInput in;
  guint64 seq = 1;
  gdouble r = 0;

  rtpcc_gcc_prober_init (&p, 0);
  input_init (&in, 1e6);
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (1000), &in));
  p.capacity = TRUE;
  /* not before 500 ms without a queue, nor far below the last point */
  in.quiet_time = MS (499);
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (1000), &in));
  in.quiet_time = MS (600);
  in.have_cp = TRUE;
  in.cp_mean = 1.2e6;           /* 1e6 < 0.9 × 1.2e6 */
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (1000), &in));
  in.cp_mean = 1.1e6;
  /* 2 × A for 40 ms (6 MTU-sized packets at 2 Mbit/s take 28.8 ms); only
   * 0.9 of its rate through counts as success */
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (1000), &in));
  fail_unless (p.is_capacity && p.rate == 2e6 && p.end == MS (1040));
  fail_unless (p.need == 0.9 * 2e6);
  feed (&p, &seq, MS (1000), 8, MS (5));        /* 2 Mbit/s */
  fail_unless (rtpcc_gcc_prober_stop (&p, MS (1040), MS (100)) ==
      RTPCC_GCC_PROBE_RUNNING);
  fail_unless (rtpcc_gcc_prober_evaluate (&p, MS (1100), TRUE, 1e6,
          &r) == RTPCC_GCC_PROBE_SUCCEEDED);
  /* A moves half way to what got through */
  fail_unless (fabs (r - 1.5e6) < 1e-3, "%f", r);
  fail_unless (p.chain);

  /* a failed one backs off on its own timer: 5 s, doubling to 20 s, while
   * other probes may follow after 1 s */
  for (guint i = 0; i < 4; i++) {
    RtpccTime t = MS (100000) * (i + 1);
    fail_unless (rtpcc_gcc_prober_maybe_start (&p, t, &in), "%u", i);
    rtpcc_gcc_prober_overuse (&p);
    fail_unless (rtpcc_gcc_prober_evaluate (&p, t, FALSE, 1e6, &r) ==
        RTPCC_GCC_PROBE_FAILED);
    fail_unless (p.next_time == t + RTPCC_SEC (1));
    fail_unless (p.next_capacity == t + RTPCC_SEC (MIN (5 << i, 20)),
        "%u", i);
  }
}

GST_END_TEST;

GST_START_TEST (test_prober_recovery)
{
  RtpccGccProber p;
  RtpccGccProbeInput in;
  guint64 seq = 1;
  gdouble r = 0;

  rtpcc_gcc_prober_init (&p, 0);
  p.recovery = TRUE;
  /* 2 -> 1.2 -> 1 Mbit/s within 5 s: one drop episode from 2 Mbit/s */
  rtpcc_gcc_prober_note_rate (&p, MS (1000), 2e6, 1.2e6);
  rtpcc_gcc_prober_note_rate (&p, MS (1500), 1.2e6, 1e6);
  rtpcc_gcc_prober_note_rate (&p, MS (1600), 1e6, 1.1e6);
  fail_unless (p.drop_from == 2e6 && p.drop_time == MS (1500));
  input_init (&in, 1e6);
  /* below 0.66 of it: back towards it, at most 1.5 × A */
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (2500), &in));
  fail_unless (p.rate == 1.5e6 && p.drop_probed);
  /* 1.1 Mbit/s got through: a success (>= 1.1 × A), but far from all of
   * its rate, so the path's limit is remembered */
  feed (&p, &seq, MS (2500), 20, RTPCC_USEC (9090));
  rtpcc_gcc_prober_stop (&p, MS (2700), MS (100));
  fail_unless (rtpcc_gcc_prober_evaluate (&p, MS (2800), TRUE, 1e6, &r) ==
      RTPCC_GCC_PROBE_SUCCEEDED);
  fail_unless (fabs (r - 1.1e6) < 1e3, "%f", r);
  fail_unless (!p.chain && p.drop_probed);
  fail_unless (fabs (p.drop_limit - 1.1e6) < 1e3);
  /* not again at this level: only once A exceeds 1.1 × that limit */
  input_init (&in, 1.2e6);
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (4000), &in));
  input_init (&in, 1.25e6);
  fail_unless (rtpcc_gcc_prober_maybe_start (&p, MS (4000), &in));
  fail_unless (p.rate == 0.85 * 2e6);
  /* recovery probes are off by default */
  rtpcc_gcc_prober_init (&p, 0);
  rtpcc_gcc_prober_note_rate (&p, MS (1000), 2e6, 1e6);
  input_init (&in, 1e6);
  fail_if (rtpcc_gcc_prober_maybe_start (&p, MS (2500), &in));
}

GST_END_TEST;

static Suite *
rtpcc_gcc_probe_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_probe");
  TCase *tc = tcase_create ("probe");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_probe_estimate);
  tcase_add_test (tc, test_prober_alr);
  tcase_add_test (tc, test_prober_fails);
  tcase_add_test (tc, test_prober_not_clean);
  tcase_add_test (tc, test_prober_capacity);
  tcase_add_test (tc, test_prober_recovery);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_probe);

/* Unit tests for the "rr" controller (gst/rtpcc/cc/rtcprr.c): synthetic RR
 * sequences against the mediastreamer2 constants (rev 22f54d40), every
 * expected bitrate computed by hand with upstream's truncations.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include "cc-util.h"
#include <string.h>

/* 90 kHz video clock: 10 ms of jitter = 900 timestamp units */
#define JIT_BIG 1800            /* 20 ms */
#define JIT_LOW 90              /* 1 ms */

static guint n_reports;

static void
rr (RtpccController * cc, guint8 fraction, guint32 jitter, RtpccTime rtt)
{
  RtpccReceiverReport r;

  memset (&r, 0, sizeof (r));
  r.ssrc = 1;
  r.fraction_lost = fraction;
  r.jitter = jitter;
  r.rtt = rtt;
  r.packets_sent_interval = 100;
  n_reports++;
  /* every report counts new packets */
  r.ext_highest_seq = 100 * n_reports;
  rtpcc_controller_receiver_report (cc, RTPCC_SEC (5) * n_reports, &r);
}

static guint64
rate (RtpccController * cc)
{
  return cc->target.target_bitrate;
}

GST_START_TEST (test_full_cycle)
{
  RtpccController *cc = cc_util_new ("rr", 64000, 2000000, 0);
  const guint64 ramp[] = { 1361250, 1497375, 1647112, 1811823, 1993005 };

  /* linphone starts at the nominal (max) bitrate and, in Init, never
   * counts stable reports: clean reports change nothing */
  fail_unless_equals_int64 (rate (cc), 2000000);
  for (gint i = 0; i < 15; i++)
    rr (cc, 0, 0, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 2000000);
  fail_unless_equals_string (cc->target.state, "init");

  /* 64/256 = 25 % loss with 20 ms jitter: cut by min (25, 50) % */
  rr (cc, 64, JIT_BIG, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 1500000);
  fail_unless_equals_string (cc->target.state, "probing");
  fail_unless_equals_string (cc->target.reason, "loss-and-jitter");
  /* Probing, not improved (25 % again): cut again, one per report */
  rr (cc, 64, JIT_BIG, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 1125000);
  /* 26/256 = 10.16 % < 25 %: improved → Stable, no action */
  rr (cc, 26, JIT_LOW, RTPCC_MSEC (50));
  fail_unless_equals_string (cc->target.state, "stable");
  fail_unless_equals_int64 (rate (cc), 1125000);
  /* Stable, 10.16 % with low jitter: the "decrease packet rate" action,
   * which for video changes nothing upstream, but still means Probing */
  rr (cc, 26, JIT_LOW, RTPCC_MSEC (50));
  fail_unless_equals_string (cc->target.state, "probing");
  fail_unless_equals_int64 (rate (cc), 1125000);
  fail_unless_equals_string (cc->target.reason, "loss");
  /* 0 % < 10.16 %: Stable */
  rr (cc, 0, 0, RTPCC_MSEC (50));
  fail_unless_equals_string (cc->target.state, "stable");

  /* probing_up_interval = 10 stable reports, then +10 % */
  for (gint i = 1; i <= 9; i++) {
    rr (cc, 0, 0, RTPCC_MSEC (50));
    fail_unless_equals_int64 (rate (cc), 1125000);
  }
  rr (cc, 0, 0, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 1237500);
  fail_unless_equals_string (cc->target.state, "probing-up");
  fail_unless_equals_string (cc->target.reason, "probe-up");

  /* then +10 % every second report, truncated, up to the nominal rate */
  for (guint i = 0; i < G_N_ELEMENTS (ramp); i++) {
    rr (cc, 0, 0, RTPCC_MSEC (50));
    fail_unless_equals_int64 (rate (cc), i == 0 ? 1237500 : ramp[i - 1]);
    rr (cc, 0, 0, RTPCC_MSEC (50));
    fail_unless_equals_int64 (rate (cc), ramp[i]);
  }
  /* 1993005 × 1.1 > 2 M: capped, back to Init */
  rr (cc, 0, 0, RTPCC_MSEC (50));
  rr (cc, 0, 0, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 2000000);
  fail_unless_equals_string (cc->target.state, "init");
  rtpcc_controller_free (cc);
}

GST_END_TEST;

GST_START_TEST (test_loss_threshold)
{
  /* at the nominal rate (a start below it would start up, below) */
  RtpccController *cc = cc_util_new ("rr", 64000, 1000000, 1000000);

  /* 25/256 = 9.77 % < 10 %: nothing, however big the jitter */
  for (gint i = 0; i < 5; i++)
    rr (cc, 25, JIT_BIG, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 1000000);
  /* 26/256 = 10.16 %, value truncated to 10: 1 M × 90 % */
  rr (cc, 26, JIT_BIG, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 900000);
  /* jitter exactly 10 ms (900 units) counts as big: 41/256 = 16.02 % → 16 */
  rr (cc, 41, 900, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 756000);
  /* 9.99 ms does not: "decrease packet rate", video unchanged */
  rr (cc, 41, 899, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 756000);
  /* the cut is capped at 50 %: 200/256 = 78 % → 50 % */
  rr (cc, 200, JIT_BIG, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 378000);
  rtpcc_controller_free (cc);

  /* floor: the configured min-bitrate (upstream's 64 kbit/s) */
  cc = cc_util_new ("rr", 300000, 2000000, 500000);
  rr (cc, 255, JIT_BIG, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 300000);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

GST_START_TEST (test_rtt_doubling)
{
  RtpccController *cc = cc_util_new ("rr", 64000, 1000000, 1000000);

  /* 50 → 120 ms doubles but stays under significant_delay (0.2 s): the
   * rule is inert on short paths */
  rr (cc, 0, 0, RTPCC_MSEC (50));
  rr (cc, 0, 0, RTPCC_MSEC (120));
  fail_unless_equals_int64 (rate (cc), 1000000);
  /* 120 → 240 ms: ≥ 0.2 s and ≥ 2 × prev → cut 20 % */
  rr (cc, 0, 0, RTPCC_MSEC (240));
  fail_unless_equals_int64 (rate (cc), 800000);
  fail_unless_equals_string (cc->target.reason, "rtt-doubled");
  fail_unless_equals_string (cc->target.state, "probing");
  /* RTT unchanged: not improved, no new action either */
  rr (cc, 0, 0, RTPCC_MSEC (240));
  fail_unless_equals_string (cc->target.state, "probing");
  /* a report without LSR keeps the last RTT, as oRTP does */
  rr (cc, 0, 0, RTPCC_TIME_NONE);
  fail_unless_equals_string (cc->target.state, "probing");
  /* RTT falls: improved → Stable */
  rr (cc, 0, 0, RTPCC_MSEC (200));
  fail_unless_equals_string (cc->target.state, "stable");
  fail_unless_equals_int64 (rate (cc), 800000);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

GST_START_TEST (test_ignores_per_packet_feedback_and_params)
{
  RtpccController *cc = cc_util_new ("rr", 64000, 2000000, 1000000);
  RtpccPacketReport rep[4];
  RtpccFeedback fb;

  /* all packets lost in per-packet feedback: the RR baseline ignores it */
  memset (rep, 0, sizeof (rep));
  for (gint i = 0; i < 4; i++)
    rep[i].seq = i + 1;
  memset (&fb, 0, sizeof (fb));
  fb.reports = rep;
  fb.n_reports = 4;
  fb.rtt_sample = RTPCC_MSEC (300);
  rtpcc_controller_feedback (cc, RTPCC_SEC (1), &fb);
  fail_unless_equals_int64 (rate (cc), 1000000);
  fail_unless (cc->ops->can_send == NULL);

  /* thesis build: the lossy-low-jitter case cuts video 20 % */
  fail_unless (rtpcc_controller_set_param (cc, "packet-rate-decrease", "20"));
  rr (cc, 26, JIT_LOW, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 800000);
  /* an 8 kHz clock: 90 units = 11.25 ms of jitter → big */
  fail_unless (rtpcc_controller_set_param (cc, "clock-rate", "8000"));
  rr (cc, 64, 90, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 600000);
  fail_if (rtpcc_controller_set_param (cc, "clock-rate", "0"));
  fail_if (rtpcc_controller_set_param (cc, "bogus", "1"));
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* Deviation (1): started below the nominal rate, the rate doubles on every
 * clean report up to it; the first action ends the start-up. */
GST_START_TEST (test_startup)
{
  RtpccController *cc = cc_util_new ("rr", 64000, 1500000, 150000);

  fail_unless_equals_string (cc->target.state, "init");
  rr (cc, 0, 0, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 300000);
  fail_unless_equals_string (cc->target.reason, "startup");
  rr (cc, 0, 0, RTPCC_MSEC (50));
  rr (cc, 0, 0, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 1200000);
  rr (cc, 0, 0, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 1500000);
  /* at the nominal rate: upstream's Init, clean reports change nothing */
  rr (cc, 0, 0, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 1500000);
  rtpcc_controller_free (cc);

  /* an action ends it: 26/256 with big jitter, 10 % off */
  cc = cc_util_new ("rr", 64000, 1500000, 150000);
  rr (cc, 0, 0, RTPCC_MSEC (50));
  rr (cc, 26, JIT_BIG, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 270000);
  fail_unless_equals_string (cc->target.state, "probing");
  rr (cc, 0, 0, RTPCC_MSEC (50));
  fail_unless_equals_int64 (rate (cc), 270000);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* Deviation (2): feedback stops (the no-feedback timer): half the rate,
 * once; reports without a new packet are ignored, and so is the loss of
 * the first one with (the outage's); then a start-up. */
GST_START_TEST (test_no_feedback_restart)
{
  RtpccController *cc = cc_util_new ("rr", 64000, 2000000, 0);
  RtpccReceiverReport r;
  RtpccSentPacket sp = { 0, };
  RtpccTime t;

  memset (&r, 0, sizeof (r));
  r.ssrc = 1;
  r.packets_sent_interval = 100;
  /* reports a second apart while packets go out every 10 ms */
  for (t = 0; t <= RTPCC_SEC (5); t += RTPCC_MSEC (10)) {
    sp.seq++;
    rtpcc_controller_packet_sent (cc, t, &sp);
    if (t % RTPCC_SEC (1) == 0) {
      r.ext_highest_seq = (guint32) sp.seq;
      rtpcc_controller_receiver_report (cc, t, &r);
    }
    rtpcc_controller_tick (cc, t);
  }
  fail_unless_equals_int64 (rate (cc), 2000000);
  /* the link dies: reports stop advancing; T = 4 × 1 s */
  for (; t <= RTPCC_SEC (15); t += RTPCC_MSEC (10)) {
    sp.seq++;
    rtpcc_controller_packet_sent (cc, t, &sp);
    if (t % RTPCC_SEC (1) == 0)
      rtpcc_controller_receiver_report (cc, t, &r);
    rtpcc_controller_tick (cc, t);
  }
  fail_unless (rtpcc_controller_feedback_stopped (cc, NULL));
  fail_unless_equals_string (cc->target.state, "no-feedback");
  /* the link is back: the first report shows half the packets lost */
  r.ext_highest_seq = (guint32) sp.seq;
  r.fraction_lost = 128;
  r.jitter = JIT_BIG;
  rtpcc_controller_receiver_report (cc, t, &r);
  fail_if (rtpcc_controller_feedback_stopped (cc, NULL));
  /* not acted on: restart from half (1 M), doubling per clean report */
  r.fraction_lost = 0;
  r.jitter = 0;
  for (guint i = 0; i < 3; i++) {
    t += RTPCC_SEC (1);
    r.ext_highest_seq += 100;
    rtpcc_controller_packet_sent (cc, t, &sp);
    rtpcc_controller_receiver_report (cc, t, &r);
  }
  fail_unless_equals_int64 (rate (cc), 2000000);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* Deviation (2), the reports after the link's return: the packets sent
 * into the outage were dropped at the full queue and show as lost in the
 * report after the first one; that loss is the outage's too, and only a
 * report counting packets sent after the return is acted on. */
GST_START_TEST (test_outage_loss_in_later_report)
{
  RtpccController *cc = cc_util_new ("rr", 64000, 2000000, 0);
  RtpccReceiverReport r;
  RtpccSentPacket sp = { 0, };
  RtpccTime t;
  guint16 seq = 0;
  guint64 before;

  memset (&r, 0, sizeof (r));
  r.ssrc = sp.ssrc = 1;
  r.packets_sent_interval = 100;
  for (t = 0; t <= RTPCC_SEC (5); t += RTPCC_MSEC (10)) {
    sp.rtp_seq = seq++;
    rtpcc_controller_packet_sent (cc, t, &sp);
    if (t % RTPCC_SEC (1) == 0) {
      r.ext_highest_seq = sp.rtp_seq;
      rtpcc_controller_receiver_report (cc, t, &r);
    }
    rtpcc_controller_tick (cc, t);
  }
  /* the link dies for 10 s */
  for (; t <= RTPCC_SEC (15); t += RTPCC_MSEC (10)) {
    sp.rtp_seq = seq++;
    rtpcc_controller_packet_sent (cc, t, &sp);
    if (t % RTPCC_SEC (1) == 0)
      rtpcc_controller_receiver_report (cc, t, &r);
    rtpcc_controller_tick (cc, t);
  }
  fail_unless (rtpcc_controller_feedback_stopped (cc, NULL));
  /* back: the first report shows two packets that waited in the queue;
   * the restart is from half the rate before the stop */
  r.ext_highest_seq += 2;
  rtpcc_controller_receiver_report (cc, t, &r);
  fail_if (rtpcc_controller_feedback_stopped (cc, NULL));
  /* the next: 90 % of what it counts lost (sent before that report came,
   * into the full queue), big jitter: not a cut */
  for (guint i = 0; i < 100; i++, t += RTPCC_MSEC (10)) {
    sp.rtp_seq = seq++;
    rtpcc_controller_packet_sent (cc, t, &sp);
  }
  r.ext_highest_seq = sp.rtp_seq;
  r.fraction_lost = 230;
  r.jitter = JIT_BIG;
  rtpcc_controller_receiver_report (cc, t, &r);
  fail_unless_equals_string (cc->target.reason, "startup");
  before = rate (cc);
  fail_unless (before >= 1000000, "%" G_GUINT64_FORMAT, before);
  /* packets sent after the return lost as much: a cut by half */
  for (guint i = 0; i < 100; i++, t += RTPCC_MSEC (10)) {
    sp.rtp_seq = seq++;
    rtpcc_controller_packet_sent (cc, t, &sp);
  }
  r.ext_highest_seq = sp.rtp_seq;
  rtpcc_controller_receiver_report (cc, t, &r);
  fail_unless_equals_string (cc->target.reason, "loss-and-jitter");
  fail_unless_equals_int64 (rate (cc), before / 2);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

static Suite *
rtpcc_rtcprr_suite (void)
{
  Suite *s = suite_create ("rtpcc_rtcprr");
  TCase *tc = tcase_create ("rr");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_full_cycle);
  tcase_add_test (tc, test_loss_threshold);
  tcase_add_test (tc, test_rtt_doubling);
  tcase_add_test (tc, test_startup);
  tcase_add_test (tc, test_no_feedback_restart);
  tcase_add_test (tc, test_outage_loss_in_later_report);
  tcase_add_test (tc, test_ignores_per_packet_feedback_and_params);
  return s;
}

GST_CHECK_MAIN (rtpcc_rtcprr);

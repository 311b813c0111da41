/* Unit tests: controller registry, pacer, encoder table.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <math.h>

GST_START_TEST (test_registry)
{
  RtpccControllerConfig cfg;
  GError *err = NULL;
  RtpccController *cc;
  gchar **names = rtpcc_controller_list ();

  fail_unless (g_strv_contains ((const gchar * const *) names, "fixed"));
  for (guint i = 1; names[i]; i++)
    fail_unless (g_strcmp0 (names[i - 1], names[i]) < 0, "list not sorted");
  g_strfreev (names);

  rtpcc_controller_config_init (&cfg);
  fail_unless (rtpcc_controller_new ("nope", &cfg, 0, &err) == NULL);
  fail_unless (err && strstr (err->message, "fixed") != NULL,
      "error should list known controllers");
  g_clear_error (&err);

  cfg.min_bitrate = 2000000;
  fail_unless (rtpcc_controller_new ("fixed", &cfg, 0, &err) == NULL);
  g_clear_error (&err);
  rtpcc_controller_config_init (&cfg);
  cfg.start_bitrate = 100;
  fail_unless (rtpcc_controller_new ("fixed", &cfg, 0, &err) == NULL);
  g_clear_error (&err);

  cfg.start_bitrate = 800000;
  cc = rtpcc_controller_new ("fixed", &cfg, 0, &err);
  fail_unless (cc != NULL);
  fail_unless_equals_uint64 (cc->target.target_bitrate, 800000);
  fail_unless_equals_string (cc->target.state, "fixed");
  fail_unless (rtpcc_controller_can_send (cc, 0, 1200));
  fail_if (rtpcc_controller_set_param (cc, "x", "y"));

  /* update_target clamps, splits FEC, bumps the generation only on change */
  {
    guint64 gen = cc->generation;
    rtpcc_controller_update_target (cc, 10000000, 100000, 1.5, NULL, "t");
    fail_unless_equals_uint64 (cc->target.target_bitrate, 1500000);
    fail_unless_equals_uint64 (cc->target.media_bitrate, 1400000);
    fail_unless_equals_uint64 (cc->target.pacing_rate, 2250000);
    fail_unless (cc->generation == gen + 1);
    rtpcc_controller_update_target (cc, 10000000, 100000, 1.5, NULL, "t");
    fail_unless (cc->generation == gen + 1);
    rtpcc_controller_update_target (cc, 1, 0, 0.5, NULL, "t");
    fail_unless_equals_uint64 (cc->target.target_bitrate, 150000);
    fail_unless_equals_uint64 (cc->target.pacing_rate, 150000);
  }
  rtpcc_controller_free (cc);
}

GST_END_TEST;

GST_START_TEST (test_pacer_rate)
{
  RtpccPacerConfig cfg;
  RtpccPacer *p;
  RtpccTime now = 0, last = 0;
  guint sent = 0;
  guint64 bytes = 0;

  rtpcc_pacer_config_init (&cfg);
  cfg.rate = 1000000;
  cfg.max_delay = 0;            /* pure pacing */
  p = rtpcc_pacer_new (&cfg);

  /* 100 packets of 1250 B queued at once: 10 ms apart at 1 Mbit/s */
  for (guint i = 0; i < 100; i++)
    rtpcc_pacer_push (p, 0, GUINT_TO_POINTER (i + 1), 1250);
  while (rtpcc_pacer_get_packets (p) > 0) {
    guint size;
    gpointer h;
    now = rtpcc_pacer_next_send_time (p, now);
    h = rtpcc_pacer_pop (p, now, &size, NULL);
    fail_unless (h != NULL);
    fail_unless_equals_int (GPOINTER_TO_UINT (h), sent + 1);
    /* never early: nothing more may go at the same instant */
    if (rtpcc_pacer_get_packets (p) > 0)
      fail_unless (rtpcc_pacer_pop (p, now, NULL, NULL) == NULL);
    bytes += size;
    sent++;
    last = now;
  }
  /* the first packet goes at once and may use the idle credit (5 ms);
   * 99 more intervals of 10 ms follow */
  fail_unless (last >= RTPCC_MSEC (985) && last <= RTPCC_MSEC (990),
      "last at %" G_GINT64_FORMAT, last);
  fail_unless_equals_uint64 (bytes, 125000);
  rtpcc_pacer_free (p);
}

GST_END_TEST;

GST_START_TEST (test_pacer_late_wakeup_catches_up)
{
  /* A sender whose timer always fires 3 ms late still achieves the rate:
   * the credit absorbs the lateness (seed 002 §1.12a). */
  RtpccPacerConfig cfg;
  RtpccPacer *p;
  RtpccTime now = 0;
  guint64 bytes = 0;

  rtpcc_pacer_config_init (&cfg);
  cfg.rate = 2000000;
  cfg.max_delay = 0;
  p = rtpcc_pacer_new (&cfg);
  for (guint i = 0; i < 2000; i++)
    rtpcc_pacer_push (p, 0, GUINT_TO_POINTER (1), 1000);
  while (now < RTPCC_SEC (2)) {
    RtpccTime t = rtpcc_pacer_next_send_time (p, now);
    guint size;
    now = t + RTPCC_MSEC (3);   /* late */
    while (rtpcc_pacer_pop (p, now, &size, NULL))
      bytes += size;
  }
  /* 2 Mbit/s for 2 s = 500 kB, within 2 % */
  fail_unless (fabs (bytes - 500000.0) / 500000.0 < 0.02, "%" G_GUINT64_FORMAT,
      bytes);
  rtpcc_pacer_free (p);
}

GST_END_TEST;

GST_START_TEST (test_pacer_bounded_spreading)
{
  /* A 60 kB frame at a 1 Mbit/s pacing rate would take 480 ms; with
   * max-delay 100 ms the pacer drains it so no packet waits > ~100 ms. */
  RtpccPacerConfig cfg;
  RtpccPacer *p;
  RtpccTime now = 0, worst = 0;

  rtpcc_pacer_config_init (&cfg);
  cfg.rate = 1000000;
  cfg.max_delay = RTPCC_MSEC (100);
  p = rtpcc_pacer_new (&cfg);
  for (guint i = 0; i < 50; i++)
    rtpcc_pacer_push (p, 0, GUINT_TO_POINTER (1), 1200);
  while (rtpcc_pacer_get_packets (p) > 0) {
    RtpccTime enq;
    now = rtpcc_pacer_next_send_time (p, now);
    fail_unless (rtpcc_pacer_pop (p, now, NULL, &enq) != NULL);
    worst = MAX (worst, now - enq);
  }
  fail_unless (worst <= RTPCC_MSEC (102), "worst wait %" G_GINT64_FORMAT,
      worst);
  /* ... but it still spreads: not all at t=0 */
  fail_unless (worst >= RTPCC_MSEC (80));
  rtpcc_pacer_free (p);
}

GST_END_TEST;

static guint freed;
static void
count_free (gpointer p)
{
  freed++;
}

GST_START_TEST (test_pacer_overflow_drops_oldest)
{
  RtpccPacerConfig cfg;
  RtpccPacer *p;
  guint size;

  rtpcc_pacer_config_init (&cfg);
  cfg.max_bytes = 3000;
  p = rtpcc_pacer_new (&cfg);
  rtpcc_pacer_set_free_func (p, count_free);
  freed = 0;
  fail_unless_equals_int (rtpcc_pacer_push (p, 0, GUINT_TO_POINTER (1), 1000),
      0);
  rtpcc_pacer_push (p, 0, GUINT_TO_POINTER (2), 1000);
  rtpcc_pacer_push (p, 0, GUINT_TO_POINTER (3), 1000);
  fail_unless_equals_int (rtpcc_pacer_push (p, 0, GUINT_TO_POINTER (4), 1500),
      2);
  fail_unless_equals_int (freed, 2);
  fail_unless_equals_uint64 (rtpcc_pacer_get_bytes (p), 2500);
  /* rate 0 = no pacing: everything may go now, oldest surviving first */
  fail_unless_equals_int (GPOINTER_TO_UINT (rtpcc_pacer_pop (p, 0, &size,
              NULL)), 3);
  rtpcc_pacer_free (p);
  fail_unless_equals_int (freed, 3);
}

GST_END_TEST;

GST_START_TEST (test_encoder_table)
{
  const RtpccEncoderInfo *x264 = rtpcc_encoder_lookup ("x264enc");
  const RtpccEncoderInfo *vp8 = rtpcc_encoder_lookup ("vp8enc");
  const RtpccEncoderInfo *av = rtpcc_encoder_lookup ("avenc_h264_omx");
  RtpccEncoderHysteresis h;

  fail_unless (x264 && vp8 && av);
  fail_unless (rtpcc_encoder_lookup ("identity") == NULL);
  fail_unless (rtpcc_encoder_lookup (NULL) == NULL);
  fail_unless_equals_string (x264->property, "bitrate");
  fail_unless_equals_uint64 (rtpcc_encoder_value_for_bitrate (x264, 1234567),
      1235);
  fail_unless_equals_uint64 (rtpcc_encoder_value_for_bitrate (x264, 100), 1);
  fail_unless_equals_string (vp8->property, "target-bitrate");
  fail_unless_equals_uint64 (rtpcc_encoder_value_for_bitrate (vp8, 1234567),
      1234567);
  fail_unless_equals_string (av->property, "bitrate");

  rtpcc_encoder_hysteresis_init (&h);
  fail_unless (rtpcc_encoder_hysteresis_update (&h, 0, 1000000));
  /* small wiggles are ignored */
  fail_if (rtpcc_encoder_hysteresis_update (&h, RTPCC_SEC (5), 1030000));
  fail_if (rtpcc_encoder_hysteresis_update (&h, RTPCC_SEC (5), 980000));
  /* a big decrease applies at once */
  fail_unless (rtpcc_encoder_hysteresis_update (&h, RTPCC_MSEC (5100), 800000));
  /* an increase only after min-interval */
  fail_if (rtpcc_encoder_hysteresis_update (&h, RTPCC_MSEC (5500), 900000));
  fail_unless (rtpcc_encoder_hysteresis_update (&h, RTPCC_MSEC (6100),
          900000));
  fail_unless_equals_uint64 (h.applied_bps, 900000);
}

GST_END_TEST;

/* A controller that asks for probe bytes: 1 Mbit/s target, 500 kbit/s of
 * it as fec_bitrate (what gcc does while probing). */
static void
probe_ctl_init (RtpccController * cc, RtpccTime now)
{
  rtpcc_controller_update_target (cc, 1000000, 500000, 1.0, "probe", "test");
}

static const RtpccControllerOps probe_ctl_ops = {
  .name = "test-probe",
  .description = "asks for 500 kbit/s of probe bytes",
  .instance_size = sizeof (RtpccController),
  .init = probe_ctl_init,
};

GST_START_TEST (test_sender_probing)
{
  for (int mode = 0; mode < 3; mode++) {
    RtpccSenderConfig cfg;
    RtpccSender *s;
    RtpccRtpInfo info = { 0, }, pi;
    guint probes = 0, media = 0;
    guint16 last_twcc = 0;
    gboolean have_twcc = FALSE;

    rtpcc_controller_register (&probe_ctl_ops);
    rtpcc_sender_config_init (&cfg);
    cfg.controller = "test-probe";
    cfg.cc.max_bitrate = 2000000;
    cfg.feedback = mode == 1 ? RTPCC_FEEDBACK_TWCC : RTPCC_FEEDBACK_CCFB;
    cfg.probing = mode != 2;
    cfg.circuit_breaker = FALSE;
    cfg.seed = 5;
    s = rtpcc_sender_new (&cfg, 0, NULL);
    fail_unless (s != NULL);

    info.ssrc = 0x1234;
    info.pt = 96;
    info.size = 1000;
    /* 1 s: a 1000 B media packet every 10 ms (800 kbit/s) */
    for (RtpccTime now = 0; now < RTPCC_SEC (1); now += RTPCC_MSEC (1)) {
      if (now % RTPCC_MSEC (10) == 0) {
        rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (1));
        info.seq++;
      }
      while (rtpcc_sender_dequeue (s, now, &pi)) {
        media++;
        if (mode == 1) {
          fail_unless (pi.has_twcc);
          fail_unless (!have_twcc || pi.twcc_seq == (guint16) (last_twcc + 1));
          last_twcc = pi.twcc_seq;
          have_twcc = TRUE;
        }
      }
      while (rtpcc_sender_dequeue_probe (s, now, &pi)) {
        probes++;
        fail_unless (pi.ssrc != info.ssrc);
        fail_unless_equals_int (pi.pt, 96);
        fail_unless (pi.is_fec);
        fail_unless_equals_int (pi.size, RTPCC_PROBE_PACKET_SIZE);
        if (mode == 1) {
          /* one transport-wide sequence across media and probes */
          fail_unless (pi.has_twcc);
          fail_unless (pi.twcc_seq == (guint16) (last_twcc + 1));
          last_twcc = pi.twcc_seq;
        }
      }
      {
        guint8 rtcp[512];
        RtpccTime next;
        rtpcc_sender_build_rtcp (s, now, rtcp, sizeof rtcp);
        rtpcc_sender_tick (s, now);
        /* serviced: the next wake-up never lies in the past (no spin) */
        next = rtpcc_sender_next_timeout (s, now);
        fail_unless (next == RTPCC_TIME_NONE || next > now);
      }
    }
    fail_unless_equals_int (media, 100);
    if (mode == 2) {
      fail_unless_equals_int (probes, 0);
    } else {
      /* 500 kbit/s of 267-byte packets for 1 s: 234 */
      fail_unless (probes >= 225 && probes <= 240, "%u probes", probes);
      fail_unless_equals_uint64 (rtpcc_sender_get_stats (s, 0)->probe_packets,
          probes);
    }
    rtpcc_sender_free (s);
  }
}

GST_END_TEST;

static Suite *
rtpcc_core_suite (void)
{
  Suite *s = suite_create ("rtpcc_core");
  TCase *tc = tcase_create ("core");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_registry);
  tcase_add_test (tc, test_pacer_rate);
  tcase_add_test (tc, test_pacer_late_wakeup_catches_up);
  tcase_add_test (tc, test_pacer_bounded_spreading);
  tcase_add_test (tc, test_pacer_overflow_drops_oldest);
  tcase_add_test (tc, test_encoder_table);
  tcase_add_test (tc, test_sender_probing);
  return s;
}

GST_CHECK_MAIN (rtpcc_core);

/* Unit tests: controller registry, pacer, encoder table.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/fec.h>
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
  /* fec-share: that part of the fixed target is for FEC */
  fail_unless (rtpcc_controller_set_param (cc, "fec-share", "0.25"));
  fail_unless_equals_uint64 (cc->target.target_bitrate, 800000);
  fail_unless_equals_uint64 (cc->target.fec_bitrate, 200000);
  fail_unless_equals_uint64 (cc->target.media_bitrate, 600000);
  fail_if (rtpcc_controller_set_param (cc, "fec-share", "0.7"));
  fail_if (rtpcc_controller_set_param (cc, "fec-share", "-1"));
  fail_unless_equals_uint64 (cc->target.fec_bitrate, 200000);
  fail_unless (rtpcc_controller_set_param (cc, "fec-share", "0"));
  fail_unless_equals_uint64 (cc->target.fec_bitrate, 0);

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

/* Differences of outside times saturate instead of overflowing, and never
 * produce RTPCC_TIME_NONE. */
GST_START_TEST (test_time_sub_saturated)
{
  fail_unless_equals_int64 (rtpcc_time_sub_saturated (RTPCC_MSEC (5),
          RTPCC_MSEC (7)), -RTPCC_MSEC (2));
  fail_unless_equals_int64 (rtpcc_time_sub_saturated (G_MAXINT64, -1),
      G_MAXINT64);
  fail_unless_equals_int64 (rtpcc_time_sub_saturated (G_MININT64 + 5, 10),
      G_MININT64 + 1);
  fail_unless (rtpcc_time_sub_saturated (RTPCC_TIME_NONE, 1) !=
      RTPCC_TIME_NONE);
  fail_unless_equals_int64 (rtpcc_time_sub_saturated (0, G_MININT64),
      G_MAXINT64);
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

GST_START_TEST (test_pacer_urgent)
{
  RtpccPacerConfig cfg;
  RtpccPacer *p;
  RtpccTime now;
  guint size;

  rtpcc_pacer_config_init (&cfg);
  cfg.rate = 1000000;
  cfg.max_bytes = 6000;
  p = rtpcc_pacer_new (&cfg);
  for (guint i = 1; i <= 4; i++)
    fail_unless_equals_int (rtpcc_pacer_push (p, 0, GUINT_TO_POINTER (i),
            1000), 0);
  /* urgent ones go first, in their own order; the queue keeps the age of
   * its oldest packet (the max_delay drain rate does not fall) */
  fail_unless_equals_int (rtpcc_pacer_push_urgent (p, RTPCC_MSEC (50),
          GUINT_TO_POINTER (10), 1000), 0);
  fail_unless_equals_int (rtpcc_pacer_push_urgent (p, RTPCC_MSEC (50),
          GUINT_TO_POINTER (11), 1000), 0);
  fail_unless_equals_uint64 (rtpcc_pacer_get_head_age (p, RTPCC_MSEC (50)),
      RTPCC_MSEC (50));
  /* over max_bytes: the oldest non-urgent packet (1) goes, never an
   * urgent one; pop_oldest takes the next (2), pop_any the head (10) */
  fail_unless_equals_int (rtpcc_pacer_push_urgent (p, RTPCC_MSEC (50),
          GUINT_TO_POINTER (12), 1000), 1);
  fail_unless_equals_int (rtpcc_pacer_get_packets (p), 6);
  fail_unless (GPOINTER_TO_UINT (rtpcc_pacer_pop_oldest (p, &size)) == 2);
  fail_unless (GPOINTER_TO_UINT (rtpcc_pacer_pop_any (p, &size)) == 10);
  {
    /* what is left leaves paced: 11, 12, 3, 4 */
    static const guint rest[] = { 11, 12, 3, 4 };
    now = RTPCC_MSEC (50);
    for (guint i = 0; i < G_N_ELEMENTS (rest); i++) {
      gpointer h;
      now = MAX (now, rtpcc_pacer_next_send_time (p, now));
      h = rtpcc_pacer_pop (p, now, &size, NULL);
      fail_unless_equals_int (GPOINTER_TO_UINT (h), rest[i]);
    }
  }
  fail_unless_equals_int (rtpcc_pacer_get_packets (p), 0);
  fail_unless_equals_uint64 (rtpcc_pacer_get_bytes (p), 0);
  rtpcc_pacer_free (p);
}

GST_END_TEST;

GST_START_TEST (test_pacer_late_wakeup_catches_up)
{
  /* A sender whose timer always fires 3 ms late still achieves the rate:
   * the credit absorbs the lateness (the timer error Saurin's TFRC thesis,
   * University of Glasgow 2006, found to under-send). */
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
  /* vp8enc keeps kbit/s: a value it reads back unchanged */
  fail_unless_equals_uint64 (rtpcc_encoder_value_for_bitrate (vp8, 1234567),
      1235000);
  fail_unless_equals_uint64 (rtpcc_encoder_value_for_bitrate (vp8, 400), 1000);
  fail_unless_equals_string (av->property, "bitrate");

  rtpcc_encoder_hysteresis_init (&h);
  fail_unless (rtpcc_encoder_hysteresis_update (&h, 0, 1000000));
  /* small wiggles are ignored */
  fail_if (rtpcc_encoder_hysteresis_update (&h, RTPCC_SEC (5), 1030000));
  fail_if (rtpcc_encoder_hysteresis_update (&h, RTPCC_SEC (5), 980000));
  /* a big decrease applies at once */
  fail_unless (rtpcc_encoder_hysteresis_update (&h, RTPCC_MSEC (5100), 800000));
  /* an increase only after min-interval, and it is due then even if the
   * target does not change again */
  fail_if (rtpcc_encoder_hysteresis_update (&h, RTPCC_MSEC (5500), 900000));
  fail_unless_equals_int64 (rtpcc_encoder_hysteresis_retry_at (&h,
          RTPCC_MSEC (5500), 900000), RTPCC_MSEC (6100));
  /* a wiggle never becomes due, nor does a decrease (applied at once) */
  fail_unless_equals_int64 (rtpcc_encoder_hysteresis_retry_at (&h,
          RTPCC_MSEC (5500), 810000), RTPCC_TIME_NONE);
  fail_unless_equals_int64 (rtpcc_encoder_hysteresis_retry_at (&h,
          RTPCC_MSEC (5500), 700000), RTPCC_TIME_NONE);
  fail_unless (rtpcc_encoder_hysteresis_update (&h, RTPCC_MSEC (6100),
          900000));
  fail_unless_equals_uint64 (h.applied_bps, 900000);
  fail_unless_equals_int64 (rtpcc_encoder_hysteresis_retry_at (&h,
          RTPCC_MSEC (6100), 900000), RTPCC_TIME_NONE);
}

GST_END_TEST;

GST_START_TEST (test_encoder_modes)
{
  const RtpccEncoderInfo *x264 = rtpcc_encoder_lookup ("x264enc");
  const RtpccEncoderInfo *oh = rtpcc_encoder_lookup ("openh264enc");
  const RtpccEncoderInfo *vp8 = rtpcc_encoder_lookup ("vp8enc");
  const RtpccEncoderInfo *opus = rtpcc_encoder_lookup ("opusenc");
  const RtpccEncoderInfo *av = rtpcc_encoder_lookup ("avenc_mpeg4");

  fail_unless (rtpcc_encoder_mode_follows_bitrate (x264, "cbr"));
  fail_unless (rtpcc_encoder_mode_follows_bitrate (x264, "pass1"));
  fail_if (rtpcc_encoder_mode_follows_bitrate (x264, "quant"));
  fail_if (rtpcc_encoder_mode_follows_bitrate (x264, "qual"));
  /* openh264enc's default mode treats the bitrate as a hint */
  fail_if (rtpcc_encoder_mode_follows_bitrate (oh, "quality"));
  fail_if (rtpcc_encoder_mode_follows_bitrate (oh, "buffer"));
  fail_unless (rtpcc_encoder_mode_follows_bitrate (oh, "bitrate"));
  fail_unless_equals_string (oh->recommended, "rate-control=bitrate");
  fail_unless (rtpcc_encoder_mode_follows_bitrate (vp8, "vbr"));
  fail_if (rtpcc_encoder_mode_follows_bitrate (vp8, "cq"));
  fail_if (rtpcc_encoder_mode_follows_bitrate (av, "quant"));
  /* no mode switch, or the mode unknown: nothing to say */
  fail_unless (rtpcc_encoder_mode_follows_bitrate (opus, "cbr"));
  fail_unless (rtpcc_encoder_mode_follows_bitrate (x264, NULL));
  /* every entry with a switch names a recommended setting among its modes */
  for (const RtpccEncoderInfo * const *e = rtpcc_encoder_list (); *e; e++) {
    if (!(*e)->mode_property)
      continue;
    fail_unless ((*e)->rate_modes && (*e)->recommended, "%s", (*e)->factory);
    fail_unless (g_str_has_prefix ((*e)->recommended, (*e)->mode_property),
        "%s", (*e)->factory);
    fail_unless (rtpcc_encoder_mode_follows_bitrate (*e,
            strchr ((*e)->recommended, '=') + 1), "%s", (*e)->factory);
  }
}

GST_END_TEST;

/* A controller that asks for probe bytes: 1 Mbit/s target, 500 kbit/s of
 * it as fec_bitrate (what gcc does while probing). */
static void
probe_ctl_init (RtpccController * cc, RtpccTime now)
{
  rtpcc_controller_update_target (cc, 1000000, 500000, 1.0, "probe", "test");
}

/* XR discards the controller was told about (sizes, FEC flags) */
static GArray *probe_ctl_discards;

static void
probe_ctl_on_discards (RtpccController * cc, RtpccTime now,
    const RtpccPacketReport * reports, guint n_reports)
{
  if (probe_ctl_discards)
    g_array_append_vals (probe_ctl_discards, reports, n_reports);
}

static const RtpccControllerOps probe_ctl_ops = {
  .name = "test-probe",
  .description = "asks for 500 kbit/s of probe bytes",
  .instance_size = sizeof (RtpccController),
  .init = probe_ctl_init,
  .on_discards = probe_ctl_on_discards,
};

/* A TWCC sender that puts test-probe's padding on the media SSRC. */
static RtpccSender *
new_media_probe_sender (guint64 seed)
{
  RtpccSenderConfig cfg;

  rtpcc_controller_register (&probe_ctl_ops);
  rtpcc_sender_config_init (&cfg);
  cfg.controller = "test-probe";
  cfg.cc.max_bitrate = 2000000;
  cfg.feedback = RTPCC_FEEDBACK_TWCC;
  cfg.probe_ssrc_mode = RTPCC_PROBE_SSRC_MEDIA;
  cfg.circuit_breaker = FALSE;
  cfg.fec_pt = RTPCC_FEC_DEFAULT_PT;
  cfg.seed = seed;
  return rtpcc_sender_new (&cfg, 0, NULL);
}

/* What went on the wire, parsed back (TWCC extension ID 1): the header
 * the sender wrote says what the sender says it sent. */
static RtpccRtpInfo
wire_info (const RtpccWirePacket * w)
{
  RtpccRtpInfo i;

  fail_unless (rtpcc_rtp_parse (w->head, w->head_len, w->size, 1, &i, NULL));
  fail_unless_equals_int (i.ssrc, w->info.ssrc);
  fail_unless_equals_int (i.seq, w->info.seq);
  fail_unless_equals_int (i.pt, w->info.pt);
  fail_unless_equals_int (i.marker, w->info.marker);
  fail_unless_equals_int (i.rtp_ts, w->info.rtp_ts);
  fail_unless_equals_int (i.has_twcc, w->info.has_twcc);
  if (i.has_twcc)
    fail_unless_equals_int (i.twcc_seq, w->info.twcc_seq);
  fail_unless_equals_int (i.padding_only, w->handle == NULL);
  return i;
}

GST_START_TEST (test_sender_probing)
{
  for (int mode = 0; mode < 3; mode++) {
    RtpccSenderConfig cfg;
    RtpccSender *s;
    RtpccRtpInfo info = { 0, }, pi;
    RtpccWirePacket w;
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
      while (rtpcc_sender_dequeue (s, now, &w)) {
        pi = wire_info (&w);
        media++;
        /* the 12-byte header written, then the 988 bytes of the rest */
        fail_unless_equals_int (w.tail_offset, 12);
        fail_unless_equals_int (w.head_len, mode == 1 ? 20 : 12);
        fail_unless_equals_int (w.size, w.head_len + 988);
        if (mode == 1) {
          fail_unless (pi.has_twcc);
          fail_unless (!have_twcc || pi.twcc_seq == (guint16) (last_twcc + 1));
          last_twcc = pi.twcc_seq;
          have_twcc = TRUE;
        }
      }
      while (rtpcc_sender_dequeue_probe (s, now, &w)) {
        pi = wire_info (&w);
        probes++;
        fail_unless (pi.ssrc != info.ssrc);
        fail_unless_equals_int (pi.pt, 96);
        fail_unless (w.info.is_fec && pi.padding_only);
        /* whole: header (+ extension), 255 bytes of padding, and the
         * sender counts what goes on the wire */
        fail_unless_equals_int (w.size, w.head_len);
        fail_unless_equals_int (w.info.size, w.size);
        fail_unless_equals_int (w.size, RTPCC_PROBE_PACKET_SIZE + (mode == 1 ?
                8 : 0));
        fail_unless_equals_int (w.head[0] & 0x20, 0x20);
        fail_unless_equals_int (w.head[w.head_len - 1], RTPCC_PROBE_PADDING);
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
      /* 500 kbit/s of 267-byte packets for 1 s: 234 (275 bytes with the
       * TWCC extension: 227) */
      fail_unless (probes >= 225 && probes <= 240, "%u probes", probes);
      fail_unless_equals_uint64 (rtpcc_sender_get_stats (s, 0)->probe_packets,
          probes);
    }
    rtpcc_sender_free (s);
  }
}

GST_END_TEST;

/* The SR the sender builds now (NULL-safe: FALSE if none is due). */
static gboolean
build_sr (RtpccSender * s, RtpccTime now, RtpccRtcpSR * sr)
{
  guint8 buf[512];
  gsize n = rtpcc_sender_build_rtcp (s, now, buf, sizeof buf);
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;

  if (n == 0)
    return FALSE;
  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless_equals_int (pkt.pt, RTPCC_RTCP_SR);
  fail_unless (rtpcc_rtcp_parse_sr (&pkt, sr));
  return TRUE;
}

/* probe-ssrc-mode=media: padding rides on the media SSRC, which is
 * renumbered on the wire; a receiver (ours, in TWCC mode, fed everything
 * the sender puts on the wire) sees no gap but the one upstream made, and
 * every sent packet, padding included, comes back in the feedback. */
GST_START_TEST (test_sender_probe_media_ssrc)
{
  RtpccReceiverConfig rcfg;
  RtpccSender *s;
  RtpccReceiver *r;
  RtpccRtpInfo info = { 0, }, pi;
  RtpccWirePacket w;
  guint probes = 0, media = 0, pads_since_marker_violation = 0;
  guint16 offset = 0, last_wire = 0, wire_149 = 0, wire_151 = 0;
  guint16 last_twcc = 0;
  gboolean have_last = FALSE, last_was_end = FALSE, have_twcc = FALSE;
  gboolean discarded = FALSE;
  guint32 last_ts = 0, sr_packets = 0, sr_octets = 0;
  guint8 fb[1500];
  const RtpccSenderStats *st;
  const RtpccReceiverStats *rst;
  RtpccRtcpSR sr;
  guint16 wire;

  s = new_media_probe_sender (7);
  fail_unless (s != NULL);
  rtpcc_receiver_config_init (&rcfg);
  rcfg.feedback = RTPCC_FEEDBACK_TWCC;
  rcfg.rtcp_interval = RTPCC_MSEC (200);
  rcfg.seed = 8;
  r = rtpcc_receiver_new (&rcfg, 0);
  probe_ctl_discards = g_array_new (FALSE, FALSE, sizeof (RtpccPacketReport));

  info.ssrc = 0x1234;
  info.pt = 96;
  info.size = 1000;
  info.seq = 65500;             /* the wire space wraps during the run */
  info.rtp_ts = 1000;
  /* 1.2 s: a 1000 B packet every 10 ms, frames of three packets (marker on
   * the third); the 51st (original seq 65500 + 50, a frame end) is never
   * queued: an upstream drop */
  for (RtpccTime now = 0; now < RTPCC_MSEC (1200); now += RTPCC_MSEC (1)) {
    if (now % RTPCC_MSEC (10) == 0) {
      guint k = (guint) (now / RTPCC_MSEC (10));
      info.marker = k % 3 == 2;
      if (k != 50)
        rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (1));
      info.seq++;
      if (info.marker)
        info.rtp_ts += 3000;
    }
    while (rtpcc_sender_dequeue (s, now, &w)) {
      guint16 orig;
      /* the receiver gets what the bytes say */
      pi = wire_info (&w);
      orig = (guint16) (pi.seq - offset);
      media++;
      fail_unless_equals_int (pi.ssrc, 0x1234);
      /* contiguous on the wire, but for the upstream gap */
      if (have_last && orig != (guint16) (65500 + 51))
        fail_unless_equals_int (pi.seq, (guint16) (last_wire + 1));
      if (orig == (guint16) (65500 + 49))
        wire_149 = pi.seq;
      if (orig == (guint16) (65500 + 51))
        wire_151 = pi.seq;
      /* the sender finds the packet by its original seq */
      fail_unless (!offset || rtpcc_sender_map_seq (s, 0x1234, orig, &wire));
      if (offset)
        fail_unless_equals_int (wire, pi.seq);
      last_wire = pi.seq;
      have_last = TRUE;
      last_was_end = pi.marker;
      last_ts = pi.rtp_ts;
      fail_unless (pi.has_twcc);
      fail_unless (!have_twcc || pi.twcc_seq == (guint16) (last_twcc + 1));
      last_twcc = pi.twcc_seq;
      have_twcc = TRUE;
      sr_packets++;
      /* what follows the header written */
      sr_octets += w.size - w.head_len;
      fail_unless_equals_int (w.info.size, w.size);
      rtpcc_receiver_on_rtp (r, now, &pi);
    }
    while (rtpcc_sender_dequeue_probe (s, now, &w)) {
      pi = wire_info (&w);
      probes++;
      /* one more packet of the media stream, after a frame's end */
      fail_unless_equals_int (pi.ssrc, 0x1234);
      fail_unless_equals_int (pi.pt, 96);
      fail_unless (!pi.marker);
      fail_unless (w.info.is_fec && pi.padding_only);
      /* on the wire with its TWCC extension, and counted so */
      fail_unless_equals_int (w.info.size, RTPCC_PROBE_PACKET_SIZE + 8);
      fail_unless_equals_int (w.size, w.info.size);
      fail_unless_equals_int (pi.rtp_ts, last_ts);
      if (!last_was_end)
        pads_since_marker_violation++;
      fail_unless_equals_int (pi.seq, (guint16) (last_wire + 1));
      fail_unless (pi.twcc_seq == (guint16) (last_twcc + 1));
      last_twcc = pi.twcc_seq;
      last_wire = pi.seq;
      offset++;
      sr_packets++;
      rtpcc_receiver_on_rtp (r, now, &pi);
      /* a playout buffer discards by wire seq: this padding packet and
       * the media packet before it (sizes 275 and 1008 with the TWCC
       * extension) */
      if (now >= RTPCC_MSEC (600) && !discarded) {
        fail_unless (rtpcc_receiver_mark_discarded (r, now, 0x1234,
                (guint16) (pi.seq - 1), 2));
        discarded = TRUE;
      }
    }
    {
      gsize n;
      RtpccTime next;
      while (rtpcc_receiver_next_feedback_time (r) <= now
          && (n = rtpcc_receiver_build_feedback (r, now, fb, sizeof fb)) > 0)
        rtpcc_sender_receive_rtcp (s, now, fb, n);
      if (build_sr (s, now, &sr)) {
        fail_unless_equals_int (sr.ssrc, 0x1234);
        /* padding counts as a packet, never as payload octets */
        fail_unless_equals_int (sr.packet_count, sr_packets);
        fail_unless_equals_int (sr.octet_count, sr_octets);
      }
      rtpcc_sender_tick (s, now);
      next = rtpcc_sender_next_timeout (s, now);
      fail_unless (next == RTPCC_TIME_NONE || next > now, "spin at %"
          G_GINT64_FORMAT, now);
    }
  }
  g_message ("media-ssrc probing: %u media, %u padding, offset %u", media,
      probes, offset);
  fail_unless_equals_int (pads_since_marker_violation, 0);
  /* 500 kbit/s of 275-byte packets would be ~270 in 1.2 s; waiting for
   * frame ends costs some */
  fail_unless (probes >= 120, "%u probes", probes);
  fail_unless_equals_int (media, 119);
  /* the upstream gap stays a gap: 65549 is mid-frame (no padding after
   * it) and 65550 is missing */
  fail_unless_equals_int ((guint16) (wire_151 - wire_149), 2);
  st = rtpcc_sender_get_stats (s, RTPCC_MSEC (1200));
  fail_unless_equals_uint64 (st->probe_packets, probes);
  fail_unless_equals_uint64 (st->probe_media_packets, probes);
  fail_unless_equals_uint64 (st->reported_lost, 0);
  /* all but the packets of the last feedback interval were reported */
  fail_unless (st->reported_received + 40 >= media + probes,
      "%" G_GUINT64_FORMAT " of %u", st->reported_received, media + probes);
  rst = rtpcc_receiver_get_stats (r, RTPCC_MSEC (1200));
  fail_unless_equals_uint64 (rst->packets_received, media + probes);
  /* padding makes no gap: only the upstream drop is missing */
  fail_unless_equals_uint64 (rst->packets_lost, 1);
  fail_unless_equals_uint64 (rst->duplicates, 0);
  /* the XR discard, in wire seqs, maps back onto the right packets */
  fail_unless_equals_uint64 (st->reported_discarded, 2);
  fail_unless_equals_int (probe_ctl_discards->len, 2);
  fail_unless_equals_int (g_array_index (probe_ctl_discards,
          RtpccPacketReport, 0).size, 1000 + 8);
  fail_unless (!g_array_index (probe_ctl_discards, RtpccPacketReport,
          0).is_fec);
  fail_unless_equals_int (g_array_index (probe_ctl_discards,
          RtpccPacketReport, 1).size, RTPCC_PROBE_PACKET_SIZE + 8);
  fail_unless (g_array_index (probe_ctl_discards, RtpccPacketReport,
          1).is_fec);
  g_array_unref (probe_ctl_discards);
  probe_ctl_discards = NULL;

  /* FEC that names this SSRC stops padding on it for good */
  rtpcc_sender_note_fec_protected (s, 0x1234);
  probes = 0;
  for (RtpccTime now = RTPCC_MSEC (1200); now < RTPCC_MSEC (1500);
      now += RTPCC_MSEC (1)) {
    if (now % RTPCC_MSEC (10) == 0) {
      info.marker = TRUE;
      rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (1));
      info.seq++;
    }
    while (rtpcc_sender_dequeue (s, now, &w)) {
      pi = wire_info (&w);
      fail_unless_equals_int (pi.seq, (guint16) (info.seq - 1 + offset));
      rtpcc_receiver_on_rtp (r, now, &pi);
    }
    while (rtpcc_sender_dequeue_probe (s, now, &w))
      probes++;
    /* feedback keeps flowing (else the no-feedback timer would be due) */
    {
      gsize n;
      while (rtpcc_receiver_next_feedback_time (r) <= now
          && (n = rtpcc_receiver_build_feedback (r, now, fb, sizeof fb)) > 0)
        rtpcc_sender_receive_rtcp (s, now, fb, n);
    }
    {
      RtpccTime next = rtpcc_sender_next_timeout (s, now);
      fail_unless (next == RTPCC_TIME_NONE || next > now);
    }
  }
  fail_unless_equals_int (probes, 0);
  rtpcc_receiver_free (r);
  rtpcc_sender_free (s);
}

GST_END_TEST;

/* A packet in the FEC + probing test: the bytes as queued. */
typedef struct
{
  gsize len;
  gboolean fec;
  guint8 data[];
} TestPkt;

static TestPkt *
test_pkt_new (const guint8 * data, gsize len, gboolean fec)
{
  TestPkt *p = g_malloc (sizeof (TestPkt) + len);
  p->len = len;
  p->fec = fec;
  memcpy (p->data, data, len);
  return p;
}

/* The datagram of @w (@p: the bytes queued, NULL for a probe) as a
 * receiver hands it on: without the TWCC-only extension block (what
 * rtpccsrc does before FEC decoding). */
static gsize
wire_and_strip (const RtpccWirePacket * w, const TestPkt * p, guint8 * out,
    gsize max)
{
  guint8 wire[512];
  gsize n = w->head_len, stripped;

  fail_unless (w->size <= sizeof wire);
  memcpy (wire, w->head, w->head_len);
  if (p) {
    memcpy (wire + n, p->data + w->tail_offset, p->len - w->tail_offset);
    n += p->len - w->tail_offset;
  }
  fail_unless_equals_int (n, w->size);
  stripped = rtpcc_rtp_strip_extension (wire, n, 1, out, max);
  fail_unless (stripped > 0);
  return stripped;
}

/* fecenc's FEC (our format, own SSRC, protecting 0x1234 by original seqs)
 * with padding probes on the media SSRC, every packet sent as the sender
 * writes it (its head, then the rest of the bytes queued) and the TWCC
 * extension taken off again as rtpccsrc does: with the sender's header
 * rewrite every media packet dropped on the way is recovered exactly as it
 * was sent (wire seq included); without it (the FEC packets queued as
 * bytes the sender never sees, and sent as fecenc made them), not. Returns
 * the number of drops recovered exactly; @drops gets the number of drops. */
static guint
run_fec_with_media_probes (gboolean rewrite, guint * drops,
    guint64 * rewritten)
{
  RtpccSender *s;
  RtpccFecEncoderConfig ec;
  RtpccFecEncoder *enc = NULL;
  RtpccFecDecoderConfig dc;
  RtpccFecDecoder *dec;
  GHashTable *dropped = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) g_bytes_unref);
  guint16 seq = 40000;
  guint32 ts = 0;
  guint media_out = 0, exact = 0;
  RtpccFecDecoderStats ds;

  s = new_media_probe_sender (11);
  rtpcc_sender_set_free_func (s, g_free);
  rtpcc_fec_encoder_config_init (&ec);
  ec.scheme = RTPCC_FEC_SCHEME_XOR;
  ec.n = 4;
  rtpcc_fec_decoder_config_init (&dc);
  dec = rtpcc_fec_decoder_new (&dc);
  *drops = 0;

  for (RtpccTime now = 0; now < RTPCC_MSEC (1500); now += RTPCC_MSEC (1)) {
    RtpccWirePacket w;
    TestPkt *p;

    if (now % RTPCC_MSEC (10) == 0) {
      guint k = (guint) (now / RTPCC_MSEC (10));
      guint8 rtp[12 + 160];
      gsize len = 12 + 60 + (k * 7) % 100;
      RtpccRtpInfo info = { 0, };
      GBytes *fb;

      info.seq = seq++;
      info.marker = k % 3 == 2;
      rtp[0] = 0x80;
      rtp[1] = (guint8) (96 | (info.marker ? 0x80 : 0));
      GST_WRITE_UINT16_BE (rtp + 2, info.seq);
      GST_WRITE_UINT32_BE (rtp + 4, ts);
      GST_WRITE_UINT32_BE (rtp + 8, 0x1234);
      for (gsize i = 12; i < len; i++)
        rtp[i] = (guint8) (k * 31 + i);
      fail_unless_equals_int (rtpcc_sender_enqueue_rtp (s, now, rtp, len, len,
              test_pkt_new (rtp, len, FALSE)), RTPCC_SENDER_QUEUED);
      if (info.marker)
        ts += 3000;
      /* FEC starts after probes have renumbered the media for 0.4 s, as
       * fecenc does when the controller first asks for fec-bitrate */
      if (now == RTPCC_MSEC (400)) {
        enc = rtpcc_fec_encoder_new (&ec, NULL);
        fail_unless (enc != NULL);
      }
      if (enc) {
        rtpcc_fec_encoder_push (enc, rtp, len, now);
        while ((fb = rtpcc_fec_encoder_pop (enc))) {
          gsize flen;
          const guint8 *fd = g_bytes_get_data (fb, &flen);
          if (rewrite) {
            if (rtpcc_sender_enqueue_rtp (s, now, fd, flen, flen,
                    test_pkt_new (fd, flen, TRUE)) != RTPCC_SENDER_QUEUED)
              fail_unless (rtpcc_sender_get_stats (s, now)->fec_rewrite_drops
                  > 0);
          } else {
            /* the sender sees no FEC header: no rewrite */
            RtpccRtpInfo fi = { 0, };
            fi.ssrc = GST_READ_UINT32_BE (fd + 8);
            fi.seq = GST_READ_UINT16_BE (fd + 2);
            fi.pt = fd[1] & 0x7f;
            fi.size = flen;
            fi.is_fec = TRUE;
            rtpcc_sender_note_fec_protected (s, GST_READ_UINT32_BE (fd + 16));
            rtpcc_sender_enqueue (s, now, &fi, test_pkt_new (fd, flen, TRUE));
          }
          g_bytes_unref (fb);
        }
      }
    }
    while ((p = rtpcc_sender_dequeue (s, now, &w))) {
      guint8 out[512];
      gsize olen = wire_and_strip (&w, p, out, sizeof out);

      if (p->fec) {
        fail_unless (rtpcc_fec_decoder_push_fec (dec, rewrite ? out : p->data,
                rewrite ? olen : p->len, now));
      } else {
        media_out++;
        /* once FEC flows, lose one media packet in nine (at most one per
         * block of four) */
        if (now > RTPCC_MSEC (420) && now < RTPCC_MSEC (1400)
            && media_out % 9 == 0) {
          g_hash_table_insert (dropped, GUINT_TO_POINTER ((guint) w.info.seq),
              g_bytes_new (out, olen));
          (*drops)++;
        } else {
          rtpcc_fec_decoder_push_media (dec, out, olen, now);
        }
      }
      g_free (p);
    }
    while (rtpcc_sender_dequeue_probe (s, now, &w)) {
      guint8 out[512];
      gsize olen = wire_and_strip (&w, NULL, out, sizeof out);
      rtpcc_fec_decoder_push_media (dec, out, olen, now);
    }
    {
      GBytes *out;
      gboolean recovered;
      while ((out = rtpcc_fec_decoder_pop (dec, now, &recovered))) {
        gsize olen;
        const guint8 *od = g_bytes_get_data (out, &olen);
        GBytes *want = g_hash_table_lookup (dropped,
            GUINT_TO_POINTER ((guint) GST_READ_UINT16_BE (od + 2)));
        if (recovered && want && g_bytes_compare (want, out) == 0)
          exact++;
        g_bytes_unref (out);
      }
    }
    rtpcc_sender_tick (s, now);
  }
  rtpcc_fec_decoder_get_stats (dec, &ds);
  if (rewrite)
    fail_unless_equals_uint64 (ds.bad_recoveries, 0);
  *rewritten = rtpcc_sender_get_stats (s, 0)->fec_rewritten;
  /* padding went on the media before FEC named it, and none after */
  fail_unless (rtpcc_sender_get_stats (s, 0)->probe_media_packets > 20);
  if (enc)
    rtpcc_fec_encoder_free (enc);
  rtpcc_fec_decoder_free (dec);
  rtpcc_sender_free (s);
  g_hash_table_unref (dropped);
  return exact;
}

GST_START_TEST (test_sender_probe_media_fec)
{
  guint drops, exact;
  guint64 rewritten;

  exact = run_fec_with_media_probes (TRUE, &drops, &rewritten);
  g_message ("FEC + media-SSRC probes: %u of %u drops recovered exactly, %"
      G_GUINT64_FORMAT " FEC headers rewritten", exact, drops, rewritten);
  fail_unless (drops >= 8, "%u drops", drops);
  fail_unless_equals_int (exact, drops);
  fail_unless (rewritten > 20, "%" G_GUINT64_FORMAT, rewritten);
  /* the control: the original seqs in the FEC header do not recover the
   * renumbered packets */
  exact = run_fec_with_media_probes (FALSE, &drops, &rewritten);
  g_message ("without the rewrite: %u of %u", exact, drops);
  fail_unless (exact < drops / 2, "%u of %u recovered without rewrite",
      exact, drops);
  fail_unless_equals_uint64 (rewritten, 0);
}

GST_END_TEST;

/* Upstream re-sends a packet (same original seq) or delivers one late (an
 * older original seq never sent yet) on a media SSRC that padding
 * renumbers: a re-sent packet goes out as the duplicate it is (its first
 * wire seq), a late one in its own slot (order kept), and neither takes a
 * wire seq that padding or another packet holds, nor lets the next padding
 * take one. */
GST_START_TEST (test_sender_probe_media_duplicates)
{
  RtpccSender *s;
  RtpccRtpInfo info = { 0, }, pi;
  RtpccWirePacket w;
  GHashTable *wire_of = g_hash_table_new (NULL, NULL);  /* orig → wire */
  GHashTable *orig_at = g_hash_table_new (NULL, NULL);  /* wire → orig */
  GHashTable *pad_wire = g_hash_table_new (NULL, NULL);
  const guint16 seq0 = 65400;  /* wraps during the run */
  guint16 next = seq0, held = 0;
  guint probes = 0, dups = 0, lates = 0, k = 0, n_orig;
  gboolean holding = FALSE;
  gpointer h;

  s = new_media_probe_sender (3);
  fail_unless (s != NULL);
  info.ssrc = 0x4321;
  info.pt = 96;
  info.size = 400;

  for (RtpccTime now = 0; now < RTPCC_MSEC (2000); now += RTPCC_MSEC (1)) {
    if (now % RTPCC_MSEC (10) == 0) {
      /* frames of two packets (marker on the second); every 5th packet is
       * queued twice (an upstream duplicate); every 7th is held back
       * behind the next one (upstream reordering) */
      info.seq = next++;
      info.marker = k % 2 == 1;
      info.rtp_ts = 3000 * (k / 2);
      if (k % 7 == 3) {
        held = info.seq;
        holding = TRUE;
      } else {
        rtpcc_sender_enqueue (s, now, &info,
            GUINT_TO_POINTER ((guint) info.seq + 1));
        if (holding) {
          RtpccRtpInfo late = info;
          late.seq = held;
          late.marker = (k - 1) % 2 == 1;
          late.rtp_ts = 3000 * ((k - 1) / 2);
          rtpcc_sender_enqueue (s, now, &late,
              GUINT_TO_POINTER ((guint) held + 1));
          holding = FALSE;
          lates++;
        }
        if (k % 5 == 0) {
          rtpcc_sender_enqueue (s, now, &info,
              GUINT_TO_POINTER ((guint) info.seq + 1));
          dups++;
        }
      }
      k++;
    }
    while ((h = rtpcc_sender_dequeue (s, now, &w))) {
      guint orig = GPOINTER_TO_UINT (h) - 1;
      gpointer ws, o;

      pi = wire_info (&w);
      fail_if (g_hash_table_contains (pad_wire, GUINT_TO_POINTER ((guint)
                  pi.seq)), "media (orig %u) took padding's wire seq %u",
          orig, pi.seq);
      if (g_hash_table_lookup_extended (wire_of, GUINT_TO_POINTER (orig),
              NULL, &ws))
        fail_unless_equals_int (GPOINTER_TO_UINT (ws), pi.seq);
      if (g_hash_table_lookup_extended (orig_at, GUINT_TO_POINTER ((guint)
                  pi.seq), NULL, &o))
        fail_unless (GPOINTER_TO_UINT (o) == orig,
            "wire seq %u for orig %u and %u", pi.seq, GPOINTER_TO_UINT (o),
            orig);
      g_hash_table_insert (wire_of, GUINT_TO_POINTER (orig),
          GUINT_TO_POINTER ((guint) pi.seq));
      g_hash_table_insert (orig_at, GUINT_TO_POINTER ((guint) pi.seq),
          GUINT_TO_POINTER (orig));
    }
    while (rtpcc_sender_dequeue_probe (s, now, &w)) {
      gpointer key = GUINT_TO_POINTER ((guint) (pi = wire_info (&w)).seq);

      fail_if (g_hash_table_contains (orig_at, key),
          "padding took media's wire seq %u", pi.seq);
      fail_if (g_hash_table_contains (pad_wire, key),
          "padding took wire seq %u twice", pi.seq);
      g_hash_table_add (pad_wire, key);
      probes++;
    }
    rtpcc_sender_tick (s, now);
  }
  /* the original order survives on the wire */
  n_orig = (guint16) (next - seq0);
  for (guint i = 1; i < n_orig; i++) {
    gpointer a, b;
    if (g_hash_table_lookup_extended (wire_of, GUINT_TO_POINTER ((guint)
                (guint16) (seq0 + i - 1)), NULL, &a)
        && g_hash_table_lookup_extended (wire_of, GUINT_TO_POINTER ((guint)
                (guint16) (seq0 + i)), NULL, &b))
      fail_unless ((gint16) (guint16) (GPOINTER_TO_UINT (b) -
              GPOINTER_TO_UINT (a)) > 0, "orig %u at %u, next at %u",
          (guint16) (seq0 + i - 1), GPOINTER_TO_UINT (a),
          GPOINTER_TO_UINT (b));
  }
  /* upstream starts its numbering over, far behind: a new sequence, not
   * a late packet, and the next padding follows it */
  {
    RtpccTime now = RTPCC_MSEC (2000);
    guint16 wire = 0;
    gboolean sent = FALSE;

    info.seq = (guint16) (next - 20000);
    info.marker = TRUE;
    rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (1));
    for (; now < RTPCC_MSEC (2100); now += RTPCC_MSEC (1)) {
      while (rtpcc_sender_dequeue (s, now, &w)) {
        wire = wire_info (&w).seq;
        sent = TRUE;
      }
      if (sent && rtpcc_sender_dequeue_probe (s, now, &w)) {
        pi = wire_info (&w);
        break;
      }
      rtpcc_sender_tick (s, now);
    }
    fail_unless (sent && now < RTPCC_MSEC (2100));
    fail_unless_equals_int (pi.seq, (guint16) (wire + 1));
  }
  g_message ("%u probes, %u duplicates, %u late packets from upstream",
      probes, dups, lates);
  fail_unless (probes > 50, "%u probes", probes);
  fail_unless (dups > 20 && lates > 10, "%u dups, %u lates", dups, lates);
  g_hash_table_unref (wire_of);
  g_hash_table_unref (orig_at);
  g_hash_table_unref (pad_wire);
  rtpcc_sender_free (s);
}

GST_END_TEST;

static Suite *
rtpcc_core_suite (void)
{
  Suite *s = suite_create ("rtpcc_core");
  TCase *tc = tcase_create ("core");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_registry);
  tcase_add_test (tc, test_time_sub_saturated);
  tcase_add_test (tc, test_pacer_rate);
  tcase_add_test (tc, test_pacer_urgent);
  tcase_add_test (tc, test_pacer_late_wakeup_catches_up);
  tcase_add_test (tc, test_pacer_bounded_spreading);
  tcase_add_test (tc, test_pacer_overflow_drops_oldest);
  tcase_add_test (tc, test_encoder_table);
  tcase_add_test (tc, test_encoder_modes);
  tcase_add_test (tc, test_sender_probing);
  tcase_add_test (tc, test_sender_probe_media_ssrc);
  tcase_add_test (tc, test_sender_probe_media_fec);
  tcase_add_test (tc, test_sender_probe_media_duplicates);
  return s;
}

GST_CHECK_MAIN (rtpcc_core);

/* Unit tests for the "gcc" controller (gst/rtpcc/cc/gcc.c) through
 * synthetic feedback: parameters, key frames, the free path, loss on FEC,
 * RTCP RR alone, the hold of an application-limited sender. Its parts have
 * their own tests (rtpcc_gcc_*.c); the closed loops are in
 * rtpcc_gcc_loop.c.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include "cc-util.h"
#include <rtpcc/cc/gcc.h>
#include <rtpcc/cc/gcc/standing.h>
#include <math.h>
#include <string.h>

#define MS(x) RTPCC_MSEC (x)
#define US(x) RTPCC_USEC (x)
/* the receiver's clock offset, unknown to the controller */
#define RX_OFFSET RTPCC_SEC (4321)

/* ---- feedback helpers for the controller --------------------------------- */

typedef struct
{
  RtpccController *cc;
  guint64 seq;
  GArray *reports;              /* pending RtpccPacketReport */
  RtpccTime srtt;
  RtpccTime resolution;         /* the feedback's arrival-time unit */
} Feeder;

static void
feeder_init (Feeder * f, RtpccController * cc)
{
  f->cc = cc;
  f->seq = 1;
  f->reports = g_array_new (FALSE, FALSE, sizeof (RtpccPacketReport));
  f->srtt = MS (60);
  f->resolution = 0;
}

static void
feeder_clear (Feeder * f)
{
  g_array_unref (f->reports);
  rtpcc_controller_free (f->cc);
}

/* one packet sent at @send, arriving at @arrival (NONE = lost) */
static void
feeder_packet (Feeder * f, RtpccTime send, RtpccTime arrival, guint size,
    gboolean fec)
{
  RtpccSentPacket p = { f->seq, send, size, FALSE, fec };
  RtpccPacketReport r;

  rtpcc_controller_packet_sent (f->cc, send, &p);
  memset (&r, 0, sizeof (r));
  r.seq = f->seq++;
  r.send_time = send;
  r.size = size;
  r.received = arrival != RTPCC_TIME_NONE;
  r.arrival = arrival == RTPCC_TIME_NONE ? RTPCC_TIME_NONE :
      arrival + RX_OFFSET;
  r.is_fec = fec;
  g_array_append_val (f->reports, r);
}

static void
feeder_flush (Feeder * f, RtpccTime now)
{
  RtpccFeedback fb;

  memset (&fb, 0, sizeof (fb));
  fb.reports = (const RtpccPacketReport *) f->reports->data;
  fb.n_reports = f->reports->len;
  fb.rtt_sample = f->srtt;
  fb.srtt = f->srtt;
  fb.report_time = now + RX_OFFSET;
  fb.arrival_resolution = f->resolution;
  rtpcc_controller_feedback (f->cc, now, &fb);
  g_array_set_size (f->reports, 0);
}

/* One 1000-byte packet sent at @t arriving at @arrival (NONE: lost), the
 * feedback every 50 ms (@next_fb) as of @flush_at, then a tick. */
static void
feeder_step (Feeder * f, RtpccTime t, RtpccTime arrival, RtpccTime flush_at,
    RtpccTime * next_fb)
{
  feeder_packet (f, t, arrival, 1000, FALSE);
  if (t >= *next_fb) {
    feeder_flush (f, flush_at);
    *next_fb += MS (50);
  }
  rtpcc_controller_tick (f->cc, t);
}

/* A steady stream: 1000-byte packets every @gap, one-way delay 25 ms plus
 * the queue the caller models, feedback every 50 ms. Returns the end. */
static RtpccTime
feeder_steady (Feeder * f, RtpccTime t0, RtpccTime t1, RtpccTime gap)
{
  RtpccTime t, next_fb = t0 + MS (50);

  for (t = t0; t < t1; t += gap)
    feeder_step (f, t, t + MS (25), t + MS (25), &next_fb);
  feeder_flush (f, t + MS (25));
  return t;
}

/* Frames of two 1200-byte packets every 33 ms from @t0 to @t1 through a
 * 1.2 Mbit/s link (8 ms per packet) with 25 ms of delay, the second packet
 * @gap after the first; every @every-th frame (0 = none) and, if @queue,
 * every packet arrives @extra later. Arrivals are rounded down to the
 * feeder's resolution, as a receiver's report rounds them. Feedback every
 * other frame; TRUE if the free path held at any feedback. */
static gboolean
feeder_frames (Feeder * f, RtpccTime t0, RtpccTime t1, RtpccTime gap,
    guint every, RtpccTime extra, gboolean queue, RtpccTime * link_free)
{
  RtpccGccInfo info;
  gboolean seen = FALSE;
  guint n = 0;

  for (RtpccTime t = t0; t < t1; t += MS (33), n++) {
    for (guint i = 0; i < 2; i++) {
      RtpccTime send = t + i * gap, arrival;

      *link_free = MAX (*link_free, send) + MS (8);
      arrival = *link_free + MS (25);
      if (queue || (every > 0 && n % every == 0))
        arrival += extra;
      if (f->resolution > 0)
        arrival = (arrival + RX_OFFSET) / f->resolution * f->resolution
            - RX_OFFSET;
      feeder_packet (f, send, arrival, 1200, FALSE);
    }
    rtpcc_controller_tick (f->cc, t);
    if (n % 2 == 1) {
      feeder_flush (f, t + MS (60));
      fail_unless (rtpcc_gcc_get_info (f->cc, &info));
      seen |= info.free_path;
    }
  }
  return seen;
}

/* The free-path test (gcc.c gcc_track_queue): what reads as queue on an
 * empty link does not hold the climb back, a queue stops it. */
GST_START_TEST (test_free_path_queue_test)
{
  Feeder f;
  RtpccGccInfo info;
  RtpccTime link_free = 0;

  feeder_init (&f, cc_util_new ("gcc", 100000, 5000000, 500000));
  /* the pacer's burst credit sends each frame's first two packets 0.3 ms
   * apart: the second waits 7.7 ms behind the first at the bottleneck, a
   * wait of our own making, not a queue */
  feeder_frames (&f, 0, RTPCC_SEC (3), US (300), 0, 0, FALSE, &link_free);
  fail_unless (rtpcc_gcc_get_info (f.cc, &info));
  fail_unless (info.free_path);
  /* a standing queue of 6 ms on every packet ends it within the first
   * control interval, and it stays ended */
  feeder_frames (&f, RTPCC_SEC (3), MS (3300), US (300), 0, MS (6), TRUE,
      &link_free);
  fail_if (feeder_frames (&f, MS (3300), RTPCC_SEC (6), US (300), 0,
          MS (6), TRUE, &link_free));
  /* arrivals reported in 1/1024 s: the base is the earliest-rounded
   * packet, so a 4.6 ms delay on every fourth frame reads as up to 5.6 ms;
   * the start allows two units for it */
  f.resolution = RTPCC_NSEC_PER_SEC / 1024;
  fail_unless (feeder_frames (&f, RTPCC_SEC (6), RTPCC_SEC (12), US (300), 4,
          US (4600), FALSE, &link_free));
  feeder_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_iframe_one_group_no_overuse)
{
  Feeder f;
  RtpccGccInfo info;
  RtpccTime t, next_fb;
  guint64 groups_before, decreases;
  guint64 target_before;
  gdouble max_mod = 0;

  /* 400 kbit/s of 1000-byte packets every 20 ms on a 1 Mbit/s link
   * (8 ms to serialise one), then a key frame: 20 packets of 1200 bytes
   * sent within 1 ms. The bottleneck spreads them over 20 × 9.6 = 192 ms,
   * and the following packets queue behind them while it drains. */
  feeder_init (&f, cc_util_new ("gcc", 100000, 2000000, 400000));
  t = feeder_steady (&f, 0, RTPCC_SEC (10), MS (20));
  fail_unless (rtpcc_gcc_get_info (f.cc, &info));
  fail_unless (info.n_overuse == 0);
  groups_before = info.n_groups;
  decreases = info.n_decreases;
  target_before = f.cc->target.target_bitrate;

  {
    RtpccTime link_free = t + MS (8);   /* the last steady packet */
    RtpccTime key = t + MS (20);
    next_fb = key + MS (50);
    for (gint i = 0; i < 20; i++) {
      RtpccTime send = key + US (50) * i;
      link_free = MAX (link_free, send) + US (9600);
      feeder_packet (&f, send, link_free + MS (25), 1200, FALSE);
    }
    /* 3 s of the steady stream queued behind it, 20 ms apart */
    for (t = key + MS (20); t < key + RTPCC_SEC (3); t += MS (20)) {
      link_free = MAX (link_free, t) + MS (8);
      feeder_packet (&f, t, link_free + MS (25), 1000, FALSE);
      if (t >= next_fb) {
        feeder_flush (&f, t + MS (60));
        next_fb += MS (50);
        rtpcc_gcc_get_info (f.cc, &info);
        max_mod = MAX (max_mod, info.modified - info.threshold);
      }
    }
    feeder_flush (&f, t + MS (200));
  }
  fail_unless (rtpcc_gcc_get_info (f.cc, &info));
  /* the key frame was one group. Groups closed since: the steady group
   * left open (closed by the key frame's first packet), the key frame's
   * (closed by the next packet), then the 149 packets sent every 20 ms
   * behind it, each its own group (arriving 8 ms apart, more than
   * burst_time, so not merged), each closing its predecessor — the first
   * of them closed the key frame's, the last is still open: 1 + 1 + 148 */
  fail_unless (info.n_groups - groups_before == 150, "%" G_GUINT64_FORMAT,
      info.n_groups - groups_before);
  fail_unless (info.n_overuse == 0, "over-use from one key frame");
  fail_unless (info.n_decreases == decreases);
  fail_unless (f.cc->target.target_bitrate >= target_before);
  /* and the filtered trend did cross the threshold: the raw-delay rule,
   * not a quiet filter, is what kept it from reading as over-use */
  fail_unless (max_mod > 0, "trend never crossed (%g)", max_mod);
  feeder_clear (&f);
}

GST_END_TEST;

/* ---- the controller through synthetic feedback --------------------------- */

GST_START_TEST (test_controller_basics)
{
  RtpccController *cc = cc_util_new ("gcc", 150000, 3000000, 300000);
  RtpccGccInfo info;
  gchar **names = rtpcc_controller_list ();
  gboolean listed = FALSE;

  for (gchar ** n = names; *n; n++)
    listed |= strcmp (*n, "gcc") == 0;
  g_strfreev (names);
  fail_unless (listed);

  fail_unless (cc->target.target_bitrate == 300000);
  fail_unless (strcmp (cc->target.state, "startup") == 0);
  fail_unless (cc->target.fec_bitrate == 0);
  fail_unless (cc->target.pacing_rate == 330000, "%" G_GUINT64_FORMAT,
      cc->target.pacing_rate);
  fail_unless (rtpcc_gcc_get_info (cc, &info));
  fail_unless (info.estimator == RTPCC_GCC_ESTIMATOR_TRENDLINE);

  fail_unless (rtpcc_controller_set_param (cc, "estimator", "kalman"));
  rtpcc_gcc_get_info (cc, &info);
  fail_unless (info.estimator == RTPCC_GCC_ESTIMATOR_KALMAN);
  fail_unless (rtpcc_controller_set_param (cc, "estimator", "trendline"));
  fail_if (rtpcc_controller_set_param (cc, "estimator", "nope"));
  fail_unless (rtpcc_controller_set_param (cc, "burst-time", "10"));
  fail_if (rtpcc_controller_set_param (cc, "burst-time", "-1"));
  fail_unless (rtpcc_controller_set_param (cc, "beta", "0.9"));
  fail_if (rtpcc_controller_set_param (cc, "beta", "1.0"));
  fail_if (rtpcc_controller_set_param (cc, "beta", "x"));
  fail_unless (rtpcc_controller_set_param (cc, "pacing-factor", "2"));
  fail_unless (cc->target.pacing_rate == 600000);
  fail_unless (rtpcc_controller_set_param (cc, "probing", "false"));
  fail_unless (rtpcc_controller_set_param (cc, "startup-gain", "1.5"));
  fail_unless (rtpcc_controller_set_param (cc, "rate-window", "1000"));
  fail_unless (rtpcc_controller_set_param (cc, "trendline-window", "30"));
  fail_if (rtpcc_controller_set_param (cc, "trendline-window", "30.5"));
  fail_unless (rtpcc_controller_set_param (cc, "probe-duration", "300"));
  fail_unless (rtpcc_controller_set_param (cc, "recovery-frac", "0.95"));
  fail_unless (rtpcc_controller_set_param (cc, "recovery-frac", "0"));
  fail_if (rtpcc_controller_set_param (cc, "recovery-frac", "1"));
  fail_unless (rtpcc_controller_set_param (cc, "recovery-gain", "1.5"));
  fail_if (rtpcc_controller_set_param (cc, "recovery-gain", "0.9"));
  fail_unless (rtpcc_controller_set_param (cc, "ramp-gain", "1"));
  fail_if (rtpcc_controller_set_param (cc, "ramp-gain", "9"));
  fail_unless (rtpcc_controller_set_param (cc, "ramp-rise", "1.3"));
  fail_if (rtpcc_controller_set_param (cc, "ramp-rise", "0.9"));
  fail_unless (rtpcc_controller_set_param (cc, "burst-detect", "busy"));
  fail_unless (rtpcc_controller_set_param (cc, "burst-detect", "size"));
  fail_if (rtpcc_controller_set_param (cc, "burst-detect", "frames"));
  fail_unless (rtpcc_controller_set_param (cc, "capacity-jump", "1"));
  fail_if (rtpcc_controller_set_param (cc, "capacity-jump", "0"));
  fail_if (rtpcc_controller_set_param (cc, "capacity-jump", "1.5"));
  fail_unless (rtpcc_controller_set_param (cc, "recovery-probes", "true"));
  fail_unless (rtpcc_controller_set_param (cc, "recovery-probes", "false"));
  fail_if (rtpcc_controller_set_param (cc, "recovery-probes", "2"));
  fail_unless (rtpcc_controller_set_param (cc, "free-time", "0"));
  fail_unless (rtpcc_controller_set_param (cc, "free-time", "800"));
  fail_if (rtpcc_controller_set_param (cc, "free-time", "-1"));
  fail_unless (rtpcc_controller_set_param (cc, "free-gain", "1.3"));
  fail_unless (rtpcc_controller_set_param (cc, "app-limit", "0"));
  fail_unless (rtpcc_controller_set_param (cc, "app-limit", "0.85"));
  fail_if (rtpcc_controller_set_param (cc, "app-limit", "1.5"));
  fail_if (rtpcc_controller_set_param (cc, "free-gain", "0.5"));
  fail_unless (rtpcc_controller_set_param (cc, "queue-test", "all"));
  fail_unless (rtpcc_controller_set_param (cc, "queue-test", "size"));
  fail_if (rtpcc_controller_set_param (cc, "queue-test", "some"));
  fail_if (rtpcc_controller_set_param (cc, "unknown", "1"));
  fail_if (rtpcc_gcc_get_info (NULL, &info));
  rtpcc_controller_free (cc);

  /* not a gcc controller */
  cc = rtpcc_controller_new ("fixed", &(RtpccControllerConfig) {
      150000, 1500000, 0, 1200, 0}, 0, NULL);
  fail_unless (cc != NULL);
  fail_if (rtpcc_gcc_get_info (cc, &info));
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* A sender that sends far below its target (an encoder that lags it, or
 * content that needs less): once start-up is over, the estimate must not
 * keep growing on a path that only ever carried what was sent. */
static RtpccGccInfo
app_limited_run (const gchar * app_limit)
{
  Feeder f;
  RtpccGccInfo info;
  RtpccTime t, next_fb = MS (50), q = 0;

  feeder_init (&f, cc_util_new ("gcc", 100000, 5000000, 300000));
  if (app_limit)
    fail_unless (rtpcc_controller_set_param (f.cc, "app-limit", app_limit));
  /* 2 s of 400 kbit/s into a queue that grows by 1 ms a packet: an
   * over-use ends start-up */
  for (t = 0; t < RTPCC_SEC (2); t += MS (20)) {
    feeder_packet (&f, t, t + MS (25) + q, 1000, FALSE);
    q += MS (1);
    if (t >= next_fb) {
      feeder_flush (&f, t + MS (25) + q);
      next_fb += MS (50);
    }
  }
  rtpcc_gcc_get_info (f.cc, &info);
  fail_unless (info.n_decreases > 0 && !info.startup);
  /* the queue drains; then 20 s of the same 400 kbit/s on an empty path */
  for (; t < RTPCC_SEC (4); t += MS (20)) {
    q = q > MS (20) ? q - MS (20) : 0;
    feeder_packet (&f, t, t + MS (25) + q, 1000, FALSE);
    if (t >= next_fb) {
      feeder_flush (&f, t + MS (25) + q);
      next_fb += MS (50);
    }
  }
  feeder_steady (&f, t, RTPCC_SEC (24), MS (20));
  rtpcc_gcc_get_info (f.cc, &info);
  info.delay_rate = f.cc->target.target_bitrate;
  feeder_clear (&f);
  return info;
}

GST_START_TEST (test_app_limited_hold)
{
  RtpccGccInfo on = app_limited_run (NULL), off = app_limited_run ("0");

  /* held (the default, 0.85): the target stays within one increase step of 400 kbit/s / 0.85,
   * the most a sender using 0.85 of it sends */
  fail_unless (on.delay_rate <= 400000 / 0.85 + 20000, "target %.0f",
      on.delay_rate);
  fail_unless (on.app_limited && on.n_app_limited > 0);
  /* without the hold (app-limit=0) the draft's cap alone lets it run to
   * 1.5 × R */
  fail_unless (off.delay_rate >= 1.4 * 400000, "target %.0f", off.delay_rate);
  fail_unless (off.n_app_limited == 0);
}

GST_END_TEST;

GST_START_TEST (test_controller_fec_loss_ignored)
{
  Feeder f;
  RtpccGccInfo info;
  RtpccTime t, next_fb = MS (50);

  /* every FEC packet lost (half the packets), no media lost: no loss cut;
   * then media loss of 25 %: a loss cut with reason "loss" */
  feeder_init (&f, cc_util_new ("gcc", 100000, 2000000, 500000));
  for (t = 0; t < RTPCC_SEC (3); t += MS (10)) {
    gboolean fec = (t / MS (10)) % 2;
    feeder_packet (&f, t, fec ? RTPCC_TIME_NONE : t + MS (25), 1000, fec);
    if (t >= next_fb) {
      feeder_flush (&f, t + MS (25));
      next_fb += MS (50);
    }
  }
  rtpcc_gcc_get_info (f.cc, &info);
  fail_unless (info.n_loss_decreases == 0);
  fail_unless (info.loss_fraction == 0.0, "%g", info.loss_fraction);
  for (; t < RTPCC_SEC (6); t += MS (10)) {
    gboolean lost = (t / MS (10)) % 4 == 0;
    feeder_packet (&f, t, lost ? RTPCC_TIME_NONE : t + MS (25), 1000, FALSE);
    if (t >= next_fb) {
      feeder_flush (&f, t + MS (25));
      next_fb += MS (50);
    }
  }
  rtpcc_gcc_get_info (f.cc, &info);
  fail_unless (info.n_loss_decreases > 0);
  fail_unless (fabs (info.loss_fraction - 0.25) < 0.06, "%g",
      info.loss_fraction);
  fail_unless (info.loss_rate < info.delay_rate);
  fail_unless (f.cc->target.target_bitrate == (guint64) info.loss_rate);
  feeder_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_controller_rr_only)
{
  RtpccController *cc = cc_util_new ("gcc", 100000, 2000000, 300000);
  RtpccReceiverReport rr;
  RtpccGccInfo info;

  /* draft §7: RTCP RR only — the loss rule on the fraction lost */
  memset (&rr, 0, sizeof (rr));
  rr.rtt = MS (80);
  rr.fraction_lost = 0;
  rtpcc_controller_receiver_report (cc, RTPCC_SEC (1), &rr);
  fail_unless (cc->target.target_bitrate == 315000, "%" G_GUINT64_FORMAT,
      cc->target.target_bitrate);
  rr.fraction_lost = 64;        /* 25 %: × (1 − 0.125) */
  rtpcc_controller_receiver_report (cc, RTPCC_SEC (2), &rr);
  fail_unless (cc->target.target_bitrate == 275625, "%" G_GUINT64_FORMAT,
      cc->target.target_bitrate);
  fail_unless (strcmp (cc->target.reason, "loss") == 0);
  rr.fraction_lost = 13;        /* 5.1 %: hold */
  rtpcc_controller_receiver_report (cc, RTPCC_SEC (3), &rr);
  fail_unless (cc->target.target_bitrate == 275625);
  /* the maximum bounds it */
  rr.fraction_lost = 0;
  for (guint i = 0; i < 100; i++)
    rtpcc_controller_receiver_report (cc, RTPCC_SEC (4 + i), &rr);
  fail_unless (cc->target.target_bitrate == 2000000);
  rtpcc_gcc_get_info (cc, &info);
  fail_unless (info.n_loss_decreases == 1);
  fail_unless (info.srtt == MS (80));
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* (a) by size: frames of @pkts 1000-byte packets, 40 ms apart, the last
 * one marked as the frame's end (the RTP marker) */
static void
send_frames (RtpccController * cc, RtpccTime * t, guint64 * seq, guint n,
    guint pkts)
{
  for (guint f = 0; f < n; f++, *t += MS (40))
    for (guint i = 0; i < pkts; i++) {
      RtpccSentPacket sp = { 0, };
      sp.seq = (*seq)++;
      sp.send_time = *t + MS (2) * i;
      sp.size = 1000;
      sp.frame_end = i + 1 == pkts;
      rtpcc_controller_packet_sent (cc, sp.send_time, &sp);
    }
}

GST_START_TEST (test_key_frames_by_size)
{
  RtpccController *cc = cc_util_new ("gcc", 150000, 3000000, 1000000);
  RtpccGccInfo info;
  RtpccTime t = 0;
  guint64 seq = 0;

  send_frames (cc, &t, &seq, 20, 4);
  send_frames (cc, &t, &seq, 1, 12);     /* a key frame: 3x */
  send_frames (cc, &t, &seq, 20, 4);
  send_frames (cc, &t, &seq, 1, 8);      /* 2x: not more than 2x the mean */
  fail_unless (rtpcc_gcc_get_info (cc, &info));
  fail_unless (info.n_key_frames == 1, "%" G_GUINT64_FORMAT,
      info.n_key_frames);
  /* the encoder's rate steps up 2.5x: the first large frame is taken for
   * a key frame, the next one restarts the mean, and none after that */
  send_frames (cc, &t, &seq, 30, 10);
  fail_unless (rtpcc_gcc_get_info (cc, &info));
  fail_unless (info.n_key_frames == 2, "%" G_GUINT64_FORMAT,
      info.n_key_frames);
  send_frames (cc, &t, &seq, 1, 30);     /* a key frame at the new rate */
  fail_unless (rtpcc_gcc_get_info (cc, &info));
  fail_unless (info.n_key_frames == 3);
  rtpcc_controller_free (cc);

  /* the busy rule does not count frames */
  cc = cc_util_new ("gcc", 150000, 3000000, 1000000);
  fail_unless (rtpcc_controller_set_param (cc, "burst-detect", "busy"));
  t = 0;
  send_frames (cc, &t, &seq, 20, 4);
  send_frames (cc, &t, &seq, 1, 12);
  fail_unless (rtpcc_gcc_get_info (cc, &info));
  fail_unless (info.n_key_frames == 0);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* A steady 800 kbit/s stream meets a queue that grows by 2 ms a packet
 * from 1 s (an over-use: the cut ends start-up) to 120 ms and then stands;
 * this model never drains it. @params: NULL-terminated key, value pairs
 * for the controller. Returns the state at 8 s; @rise (may be NULL): from
 * the queue's top on, the most A went above its lowest value so far. */
static RtpccGccInfo
queue_case_run (const gchar * const *params, gdouble * rise)
{
  Feeder f;
  RtpccGccInfo info;
  RtpccTime t, next_fb = MS (50), q = 0;
  gdouble low = -1;

  feeder_init (&f, cc_util_new ("gcc", 100000, 5000000, 600000));
  for (guint i = 0; params[i]; i += 2)
    fail_unless (rtpcc_controller_set_param (f.cc, params[i],
            params[i + 1]));
  if (rise)
    *rise = 0;
  for (t = 0; t < RTPCC_SEC (8); t += MS (10)) {
    if (t >= RTPCC_SEC (1) && q < MS (120))
      q += MS (2);
    feeder_step (&f, t, t + MS (25) + q, t + MS (25) + q, &next_fb);
    rtpcc_gcc_get_info (f.cc, &info);
    if (rise && q >= MS (120)) {
      low = low < 0 ? info.delay_rate : MIN (low, info.delay_rate);
      *rise = MAX (*rise, info.delay_rate - low);
    }
  }
  feeder_clear (&f);
  return info;
}

/* standing-queue (gcc/standing.h) through the controller, in
 * queue_case_run's case, the drain alone (not the hold, (h)): with it the
 * delay-based estimate A goes under R × (1 − 0.12); off, nothing drains
 * and fast recovery takes it back above. */
GST_START_TEST (test_standing_queue_drain)
{
  const gchar *on_params[] = { "queue-hold", "0", "standing-queue", "50",
    NULL
  };
  const gchar *off_params[] = { "queue-hold", "0", NULL };
  RtpccGccInfo on = queue_case_run (on_params, NULL);
  RtpccGccInfo off = queue_case_run (off_params, NULL);
  gdouble on_rate = on.delay_rate, off_rate = off.delay_rate;

  fail_unless (off.n_drains == 0);
  fail_unless (on.n_drains > 0);
  fail_unless (!on.startup && !off.startup);
  fail_unless (on_rate <= 0.88 * 800000 + 20000, "drained to %.0f", on_rate);
  fail_unless (off_rate > on_rate + 20000, "off %.0f, on %.0f", off_rate,
      on_rate);
}

GST_END_TEST;

/* queue-hold (docs/gcc.md (h)) through the controller, in queue_case_run's
 * case: with the hold A does not grow again after the cut while the queue
 * stands; without it fast recovery climbs back above. The competitor
 * detector is off: a queue that stands for 5 s is what it takes for a
 * loss-based flow's (rtpcc_competitor.c). */
GST_START_TEST (test_queue_hold)
{
  const gchar *on_params[] = { "competitive", "false", NULL };
  const gchar *off_params[] = { "competitive", "false", "queue-hold", "0",
    NULL
  };
  gdouble on_rise, off_rise;
  RtpccGccInfo on = queue_case_run (on_params, &on_rise);
  RtpccGccInfo off = queue_case_run (off_params, &off_rise);

  fail_unless (!on.startup && !off.startup);
  fail_unless (on.n_queue_holds > 0);
  fail_unless_equals_uint64 (off.n_queue_holds, 0);
  fail_unless (on_rise < 1, "A rose %.0f bit/s on the standing queue",
      on_rise);
  fail_unless (off_rise > 20000, "without the hold A rose only %.0f bit/s",
      off_rise);
}

GST_END_TEST;

/* cut-drain (docs/gcc.md (g)): a steady 800 kbit/s sender (an encoder
 * slow to follow) meets a link that falls from 1.6 to 0.2 Mbit/s at 1 s,
 * with a 300 ms drop-tail queue (full within 100 ms, while the received
 * rate takes its 500 ms window to fall); the estimate at 2.5 s */
static gdouble
cut_drain_run (gboolean on, RtpccGccInfo * info)
{
  Feeder f;
  RtpccTime t, next_fb = MS (50), link_free = 0, last_arrival = 0;

  feeder_init (&f, cc_util_new ("gcc", 100000, 5000000, 600000));
  fail_unless (rtpcc_controller_set_param (f.cc, "cut-drain",
          on ? "true" : "false"));
  for (t = 0; t <= MS (2500); t += MS (10)) {
    RtpccTime service = t < RTPCC_SEC (1) ? MS (5) : MS (40);
    RtpccTime departure = MAX (t, link_free) + service;

    gboolean dropped = departure - t > MS (300);

    if (!dropped) {
      link_free = departure;
      last_arrival = departure + MS (25);
    }
    feeder_step (&f, t, dropped ? RTPCC_TIME_NONE : last_arrival,
        MAX (t, last_arrival), &next_fb);
  }
  rtpcc_gcc_get_info (f.cc, info);
  feeder_clear (&f);
  return info->delay_rate;
}

GST_START_TEST (test_cut_drain)
{
  RtpccGccInfo on, off;
  gdouble on_rate = cut_drain_run (TRUE, &on);
  gdouble off_rate = cut_drain_run (FALSE, &off);

  fail_unless (on.n_decreases > 0 && off.n_decreases > 0);
  fail_unless_equals_uint64 (off.n_cut_drains, 0);
  fail_unless (on.n_cut_drains > 0);
  /* R falls to the link's 200 kbit/s, and each cut as it falls lowers
   * the estimate; off: to beta × R, which drains only 0.15 of the link;
   * on: deeper, by the queue the last complete interval stood on (its
   * minimum, so at most the 300 ms the link holds) */
  fail_unless (off_rate >= 0.84 * off.received_rate, "off %.0f of %.0f",
      off_rate, off.received_rate);
  fail_unless (on_rate < 0.84 * on.received_rate, "on %.0f of %.0f", on_rate,
      on.received_rate);
  fail_unless (on_rate >= 0.69 * on.received_rate, "on %.0f of %.0f",
      on_rate, on.received_rate);
}

GST_END_TEST;

/* free-above-point (docs/gcc.md (c'')): a 667 kbit/s link (a 1000-byte
 * packet every 12 ms) behind a sender of 800 kbit/s until 1.6 s (a queue
 * grows, a cut; the congestion point is the link's rate), then of 615
 * kbit/s, an encoder delivering short of its target: the queue drains at
 * the link's rate and from ~3.2 s nothing queues. The free climb takes
 * that for grown capacity unless it waits for more than the point's band
 * to get through. */
static RtpccGccInfo
free_run (gboolean above_point)
{
  Feeder f;
  RtpccGccInfo info;
  RtpccTime t, next_fb = MS (50), link_free = 0, arrival = 0;

  feeder_init (&f, cc_util_new ("gcc", 100000, 5000000, 600000));
  fail_unless (rtpcc_controller_set_param (f.cc, "free-above-point",
          above_point ? "true" : "false"));
  for (t = 0; t < RTPCC_SEC (7); t += t < MS (1600) ? MS (10) : MS (13)) {
    link_free = MAX (t, link_free) + MS (12);
    arrival = link_free + MS (25);
    feeder_step (&f, t, arrival, arrival, &next_fb);
  }
  rtpcc_gcc_get_info (f.cc, &info);
  feeder_clear (&f);
  return info;
}

GST_START_TEST (test_free_above_point)
{
  RtpccGccInfo off = free_run (FALSE), on = free_run (TRUE);

  fail_unless (off.n_decreases > 0 && on.n_decreases > 0);
  fail_unless (off.n_free_steps > 0, "no free climb at all");
  fail_unless_equals_uint64 (on.n_free_steps, 0);
}

GST_END_TEST;

static Suite *
rtpcc_gcc_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc");
  TCase *tc = tcase_create ("controller");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_iframe_one_group_no_overuse);
  tcase_add_test (tc, test_free_path_queue_test);
  tcase_add_test (tc, test_controller_basics);
  tcase_add_test (tc, test_key_frames_by_size);
  tcase_add_test (tc, test_controller_fec_loss_ignored);
  tcase_add_test (tc, test_controller_rr_only);
  tcase_add_test (tc, test_app_limited_hold);
  tcase_add_test (tc, test_standing_queue_drain);
  tcase_add_test (tc, test_queue_hold);
  tcase_add_test (tc, test_cut_drain);
  tcase_add_test (tc, test_free_above_point);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc);

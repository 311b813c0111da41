/* RTCP feedback volume: bytes per second the receiving endpoint sends
 * (CCFB or TWCC reports, with the RTCP RR + SDES they are compounded with)
 * for a 1000 packets/s stream (bench-stream.h's packets, 40 per frame at
 * 25 frames/s, arriving 1 ms apart) at 0 % and at 5 % random loss.
 *
 * RtpccReceiver is driven directly in simulated time, its losses drawn
 * from a seeded Bernoulli RtpccLoss: the figures are exact and repeat, no
 * callgrind needed. The first 2 s (start-up) are not counted.
 *
 *   bench-feedback [--seconds S] [--smoke]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench-report.h"
#include "bench-stream.h"

#include <rtpcc/receiver.h>
#include <rtpcc/net/loss.h>

#define RATE 1000               /* packets/s */
#define PKTS_PER_FRAME (RATE / BENCH_FPS)
#define SKIP RTPCC_SEC (2)

typedef struct
{
  gdouble bytes_per_s, reports_per_s;
} Volume;

static Volume
feedback_volume (RtpccFeedbackMode mode, gdouble loss_rate, guint seconds)
{
  RtpccReceiverConfig cfg;
  RtpccReceiver *r;
  RtpccLossParams lp;
  RtpccLoss loss;
  RtpccRng rng;
  guint8 pkt[BENCH_PKT_SIZE], fb[1500];
  guint64 bytes = 0, reports = 0;
  guint64 n = (guint64) seconds * RATE;
  RtpccTime end = RTPCC_SEC (seconds);
  Volume v;

  rtpcc_receiver_config_init (&cfg);
  cfg.feedback = mode;
  cfg.seed = 1;
  r = rtpcc_receiver_new (&cfg, 0);
  rtpcc_loss_params_init (&lp);
  lp.loss = loss_rate;
  rtpcc_rng_init (&rng, 5);
  rtpcc_loss_init (&loss, &lp, &rng);

  for (guint64 i = 0; i <= n; i++) {
    RtpccTime at = i < n ? (RtpccTime) i * RTPCC_SEC (1) / RATE : end;
    RtpccTime next;

    /* feedback due before this arrival */
    while ((next = rtpcc_receiver_next_feedback_time (r)) != RTPCC_TIME_NONE
        && next <= at) {
      gsize len = rtpcc_receiver_build_feedback (r, next, fb, sizeof fb);

      if (next >= SKIP && len > 0) {
        bytes += len;
        reports++;
      }
      if (rtpcc_receiver_next_feedback_time (r) == next)
        break;                  /* nothing more due now */
    }
    if (i == n)
      break;
    if (!rtpcc_loss_next (&loss)) {
      RtpccRtpInfo info = { 0, };

      bench_stream_packet (i, PKTS_PER_FRAME, pkt);
      info.ssrc = BENCH_SSRC;
      info.seq = (guint16) ((pkt[2] << 8) | pkt[3]);
      info.rtp_ts = (guint32) ((pkt[4] << 24) | (pkt[5] << 16) | (pkt[6] << 8)
          | pkt[7]);
      info.pt = BENCH_PT;
      info.marker = (pkt[1] & 0x80) != 0;
      info.size = BENCH_PKT_SIZE;
      info.clock_rate = BENCH_CLOCK_RATE;
      /* the sender numbers every packet it sends, lost ones too */
      info.has_twcc = mode == RTPCC_FEEDBACK_TWCC;
      info.twcc_seq = (guint16) i;
      rtpcc_receiver_on_rtp (r, at, &info);
    }
  }
  rtpcc_receiver_free (r);
  v.bytes_per_s = bytes / ((gdouble) (end - SKIP) / RTPCC_SEC (1));
  v.reports_per_s = reports / ((gdouble) (end - SKIP) / RTPCC_SEC (1));
  return v;
}

int
main (int argc, char **argv)
{
  gint seconds = 30;
  gboolean smoke = FALSE;
  GOptionEntry entries[] = {
    {"seconds", 0, 0, G_OPTION_ARG_INT, &seconds, "Simulated stream length",
        "S"},
    {"smoke", 0, 0, G_OPTION_ARG_NONE, &smoke, "A short stream", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- RTCP feedback volume");
  GError *err = NULL;
  Volume ccfb0, ccfb5, twcc0, twcc5;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (smoke)
    seconds = 4;
  seconds = MAX (seconds, 3);

  ccfb0 = feedback_volume (RTPCC_FEEDBACK_CCFB, 0.0, (guint) seconds);
  ccfb5 = feedback_volume (RTPCC_FEEDBACK_CCFB, 0.05, (guint) seconds);
  twcc0 = feedback_volume (RTPCC_FEEDBACK_TWCC, 0.0, (guint) seconds);
  twcc5 = feedback_volume (RTPCC_FEEDBACK_TWCC, 0.05, (guint) seconds);
  bench_note ("bench-feedback: %d pkt/s of %d B, %d s (first 2 s not "
      "counted), Bernoulli loss; reports/s: CCFB %.1f at 0 %%, %.1f at 5 %%; "
      "TWCC %.1f at 0 %%, %.1f at 5 %%", RATE, BENCH_PKT_SIZE, seconds,
      ccfb0.reports_per_s, ccfb5.reports_per_s, twcc0.reports_per_s,
      twcc5.reports_per_s);
  bench_note ("feedback-ccfb-loss: CCFB feedback at 5 %% loss vs at 0 %%");
  bench_report ("feedback-ccfb-loss", ccfb5.bytes_per_s, "B/s",
      ccfb0.bytes_per_s, NULL, BENCH_GOAL_RATIO_LE, 1.5, NULL);
  bench_note ("feedback-twcc-loss: TWCC feedback at 5 %% loss vs at 0 %%");
  bench_report ("feedback-twcc-loss", twcc5.bytes_per_s, "B/s",
      twcc0.bytes_per_s, NULL, BENCH_GOAL_NONE, 0, NULL);
  bench_note ("feedback-ccfb-vs-twcc: CCFB vs TWCC feedback, both at 5 %% "
      "loss");
  bench_report ("feedback-ccfb-vs-twcc", ccfb5.bytes_per_s, "B/s",
      twcc5.bytes_per_s, NULL, BENCH_GOAL_NONE, 0, NULL);
  return 0;
}

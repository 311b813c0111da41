/* Memory a call's sender holds against the history it is configured to
 * keep: the retransmission history (rtpccsink's rtx-time), the one
 * history a user sets.
 *
 * The library under rtpccsink (RtpccSender with controller=fixed, and
 * RtpccRtxSender) is driven in simulated time with bench-stream.h's
 * packets (100 packets/s of 1200 B, 0.96 Mbit/s) for 20 s, longer than any
 * history here; the heap they hold at the end is glibc's count of bytes in
 * use (mallinfo2), taken before they are made and after: one thread, the
 * same allocations in every run, so the figures are exact and repeat.
 *
 *   mem-rtx-history   held with rtx-time 4 s over held with rtx-time 1 s
 *                     (the RTX history's part: the same sender without RTX
 *                     subtracted); proportional is a ratio of 4
 *   mem-rtx-per-byte  what the RTX history holds per byte of media it
 *                     keeps (rtx-time 4 s): the stored packets plus their
 *                     bookkeeping
 *   mem-rx-repair     the receiving side (RtpccReceiver, the library under
 *                     rtpccsrc, with RtpccRepair, its loss repair, the
 *                     same stream with 2 % of it lost, CCFB feedback
 *                     built when due): held with rtpccsrc's playout-delay
 *                     (the one history a receiver sets: how long a loss is
 *                     worth asking for) at 800 ms over 200 ms
 *
 *   bench-memory [--smoke]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench-report.h"
#include "bench-stream.h"

#include <malloc.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/rtxsender.h>
#include <rtpcc/repair.h>

#define SECONDS 20

static gsize
heap_in_use (void)
{
  return mallinfo2 ().uordblks;
}

/* Heap the sender (and its RTX sender, for @rtx_ms > 0) hold after
 * @seconds of the stream. */
static gsize
held_after (guint rtx_ms, guint seconds)
{
  RtpccSenderConfig cfg;
  RtpccRtxSenderConfig rc;
  RtpccSender *s;
  RtpccRtxSender *x = NULL;
  guint8 pkt[BENCH_PKT_SIZE];
  guint64 n = (guint64) seconds * BENCH_PKT_RATE;
  gsize before, held;

  before = heap_in_use ();
  rtpcc_sender_config_init (&cfg);
  cfg.controller = "fixed";
  cfg.cc.start_bitrate = 1500000;
  cfg.circuit_breaker = FALSE;
  cfg.seed = 1;
  s = rtpcc_sender_new (&cfg, 0, NULL);
  g_assert (s != NULL);
  if (rtx_ms > 0) {
    rtpcc_rtx_sender_config_init (&rc);
    rc.rtx_pt = 97;
    rc.history.max_age = RTPCC_MSEC (rtx_ms);
    rc.seed = 1;
    x = rtpcc_rtx_sender_new (&rc);
  }

  for (guint64 i = 0; i < n; i++) {
    RtpccTime now = (RtpccTime) i * RTPCC_SEC (1) / BENCH_PKT_RATE;
    RtpccWirePacket w;

    bench_stream_packet (i, 0, pkt);
    /* (a handle of its own: the packet's bytes are the caller's) */
    rtpcc_sender_enqueue_rtp (s, now, pkt, sizeof pkt, sizeof pkt,
        GUINT_TO_POINTER (1));
    rtpcc_sender_tick (s, now);
    while (rtpcc_sender_dequeue (s, now, &w) != NULL)
      if (x)
        rtpcc_rtx_sender_on_sent (x, now, pkt, sizeof pkt, sizeof pkt);
  }
  held = heap_in_use () - before;
  if (x)
    rtpcc_rtx_sender_free (x);
  rtpcc_sender_free (s);
  return held;
}

/* Heap the receiver and its repair (@playout_ms) hold after @seconds of
 * the stream, one packet in 50 lost. */
static gsize
rx_held_after (guint playout_ms, guint seconds)
{
  RtpccReceiverConfig rc;
  RtpccRepairConfig pc;
  RtpccReceiver *r;
  RtpccRepair *rp;
  guint8 pkt[BENCH_PKT_SIZE], fb[1500];
  guint16 missing[64];
  guint64 n = (guint64) seconds * BENCH_PKT_RATE;
  gsize before, held;

  before = heap_in_use ();
  rtpcc_receiver_config_init (&rc);
  rc.ssrc = 1;
  rc.seed = 1;
  r = rtpcc_receiver_new (&rc, 0);
  rtpcc_repair_config_init (&pc);
  pc.playout_delay = RTPCC_MSEC (playout_ms);
  rp = rtpcc_repair_new (&pc, NULL);
  g_assert (rp != NULL);
  for (guint64 i = 0; i < n; i++) {
    RtpccTime now = (RtpccTime) i * RTPCC_SEC (1) / BENCH_PKT_RATE;
    RtpccRtpInfo info;

    if (i % 50 == 7)
      continue;
    bench_stream_packet (i, 0, pkt);
    if (!rtpcc_rtp_parse (pkt, sizeof pkt, sizeof pkt, 0, &info, NULL))
      g_assert_not_reached ();
    rtpcc_receiver_on_rtp (r, now, &info);
    rtpcc_repair_on_packet (rp, now, info.ssrc, info.seq, info.rtp_ts,
        info.marker, RTPCC_REPAIR_ORIGINAL);
    (void) rtpcc_repair_get_missing (rp, missing, G_N_ELEMENTS (missing));
    if (rtpcc_receiver_next_feedback_time (r) <= now)
      (void) rtpcc_receiver_build_feedback (r, now, fb, sizeof fb);
  }
  held = heap_in_use () - before;
  rtpcc_repair_free (rp);
  rtpcc_receiver_free (r);
  return held;
}

int
main (int argc, char **argv)
{
  gboolean smoke = FALSE;
  GOptionEntry entries[] = {
    {"smoke", 0, 0, G_OPTION_ARG_NONE, &smoke, "Short runs (for meson test)",
        NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- memory against history");
  GError *err = NULL;
  guint seconds;
  gsize none, one, four, rx_short, rx_long;
  gdouble kept;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("bench-memory: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  /* the smoke run still outlasts the longest history */
  seconds = smoke ? 6 : SECONDS;

  /* a first sender warms up what lives for the process (controller
   * registry, type tables), so that it is not charged to the first run */
  (void) held_after (0, 1);
  none = held_after (0, seconds);
  one = held_after (1000, seconds);
  four = held_after (4000, seconds);
  (void) rx_held_after (200, 1);
  rx_short = rx_held_after (200, seconds);
  rx_long = rx_held_after (800, seconds);
  /* the media bytes a 4 s history keeps */
  kept = 4.0 * BENCH_PKT_RATE * BENCH_PKT_SIZE;

  bench_note ("bench-memory: heap in use (glibc mallinfo2) held by "
      "RtpccSender + RtpccRtxSender after %u s of %u packets/s of %u B; "
      "without RTX %" G_GSIZE_FORMAT " B, rtx-time 1 s %" G_GSIZE_FORMAT
      " B, 4 s %" G_GSIZE_FORMAT " B", seconds, BENCH_PKT_RATE,
      BENCH_PKT_SIZE, none, one, four);
  bench_note ("mem-rtx-history: held for the RTX history at rtx-time 4 s "
      "vs at 1 s (proportional: 4)");
  bench_report ("mem-rtx-history", (gdouble) (four - none), "B",
      (gdouble) (one - none), NULL, BENCH_GOAL_NONE, 0, NULL);
  bench_note ("mem-rtx-per-byte: held for the RTX history at rtx-time 4 s "
      "vs the media bytes of 4 s");
  bench_report ("mem-rtx-per-byte", (gdouble) (four - none), "B", kept,
      "B", BENCH_GOAL_NONE, 0, NULL);
  bench_note ("mem-rx-repair: held by RtpccReceiver + RtpccRepair, 2 %% "
      "lost, playout-delay 800 ms vs 200 ms (fixed-size tables: near 1)");
  bench_report ("mem-rx-repair", (gdouble) rx_long, "B", (gdouble) rx_short,
      NULL, BENCH_GOAL_NONE, 0, NULL);
  return 0;
}

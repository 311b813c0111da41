/* RTCP XR on the wire between RtpccReceiver and RtpccSender: every block
 * RtpccReceiverConfig.xr_blocks can ask for is sent with the regular
 * reports, reaches the sender's statistics with the exact values the
 * receiver saw, and tshark dissects the compounds without a complaint.
 * Also: by default only Discard RLE goes out, as before; and FBRA on
 * RR + XR feedback takes its one-way delay from the Delay Metrics block.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/fbra.h>
#include <math.h>

#include "tshark-util.h"
#include "call-loop.h"

#define MEDIA 0x1234u
#define MS(x) RTPCC_MSEC (x)
#define SIZE 1200
/* RTCP takes this long each way (media arrives at once) */
#define RTCP_DELAY MS (20)

typedef struct
{
  RtpccSender *s;
  RtpccReceiver *r;
  RtpccTime now;
  guint16 seq;
  gboolean media;               /* enqueue new media */
  GByteArray *pcap;             /* if set: every receiver compound */
  guint frames;
  /* what the receiver got, among seqs up to the newest it received */
  guint64 delivered, lost, repaired, discarded;
  guint16 highest;
  guint64 xr_packets;           /* receiver compounds with XR */
  guint64 other_blocks;         /* XR blocks but Discard RLE in them */
  GQueue to_sender, to_receiver;        /* Delayed RTCP */
} Loop;

typedef struct
{
  RtpccTime at;
  GBytes *bytes;
} Delayed;

static void
delay_push (GQueue * q, RtpccTime at, const guint8 * data, gsize len)
{
  Delayed *d = g_new (Delayed, 1);

  d->at = at;
  d->bytes = g_bytes_new (data, len);
  g_queue_push_tail (q, d);
}

/* the next compound due at @now, or NULL */
static GBytes *
delay_pop (GQueue * q, RtpccTime now)
{
  Delayed *d = g_queue_peek_head (q);
  GBytes *b;

  if (!d || d->at > now)
    return NULL;
  g_queue_pop_head (q);
  b = d->bytes;
  g_free (d);
  return b;
}

/* seq % 25 == 7 never arrives; half of those (seq % 50 == 7) RTX
 * restores; seq % 40 == 3 arrives and is played out too late */
static gboolean
is_lost (guint16 seq)
{
  return seq % 25 == 7;
}

/* XR packets in a compound; blocks other than Discard RLE added to
 * *@others */
static guint
xr_count (const guint8 * data, gsize len, guint64 * others)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket p;
  guint n = 0;

  fail_unless (rtpcc_rtcp_iter_init (&it, data, len));
  while (rtpcc_rtcp_iter_next (&it, &p)) {
    RtpccXrReport *x;
    if (p.pt != RTPCC_RTCP_XR)
      continue;
    n++;
    x = rtpcc_xr_report_parse (p.data, p.len, NULL);
    fail_unless (x != NULL);
    /* (the report parser does not know RFC 3611's RRTR: a packet of its
     * own) */
    fail_unless_equals_int (x->n_unknown, rtpcc_xr_find_rrtr (p.data, p.len,
            NULL));
    fail_unless_equals_int (x->n_discarded + x->n_over_cap, 0);
    for (guint i = 0; i < x->n_blocks; i++)
      *others += x->blocks[i].bt != RTPCC_XR_BT_DISCARD_RLE;
    rtpcc_xr_report_free (x);
  }
  return n;
}

static void
run (Loop * l, guint ms)
{
  guint8 buf[1500];
  RtpccWirePacket w;
  gsize n;

  for (guint i = 0; i < ms; i++, l->now += MS (1)) {
    if (l->media && l->now % MS (10) == 0)
      call_loop_enqueue (l->s, l->now, MEDIA, l->seq++, SIZE);
    rtpcc_sender_tick (l->s, l->now);
    while (rtpcc_sender_dequeue (l->s, l->now, &w)) {
      RtpccRtpInfo ri = w.info;
      if (is_lost (ri.seq)) {
        l->lost++;
        if (ri.seq % 50 == 7) {
          fail_unless (rtpcc_receiver_mark_repaired (l->r, l->now, MEDIA,
                  ri.seq));
          l->repaired++;
        }
        continue;
      }
      rtpcc_receiver_on_rtp (l->r, l->now, &ri);
      l->delivered++;
      l->highest = ri.seq;
      if (ri.seq % 40 == 3) {
        fail_unless (rtpcc_receiver_mark_discarded (l->r, l->now, MEDIA,
                ri.seq, 1));
        l->discarded++;
      }
      if (l->delivered == 1)
        fail_unless (rtpcc_receiver_set_dejitter (l->r, MEDIA, TRUE,
                MS (120), MS (300), MS (200), RTPCC_TIME_NONE));
    }
    n = rtpcc_sender_build_rtcp (l->s, l->now, buf, sizeof buf);
    if (n > 0) {
      if (l->pcap)
        test_pcap_add (l->pcap, ++l->frames, TSHARK_RTCP_PORT, buf, n);
      delay_push (&l->to_receiver, l->now + RTCP_DELAY, buf, n);
    }
    n = rtpcc_receiver_build_feedback (l->r, l->now, buf, sizeof buf);
    if (n > 0) {
      if (l->pcap)
        test_pcap_add (l->pcap, ++l->frames, TSHARK_RTCP_PORT, buf, n);
      l->xr_packets += xr_count (buf, n, &l->other_blocks) > 0;
      delay_push (&l->to_sender, l->now + RTCP_DELAY, buf, n);
    }
    for (GBytes * b; (b = delay_pop (&l->to_receiver, l->now));
        g_bytes_unref (b))
      rtpcc_receiver_on_rtcp (l->r, l->now, g_bytes_get_data (b, NULL),
          g_bytes_get_size (b));
    for (GBytes * b; (b = delay_pop (&l->to_sender, l->now));
        g_bytes_unref (b))
      rtpcc_sender_receive_rtcp (l->s, l->now, g_bytes_get_data (b, NULL),
          g_bytes_get_size (b));
  }
}

static void
loop_init (Loop * l, const gchar * controller, guint xr_blocks)
{
  memset (l, 0, sizeof (*l));
  l->s = call_loop_sender_new (controller, RTPCC_FEEDBACK_RR);
  l->r = call_loop_receiver_new (RTPCC_FEEDBACK_RR, MS (200), xr_blocks);
  l->media = TRUE;
}

static void
loop_clear (Loop * l)
{
  GBytes *b;

  while ((b = delay_pop (&l->to_sender, G_MAXINT64)))
    g_bytes_unref (b);
  while ((b = delay_pop (&l->to_receiver, G_MAXINT64)))
    g_bytes_unref (b);
  rtpcc_receiver_free (l->r);
  rtpcc_sender_free (l->s);
}

/* 3 s of media at 100 packets/s with losses, repairs and late discards,
 * then 1.5 s of reports only, so the last report covers the newest
 * packet: the sender's counts are exactly the receiver's. From seq 0, and
 * across the sequence number wrap. */
GST_START_TEST (test_all_blocks)
{
  Loop l;
  const RtpccSenderStats *ss;
  const RtpccReceiverStats *rs;
  const guint16 start = __i__ == 0 ? 0 : 65300;

  loop_init (&l, "fixed", RTPCC_RECEIVER_XR_ALL);
  l.seq = start;
  run (&l, 3000);
  l.media = FALSE;
  run (&l, 1500);
  fail_if (is_lost (l.highest));
  fail_unless (l.delivered + l.lost >= 290);
  fail_unless_equals_uint64 (l.delivered + l.lost,
      (guint64) (guint16) (l.highest - start) + 1);

  rs = rtpcc_receiver_get_stats (l.r, l.now);
  ss = rtpcc_sender_get_stats (l.s, l.now);
  /* every RR compound carried XR */
  fail_unless (l.xr_packets >= 15);
  fail_unless_equals_uint64 (l.xr_packets, rs->rtcp_sent);
  fail_unless_equals_uint64 (rs->xr_rle_skipped, 0);
  fail_unless_equals_uint64 (rs->repairs_marked, l.repaired);
  /* per compound: Loss + Post-repair RLE (while new packets came), the
   * four fixed blocks always */
  fail_unless (rs->xr_blocks_sent >= 4 * rs->rtcp_sent);
  fail_unless_equals_uint64 (ss->xr.blocks, rs->xr_blocks_sent);
  fail_unless_equals_uint64 (l.other_blocks, rs->xr_blocks_sent);
  fail_unless_equals_uint64 (ss->xr.dropped, 0);

  fail_unless_equals_uint64 (ss->xr.loss_lost, l.lost);
  fail_unless_equals_uint64 (ss->xr.loss_received, l.delivered);
  fail_unless_equals_uint64 (ss->xr.post_repair_lost, l.lost - l.repaired);
  fail_unless_equals_uint64 (ss->xr.post_repair_received,
      l.delivered + l.repaired);
  fail_unless_equals_uint64 (ss->xr.discarded_packets, l.discarded);
  fail_unless_equals_uint64 (ss->xr.discarded_bytes,
      l.discarded * (SIZE - 12));
  /* the round trip from RRTR / DLRR (RFC 3611 §4.4, §4.5): RTCP takes
   * 20 ms each way, the sender's hold time is taken out; one sample per
   * report (16.16 s rounds to 15 µs, twice) */
  fail_unless (rs->xr_rtt_samples + 2 >= rs->rtcp_sent);
  fail_unless (llabs (ss->xr.rtt_mean - 2 * RTCP_DELAY) < RTPCC_USEC (40));
  fail_unless (llabs (ss->xr.rtt_min - 2 * RTCP_DELAY) < RTPCC_USEC (40));
  fail_unless (llabs (ss->xr.rtt_max - 2 * RTCP_DELAY) < RTPCC_USEC (40));
  fail_unless_equals_int64 (ss->xr.djb_nominal, MS (120));
  fail_unless_equals_int64 (ss->xr.djb_maximum, MS (300));
  /* one update, with the first packet: the marks of the reports after
   * the first are the nominal delay the buffer has held since */
  fail_unless_equals_int64 (ss->xr.djb_high, MS (120));
  fail_unless_equals_int64 (ss->xr.djb_low, MS (120));
  /* RR mode: Loss RLE was the per-packet feedback, each packet reported
   * once (a loss once later packets arrived, RFC 5681's three) */
  fail_unless_equals_uint64 (ss->reported_received, l.delivered);
  fail_unless_equals_uint64 (ss->reported_lost, l.lost);
  /* Discard RLE still went its own way */
  fail_unless_equals_uint64 (rs->discards_reported, l.discarded);
  fail_unless_equals_uint64 (ss->reported_discarded, l.discarded);
  loop_clear (&l);
}

GST_END_TEST;

/* The default (what rtpccsrc sends unless told): one XR packet of
 * Discard RLE blocks, nothing else. */
GST_START_TEST (test_default_discard_only)
{
  Loop l;
  const RtpccSenderStats *ss;
  const RtpccReceiverStats *rs;

  loop_init (&l, "fixed", G_MAXUINT);
  run (&l, 3000);
  rs = rtpcc_receiver_get_stats (l.r, l.now);
  ss = rtpcc_sender_get_stats (l.s, l.now);
  fail_unless (l.xr_packets > 0);
  fail_unless_equals_uint64 (l.other_blocks, 0);
  fail_unless_equals_uint64 (rs->xr_blocks_sent, 0);
  fail_unless_equals_uint64 (ss->xr.blocks, 0);
  fail_unless_equals_uint64 (ss->xr.loss_lost, 0);
  fail_unless (l.discarded > 0);
  fail_unless (rs->discards_reported > 0);
  fail_unless_equals_uint64 (ss->reported_discarded, rs->discards_reported);
  loop_clear (&l);
}

GST_END_TEST;

/* FBRA on RR + XR feedback: Loss RLE is its per-packet feedback (losses,
 * goodput), without arrival times, so the only delay it has is the
 * receiver's Delay Metrics block: half its mean round trip (the RRTR /
 * DLRR one, 2 × 20 ms). Without the block it has none. */
GST_START_TEST (test_fbra_rr_xr)
{
  Loop l;
  RtpccFbraInfo info;

  loop_init (&l, "fbra", RTPCC_RECEIVER_XR_LOSS_RLE |
      RTPCC_RECEIVER_XR_DELAY);
  run (&l, 3000);
  fail_unless (rtpcc_fbra_get_info (rtpcc_sender_get_controller (l.s),
          &info));
  fail_unless (info.evaluations >= 5);
  fail_unless (fabs (info.owd_ms - RTPCC_TIME_AS_MSEC (RTCP_DELAY)) < 0.05,
      "owd %f ms", info.owd_ms);
  /* its losses came from the Loss RLE blocks */
  fail_unless (rtpcc_sender_get_stats (l.s, l.now)->xr.loss_lost > 0);
  fail_unless (info.losses > 0);
  fail_unless (info.losses <= rtpcc_sender_get_stats (l.s,
          l.now)->xr.loss_lost);
  loop_clear (&l);

  loop_init (&l, "fbra", RTPCC_RECEIVER_XR_LOSS_RLE);
  run (&l, 3000);
  fail_unless (rtpcc_fbra_get_info (rtpcc_sender_get_controller (l.s),
          &info));
  fail_unless (info.evaluations >= 5);
  fail_unless (isnan (info.owd_ms));
  loop_clear (&l);
}

GST_END_TEST;

/* Bad XR at the sender is dropped and counted, never used: a Discard
 * Count sampled (RFC 7002 forbids it), a Delay Metrics block of the wrong
 * length, a Loss RLE acknowledging what was never sent, blocks about a
 * stream we do not send. */
GST_START_TEST (test_bad_xr_counted)
{
  Loop l;
  const RtpccSenderStats *ss;
  guint8 pkt[256];
  RtpccXrBlock b;
  guint64 malformed, blocks;
  gsize n;

  loop_init (&l, "fixed", RTPCC_RECEIVER_XR_ALL);
  run (&l, 1000);
  ss = rtpcc_sender_get_stats (l.s, l.now);
  blocks = ss->xr.blocks;
  fail_unless (blocks > 0);
  malformed = ss->rtcp_malformed;

  /* a well-formed Discard Count, then its I changed to "sampled" */
  memset (&b, 0, sizeof (b));
  b.bt = RTPCC_XR_BT_DISCARD_COUNT;
  b.discard_count.interval = RTPCC_XR_I_CUMULATIVE;
  b.discard_count.ssrc = MEDIA;
  b.discard_count.packets = 99;
  n = test_rtcp_rr_sdes (pkt, sizeof pkt, 0x55667788);
  fail_unless_equals_int (rtpcc_xr_report_write (pkt + n, sizeof pkt - n,
          0x55667788, &b, 1), 20);
  pkt[n + 9] = (guint8) ((RTPCC_XR_I_SAMPLED << 6) | (pkt[n + 9] & 0x3f));
  rtpcc_sender_receive_rtcp (l.s, l.now, pkt, n + 20);
  ss = rtpcc_sender_get_stats (l.s, l.now);
  fail_unless_equals_uint64 (ss->xr.dropped, 1);
  fail_unless_equals_uint64 (ss->xr.blocks, blocks);
  fail_if (ss->xr.discarded_packets == 99);

  /* a Delay Metrics block one word short: malformed, nothing taken */
  memset (&b, 0, sizeof (b));
  b.bt = RTPCC_XR_BT_DELAY;
  b.delay.interval = RTPCC_XR_I_INTERVAL;
  b.delay.ssrc = MEDIA;
  b.delay.mean_rtt = rtpcc_xr_delay_from_time (MS (900));
  n = test_rtcp_rr_sdes (pkt, sizeof pkt, 0x55667788);
  fail_unless_equals_int (rtpcc_xr_report_write (pkt + n, sizeof pkt - n,
          0x55667788, &b, 1), 36);
  pkt[n + 3] -= 1;              /* XR length: one word less */
  pkt[n + 11] -= 1;             /* block length: one word less */
  rtpcc_sender_receive_rtcp (l.s, l.now, pkt, n + 32);
  ss = rtpcc_sender_get_stats (l.s, l.now);
  /* (the packet's framing holds, so it is the block that is dropped) */
  fail_unless_equals_uint64 (ss->xr.dropped, 2);
  fail_unless_equals_uint64 (ss->rtcp_malformed, malformed);
  fail_unless (ss->xr.rtt_mean < MS (900));
  fail_unless_equals_uint64 (ss->xr.blocks, blocks);

  /* a Loss RLE acknowledging packets never sent: implausible, dropped
   * whole (none of its packets counts) */
  {
    guint8 bits[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    guint64 implausible = ss->feedback_implausible;
    guint64 got = ss->reported_received;
    memset (&b, 0, sizeof (b));
    b.bt = b.rle.bt = RTPCC_XR_BT_LOSS_RLE;
    b.rle.ssrc = MEDIA;
    b.rle.begin_seq = (guint16) (l.seq - 4);
    b.rle.end_seq = (guint16) (l.seq + 4);
    b.rle.n_bits = 8;
    b.rle.bits = bits;
    n = test_rtcp_rr_sdes (pkt, sizeof pkt, 0x55667788);
    n += rtpcc_xr_report_write (pkt + n, sizeof pkt - n, 0x55667788, &b, 1);
    rtpcc_sender_receive_rtcp (l.s, l.now, pkt, n);
    ss = rtpcc_sender_get_stats (l.s, l.now);
    fail_unless_equals_uint64 (ss->feedback_implausible, implausible + 1);
    fail_unless_equals_uint64 (ss->reported_received, got);
  }

  /* about another stream: ignored */
  memset (&b, 0, sizeof (b));
  b.bt = RTPCC_XR_BT_DELAY;
  b.delay.interval = RTPCC_XR_I_INTERVAL;
  b.delay.mean_rtt = rtpcc_xr_delay_from_time (MS (900));
  b.delay.ssrc = MEDIA + 1;
  n = test_rtcp_rr_sdes (pkt, sizeof pkt, 0x55667788);
  n += rtpcc_xr_report_write (pkt + n, sizeof pkt - n, 0x55667788, &b, 1);
  rtpcc_sender_receive_rtcp (l.s, l.now, pkt, n);
  ss = rtpcc_sender_get_stats (l.s, l.now);
  fail_unless (ss->xr.rtt_mean < MS (900));
  fail_unless_equals_uint64 (ss->xr.blocks, blocks);
  loop_clear (&l);
}

GST_END_TEST;

/* @n packets of @ssrc from seq 0, one every @step, from @t */
static void
deliver (RtpccReceiver * r, guint32 ssrc, guint n, RtpccTime t,
    RtpccTime step)
{
  for (guint i = 0; i < n; i++, t += step) {
    RtpccRtpInfo info = { 0, };
    info.ssrc = ssrc;
    info.seq = (guint16) i;
    info.pt = 96;
    info.size = SIZE;
    info.clock_rate = 90000;
    rtpcc_receiver_on_rtp (r, t, &info);
  }
}

/* The XR blocks in the receiver's next report at or after @t (within
 * 3 s), all XR packets of the compound merged. */
static RtpccXrReport *
next_xr (RtpccReceiver * r, RtpccTime t)
{
  guint8 buf[1500];
  RtpccXrReport *all = g_new0 (RtpccXrReport, 1);

  all->blocks = g_new0 (RtpccXrBlock, 4 * RTPCC_XR_MAX_BLOCKS);
  for (RtpccTime end = t + RTPCC_SEC (3); t < end; t += MS (1)) {
    RtpccRtcpIter it;
    RtpccRtcpPacket p;
    gsize n = rtpcc_receiver_build_feedback (r, t, buf, sizeof buf);
    if (n == 0)
      continue;
    fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
    while (rtpcc_rtcp_iter_next (&it, &p)) {
      RtpccXrReport *x;
      if (p.pt != RTPCC_RTCP_XR)
        continue;
      x = rtpcc_xr_report_parse (p.data, p.len, NULL);
      fail_unless (x != NULL);
      /* (the bits move over; the blocks array is freed bare) */
      for (guint i = 0; i < x->n_blocks; i++)
        all->blocks[all->n_blocks++] = x->blocks[i];
      g_free (x->blocks);
      g_free (x);
    }
    return all;
  }
  fail ("no report in 3 s");
  return NULL;
}

static guint32
block_ssrc (const RtpccXrBlock * b)
{
  switch (b->bt) {
    case RTPCC_XR_BT_DELAY:
      return b->delay.ssrc;
    case RTPCC_XR_BT_DISCARD_COUNT:
      return b->discard_count.ssrc;
    case RTPCC_XR_BT_BYTES_DISCARDED:
      return b->bytes_discarded.ssrc;
    case RTPCC_XR_BT_DEJITTER:
      return b->dejitter.ssrc;
    default:
      return b->rle.ssrc;
  }
}

/* Four media sources whose blocks do not all fit in one report's XR
 * budget: two go in the first report, the two that waited first in the
 * next. */
GST_START_TEST (test_budget_turns)
{
  RtpccReceiver *r = call_loop_receiver_new (RTPCC_FEEDBACK_RR, MS (400),
      RTPCC_RECEIVER_XR_ALL & ~RTPCC_RECEIVER_XR_DEJITTER);
  gboolean seen[4] = { FALSE, };
  RtpccTime t = 0;

  for (guint k = 0; k < 4; k++)
    deliver (r, 0x100 + k, 10, 0, MS (1));
  for (guint rep = 0; rep < 2; rep++) {
    RtpccXrReport *x = next_xr (r, t + MS (1));
    gboolean in[4] = { FALSE, };
    guint n_in = 0;
    for (guint i = 0; i < x->n_blocks; i++) {
      guint32 ssrc = block_ssrc (&x->blocks[i]);
      fail_unless (ssrc >= 0x100 && ssrc < 0x104);
      in[ssrc - 0x100] = TRUE;
    }
    for (guint k = 0; k < 4; k++)
      n_in += in[k];
    if (rep == 0) {
      /* Loss + Post-repair RLE of 10 packets (16 bytes each), Delay (28),
       * Discard Count and Bytes Discarded (12 each): 84 bytes a source,
       * two in 256 */
      fail_unless_equals_int (n_in, 2);
      fail_unless_equals_int (x->n_blocks, 10);
    } else {
      /* the two that waited go first, with their RLE blocks; a source
       * with nothing new has only its 52 bytes of fixed blocks, and one
       * of those still fits */
      fail_unless_equals_int (n_in, 3);
      for (guint k = 0; k < 4; k++)
        fail_unless (seen[k] || in[k], "source %u waited twice", k);
      for (guint i = 0; i < x->n_blocks; i++)
        if (x->blocks[i].bt == RTPCC_XR_BT_LOSS_RLE)
          fail_if (seen[block_ssrc (&x->blocks[i]) - 0x100]);
    }
    for (guint k = 0; k < 4; k++)
      seen[k] |= in[k];
    for (guint i = 0; i < x->n_blocks; i++)
      if ((x->blocks[i].bt == RTPCC_XR_BT_LOSS_RLE
              || x->blocks[i].bt == RTPCC_XR_BT_POST_REPAIR_RLE))
        g_free (x->blocks[i].rle.bits);
    g_free (x->blocks);
    g_free (x);
    t += MS (1);
    while (rtpcc_receiver_next_feedback_time (r) > t)
      t += MS (1);
    t -= MS (1);
  }
  for (guint k = 0; k < 4; k++)
    fail_unless (seen[k], "source %u never reported", k);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* RFC 3611 §4.4 / §4.5 blocks: what is written is found again; a DLRR
 * about another receiver is not ours; broken blocks are refused. */
GST_START_TEST (test_rrtr_dlrr_codec)
{
  guint8 buf[64];
  guint64 ntp = 0;
  guint32 lrr = 0, dlrr = 0;
  gsize n;

  n = rtpcc_xr_rrtr_write (buf, sizeof buf, 0x22,
      G_GUINT64_CONSTANT (0xE875470140001234));
  fail_unless_equals_int (n, 20);
  fail_unless_equals_int (rtpcc_xr_rrtr_write (buf, 19, 0x22, 1), 0);
  fail_unless_equals_int (rtpcc_xr_find_rrtr (buf, n, &ntp), 1);
  fail_unless (ntp == G_GUINT64_CONSTANT (0xE875470140001234));
  fail_unless_equals_int (rtpcc_xr_find_dlrr (buf, n, 0x22, &lrr, &dlrr),
      0);
  buf[11] = 1;                  /* RRTR of 8 bytes */
  buf[3] -= 1;
  fail_unless_equals_int (rtpcc_xr_find_rrtr (buf, n - 4, &ntp), -1);

  n = rtpcc_xr_dlrr_write (buf, sizeof buf, 0x11, 0x22, 0x47014000, 0x8000);
  fail_unless_equals_int (n, 24);
  fail_unless_equals_int (rtpcc_xr_find_dlrr (buf, n, 0x22, &lrr, &dlrr),
      1);
  fail_unless_equals_int (lrr, 0x47014000);
  fail_unless_equals_int (dlrr, 0x8000);
  fail_unless_equals_int (rtpcc_xr_find_dlrr (buf, n, 0x33, &lrr, &dlrr),
      0);
  fail_unless_equals_int (rtpcc_xr_find_rrtr (buf, n, &ntp), 0);
  /* a length past the packet, then a sub-block cut short */
  fail_unless_equals_int (rtpcc_xr_find_dlrr (buf, n - 4, 0x22, &lrr,
          &dlrr), -1);
  buf[11] = 2;
  buf[3] -= 1;
  fail_unless_equals_int (rtpcc_xr_find_dlrr (buf, n - 4, 0x22, &lrr,
          &dlrr), -1);
  fail_unless_equals_int (rtpcc_xr_find_dlrr (NULL, 0, 0x22, &lrr, &dlrr),
      -1);
}

GST_END_TEST;

/* Round trips the application gives go into the Delay Metrics block of
 * the next report (min / mean / max); a report with no sample since the
 * previous one says "unavailable". */
GST_START_TEST (test_delay_samples)
{
  RtpccReceiver *r = call_loop_receiver_new (RTPCC_FEEDBACK_RR, MS (400),
      RTPCC_RECEIVER_XR_DELAY);
  RtpccXrReport *x;
  RtpccTime t;

  deliver (r, MEDIA, 10, 0, MS (1));
  rtpcc_receiver_add_rtt (r, MS (30));
  rtpcc_receiver_add_rtt (r, MS (50));
  rtpcc_receiver_add_rtt (r, RTPCC_TIME_NONE);  /* ignored */
  x = next_xr (r, MS (10));
  fail_unless_equals_int (x->n_blocks, 1);
  fail_unless_equals_int (x->blocks[0].bt, RTPCC_XR_BT_DELAY);
  fail_unless_equals_int (x->blocks[0].delay.interval, RTPCC_XR_I_INTERVAL);
  fail_unless_equals_int (x->blocks[0].delay.min_rtt,
      rtpcc_xr_delay_from_time (MS (30)));
  fail_unless_equals_int (x->blocks[0].delay.mean_rtt,
      rtpcc_xr_delay_from_time (MS (40)));
  fail_unless_equals_int (x->blocks[0].delay.max_rtt,
      rtpcc_xr_delay_from_time (MS (50)));
  fail_unless (x->blocks[0].delay.end_system_delay ==
      RTPCC_XR_ES_DELAY_UNAVAILABLE);
  g_free (x->blocks);
  g_free (x);
  t = rtpcc_receiver_next_feedback_time (r);
  x = next_xr (r, t);
  fail_unless_equals_int (x->blocks[0].delay.mean_rtt,
      RTPCC_XR_DELAY_UNAVAILABLE);
  fail_unless_equals_int (x->blocks[0].delay.min_rtt,
      RTPCC_XR_DELAY_UNAVAILABLE);
  g_free (x->blocks);
  g_free (x);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* 1500 packets before the first report: the Loss RLE covers the newest
 * 512, the 988 before them are counted as skipped. */
GST_START_TEST (test_rle_skips_oldest)
{
  RtpccReceiver *r = call_loop_receiver_new (RTPCC_FEEDBACK_RR, MS (4000),
      RTPCC_RECEIVER_XR_LOSS_RLE);
  RtpccXrReport *x;

  deliver (r, MEDIA, 1500, 0, RTPCC_USEC (500));
  x = next_xr (r, MS (750));
  fail_unless_equals_int (x->n_blocks, 1);
  fail_unless_equals_int (x->blocks[0].bt, RTPCC_XR_BT_LOSS_RLE);
  fail_unless_equals_int (x->blocks[0].rle.begin_seq, 988);
  fail_unless_equals_int (x->blocks[0].rle.end_seq, 1500);
  fail_unless_equals_int (x->blocks[0].rle.n_bits, 512);
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (r,
          MS (750))->xr_rle_skipped, 988);
  g_free (x->blocks[0].rle.bits);
  g_free (x->blocks);
  g_free (x);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

static const RtpccXrBlock *
find_block (const RtpccXrReport * x, guint8 bt)
{
  for (guint i = 0; i < x->n_blocks; i++)
    if (x->blocks[i].bt == bt)
      return &x->blocks[i];
  return NULL;
}

static void
xr_free (RtpccXrReport * x)
{
  for (guint i = 0; i < x->n_blocks; i++)
    if (x->blocks[i].bt == RTPCC_XR_BT_LOSS_RLE
        || x->blocks[i].bt == RTPCC_XR_BT_POST_REPAIR_RLE)
      g_free (x->blocks[i].rle.bits);
  g_free (x->blocks);
  g_free (x);
}

/* RFC 7005 marks over the reporting interval: every update between two
 * reports counts (the highest high, the lowest low, and each nominal
 * delay), the next interval starts at the nominal delay in force; bogus
 * updates are refused and counted. */
GST_START_TEST (test_dejitter_marks)
{
  RtpccReceiver *r = call_loop_receiver_new (RTPCC_FEEDBACK_RR, MS (200),
      RTPCC_RECEIVER_XR_DEJITTER);
  const RtpccXrBlock *b;
  RtpccXrReport *x;

  deliver (r, MEDIA, 10, 0, MS (10));
  fail_unless (rtpcc_receiver_set_dejitter (r, MEDIA, TRUE, MS (80),
          MS (400), MS (90), MS (70)));
  fail_unless (rtpcc_receiver_set_dejitter (r, MEDIA, TRUE, MS (150),
          MS (400), RTPCC_TIME_NONE, RTPCC_TIME_NONE));
  fail_unless (rtpcc_receiver_set_dejitter (r, MEDIA, TRUE, MS (60),
          MS (400), MS (60), MS (60)));
  /* refused: unknown SSRC, no nominal delay, low above high, negative */
  fail_if (rtpcc_receiver_set_dejitter (r, MEDIA + 1, TRUE, MS (1),
          MS (2), MS (1), MS (1)));
  fail_if (rtpcc_receiver_set_dejitter (r, MEDIA, TRUE, RTPCC_TIME_NONE,
          MS (2), MS (1), MS (1)));
  fail_if (rtpcc_receiver_set_dejitter (r, MEDIA, TRUE, MS (5),
          MS (9), MS (1), MS (2)));
  fail_if (rtpcc_receiver_set_dejitter (r, MEDIA, TRUE, MS (5),
          -MS (9), RTPCC_TIME_NONE, RTPCC_TIME_NONE));
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (r,
          MS (100))->dejitter_rejected, 4);

  x = next_xr (r, MS (100));
  b = find_block (x, RTPCC_XR_BT_DEJITTER);
  fail_unless (b != NULL);
  fail_unless_equals_int (b->dejitter.interval, RTPCC_XR_I_SAMPLED);
  fail_unless (b->dejitter.adaptive);
  fail_unless_equals_int (b->dejitter.ssrc, MEDIA);
  fail_unless_equals_int (b->dejitter.nominal, 60);
  fail_unless_equals_int (b->dejitter.maximum, 400);
  fail_unless_equals_int (b->dejitter.high_water, 150);
  fail_unless_equals_int (b->dejitter.low_water, 60);
  xr_free (x);

  /* no update: the marks are the delay held all along */
  x = next_xr (r, MS (700));
  b = find_block (x, RTPCC_XR_BT_DEJITTER);
  fail_unless (b != NULL);
  fail_unless_equals_int (b->dejitter.high_water, 60);
  fail_unless_equals_int (b->dejitter.low_water, 60);
  xr_free (x);

  /* a rise: from 60 (where the interval began) to 110 */
  fail_unless (rtpcc_receiver_set_dejitter (r, MEDIA, FALSE, MS (110),
          RTPCC_TIME_NONE, MS (110), MS (100)));
  x = next_xr (r, MS (1400));
  b = find_block (x, RTPCC_XR_BT_DEJITTER);
  fail_unless (b != NULL);
  fail_if (b->dejitter.adaptive);
  fail_unless_equals_int (b->dejitter.nominal, 110);
  fail_unless_equals_int (b->dejitter.maximum, RTPCC_XR_DJB_UNAVAILABLE);
  fail_unless_equals_int (b->dejitter.high_water, 110);
  fail_unless_equals_int (b->dejitter.low_water, 60);
  xr_free (x);

  /* forgotten (an estimate a real buffer replaces): no block, until the
   * next update, whose marks are its own */
  rtpcc_receiver_clear_dejitter (r, MEDIA);
  x = next_xr (r, MS (2100));
  fail_unless (find_block (x, RTPCC_XR_BT_DEJITTER) == NULL);
  xr_free (x);
  fail_unless (rtpcc_receiver_set_dejitter (r, MEDIA, TRUE, MS (30),
          MS (400), MS (35), MS (25)));
  x = next_xr (r, MS (2800));
  b = find_block (x, RTPCC_XR_BT_DEJITTER);
  fail_unless (b != NULL);
  fail_unless_equals_int (b->dejitter.high_water, 35);
  fail_unless_equals_int (b->dejitter.low_water, 25);
  xr_free (x);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* Repairs (FEC, RTX) count as received in the Post-repair RLE, not in
 * the Loss RLE; a repair far from the newest packet, of an unknown
 * source, or of a range already reported is refused and counted, and
 * never marks a later loss. */
GST_START_TEST (test_repair_window)
{
  RtpccReceiver *r = call_loop_receiver_new (RTPCC_FEEDBACK_RR, MS (200),
      RTPCC_RECEIVER_XR_LOSS_RLE | RTPCC_RECEIVER_XR_POST_REPAIR_RLE);
  const RtpccXrBlock *loss, *post;
  RtpccXrReport *x;
  RtpccTime t = 0;

  /* 0..19, 5 and 6 lost */
  for (guint i = 0; i < 20; i++, t += MS (5)) {
    RtpccRtpInfo info = { 0, };
    if (i == 5 || i == 6)
      continue;
    info.ssrc = MEDIA;
    info.seq = (guint16) i;
    info.pt = 96;
    info.size = SIZE;
    info.clock_rate = 90000;
    rtpcc_receiver_on_rtp (r, t, &info);
  }
  fail_unless (rtpcc_receiver_mark_repaired (r, t, MEDIA, 6));
  fail_if (rtpcc_receiver_mark_repaired (r, t, MEDIA + 1, 5));
  fail_if (rtpcc_receiver_mark_repaired (r, t, MEDIA, 19 + 300));
  fail_if (rtpcc_receiver_mark_repaired (r, t, MEDIA,
          (guint16) (19 - RTPCC_RECEIVER_REPAIR_BEHIND - 1)));
  x = next_xr (r, t);
  loss = find_block (x, RTPCC_XR_BT_LOSS_RLE);
  post = find_block (x, RTPCC_XR_BT_POST_REPAIR_RLE);
  fail_unless (loss && post);
  fail_unless_equals_int (post->rle.begin_seq, loss->rle.begin_seq);
  fail_unless_equals_int (post->rle.n_bits, loss->rle.n_bits);
  for (guint i = 0; i < loss->rle.n_bits; i++) {
    guint16 q = rtpcc_xr_rle_seq (&loss->rle, i);
    fail_unless_equals_int (loss->rle.bits[i], q != 5 && q != 6);
    fail_unless_equals_int (post->rle.bits[i], q != 5);
  }
  xr_free (x);
  /* 5 was reported lost already: too late to count */
  fail_if (rtpcc_receiver_mark_repaired (r, MS (600), MEDIA, 5));
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (r,
          MS (600))->repairs_marked, 1);
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (r,
          MS (600))->repairs_rejected, 4);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* What the receiver puts on the wire with every block on, as tshark
 * reads it: no malformed packet, no expert warning; and the blocks in
 * order, per compound: RR, SDES, XR (Discard RLE, when some are pending),
 * XR (Loss RLE, Post-repair Loss RLE, Delay, Discard Count, Bytes
 * Discarded, De-jitter), XR (Receiver Reference Time); the sender's SR,
 * SDES and XR (DLRR) answering it. */
GST_START_TEST (test_tshark)
{
  gchar *tshark = tshark_find ("test_tshark");
  Loop l;
  gchar *dir, *file, *out;

  if (tshark == NULL)
    return;
  loop_init (&l, "fixed", RTPCC_RECEIVER_XR_ALL);
  l.pcap = test_pcap_new ();
  run (&l, 1500);
  fail_unless (l.frames >= 5);
  file = test_pcap_save (l.pcap, "rtpcc-xrwire-XXXXXX", "xr.pcap", &dir);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_clean (out);
  tshark_assert_no_warnings (out);
  g_free (out);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "rtcp.pt", "-e", "rtcp.length_check", "-e", "rtcp.xr.bt", NULL});
  {
    /* new packets came before every report; discards (one every 40
     * packets = 400 ms) were pending or not */
    gchar **lines = g_strsplit (out, "\n", -1);
    guint seen = 0, with_discards = 0, rr = 0, dlrr = 0;
    for (guint i = 0; lines[i]; i++) {
      if (!*lines[i])
        continue;
      if (g_str_has_prefix (lines[i], "200,")) {
        /* the sender's SR, with a DLRR answering an RRTR or not */
        fail_unless (g_str_equal (lines[i], "200,202,207;1;5")
            || g_str_equal (lines[i], "200,202;1;"),
            "unexpected line '%s'", lines[i]);
        dlrr += g_str_equal (lines[i], "200,202,207;1;5");
      } else {
        fail_unless (g_str_equal (lines[i],
                "201,202,207,207;1;1,10,16,24,26,23,4")
            || g_str_equal (lines[i],
                "201,202,207,207,207;1;25,1,10,16,24,26,23,4"),
            "unexpected line '%s'", lines[i]);
        rr++;
        with_discards += strstr (lines[i], ";25,") != NULL;
      }
      seen++;
    }
    fail_unless_equals_int (seen, l.frames);
    fail_unless (with_discards > 0 && with_discards < rr);
    /* each RRTR answered (the last may still be on its way) */
    fail_unless (dlrr + 1 >= rr);
    g_strfreev (lines);
  }
  g_free (out);

  test_pcap_remove (file, dir);
  g_free (tshark);
  loop_clear (&l);
}

GST_END_TEST;

static Suite *
rtpcc_xr_wire_suite (void)
{
  Suite *s = suite_create ("rtpcc_xr_wire");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_all_blocks, 0, 2);
  tcase_add_test (tc, test_default_discard_only);
  tcase_add_test (tc, test_fbra_rr_xr);
  tcase_add_test (tc, test_bad_xr_counted);
  tcase_add_test (tc, test_budget_turns);
  tcase_add_test (tc, test_delay_samples);
  tcase_add_test (tc, test_rrtr_dlrr_codec);
  tcase_add_test (tc, test_rle_skips_oldest);
  tcase_add_test (tc, test_dejitter_marks);
  tcase_add_test (tc, test_repair_window);
  tcase_add_test (tc, test_tshark);
  return s;
}

GST_CHECK_MAIN (rtpcc_xr_wire);

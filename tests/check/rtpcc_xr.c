/* Unit tests for the RTCP XR report blocks (feedback/xr.h): RFC 3611 Loss
 * RLE, RFC 5725 Post-repair Loss RLE, RFC 7097 Discard RLE, RFC 6843
 * Delay Metrics, RFC 7005 De-Jitter Buffer Metrics, RFC 7002 Discard
 * Count and RFC 7243 Bytes Discarded, one packet of several, against
 * hand-assembled bytes and RFC 3611's thinning example; the flags each
 * RFC rules out; random round trips; malformed packets; the unit
 * conversions; GStreamer's RTCP reader and tshark's dissection. (The
 * RLE-only API's own tests are with FBRA's, in rtpcc_fbra.c.)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#include "assert-bytes.h"
#include "tshark-util.h"

#define XR_SSRC 0x11223344
#define SRC 0xaabbccdd

/* One packet of every metric block and a Post-repair RLE block, from
 * XR_SSRC about SRC:
 *  - Delay Metrics, interval (I = 10): mean 150 ms = 9830.4/65536 s →
 *    0x2666 (truncated), min 100 ms → 0x1999, max 250 ms → 0x4000; end
 *    system delay 1.5 s = 1 + 0x80000000/2^32;
 *  - De-Jitter Buffer, sampled (I = 01, the only value RFC 7005 allows),
 *    adaptive (C = 1): nominal 80, maximum 200, high water 240, low water
 *    40 ms;
 *  - Discard Count, interval, DT = 10 (too late): 37 packets;
 *  - Bytes Discarded, interval, E = 1 (too early): 45000 bytes;
 *  - Post-repair Loss RLE over 1000..1019, 1005 and 1006 lost for good:
 *    15 positions as a bit vector 1 111110011111111 = 0xFCFF, then the
 *    remaining five 1s as a run, 0 1 00000000000101 = 0x4005. */
static const guint8 report_example[] = {
  0x80, 0xCF, 0x00, 0x16,       /* XR, 92 bytes: length 23 words − 1 */
  0x11, 0x22, 0x33, 0x44,       /* XR sender */
  0x10, 0x80, 0x00, 0x06,       /* BT 16, I = 10, length 6 */
  0xaa, 0xbb, 0xcc, 0xdd,
  0x00, 0x00, 0x26, 0x66,       /* mean RTT */
  0x00, 0x00, 0x19, 0x99,       /* min RTT */
  0x00, 0x00, 0x40, 0x00,       /* max RTT */
  0x00, 0x00, 0x00, 0x01,       /* end system delay, seconds */
  0x80, 0x00, 0x00, 0x00,       /* ... and fraction */
  0x17, 0x60, 0x00, 0x03,       /* BT 23, I = 01, C = 1, length 3 */
  0xaa, 0xbb, 0xcc, 0xdd,
  0x00, 0x50, 0x00, 0xC8,       /* nominal 80, maximum 200 */
  0x00, 0xF0, 0x00, 0x28,       /* high water 240, low water 40 */
  0x18, 0xA0, 0x00, 0x02,       /* BT 24, I = 10, DT = 10, length 2 */
  0xaa, 0xbb, 0xcc, 0xdd,
  0x00, 0x00, 0x00, 0x25,       /* 37 packets */
  0x1A, 0xA0, 0x00, 0x02,       /* BT 26, I = 10, E = 1, length 2 */
  0xaa, 0xbb, 0xcc, 0xdd,
  0x00, 0x00, 0xAF, 0xC8,       /* 45000 bytes */
  0x0A, 0x00, 0x00, 0x03,       /* BT 10, T = 0, length 3 */
  0xaa, 0xbb, 0xcc, 0xdd,
  0x03, 0xE8, 0x03, 0xFC,       /* begin 1000, end 1020 */
  0xFC, 0xFF, 0x40, 0x05,       /* bit vector, run of five 1s */
};

static guint8 post_repair_bits[20];

static void
fill_example (RtpccXrBlock b[5])
{
  memset (b, 0, 5 * sizeof (RtpccXrBlock));
  b[0].bt = RTPCC_XR_BT_DELAY;
  b[0].delay.interval = RTPCC_XR_I_INTERVAL;
  b[0].delay.ssrc = SRC;
  b[0].delay.mean_rtt = rtpcc_xr_delay_from_time (RTPCC_MSEC (150));
  b[0].delay.min_rtt = rtpcc_xr_delay_from_time (RTPCC_MSEC (100));
  b[0].delay.max_rtt = rtpcc_xr_delay_from_time (RTPCC_MSEC (250));
  b[0].delay.end_system_delay =
      rtpcc_xr_es_delay_from_time (RTPCC_MSEC (1500));
  b[1].bt = RTPCC_XR_BT_DEJITTER;
  b[1].dejitter.interval = RTPCC_XR_I_SAMPLED;
  b[1].dejitter.adaptive = TRUE;
  b[1].dejitter.ssrc = SRC;
  b[1].dejitter.nominal = rtpcc_xr_djb_from_time (RTPCC_MSEC (80));
  b[1].dejitter.maximum = 200;
  b[1].dejitter.high_water = 240;
  b[1].dejitter.low_water = 40;
  b[2].bt = RTPCC_XR_BT_DISCARD_COUNT;
  b[2].discard_count.interval = RTPCC_XR_I_INTERVAL;
  b[2].discard_count.discard_type = RTPCC_XR_DT_LATE;
  b[2].discard_count.ssrc = SRC;
  b[2].discard_count.packets = 37;
  b[3].bt = RTPCC_XR_BT_BYTES_DISCARDED;
  b[3].bytes_discarded.interval = RTPCC_XR_I_INTERVAL;
  b[3].bytes_discarded.early = TRUE;
  b[3].bytes_discarded.ssrc = SRC;
  b[3].bytes_discarded.bytes = 45000;
  memset (post_repair_bits, 1, sizeof (post_repair_bits));
  post_repair_bits[5] = post_repair_bits[6] = 0;
  b[4].bt = RTPCC_XR_BT_POST_REPAIR_RLE;
  b[4].rle.bt = RTPCC_XR_BT_POST_REPAIR_RLE;
  b[4].rle.ssrc = SRC;
  b[4].rle.begin_seq = 1000;
  b[4].rle.end_seq = 1020;
  b[4].rle.n_bits = 20;
  b[4].rle.bits = post_repair_bits;
}

GST_START_TEST (test_report_layout)
{
  RtpccXrBlock b[5];
  guint8 buf[256];
  gsize n;
  GError *err = NULL;
  g_autoptr (RtpccXrReport) r = NULL;

  fill_example (b);
  fail_unless_equals_int (rtpcc_xr_block_size (&b[0]), 28);
  fail_unless_equals_int (rtpcc_xr_block_size (&b[1]), 16);
  fail_unless_equals_int (rtpcc_xr_block_size (&b[2]), 12);
  fail_unless_equals_int (rtpcc_xr_block_size (&b[3]), 12);
  fail_unless_equals_int (rtpcc_xr_block_size (&b[4]), 16);
  n = rtpcc_xr_report_write (buf, sizeof (buf), XR_SSRC, b, 5);
  assert_bytes (buf, n, report_example);
  /* one byte short: nothing */
  fail_unless_equals_int (rtpcc_xr_report_write (buf, n - 1, XR_SSRC, b,
          5), 0);

  r = rtpcc_xr_report_parse (report_example, sizeof (report_example), &err);
  fail_unless (r != NULL, "%s", err ? err->message : "");
  fail_unless (r->ssrc == XR_SSRC);
  fail_unless_equals_int (r->n_blocks, 5);
  fail_unless_equals_int (r->n_unknown, 0);
  fail_unless_equals_int (r->n_over_cap, 0);
  fail_unless_equals_int (r->n_discarded, 0);

  fail_unless_equals_int (r->blocks[0].bt, RTPCC_XR_BT_DELAY);
  fail_unless_equals_int (r->blocks[0].delay.interval, RTPCC_XR_I_INTERVAL);
  fail_unless (r->blocks[0].delay.ssrc == SRC);
  fail_unless (r->blocks[0].delay.mean_rtt == 0x2666);
  fail_unless (r->blocks[0].delay.min_rtt == 0x1999);
  fail_unless (r->blocks[0].delay.max_rtt == 0x4000);
  fail_unless (r->blocks[0].delay.end_system_delay ==
      G_GUINT64_CONSTANT (0x180000000));
  /* 9830/65536 s = 149.993896 ms */
  fail_unless_equals_int64 (rtpcc_xr_delay_to_time (r->blocks[0].
          delay.mean_rtt), 149993896);
  fail_unless_equals_int64 (rtpcc_xr_es_delay_to_time (r->blocks[0].
          delay.end_system_delay), RTPCC_MSEC (1500));

  fail_unless_equals_int (r->blocks[1].bt, RTPCC_XR_BT_DEJITTER);
  fail_unless_equals_int (r->blocks[1].dejitter.interval,
      RTPCC_XR_I_SAMPLED);
  fail_unless (r->blocks[1].dejitter.adaptive);
  fail_unless_equals_int (r->blocks[1].dejitter.nominal, 80);
  fail_unless_equals_int (r->blocks[1].dejitter.maximum, 200);
  fail_unless_equals_int (r->blocks[1].dejitter.high_water, 240);
  fail_unless_equals_int (r->blocks[1].dejitter.low_water, 40);

  fail_unless_equals_int (r->blocks[2].bt, RTPCC_XR_BT_DISCARD_COUNT);
  fail_unless_equals_int (r->blocks[2].discard_count.discard_type,
      RTPCC_XR_DT_LATE);
  fail_unless_equals_int (r->blocks[2].discard_count.packets, 37);

  fail_unless_equals_int (r->blocks[3].bt, RTPCC_XR_BT_BYTES_DISCARDED);
  fail_unless (r->blocks[3].bytes_discarded.early);
  fail_unless_equals_int (r->blocks[3].bytes_discarded.bytes, 45000);

  fail_unless_equals_int (r->blocks[4].bt, RTPCC_XR_BT_POST_REPAIR_RLE);
  fail_unless_equals_int (r->blocks[4].rle.bt, RTPCC_XR_BT_POST_REPAIR_RLE);
  fail_unless (r->blocks[4].rle.ssrc == SRC);
  fail_unless_equals_int (r->blocks[4].rle.begin_seq, 1000);
  fail_unless_equals_int (r->blocks[4].rle.end_seq, 1020);
  fail_unless_equals_int (r->blocks[4].rle.n_bits, 20);
  fail_unless (memcmp (r->blocks[4].rle.bits, post_repair_bits, 20) == 0);

  /* the RLE-only parser keeps none of these */
  {
    g_autoptr (GError) e = NULL;
    RtpccXr *xr = rtpcc_xr_parse (report_example, sizeof (report_example),
        &e);

    fail_unless (xr != NULL);
    fail_unless_equals_int (xr->n_blocks, 0);
    fail_unless_equals_int (xr->n_skipped, 5);
    rtpcc_xr_free (xr);
  }
}

GST_END_TEST;

/* Thinning and the early flag: Loss RLE with T = 1 over 0..9 reports
 * 0, 2, 4, 6, 8 — 1 0 1 1 1, one bit vector 1 10111 000000000 = 0xDC00
 * and a null chunk; Discard RLE, E = 1, 65534..1 (wrapping) all
 * discarded: a run of three 1s, 0x4003, and a null chunk. An empty report
 * is the header alone. */
GST_START_TEST (test_rle_thinning_early_empty)
{
  static const guint8 want[] = {
    0x80, 0xCF, 0x00, 0x09, 0x11, 0x22, 0x33, 0x44,
    0x01, 0x01, 0x00, 0x03, 0xaa, 0xbb, 0xcc, 0xdd,
    0x00, 0x00, 0x00, 0x0A, 0xDC, 0x00, 0x00, 0x00,
    0x19, 0x10, 0x00, 0x03, 0xaa, 0xbb, 0xcc, 0xdd,
    0xFF, 0xFE, 0x00, 0x01, 0x40, 0x03, 0x00, 0x00,
  };
  static const guint8 want_empty[] = {
    0x80, 0xCF, 0x00, 0x01, 0x11, 0x22, 0x33, 0x44,
  };
  guint8 thinned[5] = { 1, 0, 1, 1, 1 }, late[3] = { 1, 1, 1 };
  RtpccXrBlock b[2];
  guint8 buf[64];
  gsize n;
  g_autoptr (RtpccXrReport) r = NULL;

  memset (b, 0, sizeof (b));
  b[0].bt = b[0].rle.bt = RTPCC_XR_BT_LOSS_RLE;
  b[0].rle.thinning = 1;
  b[0].rle.ssrc = SRC;
  b[0].rle.begin_seq = 0;
  b[0].rle.end_seq = 10;
  b[0].rle.n_bits = 5;
  b[0].rle.bits = thinned;
  b[1].bt = b[1].rle.bt = RTPCC_XR_BT_DISCARD_RLE;
  b[1].rle.early = TRUE;
  b[1].rle.ssrc = SRC;
  b[1].rle.begin_seq = 65534;
  b[1].rle.end_seq = 1;
  b[1].rle.n_bits = 3;
  b[1].rle.bits = late;
  n = rtpcc_xr_report_write (buf, sizeof (buf), XR_SSRC, b, 2);
  assert_bytes (buf, n, want);
  r = rtpcc_xr_report_parse (buf, n, NULL);
  fail_unless (r != NULL && r->n_blocks == 2);
  fail_unless_equals_int (r->blocks[0].rle.thinning, 1);
  fail_unless_equals_int (r->blocks[0].rle.n_bits, 5);
  fail_unless (memcmp (r->blocks[0].rle.bits, thinned, 5) == 0);
  fail_unless (r->blocks[1].rle.early);
  fail_unless_equals_int (r->blocks[1].rle.n_bits, 3);
  g_clear_pointer (&r, rtpcc_xr_report_free);

  /* E is Discard RLE's alone: a Loss RLE block's E is written as 0 */
  b[0].rle.early = TRUE;
  n = rtpcc_xr_report_write (buf, sizeof (buf), XR_SSRC, b, 2);
  assert_bytes (buf, n, want);

  n = rtpcc_xr_report_write (buf, sizeof (buf), XR_SSRC, NULL, 0);
  assert_bytes (buf, n, want_empty);
  r = rtpcc_xr_report_parse (buf, n, NULL);
  fail_unless (r != NULL && r->n_blocks == 0 && r->n_unknown == 0);
}

GST_END_TEST;

/* RFC 3611 §4.1's thinning example: a trace over 13821..13865 with T = 2
 * reports only the multiples of 4, 13824 … 13864, eleven of them,
 * "1 1 1 1 1 0 1 1 1 1 0", encoded as "bit vector 1111 1011 1100 000" and
 * a null chunk: 1 111110111100000 = 0xFDE0. */
GST_START_TEST (test_rle_thinning_rfc3611_example)
{
  static const guint8 want[] = {
    0x80, 0xCF, 0x00, 0x05, 0x11, 0x22, 0x33, 0x44,
    0x01, 0x02, 0x00, 0x03, 0xaa, 0xbb, 0xcc, 0xdd,
    0x35, 0xFD, 0x36, 0x2A,     /* begin 13821, end 13866 */
    0xFD, 0xE0, 0x00, 0x00,
  };
  guint8 trace[11] = { 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0 };
  RtpccXrBlock b;
  guint8 buf[64];
  gsize n;
  g_autoptr (RtpccXrReport) r = NULL;

  memset (&b, 0, sizeof (b));
  b.bt = b.rle.bt = RTPCC_XR_BT_LOSS_RLE;
  b.rle.thinning = 2;
  b.rle.ssrc = SRC;
  b.rle.begin_seq = 13821;
  b.rle.end_seq = 13866;
  /* 12 if the positions were counted from begin_seq on */
  b.rle.n_bits = 12;
  b.rle.bits = trace;
  fail_unless_equals_int (rtpcc_xr_block_size (&b), 0);
  b.rle.n_bits = 11;
  n = rtpcc_xr_report_write (buf, sizeof (buf), XR_SSRC, &b, 1);
  assert_bytes (buf, n, want);
  r = rtpcc_xr_report_parse (want, sizeof (want), NULL);
  fail_unless (r != NULL && r->n_blocks == 1);
  fail_unless_equals_int (r->blocks[0].rle.n_bits, 11);
  fail_unless (memcmp (r->blocks[0].rle.bits, trace, 11) == 0);
  fail_unless_equals_int (rtpcc_xr_rle_seq (&r->blocks[0].rle, 0), 13824);
  fail_unless_equals_int (rtpcc_xr_rle_seq (&r->blocks[0].rle, 5), 13844);
  fail_unless_equals_int (rtpcc_xr_rle_seq (&r->blocks[0].rle, 10), 13864);

  /* across the wrap: 65534..5 with T = 2 holds 0 and 4 (65536 is a
   * multiple of 4 as well) */
  b.rle.begin_seq = 65534;
  b.rle.end_seq = 6;
  b.rle.n_bits = 2;
  fail_unless (rtpcc_xr_block_size (&b) > 0);
  fail_unless_equals_int (rtpcc_xr_rle_seq (&b.rle, 0), 0);
  fail_unless_equals_int (rtpcc_xr_rle_seq (&b.rle, 1), 4);
  /* no multiple of 8 in 9..15: an empty block */
  b.rle.thinning = 3;
  b.rle.begin_seq = 9;
  b.rle.end_seq = 16;
  b.rle.n_bits = 0;
  fail_unless (rtpcc_xr_block_size (&b) > 0);
  /* not thinned: every seq from begin_seq on */
  b.rle.thinning = 0;
  b.rle.n_bits = 7;
  fail_unless_equals_int (rtpcc_xr_rle_seq (&b.rle, 6), 15);
}

GST_END_TEST;

/* What the writer refuses: every field must fit its wire width and an
 * RLE block's bits must match its range. */
#define assert_unwritable(block, field, value)                              \
  G_STMT_START {                                                            \
    RtpccXrBlock _bad = (block);                                            \
    _bad.field = (value);                                                   \
    fail_unless_equals_int (rtpcc_xr_block_size (&_bad), 0);                \
  } G_STMT_END

GST_START_TEST (test_write_refuses)
{
  RtpccXrBlock b[5];
  guint8 buf[256];

  fill_example (b);
  assert_unwritable (b[0], delay.interval, 4);
  assert_unwritable (b[1], dejitter.interval, 7);
  assert_unwritable (b[2], discard_count.discard_type, 4);
  assert_unwritable (b[3], bytes_discarded.interval, 200);
  /* values the RFCs reserve or rule out for the block: I = 00 anywhere
   * (RFC 6843 defines no meaning for it), a De-Jitter block not sampled
   * (RFC 7005), a sampled count (RFC 7002, 7243), DT = 11 (RFC 7002) */
  assert_unwritable (b[0], delay.interval, 0);
  assert_unwritable (b[1], dejitter.interval, RTPCC_XR_I_INTERVAL);
  assert_unwritable (b[1], dejitter.interval, RTPCC_XR_I_CUMULATIVE);
  assert_unwritable (b[1], dejitter.interval, 0);
  assert_unwritable (b[2], discard_count.interval, RTPCC_XR_I_SAMPLED);
  assert_unwritable (b[2], discard_count.interval, 0);
  assert_unwritable (b[2], discard_count.discard_type, 3);
  assert_unwritable (b[3], bytes_discarded.interval, RTPCC_XR_I_SAMPLED);
  assert_unwritable (b[3], bytes_discarded.interval, 0);
  assert_unwritable (b[4], rle.n_bits, 19);
  assert_unwritable (b[4], rle.thinning, 16);
  assert_unwritable (b[4], rle.bits, NULL);
  /* rle.bt disagrees with bt */
  assert_unwritable (b[4], rle.bt, RTPCC_XR_BT_LOSS_RLE);
  /* a type this writer does not know */
  assert_unwritable (b[4], bt, 4);
  fail_unless_equals_int (rtpcc_xr_block_size (NULL), 0);
  fail_unless_equals_int (rtpcc_xr_report_write (NULL, 100, 1, b, 1), 0);
  fail_unless_equals_int (rtpcc_xr_report_write (buf, sizeof (buf), 1,
          NULL, 1), 0);
  /* a range of 65534 (RFC 3611 §4.1 forbids it), bits and all */
  {
    RtpccXrBlock wide = b[4];
    guint8 *ones = g_malloc (65534);

    memset (ones, 1, 65534);
    wide.rle.end_seq = (guint16) (wide.rle.begin_seq + 65534);
    wide.rle.n_bits = 65534;
    wide.rle.bits = ones;
    fail_unless_equals_int (rtpcc_xr_block_size (&wide), 0);
    /* one less is fine */
    wide.rle.end_seq--;
    wide.rle.n_bits--;
    fail_unless (rtpcc_xr_block_size (&wide) > 0);
    g_free (ones);
  }
  /* one bad block spoils the packet */
  b[2].discard_count.discard_type = 5;
  fail_unless_equals_int (rtpcc_xr_report_write (buf, sizeof (buf), 1, b,
          5), 0);
}

GST_END_TEST;

/* Unknown types are skipped and counted, known ones past the cap too,
 * and metric blocks with a flag their RFC rules out are discarded. */
GST_START_TEST (test_parse_skips)
{
  /* RFC 3611 Receiver Reference Time (BT 4); a Discard Count of
   * duplicates, cumulative (I = 11, DT = 00); a Discard Count sampled
   * (I = 01, which RFC 7002 says to discard); one of DT = 11 (reserved,
   * discarded too); a De-Jitter block over an interval (I = 10, RFC 7005
   * allows only sampled); a made-up BT 200 of one word */
  static const guint8 mixed[] = {
    0x80, 0xCF, 0x00, 0x12, 0, 0, 0, 1,
    0x04, 0x00, 0x00, 0x02, 0xE8, 0x75, 0x47, 0x01, 0x40, 0, 0, 0,
    0x18, 0xC0, 0x00, 0x02, 0, 0, 0, 9, 0, 0, 0, 3,
    0x18, 0x50, 0x00, 0x02, 0, 0, 0, 9, 0, 0, 0, 4,
    0x18, 0xB0, 0x00, 0x02, 0, 0, 0, 9, 0, 0, 0, 5,
    0x17, 0x80, 0x00, 0x03, 0, 0, 0, 9, 0, 80, 0, 200, 0, 240, 0, 40,
    0xC8, 0xFF, 0x00, 0x00,
  };
  guint n_blocks = RTPCC_XR_MAX_BLOCKS + 6;
  RtpccXrBlock *many = g_new0 (RtpccXrBlock, n_blocks);
  guint8 *buf = g_malloc (8 + 12 * n_blocks);
  gsize n;
  RtpccXrReport *r;

  r = rtpcc_xr_report_parse (mixed, sizeof (mixed), NULL);
  fail_unless (r != NULL);
  fail_unless_equals_int (r->n_blocks, 1);
  fail_unless_equals_int (r->n_unknown, 2);
  fail_unless_equals_int (r->n_discarded, 3);
  fail_unless_equals_int (r->blocks[0].discard_count.interval,
      RTPCC_XR_I_CUMULATIVE);
  fail_unless_equals_int (r->blocks[0].discard_count.discard_type,
      RTPCC_XR_DT_DUPLICATE);
  fail_unless_equals_int (r->blocks[0].discard_count.ssrc, 9);
  fail_unless_equals_int (r->blocks[0].discard_count.packets, 3);
  rtpcc_xr_report_free (r);

  for (guint i = 0; i < n_blocks; i++) {
    many[i].bt = RTPCC_XR_BT_DISCARD_COUNT;
    many[i].discard_count.interval = RTPCC_XR_I_INTERVAL;
    many[i].discard_count.ssrc = i;
  }
  n = rtpcc_xr_report_write (buf, 8 + 12 * n_blocks, 1, many, n_blocks);
  fail_unless_equals_int (n, 8 + 12 * n_blocks);
  r = rtpcc_xr_report_parse (buf, n, NULL);
  fail_unless (r != NULL);
  fail_unless_equals_int (r->n_blocks, RTPCC_XR_MAX_BLOCKS);
  fail_unless_equals_int (r->n_over_cap, 6);
  fail_unless_equals_int (r->blocks[RTPCC_XR_MAX_BLOCKS - 1].
      discard_count.ssrc, RTPCC_XR_MAX_BLOCKS - 1);
  rtpcc_xr_report_free (r);
  g_free (many);
  g_free (buf);
}

GST_END_TEST;

/* @p is refused for the reason @why names (a part of the message). */
static void
assert_refused (const guint8 * p, gsize len, const gchar * what,
    const gchar * why)
{
  GError *err = NULL;
  RtpccXrReport *r = rtpcc_xr_report_parse (p, len, &err);

  fail_unless (r == NULL, "accepted: %s", what);
  fail_unless (err != NULL && err->domain == RTPCC_ERROR
      && err->code == RTPCC_ERROR_PARSE, "%s", what);
  fail_unless (strstr (err->message, why) != NULL, "%s: %s", what,
      err->message);
  g_error_free (err);
}

GST_START_TEST (test_parse_malformed)
{
  guint8 p[sizeof (report_example) + 8];
  /* five Loss RLE blocks of 65533 positions each, the most a block may
   * cover (four runs of 16383, one of 1, a null chunk): 327665
   * positions, over RTPCC_XR_MAX_BITS */
  guint8 bomb[8 + 5 * 24];

  assert_refused (NULL, 0, "NULL", "too short");
  assert_refused (report_example, 7, "short header", "too short");
  memcpy (p, report_example, sizeof (report_example));
  p[0] = 0x40;
  assert_refused (p, sizeof (report_example), "version 1", "not an XR");
  memcpy (p, report_example, sizeof (report_example));
  p[1] = 201;
  assert_refused (p, sizeof (report_example), "an RR", "not an XR");
  /* the length field must say exactly the packet */
  memcpy (p, report_example, sizeof (report_example));
  memset (p + sizeof (report_example), 0, 8);
  assert_refused (p, sizeof (report_example) + 4, "trailing bytes",
      "disagrees");
  assert_refused (p, sizeof (report_example) - 4, "length past the end",
      "past the buffer");
  /* a Delay Metrics block of the wrong length (5, and the packet still
   * frames) */
  memcpy (p, report_example, sizeof (report_example));
  p[11] = 5;
  assert_refused (p, sizeof (report_example), "short delay block",
      "type 16 is 24 bytes, must be 28");
  /* a Discard Count block claiming three words */
  memcpy (p, report_example, sizeof (report_example));
  p[8 + 28 + 16 + 3] = 3;
  assert_refused (p, sizeof (report_example), "long discard count",
      "type 24 is 16 bytes, must be 12");
  /* the last block overrunning the packet */
  memcpy (p, report_example, sizeof (report_example));
  p[sizeof (report_example) - 16 + 3] = 4;
  assert_refused (p, sizeof (report_example), "block past the packet",
      "block length past");
  /* a chunk that does not cover the range: the run of five becomes four */
  memcpy (p, report_example, sizeof (report_example));
  p[sizeof (report_example) - 1] = 4;
  assert_refused (p, sizeof (report_example), "short of the range",
      "do not cover");
  /* padding: four bytes with a count of 4 are fine, 3 or 44 are not */
  memcpy (p, report_example, sizeof (report_example));
  p[0] |= 0x20;
  p[3] += 1;
  memset (p + sizeof (report_example), 0, 4);
  p[sizeof (report_example) + 3] = 4;
  {
    RtpccXrReport *r = rtpcc_xr_report_parse (p, sizeof (report_example) + 4,
        NULL);
    fail_unless (r != NULL && r->n_blocks == 5);
    rtpcc_xr_report_free (r);
  }
  p[sizeof (report_example) + 3] = 3;
  assert_refused (p, sizeof (report_example) + 4, "padding count 3",
      "bad padding");
  p[sizeof (report_example) + 3] = 92;
  assert_refused (p, sizeof (report_example) + 4, "padding over the header",
      "bad padding");
  /* three bytes where a block header should be: one word of padding
   * eaten by a count of 8 leaves the Post-repair block cut */
  p[sizeof (report_example) + 3] = 8;
  assert_refused (p, sizeof (report_example) + 4, "cut block",
      "block length past");

  memset (bomb, 0, sizeof (bomb));
  bomb[0] = 0x80;
  bomb[1] = 0xCF;
  bomb[3] = sizeof (bomb) / 4 - 1;
  for (guint k = 0; k < 5; k++) {
    guint8 *b = bomb + 8 + 24 * k;

    b[0] = RTPCC_XR_BT_LOSS_RLE;
    b[3] = 5;
    b[10] = 0xFF;               /* end 65533: 65533 positions */
    b[11] = 0xFD;
    for (guint c = 0; c < 4; c++) {
      b[12 + 2 * c] = 0x7F;     /* 0 1 11111111111111: 16383 ones */
      b[13 + 2 * c] = 0xFF;
    }
    b[20] = 0x40;
    b[21] = 0x01;
  }
  assert_refused (bomb, sizeof (bomb), "run-length bomb", "too many positions");
  /* four of them are within the cap */
  bomb[3] = (8 + 4 * 24) / 4 - 1;
  {
    RtpccXrReport *r = rtpcc_xr_report_parse (bomb, 8 + 4 * 24, NULL);
    fail_unless (r != NULL && r->n_blocks == 4);
    fail_unless_equals_int (r->blocks[3].rle.n_bits, 65533);
    rtpcc_xr_report_free (r);
  }
  /* a range of 65534 is refused before its chunks are read (RFC 3611
   * §4.1: a block "MUST NOT be used to report upon a range of 65,534 or
   * greater") */
  bomb[8 + 11] = 0xFE;
  assert_refused (bomb, 8 + 4 * 24, "range of 65534", "65534 or more");
}

GST_END_TEST;

/* Random sets of every block type: written, parsed back equal, framed as
 * RTCP; every strict prefix refused. */
GST_START_TEST (test_report_random_round_trip)
{
  static const guint8 types[] = { RTPCC_XR_BT_LOSS_RLE,
    RTPCC_XR_BT_POST_REPAIR_RLE, RTPCC_XR_BT_DISCARD_RLE, RTPCC_XR_BT_DELAY,
    RTPCC_XR_BT_DEJITTER, RTPCC_XR_BT_DISCARD_COUNT,
    RTPCC_XR_BT_BYTES_DISCARDED,
  };
  RtpccRng rng;
  guint8 *buf = g_malloc (65536);

  rtpcc_rng_init (&rng, 7243);
  for (guint it = 0; it < 300; it++) {
    RtpccXrBlock b[8];
    guint nb = it % 9;
    gsize n;
    GError *err = NULL;
    RtpccXrReport *r;
    RtpccRtcpIter iter;
    RtpccRtcpPacket pkt;

    memset (b, 0, sizeof (b));
    for (guint k = 0; k < nb; k++) {
      guint64 x = rtpcc_rng_next_u64 (&rng);
      guint8 bt = types[rtpcc_rng_next_u64 (&rng) % G_N_ELEMENTS (types)];

      b[k].bt = bt;
      switch (bt) {
        case RTPCC_XR_BT_DELAY:
          b[k].delay.interval = 1 + x % 3;
          b[k].delay.ssrc = (guint32) (x >> 2);
          b[k].delay.mean_rtt = (guint32) rtpcc_rng_next_u64 (&rng);
          b[k].delay.min_rtt = (guint32) rtpcc_rng_next_u64 (&rng);
          b[k].delay.max_rtt = (guint32) rtpcc_rng_next_u64 (&rng);
          b[k].delay.end_system_delay = rtpcc_rng_next_u64 (&rng);
          break;
        case RTPCC_XR_BT_DEJITTER:
          b[k].dejitter.interval = RTPCC_XR_I_SAMPLED;
          b[k].dejitter.adaptive = (x >> 2) & 1;
          b[k].dejitter.ssrc = (guint32) (x >> 3);
          b[k].dejitter.nominal = (guint16) (x >> 35);
          b[k].dejitter.maximum = (guint16) (x >> 40);
          b[k].dejitter.high_water = (guint16) (x >> 45);
          b[k].dejitter.low_water = (guint16) (x >> 48);
          break;
        case RTPCC_XR_BT_DISCARD_COUNT:
          b[k].discard_count.interval = 2 + (x & 1);
          b[k].discard_count.discard_type = (x >> 2) % 3;
          b[k].discard_count.ssrc = (guint32) (x >> 4);
          b[k].discard_count.packets = (guint32) (x >> 32);
          break;
        case RTPCC_XR_BT_BYTES_DISCARDED:
          b[k].bytes_discarded.interval = 2 + (x & 1);
          b[k].bytes_discarded.early = (x >> 2) & 1;
          b[k].bytes_discarded.ssrc = (guint32) (x >> 3);
          b[k].bytes_discarded.bytes = (guint32) (x >> 32);
          break;
        default:{
          guint t = (x & 1) ? (guint) ((x >> 1) % 16) : 0;
          guint span = (guint) ((x >> 8) % 3000);
          guint step = 1u << t, first;
          gdouble p_flip = rtpcc_rng_uniform (&rng, 0.01, 0.6);
          guint8 cur = 1;

          b[k].rle.bt = bt;
          b[k].rle.thinning = t;
          b[k].rle.early = bt == RTPCC_XR_BT_DISCARD_RLE && ((x >> 5) & 1);
          b[k].rle.ssrc = (guint32) (x >> 32);
          b[k].rle.begin_seq = (guint16) (x >> 16);
          b[k].rle.end_seq = (guint16) (b[k].rle.begin_seq + span);
          /* the multiples of 2^T in [begin, end), counted one by one */
          first = (b[k].rle.begin_seq + step - 1) / step * step;
          b[k].rle.n_bits = 0;
          for (guint q = first; q < (guint) b[k].rle.begin_seq + span;
              q += step)
            b[k].rle.n_bits++;
          b[k].rle.bits = g_malloc (MAX (b[k].rle.n_bits, 1));
          for (guint j = 0; j < b[k].rle.n_bits; j++) {
            if (rtpcc_rng_uniform (&rng, 0, 1) < p_flip)
              cur ^= 1;
            b[k].rle.bits[j] = cur;
          }
          break;
        }
      }
    }
    n = rtpcc_xr_report_write (buf, 65536, 0x1234, b, nb);
    fail_unless (n >= 8 && n % 4 == 0);
    fail_unless (rtpcc_rtcp_iter_init (&iter, buf, n));
    fail_unless (rtpcc_rtcp_iter_next (&iter, &pkt));
    fail_unless_equals_int (pkt.pt, RTPCC_RTCP_XR);
    fail_unless_equals_int (pkt.len, n);

    r = rtpcc_xr_report_parse (buf, n, &err);
    fail_unless (r != NULL, "%s", err ? err->message : "");
    fail_unless_equals_int (r->ssrc, 0x1234);
    fail_unless_equals_int (r->n_blocks, nb);
    for (guint k = 0; k < nb; k++) {
      const RtpccXrBlock *g = &r->blocks[k];

      fail_unless_equals_int (g->bt, b[k].bt);
      if (g->bt == RTPCC_XR_BT_LOSS_RLE || g->bt == RTPCC_XR_BT_DISCARD_RLE
          || g->bt == RTPCC_XR_BT_POST_REPAIR_RLE) {
        fail_unless_equals_int (g->rle.bt, b[k].rle.bt);
        fail_unless_equals_int (g->rle.thinning, b[k].rle.thinning);
        fail_unless_equals_int (g->rle.early, b[k].rle.early);
        fail_unless (g->rle.ssrc == b[k].rle.ssrc);
        fail_unless_equals_int (g->rle.begin_seq, b[k].rle.begin_seq);
        fail_unless_equals_int (g->rle.end_seq, b[k].rle.end_seq);
        fail_unless_equals_int (g->rle.n_bits, b[k].rle.n_bits);
        fail_unless (memcmp (g->rle.bits, b[k].rle.bits,
                b[k].rle.n_bits) == 0);
        g_free (b[k].rle.bits);
      } else {
        /* the metric structs hold no pointer and were zeroed: compare
         * them whole */
        fail_unless (memcmp (g, &b[k], sizeof (*g)) == 0, "block %u", k);
      }
    }
    rtpcc_xr_report_free (r);

    for (gsize cut = 0; cut < n; cut += 1 + n / 16) {
      guint8 *copy = g_memdup2 (buf, MAX (cut, 1));
      RtpccXrReport *bad = rtpcc_xr_report_parse (copy, cut, NULL);
      fail_unless (bad == NULL);
      g_free (copy);
    }
  }
  g_free (buf);
}

GST_END_TEST;

GST_START_TEST (test_unit_conversions)
{
  /* 16.16: 1.5 s = 0x00018000; the largest measured delay is one unit
   * below "unavailable"; none and negatives */
  fail_unless (rtpcc_xr_delay_from_time (RTPCC_MSEC (1500)) == 0x00018000);
  fail_unless (rtpcc_xr_delay_from_time (RTPCC_SEC (70000)) == 0xFFFFFFFE);
  fail_unless (rtpcc_xr_delay_from_time (RTPCC_TIME_NONE) ==
      RTPCC_XR_DELAY_UNAVAILABLE);
  fail_unless (rtpcc_xr_delay_from_time (-5) == 0);
  fail_unless_equals_int64 (rtpcc_xr_delay_to_time (0x00018000),
      RTPCC_MSEC (1500));
  fail_unless_equals_int64 (rtpcc_xr_delay_to_time (1), 15259);
  fail_unless (rtpcc_xr_delay_to_time (RTPCC_XR_DELAY_UNAVAILABLE) ==
      RTPCC_TIME_NONE);

  /* 32.32: 2.25 s = 2 + 0x40000000/2^32; 1 ns is 4.29 units */
  fail_unless (rtpcc_xr_es_delay_from_time (RTPCC_MSEC (2250)) ==
      G_GUINT64_CONSTANT (0x240000000));
  fail_unless (rtpcc_xr_es_delay_from_time (1) == 4);
  fail_unless (rtpcc_xr_es_delay_from_time (RTPCC_TIME_NONE) ==
      RTPCC_XR_ES_DELAY_UNAVAILABLE);
  fail_unless (rtpcc_xr_es_delay_from_time (G_MAXINT64) ==
      RTPCC_XR_ES_DELAY_UNAVAILABLE - 1);
  fail_unless (rtpcc_xr_es_delay_from_time (-1) == 0);
  for (RtpccTime t = RTPCC_SEC (3); t < RTPCC_SEC (3) + 2000; t += 7)
    fail_unless_equals_int64 (rtpcc_xr_es_delay_to_time
        (rtpcc_xr_es_delay_from_time (t)), t);
  fail_unless (rtpcc_xr_es_delay_to_time (RTPCC_XR_ES_DELAY_UNAVAILABLE) ==
      RTPCC_TIME_NONE);

  /* milliseconds, truncated; 65534 ms and up are over range */
  fail_unless_equals_int (rtpcc_xr_djb_from_time (RTPCC_USEC (80999)), 80);
  fail_unless_equals_int (rtpcc_xr_djb_from_time (RTPCC_MSEC (65533)),
      65533);
  fail_unless_equals_int (rtpcc_xr_djb_from_time (RTPCC_MSEC (65534)),
      RTPCC_XR_DJB_OVER_RANGE);
  fail_unless_equals_int (rtpcc_xr_djb_from_time (RTPCC_TIME_NONE),
      RTPCC_XR_DJB_UNAVAILABLE);
  fail_unless_equals_int (rtpcc_xr_djb_from_time (-RTPCC_MSEC (3)), 0);
  fail_unless_equals_int64 (rtpcc_xr_djb_to_time (80), RTPCC_MSEC (80));
  fail_unless (rtpcc_xr_djb_to_time (RTPCC_XR_DJB_OVER_RANGE) ==
      RTPCC_TIME_NONE);
  fail_unless (rtpcc_xr_djb_to_time (RTPCC_XR_DJB_UNAVAILABLE) ==
      RTPCC_TIME_NONE);
}

GST_END_TEST;

/* GStreamer's RTCP reader frames our report blocks and reads the Loss
 * RLE block it knows. */
GST_START_TEST (test_gst_rtcp_buffer_reads_ours)
{
  RtpccXrBlock b[6];
  guint8 thinned[5] = { 1, 0, 1, 1, 1 };
  guint8 buf[256];
  gsize n;
  GstBuffer *gbuf;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket packet;
  guint32 ssrc;
  guint8 thinning;
  guint16 begin, end, chunk;
  guint chunk_count, n_rb = 0;

  fill_example (b + 1);
  memset (b, 0, sizeof (b[0]));
  b[0].bt = b[0].rle.bt = RTPCC_XR_BT_LOSS_RLE;
  b[0].rle.thinning = 1;
  b[0].rle.ssrc = SRC;
  b[0].rle.end_seq = 10;
  b[0].rle.n_bits = 5;
  b[0].rle.bits = thinned;
  n = rtpcc_xr_report_write (buf, sizeof (buf), XR_SSRC, b, 6);
  fail_unless (n > 0);

  gbuf = gst_buffer_new_memdup (buf, n);
  fail_unless (gst_rtcp_buffer_validate_reduced (gbuf));
  fail_unless (gst_rtcp_buffer_map (gbuf, GST_MAP_READ, &rtcp));
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &packet));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&packet),
      GST_RTCP_TYPE_XR);
  fail_unless (gst_rtcp_packet_xr_get_ssrc (&packet) == XR_SSRC);
  fail_unless (gst_rtcp_packet_xr_first_rb (&packet));
  fail_unless_equals_int (gst_rtcp_packet_xr_get_block_type (&packet),
      GST_RTCP_XR_TYPE_LRLE);
  fail_unless (gst_rtcp_packet_xr_get_rle_info (&packet, &ssrc, &thinning,
          &begin, &end, &chunk_count));
  fail_unless (ssrc == SRC);
  fail_unless_equals_int (thinning, 1);
  fail_unless_equals_int (begin, 0);
  fail_unless_equals_int (end, 10);
  fail_unless_equals_int (chunk_count, 2);
  fail_unless (gst_rtcp_packet_xr_get_rle_nth_chunk (&packet, 0, &chunk));
  fail_unless_equals_int (chunk, 0xDC00);
  do {
    n_rb++;
  } while (gst_rtcp_packet_xr_next_rb (&packet));
  fail_unless_equals_int (n_rb, 6);
  fail_if (gst_rtcp_packet_move_to_next (&packet));
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (gbuf);
}

GST_END_TEST;

/* ---- tshark ------------------------------------------------------------ */

/* tshark 4.0 dissects Loss RLE (BT 1) chunk by chunk and names the
 * Post-repair block; the blocks of RFC 6843, 7002, 7005, 7097 and 7243 it
 * shows as type, type-specific byte and length. Its Loss RLE "Report
 * Chunks" subtree spans the block's length counted from after the begin
 * and end seqs, 8 bytes past the block: a Loss RLE block must be followed
 * by at least that much or tshark reports an exception, so ours comes
 * first. */
GST_START_TEST (test_tshark_dissection)
{
  gchar *tshark = tshark_find ("test_tshark_dissection");
  GByteArray *pcap;
  RtpccXrBlock b[6];
  guint8 thinned[5] = { 1, 0, 1, 1, 1 };
  guint8 pkt[512];
  gchar *dir, *file, *out;
  gsize n;

  if (tshark == NULL)
    return;

  fill_example (b + 1);
  memset (b, 0, sizeof (b[0]));
  b[0].bt = b[0].rle.bt = RTPCC_XR_BT_LOSS_RLE;
  b[0].rle.thinning = 1;
  b[0].rle.ssrc = SRC;
  b[0].rle.end_seq = 10;
  b[0].rle.n_bits = 5;
  b[0].rle.bits = thinned;

  pcap = test_pcap_new ();
  /* 1: the example packet alone; 2: RR + SDES + XR of all six */
  test_pcap_add (pcap, 1, TSHARK_RTCP_PORT, report_example,
      sizeof (report_example));
  n = test_rtcp_rr_sdes (pkt, sizeof (pkt), XR_SSRC);
  n += rtpcc_xr_report_write (pkt + n, sizeof (pkt) - n, XR_SSRC, b, 6);
  test_pcap_add (pcap, 2, TSHARK_RTCP_PORT, pkt, n);
  file = test_pcap_save (pcap, "rtpcc-xr-XXXXXX", "xr.pcap", &dir);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_no_warnings (out);
  fail_unless (strstr (out, "Post-repair Loss RLE Report Block (10)") != NULL,
      "%s", out);
  g_free (out);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "frame.number", "-e", "rtcp.pt", "-e", "rtcp.length_check",
      "-e", "rtcp.xr.bt", "-e", "rtcp.xr.bs", "-e", "rtcp.xr.bl",
      "-e", "rtcp.xr.tf", "-e", "rtcp.xr.beginseq", "-e", "rtcp.xr.endseq",
      "-e", "rtcp.xr.chunk.bit_vector", "-e", "rtcp.xr.chunk.null_terminator",
      NULL});
  {
    const gchar *want[] = {
      /* type-specific bytes: I = 10 → 0x80; I = 01, C → 0x60; I = 10 and
       * DT = 10, or E → 0xA0; BT 10, T = 0 → 0. tshark prints the bit
       * vector chunk without its leading 1 (0xDC00 → 0x5C00 = 23552)
       * and a 1 for the null chunk after it. */
      "1;207;1;16,23,24,26,10;128,96,160,160,0;6,3,2,2,3;;;;;",
      "2;201,202,207;1;1,16,23,24,26,10;128,96,160,160,0;3,6,3,2,2,3;"
          "1;0;10;23552;1",
    };
    tshark_assert_lines (out, want, G_N_ELEMENTS (want));
  }
  g_free (out);

  test_pcap_remove (file, dir);
  g_free (tshark);
}

GST_END_TEST;

static Suite *
rtpcc_xr_suite (void)
{
  Suite *s = suite_create ("rtpcc_xr");
  TCase *tc = tcase_create ("xr");
  TCase *tc_interop = tcase_create ("interop");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_report_layout);
  tcase_add_test (tc, test_rle_thinning_early_empty);
  tcase_add_test (tc, test_rle_thinning_rfc3611_example);
  tcase_add_test (tc, test_write_refuses);
  tcase_add_test (tc, test_parse_skips);
  tcase_add_test (tc, test_parse_malformed);
  tcase_add_test (tc, test_report_random_round_trip);
  tcase_add_test (tc, test_unit_conversions);

  suite_add_tcase (s, tc_interop);
  tcase_set_timeout (tc_interop, 120);
  tcase_add_test (tc_interop, test_gst_rtcp_buffer_reads_ours);
  tcase_add_test (tc_interop, test_tshark_dissection);
  return s;
}

GST_CHECK_MAIN (rtpcc_xr);

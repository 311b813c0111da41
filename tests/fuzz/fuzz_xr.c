/* Fuzz target: the RTCP XR parsers — Loss/Discard RLE only (RFC 3611 /
 * RFC 7097) and every block type (adding RFC 5725, 6843, 7002, 7005,
 * 7243) — with write/re-parse round trips, and the receiver's Discard RLE
 * output.
 *
 * The first byte picks the mode: even → the rest is one XR packet for
 * both parsers, which must agree; odd → the rest is a script of
 * rtpcc_receiver_mark_discarded calls (5 bytes each: ssrc pick, seq,
 * count) after a few media packets, whose XR output must parse and name
 * exactly the discards marked.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/feedback/xr.h>
#include <rtpcc/feedback/rtcp.h>
#include <string.h>

static void
fuzz_parse (const guint8 * data, size_t size)
{
  GError *err = NULL;
  RtpccXr *xr = rtpcc_xr_parse (data, size, &err), *again;
  guint8 *buf;
  gsize n, need = 8;
  gboolean writable = TRUE;

  if (xr == NULL) {
    FUZZ_CHECK (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
    return;
  }
  FUZZ_CHECK (xr->n_blocks <= RTPCC_XR_MAX_BLOCKS);
  for (guint b = 0; b < xr->n_blocks; b++) {
    const RtpccXrRleBlock *blk = &xr->blocks[b];
    FUZZ_CHECK (blk->n_bits <= 65535);
    for (guint i = 0; i < blk->n_bits; i++)
      FUZZ_CHECK (blk->bits[i] <= 1);
    if (blk->thinning != 0)
      writable = FALSE;
    else
      need += rtpcc_xr_rle_block_size (blk);
  }
  if (writable) {
    /* what we parsed, written and parsed again: the same blocks */
    buf = g_malloc (need);
    n = rtpcc_xr_write (buf, need, xr->ssrc, xr->blocks, xr->n_blocks);
    FUZZ_CHECK (n == need);
    again = rtpcc_xr_parse (buf, n, NULL);
    FUZZ_CHECK (again != NULL);
    FUZZ_CHECK (again->n_blocks == xr->n_blocks);
    for (guint b = 0; b < xr->n_blocks; b++) {
      FUZZ_CHECK (again->blocks[b].bt == xr->blocks[b].bt);
      FUZZ_CHECK (again->blocks[b].early == xr->blocks[b].early);
      FUZZ_CHECK (again->blocks[b].n_bits == xr->blocks[b].n_bits);
      FUZZ_CHECK (memcmp (again->blocks[b].bits, xr->blocks[b].bits,
              xr->blocks[b].n_bits) == 0);
    }
    rtpcc_xr_free (again);
    g_free (buf);
  }
  rtpcc_xr_free (xr);
}

static gboolean
rle_equal (const RtpccXrRleBlock * a, const RtpccXrRleBlock * b)
{
  return a->bt == b->bt && a->thinning == b->thinning && a->early == b->early
      && a->ssrc == b->ssrc && a->begin_seq == b->begin_seq
      && a->end_seq == b->end_seq && a->n_bits == b->n_bits
      && memcmp (a->bits, b->bits, a->n_bits) == 0;
}

static gboolean
is_rle (guint8 bt)
{
  return bt == RTPCC_XR_BT_LOSS_RLE || bt == RTPCC_XR_BT_POST_REPAIR_RLE
      || bt == RTPCC_XR_BT_DISCARD_RLE;
}

/* Every block type: what parses is written and parses again the same;
 * and whatever this strict parser takes, the RLE-only one takes too,
 * keeping the same Loss and Discard RLE blocks. */
static void
fuzz_report (const guint8 * data, size_t size)
{
  GError *err = NULL;
  RtpccXrReport *r = rtpcc_xr_report_parse (data, size, &err), *again;
  RtpccXr *xr;
  gsize need = 8, n;
  guint8 *buf;
  guint k = 0;

  if (r == NULL) {
    FUZZ_CHECK (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
    return;
  }
  FUZZ_CHECK (r->n_blocks <= RTPCC_XR_MAX_BLOCKS);
  for (guint b = 0; b < r->n_blocks; b++) {
    gsize bs = rtpcc_xr_block_size (&r->blocks[b]);

    FUZZ_CHECK (bs >= 12 && bs % 4 == 0);
    if (is_rle (r->blocks[b].bt)) {
      FUZZ_CHECK (r->blocks[b].rle.bt == r->blocks[b].bt);
      for (guint i = 0; i < r->blocks[b].rle.n_bits; i++)
        FUZZ_CHECK (r->blocks[b].rle.bits[i] <= 1);
    }
    need += bs;
  }
  buf = g_malloc (need);
  n = rtpcc_xr_report_write (buf, need, r->ssrc, r->blocks, r->n_blocks);
  FUZZ_CHECK (n == need);
  again = rtpcc_xr_report_parse (buf, n, NULL);
  FUZZ_CHECK (again != NULL && again->ssrc == r->ssrc);
  FUZZ_CHECK (again->n_blocks == r->n_blocks && again->n_unknown == 0);
  for (guint b = 0; b < r->n_blocks; b++) {
    const RtpccXrBlock *x = &r->blocks[b], *y = &again->blocks[b];

    FUZZ_CHECK (x->bt == y->bt);
    if (is_rle (x->bt))
      FUZZ_CHECK (rle_equal (&x->rle, &y->rle));
    else
      FUZZ_CHECK (rtpcc_xr_block_size (x) == rtpcc_xr_block_size (y)
          && memcmp (x, y, sizeof (*x)) == 0);
  }
  rtpcc_xr_report_free (again);
  g_free (buf);

  xr = rtpcc_xr_parse (data, size, NULL);
  FUZZ_CHECK (xr != NULL);
  if (r->n_over_cap == 0) {
    for (guint b = 0; b < r->n_blocks; b++) {
      const RtpccXrBlock *x = &r->blocks[b];

      if (x->bt != RTPCC_XR_BT_LOSS_RLE && x->bt != RTPCC_XR_BT_DISCARD_RLE)
        continue;
      FUZZ_CHECK (k < xr->n_blocks && rle_equal (&x->rle, &xr->blocks[k]));
      k++;
    }
    FUZZ_CHECK (k == xr->n_blocks);
  }
  rtpcc_xr_free (xr);
  rtpcc_xr_report_free (r);
}

static void
fuzz_receiver (const guint8 * data, size_t size)
{
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  guint8 out[1500];
  gsize n;
  guint64 marked = 0;
  RtpccTime now = RTPCC_SEC (1);

  rtpcc_receiver_config_init (&rc);
  rc.seed = 1;
  r = rtpcc_receiver_new (&rc, 0);
  for (guint k = 0; k < 3; k++) {
    RtpccRtpInfo info = { 0, };
    info.ssrc = 0x100 + k;
    info.seq = (guint16) (1000 * k);
    info.size = 100;
    rtpcc_receiver_on_rtp (r, now, &info);
  }
  for (size_t off = 0; off + 5 <= size; off += 5) {
    guint32 ssrc = 0x100 + data[off] % 4;      /* 0x103 is unknown */
    guint16 seq = (guint16) ((data[off + 1] << 8) | data[off + 2]);
    guint count = (guint) ((data[off + 3] << 8) | data[off + 4]) % 300;
    if (rtpcc_receiver_mark_discarded (r, now, ssrc, seq, count))
      marked = rtpcc_receiver_get_stats (r, now)->discards_marked;
  }
  n = rtpcc_receiver_build_feedback (r, RTPCC_SEC (10), out, sizeof (out));
  if (n > 0) {
    RtpccRtcpIter it;
    RtpccRtcpPacket pkt;
    guint64 bits = 0;
    FUZZ_CHECK (rtpcc_rtcp_iter_init (&it, out, n));
    while (rtpcc_rtcp_iter_next (&it, &pkt)) {
      RtpccXr *xr;
      if (pkt.pt != RTPCC_RTCP_XR)
        continue;
      xr = rtpcc_xr_parse (pkt.data, pkt.len, NULL);
      FUZZ_CHECK (xr != NULL);
      for (guint b = 0; b < xr->n_blocks; b++) {
        FUZZ_CHECK (xr->blocks[b].bt == RTPCC_XR_BT_DISCARD_RLE);
        for (guint i = 0; i < xr->blocks[b].n_bits; i++)
          bits += xr->blocks[b].bits[i];
      }
      rtpcc_xr_free (xr);
    }
    /* reported = the distinct seqs marked, at most what was marked */
    FUZZ_CHECK (bits <= marked);
    FUZZ_CHECK (rtpcc_receiver_get_stats (r, 0)->discards_reported == 0
        || bits > 0);
  }
  rtpcc_receiver_free (r);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size == 0)
    return 0;
  if (data[0] % 2 == 0) {
    fuzz_parse (data + 1, size - 1);
    fuzz_report (data + 1, size - 1);
  } else
    fuzz_receiver (data + 1, size - 1);
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  guint8 buf[512], bits[40];
  gsize n;
  RtpccXrRleBlock b[2];
  static const guint8 script[] = {
    0x01,
    0x00, 0xff, 0xfe, 0x00, 0x04, 0x01, 0x03, 0xe8, 0x00, 0x01,
    0x03, 0x00, 0x01, 0x00, 0x01, 0x02, 0x07, 0xd0, 0x01, 0x00,
  };

  memset (b, 0, sizeof (b));
  for (guint i = 0; i < sizeof (bits); i++)
    bits[i] = (i % 7 == 0) || (i > 20 && i < 37);
  b[0].bt = RTPCC_XR_BT_DISCARD_RLE;
  b[0].ssrc = 0x11;
  b[0].begin_seq = 65530;
  b[0].end_seq = (guint16) (65530 + 40);
  b[0].n_bits = 40;
  b[0].bits = bits;
  b[1] = b[0];
  b[1].bt = RTPCC_XR_BT_LOSS_RLE;
  b[1].begin_seq = 7;
  b[1].end_seq = 27;
  b[1].n_bits = 20;
  buf[0] = 0;
  n = rtpcc_xr_write (buf + 1, sizeof (buf) - 1, 0x1234, b, 2);
  g_ptr_array_add (seeds, g_bytes_new (buf, n + 1));
  n = rtpcc_xr_write (buf + 1, sizeof (buf) - 1, 0x1234, b + 1, 1);
  g_ptr_array_add (seeds, g_bytes_new (buf, n + 1));
  g_ptr_array_add (seeds, g_bytes_new (script, sizeof (script)));

  /* every block type in one packet */
  {
    RtpccXrBlock all[7];

    memset (all, 0, sizeof (all));
    all[0].bt = RTPCC_XR_BT_DISCARD_RLE;
    all[0].rle = b[0];
    all[1].bt = RTPCC_XR_BT_LOSS_RLE;
    all[1].rle = b[1];
    all[1].rle.thinning = 2;
    all[1].rle.n_bits = 5;
    all[2].bt = all[2].rle.bt = RTPCC_XR_BT_POST_REPAIR_RLE;
    all[2].rle.begin_seq = 300;
    all[2].rle.end_seq = 340;
    all[2].rle.n_bits = 40;
    all[2].rle.bits = bits;
    all[3].bt = RTPCC_XR_BT_DELAY;
    all[3].delay.interval = RTPCC_XR_I_INTERVAL;
    all[3].delay.mean_rtt = 0x2666;
    all[3].delay.end_system_delay = RTPCC_XR_ES_DELAY_UNAVAILABLE;
    all[4].bt = RTPCC_XR_BT_DEJITTER;
    all[4].dejitter.interval = RTPCC_XR_I_SAMPLED;
    all[4].dejitter.adaptive = TRUE;
    all[4].dejitter.nominal = 80;
    all[5].bt = RTPCC_XR_BT_DISCARD_COUNT;
    all[5].discard_count.interval = RTPCC_XR_I_CUMULATIVE;
    all[5].discard_count.discard_type = RTPCC_XR_DT_DUPLICATE;
    all[5].discard_count.packets = 37;
    all[6].bt = RTPCC_XR_BT_BYTES_DISCARDED;
    all[6].bytes_discarded.interval = RTPCC_XR_I_INTERVAL;
    all[6].bytes_discarded.early = TRUE;
    all[6].bytes_discarded.bytes = 45000;
    buf[0] = 0;
    n = rtpcc_xr_report_write (buf + 1, sizeof (buf) - 1, 0x1234, all, 7);
    FUZZ_CHECK (n > 0);
    g_ptr_array_add (seeds, g_bytes_new (buf, n + 1));
  }
}

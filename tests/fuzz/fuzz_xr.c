/* Fuzz target: the RTCP XR Loss/Discard RLE parser (RFC 3611 / RFC 7097),
 * with a write/re-parse round trip, and the receiver's Discard RLE output.
 *
 * The first byte picks the mode: even → the rest is one XR packet; odd →
 * the rest is a script of rtpcc_receiver_mark_discarded calls (5 bytes
 * each: ssrc pick, seq, count) after a few media packets, whose XR output
 * must parse and name exactly the discards marked.
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
  if (data[0] % 2 == 0)
    fuzz_parse (data + 1, size - 1);
  else
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
}

/* Fuzz target: RFC 4588 RTX packets and the retransmission history.
 *
 * The input is taken as an RTX packet (restore must give valid RTP of the
 * right size, or refuse) and as an original (build then restore must give
 * it back without its padding). Then its bytes drive a history: records of
 * 4 bytes (op, seq high, seq low, time step in ms) putting and requesting
 * packets, whose byte bound and answers are checked. And as one path's
 * packet of a multipath stream (subflow element ID 5, RTX PT 97): its
 * repair view is the same packet with the FSSN in place of the seq (or the
 * OSN), and an RTX's OSN is rewritten in those two bytes alone, or not at
 * all.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/rtx.h>
#include <rtpcc/feedback/rtpext.h>
#include <rtpcc/mprtp/ext.h>
#include <rtpcc/mprtp/repairseq.h>
#include <string.h>

static void
check_restore (const guint8 * data, size_t size)
{
  guint8 *out = g_malloc (size + 1);
  GError *err = NULL;
  gsize n = rtpcc_rtx_restore (data, size, 0x01020304, 96, out, size, &err);
  RtpccRtpLayout in, l;

  if (n == 0) {
    FUZZ_CHECK (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
  } else {
    FUZZ_CHECK (rtpcc_rtp_parse_layout (data, size, &in));
    FUZZ_CHECK (rtpcc_rtp_parse_layout (out, n, &l));
    FUZZ_CHECK (n == size - in.padding_len - RTPCC_RTX_OSN_SIZE);
    FUZZ_CHECK (l.ssrc == 0x01020304 && l.pt == 96 && l.padding_len == 0);
    FUZZ_CHECK (l.seq == ((data[in.header_len] << 8) |
            data[in.header_len + 1]));
    FUZZ_CHECK (l.timestamp == in.timestamp && l.marker == in.marker);
  }
  g_free (out);
}

static void
check_build (const guint8 * data, size_t size)
{
  guint8 *rtx = g_malloc (size + 2), *back = g_malloc (size + 2);
  gsize n = rtpcc_rtx_build (data, size, 0xCAFE, 97, 7, rtx, size + 2), b;
  RtpccRtpLayout in;

  if (!rtpcc_rtp_parse_layout (data, size, &in)) {
    FUZZ_CHECK (n == 0);
  } else {
    FUZZ_CHECK (n == size - in.padding_len + RTPCC_RTX_OSN_SIZE);
    b = rtpcc_rtx_restore (rtx, n, in.ssrc, in.pt, back, size + 2, NULL);
    FUZZ_CHECK (b == size - in.padding_len);
    FUZZ_CHECK (back[0] == (data[0] & ~0x20));
    FUZZ_CHECK (memcmp (back + 1, data + 1, b - 1) == 0);
  }
  g_free (rtx);
  g_free (back);
}

static void
drive_history (const guint8 * data, size_t size)
{
  RtpccRtxHistoryConfig cfg;
  RtpccRtxHistory *h;
  RtpccRtxHistoryStats st;
  RtpccTime now = 0;
  guint8 pkt[64] = { 0x80, 96 };

  rtpcc_rtx_history_config_init (&cfg);
  cfg.max_age = RTPCC_MSEC (300);
  cfg.max_bytes = 20 * (40 + RTPCC_RTX_ENTRY_OVERHEAD);
  h = rtpcc_rtx_history_new (&cfg);
  for (size_t i = 0; i + 4 <= size; i += 4) {
    guint8 op = data[i];
    guint16 seq = (guint16) ((data[i + 1] << 8) | data[i + 2]);
    gsize len = 12 + (op >> 2) % 50;
    const guint8 *got = NULL;
    gsize got_len = 0;

    now += RTPCC_MSEC (data[i + 3]);
    pkt[2] = (guint8) (seq >> 8);
    pkt[3] = (guint8) seq;
    pkt[11] = op & 1;           /* SSRC 0 or 1 */
    if ((op & 2) == 0) {
      FUZZ_CHECK (rtpcc_rtx_history_put (h, now, pkt, len));
    } else {
      RtpccRtxVerdict v = rtpcc_rtx_history_request (h, now, op & 1, seq,
          RTPCC_MSEC (op), (op & 0x80) ? 0 : 100000, &got, &got_len);

      if (v == RTPCC_RTX_SEND) {
        RtpccRtpLayout l;

        FUZZ_CHECK (rtpcc_rtp_parse_layout (got, got_len, &l));
        FUZZ_CHECK (l.seq == seq && l.ssrc == (guint32) (op & 1));
      }
    }
    rtpcc_rtx_history_get_stats (h, &st);
    FUZZ_CHECK (st.bytes <= cfg.max_bytes);
    FUZZ_CHECK (st.requests == st.retransmitted + st.unknown + st.too_old +
        st.too_soon + st.rate_limited);
  }
  rtpcc_rtx_history_free (h);
}

static void
check_mprtp_repair (const guint8 * data, size_t size)
{
  guint8 *view = g_malloc (size + 1), *copy = g_malloc (size + 1);
  RtpccMprtpSeqMap *map = g_new (RtpccMprtpSeqMap, 1);
  RtpccMprtpSubflow sf;
  RtpccRtpLayout l;
  guint16 media = 0;
  gboolean has_sf = rtpcc_mprtp_read_subflow (data, size, 5, &sf);
  gsize n = rtpcc_mprtp_repair_view (data, size, 5, 97, view, size, &media);

  if (n > 0) {
    FUZZ_CHECK (n == size && has_sf);
    FUZZ_CHECK (rtpcc_rtp_parse_layout (view, n, &l));
    if (l.pt == 97) {
      FUZZ_CHECK (((view[l.header_len] << 8) | view[l.header_len + 1]) ==
          sf.fssn);
      FUZZ_CHECK (media == ((data[l.header_len] << 8) |
              data[l.header_len + 1]));
    } else {
      FUZZ_CHECK (l.seq == sf.fssn && l.marker);
      FUZZ_CHECK (media == ((data[2] << 8) | data[3]));
    }
  }
  rtpcc_mprtp_seqmap_init (map);
  if (has_sf)
    rtpcc_mprtp_seqmap_put (map, sf.fssn, 0x4242);
  if (size > 0)
    memcpy (copy, data, size);
  if (rtpcc_mprtp_rtx_osn_to_media (copy, size, 5, map)) {
    FUZZ_CHECK (rtpcc_rtp_parse_layout (copy, size, &l));
    FUZZ_CHECK (copy[l.header_len] == 0x42 && copy[l.header_len + 1] == 0x42);
    FUZZ_CHECK (memcmp (copy, data, l.header_len) == 0);
    FUZZ_CHECK (memcmp (copy + l.header_len + 2, data + l.header_len + 2,
            size - l.header_len - 2) == 0);
  } else if (size > 0) {
    FUZZ_CHECK (memcmp (copy, data, size) == 0);
  }
  g_free (map);
  g_free (view);
  g_free (copy);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  check_restore (data, size);
  check_build (data, size);
  drive_history (data, size);
  check_mprtp_repair (data, size);
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  /* an original with a CSRC, an extension and padding, and its RTX */
  static const guint8 original[] = {
    0xB1, 0xE0, 0x12, 0x34, 0xAA, 0xBB, 0xCC, 0xDD, 0x01, 0x02, 0x03, 0x04,
    0x0A, 0x0B, 0x0C, 0x0D, 0xBE, 0xDE, 0x00, 0x01, 0x10, 0x12, 0x00, 0x00,
    'h', 'e', 'l', 'l', 'o', 0x00, 0x00, 0x03,
  };
  /* history: puts of seqs 1..3, then requests of 2, 2 and 9 */
  static const guint8 script[] = {
    0x00, 0, 1, 5, 0x10, 0, 2, 5, 0x20, 0, 3, 5,
    0x32, 0, 2, 1, 0x32, 0, 2, 1, 0x32, 0, 9, 1,
  };
  guint8 rtx[64];
  gsize n;

  g_ptr_array_add (seeds, g_bytes_new_static (original, sizeof (original)));
  n = rtpcc_rtx_build (original, sizeof (original), 0xCAFEBABE, 97, 7, rtx,
      sizeof (rtx));
  g_ptr_array_add (seeds, g_bytes_new (rtx, n));
  g_ptr_array_add (seeds, g_bytes_new_static (script, sizeof (script)));
  /* one path's packet (subflow 1, FSSN 9) and its RTX, OSN = the FSSN as
   * the path's history numbers it */
  {
    RtpccMprtpSubflow sf = { 1, 9 };
    guint8 sub[64], hist[64];
    gsize m = rtpcc_mprtp_add_subflow (original, sizeof (original), 5, &sf,
        sub, sizeof (sub));

    g_assert (m > 0);
    g_ptr_array_add (seeds, g_bytes_new (sub, m));
    memcpy (hist, sub, m);
    hist[2] = 0;
    hist[3] = 9;
    n = rtpcc_rtx_build (hist, m, 0xCAFEBABE, 97, 8, rtx, sizeof (rtx));
    g_assert (n > 0);
    g_ptr_array_add (seeds, g_bytes_new (rtx, n));
  }
}

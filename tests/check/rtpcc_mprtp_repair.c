/* Unit tests for NACK/RTX repair on one path of a multipath stream
 * (mprtp/repairseq.h): the path's receiver runs the repair planner on its
 * FSSNs, so the media seqs the other path carried are no gaps, nor is a
 * frame whose marked last packet went the other way; a real
 * FSSN gap is NACKed by FSSN, the path's sender (history numbered by FSSN)
 * retransmits it with the media seq as OSN, and the receiver restores the
 * very packet that was sent.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#define MEDIA_SSRC 0x11223344u
#define RTX_SSRC 0x52545831u
#define RECV_SSRC 0x0BADCAFEu
#define RTX_PT 97
#define EXT_ID 5
#define PAYLOAD 400
#define N_MEDIA 60

/* Media seq @seq as it goes on the wire on path @path (its FSSN @fssn):
 * frames of 3 packets (marker on the last), one every 33 ms. */
static gsize
wire (guint8 * out, gsize max, guint16 seq, guint16 path, guint16 fssn)
{
  guint8 plain[12 + PAYLOAD];
  RtpccMprtpSubflow sf = { path, fssn };
  gsize n;

  memset (plain, 0, sizeof plain);
  plain[0] = 0x80;
  plain[1] = 96 | (seq % 3 == 2 ? 0x80 : 0);
  GST_WRITE_UINT16_BE (plain + 2, seq);
  GST_WRITE_UINT32_BE (plain + 4, 3000 * (seq / 3));
  GST_WRITE_UINT32_BE (plain + 8, MEDIA_SSRC);
  for (guint i = 0; i < PAYLOAD; i++)
    plain[12 + i] = (guint8) (seq * 7 + i);
  plain[12] = 0x41;             /* an H.264 non-IDR slice */
  n = rtpcc_mprtp_add_subflow (plain, sizeof plain, EXT_ID, &sf, out, max);
  fail_unless (n > 0);
  return n;
}

static RtpccTime
sent_at (guint16 seq)
{
  return RTPCC_MSEC (33) * (seq / 3);
}

/* The path media seq @seq takes: path 1 carries seqs 1, 2, 5, 6, 9, ...
 * (4k + 1, 4k + 2), so path 0 sees media seqs 0, 3, 4, 7, 8, ... (gaps in
 * the media seq) with FSSNs 0, 1, 2, ..., and a frame's last packet (the
 * one with the marker) takes either path. */
static guint16
path_of (guint16 seq)
{
  return seq % 4 == 1 || seq % 4 == 2;
}

static RtpccRtxReceiver *
new_receiver (void)
{
  RtpccRtxReceiverConfig rc;
  RtpccRtxReceiver *rx;

  rtpcc_rtx_receiver_config_init (&rc);
  rc.nack = TRUE;
  rc.rtx_pt = RTX_PT;
  /* as rtpccsrc with H.264 caps: the tail probe on */
  rc.codec = RTPCC_SENDBUF_CODEC_H264;
  rx = rtpcc_rtx_receiver_new (&rc, NULL);
  fail_unless (rx != NULL);
  return rx;
}

static void
collect (const guint8 * pkt, gsize len, gpointer data)
{
  g_ptr_array_add (data, g_bytes_new (pkt, len));
}

typedef struct
{
  RtpccRtxReceiver *rx;
  RtpccRtxSender *tx;
  RtpccMprtpSeqMap map;
  gboolean view;                /* the receiver sees FSSN-numbered views */
  GPtrArray *fb;                /* GBytes: the NACKs written */
  GPtrArray *rtx;               /* GBytes: the RTX the sender handed out */
  GPtrArray *restored;          /* GBytes: restored from them, media seq
                                 * back in the header */
} Path0;

static void
path0_init (Path0 * p, gboolean view)
{
  RtpccRtxSenderConfig sc;

  p->rx = new_receiver ();
  rtpcc_rtx_sender_config_init (&sc);
  sc.rtx_pt = RTX_PT;
  sc.rtx_ssrc = RTX_SSRC;
  sc.seed = 1;
  p->tx = rtpcc_rtx_sender_new (&sc);
  rtpcc_mprtp_seqmap_init (&p->map);
  p->view = view;
  p->restored = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  p->fb = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  p->rtx = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
}

static void
path0_clear (Path0 * p)
{
  rtpcc_rtx_receiver_free (p->rx);
  rtpcc_rtx_sender_free (p->tx);
  g_ptr_array_unref (p->fb);
  g_ptr_array_unref (p->rtx);
  g_ptr_array_unref (p->restored);
}

/* The path's receiver is given @pkt at @now, as rtpccsrc gives it: the
 * FSSN-numbered view with p->view, the packet itself without. */
static RtpccRtxReceiverVerdict
receive (Path0 * p, RtpccTime now, const guint8 * pkt, gsize len,
    guint8 * out, gsize max, gsize * out_len, guint16 * media_seq)
{
  guint8 v[2048];
  gsize vn = 0;

  if (p->view)
    vn = rtpcc_mprtp_repair_view (pkt, len, EXT_ID, RTX_PT, v, sizeof v,
        media_seq);
  if (p->view)
    fail_unless (vn == len);
  return rtpcc_rtx_receiver_on_rtp (p->rx, now, vn ? v : pkt, vn ? vn : len,
      vn ? vn : len, out, max, out_len);
}

/* Polls the path's receiver at @now; a NACK goes to its sender at @now +
 * 10 ms, whose RTX packets are collected and, as rtpccsink sends them
 * (OSN turned into the media seq), given back to the receiver 10 ms later
 * (with p->view). */
static void
poll_path (Path0 * p, RtpccTime now)
{
  guint8 buf[1500];
  gsize n = 0;
  guint from = p->rtx->len;

  if (rtpcc_rtx_receiver_next_timeout (p->rx) <= now)
    n = rtpcc_rtx_receiver_build (p->rx, now, RECV_SSRC, buf, sizeof buf);
  if (n == 0)
    return;
  g_ptr_array_add (p->fb, g_bytes_new (buf, n));
  rtpcc_rtx_sender_on_rtcp (p->tx, now + RTPCC_MSEC (10), buf, n,
      RTPCC_MSEC (20), 0, collect, p->rtx, NULL);
  for (guint i = from; p->view && i < p->rtx->len; i++) {
    guint8 rtx[2048], out[2048];
    gsize len, out_len;
    guint16 media_seq = 0;
    const guint8 *r = g_bytes_get_data (g_ptr_array_index (p->rtx, i), &len);

    fail_unless (len <= sizeof rtx);
    memcpy (rtx, r, len);
    fail_unless (rtpcc_mprtp_rtx_osn_to_media (rtx, len, EXT_ID, &p->map));
    if (receive (p, now + RTPCC_MSEC (20), rtx, len, out, sizeof out,
            &out_len, &media_seq) == RTPCC_RTX_RECEIVER_RESTORED) {
      /* restored in the path's space: the FSSN, then the media seq back */
      RtpccMprtpSubflow sf;
      fail_unless (rtpcc_mprtp_read_subflow (r, len, EXT_ID, &sf));
      fail_unless_equals_int (GST_READ_UINT16_BE (out + 2), sf.fssn);
      GST_WRITE_UINT16_BE (out + 2, media_seq);
      g_ptr_array_add (p->restored, g_bytes_new (out, out_len));
    }
  }
}

/* Path 0's share of media 0..N_MEDIA-1 sent as rtpccsink sends it (its
 * history fed the FSSN-numbered packet, the map the media seq of each
 * FSSN), everything but FSSN @lost arriving 10 ms later; the receiver
 * polled every ms. */
static void
run_path0 (Path0 * p, gint lost)
{
  guint16 fssn = 0;

  for (guint16 seq = 0; seq < N_MEDIA; seq++) {
    RtpccTime t = sent_at (seq);
    guint8 pkt[2048], hist[2048], out[2048];
    gsize len, hl, out_len;
    guint16 media_seq;

    if (path_of (seq) == 0) {
      len = wire (pkt, sizeof pkt, seq, 0, fssn);
      hl = rtpcc_mprtp_subflow_header (pkt, len, EXT_ID, hist, sizeof hist);
      fail_unless (hl > 0);
      memcpy (hist + hl, pkt + hl, len - hl);
      rtpcc_rtx_sender_on_sent (p->tx, t, hist, len, len);
      rtpcc_mprtp_seqmap_put (&p->map, fssn, seq);
      if (fssn != lost)
        fail_unless_equals_int (receive (p, t + RTPCC_MSEC (10), pkt, len,
                out, sizeof out, &out_len, &media_seq),
            RTPCC_RTX_RECEIVER_PASS);
      fssn++;
    }
    if (seq % 3 == 2)
      for (RtpccTime u = t + RTPCC_MSEC (10); u < sent_at (seq + 1) +
          RTPCC_MSEC (10); u += RTPCC_MSEC (1))
        poll_path (p, u);
  }
  for (RtpccTime u = sent_at (N_MEDIA) + RTPCC_MSEC (10);
      u < sent_at (N_MEDIA) + RTPCC_MSEC (500); u += RTPCC_MSEC (1))
    poll_path (p, u);
}

/* Path 0 carries half the packets, in FSSN order without a gap, a frame's
 * marked last packet sometimes and sometimes not: no NACK. The same arrivals numbered by the media seq (what a path's
 * receiver saw before) are NACKed — the other path's share. */
GST_START_TEST (test_interleaved_no_nack)
{
  Path0 p, media;
  RtpccRtxReceiverStats rs;
  RtpccRtxSenderStats ss;

  path0_init (&p, TRUE);
  run_path0 (&p, -1);
  rtpcc_rtx_receiver_get_stats (p.rx, &rs);
  fail_unless_equals_uint64 (rs.nacks_sent, 0);
  fail_unless_equals_int (p.fb->len, 0);
  path0_clear (&p);

  path0_init (&media, FALSE);
  run_path0 (&media, -1);
  rtpcc_rtx_receiver_get_stats (media.rx, &rs);
  fail_unless (rs.nacks_sent > 0);
  /* ... for media its sender never numbered so: unknown, or the wrong
   * packet (a media seq that is some other FSSN) */
  rtpcc_rtx_sender_get_stats (media.tx, &ss);
  fail_unless (ss.nacked_packets > 0);
  path0_clear (&media);
}

GST_END_TEST;

/* FSSN 13 of path 0 (media seq 27) is lost: the NACK names FSSN 13 alone;
 * the sender retransmits it with OSN 27; the receiver restores it and,
 * with the media seq put back, has the very packet that was sent. */
GST_START_TEST (test_fssn_gap_nacked)
{
  Path0 p;
  const guint16 lost_fssn = 13, lost_seq = 27;
  guint8 want[2048], rtx[2048];
  gsize want_len, len, out_len;
  RtpccRtxReceiverStats rs;

  path0_init (&p, TRUE);
  /* path 0's 14th packet is media seq 27 */
  fail_unless_equals_int (path_of (lost_seq), 0);
  run_path0 (&p, lost_fssn);

  fail_unless (p.fb->len >= 1);
  {
    gsize n;
    const guint8 *fb = g_bytes_get_data (g_ptr_array_index (p.fb, 0), &n);
    RtpccNack *nack = rtpcc_nack_parse (fb, n, NULL);
    guint16 seqs[17];

    fail_unless (nack != NULL);
    fail_unless_equals_int (nack->media_ssrc, MEDIA_SSRC);
    fail_unless_equals_int (nack->n_fci, 1);
    fail_unless_equals_int (rtpcc_nack_fci_seqs (nack->fci[0], seqs), 1);
    fail_unless_equals_int (seqs[0], lost_fssn);
    rtpcc_nack_free (nack);
  }
  fail_unless (p.rtx->len >= 1);
  {
    const guint8 *r = g_bytes_get_data (g_ptr_array_index (p.rtx, 0), &len);
    fail_unless (len <= sizeof rtx);
    memcpy (rtx, r, len);
  }
  /* the sender's history is numbered by FSSN: the OSN is the FSSN until
   * the sink turns it into the media seq */
  want_len = wire (want, sizeof want, lost_seq, 0, lost_fssn);
  fail_unless_equals_int ((gint) len, (gint) want_len + 2);
  fail_unless_equals_int (GST_READ_UINT16_BE (rtx + want_len - PAYLOAD),
      lost_fssn);
  fail_unless (rtpcc_mprtp_rtx_osn_to_media (rtx, len, EXT_ID, &p.map));
  fail_unless_equals_int (GST_READ_UINT16_BE (rtx + want_len - PAYLOAD),
      lost_seq);
  /* a second rewrite finds the OSN no longer the element's FSSN */
  fail_if (rtpcc_mprtp_rtx_osn_to_media (rtx, len, EXT_ID, &p.map));
  fail_unless_equals_int (GST_READ_UINT16_BE (rtx + want_len - PAYLOAD),
      lost_seq);
  /* restored once, byte for byte the packet that was sent */
  fail_unless_equals_int (p.restored->len, 1);
  {
    const guint8 *r = g_bytes_get_data (g_ptr_array_index (p.restored, 0),
        &out_len);
    fail_unless_equals_int ((gint) out_len, (gint) want_len);
    fail_unless (memcmp (r, want, want_len) == 0);
  }
  rtpcc_rtx_receiver_get_stats (p.rx, &rs);
  fail_unless_equals_uint64 (rs.nacked_packets, 1);
  fail_unless_equals_uint64 (rs.rtx_recovered, 1);
  path0_clear (&p);
}

GST_END_TEST;

GST_START_TEST (test_seqmap)
{
  RtpccMprtpSeqMap map;
  guint16 seq = 0;

  rtpcc_mprtp_seqmap_init (&map);
  fail_if (rtpcc_mprtp_seqmap_lookup (&map, 0, &seq));
  rtpcc_mprtp_seqmap_put (&map, 65535, 7);
  fail_unless (rtpcc_mprtp_seqmap_lookup (&map, 65535, &seq));
  fail_unless_equals_int (seq, 7);
  /* a later FSSN in the same slot replaces it */
  rtpcc_mprtp_seqmap_put (&map, (guint16) (65535 + RTPCC_MPRTP_SEQMAP_SIZE),
      9);
  fail_if (rtpcc_mprtp_seqmap_lookup (&map, 65535, &seq));
  fail_unless (rtpcc_mprtp_seqmap_lookup (&map,
          (guint16) (65535 + RTPCC_MPRTP_SEQMAP_SIZE), &seq));
  fail_unless_equals_int (seq, 9);
}

GST_END_TEST;

/* The media numbers a lost FSSN can be: strictly between its nearest
 * arrived neighbours, across wrap; unknown without both neighbours. */
GST_START_TEST (test_seqmap_gap)
{
  RtpccMprtpSeqMap map;
  guint16 lo = 0, hi = 0;

  rtpcc_mprtp_seqmap_init (&map);
  /* FSSNs 100, 101 arrived as media 65530, 65533; 102 lost; 103 as 2 */
  rtpcc_mprtp_seqmap_put (&map, 100, 65530);
  rtpcc_mprtp_seqmap_put (&map, 101, 65533);
  rtpcc_mprtp_seqmap_put (&map, 103, 2);
  fail_unless (rtpcc_mprtp_seqmap_gap (&map, 102, &lo, &hi));
  fail_unless_equals_int (lo, 65534);
  fail_unless_equals_int (hi, 1);
  /* no neighbour above (yet) */
  fail_if (rtpcc_mprtp_seqmap_gap (&map, 104, &lo, &hi));
  /* neighbours out of order (bogus input): none */
  rtpcc_mprtp_seqmap_put (&map, 105, 1);
  fail_if (rtpcc_mprtp_seqmap_gap (&map, 104, &lo, &hi));
  /* adjacent media numbers leave no room */
  rtpcc_mprtp_seqmap_put (&map, 201, 50);
  rtpcc_mprtp_seqmap_put (&map, 203, 51);
  fail_if (rtpcc_mprtp_seqmap_gap (&map, 202, &lo, &hi));
  /* a burst of 40 lost on this path, each of them found between the
   * neighbours around the whole burst (the other path carried every
   * second media number meanwhile) */
  rtpcc_mprtp_seqmap_put (&map, 400, 1000);
  rtpcc_mprtp_seqmap_put (&map, 441, 1082);
  for (guint16 f = 401; f <= 440; f++) {
    fail_unless (rtpcc_mprtp_seqmap_gap (&map, f, &lo, &hi));
    fail_unless_equals_int (lo, 1001);
    fail_unless_equals_int (hi, 1081);
  }
  /* a neighbour further than the search is not found */
  rtpcc_mprtp_seqmap_put (&map, 300, 100);
  rtpcc_mprtp_seqmap_put (&map, 302 + RTPCC_MPRTP_GAP_SEARCH, 200);
  fail_if (rtpcc_mprtp_seqmap_gap (&map, 301, &lo, &hi));
}

GST_END_TEST;

/* Packets without the element, truncated ones and RTX without an OSN
 * give no view and no rewrite; nothing is touched. */
GST_START_TEST (test_bad_input)
{
  RtpccMprtpSeqMap map;
  guint8 pkt[2048], copy[2048], out[2048];
  guint16 ms = 0xabcd;
  gsize len;

  rtpcc_mprtp_seqmap_init (&map);
  rtpcc_mprtp_seqmap_put (&map, 4, 10);
  len = wire (pkt, sizeof pkt, 10, 0, 4);
  /* no element under another ID */
  fail_unless_equals_int (rtpcc_mprtp_repair_view (pkt, len, EXT_ID + 1,
          RTX_PT, out, sizeof out, &ms), 0);
  fail_unless_equals_int (ms, 0xabcd);
  /* too little room, truncated header, not RTP */
  fail_unless_equals_int (rtpcc_mprtp_repair_view (pkt, len, EXT_ID, RTX_PT,
          out, len - 1, &ms), 0);
  fail_unless_equals_int (rtpcc_mprtp_repair_view (pkt, 14, EXT_ID, RTX_PT,
          out, sizeof out, &ms), 0);
  fail_unless_equals_int (rtpcc_mprtp_repair_view (NULL, 0, EXT_ID, RTX_PT,
          out, sizeof out, &ms), 0);
  /* a media packet: FSSN as seq, media seq out */
  fail_unless_equals_int (rtpcc_mprtp_repair_view (pkt, len, EXT_ID, RTX_PT,
          out, sizeof out, &ms), len);
  fail_unless_equals_int (ms, 10);
  fail_unless_equals_int (GST_READ_UINT16_BE (out + 2), 4);
  /* seq 10 is not a frame's last packet: marked in the view all the same */
  fail_if (pkt[1] & 0x80);
  fail_unless (out[1] & 0x80);
  fail_unless (memcmp (out + 4, pkt + 4, len - 4) == 0);
  /* the payload type is not RTX: a media packet is never rewritten as one */
  memcpy (copy, pkt, len);
  fail_if (rtpcc_mprtp_rtx_osn_to_media (copy, len, EXT_ID, &map));
  /* an "RTX" packet whose payload is one byte: no OSN */
  {
    gsize hl = len - PAYLOAD;
    copy[1] = (copy[1] & 0x80) | RTX_PT;
    fail_unless_equals_int (rtpcc_mprtp_repair_view (copy, hl + 1, EXT_ID,
            RTX_PT, out, sizeof out, &ms), 0);
    fail_if (rtpcc_mprtp_rtx_osn_to_media (copy, hl + 1, EXT_ID, &map));
    /* an OSN whose FSSN the map lost */
    GST_WRITE_UINT16_BE (copy + hl, 4);
    rtpcc_mprtp_seqmap_put (&map, 4 + RTPCC_MPRTP_SEQMAP_SIZE, 11);
    memcpy (out, copy, len);
    fail_if (rtpcc_mprtp_rtx_osn_to_media (copy, len, EXT_ID, &map));
    fail_unless (memcmp (out, copy, len) == 0);
  }
  fail_if (rtpcc_mprtp_rtx_osn_to_media (NULL, 0, EXT_ID, &map));
}

GST_END_TEST;

static Suite *
mprtp_repair_suite (void)
{
  Suite *s = suite_create ("rtpcc_mprtp_repair");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_interleaved_no_nack);
  tcase_add_test (tc, test_fssn_gap_nacked);
  tcase_add_test (tc, test_seqmap);
  tcase_add_test (tc, test_seqmap_gap);
  tcase_add_test (tc, test_bad_input);
  return s;
}

GST_CHECK_MAIN (mprtp_repair);

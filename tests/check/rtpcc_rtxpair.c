/* Unit tests for the two ends of NACK/RTX repair as the elements run them
 * (rtxsender.h, rtxreceiver.h): a loss NACKed, answered and restored byte
 * for byte; duplicate and late retransmissions dropped; RTX off; the
 * retransmission budget; PLI / FIR through the key-frame gate; tshark's
 * dissection of the feedback the receiver writes and the RTX the sender
 * writes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#include "tshark-util.h"

#define MEDIA_SSRC 0x11223344u
#define RTX_SSRC 0x52545831u
#define RECV_SSRC 0x0BADCAFEu
#define RTX_PT 97
#define PAYLOAD 600

/* Frame f, packet k of 3 (marker on the last), sent at f × 33 ms. */
static gsize
media (guint8 * out, guint16 seq)
{
  guint frame = seq / 3;

  memset (out, 0, 12 + PAYLOAD);
  out[0] = 0x80;
  out[1] = 96 | (seq % 3 == 2 ? 0x80 : 0);
  GST_WRITE_UINT16_BE (out + 2, seq);
  GST_WRITE_UINT32_BE (out + 4, 3000 * frame);
  GST_WRITE_UINT32_BE (out + 8, MEDIA_SSRC);
  for (guint i = 0; i < PAYLOAD; i++)
    out[12 + i] = (guint8) (seq * 7 + i);
  return 12 + PAYLOAD;
}

static RtpccTime
sent_at (guint16 seq)
{
  return RTPCC_MSEC (33) * (seq / 3);
}

typedef struct
{
  RtpccRtxReceiver *rx;
  RtpccRtxSender *tx;
  GPtrArray *rtx;               /* GBytes the sender handed out */
  GPtrArray *fb;                /* GBytes the receiver wrote */
  gboolean deliver;             /* RTX back to the receiver 10 ms later */
  GPtrArray *restored;          /* GBytes: what it restored from them */
} Pair;

static void
collect (const guint8 * pkt, gsize len, gpointer data)
{
  g_ptr_array_add (data, g_bytes_new (pkt, len));
}

static void
pair_init (Pair * p, guint8 rtx_pt)
{
  RtpccRtxReceiverConfig rc;
  RtpccRtxSenderConfig sc;

  rtpcc_rtx_receiver_config_init (&rc);
  rc.nack = TRUE;
  rc.keyframe = RTPCC_KEYFRAME_REQUEST_PLI;
  rc.rtx_pt = RTX_PT;
  p->rx = rtpcc_rtx_receiver_new (&rc, NULL);
  fail_unless (p->rx != NULL);
  rtpcc_rtx_sender_config_init (&sc);
  sc.rtx_pt = rtx_pt;
  sc.rtx_ssrc = RTX_SSRC;
  sc.seed = 1;
  p->tx = rtpcc_rtx_sender_new (&sc);
  p->rtx = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  p->fb = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  p->restored = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  p->deliver = FALSE;
}

static void
pair_clear (Pair * p)
{
  rtpcc_rtx_receiver_free (p->rx);
  rtpcc_rtx_sender_free (p->tx);
  g_ptr_array_unref (p->rtx);
  g_ptr_array_unref (p->fb);
  g_ptr_array_unref (p->restored);
}

/* Polls the receiver at @now; feedback goes to the sender at @now + 10 ms
 * (one way), whose RTX packets are collected. */
static void
pair_poll (Pair * p, RtpccTime now, guint64 max_bitrate)
{
  guint8 buf[1500];
  gsize n = 0;

  if (rtpcc_rtx_receiver_next_timeout (p->rx) <= now)
    n = rtpcc_rtx_receiver_build (p->rx, now, RECV_SSRC, buf, sizeof buf);
  if (n == 0)
    return;
  g_ptr_array_add (p->fb, g_bytes_new (buf, n));
  {
    guint first = p->rtx->len;
    rtpcc_rtx_sender_on_rtcp (p->tx, now + RTPCC_MSEC (10), buf, n,
        RTPCC_MSEC (20), max_bitrate, collect, p->rtx, NULL);
    for (guint i = first; p->deliver && i < p->rtx->len; i++) {
      gsize len, out_len;
      const guint8 *d = g_bytes_get_data (g_ptr_array_index (p->rtx, i),
          &len);
      guint8 out[2048];
      if (rtpcc_rtx_receiver_on_rtp (p->rx, now + RTPCC_MSEC (20), d, len,
              len, out, sizeof out, &out_len) == RTPCC_RTX_RECEIVER_RESTORED)
        g_ptr_array_add (p->restored, g_bytes_new (out, out_len));
    }
  }
}

/* Media 0..@n-1 sent, all but @lost arriving 10 ms later; the receiver
 * polled every ms. */
static void
run (Pair * p, guint n, gint lost, guint64 max_bitrate)
{
  guint8 pkt[2048], out[2048];
  gsize len, out_len;

  for (guint16 seq = 0; seq < n; seq++) {
    RtpccTime t = sent_at (seq);
    len = media (pkt, seq);
    rtpcc_rtx_sender_on_sent (p->tx, t, pkt, len, len);
    if (seq != lost)
      fail_unless_equals_int (rtpcc_rtx_receiver_on_rtp (p->rx,
              t + RTPCC_MSEC (10), pkt, len, len, out, sizeof out, &out_len),
          RTPCC_RTX_RECEIVER_PASS);
    if (seq % 3 == 2)
      for (RtpccTime u = t + RTPCC_MSEC (10); u < sent_at (seq + 1) +
          RTPCC_MSEC (10); u += RTPCC_MSEC (1))
        pair_poll (p, u, max_bitrate);
  }
}

GST_START_TEST (test_nack_rtx_restore)
{
  Pair p;
  guint8 want[2048], out[2048];
  gsize want_len, out_len, len;
  const guint8 *rtx;
  RtpccRtxReceiverStats rs;
  RtpccRtxSenderStats ss;

  pair_init (&p, RTX_PT);
  p.deliver = TRUE;
  run (&p, 21, 10, 0);
  /* one NACK, one RTX for seq 10, the NACK alone in its packet */
  fail_unless_equals_int (p.fb->len, 1);
  fail_unless_equals_int (p.rtx->len, 1);
  rtx = g_bytes_get_data (g_ptr_array_index (p.rtx, 0), &len);
  want_len = media (want, 10);
  fail_unless_equals_int ((gint) len, (gint) want_len + 2);
  fail_unless_equals_int (GST_READ_UINT32_BE (rtx + 8), RTX_SSRC);
  fail_unless_equals_int (rtx[1] & 0x7f, RTX_PT);
  fail_unless_equals_int (GST_READ_UINT16_BE (rtx + 12), 10);

  /* restored byte for byte, once */
  fail_unless_equals_int (p.restored->len, 1);
  {
    const guint8 *r = g_bytes_get_data (g_ptr_array_index (p.restored, 0),
        &out_len);
    fail_unless_equals_int ((gint) out_len, (gint) want_len);
    fail_unless (memcmp (r, want, want_len) == 0);
  }
  /* again, before its deadline (frame 3: 100 + 10 + 200 ms): a duplicate;
   * and once more after it: late, whatever came before */
  fail_unless_equals_int (rtpcc_rtx_receiver_on_rtp (p.rx, RTPCC_MSEC (300),
          rtx, len, len, out, sizeof out, &out_len), RTPCC_RTX_RECEIVER_DROP);
  fail_unless_equals_int (rtpcc_rtx_receiver_on_rtp (p.rx, RTPCC_MSEC (320),
          rtx, len, len, out, sizeof out, &out_len), RTPCC_RTX_RECEIVER_DROP);
  /* an RTX packet with no OSN */
  fail_unless_equals_int (rtpcc_rtx_receiver_on_rtp (p.rx, RTPCC_MSEC (330),
          rtx, 13, 13, out, sizeof out, &out_len),
      RTPCC_RTX_RECEIVER_DROP);

  rtpcc_rtx_receiver_get_stats (p.rx, &rs);
  fail_unless_equals_uint64 (rs.nacks_sent, 1);
  fail_unless_equals_uint64 (rs.nacked_packets, 1);
  fail_unless_equals_uint64 (rs.rtx_received, 4);
  fail_unless_equals_uint64 (rs.rtx_recovered, 1);
  fail_unless_equals_uint64 (rs.rtx_duplicate, 1);
  fail_unless_equals_uint64 (rs.rtx_invalid, 1);
  fail_unless_equals_uint64 (rs.rtx_late, 1);
  fail_unless_equals_uint64 (rs.plis_sent, 0);
  fail_unless_equals_uint64 (rs.repair.recovered_rtx, 1);
  rtpcc_rtx_sender_get_stats (p.tx, &ss);
  fail_unless_equals_uint64 (ss.nacks_received, 1);
  fail_unless_equals_uint64 (ss.nacked_packets, 1);
  fail_unless_equals_uint64 (ss.rtx_sent, 1);
  fail_unless_equals_uint64 (ss.rtx_bytes, want_len + 2);
  fail_unless_equals_uint64 (ss.rtx_dropped, 0);
  pair_clear (&p);
}

GST_END_TEST;

/* Each RTX packet is its original + the OSN, whatever the sizes before
 * it: the sender's build buffer grows to the largest packet answered. */
GST_START_TEST (test_rtx_sizes)
{
  const gsize sizes[] = { 40, 1400, 20, 9000, 300 };
  RtpccRtxSenderConfig sc;
  RtpccRtxSender *tx;
  GPtrArray *rtx = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  guint8 pkt[9000], nack[64];
  guint16 seqs[G_N_ELEMENTS (sizes)];
  gsize n;

  rtpcc_rtx_sender_config_init (&sc);
  sc.rtx_pt = RTX_PT;
  sc.rtx_ssrc = RTX_SSRC;
  sc.seed = 1;
  tx = rtpcc_rtx_sender_new (&sc);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    seqs[i] = (guint16) i;
    media (pkt, (guint16) i);
    for (gsize b = 12; b < sizes[i]; b++)
      pkt[b] = (guint8) (i * 31 + b);
    rtpcc_rtx_sender_on_sent (tx, 0, pkt, sizes[i], sizes[i]);
  }
  /* one NACK at a time, in this order, so each build sees the sizes
   * before it */
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    n = rtpcc_nack_write_seqs (nack, sizeof nack, RECV_SSRC, MEDIA_SSRC,
        &seqs[i], 1);
    fail_unless (n > 0);
    rtpcc_rtx_sender_on_rtcp (tx, RTPCC_MSEC (10), nack, n, RTPCC_MSEC (20),
        0, collect, rtx, NULL);
    fail_unless_equals_int (rtx->len, i + 1);
  }
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    gsize len;
    const guint8 *r = g_bytes_get_data (g_ptr_array_index (rtx, i), &len);

    media (pkt, (guint16) i);
    for (gsize b = 12; b < sizes[i]; b++)
      pkt[b] = (guint8) (i * 31 + b);
    fail_unless_equals_int ((gint) len, (gint) sizes[i] + 2);
    fail_unless_equals_int (GST_READ_UINT16_BE (r + 12), i);
    fail_unless (memcmp (r + 14, pkt + 12, sizes[i] - 12) == 0,
        "payload of RTX %u", i);
  }
  rtpcc_rtx_sender_free (tx);
  g_ptr_array_unref (rtx);
}

GST_END_TEST;

/* An RTX packet arriving after its original's playout deadline is late:
 * dropped, counted, and the loss was given up with a PLI. */
GST_START_TEST (test_late_rtx)
{
  Pair p;
  guint8 out[2048];
  gsize out_len, len;
  const guint8 *rtx;
  RtpccRtxReceiverStats rs;
  gboolean pli = FALSE;

  pair_init (&p, RTX_PT);
  run (&p, 30, 10, 0);
  fail_unless_equals_int (p.rtx->len, 1);
  /* the deadline of frame 3 is 100 ms + 10 ms transit + 200 ms playout */
  for (RtpccTime t = sent_at (29) + RTPCC_MSEC (20); t < RTPCC_MSEC (400);
      t += RTPCC_MSEC (1))
    pair_poll (&p, t, 0);
  rtx = g_bytes_get_data (g_ptr_array_index (p.rtx, 0), &len);
  fail_unless_equals_int (rtpcc_rtx_receiver_on_rtp (p.rx, RTPCC_MSEC (400),
          rtx, len, len, out, sizeof out, &out_len), RTPCC_RTX_RECEIVER_DROP);
  rtpcc_rtx_receiver_get_stats (p.rx, &rs);
  fail_unless_equals_uint64 (rs.rtx_late, 1);
  fail_unless_equals_uint64 (rs.rtx_duplicate, 0);
  fail_unless_equals_uint64 (rs.repair.gave_up, 1);
  fail_unless_equals_uint64 (rs.plis_sent, 1);
  /* NACKed once: a retry one RTT (100 ms before one is measured) + 10 ms
   * later could not have arrived before the deadline, so none was sent */
  fail_unless_equals_uint64 (rs.nacked_packets, 1);
  fail_unless_equals_uint64 (rs.repair.retries, 0);
  for (guint i = 0; i < p.fb->len; i++) {
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (p.fb, i), &len);
    RtpccRtcpIter it;
    RtpccRtcpPacket pkt;
    fail_unless (rtpcc_rtcp_iter_init (&it, d, len));
    while (rtpcc_rtcp_iter_next (&it, &pkt))
      if (pkt.pt == RTPCC_RTCP_PSFB) {
        guint32 media_ssrc, sender;
        fail_unless (rtpcc_pli_parse (pkt.data, pkt.len, &sender,
                &media_ssrc, NULL));
        fail_unless_equals_int (media_ssrc, MEDIA_SSRC);
        fail_unless_equals_int (sender, RECV_SSRC);
        pli = TRUE;
      }
  }
  fail_unless (pli);
  pair_clear (&p);
}

GST_END_TEST;

/* RTX off: NACKs are counted, nothing is sent. A budget of 1 kbit/s
 * refuses a 600-byte retransmission. */
GST_START_TEST (test_rtx_off_and_budget)
{
  Pair p;
  RtpccRtxSenderStats ss;

  pair_init (&p, 0);
  run (&p, 30, 10, 0);
  fail_unless_equals_int (p.rtx->len, 0);
  rtpcc_rtx_sender_get_stats (p.tx, &ss);
  fail_unless (ss.nacks_received >= 1);
  fail_unless_equals_uint64 (ss.rtx_off, ss.nacked_packets);
  fail_unless_equals_uint64 (ss.rtx_dropped, ss.nacked_packets);
  pair_clear (&p);

  pair_init (&p, RTX_PT);
  run (&p, 30, 10, 1000);
  fail_unless_equals_int (p.rtx->len, 0);
  rtpcc_rtx_sender_get_stats (p.tx, &ss);
  fail_unless (ss.rtx_over_budget >= 1);
  fail_unless_equals_uint64 (ss.rtx_sent, 0);
  pair_clear (&p);
}

GST_END_TEST;

/* PLI and FIR about our SSRC pass the gate once per 300 ms; a FIR
 * repeating its command number is not a new request; an SSRC we do not
 * send is ignored; a malformed PLI is counted. */
GST_START_TEST (test_keyframe_requests)
{
  RtpccRtxSenderConfig sc;
  RtpccRtxSender *tx;
  RtpccRtxSenderStats ss;
  guint8 pkt[2048], fb[64];
  gsize n;
  gboolean all = TRUE;
  RtpccFirEntry e = { MEDIA_SSRC, 5 };

  rtpcc_rtx_sender_config_init (&sc);
  tx = rtpcc_rtx_sender_new (&sc);
  n = media (pkt, 0);
  rtpcc_rtx_sender_on_sent (tx, 0, pkt, n, n);
  n = rtpcc_pli_write (fb, sizeof fb, RECV_SSRC, MEDIA_SSRC);
  fail_unless (rtpcc_rtx_sender_on_rtcp (tx, RTPCC_MSEC (10), fb, n,
          RTPCC_TIME_NONE, 0, collect, NULL, &all));
  fail_unless (!all);
  fail_if (rtpcc_rtx_sender_on_rtcp (tx, RTPCC_MSEC (20), fb, n,
          RTPCC_TIME_NONE, 0, collect, NULL, NULL));
  n = rtpcc_pli_write (fb, sizeof fb, RECV_SSRC, MEDIA_SSRC + 1);
  fail_if (rtpcc_rtx_sender_on_rtcp (tx, RTPCC_MSEC (400), fb, n,
          RTPCC_TIME_NONE, 0, collect, NULL, NULL));
  n = rtpcc_fir_write (fb, sizeof fb, RECV_SSRC, &e, 1);
  fail_unless (rtpcc_rtx_sender_on_rtcp (tx, RTPCC_MSEC (400), fb, n,
          RTPCC_TIME_NONE, 0, collect, NULL, &all));
  fail_unless (all);
  fail_if (rtpcc_rtx_sender_on_rtcp (tx, RTPCC_MSEC (800), fb, n,
          RTPCC_TIME_NONE, 0, collect, NULL, NULL));
  /* a PLI of length 3: malformed */
  n = rtpcc_pli_write (fb, sizeof fb, RECV_SSRC, MEDIA_SSRC);
  fb[3] = 3;
  memset (fb + 12, 0, 4);
  fail_if (rtpcc_rtx_sender_on_rtcp (tx, RTPCC_MSEC (1200), fb, 16,
          RTPCC_TIME_NONE, 0, collect, NULL, NULL));
  rtpcc_rtx_sender_get_stats (tx, &ss);
  fail_unless_equals_uint64 (ss.plis_received, 2);
  fail_unless_equals_uint64 (ss.firs_received, 2);
  fail_unless_equals_uint64 (ss.keyunit_requests, 2);
  fail_unless_equals_uint64 (ss.keyunit_suppressed, 2);
  fail_unless_equals_uint64 (ss.rtcp_foreign, 1);
  fail_unless_equals_uint64 (ss.rtcp_malformed, 1);
  rtpcc_rtx_sender_free (tx);
}

GST_END_TEST;

/* Key frames seen in the payload (H.264, NAL type in the first byte): a
 * loss given up at once (no NACK, playout 50 ms) asks for a key frame
 * at 48 ms; unanswered, the request is repeated every 300 ms (348, 648)
 * until the IDR of frame 25 arrives (835 ms): three PLIs in 1.3 s. The
 * same stream without a codec to read asks once. */
static guint
keyframe_run (RtpccSendbufCodec codec, RtpccRtxReceiverStats * st)
{
  RtpccRtxReceiverConfig rc;
  RtpccRtxReceiver *rx;
  guint8 pkt[2048], out[2048], buf[1500];
  gsize len, out_len;

  rtpcc_rtx_receiver_config_init (&rc);
  rc.keyframe = RTPCC_KEYFRAME_REQUEST_PLI;
  rc.codec = codec;
  rc.repair.playout_delay = RTPCC_MSEC (50);
  rx = rtpcc_rtx_receiver_new (&rc, NULL);
  fail_unless (rx != NULL);
  for (guint16 seq = 0; seq < 120; seq++) {
    RtpccTime t = sent_at (seq) + RTPCC_MSEC (10);
    len = media (pkt, seq);
    /* an IDR slice (nal_ref_idc 3, type 5) in frame 25, else non-IDR */
    pkt[12] = seq / 3 == 25 ? 0x65 : 0x41;
    if (seq != 4)
      rtpcc_rtx_receiver_on_rtp (rx, t, pkt, len, len, out, sizeof out,
          &out_len);
    for (RtpccTime u = t; u < sent_at (seq + 1) + RTPCC_MSEC (10);
        u += RTPCC_MSEC (1))
      if (rtpcc_rtx_receiver_next_timeout (rx) <= u)
        rtpcc_rtx_receiver_build (rx, u, RECV_SSRC, buf, sizeof buf);
  }
  rtpcc_rtx_receiver_get_stats (rx, st);
  rtpcc_rtx_receiver_free (rx);
  return (guint) st->plis_sent;
}

GST_START_TEST (test_keyframe_seen_ends_repeats)
{
  RtpccRtxReceiverStats st;

  fail_unless_equals_int (keyframe_run (RTPCC_SENDBUF_CODEC_H264, &st), 3);
  fail_unless_equals_uint64 (st.repair.keyframe_repeats, 2);
  fail_unless_equals_uint64 (st.repair.keyframes, 1);
  fail_unless_equals_uint64 (st.repair.keyframe_unanswered, 0);
  fail_unless_equals_int (keyframe_run (RTPCC_SENDBUF_CODEC_OTHER, &st), 1);
  fail_unless_equals_uint64 (st.repair.keyframes, 0);
}

GST_END_TEST;

/* FEC on its own SSRC (the library's XOR encoder, one repair packet per
 * 3-packet frame) reaches the receiver after each frame. Seq 7 is lost
 * alone in its block: rebuildable, never NACKed, left to the decoder
 * downstream. Seqs 10 and 11 are lost in one block: FEC cannot alone;
 * 10 is NACKed and restored by RTX, after which the block rebuilds 11. */
GST_START_TEST (test_fec_settles_nacks)
{
  Pair p;
  RtpccRtxReceiverConfig rc;
  RtpccFecEncoderConfig fc;
  RtpccFecEncoder *enc;
  RtpccRtxReceiverStats st;
  guint8 pkt[2048], out[2048];
  gsize len, out_len;
  GBytes *fec;

  pair_init (&p, RTX_PT);
  rtpcc_rtx_receiver_free (p.rx);
  rtpcc_rtx_receiver_config_init (&rc);
  rc.nack = TRUE;
  rc.keyframe = RTPCC_KEYFRAME_REQUEST_PLI;
  rc.rtx_pt = RTX_PT;
  /* bogus: FEC and RTX on one payload type, or FEC's over 127 */
  rc.fec_pt = RTX_PT;
  fail_unless (rtpcc_rtx_receiver_new (&rc, NULL) == NULL);
  rc.fec_pt = 128;
  fail_unless (rtpcc_rtx_receiver_new (&rc, NULL) == NULL);
  rc.fec_pt = RTPCC_FEC_DEFAULT_PT;
  p.rx = rtpcc_rtx_receiver_new (&rc, NULL);
  fail_unless (p.rx != NULL);
  p.deliver = TRUE;
  rtpcc_fec_encoder_config_init (&fc);
  fc.scheme = RTPCC_FEC_SCHEME_XOR;
  fc.n = 3;
  fc.ssrc = 0xFEC0FEC0u;
  fc.pt = RTPCC_FEC_DEFAULT_PT;
  enc = rtpcc_fec_encoder_new (&fc, NULL);
  fail_unless (enc != NULL);

  for (guint16 seq = 0; seq < 60; seq++) {
    RtpccTime t = sent_at (seq);
    len = media (pkt, seq);
    rtpcc_rtx_sender_on_sent (p.tx, t, pkt, len, len);
    rtpcc_fec_encoder_push (enc, pkt, len, t);
    if (seq != 7 && seq != 10 && seq != 11)
      rtpcc_rtx_receiver_on_rtp (p.rx, t + RTPCC_MSEC (10), pkt, len, len,
          out, sizeof out, &out_len);
    while ((fec = rtpcc_fec_encoder_pop (enc)) != NULL) {
      const guint8 *d = g_bytes_get_data (fec, &len);
      fail_unless_equals_int (rtpcc_rtx_receiver_on_rtp (p.rx,
              t + RTPCC_MSEC (10), d, len, len, out, sizeof out, &out_len),
          RTPCC_RTX_RECEIVER_PASS);
      g_bytes_unref (fec);
    }
    if (seq % 3 == 2)
      for (RtpccTime u = t + RTPCC_MSEC (10); u < sent_at (seq + 1) +
          RTPCC_MSEC (10); u += RTPCC_MSEC (1))
        pair_poll (&p, u, 0);
  }
  rtpcc_rtx_receiver_get_stats (p.rx, &st);
  fail_unless_equals_uint64 (st.fec_packets, 20);
  fail_unless_equals_uint64 (st.fec_invalid, 0);
  fail_unless_equals_uint64 (st.nacked_packets, 1);
  fail_unless_equals_uint64 (st.rtx_recovered, 1);
  fail_unless_equals_uint64 (st.repair.fec_rebuildable, 2);
  fail_unless_equals_uint64 (st.repair.fec_unrecoverable, 1);
  fail_unless_equals_uint64 (st.repair.fec_left, 2);
  fail_unless_equals_uint64 (st.repair.gave_up, 0);
  fail_unless_equals_uint64 (st.plis_sent, 0);
  rtpcc_fec_encoder_free (enc);
  pair_clear (&p);
}

GST_END_TEST;

/* tshark dissects the NACK and PLI the receiver wrote and the RTX packet
 * the sender wrote without a warning, and reads the fields back. */
GST_START_TEST (test_tshark)
{
  gchar *tshark = tshark_find ("test_tshark");
  static const gchar *const rtp_opts[] = {
    "-d", "udp.port==" G_STRINGIFY (TSHARK_PCAP_SRC_PORT) ",rtp", NULL
  };
  Pair p;
  GByteArray *pcap;
  gchar *dir, *file, *out;
  guint idx = 1;

  if (tshark == NULL)
    return;
  pair_init (&p, RTX_PT);
  run (&p, 30, 10, 0);
  for (RtpccTime t = sent_at (29) + RTPCC_MSEC (20); t < RTPCC_MSEC (400);
      t += RTPCC_MSEC (1))
    pair_poll (&p, t, 0);
  fail_unless (p.fb->len >= 2);

  pcap = test_pcap_new ();
  for (guint i = 0; i < p.fb->len; i++) {
    gsize len;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (p.fb, i), &len);
    test_pcap_add (pcap, idx++, TSHARK_RTCP_PORT, d, len);
  }
  file = test_pcap_save (pcap, "rtpcc-rtxpair-XXXXXX", "fb.pcap", &dir);
  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_no_warnings (out);
  fail_unless (strstr (out, "Generic negative acknowledgement") != NULL
      || strstr (out, "Generic NACK") != NULL, "%s", out);
  fail_unless (strstr (out, "Picture Loss Indication") != NULL, "%s", out);
  g_free (out);
  test_pcap_remove (file, dir);

  pcap = test_pcap_new ();
  {
    gsize len;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (p.rtx, 0), &len);
    test_pcap_add (pcap, 1, TSHARK_PCAP_SRC_PORT, d, len);
  }
  file = test_pcap_save (pcap, "rtpcc-rtxpair-XXXXXX", "rtx.pcap", &dir);
  out = tshark_run (tshark, file, rtp_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_no_warnings (out);
  g_free (out);
  out = tshark_run (tshark, file, rtp_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-e", "rtp.p_type",
      "-e", "rtp.ssrc", NULL});
  {
    const gchar *want[] = { "97;0x52545831" };
    tshark_assert_lines (out, want, G_N_ELEMENTS (want));
  }
  g_free (out);
  test_pcap_remove (file, dir);
  g_free (tshark);
  pair_clear (&p);
}

GST_END_TEST;

static Suite *
rtpcc_rtxpair_suite (void)
{
  Suite *s = suite_create ("rtpcc_rtxpair");
  TCase *tc = tcase_create ("general");

  /* tshark takes seconds to start on a loaded machine */
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_nack_rtx_restore);
  tcase_add_test (tc, test_rtx_sizes);
  tcase_add_test (tc, test_late_rtx);
  tcase_add_test (tc, test_rtx_off_and_budget);
  tcase_add_test (tc, test_keyframe_requests);
  tcase_add_test (tc, test_keyframe_seen_ends_repeats);
  tcase_add_test (tc, test_fec_settles_nacks);
  tcase_add_test (tc, test_tshark);
  return s;
}

GST_CHECK_MAIN (rtpcc_rtxpair);

/* Unit tests for RFC 4588 retransmission (rtx.h): the RTX packet against
 * hand-assembled bytes, GStreamer's rtprtxsend / rtprtxreceive and
 * tshark's RTP dissection; the sender's retransmission history.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#include "assert-bytes.h"
#include "tshark-util.h"

/* V=2 P=1 X=1 CC=1, M=1 PT 96, seq 0x1234, one CSRC, a one-byte
 * extension (ID 1, one byte 0x12, two bytes of zero padding), "hello",
 * three bytes of RTP padding. */
static const guint8 original[] = {
  0xB1, 0xE0, 0x12, 0x34,       /* V P X CC | M PT | seq */
  0xAA, 0xBB, 0xCC, 0xDD,       /* timestamp */
  0x01, 0x02, 0x03, 0x04,       /* SSRC */
  0x0A, 0x0B, 0x0C, 0x0D,       /* CSRC */
  0xBE, 0xDE, 0x00, 0x01,       /* one-byte extension, 1 word */
  0x10, 0x12, 0x00, 0x00,
  'h', 'e', 'l', 'l', 'o',
  0x00, 0x00, 0x03,             /* padding, count 3 */
};

/* Its RTX packet on SSRC 0xCAFEBABE, PT 97, seq 7: P cleared, marker,
 * timestamp, CSRC and extension kept, OSN 0x1234 first, no padding. */
static const guint8 rtx_packet[] = {
  0x91, 0xE1, 0x00, 0x07,
  0xAA, 0xBB, 0xCC, 0xDD,
  0xCA, 0xFE, 0xBA, 0xBE,
  0x0A, 0x0B, 0x0C, 0x0D,
  0xBE, 0xDE, 0x00, 0x01,
  0x10, 0x12, 0x00, 0x00,
  0x12, 0x34,                   /* OSN */
  'h', 'e', 'l', 'l', 'o',
};

/* ... and what restoring it gives: the original without its padding. */
static const guint8 restored[] = {
  0x91, 0xE0, 0x12, 0x34,
  0xAA, 0xBB, 0xCC, 0xDD,
  0x01, 0x02, 0x03, 0x04,
  0x0A, 0x0B, 0x0C, 0x0D,
  0xBE, 0xDE, 0x00, 0x01,
  0x10, 0x12, 0x00, 0x00,
  'h', 'e', 'l', 'l', 'o',
};

GST_START_TEST (test_rtx_layout)
{
  guint8 out[64];
  gsize n;
  GError *err = NULL;

  n = rtpcc_rtx_build (original, sizeof (original), 0xCAFEBABE, 97, 7, out,
      sizeof (out));
  assert_bytes (out, n, rtx_packet);
  /* exactly enough room; one byte less is refused */
  fail_unless_equals_int (rtpcc_rtx_build (original, sizeof (original),
          0xCAFEBABE, 97, 7, out, sizeof (rtx_packet)), sizeof (rtx_packet));
  fail_unless_equals_int (rtpcc_rtx_build (original, sizeof (original),
          0xCAFEBABE, 97, 7, out, sizeof (rtx_packet) - 1), 0);

  n = rtpcc_rtx_restore (rtx_packet, sizeof (rtx_packet), 0x01020304, 96,
      out, sizeof (out), &err);
  fail_unless (err == NULL);
  assert_bytes (out, n, restored);

  /* the RTX packet's own padding goes too */
  {
    guint8 padded[sizeof (rtx_packet) + 4];

    memcpy (padded, rtx_packet, sizeof (rtx_packet));
    padded[0] |= 0x20;
    memset (padded + sizeof (rtx_packet), 0, 3);
    padded[sizeof (padded) - 1] = 4;
    n = rtpcc_rtx_restore (padded, sizeof (padded), 0x01020304, 96, out,
        sizeof (out), NULL);
    assert_bytes (out, n, restored);
  }
}

GST_END_TEST;

GST_START_TEST (test_rtx_refused)
{
  guint8 out[64], pkt[16] = { 0x80, 97, 0, 1, 0, 0, 0, 0, 1, 2, 3, 4 };
  GError *err = NULL;

  /* not RTP */
  fail_unless_equals_int (rtpcc_rtx_build (original, 11, 1, 97, 1, out,
          sizeof (out)), 0);
  fail_unless_equals_int (rtpcc_rtx_build (original, sizeof (original) - 1,
          1, 97, 1, out, sizeof (out)), 0);     /* padding count lost */
  fail_unless_equals_int (rtpcc_rtx_build (original, sizeof (original), 1,
          128, 1, out, sizeof (out)), 0);
  fail_unless_equals_int (rtpcc_rtx_restore (original, 11, 1, 96, out,
          sizeof (out), &err), 0);
  fail_unless (g_error_matches (err, RTPCC_ERROR, RTPCC_ERROR_PARSE));
  g_clear_error (&err);

  /* no OSN: empty payload (a padding-only probe), or a single byte */
  fail_unless_equals_int (rtpcc_rtx_restore (pkt, 12, 1, 96, out,
          sizeof (out), &err), 0);
  fail_unless (strstr (err->message, "no OSN") != NULL, "%s", err->message);
  g_clear_error (&err);
  pkt[0] = 0xA0;
  pkt[15] = 4;
  fail_unless_equals_int (rtpcc_rtx_restore (pkt, 16, 1, 96, out,
          sizeof (out), &err), 0);
  fail_unless (strstr (err->message, "no OSN") != NULL, "%s", err->message);
  g_clear_error (&err);
  pkt[0] = 0x80;
  fail_unless_equals_int (rtpcc_rtx_restore (pkt, 13, 1, 96, out,
          sizeof (out), NULL), 0);
  /* two bytes: an empty original */
  fail_unless_equals_int (rtpcc_rtx_restore (pkt, 14, 1, 96, out,
          sizeof (out), NULL), 12);

  /* room and payload type */
  fail_unless_equals_int (rtpcc_rtx_restore (rtx_packet, sizeof (rtx_packet),
          1, 96, out, sizeof (restored) - 1, &err), 0);
  fail_unless (g_error_matches (err, RTPCC_ERROR, RTPCC_ERROR_INVALID));
  g_clear_error (&err);
  fail_unless_equals_int (rtpcc_rtx_restore (rtx_packet, sizeof (rtx_packet),
          1, 200, out, sizeof (out), NULL), 0);
}

GST_END_TEST;

/* A random valid RTP packet into @buf; returns its length. */
static gsize
random_rtp (RtpccRng * rng, guint8 * buf)
{
  guint cc = rtpcc_rng_below (rng, 4), ext_words = 0, payload, pad = 0;
  gboolean ext = rtpcc_rng_bernoulli (rng, 0.5);
  gsize n = 12;

  buf[0] = (guint8) (0x80 | cc);
  buf[1] = (guint8) rtpcc_rng_below (rng, 256);
  for (guint i = 2; i < 12; i++)
    buf[i] = (guint8) rtpcc_rng_next_u64 (rng);
  for (guint i = 0; i < 4 * cc; i++)
    buf[n++] = (guint8) rtpcc_rng_next_u64 (rng);
  if (ext) {
    buf[0] |= 0x10;
    ext_words = rtpcc_rng_below (rng, 4);
    buf[n++] = 0xBE;
    buf[n++] = 0xDE;
    buf[n++] = 0;
    buf[n++] = (guint8) ext_words;
    for (guint i = 0; i < 4 * ext_words; i++)
      buf[n++] = (guint8) rtpcc_rng_next_u64 (rng);
  }
  payload = rtpcc_rng_below (rng, 200);
  for (guint i = 0; i < payload; i++)
    buf[n++] = (guint8) rtpcc_rng_next_u64 (rng);
  if (rtpcc_rng_bernoulli (rng, 0.3)) {
    pad = 1 + rtpcc_rng_below (rng, 8);
    buf[0] |= 0x20;
    for (guint i = 0; i < pad - 1; i++)
      buf[n++] = 0;
    buf[n++] = (guint8) pad;
  }
  return n;
}

GST_START_TEST (test_rtx_random_round_trip)
{
  RtpccRng rng;
  guint8 orig[512], rtx[520], back[520];

  rtpcc_rng_init (&rng, 4588);
  for (guint i = 0; i < 2000; i++) {
    gsize n = random_rtp (&rng, orig), r, b;
    RtpccRtpLayout lo, lr;
    guint32 rtx_ssrc = (guint32) rtpcc_rng_next_u64 (&rng);
    guint16 rtx_seq = (guint16) rtpcc_rng_next_u64 (&rng);
    guint8 pad = (orig[0] & 0x20) ? orig[n - 1] : 0;

    fail_unless (rtpcc_rtp_parse_layout (orig, n, &lo));
    r = rtpcc_rtx_build (orig, n, rtx_ssrc, 97, rtx_seq, rtx, sizeof (rtx));
    fail_unless_equals_int (r, n - pad + 2);
    fail_unless (rtpcc_rtp_parse_layout (rtx, r, &lr));
    fail_unless (lr.ssrc == rtx_ssrc);
    fail_unless_equals_int (lr.seq, rtx_seq);
    fail_unless_equals_int (lr.pt, 97);
    fail_unless_equals_int (lr.marker, lo.marker);
    fail_unless (lr.timestamp == lo.timestamp);
    fail_unless_equals_int (lr.padding_len, 0);
    fail_unless_equals_int (lr.header_len, lo.header_len);

    b = rtpcc_rtx_restore (rtx, r, lo.ssrc, lo.pt, back, sizeof (back),
        NULL);
    fail_unless_equals_int (b, n - pad);
    /* the original, byte for byte, but for the P bit */
    fail_unless_equals_int (back[0], orig[0] & ~0x20);
    fail_unless (memcmp (back + 1, orig + 1, b - 1) == 0);
  }
}

GST_END_TEST;

/* ---- GStreamer's RTX elements ------------------------------------------ */

#define MEDIA_SSRC 0x01020304
#define RTX_SSRC 0xCAFEBABE

static gboolean
have_element (const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);

  if (f == NULL) {
    g_print ("SKIP: %s not available (gst-plugins-good)\n", name);
    return FALSE;
  }
  gst_object_unref (f);
  return TRUE;
}

static GstEvent *
rtx_request (guint seq, guint ssrc)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
      gst_structure_new ("GstRTPRetransmissionRequest", "seqnum", G_TYPE_UINT,
          seq, "ssrc", G_TYPE_UINT, ssrc, NULL));
}

/* RTX PT 97 for PT 96, RTX_SSRC for MEDIA_SSRC */
static void
set_maps (GstElement * e)
{
  gchar *key = g_strdup_printf ("%u", (guint) MEDIA_SSRC);
  GstStructure *pt = gst_structure_new ("application/x-rtp-pt-map", "96",
      G_TYPE_UINT, 97, NULL);
  GstStructure *ssrc = gst_structure_new ("application/x-rtp-ssrc-map",
      key, G_TYPE_UINT, RTX_SSRC, NULL);

  g_object_set (e, "payload-type-map", pt, "ssrc-map", ssrc, NULL);
  gst_structure_free (pt);
  gst_structure_free (ssrc);
  g_free (key);
}

/* rtprtxsend answers a request for a packet with exactly our RTX packet
 * (its sequence number is its own). It is fed the original without its
 * padding: rtprtxsend 1.22 copies the P bit into its RTX buffer before
 * clearing it and then fails to map that buffer; we build from the padded
 * original, which must come out the same. */
GST_START_TEST (test_rtprtxsend_matches)
{
  GstHarness *h;
  GstBuffer *out;
  GstMapInfo map;
  guint8 ours[64];
  gsize n;

  if (!have_element ("rtprtxsend"))
    return;
  h = gst_harness_new ("rtprtxsend");
  set_maps (h->element);
  gst_harness_set_src_caps_str (h, "application/x-rtp,media=(string)video,"
      "clock-rate=(int)90000,encoding-name=(string)H264,payload=(int)96,"
      "ssrc=(uint)16909060");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_memdup (restored, sizeof (restored))), GST_FLOW_OK);
  out = gst_harness_pull (h);   /* the original, passed through */
  gst_buffer_unref (out);

  fail_unless (gst_harness_push_upstream_event (h, rtx_request (0x1234,
              MEDIA_SSRC)));
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  n = rtpcc_rtx_build (original, sizeof (original), RTX_SSRC, 97,
      GST_READ_UINT16_BE (map.data + 2), ours, sizeof (ours));
  fail_unless_equals_int (map.size, n);
  fail_unless (memcmp (map.data, ours, n) == 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* rtprtxreceive restores from our RTX packet what we restore. */
GST_START_TEST (test_rtprtxreceive_restores_ours)
{
  GstHarness *h;
  GstBuffer *out;
  GstMapInfo map;

  if (!have_element ("rtprtxreceive"))
    return;
  h = gst_harness_new ("rtprtxreceive");
  set_maps (h->element);
  gst_harness_set_src_caps_str (h, "application/x-rtp,media=(string)video,"
      "clock-rate=(int)90000,encoding-name=(string)H264,payload=(int)96");
  /* the jitter buffer's request, on its way upstream */
  fail_unless (gst_harness_push_upstream_event (h, rtx_request (0x1234,
              MEDIA_SSRC)));
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_memdup (rtx_packet, sizeof (rtx_packet))),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, sizeof (restored));
  fail_unless (memcmp (map.data, restored, map.size) == 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- tshark -------------------------------------------------------------- */

#define PCAP_PORT 5004

GST_START_TEST (test_tshark_rtp)
{
  gchar *tshark = tshark_find ("test_tshark_rtp");
  static const gchar *const opts[] = {
    "-d", "udp.port==" G_STRINGIFY (PCAP_PORT) ",rtp", NULL
  };
  GByteArray *pcap;
  gchar *dir, *file, *out;

  if (tshark == NULL)
    return;
  pcap = test_pcap_new ();
  test_pcap_add (pcap, 1, PCAP_PORT, original, sizeof (original));
  test_pcap_add (pcap, 2, PCAP_PORT, rtx_packet, sizeof (rtx_packet));
  test_pcap_add (pcap, 3, PCAP_PORT, restored, sizeof (restored));
  file = test_pcap_save (pcap, "rtpcc-rtx-XXXXXX", "rtx.pcap", &dir);

  out = tshark_run (tshark, file, opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_no_warnings (out);
  g_free (out);

  out = tshark_run (tshark, file, opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;",
      "-e", "frame.number", "-e", "rtp.padding", "-e", "rtp.ext",
      "-e", "rtp.cc", "-e", "rtp.marker", "-e", "rtp.p_type",
      "-e", "rtp.seq", "-e", "rtp.timestamp", "-e", "rtp.ssrc",
      "-e", "rtp.csrc.item", "-e", "rtp.ext.profile", "-e", "rtp.payload",
      "-e", "rtp.padding.count", NULL});
  {
    const gchar *want[] = {
      "1;1;1;1;1;96;4660;2864434397;0x01020304;0x0a0b0c0d;0xbede;"
          "68656c6c6f;3",
      /* the RTX packet: OSN 0x1234 first in the payload */
      "2;0;1;1;1;97;7;2864434397;0xcafebabe;0x0a0b0c0d;0xbede;"
          "123468656c6c6f;",
      "3;0;1;1;1;96;4660;2864434397;0x01020304;0x0a0b0c0d;0xbede;"
          "68656c6c6f;",
    };
    tshark_assert_lines (out, want, G_N_ELEMENTS (want));
  }
  g_free (out);
  test_pcap_remove (file, dir);
  g_free (tshark);
}

GST_END_TEST;

/* ---- history ------------------------------------------------------------- */

/* A 112-byte RTP packet of @ssrc / @seq. */
static const guint8 *
pkt (guint32 ssrc, guint16 seq)
{
  static guint8 b[112];

  memset (b, 0, sizeof (b));
  b[0] = 0x80;
  b[1] = 96;
  b[2] = (guint8) (seq >> 8);
  b[3] = (guint8) seq;
  b[8] = (guint8) (ssrc >> 24);
  b[9] = (guint8) (ssrc >> 16);
  b[10] = (guint8) (ssrc >> 8);
  b[11] = (guint8) ssrc;
  b[12] = (guint8) seq;         /* payload tells packets apart */
  return b;
}

#define MS(x) RTPCC_MSEC (x)
#define RTT MS (50)

static RtpccRtxVerdict
ask (RtpccRtxHistory * h, RtpccTime now, guint32 ssrc, guint16 seq,
    guint64 max_bitrate)
{
  const guint8 *d = NULL;
  gsize len = 0;
  RtpccRtxVerdict v = rtpcc_rtx_history_request (h, now, ssrc, seq, RTT,
      max_bitrate, &d, &len);

  if (v == RTPCC_RTX_SEND) {
    RtpccRtpLayout l;

    /* what comes back is the packet that was put */
    fail_unless_equals_int (len, 112);
    fail_unless (rtpcc_rtp_parse_layout (d, len, &l));
    fail_unless (l.ssrc == ssrc && l.seq == seq);
    fail_unless_equals_int (d[12], (guint8) seq);
  } else {
    fail_unless (d == NULL);
  }
  return v;
}

GST_START_TEST (test_history_lookup_and_rtt_rule)
{
  RtpccRtxHistory *h = rtpcc_rtx_history_new (NULL);
  RtpccRtxHistoryStats st;

  for (guint i = 0; i < 10; i++)
    fail_unless (rtpcc_rtx_history_put (h, MS (10 * i), pkt (1, 100 + i),
            112));
  fail_unless (rtpcc_rtx_history_put (h, MS (100), pkt (2, 100), 112));

  fail_unless_equals_int (ask (h, MS (120), 1, 103, 0), RTPCC_RTX_SEND);
  fail_unless_equals_int (ask (h, MS (120), 2, 100, 0), RTPCC_RTX_SEND);
  fail_unless_equals_int (ask (h, MS (120), 1, 110, 0), RTPCC_RTX_UNKNOWN);
  fail_unless_equals_int (ask (h, MS (120), 3, 100, 0), RTPCC_RTX_UNKNOWN);
  /* once per RTT: a second NACK 49 ms later is the same request */
  fail_unless_equals_int (ask (h, MS (169), 1, 103, 0), RTPCC_RTX_TOO_SOON);
  fail_unless_equals_int (ask (h, MS (170), 1, 103, 0), RTPCC_RTX_SEND);
  fail_unless_equals_int (ask (h, MS (171), 1, 103, 0), RTPCC_RTX_TOO_SOON);
  /* an unknown RTT is taken as 100 ms */
  fail_unless_equals_int (rtpcc_rtx_history_request (h, MS (269), 1, 103,
          RTPCC_TIME_NONE, 0, NULL, NULL), RTPCC_RTX_TOO_SOON);
  fail_unless_equals_int (rtpcc_rtx_history_request (h, MS (270), 1, 103,
          RTPCC_TIME_NONE, 0, NULL, NULL), RTPCC_RTX_SEND);

  rtpcc_rtx_history_get_stats (h, &st);
  fail_unless_equals_int (st.packets, 11);
  fail_unless_equals_int (st.bytes, 11 * (112 + RTPCC_RTX_ENTRY_OVERHEAD));
  fail_unless_equals_int (st.stored, 11);
  fail_unless_equals_int (st.requests, 9);
  fail_unless_equals_int (st.retransmitted, 4);
  fail_unless_equals_int (st.retransmitted_bytes, 4 * 112);
  fail_unless_equals_int (st.unknown, 2);
  fail_unless_equals_int (st.too_soon, 3);

  /* not RTP: refused, counted */
  fail_if (rtpcc_rtx_history_put (h, MS (300), original, 11));
  rtpcc_rtx_history_get_stats (h, &st);
  fail_unless_equals_int (st.invalid, 1);
  fail_unless_equals_string (rtpcc_rtx_verdict_name (RTPCC_RTX_TOO_SOON),
      "too-soon");
  rtpcc_rtx_history_free (h);
}

GST_END_TEST;

/* max_age bounds both what is kept and what is still worth sending: a
 * retransmission must arrive (RTT/2 from now) within max_age of the
 * original's send. */
GST_START_TEST (test_history_age)
{
  RtpccRtxHistoryConfig cfg;
  RtpccRtxHistory *h;
  RtpccRtxHistoryStats st;

  rtpcc_rtx_history_config_init (&cfg);
  fail_unless_equals_int64 (cfg.max_age, RTPCC_SEC (1));
  cfg.max_age = MS (200);
  h = rtpcc_rtx_history_new (&cfg);
  rtpcc_rtx_history_put (h, 0, pkt (1, 1), 112);
  rtpcc_rtx_history_put (h, MS (100), pkt (1, 2), 112);

  /* 174 + 25 < 200: in time; 175 + 25 = 200: would be too late */
  fail_unless_equals_int (ask (h, MS (174), 1, 1, 0), RTPCC_RTX_SEND);
  fail_unless_equals_int (ask (h, MS (175), 1, 1, 0), RTPCC_RTX_TOO_OLD);
  fail_unless_equals_int (ask (h, MS (175), 1, 2, 0), RTPCC_RTX_SEND);
  /* at 200 ms seq 1 is dropped; at 300 ms seq 2 */
  rtpcc_rtx_history_expire (h, MS (199));
  rtpcc_rtx_history_get_stats (h, &st);
  fail_unless_equals_int (st.packets, 2);
  rtpcc_rtx_history_expire (h, MS (200));
  rtpcc_rtx_history_get_stats (h, &st);
  fail_unless_equals_int (st.packets, 1);
  fail_unless_equals_int (st.expired, 1);
  fail_unless_equals_int (ask (h, MS (200), 1, 1, 0), RTPCC_RTX_UNKNOWN);
  rtpcc_rtx_history_put (h, MS (300), pkt (1, 3), 112);
  rtpcc_rtx_history_get_stats (h, &st);
  fail_unless_equals_int (st.packets, 1);
  fail_unless_equals_int (st.expired, 2);
  fail_unless_equals_int (st.too_old, 1);
  rtpcc_rtx_history_free (h);
}

GST_END_TEST;

GST_START_TEST (test_history_bytes_and_replace)
{
  RtpccRtxHistoryConfig cfg;
  RtpccRtxHistory *h;
  RtpccRtxHistoryStats st;
  const gsize charge = 112 + RTPCC_RTX_ENTRY_OVERHEAD;

  rtpcc_rtx_history_config_init (&cfg);
  cfg.max_bytes = 3 * charge;
  h = rtpcc_rtx_history_new (&cfg);
  for (guint i = 0; i < 5; i++)
    rtpcc_rtx_history_put (h, MS (i), pkt (1, (guint16) i), 112);
  rtpcc_rtx_history_get_stats (h, &st);
  fail_unless_equals_int (st.packets, 3);
  fail_unless_equals_int (st.bytes, 3 * charge);
  fail_unless_equals_int (st.evicted, 2);
  /* oldest first */
  fail_unless_equals_int (ask (h, MS (5), 1, 1, 0), RTPCC_RTX_UNKNOWN);
  fail_unless_equals_int (ask (h, MS (5), 1, 2, 0), RTPCC_RTX_SEND);

  /* the same (SSRC, seq) again (the seq space wrapped): the new packet
   * replaces the old one, which was retransmitted already */
  rtpcc_rtx_history_put (h, MS (6), pkt (1, 2), 112);
  rtpcc_rtx_history_get_stats (h, &st);
  fail_unless_equals_int (st.replaced, 1);
  fail_unless_equals_int (st.packets, 3);
  fail_unless_equals_int (ask (h, MS (7), 1, 2, 0), RTPCC_RTX_SEND);

  /* a budget smaller than one packet still keeps the newest */
  cfg.max_bytes = 10;
  rtpcc_rtx_history_free (h);
  h = rtpcc_rtx_history_new (&cfg);
  rtpcc_rtx_history_put (h, 0, pkt (1, 1), 112);
  rtpcc_rtx_history_put (h, 1, pkt (1, 2), 112);
  rtpcc_rtx_history_get_stats (h, &st);
  fail_unless_equals_int (st.packets, 1);
  fail_unless_equals_int (ask (h, 2, 1, 2, 0), RTPCC_RTX_SEND);
  rtpcc_rtx_history_free (h);
}

GST_END_TEST;

/* The rate limit: at 89 600 bit/s, 100 packets of 112 bytes per second. */
GST_START_TEST (test_history_rate_limit)
{
  RtpccRtxHistoryConfig cfg;
  RtpccRtxHistory *h;
  RtpccRtxHistoryStats st;
  guint sent = 0;

  rtpcc_rtx_history_config_init (&cfg);
  cfg.max_age = RTPCC_SEC (5);
  h = rtpcc_rtx_history_new (&cfg);
  for (guint i = 0; i < 300; i++)
    rtpcc_rtx_history_put (h, MS (i), pkt (1, (guint16) i), 112);
  for (guint i = 0; i < 150; i++)
    if (ask (h, MS (300), 1, (guint16) i, 89600) == RTPCC_RTX_SEND)
      sent++;
  fail_unless_equals_int (sent, 100);
  /* one window later the budget is back */
  fail_unless_equals_int (ask (h, MS (1299), 1, 290, 89600),
      RTPCC_RTX_RATE_LIMITED);
  fail_unless_equals_int (ask (h, MS (1300), 1, 290, 89600), RTPCC_RTX_SEND);
  /* no limit */
  fail_unless_equals_int (ask (h, MS (1300), 1, 291, 0), RTPCC_RTX_SEND);
  rtpcc_rtx_history_get_stats (h, &st);
  fail_unless_equals_int (st.rate_limited, 51);
  rtpcc_rtx_history_free (h);
}

GST_END_TEST;

static Suite *
rtpcc_rtx_suite (void)
{
  Suite *s = suite_create ("rtpcc_rtx");
  TCase *tc = tcase_create ("format");
  TCase *tc_gst = tcase_create ("gstreamer");
  TCase *tc_tshark = tcase_create ("tshark");
  TCase *tc_hist = tcase_create ("history");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rtx_layout);
  tcase_add_test (tc, test_rtx_refused);
  tcase_add_test (tc, test_rtx_random_round_trip);

  suite_add_tcase (s, tc_gst);
  tcase_add_test (tc_gst, test_rtprtxsend_matches);
  tcase_add_test (tc_gst, test_rtprtxreceive_restores_ours);

  suite_add_tcase (s, tc_tshark);
  tcase_set_timeout (tc_tshark, 120);
  tcase_add_test (tc_tshark, test_tshark_rtp);

  suite_add_tcase (s, tc_hist);
  tcase_add_test (tc_hist, test_history_lookup_and_rtt_rule);
  tcase_add_test (tc_hist, test_history_age);
  tcase_add_test (tc_hist, test_history_bytes_and_replace);
  tcase_add_test (tc_hist, test_history_rate_limit);
  return s;
}

GST_CHECK_MAIN (rtpcc_rtx);

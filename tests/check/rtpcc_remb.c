/* Unit tests for REMB (feedback/remb.h, draft-alvestrand-rmcat-remb-03):
 * hand-assembled bytes, the exponent/mantissa encoding, malformed
 * packets, random round trips, GStreamer's RTCP reader and tshark.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#include "assert-bytes.h"
#include "tshark-util.h"

/* 0x11223344 estimates 1 Mbit/s for 0x55667788 and 0x99AABBCC:
 * 1 000 000 = 250000 · 2^2, the smallest exponent whose mantissa fits 18
 * bits (2^18 = 262144); 2 << 24 | 2 << 18 | 250000 = 0x020BD090. */
static const guint8 remb_example[] = {
  0x8F, 0xCE, 0x00, 0x06,       /* V=2 FMT=15, PT 206, length 6 */
  0x11, 0x22, 0x33, 0x44,       /* SSRC of packet sender */
  0x00, 0x00, 0x00, 0x00,       /* media source: 0 */
  'R', 'E', 'M', 'B',
  0x02, 0x0B, 0xD0, 0x90,       /* 2 SSRCs, exponent 2, 250000 */
  0x55, 0x66, 0x77, 0x88,
  0x99, 0xAA, 0xBB, 0xCC,
};

static const guint32 example_ssrcs[] = { 0x55667788, 0x99AABBCC };

GST_START_TEST (test_layout)
{
  guint8 buf[64];
  gsize n;
  RtpccRemb r;
  GError *err = NULL;

  fail_unless_equals_int (rtpcc_remb_size (0), 20);
  fail_unless_equals_int (rtpcc_remb_size (255), 20 + 255 * 4);
  fail_unless_equals_int (rtpcc_remb_size (256), 0);

  n = rtpcc_remb_write (buf, sizeof (buf), 0x11223344, 1000000,
      example_ssrcs, 2);
  assert_bytes (buf, n, remb_example);
  fail_unless (rtpcc_remb_parse (remb_example, sizeof (remb_example), &r,
          &err), "%s", err ? err->message : "");
  fail_unless (r.sender_ssrc == 0x11223344);
  fail_unless_equals_uint64 (r.bitrate, 1000000);
  fail_unless_equals_int (r.n_ssrcs, 2);
  fail_unless (r.ssrcs[0] == 0x55667788 && r.ssrcs[1] == 0x99AABBCC);
  fail_unless (rtpcc_remb_names (&r, 0x99AABBCC));
  fail_if (rtpcc_remb_names (&r, 0x11223344));

  /* naming no stream: the estimate alone */
  n = rtpcc_remb_write (buf, sizeof (buf), 1, 64000, NULL, 0);
  fail_unless_equals_int (n, 20);
  fail_unless (rtpcc_remb_parse (buf, n, &r, NULL));
  fail_unless_equals_int (r.n_ssrcs, 0);
  fail_unless_equals_uint64 (r.bitrate, 64000);

  /* no room, NULL */
  fail_unless_equals_int (rtpcc_remb_write (buf, 27, 1, 1, example_ssrcs,
          2), 0);
  fail_unless_equals_int (rtpcc_remb_write (NULL, 64, 1, 1, NULL, 0), 0);
  fail_unless_equals_int (rtpcc_remb_write (buf, 64, 1, 1, NULL, 2), 0);
}

GST_END_TEST;

GST_START_TEST (test_bitrate_encoding)
{
  static const struct
  {
    guint64 bitrate;
    guint8 exp;
    guint32 mantissa;
  } cases[] = {
    {0, 0, 0},
    {262143, 0, 262143},
    {262144, 1, 131072},
    {10000001, 6, 156250},      /* 156250.016: rounded down */
    {G_MAXUINT64, 46, 262143},  /* (2^18 − 1) · 2^46 */
  };
  RtpccRng rng;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    guint8 exp;
    guint32 m;

    rtpcc_remb_encode_bitrate (cases[i].bitrate, &exp, &m);
    fail_unless_equals_int (exp, cases[i].exp);
    fail_unless_equals_int (m, cases[i].mantissa);
  }

  rtpcc_rng_init (&rng, 18);
  for (guint i = 0; i < 2000; i++) {
    guint64 b = rtpcc_rng_next_u64 (&rng) >> (i % 64);
    guint n_ssrcs = i % 256;
    guint32 ssrcs[255];
    guint8 buf[20 + 255 * 4];
    gsize n;
    RtpccRemb r;
    guint8 exp;
    guint32 m;

    for (guint k = 0; k < n_ssrcs; k++)
      ssrcs[k] = (guint32) rtpcc_rng_next_u64 (&rng);
    rtpcc_remb_encode_bitrate (b, &exp, &m);
    fail_unless (exp == 0 || m >= 131072, "not the smallest exponent");
    n = rtpcc_remb_write (buf, sizeof (buf), i, b, ssrcs, n_ssrcs);
    fail_unless_equals_int (n, 20 + 4 * n_ssrcs);
    fail_unless (rtpcc_remb_parse (buf, n, &r, NULL));
    fail_unless (r.bitrate <= b && b - r.bitrate <
        (G_GUINT64_CONSTANT (1) << exp));
    fail_unless_equals_int (r.n_ssrcs, n_ssrcs);
    fail_unless (memcmp (r.ssrcs, ssrcs, n_ssrcs * 4) == 0);
  }
}

GST_END_TEST;

static void
assert_refused (const guint8 * p, gsize len, const gchar * why)
{
  GError *err = NULL;
  RtpccRemb r;

  fail_if (rtpcc_remb_parse (p, len, &r, &err), "accepted (%s)", why);
  fail_unless (err != NULL && err->domain == RTPCC_ERROR);
  fail_unless (strstr (err->message, why) != NULL, "%s", err->message);
  g_error_free (err);
}

GST_START_TEST (test_malformed)
{
  guint8 p[64];
  RtpccRemb r;

  assert_refused (remb_example, 11, "need at least 12");
  memcpy (p, remb_example, sizeof (remb_example));
  p[0] = 0x81;                  /* a PLI */
  assert_refused (p, sizeof (remb_example), "FMT 1");
  memcpy (p, remb_example, sizeof (remb_example));
  p[1] = 205;
  assert_refused (p, sizeof (remb_example), "type 205");
  assert_refused (remb_example, 24, "length field says");
  /* another application message on FMT 15 */
  memcpy (p, remb_example, sizeof (remb_example));
  p[13] = 'R';
  assert_refused (p, sizeof (remb_example), "identifier");
  /* the identifier alone */
  memcpy (p, remb_example, 16);
  p[3] = 3;
  assert_refused (p, 16, "identifier");
  /* three SSRCs announced, two there; one announced, two there */
  memcpy (p, remb_example, sizeof (remb_example));
  p[16] = 3;
  assert_refused (p, sizeof (remb_example), "3 SSRCs announced");
  p[16] = 1;
  assert_refused (p, sizeof (remb_example), "1 SSRCs announced");
  /* exponent 47, mantissa 2^18 − 1: past 64 bits; exponent 63 with
   * mantissa 1 is 2^63 */
  memcpy (p, remb_example, sizeof (remb_example));
  p[17] = 47 << 2 | 0x03;
  p[18] = p[19] = 0xFF;
  assert_refused (p, sizeof (remb_example), "past 2^64");
  p[17] = 63 << 2;
  p[18] = 0;
  p[19] = 1;
  fail_unless (rtpcc_remb_parse (p, sizeof (remb_example), &r, NULL));
  fail_unless (r.bitrate == G_GUINT64_CONSTANT (1) << 63);
  /* a padded REMB is fine */
  memcpy (p, remb_example, sizeof (remb_example));
  p[0] |= 0x20;
  p[3] += 1;
  memset (p + sizeof (remb_example), 0, 4);
  p[sizeof (remb_example) + 3] = 4;
  fail_unless (rtpcc_remb_parse (p, sizeof (remb_example) + 4, &r, NULL));
  fail_unless_equals_int (r.n_ssrcs, 2);
}

GST_END_TEST;

GST_START_TEST (test_gst_rtcp_buffer_reads_ours)
{
  GstBuffer *gbuf = gst_buffer_new_memdup (remb_example,
      sizeof (remb_example));
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket packet;

  fail_unless (gst_rtcp_buffer_validate_reduced (gbuf));
  fail_unless (gst_rtcp_buffer_map (gbuf, GST_MAP_READ, &rtcp));
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &packet));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&packet),
      GST_RTCP_TYPE_PSFB);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_type (&packet),
      GST_RTCP_PSFB_TYPE_AFB);
  fail_unless (gst_rtcp_packet_fb_get_sender_ssrc (&packet) == 0x11223344);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_media_ssrc (&packet), 0);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_fci_length (&packet), 4);
  fail_unless (memcmp (gst_rtcp_packet_fb_get_fci (&packet), "REMB", 4) == 0);
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (gbuf);
}

GST_END_TEST;

GST_START_TEST (test_tshark_dissection)
{
  gchar *tshark = tshark_find ("test_tshark_dissection");
  GByteArray *pcap;
  gchar *dir, *file, *out;
  guint8 pkt[256];
  gsize n;

  if (tshark == NULL)
    return;

  pcap = test_pcap_new ();
  test_pcap_add (pcap, 1, TSHARK_RTCP_PORT, remb_example,
      sizeof (remb_example));
  /* 2: RR + SDES + REMB of 10 Mbit/s for one stream */
  n = test_rtcp_rr_sdes (pkt, sizeof (pkt), 0x11223344);
  n += rtpcc_remb_write (pkt + n, sizeof (pkt) - n, 0x11223344, 10000000,
      example_ssrcs, 1);
  test_pcap_add (pcap, 2, TSHARK_RTCP_PORT, pkt, n);
  file = test_pcap_save (pcap, "rtpcc-remb-XXXXXX", "remb.pcap", &dir);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_no_warnings (out);
  /* the bit rate tshark computes is in the tree only */
  fail_unless (strstr (out, "Maximum bit rate: 1000000\n") != NULL, "%s",
      out);
  fail_unless (strstr (out, "Maximum bit rate: 10000000\n") != NULL, "%s",
      out);
  g_free (out);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "frame.number", "-e", "rtcp.pt", "-e", "rtcp.length_check",
      "-e", "rtcp.psfb.fmt", "-e", "rtcp.psfb.remb.identifier",
      "-e", "rtcp.psfb.remb.fci.number_ssrcs",
      "-e", "rtcp.psfb.remb.fci.br_exp", "-e", "rtcp.psfb.remb.fci.br_mantissa",
      "-e", "rtcp.psfb.remb.fci.ssrc",
      NULL});
  {
    const gchar *want[] = {
      "1;206;1;15;REMB;2;2;250000;0x55667788,0x99aabbcc",
      /* 10 000 000 = 156250 · 2^6 */
      "2;201,202,206;1;15;REMB;1;6;156250;0x55667788",
    };
    tshark_assert_lines (out, want, G_N_ELEMENTS (want));
  }
  g_free (out);

  test_pcap_remove (file, dir);
  g_free (tshark);
}

GST_END_TEST;

static Suite *
rtpcc_remb_suite (void)
{
  Suite *s = suite_create ("rtpcc_remb");
  TCase *tc = tcase_create ("remb");
  TCase *tc_interop = tcase_create ("interop");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_layout);
  tcase_add_test (tc, test_bitrate_encoding);
  tcase_add_test (tc, test_malformed);

  suite_add_tcase (s, tc_interop);
  tcase_set_timeout (tc_interop, 120);
  tcase_add_test (tc_interop, test_gst_rtcp_buffer_reads_ours);
  tcase_add_test (tc_interop, test_tshark_dissection);
  return s;
}

GST_CHECK_MAIN (rtpcc_remb);

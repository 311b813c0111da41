/* Unit tests for the NADU APP packet (feedback/nadu.h, 3GPP TS 26.234):
 * hand-assembled bytes, another implementation's packet, malformed
 * packets, the unit conversions, random round trips, GStreamer's RTCP
 * reader and tshark.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#include "assert-bytes.h"
#include "tshark-util.h"

/* Receiver 0x11223344 about 0x55667788: 500 ms until the next unit plays
 * (0x01F4), next packet to decode 1000 (0x03E8), its unit 3, 1280 bytes
 * free = 20 blocks of 64. */
static const guint8 nadu_example[] = {
  0x80, 0xCC, 0x00, 0x05,       /* V=2 subtype 0, PT 204 (APP), length 5 */
  0x11, 0x22, 0x33, 0x44,       /* SSRC of packet sender */
  'P', 'S', 'S', '0',           /* name */
  0x55, 0x66, 0x77, 0x88,       /* the stream reported on */
  0x01, 0xF4, 0x03, 0xE8,       /* playout delay 500, NSN 1000 */
  0x00, 0x03, 0x00, 0x14,       /* reserved, NUN 3, FBS 20 */
};

GST_START_TEST (test_layout)
{
  RtpccNaduBlock b[2] = {
    {0x55667788, 500, 1000, 3, 20},
    {0x99AABBCC, RTPCC_NADU_DELAY_UNSET, 65535, 31, 65535},
  };
  guint8 buf[64];
  gsize n;
  GError *err = NULL;
  g_autoptr (RtpccNadu) nadu = NULL;

  fail_unless_equals_int (rtpcc_nadu_size (0), 0);
  fail_unless_equals_int (rtpcc_nadu_size (1), 24);
  fail_unless_equals_int (rtpcc_nadu_size (RTPCC_NADU_MAX_BLOCKS),
      12 + 12 * RTPCC_NADU_MAX_BLOCKS);
  fail_unless (rtpcc_nadu_size (RTPCC_NADU_MAX_BLOCKS) / 4 - 1 <=
      G_MAXUINT16);
  fail_unless_equals_int (rtpcc_nadu_size (RTPCC_NADU_MAX_BLOCKS + 1), 0);

  n = rtpcc_nadu_write (buf, sizeof (buf), 0x11223344, b, 1);
  assert_bytes (buf, n, nadu_example);
  nadu = rtpcc_nadu_parse (nadu_example, sizeof (nadu_example), &err);
  fail_unless (nadu != NULL, "%s", err ? err->message : "");
  fail_unless (nadu->sender_ssrc == 0x11223344);
  fail_unless_equals_int (nadu->n_blocks, 1);
  fail_unless (nadu->blocks[0].ssrc == 0x55667788);
  fail_unless_equals_int (nadu->blocks[0].playout_delay, 500);
  fail_unless_equals_int (nadu->blocks[0].nsn, 1000);
  fail_unless_equals_int (nadu->blocks[0].nun, 3);
  fail_unless_equals_int (nadu->blocks[0].fbs, 20);
  g_clear_pointer (&nadu, rtpcc_nadu_free);

  /* two streams, every field at its largest */
  n = rtpcc_nadu_write (buf, sizeof (buf), 0x11223344, b, 2);
  fail_unless_equals_int (n, 36);
  fail_unless_equals_int (buf[3], 8);
  fail_unless_equals_int (buf[32], 0x00);       /* reserved stay 0 */
  fail_unless_equals_int (buf[33], 0x1F);
  nadu = rtpcc_nadu_parse (buf, n, NULL);
  fail_unless (nadu != NULL && nadu->n_blocks == 2);
  fail_unless_equals_int (nadu->blocks[1].playout_delay,
      RTPCC_NADU_DELAY_UNSET);
  fail_unless_equals_int (nadu->blocks[1].nsn, 65535);
  fail_unless_equals_int (nadu->blocks[1].nun, 31);
  fail_unless_equals_int (nadu->blocks[1].fbs, 65535);
  g_clear_pointer (&nadu, rtpcc_nadu_free);

  /* the writer refuses: NUN past 5 bits, no block, no room */
  b[1].nun = 32;
  fail_unless_equals_int (rtpcc_nadu_write (buf, sizeof (buf), 1, b, 2), 0);
  fail_unless_equals_int (rtpcc_nadu_write (buf, sizeof (buf), 1, b, 0), 0);
  fail_unless_equals_int (rtpcc_nadu_write (buf, 23, 1, b, 1), 0);
  fail_unless_equals_int (rtpcc_nadu_write (NULL, 64, 1, b, 1), 0);

  /* reserved bits set by the sender are ignored */
  memcpy (buf, nadu_example, sizeof (nadu_example));
  buf[20] = 0xFF;
  buf[21] = 0xE3;
  nadu = rtpcc_nadu_parse (buf, sizeof (nadu_example), NULL);
  fail_unless (nadu != NULL);
  fail_unless_equals_int (nadu->blocks[0].nun, 3);
  fail_unless_equals_int (nadu->blocks[0].fbs, 20);
}

GST_END_TEST;

static void
assert_refused (const guint8 * p, gsize len, const gchar * why)
{
  GError *err = NULL;
  RtpccNadu *nadu = rtpcc_nadu_parse (p, len, &err);

  fail_unless (nadu == NULL, "accepted (%s)", why);
  fail_unless (err != NULL && err->domain == RTPCC_ERROR);
  fail_unless (strstr (err->message, why) != NULL, "%s", err->message);
  g_error_free (err);
}

GST_START_TEST (test_malformed)
{
  guint8 p[64];

  assert_refused (NULL, 0, "need at least 12");
  assert_refused (nadu_example, 11, "need at least 12");
  memcpy (p, nadu_example, sizeof (nadu_example));
  p[0] = 0x81;                  /* subtype 1 */
  assert_refused (p, sizeof (nadu_example), "FMT 1");
  memcpy (p, nadu_example, sizeof (nadu_example));
  p[1] = 203;                   /* BYE */
  assert_refused (p, sizeof (nadu_example), "type 203");
  memcpy (p, nadu_example, sizeof (nadu_example));
  p[11] = '1';                  /* PSS1: another 3GPP message */
  assert_refused (p, sizeof (nadu_example), "PSS0");
  assert_refused (nadu_example, 20, "length field says");
  /* the name alone, or a block cut short */
  memcpy (p, nadu_example, 12);
  p[3] = 2;
  assert_refused (p, 12, "0 data bytes");
  memcpy (p, nadu_example, sizeof (nadu_example));
  p[3] = 4;
  assert_refused (p, 20, "8 data bytes");
  /* padding in whole words only */
  memcpy (p, nadu_example, sizeof (nadu_example));
  p[0] |= 0x20;
  p[3] += 1;
  memset (p + sizeof (nadu_example), 0, 4);
  p[sizeof (nadu_example) + 3] = 4;
  {
    RtpccNadu *nadu = rtpcc_nadu_parse (p, sizeof (nadu_example) + 4, NULL);
    fail_unless (nadu != NULL && nadu->n_blocks == 1);
    rtpcc_nadu_free (nadu);
  }
  p[sizeof (nadu_example) + 3] = 2;
  assert_refused (p, sizeof (nadu_example) + 4, "padding");
}

GST_END_TEST;

/* Another implementation's packet: the NADU test packet of Darwin
 * Streaming Server (RTCPAPPNADUPacket.cpp), two blocks of playout delay
 * 11111 ms, NSN 22222, NUN 31 and FBS 44444, the reserved bits set (which
 * a receiver ignores). Read in the same field order, it gives the same
 * values. */
GST_START_TEST (test_other_implementation)
{
  static const guint8 dss[] = {
    0x80, 0xCC, 0x00, 0x08, 'S', 'S', 'R', 'C', 'P', 'S', 'S', '0',
    0x42, 0x3A, 0x35, 0xC7, 0x2B, 0x67, 0x56, 0xCE, 0xFF, 0xFF, 0xAD, 0x9C,
    0x84, 0x74, 0x6B, 0x8E, 0x2B, 0x67, 0x56, 0xCE, 0xFF, 0xFF, 0xAD, 0x9C,
  };
  g_autoptr (RtpccNadu) nadu = rtpcc_nadu_parse (dss, sizeof (dss), NULL);

  fail_unless (nadu != NULL && nadu->n_blocks == 2);
  fail_unless (nadu->blocks[0].ssrc == 1111111111u);
  fail_unless (nadu->blocks[1].ssrc == 2222222222u);
  for (guint i = 0; i < 2; i++) {
    fail_unless_equals_int (nadu->blocks[i].playout_delay, 11111);
    fail_unless_equals_int (nadu->blocks[i].nsn, 22222);
    fail_unless_equals_int (nadu->blocks[i].nun, 31);
    fail_unless_equals_int (nadu->blocks[i].fbs, 44444);
  }
}

GST_END_TEST;

GST_START_TEST (test_units)
{
  fail_unless_equals_int (rtpcc_nadu_delay_from_time (RTPCC_USEC (500999)),
      500);
  fail_unless_equals_int (rtpcc_nadu_delay_from_time (RTPCC_SEC (70)),
      0xFFFE);
  fail_unless_equals_int (rtpcc_nadu_delay_from_time (RTPCC_TIME_NONE),
      RTPCC_NADU_DELAY_UNSET);
  fail_unless_equals_int (rtpcc_nadu_delay_from_time (-RTPCC_MSEC (2)), 0);
  fail_unless_equals_int64 (rtpcc_nadu_delay_to_time (500), RTPCC_MSEC (500));
  fail_unless (rtpcc_nadu_delay_to_time (RTPCC_NADU_DELAY_UNSET) ==
      RTPCC_TIME_NONE);
  fail_unless_equals_int (rtpcc_nadu_fbs_from_bytes (1300), 20);
  fail_unless_equals_int (rtpcc_nadu_fbs_from_bytes (63), 0);
  fail_unless_equals_int (rtpcc_nadu_fbs_from_bytes (G_MAXUINT64), 65535);
}

GST_END_TEST;

GST_START_TEST (test_random_round_trip)
{
  RtpccRng rng;
  RtpccNaduBlock b[40];
  guint8 buf[12 + 12 * 40];

  rtpcc_rng_init (&rng, 26234);
  for (guint it = 0; it < 500; it++) {
    guint n = 1 + it % 40;
    gsize len;
    RtpccNadu *nadu;

    for (guint i = 0; i < n; i++) {
      guint64 x = rtpcc_rng_next_u64 (&rng);

      b[i].ssrc = (guint32) x;
      b[i].playout_delay = (guint16) (x >> 32);
      b[i].nsn = (guint16) (x >> 48);
      b[i].nun = (x >> 16) & 31;
      b[i].fbs = (guint16) rtpcc_rng_next_u64 (&rng);
    }
    len = rtpcc_nadu_write (buf, sizeof (buf), it, b, n);
    fail_unless_equals_int (len, 12 + 12 * n);
    nadu = rtpcc_nadu_parse (buf, len, NULL);
    fail_unless (nadu != NULL && nadu->n_blocks == n);
    fail_unless_equals_int (nadu->sender_ssrc, it);
    for (guint i = 0; i < n; i++) {
      fail_unless (nadu->blocks[i].ssrc == b[i].ssrc);
      fail_unless_equals_int (nadu->blocks[i].playout_delay,
          b[i].playout_delay);
      fail_unless_equals_int (nadu->blocks[i].nsn, b[i].nsn);
      fail_unless_equals_int (nadu->blocks[i].nun, b[i].nun);
      fail_unless_equals_int (nadu->blocks[i].fbs, b[i].fbs);
    }
    rtpcc_nadu_free (nadu);
    for (gsize cut = 0; cut < len; cut += 1 + len / 8)
      fail_unless (rtpcc_nadu_parse (buf, cut, NULL) == NULL);
  }
}

GST_END_TEST;

/* In a compound: the block about the media asked for, after an RR; an APP
 * of another name is ignored, a malformed "PSS0" counted. */
GST_START_TEST (test_find_in_compound)
{
  RtpccNaduBlock b[2] = {
    {0x1111, 80, 7, 0, 10}, {0x2222, 120, 9, 0, 20},
  }, got;
  RtpccRtcpRR rr;
  guint8 buf[256];
  guint64 rejected = 0;
  gsize n, m;

  memset (&rr, 0, sizeof (rr));
  rr.ssrc = 0x3333;
  n = rtpcc_rtcp_write_rr (buf, sizeof (buf), &rr);
  m = rtpcc_nadu_write (buf + n, sizeof (buf) - n, 0x3333, b, 2);
  fail_unless (n > 0 && m > 0);
  fail_unless (rtpcc_nadu_find (buf, n + m, 0x2222, &got, &rejected));
  fail_unless_equals_int (got.playout_delay, 120);
  fail_unless_equals_int (got.nsn, 9);
  fail_if (rtpcc_nadu_find (buf, n + m, 0x4444, &got, &rejected));
  fail_if (rtpcc_nadu_find (buf, n + m, 0, &got, &rejected));
  fail_unless_equals_uint64 (rejected, 0);
  /* another name: not NADU, not counted */
  memcpy (buf + n + 8, "ABCD", 4);
  fail_if (rtpcc_nadu_find (buf, n + m, 0x2222, &got, &rejected));
  fail_unless_equals_uint64 (rejected, 0);
  /* "PSS0" again, but 4 bytes longer than its blocks (2 + 3 n words):
   * malformed, counted, and the other block not taken from it */
  memcpy (buf + n + 8, "PSS0", 4);
  buf[n + 3] = (guint8) ((m + 4) / 4 - 1);
  memset (buf + n + m, 0, 4);
  fail_if (rtpcc_nadu_find (buf, n + m + 4, 0x1111, &got, &rejected));
  fail_unless_equals_uint64 (rejected, 1);
  fail_if (rtpcc_nadu_find (NULL, 0, 0x1111, &got, NULL));
}

GST_END_TEST;

GST_START_TEST (test_gst_rtcp_buffer_reads_ours)
{
  GstBuffer *gbuf = gst_buffer_new_memdup (nadu_example,
      sizeof (nadu_example));
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket packet;

  fail_unless (gst_rtcp_buffer_validate_reduced (gbuf));
  fail_unless (gst_rtcp_buffer_map (gbuf, GST_MAP_READ, &rtcp));
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &packet));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&packet),
      GST_RTCP_TYPE_APP);
  fail_unless_equals_int (gst_rtcp_packet_app_get_subtype (&packet), 0);
  fail_unless (gst_rtcp_packet_app_get_ssrc (&packet) == 0x11223344);
  fail_unless (strncmp (gst_rtcp_packet_app_get_name (&packet), "PSS0",
          4) == 0);
  fail_unless_equals_int (gst_rtcp_packet_app_get_data_length (&packet), 3);
  fail_unless (memcmp (gst_rtcp_packet_app_get_data (&packet),
          nadu_example + 12, 12) == 0);
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (gbuf);
}

GST_END_TEST;

/* tshark 4.0 knows no PSS0 message: it shows the APP header and the data
 * as bytes, which must be ours. */
GST_START_TEST (test_tshark_dissection)
{
  gchar *tshark = tshark_find ("test_tshark_dissection");
  GByteArray *pcap;
  gchar *dir, *file, *out;
  guint8 pkt[256];
  gsize n;
  RtpccNaduBlock b = { 0x99AABBCC, 120, 65535, 0, 1000 };

  if (tshark == NULL)
    return;

  pcap = test_pcap_new ();
  test_pcap_add (pcap, 1, TSHARK_RTCP_PORT, nadu_example,
      sizeof (nadu_example));
  /* 2: RR + SDES + NADU, as a receiver sends it */
  n = test_rtcp_rr_sdes (pkt, sizeof (pkt), 0x11223344);
  n += rtpcc_nadu_write (pkt + n, sizeof (pkt) - n, 0x11223344, &b, 1);
  test_pcap_add (pcap, 2, TSHARK_RTCP_PORT, pkt, n);
  file = test_pcap_save (pcap, "rtpcc-nadu-XXXXXX", "nadu.pcap", &dir);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_no_warnings (out);
  g_free (out);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "frame.number", "-e", "rtcp.pt", "-e", "rtcp.length_check",
      "-e", "rtcp.app.subtype", "-e", "rtcp.app.name", "-e", "rtcp.app.data",
      NULL});
  {
    const gchar *want[] = {
      "1;204;1;0;PSS0;5566778801f403e800030014",
      /* 120 ms = 0x78, NSN 65535, NUN 0, FBS 1000 = 0x3E8 */
      "2;201,202,204;1;0;PSS0;99aabbcc0078ffff000003e8",
    };
    tshark_assert_lines (out, want, G_N_ELEMENTS (want));
  }
  g_free (out);

  test_pcap_remove (file, dir);
  g_free (tshark);
}

GST_END_TEST;

static Suite *
rtpcc_nadu_suite (void)
{
  Suite *s = suite_create ("rtpcc_nadu");
  TCase *tc = tcase_create ("nadu");
  TCase *tc_interop = tcase_create ("interop");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_layout);
  tcase_add_test (tc, test_malformed);
  tcase_add_test (tc, test_other_implementation);
  tcase_add_test (tc, test_units);
  tcase_add_test (tc, test_random_round_trip);
  tcase_add_test (tc, test_find_in_compound);

  suite_add_tcase (s, tc_interop);
  tcase_set_timeout (tc_interop, 120);
  tcase_add_test (tc_interop, test_gst_rtcp_buffer_reads_ours);
  tcase_add_test (tc_interop, test_tshark_dissection);
  return s;
}

GST_CHECK_MAIN (rtpcc_nadu);

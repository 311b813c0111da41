/* Unit tests for the Multipath RTP wire formats (gst/rtpcc/mprtp/ext.[ch]):
 * exact bytes of the subflow header extension and of MPRTCP subflow
 * reports, round trips, every truncation and corruption, and tshark's
 * dissection.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#include "tshark-util.h"

/* A 12-byte RTP header (seq 0x1234, ts 0x01020304, SSRC 0xCAFEBABE,
 * PT 96, marker) and 4 payload bytes. */
static gsize
make_rtp (guint8 * p)
{
  static const guint8 rtp[] = {
    0x80, 0xE0, 0x12, 0x34, 0x01, 0x02, 0x03, 0x04,
    0xCA, 0xFE, 0xBA, 0xBE, 'd', 'a', 't', 'a'
  };
  memcpy (p, rtp, sizeof rtp);
  return sizeof rtp;
}

GST_START_TEST (test_subflow_element_bytes)
{
  RtpccMprtpSubflow sf = { 0xA1B2, 0xFFFE }, back;
  guint8 d[8];
  static const guint8 want[] = { 0x04, 0xA1, 0xB2, 0xFF, 0xFE };

  fail_unless_equals_int (rtpcc_mprtp_subflow_write (d, 4, &sf), 0);
  fail_unless_equals_int (rtpcc_mprtp_subflow_write (d, sizeof d, &sf), 5);
  fail_unless (memcmp (d, want, 5) == 0);
  fail_unless (rtpcc_mprtp_subflow_parse (d, 5, &back));
  fail_unless_equals_int (back.subflow_id, 0xA1B2);
  fail_unless_equals_int (back.fssn, 0xFFFE);
  /* exactly 5 bytes, MPID 0, inner length 4 */
  fail_if (rtpcc_mprtp_subflow_parse (d, 4, &back));
  fail_if (rtpcc_mprtp_subflow_parse (d, 6, &back));
  fail_if (rtpcc_mprtp_subflow_parse (NULL, 5, &back));
  d[0] = 0x14;
  fail_if (rtpcc_mprtp_subflow_parse (d, 5, &back));
  d[0] = 0x03;
  fail_if (rtpcc_mprtp_subflow_parse (d, 5, &back));
}

GST_END_TEST;

/* Added to a packet without extension: draft §9.1.1 figure 8 exactly. */
GST_START_TEST (test_subflow_in_packet)
{
  guint8 p[64], out[64], out2[64], back[64];
  gsize n = make_rtp (p), m, m2, b;
  RtpccMprtpSubflow sf = { 2, 0x0102 }, got;
  static const guint8 want[] = {
    0x90, 0xE0, 0x12, 0x34, 0x01, 0x02, 0x03, 0x04,
    0xCA, 0xFE, 0xBA, 0xBE,
    0xBE, 0xDE, 0x00, 0x02,
    0x34, 0x04, 0x00, 0x02, 0x01, 0x02, 0x00, 0x00,
    'd', 'a', 't', 'a'
  };
  guint16 tw;

  m = rtpcc_mprtp_add_subflow (p, n, 3, &sf, out, sizeof out);
  fail_unless_equals_int (m, sizeof want);
  fail_unless (memcmp (out, want, m) == 0);
  /* 12 bytes of overhead alone */
  fail_unless_equals_int (m - n, 12);
  fail_unless (rtpcc_mprtp_read_subflow (out, m, 3, &got));
  fail_unless_equals_int (got.subflow_id, 2);
  fail_unless_equals_int (got.fssn, 0x0102);
  fail_if (rtpcc_mprtp_read_subflow (out, m, 4, &got));
  fail_if (rtpcc_mprtp_read_subflow (p, n, 3, &got));
  /* the media's header fields are untouched */
  {
    RtpccRtpLayout l;
    fail_unless (rtpcc_rtp_parse_layout (out, m, &l));
    fail_unless_equals_int (l.seq, 0x1234);
    fail_unless_equals_int (l.ssrc, 0xCAFEBABE);
    fail_unless_equals_int (l.payload_len, 4);
  }
  /* the receiver hands on the packet as it was */
  b = rtpcc_rtp_strip_extension (out, m, 3, back, sizeof back);
  fail_unless_equals_int (b, n);
  fail_unless (memcmp (back, p, n) == 0);

  /* after a TWCC element: 3 + 6 bytes, padded to 12 */
  m = rtpcc_rtp_add_twcc_seq (p, n, 5, 0xBEEF, out, sizeof out);
  m2 = rtpcc_mprtp_add_subflow (out, m, 3, &sf, out2, sizeof out2);
  fail_unless_equals_int (m2, n + 4 + 12);
  fail_unless_equals_int (out2[15], 3);
  fail_unless (rtpcc_mprtp_read_subflow (out2, m2, 3, &got));
  fail_unless_equals_int (got.fssn, 0x0102);
  fail_unless (rtpcc_rtp_read_twcc_seq (out2, m2, 5, &tw));
  fail_unless_equals_int (tw, 0xBEEF);
  /* no room, or the ID already there */
  fail_unless_equals_int (rtpcc_mprtp_add_subflow (p, n, 3, &sf, out,
          sizeof want - 1), 0);
  fail_unless_equals_int (rtpcc_mprtp_add_subflow (out2, m2, 3, &sf, out,
          sizeof out), 0);
  fail_unless_equals_int (rtpcc_mprtp_add_subflow (p, n, 15, &sf, out,
          sizeof out), 0);
}

GST_END_TEST;

/* Every truncation and every single-byte corruption: never a crash, and a
 * subflow read back is only ever one that is really in the bytes. */
/* A path's sender is given the header numbered by the FSSN; the wire gets
 * the media seq back, everything else as the sender wrote it. */
GST_START_TEST (test_subflow_numbering)
{
  guint8 p[64], tagged[64], head[64], wire[64];
  gsize n = make_rtp (p), m, h;
  RtpccMprtpSubflow sf = { 2, 0xBEEF };

  m = rtpcc_mprtp_add_subflow (p, n, 3, &sf, tagged, sizeof tagged);
  fail_unless (m > n);
  h = rtpcc_mprtp_subflow_header (tagged, m, 3, head, sizeof head);
  fail_unless_equals_int (h, m - 4);    /* the header, not the payload */
  fail_unless_equals_int (head[2], 0xBE);
  fail_unless_equals_int (head[3], 0xEF);
  fail_unless (memcmp (head, tagged, 2) == 0);
  fail_unless (memcmp (head + 4, tagged + 4, h - 4) == 0);
  /* absent element, wrong id, not RTP, no room: nothing */
  fail_unless_equals_int (rtpcc_mprtp_subflow_header (p, n, 3, head,
          sizeof head), 0);
  fail_unless_equals_int (rtpcc_mprtp_subflow_header (tagged, m, 4, head,
          sizeof head), 0);
  fail_unless_equals_int (rtpcc_mprtp_subflow_header (tagged, 8, 3, head,
          sizeof head), 0);
  fail_unless_equals_int (rtpcc_mprtp_subflow_header (tagged, m, 3, head,
          h - 1), 0);

  /* the sender changed a byte of its own (the marker): kept; the seq is
   * the media's again */
  head[1] &= 0x7f;
  fail_unless_equals_int (rtpcc_mprtp_wire_header (head, h, tagged, m, wire,
          sizeof wire), h);
  fail_unless_equals_int (wire[2], 0x12);
  fail_unless_equals_int (wire[3], 0x34);
  fail_unless_equals_int (wire[1], head[1]);
  fail_unless (memcmp (wire + 4, head + 4, h - 4) == 0);
  fail_unless_equals_int (rtpcc_mprtp_wire_header (head, 8, tagged, m, wire,
          sizeof wire), 0);
  fail_unless_equals_int (rtpcc_mprtp_wire_header (head, h, tagged, 8, wire,
          sizeof wire), 0);
  fail_unless_equals_int (rtpcc_mprtp_wire_header (head, h, tagged, m, wire,
          h - 1), 0);
}

GST_END_TEST;

GST_START_TEST (test_subflow_truncated_and_corrupt)
{
  guint8 p[64], out[64], bad[64];
  gsize n = make_rtp (p), m;
  RtpccMprtpSubflow sf = { 7, 9 }, got;

  m = rtpcc_mprtp_add_subflow (p, n, 1, &sf, out, sizeof out);
  for (gsize len = 0; len < m; len++) {
    /* the block ends at byte 24: any shorter packet has no valid block */
    gboolean ok = rtpcc_mprtp_read_subflow (out, len, 1, &got);
    fail_unless (ok == (len >= 24), "len %" G_GSIZE_FORMAT, len);
  }
  for (gsize i = 0; i < m; i++) {
    for (guint bit = 0; bit < 8; bit++) {
      memcpy (bad, out, m);
      bad[i] ^= (guint8) (1 << bit);
      if (rtpcc_mprtp_read_subflow (bad, m, 1, &got)) {
        fail_unless ((got.subflow_id == 7 && got.fssn == 9) || (i >= 18
                && i <= 21), "byte %" G_GSIZE_FORMAT, i);
      }
    }
  }
}

GST_END_TEST;

static void
fill_report (RtpccMprtpSubflowReport * r, guint16 id, guint8 frac,
    gint32 cum, guint32 high, gboolean discards, guint32 count)
{
  memset (r, 0, sizeof (*r));
  r->subflow_id = id;
  r->rr.fraction_lost = frac;
  r->rr.cumulative_lost = cum;
  r->rr.ext_highest_seq = high;
  r->rr.jitter = 77;
  r->rr.lsr = 0x11223344;
  r->rr.dlsr = 0x00010000;
  r->has_discards = discards;
  r->discards = count;
}

GST_START_TEST (test_mprtcp_bytes)
{
  RtpccMprtpSubflowReport r[2];
  RtpccMprtcp m;
  guint8 buf[256];
  gsize n;
  static const guint8 want[] = {
    /* MPRTCP header: 12 + 36 + 56 bytes = 26 words, length 25 */
    0x80, 211, 0x00, 25,
    0x11, 0x11, 0x11, 0x11,     /* sender */
    0x22, 0x22, 0x22, 0x22,     /* media */
    /* block 1: subflow 0, 8 words after the first: the RR */
    0x00, 8, 0x00, 0x00,
    0x81, 201, 0x00, 7, 0x11, 0x11, 0x11, 0x11,
    0x22, 0x22, 0x22, 0x22, 25, 0x00, 0x00, 0x09,
    0x00, 0x00, 0x01, 0x2c, 0x00, 0x00, 0x00, 77,
    0x11, 0x22, 0x33, 0x44, 0x00, 0x01, 0x00, 0x00,
    /* block 2: subflow 1, RR + XR discard count (13 words) */
    0x00, 13, 0x00, 0x01,
    0x81, 201, 0x00, 7, 0x11, 0x11, 0x11, 0x11,
    0x22, 0x22, 0x22, 0x22, 0, 0x00, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00, 77,
    0x11, 0x22, 0x33, 0x44, 0x00, 0x01, 0x00, 0x00,
    0x80, 207, 0x00, 4, 0x11, 0x11, 0x11, 0x11,
    24, 0xC0, 0x00, 2, 0x22, 0x22, 0x22, 0x22,
    0x00, 0x00, 0x00, 42,
  };

  fill_report (&r[0], 0, 25, 9, 300, FALSE, 0);
  fill_report (&r[1], 1, 0, 0, 0x10005, TRUE, 42);
  fail_unless_equals_int (rtpcc_mprtcp_block_size (&r[0]), 36);
  fail_unless_equals_int (rtpcc_mprtcp_block_size (&r[1]), 56);
  n = rtpcc_mprtcp_write (buf, sizeof buf, 0x11111111, 0x22222222, r, 2);
  fail_unless_equals_int (n, sizeof want);
  fail_unless (memcmp (buf, want, n) == 0);
  /* one byte short, no report, too many reports */
  fail_unless_equals_int (rtpcc_mprtcp_write (buf, n - 1, 1, 2, r, 2), 0);
  fail_unless_equals_int (rtpcc_mprtcp_write (buf, sizeof buf, 1, 2, r, 0),
      0);
  fail_unless_equals_int (rtpcc_mprtcp_write (buf, sizeof buf, 1, 2, r,
          RTPCC_MPRTCP_MAX_REPORTS + 1), 0);

  n = rtpcc_mprtcp_write (buf, sizeof buf, 0x11111111, 0x22222222, r, 2);
  fail_unless (rtpcc_mprtcp_parse (buf, n, &m));
  fail_unless_equals_int (m.sender_ssrc, 0x11111111);
  fail_unless_equals_int (m.media_ssrc, 0x22222222);
  fail_unless_equals_int (m.n_reports, 2);
  fail_unless_equals_int (m.n_skipped, 0);
  fail_unless_equals_int (m.reports[0].subflow_id, 0);
  fail_unless_equals_int (m.reports[0].rr.fraction_lost, 25);
  fail_unless_equals_int (m.reports[0].rr.cumulative_lost, 9);
  fail_unless_equals_int (m.reports[0].rr.ext_highest_seq, 300);
  fail_unless_equals_int (m.reports[0].rr.jitter, 77);
  fail_unless_equals_int (m.reports[0].rr.lsr, 0x11223344);
  fail_unless_equals_int (m.reports[0].rr.dlsr, 0x00010000);
  fail_unless_equals_int (m.reports[0].rr.ssrc, 0x22222222);
  fail_if (m.reports[0].has_discards);
  fail_unless_equals_int (m.reports[1].subflow_id, 1);
  fail_unless_equals_int (m.reports[1].rr.ext_highest_seq, 0x10005);
  fail_unless (m.reports[1].has_discards);
  fail_unless_equals_int (m.reports[1].discards, 42);
  /* the whole datagram is valid RTCP for the generic iterator too */
  {
    RtpccRtcpIter it;
    RtpccRtcpPacket pkt;
    fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
    fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
    fail_unless_equals_int (pkt.pt, 211);
    fail_if (rtpcc_rtcp_iter_next (&it, &pkt));
  }
}

GST_END_TEST;

/* Truncations, bad lengths, bad inner RTCP, unknown block types. */
GST_START_TEST (test_mprtcp_malformed)
{
  RtpccMprtpSubflowReport r[2];
  RtpccMprtcp m;
  guint8 buf[256], bad[256];
  gsize n;

  fill_report (&r[0], 4, 1, 2, 3, TRUE, 5);
  fill_report (&r[1], 5, 1, 2, 3, FALSE, 0);
  n = rtpcc_mprtcp_write (buf, sizeof buf, 1, 2, r, 2);
  fail_unless (n > 0);

  /* every truncation of the datagram */
  for (gsize len = 0; len < n; len++)
    fail_if (rtpcc_mprtcp_parse (buf, len, &m), "len %" G_GSIZE_FORMAT, len);
  /* one byte changed, each case refused */
  {
    static const struct
    {
      guint offset;
      guint8 value;
      const gchar *what;
    } bad_bytes[] = {
      {3, 24, "the header's length shorter than the blocks"},
      {13, 200, "a block length past the packet"},
      {13, 7, "a block length that cuts the inner RR"},
      {24, 0x01, "the inner RR about another SSRC (2 + 2^24)"},
      {16, 0x80, "an inner RR with no report block"},
      {56, 25, "an XR block of another type"},
      {0, 0x40, "version 1"},
      {1, 210, "another PT"},
    };
    for (guint i = 0; i < G_N_ELEMENTS (bad_bytes); i++) {
      memcpy (bad, buf, n);
      bad[bad_bytes[i].offset] = bad_bytes[i].value;
      fail_if (rtpcc_mprtcp_parse (bad, n, &m), "%s", bad_bytes[i].what);
    }
  }
  fail_if (rtpcc_mprtcp_parse (NULL, n, &m));

  /* a block of another MPRTCP type (an interface advertisement) is
   * skipped and counted; the subflow reports around it still count */
  memcpy (bad, buf, 12);
  bad[12] = 1;
  bad[13] = 2;
  bad[14] = 0x13;
  bad[15] = 0x8c;
  memset (bad + 16, 0, 8);
  memcpy (bad + 24, buf + 12, n - 12);
  bad[3] = (guint8) ((n + 12) / 4 - 1);
  fail_unless (rtpcc_mprtcp_parse (bad, n + 12, &m));
  fail_unless_equals_int (m.n_reports, 2);
  fail_unless_equals_int (m.n_skipped, 1);
  fail_unless_equals_int (m.reports[0].subflow_id, 4);
  fail_unless_equals_int (m.reports[0].discards, 5);
  /* only that block: no subflow report, not a report at all */
  bad[3] = 5;
  fail_if (rtpcc_mprtcp_parse (bad, 24, &m));

  /* every single-bit corruption: never a crash; what parses has the
   * structure we wrote */
  for (gsize i = 0; i < n; i++) {
    for (guint bit = 0; bit < 8; bit++) {
      memcpy (bad, buf, n);
      bad[i] ^= (guint8) (1 << bit);
      if (rtpcc_mprtcp_parse (bad, n, &m))
        fail_unless (m.n_reports >= 1 && m.n_reports <= 2);
    }
  }
}

GST_END_TEST;

/* In a compound after RR + SDES, and alone (reduced size). */
GST_START_TEST (test_mprtcp_find)
{
  RtpccMprtpSubflowReport r;
  RtpccMprtcp m;
  RtpccRtcpRR rr = { 0 };
  guint8 buf[256];
  gsize n = 0;

  fill_report (&r, 9, 0, 0, 10, FALSE, 0);
  rr.ssrc = 1;
  n += rtpcc_rtcp_write_rr (buf, sizeof buf, &rr);
  n += rtpcc_rtcp_write_sdes_cname (buf + n, sizeof buf - n, 1, "x@y");
  fail_if (rtpcc_mprtcp_find (buf, n, &m));
  n += rtpcc_mprtcp_write (buf + n, sizeof buf - n, 1, 2, &r, 1);
  fail_unless (rtpcc_mprtcp_find (buf, n, &m));
  fail_unless_equals_int (m.reports[0].subflow_id, 9);
  n = rtpcc_mprtcp_write (buf, sizeof buf, 1, 2, &r, 1);
  fail_unless (rtpcc_mprtcp_find (buf, n, &m));
  fail_if (rtpcc_mprtcp_find (buf, n - 4, &m));
}

GST_END_TEST;

/* ---- tshark ------------------------------------------------------------ */

#define PCAP_RTCP_PORT 5005
#define PCAP_RTP_PORT 5006

static const gchar *const tshark_opts[] = {
  "-d", "udp.port==" G_STRINGIFY (PCAP_RTCP_PORT) ",rtcp",
  "-d", "udp.port==" G_STRINGIFY (PCAP_RTP_PORT) ",rtp", NULL
};

/* tshark knows RTP and RFC 8285 one-byte elements (not the MPRTP
 * meaning): the media header and our element's ID, length and bytes must
 * read as written. tshark 4.0 knows no RTCP PT 211 (the draft's number was
 * never assigned by IANA): a lone MPRTCP datagram is not taken for RTCP at
 * all, and after RR + SDES in a compound its dissection stops cleanly at
 * PT 211; neither may be called malformed. The MPRTCP layout is checked
 * byte by byte in test_mprtcp_bytes instead. */
GST_START_TEST (test_tshark_dissection)
{
  gchar *tshark = tshark_find ("test_tshark_dissection");
  GByteArray *pcap;
  guint8 p[64], out[64], buf[256];
  gsize n, m;
  gchar *dir, *file, *txt;
  RtpccMprtpSubflow sf = { 1, 0xABCD };
  RtpccMprtpSubflowReport r;
  RtpccRtcpRR rr = { 0 };

  if (tshark == NULL)
    return;
  pcap = test_pcap_new ();
  n = make_rtp (p);
  m = rtpcc_mprtp_add_subflow (p, n, 3, &sf, out, sizeof out);
  test_pcap_add (pcap, 1, PCAP_RTP_PORT, out, m);
  fill_report (&r, 1, 12, 3, 70000, TRUE, 4);
  n = rtpcc_mprtcp_write (buf, sizeof buf, 0x11111111, 0xCAFEBABE, &r, 1);
  test_pcap_add (pcap, 2, PCAP_RTCP_PORT, buf, n);
  rr.ssrc = 0x11111111;
  n = rtpcc_rtcp_write_rr (buf, sizeof buf, &rr);
  n += rtpcc_rtcp_write_sdes_cname (buf + n, sizeof buf - n, 0x11111111,
      "mprtp@example.org");
  n += rtpcc_mprtcp_write (buf + n, sizeof buf - n, 0x11111111, 0xCAFEBABE,
      &r, 1);
  test_pcap_add (pcap, 3, PCAP_RTCP_PORT, buf, n);
  file = test_pcap_save (pcap, "rtpcc-mprtp-XXXXXX", "mprtp.pcap", &dir);

  txt = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_clean (txt);
  fail_unless (strstr (txt, "RFC 5285 Header Extension (One-Byte Header)")
      != NULL, "%s", txt);
  fail_unless (strstr (txt, "mprtp@example.org") != NULL, "%s", txt);
  g_free (txt);

  txt = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "frame.number", "-e", "rtp.seq", "-e", "rtp.ssrc",
      "-e", "rtp.ext.rfc5285.id", "-e", "rtp.ext.rfc5285.len",
      "-e", "rtp.ext.rfc5285.data", "-e", "rtcp.pt", NULL});
  {
    gchar **lines = g_strsplit (txt, "\n", -1);
    fail_unless_equals_string (lines[0],
        "1;4660;0xcafebabe;3;5;040001abcd;");
    fail_unless_equals_string (lines[1], "2;;;;;;");
    fail_unless_equals_string (lines[2], "3;;;;;;201,202");
    g_strfreev (lines);
  }
  g_free (txt);
  test_pcap_remove (file, dir);
  g_free (tshark);
}

GST_END_TEST;

static Suite *
rtpcc_mprtp_ext_suite (void)
{
  Suite *s = suite_create ("rtpcc_mprtp_ext");
  TCase *tc = tcase_create ("subflow");
  TCase *tc_rtcp = tcase_create ("mprtcp");
  TCase *tc_tshark = tcase_create ("tshark");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_subflow_element_bytes);
  tcase_add_test (tc, test_subflow_in_packet);
  tcase_add_test (tc, test_subflow_numbering);
  tcase_add_test (tc, test_subflow_truncated_and_corrupt);
  suite_add_tcase (s, tc_rtcp);
  tcase_add_test (tc_rtcp, test_mprtcp_bytes);
  tcase_add_test (tc_rtcp, test_mprtcp_malformed);
  tcase_add_test (tc_rtcp, test_mprtcp_find);
  suite_add_tcase (s, tc_tshark);
  tcase_set_timeout (tc_tshark, 120);
  tcase_add_test (tc_tshark, test_tshark_dissection);
  return s;
}

GST_CHECK_MAIN (rtpcc_mprtp_ext);

/* Unit tests for the feedback wire formats (gst/rtpcc/feedback/): RTCP
 * (RFC 3550), CCFB (RFC 8888) and the arrival log, against hand-assembled
 * bytes, RFC examples, and tshark's dissection.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <glib/gstdio.h>
#include <string.h>

#include "assert-bytes.h"
#include "tshark-util.h"

/* ---- NTP and RTT ------------------------------------------------------- */

GST_START_TEST (test_ntp_conversions)
{
  /* 3 900 000 000 s after 1900 = 0xE8754700; +1.25 s → 0xE8754701.40000000 */
  RtpccTime off = RTPCC_SEC (G_GINT64_CONSTANT (3900000000));
  guint64 ntp = rtpcc_ntp_from_time (RTPCC_MSEC (1250), off);

  fail_unless (ntp == G_GUINT64_CONSTANT (0xE875470140000000),
      "ntp 0x%016" G_GINT64_MODIFIER "x", ntp);
  fail_unless_equals_int64 (rtpcc_ntp_to_time (ntp, off), RTPCC_MSEC (1250));

  /* era wrap: the seconds are taken modulo 2^32 */
  ntp = rtpcc_ntp_from_time (RTPCC_SEC (7),
      RTPCC_SEC (G_GINT64_CONSTANT (4294967296)));
  fail_unless (ntp == G_GUINT64_CONSTANT (7) << 32);

  /* before the epoch → 0, NONE → 0 */
  fail_unless (rtpcc_ntp_from_time (-RTPCC_SEC (5), RTPCC_SEC (1)) == 0);
  fail_unless (rtpcc_ntp_from_time (RTPCC_TIME_NONE, 0) == 0);

  /* 1 ns is 4.29 fraction units: truncation, and the inverse recovers it */
  for (RtpccTime t = 0; t < 2000; t += 7) {
    RtpccTime tt = RTPCC_SEC (12345) + t;
    fail_unless_equals_int64 (rtpcc_ntp_to_time (rtpcc_ntp_from_time (tt,
                off), off), tt);
  }

  fail_unless (rtpcc_ntp_short (G_GUINT64_CONSTANT (0x0123456789ABCDEF)) ==
      0x456789AB);
  fail_unless_equals_int64 (rtpcc_ntp_short_to_time (0x00018000),
      RTPCC_MSEC (1500));
  fail_unless_equals_int64 (rtpcc_ntp_short_to_time (1), 15259);  /* 15258.79 */
  fail_unless (rtpcc_ntp_short_from_time (RTPCC_MSEC (5250)) == 0x00054000);
  fail_unless (rtpcc_ntp_short_from_time (-1) == 0);
  fail_unless (rtpcc_ntp_short_from_time (RTPCC_SEC (70000)) == G_MAXUINT32);
}

GST_END_TEST;

GST_START_TEST (test_rtt_from_lsr)
{
  /* RFC 3550 §6.4.1, Figure 2: A = 0xb710:8000, LSR = 0xb705:2000,
   * DLSR = 0x0005:4000 → delay 0x0006:2000 = 6.125 s */
  fail_unless_equals_int64 (rtpcc_rtcp_rtt_from_lsr (0xb7108000, 0xb7052000,
          0x00054000), RTPCC_MSEC (6125));

  /* across the 16.16 wrap: LSR 65535.5 s, A 1.25 s after the wrap (1.75 s
   * later), DLSR 1 s → 0.75 s */
  fail_unless_equals_int64 (rtpcc_rtcp_rtt_from_lsr (0x00014000, 0xFFFF8000,
          0x00010000), RTPCC_MSEC (750));

  /* no SR yet */
  fail_unless (rtpcc_rtcp_rtt_from_lsr (0x00014000, 0, 0) == RTPCC_TIME_NONE);
  /* DLSR larger than the elapsed time: negative */
  fail_unless (rtpcc_rtcp_rtt_from_lsr (0x00050000, 0x00040000,
          0x00020000) == RTPCC_TIME_NONE);
  /* a unit of truncation below zero is a zero RTT, not junk */
  fail_unless_equals_int64 (rtpcc_rtcp_rtt_from_lsr (0x00050000, 0x00040000,
          0x00010001), 0);
  /* 100 s is not a round trip */
  fail_unless (rtpcc_rtcp_rtt_from_lsr (0x00650000, 0x00010000,
          0) == RTPCC_TIME_NONE);
}

GST_END_TEST;

/* ---- SR / RR / SDES ---------------------------------------------------- */

static void
fill_block (RtpccRtcpReportBlock * b, guint32 ssrc, guint8 frac, gint32 lost,
    guint32 ext, guint32 jitter, guint32 lsr, guint32 dlsr)
{
  b->ssrc = ssrc;
  b->fraction_lost = frac;
  b->cumulative_lost = lost;
  b->ext_highest_seq = ext;
  b->jitter = jitter;
  b->lsr = lsr;
  b->dlsr = dlsr;
}

GST_START_TEST (test_sr_layout_and_round_trip)
{
  static const guint8 want[] = {
    0x81, 0xC8, 0x00, 0x0C,     /* V=2 RC=1, PT 200, length 12 */
    0x01, 0x02, 0x03, 0x04,     /* SSRC */
    0xAA, 0xBB, 0xCC, 0xDD, 0x11, 0x22, 0x33, 0x44,     /* NTP */
    0x55, 0x66, 0x77, 0x88,     /* RTP ts */
    0x00, 0x00, 0x00, 0x0A,     /* packets */
    0x00, 0x00, 0x03, 0xE8,     /* octets */
    0x0A, 0x0B, 0x0C, 0x0D,     /* block SSRC */
    0x40, 0xFF, 0xFF, 0xFD,     /* fraction 64, cumulative −3 */
    0x00, 0x01, 0x00, 0x05,     /* ext highest seq */
    0x00, 0x00, 0x00, 0x11,     /* jitter */
    0xB7, 0x05, 0x20, 0x00,     /* LSR */
    0x00, 0x05, 0x40, 0x00,     /* DLSR */
  };
  RtpccRtcpSR sr = { 0 }, back;
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  guint8 buf[256];
  gsize n;

  sr.ssrc = 0x01020304;
  sr.ntp = G_GUINT64_CONSTANT (0xAABBCCDD11223344);
  sr.rtp_ts = 0x55667788;
  sr.packet_count = 10;
  sr.octet_count = 1000;
  sr.n_blocks = 1;
  fill_block (&sr.blocks[0], 0x0A0B0C0D, 64, -3, 0x00010005, 17, 0xB7052000,
      0x00054000);

  n = rtpcc_rtcp_write_sr (buf, sizeof (buf), &sr);
  assert_bytes (buf, n, want);
  /* one byte short: refused, nothing claimed */
  fail_unless_equals_int (rtpcc_rtcp_write_sr (buf, sizeof (want) - 1, &sr), 0);
  sr.n_blocks = 32;
  fail_unless_equals_int (rtpcc_rtcp_write_sr (buf, sizeof (buf), &sr), 0);

  fail_unless (rtpcc_rtcp_iter_init (&it, want, sizeof (want)));
  fail_if (it.reduced_size);
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless_equals_int (pkt.pt, RTPCC_RTCP_SR);
  fail_unless_equals_int (pkt.count, 1);
  fail_unless (rtpcc_rtcp_parse_sr (&pkt, &back));
  fail_unless (back.ssrc == 0x01020304);
  fail_unless (back.ntp == G_GUINT64_CONSTANT (0xAABBCCDD11223344));
  fail_unless (back.rtp_ts == 0x55667788);
  fail_unless_equals_int (back.packet_count, 10);
  fail_unless_equals_int (back.octet_count, 1000);
  fail_unless_equals_int (back.n_blocks, 1);
  fail_unless (back.blocks[0].ssrc == 0x0A0B0C0D);
  fail_unless_equals_int (back.blocks[0].fraction_lost, 64);
  fail_unless_equals_int (back.blocks[0].cumulative_lost, -3);
  fail_unless (back.blocks[0].ext_highest_seq == 0x00010005);
  fail_unless_equals_int (back.blocks[0].jitter, 17);
  fail_unless (back.blocks[0].lsr == 0xB7052000);
  fail_unless (back.blocks[0].dlsr == 0x00054000);
  fail_if (rtpcc_rtcp_iter_next (&it, &pkt));
  /* an SR is not an RR */
  {
    RtpccRtcpRR rr;
    fail_if (rtpcc_rtcp_parse_rr (&pkt, &rr));
  }
}

GST_END_TEST;

GST_START_TEST (test_rr_layout_and_clamp)
{
  static const guint8 want[] = {
    0x82, 0xC9, 0x00, 0x0D,     /* V=2 RC=2, PT 201, length 13 */
    0xDE, 0xAD, 0xBE, 0xEF,
    0x00, 0x00, 0x00, 0x01,
    0xFF, 0x7F, 0xFF, 0xFF,     /* fraction 255, lost clamped to +0x7FFFFF */
    0x00, 0x00, 0xFF, 0xFF,
    0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02,
    0x00, 0x80, 0x00, 0x00,     /* lost clamped to −0x800000 */
    0x12, 0x34, 0x56, 0x78,
    0x00, 0x00, 0x01, 0x00,
    0x11, 0x11, 0x22, 0x22,
    0x00, 0x00, 0x80, 0x00,
  };
  RtpccRtcpRR rr = { 0 }, back;
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  guint8 buf[256];
  gsize n;

  rr.ssrc = 0xDEADBEEF;
  rr.n_blocks = 2;
  fill_block (&rr.blocks[0], 1, 255, 10000000, 0xFFFF, 0, 0, 0);
  fill_block (&rr.blocks[1], 2, 0, -9000000, 0x12345678, 256, 0x11112222,
      0x8000);
  n = rtpcc_rtcp_write_rr (buf, sizeof (buf), &rr);
  assert_bytes (buf, n, want);

  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless (rtpcc_rtcp_parse_rr (&pkt, &back));
  fail_unless (back.ssrc == 0xDEADBEEF);
  fail_unless_equals_int (back.n_blocks, 2);
  fail_unless_equals_int (back.blocks[0].cumulative_lost, 0x7FFFFF);
  fail_unless_equals_int (back.blocks[1].cumulative_lost, -0x800000);
  fail_unless (back.blocks[1].ext_highest_seq == 0x12345678);
  fail_unless (back.blocks[1].dlsr == 0x8000);

  /* an RR whose count promises a block its length does not hold */
  buf[0] = 0x83;
  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_if (rtpcc_rtcp_parse_rr (&pkt, &back));
  /* empty RR (header + SSRC) */
  {
    static const guint8 empty[] = { 0x80, 0xC9, 0x00, 0x01, 0, 0, 0, 9 };
    fail_unless (rtpcc_rtcp_iter_init (&it, empty, sizeof (empty)));
    fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
    fail_unless (rtpcc_rtcp_parse_rr (&pkt, &back));
    fail_unless_equals_int (back.n_blocks, 0);
    fail_unless_equals_int (back.ssrc, 9);
  }
}

GST_END_TEST;

GST_START_TEST (test_sdes_cname)
{
  static const guint8 want9[] = {
    0x81, 0xCA, 0x00, 0x04,     /* SC=1, PT 202, length 4 */
    0x01, 0x02, 0x03, 0x04,
    0x01, 0x09, 'u', 's', 'e', 'r', '@', 'h', 'o', 's', 't', 0x00,
  };
  static const guint8 want2[] = {
    0x81, 0xCA, 0x00, 0x03,
    0x01, 0x02, 0x03, 0x04,
    0x01, 0x02, 'a', 'b', 0x00, 0x00, 0x00, 0x00,
  };
  guint8 buf[300];
  gchar name[257];
  gsize n;

  n = rtpcc_rtcp_write_sdes_cname (buf, sizeof (buf), 0x01020304, "user@host");
  assert_bytes (buf, n, want9);
  n = rtpcc_rtcp_write_sdes_cname (buf, sizeof (buf), 0x01020304, "ab");
  assert_bytes (buf, n, want2);
  fail_unless_equals_int (rtpcc_rtcp_write_sdes_cname (buf, 15, 1, "ab"), 0);
  fail_unless_equals_int (rtpcc_rtcp_write_sdes_cname (buf, 300, 1, ""), 0);

  memset (name, 'x', 256);
  name[256] = '\0';
  fail_unless_equals_int (rtpcc_rtcp_write_sdes_cname (buf, 300, 1, name), 0);
  name[255] = '\0';
  /* 255 octets: 8 + 2 + 255 + 1 null = 266 → 268 */
  fail_unless_equals_int (rtpcc_rtcp_write_sdes_cname (buf, 300, 1, name),
      268);
}

GST_END_TEST;

/* ---- Compound iteration ------------------------------------------------ */

static gsize
make_ccfb_sample (guint8 * buf, gsize max)
{
  static const RtpccCcfbMetric m[3] = {
    {0, TRUE, 2, 0x40}, {0, FALSE, 0, 0}, {0, TRUE, 1, 0x1FFE},
  };
  RtpccCcfbBlockIn b = { 0x22222222, 100, 3, m };
  return rtpcc_ccfb_write (buf, max, 0x11111111, 0x12345678, &b, 1);
}

GST_START_TEST (test_compound_iteration)
{
  guint8 buf[512];
  RtpccRtcpSR sr = { 0 };
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  gsize n = 0, sr_len, sdes_len, fb_len;

  sr.ssrc = 0x11111111;
  sr.ntp = G_GUINT64_CONSTANT (0xE875470140000000);
  n += sr_len = rtpcc_rtcp_write_sr (buf + n, sizeof (buf) - n, &sr);
  n += sdes_len = rtpcc_rtcp_write_sdes_cname (buf + n, sizeof (buf) - n,
      0x11111111, "rtpcc@test");
  n += fb_len = make_ccfb_sample (buf + n, sizeof (buf) - n);
  fail_unless_equals_int (sr_len, 28);
  fail_unless_equals_int (sdes_len, 24);
  fail_unless_equals_int (fb_len, 28);

  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  fail_unless_equals_int (it.n_packets, 3);
  fail_if (it.reduced_size);
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless_equals_int (pkt.pt, RTPCC_RTCP_SR);
  fail_unless_equals_int (pkt.len, 28);
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless_equals_int (pkt.pt, RTPCC_RTCP_SDES);
  fail_unless_equals_int (pkt.count, 1);
  fail_unless (pkt.data == buf + 28);
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless_equals_int (pkt.pt, RTPCC_RTCP_RTPFB);
  fail_unless_equals_int (pkt.count, RTPCC_CCFB_FMT);
  fail_unless_equals_int (pkt.body_len, 24);
  fail_if (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_if (rtpcc_rtcp_iter_next (&it, &pkt));

  /* the CCFB alone is reduced-size RTCP */
  fail_unless (rtpcc_rtcp_iter_init (&it, buf + 52, fb_len));
  fail_unless (it.reduced_size);

  /* truncated inside a packet: rejected whole; at a packet boundary it is
   * a shorter, valid compound */
  for (gsize cut = 0; cut < n; cut++) {
    gboolean boundary = cut == 28 || cut == 52;
    fail_unless (rtpcc_rtcp_iter_init (&it, buf, cut) == boundary,
        "cut at %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes", cut, n);
    if (boundary)
      fail_unless_equals_int (it.n_packets, cut == 28 ? 1 : 2);
  }
  /* trailing junk shorter than a header */
  fail_if (rtpcc_rtcp_iter_init (&it, buf, n + 2));
  fail_if (rtpcc_rtcp_iter_init (&it, NULL, 8));

  /* a length one word too long (runs past the end) */
  buf[3] += 1;
  fail_if (rtpcc_rtcp_iter_init (&it, buf, n));
  /* one word too short: the next "header" is inside the SR (zeros: V=0) */
  buf[3] -= 2;
  fail_if (rtpcc_rtcp_iter_init (&it, buf, n));
  buf[3] += 1;
  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));

  /* bad version in the first and in a later packet */
  buf[0] = (buf[0] & 0x3f) | 0x40;
  fail_if (rtpcc_rtcp_iter_init (&it, buf, n));
  buf[0] = (buf[0] & 0x3f) | 0x80;
  buf[28] = (buf[28] & 0x3f) | 0xC0;
  fail_if (rtpcc_rtcp_iter_init (&it, buf, n));
  buf[28] = (buf[28] & 0x3f) | 0x80;
  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));

  /* zero-length packets (header only) iterate and terminate */
  {
    static const guint8 hdrs[] = {
      0x80, 0xC9, 0x00, 0x00, 0x80, 0xCB, 0x00, 0x00, 0x80, 0xCC, 0x00, 0x00,
    };
    guint count = 0;
    fail_unless (rtpcc_rtcp_iter_init (&it, hdrs, sizeof (hdrs)));
    while (rtpcc_rtcp_iter_next (&it, &pkt)) {
      fail_unless_equals_int (pkt.len, 4);
      count++;
    }
    fail_unless_equals_int (count, 3);
    /* an RR needs its SSRC */
    fail_unless (rtpcc_rtcp_iter_init (&it, hdrs, 4));
    fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
    {
      RtpccRtcpRR rr;
      fail_if (rtpcc_rtcp_parse_rr (&pkt, &rr));
    }
  }

  /* padding: only on the last packet, count within it (multiples of 4 per
   * RFC 3550, and libwebrtc's 1-3 for TWCC) */
  {
    guint8 p[16] = { 0xA0, 0xC9, 0x00, 0x03, 0, 0, 0, 7, 0, 0, 0, 0,
      0, 0, 0, 8
    };
    guint8 two[24] = { 0x80, 0xC9, 0x00, 0x01, 0, 0, 0, 1 };

    fail_unless (rtpcc_rtcp_iter_init (&it, p, 16));
    fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
    fail_unless (pkt.padding);
    fail_unless_equals_int (pkt.padding_len, 8);
    fail_unless_equals_int (pkt.body_len, 4);
    fail_unless_equals_int (pkt.len, 16);
    p[15] = 0;
    fail_if (rtpcc_rtcp_iter_init (&it, p, 16));
    p[15] = 6;                  /* not a multiple of 4: libwebrtc does it */
    fail_unless (rtpcc_rtcp_iter_init (&it, p, 16));
    fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
    fail_unless_equals_int (pkt.padding_len, 6);
    fail_unless_equals_int (pkt.body_len, 6);
    p[15] = 13;                 /* reaches into the header */
    fail_if (rtpcc_rtcp_iter_init (&it, p, 16));
    p[15] = 16;                 /* eats the header */
    fail_if (rtpcc_rtcp_iter_init (&it, p, 16));
    p[15] = 12;                 /* body of zero bytes: structurally fine */
    fail_unless (rtpcc_rtcp_iter_init (&it, p, 16));
    p[15] = 8;
    /* padded packet first, then another: rejected */
    memcpy (two, p, 16);
    memcpy (two + 16, (guint8[]) {
        0x80, 0xC9, 0x00, 0x01, 0, 0, 0, 1}, 8);
    fail_if (rtpcc_rtcp_iter_init (&it, two, 24));
  }
}

GST_END_TEST;

GST_START_TEST (test_rtcp_mux_demux)
{
  guint8 p[12] = { 0x80, 200, 0, 2 };

  fail_unless (rtpcc_rtcp_is_rtcp (p, 12));
  p[1] = 223;
  fail_unless (rtpcc_rtcp_is_rtcp (p, 12));
  p[1] = 192;
  fail_unless (rtpcc_rtcp_is_rtcp (p, 4));
  fail_if (rtpcc_rtcp_is_rtcp (p, 3));
  /* RTP: PT 96 with or without marker */
  p[1] = 96;
  fail_if (rtpcc_rtcp_is_rtcp (p, 12));
  p[1] = 0x80 | 96;
  fail_if (rtpcc_rtcp_is_rtcp (p, 12));
  p[1] = 191;
  fail_if (rtpcc_rtcp_is_rtcp (p, 12));
  p[1] = 224;
  fail_if (rtpcc_rtcp_is_rtcp (p, 12));
  p[1] = 201;
  p[0] = 0x40;
  fail_if (rtpcc_rtcp_is_rtcp (p, 12));
  fail_if (rtpcc_rtcp_is_rtcp (NULL, 12));
}

GST_END_TEST;

/* ---- RFC 3550 A.1 / A.3 / A.8 ------------------------------------------ */

GST_START_TEST (test_seq_probation)
{
  RtpccRtpSourceStats s;

  rtpcc_rtp_source_init (&s, 7);
  /* MIN_SEQUENTIAL = 2: the first packet only starts probation and is not
   * counted (A.1 re-initialises on the second) */
  fail_if (rtpcc_rtp_source_update_seq (&s, 100));
  fail_unless (rtpcc_rtp_source_update_seq (&s, 101));
  fail_unless (rtpcc_rtp_source_update_seq (&s, 102));
  fail_unless_equals_int (s.received, 2);
  fail_unless_equals_int (s.base_seq, 101);
  fail_unless_equals_int (rtpcc_rtp_source_ext_highest_seq (&s), 102);

  /* probation broken by a gap: restarts from the out-of-order packet */
  rtpcc_rtp_source_init (&s, 7);
  fail_if (rtpcc_rtp_source_update_seq (&s, 100));
  fail_if (rtpcc_rtp_source_update_seq (&s, 105));
  fail_unless (rtpcc_rtp_source_update_seq (&s, 106));
  fail_unless_equals_int (s.base_seq, 106);
  fail_unless_equals_int (s.received, 1);

  /* no report for a source still on probation */
  {
    RtpccRtcpReportBlock b;
    rtpcc_rtp_source_init (&s, 7);
    fail_if (rtpcc_rtp_source_make_report_block (&s, 0, 0, RTPCC_TIME_NONE,
            &b));
    rtpcc_rtp_source_update_seq (&s, 5);
    fail_if (rtpcc_rtp_source_make_report_block (&s, 0, 0, RTPCC_TIME_NONE,
            &b));
  }

  /* min_sequential = 1: valid at once */
  rtpcc_rtp_source_init (&s, 7);
  s.min_sequential = 1;
  fail_unless (rtpcc_rtp_source_update_seq (&s, 4000));
  fail_unless_equals_int (s.received, 1);
  fail_unless_equals_int (s.base_seq, 4000);
}

GST_END_TEST;

GST_START_TEST (test_seq_wrap_and_jumps)
{
  RtpccRtpSourceStats s;

  rtpcc_rtp_source_init (&s, 1);
  fail_if (rtpcc_rtp_source_update_seq (&s, 65534));
  fail_unless (rtpcc_rtp_source_update_seq (&s, 65535));
  fail_unless (rtpcc_rtp_source_update_seq (&s, 0));
  fail_unless (rtpcc_rtp_source_update_seq (&s, 1));
  fail_unless_equals_int (s.cycles, 65536);
  fail_unless_equals_int (rtpcc_rtp_source_ext_highest_seq (&s), 65537);
  /* a gap under MAX_DROPOUT across the wrap is a loss, not a restart */
  fail_unless (rtpcc_rtp_source_update_seq (&s, 2999));
  fail_unless_equals_int (rtpcc_rtp_source_ext_highest_seq (&s), 65536 + 2999);

  /* reordered within MAX_MISORDER: counted, max unchanged */
  rtpcc_rtp_source_init (&s, 1);
  s.min_sequential = 1;
  rtpcc_rtp_source_update_seq (&s, 1000);
  fail_unless (rtpcc_rtp_source_update_seq (&s, 901));  /* udelta 65437 */
  fail_unless_equals_int (s.max_seq, 1000);
  fail_unless_equals_int (s.received, 2);
  /* exactly MAX_MISORDER back falls in the "large jump" branch */
  fail_if (rtpcc_rtp_source_update_seq (&s, 900));      /* udelta 65436 */
  fail_unless_equals_int (s.received, 2);

  /* a large jump needs a second packet to be believed */
  rtpcc_rtp_source_init (&s, 1);
  s.min_sequential = 1;
  rtpcc_rtp_source_update_seq (&s, 1000);
  fail_if (rtpcc_rtp_source_update_seq (&s, 6000));     /* udelta 5000 */
  fail_unless (rtpcc_rtp_source_update_seq (&s, 1001)); /* not confirmed */
  fail_unless_equals_int (s.max_seq, 1001);
  fail_if (rtpcc_rtp_source_update_seq (&s, 6000));
  fail_unless (rtpcc_rtp_source_update_seq (&s, 6001)); /* confirmed: reset */
  fail_unless_equals_int (s.base_seq, 6001);
  fail_unless_equals_int (s.received, 1);
  fail_unless_equals_int (s.cycles, 0);
  fail_unless_equals_int (rtpcc_rtp_source_ext_highest_seq (&s), 6001);
}

GST_END_TEST;

GST_START_TEST (test_fraction_lost)
{
  RtpccRtpSourceStats s;
  RtpccRtcpReportBlock b;
  guint16 seq;

  rtpcc_rtp_source_init (&s, 0x55);
  s.min_sequential = 1;
  /* 1..100, every 10th lost: expected 100, received 90 */
  for (seq = 1; seq <= 100; seq++)
    if (seq % 10 != 0)
      rtpcc_rtp_source_update_seq (&s, seq);
  fail_unless (rtpcc_rtp_source_make_report_block (&s, RTPCC_SEC (10),
          0xb7052000, RTPCC_SEC (10) - RTPCC_MSEC (5250), &b));
  fail_unless (b.ssrc == 0x55);
  fail_unless_equals_int (b.ext_highest_seq, 99);      /* 100 was lost */
  /* expected = 99 − 1 + 1 = 99, received 90: 9 lost; 9·256/99 = 23.27 */
  fail_unless_equals_int (b.cumulative_lost, 9);
  fail_unless_equals_int (b.fraction_lost, 23);
  fail_unless (b.lsr == 0xb7052000);
  fail_unless (b.dlsr == 0x00054000);

  /* 100..199: 20 lost of 100 new expected (100 now arrives too late to be
   * "new": it is the first of this interval) */
  for (seq = 100; seq <= 199; seq++)
    if (seq % 5 != 0 || seq == 100)
      rtpcc_rtp_source_update_seq (&s, seq);
  fail_unless (rtpcc_rtp_source_make_report_block (&s, 0, 0, RTPCC_TIME_NONE,
          &b));
  /* interval: expected 199−99 = 100, received 1 + 80 = 81 → 19 lost;
   * 19·256/100 = 48.64 */
  fail_unless_equals_int (b.fraction_lost, 48);
  fail_unless_equals_int (b.cumulative_lost, 28);
  fail_unless_equals_int (b.dlsr, 0);

  /* nothing new: fraction 0, cumulative unchanged */
  fail_unless (rtpcc_rtp_source_make_report_block (&s, 0, 0, RTPCC_TIME_NONE,
          &b));
  fail_unless_equals_int (b.fraction_lost, 0);
  fail_unless_equals_int (b.cumulative_lost, 28);

  /* duplicates: negative interval loss reads as 0, cumulative drops */
  for (int i = 0; i < 5; i++)
    rtpcc_rtp_source_update_seq (&s, 199);
  fail_unless (rtpcc_rtp_source_make_report_block (&s, 0, 0, RTPCC_TIME_NONE,
          &b));
  fail_unless_equals_int (b.fraction_lost, 0);
  fail_unless_equals_int (b.cumulative_lost, 23);

  /* a burst: 10 expected, 1 received → 9·256/10 = 230 */
  rtpcc_rtp_source_update_seq (&s, 209);
  fail_unless (rtpcc_rtp_source_make_report_block (&s, 0, 0, RTPCC_TIME_NONE,
          &b));
  fail_unless_equals_int (b.fraction_lost, 230);
  fail_unless_equals_int (b.cumulative_lost, 32);
}

GST_END_TEST;

GST_START_TEST (test_cumulative_lost_clamp)
{
  RtpccRtpSourceStats s;
  RtpccRtcpReportBlock b;
  guint8 buf[64];
  RtpccRtcpRR rr = { 0 };
  guint16 seq = 0;

  rtpcc_rtp_source_init (&s, 1);
  s.min_sequential = 1;
  rtpcc_rtp_source_update_seq (&s, seq);
  /* gaps of 2999 (< MAX_DROPOUT): 2998 lost each, 2900 times = 8 694 200 */
  for (int i = 0; i < 2900; i++) {
    seq += 2999;
    fail_unless (rtpcc_rtp_source_update_seq (&s, seq));
  }
  fail_unless (rtpcc_rtp_source_make_report_block (&s, 0, 0, RTPCC_TIME_NONE,
          &b));
  fail_unless_equals_int (b.cumulative_lost, 0x7FFFFF);
  fail_unless_equals_int (b.ext_highest_seq, 2900 * 2999);
  /* nearly everything was lost in this interval */
  fail_unless_equals_int (b.fraction_lost, 255);

  rr.n_blocks = 1;
  rr.blocks[0] = b;
  fail_unless_equals_int (rtpcc_rtcp_write_rr (buf, sizeof (buf), &rr), 32);
  fail_unless (buf[13] == 0x7F && buf[14] == 0xFF && buf[15] == 0xFF);

  /* duplicates beyond 2^23: clamped at −0x800000 */
  rtpcc_rtp_source_init (&s, 1);
  s.min_sequential = 1;
  for (int i = 0; i < 0x800000 + 10; i++)
    rtpcc_rtp_source_update_seq (&s, 5);
  fail_unless (rtpcc_rtp_source_make_report_block (&s, 0, 0, RTPCC_TIME_NONE,
          &b));
  fail_unless_equals_int (b.cumulative_lost, -0x800000);
}

GST_END_TEST;

GST_START_TEST (test_jitter)
{
  RtpccRtpSourceStats s;
  RtpccTime shift[] = { 0, RTPCC_SEC (1000000), RTPCC_SEC (-50) };

  for (guint k = 0; k < G_N_ELEMENTS (shift); k++) {
    rtpcc_rtp_source_init (&s, 1);
    /* 90 kHz, 20 ms apart, every other packet 1 ms late: |D| = 90 each time */
    for (int i = 0; i < 200; i++) {
      RtpccTime arrival = shift[k] + i * RTPCC_MSEC (20) +
          ((i & 1) ? RTPCC_MSEC (1) : 0);
      rtpcc_rtp_source_update_jitter (&s, arrival, 0xFFFFF000u + i * 1800,
          90000);
      /* A.8 integer form: J16 += |D| − ((J16 + 8) >> 4) */
      if (i == 0)
        fail_unless_equals_int (rtpcc_rtp_source_jitter (&s), 0);
      if (i == 1)
        fail_unless_equals_int (s.jitter_q4, 90);       /* 5.6 → 5 */
      if (i == 2)
        fail_unless_equals_int (s.jitter_q4, 174);      /* 10.9 → 10 */
      if (i == 3)
        fail_unless_equals_int (s.jitter_q4, 253);      /* 15.8 → 15 */
    }
    /* converges on |D| = 90 */
    fail_unless (rtpcc_rtp_source_jitter (&s) >= 89
        && rtpcc_rtp_source_jitter (&s) <= 90, "jitter %u",
        rtpcc_rtp_source_jitter (&s));
  }

  /* constant transit delay: no jitter; a 8 kHz clock: same logic */
  rtpcc_rtp_source_init (&s, 1);
  for (int i = 0; i < 50; i++)
    rtpcc_rtp_source_update_jitter (&s, RTPCC_MSEC (77) + i * RTPCC_MSEC (20),
        i * 160, 8000);
  fail_unless_equals_int (rtpcc_rtp_source_jitter (&s), 0);
}

GST_END_TEST;

/* ---- CCFB -------------------------------------------------------------- */

GST_START_TEST (test_ccfb_layout)
{
  static const guint8 want[] = {
    0x8B, 0xCD, 0x00, 0x06,     /* V=2 P=0 FMT=11, PT 205, length 6 */
    0x11, 0x11, 0x11, 0x11,     /* SSRC of packet sender */
    0x22, 0x22, 0x22, 0x22,     /* SSRC of media */
    0x00, 0x64, 0x00, 0x03,     /* begin_seq 100, num_reports 3 */
    0xC0, 0x40,                 /* R=1 ECN=10 ATO=0x040 */
    0x00, 0x00,                 /* lost */
    0xBF, 0xFE,                 /* R=1 ECN=01 ATO=0x1FFE (over-range) */
    0x00, 0x00,                 /* padding to 32 bits */
    0x12, 0x34, 0x56, 0x78,     /* report timestamp */
  };
  guint8 buf[64];
  gsize n = make_ccfb_sample (buf, sizeof (buf));
  g_autoptr (GError) err = NULL;
  g_autoptr (RtpccCcfb) fb = NULL;

  assert_bytes (buf, n, want);
  fail_unless_equals_int (make_ccfb_sample (buf, sizeof (want) - 1), 0);

  fb = rtpcc_ccfb_parse (want, sizeof (want), &err);
  fail_unless (fb != NULL, "%s", err ? err->message : "");
  fail_unless (fb->sender_ssrc == 0x11111111);
  fail_unless (fb->report_timestamp == 0x12345678);
  fail_unless_equals_int (fb->n_blocks, 1);
  fail_unless (fb->blocks[0].media_ssrc == 0x22222222);
  fail_unless_equals_int (fb->blocks[0].begin_seq, 100);
  fail_unless_equals_int (fb->blocks[0].num_reports, 3);
  fail_unless_equals_int (fb->blocks[0].metrics[0].seq, 100);
  fail_unless (fb->blocks[0].metrics[0].received);
  fail_unless_equals_int (fb->blocks[0].metrics[0].ecn, 2);
  fail_unless_equals_int (fb->blocks[0].metrics[0].ato, 0x40);
  fail_unless_equals_int (fb->blocks[0].metrics[1].seq, 101);
  fail_if (fb->blocks[0].metrics[1].received);
  fail_unless_equals_int (fb->blocks[0].metrics[2].seq, 102);
  fail_unless_equals_int (fb->blocks[0].metrics[2].ecn, 1);
  fail_unless_equals_int (fb->blocks[0].metrics[2].ato, 0x1FFE);
}

GST_END_TEST;

GST_START_TEST (test_ccfb_multi_ssrc_wrap)
{
  /* two SSRCs; the second even-sized (no padding), its range wrapping,
   * and a third with num_reports = 0 */
  static const guint8 want[] = {
    0x8B, 0xCD, 0x00, 0x0B,     /* 48 bytes */
    0xAA, 0xAA, 0xAA, 0xAA,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x07, 0x00, 0x01,
    0x80, 0x01, 0x00, 0x00,     /* one metric, padded */
    0x00, 0x00, 0x00, 0x02, 0xFF, 0xFE, 0x00, 0x04,
    0xFF, 0xFF, 0x00, 0x00,     /* 65534: ECN CE, ATO unavailable; 65535 lost */
    0x80, 0x00, 0x9F, 0xFD,     /* 0: ATO 0; 1: not-ECT, ATO 0x1FFD */
    0x00, 0x00, 0x00, 0x03, 0x12, 0x34, 0x00, 0x00,
    0xCA, 0xFE, 0xBA, 0xBE,
  };
  RtpccCcfbMetric m1[] = { {0, TRUE, 0, 1} };
  RtpccCcfbMetric m2[] = {
    {0, TRUE, 3, 0x1FFF}, {0, FALSE, 3, 0x1234},        /* junk ignored */
    {0, TRUE, 0, 0}, {0, TRUE, 0, 0x1FFD},
  };
  RtpccCcfbBlockIn in[] = {
    {1, 7, 1, m1}, {2, 65534, 4, m2}, {3, 0x1234, 0, NULL},
  };
  guint8 buf[128];
  gsize n;
  g_autoptr (RtpccCcfb) fb = NULL;

  /* 0x9FFD: R=1, ECN=00, ATO 0x1FFD */
  n = rtpcc_ccfb_write (buf, sizeof (buf), 0xAAAAAAAA, 0xCAFEBABE, in, 3);
  assert_bytes (buf, n, want);
  fail_unless_equals_int (rtpcc_ccfb_size (in, 3), sizeof (want));

  fb = rtpcc_ccfb_parse (buf, n, NULL);
  fail_unless (fb != NULL);
  fail_unless_equals_int (fb->n_blocks, 3);
  fail_unless_equals_int (fb->blocks[1].metrics[0].seq, 65534);
  fail_unless_equals_int (fb->blocks[1].metrics[1].seq, 65535);
  fail_unless_equals_int (fb->blocks[1].metrics[2].seq, 0);
  fail_unless_equals_int (fb->blocks[1].metrics[3].seq, 1);
  fail_unless_equals_int (fb->blocks[1].metrics[0].ecn, RTPCC_ECN_CE);
  fail_unless_equals_int (fb->blocks[1].metrics[0].ato, 0x1FFF);
  fail_if (fb->blocks[1].metrics[1].received);
  fail_unless_equals_int (fb->blocks[1].metrics[1].ecn, 0);
  fail_unless_equals_int (fb->blocks[1].metrics[3].ato, 0x1FFD);
  fail_unless (fb->blocks[2].media_ssrc == 3);
  fail_unless_equals_int (fb->blocks[2].begin_seq, 0x1234);
  fail_unless_equals_int (fb->blocks[2].num_reports, 0);
  fail_unless (fb->blocks[2].metrics == NULL);
}

GST_END_TEST;

GST_START_TEST (test_ccfb_random_round_trip)
{
  RtpccRng rng;
  guint8 *buf = g_malloc (70000);

  rtpcc_rng_init (&rng, 8888);
  for (int iter = 0; iter < 300; iter++) {
    guint n_blocks = rtpcc_rng_below (&rng, 5);
    RtpccCcfbBlockIn in[4];
    RtpccCcfbMetric *m[4];
    guint32 sender = (guint32) rtpcc_rng_next_u64 (&rng);
    guint32 rts = (guint32) rtpcc_rng_next_u64 (&rng);
    gsize n;
    RtpccCcfb *fb;

    for (guint b = 0; b < n_blocks; b++) {
      guint num = (iter == 7 && b == 0) ? RTPCC_CCFB_MAX_REPORTS :
          rtpcc_rng_below (&rng, 40);
      in[b].media_ssrc = (guint32) rtpcc_rng_next_u64 (&rng);
      in[b].begin_seq = (guint16) rtpcc_rng_next_u64 (&rng);
      in[b].num_reports = num;
      m[b] = g_new0 (RtpccCcfbMetric, MAX (num, 1));
      for (guint j = 0; j < num; j++) {
        m[b][j].received = rtpcc_rng_bernoulli (&rng, 0.7);
        if (m[b][j].received) {
          m[b][j].ecn = rtpcc_rng_below (&rng, 4);
          m[b][j].ato = rtpcc_rng_below (&rng, 0x2000);
        }
      }
      in[b].metrics = m[b];
    }
    n = rtpcc_ccfb_write (buf, 70000, sender, rts, in, n_blocks);
    fail_unless (n > 0 && n % 4 == 0);
    fail_unless_equals_int (n, rtpcc_ccfb_size (in, n_blocks));
    fb = rtpcc_ccfb_parse (buf, n, NULL);
    fail_unless (fb != NULL);
    fail_unless (fb->sender_ssrc == sender && fb->report_timestamp == rts);
    fail_unless_equals_int (fb->n_blocks, n_blocks);
    for (guint b = 0; b < n_blocks; b++) {
      fail_unless (fb->blocks[b].media_ssrc == in[b].media_ssrc);
      fail_unless_equals_int (fb->blocks[b].begin_seq, in[b].begin_seq);
      fail_unless_equals_int (fb->blocks[b].num_reports, in[b].num_reports);
      for (guint j = 0; j < in[b].num_reports; j++) {
        const RtpccCcfbMetric *got = &fb->blocks[b].metrics[j];
        fail_unless_equals_int (got->seq, (guint16) (in[b].begin_seq + j));
        fail_unless_equals_int (got->received, m[b][j].received);
        fail_unless_equals_int (got->ecn, m[b][j].ecn);
        fail_unless_equals_int (got->ato, m[b][j].ato);
      }
      g_free (m[b]);
    }
    rtpcc_ccfb_free (fb);
  }
  g_free (buf);
}

GST_END_TEST;

static void
expect_ccfb_error (const guint8 * p, gsize len, const gchar * what)
{
  GError *err = NULL;
  RtpccCcfb *fb = rtpcc_ccfb_parse (p, len, &err);

  fail_unless (fb == NULL, "accepted: %s", what);
  fail_unless (err != NULL, "no error: %s", what);
  fail_unless (g_error_matches (err, RTPCC_ERROR, RTPCC_ERROR_PARSE));
  fail_unless (g_str_has_prefix (err->message, "CCFB: "), "%s", err->message);
  g_error_free (err);
}

GST_START_TEST (test_ccfb_malformed)
{
  guint8 good[28], p[64];
  gsize n = make_ccfb_sample (good, sizeof (good));
  RtpccCcfb *fb;

  fail_unless_equals_int (n, 28);
  expect_ccfb_error (NULL, 0, "NULL");
  for (gsize cut = 0; cut < n; cut++)
    expect_ccfb_error (good, cut, "truncated");

#define MUTATE(stmt, what)                        \
  G_STMT_START {                                  \
    memcpy (p, good, n);                          \
    stmt;                                         \
    expect_ccfb_error (p, n, what);               \
  } G_STMT_END

  MUTATE (p[0] = 0x4B, "version 1");
  MUTATE (p[1] = 206, "PSFB");
  MUTATE (p[0] = 0x8F, "FMT 15 (TWCC)");
  MUTATE (p[3] = 7, "length too long");
  MUTATE (p[3] = 5, "length too short");
  MUTATE (p[15] = 5, "num_reports past the timestamp");
  MUTATE (p[0] |= 0x20; p[27] = 3, "padding not a multiple of 4");
  MUTATE (p[0] |= 0x20; p[27] = 0, "padding 0");
  MUTATE (p[0] |= 0x20; p[27] = 20, "padding eats the header");
  /* padding 8 cuts the block short */
  MUTATE (p[0] |= 0x20; p[27] = 8, "padding truncates a block");

  /* 4 stray bytes before the timestamp */
  memcpy (p, good, 24);
  memset (p + 24, 0, 4);
  memcpy (p + 28, good + 24, 4);
  p[3] = 7;
  expect_ccfb_error (p, 32, "4 stray bytes");

  /* a valid padded CCFB parses to the same content */
  memcpy (p, good, 24);
  memcpy (p + 24, good + 24, 4);
  memset (p + 28, 0, 4);
  p[31] = 4;
  p[0] |= 0x20;
  p[3] = 7;
  fb = rtpcc_ccfb_parse (p, 32, NULL);
  fail_unless (fb != NULL);
  fail_unless (fb->report_timestamp == 0x12345678);
  fail_unless_equals_int (fb->blocks[0].num_reports, 3);
  rtpcc_ccfb_free (fb);

  /* no report blocks at all: legal */
  {
    static const guint8 empty[] = { 0x8B, 0xCD, 0x00, 0x02, 1, 2, 3, 4,
      5, 6, 7, 8
    };
    fb = rtpcc_ccfb_parse (empty, sizeof (empty), NULL);
    fail_unless (fb != NULL);
    fail_unless_equals_int (fb->n_blocks, 0);
    fail_unless (fb->report_timestamp == 0x05060708);
    rtpcc_ccfb_free (fb);
  }

  /* num_reports over RFC 8888's 16384 in a packet big enough to hold it */
  {
    gsize big = 12 + 8 + ((16385 * 2 + 3) & ~3);
    guint8 *q = g_malloc0 (big);
    RtpccCcfbMetric *m = g_new0 (RtpccCcfbMetric, 16385);
    RtpccCcfbBlockIn in = { 1, 0, 16384, m };

    q[0] = 0x8B;
    q[1] = 205;
    q[2] = (guint8) ((big / 4 - 1) >> 8);
    q[3] = (guint8) (big / 4 - 1);
    q[14] = 0x40;               /* num_reports 0x4001 */
    q[15] = 0x01;
    expect_ccfb_error (q, big, "num_reports 16385");
    /* the writer agrees: 16384 goes, 16385 does not */
    fail_unless (rtpcc_ccfb_write (q, big, 1, 2, &in, 1) > 0);
    in.num_reports = 16385;
    fail_unless_equals_int (rtpcc_ccfb_write (q, big, 1, 2, &in, 1), 0);
    fail_unless_equals_int (rtpcc_ccfb_size (&in, 1), 0);
    g_free (m);
    g_free (q);
  }
#undef MUTATE
}

GST_END_TEST;

GST_START_TEST (test_ccfb_ato)
{
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (0), 0);
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (RTPCC_SEC (1)), 1024);
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (RTPCC_MSEC (500)), 512);
  /* one unit is 976 562.5 ns: round to nearest */
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (488281), 0);
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (488282), 1);
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (1464843), 1);
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (1464844), 2);
  /* 8189/1024 s = 7 997 070 312.5 ns: up to it 0x1FFD, beyond over-range */
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (7997070312), 0x1FFD);
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (7997070313), 0x1FFE);
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (RTPCC_SEC (10)), 0x1FFE);
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (G_MAXINT64), 0x1FFE);
  /* arrived after the report timestamp, or unknown */
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (-1), 0x1FFF);
  fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (RTPCC_TIME_NONE),
      0x1FFF);

  fail_unless_equals_int64 (rtpcc_ccfb_ato_to_delta (1024), RTPCC_SEC (1));
  /* truncated to whole ns, so that 0x1FFD maps back inside the range */
  fail_unless_equals_int64 (rtpcc_ccfb_ato_to_delta (1), 976562);
  fail_unless_equals_int64 (rtpcc_ccfb_ato_to_delta (0x1FFD), 7997070312);
  fail_unless (rtpcc_ccfb_ato_to_delta (0x1FFE) == RTPCC_TIME_INFINITE);
  fail_unless (rtpcc_ccfb_ato_to_delta (0x1FFF) == RTPCC_TIME_NONE);
  /* R and ECN bits are not part of the offset */
  fail_unless_equals_int64 (rtpcc_ccfb_ato_to_delta (0xE400), RTPCC_SEC (1));

  for (guint16 a = 0; a <= 0x1FFD; a++)
    fail_unless_equals_int (rtpcc_ccfb_ato_from_delta (rtpcc_ccfb_ato_to_delta
            (a)), a);
}

GST_END_TEST;

/* ---- Arrival log ------------------------------------------------------- */

#define NTP_OFF (RTPCC_SEC (G_GINT64_CONSTANT (3900000000)) + 123456789)

/* Parses @buf[0..n) as a CCFB and checks every received packet's ATO
 * against its true arrival (within 1/1024 s) via the 16.16 NTP timeline. */
static RtpccCcfb *
parse_and_check_ato (const guint8 * buf, gsize n, RtpccArrivalLog * log)
{
  GError *err = NULL;
  RtpccCcfb *fb = rtpcc_ccfb_parse (buf, n, &err);

  fail_unless (fb != NULL, "%s", err ? err->message : "write failed");
  for (guint b = 0; b < fb->n_blocks; b++) {
    for (guint j = 0; j < fb->blocks[b].num_reports; j++) {
      const RtpccCcfbMetric *m = &fb->blocks[b].metrics[j];
      guint64 ext;
      RtpccTime arrival;
      guint32 want, got;
      gint32 diff;

      if (!m->received)
        continue;
      fail_unless (rtpcc_arrival_log_extend_seq (log,
              fb->blocks[b].media_ssrc, m->seq, &ext));
      fail_unless (rtpcc_arrival_log_lookup (log, fb->blocks[b].media_ssrc,
              ext, &arrival, NULL));
      /* the sender's view: arrival = RTS − ATO (1/1024 s = 64/65536 s) */
      got = fb->report_timestamp - (guint32) m->ato * 64;
      want = rtpcc_ntp_short (rtpcc_ntp_from_time (arrival, NTP_OFF));
      diff = (gint32) (got - want);
      fail_unless (ABS (diff) <= 32, "seq %u: ATO off by %d/65536 s", m->seq,
          diff);
    }
  }
  return fb;
}

static void
check_pattern (const RtpccCcfbBlock * b, guint16 begin, const gchar * pattern)
{
  gsize len = strlen (pattern);

  fail_unless_equals_int (b->begin_seq, begin);
  fail_unless_equals_int (b->num_reports, len);
  for (gsize i = 0; i < len; i++)
    fail_unless_equals_int (b->metrics[i].received, pattern[i] == 'x');
}

GST_START_TEST (test_arrival_log_ccfb)
{
  RtpccArrivalLog *log = rtpcc_arrival_log_new (256);
  guint8 buf[1500];
  RtpccTime t0 = RTPCC_SEC (100) + 333;
  RtpccCcfb *fb;
  gsize n;

  /* 10..19, 13 and 16 lost, 15 CE-marked; 1 ms of arrival jitter */
  for (guint16 s = 10; s < 20; s++)
    if (s != 13 && s != 16)
      fail_unless (rtpcc_arrival_log_add (log, 0xA, s, t0 + s * RTPCC_MSEC (10)
              + (s % 3) * RTPCC_USEC (333), s == 15 ? RTPCC_ECN_CE : 0));
  n = rtpcc_arrival_log_write_ccfb (log, t0 + RTPCC_MSEC (210), NTP_OFF, 0x5,
      0, buf, sizeof (buf));
  fb = parse_and_check_ato (buf, n, log);
  fail_unless (fb->sender_ssrc == 0x5);
  /* RTS: the NTP time of the report rounded up to 1/65536 s */
  fail_unless (fb->report_timestamp == rtpcc_ntp_short (rtpcc_ntp_from_time (t0
              + RTPCC_MSEC (210), NTP_OFF) + 0xffff));
  fail_unless_equals_int (fb->n_blocks, 1);
  fail_unless (fb->blocks[0].media_ssrc == 0xA);
  check_pattern (&fb->blocks[0], 10, "xxx.xx.xxx");
  fail_unless_equals_int (fb->blocks[0].metrics[5].ecn, RTPCC_ECN_CE);
  fail_unless_equals_int (fb->blocks[0].metrics[4].ecn, 0);
  /* 19 arrived 19.667 ms before the report (less up to 15.3 µs of RTS
   * truncation): 20.14 units → 20 */
  fail_unless_equals_int (fb->blocks[0].metrics[9].ato, 20);
  rtpcc_ccfb_free (fb);

  /* 13 arrives late, 20..24 new: the second report covers 10..19 again
   * (each packet is in two reports) with 13 now received, 16 still lost */
  fail_unless (rtpcc_arrival_log_add (log, 0xA, 13, t0 + RTPCC_MSEC (250), 0));
  for (guint16 s = 20; s < 25; s++)
    rtpcc_arrival_log_add (log, 0xA, s, t0 + s * RTPCC_MSEC (10) +
        RTPCC_MSEC (60), 0);
  n = rtpcc_arrival_log_write_ccfb (log, t0 + RTPCC_MSEC (320), NTP_OFF, 0x5,
      0, buf, sizeof (buf));
  fb = parse_and_check_ato (buf, n, log);
  check_pattern (&fb->blocks[0], 10, "xxxxxx.xxxxxxxx");
  rtpcc_ccfb_free (fb);

  /* 10..19 have been in two reports: never again, though 16 is missing */
  rtpcc_arrival_log_add (log, 0xA, 25, t0 + RTPCC_MSEC (2300), 0);
  n = rtpcc_arrival_log_write_ccfb (log, t0 + RTPCC_MSEC (2320), NTP_OFF, 0x5,
      0, buf, sizeof (buf));
  fb = parse_and_check_ato (buf, n, log);
  check_pattern (&fb->blocks[0], 20, "xxxxxx");
  rtpcc_ccfb_free (fb);
  /* nothing new: 25 in its second report */
  n = rtpcc_arrival_log_write_ccfb (log, t0 + RTPCC_MSEC (2360), NTP_OFF, 0x5,
      0, buf, sizeof (buf));
  fb = parse_and_check_ato (buf, n, log);
  check_pattern (&fb->blocks[0], 25, "x");
  rtpcc_ccfb_free (fb);

  /* nothing new but recently active: an empty block, begin_seq = highest */
  n = rtpcc_arrival_log_write_ccfb (log, t0 + RTPCC_MSEC (2400), NTP_OFF, 0x5,
      0, buf, sizeof (buf));
  fail_unless_equals_int (n, 20);
  fb = parse_and_check_ato (buf, n, log);
  fail_unless_equals_int (fb->n_blocks, 1);
  fail_unless_equals_int (fb->blocks[0].num_reports, 0);
  fail_unless_equals_int (fb->blocks[0].begin_seq, 25);
  rtpcc_ccfb_free (fb);

  /* silent for longer than the inactivity timeout: nothing to send */
  fail_unless_equals_int (rtpcc_arrival_log_write_ccfb (log, t0 +
          RTPCC_SEC (10), NTP_OFF, 0x5, 0, buf, sizeof (buf)), 0);
  rtpcc_arrival_log_free (log);
}

GST_END_TEST;

/* Each packet is reported a fixed number of times (the redundancy) whether
 * it arrived or not: the feedback's size does not depend on the media's
 * loss. 2000 packets at 200/s, one report per 40 ms, random loss 0 %, 5 %
 * and 20 %. */
static guint64
covered_per_packet_x100 (guint loss_pct, guint redundancy, gsize * bytes)
{
  RtpccArrivalLog *log = rtpcc_arrival_log_new (1024);
  RtpccRng rng;
  guint8 buf[1500];
  guint64 covered = 0;
  RtpccTime t = RTPCC_SEC (1);

  rtpcc_rng_init_stream (&rng, 7, 1);
  if (redundancy)
    rtpcc_arrival_log_set_redundancy (log, redundancy);
  *bytes = 0;
  /* the first packet always arrives: the log starts at it */
  for (guint k = 0; k < 2000; k++) {
    t += RTPCC_MSEC (5);
    if (k == 0 || rtpcc_rng_uniform (&rng, 0, 100) >= loss_pct)
      rtpcc_arrival_log_add (log, 0xA, (guint16) k, t, 0);
    if (k % 8 == 7) {
      gsize n = rtpcc_arrival_log_write_ccfb (log, t, NTP_OFF, 5, 0, buf,
          sizeof (buf));
      RtpccCcfb *fb = rtpcc_ccfb_parse (buf, n, NULL);

      fail_unless (fb != NULL);
      *bytes += n;
      covered += fb->blocks[0].num_reports;
      rtpcc_ccfb_free (fb);
    }
  }
  rtpcc_arrival_log_free (log);
  return covered * 100 / 2000;
}

GST_START_TEST (test_arrival_log_bounded_repeats)
{
  gsize b0, b5, b20, b1, b3;

  /* the last report's packets are covered once */
  fail_unless_equals_uint64 (covered_per_packet_x100 (0, 0, &b0), 199);
  fail_unless_equals_uint64 (covered_per_packet_x100 (5, 0, &b5), 199);
  fail_unless_equals_uint64 (covered_per_packet_x100 (20, 0, &b20), 199);
  /* a longer run-length encoding only: at most 2 % more bytes */
  fail_unless (b5 >= b0 && b5 * 100 <= b0 * 102, "%zu %zu", b0, b5);
  fail_unless (b20 >= b0 && b20 * 100 <= b0 * 102, "%zu %zu", b0, b20);
  fail_unless_equals_uint64 (covered_per_packet_x100 (5, 1, &b1), 100);
  fail_unless_equals_uint64 (covered_per_packet_x100 (5, 3, &b3), 298);
  fail_unless (b1 < b5 && b5 < b3);
}

GST_END_TEST;

GST_START_TEST (test_arrival_log_wrap_dup_limits)
{
  RtpccArrivalLog *log = rtpcc_arrival_log_new (64);
  guint8 buf[1500];
  RtpccTime t = RTPCC_SEC (5);
  RtpccCcfb *fb;
  guint64 ext, hi, nrecv;
  RtpccTime arr;
  guint8 ecn;
  gsize n;

  fail_unless_equals_int (rtpcc_arrival_log_get_capacity (log), 64);
  /* across the 16-bit wrap, with 0 missing, and a reordered 65531 */
  for (guint16 s = 65530; s != 6; s++) {
    if (s == 0 || s == 65531)
      continue;
    fail_unless (rtpcc_arrival_log_add (log, 0xB, s, t, 0));
    t += RTPCC_MSEC (1);
  }
  fail_unless (rtpcc_arrival_log_add (log, 0xB, 65531, t, RTPCC_ECN_ECT0));
  /* duplicate: rejected, first arrival kept, CE merged */
  fail_if (rtpcc_arrival_log_add (log, 0xB, 2, t + RTPCC_SEC (1),
          RTPCC_ECN_CE));
  fail_unless (rtpcc_arrival_log_extend_seq (log, 0xB, 2, &ext));
  fail_unless (rtpcc_arrival_log_lookup (log, 0xB, ext, &arr, &ecn));
  fail_unless_equals_int64 (arr, RTPCC_SEC (5) + RTPCC_MSEC (6));
  fail_unless_equals_int (ecn, RTPCC_ECN_CE);
  fail_unless (rtpcc_arrival_log_get_highest (log, 0xB, &hi, &nrecv));
  fail_unless_equals_int (nrecv, 11);
  fail_unless (hi == ext + 3);
  fail_unless ((hi & 0xffff) == 5);
  fail_unless (rtpcc_arrival_log_extend_seq (log, 0xB, 65535, &ext));
  fail_unless (ext == hi - 6);
  fail_if (rtpcc_arrival_log_lookup (log, 0xB, hi - 5, NULL, NULL));   /* 0 */
  fail_if (rtpcc_arrival_log_lookup (log, 0xC, hi, NULL, NULL));

  n = rtpcc_arrival_log_write_ccfb (log, t + RTPCC_MSEC (1), NTP_OFF, 1, 0,
      buf, sizeof (buf));
  fb = parse_and_check_ato (buf, n, log);
  check_pattern (&fb->blocks[0], 65530, "xxxxxx.xxxxx");
  fail_unless_equals_int (fb->blocks[0].metrics[1].ecn, RTPCC_ECN_ECT0);
  rtpcc_ccfb_free (fb);

  /* far too old for a 64-packet ring */
  for (guint16 s = 6; s < 200; s++)
    rtpcc_arrival_log_add (log, 0xB, s, t + s, 0);
  fail_if (rtpcc_arrival_log_add (log, 0xB, 100, t, 0));
  fail_unless (rtpcc_arrival_log_add (log, 0xB, 199 - 63 + 64, t + 300, 0));

  /* max_reports_per_ssrc: only the newest 20 of the 195 unreported */
  n = rtpcc_arrival_log_write_ccfb (log, t + RTPCC_MSEC (400), NTP_OFF, 1, 20,
      buf, sizeof (buf));
  fb = parse_and_check_ato (buf, n, log);
  fail_unless_equals_int (fb->blocks[0].num_reports, 20);
  fail_unless_equals_int (fb->blocks[0].begin_seq, 200 - 19);
  rtpcc_ccfb_free (fb);
  rtpcc_arrival_log_free (log);
}

GST_END_TEST;

/* The ring of an SSRC follows the packet rate: it grows while the entry it
 * would overwrite arrived within RTPCC_ARRIVAL_LOG_KEEP (100 packets/s:
 * 256 entries, 1000 packets/s: 2048, over a minute of reports every
 * 100 ms), and every report still covers each packet twice; with no
 * report at all (nothing was covered yet) it grows to the log's capacity
 * and no further. */
GST_START_TEST (test_arrival_log_follows_rate)
{
  const guint rates[] = { 100, 1000 };
  const guint expect[] = { 256, 2048 };

  for (guint r = 0; r < G_N_ELEMENTS (rates); r++) {
    RtpccArrivalLog *log = rtpcc_arrival_log_new (8192);
    RtpccArrivalLog *silent = rtpcc_arrival_log_new (8192);
    RtpccTime gap = RTPCC_SEC (1) / rates[r];
    guint per_report = rates[r] / 10, reports = 0;
    guint8 buf[1500];

    for (guint k = 0; k < 60 * rates[r]; k++) {
      RtpccTime t = RTPCC_SEC (1) + (RtpccTime) k * gap;

      fail_unless (rtpcc_arrival_log_add (log, 0xB, (guint16) k, t, 0));
      fail_unless (rtpcc_arrival_log_add (silent, 0xB, (guint16) k, t, 0));
      if ((k + 1) % per_report == 0) {
        gsize n = rtpcc_arrival_log_write_ccfb (log, t, NTP_OFF, 1, 0, buf,
            sizeof (buf));
        RtpccCcfb *fb = parse_and_check_ato (buf, n, log);

        /* the last two report intervals, each packet in two reports */
        fail_unless_equals_int (fb->blocks[0].num_reports,
            MIN (reports + 1, 2) * per_report);
        fail_unless_equals_int (fb->blocks[0].begin_seq,
            (guint16) (k + 1 - MIN (reports + 1, 2) * per_report));
        rtpcc_ccfb_free (fb);
        reports++;
      }
    }
    fail_unless_equals_int (rtpcc_arrival_log_get_stream_capacity (log, 0xB),
        expect[r]);
    fail_unless_equals_int (rtpcc_arrival_log_get_stream_capacity (silent,
            0xB), 8192);
    fail_unless_equals_int (rtpcc_arrival_log_get_stream_capacity (log, 0xC),
        0);
    rtpcc_arrival_log_free (log);
    rtpcc_arrival_log_free (silent);
  }
}

GST_END_TEST;

GST_START_TEST (test_arrival_log_multi_ssrc_and_size)
{
  RtpccArrivalLog *log = rtpcc_arrival_log_new (1000);
  guint8 buf[1500];
  RtpccCcfb *fb;
  gsize n;

  for (guint16 s = 0; s < 300; s++) {
    rtpcc_arrival_log_add (log, 0x1000, s, RTPCC_MSEC (s), 0);
    if (s % 3 == 0)
      rtpcc_arrival_log_add (log, 0x2000, 500 + s / 3, RTPCC_MSEC (s), 0);
  }
  /* both SSRCs, in the order first seen */
  n = rtpcc_arrival_log_write_ccfb (log, RTPCC_MSEC (300), NTP_OFF, 9, 0, buf,
      sizeof (buf));
  fb = parse_and_check_ato (buf, n, log);
  fail_unless_equals_int (fb->n_blocks, 2);
  fail_unless (fb->blocks[0].media_ssrc == 0x1000);
  fail_unless_equals_int (fb->blocks[0].num_reports, 300);
  fail_unless (fb->blocks[1].media_ssrc == 0x2000);
  fail_unless_equals_int (fb->blocks[1].begin_seq, 500);
  fail_unless_equals_int (fb->blocks[1].num_reports, 100);
  fail_unless_equals_int (n, 12 + 8 + 600 + 8 + 200);
  rtpcc_ccfb_free (fb);

  /* 600 more packets of the first SSRC do not fit in 1000 bytes: the
   * oldest are dropped, the newest kept */
  for (guint16 s = 300; s < 900; s++)
    rtpcc_arrival_log_add (log, 0x1000, s, RTPCC_MSEC (s), 0);
  fail_unless_equals_int (rtpcc_arrival_log_write_ccfb (log, RTPCC_MSEC (900),
          NTP_OFF, 9, 0, buf, 27), 0);
  n = rtpcc_arrival_log_write_ccfb (log, RTPCC_MSEC (900), NTP_OFF, 9, 0, buf,
      1000);
  fail_unless (n > 0 && n <= 1000);
  fb = parse_and_check_ato (buf, n, log);
  fail_unless_equals_int (fb->n_blocks, 2);
  fail_unless (fb->blocks[0].num_reports < 600);
  fail_unless_equals_int (fb->blocks[0].begin_seq + fb->blocks[0].num_reports,
      900);
  /* the second SSRC's packets are in their second report */
  fail_unless_equals_int (fb->blocks[1].begin_seq, 500);
  fail_unless_equals_int (fb->blocks[1].num_reports, 100);
  rtpcc_ccfb_free (fb);
  /* and then it gets an empty block, the first SSRC its newest again */
  n = rtpcc_arrival_log_write_ccfb (log, RTPCC_MSEC (950), NTP_OFF, 9, 0, buf,
      sizeof (buf));
  fb = parse_and_check_ato (buf, n, log);
  fail_unless_equals_int (fb->n_blocks, 2);
  fail_unless_equals_int (fb->blocks[0].begin_seq + fb->blocks[0].num_reports,
      900);
  fail_unless_equals_int (fb->blocks[1].num_reports, 0);
  fail_unless_equals_int (fb->blocks[1].begin_seq, 599);
  rtpcc_ccfb_free (fb);

  rtpcc_arrival_log_remove_ssrc (log, 0x1000);
  fail_if (rtpcc_arrival_log_get_highest (log, 0x1000, NULL, NULL));
  fail_unless (rtpcc_arrival_log_get_highest (log, 0x2000, NULL, NULL));
  rtpcc_arrival_log_free (log);
}

GST_END_TEST;

GST_START_TEST (test_arrival_log_edges)
{
  RtpccArrivalLog *log = rtpcc_arrival_log_new (1);
  guint8 buf[256];
  RtpccTime now = RTPCC_SEC (42) + 7;
  RtpccCcfb *fb;
  gsize n;

  /* capacity is clamped to the minimum */
  fail_unless_equals_int (rtpcc_arrival_log_get_capacity (log), 16);
  fail_if (rtpcc_arrival_log_add (log, 1, 0, RTPCC_TIME_NONE, 0));

  /* arriving exactly at the report: ATO 0, not "after the RTS" (the RTS is
   * rounded up); logged after the report instant: 0x1FFF as RFC 8888 says;
   * 9 s before: over-range */
  rtpcc_arrival_log_add (log, 1, 10, now - RTPCC_SEC (9), 0);
  rtpcc_arrival_log_add (log, 1, 11, now, 0);
  rtpcc_arrival_log_add (log, 1, 12, now + RTPCC_MSEC (1), 0);
  n = rtpcc_arrival_log_write_ccfb (log, now, NTP_OFF, 2, 0, buf,
      sizeof (buf));
  fb = rtpcc_ccfb_parse (buf, n, NULL);
  fail_unless (fb != NULL);
  check_pattern (&fb->blocks[0], 10, "xxx");
  fail_unless_equals_int (fb->blocks[0].metrics[0].ato, 0x1FFE);
  fail_unless_equals_int (fb->blocks[0].metrics[1].ato, 0);
  fail_unless_equals_int (fb->blocks[0].metrics[2].ato, 0x1FFF);
  rtpcc_ccfb_free (fb);

  /* a sequence restart far behind: believed once the next packet follows */
  {
    RtpccArrivalLog *l2 = rtpcc_arrival_log_new (64);
    guint64 hi_before, hi;

    for (guint16 s = 40000; s < 40010; s++)
      rtpcc_arrival_log_add (l2, 5, s, RTPCC_SEC (1) + s, 0);
    rtpcc_arrival_log_get_highest (l2, 5, &hi_before, NULL);
    /* 20000 behind (> 16384): a straggler... */
    fail_if (rtpcc_arrival_log_add (l2, 5, 20000, RTPCC_SEC (2), 0));
    fail_if (rtpcc_arrival_log_add (l2, 5, 39000, RTPCC_SEC (2), 0));
    fail_if (rtpcc_arrival_log_add (l2, 5, 20001, RTPCC_SEC (2), 0));
    /* ...until two in a row */
    fail_if (rtpcc_arrival_log_add (l2, 5, 20000, RTPCC_SEC (2), 0));
    fail_unless (rtpcc_arrival_log_add (l2, 5, 20001, RTPCC_SEC (2), 0));
    fail_unless (rtpcc_arrival_log_add (l2, 5, 20002, RTPCC_SEC (2), 0));
    rtpcc_arrival_log_get_highest (l2, 5, &hi, NULL);
    fail_unless (hi > hi_before && (hi & 0xffff) == 20002);
    n = rtpcc_arrival_log_write_ccfb (l2, RTPCC_SEC (2), NTP_OFF, 2, 0, buf,
        sizeof (buf));
    fb = rtpcc_ccfb_parse (buf, n, NULL);
    fail_unless (fb != NULL);
    check_pattern (&fb->blocks[0], 20001, "xx");
    rtpcc_ccfb_free (fb);
    rtpcc_arrival_log_free (l2);
  }

  /* a 65th SSRC evicts the one silent for longest (SSRC 1, at 42 s) */
  for (guint32 ssrc = 2; ssrc < 2 + RTPCC_ARRIVAL_LOG_MAX_SSRCS - 1; ssrc++)
    fail_unless (rtpcc_arrival_log_add (log, ssrc, 0, RTPCC_SEC (50) + ssrc,
            0));
  fail_unless (rtpcc_arrival_log_get_highest (log, 1, NULL, NULL));
  fail_unless (rtpcc_arrival_log_add (log, 1000, 0, RTPCC_SEC (60), 0));
  fail_if (rtpcc_arrival_log_get_highest (log, 1, NULL, NULL));
  fail_unless (rtpcc_arrival_log_get_highest (log, 2, NULL, NULL));
  fail_unless (rtpcc_arrival_log_get_highest (log, 1000, NULL, NULL));
  rtpcc_arrival_log_free (log);
}

GST_END_TEST;

/* ---- tshark ------------------------------------------------------------ */

#define PCAP_PORT 5005

/* tshark's options besides the file: our RTCP port, heuristics on */
static const gchar *const tshark_opts[] = {
  "-d", "udp.port==" G_STRINGIFY (PCAP_PORT) ",rtcp",
  "-o", "rtcp.heuristic_rtcp:TRUE", NULL
};

GST_START_TEST (test_tshark_dissection)
{
  gchar *tshark = tshark_find ("test_tshark_dissection");
  GByteArray *pcap;
  guint8 pkt[512];
  gchar *dir, *file, *out, *want;
  gsize n = 0, fb_len;
  RtpccRtcpSR sr = { 0 };
  RtpccRtcpRR rr = { 0 };

  if (tshark == NULL)
    return;

  pcap = test_pcap_new ();

  /* frame 1: reduced-size CCFB */
  fb_len = make_ccfb_sample (pkt, sizeof (pkt));
  test_pcap_add (pcap, 1, PCAP_PORT, pkt, fb_len);

  /* frame 2: SR (one block) + SDES CNAME + CCFB */
  sr.ssrc = 0x11111111;
  sr.ntp = G_GUINT64_CONSTANT (0xE875470140000000);
  sr.rtp_ts = 90000;
  sr.packet_count = 321;
  sr.octet_count = 123456;
  sr.n_blocks = 1;
  fill_block (&sr.blocks[0], 0x33333333, 25, 9, 70000, 42, 0xb7052000,
      0x00054000);
  n += rtpcc_rtcp_write_sr (pkt, sizeof (pkt), &sr);
  n += rtpcc_rtcp_write_sdes_cname (pkt + n, sizeof (pkt) - n, 0x11111111,
      "rtpcc@example.org");
  n += make_ccfb_sample (pkt + n, sizeof (pkt) - n);
  test_pcap_add (pcap, 2, PCAP_PORT, pkt, n);

  /* frame 3: RR with a negative cumulative loss */
  rr.ssrc = 0x44444444;
  rr.n_blocks = 2;
  fill_block (&rr.blocks[0], 0x55555555, 0, -5, 1000, 0, 0, 0);
  fill_block (&rr.blocks[1], 0x66666666, 255, 0x7FFFFF, 2000, 7, 0, 0);
  n = rtpcc_rtcp_write_rr (pkt, sizeof (pkt), &rr);
  test_pcap_add (pcap, 3, PCAP_PORT, pkt, n);

  file = test_pcap_save (pcap, "rtpcc-fb-XXXXXX", "feedback.pcap", &dir);

  /* the verbose tree: no malformed packet, no error-level expert info, every
   * RTCP length check OK */
  out = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_clean (out);
  fail_unless (strstr (out, "Sender Report") != NULL, "%s", out);
  fail_unless (strstr (out, "rtpcc@example.org") != NULL, "%s", out);
  fail_unless (strstr (out, "Generic RTP Feedback (205)") != NULL, "%s", out);
  g_free (out);

  /* field values, one line per frame */
  out = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "frame.number", "-e", "rtcp.pt", "-e", "rtcp.length_check",
      "-e", "rtcp.senderssrc", "-e", "rtcp.rtpfb.fmt",
      "-e", "rtcp.timestamp.ntp.msw", "-e", "rtcp.timestamp.ntp.lsw",
      "-e", "rtcp.sender.packetcount", "-e", "rtcp.sender.octetcount",
      "-e", "rtcp.ssrc.identifier", "-e", "rtcp.ssrc.fraction",
      "-e", "rtcp.ssrc.cum_nr", "-e", "rtcp.ssrc.ext_high",
      "-e", "rtcp.ssrc.jitter", "-e", "rtcp.ssrc.lsr", "-e", "rtcp.ssrc.dlsr",
      "-e", "rtcp.sdes.type", "-e", "rtcp.sdes.text", NULL});
  {
    gchar **lines = g_strsplit (out, "\n", -1);
    const gchar *want_lines[] = {
      /* frame 1: a lone CCFB */
      "1;205;1;0x11111111;11;;;;;;;;;;;;;",
      /* frame 2: SR + SDES + CCFB: the SR fields and its block; the SDES
       * chunk's SSRC is an "identifier" too, its items CNAME then END */
      "2;200,202,205;1;0x11111111,0x11111111;11;3900000001;1073741824;"
          "321;123456;0x33333333,0x11111111;25;9;70000;42;3070566400;344064;"
          "1,0;rtpcc@example.org",
      "3;201;1;0x44444444;;;;;;0x55555555,0x66666666;0,255;-5,8388607;"
          "1000,2000;0,7;"
          "0,0;0,0;;",
    };
    for (guint i = 0; i < G_N_ELEMENTS (want_lines); i++) {
      fail_unless (lines[i] != NULL);
      fail_unless_equals_string (lines[i], want_lines[i]);
    }
    g_strfreev (lines);
  }
  g_free (out);

  if (tshark_has_field (tshark, "rtcp.rtpfb.ccfb.beginseq")) {
    /* a Wireshark that dissects RFC 8888 (newer than 4.0) */
    out = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
        "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
        "-e", "rtcp.rtpfb.ccfb.beginseq", "-e", "rtcp.rtpfb.ccfb.numreports",
        NULL});
    fail_unless (g_str_has_prefix (out, "100;3\n100;3\n"), "%s", out);
    g_free (out);
  } else {
    /* tshark 4.0 stops at the RFC 4585 common header: the first media SSRC
     * and the FCI bytes must be exactly ours */
    out = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
        "-V", "-Y", "frame.number == 1", NULL});
    want = g_strdup ("Feedback Control Information (FCI): "
        "00640003c0400000bffe000012345678");
    fail_unless (strstr (out, want) != NULL, "%s", out);
    fail_unless (strstr (out, "Media source SSRC: 0x22222222") != NULL, "%s",
        out);
    fail_unless (strstr (out, "(FMT): Unknown (11)") != NULL, "%s", out);
    g_free (want);
    g_free (out);
  }

  test_pcap_remove (file, dir);
  g_free (tshark);
}

GST_END_TEST;

static Suite *
rtpcc_feedback_suite (void)
{
  Suite *s = suite_create ("rtpcc_feedback");
  TCase *tc = tcase_create ("rtcp");
  TCase *tc_ccfb = tcase_create ("ccfb");
  TCase *tc_log = tcase_create ("arrivallog");
  TCase *tc_tshark = tcase_create ("tshark");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ntp_conversions);
  tcase_add_test (tc, test_rtt_from_lsr);
  tcase_add_test (tc, test_sr_layout_and_round_trip);
  tcase_add_test (tc, test_rr_layout_and_clamp);
  tcase_add_test (tc, test_sdes_cname);
  tcase_add_test (tc, test_compound_iteration);
  tcase_add_test (tc, test_rtcp_mux_demux);
  tcase_add_test (tc, test_seq_probation);
  tcase_add_test (tc, test_seq_wrap_and_jumps);
  tcase_add_test (tc, test_fraction_lost);
  tcase_add_test (tc, test_cumulative_lost_clamp);
  tcase_add_test (tc, test_jitter);

  suite_add_tcase (s, tc_ccfb);
  tcase_add_test (tc_ccfb, test_ccfb_layout);
  tcase_add_test (tc_ccfb, test_ccfb_multi_ssrc_wrap);
  tcase_add_test (tc_ccfb, test_ccfb_random_round_trip);
  tcase_add_test (tc_ccfb, test_ccfb_malformed);
  tcase_add_test (tc_ccfb, test_ccfb_ato);

  suite_add_tcase (s, tc_log);
  tcase_add_test (tc_log, test_arrival_log_ccfb);
  tcase_add_test (tc_log, test_arrival_log_bounded_repeats);
  tcase_add_test (tc_log, test_arrival_log_wrap_dup_limits);
  tcase_add_test (tc_log, test_arrival_log_follows_rate);
  tcase_add_test (tc_log, test_arrival_log_multi_ssrc_and_size);
  tcase_add_test (tc_log, test_arrival_log_edges);

  suite_add_tcase (s, tc_tshark);
  tcase_set_timeout (tc_tshark, 120);
  tcase_add_test (tc_tshark, test_tshark_dissection);
  return s;
}

GST_CHECK_MAIN (rtpcc_feedback);

/* Unit tests for RtpccEgress (gst/rtpcc/egress.[ch]): the send queue and
 * the header bytes its packets leave with.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/feedback/rtpext.h>

#include <string.h>

#define MS(x) RTPCC_MSEC (x)

static guint freed;

static void
count_free (gpointer handle)
{
  freed++;
}

static RtpccEgressPacket *
packet (guint16 seq, guint size, gpointer handle)
{
  RtpccRtpInfo i = { 0, };
  guint8 hdr[12];

  i.ssrc = 0x1234;
  i.seq = seq;
  i.pt = 96;
  i.size = size;
  rtpcc_rtp_write_header (&i, hdr, sizeof hdr);
  return rtpcc_egress_packet_new (&i, hdr, 12, 12, handle);
}

/* The pacer lets the head go; over the byte limit the oldest are dropped
 * (their handles freed); drop_all empties the queue. */
GST_START_TEST (test_queue)
{
  RtpccPacerConfig pc;
  RtpccEgress *e;
  RtpccEgressPacket *p;

  rtpcc_pacer_config_init (&pc);
  pc.max_bytes = 2500;
  pc.burst = 0;
  e = rtpcc_egress_new (&pc, 0);
  rtpcc_egress_set_free_func (e, count_free);
  rtpcc_pacer_set_rate (rtpcc_egress_get_pacer (e), 800000);   /* 1 B/10 us */
  freed = 0;
  fail_unless_equals_int (rtpcc_egress_push (e, 0, packet (1, 1000,
              GUINT_TO_POINTER (1))), 0);
  fail_unless_equals_int (rtpcc_egress_push (e, 0, packet (2, 1000,
              GUINT_TO_POINTER (2))), 0);
  /* 3000 > 2500: the oldest goes */
  fail_unless_equals_int (rtpcc_egress_push (e, 0, packet (3, 1000,
              GUINT_TO_POINTER (3))), 1);
  fail_unless_equals_int (freed, 1);
  p = rtpcc_egress_pop (e, 0);
  fail_unless (p && p->info.seq == 2 && p->handle == GUINT_TO_POINTER (2));
  g_free (p);
  /* the next one only a packet time (10 ms) later */
  fail_unless (rtpcc_egress_pop (e, MS (5)) == NULL);
  p = rtpcc_egress_pop (e, MS (10));
  fail_unless (p && p->info.seq == 3);
  g_free (p);
  rtpcc_egress_push (e, MS (10), packet (4, 100, GUINT_TO_POINTER (4)));
  rtpcc_egress_push (e, MS (10), packet (5, 100, GUINT_TO_POINTER (5)));
  fail_unless_equals_int (rtpcc_egress_drop_all (e), 2);
  fail_unless_equals_int (freed, 3);
  rtpcc_egress_push (e, MS (10), packet (6, 100, GUINT_TO_POINTER (6)));
  rtpcc_egress_release (e, GUINT_TO_POINTER (7));
  fail_unless_equals_int (freed, 4);
  rtpcc_egress_free (e);        /* the queued one too */
  fail_unless_equals_int (freed, 5);
}

GST_END_TEST;

/* The wire: the queued header with the wire seq and the transport-wide
 * seq (a new block, appended to a one-byte or two-byte block, or written
 * over the element if it is there), then what else the prefix holds,
 * then the caller's bytes from tail_offset. */
GST_START_TEST (test_write)
{
  RtpccPacerConfig pc;
  RtpccEgress *e;
  /* V=2 X=1 CC=1, seq 0x0102; CSRC; one-byte block: ID 2 (1 byte) */
  static const guint8 with_block[] = {
    0x91, 0x60, 0x01, 0x02, 0, 0, 0, 9, 0, 0, 0x12, 0x34,
    0xCC, 0xCC, 0xCC, 0xCC,
    0xBE, 0xDE, 0x00, 0x01, 0x20, 0x77, 0x00, 0x00,
  };
  static const guint8 want[] = {
    0x91, 0x60, 0xAB, 0xCD, 0, 0, 0, 9, 0, 0, 0x12, 0x34,
    0xCC, 0xCC, 0xCC, 0xCC,
    0xBE, 0xDE, 0x00, 0x02, 0x20, 0x77, 0x11, 0xBE, 0xEF, 0x00, 0x00, 0x00,
    0xF0, 0xF1,                 /* the rest of the prefix (an FEC header) */
  };
  guint8 prefix[sizeof with_block + 2];
  RtpccRtpInfo i = { 0, };
  RtpccEgressPacket *p;
  RtpccWirePacket w;

  rtpcc_pacer_config_init (&pc);
  e = rtpcc_egress_new (&pc, 1);
  memcpy (prefix, with_block, sizeof with_block);
  prefix[sizeof with_block] = 0xF0;
  prefix[sizeof with_block + 1] = 0xF1;
  i.ssrc = 0x1234;
  i.seq = 0x0102;
  i.size = 500;
  p = rtpcc_egress_packet_new (&i, prefix, sizeof with_block, sizeof prefix,
      GUINT_TO_POINTER (1));
  rtpcc_egress_write (e, p, 0xABCD, TRUE, 0xBEEF, &w);
  fail_unless_equals_int (w.head_len, sizeof want);
  fail_unless (memcmp (w.head, want, sizeof want) == 0);
  fail_unless_equals_int (w.tail_offset, sizeof prefix);
  fail_unless_equals_int (w.size, sizeof want + 500 - sizeof prefix);
  fail_unless (w.info.has_twcc && w.info.twcc_seq == 0xBEEF
      && w.info.seq == 0xABCD && w.handle == GUINT_TO_POINTER (1));
  /* not in TWCC mode: the header as it was, but the seq */
  rtpcc_egress_write (e, p, 0x0102, FALSE, 0, &w);
  fail_unless_equals_int (w.head_len, sizeof prefix);
  fail_unless (memcmp (w.head, prefix, sizeof prefix) == 0);
  fail_if (w.info.has_twcc);
  g_free (p);

  /* the element already there (a relay, or upstream stamped it): written
   * over, nothing added */
  {
    guint8 h[32];
    gsize n;
    n = rtpcc_rtp_add_twcc_seq (with_block, sizeof with_block, 1, 0x5555, h,
        sizeof h);
    fail_unless (n == 28);
    p = rtpcc_egress_packet_new (&i, h, n, n, NULL);
    rtpcc_egress_write (e, p, 0x0102, TRUE, 0x0001, &w);
    fail_unless_equals_int (w.head_len, 28);
    fail_unless (w.head[22] == 0x11 && w.head[23] == 0x00
        && w.head[24] == 0x01);
    g_free (p);
  }
  /* a block that cannot take it (ID 15 ends it): sent unstamped, counted */
  {
    guint8 h[24];
    memcpy (h, with_block, sizeof h);
    h[20] = 0xF0;
    p = rtpcc_egress_packet_new (&i, h, sizeof h, sizeof h, NULL);
    rtpcc_egress_write (e, p, 0x0103, TRUE, 0x0002, &w);
    fail_if (w.info.has_twcc);
    fail_unless_equals_int (w.head_len, sizeof h);
    fail_unless (w.head[2] == 0x01 && w.head[3] == 0x03);
    fail_unless_equals_uint64 (rtpcc_egress_get_stamp_errors (e), 1);
    g_free (p);
  }
  rtpcc_egress_free (e);
}

GST_END_TEST;

/* A probe is written whole: header (+ the TWCC block), P bit, padding
 * whose last byte counts it. */
GST_START_TEST (test_probe)
{
  RtpccPacerConfig pc;
  RtpccEgress *e;
  RtpccRtpInfo i = { 0, }, back;
  RtpccWirePacket w;

  rtpcc_pacer_config_init (&pc);
  e = rtpcc_egress_new (&pc, 3);
  i.ssrc = 0x99;
  i.seq = 7;
  i.rtp_ts = 1234;
  i.pt = 96;
  i.size = RTPCC_PROBE_PACKET_SIZE;
  i.has_twcc = TRUE;
  i.twcc_seq = 42;
  rtpcc_egress_write_probe (e, &i, RTPCC_PROBE_PADDING, &w);
  fail_unless_equals_int (w.size, RTPCC_PROBE_PACKET_SIZE + 8);
  fail_unless_equals_int (w.head_len, w.size);
  fail_unless (w.handle == NULL && w.tail_offset == 0);
  fail_unless_equals_int (w.head[0], 0xB0);    /* V=2, P, X */
  fail_unless_equals_int (w.head[w.size - 1], RTPCC_PROBE_PADDING);
  fail_unless (rtpcc_rtp_parse (w.head, w.head_len, w.size, 3, &back, NULL));
  fail_unless (back.padding_only && back.has_twcc && back.twcc_seq == 42
      && back.ssrc == 0x99 && back.seq == 7 && back.rtp_ts == 1234
      && !back.marker);
  /* without TWCC: 12 + 255 */
  i.has_twcc = FALSE;
  rtpcc_egress_write_probe (e, &i, RTPCC_PROBE_PADDING, &w);
  fail_unless_equals_int (w.size, RTPCC_PROBE_PACKET_SIZE);
  fail_unless_equals_int (w.head[0], 0xA0);
  rtpcc_egress_free (e);
}

GST_END_TEST;

/* Renumbering in place (sendbuffer): only the sequence number changes,
 * and nothing is written into what is not RTP. */
GST_START_TEST (test_set_seq)
{
  RtpccRtpInfo i = { 0 };
  guint8 pkt[32], before[32];
  gsize n;
  RtpccRtpLayout l;

  i.ssrc = 0x11223344;
  i.seq = 65535;
  i.rtp_ts = 0xdeadbeef;
  i.pt = 96;
  i.marker = TRUE;
  n = rtpcc_rtp_write_header (&i, pkt, sizeof pkt);
  fail_unless_equals_int (n, 12);
  memset (pkt + n, 0xa5, sizeof pkt - n);
  memcpy (before, pkt, sizeof pkt);
  fail_unless (rtpcc_rtp_set_seq (pkt, sizeof pkt, 7));
  fail_unless (rtpcc_rtp_parse_layout (pkt, sizeof pkt, &l));
  fail_unless_equals_int (l.seq, 7);
  fail_unless_equals_int (l.ssrc, 0x11223344);
  fail_unless_equals_int (l.timestamp, 0xdeadbeef);
  fail_unless (l.marker && l.pt == 96);
  fail_unless (memcmp (pkt, before, 2) == 0);
  fail_unless (memcmp (pkt + 4, before + 4, sizeof pkt - 4) == 0);
  /* not RTP (version 0, too short): untouched */
  pkt[0] = 0;
  memcpy (before, pkt, sizeof pkt);
  fail_if (rtpcc_rtp_set_seq (pkt, sizeof pkt, 9));
  fail_if (rtpcc_rtp_set_seq (before, 8, 9));
  fail_unless (memcmp (pkt, before, sizeof pkt) == 0);
  fail_if (rtpcc_rtp_set_seq (NULL, 0, 9));
}

GST_END_TEST;

static Suite *
rtpcc_egress_suite (void)
{
  Suite *s = suite_create ("rtpcc_egress");
  TCase *tc = tcase_create ("egress");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_queue);
  tcase_add_test (tc, test_write);
  tcase_add_test (tc, test_probe);
  tcase_add_test (tc, test_set_seq);
  return s;
}

GST_CHECK_MAIN (rtpcc_egress);

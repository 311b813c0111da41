/* Unit tests for RtpccProber (gst/rtpcc/prober.[ch]): the probe schedule,
 * media-SSRC renumbering, and the FEC header rewrite.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/fec.h>

#define MS(x) RTPCC_MSEC (x)
#define MEDIA 0x11112222u
#define RATE 267000             /* bit/s: one probe per 8 ms */

typedef struct
{
  RtpccRng rng;
  RtpccSentHistory *h;
  RtpccProber *p;
} Fix;

static Fix *
fix_new (RtpccProbeSsrcMode mode, guint32 probe_ssrc)
{
  Fix *f = g_new0 (Fix, 1);
  RtpccProberConfig c = { TRUE, mode, probe_ssrc, 0 };

  rtpcc_rng_init_stream (&f->rng, 3, 1);
  f->h = rtpcc_sent_history_new (mode == RTPCC_PROBE_SSRC_MEDIA);
  f->p = rtpcc_prober_new (&c, f->h, &f->rng);
  return f;
}

static void
fix_free (Fix * f)
{
  rtpcc_prober_free (f->p);
  rtpcc_sent_history_free (f->h);
  g_free (f);
}

static RtpccRtpInfo
media (guint16 seq, gboolean marker, guint32 ts)
{
  RtpccRtpInfo i = { 0, };

  i.ssrc = MEDIA;
  i.seq = seq;
  i.rtp_ts = ts;
  i.pt = 96;
  i.marker = marker;
  i.size = 1000;
  i.clock_rate = 90000;
  return i;
}

/* What a sender does with a media packet: queue, then send it at @now
 * (wire seq from the prober, recorded). Returns the wire seq. */
static guint16
send_media (Fix * f, RtpccTime now, guint16 seq, gboolean marker, guint32 ts)
{
  RtpccRtpInfo i = media (seq, marker, ts);

  rtpcc_prober_on_enqueue (f->p, now, &i);
  i.seq = rtpcc_prober_wire_seq (f->p, &i);
  rtpcc_sent_history_record (f->h, now, &i, seq, i.size - 12, FALSE);
  return i.seq;
}

static gboolean
probe (Fix * f, RtpccTime now, guint64 rate, RtpccRtpInfo * pi)
{
  if (!rtpcc_prober_next_probe (f->p, now, rate, FALSE, pi))
    return FALSE;
  rtpcc_sent_history_record (f->h, now, pi, pi->seq, 0, TRUE);
  return TRUE;
}

/* SEPARATE: an SSRC of its own, one probe per packet time at the asked
 * rate, none without media, while blocked, or while real FEC flows. */
GST_START_TEST (test_separate_schedule)
{
  Fix *f = fix_new (RTPCC_PROBE_SSRC_SEPARATE, 0x5eed);
  RtpccRtpInfo pi, p0;
  RtpccRtpInfo fec = media (1, FALSE, 0);

  /* nothing to take a PT from yet */
  fail_if (rtpcc_prober_wanted (f->p, 0, RATE, FALSE));
  fail_unless (rtpcc_prober_next_time (f->p, 0, RATE, FALSE) ==
      RTPCC_TIME_NONE);
  send_media (f, 0, 10, FALSE, 0);
  fail_unless (rtpcc_prober_wanted (f->p, 0, RATE, FALSE));
  fail_if (rtpcc_prober_wanted (f->p, 0, 0, FALSE));
  fail_if (rtpcc_prober_wanted (f->p, 0, RATE, TRUE));
  fail_unless_equals_int64 (rtpcc_prober_next_time (f->p, MS (1), RATE,
          FALSE), MS (1));

  fail_unless (probe (f, MS (1), RATE, &p0));
  fail_unless_equals_int (p0.ssrc, 0x5eed);
  fail_unless_equals_int (p0.pt, 96);
  fail_unless_equals_int (p0.size, RTPCC_PROBE_PACKET_SIZE);
  fail_unless (p0.is_fec && p0.padding_only && !p0.marker);
  /* the next one a packet time later: 267 B at 267 kbit/s = 8 ms */
  fail_if (probe (f, MS (8), RATE, &pi));
  fail_unless_equals_int64 (rtpcc_prober_next_time (f->p, MS (8), RATE,
          FALSE), MS (9));
  fail_unless (probe (f, MS (9), RATE, &pi));
  fail_unless_equals_int (pi.seq, (guint16) (p0.seq + 1));
  /* its clock advances at 90 kHz (truncated to whole ticks) */
  fail_unless (pi.rtp_ts - p0.rtp_ts >= 719 && pi.rtp_ts - p0.rtp_ts <= 720);
  /* no catching up after a late wake-up (due at 17 ms): the next one at
   * most 5 ms of credit early */
  fail_unless (probe (f, MS (100), RATE, &pi));
  fail_if (probe (f, MS (100), RATE, &pi));
  fail_unless_equals_int64 (rtpcc_prober_next_time (f->p, MS (100), RATE,
          FALSE), MS (103));
  fail_unless_equals_uint64 (rtpcc_prober_get_stats (f->p)->probe_packets,
      3);
  fail_unless_equals_uint64 (rtpcc_prober_get_stats (f->p)->probe_bytes,
      3 * RTPCC_PROBE_PACKET_SIZE);
  fail_unless_equals_uint64 (rtpcc_prober_get_stats
      (f->p)->probe_media_packets, 0);

  /* real FEC queued: it is the probe for RTPCC_PROBER_FEC_HOLDOFF */
  fec.ssrc = 0xfec;
  fec.is_fec = TRUE;
  rtpcc_prober_on_enqueue (f->p, MS (200), &fec);
  fail_if (rtpcc_prober_wanted (f->p, MS (200) +
          RTPCC_PROBER_FEC_HOLDOFF - 1, RATE, FALSE));
  fail_unless (rtpcc_prober_wanted (f->p, MS (200) +
          RTPCC_PROBER_FEC_HOLDOFF, RATE, FALSE));
  fix_free (f);
}

GST_END_TEST;

/* MEDIA: padding only after a frame's last packet, as the next wire seq
 * with the frame's PT and timestamp; the media after it is renumbered by
 * the padding sent so far; a duplicate keeps its first wire seq. */
GST_START_TEST (test_media_renumbering)
{
  Fix *f = fix_new (RTPCC_PROBE_SSRC_MEDIA, 0);
  RtpccRtpInfo pi;
  guint16 wire;

  fail_unless_equals_int (send_media (f, 0, 100, FALSE, 3000), 100);
  /* mid-frame: the probe waits for the frame end, keeping its schedule */
  fail_if (rtpcc_prober_wanted (f->p, 0, RATE, FALSE));
  fail_if (probe (f, 0, RATE, &pi));
  fail_unless_equals_int (send_media (f, MS (1), 101, TRUE, 3000), 101);
  fail_unless (probe (f, MS (1), RATE, &pi));
  fail_unless (pi.ssrc == MEDIA && pi.seq == 102 && pi.pt == 96
      && pi.rtp_ts == 3000 && !pi.marker && pi.padding_only);
  fail_unless_equals_int (pi.clock_rate, 90000);
  fail_unless (probe (f, MS (9), RATE, &pi));
  fail_unless_equals_int (pi.seq, 103);
  /* the next frame: original 102, 103 go out as 104, 105 */
  fail_unless_equals_int (send_media (f, MS (40), 102, FALSE, 6600), 104);
  fail_if (probe (f, MS (40), RATE, &pi));
  fail_unless_equals_int (send_media (f, MS (41), 103, TRUE, 6600), 105);
  fail_unless_equals_uint64 (rtpcc_prober_get_stats
      (f->p)->probe_media_packets, 2);

  /* the map for FEC headers: sent packets by their wire seq, the rest at
   * the current offset */
  fail_unless (rtpcc_prober_map_seq (f->p, MEDIA, 101, &wire));
  fail_unless_equals_int (wire, 101);
  fail_unless (rtpcc_prober_map_seq (f->p, MEDIA, 103, &wire));
  fail_unless_equals_int (wire, 105);
  fail_unless (rtpcc_prober_map_seq (f->p, MEDIA, 110, &wire));
  fail_unless_equals_int (wire, 112);
  fail_if (rtpcc_prober_map_seq (f->p, 0x999, 1, &wire));

  /* upstream repeats 102: the wire seq it had, and padding still goes
   * after 105 */
  fail_unless_equals_int (send_media (f, MS (42), 102, FALSE, 6600), 104);
  fail_unless (probe (f, MS (50), RATE, &pi));
  fail_unless_equals_int (pi.seq, 106);

  /* FEC names the SSRC: never padded again */
  rtpcc_prober_note_fec_protected (f->p, MEDIA);
  fail_unless_equals_int (send_media (f, MS (80), 104, TRUE, 9000), 107);
  fail_if (rtpcc_prober_wanted (f->p, MS (100), RATE, FALSE));
  fix_free (f);
}

GST_END_TEST;

/* An FEC packet of our format protecting @n media packets from @base
 * (consecutive original seqs) on MEDIA */
static gsize
fec_packet (guint8 * out, guint16 base, guint n)
{
  guint64 mask = 0;

  memset (out, 0, 12 + RTPCC_FEC_HEADER_LEN + 8);
  out[0] = 0x80;
  out[1] = 122;
  out[11] = 0x0f;               /* FEC SSRC 0xf */
  out[12] = 0x40;               /* V = 1, XOR */
  out[14] = 1;                  /* m */
  GST_WRITE_UINT32_BE (out + 16, MEDIA);
  GST_WRITE_UINT16_BE (out + 20, base);
  for (guint i = 0; i < n; i++)
    mask |= G_GUINT64_CONSTANT (1) << (47 - i);
  GST_WRITE_UINT16_BE (out + 22, (guint16) (mask >> 32));
  GST_WRITE_UINT32_BE (out + 24, (guint32) mask);
  return 12 + RTPCC_FEC_HEADER_LEN + 8;
}

/* FEC about packets that straddle a probe gets their wire seqs; a set the
 * renumbering spreads past 48 seqs is dropped. */
GST_START_TEST (test_rewrite_fec)
{
  Fix *f = fix_new (RTPCC_PROBE_SSRC_MEDIA, 0);
  RtpccRtpInfo pi;
  RtpccFecPacket fp;
  guint8 pkt[64];
  gsize len;

  /* nothing renumbered yet: kept as is */
  len = fec_packet (pkt, 10, 4);
  fail_if (rtpcc_prober_fec_needs_rewrite (f->p));
  fail_unless_equals_int (rtpcc_prober_rewrite_fec (f->p, pkt, len, pkt + 12),
      RTPCC_PROBER_FEC_KEPT);

  send_media (f, 0, 10, FALSE, 0);
  send_media (f, 0, 11, TRUE, 0);
  fail_unless (probe (f, 0, RATE, &pi));        /* takes wire 12 */
  send_media (f, MS (40), 12, TRUE, 3600);      /* wire 13 */
  fail_unless (rtpcc_prober_fec_needs_rewrite (f->p));
  /* 10, 11, 12, 13 (13 not sent yet: at the current offset, 14) */
  rtpcc_prober_note_fec_protected (f->p, MEDIA);
  len = fec_packet (pkt, 10, 4);
  fail_unless_equals_int (rtpcc_prober_rewrite_fec (f->p, pkt, len, pkt + 12),
      RTPCC_PROBER_FEC_REWRITTEN);
  fail_unless (rtpcc_fec_packet_parse (pkt, len, &fp, NULL));
  fail_unless_equals_int (fp.base, 10);
  /* 10 11 _ 13 14 */
  fail_unless_equals_uint64 (fp.mask, G_GUINT64_CONSTANT (0xd8) << 40);
  rtpcc_fec_packet_clear (&fp);
  /* packets all before the probe keep their seqs */
  len = fec_packet (pkt, 10, 2);
  fail_unless_equals_int (rtpcc_prober_rewrite_fec (f->p, pkt, len, pkt + 12),
      RTPCC_PROBER_FEC_KEPT);
  /* 48 packets from 10 now span 49 wire seqs */
  len = fec_packet (pkt, 10, 48);
  fail_unless_equals_int (rtpcc_prober_rewrite_fec (f->p, pkt, len, pkt + 12),
      RTPCC_PROBER_FEC_DROP);
  fail_unless_equals_uint64 (rtpcc_prober_get_stats (f->p)->fec_rewritten,
      1);
  fail_unless_equals_uint64 (rtpcc_prober_get_stats
      (f->p)->fec_rewrite_drops, 1);
  /* not our FEC format: kept */
  pkt[12] = 0x80;
  fail_unless_equals_int (rtpcc_prober_rewrite_fec (f->p, pkt, len, pkt + 12),
      RTPCC_PROBER_FEC_KEPT);
  fix_free (f);
}

GST_END_TEST;

static Suite *
rtpcc_prober_suite (void)
{
  Suite *s = suite_create ("rtpcc_prober");
  TCase *tc = tcase_create ("prober");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_separate_schedule);
  tcase_add_test (tc, test_media_renumbering);
  tcase_add_test (tc, test_rewrite_fec);
  return s;
}

GST_CHECK_MAIN (rtpcc_prober);

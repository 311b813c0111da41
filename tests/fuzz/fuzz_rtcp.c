/* Fuzz target: RTCP compound iteration, SR/RR parsing (with a write-back
 * check), the CCFB parser reached through the iterator, LSR/DLSR RTT, the
 * report-interval request (APP "FBIV", with a write-back check), the
 * sender's TMMBR/REMB cap (ratecap.h) on the whole compound, and the
 * RFC 3550 A.1/A.3/A.8 receiver statistics driven by the same bytes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <string.h>

static void
check_sr (const RtpccRtcpPacket * pkt)
{
  RtpccRtcpSR sr;
  guint8 buf[28 + 31 * 24];
  gsize n;

  if (!rtpcc_rtcp_parse_sr (pkt, &sr))
    return;
  FUZZ_CHECK (sr.n_blocks == pkt->count);
  /* writing back gives the same fields, byte for byte */
  n = rtpcc_rtcp_write_sr (buf, sizeof (buf), &sr);
  FUZZ_CHECK (n == 28 + (gsize) sr.n_blocks * 24);
  FUZZ_CHECK (n <= pkt->len);
  FUZZ_CHECK ((buf[0] & 0x1f) == pkt->count && buf[1] == pkt->pt);
  FUZZ_CHECK (memcmp (buf + 4, pkt->data + 4, n - 4) == 0);
  for (guint i = 0; i < sr.n_blocks; i++) {
    RtpccTime rtt = rtpcc_rtcp_rtt_from_lsr ((guint32) (sr.ntp >> 16),
        sr.blocks[i].lsr, sr.blocks[i].dlsr);
    FUZZ_CHECK (rtt == RTPCC_TIME_NONE || (rtt >= 0
            && rtt <= RTPCC_RTCP_RTT_MAX));
    FUZZ_CHECK (sr.blocks[i].cumulative_lost >= -0x800000
        && sr.blocks[i].cumulative_lost <= 0x7fffff);
  }
}

static void
check_rr (const RtpccRtcpPacket * pkt)
{
  RtpccRtcpRR rr;
  guint8 buf[8 + 31 * 24];
  gsize n;

  if (!rtpcc_rtcp_parse_rr (pkt, &rr))
    return;
  FUZZ_CHECK (rr.n_blocks == pkt->count);
  n = rtpcc_rtcp_write_rr (buf, sizeof (buf), &rr);
  FUZZ_CHECK (n == 8 + (gsize) rr.n_blocks * 24);
  FUZZ_CHECK (n <= pkt->len);
  FUZZ_CHECK (memcmp (buf + 4, pkt->data + 4, n - 4) == 0);
}

static void
check_ccfb (const RtpccRtcpPacket * pkt)
{
  GError *err = NULL;
  RtpccCcfb *fb = rtpcc_ccfb_parse (pkt->data, pkt->len, &err);
  gsize total = 12;

  if (fb == NULL) {
    FUZZ_CHECK (err != NULL);
    g_error_free (err);
    return;
  }
  FUZZ_CHECK (err == NULL);
  for (guint b = 0; b < fb->n_blocks; b++) {
    FUZZ_CHECK (fb->blocks[b].num_reports <= RTPCC_CCFB_MAX_REPORTS);
    total += 8 + (((gsize) fb->blocks[b].num_reports * 2 + 3) & ~(gsize) 3);
  }
  /* every byte is accounted for, up to the padding */
  FUZZ_CHECK (total + pkt->padding_len == pkt->len);
  rtpcc_ccfb_free (fb);
}

static void
drive_stats (const guint8 * data, size_t size)
{
  RtpccRtpSourceStats s;
  RtpccRtcpReportBlock b;
  RtpccTime t = 0;

  rtpcc_rtp_source_init (&s, 1);
  if (size > 0)
    s.min_sequential = data[0] & 3;
  /* 8 bytes a packet: seq, RTP ts, arrival step (µs), report? */
  for (size_t i = 1; i + 8 <= size; i += 8) {
    const guint8 *p = data + i;
    guint16 seq = (guint16) ((p[0] << 8) | p[1]);
    guint32 ts = ((guint32) p[2] << 24) | ((guint32) p[3] << 16) |
        ((guint32) p[4] << 8) | p[5];

    t += (RtpccTime) p[6] * 1000;
    if (rtpcc_rtp_source_update_seq (&s, seq))
      rtpcc_rtp_source_update_jitter (&s, t, ts, p[7] & 1 ? 90000 : 48000);
    if (p[7] & 0x80) {
      if (rtpcc_rtp_source_make_report_block (&s, t, p[7], t - p[6], &b))
        FUZZ_CHECK (b.cumulative_lost >= -0x800000
            && b.cumulative_lost <= 0x7fffff);
    }
  }
}

static void
check_app (const RtpccRtcpPacket * pkt)
{
  guint32 ssrc;
  RtpccTime iv;
  guint8 buf[RTPCC_REPORT_INTERVAL_SIZE];

  if (!rtpcc_report_interval_parse (pkt->data, pkt->len, &ssrc, &iv))
    return;
  FUZZ_CHECK (iv >= 1000 && iv % 1000 == 0);
  FUZZ_CHECK (rtpcc_report_interval_write (buf, sizeof buf, ssrc, iv) ==
      sizeof buf);
  FUZZ_CHECK (memcmp (buf, pkt->data, sizeof buf) == 0);
}

/* the cap never raises a target, and its TMMBN parses */
static void
drive_cap (const guint8 * data, gsize size)
{
  RtpccRateCap *cap = rtpcc_rate_cap_new (0x1234);
  RtpccTarget t = { 0, };
  guint8 buf[8 + 12 + 8 * RTPCC_TMMBR_MAX_REQUESTERS];
  guint64 limit;
  gsize n;

  (void) rtpcc_rate_cap_receive (cap, data, size);
  limit = rtpcc_rate_cap_limit (cap);
  t.target_bitrate = 5000000;
  t.fec_bitrate = 1000000;
  t.media_bitrate = 4000000;
  t.pacing_rate = 7500000;
  (void) rtpcc_rate_cap_apply (cap, &t);
  FUZZ_CHECK (t.target_bitrate <= MIN (limit, 5000000));
  FUZZ_CHECK (t.media_bitrate + t.fec_bitrate <= t.target_bitrate);
  n = rtpcc_rate_cap_write_tmmbn (cap, buf, sizeof buf);
  if (n > 0) {
    RtpccTmmb *tm = rtpcc_tmmbn_parse (buf, n, NULL);
    FUZZ_CHECK (tm != NULL);
    rtpcc_tmmb_free (tm);
  }
  rtpcc_rate_cap_free (cap);
}

/* An MPRTCP packet (mprtp/ext.h): what parses writes back to a packet
 * that parses to the same reports. */
static void
check_mprtcp (const RtpccRtcpPacket * pkt)
{
  RtpccMprtcp mp, again;
  guint8 buf[12 + RTPCC_MPRTCP_MAX_REPORTS * 56];
  gsize n;

  if (!rtpcc_mprtcp_parse (pkt->data, pkt->len, &mp))
    return;
  FUZZ_CHECK (mp.n_reports <= RTPCC_MPRTCP_MAX_REPORTS);
  if (mp.n_reports == 0)
    return;
  n = rtpcc_mprtcp_write (buf, sizeof buf, mp.sender_ssrc, mp.media_ssrc,
      mp.reports, mp.n_reports);
  FUZZ_CHECK (n > 0);
  FUZZ_CHECK (rtpcc_mprtcp_parse (buf, n, &again));
  FUZZ_CHECK (again.n_reports == mp.n_reports);
  FUZZ_CHECK (again.media_ssrc == mp.media_ssrc);
  for (guint i = 0; i < mp.n_reports; i++) {
    const RtpccMprtpSubflowReport *a = &mp.reports[i], *b = &again.reports[i];

    FUZZ_CHECK (a->subflow_id == b->subflow_id);
    FUZZ_CHECK (a->rr.fraction_lost == b->rr.fraction_lost);
    FUZZ_CHECK (a->rr.cumulative_lost == b->rr.cumulative_lost);
    FUZZ_CHECK (a->rr.ext_highest_seq == b->rr.ext_highest_seq);
    FUZZ_CHECK (a->rr.jitter == b->rr.jitter);
    FUZZ_CHECK (a->has_discards == b->has_discards);
    FUZZ_CHECK (!a->has_discards || a->discards == b->discards);
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  gsize covered = 0;
  guint n = 0;

  (void) rtpcc_rtcp_is_rtcp (data, size);
  drive_stats (data, size);
  drive_cap (data, size);

  if (!rtpcc_rtcp_iter_init (&it, data, size))
    return 0;
  FUZZ_CHECK (it.n_packets > 0);
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    FUZZ_CHECK (pkt.data == data + covered);
    FUZZ_CHECK (pkt.len >= 4 && pkt.len % 4 == 0);
    FUZZ_CHECK (pkt.body == pkt.data + 4);
    FUZZ_CHECK (pkt.body_len + 4 + pkt.padding_len == pkt.len);
    covered += pkt.len;
    n++;
    switch (pkt.pt) {
      case RTPCC_RTCP_SR:
        check_sr (&pkt);
        break;
      case RTPCC_RTCP_RR:
        check_rr (&pkt);
        break;
      case RTPCC_RTCP_RTPFB:
        check_ccfb (&pkt);
        break;
      case RTPCC_RTCP_APP:
        check_app (&pkt);
        break;
      case RTPCC_MPRTCP_PT:
        check_mprtcp (&pkt);
        break;
      default:
        break;
    }
  }
  /* a validated compound is walked completely, and exactly */
  FUZZ_CHECK (covered == size);
  FUZZ_CHECK (n == it.n_packets);
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  guint8 buf[1024];
  gsize n = 0;
  RtpccRtcpSR sr = { 0 };
  RtpccRtcpRR rr = { 0 };
  RtpccCcfbMetric m[5] = {
    {0, TRUE, 1, 10}, {0, FALSE, 0, 0}, {0, TRUE, 3, 0x1FFE},
    {0, TRUE, 0, 0x1FFF}, {0, TRUE, 2, 1},
  };
  RtpccCcfbBlockIn blocks[2] = { {0x1234, 65533, 5, m}, {0x99, 7, 2, m} };

  sr.ssrc = 0x11111111;
  sr.ntp = G_GUINT64_CONSTANT (0xE875470140000000);
  sr.n_blocks = 2;
  sr.blocks[0].ssrc = 0x1234;
  sr.blocks[0].lsr = 0xb7052000;
  sr.blocks[0].dlsr = 0x00054000;
  sr.blocks[0].cumulative_lost = -7;
  sr.blocks[1].ssrc = 0x99;
  n += rtpcc_rtcp_write_sr (buf + n, sizeof (buf) - n, &sr);
  n += rtpcc_rtcp_write_sdes_cname (buf + n, sizeof (buf) - n, 0x11111111,
      "fuzz@rtpcc");
  n += rtpcc_ccfb_write (buf + n, sizeof (buf) - n, 0x11111111, 0xE8754701,
      blocks, 2);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));

  rr.ssrc = 0x22;
  rr.n_blocks = 1;
  rr.blocks[0].ssrc = 0x1234;
  rr.blocks[0].fraction_lost = 30;
  n = rtpcc_rtcp_write_rr (buf, sizeof (buf), &rr);
  n += rtpcc_ccfb_write (buf + n, sizeof (buf) - n, 0x22, 1, blocks, 1);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));

  /* what a sender and a receiver say about the rate: APP "FBIV", TMMBR,
   * TMMBN, REMB */
  {
    RtpccTmmbrEntry e = { 0x1234, 300000, 40 };
    guint32 media = 0x1234;
    n = rtpcc_rtcp_write_rr (buf, sizeof (buf), &rr);
    n += rtpcc_report_interval_write (buf + n, sizeof (buf) - n, 0x1234,
        RTPCC_MSEC (250));
    n += rtpcc_tmmbr_write (buf + n, sizeof (buf) - n, 0x22, &e, 1);
    n += rtpcc_tmmbn_write (buf + n, sizeof (buf) - n, 0x1234, &e, 1);
    n += rtpcc_remb_write (buf + n, sizeof (buf) - n, 0x22, 200000, &media,
        1);
    g_ptr_array_add (seeds, g_bytes_new (buf, n));
  }

  /* reduced-size CCFB, padded */
  n = rtpcc_ccfb_write (buf, sizeof (buf), 0x22, 1, blocks + 1, 1);
  buf[0] |= 0x20;
  memset (buf + n, 0, 8);
  n += 8;
  buf[n - 1] = 8;
  buf[3] += 2;
  g_ptr_array_add (seeds, g_bytes_new (buf, n));

  /* one path's regular report in a multipath call: RR, SDES and MPRTCP
   * subflow reports, one with a Discard Count, one without */
  {
    RtpccMprtpSubflowReport sf[2] = { {0}, {0} };

    sf[0].subflow_id = 1;
    sf[0].rr.fraction_lost = 3;
    sf[0].rr.cumulative_lost = 12;
    sf[0].rr.ext_highest_seq = 0x1ffff;
    sf[0].has_discards = TRUE;
    sf[0].discards = 4;
    sf[1].subflow_id = 2;
    sf[1].rr.jitter = 90;
    n = rtpcc_rtcp_write_rr (buf, sizeof (buf), &rr);
    n += rtpcc_rtcp_write_sdes_cname (buf + n, sizeof (buf) - n, 0x22,
        "fuzz@rtpcc");
    n += rtpcc_mprtcp_write (buf + n, sizeof (buf) - n, 0x22, 0x1234, sf, 2);
    g_ptr_array_add (seeds, g_bytes_new (buf, n));
  }
}

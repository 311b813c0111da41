/* MPRTCP subflow reports end to end in the library: an RtpccReceiver that
 * sees one path (rtpcc_receiver_set_mprtp_subflow) puts a subflow report
 * (draft-ietf-avtcore-mprtp §9.2, PT 211) beside its RR with that path's
 * loss by FSSN and its discards, and an RtpccSender keeps the latest one
 * about its media; one without a subflow sends none.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/receiver.h>
#include <rtpcc/sender.h>
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/mprtp/ext.h>

#define MS(x) RTPCC_MSEC (x)
#define MEDIA_SSRC 0x1234

static RtpccReceiver *
new_receiver (void)
{
  RtpccReceiverConfig c;

  rtpcc_receiver_config_init (&c);
  c.seed = 3;
  return rtpcc_receiver_new (&c, 0);
}

/* Packets @first .. @last (FSSN) 10 ms apart from @t0 on, but @skip_a
 * and @skip_b; the time of the last. */
static RtpccTime
feed (RtpccReceiver * r, RtpccTime t0, guint16 first, guint16 last,
    gint skip_a, gint skip_b)
{
  RtpccTime now = t0;

  for (guint q = first; q <= last; q++) {
    RtpccRtpInfo info = { 0, };

    now += MS (10);
    if ((gint) q == skip_a || (gint) q == skip_b)
      continue;
    info.ssrc = MEDIA_SSRC;
    info.seq = (guint16) q;
    info.rtp_ts = q * 900u;
    info.pt = 96;
    info.size = 1000;
    rtpcc_receiver_on_rtp (r, now, &info);
  }
  return now;
}

/* The first regular report compound from @now on. */
static gsize
next_report (RtpccReceiver * r, RtpccTime * now, guint8 * buf, gsize max)
{
  for (guint i = 0; i < 400; i++, *now += MS (10)) {
    guint64 sent = rtpcc_receiver_get_stats (r, *now)->rtcp_sent;
    gsize n = rtpcc_receiver_build_feedback (r, *now, buf, max);

    if (n > 0 && rtpcc_receiver_get_stats (r, *now)->rtcp_sent > sent)
      return n;
  }
  return 0;
}

static gboolean
has_pt (const guint8 * d, gsize n, guint8 pt)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket p;

  fail_unless (rtpcc_rtcp_iter_init (&it, d, n));
  while (rtpcc_rtcp_iter_next (&it, &p))
    if (p.pt == pt)
      return TRUE;
  return FALSE;
}

/* The RR's block about the media, from a compound. */
static RtpccRtcpReportBlock
rr_block (const guint8 * d, gsize n)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket p;
  RtpccRtcpRR rr;

  fail_unless (rtpcc_rtcp_iter_init (&it, d, n));
  while (rtpcc_rtcp_iter_next (&it, &p))
    if (p.pt == RTPCC_RTCP_RR && rtpcc_rtcp_parse_rr (&p, &rr)) {
      fail_unless_equals_int (rr.n_blocks, 1);
      return rr.blocks[0];
    }
  fail ("no RR");
  return rr.blocks[0];
}

GST_START_TEST (test_single_path_sends_none)
{
  RtpccReceiver *r = new_receiver ();
  guint8 buf[1500];
  RtpccTime now = feed (r, 0, 0, 50, -1, -1);
  gsize n = next_report (r, &now, buf, sizeof buf);

  fail_unless (n > 0);
  fail_unless (has_pt (buf, n, RTPCC_RTCP_RR));
  fail_if (has_pt (buf, n, RTPCC_MPRTCP_PT));
  fail_unless_equals_int (rtpcc_receiver_get_stats (r, now)->mprtcp_sent, 0);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* A path also carrying the RTX stream (RFC 4588, its own SSRC and
 * sequence numbers, not FSSN): one subflow report, about the media; the
 * RR still has a block for each. */
GST_START_TEST (test_subflow_report_media_only)
{
  RtpccReceiver *r = new_receiver ();
  guint8 buf[1500];
  RtpccTime now = 0;
  gsize n;
  RtpccMprtcp mp;
  RtpccRtcpIter it;
  RtpccRtcpPacket p;
  guint mprtcp = 0;

  for (guint q = 0; q <= 50; q++) {
    RtpccRtpInfo info = { 0, };

    now += MS (10);
    info.ssrc = MEDIA_SSRC;
    info.seq = (guint16) q;
    info.rtp_ts = q * 900u;
    info.pt = 96;
    info.size = 1000;
    rtpcc_receiver_set_mprtp_subflow (r, 2);
    rtpcc_receiver_on_rtp (r, now, &info);
    if (q % 10 == 5) {
      /* a retransmission, on the RTX SSRC's own numbering */
      info.ssrc = MEDIA_SSRC + 1;
      info.seq = (guint16) (1000 + q);
      info.pt = 97;
      rtpcc_receiver_on_rtp (r, now, &info);
    }
  }
  n = next_report (r, &now, buf, sizeof buf);
  fail_unless (n > 0);
  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  while (rtpcc_rtcp_iter_next (&it, &p))
    if (p.pt == RTPCC_MPRTCP_PT)
      mprtcp++;
  fail_unless_equals_int (mprtcp, 1);
  fail_unless (rtpcc_mprtcp_find (buf, n, &mp));
  fail_unless_equals_int (mp.media_ssrc, MEDIA_SSRC);
  fail_unless_equals_int (mp.reports[0].subflow_id, 2);
  fail_unless_equals_int (rtpcc_receiver_get_stats (r, now)->mprtcp_sent, 1);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

GST_START_TEST (test_subflow_report)
{
  RtpccReceiver *r = new_receiver ();
  guint8 buf[1500];
  RtpccTime now;
  gsize n;
  RtpccMprtcp mp;
  RtpccRtcpReportBlock b;

  rtpcc_receiver_set_mprtp_subflow (r, 3);
  /* FSSN 0..50 with 20 lost, 7 and 9 discarded by the playout */
  now = feed (r, 0, 0, 50, 20, -1);
  fail_unless (rtpcc_receiver_mark_discarded (r, now, MEDIA_SSRC, 7, 1));
  fail_unless (rtpcc_receiver_mark_discarded (r, now, MEDIA_SSRC, 9, 1));
  n = next_report (r, &now, buf, sizeof buf);
  fail_unless (n > 0);
  fail_unless (rtpcc_mprtcp_find (buf, n, &mp));
  fail_unless_equals_int (mp.n_reports, 1);
  fail_unless_equals_int (mp.media_ssrc, MEDIA_SSRC);
  fail_unless_equals_int (mp.sender_ssrc, rtpcc_receiver_get_ssrc (r));
  fail_unless_equals_int (mp.reports[0].subflow_id, 3);
  fail_unless_equals_int (mp.reports[0].rr.cumulative_lost, 1);
  fail_unless_equals_int (mp.reports[0].rr.ext_highest_seq & 0xffff, 50);
  fail_unless (mp.reports[0].has_discards);
  fail_unless_equals_int (mp.reports[0].discards, 2);
  /* the very block of the RR beside it (made once per interval) */
  b = rr_block (buf, n);
  fail_unless_equals_int (b.ssrc, mp.reports[0].rr.ssrc);
  fail_unless_equals_int (b.fraction_lost, mp.reports[0].rr.fraction_lost);
  fail_unless (b.fraction_lost > 0);
  fail_unless_equals_int (b.cumulative_lost, mp.reports[0].rr.cumulative_lost);
  fail_unless_equals_int (b.ext_highest_seq, mp.reports[0].rr.ext_highest_seq);
  fail_unless_equals_int (b.jitter, mp.reports[0].rr.jitter);
  fail_unless_equals_int (b.lsr, mp.reports[0].rr.lsr);
  fail_unless_equals_int (b.dlsr, mp.reports[0].rr.dlsr);
  fail_unless_equals_int (rtpcc_receiver_get_stats (r, now)->mprtcp_sent, 1);

  /* the next interval: cumulative counts go on */
  now = feed (r, now, 51, 80, 60, 61);
  n = next_report (r, &now, buf, sizeof buf);
  fail_unless (rtpcc_mprtcp_find (buf, n, &mp));
  fail_unless_equals_int (mp.reports[0].rr.cumulative_lost, 3);
  fail_unless_equals_int (mp.reports[0].rr.ext_highest_seq & 0xffff, 80);
  fail_unless_equals_int (mp.reports[0].discards, 2);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* A sender that sent media SSRC 0x1234 keeps the latest report about it
 * and rejects one about another SSRC or a malformed one. */
GST_START_TEST (test_sender_consumes)
{
  RtpccSenderConfig cfg;
  RtpccSender *s;
  RtpccMprtpSubflowReport rep = { 0, };
  guint8 rtp[200] = { 0x80, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0x12, 0x34 };
  guint8 buf[200];
  gsize n;
  const RtpccSenderStats *st;

  rtpcc_sender_config_init (&cfg);
  cfg.seed = 5;
  s = rtpcc_sender_new (&cfg, 0, NULL);
  fail_unless_equals_int (rtpcc_sender_enqueue_rtp (s, 0, rtp, sizeof rtp,
          sizeof rtp, NULL), RTPCC_SENDER_QUEUED);

  rep.subflow_id = 1;
  rep.rr.fraction_lost = 64;
  rep.rr.cumulative_lost = 12;
  rep.rr.ext_highest_seq = 70000;
  rep.has_discards = TRUE;
  rep.discards = 4;
  n = rtpcc_mprtcp_write (buf, sizeof buf, 0xabcd, MEDIA_SSRC, &rep, 1);
  fail_unless (n > 0);
  rtpcc_sender_receive_rtcp (s, MS (100), buf, n);
  st = rtpcc_sender_get_stats (s, MS (400));
  fail_unless_equals_int (st->mprtcp_received, 1);
  fail_unless_equals_int (st->mprtcp_rejected, 0);
  fail_unless_equals_int (st->subflow_report.subflow_id, 1);
  fail_unless_equals_int (st->subflow_report.rr.fraction_lost, 64);
  fail_unless_equals_int (st->subflow_report.rr.cumulative_lost, 12);
  fail_unless_equals_int (st->subflow_report.rr.ext_highest_seq, 70000);
  fail_unless_equals_int (st->subflow_report.discards, 4);

  /* about another media SSRC */
  n = rtpcc_mprtcp_write (buf, sizeof buf, 0xabcd, 0x9999, &rep, 1);
  rtpcc_sender_receive_rtcp (s, MS (200), buf, n);
  /* truncated inside its subflow block (the RTCP length says so) */
  n = rtpcc_mprtcp_write (buf, sizeof buf, 0xabcd, MEDIA_SSRC, &rep, 1);
  buf[3] = (guint8) (buf[3] - 2);
  rtpcc_sender_receive_rtcp (s, MS (300), buf, n - 8);
  st = rtpcc_sender_get_stats (s, MS (400));
  fail_unless_equals_int (st->mprtcp_received, 1);
  fail_unless_equals_int (st->mprtcp_rejected, 2);
  fail_unless_equals_int (st->subflow_report.rr.cumulative_lost, 12);
  rtpcc_sender_free (s);
}

GST_END_TEST;

static Suite *
rtpcc_mprtp_report_suite (void)
{
  Suite *s = suite_create ("rtpcc_mprtp_report");
  TCase *tc = tcase_create ("report");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_single_path_sends_none);
  tcase_add_test (tc, test_subflow_report);
  tcase_add_test (tc, test_subflow_report_media_only);
  tcase_add_test (tc, test_sender_consumes);
  return s;
}

GST_CHECK_MAIN (rtpcc_mprtp_report);

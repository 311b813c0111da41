/* A receiver's maximum rate (gst/rtpcc/ratecap.[ch]): RFC 5104 TMMBR
 * answered with TMMBN, and REMB, capping the sender's target; and the
 * receiver's side (rtpcc_receiver_set_max_bitrate) against the sender in a
 * closed loop.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

#include "tshark-util.h"
#include "call-loop.h"

#define MEDIA 0x1234u
#define PEER 0xfeed0001u
#define MS(x) RTPCC_MSEC (x)

static gsize
tmmbr (guint8 * buf, guint32 media, guint64 bitrate)
{
  RtpccTmmbrEntry e = { media, bitrate, 40 };
  gsize n = rtpcc_tmmbr_write (buf, 1500, PEER, &e, 1);

  fail_unless (n > 0);
  return n;
}

static RtpccTarget
target_of (guint64 total, guint64 fec)
{
  RtpccTarget t = { 0, };

  t.target_bitrate = total;
  t.fec_bitrate = fec;
  t.media_bitrate = total - fec;
  t.pacing_rate = total * 3 / 2;
  t.reason = "controller";
  return t;
}

GST_START_TEST (test_cap)
{
  RtpccRateCap *cap = rtpcc_rate_cap_new (MEDIA);
  const RtpccRateCapStats *st = rtpcc_rate_cap_get_stats (cap);
  guint8 buf[1500];
  RtpccTarget t;
  guint32 ssrcs[2] = { 0x99u, MEDIA };
  g_autoptr (RtpccTmmb) n = NULL;
  gsize len;

  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), G_MAXUINT64);
  t = target_of (1000000, 100000);
  fail_if (rtpcc_rate_cap_apply (cap, &t));
  fail_unless_equals_uint64 (t.target_bitrate, 1000000);

  /* a TMMBR about another stream is not ours; no TMMBN is owed */
  fail_if (rtpcc_rate_cap_receive (cap, 0, buf, tmmbr (buf, 0x99u, 500000)));
  fail_if (rtpcc_rate_cap_tmmbn_due (cap));
  /* ours: 500 kbit/s caps the total, media, FEC and pacing alike */
  fail_unless (rtpcc_rate_cap_receive (cap, 0, buf, tmmbr (buf, MEDIA, 500000)));
  fail_unless_equals_uint64 (st->tmmbr_received, 1);
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 500000);
  fail_unless (rtpcc_rate_cap_apply (cap, &t));
  fail_unless_equals_uint64 (t.target_bitrate, 500000);
  fail_unless_equals_uint64 (t.fec_bitrate, 50000);
  fail_unless_equals_uint64 (t.media_bitrate, 450000);
  fail_unless_equals_uint64 (t.pacing_rate, 750000);
  fail_unless_equals_string (t.reason, "tmmbr-limit");
  /* below the limit nothing changes */
  t = target_of (400000, 0);
  fail_if (rtpcc_rate_cap_apply (cap, &t));

  /* the TMMBN: the bounding set, owned by the requester, from our SSRC */
  fail_unless (rtpcc_rate_cap_tmmbn_due (cap));
  len = rtpcc_rate_cap_write_tmmbn (cap, buf, sizeof buf);
  fail_unless (len > 0);
  n = rtpcc_tmmbn_parse (buf, len, NULL);
  fail_unless (n != NULL);
  fail_unless_equals_uint64 (n->sender_ssrc, MEDIA);
  fail_unless_equals_int (n->n_entries, 1);
  fail_unless_equals_uint64 (n->entries[0].ssrc, PEER);
  fail_unless_equals_uint64 (n->entries[0].bitrate, 500000);
  fail_if (rtpcc_rate_cap_tmmbn_due (cap));
  fail_unless_equals_int (rtpcc_rate_cap_write_tmmbn (cap, buf, sizeof buf),
      0);
  fail_unless_equals_uint64 (st->tmmbn_sent, 1);

  /* REMB naming us (among others) caps lower; not naming us: ignored */
  len = rtpcc_remb_write (buf, sizeof buf, PEER, 300000, ssrcs, 2);
  fail_unless (rtpcc_rate_cap_receive (cap, 0, buf, len));
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 300000);
  t = target_of (1000000, 0);
  fail_unless (rtpcc_rate_cap_apply (cap, &t));
  fail_unless_equals_uint64 (t.target_bitrate, 300000);
  fail_unless_equals_string (t.reason, "remb-limit");
  len = rtpcc_remb_write (buf, sizeof buf, PEER, 100000, ssrcs, 1);
  fail_if (rtpcc_rate_cap_receive (cap, 0, buf, len));
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 300000);
  /* a later REMB replaces the earlier, upwards too */
  len = rtpcc_remb_write (buf, sizeof buf, PEER, 2000000, ssrcs, 2);
  fail_unless (rtpcc_rate_cap_receive (cap, 0, buf, len));
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 500000);
  fail_unless_equals_uint64 (st->remb_received, 2);

  /* a value no rate reaches withdraws the TMMBR (and is answered) */
  fail_unless (rtpcc_rate_cap_receive (cap, 0, buf, tmmbr (buf, MEDIA,
              RTPCC_RATE_CAP_NONE)));
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 2000000);
  fail_unless (rtpcc_rate_cap_tmmbn_due (cap));

  /* malformed: counted, dropped */
  len = tmmbr (buf, MEDIA, 100000);
  buf[3] = 3;                   /* length too short for its FCI */
  fail_if (rtpcc_rate_cap_receive (cap, 0, buf, 16));
  fail_unless_equals_uint64 (st->malformed, 1);
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 2000000);
  rtpcc_rate_cap_free (cap);
}

GST_END_TEST;

/* A REMB limit holds while REMBs naming us keep coming and lapses
 * RTPCC_RATE_CAP_REMB_TIMEOUT after the last one; a REMB for another
 * stream does not renew it, and a TMMBR limit does not lapse with it. */
GST_START_TEST (test_remb_expiry)
{
  RtpccRateCap *cap = rtpcc_rate_cap_new (MEDIA);
  const RtpccRateCapStats *st = rtpcc_rate_cap_get_stats (cap);
  guint32 ours = MEDIA, other = 0x99u;
  const RtpccTime to = RTPCC_RATE_CAP_REMB_TIMEOUT;
  guint8 buf[256];
  gsize len;

  /* nothing to expire */
  fail_if (rtpcc_rate_cap_expire (cap, RTPCC_SEC (100)));
  len = rtpcc_remb_write (buf, sizeof buf, PEER, 300000, &ours, 1);
  fail_unless (rtpcc_rate_cap_receive (cap, RTPCC_SEC (1), buf, len));
  fail_if (rtpcc_rate_cap_expire (cap, RTPCC_SEC (1) + to - 1));
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 300000);
  /* renewed (same value) just before it would lapse */
  fail_unless (rtpcc_rate_cap_receive (cap, RTPCC_SEC (1) + to - 1, buf,
          len));
  fail_if (rtpcc_rate_cap_expire (cap, RTPCC_SEC (1) + to));
  /* a REMB about another stream is not a renewal */
  len = rtpcc_remb_write (buf, sizeof buf, PEER, 100000, &other, 1);
  fail_if (rtpcc_rate_cap_receive (cap, RTPCC_SEC (1) + 2 * to - 2, buf,
          len));
  fail_if (rtpcc_rate_cap_expire (cap, RTPCC_SEC (1) + 2 * to - 2));
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 300000);
  fail_unless (rtpcc_rate_cap_expire (cap, RTPCC_SEC (1) + 2 * to - 1));
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), G_MAXUINT64);
  fail_unless_equals_uint64 (st->remb_limit, G_MAXUINT64);
  fail_unless_equals_uint64 (st->remb_expired, 1);
  /* once lapsed, nothing more to do */
  fail_if (rtpcc_rate_cap_expire (cap, RTPCC_SEC (100)));
  fail_unless_equals_uint64 (st->remb_expired, 1);

  /* a TMMBR stays when the REMB beside it lapses */
  fail_unless (rtpcc_rate_cap_receive (cap, RTPCC_SEC (100), buf,
          tmmbr (buf, MEDIA, 500000)));
  len = rtpcc_remb_write (buf, sizeof buf, PEER, 200000, &ours, 1);
  fail_unless (rtpcc_rate_cap_receive (cap, RTPCC_SEC (100), buf, len));
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 200000);
  fail_unless (rtpcc_rate_cap_expire (cap, RTPCC_SEC (100) + to));
  fail_unless_equals_uint64 (rtpcc_rate_cap_limit (cap), 500000);
  fail_unless_equals_uint64 (st->remb_expired, 2);
  rtpcc_rate_cap_free (cap);
}

GST_END_TEST;

typedef struct
{
  RtpccSender *s;
  RtpccReceiver *r;
  RtpccTime now;
  guint16 seq;
  guint tmmbn_in_sr;            /* SR compounds that carried a TMMBN */
  GByteArray *pcap;             /* if set: every RTCP compound, both ways */
  guint frames;
} Loop;

static void
capture (Loop * l, const guint8 * data, gsize len)
{
  if (l->pcap)
    test_pcap_add (l->pcap, ++l->frames, TSHARK_RTCP_PORT, data, len);
}

static gboolean
has_tmmbn (const guint8 * data, gsize len)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket p;

  fail_unless (rtpcc_rtcp_iter_init (&it, data, len));
  while (rtpcc_rtcp_iter_next (&it, &p))
    if (p.pt == RTPCC_RTCP_RTPFB && p.count == RTPCC_RTPFB_FMT_TMMBN)
      return TRUE;
  return FALSE;
}

/* @ms of a 1 ms-step loop without delay: a 1200-byte packet every 10 ms
 * queued, everything the sender lets out received, RTCP both ways. */
static void
run (Loop * l, guint ms)
{
  guint8 buf[1500];
  RtpccWirePacket w;
  gsize n;

  for (guint i = 0; i < ms; i++, l->now += MS (1)) {
    if (l->now % MS (10) == 0)
      call_loop_enqueue (l->s, l->now, MEDIA, l->seq++, 1200);
    rtpcc_sender_tick (l->s, l->now);
    while (rtpcc_sender_dequeue (l->s, l->now, &w)) {
      RtpccRtpInfo ri = w.info;
      rtpcc_receiver_on_rtp (l->r, l->now, &ri);
    }
    n = rtpcc_sender_build_rtcp (l->s, l->now, buf, sizeof buf);
    if (n > 0) {
      l->tmmbn_in_sr += has_tmmbn (buf, n);
      capture (l, buf, n);
      rtpcc_receiver_on_rtcp (l->r, l->now, buf, n);
    }
    n = rtpcc_receiver_build_feedback (l->r, l->now, buf, sizeof buf);
    if (n > 0) {
      capture (l, buf, n);
      rtpcc_sender_receive_rtcp (l->s, l->now, buf, n);
    }
  }
}

/* A sender running @controller from 1 Mbit/s, a receiver, and 2 s of
 * media between them. */
static void
loop_init (Loop * l, const gchar * controller)
{
  memset (l, 0, sizeof (*l));
  l->s = call_loop_sender_new (controller, RTPCC_FEEDBACK_CCFB);
  l->r = call_loop_receiver_new (RTPCC_FEEDBACK_CCFB, 0, G_MAXUINT);
  run (l, 2000);
}

static void
loop_clear (Loop * l)
{
  rtpcc_receiver_free (l->r);
  rtpcc_sender_free (l->s);
}

/* The receiver asks for at most 300 kbit/s: its next RR carries a TMMBR,
 * the sender's target drops to it at once and its next RTCP answers with
 * a TMMBN, after which the receiver stops asking. Withdrawn, the target
 * is the controller's again. */
GST_START_TEST (test_loop)
{
  Loop l;
  const RtpccReceiverStats *rs;
  const RtpccSenderStats *ss;
  guint64 sent;

  loop_init (&l, "fixed");
  fail_unless_equals_uint64 (rtpcc_sender_get_target (l.s)->target_bitrate,
      1000000);
  fail_unless_equals_uint64 (rtpcc_sender_get_stats (l.s,
          l.now)->receiver_limit, G_MAXUINT64);

  rtpcc_receiver_set_max_bitrate (l.r, l.now, 300000);
  fail_unless_equals_uint64 (rtpcc_receiver_get_max_bitrate (l.r), 300000);
  run (&l, 5);
  ss = rtpcc_sender_get_stats (l.s, l.now);
  fail_unless_equals_uint64 (ss->tmmbr_received, 1);
  fail_unless_equals_uint64 (ss->receiver_limit, 300000);
  fail_unless_equals_uint64 (rtpcc_sender_get_target (l.s)->target_bitrate,
      300000);
  fail_unless_equals_string (rtpcc_sender_get_target (l.s)->reason,
      "tmmbr-limit");
  fail_unless_equals_uint64 (ss->tmmbn_sent, 1);
  fail_unless_equals_int (l.tmmbn_in_sr, 1);
  rs = rtpcc_receiver_get_stats (l.r, l.now);
  fail_unless_equals_uint64 (rs->tmmbr_sent, 1);
  fail_unless_equals_uint64 (rs->tmmbn_received, 1);
  fail_unless (rs->max_bitrate_acked);

  /* acknowledged: the RRs that follow carry no TMMBR */
  run (&l, 5000);
  rs = rtpcc_receiver_get_stats (l.r, l.now);
  fail_unless_equals_uint64 (rs->tmmbr_sent, 1);
  fail_unless (rs->rtcp_sent >= 4);
  fail_unless_equals_uint64 (rtpcc_sender_get_target (l.s)->target_bitrate,
      300000);

  /* withdrawn */
  sent = rs->tmmbr_sent;
  rtpcc_receiver_set_max_bitrate (l.r, l.now, 0);
  run (&l, 5);
  rs = rtpcc_receiver_get_stats (l.r, l.now);
  fail_unless_equals_uint64 (rs->tmmbr_sent, sent + 1);
  fail_unless (rs->max_bitrate_acked);
  fail_unless_equals_uint64 (rtpcc_sender_get_target (l.s)->target_bitrate,
      1000000);
  fail_unless_equals_uint64 (rtpcc_sender_get_stats (l.s,
          l.now)->tmmbn_sent, 2);
  loop_clear (&l);
}

GST_END_TEST;

/* A REMB from a receiver that then falls silent: the sender's target is
 * held at the REMB's value while the cap is young and is the
 * controller's again once RTPCC_RATE_CAP_REMB_TIMEOUT has passed. */
GST_START_TEST (test_remb_loop)
{
  Loop l;
  guint8 pkt[256];
  guint32 media = MEDIA;
  gsize n;

  loop_init (&l, "fixed");
  n = test_rtcp_rr_sdes (pkt, sizeof pkt, 0x55667788);
  n += rtpcc_remb_write (pkt + n, sizeof pkt - n, 0x55667788, 400000, &media,
      1);
  fail_unless (rtpcc_sender_receive_rtcp (l.s, l.now, pkt, n));
  fail_unless_equals_uint64 (rtpcc_sender_get_target (l.s)->target_bitrate,
      400000);
  fail_unless_equals_string (rtpcc_sender_get_target (l.s)->reason,
      "remb-limit");
  run (&l, RTPCC_RATE_CAP_REMB_TIMEOUT / MS (1) - 10);
  fail_unless_equals_uint64 (rtpcc_sender_get_target (l.s)->target_bitrate,
      400000);
  fail_unless_equals_uint64 (rtpcc_sender_get_stats (l.s,
          l.now)->remb_expired, 0);
  run (&l, 20);
  fail_unless_equals_uint64 (rtpcc_sender_get_target (l.s)->target_bitrate,
      1000000);
  fail_unless_equals_uint64 (rtpcc_sender_get_stats (l.s,
          l.now)->receiver_limit, G_MAXUINT64);
  fail_unless_equals_uint64 (rtpcc_sender_get_stats (l.s,
          l.now)->remb_expired, 1);
  loop_clear (&l);
}

GST_END_TEST;

/* What the loop puts on the wire when a maximum is set, as tshark reads
 * it: the receiver's RR + SDES + TMMBR + CCFB (300 kbit/s = 75000 · 2^2,
 * overhead 40), then the sender's SR + SDES + APP "FBIV" (fbra asks for
 * its report interval) + TMMBN (the bounding set: the receiver's tuple);
 * and a REMB after an RR, as a WebRTC receiver sends it. No malformed
 * packet, no warning. */
GST_START_TEST (test_tshark)
{
  gchar *tshark = tshark_find ("test_tshark");
  Loop l;
  guint8 pkt[256];
  guint32 media = MEDIA;
  gchar *dir, *file, *out, *rx;
  gsize n;

  if (tshark == NULL)
    return;
  loop_init (&l, "fbra");
  l.pcap = test_pcap_new ();
  rtpcc_receiver_set_max_bitrate (l.r, l.now, 300000);
  run (&l, 3);
  fail_unless (l.frames >= 2);
  rx = g_strdup_printf ("0x%08x", rtpcc_receiver_get_ssrc (l.r));
  n = test_rtcp_rr_sdes (pkt, sizeof pkt, 0x55667788);
  n += rtpcc_remb_write (pkt + n, sizeof pkt - n, 0x55667788, 500000, &media,
      1);
  test_pcap_add (l.pcap, ++l.frames, TSHARK_RTCP_PORT, pkt, n);
  file = test_pcap_save (l.pcap, "rtpcc-ratecap-XXXXXX", "ratecap.pcap",
      &dir);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_clean (out);
  tshark_assert_no_warnings (out);
  g_free (out);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "rtcp.pt", "-e", "rtcp.length_check", "-e", "rtcp.rtpfb.fmt",
      "-e", "rtcp.rtpfb.tmmbr.fci.ssrc", "-e", "rtcp.rtpfb.tmmbr.fci.exp",
      "-e", "rtcp.rtpfb.tmmbr.fci.mantissa",
      "-e", "rtcp.rtpfb.tmmbr.fci.measuredoverhead",
      "-e", "rtcp.app.name", "-e", "rtcp.psfb.remb.fci.br_exp",
      "-e", "rtcp.psfb.remb.fci.br_mantissa", NULL});
  {
    gchar *tmmbr = g_strdup_printf ("201,202,205,205;1;3,11;0x%08x;2;75000;"
        "40;;;", MEDIA);
    gchar *tmmbn = g_strdup_printf ("200,202,204,205;1;4;%s;2;75000;40;"
        "FBIV;;", rx);
    const gchar *want[] = { tmmbr, tmmbn,
      "201,202,206;1;;;;;;;1;250000",
    };
    tshark_assert_lines (out, want, G_N_ELEMENTS (want));
    g_free (tmmbr);
    g_free (tmmbn);
  }
  g_free (out);

  test_pcap_remove (file, dir);
  g_free (rx);
  g_free (tshark);
  loop_clear (&l);
}

GST_END_TEST;

/* A receiver with remb on: its RRs carry a REMB naming the media SSRC,
 * as tshark reads it (no malformed packet, no warning), and the sender's
 * limit is the last value on the wire. */
GST_START_TEST (test_tshark_receiver_remb)
{
  gchar *tshark = tshark_find ("test_tshark_receiver_remb");
  RtpccReceiverConfig rc;
  Loop l;
  gchar *dir, *file, *out, **lines;
  guint remb_lines = 0;
  guint64 last = 0;

  if (tshark == NULL)
    return;
  memset (&l, 0, sizeof l);
  l.s = call_loop_sender_new ("rrtcc", RTPCC_FEEDBACK_CCFB);
  rtpcc_receiver_config_init (&rc);
  rc.seed = 4;
  rc.remb = TRUE;
  l.r = rtpcc_receiver_new (&rc, 0);
  l.pcap = test_pcap_new ();
  run (&l, 3500);
  fail_unless (rtpcc_receiver_get_stats (l.r, l.now)->remb_sent >= 2);
  file = test_pcap_save (l.pcap, "rtpcc-remb-XXXXXX", "remb.pcap", &dir);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_clean (out);
  tshark_assert_no_warnings (out);
  g_free (out);
  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-e", "rtcp.psfb.remb.fci.ssrc",
      "-e", "rtcp.psfb.remb.fci.br_exp", "-e",
      "rtcp.psfb.remb.fci.br_mantissa", NULL});
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++) {
    gchar **f = g_strsplit (lines[i], ";", -1);

    if (g_strv_length (f) == 3 && f[0][0]) {
      fail_unless_equals_uint64 (g_ascii_strtoull (f[0], NULL, 0), MEDIA);
      last = g_ascii_strtoull (f[2], NULL, 10) << g_ascii_strtoull (f[1],
          NULL, 10);
      remb_lines++;
    }
    g_strfreev (f);
  }
  g_strfreev (lines);
  g_free (out);
  fail_unless (remb_lines >= 2, "%u", remb_lines);
  fail_unless_equals_uint64 (rtpcc_sender_get_stats (l.s,
          l.now)->receiver_limit, last);

  test_pcap_remove (file, dir);
  g_free (tshark);
  loop_clear (&l);
}

GST_END_TEST;

static Suite *
rtpcc_ratecap_suite (void)
{
  Suite *s = suite_create ("rtpcc_ratecap");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cap);
  tcase_add_test (tc, test_remb_expiry);
  tcase_add_test (tc, test_loop);
  tcase_add_test (tc, test_tshark_receiver_remb);
  tcase_add_test (tc, test_remb_loop);
  tcase_add_test (tc, test_tshark);
  return s;
}

GST_CHECK_MAIN (rtpcc_ratecap);

/* RtpccPeer (gst/rtpcc/peer.h): which address a receiver answers to, and
 * RtpccReceiver's on_*_from that use it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

#define MEDIA 0x11111111u

static RtpccAddress
addr (guint8 n)
{
  RtpccAddress a;
  guint8 b[7] = { 4, 0x13, n, 127, 0, 0, n };

  fail_unless (rtpcc_address_set (&a, b, sizeof b));
  return a;
}

/* @n packets with payload from @a on @ssrc, seqs from @seq; returns how
 * many were taken */
static guint
run (RtpccPeer * p, RtpccTime * now, const RtpccAddress * a, guint32 ssrc,
    guint16 seq, guint n, gboolean media)
{
  guint taken = 0;

  for (guint i = 0; i < n; i++) {
    *now += RTPCC_MSEC (10);
    taken += rtpcc_peer_on_rtp (p, *now, a, ssrc, (guint16) (seq + i),
        media) == RTPCC_PEER_TAKE;
  }
  return taken;
}

GST_START_TEST (test_peer_address)
{
  RtpccAddress a, b;
  guint8 big[RTPCC_ADDRESS_MAX + 1] = { 0, };

  a = addr (1);
  b = addr (1);
  fail_unless (rtpcc_address_equal (&a, &b));
  b = addr (2);
  fail_if (rtpcc_address_equal (&a, &b));
  fail_if (rtpcc_address_set (&b, big, sizeof big));
  fail_unless_equals_int (b.len, 0);
  fail_if (rtpcc_address_set (&b, big, 0));
  fail_if (rtpcc_address_set (&b, NULL, 4));
  /* a prefix is not the same address */
  fail_unless (rtpcc_address_set (&b, a.bytes, a.len - 1));
  fail_if (rtpcc_address_equal (&a, &b));
}

GST_END_TEST;

/* The first peer: RTPCC_PEER_PROBATION packets in sequence with payload;
 * everything is taken meanwhile. Padding alone never makes one. */
GST_START_TEST (test_peer_first)
{
  RtpccPeer *p = rtpcc_peer_new ();
  RtpccAddress a = addr (1), x = addr (9);
  RtpccTime now = 0;

  fail_unless (rtpcc_peer_get (p) == NULL);
  /* padding-only, in sequence, forever: no peer */
  fail_unless_equals_int (run (p, &now, &x, 0xBAD, 100, 50, FALSE), 50);
  fail_unless (rtpcc_peer_get (p) == NULL);
  /* a run broken before it is long enough */
  fail_unless_equals_int (run (p, &now, &a, MEDIA, 10,
          RTPCC_PEER_PROBATION - 1, TRUE), RTPCC_PEER_PROBATION - 1);
  fail_unless_equals_int (run (p, &now, &a, MEDIA, 20, 1, TRUE), 1);
  fail_unless (rtpcc_peer_get (p) == NULL);
  /* padding on the media's seqs continues a run that has payload */
  fail_unless_equals_int (run (p, &now, &a, MEDIA, 21, 1, FALSE), 1);
  fail_unless_equals_int (run (p, &now, &a, MEDIA, 22,
          RTPCC_PEER_PROBATION - 2, TRUE), RTPCC_PEER_PROBATION - 2);
  fail_unless (rtpcc_peer_get (p) != NULL);
  fail_unless (rtpcc_address_equal (rtpcc_peer_get (p), &a));
  fail_unless_equals_uint64 (rtpcc_peer_get_stats (p)->changes, 0);
  fail_unless_equals_uint64 (rtpcc_peer_get_stats (p)->refused, 0);
  rtpcc_peer_free (p);
}

GST_END_TEST;

/* A spray of packets from other addresses and SSRCs during the start does
 * not keep the sender's run from completing. */
GST_START_TEST (test_peer_first_despite_spray)
{
  RtpccPeer *p = rtpcc_peer_new ();
  RtpccAddress a = addr (1);
  RtpccTime now = 0;

  for (guint i = 0; i < RTPCC_PEER_PROBATION; i++) {
    for (guint k = 0; k < 3; k++) {
      RtpccAddress x = addr ((guint8) (100 + 3 * i + k));
      run (p, &now, &x, 0xA0000000u + 3 * i + k, (guint16) i, 1, TRUE);
    }
    run (p, &now, &a, MEDIA, (guint16) (500 + i), 1, TRUE);
  }
  fail_unless (rtpcc_peer_get (p) != NULL);
  fail_unless (rtpcc_address_equal (rtpcc_peer_get (p), &a));
  rtpcc_peer_free (p);
}

GST_END_TEST;

/* Once there is a peer, other addresses are refused whatever they send;
 * the media source moves only by continuing its sequence, several times
 * in a row, with the old address silent on that SSRC. */
GST_START_TEST (test_peer_move)
{
  RtpccPeer *p = rtpcc_peer_new ();
  RtpccAddress a = addr (1), b = addr (2), x = addr (9);
  RtpccTime now = 0;
  guint16 seq = 0;

  run (p, &now, &a, MEDIA, seq, 10, TRUE);
  seq += 10;
  fail_unless (rtpcc_address_equal (rtpcc_peer_get (p), &a));

  /* unknown SSRCs, padding, RTCP: refused */
  fail_unless_equals_int (run (p, &now, &x, 0xBAD, 0, 20, TRUE), 0);
  fail_unless_equals_int (run (p, &now, &x, 0xBAD, 100, 20, FALSE), 0);
  fail_unless_equals_int (rtpcc_peer_on_rtcp (p, now, &x), RTPCC_PEER_REFUSE);
  fail_unless_equals_int (rtpcc_peer_on_rtcp (p, now, &a), RTPCC_PEER_TAKE);
  /* the media SSRC, but behind its sequence (a replay) or far ahead */
  fail_unless_equals_int (run (p, &now, &x, MEDIA, 0, 10, TRUE), 0);
  fail_unless_equals_int (run (p, &now, &x, MEDIA,
          (guint16) (seq + RTPCC_PEER_MAX_DROPOUT + 1), 10, TRUE), 0);
  /* interleaved with the peer on that SSRC: no move */
  for (guint i = 0; i < 11; i++, seq++)
    fail_unless_equals_int (rtpcc_peer_on_rtp (p, now += RTPCC_MSEC (10),
            i % 2 ? &b : &a, MEDIA, seq, TRUE),
        i % 2 ? RTPCC_PEER_REFUSE : RTPCC_PEER_TAKE);
  fail_unless (rtpcc_address_equal (rtpcc_peer_get (p), &a));
  fail_unless_equals_uint64 (rtpcc_peer_get_stats (p)->changes, 0);
  fail_unless_equals_uint64 (rtpcc_peer_get_stats (p)->refused,
      20 + 20 + 10 + 10 + 5);
  fail_unless_equals_uint64 (rtpcc_peer_get_stats (p)->rtcp_refused, 1);

  /* from b only: the run completes at the probation-th packet */
  fail_unless_equals_int (run (p, &now, &b, MEDIA, seq,
          RTPCC_PEER_PROBATION - 1, TRUE), 0);
  seq += RTPCC_PEER_PROBATION - 1;
  fail_unless_equals_int (run (p, &now, &b, MEDIA, seq++, 1, TRUE), 1);
  fail_unless (rtpcc_address_equal (rtpcc_peer_get (p), &b));
  fail_unless_equals_uint64 (rtpcc_peer_get_stats (p)->changes, 1);
  /* the old address is refused now, RTCP included */
  fail_unless_equals_int (run (p, &now, &a, MEDIA, seq, 1, TRUE), 0);
  fail_unless_equals_int (rtpcc_peer_on_rtcp (p, now, &a), RTPCC_PEER_REFUSE);
  rtpcc_peer_free (p);
}

GST_END_TEST;

/* A peer silent (no RTP, no RTCP) for RTPCC_PEER_SILENCE is gone: a new
 * source may take over by probation (its probation packets refused);
 * before that, RTCP keeps the peer alive. */
GST_START_TEST (test_peer_silence)
{
  RtpccPeer *p = rtpcc_peer_new ();
  RtpccAddress a = addr (1), c = addr (3);
  RtpccTime now = 0;

  run (p, &now, &a, MEDIA, 0, 10, TRUE);
  /* RTCP only, for longer than the silence: still the peer */
  for (guint i = 0; i < 10; i++) {
    now += RTPCC_SEC (1);
    fail_unless_equals_int (rtpcc_peer_on_rtcp (p, now, &a),
        RTPCC_PEER_TAKE);
  }
  fail_unless_equals_int (run (p, &now, &c, 0x5EC0, 0, RTPCC_PEER_PROBATION,
          TRUE), 0);
  fail_unless (rtpcc_address_equal (rtpcc_peer_get (p), &a));
  /* silence: a restarted sender (new port, new SSRC) takes over */
  now += RTPCC_PEER_SILENCE;
  fail_unless_equals_int (run (p, &now, &c, 0x5EC0, 100,
          RTPCC_PEER_PROBATION, TRUE), 1);
  fail_unless (rtpcc_address_equal (rtpcc_peer_get (p), &c));
  fail_unless_equals_uint64 (rtpcc_peer_get_stats (p)->changes, 1);
  fail_unless_equals_uint64 (rtpcc_peer_get_stats (p)->refused,
      RTPCC_PEER_PROBATION + RTPCC_PEER_PROBATION - 1);
  rtpcc_peer_free (p);
}

GST_END_TEST;

/* RtpccReceiver: refused packets are never logged (no source, no
 * feedback about them); an SR from elsewhere sets no LSR; an SR about an
 * SSRC never received is counted. */
GST_START_TEST (test_receiver_from)
{
  RtpccReceiverConfig cfg;
  RtpccReceiver *r;
  RtpccAddress a = addr (1), x = addr (9);
  RtpccRtpInfo info;
  RtpccRtcpSR sr;
  guint8 buf[256];
  gsize n;
  const RtpccReceiverStats *st;
  RtpccTime now = RTPCC_SEC (1);

  rtpcc_receiver_config_init (&cfg);
  cfg.seed = 7;
  r = rtpcc_receiver_new (&cfg, now);
  memset (&info, 0, sizeof info);
  info.ssrc = MEDIA;
  info.size = 1000;
  for (guint i = 0; i < 10; i++) {
    info.seq = (guint16) i;
    fail_unless_equals_int (rtpcc_receiver_on_rtp_from (r,
            now += RTPCC_MSEC (5), &info, &a), RTPCC_RECEIVER_PASS);
  }
  fail_unless (rtpcc_address_equal (rtpcc_receiver_get_peer (r), &a));
  info.ssrc = 0xBAD;
  for (guint i = 0; i < 10; i++) {
    info.seq = (guint16) i;
    fail_unless_equals_int (rtpcc_receiver_on_rtp_from (r,
            now += RTPCC_MSEC (5), &info, &x), RTPCC_RECEIVER_REFUSED);
  }
  info.ssrc = MEDIA;
  info.padding_only = TRUE;
  info.seq = 10;
  fail_unless_equals_int (rtpcc_receiver_on_rtp_from (r, now, &info, &a),
      RTPCC_RECEIVER_PASS);
  memset (&sr, 0, sizeof sr);
  sr.ssrc = MEDIA;
  sr.ntp = G_GUINT64_CONSTANT (0xE875470112340000);
  n = rtpcc_rtcp_write_sr (buf, sizeof buf, &sr);
  fail_if (rtpcc_receiver_on_rtcp_from (r, now, buf, n, &x));
  fail_unless (rtpcc_receiver_on_rtcp_from (r, now, buf, n, &a));
  sr.ssrc = 0xBAD;
  n = rtpcc_rtcp_write_sr (buf, sizeof buf, &sr);
  fail_if (rtpcc_receiver_on_rtcp_from (r, now, buf, n, &a));
  st = rtpcc_receiver_get_stats (r, now);
  fail_unless_equals_uint64 (st->packets_received, 11);
  fail_unless_equals_int (st->sources, 1);
  fail_unless_equals_uint64 (st->peer_refused, 10);
  fail_unless_equals_uint64 (st->peer_changes, 0);
  fail_unless_equals_uint64 (st->rtcp_wrong_source, 1);
  fail_unless_equals_uint64 (st->rtcp_received, 1);
  fail_unless_equals_uint64 (st->rtcp_unknown_ssrc, 1);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

static Suite *
rtpcc_peer_suite (void)
{
  Suite *s = suite_create ("rtpcc_peer");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_peer_address);
  tcase_add_test (tc, test_peer_first);
  tcase_add_test (tc, test_peer_first_despite_spray);
  tcase_add_test (tc, test_peer_move);
  tcase_add_test (tc, test_peer_silence);
  tcase_add_test (tc, test_receiver_from);
  return s;
}

GST_CHECK_MAIN (rtpcc_peer);

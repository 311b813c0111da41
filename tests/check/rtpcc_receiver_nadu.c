/* Unit tests for the receiver's C-NADU (gst/rtpcc/receiver-nadu.c): the
 * NADU and REMB in each RR, the model buffer's next unit or the
 * application's while it is fresh, and missed frames marked discarded
 * unless the application marks its own.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#define MEDIA 0x1234

static RtpccReceiver *
make (void)
{
  RtpccReceiverConfig c;

  rtpcc_receiver_config_init (&c);
  c.feedback = RTPCC_FEEDBACK_RR;
  c.nadu = TRUE;
  c.seed = 7;
  return rtpcc_receiver_new (&c, 0);
}

/* Frame @i (seq @i, 40 ms of 90 kHz), one packet, at @at. */
static void
frame (RtpccReceiver * r, guint i, RtpccTime at)
{
  RtpccRtpInfo info;

  memset (&info, 0, sizeof (info));
  info.ssrc = MEDIA;
  info.seq = (guint16) i;
  info.rtp_ts = i * 3600;
  info.marker = TRUE;
  info.size = 1000;
  info.clock_rate = 90000;
  fail_unless (rtpcc_receiver_on_rtp (r, at, &info));
}

/* Feeds frame @i at its time (50 ms path, 40 ms frames) and builds the
 * feedback due then: TRUE with its NADU block and REMB if an RR went. */
static gboolean
frame_and_report (RtpccReceiver * r, guint i, RtpccNaduBlock * b,
    guint64 * remb)
{
  RtpccTime now = RTPCC_MSEC (50 + 40 * i);
  guint8 buf[1500];
  gsize n;
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;

  frame (r, i, now);
  n = rtpcc_receiver_build_feedback (r, now, buf, sizeof (buf));
  if (n == 0)
    return FALSE;
  *remb = 0;
  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    RtpccRemb rb;
    if (pkt.pt == RTPCC_RTCP_PSFB && rtpcc_remb_parse (pkt.data, pkt.len,
            &rb, NULL))
      *remb = rb.bitrate;
  }
  fail_unless (rtpcc_nadu_find (buf, n, MEDIA, b, NULL));
  return TRUE;
}

/* The model plays frame j at 50 + 40 j + 200 ms: at frame i's arrival
 * (50 + 40 i) the next to play is i - 4, 40 ms on. The application's
 * next unit replaces it while fresh (at most 1 s old). */
GST_START_TEST (test_report)
{
  RtpccReceiver *r = make ();
  RtpccNaduBlock b;
  guint64 remb;
  guint i, reports = 0, app = 0, stale = 0;
  RtpccTime told = RTPCC_TIME_NONE;

  for (i = 0; i < 400; i++) {
    RtpccTime now = RTPCC_MSEC (50 + 40 * i);
    gboolean tell = i >= 100 && i < 200;

    if (tell) {
      fail_unless (rtpcc_receiver_set_nadu_next (r, now, MEDIA, 7,
              RTPCC_MSEC (500)));
      told = now;
    }
    if (!frame_and_report (r, i, &b, &remb) || i < 10)
      continue;
    reports++;
    fail_unless (remb > 0);
    fail_unless_equals_uint64 (remb,
        rtpcc_receiver_get_stats (r, now)->nadu_estimate);
    if (tell) {
      app++;
      fail_unless_equals_int (b.nsn, 7);
      fail_unless_equals_int (b.playout_delay, 500);
    } else if (told == RTPCC_TIME_NONE
        || now - told > RTPCC_RECEIVER_NADU_FRESH) {
      stale++;
      fail_unless_equals_int (b.nsn, i - 4);
      fail_unless_equals_int (b.playout_delay, 40);
    }
  }
  fail_unless (app >= 2 && stale >= 4, "%u app, %u model", app, stale);
  fail_unless (rtpcc_receiver_get_stats (r, 0)->nadu_sent >= reports);
  /* another SSRC, or a negative time: refused */
  fail_if (rtpcc_receiver_set_nadu_next (r, 0, MEDIA + 1, 7, 0));
  fail_if (rtpcc_receiver_set_nadu_next (r, 0, MEDIA, 7, -1));
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* A frame 400 ms over the base misses the 200 ms deadline: its packet is
 * marked discarded (XR Discard RLE), unless the application has marked
 * discards itself (its buffer knows what it dropped). */
GST_START_TEST (test_missed_marked)
{
  RtpccReceiver *r = make ();
  const RtpccReceiverStats *st = rtpcc_receiver_get_stats (r, 0);

  for (guint i = 0; i < 10; i++)
    frame (r, i, RTPCC_MSEC (50 + 40 * i));
  frame (r, 10, RTPCC_MSEC (850));
  fail_unless_equals_uint64 (st->discards_marked, 0);
  frame (r, 11, RTPCC_MSEC (900));      /* completes frame 10 */
  fail_unless_equals_uint64 (st->nadu_frames_missed, 1);
  fail_unless_equals_uint64 (st->discards_marked, 1);
  rtpcc_receiver_free (r);

  r = make ();
  st = rtpcc_receiver_get_stats (r, 0);
  for (guint i = 0; i < 10; i++)
    frame (r, i, RTPCC_MSEC (50 + 40 * i));
  rtpcc_receiver_mark_discarded (r, RTPCC_MSEC (420), MEDIA, 3, 1);
  fail_unless_equals_uint64 (st->discards_marked, 1);
  frame (r, 10, RTPCC_MSEC (850));
  frame (r, 11, RTPCC_MSEC (900));
  fail_unless_equals_uint64 (st->nadu_frames_missed, 1);
  fail_unless_equals_uint64 (st->discards_marked, 1);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

static Suite *
rtpcc_receiver_nadu_suite (void)
{
  Suite *s = suite_create ("rtpcc_receiver_nadu");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_report);
  tcase_add_test (tc, test_missed_marked);
  return s;
}

GST_CHECK_MAIN (rtpcc_receiver_nadu);

/* Unit tests for what the multipath sender learns from each path's own
 * sender (gst/rtpcc/mprtp/pathsender.c): polled statistics become the
 * scheduler's feedback and reporting intervals, published targets its
 * rates, and the aggregate target carries the paths' headroom.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include "mprtp-util.h"

#define MS(x) RTPCC_MSEC (x)

GST_START_TEST (test_poll_feedback_and_interval)
{
  RtpccMprtpSched *s = new_sched (2, NULL);
  RtpccMprtpPathSender ps;
  RtpccMprtpSenderStats st = { 0 };

  rtpcc_mprtp_path_sender_init (&ps);
  fail_unless (ps.rtt == RTPCC_TIME_NONE && !ps.have_target);
  /* no RTCP yet: no feedback */
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (25), &st, NULL, FALSE);
  fail_unless (info (s, 0).last_feedback == RTPCC_TIME_NONE);
  /* RTCP with 100 packets received, 40 ms RTT: feedback at once */
  st.rtcp_received = 1;
  st.reported_received = 100;
  st.rtt = MS (40);
  st.queue_delay = MS (5);
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (50), &st, NULL, FALSE);
  fail_unless (info (s, 0).last_feedback == MS (50));
  fail_unless (info (s, 0).srtt == MS (40));
  fail_unless (ps.rtt == MS (40));
  /* the same counters again: nothing new */
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (75), &st, NULL, FALSE);
  fail_unless (info (s, 0).last_feedback == MS (50));
  /* an interval with losses: the path is lossy */
  st.rtcp_received = 2;
  st.reported_received = 190;
  st.reported_lost = 10;
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (1000), &st, NULL, TRUE);
  fail_unless (info (s, 0).klass == RTPCC_MPRTP_CLASS_LOSSY);
  fail_unless (ps.iv_received == 190 && ps.iv_lost == 10);
  /* the sender restarted (its counters began again): an empty interval,
   * which changes nothing, not a huge or negative one; the count goes on
   * from there */
  st.rtcp_received = 1;
  st.reported_received = 50;
  st.reported_lost = 0;
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (2000), &st, NULL, TRUE);
  fail_unless (info (s, 0).klass == RTPCC_MPRTP_CLASS_LOSSY);
  fail_unless (ps.iv_received == 50 && ps.iv_lost == 0);
  st.rtcp_received = 3;
  st.reported_received = 150;
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (3000), &st, NULL, TRUE);
  fail_unless (info (s, 0).klass == RTPCC_MPRTP_CLASS_NON_CONGESTED);
  /* unknown RTT in the stats: unknown */
  st.rtcp_received = 4;
  st.rtt = 0;
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (2025), &st, NULL, FALSE);
  fail_unless (ps.rtt == RTPCC_TIME_NONE);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

/* Once the path's receiver sends MPRTCP subflow reports they classify the
 * path, and the feedback counters no longer do. */
GST_START_TEST (test_poll_subflow_reports)
{
  RtpccMprtpSched *s = new_sched (2, NULL);
  RtpccMprtpPathSender ps;
  RtpccMprtpSenderStats st = { 0 };
  RtpccMprtpSubflowReport r;

  rtpcc_mprtp_path_sender_init (&ps);
  memset (&r, 0, sizeof r);
  r.rr.ext_highest_seq = 100;
  r.has_discards = TRUE;
  /* the first report only starts the count */
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (100), &st, &r, FALSE);
  fail_unless (ps.subflow_reports == 1);
  /* losses and discards in the next: mildly congested */
  r.rr.ext_highest_seq = 200;
  r.rr.cumulative_lost = 4;
  r.discards = 3;
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (600), &st, &r, FALSE);
  fail_unless (info (s, 0).klass == RTPCC_MPRTP_CLASS_MILDLY_CONGESTED);
  /* an interval whose feedback counters say "lossy" changes nothing now */
  st.rtcp_received = 1;
  st.reported_received = 90;
  st.reported_lost = 10;
  rtpcc_mprtp_path_sender_poll (&ps, s, 0, MS (1000), &st, NULL, TRUE);
  fail_unless (info (s, 0).klass == RTPCC_MPRTP_CLASS_MILDLY_CONGESTED);
  fail_unless (ps.iv_received == 0 && ps.iv_lost == 0);
  /* a restart keeps that the receiver reports */
  rtpcc_mprtp_path_sender_restart (&ps);
  fail_unless (ps.subflow_reports == 2);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

GST_START_TEST (test_aggregate_target)
{
  RtpccMprtpSched *s = new_sched (2, NULL);
  RtpccMprtpPathSender a, b;
  const RtpccMprtpPathSender *paths[2] = { &a, &b };
  guint64 media, target;
  RtpccTime rtt;

  rtpcc_mprtp_path_sender_init (&a);
  rtpcc_mprtp_path_sender_init (&b);
  /* no target from either: the encoder rate as it is */
  fail_unless (rtpcc_mprtp_aggregate_target (s, paths, 2, 1000000, &rtt) ==
      1000000);
  fail_unless (rtt == RTPCC_TIME_NONE);
  /* 10 % headroom on one path, 30 % on the other */
  rtpcc_mprtp_path_sender_set_target (&a, s, 0, MS (10), 1100000, 1000000,
      MS (30));
  rtpcc_mprtp_path_sender_set_target (&b, s, 1, MS (10), 1300000, 1000000,
      MS (80));
  fail_unless (info (s, 0).rate == 1000000 && info (s, 1).rate == 1000000);
  media = rtpcc_mprtp_sched_get_encoder_rate (s);
  fail_unless (media > 0);
  target = rtpcc_mprtp_aggregate_target (s, paths, 2, media, &rtt);
  fail_unless (target == (guint64) ((gdouble) media * 2400000 / 2000000),
      "%" G_GUINT64_FORMAT " for %" G_GUINT64_FORMAT, target, media);
  /* the slowest path in use */
  fail_unless (rtt == MS (80));
  /* a target without an RTT keeps the known one */
  rtpcc_mprtp_path_sender_set_target (&b, s, 1, MS (20), 1300000, 1000000,
      RTPCC_TIME_NONE);
  fail_unless (b.rtt == MS (80));
  /* a path left out (NULL) counts for nothing */
  paths[1] = NULL;
  target = rtpcc_mprtp_aggregate_target (s, paths, 2, media, NULL);
  fail_unless (target == (guint64) ((gdouble) media * 1100000 / 1000000));
  /* a restart forgets the target but not the RTT */
  rtpcc_mprtp_path_sender_restart (&a);
  fail_unless (!a.have_target && a.rtt == MS (30));
  fail_unless (rtpcc_mprtp_aggregate_target (s, paths, 2, media, NULL) ==
      media);
  rtpcc_mprtp_sched_free (s);
}

GST_END_TEST;

static Suite *
rtpcc_mprtp_pathsender_suite (void)
{
  Suite *s = suite_create ("rtpcc_mprtp_pathsender");
  TCase *tc = tcase_create ("pathsender");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_poll_feedback_and_interval);
  tcase_add_test (tc, test_poll_subflow_reports);
  tcase_add_test (tc, test_aggregate_target);
  return s;
}

GST_CHECK_MAIN (rtpcc_mprtp_pathsender);

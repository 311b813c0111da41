/* The report-interval request (RTCP APP "FBIV", feedback/reportinterval.h):
 * exact bytes, what the parser refuses, and a receiver that honours it
 * within [RTPCC_RECEIVER_MIN_REPORT_INTERVAL, its configured interval].
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/fbra.h>

#include "assert-bytes.h"

#define SSRC 0x1234abcdu
#define MS(x) RTPCC_MSEC (x)

GST_START_TEST (test_wire)
{
  static const guint8 want[16] = {
    0x80, 204, 0x00, 0x03, 0x12, 0x34, 0xab, 0xcd, 'F', 'B', 'I', 'V',
    0x00, 0x03, 0xd0, 0x90      /* 250 000 µs */
  };
  guint8 buf[32], bad[16];
  guint32 ssrc = 0;
  RtpccTime iv = 0;

  fail_unless_equals_int (rtpcc_report_interval_write (buf, sizeof buf, SSRC,
          MS (250)), 16);
  assert_bytes (buf, 16, want);
  fail_unless (rtpcc_report_interval_parse (buf, 16, &ssrc, &iv));
  fail_unless_equals_uint64 (ssrc, SSRC);
  fail_unless_equals_int64 (iv, MS (250));
  /* sub-µs parts are dropped; nothing to say, or too much, is refused */
  fail_unless_equals_int (rtpcc_report_interval_write (buf, 15, SSRC,
          MS (250)), 0);
  fail_unless_equals_int (rtpcc_report_interval_write (buf, 32, SSRC, 999),
      0);
  fail_unless_equals_int (rtpcc_report_interval_write (buf, 32, SSRC,
          (RtpccTime) G_MAXUINT32 * 1000 + 1000), 0);

  /* another name, subtype, version, length, padding or a zero interval is
   * not this request */
  for (guint k = 0; k < 6; k++) {
    memcpy (bad, want, 16);
    switch (k) {
      case 0:
        bad[11] = 'X';
        break;
      case 1:
        bad[0] |= 1;
        break;
      case 2:
        bad[0] = 0x40;
        break;
      case 3:
        bad[3] = 4;
        break;
      case 4:
        bad[0] |= 0x20;
        break;
      default:
        memset (bad + 12, 0, 4);
        break;
    }
    fail_if (rtpcc_report_interval_parse (bad, 16, &ssrc, &iv), "case %u", k);
  }
  fail_if (rtpcc_report_interval_parse (want, 12, &ssrc, &iv));
}

GST_END_TEST;

static RtpccReceiver *
receiver_with_media (gboolean honour)
{
  RtpccReceiverConfig c;
  RtpccReceiver *r;
  RtpccRtpInfo i = { 0, };

  rtpcc_receiver_config_init (&c);
  c.feedback = RTPCC_FEEDBACK_RR;
  c.seed = 7;
  c.honour_interval_requests = honour;
  r = rtpcc_receiver_new (&c, 0);
  i.ssrc = SSRC;
  i.seq = 1;
  i.pt = 96;
  i.size = 1200;
  i.clock_rate = 90000;
  fail_unless (rtpcc_receiver_on_rtp (r, 0, &i));
  return r;
}

static gboolean
ask (RtpccReceiver * r, RtpccTime now, guint32 ssrc, RtpccTime iv)
{
  guint8 buf[16];

  fail_unless_equals_int (rtpcc_report_interval_write (buf, sizeof buf, ssrc,
          iv), 16);
  return rtpcc_receiver_on_rtcp (r, now, buf, sizeof buf);
}

/* RRs built from @from until @until: their count */
static guint
count_rrs (RtpccReceiver * r, RtpccTime from, RtpccTime until)
{
  guint8 buf[1500];
  guint n = 0;

  for (RtpccTime t = from; t < until; t += MS (1))
    if (rtpcc_receiver_build_feedback (r, t, buf, sizeof buf) > 0)
      n++;
  return n;
}

/* The receiver takes the request from a source it receives, clamps it to
 * [100 ms, its configured 1 s], moves an RR scheduled further out in, and
 * reports at the interval asked (RFC 3550 randomisation around it). */
GST_START_TEST (test_receiver_honours)
{
  RtpccReceiver *r = receiver_with_media (TRUE);
  const RtpccReceiverStats *st = rtpcc_receiver_get_stats (r, 0);
  guint n;

  fail_unless_equals_int64 (st->report_interval, RTPCC_SEC (1));
  /* the first RR is at 0.5 s; a 250 ms request at 10 ms brings it in */
  fail_unless (ask (r, MS (10), SSRC, MS (250)));
  st = rtpcc_receiver_get_stats (r, MS (10));
  fail_unless_equals_int64 (st->report_interval, MS (250));
  fail_unless_equals_uint64 (st->interval_requests, 1);
  fail_unless (rtpcc_receiver_next_feedback_time (r) <= MS (10 + 375));
  /* 20 s at 250 ms: 80 RRs expected, randomised in [0.5, 1.5] */
  n = count_rrs (r, MS (10), RTPCC_SEC (20) + MS (10));
  fail_unless (n >= 70 && n <= 90, "%u RRs in 20 s", n);

  /* clamped: 10 ms → 100 ms, 5 s → the configured 1 s */
  fail_unless (ask (r, RTPCC_SEC (21), SSRC, MS (10)));
  fail_unless_equals_int64 (rtpcc_receiver_get_stats (r,
          RTPCC_SEC (21))->report_interval, MS (100));
  fail_unless (ask (r, RTPCC_SEC (22), SSRC, RTPCC_SEC (5)));
  fail_unless_equals_int64 (rtpcc_receiver_get_stats (r,
          RTPCC_SEC (22))->report_interval, RTPCC_SEC (1));

  /* from an SSRC we do not receive: not ours to follow */
  fail_if (ask (r, RTPCC_SEC (23), 0x0badu, MS (250)));
  st = rtpcc_receiver_get_stats (r, RTPCC_SEC (23));
  fail_unless_equals_int64 (st->report_interval, RTPCC_SEC (1));
  fail_unless_equals_uint64 (st->interval_requests, 3);
  rtpcc_receiver_free (r);

  /* honour_interval_requests = FALSE: counted, not followed */
  r = receiver_with_media (FALSE);
  fail_unless (ask (r, MS (10), SSRC, MS (250)));
  st = rtpcc_receiver_get_stats (r, MS (10));
  fail_unless_equals_uint64 (st->interval_requests, 1);
  fail_unless_equals_int64 (st->report_interval, RTPCC_SEC (1));
  n = count_rrs (r, MS (10), RTPCC_SEC (20) + MS (10));
  fail_unless (n >= 15 && n <= 25, "%u RRs in 20 s", n);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* FBRA wants 2.5 × the min RTT within [0.1, 1] s on a 10 ms grid; other
 * controllers have no preference. */
GST_START_TEST (test_controller_preference)
{
  RtpccFbraParams p;
  RtpccControllerConfig cfg;
  RtpccController *cc;
  GError *err = NULL;

  rtpcc_fbra_params_init (&p);
  fail_unless_equals_int64 (rtpcc_fbra_report_interval (&p, RTPCC_TIME_NONE),
      MS (250));
  fail_unless_equals_int64 (rtpcc_fbra_report_interval (&p, MS (100)),
      MS (250));
  fail_unless_equals_int64 (rtpcc_fbra_report_interval (&p, MS (99)),
      MS (250));
  fail_unless_equals_int64 (rtpcc_fbra_report_interval (&p, MS (150)),
      MS (380));
  fail_unless_equals_int64 (rtpcc_fbra_report_interval (&p, MS (20)),
      MS (100));
  fail_unless_equals_int64 (rtpcc_fbra_report_interval (&p, MS (600)),
      RTPCC_SEC (1));

  rtpcc_controller_config_init (&cfg);
  cc = rtpcc_controller_new ("fbra", &cfg, 0, &err);
  g_assert_no_error (err);
  fail_unless_equals_int64 (rtpcc_controller_report_interval (cc), MS (250));
  fail_unless (rtpcc_controller_set_param (cc, "report-rtts", "4"));
  fail_unless_equals_int64 (rtpcc_controller_report_interval (cc), MS (400));
  fail_unless (rtpcc_controller_set_param (cc, "report-max", "0.3"));
  fail_unless_equals_int64 (rtpcc_controller_report_interval (cc), MS (300));
  /* min above max is refused */
  fail_if (rtpcc_controller_set_param (cc, "report-min", "0.5"));
  rtpcc_controller_free (cc);

  cc = rtpcc_controller_new ("tfrc", &cfg, 0, &err);
  g_assert_no_error (err);
  fail_unless_equals_int64 (rtpcc_controller_report_interval (cc),
      RTPCC_TIME_NONE);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

static Suite *
rtpcc_reportinterval_suite (void)
{
  Suite *s = suite_create ("rtpcc_reportinterval");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_wire);
  tcase_add_test (tc, test_receiver_honours);
  tcase_add_test (tc, test_controller_preference);
  return s;
}

GST_CHECK_MAIN (rtpcc_reportinterval);

/* Unit tests for the "cnadu" controller (gst/rtpcc/cc/cnadu.c): the cues
 * per receiver report (loss, RTT percentiles, frames that missed their
 * deadline, the NADU's empty buffer), the TCP-equation floor and the
 * receiver's estimate; every expected rate computed by hand from the rule.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include "cc-util.h"
#include <string.h>

static guint32 hsn;

/* An RR at @now, evaluated at the tick after its compound. */
static void
rr (RtpccController * cc, RtpccTime now, guint8 fraction, RtpccTime rtt)
{
  cc_util_rr (cc, now, fraction, rtt, &hsn);
  fail_unless (rtpcc_controller_next_timeout (cc) <= now);
  rtpcc_controller_tick (cc, now);
}

static guint64
rate (RtpccController * cc)
{
  return cc->target.target_bitrate;
}

#define RTT RTPCC_MSEC (500)

GST_START_TEST (test_loss_rule)
{
  RtpccController *cc = cc_util_new ("cnadu", 50000, 5000000, 500000);
  guint64 before;

  /* no loss: 1.05 (500000 + 1000) */
  rr (cc, RTPCC_SEC (1), 0, RTT);
  fail_unless_equals_uint64 (rate (cc), 526050);
  fail_unless_equals_string (cc->target.state, "increase");
  /* 13/256 = 5.1 %: hold */
  rr (cc, RTPCC_SEC (2), 13, RTT);
  fail_unless_equals_uint64 (rate (cc), 526050);
  fail_unless_equals_string (cc->target.reason, "some-loss");
  /* 64/256 = 25 %: min (0.85, 1 - 0.125) = 0.85: 447142 */
  rr (cc, RTPCC_SEC (3), 64, RTT);
  fail_unless_equals_uint64 (rate (cc), 447142);
  fail_unless_equals_string (cc->target.reason, "loss");
  /* 30 % loss on a 1 ms path: TCP would get far more; the floor holds */
  rr (cc, RTPCC_SEC (4), 77, RTPCC_MSEC (1));
  fail_unless (rate (cc) > 447142);
  fail_unless_equals_string (cc->target.reason, "tfrc-floor");
  rtpcc_controller_free (cc);

  /* the floor is of the report's own loss: the next report, without
   * loss but with a missed deadline, cuts */
  cc = cc_util_new ("cnadu", 50000, 5000000, 500000);
  rr (cc, RTPCC_SEC (1), 26, RTPCC_MSEC (10));
  before = rate (cc);
  fail_unless_equals_string (cc->target.reason, "tfrc-floor");
  {
    RtpccPacketReport d = {.received = TRUE };
    rtpcc_controller_discards (cc, RTPCC_SEC (2), &d, 1);
  }
  rr (cc, RTPCC_SEC (2), 0, RTPCC_MSEC (10));
  fail_unless_equals_string (cc->target.reason, "missed-deadline");
  fail_unless (ABS ((gdouble) rate (cc) - 0.85 * before) <= 1.0);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* The RTT against the previous ones' 75th / 90th percentiles, once 8
 * are known: above p90 cuts, above p75 holds. */
GST_START_TEST (test_rtt_percentiles)
{
  RtpccController *cc = cc_util_new ("cnadu", 50000, 50000000, 500000);
  guint64 before;
  guint s = 1;

  /* 8 samples, no cue before the eighth is known: 100 (six times), 110,
   * 120 ms; then p75 = 100 and p90 = 120 (nearest rank of 8) */
  for (; s <= 6; s++)
    rr (cc, RTPCC_SEC (s), 0, RTPCC_MSEC (100));
  rr (cc, RTPCC_SEC (s++), 0, RTPCC_MSEC (110));
  rr (cc, RTPCC_SEC (s++), 0, RTPCC_MSEC (120));
  fail_unless_equals_string (cc->target.state, "increase");
  /* 115 ms: over p75 (100), not over p90 (120): hold */
  before = rate (cc);
  rr (cc, RTPCC_SEC (s++), 0, RTPCC_MSEC (115));
  fail_unless_equals_uint64 (rate (cc), before);
  fail_unless_equals_string (cc->target.reason, "rtt-p75");
  /* 200 ms: over p90 (120 of nine): 0.85 */
  rr (cc, RTPCC_SEC (s++), 0, RTPCC_MSEC (200));
  /* (before is the published rate, truncated from the state) */
  fail_unless (ABS ((gdouble) rate (cc) - 0.85 * before) <= 1.0);
  fail_unless_equals_string (cc->target.reason, "rtt-p90");
  /* 100 ms, not over p75 (115 of ten): increase */
  before = rate (cc);
  rr (cc, RTPCC_SEC (s++), 0, RTPCC_MSEC (100));
  fail_unless (rate (cc) > before);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* Frames that missed their deadline (XR Discard RLE) and a NADU showing
 * nothing left to play both cut; a NADU with a playout delay does not. */
GST_START_TEST (test_deadline_cues)
{
  RtpccController *cc = cc_util_new ("cnadu", 50000, 5000000, 500000);
  RtpccPacketReport d[3];
  RtpccNaduBlock b = { 0 };

  memset (d, 0, sizeof (d));
  for (guint i = 0; i < 3; i++)
    d[i].received = TRUE;
  d[2].is_fec = TRUE;
  rtpcc_controller_discards (cc, RTPCC_SEC (1), d, 3);
  rr (cc, RTPCC_SEC (1), 0, RTT);
  fail_unless_equals_uint64 (rate (cc), 425000);
  fail_unless_equals_string (cc->target.reason, "missed-deadline");
  /* counted once: the next report without discards increases */
  rr (cc, RTPCC_SEC (2), 0, RTT);
  fail_unless_equals_uint64 (rate (cc), 447300);
  b.playout_delay = RTPCC_NADU_DELAY_UNSET;
  rtpcc_controller_nadu (cc, RTPCC_SEC (3), &b);
  rr (cc, RTPCC_SEC (3), 0, RTT);
  fail_unless_equals_uint64 (rate (cc), 380205);
  fail_unless_equals_string (cc->target.reason, "buffer-empty");
  b.playout_delay = 120;
  rtpcc_controller_nadu (cc, RTPCC_SEC (4), &b);
  rr (cc, RTPCC_SEC (4), 0, RTT);
  fail_unless_equals_string (cc->target.state, "increase");
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* The receiver's estimate A: the rate never above it; below it, a
 * report that increases moves halfway to it. */
GST_START_TEST (test_receiver_estimate)
{
  RtpccController *cc = cc_util_new ("cnadu", 50000, 5000000, 500000);

  /* a maximum (the sender enforces it too): at once */
  rtpcc_controller_receiver_limit (cc, RTPCC_SEC (1), 400000);
  fail_unless_equals_uint64 (rate (cc), 400000);
  rr (cc, RTPCC_SEC (1), 0, RTT);
  fail_unless_equals_uint64 (rate (cc), 400000);
  fail_unless_equals_string (cc->target.reason, "receiver-estimate");
  rtpcc_controller_receiver_limit (cc, RTPCC_SEC (2), 1000000);
  /* 1.05 (400000 + 1000) = 421050, then halfway to 1 M: 710525 */
  rr (cc, RTPCC_SEC (2), 0, RTT);
  fail_unless_equals_uint64 (rate (cc), 710525);
  fail_unless_equals_string (cc->target.reason, "toward-receiver");
  /* a hold does not move toward it */
  rr (cc, RTPCC_SEC (3), 13, RTT);
  fail_unless_equals_uint64 (rate (cc), 710525);
  /* none any more: the sender's own rule */
  rtpcc_controller_receiver_limit (cc, RTPCC_SEC (4), G_MAXUINT64);
  rr (cc, RTPCC_SEC (4), 0, RTT);
  fail_unless_equals_uint64 (rate (cc), 747101);
  rtpcc_controller_free (cc);
}

GST_END_TEST;

/* A report with nothing new received does not increase; after feedback
 * stops the rate drops to the timer's cap and the first report back is
 * not acted on. */
GST_START_TEST (test_no_progress_and_no_feedback)
{
  RtpccController *cc = cc_util_new ("cnadu", 50000, 5000000, 500000);
  RtpccReceiverReport r;

  rr (cc, RTPCC_SEC (1), 0, RTT);
  memset (&r, 0, sizeof (r));
  r.ext_highest_seq = hsn;
  r.packets_sent_interval = 100;
  rtpcc_controller_receiver_report (cc, RTPCC_SEC (2), &r);
  rtpcc_controller_tick (cc, RTPCC_SEC (2));
  fail_unless_equals_uint64 (rate (cc), 526050);
  fail_unless_equals_string (cc->target.reason, "no-progress");
  cc->ops->on_no_feedback (cc, RTPCC_SEC (3), 200000);
  fail_unless_equals_uint64 (rate (cc), 200000);
  rr (cc, RTPCC_SEC (4), 128, RTT);
  fail_unless_equals_uint64 (rate (cc), 200000);
  fail_unless_equals_string (cc->target.reason, "feedback-back");
  rtpcc_controller_free (cc);
}

GST_END_TEST;

static Suite *
rtpcc_cnadu_suite (void)
{
  Suite *s = suite_create ("rtpcc_cnadu");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_loss_rule);
  tcase_add_test (tc, test_rtt_percentiles);
  tcase_add_test (tc, test_deadline_cues);
  tcase_add_test (tc, test_receiver_estimate);
  tcase_add_test (tc, test_no_progress_and_no_feedback);
  return s;
}

GST_CHECK_MAIN (rtpcc_cnadu);

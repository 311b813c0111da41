/* Unit tests for RtpccLossEvents (gst/rtpcc/lossevents.[ch]): RFC 5348
 * §5.2 loss events, shared by the sender (for the circuit breaker) and
 * the tfrc controller.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

#define MS(x) RTPCC_MSEC (x)

/* A drop-tail burst is one event: losses sent up to one RTT after the
 * event's first lost packet join it; the first sent later starts the next,
 * closing a loss interval of (its seq − the previous first's seq). */
GST_START_TEST (test_grouping_by_send_time)
{
  RtpccLossEvents le;
  guint64 interval = 12345;

  rtpcc_loss_events_init (&le);
  fail_if (le.started);
  /* the first loss starts the first event; no interval closes */
  fail_unless (rtpcc_loss_events_on_loss (&le, 100, MS (1000), MS (100),
          &interval));
  fail_unless_equals_uint64 (interval, 0);
  fail_unless_equals_uint64 (le.n_events, 1);
  /* 101 .. 110 sent within the RTT of packet 100: the same event, even
   * exactly one RTT later */
  for (guint64 q = 101; q <= 110; q++)
    fail_if (rtpcc_loss_events_on_loss (&le, q, MS (1000) + (RtpccTime) (q -
                100) * MS (10), MS (100), &interval));
  fail_unless_equals_uint64 (le.n_events, 1);
  /* 1 ns past the RTT: a new event, closing the interval 100 → 111 */
  fail_unless (rtpcc_loss_events_on_loss (&le, 111, MS (1100) + 1, MS (100),
          &interval));
  fail_unless_equals_uint64 (interval, 11);
  fail_unless_equals_uint64 (le.first_seq, 111);
  fail_unless_equals_int64 (le.first_send, MS (1100) + 1);
  fail_unless_equals_uint64 (le.n_events, 2);
  /* the RTT in force decides: a longer one swallows a later loss */
  fail_if (rtpcc_loss_events_on_loss (&le, 140, MS (1400), MS (400), NULL));
  fail_unless (rtpcc_loss_events_on_loss (&le, 141, MS (1400), MS (200),
          NULL));
  fail_unless_equals_uint64 (le.n_events, 3);
}

GST_END_TEST;

/* A loss reported late (a packet sent before the current event's first)
 * belongs to the current event whatever the times say. */
GST_START_TEST (test_late_report_joins)
{
  RtpccLossEvents le;
  guint64 interval = 7;

  rtpcc_loss_events_init (&le);
  fail_unless (rtpcc_loss_events_on_loss (&le, 50, MS (500), MS (10), NULL));
  fail_if (rtpcc_loss_events_on_loss (&le, 50, MS (900), MS (10),
          &interval));
  fail_if (rtpcc_loss_events_on_loss (&le, 20, MS (900), MS (10),
          &interval));
  fail_unless_equals_uint64 (interval, 7);      /* untouched */
  fail_unless_equals_uint64 (le.n_events, 1);
  fail_unless_equals_uint64 (le.first_seq, 50);
  /* the RTT is not known yet (0): every later loss is an event */
  fail_unless (rtpcc_loss_events_on_loss (&le, 51, MS (500) + 1, 0,
          &interval));
  fail_unless_equals_uint64 (interval, 1);
}

GST_END_TEST;

static Suite *
rtpcc_lossevents_suite (void)
{
  Suite *s = suite_create ("rtpcc_lossevents");
  TCase *tc = tcase_create ("lossevents");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_grouping_by_send_time);
  tcase_add_test (tc, test_late_report_joins);
  return s;
}

GST_CHECK_MAIN (rtpcc_lossevents);

/* Unit tests for the playout buffer's reorder and release queue
 * (gst/rtpcc/playout/queue.[ch]).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/playout/queue.h>

#define P(x) GUINT_TO_POINTER (x)

static guint destroyed;

static void
count_destroy (gpointer data)
{
  destroyed++;
}

GST_START_TEST (test_order_and_duplicates)
{
  RtpccPlayoutQueue q;
  guint16 seq;
  guint64 skipped;

  rtpcc_playout_queue_init (&q);
  fail_unless (rtpcc_playout_queue_head (&q) == NULL);
  fail_unless_equals_int (rtpcc_playout_queue_insert (&q, 10, 100, P (10),
          8), RTPCC_PLAYOUT_QUEUED);
  fail_unless_equals_int (rtpcc_playout_queue_insert (&q, 12, 120, P (12),
          8), RTPCC_PLAYOUT_QUEUED);
  fail_unless_equals_int (rtpcc_playout_queue_insert (&q, 11, 110, P (11),
          8), RTPCC_PLAYOUT_QUEUED);
  fail_unless_equals_int (rtpcc_playout_queue_insert (&q, 9, 90, P (9), 8),
      RTPCC_PLAYOUT_QUEUED);
  fail_unless_equals_int (rtpcc_playout_queue_insert (&q, 11, 110, P (11),
          8), RTPCC_PLAYOUT_DUPLICATE);
  fail_unless_equals_int (rtpcc_playout_queue_length (&q), 4);
  /* released in sequence order, whatever the arrival order */
  for (guint i = 9; i <= 12; i++) {
    fail_unless_equals_int (rtpcc_playout_queue_head (&q)->media, 10 * i);
    fail_unless (rtpcc_playout_queue_release (&q, &seq, &skipped) == P (i));
    fail_unless_equals_int (seq, i);
    fail_unless_equals_int (skipped, 0);
  }
  /* a released one is remembered, an older gap is only passed */
  fail_unless (rtpcc_playout_queue_was_released (&q, 11));
  fail_unless (rtpcc_playout_queue_passed (&q, 5));
  fail_if (rtpcc_playout_queue_was_released (&q, 5));
  fail_if (rtpcc_playout_queue_passed (&q, 13));
  rtpcc_playout_queue_drop (&q, NULL);
}

GST_END_TEST;

GST_START_TEST (test_skipped_and_bits)
{
  RtpccPlayoutQueue q;
  guint64 skipped;

  rtpcc_playout_queue_init (&q);
  rtpcc_playout_queue_insert (&q, 100, 0, P (1), 8);
  rtpcc_playout_queue_release (&q, NULL, &skipped);
  /* a gap of 3 is played over */
  rtpcc_playout_queue_insert (&q, 104, 0, P (2), 8);
  rtpcc_playout_queue_release (&q, NULL, &skipped);
  fail_unless_equals_int (skipped, 3);
  fail_if (rtpcc_playout_queue_was_released (&q, 102));
  fail_unless (rtpcc_playout_queue_passed (&q, 102));
  /* 1024 later the same bit means another seq: the old one is cleared */
  rtpcc_playout_queue_insert (&q, 104 + RTPCC_PLAYOUT_RELEASED_BITS + 2, 0,
      P (3), 8);
  rtpcc_playout_queue_release (&q, NULL, &skipped);
  fail_unless_equals_int (skipped, RTPCC_PLAYOUT_RELEASED_BITS + 1);
  fail_if (rtpcc_playout_queue_was_released (&q, 104));
  fail_if (rtpcc_playout_queue_was_released (&q,
          104 + RTPCC_PLAYOUT_RELEASED_BITS));
  fail_unless (rtpcc_playout_queue_was_released (&q,
          104 + RTPCC_PLAYOUT_RELEASED_BITS + 2));
  /* forgetting: nothing passed any more */
  rtpcc_playout_queue_forget (&q);
  fail_if (rtpcc_playout_queue_passed (&q, 0));
  rtpcc_playout_queue_drop (&q, NULL);
}

GST_END_TEST;

GST_START_TEST (test_overflow_and_drop)
{
  RtpccPlayoutQueue q;

  rtpcc_playout_queue_init (&q);
  for (guint i = 0; i < 3; i++)
    fail_unless_equals_int (rtpcc_playout_queue_insert (&q, i, 0, P (i + 1),
            3), RTPCC_PLAYOUT_QUEUED);
  fail_unless_equals_int (rtpcc_playout_queue_insert (&q, 7, 0, P (8), 3),
      RTPCC_PLAYOUT_OVERFLOW);
  /* a duplicate is told apart from an overflow */
  fail_unless_equals_int (rtpcc_playout_queue_insert (&q, 1, 0, P (2), 3),
      RTPCC_PLAYOUT_DUPLICATE);
  destroyed = 0;
  rtpcc_playout_queue_drop (&q, count_destroy);
  fail_unless_equals_int (destroyed, 3);
  fail_unless_equals_int (rtpcc_playout_queue_length (&q), 0);
}

GST_END_TEST;

static Suite *
rtpcc_playout_queue_suite (void)
{
  Suite *s = suite_create ("rtpcc_playout_queue");
  TCase *tc = tcase_create ("queue");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_order_and_duplicates);
  tcase_add_test (tc, test_skipped_and_bits);
  tcase_add_test (tc, test_overflow_and_drop);
  return s;
}

GST_CHECK_MAIN (rtpcc_playout_queue);

/* Unit tests for the sequence-jump probation (gst/rtpcc/seqjump.[ch]).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/seqjump.h>

GST_START_TEST (test_ranges)
{
  RtpccSeqJump j;
  gboolean refuted;

  rtpcc_seq_jump_reset (&j);
  /* reordering and loss bursts are no jump */
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 10, 1, &refuted),
      RTPCC_SEQ_JUMP_NONE);
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 10,
          RTPCC_SEQ_JUMP_AHEAD, NULL), RTPCC_SEQ_JUMP_NONE);
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 10,
          -RTPCC_SEQ_JUMP_BEHIND, NULL), RTPCC_SEQ_JUMP_NONE);
  fail_if (refuted);
  /* one beyond either bound is */
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 500,
          RTPCC_SEQ_JUMP_AHEAD + 1, NULL), RTPCC_SEQ_JUMP_PROBATION);
  rtpcc_seq_jump_reset (&j);
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 500,
          -RTPCC_SEQ_JUMP_BEHIND - 1, NULL), RTPCC_SEQ_JUMP_PROBATION);
}

GST_END_TEST;

GST_START_TEST (test_confirm_and_refute)
{
  RtpccSeqJump j;
  gboolean refuted;

  /* a jump to 65530, then 2 (across the wrap, 8 later): confirmed */
  rtpcc_seq_jump_reset (&j);
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 65530, 30000, &refuted),
      RTPCC_SEQ_JUMP_PROBATION);
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 2, 30008, &refuted),
      RTPCC_SEQ_JUMP_CONFIRMED);
  fail_if (refuted);
  fail_if (j.pending);

  /* a jump, then the old stream: refuted, nothing pending */
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 9000, 5000, NULL),
      RTPCC_SEQ_JUMP_PROBATION);
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 4001, 1, &refuted),
      RTPCC_SEQ_JUMP_NONE);
  fail_unless (refuted);
  fail_if (j.pending);

  /* a jump, then another one elsewhere: that one is on probation now */
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 9000, 5000, NULL),
      RTPCC_SEQ_JUMP_PROBATION);
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 20000, 16000, &refuted),
      RTPCC_SEQ_JUMP_PROBATION);
  fail_unless (refuted);
  fail_unless_equals_int (j.seq, 20000);

  /* the same packet twice, or one too far after it, confirms nothing */
  fail_unless_equals_int (rtpcc_seq_jump_check (&j, 20000, 16000, &refuted),
      RTPCC_SEQ_JUMP_PROBATION);
  fail_unless (refuted);
  fail_unless_equals_int (rtpcc_seq_jump_check (&j,
          20000 + RTPCC_SEQ_JUMP_CONFIRM + 1, 16017, &refuted),
      RTPCC_SEQ_JUMP_PROBATION);
  fail_unless (refuted);
  fail_unless_equals_int (rtpcc_seq_jump_check (&j,
          20017 + RTPCC_SEQ_JUMP_CONFIRM, 16033, &refuted),
      RTPCC_SEQ_JUMP_CONFIRMED);
}

GST_END_TEST;

static Suite *
rtpcc_seqjump_suite (void)
{
  Suite *s = suite_create ("rtpcc_seqjump");
  TCase *tc = tcase_create ("seqjump");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ranges);
  tcase_add_test (tc, test_confirm_and_refute);
  return s;
}

GST_CHECK_MAIN (rtpcc_seqjump);

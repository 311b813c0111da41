/* Unit tests for RtpccPlayout and sequence number jumps: one packet with a
 * bogus sequence number must not make every valid packet after it late,
 * and a sender that restarts on the same SSRC at another sequence number
 * (and timestamp) is followed (RFC 3550 A.1-style probation).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/playout.h>

#define MS(x) RTPCC_MSEC (x)

static guint freed;

static void
count_free (gpointer data)
{
  freed++;
}

static RtpccPlayout *
new_playout (RtpccPlayoutMode mode)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;

  rtpcc_playout_config_init (&c);
  c.mode = mode;
  c.min_delay = mode == RTPCC_PLAYOUT_MODE_FIXED ? MS (50) : 0;
  p = rtpcc_playout_new (&c);
  rtpcc_playout_set_free_func (p, count_free);
  return p;
}

/* Pushes @n packets every 10 ms from @t0 (seq from @seq0, 900 ticks
 * each from @ts0; data = @tag0 + i), popping what is due; counts late
 * verdicts and checks that what comes out is in push order. */
typedef struct
{
  guint late, released;
  guint last_tag;
} Run;

static void
drain (RtpccPlayout * p, RtpccTime now, Run * r)
{
  gpointer d;

  while ((d = rtpcc_playout_pop (p, now, NULL, NULL)) != NULL) {
    fail_unless (GPOINTER_TO_UINT (d) > r->last_tag, "%u after %u",
        GPOINTER_TO_UINT (d), r->last_tag);
    r->last_tag = GPOINTER_TO_UINT (d);
    r->released++;
  }
}

static void
stream (RtpccPlayout * p, RtpccTime t0, guint16 seq0, guint32 ts0, guint n,
    guint tag0, Run * r)
{
  for (guint i = 0; i < n; i++) {
    RtpccTime now = t0 + MS (10) * i;
    RtpccPlayoutVerdict v;

    drain (p, now, r);
    v = rtpcc_playout_push (p, now, 0, (guint16) (seq0 + i), ts0 + 900 * i,
        GUINT_TO_POINTER (tag0 + i));
    if (v == RTPCC_PLAYOUT_LATE)
      r->late++;
    else
      fail_unless_equals_int (v, RTPCC_PLAYOUT_QUEUED);
  }
}

/* One packet at +500 ... +32767 (or far behind) among valid ones: it is
 * refused and freed; none of the 200 valid packets after it is late. */
GST_START_TEST (test_bogus_jump)
{
  static const gint jumps[] = { 500, 257, 1024, 32767, -1025, -20000 };

  for (guint m = 0; m < 2; m++) {
    for (guint j = 0; j < G_N_ELEMENTS (jumps); j++) {
      RtpccPlayout *p = new_playout (m ? RTPCC_PLAYOUT_MODE_ADAPTIVE :
          RTPCC_PLAYOUT_MODE_FIXED);
      RtpccPlayoutStats st;
      Run r = { 0, };

      freed = 0;
      stream (p, MS (20), 1000, 5000, 100, 1, &r);
      /* seq 1099 was the last; the bogus one carries a plausible ts */
      fail_unless_equals_int (rtpcc_playout_push (p, MS (20) + MS (995), 0,
              (guint16) (1099 + jumps[j]), 5000 + 900 * 100,
              GUINT_TO_POINTER (100000)), RTPCC_PLAYOUT_QUEUED);
      stream (p, MS (20) + MS (1000), 1100, 5000 + 900 * 100, 200, 101, &r);
      drain (p, RTPCC_SEC (100), &r);
      rtpcc_playout_get_stats (p, &st);
      fail_unless_equals_int (st.refused, 1);
      fail_unless_equals_int (freed, 1);
      fail_unless_equals_int (r.released, 300 - r.late);
      /* start-up only: nothing after the jump */
      fail_unless (r.late <= 2, "%u late (jump %d)", r.late, jumps[j]);
      fail_unless_equals_int (r.last_tag, 300);
      rtpcc_playout_free (p, NULL);
    }
  }
}

GST_END_TEST;

/* The sender restarts on the same SSRC at a lower sequence number and
 * another timestamp (or far ahead): the packet that jumped is held until
 * the next one confirms it; then the held packets of the old stream come
 * out at once and the new one plays from its first packet, none late. */
GST_START_TEST (test_restart)
{
  static const guint16 seqs[] = { 100, 29000, 31200, 65000 };
  static const guint32 tss[] = { 7, 4000000000u, 5000 + 900 * 200, 123456 };

  for (guint m = 0; m < 2; m++) {
    for (guint j = 0; j < G_N_ELEMENTS (seqs); j++) {
      RtpccPlayout *p = new_playout (m ? RTPCC_PLAYOUT_MODE_ADAPTIVE :
          RTPCC_PLAYOUT_MODE_FIXED);
      RtpccPlayoutStats st;
      Run r = { 0, };
      guint late_before;

      freed = 0;
      stream (p, MS (20), 30000, 5000, 200, 1, &r);
      late_before = r.late;
      stream (p, MS (20) + MS (2000), seqs[j], tss[j], 200, 201, &r);
      drain (p, RTPCC_SEC (100), &r);
      rtpcc_playout_get_stats (p, &st);
      fail_unless_equals_int (st.refused, 0);
      fail_unless_equals_int (freed, 0);
      fail_unless (r.late - late_before <= 2, "%u late after the restart",
          r.late - late_before);
      fail_unless_equals_int (r.released, 400 - r.late);
      fail_unless_equals_int (r.last_tag, 400);
      rtpcc_playout_free (p, NULL);
    }
  }
}

GST_END_TEST;

/* A packet on probation is held by the playout: freed with it if nothing
 * confirms it before the end. */
GST_START_TEST (test_held_freed)
{
  RtpccPlayout *p = new_playout (RTPCC_PLAYOUT_MODE_FIXED);
  RtpccPlayoutStats st;
  Run r = { 0, };

  freed = 0;
  stream (p, MS (20), 1000, 5000, 10, 1, &r);
  fail_unless_equals_int (rtpcc_playout_push (p, MS (200), 0, 9000, 5000,
          GUINT_TO_POINTER (99)), RTPCC_PLAYOUT_QUEUED);
  rtpcc_playout_get_stats (p, &st);
  fail_unless_equals_int (st.refused, 0);
  rtpcc_playout_free (p, count_free);
  /* the held one and the queued ones */
  fail_unless_equals_int (freed, 1 + 10 - r.released);
}

GST_END_TEST;

/* What the merge has: held or released counts, a hole or a late packet
 * does not; another SSRC, an empty playout or a range too long: no. */
GST_START_TEST (test_has_range)
{
  RtpccPlayout *p = new_playout (RTPCC_PLAYOUT_MODE_FIXED);
  Run r = { 0, };

  fail_if (rtpcc_playout_has_range (p, 7, 0, 0));
  fail_unless_equals_int (rtpcc_playout_check_ssrc (p, 7, FALSE, NULL),
      RTPCC_PLAYOUT_SSRC_SAME);
  /* 65530..3 (across wrap), the first released and the rest held by
   * 90 ms; 5 and 6 held; 4 lost */
  stream (p, 0, 65530, 0, 10, 1, &r);
  fail_unless (r.released > 0);
  fail_unless_equals_int (rtpcc_playout_push (p, MS (100), 1, 5, 900 * 11,
          GUINT_TO_POINTER (100)), RTPCC_PLAYOUT_QUEUED);
  fail_unless_equals_int (rtpcc_playout_push (p, MS (101), 1, 6, 900 * 12,
          GUINT_TO_POINTER (101)), RTPCC_PLAYOUT_QUEUED);
  fail_unless (rtpcc_playout_has_range (p, 7, 65530, 3));
  fail_unless (rtpcc_playout_has_range (p, 7, 5, 6));
  fail_if (rtpcc_playout_has_range (p, 7, 3, 5));
  fail_if (rtpcc_playout_has_range (p, 8, 5, 6));
  fail_if (rtpcc_playout_has_range (p, 7, 6, 5));       /* 65535 long */
  /* a late packet is not in the merge: 4 now, behind the release point */
  drain (p, MS (300), &r);
  fail_unless_equals_int (rtpcc_playout_push (p, MS (300), 0, 4, 900 * 10,
          GUINT_TO_POINTER (102)), RTPCC_PLAYOUT_LATE);
  fail_if (rtpcc_playout_has_range (p, 7, 3, 5));
  fail_unless (rtpcc_playout_has_range (p, 7, 5, 6));
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

static Suite *
rtpcc_playout_seq_suite (void)
{
  Suite *s = suite_create ("rtpcc_playout_seq");
  TCase *tc = tcase_create ("seq");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_bogus_jump);
  tcase_add_test (tc, test_restart);
  tcase_add_test (tc, test_held_freed);
  tcase_add_test (tc, test_has_range);
  return s;
}

GST_CHECK_MAIN (rtpcc_playout_seq);

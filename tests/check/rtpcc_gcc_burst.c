/* Unit tests for gcc's burst guard (gst/rtpcc/cc/gcc/burst.c): key frames
 * told by size or by pacer busy time, the window of delay samples they
 * excuse, and the 100 ms cap on what they may excuse.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/burst.h>

#define MS(x) RTPCC_MSEC (x)

/* @n packets of @size bytes from @t0, 1 ms apart; the last one marks the
 * frame's end if @marker and leaves the pacer empty */
static void
frame (RtpccGccBurst * b, RtpccTime t0, guint n, guint size,
    gboolean marker, gboolean may_mark)
{
  for (guint i = 0; i < n; i++) {
    RtpccSentPacket p = { 0 };

    p.send_time = t0 + MS (i);
    p.size = size;
    p.app_limited = i == n - 1;
    p.frame_end = marker && i == n - 1;
    rtpcc_gcc_burst_sent (b, &p, may_mark);
  }
}

GST_START_TEST (test_key_frame_by_size)
{
  RtpccGccBurst b;

  rtpcc_gcc_burst_init (&b);
  /* ten delta frames of 3000 bytes every 40 ms, then a 10000-byte frame
   * (> 2 × 3000) sent from 400 to 409 ms: its first and last send times
   * are marked */
  for (guint i = 0; i < 10; i++)
    frame (&b, MS (40 * i), 3, 1000, TRUE, TRUE);
  fail_unless (b.n_frames == 10 && b.frame_mean == 3000.0);
  fail_unless (b.marks->len == 0);
  frame (&b, MS (400), 10, 1000, TRUE, TRUE);
  fail_unless (b.n_key_frames == 1 && b.marks->len == 2);
  fail_unless (g_array_index (b.marks, RtpccTime, 0) == MS (400));
  fail_unless (g_array_index (b.marks, RtpccTime, 1) == MS (409));
  fail_unless (b.frame_mean == 3000.0, "a key frame is not in the mean");

  /* groups sent from 100 ms before the first mark to 150 ms after the
   * last are the burst's */
  fail_if (rtpcc_gcc_burst_check (&b, MS (299), 0.0));
  fail_unless (rtpcc_gcc_burst_check (&b, MS (300), 0.0));
  fail_unless (rtpcc_gcc_burst_check (&b, MS (559), 0.0));
  fail_if (rtpcc_gcc_burst_check (&b, MS (560), 0.0));
  fail_unless (b.n_self_bursts == 2);

  /* a second large frame in a row is the encoder's new rate: not a key
   * frame, and the mean restarts there */
  frame (&b, MS (440), 10, 1000, TRUE, TRUE);
  fail_unless (b.n_key_frames == 1 && b.marks->len == 2);
  fail_unless (b.frame_mean == 10000.0);
  /* while a probe runs a key frame is counted but not marked */
  frame (&b, MS (480), 10, 1000, TRUE, TRUE);
  frame (&b, MS (520), 25, 1000, TRUE, FALSE);
  fail_unless (b.n_key_frames == 2 && b.marks->len == 2);
  rtpcc_gcc_burst_clear (&b);
}

GST_END_TEST;

GST_START_TEST (test_burst_excuses_100ms)
{
  RtpccGccBurst b;

  rtpcc_gcc_burst_init (&b);
  for (guint i = 0; i < 10; i++)
    frame (&b, MS (40 * i), 3, 1000, TRUE, TRUE);
  frame (&b, MS (400), 10, 1000, TRUE, TRUE);
  /* the burst's samples may add up to 100 ms of delay from where the
   * burst began; the one past that is an over-use again */
  fail_unless (rtpcc_gcc_burst_check (&b, MS (405), 10.0));
  fail_unless (b.burst_base == 10.0);
  fail_unless (rtpcc_gcc_burst_check (&b, MS (410), 110.0));
  fail_if (rtpcc_gcc_burst_check (&b, MS (415), 110.5));
  /* still the same burst: the base stays */
  fail_unless (rtpcc_gcc_burst_check (&b, MS (420), 60.0));
  fail_unless (b.burst_base == 10.0 && b.n_self_bursts == 3);
  /* a sample outside it ends it; the next burst starts a new base */
  fail_if (rtpcc_gcc_burst_check (&b, MS (600), 60.0));
  fail_unless (rtpcc_gcc_burst_check (&b, MS (420), 70.0));
  fail_unless (b.burst_base == 70.0);

  /* burst-guard=false: nothing is excused */
  b.guard = FALSE;
  fail_if (rtpcc_gcc_burst_check (&b, MS (405), 70.0));
  rtpcc_gcc_burst_clear (&b);
}

GST_END_TEST;

GST_START_TEST (test_key_frame_by_busy_time)
{
  RtpccGccBurst b;

  /* no frame ends marked: the frame interval comes from the pacer emptying
   * (40 ms), and a frame keeping it busy for more than 1.5 intervals marks
   * each packet it sends past 60 ms */
  rtpcc_gcc_burst_init (&b);
  for (guint i = 0; i < 10; i++)
    frame (&b, MS (40 * i), 3, 1000, FALSE, TRUE);
  fail_unless (b.n_frame_gaps == 9 && b.frame_interval == MS (40));
  fail_unless (b.marks->len == 0);
  frame (&b, MS (400), 80, 1000, FALSE, TRUE);
  fail_unless (b.marks->len == 19, "%u marks", b.marks->len);
  fail_unless (g_array_index (b.marks, RtpccTime, 0) == MS (461));
  fail_unless (b.n_key_frames == 0);
  fail_unless (rtpcc_gcc_burst_check (&b, MS (361), 0.0));
  fail_if (rtpcc_gcc_burst_check (&b, MS (360), 0.0));

  /* burst-detect=size with frame ends marked: the busy rule is off (the
   * long frame has fewer than 2 × the mean bytes) */
  rtpcc_gcc_burst_clear (&b);
  rtpcc_gcc_burst_init (&b);
  for (guint i = 0; i < 10; i++)
    frame (&b, MS (40 * i), 3, 1000, TRUE, TRUE);
  frame (&b, MS (400), 80, 70, TRUE, TRUE);
  fail_unless (b.marks->len == 0 && b.n_key_frames == 0);
  /* burst-detect=busy: frame ends give the interval, busy time decides */
  rtpcc_gcc_burst_clear (&b);
  rtpcc_gcc_burst_init (&b);
  b.by_size = FALSE;
  for (guint i = 0; i < 10; i++)
    frame (&b, MS (40 * i), 3, 1000, TRUE, TRUE);
  frame (&b, MS (400), 80, 70, TRUE, TRUE);
  fail_unless (b.marks->len == 19 && b.n_key_frames == 0);
  rtpcc_gcc_burst_clear (&b);
}

GST_END_TEST;

static Suite *
rtpcc_gcc_burst_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_burst");
  TCase *tc = tcase_create ("burst");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_key_frame_by_size);
  tcase_add_test (tc, test_burst_excuses_100ms);
  tcase_add_test (tc, test_key_frame_by_busy_time);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_burst);

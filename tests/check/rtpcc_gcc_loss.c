/* Unit tests for gcc's loss-based controller (gst/rtpcc/cc/gcc/loss.c):
 * windows, the draft-ietf-rmcat-gcc-02 §6 rule and As following A.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/gcc/loss.h>
#include <math.h>

#define MS(x) RTPCC_MSEC (x)

static RtpccGccLossAction
loss_window (RtpccGccLoss * l, RtpccTime t0, guint n, guint lost,
    RtpccTime now, gdouble delay_rate)
{
  /* n packets 10 ms apart, the first @lost of them lost */
  for (guint i = 0; i < n; i++)
    rtpcc_gcc_loss_add (l, t0 + MS (10) * i, i >= lost);
  return rtpcc_gcc_loss_evaluate (l, now, delay_rate);
}

GST_START_TEST (test_loss_controller)
{
  RtpccGccLoss l;
  RtpccGccLossAction a;

  rtpcc_gcc_loss_init (&l, 1e6);
  /* 19 packets: not a window yet (20 packets, >= 100 ms) */
  a = loss_window (&l, 0, 19, 5, MS (300), 1e6);
  fail_unless (a == RTPCC_GCC_LOSS_NONE);
  /* one more: 20 packets over 190 ms... of which 5 of 20 lost = 25 % */
  a = loss_window (&l, MS (190), 1, 0, MS (400), 1e6);
  fail_unless (a == RTPCC_GCC_LOSS_DECREASE);
  fail_unless (l.last_fraction == 0.25);
  fail_unless (l.rate == 1e6 * (1.0 - 0.5 * 0.25), "%f", l.rate);
  fail_unless (l.limiting);

  /* packets sent before the cut (at 400 ms) belong to the punished
   * episode: ignored */
  a = loss_window (&l, MS (100), 25, 25, MS (700), 1e6);
  fail_unless (a == RTPCC_GCC_LOSS_NONE && l.n_total == 0);

  /* 0 of 20 lost (< 2 %): × 1.05 per 100 ms the window spans (190 ms) */
  a = loss_window (&l, MS (500), 20, 0, MS (900), 1e6);
  fail_unless (a == RTPCC_GCC_LOSS_INCREASE);
  fail_unless (fabs (l.rate - 875000.0 * pow (1.05, 1.9)) < 1e-6, "%f",
      l.rate);
  /* 1 of 50 = 2 %: hold (not < 2 %, not > 10 %) */
  a = loss_window (&l, MS (1000), 50, 1, MS (1600), 1e6);
  fail_unless (a == RTPCC_GCC_LOSS_HOLD);
  fail_unless (fabs (l.rate - 875000.0 * pow (1.05, 1.9)) < 1e-6);
  /* 2 of 20 = 10 %: hold (not > 10 %) */
  a = loss_window (&l, MS (1600), 20, 2, MS (2000), 1e6);
  fail_unless (a == RTPCC_GCC_LOSS_HOLD);
  /* 3 of 27 = 11.1 %: decrease by 0.5 p */
  a = loss_window (&l, MS (2000), 27, 3, MS (2400), 1e6);
  fail_unless (a == RTPCC_GCC_LOSS_DECREASE);
  fail_unless (fabs (l.rate - 875000.0 * pow (1.05, 1.9) * (1.0 - 0.5 * 3.0 /
              27.0)) < 1e-6, "%f", l.rate);

  /* the same time gives the same growth whatever the packet rate: 20
   * packets 50 ms apart span 950 ms, 9.5 control intervals (it was one
   * × 1.05 per window, so a slow flow recovered several times slower) */
  rtpcc_gcc_loss_init (&l, 1e6);
  a = loss_window (&l, 0, 20, 4, MS (300), 1e6);
  fail_unless (a == RTPCC_GCC_LOSS_DECREASE && l.rate == 900000.0);
  for (guint i = 0; i < 20; i++)
    rtpcc_gcc_loss_add (&l, MS (400) + MS (50) * i, TRUE);
  a = rtpcc_gcc_loss_evaluate (&l, MS (1500), 2e6);
  fail_unless (a == RTPCC_GCC_LOSS_INCREASE);
  fail_unless (fabs (l.rate - 900000.0 * pow (1.05, 9.5)) < 1e-6, "%f",
      l.rate);

  /* As never exceeds A: increases stop at the delay-based rate and the loss
   * limit is lifted */
  rtpcc_gcc_loss_init (&l, 1e6);
  a = loss_window (&l, 0, 20, 4, MS (300), 1e6);
  fail_unless (a == RTPCC_GCC_LOSS_DECREASE && l.rate == 900000.0);
  a = loss_window (&l, MS (400), 20, 0, MS (700), 930000.0);
  fail_unless (l.rate == 930000.0 && !l.limiting);
  /* not limiting: As follows A down and up */
  a = loss_window (&l, MS (700), 5, 0, MS (900), 500000.0);
  fail_unless (a == RTPCC_GCC_LOSS_NONE && l.rate == 500000.0);
}

GST_END_TEST;

static Suite *
rtpcc_gcc_loss_suite (void)
{
  Suite *s = suite_create ("rtpcc_gcc_loss");
  TCase *tc = tcase_create ("loss");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_loss_controller);
  return s;
}

GST_CHECK_MAIN (rtpcc_gcc_loss);

/* Unit tests for the playout buffer's multipath skew
 * (gst/rtpcc/playout/skew.[ch], Singh's thesis ch. 6): the drift window,
 * its median, the path skew EWMA and the singh delay filter.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/playout.h>
#include <rtpcc/playout/skew.h>
#include <math.h>
#include <stdlib.h>

#define MS(x) RTPCC_MSEC (x)

GST_START_TEST (test_median_and_ewma)
{
  RtpccPlayoutSkew s;

  rtpcc_playout_skew_reset (&s);
  /* the first sample sets the skew: its delay over the base */
  rtpcc_playout_skew_add (&s, 0, MS (50), MS (30));
  fail_unless (s.have_skew);
  fail_unless_equals_float (s.path_skew, MS (20));
  /* then 1 % towards the median of the window: {20, 40} -> 30 ms */
  rtpcc_playout_skew_add (&s, MS (10), MS (70), MS (30));
  fail_unless (fabs (s.path_skew - (0.01 * MS (30) + 0.99 * MS (20))) < 1e-6);
  /* {20, 40, 10} -> 20 ms, an odd count's middle */
  {
    gdouble prev = s.path_skew;

    rtpcc_playout_skew_add (&s, MS (20), MS (40), MS (30));
    fail_unless (fabs (s.path_skew - (0.01 * MS (20) + 0.99 * prev)) < 1e-6);
  }
}

GST_END_TEST;

/* The drift window is min(2 s, 100 packets). */
GST_START_TEST (test_window)
{
  RtpccPlayoutSkew s;

  rtpcc_playout_skew_reset (&s);
  for (guint i = 0; i < 300; i++)
    rtpcc_playout_skew_add (&s, MS (5) * i, MS (i), 0.0);
  fail_unless_equals_int (s.dw_len, RTPCC_PLAYOUT_DW_PACKETS);
  rtpcc_playout_skew_reset (&s);
  for (guint i = 0; i < 300; i++)
    rtpcc_playout_skew_add (&s, MS (50) * i, MS (i), 0.0);
  /* 2 s at 50 ms: 41 samples (both ends in) */
  fail_unless_equals_int (s.dw_len, 41);
  /* a lone sample after a long silence is kept */
  rtpcc_playout_skew_add (&s, RTPCC_SEC (100), MS (1), 0.0);
  fail_unless_equals_int (s.dw_len, 1);
}

GST_END_TEST;

GST_START_TEST (test_singh_filters)
{
  RtpccPlayoutSingh g;

  /* the thesis' filters, rounded as the element reports them */
  fail_unless_equals_int (rtpcc_playout_singh_path_skew (MS (100), MS (200)),
      MS (101));
  fail_unless_equals_int (rtpcc_playout_singh_delay (MS (1000), MS (2250)),
      MS (1010));
  rtpcc_playout_singh_reset (&g);
  rtpcc_playout_singh_add (&g, MS (80), MS (45), MS (30), MS (10));
  fail_unless_equals_float (g.delay, MS (80));
  fail_unless_equals_float (g.dev, MS (5));
  rtpcc_playout_singh_add (&g, MS (205), MS (30), MS (30), MS (10));
  fail_unless_equals_float (g.delay, (MS (205) + 124.0 * MS (80)) / 125.0);
  fail_unless_equals_float (g.dev, (MS (10) + 124.0 * MS (5)) / 125.0);
}

GST_END_TEST;

/* The window kept sorted gives exactly what sorting a copy of it on every
 * packet gave (the computation before): the same path skew, bit for bit,
 * over random delays, bases, gaps (both window bounds) and repeats. */
static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

typedef struct
{
  gdouble dw[RTPCC_PLAYOUT_DW_PACKETS];
  RtpccTime dw_t[RTPCC_PLAYOUT_DW_PACKETS];
  guint head, len;
  gdouble path_skew;
  gboolean have;
} SortEach;

static void
sort_each_add (SortEach * s, RtpccTime now, gdouble r, gdouble base)
{
  gdouble tmp[RTPCC_PLAYOUT_DW_PACKETS], median;
  guint i, n;

  if (s->len == RTPCC_PLAYOUT_DW_PACKETS) {
    s->head = (s->head + 1) % RTPCC_PLAYOUT_DW_PACKETS;
    s->len--;
  }
  s->dw[(s->head + s->len) % RTPCC_PLAYOUT_DW_PACKETS] = r;
  s->dw_t[(s->head + s->len) % RTPCC_PLAYOUT_DW_PACKETS] = now;
  s->len++;
  while (s->len > 1 && now - s->dw_t[s->head] > RTPCC_PLAYOUT_DW_SPAN) {
    s->head = (s->head + 1) % RTPCC_PLAYOUT_DW_PACKETS;
    s->len--;
  }
  for (i = 0; i < s->len; i++)
    tmp[i] = s->dw[(s->head + i) % RTPCC_PLAYOUT_DW_PACKETS] - base;
  n = s->len;
  qsort (tmp, n, sizeof (gdouble), cmp_double);
  median = (n % 2) ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
  if (!s->have) {
    s->path_skew = median;
    s->have = TRUE;
  } else {
    s->path_skew = 0.01 * median + 0.99 * s->path_skew;
  }
}

GST_START_TEST (test_same_as_sorting)
{
  for (guint run = 0; run < 40; run++) {
    RtpccPlayoutSkew s;
    SortEach ref = { {0,}, };
    RtpccRng rng;
    RtpccTime now = 0;
    gdouble base = 0.0, last = 0.0;

    rtpcc_rng_init (&rng, 100 + run);
    rtpcc_playout_skew_reset (&s);
    for (guint i = 0; i < 5000; i++) {
      gdouble r;

      /* gaps from 0 (bursts) to 60 ms: both the 100-packet and the 2 s
       * bound cut the window */
      now += (RtpccTime) rtpcc_rng_below (&rng, run % 2 ? MS (60) : MS (5));
      if (rtpcc_rng_bernoulli (&rng, 0.001))
        now += RTPCC_SEC (3);
      if (rtpcc_rng_bernoulli (&rng, 0.2))
        r = last;               /* repeated values */
      else
        r = 1e6 * rtpcc_rng_uniform (&rng, -50.0, 250.0) +
            (rtpcc_rng_bernoulli (&rng, 0.5) ? 0.25 : 0.0);
      if (rtpcc_rng_bernoulli (&rng, 0.05))
        base = 1e6 * rtpcc_rng_uniform (&rng, -20.0, 40.0);
      last = r;
      rtpcc_playout_skew_add (&s, now, r, base);
      sort_each_add (&ref, now, r, base);
      fail_unless (s.path_skew == ref.path_skew,
          "run %u packet %u: %.17g != %.17g", run, i, s.path_skew,
          ref.path_skew);
      fail_unless_equals_int (s.dw_len, ref.len);
    }
  }
}

GST_END_TEST;

static Suite *
rtpcc_playout_skew_suite (void)
{
  Suite *s = suite_create ("rtpcc_playout_skew");
  TCase *tc = tcase_create ("skew");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_median_and_ewma);
  tcase_add_test (tc, test_window);
  tcase_add_test (tc, test_singh_filters);
  tcase_add_test (tc, test_same_as_sorting);
  return s;
}

GST_CHECK_MAIN (rtpcc_playout_skew);

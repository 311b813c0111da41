/* RFC 8868 metric helpers (eval-metrics.h) on constructed series, and the
 * case table's consistency.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "eval-metrics.h"
#include "eval-case.h"

#include <math.h>
#include <string.h>

static void
test_jain (void)
{
  gdouble eq[4] = { 5, 5, 5, 5 }, one[4] = { 8, 0, 0, 0 };
  gdouble two[2] = { 3, 1 }, zero[3] = { 0, 0, 0 };

  g_assert_cmpfloat_with_epsilon (eval_jain (eq, 4), 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (eval_jain (one, 4), 0.25, 1e-12);
  /* (3 + 1)² / (2 (9 + 1)) = 0.8 */
  g_assert_cmpfloat_with_epsilon (eval_jain (two, 2), 0.8, 1e-12);
  g_assert_true (isnan (eval_jain (zero, 3)));
  g_assert_true (isnan (eval_jain (NULL, 0)));
  /* scale invariant */
  two[0] = 300;
  two[1] = 100;
  g_assert_cmpfloat_with_epsilon (eval_jain (two, 2), 0.8, 1e-12);
}

static void
test_percentile (void)
{
  gdouble v[10] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };
  gdouble w[4] = { NAN, 4, NAN, 2 };

  /* nearest rank: ceil(p/100 n) */
  g_assert_cmpfloat (eval_percentile (v, 10, 50), ==, 5);
  g_assert_cmpfloat (eval_percentile (v, 10, 95), ==, 10);
  g_assert_cmpfloat (eval_percentile (v, 10, 90), ==, 9);
  g_assert_cmpfloat (eval_percentile (v, 10, 100), ==, 10);
  g_assert_cmpfloat (eval_percentile (v, 10, 1), ==, 1);
  g_assert_cmpfloat (v[0], ==, 10);     /* not modified */
  g_assert_cmpfloat (eval_percentile (w, 4, 50), ==, 2);
  g_assert_cmpfloat (eval_mean (w, 4), ==, 3);
  g_assert_true (isnan (eval_percentile (w, 1, 50)));
}

/* A step response: rate 500 until 10 s, then a first-order approach to
 * 1000 with a 2 s time constant, rows of 200 ms. */
static void
series_step (gdouble * t, gdouble * x, guint n)
{
  for (guint i = 0; i < n; i++) {
    t[i] = 0.2 * i;
    x[i] = t[i] < 10.0 ? 500.0 : 1000.0 - 500.0 * exp (-(t[i] - 10.0) / 2.0);
  }
}

static void
test_convergence (void)
{
  gdouble t[300], x[300], c, expect;

  series_step (t, x, 300);
  /* within ±20 % of 1000: the 1 s average starting at t ≥ 10 + τ ln(2.5)
   * minus what averaging forward buys; check against brute force */
  c = eval_convergence_time (t, x, 300, 0.2, 10.0, 60.0, 1000.0, 0.2, 2.0);
  expect = NAN;
  for (guint i = 50; i + 5 <= 300; i++) {
    gdouble m = (x[i] + x[i + 1] + x[i + 2] + x[i + 3] + x[i + 4]) / 5;
    if (fabs (m - 1000) <= 200) {
      expect = t[i] - 10.0;     /* monotone approach: stays in band */
      break;
    }
  }
  g_test_message ("step: convergence %.2f s (expected %.2f s)", c, expect);
  g_assert_cmpfloat_with_epsilon (c, expect, 1e-9);
  /* ln(2.5) τ ≈ 1.83 s for the instantaneous rate; the forward 1 s mean
   * gets there up to 1 s earlier */
  g_assert_cmpfloat (c, >=, 0.8);
  g_assert_cmpfloat (c, <=, 1.9);
  /* tighter band → later */
  g_assert_cmpfloat (eval_convergence_time (t, x, 300, 0.2, 10.0, 60.0,
          1000.0, 0.05, 2.0), >, c + 2.0);
  /* already there at the event: 0 */
  g_assert_cmpfloat (eval_convergence_time (t, x, 300, 0.2, 0.0, 10.0,
          500.0, 0.2, 2.0), ==, 0.0);
  /* the reference never reached before the next event: NaN */
  g_assert_true (isnan (eval_convergence_time (t, x, 300, 0.2, 10.0, 11.0,
              1000.0, 0.2, 2.0)));
  g_assert_true (isnan (eval_convergence_time (t, x, 300, 0.2, 10.0, 60.0,
              2000.0, 0.2, 2.0)));
  g_assert_true (isnan (eval_convergence_time (t, x, 300, 0.2, 10.0, 60.0,
              0.0, 0.2, 2.0)));
}

/* A rate that enters the band and leaves it again (a spike) has not
 * converged until it stays for the hold time. */
static void
test_convergence_hold (void)
{
  gdouble t[200], x[200], c;

  for (guint i = 0; i < 200; i++) {
    t[i] = 0.2 * i;
    x[i] = 400.0;
    if (t[i] >= 5.0 && t[i] < 6.0)
      x[i] = 1000.0;            /* a 1 s visit */
    if (t[i] >= 12.0)
      x[i] = 1000.0;            /* for good */
  }
  c = eval_convergence_time (t, x, 200, 0.2, 0.0, 40.0, 1000.0, 0.2, 2.0);
  /* the 1 s mean is within 20 % from the window starting at 11.8 s
   * (4 of 5 rows at 1000 → 880; at 11.6 s it is 760) */
  g_assert_cmpfloat_with_epsilon (c, 11.8, 1e-9);
  /* a hold of 0 accepts the visit: 5 s (window 5.0-6.0 all 1000) minus
   * one row (4.8: 4×1000+400 → 880) */
  c = eval_convergence_time (t, x, 200, 0.2, 0.0, 40.0, 1000.0, 0.2, 0.0);
  g_assert_cmpfloat_with_epsilon (c, 4.8, 1e-9);
}

static void
test_oscillation (void)
{
  gdouble t[100], x[100];

  /* square wave 200/1800 around 1000, period 0.8 s: a swing every 0.4 s */
  for (guint i = 0; i < 100; i++) {
    t[i] = 0.2 * i;
    x[i] = (i / 2) % 2 ? 1800.0 : 200.0;
  }
  /* rows 0,1 low, 2,3 high, ...: 49 alternations in 100 rows */
  g_assert_cmpuint (eval_oscillation_swings (t, x, 100, 0.0, 20.0, 500.0,
          1500.0, 0.5), ==, 49);
  /* window shorter than the time between the extremes: none */
  g_assert_cmpuint (eval_oscillation_swings (t, x, 100, 0.0, 20.0, 500.0,
          1500.0, 0.1), ==, 0);
  /* watermarks outside the wave: none */
  g_assert_cmpuint (eval_oscillation_swings (t, x, 100, 0.0, 20.0, 100.0,
          1900.0, 0.5), ==, 0);
  /* part of the series */
  g_assert_cmpuint (eval_oscillation_swings (t, x, 100, 0.0, 2.0, 500.0,
          1500.0, 0.5), ==, 4);
  /* slow swings (a triangle wave taking 5 s from one watermark to the
   * other) are not oscillation at a 1 s window */
  for (guint i = 0; i < 100; i++) {
    gdouble ph = fmod (t[i], 16.0);
    x[i] = ph < 8.0 ? 200.0 + 200.0 * ph : 1800.0 - 200.0 * (ph - 8.0);
  }
  g_assert_cmpuint (eval_oscillation_swings (t, x, 100, 0.0, 20.0, 500.0,
          1500.0, 1.0), ==, 0);
  /* a mid-band value between extremes does not reset the pair */
  for (guint i = 0; i < 100; i++)
    x[i] = 1000.0;
  x[10] = 200.0;
  x[11] = 1000.0;
  x[12] = 1800.0;
  g_assert_cmpuint (eval_oscillation_swings (t, x, 100, 0.0, 20.0, 500.0,
          1500.0, 0.5), ==, 1);
  g_assert_cmpfloat_with_epsilon (eval_cv (t, x, 100, 0.0, 2.0), 0.0, 1e-12);
  g_assert_cmpfloat (eval_cv (t, x, 100, 0.0, 20.0), >, 0.0);
  g_assert_true (isnan (eval_cv (t, x, 100, 0.0, 0.2)));
}

static void
test_cases (void)
{
  g_assert_cmpuint (eval_case_count (), >=, 8);
  for (const gchar * id = "5.1"; id; id = NULL)
    g_assert_nonnull (eval_case_find (id));
  {
    const gchar *ids[] = { "5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7",
      "5.8"
    };
    for (guint i = 0; i < G_N_ELEMENTS (ids); i++) {
      const EvalCase *c = eval_case_find (ids[i]);
      GString *s = g_string_new (NULL);
      g_assert_nonnull (c);
      g_assert_cmpuint (eval_case_n_media (c), >=, 1);
      eval_case_describe (c, s);
      g_assert_nonnull (strstr (s->str, "\"schedule\""));
      g_string_free (s, TRUE);
    }
  }
  g_assert_null (eval_case_find ("9.9"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/eval/metrics/jain", test_jain);
  g_test_add_func ("/eval/metrics/percentile", test_percentile);
  g_test_add_func ("/eval/metrics/convergence", test_convergence);
  g_test_add_func ("/eval/metrics/convergence-hold", test_convergence_hold);
  g_test_add_func ("/eval/metrics/oscillation", test_oscillation);
  g_test_add_func ("/eval/cases", test_cases);
  return g_test_run ();
}

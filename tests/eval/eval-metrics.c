/* RFC 8868 metrics over per-flow rows (see eval-metrics.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "eval-metrics.h"

#include <math.h>
#include <stdlib.h>

gdouble
eval_jain (const gdouble * x, guint n)
{
  gdouble s = 0.0, s2 = 0.0;

  for (guint i = 0; i < n; i++) {
    s += x[i];
    s2 += x[i] * x[i];
  }
  return n > 0 && s2 > 0.0 ? s * s / (n * s2) : NAN;
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

gdouble
eval_percentile (const gdouble * v, guint n, gdouble pct)
{
  gdouble *s = g_new (gdouble, MAX (n, 1));
  guint m = 0, k;
  gdouble r;

  for (guint i = 0; i < n; i++)
    if (isfinite (v[i]))
      s[m++] = v[i];
  if (m == 0) {
    g_free (s);
    return NAN;
  }
  qsort (s, m, sizeof (gdouble), cmp_double);
  k = (guint) ceil (pct / 100.0 * m);
  r = s[CLAMP (k, 1, m) - 1];
  g_free (s);
  return r;
}

gdouble
eval_mean (const gdouble * v, guint n)
{
  gdouble s = 0.0;
  guint m = 0;

  for (guint i = 0; i < n; i++)
    if (isfinite (v[i])) {
      s += v[i];
      m++;
    }
  return m ? s / m : NAN;
}

gdouble
eval_convergence_time (const gdouble * t, const gdouble * x, guint n,
    gdouble interval, gdouble t_event, gdouble t_end, gdouble ref,
    gdouble tol, gdouble hold)
{
  guint w = (guint) MAX (1, lround (1.0 / interval));
  const gdouble eps = 1e-9;

  if (!(ref > 0.0))
    return NAN;
  for (guint i = 0; i < n; i++) {
    gboolean ok = TRUE;
    guint checked = 0;

    if (t[i] < t_event - eps)
      continue;
    /* every 1 s average starting in [t[i], t[i] + hold] within the band */
    for (guint j = i; j < n && t[j] <= t[i] + hold + eps; j++) {
      gdouble s = 0.0;
      /* averages must end by t_end (the next event or the run's end) */
      if (j + w > n || t[j + w - 1] + interval > t_end + eps)
        break;
      for (guint k = j; k < j + w; k++)
        s += x[k];
      s /= w;
      if (!isfinite (s) || fabs (s - ref) > tol * ref) {
        ok = FALSE;
        break;
      }
      checked++;
    }
    if (ok && checked > 0)
      return t[i] - t_event;
    if (t[i] + interval * w > t_end + eps)
      break;
  }
  return NAN;
}

guint
eval_oscillation_swings (const gdouble * t, const gdouble * x, guint n,
    gdouble t0, gdouble t1, gdouble low, gdouble high, gdouble window)
{
  gint last = 0;                /* -1 low, +1 high, 0 none yet */
  gdouble last_t = 0.0;
  guint swings = 0;

  for (guint i = 0; i < n; i++) {
    gint c;
    if (t[i] < t0 || t[i] >= t1 || !isfinite (x[i]))
      continue;
    c = x[i] <= low ? -1 : x[i] >= high ? 1 : 0;
    if (c == 0)
      continue;
    if (last == -c && t[i] - last_t <= window + 1e-9)
      swings++;
    last = c;
    last_t = t[i];
  }
  return swings;
}

gdouble
eval_cv (const gdouble * t, const gdouble * x, guint n, gdouble t0,
    gdouble t1)
{
  gdouble s = 0.0, s2 = 0.0, mean;
  guint m = 0;

  for (guint i = 0; i < n; i++) {
    if (t[i] < t0 || t[i] >= t1 || !isfinite (x[i]))
      continue;
    s += x[i];
    m++;
  }
  if (m < 2)
    return NAN;
  mean = s / m;
  for (guint i = 0; i < n; i++) {
    if (t[i] < t0 || t[i] >= t1 || !isfinite (x[i]))
      continue;
    s2 += (x[i] - mean) * (x[i] - mean);
  }
  return mean != 0.0 ? sqrt (s2 / (m - 1)) / mean : NAN;
}

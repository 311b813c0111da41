/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bench-report.h"

#include <stdarg.h>
#include <stdio.h>

/* Enough digits to compare, no more: instruction counts as integers,
 * small values with three significant digits. */
static void
format_value (gchar * buf, gsize size, gdouble v)
{
  if (v >= 1000.0 || v <= -1000.0)
    g_snprintf (buf, size, "%.0f", v);
  else
    g_snprintf (buf, size, "%.3g", v);
}

void
bench_report (const gchar * name, gdouble ours, const gchar * unit,
    gdouble baseline, const gchar * baseline_unit, BenchGoal goal,
    gdouble goal_value, const gchar * noisy)
{
  gchar o[32], b[32], r[32], g[32], goal_str[96];
  gboolean have_ratio = baseline > 0.0;
  gdouble ratio = have_ratio ? ours / baseline : 0.0;

  format_value (o, sizeof o, ours);
  format_value (b, sizeof b, baseline);
  format_value (g, sizeof g, goal_value);
  if (have_ratio)
    g_snprintf (r, sizeof r, "%.2f", ratio);
  else
    g_snprintf (r, sizeof r, "-");
  switch (goal) {
    case BENCH_GOAL_RATIO_LE:
      g_snprintf (goal_str, sizeof goal_str, "goal <= %s: %s", g,
          have_ratio && ratio <= goal_value ? "met" : "missed");
      break;
    case BENCH_GOAL_VALUE_GE:
      g_snprintf (goal_str, sizeof goal_str, "goal >= %s %s: %s", g, unit,
          ours >= goal_value ? "met" : "missed");
      break;
    case BENCH_GOAL_VALUE_LE:
      g_snprintf (goal_str, sizeof goal_str, "goal <= %s %s: %s", g, unit,
          ours <= goal_value ? "met" : "missed");
      break;
    default:
      g_snprintf (goal_str, sizeof goal_str, "no goal");
      break;
  }
  printf ("bench %s: ours %s %s, baseline %s %s, ratio %s (%s)%s%s%s\n",
      name, o, unit, b, baseline_unit ? baseline_unit : unit, r, goal_str,
      noisy ? " [noisy: " : "", noisy ? noisy : "", noisy ? "]" : "");
  fflush (stdout);
}

void
bench_note (const gchar * format, ...)
{
  va_list ap;
  gchar *s;

  va_start (ap, format);
  s = g_strdup_vprintf (format, ap);
  va_end (ap);
  printf ("# %s\n", s);
  fflush (stdout);
  g_free (s);
}

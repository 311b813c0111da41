/* The one output format of the performance benchmarks (tests/bench/):
 *
 *   bench <name>: ours <v> <unit>, baseline <v> <unit>, ratio <r> (<goal>)[ [noisy: <why>]]
 *
 * <goal> is "goal <= <g>: met" (or missed) for a goal on the ratio,
 * "goal >= <g> <unit>: met" (or "<=") for a goal on ours itself, or
 * "no goal".
 * make-performance and check-lines.py parse exactly this.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __BENCH_REPORT_H__
#define __BENCH_REPORT_H__

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  BENCH_GOAL_NONE,
  BENCH_GOAL_RATIO_LE,          /* ours / baseline <= goal */
  BENCH_GOAL_VALUE_GE,          /* ours >= goal (in ours' unit) */
  BENCH_GOAL_VALUE_LE,          /* ours <= goal (in ours' unit) */
} BenchGoal;

/* Prints one line on stdout and flushes. @baseline_unit NULL = @unit; a
 * baseline <= 0 prints the ratio as "-" (a ratio goal is then missed).
 * @noisy: NULL for a count that repeats (callgrind, bytes), else why not. */
void bench_report (const gchar * name, gdouble ours, const gchar * unit,
    gdouble baseline, const gchar * baseline_unit, BenchGoal goal,
    gdouble goal_value, const gchar * noisy);

/* A line that is not a figure: "# ..." (context for the reader). */
void bench_note (const gchar * format, ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS

#endif

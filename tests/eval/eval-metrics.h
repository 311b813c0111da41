/* RFC 8868 metrics over 200 ms per-flow rows (the columns of
 * SIM_RTPCC_CSV_HEADER). tests/eval/rfc8868.py implements the very same
 * definitions over the CSV files, so simulator and real-time runs are
 * scored alike; docs/results.md states them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_EVAL_METRICS_H__
#define __RTPCC_EVAL_METRICS_H__

#include <glib.h>

G_BEGIN_DECLS

/* Jain's index (Σx)² / (n Σx²): 1 = equal, 1/n = one takes all. NaN if
 * n == 0 or every x is 0. */
gdouble eval_jain (const gdouble * x, guint n);

/* Nearest-rank percentile (0 < pct <= 100) of the finite values of @v
 * (NaN entries are skipped); NaN if none. @v is not modified. */
gdouble eval_percentile (const gdouble * v, guint n, gdouble pct);
/* Mean of the finite values, NaN if none. */
gdouble eval_mean (const gdouble * v, guint n);

/* Convergence time after an event at @t_event, for a rate series sampled
 * in rows of @interval seconds starting at @t[i]: the first row i with
 * t[i] >= t_event such that the 1 s moving average starting at every row
 * j in [t[i], t[i] + hold] stays within ref × (1 ± tol), all rows used
 * ending by @t_end. Returns t[i] − t_event, or NaN if it never does. */
gdouble eval_convergence_time (const gdouble * t, const gdouble * x, guint n,
    gdouble interval, gdouble t_event, gdouble t_end, gdouble ref,
    gdouble tol, gdouble hold);

/* Oscillation: rows in [t0, t1) are low (x <= low), high (x >= high) or
 * neither; a swing is a low row followed by a high row, or the reverse,
 * at most @window seconds later with no other extreme row between.
 * (RFC 8868's "counts of the rate crossing watermarks inside a window".) */
guint eval_oscillation_swings (const gdouble * t, const gdouble * x, guint n,
    gdouble t0, gdouble t1, gdouble low, gdouble high, gdouble window);

/* Coefficient of variation (sd / mean) of the rows in [t0, t1), NaN if
 * fewer than two or a zero mean. */
gdouble eval_cv (const gdouble * t, const gdouble * x, guint n, gdouble t0,
    gdouble t1);

G_END_DECLS

#endif

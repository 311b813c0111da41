/* The scenario matrix (tests/eval/matrix.ini, docs/matrix.md): scenarios
 * as data, each with the aims a good controller should meet there, run
 * over two disjoint seed sets.
 *
 *  - A scenario is an EvalCase (eval-case.h): an RFC 8867 case by id
 *    (`base`), optionally changed, or one defined in the file. A scenario
 *    with `trace = cellular` (or `cellular-nofades`: the walk without its
 *    fades) gets its capacity from sim-trace.h's generator, seeded with
 *    the run's seed, so traces split with seeds.
 *  - The split: the tuning set is seeds 1..N, the held-out set
 *    heldout_base + 1 .. heldout_base + N (N = `seeds`). Constants are
 *    chosen on the tuning set only (docs/matrix.md); reports show both.
 *  - Aims: "METRIC OP VALUE [@CLASS]", OP >= or <=, CLASS all (default),
 *    delay (the controllers listed in delay_based), loss (the others) or
 *    one controller's name. A set meets an aim when every seed does.
 *
 * Metrics (eval_matrix_metrics) are the RFC 8868 summary's plus what the
 * matrix's aims need (recovery after an outage, rate swings, time to reach
 * the reference rate); docs/matrix.md defines each.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_EVAL_MATRIX_H__
#define __RTPCC_EVAL_MATRIX_H__

#include "eval-run.h"

G_BEGIN_DECLS

typedef enum
{
  EVAL_SET_TUNING,
  EVAL_SET_HELDOUT,
} EvalSet;

const gchar *eval_set_name (EvalSet set);

typedef enum
{
  EVAL_AIM_GE,
  EVAL_AIM_LE,
} EvalAimOp;

typedef struct
{
  gchar *metric;
  EvalAimOp op;
  gdouble value;
  gchar *cls;                   /* "all", "delay", "loss" or a controller */
  gchar *text;                  /* as written */
} EvalAim;

typedef struct
{
  gchar *id;
  EvalCase c;                   /* strings owned by the scenario */
  gboolean trace_cellular;      /* capacity: generated trace per seed */
  gboolean trace_no_fades;      /* ... the walk alone (no fades) */
  GArray *aims;                 /* EvalAim */
  /*< private > */
  GPtrArray *strings;
} EvalScenario;

typedef struct
{
  gchar *path;
  GPtrArray *scenarios;         /* EvalScenario* in file order */
  guint seeds;                  /* per set */
  guint64 heldout_base;
  gchar **delay_based;
} EvalMatrix;

/* NULL and @error on a missing file, an unknown key or base case, or a
 * value that does not parse. */
EvalMatrix *eval_matrix_load (const gchar * path, GError ** error);
void eval_matrix_free (EvalMatrix * m);
const EvalScenario *eval_matrix_find (const EvalMatrix * m, const gchar * id);

/* The @i-th seed (from 0) of @set. */
guint64 eval_matrix_seed (const EvalMatrix * m, EvalSet set, guint i);
/* Which set @seed belongs to. */
EvalSet eval_matrix_seed_set (const EvalMatrix * m, guint64 seed);

/* Whether @aim applies to @controller. */
gboolean eval_matrix_aim_applies (const EvalMatrix * m, const EvalAim * aim,
    const gchar * controller);

/* The case a scenario runs with @seed: the scenario's, with the seed's
 * trace (written to @trace_dir when non-NULL, for the real-time runner).
 * Free with eval_matrix_case_free. */
EvalCase *eval_matrix_case (const EvalScenario * s, guint64 seed,
    const gchar * trace_dir, GError ** error);
void eval_matrix_case_free (EvalCase * c);

/* The metrics of one run (NaN: undefined in this scenario). */
typedef struct
{
  gdouble util, media_util, qdelay_p95_ms, qdelay_mean_ms, pkt_p95_ms;
  gdouble loss_pct, jain_min, share, conv_max_s;
  gdouble recovery_s;           /* worst outage end; +inf: never */
  gdouble util_after;           /* worst outage end: 5 s after it */
  gdouble swing_lo, swing_hi;   /* p5/p95 of 1 s send / reference */
  gdouble reach_s;              /* start to the reference; +inf: never */
  /* FEC (EvalSummary: NaN without real FEC, frcc for fbra alone) */
  gdouble fec_kbps, ffre, frcc;
  /* EvalSummary: gcc and nada only */
  gdouble competitor_entries;
} EvalMatrixMetrics;

#define EVAL_MATRIX_N_METRICS 18
/* Names in the order of the struct's fields. */
extern const gchar *const eval_matrix_metric_names[EVAL_MATRIX_N_METRICS];

void eval_matrix_metrics (const EvalResult * r, EvalMatrixMetrics * out);
/* NaN for an unknown name. */
gdouble eval_matrix_metric (const EvalMatrixMetrics * m, const gchar * name);
gboolean eval_matrix_metric_known (const gchar * name);
/* Whether @v meets @aim (NaN never does). */
gboolean eval_matrix_aim_met (const EvalAim * aim, gdouble v);

G_END_DECLS

#endif

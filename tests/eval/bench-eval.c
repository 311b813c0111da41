/* Benchmark (not a test): simulator wall time per RFC 8867 case and
 * controller, normalised to 100 s of simulated time (median of 3 runs).
 *
 *   bench-eval [CONTROLLER...]      default: every registered controller
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "eval-run.h"

#include <stdlib.h>

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  gchar **all = eval_controllers ();
  gchar **names = argc > 1 ? argv + 1 : all;
  gdouble total = 0.0, sim_s = 0.0;

  g_print ("%-11s %-6s %9s %12s %14s %10s\n", "case", "ctl", "sim s",
      "wall ms", "ms per 100 s", "events");
  for (guint k = 0; names[k]; k++) {
    for (guint i = 0; i < eval_case_count (); i++) {
      const EvalCase *c = eval_case_get (i);
      EvalRunConfig cfg = { names[k], 1, FALSE };
      gdouble w[3];
      guint64 events = 0;
      for (guint rep = 0; rep < 3; rep++) {
        GError *err = NULL;
        EvalResult *r = eval_run (c, &cfg, &err);
        if (!r)
          g_error ("%s %s: %s", c->id, names[k], err->message);
        w[rep] = r->wall_s;
        events = r->events;
        eval_result_free (r);
      }
      qsort (w, 3, sizeof (gdouble), cmp_double);
      g_print ("%-11s %-6s %9.0f %12.1f %14.1f %10" G_GUINT64_FORMAT "\n",
          c->id, names[k], c->duration_s, w[1] * 1000.0,
          w[1] * 1000.0 * 100.0 / c->duration_s, events);
      total += w[1];
      sim_s += c->duration_s;
    }
  }
  g_print ("all: %.0f s simulated in %.2f s wall, %.1f ms per 100 s\n",
      sim_s, total, total * 1000.0 * 100.0 / sim_s);
  g_strfreev (all);
  return 0;
}

/* rtpcc-tracegen: a seeded cellular-like capacity trace in mahimahi format
 * (sim-trace.h has the process; docs/matrix.md the parameters).
 *
 *   rtpcc-tracegen --seed 3 --duration 120 > cell-3.trace
 *   rtpcc-tracegen --seed 3 --rates          per-step rate CSV instead
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sim-trace.h"

#include <stdio.h>

int
main (int argc, char **argv)
{
  SimTraceConfig c;
  gint64 seed = 1;
  gint step = 100;
  gchar *out = NULL;
  gboolean rates = FALSE;
  GOptionContext *ctx;
  GError *err = NULL;
  SimTrace *tr;
  int status = 0;

  sim_trace_config_init (&c);
  {
    GOptionEntry entries[] = {
      {"seed", 's', 0, G_OPTION_ARG_INT64, &seed, "seed (1)", "N"},
      {"duration", 'd', 0, G_OPTION_ARG_DOUBLE, &c.duration_s,
          "seconds (120)", "S"},
      {"step-ms", 0, 0, G_OPTION_ARG_INT, &step, "walk step, ms (100)", "MS"},
      {"min-kbps", 0, 0, G_OPTION_ARG_DOUBLE, &c.min_kbps,
          "lower bound of the walk (300)", "K"},
      {"max-kbps", 0, 0, G_OPTION_ARG_DOUBLE, &c.max_kbps,
          "upper bound of the walk (6000)", "K"},
      {"theta", 0, 0, G_OPTION_ARG_DOUBLE, &c.theta,
          "mean reversion per second (0.1)", "X"},
      {"sigma", 0, 0, G_OPTION_ARG_DOUBLE, &c.sigma,
          "log-rate volatility per root second (0.3)", "X"},
      {"fade-gap", 0, 0, G_OPTION_ARG_DOUBLE, &c.fade_gap_s,
          "mean seconds between fades, 0: none (25)", "S"},
      {"outage-prob", 0, 0, G_OPTION_ARG_DOUBLE, &c.outage_prob,
          "share of fades that are outages (0.3)", "P"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "write here (stdout)",
          "FILE"},
      {"rates", 0, 0, G_OPTION_ARG_NONE, &rates,
          "print time_s,kbps,fade per step instead of the trace", NULL},
      {NULL}
    };
    ctx = g_option_context_new ("- cellular-like mahimahi trace");
    g_option_context_add_main_entries (ctx, entries, NULL);
    if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
      g_printerr ("%s\n", err->message);
      g_error_free (err);
      g_option_context_free (ctx);
      return 2;
    }
    g_option_context_free (ctx);
  }
  if (seed < 0 || step <= 0) {
    g_printerr ("seed must be >= 0 and step-ms > 0\n");
    return 2;
  }
  c.seed = (guint64) seed;
  c.step_ms = (guint) step;
  tr = sim_trace_generate (&c);
  if (!tr) {
    g_printerr ("invalid trace parameters\n");
    g_free (out);
    return 2;
  }
  {
    GString *s = tr->text;
    GString *csv = NULL;
    if (rates) {
      csv = g_string_new ("time_s,kbps,fade\n");
      for (guint k = 0; k < tr->kbps->len; k++)
        g_string_append_printf (csv, "%.3f,%.3f,%d\n", k * tr->step_ms /
            1000.0, g_array_index (tr->kbps, gdouble, k),
            g_array_index (tr->fade, gboolean, k) ? 1 : 0);
      s = csv;
    }
    if (out) {
      if (!g_file_set_contents (out, s->str, s->len, &err)) {
        g_printerr ("%s\n", err->message);
        g_error_free (err);
        status = 1;
      }
    } else {
      fwrite (s->str, 1, s->len, stdout);
    }
    if (csv)
      g_string_free (csv, TRUE);
  }
  sim_trace_free (tr);
  g_free (out);
  return status;
}

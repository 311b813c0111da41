/* rtpcc-matrix: the scenario matrix (tests/eval/matrix.ini) in the
 * simulator, per controller, on the tuning and the held-out seed sets
 * (docs/matrix.md).
 *
 *   rtpcc-matrix --list
 *   rtpcc-matrix --describe short-rtt [--seed 10001] [--trace-dir DIR]
 *   rtpcc-matrix --controller gcc [--scenario outage-5s,cellular]
 *                [--set tuning|heldout|both] [--seeds N] [--json FILE]
 *                [--out DIR]
 *
 * Prints one line per run (unless --quiet), then per scenario and set the
 * median of each metric over the set's seeds and the aims met; --json
 * writes every run's metrics and the aims (docs/matrix.md's tables come
 * from it); --out writes each run's CSVs and summary.json as rtpcc-eval.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "eval-matrix.h"
#include "eval-metrics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef RTPCC_MATRIX_FILE
#define RTPCC_MATRIX_FILE "tests/eval/matrix.ini"
#endif

static void
jnum (GString * out, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v))
    g_string_append (out, "null");
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

/* @digits after the point; "-" undefined, "never" infinite */
static void
fmt (gchar * buf, gsize n, gdouble v, gint digits)
{
  if (isnan (v))
    g_strlcpy (buf, "-", n);
  else if (isinf (v))
    g_strlcpy (buf, "never", n);
  else
    g_snprintf (buf, n, "%.*f", digits, v);
}

/* median, min, max over the finite-or-infinite (non-NaN) values */
static void
stats (const gdouble * v, guint n, gdouble * med, gdouble * lo, gdouble * hi)
{
  gdouble *s = g_new (gdouble, MAX (n, 1));
  guint m = 0;

  for (guint i = 0; i < n; i++)
    if (!isnan (v[i]))
      s[m++] = v[i];
  if (!m) {
    *med = *lo = *hi = NAN;
  } else {
    /* insertion sort: a handful of seeds */
    for (guint i = 1; i < m; i++)
      for (guint j = i; j > 0 && s[j - 1] > s[j]; j--) {
        gdouble t = s[j];
        s[j] = s[j - 1];
        s[j - 1] = t;
      }
    *lo = s[0];
    *hi = s[m - 1];
    *med = m % 2 ? s[m / 2] : (isinf (s[m / 2]) ? s[m / 2] :
        0.5 * (s[m / 2 - 1] + s[m / 2]));
  }
  g_free (s);
}

typedef struct
{
  const EvalMatrix *m;
  GString *json;
  gboolean first_json;
  guint aims_total, aims_met;
  gboolean encoder_hysteresis;
  gboolean encoder_x264;
  gboolean tbf_burst;
  gboolean fec;
  const gchar *controller_params;
} Ctx;

static gboolean
run_set (Ctx * ctx, const EvalScenario * s, const gchar * controller,
    EvalSet set, guint n_seeds, const gchar * out_dir, gboolean quiet)
{
  EvalMatrixMetrics *mm = g_new0 (EvalMatrixMetrics, n_seeds);
  gdouble *col = g_new (gdouble, n_seeds);
  guint64 *seeds = g_new (guint64, n_seeds);
  GString *missed = g_string_new (NULL);
  guint met_total = 0, applied = 0;
  gchar b[8][32];
  gdouble med[EVAL_MATRIX_N_METRICS], lo[EVAL_MATRIX_N_METRICS],
      hi[EVAL_MATRIX_N_METRICS];

  for (guint i = 0; i < n_seeds; i++) {
    GError *err = NULL;
    EvalCase *c;
    EvalRunConfig cfg = { controller, 0, FALSE, NULL,
      ctx->encoder_hysteresis, ctx->controller_params, ctx->fec,
      ctx->tbf_burst, ctx->encoder_x264
    };
    EvalResult *r;

    seeds[i] = eval_matrix_seed (ctx->m, set, i);
    cfg.seed = seeds[i];
    c = eval_matrix_case (s, seeds[i], NULL, &err);
    r = c ? eval_run (c, &cfg, &err) : NULL;
    if (!r) {
      g_printerr ("%s %s seed %" G_GUINT64_FORMAT ": %s\n", s->id,
          controller, seeds[i], err->message);
      g_clear_error (&err);
      eval_matrix_case_free (c);
      g_free (mm);
      g_free (col);
      g_free (seeds);
      g_string_free (missed, TRUE);
      return FALSE;
    }
    eval_matrix_metrics (r, &mm[i]);
    if (!quiet) {
      fmt (b[0], 32, mm[i].util, 3);
      fmt (b[1], 32, mm[i].qdelay_p95_ms, 1);
      fmt (b[2], 32, mm[i].loss_pct, 2);
      fmt (b[3], 32, mm[i].recovery_s, 1);
      fmt (b[4], 32, mm[i].swing_lo, 2);
      fmt (b[5], 32, mm[i].swing_hi, 2);
      fmt (b[6], 32, mm[i].share, 2);
      fmt (b[7], 32, mm[i].reach_s, 1);
      g_print ("  %-16s %-6s seed %-6" G_GUINT64_FORMAT " util %s p95 %s ms "
          "loss %s %% recovery %s s swing %s..%s share %s reach %s s "
          "(%.2f s)\n", s->id, controller, seeds[i], b[0], b[1], b[2], b[3],
          b[4], b[5], b[6], b[7], r->wall_s);
    }
    if (out_dir) {
      gchar sd[32], *dir;
      g_snprintf (sd, sizeof sd, "seed%" G_GUINT64_FORMAT, seeds[i]);
      dir = g_build_filename (out_dir, s->id, controller, sd, NULL);
      if (!eval_result_write_dir (r, dir, &err)) {
        g_printerr ("%s\n", err->message);
        g_clear_error (&err);
      }
      g_free (dir);
    }
    eval_result_free (r);
    eval_matrix_case_free (c);
  }
  for (guint k = 0; k < EVAL_MATRIX_N_METRICS; k++) {
    for (guint i = 0; i < n_seeds; i++)
      col[i] = eval_matrix_metric (&mm[i], eval_matrix_metric_names[k]);
    stats (col, n_seeds, &med[k], &lo[k], &hi[k]);
  }

  /* JSON entry */
  g_string_append_printf (ctx->json, "%s\n {\"scenario\": ",
      ctx->first_json ? "" : ",");
  ctx->first_json = FALSE;
  eval_json_string (s->id, ctx->json);
  g_string_append (ctx->json, ", \"title\": ");
  eval_json_string (s->c.title, ctx->json);
  g_string_append (ctx->json, ", \"controller\": ");
  eval_json_string (controller, ctx->json);
  g_string_append_printf (ctx->json, ", \"set\": \"%s\", \"seeds\": [",
      eval_set_name (set));
  for (guint i = 0; i < n_seeds; i++)
    g_string_append_printf (ctx->json, "%s%" G_GUINT64_FORMAT, i ? ", " : "",
        seeds[i]);
  g_string_append (ctx->json, "],\n  \"runs\": [");
  for (guint i = 0; i < n_seeds; i++) {
    g_string_append_printf (ctx->json, "%s{", i ? ", " : "");
    for (guint k = 0; k < EVAL_MATRIX_N_METRICS; k++) {
      gdouble v = eval_matrix_metric (&mm[i], eval_matrix_metric_names[k]);
      g_string_append_printf (ctx->json, "%s\"%s\": ", k ? ", " : "",
          eval_matrix_metric_names[k]);
      /* "never" (recovery, reach) is a string: JSON has no infinity */
      if (isinf (v))
        g_string_append (ctx->json, "\"never\"");
      else
        jnum (ctx->json, v);
    }
    g_string_append_c (ctx->json, '}');
  }
  g_string_append (ctx->json, "],\n  \"median\": {");
  for (guint k = 0; k < EVAL_MATRIX_N_METRICS; k++) {
    g_string_append_printf (ctx->json, "%s\"%s\": ", k ? ", " : "",
        eval_matrix_metric_names[k]);
    if (isinf (med[k]))
      g_string_append (ctx->json, "\"never\"");
    else
      jnum (ctx->json, med[k]);
  }
  g_string_append (ctx->json, "},\n  \"aims\": [");
  for (guint a = 0; a < s->aims->len; a++) {
    const EvalAim *aim = &g_array_index (s->aims, EvalAim, a);
    gboolean applies = eval_matrix_aim_applies (ctx->m, aim, controller);
    guint met = 0;
    gdouble worst = NAN;
    for (guint i = 0; i < n_seeds; i++) {
      gdouble v = eval_matrix_metric (&mm[i], aim->metric);
      met += eval_matrix_aim_met (aim, v);
      if (i > 0 && isnan (worst))
        continue;               /* an undefined seed is the worst */
      worst = i == 0 || isnan (v) ? v : aim->op == EVAL_AIM_GE ?
          MIN (worst, v) : MAX (worst, v);
    }
    g_string_append_printf (ctx->json, "%s{\"aim\": ", a ? ", " : "");
    eval_json_string (aim->text, ctx->json);
    g_string_append_printf (ctx->json, ", \"applies\": %s, \"met_seeds\": %u,"
        " \"seeds\": %u, \"met\": %s, \"worst\": ", applies ? "true" : "false",
        met, n_seeds, met == n_seeds ? "true" : "false");
    if (isinf (worst))
      g_string_append (ctx->json, "\"never\"");
    else
      jnum (ctx->json, worst);
    g_string_append_c (ctx->json, '}');
    if (!applies)
      continue;
    applied++;
    if (met == n_seeds) {
      met_total++;
    } else {
      gchar w[32];
      fmt (w, sizeof w, worst, 2);
      g_string_append_printf (missed, "%s%s (%u/%u seeds, worst %s)",
          missed->len ? "; " : "", aim->text, met, n_seeds, w);
    }
  }
  g_string_append (ctx->json, "]}");
  ctx->aims_total += applied;
  ctx->aims_met += met_total;

  /* table line: medians */
  {
    const gchar *names[] = { "util", "qdelay_p95_ms", "loss_pct",
      "recovery_s", "swing_lo", "swing_hi", "share", "reach_s"
    };
    const gint f[] = { 2, 0, 2, 1, 2, 2, 2, 1 };
    for (guint k = 0; k < 8; k++)
      fmt (b[k], 32, eval_matrix_metric ((EvalMatrixMetrics *) med,
              names[k]), f[k]);
    g_print ("%-16s %-6s %-7s util %-5s p95 %-4s loss %-5s rec %-5s swing "
        "%s..%s share %-4s reach %-5s aims %u/%u%s%s\n", s->id, controller,
        eval_set_name (set), b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        met_total, applied, missed->len ? "  missed: " : "", missed->str);
  }
  g_free (mm);
  g_free (col);
  g_free (seeds);
  g_string_free (missed, TRUE);
  return TRUE;
}

static gboolean
in_list (const gchar * list, const gchar * id)
{
  gchar **v;
  gboolean r;

  if (!list || !g_strcmp0 (list, "all"))
    return TRUE;
  v = g_strsplit (list, ",", -1);
  r = g_strv_contains ((const gchar * const *) v, id);
  g_strfreev (v);
  return r;
}

int
main (int argc, char **argv)
{
  gchar *matrix_path = NULL, *scenario = NULL, *controller = NULL;
  gchar *set = NULL, *json = NULL, *out = NULL, *describe = NULL;
  gchar *trace_dir = NULL, *params = NULL;
  gint seeds = 0;
  gint64 seed = 1;
  gboolean list = FALSE, quiet = FALSE, hysteresis = FALSE, fec = FALSE;
  gboolean x264 = FALSE, real = FALSE;
  gboolean tbf_burst = FALSE;
  GOptionEntry entries[] = {
    {"matrix", 'm', 0, G_OPTION_ARG_FILENAME, &matrix_path,
        "matrix file (the source tree's tests/eval/matrix.ini)", "FILE"},
    {"list", 'l', 0, G_OPTION_ARG_NONE, &list, "list scenarios and aims",
        NULL},
    {"describe", 'd', 0, G_OPTION_ARG_STRING, &describe,
        "print a scenario's case for --seed as JSON (rtpcc-eval --describe "
          "form, plus aims)", "ID"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &seed, "--describe: seed (1)", "N"},
    {"trace-dir", 0, 0, G_OPTION_ARG_FILENAME, &trace_dir,
        "--describe: write the seed's trace here (trace_file)", "DIR"},
    {"scenario", 's', 0, G_OPTION_ARG_STRING, &scenario,
        "comma-separated scenario ids, or all (default)", "IDS"},
    {"controller", 'C', 0, G_OPTION_ARG_STRING, &controller,
        "comma-separated controllers, or all", "NAMES"},
    {"set", 0, 0, G_OPTION_ARG_STRING, &set,
        "tuning, heldout or both (default)", "SET"},
    {"seeds", 'n', 0, G_OPTION_ARG_INT, &seeds,
        "seeds per set (the matrix's by default)", "N"},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &json, "write results as JSON",
        "FILE"},
    {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "write OUT/<scenario>/<controller>/seed<N>/ CSVs and summary.json",
        "DIR"},
    {"encoder-hysteresis", 0, 0, G_OPTION_ARG_NONE, &hysteresis,
        "each codec follows its target through rtpccsink's encoder "
          "hysteresis, as in a real pipeline", NULL},
    {"encoder-x264", 0, 0, G_OPTION_ARG_NONE, &x264,
        "the codec modelled on x264enc in the real-time runner (30 fps, its "
          "frame sizes, key frames every 4 s, its lag behind the bitrate; "
          "implies --encoder-hysteresis)", NULL},
    {"tbf-burst", 0, 0, G_OPTION_ARG_NONE, &tbf_burst,
        "bottlenecks with the real-time runner's tbf bucket (3200 B or "
          "5 ms at the rate) instead of plain serializers", NULL},
    {"real", 0, 0, G_OPTION_ARG_NONE, &real,
        "as the real-time runner's pipelines: --encoder-x264 --tbf-burst",
        NULL},
    {"fec", 0, 0, G_OPTION_ARG_NONE, &fec,
        "real FEC on every media flow at its controller's FEC rate (the "
          "library's encoder and decoder, as fecenc follow-target and "
          "fecdec) instead of padding probes", NULL},
    {"controller-params", 0, 0, G_OPTION_ARG_STRING, &params,
        "\"key=value;...\" for every flow's controller (as rtpccsink's "
          "controller-params)", "PARAMS"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no per-run line", NULL},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("- the scenario matrix in "
      "the simulator");
  GError *err = NULL;
  EvalMatrix *m = NULL;
  gchar **controllers = NULL;
  int status = 0;
  Ctx ctx = { 0 };

  g_option_context_add_main_entries (octx, entries, NULL);
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    g_error_free (err);
    g_option_context_free (octx);
    return 2;
  }
  g_option_context_free (octx);
  m = eval_matrix_load (matrix_path ? matrix_path : RTPCC_MATRIX_FILE, &err);
  if (!m) {
    g_printerr ("%s: %s\n", matrix_path ? matrix_path : RTPCC_MATRIX_FILE,
        err->message);
    g_error_free (err);
    status = 2;
    goto done;
  }
  if (seeds < 0 || seed < 0 || (set && g_strcmp0 (set, "tuning") &&
          g_strcmp0 (set, "heldout") && g_strcmp0 (set, "both"))) {
    g_printerr ("bad --seeds, --seed or --set\n");
    status = 2;
    goto done;
  }

  if (list) {
    g_print ("seeds per set %u: tuning 1..%u, held-out %" G_GUINT64_FORMAT
        "..%" G_GUINT64_FORMAT "\n", m->seeds, m->seeds, m->heldout_base + 1,
        m->heldout_base + m->seeds);
    for (guint i = 0; i < m->scenarios->len; i++) {
      const EvalScenario *s = m->scenarios->pdata[i];
      g_print ("%-16s %s\n", s->id, s->c.title);
      for (guint a = 0; a < s->aims->len; a++)
        g_print ("%-16s   aim: %s\n", "",
            g_array_index (s->aims, EvalAim, a).text);
    }
    goto done;
  }
  if (describe) {
    const EvalScenario *s = eval_matrix_find (m, describe);
    EvalCase *c;
    GString *str;
    if (!s) {
      g_printerr ("unknown scenario '%s' (see --list)\n", describe);
      status = 2;
      goto done;
    }
    c = eval_matrix_case (s, (guint64) seed, trace_dir, &err);
    if (!c) {
      g_printerr ("%s\n", err->message);
      g_error_free (err);
      status = 1;
      goto done;
    }
    str = g_string_new (NULL);
    eval_case_describe (c, str);
    /* the aims and the seed's set next to the case's keys */
    g_string_truncate (str, str->len - 2);      /* "}\n" */
    g_string_append_printf (str, ",\n  \"seed\": %" G_GINT64_FORMAT
        ", \"set\": \"%s\",\n  \"aims\": [", seed,
        eval_set_name (eval_matrix_seed_set (m, (guint64) seed)));
    for (guint a = 0; a < s->aims->len; a++) {
      const EvalAim *aim = &g_array_index (s->aims, EvalAim, a);
      g_string_append_printf (str, "%s{\"metric\": \"%s\", \"op\": \"%s\", "
          "\"value\": ", a ? ", " : "", aim->metric,
          aim->op == EVAL_AIM_GE ? ">=" : "<=");
      jnum (str, aim->value);
      g_string_append_printf (str, ", \"class\": \"%s\", \"text\": ",
          aim->cls);
      eval_json_string (aim->text, str);
      g_string_append_c (str, '}');
    }
    g_string_append (str, "],\n  \"delay_based\": [");
    for (guint i = 0; m->delay_based[i]; i++)
      g_string_append_printf (str, "%s\"%s\"", i ? ", " : "",
          m->delay_based[i]);
    g_string_append (str, "]\n}\n");
    fputs (str->str, stdout);
    g_string_free (str, TRUE);
    eval_matrix_case_free (c);
    goto done;
  }
  if (!controller) {
    g_printerr ("need --controller (or --list / --describe)\n");
    status = 2;
    goto done;
  }
  controllers = eval_controllers ();
  ctx.m = m;
  ctx.encoder_hysteresis = hysteresis;
  ctx.encoder_x264 = x264 || real;
  ctx.tbf_burst = tbf_burst || real;
  ctx.fec = fec;
  ctx.controller_params = params;
  ctx.json = g_string_new (NULL);
  ctx.first_json = TRUE;
  g_string_append (ctx.json, "{\"matrix\": ");
  eval_json_string (m->path, ctx.json);
  g_string_append_printf (ctx.json, ", \"seeds_per_set\": %u, "
      "\"heldout_base\": %" G_GUINT64_FORMAT ",\n\"results\": [",
      seeds ? (guint) seeds : m->seeds, m->heldout_base);
  if (scenario && g_strcmp0 (scenario, "all")) {
    gchar **ids = g_strsplit (scenario, ",", -1);
    for (guint i = 0; ids[i]; i++)
      if (!eval_matrix_find (m, ids[i])) {
        g_printerr ("unknown scenario '%s' (see --list)\n", ids[i]);
        status = 2;
      }
    g_strfreev (ids);
  }
  for (guint k = 0; status == 0 && controllers[k]; k++) {
    if (!in_list (controller, controllers[k]))
      continue;
    for (guint i = 0; status == 0 && i < m->scenarios->len; i++) {
      const EvalScenario *s = m->scenarios->pdata[i];
      if (!in_list (scenario, s->id))
        continue;
      for (gint st = 0; st < 2; st++) {
        if (set && g_strcmp0 (set, "both") &&
            g_strcmp0 (set, eval_set_name ((EvalSet) st)))
          continue;
        if (!run_set (&ctx, s, controllers[k], (EvalSet) st,
                seeds ? (guint) seeds : m->seeds, out, quiet))
          status = 1;
      }
    }
  }
  if (ctx.first_json && status == 0) {
    g_printerr ("no known controller in '%s' (see rtpcc-eval --list)\n",
        controller);
    status = 2;
  }
  g_string_append (ctx.json, "\n]}\n");
  g_print ("aims met: %u of %u (scenario x set x aim)\n", ctx.aims_met,
      ctx.aims_total);
  if (json && status == 0 && !g_file_set_contents (json, ctx.json->str,
          ctx.json->len, &err)) {
    g_printerr ("%s\n", err->message);
    g_error_free (err);
    status = 1;
  }
  g_string_free (ctx.json, TRUE);

done:
  g_strfreev (controllers);
  eval_matrix_free (m);
  g_free (matrix_path);
  g_free (scenario);
  g_free (controller);
  g_free (set);
  g_free (params);
  g_free (json);
  g_free (out);
  g_free (describe);
  g_free (trace_dir);
  return status;
}

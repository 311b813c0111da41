/* rtpcc-eval: RFC 8867 cases × controllers in the simulator, RFC 8868
 * metrics (docs/results.md).
 *
 *   rtpcc-eval --list
 *   rtpcc-eval --describe 5.6            case definition as JSON
 *   rtpcc-eval --case 5.1 --controller gcc --seed 1 --out out/eval/sim
 *   rtpcc-eval --case all --controller all --out out/eval/sim
 *
 * Each run writes OUT/<case>/<controller>/flow<i>.csv (SIM_RTPCC_CSV_HEADER
 * columns, 200 ms rows) and summary.json, and prints one line.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "eval-run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void
print_line (const EvalResult * r)
{
  const EvalSummary *s = &r->summary;

  g_print ("%-10s %-6s seed %" G_GUINT64_FORMAT ": util %.3f media %.3f "
      "qdelay p95 %.1f ms loss %.2f %% jain_min %.3f conv max %.1f s "
      "(%u/%u missed) swings %u share %.2f wall %.3f s\n", r->c->id,
      r->controller, r->seed, s->util, s->media_util, s->qdelay_p95_ms,
      s->loss_pct, s->jain_min, s->conv_max_s, s->conv_missed, s->conv_n,
      s->swings, s->media_share, r->wall_s);
}

int
main (int argc, char **argv)
{
  gchar *case_id = NULL, *controller = NULL, *out = NULL, *describe = NULL;
  gint64 seed = 1;
  gboolean list = FALSE, frames = FALSE, quiet = FALSE, rtp_log = FALSE;
  gboolean hysteresis = FALSE, x264 = FALSE;
  gchar *params = NULL;
  gboolean tbf_burst = FALSE;
  GOptionEntry entries[] = {
    {"case", 'c', 0, G_OPTION_ARG_STRING, &case_id,
        "RFC 8867 case id (see --list) or 'all'", "ID"},
    {"controller", 'C', 0, G_OPTION_ARG_STRING, &controller,
        "registered controller or 'all'", "NAME"},
    {"seed", 's', 0, G_OPTION_ARG_INT64, &seed, "seed (1)", "N"},
    {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "write OUT/<case>/<controller>/{flow<i>.csv,summary.json}", "DIR"},
    {"describe", 'd', 0, G_OPTION_ARG_STRING, &describe,
        "print a case definition as JSON ('all': a JSON array)", "ID"},
    {"list", 'l', 0, G_OPTION_ARG_NONE, &list, "list cases and controllers",
        NULL},
    {"frames", 0, 0, G_OPTION_ARG_NONE, &frames,
        "plain frame source instead of the statistical codec", NULL},
    {"encoder-hysteresis", 0, 0, G_OPTION_ARG_NONE, &hysteresis,
        "the codec follows the target through rtpccsink's encoder "
          "hysteresis, as in a real pipeline", NULL},
    {"encoder-x264", 0, 0, G_OPTION_ARG_NONE, &x264,
        "the codec modelled on x264enc in the real-time runner (30 fps, its "
          "frame sizes, key frames every 4 s, its lag behind the bitrate; "
          "implies --encoder-hysteresis)", NULL},
    {"tbf-burst", 0, 0, G_OPTION_ARG_NONE, &tbf_burst,
        "bottlenecks with the real-time runner's tbf bucket (3200 B or 5 ms "
          "at the rate) instead of plain serializers", NULL},
    {"controller-params", 0, 0, G_OPTION_ARG_STRING, &params,
        "\"key=value;...\" for every media flow's controller (as rtpccsink's "
          "controller-params)", "PARAMS"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no per-run line", NULL},
    {"rtp-log", 0, 0, G_OPTION_ARG_NONE, &rtp_log,
        "also write RFC 8868 RTP logs flow<i>-{send,recv}.log (needs --out)",
        NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- RFC 8867 cases in the "
      "simulator");
  GError *err = NULL;
  gchar **controllers;
  int status = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  controllers = eval_controllers ();

  if (list) {
    for (guint i = 0; i < eval_case_count (); i++)
      g_print ("case %s\t%s\n", eval_case_get (i)->id,
          eval_case_get (i)->title);
    for (guint i = 0; controllers[i]; i++)
      g_print ("controller %s\n", controllers[i]);
    goto done;
  }
  if (describe) {
    GString *s = g_string_new (NULL);
    if (!g_strcmp0 (describe, "all")) {
      g_string_append (s, "[\n");
      for (guint i = 0; i < eval_case_count (); i++) {
        if (i)
          g_string_append (s, ",\n");
        eval_case_describe (eval_case_get (i), s);
      }
      g_string_append (s, "]\n");
    } else if (eval_case_find (describe)) {
      eval_case_describe (eval_case_find (describe), s);
    } else {
      g_printerr ("unknown case '%s' (see --list)\n", describe);
      status = 2;
    }
    fputs (s->str, stdout);
    g_string_free (s, TRUE);
    goto done;
  }
  if (!case_id || !controller || seed < 0) {
    g_printerr ("need --case and --controller (or --list / --describe)\n");
    status = 2;
    goto done;
  }
  if (g_strcmp0 (case_id, "all") && !eval_case_find (case_id)) {
    g_printerr ("unknown case '%s' (see --list)\n", case_id);
    status = 2;
    goto done;
  }
  for (guint i = 0; i < eval_case_count (); i++) {
    const EvalCase *c = eval_case_get (i);
    if (g_strcmp0 (case_id, "all") && g_strcmp0 (case_id, c->id))
      continue;
    for (guint k = 0; controllers[k] || (g_strcmp0 (controller, "all")
            && k == 0); k++) {
      const gchar *name = g_strcmp0 (controller, "all") ? controller :
          controllers[k];
      gchar *dir = out ? g_build_filename (out, c->id, name, NULL) : NULL;
      EvalRunConfig cfg = { name, (guint64) seed, frames,
        rtp_log ? dir : NULL, hysteresis, params, FALSE, tbf_burst, x264
      };
      EvalResult *r = eval_run (c, &cfg, &err);
      if (!r) {
        g_printerr ("%s %s: %s\n", c->id, name, err->message);
        g_clear_error (&err);
        g_free (dir);
        status = 1;
        break;
      }
      if (!quiet)
        print_line (r);
      if (dir && !eval_result_write_dir (r, dir, &err)) {
        g_printerr ("%s\n", err->message);
        g_clear_error (&err);
        status = 1;
      }
      g_free (dir);
      eval_result_free (r);
      if (g_strcmp0 (controller, "all"))
        break;
    }
  }

done:
  g_strfreev (controllers);
  g_free (case_id);
  g_free (controller);
  g_free (out);
  g_free (params);
  g_free (describe);
  return status;
}

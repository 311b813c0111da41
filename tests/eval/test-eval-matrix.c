/* The scenario matrix instrument (eval-matrix.h, matrix.ini):
 *  - the file loads, every scenario builds a case for a tuning and a
 *    held-out seed, the split rule gives disjoint sets, malformed files
 *    are refused with a message;
 *  - a small part of the matrix runs in the simulator and is
 *    deterministic: the same seed gives the same metrics bit for bit, a
 *    trace scenario's trace changes with the seed, the metrics of an
 *    outage and a trace are defined where they should be;
 *  - the trace a scenario describes for the real-time runner is the one
 *    the simulator runs, within the generator's bounds;
 *  - `--guards NAME`: regression guards, the aims every tuning seed meets
 *    today for that controller (no thresholds beyond those; fbra, under
 *    development, has none), from `tests/eval/make-matrix --guards`.
 *    Held-out seeds are never asserted: they stay unseen by anything that
 *    could be tuned against them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "eval-matrix.h"
#include "sim-trace.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#ifndef RTPCC_MATRIX_FILE
#error RTPCC_MATRIX_FILE must name tests/eval/matrix.ini
#endif

typedef struct
{
  const gchar *scenario, *controller, *aim;
} Guard;

static const Guard guards[] = {
#include "test-eval-matrix-guards.h"
};

static EvalMatrix *
load (void)
{
  GError *err = NULL;
  EvalMatrix *m = eval_matrix_load (RTPCC_MATRIX_FILE, &err);

  g_assert_no_error (err);
  g_assert_nonnull (m);
  return m;
}

static void
test_load (void)
{
  EvalMatrix *m = load ();
  const gchar *must[] = { "constant", "short-rtt", "long-rtt", "loss-random",
    "loss-bursty", "outage-1s", "outage-5s", "outage-30s", "cellular",
    "cellular-nofades",
    "feedback-lossy", "feedback-congested", "keyframes", "rr-low-start",
    "tcp-cubic-1000ms"
  };

  g_assert_cmpuint (m->seeds, >, 0);
  for (guint i = 0; i < G_N_ELEMENTS (must); i++)
    g_assert_nonnull (eval_matrix_find (m, must[i]));
  /* every RFC 8867 case is in the matrix */
  for (guint i = 0; i < eval_case_count (); i++) {
    gchar *id = g_strdup_printf ("rfc8867-%s", eval_case_get (i)->id);
    const EvalScenario *s = eval_matrix_find (m, id);
    g_assert_nonnull (s);
    g_assert_cmpfloat (s->c.duration_s, ==, eval_case_get (i)->duration_s);
    g_assert_cmpuint (s->c.n_flows, ==, eval_case_get (i)->n_flows);
    g_free (id);
  }
  for (guint i = 0; i < m->scenarios->len; i++) {
    const EvalScenario *s = m->scenarios->pdata[i];
    g_assert_cmpuint (s->aims->len, >, 0);
    for (guint k = 0; k < 2; k++) {
      GError *err = NULL;
      EvalCase *c = eval_matrix_case (s, eval_matrix_seed (m, (EvalSet) k,
              0), NULL, &err);
      g_assert_no_error (err);
      g_assert_cmpuint (eval_case_n_media (c), >, 0);
      g_assert_true (s->trace_cellular == (c->trace != NULL));
      eval_matrix_case_free (c);
    }
  }
  /* the split: disjoint, each seed knows its set */
  for (guint i = 0; i < m->seeds; i++) {
    guint64 t = eval_matrix_seed (m, EVAL_SET_TUNING, i);
    guint64 h = eval_matrix_seed (m, EVAL_SET_HELDOUT, i);
    g_assert_cmpint (eval_matrix_seed_set (m, t), ==, EVAL_SET_TUNING);
    g_assert_cmpint (eval_matrix_seed_set (m, h), ==, EVAL_SET_HELDOUT);
    for (guint j = 0; j < m->seeds; j++)
      g_assert_cmpuint (t, !=, eval_matrix_seed (m, EVAL_SET_HELDOUT, j));
  }
  /* aim classes */
  {
    const EvalScenario *s = eval_matrix_find (m, "short-rtt");
    gboolean saw_delay = FALSE;
    for (guint a = 0; a < s->aims->len; a++) {
      const EvalAim *aim = &g_array_index (s->aims, EvalAim, a);
      if (!g_strcmp0 (aim->cls, "delay")) {
        saw_delay = TRUE;
        g_assert_true (eval_matrix_aim_applies (m, aim, "gcc"));
        g_assert_false (eval_matrix_aim_applies (m, aim, "tfrc"));
      }
    }
    g_assert_true (saw_delay);
  }
  eval_matrix_free (m);
}

static void
expect_refused (const gchar * text, const gchar * what)
{
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("mx-matrix-XXXXXX.ini", &path, NULL);
  GError *err = NULL;
  EvalMatrix *m;

  g_assert_cmpint (fd, >=, 0);
  g_close (fd, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  m = eval_matrix_load (path, &err);
  g_assert_null (m);
  g_assert_nonnull (err);
  g_assert_nonnull (strstr (err->message, what));
  g_error_free (err);
  g_unlink (path);
  g_free (path);
}

static void
test_refused (void)
{
  expect_refused ("[a]\ncapacity = 1000\ncapacty = 3\n", "unknown key");
  expect_refused ("[a]\ncapacity = 1000\naims = util >> 3\n", "bad aim");
  expect_refused ("[a]\ncapacity = 1000\naims = utility >= 3\n", "bad aim");
  expect_refused ("[a]\ncapacity = 1000\nloss = gilbert:2,0.5\n", "loss");
  expect_refused ("[a]\nbase = 9.9\n", "unknown RFC 8867 case");
  expect_refused ("[a]\ntitle = no capacity\n", "needs capacity");
  expect_refused ("[a]\ncapacity = 1000\ntcp = cubic\n", "bad flow");
  expect_refused ("[a]\ncapacity = 1000\ntrace = verizon\n", "trace");
  expect_refused ("[a]\ncapacity = 1000\nshort_tcp = reno:10,0,100-1500,10\n",
      "short_tcp");
  expect_refused ("[a]\ncapacity = 1000\nshort_tcp = newreno:10,11,1-2,10\n",
      "short_tcp");
  expect_refused ("[a]\ncapacity = 1000\nshort_tcp = newreno:10,0,9-2,10\n",
      "short_tcp");
  expect_refused ("[a]\ncapacity = 1000\nshort_tcp = newreno:10,0,1-2\n",
      "short_tcp");
}

/* short_tcp: one entry of RFC 8867 5.7's kind with the numbers given,
 * beside the media flow. */
static void
test_short_tcp (void)
{
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("mx-matrix-XXXXXX.ini", &path, NULL);
  GError *err = NULL;
  EvalMatrix *m;
  const EvalScenario *s;
  const EvalFlow *f;

  g_assert_cmpint (fd, >=, 0);
  g_close (fd, NULL);
  g_assert_true (g_file_set_contents (path, "[a]\ncapacity = 5000\n"
          "short_tcp = cubic:10,3,100-1500,10\n", -1, NULL));
  m = eval_matrix_load (path, &err);
  g_assert_no_error (err);
  s = eval_matrix_find (m, "a");
  g_assert_nonnull (s);
  g_assert_cmpuint (s->c.n_flows, ==, 2);
  g_assert_cmpint (s->c.flows[0].kind, ==, EVAL_FLOW_MEDIA);
  f = &s->c.flows[1];
  g_assert_cmpint (f->kind, ==, EVAL_FLOW_TCP_SHORT);
  g_assert_cmpstr (f->tcp_cc, ==, "cubic");
  g_assert_cmpuint (f->count, ==, 10);
  g_assert_cmpuint (f->count_on, ==, 3);
  g_assert_cmpuint (f->file_kb_min, ==, 100);
  g_assert_cmpuint (f->file_kb_max, ==, 1500);
  g_assert_cmpfloat (f->off_mean_s, ==, 10.0);
  eval_matrix_free (m);
  g_unlink (path);
  g_free (path);
}

static void
run_with (const EvalScenario * s, const gchar * ctl, guint64 seed,
    gboolean fec, EvalMatrixMetrics * mm)
{
  GError *err = NULL;
  EvalCase *c = eval_matrix_case (s, seed, NULL, &err);
  EvalRunConfig cfg = { ctl, seed, FALSE, NULL };
  EvalResult *r;

  cfg.fec = fec;
  g_assert_no_error (err);
  r = eval_run (c, &cfg, &err);
  g_assert_no_error (err);
  g_assert_cmpuint (r->summary.stalls, ==, 0);
  eval_matrix_metrics (r, mm);
  eval_result_free (r);
  eval_matrix_case_free (c);
}

static void
run (const EvalScenario * s, const gchar * ctl, guint64 seed,
    EvalMatrixMetrics * mm)
{
  run_with (s, ctl, seed, FALSE, mm);
}

/* --fec: real FEC at the controller's FEC rate and the FBRA paper's FEC
 * figures; without it no FEC figure but fbra's FRCC (its padding probes
 * are its FEC episodes too); none for a controller without FEC. */
static void
test_fec (void)
{
  EvalMatrix *m = load ();
  const EvalScenario *s = eval_matrix_find (m, "loss-random");
  guint64 t = eval_matrix_seed (m, EVAL_SET_TUNING, 0);
  EvalMatrixMetrics with, without, gcc;

  run_with (s, "fbra", t, TRUE, &with);
  run_with (s, "fbra", t, FALSE, &without);
  run_with (s, "gcc", t, TRUE, &gcc);
  g_assert_cmpfloat (with.fec_kbps, >, 0.0);
  g_assert_cmpfloat (with.fec_kbps, <, 0.5 * with.media_util * 1000);
  g_assert_cmpfloat (with.frcc, >=, 0.0);
  g_assert_cmpfloat (with.frcc, <=, 1.0);
  /* 2 % random loss: covered packets are lost, some rebuilt */
  g_assert_cmpfloat (with.ffre, >, 0.0);
  g_assert_cmpfloat (with.ffre, <=, 1.0);
  g_assert_true (isnan (without.fec_kbps));
  g_assert_true (isnan (without.ffre));
  g_assert_cmpfloat (without.frcc, >=, 0.0);
  /* gcc asks for no FEC: nothing sent, no episodes */
  g_assert_cmpfloat (gcc.fec_kbps, ==, 0.0);
  g_assert_true (isnan (gcc.frcc));
  eval_matrix_free (m);
}

static void
test_deterministic (void)
{
  EvalMatrix *m = load ();
  const gchar *ids[] = { "outage-5s", "cellular", "loss-bursty",
    "feedback-congested", "short-rtt", "keyframes"
  };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++) {
    const EvalScenario *s = eval_matrix_find (m, ids[i]);
    EvalMatrixMetrics a, b, other;
    guint64 t = eval_matrix_seed (m, EVAL_SET_TUNING, 0);

    run (s, "gcc", t, &a);
    run (s, "gcc", t, &b);
    g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
    g_assert_cmpfloat (a.media_util, >, 0.05);
    g_assert_cmpfloat (a.media_util, <=, 1.02);
    if (!g_strcmp0 (ids[i], "outage-5s")) {
      g_assert_false (isnan (a.recovery_s));
      g_assert_false (isnan (a.util_after));
    } else {
      g_assert_true (isnan (a.recovery_s));
    }
    /* a random process in the scenario: another seed, other numbers */
    if (!g_strcmp0 (ids[i], "cellular") || !g_strcmp0 (ids[i], "loss-bursty")) {
      run (s, "gcc", eval_matrix_seed (m, EVAL_SET_TUNING, 1), &other);
      g_assert_true (memcmp (&a, &other, sizeof a) != 0);
    }
  }
  eval_matrix_free (m);
}

/* The trace a scenario describes (for linkemu) is the simulator's, and the
 * generator stays in its band. */
static void
test_trace_describe (void)
{
  EvalMatrix *m = load ();
  const EvalScenario *s = eval_matrix_find (m, "cellular");
  gchar *dir = g_dir_make_tmp ("mx-trace-XXXXXX", NULL);
  GError *err = NULL;
  EvalCase *a = eval_matrix_case (s, 10001, dir, &err), *b;
  gchar *text = NULL;
  GString *desc = g_string_new (NULL);
  SimTraceConfig tc;
  SimTrace *t;

  g_assert_no_error (err);
  g_assert_nonnull (a->trace_path);
  g_assert_true (g_file_get_contents (a->trace_path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, a->trace);
  b = eval_matrix_case (s, 10001, NULL, &err);
  g_assert_cmpstr (b->trace, ==, a->trace);
  eval_case_describe (a, desc);
  g_assert_nonnull (strstr (desc->str, a->trace_path));
  g_assert_nonnull (strstr (desc->str, "\"trace_file\""));

  sim_trace_config_init (&tc);
  tc.seed = 10001;
  tc.duration_s = s->c.duration_s;
  t = sim_trace_generate (&tc);
  g_assert_cmpstr (t->text->str, ==, a->trace);
  for (guint k = 0; k < t->kbps->len; k++) {
    gdouble r = g_array_index (t->kbps, gdouble, k);
    if (!g_array_index (t->fade, gboolean, k)) {
      g_assert_cmpfloat (r, >=, tc.min_kbps - 0.001);
      g_assert_cmpfloat (r, <=, tc.max_kbps + 0.001);
    } else {
      g_assert_cmpfloat (r, <=, tc.fade_hi_kbps + 0.001);
    }
  }
  sim_trace_free (t);
  g_unlink (a->trace_path);
  g_rmdir (dir);
  g_free (dir);
  g_free (text);
  g_string_free (desc, TRUE);
  eval_matrix_case_free (a);
  eval_matrix_case_free (b);
  eval_matrix_free (m);
}

static const gchar *guard_controller;

/* Aims met on every tuning seed today stay met (one controller's). */
static void
test_guards (void)
{
  EvalMatrix *m = load ();
  GHashTable *done = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  guint n = 0;

  for (guint g = 0; g < G_N_ELEMENTS (guards); g++) {
    const EvalScenario *s = eval_matrix_find (m, guards[g].scenario);
    const EvalAim *aim = NULL;
    if (g_strcmp0 (guards[g].controller, guard_controller))
      continue;
    n++;
    g_assert_nonnull (s);
    for (guint a = 0; a < s->aims->len; a++)
      if (!g_strcmp0 (g_array_index (s->aims, EvalAim, a).text,
              guards[g].aim))
        aim = &g_array_index (s->aims, EvalAim, a);
    g_assert_nonnull (aim);
    g_assert_true (eval_matrix_aim_applies (m, aim, guards[g].controller));
    for (guint i = 0; i < m->seeds; i++) {
      guint64 seed = eval_matrix_seed (m, EVAL_SET_TUNING, i);
      gchar *key = g_strdup_printf ("%s/%s/%" G_GUINT64_FORMAT,
          guards[g].scenario, guards[g].controller, seed);
      EvalMatrixMetrics *mm = g_hash_table_lookup (done, key);
      gdouble v;
      if (!mm) {
        mm = g_new (EvalMatrixMetrics, 1);
        run (s, guards[g].controller, seed, mm);
        g_hash_table_insert (done, key, mm);
      } else {
        g_free (key);
      }
      v = eval_matrix_metric (mm, aim->metric);
      if (!eval_matrix_aim_met (aim, v))
        g_test_message ("%s %s seed %" G_GUINT64_FORMAT ": %s is %g",
            guards[g].scenario, guards[g].controller, seed, aim->text, v);
      g_assert_true (eval_matrix_aim_met (aim, v));
    }
  }
  g_test_message ("%u guards for %s", n, guard_controller);
  g_assert_cmpuint (n, >, 0);
  g_hash_table_unref (done);
  eval_matrix_free (m);
}

int
main (int argc, char **argv)
{
  /* --guards NAME: only that controller's regression guards (meson runs
   * one test per controller, in parallel) */
  if (argc >= 3 && !g_strcmp0 (argv[1], "--guards")) {
    guard_controller = argv[2];
    argv[2] = argv[0];
    argv += 2;
    argc -= 2;
  }
  g_test_init (&argc, &argv, NULL);
  if (guard_controller) {
    g_test_add_func ("/eval/matrix/guards", test_guards);
  } else {
    g_test_add_func ("/eval/matrix/load", test_load);
    g_test_add_func ("/eval/matrix/short-tcp", test_short_tcp);
    g_test_add_func ("/eval/matrix/refused", test_refused);
    g_test_add_func ("/eval/matrix/deterministic", test_deterministic);
    g_test_add_func ("/eval/matrix/fec", test_fec);
    g_test_add_func ("/eval/matrix/trace-describe", test_trace_describe);
  }
  return g_test_run ();
}

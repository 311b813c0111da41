/* The scenario matrix: loading tests/eval/matrix.ini, the seed split, the
 * per-seed case, and the matrix metrics (see eval-matrix.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "eval-matrix.h"
#include "eval-metrics.h"
#include "sim-trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#define EPS 1e-9
/* outage recovery: the 1 s mean receive rate back to this share of the
 * capacity (docs/matrix.md) */
#define RECOVERY_SHARE 0.8
#define AFTER_S 5.0
/* reach: the 1 s mean send rate at this share of the reference */
#define REACH_SHARE 0.9
#define MEAN_ROWS 5             /* 1 s of 200 ms rows */

const gchar *const eval_matrix_metric_names[EVAL_MATRIX_N_METRICS] = {
  "util", "media_util", "qdelay_p95_ms", "qdelay_mean_ms", "pkt_p95_ms",
  "loss_pct", "jain_min", "share", "conv_max_s", "recovery_s", "util_after",
  "swing_lo", "swing_hi", "reach_s", "fec_kbps", "ffre", "frcc",
  "competitor_entries",
};

static const gchar *const known_keys[] = {
  "title", "notes", "base", "capacity", "schedule", "trace", "delay_ms",
  "queue_ms", "reverse_schedule", "reverse_queue_ms", "duration_s", "loss",
  "reverse_loss", "media", "reverse_media", "tcp", "reverse_tcp",
  "keyframe_interval", "iframe_bytes", "min_kbps", "start_kbps", "max_kbps",
  "topology", "aims", "short_tcp", NULL
};

const gchar *
eval_set_name (EvalSet set)
{
  return set == EVAL_SET_TUNING ? "tuning" : "heldout";
}

static const gchar *
keep (EvalScenario * s, gchar * str)
{
  if (str)
    g_ptr_array_add (s->strings, str);
  return str;
}

static void
scenario_free (EvalScenario * s)
{
  if (!s)
    return;
  for (guint i = 0; s->aims && i < s->aims->len; i++) {
    EvalAim *a = &g_array_index (s->aims, EvalAim, i);
    g_free (a->metric);
    g_free (a->cls);
    g_free (a->text);
  }
  if (s->aims)
    g_array_free (s->aims, TRUE);
  g_ptr_array_free (s->strings, TRUE);
  g_free (s->id);
  g_free (s);
}

static gboolean
parse_double (const gchar * str, gdouble * out)
{
  gchar *end;

  str += strspn (str, " \t");
  *out = g_ascii_strtod (str, &end);
  if (end == str)
    return FALSE;
  end += strspn (end, " \t");
  return *end == '\0' && isfinite (*out);
}

static gboolean
add_flows (EvalScenario * s, const gchar * spec, EvalFlowKind kind,
    gboolean reverse, GError ** error)
{
  gchar **parts = g_strsplit (spec, ",", -1);
  gboolean ok = TRUE;

  for (guint i = 0; ok && parts[i]; i++) {
    EvalFlow *f;
    gchar *item = g_strstrip (parts[i]), *at = NULL;
    gdouble start = 0;

    if (!*item)
      continue;
    if (s->c.n_flows >= EVAL_MAX_FLOWS) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s]: more than %d flows", s->id, EVAL_MAX_FLOWS);
      ok = FALSE;
      break;
    }
    f = &s->c.flows[s->c.n_flows];
    memset (f, 0, sizeof (*f));
    f->kind = kind;
    f->reverse = reverse;
    f->stop_s = -1;
    f->pause_s = f->resume_s = -1;
    if (kind != EVAL_FLOW_MEDIA) {
      /* "cc@start" */
      at = strchr (item, '@');
      if (!at) {
        ok = FALSE;
      } else {
        *at = '\0';
        f->tcp_cc = keep (s, g_strdup (g_strstrip (item)));
        ok = parse_double (at + 1, &start);
      }
    } else {
      ok = parse_double (item, &start);
    }
    f->start_s = start;
    if (!ok) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s]: bad flow '%s'", s->id, parts[i]);
      break;
    }
    s->c.n_flows++;
  }
  g_strfreev (parts);
  return ok;
}

static gboolean
parse_aims (EvalScenario * s, const gchar * spec, GError ** error)
{
  gchar **parts = g_strsplit (spec, ";", -1);
  gboolean ok = TRUE;

  for (guint i = 0; ok && parts[i]; i++) {
    gchar **tok;
    EvalAim aim = { 0 };
    guint n;

    g_strstrip (parts[i]);
    if (!*parts[i])
      continue;
    tok = g_strsplit_set (parts[i], " \t", -1);
    /* drop empty tokens from repeated blanks */
    n = 0;
    for (guint k = 0; tok[k]; k++)
      if (*tok[k])
        tok[n++] = tok[k];
      else
        g_free (tok[k]);
    tok[n] = NULL;
    ok = (n == 3 || (n == 4 && tok[3][0] == '@')) &&
        eval_matrix_metric_known (tok[0]) &&
        (!g_strcmp0 (tok[1], ">=") || !g_strcmp0 (tok[1], "<=")) &&
        parse_double (tok[2], &aim.value);
    if (ok) {
      aim.metric = g_strdup (tok[0]);
      aim.op = tok[1][0] == '>' ? EVAL_AIM_GE : EVAL_AIM_LE;
      aim.cls = g_strdup (n == 4 ? tok[3] + 1 : "all");
      aim.text = g_strdup (parts[i]);
      g_array_append_val (s->aims, aim);
    } else {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s]: bad aim '%s' (METRIC >=|<= VALUE [@CLASS])", s->id,
          parts[i]);
    }
    g_strfreev (tok);
  }
  g_strfreev (parts);
  return ok;
}

/* "CC:COUNT,ON,KB_MIN-KB_MAX,OFF_MEAN_S": short TCP flows (RFC 8867
 * 5.7's kind): COUNT flows, ON of them starting with a file, each file
 * KB_MIN..KB_MAX kB (uniform), OFF times exponential with that mean. */
static gboolean
add_short_tcp (EvalScenario * s, const gchar * spec, GError ** error)
{
  const gchar *cc;
  guint count, on, kb_min, kb_max;
  gdouble off;
  gchar cc_buf[16];
  EvalFlow *f;

  if (s->c.n_flows >= EVAL_MAX_FLOWS
      || sscanf (spec, "%15[a-z]:%u,%u,%u-%u,%lf", cc_buf, &count, &on,
          &kb_min, &kb_max, &off) != 6 || count == 0 || on > count
      || kb_min == 0 || kb_min > kb_max || !(off > 0)
      || (g_strcmp0 (cc_buf, "newreno") && g_strcmp0 (cc_buf, "cubic"))) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] short_tcp: not 'newreno|cubic:COUNT,ON,KB_MIN-KB_MAX,"
        "OFF_MEAN_S': '%s'", s->id, spec);
    return FALSE;
  }
  cc = keep (s, g_strdup (cc_buf));
  f = &s->c.flows[s->c.n_flows++];
  memset (f, 0, sizeof (*f));
  f->kind = EVAL_FLOW_TCP_SHORT;
  f->tcp_cc = cc;
  f->stop_s = f->pause_s = f->resume_s = -1;
  f->count = count;
  f->count_on = on;
  f->file_kb_min = kb_min;
  f->file_kb_max = kb_max;
  f->off_mean_s = off;
  return TRUE;
}

static gboolean
get_num (GKeyFile * kf, const gchar * g, const gchar * key, gdouble * out,
    GError ** error)
{
  gchar *v = g_key_file_get_string (kf, g, key, NULL);
  gboolean ok;

  if (!v)
    return TRUE;
  ok = parse_double (v, out) && *out >= 0;
  if (!ok)
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] %s: not a non-negative number: '%s'", g, key, v);
  g_free (v);
  return ok;
}

static gboolean
get_loss (GKeyFile * kf, const gchar * g, const gchar * key,
    RtpccLossParams * out, GError ** error)
{
  gchar *v = g_key_file_get_string (kf, g, key, NULL);
  gboolean ok;

  if (!v)
    return TRUE;
  ok = sim_loss_parse (v, out, error);
  if (!ok)
    g_prefix_error (error, "[%s] %s: ", g, key);
  g_free (v);
  return ok;
}

static EvalScenario *
load_scenario (GKeyFile * kf, const gchar * g, GError ** error)
{
  EvalScenario *s = g_new0 (EvalScenario, 1);
  gchar **keys = g_key_file_get_keys (kf, g, NULL, NULL);
  gchar *v;
  gdouble d;
  gboolean flows_given = FALSE;

  s->id = g_strdup (g);
  s->strings = g_ptr_array_new_with_free_func (g_free);
  s->aims = g_array_new (FALSE, TRUE, sizeof (EvalAim));
  for (guint i = 0; keys && keys[i]; i++)
    if (!g_strv_contains (known_keys, keys[i])) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
          "[%s]: unknown key '%s'", g, keys[i]);
      goto fail;
    }

  v = g_key_file_get_string (kf, g, "base", NULL);
  if (v) {
    const EvalCase *b = eval_case_find (g_strstrip (v));
    if (!b) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s]: unknown RFC 8867 case '%s'", g, v);
      g_free (v);
      goto fail;
    }
    s->c = *b;
    g_free (v);
  } else {
    s->c.delay_ms = 50;
    s->c.queue_ms = 300;
    s->c.duration_s = 60;
  }
  s->c.id = s->id;
  s->c.title = keep (s, g_key_file_get_string (kf, g, "title", NULL));
  if (!s->c.title)
    s->c.title = s->id;
  if ((v = g_key_file_get_string (kf, g, "notes", NULL)))
    s->c.notes = keep (s, v);
  if ((v = g_key_file_get_string (kf, g, "capacity", NULL)))
    s->c.schedule = keep (s, g_strdup_printf ("%s@0", g_strstrip (v))),
        g_free (v);
  if ((v = g_key_file_get_string (kf, g, "schedule", NULL)))
    s->c.schedule = keep (s, v);
  if ((v = g_key_file_get_string (kf, g, "reverse_schedule", NULL)))
    s->c.reverse_schedule = keep (s, v);
  if ((v = g_key_file_get_string (kf, g, "trace", NULL))) {
    gboolean ok;
    g_strstrip (v);
    s->trace_no_fades = !g_strcmp0 (v, "cellular-nofades");
    ok = s->trace_no_fades || !g_strcmp0 (v, "cellular");
    if (!ok)
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s] trace: 'cellular' or 'cellular-nofades', not '%s'", g, v);
    g_free (v);
    if (!ok)
      goto fail;
    s->trace_cellular = TRUE;
  }
  if ((v = g_key_file_get_string (kf, g, "topology", NULL)))
    s->c.topology = keep (s, g_strstrip (v));
  if (!get_num (kf, g, "delay_ms", &s->c.delay_ms, error) ||
      !get_num (kf, g, "queue_ms", &s->c.queue_ms, error) ||
      !get_num (kf, g, "reverse_queue_ms", &s->c.reverse_queue_ms, error) ||
      !get_num (kf, g, "duration_s", &s->c.duration_s, error))
    goto fail;
#define UINT_KEY(key, field) \
  d = -1; \
  if (!get_num (kf, g, key, &d, error)) \
    goto fail; \
  if (d >= 0) \
    s->c.field = (guint) d;
  UINT_KEY ("keyframe_interval", keyframe_interval);
  UINT_KEY ("iframe_bytes", iframe_bytes);
  UINT_KEY ("min_kbps", min_kbps);
  UINT_KEY ("max_kbps", max_kbps);
  UINT_KEY ("start_kbps", start_kbps);
#undef UINT_KEY
  s->c.start_kbps_set = g_key_file_has_key (kf, g, "start_kbps", NULL);
  if (!get_loss (kf, g, "loss", &s->c.loss, error) ||
      !get_loss (kf, g, "reverse_loss", &s->c.reverse_loss, error))
    goto fail;

  {
    const gchar *fk[] = { "media", "reverse_media", "tcp", "reverse_tcp",
      "short_tcp"
    };
    for (guint i = 0; i < G_N_ELEMENTS (fk); i++)
      flows_given |= g_key_file_has_key (kf, g, fk[i], NULL);
  }
  if (flows_given || !g_key_file_has_key (kf, g, "base", NULL)) {
    s->c.n_flows = 0;
    for (guint i = 0; i < 4; i++) {
      const gchar *key = (const gchar *[]) {
      "media", "reverse_media", "tcp", "reverse_tcp"}[i];
      gchar *spec = g_key_file_get_string (kf, g, key, NULL);
      gboolean ok = TRUE;
      if (!spec && i == 0)
        spec = g_strdup ("0");
      if (spec)
        ok = add_flows (s, spec, i < 2 ? EVAL_FLOW_MEDIA : EVAL_FLOW_TCP_LONG,
            i % 2 == 1, error);
      g_free (spec);
      if (!ok)
        goto fail;
    }
    if ((v = g_key_file_get_string (kf, g, "short_tcp", NULL))) {
      gboolean ok = add_short_tcp (s, g_strstrip (v), error);
      g_free (v);
      if (!ok)
        goto fail;
    }
  }
  if (eval_case_n_media (&s->c) == 0) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s]: no media flow", g);
    goto fail;
  }
  if (!s->trace_cellular) {
    RtpccCapacity *cap;
    if (!s->c.schedule) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s]: needs capacity, schedule, trace or base", g);
      goto fail;
    }
    cap = rtpcc_capacity_new_schedule (s->c.schedule, error);
    if (!cap)
      goto fail;
    rtpcc_capacity_unref (cap);
  }
  if (s->c.duration_s <= 0) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s]: duration_s must be > 0", g);
    goto fail;
  }
  if ((v = g_key_file_get_string (kf, g, "aims", NULL))) {
    gboolean ok = parse_aims (s, v, error);
    g_free (v);
    if (!ok)
      goto fail;
  }
  g_strfreev (keys);
  return s;

fail:
  g_strfreev (keys);
  scenario_free (s);
  return NULL;
}

EvalMatrix *
eval_matrix_load (const gchar * path, GError ** error)
{
  GKeyFile *kf = g_key_file_new ();
  EvalMatrix *m = NULL;
  gchar **groups = NULL, *v;

  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, error))
    goto out;
  m = g_new0 (EvalMatrix, 1);
  m->path = g_strdup (path);
  m->scenarios = g_ptr_array_new_with_free_func ((GDestroyNotify)
      scenario_free);
  m->seeds = 4;
  m->heldout_base = 10000;
  if ((v = g_key_file_get_string (kf, "matrix", "seeds", NULL))) {
    m->seeds = (guint) g_ascii_strtoull (v, NULL, 10);
    g_free (v);
  }
  if ((v = g_key_file_get_string (kf, "matrix", "heldout_base", NULL))) {
    m->heldout_base = g_ascii_strtoull (v, NULL, 10);
    g_free (v);
  }
  if (m->seeds == 0 || m->seeds > m->heldout_base) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[matrix]: seeds must be in 1..heldout_base");
    goto fail;
  }
  v = g_key_file_get_string (kf, "matrix", "delay_based", NULL);
  m->delay_based = g_strsplit (v ? v : "", ",", -1);
  for (guint i = 0; m->delay_based[i]; i++)
    g_strstrip (m->delay_based[i]);
  g_free (v);

  groups = g_key_file_get_groups (kf, NULL);
  for (guint i = 0; groups[i]; i++) {
    EvalScenario *s;
    if (!g_strcmp0 (groups[i], "matrix"))
      continue;
    if (eval_matrix_find (m, groups[i])) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s] twice", groups[i]);
      goto fail;
    }
    s = load_scenario (kf, groups[i], error);
    if (!s)
      goto fail;
    g_ptr_array_add (m->scenarios, s);
  }
  goto out;

fail:
  eval_matrix_free (m);
  m = NULL;
out:
  g_strfreev (groups);
  g_key_file_free (kf);
  return m;
}

void
eval_matrix_free (EvalMatrix * m)
{
  if (!m)
    return;
  g_ptr_array_free (m->scenarios, TRUE);
  g_strfreev (m->delay_based);
  g_free (m->path);
  g_free (m);
}

const EvalScenario *
eval_matrix_find (const EvalMatrix * m, const gchar * id)
{
  for (guint i = 0; i < m->scenarios->len; i++) {
    const EvalScenario *s = m->scenarios->pdata[i];
    if (!g_strcmp0 (s->id, id))
      return s;
  }
  return NULL;
}

guint64
eval_matrix_seed (const EvalMatrix * m, EvalSet set, guint i)
{
  return (set == EVAL_SET_HELDOUT ? m->heldout_base : 0) + i + 1;
}

EvalSet
eval_matrix_seed_set (const EvalMatrix * m, guint64 seed)
{
  return seed > m->heldout_base ? EVAL_SET_HELDOUT : EVAL_SET_TUNING;
}

gboolean
eval_matrix_aim_applies (const EvalMatrix * m, const EvalAim * aim,
    const gchar * controller)
{
  gboolean delay = g_strv_contains ((const gchar * const *) m->delay_based,
      controller);

  if (!g_strcmp0 (aim->cls, "all"))
    return TRUE;
  if (!g_strcmp0 (aim->cls, "delay"))
    return delay;
  if (!g_strcmp0 (aim->cls, "loss"))
    return !delay;
  return !g_strcmp0 (aim->cls, controller);
}

EvalCase *
eval_matrix_case (const EvalScenario * s, guint64 seed,
    const gchar * trace_dir, GError ** error)
{
  EvalCase *c = g_new (EvalCase, 1);

  *c = s->c;
  c->trace = c->trace_path = NULL;
  if (s->trace_cellular) {
    SimTraceConfig tc;
    SimTrace *t;

    sim_trace_config_init (&tc);
    tc.seed = seed;
    tc.duration_s = s->c.duration_s;
    if (s->trace_no_fades)
      tc.fade_gap_s = 0;
    t = sim_trace_generate (&tc);
    if (!t) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
          "[%s]: bad trace duration", s->id);
      g_free (c);
      return NULL;
    }
    c->trace = g_string_free (t->text, FALSE);
    t->text = g_string_new (NULL);
    sim_trace_free (t);
    if (trace_dir) {
      gchar *name = g_strdup_printf ("%s-%" G_GUINT64_FORMAT "-%gs.trace",
          s->trace_no_fades ? "cellular-nofades" : "cellular", seed,
          s->c.duration_s);
      gchar *path = g_build_filename (trace_dir, name, NULL);
      g_free (name);
      if (g_mkdir_with_parents (trace_dir, 0755) != 0 ||
          !g_file_set_contents (path, c->trace, -1, error)) {
        if (error && !*error)
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
              "cannot create %s", trace_dir);
        g_free (path);
        eval_matrix_case_free (c);
        return NULL;
      }
      c->trace_path = path;
    }
  }
  return c;
}

void
eval_matrix_case_free (EvalCase * c)
{
  if (!c)
    return;
  g_free ((gchar *) c->trace);
  g_free ((gchar *) c->trace_path);
  g_free (c);
}

/* ------------------------------------------------------------------------ */
/* Metrics                                                                  */

gboolean
eval_matrix_metric_known (const gchar * name)
{
  for (guint i = 0; i < EVAL_MATRIX_N_METRICS; i++)
    if (!g_strcmp0 (eval_matrix_metric_names[i], name))
      return TRUE;
  return FALSE;
}

gdouble
eval_matrix_metric (const EvalMatrixMetrics * m, const gchar * name)
{
  const gdouble *v = (const gdouble *) m;

  G_STATIC_ASSERT (sizeof (EvalMatrixMetrics) ==
      EVAL_MATRIX_N_METRICS * sizeof (gdouble));
  for (guint i = 0; i < EVAL_MATRIX_N_METRICS; i++)
    if (!g_strcmp0 (eval_matrix_metric_names[i], name))
      return v[i];
  return NAN;
}

gboolean
eval_matrix_aim_met (const EvalAim * aim, gdouble v)
{
  if (isnan (v))
    return FALSE;
  return aim->op == EVAL_AIM_GE ? v >= aim->value : v <= aim->value;
}

/* Sum of the forward media flows' column (send or receive) per row, the
 * forward capacity per row, and how many forward media flows are active. */
typedef struct
{
  guint n;
  gdouble *t, *send, *recv, *cap;
  guint *active;
} Fwd;

static void
fwd_rows (const EvalResult * r, Fwd * f)
{
  guint n = 0;

  for (guint i = 0; i < r->n_flows; i++)
    if (r->flows[i].kind == EVAL_FLOW_MEDIA && !r->flows[i].reverse)
      n = MAX (n, r->flows[i].rows->len);
  f->n = n;
  f->t = g_new0 (gdouble, MAX (n, 1));
  f->send = g_new0 (gdouble, MAX (n, 1));
  f->recv = g_new0 (gdouble, MAX (n, 1));
  f->cap = g_new0 (gdouble, MAX (n, 1));
  f->active = g_new0 (guint, MAX (n, 1));
  for (guint i = 0; i < r->n_flows; i++) {
    const EvalFlowResult *fr = &r->flows[i];
    if (fr->kind != EVAL_FLOW_MEDIA || fr->reverse)
      continue;
    for (guint k = 0; k < fr->rows->len; k++) {
      const SimRtpccRow *row = &g_array_index (fr->rows, SimRtpccRow, k);
      gdouble t = RTPCC_TIME_AS_SEC (row->time);
      f->t[k] = t;
      f->cap[k] = row->capacity_kbps;
      if (t + EPS >= fr->start_s && t < fr->stop_s - EPS) {
        f->send[k] += isfinite (row->send_kbps) ? row->send_kbps : 0;
        f->recv[k] += isfinite (row->recv_kbps) ? row->recv_kbps : 0;
        f->active[k]++;
      }
    }
  }
}

static void
fwd_clear (Fwd * f)
{
  g_free (f->t);
  g_free (f->send);
  g_free (f->recv);
  g_free (f->cap);
  g_free (f->active);
}

static gdouble
row_mean (const gdouble * x, guint k, guint n)
{
  gdouble s = 0;
  guint m = 0;

  for (guint j = k; j < n && j < k + MEAN_ROWS; j++, m++)
    s += x[j];
  return m ? s / m : NAN;
}

/* reference rate of the active forward media at row k: what they may use
 * together */
static gdouble
ref_at (const EvalResult * r, const Fwd * f, guint k)
{
  guint n = MAX (f->active[k], 1);
  return MIN (n * eval_case_max_bps (r->c) / 1000.0, f->cap[k]);
}

static gboolean
forward_tcp (const EvalResult * r)
{
  for (guint i = 0; i < r->n_flows; i++)
    if (r->flows[i].kind != EVAL_FLOW_MEDIA && !r->flows[i].reverse)
      return TRUE;
  return FALSE;
}

/* The time of a schedule entry "kbps@s" (0 without one). */
static gdouble
entry_time (const gchar * entry)
{
  const gchar *at = strchr (entry, '@');
  return at ? g_ascii_strtod (at + 1, NULL) : 0;
}

/* Outage ends: schedule changes from 0 to a positive rate. */
static void
outages (const EvalResult * r, const Fwd * f, EvalMatrixMetrics * out)
{
  const EvalCase *c = r->c;
  gchar **parts;
  gdouble prev = -1;

  out->recovery_s = out->util_after = NAN;
  if (c->trace || !c->schedule)
    return;
  parts = g_strsplit (c->schedule, ",", -1);
  for (guint i = 0; parts[i]; i++) {
    gdouble kbps = g_ascii_strtod (parts[i], NULL);
    gdouble at = entry_time (parts[i]);
    if (prev == 0 && kbps > 0) {
      guint k0 = (guint) llround (at / EVAL_INTERVAL_S), ka;
      gdouble next = parts[i + 1] ? entry_time (parts[i + 1]) :
          c->duration_s;
      guint kend = MIN ((guint) llround (next / EVAL_INTERVAL_S), f->n);
      gdouble rec = INFINITY, rs = 0, cs = 0;

      for (guint k = k0; k + MEAN_ROWS <= kend; k++)
        if (row_mean (f->recv, k, kend) >= RECOVERY_SHARE * row_mean (f->cap,
                k, kend)) {
          rec = f->t[k] - at;
          break;
        }
      ka = MIN (kend, k0 + (guint) llround (AFTER_S / EVAL_INTERVAL_S));
      for (guint k = k0; k < ka; k++) {
        rs += f->recv[k];
        cs += f->cap[k];
      }
      out->recovery_s = isnan (out->recovery_s) ? rec :
          MAX (out->recovery_s, rec);
      if (cs > 0)
        out->util_after = isnan (out->util_after) ? rs / cs :
            MIN (out->util_after, rs / cs);
    }
    prev = kbps;
  }
  g_strfreev (parts);
}

/* Swings: p5 and p95 of the 1 s mean send rate over the reference, rows in
 * the steady windows without TCP. */
static void
swings (const EvalResult * r, const Fwd * f, EvalMatrixMetrics * out)
{
  GArray *ratio = g_array_new (FALSE, FALSE, sizeof (gdouble));

  for (guint w = 0; w < r->windows->len; w++) {
    const EvalWindow *win = &g_array_index (r->windows, EvalWindow, w);
    if (win->reverse || win->tcp)
      continue;
    for (guint k = 0; k + MEAN_ROWS <= f->n; k++) {
      gdouble ref, x;
      if (f->t[k] < win->t0 - EPS ||
          f->t[k] + MEAN_ROWS * EVAL_INTERVAL_S > win->t1 + EPS)
        continue;
      ref = 0;
      for (guint j = k; j < k + MEAN_ROWS; j++)
        ref += ref_at (r, f, j) / MEAN_ROWS;
      if (!(ref > 0))
        continue;
      x = row_mean (f->send, k, f->n) / ref;
      g_array_append_val (ratio, x);
    }
  }
  out->swing_lo = eval_percentile ((gdouble *) ratio->data, ratio->len, 5);
  out->swing_hi = eval_percentile ((gdouble *) ratio->data, ratio->len, 95);
  g_array_free (ratio, TRUE);
}

/* Reach: from the first forward media start to the first row whose 1 s
 * mean send rate is REACH_SHARE of the reference (without TCP). */
static void
reach (const EvalResult * r, const Fwd * f, EvalMatrixMetrics * out)
{
  gdouble start = G_MAXDOUBLE;

  out->reach_s = NAN;
  if (forward_tcp (r))
    return;
  for (guint i = 0; i < r->n_flows; i++)
    if (r->flows[i].kind == EVAL_FLOW_MEDIA && !r->flows[i].reverse)
      start = MIN (start, r->flows[i].start_s);
  out->reach_s = INFINITY;
  for (guint k = 0; k + MEAN_ROWS <= f->n; k++) {
    gdouble ref = 0;
    if (f->t[k] < start - EPS)
      continue;
    for (guint j = k; j < k + MEAN_ROWS; j++)
      ref += ref_at (r, f, j) / MEAN_ROWS;
    if (ref > 0 && row_mean (f->send, k, f->n) >= REACH_SHARE * ref) {
      out->reach_s = f->t[k] - start;
      return;
    }
  }
}

void
eval_matrix_metrics (const EvalResult * r, EvalMatrixMetrics * out)
{
  const EvalSummary *s = &r->summary;
  Fwd f;

  out->util = s->util;
  out->media_util = s->media_util;
  out->qdelay_p95_ms = s->qdelay_p95_ms;
  out->qdelay_mean_ms = s->qdelay_mean_ms;
  out->pkt_p95_ms = s->pkt_qdelay_p95_ms;
  out->loss_pct = s->loss_pct;
  out->jain_min = s->jain_min;
  out->share = s->media_share;
  out->conv_max_s = s->conv_max_s;
  out->fec_kbps = s->fec_kbps;
  out->ffre = s->ffre;
  out->frcc = s->frcc;
  out->competitor_entries = s->competitor_entries;
  fwd_rows (r, &f);
  outages (r, &f, out);
  swings (r, &f, out);
  reach (r, &f, out);
  fwd_clear (&f);
}

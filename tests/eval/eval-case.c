/* RFC 8867 cases as data (see eval-case.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "eval-case.h"

#define MEDIA(start, stop) { .kind = EVAL_FLOW_MEDIA, .start_s = start, \
      .stop_s = stop, .pause_s = -1, .resume_s = -1 }

static const EvalCase cases[] = {
  {
        .id = "5.1",
        .title = "Variable available capacity with a single flow",
        .schedule = "1000@0,2500@40,600@60,1000@80",
        .delay_ms = 50,.queue_ms = 300,.duration_s = 100,
        .n_flows = 1,
        .flows = {MEDIA (0, -1)},
      },
  {
        .id = "5.1-100ms",
        .title = "Variable available capacity, single flow, 100 ms one way",
        .schedule = "1000@0,2500@40,600@60,1000@80",
        .delay_ms = 100,.queue_ms = 300,.duration_s = 100,
        .n_flows = 1,
        .flows = {MEDIA (0, -1)},
        .notes = "RFC 8867 5.1 variant with 100 ms propagation delay",
      },
  {
        .id = "5.2",
        .title = "Variable available capacity with multiple flows",
        .schedule = "4000@0,2000@25,3500@50,1000@75,2000@100",
        .delay_ms = 50,.queue_ms = 300,.duration_s = 125,
        .n_flows = 2,
        .flows = {MEDIA (0, -1), MEDIA (0, -1)},
      },
  {
        .id = "5.3",
        .title = "Congested feedback link with bi-directional media flows",
        .schedule = "2000@0,1000@20,500@40,2000@60",
        .reverse_schedule = "2000@0,800@35,2000@70",
        .delay_ms = 50,.queue_ms = 300,.reverse_queue_ms = 300,
        .duration_s = 100,
        .n_flows = 2,
        .flows = {MEDIA (0, -1), {.kind = EVAL_FLOW_MEDIA,.reverse = TRUE,
              .start_s = 0,.stop_s = -1,.pause_s = -1,.resume_s = -1}},
      },
  {
        .id = "5.4",
        .title = "Competing media flows with the same congestion control",
        .schedule = "3500@0",
        .delay_ms = 50,.queue_ms = 300,.duration_s = 120,
        .n_flows = 3,
        .flows = {MEDIA (0, 119), MEDIA (20, 119), MEDIA (40, 119)},
      },
  {
        .id = "5.5",
        .title = "Round trip time fairness",
        .schedule = "4000@0",
        .delay_ms = 10,.queue_ms = 300,.duration_s = 300,
        .n_flows = 5,
        .flows = {
              {.kind = EVAL_FLOW_MEDIA,.start_s = 0,.stop_s = -1,
                  .extra_delay_ms = 0,.pause_s = -1,.resume_s = -1},
              {.kind = EVAL_FLOW_MEDIA,.start_s = 10,.stop_s = -1,
                  .extra_delay_ms = 15,.pause_s = -1,.resume_s = -1},
              {.kind = EVAL_FLOW_MEDIA,.start_s = 20,.stop_s = -1,
                  .extra_delay_ms = 40,.pause_s = -1,.resume_s = -1},
              {.kind = EVAL_FLOW_MEDIA,.start_s = 30,.stop_s = -1,
                  .extra_delay_ms = 90,.pause_s = -1,.resume_s = -1},
              {.kind = EVAL_FLOW_MEDIA,.start_s = 40,.stop_s = -1,
                  .extra_delay_ms = 140,.pause_s = -1,.resume_s = -1},
            },
        .notes = "one-way delays 10/25/50/100/150 ms; capacity 4 Mbit/s "
        "(ns3-rmcat's default)",
      },
  {
        .id = "5.6",
        .title = "Media flow competing with a long TCP flow",
        .schedule = "2000@0",
        .delay_ms = 50,.queue_ms = 300,.duration_s = 120,
        .n_flows = 2,
        .flows = {MEDIA (5, -1), {.kind = EVAL_FLOW_TCP_LONG,
              .tcp_cc = "newreno",.start_s = 0,.stop_s = -1,
              .pause_s = -1,.resume_s = -1}},
      },
  {
        .id = "5.6-1000ms",
        .title = "Media flow competing with a long TCP flow, 1000 ms queue",
        .schedule = "2000@0",
        .delay_ms = 50,.queue_ms = 1000,.duration_s = 120,
        .n_flows = 2,
        .flows = {MEDIA (5, -1), {.kind = EVAL_FLOW_TCP_LONG,
              .tcp_cc = "newreno",.start_s = 0,.stop_s = -1,
              .pause_s = -1,.resume_s = -1}},
      },
  {
        .id = "5.6-cubic",
        .title = "Media flow competing with a long TCP CUBIC flow",
        .schedule = "2000@0",
        .delay_ms = 50,.queue_ms = 300,.duration_s = 120,
        .n_flows = 2,
        .flows = {MEDIA (5, -1), {.kind = EVAL_FLOW_TCP_LONG,
              .tcp_cc = "cubic",.start_s = 0,.stop_s = -1,
              .pause_s = -1,.resume_s = -1}},
        .notes = "5.6 with CUBIC (Linux's default, what the real-time runs "
        "compete with) instead of ns3-rmcat's NewReno",
      },
  {
        .id = "5.7",
        .title = "Media flows competing with short TCP flows",
        .schedule = "2000@0",
        .delay_ms = 50,.queue_ms = 300,.duration_s = 300,
        .n_flows = 3,
        .flows = {MEDIA (5, -1), MEDIA (5, -1), {.kind = EVAL_FLOW_TCP_SHORT,
              .tcp_cc = "newreno",.start_s = 0,.stop_s = -1,.count = 10,
              .count_on = 2,.file_kb_min = 30,.file_kb_max = 50,
              .off_mean_s = 10,.pause_s = -1,.resume_s = -1}},
      },
  {
        .id = "5.8",
        .title = "Media pause and resume",
        .schedule = "3500@0",
        .delay_ms = 50,.queue_ms = 300,.duration_s = 120,
        .n_flows = 3,
        .flows = {{.kind = EVAL_FLOW_MEDIA,.start_s = 0,.stop_s = -1,
                .pause_s = 40,.resume_s = 60}, MEDIA (0, -1), MEDIA (0, -1)},
      },
};

guint
eval_case_count (void)
{
  return G_N_ELEMENTS (cases);
}

const EvalCase *
eval_case_get (guint i)
{
  return i < G_N_ELEMENTS (cases) ? &cases[i] : NULL;
}

const EvalCase *
eval_case_find (const gchar * id)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (!g_strcmp0 (cases[i].id, id))
      return &cases[i];
  return NULL;
}

guint
eval_case_n_media (const EvalCase * c)
{
  guint n = 0;

  for (guint i = 0; i < c->n_flows; i++)
    n += c->flows[i].kind == EVAL_FLOW_MEDIA;
  return n;
}

guint64
eval_case_min_bps (const EvalCase * c)
{
  return c->min_kbps ? (guint64) c->min_kbps * 1000 : EVAL_MIN_BPS;
}

guint64
eval_case_max_bps (const EvalCase * c)
{
  return c->max_kbps ? (guint64) c->max_kbps * 1000 : EVAL_MAX_BPS;
}

guint64
eval_case_start_bps (const EvalCase * c, const gchar * controller)
{
  if (c->start_kbps_set)
    return (guint64) c->start_kbps * 1000;
  /* "rr" models linphone, which starts at its nominal rate and only
   * probes up after a decrease: start at R_max as test-sim-cc does */
  if (!g_strcmp0 (controller, "rr"))
    return 0;
  return c->start_kbps ? (guint64) c->start_kbps * 1000 : EVAL_START_BPS;
}

gdouble
eval_flow_stop (const EvalCase * c, const EvalFlow * f)
{
  return f->stop_s < 0 ? c->duration_s : f->stop_s;
}

static void
schedule_json (const gchar * spec, GString * out)
{
  gchar **parts;

  if (!spec) {
    g_string_append (out, "null");
    return;
  }
  parts = g_strsplit (spec, ",", -1);
  g_string_append_c (out, '[');
  for (guint i = 0; parts[i]; i++) {
    gchar **kv = g_strsplit (parts[i], "@", 2);
    g_string_append_printf (out, "%s[%s, %s]", i ? ", " : "", kv[1], kv[0]);
    g_strfreev (kv);
  }
  g_string_append_c (out, ']');
  g_strfreev (parts);
}

static void
loss_json (const RtpccLossParams * l, GString * out)
{
  gchar a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  gchar k[G_ASCII_DTOSTR_BUF_SIZE], h[G_ASCII_DTOSTR_BUF_SIZE];

  if (l->model == RTPCC_LOSS_GILBERT_ELLIOTT)
    g_string_append_printf (out, "{\"model\": \"gilbert-elliott\", "
        "\"p\": %s, \"r\": %s, \"k\": %s, \"h\": %s}",
        g_ascii_dtostr (a, sizeof a, l->ge_p),
        g_ascii_dtostr (b, sizeof b, l->ge_r),
        g_ascii_dtostr (k, sizeof k, l->ge_k),
        g_ascii_dtostr (h, sizeof h, l->ge_h));
  else if (l->loss > 0)
    g_string_append_printf (out, "{\"model\": \"bernoulli\", \"p\": %s}",
        g_ascii_dtostr (a, sizeof a, l->loss));
  else
    g_string_append (out, "null");
}

void
eval_json_string (const gchar * s, GString * out)
{
  if (!s) {
    g_string_append (out, "null");
    return;
  }
  g_string_append_c (out, '"');
  for (const gchar * p = s; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c (out, '\\');
    if ((guchar) * p < 0x20)
      g_string_append_printf (out, "\\u%04x", *p);
    else
      g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
}

void
eval_case_describe (const EvalCase * c, GString * out)
{
  gboolean first = TRUE;

  g_string_append (out, "{\n  \"id\": ");
  eval_json_string (c->id, out);
  g_string_append (out, ",\n  \"title\": ");
  eval_json_string (c->title, out);
  g_string_append (out, ",\n");
  g_string_append_printf (out, "  \"duration_s\": %g,\n  \"delay_ms\": %g,\n"
      "  \"queue_ms\": %g,\n  \"reverse_queue_ms\": %g,\n", c->duration_s,
      c->delay_ms, c->queue_ms, c->reverse_queue_ms);
  g_string_append (out, "  \"schedule\": ");
  schedule_json (c->schedule, out);
  g_string_append (out, ",\n  \"reverse_schedule\": ");
  schedule_json (c->reverse_schedule, out);
  g_string_append (out, ",\n  \"trace_file\": ");
  eval_json_string (c->trace ? c->trace_path : NULL, out);
  g_string_append (out, ",\n  \"loss\": ");
  loss_json (&c->loss, out);
  g_string_append (out, ",\n  \"reverse_loss\": ");
  loss_json (&c->reverse_loss, out);
  g_string_append (out, ",\n  \"topology\": ");
  eval_json_string (c->topology ? c->topology : "router", out);
  g_string_append_printf (out, ",\n  \"codec\": {\"keyframe_interval\": "
      "%u, \"iframe_bytes\": %u}", c->keyframe_interval, c->iframe_bytes);
  g_string_append_printf (out, ",\n  \"media\": {\"min_kbps\": %u, "
      "\"start_kbps\": %u, \"max_kbps\": %u},\n",
      (guint) (eval_case_min_bps (c) / 1000),
      c->start_kbps_set || c->start_kbps ? c->start_kbps : EVAL_START_BPS /
      1000, (guint) (eval_case_max_bps (c) / 1000));
  g_string_append (out, "  \"flows\": [");
  for (guint i = 0; i < c->n_flows; i++) {
    const EvalFlow *f = &c->flows[i];
    if (f->kind != EVAL_FLOW_MEDIA)
      continue;
    g_string_append_printf (out, "%s\n    {\"id\": %u, \"start\": %g, "
        "\"stop\": %g, \"dir\": \"%s\", \"delay_ms\": %g", first ? "" : ",",
        i, f->start_s, eval_flow_stop (c, f), f->reverse ? "rev" : "fwd",
        c->delay_ms + f->extra_delay_ms);
    if (f->pause_s >= 0)
      g_string_append_printf (out, ", \"pause\": [%g, %g]", f->pause_s,
          f->resume_s);
    g_string_append_c (out, '}');
    first = FALSE;
  }
  g_string_append (out, "\n  ],\n  \"tcp\": [");
  first = TRUE;
  for (guint i = 0; i < c->n_flows; i++) {
    const EvalFlow *f = &c->flows[i];
    if (f->kind == EVAL_FLOW_TCP_LONG)
      g_string_append_printf (out, "%s\n    {\"id\": %u, \"kind\": \"long\", "
          "\"cc\": \"%s\", \"start\": %g, \"stop\": %g, \"dir\": \"%s\"}",
          first ? "" : ",", i, f->tcp_cc, f->start_s, eval_flow_stop (c, f),
          f->reverse ? "rev" : "fwd");
    else if (f->kind == EVAL_FLOW_TCP_SHORT)
      g_string_append_printf (out, "%s\n    {\"id\": %u, \"kind\": \"short\", "
          "\"cc\": \"%s\", \"start\": %g, \"stop\": %g, \"count\": %u, "
          "\"on\": %u, \"size_kb\": [%u, %u], \"off_mean\": %g}",
          first ? "" : ",", i, f->tcp_cc, f->start_s, eval_flow_stop (c, f),
          f->count, f->count_on, f->file_kb_min, f->file_kb_max,
          f->off_mean_s);
    else
      continue;
    first = FALSE;
  }
  g_string_append (out, "\n  ],\n  \"notes\": ");
  eval_json_string (c->notes ? c->notes : "", out);
  g_string_append (out, "\n}\n");
}

/* RFC 8868 scoring of a case run from its 200 ms rows, and its output
 * (per-flow CSV, JSON summary). tests/eval/rfc8868.py mirrors eval_score
 * line by line over the CSVs: change both together.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "eval-run.h"
#include "eval-metrics.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#define EPS 1e-9

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

static void
add_schedule_times (const gchar * spec, GArray * ev)
{
  gchar **parts;

  if (!spec)
    return;
  parts = g_strsplit (spec, ",", -1);
  for (guint i = 0; parts[i]; i++) {
    const gchar *at = strchr (parts[i], '@');
    if (at) {
      gdouble t = g_ascii_strtod (at + 1, NULL);
      g_array_append_val (ev, t);
    }
  }
  g_strfreev (parts);
}

/* Every event time of the case, sorted, unique, 0 and the end included. */
static GArray *
case_events (const EvalCase * c)
{
  GArray *ev = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gdouble zero = 0.0, end = c->duration_s;

  g_array_append_val (ev, zero);
  g_array_append_val (ev, end);
  add_schedule_times (c->schedule, ev);
  add_schedule_times (c->reverse_schedule, ev);
  for (guint i = 0; i < c->n_flows; i++) {
    const EvalFlow *f = &c->flows[i];
    gdouble stop = eval_flow_stop (c, f);
    g_array_append_val (ev, f->start_s);
    if (f->kind != EVAL_FLOW_TCP_SHORT)
      g_array_append_val (ev, stop);
    if (f->pause_s >= 0) {
      g_array_append_val (ev, f->pause_s);
      g_array_append_val (ev, f->resume_s);
    }
  }
  qsort (ev->data, ev->len, sizeof (gdouble), cmp_double);
  for (guint i = 0; i < ev->len; i++) {
    gdouble t = g_array_index (ev, gdouble, i);
    if (t < -EPS || t > c->duration_s + EPS)
      continue;
    if (out->len && fabs (g_array_index (out, gdouble, out->len - 1) - t) <
        EPS)
      continue;
    g_array_append_val (out, t);
  }
  g_array_free (ev, TRUE);
  return out;
}

static gboolean
flow_active (const EvalFlowResult * f, gdouble a, gdouble b)
{
  if (f->start_s > a + EPS || f->stop_s < b - EPS)
    return FALSE;
  if (f->pause_s >= 0 && f->pause_s < b - EPS && f->resume_s > a + EPS)
    return FALSE;
  return TRUE;
}

/* Column of a flow's rows as doubles. */
typedef enum
{
  COL_T, COL_CAP, COL_TARGET, COL_SEND, COL_RECV, COL_Q, COL_LOSS, COL_RTT,
} Col;

static gdouble *
column (const EvalFlowResult * f, Col col)
{
  guint n = f->rows->len;
  gdouble *v = g_new (gdouble, MAX (n, 1));

  for (guint k = 0; k < n; k++) {
    const SimRtpccRow *r = &g_array_index (f->rows, SimRtpccRow, k);
    switch (col) {
      case COL_T:
        v[k] = RTPCC_TIME_AS_SEC (r->time);
        break;
      case COL_CAP:
        v[k] = r->capacity_kbps;
        break;
      case COL_TARGET:
        v[k] = r->target_kbps;
        break;
      case COL_SEND:
        v[k] = r->send_kbps;
        break;
      case COL_RECV:
        v[k] = r->recv_kbps;
        break;
      case COL_Q:
        v[k] = r->queue_delay_ms;
        break;
      case COL_LOSS:
        v[k] = r->loss_pct;
        break;
      case COL_RTT:
        v[k] = r->rtt_ms;
        break;
    }
  }
  return v;
}

/* Rows of @f in [t0, t1), minus a media flow's pause (+ settle). */
static gboolean
row_in (const EvalFlowResult * f, gdouble t, gdouble t0, gdouble t1)
{
  if (t < t0 - EPS || t >= t1 - EPS)
    return FALSE;
  if (f->kind == EVAL_FLOW_MEDIA && f->pause_s >= 0 && t >= f->pause_s - EPS
      && t < f->resume_s + EVAL_SETTLE_S - EPS)
    return FALSE;
  return TRUE;
}

static gdouble
window_mean (const EvalFlowResult * f, Col col, gdouble t0, gdouble t1)
{
  gdouble *t = column (f, COL_T), *x = column (f, col), s = 0.0;
  guint m = 0;

  for (guint k = 0; k < f->rows->len; k++)
    if (row_in (f, t[k], t0, t1) && isfinite (x[k])) {
      s += x[k];
      m++;
    }
  g_free (t);
  g_free (x);
  return m ? s / m : NAN;
}

static void
flow_stats (EvalFlowResult * f)
{
  guint n = f->rows->len, m = 0;
  gdouble *t = column (f, COL_T), *send = column (f, COL_SEND);
  gdouble *q = column (f, COL_Q), *loss = column (f, COL_LOSS);
  gdouble *sel = g_new (gdouble, MAX (n, 1));
  gdouble t0 = f->start_s + EVAL_SETTLE_S, t1 = f->stop_s;
  gdouble ls = 0.0, ss = 0.0;

  f->send_kbps = window_mean (f, COL_SEND, t0, t1);
  f->recv_kbps = window_mean (f, COL_RECV, t0, t1);
  f->target_kbps = window_mean (f, COL_TARGET, t0, t1);
  f->rtt_ms = window_mean (f, COL_RTT, t0, t1);
  for (guint k = 0; k < n; k++) {
    if (!row_in (f, t[k], t0, t1))
      continue;
    sel[m++] = q[k];
    ls += loss[k] * send[k];
    ss += send[k];
  }
  f->loss_pct = ss > 0 ? ls / ss : 0.0;
  f->qdelay_mean_ms = eval_mean (sel, m);
  f->qdelay_p50_ms = eval_percentile (sel, m, 50);
  f->qdelay_p95_ms = eval_percentile (sel, m, 95);
  f->qdelay_max_ms = eval_percentile (sel, m, 100);
  g_free (t);
  g_free (send);
  g_free (q);
  g_free (loss);
  g_free (sel);
}

/* A forward TCP flow in [a, b) (TCP on the feedback path shares no
 * bottleneck with forward media). */
static gboolean
tcp_active (const EvalResult * r, gdouble a, gdouble b)
{
  for (guint i = 0; i < r->n_flows; i++) {
    const EvalFlowResult *f = &r->flows[i];
    if (f->kind != EVAL_FLOW_MEDIA && !f->reverse && f->start_s < b - EPS &&
        f->stop_s > a + EPS)
      return TRUE;
  }
  return FALSE;
}

static gdouble
ref_rate (const EvalCase * c, gdouble cap, guint n)
{
  return MIN (eval_case_max_bps (c) / 1000.0, cap / MAX (n, 1));
}

void
eval_score (EvalResult * r)
{
  const EvalCase *c = r->c;
  GArray *ev = case_events (c);
  EvalSummary *s = &r->summary;
  gdouble wsum = 0.0, usum = 0.0, musum = 0.0, jsum = 0.0, jw = 0.0;
  gdouble csum = 0.0;
  guint cn = 0, nm = 0;
  gboolean have_jain = FALSE;

  for (guint i = 0; i < r->n_flows; i++)
    flow_stats (&r->flows[i]);
  if (r->windows)
    g_array_free (r->windows, TRUE);
  if (r->convergence)
    g_array_free (r->convergence, TRUE);
  r->windows = g_array_new (FALSE, TRUE, sizeof (EvalWindow));
  r->convergence = g_array_new (FALSE, TRUE, sizeof (EvalConvergence));
  memset (s, 0, sizeof (*s));
  s->cv_max = NAN;

  /* steady windows: [event + settle, next event) per direction */
  for (guint e = 0; e + 1 < ev->len; e++) {
    gdouble a = g_array_index (ev, gdouble, e);
    gdouble b = g_array_index (ev, gdouble, e + 1);
    gdouble w0 = a + EVAL_SETTLE_S, w1 = b;

    if (w1 - w0 < EVAL_MIN_WINDOW_S - EPS)
      continue;
    for (gint dir = 0; dir < 2; dir++) {
      EvalWindow w = { 0 };
      gdouble recv[EVAL_MAX_FLOWS], sum = 0.0, tcp = 0.0;
      GArray *q = g_array_new (FALSE, FALSE, sizeof (gdouble));
      gint first = -1;

      w.t0 = w0;
      w.t1 = w1;
      w.reverse = dir == 1;
      for (guint i = 0; i < r->n_flows; i++) {
        const EvalFlowResult *f = &r->flows[i];
        if (f->kind != EVAL_FLOW_MEDIA || f->reverse != (dir == 1) ||
            !flow_active (f, a, b))
          continue;
        if (first < 0)
          first = i;
        recv[w.n_media] = window_mean (f, COL_RECV, w0, w1);
        sum += recv[w.n_media++];
        {
          gdouble *t = column (f, COL_T), *x = column (f, COL_Q);
          for (guint k = 0; k < f->rows->len; k++)
            if (row_in (f, t[k], w0, w1))
              g_array_append_val (q, x[k]);
          g_free (t);
          g_free (x);
        }
      }
      if (first < 0) {
        g_array_free (q, TRUE);
        continue;
      }
      w.capacity_kbps = window_mean (&r->flows[first], COL_CAP, w0, w1);
      /* an outage window has nothing to use */
      if (!(w.capacity_kbps > 0)) {
        g_array_free (q, TRUE);
        continue;
      }
      w.tcp = dir == 0 && tcp_active (r, w0, w1);
      if (w.tcp)
        for (guint i = 0; i < r->n_flows; i++)
          if (r->flows[i].kind != EVAL_FLOW_MEDIA && !r->flows[i].reverse) {
            gdouble m = window_mean (&r->flows[i], COL_RECV, w0, w1);
            tcp += isfinite (m) ? m : 0.0;
          }
      w.util = (sum + tcp) / w.capacity_kbps;
      w.media_util = sum / w.capacity_kbps;
      w.jain = w.n_media >= 2 ? eval_jain (recv, w.n_media) : NAN;
      w.qdelay_p95_ms = eval_percentile ((gdouble *) q->data, q->len, 95);
      w.cv_max = NAN;
      if (!w.tcp) {
        gdouble ref = ref_rate (c, w.capacity_kbps, w.n_media);
        for (guint i = 0; i < r->n_flows; i++) {
          const EvalFlowResult *f = &r->flows[i];
          gdouble *t, *x, cv;
          if (f->kind != EVAL_FLOW_MEDIA || f->reverse != (dir == 1) ||
              !flow_active (f, a, b))
            continue;
          t = column (f, COL_T);
          x = column (f, COL_SEND);
          cv = eval_cv (t, x, f->rows->len, w0, w1);
          if (isfinite (cv))
            w.cv_max = isfinite (w.cv_max) ? MAX (w.cv_max, cv) : cv;
          w.swings += eval_oscillation_swings (t, x, f->rows->len, w0, w1,
              EVAL_OSC_LOW * ref, EVAL_OSC_HIGH * ref, EVAL_OSC_WINDOW_S);
          g_free (t);
          g_free (x);
        }
      }
      g_array_free (q, TRUE);
      g_array_append_val (r->windows, w);

      wsum += w1 - w0;
      usum += w.util * (w1 - w0);
      musum += w.media_util * (w1 - w0);
      if (isfinite (w.jain)) {
        jsum += w.jain * (w1 - w0);
        jw += w1 - w0;
        s->jain_min = have_jain ? MIN (s->jain_min, w.jain) : w.jain;
        have_jain = TRUE;
      }
      s->swings += w.swings;
      if (isfinite (w.cv_max))
        s->cv_max = isfinite (s->cv_max) ? MAX (s->cv_max, w.cv_max) :
            w.cv_max;
    }
  }
  s->util = wsum > 0 ? usum / wsum : NAN;
  s->media_util = wsum > 0 ? musum / wsum : NAN;
  s->jain_mean = jw > 0 ? jsum / jw : NAN;
  if (!have_jain)
    s->jain_min = NAN;

  /* convergence after every event inside each media flow's call */
  for (guint i = 0; i < r->n_flows; i++) {
    const EvalFlowResult *f = &r->flows[i];
    gdouble *t, *x, *cap;
    if (f->kind != EVAL_FLOW_MEDIA)
      continue;
    t = column (f, COL_T);
    x = column (f, COL_SEND);
    cap = column (f, COL_CAP);
    for (guint e = 0; e + 1 < ev->len; e++) {
      gdouble a = g_array_index (ev, gdouble, e);
      gdouble b = g_array_index (ev, gdouble, e + 1);
      EvalConvergence cv;
      guint n = 0, k;
      if (a < f->start_s - EPS || a >= f->stop_s - EPS ||
          b - a < EVAL_MIN_WINDOW_S - EPS || !flow_active (f, a, b) ||
          (!f->reverse && tcp_active (r, a, b)))
        continue;
      for (guint j = 0; j < r->n_flows; j++)
        n += r->flows[j].kind == EVAL_FLOW_MEDIA &&
            r->flows[j].reverse == f->reverse &&
            flow_active (&r->flows[j], a, b);
      k = (guint) llround (a / EVAL_INTERVAL_S);
      if (k >= f->rows->len)
        continue;
      cv.flow = i;
      cv.time = a;
      cv.next = b;
      cv.ref_kbps = ref_rate (c, cap[k], n);
      if (!(cv.ref_kbps > 0))
        continue;               /* an outage: nothing to converge to */
      cv.conv_s = eval_convergence_time (t, x, f->rows->len, EVAL_INTERVAL_S,
          a, b, cv.ref_kbps, EVAL_CONV_TOL, EVAL_CONV_HOLD_S);
      g_array_append_val (r->convergence, cv);
      s->conv_n++;
      if (isfinite (cv.conv_s)) {
        csum += cv.conv_s;
        cn++;
        s->conv_max_s = cn == 1 ? cv.conv_s : MAX (s->conv_max_s, cv.conv_s);
      } else {
        s->conv_missed++;
      }
    }
    g_free (t);
    g_free (x);
    g_free (cap);
  }
  s->conv_mean_s = cn ? csum / cn : NAN;
  if (!cn)
    s->conv_max_s = NAN;

  /* media flows: worst / mean */
  s->qdelay_mean_ms = 0.0;
  s->qdelay_p95_ms = s->qdelay_max_ms = s->pkt_qdelay_p95_ms = NAN;
  s->loss_pct = NAN;
  s->competitor_entries = NAN;
  for (guint i = 0; i < r->n_flows; i++) {
    const EvalFlowResult *f = &r->flows[i];
    if (f->kind != EVAL_FLOW_MEDIA)
      continue;
#define WORST(field, src) \
    if (isfinite (src)) s->field = isfinite (s->field) ? MAX (s->field, src) : src
    WORST (qdelay_p95_ms, f->qdelay_p95_ms);
    WORST (qdelay_max_ms, f->qdelay_max_ms);
    WORST (pkt_qdelay_p95_ms, f->pkt_qdelay_p95_ms);
    WORST (loss_pct, f->loss_pct);
#undef WORST
    if (isfinite (f->qdelay_mean_ms)) {
      s->qdelay_mean_ms += f->qdelay_mean_ms;
      nm++;
    }
    s->breaker_trips += f->breaker_trips;
    s->stalls += f->stalls;
    if (f->competitor_entries >= 0)
      s->competitor_entries = (isnan (s->competitor_entries) ? 0 :
          s->competitor_entries) + f->competitor_entries;
  }
  s->qdelay_mean_ms = nm ? s->qdelay_mean_ms / nm : NAN;

  /* FEC: parity rate over each flow's active time; FFRE and FRCC pooled */
  s->fec_kbps = s->ffre = s->frcc = NAN;
  {
    guint64 rec = 0, lost = 0, ended = 0, good = 0;
    gboolean any = FALSE;
    gdouble kbps = 0;
    for (guint i = 0; i < r->n_flows; i++) {
      const EvalFlowResult *f = &r->flows[i];
      if (f->kind != EVAL_FLOW_MEDIA)
        continue;
      ended += f->fec_ended;
      good += f->fec_good;
      if (!f->has_fec || !(f->stop_s > f->start_s))
        continue;
      any = TRUE;
      kbps += f->fec.fec_bytes * 8.0 / 1000.0 / (f->stop_s - f->start_s);
      rec += f->fec.frames_recovered;
      lost += f->fec.frames_lost_protected;
    }
    if (any) {
      s->fec_kbps = kbps;
      s->ffre = rec + lost > 0 ? (gdouble) rec / (gdouble) (rec + lost) : NAN;
    }
    if (ended > 0)
      s->frcc = (gdouble) good / (gdouble) ended;
  }

  /* share against TCP, forward direction, from the first media start +
   * settle to the end */
  s->media_share = s->tcp_kbps = s->media_kbps = NAN;
  if (tcp_active (r, 0, c->duration_s)) {
    gdouble t0 = G_MAXDOUBLE, media = 0.0, tcp = 0.0;
    for (guint i = 0; i < r->n_flows; i++)
      if (r->flows[i].kind == EVAL_FLOW_MEDIA && !r->flows[i].reverse)
        t0 = MIN (t0, r->flows[i].start_s + EVAL_SETTLE_S);
    for (guint i = 0; i < r->n_flows; i++) {
      const EvalFlowResult *f = &r->flows[i];
      gdouble m;
      if (f->reverse)
        continue;
      m = window_mean (f, COL_RECV, t0, c->duration_s);
      if (!isfinite (m))
        continue;
      if (f->kind == EVAL_FLOW_MEDIA)
        media += m;
      else
        tcp += m;
    }
    s->media_kbps = media;
    s->tcp_kbps = tcp;
    s->media_share = media + tcp > 0 ? media / (media + tcp) : NAN;
  }
  g_array_free (ev, TRUE);
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */

static void
num (GString * out, gdouble v, const gchar * fmt)
{
  if (isnan (v))
    g_string_append (out, "nan");
  else if (isinf (v))
    g_string_append (out, v > 0 ? "inf" : "-inf");
  else {
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, fmt, v));
  }
}

void
eval_result_write_csv (const EvalResult * r, guint flow, GString * out)
{
  const EvalFlowResult *f = &r->flows[flow];

  g_string_append (out, SIM_RTPCC_CSV_HEADER);
  for (guint k = 0; k < f->rows->len; k++) {
    const SimRtpccRow *row = &g_array_index (f->rows, SimRtpccRow, k);
    num (out, RTPCC_TIME_AS_SEC (row->time), "%.3f");
    g_string_append_c (out, ',');
    num (out, row->capacity_kbps, "%.1f");
    g_string_append_c (out, ',');
    num (out, row->target_kbps, "%.1f");
    g_string_append_c (out, ',');
    num (out, row->send_kbps, "%.1f");
    g_string_append_c (out, ',');
    num (out, row->recv_kbps, "%.1f");
    g_string_append_c (out, ',');
    num (out, row->queue_delay_ms, "%.2f");
    g_string_append_c (out, ',');
    num (out, row->loss_pct, "%.3f");
    g_string_append_c (out, ',');
    num (out, row->rtt_ms, "%.1f");
    g_string_append_c (out, ',');
    num (out, row->sender_delay_ms, "%.2f");
    g_string_append_c (out, '\n');
  }
}

/* JSON number or null */
static void
jnum (GString * out, const gchar * key, gdouble v, gboolean comma)
{
  g_string_append_printf (out, "\"%s\": ", key);
  if (!isfinite (v))
    g_string_append (out, "null");
  else {
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
  }
  if (comma)
    g_string_append (out, ", ");
}

static const gchar *
kind_name (EvalFlowKind k)
{
  return k == EVAL_FLOW_MEDIA ? "media" : k == EVAL_FLOW_TCP_LONG ?
      "tcp-long" : "tcp-short";
}

void
eval_result_write_json (const EvalResult * r, GString * out)
{
  const EvalSummary *s = &r->summary;

  g_string_append_printf (out, "{\n\"case\": \"%s\",\n\"controller\": \"%s\","
      "\n\"seed\": %" G_GUINT64_FORMAT ",\n\"source\": \"simulator\",\n"
      "\"events\": %" G_GUINT64_FORMAT ",\n", r->c->id, r->controller, r->seed,
      r->events);
  jnum (out, "wall_s", r->wall_s, FALSE);
  g_string_append (out, ",\n\"definition\": ");
  eval_case_describe (r->c, out);
  g_string_append (out, ",\n\"summary\": {");
  jnum (out, "util", s->util, TRUE);
  jnum (out, "media_util", s->media_util, TRUE);
  jnum (out, "jain_min", s->jain_min, TRUE);
  jnum (out, "jain_mean", s->jain_mean, TRUE);
  jnum (out, "qdelay_mean_ms", s->qdelay_mean_ms, TRUE);
  jnum (out, "qdelay_p95_ms", s->qdelay_p95_ms, TRUE);
  jnum (out, "qdelay_max_ms", s->qdelay_max_ms, TRUE);
  jnum (out, "pkt_qdelay_p95_ms", s->pkt_qdelay_p95_ms, TRUE);
  jnum (out, "loss_pct", s->loss_pct, TRUE);
  jnum (out, "conv_mean_s", s->conv_mean_s, TRUE);
  jnum (out, "conv_max_s", s->conv_max_s, TRUE);
  g_string_append_printf (out, "\"conv_n\": %u, \"conv_missed\": %u, "
      "\"swings\": %u, ", s->conv_n, s->conv_missed, s->swings);
  jnum (out, "cv_max", s->cv_max, TRUE);
  jnum (out, "media_share", s->media_share, TRUE);
  jnum (out, "media_kbps", s->media_kbps, TRUE);
  jnum (out, "tcp_kbps", s->tcp_kbps, TRUE);
  jnum (out, "fec_kbps", s->fec_kbps, TRUE);
  jnum (out, "ffre", s->ffre, TRUE);
  jnum (out, "frcc", s->frcc, TRUE);
  jnum (out, "competitor_entries", s->competitor_entries, TRUE);
  g_string_append_printf (out, "\"breaker_trips\": %" G_GUINT64_FORMAT
      ", \"stalls\": %" G_GUINT64_FORMAT "},\n", s->breaker_trips, s->stalls);

  g_string_append (out, "\"flows\": [");
  for (guint i = 0; i < r->n_flows; i++) {
    const EvalFlowResult *f = &r->flows[i];
    g_string_append_printf (out, "%s\n  {\"id\": %u, \"kind\": \"%s\", "
        "\"dir\": \"%s\", \"csv\": \"flow%u.csv\", ", i ? "," : "", f->id,
        kind_name (f->kind), f->reverse ? "rev" : "fwd", f->id);
    jnum (out, "start", f->start_s, TRUE);
    jnum (out, "stop", f->stop_s, TRUE);
    jnum (out, "send_kbps", f->send_kbps, TRUE);
    jnum (out, "recv_kbps", f->recv_kbps, TRUE);
    jnum (out, "target_kbps", f->target_kbps, TRUE);
    jnum (out, "rtt_ms", f->rtt_ms, TRUE);
    jnum (out, "loss_pct", f->loss_pct, TRUE);
    jnum (out, "qdelay_mean_ms", f->qdelay_mean_ms, TRUE);
    jnum (out, "qdelay_p50_ms", f->qdelay_p50_ms, TRUE);
    jnum (out, "qdelay_p95_ms", f->qdelay_p95_ms, TRUE);
    jnum (out, "qdelay_max_ms", f->qdelay_max_ms, TRUE);
    jnum (out, "pkt_qdelay_p95_ms", f->pkt_qdelay_p95_ms, TRUE);
    jnum (out, "pkt_qdelay_max_ms", f->pkt_qdelay_max_ms, TRUE);
    g_string_append_printf (out, "\"breaker_trips\": %" G_GUINT64_FORMAT
        ", \"tcp_transfers\": %u}", f->breaker_trips, f->tcp_transfers);
  }
  g_string_append (out, "\n],\n\"windows\": [");
  for (guint i = 0; i < r->windows->len; i++) {
    const EvalWindow *w = &g_array_index (r->windows, EvalWindow, i);
    g_string_append_printf (out, "%s\n  {", i ? "," : "");
    jnum (out, "t0", w->t0, TRUE);
    jnum (out, "t1", w->t1, TRUE);
    g_string_append_printf (out, "\"dir\": \"%s\", \"n_media\": %u, "
        "\"tcp\": %s, ", w->reverse ? "rev" : "fwd", w->n_media,
        w->tcp ? "true" : "false");
    jnum (out, "capacity_kbps", w->capacity_kbps, TRUE);
    jnum (out, "util", w->util, TRUE);
    jnum (out, "media_util", w->media_util, TRUE);
    jnum (out, "jain", w->jain, TRUE);
    jnum (out, "qdelay_p95_ms", w->qdelay_p95_ms, TRUE);
    jnum (out, "cv_max", w->cv_max, TRUE);
    g_string_append_printf (out, "\"swings\": %u}", w->swings);
  }
  g_string_append (out, "\n],\n\"convergence\": [");
  for (guint i = 0; i < r->convergence->len; i++) {
    const EvalConvergence *cv =
        &g_array_index (r->convergence, EvalConvergence, i);
    g_string_append_printf (out, "%s\n  {\"flow\": %u, ", i ? "," : "",
        cv->flow);
    jnum (out, "time", cv->time, TRUE);
    jnum (out, "next", cv->next, TRUE);
    jnum (out, "ref_kbps", cv->ref_kbps, TRUE);
    jnum (out, "conv_s", cv->conv_s, FALSE);
    g_string_append_c (out, '}');
  }
  g_string_append (out, "\n]\n}\n");
}

gboolean
eval_result_write_dir (const EvalResult * r, const gchar * dir,
    GError ** error)
{
  GString *s;
  gchar *path;
  gboolean ok;

  if (g_mkdir_with_parents (dir, 0755) != 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot create %s: %s", dir, g_strerror (errno));
    return FALSE;
  }
  for (guint i = 0; i < r->n_flows; i++) {
    gchar name[32];
    s = g_string_new (NULL);
    eval_result_write_csv (r, i, s);
    g_snprintf (name, sizeof name, "flow%u.csv", i);
    path = g_build_filename (dir, name, NULL);
    ok = g_file_set_contents (path, s->str, s->len, error);
    g_free (path);
    g_string_free (s, TRUE);
    if (!ok)
      return FALSE;
  }
  if (r->link) {
    s = g_string_new ("time_s,capacity_kbps,queue_delay_ms\n");
    for (guint k = 0; k < r->link->len; k++) {
      const EvalLinkSample *ls = &g_array_index (r->link, EvalLinkSample, k);
      g_string_append_printf (s, "%.1f,%.1f,%.2f\n", ls->time_s,
          ls->capacity_kbps, ls->backlog_ms);
    }
    path = g_build_filename (dir, "link.csv", NULL);
    ok = g_file_set_contents (path, s->str, s->len, error);
    g_free (path);
    g_string_free (s, TRUE);
    if (!ok)
      return FALSE;
  }
  s = g_string_new (NULL);
  eval_result_write_json (r, s);
  path = g_build_filename (dir, "summary.json", NULL);
  ok = g_file_set_contents (path, s->str, s->len, error);
  g_free (path);
  g_string_free (s, TRUE);
  return ok;
}

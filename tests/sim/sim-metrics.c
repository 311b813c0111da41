/* Per-flow metrics: counters, the per-interval log (RFC 8868 §4: send and
 * receive rate at 200 ms intervals, delay, loss) and window summaries.
 *
 * Every send, receive and drop is kept as a small record, so summaries over
 * any window are exact (a 100 s run at 5 Mbit/s is ~50k records, a few MB at
 * most). The interval rows are built incrementally from bucket counters:
 * a record falls into the interval of its timestamp, whatever the order of
 * equal-time events, so the log does not depend on event ordering details.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  RtpccTime at;
  guint size;
} SendRec;

typedef struct
{
  RtpccTime at;
  RtpccTime qdelay;
  RtpccTime owd;
  guint size;
} RecvRec;

typedef struct
{
  RtpccTime at;
  guint size;
  RtpccLinkVerdict verdict;
} DropRec;

typedef struct
{
  guint flow;
  const RtpccLink *bottleneck;
  SimFlowTotals totals;
  GArray *sends, *recvs, *drops;

  /* the open interval */
  guint64 i_sent_packets, i_sent_bytes;
  guint64 i_recv_packets, i_recv_bytes;
  guint64 i_drops;
  RtpccTime i_qsum, i_qmax;
} FlowState;

struct _SimMetrics
{
  RtpccTime start, interval;
  gint64 cur;                   /* index of the open interval */
  GPtrArray *flows;             /* FlowState* indexed by flow id (holes) */
  GArray *flow_ids;             /* ascending */
  const RtpccLink *default_bottleneck;
  GArray *rows;                 /* SimIntervalRow */
  FILE *log;
};

static void
flow_state_free (gpointer data)
{
  FlowState *fs = data;
  if (!fs)
    return;
  g_array_free (fs->sends, TRUE);
  g_array_free (fs->recvs, TRUE);
  g_array_free (fs->drops, TRUE);
  g_free (fs);
}

SimMetrics *
sim_metrics_new (RtpccTime start, RtpccTime interval)
{
  SimMetrics *m;

  g_return_val_if_fail (interval > 0, NULL);
  m = g_new0 (SimMetrics, 1);
  m->start = start;
  m->interval = interval;
  m->flows = g_ptr_array_new_with_free_func (flow_state_free);
  m->flow_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  m->rows = g_array_new (FALSE, FALSE, sizeof (SimIntervalRow));
  return m;
}

void
sim_metrics_free (SimMetrics * m)
{
  if (!m)
    return;
  g_ptr_array_free (m->flows, TRUE);
  g_array_free (m->flow_ids, TRUE);
  g_array_free (m->rows, TRUE);
  g_free (m);
}

static FlowState *
lookup_flow (SimMetrics * m, guint flow)
{
  return flow < m->flows->len ? m->flows->pdata[flow] : NULL;
}

static FlowState *
get_flow (SimMetrics * m, guint flow)
{
  FlowState *fs = lookup_flow (m, flow);
  guint i;

  if (fs)
    return fs;
  g_return_val_if_fail (flow < 1u << 20, NULL);

  fs = g_new0 (FlowState, 1);
  fs->flow = flow;
  fs->sends = g_array_new (FALSE, FALSE, sizeof (SendRec));
  fs->recvs = g_array_new (FALSE, FALSE, sizeof (RecvRec));
  fs->drops = g_array_new (FALSE, FALSE, sizeof (DropRec));
  if (flow >= m->flows->len)
    g_ptr_array_set_size (m->flows, flow + 1);
  m->flows->pdata[flow] = fs;

  for (i = 0; i < m->flow_ids->len; i++)
    if (g_array_index (m->flow_ids, guint, i) > flow)
      break;
  g_array_insert_val (m->flow_ids, i, flow);
  return fs;
}

void
sim_metrics_add_flow (SimMetrics * m, guint flow)
{
  get_flow (m, flow);
}

void
sim_metrics_set_bottleneck (SimMetrics * m, guint flow,
    const RtpccLink * link)
{
  FlowState *fs;

  if (flow == SIM_FLOW_ANY)
    m->default_bottleneck = link;
  else if ((fs = get_flow (m, flow)))
    fs->bottleneck = link;
}

/* ---- interval rows ------------------------------------------------------- */

/* Mean bottleneck rate over [t, t + len) in kbit/s. */
static gdouble
capacity_kbps (SimMetrics * m, const FlowState * fs, RtpccTime t,
    RtpccTime len)
{
  const RtpccLink *link = fs->bottleneck ? fs->bottleneck :
      m->default_bottleneck;
  const RtpccCapacity *cap;
  RtpccTime rel, end;
  gdouble acc = 0.0;

  if (!link)
    return NAN;
  cap = rtpcc_link_get_config (link)->capacity;
  if (!cap || rtpcc_capacity_get_kind (cap) == RTPCC_CAPACITY_UNLIMITED)
    return INFINITY;

  rel = t - rtpcc_link_get_epoch (link);
  if (rtpcc_capacity_get_kind (cap) == RTPCC_CAPACITY_TRACE)
    return rtpcc_capacity_rate_at (cap, rel, len) / 1000.0;

  /* A schedule may change inside the interval: time-weighted mean. */
  end = rel + len;
  while (rel < end) {
    RtpccTime next = rtpcc_capacity_next_change (cap, rel);
    RtpccTime seg_end = next > rel ? MIN (next, end) : end;
    acc += (gdouble) rtpcc_capacity_rate_at (cap, rel, 0) *
        (gdouble) (seg_end - rel);
    rel = seg_end;
  }
  return acc / (gdouble) len / 1000.0;
}

static void
format_double (GString * s, gdouble v, gboolean last)
{
  if (isnan (v))
    g_string_append (s, "nan");
  else if (isinf (v))
    g_string_append (s, v > 0 ? "inf" : "-inf");
  else
    g_string_append_printf (s, "%.3f", v);
  g_string_append_c (s, last ? '\n' : ',');
}

static void
format_row (GString * s, const SimIntervalRow * r)
{
  g_string_append_printf (s, "%.3f,%u,", RTPCC_TIME_AS_SEC (r->time), r->flow);
  format_double (s, r->send_kbps, FALSE);
  format_double (s, r->recv_kbps, FALSE);
  format_double (s, r->qdelay_ms_mean, FALSE);
  format_double (s, r->qdelay_ms_max, FALSE);
  format_double (s, r->loss_pct, FALSE);
  format_double (s, r->capacity_kbps, TRUE);
}

static void
flush_interval (SimMetrics * m)
{
  RtpccTime t = m->start + m->cur * m->interval;
  gdouble secs = RTPCC_TIME_AS_SEC (m->interval);
  GString *line = m->log ? g_string_new (NULL) : NULL;

  for (guint i = 0; i < m->flow_ids->len; i++) {
    FlowState *fs = lookup_flow (m, g_array_index (m->flow_ids, guint, i));
    SimIntervalRow r = { 0, };

    r.time = t;
    r.flow = fs->flow;
    r.sent_packets = fs->i_sent_packets;
    r.sent_bytes = fs->i_sent_bytes;
    r.recv_packets = fs->i_recv_packets;
    r.recv_bytes = fs->i_recv_bytes;
    r.dropped_packets = fs->i_drops;
    r.send_kbps = fs->i_sent_bytes * 8.0 / secs / 1000.0;
    r.recv_kbps = fs->i_recv_bytes * 8.0 / secs / 1000.0;
    if (fs->i_recv_packets) {
      r.qdelay_ms_mean = RTPCC_TIME_AS_MSEC (fs->i_qsum) / fs->i_recv_packets;
      r.qdelay_ms_max = RTPCC_TIME_AS_MSEC (fs->i_qmax);
    } else {
      r.qdelay_ms_mean = r.qdelay_ms_max = NAN;
    }
    r.loss_pct = fs->i_sent_packets ?
        100.0 * fs->i_drops / fs->i_sent_packets : 0.0;
    r.capacity_kbps = capacity_kbps (m, fs, t, m->interval);
    g_array_append_val (m->rows, r);
    if (line)
      format_row (line, &r);

    fs->i_sent_packets = fs->i_sent_bytes = 0;
    fs->i_recv_packets = fs->i_recv_bytes = 0;
    fs->i_drops = 0;
    fs->i_qsum = fs->i_qmax = 0;
  }
  if (line) {
    fputs (line->str, m->log);
    g_string_free (line, TRUE);
  }
  m->cur++;
}

/* Close every interval before the one containing @now. */
static void
advance (SimMetrics * m, RtpccTime now)
{
  gint64 idx;

  if (now < m->start)
    return;
  idx = (now - m->start) / m->interval;
  while (m->cur < idx)
    flush_interval (m);
}

void
sim_metrics_finish (SimMetrics * m, RtpccTime now)
{
  /* An interval ending exactly at @now is complete. */
  advance (m, now);
}

void
sim_metrics_set_log (SimMetrics * m, FILE * log)
{
  m->log = log;
  if (log)
    fputs (SIM_METRICS_CSV_HEADER, log);
}

const SimIntervalRow *
sim_metrics_get_rows (SimMetrics * m, guint * n_rows)
{
  if (n_rows)
    *n_rows = m->rows->len;
  return (const SimIntervalRow *) m->rows->data;
}

void
sim_metrics_write_csv (SimMetrics * m, GString * out)
{
  g_string_append (out, SIM_METRICS_CSV_HEADER);
  for (guint i = 0; i < m->rows->len; i++)
    format_row (out, &g_array_index (m->rows, SimIntervalRow, i));
}

/* ---- recording ----------------------------------------------------------- */

void
sim_metrics_record_send (SimMetrics * m, RtpccTime now,
    const SimPacket * packet)
{
  FlowState *fs;
  SendRec rec = { now, packet->size };

  advance (m, now);
  if (!(fs = get_flow (m, packet->flow)))
    return;
  g_array_append_val (fs->sends, rec);
  fs->totals.sent_packets++;
  fs->totals.sent_bytes += packet->size;
  fs->i_sent_packets++;
  fs->i_sent_bytes += packet->size;
}

void
sim_metrics_record_receive (SimMetrics * m, RtpccTime now,
    const SimPacket * packet)
{
  FlowState *fs;
  RecvRec rec;

  advance (m, now);
  if (!(fs = get_flow (m, packet->flow)))
    return;
  rec.at = now;
  rec.qdelay = packet->queue_delay;
  rec.owd = packet->sent != RTPCC_TIME_NONE ? now - packet->sent : 0;
  rec.size = packet->size;
  g_array_append_val (fs->recvs, rec);
  fs->totals.recv_packets++;
  fs->totals.recv_bytes += packet->size;
  fs->i_recv_packets++;
  fs->i_recv_bytes += packet->size;
  fs->i_qsum += packet->queue_delay;
  fs->i_qmax = MAX (fs->i_qmax, packet->queue_delay);
}

void
sim_metrics_record_drop (SimMetrics * m, RtpccTime now,
    const SimPacket * packet, RtpccLinkVerdict verdict)
{
  FlowState *fs;
  DropRec rec = { now, packet->size, verdict };

  advance (m, now);
  if (!(fs = get_flow (m, packet->flow)))
    return;
  g_array_append_val (fs->drops, rec);
  if (verdict == RTPCC_LINK_DROPPED_LOSS)
    fs->totals.loss_drops++;
  else
    fs->totals.queue_drops++;
  fs->totals.dropped_bytes += packet->size;
  fs->i_drops++;
}

/* ---- summaries ----------------------------------------------------------- */

GArray *
sim_metrics_get_flows (SimMetrics * m)
{
  GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (guint),
      m->flow_ids->len);
  g_array_append_vals (a, m->flow_ids->data, m->flow_ids->len);
  return a;
}

gboolean
sim_metrics_get_totals (SimMetrics * m, guint flow, SimFlowTotals * totals)
{
  FlowState *fs = lookup_flow (m, flow);

  if (!fs)
    return FALSE;
  *totals = fs->totals;
  return TRUE;
}

static gint
cmp_time (gconstpointer a, gconstpointer b)
{
  RtpccTime x = *(const RtpccTime *) a, y = *(const RtpccTime *) b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted @v. */
static gdouble
percentile_ms (const RtpccTime * v, guint n, gdouble p)
{
  guint rank;

  if (n == 0)
    return NAN;
  rank = (guint) ceil (p / 100.0 * n);
  rank = CLAMP (rank, 1, n);
  return RTPCC_TIME_AS_MSEC (v[rank - 1]);
}

gboolean
sim_metrics_summarize (SimMetrics * m, guint flow, RtpccTime t0,
    RtpccTime t1, SimFlowSummary * s)
{
  FlowState *fs = lookup_flow (m, flow);
  GArray *q;
  gdouble secs = RTPCC_TIME_AS_SEC (t1 - t0);
  RtpccTime qsum = 0, owd_sum = 0, owd_max = 0;

  memset (s, 0, sizeof (*s));
  if (!fs || t1 <= t0)
    return FALSE;

  for (guint i = 0; i < fs->sends->len; i++) {
    const SendRec *r = &g_array_index (fs->sends, SendRec, i);
    if (r->at >= t0 && r->at < t1) {
      s->totals.sent_packets++;
      s->totals.sent_bytes += r->size;
    }
  }
  for (guint i = 0; i < fs->drops->len; i++) {
    const DropRec *r = &g_array_index (fs->drops, DropRec, i);
    if (r->at >= t0 && r->at < t1) {
      if (r->verdict == RTPCC_LINK_DROPPED_LOSS)
        s->totals.loss_drops++;
      else
        s->totals.queue_drops++;
      s->totals.dropped_bytes += r->size;
    }
  }

  q = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  for (guint i = 0; i < fs->recvs->len; i++) {
    const RecvRec *r = &g_array_index (fs->recvs, RecvRec, i);
    if (r->at >= t0 && r->at < t1) {
      s->totals.recv_packets++;
      s->totals.recv_bytes += r->size;
      g_array_append_val (q, r->qdelay);
      qsum += r->qdelay;
      owd_sum += r->owd;
      owd_max = MAX (owd_max, r->owd);
    }
  }
  g_array_sort (q, cmp_time);

  s->send_kbps = s->totals.sent_bytes * 8.0 / secs / 1000.0;
  s->recv_kbps = s->totals.recv_bytes * 8.0 / secs / 1000.0;
  s->loss_pct = s->totals.sent_packets ?
      100.0 * (s->totals.loss_drops + s->totals.queue_drops) /
      s->totals.sent_packets : 0.0;
  if (q->len) {
    const RtpccTime *v = (const RtpccTime *) q->data;
    s->qdelay_ms_mean = RTPCC_TIME_AS_MSEC (qsum) / q->len;
    s->qdelay_ms_p50 = percentile_ms (v, q->len, 50.0);
    s->qdelay_ms_p95 = percentile_ms (v, q->len, 95.0);
    s->qdelay_ms_max = RTPCC_TIME_AS_MSEC (v[q->len - 1]);
    s->owd_ms_mean = RTPCC_TIME_AS_MSEC (owd_sum) / q->len;
    s->owd_ms_max = RTPCC_TIME_AS_MSEC (owd_max);
  } else {
    s->qdelay_ms_mean = s->qdelay_ms_p50 = s->qdelay_ms_p95 =
        s->qdelay_ms_max = s->owd_ms_mean = s->owd_ms_max = NAN;
  }
  g_array_free (q, TRUE);
  return TRUE;
}

/* ---- taps ---------------------------------------------------------------- */

struct _SimTap
{
  SimNode node;
  SimMetrics *metrics;
  SimTapPoint point;
  SimNode *next;
};

static void
tap_receive (SimNode * node, Sim * sim, SimPacket * packet)
{
  SimTap *tap = (SimTap *) node;

  if (tap->point == SIM_TAP_SEND)
    sim_metrics_record_send (tap->metrics, sim_now (sim), packet);
  else
    sim_metrics_record_receive (tap->metrics, sim_now (sim), packet);
  sim_node_receive (tap->next, sim, packet);
}

SimTap *
sim_tap_new (SimMetrics * metrics, SimTapPoint point, SimNode * next)
{
  SimTap *tap = g_new0 (SimTap, 1);

  tap->node.receive = tap_receive;
  tap->node.name = point == SIM_TAP_SEND ? "send-tap" : "receive-tap";
  tap->metrics = metrics;
  tap->point = point;
  tap->next = next;
  return tap;
}

void
sim_tap_free (SimTap * tap)
{
  g_free (tap);
}

SimNode *
sim_tap_node (SimTap * tap)
{
  return &tap->node;
}

void
sim_tap_set_next (SimTap * tap, SimNode * next)
{
  tap->next = next;
}

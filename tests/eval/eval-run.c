/* RFC 8867 cases in the simulator (see eval-run.h).
 *
 * Topology: the case's forward bottleneck and reverse link are the
 * SimRtpccNet's. Forward media flows are sim_rtpcc_net_add_flow calls made
 * at their start time (so a call does not idle before it joins), with the
 * syncodecs-like codec as their source; a backward media flow (§5.3) is
 * wired by hand: its media crosses the reverse link (own send/receive
 * taps and metrics) and its feedback the forward link. A per-flow extra
 * delay (§5.5) is an unlimited link in front of the flow's receiver and
 * another in front of its sender. TCP flows are sim_rtpcc_net_add_tcp
 * flows; a short-flow entry is `count` on/off flows whose rows are summed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "eval-run.h"
#include "eval-metrics.h"
#include "sim-codec.h"
#include "sim-tcp.h"
#include <rtpcc/cc/fbra.h>
#include <rtpcc/cc/gcc.h>
#include <rtpcc/cc/nada.h>

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#define MAX_SUB 16
#define TCP_FLOW_BASE 100

typedef struct _Run Run;

typedef struct
{
  Run *run;
  guint i;
} FlowRef;

struct _Run
{
  const EvalCase *c;
  EvalRunConfig cfg;
  SimRtpccNet *net;
  RtpccCapacity *fcap, *rcap;
  SimMetrics *rev_metrics;
  SimTap *rev_send_tap, *rev_recv_tap[EVAL_MAX_FLOWS];
  /* media */
  SimRtpccSender *sender[EVAL_MAX_FLOWS];
  SimSource *source[EVAL_MAX_FLOWS];
  SimFec *fec[EVAL_MAX_FLOWS];  /* the net's flows' (cfg.fec) */
  /* owned here (backward flows); forward ones belong to the net */
  SimRtpccSender *own_sender[EVAL_MAX_FLOWS];
  SimRtpccReceiver *own_receiver[EVAL_MAX_FLOWS];
  SimSource *own_source[EVAL_MAX_FLOWS];
  SimLink *access[EVAL_MAX_FLOWS][2];
  /* TCP */
  SimTcpFlow *tcp[EVAL_MAX_FLOWS][MAX_SUB];
  guint n_tcp[EVAL_MAX_FLOWS];
  /* reverse TCP (its data on the feedback path): owned here */
  SimTcpFlow *own_tcp[EVAL_MAX_FLOWS][MAX_SUB];
  SimTap *rev_tcp_route[EVAL_MAX_FLOWS][MAX_SUB];
  GArray *rtt[EVAL_MAX_FLOWS];  /* gdouble ms at each row's end */
  GArray *link;                 /* EvalLinkSample at each row's end */
  FlowRef refs[EVAL_MAX_FLOWS];
  SimTimer sampler;
  SimTimer pause_timer[EVAL_MAX_FLOWS], resume_timer[EVAL_MAX_FLOWS];
  FILE *log_send[EVAL_MAX_FLOWS], *log_recv[EVAL_MAX_FLOWS];
};

static void
rtp_log_line (FILE * f, RtpccTime t, const RtpccRtpInfo * info,
    gsize header_len)
{
  fprintf (f, "%" G_GINT64_FORMAT ".%06" G_GINT64_FORMAT " %u %08x %u %u "
      "%d %u\n", t / RTPCC_NSEC_PER_SEC, (t % RTPCC_NSEC_PER_SEC) / 1000,
      info->pt, info->ssrc, info->seq, info->rtp_ts, info->marker ? 1 : 0,
      (guint) (info->size - header_len));
}

/* Link observer: every media packet offered to a bottleneck (send log)
 * and, if delivered, its delivery time (receive log). */
static void
rtp_observe (SimLink * link, const SimPacket * p, const RtpccLinkOutcome * o,
    gpointer user_data)
{
  Run *run = user_data;
  RtpccRtpInfo info;
  gsize hdr;

  (void) link;
  if (p->flow >= EVAL_MAX_FLOWS || !run->log_send[p->flow]
      || !sim_rtp_header_parse (p, &info, &hdr))
    return;
  rtp_log_line (run->log_send[p->flow], o->arrival, &info, hdr);
  if (o->verdict == RTPCC_LINK_DELIVERED)
    rtp_log_line (run->log_recv[p->flow], o->deliver_at, &info, hdr);
}

static gboolean
open_rtp_logs (Run * run, GError ** error)
{
  if (g_mkdir_with_parents (run->cfg.rtp_log_dir, 0755) != 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot create %s", run->cfg.rtp_log_dir);
    return FALSE;
  }
  for (guint i = 0; i < run->c->n_flows; i++) {
    gchar name[40], *path;
    if (run->c->flows[i].kind != EVAL_FLOW_MEDIA)
      continue;
    for (guint d = 0; d < 2; d++) {
      FILE **fp = d ? &run->log_recv[i] : &run->log_send[i];
      g_snprintf (name, sizeof name, "flow%u-%s.log", i, d ? "recv" : "send");
      path = g_build_filename (run->cfg.rtp_log_dir, name, NULL);
      *fp = fopen (path, "w");
      g_free (path);
      if (!*fp) {
        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
            "cannot write %s", name);
        return FALSE;
      }
    }
  }
  return TRUE;
}

gchar **
eval_controllers (void)
{
  gchar **all = rtpcc_controller_list ();
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; all && all[i]; i++)
    if (g_strcmp0 (all[i], "fixed") != 0)
      g_ptr_array_add (out, g_strdup (all[i]));
  g_ptr_array_add (out, NULL);
  g_strfreev (all);
  return (gchar **) g_ptr_array_free (out, FALSE);
}

static guint
tcp_flow_id (guint i, guint sub)
{
  return TCP_FLOW_BASE + MAX_SUB * i + sub;
}

static void
sample (Sim * sim, gpointer user_data)
{
  Run *run = user_data;
  RtpccTime now = sim_now (sim);

  for (guint i = 0; i < run->c->n_flows; i++) {
    gdouble ms = NAN;
    if (run->sender[i]) {
      const RtpccSenderStats *st =
          rtpcc_sender_get_stats (sim_rtpcc_sender_get_sender (run->sender
              [i]), now);
      if (st->srtt != RTPCC_TIME_NONE && st->srtt > 0)
        ms = RTPCC_TIME_AS_MSEC (st->srtt);
    } else if (run->c->flows[i].kind == EVAL_FLOW_TCP_LONG && run->n_tcp[i]) {
      SimTcpStats st;
      sim_tcp_flow_get_stats (run->tcp[i][0], &st);
      if (st.srtt != RTPCC_TIME_NONE)
        ms = RTPCC_TIME_AS_MSEC (st.srtt);
    }
    g_array_append_val (run->rtt[i], ms);
  }
  {
    /* what rt-eval.py's link thread reads from tbf: the backlog's bytes
     * over the rate, not a packet's own wait (which includes its
     * transmission: 9.6 ms for 1200 B at 1 Mbit/s) */
    RtpccLink *link = sim_link_get_link (run->net->forward);
    guint64 cap = rtpcc_link_capacity_at (link, now);
    guint64 bytes = rtpcc_link_queue_bytes (link, now);
    EvalLinkSample ls = { RTPCC_TIME_AS_SEC (now), 0, 0 };

    if (cap == G_MAXUINT64) {
      ls.capacity_kbps = NAN;
    } else {
      ls.capacity_kbps = cap / 1000.0;
      ls.backlog_ms = cap > 0 ? bytes * 8.0 * 1000.0 / (gdouble) cap : NAN;
    }
    g_array_append_val (run->link, ls);
  }
  run->sampler = sim_schedule (sim, now + RTPCC_MSEC (200), sample, run);
}

static void
pause_fire (Sim * sim, gpointer user_data)
{
  FlowRef *ref = user_data;

  (void) sim;
  ref->run->pause_timer[ref->i] = 0;
  /* the encoder stops: its frames go nowhere until resume */
  sim_source_set_next (ref->run->source[ref->i], NULL);
}

static void
resume_fire (Sim * sim, gpointer user_data)
{
  FlowRef *ref = user_data;
  SimSource *src = ref->run->source[ref->i];

  (void) sim;
  ref->run->resume_timer[ref->i] = 0;
  sim_source_set_next (src, sim_rtpcc_sender_node (ref->run->sender[ref->i]));
  if (sim_source_is_codec (src))
    sim_codec_source_force_keyframe (src);
  else
    sim_frame_source_force_keyframe (src);
}

static void
flow_configs (Run * run, guint i, SimRtpccFlowConfig * fc,
    SimCodecConfig * cc)
{
  const EvalFlow *f = &run->c->flows[i];
  guint64 seed = run->cfg.seed * 101 + i;
  RtpccTime now = sim_now (run->net->sim);

  sim_rtpcc_flow_config_init (fc, i, run->cfg.controller,
      SIM_RTPCC_FEEDBACK_AUTO, seed);
  fc->sender.sender.cc.min_bitrate = eval_case_min_bps (run->c);
  fc->sender.sender.cc.start_bitrate =
      eval_case_start_bps (run->c, run->cfg.controller);
  fc->sender.sender.cc.max_bitrate = eval_case_max_bps (run->c);
  fc->sender.sender.circuit_breaker = TRUE;
  fc->sender.encoder_hysteresis = run->cfg.encoder_hysteresis ||
      run->cfg.encoder_x264;
  /* (the net makes the forward flows' FEC; none on reverse ones) */
  fc->fec = run->cfg.fec && !f->reverse;
  /* rrtcc is the sender half of a receiver-driven controller: its
   * receiver estimates and sends REMB (rtpccsrc remb=true, as the
   * real-time runner sets it) */
  fc->receiver.receiver.remb = g_strcmp0 (run->cfg.controller, "rrtcc") == 0;
  /* cnadu likewise: its receiver judges frames, sends NADU and its
   * estimate (rtpccsrc nadu=true) */
  fc->receiver.receiver.nadu = g_strcmp0 (run->cfg.controller, "cnadu") == 0;
  fc->sender.initial_seq = (guint16) (65000 + 100 * i);
  fc->sender.initial_rtp_ts = (guint32) (seed * 2654435761u);
  fc->frames.start = now;
  fc->frames.stop = RTPCC_SEC (eval_flow_stop (run->c, f));
  sim_codec_config_init (cc);
  if (run->cfg.encoder_x264)
    sim_codec_config_x264 (cc);
  cc->flow = i;
  cc->overhead = fc->frames.overhead;
  cc->mtu = fc->frames.mtu;
  cc->start = now;
  cc->stop = fc->frames.stop;
  cc->seed = seed;
  /* the case's key frames, else the codec's own */
  if (run->c->keyframe_interval || !run->cfg.encoder_x264)
    cc->keyframe_interval = run->c->keyframe_interval;
  if (run->c->iframe_bytes)
    cc->iframe_bytes = run->c->iframe_bytes;
  fc->frames.keyframe_interval = run->c->keyframe_interval;
}

static SimLink *
access_link (gdouble ms, SimNode * next)
{
  RtpccLinkConfig lc;

  rtpcc_link_config_init (&lc);
  lc.queue_limit_time = 0;
  lc.delay = (RtpccTime) llround (ms * RTPCC_NSEC_PER_MSEC);
  return sim_link_new (&lc, next);
}

/* Metrics and a send tap on the reverse link, for flows sent over it. */
static void
reverse_metrics (Run * run)
{
  SimRtpccNet *net = run->net;

  if (run->rev_metrics)
    return;
  run->rev_metrics = sim_metrics_new (0, RTPCC_MSEC (200));
  sim_metrics_set_bottleneck (run->rev_metrics, SIM_FLOW_ANY,
      sim_link_get_link (net->reverse));
  sim_link_set_metrics (net->reverse, run->rev_metrics);
  run->rev_send_tap = sim_tap_new (run->rev_metrics, SIM_TAP_SEND,
      sim_link_node (net->reverse));
}

static gboolean
add_media (Run * run, guint i, GError ** error)
{
  const EvalFlow *f = &run->c->flows[i];
  SimRtpccFlowConfig fc;
  SimCodecConfig cc;
  SimRtpccNet *net = run->net;

  flow_configs (run, i, &fc, &cc);
  if (!f->reverse) {
    SimRtpccFlow *flow = sim_rtpcc_net_add_flow (net, &fc, error);
    if (!flow)
      return FALSE;
    if (!run->cfg.frames && !sim_rtpcc_flow_use_codec (net, flow, &cc)) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID, "bad codec");
      return FALSE;
    }
    run->sender[i] = flow->sender;
    run->source[i] = flow->source;
    run->fec[i] = flow->fec;
    if (f->extra_delay_ms > 0) {
      run->access[i][0] = access_link (f->extra_delay_ms,
          sim_rtpcc_receiver_node (flow->receiver));
      run->access[i][1] = access_link (f->extra_delay_ms,
          sim_rtpcc_sender_node (flow->sender));
      sim_demux_set_route (net->forward_demux, i,
          sim_link_node (run->access[i][0]));
      sim_demux_set_route (net->reverse_demux, i,
          sim_link_node (run->access[i][1]));
    }
  } else {
    SimRtpccReceiver *rcv;
    SimRtpccSender *snd;
    SimSource *src;

    reverse_metrics (run);
    sim_metrics_add_flow (run->rev_metrics, i);
    rcv = sim_rtpcc_receiver_new (net->sim, &fc.receiver,
        sim_tap_node (net->send_tap));
    if (!rcv) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID, "bad receiver");
      return FALSE;
    }
    run->own_receiver[i] = rcv;
    snd = sim_rtpcc_sender_new (net->sim, &fc.sender,
        sim_tap_node (run->rev_send_tap), error);
    if (!snd)
      return FALSE;
    run->own_sender[i] = snd;
    /* the reverse link feeds the demux: this flow's receive tap after it */
    run->rev_recv_tap[i] = sim_tap_new (run->rev_metrics, SIM_TAP_RECEIVE,
        sim_rtpcc_receiver_node (rcv));
    sim_demux_set_route (net->reverse_demux, i,
        sim_tap_node (run->rev_recv_tap[i]));
    sim_demux_set_route (net->forward_demux, i, sim_rtpcc_sender_node (snd));
    if (run->cfg.frames) {
      fc.frames.target_bps = 0;
      src = sim_frame_source_new (net->sim, &fc.frames,
          sim_rtpcc_sender_node (snd));
    } else {
      src = sim_codec_source_new (net->sim, &cc, sim_rtpcc_sender_node (snd));
    }
    if (!src) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID, "bad source");
      return FALSE;
    }
    run->own_source[i] = src;
    sim_rtpcc_sender_set_source (snd, src);
    run->sender[i] = snd;
    run->source[i] = src;
  }
  /* as rtpccsink's controller-params: right after the controller is made */
  if (!rtpcc_controller_set_params (rtpcc_sender_get_controller
          (sim_rtpcc_sender_get_sender (run->sender[i])),
          run->cfg.controller_params, error))
    return FALSE;
  if (f->pause_s >= 0 && f->resume_s > f->pause_s) {
    run->refs[i].run = run;
    run->refs[i].i = i;
    run->pause_timer[i] = sim_schedule (net->sim, RTPCC_SEC (f->pause_s),
        pause_fire, &run->refs[i]);
    run->resume_timer[i] = sim_schedule (net->sim, RTPCC_SEC (f->resume_s),
        resume_fire, &run->refs[i]);
  }
  return TRUE;
}

static gboolean
add_tcp (Run * run, guint i, GError ** error)
{
  const EvalFlow *f = &run->c->flows[i];
  guint n = f->kind == EVAL_FLOW_TCP_SHORT ? MIN (f->count, MAX_SUB) : 1;

  for (guint j = 0; j < n; j++) {
    SimTcpConfig tc;
    sim_tcp_config_init (&tc);
    tc.flow = tcp_flow_id (i, j);
    if (!sim_tcp_cc_from_string (f->tcp_cc, &tc.cc)) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
          "unknown TCP congestion control '%s'", f->tcp_cc);
      return FALSE;
    }
    /* ns3-rmcat: 1000-byte packets */
    tc.mss = 960;
    tc.start = RTPCC_SEC (f->start_s);
    tc.stop = RTPCC_SEC (eval_flow_stop (run->c, f));
    tc.seed = run->cfg.seed * 7919 + i * 131 + j;
    if (f->kind == EVAL_FLOW_TCP_SHORT) {
      tc.transfer_bytes = (guint64) f->file_kb_min * 1000;
      tc.transfer_bytes_max = (guint64) f->file_kb_max * 1000;
      tc.off_mean = RTPCC_SEC (f->off_mean_s);
      tc.start_off = j >= f->count_on;
    }
    if (!f->reverse) {
      run->tcp[i][j] = sim_rtpcc_net_add_tcp (run->net, &tc, error);
      if (!run->tcp[i][j])
        return FALSE;
    } else {
      /* data over the reverse link (the feedback path), ACKs over the
       * forward one; both links' demuxes route the flow id */
      SimRtpccNet *net = run->net;
      SimTcpFlow *tf;

      reverse_metrics (run);
      sim_metrics_add_flow (run->rev_metrics, tc.flow);
      tf = sim_tcp_flow_new (net->sim, &tc, sim_tap_node (run->rev_send_tap),
          error);
      if (!tf)
        return FALSE;
      sim_tcp_flow_set_reverse (tf, sim_link_node (net->forward));
      run->own_tcp[i][j] = tf;
      run->tcp[i][j] = tf;
      run->rev_tcp_route[i][j] = sim_tap_new (run->rev_metrics,
          SIM_TAP_RECEIVE, sim_tcp_flow_receiver_node (tf));
      sim_demux_set_route (net->reverse_demux, tc.flow,
          sim_tap_node (run->rev_tcp_route[i][j]));
      sim_demux_set_route (net->forward_demux, tc.flow,
          sim_tcp_flow_sender_node (tf));
    }
    run->n_tcp[i]++;
  }
  return TRUE;
}

static void
run_free (Run * run)
{
  if (run->net) {
    sim_cancel (run->net->sim, run->sampler);
    for (guint i = 0; i < EVAL_MAX_FLOWS; i++) {
      sim_cancel (run->net->sim, run->pause_timer[i]);
      sim_cancel (run->net->sim, run->resume_timer[i]);
      sim_source_free (run->own_source[i]);
      if (run->own_sender[i])
        sim_rtpcc_sender_free (run->own_sender[i]);
      if (run->own_receiver[i])
        sim_rtpcc_receiver_free (run->own_receiver[i]);
      for (guint j = 0; j < MAX_SUB; j++)
        if (run->own_tcp[i][j])
          sim_tcp_flow_free (run->own_tcp[i][j]);
    }
    sim_rtpcc_net_free (run->net);
  }
  for (guint i = 0; i < EVAL_MAX_FLOWS; i++) {
    if (run->access[i][0])
      sim_link_free (run->access[i][0]);
    if (run->access[i][1])
      sim_link_free (run->access[i][1]);
    if (run->rtt[i])
      g_array_free (run->rtt[i], TRUE);
  }
  if (run->link)
    g_array_free (run->link, TRUE);
  if (run->rev_send_tap)
    sim_tap_free (run->rev_send_tap);
  for (guint i = 0; i < EVAL_MAX_FLOWS; i++) {
    if (run->rev_recv_tap[i])
      sim_tap_free (run->rev_recv_tap[i]);
    for (guint j = 0; j < MAX_SUB; j++)
      if (run->rev_tcp_route[i][j])
        sim_tap_free (run->rev_tcp_route[i][j]);
  }
  if (run->rev_metrics)
    sim_metrics_free (run->rev_metrics);
  for (guint i = 0; i < EVAL_MAX_FLOWS; i++) {
    if (run->log_send[i])
      fclose (run->log_send[i]);
    if (run->log_recv[i])
      fclose (run->log_recv[i]);
  }
  if (run->fcap)
    rtpcc_capacity_unref (run->fcap);
  if (run->rcap)
    rtpcc_capacity_unref (run->rcap);
  g_free (run);
}

/* Sum the interval rows of @ids in @m into @rows (index = row number). */
static void
fill_rows (SimMetrics * m, const guint * ids, guint n_ids, guint n_rows,
    SimRtpccRow * rows, guint64 * recv_pk)
{
  guint n;
  const SimIntervalRow *r = sim_metrics_get_rows (m, &n);
  gdouble *qsum = g_new0 (gdouble, n_rows);
  guint64 *sent = g_new0 (guint64, n_rows), *drop = g_new0 (guint64, n_rows);

  for (guint k = 0; k < n; k++) {
    guint idx;
    gboolean match = FALSE;
    for (guint j = 0; j < n_ids; j++)
      match |= r[k].flow == ids[j];
    if (!match)
      continue;
    idx = (guint) llround (RTPCC_TIME_AS_SEC (r[k].time) / EVAL_INTERVAL_S);
    if (idx >= n_rows)
      continue;
    rows[idx].capacity_kbps = r[k].capacity_kbps;
    rows[idx].send_kbps += r[k].send_kbps;
    rows[idx].recv_kbps += r[k].recv_kbps;
    if (r[k].recv_packets > 0 && isfinite (r[k].qdelay_ms_mean)) {
      qsum[idx] += r[k].qdelay_ms_mean * r[k].recv_packets;
      recv_pk[idx] += r[k].recv_packets;
      rows[idx].queue_delay_max_ms = isfinite (rows[idx].queue_delay_max_ms)
          ? MAX (rows[idx].queue_delay_max_ms, r[k].qdelay_ms_max) :
          r[k].qdelay_ms_max;
    }
    sent[idx] += r[k].sent_packets;
    drop[idx] += r[k].dropped_packets;
  }
  for (guint k = 0; k < n_rows; k++) {
    rows[k].queue_delay_ms = recv_pk[k] ? qsum[k] / recv_pk[k] : NAN;
    rows[k].loss_pct = sent[k] ? 100.0 * drop[k] / sent[k] : 0.0;
  }
  g_free (qsum);
  g_free (sent);
  g_free (drop);
}

static void
collect (Run * run, EvalResult * res)
{
  const EvalCase *c = run->c;
  guint n_rows = (guint) floor (c->duration_s / EVAL_INTERVAL_S + 1e-9);

  for (guint i = 0; i < c->n_flows; i++) {
    const EvalFlow *f = &c->flows[i];
    EvalFlowResult *fr = &res->flows[i];
    SimRtpccRow *rows = g_new0 (SimRtpccRow, n_rows);
    guint64 *recv_pk = g_new0 (guint64, n_rows);
    guint ids[MAX_SUB], n_ids = 0;
    SimMetrics *m = f->reverse ? run->rev_metrics : run->net->metrics;
    SimFlowSummary sum;

    fr->id = i;
    fr->kind = f->kind;
    fr->competitor_entries = -1;
    fr->reverse = f->reverse;
    fr->start_s = f->start_s;
    fr->stop_s = eval_flow_stop (c, f);
    fr->pause_s = f->pause_s;
    fr->resume_s = f->resume_s;
    fr->pkt_qdelay_p95_ms = fr->pkt_qdelay_max_ms = NAN;
    for (guint k = 0; k < n_rows; k++) {
      rows[k].time = RTPCC_SEC (k * EVAL_INTERVAL_S);
      rows[k].capacity_kbps = NAN;
      rows[k].queue_delay_max_ms = NAN;
      rows[k].target_kbps = rows[k].sender_delay_ms = NAN;
      rows[k].rtt_ms = k < run->rtt[i]->len ?
          g_array_index (run->rtt[i], gdouble, k) : NAN;
    }
    if (f->kind == EVAL_FLOW_MEDIA)
      ids[n_ids++] = i;
    else
      for (guint j = 0; j < run->n_tcp[i]; j++)
        ids[n_ids++] = tcp_flow_id (i, j);
    fill_rows (m, ids, n_ids, n_rows, rows, recv_pk);
    /* rows before the flow's first packet: the schedule in force (its
     * changes fall on row boundaries) */
    for (guint k = 0; k < n_rows; k++) {
      RtpccCapacity *cap = f->reverse ? run->rcap : run->fcap;
      if (isnan (rows[k].capacity_kbps))
        rows[k].capacity_kbps = cap ? rtpcc_capacity_rate_at (cap,
            rows[k].time, 0) / 1000.0 : INFINITY;
    }

    if (f->kind == EVAL_FLOW_MEDIA && run->sender[i]) {
      SimRtpccSender *s = run->sender[i];
      RtpccTime start = RTPCC_SEC (f->start_s);
      guint nt;
      const SimRtpccTargetChange *tl = sim_rtpcc_sender_get_target_log (s,
          &nt);
      for (guint k = 0; k < n_rows; k++) {
        RtpccTime t0 = rows[k].time, t1 = t0 + RTPCC_MSEC (200);
        gdouble mean;
        if (t1 <= start)
          continue;
        rows[k].target_kbps = sim_rtpcc_sender_target_mean (s, MAX (t0,
                start), t1) / 1000.0;
        if (sim_rtpcc_sender_delay_stats (s, t0, t1, &mean, NULL, NULL))
          rows[k].sender_delay_ms = mean;
      }
      for (guint k = 0; k < nt; k++)
        if (!g_strcmp0 (tl[k].state, "circuit-breaker") && (k == 0 ||
                g_strcmp0 (tl[k - 1].state, "circuit-breaker")))
          fr->breaker_trips++;
      fr->stalls = sim_rtpcc_sender_get_counters (s)->stalls;
      if (run->fec[i]) {
        fr->has_fec = TRUE;
        sim_fec_get_result (run->fec[i], &fr->fec);
      }
      {
        RtpccController *cc = rtpcc_sender_get_controller
            (sim_rtpcc_sender_get_sender (s));
        RtpccGccInfo gi;
        RtpccNadaInfo ni;

        if (rtpcc_gcc_get_info (cc, &gi))
          fr->competitor_entries = gi.n_competitor_entries;
        else if (rtpcc_nada_get_info (cc, &ni))
          fr->competitor_entries = ni.n_competitor_entries;
      }
      {
        RtpccFbraInfo fi;
        if (rtpcc_fbra_get_info (rtpcc_sender_get_controller
                (sim_rtpcc_sender_get_sender (s)), &fi)) {
          fr->fec_ended = fi.fec_raised + fi.fec_kept + fi.fec_down;
          fr->fec_good = fi.fec_raised + fi.fec_kept;
        }
      }
      if (sim_metrics_summarize (m, i, RTPCC_SEC (f->start_s +
                  EVAL_SETTLE_S), RTPCC_SEC (fr->stop_s), &sum)) {
        fr->pkt_qdelay_p95_ms = sum.qdelay_ms_p95;
        fr->pkt_qdelay_max_ms = sum.qdelay_ms_max;
      }
    } else {
      for (guint j = 0; j < run->n_tcp[i]; j++) {
        SimTcpStats st;
        sim_tcp_flow_get_stats (run->tcp[i][j], &st);
        fr->tcp_transfers += st.transfers_done;
      }
    }
    fr->rows = g_array_new (FALSE, FALSE, sizeof (SimRtpccRow));
    g_array_append_vals (fr->rows, rows, n_rows);
    g_free (rows);
    g_free (recv_pk);
  }
}

EvalResult *
eval_run (const EvalCase * c, const EvalRunConfig * config, GError ** error)
{
  Run *run;
  EvalResult *res;
  SimRtpccNetConfig nc;
  gint64 wall0 = g_get_monotonic_time ();
  gdouble starts[EVAL_MAX_FLOWS];
  guint order[EVAL_MAX_FLOWS], n_media = 0;

  if (!rtpcc_controller_lookup (config->controller)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "unknown controller '%s'", config->controller);
    return NULL;
  }
  run = g_new0 (Run, 1);
  run->c = c;
  run->cfg = *config;
  run->fcap = c->trace ? rtpcc_capacity_new_trace (c->trace, strlen
      (c->trace), error) : rtpcc_capacity_new_schedule (c->schedule, error);
  if (!run->fcap)
    goto fail;
  if (c->reverse_schedule) {
    run->rcap = rtpcc_capacity_new_schedule (c->reverse_schedule, error);
    if (!run->rcap)
      goto fail;
  }
  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = run->fcap;
  nc.forward.delay = (RtpccTime) llround (c->delay_ms * RTPCC_NSEC_PER_MSEC);
  nc.forward.queue_limit_time =
      (RtpccTime) llround (c->queue_ms * RTPCC_NSEC_PER_MSEC);
  nc.forward.seed = config->seed;
  nc.forward.loss = c->loss;
  nc.reverse.loss = c->reverse_loss;
  nc.reverse.capacity = run->rcap;
  nc.reverse.delay = nc.forward.delay;
  nc.reverse.queue_limit_time =
      (RtpccTime) llround (c->reverse_queue_ms * RTPCC_NSEC_PER_MSEC);
  nc.reverse.seed = config->seed ^ G_GUINT64_CONSTANT (0x5eed5eed5eed5eed);
  if (config->tbf_burst) {
    nc.forward.burst_bytes = nc.reverse.burst_bytes = EVAL_TBF_BURST_BYTES;
    nc.forward.burst_time = nc.reverse.burst_time = EVAL_TBF_BURST_TIME;
  }
  run->net = sim_rtpcc_net_new (&nc);
  for (guint i = 0; i < c->n_flows; i++)
    run->rtt[i] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  run->link = g_array_new (FALSE, FALSE, sizeof (EvalLinkSample));
  run->sampler = sim_schedule (run->net->sim, RTPCC_MSEC (200), sample, run);
  if (config->rtp_log_dir) {
    if (!open_rtp_logs (run, error))
      goto fail;
    sim_link_set_observer (run->net->forward, rtp_observe, run);
    sim_link_set_observer (run->net->reverse, rtp_observe, run);
  }

  for (guint i = 0; i < c->n_flows; i++) {
    if (c->flows[i].kind != EVAL_FLOW_MEDIA) {
      if (!add_tcp (run, i, error))
        goto fail;
    } else {
      /* insertion sort of media flows by start time */
      guint k = n_media++;
      while (k > 0 && starts[k - 1] > c->flows[i].start_s) {
        starts[k] = starts[k - 1];
        order[k] = order[k - 1];
        k--;
      }
      starts[k] = c->flows[i].start_s;
      order[k] = i;
    }
  }
  for (guint k = 0; k < n_media; k++) {
    RtpccTime at = RTPCC_SEC (starts[k]);
    if (at > sim_now (run->net->sim))
      sim_rtpcc_net_run (run->net, at);
    if (!add_media (run, order[k], error))
      goto fail;
  }
  sim_rtpcc_net_run (run->net, RTPCC_SEC (c->duration_s));
  if (run->rev_metrics)
    sim_metrics_finish (run->rev_metrics, RTPCC_SEC (c->duration_s));

  res = g_new0 (EvalResult, 1);
  res->c = c;
  res->controller = g_strdup (config->controller);
  res->seed = config->seed;
  res->n_flows = c->n_flows;
  collect (run, res);
  res->link = run->link;
  run->link = NULL;
  res->events = sim_events_run (run->net->sim);
  run_free (run);
  eval_score (res);
  res->wall_s = (g_get_monotonic_time () - wall0) / 1e6;
  return res;

fail:
  run_free (run);
  return NULL;
}

void
eval_result_free (EvalResult * r)
{
  if (!r)
    return;
  for (guint i = 0; i < r->n_flows; i++)
    if (r->flows[i].rows)
      g_array_free (r->flows[i].rows, TRUE);
  if (r->windows)
    g_array_free (r->windows, TRUE);
  if (r->convergence)
    g_array_free (r->convergence, TRUE);
  if (r->link)
    g_array_free (r->link, TRUE);
  g_free (r->controller);
  g_free (r);
}

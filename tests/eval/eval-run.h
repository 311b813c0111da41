/* Run an RFC 8867 case (eval-case.h) in the simulator with one
 * controller, and score it with the RFC 8868 metrics (eval-metrics.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_EVAL_RUN_H__
#define __RTPCC_EVAL_RUN_H__

#include "eval-case.h"
#include "sim-rtpcc.h"

G_BEGIN_DECLS

/* Metric parameters (docs/results.md; rfc8868.py uses the same). */
#define EVAL_INTERVAL_S 0.2
#define EVAL_SETTLE_S 5.0       /* left out after every event */
#define EVAL_MIN_WINDOW_S 2.0
#define EVAL_CONV_TOL 0.2       /* ±20 % of the reference rate */
#define EVAL_CONV_HOLD_S 2.0
#define EVAL_OSC_LOW 0.5        /* watermarks, × reference rate */
#define EVAL_OSC_HIGH 1.5
#define EVAL_OSC_WINDOW_S 1.0

typedef struct
{
  const gchar *controller;
  guint64 seed;
  gboolean frames;              /* TRUE: plain frame source, not the codec */
  /* non-NULL: write RFC 8868 §4 RTP logs flow<i>-send.log / -recv.log
   * ("timestamp(sec.usec) PT SSRC(hex) seq rtp_ts marker payload_size",
   * at the bottleneck entry and at delivery) into this directory */
  const gchar *rtp_log_dir;
  /* TRUE: each codec follows its target through rtpccsink's encoder
   * hysteresis (SimRtpccSenderConfig.encoder_hysteresis) */
  gboolean encoder_hysteresis;
  /* "key=value;..." for every media flow's controller, or NULL */
  const gchar *controller_params;
  /* TRUE: real FEC (sim-fec.h) on every forward media flow, at the FEC
   * rate its controller asks for, instead of padding probes */
  gboolean fec;
  /* TRUE: the bottlenecks are token buckets as the real-time runner's tbf
   * (tests/eval/rt/netns.sh: a burst of 3200 bytes or 5 ms at the rate,
   * whichever is larger) instead of plain serializers */
  gboolean tbf_burst;
  /* TRUE: each codec is modelled on x264enc as the real-time runner
   * runs it (sim_codec_config_x264), behind the encoder hysteresis */
  gboolean encoder_x264;
} EvalRunConfig;

typedef struct
{
  guint id;                     /* index in the case's flows */
  EvalFlowKind kind;
  gboolean reverse;
  gdouble start_s, stop_s, pause_s, resume_s;
  GArray *rows;                 /* SimRtpccRow, from 0 s */
  /* per-packet queue delay over the flow's active time (simulator only) */
  gdouble pkt_qdelay_p95_ms, pkt_qdelay_max_ms;
  /* row metrics over the active time (see eval_score) */
  gdouble send_kbps, recv_kbps, target_kbps, rtt_ms, loss_pct;
  gdouble qdelay_mean_ms, qdelay_p50_ms, qdelay_p95_ms, qdelay_max_ms;
  /* counters */
  guint64 breaker_trips, stalls;
  guint tcp_transfers;
  /* times a gcc or nada controller took a loss-based flow to hold the
   * queue (cc/competitor.h); -1 for other controllers */
  gint competitor_entries;
  /* EvalRunConfig.fec: what became of the media (sim-fec.h) */
  gboolean has_fec;
  SimFecResult fec;
  /* an fbra controller's FEC episodes: ended, and ended not in DOWN (the
   * FBRA paper's FRCC counts; 0 for other controllers) */
  guint64 fec_ended, fec_good;
} EvalFlowResult;

typedef struct
{
  gdouble t0, t1;
  gboolean reverse;
  gdouble capacity_kbps;
  guint n_media;
  gboolean tcp;
  gdouble util, media_util, jain, qdelay_p95_ms;
  gdouble cv_max;               /* over active media flows (no TCP) */
  guint swings;
} EvalWindow;

typedef struct
{
  guint flow;
  gdouble time, next, ref_kbps;
  gdouble conv_s;               /* NaN: not within the band before next */
} EvalConvergence;

typedef struct
{
  gdouble util, media_util;     /* window-length-weighted means */
  gdouble jain_min, jain_mean;  /* NaN without multi-flow windows */
  gdouble qdelay_mean_ms, qdelay_p95_ms, qdelay_max_ms;  /* over media flows */
  gdouble pkt_qdelay_p95_ms;    /* per packet, worst media flow */
  gdouble loss_pct;             /* worst media flow */
  gdouble conv_mean_s, conv_max_s;
  guint conv_n, conv_missed;
  guint swings;
  gdouble cv_max;
  gdouble media_share;          /* media / (media + TCP), NaN without TCP */
  gdouble tcp_kbps, media_kbps;
  guint64 breaker_trips, stalls;
  /* competitor_entries over the media flows; NaN: no controller has the
   * detector */
  gdouble competitor_entries;
  /* FEC of the media flows over their active time (NaN without): parity
   * kbit/s summed; FFRE and FRCC over all flows' frames and episodes */
  gdouble fec_kbps, ffre, frcc;
} EvalSummary;

/* The bottleneck at one instant: its capacity and the time its backlog
 * takes to drain (bytes queued × 8 / capacity; NaN during an outage). */
typedef struct
{
  gdouble time_s, capacity_kbps, backlog_ms;
} EvalLinkSample;

/* tests/eval/rt/netns.sh's tbf bucket */
#define EVAL_TBF_BURST_BYTES 3200
#define EVAL_TBF_BURST_TIME RTPCC_MSEC (5)

typedef struct
{
  const EvalCase *c;
  gchar *controller;
  guint64 seed;
  guint n_flows;
  EvalFlowResult flows[EVAL_MAX_FLOWS];
  GArray *windows;              /* EvalWindow */
  GArray *convergence;          /* EvalConvergence */
  EvalSummary summary;
  /* the forward bottleneck sampled every 200 ms (EvalLinkSample), as the
   * real-time runner samples the tbf qdisc */
  GArray *link;
  guint64 events;
  gdouble wall_s;
} EvalResult;

/* NULL and @error on an unknown controller or a bad case. */
EvalResult *eval_run (const EvalCase * c, const EvalRunConfig * config,
    GError ** error);
void eval_result_free (EvalResult * r);

/* Fill the flows' row metrics, windows, convergence and summary from the
 * rows (what rfc8868.py computes from the CSVs). eval_run calls it. */
void eval_score (EvalResult * r);

/* Per-flow CSV (SIM_RTPCC_CSV_HEADER) and the JSON summary. */
void eval_result_write_csv (const EvalResult * r, guint flow, GString * out);
void eval_result_write_json (const EvalResult * r, GString * out);
/* flow<i>.csv, link.csv (the samples: time_s,capacity_kbps,queue_delay_ms,
 * the real-time runner's columns) and summary.json in @dir (created). */
gboolean eval_result_write_dir (const EvalResult * r, const gchar * dir,
    GError ** error);

/* Registered controllers that the suite runs (every registered one but
 * "fixed", which does not react to congestion). Free with g_strfreev. */
gchar **eval_controllers (void);

G_END_DECLS

#endif

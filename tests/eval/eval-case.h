/* RFC 8867 §5.1–5.8 test cases, defined once as data.
 *
 * The simulator runner (eval-run.c, rtpcc-eval) builds them on a
 * SimRtpccNet; `rtpcc-eval --describe CASE` prints the same definition as
 * JSON for the real-time runner (tests/eval/rt). Schedules are those of
 * ns3-rmcat's rmcat-wired suite (draft-ietf-rmcat-eval-test-05, i.e.
 * RFC 8867), with 1 Mbit/s = 10⁶ bit/s as ns3-rmcat counts it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_EVAL_CASE_H__
#define __RTPCC_EVAL_CASE_H__

#include <glib.h>
#include <rtpcc/net/loss.h>

G_BEGIN_DECLS

#define EVAL_MAX_FLOWS 8

typedef enum
{
  EVAL_FLOW_MEDIA,
  EVAL_FLOW_TCP_LONG,           /* always backlogged from start to stop */
  EVAL_FLOW_TCP_SHORT,          /* files with exponential OFF times */
} EvalFlowKind;

typedef struct
{
  EvalFlowKind kind;
  gboolean reverse;             /* sent over the backward path (§5.3; TCP:
                                 * its data loads the feedback path) */
  gdouble start_s, stop_s;      /* stop < 0: the case's end */
  gdouble extra_delay_ms;       /* added one way, each direction (§5.5) */
  gdouble pause_s, resume_s;    /* media: no frames in [pause, resume); <0 none */
  /* TCP */
  const gchar *tcp_cc;          /* "newreno" (ns3-rmcat) or "cubic" */
  guint count;                  /* short: this many flows */
  guint count_on;               /* short: of which start ON (rest OFF) */
  guint file_kb_min, file_kb_max;
  gdouble off_mean_s;
} EvalFlow;

typedef struct
{
  const gchar *id;              /* "5.1" */
  const gchar *title;
  const gchar *schedule;        /* forward capacity, kbit/s@s */
  const gchar *reverse_schedule;        /* NULL: unlimited */
  gdouble delay_ms;             /* one way, each direction */
  gdouble queue_ms;             /* forward drop-tail, at current capacity */
  gdouble reverse_queue_ms;     /* 0: none (unlimited reverse) */
  gdouble duration_s;
  guint n_flows;
  EvalFlow flows[EVAL_MAX_FLOWS];
  const gchar *notes;

  /* Beyond RFC 8867 (the scenario matrix, eval-matrix.h); zero: none. */
  const gchar *trace;           /* mahimahi trace text: the forward capacity
                                 * instead of @schedule */
  const gchar *trace_path;      /* where that text is on disk (described
                                 * for the real-time runner), or NULL */
  RtpccLossParams loss;         /* forward random loss before the queue */
  RtpccLossParams reverse_loss; /* feedback path random loss */
  guint keyframe_interval;      /* codec: a key frame every N frames */
  guint iframe_bytes;           /* codec: extra bytes of a key frame; 0:
                                 * the codec's default */
  guint min_kbps, start_kbps, max_kbps; /* media rates; 0: EVAL_*_BPS */
  gboolean start_kbps_set;      /* start_kbps also applies to "rr" */
  const gchar *topology;        /* "sender-qdisc": the real-time runner puts
                                 * the bottleneck on the sender's own
                                 * interface; NULL: a router between */
} EvalCase;

/* Media rates of every case (RFC 8867 §4: R_min = R_init = 150 kbit/s;
 * R_max raised from 1.5 to 3 Mbit/s so a single flow can follow §5.1's
 * 2.5 Mbit/s phase, as tests/sim/test-sim-rfc8867.c does). */
#define EVAL_MIN_BPS 150000
#define EVAL_START_BPS 150000
#define EVAL_MAX_BPS 3000000

guint eval_case_count (void);
const EvalCase *eval_case_get (guint i);
const EvalCase *eval_case_find (const gchar * id);

/* The case's media rates in bit/s (its own, else EVAL_*_BPS). */
guint64 eval_case_min_bps (const EvalCase * c);
guint64 eval_case_max_bps (const EvalCase * c);
/* Start rate for @controller: "rr" starts at R_max (linphone's nominal
 * rate) unless the case sets a start rate; 0 means R_max to the sender. */
guint64 eval_case_start_bps (const EvalCase * c, const gchar * controller);

/* Media flows / TCP flow entries (a short entry counts once). */
guint eval_case_n_media (const EvalCase * c);
gdouble eval_flow_stop (const EvalCase * c, const EvalFlow * f);

/* @s as a JSON string (quoted, escaped; NULL: null) appended to @out. */
void eval_json_string (const gchar * s, GString * out);

/* The definition as JSON (see docs/results.md for the keys). */
void eval_case_describe (const EvalCase * c, GString * out);

G_END_DECLS

#endif

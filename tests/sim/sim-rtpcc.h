/* Closed-loop simulator endpoints: the library's RtpccSender and
 * RtpccReceiver state machines as simulator nodes, and RFC 8867-style
 * scenarios built from them.
 *
 *   SimSource (frames) ─▶ SimRtpccSender ─▶ send tap ─▶ forward SimLink ─▶
 *        ▲   set_rate      (enqueue → pacer/window → dequeue; SR out)
 *        │                                         receive tap ─▶ demux ─▶
 *        └── target.media_bitrate                      SimRtpccReceiver
 *   SimRtpccSender ◀─ demux ◀─ reverse SimLink ◀── feedback (CCFB / RR bytes)
 *
 * Media packets carry a SimRtpHeader in SimPacket.data: the RTP header
 * bytes the sender library wrote for the wire (renumbered, stamped with the
 * transport-wide seq) in front of a virtual payload, or a whole probe
 * packet; the receiver library parses them. RTCP packets (SR forward, feedback
 * backward) are SIM_PACKET_FEEDBACK packets whose data is a GBytes with the
 * serialized RTCP, so the library's parsers run on every report. RTCP rides
 * with the media flow id (RTP/RTCP multiplexing on one 5-tuple), so the
 * metrics count the SRs as part of the flow's wire traffic.
 *
 * The receiver may run on its own clock: receiver time = simulated time +
 * clock_offset (a constant), as two hosts' monotonic clocks differ.
 *
 * Nodes hold cancellable timers: free senders, receivers and nets before the
 * Sim (sim_rtpcc_net_free does it in the right order).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SIM_RTPCC_H__
#define __RTPCC_SIM_RTPCC_H__

#include "sim.h"
#include "sim-fec.h"

#include <rtpcc/sender.h>
#include <rtpcc/receiver.h>

G_BEGIN_DECLS

/* The RFC 8285 ID of the transport-wide seq (TWCC mode) in simulated
 * packets: the library sender's default. */
#define SIM_RTPCC_TWCC_EXT_ID 1

/* Payload of a media packet once an rtpcc sender has taken it: its first
 * bytes as on the wire, written by the sender library (RtpccWirePacket's
 * head); the rest, up to SimPacket.size, is a payload that is never
 * materialised. A padding-only probe is there whole (len = size). */
typedef struct
{
  RtpccTime enqueued;           /* when the sender took it from the source */
  gsize len;                    /* bytes in data */
  /*< private > */
  Sim *sim;
  guint8 data[];
} SimRtpHeader;

/* What @p's bytes say (its SimRtpHeader parsed as a receiver would, TWCC
 * ID SIM_RTPCC_TWCC_EXT_ID; size = SimPacket.size); @header_len may be
 * NULL. FALSE if @p carries no valid RTP header. */
gboolean sim_rtp_header_parse (const SimPacket * p, RtpccRtpInfo * info,
    gsize * header_len);

/* ------------------------------------------------------------------------ */
/* Sender endpoint                                                          */

typedef struct
{
  guint flow;                   /* media flow id (packets from the source) */
  RtpccSenderConfig sender;     /* controller, bitrates, feedback mode, seed;
                                 * strings must outlive sim_rtpcc_sender_new */
  guint32 ssrc;                 /* 0: 0x5eed0000 + flow */
  guint8 pt;
  guint16 initial_seq;          /* RTP seq of the flow's packet 0 (wraps) */
  guint32 initial_rtp_ts;
  /* RFC 4588 retransmission of NACKed packets (RtpccRtxSender) with this
   * payload type on an SSRC of its own, queued in the sender like media;
   * 0 (default): none. The history keeps the headers only (the payload is
   * virtual), so its rate limit counts header bytes: none is applied. */
  guint8 rtx_pt;
  /* Called with each RTX packet the RTX sender builds (header + OSN, as
   * its history numbers it) and @index, the SimPacket.seq it will have,
   * before it is queued; FALSE: not sent (counted in rtx_refused). NULL
   * (default): all sent. A multipath path writes the packet's wire form
   * here (sim-mprtp.h). */
  gboolean (*rtx_hook) (const guint8 * pkt, gsize len, guint64 index,
      gpointer user_data);
  gpointer rtx_hook_data;
  /* TRUE: the source follows the target through the hysteresis rtpccsink
   * applies before it sets the encoder's bitrate (encoderrate.h:
   * decreases of >= 5 % at once, increases at most once a second), as in
   * a real pipeline; FALSE (default): the target reaches the source at
   * once. */
  gboolean encoder_hysteresis;
  /* Real FEC (sim-fec.h) on the media, shared with the flow's receiver:
   * parity packets at the split of the target the controller asks for,
   * queued like media; NULL (default): none (a controller's FEC rate is
   * then probed with padding, as rtpccsink does without fecenc). */
  SimFec *fec;
} SimRtpccSenderConfig;

/* Flow 0, library sender defaults, ssrc 0 (derived), pt 96, seq 0, ts 0. */
void sim_rtpcc_sender_config_init (SimRtpccSenderConfig * config);

typedef struct
{
  guint64 media_in;             /* packets taken from the source */
  guint64 media_out;            /* packets dequeued onto the wire */
  guint64 probe_out;            /* padding-only probe packets sent */
  guint64 rtcp_out, rtcp_bytes_out;     /* SR packets sent */
  guint64 feedback_in;          /* RTCP packets from the reverse path */
  guint64 feedback_rejected;    /* of which receive_rtcp returned FALSE */
  guint64 wakeups;              /* timer events */
  /* next_timeout() still <= now after a full service round: the endpoint
   * retries 1 ms later instead of spinning (see docs/simulator.md) */
  guint64 stalls;
  guint64 generations;          /* target generation changes seen */
  guint64 rtx_out;              /* RTX packets queued (rtx_pt) */
  guint64 rtx_refused;          /* RTX packets config.rtx_hook refused */
  guint64 fec_out;              /* FEC packets queued (config.fec) */
} SimRtpccSenderCounters;

/* One entry per change of target or media bitrate. */
typedef struct
{
  RtpccTime time;
  guint64 target_bitrate, media_bitrate, pacing_rate;
  guint32 cwnd;
  const gchar *state, *reason;  /* static strings from the library */
} SimRtpccTargetChange;

typedef struct _SimRtpccSender SimRtpccSender;

/* Dequeued media and SRs go to @forward (usually the send tap). */
SimRtpccSender *sim_rtpcc_sender_new (Sim * sim,
    const SimRtpccSenderConfig * config, SimNode * forward, GError ** error);
/* Cancels its timer and frees the packets still queued. Before sim_free. */
void sim_rtpcc_sender_free (SimRtpccSender * sender);
/* Media (from the source) and RTCP (from the reverse path) both come in
 * here; SIM_PACKET_MEDIA is enqueued, SIM_PACKET_FEEDBACK parsed. */
SimNode *sim_rtpcc_sender_node (SimRtpccSender * sender);
void sim_rtpcc_sender_set_forward (SimRtpccSender * sender, SimNode * forward);
/* The sender drives @src with target.media_bitrate (set now and on every
 * target change) and becomes the source's next node. */
void sim_rtpcc_sender_set_source (SimRtpccSender * sender, SimSource * src);
RtpccSender *sim_rtpcc_sender_get_sender (SimRtpccSender * sender);
/* Feedback parsed and numbered by someone else (sim-session.h): into
 * rtpcc_sender_transport_feedback now, counted like RTCP, then the sender
 * is serviced. */
gboolean sim_rtpcc_sender_transport_feedback (SimRtpccSender * sender,
    const RtpccTransportPacket * pkts, guint n);
const SimRtpccSenderCounters *sim_rtpcc_sender_get_counters (SimRtpccSender *
    sender);
const SimRtpccTargetChange *sim_rtpcc_sender_get_target_log (SimRtpccSender *
    sender, guint * n);
/* Target bitrate (bit/s) in force at @t, and its time-weighted mean over
 * [t0, t1). */
guint64 sim_rtpcc_sender_target_at (SimRtpccSender * sender, RtpccTime t);
/* Sender-side waits (dequeue time − enqueue time) of the media packets
 * dequeued in [t0, t1): count, mean, nearest-rank p95 and max in ms (NaN
 * if none; any pointer may be NULL). */
guint sim_rtpcc_sender_delay_stats (SimRtpccSender * sender, RtpccTime t0,
    RtpccTime t1, gdouble * mean_ms, gdouble * p95_ms, gdouble * max_ms);
gdouble sim_rtpcc_sender_target_mean (SimRtpccSender * sender, RtpccTime t0,
    RtpccTime t1);

/* ------------------------------------------------------------------------ */
/* Receiver endpoint                                                        */

typedef struct
{
  guint flow;                   /* flow id of the feedback packets it sends */
  RtpccReceiverConfig receiver;
  RtpccTime clock_offset;       /* receiver clock = sim time + offset, >= 0 */
  gsize max_packet;             /* largest feedback packet, bytes (1472) */
  /* NACKs for losses repairable in time and RTX restore
   * (RtpccRtxReceiver, as rtpccsrc repair=nack runs it); FALSE (default):
   * none. repair.playout_delay is the deadline. */
  gboolean repair;
  guint8 rtx_pt;
  RtpccRepairConfig repair_config;
  /* the flow's FEC (its sender's config.fec): media and parity go to its
   * decoder; NULL: none */
  SimFec *fec;
} SimRtpccReceiverConfig;

void sim_rtpcc_receiver_config_init (SimRtpccReceiverConfig * config);

typedef struct
{
  guint64 media_in, rtcp_in, rtcp_rejected;
  guint64 feedback_out, feedback_bytes_out;
  guint64 wakeups, stalls;
  /* media packets passed on (originals with payload, not RTX), RTX
   * restored into missing ones, NACK/PLI packets sent */
  guint64 media_delivered, rtx_restored, repair_out;
} SimRtpccReceiverCounters;

typedef struct _SimRtpccReceiver SimRtpccReceiver;

/* Feedback goes to @reverse (usually the reverse SimLink). */
SimRtpccReceiver *sim_rtpcc_receiver_new (Sim * sim,
    const SimRtpccReceiverConfig * config, SimNode * reverse);
void sim_rtpcc_receiver_free (SimRtpccReceiver * receiver);
SimNode *sim_rtpcc_receiver_node (SimRtpccReceiver * receiver);
void sim_rtpcc_receiver_set_reverse (SimRtpccReceiver * receiver,
    SimNode * reverse);
RtpccReceiver *sim_rtpcc_receiver_get_receiver (SimRtpccReceiver * receiver);
const SimRtpccReceiverCounters
    * sim_rtpcc_receiver_get_counters (SimRtpccReceiver * receiver);

/* ------------------------------------------------------------------------ */
/* Network: shared forward/reverse bottlenecks, flows added one by one.
 *
 *   senders ─▶ send tap ─▶ forward link ─▶ receive tap ─▶ demux ─▶ receivers
 *   senders ◀─ demux ◀─ reverse link ◀─ receivers
 *
 * One flow (RFC 8867 §5.1) today; §5.2/§5.4 add flows to the same net. */

typedef enum
{
  SIM_RTPCC_FEEDBACK_AUTO,      /* "rr" controller: RTCP RR only; else CCFB */
  SIM_RTPCC_FEEDBACK_CCFB,
  SIM_RTPCC_FEEDBACK_RR,
  SIM_RTPCC_FEEDBACK_TWCC,
} SimRtpccFeedback;

const gchar *sim_rtpcc_feedback_name (SimRtpccFeedback feedback);
gboolean sim_rtpcc_feedback_from_string (const gchar * name,
    SimRtpccFeedback * out);

typedef struct
{
  RtpccLinkConfig forward;      /* capacity not owned (the link refs it) */
  RtpccLinkConfig reverse;      /* default: unlimited, no queue limit */
  RtpccTime interval;           /* metrics log interval, 200 ms */
  FILE *log;                    /* SimMetrics CSV (per flow), or NULL */
} SimRtpccNetConfig;

/* Unlimited forward link with a 300 ms queue, unlimited reverse link,
 * no delay, 200 ms interval. */
void sim_rtpcc_net_config_init (SimRtpccNetConfig * config);

typedef struct
{
  guint flow;
  SimRtpccSenderConfig sender;
  SimRtpccReceiverConfig receiver;
  SimFrameConfig frames;        /* target_bps is set by the controller */
  /* real FEC at the controller's FEC rate (sim-fec.h: the flow makes the
   * SimFec its sender and receiver share) instead of padding probes */
  gboolean fec;
} SimRtpccFlowConfig;

/* A consistent flow: @controller with @feedback (AUTO resolved here), the
 * flow id in all three parts, seeds derived from @seed, frames 25 fps,
 * MTU 1200 with a 12-byte RTP header, noise 0.1, keyframe first only. */
void sim_rtpcc_flow_config_init (SimRtpccFlowConfig * config, guint flow,
    const gchar * controller, SimRtpccFeedback feedback, guint64 seed);

typedef struct
{
  guint flow;
  SimSource *source;
  SimRtpccSender *sender;
  SimRtpccReceiver *receiver;
  SimFec *fec;                  /* config.fec, else NULL */
  /*< private > */
  GArray *rtt;                  /* srtt samples at interval ends */
} SimRtpccFlow;

typedef struct
{
  Sim *sim;
  SimMetrics *metrics;
  SimTap *send_tap, *recv_tap;
  SimLink *forward, *reverse;
  SimDemux *forward_demux, *reverse_demux;
  GPtrArray *flows;             /* SimRtpccFlow* */
  RtpccTime interval;
  /*< private > */
  SimTimer sampler;
  GPtrArray *tcp_flows;         /* SimTcpFlow* (sim-tcp.h), NULL if none */
} SimRtpccNet;

SimRtpccNet *sim_rtpcc_net_new (const SimRtpccNetConfig * config);
/* NULL and @error on a bad controller name or config. */
SimRtpccFlow *sim_rtpcc_net_add_flow (SimRtpccNet * net,
    const SimRtpccFlowConfig * config, GError ** error);
/* Run to @t_end and complete the metrics up to it. */
void sim_rtpcc_net_run (SimRtpccNet * net, RtpccTime t_end);
void sim_rtpcc_net_free (SimRtpccNet * net);

/* ------------------------------------------------------------------------ */
/* Results                                                                  */

/* One 200 ms row (RFC 8868 §4), the real-time demo's CSV columns. */
typedef struct
{
  RtpccTime time;               /* start of [time, time + interval) */
  gdouble capacity_kbps;
  gdouble target_kbps;          /* time-weighted mean of target_bitrate */
  gdouble send_kbps, recv_kbps;
  gdouble queue_delay_ms;       /* mean over packets received; NaN if none */
  gdouble queue_delay_max_ms;
  gdouble loss_pct;
  /* mean time media packets dequeued in the row waited in the sender
   * (pacer / window); NaN if none. Not part of the link's queue delay. */
  gdouble sender_delay_ms;
  gdouble rtt_ms;               /* sender's smoothed RTT at the row's end */
} SimRtpccRow;

/* The real-time demo's columns, then sender_delay_ms (extra columns are
 * ignored by a plot script reading by name). */
#define SIM_RTPCC_CSV_HEADER "time_s,capacity_kbps,target_kbps,send_kbps," \
  "recv_kbps,queue_delay_ms,loss_pct,rtt_ms,sender_delay_ms\n"

/* A steady phase: [capacity change + settle, next change). */
typedef struct
{
  RtpccTime start, end;
  gdouble capacity_kbps;        /* mean of the rows' capacity */
  gdouble target_kbps, send_kbps, recv_kbps;
  gdouble utilisation;          /* recv / capacity */
  gdouble qdelay_p50_ms, qdelay_p95_ms, qdelay_max_ms;
  gdouble loss_pct;
  gdouble sender_delay_p95_ms;  /* wait in the sender (pacer, window) */
} SimRtpccPhase;

/* Response to one capacity change. */
typedef struct
{
  RtpccTime time;
  gdouble from_kbps, to_kbps;
  /* drop: seconds until target_bitrate first < to (0 if already);
   * increase: seconds until the end of the first 200 ms row whose send
   * rate is >= 80 % of to and stays so on average over that row and the
   * next four (1 s) (the send rate, not the receive
   * rate: a standing queue draining at the new capacity would make the
   * receive rate jump at once whatever the controller does). NaN if not
   * before the next change or the end. */
  gdouble response_s;
  /* drop only: seconds until the target first decreases below what it was
   * at the change (the first reaction, whatever its size); NaN otherwise */
  gdouble reduce_s;
} SimRtpccChange;

typedef struct
{
  gchar *controller;
  gchar *feedback;
  SimRtpccRow *rows;
  guint n_rows;
  SimRtpccPhase *phases;
  guint n_phases;
  SimRtpccChange *changes;
  guint n_changes;
  RtpccTime settle;
  SimFlowSummary total;         /* whole run */
  gdouble sender_delay_p95_ms, sender_delay_max_ms;     /* whole run */
  gdouble min_target_kbps, max_target_kbps;     /* after the first feedback */
  SimRtpccSenderCounters sender;
  SimRtpccReceiverCounters receiver;
  RtpccSenderStats sender_stats;
  RtpccReceiverStats receiver_stats;
  guint64 pacer_drops, breaker_drops;
  gboolean breaker_tripped;     /* at the end */
  /* RFC 8083 breaker episodes, from the published target's state */
  guint breaker_trips;
  RtpccTime breaker_first_trip; /* RTPCC_TIME_NONE if never */
  const gchar *breaker_first_reason;
  gdouble breaker_seconds;      /* time spent with the breaker's target */
  guint64 events;
  /* the flow's FEC (config.fec): what became of the media */
  gboolean has_fec;
  SimFecResult fec;
} SimRtpccResult;

/* Series and metrics of @flow up to the net's current time; phases and
 * changes from the forward link's capacity schedule. */
SimRtpccResult *sim_rtpcc_net_collect (SimRtpccNet * net, SimRtpccFlow * flow,
    RtpccTime settle);
void sim_rtpcc_result_free (SimRtpccResult * result);
/* CSV with SIM_RTPCC_CSV_HEADER. */
void sim_rtpcc_result_write_csv (const SimRtpccResult * result, GString * out);
/* Human-readable metrics table, each line prefixed with @prefix. */
void sim_rtpcc_result_format (const SimRtpccResult * result,
    const gchar * prefix, GString * out);

/* ------------------------------------------------------------------------ */
/* Single-flow scenario (RFC 8867 §5.1 by default)                          */

typedef struct
{
  const gchar *controller;      /* "tfrc" */
  guint64 min_bitrate, max_bitrate, start_bitrate;     /* bit/s */
  RtpccCapacity *capacity;      /* not owned; NULL: §5.1's schedule */
  RtpccTime delay;              /* one-way, 50 ms */
  RtpccTime queue;              /* drop-tail at current capacity, 300 ms */
  guint64 queue_bytes;          /* drop-tail in bytes, 0: none */
  RtpccLossParams loss;         /* forward random loss, none */
  RtpccTime jitter;             /* forward delay jitter, 0 */
  gboolean allow_reorder;
  RtpccTime duration;           /* 100 s */
  guint64 seed;
  SimRtpccFeedback feedback;
  RtpccTime clock_offset;       /* receiver clock offset, 0 */
  RtpccCapacity *reverse_capacity;      /* not owned; NULL: unlimited */
  RtpccTime reverse_delay;      /* RTPCC_TIME_NONE: = delay */
  RtpccTime reverse_queue;      /* 0: none */
  RtpccLossParams reverse_loss; /* feedback path random loss, none */
  gdouble fps;                  /* 25 */
  guint mtu;                    /* 1200, RTP packet incl. 12-byte header */
  gdouble noise;                /* 0.1 */
  guint keyframe_interval;      /* 0: first frame only */
  gdouble keyframe_ratio;       /* 4 */
  RtpccTime interval;           /* 200 ms */
  RtpccTime settle;             /* 5 s */
  gboolean circuit_breaker;     /* RFC 8083 in the sender, TRUE */
  const gchar *controller_params;       /* "key=value;...", or NULL */
  RtpccProbeSsrcMode probe_ssrc_mode;   /* the library's default */
  FILE *metrics_log;            /* raw SimMetrics CSV, or NULL */
  gboolean remb;                /* the receiver sends REMB, FALSE */
  gboolean nadu;                /* the receiver runs C-NADU, FALSE */
  gboolean fec;                 /* real FEC (SimRtpccFlowConfig.fec), FALSE */
} SimRtpccScenarioConfig;

/* §5.1: tfrc, 150 kbit/s min and start (R_min = R_init), max 3 Mbit/s (so
 * the controller can follow the 2.5 Mbit/s phase; RFC 8867 says 1.5),
 * 1.0→2.5→0.6→1.0 Mbit/s at 0/40/60/80 s, 50 ms, 300 ms, 100 s, seed 1. */
void sim_rtpcc_scenario_config_init (SimRtpccScenarioConfig * config);
/* Build, run, collect, tear down. NULL and @error on a bad config. */
SimRtpccResult *sim_rtpcc_run_scenario (const SimRtpccScenarioConfig * config,
    GError ** error);
/* For tests: the scenario run (a test failure if it cannot be), its
 * metrics table in the test's log under @title. */
SimRtpccResult *sim_rtpcc_run_logged (const SimRtpccScenarioConfig * config,
    const gchar * title);

G_END_DECLS

#endif

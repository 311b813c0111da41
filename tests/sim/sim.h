/* rtpccsim: a deterministic discrete-event simulator around libgstrtpcc.
 *
 * Simulated time only (RtpccTime, ns); no thread, no wall clock, no global
 * state. Every random draw comes from a seeded RtpccRng, so one seed replays
 * one run exactly.
 *
 *   Sim           event queue on simulated time (min-heap on (time, seq):
 *                 equal times run in scheduling order), cancellable timers,
 *                 packet pool
 *   SimNode       anything that takes a packet: links, taps, demux, sinks,
 *                 and later sender/receiver endpoints and TCP models
 *   SimLink       node around an RtpccLink (the library's link model)
 *   SimSource     CBR and frame-based synthetic sources
 *   SimMetrics    per-flow counters, per-interval RFC 8868-style log, summary
 *   SimOneWay     source → send tap → link → receive tap, ready to run
 *
 * Ownership: a node's receive() takes ownership of the packet. Objects that
 * schedule events (sources) must be freed before the Sim; pending packet
 * deliveries are freed with the Sim.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SIM_H__
#define __RTPCC_SIM_H__

#include <stdio.h>
#include <rtpcc/rtpcc.h>

G_BEGIN_DECLS

typedef struct _Sim Sim;
typedef struct _SimNode SimNode;
typedef struct _SimPacket SimPacket;

/* ------------------------------------------------------------------------ */
/* Event queue                                                              */

typedef void (*SimEventFunc) (Sim * sim, gpointer user_data);

/* Handle of a scheduled event; 0 is never a valid handle. A handle goes stale
 * once its event has run or been cancelled (slots are generation-counted), so
 * cancelling it again is a harmless no-op. */
typedef guint64 SimTimer;

Sim *sim_new (void);
void sim_free (Sim * sim);

RtpccTime sim_now (const Sim * sim);

/* Run @func at @at (>= now). Events at equal times run in the order they
 * were scheduled. */
SimTimer sim_schedule (Sim * sim, RtpccTime at, SimEventFunc func,
    gpointer user_data);
/* TRUE if the event was pending and is now cancelled. */
gboolean sim_cancel (Sim * sim, SimTimer timer);
gboolean sim_timer_pending (const Sim * sim, SimTimer timer);

/* Run every event with time <= @t_end, then set now to @t_end (unless
 * stopped). Returns the number of events run. */
guint64 sim_run_until (Sim * sim, RtpccTime t_end);
/* Run until the queue is empty (or sim_stop). */
guint64 sim_run (Sim * sim);
/* From inside an event: return from sim_run*() after this event. */
void sim_stop (Sim * sim);

guint sim_pending_events (const Sim * sim);
guint64 sim_events_run (const Sim * sim);
/* Time of the next pending event, RTPCC_TIME_INFINITE if none. */
RtpccTime sim_next_event_time (const Sim * sim);

/* ------------------------------------------------------------------------ */
/* Packets                                                                  */

typedef enum
{
  SIM_PACKET_MEDIA,
  SIM_PACKET_FEEDBACK,          /* RTCP feedback on a reverse path */
  SIM_PACKET_TCP_DATA,
  SIM_PACKET_TCP_ACK,
  SIM_PACKET_OTHER,
} SimPacketKind;

#define SIM_NO_FRAME G_MAXUINT64

struct _SimPacket
{
  guint flow;                   /* flow id: demux key, metrics key */
  SimPacketKind kind;
  guint64 seq;                  /* per-flow sequence number from 0 */
  guint size;                   /* bytes on the wire (what links serialize) */

  RtpccTime created;            /* media: capture time of its frame */
  RtpccTime sent;               /* when the sender put it on the wire */

  /* Filled by SimLink along the path (sums over several links). */
  RtpccTime queue_delay;        /* RtpccLinkOutcome.queue_delay */
  RtpccTime path_delay;         /* deliver_at - departure: propagation+jitter */
  guint hops;

  /* Frame information (media from SimFrameSource; SIM_NO_FRAME otherwise). */
  guint64 frame;
  guint frame_packet;           /* index in the frame */
  guint frame_packets;          /* packets in the frame */
  gboolean keyframe;
  gboolean marker;              /* last packet of its frame */

  /* Opaque payload for later layers (an RTP header, a feedback report, a
   * TCP segment); freed with @data_free when the packet is freed. */
  gpointer data;
  GDestroyNotify data_free;

  /*< private > */
  SimPacket *next_free;
};

/* A zeroed packet (frame = SIM_NO_FRAME, times RTPCC_TIME_NONE). */
SimPacket *sim_packet_new (Sim * sim);
void sim_packet_free (Sim * sim, SimPacket * packet);
typedef gpointer (*SimDataCopyFunc) (gconstpointer data);
/* A copy, including @data only if @data_copy is given (else data = NULL). */
SimPacket *sim_packet_copy (Sim * sim, const SimPacket * packet,
    SimDataCopyFunc data_copy);
/* Packets allocated and not yet freed (leak checks in tests). */
guint64 sim_packets_live (const Sim * sim);

/* ------------------------------------------------------------------------ */
/* Nodes                                                                    */

typedef void (*SimReceiveFunc) (SimNode * node, Sim * sim,
    SimPacket * packet);

/* Embed as the first member of a node type. */
struct _SimNode
{
  SimReceiveFunc receive;
  const gchar *name;
};

/* Hand @packet to @node now (NULL node: the packet is freed). */
void sim_node_receive (SimNode * node, Sim * sim, SimPacket * packet);
/* Hand @packet to @node at @at (a scheduled event). */
void sim_deliver (Sim * sim, RtpccTime at, SimNode * node,
    SimPacket * packet);

/* Routes by packet->flow; flows without a route go to @fallback (NULL:
 * freed). */
typedef struct _SimDemux SimDemux;
SimDemux *sim_demux_new (SimNode * fallback);
void sim_demux_free (SimDemux * demux);
void sim_demux_set_route (SimDemux * demux, guint flow, SimNode * node);
SimNode *sim_demux_node (SimDemux * demux);

/* Counts and frees what it receives. */
typedef struct
{
  SimNode node;
  guint64 packets, bytes;
  RtpccTime last;
} SimSink;
void sim_sink_init (SimSink * sink);

/* ------------------------------------------------------------------------ */
/* Link                                                                     */

typedef struct _SimLink SimLink;

/* Called for every packet offered to the link, before it is forwarded or
 * freed. */
typedef void (*SimLinkObserver) (SimLink * link, const SimPacket * packet,
    const RtpccLinkOutcome * outcome, gpointer user_data);

typedef struct _SimMetrics SimMetrics;

/* The link copies @config and takes its own capacity ref. Delivered packets
 * go to @next at outcome.deliver_at. */
SimLink *sim_link_new (const RtpccLinkConfig * config, SimNode * next);
void sim_link_free (SimLink * link);
SimNode *sim_link_node (SimLink * link);
RtpccLink *sim_link_get_link (SimLink * link);
void sim_link_set_next (SimLink * link, SimNode * next);
/* Drops are reported to @metrics (NULL to stop). */
void sim_link_set_metrics (SimLink * link, SimMetrics * metrics);
void sim_link_set_observer (SimLink * link, SimLinkObserver observer,
    gpointer user_data);

/* "none", "bernoulli:P" or "gilbert:p,r[,k[,h]]" (netem's gemodel
 * parameters; k = 1, h = 0 when left out) into @out. FALSE and @error on
 * anything else or a probability outside [0, 1]. */
gboolean sim_loss_parse (const gchar * spec, RtpccLossParams * out,
    GError ** error);

/* ------------------------------------------------------------------------ */
/* Sources                                                                  */

typedef struct _SimSource SimSource;

/* Common part, so that a controller (later: an RtpccSender endpoint) can
 * drive any source through its target rate. */
struct _SimSource
{
  Sim *sim;
  SimNode *next;
  guint flow;
  guint64 seq;                  /* next sequence number */
  guint64 packets_sent, bytes_sent;

  /*< private > */
  void (*set_rate) (SimSource * src, guint64 bps);
  guint64 (*get_rate) (SimSource * src);
  void (*finalize) (SimSource * src);
};

#define SIM_SOURCE(s) ((SimSource *) (s))

/* Target rate in bit/s; takes effect from the next packet (CBR) or frame. */
void sim_source_set_rate (SimSource * src, guint64 bps);
guint64 sim_source_get_rate (SimSource * src);
void sim_source_set_next (SimSource * src, SimNode * next);
/* Cancels the source's pending events. */
void sim_source_free (SimSource * src);

typedef struct
{
  guint flow;
  guint64 rate_bps;             /* 0: idle until set */
  guint packet_size;            /* bytes on the wire */
  RtpccTime start;              /* first packet */
  RtpccTime stop;               /* exclusive; RTPCC_TIME_INFINITE = never */
} SimCbrConfig;

/* Flow 0, 1 Mbit/s, 1200 bytes, from 0, forever. */
void sim_cbr_config_init (SimCbrConfig * config);
/* Packet k leaves at start + floor(k * size * 8 s / rate) exactly (integer
 * arithmetic, no drift); a rate change restarts that grid at the next
 * packet. */
SimSource *sim_cbr_source_new (Sim * sim, const SimCbrConfig * config,
    SimNode * next);

typedef struct
{
  guint flow;
  gdouble fps;
  guint64 target_bps;           /* frame payload bits per second */
  guint mtu;                    /* largest packet on the wire, bytes */
  guint overhead;               /* header bytes per packet (counted in mtu and
                                 * size, not in the target) */
  guint keyframe_interval;      /* a keyframe every N frames; 0: first only */
  gdouble keyframe_ratio;       /* keyframe size / delta frame size */
  gdouble noise;                /* Laplace scale, relative to the mean frame
                                 * size (0: none) */
  RtpccTime pacing;             /* 0: a frame's packets leave back to back at
                                 * capture; > 0: spread evenly over this time */
  RtpccTime start, stop;
  guint64 seed;
} SimFrameConfig;

/* Flow 0, 25 fps, 1 Mbit/s, MTU 1200, no overhead, keyframe first only,
 * ratio 4, noise 0.1, back to back, from 0, forever, seed 0. */
void sim_frame_config_init (SimFrameConfig * config);
SimSource *sim_frame_source_new (Sim * sim, const SimFrameConfig * config,
    SimNode * next);
/* The next frame is a keyframe (PLI/FIR later). */
void sim_frame_source_force_keyframe (SimSource * src);

typedef struct
{
  guint64 frames, keyframes;
  guint64 payload_bytes;        /* sum of frame sizes */
  guint64 keyframe_bytes;
} SimFrameStats;
void sim_frame_source_get_stats (SimSource * src, SimFrameStats * stats);

/* ------------------------------------------------------------------------ */
/* Metrics                                                                  */

/* One log line: flow @flow over [time, time + interval). Rates in kbit/s.
 * qdelay is the link queueing delay carried on each received packet
 * (RtpccLinkOutcome.queue_delay: waiting + own serialization, summed over
 * links); NaN when nothing was received. loss_pct = dropped / sent in the
 * interval, both counted when they happen (with the link right after the
 * sender that is the fraction of the interval's packets that were lost).
 * capacity_kbps: the flow's bottleneck rate in force (for traces: the mean
 * over the interval); INFINITY unlimited, NaN unknown. */
typedef struct
{
  RtpccTime time;
  guint flow;
  gdouble send_kbps, recv_kbps;
  gdouble qdelay_ms_mean, qdelay_ms_max;
  gdouble loss_pct;
  gdouble capacity_kbps;
  guint64 sent_packets, recv_packets, dropped_packets;
  guint64 sent_bytes, recv_bytes;
} SimIntervalRow;

typedef struct
{
  guint64 sent_packets, sent_bytes;
  guint64 recv_packets, recv_bytes;
  guint64 queue_drops, loss_drops;      /* packets */
  guint64 dropped_bytes;
} SimFlowTotals;

/* Statistics of one flow over a time window (see sim_metrics_summarize). */
typedef struct
{
  SimFlowTotals totals;         /* events inside the window */
  gdouble send_kbps, recv_kbps;
  gdouble loss_pct;             /* drops / sent, both in the window */
  gdouble qdelay_ms_mean, qdelay_ms_p50, qdelay_ms_p95, qdelay_ms_max;
  gdouble owd_ms_mean, owd_ms_max;      /* receive - sent */
} SimFlowSummary;

/* Intervals start at @start and last @interval (RFC 8868: 200 ms). */
SimMetrics *sim_metrics_new (RtpccTime start, RtpccTime interval);
void sim_metrics_free (SimMetrics * metrics);

/* Write the CSV header now and each row as its interval completes. The file
 * is not closed by the metrics. */
void sim_metrics_set_log (SimMetrics * metrics, FILE * log);
/* Capacity column source: @link for @flow, or for every flow without its
 * own when @flow is SIM_FLOW_ANY. */
#define SIM_FLOW_ANY G_MAXUINT
void sim_metrics_set_bottleneck (SimMetrics * metrics, guint flow,
    const RtpccLink * link);
/* Log rows for @flow even before its first packet. */
void sim_metrics_add_flow (SimMetrics * metrics, guint flow);

void sim_metrics_record_send (SimMetrics * metrics, RtpccTime now,
    const SimPacket * packet);
void sim_metrics_record_receive (SimMetrics * metrics, RtpccTime now,
    const SimPacket * packet);
void sim_metrics_record_drop (SimMetrics * metrics, RtpccTime now,
    const SimPacket * packet, RtpccLinkVerdict verdict);

/* Complete every interval that ends at or before @now (a run's end time).
 * A trailing partial interval gets no row (it stays in the summaries). */
void sim_metrics_finish (SimMetrics * metrics, RtpccTime now);

const SimIntervalRow *sim_metrics_get_rows (SimMetrics * metrics,
    guint * n_rows);
/* All rows so far, in the log's format (header first). */
void sim_metrics_write_csv (SimMetrics * metrics, GString * out);
#define SIM_METRICS_CSV_HEADER \
  "time_s,flow,send_kbps,recv_kbps,qdelay_ms_mean,qdelay_ms_max,loss_pct,capacity_kbps\n"

/* Flow ids seen or added, ascending. */
GArray *sim_metrics_get_flows (SimMetrics * metrics);
/* Whole-run totals; FALSE if the flow is unknown. */
gboolean sim_metrics_get_totals (SimMetrics * metrics, guint flow,
    SimFlowTotals * totals);
/* Sends counted by send time, receptions (and their delays) by receive time,
 * drops by drop time, within [t0, t1). Percentiles are nearest-rank. FALSE
 * if the flow is unknown. */
gboolean sim_metrics_summarize (SimMetrics * metrics, guint flow,
    RtpccTime t0, RtpccTime t1, SimFlowSummary * summary);

/* Node that records a packet as sent (SIM_TAP_SEND) or received
 * (SIM_TAP_RECEIVE) and passes it on to @next (NULL: frees it). */
typedef enum
{
  SIM_TAP_SEND,
  SIM_TAP_RECEIVE,
} SimTapPoint;

typedef struct _SimTap SimTap;
SimTap *sim_tap_new (SimMetrics * metrics, SimTapPoint point, SimNode * next);
void sim_tap_free (SimTap * tap);
SimNode *sim_tap_node (SimTap * tap);
void sim_tap_set_next (SimTap * tap, SimNode * next);

/* ------------------------------------------------------------------------ */
/* One-way scenario: source → send tap → link → receive tap                */

typedef enum
{
  SIM_SOURCE_CBR,
  SIM_SOURCE_FRAMES,
} SimSourceKind;

typedef struct
{
  SimSourceKind source;
  SimCbrConfig cbr;
  SimFrameConfig frames;
  RtpccLinkConfig link;         /* capacity not owned */
  RtpccTime interval;           /* log interval, 200 ms */
  FILE *log;                    /* NULL: no CSV log */
} SimOneWayConfig;

void sim_oneway_config_init (SimOneWayConfig * config);

typedef struct
{
  Sim *sim;
  SimSource *source;
  SimTap *send_tap;
  SimLink *link;
  SimTap *recv_tap;
  SimMetrics *metrics;
} SimOneWay;

SimOneWay *sim_oneway_new (const SimOneWayConfig * config);
/* Run to @t_end and complete the metrics up to it. */
void sim_oneway_run (SimOneWay * ow, RtpccTime t_end);
void sim_oneway_free (SimOneWay * ow);

/* For tests: g_test_message of @title, then of each non-empty line of
 * @text indented (a formatted result table in a test's log). */
void sim_test_log_lines (const gchar * title, const gchar * text);

G_END_DECLS

#endif

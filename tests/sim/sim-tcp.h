/* TCP cross traffic for the simulator: NewReno and CUBIC senders with a
 * cumulative-ACK receiver, as simulator nodes.
 *
 *   SimTcpFlow sender ─▶ forward path (send tap, bottleneck, demux) ─▶
 *        ▲                                       SimTcpFlow receiver
 *        └──────── reverse path ◀── one ACK per data segment ─┘
 *
 * The model (segment-granular, as ns3-rmcat's TCP NewReno without delayed
 * ACK, so one ACK per data segment):
 *
 *  - slow start (cwnd += segments acked, up to ssthresh), congestion
 *    avoidance per algorithm:
 *      NewReno (RFC 5681/6582): cwnd += acked / cwnd;
 *      CUBIC (RFC 9438): W_cubic(t) = C (t − K)³ + W_max, C = 0.4,
 *      β = 0.7, fast convergence, the Reno-friendly estimate W_est; no
 *      HyStart (slow start ends at the first loss, as NewReno's);
 *  - fast retransmit on the third duplicate ACK and NewReno fast recovery
 *    (RFC 6582: cwnd inflation, partial ACKs retransmit the next hole,
 *    `recover` guards against a second reduction for one window);
 *    ssthresh = max(min(FlightSize, cwnd) / 2, 2) for NewReno (the
 *    window: after a long recovery snd_nxt − snd_una also counts segments
 *    the receiver holds above a new hole), max(β cwnd, 2) for CUBIC;
 *  - retransmission timeout (RFC 6298: SRTT/RTTVAR, RTO = SRTT + 4 RTTVAR,
 *    min_rto, exponential backoff, go-back-N from snd_una, cwnd = 1);
 *  - RTT samples from a timestamp echo on every ACK that advances
 *    snd_una (as with TCP timestamps, so retransmissions give valid
 *    samples);
 *  - ACK processing jitter (config.ack_jitter);
 *  - no SYN/FIN exchange: a transfer's first window leaves at its start.
 *    No receive-window limit unless max_cwnd is set.
 *
 * A flow is long-lived (transfer_bytes = 0: always backlogged from start to
 * stop) or transfers files: one of transfer_bytes (uniform in
 * [transfer_bytes, transfer_bytes_max] when that is larger), then, if
 * off_mean > 0, an exponential OFF time with that mean and a new file on a
 * fresh connection (cwnd back to initial_cwnd, RTT estimate reset), until
 * stop (RFC 8867 §5.7's short flows). Every draw comes from the flow's own
 * RtpccRng (seed, stream = flow).
 *
 * Packets: SIM_PACKET_TCP_DATA (wire size header + payload) and
 * SIM_PACKET_TCP_ACK (header bytes), flow id = config.flow in both
 * directions, payload a private segment struct in SimPacket.data.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SIM_TCP_H__
#define __RTPCC_SIM_TCP_H__

#include "sim-rtpcc.h"

G_BEGIN_DECLS

typedef enum
{
  SIM_TCP_NEWRENO,
  SIM_TCP_CUBIC,
} SimTcpCc;

const gchar *sim_tcp_cc_name (SimTcpCc cc);
/* "newreno"/"reno" or "cubic" */
gboolean sim_tcp_cc_from_string (const gchar * name, SimTcpCc * out);

typedef struct
{
  guint flow;
  SimTcpCc cc;
  guint mss;                    /* payload bytes per segment, 1460 */
  guint header;                 /* IP + TCP header bytes (data and ACK), 40 */
  guint initial_cwnd;           /* segments, 10 (RFC 6928) */
  guint max_cwnd;               /* segments (receive window); 0: none */
  RtpccTime min_rto;            /* 200 ms (Linux; RFC 6298 says 1 s) */
  RtpccTime initial_rto;        /* 1 s */
  RtpccTime start;              /* first transfer, or first OFF period */
  RtpccTime stop;               /* nothing is sent from here; INFINITE */
  guint64 transfer_bytes;       /* 0: long-lived */
  guint64 transfer_bytes_max;   /* > transfer_bytes: uniform size range */
  RtpccTime off_mean;           /* 0: one transfer only */
  gboolean start_off;           /* begin with an OFF period */
  /* each ACK is processed after a uniform random delay in [0, ack_jitter)
   * (order kept): host processing noise that breaks the drop-tail phase
   * effects a perfectly deterministic sender shows (Floyd & Jacobson
   * 1992), which otherwise lock identical flows into unfair shares; 1 ms */
  RtpccTime ack_jitter;
  guint64 seed;
} SimTcpConfig;

/* Flow 100, NewReno, MSS 1460, 40-byte headers, IW 10, no window cap,
 * min RTO 200 ms, initial RTO 1 s, long-lived from 0 forever, ACK jitter
 * 1 ms, seed 0. */
void sim_tcp_config_init (SimTcpConfig * config);

typedef struct
{
  guint64 data_packets, data_bytes;     /* wire, retransmissions included */
  guint64 retransmits;          /* segments sent again */
  guint64 fast_retransmits;     /* fast recovery episodes */
  guint64 timeouts;             /* RTO expiries */
  guint64 acks_in, dupacks_in;
  guint64 acks_out;             /* by the receiver */
  guint64 delivered_bytes;      /* in-order payload at the receiver */
  guint transfers_started, transfers_done;
  gdouble cwnd, ssthresh;       /* segments, now */
  RtpccTime srtt, rto;          /* now (srtt RTPCC_TIME_NONE before a sample) */
} SimTcpStats;

/* One entry per cwnd change (segments). */
typedef struct
{
  RtpccTime time;
  gdouble cwnd, ssthresh;
  guint reductions;             /* loss events so far (fast retransmit, RTO) */
  gboolean recovery;            /* in fast recovery (cwnd inflated) */
} SimTcpCwndSample;

typedef struct
{
  RtpccTime start, end;         /* end RTPCC_TIME_NONE while running */
  guint64 bytes;
} SimTcpTransfer;

typedef struct _SimTcpFlow SimTcpFlow;

/* A flow whose data goes to @forward and whose ACKs go to @reverse (set
 * later with sim_tcp_flow_set_reverse); route the flow id to
 * sim_tcp_flow_receiver_node on the forward side and to
 * sim_tcp_flow_sender_node on the reverse side. NULL and @error on a bad
 * config. Free before the Sim. */
SimTcpFlow *sim_tcp_flow_new (Sim * sim, const SimTcpConfig * config,
    SimNode * forward, GError ** error);
void sim_tcp_flow_free (SimTcpFlow * flow);
void sim_tcp_flow_set_reverse (SimTcpFlow * flow, SimNode * reverse);
SimNode *sim_tcp_flow_sender_node (SimTcpFlow * flow);
SimNode *sim_tcp_flow_receiver_node (SimTcpFlow * flow);
const SimTcpConfig *sim_tcp_flow_get_config (SimTcpFlow * flow);

/* Counters and the state now. */
void sim_tcp_flow_get_stats (SimTcpFlow * flow, SimTcpStats * stats);
const SimTcpCwndSample *sim_tcp_flow_get_cwnd_log (SimTcpFlow * flow,
    guint * n);
const SimTcpTransfer *sim_tcp_flow_get_transfers (SimTcpFlow * flow,
    guint * n);
/* In-order payload delivered to the receiving application in [t0, t1),
 * kbit/s (0 for an empty window). */
gdouble sim_tcp_flow_goodput_kbps (SimTcpFlow * flow, RtpccTime t0,
    RtpccTime t1);

/* Wire @config's flow through @net: data through the send tap and the
 * forward bottleneck to its receiver, ACKs back over the reverse link; the
 * metrics log the flow (send/receive/loss rows under its flow id). The net
 * owns and frees the flow. NULL and @error on a bad config or a flow id
 * already in use. */
SimTcpFlow *sim_rtpcc_net_add_tcp (SimRtpccNet * net,
    const SimTcpConfig * config, GError ** error);

G_END_DECLS

#endif

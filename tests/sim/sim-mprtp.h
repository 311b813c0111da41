/* Multipath RTP in the simulator: one media source, the library's
 * scheduler, N paths each with its own RtpccSender + controller, forward
 * and reverse links and RtpccReceiver, and a receiver that merges by the
 * media sequence through the library's skew/playout module.
 *
 *   SimSource ─▶ mprtp tx (RtpccMprtpSched: path per packet, encoder rate)
 *      ├─▶ SimRtpccSender 0 ─▶ tap ─▶ link 0 ─▶ [via] ─▶ tap ─▶ path rx 0 ─▶ SimRtpccReceiver 0
 *      └─▶ SimRtpccSender 1 ─▶ tap ─▶ link 1 ─▶ [via] ─▶ tap ─▶ path rx 1 ─▶ SimRtpccReceiver 1
 *   SimRtpccSender k ◀─ feedback tap k ◀─ reverse link k ◀─ SimRtpccReceiver k
 *                                          (its RRs carry path k's MPRTCP subflow report)
 *                                                      ◀─ NACKs of path k (config.repair)
 *
 * Each path's endpoints run on the path's own sequence space (the FSSN):
 * the packet the per-path sender takes carries the FSSN as its RTP seq, so
 * that path's RFC 3550 statistics, CCFB and controller see a gap-free
 * stream of their own. What the wire would carry besides — the RTP header
 * with the media's sequence number and the MPRTP subflow extension — is
 * written with the library (rtpcc_mprtp_add_subflow) into a per-path table
 * indexed by the FSSN, because the per-path sender's packet has no room
 * for it, and parsed again with the library on arrival
 * (rtpcc_mprtp_read_subflow); every mismatch is counted (wire_errors).
 * The 12 extension bytes are added to the packet's size, so links,
 * controllers and the overhead figures carry them. MPRTCP subflow reports
 * (ext.h) are real bytes on each path's reverse link, in the path
 * receiver's RR compound as rtpccsrc sends them (config.reports_in_rr).
 *
 * Repair (config.repair) runs per path in its subflow space, as rtpccsrc
 * and rtpccsink run it (mprtp/repairseq.h): the path's receiver gives its
 * RtpccRtxReceiver the rtpcc_mprtp_repair_view of each packet's wire form
 * and sends the NACKs (FSSNs) back on the path; the path's sender answers
 * from its FSSN-numbered RTX history, and the RTX packet's wire form (its
 * original's subflow element, the OSN made the media seq by
 * rtpcc_mprtp_rtx_osn_to_media) goes to a per-path table by RTX packet,
 * as the media's does; the original the receiver restores gets its media
 * seq back and goes to the merge. With config.rtx_route a repair the
 * scheduler routes to another path is the original sent again there, as
 * that path's packet, and each receiver finds its losses that came that
 * way in the merge before it NACKs them again. With one path
 * config.repair is unused (the single-path repair is sim-rtpcc.h's).
 *
 * With one path nothing multipath happens: no extension, no subflow
 * report, the path's sender drives the source as in a single-path call
 * (sim-rtpcc.h), and the run is the single-path call's to the bit.
 *
 * Paths the scheduler leaves unused get a duplicate of a media packet
 * once a second (rtpcc_mprtp_sched_probe); the receiver keeps the first
 * copy of each media sequence number.
 *
 * Playout: a packet is on time when it arrives no later than its media
 * time + the stream's first transit + max(min_playout, the skew module's
 * target) as it stands before the packet (skew.h); late packets are
 * discards, counted per path in the subflow reports.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SIM_MPRTP_H__
#define __RTPCC_SIM_MPRTP_H__

#include "sim-rtpcc.h"

G_BEGIN_DECLS

typedef struct
{
  RtpccLinkConfig forward;      /* capacity not owned */
  RtpccLinkConfig reverse;
} SimMprtpPathConfig;

typedef struct
{
  guint n_paths;
  SimMprtpPathConfig path[RTPCC_MPRTP_MAX_PATHS];
  const gchar *controller;      /* per path, "gcc" */
  SimRtpccFeedback feedback;    /* AUTO: CCFB (RR for "rr") */
  guint64 min_bitrate, max_bitrate, start_bitrate;     /* per path */
  /* > 0: the media is constant bit rate (the thesis' experiments); 0:
   * the encoder follows the scheduler's aggregate */
  guint64 cbr_bps;
  gboolean circuit_breaker;     /* RFC 8083 in each path's sender, TRUE */
  RtpccMprtpSchedConfig sched;
  RtpccMprtpSkewConfig skew;
  RtpccTime min_playout;        /* floor of the playout target, 0 */
  RtpccTime report_interval;    /* MPRTCP per path, 1 s; 0 = none */
  /* TRUE (default): the subflow reports go as the elements send them:
   * the path's RtpccReceiver puts one in each regular RR compound
   * (rtpcc_receiver_set_mprtp_subflow; report_interval is its RTCP
   * interval, randomised 0.5-1.5 x as RFC 3550 §6.3.1 has it), with the
   * discards marked on it (rtpcc_receiver_mark_discarded, by FSSN); the
   * path's RtpccSender takes the compound and keeps the latest report
   * (its stats), and the scheduler is given each new one. FALSE: every
   * report_interval exactly, each in a datagram of its own, straight to
   * the scheduler (the simulator's earlier shape). */
  gboolean reports_in_rr;
  RtpccTime poll;               /* controller targets read, 50 ms */
  RtpccTime sample;             /* time series interval, 100 ms */
  SimFrameConfig frames;        /* the media source (target and flow
                                 * ignored: it is flow flow_base) */
  guint8 ext_id;                /* RFC 8285 ID of the subflow element, 1 */
  guint flow_base;              /* path k is flow flow_base + k, 1 */
  guint32 ssrc;                 /* the media SSRC on every path */
  guint64 seed;
  /* TRUE: NACK/RTX repair on every path, as rtpccsrc repair=nack and
   * rtpccsink rtx-pt run it per path (see above); FALSE (default): none */
  gboolean repair;
  guint8 rtx_pt;                /* 97 */
  /* with repair: the repair of a path's loss goes on the path the
   * scheduler picks (rtpcc_mprtp_sched_route_rtx: one with a clearly
   * lower RTT), as the original packet sent again as one of that path's
   * packets, and each receiver checks the merge for its losses before it
   * NACKs them again (recovered elsewhere), as mprtpsched, rtpccsink and
   * rtpccsrc do; TRUE (default). FALSE: every repair on its own path. */
  gboolean rtx_route;
  RtpccRepairConfig repair_config;      /* each path's planner; its
                                         * playout_delay is the deadline */
} SimMprtpConfig;

/* @n_paths paths with 1 Mbit/s forward links (300 ms queue) and
 * unlimited reverse links, 25 ms each way; @controller per path between
 * 150 kbit/s and 3 Mbit/s starting at 300 kbit/s; frames 25 fps, MTU 1200
 * with a 12-byte RTP header, noise 0.1; scheduler and skew defaults;
 * seeds derived from @seed. Capacities are created here and owned by
 * the config: free with sim_mprtp_config_clear. */
void sim_mprtp_config_init (SimMprtpConfig * config, guint n_paths,
    const gchar * controller, guint64 seed);
/* Replaces path @k's forward capacity with a constant @bps (0: unlimited). */
void sim_mprtp_config_set_capacity (SimMprtpConfig * config, guint k,
    guint64 bps);
void sim_mprtp_config_clear (SimMprtpConfig * config);

typedef struct _SimMprtp SimMprtp;

/* Builds everything on @sim. NULL and @error on a bad configuration. */
SimMprtp *sim_mprtp_new (Sim * sim, const SimMprtpConfig * config,
    GError ** error);
/* Cancels its events and frees its nodes; before sim_free. */
void sim_mprtp_free (SimMprtp * m);

/* Path @k's packets leave its forward link to @via instead of its
 * receiver (e.g. a shared bottleneck); the caller routes them on to
 * sim_mprtp_path_entry (m, k), by flow sim_mprtp_path_flow (m, k). */
void sim_mprtp_set_via (SimMprtp * m, guint k, SimNode * via);
SimNode *sim_mprtp_path_entry (SimMprtp * m, guint k);
guint sim_mprtp_path_flow (SimMprtp * m, guint k);
SimLink *sim_mprtp_forward_link (SimMprtp * m, guint k);
SimLink *sim_mprtp_reverse_link (SimMprtp * m, guint k);
SimRtpccSender *sim_mprtp_path_sender (SimMprtp * m, guint k);
SimRtpccReceiver *sim_mprtp_path_receiver (SimMprtp * m, guint k);
RtpccMprtpSched *sim_mprtp_get_sched (SimMprtp * m);
RtpccMprtpSkew *sim_mprtp_get_skew (SimMprtp * m);
SimMetrics *sim_mprtp_get_metrics (SimMprtp * m);

/* One time-series sample. */
typedef struct
{
  RtpccTime time;
  guint64 encoder_bps;
  RtpccTime playout_target;     /* the skew module's target (no floor) */
  gdouble playout_delay;        /* its PlayoutDelay alone, ns */
  guint64 allowed[RTPCC_MPRTP_MAX_PATHS];
  RtpccMprtpPathState state[RTPCC_MPRTP_MAX_PATHS];
  RtpccMprtpPathClass klass[RTPCC_MPRTP_MAX_PATHS];
  gboolean shared;              /* paths 0 and 1 in one coupling group */
} SimMprtpSample;

const SimMprtpSample *sim_mprtp_get_samples (SimMprtp * m, guint * n);

typedef struct
{
  guint64 packets, bytes;       /* media handed to the path */
  guint64 received, late;
  guint64 mprtcp_out, mprtcp_bytes, mprtcp_in, mprtcp_rejected;
  guint failures, collapses;
  guint64 pacer_drops, breaker_drops;   /* the path's sender dropped */
  RtpccTime first_failed_at;    /* NONE if never */
  /* config.repair: the path's receiver's NACK packets and the FSSNs in
   * them (retries included), RTX packets its sender queued, RTX its
   * sender could not map to a media seq (not sent), originals the
   * receiver restored from RTX */
  guint64 nacks_out, nacked, rtx_out, rtx_unmapped, rtx_restored;
  /* config.rtx_route: repairs of its losses sent on another path, of
   * other paths' losses sent on it; its receiver's merge checks and the
   * losses they found recovered elsewhere */
  guint64 rtx_moved_out, rtx_moved_in, merged_queries, recovered_elsewhere;
} SimMprtpPathTotals;

/* Media captured in [t0, t1) (by capture time), as the receiver saw it. */
typedef struct
{
  RtpccTime t0, t1;
  guint64 media_packets, received, lost, late;
  gdouble residual_loss_pct;    /* (lost + late) / packets */
  gboolean repair;              /* config.repair */
  guint64 repaired;             /* of received: only by a repair (RTX, or
                                 * the copy another path carried) */
  gdouble repaired_owd_mean_ms; /* capture → arrival of those, mean */
  gdouble raw_loss_pct;         /* (lost + repaired) / packets: the
                                 * network's loss before repair */
  gdouble network_loss_pct, late_pct;
  gdouble media_kbps;           /* RTP bytes generated (header included) */
  gdouble encoder_kbps;         /* mean of the encoder rate samples */
  gdouble owd_p50_ms, owd_p95_ms, owd_max_ms;  /* capture → arrival */
  gdouble playout_target_mean_ms;
  gdouble max_gap_ms;           /* longest stretch without a playable frame */
  guint64 frames, frames_playable;
  gdouble ext_kbps;             /* extension bytes on the wire */
  gdouble mprtcp_kbps;          /* subflow reports, RTCP bytes */
  gdouble mprtcp_ip_kbps;       /* ... with 28 bytes of IPv4 + UDP each */
  guint64 wire_errors;
  guint64 probe_packets;        /* duplicates on unused paths (whole run) */
  gdouble probe_kbps;
  gdouble shared_fraction;      /* of the samples with paths 0, 1 grouped */
  SimMprtpPathTotals path[RTPCC_MPRTP_MAX_PATHS];
  gdouble path_kbps[RTPCC_MPRTP_MAX_PATHS];    /* media sent on it */
} SimMprtpResult;

void sim_mprtp_collect (SimMprtp * m, RtpccTime t0, RtpccTime t1,
    SimMprtpResult * result);
/* One line per figure, each prefixed with @prefix. */
void sim_mprtp_result_format (const SimMprtpResult * r, guint n_paths,
    const gchar * prefix, GString * out);

G_END_DECLS

#endif

/* RtpccMprtpSched: the multipath sender's scheduler, sans I/O — which path
 * each media packet takes, and the one rate the encoder gets.
 *
 * Rules (Singh's thesis, Publication VII, and draft-ietf-avtcore-mprtp):
 *
 *  - Start with an equal split: until the paths' controllers publish a
 *    rate every usable path gets the same weight.
 *  - Per reporting interval each path is classified from its subflow
 *    report: NON_CONGESTED (no loss), LOSSY (losses only),
 *    MILDLY_CONGESTED (losses and discards), CONGESTED (mildly congested
 *    for congested_intervals in a row, 3). Discards without loss leave a
 *    path non-congested: they are the receiver's playout catching up with
 *    a path's delay (a skew it has not learnt yet), not congestion. Each
 *    class has a share: 1, lossy_share (0.75), mild_share (0.5),
 *    congested_share (0.25).
 *  - Hysteresis: a share taken away is taken at once; it is handed back by
 *    at most handback_step (0.1) per clean interval, so load moved off a
 *    path does not flow back at the first good report.
 *  - What the shares act on. A media requirement (media_max) below what
 *    the paths allow is spread by the allowed rates weighted with the
 *    shares, so a lossy or congested path carries less than its rate and
 *    the others more (water-filling: none above what it allows) — the
 *    thesis' constant-rate case. With an adaptive encoder (no requirement,
 *    or one above what the paths give) each path's own controller has
 *    already cut a congested path's rate, and the shares do not cut it
 *    again: a rate-based controller that may not claim much more than it
 *    receives (gcc: 1.5 R) would, held at half its rate, shrink towards
 *    what it is let through, interval after interval.
 *  - Active paths: those whose one-way latency (srtt/2) plus the
 *    receiver's playout margin stays within the end-to-end latency_bound
 *    (500 ms); grouped by similar latency (within similar_latency, 50 ms),
 *    the groups ordered by capacity/latency and taken until the media
 *    requirement (media_max; 0 = as much as the paths give) is met. A path
 *    with no RTT yet is used but not counted on. The rest are PASSIVE: no
 *    media, kept as fallback and probed (rtpcc_mprtp_sched_probe).
 *  - Coupling (couple.h): the active paths' rates go through the coupling
 *    rule; the allowed rates are the split weights and their sum (capped
 *    at media_max) is the encoder rate. The encoder follows the paths, so
 *    nothing is dropped at the sender.
 *  - Packets: a key-frame packet goes on the best path (the lowest class,
 *    then the highest capacity/latency); a retransmission on the active
 *    path with the lowest RTT (then the best class), or, for the repair
 *    of a loss on a known path, on the healthy path whose RTT is clearly
 *    lower (route_rtx, with a margin and hysteresis); every other packet on
 *    the path start-time fair queueing picks by the allowed rates (each
 *    path's tag advances by size/rate per packet; the smallest start tag
 *    wins; an idle path earns no credit), so key frames and
 *    retransmissions are charged to the path that carried them and the
 *    split follows the rates.
 *  - Capacity collapse: a path in use whose queue has grown past
 *    collapse_queue (50 ms) and that delivers less than collapse_ratio
 *    (0.5) of what it is given — by its rates (what its feedbacks of the
 *    last 200 ms reported received, or the receiver's rate if lower, over
 *    its sender's rate, judged above collapse_min_rate; and what its last
 *    three feedbacks reported, each gap counted at most as the mean gap,
 *    so that the stall of a delay step is not taken for a rate), or by
 *    one feedback that reports at least 8 packets and more than half of
 *    them lost (a drop-tail queue overflowing) — carries nothing for
 *    max(srtt, failure_min) while its queue drains, then comes back as a
 *    re-admitted path does (below), never above what it was seen to
 *    deliver, without waiting for its controller to confirm an over-use.
 *    The queue condition keeps a send rate that just rose (it outruns the
 *    receive rate's older window but builds no queue) and random loss
 *    from reading as a collapse. The cap is lifted when the controller's
 *    own rate comes down to it, or handed back by handback_step of the
 *    rate per clean interval.
 *  - A path still CONGESTED while it comes back from a collapse or a
 *    failure (it cannot carry even the ramp, or the floor of its
 *    controller's rate) is parked: passive for park_time (10 s), then
 *    re-admitted as below.
 *  - Failure: a path on which media was sent and no feedback reported
 *    progress (newly received media) for srtt + max(failure_min,
 *    failure_gaps × the path's mean feedback gap) after the first
 *    unanswered packet is FAILED and carries nothing from that instant
 *    (tick() at next_timeout() finds it to the nanosecond). It is
 *    re-admitted after readmit_feedbacks feedbacks of any kind since the
 *    failure, at readmit_share of its rate; the cap grows by handback_step
 *    of that rate (or of the controller's rate now, if higher) per clean
 *    interval — an absolute ramp, for the reason above — until the
 *    controller's own rate is below it. A passive path that becomes
 *    active again starts the same way.
 *  - One path: a passthrough. Every packet on path 0, the encoder rate is
 *    the path's controller rate; no class, latency or coupling applies.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_MPRTP_SCHED_H__
#define __RTPCC_MPRTP_SCHED_H__

#include <rtpcc/common.h>
#include <rtpcc/mprtp/ext.h>
#include <rtpcc/mprtp/couple.h>
#include <rtpcc/mprtp/classify.h>

G_BEGIN_DECLS

typedef enum
{
  RTPCC_MPRTP_PATH_ACTIVE = 0,
  RTPCC_MPRTP_PATH_PASSIVE,
  RTPCC_MPRTP_PATH_FAILED,
} RtpccMprtpPathState;

const gchar *rtpcc_mprtp_path_state_name (RtpccMprtpPathState state);

typedef struct
{
  RtpccTime latency_bound;      /* end to end, 500 ms */
  RtpccTime playout_margin;     /* receiver buffering over the slowest
                                 * path's one-way delay, 100 ms */
  RtpccTime similar_latency;    /* one latency group, 50 ms */
  guint64 media_max;            /* requirement, bit/s; 0 = unbounded */
  guint congested_intervals;    /* 3 */
  gdouble lossy_share, mild_share, congested_share;    /* 0.75 0.5 0.25 */
  gdouble handback_step;        /* per clean interval, 0.1 */
  gdouble readmit_share;        /* after a failure, 0.1 */
  guint readmit_feedbacks;      /* feedbacks before re-admission, 2 */
  RtpccTime failure_min;        /* 200 ms */
  guint failure_gaps;           /* mean feedback gaps, 2 */
  gdouble collapse_ratio;       /* received / sent below this, 0.5 */
  guint64 collapse_min_rate;    /* judged above this send rate, 200 kbit/s */
  RtpccTime collapse_queue;     /* ... and this queuing delay, 50 ms */
  RtpccTime park_time;          /* congested while recovering: passive
                                 * this long, 10 s */
  RtpccTime probe_interval;     /* a duplicate on each unused path this
                                 * often, 1 s; 0 = none */
  /* a repair moves to another path only if its srtt is lower by
   * max(rtx_margin, rtx_margin_ratio × the lossy path's srtt): 20 ms, 0.2 */
  RtpccTime rtx_margin;
  gdouble rtx_margin_ratio;
  RtpccMprtpCoupleConfig couple;
} RtpccMprtpSchedConfig;

void rtpcc_mprtp_sched_config_init (RtpccMprtpSchedConfig * config);

typedef struct _RtpccMprtpSched RtpccMprtpSched;

/* NULL and @error for 0 or more than RTPCC_MPRTP_MAX_PATHS paths or a
 * config out of range. */
RtpccMprtpSched *rtpcc_mprtp_sched_new (const RtpccMprtpSchedConfig * config,
    guint n_paths, RtpccTime now, GError ** error);
void rtpcc_mprtp_sched_free (RtpccMprtpSched * sched);
guint rtpcc_mprtp_sched_n_paths (const RtpccMprtpSched * sched);

/* The application's limits while the call runs (the element's
 * max-bitrate, latency-bound and probe-interval properties): the media
 * requirement (0 = unbounded), the end-to-end latency bound (> 0) and the
 * probe interval (0 = none). The split and the encoder rate follow at
 * once. FALSE, and nothing changed, for a bound <= 0 or a negative
 * interval. */
gboolean rtpcc_mprtp_sched_set_limits (RtpccMprtpSched * sched, RtpccTime now,
    guint64 media_max, RtpccTime latency_bound, RtpccTime probe_interval);

/* The rate @path's controller allows (its media bitrate), bit/s. */
void rtpcc_mprtp_sched_set_rate (RtpccMprtpSched * sched, guint path,
    RtpccTime now, guint64 rate);

typedef struct
{
  RtpccTime srtt;               /* the path's smoothed RTT, or NONE */
  RtpccTime queue_delay;        /* one-way delay over its minimum, or NONE */
  /* the feedback reported media received that was not reported before:
   * the forward direction works */
  gboolean progress;
  /* what the path's sender sent and its receiver got lately, bit/s (0:
   * unknown): a path that delivers less than collapse_ratio of what it is
   * sent has lost its capacity */
  guint64 send_rate, receive_rate;
  /* packets this feedback newly reported received and lost */
  guint64 reported_received, reported_lost;
} RtpccMprtpFeedbackInfo;

/* Any feedback arrived on @path at @now. */
void rtpcc_mprtp_sched_on_feedback (RtpccMprtpSched * sched, guint path,
    RtpccTime now, const RtpccMprtpFeedbackInfo * info);

/* One reporting interval of @path: @expected packets (by FSSN), @lost of
 * them, @discarded of those received. Classifies the path and applies the
 * hysteresis. An interval with nothing expected changes nothing. */
void rtpcc_mprtp_sched_on_interval (RtpccMprtpSched * sched, guint path,
    RtpccTime now, guint64 expected, guint64 lost, guint64 discarded);
/* The same from a subflow report (ext.h): the interval is the difference
 * to the previous report of that path (the first one only primes it).
 * FALSE for a report that goes backwards (a stale or reordered one), which
 * is ignored. */
gboolean rtpcc_mprtp_sched_on_report (RtpccMprtpSched * sched, guint path,
    RtpccTime now, const RtpccMprtpSubflowReport * report);

/* Failure detection; call at next_timeout() (and whenever convenient). */
void rtpcc_mprtp_sched_tick (RtpccMprtpSched * sched, RtpccTime now);
/* TRUE when a path failed or collapsed since the last call: what was in
 * flight on it is lost (a sender asks the encoder for a key frame then,
 * rather than the picture waiting for the next one). */
gboolean rtpcc_mprtp_sched_take_losses (RtpccMprtpSched * sched);
/* When a path would be declared failed if nothing arrives before
 * (RTPCC_TIME_NONE: no deadline). */
RtpccTime rtpcc_mprtp_sched_next_timeout (RtpccMprtpSched * sched);

typedef enum
{
  RTPCC_MPRTP_PACKET_MEDIA = 0,
  RTPCC_MPRTP_PACKET_KEYFRAME = 1 << 0,
  RTPCC_MPRTP_PACKET_RETRANSMISSION = 1 << 1,
} RtpccMprtpPacketFlags;

/* The path for one packet of @size bytes sent at @now; the packet is
 * counted as sent on it. Always a path (never a drop). */
guint rtpcc_mprtp_sched_pick (RtpccMprtpSched * sched, RtpccTime now,
    guint size, RtpccMprtpPacketFlags flags);

/* Retransmissions on the best path (Singh's thesis, Publication VII: the
 * path with the lowest RTT). A packet lost on @lost_on is repaired on
 * another path when one is healthy — active, not failed, not draining or
 * ramping back after a failure or collapse, not CONGESTED, with a rate
 * and an srtt — and its srtt is lower than @lost_on's by the margin
 * (rtx_margin, rtx_margin_ratio); the lowest such srtt wins. Hysteresis:
 * once @lost_on's repairs go via a path they stay there while it is
 * healthy and its srtt is lower at all, so srtts moving around the margin
 * do not flap. A failed @lost_on counts as infinitely slow. The path
 * chosen is charged the packet (@size bytes) like a pick with
 * RTPCC_MPRTP_PACKET_RETRANSMISSION, and counted (rtx_in there, rtx_out
 * on @lost_on). -1: the repair stays on @lost_on (nothing charged: its
 * own sender retransmits, as with one path, always). */
gint rtpcc_mprtp_sched_route_rtx (RtpccMprtpSched * sched, guint lost_on,
    RtpccTime now, guint size);

/* A path that carries no media (passive, parked or failed) learns
 * nothing of its delay and capacity, and a NAT may forget it: once per
 * probe_interval it gets a duplicate of a media packet just sent (the
 * receiver keeps the first copy of each media sequence number), which
 * keeps it alive (draft-ietf-avtcore-mprtp §7.4) and brings back RTT
 * and loss through its own feedback. Call after each pick: the index of
 * a path due for one (it is then counted as probed at @now), or -1. */
gint rtpcc_mprtp_sched_probe (RtpccMprtpSched * sched, RtpccTime now);

/* The rate the encoder should produce, bit/s (0 until a path has one). */
guint64 rtpcc_mprtp_sched_get_encoder_rate (const RtpccMprtpSched * sched);

typedef struct
{
  RtpccMprtpPathState state;
  RtpccMprtpPathClass klass;
  guint congested_run;          /* mildly congested intervals in a row */
  guint64 intervals[4];         /* reporting intervals, by class */
  gdouble share;                /* its class share (hysteresis applied) */
  guint64 rate;                 /* its controller's */
  guint64 allowed;              /* after class, state and coupling */
  RtpccTime srtt, latency;      /* latency = srtt / 2; NONE if unknown */
  RtpccTime last_feedback;
  RtpccTime feedback_gap;       /* mean gap between feedbacks, NONE unknown */
  RtpccTime failed_at;          /* NONE unless FAILED */
  guint64 packets, bytes;       /* picked */
  guint64 keyframe_packets, rtx_packets;
  /* repairs of other paths' losses it carried / of its losses carried
   * by another path (route_rtx) */
  guint64 rtx_in, rtx_out;
  guint failures;
  guint64 cap;                  /* capacity-collapse cap, 0 = none */
  guint64 ramp;                 /* re-admission cap, 0 = none */
  guint collapses, parks;
  guint64 probes;
} RtpccMprtpPathInfo;

gboolean rtpcc_mprtp_sched_get_path (const RtpccMprtpSched * sched,
    guint path, RtpccMprtpPathInfo * info);
RtpccMprtpCouple *rtpcc_mprtp_sched_get_couple (RtpccMprtpSched * sched);

G_END_DECLS

#endif

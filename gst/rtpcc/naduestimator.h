/* The receiver half of C-NADU, the cooperative congestion control of
 * Singh, Ott and Curcio ("Rate adaptation for conversational 3G video",
 * INFOCOM Workshops 2009; Singh's doctoral thesis, Aalto 2015, §4.1.3):
 * the receiver judges each video frame by when it arrived against when it
 * was due, reports its playout buffer in a NADU APP packet (3GPP TS
 * 26.234, feedback/nadu.h) and sends its own rate estimate with it; the
 * sender (cc/cnadu.c) chooses its rate from that estimate and its own cues.
 *
 * The publications name the cues, not the constants; these are ours:
 *
 * Frames. The packets of one frame share an RTP timestamp T; a frame is
 * complete when a packet of a later frame arrives, and its arrival t is
 * that of its last packet. Its lateness is l = (t - T) - base, where base
 * is the smallest t - T of the last 10-20 s (RtpccWindowExtreme): the
 * path's one-way delay plus the clock offset, so l is the time the frame
 * spent queued beyond the fastest delivery lately seen. A frame is
 *  - on time:  l <= one frame interval (the mean T step of recent
 *              frames): it arrived before its successor was due;
 *  - late:     l > one frame interval ("later than expected": the
 *              receiver diagnoses congestion);
 *  - missed:   l > the playout delay D: a buffer that plays every frame D
 *              after its earliest possible arrival would have discarded it.
 *
 * The estimate A, updated once per report (rtpcc_nadu_estimator_evaluate)
 * from the frames completed since the previous one and the rate R
 * received over that span:
 *  - a frame missed:  A = 0.85 R (the queue must drain: the same factor
 *                     as the 2013 RTCWEB draft's decrease);
 *  - else one late:   A = min (A, R) (no more than gets through);
 *  - else on time:    A grows by at most 8 % per second, and not beyond
 *                     1.5 R + 10 kbit/s (an estimate far above what the
 *                     sender sends was never tested by the path);
 * bounded to [min, max]. Before the first report A is R.
 *
 * A queue we cannot drain is not ours to cure: when every frame for 5 s
 * was queued 50 ms or more, a loss-based flow (TCP) holds the
 * bottleneck's queue (the competitor detector of the delay-based sender
 * controllers, cc/competitor.h, fed the frames' lateness), and late and
 * missed frames no longer cut or hold A; the sender's loss rules set the
 * share. Every 10 s the rule above applies again for a report: if a
 * frame then sees under 15 ms, the competitor has gone.
 *
 * For NADU the receiver models a buffer playing each frame at base + T +
 * D: the next unit to decode is the first packet of the oldest frame
 * received not yet due, the playout delay the time until it is due
 * (0xFFFF, "not defined", when no frame waits).
 *
 * Sans I/O: times are arguments.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_NADU_ESTIMATOR_H__
#define __RTPCC_NADU_ESTIMATOR_H__

#include <rtpcc/common.h>
#include <rtpcc/feedback/nadu.h>

G_BEGIN_DECLS

typedef struct
{
  RtpccTime playout_delay;      /* D, > 0; 200 ms */
  guint64 min_bitrate, max_bitrate;     /* 30 kbit/s .. 20 Mbit/s */
} RtpccNaduEstimatorConfig;

void rtpcc_nadu_estimator_config_init (RtpccNaduEstimatorConfig * config);

typedef struct
{
  guint64 packets;              /* fed */
  guint64 frames_on_time, frames_late, frames_missed;
  guint64 reordered;            /* packets of a frame already complete */
  guint64 evaluations;          /* reports the estimate was updated at */
  guint64 estimate;             /* A, bit/s; 0 before the first report */
  const gchar *reason;          /* static: "initial", "on-time", "late",
                                 * "missed", "competitor", "idle" */
  gboolean competing;           /* a competitor holds the queue */
} RtpccNaduEstimatorStats;

typedef struct _RtpccNaduEstimator RtpccNaduEstimator;

/* NULL for a config out of range (D <= 0, min above max, max 0). */
RtpccNaduEstimator *rtpcc_nadu_estimator_new (const RtpccNaduEstimatorConfig *
    config);
void rtpcc_nadu_estimator_free (RtpccNaduEstimator * e);

/* One media packet (not FEC, not RTX, not padding) of the stream: its
 * arrival @now, RTP timestamp in @clock_rate units (> 0), sequence number
 * and size in bytes (RTP header and payload). TRUE when it completed a
 * frame judged missed: that frame's packets are @missed_count from
 * @missed_first on (what a buffer of D would have discarded). */
gboolean rtpcc_nadu_estimator_on_packet (RtpccNaduEstimator * e,
    RtpccTime now, guint32 rtp_ts, guint clock_rate, guint16 seq, guint size,
    guint16 * missed_first, guint * missed_count);

/* Updates A from the frames completed since the previous call; returns
 * A (bit/s), 0 if no packet was ever fed. */
guint64 rtpcc_nadu_estimator_evaluate (RtpccNaduEstimator * e, RtpccTime now);

/* The NADU block for the stream at @now (ssrc left 0 for the caller);
 * FALSE before the first packet. */
gboolean rtpcc_nadu_estimator_fill_block (const RtpccNaduEstimator * e,
    RtpccTime now, RtpccNaduBlock * block);

const RtpccNaduEstimatorStats *rtpcc_nadu_estimator_get_stats (const
    RtpccNaduEstimator * e);

G_END_DECLS
#endif /* __RTPCC_NADU_ESTIMATOR_H__ */

/* Receiver-side bandwidth estimate for REMB: the receiver half of the 2013
 * RTCWEB congestion control ("RRTCC", draft-alvestrand-rtcweb-congestion-03
 * §3, and Singh et al., "Performance Analysis of Receive-Side Real-Time
 * Congestion Control for WebRTC", Packet Video 2013).
 *
 * The receiver has no send times, so it groups packets by their RTP
 * timestamp: the packets of one video frame share it and form one group,
 * and the inter-group delay variation is
 *   d(i) = (t(i) − t(i−1)) − (T(i) − T(i−1))
 * with t the arrival of a frame's last packet and T its RTP timestamp in
 * time units. A Kalman filter estimates the trend m(i) of d; the over-use
 * detector compares it with an adaptive threshold; the rate controller
 * (increase / hold / decrease) moves the estimate A_r: multiplicatively up
 * while the path is under-used, to beta × the incoming rate (beta = 0.85,
 * incoming rate over the last 500 ms) on over-use. These are the blocks
 * gcc (cc/gcc/) uses on the sender side, run here on what the receiver
 * sees.
 *
 * A REMB (draft-alvestrand-rmcat-remb) carries A_r to the sender, which
 * keeps its own (loss-based) rate at or below it. One is due once per
 * interval (1 s), and at once when A_r fell 3 % or more below the value
 * last sent (the draft's "significant decrease").
 *
 * Sans I/O: times are arguments.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_REMB_ESTIMATOR_H__
#define __RTPCC_REMB_ESTIMATOR_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 start_bitrate;        /* A_r before any over-use, bit/s */
  guint64 min_bitrate, max_bitrate;
  RtpccTime interval;           /* a REMB at least this often; 1 s */
  gdouble decrease;             /* a REMB at once on this relative drop; 0.03 */
} RtpccRembEstimatorConfig;

void rtpcc_remb_estimator_config_init (RtpccRembEstimatorConfig * config);

typedef struct
{
  guint64 packets;              /* fed */
  guint64 groups;               /* frames closed (inter-group samples) */
  guint64 overuses;             /* over-use signals */
  guint64 decreases;            /* A_r cut */
  guint64 reordered;            /* packets older than the newest frame */
  guint64 estimate;             /* A_r, bit/s */
  guint64 incoming;             /* incoming rate, bit/s (500 ms) */
  guint64 sent;                 /* REMBs the caller reported sent */
} RtpccRembEstimatorStats;

typedef struct _RtpccRembEstimator RtpccRembEstimator;

/* NULL for a config out of range (a zero interval, min above max, a
 * decrease outside (0, 1)). */
RtpccRembEstimator *rtpcc_remb_estimator_new (const RtpccRembEstimatorConfig *
    config);
void rtpcc_remb_estimator_free (RtpccRembEstimator * e);

/* One media packet (not FEC, not RTX, not padding) of the stream estimated:
 * its arrival @now, its RTP timestamp in @clock_rate units (> 0), its
 * size in bytes (RTP header and payload). */
void rtpcc_remb_estimator_on_packet (RtpccRembEstimator * e, RtpccTime now,
    guint32 rtp_ts, guint clock_rate, guint size);

/* A_r, bit/s. */
guint64 rtpcc_remb_estimator_get_estimate (const RtpccRembEstimator * e);

/* TRUE when a REMB is due at @now: nothing sent yet (once the estimator
 * has seen a packet), the interval passed, or A_r fell by the configured
 * share below the value last sent. */
gboolean rtpcc_remb_estimator_due (const RtpccRembEstimator * e,
    RtpccTime now);
/* The latest time a REMB is due (the interval after the last one), or
 * RTPCC_TIME_NONE before the first packet. */
RtpccTime rtpcc_remb_estimator_next_due (const RtpccRembEstimator * e);
/* A REMB with @bitrate left at @now. */
void rtpcc_remb_estimator_sent (RtpccRembEstimator * e, RtpccTime now,
    guint64 bitrate);

const RtpccRembEstimatorStats *rtpcc_remb_estimator_get_stats (const
    RtpccRembEstimator * e);

G_END_DECLS
#endif /* __RTPCC_REMB_ESTIMATOR_H__ */

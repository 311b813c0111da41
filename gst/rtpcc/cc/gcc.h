/* "gcc": Google Congestion Control (draft-ietf-rmcat-gcc-02), run at the
 * sender from per-packet feedback (RFC 8888 CCFB or TWCC). docs/gcc.md.
 *
 * The controller is reached through the registry (name "gcc"); this header
 * has what an application or a test reads of it: a snapshot of its state,
 * and the vocabulary that snapshot uses. Its parts, each with its own unit
 * tests, are under cc/gcc/ (not installed).
 *
 * Units: delays and thresholds in milliseconds (gdouble) as in the draft,
 * rates in bit/s, times RtpccTime (ns).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_H__
#define __RTPCC_CC_GCC_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

/* the over-use detector's signal (draft §5.4) */
typedef enum
{
  RTPCC_GCC_NORMAL,
  RTPCC_GCC_OVERUSE,
  RTPCC_GCC_UNDERUSE,
} RtpccGccSignal;

const gchar *rtpcc_gcc_signal_name (RtpccGccSignal s);

/* the delay-based rate controller's state (draft §5.5) */
typedef enum
{
  RTPCC_GCC_RC_HOLD,
  RTPCC_GCC_RC_INCREASE,
  RTPCC_GCC_RC_DECREASE,
} RtpccGccRcState;

/* the arrival-time filter (controller-params estimator=) */
typedef enum
{
  RTPCC_GCC_ESTIMATOR_TRENDLINE,
  RTPCC_GCC_ESTIMATOR_KALMAN,
} RtpccGccEstimator;

/* the probe controller's state */
typedef enum
{
  RTPCC_GCC_PROBE_IDLE,
  RTPCC_GCC_PROBE_SENDING,      /* fec_bitrate published */
  RTPCC_GCC_PROBE_WAITING,      /* stopped; waiting for its feedback */
} RtpccGccProbeState;

typedef struct
{
  RtpccGccEstimator estimator;
  gdouble delay_rate;           /* A_hat */
  gdouble loss_rate;            /* As_hat */
  gdouble received_rate;        /* R_hat, -1 unknown */
  gdouble send_rate;            /* media sent over the last second */
  RtpccGccSignal signal;
  RtpccGccRcState rc_state;
  gboolean startup;
  gdouble estimate;             /* raw estimate (slope or m_hat) */
  gdouble modified;             /* amplified estimate, ms */
  gdouble threshold;            /* ms */
  gdouble accumulated;          /* raw accumulated delay, ms */
  gdouble loss_fraction;        /* last loss window, -1 none */
  guint64 n_groups;
  guint64 n_overuse;            /* over-use signals */
  guint64 n_decreases;          /* delay-based decreases */
  guint64 n_drains;             /* standing-queue drains (gcc/standing.h) */
  guint64 n_queue_holds;        /* increases held on such a queue */
  guint64 n_cut_drains;         /* over-use cuts deepened to drain */
  guint64 n_loss_decreases;
  gboolean competing;           /* the competitive mode's rate applies */
  guint n_competitor_entries;   /* times that mode was entered */
  guint64 n_self_bursts;        /* delay samples sent in our own burst */
  guint64 n_key_frames;         /* frames taken for key frames by size */
  gboolean free_path;           /* no queue for free-time: the free climb */
  guint64 n_free_steps;         /* rate-control steps that climbed on it */
  gboolean app_limited;         /* media sent < app-limit × allowed: held */
  guint64 n_app_limited;        /* rate-control steps it held */
  RtpccGccProbeState probe_state;
  gdouble probe_rate;
  guint n_probes, n_probe_success, n_probe_fail;
  gdouble last_probe_result;    /* bit/s, -1 none */
  RtpccTime srtt;
} RtpccGccInfo;

/* FALSE (and @info untouched) if @cc is not a "gcc" controller. */
gboolean rtpcc_gcc_get_info (RtpccController * cc, RtpccGccInfo * info);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_H__ */

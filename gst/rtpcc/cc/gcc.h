/* "gcc": Google Congestion Control (draft-ietf-rmcat-gcc-02), run entirely at
 * the sender from per-packet feedback (RFC 8888 CCFB or TWCC).
 *
 * The controller is reached through the registry (name "gcc"). This header
 * exposes its parts as separately testable units, each a plain struct with
 * an init and an update function, no allocation and no clock:
 *
 *   grouper    packets -> groups -> inter-group delay variation d(i)
 *              (draft §5.1–5.2; libwebrtc inter_arrival_delta)
 *   trendline  slope of the smoothed accumulated delay (libwebrtc
 *              trendline_estimator), the default arrival-time filter
 *   kalman     the draft's scalar Kalman filter (§5.3)
 *   detector   adaptive-threshold over-use detector (§5.4)
 *   aimd       the delay-based rate controller (§5.5)
 *   loss       the loss-based controller (§6)
 *
 * Units: delays and thresholds in milliseconds (gdouble) as in the draft,
 * rates in bit/s, times RtpccTime (ns). Arrival times are on the receiver's
 * clock with an unknown constant offset: only their differences are used.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_H__
#define __RTPCC_CC_GCC_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

/* ---- what the parts say ------------------------------------------------ */

/* the over-use detector's signal (draft §5.4) */
typedef enum
{
  RTPCC_GCC_NORMAL,
  RTPCC_GCC_OVERUSE,
  RTPCC_GCC_UNDERUSE,
} RtpccGccSignal;

const gchar *rtpcc_gcc_signal_name (RtpccGccSignal s);

/* ---- delay-based rate controller (AIMD) ---------------------------------- */

typedef enum
{
  RTPCC_GCC_RC_HOLD,
  RTPCC_GCC_RC_INCREASE,
  RTPCC_GCC_RC_DECREASE,
} RtpccGccRcState;

typedef struct
{
  gdouble rate;                 /* A_hat, bit/s */
  gdouble min_rate, max_rate;
  gdouble beta;                 /* 0.85 */
  gdouble startup_gain;         /* per-second factor before the first cut */
  gboolean startup;
  RtpccGccRcState state;
  RtpccTime last_update;        /* NONE before the first */
  RtpccTime last_decrease;
  /* congestion point: EMA of the received rate at decreases */
  gboolean have_cp;
  gdouble cp_mean;              /* bit/s */
  gdouble cp_var;               /* normalised variance, kbit/s */
  /* Fast recovery (off while recovery_frac is 0, as after _init): an
   * over-use episode whose first cut finds the received rate not far
   * below the congestion point (inside or above its band, or no point
   * known: the sawtooth of a stable link) is followed, once back in
   * increase, by a climb at recovery_gain per second up to recover_to =
   * recovery_frac × the point; additive increase resumes from there. A
   * cut below the band (the link shrank, others joined) is not. */
  gdouble recovery_frac;
  gdouble recovery_gain;
  gdouble recover_to;           /* bit/s, 0 = no recovery pending */
  /* Post-start-up ramp (off while ramp_gain <= 1, as after _init): the
   * over-use that ends start-up does not make the estimate additive; it
   * keeps growing at ramp_gain per second while each over-use comes at
   * an estimate >= ramp_rise × the one at the previous over-use (the flow
   * is still gaining share, e.g. a newcomer on a loaded link). Not entered
   * by a start-up that sat at max_rate (it had the link to itself). */
  gdouble ramp_gain;
  gdouble ramp_rise;
  gboolean ramp;
  gdouble last_cut_rate;        /* the estimate before the last cut, bit/s */
  /* the path has shown no queue for a while (set by the caller): grow at
   * free_gain per second (off while free_gain <= 1) */
  gboolean free;
  gdouble free_gain;
  /* cuts since the last increase belong to one over-use episode: only
   * its first one decides ramp and recovery */
  gboolean in_episode;
  /* what the last update did, for tests and the published reason */
  gboolean last_was_additive;
  gboolean last_was_capped;
  gboolean last_decreased;
  gboolean last_was_recovery;
  gboolean last_was_ramp;
} RtpccGccAimd;

void rtpcc_gcc_aimd_init (RtpccGccAimd * a, gdouble start, gdouble min_rate,
    gdouble max_rate, gdouble beta);
/* One rate-control step at @now with detector @signal, received rate @R
 * (bit/s; < 0 = not measured yet) and round-trip time @rtt. Returns A_hat. */
gdouble rtpcc_gcc_aimd_update (RtpccGccAimd * a, RtpccTime now,
    RtpccGccSignal signal, gdouble R, RtpccTime rtt);
/* May a decrease happen at @now (first one, or the previous one is at least
 * @interval old, or the received rate @R collapsed below half the rate)? */
gboolean rtpcc_gcc_aimd_may_decrease (const RtpccGccAimd * a, RtpccTime now,
    RtpccTime interval, gdouble R);
/* The congestion-point band: TRUE if known, with mean ± 3σ in bit/s. */
gboolean rtpcc_gcc_aimd_get_band (const RtpccGccAimd * a, gdouble * lo,
    gdouble * hi);

/* ---- loss-based controller ----------------------------------------------- */

typedef enum
{
  RTPCC_GCC_LOSS_NONE,          /* window not complete */
  RTPCC_GCC_LOSS_INCREASE,      /* < 2 % */
  RTPCC_GCC_LOSS_HOLD,          /* 2–10 % */
  RTPCC_GCC_LOSS_DECREASE,      /* > 10 % */
} RtpccGccLossAction;

typedef struct
{
  gdouble rate;                 /* As_hat, bit/s */
  gboolean limiting;            /* a loss cut is in force (As < A) */
  RtpccTime min_interval;       /* window length, send time */
  guint min_packets;
  RtpccTime epoch;              /* packets sent before this are ignored */
  RtpccTime first_send, last_send;
  guint n_total, n_lost;
  gdouble last_fraction;        /* of the last complete window, or -1 */
} RtpccGccLoss;

void rtpcc_gcc_loss_init (RtpccGccLoss * l, gdouble start);
/* Count one non-FEC packet's fate. */
void rtpcc_gcc_loss_add (RtpccGccLoss * l, RtpccTime send_time,
    gboolean received);
/* Close the window if it is long enough and apply the draft §6 rule;
 * @delay_rate caps As (As never exceeds the delay-based estimate). */
RtpccGccLossAction rtpcc_gcc_loss_evaluate (RtpccGccLoss * l, RtpccTime now,
    gdouble delay_rate);
/* Apply a loss fraction directly (RTCP RR fallback, draft §7). */
RtpccGccLossAction rtpcc_gcc_loss_apply (RtpccGccLoss * l, RtpccTime now,
    gdouble fraction, gdouble delay_rate);

/* ---- probing ------------------------------------------------------------- */

/* What a probe shows of the path, from the send and receive rates of its
 * packets (bit/s): min (send, receive), unless the path came out markedly
 * slower (receive < 0.9 × send: the probe saturated the bottleneck, whose
 * queue grows at the receive rate), then 0.95 × receive. */
gdouble rtpcc_gcc_probe_estimate (gdouble send_rate, gdouble recv_rate);

/* ---- the controller ------------------------------------------------------ */

typedef enum
{
  RTPCC_GCC_ESTIMATOR_TRENDLINE,
  RTPCC_GCC_ESTIMATOR_KALMAN,
} RtpccGccEstimator;

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
  guint64 n_loss_decreases;
  guint64 n_self_bursts;        /* delay samples sent in our own burst */
  guint64 n_key_frames;         /* frames taken for key frames by size */
  gboolean free_path;           /* no queue for free-time: the free climb */
  RtpccGccProbeState probe_state;
  gdouble probe_rate;
  guint n_probes, n_probe_success, n_probe_fail;
  gdouble last_probe_result;    /* bit/s, -1 none */
  RtpccTime srtt;
} RtpccGccInfo;

/* FALSE (and @info untouched) if @cc is not a "gcc" controller. */
gboolean rtpcc_gcc_get_info (RtpccController * cc, RtpccGccInfo * info);

G_END_DECLS

#endif

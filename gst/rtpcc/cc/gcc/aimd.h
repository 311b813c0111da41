/* gcc delay-based rate controller (draft-ietf-rmcat-gcc-02 §5.5): the
 * estimate A from the detector's signal and the received rate R.
 *
 * Increase is multiplicative (8 %/s) far from the last congestion point
 * and additive near it (below or within ±3σ of it, as libwebrtc's
 * AimdRateControl reads it: additive increase is the same for every flow,
 * so shared cuts even out shares, Chiu–Jain); a decrease goes to beta × R,
 * at most once per RTT. On top of the draft, each off until configured:
 * fast recovery after a cut at the known point (recovery_frac), the ramp
 * of a newcomer after its start-up (ramp_gain), the free-path climb
 * (free_gain) and the hold of an application-limited sender
 * (app_limited). docs/gcc.md has why and how they were tuned.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_AIMD_H__
#define __RTPCC_CC_GCC_AIMD_H__

#include <rtpcc/cc/gcc.h>

G_BEGIN_DECLS

/* the draft's decrease factor */
#define RTPCC_GCC_BETA 0.85
/* growth per second until the first decrease */
#define RTPCC_GCC_STARTUP_GAIN 2.0
/* the round-trip time assumed before one is measured */
#define RTPCC_GCC_DEFAULT_RTT RTPCC_MSEC (200)

typedef struct
{
  gdouble rate;                 /* A_hat, bit/s */
  gdouble min_rate, max_rate;
  gdouble beta;                 /* RTPCC_GCC_BETA */
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
  /* the sender does not use the estimate (set by the caller): no increase
   * outside start-up, as libwebrtc's AimdRateControl in its
   * application-limited region */
  gboolean app_limited;
  /* a queue stands that the trend cannot see (set by the caller,
   * gcc/standing.h): no increase outside start-up until it drains */
  gboolean queue_standing;
  /* cuts since the last increase belong to one over-use episode: only
   * its first one decides ramp and recovery */
  gboolean in_episode;
  /* what the last update did, for tests and the published reason */
  gboolean last_was_additive;
  gboolean last_was_capped;
  gboolean last_was_app_limited;
  gboolean last_was_queue_held;
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
/* Lowers the estimate to @rate at @now for a queue the delay trend does
 * not see (standing.h): a decrease that is no over-use episode, so it
 * neither learns a congestion point nor recovers toward the old one.
 * FALSE if @rate is not below the estimate. */
gboolean rtpcc_gcc_aimd_drain (RtpccGccAimd * a, RtpccTime now, gdouble rate);
gboolean rtpcc_gcc_aimd_may_decrease (const RtpccGccAimd * a, RtpccTime now,
    RtpccTime interval, gdouble R);
/* The congestion-point band: TRUE if known, with mean ± 3σ in bit/s. */
gboolean rtpcc_gcc_aimd_get_band (const RtpccGccAimd * a, gdouble * lo,
    gdouble * hi);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_AIMD_H__ */

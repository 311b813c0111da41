/* "tfrc": TCP-Friendly Rate Control (RFC 5348), run at the sender from
 * per-packet feedback (RFC 8888 CCFB / TWCC).
 *
 * The controller itself is reached through the registry (name "tfrc"); this
 * header exposes the pieces that have closed-form reference values so they
 * can be tested on their own: the loss-interval average with history
 * discounting, and a read-only snapshot of the controller's internal state.
 * The throughput equation and its inverse are in rtpcc/tcpeq.h.
 *
 * Units: rates in bytes/s (as in RFC 5348; the published RtpccTarget is in
 * bit/s), s in bytes, RTTs in seconds unless typed RtpccTime.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_TFRC_H__
#define __RTPCC_CC_TFRC_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

/* Loss-interval history (RFC 5348 §5.4, §5.5), n = 8. */
#define RTPCC_TFRC_N_INTERVALS 8

typedef struct
{
  guint n_closed;               /* closed intervals held, 0..8 */
  /* closed[0] is I_1 (the most recent closed interval), closed[7] is I_8 */
  gdouble closed[RTPCC_TFRC_N_INTERVALS];
  /* the discount each closed interval carries from earlier discounting */
  gdouble df[RTPCC_TFRC_N_INTERVALS];
} RtpccTfrcLossHistory;

void rtpcc_tfrc_loss_history_init (RtpccTfrcLossHistory * lh);

/* The open interval, @i0 packets long, is closed by a new loss event and
 * becomes I_1. @df is the discount factor in effect at that moment (from
 * rtpcc_tfrc_loss_history_mean, 1.0 without history discounting); it is
 * folded into every older interval so the discount persists. */
void rtpcc_tfrc_loss_history_push (RtpccTfrcLossHistory * lh, gdouble i0,
    gdouble df);

/* I_mean for the open interval @i0 (p = 1 / I_mean). With k closed intervals
 * (1 <= k <= 8) both averages use the weights w_0..w_(k-1): I_0..I_(k-1) and
 * I_1..I_k, and the larger wins (the open-interval rule). With @discounting
 * the older intervals are de-weighted when I_0 > 2 x the closed-interval mean;
 * @df_out (may be NULL) receives the discount factor used (1.0 if none).
 * Returns 0 when there is no closed interval. */
gdouble rtpcc_tfrc_loss_history_mean (const RtpccTfrcLossHistory * lh,
    gdouble i0, gboolean discounting, gdouble * df_out);

/* Snapshot of the controller's state, for tests and statistics. */
typedef struct
{
  gdouble x;                    /* allowed sending rate X */
  gdouble x_inst;               /* X after oscillation prevention */
  gdouble x_calc;               /* X_Bps from the equation; 0 while p == 0 */
  gdouble x_recv;               /* last measured receive rate; < 0 unknown */
  gdouble x_recv_max;           /* max (X_recv_set); +inf while initial */
  gdouble recv_limit;           /* the limit applied at the last update */
  gdouble x_real;               /* send rate while backlogged; < 0 unknown */
  gdouble pacing_gain;          /* timer-error compensation factor, >= 1 */
  gdouble initial_rate;         /* W_init / R, or the pre-RTT rate */
  gdouble p;                    /* loss event rate */
  gdouble rtt;                  /* R in seconds; 0 before the first sample */
  gdouble r_sqmean;             /* oscillation prevention state, sqrt(s) */
  guint s;                      /* packet size in use */
  guint n_loss_events;
  guint n_nofeedback;           /* nofeedback timer expirations */
  guint64 n_rounds;             /* rate updates driven by feedback */
  gboolean data_limited;        /* the last round was data-limited */
  gboolean have_feedback;
  RtpccTime nofeedback_deadline;
} RtpccTfrcInfo;

/* FALSE (and @info untouched) if @cc is not a "tfrc" controller. */
gboolean rtpcc_tfrc_get_info (RtpccController * cc, RtpccTfrcInfo * info);

G_END_DECLS

#endif

/* TFRC loss-interval history (RFC 5348 §5.4, §5.5): the last eight closed
 * loss intervals, their weighted average with history discounting, and
 * the open-interval rule. Pure arithmetic with closed-form reference
 * values, so it is tested on its own (rtpcc_tfrc).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_TFRC_HISTORY_H__
#define __RTPCC_CC_TFRC_HISTORY_H__

#include <glib.h>

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

G_END_DECLS

#endif /* __RTPCC_CC_TFRC_HISTORY_H__ */

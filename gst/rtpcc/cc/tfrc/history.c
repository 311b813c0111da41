/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/tfrc/history.h>

#include <string.h>

/* RFC 5348 §5.4: w_0..w_7 */
static const gdouble weights[RTPCC_TFRC_N_INTERVALS] = {
  1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2
};

void
rtpcc_tfrc_loss_history_init (RtpccTfrcLossHistory * lh)
{
  memset (lh, 0, sizeof (*lh));
}

void
rtpcc_tfrc_loss_history_push (RtpccTfrcLossHistory * lh, gdouble i0,
    gdouble df)
{
  guint n = MIN (lh->n_closed + 1, RTPCC_TFRC_N_INTERVALS);

  /* Like ns-2's TFRC sink (the RFC authors' reference): the discount in
   * force when the loss event ends is multiplied into every older interval,
   * including the one being closed; only the new open interval starts at 1. */
  for (guint i = n - 1; i > 0; i--) {
    lh->closed[i] = lh->closed[i - 1];
    lh->df[i] = lh->df[i - 1] * df;
  }
  lh->closed[0] = i0;
  lh->df[0] = df;
  lh->n_closed = n;
}

gdouble
rtpcc_tfrc_loss_history_mean (const RtpccTfrcLossHistory * lh, gdouble i0,
    gboolean discounting, gdouble * df_out)
{
  guint k = lh->n_closed;
  gdouble df = 1.0, c_num = 0.0, c_w = 0.0, n0, w0;

  if (df_out)
    *df_out = 1.0;
  if (k == 0)
    return 0.0;

  /* closed intervals I_1..I_k with weights w_0..w_(k-1): RFC 5348's I_tot1,
   * the index the thesis's Eq. 3.5 gets wrong */
  for (guint i = 1; i <= k; i++) {
    gdouble w = weights[i - 1] * (discounting ? lh->df[i - 1] : 1.0);
    c_num += lh->closed[i - 1] * w;
    c_w += w;
  }
  /* §5.5: a long loss-free I_0 de-weights the past, at most by half */
  if (discounting && i0 > 2.0 * c_num / c_w)
    df = MAX (0.5, 2.0 * (c_num / c_w) / i0);

  /* I_0..I_(k-1) with w_0..w_(k-1): the open interval counts undiscounted */
  n0 = i0 * weights[0];
  w0 = weights[0];
  for (guint i = 1; i < k; i++) {
    gdouble w = weights[i] * (discounting ? lh->df[i - 1] : 1.0) * df;
    n0 += lh->closed[i - 1] * w;
    w0 += w;
  }
  if (df_out)
    *df_out = df;
  /* the same discount on all of I_1..I_k cancels out of their own mean */
  return MAX (n0 / w0, c_num / c_w);
}

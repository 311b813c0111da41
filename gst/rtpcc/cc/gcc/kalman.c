/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/kalman.h>

#include <math.h>
#include <string.h>

/* draft Table 1: state noise q, initial error covariance e(0), and chi
 * (the draft's range is [0.1, 0.001]) */
#define Q                     1e-3
#define E0                    0.1
#define CHI                   0.01
/* initial measurement noise variance, ms² (libwebrtc) */
#define VAR0                  50.0
/* the estimate is amplified by the sample count up to this (kMinNumDeltas) */
#define MAX_NUM_DELTAS        60
/* samples counted at most (kDeltaCounterMax) */
#define DELTA_COUNTER_MAX     1000

void
rtpcc_gcc_kalman_init (RtpccGccKalman * k)
{
  memset (k, 0, sizeof (*k));
  k->e = E0;
  k->q = Q;
  k->chi = CHI;
  k->var_v = VAR0;
}

gdouble
rtpcc_gcc_kalman_update (RtpccGccKalman * k, gdouble d, gdouble send_delta)
{
  gdouble z, gain, alpha, min_delta, zc, sd3;
  guint idx;

  k->num_deltas = MIN (k->num_deltas + 1, DELTA_COUNTER_MAX);

  /* f_max = max 1/(T(j) − T(j−1)) over the last 60 groups, per ms */
  idx = (k->head + k->count) % RTPCC_GCC_KALMAN_FMAX_HISTORY;
  if (k->count == RTPCC_GCC_KALMAN_FMAX_HISTORY) {
    idx = k->head;
    k->head = (k->head + 1) % RTPCC_GCC_KALMAN_FMAX_HISTORY;
  } else {
    k->count++;
  }
  k->send_deltas[idx] = send_delta;
  min_delta = G_MAXDOUBLE;
  for (guint i = 0; i < k->count; i++)
    min_delta = MIN (min_delta, k->send_deltas[i]);
  /* a zero send delta (an arrival burst) would freeze the noise filter */
  min_delta = MAX (min_delta, 1.0);
  /* alpha = (1 − chi)^(30 / (1000 f_max)): 1 − chi at 30 groups/s */
  alpha = pow (1.0 - k->chi, 30.0 * min_delta / 1000.0);

  z = d - k->m;
  /* outlier filter: v(i) is not white when packets queue behind each
   * other, so one big residual must not blow up the noise estimate */
  sd3 = 3.0 * sqrt (k->var_v);
  zc = fabs (z) > sd3 ? (z > 0 ? sd3 : -sd3) : z;
  if (!k->hold_noise)
    k->var_v = MAX (alpha * k->var_v + (1.0 - alpha) * zc * zc, 1.0);

  gain = (k->e + k->q) / (k->var_v + k->e + k->q);
  k->m += z * gain;
  k->e = (1.0 - gain) * (k->e + k->q);
  return k->m;
}

gdouble
rtpcc_gcc_kalman_modified (const RtpccGccKalman * k)
{
  return MIN (k->num_deltas, MAX_NUM_DELTAS) * k->m;
}

/* gcc Kalman filter (draft-ietf-rmcat-gcc-02 §5.3, libwebrtc
 * overuse_estimator): a scalar estimate m_hat of the one-way delay
 * gradient from the inter-group delay variations d(i). The alternative
 * arrival-time filter (estimator=kalman).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_KALMAN_H__
#define __RTPCC_CC_GCC_KALMAN_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* f_max is taken over this many groups (libwebrtc) */
#define RTPCC_GCC_KALMAN_FMAX_HISTORY 60

typedef struct
{
  gdouble m;                    /* m_hat(i), ms */
  gdouble e;                    /* system error covariance e(i) */
  gdouble var_v;                /* measurement noise variance, ms² */
  gdouble q;                    /* state noise, 1e-3 */
  gdouble chi;                  /* 0.01 */
  gdouble send_deltas[RTPCC_GCC_KALMAN_FMAX_HISTORY];   /* for f_max */
  guint head, count;
  guint num_deltas;
  /* TRUE: leave the measurement-noise variance as it is (set by the
   * caller while the detector is not in its normal state, as libwebrtc's
   * OveruseEstimator updates it only then): an over-use episode's large
   * residuals would otherwise raise it so far that the filter hardly
   * follows the drain after it. FALSE after _init. */
  gboolean hold_noise;
} RtpccGccKalman;

void rtpcc_gcc_kalman_init (RtpccGccKalman * k);
/* One step with d(i) (ms) for a group sent @send_delta ms after its
 * predecessor; returns m_hat(i) (ms). */
gdouble rtpcc_gcc_kalman_update (RtpccGccKalman * k, gdouble d,
    gdouble send_delta);
/* m_hat amplified as the detector reads it: min(num_deltas, 60) × m_hat
 * (libwebrtc overuse_detector), less eager while the filter is young */
gdouble rtpcc_gcc_kalman_modified (const RtpccGccKalman * k);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_KALMAN_H__ */

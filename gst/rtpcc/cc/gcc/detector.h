/* gcc over-use detector (draft-ietf-rmcat-gcc-02 §5.4): compares the
 * filtered delay gradient with an adaptive threshold and signals over-use,
 * under-use or normal.
 *
 * An over-use needs the estimate above the threshold for overuse_time_th
 * and still increasing — the filtered estimate (the draft's m(i) >=
 * m(i-1)) and the raw accumulated delay, at its highest since the
 * crossing. After a one-off step (a key frame) the smoothed trend keeps
 * rising for a few samples, the EMA's lag, while the raw delay already
 * drains; the second test keeps such a transient from reading as over-use.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_DETECTOR_H__
#define __RTPCC_CC_GCC_DETECTOR_H__

#include <rtpcc/cc/gcc.h>

G_BEGIN_DECLS

typedef struct
{
  gdouble threshold;            /* del_var_th, ms: 12.5, clamped [6, 600] */
  gdouble k_up, k_down;         /* 0.01, 0.00018 per ms */
  gdouble overuse_time_th;      /* ms, 10 */
  gdouble time_over_using;      /* ms; < 0 = not above the threshold */
  guint overuse_counter;
  gdouble prev_estimate;
  RtpccTime last_update;        /* threshold adaptation clock (arrivals) */
  /* highest raw accumulated delay since the estimate crossed the
   * threshold: an over-use needs the raw delay still at its high */
  gdouble episode_max;
  RtpccGccSignal signal;
  gboolean fired;               /* the last update signalled a new over-use */
  gboolean adapt;               /* run the threshold adaptation (default) */
  /* FALSE (the draft, default): every |m| > th raises the threshold (K_u).
   * TRUE: only a growing over-use does — above the threshold, estimate and
   * raw delay still rising, not our own burst (what the controller uses) */
  gboolean strict_adapt;
} RtpccGccDetector;

void rtpcc_gcc_detector_init (RtpccGccDetector * d);
/* One detector step.
 *  @modified: the amplified estimate compared with the threshold (ms)
 *  @estimate: the raw estimate, for "still increasing" (m(i) >= m(i-1))
 *  @send_delta: T(i) − T(i−1), ms, the time this sample accounts for
 *  @accumulated: the raw accumulated delay (sum of d), ms
 *  @num_deltas: samples the estimator has seen (< 2: always normal)
 *  @self_burst: this group left during the sender's own burst (a key frame
 *    keeping the pacer busy): it may not fire an over-use, nor (with
 *    strict_adapt) raise the threshold
 *  @now: t(i), for the threshold's time step */
RtpccGccSignal rtpcc_gcc_detector_update (RtpccGccDetector * d,
    gdouble modified, gdouble estimate, gdouble send_delta,
    gdouble accumulated, guint num_deltas, gboolean self_burst,
    RtpccTime now);
/* The adaptive threshold step alone (draft §5.4); run by _update. */
void rtpcc_gcc_detector_update_threshold (RtpccGccDetector * d,
    gdouble modified, RtpccTime now);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_DETECTOR_H__ */

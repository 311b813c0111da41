/* gcc loss-based controller (draft-ietf-rmcat-gcc-02 §6, §7): As from the
 * fraction of packets lost over a window of at least 20 packets and the
 * 100 ms control interval (never over one feedback packet, which may hold
 * a handful), capped by the delay-based estimate A.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_LOSS_H__
#define __RTPCC_CC_GCC_LOSS_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* draft §6: below this fraction As grows, above the high one it is cut */
#define RTPCC_GCC_LOSS_LOW 0.02
#define RTPCC_GCC_LOSS_HIGH 0.10

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

G_END_DECLS

#endif /* __RTPCC_CC_GCC_LOSS_H__ */

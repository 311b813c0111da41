/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/loss.h>

#include <math.h>
#include <string.h>

/* growth per control interval while the loss is low (draft §6) */
#define INCREASE              1.05
/* a window spans at least the control interval and this many packets
 * (libwebrtc kLimitNumPackets) */
#define MIN_INTERVAL          RTPCC_MSEC (100)
#define MIN_PACKETS           20

void
rtpcc_gcc_loss_init (RtpccGccLoss * l, gdouble start)
{
  memset (l, 0, sizeof (*l));
  l->rate = start;
  l->min_interval = MIN_INTERVAL;
  l->min_packets = MIN_PACKETS;
  l->epoch = G_MININT64 + 1;
  l->first_send = l->last_send = RTPCC_TIME_NONE;
  l->last_fraction = -1;
}

void
rtpcc_gcc_loss_add (RtpccGccLoss * l, RtpccTime send_time, gboolean received)
{
  /* packets sent before the last cut belong to the episode already paid */
  if (send_time < l->epoch)
    return;
  if (l->first_send == RTPCC_TIME_NONE || send_time < l->first_send)
    l->first_send = send_time;
  if (l->last_send == RTPCC_TIME_NONE || send_time > l->last_send)
    l->last_send = send_time;
  l->n_total++;
  if (!received)
    l->n_lost++;
}

static RtpccGccLossAction
loss_apply (RtpccGccLoss * l, RtpccTime now, gdouble p, gdouble delay_rate,
    gdouble intervals)
{
  RtpccGccLossAction action;

  l->last_fraction = p;
  if (!l->limiting)
    l->rate = delay_rate;
  if (p > RTPCC_GCC_LOSS_HIGH) {
    l->rate *= 1.0 - 0.5 * p;
    l->limiting = TRUE;
    l->epoch = now;
    action = RTPCC_GCC_LOSS_DECREASE;
  } else if (p < RTPCC_GCC_LOSS_LOW) {
    l->rate *= pow (INCREASE, intervals);
    action = RTPCC_GCC_LOSS_INCREASE;
  } else {
    action = RTPCC_GCC_LOSS_HOLD;
  }
  /* As never exceeds A: when it catches up the loss cut is over and As
   * follows A again (else it would lag A's own, faster, start-up) */
  if (l->rate >= delay_rate) {
    l->rate = delay_rate;
    l->limiting = FALSE;
  }
  return action;
}

RtpccGccLossAction
rtpcc_gcc_loss_apply (RtpccGccLoss * l, RtpccTime now, gdouble p,
    gdouble delay_rate)
{
  return loss_apply (l, now, p, delay_rate, 1.0);
}

RtpccGccLossAction
rtpcc_gcc_loss_evaluate (RtpccGccLoss * l, RtpccTime now, gdouble delay_rate)
{
  gdouble p, intervals;

  if (!l->limiting)
    l->rate = MIN (l->rate, delay_rate);
  if (l->n_total < l->min_packets || l->first_send == RTPCC_TIME_NONE
      || l->last_send - l->first_send < l->min_interval) {
    if (!l->limiting || l->rate > delay_rate) {
      l->rate = delay_rate;
      l->limiting = FALSE;
    }
    return RTPCC_GCC_LOSS_NONE;
  }
  p = (gdouble) l->n_lost / l->n_total;
  /* 1.05 per control interval the window spans, not per window: a window
   * needs 20 packets, so it lasts longer at low rates, and per window the
   * bigger flow would get its rate back faster after a shared loss */
  intervals = (gdouble) (l->last_send - l->first_send) / l->min_interval;
  l->n_total = l->n_lost = 0;
  l->first_send = l->last_send = RTPCC_TIME_NONE;
  return loss_apply (l, now, p, delay_rate, intervals);
}

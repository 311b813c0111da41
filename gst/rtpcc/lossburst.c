/* RtpccLossBurst: mean loss burst length (lossburst.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/lossburst.h>

void
rtpcc_loss_burst_init (RtpccLossBurst * b)
{
  b->packets = b->lost = b->runs = 0;
}

void
rtpcc_loss_burst_add (RtpccLossBurst * b, gboolean lost,
    RtpccOutcome before, RtpccOutcome after)
{
  b->packets = b->packets * RTPCC_LOSS_BURST_DECAY + 1;
  b->lost *= RTPCC_LOSS_BURST_DECAY;
  b->runs *= RTPCC_LOSS_BURST_DECAY;
  if (lost) {
    b->lost += 1;
    if (before == RTPCC_OUTCOME_RECEIVED)
      b->runs += 1;
  } else if (after == RTPCC_OUTCOME_LOST) {
    b->runs += 1;
  }
}

gdouble
rtpcc_loss_burst_rate (const RtpccLossBurst * b)
{
  return b->packets > 0 ? b->lost / b->packets : 0;
}

gdouble
rtpcc_loss_burst_mean (const RtpccLossBurst * b)
{
  if (b->lost < 1e-9)
    return 0;
  /* losses with no run start seen (all lost since the start): one run */
  if (b->runs < 1e-9)
    return MAX (1.0, b->lost);
  return MAX (1.0, b->lost / b->runs);
}

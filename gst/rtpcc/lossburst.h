/* RtpccLossBurst: the mean length of loss bursts (lost packets per run of
 * consecutive losses, in send order) the feedback shows, for the FEC
 * strength choice (fec/strength.h): the same loss rate in runs of three
 * leaves most single-parity blocks unrepaired.
 *
 * Per-packet feedback resolves packets out of send order (a loss is
 * declared only once later packets were seen), so runs are counted by
 * pairs of neighbours: when a packet's outcome is known, each of its two
 * neighbours already known closes a pair, and a (received, lost) pair
 * starts a run. Every adjacent pair is counted once, by whichever of the
 * two is known last; a neighbour never known (given up) closes none.
 * The counts decay by RTPCC_LOSS_BURST_DECAY per packet, so the figure
 * follows the last few thousand packets; the loss rate over the same
 * packets goes with it (a channel description for FEC, steadier than a
 * controller's per-report loss).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_LOSS_BURST_H__
#define __RTPCC_LOSS_BURST_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_LOSS_BURST_DECAY (1.0 - 1.0 / 2048)

typedef enum
{
  RTPCC_OUTCOME_UNKNOWN = 0,
  RTPCC_OUTCOME_RECEIVED,
  RTPCC_OUTCOME_LOST,
} RtpccOutcome;

typedef struct
{
  gdouble packets;              /* decayed count of packets known */
  gdouble lost;                 /* ... of lost ones */
  gdouble runs;                 /* ... of runs of them */
} RtpccLossBurst;

void rtpcc_loss_burst_init (RtpccLossBurst * b);

/* A packet's outcome became known (@lost or received); @before and
 * @after: the outcomes known so far of the packets sent just before and
 * just after it. */
void rtpcc_loss_burst_add (RtpccLossBurst * b, gboolean lost,
    RtpccOutcome before, RtpccOutcome after);

/* The mean burst (>= 1), or 0 before any loss. */
gdouble rtpcc_loss_burst_mean (const RtpccLossBurst * b);
/* The loss rate over the same packets (0 before any). */
gdouble rtpcc_loss_burst_rate (const RtpccLossBurst * b);

G_END_DECLS

#endif

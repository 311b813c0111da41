/* Competitor detector for delay-based controllers (gcc, nada): tells when
 * a loss-based flow holds the bottleneck's queue, so that a delay-based
 * estimate would only hand it the link.
 *
 * A delay-based flow alone drains the queue after each of its decreases:
 * the smallest queuing delay it sees over a few seconds is near zero. A
 * loss-based flow (TCP) fills a drop-tail queue until it overflows and
 * halves its window, so the queue never empties while it runs, whatever
 * we do. The rule: the queuing delay (one-way delay above the smallest
 * ever seen) stays above ON_DELAY for every packet of WINDOW: a
 * competitor is there. While it is, the flow sends at least the TCP
 * throughput equation's rate for its own loss-event rate and RTT (RFC
 * 5348 §3.1, the rate a TCP flow would get on the path), which gives
 * about an equal share, instead of the delay-based estimate that falls
 * to the minimum. Whether the competitor has left cannot be seen while
 * we fill the queue ourselves, so every DRAIN_EVERY the flow goes back to
 * the delay-based estimate for DRAIN_TIME: if the queue empties (a
 * packet sees less than OFF_DELAY), the competitor is gone and the flow
 * stays in its low-delay mode.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_COMPETITOR_H__
#define __RTPCC_CC_COMPETITOR_H__

#include <rtpcc/controller.h>
#include <rtpcc/lossevents.h>

G_BEGIN_DECLS

#define RTPCC_COMPETITOR_ON_DELAY RTPCC_MSEC (50)
#define RTPCC_COMPETITOR_OFF_DELAY RTPCC_MSEC (15)
#define RTPCC_COMPETITOR_WINDOW RTPCC_SEC (5)
#define RTPCC_COMPETITOR_DRAIN_EVERY RTPCC_SEC (10)
#define RTPCC_COMPETITOR_DRAIN_TIME RTPCC_SEC (1)
#define RTPCC_COMPETITOR_INTERVALS 8

typedef struct
{
  gboolean enabled;
  RtpccTime base;               /* smallest one-way delay seen, NONE */
  RtpccTime high_since;         /* every packet queued above ON since */
  gboolean active;
  RtpccTime active_since;       /* or since the last drain */
  RtpccTime drain_until;        /* a drain runs until, or NONE */
  gboolean drained;             /* a packet saw < OFF during the drain */
  /* loss events (RFC 5348 §5) of our packets, for the equation */
  RtpccLossEvents events;
  guint64 seq;                  /* our packets, in report order */
  guint64 since_event;
  gdouble intervals[RTPCC_COMPETITOR_INTERVALS];
  guint n_intervals;
  gdouble mean_size;
  guint n_entries;              /* times the mode was entered */
} RtpccCompetitor;

void rtpcc_competitor_init (RtpccCompetitor * c);
/* One report @r (received or lost) at @now; @rtt the smoothed RTT. */
void rtpcc_competitor_add (RtpccCompetitor * c, RtpccTime now,
    const RtpccPacketReport * r, RtpccTime rtt);
/* The queuing delay @q of one packet (or frame) received at @now, for a
 * caller that measures it itself (a receiver: naduestimator.h); no loss
 * events. */
void rtpcc_competitor_add_queue (RtpccCompetitor * c, RtpccTime now,
    RtpccTime q);
/* Enters, drains or leaves the competitive mode at @now; TRUE while the
 * equation's rate applies (not during a drain). */
gboolean rtpcc_competitor_update (RtpccCompetitor * c, RtpccTime now);
/* The TCP equation's rate in bit/s for @rtt; G_MAXDOUBLE before two
 * loss events. */
gdouble rtpcc_competitor_rate (const RtpccCompetitor * c,
    RtpccTime rtt);

G_END_DECLS

#endif

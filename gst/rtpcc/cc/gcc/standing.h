/* gcc's standing-queue tracker: a queue the delay trend cannot see, the
 * hold on it and the drain.
 *
 * gcc's over-use detector reads the slope of the one-way delay, so a queue
 * that stopped growing is invisible to it: after a capacity drop the cut
 * to beta × R leaves the queue draining at only (1 − beta) of the link,
 * and if the link keeps shrinking (a cellular path) or the encoder is
 * slow to follow its target (a real pipeline) the flow settles at the
 * link's rate on top of a queue of 100–250 ms with a flat trend, and
 * increases from there.
 *
 * The test is CoDel's (RFC 8289): a queue is standing when even the
 * packet that waited least over an interval waited more than a target.
 * Here the queuing delay of a packet is its one-way delay (arrival −
 * send, clock offset included) above the smallest seen over the last
 * 15–30 s, the interval is INTERVAL of arrivals, and the target is
 * the controller's `standing-queue` (TARGET suggested: the level at which
 * the competitor detector, cc/competitor.h, starts to count a queue as
 * held). When the last complete interval's
 * minimum q stands above it and, at the pace its minimum moved from the
 * interval's first half to its second, would still stand above it after
 * DRAIN (a queue already draining, such as the backlog of an outage,
 * drains without help), the
 * estimate is limited to what drains that queue within DRAIN:
 * R × (1 − q / DRAIN), at least FLOOR × R, where R is the received rate. Being relative to R, repeated drains do not compound
 * while the sender is slow to follow: the limit only falls as what gets
 * through falls. The next drain waits until this one can show: an
 * interval of packets all sent after it.
 *
 * The same reading keeps gcc from growing on such a queue (queue-hold,
 * on by default): after its cuts the trend is flat or falling, the draft
 * goes back to increase, and a sender that overshoots its target refills
 * what the cut began to drain.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_STANDING_H__
#define __RTPCC_CC_GCC_STANDING_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

/* the target gcc's standing-queue=50 sets (off by default, docs/gcc.md) */
#define RTPCC_GCC_STANDING_TARGET RTPCC_MSEC (50)
#define RTPCC_GCC_STANDING_INTERVAL RTPCC_MSEC (200)
#define RTPCC_GCC_STANDING_DRAIN RTPCC_SEC (1)
#define RTPCC_GCC_STANDING_FLOOR 0.5
/* the base is the smaller of two such blocks' minima */
#define RTPCC_GCC_STANDING_BASE_BLOCK RTPCC_SEC (15)

typedef struct
{
  RtpccTime target;             /* 0 = off */
  /* the base one-way delay: minima of the current and previous blocks */
  RtpccTime block_start;
  RtpccTime block_min, prev_block_min;
  /* the interval being measured (arrival times) and its minimum queue */
  RtpccTime interval_start;
  RtpccTime interval_min[2];    /* of its first and second halves */
  RtpccTime interval_first_send;        /* its earliest packet's send time */
  RtpccTime standing;           /* the last complete interval's, NONE */
  gdouble pace;                 /* ... how fast it moved (s per s) */
  RtpccTime standing_first_send;
  RtpccTime last_drain;         /* sender clock, NONE */
  guint64 n_drains;
} RtpccGccStanding;

void rtpcc_gcc_standing_init (RtpccGccStanding * s, RtpccTime target);
/* Forgets the intervals (the stream paused); the base stays. */
void rtpcc_gcc_standing_restart (RtpccGccStanding * s);
/* A packet sent at @send_time (sender clock) arrived at @arrival
 * (receiver clock). */
void rtpcc_gcc_standing_add (RtpccGccStanding * s, RtpccTime send_time,
    RtpccTime arrival);
/* The rate (bit/s) that drains a standing queue, given the received rate
 * @R (bit/s), or -1 when no drain is due at @now (sender clock). A drain
 * returned counts as done. */
gdouble rtpcc_gcc_standing_drain (RtpccGccStanding * s, RtpccTime now,
    gdouble R);

/* Whether the last complete interval's queue stood above @target (FALSE
 * for @target 0): gcc's queue-hold, the estimate should not grow on it
 * (docs/gcc.md (h)). Needs no drain target of its own. */
gboolean rtpcc_gcc_standing_above (const RtpccGccStanding * s,
    RtpccTime target);

/* The rate (bit/s) an over-use cut should not exceed so that it also
 * drains the queue the last complete interval stood on within DRAIN:
 * R × (1 − q / DRAIN), at least FLOOR × R; -1 when no interval is known.
 * Unlike rtpcc_gcc_standing_drain it needs no target: a cut happens
 * anyway, this only sets how deep (beta × R drains 1 − beta of the link,
 * too slow for the queue a large capacity drop leaves). */
gdouble rtpcc_gcc_standing_cut (const RtpccGccStanding * s, gdouble R);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_STANDING_H__ */

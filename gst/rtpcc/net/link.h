/* RtpccLink: a sans-I/O bottleneck link.
 *
 *   arrival → loss model → drop-tail FIFO → serialization at the capacity in
 *   force → propagation delay + jitter → delivery
 *
 * With a burst the FIFO is a token bucket, as Linux's tbf: a bucket of
 * burst bytes fills at the capacity, and a packet leaves as soon as it
 * holds the packet's size; a packet F would finish at in the plain
 * serializer leaves at max (arrival, F − burst / capacity), so an idle
 * link passes a burst of that many bytes at once and a backlogged one
 * runs at the capacity, its queue that much shorter.
 *
 * Every packet's fate is decided when it is offered (rtpcc_link_send): the
 * FIFO departure is exact for any capacity schedule or trace known in
 * advance, so the caller only has to hold the packet until deliver_at. The
 * same object serves the linkemu element (times from the pipeline clock) and
 * the simulator (simulated time).
 *
 * Every function taking @now expects it non-decreasing across all calls on
 * one link (queries included: they retire departed packets up to @now).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_LINK_H__
#define __RTPCC_LINK_H__

#include <rtpcc/common.h>
#include <rtpcc/rng.h>
#include <rtpcc/net/capacity.h>
#include <rtpcc/net/loss.h>

G_BEGIN_DECLS

typedef struct
{
  RtpccCapacity *capacity;      /* NULL = unlimited; the link takes a ref */
  /* Drop-tail limits; 0 disables a limit. With both set the tighter wins. The
   * time limit is converted to bytes at the capacity in force on arrival
   * ("milliseconds at current capacity"). */
  RtpccTime queue_limit_time;
  guint64 queue_limit_bytes;
  /* Token bucket depth (0 = a plain serializer): the larger of the bytes
   * and the bytes the capacity in force carries in the time; tbf's limit
   * then holds the burst on top of the drop-tail limits. */
  guint64 burst_bytes;
  RtpccTime burst_time;
  RtpccTime delay;              /* one-way propagation delay */
  RtpccTime jitter;             /* uniform in [-jitter, +jitter] around delay */
  gboolean allow_reorder;       /* FALSE: jitter never reorders packets */
  RtpccLossParams loss;
  guint64 seed;
} RtpccLinkConfig;

/* Unlimited capacity, 300 ms queue (RFC 8867), no delay, jitter or loss,
 * seed 0. */
void rtpcc_link_config_init (RtpccLinkConfig * config);

typedef enum
{
  RTPCC_LINK_DELIVERED,
  RTPCC_LINK_DROPPED_QUEUE,
  RTPCC_LINK_DROPPED_LOSS,
} RtpccLinkVerdict;

const gchar *rtpcc_link_verdict_name (RtpccLinkVerdict verdict);

/* For a dropped packet departure and deliver_at are RTPCC_TIME_NONE and
 * queue_delay is 0. A packet that could never be served (an outage without
 * end) is DROPPED_QUEUE. */
typedef struct
{
  RtpccLinkVerdict verdict;
  RtpccTime arrival;
  RtpccTime departure;          /* leaves the bottleneck (end of
                                 * serialization; earlier by a burst) */
  RtpccTime deliver_at;         /* departure + delay + jitter */
  RtpccTime queue_delay;        /* departure - arrival: wait + own serialization */
} RtpccLinkOutcome;

typedef struct
{
  guint64 packets_in, bytes_in;
  guint64 packets_delivered, bytes_delivered;   /* verdict DELIVERED */
  guint64 queue_drops, queue_drop_bytes;
  guint64 loss_drops, loss_drop_bytes;
  RtpccTime max_queue_delay;
} RtpccLinkStats;

typedef struct _RtpccLink RtpccLink;

/* Loss probabilities outside [0, 1] are clamped. */
RtpccLink *rtpcc_link_new (const RtpccLinkConfig * config);
void rtpcc_link_free (RtpccLink * link);

/* The time at which schedule/trace time 0 applies (default 0). */
void rtpcc_link_set_epoch (RtpccLink * link, RtpccTime epoch);
RtpccTime rtpcc_link_get_epoch (const RtpccLink * link);

/* Offer one packet of @size bytes at @now (non-decreasing across calls). */
void rtpcc_link_send (RtpccLink * link, RtpccTime now, guint size,
    RtpccLinkOutcome * outcome);

/* Time until the bottleneck queue drains, as seen at @now. */
RtpccTime rtpcc_link_queue_delay (RtpccLink * link, RtpccTime now);
/* Bytes in the bottleneck queue (whole packets, including the one in
 * service) at @now. */
guint64 rtpcc_link_queue_bytes (RtpccLink * link, RtpccTime now);
/* Capacity in bit/s at @now (G_MAXUINT64 when unlimited). For a trace, the
 * mean opportunity rate over the next queue_limit_time (100 ms when there
 * is no time limit): the rate the time limit is converted with. */
guint64 rtpcc_link_capacity_at (const RtpccLink * link, RtpccTime now);

const RtpccLinkStats *rtpcc_link_get_stats (const RtpccLink * link);
const RtpccLinkConfig *rtpcc_link_get_config (const RtpccLink * link);

/* Empties the queue and the server state (as after a flushing seek) while
 * keeping the configuration and the counters. The random streams carry on. */
void rtpcc_link_reset (RtpccLink * link);

/* Runtime changes. They apply to packets offered from now on; packets already
 * queued keep the departure computed when they arrived. */
void rtpcc_link_set_capacity (RtpccLink * link, RtpccCapacity * capacity);
void rtpcc_link_set_burst (RtpccLink * link, guint64 burst_bytes,
    RtpccTime burst_time);
void rtpcc_link_set_queue_limits (RtpccLink * link, RtpccTime limit_time,
    guint64 limit_bytes);
void rtpcc_link_set_delay (RtpccLink * link, RtpccTime delay, RtpccTime jitter,
    gboolean allow_reorder);
void rtpcc_link_set_loss (RtpccLink * link, const RtpccLossParams * loss);

G_END_DECLS

#endif

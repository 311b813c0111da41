/* RtpccDeliveryRate: the rate at which the path delivered what a sender
 * sent, from the acknowledgements of per-packet feedback.
 *
 * A sample: over the packets reported received whose send times lie
 * within the last @window before the newest one's, their bytes over the
 * longer of the time they took to send and the time they took to arrive
 * (draft-cheng-iccrg-delivery-rate-estimation §3.3, which uses the longer
 * interval for the same reason: acknowledgements that bunch up, or arrival
 * times a report makes up, cannot make a sample exceed the rate the
 * packets were sent at). That interval is never shorter than the window
 * (or the time since the first packet acknowledged, early in a call):
 * packets sent in one burst have no send interval of their own, and the
 * bytes of the window were sent within it. The first packet's bytes are
 * left out: they are
 * the start of the interval, not part of it. The estimate is the highest
 * sample of the last RTPCC_DELIVERY_RATE_HOLD (of send time): a window a
 * round trip long cuts video frames unevenly, and the highest of the last
 * second is what the path has shown it can carry (as BBR's windowed
 * maximum of delivery-rate samples).
 *
 * A packet whose acknowledgement a later report contradicted (see
 * feedbackadapter.h) is withdrawn, and the samples taken so far with it:
 * feedback that disagrees with itself counts for nothing.
 *
 * The estimate only changes when acknowledgements arrive: without
 * feedback it holds (what to do then is the controllers' business).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_DELIVERY_RATE_H__
#define __RTPCC_DELIVERY_RATE_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* A sample needs this many packets in the window. */
#define RTPCC_DELIVERY_RATE_MIN_PACKETS 4
/* The estimate is the highest sample over this long. */
#define RTPCC_DELIVERY_RATE_HOLD RTPCC_SEC (1)

typedef struct _RtpccDeliveryRate RtpccDeliveryRate;

RtpccDeliveryRate *rtpcc_delivery_rate_new (void);
void rtpcc_delivery_rate_free (RtpccDeliveryRate * rate);

/* Packet @seq (the sender's, increasing with send time) of @size bytes,
 * sent at @send_time, reported received at @arrival (sender timeline;
 * RTPCC_TIME_NONE if the report gave no time). */
void rtpcc_delivery_rate_on_ack (RtpccDeliveryRate * rate, guint64 seq,
    RtpccTime send_time, RtpccTime arrival, guint size);
/* Packet @seq's acknowledgement is withdrawn (contradicted). */
void rtpcc_delivery_rate_withdraw (RtpccDeliveryRate * rate, guint64 seq);

/* Recomputes the estimate over the packets sent within @window of the
 * newest acknowledged one (older ones are forgotten); returns it, bit/s,
 * 0 while there is none. */
guint64 rtpcc_delivery_rate_update (RtpccDeliveryRate * rate,
    RtpccTime window);
/* The last estimate, bit/s (0: none). */
guint64 rtpcc_delivery_rate_get (const RtpccDeliveryRate * rate);

G_END_DECLS

#endif

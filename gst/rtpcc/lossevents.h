/* Loss events (RFC 5348 §5.2).
 *
 * A congestion controller that halves its rate once per loss of a burst
 * would over-react: a drop-tail queue that overflows usually drops several
 * packets of the same round trip. RFC 5348 §5.2 therefore groups losses
 * into loss *events*: a lost packet sent within one RTT of the first lost
 * packet of the current event belongs to that event; one sent later starts
 * a new event. The TCP throughput equation's p is the rate of these events
 * (per packet), not of lost packets. DCCP's CCID 3 keeps the same grouping
 * in its loss-interval code (Linux net/dccp/ccids/lib/loss_interval.c).
 *
 * Our senders know each packet's send time exactly (per-packet feedback
 * names the packets), so events are grouped by send times, not by the
 * interpolated arrival times RFC 5348 §5.2 uses at a receiver.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_LOSS_EVENTS_H__
#define __RTPCC_LOSS_EVENTS_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean started;             /* a loss has been seen */
  guint64 first_seq;            /* the current event's first lost packet */
  RtpccTime first_send;         /* ... and its send time */
  guint64 n_events;
} RtpccLossEvents;

void rtpcc_loss_events_init (RtpccLossEvents * events);

/* The loss (or ECN-CE mark) of packet @seq (numbered in send order), sent
 * at @send_time, with @rtt the round-trip time now. TRUE if it starts a new
 * loss event. A packet not after the event's first one (reported late)
 * belongs to the current event. With @interval non-NULL and a new event
 * other than the first, *@interval is the loss interval that event closes:
 * packets from the previous event's first loss to this one (RFC 5348
 * §5.3's I_1, counted in packets sent). */
gboolean rtpcc_loss_events_on_loss (RtpccLossEvents * events, guint64 seq,
    RtpccTime send_time, RtpccTime rtt, guint64 * interval);

G_END_DECLS

#endif

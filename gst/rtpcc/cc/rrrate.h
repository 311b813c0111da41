/* RtpccRrRate: the state of a controller that sets its rate once per RTCP
 * receiver report under a receiver's estimate (rrtcc, cnadu): the rate and
 * that estimate, the mean packet size for the TCP throughput equation, and
 * which reports to act on (none after feedback stopped until one shows
 * progress, whose loss is the outage's; none that shows nothing received
 * of what was sent).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_RRRATE_H__
#define __RTPCC_CC_RRRATE_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

typedef struct
{
  gdouble rate;                 /* bit/s, what is published */
  guint64 limit;                /* the receiver's estimate (REMB, TMMBR),
                                 * G_MAXUINT64 = none */
  gdouble packet_size;          /* EWMA of the media packets sent, bytes */
  gboolean restart;             /* feedback stopped */
  guint32 last_hsn;
  gboolean seen_report;
  const gchar *state, *reason;
} RtpccRrRate;

typedef enum
{
  RTPCC_RR_RATE_ACT,            /* news: apply the rule, then publish */
  RTPCC_RR_RATE_PUBLISH,        /* not acted on; publish the reason */
  RTPCC_RR_RATE_IGNORE,         /* nothing to do */
} RtpccRrRateVerdict;

/* The start rate (or the minimum), no limit; published. */
void rtpcc_rr_rate_init (RtpccRrRate * r, RtpccController * cc);
/* Into [min, min (max, limit)]: the sender enforces the receiver's limit
 * on what we publish, so the state stays within reach of it (a limit
 * below min-bitrate still limits). */
void rtpcc_rr_rate_clamp (RtpccRrRate * r, RtpccController * cc);
void rtpcc_rr_rate_publish (RtpccRrRate * r, RtpccController * cc);
void rtpcc_rr_rate_on_sent (RtpccRrRate * r, const RtpccSentPacket * pkt);
RtpccRrRateVerdict rtpcc_rr_rate_admit (RtpccRrRate * r,
    const RtpccReceiverReport * rr);
/* The TCP throughput equation (RFC 5348 §3.1) for @p and @rtt at the mean
 * packet size, bit/s; 0 without loss or RTT. */
gdouble rtpcc_rr_rate_tcp (const RtpccRrRate * r, gdouble p, RtpccTime rtt);
/* A new receiver limit: kept, and the rate lowered to it at once. */
void rtpcc_rr_rate_set_limit (RtpccRrRate * r, RtpccController * cc,
    guint64 limit);
/* Feedback stopped: the first time, the rate to @rate; published. */
void rtpcc_rr_rate_no_feedback (RtpccRrRate * r, RtpccController * cc,
    gdouble rate);

G_END_DECLS

#endif

/* gcc application-limited test: did the sender use the rate it was
 * allowed? The media bytes sent over a recent window (the send log)
 * against the integral of the published media target over the same
 * window, as libwebrtc's AlrDetector weighs the bytes sent against a
 * budget that accrues at the target. Comparing with the integral, not
 * with the latest target, keeps a sender that follows a growing target
 * at once from reading as limited.
 *
 * An empty queue while the sender uses less than its estimate says
 * nothing about the estimate, so gcc does not raise it then (docs/gcc.md,
 * "Application-limited").
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_APPLIMIT_H__
#define __RTPCC_CC_GCC_APPLIMIT_H__

#include <rtpcc/cc/gcc/sendlog.h>

G_BEGIN_DECLS

typedef struct
{
  GArray *marks;                /* (time, allowance up to it, rate from it) */
  guint head;                   /* the oldest mark kept */
} RtpccGccAppLimit;

void rtpcc_gcc_app_limit_init (RtpccGccAppLimit * l);
void rtpcc_gcc_app_limit_clear (RtpccGccAppLimit * l);
/* The sender may send @rate bit/s from @t on (times ascending; an earlier
 * @t counts as the latest one). */
void rtpcc_gcc_app_limit_set_rate (RtpccGccAppLimit * l, RtpccTime t,
    gdouble rate);
/* Bits allowed over (@t − @window, @t]; -1 if the allowance is not known
 * back to @t − @window. */
gdouble rtpcc_gcc_app_limit_allowed (const RtpccGccAppLimit * l, RtpccTime t,
    RtpccTime window);
/* Fraction of the allowance over (@t − @window, @t] that @sent shows as
 * sent; -1 if either is not known that far back or nothing was allowed. */
gdouble rtpcc_gcc_app_limit_used (const RtpccGccAppLimit * l,
    const RtpccGccSendLog * sent, RtpccTime t, RtpccTime window);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_APPLIMIT_H__ */

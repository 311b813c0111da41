/* gst-rtpcc — common definitions of the sans-I/O core: time and errors.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_COMMON_H__
#define __RTPCC_COMMON_H__

#include <glib.h>

G_BEGIN_DECLS

/* Monotonic time in nanoseconds. Signed so that differences are natural. */
typedef gint64 RtpccTime;

#define RTPCC_TIME_NONE     G_MININT64
#define RTPCC_TIME_INFINITE G_MAXINT64

#define RTPCC_NSEC_PER_USEC G_GINT64_CONSTANT (1000)
#define RTPCC_NSEC_PER_MSEC G_GINT64_CONSTANT (1000000)
#define RTPCC_NSEC_PER_SEC  G_GINT64_CONSTANT (1000000000)

#define RTPCC_USEC(us) ((RtpccTime) ((us) * RTPCC_NSEC_PER_USEC))
#define RTPCC_MSEC(ms) ((RtpccTime) ((ms) * RTPCC_NSEC_PER_MSEC))
#define RTPCC_SEC(s)   ((RtpccTime) ((s) * RTPCC_NSEC_PER_SEC))

#define RTPCC_TIME_AS_MSEC(t) ((gdouble) (t) / (gdouble) RTPCC_NSEC_PER_MSEC)
#define RTPCC_TIME_AS_SEC(t)  ((gdouble) (t) / (gdouble) RTPCC_NSEC_PER_SEC)

/* RFC 5348 §5.1's NDUPACK: a missing packet is lost once this many later
 * packets have arrived (a reordered one is not). The sender declares the
 * loss (senthistory.h); the receiver keeps reporting a missing packet
 * until then (arrivallog.h). */
#define RTPCC_NDUPACK 3

/* a − b, saturated where it would overflow (G_MININT64 + 1, so never
 * RTPCC_TIME_NONE, or G_MAXINT64): for differences of times that come from
 * outside (callers, parsed packets, fuzzers) and may be anywhere. */
RtpccTime rtpcc_time_sub_saturated (RtpccTime a, RtpccTime b);

#define RTPCC_ERROR (rtpcc_error_quark ())
GQuark rtpcc_error_quark (void);

typedef enum
{
  RTPCC_ERROR_PARSE,     /* malformed specification (schedule, trace, packet) */
  RTPCC_ERROR_IO,        /* a file could not be read */
  RTPCC_ERROR_INVALID,   /* a value out of its allowed range */
} RtpccError;

G_END_DECLS

#endif

/* Bottleneck capacity: a constant rate, a piecewise-constant schedule
 * (RFC 8867 style) or a mahimahi-style delivery-opportunity trace.
 *
 * A capacity is a service curve. rtpcc_capacity_serve() answers "a packet of
 * N bytes starts service at time S: when has it been fully serialized?",
 * integrating the rate across schedule changes, so the link model can compute
 * every departure exactly at enqueue time. Times are relative to the link's
 * epoch (schedule time 0).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CAPACITY_H__
#define __RTPCC_CAPACITY_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* Bytes per mahimahi delivery opportunity. */
#define RTPCC_TRACE_MTU 1500

typedef struct _RtpccCapacity RtpccCapacity;

typedef enum
{
  RTPCC_CAPACITY_UNLIMITED,
  RTPCC_CAPACITY_SCHEDULE,      /* constant rates are one-entry schedules */
  RTPCC_CAPACITY_TRACE,
} RtpccCapacityKind;

/* Service state carried between consecutive packets of one FIFO server. Only
 * traces use it: part of a 1500-byte opportunity left over by one packet can
 * serve the next one if it is already waiting. */
typedef struct
{
  gint64 next_opportunity;      /* global index of the first unused opportunity */
  guint credit;                 /* bytes left in opportunity next_opportunity-1 */
} RtpccCapacityCursor;

#define RTPCC_CAPACITY_CURSOR_INIT { 0, 0 }

RtpccCapacity *rtpcc_capacity_new_unlimited (void);
/* Constant rate in bit/s; 0 is an outage (nothing is ever served). */
RtpccCapacity *rtpcc_capacity_new_constant (guint64 bps);
/* "kbit/s@seconds,..." e.g. "1000@0,2500@40,600@60,1000@80". The first entry
 * must be at 0, times strictly increase, rates are >= 0 (0 = outage) and may
 * be fractional. The last rate holds forever. */
RtpccCapacity *rtpcc_capacity_new_schedule (const gchar * spec, GError ** error);
/* mahimahi trace text: one non-negative integer millisecond timestamp per line
 * (non-decreasing; repeats mean several opportunities in that millisecond),
 * each a 1500-byte delivery opportunity; the trace loops with a period equal
 * to its last timestamp, which must be > 0. Blank lines and '#' comments are
 * ignored. */
RtpccCapacity *rtpcc_capacity_new_trace (const gchar * text, gsize len,
    GError ** error);
RtpccCapacity *rtpcc_capacity_new_trace_file (const gchar * path,
    GError ** error);

RtpccCapacity *rtpcc_capacity_ref (RtpccCapacity * cap);
void rtpcc_capacity_unref (RtpccCapacity * cap);

RtpccCapacityKind rtpcc_capacity_get_kind (const RtpccCapacity * cap);

/* Rate in bit/s in force at @t. For a trace: the mean rate of the
 * opportunities in [t, t + window) (window <= 0 means 100 ms). Unlimited
 * returns G_MAXUINT64. */
guint64 rtpcc_capacity_rate_at (const RtpccCapacity * cap, RtpccTime t,
    RtpccTime window);

/* The first time > @t at which the scheduled rate changes, or
 * RTPCC_TIME_INFINITE (always infinite for unlimited and traces). */
RtpccTime rtpcc_capacity_next_change (const RtpccCapacity * cap, RtpccTime t);

/* FIFO service: a packet of @bytes starts service at @start; returns the time
 * it is completely served, or RTPCC_TIME_INFINITE if the capacity never
 * serves it (outage without end). @cursor may be NULL except for traces. */
RtpccTime rtpcc_capacity_serve (const RtpccCapacity * cap, RtpccTime start,
    guint bytes, RtpccCapacityCursor * cursor);

/* Human-readable form ("unlimited", "1000@0,2500@40", "trace:N@Pms"). */
gchar *rtpcc_capacity_to_string (const RtpccCapacity * cap);

G_END_DECLS

#endif

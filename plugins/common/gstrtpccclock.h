/* Reading an element's clock once or more per packet, cheaply.
 *
 * gst_clock_get_time() on the pipeline's usual clock, the monotonic system
 * clock, costs a few hundred instructions (the clock's calibration read
 * under its seqlock, the internal time through a virtual method); that
 * clock's time is CLOCK_MONOTONIC, which is read here directly. Any other
 * clock (a slaved or calibrated one, a network clock, a GstTestClock) is
 * read through gst_clock_get_time() as before. Whether the element's
 * clock is that clock is decided once per clock the element is given, as
 * the transport elements' timebase does (plugins/rtpcc/rtpcctimebase.h),
 * not on every read.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_CLOCK_H__
#define __GST_RTPCC_CLOCK_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* TRUE if @clock is the system clock on CLOCK_MONOTONIC, neither slaved
 * nor calibrated: its time is CLOCK_MONOTONIC's. */
gboolean gst_rtpcc_clock_is_monotonic (GstClock * clock);

/* CLOCK_MONOTONIC in ns: the monotonic system clock's time. */
GstClockTime gst_rtpcc_clock_monotonic_time (void);

typedef struct
{
  GstClock *clock;              /* the clock last decided on (a reference:
                                 * no other clock can take its address) */
  gboolean monotonic;           /* gst_rtpcc_clock_is_monotonic (clock) */
} GstRtpccClockCache;

/* The element's object lock held: the time of the element's @clock
 * (non-NULL), read as CLOCK_MONOTONIC when it is the monotonic system
 * clock. @cache (zero-initialised) is guarded by the same lock. */
GstClockTime gst_rtpcc_clock_cache_get_time (GstRtpccClockCache * cache,
    GstClock * clock);
/* Drops the reference (finalize). */
void gst_rtpcc_clock_cache_clear (GstRtpccClockCache * cache);

G_END_DECLS

#endif /* __GST_RTPCC_CLOCK_H__ */

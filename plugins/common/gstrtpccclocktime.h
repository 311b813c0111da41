/* A clock's time as gst_clock_get_time() gives it, for elements that read
 * it for every packet.
 *
 * The usual pipeline clock is the system clock on CLOCK_MONOTONIC, neither
 * slaved nor calibrated: its time is CLOCK_MONOTONIC itself. Read through
 * gst_clock_get_time() that costs several times as much as reading
 * CLOCK_MONOTONIC directly (the virtual call, the calibration under its
 * sequence lock, the debug log), so for such a clock it is read directly.
 * Any other clock goes through gst_clock_get_time(). Whether the clock is
 * such a clock is checked once, when it is first read (as rtpcctimebase.h
 * does when it is given a clock): the pipeline's system clock is not
 * slaved or calibrated later.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_CLOCK_TIME_H__
#define __GST_RTPCC_CLOCK_TIME_H__

#include <gst/gst.h>

G_BEGIN_DECLS

GstClockTime gst_rtpcc_clock_get_time (GstClock * clock);

G_END_DECLS

#endif /* __GST_RTPCC_CLOCK_TIME_H__ */

/* The library's "now" for an element: the running time of its clock, or
 * of the buffer when it has none (a harness without a clock), never going
 * back. Reads the clock under the element's object lock instead of taking
 * a reference to it: this runs for every packet.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_NOW_H__
#define __GST_RTPCC_NOW_H__

#include <gst/gst.h>
#include <rtpcc/common.h>

#include "gstrtpccclock.h"

G_BEGIN_DECLS

/* @segment and @buf (may be NULL) give the buffer's running time when the
 * element has no clock; *@last_now (updated) is the floor. @cache
 * (gstrtpccclock.h) remembers whether the element's clock can be read as
 * CLOCK_MONOTONIC; the element's object lock guards it. */
RtpccTime gst_rtpcc_now (GstElement * element, GstRtpccClockCache * cache,
    const GstSegment * segment, GstBuffer * buf, RtpccTime * last_now);

G_END_DECLS

#endif /* __GST_RTPCC_NOW_H__ */

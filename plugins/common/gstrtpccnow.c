/* The library's "now" for an element (gstrtpccnow.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccnow.h"

RtpccTime
gst_rtpcc_now (GstElement * element, GstRtpccClockCache * cache,
    const GstSegment * segment, GstBuffer * buf, RtpccTime * last_now)
{
  RtpccTime now = *last_now;
  gboolean have_clock;

  GST_OBJECT_LOCK (element);
  have_clock = element->clock != NULL;
  if (have_clock) {
    GstClockTime t = gst_rtpcc_clock_cache_get_time (cache, element->clock);
    GstClockTime base = (GstClockTime) element->base_time;

    if (GST_CLOCK_TIME_IS_VALID (t) && t >= base)
      now = (RtpccTime) (t - base);
  }
  GST_OBJECT_UNLOCK (element);
  if (!have_clock && buf && GST_BUFFER_PTS_IS_VALID (buf)
      && segment->format == GST_FORMAT_TIME) {
    /* no clock (e.g. a harness without one): the buffer's running time */
    guint64 rt = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));

    if (GST_CLOCK_TIME_IS_VALID (rt))
      now = (RtpccTime) rt;
  }
  /* the library's time never goes back */
  now = MAX (now, *last_now);
  *last_now = now;
  return now;
}

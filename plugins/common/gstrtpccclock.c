/* Reading an element's clock cheaply (gstrtpccclock.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccclock.h"

#include <time.h>

gboolean
gst_rtpcc_clock_is_monotonic (GstClock * clock)
{
  GstClockType type = GST_CLOCK_TYPE_REALTIME;
  GstClockTime internal, external, num, den;
  GstClock *master;

  if (!GST_IS_SYSTEM_CLOCK (clock))
    return FALSE;
  g_object_get (clock, "clock-type", &type, NULL);
  if (type != GST_CLOCK_TYPE_MONOTONIC)
    return FALSE;
  master = gst_clock_get_master (clock);
  if (master) {
    gst_object_unref (master);
    return FALSE;
  }
  gst_clock_get_calibration (clock, &internal, &external, &num, &den);
  return internal == external && num == den;
}

GstClockTime
gst_rtpcc_clock_monotonic_time (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return GST_TIMESPEC_TO_TIME (ts);
}

GstClockTime
gst_rtpcc_clock_cache_get_time (GstRtpccClockCache * cache, GstClock * clock)
{
  if (G_UNLIKELY (clock != cache->clock)) {
    gst_object_replace ((GstObject **) & cache->clock, GST_OBJECT (clock));
    cache->monotonic = gst_rtpcc_clock_is_monotonic (clock);
  }
  return cache->monotonic ? gst_rtpcc_clock_monotonic_time () :
      gst_clock_get_time (clock);
}

void
gst_rtpcc_clock_cache_clear (GstRtpccClockCache * cache)
{
  gst_clear_object (&cache->clock);
  cache->monotonic = FALSE;
}

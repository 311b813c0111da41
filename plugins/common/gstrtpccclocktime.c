/* A clock's time, read directly when it is CLOCK_MONOTONIC
 * (gstrtpccclocktime.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccclocktime.h"

#include <time.h>

/* The monotonic system clock once one has been seen (a reference, never
 * dropped: it is the process's default system clock, which lives as long
 * anyway). Compared by pointer, so the check runs once. */
static GstClock *mono_clock;

/* A GstSystemClock itself (a subclass, a network clock, has its own
 * notion of time) on CLOCK_MONOTONIC, not slaved or calibrated. */
static gboolean
is_monotonic (GstClock * clock)
{
  GstClockType type = GST_CLOCK_TYPE_REALTIME;
  GstClockTime internal, external, num, den;

  if (G_OBJECT_TYPE (clock) != GST_TYPE_SYSTEM_CLOCK)
    return FALSE;
  g_object_get (clock, "clock-type", &type, NULL);
  if (type != GST_CLOCK_TYPE_MONOTONIC)
    return FALSE;
  gst_clock_get_calibration (clock, &internal, &external, &num, &den);
  return internal == external && num == den;
}

GstClockTime
gst_rtpcc_clock_get_time (GstClock * clock)
{
  GstClock *mono = g_atomic_pointer_get (&mono_clock);
  struct timespec ts;

  if (G_UNLIKELY (clock != mono)) {
    if (mono || !is_monotonic (clock))
      return gst_clock_get_time (clock);
    gst_object_ref (clock);
    if (!g_atomic_pointer_compare_and_exchange (&mono_clock, NULL, clock))
      gst_object_unref (clock);
  }
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return GST_TIMESPEC_TO_TIME (ts);
}

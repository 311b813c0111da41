/* A clock's time, read directly when it is CLOCK_MONOTONIC
 * (gstrtpccclocktime.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccclocktime.h"

#include <time.h>

/* The monotonic system clock once one has been seen, compared by pointer
 * so that the check runs once. Not a reference (the clock must be able to
 * go away): a weak reference clears it first. */
static GstClock *mono_clock;

static void
mono_clock_gone (gpointer data, GObject * where_the_object_was)
{
  g_atomic_pointer_compare_and_exchange (&mono_clock,
      (GstClock *) where_the_object_was, NULL);
}

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

  if (G_UNLIKELY (clock != mono || !mono)) {
    if (mono || !clock || !is_monotonic (clock))
      return gst_clock_get_time (clock);
    /* (the caller keeps @clock alive meanwhile) */
    if (g_atomic_pointer_compare_and_exchange (&mono_clock, NULL, clock))
      g_object_weak_ref (G_OBJECT (clock), mono_clock_gone, NULL);
  }
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return GST_TIMESPEC_TO_TIME (ts);
}

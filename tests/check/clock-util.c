/* Driving a GstTestClock (see clock-util.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "clock-util.h"

/* a guard against a hung element, not a timing assumption */
#define GUARD_MS 20000

/* The pending ids once at least @waiters are (NULL if none). */
static GList *
pending (GstTestClock * clock, guint waiters)
{
  GList *ids = NULL;

  /* (its result says "exactly @waiters": more may be pending while an
   * element swaps its id) */
  gst_test_clock_timed_wait_for_multiple_pending_ids (clock, waiters,
      waiters ? GUARD_MS : 0, &ids);
  fail_unless (g_list_length (ids) >= waiters, "the elements did not go "
      "idle (%u of %u clock waits)", g_list_length (ids), waiters);
  return ids;
}

void
clock_settle (GstTestClock * clock, guint waiters)
{
  g_list_free_full (pending (clock, waiters),
      (GDestroyNotify) gst_clock_id_unref);
}

GList *
clock_snapshot (GstTestClock * clock)
{
  return pending (clock, 0);
}

void
clock_settle_after (GstTestClock * clock, guint waiters, GList * before)
{
  gint64 guard = g_get_monotonic_time () + GUARD_MS * G_TIME_SPAN_MILLISECOND;

  for (;;) {
    gboolean gone = before == NULL;
    for (GList * l = before; l && !gone; l = l->next)
      gone = !gst_test_clock_has_id (clock, l->data);
    if (gone)
      break;
    fail_unless (g_get_monotonic_time () < guard,
        "the element did not wake up");
    /* the element is about to run: let it */
    g_thread_yield ();
  }
  g_list_free_full (before, (GDestroyNotify) gst_clock_id_unref);
  clock_settle (clock, waiters);
}

void
clock_run_until (GstTestClock * clock, guint waiters, GstClockTime until)
{
  for (;;) {
    GList *ids = pending (clock, waiters);
    GstClockID first = NULL;
    GstClockTime t = GST_CLOCK_TIME_NONE;

    for (GList * l = ids; l; l = l->next) {
      GstClockTime lt = gst_clock_id_get_time (l->data);
      if (!GST_CLOCK_TIME_IS_VALID (t) || lt < t) {
        t = lt;
        first = l->data;
      }
    }
    if (!first || t > until) {
      g_list_free_full (ids, (GDestroyNotify) gst_clock_id_unref);
      break;
    }
    if (t > gst_clock_get_time (GST_CLOCK (clock)))
      gst_test_clock_set_time (clock, t);
    /* (as a list: an element may have unregistered it meanwhile, woken
     * by a datagram) */
    {
      GList one = { first, NULL, NULL };
      gst_test_clock_process_id_list (clock, &one);
    }
    g_list_free_full (ids, (GDestroyNotify) gst_clock_id_unref);
  }
  if (until > gst_clock_get_time (GST_CLOCK (clock)))
    gst_test_clock_set_time (clock, until);
}

void
clock_advance (GstTestClock * clock, guint waiters, GstClockTime dt)
{
  clock_run_until (clock, waiters, gst_clock_get_time (GST_CLOCK (clock)) +
      dt);
}

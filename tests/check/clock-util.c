/* Driving a GstTestClock (see clock-util.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "clock-util.h"

#include <stdlib.h>
#include <string.h>

/* a guard against a hung element, not a timing assumption */
#define GUARD_MS 20000

#define PORTS_KEY "clock-util-ports"

void
clock_watch_port (GstTestClock * clock, guint16 port)
{
  GArray *ports = g_object_get_data (G_OBJECT (clock), PORTS_KEY);

  if (!ports) {
    ports = g_array_new (FALSE, FALSE, sizeof (guint16));
    g_object_set_data_full (G_OBJECT (clock), PORTS_KEY, ports,
        (GDestroyNotify) g_array_unref);
  }
  g_array_append_val (ports, port);
}

/* Bytes queued on UDP sockets bound to one of @ports (/proc/net/@file:
 * "sl local_address rem_address st tx_queue:rx_queue ...", addresses as
 * hex "ADDR:PORT"). */
static guint64
queued (const gchar * file, GArray * ports)
{
  gchar *text = NULL, **lines;
  guint64 total = 0;

  if (!g_file_get_contents (file, &text, NULL, NULL))
    return 0;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 1; lines[i]; i++) {
    gchar **f = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
    gchar *fields[6];
    guint n = 0;

    for (guint k = 0; f[k] && n < 6; k++)
      if (*f[k])
        fields[n++] = f[k];
    if (n == 6) {
      const gchar *colon = strrchr (fields[1], ':');
      const gchar *rx = strchr (fields[4], ':');
      guint port = colon ? (guint) strtoul (colon + 1, NULL, 16) : 0;
      for (guint k = 0; rx && k < ports->len; k++)
        if (port == g_array_index (ports, guint16, k))
          total += strtoull (rx + 1, NULL, 16);
    }
    g_strfreev (f);
  }
  g_strfreev (lines);
  g_free (text);
  return total;
}

/* TRUE when nothing waits on the watched sockets */
static gboolean
sockets_empty (GstTestClock * clock)
{
  GArray *ports = g_object_get_data (G_OBJECT (clock), PORTS_KEY);

  return !ports || (queued ("/proc/net/udp", ports) == 0
      && queued ("/proc/net/udp6", ports) == 0);
}

/* The pending ids once at least @waiters are and the watched sockets are
 * empty (NULL if none). */
static GList *
pending (GstTestClock * clock, guint waiters)
{
  gint64 guard = g_get_monotonic_time () + GUARD_MS * G_TIME_SPAN_MILLISECOND;
  GList *ids = NULL;

  for (;;) {
    /* (its result says "exactly @waiters": more may be pending while an
     * element swaps its id) */
    gst_test_clock_timed_wait_for_multiple_pending_ids (clock, waiters,
        waiters ? GUARD_MS : 0, &ids);
    fail_unless (g_list_length (ids) >= waiters, "the elements did not go "
        "idle (%u of %u clock waits)", g_list_length (ids), waiters);
    if (waiters == 0 || sockets_empty (clock))
      return ids;
    /* a datagram is on its way into an element: it is about to wake */
    g_list_free_full (ids, (GDestroyNotify) gst_clock_id_unref);
    ids = NULL;
    fail_unless (g_get_monotonic_time () < guard, "a socket stays full");
    g_thread_yield ();
  }
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
    /* or an id registered since: the element was awake when the snapshot
     * was taken (another element's datagram had just woken it) and has
     * handled this action in the same turn */
    if (!gone) {
      GList *now = clock_snapshot (clock);
      for (GList * l = now; l && !gone; l = l->next)
        gone = g_list_find (before, l->data) == NULL;
      g_list_free_full (now, (GDestroyNotify) gst_clock_id_unref);
    }
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

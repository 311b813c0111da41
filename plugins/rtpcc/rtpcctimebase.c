/* The transport pair's time (see rtpcctimebase.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "rtpcctimebase.h"
#include "rtpccutil.h"
#include "gstrtpccclock.h"

#include <errno.h>
#include <unistd.h>

/* the wait of a task on a clock that is not CLOCK_MONOTONIC, when it has
 * no deadline: it still registers one, so that a test driving the clock
 * sees it idle */
#define IDLE_WAIT RTPCC_SEC (1)

void
rtpcc_timebase_init (RtpccTimebase * tb)
{
  g_mutex_init (&tb->lock);
  tb->clock = NULL;
  tb->offset = 0;
}

void
rtpcc_timebase_clear (RtpccTimebase * tb)
{
  gst_clear_object (&tb->clock);
  g_mutex_clear (&tb->lock);
}

/* with tb->lock */
static RtpccTime
now_locked (RtpccTimebase * tb)
{
  if (!tb->clock)
    return rtpcc_mono_now () + tb->offset;
  return (RtpccTime) gst_clock_get_time (tb->clock) + tb->offset;
}

gboolean
rtpcc_timebase_set_clock (RtpccTimebase * tb, GstClock * clock)
{
  RtpccTime now;
  gboolean changed;

  if (clock && gst_rtpcc_clock_is_monotonic (clock))
    clock = NULL;
  g_mutex_lock (&tb->lock);
  changed = clock != tb->clock;
  if (changed) {
    now = now_locked (tb);
    gst_object_replace ((GstObject **) & tb->clock, (GstObject *) clock);
    tb->offset = now - (clock ? (RtpccTime) gst_clock_get_time (clock) :
        rtpcc_mono_now ());
  }
  g_mutex_unlock (&tb->lock);
  return changed;
}

RtpccTime
rtpcc_timebase_now (RtpccTimebase * tb)
{
  RtpccTime now;

  g_mutex_lock (&tb->lock);
  now = now_locked (tb);
  g_mutex_unlock (&tb->lock);
  return now;
}

typedef struct
{
  GstObject *owner;
  gint fd;
} Wake;

static gboolean
wake_cb (GstClock * clock, GstClockTime time, GstClockID id, gpointer data)
{
  Wake *w = data;

  rtpcc_wakeup_signal (w->fd);
  return TRUE;
}

static void
wake_free (gpointer data)
{
  Wake *w = data;

  gst_object_unref (w->owner);
  g_free (w);
}

gint
rtpcc_timebase_wait (RtpccTimebase * tb, GstObject * owner,
    struct pollfd *fds, guint n_fds, guint wake_index, RtpccTime deadline)
{
  GstClockID id = NULL;
  GstClock *clock;
  RtpccTime offset, now;
  gint r;

  g_mutex_lock (&tb->lock);
  clock = tb->clock ? gst_object_ref (tb->clock) : NULL;
  offset = tb->offset;
  now = now_locked (tb);
  g_mutex_unlock (&tb->lock);

  if (!clock) {
    struct timespec ts, *tsp = NULL;
    if (deadline != RTPCC_TIME_NONE) {
      /* ppoll: nanosecond timeouts, so pacing is not quantised to 1 ms */
      rtpcc_timespec_until (deadline - offset, &ts);
      tsp = &ts;
    }
    return ppoll (fds, n_fds, tsp, NULL);
  }

  /* a clock id only when there is nothing to do: a pending id means the
   * task is idle */
  r = poll (fds, n_fds, 0);
  if (r != 0 || (deadline != RTPCC_TIME_NONE && deadline <= now)) {
    gst_object_unref (clock);
    return r;
  }
  {
    RtpccTime at = deadline != RTPCC_TIME_NONE ? deadline : now + IDLE_WAIT;
    Wake *w = g_new (Wake, 1);
    GstClockReturn res;

    w->owner = gst_object_ref (owner);
    w->fd = fds[wake_index].fd;
    id = gst_clock_new_single_shot_id (clock,
        (GstClockTime) MAX (at - offset, 0));
    res = gst_clock_id_wait_async (id, wake_cb, w, wake_free);
    if (res != GST_CLOCK_OK) {
      struct timespec ts;
      /* a clock without asynchronous waits (it never took w): sleep as
       * if it ran at the rate of CLOCK_MONOTONIC */
      if (res == GST_CLOCK_UNSUPPORTED)
        wake_free (w);
      gst_clock_id_unref (id);
      gst_object_unref (clock);
      rtpcc_timespec_until (rtpcc_mono_now () + (at - now), &ts);
      return ppoll (fds, n_fds, &ts, NULL);
    }
  }
  do {
    r = ppoll (fds, n_fds, NULL, NULL);
  } while (r < 0 && errno == EINTR);
  if (id) {
    gst_clock_id_unschedule (id);
    gst_clock_id_unref (id);
  }
  gst_object_unref (clock);
  return r;
}

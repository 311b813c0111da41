/* Small helpers shared by rtpccsink and rtpccsrc (I/O side only).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_UTIL_H__
#define __RTPCC_UTIL_H__

#include <glib-object.h>
#include <rtpcc/common.h>

#include <errno.h>
#include <time.h>
#include <unistd.h>

G_BEGIN_DECLS

/* The elements' clock for the library: CLOCK_MONOTONIC in ns (the library
 * only needs a monotonic time; the pipeline clock may not run in READY). */
static inline RtpccTime
rtpcc_mono_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (RtpccTime) ts.tv_sec * RTPCC_NSEC_PER_SEC + ts.tv_nsec;
}

/* The ppoll() timeout until @deadline (monotonic ns), never negative. The
 * clock is read once: MAX (0, deadline - rtpcc_mono_now ()) reads it twice
 * and can yield a negative tv_nsec (EINVAL) if time passes in between. */
static inline void
rtpcc_timespec_until (RtpccTime deadline, struct timespec *ts)
{
  RtpccTime d = deadline - rtpcc_mono_now ();
  if (d < 0)
    d = 0;
  ts->tv_sec = d / RTPCC_NSEC_PER_SEC;
  ts->tv_nsec = d % RTPCC_NSEC_PER_SEC;
}

/* A string property that falls back to @def when set to NULL or "". */
static inline void
rtpcc_set_string_prop (gchar ** field, const GValue * value, const gchar * def)
{
  const gchar *v = g_value_get_string (value);
  g_free (*field);
  *field = g_strdup (v && *v ? v : def);
}

/* eventfd wake-ups of a task sleeping in ppoll() */
static inline gboolean
rtpcc_wakeup_signal (int fd)
{
  guint64 one = 1;
  return fd < 0 || write (fd, &one, sizeof (one)) >= 0 || errno == EAGAIN;
}

static inline void
rtpcc_wakeup_drain (int fd)
{
  guint64 v;
  while (fd >= 0 && read (fd, &v, sizeof (v)) > 0);
}

G_END_DECLS

#endif

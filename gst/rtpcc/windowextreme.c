/* RtpccWindowExtreme (windowextreme.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/windowextreme.h>

void
rtpcc_window_extreme_init (RtpccWindowExtreme * w, RtpccTime window)
{
  w->window = window;
  rtpcc_window_extreme_reset (w);
}

void
rtpcc_window_extreme_reset (RtpccWindowExtreme * w)
{
  w->start = w->prev_start = RTPCC_TIME_NONE;
}

static gboolean
fresh (const RtpccWindowExtreme * w, RtpccTime start, RtpccTime now)
{
  return start != RTPCC_TIME_NONE && now - start < 2 * w->window;
}

static gint64
pick (gint64 a, gint64 b, gboolean max)
{
  return max ? MAX (a, b) : MIN (a, b);
}

void
rtpcc_window_extreme_add (RtpccWindowExtreme * w, RtpccTime now, gint64 v,
    gboolean max)
{
  if (!fresh (w, w->start, now)) {
    rtpcc_window_extreme_reset (w);
    w->start = now;
    w->cur = v;
  } else if (now - w->start >= w->window) {
    w->prev = w->cur;
    w->prev_start = w->start;
    w->start = now;
    w->cur = v;
  } else {
    w->cur = pick (w->cur, v, max);
  }
}

gboolean
rtpcc_window_extreme_get (const RtpccWindowExtreme * w, RtpccTime now,
    gboolean max, gint64 * v)
{
  gboolean cur = fresh (w, w->start, now);
  gboolean prev = fresh (w, w->prev_start, now);

  if (cur && prev)
    *v = pick (w->cur, w->prev, max);
  else if (cur || prev)
    *v = cur ? w->cur : w->prev;
  return cur || prev;
}

/* RtpccRateWindow: see ratewindow.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/ratewindow.h>

#include <string.h>

void
rtpcc_rate_window_init (RtpccRateWindow * w, RtpccTime window)
{
  w->samples = NULL;
  w->len = w->cap = 0;
  w->window = window;
  rtpcc_rate_window_reset (w);
}

void
rtpcc_rate_window_clear (RtpccRateWindow * w)
{
  g_clear_pointer (&w->samples, g_free);
  w->len = w->cap = 0;
}

void
rtpcc_rate_window_reset (RtpccRateWindow * w)
{
  w->len = 0;
  w->head = 0;
  w->bytes = 0;
  w->first_ever = w->newest = RTPCC_TIME_NONE;
}

static void
prune (RtpccRateWindow * w, RtpccTime now)
{
  while (w->head < w->len) {
    const RtpccRateSample *s = &w->samples[w->head];

    if (s->t > now - w->window)
      break;
    w->bytes -= s->bytes;
    w->head++;
  }
  /* compact once the expired prefix is the larger part */
  if (w->head > 256 && w->head * 2 > w->len) {
    memmove (w->samples, w->samples + w->head,
        (w->len - w->head) * sizeof (RtpccRateSample));
    w->len -= w->head;
    w->head = 0;
  }
}

void
rtpcc_rate_window_push (RtpccRateWindow * w, RtpccTime t, guint bytes)
{
  if (w->len == w->cap) {
    w->cap = MAX (64, w->cap * 2);
    w->samples = g_renew (RtpccRateSample, w->samples, w->cap);
  }
  w->samples[w->len].t = t;
  w->samples[w->len].bytes = bytes;
  w->len++;
  w->bytes += bytes;
  if (w->first_ever == RTPCC_TIME_NONE)
    w->first_ever = t;
  if (w->newest == RTPCC_TIME_NONE || t > w->newest)
    w->newest = t;
  prune (w, w->newest);
}

guint64
rtpcc_rate_window_bytes (RtpccRateWindow * w, RtpccTime now)
{
  prune (w, now);
  return w->bytes;
}

gdouble
rtpcc_rate_window_rate (RtpccRateWindow * w, RtpccTime end,
    RtpccTime min_span)
{
  RtpccTime span;

  if (w->newest == RTPCC_TIME_NONE)
    return -1;
  if (end == RTPCC_TIME_NONE)
    end = w->newest;
  prune (w, end);
  span = end - w->first_ever;
  if (span >= w->window)
    return w->bytes * 8.0 / RTPCC_TIME_AS_SEC (w->window);
  if (span < min_span || w->head >= w->len)
    return -1;
  return (w->bytes - w->samples[w->head].bytes) *
      8.0 / RTPCC_TIME_AS_SEC (span);
}

/* Competitor detector: a loss-based flow holding the queue (competitor.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/competitor.h>
#include <rtpcc/tcpeq.h>

#include <string.h>

void
rtpcc_competitor_init (RtpccCompetitor * c)
{
  memset (c, 0, sizeof (*c));
  c->enabled = TRUE;
  c->base = c->high_since = c->active_since = RTPCC_TIME_NONE;
  c->drain_until = RTPCC_TIME_NONE;
  rtpcc_loss_events_init (&c->events);
}

void
rtpcc_competitor_add (RtpccCompetitor * c, RtpccTime now,
    const RtpccPacketReport * r, RtpccTime rtt)
{
  c->seq++;
  c->mean_size = c->mean_size == 0 ? r->size :
      c->mean_size + (r->size - c->mean_size) / 16.0;
  if (!r->received) {
    if (rtpcc_loss_events_on_loss (&c->events, c->seq, r->send_time, rtt,
            NULL)) {
      memmove (c->intervals + 1, c->intervals,
          sizeof (c->intervals[0]) * (RTPCC_COMPETITOR_INTERVALS - 1));
      c->intervals[0] = c->since_event;
      c->n_intervals = MIN (c->n_intervals + 1,
          RTPCC_COMPETITOR_INTERVALS);
      c->since_event = 0;
    }
    return;
  }
  c->since_event++;
  if (r->arrival == RTPCC_TIME_NONE)
    return;
  {
    RtpccTime owd = r->arrival - r->send_time;

    if (c->base == RTPCC_TIME_NONE || owd < c->base)
      c->base = owd;
    rtpcc_competitor_add_queue (c, now, owd - c->base);
  }
}

void
rtpcc_competitor_add_queue (RtpccCompetitor * c, RtpccTime now, RtpccTime q)
{
  if (q < RTPCC_COMPETITOR_ON_DELAY)
    c->high_since = RTPCC_TIME_NONE;
  else if (c->high_since == RTPCC_TIME_NONE)
    c->high_since = now;
  if (c->drain_until != RTPCC_TIME_NONE && q < RTPCC_COMPETITOR_OFF_DELAY)
    c->drained = TRUE;
}

gboolean
rtpcc_competitor_update (RtpccCompetitor * c, RtpccTime now)
{
  if (!c->enabled)
    return FALSE;
  if (!c->active) {
    if (c->high_since != RTPCC_TIME_NONE
        && now - c->high_since >= RTPCC_COMPETITOR_WINDOW) {
      c->active = TRUE;
      c->active_since = now;
      c->n_entries++;
    }
    return c->active;
  }
  if (c->drain_until != RTPCC_TIME_NONE) {
    if (c->drained) {
      /* the queue emptied: nobody else holds it */
      c->active = FALSE;
      c->high_since = RTPCC_TIME_NONE;
      c->drain_until = RTPCC_TIME_NONE;
      return FALSE;
    }
    if (now < c->drain_until)
      return FALSE;
    c->drain_until = RTPCC_TIME_NONE;
    c->active_since = now;
    return TRUE;
  }
  if (now - c->active_since >= RTPCC_COMPETITOR_DRAIN_EVERY) {
    c->drain_until = now + RTPCC_COMPETITOR_DRAIN_TIME;
    c->drained = FALSE;
    return FALSE;
  }
  return TRUE;
}

gdouble
rtpcc_competitor_rate (const RtpccCompetitor * c, RtpccTime rtt)
{
  gdouble sum = 0, mean, p;

  /* no loss-event rate yet: no limit of its own (the loss-based As
   * bounds the rate, draft §6) */
  if (c->n_intervals < 2 || rtt <= 0)
    return G_MAXDOUBLE;
  for (guint i = 0; i < c->n_intervals; i++)
    sum += c->intervals[i];
  mean = MAX (sum / c->n_intervals, (gdouble) c->since_event);
  p = 1.0 / MAX (mean, 1.0);
  return 8.0 * rtpcc_tcpeq_throughput (c->mean_size,
      RTPCC_TIME_AS_SEC (rtt), p);
}

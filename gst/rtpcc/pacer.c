/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/pacer.h>

typedef struct
{
  gpointer handle;
  guint size;
  RtpccTime enqueued;
  gboolean urgent;
} PacerItem;

struct _RtpccPacer
{
  RtpccPacerConfig config;
  GDestroyNotify free_func;
  GQueue queue;                 /* of PacerItem*, the urgent ones first */
  guint n_urgent;
  guint64 bytes;
  /* earliest time the next packet may go: advanced by each packet's
   * transmission time at the rate in force */
  RtpccTime next_allowed;
};

void
rtpcc_pacer_config_init (RtpccPacerConfig * config)
{
  config->rate = 0;
  config->max_delay = RTPCC_MSEC (100);
  config->burst = RTPCC_MSEC (5);
  config->max_bytes = 2 * 1000 * 1000;
}

RtpccPacer *
rtpcc_pacer_new (const RtpccPacerConfig * config)
{
  RtpccPacer *p = g_new0 (RtpccPacer, 1);
  p->config = *config;
  g_queue_init (&p->queue);
  p->next_allowed = RTPCC_TIME_NONE;
  return p;
}

void
rtpcc_pacer_set_free_func (RtpccPacer * pacer, GDestroyNotify free_func)
{
  pacer->free_func = free_func;
}

static void
item_free (RtpccPacer * p, PacerItem * it)
{
  if (p->free_func && it->handle)
    p->free_func (it->handle);
  g_free (it);
}

void
rtpcc_pacer_free (RtpccPacer * pacer)
{
  PacerItem *it;

  if (!pacer)
    return;
  while ((it = g_queue_pop_head (&pacer->queue)))
    item_free (pacer, it);
  g_free (pacer);
}

void
rtpcc_pacer_set_rate (RtpccPacer * pacer, guint64 bps)
{
  pacer->config.rate = bps;
}

guint64
rtpcc_pacer_get_rate (const RtpccPacer * pacer)
{
  return pacer->config.rate;
}

void
rtpcc_pacer_set_max_delay (RtpccPacer * pacer, RtpccTime max_delay)
{
  pacer->config.max_delay = MAX (max_delay, 0);
}

/* Over the byte limit the oldest non-urgent packets go first (they are
 * the most likely to be useless by the time they arrive), but never the
 * last @keep of them (the packet just pushed). */
static guint
drop_over_limit (RtpccPacer * pacer, guint keep)
{
  guint dropped = 0;

  while (pacer->config.max_bytes && pacer->bytes > pacer->config.max_bytes
      && pacer->queue.length > pacer->n_urgent + keep) {
    PacerItem *old = g_queue_pop_nth (&pacer->queue, pacer->n_urgent);
    pacer->bytes -= old->size;
    item_free (pacer, old);
    dropped++;
  }
  return dropped;
}

guint
rtpcc_pacer_push (RtpccPacer * pacer, RtpccTime now, gpointer handle,
    guint size)
{
  PacerItem *it = g_new (PacerItem, 1);

  it->handle = handle;
  it->size = size;
  it->enqueued = now;
  it->urgent = FALSE;
  g_queue_push_tail (&pacer->queue, it);
  pacer->bytes += size;
  return drop_over_limit (pacer, 1);
}

guint
rtpcc_pacer_push_urgent (RtpccPacer * pacer, RtpccTime now, gpointer handle,
    guint size)
{
  PacerItem *it = g_new (PacerItem, 1);
  PacerItem *head = g_queue_peek_head (&pacer->queue);

  it->handle = handle;
  it->size = size;
  it->enqueued = head ? MIN (now, head->enqueued) : now;
  it->urgent = TRUE;
  g_queue_push_nth (&pacer->queue, it, (gint) pacer->n_urgent);
  pacer->n_urgent++;
  pacer->bytes += size;

  return drop_over_limit (pacer, 0);
}

/* the head, with the urgent count kept */
static PacerItem *
pop_head (RtpccPacer * pacer)
{
  PacerItem *it = g_queue_pop_head (&pacer->queue);

  if (it && it->urgent)
    pacer->n_urgent--;
  return it;
}

/* @it (taken off the queue, may be NULL): its handle, size and bytes */
static gpointer
take (RtpccPacer * pacer, PacerItem * it, guint * size)
{
  gpointer handle;

  if (!it)
    return NULL;
  pacer->bytes -= it->size;
  if (size)
    *size = it->size;
  handle = it->handle;
  g_free (it);
  return handle;
}

gpointer
rtpcc_pacer_pop_oldest (RtpccPacer * pacer, guint * size)
{
  return take (pacer, pacer->queue.length > pacer->n_urgent ?
      g_queue_pop_nth (&pacer->queue, pacer->n_urgent) : pop_head (pacer),
      size);
}

/* The rate the queue drains at: the pacing rate, raised when needed so that
 * everything queued now is sent before its oldest packet exceeds max_delay. */
static guint64
effective_rate (RtpccPacer * p, RtpccTime now)
{
  guint64 rate = p->config.rate;
  PacerItem *head = g_queue_peek_head (&p->queue);

  if (rate == 0 || !head)
    return rate;
  if (p->config.max_delay > 0) {
    RtpccTime left = p->config.max_delay - (now - head->enqueued);
    gdouble need;
    if (left < RTPCC_MSEC (1))
      left = RTPCC_MSEC (1);
    need = (gdouble) p->bytes * 8.0 / RTPCC_TIME_AS_SEC (left);
    if (need > rate)
      rate = (guint64) need;
  }
  return rate;
}

RtpccTime
rtpcc_pacer_next_send_time (RtpccPacer * pacer, RtpccTime now)
{
  if (g_queue_is_empty (&pacer->queue))
    return RTPCC_TIME_NONE;
  if (pacer->config.rate == 0 || pacer->next_allowed == RTPCC_TIME_NONE)
    return now;
  return MAX (now, pacer->next_allowed);
}

gpointer
rtpcc_pacer_pop (RtpccPacer * pacer, RtpccTime now, guint * size,
    RtpccTime * enqueued)
{
  PacerItem *it;
  gpointer handle;
  guint64 rate;

  if (g_queue_is_empty (&pacer->queue))
    return NULL;
  if (pacer->config.rate > 0 && pacer->next_allowed != RTPCC_TIME_NONE
      && now < pacer->next_allowed)
    return NULL;

  rate = effective_rate (pacer, now);
  it = pop_head (pacer);
  pacer->bytes -= it->size;

  if (rate > 0) {
    /* Credit from a late wake-up carries over, but at most burst worth of
     * it: an idle pacer does not save up a burst. */
    RtpccTime base = pacer->next_allowed;
    if (base == RTPCC_TIME_NONE || base < now - pacer->config.burst)
      base = now - pacer->config.burst;
    if (base > now)
      base = now;
    pacer->next_allowed = base +
        (RtpccTime) ((gdouble) it->size * 8.0 * RTPCC_NSEC_PER_SEC / rate);
  }

  if (size)
    *size = it->size;
  if (enqueued)
    *enqueued = it->enqueued;
  handle = it->handle;
  g_free (it);
  return handle;
}

gpointer
rtpcc_pacer_pop_any (RtpccPacer * pacer, guint * size)
{
  return take (pacer, pop_head (pacer), size);
}

guint
rtpcc_pacer_get_packets (const RtpccPacer * pacer)
{
  return pacer->queue.length;
}

guint64
rtpcc_pacer_get_bytes (const RtpccPacer * pacer)
{
  return pacer->bytes;
}

RtpccTime
rtpcc_pacer_get_head_age (const RtpccPacer * pacer, RtpccTime now)
{
  PacerItem *head = g_queue_peek_head ((GQueue *) & pacer->queue);
  return head ? MAX (0, now - head->enqueued) : 0;
}

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
  /* the queue, the urgent ones first: a ring of items by value (a packet
   * in and out per send costs no allocation), a power of two in size,
   * grown as needed */
  PacerItem *ring;
  guint cap, first, length;
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
  p->next_allowed = RTPCC_TIME_NONE;
  return p;
}

/* ---- the ring ---- */

static PacerItem *
item_at (const RtpccPacer * p, guint i)
{
  return &p->ring[(p->first + i) & (p->cap - 1)];
}

static PacerItem *
peek_head (const RtpccPacer * p)
{
  return p->length ? item_at (p, 0) : NULL;
}

/* Inserts @it before position @pos (0 = the head, length = the tail). */
static void
insert_at (RtpccPacer * p, guint pos, const PacerItem * it)
{
  if (p->length == p->cap) {
    guint cap = MAX (16, p->cap * 2);
    PacerItem *ring = g_new (PacerItem, cap);

    for (guint i = 0; i < p->length; i++)
      ring[i] = *item_at (p, i);
    g_free (p->ring);
    p->ring = ring;
    p->cap = cap;
    p->first = 0;
  }
  if (pos == 0) {
    p->first = (p->first - 1) & (p->cap - 1);
  } else {
    for (guint i = p->length; i > pos; i--)
      *item_at (p, i) = *item_at (p, i - 1);
  }
  *item_at (p, pos) = *it;
  p->length++;
}

/* Takes the item at @pos off the queue into *@out. */
static void
remove_at (RtpccPacer * p, guint pos, PacerItem * out)
{
  *out = *item_at (p, pos);
  if (pos == 0) {
    p->first = (p->first + 1) & (p->cap - 1);
  } else {
    for (guint i = pos; i + 1 < p->length; i++)
      *item_at (p, i) = *item_at (p, i + 1);
  }
  p->length--;
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
}

void
rtpcc_pacer_free (RtpccPacer * pacer)
{
  PacerItem it;

  if (!pacer)
    return;
  while (pacer->length) {
    remove_at (pacer, 0, &it);
    item_free (pacer, &it);
  }
  g_free (pacer->ring);
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
      && pacer->length > pacer->n_urgent + keep) {
    PacerItem old;

    remove_at (pacer, pacer->n_urgent, &old);
    pacer->bytes -= old.size;
    item_free (pacer, &old);
    dropped++;
  }
  return dropped;
}

guint
rtpcc_pacer_push (RtpccPacer * pacer, RtpccTime now, gpointer handle,
    guint size)
{
  PacerItem it = { handle, size, now, FALSE };

  insert_at (pacer, pacer->length, &it);
  pacer->bytes += size;
  return drop_over_limit (pacer, 1);
}

guint
rtpcc_pacer_push_urgent (RtpccPacer * pacer, RtpccTime now, gpointer handle,
    guint size)
{
  PacerItem *head = peek_head (pacer);
  PacerItem it = { handle, size, head ? MIN (now, head->enqueued) : now,
    TRUE
  };

  insert_at (pacer, pacer->n_urgent, &it);
  pacer->n_urgent++;
  pacer->bytes += size;

  return drop_over_limit (pacer, 0);
}

/* the head (the queue is not empty) into *@it, with the urgent count kept */
static void
pop_head (RtpccPacer * pacer, PacerItem * it)
{
  remove_at (pacer, 0, it);
  if (it->urgent)
    pacer->n_urgent--;
}

/* The item at @pos (head: 0) off the queue: its handle, size and bytes;
 * NULL if the queue is empty. */
static gpointer
take (RtpccPacer * pacer, guint pos, guint * size)
{
  PacerItem it;

  if (!pacer->length)
    return NULL;
  if (pos == 0)
    pop_head (pacer, &it);
  else
    remove_at (pacer, pos, &it);
  pacer->bytes -= it.size;
  if (size)
    *size = it.size;
  return it.handle;
}

gpointer
rtpcc_pacer_pop_oldest (RtpccPacer * pacer, guint * size)
{
  return take (pacer, pacer->length > pacer->n_urgent ? pacer->n_urgent : 0,
      size);
}

/* The rate the queue drains at: the pacing rate, raised when needed so that
 * everything queued now is sent before its oldest packet exceeds max_delay. */
static guint64
effective_rate (RtpccPacer * p, RtpccTime now)
{
  guint64 rate = p->config.rate;
  PacerItem *head = peek_head (p);

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
  if (!pacer->length)
    return RTPCC_TIME_NONE;
  if (pacer->config.rate == 0 || pacer->next_allowed == RTPCC_TIME_NONE)
    return now;
  return MAX (now, pacer->next_allowed);
}

gpointer
rtpcc_pacer_pop (RtpccPacer * pacer, RtpccTime now, guint * size,
    RtpccTime * enqueued)
{
  PacerItem it;
  guint64 rate;

  if (!pacer->length)
    return NULL;
  if (pacer->config.rate > 0 && pacer->next_allowed != RTPCC_TIME_NONE
      && now < pacer->next_allowed)
    return NULL;

  rate = effective_rate (pacer, now);
  pop_head (pacer, &it);
  pacer->bytes -= it.size;

  if (rate > 0) {
    /* Credit from a late wake-up carries over, but at most burst worth of
     * it: an idle pacer does not save up a burst. */
    RtpccTime base = pacer->next_allowed;
    if (base == RTPCC_TIME_NONE || base < now - pacer->config.burst)
      base = now - pacer->config.burst;
    if (base > now)
      base = now;
    pacer->next_allowed = base +
        (RtpccTime) ((gdouble) it.size * 8.0 * RTPCC_NSEC_PER_SEC / rate);
  }

  if (size)
    *size = it.size;
  if (enqueued)
    *enqueued = it.enqueued;
  return it.handle;
}

gpointer
rtpcc_pacer_pop_any (RtpccPacer * pacer, guint * size)
{
  return take (pacer, 0, size);
}

guint
rtpcc_pacer_get_packets (const RtpccPacer * pacer)
{
  return pacer->length;
}

guint64
rtpcc_pacer_get_bytes (const RtpccPacer * pacer)
{
  return pacer->bytes;
}

RtpccTime
rtpcc_pacer_get_head_age (const RtpccPacer * pacer, RtpccTime now)
{
  PacerItem *head = peek_head (pacer);
  return head ? MAX (0, now - head->enqueued) : 0;
}

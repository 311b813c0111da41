/* RtpccPlayout's reorder and release queue (queue.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "queue.h"

#include <string.h>

void
rtpcc_playout_queue_init (RtpccPlayoutQueue * q)
{
  g_queue_init (&q->items);
  g_queue_init (&q->ended);
  rtpcc_playout_queue_forget (q);
}

static void
drop_items (GQueue * items, GDestroyNotify destroy)
{
  RtpccPlayoutItem *it;

  while ((it = g_queue_pop_head (items)) != NULL) {
    if (destroy && it->data)
      destroy (it->data);
    g_free (it);
  }
}

void
rtpcc_playout_queue_drop (RtpccPlayoutQueue * q, GDestroyNotify destroy)
{
  drop_items (&q->ended, destroy);
  drop_items (&q->items, destroy);
}

void
rtpcc_playout_queue_end_stream (RtpccPlayoutQueue * q)
{
  RtpccPlayoutItem *it;

  while ((it = g_queue_pop_head (&q->items)) != NULL)
    g_queue_push_tail (&q->ended, it);
  rtpcc_playout_queue_forget (q);
}

gpointer
rtpcc_playout_queue_release_ended (RtpccPlayoutQueue * q, guint16 * seq)
{
  RtpccPlayoutItem *it = g_queue_pop_head (&q->ended);
  gpointer data = it->data;

  if (seq)
    *seq = (guint16) it->ext_seq;
  g_free (it);
  return data;
}

void
rtpcc_playout_queue_forget (RtpccPlayoutQueue * q)
{
  q->released_any = FALSE;
  q->last_released = 0;
  memset (q->released, 0, sizeof (q->released));
}

static gboolean
released_get (const RtpccPlayoutQueue * q, gint64 ext_seq)
{
  guint bit = (guint) (ext_seq & (RTPCC_PLAYOUT_RELEASED_BITS - 1));

  return (q->released[bit / 8] >> (bit % 8)) & 1;
}

static void
released_set (RtpccPlayoutQueue * q, gint64 ext_seq, gboolean v)
{
  guint bit = (guint) (ext_seq & (RTPCC_PLAYOUT_RELEASED_BITS - 1));

  if (v)
    q->released[bit / 8] |= (guint8) (1u << (bit % 8));
  else
    q->released[bit / 8] &= (guint8) ~(1u << (bit % 8));
}

gboolean
rtpcc_playout_queue_was_released (const RtpccPlayoutQueue * q,
    gint64 ext_seq)
{
  return rtpcc_playout_queue_passed (q, ext_seq) &&
      q->last_released - ext_seq < RTPCC_PLAYOUT_RELEASED_BITS &&
      released_get (q, ext_seq);
}

gboolean
rtpcc_playout_queue_holds (const RtpccPlayoutQueue * q, gint64 ext_seq)
{
  for (GList * l = q->items.head; l; l = l->next) {
    const RtpccPlayoutItem *it = l->data;

    if (it->ext_seq == ext_seq)
      return TRUE;
    if (it->ext_seq > ext_seq)
      break;
  }
  return FALSE;
}

RtpccPlayoutVerdict
rtpcc_playout_queue_insert (RtpccPlayoutQueue * q, gint64 ext_seq,
    RtpccTime media, gpointer data, guint max_items)
{
  RtpccPlayoutItem *it;
  GList *l;

  /* Duplicate of a held packet? Scan from the tail: reordering is shallow. */
  for (l = q->items.tail; l != NULL; l = l->prev) {
    RtpccPlayoutItem *o = l->data;

    if (o->ext_seq == ext_seq)
      return RTPCC_PLAYOUT_DUPLICATE;
    if (o->ext_seq < ext_seq)
      break;
  }
  if (q->items.length >= max_items)
    return RTPCC_PLAYOUT_OVERFLOW;

  it = g_new (RtpccPlayoutItem, 1);
  it->ext_seq = ext_seq;
  it->media = media;
  it->data = data;
  if (l != NULL)
    g_queue_insert_after (&q->items, l, it);
  else
    g_queue_push_head (&q->items, it);
  return RTPCC_PLAYOUT_QUEUED;
}

gpointer
rtpcc_playout_queue_release (RtpccPlayoutQueue * q, guint16 * seq,
    guint64 * skipped)
{
  RtpccPlayoutItem *it = g_queue_pop_head (&q->items);
  gpointer data;
  gint64 k;

  *skipped = 0;
  if (q->released_any && it->ext_seq > q->last_released + 1) {
    *skipped = (guint64) (it->ext_seq - q->last_released - 1);
    for (k = MAX (q->last_released + 1,
            it->ext_seq - RTPCC_PLAYOUT_RELEASED_BITS); k < it->ext_seq; k++)
      released_set (q, k, FALSE);
  }
  released_set (q, it->ext_seq, TRUE);
  q->last_released = it->ext_seq;
  q->released_any = TRUE;
  if (seq)
    *seq = (guint16) it->ext_seq;
  data = it->data;
  g_free (it);
  return data;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "heap.h"

#define POS(h, item) (*(gint *) ((guint8 *) (item) + (h)->pos_offset))

void
rtpcc_heap_init (RtpccHeap * h, RtpccHeapCompare compare, gpointer data,
    gsize pos_offset)
{
  h->items = NULL;
  h->len = h->alloc = 0;
  h->compare = compare;
  h->data = data;
  h->pos_offset = pos_offset;
}

void
rtpcc_heap_clear (RtpccHeap * h)
{
  for (guint i = 0; i < h->len; i++)
    POS (h, h->items[i]) = -1;
  g_free (h->items);
  h->items = NULL;
  h->len = h->alloc = 0;
}

gpointer
rtpcc_heap_peek (const RtpccHeap * h)
{
  return h->len > 0 ? h->items[0] : NULL;
}

gboolean
rtpcc_heap_contains (const RtpccHeap * h, gconstpointer item)
{
  return POS (h, item) >= 0;
}

static void
place (RtpccHeap * h, guint i, gpointer item)
{
  h->items[i] = item;
  POS (h, item) = (gint) i;
}

static gboolean
before (const RtpccHeap * h, guint i, guint j)
{
  return h->compare (h->items[i], h->items[j], h->data) < 0;
}

static guint
sift_up (RtpccHeap * h, guint i)
{
  while (i > 0) {
    guint parent = (i - 1) / 2;
    gpointer tmp;

    if (!before (h, i, parent))
      break;
    tmp = h->items[parent];
    place (h, parent, h->items[i]);
    place (h, i, tmp);
    i = parent;
  }
  return i;
}

static void
sift_down (RtpccHeap * h, guint i)
{
  for (;;) {
    guint l = 2 * i + 1, r = l + 1, least = i;
    gpointer tmp;

    if (l < h->len && before (h, l, least))
      least = l;
    if (r < h->len && before (h, r, least))
      least = r;
    if (least == i)
      break;
    tmp = h->items[least];
    place (h, least, h->items[i]);
    place (h, i, tmp);
    i = least;
  }
}

void
rtpcc_heap_update (RtpccHeap * h, gpointer item)
{
  gint pos = POS (h, item);

  if (pos < 0) {
    if (h->len == h->alloc) {
      h->alloc = MAX (16, h->alloc * 2);
      h->items = g_renew (gpointer, h->items, h->alloc);
    }
    pos = (gint) h->len++;
    place (h, (guint) pos, item);
  }
  /* the key may have moved either way */
  if (sift_up (h, (guint) pos) == (guint) pos)
    sift_down (h, (guint) pos);
}

void
rtpcc_heap_remove (RtpccHeap * h, gpointer item)
{
  gint pos = POS (h, item);
  gpointer last;

  if (pos < 0)
    return;
  POS (h, item) = -1;
  last = h->items[--h->len];
  if ((guint) pos == h->len)
    return;
  place (h, (guint) pos, last);
  if (sift_up (h, (guint) pos) == (guint) pos)
    sift_down (h, (guint) pos);
}

void
rtpcc_heap_rebuild (RtpccHeap * h)
{
  for (guint i = h->len / 2; i-- > 0;)
    sift_down (h, i);
}

/* RtpccHeap: an indexed binary min-heap of pointers (library-private).
 *
 * Each item keeps its own position in the heap (a gint at a fixed offset
 * in the item, -1 while outside), so an item can be removed or re-placed
 * after its key changed in O(log n) without a search. The order is the
 * comparison function's: the least item is at the top.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_HEAP_H__
#define __RTPCC_HEAP_H__

#include <glib.h>

G_BEGIN_DECLS

/* < 0 if @a goes before @b */
typedef gint (*RtpccHeapCompare) (gconstpointer a, gconstpointer b,
    gpointer data);

typedef struct
{
  gpointer *items;
  guint len, alloc;
  RtpccHeapCompare compare;
  gpointer data;
  gsize pos_offset;             /* offset of the item's gint position */
} RtpccHeap;

void rtpcc_heap_init (RtpccHeap * h, RtpccHeapCompare compare, gpointer data,
    gsize pos_offset);
void rtpcc_heap_clear (RtpccHeap * h);
/* The least item, or NULL. */
gpointer rtpcc_heap_peek (const RtpccHeap * h);
gboolean rtpcc_heap_contains (const RtpccHeap * h, gconstpointer item);
/* Adds @item if it is not in, else re-places it (its key changed). */
void rtpcc_heap_update (RtpccHeap * h, gpointer item);
/* Takes @item out if it is in. */
void rtpcc_heap_remove (RtpccHeap * h, gpointer item);
/* Re-orders everything (the comparison itself changed). */
void rtpcc_heap_rebuild (RtpccHeap * h);

G_END_DECLS

#endif /* __RTPCC_HEAP_H__ */

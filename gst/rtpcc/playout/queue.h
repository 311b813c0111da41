/* RtpccPlayout's reorder and release queue: the packets held, in sequence
 * order (whichever subflow they came on), and a memory of which sequence
 * numbers were released, so that a copy of one is a duplicate and a
 * packet behind the release point is late.
 *
 * Library-internal (not installed); see playout.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PLAYOUT_QUEUE_H__
#define __RTPCC_PLAYOUT_QUEUE_H__

#include <rtpcc/playout.h>

G_BEGIN_DECLS

/* how far back released sequence numbers are remembered */
#define RTPCC_PLAYOUT_RELEASED_BITS 1024

typedef struct
{
  gint64 ext_seq;
  RtpccTime media;
  gpointer data;
} RtpccPlayoutItem;

typedef struct
{
  GQueue items;                 /* RtpccPlayoutItem, ascending ext_seq */
  GQueue ended;                 /* RtpccPlayoutItem of a stream that ended
                                 * (a restart): due at once, first */
  gboolean released_any;
  gint64 last_released;
  guint8 released[RTPCC_PLAYOUT_RELEASED_BITS / 8];
} RtpccPlayoutQueue;

void rtpcc_playout_queue_init (RtpccPlayoutQueue * q);
/* Drops what is held, ended streams' packets too (@destroy, may be NULL,
 * frees the data). */
void rtpcc_playout_queue_drop (RtpccPlayoutQueue * q, GDestroyNotify destroy);
/* Forgets what was released. */
void rtpcc_playout_queue_forget (RtpccPlayoutQueue * q);

/* The slot of @ext_seq has passed: it or a later one was released. */
static inline gboolean
rtpcc_playout_queue_passed (const RtpccPlayoutQueue * q, gint64 ext_seq)
{
  return q->released_any && ext_seq <= q->last_released;
}

/* @ext_seq itself was released (as far back as remembered). */
gboolean rtpcc_playout_queue_was_released (const RtpccPlayoutQueue * q,
    gint64 ext_seq);

/* @ext_seq is held now (not yet released). */
gboolean rtpcc_playout_queue_holds (const RtpccPlayoutQueue * q,
    gint64 ext_seq);

/* Holds @data in sequence order: QUEUED, DUPLICATE (already held) or
 * OVERFLOW (@max_items held). */
RtpccPlayoutVerdict rtpcc_playout_queue_insert (RtpccPlayoutQueue * q,
    gint64 ext_seq, RtpccTime media, gpointer data, guint max_items);

static inline const RtpccPlayoutItem *
rtpcc_playout_queue_head (const RtpccPlayoutQueue * q)
{
  return g_queue_peek_head ((GQueue *) & q->items);
}

static inline guint
rtpcc_playout_queue_length (const RtpccPlayoutQueue * q)
{
  return q->items.length + q->ended.length;
}

/* The stream ended (its sender restarted): what is held becomes due at
 * once, ahead of the next stream's packets, and what was released is
 * forgotten. */
void rtpcc_playout_queue_end_stream (RtpccPlayoutQueue * q);

static inline gboolean
rtpcc_playout_queue_has_ended (const RtpccPlayoutQueue * q)
{
  return q->ended.length > 0;
}

/* The next packet of an ended stream (there must be one). */
gpointer rtpcc_playout_queue_release_ended (RtpccPlayoutQueue * q,
    guint16 * seq);

/* Releases the head (the queue must not be empty): its data, its
 * sequence number in @seq (may be NULL); *@skipped gets the sequence
 * numbers played over before it. */
gpointer rtpcc_playout_queue_release (RtpccPlayoutQueue * q, guint16 * seq,
    guint64 * skipped);

G_END_DECLS

#endif /* __RTPCC_PLAYOUT_QUEUE_H__ */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/sendbuf.h>

#include "heap.h"

#include <string.h>

typedef struct _Stream Stream;

/* The queues link their elements through a GList in the element itself:
 * no list-node allocation per packet or frame. */
typedef struct
{
  RtpccSendbufPacket info;
  gpointer handle;
  GList link;                   /* in Frame.items */
} Item;

/* A frame with packets queued. */
typedef struct
{
  Stream *stream;
  guint priority;
  RtpccTime created;
  guint64 id;                   /* arrival order */
  gboolean keyframe, droppable;
  gboolean type_known;          /* a packet told keyframe/droppable */
  gboolean pending;             /* its stream lost a reference frame: held
                                 * until it shows it is a keyframe */
  gboolean complete;            /* marker seen or the next frame began */
  gboolean started;             /* a packet has been sent: never dropped */
  GQueue items;                 /* Item* */
  guint64 bytes;                /* queued */
  GList link;                   /* in RtpccSendbuf.frames */
  GList slink;                  /* in Stream.frames */
  gint vpos;                    /* in RtpccSendbuf.victims[priority] */
} Frame;

struct _Stream
{
  guint32 ssrc;
  gboolean have_last;
  guint32 last_ts;
  gboolean last_marker;
  gboolean last_dropped;        /* the frame in progress was dropped */
  Frame *open;                  /* the frame in progress, if queued */
  GQueue frames;                /* its Frame*, arrival order */
  gint spos;                    /* in RtpccSendbuf.send */
  guint n_frames;               /* Frame objects pointing here */
  guint16 next_seq;             /* output numbering */
  gboolean broken;              /* a reference frame was dropped */
};

struct _RtpccSendbuf
{
  RtpccSendbufConfig config;
  GDestroyNotify free_func;
  GQueue frames;                /* Frame*, arrival order */
  GHashTable *streams;          /* ssrc → Stream* */
  guint64 next_id;
  RtpccTime rtt;
  guint64 rate;
  RtpccTime next_allowed;       /* drain: earliest time of the next send */
  RtpccTime last_sent;          /* the caller's time at the last dequeue */
  guint pending_frames;
  /* Dequeue and overflow in O(log n) however many frames stand: the
   * streams whose oldest frame may go now, best first by the transmission
   * order (best_frame); per priority the frames an overflow may evict,
   * first victim first (ring_victim); per priority the frames with
   * packets queued. */
  RtpccHeap send;
  RtpccHeap victims[RTPCC_SENDBUF_N_PRIORITIES];
  guint nonempty[RTPCC_SENDBUF_N_PRIORITIES];
  Frame *watch;                 /* enqueue's frame while it is alive */
  /* frames and items done with, linked through their own links, for the
   * next ones: no malloc and free per packet (at most SPARE_MAX each) */
  GQueue spare_frames, spare_items;
  RtpccTime room_told;          /* frame room last taken, NONE = none */
  RtpccSendbufStats stats;
};

#define SPARE_MAX 64

static const gchar *const policy_names[RTPCC_SENDBUF_N_POLICIES] = {
  "fifo", "deadline", "sfdps1", "sfdps2", "ring", "ring-sfdps2",
};

static const gchar *const reason_names[RTPCC_SENDBUF_N_DROP_REASONS] = {
  "expired", "late", "overflow", "frame", "dependent", "flush",
};

const gchar *
rtpcc_sendbuf_policy_name (RtpccSendbufPolicy policy)
{
  if ((guint) policy >= RTPCC_SENDBUF_N_POLICIES)
    return "unknown";
  return policy_names[policy];
}

gboolean
rtpcc_sendbuf_policy_from_string (const gchar * name,
    RtpccSendbufPolicy * out)
{
  if (!name)
    return FALSE;
  for (guint i = 0; i < RTPCC_SENDBUF_N_POLICIES; i++) {
    if (g_ascii_strcasecmp (name, policy_names[i]) == 0) {
      *out = (RtpccSendbufPolicy) i;
      return TRUE;
    }
  }
  return FALSE;
}

const gchar *
rtpcc_sendbuf_drop_reason_name (RtpccSendbufDropReason reason)
{
  if ((guint) reason >= RTPCC_SENDBUF_N_DROP_REASONS)
    return "unknown";
  return reason_names[reason];
}

void
rtpcc_sendbuf_config_init (RtpccSendbufConfig * config)
{
  memset (config, 0, sizeof *config);
  config->policy = RTPCC_SENDBUF_FIFO;
  config->budget = RTPCC_MSEC (200);
  config->playout_delay = 0;
  config->burst = RTPCC_MSEC (5);
}

static gboolean
by_priority (RtpccSendbufPolicy p)
{
  return p != RTPCC_SENDBUF_FIFO && p != RTPCC_SENDBUF_RING;
}

static gint
cmp_u64 (guint64 a, guint64 b)
{
  return a < b ? -1 : a > b;
}

/* Transmission order of two streams' oldest frames: priority, then a
 * frame already started, then creation time, then arrival; fifo and ring
 * (the papers' baselines: unmodified DCCP, Lai & Kohler ring buffers)
 * arrival only. */
static gint
send_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  const RtpccSendbuf *sb = data;
  /* streams in the heap have a head frame (stream_refresh) */
  const Frame *fa = ((const Stream *) a)->frames.head->data;
  const Frame *fb = ((const Stream *) b)->frames.head->data;

  if (by_priority (sb->config.policy)) {
    if (fa->priority != fb->priority)
      return fa->priority > fb->priority ? -1 : 1;
    if (fa->started != fb->started)
      return fa->started ? -1 : 1;
    if (fa->created != fb->created)
      return fa->created < fb->created ? -1 : 1;
  }
  return cmp_u64 (fa->id, fb->id);
}

/* How much a frame is worth keeping, for the ring victim: non-reference
 * frames go first, then delta frames, keyframes last. */
static guint
frame_value (const Frame * f)
{
  if (f->droppable)
    return 0;
  return f->keyframe ? 2 : 1;
}

/* Eviction order within a priority: least valuable, then oldest, then
 * first arrived. */
static gint
victim_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  const Frame *fa = a, *fb = b;

  if (frame_value (fa) != frame_value (fb))
    return frame_value (fa) < frame_value (fb) ? -1 : 1;
  if (fa->created != fb->created)
    return fa->created < fb->created ? -1 : 1;
  return cmp_u64 (fa->id, fb->id);
}

/* @s may send when its oldest frame has packets queued and is not held
 * as a dependant (a stream's frames leave in arrival order). */
static void
stream_refresh (RtpccSendbuf * sb, Stream * s)
{
  const Frame *head = g_queue_peek_head (&s->frames);

  if (head && head->items.length > 0 && !head->pending)
    rtpcc_heap_update (&sb->send, s);
  else
    rtpcc_heap_remove (&sb->send, s);
}

/* @f may be evicted while it has packets queued and none was sent. */
static void
victim_refresh (RtpccSendbuf * sb, Frame * f)
{
  RtpccHeap *h = &sb->victims[f->priority];

  if (!f->started && !g_queue_is_empty (&f->items))
    rtpcc_heap_update (h, f);
  else
    rtpcc_heap_remove (h, f);
}

RtpccSendbuf *
rtpcc_sendbuf_new (const RtpccSendbufConfig * config)
{
  RtpccSendbuf *sb = g_new0 (RtpccSendbuf, 1);

  sb->config = *config;
  if ((guint) sb->config.policy >= RTPCC_SENDBUF_N_POLICIES)
    sb->config.policy = RTPCC_SENDBUF_FIFO;
  if (sb->config.budget < 0)
    sb->config.budget = 0;
  if (sb->config.playout_delay < 0)
    sb->config.playout_delay = 0;
  if (sb->config.burst < 0)
    sb->config.burst = 0;
  g_queue_init (&sb->frames);
  g_queue_init (&sb->spare_frames);
  g_queue_init (&sb->spare_items);
  sb->streams = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  sb->rtt = RTPCC_TIME_NONE;
  sb->next_allowed = RTPCC_TIME_NONE;
  sb->last_sent = RTPCC_TIME_NONE;
  sb->room_told = RTPCC_TIME_NONE;
  rtpcc_heap_init (&sb->send, send_cmp, sb, G_STRUCT_OFFSET (Stream, spos));
  for (guint p = 0; p < RTPCC_SENDBUF_N_PRIORITIES; p++)
    rtpcc_heap_init (&sb->victims[p], victim_cmp, NULL,
        G_STRUCT_OFFSET (Frame, vpos));
  return sb;
}

void
rtpcc_sendbuf_set_free_func (RtpccSendbuf * sb, GDestroyNotify func)
{
  sb->free_func = func;
}

static void
release (RtpccSendbuf * sb, gpointer handle)
{
  if (sb->free_func && handle)
    sb->free_func (handle);
}

/* A zeroed Item or Frame, a spare one if there is one. */
static gpointer
spare_take (GQueue * spares, gsize size)
{
  GList *l = g_queue_pop_head_link (spares);
  gpointer obj;

  if (!l)
    return g_malloc0 (size);
  obj = l->data;                /* (the link is in the object) */
  memset (obj, 0, size);
  return obj;
}

/* @obj (an Item or Frame whose @link is in no queue) kept as a spare. */
static void
spare_put (GQueue * spares, gpointer obj, GList * link)
{
  if (spares->length >= SPARE_MAX) {
    g_free (obj);
    return;
  }
  link->data = obj;
  g_queue_push_head_link (spares, link);
}

static void
item_recycle (RtpccSendbuf * sb, Item * it)
{
  spare_put (&sb->spare_items, it, &it->link);
}

/* @f's first item, unlinked (NULL if none) */
static Item *
item_pop (Frame * f)
{
  GList *l = g_queue_pop_head_link (&f->items);

  return l ? l->data : NULL;
}

static void
frame_free (RtpccSendbuf * sb, Frame * f)
{
  Item *it;

  while ((it = item_pop (f))) {
    release (sb, it->handle);
    item_recycle (sb, it);
  }
  if (f->stream->open == f)
    f->stream->open = NULL;
  f->stream->n_frames--;
  if (f->pending)
    sb->pending_frames--;
  if (sb->watch == f)
    sb->watch = NULL;
  rtpcc_heap_remove (&sb->victims[f->priority], f);
  g_queue_unlink (&sb->frames, &f->link);
  g_queue_unlink (&f->stream->frames, &f->slink);
  stream_refresh (sb, f->stream);
  spare_put (&sb->spare_frames, f, &f->link);
}

void
rtpcc_sendbuf_free (RtpccSendbuf * sb)
{
  if (!sb)
    return;
  while (!g_queue_is_empty (&sb->frames))
    frame_free (sb, g_queue_peek_head (&sb->frames));
  while (!g_queue_is_empty (&sb->spare_frames))
    g_free (g_queue_pop_head_link (&sb->spare_frames)->data);
  while (!g_queue_is_empty (&sb->spare_items))
    g_free (g_queue_pop_head_link (&sb->spare_items)->data);
  g_hash_table_destroy (sb->streams);
  rtpcc_heap_clear (&sb->send);
  for (guint p = 0; p < RTPCC_SENDBUF_N_PRIORITIES; p++)
    rtpcc_heap_clear (&sb->victims[p]);
  g_free (sb);
}

void
rtpcc_sendbuf_set_policy (RtpccSendbuf * sb, RtpccSendbufPolicy policy)
{
  gboolean reorder;

  if ((guint) policy >= RTPCC_SENDBUF_N_POLICIES)
    return;
  reorder = by_priority (policy) != by_priority (sb->config.policy);
  sb->config.policy = policy;
  if (reorder)
    rtpcc_heap_rebuild (&sb->send);
}

void
rtpcc_sendbuf_set_budget (RtpccSendbuf * sb, RtpccTime budget)
{
  sb->config.budget = MAX (budget, 0);
}

void
rtpcc_sendbuf_set_limits (RtpccSendbuf * sb, guint max_packets,
    guint64 max_bytes, guint max_frames)
{
  sb->config.max_packets = max_packets;
  sb->config.max_bytes = max_bytes;
  sb->config.max_frames = max_frames;
}

void
rtpcc_sendbuf_set_playout_delay (RtpccSendbuf * sb, RtpccTime playout_delay)
{
  sb->config.playout_delay = MAX (playout_delay, 0);
}

void
rtpcc_sendbuf_set_drop_dependents (RtpccSendbuf * sb, gboolean drop)
{
  sb->config.drop_dependents = drop;
}

const RtpccSendbufConfig *
rtpcc_sendbuf_get_config (const RtpccSendbuf * sb)
{
  return &sb->config;
}

void
rtpcc_sendbuf_set_rtt (RtpccSendbuf * sb, RtpccTime rtt)
{
  sb->rtt = rtt > 0 ? rtt : RTPCC_TIME_NONE;
}

void
rtpcc_sendbuf_set_rate (RtpccSendbuf * sb, guint64 bps)
{
  sb->rate = bps;
}

RtpccTime
rtpcc_sendbuf_get_rtt (const RtpccSendbuf * sb)
{
  return sb->rtt;
}

guint64
rtpcc_sendbuf_get_rate (const RtpccSendbuf * sb)
{
  return sb->rate;
}

const RtpccSendbufStats *
rtpcc_sendbuf_get_stats (const RtpccSendbuf * sb)
{
  /* const API, counter kept where it is known */
  ((RtpccSendbuf *) sb)->stats.streams = g_hash_table_size (sb->streams);
  return &sb->stats;
}

static RtpccTime
one_way (const RtpccSendbuf * sb)
{
  return sb->rtt == RTPCC_TIME_NONE ? 0 : sb->rtt / 2;
}

static RtpccTime
tx_time (guint64 bytes, guint64 rate)
{
  if (rate == 0)
    return 0;
  return (RtpccTime) (bytes * 8 * (guint64) RTPCC_NSEC_PER_SEC / rate);
}

static gboolean
is_ring (RtpccSendbufPolicy p)
{
  return p == RTPCC_SENDBUF_RING || p == RTPCC_SENDBUF_RING_SFDPS2;
}

/* Take one item out of @f's queue, keeping the counters right. */
static Item *
frame_pop (RtpccSendbuf * sb, Frame * f)
{
  Item *it = item_pop (f);

  f->bytes -= it->info.size;
  sb->stats.queued_packets--;
  sb->stats.queued_bytes -= it->info.size;
  if (g_queue_is_empty (&f->items)) {
    sb->stats.queued_frames--;
    sb->nonempty[f->priority]--;
  }
  return it;
}

/* Drop @f's queued packets and forget it (no dependents). */
static void
drop_frame_only (RtpccSendbuf * sb, Frame * f, RtpccSendbufDropReason reason)
{
  Stream *s = f->stream;

  if (!g_queue_is_empty (&f->items)) {
    sb->stats.dropped_frames++;
    sb->stats.frames_by_reason[reason]++;
  }
  while (!g_queue_is_empty (&f->items)) {
    Item *it = frame_pop (sb, f);
    sb->stats.dropped_packets++;
    sb->stats.dropped_bytes += it->info.size;
    sb->stats.dropped_by_reason[reason]++;
    sb->stats.dropped_by_priority[it->info.priority]++;
    release (sb, it->handle);
    item_recycle (sb, it);
  }
  if (!f->complete)
    s->last_dropped = TRUE;     /* the rest of it goes too */
  frame_free (sb, f);
}

/* A reference frame of @s was dropped: the later non-key frames of @s up to
 * its next keyframe are undecodable. */
static void
drop_dependents (RtpccSendbuf * sb, Stream * s, guint64 after_id)
{
  GList *l = s->frames.head;
  gboolean key_found = FALSE;

  while (l) {
    Frame *f = l->data;
    l = l->next;
    if (f->id <= after_id)
      continue;
    if (f->keyframe) {
      key_found = TRUE;
      break;
    }
    if (!f->started)
      drop_frame_only (sb, f, RTPCC_SENDBUF_DROP_DEPENDENT);
  }
  if (!key_found)
    s->broken = TRUE;
}

static void
drop_frame (RtpccSendbuf * sb, Frame * f, RtpccSendbufDropReason reason)
{
  Stream *s = f->stream;
  gboolean reference = !f->droppable;
  guint64 id = f->id;

  drop_frame_only (sb, f, reason);
  if (sb->config.drop_dependents && reference)
    drop_dependents (sb, s, id);
}

/* enqueue's frame @f (sb->watch) was not dropped since */
static gboolean
frame_alive (RtpccSendbuf * sb, const Frame * f)
{
  return sb->watch == f;
}

/* Count and release a packet that never entered the queue. */
static void
drop_arrival (RtpccSendbuf * sb, const RtpccSendbufPacket * p,
    gpointer handle, RtpccSendbufDropReason reason)
{
  sb->stats.dropped_packets++;
  sb->stats.dropped_bytes += p->size;
  sb->stats.dropped_by_reason[reason]++;
  sb->stats.dropped_by_priority[p->priority]++;
  release (sb, handle);
}

static gboolean
over_limit (const RtpccSendbuf * sb)
{
  const RtpccSendbufConfig *c = &sb->config;

  return (c->max_packets > 0 && sb->stats.queued_packets > c->max_packets)
      || (c->max_bytes > 0 && sb->stats.queued_bytes > c->max_bytes)
      || (c->max_frames > 0 && sb->stats.queued_frames > c->max_frames);
}

gboolean
rtpcc_sendbuf_has_room (const RtpccSendbuf * sb, guint size)
{
  const RtpccSendbufConfig *c = &sb->config;
  const RtpccSendbufStats *st = &sb->stats;

  if (st->queued_packets == 0)
    return TRUE;
  return !((c->max_packets > 0 && st->queued_packets >= c->max_packets)
      || (c->max_bytes > 0 && st->queued_bytes + size > c->max_bytes)
      || (c->max_frames > 0 && st->queued_frames >= c->max_frames));
}

/* Ring overflow victim: the oldest not-started frame of the lowest
 * priority present (video before audio, as in SFDPS's ring buffers after
 * Lai & Kohler), least valuable first.
 * When the lowest-priority packets queued all belong to started frames
 * (a large keyframe being sent), nothing is evicted: audio must not make
 * room for video that cannot be dropped. */
static Frame *
ring_victim (RtpccSendbuf * sb)
{
  for (guint p = 0; p < RTPCC_SENDBUF_N_PRIORITIES; p++)
    if (sb->nonempty[p] > 0)
      return rtpcc_heap_peek (&sb->victims[p]);
  return NULL;
}

static Frame *
frame_new (RtpccSendbuf * sb, Stream * s, const RtpccSendbufPacket * p)
{
  Frame *f = spare_take (&sb->spare_frames, sizeof (Frame));

  f->stream = s;
  s->n_frames++;
  f->priority = p->priority;
  f->created = p->created;
  f->id = sb->next_id++;
  f->vpos = -1;
  f->link.data = f;
  g_queue_push_tail_link (&sb->frames, &f->link);
  f->slink.data = f;
  g_queue_push_tail_link (&s->frames, &f->slink);
  s->open = f;
  return f;
}

/* The frame's type from the packets that tell it: keyframe if any says
 * so (an H.264 IDR after an SEI), droppable only if all that tell say
 * so. */
static void
frame_add_type (RtpccSendbuf * sb, Frame * f, const RtpccSendbufPacket * p)
{
  if (p->type_unknown)
    return;
  if (!f->type_known) {
    f->keyframe = p->keyframe;
    f->droppable = p->droppable;
    f->type_known = TRUE;
  } else {
    f->keyframe = f->keyframe || p->keyframe;
    f->droppable = f->droppable && p->droppable;
  }
  if (f->keyframe) {
    f->stream->broken = FALSE;  /* decodable again from here */
    if (f->pending) {
      f->pending = FALSE;
      sb->pending_frames--;
    }
  }
}

/* The frame has all its packets. A held dependant that never showed a
 * keyframe cannot be decoded: dropped. */
static void
frame_complete (RtpccSendbuf * sb, Frame * f)
{
  f->complete = TRUE;
  if (f->stream->open == f)
    f->stream->open = NULL;
  if (f->pending)
    drop_frame_only (sb, f, RTPCC_SENDBUF_DROP_DEPENDENT);
  else if (g_queue_is_empty (&f->items))
    frame_free (sb, f);
}

#define MAX_STREAMS 256

static gboolean
stream_idle (gpointer key, gpointer value, gpointer user_data)
{
  return ((Stream *) value)->n_frames == 0;
}

gboolean
rtpcc_sendbuf_enqueue (RtpccSendbuf * sb, RtpccTime now,
    const RtpccSendbufPacket * packet, gpointer handle)
{
  RtpccSendbufPacket p = *packet;
  Stream *s;
  Frame *f;
  Item *it;
  gboolean cont;

  p.priority = MIN (p.priority, RTPCC_SENDBUF_MAX_PRIORITY);
  if (p.created == RTPCC_TIME_NONE)
    p.created = now;

  s = g_hash_table_lookup (sb->streams, GUINT_TO_POINTER (p.ssrc));
  if (!s && g_hash_table_size (sb->streams) >= MAX_STREAMS) {
    /* bounded state whatever the input: forget idle streams (one that
     * comes back restarts its numbering from its own, and the rest of a
     * frame in progress counts as a new frame) */
    g_hash_table_foreach_remove (sb->streams, stream_idle, NULL);
  }
  if (!s) {
    s = g_new0 (Stream, 1);
    s->ssrc = p.ssrc;
    s->next_seq = p.seq;        /* no drops: output numbers = input numbers */
    g_queue_init (&s->frames);
    s->spos = -1;
    g_hash_table_insert (sb->streams, GUINT_TO_POINTER (p.ssrc), s);
  }
  sb->stats.enqueued_packets++;
  sb->stats.enqueued_bytes += p.size;

  cont = s->have_last && !s->last_marker && p.rtp_ts == s->last_ts;
  s->have_last = TRUE;
  s->last_ts = p.rtp_ts;
  s->last_marker = p.marker;

  if (cont && s->last_dropped) {
    drop_arrival (sb, &p, handle, RTPCC_SENDBUF_DROP_FRAME);
    return FALSE;
  }
  if (cont && s->open) {
    f = s->open;
  } else if (cont) {
    /* continues a frame whose queued part has all gone out: it was
     * started, so it must be finished */
    f = frame_new (sb, s, &p);
    f->started = TRUE;
  } else {
    /* a new frame: the one in progress is complete */
    if (s->open)
      frame_complete (sb, s->open);
    s->last_dropped = FALSE;
    f = frame_new (sb, s, &p);
    if (s->broken && sb->config.drop_dependents) {
      f->pending = TRUE;
      sb->pending_frames++;
    }
  }
  frame_add_type (sb, f, &p);

  it = spare_take (&sb->spare_items, sizeof (Item));
  it->info = p;
  it->handle = handle;
  if (g_queue_is_empty (&f->items)) {
    sb->stats.queued_frames++;
    sb->nonempty[f->priority]++;
  }
  it->link.data = it;
  g_queue_push_tail_link (&f->items, &it->link);
  f->bytes += p.size;
  sb->stats.queued_packets++;
  sb->stats.queued_bytes += p.size;
  /* its type, pending state or emptiness may have changed */
  stream_refresh (sb, s);
  victim_refresh (sb, f);
  sb->watch = f;
  if (p.marker) {
    frame_complete (sb, f);
    if (!frame_alive (sb, f))
      return FALSE;             /* a dependant that turned out not a key */
  }

  /* insertion policy */
  while (over_limit (sb)) {
    Frame *victim;

    if (is_ring (sb->config.policy))
      victim = ring_victim (sb);
    else
      victim = f->started ? NULL : f;   /* tail drop, whole frame */
    if (!victim)
      break;                    /* only started frames: accept, over limit */
    if (victim == f) {
      drop_frame (sb, f, RTPCC_SENDBUF_DROP_OVERFLOW);
      return FALSE;
    }
    drop_frame (sb, victim, RTPCC_SENDBUF_DROP_OVERFLOW);
    /* dropping a reference frame may have taken its dependants, ours too */
    if (!frame_alive (sb, f))
      return FALSE;
  }
  return TRUE;
}

/* The next frame to send: the best of the streams' oldest frames in the
 * transmission order (send_cmp); a stream's frames always leave in their
 * arrival (decoding) order, as timestamps need not grow (B-frames). */
static Frame *
best_frame (RtpccSendbuf * sb)
{
  Stream *s = rtpcc_heap_peek (&sb->send);

  return s ? g_queue_peek_head (&s->frames) : NULL;
}

/* The transmission policy for a frame about to start. */
static gboolean
should_drop (RtpccSendbuf * sb, Frame * f, RtpccTime now,
    RtpccSendbufDropReason * reason)
{
  const RtpccSendbufConfig *c = &sb->config;

  switch (c->policy) {
    case RTPCC_SENDBUF_SFDPS1:
    case RTPCC_SENDBUF_SFDPS2:
    case RTPCC_SENDBUF_RING_SFDPS2:
      /* SFDPS1: a packet expires at capture + budget; drop it when it
       * would arrive later, expiry < now + RTT/2 */
      if (f->created + c->budget >= now + one_way (sb))
        return FALSE;
      /* SFDPS2 sends an expired frame that is alone in the queue, so a
       * rate-based controller is not starved of packets */
      if (c->policy != RTPCC_SENDBUF_SFDPS1 && sb->stats.queued_frames == 1)
        return FALSE;
      *reason = RTPCC_SENDBUF_DROP_EXPIRED;
      return TRUE;
    case RTPCC_SENDBUF_DEADLINE:
      /* UltraGrid's transmission rule (Saurin's thesis Eq. 6.4): send if
       * (now − capture) + RTT/2 + L/X + t_pbuf < γ */
      if ((now - f->created) + one_way (sb) + tx_time (f->bytes, sb->rate)
          + c->playout_delay < c->budget)
        return FALSE;
      *reason = RTPCC_SENDBUF_DROP_LATE;
      return TRUE;
    default:
      return FALSE;
  }
}

/* When the drain lets the next packet go, as of @now. */
static RtpccTime
drain_time (const RtpccSendbuf * sb, RtpccTime now)
{
  if (sb->rate == 0 || sb->next_allowed == RTPCC_TIME_NONE)
    return now;
  /* the caller's clock went back (an element's running time starts again
   * when its pipeline starts playing): the pacing reference is lost and
   * nothing is owed, or the queue would wait for the old time to return */
  if (sb->last_sent != RTPCC_TIME_NONE && now < sb->last_sent)
    return now;
  return sb->next_allowed;
}

gpointer
rtpcc_sendbuf_dequeue (RtpccSendbuf * sb, RtpccTime now,
    RtpccSendbufOut * out)
{
  Frame *f;
  Item *it;
  gpointer handle;
  guint prio;
  RtpccTime age;
  gboolean first;

  if (drain_time (sb, now) > now)
    return NULL;

  for (;;) {
    RtpccSendbufDropReason reason;

    f = best_frame (sb);
    if (!f)
      return NULL;
    if (f->started || !should_drop (sb, f, now, &reason))
      break;
    drop_frame (sb, f, reason);
  }

  first = !f->started;
  f->started = TRUE;
  it = frame_pop (sb, f);
  if (!g_queue_is_empty (&f->items)) {
    stream_refresh (sb, f->stream);
    victim_refresh (sb, f);
  }
  handle = it->handle;
  prio = it->info.priority;
  age = now - it->info.created;

  if (out) {
    out->packet = it->info;
    out->seq = f->stream->next_seq;
    out->age = age;
    out->frame_start = first;
  }
  f->stream->next_seq++;

  sb->stats.sent_packets++;
  sb->stats.sent_bytes += it->info.size;
  if (first)
    sb->stats.sent_frames++;
  sb->stats.sent_by_priority[prio]++;
  sb->stats.age_sum[prio] += age;
  sb->stats.age_max[prio] = MAX (sb->stats.age_max[prio], age);

  if (sb->rate > 0) {
    RtpccTime base = sb->next_allowed;
    if (base == RTPCC_TIME_NONE || base < now - sb->config.burst
        || (sb->last_sent != RTPCC_TIME_NONE && now < sb->last_sent))
      base = now - sb->config.burst;
    sb->next_allowed = base + tx_time (it->info.size, sb->rate);
  }
  sb->last_sent = now;
  item_recycle (sb, it);

  /* an emptied frame goes even if incomplete: a later packet of it finds
   * no open frame and is queued as the continuation of a started frame */
  if (g_queue_is_empty (&f->items))
    frame_free (sb, f);
  return handle;
}

RtpccTime
rtpcc_sendbuf_next_time (const RtpccSendbuf * sb, RtpccTime now)
{
  /* something that may be sent: a frame held as a dependant is always its
   * stream's last, so nothing sendable hides behind one */
  if (best_frame ((RtpccSendbuf *) sb) == NULL)
    return RTPCC_TIME_NONE;
  return drain_time (sb, now);
}

void
rtpcc_sendbuf_flush (RtpccSendbuf * sb)
{
  GList *l = sb->frames.head;

  while (l) {
    Frame *f = l->data;
    l = l->next;
    if (g_queue_is_empty (&f->items))
      continue;
    /* a flush is not a policy decision: started frames go too */
    drop_frame_only (sb, f, RTPCC_SENDBUF_DROP_FLUSH);
  }
}

/* γ − RTT/2 − t_pbuf: the time a frame may spend queued, 0 at least */
static RtpccTime
room_time (const RtpccSendbuf * sb)
{
  RtpccTime room = sb->config.budget - one_way (sb) - sb->config.playout_delay;

  return MAX (room, 0);
}

gint64
rtpcc_sendbuf_max_frame_bytes (const RtpccSendbuf * sb)
{
  RtpccTime room;
  gint64 l;

  if (sb->rate == 0)
    return -1;
  room = room_time (sb);
  if (room <= 0)
    return 0;
  l = (gint64) ((gdouble) room / RTPCC_NSEC_PER_SEC * (gdouble) sb->rate / 8.0)
      - (gint64) sb->stats.queued_bytes;
  return MAX (l, 0);
}

RtpccTime
rtpcc_sendbuf_frame_room (const RtpccSendbuf * sb)
{
  /* fifo and ring have no budget: nothing bounds a frame but the queue */
  if (sb->config.policy == RTPCC_SENDBUF_FIFO
      || sb->config.policy == RTPCC_SENDBUF_RING)
    return RTPCC_TIME_NONE;
  return room_time (sb);
}

gboolean
rtpcc_sendbuf_take_frame_room (RtpccSendbuf * sb, RtpccTime * room)
{
  RtpccTime r = rtpcc_sendbuf_frame_room (sb);
  RtpccTime told = sb->room_told;

  if (r == told)
    return FALSE;
  /* a quarter: each new value reconfigures the encoder, and the RTT
   * moves by a few per cent from report to report */
  if (r != RTPCC_TIME_NONE && told != RTPCC_TIME_NONE && r > 0 && told > 0
      && ABS (r - told) * 4 < told)
    return FALSE;
  sb->room_told = r;
  *room = r;
  return TRUE;
}

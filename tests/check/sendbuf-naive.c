/* The sending buffer's scheduling as it was first written, every frame
 * scanned per dequeue and per overflow: the naive reference that
 * rtpcc_sendbuf.c checks the indexed implementation (gst/rtpcc/sendbuf.c)
 * against on random input. Same API, naive_ instead of rtpcc_.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sendbuf-naive.h"

#include <string.h>

typedef struct _Stream Stream;

typedef struct
{
  RtpccSendbufPacket info;
  gpointer handle;
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
  GList *link;                  /* in NaiveSendbuf.frames */
} Frame;

struct _Stream
{
  guint32 ssrc;
  gboolean have_last;
  guint32 last_ts;
  gboolean last_marker;
  gboolean last_dropped;        /* the frame in progress was dropped */
  Frame *open;                  /* the frame in progress, if queued */
  guint64 scan;                 /* best_frame() pass that saw it last */
  guint n_frames;               /* Frame objects pointing here */
  guint16 next_seq;             /* output numbering */
  gboolean broken;              /* a reference frame was dropped */
};

struct _NaiveSendbuf
{
  RtpccSendbufConfig config;
  GDestroyNotify free_func;
  GQueue frames;                /* Frame*, arrival order */
  GHashTable *streams;          /* ssrc → Stream* */
  guint64 next_id;
  RtpccTime rtt;
  guint64 rate;
  RtpccTime next_allowed;       /* drain: earliest time of the next send */
  guint64 scan;                 /* best_frame() pass counter */
  guint pending_frames;
  RtpccSendbufStats stats;
};

NaiveSendbuf *
naive_sendbuf_new (const RtpccSendbufConfig * config)
{
  NaiveSendbuf *sb = g_new0 (NaiveSendbuf, 1);

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
  sb->streams = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  sb->rtt = RTPCC_TIME_NONE;
  sb->next_allowed = RTPCC_TIME_NONE;
  return sb;
}

void
naive_sendbuf_set_free_func (NaiveSendbuf * sb, GDestroyNotify func)
{
  sb->free_func = func;
}

static void
release (NaiveSendbuf * sb, gpointer handle)
{
  if (sb->free_func && handle)
    sb->free_func (handle);
}

static void
frame_free (NaiveSendbuf * sb, Frame * f)
{
  Item *it;

  while ((it = g_queue_pop_head (&f->items))) {
    release (sb, it->handle);
    g_free (it);
  }
  if (f->stream && f->stream->open == f)
    f->stream->open = NULL;
  if (f->stream)
    f->stream->n_frames--;
  if (f->pending)
    sb->pending_frames--;
  g_queue_delete_link (&sb->frames, f->link);
  g_free (f);
}

void
naive_sendbuf_free (NaiveSendbuf * sb)
{
  if (!sb)
    return;
  while (!g_queue_is_empty (&sb->frames))
    frame_free (sb, g_queue_peek_head (&sb->frames));
  g_hash_table_destroy (sb->streams);
  g_free (sb);
}

void
naive_sendbuf_set_policy (NaiveSendbuf * sb, RtpccSendbufPolicy policy)
{
  if ((guint) policy < RTPCC_SENDBUF_N_POLICIES)
    sb->config.policy = policy;
}

void
naive_sendbuf_set_budget (NaiveSendbuf * sb, RtpccTime budget)
{
  sb->config.budget = MAX (budget, 0);
}

void
naive_sendbuf_set_limits (NaiveSendbuf * sb, guint max_packets,
    guint64 max_bytes, guint max_frames)
{
  sb->config.max_packets = max_packets;
  sb->config.max_bytes = max_bytes;
  sb->config.max_frames = max_frames;
}

void
naive_sendbuf_set_playout_delay (NaiveSendbuf * sb, RtpccTime playout_delay)
{
  sb->config.playout_delay = MAX (playout_delay, 0);
}

void
naive_sendbuf_set_drop_dependents (NaiveSendbuf * sb, gboolean drop)
{
  sb->config.drop_dependents = drop;
}

const RtpccSendbufConfig *
naive_sendbuf_get_config (const NaiveSendbuf * sb)
{
  return &sb->config;
}

void
naive_sendbuf_set_rtt (NaiveSendbuf * sb, RtpccTime rtt)
{
  sb->rtt = rtt > 0 ? rtt : RTPCC_TIME_NONE;
}

void
naive_sendbuf_set_rate (NaiveSendbuf * sb, guint64 bps)
{
  sb->rate = bps;
}

RtpccTime
naive_sendbuf_get_rtt (const NaiveSendbuf * sb)
{
  return sb->rtt;
}

guint64
naive_sendbuf_get_rate (const NaiveSendbuf * sb)
{
  return sb->rate;
}

const RtpccSendbufStats *
naive_sendbuf_get_stats (const NaiveSendbuf * sb)
{
  /* const API, counter kept where it is known */
  ((NaiveSendbuf *) sb)->stats.streams = g_hash_table_size (sb->streams);
  return &sb->stats;
}

static RtpccTime
one_way (const NaiveSendbuf * sb)
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
frame_pop (NaiveSendbuf * sb, Frame * f)
{
  Item *it = g_queue_pop_head (&f->items);

  f->bytes -= it->info.size;
  sb->stats.queued_packets--;
  sb->stats.queued_bytes -= it->info.size;
  if (g_queue_is_empty (&f->items))
    sb->stats.queued_frames--;
  return it;
}

/* Drop @f's queued packets and forget it (no dependents). */
static void
drop_frame_only (NaiveSendbuf * sb, Frame * f, RtpccSendbufDropReason reason)
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
    g_free (it);
  }
  if (!f->complete)
    s->last_dropped = TRUE;     /* the rest of it goes too */
  frame_free (sb, f);
}

/* A reference frame of @s was dropped: the later non-key frames of @s up to
 * its next keyframe are undecodable. */
static void
drop_dependents (NaiveSendbuf * sb, Stream * s, guint64 after_id)
{
  GList *l = sb->frames.head;
  gboolean key_found = FALSE;

  while (l) {
    Frame *f = l->data;
    l = l->next;
    if (f->stream != s || f->id <= after_id)
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
drop_frame (NaiveSendbuf * sb, Frame * f, RtpccSendbufDropReason reason)
{
  Stream *s = f->stream;
  gboolean reference = !f->droppable;
  guint64 id = f->id;

  drop_frame_only (sb, f, reason);
  if (sb->config.drop_dependents && reference)
    drop_dependents (sb, s, id);
}

static gboolean
frame_alive (NaiveSendbuf * sb, const Frame * f)
{
  return g_queue_find (&sb->frames, f) != NULL;
}

/* Count and release a packet that never entered the queue. */
static void
drop_arrival (NaiveSendbuf * sb, const RtpccSendbufPacket * p,
    gpointer handle, RtpccSendbufDropReason reason)
{
  sb->stats.dropped_packets++;
  sb->stats.dropped_bytes += p->size;
  sb->stats.dropped_by_reason[reason]++;
  sb->stats.dropped_by_priority[p->priority]++;
  release (sb, handle);
}

static gboolean
over_limit (const NaiveSendbuf * sb)
{
  const RtpccSendbufConfig *c = &sb->config;

  return (c->max_packets > 0 && sb->stats.queued_packets > c->max_packets)
      || (c->max_bytes > 0 && sb->stats.queued_bytes > c->max_bytes)
      || (c->max_frames > 0 && sb->stats.queued_frames > c->max_frames);
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

/* Ring overflow victim: the oldest not-started frame of the lowest
 * priority present (video before audio, as in SFDPS's ring buffers after
 * Lai & Kohler), least valuable first.
 * When the lowest-priority packets queued all belong to started frames
 * (a large keyframe being sent), nothing is evicted: audio must not make
 * room for video that cannot be dropped. */
static Frame *
ring_victim (NaiveSendbuf * sb)
{
  Frame *best = NULL;
  guint lowest = G_MAXUINT;

  for (GList * l = sb->frames.head; l; l = l->next) {
    Frame *f = l->data;
    if (!g_queue_is_empty (&f->items))
      lowest = MIN (lowest, f->priority);
  }
  for (GList * l = sb->frames.head; l; l = l->next) {
    Frame *f = l->data;
    if (f->started || g_queue_is_empty (&f->items) || f->priority != lowest)
      continue;
    if (!best || f->priority < best->priority
        || (f->priority == best->priority
            && (frame_value (f) < frame_value (best)
                || (frame_value (f) == frame_value (best)
                    && (f->created < best->created
                        || (f->created == best->created
                            && f->id < best->id))))))
      best = f;
  }
  return best;
}

static Frame *
frame_new (NaiveSendbuf * sb, Stream * s, const RtpccSendbufPacket * p)
{
  Frame *f = g_new0 (Frame, 1);

  f->stream = s;
  s->n_frames++;
  f->priority = p->priority;
  f->created = p->created;
  f->id = sb->next_id++;
  g_queue_push_tail (&sb->frames, f);
  f->link = sb->frames.tail;
  s->open = f;
  return f;
}

/* The frame's type from the packets that tell it: keyframe if any says
 * so (an H.264 IDR after an SEI), droppable only if all that tell say
 * so. */
static void
frame_add_type (NaiveSendbuf * sb, Frame * f, const RtpccSendbufPacket * p)
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
frame_complete (NaiveSendbuf * sb, Frame * f)
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
naive_sendbuf_enqueue (NaiveSendbuf * sb, RtpccTime now,
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

  it = g_new0 (Item, 1);
  it->info = p;
  it->handle = handle;
  if (g_queue_is_empty (&f->items))
    sb->stats.queued_frames++;
  g_queue_push_tail (&f->items, it);
  f->bytes += p.size;
  sb->stats.queued_packets++;
  sb->stats.queued_bytes += p.size;
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

/* Transmission order: priority, then a frame already started, then
 * creation time, then arrival; but a stream's frames always leave in their
 * arrival (decoding) order, so only each stream's oldest queued frame is a
 * candidate (timestamps need not grow: B-frames). fifo and ring are the
 * papers' baselines (unmodified DCCP, Lai & Kohler ring buffers): arrival
 * order only. */
static Frame *
best_frame (NaiveSendbuf * sb)
{
  Frame *best = NULL;
  gboolean by_priority = sb->config.policy != RTPCC_SENDBUF_FIFO
      && sb->config.policy != RTPCC_SENDBUF_RING;
  guint64 scan = ++sb->scan;

  for (GList * l = sb->frames.head; l; l = l->next) {
    Frame *f = l->data;
    if (g_queue_is_empty (&f->items) || f->stream->scan == scan)
      continue;
    f->stream->scan = scan;     /* later frames of this stream wait */
    if (f->pending)
      continue;                 /* not known to be decodable yet */
    if (!by_priority) {
      /* the first queued frame in arrival order; a started frame is
       * always at the front, as nothing overtakes it */
      return f;
    }
    if (!best || f->priority > best->priority
        || (f->priority == best->priority
            && ((f->started && !best->started)
                || (f->started == best->started
                    && (f->created < best->created
                        || (f->created == best->created
                            && f->id < best->id))))))
      best = f;
  }
  return best;
}

/* The transmission policy for a frame about to start. */
static gboolean
should_drop (NaiveSendbuf * sb, Frame * f, RtpccTime now,
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

gpointer
naive_sendbuf_dequeue (NaiveSendbuf * sb, RtpccTime now,
    RtpccSendbufOut * out)
{
  Frame *f;
  Item *it;
  gpointer handle;
  guint prio;
  RtpccTime age;
  gboolean first;

  if (sb->rate > 0 && sb->next_allowed != RTPCC_TIME_NONE
      && sb->next_allowed > now)
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
    if (base == RTPCC_TIME_NONE || base < now - sb->config.burst)
      base = now - sb->config.burst;
    sb->next_allowed = base + tx_time (it->info.size, sb->rate);
  }
  g_free (it);

  /* an emptied frame goes even if incomplete: a later packet of it finds
   * no open frame and is queued as the continuation of a started frame */
  if (g_queue_is_empty (&f->items))
    frame_free (sb, f);
  return handle;
}

/* Something that may be sent: a queued frame not held as a dependant. */
static gboolean
have_sendable (const NaiveSendbuf * sb)
{
  if (sb->stats.queued_packets == 0)
    return FALSE;
  if (sb->pending_frames == 0)
    return TRUE;
  for (GList * l = sb->frames.head; l; l = l->next) {
    const Frame *f = l->data;
    if (!f->pending && f->items.length > 0)
      return TRUE;
  }
  return FALSE;
}

RtpccTime
naive_sendbuf_next_time (const NaiveSendbuf * sb, RtpccTime now)
{
  if (!have_sendable (sb))
    return RTPCC_TIME_NONE;
  if (sb->rate == 0 || sb->next_allowed == RTPCC_TIME_NONE)
    return now;
  return sb->next_allowed;
}

void
naive_sendbuf_flush (NaiveSendbuf * sb)
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

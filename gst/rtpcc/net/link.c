/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "link.h"

#include <string.h>

/* Packets still in the bottleneck (departure > now), oldest first. Only sizes
 * and departures are needed: they give the backlog for drop-tail admission. */
typedef struct
{
  RtpccTime departure;
  guint size;
} QueuedPacket;

struct _RtpccLink
{
  RtpccLinkConfig config;
  RtpccTime epoch;

  RtpccLoss loss;
  RtpccRng jitter_rng;

  /* FIFO server state: the plain serializer's last finish, and when the
   * last packet left (earlier by the burst with a token bucket) */
  RtpccTime last_departure;
  RtpccTime last_leave;
  RtpccCapacityCursor cursor;
  RtpccTime last_deliver;

  /* ring buffer of QueuedPacket */
  QueuedPacket *q;
  guint q_cap, q_head, q_len;
  guint64 q_bytes;

  RtpccLinkStats stats;
};

void
rtpcc_link_config_init (RtpccLinkConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->capacity = NULL;
  config->queue_limit_time = RTPCC_MSEC (300);
  config->queue_limit_bytes = 0;
  rtpcc_loss_params_init (&config->loss);
}

const gchar *
rtpcc_link_verdict_name (RtpccLinkVerdict verdict)
{
  switch (verdict) {
    case RTPCC_LINK_DELIVERED:
      return "delivered";
    case RTPCC_LINK_DROPPED_QUEUE:
      return "dropped-queue";
    case RTPCC_LINK_DROPPED_LOSS:
      return "dropped-loss";
  }
  return "unknown";
}

RtpccLink *
rtpcc_link_new (const RtpccLinkConfig * config)
{
  RtpccLink *link = g_new0 (RtpccLink, 1);
  RtpccRng loss_rng;

  link->config = *config;
  link->config.loss.loss = CLAMP (link->config.loss.loss, 0.0, 1.0);
  link->config.loss.ge_p = CLAMP (link->config.loss.ge_p, 0.0, 1.0);
  link->config.loss.ge_r = CLAMP (link->config.loss.ge_r, 0.0, 1.0);
  link->config.loss.ge_k = CLAMP (link->config.loss.ge_k, 0.0, 1.0);
  link->config.loss.ge_h = CLAMP (link->config.loss.ge_h, 0.0, 1.0);
  if (link->config.capacity)
    rtpcc_capacity_ref (link->config.capacity);
  if (link->config.delay < 0)
    link->config.delay = 0;
  if (link->config.jitter < 0)
    link->config.jitter = 0;

  /* Separate streams: changing the jitter must not change which packets are
   * lost, and vice versa. */
  rtpcc_rng_init_stream (&loss_rng, config->seed, 1);
  rtpcc_rng_init_stream (&link->jitter_rng, config->seed, 2);
  rtpcc_loss_init (&link->loss, &link->config.loss, &loss_rng);

  link->last_departure = link->last_leave = RTPCC_TIME_NONE;
  link->last_deliver = RTPCC_TIME_NONE;
  link->q_cap = 64;
  link->q = g_new (QueuedPacket, link->q_cap);
  return link;
}

void
rtpcc_link_free (RtpccLink * link)
{
  if (!link)
    return;
  rtpcc_capacity_unref (link->config.capacity);
  g_free (link->q);
  g_free (link);
}

void
rtpcc_link_set_epoch (RtpccLink * link, RtpccTime epoch)
{
  link->epoch = epoch;
}

RtpccTime
rtpcc_link_get_epoch (const RtpccLink * link)
{
  return link->epoch;
}

const RtpccLinkStats *
rtpcc_link_get_stats (const RtpccLink * link)
{
  return &link->stats;
}

const RtpccLinkConfig *
rtpcc_link_get_config (const RtpccLink * link)
{
  return &link->config;
}

static void
queue_expire (RtpccLink * link, RtpccTime now)
{
  while (link->q_len > 0 && link->q[link->q_head].departure <= now) {
    link->q_bytes -= link->q[link->q_head].size;
    link->q_head = (link->q_head + 1) % link->q_cap;
    link->q_len--;
  }
}

static void
queue_push (RtpccLink * link, RtpccTime departure, guint size)
{
  if (link->q_len == link->q_cap) {
    guint ncap = link->q_cap * 2;
    QueuedPacket *nq = g_new (QueuedPacket, ncap);
    for (guint i = 0; i < link->q_len; i++)
      nq[i] = link->q[(link->q_head + i) % link->q_cap];
    g_free (link->q);
    link->q = nq;
    link->q_cap = ncap;
    link->q_head = 0;
  }
  link->q[(link->q_head + link->q_len) % link->q_cap] =
      (QueuedPacket) { departure, size };
  link->q_len++;
  link->q_bytes += size;
}

guint64
rtpcc_link_capacity_at (const RtpccLink * link, RtpccTime now)
{
  return rtpcc_capacity_rate_at (link->config.capacity, now - link->epoch,
      link->config.queue_limit_time);
}

/* The bucket's depth in bytes at @rate bit/s. */
static guint64
burst_bytes (const RtpccLink * link, guint64 rate)
{
  guint64 b = link->config.burst_bytes;

  if (link->config.burst_time > 0 && rate != G_MAXUINT64)
    b = MAX (b, (guint64) ((gdouble) rate / 8.0 *
            RTPCC_TIME_AS_SEC (link->config.burst_time)));
  return b;
}

/* The drop-tail limit in bytes at @now: the tighter of the byte limit and
 * the time limit converted at the capacity in force. */
static guint64
queue_limit_bytes (RtpccLink * link, RtpccTime now)
{
  guint64 limit = link->config.queue_limit_bytes ?
      link->config.queue_limit_bytes : G_MAXUINT64;

  if (link->config.queue_limit_time > 0) {
    guint64 rate = rtpcc_link_capacity_at (link, now);
    if (rate != G_MAXUINT64) {
      gdouble b = (gdouble) rate / 8.0 *
          RTPCC_TIME_AS_SEC (link->config.queue_limit_time);
      limit = MIN (limit, (guint64) b);
    }
  }
  /* tbf's limit: the queue's bytes on top of the bucket's */
  if (limit != G_MAXUINT64)
    limit += burst_bytes (link, rtpcc_link_capacity_at (link, now));
  return limit;
}

void
rtpcc_link_send (RtpccLink * link, RtpccTime now, guint size,
    RtpccLinkOutcome * out)
{
  RtpccLinkOutcome o = { 0, };
  RtpccTime start, finish, rel_start;

  o.arrival = now;
  o.departure = o.deliver_at = RTPCC_TIME_NONE;

  link->stats.packets_in++;
  link->stats.bytes_in += size;
  queue_expire (link, now);

  /* Loss is decided on arrival: a lost packet never occupies the queue. The
   * draw happens for every packet so the loss pattern depends only on the
   * packet count and the seed. */
  if (rtpcc_loss_next (&link->loss)) {
    o.verdict = RTPCC_LINK_DROPPED_LOSS;
    link->stats.loss_drops++;
    link->stats.loss_drop_bytes += size;
    goto done;
  }

  /* Drop-tail, but an empty queue always takes a packet: otherwise a packet
   * larger than the limit (or any packet during an outage) could never pass. */
  if (link->q_len > 0 && link->q_bytes + size > queue_limit_bytes (link, now)) {
    o.verdict = RTPCC_LINK_DROPPED_QUEUE;
    link->stats.queue_drops++;
    link->stats.queue_drop_bytes += size;
    goto done;
  }

  start = now;
  if (link->last_departure != RTPCC_TIME_NONE && link->last_departure > start)
    start = link->last_departure;
  rel_start = start - link->epoch;
  finish = rtpcc_capacity_serve (link->config.capacity, rel_start, size,
      &link->cursor);
  if (finish == RTPCC_TIME_INFINITE) {
    /* the capacity never returns: the packet can only be lost in the queue */
    o.verdict = RTPCC_LINK_DROPPED_QUEUE;
    link->stats.queue_drops++;
    link->stats.queue_drop_bytes += size;
    goto done;
  }
  finish += link->epoch;
  link->last_departure = finish;
  {
    guint64 rate = rtpcc_link_capacity_at (link, start);
    guint64 b = burst_bytes (link, rate);

    /* the token bucket lets it leave the burst's worth of time early, in
     * order (a fall in capacity lengthens the credit) and never before
     * it came */
    if (b > 0 && rate > 0 && rate != G_MAXUINT64)
      finish -= (RtpccTime) ((gdouble) b * 8.0 / (gdouble) rate *
          RTPCC_NSEC_PER_SEC);
    finish = MAX (finish, now);
    if (link->last_leave != RTPCC_TIME_NONE)
      finish = MAX (finish, link->last_leave);
    link->last_leave = finish;
  }

  o.verdict = RTPCC_LINK_DELIVERED;
  o.departure = finish;
  o.queue_delay = finish - now;
  queue_push (link, finish, size);

  {
    RtpccTime d = link->config.delay;
    if (link->config.jitter > 0) {
      gdouble j = rtpcc_rng_uniform (&link->jitter_rng,
          -(gdouble) link->config.jitter, (gdouble) link->config.jitter);
      d += (RtpccTime) j;
      if (d < 0)
        d = 0;
    }
    o.deliver_at = finish + d;
    /* Without reordering a packet cannot overtake the one before it, as on a
     * real serial path. */
    if (!link->config.allow_reorder && link->last_deliver != RTPCC_TIME_NONE
        && o.deliver_at < link->last_deliver)
      o.deliver_at = link->last_deliver;
    if (link->last_deliver == RTPCC_TIME_NONE
        || o.deliver_at > link->last_deliver)
      link->last_deliver = o.deliver_at;
  }

  link->stats.packets_delivered++;
  link->stats.bytes_delivered += size;
  if (o.queue_delay > link->stats.max_queue_delay)
    link->stats.max_queue_delay = o.queue_delay;

done:
  if (out)
    *out = o;
}

RtpccTime
rtpcc_link_queue_delay (RtpccLink * link, RtpccTime now)
{
  queue_expire (link, now);
  if (link->q_len == 0 || link->last_leave == RTPCC_TIME_NONE)
    return 0;
  return MAX (0, link->last_leave - now);
}

guint64
rtpcc_link_queue_bytes (RtpccLink * link, RtpccTime now)
{
  queue_expire (link, now);
  return link->q_bytes;
}

void
rtpcc_link_reset (RtpccLink * link)
{
  link->q_head = link->q_len = 0;
  link->q_bytes = 0;
  link->last_departure = link->last_leave = RTPCC_TIME_NONE;
  link->last_deliver = RTPCC_TIME_NONE;
  link->cursor = (RtpccCapacityCursor) RTPCC_CAPACITY_CURSOR_INIT;
}

void
rtpcc_link_set_capacity (RtpccLink * link, RtpccCapacity * capacity)
{
  if (capacity)
    rtpcc_capacity_ref (capacity);
  rtpcc_capacity_unref (link->config.capacity);
  link->config.capacity = capacity;
  /* a new trace starts with fresh opportunities */
  link->cursor = (RtpccCapacityCursor) RTPCC_CAPACITY_CURSOR_INIT;
}

void
rtpcc_link_set_burst (RtpccLink * link, guint64 burst_bytes,
    RtpccTime burst_time)
{
  link->config.burst_bytes = burst_bytes;
  link->config.burst_time = MAX (burst_time, 0);
}

void
rtpcc_link_set_queue_limits (RtpccLink * link, RtpccTime limit_time,
    guint64 limit_bytes)
{
  link->config.queue_limit_time = MAX (limit_time, 0);
  link->config.queue_limit_bytes = limit_bytes;
}

void
rtpcc_link_set_delay (RtpccLink * link, RtpccTime delay, RtpccTime jitter,
    gboolean allow_reorder)
{
  link->config.delay = MAX (delay, 0);
  link->config.jitter = MAX (jitter, 0);
  link->config.allow_reorder = allow_reorder;
}

void
rtpcc_link_set_loss (RtpccLink * link, const RtpccLossParams * loss)
{
  link->config.loss = *loss;
  rtpcc_loss_set_params (&link->loss, loss);
}

/* The multipath scheduler's packet placement (sched.h, "Packets"): key
 * frames on the best path, retransmissions on the fastest, the rest by
 * start-time fair queueing over the allowed rates; and the duplicates
 * that keep unused paths alive.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "schedpriv.h"

/* The split weight of path @i: its allowed rate, or without any rate yet
 * an equal share for every live path. */
static guint64
weight (const RtpccMprtpSched * s, guint i, gboolean any)
{
  if (any)
    return s->path[i].allowed;
  return s->path[i].failed ? 0 : 1000000;
}

/* TRUE if @a is a better path than @b for key frames: the lower class,
 * then the higher capacity/latency. */
static gboolean
better (const RtpccMprtpSched * s, guint a, guint b)
{
  const Path *x = &s->path[a], *y = &s->path[b];

  if (x->cls.klass != y->cls.klass)
    return x->cls.klass < y->cls.klass;
  return (gdouble) x->allowed / (gdouble) order_latency (x) >
      (gdouble) y->allowed / (gdouble) order_latency (y);
}

static gint
best_path (const RtpccMprtpSched * s, gboolean by_rtt)
{
  gint best = -1;

  for (guint i = 0; i < s->n; i++) {
    const Path *p = &s->path[i];

    if (p->allowed == 0)
      continue;
    if (best < 0) {
      best = (gint) i;
      continue;
    }
    if (by_rtt) {
      RtpccTime a = p->srtt, b = s->path[best].srtt;
      if (a != b) {
        if (b == RTPCC_TIME_NONE || (a != RTPCC_TIME_NONE && a < b))
          best = (gint) i;
        continue;
      }
    }
    if (better (s, i, (guint) best))
      best = (gint) i;
  }
  return best;
}

/* Start-time fair queueing over the allowed rates (Goyal et al., SFQ): a
 * path's tag advances by size/rate per packet it takes; a packet goes to
 * the path with the smallest start tag, a tag being never below the last
 * packet's start, so a path that idled (passive, or under its share) gets
 * no credit for it. */
static gdouble
service (guint size, guint64 w)
{
  return (gdouble) size * 8.0 * 1e9 / (gdouble) w;
}

guint
rtpcc_mprtp_sched_pick (RtpccMprtpSched * s, RtpccTime now, guint size,
    RtpccMprtpPacketFlags flags)
{
  gint pick = -1;
  gboolean any = FALSE;

  if (s->n > 1) {
    for (guint i = 0; i < s->n; i++)
      any |= s->path[i].allowed > 0;
    if (any && (flags & RTPCC_MPRTP_PACKET_RETRANSMISSION))
      pick = best_path (s, TRUE);
    else if (any && (flags & RTPCC_MPRTP_PACKET_KEYFRAME))
      pick = best_path (s, FALSE);
    if (pick < 0) {
      gdouble best_start = G_MAXDOUBLE, best_finish = G_MAXDOUBLE;

      /* the smallest start tag; among equal ones the earliest finish */
      for (guint i = 0; i < s->n; i++) {
        guint64 w = weight (s, i, any);
        gdouble start, finish;

        if (w == 0)
          continue;
        start = MAX (s->path[i].vt, s->vstart);
        finish = start + service (size, w);
        if (start < best_start || (start == best_start
                && finish < best_finish)) {
          best_start = start;
          best_finish = finish;
          pick = (gint) i;
        }
      }
    }
    if (pick < 0)
      pick = 0;                 /* every path failed and none has a rate */
  } else {
    pick = 0;
  }
  rtpcc_mprtp_sched_charge (s, (guint) pick, now, size, flags, any);
  return (guint) pick;
}

void
rtpcc_mprtp_sched_charge (RtpccMprtpSched * s, guint path, RtpccTime now,
    guint size, RtpccMprtpPacketFlags flags, gboolean any)
{
  Path *p = &s->path[path];

  if (s->n > 1) {
    guint64 w = weight (s, path, any);
    gdouble start = MAX (p->vt, s->vstart);

    /* a key frame or retransmission is charged to its path but does
     * not move the others' clock */
    if (!(flags & (RTPCC_MPRTP_PACKET_KEYFRAME |
                RTPCC_MPRTP_PACKET_RETRANSMISSION)))
      s->vstart = start;
    p->vt = start + service (size, w ? w : 1000000);
  }
  p->packets++;
  p->bytes += size;
  if (flags & RTPCC_MPRTP_PACKET_KEYFRAME)
    p->keyframe_packets++;
  if (flags & RTPCC_MPRTP_PACKET_RETRANSMISSION)
    p->rtx_packets++;
  if (p->first_unanswered == RTPCC_TIME_NONE)
    p->first_unanswered = now;
}

gint
rtpcc_mprtp_sched_probe (RtpccMprtpSched * s, RtpccTime now)
{
  if (s->n == 1 || s->config.probe_interval <= 0)
    return -1;
  for (guint i = 0; i < s->n; i++) {
    Path *p = &s->path[i];

    if (p->allowed > 0)
      continue;
    if (p->probed_at == RTPCC_TIME_NONE
        || now - p->probed_at >= s->config.probe_interval) {
      p->probed_at = now;
      p->probes++;
      return (gint) i;
    }
  }
  return -1;
}

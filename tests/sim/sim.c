/* rtpccsim core: event queue, packet pool, basic nodes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

#include <string.h>

#define NO_POS G_MAXUINT

/* Event storage. Slots are reused through a free list; the generation makes
 * old handles stale so cancelling a fired timer cannot hit a newer event. */
typedef struct
{
  SimEventFunc func;            /* NULL: packet delivery to node @data */
  gpointer data;
  SimPacket *packet;
  guint32 gen;
  guint heap_pos;               /* NO_POS when the slot is free */
  guint next_free;
} SimEventSlot;

/* The heap keeps its keys inline so sifting touches one array. */
typedef struct
{
  RtpccTime time;
  guint64 seq;
  guint slot;
} SimHeapEntry;

struct _Sim
{
  RtpccTime now;
  guint64 next_seq;
  guint64 events_run;
  gboolean stopped;

  SimEventSlot *slots;
  guint n_slots, slots_cap;
  guint free_slot;              /* head of free list, NO_POS if empty */

  SimHeapEntry *heap;
  guint heap_len, heap_cap;

  SimPacket *free_packets;
  guint64 packets_live;
};

Sim *
sim_new (void)
{
  Sim *sim = g_new0 (Sim, 1);
  sim->free_slot = NO_POS;
  return sim;
}

void
sim_free (Sim * sim)
{
  SimPacket *p;

  if (!sim)
    return;
  /* Packets still in flight (delivery events) belong to the simulator. */
  for (guint i = 0; i < sim->heap_len; i++) {
    SimEventSlot *s = &sim->slots[sim->heap[i].slot];
    if (s->packet)
      sim_packet_free (sim, s->packet);
  }
  if (sim->packets_live)
    g_warning ("sim: %" G_GUINT64_FORMAT " packets not freed",
        sim->packets_live);
  while ((p = sim->free_packets)) {
    sim->free_packets = p->next_free;
    g_free (p);
  }
  g_free (sim->slots);
  g_free (sim->heap);
  g_free (sim);
}

RtpccTime
sim_now (const Sim * sim)
{
  return sim->now;
}

/* ---- heap ---------------------------------------------------------------- */

static inline gboolean
entry_before (const SimHeapEntry * a, const SimHeapEntry * b)
{
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static inline void
heap_set (Sim * sim, guint pos, SimHeapEntry e)
{
  sim->heap[pos] = e;
  sim->slots[e.slot].heap_pos = pos;
}

static void
sift_up (Sim * sim, guint pos)
{
  SimHeapEntry e = sim->heap[pos];
  while (pos > 0) {
    guint parent = (pos - 1) / 2;
    if (!entry_before (&e, &sim->heap[parent]))
      break;
    heap_set (sim, pos, sim->heap[parent]);
    pos = parent;
  }
  heap_set (sim, pos, e);
}

static void
sift_down (Sim * sim, guint pos)
{
  SimHeapEntry e = sim->heap[pos];
  guint n = sim->heap_len;
  for (;;) {
    guint c = 2 * pos + 1;
    if (c >= n)
      break;
    if (c + 1 < n && entry_before (&sim->heap[c + 1], &sim->heap[c]))
      c++;
    if (!entry_before (&sim->heap[c], &e))
      break;
    heap_set (sim, pos, sim->heap[c]);
    pos = c;
  }
  heap_set (sim, pos, e);
}

static void
heap_remove (Sim * sim, guint pos)
{
  SimHeapEntry last;

  sim->heap_len--;
  if (pos == sim->heap_len)
    return;
  last = sim->heap[sim->heap_len];
  heap_set (sim, pos, last);
  if (pos > 0 && entry_before (&last, &sim->heap[(pos - 1) / 2]))
    sift_up (sim, pos);
  else
    sift_down (sim, pos);
}

/* ---- slots --------------------------------------------------------------- */

static guint
slot_alloc (Sim * sim)
{
  guint i;

  if (sim->free_slot != NO_POS) {
    i = sim->free_slot;
    sim->free_slot = sim->slots[i].next_free;
    return i;
  }
  if (sim->n_slots == sim->slots_cap) {
    sim->slots_cap = MAX (64, sim->slots_cap * 2);
    sim->slots = g_renew (SimEventSlot, sim->slots, sim->slots_cap);
  }
  i = sim->n_slots++;
  sim->slots[i].gen = 1;
  return i;
}

static void
slot_release (Sim * sim, guint i)
{
  SimEventSlot *s = &sim->slots[i];
  s->heap_pos = NO_POS;
  s->func = NULL;
  s->data = NULL;
  s->packet = NULL;
  s->gen++;
  if (s->gen == 0)
    s->gen = 1;
  s->next_free = sim->free_slot;
  sim->free_slot = i;
}

static SimTimer
push_event (Sim * sim, RtpccTime at, SimEventFunc func, gpointer data,
    SimPacket * packet)
{
  guint i = slot_alloc (sim);
  SimEventSlot *s = &sim->slots[i];

  s->func = func;
  s->data = data;
  s->packet = packet;
  if (sim->heap_len == sim->heap_cap) {
    sim->heap_cap = MAX (64, sim->heap_cap * 2);
    sim->heap = g_renew (SimHeapEntry, sim->heap, sim->heap_cap);
  }
  sim->heap[sim->heap_len] = (SimHeapEntry) {
  at, sim->next_seq++, i};
  sim->slots[i].heap_pos = sim->heap_len;
  sim->heap_len++;
  sift_up (sim, sim->heap_len - 1);
  return ((guint64) sim->slots[i].gen << 32) | (guint64) (i + 1);
}

static SimEventSlot *
timer_slot (const Sim * sim, SimTimer timer)
{
  guint64 idx = timer & G_GUINT64_CONSTANT (0xffffffff);
  SimEventSlot *s;

  if (idx == 0 || idx > sim->n_slots)
    return NULL;
  s = &sim->slots[idx - 1];
  if (s->gen != (guint32) (timer >> 32) || s->heap_pos == NO_POS)
    return NULL;
  return s;
}

SimTimer
sim_schedule (Sim * sim, RtpccTime at, SimEventFunc func, gpointer user_data)
{
  g_return_val_if_fail (func != NULL, 0);
  /* Going back in time would break every causal assumption downstream. */
  g_return_val_if_fail (at >= sim->now, 0);
  return push_event (sim, at, func, user_data, NULL);
}

gboolean
sim_cancel (Sim * sim, SimTimer timer)
{
  SimEventSlot *s = timer_slot (sim, timer);
  guint slot;

  if (!s)
    return FALSE;
  slot = (guint) (s - sim->slots);
  heap_remove (sim, s->heap_pos);
  if (s->packet)
    sim_packet_free (sim, s->packet);
  slot_release (sim, slot);
  return TRUE;
}

gboolean
sim_timer_pending (const Sim * sim, SimTimer timer)
{
  return timer_slot (sim, timer) != NULL;
}

static guint64
run_events (Sim * sim, RtpccTime t_end)
{
  guint64 n = 0;

  sim->stopped = FALSE;
  while (sim->heap_len > 0 && sim->heap[0].time <= t_end && !sim->stopped) {
    SimHeapEntry top = sim->heap[0];
    SimEventSlot *s = &sim->slots[top.slot];
    SimEventFunc func = s->func;
    gpointer data = s->data;
    SimPacket *packet = s->packet;

    heap_remove (sim, 0);
    /* Release before dispatch: the callback may schedule (and reuse the
     * slot), and its own handle must read as no longer pending. */
    slot_release (sim, top.slot);
    sim->now = top.time;
    sim->events_run++;
    n++;
    if (func)
      func (sim, data);
    else
      sim_node_receive (data, sim, packet);
  }
  return n;
}

guint64
sim_run_until (Sim * sim, RtpccTime t_end)
{
  guint64 n;

  g_return_val_if_fail (t_end >= sim->now, 0);
  n = run_events (sim, t_end);
  if (!sim->stopped && t_end != RTPCC_TIME_INFINITE)
    sim->now = t_end;
  return n;
}

guint64
sim_run (Sim * sim)
{
  return run_events (sim, RTPCC_TIME_INFINITE);
}

void
sim_stop (Sim * sim)
{
  sim->stopped = TRUE;
}

guint
sim_pending_events (const Sim * sim)
{
  return sim->heap_len;
}

guint64
sim_events_run (const Sim * sim)
{
  return sim->events_run;
}

RtpccTime
sim_next_event_time (const Sim * sim)
{
  return sim->heap_len ? sim->heap[0].time : RTPCC_TIME_INFINITE;
}

/* ---- packets ------------------------------------------------------------- */

SimPacket *
sim_packet_new (Sim * sim)
{
  SimPacket *p = sim->free_packets;

  if (p)
    sim->free_packets = p->next_free;
  else
    p = g_new (SimPacket, 1);
  memset (p, 0, sizeof (*p));
  p->frame = SIM_NO_FRAME;
  p->created = RTPCC_TIME_NONE;
  p->sent = RTPCC_TIME_NONE;
  sim->packets_live++;
  return p;
}

void
sim_packet_free (Sim * sim, SimPacket * packet)
{
  if (!packet)
    return;
  if (packet->data && packet->data_free)
    packet->data_free (packet->data);
  packet->data = NULL;
  packet->next_free = sim->free_packets;
  sim->free_packets = packet;
  sim->packets_live--;
}

SimPacket *
sim_packet_copy (Sim * sim, const SimPacket * packet, SimDataCopyFunc data_copy)
{
  SimPacket *p = sim_packet_new (sim);

  *p = *packet;
  p->next_free = NULL;
  if (packet->data && data_copy) {
    p->data = data_copy (packet->data);
  } else {
    p->data = NULL;
    p->data_free = NULL;
  }
  return p;
}

guint64
sim_packets_live (const Sim * sim)
{
  return sim->packets_live;
}

/* ---- nodes --------------------------------------------------------------- */

void
sim_node_receive (SimNode * node, Sim * sim, SimPacket * packet)
{
  if (node)
    node->receive (node, sim, packet);
  else
    sim_packet_free (sim, packet);
}

void
sim_deliver (Sim * sim, RtpccTime at, SimNode * node, SimPacket * packet)
{
  if (G_UNLIKELY (at < sim->now)) {
    g_critical ("sim_deliver: %" G_GINT64_FORMAT " is in the past (now %"
        G_GINT64_FORMAT ")", at, sim->now);
    sim_packet_free (sim, packet);
    return;
  }
  push_event (sim, at, NULL, node, packet);
}

struct _SimDemux
{
  SimNode node;
  SimNode *fallback;
  GPtrArray *routes;            /* indexed by flow id */
};

static void
demux_receive (SimNode * node, Sim * sim, SimPacket * packet)
{
  SimDemux *d = (SimDemux *) node;
  SimNode *out = d->fallback;

  if (packet->flow < d->routes->len && d->routes->pdata[packet->flow])
    out = d->routes->pdata[packet->flow];
  sim_node_receive (out, sim, packet);
}

SimDemux *
sim_demux_new (SimNode * fallback)
{
  SimDemux *d = g_new0 (SimDemux, 1);
  d->node.receive = demux_receive;
  d->node.name = "demux";
  d->fallback = fallback;
  d->routes = g_ptr_array_new ();
  return d;
}

void
sim_demux_free (SimDemux * demux)
{
  if (!demux)
    return;
  g_ptr_array_free (demux->routes, TRUE);
  g_free (demux);
}

void
sim_demux_set_route (SimDemux * demux, guint flow, SimNode * node)
{
  g_return_if_fail (flow < 1u << 20);   /* flow ids are small integers */
  if (flow >= demux->routes->len)
    g_ptr_array_set_size (demux->routes, flow + 1);
  demux->routes->pdata[flow] = node;
}

SimNode *
sim_demux_node (SimDemux * demux)
{
  return &demux->node;
}

static void
sink_receive (SimNode * node, Sim * sim, SimPacket * packet)
{
  SimSink *s = (SimSink *) node;
  s->packets++;
  s->bytes += packet->size;
  s->last = sim_now (sim);
  sim_packet_free (sim, packet);
}

void
sim_sink_init (SimSink * sink)
{
  memset (sink, 0, sizeof (*sink));
  sink->node.receive = sink_receive;
  sink->node.name = "sink";
  sink->last = RTPCC_TIME_NONE;
}

void
sim_test_log_lines (const gchar * title, const gchar * text)
{
  gchar **lines = g_strsplit (text, "\n", -1);

  g_test_message ("%s", title);
  for (guint i = 0; lines[i]; i++)
    if (lines[i][0])
      g_test_message ("  %s", lines[i]);
  g_strfreev (lines);
}

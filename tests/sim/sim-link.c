/* SimLink: the library's RtpccLink as a simulator node.
 *
 * The link model decides a packet's whole fate when it is offered, so the
 * node only has to hold a delivered packet until outcome.deliver_at: one
 * rtpcc_link_send() and at most one event per packet. Several flows may share
 * one link; the flow id rides on the packet.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

struct _SimLink
{
  SimNode node;
  RtpccLink *link;
  SimNode *next;
  SimMetrics *metrics;
  SimLinkObserver observer;
  gpointer observer_data;
};

static void
link_receive (SimNode * node, Sim * sim, SimPacket * packet)
{
  SimLink *sl = (SimLink *) node;
  RtpccTime now = sim_now (sim);
  RtpccLinkOutcome o;

  rtpcc_link_send (sl->link, now, packet->size, &o);
  if (sl->observer)
    sl->observer (sl, packet, &o, sl->observer_data);

  if (o.verdict != RTPCC_LINK_DELIVERED) {
    if (sl->metrics)
      sim_metrics_record_drop (sl->metrics, now, packet, o.verdict);
    sim_packet_free (sim, packet);
    return;
  }

  packet->queue_delay += o.queue_delay;
  packet->path_delay += o.deliver_at - o.departure;
  packet->hops++;
  sim_deliver (sim, o.deliver_at, sl->next, packet);
}

SimLink *
sim_link_new (const RtpccLinkConfig * config, SimNode * next)
{
  SimLink *sl = g_new0 (SimLink, 1);

  sl->node.receive = link_receive;
  sl->node.name = "link";
  sl->link = rtpcc_link_new (config);
  sl->next = next;
  return sl;
}

void
sim_link_free (SimLink * link)
{
  if (!link)
    return;
  rtpcc_link_free (link->link);
  g_free (link);
}

SimNode *
sim_link_node (SimLink * link)
{
  return &link->node;
}

RtpccLink *
sim_link_get_link (SimLink * link)
{
  return link->link;
}

void
sim_link_set_next (SimLink * link, SimNode * next)
{
  link->next = next;
}

void
sim_link_set_metrics (SimLink * link, SimMetrics * metrics)
{
  link->metrics = metrics;
}

void
sim_link_set_observer (SimLink * link, SimLinkObserver observer,
    gpointer user_data)
{
  link->observer = observer;
  link->observer_data = user_data;
}

/* A stock rtpsession's sender side in the simulator; see sim-session.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-session.h"

#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/rtpext.h>
#include <rtpcc/feedback/twcc.h>

/* what it keeps of a packet it numbered (GStreamer's SentPacket) */
typedef struct
{
  gboolean valid;
  guint16 seq;
  guint8 pt;
  guint payload;
  RtpccTime at;                 /* its local-ts */
} Sent;

typedef struct
{
  SimNode node;
  SimSession *s;
} Port;

struct _SimSession
{
  Sim *sim;
  SimSessionConfig config;
  SimRtpccSender *sender;
  SimNode *forward;
  Port send_port, rtcp_port;
  guint16 next_seq;
  Sent sent[65536];
  gboolean first_fci;
  guint16 expected;             /* the next seq it expects feedback about */
  guint8 expected_fb_count;
  GArray *pkts;                 /* RtpccTransportPacket scratch */
  SimSessionCounters counters;
};

/* RTP out: stamp our number over the sender's */
static void
send_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  SimSession *s = ((Port *) node)->s;
  SimRtpHeader *h = p->data;
  RtpccRtpInfo info;
  gsize hdr;

  if (p->kind == SIM_PACKET_MEDIA && h
      && sim_rtp_header_parse (p, &info, &hdr)) {
    guint16 seq = s->next_seq;
    if (rtpcc_rtp_header_write_twcc_seq (h->data, h->len,
            s->config.twcc_ext_id, seq)) {
      Sent *e = &s->sent[seq];
      e->valid = TRUE;
      e->seq = seq;
      e->pt = info.pt;
      /* GStreamer's payload length: no header, no padding */
      e->payload = info.padding_only ? 0 : p->size - (guint) hdr;
      e->at = sim_now (sim);
      s->next_seq++;
      s->counters.numbered++;
    } else {
      s->counters.unstamped++;
    }
  }
  sim_node_receive (s->forward, sim, p);
}

static void
add_packet (SimSession * s, guint16 seq, gboolean received, RtpccTime arrival)
{
  RtpccTransportPacket t = { 0, };
  const Sent *e = &s->sent[seq];

  t.seq = seq;
  t.lost = !received;
  t.arrival = received ? arrival : RTPCC_TIME_NONE;
  t.pt = e->valid && e->seq == seq ? e->pt : -1;
  t.payload = e->valid && e->seq == seq ? (gint) e->payload : -1;
  t.sent = e->valid && e->seq == seq ? e->at : RTPCC_TIME_NONE;
  g_array_append_val (s->pkts, t);
  s->counters.reported++;
  if (!received)
    s->counters.reported_lost++;
}

/* One TWCC packet as rtp_twcc_manager_parse_fci lists it: the seqs since
 * the last feedback that this one skips over as lost (not on the first
 * one, nor across a feedback packet missed), then its own statuses, the
 * arrival being the unsigned 24-bit reference time × 64 ms plus the
 * deltas. */
static void
on_twcc (SimSession * s, RtpccTime now, const RtpccRtcpPacket * pkt)
{
  RtpccTwcc *fb = rtpcc_twcc_parse (pkt->data, pkt->len, NULL);
  RtpccTime base;

  if (!fb)
    return;
  g_array_set_size (s->pkts, 0);
  if (s->first_fci) {
    s->first_fci = FALSE;
  } else if (fb->fb_count == s->expected_fb_count) {
    gint16 gap = (gint16) (fb->base_seq - s->expected);
    for (gint16 i = 0; i < gap; i++) {
      add_packet (s, (guint16) (s->expected + i), FALSE, RTPCC_TIME_NONE);
      s->counters.gap_lost++;
    }
  }
  s->expected = (guint16) (fb->base_seq + fb->status_count);
  s->expected_fb_count = (guint8) (fb->fb_count + 1);
  base = (RtpccTime) (fb->ref_time & 0xFFFFFF) * RTPCC_TWCC_REF_UNIT;
  for (guint i = 0; i < fb->status_count; i++) {
    const RtpccTwccStatus *st = &fb->status[i];
    add_packet (s, st->seq, st->received, st->received ? base + st->offset :
        RTPCC_TIME_NONE);
  }
  rtpcc_twcc_free (fb);
  s->counters.reports++;
  if (!sim_rtpcc_sender_transport_feedback (s->sender,
          (const RtpccTransportPacket *) s->pkts->data, s->pkts->len))
    s->counters.rejected++;
}

/* RTCP in: TWCC goes to the sender as a report, the rest stays here */
static void
rtcp_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  SimSession *s = ((Port *) node)->s;
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  gsize len;
  const guint8 *d;

  if (p->kind == SIM_PACKET_FEEDBACK && p->data) {
    d = g_bytes_get_data (p->data, &len);
    if (rtpcc_rtcp_iter_init (&it, d, len)) {
      while (rtpcc_rtcp_iter_next (&it, &pkt)) {
        if (pkt.pt == RTPCC_RTCP_RTPFB && pkt.count == RTPCC_TWCC_FMT)
          on_twcc (s, sim_now (sim), &pkt);
        else
          s->counters.rtcp_kept++;
      }
    }
  }
  sim_packet_free (sim, p);
}

SimSession *
sim_session_new (Sim * sim, const SimSessionConfig * config,
    SimRtpccSender * sender, SimNode * forward)
{
  SimSession *s = g_new0 (SimSession, 1);

  s->sim = sim;
  s->config = *config;
  s->sender = sender;
  s->forward = forward;
  s->next_seq = config->first_seq;
  s->first_fci = TRUE;
  s->send_port.node.receive = send_receive;
  s->send_port.node.name = "session-rtp";
  s->send_port.s = s;
  s->rtcp_port.node.receive = rtcp_receive;
  s->rtcp_port.node.name = "session-rtcp";
  s->rtcp_port.s = s;
  s->pkts = g_array_new (FALSE, FALSE, sizeof (RtpccTransportPacket));
  sim_rtpcc_sender_set_forward (sender, &s->send_port.node);
  return s;
}

void
sim_session_free (SimSession * s)
{
  if (!s)
    return;
  g_array_unref (s->pkts);
  g_free (s);
}

SimNode *
sim_session_send_node (SimSession * s)
{
  return &s->send_port.node;
}

SimNode *
sim_session_rtcp_node (SimSession * s)
{
  return &s->rtcp_port.node;
}

const SimSessionCounters *
sim_session_get_counters (SimSession * s)
{
  return &s->counters;
}

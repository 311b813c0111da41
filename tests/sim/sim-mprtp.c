/* Multipath RTP in the simulator; see sim-mprtp.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-mprtp.h"

#include <rtpcc/feedback/bytes.h>

#include <math.h>
#include <string.h>

#define RTP_HEADER 12
#define RTCP_MAX 1472
#define IP_UDP 28
#define TAG_MAX 32

/* What the wire carries of a media packet besides the per-path sender's
 * view: the RTP header with the media seq and the subflow extension. */
typedef struct
{
  guint64 media_seq;
  guint8 hdr[TAG_MAX];
  guint8 len;
  gboolean moved;               /* a repair of a loss on another path */
} Tag;

/* The receiver's view of one media packet, by media seq. */
typedef struct
{
  RtpccTime created;
  guint64 frame;
  guint frame_packet, frame_packets;
  gboolean keyframe, marker;
  guint size;
  guint payload_size;           /* size without the subflow element */
  guint path;
  RtpccTime arrival;            /* first arrival, NONE if lost */
  gboolean late;
  gboolean repaired;            /* the first arrival was restored from RTX */
} MediaRec;

typedef struct _SimMprtpPath SimMprtpPath;

typedef struct
{
  SimNode node;
  SimMprtpPath *path;
} PathNode;

struct _SimMprtpPath
{
  SimMprtp *m;
  guint index, flow;
  SimRtpccSender *sender;
  SimRtpccReceiver *receiver;
  SimLink *forward, *reverse;
  SimTap *send_tap, *recv_tap;
  PathNode rx;                  /* after the forward link (receiver side) */
  PathNode fb;                  /* after the reverse link (sender side) */
  GArray *tags;                 /* Tag, by FSSN */
  guint64 last_reported_received, last_reported_lost;
  RtpccRtpSourceStats rx_stats; /* on the FSSN, for the subflow report */
  gboolean rx_started;
  guint32 discards;
  SimTimer report_timer;
  guint64 mprtcp_seq;
  guint64 mprtcp_seen;          /* reports_in_rr: the sender's count taken */
  SimMprtpPathTotals totals;
  /* config.repair */
  RtpccMprtpSeqMap *seqmap;     /* sender: media seq of each FSSN sent */
  RtpccMprtpSeqMap *rx_seqmap;  /* receiver: of each FSSN that arrived */
  GArray *rtx_tags;             /* Tag, by RTX packet index: its wire form */
  RtpccRtxReceiver *rtx;        /* receiver: the path's NACK/RTX repair */
  SimTimer rtx_timer;
  RtpccTime rtx_timer_at;
};

struct _SimMprtp
{
  Sim *sim;
  SimMprtpConfig config;
  gchar *controller;
  SimMetrics *metrics;
  SimSource *source;
  PathNode tx;                  /* the source's next node */
  SimMprtpPath path[RTPCC_MPRTP_MAX_PATHS];
  RtpccMprtpSched *sched;
  RtpccMprtpSkew *skew;
  SimTimer sched_timer, poll_timer, sample_timer;
  RtpccTime sched_timer_at;
  guint64 applied_rate;
  GArray *media;                /* MediaRec, by media seq */
  GArray *samples;              /* SimMprtpSample */
  guint64 wire_errors, ext_bytes;
  guint64 probe_packets, probe_bytes;   /* duplicates on unused paths */
};

/* ------------------------------------------------------------------------ */

void
sim_mprtp_config_init (SimMprtpConfig * c, guint n_paths,
    const gchar * controller, guint64 seed)
{
  memset (c, 0, sizeof (*c));
  c->n_paths = n_paths;
  for (guint k = 0; k < RTPCC_MPRTP_MAX_PATHS; k++) {
    rtpcc_link_config_init (&c->path[k].forward);
    c->path[k].forward.capacity = rtpcc_capacity_new_constant (1000000);
    c->path[k].forward.delay = RTPCC_MSEC (25);
    c->path[k].forward.seed = seed * 100 + 2 * k + 1;
    rtpcc_link_config_init (&c->path[k].reverse);
    c->path[k].reverse.queue_limit_time = 0;
    c->path[k].reverse.delay = RTPCC_MSEC (25);
    c->path[k].reverse.seed = seed * 100 + 2 * k + 2;
  }
  c->controller = controller;
  c->feedback = SIM_RTPCC_FEEDBACK_AUTO;
  c->min_bitrate = 150000;
  c->max_bitrate = 3000000;
  c->start_bitrate = 300000;
  c->circuit_breaker = TRUE;
  rtpcc_mprtp_sched_config_init (&c->sched);
  rtpcc_mprtp_skew_config_init (&c->skew);
  c->report_interval = RTPCC_SEC (1);
  c->reports_in_rr = TRUE;
  c->poll = RTPCC_MSEC (50);
  c->sample = RTPCC_MSEC (100);
  sim_frame_config_init (&c->frames);
  c->frames.mtu = 1200;
  c->frames.overhead = RTP_HEADER;
  c->frames.seed = seed;
  c->ext_id = 1;
  c->flow_base = 1;
  c->ssrc = 0x5eed0000u;
  c->seed = seed;
  c->rtx_pt = 97;
  c->rtx_route = TRUE;
  rtpcc_repair_config_init (&c->repair_config);
}

void
sim_mprtp_config_set_capacity (SimMprtpConfig * c, guint k, guint64 bps)
{
  g_return_if_fail (k < RTPCC_MPRTP_MAX_PATHS);
  if (c->path[k].forward.capacity)
    rtpcc_capacity_unref (c->path[k].forward.capacity);
  c->path[k].forward.capacity = bps ? rtpcc_capacity_new_constant (bps) :
      NULL;
}

void
sim_mprtp_config_clear (SimMprtpConfig * c)
{
  for (guint k = 0; k < RTPCC_MPRTP_MAX_PATHS; k++) {
    g_clear_pointer (&c->path[k].forward.capacity, rtpcc_capacity_unref);
    g_clear_pointer (&c->path[k].reverse.capacity, rtpcc_capacity_unref);
  }
}

/* ------------------------------------------------------------------------ */
/* Rates and timers                                                         */

static gboolean
multipath (const SimMprtp * m)
{
  return m->config.n_paths > 1;
}

static void
apply_rate (SimMprtp * m)
{
  guint64 r;

  if (!multipath (m))
    return;                     /* the path's sender drives the source */
  r = m->config.cbr_bps ? m->config.cbr_bps :
      rtpcc_mprtp_sched_get_encoder_rate (m->sched);
  if (r != m->applied_rate) {
    m->applied_rate = r;
    sim_source_set_rate (m->source, r);
  }
}

static void sched_fire (Sim * sim, gpointer user_data);

static void
sched_arm (SimMprtp * m)
{
  RtpccTime at = rtpcc_mprtp_sched_next_timeout (m->sched);

  if (at != RTPCC_TIME_NONE && at == m->sched_timer_at
      && sim_timer_pending (m->sim, m->sched_timer))
    return;
  sim_cancel (m->sim, m->sched_timer);
  m->sched_timer = 0;
  m->sched_timer_at = at;
  if (at != RTPCC_TIME_NONE)
    m->sched_timer = sim_schedule (m->sim, MAX (at, sim_now (m->sim)),
        sched_fire, m);
}

static void
sched_fire (Sim * sim, gpointer user_data)
{
  SimMprtp *m = user_data;

  m->sched_timer = 0;
  rtpcc_mprtp_sched_tick (m->sched, sim_now (sim));
  apply_rate (m);
  sched_arm (m);
}

static void
read_target (SimMprtp * m, SimMprtpPath * p)
{
  const RtpccTarget *t =
      rtpcc_sender_get_target (sim_rtpcc_sender_get_sender (p->sender));

  rtpcc_mprtp_sched_set_rate (m->sched, p->index, sim_now (m->sim),
      t->media_bitrate);
}

static void
poll_fire (Sim * sim, gpointer user_data)
{
  SimMprtp *m = user_data;

  for (guint k = 0; k < m->config.n_paths; k++)
    read_target (m, &m->path[k]);
  apply_rate (m);
  sched_arm (m);
  m->poll_timer = sim_schedule (sim, sim_now (sim) + m->config.poll,
      poll_fire, m);
}

static void
sample_fire (Sim * sim, gpointer user_data)
{
  SimMprtp *m = user_data;
  SimMprtpSample s = { 0 };

  s.time = sim_now (sim);
  s.encoder_bps = multipath (m) ? m->applied_rate :
      rtpcc_sender_get_target (sim_rtpcc_sender_get_sender (m->path[0].
          sender))->media_bitrate;
  s.playout_target = rtpcc_mprtp_skew_get_target (m->skew);
  s.playout_delay = rtpcc_mprtp_skew_get_playout_delay (m->skew);
  for (guint k = 0; k < m->config.n_paths; k++) {
    RtpccMprtpPathInfo i;
    rtpcc_mprtp_sched_get_path (m->sched, k, &i);
    s.allowed[k] = i.allowed;
    s.state[k] = i.state;
    s.klass[k] = i.klass;
    if (i.state == RTPCC_MPRTP_PATH_FAILED
        && m->path[k].totals.first_failed_at == RTPCC_TIME_NONE)
      m->path[k].totals.first_failed_at = i.failed_at;
  }
  s.shared = multipath (m) &&
      rtpcc_mprtp_couple_shared (rtpcc_mprtp_sched_get_couple (m->sched), 0,
      1);
  g_array_append_val (m->samples, s);
  m->sample_timer = sim_schedule (sim, s.time + m->config.sample,
      sample_fire, m);
}

/* ------------------------------------------------------------------------ */
/* Sender side                                                              */

/* Hands @p (a media packet, media seq in p->seq) to path @k: the wire
 * header with the subflow extension goes to the path's table, the path's
 * endpoints get the FSSN as seq. */
static void
send_on_path (SimMprtp * m, guint k, SimPacket * p, gboolean moved)
{
  SimMprtpPath *path = &m->path[k];
  Tag tag = { 0 };
  guint8 rtp[RTP_HEADER];
  guint32 ts = (guint32) ((guint64) (p->created * 9) / 100000);

  /* the RTP header as the wire has it: the media's seq, one SSRC */
  rtp[0] = 0x80;
  rtp[1] = (p->marker ? 0x80 : 0) | 96;
  rtp[2] = (guint8) (p->seq >> 8);
  rtp[3] = (guint8) p->seq;
  rtp[4] = ts >> 24;
  rtp[5] = ts >> 16;
  rtp[6] = ts >> 8;
  rtp[7] = ts;
  rtp[8] = m->config.ssrc >> 24;
  rtp[9] = m->config.ssrc >> 16;
  rtp[10] = m->config.ssrc >> 8;
  rtp[11] = m->config.ssrc;
  tag.media_seq = p->seq;
  tag.moved = moved;
  if (multipath (m)) {
    RtpccMprtpSubflow sf = { (guint16) k, (guint16) path->tags->len };
    gsize n = rtpcc_mprtp_add_subflow (rtp, RTP_HEADER, m->config.ext_id,
        &sf, tag.hdr, sizeof tag.hdr);

    g_assert (n > RTP_HEADER);
    tag.len = (guint8) n;
    if (path->seqmap)
      rtpcc_mprtp_seqmap_put (path->seqmap, sf.fssn, (guint16) p->seq);
    p->size += (guint) (n - RTP_HEADER);
    m->ext_bytes += n - RTP_HEADER;
  } else {
    memcpy (tag.hdr, rtp, RTP_HEADER);
    tag.len = RTP_HEADER;
  }
  /* the path's endpoints see its own sequence space */
  p->seq = path->tags->len;
  p->flow = path->flow;
  g_array_append_val (path->tags, tag);
  path->totals.packets++;
  path->totals.bytes += p->size;
  sim_node_receive (sim_rtpcc_sender_node (path->sender), m->sim, p);
}

static void
tx_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  SimMprtp *m = ((PathNode *) node)->path->m;
  RtpccTime now = sim_now (sim);
  MediaRec rec = { 0 };
  SimPacket *dup = NULL;
  guint k;
  gint probe;

  if (p->kind != SIM_PACKET_MEDIA) {
    sim_packet_free (sim, p);
    return;
  }
  k = rtpcc_mprtp_sched_pick (m->sched, now,
      p->size + (multipath (m) ? 12 : 0),
      p->keyframe ? RTPCC_MPRTP_PACKET_KEYFRAME : RTPCC_MPRTP_PACKET_MEDIA);
  probe = rtpcc_mprtp_sched_probe (m->sched, now);
  if (probe >= 0 && (guint) probe != k) {
    dup = sim_packet_copy (sim, p, NULL);
    m->probe_packets++;
  }

  rec.created = p->created;
  rec.frame = p->frame;
  rec.frame_packet = p->frame_packet;
  rec.frame_packets = p->frame_packets;
  rec.keyframe = p->keyframe;
  rec.marker = p->marker;
  rec.payload_size = p->size;
  rec.size = p->size + (multipath (m) ? 12 : 0);
  rec.path = k;
  rec.arrival = RTPCC_TIME_NONE;
  if (m->media->len <= p->seq)
    g_array_set_size (m->media, p->seq + 1);
  g_array_index (m->media, MediaRec, p->seq) = rec;

  send_on_path (m, k, p, FALSE);
  if (dup) {
    m->probe_bytes += dup->size + 12;
    send_on_path (m, (guint) probe, dup, FALSE);
  }
  sched_arm (m);
}

/* The media packet whose 16-bit seq is @seq: the latest such (the wire's
 * numbers wrap; the run's table does not). G_MAXUINT64 if none. */
static guint64
media_index (const SimMprtp * m, guint16 seq)
{
  guint64 last, back;

  if (m->media->len == 0)
    return G_MAXUINT64;
  last = m->media->len - 1;
  back = (guint16) ((guint16) last - seq);
  return back <= last ? last - back : G_MAXUINT64;
}

/* The repair of @media_seq, lost on @path, offered to the scheduler as
 * rtpccsink offers it to mprtpsched (rtpcc_mprtp_sched_route_rtx): if
 * another path is to carry it, the original media packet goes out again on
 * that path as one of its own packets (its subflow element, its next FSSN)
 * and TRUE. Only a packet the asking path carried can be moved. */
static gboolean
move_repair (SimMprtp * m, SimMprtpPath * path, guint64 media_seq)
{
  const MediaRec *rec;
  SimPacket *p;
  gint via;

  if (!m->config.rtx_route || media_seq >= m->media->len)
    return FALSE;
  rec = &g_array_index (m->media, MediaRec, media_seq);
  if (rec->path != path->index)
    return FALSE;
  via = rtpcc_mprtp_sched_route_rtx (m->sched, path->index, sim_now (m->sim),
      rec->size + RTPCC_RTX_OSN_SIZE);
  if (via < 0)
    return FALSE;
  p = sim_packet_new (m->sim);
  p->kind = SIM_PACKET_MEDIA;
  p->seq = media_seq;
  p->size = rec->payload_size;
  p->created = rec->created;
  p->frame = rec->frame;
  p->frame_packet = rec->frame_packet;
  p->frame_packets = rec->frame_packets;
  p->keyframe = rec->keyframe;
  p->marker = rec->marker;
  path->totals.rtx_moved_out++;
  m->path[via].totals.rtx_moved_in++;
  send_on_path (m, (guint) via, p, TRUE);
  return TRUE;
}

/* An RTX packet the path's RTX sender built from its history, numbered by
 * FSSN (the NACK named FSSNs): its wire form, as rtpccsink sends it,
 * carries the original's subflow element and, as OSN, the media seq the
 * sender remembered for that FSSN (rtpcc_mprtp_rtx_osn_to_media). Without
 * that the original cannot be restored: not sent, counted. A repair that
 * another path carries (move_repair) is not sent here either. */
static gboolean
rtx_hook (const guint8 * pkt, gsize len, guint64 index, gpointer user_data)
{
  SimMprtpPath *path = user_data;
  SimMprtp *m = path->m;
  Tag tag = { 0 };
  RtpccRtpLayout l;
  RtpccMprtpSubflow sf = { (guint16) path->index, 0 };
  gsize n = 0;

  if (rtpcc_rtp_parse_layout (pkt, len, &l) && l.payload_len >= 2) {
    sf.fssn = rtpcc_rd16 (pkt + l.header_len);
    n = rtpcc_mprtp_add_subflow (pkt, len, m->config.ext_id, &sf, tag.hdr,
        sizeof tag.hdr);
  }
  if (n == 0 || !rtpcc_mprtp_rtx_osn_to_media (tag.hdr, n, m->config.ext_id,
          path->seqmap)) {
    path->totals.rtx_unmapped++;
    return FALSE;
  }
  tag.len = (guint8) n;
  tag.media_seq = rtpcc_rd16 (tag.hdr + n - 2);
  if (move_repair (m, path, media_index (m, (guint16) tag.media_seq)))
    return FALSE;
  g_assert (index == path->rtx_tags->len);
  g_array_append_val (path->rtx_tags, tag);
  path->totals.rtx_out++;
  m->ext_bytes += n - len;
  return TRUE;
}

/* Feedback from path k's reverse link: to the path's sender, whose new
 * state (and, reports_in_rr, the subflow report it kept) the scheduler
 * then learns; without reports_in_rr a lone MPRTCP report goes to the
 * scheduler directly. */
static void
fb_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  SimMprtpPath *path = ((PathNode *) node)->path;
  SimMprtp *m = path->m;
  RtpccTime now = sim_now (sim);
  RtpccMprtcp mp;
  gsize len = 0;
  const guint8 *d = p->data && p->kind == SIM_PACKET_FEEDBACK ?
      g_bytes_get_data (p->data, &len) : NULL;

  if (d && !m->config.reports_in_rr && rtpcc_mprtcp_find (d, len, &mp)) {
    for (guint i = 0; i < mp.n_reports; i++) {
      guint id = mp.reports[i].subflow_id;
      if (id >= m->config.n_paths || mp.media_ssrc != m->config.ssrc
          || !rtpcc_mprtp_sched_on_report (m->sched, id, now,
              &mp.reports[i]))
        path->totals.mprtcp_rejected++;
      else
        path->totals.mprtcp_in++;
    }
    sim_packet_free (sim, p);
  } else {
    RtpccSender *s = sim_rtpcc_sender_get_sender (path->sender);
    const RtpccSenderStats *st;
    RtpccMprtpFeedbackInfo info;

    sim_node_receive (sim_rtpcc_sender_node (path->sender), sim, p);
    st = rtpcc_sender_get_stats (s, now);
    info.srtt = st->srtt;
    info.queue_delay = st->queue_delay;
    info.progress = st->reported_received > path->last_reported_received;
    info.send_rate = st->send_rate;
    info.receive_rate = st->receive_rate;
    info.reported_received = st->reported_received -
        path->last_reported_received;
    info.reported_lost = st->reported_lost - path->last_reported_lost;
    path->last_reported_received = st->reported_received;
    path->last_reported_lost = st->reported_lost;
    rtpcc_mprtp_sched_on_feedback (m->sched, path->index, now, &info);
    read_target (m, path);
    /* reports_in_rr: the subflow report came in the compound, the
     * sender kept it (as mprtpsched reads it from rtpccsink's stats) */
    if (m->config.reports_in_rr && st->mprtcp_received > path->mprtcp_seen) {
      guint id = st->subflow_report.subflow_id;

      path->mprtcp_seen = st->mprtcp_received;
      if (id >= m->config.n_paths
          || !rtpcc_mprtp_sched_on_report (m->sched, id, now,
              &st->subflow_report))
        path->totals.mprtcp_rejected++;
      else
        path->totals.mprtcp_in++;
    }
  }
  apply_rate (m);
  sched_arm (m);
}

/* ------------------------------------------------------------------------ */
/* Receiver side                                                            */

/* The merge: media seq @media_seq (RTP timestamp @ts) reached the
 * receiver on @path at @now, restored from RTX if @repaired; the first
 * copy counts. */
static void
merge (SimMprtpPath * path, guint64 media_seq, guint16 fssn, guint32 ts,
    RtpccTime now, gboolean repaired)
{
  SimMprtp *m = path->m;
  MediaRec *rec = &g_array_index (m->media, MediaRec, media_seq);
  RtpccTime due, target;

  if (rec->arrival != RTPCC_TIME_NONE)
    return;
  /* judged against the playout point as it stands before it */
  target = MAX (m->config.min_playout, rtpcc_mprtp_skew_get_target (m->skew));
  due = rtpcc_mprtp_skew_due (m->skew, ts, target);
  rec->arrival = now;
  rec->late = due != RTPCC_TIME_NONE && now > due;
  rec->repaired = repaired;
  rtpcc_mprtp_skew_push (m->skew, now, path->index, ts, NULL);
  path->totals.received++;
  if (rec->late) {
    path->totals.late++;
    path->discards++;
    /* as playoutbuffer's discard event reaches rtpccsrc: by FSSN */
    if (m->config.reports_in_rr && multipath (m))
      rtpcc_receiver_mark_discarded (sim_rtpcc_receiver_get_receiver
          (path->receiver), now, m->config.ssrc, fssn, 1);
  }
}

/* RTCP bytes from path's receiver side onto its reverse link, now. */
static void
send_feedback (SimMprtpPath * path, const guint8 * buf, gsize n)
{
  Sim *sim = path->m->sim;
  SimPacket *p = sim_packet_new (sim);

  p->flow = path->flow;
  p->kind = SIM_PACKET_FEEDBACK;
  p->seq = path->mprtcp_seq++;
  p->size = (guint) n;
  p->created = p->sent = sim_now (sim);
  p->data = g_bytes_new (buf, n);
  p->data_free = (GDestroyNotify) g_bytes_unref;
  sim_node_receive (sim_link_node (path->reverse), sim, p);
}

static void rtx_service (SimMprtpPath * path);

static void
rtx_fire (Sim * sim, gpointer user_data)
{
  SimMprtpPath *path = user_data;

  path->rtx_timer = 0;
  path->rtx_timer_at = RTPCC_TIME_NONE;
  rtx_service (path);
}

/* The merge has every media packet from @first to @last (wire seqs), each
 * in time to play: what playoutbuffer answers to rtpccsrc's rtpcc-merged
 * query (rtpcc_playout_has_range). */
static gboolean
merged_range (const SimMprtp * m, guint16 first, guint16 last)
{
  guint n = (guint16) (last - first) + 1u;

  for (guint i = 0; i < n; i++) {
    guint64 idx = media_index (m, (guint16) (first + i));
    const MediaRec *rec;

    if (idx == G_MAXUINT64)
      return FALSE;
    rec = &g_array_index (m->media, MediaRec, idx);
    if (rec->arrival == RTPCC_TIME_NONE || rec->late)
      return FALSE;
  }
  return TRUE;
}

/* As rtpccsrc does before its planner's next request: a loss of this path
 * whose media packet reached the merge by another path (a repair the
 * scheduler moved there) is recovered elsewhere, neither NACKed again nor
 * given up. The media numbers it can be are those between its arrived
 * neighbours on the path (rtpcc_mprtp_seqmap_gap). */
#define MERGED_CHECKS 16
static void
check_merged (SimMprtpPath * path, RtpccTime now)
{
  guint16 lost[MERGED_CHECKS];
  guint n = rtpcc_rtx_receiver_get_missing (path->rtx, lost, MERGED_CHECKS);

  for (guint i = 0; i < n; i++) {
    guint16 first, last;

    if (!rtpcc_mprtp_seqmap_gap (path->rx_seqmap, lost[i], &first, &last))
      continue;
    path->totals.merged_queries++;
    if (merged_range (path->m, first, last)
        && rtpcc_rtx_receiver_recovered_elsewhere (path->rtx, now, lost[i]))
      path->totals.recovered_elsewhere++;
  }
}

/* The path's NACKs (RFC 4585 §6.2.1, naming FSSNs) due now go back on its
 * reverse link at once, on their own (RFC 5506), as rtpccsrc sends them;
 * then the timer for the next. */
static void
rtx_service (SimMprtpPath * path)
{
  SimMprtp *m = path->m;
  RtpccTime now = sim_now (m->sim), at;

  if (rtpcc_rtx_receiver_next_timeout (path->rtx) <= now && m->config.rtx_route)
    check_merged (path, now);
  if (rtpcc_rtx_receiver_next_timeout (path->rtx) <= now) {
    guint8 buf[RTCP_MAX];
    RtpccRtxReceiverStats before, after;
    gsize n;

    rtpcc_rtx_receiver_get_stats (path->rtx, &before);
    n = rtpcc_rtx_receiver_build (path->rtx, now,
        rtpcc_receiver_get_ssrc (sim_rtpcc_receiver_get_receiver
            (path->receiver)), buf, sizeof buf);
    rtpcc_rtx_receiver_get_stats (path->rtx, &after);
    path->totals.nacks_out += after.nacks_sent - before.nacks_sent;
    path->totals.nacked += after.nacked_packets - before.nacked_packets;
    if (n > 0)
      send_feedback (path, buf, n);
  }
  at = rtpcc_rtx_receiver_next_timeout (path->rtx);
  if (at == RTPCC_TIME_INFINITE || at == RTPCC_TIME_NONE) {
    sim_cancel (m->sim, path->rtx_timer);
    path->rtx_timer = 0;
    path->rtx_timer_at = RTPCC_TIME_NONE;
    return;
  }
  /* a timeout still due after a build would fire at once forever */
  at = MAX (at, now + 1);
  if (at == path->rtx_timer_at && sim_timer_pending (m->sim, path->rtx_timer))
    return;
  sim_cancel (m->sim, path->rtx_timer);
  path->rtx_timer_at = at;
  path->rtx_timer = sim_schedule (m->sim, at, rtx_fire, path);
}

/* Repair on the path (config.repair), as rtpccsrc runs it: the packet's
 * wire form, numbered in the path's subflow space by
 * rtpcc_mprtp_repair_view, goes to the path's RTX receiver; an original
 * it restores gets its media seq (the RTX packet's OSN) back and goes to
 * the merge. */
static void
repair_on_rtp (SimMprtpPath * path, const SimPacket * p)
{
  SimMprtp *m = path->m;
  RtpccTime now = sim_now (m->sim);
  const SimRtpHeader *h = p->data;
  const Tag *tag = NULL;
  RtpccRtpInfo wire;
  gsize hl = 0, view_len = 0, out_len = 0;
  guint8 view[TAG_MAX], out[TAG_MAX];
  guint16 media_seq = 0;
  gboolean is_rtx;

  if (!sim_rtp_header_parse (p, &wire, &hl))
    return;
  is_rtx = wire.pt == m->config.rtx_pt;
  if (is_rtx && p->seq < path->rtx_tags->len)
    tag = &g_array_index (path->rtx_tags, Tag, p->seq);
  else if (!is_rtx && p->frame != SIM_NO_FRAME && p->seq < path->tags->len)
    tag = &g_array_index (path->tags, Tag, p->seq);
  if (tag)
    view_len = rtpcc_mprtp_repair_view (tag->hdr, tag->len, m->config.ext_id,
        m->config.rtx_pt, view, sizeof view, &media_seq);
  if (view_len > 0 && is_rtx) {
    RtpccRtpLayout l;
    /* the OSN the path's RTX sender wrote (its FSSN) is the view's */
    if (h->len < hl + 2 || !rtpcc_rtp_parse_layout (view, view_len, &l)
        || rtpcc_rd16 (view + l.header_len) != rtpcc_rd16 (h->data + hl))
      m->wire_errors++;
  }
  /* no subflow element (a probe): as it came, as rtpccsrc does */
  switch (rtpcc_rtx_receiver_on_rtp (path->rtx, now,
          view_len > 0 ? view : h->data, view_len > 0 ? view_len : h->len,
          p->size, out, sizeof out, &out_len)) {
    case RTPCC_RTX_RECEIVER_RESTORED:
      if (view_len > 0 && out_len >= RTP_HEADER) {
        RtpccRtpLayout l;
        guint16 fssn = rtpcc_rd16 (out + 2);
        guint64 last = path->tags->len - 1;
        guint64 idx = last - (guint16) ((guint16) last - fssn);
        const Tag *orig = idx < path->tags->len ?
            &g_array_index (path->tags, Tag, idx) : NULL;

        path->totals.rtx_restored++;
        rtpcc_receiver_mark_repaired (sim_rtpcc_receiver_get_receiver
            (path->receiver), now, rtpcc_rd32 (out + 8), fssn);
        /* downstream merges by the media seq the sender sent as OSN */
        rtpcc_wr16 (out + 2, media_seq);
        if (orig == NULL || !rtpcc_rtp_parse_layout (out, out_len, &l)
            || (guint16) orig->media_seq != media_seq
            || l.ssrc != m->config.ssrc) {
          m->wire_errors++;
          break;
        }
        merge (path, orig->media_seq, fssn, l.timestamp, now, TRUE);
      }
      break;
    case RTPCC_RTX_RECEIVER_PASS:
    case RTPCC_RTX_RECEIVER_DROP:
      break;
  }
  rtx_service (path);
}

static void
rx_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  SimMprtpPath *path = ((PathNode *) node)->path;
  SimMprtp *m = path->m;

  if (p->kind == SIM_PACKET_MEDIA && p->data && p->seq < path->tags->len
      && p->frame != SIM_NO_FRAME) {
    const Tag *tag = &g_array_index (path->tags, Tag, p->seq);
    RtpccRtpInfo wire = { 0, };
    RtpccRtpLayout l;
    /* what the path's sender put on the wire: the subflow seq in the
     * header, the media seq in the extension-tagged original */
    gboolean ok = sim_rtp_header_parse (p, &wire, NULL)
        && rtpcc_rtp_parse_layout (tag->hdr, tag->len, &l)
        && l.seq == (guint16) tag->media_seq && l.ssrc == m->config.ssrc
        && l.timestamp == wire.rtp_ts;

    if (multipath (m)) {
      RtpccMprtpSubflow sf;
      ok = ok && rtpcc_mprtp_read_subflow (tag->hdr, tag->len,
          m->config.ext_id, &sf) && sf.subflow_id == path->index
          && sf.fssn == wire.seq;
    }
    if (!ok)
      m->wire_errors++;

    if (!path->rx_started) {
      rtpcc_rtp_source_init (&path->rx_stats, m->config.ssrc);
      path->rx_stats.min_sequential = 1;
      path->rx_started = TRUE;
    }
    rtpcc_rtp_source_update_seq (&path->rx_stats, wire.seq);
    if (path->rx_seqmap)
      rtpcc_mprtp_seqmap_put (path->rx_seqmap, (guint16) wire.seq,
          (guint16) tag->media_seq);
    merge (path, tag->media_seq, wire.seq, l.timestamp, sim_now (sim),
        tag->moved);
  }
  if (path->rtx && p->kind == SIM_PACKET_MEDIA && p->data)
    repair_on_rtp (path, p);
  sim_node_receive (sim_rtpcc_receiver_node (path->receiver), sim, p);
}

static void
report_fire (Sim * sim, gpointer user_data)
{
  SimMprtpPath *path = user_data;
  SimMprtp *m = path->m;
  RtpccTime now = sim_now (sim);
  RtpccMprtpSubflowReport r = { 0 };

  path->report_timer = sim_schedule (sim, now + m->config.report_interval,
      report_fire, path);
  r.subflow_id = (guint16) path->index;
  r.has_discards = TRUE;
  r.discards = path->discards;
  if (path->rx_started && rtpcc_rtp_source_make_report_block (&path->rx_stats,
          now, 0, RTPCC_TIME_NONE, &r.rr)) {
    guint8 buf[RTCP_MAX];
    gsize n = rtpcc_mprtcp_write (buf, sizeof buf, 0x7ece0000u + path->index,
        m->config.ssrc, &r, 1);

    path->totals.mprtcp_out++;
    path->totals.mprtcp_bytes += n;
    send_feedback (path, buf, n);
  }
}

/* ------------------------------------------------------------------------ */

static void
path_free (SimMprtpPath * p)
{
  if (p->m == NULL)
    return;
  sim_cancel (p->m->sim, p->report_timer);
  sim_cancel (p->m->sim, p->rtx_timer);
  rtpcc_rtx_receiver_free (p->rtx);
  g_free (p->seqmap);
  g_free (p->rx_seqmap);
  if (p->rtx_tags)
    g_array_free (p->rtx_tags, TRUE);
  sim_rtpcc_sender_free (p->sender);
  sim_rtpcc_receiver_free (p->receiver);
  sim_link_free (p->forward);
  sim_link_free (p->reverse);
  sim_tap_free (p->send_tap);
  sim_tap_free (p->recv_tap);
  if (p->tags)
    g_array_free (p->tags, TRUE);
}

void
sim_mprtp_free (SimMprtp * m)
{
  if (m == NULL)
    return;
  sim_cancel (m->sim, m->sched_timer);
  sim_cancel (m->sim, m->poll_timer);
  sim_cancel (m->sim, m->sample_timer);
  sim_source_free (m->source);
  for (guint k = 0; k < m->config.n_paths; k++)
    path_free (&m->path[k]);
  rtpcc_mprtp_sched_free (m->sched);
  rtpcc_mprtp_skew_free (m->skew);
  sim_metrics_free (m->metrics);
  g_array_free (m->media, TRUE);
  g_array_free (m->samples, TRUE);
  g_free (m->controller);
  g_free (m);
}

static gboolean
path_new (SimMprtp * m, guint k, GError ** error)
{
  SimMprtpPath *p = &m->path[k];
  const SimMprtpConfig *c = &m->config;
  SimRtpccFlowConfig fc;
  SimRtpccFeedback fb = c->feedback;

  p->m = m;
  p->index = k;
  p->flow = c->flow_base + k;
  p->tags = g_array_new (FALSE, FALSE, sizeof (Tag));
  p->totals.first_failed_at = RTPCC_TIME_NONE;
  p->rx.node.receive = rx_receive;
  p->rx.node.name = "mprtp-rx";
  p->rx.path = p;
  p->fb.node.receive = fb_receive;
  p->fb.node.name = "mprtp-feedback";
  p->fb.path = p;

  /* the single-path call's flow configuration, on the media's SSRC */
  sim_rtpcc_flow_config_init (&fc, p->flow, m->controller, fb,
      c->seed * 1000 + 10 * k);
  fc.sender.ssrc = c->ssrc;
  fc.sender.sender.cc.min_bitrate = c->min_bitrate;
  fc.sender.sender.cc.max_bitrate = c->max_bitrate;
  fc.sender.sender.cc.start_bitrate = c->start_bitrate;
  fc.sender.sender.circuit_breaker = c->circuit_breaker;
  /* A path sees the marker bit of only the frames whose last packet it
   * carried, so the receiver's adaptive interval (one per frame it sees)
   * would stretch with the number of paths: feedback at the stream's
   * frame interval instead. */
  if (c->n_paths > 1 && c->frames.fps > 0)
    fc.receiver.receiver.feedback_interval =
        (RtpccTime) (RTPCC_SEC (1) / c->frames.fps);
  /* the subflow reports ride in the receiver's RRs (rtpccsrc
   * rtcp-interval) */
  if (c->n_paths > 1 && c->reports_in_rr && c->report_interval > 0)
    fc.receiver.receiver.rtcp_interval = c->report_interval;
  /* Repair runs on the path's subflow space (mprtp/repairseq.h): its
   * sender's RTX history is numbered by FSSN as the rest of its view,
   * the RTX receiver is the path's own, fed here (repair_on_rtp). */
  p->rtx_timer_at = RTPCC_TIME_NONE;
  if (c->repair && c->n_paths > 1) {
    RtpccRtxReceiverConfig rc;

    fc.sender.rtx_pt = c->rtx_pt;
    fc.sender.rtx_hook = rtx_hook;
    fc.sender.rtx_hook_data = p;
    p->seqmap = g_new (RtpccMprtpSeqMap, 1);
    rtpcc_mprtp_seqmap_init (p->seqmap);
    p->rx_seqmap = g_new (RtpccMprtpSeqMap, 1);
    rtpcc_mprtp_seqmap_init (p->rx_seqmap);
    p->rtx_tags = g_array_new (FALSE, FALSE, sizeof (Tag));
    rtpcc_rtx_receiver_config_init (&rc);
    rc.nack = TRUE;
    rc.keyframe = RTPCC_KEYFRAME_REQUEST_PLI;
    rc.rtx_pt = c->rtx_pt;
    rc.repair = c->repair_config;
    p->rtx = rtpcc_rtx_receiver_new (&rc, error);
    if (p->rtx == NULL)
      return FALSE;
  }

  p->reverse = sim_link_new (&c->path[k].reverse, &p->fb.node);
  p->recv_tap = sim_tap_new (m->metrics, SIM_TAP_RECEIVE, &p->rx.node);
  p->forward = sim_link_new (&c->path[k].forward,
      sim_tap_node (p->recv_tap));
  sim_link_set_metrics (p->forward, m->metrics);
  p->send_tap = sim_tap_new (m->metrics, SIM_TAP_SEND,
      sim_link_node (p->forward));
  p->sender = sim_rtpcc_sender_new (m->sim, &fc.sender,
      sim_tap_node (p->send_tap), error);
  if (p->sender == NULL)
    return FALSE;
  p->receiver = sim_rtpcc_receiver_new (m->sim, &fc.receiver,
      sim_link_node (p->reverse));
  if (p->receiver == NULL) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "invalid receiver configuration");
    return FALSE;
  }
  sim_metrics_add_flow (m->metrics, p->flow);
  if (c->n_paths > 1 && c->report_interval > 0 && c->reports_in_rr)
    rtpcc_receiver_set_mprtp_subflow (sim_rtpcc_receiver_get_receiver
        (p->receiver), (guint16) k);
  else if (c->n_paths > 1 && c->report_interval > 0)
    p->report_timer = sim_schedule (m->sim, sim_now (m->sim) +
        c->report_interval + (RtpccTime) k * RTPCC_MSEC (7), report_fire, p);
  return TRUE;
}

SimMprtp *
sim_mprtp_new (Sim * sim, const SimMprtpConfig * config, GError ** error)
{
  SimMprtp *m;
  SimFrameConfig fc;

  if (config->n_paths == 0 || config->n_paths > RTPCC_MPRTP_MAX_PATHS
      || config->controller == NULL) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "sim-mprtp: 1..%u paths and a controller", RTPCC_MPRTP_MAX_PATHS);
    return NULL;
  }
  m = g_new0 (SimMprtp, 1);
  m->sim = sim;
  m->config = *config;
  /* constant-rate media is the scheduler's requirement */
  if (m->config.cbr_bps && m->config.sched.media_max == 0)
    m->config.sched.media_max = m->config.cbr_bps;
  m->controller = g_strdup (config->controller);
  m->config.controller = m->controller;
  /* the caller's capacities stay the caller's: the links take their refs */
  m->media = g_array_new (FALSE, TRUE, sizeof (MediaRec));
  m->samples = g_array_new (FALSE, FALSE, sizeof (SimMprtpSample));
  m->metrics = sim_metrics_new (0, RTPCC_MSEC (200));
  m->tx.node.receive = tx_receive;
  m->tx.node.name = "mprtp-tx";
  m->tx.path = &m->path[0];
  m->sched_timer_at = RTPCC_TIME_NONE;
  m->sched = rtpcc_mprtp_sched_new (&m->config.sched, config->n_paths,
      sim_now (sim), error);
  m->skew = rtpcc_mprtp_skew_new (&config->skew);
  if (m->sched == NULL || m->skew == NULL) {
    if (m->skew == NULL)
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
          "sim-mprtp: invalid skew configuration");
    sim_mprtp_free (m);
    return NULL;
  }
  for (guint k = 0; k < config->n_paths; k++) {
    if (!path_new (m, k, error)) {
      sim_mprtp_free (m);
      return NULL;
    }
  }

  fc = config->frames;
  fc.target_bps = 0;
  /* the source is path 0's flow, as a single-path call's would be */
  fc.flow = config->flow_base;
  m->source = sim_frame_source_new (sim, &fc, &m->tx.node);
  if (m->source == NULL) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "sim-mprtp: invalid frame source configuration");
    sim_mprtp_free (m);
    return NULL;
  }
  if (multipath (m)) {
    for (guint k = 0; k < config->n_paths; k++)
      read_target (m, &m->path[k]);
    apply_rate (m);
    m->poll_timer = sim_schedule (sim, sim_now (sim) + config->poll,
        poll_fire, m);
  } else {
    /* a single-path call: its sender drives the source, as in sim-rtpcc */
    sim_rtpcc_sender_set_source (m->path[0].sender, m->source);
    sim_source_set_next (m->source, &m->tx.node);
  }
  m->sample_timer = sim_schedule (sim, sim_now (sim), sample_fire, m);
  return m;
}

void
sim_mprtp_set_via (SimMprtp * m, guint k, SimNode * via)
{
  g_return_if_fail (k < m->config.n_paths);
  sim_link_set_next (m->path[k].forward, via);
}

SimNode *
sim_mprtp_path_entry (SimMprtp * m, guint k)
{
  g_return_val_if_fail (k < m->config.n_paths, NULL);
  return sim_tap_node (m->path[k].recv_tap);
}

guint
sim_mprtp_path_flow (SimMprtp * m, guint k)
{
  return m->path[k].flow;
}

SimLink *
sim_mprtp_forward_link (SimMprtp * m, guint k)
{
  return m->path[k].forward;
}

SimLink *
sim_mprtp_reverse_link (SimMprtp * m, guint k)
{
  return m->path[k].reverse;
}

SimRtpccSender *
sim_mprtp_path_sender (SimMprtp * m, guint k)
{
  return m->path[k].sender;
}

SimRtpccReceiver *
sim_mprtp_path_receiver (SimMprtp * m, guint k)
{
  return m->path[k].receiver;
}

RtpccMprtpSched *
sim_mprtp_get_sched (SimMprtp * m)
{
  return m->sched;
}

RtpccMprtpSkew *
sim_mprtp_get_skew (SimMprtp * m)
{
  return m->skew;
}

SimMetrics *
sim_mprtp_get_metrics (SimMprtp * m)
{
  return m->metrics;
}

const SimMprtpSample *
sim_mprtp_get_samples (SimMprtp * m, guint * n)
{
  if (n)
    *n = m->samples->len;
  return (const SimMprtpSample *) m->samples->data;
}

/* ------------------------------------------------------------------------ */
/* Results                                                                  */

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

static gdouble
nearest_rank (GArray * v, gdouble q)
{
  guint rank;

  if (v->len == 0)
    return NAN;
  g_array_sort (v, cmp_double);
  rank = (guint) ceil (q * v->len);
  return g_array_index (v, gdouble, CLAMP (rank, 1, v->len) - 1);
}

void
sim_mprtp_collect (SimMprtp * m, RtpccTime t0, RtpccTime t1,
    SimMprtpResult * r)
{
  GArray *owd = g_array_new (FALSE, FALSE, sizeof (gdouble));
  guint64 bytes = 0, nsamples = 0, shared = 0;
  gdouble enc = 0.0, target = 0.0, secs = RTPCC_TIME_AS_SEC (t1 - t0);
  RtpccTime last_playable = RTPCC_TIME_NONE, gap = 0;
  gdouble repaired_owd = 0;
  guint64 path_bytes[RTPCC_MPRTP_MAX_PATHS] = { 0 };

  memset (r, 0, sizeof (*r));
  r->t0 = t0;
  r->t1 = t1;
  for (guint i = 0; i < m->media->len;) {
    const MediaRec *first = &g_array_index (m->media, MediaRec, i);
    guint n = MAX (first->frame_packets, 1);
    gboolean playable = TRUE;

    /* one frame: its packets are consecutive in media seq */
    for (guint j = i; j < i + n && j < m->media->len; j++) {
      const MediaRec *rec = &g_array_index (m->media, MediaRec, j);

      if (rec->created < t0 || rec->created >= t1) {
        playable = FALSE;
        continue;
      }
      r->media_packets++;
      bytes += rec->size;
      path_bytes[rec->path] += rec->size;
      if (rec->arrival == RTPCC_TIME_NONE) {
        r->lost++;
        playable = FALSE;
        continue;
      }
      r->received++;
      r->repaired += rec->repaired;
      if (rec->repaired)
        repaired_owd += RTPCC_TIME_AS_MSEC (rec->arrival - rec->created);
      if (rec->late) {
        r->late++;
        playable = FALSE;
      }
      {
        gdouble d = RTPCC_TIME_AS_MSEC (rec->arrival - rec->created);
        g_array_append_val (owd, d);
      }
    }
    if (first->created >= t0 && first->created < t1) {
      r->frames++;
      if (playable) {
        r->frames_playable++;
        if (last_playable != RTPCC_TIME_NONE)
          gap = MAX (gap, first->created - last_playable);
        last_playable = first->created;
      }
    }
    i += n;
  }
  if (r->media_packets) {
    r->residual_loss_pct = 100.0 * (r->lost + r->late) / r->media_packets;
    r->network_loss_pct = 100.0 * r->lost / r->media_packets;
    r->late_pct = 100.0 * r->late / r->media_packets;
    r->raw_loss_pct = 100.0 * (r->lost + r->repaired) / r->media_packets;
  }
  r->repaired_owd_mean_ms = r->repaired ? repaired_owd / r->repaired : NAN;
  r->repair = m->config.repair && multipath (m);
  r->media_kbps = bytes * 8.0 / 1000.0 / secs;
  r->owd_p50_ms = nearest_rank (owd, 0.50);
  r->owd_p95_ms = nearest_rank (owd, 0.95);
  r->owd_max_ms = owd->len ? g_array_index (owd, gdouble, owd->len - 1) :
      NAN;
  r->max_gap_ms = RTPCC_TIME_AS_MSEC (gap);
  g_array_free (owd, TRUE);

  for (guint i = 0; i < m->samples->len; i++) {
    const SimMprtpSample *s = &g_array_index (m->samples, SimMprtpSample, i);
    if (s->time < t0 || s->time >= t1)
      continue;
    enc += s->encoder_bps;
    target += RTPCC_TIME_AS_MSEC (s->playout_target);
    shared += s->shared;
    nsamples++;
  }
  r->encoder_kbps = nsamples ? enc / nsamples / 1000.0 : NAN;
  r->playout_target_mean_ms = nsamples ? target / nsamples : NAN;
  r->shared_fraction = nsamples ? (gdouble) shared / nsamples : NAN;

  /* overheads over the whole run so far (they accrue at a steady rate) */
  {
    guint64 mprtcp = 0, mprtcp_n = 0;
    gdouble run = RTPCC_TIME_AS_SEC (sim_now (m->sim));

    for (guint k = 0; k < m->config.n_paths; k++) {
      RtpccMprtpPathInfo info;

      r->path[k] = m->path[k].totals;
      if (m->config.reports_in_rr && multipath (m)) {
        /* in the RR compounds: what the receiver wrote, at the size of
         * one report with discards each, no datagram of their own */
        RtpccMprtpSubflowReport one = { 0 };
        guint8 buf[RTCP_MAX];
        guint64 n = rtpcc_receiver_get_stats (sim_rtpcc_receiver_get_receiver
            (m->path[k].receiver), sim_now (m->sim))->mprtcp_sent;

        one.has_discards = TRUE;
        r->path[k].mprtcp_out = n;
        r->path[k].mprtcp_bytes = n *
            rtpcc_mprtcp_write (buf, sizeof buf, 0, 0, &one, 1);
      }
      rtpcc_mprtp_sched_get_path (m->sched, k, &info);
      r->path[k].failures = info.failures;
      r->path[k].collapses = info.collapses;
      {
        const RtpccSenderStats *st =
            rtpcc_sender_get_stats (sim_rtpcc_sender_get_sender (m->path[k].
                sender), sim_now (m->sim));
        r->path[k].pacer_drops = st->pacer_drops;
        r->path[k].breaker_drops = st->breaker_drops;
      }
      r->path_kbps[k] = path_bytes[k] * 8.0 / 1000.0 / secs;
      mprtcp += r->path[k].mprtcp_bytes;
      mprtcp_n += r->path[k].mprtcp_out;
    }
    if (run > 0) {
      r->ext_kbps = m->ext_bytes * 8.0 / 1000.0 / run;
      r->mprtcp_kbps = mprtcp * 8.0 / 1000.0 / run;
      r->mprtcp_ip_kbps = (mprtcp + (m->config.reports_in_rr ? 0 : IP_UDP *
              mprtcp_n)) * 8.0 / 1000.0 / run;
    }
  }
  r->wire_errors = m->wire_errors;
  r->probe_packets = m->probe_packets;
  if (sim_now (m->sim) > 0)
    r->probe_kbps = m->probe_bytes * 8.0 / 1000.0 /
        RTPCC_TIME_AS_SEC (sim_now (m->sim));
}

void
sim_mprtp_result_format (const SimMprtpResult * r, guint n_paths,
    const gchar * prefix, GString * out)
{
  g_string_append_printf (out, "%smedia %.0f kbit/s (encoder %.0f), "
      "packets %" G_GUINT64_FORMAT ", residual loss %.3f %% (network %.3f, "
      "late %.3f)\n", prefix, r->media_kbps, r->encoder_kbps,
      r->media_packets, r->residual_loss_pct, r->network_loss_pct,
      r->late_pct);
  g_string_append_printf (out, "%sone-way p50 %.1f p95 %.1f max %.1f ms, "
      "playout target %.1f ms, frames %" G_GUINT64_FORMAT "/%"
      G_GUINT64_FORMAT " playable, longest gap %.0f ms\n", prefix,
      r->owd_p50_ms, r->owd_p95_ms, r->owd_max_ms, r->playout_target_mean_ms,
      r->frames_playable, r->frames, r->max_gap_ms);
  g_string_append_printf (out, "%soverhead: extension %.3f kbit/s, subflow "
      "reports %.3f kbit/s (%.3f with IP/UDP), wire errors %" G_GUINT64_FORMAT
      ", grouped %.2f\n", prefix, r->ext_kbps, r->mprtcp_kbps,
      r->mprtcp_ip_kbps, r->wire_errors, r->shared_fraction);
  if (r->repair)
    g_string_append_printf (out, "%srepair: raw loss %.3f %%, %"
        G_GUINT64_FORMAT " repaired\n", prefix, r->raw_loss_pct,
        r->repaired);
  for (guint k = 0; k < n_paths; k++) {
    if (r->repair)
      g_string_append_printf (out, "%s  path %u repair: %" G_GUINT64_FORMAT
          " NACKs (%" G_GUINT64_FORMAT " FSSNs), %" G_GUINT64_FORMAT
          " RTX (%" G_GUINT64_FORMAT " unmapped), %" G_GUINT64_FORMAT
          " restored; repairs moved out %" G_GUINT64_FORMAT " in %"
          G_GUINT64_FORMAT ", recovered elsewhere %" G_GUINT64_FORMAT
          " (%" G_GUINT64_FORMAT " checks)\n", prefix, k,
          r->path[k].nacks_out, r->path[k].nacked, r->path[k].rtx_out,
          r->path[k].rtx_unmapped, r->path[k].rtx_restored,
          r->path[k].rtx_moved_out, r->path[k].rtx_moved_in,
          r->path[k].recovered_elsewhere, r->path[k].merged_queries);
    g_string_append_printf (out, "%s  path %u: %.0f kbit/s, %" G_GUINT64_FORMAT
        " packets, %" G_GUINT64_FORMAT " late, %u failures, %u collapses, "
        "drops %" G_GUINT64_FORMAT "+%" G_GUINT64_FORMAT ", reports %"
        G_GUINT64_FORMAT " out %" G_GUINT64_FORMAT " in\n", prefix, k,
        r->path_kbps[k], r->path[k].packets, r->path[k].late,
        r->path[k].failures, r->path[k].collapses, r->path[k].pacer_drops,
        r->path[k].breaker_drops, r->path[k].mprtcp_out, r->path[k].mprtcp_in);
  }
}

/* Closed-loop endpoints: RtpccSender / RtpccReceiver as simulator nodes,
 * the shared-bottleneck net they plug into, and the RFC 8867/8868 metrics.
 *
 * Timers. The library owns no timer: after every input the sender node asks
 * rtpcc_sender_next_timeout() and the receiver node
 * rtpcc_receiver_next_feedback_time(), and (re)arms one cancellable SimTimer
 * each. A wake-up that is still due after a full service round (the library
 * cannot make progress now) would spin at one instant forever; the node
 * instead retries STALL_RETRY later and counts a stall, so such a case shows
 * up in the counters (the tests assert none) instead of hanging the run.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-rtpcc.h"

#include <rtpcc/encoderrate.h>

#include <math.h>
#include <string.h>

#define STALL_RETRY RTPCC_MSEC (1)
#define SERVICE_ROUNDS 4
#define RTCP_MAX 1472           /* a 1500-byte IPv4 MTU minus IP/UDP */
#define RTP_HEADER 12
#define CONVERGE_FRACTION 0.8
#define CONVERGE_ROWS 5         /* 1 s of 200 ms rows */

/* ======================================================================== */
/* Sender                                                                   */

typedef struct
{
  RtpccTime at;                 /* dequeued */
  RtpccTime wait;
} SenderWait;

struct _SimRtpccSender
{
  SimNode node;
  Sim *sim;
  SimRtpccSenderConfig config;
  gchar *controller;
  gchar *cname;
  RtpccSender *sender;
  SimNode *forward;
  SimSource *source;
  SimTimer timer;
  RtpccTime timer_at;
  guint64 generation;
  guint64 rtcp_seq;
  GArray *targets;              /* SimRtpccTargetChange */
  GArray *waits;                /* SenderWait, by dequeue time */
  SimRtpccSenderCounters counters;
  RtpccTime first_feedback;
  RtpccRtxSender *rtx;          /* NULL: rtx_pt 0 */
  guint32 *wire_size;           /* by media wire seq: the packet's size */
  /* config.encoder_hysteresis: what rtpccsink's encoder control applies */
  RtpccEncoderHysteresis hysteresis;
  SimTimer hysteresis_timer;    /* a held-back increase falls due */
};

static void
rtp_handle_free (gpointer handle)
{
  SimPacket *p = handle;
  SimRtpHeader *h = p->data;

  sim_packet_free (h->sim, p);
}

static SimRtpHeader *
rtp_header_new (Sim * sim, RtpccTime enqueued, const guint8 * data, gsize len)
{
  SimRtpHeader *h = g_malloc (sizeof (SimRtpHeader) + len);

  h->sim = sim;
  h->enqueued = enqueued;
  h->len = len;
  memcpy (h->data, data, len);
  return h;
}

/* @p's payload becomes @h */
static void
set_rtp_header (SimPacket * p, SimRtpHeader * h)
{
  if (p->data && p->data_free)
    p->data_free (p->data);
  p->data = h;
  p->data_free = g_free;
}

gboolean
sim_rtp_header_parse (const SimPacket * p, RtpccRtpInfo * info,
    gsize * header_len)
{
  const SimRtpHeader *h = p->data;

  return p->kind == SIM_PACKET_MEDIA && h && rtpcc_rtp_parse (h->data,
      h->len, p->size, SIM_RTPCC_TWCC_EXT_ID, info, header_len);
}

static void
send_rtcp_packet (Sim * sim, SimNode * to, guint flow, guint64 seq,
    const guint8 * buf, gsize n)
{
  SimPacket *p = sim_packet_new (sim);

  p->flow = flow;
  p->kind = SIM_PACKET_FEEDBACK;
  p->seq = seq;
  p->size = (guint) n;
  p->created = p->sent = sim_now (sim);
  p->data = g_bytes_new (buf, n);
  p->data_free = (GDestroyNotify) g_bytes_unref;
  sim_node_receive (to, sim, p);
}

static void sender_set_source_rate (SimRtpccSender * s, guint64 bps);

static void
hysteresis_due (Sim * sim, gpointer user_data)
{
  SimRtpccSender *s = user_data;

  s->hysteresis_timer = 0;
  sender_set_source_rate (s, rtpcc_sender_get_target (s->sender)->
      media_bitrate);
}

/* The source's rate: the target at once, or (config.encoder_hysteresis)
 * through the same hysteresis rtpccsink puts between the target and the
 * encoder, with its retry of a held-back increase. */
static void
sender_set_source_rate (SimRtpccSender * s, guint64 bps)
{
  RtpccTime now = sim_now (s->sim), due;

  if (!s->source)
    return;
  if (!s->config.encoder_hysteresis) {
    sim_source_set_rate (s->source, bps);
    return;
  }
  sim_cancel (s->sim, s->hysteresis_timer);
  s->hysteresis_timer = 0;
  if (rtpcc_encoder_hysteresis_update (&s->hysteresis, now, bps)) {
    sim_source_set_rate (s->source, bps);
    return;
  }
  due = rtpcc_encoder_hysteresis_retry_at (&s->hysteresis, now, bps);
  if (due != RTPCC_TIME_NONE)
    s->hysteresis_timer = sim_schedule (s->sim, due, hysteresis_due, s);
}

static void
sender_check_target (SimRtpccSender * s)
{
  const RtpccTarget *t;
  guint64 gen = rtpcc_sender_get_generation (s->sender);
  SimRtpccTargetChange *last;

  if (gen == s->generation)
    return;
  s->generation = gen;
  s->counters.generations++;
  t = rtpcc_sender_get_target (s->sender);
  last = s->targets->len ? &g_array_index (s->targets, SimRtpccTargetChange,
      s->targets->len - 1) : NULL;
  if (!last || last->target_bitrate != t->target_bitrate
      || last->media_bitrate != t->media_bitrate
      || g_strcmp0 (last->state, t->state) != 0) {
    SimRtpccTargetChange c;
    c.time = sim_now (s->sim);
    c.target_bitrate = t->target_bitrate;
    c.media_bitrate = t->media_bitrate;
    c.pacing_rate = t->pacing_rate;
    c.cwnd = t->cwnd;
    c.state = t->state;
    c.reason = t->reason;
    if (last && last->time == c.time)
      *last = c;                /* several changes at one instant: the last */
    else
      g_array_append_val (s->targets, c);
  }
  sender_set_source_rate (s, t->media_bitrate);
}

static void sender_wakeup (Sim * sim, gpointer user_data);

static void
sender_arm (SimRtpccSender * s, RtpccTime at)
{
  if (at != RTPCC_TIME_NONE && s->timer_at == at
      && sim_timer_pending (s->sim, s->timer))
    return;
  sim_cancel (s->sim, s->timer);
  s->timer = 0;
  s->timer_at = at;
  if (at != RTPCC_TIME_NONE)
    s->timer = sim_schedule (s->sim, at, sender_wakeup, s);
}

/* Everything due at now: timers, the pacer, an SR; then re-arm. */
static void
sender_service (SimRtpccSender * s)
{
  Sim *sim = s->sim;
  RtpccTime now = sim_now (sim);
  guint8 buf[RTCP_MAX];

  for (guint round = 0; round < SERVICE_ROUNDS; round++) {
    RtpccWirePacket wp;
    gpointer handle;
    gsize n;
    RtpccTime t;

    rtpcc_sender_tick (s->sender, now);
    sender_check_target (s);
    while ((handle = rtpcc_sender_dequeue (s->sender, now, &wp))) {
      SimPacket *p = handle;
      SimRtpHeader *h = p->data;
      SenderWait w = { now, now - h->enqueued };
      /* on the wire: the header the sender wrote, then the rest of the
       * packet as queued (virtual here, but for the bytes we have: an
       * RTX packet's OSN) */
      if (h->len > wp.tail_offset) {
        gsize extra = h->len - wp.tail_offset;
        guint8 *bytes = g_malloc (wp.head_len + extra);
        memcpy (bytes, wp.head, wp.head_len);
        memcpy (bytes + wp.head_len, h->data + wp.tail_offset, extra);
        set_rtp_header (p, rtp_header_new (sim, h->enqueued, bytes,
                wp.head_len + extra));
        g_free (bytes);
      } else {
        set_rtp_header (p, rtp_header_new (sim, h->enqueued, wp.head,
                wp.head_len));
      }
      p->size = (guint) wp.size;
      p->sent = now;
      if (s->rtx) {
        RtpccRtpInfo wi;
        if (rtpcc_rtp_parse (wp.head, wp.head_len, wp.size, 0, &wi, NULL)
            && wi.ssrc != rtpcc_rtx_sender_get_rtx_ssrc (s->rtx)) {
          rtpcc_rtx_sender_on_sent (s->rtx, now, wp.head, wp.head_len,
              wp.size);
          s->wire_size[wi.seq] = (guint32) wp.size;
        }
      }
      g_array_append_val (s->waits, w);
      s->counters.media_out++;
      sim_node_receive (s->forward, sim, p);
    }
    /* probe packets the controller asked for (padding-only RTP, whole):
     * carried like media so links, taps and the receiver see them, with
     * no frame */
    while (rtpcc_sender_dequeue_probe (s->sender, now, &wp)) {
      SimPacket *p = sim_packet_new (sim);
      p->flow = s->config.flow;
      p->kind = SIM_PACKET_MEDIA;
      p->seq = s->counters.probe_out++;
      p->size = (guint) wp.size;
      p->created = p->sent = now;
      p->frame = SIM_NO_FRAME;
      set_rtp_header (p, rtp_header_new (sim, now, wp.head, wp.head_len));
      sim_node_receive (s->forward, sim, p);
    }
    sender_check_target (s);
    n = rtpcc_sender_build_rtcp (s->sender, now, buf, sizeof buf);
    if (n > 0) {
      s->counters.rtcp_out++;
      s->counters.rtcp_bytes_out += n;
      send_rtcp_packet (sim, s->forward, s->config.flow, s->rtcp_seq++,
          buf, n);
    }
    t = rtpcc_sender_next_timeout (s->sender, now);
    if (t == RTPCC_TIME_NONE || t > now) {
      sender_arm (s, t);
      return;
    }
  }
  if (s->counters.media_in == 0) {
    /* Before the first packet there is nothing to send and no SR to build;
     * library versions before the next_timeout() fix still reported the SR
     * timer (set at creation) as due. Not a stall: wait for media, keeping
     * the controller's own timer. */
    RtpccTime ct = rtpcc_sender_get_controller (s->sender)->next_tick;
    sender_arm (s, ct != RTPCC_TIME_NONE && ct > now ? ct : RTPCC_TIME_NONE);
    return;
  }
  s->counters.stalls++;
  sender_arm (s, now + STALL_RETRY);
}

static void
sender_wakeup (Sim * sim, gpointer user_data)
{
  SimRtpccSender *s = user_data;

  s->timer = 0;
  s->timer_at = RTPCC_TIME_NONE;
  s->counters.wakeups++;
  sender_service (s);
}

/* A parity packet (whole, sim-fec.h): queued like media after what it
 * protects, no frame (as probes). */
static void
queue_parity (const guint8 * pkt, gsize len, gpointer user_data)
{
  SimRtpccSender *s = user_data;
  Sim *sim = s->sim;
  RtpccTime now = sim_now (sim);
  SimPacket *p = sim_packet_new (sim);
  SimRtpHeader *h;

  p->flow = s->config.flow;
  p->kind = SIM_PACKET_MEDIA;
  p->seq = s->counters.fec_out++;
  p->created = now;
  p->frame = SIM_NO_FRAME;
  p->size = (guint) len;
  h = rtp_header_new (sim, now, pkt, len);
  set_rtp_header (p, h);
  rtpcc_sender_enqueue_rtp (s->sender, now, h->data, h->len, p->size, p);
}

/* An RTX packet (header + OSN, the payload virtual): queued like media,
 * sized as its original + 2, no frame (as probes). */
static void
queue_rtx (const guint8 * pkt, gsize len, gpointer user_data)
{
  SimRtpccSender *s = user_data;
  Sim *sim = s->sim;
  RtpccTime now = sim_now (sim);
  SimPacket *p;
  gsize hl = 0;
  RtpccRtpInfo info;
  SimRtpHeader *h;

  if (!rtpcc_rtp_parse (pkt, len, len, 0, &info, &hl) || len < hl + 2)
    return;
  if (s->config.rtx_hook && !s->config.rtx_hook (pkt, len,
          s->counters.rtx_out, s->config.rtx_hook_data)) {
    s->counters.rtx_refused++;
    return;
  }
  p = sim_packet_new (sim);
  p->flow = s->config.flow;
  p->kind = SIM_PACKET_MEDIA;
  p->seq = s->counters.rtx_out++;
  p->created = now;
  p->frame = SIM_NO_FRAME;
  p->size = MAX ((guint) len, s->wire_size[(pkt[hl] << 8) | pkt[hl + 1]] +
      RTPCC_RTX_OSN_SIZE);
  h = rtp_header_new (sim, now, pkt, len);
  set_rtp_header (p, h);
  rtpcc_sender_enqueue_rtp (s->sender, now, h->data, h->len, p->size, p);
}

static void
sender_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  SimRtpccSender *s = (SimRtpccSender *) node;
  RtpccTime now = sim_now (sim);

  if (p->kind == SIM_PACKET_MEDIA) {
    RtpccRtpInfo info = { 0, };
    guint8 hdr[RTPCC_RTP_HEADER_MIN];
    SimRtpHeader *h;
    guint64 index = p->seq, frame = p->frame;
    gsize size;

    g_warn_if_fail (p->data == NULL);
    /* the packet as a payloader makes it: a 12-byte header, and a payload
     * that is only a length */
    info.ssrc = s->config.ssrc;
    info.seq = (guint16) (s->config.initial_seq + p->seq);
    /* 90 kHz media clock from the frame's capture time */
    info.rtp_ts = s->config.initial_rtp_ts +
        (guint32) ((guint64) (p->created * 9) / 100000);
    info.pt = s->config.pt;
    info.marker = p->marker;
    rtpcc_rtp_write_header (&info, hdr, sizeof hdr);
    h = rtp_header_new (sim, now, hdr, sizeof hdr);
    set_rtp_header (p, h);
    s->counters.media_in++;
    size = MAX (p->size, h->len);
    rtpcc_sender_enqueue_rtp (s->sender, now, h->data, h->len, size, p);
    if (s->config.fec) {
      const RtpccTarget *t = rtpcc_sender_get_target (s->sender);
      sim_fec_media_sent (s->config.fec, now, index, frame, hdr, sizeof hdr,
          size, t->media_bitrate, t->fec_bitrate,
          rtpcc_sender_get_fec_interval (s->sender), queue_parity, s);
    }
  } else if (p->kind == SIM_PACKET_FEEDBACK && p->data) {
    gsize len;
    const guint8 *d = g_bytes_get_data (p->data, &len);

    s->counters.feedback_in++;
    if (!rtpcc_sender_receive_rtcp (s->sender, now, d, len))
      s->counters.feedback_rejected++;
    if (s->rtx)
      rtpcc_rtx_sender_on_rtcp (s->rtx, now, d, len,
          rtpcc_sender_get_stats (s->sender, now)->srtt, 0, queue_rtx, s,
          NULL);
    if (s->first_feedback == RTPCC_TIME_NONE
        && rtpcc_sender_has_feedback (s->sender))
      s->first_feedback = now;
    sim_packet_free (sim, p);
  } else {
    sim_packet_free (sim, p);
  }
  sender_service (s);
}

gboolean
sim_rtpcc_sender_transport_feedback (SimRtpccSender * s,
    const RtpccTransportPacket * pkts, guint n)
{
  gboolean ok = rtpcc_sender_transport_feedback (s->sender, sim_now (s->sim),
      pkts, n);

  s->counters.feedback_in++;
  if (!ok)
    s->counters.feedback_rejected++;
  if (s->first_feedback == RTPCC_TIME_NONE
      && rtpcc_sender_has_feedback (s->sender))
    s->first_feedback = sim_now (s->sim);
  sender_service (s);
  return ok;
}

void
sim_rtpcc_sender_config_init (SimRtpccSenderConfig * config)
{
  memset (config, 0, sizeof (*config));
  rtpcc_sender_config_init (&config->sender);
  config->sender.clock_rate = 90000;
  config->sender.twcc_ext_id = SIM_RTPCC_TWCC_EXT_ID;
  config->pt = 96;
}

SimRtpccSender *
sim_rtpcc_sender_new (Sim * sim, const SimRtpccSenderConfig * config,
    SimNode * forward, GError ** error)
{
  SimRtpccSender *s = g_new0 (SimRtpccSender, 1);
  RtpccSenderConfig sc;

  s->node.receive = sender_receive;
  s->node.name = "rtpcc-sender";
  s->sim = sim;
  s->config = *config;
  rtpcc_encoder_hysteresis_init (&s->hysteresis);
  if (s->config.ssrc == 0)
    s->config.ssrc = 0x5eed0000u + config->flow;
  /* own the strings the config points to */
  s->controller = g_strdup (config->sender.controller);
  s->cname = g_strdup (config->sender.cname);
  s->config.sender.controller = s->controller;
  s->config.sender.cname = s->cname;
  sc = s->config.sender;
  if (sc.rtcp_ssrc == 0)
    sc.rtcp_ssrc = s->config.ssrc;
  if (config->fec)
    sc.fec_pt = sim_fec_get_pt (config->fec);
  s->sender = rtpcc_sender_new (&sc, sim_now (sim), error);
  if (!s->sender) {
    g_free (s->controller);
    g_free (s->cname);
    g_free (s);
    return NULL;
  }
  rtpcc_sender_set_free_func (s->sender, rtp_handle_free);
  if (config->rtx_pt != 0) {
    RtpccRtxSenderConfig rc;
    rtpcc_rtx_sender_config_init (&rc);
    rc.rtx_pt = config->rtx_pt;
    rc.seed = config->sender.seed;
    s->rtx = rtpcc_rtx_sender_new (&rc);
    rtpcc_sender_set_urgent_ssrc (s->sender,
        rtpcc_rtx_sender_get_rtx_ssrc (s->rtx));
    /* as rtpccsink with rtx-payload-type */
    rtpcc_sender_set_nack (s->sender, TRUE);
    s->wire_size = g_new0 (guint32, 65536);
  }
  s->forward = forward;
  s->timer_at = RTPCC_TIME_NONE;
  s->first_feedback = RTPCC_TIME_NONE;
  s->generation = G_MAXUINT64;
  s->targets = g_array_new (FALSE, FALSE, sizeof (SimRtpccTargetChange));
  s->waits = g_array_new (FALSE, FALSE, sizeof (SenderWait));
  sender_check_target (s);
  sender_service (s);
  return s;
}

void
sim_rtpcc_sender_free (SimRtpccSender * s)
{
  if (!s)
    return;
  sim_cancel (s->sim, s->timer);
  sim_cancel (s->sim, s->hysteresis_timer);
  rtpcc_sender_free (s->sender);
  rtpcc_rtx_sender_free (s->rtx);
  g_free (s->wire_size);
  g_array_free (s->targets, TRUE);
  g_array_free (s->waits, TRUE);
  g_free (s->controller);
  g_free (s->cname);
  g_free (s);
}

SimNode *
sim_rtpcc_sender_node (SimRtpccSender * s)
{
  return &s->node;
}

void
sim_rtpcc_sender_set_forward (SimRtpccSender * s, SimNode * forward)
{
  s->forward = forward;
}

void
sim_rtpcc_sender_set_source (SimRtpccSender * s, SimSource * src)
{
  s->source = src;
  /* a new encoder: nothing applied to it yet (as rtpccsink on a new one) */
  rtpcc_encoder_hysteresis_init (&s->hysteresis);
  if (src) {
    sim_source_set_next (src, &s->node);
    sender_set_source_rate (s, rtpcc_sender_get_target (s->sender)->
        media_bitrate);
  }
}

RtpccSender *
sim_rtpcc_sender_get_sender (SimRtpccSender * s)
{
  return s->sender;
}

const SimRtpccSenderCounters *
sim_rtpcc_sender_get_counters (SimRtpccSender * s)
{
  return &s->counters;
}

const SimRtpccTargetChange *
sim_rtpcc_sender_get_target_log (SimRtpccSender * s, guint * n)
{
  if (n)
    *n = s->targets->len;
  return (const SimRtpccTargetChange *) s->targets->data;
}

/* index of the last change at or before @t, -1 if none */
static gint
target_index (SimRtpccSender * s, RtpccTime t)
{
  gint lo = 0, hi = (gint) s->targets->len - 1, found = -1;

  while (lo <= hi) {
    gint mid = (lo + hi) / 2;
    if (g_array_index (s->targets, SimRtpccTargetChange, mid).time <= t) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

guint64
sim_rtpcc_sender_target_at (SimRtpccSender * s, RtpccTime t)
{
  gint i = target_index (s, t);

  if (i < 0)
    i = 0;
  return s->targets->len ? g_array_index (s->targets, SimRtpccTargetChange,
      i).target_bitrate : 0;
}

static gint
cmp_time (gconstpointer a, gconstpointer b)
{
  RtpccTime x = *(const RtpccTime *) a, y = *(const RtpccTime *) b;
  return x < y ? -1 : x > y;
}

guint
sim_rtpcc_sender_delay_stats (SimRtpccSender * s, RtpccTime t0, RtpccTime t1,
    gdouble * mean_ms, gdouble * p95_ms, gdouble * max_ms)
{
  const SenderWait *w = (const SenderWait *) s->waits->data;
  guint lo = 0, hi = s->waits->len, n;
  GArray *v;
  RtpccTime sum = 0;

  /* first record at or after t0 (records are in dequeue order) */
  while (lo < hi) {
    guint mid = (lo + hi) / 2;
    if (w[mid].at < t0)
      lo = mid + 1;
    else
      hi = mid;
  }
  v = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  for (guint i = lo; i < s->waits->len && w[i].at < t1; i++) {
    g_array_append_val (v, w[i].wait);
    sum += w[i].wait;
  }
  n = v->len;
  if (mean_ms)
    *mean_ms = n ? RTPCC_TIME_AS_MSEC (sum) / n : NAN;
  if (n && (p95_ms || max_ms))
    g_array_sort (v, cmp_time);
  if (p95_ms) {
    guint rank = (guint) ceil (0.95 * n);
    *p95_ms = n ? RTPCC_TIME_AS_MSEC (g_array_index (v, RtpccTime,
            CLAMP (rank, 1, n) - 1)) : NAN;
  }
  if (max_ms)
    *max_ms = n ? RTPCC_TIME_AS_MSEC (g_array_index (v, RtpccTime, n - 1)) :
        NAN;
  g_array_free (v, TRUE);
  return n;
}

gdouble
sim_rtpcc_sender_target_mean (SimRtpccSender * s, RtpccTime t0, RtpccTime t1)
{
  gint i = MAX (target_index (s, t0), 0);
  gdouble acc = 0.0;
  RtpccTime at = t0;

  if (t1 <= t0 || s->targets->len == 0)
    return NAN;
  for (; (guint) i < s->targets->len; i++) {
    const SimRtpccTargetChange *c = &g_array_index (s->targets,
        SimRtpccTargetChange, i);
    RtpccTime until = (guint) i + 1 < s->targets->len ?
        g_array_index (s->targets, SimRtpccTargetChange, i + 1).time : t1;
    until = MIN (until, t1);
    if (until > at) {
      acc += (gdouble) c->target_bitrate * (gdouble) (until - at);
      at = until;
    }
    if (at >= t1)
      break;
  }
  return acc / (gdouble) (t1 - t0);
}

/* ======================================================================== */
/* Receiver                                                                 */

struct _SimRtpccReceiver
{
  SimNode node;
  Sim *sim;
  SimRtpccReceiverConfig config;
  gchar *cname;
  RtpccReceiver *receiver;
  SimNode *reverse;
  SimTimer timer;
  RtpccTime timer_at;           /* simulated time */
  guint64 seq;
  guint8 *buf;
  SimRtpccReceiverCounters counters;
  RtpccRtxReceiver *rtx;        /* NULL: no repair */
  /* media packet numbers from wire seqs (an RTX-restored original to
   * its FEC ledger entry): the last number seen and its wire seq */
  guint64 last_index;
  guint16 last_index_seq;
  gboolean have_index;
  gboolean djb_reported;        /* the playout delay given to the XR */
};

static void receiver_wakeup (Sim * sim, gpointer user_data);

static RtpccTime
receiver_now (SimRtpccReceiver * r)
{
  return sim_now (r->sim) + r->config.clock_offset;
}

static void
receiver_arm (SimRtpccReceiver * r, RtpccTime at)
{
  if (at != RTPCC_TIME_NONE && r->timer_at == at
      && sim_timer_pending (r->sim, r->timer))
    return;
  sim_cancel (r->sim, r->timer);
  r->timer = 0;
  r->timer_at = at;
  if (at != RTPCC_TIME_NONE)
    r->timer = sim_schedule (r->sim, at, receiver_wakeup, r);
}

static void
receiver_service (SimRtpccReceiver * r)
{
  RtpccTime now = receiver_now (r);

  for (guint round = 0; round < SERVICE_ROUNDS; round++) {
    RtpccTime t = rtpcc_receiver_next_feedback_time (r->receiver);
    gsize n;

    if (r->rtx && rtpcc_rtx_receiver_next_timeout (r->rtx) <= now) {
      /* NACK / PLI due: sent at once, on their own (RFC 5506) */
      n = rtpcc_rtx_receiver_build (r->rtx, now,
          rtpcc_receiver_get_ssrc (r->receiver), r->buf, r->config.max_packet);
      if (n > 0) {
        r->counters.repair_out++;
        send_rtcp_packet (r->sim, r->reverse, r->config.flow, r->seq++,
            r->buf, n);
      }
    }
    if (r->rtx) {
      RtpccTime rt = rtpcc_rtx_receiver_next_timeout (r->rtx);
      if (rt != RTPCC_TIME_INFINITE)
        t = t == RTPCC_TIME_NONE ? rt : MIN (t, rt);
    }
    if (t == RTPCC_TIME_NONE || t > now) {
      receiver_arm (r, t == RTPCC_TIME_NONE ? t : t - r->config.clock_offset);
      return;
    }
    if (rtpcc_receiver_next_feedback_time (r->receiver) > now)
      continue;
    n = rtpcc_receiver_build_feedback (r->receiver, now, r->buf,
        r->config.max_packet);
    if (n > 0) {
      r->counters.feedback_out++;
      r->counters.feedback_bytes_out += n;
      send_rtcp_packet (r->sim, r->reverse, r->config.flow, r->seq++, r->buf,
          n);
    }
  }
  r->counters.stalls++;
  receiver_arm (r, sim_now (r->sim) + STALL_RETRY);
}

/* An original restored from RTX reaches the FEC decoder as fecdec,
 * downstream of rtpccsrc, gets it: as an arrival of its media packet
 * (found by its wire seq from the latest one seen), so the ledger counts it
 * delivered and the decoder can rebuild with it. @size: the RTX packet's
 * (the original's and its 2-byte OSN). */
static void
restored_to_fec (SimRtpccReceiver * r, RtpccTime now, const guint8 * pkt,
    gsize len, guint size)
{
  RtpccRtpInfo info;
  gsize hl = 0;
  guint16 back;

  if (!r->have_index || !rtpcc_rtp_parse (pkt, len, len, 0, &info, &hl))
    return;
  back = (guint16) (r->last_index_seq - info.seq);
  if (back > r->last_index)
    return;
  info.clock_rate = 90000;
  sim_fec_media_arrived (r->config.fec, now, r->last_index - back, &info, hl,
      size > RTPCC_RTX_OSN_SIZE ? size - RTPCC_RTX_OSN_SIZE : size);
}

static void
receiver_wakeup (Sim * sim, gpointer user_data)
{
  SimRtpccReceiver *r = user_data;

  r->timer = 0;
  r->timer_at = RTPCC_TIME_NONE;
  r->counters.wakeups++;
  receiver_service (r);
}

static void
receiver_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  SimRtpccReceiver *r = (SimRtpccReceiver *) node;
  RtpccTime now = receiver_now (r);

  if (p->kind == SIM_PACKET_MEDIA && p->data) {
    RtpccRtpInfo info;
    gsize hl = 0;
    r->counters.media_in++;
    if (sim_rtp_header_parse (p, &info, &hl)) {
      info.clock_rate = 90000;  /* from the session, as caps tell rtpccsrc */
      if (r->config.fec && !info.padding_only) {
        const SimRtpHeader *h = p->data;
        if (info.pt == sim_fec_get_pt (r->config.fec))
          sim_fec_parity_arrived (r->config.fec, now, h->data, h->len);
        else if (p->frame != SIM_NO_FRAME)
          sim_fec_media_arrived (r->config.fec, now, p->seq, &info, hl,
              p->size);
      }
      if (p->frame != SIM_NO_FRAME && info.pt != r->config.rtx_pt
          && (!r->have_index || p->seq > r->last_index)) {
        r->last_index = p->seq;
        r->last_index_seq = info.seq;
        r->have_index = TRUE;
      }
      if (rtpcc_receiver_on_rtp (r->receiver, now, &info) && r->rtx) {
        const SimRtpHeader *h = p->data;
        guint8 out[256];
        gsize out_len;
        switch (rtpcc_rtx_receiver_on_rtp (r->rtx, now, h->data, h->len,
                p->size, out, sizeof out, &out_len)) {
          case RTPCC_RTX_RECEIVER_PASS:
            if (!info.padding_only && info.pt != r->config.rtx_pt
                && !(r->config.fec
                    && info.pt == sim_fec_get_pt (r->config.fec)))
              r->counters.media_delivered++;
            break;
          case RTPCC_RTX_RECEIVER_RESTORED:
            r->counters.rtx_restored++;
            if (r->config.fec)
              restored_to_fec (r, now, out, out_len, p->size);
            break;
          case RTPCC_RTX_RECEIVER_DROP:
            break;
        }
      } else if (!info.padding_only && !(r->config.fec
              && info.pt == sim_fec_get_pt (r->config.fec))) {
        r->counters.media_delivered++;
      }
      /* with XR de-jitter blocks on, the playout delay the NACKs work to
       * is reported (as rtpccsrc xr-blocks=dejitter reports its
       * playout-delay) */
      if (r->rtx && !r->djb_reported && !info.padding_only
          && (r->config.receiver.xr_blocks & RTPCC_RECEIVER_XR_DEJITTER)
          && info.pt != r->config.rtx_pt && !(r->config.fec
              && info.pt == sim_fec_get_pt (r->config.fec)))
        r->djb_reported = rtpcc_receiver_set_dejitter (r->receiver,
            info.ssrc, FALSE, r->config.repair_config.playout_delay,
            RTPCC_TIME_NONE, RTPCC_TIME_NONE, RTPCC_TIME_NONE);
    }
  } else if (p->kind == SIM_PACKET_FEEDBACK && p->data) {
    gsize len;
    const guint8 *d = g_bytes_get_data (p->data, &len);
    r->counters.rtcp_in++;
    if (!rtpcc_receiver_on_rtcp (r->receiver, now, d, len))
      r->counters.rtcp_rejected++;
  }
  sim_packet_free (sim, p);
  receiver_service (r);
}

void
sim_rtpcc_receiver_config_init (SimRtpccReceiverConfig * config)
{
  memset (config, 0, sizeof (*config));
  rtpcc_receiver_config_init (&config->receiver);
  config->max_packet = RTCP_MAX;
  rtpcc_repair_config_init (&config->repair_config);
}

SimRtpccReceiver *
sim_rtpcc_receiver_new (Sim * sim, const SimRtpccReceiverConfig * config,
    SimNode * reverse)
{
  SimRtpccReceiver *r;

  g_return_val_if_fail (config->clock_offset >= 0, NULL);
  r = g_new0 (SimRtpccReceiver, 1);
  r->node.receive = receiver_receive;
  r->node.name = "rtpcc-receiver";
  r->sim = sim;
  r->config = *config;
  if (r->config.max_packet < 64)
    r->config.max_packet = RTCP_MAX;
  r->cname = g_strdup (config->receiver.cname);
  r->config.receiver.cname = r->cname;
  r->receiver = rtpcc_receiver_new (&r->config.receiver, receiver_now (r));
  if (config->repair) {
    RtpccRtxReceiverConfig rc;
    rtpcc_rtx_receiver_config_init (&rc);
    rc.nack = TRUE;
    rc.keyframe = RTPCC_KEYFRAME_REQUEST_PLI;
    rc.rtx_pt = config->rtx_pt;
    rc.repair = config->repair_config;
    /* the planner reads the FEC packets: it neither NACKs what they will
     * rebuild nor waits for FEC that cannot help (as rtpccsrc fec-pt) */
    if (config->fec)
      rc.fec_pt = sim_fec_get_pt (config->fec);
    r->rtx = rtpcc_rtx_receiver_new (&rc, NULL);
    if (!r->rtx) {
      rtpcc_receiver_free (r->receiver);
      g_free (r->cname);
      g_free (r);
      return NULL;
    }
  }
  r->reverse = reverse;
  r->timer_at = RTPCC_TIME_NONE;
  r->buf = g_malloc (r->config.max_packet);
  return r;
}

void
sim_rtpcc_receiver_free (SimRtpccReceiver * r)
{
  if (!r)
    return;
  sim_cancel (r->sim, r->timer);
  rtpcc_receiver_free (r->receiver);
  rtpcc_rtx_receiver_free (r->rtx);
  g_free (r->buf);
  g_free (r->cname);
  g_free (r);
}

SimNode *
sim_rtpcc_receiver_node (SimRtpccReceiver * r)
{
  return &r->node;
}

void
sim_rtpcc_receiver_set_reverse (SimRtpccReceiver * r, SimNode * reverse)
{
  r->reverse = reverse;
}

RtpccReceiver *
sim_rtpcc_receiver_get_receiver (SimRtpccReceiver * r)
{
  return r->receiver;
}

const SimRtpccReceiverCounters *
sim_rtpcc_receiver_get_counters (SimRtpccReceiver * r)
{
  return &r->counters;
}

/* ======================================================================== */
/* Net                                                                      */

const gchar *
sim_rtpcc_feedback_name (SimRtpccFeedback feedback)
{
  switch (feedback) {
    case SIM_RTPCC_FEEDBACK_AUTO:
      return "auto";
    case SIM_RTPCC_FEEDBACK_CCFB:
      return "ccfb";
    case SIM_RTPCC_FEEDBACK_RR:
      return "rr";
    case SIM_RTPCC_FEEDBACK_TWCC:
      return "twcc";
  }
  return "unknown";
}

gboolean
sim_rtpcc_feedback_from_string (const gchar * name, SimRtpccFeedback * out)
{
  for (gint f = SIM_RTPCC_FEEDBACK_AUTO; f <= SIM_RTPCC_FEEDBACK_TWCC; f++) {
    if (g_strcmp0 (name, sim_rtpcc_feedback_name (f)) == 0) {
      *out = f;
      return TRUE;
    }
  }
  return FALSE;
}

void
sim_rtpcc_net_config_init (SimRtpccNetConfig * config)
{
  rtpcc_link_config_init (&config->forward);
  rtpcc_link_config_init (&config->reverse);
  config->reverse.queue_limit_time = 0;
  config->interval = RTPCC_MSEC (200);
  config->log = NULL;
}

void
sim_rtpcc_flow_config_init (SimRtpccFlowConfig * config, guint flow,
    const gchar * controller, SimRtpccFeedback feedback, guint64 seed)
{
  RtpccFeedbackMode mode;

  if (feedback == SIM_RTPCC_FEEDBACK_AUTO)
    feedback = g_strcmp0 (controller, "rr") == 0 ? SIM_RTPCC_FEEDBACK_RR :
        SIM_RTPCC_FEEDBACK_CCFB;
  mode = feedback == SIM_RTPCC_FEEDBACK_RR ? RTPCC_FEEDBACK_RR :
      feedback == SIM_RTPCC_FEEDBACK_TWCC ? RTPCC_FEEDBACK_TWCC :
      RTPCC_FEEDBACK_CCFB;

  memset (config, 0, sizeof (*config));
  config->flow = flow;
  sim_rtpcc_sender_config_init (&config->sender);
  config->sender.flow = flow;
  config->sender.sender.controller = controller;
  config->sender.sender.feedback = mode;
  config->sender.sender.seed = seed;
  config->sender.sender.cc.seed = seed;

  sim_rtpcc_receiver_config_init (&config->receiver);
  config->receiver.flow = flow;
  config->receiver.receiver.feedback = mode;
  config->receiver.receiver.seed = seed + 1;

  sim_frame_config_init (&config->frames);
  config->frames.flow = flow;
  config->frames.mtu = 1200;
  config->frames.overhead = RTP_HEADER;
  config->frames.seed = seed;
  config->frames.target_bps = 0;
}

typedef struct
{
  RtpccTime at;
  RtpccTime srtt;
} RttSample;

static void
net_sample (Sim * sim, gpointer user_data)
{
  SimRtpccNet *net = user_data;
  RtpccTime now = sim_now (sim);

  for (guint i = 0; i < net->flows->len; i++) {
    SimRtpccFlow *f = net->flows->pdata[i];
    const RtpccSenderStats *st =
        rtpcc_sender_get_stats (sim_rtpcc_sender_get_sender (f->sender), now);
    RttSample smp = { now, st->srtt };
    g_array_append_val (f->rtt, smp);
  }
  net->sampler = sim_schedule (sim, now + net->interval, net_sample, net);
}

SimRtpccNet *
sim_rtpcc_net_new (const SimRtpccNetConfig * config)
{
  SimRtpccNet *net = g_new0 (SimRtpccNet, 1);

  net->sim = sim_new ();
  net->interval = config->interval > 0 ? config->interval : RTPCC_MSEC (200);
  net->metrics = sim_metrics_new (0, net->interval);
  if (config->log)
    sim_metrics_set_log (net->metrics, config->log);
  net->flows = g_ptr_array_new ();

  net->forward_demux = sim_demux_new (NULL);
  net->recv_tap = sim_tap_new (net->metrics, SIM_TAP_RECEIVE,
      sim_demux_node (net->forward_demux));
  net->forward = sim_link_new (&config->forward,
      sim_tap_node (net->recv_tap));
  sim_link_set_metrics (net->forward, net->metrics);
  sim_metrics_set_bottleneck (net->metrics, SIM_FLOW_ANY,
      sim_link_get_link (net->forward));
  net->send_tap = sim_tap_new (net->metrics, SIM_TAP_SEND,
      sim_link_node (net->forward));

  net->reverse_demux = sim_demux_new (NULL);
  net->reverse = sim_link_new (&config->reverse,
      sim_demux_node (net->reverse_demux));

  net->sampler = sim_schedule (net->sim, net->interval, net_sample, net);
  return net;
}

static void
flow_free (SimRtpccFlow * f)
{
  /* sources and endpoints own events and packets: before sim_free */
  sim_source_free (f->source);
  sim_rtpcc_sender_free (f->sender);
  sim_rtpcc_receiver_free (f->receiver);
  sim_fec_free (f->fec);
  g_array_free (f->rtt, TRUE);
  g_free (f);
}

SimRtpccFlow *
sim_rtpcc_net_add_flow (SimRtpccNet * net, const SimRtpccFlowConfig * config,
    GError ** error)
{
  SimRtpccFlow *f = g_new0 (SimRtpccFlow, 1);
  SimRtpccSenderConfig sc = config->sender;
  SimRtpccReceiverConfig rc = config->receiver;
  SimFrameConfig fc = config->frames;

  f->flow = config->flow;
  f->rtt = g_array_new (FALSE, FALSE, sizeof (RttSample));
  sc.flow = rc.flow = fc.flow = config->flow;
  if (config->fec) {
    /* the media SSRC as the sender derives it */
    f->fec = sim_fec_new (sc.ssrc ? sc.ssrc : 0x5eed0000u + config->flow,
        0xfec00000u + config->flow, RTPCC_FEC_DEFAULT_PT);
    sc.fec = rc.fec = f->fec;
  }
  f->sender = sim_rtpcc_sender_new (net->sim, &sc,
      sim_tap_node (net->send_tap), error);
  if (!f->sender) {
    flow_free (f);
    return NULL;
  }
  f->receiver = sim_rtpcc_receiver_new (net->sim, &rc,
      sim_link_node (net->reverse));
  if (!f->receiver) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "invalid receiver configuration");
    flow_free (f);
    return NULL;
  }
  fc.target_bps = 0;            /* the sender sets it */
  f->source = sim_frame_source_new (net->sim, &fc,
      sim_rtpcc_sender_node (f->sender));
  if (!f->source) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "invalid frame source configuration");
    flow_free (f);
    return NULL;
  }
  sim_rtpcc_sender_set_source (f->sender, f->source);
  sim_demux_set_route (net->forward_demux, config->flow,
      sim_rtpcc_receiver_node (f->receiver));
  sim_demux_set_route (net->reverse_demux, config->flow,
      sim_rtpcc_sender_node (f->sender));
  sim_metrics_add_flow (net->metrics, config->flow);
  g_ptr_array_add (net->flows, f);
  return f;
}

void
sim_rtpcc_net_run (SimRtpccNet * net, RtpccTime t_end)
{
  sim_run_until (net->sim, t_end);
  sim_metrics_finish (net->metrics, t_end);
}

void
sim_rtpcc_net_free (SimRtpccNet * net)
{
  if (!net)
    return;
  sim_cancel (net->sim, net->sampler);
  for (guint i = 0; i < net->flows->len; i++)
    flow_free (net->flows->pdata[i]);
  g_ptr_array_free (net->flows, TRUE);
  if (net->tcp_flows)           /* TCP flows hold timers too: before sim_free */
    g_ptr_array_free (net->tcp_flows, TRUE);
  sim_free (net->sim);
  sim_tap_free (net->send_tap);
  sim_tap_free (net->recv_tap);
  sim_link_free (net->forward);
  sim_link_free (net->reverse);
  sim_demux_free (net->forward_demux);
  sim_demux_free (net->reverse_demux);
  sim_metrics_free (net->metrics);
  g_free (net);
}

/* ======================================================================== */
/* Results                                                                  */

static gdouble
rows_mean (const SimRtpccRow * rows, guint n, RtpccTime t0, RtpccTime t1,
    gsize offset)
{
  gdouble acc = 0.0;
  guint cnt = 0;

  for (guint i = 0; i < n; i++) {
    if (rows[i].time >= t0 && rows[i].time < t1) {
      acc += G_STRUCT_MEMBER (gdouble, &rows[i], offset);
      cnt++;
    }
  }
  return cnt ? acc / cnt : NAN;
}

static gdouble
kbps_at (const RtpccCapacity * cap, RtpccTime t)
{
  guint64 r = rtpcc_capacity_rate_at (cap, MAX (t, 0), 0);
  return r == G_MAXUINT64 ? INFINITY : r / 1000.0;
}

static void
collect_phase (SimRtpccNet * net, SimRtpccFlow * f, SimRtpccResult * res,
    RtpccTime t0, RtpccTime t1, SimRtpccPhase * ph)
{
  SimFlowSummary s;

  memset (ph, 0, sizeof (*ph));
  ph->start = t0;
  ph->end = t1;
  sim_metrics_summarize (net->metrics, f->flow, t0, t1, &s);
  ph->capacity_kbps = rows_mean (res->rows, res->n_rows, t0, t1,
      G_STRUCT_OFFSET (SimRtpccRow, capacity_kbps));
  ph->target_kbps = sim_rtpcc_sender_target_mean (f->sender, t0, t1) / 1000.0;
  ph->send_kbps = s.send_kbps;
  ph->recv_kbps = s.recv_kbps;
  ph->utilisation = isfinite (ph->capacity_kbps) && ph->capacity_kbps > 0 ?
      s.recv_kbps / ph->capacity_kbps : NAN;
  ph->qdelay_p50_ms = s.qdelay_ms_p50;
  ph->qdelay_p95_ms = s.qdelay_ms_p95;
  ph->qdelay_max_ms = s.qdelay_ms_max;
  ph->loss_pct = s.loss_pct;
  sim_rtpcc_sender_delay_stats (f->sender, t0, t1, NULL,
      &ph->sender_delay_p95_ms, NULL);
}

static gdouble
change_response (SimRtpccFlow * f, const SimRtpccResult * res,
    const SimRtpccChange * c, RtpccTime until, RtpccTime interval)
{
  if (c->to_kbps < c->from_kbps) {
    /* drop: the target (exact, from the change log) below the new capacity */
    guint n;
    const SimRtpccTargetChange *log =
        sim_rtpcc_sender_get_target_log (f->sender, &n);
    if (sim_rtpcc_sender_target_at (f->sender, c->time) / 1000.0 < c->to_kbps)
      return 0.0;
    for (guint i = 0; i < n; i++) {
      if (log[i].time <= c->time)
        continue;
      if (log[i].time >= until)
        break;
      if (log[i].target_bitrate / 1000.0 < c->to_kbps)
        return RTPCC_TIME_AS_SEC (log[i].time - c->time);
    }
    return NAN;
  }
  /* increase: a 200 ms row's send rate reaches 80 %, and the mean over
   * that row and the next four (1 s) holds it: the end of that row */
  for (guint i = 0; i + CONVERGE_ROWS <= res->n_rows; i++) {
    gdouble acc = 0.0, want = CONVERGE_FRACTION * c->to_kbps;
    if (res->rows[i].time < c->time)
      continue;
    if (res->rows[i].time >= until)
      break;
    if (res->rows[i].send_kbps < want)
      continue;
    for (guint k = 0; k < CONVERGE_ROWS; k++)
      acc += res->rows[i + k].send_kbps;
    if (acc / CONVERGE_ROWS >= want)
      return RTPCC_TIME_AS_SEC (res->rows[i].time + interval - c->time);
  }
  return NAN;
}

SimRtpccResult *
sim_rtpcc_net_collect (SimRtpccNet * net, SimRtpccFlow * f, RtpccTime settle)
{
  SimRtpccResult *res = g_new0 (SimRtpccResult, 1);
  RtpccSender *snd = sim_rtpcc_sender_get_sender (f->sender);
  RtpccReceiver *rcv = sim_rtpcc_receiver_get_receiver (f->receiver);
  RtpccTime end = sim_now (net->sim), t;
  const RtpccCapacity *cap =
      rtpcc_link_get_config (sim_link_get_link (net->forward))->capacity;
  const SimIntervalRow *mrows;
  GArray *rows, *phases, *changes;
  guint n_mrows, n_targets;
  const SimRtpccTargetChange *targets;
  gboolean first = TRUE;

  res->controller = g_strdup (rtpcc_sender_get_controller_name (snd));
  res->feedback = g_strdup (rtpcc_feedback_mode_name (f->sender->config.
          sender.feedback));
  res->settle = settle;

  /* the 200 ms series */
  guint ri = 0;                 /* cursor in the RTT samples */

  rows = g_array_new (FALSE, TRUE, sizeof (SimRtpccRow));
  mrows = sim_metrics_get_rows (net->metrics, &n_mrows);
  for (guint i = 0; i < n_mrows; i++) {
    const SimIntervalRow *m = &mrows[i];
    SimRtpccRow r;

    if (m->flow != f->flow)
      continue;
    r.time = m->time;
    r.capacity_kbps = m->capacity_kbps;
    r.target_kbps = sim_rtpcc_sender_target_mean (f->sender, m->time,
        m->time + net->interval) / 1000.0;
    r.send_kbps = m->send_kbps;
    r.recv_kbps = m->recv_kbps;
    r.queue_delay_ms = m->qdelay_ms_mean;
    r.queue_delay_max_ms = m->qdelay_ms_max;
    r.loss_pct = m->loss_pct;
    sim_rtpcc_sender_delay_stats (f->sender, m->time, m->time +
        net->interval, &r.sender_delay_ms, NULL, NULL);
    /* the sample taken at the row's end (samples and rows both ascend) */
    r.rtt_ms = NAN;
    while (ri < f->rtt->len && g_array_index (f->rtt, RttSample, ri).at <
        m->time + net->interval)
      ri++;
    if (ri < f->rtt->len) {
      const RttSample *smp = &g_array_index (f->rtt, RttSample, ri);
      if (smp->at == m->time + net->interval && smp->srtt != RTPCC_TIME_NONE)
        r.rtt_ms = RTPCC_TIME_AS_MSEC (smp->srtt);
    }
    g_array_append_val (rows, r);
  }
  res->n_rows = rows->len;
  res->rows = (SimRtpccRow *) g_array_free (rows, FALSE);

  /* phases and changes from the capacity schedule */
  phases = g_array_new (FALSE, TRUE, sizeof (SimRtpccPhase));
  changes = g_array_new (FALSE, TRUE, sizeof (SimRtpccChange));
  t = 0;
  while (t < end) {
    RtpccTime next = cap ? rtpcc_capacity_next_change (cap, t) :
        RTPCC_TIME_INFINITE;
    next = MIN (next, end);
    if (t > 0 && cap) {
      SimRtpccChange c;
      c.time = t;
      c.from_kbps = kbps_at (cap, t - 1);
      c.to_kbps = kbps_at (cap, t);
      c.response_s = NAN;
      g_array_append_val (changes, c);
    }
    if (t + settle < next) {
      SimRtpccPhase ph;
      collect_phase (net, f, res, t + settle, next, &ph);
      g_array_append_val (phases, ph);
    }
    t = next;
  }
  res->n_phases = phases->len;
  res->phases = (SimRtpccPhase *) g_array_free (phases, FALSE);
  res->n_changes = changes->len;
  res->changes = (SimRtpccChange *) g_array_free (changes, FALSE);
  for (guint i = 0; i < res->n_changes; i++) {
    RtpccTime until = i + 1 < res->n_changes ? res->changes[i + 1].time : end;
    SimRtpccChange *c = &res->changes[i];
    c->response_s = change_response (f, res, c, until, net->interval);
    c->reduce_s = NAN;
    if (c->to_kbps < c->from_kbps) {
      guint n;
      const SimRtpccTargetChange *log =
          sim_rtpcc_sender_get_target_log (f->sender, &n);
      guint64 at_change = sim_rtpcc_sender_target_at (f->sender, c->time);
      for (guint k = 0; k < n; k++) {
        if (log[k].time <= c->time)
          continue;
        if (log[k].time >= until)
          break;
        if (log[k].target_bitrate < at_change) {
          c->reduce_s = RTPCC_TIME_AS_SEC (log[k].time - c->time);
          break;
        }
      }
    }
  }

  sim_metrics_summarize (net->metrics, f->flow, 0, end, &res->total);
  sim_rtpcc_sender_delay_stats (f->sender, 0, end, NULL,
      &res->sender_delay_p95_ms, &res->sender_delay_max_ms);

  targets = sim_rtpcc_sender_get_target_log (f->sender, &n_targets);
  res->min_target_kbps = res->max_target_kbps = NAN;
  for (guint i = 0; i < n_targets; i++) {
    gdouble k = targets[i].target_bitrate / 1000.0;
    /* from the target in force at the first feedback on */
    if (f->sender->first_feedback == RTPCC_TIME_NONE)
      break;
    if (i + 1 < n_targets && targets[i + 1].time <= f->sender->first_feedback)
      continue;
    if (first || k < res->min_target_kbps)
      res->min_target_kbps = k;
    if (first || k > res->max_target_kbps)
      res->max_target_kbps = k;
    first = FALSE;
  }

  res->breaker_first_trip = RTPCC_TIME_NONE;
  for (guint i = 0; i < n_targets; i++) {
    gboolean cb = g_strcmp0 (targets[i].state, "circuit-breaker") == 0;
    gboolean was = i > 0
        && g_strcmp0 (targets[i - 1].state, "circuit-breaker") == 0;
    RtpccTime until = i + 1 < n_targets ? targets[i + 1].time : end;
    if (cb && !was) {
      if (res->breaker_trips++ == 0) {
        res->breaker_first_trip = targets[i].time;
        res->breaker_first_reason = targets[i].reason;
      }
    }
    if (cb)
      res->breaker_seconds += RTPCC_TIME_AS_SEC (MIN (until, end) -
          targets[i].time);
  }

  res->sender = *sim_rtpcc_sender_get_counters (f->sender);
  res->receiver = *sim_rtpcc_receiver_get_counters (f->receiver);
  res->sender_stats = *rtpcc_sender_get_stats (snd, end);
  res->sender_stats.breaker_reason = NULL;
  res->receiver_stats = *rtpcc_receiver_get_stats (rcv,
      end + f->receiver->config.clock_offset);
  res->pacer_drops = res->sender_stats.pacer_drops;
  res->breaker_drops = res->sender_stats.breaker_drops;
  res->breaker_tripped = res->sender_stats.breaker_tripped;
  res->events = sim_events_run (net->sim);
  if (f->fec) {
    res->has_fec = TRUE;
    sim_fec_get_result (f->fec, &res->fec);
  }
  return res;
}

void
sim_rtpcc_result_free (SimRtpccResult * res)
{
  if (!res)
    return;
  g_free (res->controller);
  g_free (res->feedback);
  g_free (res->rows);
  g_free (res->phases);
  g_free (res->changes);
  g_free (res);
}

static void
append_num (GString * out, gdouble v, const gchar * fmt)
{
  if (isnan (v))
    g_string_append (out, "nan");
  else if (isinf (v))
    g_string_append (out, v > 0 ? "inf" : "-inf");
  else {
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, fmt, v));
  }
}

void
sim_rtpcc_result_write_csv (const SimRtpccResult * res, GString * out)
{
  g_string_append (out, SIM_RTPCC_CSV_HEADER);
  for (guint i = 0; i < res->n_rows; i++) {
    const SimRtpccRow *r = &res->rows[i];
    append_num (out, RTPCC_TIME_AS_SEC (r->time), "%.3f");
    g_string_append_c (out, ',');
    append_num (out, r->capacity_kbps, "%.1f");
    g_string_append_c (out, ',');
    append_num (out, r->target_kbps, "%.1f");
    g_string_append_c (out, ',');
    append_num (out, r->send_kbps, "%.1f");
    g_string_append_c (out, ',');
    append_num (out, r->recv_kbps, "%.1f");
    g_string_append_c (out, ',');
    append_num (out, r->queue_delay_ms, "%.2f");
    g_string_append_c (out, ',');
    append_num (out, r->loss_pct, "%.3f");
    g_string_append_c (out, ',');
    append_num (out, r->rtt_ms, "%.1f");
    g_string_append_c (out, ',');
    append_num (out, r->sender_delay_ms, "%.2f");
    g_string_append_c (out, '\n');
  }
}

void
sim_rtpcc_result_format (const SimRtpccResult * res, const gchar * prefix,
    GString * out)
{
  const gchar *p = prefix ? prefix : "";

  g_string_append_printf (out, "%s%s (feedback %s), phases start %.1f s "
      "after each capacity change; qd = link queue delay, sd = wait in the "
      "sender (ms)\n", p, res->controller, res->feedback,
      RTPCC_TIME_AS_SEC (res->settle));
  g_string_append_printf (out, "%s%-13s %8s %8s %8s %8s %6s %7s %7s %7s "
      "%6s %7s\n", p, "phase [s]", "cap", "target", "send", "recv", "util",
      "qd_p50", "qd_p95", "qd_max", "loss%", "sd_p95");
  for (guint i = 0; i < res->n_phases; i++) {
    const SimRtpccPhase *ph = &res->phases[i];
    gchar label[32];
    g_snprintf (label, sizeof label, "[%.0f,%.0f)", RTPCC_TIME_AS_SEC
        (ph->start), RTPCC_TIME_AS_SEC (ph->end));
    g_string_append_printf (out, "%s%-13s %8.0f %8.0f %8.0f %8.0f %5.1f%% "
        "%7.1f %7.1f %7.1f %6.2f %7.1f\n", p, label, ph->capacity_kbps,
        ph->target_kbps, ph->send_kbps, ph->recv_kbps,
        100.0 * ph->utilisation, ph->qdelay_p50_ms, ph->qdelay_p95_ms,
        ph->qdelay_max_ms, ph->loss_pct, ph->sender_delay_p95_ms);
  }
  g_string_append_printf (out, "%s%-13s %8s %8s %8.0f %8.0f %6s %7.1f %7.1f "
      "%7.1f %6.2f %7.1f\n", p, "all", "", "", res->total.send_kbps,
      res->total.recv_kbps, "", res->total.qdelay_ms_p50,
      res->total.qdelay_ms_p95, res->total.qdelay_ms_max,
      res->total.loss_pct, res->sender_delay_p95_ms);
  for (guint i = 0; i < res->n_changes; i++) {
    const SimRtpccChange *c = &res->changes[i];
    gboolean drop = c->to_kbps < c->from_kbps;
    gchar resp[32];

    if (isnan (c->response_s))
      g_strlcpy (resp, "never", sizeof resp);
    else
      g_snprintf (resp, sizeof resp, "%.2f s", c->response_s);
    g_string_append_printf (out, "%schange at %5.1f s: %6.0f -> %6.0f kbit/s, "
        "%s %s", p, RTPCC_TIME_AS_SEC (c->time), c->from_kbps, c->to_kbps,
        drop ? "target below new capacity after" :
        "send (1 s mean) >= 80 % of it after", resp);
    if (drop && !isnan (c->reduce_s))
      g_string_append_printf (out, " (first cut after %.2f s)", c->reduce_s);
    g_string_append_c (out, '\n');
  }
  if (res->breaker_trips > 0)
    g_string_append_printf (out, "%sRFC 8083 breaker: %u trip(s), first at "
        "%.2f s (%s), %.1f s held at the minimum\n", p, res->breaker_trips,
        RTPCC_TIME_AS_SEC (res->breaker_first_trip),
        res->breaker_first_reason ? res->breaker_first_reason : "?",
        res->breaker_seconds);
  g_string_append_printf (out, "%starget %.0f..%.0f kbit/s after first "
      "feedback; %" G_GUINT64_FORMAT " target changes; srtt %.1f ms; "
      "pacer drops %" G_GUINT64_FORMAT ", breaker drops %" G_GUINT64_FORMAT
      "%s; feedback %" G_GUINT64_FORMAT " pkts / %" G_GUINT64_FORMAT
      " B (%" G_GUINT64_FORMAT " rejected), SR %" G_GUINT64_FORMAT
      "; stalls %" G_GUINT64_FORMAT "/%"
      G_GUINT64_FORMAT "; %" G_GUINT64_FORMAT " events\n", p,
      res->min_target_kbps, res->max_target_kbps, res->sender.generations,
      res->sender_stats.srtt == RTPCC_TIME_NONE ? NAN :
      RTPCC_TIME_AS_MSEC (res->sender_stats.srtt), res->pacer_drops,
      res->breaker_drops, res->breaker_tripped ? " (breaker tripped)" : "",
      res->receiver.feedback_out, res->receiver.feedback_bytes_out,
      res->sender.feedback_rejected, res->sender.rtcp_out, res->sender.stalls, res->receiver.stalls,
      res->events);
  if (res->sender_stats.probe_packets > 0)
    g_string_append_printf (out, "%sprobes %" G_GUINT64_FORMAT " pkts / %"
        G_GUINT64_FORMAT " B (%" G_GUINT64_FORMAT " on a media SSRC, %"
        G_GUINT64_FORMAT " reported received)\n", p,
        res->sender_stats.probe_packets, res->sender_stats.probe_bytes,
        res->sender_stats.probe_media_packets,
        res->sender_stats.probe_reported_received);
}

/* ======================================================================== */
/* Single-flow scenario                                                     */

void
sim_rtpcc_scenario_config_init (SimRtpccScenarioConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->controller = "tfrc";
  config->min_bitrate = 150000;
  config->max_bitrate = 3000000;
  config->start_bitrate = 150000;
  config->capacity = NULL;
  config->delay = RTPCC_MSEC (50);
  config->queue = RTPCC_MSEC (300);
  config->queue_bytes = 0;
  rtpcc_loss_params_init (&config->loss);
  rtpcc_loss_params_init (&config->reverse_loss);
  config->jitter = 0;
  config->allow_reorder = FALSE;
  config->duration = RTPCC_SEC (100);
  config->seed = 1;
  config->feedback = SIM_RTPCC_FEEDBACK_AUTO;
  config->clock_offset = 0;
  config->reverse_capacity = NULL;
  config->reverse_delay = RTPCC_TIME_NONE;
  config->reverse_queue = 0;
  config->fps = 25.0;
  config->mtu = 1200;
  config->noise = 0.1;
  config->keyframe_interval = 0;
  config->keyframe_ratio = 4.0;
  config->interval = RTPCC_MSEC (200);
  config->settle = RTPCC_SEC (5);
  config->circuit_breaker = TRUE;
  config->controller_params = NULL;
  config->probe_ssrc_mode = RTPCC_PROBE_SSRC_SEPARATE;
  config->metrics_log = NULL;
}

SimRtpccResult *
sim_rtpcc_run_scenario (const SimRtpccScenarioConfig * config, GError ** error)
{
  SimRtpccNetConfig nc;
  SimRtpccFlowConfig fc;
  SimRtpccNet *net;
  SimRtpccFlow *flow;
  SimRtpccResult *res;
  RtpccCapacity *cap = NULL;

  if (config->mtu <= RTP_HEADER || config->fps <= 0 || config->duration <= 0
      || config->clock_offset < 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "invalid scenario (mtu, fps, duration or clock offset)");
    return NULL;
  }
  if (!config->capacity) {
    cap = rtpcc_capacity_new_schedule ("1000@0,2500@40,600@60,1000@80",
        error);
    g_assert (cap);
  }

  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = config->capacity ? config->capacity : cap;
  nc.forward.queue_limit_time = config->queue;
  nc.forward.delay = config->delay;
  nc.forward.queue_limit_bytes = config->queue_bytes;
  nc.forward.loss = config->loss;
  nc.forward.jitter = config->jitter;
  nc.forward.allow_reorder = config->allow_reorder;
  nc.forward.seed = config->seed;
  nc.reverse.capacity = config->reverse_capacity;
  nc.reverse.delay = config->reverse_delay == RTPCC_TIME_NONE ?
      config->delay : config->reverse_delay;
  nc.reverse.queue_limit_time = config->reverse_queue;
  nc.reverse.loss = config->reverse_loss;
  nc.reverse.seed = config->seed ^ G_GUINT64_CONSTANT (0x5eed5eed5eed5eed);
  nc.interval = config->interval;
  nc.log = config->metrics_log;
  if (!rtpcc_loss_params_validate (&nc.forward.loss, error)
      || !rtpcc_loss_params_validate (&nc.reverse.loss, error)) {
    rtpcc_capacity_unref (cap);
    return NULL;
  }
  net = sim_rtpcc_net_new (&nc);
  rtpcc_capacity_unref (cap);

  sim_rtpcc_flow_config_init (&fc, 0, config->controller, config->feedback,
      config->seed);
  fc.fec = config->fec;
  fc.sender.sender.cc.min_bitrate = config->min_bitrate;
  fc.sender.sender.cc.max_bitrate = config->max_bitrate;
  fc.sender.sender.cc.start_bitrate = config->start_bitrate;
  fc.sender.sender.circuit_breaker = config->circuit_breaker;
  fc.sender.sender.probe_ssrc_mode = config->probe_ssrc_mode;
  fc.receiver.clock_offset = config->clock_offset;
  fc.receiver.receiver.remb = config->remb;
  fc.receiver.receiver.nadu = config->nadu;
  fc.frames.fps = config->fps;
  fc.frames.mtu = config->mtu;
  fc.frames.noise = config->noise;
  fc.frames.keyframe_interval = config->keyframe_interval;
  fc.frames.keyframe_ratio = config->keyframe_ratio;
  /* RTP seq starts just below the wrap so every run crosses it */
  fc.sender.initial_seq = 65000;
  fc.sender.initial_rtp_ts = (guint32) (config->seed * 2654435761u);

  flow = sim_rtpcc_net_add_flow (net, &fc, error);
  if (!flow || !rtpcc_controller_set_params (rtpcc_sender_get_controller
          (sim_rtpcc_sender_get_sender (flow->sender)),
          config->controller_params, error)) {
    sim_rtpcc_net_free (net);
    return NULL;
  }
  sim_rtpcc_net_run (net, config->duration);
  res = sim_rtpcc_net_collect (net, flow, config->settle);
  sim_rtpcc_net_free (net);
  return res;
}

SimRtpccResult *
sim_rtpcc_run_logged (const SimRtpccScenarioConfig * config,
    const gchar * title)
{
  GError *err = NULL;
  SimRtpccResult *r = sim_rtpcc_run_scenario (config, &err);
  GString *s = g_string_new (NULL);

  g_assert_no_error (err);
  g_assert_nonnull (r);
  sim_rtpcc_result_format (r, "", s);
  sim_test_log_lines (title, s->str);
  g_string_free (s, TRUE);
  return r;
}

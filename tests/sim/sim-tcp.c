/* TCP NewReno / CUBIC cross traffic for the simulator (see sim-tcp.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sim-tcp.h"

#include <math.h>

#define CUBIC_C 0.4
#define CUBIC_BETA 0.7
#define MAX_RTO RTPCC_SEC (60)
#define LONG_LIVED_SEGS G_MAXUINT32

/* Payload of every TCP packet. Data: seg, payload bytes, ts = send time.
 * ACK: ack = next expected segment, ts_echo = the echoed timestamp. */
typedef struct
{
  guint32 transfer;
  guint32 seg;
  guint32 ack;
  guint32 payload;
  RtpccTime ts;
  RtpccTime ts_echo;
} TcpSegment;

typedef struct
{
  SimNode node;
  SimTcpFlow *flow;
} TcpEndpoint;

typedef struct
{
  RtpccTime time;
  guint64 bytes;                /* cumulative in-order payload */
} GoodputMark;

struct _SimTcpFlow
{
  SimTcpConfig config;
  Sim *sim;
  SimNode *forward, *reverse;
  TcpEndpoint snd_ep, rcv_ep, proc_ep;
  RtpccTime last_ack_at;
  RtpccRng rng;
  SimTcpStats stats;
  guint64 data_seq, ack_seq;    /* SimPacket.seq per direction */
  gboolean stopped;
  SimTimer start_timer, stop_timer, rto_timer, next_timer;

  /* sender, current transfer */
  guint32 transfer;             /* 1.. ; 0 = none yet */
  gboolean active;
  guint32 total_segs;           /* LONG_LIVED_SEGS: long-lived */
  guint32 last_payload;         /* payload of the last segment */
  guint64 transfer_bytes;
  guint32 snd_una, snd_nxt, snd_max;
  gdouble cwnd, ssthresh;
  guint dupacks;
  gboolean in_recovery;
  guint32 recover;              /* snd_max when the last reduction began */
  RtpccTime srtt, rttvar, rto;
  guint backoff;
  guint reductions;
  /* CUBIC */
  gdouble w_max, k, origin, w_est;
  RtpccTime epoch_start;

  /* receiver */
  guint32 r_transfer;
  guint32 rcv_nxt;
  GHashTable *ooo;              /* seg -> payload bytes, above rcv_nxt */
  RtpccTime ts_recent;

  GArray *cwnd_log;             /* SimTcpCwndSample */
  GArray *transfers;            /* SimTcpTransfer */
  GArray *goodput;              /* GoodputMark */
};

const gchar *
sim_tcp_cc_name (SimTcpCc cc)
{
  return cc == SIM_TCP_CUBIC ? "cubic" : "newreno";
}

gboolean
sim_tcp_cc_from_string (const gchar * name, SimTcpCc * out)
{
  if (!g_strcmp0 (name, "newreno") || !g_strcmp0 (name, "reno")) {
    *out = SIM_TCP_NEWRENO;
    return TRUE;
  }
  if (!g_strcmp0 (name, "cubic")) {
    *out = SIM_TCP_CUBIC;
    return TRUE;
  }
  return FALSE;
}

void
sim_tcp_config_init (SimTcpConfig * config)
{
  config->flow = 100;
  config->cc = SIM_TCP_NEWRENO;
  config->mss = 1460;
  config->header = 40;
  config->initial_cwnd = 10;
  config->max_cwnd = 0;
  config->min_rto = RTPCC_MSEC (200);
  config->initial_rto = RTPCC_SEC (1);
  config->start = 0;
  config->stop = RTPCC_TIME_INFINITE;
  config->transfer_bytes = 0;
  config->transfer_bytes_max = 0;
  config->off_mean = 0;
  config->start_off = FALSE;
  config->ack_jitter = RTPCC_MSEC (1);
  config->seed = 0;
}

/* ------------------------------------------------------------------------ */
/* Sender                                                                   */

static void
log_cwnd (SimTcpFlow * f)
{
  SimTcpCwndSample s = { sim_now (f->sim), f->cwnd, f->ssthresh,
    f->reductions, f->in_recovery
  };
  GArray *log = f->cwnd_log;

  if (log->len) {
    SimTcpCwndSample *last =
        &g_array_index (log, SimTcpCwndSample, log->len - 1);
    if (last->cwnd == s.cwnd && last->ssthresh == s.ssthresh &&
        last->reductions == s.reductions && last->recovery == s.recovery)
      return;
    /* keep the window before a reduction even at the same instant */
    if (last->time == s.time && last->reductions == s.reductions) {
      *last = s;
      return;
    }
  }
  g_array_append_val (log, s);
}

static gdouble
cwnd_cap (SimTcpFlow * f, gdouble cwnd)
{
  if (f->config.max_cwnd && cwnd > f->config.max_cwnd)
    cwnd = f->config.max_cwnd;
  return MAX (cwnd, 1.0);
}

static void rto_fire (Sim * sim, gpointer user_data);

static void
arm_rto (SimTcpFlow * f)
{
  sim_cancel (f->sim, f->rto_timer);
  f->rto_timer = 0;
  if (f->active && !f->stopped && f->snd_una < f->snd_max) {
    RtpccTime rto = f->rto;
    for (guint i = 0; i < f->backoff && rto < MAX_RTO; i++)
      rto *= 2;
    f->rto_timer = sim_schedule (f->sim, sim_now (f->sim) + MIN (rto,
            MAX_RTO), rto_fire, f);
  }
}

static guint32
seg_payload (SimTcpFlow * f, guint32 seg)
{
  return seg + 1 == f->total_segs ? f->last_payload : f->config.mss;
}

static void
send_segment (SimTcpFlow * f, guint32 seg)
{
  SimPacket *p = sim_packet_new (f->sim);
  TcpSegment *s = g_new0 (TcpSegment, 1);
  guint32 payload = seg_payload (f, seg);

  s->transfer = f->transfer;
  s->seg = seg;
  s->payload = payload;
  s->ts = sim_now (f->sim);
  p->flow = f->config.flow;
  p->kind = SIM_PACKET_TCP_DATA;
  p->seq = f->data_seq++;
  p->size = f->config.header + payload;
  p->created = p->sent = s->ts;
  p->data = s;
  p->data_free = g_free;
  f->stats.data_packets++;
  f->stats.data_bytes += p->size;
  if (seg < f->snd_max)
    f->stats.retransmits++;
  sim_node_receive (f->forward, f->sim, p);
}

/* Send what the window allows, from snd_nxt. */
static void
try_send (SimTcpFlow * f)
{
  gboolean sent = FALSE;

  if (!f->active || f->stopped)
    return;
  while (f->snd_nxt < f->total_segs
      && (gdouble) (f->snd_nxt - f->snd_una) + 1.0 <= f->cwnd + 1e-9) {
    send_segment (f, f->snd_nxt);
    f->snd_nxt++;
    if (f->snd_nxt > f->snd_max)
      f->snd_max = f->snd_nxt;
    sent = TRUE;
  }
  if (sent && !sim_timer_pending (f->sim, f->rto_timer))
    arm_rto (f);
}

/* Multiplicative decrease (fast retransmit or RTO): ssthresh, and CUBIC's
 * W_max with fast convergence. */
static void
loss_event (SimTcpFlow * f)
{
  gdouble flight = (gdouble) (f->snd_nxt - f->snd_una);

  f->reductions++;
  if (f->config.cc == SIM_TCP_CUBIC) {
    /* fast convergence: release bandwidth when W_max keeps shrinking */
    if (f->cwnd < f->w_max)
      f->w_max = f->cwnd * (1.0 + CUBIC_BETA) / 2.0;
    else
      f->w_max = f->cwnd;
    f->ssthresh = MAX (f->cwnd * CUBIC_BETA, 2.0);
    f->epoch_start = RTPCC_TIME_NONE;
  } else {
    /* the window, not snd_nxt − snd_una: after a long recovery that span
     * also counts segments the receiver already holds above a new hole,
     * and halving it would not halve the sending rate (Linux does the
     * same: ssthresh = cwnd / 2) */
    f->ssthresh = MAX (MIN (flight, f->cwnd) / 2.0, 2.0);
  }
}

static void
cubic_avoid (SimTcpFlow * f, guint32 acked)
{
  RtpccTime now = sim_now (f->sim);
  gdouble t, target, alpha, rtt;

  if (f->epoch_start == RTPCC_TIME_NONE) {
    f->epoch_start = now;
    if (f->cwnd < f->w_max) {
      f->k = cbrt ((f->w_max - f->cwnd) / CUBIC_C);
      f->origin = f->w_max;
    } else {
      f->k = 0.0;
      f->origin = f->cwnd;
    }
    f->w_est = f->cwnd;
  }
  rtt = f->srtt != RTPCC_TIME_NONE ? RTPCC_TIME_AS_SEC (f->srtt) : 0.0;
  t = RTPCC_TIME_AS_SEC (now - f->epoch_start);
  /* the window one RTT ahead, bounded to 1.5 cwnd (RFC 9438 §4.2) */
  target = f->origin + CUBIC_C * pow (t + rtt - f->k, 3.0);
  target = CLAMP (target, f->cwnd, 1.5 * f->cwnd);

  /* Reno-friendly region (RFC 9438 §4.3) */
  alpha = f->w_est >= f->w_max ? 1.0 :
      3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
  f->w_est += alpha * acked / f->cwnd;

  if (f->origin + CUBIC_C * pow (t - f->k, 3.0) < f->w_est)
    f->cwnd = MAX (f->cwnd, f->w_est);
  else if (target > f->cwnd)
    f->cwnd += (target - f->cwnd) / f->cwnd * acked;
  else
    f->cwnd += 0.01 * acked / f->cwnd;
}

static void transfer_begin (SimTcpFlow * f);
static void next_transfer_fire (Sim * sim, gpointer user_data);

static void
transfer_complete (SimTcpFlow * f)
{
  SimTcpTransfer *tr = &g_array_index (f->transfers, SimTcpTransfer,
      f->transfers->len - 1);
  RtpccTime now = sim_now (f->sim);

  tr->end = now;
  f->stats.transfers_done++;
  f->active = FALSE;
  sim_cancel (f->sim, f->rto_timer);
  f->rto_timer = 0;
  if (f->config.off_mean > 0 && !f->stopped) {
    RtpccTime off = (RtpccTime) (rtpcc_rng_exponential (&f->rng,
            RTPCC_TIME_AS_SEC (f->config.off_mean)) * RTPCC_NSEC_PER_SEC);
    if (now + off < f->config.stop)
      f->next_timer = sim_schedule (f->sim, now + off, next_transfer_fire, f);
  }
}

static void
on_ack (SimTcpFlow * f, const TcpSegment * s)
{
  RtpccTime now = sim_now (f->sim);

  if (!f->active || f->stopped || s->transfer != f->transfer)
    return;
  f->stats.acks_in++;

  if (s->ack > f->snd_una) {
    guint32 acked = s->ack - f->snd_una;

    if (s->ts_echo != RTPCC_TIME_NONE && now >= s->ts_echo) {
      RtpccTime r = now - s->ts_echo;
      if (f->srtt == RTPCC_TIME_NONE) {
        f->srtt = r;
        f->rttvar = r / 2;
      } else {
        RtpccTime d = f->srtt > r ? f->srtt - r : r - f->srtt;
        f->rttvar = (3 * f->rttvar + d) / 4;
        f->srtt = (7 * f->srtt + r) / 8;
      }
      f->rto = MAX (f->srtt + MAX (4 * f->rttvar, RTPCC_MSEC (1)),
          f->config.min_rto);
    }
    f->backoff = 0;
    f->snd_una = s->ack;
    if (f->snd_nxt < f->snd_una)
      f->snd_nxt = f->snd_una;

    if (f->in_recovery) {
      if (f->snd_una >= f->recover) {
        /* full ACK: deflate (RFC 6582 §3.2 step 3, option 1) */
        gdouble flight = (gdouble) (f->snd_nxt - f->snd_una);
        f->cwnd = cwnd_cap (f, MIN (f->ssthresh, MAX (flight, 1.0) + 1.0));
        f->in_recovery = FALSE;
        f->dupacks = 0;
      } else {
        /* partial ACK: the next hole was lost too */
        send_segment (f, f->snd_una);
        f->cwnd = cwnd_cap (f, f->cwnd - acked + 1.0);
        sim_cancel (f->sim, f->rto_timer);
        f->rto_timer = 0;
      }
    } else {
      f->dupacks = 0;
      if (f->cwnd < f->ssthresh) {
        gdouble room = f->ssthresh - f->cwnd;
        gdouble ss = MIN ((gdouble) acked, room);
        f->cwnd += ss;
        acked -= (guint32) ss;
      }
      if (acked > 0 && f->cwnd >= f->ssthresh) {
        if (f->config.cc == SIM_TCP_CUBIC)
          cubic_avoid (f, acked);
        else
          f->cwnd += (gdouble) acked / f->cwnd;
      }
      f->cwnd = cwnd_cap (f, f->cwnd);
    }
    log_cwnd (f);

    if (f->snd_una >= f->total_segs) {
      transfer_complete (f);
      return;
    }
    sim_cancel (f->sim, f->rto_timer);
    f->rto_timer = 0;
    arm_rto (f);
    try_send (f);
    return;
  }

  if (s->ack == f->snd_una && f->snd_max > f->snd_una) {
    f->stats.dupacks_in++;
    f->dupacks++;
    if (f->in_recovery) {
      f->cwnd += 1.0;           /* one more segment left the network */
      log_cwnd (f);
      try_send (f);
    } else if (f->dupacks == 3 && f->snd_una >= f->recover) {
      loss_event (f);
      f->recover = f->snd_max;
      f->in_recovery = TRUE;
      f->stats.fast_retransmits++;
      send_segment (f, f->snd_una);
      f->cwnd = cwnd_cap (f, f->ssthresh + 3.0);
      log_cwnd (f);
      arm_rto (f);
      try_send (f);
    }
  }
}

static void
rto_fire (Sim * sim, gpointer user_data)
{
  SimTcpFlow *f = user_data;

  (void) sim;
  f->rto_timer = 0;
  if (!f->active || f->stopped || f->snd_una >= f->snd_max)
    return;
  f->stats.timeouts++;
  /* a second timeout on the same data does not reduce ssthresh again */
  if (f->backoff == 0)
    loss_event (f);
  f->cwnd = 1.0;
  f->recover = f->snd_max;
  f->in_recovery = FALSE;
  f->dupacks = 0;
  f->snd_nxt = f->snd_una;      /* go-back-N */
  if (f->backoff < 16)
    f->backoff++;
  log_cwnd (f);
  try_send (f);
  arm_rto (f);
}

static void
sender_process (SimNode * node, Sim * sim, SimPacket * p)
{
  SimTcpFlow *f = ((TcpEndpoint *) node)->flow;

  if (p->kind == SIM_PACKET_TCP_ACK && p->data)
    on_ack (f, p->data);
  sim_packet_free (sim, p);
}

static void
sender_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  SimTcpFlow *f = ((TcpEndpoint *) node)->flow;
  RtpccTime at;

  if (f->config.ack_jitter <= 0) {
    sender_process (&f->proc_ep.node, sim, p);
    return;
  }
  at = sim_now (sim) + (RtpccTime) rtpcc_rng_below (&f->rng,
      (guint64) f->config.ack_jitter);
  at = MAX (at, f->last_ack_at);        /* ACKs stay in order */
  f->last_ack_at = at;
  sim_deliver (sim, at, &f->proc_ep.node, p);
}

/* A new file on a fresh connection. */
static void
transfer_begin (SimTcpFlow * f)
{
  SimTcpTransfer tr;
  guint64 bytes = f->config.transfer_bytes;

  if (f->stopped)
    return;
  if (bytes > 0 && f->config.transfer_bytes_max > bytes)
    bytes += rtpcc_rng_below (&f->rng,
        f->config.transfer_bytes_max - bytes + 1);
  f->transfer++;
  f->active = TRUE;
  f->transfer_bytes = bytes;
  if (bytes == 0) {
    f->total_segs = LONG_LIVED_SEGS;
    f->last_payload = f->config.mss;
  } else {
    f->total_segs = (guint32) ((bytes + f->config.mss - 1) / f->config.mss);
    f->last_payload = (guint32) (bytes - (guint64) (f->total_segs - 1) *
        f->config.mss);
  }
  f->snd_una = f->snd_nxt = f->snd_max = 0;
  f->cwnd = cwnd_cap (f, f->config.initial_cwnd);
  f->ssthresh = G_MAXDOUBLE;
  f->dupacks = 0;
  f->in_recovery = FALSE;
  f->recover = 0;
  f->srtt = f->rttvar = RTPCC_TIME_NONE;
  f->rto = f->config.initial_rto;
  f->backoff = 0;
  f->w_max = 0.0;
  f->k = f->origin = f->w_est = 0.0;
  f->epoch_start = RTPCC_TIME_NONE;
  f->stats.transfers_started++;
  tr.start = sim_now (f->sim);
  tr.end = RTPCC_TIME_NONE;
  tr.bytes = bytes;
  g_array_append_val (f->transfers, tr);
  log_cwnd (f);
  try_send (f);
}

static void
next_transfer_fire (Sim * sim, gpointer user_data)
{
  SimTcpFlow *f = user_data;

  (void) sim;
  f->next_timer = 0;
  transfer_begin (f);
}

static void
start_fire (Sim * sim, gpointer user_data)
{
  SimTcpFlow *f = user_data;
  RtpccTime now = sim_now (sim);

  f->start_timer = 0;
  if (f->config.start_off && f->config.off_mean > 0) {
    RtpccTime off = (RtpccTime) (rtpcc_rng_exponential (&f->rng,
            RTPCC_TIME_AS_SEC (f->config.off_mean)) * RTPCC_NSEC_PER_SEC);
    if (now + off < f->config.stop)
      f->next_timer = sim_schedule (sim, now + off, next_transfer_fire, f);
    return;
  }
  transfer_begin (f);
}

static void
stop_fire (Sim * sim, gpointer user_data)
{
  SimTcpFlow *f = user_data;

  f->stop_timer = 0;
  f->stopped = TRUE;
  sim_cancel (sim, f->rto_timer);
  sim_cancel (sim, f->next_timer);
  f->rto_timer = f->next_timer = 0;
}

/* ------------------------------------------------------------------------ */
/* Receiver                                                                 */

static void
deliver (SimTcpFlow * f, guint32 payload)
{
  GoodputMark m;

  f->stats.delivered_bytes += payload;
  m.time = sim_now (f->sim);
  m.bytes = f->stats.delivered_bytes;
  if (f->goodput->len && g_array_index (f->goodput, GoodputMark,
          f->goodput->len - 1).time == m.time)
    g_array_index (f->goodput, GoodputMark, f->goodput->len - 1) = m;
  else
    g_array_append_val (f->goodput, m);
}

static void
on_data (SimTcpFlow * f, const TcpSegment * s)
{
  SimPacket *p;
  TcpSegment *a;

  if (s->transfer < f->r_transfer)
    return;                     /* from a finished connection */
  if (s->transfer > f->r_transfer) {
    f->r_transfer = s->transfer;
    f->rcv_nxt = 0;
    g_hash_table_remove_all (f->ooo);
    f->ts_recent = RTPCC_TIME_NONE;
  }
  if (s->seg == f->rcv_nxt) {
    gpointer v;
    deliver (f, s->payload);
    f->rcv_nxt++;
    while ((v = g_hash_table_lookup (f->ooo, GUINT_TO_POINTER (f->rcv_nxt)))) {
      deliver (f, GPOINTER_TO_UINT (v));
      g_hash_table_remove (f->ooo, GUINT_TO_POINTER (f->rcv_nxt));
      f->rcv_nxt++;
    }
    /* the segment that advanced the cumulative ACK is the one echoed */
    f->ts_recent = s->ts;
  } else if (s->seg > f->rcv_nxt) {
    g_hash_table_insert (f->ooo, GUINT_TO_POINTER (s->seg),
        GUINT_TO_POINTER (s->payload));
  }

  /* one ACK per segment (no delayed ACK), duplicates included */
  a = g_new0 (TcpSegment, 1);
  a->transfer = f->r_transfer;
  a->ack = f->rcv_nxt;
  a->ts = sim_now (f->sim);
  a->ts_echo = f->ts_recent;
  p = sim_packet_new (f->sim);
  p->flow = f->config.flow;
  p->kind = SIM_PACKET_TCP_ACK;
  p->seq = f->ack_seq++;
  p->size = f->config.header;
  p->created = p->sent = a->ts;
  p->data = a;
  p->data_free = g_free;
  f->stats.acks_out++;
  sim_node_receive (f->reverse, f->sim, p);
}

static void
receiver_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  SimTcpFlow *f = ((TcpEndpoint *) node)->flow;

  if (p->kind == SIM_PACKET_TCP_DATA && p->data)
    on_data (f, p->data);
  sim_packet_free (sim, p);
}

/* ------------------------------------------------------------------------ */
/* Flow                                                                     */

SimTcpFlow *
sim_tcp_flow_new (Sim * sim, const SimTcpConfig * config, SimNode * forward,
    GError ** error)
{
  SimTcpFlow *f;

  if (config->mss == 0 || config->mss > 65000 || config->header > 1000 ||
      config->initial_cwnd == 0 || config->min_rto <= 0 ||
      config->initial_rto <= 0 || config->start < 0 ||
      config->ack_jitter < 0 || config->ack_jitter > RTPCC_SEC (1) ||
      config->stop <= config->start || config->off_mean < 0 ||
      (config->transfer_bytes > 0 &&
          config->transfer_bytes / config->mss >= LONG_LIVED_SEGS - 1) ||
      (config->transfer_bytes_max > 0 &&
          config->transfer_bytes_max / config->mss >= LONG_LIVED_SEGS - 1) ||
      (config->transfer_bytes == 0 && config->off_mean > 0)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "invalid TCP flow configuration (flow %u)", config->flow);
    return NULL;
  }
  f = g_new0 (SimTcpFlow, 1);
  f->config = *config;
  f->sim = sim;
  f->forward = forward;
  f->snd_ep.node.receive = sender_receive;
  f->snd_ep.node.name = "tcp-sender";
  f->snd_ep.flow = f;
  f->proc_ep.node.receive = sender_process;
  f->proc_ep.node.name = "tcp-sender-ack";
  f->proc_ep.flow = f;
  f->rcv_ep.node.receive = receiver_receive;
  f->rcv_ep.node.name = "tcp-receiver";
  f->rcv_ep.flow = f;
  rtpcc_rng_init_stream (&f->rng, config->seed, config->flow);
  f->ooo = g_hash_table_new (g_direct_hash, g_direct_equal);
  f->cwnd_log = g_array_new (FALSE, FALSE, sizeof (SimTcpCwndSample));
  f->transfers = g_array_new (FALSE, FALSE, sizeof (SimTcpTransfer));
  f->goodput = g_array_new (FALSE, FALSE, sizeof (GoodputMark));
  f->srtt = f->rttvar = RTPCC_TIME_NONE;
  f->rto = config->initial_rto;
  f->ts_recent = RTPCC_TIME_NONE;
  f->start_timer = sim_schedule (sim, MAX (config->start, sim_now (sim)),
      start_fire, f);
  if (config->stop != RTPCC_TIME_INFINITE)
    f->stop_timer = sim_schedule (sim, MAX (config->stop, sim_now (sim)),
        stop_fire, f);
  return f;
}

void
sim_tcp_flow_free (SimTcpFlow * f)
{
  if (!f)
    return;
  sim_cancel (f->sim, f->start_timer);
  sim_cancel (f->sim, f->stop_timer);
  sim_cancel (f->sim, f->rto_timer);
  sim_cancel (f->sim, f->next_timer);
  g_hash_table_destroy (f->ooo);
  g_array_free (f->cwnd_log, TRUE);
  g_array_free (f->transfers, TRUE);
  g_array_free (f->goodput, TRUE);
  g_free (f);
}

void
sim_tcp_flow_set_reverse (SimTcpFlow * f, SimNode * reverse)
{
  f->reverse = reverse;
}

SimNode *
sim_tcp_flow_sender_node (SimTcpFlow * f)
{
  return &f->snd_ep.node;
}

SimNode *
sim_tcp_flow_receiver_node (SimTcpFlow * f)
{
  return &f->rcv_ep.node;
}

const SimTcpConfig *
sim_tcp_flow_get_config (SimTcpFlow * f)
{
  return &f->config;
}

void
sim_tcp_flow_get_stats (SimTcpFlow * f, SimTcpStats * stats)
{
  *stats = f->stats;
  stats->cwnd = f->cwnd;
  stats->ssthresh = f->ssthresh;
  stats->srtt = f->srtt;
  stats->rto = f->rto;
}

const SimTcpCwndSample *
sim_tcp_flow_get_cwnd_log (SimTcpFlow * f, guint * n)
{
  *n = f->cwnd_log->len;
  return (const SimTcpCwndSample *) f->cwnd_log->data;
}

const SimTcpTransfer *
sim_tcp_flow_get_transfers (SimTcpFlow * f, guint * n)
{
  *n = f->transfers->len;
  return (const SimTcpTransfer *) f->transfers->data;
}

/* Cumulative delivered bytes at @t (marks strictly before @t). */
static guint64
delivered_before (SimTcpFlow * f, RtpccTime t)
{
  guint lo = 0, hi = f->goodput->len;
  const GoodputMark *m = (const GoodputMark *) f->goodput->data;

  while (lo < hi) {
    guint mid = (lo + hi) / 2;
    if (m[mid].time < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? m[lo - 1].bytes : 0;
}

gdouble
sim_tcp_flow_goodput_kbps (SimTcpFlow * f, RtpccTime t0, RtpccTime t1)
{
  if (t1 <= t0)
    return 0.0;
  return (delivered_before (f, t1) - delivered_before (f, t0)) * 8.0 /
      RTPCC_TIME_AS_SEC (t1 - t0) / 1000.0;
}

SimTcpFlow *
sim_rtpcc_net_add_tcp (SimRtpccNet * net, const SimTcpConfig * config,
    GError ** error)
{
  SimTcpFlow *f;

  for (guint i = 0; i < net->flows->len; i++) {
    if (((SimRtpccFlow *) net->flows->pdata[i])->flow == config->flow)
      goto used;
  }
  for (guint i = 0; net->tcp_flows && i < net->tcp_flows->len; i++) {
    if (((SimTcpFlow *) net->tcp_flows->pdata[i])->config.flow ==
        config->flow)
      goto used;
  }
  f = sim_tcp_flow_new (net->sim, config, sim_tap_node (net->send_tap),
      error);
  if (!f)
    return NULL;
  sim_tcp_flow_set_reverse (f, sim_link_node (net->reverse));
  sim_demux_set_route (net->forward_demux, config->flow,
      sim_tcp_flow_receiver_node (f));
  sim_demux_set_route (net->reverse_demux, config->flow,
      sim_tcp_flow_sender_node (f));
  sim_metrics_add_flow (net->metrics, config->flow);
  if (!net->tcp_flows)
    net->tcp_flows =
        g_ptr_array_new_with_free_func ((GDestroyNotify) sim_tcp_flow_free);
  g_ptr_array_add (net->tcp_flows, f);
  return f;

used:
  g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
      "flow id %u is already in use", config->flow);
  return NULL;
}

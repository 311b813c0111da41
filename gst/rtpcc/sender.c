/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/sender.h>
#include <rtpcc/circuitbreaker.h>
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/ccfb.h>
#include <rtpcc/feedback/twcc.h>
#include <rtpcc/feedback/rtpext.h>
#include <rtpcc/feedback/xr.h>
#include <rtpcc/rng.h>
#include <rtpcc/fec/fec.h>

#include <string.h>

/* Sent-packet history: enough for several seconds at video rates. */
#define HISTORY_SIZE 16384
/* RTP seq → history lookup ring per SSRC */
#define SEQMAP_SIZE 8192
/* a missing packet is lost once this many later packets have arrived
 * (RFC 5348 §5.1 NDUPACK) */
#define NDUPACK 3

typedef enum
{
  PKT_SENT,                     /* no feedback yet */
  PKT_MISSING,                  /* reported not received (yet) */
  PKT_RECEIVED,
  PKT_LOST,
} PktState;

typedef struct
{
  guint64 seq;                  /* sender-wide; 0 = empty slot */
  guint32 ssrc;
  guint16 rtp_seq;              /* on the wire */
  guint16 orig_seq;             /* as queued (differs once renumbered) */
  guint8 state;
  gboolean is_fec;
  gboolean padding;             /* a padding-only probe */
  guint size;
  RtpccTime send_time;
  RtpccTime arrival;            /* sender timeline (see remote_offset) */
} SentEntry;

typedef struct
{
  guint32 ssrc;
  guint32 clock_rate;
  guint32 last_rtp_ts;
  RtpccTime last_rtp_time;
  guint32 packet_count, octet_count;
  guint32 packets_at_last_report;       /* for RtpccReceiverReport */
  guint64 seqmap[SEQMAP_SIZE];  /* wire seq & mask → sender seq (0 = none) */
  /* MEDIA probe mode: wire seq = original + seq_offset (one more per
   * padding packet); origmap finds a sent packet by its original seq */
  guint16 seq_offset;
  gboolean renumbered;          /* seq_offset was ever non-zero */
  gboolean fec_protected;       /* never pad: FEC refers to original seqs */
  gboolean have_media;          /* a non-FEC packet was sent */
  gboolean last_marker;         /* ... and the last one ended a frame */
  guint16 last_wire_seq;
  guint16 last_orig;            /* newest original seq sent (MEDIA mode) */
  gboolean have_orig;
  guint8 last_pt;
  guint32 last_media_ts;
  guint64 *origmap;             /* MEDIA mode only */
} Stream;

typedef struct
{
  RtpccRtpInfo info;
  gpointer handle;
} QueuedItem;

struct _RtpccSender
{
  RtpccSenderConfig config;
  gchar *cname;
  gchar *controller_name;
  GDestroyNotify free_func;
  RtpccRng rng;

  RtpccController *cc;
  RtpccCircuitBreaker *breaker;
  RtpccPacer *pacer;

  GHashTable *streams;          /* ssrc → Stream* */
  guint32 rtcp_ssrc;

  SentEntry *history;
  guint64 next_seq;             /* next sender-wide seq (starts at 1) */
  guint64 oldest_unresolved;    /* lowest seq not yet received/lost */
  guint64 highest_received;

  /* mapping the receiver's report clock onto ours (constant, unknown offset) */
  gboolean have_remote;
  RtpccTime remote_offset;
  RtpccTime last_report_remote; /* unwrapped receiver time of last report */
  RtpccTime min_owd;            /* minimum arrival − send seen (with offset) */

  /* RTCP (SR) scheduling; LSR bookkeeping for RR round-trip times */
  RtpccTime next_rtcp;
  guint32 last_sr_lsr;

  GArray *reports;              /* RtpccPacketReport scratch */
  GArray *pending_discards;     /* RtpccPacketReport from XR, for the cc */
  RtpccTwccUnwrapper *twcc;     /* TWCC mode: feedback → our seqs/timeline */
  GArray *twcc_results;         /* RtpccTwccResult scratch */
  guint twcc_epoch;

  /* feedback-mismatch detection */
  RtpccTime first_sent;
  gboolean any_rtcp;

  /* loss events (RFC 5348 §5.2: losses within one RTT of the first are one
   * event) among packets reported since the last RTCP report, for the
   * breaker's TCP equation */
  guint64 cb_reported, cb_events;
  guint64 report_blocks_seen;
  RtpccTime last_event_send;
  gboolean has_feedback;

  /* published target: the controller's, overridden by the breaker */
  RtpccTarget target;
  guint64 generation;

  /* probing */
  guint16 probe_seq;
  guint32 probe_ts;
  RtpccTime probe_next;         /* NONE: not probing */
  guint8 media_pt;
  gboolean have_media_pt;
  RtpccTime last_media_fec;     /* last is_fec packet queued, or NONE */
  guint32 pad_ssrc;             /* MEDIA mode: SSRC of the last media sent */
  gboolean any_renumbered;
  gboolean have_pad_ssrc;

  /* send rate over a sliding window */
  RtpccTime rate_window_start;
  guint64 rate_window_bytes;
  guint64 send_rate;

  /* receive rate from feedback */
  RtpccTime rr_window_start;
  guint64 rr_window_bytes;

  RtpccSenderStats stats;
};

const gchar *
rtpcc_feedback_mode_name (RtpccFeedbackMode mode)
{
  switch (mode) {
    case RTPCC_FEEDBACK_CCFB:
      return "ccfb";
    case RTPCC_FEEDBACK_RR:
      return "rr";
    case RTPCC_FEEDBACK_TWCC:
      return "twcc";
  }
  return "unknown";
}

void
rtpcc_sender_config_init (RtpccSenderConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->controller = "tfrc";
  rtpcc_controller_config_init (&config->cc);
  config->feedback = RTPCC_FEEDBACK_CCFB;
  config->rtcp_interval = RTPCC_SEC (1);
  rtpcc_pacer_config_init (&config->pacer);
  config->pacing = TRUE;
  config->circuit_breaker = TRUE;
  config->probing = TRUE;
  config->cname = "rtpcc@localhost";
}

/* Packets a window controller holds back wait in the pacer; if the encoder
 * keeps producing at the window's rate, a backlog built during a transient
 * never drains (seconds of delay in the §5.1 simulation with ccid2). When
 * the oldest packet has waited longer than the pacer's bound, the media
 * target is lowered by what drains the backlog within BACKLOG_DRAIN,
 * quantised so the encoder is not poked for every packet. */
#define BACKLOG_DRAIN RTPCC_SEC (1)

static void
apply_backlog (RtpccSender * s, RtpccTime now, RtpccTarget * t)
{
  guint64 bytes = rtpcc_pacer_get_bytes (s->pacer), cut, step, floor_bps;

  if (bytes == 0 || rtpcc_pacer_get_head_age (s->pacer, now) <=
      MAX (s->config.pacer.max_delay, RTPCC_MSEC (10)))
    return;
  cut = (guint64) (bytes * 8.0 / RTPCC_TIME_AS_SEC (BACKLOG_DRAIN));
  step = MAX (t->target_bitrate / 32, 8000);
  cut = (cut + step - 1) / step * step;
  floor_bps = s->config.cc.min_bitrate;
  t->media_bitrate = t->media_bitrate > floor_bps + cut ?
      t->media_bitrate - cut : MIN (t->media_bitrate, floor_bps);
  t->reason = "sender-backlog";
}

static void
refresh_target (RtpccSender * s, RtpccTime now)
{
  RtpccTarget t = s->cc->target;

  apply_backlog (s, now, &t);

  if (s->breaker && rtpcc_circuit_breaker_is_tripped (s->breaker)) {
    /* RFC 8083: cease or cut back hard; we keep RTCP flowing and hold the
     * target at the minimum until the breaker clears. */
    t.target_bitrate = t.media_bitrate = s->config.cc.min_bitrate;
    t.fec_bitrate = 0;
    t.pacing_rate = s->config.cc.min_bitrate;
    t.state = "circuit-breaker";
    t.reason = rtpcc_circuit_breaker_reason_name
        (rtpcc_circuit_breaker_get_reason (s->breaker));
  }
  if (memcmp (&t, &s->target, sizeof (t)) != 0) {
    s->target = t;
    s->generation++;
  }
  if (s->config.pacing)
    rtpcc_pacer_set_rate (s->pacer, t.pacing_rate);
}

static void
stream_free (gpointer data)
{
  Stream *st = data;
  g_free (st->origmap);
  g_free (st);
}

RtpccSender *
rtpcc_sender_new (const RtpccSenderConfig * config, RtpccTime now,
    GError ** error)
{
  RtpccSender *s;
  RtpccController *cc;

  cc = rtpcc_controller_new (config->controller ? config->controller : "tfrc",
      &config->cc, now, error);
  if (!cc)
    return NULL;

  s = g_new0 (RtpccSender, 1);
  s->config = *config;
  s->cname = g_strdup (config->cname ? config->cname : "rtpcc@localhost");
  s->controller_name = g_strdup (cc->ops->name);
  s->config.cname = s->cname;
  s->config.controller = s->controller_name;
  if (s->config.rtcp_interval <= 0)
    s->config.rtcp_interval = RTPCC_SEC (1);
  rtpcc_rng_init_stream (&s->rng, config->seed, 0x5e4d);
  s->cc = cc;
  {
    /* the byte limit is enforced here, where handles can be freed */
    RtpccPacerConfig pc = config->pacer;
    pc.max_bytes = 0;
    s->pacer = rtpcc_pacer_new (&pc);
  }
  s->streams = g_hash_table_new_full (NULL, NULL, NULL, stream_free);
  s->rtcp_ssrc = config->rtcp_ssrc;
  s->history = g_new0 (SentEntry, HISTORY_SIZE);
  s->next_seq = 1;
  s->oldest_unresolved = 1;
  s->reports = g_array_new (FALSE, FALSE, sizeof (RtpccPacketReport));
  s->pending_discards = g_array_new (FALSE, FALSE,
      sizeof (RtpccPacketReport));
  if (config->feedback == RTPCC_FEEDBACK_TWCC) {
    s->twcc = rtpcc_twcc_unwrapper_new ();
    s->twcc_results = g_array_new (FALSE, FALSE, sizeof (RtpccTwccResult));
  }
  s->next_rtcp = now;
  s->min_owd = RTPCC_TIME_NONE;
  s->last_event_send = RTPCC_TIME_NONE;
  s->first_sent = RTPCC_TIME_NONE;
  s->rate_window_start = now;
  s->rr_window_start = RTPCC_TIME_NONE;
  s->probe_next = RTPCC_TIME_NONE;
  s->last_media_fec = RTPCC_TIME_NONE;
  while (s->config.probe_ssrc == 0)
    s->config.probe_ssrc = (guint32) rtpcc_rng_next_u64 (&s->rng);
  s->probe_seq = (guint16) rtpcc_rng_next_u64 (&s->rng);
  s->probe_ts = (guint32) rtpcc_rng_next_u64 (&s->rng);
  s->stats.rtt = s->stats.srtt = RTPCC_TIME_NONE;

  if (config->circuit_breaker) {
    RtpccCircuitBreakerConfig bc;
    rtpcc_circuit_breaker_config_init (&bc);
    bc.rtcp_interval = s->config.rtcp_interval;
    bc.packet_size = s->config.cc.packet_size;
    s->breaker = rtpcc_circuit_breaker_new (&bc, now);
  }
  refresh_target (s, now);
  return s;
}

static void
free_handle (RtpccSender * s, gpointer handle)
{
  if (s->free_func && handle)
    s->free_func (handle);
}

void
rtpcc_sender_free (RtpccSender * s)
{
  QueuedItem *it;

  if (!s)
    return;
  while ((it = rtpcc_pacer_pop_any (s->pacer, NULL))) {
    free_handle (s, it->handle);
    g_free (it);
  }
  rtpcc_pacer_free (s->pacer);
  rtpcc_controller_free (s->cc);
  if (s->breaker)
    rtpcc_circuit_breaker_free (s->breaker);
  g_hash_table_unref (s->streams);
  g_array_unref (s->reports);
  g_array_unref (s->pending_discards);
  if (s->twcc)
    rtpcc_twcc_unwrapper_free (s->twcc);
  if (s->twcc_results)
    g_array_unref (s->twcc_results);
  g_free (s->history);
  g_free (s->cname);
  g_free (s->controller_name);
  g_free (s);
}

void
rtpcc_sender_set_free_func (RtpccSender * s, GDestroyNotify func)
{
  s->free_func = func;
}

static Stream *
stream_new (RtpccSender * s, guint32 ssrc)
{
  Stream *st = g_new0 (Stream, 1);

  st->ssrc = ssrc;
  /* packets sent before the first padding must be found by their original
   * seq too (rtpcc_sender_map_seq) */
  if (s->config.probe_ssrc_mode == RTPCC_PROBE_SSRC_MEDIA)
    st->origmap = g_new0 (guint64, SEQMAP_SIZE);
  g_hash_table_insert (s->streams, GUINT_TO_POINTER (ssrc), st);
  return st;
}

static Stream *
get_stream (RtpccSender * s, const RtpccRtpInfo * info)
{
  Stream *st = g_hash_table_lookup (s->streams, GUINT_TO_POINTER (info->ssrc));

  if (!st) {
    st = stream_new (s, info->ssrc);
    if (s->rtcp_ssrc == 0)
      s->rtcp_ssrc = info->ssrc;
  }
  if (info->clock_rate)
    st->clock_rate = info->clock_rate;
  return st;
}

void
rtpcc_sender_enqueue (RtpccSender * s, RtpccTime now, const RtpccRtpInfo * info,
    gpointer handle)
{
  QueuedItem *it = g_new (QueuedItem, 1);
  guint dropped;

  it->info = *info;
  it->handle = handle;
  if (info->is_fec) {
    s->last_media_fec = now;
    s->stats.fec_packets_enqueued++;
  }
  if (!s->have_media_pt && !info->is_fec) {
    s->media_pt = info->pt;
    s->have_media_pt = TRUE;
  }
  s->stats.packets_enqueued++;
  s->stats.bytes_enqueued += info->size;
  {
    Stream *st = get_stream (s, info);
    /* FEC in the media's own sequence space (ULPFEC) protects it by
     * original seqs: no padding may shift them */
    if (info->is_fec)
      st->fec_protected = TRUE;
    if (st->packet_count == 0) {
      /* nothing sent yet: an SR now maps "now" to this packet's clock */
      st->last_rtp_ts = info->rtp_ts;
      st->last_rtp_time = now;
    }
  }

  /* Over the limit the oldest go: they are the most likely to be useless by
   * the time they would arrive. */
  dropped = 0;
  while (s->config.pacer.max_bytes && rtpcc_pacer_get_bytes (s->pacer) +
      info->size > s->config.pacer.max_bytes
      && rtpcc_pacer_get_packets (s->pacer) > 0) {
    QueuedItem *old = rtpcc_pacer_pop_any (s->pacer, NULL);
    free_handle (s, old->handle);
    g_free (old);
    dropped++;
  }
  s->stats.pacer_drops += dropped;
  rtpcc_pacer_push (s->pacer, now, it, info->size);
}

static SentEntry *
history_get (RtpccSender * s, guint64 seq)
{
  SentEntry *e;
  if (seq == 0 || seq >= s->next_seq || s->next_seq - seq > HISTORY_SIZE)
    return NULL;
  e = &s->history[seq % HISTORY_SIZE];
  return e->seq == seq ? e : NULL;
}

/* @orig_seq: the seq as queued (info->seq is the wire seq); @padding: a
 * padding-only probe, which carries no payload octets and no clock */
static void
record_sent (RtpccSender * s, RtpccTime now, const RtpccRtpInfo * info,
    guint16 orig_seq, gboolean padding)
{
  Stream *st = get_stream (s, info);
  guint64 seq = s->next_seq++;
  SentEntry *e = &s->history[seq % HISTORY_SIZE];
  RtpccSentPacket sp;

  /* an entry about to be overwritten unresolved is given up as lost to
   * feedback: it no longer matters to anyone */
  if (s->oldest_unresolved + HISTORY_SIZE <= seq)
    s->oldest_unresolved = seq - HISTORY_SIZE + 1;

  memset (e, 0, sizeof (*e));
  e->seq = seq;
  e->ssrc = info->ssrc;
  e->rtp_seq = info->seq;
  e->orig_seq = orig_seq;
  e->state = PKT_SENT;
  e->is_fec = info->is_fec;
  e->padding = padding;
  e->size = info->size;
  e->send_time = now;
  st->seqmap[info->seq % SEQMAP_SIZE] = seq;
  if (st->origmap && !padding)
    st->origmap[orig_seq % SEQMAP_SIZE] = seq;
  st->packet_count++;
  /* RFC 3550 §6.4.1: the octet count excludes header and padding; a
   * padding packet repeats the last media timestamp, so it must not move
   * the SR's RTP clock anchor either */
  if (!padding) {
    st->last_rtp_ts = info->rtp_ts;
    st->last_rtp_time = now;
    st->octet_count += info->size >= 12 ? info->size - 12 : 0;
  }

  if (s->first_sent == RTPCC_TIME_NONE)
    s->first_sent = now;
  s->stats.packets_sent++;
  s->stats.bytes_sent += info->size;
  s->rate_window_bytes += info->size;
  if (now - s->rate_window_start >= RTPCC_MSEC (500)) {
    s->send_rate = (guint64) (s->rate_window_bytes * 8.0 /
        RTPCC_TIME_AS_SEC (now - s->rate_window_start));
    s->rate_window_start = now;
    s->rate_window_bytes = 0;
  }

  sp.seq = seq;
  sp.send_time = now;
  sp.size = info->size;
  sp.app_limited = rtpcc_pacer_get_packets (s->pacer) == 0;
  sp.is_fec = info->is_fec;
  sp.queued_bytes = rtpcc_pacer_get_bytes (s->pacer);
  sp.frame_end = info->marker && !info->is_fec;
  rtpcc_controller_packet_sent (s->cc, now, &sp);
  if (s->breaker)
    rtpcc_circuit_breaker_on_sent (s->breaker, now, info->size);
}

/* MEDIA mode: the stream padding may go on now — that of the last media
 * packet sent, if it ended a frame (padding inside a frame would sit
 * between fragments a depayloader reassembles) and no FEC protects it. */
static Stream *
pad_stream (const RtpccSender * s)
{
  Stream *st;

  if (!s->have_pad_ssrc)
    return NULL;
  st = g_hash_table_lookup (s->streams, GUINT_TO_POINTER (s->pad_ssrc));
  if (!st || !st->have_media || !st->last_marker || st->fec_protected)
    return NULL;
  return st;
}

/* Probe bytes go out while the published target asks for them, at that
 * rate; media keeps its own pacing. Real FEC from the application (I2:
 * fecenc follows fec-bitrate) is the probe when it flows: padding on top
 * would probe twice the asked rate. */
static gboolean
probing_wanted (const RtpccSender * s, RtpccTime now)
{
  if (s->last_media_fec != RTPCC_TIME_NONE
      && now - s->last_media_fec < RTPCC_SENDER_FEC_HOLDOFF)
    return FALSE;
  if (!s->config.probing || s->target.fec_bitrate == 0 || !s->have_media_pt
      || (s->breaker && rtpcc_circuit_breaker_is_tripped (s->breaker)))
    return FALSE;
  /* media mode waits for a frame end (the next one wakes the caller) */
  return s->config.probe_ssrc_mode != RTPCC_PROBE_SSRC_MEDIA
      || pad_stream (s) != NULL;
}

gboolean
rtpcc_sender_dequeue_probe (RtpccSender * s, RtpccTime now,
    RtpccRtpInfo * info)
{
  RtpccRtpInfo pi = { 0, };
  Stream *st = NULL;

  if (!probing_wanted (s, now)) {
    /* MEDIA mode mid-frame keeps its schedule: the probe goes after the
     * frame's last packet */
    if (s->config.probe_ssrc_mode != RTPCC_PROBE_SSRC_MEDIA
        || s->target.fec_bitrate == 0)
      s->probe_next = RTPCC_TIME_NONE;
    return FALSE;
  }
  if (s->probe_next == RTPCC_TIME_NONE)
    s->probe_next = now;
  if (now < s->probe_next)
    return FALSE;

  pi.size = RTPCC_PROBE_PACKET_SIZE;
  pi.is_fec = TRUE;
  pi.marker = FALSE;
  if (s->config.probe_ssrc_mode == RTPCC_PROBE_SSRC_MEDIA) {
    /* the media's next wire seq, its PT and last timestamp: to a receiver
     * one more packet of the frame just ended, with nothing to decode */
    st = pad_stream (s);
    pi.ssrc = st->ssrc;
    pi.seq = (guint16) (st->last_wire_seq + 1);
    pi.pt = st->last_pt;
    pi.rtp_ts = st->last_media_ts;
    pi.clock_rate = st->clock_rate;
    st->seq_offset++;
    st->renumbered = TRUE;
    s->any_renumbered = TRUE;
    st->last_wire_seq = pi.seq;
  } else {
    pi.ssrc = s->config.probe_ssrc;
    pi.seq = s->probe_seq++;
    pi.pt = s->config.probe_pt ? s->config.probe_pt : s->media_pt;
    pi.clock_rate = 90000;
    /* a clock that advances like media's keeps receivers' jitter sane */
    pi.rtp_ts = s->probe_ts + (guint32) (RTPCC_TIME_AS_SEC (now) * 90000.0);
  }
  if (s->config.feedback == RTPCC_FEEDBACK_TWCC) {
    pi.has_twcc = TRUE;
    pi.twcc_seq = (guint16) ((s->next_seq - 1) & 0xFFFF);
  }
  /* a padding packet has no original seq (and takes no origmap slot) */
  record_sent (s, now, &pi, pi.seq, TRUE);
  s->stats.probe_packets++;
  s->stats.probe_bytes += pi.size;
  if (st)
    s->stats.probe_media_packets++;
  /* next probe one packet time later at the requested rate; no catching
   * up after a late wake-up (probes are a measurement, not a debt) */
  s->probe_next = MAX (s->probe_next, now - RTPCC_MSEC (5)) +
      (RtpccTime) (pi.size * 8.0 * RTPCC_NSEC_PER_SEC /
      (gdouble) s->target.fec_bitrate);
  if (info)
    *info = pi;
  return TRUE;
}

void
rtpcc_sender_note_fec_protected (RtpccSender * s, guint32 ssrc)
{
  Stream *st = g_hash_table_lookup (s->streams, GUINT_TO_POINTER (ssrc));

  /* FEC follows the media it protects, so the stream exists; an SSRC we
   * never queued (a bogus header) is not made one of ours */
  if (st)
    st->fec_protected = TRUE;
}

gboolean
rtpcc_sender_map_seq (RtpccSender * s, guint32 ssrc, guint16 orig_seq,
    guint16 * wire_seq)
{
  Stream *st = g_hash_table_lookup (s->streams, GUINT_TO_POINTER (ssrc));
  SentEntry *e;

  if (!st || !st->renumbered || !st->origmap)
    return FALSE;
  e = history_get (s, st->origmap[orig_seq % SEQMAP_SIZE]);
  if (e && e->ssrc == ssrc && e->orig_seq == orig_seq && !e->is_fec)
    *wire_seq = e->rtp_seq;
  else
    *wire_seq = (guint16) (orig_seq + st->seq_offset);
  return TRUE;
}

gboolean
rtpcc_sender_fec_needs_rewrite (const RtpccSender * s)
{
  return s->any_renumbered;
}

RtpccSenderFecResult
rtpcc_sender_rewrite_fec (RtpccSender * s, guint8 * rtp, gsize len)
{
  RtpccFecPacket fp;
  guint16 seqs[RTPCC_FEC_MAX_SPAN], wire, base = 0;
  guint64 mask = 0;
  guint n, prev = 0, i;
  gsize off;

  if (!s->any_renumbered || !rtpcc_fec_packet_parse (rtp, len, &fp, NULL))
    return RTPCC_SENDER_FEC_KEPT;
  n = rtpcc_fec_mask_seqs (fp.mask, fp.base, seqs);
  for (i = 0; i < n; i++) {
    guint d;
    if (!rtpcc_sender_map_seq (s, fp.ssrc, seqs[i], &wire))
      break;                    /* the SSRC was never renumbered */
    if (i == 0)
      base = wire;
    d = (guint16) (wire - base);
    if (d >= RTPCC_FEC_MAX_SPAN || (i > 0 && d <= prev)) {
      rtpcc_fec_packet_clear (&fp);
      s->stats.fec_rewrite_drops++;
      return RTPCC_SENDER_FEC_DROP;
    }
    mask |= G_GUINT64_CONSTANT (1) << (RTPCC_FEC_MAX_SPAN - 1 - d);
    prev = d;
  }
  if (i < n || (base == fp.base && mask == fp.mask)) {
    rtpcc_fec_packet_clear (&fp);
    return RTPCC_SENDER_FEC_KEPT;
  }
  rtpcc_fec_packet_clear (&fp);
  /* the FEC header follows the RTP header (parsed above, so in bounds) */
  off = 12 + 4 * (rtp[0] & 0x0f);
  if (rtp[0] & 0x10)
    off += 4 + 4 * (gsize) ((rtp[off + 2] << 8) | rtp[off + 3]);
  rtp[off + 8] = (guint8) (base >> 8);
  rtp[off + 9] = (guint8) base;
  for (i = 0; i < 6; i++)
    rtp[off + 10 + i] = (guint8) (mask >> (8 * (5 - i)));
  s->stats.fec_rewritten++;
  return RTPCC_SENDER_FEC_REWRITTEN;
}

/* MEDIA mode: the wire seq of a packet whose original seq is not newer
 * than the newest sent (an upstream duplicate, or one that upstream
 * reordered): a duplicate repeats its first wire seq, a late one takes the
 * slot it would have had, the wire seq of the next original seq sent less
 * the distance (padding only goes after sent packets, so none sits in
 * between). Anything else would collide with padding or a later packet. */
#define LATE_SEARCH 512

static guint16
old_wire_seq (RtpccSender * s, Stream * st, guint16 orig_seq)
{
  guint16 ahead = (guint16) (st->last_orig - orig_seq);

  for (guint k = 0; k <= MIN (ahead, LATE_SEARCH); k++) {
    guint16 o = (guint16) (orig_seq + k);
    SentEntry *e = history_get (s, st->origmap[o % SEQMAP_SIZE]);

    if (e && e->ssrc == st->ssrc && e->orig_seq == o && !e->padding)
      return (guint16) (e->rtp_seq - k);
  }
  return (guint16) (orig_seq + st->seq_offset);
}

gpointer
rtpcc_sender_dequeue (RtpccSender * s, RtpccTime now, RtpccRtpInfo * info)
{
  QueuedItem *it;
  gpointer handle;
  guint size;
  Stream *st;
  guint16 orig_seq;
  gboolean newest;

  if (rtpcc_pacer_get_packets (s->pacer) == 0)
    return NULL;

  if (s->breaker && rtpcc_circuit_breaker_should_stop (s->breaker)) {
    /* RFC 8083 §4: cease transmission; drop what is queued (counted) */
    while ((it = rtpcc_pacer_pop_any (s->pacer, NULL))) {
      s->stats.breaker_drops++;
      free_handle (s, it->handle);
      g_free (it);
    }
    return NULL;
  }

  if (!rtpcc_controller_can_send (s->cc, now,
          rtpcc_pacer_get_packets (s->pacer) ? 1200 : 0))
    return NULL;
  it = rtpcc_pacer_pop (s->pacer, now, &size, NULL);
  if (!it)
    return NULL;
  if (s->config.feedback == RTPCC_FEEDBACK_TWCC) {
    /* transport-wide seq = our sender-wide seq − 1 (both +1 per packet):
     * feedback maps straight back into the history */
    it->info.has_twcc = TRUE;
    it->info.twcc_seq = (guint16) ((s->next_seq - 1) & 0xFFFF);
  }
  /* to the wire's sequence space (identity until padding went on it) */
  st = get_stream (s, &it->info);
  orig_seq = it->info.seq;
  /* far behind is an upstream restart of the numbering, not a late one */
  newest = !(st->origmap && st->have_orig
      && (gint16) (guint16) (orig_seq - st->last_orig) <= 0
      && (guint16) (st->last_orig - orig_seq) <= LATE_SEARCH);
  if (!newest) {
    /* it must not move where the next padding goes either */
    it->info.seq = old_wire_seq (s, st, orig_seq);
  } else {
    it->info.seq = (guint16) (orig_seq + st->seq_offset);
    st->last_wire_seq = it->info.seq;
    st->last_orig = orig_seq;
    st->have_orig = TRUE;
  }
  if (!it->info.is_fec && newest) {
    st->have_media = TRUE;
    st->last_marker = it->info.marker;
    st->last_pt = it->info.pt;
    st->last_media_ts = it->info.rtp_ts;
    s->pad_ssrc = st->ssrc;
    s->have_pad_ssrc = TRUE;
  }
  record_sent (s, now, &it->info, orig_seq, FALSE);
  refresh_target (s, now);
  if (info)
    *info = it->info;
  handle = it->handle;
  g_free (it);
  return handle;
}

static RtpccTime
now_ntp_short_time (RtpccSender * s, RtpccTime now, guint32 * out_short)
{
  guint64 ntp = rtpcc_ntp_from_time (now, s->config.ntp_offset);
  *out_short = rtpcc_ntp_short (ntp);
  return now;
}

static void
update_rtt (RtpccSender * s, RtpccTime sample)
{
  if (sample <= 0)
    return;
  s->stats.rtt = sample;
  if (s->stats.srtt == RTPCC_TIME_NONE)
    s->stats.srtt = sample;
  else
    s->stats.srtt = (7 * s->stats.srtt + sample) / 8;   /* RFC 6298 */
}

static gint
compare_reports (gconstpointer a, gconstpointer b)
{
  const RtpccPacketReport *x = a, *y = b;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
add_report (RtpccSender * s, SentEntry * e)
{
  RtpccPacketReport r;

  r.seq = e->seq;
  r.send_time = e->send_time;
  r.size = e->size;
  r.received = e->state == PKT_RECEIVED;
  r.arrival = r.received ? e->arrival : RTPCC_TIME_NONE;
  r.ecn = 0;
  r.is_fec = e->is_fec;
  g_array_append_val (s->reports, r);
  if (r.received) {
    s->stats.reported_received++;
    if (e->padding)
      s->stats.probe_reported_received++;
  } else {
    RtpccTime rtt = s->stats.srtt != RTPCC_TIME_NONE ? s->stats.srtt :
        RTPCC_MSEC (100);
    s->stats.reported_lost++;
    if (s->last_event_send == RTPCC_TIME_NONE
        || e->send_time > s->last_event_send + rtt) {
      s->cb_events++;
      s->last_event_send = e->send_time;
    }
  }
  s->cb_reported++;
}

/* Losses: a packet not received when NDUPACK later packets have been is
 * lost, whether it was reported missing or never reported at all. */
static void
declare_losses (RtpccSender * s)
{
  guint64 threshold = 0;
  guint found = 0;

  /* the NDUPACK-th highest received packet: every unresolved one below it
   * has NDUPACK received packets after it (RFC 5348 §5.1) */
  for (guint64 q = s->highest_received; q > 0 && q >= s->oldest_unresolved;
      q--) {
    SentEntry *e = history_get (s, q);
    if (e && e->state == PKT_RECEIVED && ++found == NDUPACK) {
      threshold = q;
      break;
    }
  }
  while (s->oldest_unresolved < threshold) {
    SentEntry *e = history_get (s, s->oldest_unresolved);
    if (e && (e->state == PKT_SENT || e->state == PKT_MISSING)) {
      e->state = PKT_LOST;
      add_report (s, e);
    }
    s->oldest_unresolved++;
  }
  /* skip over resolved entries */
  for (;;) {
    SentEntry *e = history_get (s, s->oldest_unresolved);
    if (!e || (e->state != PKT_RECEIVED && e->state != PKT_LOST))
      break;
    s->oldest_unresolved++;
  }
}

/* What every per-packet feedback does once its packets are marked: the
 * breaker's sign of life, NDUPACK losses, statistics, the controller.
 * @report_time is the receiver's report instant on our timeline, or NONE
 * (TWCC has none: the newest arrival stands in). @arrival_resolution is
 * the format's arrival-time unit. */
static void
finish_feedback (RtpccSender * s, RtpccTime now, RtpccTime sample,
    RtpccTime report_time, RtpccTime arrival_resolution)
{
  gdouble lost = 0, total = 0;

  if (s->pending_discards->len > 0) {
    /* XR discards ride with the compound's per-packet feedback */
    rtpcc_controller_discards (s->cc, now, (const RtpccPacketReport *)
        s->pending_discards->data, s->pending_discards->len);
    g_array_set_size (s->pending_discards, 0);
  }
  if (s->breaker)
    rtpcc_circuit_breaker_on_feedback (s->breaker, now);
  declare_losses (s);
  if (s->reports->len == 0)
    return;

  {
    RtpccFeedback f;
    g_array_sort (s->reports, compare_reports);
    for (guint i = 0; i < s->reports->len; i++) {
      const RtpccPacketReport *r = &g_array_index (s->reports,
          RtpccPacketReport, i);
      /* FEC and probe padding are not media: their loss is not the
       * media's (Part C.2) */
      if (r->is_fec)
        continue;
      total++;
      if (!r->received)
        lost++;
      else if (r->arrival != RTPCC_TIME_NONE) {
        RtpccTime owd = r->arrival - r->send_time;
        if (s->min_owd == RTPCC_TIME_NONE || owd < s->min_owd)
          s->min_owd = owd;
        s->stats.queue_delay = owd - s->min_owd;
      }
    }
    if (total > 0)
      s->stats.loss = 0.9 * s->stats.loss + 0.1 * (lost / total);

    /* receive rate over ≥ 200 ms of receiver time */
    if (report_time != RTPCC_TIME_NONE) {
      if (s->rr_window_start == RTPCC_TIME_NONE)
        s->rr_window_start = report_time;
      else if (report_time - s->rr_window_start >= RTPCC_MSEC (200)) {
        s->stats.receive_rate = (guint64) (s->rr_window_bytes * 8.0 /
            RTPCC_TIME_AS_SEC (report_time - s->rr_window_start));
        s->rr_window_start = report_time;
        s->rr_window_bytes = 0;
      }
    }

    f.reports = (const RtpccPacketReport *) s->reports->data;
    f.n_reports = s->reports->len;
    f.rtt_sample = sample;
    f.srtt = s->stats.srtt;
    f.report_time = report_time;
    f.arrival_resolution = arrival_resolution;
    rtpcc_controller_feedback (s->cc, now, &f);
  }
}

/* TRUE if the CCFB was about our media */
static gboolean
handle_ccfb (RtpccSender * s, RtpccTime now, const guint8 * data, gsize len)
{
  GError *err = NULL;
  RtpccCcfb *fb = rtpcc_ccfb_parse (data, len, &err);
  RtpccTime report_remote;
  SentEntry *newest = NULL;
  guint known_blocks = 0;
  RtpccTime sample;

  if (!fb) {
    s->stats.rtcp_malformed++;
    g_clear_error (&err);
    return FALSE;
  }

  /* Unwrap the receiver's 16.16 report clock (wraps every 18.2 h). */
  report_remote = rtpcc_ntp_short_to_time (fb->report_timestamp);
  if (s->have_remote) {
    const RtpccTime wrap = RTPCC_SEC (65536);
    RtpccTime base = s->last_report_remote - s->last_report_remote % wrap;
    RtpccTime cand = base + report_remote;
    if (cand < s->last_report_remote - wrap / 2)
      cand += wrap;
    else if (cand > s->last_report_remote + wrap / 2)
      cand -= wrap;
    report_remote = cand;
  } else {
    s->have_remote = TRUE;
    s->remote_offset = now - report_remote;
  }
  s->last_report_remote = report_remote;

  g_array_set_size (s->reports, 0);
  for (guint b = 0; b < fb->n_blocks; b++) {
    const RtpccCcfbBlock *blk = &fb->blocks[b];
    Stream *st = g_hash_table_lookup (s->streams,
        GUINT_TO_POINTER (blk->media_ssrc));
    if (!st)
      continue;
    known_blocks++;
    for (guint i = 0; i < blk->num_reports; i++) {
      const RtpccCcfbMetric *m = &blk->metrics[i];
      guint16 rseq = (guint16) (blk->begin_seq + i);
      SentEntry *e = history_get (s, st->seqmap[rseq % SEQMAP_SIZE]);
      if (!e || e->ssrc != blk->media_ssrc || e->rtp_seq != rseq)
        continue;
      if (m->received) {
        if (e->state == PKT_SENT || e->state == PKT_MISSING) {
          RtpccTime ato = rtpcc_ccfb_ato_to_delta (m->ato);
          e->state = PKT_RECEIVED;
          /* over-range / unavailable offsets: received, time unknown */
          if (ato == RTPCC_TIME_NONE || ato == RTPCC_TIME_INFINITE)
            e->arrival = RTPCC_TIME_NONE;
          else
            e->arrival = report_remote - ato + s->remote_offset;
          add_report (s, e);
          if (e->arrival != RTPCC_TIME_NONE && (!newest || e->seq > newest->seq))
            newest = e;
          if (e->seq > s->highest_received)
            s->highest_received = e->seq;
          s->rr_window_bytes += e->size;
        }
      } else if (e->state == PKT_SENT) {
        e->state = PKT_MISSING;
      }
    }
  }
  rtpcc_ccfb_free (fb);

  if (known_blocks == 0) {
    s->stats.rtcp_unknown_ssrc++;
    return FALSE;
  }
  s->has_feedback = TRUE;
  sample = RTPCC_TIME_NONE;
  if (newest) {
    /* RTT = now − send − the receiver's hold time (report − arrival) */
    RtpccTime hold = report_remote + s->remote_offset - newest->arrival;
    sample = now - newest->send_time - hold;
    update_rtt (s, sample);
    if (sample <= 0)
      sample = RTPCC_TIME_NONE;
  }
  finish_feedback (s, now, sample, report_remote + s->remote_offset,
      RTPCC_NSEC_PER_SEC / 1024);
  return TRUE;
}

/* TWCC (RTPFB FMT 15): transport-wide seqs are our sender seqs − 1. It
 * carries no report timestamp: the RTT sample is send-to-now of the newest
 * newly reported packet (see below), plus LSR/DLSR from RRs. */
static gboolean
handle_twcc (RtpccSender * s, RtpccTime now, const guint8 * data, gsize len)
{
  GError *err = NULL;
  RtpccTwcc *fb = rtpcc_twcc_parse (data, len, &err);
  RtpccTwccMapInfo mi;
  RtpccTime newest_arrival = RTPCC_TIME_NONE, sample;
  SentEntry *newest_sent = NULL;
  guint n, known = 0;

  if (!fb) {
    s->stats.rtcp_malformed++;
    g_clear_error (&err);
    return FALSE;
  }
  if (!s->twcc || s->next_seq <= 1) {
    /* not in TWCC mode, or nothing sent yet: not about our media */
    rtpcc_twcc_free (fb);
    s->stats.rtcp_unknown_ssrc++;
    return FALSE;
  }
  g_array_set_size (s->twcc_results, fb->status_count);
  n = rtpcc_twcc_unwrapper_map (s->twcc, now, fb, s->next_seq - 2,
      (RtpccTwccResult *) s->twcc_results->data, &mi);
  rtpcc_twcc_free (fb);

  /* a new epoch (receiver restart): re-anchor its clock on ours */
  if (mi.new_epoch || mi.epoch != s->twcc_epoch) {
    s->twcc_epoch = mi.epoch;
    s->have_remote = FALSE;
    s->min_owd = RTPCC_TIME_NONE;
  }
  for (guint i = 0; i < n; i++) {
    const RtpccTwccResult *r = &g_array_index (s->twcc_results,
        RtpccTwccResult, i);
    if (r->received && r->arrival != RTPCC_TIME_NONE
        && (newest_arrival == RTPCC_TIME_NONE || r->arrival > newest_arrival))
      newest_arrival = r->arrival;
  }
  if (!s->have_remote && newest_arrival != RTPCC_TIME_NONE) {
    s->have_remote = TRUE;
    s->remote_offset = now - newest_arrival;
  }

  g_array_set_size (s->reports, 0);
  for (guint i = 0; i < n; i++) {
    const RtpccTwccResult *r = &g_array_index (s->twcc_results,
        RtpccTwccResult, i);
    SentEntry *e = history_get (s, r->ext_seq + 1);
    if (!e)
      continue;
    known++;
    if (r->received) {
      if (e->state == PKT_SENT || e->state == PKT_MISSING) {
        if (!newest_sent || e->send_time > newest_sent->send_time)
          newest_sent = e;
        e->state = PKT_RECEIVED;
        e->arrival = r->arrival != RTPCC_TIME_NONE && s->have_remote ?
            r->arrival + s->remote_offset : RTPCC_TIME_NONE;
        add_report (s, e);
        if (e->seq > s->highest_received)
          s->highest_received = e->seq;
        s->rr_window_bytes += e->size;
      }
    } else if (e->state == PKT_SENT) {
      e->state = PKT_MISSING;
    }
  }
  if (known == 0) {
    s->stats.rtcp_unknown_ssrc++;
    return FALSE;
  }
  s->has_feedback = TRUE;
  /* TWCC has no report timestamp, so the receiver's hold time is unknown;
   * but a receiver reports what it has received when it sends, so the
   * newest packet first reported here arrived shortly before the report
   * (within one inter-packet gap, unless its feedback was delayed). Its
   * send-to-now time is an RTT sample biased up by that gap — what a
   * stock rtpbin receiver, which sends few RRs (so few LSR/DLSR RTTs),
   * leaves us. Only packets reported for the first time count: a repeated
   * report would measure the feedback's age, not the path. */
  sample = RTPCC_TIME_NONE;
  if (newest_sent && now > newest_sent->send_time) {
    sample = now - newest_sent->send_time;
    update_rtt (s, sample);
  }
  finish_feedback (s, now, sample, newest_arrival !=
      RTPCC_TIME_NONE && s->have_remote ? newest_arrival + s->remote_offset :
      RTPCC_TIME_NONE, RTPCC_USEC (250));
  return TRUE;
}

/* RTCP XR: Discard RLE blocks (RFC 7097) about our media become discard
 * reports for the controller, handed over with the next per-packet
 * feedback (the compound's CCFB/TWCC, which follows the XR), or right away
 * in RR-only mode. Loss RLE is not used: per-packet feedback carries the
 * same. TRUE if a block was about us. */
static gboolean
handle_xr (RtpccSender * s, RtpccTime now, const guint8 * data, gsize len)
{
  GError *err = NULL;
  RtpccXr *xr = rtpcc_xr_parse (data, len, &err);
  gboolean about_us = FALSE;

  if (!xr) {
    s->stats.rtcp_malformed++;
    g_clear_error (&err);
    return FALSE;
  }
  for (guint b = 0; b < xr->n_blocks; b++) {
    const RtpccXrRleBlock *blk = &xr->blocks[b];
    Stream *st;
    if (blk->bt != RTPCC_XR_BT_DISCARD_RLE || blk->early)
      continue;
    st = g_hash_table_lookup (s->streams, GUINT_TO_POINTER (blk->ssrc));
    if (!st)
      continue;
    about_us = TRUE;
    for (guint i = 0; i < blk->n_bits; i++) {
      guint16 rseq;
      SentEntry *e;
      RtpccPacketReport r;
      if (!blk->bits[i])
        continue;
      rseq = (guint16) (blk->begin_seq + (i << blk->thinning));
      e = history_get (s, st->seqmap[rseq % SEQMAP_SIZE]);
      if (!e || e->ssrc != blk->ssrc || e->rtp_seq != rseq)
        continue;
      r.seq = e->seq;
      r.send_time = e->send_time;
      r.size = e->size;
      r.received = TRUE;
      r.arrival = e->arrival;
      r.ecn = 0;
      r.is_fec = e->is_fec;
      g_array_append_val (s->pending_discards, r);
      s->stats.reported_discarded++;
    }
  }
  rtpcc_xr_free (xr);
  if (s->config.feedback == RTPCC_FEEDBACK_RR
      && s->pending_discards->len > 0) {
    rtpcc_controller_discards (s->cc, now, (const RtpccPacketReport *)
        s->pending_discards->data, s->pending_discards->len);
    g_array_set_size (s->pending_discards, 0);
  }
  return about_us;
}

static void
handle_report_block (RtpccSender * s, RtpccTime now,
    const RtpccRtcpReportBlock * rb)
{
  Stream *st = g_hash_table_lookup (s->streams, GUINT_TO_POINTER (rb->ssrc));
  RtpccReceiverReport rr;
  guint32 now_short;

  if (!st)
    return;
  s->report_blocks_seen++;
  now_ntp_short_time (s, now, &now_short);
  rr.ssrc = rb->ssrc;
  rr.fraction_lost = rb->fraction_lost;
  rr.cumulative_lost = rb->cumulative_lost;
  rr.ext_highest_seq = rb->ext_highest_seq;
  rr.jitter = rb->jitter;
  rr.rtt = rtpcc_rtcp_rtt_from_lsr (now_short, rb->lsr, rb->dlsr);
  /* what we sent on this SSRC since the previous report about it */
  rr.packets_sent_interval = st->packet_count - st->packets_at_last_report;
  st->packets_at_last_report = st->packet_count;
  /* CCFB measures RTT itself; RR-only and TWCC need the LSR/DLSR one */
  if (rr.rtt != RTPCC_TIME_NONE && s->config.feedback != RTPCC_FEEDBACK_CCFB)
    update_rtt (s, rr.rtt);
  if (s->config.feedback == RTPCC_FEEDBACK_RR) {
    s->stats.loss = rb->fraction_lost / 256.0;
    s->has_feedback = TRUE;
  }
  rtpcc_controller_receiver_report (s->cc, now, &rr);
  if (s->breaker) {
    RtpccReceiverReport brr = rr;
    /* RFC 8083 §4.3 compares us with the TCP equation, whose p is a loss
     * event rate. RR's fraction lost counts every packet of a drop-tail
     * burst and overstates it several-fold; with per-packet feedback we
     * know the event rate exactly, so the breaker gets that. RR-only mode
     * keeps the fraction lost (an upper bound: the conservative side). */
    if (s->config.feedback != RTPCC_FEEDBACK_RR && s->cb_reported > 0) {
      gdouble f = (gdouble) s->cb_events / s->cb_reported;
      brr.fraction_lost = (guint8) MIN (255.0, f * 256.0 + 0.999);
      if (s->cb_events == 0)
        brr.fraction_lost = 0;
    }
    rtpcc_circuit_breaker_on_report (s->breaker, now, &brr);
  }
}

/* The report blocks of one SR or RR: those about our SSRCs go to the
 * controller and breaker, others are foreign. */
static void
handle_report_blocks (RtpccSender * s, RtpccTime now,
    const RtpccRtcpReportBlock * blocks, guint n, gboolean * about_us,
    gboolean * foreign)
{
  guint64 seen = s->report_blocks_seen;

  for (guint i = 0; i < n; i++) {
    if (g_hash_table_contains (s->streams,
            GUINT_TO_POINTER (blocks[i].ssrc))) {
      *about_us = TRUE;
      handle_report_block (s, now, &blocks[i]);
    } else
      *foreign = TRUE;
  }
  /* the loss-event count restarts with this report, before any CCFB later
   * in the same compound adds to it */
  if (s->report_blocks_seen != seen)
    s->cb_reported = s->cb_events = 0;
}

gboolean
rtpcc_sender_receive_rtcp (RtpccSender * s, RtpccTime now,
    const guint8 * data, gsize len)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  gboolean about_us = FALSE, any = FALSE;
  guint64 unknown_before = s->stats.rtcp_unknown_ssrc;
  gboolean foreign = FALSE;
  guint64 malformed_before = s->stats.rtcp_malformed;

  if (!rtpcc_rtcp_iter_init (&it, data, len)) {
    s->stats.rtcp_malformed++;
    return FALSE;
  }
  s->any_rtcp = TRUE;
  if (s->breaker)
    /* any valid RTCP from the peer is a sign of life: an RTCP-timeout trip
     * must be able to recover while our media (and so reports about it)
     * has stopped */
    rtpcc_circuit_breaker_on_rtcp (s->breaker, now);
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    any = TRUE;
    switch (pkt.pt) {
      case RTPCC_RTCP_RR:{
        RtpccRtcpRR rr;
        if (!rtpcc_rtcp_parse_rr (&pkt, &rr)) {
          s->stats.rtcp_malformed++;
          break;
        }
        handle_report_blocks (s, now, rr.blocks, rr.n_blocks, &about_us,
            &foreign);
        break;
      }
      case RTPCC_RTCP_SR:{
        RtpccRtcpSR sr;
        if (!rtpcc_rtcp_parse_sr (&pkt, &sr)) {
          s->stats.rtcp_malformed++;
          break;
        }
        handle_report_blocks (s, now, sr.blocks, sr.n_blocks, &about_us,
            &foreign);
        break;
      }
      case RTPCC_RTCP_XR:
        if (handle_xr (s, now, pkt.data, pkt.len))
          about_us = TRUE;
        break;
      case RTPCC_RTCP_RTPFB:
        if (pkt.count == RTPCC_CCFB_FMT && handle_ccfb (s, now, pkt.data,
                pkt.len))
          about_us = TRUE;
        else if (pkt.count == RTPCC_TWCC_FMT && handle_twcc (s, now,
                pkt.data, pkt.len))
          about_us = TRUE;
        break;
      default:
        break;
    }
  }
  if (!any) {
    s->stats.rtcp_malformed++;
    return FALSE;
  }
  if (about_us) {
    s->stats.rtcp_received++;
    refresh_target (s, now);
    return TRUE;
  }
  /* reports about SSRCs we do not send are counted; RTCP with nothing to
   * say about anyone (an RR without blocks, SDES, BYE) is merely unused */
  if (foreign && s->stats.rtcp_unknown_ssrc == unknown_before
      && s->stats.rtcp_malformed == malformed_before)
    s->stats.rtcp_unknown_ssrc++;
  return FALSE;
}

gsize
rtpcc_sender_build_rtcp (RtpccSender * s, RtpccTime now, guint8 * buf,
    gsize max)
{
  RtpccRtcpSR sr;
  Stream *st;
  gsize n, m;
  gdouble jitter;

  if (now < s->next_rtcp || s->rtcp_ssrc == 0)
    return 0;
  st = g_hash_table_lookup (s->streams, GUINT_TO_POINTER (s->rtcp_ssrc));
  if (!st)
    return 0;

  memset (&sr, 0, sizeof (sr));
  sr.ssrc = s->rtcp_ssrc;
  sr.ntp = rtpcc_ntp_from_time (now, s->config.ntp_offset);
  /* the RTP time of "now", extrapolated from the last packet sent */
  sr.rtp_ts = st->last_rtp_ts + (guint32) (RTPCC_TIME_AS_SEC (now -
          st->last_rtp_time) * (st->clock_rate ? st->clock_rate : 90000));
  sr.packet_count = st->packet_count;
  sr.octet_count = st->octet_count;
  n = rtpcc_rtcp_write_sr (buf, max, &sr);
  if (n == 0)
    return 0;
  m = rtpcc_rtcp_write_sdes_cname (buf + n, max - n, s->rtcp_ssrc, s->cname);
  if (m == 0)
    return 0;
  s->last_sr_lsr = rtpcc_ntp_short (sr.ntp);
  s->stats.rtcp_sent++;

  /* RFC 3550 §6.3.1: randomise to [0.5, 1.5] × interval */
  jitter = rtpcc_rng_uniform (&s->rng, 0.5, 1.5);
  s->next_rtcp = now + (RtpccTime) (s->config.rtcp_interval * jitter);
  return n + m;
}

void
rtpcc_sender_tick (RtpccSender * s, RtpccTime now)
{
  rtpcc_controller_tick (s->cc, now);
  if (s->breaker)
    rtpcc_circuit_breaker_tick (s->breaker, now);
  refresh_target (s, now);
}

static RtpccTime
earliest (RtpccTime a, RtpccTime b)
{
  if (a == RTPCC_TIME_NONE)
    return b;
  if (b == RTPCC_TIME_NONE)
    return a;
  return MIN (a, b);
}

RtpccTime
rtpcc_sender_next_timeout (RtpccSender * s, RtpccTime now)
{
  /* no SR before we have a stream to report on (enqueue wakes the caller) */
  RtpccTime t = g_hash_table_contains (s->streams,
      GUINT_TO_POINTER (s->rtcp_ssrc)) ? s->next_rtcp : RTPCC_TIME_NONE;
  RtpccTime p = rtpcc_pacer_next_send_time (s->pacer, now);

  if (p != RTPCC_TIME_NONE && (!s->cc->ops->can_send
          || rtpcc_controller_can_send (s->cc, now, 1200)))
    t = earliest (t, p);
  t = earliest (t, s->cc->next_tick);
  if (probing_wanted (s, now))
    t = earliest (t, s->probe_next == RTPCC_TIME_NONE ? now : s->probe_next);
  if (s->breaker)
    t = earliest (t, rtpcc_circuit_breaker_next_tick (s->breaker));
  return t;
}

const RtpccTarget *
rtpcc_sender_get_target (const RtpccSender * s)
{
  return &s->target;
}

guint64
rtpcc_sender_get_generation (const RtpccSender * s)
{
  return s->generation;
}

const RtpccSenderStats *
rtpcc_sender_get_stats (RtpccSender * s, RtpccTime now)
{
  s->stats.send_rate = s->send_rate;
  s->stats.breaker_tripped = s->breaker
      && rtpcc_circuit_breaker_is_tripped (s->breaker);
  s->stats.breaker_reason = s->stats.breaker_tripped ?
      rtpcc_circuit_breaker_reason_name (rtpcc_circuit_breaker_get_reason
      (s->breaker)) : NULL;
  return &s->stats;
}

const gchar *
rtpcc_sender_get_controller_name (const RtpccSender * s)
{
  return s->controller_name;
}

RtpccController *
rtpcc_sender_get_controller (RtpccSender * s)
{
  return s->cc;
}

gboolean
rtpcc_sender_has_feedback (const RtpccSender * s)
{
  return s->has_feedback;
}

const gchar *
rtpcc_sender_get_feedback_problem (const RtpccSender * s, RtpccTime now)
{
  if (s->has_feedback || s->first_sent == RTPCC_TIME_NONE
      || now - s->first_sent < RTPCC_FEEDBACK_GRACE)
    return NULL;
  if (!s->any_rtcp)
    return "no RTCP at all has arrived from the receiver: is it running, "
        "does it send feedback to the address we send from, and is the "
        "return path open?";
  switch (s->config.feedback) {
    case RTPCC_FEEDBACK_CCFB:
      return "RTCP arrives but no RFC 8888 congestion control feedback: the "
          "receiver does not send CCFB (use feedback=rr on the sender, or "
          "rtpccsrc feedback=ccfb on the receiver)";
    case RTPCC_FEEDBACK_RR:
      return "RTCP arrives but no reception report about our media: the "
          "receiver does not report on our SSRC";
    case RTPCC_FEEDBACK_TWCC:
      return "RTCP arrives but no transport-wide CC feedback: the receiver "
          "does not send TWCC (rtpccsrc feedback=twcc; a stock rtpbin needs "
          "extmap-N=" RTPCC_TWCC_EXTMAP_URI " in its caps, with N our "
          "twcc-ext-id)";
  }
  return "no feedback of the configured kind";
}

/* RtpccSender: the orchestration of a congestion-controlled RTP sender.
 *
 * The pieces, each in its own file:
 *   RtpccEgress          the send queue (RtpccPacer: when packets may
 *                        leave) and the bytes they leave with (egress.c)
 *   RtpccSentHistory     what went out, what became of it (senthistory.c)
 *   RtpccFeedbackAdapter feedback of any format → per-packet reports
 *                        (feedbackadapter.c)
 *   RtpccProber          padding probes, media-SSRC renumbering (prober.c)
 *   RtpccController      the rate (cc/), RtpccCircuitBreaker (RFC 8083)
 *   rtpcc_target_*       the published target from the controller's
 *                        (target.c)
 * This file wires them: media in → pacer → wire (recorded in the history,
 * told to the controller and breaker); RTCP in → adapter → controller and
 * breaker → the published target; SR out.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/sender.h>
#include <rtpcc/cc/fbra.h>
#include <rtpcc/circuitbreaker.h>
#include <rtpcc/feedbackadapter.h>
#include <rtpcc/senthistory.h>
#include <rtpcc/transportfeedback.h>
#include <rtpcc/feedback/rtcp.h>
#include "feedback/bytes.h"
#include <rtpcc/feedback/ccfb.h>
#include <rtpcc/feedback/twcc.h>
#include <rtpcc/feedback/rtpext.h>
#include <math.h>
#include <rtpcc/feedback/xr.h>
#include <rtpcc/feedback/reportinterval.h>
#include <rtpcc/feedback/nadu.h>
#include <rtpcc/ratecap.h>
#include <rtpcc/fec/fec.h>
#include <rtpcc/fec/strength.h>
#include <rtpcc/rng.h>

#include <string.h>

struct _RtpccSender
{
  RtpccSenderConfig config;
  gchar *cname;
  gchar *controller_name;
  RtpccRng rng;

  RtpccController *cc;
  RtpccCircuitBreaker *breaker;
  RtpccEgress *egress;
  RtpccPacer *pacer;            /* the egress's */
  RtpccRateCap *ratecap;        /* the receiver's TMMBR / REMB limit */
  guint64 told_limit;           /* the limit the controller was last told */
  RtpccSentHistory *history;
  RtpccFeedbackAdapter *feedback;
  RtpccProber *prober;
  RtpccTransportFeedback *transport;    /* made on first use */

  guint32 rtcp_ssrc;
  guint32 urgent_ssrc;          /* 0: none */
  RtpccTime next_rtcp;          /* SR schedule */
  /* the receiver's last RTCP XR Receiver Reference Time (RFC 3611 §4.4),
   * answered with a DLRR block in the next SR: when it came (NONE: none
   * to answer), its middle 32 bits, the receiver's SSRC */
  RtpccTime rrtr_at;
  guint32 rrtr_lrr, rrtr_ssrc;

  RtpccTime first_sent;          /* feedback-mismatch detection */
  /* the no-feedback timer brought the controller down while the breaker
   * was tripped (see breaker_holds_rate) */
  gboolean cc_backed_off;

  /* published target (target.h) */
  RtpccTarget target;
  RtpccTargetCeiling ceiling;
  guint64 generation;
  /* the channel as last published with it (loss, its bursts) */
  gdouble channel_loss, channel_burst;
  RtpccTime channel_at;
  guint64 channel_generation;
  /* max_fec_share: the parity per media byte the channel needs, and the
   * bit/s that moved from the media to FEC for it */
  gdouble fec_overhead;
  guint64 fec_reserved;
  RtpccFecSizes media_sizes;    /* what a parity packet costs in bytes */
  RtpccTime fec_block_time;     /* the FEC encoder's; NONE: no bound */
  RtpccFecChoice fec_code;      /* max_fec_share's code; k 0: none */
  gboolean nack;                /* rtpcc_sender_set_nack */
  guint nack_chances;           /* the code's: nack_chances () */

  /* send rate over a sliding window */
  RtpccTime rate_window_start;
  guint64 rate_window_bytes;
  guint rate_window_media;      /* media packets (not FEC, padding) */
  guint64 send_rate;
  gdouble media_packet_rate;    /* per second, over the same window */

  RtpccSenderStats stats;
};

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
  config->sender_reports = TRUE;
  config->cname = "rtpcc@localhost";
  config->twcc_ext_id = 1;
  config->fec_pt = -1;
}

static gboolean
breaker_tripped (const RtpccSender * s)
{
  return s->breaker && rtpcc_circuit_breaker_is_tripped (s->breaker);
}

/* Whether the breaker holds the target at the minimum. On probation after
 * a timeout trip it does not when the no-feedback timer had already
 * brought the controller down (it then restarts from below on its own,
 * circuitbreaker.h); a controller that never had feedback to miss is
 * held as after any other trip. */
static gboolean
breaker_holds_rate (RtpccSender * s)
{
  if (!breaker_tripped (s)) {
    s->cc_backed_off = FALSE;
    return FALSE;
  }
  if (rtpcc_circuit_breaker_holds_rate (s->breaker)) {
    s->cc_backed_off |= rtpcc_controller_feedback_stopped (s->cc, NULL);
    return TRUE;
  }
  return !s->cc_backed_off;
}

/* The controller's own FEC share, to be padded if no FEC comes (a probe):
 * not what max_fec_share moved there. */
static guint64
probe_bitrate (const RtpccSender * s)
{
  return s->target.fec_bitrate - s->fec_reserved;
}

/* The receiver's maximum to the controller, when it changed. */
static void
tell_limit (RtpccSender * s, RtpccTime now)
{
  guint64 limit = rtpcc_rate_cap_limit (s->ratecap);

  if (limit == s->told_limit)
    return;
  s->told_limit = limit;
  rtpcc_controller_receiver_limit (s->cc, now, limit);
}

static void
refresh_target (RtpccSender * s, RtpccTime now)
{
  RtpccTarget t = s->cc->target;
  const RtpccFeedbackAdapterStats *fs =
      rtpcc_feedback_adapter_get_stats (s->feedback);

  rtpcc_target_apply_ceiling (&t, &s->ceiling, now, s->config.cc.min_bitrate,
      fs->delivery_rate, fs->last_contradiction, s->target.media_bitrate);
  rtpcc_target_for_sender (&t, s->config.cc.min_bitrate,
      rtpcc_pacer_get_bytes (s->pacer), rtpcc_pacer_get_head_age (s->pacer,
          now), s->config.pacer.max_delay, breaker_holds_rate (s) ?
      rtpcc_circuit_breaker_reason_name (rtpcc_circuit_breaker_get_reason
          (s->breaker)) : NULL);

  /* the receiver's maximum (RFC 5104 TMMBR, REMB) over everything; a
   * REMB no longer renewed first lapses */
  if (rtpcc_rate_cap_expire (s->ratecap, now))
    tell_limit (s, now);
  rtpcc_rate_cap_apply (s->ratecap, &t);
  s->fec_reserved = rtpcc_target_reserve_fec (&t, s->fec_overhead,
      s->config.cc.min_bitrate);
  if (memcmp (&t, &s->target, sizeof (t)) != 0) {
    s->target = t;
    s->generation++;
  }
  if (s->config.pacing)
    rtpcc_pacer_set_rate (s->pacer, t.pacing_rate);
}

/* The parts' counters, into the stats: when they are asked for
 * (rtpcc_sender_get_stats), not after every packet. */
static void
sync_stats (RtpccSender * s)
{
  const RtpccFeedbackAdapterStats *fs =
      rtpcc_feedback_adapter_get_stats (s->feedback);
  const RtpccProberStats *ps = rtpcc_prober_get_stats (s->prober);

  s->stats.rtt = fs->rtt;
  s->stats.srtt = fs->srtt;
  s->stats.loss = fs->loss;
  s->stats.loss_burst = fs->loss_burst;
  s->stats.loss_window = fs->loss_window;
  s->stats.fec_reserved = s->fec_reserved;
  if (s->fec_code.k > 0) {
    gdouble ratios[RTPCC_FEC_MAX_SPAN + 1];

    rtpcc_fec_sizes_ratios (&s->media_sizes, ratios);
    s->stats.parity_ratio = ratios[s->fec_code.k];
  } else {
    s->stats.parity_ratio = s->media_sizes.ratio;
  }
  s->stats.fec_code_scheme = s->fec_code.scheme;
  s->stats.fec_code_k = s->fec_code.k;
  s->stats.fec_code_m = s->fec_code.m;
  s->stats.fec_nack_chances = s->nack_chances;
  s->stats.receive_rate = fs->receive_rate;
  s->stats.queue_delay = fs->queue_delay;
  s->stats.reported_received = fs->reported_received;
  s->stats.reported_lost = fs->reported_lost;
  s->stats.reported_discarded = fs->reported_discarded;
  s->stats.probe_reported_received = fs->probe_reported_received;
  s->stats.rtcp_received = fs->rtcp_received;
  s->stats.rtcp_malformed = fs->rtcp_malformed;
  s->stats.rtcp_unknown_ssrc = fs->rtcp_unknown_ssrc;
  s->stats.feedback_implausible = fs->feedback_implausible;
  s->stats.feedback_contradictory = fs->feedback_contradictory;
  s->stats.delivery_rate = fs->delivery_rate;
  s->stats.xr = fs->xr;
  s->stats.probe_packets = ps->probe_packets;
  s->stats.probe_bytes = ps->probe_bytes;
  {
    const RtpccRateCapStats *rc = rtpcc_rate_cap_get_stats (s->ratecap);
    s->stats.tmmbr_received = rc->tmmbr_received;
    s->stats.tmmbn_sent = rc->tmmbn_sent;
    s->stats.remb_received = rc->remb_received;
    s->stats.remb_expired = rc->remb_expired;
    s->stats.receiver_limit = rtpcc_rate_cap_limit (s->ratecap);
  }
  s->stats.probe_media_packets = ps->probe_media_packets;
  s->stats.fec_rewritten = ps->fec_rewritten;
  s->stats.fec_rewrite_drops = ps->fec_rewrite_drops;
  s->stats.twcc_stamp_errors = rtpcc_egress_get_stamp_errors (s->egress);
}

/* ---- feedback ----------------------------------------------------------- */

/* The feedback adapter's results go to the controller and the breaker. */

static void
sink_rtcp (gpointer user_data, RtpccTime now)
{
  RtpccSender *s = user_data;

  /* any valid RTCP from the peer is a sign of life: an RTCP-timeout trip
   * must be able to recover while our media (and so reports about it) has
   * stopped */
  if (s->breaker)
    rtpcc_circuit_breaker_on_rtcp (s->breaker, now);
}

static void
sink_receiver_report (gpointer user_data, RtpccTime now,
    const RtpccReceiverReport * rr, const RtpccReceiverReport * breaker_rr)
{
  RtpccSender *s = user_data;

  rtpcc_controller_receiver_report (s->cc, now, rr);
  if (s->breaker)
    rtpcc_circuit_breaker_on_report (s->breaker, now, breaker_rr);
}

static void
sink_discards (gpointer user_data, RtpccTime now,
    const RtpccPacketReport * reports, guint n)
{
  rtpcc_controller_discards (((RtpccSender *) user_data)->cc, now, reports,
      n);
}

/* max_fec_share: the code the channel needs (fec/strength.h) within the
 * share, into s->fec_code (k 0: none), and the parity per media byte it
 * takes into s->fec_overhead (0 without loss). Parity packets are as long
 * as the longest they protect: a code (k, m) costs m/k times the parity
 * ratio of blocks of k in bytes (fec.h, from the media last sent), so the
 * share in bytes allows that much less in packets. The code goes out with
 * the target, for the encoder to use rather than choose again from
 * measures of its own; a twentieth over its bytes for the sizes moving
 * under it. */
static void
update_fec_reserve (RtpccSender * s)
{
  gdouble most = s->config.max_fec_share / (1.0 - s->config.max_fec_share);
  gdouble ratios[RTPCC_FEC_MAX_SPAN + 1];
  RtpccFecChannel ch = { 0 };
  RtpccFecChoice c;

  s->fec_overhead = 0;
  s->fec_code.k = s->fec_code.m = 0;
  if (most <= 0 || s->channel_loss <= 0 || s->media_packet_rate <= 0)
    return;
  ch.loss = s->channel_loss;
  ch.burst = s->channel_burst;
  ch.packet_rate = s->media_packet_rate;
  ch.budget = s->fec_block_time;
  ch.max_overhead = most;
  rtpcc_fec_sizes_ratios (&s->media_sizes, ratios);
  ch.parity_ratios = ratios;
  ch.retransmissions = s->nack_chances;
  if (!rtpcc_fec_choose (&ch, &c))
    return;
  s->fec_code = c;
  s->fec_overhead = MIN (1.05 * c.m / c.k * ratios[c.k], most);
}

/* NACK's chances to repair a loss before it is played out: the round
 * trips that fit in the playout delay the receiver reports (its de-jitter
 * buffer's nominal delay: how long a packet that came on time waits),
 * after the packet gap it takes to notice the loss; at most
 * RTPCC_SENDER_NACK_CHANCES (sender.h); 0 without NACK or either
 * number. */
static guint
nack_chances (const RtpccSender * s, const RtpccFeedbackAdapterStats * fs)
{
  RtpccTime budget = fs->xr.djb_nominal;
  RtpccTime gap = s->media_packet_rate > 0 ?
      (RtpccTime) (RTPCC_NSEC_PER_SEC / s->media_packet_rate) : 0;

  if (!s->nack || budget == RTPCC_TIME_NONE || fs->srtt == RTPCC_TIME_NONE
      || fs->srtt <= 0 || budget <= gap)
    return 0;
  return (guint) MIN ((budget - gap) / fs->srtt, RTPCC_SENDER_NACK_CHANCES);
}

/* The loss and its bursts, which the target events carry and FEC chooses
 * its code by (fec/strength.h), moved enough to be told again even if the
 * target did not (a fixed target never changes): by a fifth, and at least
 * half a percentage point of loss or a quarter packet of burst, or when
 * NACK's chances moved; at most every RTPCC_SENDER_CHANNEL_INTERVAL. */
static void
check_channel (RtpccSender * s, RtpccTime now)
{
  const RtpccFeedbackAdapterStats *fs =
      rtpcc_feedback_adapter_get_stats (s->feedback);
  guint chances;

  if (s->channel_at != RTPCC_TIME_NONE
      && now - s->channel_at < RTPCC_SENDER_CHANNEL_INTERVAL)
    return;
  chances = nack_chances (s, fs);
  if (fabs (fs->loss_window - s->channel_loss) < MAX (0.005,
          0.2 * s->channel_loss)
      && fabs (fs->loss_burst - s->channel_burst) < MAX (0.25,
          0.2 * s->channel_burst) && chances == s->nack_chances)
    return;
  s->channel_loss = fs->loss_window;
  s->channel_burst = fs->loss_burst;
  s->nack_chances = chances;
  s->channel_at = now;
  s->channel_generation++;
  update_fec_reserve (s);
}

static void
sink_feedback (gpointer user_data, RtpccTime now, const RtpccFeedback * fb)
{
  RtpccSender *s = user_data;

  if (s->breaker)
    rtpcc_circuit_breaker_on_feedback (s->breaker, now);
  if (fb)
    rtpcc_controller_feedback (s->cc, now, fb);
  check_channel (s, now);
}

static void
sink_xr_delay (gpointer user_data, RtpccTime now, RtpccTime mean_rtt,
    RtpccTime min_rtt, RtpccTime max_rtt)
{
  rtpcc_controller_xr_delay (((RtpccSender *) user_data)->cc, now, mean_rtt,
      min_rtt, max_rtt);
}

static const RtpccFeedbackSink feedback_sink = {
  sink_rtcp, sink_receiver_report, sink_discards, sink_feedback,
  sink_xr_delay,
};

RtpccSender *
rtpcc_sender_new (const RtpccSenderConfig * config, RtpccTime now,
    GError ** error)
{
  RtpccSender *s;
  RtpccController *cc;
  RtpccProberConfig pc;

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
  s->config.max_fec_share = CLAMP (s->config.max_fec_share, 0, 0.5);
  rtpcc_rng_init_stream (&s->rng, config->seed, 0x5e4d);
  s->cc = cc;
  s->egress = rtpcc_egress_new (&config->pacer,
      config->feedback == RTPCC_FEEDBACK_TWCC ? config->twcc_ext_id : 0);
  s->pacer = rtpcc_egress_get_pacer (s->egress);
  s->rtcp_ssrc = config->rtcp_ssrc;
  s->ratecap = rtpcc_rate_cap_new (0);
  s->told_limit = G_MAXUINT64;
  s->history = rtpcc_sent_history_new (config->probe_ssrc_mode ==
      RTPCC_PROBE_SSRC_MEDIA);
  s->feedback = rtpcc_feedback_adapter_new (s->history, config->feedback,
      config->ntp_offset, &feedback_sink, s);
  s->next_rtcp = now;
  s->rrtr_at = RTPCC_TIME_NONE;
  s->first_sent = RTPCC_TIME_NONE;
  s->channel_at = RTPCC_TIME_NONE;
  s->stats.report_interval_asked = RTPCC_TIME_NONE;
  s->stats.nadu_playout_delay = RTPCC_TIME_NONE;
  s->rate_window_start = now;
  rtpcc_fec_sizes_init (&s->media_sizes, RTPCC_SEC (1));
  s->fec_block_time = RTPCC_SENDER_FEC_BLOCK_TIME;
  pc.enabled = config->probing;
  pc.mode = config->probe_ssrc_mode;
  pc.ssrc = config->probe_ssrc;
  pc.pt = config->probe_pt;
  /* a probe carries the transport-wide seq too (a one-byte extension
   * block: 4 + 4 bytes) */
  pc.packet_size = RTPCC_PROBE_PACKET_SIZE +
      (config->feedback == RTPCC_FEEDBACK_TWCC ? 8 : 0);
  s->prober = rtpcc_prober_new (&pc, s->history, &s->rng);

  if (config->circuit_breaker) {
    RtpccCircuitBreakerConfig bc;
    rtpcc_circuit_breaker_config_init (&bc);
    bc.rtcp_interval = s->config.rtcp_interval;
    bc.packet_size = s->config.cc.packet_size;
    s->breaker = rtpcc_circuit_breaker_new (&bc, now);
  }
  sync_stats (s);
  refresh_target (s, now);
  return s;
}

void
rtpcc_sender_free (RtpccSender * s)
{
  if (!s)
    return;
  rtpcc_egress_free (s->egress);
  rtpcc_rate_cap_free (s->ratecap);
  rtpcc_controller_free (s->cc);
  if (s->breaker)
    rtpcc_circuit_breaker_free (s->breaker);
  rtpcc_prober_free (s->prober);
  rtpcc_feedback_adapter_free (s->feedback);
  rtpcc_transport_feedback_free (s->transport);
  rtpcc_sent_history_free (s->history);
  g_free (s->cname);
  g_free (s->controller_name);
  g_free (s);
}

void
rtpcc_sender_set_free_func (RtpccSender * s, GDestroyNotify func)
{
  rtpcc_egress_set_free_func (s->egress, func);
}

/* the history's stream of @info's SSRC (made on first sight: feedback
 * about a queued SSRC is about us); the first one carries our RTCP */
static RtpccSentStream *
touch_stream (RtpccSender * s, const RtpccRtpInfo * info)
{
  RtpccSentStream *st = rtpcc_sent_history_add_stream (s->history,
      info->ssrc);

  if (s->rtcp_ssrc == 0)
    s->rtcp_ssrc = info->ssrc;
  /* TMMBR and REMB are about the media stream: the first one */
  if (rtpcc_rate_cap_get_ssrc (s->ratecap) == 0 && !info->is_fec)
    rtpcc_rate_cap_set_ssrc (s->ratecap, info->ssrc);
  if (info->clock_rate)
    st->clock_rate = info->clock_rate;
  return st;
}

/* Queues @pkt. What the packet is on the wire counts everywhere: the
 * pacer, the controller, the history and the breaker see its size with
 * the transport-wide seq it will carry. */
static void
enqueue (RtpccSender * s, RtpccTime now, RtpccEgressPacket * pkt)
{
  const RtpccRtpInfo *info = &pkt->info;
  RtpccSentStream *st;

  pkt->info.size += rtpcc_egress_stamp_growth (s->egress, pkt);
  if (info->is_fec)
    s->stats.fec_packets_enqueued++;
  s->stats.packets_enqueued++;
  s->stats.bytes_enqueued += info->size;
  st = touch_stream (s, info);
  rtpcc_prober_on_enqueue (s->prober, now, info);
  if (st->packet_count == 0) {
    /* nothing sent yet: an SR now maps "now" to this packet's clock */
    st->last_rtp_ts = info->rtp_ts;
    st->last_rtp_time = now;
  }
  pkt->urgent = s->urgent_ssrc != 0 && info->ssrc == s->urgent_ssrc;
  s->stats.pacer_drops += rtpcc_egress_push (s->egress, now, pkt);
}

void
rtpcc_sender_set_nack (RtpccSender * s, gboolean on)
{
  on = ! !on;
  if (on == s->nack)
    return;
  s->nack = on;
  s->nack_chances = nack_chances (s,
      rtpcc_feedback_adapter_get_stats (s->feedback));
  update_fec_reserve (s);
}

void
rtpcc_sender_set_fec_block_time (RtpccSender * s, RtpccTime t)
{
  t = t > 0 ? t : RTPCC_TIME_NONE;
  if (t == s->fec_block_time)
    return;
  s->fec_block_time = t;
  /* the code the channel needs may change with it: told with the next
   * target */
  update_fec_reserve (s);
}

void
rtpcc_sender_set_urgent_ssrc (RtpccSender * s, guint32 ssrc)
{
  s->urgent_ssrc = ssrc;
}

void
rtpcc_sender_enqueue (RtpccSender * s, RtpccTime now, const RtpccRtpInfo * info,
    gpointer handle)
{
  guint8 hdr[RTPCC_RTP_HEADER_MIN];
  gsize n = rtpcc_rtp_write_header (info, hdr, sizeof hdr);
  RtpccRtpInfo i = *info;

  i.size = MAX (i.size, (guint) n);
  enqueue (s, now, rtpcc_egress_packet_new (&i, hdr, n, n, handle));
}

void
rtpcc_sender_set_fec_pt (RtpccSender * s, gint pt)
{
  s->config.fec_pt = pt;
}

RtpccSenderEnqueueResult
rtpcc_sender_enqueue_rtp (RtpccSender * s, RtpccTime now, const guint8 * data,
    gsize len, gsize size, gpointer handle)
{
  RtpccRtpInfo info;
  RtpccEgressPacket *pkt;
  gsize hdr, prefix;
  guint8 fec[RTPCC_FEC_HEADER_LEN];
  guint32 protected_ssrc;
  RtpccProberFecResult r = RTPCC_PROBER_FEC_KEPT;

  if (!rtpcc_rtp_parse (data, len, size, 0, &info, &hdr)) {
    s->stats.invalid_rtp++;
    rtpcc_egress_release (s->egress, handle);
    return RTPCC_SENDER_INVALID;
  }
  info.is_fec = s->config.fec_pt >= 0 && info.pt == s->config.fec_pt;
  info.clock_rate = s->config.clock_rate;
  prefix = hdr;
  /* fecenc's header names the SSRC it protects by original seqs: no
   * padding may go there from now on, and where some went before, the
   * header must name the wire seqs. Rewritten (or dropped) before the
   * packet is queued: an FEC packet dropped after it counted as sent
   * would be a gap in its SSRC's and the transport-wide seqs, i.e. a loss
   * reported to the controller. */
  if (info.is_fec && rtpcc_fec_payload_protected_ssrc (data + hdr, len - hdr,
          &protected_ssrc)) {
    rtpcc_prober_note_fec_protected (s->prober, protected_ssrc);
    memcpy (fec, data + hdr, sizeof fec);
    if (len == size)
      r = rtpcc_prober_rewrite_fec (s->prober, data, len, fec);
    if (r == RTPCC_PROBER_FEC_REWRITTEN)
      prefix += sizeof fec;
  }
  pkt = rtpcc_egress_packet_new (&info, data, hdr, prefix, handle);
  if (prefix > hdr)
    memcpy (pkt->prefix + hdr, fec, sizeof fec);
  if (r == RTPCC_PROBER_FEC_DROP) {
    rtpcc_egress_discard (s->egress, pkt);
    return RTPCC_SENDER_FEC_DROPPED;
  }
  enqueue (s, now, pkt);
  return RTPCC_SENDER_QUEUED;
}

/* A packet goes on the wire at @now: @info as on the wire, @orig_seq its
 * seq as queued; @padding: a padding-only probe. */
static void
record_sent (RtpccSender * s, RtpccTime now, const RtpccRtpInfo * info,
    guint16 orig_seq, guint payload, gboolean padding)
{
  RtpccSentEntry *e;
  RtpccSentPacket sp;

  touch_stream (s, info);
  e = rtpcc_sent_history_record (s->history, now, info, orig_seq, payload,
      padding);
  if (s->first_sent == RTPCC_TIME_NONE)
    s->first_sent = now;
  s->stats.packets_sent++;
  s->stats.bytes_sent += info->size;
  s->rate_window_bytes += info->size;
  if (!padding && !info->is_fec) {
    s->rate_window_media++;
    rtpcc_fec_sizes_add (&s->media_sizes, now, info->size);
  }
  if (now - s->rate_window_start >= RTPCC_MSEC (500)) {
    gdouble span = RTPCC_TIME_AS_SEC (now - s->rate_window_start);
    s->send_rate = (guint64) (s->rate_window_bytes * 8.0 / span);
    s->media_packet_rate = s->rate_window_media / span;
    s->rate_window_start = now;
    s->rate_window_bytes = 0;
    s->rate_window_media = 0;
  }

  sp.seq = e->seq;
  sp.send_time = now;
  sp.size = info->size;
  sp.app_limited = rtpcc_pacer_get_packets (s->pacer) == 0;
  sp.is_fec = info->is_fec;
  sp.queued_bytes = rtpcc_pacer_get_bytes (s->pacer);
  sp.frame_end = info->marker && !info->is_fec;
  sp.ssrc = info->ssrc;
  sp.rtp_seq = info->seq;
  rtpcc_controller_packet_sent (s->cc, now, &sp);
  if (s->breaker)
    rtpcc_circuit_breaker_on_sent (s->breaker, now, info->size);
}

/* the transport-wide seq of the packet about to be recorded (TWCC mode):
 * our sender-wide seq − 1 (both +1 per packet), so feedback maps straight
 * back into the history */
static void
assign_twcc (RtpccSender * s, RtpccRtpInfo * info)
{
  if (s->config.feedback != RTPCC_FEEDBACK_TWCC)
    return;
  info->has_twcc = TRUE;
  info->twcc_seq = (guint16) ((rtpcc_sent_history_next_seq (s->history) -
          1) & 0xFFFF);
}

gboolean
rtpcc_sender_dequeue_probe (RtpccSender * s, RtpccTime now,
    RtpccWirePacket * out)
{
  RtpccRtpInfo pi;
  RtpccWirePacket w;

  if (!rtpcc_prober_next_probe (s->prober, now, probe_bitrate (s),
          breaker_tripped (s), &pi))
    return FALSE;
  assign_twcc (s, &pi);
  rtpcc_egress_write_probe (s->egress, &pi, RTPCC_PROBE_PADDING, &w);
  /* a padding packet has no original seq (and takes no origmap slot) */
  record_sent (s, now, &w.info, pi.seq, 0, TRUE);
  if (out)
    *out = w;
  return TRUE;
}

void
rtpcc_sender_note_fec_protected (RtpccSender * s, guint32 ssrc)
{
  rtpcc_prober_note_fec_protected (s->prober, ssrc);
}

gboolean
rtpcc_sender_map_seq (RtpccSender * s, guint32 ssrc, guint16 orig_seq,
    guint16 * wire_seq)
{
  return rtpcc_prober_map_seq (s->prober, ssrc, orig_seq, wire_seq);
}

gpointer
rtpcc_sender_dequeue (RtpccSender * s, RtpccTime now, RtpccWirePacket * out)
{
  RtpccEgressPacket *pkt;
  RtpccRtpInfo info;
  RtpccWirePacket w;
  guint payload;

  if (rtpcc_pacer_get_packets (s->pacer) == 0)
    return NULL;

  if (s->breaker && rtpcc_circuit_breaker_should_stop (s->breaker)) {
    /* RFC 8083 §4: cease transmission; drop what is queued (counted) */
    s->stats.breaker_drops += rtpcc_egress_drop_all (s->egress);
    return NULL;
  }

  if (!rtpcc_controller_can_send (s->cc, now,
          rtpcc_pacer_get_packets (s->pacer) ? 1200 : 0))
    return NULL;
  pkt = rtpcc_egress_pop (s->egress, now);
  if (!pkt)
    return NULL;
  info = pkt->info;
  assign_twcc (s, &info);
  /* to the wire's sequence space (identity until padding went on it) */
  touch_stream (s, &info);
  rtpcc_egress_write (s->egress, pkt, rtpcc_prober_wire_seq (s->prober,
          &info), info.has_twcc, info.twcc_seq, &w);
  payload = pkt->payload;
  g_free (pkt);
  record_sent (s, now, &w.info, info.seq, payload, FALSE);
  refresh_target (s, now);
  if (out)
    *out = w;
  return w.handle;
}

/* While feedback is stopped, what arrives reports packets that crossed the
 * outage: their delay is not the path's RTT (feedbackadapter.h). */
static void
mark_outage (RtpccSender * s, RtpccTime now)
{
  if (rtpcc_controller_feedback_stopped (s->cc, NULL))
    rtpcc_feedback_adapter_outage (s->feedback, now);
}

/* MPRTCP subflow reports in a compound (one path of a multipath stream,
 * mprtp/ext.h): the latest about our media is kept for the application
 * (mprtpsched classifies the path by it). The report block speaks of the
 * path's FSSN space, which is what this sender numbers its packets by on
 * such a path, but the RR beside it carries the same block to the
 * feedback adapter: the report is not fed to the controller twice. */
static gboolean
receive_mprtcp (RtpccSender * s, const guint8 * data, gsize len)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  guint32 media = rtpcc_rate_cap_get_ssrc (s->ratecap);
  gboolean ours = FALSE;

  if (!rtpcc_rtcp_iter_init (&it, data, len))
    return FALSE;
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    RtpccMprtcp mp;

    if (pkt.pt != RTPCC_MPRTCP_PT)
      continue;
    if (!rtpcc_mprtcp_parse (pkt.data, pkt.len, &mp) || mp.n_reports == 0
        || media == 0 || mp.media_ssrc != media) {
      s->stats.mprtcp_rejected++;
      continue;
    }
    for (guint i = 0; i < mp.n_reports; i++) {
      s->stats.subflow_report = mp.reports[i];
      s->stats.mprtcp_received++;
    }
    ours = TRUE;
  }
  return ours;
}

/* An RTCP XR Receiver Reference Time in @data: kept for the DLRR of the
 * next SR. TRUE if there was one. */
static gboolean
take_rrtr (RtpccSender * s, RtpccTime now, const guint8 * data, gsize len)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  gboolean got = FALSE;

  if (!rtpcc_rtcp_iter_init (&it, data, len))
    return FALSE;
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    guint64 ntp;
    if (pkt.pt != RTPCC_RTCP_XR || pkt.len < 8
        || rtpcc_xr_find_rrtr (pkt.data, pkt.len, &ntp) != 1)
      continue;
    s->rrtr_at = now;
    s->rrtr_lrr = rtpcc_ntp_short (ntp);
    s->rrtr_ssrc = rtpcc_rd32 (pkt.data + 4);
    got = TRUE;
  }
  return got;
}

/* The RTCP packet types in a compound, a bit per type (pt − 192; a type
 * outside 192..255 sets every bit): one pass tells which of the readers
 * below, each of which walks the compound again, has anything to read.
 * 0 if the compound is invalid (they would all refuse it). */
static guint64
rtcp_types (const guint8 * data, gsize len)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  guint64 types = 0;

  if (!rtpcc_rtcp_iter_init (&it, data, len))
    return 0;
  while (rtpcc_rtcp_iter_next (&it, &pkt))
    types |= pkt.pt >= 192 ? G_GUINT64_CONSTANT (1) << (pkt.pt - 192) :
        G_MAXUINT64;
  return types;
}

static gboolean
has_type (guint64 types, guint pt)
{
  return (types & (G_GUINT64_CONSTANT (1) << (pt - 192))) != 0;
}

gboolean
rtpcc_sender_receive_rtcp (RtpccSender * s, RtpccTime now,
    const guint8 * data, gsize len)
{
  gboolean ours;
  guint64 types;

  mark_outage (s, now);
  ours = rtpcc_feedback_adapter_receive (s->feedback, now, data, len);
  types = rtcp_types (data, len);
  if (has_type (types, RTPCC_MPRTCP_PT) && receive_mprtcp (s, data, len))
    ours = TRUE;
  if (has_type (types, RTPCC_RTCP_APP)) {
    RtpccNaduBlock nadu;
    if (rtpcc_nadu_find (data, len, rtpcc_rate_cap_get_ssrc (s->ratecap),
            &nadu, &s->stats.nadu_rejected)) {
      /* the receiver's playout buffer (3GPP TS 26.234), for C-NADU */
      s->stats.nadu_received++;
      s->stats.nadu_playout_delay =
          rtpcc_nadu_delay_to_time (nadu.playout_delay);
      rtpcc_controller_nadu (s->cc, now, &nadu);
      ours = TRUE;
    }
  }

  /* answered at once, so the receiver has a round trip per report */
  if (has_type (types, RTPCC_RTCP_XR) && take_rrtr (s, now, data, len))
    s->next_rtcp = MIN (s->next_rtcp, now);
  if ((has_type (types, RTPCC_RTCP_RTPFB) || has_type (types,
              RTPCC_RTCP_PSFB))
      && rtpcc_rate_cap_receive (s->ratecap, now, data, len)) {
    ours = TRUE;
    tell_limit (s, now);
    /* the TMMBN answers at once, with an SR (RFC 5104 §3.5.4.1) */
    if (rtpcc_rate_cap_tmmbn_due (s->ratecap))
      s->next_rtcp = MIN (s->next_rtcp, now);
  }
  if (ours)
    refresh_target (s, now);
  return ours;
}

/* ---- transport-wide feedback numbered by someone else ------------------ */

typedef struct
{
  RtpccSender *sender;
  RtpccTime now;
} TransportCall;

static void
transport_twcc (const RtpccTwcc * fb, gpointer user_data)
{
  TransportCall *c = user_data;

  mark_outage (c->sender, c->now);
  rtpcc_feedback_adapter_receive_twcc (c->sender->feedback, c->now, fb);
}

gboolean
rtpcc_sender_transport_feedback (RtpccSender * s, RtpccTime now,
    const RtpccTransportPacket * pkts, guint n)
{
  TransportCall c = { s, now };
  gboolean ok;

  if (s->config.feedback != RTPCC_FEEDBACK_TWCC)
    return FALSE;
  if (!s->transport)
    s->transport = rtpcc_transport_feedback_new (s->history);
  ok = rtpcc_transport_feedback_translate (s->transport, pkts, n,
      transport_twcc, &c);
  if (ok)
    refresh_target (s, now);
  return ok;
}

const RtpccTransportFeedbackStats *
rtpcc_sender_get_transport_feedback_stats (const RtpccSender * s)
{
  static const RtpccTransportFeedbackStats none;

  return s->transport ? rtpcc_transport_feedback_get_stats (s->transport) :
      &none;
}

/* ---- SR, timers, state -------------------------------------------------- */

gsize
rtpcc_sender_build_rtcp (RtpccSender * s, RtpccTime now, guint8 * buf,
    gsize max)
{
  RtpccRtcpSR sr;
  gsize n, m;
  gdouble jitter;
  RtpccTime iv;

  if (!s->config.sender_reports || s->rtcp_ssrc == 0
      || (now < s->next_rtcp && !rtpcc_rate_cap_tmmbn_due (s->ratecap))
      || !rtpcc_sent_history_sr (s->history, s->rtcp_ssrc, now,
          s->config.ntp_offset, &sr))
    return 0;
  n = rtpcc_rtcp_write_sr (buf, max, &sr);
  if (n == 0)
    return 0;
  m = rtpcc_rtcp_write_sdes_cname (buf + n, max - n, s->rtcp_ssrc, s->cname);
  if (m == 0)
    return 0;
  n += m;
  /* with every SR, so that a lost one costs only one interval */
  iv = rtpcc_controller_report_interval (s->cc);
  if (iv != RTPCC_TIME_NONE) {
    m = rtpcc_report_interval_write (buf + n, max - n, s->rtcp_ssrc, iv);
    if (m > 0)                  /* as the wire carries it: whole µs */
      s->stats.report_interval_asked = iv / 1000 * 1000;
    n += m;
  }
  n += rtpcc_rate_cap_write_tmmbn (s->ratecap, buf + n, max - n);
  if (s->rrtr_at != RTPCC_TIME_NONE) {
    /* RFC 3611 §4.5: DLRR in 1/65536 s */
    m = rtpcc_xr_dlrr_write (buf + n, max - n, s->rtcp_ssrc, s->rrtr_ssrc,
        s->rrtr_lrr, rtpcc_ntp_short_from_time (now - s->rrtr_at));
    if (m > 0)
      s->rrtr_at = RTPCC_TIME_NONE;
    n += m;
  }
  s->stats.rtcp_sent++;

  /* RFC 3550 §6.3.1: randomise to [0.5, 1.5] × interval */
  jitter = rtpcc_rng_uniform (&s->rng, 0.5, 1.5);
  s->next_rtcp = now + (RtpccTime) (s->config.rtcp_interval * jitter);
  return n;
}

void
rtpcc_sender_tick (RtpccSender * s, RtpccTime now)
{
  rtpcc_controller_tick (s->cc, now);
  if (s->breaker)
    rtpcc_circuit_breaker_tick (s->breaker, now);
  refresh_target (s, now);
}

gboolean
rtpcc_sender_tick_due (const RtpccSender * s, RtpccTime now)
{
  RtpccTime t = rtpcc_controller_next_timeout (s->cc);

  if (t != RTPCC_TIME_NONE && now >= t)
    return TRUE;
  t = s->breaker ? rtpcc_circuit_breaker_next_tick (s->breaker) :
      RTPCC_TIME_NONE;
  return t != RTPCC_TIME_NONE && now >= t;
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
  RtpccTime t = s->config.sender_reports
      && rtpcc_sent_history_get_stream (s->history, s->rtcp_ssrc) ?
      s->next_rtcp : RTPCC_TIME_NONE;
  RtpccTime p = rtpcc_pacer_next_send_time (s->pacer, now);

  if (p != RTPCC_TIME_NONE && (!s->cc->ops->can_send
          || rtpcc_controller_can_send (s->cc, now, 1200)))
    t = earliest (t, p);
  t = earliest (t, rtpcc_controller_next_timeout (s->cc));
  t = earliest (t, rtpcc_prober_next_time (s->prober, now,
          probe_bitrate (s), breaker_tripped (s)));
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

guint64
rtpcc_sender_get_channel_generation (const RtpccSender * s)
{
  return s->channel_generation;
}

const RtpccSenderStats *
rtpcc_sender_get_stats (RtpccSender * s, RtpccTime now)
{
  sync_stats (s);
  s->stats.send_rate = s->send_rate;
  s->stats.breaker_tripped = breaker_tripped (s);
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
  return rtpcc_feedback_adapter_get_stats (s->feedback)->has_feedback;
}

const gchar *
rtpcc_sender_get_feedback_problem (const RtpccSender * s, RtpccTime now)
{
  if (rtpcc_controller_feedback_stopped (s->cc, NULL))
    return "feedback stopped: nothing has been reported about our media "
        "for several round trips while we send; the target is halved until "
        "it returns (the link or the return path is down)";
  if (rtpcc_sender_has_feedback (s) || s->first_sent == RTPCC_TIME_NONE
      || now - s->first_sent < RTPCC_FEEDBACK_GRACE)
    return NULL;
  if (!rtpcc_feedback_adapter_get_stats (s->feedback)->any_rtcp)
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

guint
rtpcc_sender_get_fec_interval (RtpccSender * s)
{
  RtpccFbraInfo fi;

  if (probe_bitrate (s) == 0 || !rtpcc_fbra_get_info (s->cc, &fi))
    return 0;
  return fi.fec_interval;
}

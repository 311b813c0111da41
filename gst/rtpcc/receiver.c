/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "receiver-private.h"
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/ccfb.h>
#include <rtpcc/feedback/arrivallog.h>
#include <rtpcc/feedback/twcc.h>
#include <rtpcc/feedback/xr.h>
#include <rtpcc/feedback/reportinterval.h>
#include <rtpcc/feedback/tmmbr.h>
#include "feedback/bytes.h"
#include <rtpcc/ratecap.h>
#include <rtpcc/mprtp/ext.h>
#include <rtpcc/rng.h>

#include <string.h>

/* at most this many packets per SSRC in one CCFB */
#define CCFB_MAX_REPORTS 512

static void
source_free (gpointer p)
{
  Source *s = p;

  if (s->discards)
    g_array_unref (s->discards);
  g_free (s->repaired);
  g_free (s->sizes);
  g_free (s);
}


void
rtpcc_receiver_config_init (RtpccReceiverConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->feedback = RTPCC_FEEDBACK_CCFB;
  config->feedback_interval = 0;
  config->feedback_min = RTPCC_MSEC (20);
  config->feedback_max = RTPCC_MSEC (100);
  config->rtcp_interval = RTPCC_SEC (1);
  config->cname = "rtpcc-receiver@localhost";
  config->honour_interval_requests = TRUE;
  config->xr_blocks = RTPCC_RECEIVER_XR_DISCARD_RLE;
  config->nadu_playout_delay = RTPCC_MSEC (200);
}

RtpccReceiver *
rtpcc_receiver_new (const RtpccReceiverConfig * config, RtpccTime now)
{
  RtpccReceiver *r = g_new0 (RtpccReceiver, 1);

  r->config = *config;
  r->cname = g_strdup (config->cname ? config->cname :
      "rtpcc-receiver@localhost");
  r->config.cname = r->cname;
  if (r->config.rtcp_interval <= 0)
    r->config.rtcp_interval = RTPCC_SEC (1);
  r->rr_interval = r->config.rtcp_interval;
  if (r->config.feedback_min <= 0)
    r->config.feedback_min = RTPCC_MSEC (20);
  if (r->config.feedback_max < r->config.feedback_min)
    r->config.feedback_max = MAX (r->config.feedback_min, RTPCC_MSEC (100));
  if (r->config.nadu_playout_delay <= 0)
    r->config.nadu_playout_delay = RTPCC_MSEC (200);
  r->nadu_app_at = RTPCC_TIME_NONE;
  rtpcc_rng_init_stream (&r->rng, config->seed, 0x7ec1);
  r->ssrc = config->ssrc;
  while (r->ssrc == 0)
    r->ssrc = (guint32) rtpcc_rng_next_u64 (&r->rng);
  r->sources = g_hash_table_new_full (NULL, NULL, NULL, source_free);
  r->peer = rtpcc_peer_new ();
  r->log = rtpcc_arrival_log_new (8192);
  if (config->feedback == RTPCC_FEEDBACK_TWCC)
    r->twcc = rtpcc_twcc_recorder_new (0);
  r->next_feedback = RTPCC_TIME_NONE;
  r->next_rr = RTPCC_TIME_NONE;
  r->last_early = RTPCC_TIME_NONE;
  r->last_rr = RTPCC_TIME_NONE;
  r->last_marker = RTPCC_TIME_NONE;
  r->rate_window_start = now;
  r->mprtp_subflow = -1;
  r->rtt_min = r->rtt_max = RTPCC_TIME_NONE;
  return r;
}

void
rtpcc_receiver_set_mprtp_subflow (RtpccReceiver * r, guint16 subflow_id)
{
  r->mprtp_subflow = subflow_id;
  r->mprtp_next = TRUE;
}

void
rtpcc_receiver_free (RtpccReceiver * r)
{
  if (!r)
    return;
  g_hash_table_unref (r->sources);
  rtpcc_peer_free (r->peer);
  rtpcc_arrival_log_free (r->log);
  if (r->twcc)
    rtpcc_twcc_recorder_free (r->twcc);
  rtpcc_remb_estimator_free (r->remb);
  rtpcc_nadu_estimator_free (r->nadu);
  g_free (r->cname);
  g_free (r);
}

guint32
rtpcc_receiver_get_ssrc (const RtpccReceiver * r)
{
  return r->ssrc;
}

static RtpccTime
feedback_interval (RtpccReceiver * r)
{
  RtpccTime iv = r->config.feedback_interval;

  if (iv <= 0) {
    /* one report per frame: the sender learns of each frame's fate once,
     * and the report rate scales with the media rather than a fixed clock */
    iv = r->frame_interval > 0 ? r->frame_interval : RTPCC_MSEC (50);
    iv = CLAMP (iv, r->config.feedback_min, r->config.feedback_max);
  }
  return iv;
}

static guint32
source_lost (const Source * s)
{
  guint32 expected = rtpcc_rtp_source_ext_highest_seq (&s->stats) -
      s->stats.base_seq + 1;

  return s->stats.started && expected > s->stats.received ?
      expected - s->stats.received : 0;
}

/* Is @a a better victim than @b? Silent for the timeout first (the one
 * silent longest), then a source with few packets (fewest, then silent
 * longest); an established live source never. */
static gboolean
better_victim (const Source * a, const Source * b, RtpccTime now)
{
  gboolean stale_a = now - a->last_heard >= RTPCC_RECEIVER_SOURCE_TIMEOUT;
  gboolean stale_b = now - b->last_heard >= RTPCC_RECEIVER_SOURCE_TIMEOUT;

  if (stale_a != stale_b)
    return stale_a;
  if (!stale_a && a->stats.received != b->stats.received)
    return a->stats.received < b->stats.received;
  return a->last_heard < b->last_heard;
}

/* The table is full: make room for a new SSRC. A stream that has sent
 * RTPCC_RECEIVER_ESTABLISHED packets and is live stays; one-off SSRCs
 * (a peer spraying them) give way to each other and to a new stream. FALSE
 * if every source is an established live one. */
static gboolean
evict_source (RtpccReceiver * r, RtpccTime now)
{
  GHashTableIter hit;
  gpointer key, value;
  gpointer victim_key = NULL;
  Source *victim = NULL;

  g_hash_table_iter_init (&hit, r->sources);
  while (g_hash_table_iter_next (&hit, &key, &value)) {
    Source *s = value;
    if (!victim || better_victim (s, victim, now)) {
      victim = s;
      victim_key = key;
    }
  }
  if (!victim || (now - victim->last_heard < RTPCC_RECEIVER_SOURCE_TIMEOUT
          && victim->stats.received >= RTPCC_RECEIVER_ESTABLISHED))
    return FALSE;
  r->lost_evicted += source_lost (victim);
  if (r->twcc_media_ssrc == GPOINTER_TO_UINT (victim_key))
    r->twcc_media_ssrc = 0;
  g_hash_table_remove (r->sources, victim_key);
  r->stats.sources_evicted++;
  return TRUE;
}

Source *
rtpcc_receiver_get_source (RtpccReceiver * r, guint32 ssrc, gboolean create, RtpccTime now)
{
  Source *s = g_hash_table_lookup (r->sources, GUINT_TO_POINTER (ssrc));

  if (!s && create
      && (g_hash_table_size (r->sources) < RTPCC_RECEIVER_MAX_SOURCES
          || evict_source (r, now))) {
    s = g_new0 (Source, 1);
    rtpcc_rtp_source_init (&s->stats, ssrc);
    /* a congestion-controlled sender starts sending at once; one packet is
     * enough to validate it (RFC 3550 A.1 probation would hide losses) */
    s->stats.min_sequential = 1;
    s->last_sr_arrival = RTPCC_TIME_NONE;
    g_hash_table_insert (r->sources, GUINT_TO_POINTER (ssrc), s);
  }
  return s;
}

gboolean
rtpcc_receiver_on_rtp (RtpccReceiver * r, RtpccTime now,
    const RtpccRtpInfo * info)
{
  Source *s = rtpcc_receiver_get_source (r, info->ssrc, TRUE, now);

  r->stats.packets_received++;
  r->stats.bytes_received += info->size;
  r->rate_window_bytes += info->size;
  if (now - r->rate_window_start >= RTPCC_SEC (1)) {
    r->stats.receive_rate = (guint64) (r->rate_window_bytes * 8.0 /
        RTPCC_TIME_AS_SEC (now - r->rate_window_start));
    r->rate_window_start = now;
    r->rate_window_bytes = 0;
  }
  if (!s) {
    /* too many live sources: counted, not tracked; its payload still
     * goes on (only a probe we cannot tell apart is dropped) */
    r->stats.packets_untracked++;
    return !info->padding_only;
  }
  s->last_heard = now;
  if (!info->padding_only)
    s->media = TRUE;
  if (r->mprtp_next) {
    s->subflow = TRUE;
    r->mprtp_next = FALSE;
  }

  if (info->clock_rate)
    s->clock_rate = info->clock_rate;
  rtpcc_receiver_remb_on_rtp (r, now, info,
      s->clock_rate ? s->clock_rate : 90000);
  rtpcc_receiver_nadu_on_rtp (r, now, info,
      s->clock_rate ? s->clock_rate : 90000);
  rtpcc_rtp_source_update_seq (&s->stats, info->seq);
  rtpcc_rtp_source_update_jitter (&s->stats, now, info->rtp_ts,
      s->clock_rate ? s->clock_rate : 90000);
  {
    guint64 ext;
    gboolean seen = rtpcc_arrival_log_extend_seq (r->log, info->ssrc,
        info->seq, &ext) && rtpcc_arrival_log_lookup (r->log, info->ssrc, ext,
        NULL, NULL);
    /* FALSE also means "older than the log" or an unconfirmed restart */
    gboolean added = rtpcc_arrival_log_add (r->log, info->ssrc, info->seq,
        now, info->ecn);
    if (!added) {
      if (seen)
        r->stats.duplicates++;
      else
        r->stats.stale++;
    } else if (++r->pending >= CCFB_MAX_REPORTS / 2 && r->have_media
        && r->config.feedback == RTPCC_FEEDBACK_CCFB) {
      /* one CCFB carries CCFB_MAX_REPORTS per SSRC: report before new
       * packets fall out of its range unreported (the sender would take
       * them for losses) */
      r->next_feedback = MIN (r->next_feedback, now);
    }
    if (added && !s->xr_started && rtpcc_arrival_log_extend_seq (r->log,
            info->ssrc, info->seq, &ext)) {
      /* the Loss RLE starts at the first packet */
      s->xr_started = TRUE;
      s->xr_next = ext;
    }
    if (r->config.xr_blocks & RTPCC_RECEIVER_XR_BYTES_DISCARDED) {
      if (!s->sizes)
        s->sizes = g_new0 (guint32, SIZE_RING);
      s->sizes[info->seq % SIZE_RING] = ((guint32) info->seq << 16)
          | MIN (info->size, G_MAXUINT16);
    }
  }
  r->new_since_feedback = TRUE;
  if (r->twcc && info->has_twcc) {
    rtpcc_twcc_recorder_add (r->twcc, info->twcc_seq, now);
    if (r->twcc_media_ssrc == 0)
      r->twcc_media_ssrc = info->ssrc;
  }

  if (info->marker && !info->is_fec) {
    if (r->last_marker != RTPCC_TIME_NONE) {
      RtpccTime d = now - r->last_marker;
      /* EWMA, ignoring gaps that are pauses rather than frames */
      if (d > 0 && d < RTPCC_SEC (1))
        r->frame_interval = r->frame_interval ?
            (7 * r->frame_interval + d) / 8 : d;
    }
    r->last_marker = now;
  }

  if (!r->have_media) {
    r->have_media = TRUE;
    r->next_feedback = now + feedback_interval (r);
    /* the first RR soon, so the sender gets an RTT and the breaker a sign
     * of life early */
    r->next_rr = now + r->rr_interval / 2;
  }
  return s->media;
}

/* RFC 5104 §3.5.4: IPv4 + UDP + RTP header. We see no IP header; this
 * is what a plain RTP/UDP/IPv4 packet carries. */
#define TMMBR_OVERHEAD 40
/* "no maximum": a value no target reaches (ratecap.h) */
#define TMMBR_NONE RTPCC_RATE_CAP_NONE

static gsize
write_tmmbr (RtpccReceiver * r, guint8 * buf, gsize max)
{
  RtpccTmmbrEntry e[RTPCC_RECEIVER_MAX_SOURCES];
  GHashTableIter hit;
  gpointer key, value;
  guint n = 0;
  gsize len;

  if (!r->tmmbr_pending)
    return 0;
  g_hash_table_iter_init (&hit, r->sources);
  while (g_hash_table_iter_next (&hit, &key, &value) && n < G_N_ELEMENTS (e))
    if (((Source *) value)->media) {
      e[n].ssrc = GPOINTER_TO_UINT (key);
      e[n].bitrate = r->max_bitrate ? r->max_bitrate : TMMBR_NONE;
      e[n].overhead = TMMBR_OVERHEAD;
      n++;
    }
  if (n == 0)
    return 0;
  len = rtpcc_tmmbr_write (buf, max, r->ssrc, e, n);
  if (len > 0)
    r->stats.tmmbr_sent++;
  return len;
}

/* A TMMBN from a media source: our request is in force if adding it to
 * the set would change nothing (it is in, or a lower one bounds it). */
static void
on_tmmbn (RtpccReceiver * r, const RtpccRtcpPacket * pkt)
{
  g_autoptr (RtpccTmmb) t = NULL;
  RtpccTmmbrEntry mine;
  guint8 exp;
  guint32 mantissa;
  gboolean owned = FALSE;

  t = rtpcc_tmmbn_parse (pkt->data, pkt->len, NULL);
  if (!t) {
    r->stats.rtcp_malformed++;
    return;
  }
  r->stats.tmmbn_received++;
  if (!r->tmmbr_pending)
    return;
  for (guint i = 0; i < t->n_entries; i++)
    owned |= t->entries[i].ssrc == r->ssrc;
  /* compare as the wire carries it: mantissa · 2^exp */
  rtpcc_tmmbr_encode_bitrate (r->max_bitrate ? r->max_bitrate : TMMBR_NONE,
      &exp, &mantissa);
  mine.ssrc = r->ssrc;
  mine.bitrate = (guint64) mantissa << exp;
  mine.overhead = TMMBR_OVERHEAD;
  if (r->max_bitrate == 0 ? !owned : !rtpcc_tmmbr_would_change (t->entries,
          t->n_entries, &mine))
    r->tmmbr_pending = FALSE;
  r->stats.max_bitrate_acked = !r->tmmbr_pending;
}

void
rtpcc_receiver_set_max_bitrate (RtpccReceiver * r, RtpccTime now,
    guint64 bitrate)
{
  if (bitrate == r->max_bitrate)
    return;
  r->max_bitrate = bitrate;
  r->tmmbr_pending = TRUE;
  r->stats.max_bitrate_acked = FALSE;
  /* RFC 5104 §3.5.4 lets it go early; with the next RR at the latest */
  if (r->next_rr != RTPCC_TIME_NONE && r->next_rr > now)
    r->next_rr = now;
}

guint64
rtpcc_receiver_get_max_bitrate (const RtpccReceiver * r)
{
  return r->max_bitrate;
}

/* A request within [floor, configured]; a shorter interval takes effect
 * at once (the RR already scheduled comes no later than one new interval
 * from now), a longer one from the next RR. */
static void
set_rr_interval (RtpccReceiver * r, RtpccTime now, RtpccTime iv)
{
  iv = CLAMP (iv, RTPCC_RECEIVER_MIN_REPORT_INTERVAL,
      MAX (r->config.rtcp_interval, RTPCC_RECEIVER_MIN_REPORT_INTERVAL));
  if (iv == r->rr_interval)
    return;
  r->rr_interval = iv;
  if (r->next_rr != RTPCC_TIME_NONE && r->next_rr > now + iv)
    r->next_rr = now + (RtpccTime) (iv * rtpcc_rng_uniform (&r->rng, 0.5,
            1.5));
}

gboolean
rtpcc_receiver_on_rtcp (RtpccReceiver * r, RtpccTime now,
    const guint8 * data, gsize len)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  gboolean used = FALSE, unknown = FALSE;

  if (!rtpcc_rtcp_iter_init (&it, data, len)) {
    r->stats.rtcp_malformed++;
    return FALSE;
  }
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    if (pkt.pt == RTPCC_RTCP_SR) {
      RtpccRtcpSR sr;
      Source *s;
      if (!rtpcc_rtcp_parse_sr (&pkt, &sr)) {
        r->stats.rtcp_malformed++;
        return FALSE;
      }
      s = rtpcc_receiver_get_source (r, sr.ssrc, FALSE, now);
      if (s) {
        s->lsr = rtpcc_ntp_short (sr.ntp);
        s->last_sr_arrival = now;
        used = TRUE;
      } else
        unknown = TRUE;
    } else if (pkt.pt == RTPCC_RTCP_RTPFB
        && pkt.count == RTPCC_RTPFB_FMT_TMMBN && pkt.body_len >= 4) {
      if (!rtpcc_receiver_get_source (r, rtpcc_rd32 (pkt.body), FALSE, now)) {
        unknown = TRUE;
        continue;
      }
      used = TRUE;
      on_tmmbn (r, &pkt);
    } else if (pkt.pt == RTPCC_RTCP_XR && pkt.len >= 8) {
      guint32 lrr, dlrr;
      gint found;
      if (!rtpcc_receiver_get_source (r, rtpcc_rd32 (pkt.data + 4), FALSE, now)) {
        unknown = TRUE;
        continue;
      }
      found = rtpcc_xr_find_dlrr (pkt.data, pkt.len, r->ssrc, &lrr, &dlrr);
      if (found < 0) {
        r->stats.rtcp_malformed++;
        return FALSE;
      }
      used = TRUE;
      if (found) {
        /* RFC 3611 §4.5: A − LRR − DLRR, as LSR / DLSR */
        RtpccTime rtt = rtpcc_rtcp_rtt_from_lsr (rtpcc_ntp_short
            (rtpcc_ntp_from_time (now, r->config.ntp_offset)), lrr, dlrr);
        if (rtt != RTPCC_TIME_NONE) {
          rtpcc_receiver_add_rtt (r, rtt);
          r->stats.xr_rtt_samples++;
        }
      }
    } else if (pkt.pt == RTPCC_RTCP_APP) {
      guint32 ssrc;
      RtpccTime iv;
      /* another application's APP is not ours to judge: skipped */
      if (!rtpcc_report_interval_parse (pkt.data, pkt.len, &ssrc, &iv))
        continue;
      if (!rtpcc_receiver_get_source (r, ssrc, FALSE, now)) {
        unknown = TRUE;
        continue;
      }
      used = TRUE;
      r->stats.interval_requests++;
      if (r->config.honour_interval_requests)
        set_rr_interval (r, now, iv);
    }
  }
  if (used)
    r->stats.rtcp_received++;
  else if (unknown)
    r->stats.rtcp_unknown_ssrc++;
  return used;
}

RtpccReceiverVerdict
rtpcc_receiver_on_rtp_from (RtpccReceiver * r, RtpccTime now,
    const RtpccRtpInfo * info, const RtpccAddress * from)
{
  if (rtpcc_peer_on_rtp (r->peer, now, from, info->ssrc, info->seq,
          !info->padding_only) == RTPCC_PEER_REFUSE)
    return RTPCC_RECEIVER_REFUSED;
  return rtpcc_receiver_on_rtp (r, now, info) ? RTPCC_RECEIVER_PASS :
      RTPCC_RECEIVER_CONSUMED;
}

gboolean
rtpcc_receiver_on_rtcp_from (RtpccReceiver * r, RtpccTime now,
    const guint8 * data, gsize len, const RtpccAddress * from)
{
  /* the LSR an SR sets goes into our RRs: only the sender's may (a
   * forged one would skew the sender's RTT) */
  if (rtpcc_peer_on_rtcp (r->peer, now, from) == RTPCC_PEER_REFUSE)
    return FALSE;
  return rtpcc_receiver_on_rtcp (r, now, data, len);
}

const RtpccAddress *
rtpcc_receiver_get_peer (const RtpccReceiver * r)
{
  return rtpcc_peer_get (r->peer);
}

RtpccTime
rtpcc_receiver_next_feedback_time (RtpccReceiver * r)
{
  if (!r->have_media)
    return RTPCC_TIME_NONE;
  if (r->config.feedback == RTPCC_FEEDBACK_RR)
    return r->next_rr;
  return MIN (r->next_feedback, r->next_rr);
}


static gsize
write_rr (RtpccReceiver * r, RtpccTime now, guint8 * buf, gsize max)
{
  RtpccRtcpRR rr;
  GHashTableIter hit;
  gpointer value;
  gsize n, m;

  memset (&rr, 0, sizeof (rr));
  rr.ssrc = r->ssrc;
  g_hash_table_iter_init (&hit, r->sources);
  while (g_hash_table_iter_next (&hit, NULL, &value)
      && rr.n_blocks < RTPCC_RTCP_MAX_BLOCKS) {
    Source *s = value;
    if (rtpcc_rtp_source_make_report_block (&s->stats, now, s->lsr,
            s->last_sr_arrival, &rr.blocks[rr.n_blocks]))
      rr.n_blocks++;
  }
  n = rtpcc_rtcp_write_rr (buf, max, &rr);
  if (n == 0)
    return 0;
  m = rtpcc_rtcp_write_sdes_cname (buf + n, max - n, r->ssrc, r->cname);
  if (m == 0)
    return 0;
  /* XR after SDES (RFC 3550 §6.1 order), before any per-packet feedback */
  n += m;
  if (r->config.xr_blocks & RTPCC_RECEIVER_XR_DISCARD_RLE)
    n += rtpcc_receiver_write_discards (r, buf + n, max - n);
  n += rtpcc_receiver_write_xr_metrics (r, buf + n, max - n);
  /* RFC 3611 §4.4: the sender's DLRR answer gives the next round trip */
  if (r->config.xr_blocks & RTPCC_RECEIVER_XR_DELAY)
    n += rtpcc_xr_rrtr_write (buf + n, max - n, r->ssrc,
        rtpcc_ntp_from_time (now, r->config.ntp_offset));
  n += write_tmmbr (r, buf + n, max - n);
  n += rtpcc_receiver_write_remb (r, now, buf + n, max - n);
  n += rtpcc_receiver_write_nadu (r, now, buf + n, max - n);
  return n + rtpcc_receiver_write_subflow_reports (r, &rr, buf + n, max - n);
}

gsize
rtpcc_receiver_build_feedback (RtpccReceiver * r, RtpccTime now, guint8 * buf,
    gsize max)
{
  gsize n = 0;
  gboolean rr_due, fb_due;

  if (!r->have_media)
    return 0;
  rr_due = now >= r->next_rr;
  fb_due = r->config.feedback != RTPCC_FEEDBACK_RR
      && now >= r->next_feedback;
  if (!rr_due && !fb_due)
    return 0;

  if (rr_due) {
    n = write_rr (r, now, buf, max);
    if (n == 0)
      return 0;
    r->stats.rtcp_sent++;
    r->last_rr = now;
    /* RFC 3550 §6.3.1 randomisation */
    r->next_rr = now + (RtpccTime) (r->rr_interval *
        rtpcc_rng_uniform (&r->rng, 0.5, 1.5));
  }
  if (r->config.feedback == RTPCC_FEEDBACK_TWCC && (fb_due || rr_due)) {
    if (rtpcc_twcc_recorder_has_pending (r->twcc)) {
      guint np = 0;
      gsize m = rtpcc_twcc_recorder_write (r->twcc, now, r->ssrc,
          r->twcc_media_ssrc, buf + n, max - n, &np);
      if (m > 0) {
        n += m;
        r->stats.feedback_sent += np;
        r->new_since_feedback = FALSE;
      }
    }
    r->next_feedback = now + feedback_interval (r);
  } else if (r->config.feedback == RTPCC_FEEDBACK_CCFB && (fb_due || rr_due)) {
    /* only when something arrived since the last report (RFC 5348 §6's
     * rule, and no point repeating an unchanged report) */
    if (r->new_since_feedback) {
      gsize m = rtpcc_arrival_log_write_ccfb (r->log, now,
          r->config.ntp_offset, r->ssrc, CCFB_MAX_REPORTS, buf + n, max - n);
      if (m > 0) {
        n += m;
        r->stats.feedback_sent++;
        r->new_since_feedback = FALSE;
        r->pending = 0;
      }
    }
    r->next_feedback = now + feedback_interval (r);
  }
  r->stats.feedback_interval = feedback_interval (r);
  return n;
}

const RtpccReceiverStats *
rtpcc_receiver_get_stats (RtpccReceiver * r, RtpccTime now)
{
  GHashTableIter hit;
  gpointer value;
  guint64 lost = r->lost_evicted;
  guint media = 0;

  g_hash_table_iter_init (&hit, r->sources);
  while (g_hash_table_iter_next (&hit, NULL, &value)) {
    Source *s = value;
    lost += source_lost (s);
    media += s->media;
  }
  r->stats.packets_lost = lost;
  r->stats.media_sources = media;
  r->stats.report_interval = r->rr_interval;
  {
    const RtpccPeerStats *ps = rtpcc_peer_get_stats (r->peer);
    r->stats.peer_changes = ps->changes;
    r->stats.peer_refused = ps->refused;
    r->stats.rtcp_wrong_source = ps->rtcp_refused;
  }
  r->stats.sources = g_hash_table_size (r->sources);
  r->stats.feedback_interval = feedback_interval (r);
  return &r->stats;
}

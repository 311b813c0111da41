/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/receiver.h>
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

typedef struct
{
  RtpccRtpSourceStats stats;
  guint32 clock_rate;
  guint32 lsr;                  /* middle 32 bits of the last SR's NTP */
  RtpccTime last_sr_arrival;
  GArray *discards;             /* guint16 seqs awaiting a Discard RLE */
  guint32 discards_total;       /* marked ever (MPRTCP Discard Count) */
  RtpccTime last_heard;         /* last RTP packet */
  gboolean media;               /* a packet with payload came on it */
} Source;

static void
source_free (gpointer p)
{
  Source *s = p;

  if (s->discards)
    g_array_unref (s->discards);
  g_free (s);
}

struct _RtpccReceiver
{
  RtpccReceiverConfig config;
  gchar *cname;
  RtpccRng rng;
  guint32 ssrc;

  GHashTable *sources;          /* ssrc → Source* */
  /* one path of a multipath stream: its subflow ID, or -1 (mprtp/ext.h) */
  gint mprtp_subflow;
  RtpccPeer *peer;              /* where the media comes from (on_*_from) */
  RtpccArrivalLog *log;
  RtpccTwccRecorder *twcc;      /* TWCC mode */
  guint32 twcc_media_ssrc;      /* the media SSRC TWCC feedback names */

  gboolean have_media;
  gboolean new_since_feedback;
  guint pending;                /* new packets since the last CCFB */
  RtpccTime next_feedback;
  RtpccTime next_rr;
  RtpccTime rr_interval;        /* config, or shorter on request */
  /* our maximum (TMMBR, RFC 5104): 0 none; sent with each RR until a
   * TMMBN shows the sender has it */
  guint64 max_bitrate;
  gboolean tmmbr_pending;
  RtpccTime last_early;         /* last early RR, or NONE */

  /* frame interval from marker bits, for the adaptive CCFB interval */
  RtpccTime last_marker;
  RtpccTime frame_interval;

  RtpccTime rate_window_start;
  guint64 rate_window_bytes;

  RtpccReceiverStats stats;
  guint64 lost_evicted;         /* RFC 3550 losses of evicted sources */
};

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
  r->last_marker = RTPCC_TIME_NONE;
  r->rate_window_start = now;
  r->mprtp_subflow = -1;
  return r;
}

void
rtpcc_receiver_set_mprtp_subflow (RtpccReceiver * r, guint16 subflow_id)
{
  r->mprtp_subflow = subflow_id;
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

static Source *
get_source (RtpccReceiver * r, guint32 ssrc, gboolean create, RtpccTime now)
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
  Source *s = get_source (r, info->ssrc, TRUE, now);

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

  if (info->clock_rate)
    s->clock_rate = info->clock_rate;
  rtpcc_rtp_source_update_seq (&s->stats, info->seq);
  rtpcc_rtp_source_update_jitter (&s->stats, now, info->rtp_ts,
      s->clock_rate ? s->clock_rate : 90000);
  {
    guint64 ext;
    gboolean seen = rtpcc_arrival_log_extend_seq (r->log, info->ssrc,
        info->seq, &ext) && rtpcc_arrival_log_lookup (r->log, info->ssrc, ext,
        NULL, NULL);
    /* FALSE also means "older than the log" or an unconfirmed restart */
    if (!rtpcc_arrival_log_add (r->log, info->ssrc, info->seq, now,
            info->ecn)) {
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
      s = get_source (r, sr.ssrc, FALSE, now);
      if (s) {
        s->lsr = rtpcc_ntp_short (sr.ntp);
        s->last_sr_arrival = now;
        used = TRUE;
      } else
        unknown = TRUE;
    } else if (pkt.pt == RTPCC_RTCP_RTPFB
        && pkt.count == RTPCC_RTPFB_FMT_TMMBN && pkt.body_len >= 4) {
      if (!get_source (r, rtpcc_rd32 (pkt.body), FALSE, now)) {
        unknown = TRUE;
        continue;
      }
      used = TRUE;
      on_tmmbn (r, &pkt);
    } else if (pkt.pt == RTPCC_RTCP_APP) {
      guint32 ssrc;
      RtpccTime iv;
      /* another application's APP is not ours to judge: skipped */
      if (!rtpcc_report_interval_parse (pkt.data, pkt.len, &ssrc, &iv))
        continue;
      if (!get_source (r, ssrc, FALSE, now)) {
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

gboolean
rtpcc_receiver_mark_discarded (RtpccReceiver * r, RtpccTime now,
    guint32 ssrc, guint16 seq, guint count)
{
  Source *s = get_source (r, ssrc, FALSE, now);

  if (!s || count == 0) {
    r->stats.discards_rejected += MAX (count, 1);
    return FALSE;
  }
  if (!s->discards)
    s->discards = g_array_new (FALSE, FALSE, sizeof (guint16));
  for (guint i = 0; i < count; i++) {
    guint16 q = (guint16) (seq + i);
    if (s->discards->len >= RTPCC_RECEIVER_MAX_DISCARDS) {
      r->stats.discards_rejected += count - i;
      return i > 0;
    }
    g_array_append_val (s->discards, q);
    s->discards_total++;
    r->stats.discards_marked++;
  }
  if (r->config.early_discard_feedback && r->next_rr != RTPCC_TIME_NONE
      && r->next_rr > now && (r->last_early == RTPCC_TIME_NONE
          || now - r->last_early >= 2 * r->rr_interval)) {
    /* an early report: at most one per two regular intervals */
    r->next_rr = now;
    r->last_early = now;
    r->stats.early_feedback++;
  }
  return TRUE;
}

/* XR bytes a regular report may spend on discards, so the per-packet
 * feedback behind it in the compound keeps its room */
#define XR_BUDGET 256

static gint
cmp_int (gconstpointer a, gconstpointer b)
{
  gint x = *(const gint *) a, y = *(const gint *) b;
  return x < y ? -1 : x > y;
}

/* The Discard RLE block over the first @k of the sorted offsets @d (from
 * @ref); bits freshly allocated. */
static void
discard_block (RtpccXrRleBlock * b, guint32 ssrc, guint16 ref,
    const gint * d, guint k)
{
  memset (b, 0, sizeof (*b));
  b->bt = RTPCC_XR_BT_DISCARD_RLE;
  b->ssrc = ssrc;
  b->begin_seq = (guint16) (ref + d[0]);
  b->n_bits = (guint) (d[k - 1] - d[0] + 1);
  b->end_seq = (guint16) (b->begin_seq + b->n_bits);
  b->bits = g_malloc0 (b->n_bits);
  for (guint i = 0; i < k; i++)
    b->bits[d[i] - d[0]] = 1;
}

/* One Discard RLE block per source with pending discards, all in one XR
 * packet of at most XR_BUDGET bytes. A source whose discards do not all
 * fit reports the oldest (in sequence order) and keeps the rest for the
 * next report. 0 if none. */
static gsize
write_discards (RtpccReceiver * r, guint8 * buf, gsize max)
{
  GHashTableIter hit;
  gpointer value;
  GArray *blocks = g_array_new (FALSE, TRUE, sizeof (RtpccXrRleBlock));
  GPtrArray *srcs = g_ptr_array_new ();
  GArray *reported = g_array_new (FALSE, FALSE, sizeof (guint));
  gsize n = 0, budget, per;

  budget = MIN (max, XR_BUDGET);
  if (budget < 8 + 16)
    goto out;
  g_hash_table_iter_init (&hit, r->sources);
  while (g_hash_table_iter_next (&hit, NULL, &value))
    if (((Source *) value)->discards && ((Source *) value)->discards->len)
      g_ptr_array_add (srcs, value);
  if (srcs->len == 0)
    goto out;
  per = MAX ((budget - 8) / srcs->len, 16);
  for (guint si = 0; si < srcs->len && (blocks->len + 1) * 16 + 8 <= budget;
      si++) {
    Source *s = g_ptr_array_index (srcs, si);
    guint16 ref = g_array_index (s->discards, guint16, 0);
    GArray *d = g_array_sized_new (FALSE, FALSE, sizeof (gint),
        s->discards->len);
    guint u = 0, lo, hi, k;
    RtpccXrRleBlock b;

    /* offsets from the first pending seq in serial-number order, unique */
    for (guint i = 0; i < s->discards->len; i++) {
      gint o = (gint16) (g_array_index (s->discards, guint16, i) - ref);
      g_array_append_val (d, o);
    }
    g_array_sort (d, cmp_int);
    for (guint i = 0; i < d->len; i++)
      if (u == 0 || g_array_index (d, gint, i) != g_array_index (d, gint,
              u - 1))
        g_array_index (d, gint, u++) = g_array_index (d, gint, i);
    /* the longest prefix whose block fits this source's share */
    lo = 1;
    hi = u;
    while (lo < hi) {
      guint mid = (lo + hi + 1) / 2;
      gsize sz;
      discard_block (&b, s->stats.ssrc, ref, (const gint *) d->data, mid);
      sz = rtpcc_xr_rle_block_size (&b);
      g_free (b.bits);
      if (sz <= per)
        lo = mid;
      else
        hi = mid - 1;
    }
    k = lo;
    discard_block (&b, s->stats.ssrc, ref, (const gint *) d->data, k);
    g_array_append_val (blocks, b);
    /* keep what was not reported */
    {
      gint last = g_array_index (d, gint, k - 1);
      guint kept = 0, gone = 0;
      for (guint i = 0; i < s->discards->len; i++) {
        guint16 q = g_array_index (s->discards, guint16, i);
        if ((gint16) (q - ref) > last)
          g_array_index (s->discards, guint16, kept++) = q;
        else
          gone++;
      }
      g_array_set_size (s->discards, kept);
      g_array_append_val (reported, gone);
    }
    g_array_unref (d);
  }
  n = rtpcc_xr_write (buf, budget, r->ssrc,
      (const RtpccXrRleBlock *) blocks->data, blocks->len);
  /* cannot fail with the sizes checked; counted only when sent */
  if (n > 0)
    for (guint i = 0; i < reported->len; i++)
      r->stats.discards_reported += g_array_index (reported, guint, i);
out:
  for (guint i = 0; i < blocks->len; i++)
    g_free (g_array_index (blocks, RtpccXrRleBlock, i).bits);
  g_array_unref (blocks);
  g_ptr_array_unref (srcs);
  g_array_unref (reported);
  return n;
}

/* One path of a multipath stream: the RR's blocks again as MPRTCP subflow
 * reports (draft-ietf-avtcore-mprtp §9.2; the sequence space counted is
 * this path's FSSN, see rtpcc_receiver_set_mprtp_subflow), each with the
 * source's cumulative discards, one MPRTCP packet per media source. The
 * same blocks: a report block is made once per interval (its fraction
 * lost is since the previous one). */
static gsize
write_subflow_reports (RtpccReceiver * r, const RtpccRtcpRR * rr,
    guint8 * buf, gsize max)
{
  gsize n = 0;

  if (r->mprtp_subflow < 0)
    return 0;
  for (guint i = 0; i < rr->n_blocks; i++) {
    Source *s = g_hash_table_lookup (r->sources,
        GUINT_TO_POINTER (rr->blocks[i].ssrc));
    RtpccMprtpSubflowReport rep;
    gsize m;

    if (!s || !s->media)
      continue;
    memset (&rep, 0, sizeof rep);
    rep.subflow_id = (guint16) r->mprtp_subflow;
    rep.rr = rr->blocks[i];
    rep.has_discards = TRUE;
    rep.discards = s->discards_total;
    m = rtpcc_mprtcp_write (buf + n, max - n, r->ssrc, rr->blocks[i].ssrc,
        &rep, 1);
    if (m == 0)
      break;
    n += m;
    r->stats.mprtcp_sent++;
  }
  return n;
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
  n += write_discards (r, buf + n, max - n);
  n += write_tmmbr (r, buf + n, max - n);
  return n + write_subflow_reports (r, &rr, buf + n, max - n);
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

/* RtpccProber: padding probes and media-SSRC renumbering.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/prober.h>
#include <rtpcc/fec/fec.h>

#include <string.h>

/* A packet older than the newest sent on its SSRC by at most this many
 * seqs is a late or repeated one; further back is an upstream restart of
 * the numbering. */
#define LATE_SEARCH 512

typedef struct
{
  guint32 ssrc;
  guint32 clock_rate;
  guint16 seq_offset;           /* wire seq = original + seq_offset */
  gboolean renumbered;          /* seq_offset was ever non-zero */
  gboolean fec_protected;       /* never pad: FEC refers to original seqs */
  gboolean have_media;          /* a non-FEC packet was sent */
  gboolean last_marker;         /* ... and the last one ended a frame */
  guint16 last_wire_seq;
  guint16 last_orig;            /* newest original seq sent */
  gboolean have_orig;
  guint8 last_pt;
  guint32 last_media_ts;
} Stream;

struct _RtpccProber
{
  RtpccProberConfig config;
  RtpccSentHistory *history;
  GHashTable *streams;          /* ssrc → Stream* */
  Stream *last;                 /* the stream looked up last (most lookups:
                                 * streams are never removed) */

  guint16 probe_seq;            /* SEPARATE */
  guint32 probe_ts;
  RtpccTime probe_next;         /* NONE: not probing */
  guint8 media_pt;
  gboolean have_media_pt;
  RtpccTime last_media_fec;     /* last is_fec packet queued, or NONE */
  guint32 pad_ssrc;             /* MEDIA: SSRC of the last media sent */
  gboolean have_pad_ssrc;
  gboolean any_renumbered;

  RtpccProberStats stats;
};

RtpccProber *
rtpcc_prober_new (const RtpccProberConfig * config, RtpccSentHistory * history,
    RtpccRng * rng)
{
  RtpccProber *p = g_new0 (RtpccProber, 1);

  p->config = *config;
  if (p->config.packet_size == 0)
    p->config.packet_size = RTPCC_PROBE_PACKET_SIZE;
  p->history = history;
  p->streams = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  while (p->config.ssrc == 0)
    p->config.ssrc = (guint32) rtpcc_rng_next_u64 (rng);
  p->probe_seq = (guint16) rtpcc_rng_next_u64 (rng);
  p->probe_ts = (guint32) rtpcc_rng_next_u64 (rng);
  p->probe_next = RTPCC_TIME_NONE;
  p->last_media_fec = RTPCC_TIME_NONE;
  return p;
}

void
rtpcc_prober_free (RtpccProber * p)
{
  if (!p)
    return;
  g_hash_table_unref (p->streams);
  g_free (p);
}

const RtpccProberStats *
rtpcc_prober_get_stats (const RtpccProber * p)
{
  return &p->stats;
}

static Stream *
lookup (RtpccProber * p, guint32 ssrc)
{
  Stream *st = p->last;

  if (st && st->ssrc == ssrc)
    return st;
  st = g_hash_table_lookup (p->streams, GUINT_TO_POINTER (ssrc));
  if (st)
    p->last = st;
  return st;
}

static Stream *
get_stream (RtpccProber * p, const RtpccRtpInfo * info)
{
  Stream *st = lookup (p, info->ssrc);

  if (!st) {
    st = g_new0 (Stream, 1);
    st->ssrc = info->ssrc;
    g_hash_table_insert (p->streams, GUINT_TO_POINTER (info->ssrc), st);
  }
  if (info->clock_rate)
    st->clock_rate = info->clock_rate;
  return st;
}

void
rtpcc_prober_on_enqueue (RtpccProber * p, RtpccTime now,
    const RtpccRtpInfo * info)
{
  Stream *st = get_stream (p, info);

  if (info->is_fec) {
    p->last_media_fec = now;
    /* FEC in the media's own sequence space (ULPFEC) protects it by
     * original seqs: no padding may shift them */
    st->fec_protected = TRUE;
  } else if (!p->have_media_pt) {
    p->media_pt = info->pt;
    p->have_media_pt = TRUE;
  }
}

void
rtpcc_prober_note_fec_protected (RtpccProber * p, guint32 ssrc)
{
  Stream *st = lookup (p, ssrc);

  /* FEC follows the media it protects, so the stream exists; an SSRC we
   * never queued (a bogus header) is not made one of ours */
  if (st)
    st->fec_protected = TRUE;
}

/* The wire seq of a packet whose original seq is not newer than the newest
 * sent: a duplicate repeats its first wire seq, a late one takes the slot
 * it would have had, the wire seq of the next original seq sent less the
 * distance (padding only goes after sent packets, so none sits in
 * between). Anything else would collide with padding or a later packet. */
static guint16
old_wire_seq (RtpccProber * p, Stream * st, guint16 orig_seq)
{
  guint16 ahead = (guint16) (st->last_orig - orig_seq);

  for (guint k = 0; k <= MIN (ahead, LATE_SEARCH); k++) {
    guint16 o = (guint16) (orig_seq + k);
    RtpccSentEntry *e = rtpcc_sent_history_find_original (p->history,
        st->ssrc, o);

    if (e)
      return (guint16) (e->wire_seq - k);
  }
  return (guint16) (orig_seq + st->seq_offset);
}

guint16
rtpcc_prober_wire_seq (RtpccProber * p, const RtpccRtpInfo * info)
{
  Stream *st = get_stream (p, info);
  guint16 orig_seq = info->seq, wire;
  /* far behind is an upstream restart of the numbering, not a late one */
  gboolean newest = !(p->config.mode == RTPCC_PROBE_SSRC_MEDIA
      && st->have_orig && (gint16) (guint16) (orig_seq - st->last_orig) <= 0
      && (guint16) (st->last_orig - orig_seq) <= LATE_SEARCH);

  if (!newest) {
    /* it must not move where the next padding goes either */
    return old_wire_seq (p, st, orig_seq);
  }
  wire = (guint16) (orig_seq + st->seq_offset);
  st->last_wire_seq = wire;
  st->last_orig = orig_seq;
  st->have_orig = TRUE;
  if (!info->is_fec) {
    st->have_media = TRUE;
    st->last_marker = info->marker;
    st->last_pt = info->pt;
    st->last_media_ts = info->rtp_ts;
    p->pad_ssrc = st->ssrc;
    p->have_pad_ssrc = TRUE;
  }
  return wire;
}

/* MEDIA mode: the stream padding may go on now — that of the last media
 * packet sent, if it ended a frame (padding inside a frame would sit
 * between fragments a depayloader reassembles) and no FEC protects it. */
static Stream *
pad_stream (const RtpccProber * p)
{
  Stream *st;

  if (!p->have_pad_ssrc)
    return NULL;
  st = g_hash_table_lookup (p->streams, GUINT_TO_POINTER (p->pad_ssrc));
  if (!st || !st->have_media || !st->last_marker || st->fec_protected)
    return NULL;
  return st;
}

gboolean
rtpcc_prober_wanted (const RtpccProber * p, RtpccTime now,
    guint64 fec_bitrate, gboolean blocked)
{
  if (p->last_media_fec != RTPCC_TIME_NONE
      && now - p->last_media_fec < RTPCC_PROBER_FEC_HOLDOFF)
    return FALSE;
  if (!p->config.enabled || fec_bitrate == 0 || !p->have_media_pt || blocked)
    return FALSE;
  /* media mode waits for a frame end (the next one wakes the caller) */
  return p->config.mode != RTPCC_PROBE_SSRC_MEDIA || pad_stream (p) != NULL;
}

RtpccTime
rtpcc_prober_next_time (const RtpccProber * p, RtpccTime now,
    guint64 fec_bitrate, gboolean blocked)
{
  if (!rtpcc_prober_wanted (p, now, fec_bitrate, blocked))
    return RTPCC_TIME_NONE;
  return p->probe_next == RTPCC_TIME_NONE ? now : p->probe_next;
}

gboolean
rtpcc_prober_next_probe (RtpccProber * p, RtpccTime now, guint64 fec_bitrate,
    gboolean blocked, RtpccRtpInfo * info)
{
  RtpccRtpInfo pi = { 0, };

  if (!rtpcc_prober_wanted (p, now, fec_bitrate, blocked)) {
    /* MEDIA mode mid-frame keeps its schedule: the probe goes after the
     * frame's last packet */
    if (p->config.mode != RTPCC_PROBE_SSRC_MEDIA || fec_bitrate == 0)
      p->probe_next = RTPCC_TIME_NONE;
    return FALSE;
  }
  if (p->probe_next == RTPCC_TIME_NONE)
    p->probe_next = now;
  if (now < p->probe_next)
    return FALSE;

  pi.size = p->config.packet_size;
  pi.is_fec = TRUE;
  pi.padding_only = TRUE;
  pi.marker = FALSE;
  if (p->config.mode == RTPCC_PROBE_SSRC_MEDIA) {
    /* the media's next wire seq, its PT and last timestamp: to a receiver
     * one more packet of the frame just ended, with nothing to decode */
    Stream *st = pad_stream (p);
    pi.ssrc = st->ssrc;
    pi.seq = (guint16) (st->last_wire_seq + 1);
    pi.pt = st->last_pt;
    pi.rtp_ts = st->last_media_ts;
    pi.clock_rate = st->clock_rate;
    st->seq_offset++;
    st->renumbered = TRUE;
    p->any_renumbered = TRUE;
    st->last_wire_seq = pi.seq;
    p->stats.probe_media_packets++;
  } else {
    pi.ssrc = p->config.ssrc;
    pi.seq = p->probe_seq++;
    pi.pt = p->config.pt ? p->config.pt : p->media_pt;
    pi.clock_rate = 90000;
    /* a clock that advances like media's keeps receivers' jitter sane */
    pi.rtp_ts = p->probe_ts + (guint32) (RTPCC_TIME_AS_SEC (now) * 90000.0);
  }
  p->stats.probe_packets++;
  p->stats.probe_bytes += pi.size;
  /* next probe one packet time later at the requested rate; no catching
   * up after a late wake-up (probes are a measurement, not a debt) */
  p->probe_next = MAX (p->probe_next, now - RTPCC_MSEC (5)) +
      (RtpccTime) (pi.size * 8.0 * RTPCC_NSEC_PER_SEC / (gdouble) fec_bitrate);
  *info = pi;
  return TRUE;
}

gboolean
rtpcc_prober_map_seq (RtpccProber * p, guint32 ssrc, guint16 orig_seq,
    guint16 * wire_seq)
{
  Stream *st = lookup (p, ssrc);
  RtpccSentEntry *e;

  if (!st || !st->renumbered || p->config.mode != RTPCC_PROBE_SSRC_MEDIA)
    return FALSE;
  e = rtpcc_sent_history_find_original (p->history, ssrc, orig_seq);
  if (e && !e->is_fec)
    *wire_seq = e->wire_seq;
  else
    *wire_seq = (guint16) (orig_seq + st->seq_offset);
  return TRUE;
}

gboolean
rtpcc_prober_fec_needs_rewrite (const RtpccProber * p)
{
  return p->any_renumbered;
}

RtpccProberFecResult
rtpcc_prober_rewrite_fec (RtpccProber * p, const guint8 * rtp, gsize len,
    guint8 * fec_header)
{
  RtpccFecPacket fp;
  guint16 seqs[RTPCC_FEC_MAX_SPAN], wire, base = 0;
  guint64 mask = 0;
  guint n, prev = 0, i;

  if (!p->any_renumbered || !rtpcc_fec_packet_parse (rtp, len, &fp, NULL))
    return RTPCC_PROBER_FEC_KEPT;
  n = rtpcc_fec_mask_seqs (fp.mask, fp.base, seqs);
  for (i = 0; i < n; i++) {
    guint d;
    if (!rtpcc_prober_map_seq (p, fp.ssrc, seqs[i], &wire))
      break;                    /* the SSRC was never renumbered */
    if (i == 0)
      base = wire;
    d = (guint16) (wire - base);
    if (d >= RTPCC_FEC_MAX_SPAN || (i > 0 && d <= prev)) {
      rtpcc_fec_packet_clear (&fp);
      p->stats.fec_rewrite_drops++;
      return RTPCC_PROBER_FEC_DROP;
    }
    mask |= G_GUINT64_CONSTANT (1) << (RTPCC_FEC_MAX_SPAN - 1 - d);
    prev = d;
  }
  if (i < n || (base == fp.base && mask == fp.mask)) {
    rtpcc_fec_packet_clear (&fp);
    return RTPCC_PROBER_FEC_KEPT;
  }
  rtpcc_fec_packet_clear (&fp);
  rtpcc_fec_header_set_protected (fec_header, base, mask);
  p->stats.fec_rewritten++;
  return RTPCC_PROBER_FEC_REWRITTEN;
}

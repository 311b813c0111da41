/* FEC decoder: stores media in a sequence window, rebuilds missing packets
 * from XOR (iteratively, so 2-D codes peel) and RS parity, and releases
 * packets in sequence order, waiting at most @deadline for a hole.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fec.h"

#include <string.h>

#define WIN 1024                /* sequence window, power of two */
#define MAX_FEC 1024            /* stored FEC packets */

typedef enum
{
  SLOT_EMPTY = 0,
  SLOT_MEDIA,
  SLOT_RECOVERED,
  SLOT_GONE,                    /* given up */
  SLOT_NOT_MEDIA,               /* ULPFEC packet in the media seq space */
} SlotState;

typedef struct
{
  gint64 ext;
  SlotState state;
  GBytes *pkt;
  RtpccTime arrival;
} Slot;

struct _RtpccFecDecoder
{
  RtpccFecDecoderConfig cfg;
  RtpccFecDecoderStats stats;
  gboolean have_ssrc;
  guint32 ssrc;
  gboolean started;
  gint64 next;                  /* next extended seq to release */
  gint64 highest;
  RtpccTime highest_time;       /* when @highest last rose */
  Slot slots[WIN];
  GPtrArray *fec;               /* RtpccFecPacket* */
  GQueue ready;                 /* released on resync, before the window */
  guint16 fec_slots;            /* ULPFEC: FEC seqs released so far */
  guint8 *scratch[RTPCC_FEC_MAX_SPAN + 1];
};

void
rtpcc_fec_decoder_config_init (RtpccFecDecoderConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->deadline = RTPCC_MSEC (100);
}

static void
fec_packet_free (gpointer p)
{
  rtpcc_fec_packet_clear (p);
  g_free (p);
}

RtpccFecDecoder *
rtpcc_fec_decoder_new (const RtpccFecDecoderConfig * config)
{
  RtpccFecDecoder *dec = g_new0 (RtpccFecDecoder, 1);

  dec->cfg = *config;
  dec->fec = g_ptr_array_new_with_free_func (fec_packet_free);
  g_queue_init (&dec->ready);
  for (guint i = 0; i <= RTPCC_FEC_MAX_SPAN; i++)
    dec->scratch[i] = g_malloc (RTPCC_FEC_MAX_RTP);
  return dec;
}

void
rtpcc_fec_decoder_free (RtpccFecDecoder * dec)
{
  if (dec == NULL)
    return;
  for (guint i = 0; i < WIN; i++)
    g_clear_pointer (&dec->slots[i].pkt, g_bytes_unref);
  g_ptr_array_unref (dec->fec);
  g_queue_clear_full (&dec->ready, (GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i <= RTPCC_FEC_MAX_SPAN; i++)
    g_free (dec->scratch[i]);
  g_free (dec);
}

void
rtpcc_fec_decoder_set_deadline (RtpccFecDecoder * dec, RtpccTime deadline)
{
  dec->cfg.deadline = MAX (deadline, 0);
}

static gint64
unwrap (RtpccFecDecoder * dec, guint16 seq)
{
  return dec->highest + (gint16) (guint16) (seq - (guint16) dec->highest);
}

static Slot *
slot_get (RtpccFecDecoder * dec, gint64 ext)
{
  Slot *s = &dec->slots[ext & (WIN - 1)];

  return (s->ext == ext && s->state != SLOT_EMPTY) ? s : NULL;
}

static Slot *
slot_take (RtpccFecDecoder * dec, gint64 ext, SlotState state, GBytes * pkt,
    RtpccTime now)
{
  Slot *s = &dec->slots[ext & (WIN - 1)];

  g_clear_pointer (&s->pkt, g_bytes_unref);
  s->ext = ext;
  s->state = state;
  s->pkt = pkt;
  s->arrival = now;
  return s;
}

static gboolean
slot_has_data (const Slot * s)
{
  return s && (s->state == SLOT_MEDIA || s->state == SLOT_RECOVERED);
}

static void
raise_highest (RtpccFecDecoder * dec, gint64 ext, RtpccTime now)
{
  if (ext > dec->highest) {
    dec->highest = ext;
    dec->highest_time = now;
  }
}

static void
start (RtpccFecDecoder * dec, guint16 seq)
{
  /* an offset keeps extended numbers positive */
  dec->highest = (gint64) seq + (G_GINT64_CONSTANT (1) << 32);
  dec->next = dec->highest;
  dec->started = TRUE;
}

/* A jump beyond the window (sender restart, long outage): release what is
 * held in order and start over at @ext without counting the gap as loss. */
static void
resync (RtpccFecDecoder * dec, gint64 ext)
{
  for (gint64 e = dec->next; e <= dec->highest; e++) {
    Slot *s = slot_get (dec, e);

    if (slot_has_data (s)) {
      if (s->state == SLOT_RECOVERED)
        dec->stats.recovered++;
      dec->stats.pushed++;
      g_queue_push_tail (&dec->ready, g_bytes_ref (s->pkt));
    }
  }
  for (guint i = 0; i < WIN; i++) {
    g_clear_pointer (&dec->slots[i].pkt, g_bytes_unref);
    dec->slots[i].state = SLOT_EMPTY;
  }
  g_ptr_array_set_size (dec->fec, 0);
  dec->next = dec->highest = ext;
}

/* A rebuilt packet for @ext: kept if still wanted, else counted late. */
static void
place_recovered (RtpccFecDecoder * dec, gint64 ext, GBytes * pkt,
    RtpccTime now)
{
  if (pkt == NULL) {
    dec->stats.bad_recoveries++;
    return;
  }
  if (ext < dec->next) {
    dec->stats.late_recovered++;
    g_bytes_unref (pkt);
    return;
  }
  if (ext >= dec->next + WIN) {
    g_bytes_unref (pkt);
    return;
  }
  slot_take (dec, ext, SLOT_RECOVERED, pkt, now);
  raise_highest (dec, ext, now);
}

/* Bit string of the stored packet for @ext into @buf, zero-padded to
 * @plen; FALSE if it is longer than @plen (the FEC packet cannot have
 * covered it). */
static gboolean
load_bitstring (RtpccFecDecoder * dec, gint64 ext, guint8 * buf, gsize plen)
{
  Slot *s = slot_get (dec, ext);
  gsize len;
  const guint8 *d = g_bytes_get_data (s->pkt, &len);

  if (len - 4 > plen)
    return FALSE;
  rtpcc_fec_bitstring (d, len, buf);
  memset (buf + len - 4, 0, plen - (len - 4));
  return TRUE;
}

static gboolean
same_block (const RtpccFecPacket * a, const RtpccFecPacket * b)
{
  return a->scheme == b->scheme && a->ssrc == b->ssrc && a->base == b->base
      && a->mask == b->mask && a->m == b->m && a->parity_len == b->parity_len;
}

/* One pass over the stored FEC packets; TRUE if anything was rebuilt or
 * removed, so another pass may do more. */
static gboolean
recover_pass (RtpccFecDecoder * dec, RtpccTime now)
{
  gboolean progress = FALSE;

  for (guint i = 0; i < dec->fec->len;) {
    RtpccFecPacket *f = g_ptr_array_index (dec->fec, i);
    gint64 base = unwrap (dec, f->base), ext[RTPCC_FEC_MAX_SPAN];
    guint16 seqs[RTPCC_FEC_MAX_SPAN];
    guint k = rtpcc_fec_mask_seqs (f->mask, f->base, seqs), missing = 0;
    gint64 miss_ext = 0;
    gboolean drop = FALSE;

    for (guint j = 0; j < k; j++) {
      ext[j] = base + (guint16) (seqs[j] - f->base);
      if (!slot_has_data (slot_get (dec, ext[j]))) {
        missing++;
        miss_ext = ext[j];
      }
    }
    /* too old to help (or too far ahead to be real) */
    if (base + RTPCC_FEC_MAX_SPAN < dec->next - WIN / 2
        || base > dec->highest + WIN / 2)
      drop = TRUE;
    else if (missing == 0)
      drop = TRUE;
    else if (f->scheme == RTPCC_FEC_SCHEME_XOR && missing == 1) {
      guint8 *acc = dec->scratch[RTPCC_FEC_MAX_SPAN];
      gboolean ok = TRUE;

      memcpy (acc, f->parity, f->parity_len);
      for (guint j = 0; j < k && ok; j++) {
        if (ext[j] == miss_ext)
          continue;
        ok = load_bitstring (dec, ext[j], dec->scratch[0], f->parity_len);
        if (ok)
          for (gsize b = 0; b < f->parity_len; b++)
            acc[b] ^= dec->scratch[0][b];
      }
      if (ok)
        place_recovered (dec, miss_ext, rtpcc_fec_rebuild (acc,
                f->parity_len, (guint16) miss_ext, f->ssrc), now);
      else
        dec->stats.bad_recoveries++;
      drop = TRUE;
    } else if (f->scheme == RTPCC_FEC_SCHEME_RS) {
      guint8 *par[RTPCC_FEC_MAX_PARITY] = { NULL, };
      gboolean present[RTPCC_FEC_MAX_SPAN];
      guint npar = 0;

      for (guint g = 0; g < dec->fec->len; g++) {
        RtpccFecPacket *o = g_ptr_array_index (dec->fec, g);

        if (same_block (f, o) && par[o->index] == NULL) {
          par[o->index] = o->parity;
          npar++;
        }
      }
      if (k - missing + npar >= k) {
        gboolean ok = TRUE;

        for (guint j = 0; j < k && ok; j++) {
          present[j] = slot_has_data (slot_get (dec, ext[j]));
          if (present[j])
            ok = load_bitstring (dec, ext[j], dec->scratch[j], f->parity_len);
        }
        if (ok && rtpcc_fec_rs_decode (k, f->m, f->parity_len, dec->scratch,
                present, par)) {
          for (guint j = 0; j < k; j++)
            if (!present[j])
              place_recovered (dec, ext[j], rtpcc_fec_rebuild (dec->scratch[j],
                      f->parity_len, (guint16) ext[j], f->ssrc), now);
        } else {
          dec->stats.bad_recoveries++;
        }
        /* the whole block is done: remove its other parity rows too */
        for (guint g = 0; g < dec->fec->len;) {
          RtpccFecPacket *o = g_ptr_array_index (dec->fec, g);

          if (o != f && same_block (f, o)) {
            g_ptr_array_remove_index (dec->fec, g);
            if (g < i)
              i--;
          } else {
            g++;
          }
        }
        drop = TRUE;
      }
    }
    if (drop) {
      g_ptr_array_remove_index (dec->fec, i);
      progress = TRUE;
    } else {
      i++;
    }
  }
  return progress;
}

static void
try_recover (RtpccFecDecoder * dec, RtpccTime now)
{
  if (!dec->started)
    return;
  while (dec->fec->len > 0 && recover_pass (dec, now));
}

RtpccFecMediaResult
rtpcc_fec_decoder_push_media (RtpccFecDecoder * dec, const guint8 * rtp,
    gsize len, RtpccTime now)
{
  guint32 ssrc;
  guint16 seq;
  gint64 ext;
  Slot *s;

  if (!rtpcc_fec_rtp_valid (rtp, len) || len > RTPCC_FEC_MAX_RTP) {
    dec->stats.passed++;
    return RTPCC_FEC_MEDIA_PASS;
  }
  ssrc = ((guint32) rtp[8] << 24) | ((guint32) rtp[9] << 16) |
      ((guint32) rtp[10] << 8) | rtp[11];
  seq = (guint16) ((rtp[2] << 8) | rtp[3]);
  if (!dec->have_ssrc) {
    dec->have_ssrc = TRUE;
    dec->ssrc = ssrc;
  }
  if (ssrc != dec->ssrc) {
    dec->stats.passed++;
    return RTPCC_FEC_MEDIA_PASS;
  }
  dec->stats.media_packets++;
  if (!dec->started)
    start (dec, seq);
  ext = unwrap (dec, seq);
  if (ext < dec->next) {
    s = &dec->slots[ext & (WIN - 1)];
    if (ext > dec->next - WIN && s->ext == ext && s->state != SLOT_GONE)
      dec->stats.duplicates++;
    else
      dec->stats.late_media++;
    return RTPCC_FEC_MEDIA_DROPPED;
  }
  if (ext >= dec->next + WIN)
    resync (dec, ext);
  if (slot_has_data (slot_get (dec, ext))) {
    dec->stats.duplicates++;
    return RTPCC_FEC_MEDIA_DROPPED;
  }
  slot_take (dec, ext, SLOT_MEDIA, g_bytes_new (rtp, len), now);
  raise_highest (dec, ext, now);
  try_recover (dec, now);
  return RTPCC_FEC_MEDIA_QUEUED;
}

gboolean
rtpcc_fec_decoder_push_fec (RtpccFecDecoder * dec, const guint8 * data,
    gsize len, RtpccTime now)
{
  RtpccFecPacket pkt = { 0, };
  gboolean ok;

  ok = dec->cfg.ulpfec ? rtpcc_fec_packet_parse_ulpfec (data, len, &pkt, NULL)
      : rtpcc_fec_packet_parse (data, len, &pkt, NULL);
  if (!ok) {
    dec->stats.fec_corrupt++;
    return FALSE;
  }
  dec->stats.fec_packets++;
  if (!dec->have_ssrc) {
    dec->have_ssrc = TRUE;
    dec->ssrc = pkt.ssrc;
  }
  if (pkt.ssrc != dec->ssrc) {
    rtpcc_fec_packet_clear (&pkt);
    return TRUE;
  }
  if (dec->cfg.ulpfec) {
    gint64 ext;

    /* it took a media sequence number: not a hole to wait for */
    if (!dec->started)
      start (dec, pkt.fec_seq);
    ext = unwrap (dec, pkt.fec_seq);
    if (ext >= dec->next + WIN)
      resync (dec, ext);
    if (ext >= dec->next && !slot_has_data (slot_get (dec, ext))) {
      slot_take (dec, ext, SLOT_NOT_MEDIA, NULL, now);
      raise_highest (dec, ext, now);
    }
  }
  if (dec->started) {
    /* the block's last protected seq exists even if it and everything
     * after it was lost: a tail hole to wait for */
    guint16 seqs[RTPCC_FEC_MAX_SPAN];
    guint k = rtpcc_fec_mask_seqs (pkt.mask, pkt.base, seqs);
    gint64 last = unwrap (dec, seqs[k - 1]);

    if (last > dec->highest && last < dec->next + WIN / 2)
      raise_highest (dec, last, now);
  }
  if (dec->fec->len >= MAX_FEC)
    g_ptr_array_remove_index (dec->fec, 0);
  g_ptr_array_add (dec->fec, g_memdup2 (&pkt, sizeof (pkt)));
  try_recover (dec, now);
  return TRUE;
}

/* ULPFEC output: close the seq gaps the FEC packets left (as rtpulpfecdec
 * does), so depayloaders do not see a loss for every FEC packet. Real
 * losses still show as gaps. */
static GBytes *
renumber (GBytes * pkt, guint16 shift)
{
  gsize len;
  guint8 *d = g_bytes_unref_to_data (g_bytes_ref (pkt), &len);
  guint16 seq = (guint16) (((d[2] << 8) | d[3]) - shift);

  d[2] = (guint8) (seq >> 8);
  d[3] = (guint8) seq;
  return g_bytes_new_take (d, len);
}

/* Arrival of the first packet after the hole at dec->next, or NONE. */
static RtpccTime
hole_known_since (RtpccFecDecoder * dec)
{
  for (gint64 e = dec->next + 1; e <= dec->highest; e++) {
    Slot *s = slot_get (dec, e);

    if (s && s->state != SLOT_GONE)
      return s->arrival;
  }
  /* no packet after the hole: a FEC packet named the seqs (tail loss) */
  return dec->next <= dec->highest ? dec->highest_time : RTPCC_TIME_NONE;
}

GBytes *
rtpcc_fec_decoder_pop (RtpccFecDecoder * dec, RtpccTime now,
    gboolean * recovered)
{
  if (recovered)
    *recovered = FALSE;
  if (!g_queue_is_empty (&dec->ready))
    return g_queue_pop_head (&dec->ready);
  if (!dec->started)
    return NULL;
  while (dec->next <= dec->highest) {
    Slot *s = slot_get (dec, dec->next);
    RtpccTime t;

    if (slot_has_data (s)) {
      dec->next++;
      dec->stats.pushed++;
      if (s->state == SLOT_RECOVERED) {
        dec->stats.recovered++;
        if (recovered)
          *recovered = TRUE;
      }
      if (dec->cfg.ulpfec && dec->fec_slots != 0)
        return renumber (s->pkt, dec->fec_slots);
      return g_bytes_ref (s->pkt);
    }
    if (s && s->state == SLOT_NOT_MEDIA) {
      dec->fec_slots++;
      dec->next++;
      continue;
    }
    t = hole_known_since (dec);
    if (t == RTPCC_TIME_NONE)
      return NULL;
    if (now != RTPCC_TIME_INFINITE && now - t < dec->cfg.deadline)
      return NULL;
    slot_take (dec, dec->next, SLOT_GONE, NULL, now);
    dec->stats.unrecoverable++;
    dec->next++;
  }
  return NULL;
}

RtpccTime
rtpcc_fec_decoder_next_timeout (RtpccFecDecoder * dec)
{
  RtpccTime t;

  if (!dec->started || dec->next > dec->highest
      || slot_get (dec, dec->next) != NULL)
    return RTPCC_TIME_INFINITE;
  t = hole_known_since (dec);
  return t == RTPCC_TIME_NONE ? RTPCC_TIME_INFINITE : t + dec->cfg.deadline;
}

void
rtpcc_fec_decoder_get_stats (RtpccFecDecoder * dec,
    RtpccFecDecoderStats * stats)
{
  *stats = dec->stats;
}

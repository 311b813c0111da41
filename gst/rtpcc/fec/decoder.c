/* FEC decoder: which media stream it orders, its sequence window, and the
 * release in sequence order, waiting at most @deadline for a hole. Repair
 * is recover.c's.
 *
 * The stream is the SSRC the FEC protects (the FEC header names it), else
 * the first media SSRC seen. A packet of another SSRC is held back and
 * forwarded when the stream's next packet shows it was a stray; a second
 * one that follows it in sequence (or a FEC packet naming it) makes it the
 * stream: a sender restart. Sequence jumps on the stream get the same
 * probation (seqjump.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "decoder-private.h"

#include <string.h>

void
rtpcc_fec_decoder_config_init (RtpccFecDecoderConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->deadline = RTPCC_MSEC (100);
  config->fec_pt = RTPCC_FEC_DEFAULT_PT;
}

RtpccFecDecoder *
rtpcc_fec_decoder_new (const RtpccFecDecoderConfig * config)
{
  RtpccFecDecoder *dec = g_new0 (RtpccFecDecoder, 1);

  dec->cfg = *config;
  g_queue_init (&dec->ready);
  rtpcc_seq_jump_reset (&dec->jump);
  rtpcc_fec_blocks_init (dec);
  return dec;
}

static void
ready_free (Ready * r)
{
  g_bytes_unref (r->pkt);
  g_free (r);
}

static void
held_clear (Held * h)
{
  g_clear_pointer (&h->pkt, g_bytes_unref);
  h->held = FALSE;
}

void
rtpcc_fec_decoder_free (RtpccFecDecoder * dec)
{
  if (dec == NULL)
    return;
  for (guint i = 0; i < RTPCC_FEC_WIN; i++)
    g_clear_pointer (&dec->slots[i].pkt, g_bytes_unref);
  g_queue_clear_full (&dec->ready, (GDestroyNotify) ready_free);
  held_clear (&dec->jump_held);
  held_clear (&dec->other);
  g_clear_pointer (&dec->last_stored, g_bytes_unref);
  rtpcc_fec_blocks_free (dec);
  g_free (dec);
}

void
rtpcc_fec_decoder_set_deadline (RtpccFecDecoder * dec, RtpccTime deadline)
{
  dec->cfg.deadline = MAX (deadline, 0);
}

void
rtpcc_fec_decoder_set_fec_pt (RtpccFecDecoder * dec, guint8 pt)
{
  dec->cfg.fec_pt = pt & 0x7f;
}

gint64
rtpcc_fec_dec_unwrap (RtpccFecDecoder * dec, guint16 seq)
{
  return dec->highest + (gint16) (guint16) (seq - (guint16) dec->highest);
}

Slot *
rtpcc_fec_dec_slot_get (RtpccFecDecoder * dec, gint64 ext)
{
  Slot *s = &dec->slots[ext & (RTPCC_FEC_WIN - 1)];

  return (s->ext == ext && s->state != SLOT_EMPTY) ? s : NULL;
}

static gboolean
slot_has_data (const Slot * s)
{
  return s && (s->state == SLOT_MEDIA || s->state == SLOT_RECOVERED);
}

gboolean
rtpcc_fec_dec_has_data (RtpccFecDecoder * dec, gint64 ext)
{
  return slot_has_data (rtpcc_fec_dec_slot_get (dec, ext));
}

static void
slot_take (RtpccFecDecoder * dec, gint64 ext, SlotState state, GBytes * pkt,
    guint64 tag, RtpccTime now)
{
  Slot *s = &dec->slots[ext & (RTPCC_FEC_WIN - 1)];

  g_clear_pointer (&s->pkt, g_bytes_unref);
  s->ext = ext;
  s->state = state;
  s->pkt = pkt;
  s->tag = tag;
  s->arrival = now;
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

static void
ready_push (RtpccFecDecoder * dec, GBytes * pkt, guint64 tag,
    gboolean recovered)
{
  Ready *r = g_new (Ready, 1);

  r->pkt = pkt;
  r->tag = tag;
  r->recovered = recovered;
  g_queue_push_tail (&dec->ready, r);
}

/* The stream ends here (a sender restart, a believed jump, a jump beyond
 * the window): what the window holds is released in order, its holes are
 * given up, the FEC is forgotten; the next media packet starts afresh. */
static void
restart (RtpccFecDecoder * dec)
{
  if (dec->started) {
    for (gint64 e = dec->next; e <= dec->highest; e++) {
      Slot *s = rtpcc_fec_dec_slot_get (dec, e);

      if (slot_has_data (s)) {
        if (s->state == SLOT_RECOVERED)
          dec->stats.recovered++;
        dec->stats.pushed++;
        ready_push (dec, g_bytes_ref (s->pkt), s->tag,
            s->state == SLOT_RECOVERED);
      } else if (s == NULL || s->state != SLOT_NOT_MEDIA) {
        dec->stats.unrecoverable++;
      }
    }
  }
  rtpcc_fec_blocks_clear (dec);
  for (guint i = 0; i < RTPCC_FEC_WIN; i++) {
    g_clear_pointer (&dec->slots[i].pkt, g_bytes_unref);
    dec->slots[i].state = SLOT_EMPTY;
  }
  dec->started = FALSE;
}

gboolean
rtpcc_fec_dec_place_recovered (RtpccFecDecoder * dec, gint64 ext,
    GBytes * pkt, RtpccTime now)
{
  if (pkt == NULL) {
    dec->stats.bad_recoveries++;
    return FALSE;
  }
  if (ext < dec->next) {
    dec->stats.late_recovered++;
    g_bytes_unref (pkt);
    return FALSE;
  }
  if (ext >= dec->next + RTPCC_FEC_WIN) {
    g_bytes_unref (pkt);
    return FALSE;
  }
  slot_take (dec, ext, SLOT_RECOVERED, pkt, 0, now);
  raise_highest (dec, ext, now);
  return TRUE;
}

static void
held_set (Held * h, const guint8 * rtp, gsize len, guint32 ssrc, guint16 seq,
    guint64 tag)
{
  held_clear (h);
  h->held = TRUE;
  h->pkt = g_bytes_new (rtp, len);
  h->tag = tag;
  h->ssrc = ssrc;
  h->seq = seq;
}

/* The packet of another SSRC held back was a stray: forward it. */
static void
release_other (RtpccFecDecoder * dec)
{
  if (!dec->other.held)
    return;
  dec->stats.passed++;
  ready_push (dec, g_steal_pointer (&dec->other.pkt), dec->other.tag, FALSE);
  held_clear (&dec->other);
}

/* The packet on sequence probation was refuted (or can no longer be
 * confirmed). */
static void
refuse_jump (RtpccFecDecoder * dec)
{
  rtpcc_seq_jump_reset (&dec->jump);
  if (!dec->jump_held.held)
    return;
  dec->stats.refused++;
  held_clear (&dec->jump_held);
}

/* A media packet of the stream, in the window. */
static RtpccFecMediaResult
store_media (RtpccFecDecoder * dec, GBytes * pkt, guint16 seq, guint64 tag,
    RtpccTime now)
{
  gboolean first = !dec->started;
  gint64 ext;
  Slot *s;

  if (first)
    start (dec, seq);
  ext = rtpcc_fec_dec_unwrap (dec, seq);
  if (ext < dec->next) {
    s = &dec->slots[ext & (RTPCC_FEC_WIN - 1)];
    if (ext > dec->next - RTPCC_FEC_WIN && s->ext == ext
        && s->state != SLOT_GONE)
      dec->stats.duplicates++;
    else
      dec->stats.late_media++;
    g_bytes_unref (pkt);
    return RTPCC_FEC_MEDIA_DROPPED;
  }
  if (ext >= dec->next + RTPCC_FEC_WIN) {
    /* the release point lags a whole window behind: start over here */
    restart (dec);
    start (dec, seq);
    ext = dec->highest;
  }
  if (rtpcc_fec_dec_has_data (dec, ext)) {
    dec->stats.duplicates++;
    g_bytes_unref (pkt);
    return RTPCC_FEC_MEDIA_DROPPED;
  }
  slot_take (dec, ext, SLOT_MEDIA, pkt, tag, now);
  raise_highest (dec, ext, now);
  rtpcc_fec_blocks_prune (dec);
  if (first)
    rtpcc_fec_blocks_started (dec, now);
  rtpcc_fec_blocks_gained (dec, ext, now);
  return RTPCC_FEC_MEDIA_QUEUED;
}

/* A media packet of the stream: sequence probation, then the window. */
static RtpccFecMediaResult
stream_media (RtpccFecDecoder * dec, const guint8 * rtp, gsize len,
    guint16 seq, guint64 tag, RtpccTime now)
{
  gboolean refuted = FALSE;
  RtpccSeqJumpVerdict v = RTPCC_SEQ_JUMP_NONE;
  RtpccFecMediaResult r;
  GBytes *pkt;

  dec->stats.media_packets++;
  if (dec->started)
    v = rtpcc_seq_jump_check (&dec->jump, seq,
        rtpcc_fec_dec_unwrap (dec, seq) - dec->highest, &refuted);
  if (refuted) {
    /* the verdict's probation state is the new packet's, if any */
    dec->stats.refused++;
    held_clear (&dec->jump_held);
  }
  if (v == RTPCC_SEQ_JUMP_PROBATION) {
    held_set (&dec->jump_held, rtp, len, dec->ssrc, seq, tag);
    return RTPCC_FEC_MEDIA_QUEUED;
  }
  if (v == RTPCC_SEQ_JUMP_CONFIRMED) {
    Held h = dec->jump_held;

    /* the sender did jump (a restart, or after a long outage): the window
     * starts over at the packet that jumped */
    memset (&dec->jump_held, 0, sizeof (Held));
    dec->stats.restarts++;
    restart (dec);
    store_media (dec, h.pkt, h.seq, h.tag, now);
  }
  pkt = g_bytes_new (rtp, len);
  r = store_media (dec, g_bytes_ref (pkt), seq, tag, now);
  if (r == RTPCC_FEC_MEDIA_QUEUED)
    dec->last_stored = pkt;
  else
    g_bytes_unref (pkt);
  return r;
}

/* The stream is now @ssrc: a packet of it held back (if any) becomes its
 * first. */
static void
switch_stream (RtpccFecDecoder * dec, guint32 ssrc, RtpccTime now)
{
  restart (dec);
  refuse_jump (dec);
  dec->ssrc = ssrc;
  /* what the FEC named was the old stream: its late packets must not
   * switch back */
  dec->have_fec_ssrc = dec->have_fec_ssrc && dec->fec_ssrc == ssrc;
  dec->stats.ssrc_changes++;
  if (dec->other.held && dec->other.ssrc == ssrc) {
    Held h = dec->other;

    memset (&dec->other, 0, sizeof (Held));
    dec->stats.media_packets++;
    store_media (dec, h.pkt, h.seq, h.tag, now);
  } else {
    release_other (dec);
  }
}

static RtpccFecMediaResult
push_media (RtpccFecDecoder * dec, const guint8 * rtp, gsize len,
    RtpccTime now, guint64 tag)
{
  guint32 ssrc;
  guint16 seq;

  g_clear_pointer (&dec->last_stored, g_bytes_unref);
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
    guint16 d = (guint16) (seq - dec->other.seq);

    if ((dec->have_fec_ssrc && ssrc == dec->fec_ssrc) || (dec->other.held
            && dec->other.ssrc == ssrc && d >= 1
            && d <= RTPCC_SEQ_JUMP_CONFIRM)) {
      /* the FEC protects it, or a second packet follows in sequence */
      switch_stream (dec, ssrc, now);
    } else {
      release_other (dec);
      held_set (&dec->other, rtp, len, ssrc, seq, tag);
      return RTPCC_FEC_MEDIA_QUEUED;
    }
  } else {
    release_other (dec);
  }
  return stream_media (dec, rtp, len, seq, tag, now);
}

RtpccFecMediaResult
rtpcc_fec_decoder_push_media (RtpccFecDecoder * dec, const guint8 * rtp,
    gsize len, RtpccTime now)
{
  return push_media (dec, rtp, len, now, 0);
}

gboolean
rtpcc_fec_decoder_push_fec (RtpccFecDecoder * dec, const guint8 * data,
    gsize len, RtpccTime now)
{
  RtpccFecPacket pkt = { 0, };
  gboolean ok;

  g_clear_pointer (&dec->last_stored, g_bytes_unref);
  ok = dec->cfg.ulpfec ? rtpcc_fec_packet_parse_ulpfec (data, len, &pkt, NULL)
      : rtpcc_fec_packet_parse (data, len, &pkt, NULL);
  if (!ok) {
    dec->stats.fec_corrupt++;
    return FALSE;
  }
  dec->stats.fec_packets++;
  dec->have_fec_ssrc = TRUE;
  dec->fec_ssrc = pkt.ssrc;
  if (!dec->have_ssrc) {
    dec->have_ssrc = TRUE;
    dec->ssrc = pkt.ssrc;
  }
  if (pkt.ssrc != dec->ssrc) {
    /* it names the packet held back: that is the stream now; otherwise
     * the next media packet of the SSRC it names will be */
    if (!dec->other.held || dec->other.ssrc != pkt.ssrc) {
      rtpcc_fec_packet_clear (&pkt);
      return TRUE;
    }
    switch_stream (dec, pkt.ssrc, now);
  }
  if (dec->cfg.ulpfec) {
    gint64 ext, delta;

    /* it took a media sequence number: not a hole to wait for */
    if (!dec->started)
      start (dec, pkt.fec_seq);
    ext = rtpcc_fec_dec_unwrap (dec, pkt.fec_seq);
    delta = ext - dec->highest;
    if (delta <= RTPCC_SEQ_JUMP_AHEAD && delta >= -RTPCC_SEQ_JUMP_BEHIND) {
      if (ext >= dec->next + RTPCC_FEC_WIN) {
        restart (dec);
        start (dec, pkt.fec_seq);
        ext = dec->highest;
      }
      if (ext >= dec->next && !rtpcc_fec_dec_has_data (dec, ext)) {
        slot_take (dec, ext, SLOT_NOT_MEDIA, NULL, 0, now);
        raise_highest (dec, ext, now);
      }
    }
  }
  if (dec->started) {
    /* the block's last protected seq exists even if it and everything
     * after it was lost: a tail hole to wait for (a block is sent after
     * its packets, so that tail is at most a block long) */
    guint16 seqs[RTPCC_FEC_MAX_SPAN];
    guint k = rtpcc_fec_mask_seqs (pkt.mask, pkt.base, seqs);
    gint64 last = rtpcc_fec_dec_unwrap (dec, seqs[k - 1]);

    if (last > dec->highest && last <= dec->highest + RTPCC_FEC_MAX_SPAN
        && last < dec->next + RTPCC_FEC_WIN / 2)
      raise_highest (dec, last, now);
    rtpcc_fec_blocks_prune (dec);
  }
  rtpcc_fec_blocks_add (dec, &pkt, now);
  rtpcc_fec_packet_clear (&pkt);
  return TRUE;
}

RtpccFecInput
rtpcc_fec_decoder_push (RtpccFecDecoder * dec, const guint8 * data,
    gsize len, RtpccTime now, guint64 tag)
{
  g_clear_pointer (&dec->last_stored, g_bytes_unref);
  if (data == NULL || len < 12) {
    dec->stats.not_rtp++;
    return RTPCC_FEC_INPUT_NOT_RTP;
  }
  if ((data[1] & 0x7f) == dec->cfg.fec_pt)
    return rtpcc_fec_decoder_push_fec (dec, data, len, now) ?
        RTPCC_FEC_INPUT_FEC : RTPCC_FEC_INPUT_FEC_CORRUPT;
  switch (push_media (dec, data, len, now, tag)) {
    case RTPCC_FEC_MEDIA_QUEUED:
      return RTPCC_FEC_INPUT_QUEUED;
    case RTPCC_FEC_MEDIA_PASS:
      return RTPCC_FEC_INPUT_PASS;
    case RTPCC_FEC_MEDIA_DROPPED:
      break;
  }
  return RTPCC_FEC_INPUT_DROPPED;
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
    Slot *s = rtpcc_fec_dec_slot_get (dec, e);

    if (s && s->state != SLOT_GONE)
      return s->arrival;
  }
  /* no packet after the hole: a FEC packet named the seqs (tail loss) */
  return dec->next <= dec->highest ? dec->highest_time : RTPCC_TIME_NONE;
}

/* The release point moves on by one. The bytes of the packet
 * RTPCC_FEC_TOO_OLD + RTPCC_FEC_MAX_SPAN + 1 seqs behind it go: every
 * block that could still read them is dropped unread (recover.c), so
 * keeping them until the slot is reused would only hold a window's worth
 * of copies per stream. The slot's state stays (duplicates are still
 * told apart). */
static void
advance (RtpccFecDecoder * dec)
{
  gint64 old;
  Slot *s;

  dec->next++;
  old = dec->next - (RTPCC_FEC_TOO_OLD + RTPCC_FEC_MAX_SPAN + 1);
  s = &dec->slots[old & (RTPCC_FEC_WIN - 1)];
  if (s->ext == old)
    g_clear_pointer (&s->pkt, g_bytes_unref);
}

GBytes *
rtpcc_fec_decoder_pop_tagged (RtpccFecDecoder * dec, RtpccTime now,
    gboolean * recovered, guint64 * tag)
{
  if (recovered)
    *recovered = FALSE;
  if (tag)
    *tag = 0;
  if (now == RTPCC_TIME_INFINITE) {
    /* nothing more will come: no confirmation either */
    refuse_jump (dec);
    release_other (dec);
  }
  if (!g_queue_is_empty (&dec->ready)) {
    Ready *r = g_queue_pop_head (&dec->ready);
    GBytes *pkt = r->pkt;

    if (recovered)
      *recovered = r->recovered;
    if (tag)
      *tag = r->tag;
    g_free (r);
    return pkt;
  }
  if (!dec->started)
    return NULL;
  while (dec->next <= dec->highest) {
    Slot *s = rtpcc_fec_dec_slot_get (dec, dec->next);
    RtpccTime t;

    if (slot_has_data (s)) {
      advance (dec);
      dec->stats.pushed++;
      if (s->state == SLOT_RECOVERED) {
        dec->stats.recovered++;
        if (recovered)
          *recovered = TRUE;
      }
      if (tag)
        *tag = s->tag;
      if (dec->cfg.ulpfec && dec->fec_slots != 0)
        return renumber (s->pkt, dec->fec_slots);
      return g_bytes_ref (s->pkt);
    }
    if (s && s->state == SLOT_NOT_MEDIA) {
      dec->fec_slots++;
      advance (dec);
      continue;
    }
    t = hole_known_since (dec);
    if (t == RTPCC_TIME_NONE)
      return NULL;
    if (now != RTPCC_TIME_INFINITE && now - t < dec->cfg.deadline)
      return NULL;
    slot_take (dec, dec->next, SLOT_GONE, NULL, 0, now);
    dec->stats.unrecoverable++;
    advance (dec);
    rtpcc_fec_blocks_given_up (dec, dec->next - 1);
  }
  return NULL;
}

GBytes *
rtpcc_fec_decoder_pop (RtpccFecDecoder * dec, RtpccTime now,
    gboolean * recovered)
{
  return rtpcc_fec_decoder_pop_tagged (dec, now, recovered, NULL);
}

GBytes *
rtpcc_fec_decoder_last_stored (RtpccFecDecoder * dec)
{
  return dec->last_stored;
}

RtpccTime
rtpcc_fec_decoder_next_timeout (RtpccFecDecoder * dec)
{
  RtpccTime t;

  if (!dec->started || dec->next > dec->highest
      || rtpcc_fec_dec_slot_get (dec, dec->next) != NULL)
    return RTPCC_TIME_INFINITE;
  t = hole_known_since (dec);
  return t == RTPCC_TIME_NONE ? RTPCC_TIME_INFINITE : t + dec->cfg.deadline;
}

void
rtpcc_fec_decoder_get_stats (RtpccFecDecoder * dec,
    RtpccFecDecoderStats * stats)
{
  *stats = dec->stats;
  stats->fec_stored = dec->n_rows + dec->early->len;
}

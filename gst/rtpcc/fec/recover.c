/* The FEC decoder's repair half: stored FEC blocks indexed by the sequence
 * numbers they protect, so that a packet retries only the blocks it
 * touches; repair by XOR (peeling: a rebuilt packet retries its other
 * blocks, so 2-D codes repair what rows alone cannot) and Reed-Solomon; a
 * block is dropped once repaired, once it can no longer repair anything,
 * or once it falls far behind the release point.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "decoder-private.h"

#include <string.h>

#define TOO_OLD RTPCC_FEC_TOO_OLD

void
rtpcc_fec_blocks_init (RtpccFecDecoder * dec)
{
  g_queue_init (&dec->blocks);
  dec->early = g_ptr_array_new ();
  dec->work = g_array_new (FALSE, FALSE, sizeof (gint64));
  dec->snapshot = g_ptr_array_new ();
}

/* Scratch row @i, allocated on first use: a decoder only ever uses as many
 * rows as its largest block (and most never recover anything). */
static guint8 *
scratch (RtpccFecDecoder * dec, guint i)
{
  if (!dec->scratch[i])
    dec->scratch[i] = g_malloc (RTPCC_FEC_MAX_RTP);
  return dec->scratch[i];
}

static void
fec_packet_free (RtpccFecPacket * p)
{
  rtpcc_fec_packet_clear (p);
  g_free (p);
}

static Slot *
slot_at (RtpccFecDecoder * dec, gint64 ext)
{
  return &dec->slots[ext & (RTPCC_FEC_WIN - 1)];
}

static void
index_add (Slot * s, FecBlock * b)
{
  if (s->n_prot == s->cap_prot) {
    s->cap_prot = MAX (4, 2 * s->cap_prot);
    s->prot = g_renew (FecBlock *, s->prot, s->cap_prot);
  }
  s->prot[s->n_prot++] = b;
}

static void
index_remove (Slot * s, FecBlock * b)
{
  for (guint i = 0; i < s->n_prot; i++) {
    if (s->prot[i] == b) {
      memmove (&s->prot[i], &s->prot[i + 1],
          (s->n_prot - i - 1) * sizeof (FecBlock *));
      s->n_prot--;
      return;
    }
  }
}

static void
block_free (RtpccFecDecoder * dec, FecBlock * b)
{
  for (guint i = 0; i < b->k; i++)
    index_remove (slot_at (dec, b->ext[i]), b);
  for (guint j = 0; j < RTPCC_FEC_MAX_PARITY; j++) {
    if (b->rows[j]) {
      g_free (b->rows[j]);
      dec->n_rows--;
    }
  }
  g_queue_unlink (&dec->blocks, &b->link);
  g_free (b);
}

void
rtpcc_fec_blocks_clear (RtpccFecDecoder * dec)
{
  FecBlock *b;

  while ((b = g_queue_peek_head (&dec->blocks)) != NULL)
    block_free (dec, b);
  g_ptr_array_foreach (dec->early, (GFunc) fec_packet_free, NULL);
  g_ptr_array_set_size (dec->early, 0);
}

void
rtpcc_fec_blocks_free (RtpccFecDecoder * dec)
{
  rtpcc_fec_blocks_clear (dec);
  g_ptr_array_unref (dec->early);
  g_array_unref (dec->work);
  g_ptr_array_unref (dec->snapshot);
  rtpcc_fec_rs_cache_clear (&dec->rs);
  for (guint i = 0; i <= RTPCC_FEC_MAX_SPAN; i++)
    g_free (dec->scratch[i]);
  for (guint i = 0; i < RTPCC_FEC_WIN; i++)
    g_free (dec->slots[i].prot);
}

static gboolean
block_covers (const FecBlock * b, gint64 ext)
{
  gint64 off = ext - b->ext_base;

  return off >= 0 && off < RTPCC_FEC_MAX_SPAN
      && (b->mask >> (RTPCC_FEC_MAX_SPAN - 1 - off)) & 1;
}

/* Bit string of the stored packet for @ext into @buf, zero-padded to
 * @plen; FALSE if it is longer than @plen (the FEC packet cannot have
 * covered it). */
static gboolean
load_bitstring (RtpccFecDecoder * dec, gint64 ext, guint8 * buf, gsize plen)
{
  Slot *s = rtpcc_fec_dec_slot_get (dec, ext);
  gsize len;
  const guint8 *d = g_bytes_get_data (s->pkt, &len);

  if (len - 4 > plen)
    return FALSE;
  rtpcc_fec_bitstring (d, len, buf);
  memset (buf + len - 4, 0, plen - (len - 4));
  return TRUE;
}

/* A rebuilt packet: stored ones retry the blocks that protect them. */
static void
recovered (RtpccFecDecoder * dec, gint64 ext, GBytes * pkt, RtpccTime now)
{
  if (rtpcc_fec_dec_place_recovered (dec, ext, pkt, now))
    g_array_append_val (dec->work, ext);
}

/* What can be done with @b now: repair, drop, or wait. TRUE if it was
 * dropped (freed). */
static gboolean
block_try (RtpccFecDecoder * dec, FecBlock * b, RtpccTime now)
{
  guint missing = 0;
  gint64 miss_ext = 0;

  for (guint j = 0; j < b->k; j++) {
    if (!rtpcc_fec_dec_has_data (dec, b->ext[j])) {
      missing++;
      miss_ext = b->ext[j];
    }
  }
  /* too old to help (or too far ahead to be real) */
  if (b->ext_base + RTPCC_FEC_MAX_SPAN < dec->next - TOO_OLD
      || b->ext_base > dec->highest + RTPCC_FEC_WIN / 2 || missing == 0) {
    block_free (dec, b);
    return TRUE;
  }
  if (b->scheme == RTPCC_FEC_SCHEME_XOR) {
    guint8 *acc = scratch (dec, RTPCC_FEC_MAX_SPAN);
    gsize plen = b->parity_len;
    gboolean ok = TRUE;

    if (missing != 1)
      return FALSE;
    memcpy (acc, b->rows[0], plen);
    for (guint j = 0; j < b->k && ok; j++) {
      if (b->ext[j] == miss_ext)
        continue;
      ok = load_bitstring (dec, b->ext[j], scratch (dec, 0), plen);
      if (ok)
        rtpcc_fec_xor_into (acc, dec->scratch[0], plen);
    }
    if (ok)
      recovered (dec, miss_ext, rtpcc_fec_rebuild (acc, plen,
              (guint16) miss_ext, b->ssrc), now);
    else
      dec->stats.bad_recoveries++;
  } else {
    gboolean present[RTPCC_FEC_MAX_SPAN], ok = TRUE;
    gint64 ext[RTPCC_FEC_MAX_SPAN];
    guint k = b->k;

    if (missing > b->n_rows)
      return FALSE;
    for (guint j = 0; j < k; j++)
      scratch (dec, j);
    for (guint j = 0; j < k && ok; j++) {
      present[j] = rtpcc_fec_dec_has_data (dec, b->ext[j]);
      if (present[j])
        ok = load_bitstring (dec, b->ext[j], dec->scratch[j], b->parity_len);
    }
    memcpy (ext, b->ext, sizeof (ext));
    if (ok && rtpcc_fec_rs_code_decode (rtpcc_fec_rs_cache_get (&dec->rs, k,
                b->m), b->parity_len, dec->scratch, present, b->rows)) {
      guint32 ssrc = b->ssrc;
      gsize plen = b->parity_len;

      /* the whole block is done; rebuilt packets may retry others */
      block_free (dec, b);
      for (guint j = 0; j < k; j++)
        if (!present[j])
          recovered (dec, ext[j], rtpcc_fec_rebuild (dec->scratch[j], plen,
                  (guint16) ext[j], ssrc), now);
      return TRUE;
    }
    dec->stats.bad_recoveries++;
  }
  block_free (dec, b);
  return TRUE;
}

/* Retries the blocks protecting each seq on the work list until none is
 * left (a rebuilt packet adds its own seq). */
static void
drain_work (RtpccFecDecoder * dec, RtpccTime now)
{
  while (dec->work->len > 0) {
    gint64 ext = g_array_index (dec->work, gint64, dec->work->len - 1);
    Slot *s = slot_at (dec, ext);
    GPtrArray *todo = dec->snapshot;

    g_array_set_size (dec->work, dec->work->len - 1);
    /* a snapshot: trying one block may free others */
    g_ptr_array_set_size (todo, 0);
    for (guint i = 0; i < s->n_prot; i++)
      if (block_covers (s->prot[i], ext))
        g_ptr_array_add (todo, s->prot[i]);
    for (guint i = 0; i < todo->len; i++) {
      gboolean alive = FALSE;

      for (guint j = 0; j < s->n_prot && !alive; j++)
        alive = s->prot[j] == todo->pdata[i];
      if (alive)
        block_try (dec, todo->pdata[i], now);
    }
  }
}

void
rtpcc_fec_blocks_gained (RtpccFecDecoder * dec, gint64 ext, RtpccTime now)
{
  g_array_append_val (dec->work, ext);
  drain_work (dec, now);
}

static gboolean
same_block (const FecBlock * b, const RtpccFecPacket * p)
{
  return b->scheme == p->scheme && b->ssrc == p->ssrc && b->base == p->base
      && b->mask == p->mask && b->m == p->m && b->parity_len == p->parity_len;
}

/* Stores @pkt (its parity is taken) as a new block or a further RS row of
 * one; the block to try, or NULL if it added nothing. */
static FecBlock *
store (RtpccFecDecoder * dec, RtpccFecPacket * pkt)
{
  guint16 seqs[RTPCC_FEC_MAX_SPAN];
  guint k = rtpcc_fec_mask_seqs (pkt->mask, pkt->base, seqs);
  gint64 base = rtpcc_fec_dec_unwrap (dec, pkt->base);
  gint64 first = base + (guint16) (seqs[0] - pkt->base);
  FecBlock *b = NULL;

  if (pkt->scheme == RTPCC_FEC_SCHEME_RS) {
    Slot *s = slot_at (dec, first);

    for (guint i = 0; i < s->n_prot && b == NULL; i++)
      if (s->prot[i]->ext[0] == first && same_block (s->prot[i], pkt))
        b = s->prot[i];
  }
  if (b != NULL) {
    /* a row already held adds nothing */
    if (b->rows[pkt->index] != NULL) {
      rtpcc_fec_packet_clear (pkt);
      return NULL;
    }
  } else {
    if (dec->n_rows >= RTPCC_FEC_MAX_ROWS)
      block_free (dec, g_queue_peek_head (&dec->blocks));
    b = g_new0 (FecBlock, 1);
    b->scheme = pkt->scheme;
    b->ssrc = pkt->ssrc;
    b->base = pkt->base;
    b->mask = pkt->mask;
    b->m = pkt->m;
    b->k = (guint8) k;
    b->parity_len = pkt->parity_len;
    b->ext_base = base;
    for (guint i = 0; i < k; i++) {
      b->ext[i] = base + (guint16) (seqs[i] - pkt->base);
      index_add (slot_at (dec, b->ext[i]), b);
    }
    b->link.data = b;
    g_queue_push_tail_link (&dec->blocks, &b->link);
  }
  b->rows[pkt->index] = pkt->parity;
  b->n_rows++;
  dec->n_rows++;
  pkt->parity = NULL;
  pkt->parity_len = 0;
  return b;
}

static void
add_and_try (RtpccFecDecoder * dec, RtpccFecPacket * pkt, RtpccTime now)
{
  FecBlock *b = store (dec, pkt);

  if (b != NULL) {
    block_try (dec, b, now);
    drain_work (dec, now);
  }
}

void
rtpcc_fec_blocks_add (RtpccFecDecoder * dec, RtpccFecPacket * pkt,
    RtpccTime now)
{
  if (!dec->started) {
    /* kept until the first media packet places the window */
    if (dec->early->len >= RTPCC_FEC_MAX_ROWS) {
      fec_packet_free (dec->early->pdata[0]);
      g_ptr_array_remove_index (dec->early, 0);
    }
    g_ptr_array_add (dec->early, g_memdup2 (pkt, sizeof (*pkt)));
    pkt->parity = NULL;
    return;
  }
  add_and_try (dec, pkt, now);
}

void
rtpcc_fec_blocks_started (RtpccFecDecoder * dec, RtpccTime now)
{
  for (guint i = 0; i < dec->early->len; i++) {
    RtpccFecPacket *p = dec->early->pdata[i];

    add_and_try (dec, p, now);
    fec_packet_free (p);
  }
  g_ptr_array_set_size (dec->early, 0);
}

void
rtpcc_fec_blocks_given_up (RtpccFecDecoder * dec, gint64 ext)
{
  Slot *s = slot_at (dec, ext);

  for (guint i = 0; i < s->n_prot;) {
    FecBlock *b = s->prot[i];
    guint missing = 0;
    gboolean open = FALSE;

    if (!block_covers (b, ext)) {
      i++;
      continue;
    }
    /* beyond repair: every missing packet is behind the release point (no
     * media can fill them any more) and more are missing than the code
     * can ever rebuild (XOR: one; RS: m, whatever rows are still to come);
     * a rebuild would only be discarded as late */
    for (guint j = 0; j < b->k && !open; j++) {
      if (!rtpcc_fec_dec_has_data (dec, b->ext[j])) {
        missing++;
        open = b->ext[j] >= dec->next;
      }
    }
    if (!open && missing > (b->scheme == RTPCC_FEC_SCHEME_RS ? b->m : 1u))
      block_free (dec, b);
    else
      i++;
  }
}

void
rtpcc_fec_blocks_prune (RtpccFecDecoder * dec)
{
  FecBlock *b;

  while ((b = g_queue_peek_head (&dec->blocks)) != NULL
      && b->ext_base + RTPCC_FEC_MAX_SPAN < dec->next - TOO_OLD)
    block_free (dec, b);
}

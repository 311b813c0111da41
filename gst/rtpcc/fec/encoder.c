/* FEC encoder: blocks of media packets -> parity packets, bounded in count
 * and in time.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fec.h"
#include "rs.h"

#include <string.h>

struct _RtpccFecEncoder
{
  RtpccFecEncoderConfig cfg;
  gboolean enabled;
  guint16 fec_seq;
  GQueue out;
  RtpccFecEncoderStats stats;

  /* the open block (for 2-D: the open matrix, rows of cfg.n) */
  guint32 media_ssrc;
  guint count;
  guint row_start;
  guint8 *bs[RTPCC_FEC_MAX_SPAN];       /* capacity RTPCC_FEC_MAX_RTP each,
                                         * allocated on first use (a block
                                         * spans a few of them) */
  gsize bs_len[RTPCC_FEC_MAX_SPAN];
  guint16 seq[RTPCC_FEC_MAX_SPAN];
  guint32 last_ts;
  RtpccTime first_time;
  RtpccFecRsCache rs;
  /* media inter-arrival (EWMA 1/8), for closing a block before a packet
   * that would come after its time bound */
  RtpccTime last_push;
  RtpccTime gap_ewma;
};

void
rtpcc_fec_encoder_config_init (RtpccFecEncoderConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->scheme = RTPCC_FEC_SCHEME_XOR;
  config->n = 5;
  config->depth = 4;
  config->k = 10;
  config->m = 2;
  config->max_block_time = RTPCC_MSEC (100);
  config->ssrc = 0x0fec0fec;
  config->pt = RTPCC_FEC_DEFAULT_PT;
}

gboolean
rtpcc_fec_encoder_config_validate (const RtpccFecEncoderConfig * c,
    GError ** error)
{
  if (c->scheme > RTPCC_FEC_SCHEME_XOR_2D) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID, "unknown scheme %d",
        c->scheme);
    return FALSE;
  }
  if (c->n < RTPCC_FEC_MIN_N || c->n > RTPCC_FEC_MAX_N) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "n = %u outside [%d, %d]", c->n, RTPCC_FEC_MIN_N, RTPCC_FEC_MAX_N);
    return FALSE;
  }
  if (c->scheme == RTPCC_FEC_SCHEME_XOR_2D && (c->depth < 2 || c->depth > 8
          || c->n * c->depth > RTPCC_FEC_MAX_SPAN)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "2-D depth %u with n %u: need depth in [2, 8], n * depth <= %d",
        c->depth, c->n, RTPCC_FEC_MAX_SPAN);
    return FALSE;
  }
  if (c->k < 1 || c->k > RTPCC_FEC_MAX_SPAN || c->m < 1
      || c->m > RTPCC_FEC_MAX_PARITY) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "RS (k %u, m %u): need k in [1, %d], m in [1, %d]", c->k, c->m,
        RTPCC_FEC_MAX_SPAN, RTPCC_FEC_MAX_PARITY);
    return FALSE;
  }
  if (c->max_block_time < 0 || c->pt > 127) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "negative max-block-time or payload type > 127");
    return FALSE;
  }
  return TRUE;
}

RtpccFecEncoder *
rtpcc_fec_encoder_new (const RtpccFecEncoderConfig * config, GError ** error)
{
  RtpccFecEncoder *enc;

  if (!rtpcc_fec_encoder_config_validate (config, error))
    return NULL;
  enc = g_new0 (RtpccFecEncoder, 1);
  enc->cfg = *config;
  enc->enabled = TRUE;
  g_queue_init (&enc->out);
  return enc;
}

void
rtpcc_fec_encoder_free (RtpccFecEncoder * enc)
{
  if (enc == NULL)
    return;
  g_queue_clear_full (&enc->out, (GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < RTPCC_FEC_MAX_SPAN; i++)
    g_free (enc->bs[i]);
  rtpcc_fec_rs_cache_clear (&enc->rs);
  g_free (enc);
}

static void
emit (RtpccFecEncoder * enc, RtpccFecScheme scheme, guint index, guint m,
    guint64 mask, guint16 base, const guint8 * parity, gsize plen)
{
  gsize len = 12 + RTPCC_FEC_HEADER_LEN + plen;
  guint8 *p = g_malloc (len), *f = p + 12;
  guint32 s = enc->cfg.ssrc, ps = enc->media_ssrc;

  p[0] = 0x80;
  p[1] = enc->cfg.pt & 0x7f;
  p[2] = (guint8) (enc->fec_seq >> 8);
  p[3] = (guint8) enc->fec_seq;
  enc->fec_seq++;
  /* the media clock: the newest protected timestamp */
  p[4] = (guint8) (enc->last_ts >> 24);
  p[5] = (guint8) (enc->last_ts >> 16);
  p[6] = (guint8) (enc->last_ts >> 8);
  p[7] = (guint8) enc->last_ts;
  p[8] = (guint8) (s >> 24);
  p[9] = (guint8) (s >> 16);
  p[10] = (guint8) (s >> 8);
  p[11] = (guint8) s;
  f[0] = (guint8) (0x40 | (scheme << 4));
  f[1] = (guint8) index;
  f[2] = (guint8) m;
  f[3] = 0;
  f[4] = (guint8) (ps >> 24);
  f[5] = (guint8) (ps >> 16);
  f[6] = (guint8) (ps >> 8);
  f[7] = (guint8) ps;
  rtpcc_fec_header_set_protected (f, base, mask);
  memcpy (f + RTPCC_FEC_HEADER_LEN, parity, plen);
  enc->stats.fec_packets++;
  enc->stats.fec_bytes += len;
  g_queue_push_tail (&enc->out, g_bytes_new_take (p, len));
}

/* XOR parity over the packets at @idx (block indices), emitted as one
 * packet. */
static void
emit_xor (RtpccFecEncoder * enc, const guint * idx, guint n)
{
  guint8 *rows[RTPCC_FEC_MAX_SPAN];
  guint8 parity[RTPCC_FEC_MAX_RTP];
  gsize plen = 0;
  guint64 mask = 0;
  guint16 base = enc->seq[idx[0]];

  for (guint i = 0; i < n; i++)
    plen = MAX (plen, enc->bs_len[idx[i]]);
  for (guint i = 0; i < n; i++) {
    memset (enc->bs[idx[i]] + enc->bs_len[idx[i]], 0,
        plen - enc->bs_len[idx[i]]);
    rows[i] = enc->bs[idx[i]];
    mask |= G_GUINT64_CONSTANT (1) << (RTPCC_FEC_MAX_SPAN - 1 -
        (guint16) (enc->seq[idx[i]] - base));
  }
  rtpcc_fec_xor (parity, rows, n, plen);
  emit (enc, RTPCC_FEC_SCHEME_XOR, 0, 1, mask, base, parity, plen);
}

/* Zero the tails so every string reads as padded to @plen. */
static gsize
pad_block (RtpccFecEncoder * enc)
{
  gsize plen = 0;

  for (guint i = 0; i < enc->count; i++)
    plen = MAX (plen, enc->bs_len[i]);
  for (guint i = 0; i < enc->count; i++)
    memset (enc->bs[i] + enc->bs_len[i], 0, plen - enc->bs_len[i]);
  return plen;
}

static void
close_row (RtpccFecEncoder * enc)
{
  guint idx[RTPCC_FEC_MAX_SPAN], n = 0;

  for (guint i = enc->row_start; i < enc->count; i++)
    idx[n++] = i;
  if (n > 0)
    emit_xor (enc, idx, n);
  enc->row_start = enc->count;
}

static void
close_block (RtpccFecEncoder * enc, gboolean by_time)
{
  if (enc->count == 0)
    return;
  pad_block (enc);
  enc->stats.blocks++;
  if (by_time)
    enc->stats.blocks_closed_by_time++;
  switch (enc->cfg.scheme) {
    case RTPCC_FEC_SCHEME_XOR:{
      guint idx[RTPCC_FEC_MAX_SPAN];

      for (guint i = 0; i < enc->count; i++)
        idx[i] = i;
      emit_xor (enc, idx, enc->count);
      break;
    }
    case RTPCC_FEC_SCHEME_XOR_2D:{
      guint n = enc->cfg.n;

      if (enc->row_start < enc->count)
        close_row (enc);
      /* columns: every n-th packet; one-member columns would only repeat a
       * packet the row parity already covers */
      for (guint c = 0; c < n && c + n < enc->count; c++) {
        guint idx[RTPCC_FEC_MAX_SPAN], cnt = 0;

        for (guint i = c; i < enc->count; i += n)
          idx[cnt++] = i;
        emit_xor (enc, idx, cnt);
      }
      break;
    }
    case RTPCC_FEC_SCHEME_RS:{
      guint8 *par[RTPCC_FEC_MAX_PARITY];
      gsize plen = pad_block (enc);
      guint64 mask = 0;
      guint16 base = enc->seq[0];

      for (guint i = 0; i < enc->count; i++)
        mask |= G_GUINT64_CONSTANT (1) << (RTPCC_FEC_MAX_SPAN - 1 -
            (guint16) (enc->seq[i] - base));
      for (guint j = 0; j < enc->cfg.m; j++)
        par[j] = g_malloc (plen);
      rtpcc_fec_rs_code_encode (rtpcc_fec_rs_cache_get (&enc->rs, enc->count,
              enc->cfg.m), plen, enc->bs, par);
      for (guint j = 0; j < enc->cfg.m; j++) {
        emit (enc, RTPCC_FEC_SCHEME_RS, j, enc->cfg.m, mask, base, par[j],
            plen);
        g_free (par[j]);
      }
      break;
    }
  }
  enc->count = 0;
  enc->row_start = 0;
}

static guint
block_size (const RtpccFecEncoderConfig * c)
{
  switch (c->scheme) {
    case RTPCC_FEC_SCHEME_RS:
      return c->k;
    case RTPCC_FEC_SCHEME_XOR_2D:
      return c->n * c->depth;
    default:
      return c->n;
  }
}

gboolean
rtpcc_fec_encoder_set_config (RtpccFecEncoder * enc,
    const RtpccFecEncoderConfig * config, GError ** error)
{
  if (!rtpcc_fec_encoder_config_validate (config, error))
    return FALSE;
  /* a block is coded with one layout; a new layout starts a new block */
  if (config->scheme != enc->cfg.scheme || (config->scheme ==
          RTPCC_FEC_SCHEME_XOR_2D && config->n != enc->cfg.n)
      || config->m != enc->cfg.m)
    close_block (enc, FALSE);
  enc->cfg = *config;
  if (enc->count >= block_size (&enc->cfg))
    close_block (enc, FALSE);
  return TRUE;
}

const RtpccFecEncoderConfig *
rtpcc_fec_encoder_get_config (RtpccFecEncoder * enc)
{
  return &enc->cfg;
}

gboolean
rtpcc_fec_config_follow (RtpccFecEncoderConfig * config, guint64 media_bitrate,
    guint64 fec_bitrate, guint interval, RtpccTime max_block_time,
    const RtpccFecSizes * sizes)
{
  guint n;
  gdouble r;

  if (interval > 0) {
    config->n = CLAMP (interval, RTPCC_FEC_MIN_N, RTPCC_FEC_MAX_N);
    config->max_block_time = 0;
    return TRUE;
  }
  n = rtpcc_fec_interval_for_rates (media_bitrate, fec_bitrate);
  r = n > 0 && sizes ? rtpcc_fec_sizes_ratio (sizes, n) : 1.0;
  if (r > 1.0)
    n = rtpcc_fec_interval_for_rates ((guint64) MIN (media_bitrate * r,
            (gdouble) (G_MAXUINT64 / 2)), fec_bitrate);
  if (n == 0)
    return FALSE;
  config->n = n;
  config->max_block_time = max_block_time;
  return TRUE;
}

gdouble
rtpcc_fec_parity_ratio (gdouble mean, guint longest)
{
  if (!(mean > 0) || longest == 0)
    return 1.0;
  return MAX (1.0, (longest + RTPCC_FEC_HEADER_LEN) / mean);
}

void
rtpcc_fec_sizes_init (RtpccFecSizes * sizes, RtpccTime window)
{
  memset (sizes, 0, sizeof (*sizes));
  sizes->window = window;
  sizes->start = RTPCC_TIME_NONE;
  sizes->ratio = 1.0;
}

void
rtpcc_fec_sizes_add (RtpccFecSizes * sizes, RtpccTime now, guint size)
{
  if (sizes->start == RTPCC_TIME_NONE)
    sizes->start = now;
  else if (now - sizes->start >= sizes->window) {
    sizes->ratio = rtpcc_fec_parity_ratio ((gdouble) sizes->bytes /
        sizes->packets, sizes->longest);
    sizes->start = now;
    sizes->bytes = sizes->packets = 0;
    sizes->longest = 0;
  }
  sizes->bytes += size;
  sizes->packets++;
  sizes->longest = MAX (sizes->longest, size);
  sizes->ring[sizes->ring_pos] = (guint16) MIN (size, G_MAXUINT16);
  sizes->ring_pos = (sizes->ring_pos + 1) % RTPCC_FEC_SIZES_RING;
  sizes->ring_len = MIN (sizes->ring_len + 1, RTPCC_FEC_SIZES_RING);
}

gdouble
rtpcc_fec_sizes_ratio (const RtpccFecSizes * sizes, guint k)
{
  guint n = sizes->ring_len;
  guint blocks = k > 0 ? n / k : 0;
  /* the newest blocks * k packets, oldest first */
  guint first = (sizes->ring_pos + RTPCC_FEC_SIZES_RING - blocks * k) %
      RTPCC_FEC_SIZES_RING;
  guint64 parity = 0, media = 0;
  guint longest = 0;

  if (blocks < 2)
    return sizes->ratio;
  for (guint i = 0; i < blocks * k; i++) {
    guint16 v = sizes->ring[(first + i) % RTPCC_FEC_SIZES_RING];

    if (i % k == 0)
      longest = 0;
    longest = MAX (longest, v);
    media += v;
    if (i % k == k - 1)
      parity += longest + RTPCC_FEC_HEADER_LEN;
  }
  return media > 0 ? MAX (1.0, ((gdouble) parity / blocks) /
      ((gdouble) media / (blocks * k))) : 1.0;
}

void
rtpcc_fec_sizes_ratios (const RtpccFecSizes * sizes,
    gdouble ratios[RTPCC_FEC_MAX_SPAN + 1])
{
  ratios[0] = 1.0;
  for (guint k = 1; k <= RTPCC_FEC_MAX_SPAN; k++)
    ratios[k] = rtpcc_fec_sizes_ratio (sizes, k);
}

guint
rtpcc_fec_interval_for_rates (guint64 media_bitrate, guint64 fec_bitrate)
{
  guint64 n;

  if (media_bitrate == 0 || fec_bitrate == 0)
    return 0;
  n = media_bitrate / fec_bitrate;
  /* round to nearest without overflowing the sum */
  if (media_bitrate % fec_bitrate >= fec_bitrate - fec_bitrate / 2)
    n++;
  return (guint) CLAMP (n, RTPCC_FEC_MIN_N, RTPCC_FEC_MAX_N);
}

void
rtpcc_fec_encoder_set_enabled (RtpccFecEncoder * enc, gboolean enabled)
{
  if (!enabled) {
    enc->count = 0;
    enc->row_start = 0;
  }
  enc->enabled = enabled;
}

gboolean
rtpcc_fec_encoder_get_enabled (RtpccFecEncoder * enc)
{
  return enc->enabled;
}

void
rtpcc_fec_encoder_poll (RtpccFecEncoder * enc, RtpccTime now)
{
  if (enc->count > 0 && enc->cfg.max_block_time > 0
      && now >= enc->first_time + enc->cfg.max_block_time)
    close_block (enc, TRUE);
}

RtpccTime
rtpcc_fec_encoder_next_deadline (RtpccFecEncoder * enc)
{
  if (enc->count == 0 || enc->cfg.max_block_time <= 0)
    return RTPCC_TIME_INFINITE;
  return enc->first_time + enc->cfg.max_block_time;
}

void
rtpcc_fec_encoder_close_early (RtpccFecEncoder * enc, RtpccTime now)
{
  RtpccTime dl = rtpcc_fec_encoder_next_deadline (enc);

  if (dl != RTPCC_TIME_INFINITE && now + enc->gap_ewma >= dl)
    rtpcc_fec_encoder_poll (enc, dl);
}

void
rtpcc_fec_encoder_flush (RtpccFecEncoder * enc)
{
  close_block (enc, FALSE);
}

void
rtpcc_fec_encoder_push (RtpccFecEncoder * enc, const guint8 * rtp, gsize len,
    RtpccTime now)
{
  guint32 ssrc;
  guint16 seq;

  enc->stats.media_packets++;
  enc->stats.media_bytes += len;
  if (enc->last_push > 0 && now >= enc->last_push)
    enc->gap_ewma = enc->gap_ewma == 0 ? now - enc->last_push :
        (7 * enc->gap_ewma + (now - enc->last_push)) / 8;
  enc->last_push = now;
  if (!enc->enabled)
    return;
  rtpcc_fec_encoder_poll (enc, now);
  if (!rtpcc_fec_rtp_valid (rtp, len) || len > RTPCC_FEC_MAX_RTP) {
    enc->stats.skipped++;
    return;
  }
  ssrc = ((guint32) rtp[8] << 24) | ((guint32) rtp[9] << 16) |
      ((guint32) rtp[10] << 8) | rtp[11];
  seq = (guint16) ((rtp[2] << 8) | rtp[3]);
  if (enc->count > 0) {
    guint16 d = (guint16) (seq - enc->seq[0]);

    /* a block covers one SSRC, ascending seqs within the mask span */
    if (ssrc != enc->media_ssrc || d == 0 || d >= RTPCC_FEC_MAX_SPAN
        || (guint16) (seq - enc->seq[enc->count - 1]) >= 0x8000)
      close_block (enc, FALSE);
  }
  if (enc->count == 0) {
    enc->media_ssrc = ssrc;
    enc->first_time = now;
  }
  if (!enc->bs[enc->count])
    enc->bs[enc->count] = g_malloc (RTPCC_FEC_MAX_RTP);
  enc->bs_len[enc->count] = rtpcc_fec_bitstring (rtp, len, enc->bs[enc->count]);
  enc->seq[enc->count] = seq;
  enc->last_ts = ((guint32) rtp[4] << 24) | ((guint32) rtp[5] << 16) |
      ((guint32) rtp[6] << 8) | rtp[7];
  enc->count++;
  if (enc->cfg.scheme == RTPCC_FEC_SCHEME_XOR_2D
      && enc->count - enc->row_start == enc->cfg.n)
    close_row (enc);
  if (enc->count >= block_size (&enc->cfg))
    close_block (enc, FALSE);
}

GBytes *
rtpcc_fec_encoder_pop (RtpccFecEncoder * enc)
{
  return g_queue_pop_head (&enc->out);
}

void
rtpcc_fec_encoder_get_stats (RtpccFecEncoder * enc,
    RtpccFecEncoderStats * stats)
{
  *stats = enc->stats;
}

/* SimFec: see sim-fec.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-fec.h"

#include <math.h>
#include <string.h>
#include <rtpcc/fec/fec.h>

enum
{
  SENT = 1 << 0,
  PROTECTED = 1 << 1,
  ARRIVED = 1 << 2,
  RECOVERED = 1 << 3,
};

typedef struct
{
  guint64 frame;
  guint8 flags;
} Entry;

struct _SimFec
{
  guint32 media_ssrc;
  guint8 pt;
  RtpccFecEncoder *enc;
  RtpccFecEncoderConfig cfg;
  RtpccTime max_block_time;     /* fecenc's default */
  RtpccFecSizes media_sizes;    /* as fecenc: what a parity packet costs */
  gboolean enabled;
  RtpccFecDecoder *dec;
  GArray *ledger;               /* Entry by media packet number */
  /* the newest packet's number and seq on each side, to place a 16-bit
   * seq (a parity's mask, a rebuilt packet) in the numbering */
  guint64 sent_index, arrived_index;
  guint16 sent_seq, arrived_seq;
  gboolean any_arrived;
  guint8 *bytes;                /* a media packet materialised */
  gsize bytes_size;
};

SimFec *
sim_fec_new (guint32 media_ssrc, guint32 fec_ssrc, guint8 fec_pt)
{
  SimFec *fec = g_new0 (SimFec, 1);
  RtpccFecDecoderConfig dc;

  fec->media_ssrc = media_ssrc;
  fec->pt = fec_pt;
  rtpcc_fec_encoder_config_init (&fec->cfg);
  fec->cfg.scheme = RTPCC_FEC_SCHEME_XOR;
  fec->cfg.ssrc = fec_ssrc;
  fec->cfg.pt = fec_pt;
  fec->max_block_time = fec->cfg.max_block_time;
  rtpcc_fec_sizes_init (&fec->media_sizes, RTPCC_SEC (1));
  fec->enc = rtpcc_fec_encoder_new (&fec->cfg, NULL);
  g_assert (fec->enc != NULL);
  /* off until the controller asks for FEC */
  rtpcc_fec_encoder_set_enabled (fec->enc, FALSE);
  rtpcc_fec_decoder_config_init (&dc);
  dc.fec_pt = fec_pt;
  fec->dec = rtpcc_fec_decoder_new (&dc);
  fec->ledger = g_array_new (FALSE, TRUE, sizeof (Entry));
  return fec;
}

void
sim_fec_free (SimFec * fec)
{
  if (!fec)
    return;
  rtpcc_fec_encoder_free (fec->enc);
  rtpcc_fec_decoder_free (fec->dec);
  g_array_free (fec->ledger, TRUE);
  g_free (fec->bytes);
  g_free (fec);
}

guint8
sim_fec_get_pt (const SimFec * fec)
{
  return fec->pt;
}

static Entry *
entry (SimFec * fec, guint64 index)
{
  if (index >= fec->ledger->len)
    g_array_set_size (fec->ledger, (guint) index + 1);
  return &g_array_index (fec->ledger, Entry, index);
}

/* The number of the packet with @seq, near the newest (@index, @at). */
static gboolean
place (guint64 index, guint16 at, guint16 seq, guint64 * out)
{
  gint64 i = (gint64) index + (gint16) (guint16) (seq - at);

  if (i < 0)
    return FALSE;
  *out = (guint64) i;
  return TRUE;
}

/* A media packet as the payloader made it: @hdr, then zeros to @size. */
static const guint8 *
materialise (SimFec * fec, const guint8 * hdr, gsize hdr_len, gsize size)
{
  if (size > fec->bytes_size) {
    fec->bytes = g_realloc (fec->bytes, size);
    fec->bytes_size = size;
  }
  memcpy (fec->bytes, hdr, hdr_len);
  memset (fec->bytes + hdr_len, 0, size - hdr_len);
  return fec->bytes;
}

static void
emit_parity (SimFec * fec, SimFecEmit emit, gpointer user_data)
{
  GBytes *b;

  while ((b = rtpcc_fec_encoder_pop (fec->enc)) != NULL) {
    gsize len;
    const guint8 *d = g_bytes_get_data (b, &len);
    RtpccFecPacket fp;

    if (rtpcc_fec_packet_parse (d, len, &fp, NULL)) {
      guint16 seqs[RTPCC_FEC_MAX_SPAN];
      guint n = rtpcc_fec_mask_seqs (fp.mask, fp.base, seqs);
      for (guint i = 0; i < n; i++) {
        guint64 idx;
        if (place (fec->sent_index, fec->sent_seq, seqs[i], &idx)
            && idx < fec->ledger->len)
          entry (fec, idx)->flags |= PROTECTED;
      }
      rtpcc_fec_packet_clear (&fp);
    }
    emit (d, len, user_data);
    g_bytes_unref (b);
  }
}

void
sim_fec_media_sent (SimFec * fec, RtpccTime now, guint64 index,
    guint64 frame, const guint8 * hdr, gsize hdr_len, gsize size,
    guint64 media_bitrate, guint64 fec_bitrate, guint interval,
    SimFecEmit emit, gpointer user_data)
{
  RtpccFecEncoderConfig cfg = fec->cfg;
  gboolean on;
  Entry *e = entry (fec, index);
  RtpccRtpInfo info;

  e->frame = frame;
  e->flags |= SENT;
  if (!rtpcc_rtp_parse (hdr, hdr_len, size, 0, &info, NULL))
    return;
  fec->sent_index = index;
  fec->sent_seq = info.seq;

  /* as fecenc follow-target: FEC off discards the open block */
  rtpcc_fec_sizes_add (&fec->media_sizes, now, (guint) size);
  on = rtpcc_fec_config_follow (&cfg, media_bitrate, fec_bitrate, interval,
      fec->max_block_time, &fec->media_sizes);
  if (on != fec->enabled) {
    fec->enabled = on;
    rtpcc_fec_encoder_set_enabled (fec->enc, fec->enabled);
  }
  if (on && (cfg.n != fec->cfg.n
          || cfg.max_block_time != fec->cfg.max_block_time)
      && rtpcc_fec_encoder_set_config (fec->enc, &cfg, NULL))
    fec->cfg = cfg;
  rtpcc_fec_encoder_poll (fec->enc, now);
  emit_parity (fec, emit, user_data);
  if (!fec->enabled)
    return;
  rtpcc_fec_encoder_push (fec->enc, materialise (fec, hdr, hdr_len, size),
      size, now);
  rtpcc_fec_encoder_close_early (fec->enc, now);
  emit_parity (fec, emit, user_data);
}

/* What the decoder releases: the rebuilt packets are marked. */
static void
drain (SimFec * fec, RtpccTime now)
{
  GBytes *b;
  gboolean recovered;

  while ((b = rtpcc_fec_decoder_pop (fec->dec, now, &recovered)) != NULL) {
    gsize len;
    const guint8 *d = g_bytes_get_data (b, &len);
    RtpccRtpInfo info;
    guint64 idx;

    if (recovered && fec->any_arrived
        && rtpcc_rtp_parse (d, len, len, 0, &info, NULL)
        && place (fec->arrived_index, fec->arrived_seq, info.seq, &idx))
      entry (fec, idx)->flags |= RECOVERED;
    g_bytes_unref (b);
  }
}

void
sim_fec_media_arrived (SimFec * fec, RtpccTime now, guint64 index,
    const RtpccRtpInfo * info, gsize header_len, gsize size)
{
  RtpccRtpInfo plain = *info;
  guint8 hdr[RTPCC_RTP_HEADER_MIN];
  gsize payload = size > header_len ? size - header_len : 0;

  entry (fec, index)->flags |= ARRIVED;
  if (!fec->any_arrived || index > fec->arrived_index) {
    fec->arrived_index = index;
    fec->arrived_seq = info->seq;
    fec->any_arrived = TRUE;
  }
  /* the payloader's packet again: what the sender added to the header
   * (extensions) is not what the parity covers */
  if (rtpcc_rtp_write_header (&plain, hdr, sizeof hdr) != sizeof hdr)
    return;
  rtpcc_fec_decoder_push_media (fec->dec, materialise (fec, hdr, sizeof hdr,
          sizeof hdr + payload), sizeof hdr + payload, now);
  drain (fec, now);
}

void
sim_fec_parity_arrived (SimFec * fec, RtpccTime now, const guint8 * data,
    gsize len)
{
  rtpcc_fec_decoder_push_fec (fec->dec, data, len, now);
  drain (fec, now);
}

static gdouble
ratio (guint64 a, guint64 b)
{
  return a + b > 0 ? (gdouble) a / (gdouble) (a + b) : NAN;
}

void
sim_fec_get_result (SimFec * fec, SimFecResult * r)
{
  RtpccFecEncoderStats es;
  guint64 frame = G_MAXUINT64;
  gboolean f_lost = FALSE, f_lost_protected = FALSE, f_recovered = FALSE;

  drain (fec, RTPCC_TIME_INFINITE);
  memset (r, 0, sizeof (*r));
  rtpcc_fec_encoder_get_stats (fec->enc, &es);
  r->fec_packets = es.fec_packets;
  r->fec_bytes = es.fec_bytes;
  /* frames are consecutive runs of packets in send order; a packet not
   * yet due to arrive at the end (the newest) still counts as lost */
  for (guint i = 0; i <= fec->ledger->len; i++) {
    const Entry *e = i < fec->ledger->len ?
        &g_array_index (fec->ledger, Entry, i) : NULL;

    if (!e || e->frame != frame) {
      if (f_lost && f_lost_protected)
        r->frames_lost_protected++;
      else if (!f_lost && f_recovered)
        r->frames_recovered++;
      if (!e)
        break;
      frame = e->frame;
      f_lost = f_lost_protected = f_recovered = FALSE;
    }
    if (!(e->flags & SENT))
      continue;
    r->media_packets++;
    if (e->flags & PROTECTED)
      r->protected_packets++;
    if (e->flags & ARRIVED)
      continue;
    if (e->flags & RECOVERED) {
      r->recovered++;
      f_recovered = TRUE;
      continue;
    }
    r->lost++;
    f_lost = TRUE;
    if (e->flags & PROTECTED) {
      r->lost_protected++;
      f_lost_protected = TRUE;
    }
  }
  r->ffre_packets = ratio (r->recovered, r->lost_protected);
  r->ffre_frames = ratio (r->frames_recovered, r->frames_lost_protected);
}

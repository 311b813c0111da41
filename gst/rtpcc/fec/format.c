/* FEC packet format, RFC 5109 bit strings, and the XOR codec (RS: rs.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fec.h"

#include <string.h>

const gchar *
rtpcc_fec_scheme_name (RtpccFecScheme scheme)
{
  switch (scheme) {
    case RTPCC_FEC_SCHEME_XOR:
      return "xor";
    case RTPCC_FEC_SCHEME_RS:
      return "rs";
    case RTPCC_FEC_SCHEME_XOR_2D:
      return "xor-2d";
  }
  return "unknown";
}

static inline guint16
rd16 (const guint8 * p)
{
  return (guint16) ((p[0] << 8) | p[1]);
}

static inline guint32
rd32 (const guint8 * p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) |
      ((guint32) p[2] << 8) | p[3];
}

/* Header length (fixed + CSRC + extension) and payload end (before the
 * padding) of a valid RTP packet; FALSE if it is not one. */
static gboolean
rtp_layout (const guint8 * d, gsize len, gsize * hdr_len, gsize * payload_end)
{
  gsize h, end = len;

  if (d == NULL || len < 12 || (d[0] >> 6) != 2)
    return FALSE;
  h = 12 + 4 * (gsize) (d[0] & 0x0f);
  if (h > len)
    return FALSE;
  if (d[0] & 0x10) {
    if (h + 4 > len)
      return FALSE;
    h += 4 + 4 * (gsize) rd16 (d + h + 2);
    if (h > len)
      return FALSE;
  }
  if (d[0] & 0x20) {
    guint8 pad = d[len - 1];

    if (pad == 0 || h + pad > len)
      return FALSE;
    end = len - pad;
  }
  *hdr_len = h;
  *payload_end = end;
  return TRUE;
}

gboolean
rtpcc_fec_rtp_valid (const guint8 * data, gsize len)
{
  gsize h, e;

  return rtp_layout (data, len, &h, &e);
}

gsize
rtpcc_fec_bitstring (const guint8 * rtp, gsize len, guint8 * out)
{
  gsize l = len - 12;

  g_return_val_if_fail (len >= 12 && len - 12 <= G_MAXUINT16, 0);
  out[0] = rtp[0];
  out[1] = rtp[1];
  out[2] = (guint8) (l >> 8);
  out[3] = (guint8) l;
  memcpy (out + 4, rtp + 4, 4);
  memcpy (out + 8, rtp + 12, l);
  return l + 8;
}

GBytes *
rtpcc_fec_rebuild (const guint8 * bs, gsize bs_len, guint16 seq, guint32 ssrc)
{
  gsize l;
  guint8 *p;

  if (bs_len < 8)
    return NULL;
  l = rd16 (bs + 2);
  if (8 + l > bs_len || 12 + l > RTPCC_FEC_MAX_RTP)
    return NULL;
  p = g_malloc (12 + l);
  /* the version is set, not recovered: RFC 5109 reuses its bits (E, L) */
  p[0] = (guint8) ((bs[0] & 0x3f) | 0x80);
  p[1] = bs[1];
  p[2] = (guint8) (seq >> 8);
  p[3] = (guint8) seq;
  memcpy (p + 4, bs + 4, 4);
  p[8] = (guint8) (ssrc >> 24);
  p[9] = (guint8) (ssrc >> 16);
  p[10] = (guint8) (ssrc >> 8);
  p[11] = (guint8) ssrc;
  memcpy (p + 12, bs + 8, l);
  if (!rtpcc_fec_rtp_valid (p, 12 + l)) {
    g_free (p);
    return NULL;
  }
  return g_bytes_new_take (p, 12 + l);
}

guint
rtpcc_fec_mask_seqs (guint64 mask, guint16 base, guint16 * seqs)
{
  guint n = 0;

  for (guint i = 0; i < RTPCC_FEC_MAX_SPAN; i++)
    if (mask & (G_GUINT64_CONSTANT (1) << (RTPCC_FEC_MAX_SPAN - 1 - i)))
      seqs[n++] = (guint16) (base + i);
  return n;
}

void
rtpcc_fec_header_set_protected (guint8 * f, guint16 base, guint64 mask)
{
  f[8] = (guint8) (base >> 8);
  f[9] = (guint8) base;
  for (guint i = 0; i < 6; i++)
    f[10 + i] = (guint8) (mask >> (40 - 8 * i));
}

static guint
popcount48 (guint64 mask)
{
  guint n = 0;

  for (; mask; mask &= mask - 1)
    n++;
  return n;
}

gboolean
rtpcc_fec_payload_protected_ssrc (const guint8 * payload, gsize len,
    guint32 * ssrc)
{
  if (!payload || len < RTPCC_FEC_HEADER_LEN || (payload[0] >> 6) != 1)
    return FALSE;
  *ssrc = rd32 (payload + 4);
  return TRUE;
}

gboolean
rtpcc_fec_packet_parse (const guint8 * data, gsize len, RtpccFecPacket * out,
    GError ** error)
{
  gsize h, end, plen;
  const guint8 *f;
  guint scheme, k;
  guint64 mask;

  if (!rtp_layout (data, len, &h, &end)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "not an RTP packet");
    return FALSE;
  }
  plen = end - h;
  if (plen < RTPCC_FEC_HEADER_LEN + 8) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "FEC payload too short (%" G_GSIZE_FORMAT " bytes)", plen);
    return FALSE;
  }
  if (plen - RTPCC_FEC_HEADER_LEN > RTPCC_FEC_MAX_RTP - 4) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "FEC payload too long");
    return FALSE;
  }
  f = data + h;
  if ((f[0] >> 6) != 1 || (f[0] & 0x0f) != 0 || f[3] != 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "bad FEC header version or reserved bits");
    return FALSE;
  }
  scheme = (f[0] >> 4) & 3;
  mask = ((guint64) rd16 (f + 10) << 32) | rd32 (f + 12);
  k = popcount48 (mask);
  if (k == 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "empty FEC mask");
    return FALSE;
  }
  if (scheme == RTPCC_FEC_SCHEME_XOR) {
    if (f[1] != 0 || f[2] != 1) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "XOR FEC with index %u of %u", f[1], f[2]);
      return FALSE;
    }
  } else if (scheme == RTPCC_FEC_SCHEME_RS) {
    if (f[2] < 1 || f[2] > RTPCC_FEC_MAX_PARITY || f[1] >= f[2]) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "RS FEC with index %u of %u", f[1], f[2]);
      return FALSE;
    }
  } else {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "unknown FEC scheme %u", scheme);
    return FALSE;
  }
  out->scheme = (RtpccFecScheme) scheme;
  out->index = f[1];
  out->m = f[2];
  out->k = (guint8) k;
  out->ssrc = rd32 (f + 4);
  out->base = rd16 (f + 8);
  out->mask = mask;
  out->fec_seq = rd16 (data + 2);
  out->fec_ssrc = rd32 (data + 8);
  out->parity_len = plen - RTPCC_FEC_HEADER_LEN;
  out->parity = g_memdup2 (f + RTPCC_FEC_HEADER_LEN, out->parity_len);
  return TRUE;
}

gboolean
rtpcc_fec_packet_parse_ulpfec (const guint8 * data, gsize len,
    RtpccFecPacket * out, GError ** error)
{
  gsize h, end, plen, hl, prot;
  const guint8 *f;
  guint64 mask;
  guint k;

  if (!rtp_layout (data, len, &h, &end)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "not an RTP packet");
    return FALSE;
  }
  plen = end - h;
  f = data + h;
  if (plen < 10 + 4) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "ULPFEC too short");
    return FALSE;
  }
  if (f[0] & 0x80) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "ULPFEC extension flag (E) set");
    return FALSE;
  }
  hl = (f[0] & 0x40) ? 10 + 8 : 10 + 4;
  if (plen < hl) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "ULPFEC too short");
    return FALSE;
  }
  prot = rd16 (f + 10);
  if (f[0] & 0x40)
    mask = ((guint64) rd16 (f + 12) << 32) | rd32 (f + 14);
  else
    mask = (guint64) rd16 (f + 12) << 32;
  k = popcount48 (mask);
  /* only level 0 is read; further levels (if any) follow the payload */
  if (k == 0 || prot > plen - hl || prot + 12 > RTPCC_FEC_MAX_RTP) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "bad ULPFEC mask or protection length");
    return FALSE;
  }
  out->scheme = RTPCC_FEC_SCHEME_XOR;
  out->index = 0;
  out->m = 1;
  out->k = (guint8) k;
  out->ssrc = rd32 (data + 8);
  out->fec_ssrc = out->ssrc;
  out->fec_seq = rd16 (data + 2);
  out->base = rd16 (f + 2);
  out->mask = mask;
  out->parity_len = 8 + prot;
  out->parity = g_malloc (out->parity_len);
  out->parity[0] = f[0] & 0x3f;
  out->parity[1] = f[1];
  out->parity[2] = f[8];
  out->parity[3] = f[9];
  memcpy (out->parity + 4, f + 4, 4);
  memcpy (out->parity + 8, f + hl, prot);
  return TRUE;
}

void
rtpcc_fec_packet_clear (RtpccFecPacket * pkt)
{
  g_clear_pointer (&pkt->parity, g_free);
  pkt->parity_len = 0;
}

/* ---- codecs ------------------------------------------------------------ */

/* 16 bytes as one value: ^ on it is one SSE2 instruction on any x86-64
 * (a plain pair of words elsewhere). A few of them stay in registers; a
 * wider vector type goes through the stack where AVX is not assumed. */
typedef guint64 RtpccXorBlock __attribute__ ((vector_size (16)));

void
rtpcc_fec_xor_into (guint8 * acc, const guint8 * src, gsize len)
{
  gsize i = 0;

  /* 16 bytes at a time (RtpccXorBlock), then words; memcpy keeps it
   * strict-aliasing safe */
  for (; i + 16 <= len; i += 16) {
    RtpccXorBlock a, b;

    memcpy (&a, acc + i, sizeof a);
    memcpy (&b, src + i, sizeof b);
    a ^= b;
    memcpy (acc + i, &a, sizeof a);
  }
  for (; i + 8 <= len; i += 8) {
    guint64 a, b;

    memcpy (&a, acc + i, 8);
    memcpy (&b, src + i, 8);
    a ^= b;
    memcpy (acc + i, &a, 8);
  }
  for (; i < len; i++)
    acc[i] ^= src[i];
}

/* One pass over the parity, 64 bytes of every row at a time, rather than
 * n read-modify-write passes: this runs for every FEC packet sent. */
void
rtpcc_fec_xor (guint8 * parity, guint8 * const *data, guint n, gsize len)
{
  gsize i = 0;

  if (n == 0) {
    memset (parity, 0, len);
    return;
  }
  for (; i + 64 <= len; i += 64) {
    RtpccXorBlock a[4], b[4];

    memcpy (a, data[0] + i, sizeof a);
    for (guint j = 1; j < n; j++) {
      memcpy (b, data[j] + i, sizeof b);
      a[0] ^= b[0];
      a[1] ^= b[1];
      a[2] ^= b[2];
      a[3] ^= b[3];
    }
    memcpy (parity + i, a, sizeof a);
  }
  for (; i + 16 <= len; i += 16) {
    RtpccXorBlock a, b;

    memcpy (&a, data[0] + i, sizeof a);
    for (guint j = 1; j < n; j++) {
      memcpy (&b, data[j] + i, sizeof b);
      a ^= b;
    }
    memcpy (parity + i, &a, sizeof a);
  }
  for (; i < len; i++) {
    guint8 x = 0;

    for (guint j = 0; j < n; j++)
      x ^= data[j][i];
    parity[i] = x;
  }
}

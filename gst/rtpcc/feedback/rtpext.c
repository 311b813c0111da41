/* RTP header layout and RFC 8285 header extensions on raw bytes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "rtpext.h"
#include "bytes.h"

#include <string.h>

#define ONE_BYTE_ID_RESERVED 15
#define ONE_BYTE_MAX_DATA 16
#define TWO_BYTE_MAX_DATA 255

/* The fixed header, CSRCs and extension block at the start of @pkt (@len
 * bytes at hand, at least the header): FALSE unless version 2 and all of
 * them fit. Padding and payload are left to the caller. */
static gboolean
parse_header (const guint8 * pkt, gsize len, RtpccRtpLayout * layout)
{
  RtpccRtpLayout l = { 0 };
  gsize hdr;

  if (pkt == NULL || len < RTPCC_RTP_HEADER_MIN || (pkt[0] >> 6) != 2)
    return FALSE;
  l.csrc_count = pkt[0] & 0x0f;
  l.marker = (pkt[1] & 0x80) != 0;
  l.pt = pkt[1] & 0x7f;
  l.seq = rtpcc_rd16 (pkt + 2);
  l.timestamp = rtpcc_rd32 (pkt + 4);
  l.ssrc = rtpcc_rd32 (pkt + 8);
  hdr = RTPCC_RTP_HEADER_MIN + 4 * (gsize) l.csrc_count;
  if (hdr > len)
    return FALSE;
  if (pkt[0] & 0x10) {
    if (len - hdr < 4)
      return FALSE;
    l.has_extension = TRUE;
    l.ext_profile = rtpcc_rd16 (pkt + hdr);
    l.ext_len = (gsize) rtpcc_rd16 (pkt + hdr + 2) * 4;
    if (l.ext_len > len - hdr - 4)
      return FALSE;
    l.ext_offset = hdr + 4;
    hdr += 4 + l.ext_len;
  }
  l.header_len = hdr;
  *layout = l;
  return TRUE;
}

gboolean
rtpcc_rtp_parse_layout (const guint8 * pkt, gsize len, RtpccRtpLayout * layout)
{
  RtpccRtpLayout l;
  gsize hdr;

  if (!parse_header (pkt, len, &l))
    return FALSE;
  hdr = l.header_len;
  if (pkt[0] & 0x20) {
    /* RFC 3550 §5.1: the last octet counts the padding, itself included */
    if (len == hdr || pkt[len - 1] == 0 || pkt[len - 1] > len - hdr)
      return FALSE;
    l.padding_len = pkt[len - 1];
  }
  l.payload_len = len - hdr - l.padding_len;
  if (layout)
    *layout = l;
  return TRUE;
}

gboolean
rtpcc_rtp_parse (const guint8 * pkt, gsize len, gsize size,
    guint8 twcc_ext_id, RtpccRtpInfo * info, gsize * header_len)
{
  RtpccRtpLayout l;
  const guint8 *d;
  gsize n;

  if (len > size || size > G_MAXUINT)
    return FALSE;
  if (len == size ? !rtpcc_rtp_parse_layout (pkt, len, &l) :
      !parse_header (pkt, len, &l))
    return FALSE;
  memset (info, 0, sizeof (*info));
  info->ssrc = l.ssrc;
  info->seq = l.seq;
  info->rtp_ts = l.timestamp;
  info->pt = l.pt;
  info->marker = l.marker;
  info->size = (guint) size;
  /* the rest not at hand: its padding cannot be checked, so it counts as
   * payload */
  info->padding_only = len == size && l.payload_len == 0;
  if (twcc_ext_id && l.has_extension
      && rtpcc_rtp_ext_block_find (l.ext_profile, pkt + l.ext_offset,
          l.ext_len, twcc_ext_id, &d, &n) && n == 2) {
    info->has_twcc = TRUE;
    info->twcc_seq = rtpcc_rd16 (d);
  }
  if (header_len)
    *header_len = l.header_len;
  return TRUE;
}

gboolean
rtpcc_rtp_set_seq (guint8 * pkt, gsize len, guint16 seq)
{
  RtpccRtpLayout l;

  if (!pkt || !rtpcc_rtp_parse_layout (pkt, len, &l))
    return FALSE;
  rtpcc_wr16 (pkt + 2, seq);
  return TRUE;
}

gsize
rtpcc_rtp_write_header (const RtpccRtpInfo * info, guint8 * out, gsize max)
{
  if (out == NULL || max < RTPCC_RTP_HEADER_MIN)
    return 0;
  out[0] = 0x80;
  out[1] = (guint8) ((info->marker ? 0x80 : 0) | (info->pt & 0x7f));
  rtpcc_wr16 (out + 2, info->seq);
  rtpcc_wr32 (out + 4, info->rtp_ts);
  rtpcc_wr32 (out + 8, info->ssrc);
  return RTPCC_RTP_HEADER_MIN;
}

gboolean
rtpcc_rtp_header_size (const guint8 * pkt, gsize len, gsize * hdr_len)
{
  RtpccRtpLayout l;

  if (!rtpcc_rtp_parse_layout (pkt, len, &l))
    return FALSE;
  if (hdr_len)
    *hdr_len = l.header_len;
  return TRUE;
}

/* Walks an RFC 8285 block. Looks for @id (0: none) and finds where the
 * last element ends. Returns FALSE if parsing stopped early (a truncated
 * element, or ID 15 in one-byte form); *@end is then where it stopped. */
static gboolean
walk_block (gboolean one_byte, const guint8 * block, gsize block_len,
    guint8 id, gsize * found_at, gsize * found_len, gsize * end)
{
  gsize off = 0, last_end = 0;
  gboolean complete = TRUE;

  *found_at = G_MAXSIZE;
  *found_len = 0;
  while (off < block_len) {
    guint eid = block[off];
    gsize hlen, dlen;

    if (one_byte)
      eid >>= 4;
    if (eid == 0) {
      off++;                    /* padding */
      continue;
    }
    if (one_byte) {
      if (eid == ONE_BYTE_ID_RESERVED) {
        complete = FALSE;
        break;
      }
      hlen = 1;
      dlen = (block[off] & 0x0f) + 1;
    } else {
      if (block_len - off < 2) {
        complete = FALSE;
        break;
      }
      hlen = 2;
      dlen = block[off + 1];
    }
    if (dlen > block_len - off - hlen) {
      complete = FALSE;
      break;
    }
    if (eid == id && *found_at == G_MAXSIZE) {
      *found_at = off + hlen;
      *found_len = dlen;
    }
    off += hlen + dlen;
    last_end = off;
  }
  *end = last_end;
  return complete;
}

static gboolean
profile_form (guint16 profile, gboolean * one_byte)
{
  if (profile == RTPCC_RTP_EXT_ONE_BYTE) {
    *one_byte = TRUE;
    return TRUE;
  }
  if ((profile & RTPCC_RTP_EXT_TWO_BYTE_MASK) == RTPCC_RTP_EXT_TWO_BYTE) {
    *one_byte = FALSE;
    return TRUE;
  }
  return FALSE;
}

gboolean
rtpcc_rtp_ext_block_find (guint16 profile, const guint8 * block,
    gsize block_len, guint8 id, const guint8 ** data, gsize * data_len)
{
  gboolean one_byte;
  gsize at, dlen, end;

  if (!profile_form (profile, &one_byte) || id == 0
      || (one_byte && id >= ONE_BYTE_ID_RESERVED))
    return FALSE;
  if (block == NULL)
    block_len = 0;
  /* elements before a truncated one or an ID 15 still count */
  (void) walk_block (one_byte, block, block_len, id, &at, &dlen, &end);
  if (at == G_MAXSIZE)
    return FALSE;
  if (data)
    *data = block + at;
  if (data_len)
    *data_len = dlen;
  return TRUE;
}

gboolean
rtpcc_rtp_find_extension (const guint8 * pkt, gsize len, guint8 id,
    const guint8 ** data, gsize * data_len)
{
  RtpccRtpLayout l;

  if (!rtpcc_rtp_parse_layout (pkt, len, &l) || !l.has_extension)
    return FALSE;
  return rtpcc_rtp_ext_block_find (l.ext_profile, pkt + l.ext_offset,
      l.ext_len, id, data, data_len);
}

gsize
rtpcc_rtp_header_add_extension (const guint8 * pkt, gsize len, guint8 id,
    const guint8 * data, gsize data_len, guint8 * out, gsize max)
{
  RtpccRtpLayout l;
  gboolean one_byte = TRUE;
  gsize keep = 0, elem_len, block_len, fixed, total, at, dlen;
  guint16 profile = RTPCC_RTP_EXT_ONE_BYTE;

  if (out == NULL || (data == NULL && data_len > 0)
      || !parse_header (pkt, len, &l) || l.header_len != len || id == 0)
    return 0;

  if (l.has_extension) {
    if (!profile_form (l.ext_profile, &one_byte))
      return 0;                 /* RTP has room for one extension only */
    if (!walk_block (one_byte, pkt + l.ext_offset, l.ext_len, id, &at, &dlen,
            &keep))
      return 0;                 /* appending after garbage or ID 15 is lost */
    if (at != G_MAXSIZE)
      return 0;
    /* Only zero bytes after the last element are free: a byte with ID 0
     * but other bits set reads as padding, yet dropping it would change
     * the packet. What the block held is kept, and it never shrinks. */
    for (gsize i = keep; i < l.ext_len; i++)
      if (pkt[l.ext_offset + i] != 0)
        keep = i + 1;
    profile = l.ext_profile;
  }
  if (one_byte) {
    if (id >= ONE_BYTE_ID_RESERVED || data_len < 1
        || data_len > ONE_BYTE_MAX_DATA)
      return 0;
    elem_len = 1 + data_len;
  } else {
    if (data_len > TWO_BYTE_MAX_DATA)
      return 0;
    elem_len = 2 + data_len;
  }

  block_len = MAX ((keep + elem_len + 3) & ~(gsize) 3, l.ext_len);
  if (block_len / 4 > G_MAXUINT16)
    return 0;
  fixed = RTPCC_RTP_HEADER_MIN + 4 * (gsize) l.csrc_count;
  total = fixed + 4 + block_len;
  if (total > max)
    return 0;

  memcpy (out, pkt, fixed);
  out[0] |= 0x10;
  rtpcc_wr16 (out + fixed, profile);
  rtpcc_wr16 (out + fixed + 2, (guint16) (block_len / 4));
  if (keep)
    memcpy (out + fixed + 4, pkt + l.ext_offset, keep);
  at = fixed + 4 + keep;
  if (one_byte) {
    out[at] = (guint8) ((id << 4) | (data_len - 1));
    at++;
  } else {
    out[at] = id;
    out[at + 1] = (guint8) data_len;
    at += 2;
  }
  if (data_len)
    memcpy (out + at, data, data_len);
  at += data_len;
  memset (out + at, 0, fixed + 4 + block_len - at);
  return total;
}

gsize
rtpcc_rtp_add_extension (const guint8 * pkt, gsize len, guint8 id,
    const guint8 * data, gsize data_len, guint8 * out, gsize max)
{
  RtpccRtpLayout l;
  gsize n, tail;

  if (out == NULL || !rtpcc_rtp_parse_layout (pkt, len, &l))
    return 0;
  n = rtpcc_rtp_header_add_extension (pkt, l.header_len, id, data, data_len,
      out, max);
  tail = len - l.header_len;    /* payload and padding, as they are */
  if (n == 0 || tail > max - n)
    return 0;
  if (tail)
    memcpy (out + n, pkt + l.header_len, tail);
  return n + tail;
}

gboolean
rtpcc_rtp_read_twcc_seq (const guint8 * pkt, gsize len, guint8 id,
    guint16 * seq)
{
  const guint8 *d;
  gsize n;

  if (!rtpcc_rtp_find_extension (pkt, len, id, &d, &n) || n != 2)
    return FALSE;
  if (seq)
    *seq = rtpcc_rd16 (d);
  return TRUE;
}

gboolean
rtpcc_rtp_write_twcc_seq (guint8 * pkt, gsize len, guint8 id, guint16 seq)
{
  const guint8 *d;
  gsize n;

  if (!rtpcc_rtp_find_extension (pkt, len, id, &d, &n) || n != 2)
    return FALSE;
  rtpcc_wr16 (pkt + (d - pkt), seq);
  return TRUE;
}

gboolean
rtpcc_rtp_header_write_twcc_seq (guint8 * hdr, gsize len, guint8 id,
    guint16 seq)
{
  RtpccRtpLayout l;
  const guint8 *d;
  gsize n;

  if (!parse_header (hdr, len, &l) || !l.has_extension
      || !rtpcc_rtp_ext_block_find (l.ext_profile, hdr + l.ext_offset,
          l.ext_len, id, &d, &n) || n != 2)
    return FALSE;
  rtpcc_wr16 (hdr + (d - hdr), seq);
  return TRUE;
}

gsize
rtpcc_rtp_add_twcc_seq (const guint8 * pkt, gsize len, guint8 id,
    guint16 seq, guint8 * out, gsize max)
{
  guint8 d[2];

  rtpcc_wr16 (d, seq);
  return rtpcc_rtp_add_extension (pkt, len, id, d, 2, out, max);
}

gsize
rtpcc_rtp_strip_extension (const guint8 * pkt, gsize len, guint8 id,
    guint8 * out, gsize max)
{
  gsize off, end, i;

  if (len < 12 || !(pkt[0] & 0x10))
    return 0;
  off = 12 + 4 * (gsize) (pkt[0] & 0x0f);
  if (off + 4 > len || pkt[off] != 0xBE || pkt[off + 1] != 0xDE)
    return 0;
  end = off + 4 + 4 * (gsize) ((pkt[off + 2] << 8) | pkt[off + 3]);
  if (end > len)
    return 0;
  for (i = off + 4; i < end;) {
    if (pkt[i] == 0) {          /* padding */
      i++;
      continue;
    }
    if ((pkt[i] >> 4) != id)    /* another element, or ID 15: keep all */
      return 0;
    i += 1 + (gsize) (pkt[i] & 0x0f) + 1;
  }
  if (i > end || len - (end - off) > max)
    return 0;
  memcpy (out, pkt, off);
  out[0] &= ~0x10;
  memcpy (out + off, pkt + end, len - end);
  return len - (end - off);
}

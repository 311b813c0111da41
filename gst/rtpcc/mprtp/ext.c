/* Multipath RTP wire formats: subflow header extension and MPRTCP subflow
 * reports (draft-ietf-avtcore-mprtp-00 §9).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "ext.h"
#include "../feedback/bytes.h"
#include "../feedback/rtpext.h"

#include <string.h>

#define RR_LEN 32               /* RR header + SSRC + one report block */
#define XR_DISCARD_LEN 20       /* XR header + SSRC + BT 24 block */
#define MPRTCP_HEADER 12
#define BLOCK_HEADER 4

gsize
rtpcc_mprtp_subflow_write (guint8 * data, gsize max,
    const RtpccMprtpSubflow * sf)
{
  if (data == NULL || sf == NULL || max < RTPCC_MPRTP_SUBFLOW_DATA_LEN)
    return 0;
  data[0] = (RTPCC_MPRTP_MPID_SUBFLOW << 4) | 4;
  rtpcc_wr16 (data + 1, sf->subflow_id);
  rtpcc_wr16 (data + 3, sf->fssn);
  return RTPCC_MPRTP_SUBFLOW_DATA_LEN;
}

gboolean
rtpcc_mprtp_subflow_parse (const guint8 * data, gsize len,
    RtpccMprtpSubflow * sf)
{
  if (data == NULL || len != RTPCC_MPRTP_SUBFLOW_DATA_LEN
      || (data[0] >> 4) != RTPCC_MPRTP_MPID_SUBFLOW || (data[0] & 0x0f) != 4)
    return FALSE;
  if (sf) {
    sf->subflow_id = rtpcc_rd16 (data + 1);
    sf->fssn = rtpcc_rd16 (data + 3);
  }
  return TRUE;
}

gsize
rtpcc_mprtp_add_subflow (const guint8 * pkt, gsize len, guint8 id,
    const RtpccMprtpSubflow * sf, guint8 * out, gsize max)
{
  guint8 d[RTPCC_MPRTP_SUBFLOW_DATA_LEN];

  if (rtpcc_mprtp_subflow_write (d, sizeof d, sf) == 0)
    return 0;
  return rtpcc_rtp_add_extension (pkt, len, id, d, sizeof d, out, max);
}

gboolean
rtpcc_mprtp_read_subflow (const guint8 * pkt, gsize len, guint8 id,
    RtpccMprtpSubflow * sf)
{
  const guint8 *d;
  gsize n;

  if (!rtpcc_rtp_find_extension (pkt, len, id, &d, &n))
    return FALSE;
  return rtpcc_mprtp_subflow_parse (d, n, sf);
}

gsize
rtpcc_mprtp_subflow_header (const guint8 * pkt, gsize len, guint8 id,
    guint8 * out, gsize max)
{
  RtpccMprtpSubflow sf;
  gsize hdr_len;

  if (!rtpcc_mprtp_read_subflow (pkt, len, id, &sf)
      || !rtpcc_rtp_header_size (pkt, len, &hdr_len) || hdr_len > max)
    return 0;
  memcpy (out, pkt, hdr_len);
  rtpcc_wr16 (out + 2, sf.fssn);
  return hdr_len;
}

gsize
rtpcc_mprtp_wire_header (const guint8 * head, gsize head_len,
    const guint8 * pkt, gsize len, guint8 * out, gsize max)
{
  if (head_len < RTPCC_RTP_HEADER_MIN || head_len > max
      || len < RTPCC_RTP_HEADER_MIN)
    return 0;
  memcpy (out, head, head_len);
  out[2] = pkt[2];
  out[3] = pkt[3];
  return head_len;
}

/* ---- MPRTCP ------------------------------------------------------------ */

gsize
rtpcc_mprtcp_block_size (const RtpccMprtpSubflowReport * report)
{
  return BLOCK_HEADER + RR_LEN + (report->has_discards ? XR_DISCARD_LEN : 0);
}

static gsize
write_xr_discard (guint8 * p, guint32 sender_ssrc, guint32 media_ssrc,
    guint32 discards)
{
  p[0] = 0x80;
  p[1] = 207;
  rtpcc_wr16 (p + 2, XR_DISCARD_LEN / 4 - 1);
  rtpcc_wr32 (p + 4, sender_ssrc);
  p[8] = RTPCC_XR_BT_DISCARD_COUNT;
  /* I = 11 (cumulative since the start), DT = 00 (early or late) */
  p[9] = 0xC0;
  rtpcc_wr16 (p + 10, 2);
  rtpcc_wr32 (p + 12, media_ssrc);
  rtpcc_wr32 (p + 16, discards);
  return XR_DISCARD_LEN;
}

gsize
rtpcc_mprtcp_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc, const RtpccMprtpSubflowReport * reports, guint n)
{
  gsize total = MPRTCP_HEADER, at;

  if (buf == NULL || reports == NULL || n == 0
      || n > RTPCC_MPRTCP_MAX_REPORTS)
    return 0;
  for (guint i = 0; i < n; i++)
    total += rtpcc_mprtcp_block_size (&reports[i]);
  if (total > max || total / 4 - 1 > G_MAXUINT16)
    return 0;

  buf[0] = 0x80;
  buf[1] = RTPCC_MPRTCP_PT;
  rtpcc_wr16 (buf + 2, (guint16) (total / 4 - 1));
  rtpcc_wr32 (buf + 4, sender_ssrc);
  rtpcc_wr32 (buf + 8, media_ssrc);
  at = MPRTCP_HEADER;
  for (guint i = 0; i < n; i++) {
    const RtpccMprtpSubflowReport *r = &reports[i];
    gsize len = rtpcc_mprtcp_block_size (r);
    RtpccRtcpRR rr = { 0 };

    buf[at] = RTPCC_MPRTCP_TYPE_SUBFLOW;
    buf[at + 1] = (guint8) ((len - BLOCK_HEADER) / 4);
    rtpcc_wr16 (buf + at + 2, r->subflow_id);
    rr.ssrc = sender_ssrc;
    rr.n_blocks = 1;
    rr.blocks[0] = r->rr;
    rr.blocks[0].ssrc = media_ssrc;
    if (rtpcc_rtcp_write_rr (buf + at + BLOCK_HEADER, RR_LEN, &rr) != RR_LEN)
      return 0;
    if (r->has_discards)
      write_xr_discard (buf + at + BLOCK_HEADER + RR_LEN, sender_ssrc,
          media_ssrc, r->discards);
    at += len;
  }
  return total;
}

/* The inner RTCP of one subflow block: exactly one RR with one block about
 * @media_ssrc, then at most one XR whose only block is a Discard Count. */
static gboolean
parse_subflow_block (const guint8 * p, gsize len, guint32 media_ssrc,
    RtpccMprtpSubflowReport * r)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  RtpccRtcpRR rr;

  if (!rtpcc_rtcp_iter_init (&it, p, len) || !rtpcc_rtcp_iter_next (&it, &pkt)
      || !rtpcc_rtcp_parse_rr (&pkt, &rr) || rr.n_blocks != 1
      || rr.blocks[0].ssrc != media_ssrc)
    return FALSE;
  r->rr = rr.blocks[0];
  r->has_discards = FALSE;
  r->discards = 0;
  if (!rtpcc_rtcp_iter_next (&it, &pkt))
    return TRUE;
  if (pkt.pt != 207 || pkt.body_len != 16
      || pkt.body[4] != RTPCC_XR_BT_DISCARD_COUNT
      || rtpcc_rd16 (pkt.body + 6) != 2 || rtpcc_rd32 (pkt.body + 8) !=
      media_ssrc)
    return FALSE;
  r->has_discards = TRUE;
  r->discards = rtpcc_rd32 (pkt.body + 12);
  return !rtpcc_rtcp_iter_next (&it, &pkt);
}

gboolean
rtpcc_mprtcp_parse (const guint8 * data, gsize len, RtpccMprtcp * out)
{
  RtpccMprtcp m = { 0 };
  gsize at, end;

  if (data == NULL || len < MPRTCP_HEADER || (data[0] >> 6) != 2
      || data[1] != RTPCC_MPRTCP_PT)
    return FALSE;
  end = ((gsize) rtpcc_rd16 (data + 2) + 1) * 4;
  if (end > len)
    return FALSE;
  if (data[0] & 0x20) {
    /* padding: the last octet counts it (RFC 3550 §6.4.1) */
    if (data[end - 1] == 0 || data[end - 1] > end - MPRTCP_HEADER)
      return FALSE;
    end -= data[end - 1];
  }
  m.sender_ssrc = rtpcc_rd32 (data + 4);
  m.media_ssrc = rtpcc_rd32 (data + 8);
  for (at = MPRTCP_HEADER; at < end;) {
    gsize blen;

    if (end - at < BLOCK_HEADER)
      return FALSE;
    blen = BLOCK_HEADER + 4 * (gsize) data[at + 1];
    if (blen > end - at)
      return FALSE;
    if (data[at] != RTPCC_MPRTCP_TYPE_SUBFLOW
        || m.n_reports == RTPCC_MPRTCP_MAX_REPORTS) {
      m.n_skipped++;
    } else {
      RtpccMprtpSubflowReport *r = &m.reports[m.n_reports];

      r->subflow_id = rtpcc_rd16 (data + at + 2);
      if (!parse_subflow_block (data + at + BLOCK_HEADER, blen - BLOCK_HEADER,
              m.media_ssrc, r))
        return FALSE;
      m.n_reports++;
    }
    at += blen;
  }
  if (m.n_reports == 0)
    return FALSE;
  if (out)
    *out = m;
  return TRUE;
}

gboolean
rtpcc_mprtcp_find (const guint8 * data, gsize len, RtpccMprtcp * out)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;

  if (!rtpcc_rtcp_iter_init (&it, data, len))
    return FALSE;
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    if (pkt.pt == RTPCC_MPRTCP_PT)
      return rtpcc_mprtcp_parse (pkt.data, pkt.len, out);
  }
  return FALSE;
}

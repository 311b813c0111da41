/* NADU APP packet (3GPP TS 26.234, Release 6): build and parse. The field
 * meanings are in nadu.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "nadu.h"
#include "rtcp.h"
#include "fbheader.h"
#include "bytes.h"

#define BLOCK_SIZE 12
#define NUN_MAX 31

gsize
rtpcc_nadu_size (guint n)
{
  if (n == 0 || n > RTPCC_NADU_MAX_BLOCKS)
    return 0;
  return RTPCC_FB_HEADER_SIZE + (gsize) n * BLOCK_SIZE;
}

gsize
rtpcc_nadu_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccNaduBlock * blocks, guint n)
{
  gsize len = rtpcc_nadu_size (n);

  if (buf == NULL || blocks == NULL || len == 0 || len > max)
    return 0;
  for (guint i = 0; i < n; i++)
    if (blocks[i].nun > NUN_MAX)
      return 0;
  /* the APP header: subtype where FMT is, the name where the media source
   * SSRC is */
  rtpcc_fb_write_header (buf, len, RTPCC_RTCP_APP, RTPCC_NADU_SUBTYPE,
      sender_ssrc, RTPCC_NADU_NAME);
  for (guint i = 0; i < n; i++) {
    guint8 *b = buf + RTPCC_FB_HEADER_SIZE + BLOCK_SIZE * i;

    rtpcc_wr32 (b, blocks[i].ssrc);
    rtpcc_wr16 (b + 4, blocks[i].playout_delay);
    rtpcc_wr16 (b + 6, blocks[i].nsn);
    rtpcc_wr16 (b + 8, blocks[i].nun);
    rtpcc_wr16 (b + 10, blocks[i].fbs);
  }
  return len;
}

RtpccNadu *
rtpcc_nadu_parse (const guint8 * pkt, gsize len, GError ** error)
{
  RtpccNadu *nadu;
  gsize data_len;
  guint n;

  if (!rtpcc_fb_check_header (pkt, len, RTPCC_RTCP_APP, RTPCC_NADU_SUBTYPE,
          "NADU", &data_len, error))
    return NULL;
  if (rtpcc_rd32 (pkt + 8) != RTPCC_NADU_NAME) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "NADU: APP name is not \"PSS0\"");
    return NULL;
  }
  if (data_len == 0 || data_len % BLOCK_SIZE != 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "NADU: %" G_GSIZE_FORMAT " data bytes, need one or more 12-byte "
        "blocks", data_len);
    return NULL;
  }
  n = (guint) (data_len / BLOCK_SIZE);
  nadu = g_malloc (sizeof (RtpccNadu) + n * sizeof (RtpccNaduBlock));
  nadu->sender_ssrc = rtpcc_rd32 (pkt + 4);
  nadu->n_blocks = n;
  nadu->blocks = (RtpccNaduBlock *) (nadu + 1);
  for (guint i = 0; i < n; i++) {
    const guint8 *b = pkt + RTPCC_FB_HEADER_SIZE + BLOCK_SIZE * i;

    nadu->blocks[i].ssrc = rtpcc_rd32 (b);
    nadu->blocks[i].playout_delay = rtpcc_rd16 (b + 4);
    nadu->blocks[i].nsn = rtpcc_rd16 (b + 6);
    /* the 11 reserved bits are ignored */
    nadu->blocks[i].nun = b[9] & NUN_MAX;
    nadu->blocks[i].fbs = rtpcc_rd16 (b + 10);
  }
  return nadu;
}

void
rtpcc_nadu_free (RtpccNadu * nadu)
{
  g_free (nadu);
}

guint16
rtpcc_nadu_delay_from_time (RtpccTime d)
{
  if (d == RTPCC_TIME_NONE)
    return RTPCC_NADU_DELAY_UNSET;
  if (d <= 0)
    return 0;
  return (guint16) MIN (d / RTPCC_NSEC_PER_MSEC, RTPCC_NADU_DELAY_UNSET - 1);
}

RtpccTime
rtpcc_nadu_delay_to_time (guint16 v)
{
  return v == RTPCC_NADU_DELAY_UNSET ? RTPCC_TIME_NONE : RTPCC_MSEC (v);
}

guint16
rtpcc_nadu_fbs_from_bytes (guint64 free_bytes)
{
  return (guint16) MIN (free_bytes / 64, G_MAXUINT16);
}

gboolean
rtpcc_nadu_find (const guint8 * data, gsize len, guint32 media_ssrc,
    RtpccNaduBlock * block, guint64 * rejected)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  gboolean found = FALSE;

  if (!rtpcc_rtcp_iter_init (&it, data, len))
    return FALSE;
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    RtpccNadu *nadu;

    if (pkt.pt != RTPCC_RTCP_APP || pkt.count != RTPCC_NADU_SUBTYPE
        || pkt.len < 12 || rtpcc_rd32 (pkt.data + 8) != RTPCC_NADU_NAME)
      continue;
    nadu = rtpcc_nadu_parse (pkt.data, pkt.len, NULL);
    if (nadu == NULL) {
      if (rejected)
        (*rejected)++;
      continue;
    }
    for (guint i = 0; i < nadu->n_blocks; i++) {
      if (media_ssrc != 0 && nadu->blocks[i].ssrc == media_ssrc) {
        *block = nadu->blocks[i];
        found = TRUE;
      }
    }
    rtpcc_nadu_free (nadu);
  }
  return found;
}

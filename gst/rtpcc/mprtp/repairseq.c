/* Loss repair on one path of a multipath stream, in its subflow sequence
 * space (see repairseq.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "repairseq.h"
#include "ext.h"
#include "../feedback/bytes.h"
#include "../feedback/rtpext.h"

#include <string.h>

#define OSN_SIZE 2

void
rtpcc_mprtp_seqmap_init (RtpccMprtpSeqMap * map)
{
  memset (map, 0, sizeof *map);
}

void
rtpcc_mprtp_seqmap_put (RtpccMprtpSeqMap * map, guint16 fssn, guint16 seq)
{
  guint slot = fssn % RTPCC_MPRTP_SEQMAP_SIZE;

  map->fssn[slot] = fssn;
  map->seq[slot] = seq;
  map->valid[slot] = 1;
}

gboolean
rtpcc_mprtp_seqmap_lookup (const RtpccMprtpSeqMap * map, guint16 fssn,
    guint16 * seq)
{
  guint slot = fssn % RTPCC_MPRTP_SEQMAP_SIZE;

  if (!map->valid[slot] || map->fssn[slot] != fssn)
    return FALSE;
  *seq = map->seq[slot];
  return TRUE;
}

gboolean
rtpcc_mprtp_seqmap_gap (const RtpccMprtpSeqMap * map, guint16 fssn,
    guint16 * first, guint16 * last)
{
  guint16 below = 0, above = 0;
  gboolean have_below = FALSE, have_above = FALSE;
  guint16 n;

  for (guint d = 1; d <= RTPCC_MPRTP_GAP_SEARCH && !have_below; d++)
    have_below = rtpcc_mprtp_seqmap_lookup (map, (guint16) (fssn - d), &below);
  for (guint d = 1; d <= RTPCC_MPRTP_GAP_SEARCH && !have_above; d++)
    have_above = rtpcc_mprtp_seqmap_lookup (map, (guint16) (fssn + d), &above);
  if (!have_below || !have_above)
    return FALSE;
  /* media numbers strictly between the neighbours, in order */
  n = (guint16) (above - below);
  if (n < 2 || n > 0x8000)
    return FALSE;
  *first = (guint16) (below + 1);
  *last = (guint16) (above - 1);
  return TRUE;
}

gboolean
rtpcc_mprtp_rtx_osn_to_media (guint8 * rtx, gsize len, guint8 id,
    const RtpccMprtpSeqMap * map)
{
  RtpccMprtpSubflow sf;
  RtpccRtpLayout l;
  guint16 seq;

  if (rtx == NULL || map == NULL || !rtpcc_rtp_parse_layout (rtx, len, &l)
      || l.payload_len < OSN_SIZE
      || !rtpcc_mprtp_read_subflow (rtx, len, id, &sf)
      || rtpcc_rd16 (rtx + l.header_len) != sf.fssn
      || !rtpcc_mprtp_seqmap_lookup (map, sf.fssn, &seq))
    return FALSE;
  rtpcc_wr16 (rtx + l.header_len, seq);
  return TRUE;
}

gsize
rtpcc_mprtp_repair_view (const guint8 * pkt, gsize len, guint8 id,
    guint8 rtx_pt, guint8 * out, gsize max, guint16 * media_seq)
{
  RtpccMprtpSubflow sf;
  RtpccRtpLayout l;

  if (pkt == NULL || out == NULL || len > max
      || !rtpcc_rtp_parse_layout (pkt, len, &l)
      || !rtpcc_mprtp_read_subflow (pkt, len, id, &sf))
    return 0;
  if (rtx_pt != 0 && (pkt[1] & 0x7f) == rtx_pt) {
    if (l.payload_len < OSN_SIZE)
      return 0;
    memcpy (out, pkt, len);
    *media_seq = rtpcc_rd16 (pkt + l.header_len);
    rtpcc_wr16 (out + l.header_len, sf.fssn);
    return len;
  }
  memcpy (out, pkt, len);
  *media_seq = l.seq;
  rtpcc_wr16 (out + 2, sf.fssn);
  /* the marker ends a frame in the media; on one path a frame's last
   * packet may have gone another way, so the last one here is unmarked
   * and the planner's tail probe would NACK the next FSSN, the next
   * frame's first packet on this path, not lost. Marked, every packet
   * ends what this path carries of its frame. */
  out[1] |= 0x80;
  return len;
}

/* Loss repair on one path of a multipath stream, in that path's subflow
 * sequence space.
 *
 * Each path's receiver (rtpccsrc) sees only the media sequence numbers
 * that path carried, so a gap in them is no loss: the other paths carried
 * the rest. A gap in the subflow sequence number (FSSN, draft-ietf-avtcore-
 * mprtp §9.1.1) is. So a path's repair runs on the FSSN end to end:
 *
 *  - receiver: the repair planner and the RTX receiver are given a view
 *    of each packet numbered by its FSSN (rtpcc_mprtp_repair_view), so the
 *    Generic NACKs (RFC 4585 §6.2.1) it writes name FSSNs and go back on
 *    this path, to this path's sender;
 *  - sender: the path's RTX history is numbered by FSSN already (its
 *    RtpccSender is), so a NACK finds the packet; the RTX packet carries
 *    the original's subflow element, and before it leaves the OSN is
 *    turned from the FSSN into the media sequence number the sender
 *    remembered for it (RtpccMprtpSeqMap, rtpcc_mprtp_rtx_osn_to_media);
 *  - receiver again: the RTX view rewrites that OSN back into the FSSN of
 *    the element, the RTX receiver restores the original in FSSN space,
 *    and the media sequence number (kept from the real OSN) goes back
 *    into the restored header before it goes downstream to the merge.
 *
 * A receiver cannot name the media sequence number of a packet lost on its
 * path: it never saw it, and the media numbers between its neighbours are
 * shared with the other paths. Only the path's sender knows which media
 * packet an FSSN was.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_MPRTP_REPAIRSEQ_H__
#define __RTPCC_MPRTP_REPAIRSEQ_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* FSSNs a map remembers: over a second of packets at 4 Mbit/s of 1200-byte
 * packets, longer than the default RTX history (rtx-time 1 s). */
#define RTPCC_MPRTP_SEQMAP_SIZE 4096

/* The media sequence number each recent FSSN of a path was sent with. */
typedef struct
{
  guint16 fssn[RTPCC_MPRTP_SEQMAP_SIZE];
  guint16 seq[RTPCC_MPRTP_SEQMAP_SIZE];
  guint8 valid[RTPCC_MPRTP_SEQMAP_SIZE];
} RtpccMprtpSeqMap;

void rtpcc_mprtp_seqmap_init (RtpccMprtpSeqMap * map);
void rtpcc_mprtp_seqmap_put (RtpccMprtpSeqMap * map, guint16 fssn,
    guint16 seq);
/* FALSE if @fssn is unknown (never put, or overwritten since). */
gboolean rtpcc_mprtp_seqmap_lookup (const RtpccMprtpSeqMap * map,
    guint16 fssn, guint16 * seq);

/* Receiver, with a map of the packets that arrived on its path: the media
 * sequence numbers a lost @fssn must be among, those strictly between its
 * nearest arrived neighbours (each searched up to RTPCC_MPRTP_GAP_SEARCH
 * FSSNs away). If the merge of all paths has every one of them, the
 * packet reached the receiver by another path (a repair sent there).
 * FALSE if a neighbour is unknown or the neighbours are out of order.
 * The search spans a burst of 64 packets lost on the path (0.15 s of
 * 1200-byte packets at 4 Mbit/s): a longer silence is the path failing,
 * which the scheduler drains rather than repairs; and on two paths the
 * media numbers between such neighbours stay within the merge's range
 * query (RTPCC_PLAYOUT_RANGE_MAX, 256). */
#define RTPCC_MPRTP_GAP_SEARCH 64
gboolean rtpcc_mprtp_seqmap_gap (const RtpccMprtpSeqMap * map, guint16 fssn,
    guint16 * first, guint16 * last);
/* Sender: the RTX packet @rtx (@len bytes, RFC 4588: OSN first in the
 * payload), built from a history numbered by FSSN, gets the media
 * sequence number of that FSSN as OSN, in place. The FSSN is the one in
 * its subflow element @id (copied from the original); it must also be the
 * OSN. FALSE, @rtx untouched, if the element is absent, the OSN is not its
 * FSSN, or @map no longer knows it. */
gboolean rtpcc_mprtp_rtx_osn_to_media (guint8 * rtx, gsize len, guint8 id,
    const RtpccMprtpSeqMap * map);

/* Receiver: a copy of @pkt in @out (@max bytes) numbered in its path's
 * subflow space, for the repair planner: a media packet with its FSSN as
 * sequence number and the marker set (a frame's marked last packet may
 * have taken another path: unmarked, the last one here would make the
 * planner's tail probe NACK a packet that is not lost); an RTX packet
 * (payload type @rtx_pt, non-zero) with its FSSN as OSN. *@media_seq: the media sequence number the copy replaced
 * (the header's, or the OSN), to put back into a restored original.
 * 0 if @pkt carries no valid subflow element @id, is not RTP, an RTX
 * packet has no OSN, or the copy does not fit @max. */
gsize rtpcc_mprtp_repair_view (const guint8 * pkt, gsize len, guint8 id,
    guint8 rtx_pt, guint8 * out, gsize max, guint16 * media_seq);

G_END_DECLS

#endif

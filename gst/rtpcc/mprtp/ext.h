/* Multipath RTP wire formats (draft-ietf-avtcore-mprtp-00 §9): the subflow
 * header extension on every media packet and the per-subflow receiver
 * report (MPRTCP, PT 211) that goes back on each path.
 *
 * Subflow header extension (draft §9.1.1), one RFC 8285 one-byte element
 * with URI urn:ietf:params:rtp-hdrext:mprtp (draft §11.1):
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |      0xBE     |      0xDE     |          length = 2           |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |  ID   | L = 4 | MPID=0| LEN=4 |          Subflow ID           |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |    Subflow sequence number    |   0 (pad)     |   0 (pad)     |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * The element's data is 5 bytes: MPID (4 bits, 0 = subflow) and its own
 * length (4 bits, 4 = the bytes after it), the 16-bit subflow ID and the
 * 16-bit subflow-specific sequence number (FSSN). The RTP header keeps the
 * media's SSRC and sequence number, so a receiver without MPRTP (or the
 * decoder after the merge) sees one ordinary stream; per path, the FSSN is
 * a gap-free sequence of its own from which that path's loss is counted.
 * Alone in a packet the block costs 12 bytes; after another one-byte
 * element it adds 6 bytes before padding.
 *
 * Per-subflow receiver report (draft §9.2, §9.2.1.1), a reduced-size RTCP
 * packet (RFC 5506, as draft §11.2 asks):
 *
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |V=2|P|reserved |   PT = 211    |    length (words − 1)         |
 *   |                     SSRC of packet sender                     |
 *   |                 SSRC_1 (the media source)                     |
 *   +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
 *   | MPRTCP_Type=0 | block length  |          Subflow ID           |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   | RR (PT 201, RC 1): one report block about SSRC_1 in the        |
 *   | subflow's sequence space (fraction lost, cumulative lost,      |
 *   | extended highest FSSN, jitter, LSR, DLSR) — 32 bytes           |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   | optional XR (PT 207) with one Discard Count block (RFC 7002,   |
 *   | BT 24, I = 11 cumulative, DT = 0 early or late): packets of    |
 *   | this subflow received but discarded by the playout — 20 bytes  |
 *   +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
 *   | next MPRTCP_Type=0 block …                                    |
 *
 * The draft gives the block length two readings (§9.2: words including
 * the type and length; §9.2.1: words not including them); we write and
 * read the §9.2.1 one, the 32-bit words after the word holding the type,
 * length and subflow ID. Blocks of other MPRTCP types (interface
 * advertisements) are skipped and counted; a subflow block whose inner
 * RTCP is not one valid RR (plus at most one XR) makes the whole packet
 * invalid.
 *
 * Every reader checks bounds and trusts no length.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_MPRTP_EXT_H__
#define __RTPCC_MPRTP_EXT_H__

#include <rtpcc/common.h>
#include <rtpcc/feedback/rtcp.h>

G_BEGIN_DECLS

#define RTPCC_MPRTP_EXTMAP_URI "urn:ietf:params:rtp-hdrext:mprtp"

/* paths (subflows) one call uses at most, in every mprtp/ module */
#define RTPCC_MPRTP_MAX_PATHS 16

#define RTPCC_MPRTP_MPID_SUBFLOW 0
/* bytes of the subflow element's data (MPID/LEN, subflow ID, FSSN) */
#define RTPCC_MPRTP_SUBFLOW_DATA_LEN 5

typedef struct
{
  guint16 subflow_id;
  guint16 fssn;                 /* subflow-specific sequence number */
} RtpccMprtpSubflow;

/* The element data (5 bytes) for @sf into @data; 0 if @max < 5. */
gsize rtpcc_mprtp_subflow_write (guint8 * data, gsize max,
    const RtpccMprtpSubflow * sf);
/* From an element's data: FALSE unless it is exactly 5 bytes, MPID 0 and
 * inner length 4. */
gboolean rtpcc_mprtp_subflow_parse (const guint8 * data, gsize len,
    RtpccMprtpSubflow * sf);

/* rtpcc_rtp_add_extension() with the subflow element as @id (1..14 in a
 * new or one-byte block). 0 when it cannot be added (see there). */
gsize rtpcc_mprtp_add_subflow (const guint8 * pkt, gsize len, guint8 id,
    const RtpccMprtpSubflow * sf, guint8 * out, gsize max);
/* The subflow element @id of an RTP packet; FALSE if absent or invalid. */
gboolean rtpcc_mprtp_read_subflow (const guint8 * pkt, gsize len, guint8 id,
    RtpccMprtpSubflow * sf);

/* One path of a multipath stream numbers its packets by the subflow
 * sequence number (FSSN): its sender, controller and feedback count that
 * space, while the wire keeps the media's sequence number for the decoder.
 * rtpcc_mprtp_subflow_header() copies the RTP header of @pkt into @out
 * with the FSSN of its subflow element @id as the sequence number (what
 * the path's sender is given); 0 if the element is absent or invalid, the
 * packet is not RTP, or the header does not fit @max. */
gsize rtpcc_mprtp_subflow_header (const guint8 * pkt, gsize len, guint8 id,
    guint8 * out, gsize max);
/* The header to send: the sender's @head (numbered by FSSN) with the
 * media sequence number of the original @pkt back, into @out; 0 if either
 * is shorter than an RTP header or @head does not fit @max. */
gsize rtpcc_mprtp_wire_header (const guint8 * head, gsize head_len,
    const guint8 * pkt, gsize len, guint8 * out, gsize max);

/* ---- MPRTCP ------------------------------------------------------------ */

#define RTPCC_MPRTCP_PT 211
#define RTPCC_MPRTCP_TYPE_SUBFLOW 0
#define RTPCC_XR_BT_DISCARD_COUNT 24
/* subflow reports one MPRTCP packet holds at most (parse and write) */
#define RTPCC_MPRTCP_MAX_REPORTS 16

typedef struct
{
  guint16 subflow_id;
  /* about the media SSRC, counted on the subflow's FSSN */
  RtpccRtcpReportBlock rr;
  gboolean has_discards;
  guint32 discards;             /* cumulative, RFC 7002 Discard Count */
} RtpccMprtpSubflowReport;

typedef struct
{
  guint32 sender_ssrc;
  guint32 media_ssrc;
  guint n_reports;
  RtpccMprtpSubflowReport reports[RTPCC_MPRTCP_MAX_REPORTS];
  guint n_skipped;              /* blocks of other types, or over the cap */
} RtpccMprtcp;

/* Bytes one subflow block takes (36, or 56 with discards). */
gsize rtpcc_mprtcp_block_size (const RtpccMprtpSubflowReport * report);
/* One MPRTCP packet with @n reports (1..RTPCC_MPRTCP_MAX_REPORTS). Each
 * report's rr.ssrc is written as @media_ssrc. Bytes written, or 0 if it
 * does not fit in @max. */
gsize rtpcc_mprtcp_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc, const RtpccMprtpSubflowReport * reports, guint n);
/* One RTCP packet as the compound iterator yields it (header included).
 * FALSE if it is not a valid MPRTCP packet. */
gboolean rtpcc_mprtcp_parse (const guint8 * data, gsize len,
    RtpccMprtcp * out);
/* The first MPRTCP packet of a (compound or reduced-size) RTCP datagram;
 * FALSE if there is none or the datagram is malformed. */
gboolean rtpcc_mprtcp_find (const guint8 * data, gsize len,
    RtpccMprtcp * out);

G_END_DECLS

#endif

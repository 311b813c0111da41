/* RFC 4585 §6.2.1 Generic NACK: RTPFB (PT 205), FMT 1.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |V=2|P|  FMT=1  |    PT=205     |          length               |
 *  |                  SSRC of packet sender                        |
 *  |                  SSRC of media source                         |
 *  |            PID                |             BLP               |  × n
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Each FCI names the lost packet PID and, in BLP, up to 16 more: bit i
 * (least significant = 1, most significant = 16) set means PID + i
 * (mod 2^16) is lost too. The FCI field holds one or more of them
 * (RFC 4585 §6.2.1: "at least one"), so length = 2 + n.
 *
 * This is what GStreamer's rtpsession sends for rtpjitterbuffer's
 * retransmission requests and turns back into GstRTPRetransmissionRequest
 * events when it receives one (for an SSRC it sends), and what libwebrtc
 * sends and answers with RTX.
 *
 * The parser takes exactly one RTCP packet (as the compound iterator of
 * rtcp.h yields it) and refuses anything a writer could not have meant:
 * wrong version, type or FMT, a length field that disagrees with the
 * bytes, bad padding, no FCI.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_NACK_H__
#define __RTPCC_FEEDBACK_NACK_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_NACK_FMT 1
/* header, sender SSRC, media SSRC */
#define RTPCC_NACK_HEADER_SIZE 12
/* the 16-bit length field counts 32-bit words minus one */
#define RTPCC_NACK_MAX_FCI (G_MAXUINT16 - 2)

typedef struct
{
  guint16 pid;
  guint16 blp;
} RtpccNackFci;

typedef struct
{
  guint32 sender_ssrc;
  guint32 media_ssrc;
  guint n_fci;                  /* >= 1 */
  RtpccNackFci *fci;
} RtpccNack;

/* Bytes of a NACK with @n_fci FCIs; 0 if @n_fci is 0 or over the maximum. */
gsize rtpcc_nack_size (guint n_fci);
/* Writes one NACK (no padding); returns its size, or 0 if it does not fit
 * in @max or @n_fci is 0 / over RTPCC_NACK_MAX_FCI. */
gsize rtpcc_nack_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc, const RtpccNackFci * fci, guint n_fci);
/* Parses exactly one RTCP packet (@len = its length field, padding
 * included). NULL and @error (RTPCC_ERROR_PARSE) when malformed. The FCIs
 * are returned as sent: they may overlap (a seq named twice). */
RtpccNack *rtpcc_nack_parse (const guint8 * pkt, gsize len, GError ** error);
void rtpcc_nack_free (RtpccNack * nack);

/* The sequence numbers one FCI names, PID first and then in BLP bit order
 * (ascending, wrapping). Returns how many (1..17) were written to @seqs. */
guint rtpcc_nack_fci_seqs (RtpccNackFci fci, guint16 seqs[17]);

/* The fewest FCIs naming exactly the distinct seqs of @seqs (any order,
 * duplicates allowed), written to @fci (room for @n_seqs entries, never
 * more are needed); returns how many. The seqs are ordered from the one
 * after the widest circular gap between them, then covered greedily — a
 * PID at the first uncovered seq, BLP for the next 16 — which is optimal
 * whenever they span less than half the sequence space (any real loss
 * list): each FCI covers as far as an FCI covering that seq can. */
guint rtpcc_nack_fci_from_seqs (const guint16 * seqs, guint n_seqs,
    RtpccNackFci * fci);

/* rtpcc_nack_fci_from_seqs() then rtpcc_nack_write(): a NACK naming
 * exactly @seqs. 0 if @n_seqs is 0 or it does not fit in @max. */
gsize rtpcc_nack_write_seqs (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc, const guint16 * seqs, guint n_seqs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtpccNack, rtpcc_nack_free)

G_END_DECLS

#endif

/* RtpccEgress: a sender's queue of outgoing packets, and the bytes they
 * leave with.
 *
 * A packet is queued with a copy of what the sender may change — its RTP
 * header, and for FEC of our format the FEC header after it — and the
 * caller's handle to the whole packet. The pacer decides when the head of
 * the queue may leave. It leaves as a header written for the wire (the
 * sequence number the prober chose, the transport-wide seq in an RFC 8285
 * one-byte extension in TWCC mode, the rewritten FEC header) followed by
 * the caller's original bytes from tail_offset on:
 *
 *   wire = head[0 .. head_len) ++ original[tail_offset .. size)
 *
 * so the payload is never copied (an element sends the two parts with one
 * scatter-gather send). Padding-only probes are written whole.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_EGRESS_H__
#define __RTPCC_EGRESS_H__

#include <rtpcc/common.h>
#include <rtpcc/packet.h>
#include <rtpcc/pacer.h>

G_BEGIN_DECLS

/* A packet ready for the wire. */
typedef struct
{
  gpointer handle;              /* the caller's; NULL for a probe */
  RtpccRtpInfo info;            /* as on the wire */
  const guint8 *head;           /* the first head_len bytes to send; valid
                                 * until the next call on the owner */
  gsize head_len;
  gsize tail_offset;            /* then the original from here to its end
                                 * (a probe: nothing) */
  gsize size;                   /* the datagram: head_len + the tail */
} RtpccWirePacket;

/* A queued packet. */
typedef struct
{
  RtpccRtpInfo info;            /* as queued; size: on the wire, the
                                 * extension the egress adds included */
  gpointer handle;
  gsize size;                   /* the caller's packet */
  guint payload;                /* its payload octets (RFC 3550 SR count) */
  gsize header_len;             /* its RTP header, the start of prefix */
  gsize prefix_len;             /* what may be rewritten: header (+ FEC
                                 * header) */
  gboolean urgent;              /* ahead of the others (rtpcc_pacer_push_urgent),
                                 * FALSE from packet_new */
  guint8 prefix[];
} RtpccEgressPacket;

typedef struct _RtpccEgress RtpccEgress;

/* @pacer: the pacer's config (its byte limit is the egress's); the TWCC
 * extension goes in element @twcc_ext_id (1..14; 0: never stamped). */
RtpccEgress *rtpcc_egress_new (const RtpccPacerConfig * pacer,
    guint8 twcc_ext_id);
/* frees the handles still queued */
void rtpcc_egress_free (RtpccEgress * egress);
/* frees the handles of packets dropped or still queued at free */
void rtpcc_egress_set_free_func (RtpccEgress * egress, GDestroyNotify func);
RtpccPacer *rtpcc_egress_get_pacer (RtpccEgress * egress);

/* A packet to queue: @info as queued (its size the caller's packet's),
 * @prefix its first @prefix_len bytes of which @header_len are the RTP
 * header. */
RtpccEgressPacket *rtpcc_egress_packet_new (const RtpccRtpInfo * info,
    const guint8 * prefix, gsize header_len, gsize prefix_len,
    gpointer handle);
/* Frees @packet and its handle (a packet the caller will not queue). */
void rtpcc_egress_discard (RtpccEgress * egress, RtpccEgressPacket * packet);
/* Frees a handle (with the free func) that never became a packet. */
void rtpcc_egress_release (RtpccEgress * egress, gpointer handle);

/* Queues @packet (ahead of the others if urgent). Over the byte limit the
 * oldest go, urgent ones last (they are the most likely to be useless by
 * the time they would arrive): returns how many. */
guint rtpcc_egress_push (RtpccEgress * egress, RtpccTime now,
    RtpccEgressPacket * packet);
/* The head packet if the pacer lets it go at @now, else NULL; the caller
 * writes it (rtpcc_egress_write) and frees it with g_free. */
RtpccEgressPacket *rtpcc_egress_pop (RtpccEgress * egress, RtpccTime now);
/* Drops everything queued: returns how many. */
guint rtpcc_egress_drop_all (RtpccEgress * egress);

/* The bytes stamping the transport-wide seq will add to @packet's header
 * (0 if it cannot carry it, or the egress does not stamp). */
guint rtpcc_egress_stamp_growth (RtpccEgress * egress,
    const RtpccEgressPacket * packet);
/* Writes @packet's head for the wire into @out: seq @wire_seq, and the
 * transport-wide seq of @out->info (has_twcc) stamped. A packet that
 * cannot carry it (a two-byte-form or broken extension block with no room
 * for the element) goes unstamped (has_twcc FALSE, counted). */
void rtpcc_egress_write (RtpccEgress * egress,
    const RtpccEgressPacket * packet, guint16 wire_seq, gboolean has_twcc,
    guint16 twcc_seq, RtpccWirePacket * out);
/* A padding-only probe (RFC 3550 §5.1: P bit, no payload) from @info
 * (ssrc, seq, rtp_ts, pt; @padding bytes of padding, 1..255; the
 * transport-wide seq if has_twcc), written whole into @out. */
void rtpcc_egress_write_probe (RtpccEgress * egress,
    const RtpccRtpInfo * info, guint padding, RtpccWirePacket * out);

/* packets sent without the TWCC extension they should have carried */
guint64 rtpcc_egress_get_stamp_errors (const RtpccEgress * egress);

G_END_DECLS

#endif

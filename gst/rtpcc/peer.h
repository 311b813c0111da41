/* RtpccPeer: which address a receiver answers to, sans I/O.
 *
 * A receiver sends its feedback to the address the media comes from (no
 * signalling tells it where the sender is). Feedback leaks the SSRCs and
 * sequence numbers it reports on, and feedback that goes elsewhere is
 * missing at the sender, which then takes every packet for lost. So the
 * peer must not follow just any datagram: a third party sending RTP from
 * its own address, whatever the SSRC, would otherwise redirect it.
 *
 * The rules (after RFC 3550 §8.2 and the probation of A.1):
 *
 *  - The first peer is the address that sends RTPCC_PEER_PROBATION
 *    packets in sequence on one SSRC, with payload in at least one of
 *    them (padding-only probes continue a run, they share the media's
 *    seqs, but never make one). Until then there is no peer (no feedback
 *    is sent) and every packet is taken: there is nothing to protect yet.
 *  - Once there is a peer, packets from any other address are refused
 *    (dropped before anything logs them, counted), with two exceptions:
 *    * the established media source moving (a NAT rebinding, a sender
 *      that changed interface): an SSRC that carried payload from the
 *      peer, continuing its sequence (within RFC 3550 A.1's MAX_DROPOUT
 *      of the highest seq seen), RTPCC_PEER_PROBATION packets in sequence
 *      from the same new address with nothing from the peer on that SSRC
 *      in between. The packet that completes the probation is taken, and
 *      the peer is that address from then on. A packet on an unknown SSRC
 *      never moves it;
 *    * a peer silent for RTPCC_PEER_SILENCE (no RTP, no RTCP: RFC 3550
 *      §6.3.5's timeout of a participant) is gone: a new address may then
 *      become the peer by the first rule (a restarted sender with a new
 *      port and SSRC), its probation packets refused.
 *  - RTCP (the sender's SR) is taken only from the peer (or, before
 *    there is one, from anywhere), and keeps the peer alive.
 *
 * An off-path attacker knows neither the SSRC nor the sequence numbers,
 * so he cannot move the peer. One on the path can (and could always
 * redirect or drop the traffic); SRTP (srtp.h) makes its packets fail
 * before they get here.
 *
 * Addresses are the caller's opaque bytes (an element's socket address in
 * a canonical form), compared byte for byte.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PEER_H__
#define __RTPCC_PEER_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* Bytes an address may have (IPv6: family, port, address, scope fit). */
#define RTPCC_ADDRESS_MAX 32

typedef struct
{
  guint8 len;                   /* 0: none */
  guint8 bytes[RTPCC_ADDRESS_MAX];
} RtpccAddress;

/* FALSE (and @addr empty) if @len is 0 or over RTPCC_ADDRESS_MAX. */
gboolean rtpcc_address_set (RtpccAddress * addr, const void *bytes,
    gsize len);
gboolean rtpcc_address_equal (const RtpccAddress * a, const RtpccAddress * b);

/* Packets in sequence that make an address the peer. */
#define RTPCC_PEER_PROBATION 4
/* A peer this long silent is gone. */
#define RTPCC_PEER_SILENCE RTPCC_SEC (5)
/* RFC 3550 A.1: how far ahead of the highest seq a packet may be and
 * still continue the sequence. */
#define RTPCC_PEER_MAX_DROPOUT 3000
/* media SSRCs of the peer remembered (the oldest goes) */
#define RTPCC_PEER_MAX_SSRCS 16

typedef enum
{
  RTPCC_PEER_TAKE = 0,          /* from the peer, or no peer to protect */
  RTPCC_PEER_REFUSE,            /* from elsewhere: drop it */
} RtpccPeerVerdict;

typedef struct
{
  guint64 changes;              /* the peer moved (the first one is not a
                                 * change) */
  guint64 refused;              /* RTP packets refused */
  guint64 rtcp_refused;         /* RTCP compounds refused */
} RtpccPeerStats;

typedef struct _RtpccPeer RtpccPeer;

RtpccPeer *rtpcc_peer_new (void);
void rtpcc_peer_free (RtpccPeer * peer);

/* An RTP packet from @from: @ssrc, @seq, and whether it carries payload
 * (@media; FALSE for a padding-only probe). */
RtpccPeerVerdict rtpcc_peer_on_rtp (RtpccPeer * peer, RtpccTime now,
    const RtpccAddress * from, guint32 ssrc, guint16 seq, gboolean media);
/* An RTCP compound from @from (before it is parsed). */
RtpccPeerVerdict rtpcc_peer_on_rtcp (RtpccPeer * peer, RtpccTime now,
    const RtpccAddress * from);

/* Where feedback goes: NULL while there is no peer. */
const RtpccAddress *rtpcc_peer_get (const RtpccPeer * peer);
const RtpccPeerStats *rtpcc_peer_get_stats (const RtpccPeer * peer);

G_END_DECLS

#endif

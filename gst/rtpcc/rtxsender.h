/* RtpccRtxSender: the media sender's side of loss repair, sans I/O.
 *
 * It keeps every media packet as it went on the wire (RtpccRtxHistory,
 * rtx.h), reads the receiver's RTCP for Generic NACKs (RFC 4585 §6.2.1),
 * PLIs (§6.3.1) and FIRs (RFC 5104 §4.3.1) about the SSRCs it sends, and
 * answers:
 *
 *   NACK → for each seq the history grants, an RTX packet (RFC 4588 §4,
 *          SSRC-multiplexed: its own SSRC and payload type, the OSN first)
 *          handed to the caller, who queues it like any media packet — so
 *          it is paced and its bytes count as sent for the controller;
 *   PLI / new FIR → a key-frame request, at most one per
 *          max(RTT, 300 ms) (RtpccKeyframeGate, psfb.h).
 *
 * Budget. Retransmissions are bounded by the caller's @max_bitrate over
 * RTPCC_RTX_RATE_WINDOW (the element passes the controller's target), on
 * top of the history's own rules (too old to be played, already
 * retransmitted within an RTT). What is refused is counted, never sent.
 *
 * With rtx_pt 0, RTX is off: NACKs are counted (nacks_received,
 * nacked_packets, rtx_dropped) and nothing is kept or sent.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_RTX_SENDER_H__
#define __RTPCC_RTX_SENDER_H__

#include <rtpcc/common.h>
#include <rtpcc/rtx.h>

G_BEGIN_DECLS

/* media SSRCs a sender answers for */
#define RTPCC_RTX_SENDER_MAX_SSRCS 16

typedef struct
{
  guint8 rtx_pt;                /* 1..127; 0 = RTX off (default) */
  guint32 rtx_ssrc;             /* 0 = drawn from the seed */
  RtpccRtxHistoryConfig history;
  guint64 seed;
} RtpccRtxSenderConfig;

void rtpcc_rtx_sender_config_init (RtpccRtxSenderConfig * config);

typedef struct
{
  guint64 nacks_received;       /* NACK packets about one of our SSRCs */
  guint64 nacked_packets;       /* seqs they named (distinct per NACK) */
  guint64 rtx_sent, rtx_bytes;  /* RTX packets handed out, their bytes */
  guint64 rtx_dropped;          /* seqs not answered, any reason: */
  guint64 rtx_unknown;          /* ... not held (never sent, or evicted) */
  guint64 rtx_too_old;          /* ... would arrive too late to play */
  guint64 rtx_too_soon;         /* ... already retransmitted this RTT */
  guint64 rtx_over_budget;      /* ... over the rate limit */
  guint64 rtx_off;              /* ... RTX off (rtx_pt 0) */
  guint64 plis_received, firs_received;
  guint64 keyunit_requests;     /* key-frame requests passed on */
  guint64 keyunit_suppressed;   /* ... held back by the rate limit or an
                                 * old FIR command */
  guint64 rtcp_malformed;       /* NACK / PLI / FIR that did not parse */
  guint64 rtcp_foreign;         /* ... about an SSRC we do not send */
} RtpccRtxSenderStats;

typedef struct _RtpccRtxSender RtpccRtxSender;

RtpccRtxSender *rtpcc_rtx_sender_new (const RtpccRtxSenderConfig * config);
void rtpcc_rtx_sender_free (RtpccRtxSender * sender);

guint32 rtpcc_rtx_sender_get_rtx_ssrc (const RtpccRtxSender * sender);
guint8 rtpcc_rtx_sender_get_rtx_pt (const RtpccRtxSender * sender);

/* The RTP packet @pkt went on the wire at @now: its first @len bytes of
 * @size, as sent (seq and header as the receiver sees them). Its first
 * @len bytes are kept for retransmission (a simulator keeps the header of
 * a packet with a virtual payload) unless RTX is off, it is an RTX packet
 * itself, or it carries no payload (a padding probe). */
void rtpcc_rtx_sender_on_sent (RtpccRtxSender * sender, RtpccTime now,
    const guint8 * pkt, gsize len, gsize size);

/* What on_sent() keeps of a packet of @ssrc when RTX is off (the SSRCs a
 * PLI or FIR may name), for a caller that knows the SSRC without the
 * header being parsed again. */
void rtpcc_rtx_sender_on_sent_ssrc (RtpccRtxSender * sender, guint32 ssrc);

/* An RTX packet to send: valid only during the call. */
typedef void (*RtpccRtxSendFunc) (const guint8 * pkt, gsize len,
    gpointer user_data);

/* One RTCP compound (or reduced-size packet) from the receiver at @now.
 * Calls @send for every RTX packet to send, in NACK order. Returns TRUE if
 * a key-frame request should go to the encoder now (@all_headers, may be
 * NULL: TRUE when a FIR asked). @rtt: the current estimate
 * (RTPCC_TIME_NONE: unknown). @max_bitrate: bits/s of retransmission
 * allowed (0: no limit). Packets other than NACK, PLI and FIR are ignored,
 * and so is a compound that does not validate (RtpccSender counts it). */
gboolean rtpcc_rtx_sender_on_rtcp (RtpccRtxSender * sender, RtpccTime now,
    const guint8 * data, gsize len, RtpccTime rtt, guint64 max_bitrate,
    RtpccRtxSendFunc send, gpointer user_data, gboolean * all_headers);

void rtpcc_rtx_sender_get_stats (const RtpccRtxSender * sender,
    RtpccRtxSenderStats * stats);

G_END_DECLS

#endif

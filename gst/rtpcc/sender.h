/* RtpccSender: everything a congestion-controlled RTP sender does, sans I/O.
 *
 *   enqueue(RTP) → pacer → dequeue when the pacer (and a window controller)
 *   allows → wire;  RTCP from the wire → receive_rtcp → per-packet reports
 *   and RR digests → controller + circuit breaker → target
 *
 * It orchestrates RtpccEgress (the send queue and its wire bytes),
 * RtpccSentHistory, RtpccFeedbackAdapter, RtpccProber (where padding
 * probes go: see prober.h), the controller and the circuit breaker, and
 * publishes the target (target.h).
 *
 * Bytes in, bytes out: the caller hands over each RTP packet's bytes
 * (enqueue_rtp) and gets back the header to put on the wire in front of
 * the unchanged rest of it — renumbered, stamped with the transport-wide
 * seq, its FEC header rewritten — and probes as whole packets
 * (RtpccWirePacket), so an element and the simulator send the same bytes.
 *
 * The element (rtpccsink) and the simulator call the same functions; the
 * caller owns the clock and the socket and asks next_timeout() when to call
 * tick()/dequeue() next.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SENDER_H__
#define __RTPCC_SENDER_H__

#include <rtpcc/common.h>
#include <rtpcc/packet.h>
#include <rtpcc/controller.h>
#include <rtpcc/pacer.h>
#include <rtpcc/egress.h>
#include <rtpcc/prober.h>
#include <rtpcc/target.h>
#include <rtpcc/transportfeedback.h>
#include <rtpcc/mprtp/ext.h>
#include <rtpcc/feedbackadapter.h>

G_BEGIN_DECLS

typedef struct
{
  const gchar *controller;      /* registry name, default "tfrc" */
  RtpccControllerConfig cc;
  RtpccFeedbackMode feedback;
  RtpccTime rtcp_interval;      /* SR interval (randomised ±50 %), default 1 s */
  RtpccTime ntp_offset;         /* NTP time (ns since 1900) = now + ntp_offset */
  RtpccPacerConfig pacer;       /* rate is driven by the controller */
  gboolean pacing;              /* FALSE: send as soon as the controller allows */
  gboolean circuit_breaker;     /* RFC 8083, default TRUE */
  guint32 rtcp_ssrc;            /* 0 = the first media SSRC */
  /* FALSE: build_rtcp never makes an SR (an rtpsession downstream sends
   * them, rtpccbwe); default TRUE */
  gboolean sender_reports;
  /* Probing: when the controller asks for fec_bitrate (GCC's probe),
   * padding-only packets (RFC 3550 §5.1 P bit, no payload) are sent at
   * that rate — unless real FEC packets (RtpccRtpInfo.is_fec, e.g. from
   * fecenc) were queued within RTPCC_PROBER_FEC_HOLDOFF: then they are the
   * probe. Where the padding goes is probe_ssrc_mode (prober.h). */
  gboolean probing;             /* default TRUE */
  RtpccProbeSsrcMode probe_ssrc_mode;   /* default SEPARATE */
  guint32 probe_ssrc;           /* SEPARATE: 0 = drawn from the seed */
  guint8 probe_pt;              /* SEPARATE: default the first media PT */
  const gchar *cname;           /* SDES CNAME, default "rtpcc@localhost" */
  guint8 twcc_ext_id;           /* TWCC mode: RFC 8285 one-byte ID, 1..14
                                 * (default 1) */
  gint fec_pt;                  /* enqueue_rtp: PT of FEC packets (is_fec),
                                 * -1 = none (default) */
  guint32 clock_rate;           /* enqueue_rtp: the media clock, 0 = unknown
                                 * (90 kHz assumed) */
  /* FEC from the channel, for any controller: while the receiver reports
   * loss, up to this part of the target (0 = off, at most 0.5) is moved
   * from the media to fec_bitrate, as much as the code the channel needs
   * takes (fec/strength.h: the least parity that leaves a negligible
   * residual, else the most this share allows; blocks that fill within
   * RTPCC_SENDER_FEC_BLOCK_TIME). An FEC encoder upstream (fecenc
   * scheme=auto) spends it; no padding is sent for it (a controller's own
   * fec_bitrate, a probe, still is). */
  gdouble max_fec_share;
  guint64 seed;
} RtpccSenderConfig;

/* max_fec_share's delay budget: fecenc's default max-block-time */
#define RTPCC_SENDER_FEC_BLOCK_TIME RTPCC_MSEC (100)

void rtpcc_sender_config_init (RtpccSenderConfig * config);

typedef struct
{
  guint64 packets_enqueued, bytes_enqueued;
  guint64 packets_sent, bytes_sent;
  guint64 invalid_rtp;          /* dropped by enqueue_rtp: not RTP */
  guint64 pacer_drops;          /* dropped: pacer over its byte limit */
  guint64 breaker_drops;        /* dropped: circuit breaker tripped */
  guint64 probe_packets, probe_bytes;   /* padding sent for probing */
  guint64 probe_media_packets;  /* of those, on a media SSRC (MEDIA mode) */
  guint64 probe_reported_received;      /* of those, reported received */
  guint64 fec_rewritten, fec_rewrite_drops;     /* prober.h, rewrite_fec */
  guint64 twcc_stamp_errors;    /* sent without the TWCC extension (no room
                                 * in the packet's extension block) */
  guint64 rtcp_received;        /* valid RTCP packets about our media */
  guint64 rtcp_malformed;       /* dropped: not parseable */
  guint64 rtcp_unknown_ssrc;    /* dropped: about an SSRC we do not send */
  /* per-packet reports dropped (feedbackadapter.h): acknowledging packets
   * never sent or older than one used; contradicting an earlier one */
  guint64 feedback_implausible, feedback_contradictory;
  /* bit/s delivered, from acknowledgements: the target is not raised
   * above three times it (target.h) */
  guint64 delivery_rate;
  guint64 rtcp_sent;
  guint64 reported_received, reported_lost;
  /* received packets the receiver then discarded as late (RFC 7097) */
  guint64 reported_discarded;
  /* media-level FEC packets (is_fec) the application queued; while they
   * flow no padding probes are generated for fec_bitrate */
  guint64 fec_packets_enqueued;
  RtpccTime rtt;                /* latest sample, RTPCC_TIME_NONE if none */
  RtpccTime srtt;
  gdouble loss;                 /* recent media loss fraction (EWMA per
                                 * feedback; FEC and probes excluded) */
  gdouble loss_burst;           /* mean loss burst, packets (lossburst.h;
                                 * 0: no loss seen) */
  gdouble loss_window;          /* loss rate over the same packets, all
                                 * on the wire */
  guint64 fec_reserved;         /* bit/s of the media target moved to FEC
                                 * by max_fec_share (0: none) */
  gdouble parity_ratio;         /* a parity packet's bytes over a media
                                 * packet's, from the media sent: in blocks
                                 * of the code's k (rtpcc_fec_sizes_ratios)
                                 * while one is reserved for, else over the
                                 * last second (1 until known) */
  /* the code fec_reserved was reserved for (max_fec_share; k 0: none):
   * an RtpccFecScheme, k media and m parity packets (XOR: m 1, k = n) */
  gint fec_code_scheme;
  guint fec_code_k, fec_code_m;
  /* NACK's chances max_fec_share last chose its code by
   * (rtpcc_sender_set_nack): round trips in the receiver's playout delay;
   * 0: FEC alone */
  guint fec_nack_chances;
  guint64 receive_rate;         /* bit/s, from the receiver's arrival times */
  RtpccTime queue_delay;        /* one-way delay above the observed minimum */
  guint64 send_rate;            /* bit/s over the last ~500 ms */
  gboolean breaker_tripped;
  const gchar *breaker_reason;  /* static string or NULL */
  /* the report interval last asked of the receiver with the SR
   * (feedback/reportinterval.h), RTPCC_TIME_NONE if never */
  RtpccTime report_interval_asked;
  /* the receiver's maximum rate (ratecap.h): TMMBRs about our media and
   * the TMMBNs answering them, REMBs naming it, REMB limits lapsed for
   * silence (ratecap.h), and the limit in force (bit/s, G_MAXUINT64 if
   * none) */
  guint64 tmmbr_received, tmmbn_sent, remb_received, remb_expired;
  guint64 receiver_limit;
  /* MPRTCP subflow reports (mprtp/ext.h) about our media: accepted, and
   * PT 211 packets dropped as malformed or about another SSRC; the latest
   * accepted one (valid while mprtcp_received > 0) */
  guint64 mprtcp_received, mprtcp_rejected;
  /* NADU APP packets (feedback/nadu.h) with a block about our media, and
   * APP packets named "PSS0" dropped as malformed; the latest block's
   * playout delay (RTPCC_TIME_NONE: not reported or the buffer empty) */
  guint64 nadu_received, nadu_rejected;
  RtpccTime nadu_playout_delay;
  RtpccMprtpSubflowReport subflow_report;
  /* RTCP XR blocks from the receiver beyond Discard RLE
   * (feedbackadapter.h) */
  RtpccXrFeedbackStats xr;
} RtpccSenderStats;

typedef struct _RtpccSender RtpccSender;

RtpccSender *rtpcc_sender_new (const RtpccSenderConfig * config, RtpccTime now,
    GError ** error);
void rtpcc_sender_free (RtpccSender * sender);
/* frees handles the sender drops or still holds at free */
void rtpcc_sender_set_free_func (RtpccSender * sender, GDestroyNotify func);

/* Media in: one RTP packet, @data its first @len bytes of @size (all of
 * it; a simulator may give only the header of a packet with a virtual
 * payload). The sender owns @handle (the caller's, e.g. a GstBuffer; see
 * set_free_func) from now on, whatever the result; it keeps a copy of
 * what it may rewrite and does not look at @data after the call (the
 * caller sends the rest from its handle). A packet of PT fec_pt is FEC
 * (is_fec): its FEC
 * header (gst/rtpcc/fec/fec.h) names an SSRC never to pad, and is
 * rewritten where that SSRC was renumbered (prober.h). */
typedef enum
{
  RTPCC_SENDER_QUEUED = 0,
  RTPCC_SENDER_INVALID = 1,     /* not RTP: dropped (invalid_rtp) */
  RTPCC_SENDER_FEC_DROPPED = 2, /* FEC the renumbering made unusable:
                                 * dropped before it took any seq
                                 * (fec_rewrite_drops) */
} RtpccSenderEnqueueResult;

RtpccSenderEnqueueResult rtpcc_sender_enqueue_rtp (RtpccSender * sender,
    RtpccTime now, const guint8 * data, gsize len, gsize size,
    gpointer handle);
/* The same for a caller without packet bytes (unit tests): @info says
 * what the packet is (is_fec and clock_rate included), and the sender
 * writes a plain 12-byte RTP header for it; the rest is @info->size − 12
 * bytes of payload the caller never has to produce. */
void rtpcc_sender_enqueue (RtpccSender * sender, RtpccTime now,
    const RtpccRtpInfo * info, gpointer handle);

/* Next packet to put on the wire now, or NULL (pacing, window, breaker).
 * Returns its handle; @out (may be NULL) gets what to send: @out->head,
 * then the packet's own bytes from @out->tail_offset to its end. The
 * caller must send it: it is recorded as sent at @now. */
gpointer rtpcc_sender_dequeue (RtpccSender * sender, RtpccTime now,
    RtpccWirePacket * out);

/* A probe packet to put on the wire now: a padding-only RTP packet (P
 * bit, RTPCC_PROBE_PADDING bytes of padding, transport-wide seq in TWCC
 * mode), whole in @out->head (handle NULL); recorded as sent. FALSE if
 * none is due (in MEDIA mode also while the last media packet did not end
 * a frame). */
gboolean rtpcc_sender_dequeue_probe (RtpccSender * sender, RtpccTime now,
    RtpccWirePacket * out);

/* FEC packets queued from now on protect media on @ssrc by its original
 * sequence numbers: no padding is ever put on @ssrc (MEDIA mode).
 * enqueue_rtp reads the protected SSRC from the FEC header itself; an
 * is_fec packet marks its own SSRC by itself (ULPFEC shares the media's).
 * An SSRC never queued is ignored (FEC comes after the media it
 * protects). */
void rtpcc_sender_note_fec_protected (RtpccSender * sender, guint32 ssrc);
/* The PT enqueue_rtp takes for FEC from now on (-1: none). */
void rtpcc_sender_set_fec_pt (RtpccSender * sender, gint pt);
/* Packets queued on @ssrc from now on go ahead of the others in the pacer
 * (rtpcc_pacer_push_urgent): retransmissions (RFC 4588 RTX), which are
 * due before their original's playout deadline, while the media behind
 * them is not. Paced and counted like any packet. 0: none (default). */
void rtpcc_sender_set_urgent_ssrc (RtpccSender * sender, guint32 ssrc);

/* Whether lost media is retransmitted on request (RFC 4585 NACK, RFC 4588
 * RTX: the caller runs the retransmissions). max_fec_share then chooses
 * its code for what NACK leaves (fec/strength.h) where the receiver
 * reports its playout delay (RTCP XR de-jitter buffer metrics, RFC 7005):
 * one chance per round trip that fits in it, at most
 * RTPCC_SENDER_NACK_CHANCES. Default off. */
void rtpcc_sender_set_nack (RtpccSender * sender, gboolean on);

/* Retransmissions of a loss max_fec_share counts on, however long the
 * playout delay: one. A receiver NACKs a packet up to three times
 * (rtpccsrc, libwebrtc), but a repeat waits for a retransmission to be
 * seen missing, and what NACK leaves in real calls is near p² (p the loss
 * rate), not p³ (docs/repair.md). */
#define RTPCC_SENDER_NACK_CHANCES 1

/* max_fec_share's delay budget from now on: the longest the FEC encoder
 * upstream takes to fill a block (fecenc's max-block-time; 0 or
 * RTPCC_TIME_NONE: by packet count only, no bound). Default
 * RTPCC_SENDER_FEC_BLOCK_TIME. */
void rtpcc_sender_set_fec_block_time (RtpccSender * sender, RtpccTime t);

/* The wire seq of the media packet queued on @ssrc with original seq
 * @orig_seq (sent, or else at the current offset). FALSE if @ssrc was
 * never renumbered (wire == original) or is unknown. For rewriting FEC
 * headers whose protected packets straddle a padding packet. */
gboolean rtpcc_sender_map_seq (RtpccSender * sender, guint32 ssrc,
    guint16 orig_seq, guint16 * wire_seq);

/* RTCP in (from the peer's address; the caller filters addresses). FALSE if
 * the packet was dropped (malformed, or about no SSRC of ours): counted. */
gboolean rtpcc_sender_receive_rtcp (RtpccSender * sender, RtpccTime now,
    const guint8 * data, gsize len);
/* Transport-wide feedback that a stock rtpsession downstream numbered and
 * parsed (GStreamer's RTPTWCCPackets event; transportfeedback.h): @n
 * packets as it reported them, at @now. TWCC mode only, with every packet
 * stamped (twcc_ext_id = the session's). FALSE if it could not be mapped
 * onto what we sent (counted) or the sender is not in TWCC mode. */
gboolean rtpcc_sender_transport_feedback (RtpccSender * sender, RtpccTime now,
    const RtpccTransportPacket * pkts, guint n);
/* its counters (all 0 before the first call) */
const RtpccTransportFeedbackStats
    * rtpcc_sender_get_transport_feedback_stats (const RtpccSender * sender);

/* RTCP out: a compound SR + SDES when one is due, else 0. */
gsize rtpcc_sender_build_rtcp (RtpccSender * sender, RtpccTime now,
    guint8 * buf, gsize max);

/* Timers: run whatever is due. */
void rtpcc_sender_tick (RtpccSender * sender, RtpccTime now);
/* TRUE if a timer of the controller or the circuit breaker is due at @now:
 * a caller that sends per packet can skip rtpcc_sender_tick otherwise
 * (each send and report brings the target up to date anyway). */
gboolean rtpcc_sender_tick_due (const RtpccSender * sender, RtpccTime now);
/* When to call tick/dequeue/build_rtcp next (RTPCC_TIME_NONE: nothing
 * pending except new input). */
RtpccTime rtpcc_sender_next_timeout (RtpccSender * sender, RtpccTime now);

const RtpccTarget *rtpcc_sender_get_target (const RtpccSender * sender);
/* bumped whenever the published target changes */
guint64 rtpcc_sender_get_generation (const RtpccSender * sender);
/* bumped when the loss or its mean burst (stats loss_window, loss_burst) moved
 * by a fifth, and at least 0.005 of loss or 0.25 packets of burst, since
 * the last bump, at most every RTPCC_SENDER_CHANNEL_INTERVAL: worth
 * publishing the target again for what it says of the channel */
#define RTPCC_SENDER_CHANNEL_INTERVAL RTPCC_MSEC (500)
guint64 rtpcc_sender_get_channel_generation (const RtpccSender * sender);
/* The controller's own FEC interval while its target asks for FEC (FBRA's
 * N: one parity per N media packets), 0 for a controller without one or
 * while it asks for no FEC: the "fec-interval" an FEC encoder follows
 * (rtpcc_fec_config_follow). */
guint rtpcc_sender_get_fec_interval (RtpccSender * sender);
/* The counters and estimates as of now; the pointer stays valid, its
 * contents are brought up to date by the next call of this function. */
const RtpccSenderStats *rtpcc_sender_get_stats (RtpccSender * sender,
    RtpccTime now);
const gchar *rtpcc_sender_get_controller_name (const RtpccSender * sender);
RtpccController *rtpcc_sender_get_controller (RtpccSender * sender);
/* TRUE once feedback of the configured mode has been seen */
gboolean rtpcc_sender_has_feedback (const RtpccSender * sender);

/* How long after the first packet the configured feedback must have shown
 * up before rtpcc_sender_get_feedback_problem() complains. */
#define RTPCC_FEEDBACK_GRACE RTPCC_SEC (3)

/* NULL while feedback of the configured kind flows (or it is too early to
 * tell); otherwise a sentence naming the likely cause — no RTCP at all,
 * RTCP of another kind (a receiver in another feedback mode), or feedback
 * that stopped (the no-feedback timer, nofeedback.h, is halving the
 * target). Controllers keep their no-feedback behaviour and the circuit
 * breaker its RTCP timeout; this is for telling the user why. Static
 * string. */
const gchar *rtpcc_sender_get_feedback_problem (const RtpccSender * sender,
    RtpccTime now);

G_END_DECLS

#endif

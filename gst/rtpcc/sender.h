/* RtpccSender: everything a congestion-controlled RTP sender does, sans I/O.
 *
 *   enqueue(RTP) → pacer → dequeue when the pacer (and a window controller)
 *   allows → wire;  RTCP from the wire → receive_rtcp → per-packet reports
 *   and RR digests → controller + circuit breaker → target
 *
 * It orchestrates RtpccPacer, RtpccSentHistory, RtpccFeedbackAdapter,
 * RtpccProber (where padding probes go: see prober.h), the controller and
 * the circuit breaker.
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
#include <rtpcc/prober.h>

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
  guint64 seed;
} RtpccSenderConfig;

void rtpcc_sender_config_init (RtpccSenderConfig * config);

typedef struct
{
  guint64 packets_enqueued, bytes_enqueued;
  guint64 packets_sent, bytes_sent;
  guint64 pacer_drops;          /* dropped: pacer over its byte limit */
  guint64 breaker_drops;        /* dropped: circuit breaker tripped */
  guint64 probe_packets, probe_bytes;   /* padding sent for probing */
  guint64 probe_media_packets;  /* of those, on a media SSRC (MEDIA mode) */
  guint64 probe_reported_received;      /* of those, reported received */
  guint64 fec_rewritten, fec_rewrite_drops;     /* see rewrite_fec */
  guint64 rtcp_received;        /* valid RTCP packets about our media */
  guint64 rtcp_malformed;       /* dropped: not parseable */
  guint64 rtcp_unknown_ssrc;    /* dropped: about an SSRC we do not send */
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
  guint64 receive_rate;         /* bit/s, from the receiver's arrival times */
  RtpccTime queue_delay;        /* one-way delay above the observed minimum */
  guint64 send_rate;            /* bit/s over the last ~500 ms */
  gboolean breaker_tripped;
  const gchar *breaker_reason;  /* static string or NULL */
} RtpccSenderStats;

typedef struct _RtpccSender RtpccSender;

RtpccSender *rtpcc_sender_new (const RtpccSenderConfig * config, RtpccTime now,
    GError ** error);
void rtpcc_sender_free (RtpccSender * sender);
/* frees handles the sender drops or still holds at free */
void rtpcc_sender_set_free_func (RtpccSender * sender, GDestroyNotify func);

/* Media in: queue one RTP packet (@handle is the caller's, e.g. a GstBuffer). */
void rtpcc_sender_enqueue (RtpccSender * sender, RtpccTime now,
    const RtpccRtpInfo * info, gpointer handle);
/* Next packet to put on the wire now, or NULL (pacing, window, breaker).
 * The caller must send it: it is recorded as sent at @now. */
gpointer rtpcc_sender_dequeue (RtpccSender * sender, RtpccTime now,
    RtpccRtpInfo * info);

/* A probe packet to put on the wire now: fills @info (ssrc, seq, rtp_ts,
 * pt, size, is_fec, marker FALSE, and has_twcc/twcc_seq in TWCC mode) and
 * records it as sent. The caller builds a padding-only RTP packet from it
 * (header fields from @info, P bit, RTPCC_PROBE_PADDING bytes of padding).
 * FALSE if none is due (in MEDIA mode also while the last media packet did
 * not end a frame). */
gboolean rtpcc_sender_dequeue_probe (RtpccSender * sender, RtpccTime now,
    RtpccRtpInfo * info);

/* FEC packets queued from now on protect media on @ssrc by its original
 * sequence numbers: no padding is ever put on @ssrc (MEDIA mode). The
 * caller reads the protected SSRC from the FEC header; an is_fec packet
 * marks its own SSRC by itself (ULPFEC shares the media's). An SSRC never
 * queued is ignored (FEC comes after the media it protects). */
void rtpcc_sender_note_fec_protected (RtpccSender * sender, guint32 ssrc);

/* rtpcc_prober_rewrite_fec() on the sender's prober (see prober.h) */
/* FALSE while no SSRC was renumbered: rewrite_fec would keep everything */
gboolean rtpcc_sender_fec_needs_rewrite (const RtpccSender * sender);
RtpccProberFecResult rtpcc_sender_rewrite_fec (RtpccSender * sender,
    guint8 * rtp, gsize len);

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
/* RTCP out: a compound SR + SDES when one is due, else 0. */
gsize rtpcc_sender_build_rtcp (RtpccSender * sender, RtpccTime now,
    guint8 * buf, gsize max);

/* Timers: run whatever is due. */
void rtpcc_sender_tick (RtpccSender * sender, RtpccTime now);
/* When to call tick/dequeue/build_rtcp next (RTPCC_TIME_NONE: nothing
 * pending except new input). */
RtpccTime rtpcc_sender_next_timeout (RtpccSender * sender, RtpccTime now);

const RtpccTarget *rtpcc_sender_get_target (const RtpccSender * sender);
/* bumped whenever the published target changes */
guint64 rtpcc_sender_get_generation (const RtpccSender * sender);
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
 * tell); otherwise a sentence naming the likely cause — no RTCP at all, or
 * RTCP of another kind (a receiver in another feedback mode). Controllers
 * keep their no-feedback behaviour and the circuit breaker its RTCP
 * timeout; this is for telling the user why. Static string. */
const gchar *rtpcc_sender_get_feedback_problem (const RtpccSender * sender,
    RtpccTime now);

G_END_DECLS

#endif

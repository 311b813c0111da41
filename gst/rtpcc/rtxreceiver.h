/* RtpccRtxReceiver: the media receiver's side of loss repair, sans I/O.
 *
 * It sorts arrivals into media and RTX (RFC 4588, SSRC-multiplexed: the
 * RTX payload type, and the RTX SSRC given or learnt from the first packet
 * of that type), restores RTX packets to the originals they carry,
 * runs the repair planner (RtpccRepair, repair.h) on the media stream, and
 * writes the feedback it asks for: Generic NACKs (RFC 4585 §6.2.1) and
 * PLI (RFC 4585 §6.3.1) or FIR (RFC 5104 §4.3.1).
 *
 * One media stream: the SSRC given, or the first SSRC carrying payload
 * that is not RTX; another SSRC takes its place once it has been silent
 * for RTPCC_RTX_RECEIVER_MEDIA_TIMEOUT (a restarted sender). Packets of
 * other SSRCs (FEC on an SSRC of its own) are passed on untouched.
 *
 * Key frames. With the codec known (H.264 or VP8), every media packet's
 * payload is read (rtpcc_frametype_has_keyframe: an H.264 IDR slice,
 * plain, in a STAP-A or a FU-A; a VP8 key frame's start, P bit clear): a
 * key frame arriving answers a request, so an unanswered one is repeated
 * (the planner's keyframe_feedback, rule 6 of repair.h) and a loss before
 * the key frame's first packet is no longer repaired. Both payload formats
 * set the marker on a frame's last packet, so the planner's tail probe
 * (rule 1 of repair.h) is on too.
 *
 * FEC. Packets of fec_pt are read as this library's FEC (gst/rtpcc/fec/,
 * on an SSRC of their own) or, on the media SSRC, as RFC 5109 ULPFEC;
 * the planner learns which media packets each protects and how many
 * repair packets of the block are in, so it neither NACKs what FEC will
 * rebuild nor waits for FEC that cannot help (rule 2 of repair.h). The
 * FEC packets are passed on untouched (fecdec downstream decodes them).
 *
 * RTX packets whose original is no longer missing — it arrived, was
 * already restored, or was given up at its playout deadline — are dropped
 * and counted (rtx_duplicate, rtx_late): downstream would have to drop
 * them anyway, and a late one would be played out of order.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_RTX_RECEIVER_H__
#define __RTPCC_RTX_RECEIVER_H__

#include <rtpcc/common.h>
#include <rtpcc/repair.h>
#include <rtpcc/frametype.h>

G_BEGIN_DECLS

#define RTPCC_RTX_RECEIVER_MEDIA_TIMEOUT RTPCC_SEC (2)

typedef enum
{
  RTPCC_KEYFRAME_REQUEST_NONE = 0,
  RTPCC_KEYFRAME_REQUEST_PLI = 1,
  RTPCC_KEYFRAME_REQUEST_FIR = 2,
} RtpccKeyframeRequest;

typedef struct
{
  gboolean nack;                /* send NACKs (default FALSE) */
  RtpccKeyframeRequest keyframe;        /* default NONE */
  guint8 rtx_pt;                /* 0 = no RTX expected (default) */
  guint32 rtx_ssrc;             /* 0 = learnt */
  guint32 media_ssrc;           /* 0 = learnt */
  RtpccSendbufCodec codec;      /* key-frame detection, default OTHER
                                 * (none: keyframe_feedback and
                                 * tail_probe stay off) */
  gint fec_pt;                  /* FEC packets' PT, -1 (default): none */
  RtpccRepairConfig repair;     /* max_nacks is set to 0 without nack;
                                 * keyframe_feedback with a codec;
                                 * fec_downstream with fec_pt */
} RtpccRtxReceiverConfig;

void rtpcc_rtx_receiver_config_init (RtpccRtxReceiverConfig * config);

typedef struct
{
  guint64 nacks_sent;           /* NACK packets written */
  guint64 nacked_packets;       /* seqs in them, retries included */
  guint64 rtx_received;         /* packets on the RTX SSRC / PT */
  guint64 rtx_recovered;        /* ... restored and passed on */
  guint64 rtx_duplicate;        /* ... for a packet already there */
  guint64 rtx_late;             /* ... past the original's deadline */
  guint64 rtx_invalid;          /* ... no OSN, or before any media */
  guint64 plis_sent, firs_sent;
  guint64 keyframe_requests_downstream; /* on_keyframe_request calls */
  guint64 fec_packets;          /* fec_pt packets about the media SSRC */
  guint64 fec_invalid;          /* fec_pt packets that did not parse */
  RtpccRepairStats repair;      /* the planner's own */
} RtpccRtxReceiverStats;

typedef struct _RtpccRtxReceiver RtpccRtxReceiver;

/* NULL and @error on an invalid configuration. */
RtpccRtxReceiver *rtpcc_rtx_receiver_new (const RtpccRtxReceiverConfig *
    config, GError ** error);
void rtpcc_rtx_receiver_free (RtpccRtxReceiver * receiver);

typedef enum
{
  RTPCC_RTX_RECEIVER_PASS = 0,  /* a media (or other) packet: pass it on */
  RTPCC_RTX_RECEIVER_RESTORED,  /* an RTX packet: pass on @out instead */
  RTPCC_RTX_RECEIVER_DROP,      /* an RTX packet not to pass on (counted) */
} RtpccRtxReceiverVerdict;

/* An RTP packet arrived at @now: @data its first @len bytes of @size (all
 * of it; a simulator may give only the header of a packet with a virtual
 * payload). For RESTORED, @out (@max bytes; @len always suffices) holds
 * the original's first @len − 2 bytes and *@out_len their number. */
RtpccRtxReceiverVerdict rtpcc_rtx_receiver_on_rtp (RtpccRtxReceiver *
    receiver, RtpccTime now, const guint8 * data, gsize len, gsize size,
    guint8 * out, gsize max, gsize * out_len);

/* Downstream (e.g. a decoder) asks for a key frame. */
void rtpcc_rtx_receiver_on_keyframe_request (RtpccRtxReceiver * receiver,
    RtpccTime now);

/* The media stream's losses being repaired now (rtpcc_repair_get_missing)
 * and, for one of them, that it arrived by another path (a multipath
 * stream's merge has it): rtpcc_repair_on_recovered_elsewhere. */
guint rtpcc_rtx_receiver_get_missing (RtpccRtxReceiver * receiver,
    guint16 * seqs, guint max);
gboolean rtpcc_rtx_receiver_recovered_elsewhere (RtpccRtxReceiver *
    receiver, RtpccTime now, guint16 seq);
/* The media SSRC, 0 before it is known. */
guint32 rtpcc_rtx_receiver_get_media_ssrc (RtpccRtxReceiver * receiver);

/* The playout delay downstream applies (the planner's deadline). */
void rtpcc_rtx_receiver_set_playout_delay (RtpccRtxReceiver * receiver,
    RtpccTime delay);

/* The feedback due at @now from @sender_ssrc (our RTCP SSRC): NACK then
 * PLI / FIR, back to back (RTCP packets to go into a compound, or alone
 * as a reduced-size one, RFC 5506). 0 if none is due or @max is too
 * small (the request is then lost: 1500 bytes always suffice). */
gsize rtpcc_rtx_receiver_build (RtpccRtxReceiver * receiver, RtpccTime now,
    guint32 sender_ssrc, guint8 * buf, gsize max);
/* When build() next may have something (RTPCC_TIME_INFINITE: nothing). */
RtpccTime rtpcc_rtx_receiver_next_timeout (RtpccRtxReceiver * receiver);

void rtpcc_rtx_receiver_get_stats (RtpccRtxReceiver * receiver,
    RtpccRtxReceiverStats * stats);

G_END_DECLS

#endif

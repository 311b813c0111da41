/* A receiver's maximum rate, as the media sender obeys it: RFC 5104
 * TMMBR (answered with a TMMBN carrying the bounding set) and REMB
 * (draft-alvestrand-rmcat-remb-03, which deployed WebRTC receivers send).
 * The sender aims at min (its controller's target, the lowest TMMBR
 * bounding value, the latest REMB naming one of its SSRCs).
 *
 * A TMMBR stays in force until withdrawn (RFC 5104 has the receiver
 * repeat or withdraw it). A REMB has no withdrawal: a receiver that stops
 * estimating, or leaves, just stops sending it. So a REMB limit lapses
 * once RTPCC_RATE_CAP_REMB_TIMEOUT passes with no REMB naming our SSRC.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_RATECAP_H__
#define __RTPCC_RATECAP_H__

#include <rtpcc/common.h>
#include <rtpcc/controller.h>

G_BEGIN_DECLS

/* A TMMBR of this value or more withdraws its requester's maximum. */
#define RTPCC_RATE_CAP_NONE (G_GUINT64_CONSTANT (1) << 62)

/* A REMB sender repeats its estimate with every RTCP report (about once
 * a second for video, and sooner when the estimate drops). Five missed
 * reports is RFC 3550 §6.3.5's rule for a participant that has gone
 * quiet; it also rides out a few RTCP compounds lost on a congested
 * path without lifting the cap in the middle of the congestion. */
#define RTPCC_RATE_CAP_REMB_TIMEOUT RTPCC_SEC (5)

typedef struct
{
  guint64 tmmbr_received;       /* TMMBRs about our media SSRC */
  guint64 tmmbn_sent;
  guint64 remb_received;        /* REMBs naming one of our SSRCs */
  guint64 malformed;            /* TMMBR / REMB that did not parse: dropped */
  guint64 tmmbr_limit;          /* bit/s, G_MAXUINT64 without requests */
  guint64 remb_limit;           /* bit/s, G_MAXUINT64 without a REMB in
                                 * force */
  guint64 remb_expired;         /* REMB limits lapsed for silence */
} RtpccRateCapStats;

typedef struct _RtpccRateCap RtpccRateCap;

/* @media_ssrc: the stream TMMBRs are about and whose SSRC answers with the
 * TMMBN; 0 until rtpcc_rate_cap_set_ssrc. */
RtpccRateCap *rtpcc_rate_cap_new (guint32 media_ssrc);
void rtpcc_rate_cap_free (RtpccRateCap * cap);
void rtpcc_rate_cap_set_ssrc (RtpccRateCap * cap, guint32 media_ssrc);
guint32 rtpcc_rate_cap_get_ssrc (const RtpccRateCap * cap);

/* One RTCP compound from the receiver, arrived at @now. TRUE if it held
 * a TMMBR about our media SSRC or a REMB naming it (the limit may have
 * changed). */
gboolean rtpcc_rate_cap_receive (RtpccRateCap * cap, RtpccTime now,
    const guint8 * data, gsize len);
/* Lifts a REMB limit no REMB has renewed for RTPCC_RATE_CAP_REMB_TIMEOUT
 * up to @now. TRUE if it lifted one (the limit may have changed). */
gboolean rtpcc_rate_cap_expire (RtpccRateCap * cap, RtpccTime now);

/* The limit in force (bit/s), G_MAXUINT64 if none. */
guint64 rtpcc_rate_cap_limit (const RtpccRateCap * cap);
/* Lowers @target to the limit: the total to it, media, FEC and pacing by
 * the same factor; the reason names the message. TRUE if it lowered it.
 * The limit is the receiver's hard maximum: it applies below the
 * configured min-bitrate too. */
gboolean rtpcc_rate_cap_apply (const RtpccRateCap * cap, RtpccTarget * target);

/* TRUE while a TMMBN is owed (each TMMBR gets one, RFC 5104 §3.5.4.1). */
gboolean rtpcc_rate_cap_tmmbn_due (const RtpccRateCap * cap);
/* Writes the owed TMMBN (sender SSRC = the media SSRC) and clears the
 * debt; 0 if none is owed or it does not fit. */
gsize rtpcc_rate_cap_write_tmmbn (RtpccRateCap * cap, guint8 * buf,
    gsize max);

const RtpccRateCapStats *rtpcc_rate_cap_get_stats (const RtpccRateCap * cap);

G_END_DECLS

#endif

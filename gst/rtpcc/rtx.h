/* RTP retransmission (RFC 4588) in SSRC-multiplexed form, sans I/O: the
 * RTX packet format, and the sender's history of sent packets that
 * answers NACKs.
 *
 * Format (RFC 4588 §4). An RTX packet is the original packet with its own
 * SSRC, payload type and sequence number (the RTX stream's: one higher
 * for each RTX packet sent), and the original sequence number (OSN) as
 * the first two payload bytes:
 *
 *   original:  | V P X CC M PT | seq | ts | SSRC | CSRCs | ext | payload | pad |
 *   RTX:       | V 0 X CC M PT'| seq'| ts | SSRC'| CSRCs | ext | OSN | payload |
 *
 * Timestamp, marker, the CSRC list and the header extension are kept as
 * they were; the original's RTP padding is removed and the P bit cleared
 * (the RFC: padding "MUST be removed"; an RTX packet that needs padding
 * pads itself). This is what GStreamer's rtprtxsend sends and
 * rtprtxreceive restores (given the RTX SSRC → media SSRC and RTX PT →
 * media PT maps, its "ssrc-map" and "payload-type-map", the SDP's
 * ssrc-group FID and apt=), and what libwebrtc exchanges. An RTX packet
 * without an OSN (payload under two bytes: libwebrtc's padding-only
 * bandwidth probes on the RTX SSRC) restores nothing.
 *
 * History. The sender keeps a copy of every media packet it sends, keyed
 * by (SSRC, seq), for max_age (the window in which a retransmission can
 * still be played: a receiver plays a packet within its playout delay of
 * the capture, so older ones are dropped) and within max_bytes (oldest
 * dropped first; every entry is charged its bytes plus a fixed overhead).
 * A request is answered only if
 *   - the packet is still held;
 *   - its retransmission can still arrive within max_age of the original
 *     send: now + RTT/2 < sent + max_age;
 *   - it was not retransmitted within the last RTT: a second NACK for the
 *     same packet inside one RTT was sent before the first retransmission
 *     could have arrived (a retry crossing it, or duplicate FCIs), and
 *     answering it would only double the repair traffic (libwebrtc's
 *     packet history applies the same rule);
 *   - the retransmissions granted over the last RTPCC_RTX_RATE_WINDOW stay
 *     within the caller's rate limit (e.g. the controller's target, so
 *     that a loss burst cannot make repair traffic exceed what the path
 *     was judged to carry).
 * Times are the caller's (the send time passed to put, the request time
 * to request): nothing here reads a clock.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_RTX_H__
#define __RTPCC_RTX_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* ---- format ------------------------------------------------------------ */

/* Bytes the OSN adds: an RTX packet is at most the original + 2. */
#define RTPCC_RTX_OSN_SIZE 2

/* Writes into @out (@max bytes, not overlapping @orig) the RTX packet of
 * the RTP packet @orig. Returns its length, or 0 if @orig is not valid RTP
 * (rtpcc_rtp_parse_layout), @rtx_pt is over 127, or @max is too small
 * (@len + 2 always suffices). */
gsize rtpcc_rtx_build (const guint8 * orig, gsize len, guint32 rtx_ssrc,
    guint8 rtx_pt, guint16 rtx_seq, guint8 * out, gsize max);

/* Restores into @out (@max bytes, not overlapping @rtx) the original of
 * the RTX packet @rtx: seq = OSN, SSRC = @media_ssrc, PT = @media_pt,
 * payload without the OSN, no padding. Returns its length (@len − 2 at
 * most), or 0 and @error (RTPCC_ERROR_PARSE) if @rtx is not valid RTP or
 * carries no OSN, or (RTPCC_ERROR_INVALID) if @media_pt is over 127 or
 * @max is too small. */
gsize rtpcc_rtx_restore (const guint8 * rtx, gsize len, guint32 media_ssrc,
    guint8 media_pt, guint8 * out, gsize max, GError ** error);

/* ---- history ----------------------------------------------------------- */

#define RTPCC_RTX_RATE_WINDOW RTPCC_SEC (1)
/* what an unknown RTT (RTPCC_TIME_NONE or <= 0) is taken to be */
#define RTPCC_RTX_DEFAULT_RTT RTPCC_MSEC (100)
/* bytes charged per entry on top of the packet */
#define RTPCC_RTX_ENTRY_OVERHEAD 64

typedef struct
{
  RtpccTime max_age;            /* default 1 s */
  gsize max_bytes;              /* default 4 MiB */
} RtpccRtxHistoryConfig;

void rtpcc_rtx_history_config_init (RtpccRtxHistoryConfig * config);

typedef enum
{
  RTPCC_RTX_SEND = 0,           /* retransmit it now */
  RTPCC_RTX_UNKNOWN,            /* not held: never sent, or dropped */
  RTPCC_RTX_TOO_OLD,            /* would arrive past max_age */
  RTPCC_RTX_TOO_SOON,           /* retransmitted less than one RTT ago */
  RTPCC_RTX_RATE_LIMITED,       /* over the retransmission rate limit */
} RtpccRtxVerdict;

const gchar *rtpcc_rtx_verdict_name (RtpccRtxVerdict verdict);

typedef struct
{
  guint packets;                /* held now */
  gsize bytes;                  /* held now, overhead included */
  guint64 stored;               /* packets put */
  guint64 invalid;              /* put refused: not valid RTP */
  guint64 replaced;             /* put over a held (SSRC, seq) */
  guint64 expired;              /* dropped at max_age */
  guint64 evicted;              /* dropped for max_bytes */
  guint64 requests;
  guint64 retransmitted, retransmitted_bytes;
  guint64 unknown, too_old, too_soon, rate_limited;
} RtpccRtxHistoryStats;

typedef struct _RtpccRtxHistory RtpccRtxHistory;

RtpccRtxHistory *rtpcc_rtx_history_new (const RtpccRtxHistoryConfig *
    config);
void rtpcc_rtx_history_free (RtpccRtxHistory * history);

/* Keeps a copy of the RTP packet @pkt sent at @now (non-decreasing over
 * calls); its SSRC and seq are read from it. A held packet with the same
 * SSRC and seq (the seq space wrapped within max_age) is replaced. FALSE
 * (counted in invalid) if @pkt is not valid RTP. */
gboolean rtpcc_rtx_history_put (RtpccRtxHistory * history, RtpccTime now,
    const guint8 * pkt, gsize len);

/* A NACK at @now asks for (@ssrc, @seq). RTPCC_RTX_SEND: *@pkt/@len
 * point at the held original (valid until the next call on @history;
 * build the RTX packet from it with rtpcc_rtx_build()), and the packet
 * counts as retransmitted at @now. @rtt: the sender's current estimate
 * (RTPCC_TIME_NONE: RTPCC_RTX_DEFAULT_RTT). @max_bitrate: retransmitted
 * bits per second allowed over RTPCC_RTX_RATE_WINDOW (counted at the
 * originals' sizes), 0 for no limit. */
RtpccRtxVerdict rtpcc_rtx_history_request (RtpccRtxHistory * history,
    RtpccTime now, guint32 ssrc, guint16 seq, RtpccTime rtt,
    guint64 max_bitrate, const guint8 ** pkt, gsize * len);

/* Drops what is past max_age at @now (put and request do it too). */
void rtpcc_rtx_history_expire (RtpccRtxHistory * history, RtpccTime now);
void rtpcc_rtx_history_get_stats (RtpccRtxHistory * history,
    RtpccRtxHistoryStats * stats);

G_END_DECLS

#endif

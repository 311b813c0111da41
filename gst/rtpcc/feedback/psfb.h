/* Key-frame requests: Picture Loss Indication (RFC 4585 §6.3.1, PSFB
 * FMT 1) and Full Intra Request (RFC 5104 §4.3.1, PSFB FMT 4), build and
 * parse, and what a media sender needs to act on them.
 *
 * PLI: the common feedback header alone, length 2, no FCI; the media
 * source SSRC names the stream whose picture is lost.
 *
 *  |V=2|P|  FMT=1  |    PT=206     |          length = 2           |
 *  |                  SSRC of packet sender                        |
 *  |                  SSRC of media source                         |
 *
 * FIR: the media source field is unused and SHALL be 0 (§4.3.1.2); each
 * 8-byte FCI entry names a media sender and carries a command sequence
 * number. One or more entries.
 *
 *  |V=2|P|  FMT=4  |    PT=206     |          length = 2 + 2n      |
 *  |                  SSRC of packet sender                        |
 *  |                  SSRC of media source (0)                     |
 *  |                  SSRC (of the media sender asked)             |  × n
 *  | Seq nr.       |    Reserved (0)                               |
 *
 * The command sequence number grows by one (mod 256) for each new
 * request; a repetition of a request (the requester heard no key frame
 * yet and asks again) carries the same number (RFC 5104 §4.3.1.2), so the
 * media sender can tell a request it already served from a new one.
 *
 * GStreamer's rtpsession turns both into a GstForceKeyUnit event
 * upstream (all-headers set for a FIR only), for a PLI about an SSRC it
 * sends and for a FIR whose entry names one. Parsers are strict about what the RFCs
 * require (PLI length exactly 2; FIR entries whole and at least one) and
 * liberal about what they do not use (a FIR's media source field and
 * reserved bits are ignored).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_PSFB_H__
#define __RTPCC_FEEDBACK_PSFB_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_PSFB_FMT_PLI 1
#define RTPCC_PSFB_FMT_FIR 4
#define RTPCC_PLI_SIZE 12
/* the 16-bit length field counts 32-bit words minus one */
#define RTPCC_FIR_MAX_ENTRIES ((G_MAXUINT16 - 2) / 2)

/* ---- PLI --------------------------------------------------------------- */

/* Writes a PLI (12 bytes); 0 if @max is smaller. */
gsize rtpcc_pli_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc);
/* Parses exactly one RTCP packet; @sender_ssrc / @media_ssrc may be NULL.
 * FALSE and @error (RTPCC_ERROR_PARSE) unless it is a PSFB FMT 1 of
 * length 2. */
gboolean rtpcc_pli_parse (const guint8 * pkt, gsize len,
    guint32 * sender_ssrc, guint32 * media_ssrc, GError ** error);

/* ---- FIR --------------------------------------------------------------- */

typedef struct
{
  guint32 ssrc;                 /* the media sender asked for a key frame */
  guint8 seq;                   /* command sequence number */
} RtpccFirEntry;

typedef struct
{
  guint32 sender_ssrc;
  guint n_entries;              /* >= 1 */
  RtpccFirEntry *entries;
} RtpccFir;

/* Bytes of a FIR with @n entries; 0 if @n is 0 or over the maximum. */
gsize rtpcc_fir_size (guint n);
/* Writes one FIR (media source 0, reserved bits 0, no padding); returns
 * its size, or 0 if it does not fit or @n is 0 / over the maximum. */
gsize rtpcc_fir_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccFirEntry * entries, guint n);
/* Parses exactly one RTCP packet. NULL and @error (RTPCC_ERROR_PARSE) on a
 * wrong type / FMT / version / length / padding, no entry, or a partial
 * entry. */
RtpccFir *rtpcc_fir_parse (const guint8 * pkt, gsize len, GError ** error);
void rtpcc_fir_free (RtpccFir * fir);

/* ---- the media sender's side ------------------------------------------- */

/* Which FIR entries are new commands: the last sequence number seen from
 * each requester (the 16 most recent requesters). */
#define RTPCC_FIR_TRACKED_REQUESTERS 16

typedef struct
{
  guint n;
  guint next;                   /* slot replaced when full */
  guint32 requester[RTPCC_FIR_TRACKED_REQUESTERS];
  guint8 seq[RTPCC_FIR_TRACKED_REQUESTERS];
} RtpccFirTracker;

void rtpcc_fir_tracker_init (RtpccFirTracker * tracker);
/* TRUE if (@requester_ssrc, @seq) is a new command: the first from this
 * requester or a number other than its last one. Remembers it. */
gboolean rtpcc_fir_tracker_is_new (RtpccFirTracker * tracker,
    guint32 requester_ssrc, guint8 seq);

/* A media sender's key-frame gate: PLIs and new FIRs become a key-frame
 * request upstream (a GstForceKeyUnit event) at most once per
 * max(RTT, RTPCC_KEYFRAME_MIN_INTERVAL). A request that arrives within
 * one RTT of the last one forwarded cannot come from a receiver that has
 * seen the key frame it caused, so it asks for the same thing (several
 * receivers, or PLI and FIR for one loss); and key frames are several
 * times a delta frame's size, so even on a short path they are not made
 * more than about three times a second (libwebrtc's sender passes at
 * most one request per 300 ms to its encoder too; GStreamer's rtpsession
 * drops requests within two RTTs of the last). */
#define RTPCC_KEYFRAME_MIN_INTERVAL RTPCC_MSEC (300)

typedef struct
{
  RtpccTime last;               /* RTPCC_TIME_NONE before the first */
  guint64 passed, suppressed;
} RtpccKeyframeGate;

void rtpcc_keyframe_gate_init (RtpccKeyframeGate * gate);
/* TRUE if a request arriving at @now should be forwarded (and records
 * it); @rtt may be RTPCC_TIME_NONE (unknown: the minimum interval). */
gboolean rtpcc_keyframe_gate_pass (RtpccKeyframeGate * gate, RtpccTime now,
    RtpccTime rtt);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtpccFir, rtpcc_fir_free)

G_END_DECLS

#endif

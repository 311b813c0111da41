/* RtpccProber: bandwidth probes a controller asks for, and the renumbering
 * that probes on a media SSRC need.
 *
 * A controller that wants to test for more capacity publishes the extra
 * bytes as fec_bitrate; the prober then schedules padding-only RTP packets
 * (RFC 3550 §5.1: P bit, no payload) at that rate — unless real FEC from
 * the application flowed within RTPCC_PROBER_FEC_HOLDOFF: that FEC is the
 * probe then, and padding on top would probe twice the rate asked for.
 *
 * Where the padding goes (RtpccProbeSsrcMode):
 *
 * SEPARATE: on an SSRC of its own (probe_ssrc), own sequence space. A
 *   stock rtpbin exposes a pad for that SSRC, and left unlinked its
 *   not-linked return stops the receiver's source.
 * MEDIA: on a media SSRC, like libwebrtc's padding without RTX. The prober
 *   renumbers that SSRC on the wire: wire seq = original seq + offset, the
 *   offset growing by one per padding packet (so upstream gaps stay gaps,
 *   and without padding wire == original). A padding packet takes the next
 *   wire seq, the SSRC, PT and RTP timestamp of the last media packet
 *   sent, marker 0, and goes only after a packet with the marker bit (never
 *   inside a frame). Never on an SSRC that FEC protects by original seqs
 *   (an is_fec packet on it, or note_fec_protected); FEC of our format
 *   (gst/rtpcc/fec/fec.h) about an SSRC renumbered before FEC appeared on
 *   it gets its header rewritten to the wire seqs (rewrite_fec).
 *
 * The prober looks media packets up by original seq in the sender's
 * RtpccSentHistory (made with by_original in MEDIA mode).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PROBER_H__
#define __RTPCC_PROBER_H__

#include <rtpcc/common.h>
#include <rtpcc/packet.h>
#include <rtpcc/rng.h>
#include <rtpcc/senthistory.h>

G_BEGIN_DECLS

typedef enum
{
  RTPCC_PROBE_SSRC_SEPARATE = 0,
  RTPCC_PROBE_SSRC_MEDIA = 1,
} RtpccProbeSsrcMode;

typedef struct
{
  gboolean enabled;
  RtpccProbeSsrcMode mode;
  guint32 ssrc;                 /* SEPARATE: 0 = drawn from the rng */
  guint8 pt;                    /* SEPARATE: 0 = the first media PT */
  guint packet_size;            /* a probe on the wire, 0 =
                                 * RTPCC_PROBE_PACKET_SIZE (more with a
                                 * header extension) */
} RtpccProberConfig;

/* Real FEC queued this recently is the probe: no padding meanwhile. */
#define RTPCC_PROBER_FEC_HOLDOFF RTPCC_SEC (1)

/* Bytes of padding in a probe packet; with the 12-byte header a probe is
 * RTPCC_PROBE_PACKET_SIZE on the wire (before any header extension). */
#define RTPCC_PROBE_PADDING 255
#define RTPCC_PROBE_PACKET_SIZE (12 + RTPCC_PROBE_PADDING)

typedef struct
{
  guint64 probe_packets, probe_bytes;   /* padding sent */
  guint64 probe_media_packets;  /* of those, on a media SSRC */
  guint64 fec_rewritten, fec_rewrite_drops;     /* see rewrite_fec */
} RtpccProberStats;

typedef struct _RtpccProber RtpccProber;

/* Draws the SEPARATE SSRC (if 0), its first seq and timestamp from @rng. */
RtpccProber *rtpcc_prober_new (const RtpccProberConfig * config,
    RtpccSentHistory * history, RtpccRng * rng);
void rtpcc_prober_free (RtpccProber * prober);

/* A packet was queued (FEC on an SSRC, or anywhere recently, holds the
 * padding off). */
void rtpcc_prober_on_enqueue (RtpccProber * prober, RtpccTime now,
    const RtpccRtpInfo * info);
/* FEC queued from now on protects @ssrc by its original seqs: it is never
 * padded again. An SSRC never queued is ignored. */
void rtpcc_prober_note_fec_protected (RtpccProber * prober, guint32 ssrc);

/* The wire seq of a queued packet going out now (MEDIA mode renumbers;
 * else its own seq), remembering where the next padding may go. A packet
 * older than the newest sent on its SSRC (an upstream duplicate, or one
 * reordered upstream) takes the wire seq it had, or the slot it would have
 * had, and does not move where padding goes. */
guint16 rtpcc_prober_wire_seq (RtpccProber * prober, const RtpccRtpInfo *
    info);

/* Whether a probe is wanted at @now given the published @fec_bitrate,
 * while sending is not @blocked (a tripped circuit breaker). */
gboolean rtpcc_prober_wanted (const RtpccProber * prober, RtpccTime now,
    guint64 fec_bitrate, gboolean blocked);
/* When the next probe is due (RTPCC_TIME_NONE: none wanted). */
RtpccTime rtpcc_prober_next_time (const RtpccProber * prober, RtpccTime now,
    guint64 fec_bitrate, gboolean blocked);
/* The probe packet to send now, if one is due: fills @info (ssrc, seq,
 * rtp_ts, pt, clock_rate, size packet_size, is_fec and
 * padding_only TRUE, marker FALSE) and schedules the next. The caller puts
 * it on the wire and records it. FALSE if none is due (in MEDIA mode also
 * while the last media packet did not end a frame). */
gboolean rtpcc_prober_next_probe (RtpccProber * prober, RtpccTime now,
    guint64 fec_bitrate, gboolean blocked, RtpccRtpInfo * info);

/* The wire seq of the media packet queued on @ssrc with original seq
 * @orig_seq (sent, or else at the current offset). FALSE if @ssrc was
 * never renumbered (wire == original) or is unknown. */
gboolean rtpcc_prober_map_seq (RtpccProber * prober, guint32 ssrc,
    guint16 orig_seq, guint16 * wire_seq);

/* FEC packets of our format name the protected packets by their original
 * seqs (SN base + mask). Where padding renumbered the protected SSRC
 * (before FEC appeared on it: after, no padding goes there), rewrite_fec
 * reads @rtp (the whole FEC packet) and writes into @fec_header (a copy of
 * its FEC header, RTPCC_FEC_HEADER_LEN bytes) the SN base and mask of the
 * wire seqs the protected packets went out with, or will: once
 * note_fec_protected named their SSRC its offset is fixed, so the header
 * can be rewritten as the FEC packet is queued. Renumbering is monotonic,
 * so the protected packets' order, and with it the Reed-Solomon symbol
 * order, is kept. A set that no longer fits the 48-bit mask must be
 * dropped: parity over the wrong packets would "recover" garbage. Other
 * packets (e.g. ULPFEC, whose SSRC is never padded) are KEPT as they are. */
typedef enum
{
  RTPCC_PROBER_FEC_KEPT = 0,
  RTPCC_PROBER_FEC_REWRITTEN = 1,
  RTPCC_PROBER_FEC_DROP = 2,    /* counted in fec_rewrite_drops */
} RtpccProberFecResult;

/* FALSE while no SSRC was renumbered: rewrite_fec would keep everything */
gboolean rtpcc_prober_fec_needs_rewrite (const RtpccProber * prober);
RtpccProberFecResult rtpcc_prober_rewrite_fec (RtpccProber * prober,
    const guint8 * rtp, gsize len, guint8 * fec_header);

const RtpccProberStats *rtpcc_prober_get_stats (const RtpccProber * prober);

G_END_DECLS

#endif

/* RtpccReceiver: the receiving endpoint, sans I/O. It logs every RTP
 * arrival, keeps RFC 3550 reception statistics, and builds the feedback the
 * sender's controller needs: RFC 8888 CCFB at a per-frame interval (bounded)
 * and RTCP RR at the RTCP interval.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_RECEIVER_H__
#define __RTPCC_RECEIVER_H__

#include <rtpcc/common.h>
#include <rtpcc/packet.h>
#include <rtpcc/peer.h>

G_BEGIN_DECLS

/* RTCP XR report blocks (feedback/xr.h) the receiver sends with each
 * regular report, one block of each kind per media source:
 *  DISCARD_RLE      RFC 7097, the packets marked discarded (as always);
 *  LOSS_RLE         RFC 3611 §4.1, arrivals since the previous report;
 *  POST_REPAIR_RLE  RFC 5725, the same range after repair: received or
 *                   marked repaired (rtpcc_receiver_mark_repaired);
 *  DELAY            RFC 6843, I = interval: min / mean / max round trip
 *                   of the samples since the previous report,
 *                   "unavailable" without one; the end-system delay is
 *                   always unavailable. The samples: each report also
 *                   carries an RFC 3611 Receiver Reference Time block,
 *                   which a media sender answers with a DLRR block (the
 *                   round trip as from LSR / DLSR), and any the
 *                   application gives (rtpcc_receiver_add_rtt);
 *  DISCARD_COUNT    RFC 7002, I = cumulative, DT = late: packets marked
 *                   discarded since the source started;
 *  BYTES_DISCARDED  RFC 7243, I = cumulative, E = 0: their payload bytes
 *                   (packet size − the 12-byte fixed RTP header);
 *  DEJITTER         RFC 7005, I = sampled: the nominal and maximum delay
 *                   rtpcc_receiver_set_dejitter last gave, the high- and
 *                   low-water marks of every update since the previous
 *                   block (not sent before the first update).
 * The RLE blocks cover at most RTPCC_RECEIVER_XR_RLE_MAX packets each. */
typedef enum
{
  RTPCC_RECEIVER_XR_DISCARD_RLE = 1 << 0,
  RTPCC_RECEIVER_XR_LOSS_RLE = 1 << 1,
  RTPCC_RECEIVER_XR_POST_REPAIR_RLE = 1 << 2,
  RTPCC_RECEIVER_XR_DELAY = 1 << 3,
  RTPCC_RECEIVER_XR_DISCARD_COUNT = 1 << 4,
  RTPCC_RECEIVER_XR_BYTES_DISCARDED = 1 << 5,
  RTPCC_RECEIVER_XR_DEJITTER = 1 << 6,
} RtpccReceiverXrBlocks;

#define RTPCC_RECEIVER_XR_ALL 0x7f
#define RTPCC_RECEIVER_XR_RLE_MAX 1024

typedef struct
{
  RtpccFeedbackMode feedback;
  /* CCFB interval; 0 = adaptive: one per video frame interval (from marker
   * bits), bounded to [min, max] */
  RtpccTime feedback_interval;
  RtpccTime feedback_min, feedback_max;  /* default 20 ms, 100 ms */
  RtpccTime rtcp_interval;      /* RR interval (randomised ±50 %), default 1 s */
  RtpccTime ntp_offset;
  guint32 ssrc;                 /* our RTCP SSRC; 0 = drawn from the seed */
  const gchar *cname;
  guint64 seed;
  /* early feedback on late discards (RFC 4585 §3.5.2 as FBRA uses it):
   * the first discard marked brings the next RR (+XR) forward to now, at
   * most once per two regular intervals, so a burst of discards cannot turn
   * RTCP into a flood (RFC 4585 §3.5.3's spirit). Default FALSE. */
  gboolean early_discard_feedback;
  /* a media sender's report-interval request (feedback/reportinterval.h)
   * shortens the RR interval to what it asks, within
   * [RTPCC_RECEIVER_MIN_REPORT_INTERVAL, rtcp_interval]: the sender's
   * controller knows what it needs. Default TRUE. */
  gboolean honour_interval_requests;
  /* RtpccReceiverXrBlocks to send; default RTPCC_RECEIVER_XR_DISCARD_RLE */
  guint xr_blocks;
  /* receiver-side estimate (rembestimator.h) of the first media stream,
   * sent as REMB with every RR, and at once after a cut (within
   * RTPCC_RECEIVER_MIN_REPORT_INTERVAL of the last RR). Default FALSE. */
  gboolean remb;
  /* C-NADU (naduestimator.h): the receiver judges each frame of the first
   * media stream against its playout delay (nadu_playout_delay, 200 ms)
   * and sends, with every RR, a NADU APP packet (3GPP TS 26.234) and its
   * estimate as a REMB (unless remb, whose REMB goes instead). Default
   * FALSE. */
  gboolean nadu;
  RtpccTime nadu_playout_delay;
} RtpccReceiverConfig;

/* no request brings regular reports closer than this */
#define RTPCC_RECEIVER_MIN_REPORT_INTERVAL RTPCC_MSEC (100)

void rtpcc_receiver_config_init (RtpccReceiverConfig * config);

typedef struct
{
  guint64 packets_received, bytes_received;
  guint64 packets_lost;         /* RFC 3550 cumulative, all sources */
  guint64 duplicates;
  guint64 stale;                /* older than the arrival log, or a sequence
                                 * restart not yet confirmed */
  guint64 rtcp_received, rtcp_malformed, rtcp_sent, feedback_sent;
  /* well-formed RTCP about no source we receive (an SR of an SSRC never
   * seen): dropped */
  guint64 rtcp_unknown_ssrc;
  /* on_*_from: the peer (peer.h) moved; RTP packets and RTCP compounds
   * refused because they did not come from it */
  guint64 peer_changes, peer_refused, rtcp_wrong_source;
  guint sources;                /* SSRCs tracked (at most RTPCC_RECEIVER_MAX_SOURCES) */
  guint media_sources;          /* ... of which carried payload */
  /* sources dropped to make room for a new one (see
   * RTPCC_RECEIVER_MAX_SOURCES); packets of SSRCs that found the table full
   * of established live streams (counted in packets_received, else
   * ignored) */
  guint64 sources_evicted, packets_untracked;
  guint64 receive_rate;         /* bit/s over the last second */
  RtpccTime feedback_interval;  /* currently used */
  /* late discards marked by the application (playout), reported in RTCP
   * XR Discard RLE blocks (RFC 7097); rejected = unknown SSRC, count 0,
   * or over the per-source backlog */
  guint64 discards_marked, discards_reported, discards_rejected;
  guint64 early_feedback;       /* RRs brought forward for discards */
  /* MPRTCP subflow reports sent (rtpcc_receiver_set_mprtp_subflow) */
  guint64 mprtcp_sent;
  RtpccTime report_interval;    /* RR interval in use (before randomisation) */
  guint64 interval_requests;    /* report-interval requests from a source */
  /* our maximum rate (rtpcc_receiver_set_max_bitrate): TMMBRs sent, the
   * sender's TMMBNs received */
  guint64 tmmbr_sent, tmmbn_received;
  gboolean max_bitrate_acked;   /* a TMMBN showed the request in force */
  /* XR blocks other than Discard RLE sent (xr_blocks); repairs marked;
   * packets a Loss RLE could not cover (the receiver fell more than
   * RTPCC_RECEIVER_XR_RLE_MAX behind between two reports) */
  guint64 xr_blocks_sent, repairs_marked, xr_rle_skipped;
  /* repairs refused (unknown SSRC, too far from the newest packet, or
   * in a range already reported); de-jitter updates refused (unknown
   * SSRC, no nominal delay, negative values, low above high) */
  guint64 repairs_rejected, dejitter_rejected;
  /* round trips from the media sender's RTCP XR DLRR answers */
  guint64 xr_rtt_samples;
  /* config remb: REMBs sent, the estimate (bit/s), the over-uses the
   * estimator detected and its cuts */
  guint64 remb_sent, remb_estimate, remb_overuses, remb_decreases;
  /* config nadu: NADU packets sent, the C-NADU estimate (bit/s), frames
   * judged late and missed */
  guint64 nadu_sent, nadu_estimate, nadu_frames_late, nadu_frames_missed;
} RtpccReceiverStats;

typedef struct _RtpccReceiver RtpccReceiver;

RtpccReceiver *rtpcc_receiver_new (const RtpccReceiverConfig * config,
    RtpccTime now);
void rtpcc_receiver_free (RtpccReceiver * receiver);

/* At most this many SSRCs are tracked. A new SSRC that finds the table
 * full takes the place of one silent for RTPCC_RECEIVER_SOURCE_TIMEOUT
 * (RFC 3550 §6.3.5's participant that left), else of the one with the
 * fewest packets. A live stream that has sent RTPCC_RECEIVER_ESTABLISHED
 * packets is never evicted: a peer spraying SSRCs only churns its own
 * one-off entries and cannot push the session's media out (nor keep a new
 * stream from being tracked). */
#define RTPCC_RECEIVER_MAX_SOURCES 16
#define RTPCC_RECEIVER_ESTABLISHED 64
#define RTPCC_RECEIVER_SOURCE_TIMEOUT RTPCC_SEC (30)

/* Logs the packet for feedback and statistics. Returns whether the
 * application should pass it on: FALSE only for a padding-only packet
 * (@info->padding_only) on an SSRC that never carried payload — a
 * bandwidth probe on an SSRC of its own, nothing to decode, and an SSRC
 * downstream never saw. A probe on a media SSRC holds a sequence number of
 * that stream and is passed on, so downstream sees no gap. The packet is
 * taken as coming from the sender: a caller with a socket uses
 * rtpcc_receiver_on_rtp_from(). */
gboolean rtpcc_receiver_on_rtp (RtpccReceiver * receiver, RtpccTime now,
    const RtpccRtpInfo * info);
/* RTCP from the sender (SR for LSR/DLSR). FALSE if dropped (counted). */
gboolean rtpcc_receiver_on_rtcp (RtpccReceiver * receiver, RtpccTime now,
    const guint8 * data, gsize len);
/* The most we want to receive, in bit/s (0: no maximum): sent to the media
 * sources as an RFC 5104 TMMBR with the next RR, brought forward to @now,
 * and with each RR after until the sender's TMMBN shows it in force. A
 * media sender that supports it keeps its total rate at or below it. 0
 * after a maximum withdraws it (a TMMBR no rate reaches). */
void rtpcc_receiver_set_max_bitrate (RtpccReceiver * receiver, RtpccTime now,
    guint64 bitrate);
/* This receiver sees one path (subflow @subflow_id) of a multipath stream
 * (draft-ietf-avtcore-mprtp), its packets handed over numbered by their
 * subflow sequence numbers (FSSN): from now on every regular report also
 * carries, after the RR, an MPRTCP subflow report (PT 211, mprtp/ext.h)
 * per source numbered by FSSN (the source of the next packet handed over
 * after each call: call it before each such packet, or once before the
 * first when only that source is) with the same report block and the source's
 * cumulative count of packets marked discarded, so that the path's sender
 * learns this path's own loss and discards by subflow. */
void rtpcc_receiver_set_mprtp_subflow (RtpccReceiver * receiver,
    guint16 subflow_id);
guint64 rtpcc_receiver_get_max_bitrate (const RtpccReceiver * receiver);
/* config nadu: the application's playout buffer at @now (it plays @ssrc's
 * packet @next_seq in @next_in): the NADU reports it instead of the
 * estimator's model buffer while it is fresh (RTPCC_RECEIVER_NADU_FRESH),
 * the playout delay counted down to the report. FALSE (ignored) for
 * another SSRC than the one estimated, or a negative @next_in. */
#define RTPCC_RECEIVER_NADU_FRESH RTPCC_SEC (1)
gboolean rtpcc_receiver_set_nadu_next (RtpccReceiver * receiver,
    RtpccTime now, guint32 ssrc, guint16 next_seq, RtpccTime next_in);

typedef enum
{
  RTPCC_RECEIVER_PASS = 0,      /* logged; pass it on */
  RTPCC_RECEIVER_CONSUMED,      /* logged for feedback only (a probe on an
                                 * SSRC of its own, see on_rtp) */
  RTPCC_RECEIVER_REFUSED,       /* not from the peer: dropped unlogged,
                                 * counted in peer_refused */
} RtpccReceiverVerdict;

/* The same for a packet that arrived from @from (the caller's address
 * bytes): the peer (peer.h) decides first whether it is taken at all;
 * feedback goes to rtpcc_receiver_get_peer(). */
RtpccReceiverVerdict rtpcc_receiver_on_rtp_from (RtpccReceiver * receiver,
    RtpccTime now, const RtpccRtpInfo * info, const RtpccAddress * from);
/* RTCP from @from: refused (rtcp_wrong_source) unless from the peer, or
 * before there is one. */
gboolean rtpcc_receiver_on_rtcp_from (RtpccReceiver * receiver,
    RtpccTime now, const guint8 * data, gsize len, const RtpccAddress * from);
/* Where feedback goes (on_*_from): NULL until a peer is established. */
const RtpccAddress *rtpcc_receiver_get_peer (const RtpccReceiver * receiver);

/* @count packets from @seq on (RTP seq, wrapping) of @ssrc arrived but
 * were discarded as too late to play. They go to the sender in the next
 * regular report as an RFC 7097 Discard RLE block (E = 0), so a controller
 * that counts late packets against its goodput (FBRA) sees them. FALSE
 * (counted in discards_rejected) for an SSRC never received, or @count 0;
 * at most RTPCC_RECEIVER_MAX_DISCARDS wait per source. */
#define RTPCC_RECEIVER_MAX_DISCARDS 4096
gboolean rtpcc_receiver_mark_discarded (RtpccReceiver * receiver,
    RtpccTime now, guint32 ssrc, guint16 seq, guint count);

/* @ssrc's packet @seq, lost on the way, was restored by repair (RTX,
 * FEC): the Post-repair Loss RLE reports it received. FALSE (counted in
 * repairs_rejected) for an SSRC never received, a @seq more than
 * RTPCC_RECEIVER_REPAIR_BEHIND before or RTPCC_RECEIVER_REPAIR_AHEAD
 * after the newest packet, or one a Post-repair RLE already covered. */
#define RTPCC_RECEIVER_REPAIR_BEHIND 4096
#define RTPCC_RECEIVER_REPAIR_AHEAD 256
gboolean rtpcc_receiver_mark_repaired (RtpccReceiver * receiver,
    RtpccTime now, guint32 ssrc, guint16 seq);
/* A round-trip time sample the receiver learnt (e.g. NACK → RTX), for
 * the XR Delay Metrics block. */
void rtpcc_receiver_add_rtt (RtpccReceiver * receiver, RtpccTime rtt);
/* The de-jitter buffer's state for @ssrc (RFC 7005): nominal, maximum,
 * high- and low-water delay since the previous update, RTPCC_TIME_NONE
 * where not known (water marks: the nominal delay). Updates accumulate
 * until the next XR block. FALSE (counted in dejitter_rejected) for an
 * SSRC never received, @nominal NONE, a negative value or @low_water
 * above @high_water. */
gboolean rtpcc_receiver_set_dejitter (RtpccReceiver * receiver,
    guint32 ssrc, gboolean adaptive, RtpccTime nominal, RtpccTime maximum,
    RtpccTime high_water, RtpccTime low_water);
/* Forgets @ssrc's de-jitter state, marks included (an estimate that a
 * real buffer's state replaces): no block until the next update. */
void rtpcc_receiver_clear_dejitter (RtpccReceiver * receiver, guint32 ssrc);

/* When feedback is next due (RTPCC_TIME_NONE before any media). */
RtpccTime rtpcc_receiver_next_feedback_time (RtpccReceiver * receiver);
/* The feedback due at @now as one RTCP packet (compound RR+SDES+CCFB when
 * an RR is due, a reduced-size CCFB otherwise, RFC 5506), or 0. */
gsize rtpcc_receiver_build_feedback (RtpccReceiver * receiver, RtpccTime now,
    guint8 * buf, gsize max);

const RtpccReceiverStats *rtpcc_receiver_get_stats (RtpccReceiver * receiver,
    RtpccTime now);
guint32 rtpcc_receiver_get_ssrc (const RtpccReceiver * receiver);

G_END_DECLS

#endif

/* RtpccSentHistory: what a sender has put on the wire, and what feedback
 * has said about it since.
 *
 * Every packet sent gets a sender-wide sequence number (1, 2, …; it never
 * wraps, and the transport-wide seq of TWCC is it − 1) and an entry: SSRC,
 * the RTP seq on the wire and as queued (they differ once the prober
 * renumbers an SSRC), size, send time and its fate. Feedback names packets
 * by SSRC and wire seq (CCFB, XR) or by transport-wide seq (TWCC); the
 * prober looks media packets up by their original seq. A packet that a
 * report said was missing is lost once NDUPACK (3) later packets have been
 * received (RFC 5348 §5.1: a reordered packet is not a loss). A packet no
 * report has covered is not lost: the reports about it were lost, or are
 * still to come (a stream's trailing packets are covered when it next
 * sends). Declaring it lost would make feedback loss look like media loss.
 * Once RTPCC_SENT_GIVE_UP_REPORTS feedbacks have passed it by (it had
 * NDUPACK received packets after it and none covered it), the reports
 * about it are taken as lost: it is given up as unreported, neither
 * received nor lost, and leaves the controller's packets in flight.
 *
 * Per SSRC it also keeps what an SR reports (RFC 3550 §6.4.1): packet and
 * octet counts, and the RTP timestamp anchor.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SENT_HISTORY_H__
#define __RTPCC_SENT_HISTORY_H__

#include <rtpcc/common.h>
#include <rtpcc/packet.h>
#include <rtpcc/feedback/rtcp.h>

G_BEGIN_DECLS

/* Entries kept: every packet sent in the last RTPCC_SENT_HISTORY_KEEP (far
 * longer than feedback takes to come back), at most RTPCC_SENT_HISTORY_SIZE
 * of them. The ring starts at RTPCC_SENT_HISTORY_MIN entries and doubles
 * when the entry it would overwrite is younger than that: its memory
 * follows the packet rate (a 100 packets/s call keeps 512 entries, not
 * 16384). */
#define RTPCC_SENT_HISTORY_SIZE 16384
#define RTPCC_SENT_HISTORY_MIN 64
#define RTPCC_SENT_HISTORY_KEEP RTPCC_SEC (5)
/* per SSRC, wire (and original) seqs looked up: as many as the ring holds,
 * at most this many */
#define RTPCC_SENT_HISTORY_SEQS 8192
/* A packet no report covered is given up after this many feedbacks
 * passed it by. A receiver's reports are contiguous per SSRC, so the
 * first one that covers later packets of the SSRC but not this one shows
 * that every report about it was lost (ours repeat each packet in two,
 * arrivallog.h); the second tolerates one reordered report. A packet of
 * another SSRC that has sent nothing since (a trailing probe) is covered
 * only when that SSRC sends again: given up too, it goes uncounted. */
#define RTPCC_SENT_GIVE_UP_REPORTS 2

typedef enum
{
  RTPCC_SENT_PENDING = 0,       /* no feedback yet */
  RTPCC_SENT_MISSING,           /* reported not received (yet) */
  RTPCC_SENT_RECEIVED,
  RTPCC_SENT_LOST,
  RTPCC_SENT_UNREPORTED,        /* no report covered it: given up */
} RtpccSentState;

typedef struct
{
  guint64 seq;                  /* sender-wide, from 1 */
  guint32 ssrc;
  guint16 wire_seq;             /* RTP seq on the wire */
  guint16 orig_seq;             /* as queued */
  guint8 pt;
  guint payload;                /* payload octets (0 for a padding probe) */
  RtpccSentState state;
  gboolean is_fec;
  gboolean padding;             /* a padding-only probe */
  guint size;
  RtpccTime send_time;
  RtpccTime arrival;            /* sender timeline; NONE if unknown */
  guint passed;                 /* feedbacks that passed it by, pending */
} RtpccSentEntry;

/* One SSRC we send. */
typedef struct
{
  guint32 ssrc;
  guint32 clock_rate;           /* 0: unknown (90 kHz assumed) */
  guint32 packet_count, octet_count;    /* for the SR */
  guint32 last_rtp_ts;          /* the SR's RTP clock anchor … */
  RtpccTime last_rtp_time;      /* … and when it was sent */
  guint32 packets_at_last_report;       /* packet_count at the last RR */
  gboolean sent_any;            /* a packet went out on it */
  guint16 highest_wire_seq;     /* the highest wire seq sent (serial
                                 * order), if sent_any */
} RtpccSentStream;

typedef struct _RtpccSentHistory RtpccSentHistory;

/* @by_original: also find media packets by the seq they were queued with */
RtpccSentHistory *rtpcc_sent_history_new (gboolean by_original);
void rtpcc_sent_history_free (RtpccSentHistory * history);

/* The stream of @ssrc, made if new (a sender makes them as packets are
 * queued: feedback about a queued SSRC is about us). */
RtpccSentStream *rtpcc_sent_history_add_stream (RtpccSentHistory * history,
    guint32 ssrc);
/* NULL if @ssrc was never added */
RtpccSentStream *rtpcc_sent_history_get_stream (RtpccSentHistory * history,
    guint32 ssrc);

/* The sender report of @ssrc at @now (RFC 3550 §6.4.1; no report blocks):
 * NTP time from @ntp_offset, the RTP time of now extrapolated from the
 * last packet sent, the counts. FALSE if @ssrc is not a stream of ours. */
gboolean rtpcc_sent_history_sr (RtpccSentHistory * history, guint32 ssrc,
    RtpccTime now, RtpccTime ntp_offset, RtpccRtcpSR * sr);

/* Records a packet going on the wire at @now: @info as on the wire,
 * @orig_seq its seq as queued, @payload its payload octets for the SR,
 * @padding a padding-only probe (it does not move the SR's clock anchor).
 * Returns its entry, valid until the next packet is recorded (the ring may
 * grow and move). An entry overwritten before feedback resolved it is
 * given up. */
RtpccSentEntry *rtpcc_sent_history_record (RtpccSentHistory * history,
    RtpccTime now, const RtpccRtpInfo * info, guint16 orig_seq,
    guint payload, gboolean padding);
/* Entries the ring holds now: sender-wide seqs below next_seq − this are
 * no longer kept. */
guint rtpcc_sent_history_capacity (const RtpccSentHistory * history);
/* the sender-wide seq the next packet recorded gets (1 before any) */
guint64 rtpcc_sent_history_next_seq (const RtpccSentHistory * history);

/* By sender-wide seq; NULL if never sent or no longer kept. */
RtpccSentEntry *rtpcc_sent_history_get (RtpccSentHistory * history,
    guint64 seq);
/* The packet sent on @ssrc with wire seq @wire_seq, or NULL; found among
 * the last RTPCC_SENT_HISTORY_SEQS wire seqs of that SSRC. */
RtpccSentEntry *rtpcc_sent_history_find (RtpccSentHistory * history,
    guint32 ssrc, guint16 wire_seq);
/* The media packet (not padding) queued on @ssrc with seq @orig_seq,
 * among the last RTPCC_SENT_HISTORY_SEQS; NULL without by_original. */
RtpccSentEntry *rtpcc_sent_history_find_original (RtpccSentHistory *
    history, guint32 ssrc, guint16 orig_seq);

/* Feedback: @entry arrived at @arrival (sender timeline, or NONE). */
void rtpcc_sent_history_mark_received (RtpccSentHistory * history,
    RtpccSentEntry * entry, RtpccTime arrival);
/* Feedback: @entry had not arrived when the report was sent (a pending
 * packet only: one reported received stays so). */
void rtpcc_sent_history_mark_missing (RtpccSentHistory * history,
    RtpccSentEntry * entry);

/* Once per feedback, after its reports were marked: declares lost every
 * packet reported missing with NDUPACK received packets after it, and
 * gives up the packets never reported that RTPCC_SENT_GIVE_UP_REPORTS
 * feedbacks have passed by (state RTPCC_SENT_UNREPORTED); calls @func on
 * each, in send order. */
typedef void (*RtpccSentLossFunc) (RtpccSentEntry * entry,
    gpointer user_data);
void rtpcc_sent_history_declare_losses (RtpccSentHistory * history,
    RtpccSentLossFunc func, gpointer user_data);

G_END_DECLS

#endif

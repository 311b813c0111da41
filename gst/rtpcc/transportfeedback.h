/* RtpccTransportFeedback: transport-wide CC feedback that someone else
 * numbered and parsed, put into the sender's own numbering.
 *
 * The case it exists for: a sender placed in front of a stock GStreamer
 * rtpsession (rtpbin's or webrtcbin's aux sender, the place of
 * gst-plugins-rs' rtpgccbwe). The session, not we, numbers the packets:
 * it overwrites the transport-wide seq in each packet's extension
 * (draft-holmer-rmcat-transport-wide-cc-extensions-01) with its own
 * counter, records the packet's payload type and payload size, parses the
 * receiver's TWCC feedback itself and hands the sender, upstream, one
 * report per feedback packet: per packet its seq, lost or its arrival on
 * the receiver's clock (reference time × 64 ms + the deltas), and what it
 * recorded of it. It never passes the RTCP on.
 *
 * Every packet the session numbers went through the sender, in the
 * sender's order, carrying the extension the sender stamped with its own
 * seq (sender-wide seq − 1, senthistory.h). So the session's seq and ours
 * differ by a constant modulo 2^16: 0 when the session's counter started
 * with our first packet (a fresh session starts at 0), something else when
 * it numbered packets before (the sender restarted, or joined a running
 * session). The offset changes when a packet the session numbers did not
 * pass through the sender or one we stamped was not numbered; then it is
 * found again.
 *
 * The offset is checked on every report: the payload type and payload
 * octets the session recorded for each packet must be the ones the
 * sender's history has at the mapped seq (at least 90 % of the packets
 * that carry both). Otherwise it is searched: every packet in the history
 * that looks like the report's first checkable one gives a candidate
 * offset, the one with the most agreeing packets wins and needs three of
 * them. Video makes ties common (a frame's fragments all have the MTU's
 * size): among equals, the candidate whose packets we sent closest to
 * when the session says it sent them wins (a session right after us sends
 * within microseconds; its clock is ours), or without send times the most
 * recent one. Before that, 0 (a fresh session's) is tried, which needs every
 * checkable packet of the report to agree, and at least three of them if
 * there are as many. A report that no
 * offset explains is dropped and counted: a wrong mapping would feed the
 * controller other packets' send times.
 *
 * Each report then becomes parsed TWCC feedback (feedback/twcc.h) in our
 * numbering, one per run of consecutive seqs, so the sender's feedback
 * adapter treats it exactly like TWCC it parsed itself: the reference
 * time's wrap and a receiver's restart (RtpccTwccUnwrapper), the NDUPACK
 * loss rule, RTT, the controller's per-packet reports.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_TRANSPORT_FEEDBACK_H__
#define __RTPCC_TRANSPORT_FEEDBACK_H__

#include <rtpcc/common.h>
#include <rtpcc/senthistory.h>
#include <rtpcc/feedback/twcc.h>

G_BEGIN_DECLS

/* One packet of a report (GStreamer's RTPTWCCPackets "packets"). */
typedef struct
{
  guint16 seq;                  /* transport-wide seq as the session wrote it */
  gboolean lost;                /* reported not received */
  /* arrival on the receiver's clock (TWCC reference time × 64 ms + the
   * deltas, "remote-ts"), NONE if lost; a packet neither lost nor timed
   * tells nothing and is skipped */
  RtpccTime arrival;
  gint pt;                      /* payload type the session recorded, -1 if
                                 * unknown (no record: "local-ts" NONE) */
  gint payload;                 /* payload octets it recorded (header and
                                 * padding excluded), -1 if unknown */
  /* when it sent the packet on its clock ("local-ts"; rtpsession's system
   * clock is the monotonic clock the elements use), NONE if unknown */
  RtpccTime sent;
} RtpccTransportPacket;

typedef struct
{
  guint64 reports;              /* reports translated */
  guint64 packets;              /* packets in them */
  guint64 unmatched;            /* reports dropped: no offset explains them */
  guint64 syncs;                /* times the offset was (re)established */
  guint64 skipped;              /* packets neither lost nor timed */
  gboolean synced;
  gint offset;                  /* ours − the session's, −32768..32767 */
} RtpccTransportFeedbackStats;

typedef struct _RtpccTransportFeedback RtpccTransportFeedback;

/* Called once per run of consecutive seqs, with feedback in the sender's
 * numbering (valid during the call). */
typedef void (*RtpccTransportFeedbackFunc) (const RtpccTwcc * fb,
    gpointer user_data);

/* @history: the sender's (not owned), stamped in TWCC mode */
RtpccTransportFeedback *rtpcc_transport_feedback_new (RtpccSentHistory *
    history);
void rtpcc_transport_feedback_free (RtpccTransportFeedback * tf);

/* One report, @n packets in the session's order. FALSE (counted as
 * unmatched; @func not called) if nothing was sent yet or no offset
 * explains the report. */
gboolean rtpcc_transport_feedback_translate (RtpccTransportFeedback * tf,
    const RtpccTransportPacket * pkts, guint n,
    RtpccTransportFeedbackFunc func, gpointer user_data);

const RtpccTransportFeedbackStats
    * rtpcc_transport_feedback_get_stats (const RtpccTransportFeedback * tf);

G_END_DECLS

#endif

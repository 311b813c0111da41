/* The events the gst-rtpcc elements exchange, with typed constructors,
 * parsers and tests (as gst-plugins-base's video-event.c does for
 * force-key-unit), so no element reads field names of its own.
 *
 * "rtpcc-target" travels upstream from rtpccsink (and is posted on the bus
 * as an element message with the same structure): what the controller
 * allows now. "rtpcc-discard" travels upstream from playoutbuffer to
 * rtpccsrc: packets that arrived too late to play, which the receiver
 * reports to the sender (RFC 7097). "rtpcc-playout-state" travels upstream
 * from playoutbuffer to rtpccsrc, at most every
 * GST_RTPCC_PLAYOUT_STATE_INTERVAL: the de-jitter buffer's delays, which
 * the receiver reports (RFC 7005). "rtpcc-repaired" travels upstream from
 * fecdec to rtpccsrc: a media packet FEC rebuilt, which the receiver
 * reports received after repair (RFC 5725). "rtpcc-fec-window" is a sticky
 * downstream event from fecdec: how long it may hold a packet back for a
 * repair, which playoutbuffer adds to its delay. "rtpcc-mprtp" is a sticky
 * downstream event from mprtpsched on each of its src pads: the packets
 * that follow carry the MPRTP subflow header extension under "ext-id", and
 * the rtpccsink that receives it runs its sender on the subflow sequence
 * numbers (and publishes its target to mprtpsched only, not to the
 * encoder). "rtpcc-mprtp-rtx" is a custom query upstream from such an
 * rtpccsink to mprtpsched: a media packet it sent was NACKed; mprtpsched
 * answers "moved" if it sent the repair on another path
 * (docs/multipath.md). "rtpcc-merged" is a custom query downstream from
 * such a path's rtpccsrc to playoutbuffer: whether the merge has a range
 * of media packets, so a loss another path repaired is not requested
 * again. "rtpcc-frame-room" is a sticky downstream event
 * from sendbuffer: how long a frame may wait in its queue and still make
 * the delay budget, which the element driving the encoder turns into the
 * encoder's rate-control buffer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_EVENT_H__
#define __GST_RTPCC_EVENT_H__

#include <gst/gst.h>
#include <rtpcc/controller.h>
#include <rtpcc/sender.h>

G_BEGIN_DECLS

#define GST_RTPCC_TARGET_NAME "rtpcc-target"
#define GST_RTPCC_DISCARD_NAME "rtpcc-discard"
#define GST_RTPCC_FEC_WINDOW_NAME "rtpcc-fec-window"
#define GST_RTPCC_MPRTP_NAME "rtpcc-mprtp"
#define GST_RTPCC_MPRTP_RTX_NAME "rtpcc-mprtp-rtx"
#define GST_RTPCC_PLAYOUT_STATE_NAME "rtpcc-playout-state"
#define GST_RTPCC_REPAIRED_NAME "rtpcc-repaired"
#define GST_RTPCC_FRAME_ROOM_NAME "rtpcc-frame-room"
#define GST_RTPCC_FEC_ENCODER_NAME "rtpcc-fec-encoder"
#define GST_RTPCC_MERGED_NAME "rtpcc-merged"

typedef struct
{
  guint64 target_bitrate;       /* bit/s the sender may put on the wire */
  guint64 media_bitrate;        /* bit/s for the encoder(s) */
  guint64 fec_bitrate;          /* bit/s for FEC / probing */
  guint64 pacing_rate;          /* bit/s the pacer drains at (all packets) */
  guint64 media_pacing_rate;    /* bit/s the pacer drains media at */
  guint fec_interval;           /* a controller's own FEC N, 0 = none */
  GstClockTime rtt;             /* smoothed RTT; NONE = none (0 on the wire) */
  gdouble loss;                 /* loss fraction 0..1 */
  gdouble loss_burst;           /* mean loss burst, packets (0: no loss) */
  gdouble loss_window;          /* loss over the same packets */
  /* the code the sender reserved fec_bitrate for (rtpccsink
   * max-fec-share): "rs" or "xor", k media and m parity packets (XOR: m
   * 1, k = n); NULL / 0: none */
  const gchar *fec_scheme;
  guint fec_k, fec_m;
  GstClockTime queue_delay;     /* estimated queuing delay */
  const gchar *controller;      /* e.g. "gcc" */
  const gchar *state;
  const gchar *reason;
} GstRtpccTargetInfo;

/* What @sender publishes at @now: its target, smoothed RTT, loss and
 * queueing delay, controller name (strings are the library's). */
void gst_rtpcc_target_info_from_sender (RtpccSender * sender, RtpccTime now,
    GstRtpccTargetInfo * t);

/* The structure of both the event and the bus message. */
GstStructure *gst_rtpcc_target_structure_new (const GstRtpccTargetInfo * t);
GstEvent *gst_rtpcc_target_event_new (const GstRtpccTargetInfo * t);
GstMessage *gst_rtpcc_target_message_new (GstObject * src,
    const GstRtpccTargetInfo * t);

/* TRUE for an upstream rtpcc-target event / element message. */
gboolean gst_rtpcc_target_event_is (GstEvent * event);
gboolean gst_rtpcc_target_message_is (GstMessage * message);

/* Fills @t (strings point into the event's structure). FALSE, with @t
 * untouched, if @s is not an rtpcc-target with at least target-bitrate and
 * media-bitrate. Missing fields (an application may send a short one):
 * fec-bitrate 0, pacing-rate = target, media-pacing-rate = media, rtt
 * GST_CLOCK_TIME_NONE (also for 0 on the wire), loss, loss-burst and queue-delay 0,
 * loss-window = loss, fec-scheme NULL, fec-k and fec-m 0,
 * strings NULL. */
gboolean gst_rtpcc_target_structure_parse (const GstStructure * s,
    GstRtpccTargetInfo * t);
gboolean gst_rtpcc_target_event_parse (GstEvent * event,
    GstRtpccTargetInfo * t);

/* @count packets from @seqnum on (wrapping) of @ssrc were discarded late. */
GstEvent *gst_rtpcc_discard_event_new (guint32 ssrc, guint16 seqnum,
    guint count);
gboolean gst_rtpcc_discard_event_is (GstEvent * event);
/* FALSE if malformed (a field missing, seqnum > 65535, count 0). */
gboolean gst_rtpcc_discard_event_parse (GstEvent * event, guint32 * ssrc,
    guint16 * seqnum, guint * count);

/* The de-jitter buffer's delays for @ssrc (RFC 7005 §3.1): "nominal"
 * (what a packet on time waits), "maximum" (the longest a packet may wait
 * and still play) and the "high-water" / "low-water" marks of the nominal
 * delay since the previous event, guint64 ns, GST_CLOCK_TIME_NONE where
 * not known (all but nominal); "adaptive" (boolean). Optionally, for a
 * NADU report (3GPP TS 26.234): "next-seq" (uint, the next packet to
 * play) and "next-in" (guint64 ns from the event until it plays); both
 * or neither (have_next). */
#define GST_RTPCC_PLAYOUT_STATE_INTERVAL (100 * GST_MSECOND)
/* beyond any playout delay: a larger value is bogus */
#define GST_RTPCC_PLAYOUT_STATE_MAX (60 * GST_SECOND)
typedef struct
{
  guint32 ssrc;
  gboolean adaptive;
  GstClockTime nominal, maximum, high_water, low_water;
  gboolean have_next;
  guint16 next_seq;
  GstClockTime next_in;
} GstRtpccPlayoutState;

GstEvent *gst_rtpcc_playout_state_event_new (const GstRtpccPlayoutState *
    state);
gboolean gst_rtpcc_playout_state_event_is (GstEvent * event);
/* FALSE if malformed: no ssrc or nominal, a time over
 * GST_RTPCC_PLAYOUT_STATE_MAX, nominal over maximum, low-water over
 * high-water, next-seq over 65535 or without a valid next-in (or
 * next-in alone). "adaptive" missing reads FALSE. */
gboolean gst_rtpcc_playout_state_event_parse (GstEvent * event,
    GstRtpccPlayoutState * state);

/* @ssrc's packet @seqnum, lost on the way, was rebuilt by FEC. */
GstEvent *gst_rtpcc_repaired_event_new (guint32 ssrc, guint16 seqnum);
gboolean gst_rtpcc_repaired_event_is (GstEvent * event);
/* FALSE if malformed (a field missing, seqnum > 65535). */
gboolean gst_rtpcc_repaired_event_parse (GstEvent * event, guint32 * ssrc,
    guint16 * seqnum);

/* Sticky downstream: the packets that follow may have been held back up to
 * @deadline (fecdec's deadline) waiting for a repair. */
GstEvent *gst_rtpcc_fec_window_event_new (GstClockTime deadline);
/* FALSE if @event is not an rtpcc-fec-window event with a valid
 * "deadline" (guint64 ns). */
gboolean gst_rtpcc_fec_window_event_parse (GstEvent * event,
    GstClockTime * deadline);

/* Sticky downstream from sendbuffer: how long a frame may wait in the
 * sending queue and still make the delay budget (its policy's γ − RTT/2 −
 * playout delay; GST_CLOCK_TIME_NONE: no budget bounds it). The element
 * that drives the encoder makes that the encoder's rate-control buffer
 * (VBV) when it is smaller than its own. */
GstEvent *gst_rtpcc_frame_room_event_new (GstClockTime room);
/* FALSE if @event is not an rtpcc-frame-room event with a "room"
 * (guint64 ns, GST_CLOCK_TIME_NONE allowed). */
gboolean gst_rtpcc_frame_room_event_parse (GstEvent * event,
    GstClockTime * room);

/* Sticky downstream from fecenc: it closes a block at most @block_time
 * after its first packet (its max-block-time; 0: by packet count only).
 * rtpccsink reserves FEC for codes whose blocks fill within it
 * (max-fec-share). */
GstEvent *gst_rtpcc_fec_encoder_event_new (GstClockTime block_time);
/* FALSE if @event is not an rtpcc-fec-encoder event with a
 * "max-block-time" (guint64 ns). */
gboolean gst_rtpcc_fec_encoder_event_parse (GstEvent * event,
    GstClockTime * block_time);

/* Sticky downstream: the packets that follow are one subflow of a
 * multipath stream, @subflow_id, with the MPRTP subflow element under
 * @ext_id (1..14; 0: a single path, no element). */
GstEvent *gst_rtpcc_mprtp_event_new (guint ext_id, guint subflow_id);
/* FALSE if @event is not an rtpcc-mprtp event with ext-id in 1..14 and
 * subflow-id in 0..65535. */
gboolean gst_rtpcc_mprtp_event_parse (GstEvent * event, guint * ext_id,
    guint * subflow_id);

/* Upstream custom query: the media packet with sequence number @seq, sent
 * on this path, is to be retransmitted (@size bytes, as the path's RTX
 * would be). The answer says whether it was sent on another path. */
GstQuery *gst_rtpcc_mprtp_rtx_query_new (guint16 seq, guint size);
/* TRUE if @query is an rtpcc-mprtp-rtx query. */
gboolean gst_rtpcc_mprtp_rtx_query_is (GstQuery * query);
/* FALSE if @query is not one with "seq" in 0..65535 and "size" in
 * 1..65535. */
gboolean gst_rtpcc_mprtp_rtx_query_parse (GstQuery * query, guint16 * seq,
    guint * size);
void gst_rtpcc_mprtp_rtx_query_set_moved (GstQuery * query, gboolean moved);
/* FALSE unless the answer says "moved". */
gboolean gst_rtpcc_mprtp_rtx_query_moved (GstQuery * query);

/* Downstream custom query from one path's rtpccsrc to playoutbuffer: has
 * the merge of all paths every media packet of @ssrc from @first to @last
 * (inclusive, wrapping)? The path lost one of them; if the merge has
 * them all, another path brought it. */
GstQuery *gst_rtpcc_merged_query_new (guint32 ssrc, guint16 first,
    guint16 last);
/* FALSE if @query is not an rtpcc-merged query with "ssrc", and "first"
 * and "last" in 0..65535. */
gboolean gst_rtpcc_merged_query_parse (GstQuery * query, guint32 * ssrc,
    guint16 * first, guint16 * last);
void gst_rtpcc_merged_query_set_answer (GstQuery * query, gboolean all);
/* FALSE unless the answer says the merge has them all. */
gboolean gst_rtpcc_merged_query_all (GstQuery * query);

G_END_DECLS

#endif

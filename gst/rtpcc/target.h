/* The target a sender publishes (RtpccTarget, controller.h): the
 * controller's, adjusted for what only the sender sees, and what consumers
 * derive from it.
 *
 * Backlog. Packets a window controller holds back wait in the pacer; if
 * the encoder keeps producing at the window's rate, a backlog built during
 * a transient never drains (seconds of delay in the §5.1 simulation with
 * ccid2). When the oldest packet has waited longer than the pacer's bound,
 * the media target is lowered by what drains the backlog within
 * RTPCC_TARGET_BACKLOG_DRAIN, quantised (a 32nd of the target, at least 8
 * kbit/s) so the encoder is not poked for every packet.
 *
 * Circuit breaker. RFC 8083: cease or cut back hard. RTCP keeps flowing
 * and the target is held at the minimum until the breaker clears.
 *
 * Delivery ceiling. Whatever the controller says, the media target is
 * never raised above RTPCC_TARGET_DELIVERY_MULTIPLE times the rate the
 * path was measured to deliver (feedbackadapter.h, deliveryrate.h), nor
 * above the minimum for that reason. A target already higher is not cut:
 * the sender sent less than it might (an encoder below its target, a
 * multipath scheduler that uses a path little), so the path showed less,
 * and cutting it would be a reaction to the application, not the path.
 * The probe and FEC share (fec_bitrate) is left alone: a probe exists to
 * send above what has been delivered, for a moment.
 *
 * Three: the controllers' own rules stay below it — TFRC's 2 × X_recv
 * (RFC 5348 §4.3, at most doubling per round trip), GCC's 1.5 × the
 * receive rate (draft-ietf-rmcat-gcc-02 §5.5) — while the measurement
 * lags TFRC's X_recv by about half a round trip (it covers the round trip
 * before the newest acknowledged packet, X_recv the last receive interval):
 * in slow start's doubling per round trip that is a factor √2, and with
 * two the ceiling cut TFRC's own start (the RFC 8867 matrix guards for
 * tfrc and ccid2 then fail). With three no RFC 8867 result in the
 * simulator moves beyond seed-to-seed noise, and no report can take the
 * target more than three times ahead of what arrives. The bound applies
 * once, here, after the controller, rather than in each one. Without
 * per-packet feedback (RR only) there is no measurement and no ceiling.
 *
 * Distrust. Feedback that contradicts itself (a later report about a
 * packet disagreeing with an earlier one) means one of them is forged: the
 * sender cannot tell which, so for RTPCC_TARGET_DISTRUST after the last
 * contradiction the media target may not rise above what it was when the
 * first one was seen. It may fall.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_TARGET_H__
#define __RTPCC_TARGET_H__

#include <rtpcc/common.h>
#include <rtpcc/controller.h>

G_BEGIN_DECLS

#define RTPCC_TARGET_BACKLOG_DRAIN RTPCC_SEC (1)
#define RTPCC_TARGET_DELIVERY_MULTIPLE 3
#define RTPCC_TARGET_DISTRUST RTPCC_SEC (10)

/* What the ceiling remembers between targets (zeroed: nothing yet). */
typedef struct
{
  gboolean distrust;            /* a contradiction within the last
                                 * RTPCC_TARGET_DISTRUST */
  guint64 frozen;               /* the media target when distrust began */
} RtpccTargetCeiling;

/* Bounds @target, a copy of the controller's, by the delivery ceiling:
 * @delivery_rate is the measured rate (0: none), @last_contradiction when
 * feedback last contradicted itself (NONE: never), @published the media
 * target published until now. The media share is cut to the ceiling, the
 * target by as much, the pacing rate in proportion; reason
 * "delivery-ceiling" or "feedback-contradicts" when it bites. */
void rtpcc_target_apply_ceiling (RtpccTarget * target,
    RtpccTargetCeiling * ceiling, RtpccTime now, guint64 min_bitrate,
    guint64 delivery_rate, RtpccTime last_contradiction, guint64 published);

/* Turns @target, a copy of the controller's, into the sender's:
 * @queued_bytes wait in the pacer, the oldest for @head_age, against the
 * pacer's @max_delay; @breaker_reason is the tripped breaker's reason
 * (NULL: not tripped). Nothing goes below @min_bitrate. */
void rtpcc_target_for_sender (RtpccTarget * target, guint64 min_bitrate,
    guint64 queued_bytes, RtpccTime head_age, RtpccTime max_delay,
    const gchar * breaker_reason);

/* Moves media rate to FEC until FEC is @overhead (parity bytes per media
 * byte) of what media and FEC share, unless the target's FEC share is
 * that much already (a probe); the media keeps @min_bitrate. Returns the
 * bit/s moved. */
guint64 rtpcc_target_reserve_fec (RtpccTarget * target, gdouble overhead,
    guint64 min_bitrate);

/* The media share of @target's pacing rate, bit/s: what a sending buffer
 * in front of the sender drains its media at, the rest of the pacing rate
 * being FEC and probe padding (target = media + fec, pacing = target ×
 * the controller's factor): the pacing rate (the target if it is 0) times
 * media / target. rtpccsink publishes it in "rtpcc-target" as
 * "media-pacing-rate". */
guint64 rtpcc_target_media_pacing_rate (const RtpccTarget * target);

G_END_DECLS

#endif

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
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_TARGET_H__
#define __RTPCC_TARGET_H__

#include <rtpcc/common.h>
#include <rtpcc/controller.h>

G_BEGIN_DECLS

#define RTPCC_TARGET_BACKLOG_DRAIN RTPCC_SEC (1)

/* Turns @target, a copy of the controller's, into the sender's:
 * @queued_bytes wait in the pacer, the oldest for @head_age, against the
 * pacer's @max_delay; @breaker_reason is the tripped breaker's reason
 * (NULL: not tripped). Nothing goes below @min_bitrate. */
void rtpcc_target_for_sender (RtpccTarget * target, guint64 min_bitrate,
    guint64 queued_bytes, RtpccTime head_age, RtpccTime max_delay,
    const gchar * breaker_reason);

/* The media share of @target's pacing rate, bit/s: what a sending buffer
 * in front of the sender drains its media at, the rest of the pacing rate
 * being FEC and probe padding (target = media + fec, pacing = target ×
 * the controller's factor): the pacing rate (the target if it is 0) times
 * media / target. rtpccsink publishes it in "rtpcc-target" as
 * "media-pacing-rate". */
guint64 rtpcc_target_media_pacing_rate (const RtpccTarget * target);

G_END_DECLS

#endif

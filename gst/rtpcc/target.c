/* The target a sender publishes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/target.h>

void
rtpcc_target_for_sender (RtpccTarget * t, guint64 min_bitrate,
    guint64 queued_bytes, RtpccTime head_age, RtpccTime max_delay,
    const gchar * breaker_reason)
{
  if (queued_bytes > 0 && head_age > MAX (max_delay, RTPCC_MSEC (10))) {
    guint64 cut = (guint64) (queued_bytes * 8.0 /
        RTPCC_TIME_AS_SEC (RTPCC_TARGET_BACKLOG_DRAIN));
    guint64 step = MAX (t->target_bitrate / 32, 8000);

    cut = (cut + step - 1) / step * step;
    t->media_bitrate = t->media_bitrate > min_bitrate + cut ?
        t->media_bitrate - cut : MIN (t->media_bitrate, min_bitrate);
    t->reason = "sender-backlog";
  }
  if (breaker_reason) {
    t->target_bitrate = t->media_bitrate = min_bitrate;
    t->fec_bitrate = 0;
    t->pacing_rate = min_bitrate;
    t->state = "circuit-breaker";
    t->reason = breaker_reason;
  }
}

void
rtpcc_target_apply_ceiling (RtpccTarget * t, RtpccTargetCeiling * c,
    RtpccTime now, guint64 min_bitrate, guint64 delivery_rate,
    RtpccTime last_contradiction, guint64 published)
{
  guint64 limit = G_MAXUINT64;
  const gchar *reason = "delivery-ceiling";

  /* a raise only: media already above the ceiling (the sender sent less
   * than it may, and the path showed less) is not cut for that */
  if (delivery_rate > 0)
    limit = MAX (MAX (delivery_rate * RTPCC_TARGET_DELIVERY_MULTIPLE,
            min_bitrate), published);
  if (last_contradiction != RTPCC_TIME_NONE
      && now - last_contradiction < RTPCC_TARGET_DISTRUST) {
    if (!c->distrust) {
      c->distrust = TRUE;
      c->frozen = MAX (published, min_bitrate);
    }
    if (c->frozen < limit) {
      limit = c->frozen;
      reason = "feedback-contradicts";
    }
  } else
    c->distrust = FALSE;

  if (t->media_bitrate > limit) {
    guint64 target = t->target_bitrate - (t->media_bitrate - limit);
    /* (the pacing rate keeps its proportion to the target) */
    t->pacing_rate = (guint64) ((gdouble) t->pacing_rate * target /
        t->target_bitrate);
    t->target_bitrate = target;
    t->media_bitrate = limit;
    t->reason = reason;
  }
}

guint64
rtpcc_target_media_pacing_rate (const RtpccTarget * t)
{
  guint64 rate = t->pacing_rate ? t->pacing_rate : t->target_bitrate;

  if (t->target_bitrate > 0 && t->media_bitrate > 0
      && t->media_bitrate < t->target_bitrate)
    rate = (guint64) ((gdouble) rate * (gdouble) t->media_bitrate /
        (gdouble) t->target_bitrate);
  return rate;
}

guint64
rtpcc_target_reserve_fec (RtpccTarget * t, gdouble overhead,
    guint64 min_bitrate)
{
  guint64 want, move;

  if (overhead <= 0)
    return 0;
  want = (guint64) ((t->media_bitrate + t->fec_bitrate) * overhead /
      (1.0 + overhead));
  if (want <= t->fec_bitrate || t->media_bitrate <= min_bitrate)
    return 0;
  move = MIN (want - t->fec_bitrate, t->media_bitrate - min_bitrate);
  t->media_bitrate -= move;
  t->fec_bitrate += move;
  return move;
}

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

/* The receiver's REMB (config remb): the estimate of the first media
 * stream (rembestimator.h), in every RR, and an RR brought forward when
 * the estimate was cut.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "receiver-private.h"
#include <rtpcc/feedback/remb.h>

void
rtpcc_receiver_remb_on_rtp (RtpccReceiver * r, RtpccTime now,
    const RtpccRtpInfo * info, guint clock_rate)
{
  const RtpccRembEstimatorStats *st;

  if (!r->config.remb || info->is_fec || info->padding_only)
    return;
  if (r->remb == NULL) {
    RtpccRembEstimatorConfig c;

    rtpcc_remb_estimator_config_init (&c);
    r->remb = rtpcc_remb_estimator_new (&c);
    r->remb_ssrc = info->ssrc;
  }
  /* one stream: the sender's controller is about its media */
  if (info->ssrc != r->remb_ssrc)
    return;
  rtpcc_remb_estimator_on_packet (r->remb, now, info->rtp_ts, clock_rate,
      info->size);
  st = rtpcc_remb_estimator_get_stats (r->remb);
  r->stats.remb_estimate = st->estimate;
  r->stats.remb_overuses = st->overuses;
  r->stats.remb_decreases = st->decreases;
  /* a cut is news: the next RR (with it) now, but not closer than the
   * shortest report interval to the last one */
  if (r->next_rr != RTPCC_TIME_NONE && now < r->next_rr
      && rtpcc_remb_estimator_get_stats (r->remb)->sent > 0
      && rtpcc_remb_estimator_due (r->remb, now)) {
    RtpccTime at = r->last_rr == RTPCC_TIME_NONE ? now :
        MAX (now, r->last_rr + RTPCC_RECEIVER_MIN_REPORT_INTERVAL);
    r->next_rr = MIN (r->next_rr, at);
  }
}

gsize
rtpcc_receiver_write_remb (RtpccReceiver * r, RtpccTime now, guint8 * buf,
    gsize max)
{
  guint64 bitrate;
  gsize n;

  if (r->remb == NULL
      || rtpcc_remb_estimator_get_stats (r->remb)->packets == 0)
    return 0;
  bitrate = rtpcc_remb_estimator_get_estimate (r->remb);
  n = rtpcc_remb_write (buf, max, r->ssrc, bitrate, &r->remb_ssrc, 1);
  if (n > 0) {
    rtpcc_remb_estimator_sent (r->remb, now, bitrate);
    r->stats.remb_sent++;
  }
  return n;
}

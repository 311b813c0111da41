/* The receiver's C-NADU (config nadu): the first media stream's frames
 * judged (naduestimator.h); those that missed their deadline marked
 * discarded (RFC 7097 Discard RLE) unless the application marks its
 * own; and with every RR a NADU APP packet (of the application's playout
 * buffer when it tells us, else of the estimator's model) and the
 * estimate as a REMB (the one format deployed senders read a receiver's
 * rate in; with config remb that REMB carries the RRTCC estimate and
 * this one is not sent).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "receiver-private.h"
#include <rtpcc/feedback/remb.h>

void
rtpcc_receiver_nadu_on_rtp (RtpccReceiver * r, RtpccTime now,
    const RtpccRtpInfo * info, guint clock_rate)
{
  const RtpccNaduEstimatorStats *st;
  guint16 first;
  guint count;

  if (!r->config.nadu || info->is_fec || info->padding_only)
    return;
  if (r->nadu == NULL) {
    RtpccNaduEstimatorConfig c;

    rtpcc_nadu_estimator_config_init (&c);
    c.playout_delay = r->config.nadu_playout_delay;
    r->nadu = rtpcc_nadu_estimator_new (&c);
    r->nadu_ssrc = info->ssrc;
  }
  if (info->ssrc != r->nadu_ssrc)
    return;
  if (rtpcc_nadu_estimator_on_packet (r->nadu, now, info->rtp_ts,
          clock_rate, info->seq, info->size, &first, &count)
      && !r->app_discards) {
    /* the sender counts the frames that missed their deadline from the
     * XR Discard RLE; without a playout buffer telling us its own
     * discards, those of the estimator's model buffer */
    r->marking_own = TRUE;
    rtpcc_receiver_mark_discarded (r, now, r->nadu_ssrc, first, count);
    r->marking_own = FALSE;
  }
  st = rtpcc_nadu_estimator_get_stats (r->nadu);
  r->stats.nadu_frames_late = st->frames_late;
  r->stats.nadu_frames_missed = st->frames_missed;
}

gboolean
rtpcc_receiver_set_nadu_next (RtpccReceiver * r, RtpccTime now,
    guint32 ssrc, guint16 next_seq, RtpccTime next_in)
{
  if (r->nadu == NULL || ssrc != r->nadu_ssrc || next_in < 0)
    return FALSE;
  r->nadu_app_at = now;
  r->nadu_app_due = now + next_in;
  r->nadu_app_seq = next_seq;
  return TRUE;
}

gsize
rtpcc_receiver_write_nadu (RtpccReceiver * r, RtpccTime now, guint8 * buf,
    gsize max)
{
  RtpccNaduBlock block;
  guint64 estimate;
  gsize n, m = 0;

  if (r->nadu == NULL || !rtpcc_nadu_estimator_fill_block (r->nadu, now,
          &block))
    return 0;
  block.ssrc = r->nadu_ssrc;
  if (r->nadu_app_at != RTPCC_TIME_NONE
      && now - r->nadu_app_at <= RTPCC_RECEIVER_NADU_FRESH) {
    /* the buffer that plays it knows better than our model */
    block.nsn = r->nadu_app_seq;
    block.playout_delay = rtpcc_nadu_delay_from_time (MAX (0,
            r->nadu_app_due - now));
  }
  estimate = rtpcc_nadu_estimator_evaluate (r->nadu, now);
  n = rtpcc_nadu_write (buf, max, r->ssrc, &block, 1);
  if (n == 0)
    return 0;
  r->stats.nadu_sent++;
  r->stats.nadu_estimate = estimate;
  if (!r->config.remb && estimate > 0)
    m = rtpcc_remb_write (buf + n, max - n, r->ssrc, estimate,
        &r->nadu_ssrc, 1);
  return n + m;
}

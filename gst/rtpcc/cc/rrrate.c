/* A rate set per RTCP receiver report under a receiver's estimate; see
 * rrrate.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/rrrate.h>
#include <rtpcc/tcpeq.h>

#define PACING_FACTOR 1.25
/* the mean packet size (bytes) for the equation, before one is measured */
#define DEFAULT_PACKET_SIZE 1200.0

void
rtpcc_rr_rate_init (RtpccRrRate * r, RtpccController * cc)
{
  r->rate = cc->config.start_bitrate ? (gdouble) cc->config.start_bitrate :
      (gdouble) cc->config.min_bitrate;
  r->limit = G_MAXUINT64;
  r->packet_size = DEFAULT_PACKET_SIZE;
  r->restart = r->seen_report = FALSE;
  r->last_hsn = 0;
  r->state = "hold";
  r->reason = "initial";
  rtpcc_rr_rate_clamp (r, cc);
  rtpcc_rr_rate_publish (r, cc);
}

void
rtpcc_rr_rate_clamp (RtpccRrRate * r, RtpccController * cc)
{
  gdouble hi = MIN ((gdouble) cc->config.max_bitrate, (gdouble) r->limit);

  r->rate = CLAMP (r->rate, (gdouble) cc->config.min_bitrate,
      MAX (hi, (gdouble) cc->config.min_bitrate));
}

void
rtpcc_rr_rate_publish (RtpccRrRate * r, RtpccController * cc)
{
  rtpcc_controller_update_target (cc, (guint64) r->rate, 0, PACING_FACTOR,
      r->state, r->reason);
}

void
rtpcc_rr_rate_on_sent (RtpccRrRate * r, const RtpccSentPacket * pkt)
{
  if (!pkt->is_fec && pkt->size > 0)
    r->packet_size = 0.95 * r->packet_size + 0.05 * pkt->size;
}

RtpccRrRateVerdict
rtpcc_rr_rate_admit (RtpccRrRate * r, const RtpccReceiverReport * rr)
{
  if (r->restart) {
    gboolean progress = rr->ext_highest_seq != r->last_hsn;

    r->last_hsn = rr->ext_highest_seq;
    if (!progress)
      return RTPCC_RR_RATE_IGNORE;
    /* the first report after the stop: its loss is the outage's */
    r->restart = FALSE;
    r->reason = "feedback-back";
    return RTPCC_RR_RATE_PUBLISH;
  }
  if (rr->ext_highest_seq == r->last_hsn && rr->packets_sent_interval > 0
      && r->seen_report) {
    /* nothing arrived of what we sent: its "no loss" means nothing (the
     * no-feedback timer deals with the silence) */
    r->state = "hold";
    r->reason = "no-progress";
    return RTPCC_RR_RATE_PUBLISH;
  }
  r->seen_report = TRUE;
  r->last_hsn = rr->ext_highest_seq;
  return RTPCC_RR_RATE_ACT;
}

gdouble
rtpcc_rr_rate_tcp (const RtpccRrRate * r, gdouble p, RtpccTime rtt)
{
  if (p <= 0 || rtt == RTPCC_TIME_NONE || rtt <= 0)
    return 0;
  return 8.0 * rtpcc_tcpeq_throughput (r->packet_size,
      RTPCC_TIME_AS_SEC (rtt), p);
}

void
rtpcc_rr_rate_set_limit (RtpccRrRate * r, RtpccController * cc,
    guint64 limit)
{
  r->limit = limit;
  if (r->rate > (gdouble) limit) {
    r->reason = "receiver-estimate";
    rtpcc_rr_rate_clamp (r, cc);
    rtpcc_rr_rate_publish (r, cc);
  }
}

void
rtpcc_rr_rate_no_feedback (RtpccRrRate * r, RtpccController * cc,
    gdouble rate)
{
  if (!r->restart) {
    r->rate = rate;
    r->restart = TRUE;
    rtpcc_rr_rate_clamp (r, cc);
  }
  r->reason = "no-feedback";
  rtpcc_rr_rate_publish (r, cc);
}

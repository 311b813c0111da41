/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/mprtp/pathsender.h>

#include <string.h>

void
rtpcc_mprtp_path_sender_init (RtpccMprtpPathSender * ps)
{
  memset (ps, 0, sizeof (*ps));
  ps->rtt = RTPCC_TIME_NONE;
}

void
rtpcc_mprtp_path_sender_restart (RtpccMprtpPathSender * ps)
{
  RtpccTime rtt = ps->rtt;
  guint64 reports = ps->subflow_reports;

  rtpcc_mprtp_path_sender_init (ps);
  ps->rtt = rtt;
  ps->subflow_reports = reports;
}

void
rtpcc_mprtp_path_sender_set_target (RtpccMprtpPathSender * ps,
    RtpccMprtpSched * sched, guint path, RtpccTime now, guint64 target,
    guint64 media, RtpccTime rtt)
{
  ps->target = target;
  ps->media = media;
  ps->have_target = TRUE;
  if (rtt != RTPCC_TIME_NONE)
    ps->rtt = rtt;
  if (sched)
    rtpcc_mprtp_sched_set_rate (sched, path, now, media);
}

void
rtpcc_mprtp_path_sender_poll (RtpccMprtpPathSender * ps,
    RtpccMprtpSched * sched, guint path, RtpccTime now,
    const RtpccMprtpSenderStats * st, const RtpccMprtpSubflowReport * report,
    gboolean interval)
{
  guint64 rcvd = st->reported_received, lost = st->reported_lost;

  if (st->rtcp_received != ps->rtcp_received) {
    RtpccMprtpFeedbackInfo fb;

    memset (&fb, 0, sizeof fb);
    fb.srtt = st->rtt > 0 ? (RtpccTime) st->rtt : RTPCC_TIME_NONE;
    fb.queue_delay = (RtpccTime) st->queue_delay;
    fb.progress = rcvd > ps->reported_received;
    fb.send_rate = st->send_rate;
    fb.receive_rate = st->receive_rate;
    fb.reported_received = rcvd >= ps->reported_received ?
        rcvd - ps->reported_received : 0;
    fb.reported_lost = lost >= ps->reported_lost ?
        lost - ps->reported_lost : 0;
    rtpcc_mprtp_sched_on_feedback (sched, path, now, &fb);
    ps->rtt = fb.srtt;
  }
  ps->rtcp_received = st->rtcp_received;
  ps->reported_received = rcvd;
  ps->reported_lost = lost;
  if (report) {
    /* the path's receiver reports its loss and discards by subflow
     * (MPRTCP): the path's class from them */
    ps->subflow_reports++;
    rtpcc_mprtp_sched_on_report (sched, path, now, report);
  } else if (interval && ps->subflow_reports == 0) {
    /* a receiver without subflow reports: loss per interval from the
     * path's own feedback (its subflow seq space) */
    guint64 r, l;

    ps->iv_received = MIN (ps->iv_received, ps->reported_received);
    ps->iv_lost = MIN (ps->iv_lost, ps->reported_lost);
    r = ps->reported_received - ps->iv_received;
    l = ps->reported_lost - ps->iv_lost;
    rtpcc_mprtp_sched_on_interval (sched, path, now, r + l, l, 0);
    ps->iv_received = ps->reported_received;
    ps->iv_lost = ps->reported_lost;
  }
}

guint64
rtpcc_mprtp_aggregate_target (const RtpccMprtpSched * sched,
    const RtpccMprtpPathSender * const *paths, guint n, guint64 media,
    RtpccTime * rtt_out)
{
  guint64 sum_target = 0, sum_media = 0, target;
  RtpccTime rtt = RTPCC_TIME_NONE;

  for (guint i = 0; i < n; i++) {
    const RtpccMprtpPathSender *ps = paths[i];
    RtpccMprtpPathInfo pi;

    if (!ps || !ps->have_target
        || !rtpcc_mprtp_sched_get_path (sched, i, &pi) || pi.allowed == 0)
      continue;
    sum_target += ps->target;
    sum_media += ps->media;
    if (ps->rtt != RTPCC_TIME_NONE && (rtt == RTPCC_TIME_NONE || ps->rtt > rtt))
      rtt = ps->rtt;
  }
  if (rtt_out)
    *rtt_out = rtt;
  target = sum_media > 0 ?
      (guint64) ((gdouble) media * sum_target / sum_media) : media;
  return MAX (target, media);
}

/* The multipath scheduler's repair routing (sched.h, route_rtx): a packet
 * lost on one path is retransmitted on the healthy path with the clearly
 * lowest RTT (Singh's thesis, Publication VII), so the repair arrives
 * sooner than one sent back over the slow, lossy path.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "schedpriv.h"

/* Fit to carry another path's repairs at @now: in use and not on its way
 * back from a failure or collapse (its rate is then a guess), not
 * congested (a repair there would likely be lost again), and measured. */
static gboolean
healthy (const Path * p, RtpccTime now)
{
  return p->active && !p->failed && p->allowed > 0 && p->cap == 0
      && p->ramp == 0 && p->srtt != RTPCC_TIME_NONE
      && (p->drain_until == RTPCC_TIME_NONE || now >= p->drain_until)
      && (p->parked_until == RTPCC_TIME_NONE || now >= p->parked_until)
      && p->cls.klass != RTPCC_MPRTP_CLASS_CONGESTED;
}

static RtpccTime
margin (const RtpccMprtpSched * s, RtpccTime srtt)
{
  return MAX (s->config.rtx_margin,
      (RtpccTime) (s->config.rtx_margin_ratio * (gdouble) srtt));
}

gint
rtpcc_mprtp_sched_route_rtx (RtpccMprtpSched * s, guint lost_on,
    RtpccTime now, guint size)
{
  Path *from;
  RtpccTime own;
  gint best = -1;
  gboolean any = FALSE;

  if (s->n < 2 || lost_on >= s->n)
    return -1;
  from = &s->path[lost_on];
  /* a failed path is as slow as can be; one never measured cannot be
   * compared: its repairs stay where they are, as with one path */
  if (from->failed)
    own = G_MAXINT64;
  else if (from->srtt == RTPCC_TIME_NONE)
    own = RTPCC_TIME_NONE;
  else
    own = from->srtt;
  if (own == RTPCC_TIME_NONE) {
    from->rtx_via = -1;
    return -1;
  }

  /* hysteresis: the path chosen before keeps the repairs while it is
   * healthy and faster at all */
  if (from->rtx_via >= 0) {
    const Path *via = &s->path[from->rtx_via];

    if (healthy (via, now) && via->srtt < own)
      best = from->rtx_via;
    else
      from->rtx_via = -1;
  }
  if (best < 0) {
    RtpccTime need = own == G_MAXINT64 ? G_MAXINT64 : own - margin (s, own);

    for (guint i = 0; i < s->n; i++) {
      const Path *p = &s->path[i];

      if (i == lost_on || !healthy (p, now) || p->srtt > need)
        continue;
      if (best < 0 || p->srtt < s->path[best].srtt)
        best = (gint) i;
    }
    if (best < 0)
      return -1;
    from->rtx_via = best;
  }

  for (guint i = 0; i < s->n; i++)
    any |= s->path[i].allowed > 0;
  rtpcc_mprtp_sched_charge (s, (guint) best, now, size,
      RTPCC_MPRTP_PACKET_RETRANSMISSION, any);
  s->path[best].rtx_in++;
  from->rtx_out++;
  return best;
}

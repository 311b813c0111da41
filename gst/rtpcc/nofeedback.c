/* RtpccNoFeedback: the no-feedback timer every controller runs under.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/nofeedback.h>

#include <math.h>
#include <string.h>

void
rtpcc_no_feedback_init (RtpccNoFeedback * nf, guint64 min_bitrate)
{
  memset (nf, 0, sizeof (*nf));
  nf->min_bitrate = min_bitrate;
  nf->last_progress = nf->first_unanswered = RTPCC_TIME_NONE;
  nf->srtt = nf->stopped_at = nf->next_halving = RTPCC_TIME_NONE;
  nf->restored_at = RTPCC_TIME_NONE;
}

void
rtpcc_no_feedback_on_sent (RtpccNoFeedback * nf, RtpccTime now)
{
  if (nf->first_unanswered == RTPCC_TIME_NONE)
    nf->first_unanswered = now;
  nf->packets_unanswered++;
  /* sending again while stopped: the halving resumes */
  if (nf->halvings > 0 && nf->next_halving == RTPCC_TIME_NONE)
    nf->next_halving = now + rtpcc_no_feedback_interval (nf);
}

RtpccTime
rtpcc_no_feedback_interval (const RtpccNoFeedback * nf)
{
  RtpccTime t = RTPCC_NO_FEEDBACK_MIN_TIMEOUT;

  /* the feedback's rhythm not learnt yet (one feedback so far): RFC 5348
   * §4.2's initial 2 s */
  if (nf->gap == 0)
    t = MAX (t, RTPCC_NO_FEEDBACK_INITIAL);
  if (nf->srtt != RTPCC_TIME_NONE)
    t = MAX (t, RTPCC_NO_FEEDBACK_INTERVALS * nf->srtt);
  return MAX (t, RTPCC_NO_FEEDBACK_INTERVALS * nf->gap);
}

static gboolean
on_progress (RtpccNoFeedback * nf, RtpccTime now, RtpccTime srtt)
{
  gboolean ended = nf->halvings > 0;

  if (srtt != RTPCC_TIME_NONE && srtt > 0)
    nf->srtt = srtt;
  /* the gap from the first packet it could answer: an idle sender's
   * silence is not a slow feedback path, nor is an outage */
  if (!ended && nf->first_unanswered != RTPCC_TIME_NONE
      && now > nf->first_unanswered) {
    RtpccTime g = now - nf->first_unanswered;
    nf->gap = nf->gap ? (7 * nf->gap + g) / 8 : g;
  }
  if (ended) {
    nf->restored_at = now;
    nf->cap_at_restore = nf->cap;
    nf->halvings = 0;
    nf->stopped_at = nf->next_halving = RTPCC_TIME_NONE;
  }
  nf->last_progress = now;
  nf->first_unanswered = RTPCC_TIME_NONE;
  nf->packets_unanswered = 0;
  return ended;
}

gboolean
rtpcc_no_feedback_on_feedback (RtpccNoFeedback * nf, RtpccTime now,
    RtpccTime srtt)
{
  nf->per_packet = TRUE;
  return on_progress (nf, now, srtt);
}

gboolean
rtpcc_no_feedback_on_report (RtpccNoFeedback * nf, RtpccTime now,
    guint32 ssrc, guint32 ext_highest_seq, RtpccTime rtt)
{
  guint i;

  if (nf->per_packet)
    return FALSE;
  for (i = 0; i < nf->n_rr && nf->rr_ssrc[i] != ssrc; i++);
  if (i == nf->n_rr) {
    /* a new SSRC (beyond the table's: the last one's place) */
    if (nf->n_rr < G_N_ELEMENTS (nf->rr_ssrc))
      nf->n_rr++;
    i = nf->n_rr - 1;
    nf->rr_ssrc[i] = ssrc;
  } else if (nf->rr_seq[i] == ext_highest_seq) {
    return FALSE;
  }
  nf->rr_seq[i] = ext_highest_seq;
  return on_progress (nf, now, rtt);
}

RtpccTime
rtpcc_no_feedback_deadline (const RtpccNoFeedback * nf)
{
  if (nf->halvings > 0)
    return nf->next_halving;
  if (nf->last_progress == RTPCC_TIME_NONE
      || nf->first_unanswered == RTPCC_TIME_NONE)
    return RTPCC_TIME_NONE;
  return nf->first_unanswered + rtpcc_no_feedback_interval (nf);
}

guint64
rtpcc_no_feedback_expire (RtpccNoFeedback * nf, RtpccTime now,
    guint64 target)
{
  /* nothing sent since the previous halving: an idle sender expects no
   * feedback; the next packet re-arms the timer (on_sent) */
  if (nf->halvings > 0 && nf->packets_unanswered == 0) {
    nf->next_halving = RTPCC_TIME_NONE;
    return 0;
  }
  if (nf->halvings == 0) {
    nf->stopped_at = now;
    nf->cap = target / 2;
  } else {
    nf->cap /= 2;
  }
  nf->cap = MAX (nf->cap, MAX (nf->min_bitrate, 1));
  nf->halvings++;
  nf->restored_at = RTPCC_TIME_NONE;
  nf->next_halving = now + rtpcc_no_feedback_interval (nf);
  nf->packets_unanswered = 0;
  return nf->cap;
}

guint64
rtpcc_no_feedback_cap (RtpccNoFeedback * nf, RtpccTime now, guint64 target)
{
  RtpccTime d;
  gdouble x;

  if (nf->halvings > 0)
    return nf->cap;
  if (nf->restored_at == RTPCC_TIME_NONE)
    return 0;
  d = MAX (nf->srtt != RTPCC_TIME_NONE ? nf->srtt : 0,
      RTPCC_NO_FEEDBACK_MIN_DOUBLING);
  /* whole doublings: the target changes once per RTT, not per packet */
  x = floor ((gdouble) MAX (now - nf->restored_at, 0) / (gdouble) d);
  nf->cap = x > 40 ? G_MAXUINT64 / 2 :
      (guint64) (nf->cap_at_restore * pow (2.0, x));
  if (nf->cap >= target) {
    nf->restored_at = RTPCC_TIME_NONE;
    nf->cap = 0;
  }
  return nf->cap;
}

gboolean
rtpcc_no_feedback_stopped (const RtpccNoFeedback * nf, RtpccTime * since)
{
  if (since)
    *since = nf->last_progress;
  return nf->halvings > 0;
}

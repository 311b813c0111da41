/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/mprtp/classify.h>

#include <string.h>

const gchar *
rtpcc_mprtp_path_class_name (RtpccMprtpPathClass klass)
{
  switch (klass) {
    case RTPCC_MPRTP_CLASS_NON_CONGESTED:
      return "non-congested";
    case RTPCC_MPRTP_CLASS_LOSSY:
      return "lossy";
    case RTPCC_MPRTP_CLASS_MILDLY_CONGESTED:
      return "mildly-congested";
    case RTPCC_MPRTP_CLASS_CONGESTED:
      return "congested";
  }
  return "unknown";
}

void
rtpcc_mprtp_classifier_init (RtpccMprtpClassifier * c)
{
  memset (c, 0, sizeof (*c));
  c->klass = RTPCC_MPRTP_CLASS_NON_CONGESTED;
  c->share = 1.0;
}

gboolean
rtpcc_mprtp_classifier_interval (RtpccMprtpClassifier * c,
    const RtpccMprtpSubflowReport * r, guint64 * expected, guint64 * lost,
    guint64 * discarded)
{
  gint64 e, l, d = 0;

  *expected = *lost = *discarded = 0;
  if (!c->have_report) {
    c->have_report = TRUE;
    c->prev_ext_high = r->rr.ext_highest_seq;
    c->prev_cum_lost = r->rr.cumulative_lost;
    c->prev_discards = r->has_discards ? r->discards : 0;
    return TRUE;
  }
  e = (gint32) (r->rr.ext_highest_seq - c->prev_ext_high);
  if (e < 0)
    return FALSE;
  l = (gint64) r->rr.cumulative_lost - c->prev_cum_lost;
  if (r->has_discards)
    d = (gint32) (r->discards - c->prev_discards);
  c->prev_ext_high = r->rr.ext_highest_seq;
  c->prev_cum_lost = r->rr.cumulative_lost;
  if (r->has_discards)
    c->prev_discards = r->discards;
  *expected = (guint64) e;
  *lost = (guint64) MAX (l, 0);
  *discarded = (guint64) MAX (d, 0);
  return TRUE;
}

RtpccMprtpPathClass
rtpcc_mprtp_classifier_classify (RtpccMprtpClassifier * c, guint64 lost,
    guint64 discarded, guint congested_intervals)
{
  if (lost > 0 && discarded > 0) {
    c->mild_run++;
    c->klass = c->mild_run >= congested_intervals ?
        RTPCC_MPRTP_CLASS_CONGESTED : RTPCC_MPRTP_CLASS_MILDLY_CONGESTED;
  } else if (lost > 0) {
    c->mild_run = 0;
    c->klass = RTPCC_MPRTP_CLASS_LOSSY;
  } else {
    /* no loss: discards alone are the receiver's playout catching up
     * with a path's delay (a skew it has not learnt yet), not congestion */
    c->mild_run = 0;
    c->klass = RTPCC_MPRTP_CLASS_NON_CONGESTED;
  }
  c->intervals[c->klass]++;
  return c->klass;
}

void
rtpcc_mprtp_classifier_approach (RtpccMprtpClassifier * c, gdouble target,
    gdouble step)
{
  /* taken at once, handed back a step per interval */
  if (target < c->share)
    c->share = target;
  else
    c->share = MIN (target, c->share + step);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* FBRA's pure rules, apart from the state machine in fbra.c (see fbra.h):
 * state names, the parameter defaults, the undershoot, the nearest-rank
 * percentile of the OWD watermarks, the FEC interval N and the report
 * interval FBRA asks of the receiver. */
#include <rtpcc/cc/fbra.h>

#include <math.h>
#include <stdlib.h>

const gchar *
rtpcc_fbra_state_name (RtpccFbraState state)
{
  switch (state) {
    case RTPCC_FBRA_STAY:
      return "stay";
    case RTPCC_FBRA_PROBE:
      return "probe";
    case RTPCC_FBRA_UP:
      return "up";
    case RTPCC_FBRA_DOWN:
      return "down";
  }
  return "unknown";
}

void
rtpcc_fbra_params_init (RtpccFbraParams * p)
{
  p->alpha_stay = 1.1;
  p->alpha_down_probe = 1.6;
  p->alpha_down_up = 1.4;
  p->alpha_undershoot = 2.0;
  p->beta = 1.2;
  p->p_low = 40;
  p->p_high = 80;
  p->near_max = 0.9;
  p->rate_history = 2.0;
  p->history_all = 0;
  p->early_rtt = 1.5;
  p->early_interval = 1.0 / 3.0;
  p->feedback_timeout = 2.0;
  p->undershoot_k = 0.9;
  p->undershoot_mult = 2.0;
  p->undershoot_floor = 0.5;
  p->bounce_back = 0.9;
  p->recent = 0.5;
  p->fec_min = 2;
  p->fec_max = 14;
  p->fec_step = 2;
  p->owd_samples = 240;
  p->owd_age = 60;
  p->owd_min_samples = 5;
  p->down_to_stay = 1;
  p->pacing_factor = 1.5;
  p->report_rtts = 2.5;
  p->report_min = 0.1;
  p->report_max = 1.0;
  p->outage_recall = 1;
}

gdouble
rtpcc_fbra_undershoot (const RtpccFbraParams * p, gdouble send_rate,
    gdouble goodput, gdouble min_rate)
{
  gdouble r = p->undershoot_k * (send_rate - p->undershoot_mult *
      (send_rate - goodput));
  gdouble floor_rate = MAX (min_rate, p->undershoot_floor * goodput);

  /* the formula goes negative once G < R/2 (a capacity step-down); the
   * floor keeps the rate positive and near what did get through */
  r = MAX (r, floor_rate);
  r = MIN (r, MAX (send_rate, floor_rate));
  return MAX (r, 0.0);
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

gdouble
rtpcc_fbra_percentile (const gdouble * values, guint n, gdouble pct)
{
  gdouble *v, r;
  guint k;

  if (n == 0)
    return 0;
  v = g_memdup2 (values, n * sizeof (gdouble));
  qsort (v, n, sizeof (gdouble), cmp_double);
  pct = CLAMP (pct, 0.0, 100.0);
  k = (guint) ceil (pct / 100.0 * n);
  k = CLAMP (k, 1, n);
  r = v[k - 1];
  g_free (v);
  return r;
}

guint
rtpcc_fbra_fec_interval (const RtpccFbraParams * p, gdouble rate,
    gdouble max_rate_2s, gdouble initial_goodput)
{
  gdouble ref = MAX (max_rate_2s, initial_goodput), x, n;

  x = ref > 0 ? rate / ref : 1.0;
  x = CLAMP (x, 0.0, 1.0);
  n = p->fec_min + round ((p->fec_max - p->fec_min) * x);
  return (guint) CLAMP (n, p->fec_min, p->fec_max);
}

RtpccTime
rtpcc_fbra_report_interval (const RtpccFbraParams * p, RtpccTime min_rtt)
{
  gdouble rtt = min_rtt != RTPCC_TIME_NONE && min_rtt > 0 ?
      RTPCC_TIME_AS_SEC (min_rtt) : 0.1;
  gdouble iv = CLAMP (p->report_rtts * rtt, p->report_min, p->report_max);

  /* on a 10 ms grid: RTT samples that differ by the timestamp resolution
   * must not make the receiver reschedule */
  return RTPCC_MSEC (MAX (1.0, round (iv * 100.0)) * 10.0);
}

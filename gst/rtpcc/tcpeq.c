/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/tcpeq.h>

#include <math.h>

/* the smallest p the inverse returns */
#define P_MIN 1e-20

/* f (p) = sqrt (2p/3) + t_RTO/R · 3 sqrt (3p/8) · p (1 + 32 p²), t_RTO = 4 R */
static gdouble
tcpeq_f (gdouble p)
{
  return sqrt (2.0 * p / 3.0) +
      12.0 * sqrt (3.0 * p / 8.0) * p * (1.0 + 32.0 * p * p);
}

gdouble
rtpcc_tcpeq_throughput (gdouble s, gdouble rtt, gdouble p)
{
  if (p <= 0.0)
    return INFINITY;
  if (rtt <= 0.0)
    rtt = 1e-6;
  return s / (rtt * tcpeq_f (p));
}

gdouble
rtpcc_tcpeq_loss_event_rate (gdouble s, gdouble rtt, gdouble x)
{
  gdouble target, lo = log (P_MIN), hi = 0.0;

  if (rtt <= 0.0)
    rtt = 1e-6;
  if (!(x > 0.0))
    return 1.0;
  /* f (p) = s / (R X) and f grows monotonically with p */
  target = s / (rtt * x);
  if (target >= tcpeq_f (1.0))
    return 1.0;
  if (target <= tcpeq_f (P_MIN))
    return P_MIN;
  /* bisection on log p: p spans 20 decades, so a relative tolerance needs
   * log space; 100 halvings leave a bracket of ~1e-28 */
  for (gint i = 0; i < 100; i++) {
    gdouble mid = 0.5 * (lo + hi);
    if (tcpeq_f (exp (mid)) < target)
      lo = mid;
    else
      hi = mid;
  }
  return exp (0.5 * (lo + hi));
}

/* RtpccPlayout's multipath skew (skew.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "skew.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rtpcc/playout.h>

RtpccTime
rtpcc_playout_singh_path_skew (RtpccTime prev, RtpccTime median)
{
  return (RtpccTime) llround (0.01 * (gdouble) median + 0.99 * (gdouble) prev);
}

RtpccTime
rtpcc_playout_singh_delay (RtpccTime prev, RtpccTime max_skew)
{
  return (RtpccTime) llround (((gdouble) max_skew + 124.0 * (gdouble) prev) /
      125.0);
}

void
rtpcc_playout_skew_reset (RtpccPlayoutSkew * skew)
{
  memset (skew, 0, sizeof (*skew));
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

void
rtpcc_playout_skew_add (RtpccPlayoutSkew * s, RtpccTime now, gdouble r,
    gdouble base)
{
  gdouble tmp[RTPCC_PLAYOUT_DW_PACKETS], median;
  guint i, n;

  /* Drift window: min(2 s, 100 packets) of this path's skew over the
   * fastest path. Skews are kept detrended, so clock drift is not skew. */
  if (s->dw_len == RTPCC_PLAYOUT_DW_PACKETS) {
    s->dw_head = (s->dw_head + 1) % RTPCC_PLAYOUT_DW_PACKETS;
    s->dw_len--;
  }
  s->dw[(s->dw_head + s->dw_len) % RTPCC_PLAYOUT_DW_PACKETS] = r;
  s->dw_t[(s->dw_head + s->dw_len) % RTPCC_PLAYOUT_DW_PACKETS] = now;
  s->dw_len++;
  while (s->dw_len > 1 && now - s->dw_t[s->dw_head] > RTPCC_PLAYOUT_DW_SPAN) {
    s->dw_head = (s->dw_head + 1) % RTPCC_PLAYOUT_DW_PACKETS;
    s->dw_len--;
  }
  for (i = 0; i < s->dw_len; i++)
    tmp[i] = s->dw[(s->dw_head + i) % RTPCC_PLAYOUT_DW_PACKETS] - base;
  n = s->dw_len;
  qsort (tmp, n, sizeof (gdouble), cmp_double);
  median = (n % 2) ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);

  if (!s->have_skew) {
    s->path_skew = median;
    s->have_skew = TRUE;
  } else {
    s->path_skew = 0.01 * median + 0.99 * s->path_skew;
  }
}

void
rtpcc_playout_singh_reset (RtpccPlayoutSingh * singh)
{
  singh->have = FALSE;
  singh->delay = singh->dev = 0.0;
}

void
rtpcc_playout_singh_add (RtpccPlayoutSingh * p, gdouble max_skew, gdouble r,
    gdouble base, gdouble path_skew)
{
  if (!p->have) {
    p->delay = max_skew;
    p->dev = fabs (r - base - path_skew);
    p->have = TRUE;
  } else {
    p->delay = (max_skew + 124.0 * p->delay) / 125.0;
    /* the classic playout calculation's variation term, same filter */
    p->dev = (fabs (r - base - path_skew) + 124.0 * p->dev) / 125.0;
  }
}

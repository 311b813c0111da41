/* RtpccPlayout's multipath skew (skew.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "skew.h"
#include "sorted.h"

#include <math.h>
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

/* The oldest delay leaves the window (and its sorted copy). */
static void
drop_oldest (RtpccPlayoutSkew * s)
{
  /* the exact value is there: it was inserted from dw */
  rtpcc_sorted_remove (s->dw_sorted, s->dw_len, s->dw[s->dw_head]);
  s->dw_head = (s->dw_head + 1) % RTPCC_PLAYOUT_DW_PACKETS;
  s->dw_len--;
}

void
rtpcc_playout_skew_add (RtpccPlayoutSkew * s, RtpccTime now, gdouble r,
    gdouble base)
{
  gdouble median;
  guint n;

  /* Drift window: min(2 s, 100 packets) of this path's skew over the
   * fastest path. Skews are kept detrended, so clock drift is not skew. */
  if (s->dw_len == RTPCC_PLAYOUT_DW_PACKETS)
    drop_oldest (s);
  s->dw[(s->dw_head + s->dw_len) % RTPCC_PLAYOUT_DW_PACKETS] = r;
  s->dw_t[(s->dw_head + s->dw_len) % RTPCC_PLAYOUT_DW_PACKETS] = now;
  rtpcc_sorted_insert (s->dw_sorted, s->dw_len, r);
  s->dw_len++;
  while (s->dw_len > 1 && now - s->dw_t[s->dw_head] > RTPCC_PLAYOUT_DW_SPAN)
    drop_oldest (s);
  /* the skew is the delay over the base: subtracting the same base keeps
   * the order, so the median of the skews is the median delay's skew */
  n = s->dw_len;
  median = (n % 2) ? s->dw_sorted[n / 2] - base :
      0.5 * ((s->dw_sorted[n / 2 - 1] - base) + (s->dw_sorted[n / 2] - base));

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

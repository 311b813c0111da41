/* RtpccPlayout's drift estimate (drift.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "drift.h"

#include <stdlib.h>

static gdouble compute_base (const RtpccPlayoutDrift * p);

void
rtpcc_playout_drift_reset (RtpccPlayoutDrift * drift)
{
  drift->head = drift->len = 0;
  drift->have_cur = FALSE;
  drift->slope = 0.0;
  /* until the next delay: the current second's minimum (a history resized
   * under held packets still plays them against it) */
  drift->base = compute_base (drift);
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

static const RtpccPlayoutBucket *
bucket_at (const RtpccPlayoutDrift * p, guint i)
{
  return &p->buckets[(p->head + i) % RTPCC_PLAYOUT_MAX_BUCKETS];
}

/* Theil–Sen: the median of pairwise slopes is robust to the buckets whose
 * minimum sits in a delay spike. */
static void
fit_slope (RtpccPlayoutDrift * p)
{
  gdouble *slopes;
  guint i, j, n = 0;
  RtpccTime span;

  if (p->len < 4)
    return;
  span = bucket_at (p, p->len - 1)->t - bucket_at (p, 0)->t;
  if (span < RTPCC_SEC (4))
    return;

  slopes = g_new (gdouble, p->len * (p->len - 1) / 2);
  for (i = 0; i < p->len; i++) {
    for (j = i + 1; j < p->len; j++) {
      const RtpccPlayoutBucket *a = bucket_at (p, i), *b = bucket_at (p, j);

      if (b->t - a->t < RTPCC_MSEC (500))
        continue;
      slopes[n++] = (gdouble) (b->min_d - a->min_d) / (gdouble) (b->t - a->t);
    }
  }
  if (n > 0) {
    qsort (slopes, n, sizeof (gdouble), cmp_double);
    p->slope = CLAMP (slopes[n / 2], -RTPCC_PLAYOUT_MAX_DRIFT,
        RTPCC_PLAYOUT_MAX_DRIFT);
  }
  g_free (slopes);
}

static gdouble
compute_base (const RtpccPlayoutDrift * p)
{
  gdouble b = (gdouble) p->cur.min_d - p->slope * (gdouble) p->cur.t;
  guint i;

  for (i = 0; i < p->len; i++) {
    const RtpccPlayoutBucket *k = bucket_at (p, i);

    b = MIN (b, (gdouble) k->min_d - p->slope * (gdouble) k->t);
  }
  return b;
}

gboolean
rtpcc_playout_drift_add (RtpccPlayoutDrift * p, RtpccTime now, RtpccTime d,
    RtpccTime window, gdouble * old_slope)
{
  gboolean moved = FALSE;

  if (p->have_cur && now / RTPCC_PLAYOUT_BUCKET_LEN == p->cur.slot) {
    if (d < p->cur.min_d) {
      p->cur.min_d = d;
      p->cur.t = now;
      p->base = compute_base (p);
    }
    return FALSE;
  }
  if (p->have_cur) {
    gdouble old = p->slope;

    if (p->len == RTPCC_PLAYOUT_MAX_BUCKETS) {
      p->head = (p->head + 1) % RTPCC_PLAYOUT_MAX_BUCKETS;
      p->len--;
    }
    p->buckets[(p->head + p->len) % RTPCC_PLAYOUT_MAX_BUCKETS] = p->cur;
    p->len++;
    while (p->len > 0 && now - bucket_at (p, 0)->t > window) {
      p->head = (p->head + 1) % RTPCC_PLAYOUT_MAX_BUCKETS;
      p->len--;
    }
    fit_slope (p);
    if (p->slope != old) {
      moved = TRUE;
      if (old_slope)
        *old_slope = old;
    }
  }
  p->cur.t = now;
  p->cur.min_d = d;
  p->cur.slot = now / RTPCC_PLAYOUT_BUCKET_LEN;
  p->have_cur = TRUE;
  p->base = compute_base (p);
  return moved;
}

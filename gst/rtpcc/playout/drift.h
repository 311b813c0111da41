/* RtpccPlayout's clock drift estimate: the per-second minima of the
 * relative delay over drift_window, a Theil–Sen slope through them (the
 * sender's RTP clock against ours), and the fastest transit (base), all
 * detrended by that slope.
 *
 * Library-internal (not installed); see playout.h for the timing model.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PLAYOUT_DRIFT_H__
#define __RTPCC_PLAYOUT_DRIFT_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_PLAYOUT_BUCKET_LEN RTPCC_SEC (1)
#define RTPCC_PLAYOUT_MAX_BUCKETS 128
#define RTPCC_PLAYOUT_MAX_DRIFT 1e-3    /* ±1000 ppm: beyond any real crystal */

typedef struct
{
  RtpccTime t;                  /* when the minimum was seen */
  RtpccTime min_d;
  gint64 slot;                  /* t / BUCKET_LEN at the first sample */
} RtpccPlayoutBucket;

typedef struct
{
  RtpccPlayoutBucket buckets[RTPCC_PLAYOUT_MAX_BUCKETS];
  guint head, len;
  RtpccPlayoutBucket cur;
  gboolean have_cur;
  gdouble slope;                /* delay drift, s per s */
  gdouble base;                 /* the lowest detrended delay (ns) */
} RtpccPlayoutDrift;

void rtpcc_playout_drift_reset (RtpccPlayoutDrift * drift);
/* One relative delay @d at @now. TRUE if the slope moved, *@old_slope
 * then being the one before. */
gboolean rtpcc_playout_drift_add (RtpccPlayoutDrift * drift, RtpccTime now,
    RtpccTime d, RtpccTime window, gdouble * old_slope);
/* The lowest detrended delay over the window: the fastest transit. Valid
 * once a delay was added. */
static inline gdouble
rtpcc_playout_drift_base (const RtpccPlayoutDrift * drift)
{
  return drift->base;
}

G_END_DECLS

#endif /* __RTPCC_PLAYOUT_DRIFT_H__ */

/* RtpccPlayout's multipath skew, as in the MPRTP playout of Varun Singh's
 * doctoral thesis ("Protocols and Algorithms for Adaptive Multimedia
 * Systems", Aalto University 2015, ch. 6, Publication VII): per path a
 * drift window of min(2 s, 100 packets) of packet skews over the fastest
 * path, the path skew an EWMA of its median; the playout delay a 1/125
 * filter of the largest path skew (mode=singh), with the classic playout
 * calculation's variation term.
 *
 * Library-internal (not installed).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PLAYOUT_SKEW_H__
#define __RTPCC_PLAYOUT_SKEW_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_PLAYOUT_DW_PACKETS 100    /* drift window, packets */
#define RTPCC_PLAYOUT_DW_SPAN RTPCC_SEC (2)

/* One path's skew. */
typedef struct
{
  gdouble dw[RTPCC_PLAYOUT_DW_PACKETS];
  RtpccTime dw_t[RTPCC_PLAYOUT_DW_PACKETS];
  guint dw_head, dw_len;
  /* the same delays in ascending order, for the median in O(log n) search
   * and a short move instead of a sort per packet */
  gdouble dw_sorted[RTPCC_PLAYOUT_DW_PACKETS];
  gdouble path_skew;
  gboolean have_skew;
} RtpccPlayoutSkew;

/* The singh playout delay and its variation (ns). */
typedef struct
{
  gdouble delay, dev;
  gboolean have;
} RtpccPlayoutSingh;

void rtpcc_playout_skew_reset (RtpccPlayoutSkew * skew);
/* A detrended delay @r at @now on this path, @base the fastest transit:
 * the path skew moves 1 % towards the drift window's median skew. */
void rtpcc_playout_skew_add (RtpccPlayoutSkew * skew, RtpccTime now,
    gdouble r, gdouble base);

void rtpcc_playout_singh_reset (RtpccPlayoutSingh * singh);
/* @max_skew: the largest skew of the live paths; @r, @base, @path_skew:
 * the sample just added, for the variation term. */
void rtpcc_playout_singh_add (RtpccPlayoutSingh * singh, gdouble max_skew,
    gdouble r, gdouble base, gdouble path_skew);

G_END_DECLS

#endif /* __RTPCC_PLAYOUT_SKEW_H__ */

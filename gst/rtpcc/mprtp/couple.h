/* RtpccMprtpCouple: coupled congestion control for a multipath call,
 * sans I/O. Each path keeps its own controller (its own feedback, loss,
 * delay and rate); this object turns their rates into the rate each path
 * may carry and the aggregate the encoder is given.
 *
 * The rule, in the spirit of RFC 6356 (MPTCP's coupled increase): a
 * multipath call must get at least what one path would, and must take no
 * more from a shared bottleneck than a single-path call would. RFC 6356
 * reaches that by coupling the window increases of TCP subflows; our
 * per-path controllers are rate-based black boxes that also cut to a
 * multiple of their own *received* rate (gcc: 0.85 R, and never claim
 * more than 1.5 R), so throttling their increases from outside does not
 * converge (a throttled path looks application-limited and its estimate
 * follows what we let through, downwards). We therefore couple by
 * structure instead, as RFC 8699's flow state exchange does for flows it
 * knows share a bottleneck:
 *
 *  1. Shared-bottleneck detection. Per path, the one-way queuing delay
 *     each feedback reports is averaged over bins (250 ms); two paths
 *     whose bin means correlate (Pearson, over the last 10 s) at or above
 *     0.8 are taken to share a bottleneck, until the correlation falls to
 *     0.5 or below (hysteresis). A queue that one path sees rise and fall
 *     by at least min_spread while the other's stays flat is evidence
 *     against sharing (a shared queue shows on both); when both are flat
 *     there is no verdict and the last one stands. This is a much reduced
 *     form of RFC 8382's summary-statistics grouping (its skewness,
 *     variability and oscillation statistics are replaced by the direct
 *     correlation we can afford because both paths are ours).
 *  2. A group of paths that share a bottleneck is one resource: its rate
 *     is its leader's (the member with the highest controller rate; a
 *     member replaces the leader only when 20 % above it), and the leader
 *     carries it; every other member keeps a trickle of min(its own rate,
 *     trickle × the leader's) so the detector keeps seeing it (and it is a
 *     warm fallback), taken from the leader's share. The group thus never
 *     carries more than its leader's controller would alone — what a
 *     single-path call on that bottleneck gets.
 *  3. Paths in no group carry their own controller's rate.
 *
 * The aggregate is the sum of the allowed rates; with one path everything
 * is that path's rate (a single-path call is untouched).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_MPRTP_COUPLE_H__
#define __RTPCC_MPRTP_COUPLE_H__

#include <rtpcc/common.h>
#include <rtpcc/mprtp/ext.h>

G_BEGIN_DECLS

typedef struct
{
  RtpccTime bin;                /* delay averaging bin, 250 ms */
  guint window;                 /* bins in the correlation, 40 (10 s) */
  guint min_bins;               /* bins both paths need for a verdict, 16 */
  gdouble group_above;          /* correlation to group, 0.8 */
  gdouble split_below;          /* correlation to split, 0.5 */
  RtpccTime min_spread;         /* std of the bin means below which a
                                 * path's queue is flat, 2 ms */
  gdouble trickle;              /* share of a group kept on a non-leader,
                                 * 0.05 (0..0.5) */
  gdouble leader_margin;        /* a member overtakes the leader above
                                 * this × its rate, 1.2 (>= 1) */
} RtpccMprtpCoupleConfig;

void rtpcc_mprtp_couple_config_init (RtpccMprtpCoupleConfig * config);

typedef struct _RtpccMprtpCouple RtpccMprtpCouple;

/* NULL if @n_paths is 0 or above RTPCC_MPRTP_MAX_PATHS, or the config is
 * out of range. */
RtpccMprtpCouple *rtpcc_mprtp_couple_new (const RtpccMprtpCoupleConfig *
    config, guint n_paths);
void rtpcc_mprtp_couple_free (RtpccMprtpCouple * couple);

/* A queuing-delay sample of @path at @now (non-decreasing): the one-way
 * delay over its minimum that the path's latest feedback reported. */
void rtpcc_mprtp_couple_add_delay (RtpccMprtpCouple * couple, guint path,
    RtpccTime now, RtpccTime queue_delay);

/* Allowed rate per path (@allowed, n_paths entries) from the paths'
 * controller rates (@rates, bit/s; 0 = the path carries nothing now) at
 * @now; returns the aggregate. Updates the grouping first. */
guint64 rtpcc_mprtp_couple_compute (RtpccMprtpCouple * couple, RtpccTime now,
    const guint64 * rates, guint64 * allowed);

/* The correlation of the two paths' bin means (NaN: no verdict). */
gdouble rtpcc_mprtp_couple_correlation (RtpccMprtpCouple * couple, guint a,
    guint b);
/* Whether @a and @b are in one group (after the last compute). */
gboolean rtpcc_mprtp_couple_shared (const RtpccMprtpCouple * couple, guint a,
    guint b);
/* The leader of @path's group (@path itself when alone). */
guint rtpcc_mprtp_couple_leader (const RtpccMprtpCouple * couple, guint path);

G_END_DECLS

#endif

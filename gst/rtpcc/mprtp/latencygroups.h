/* The multipath scheduler's choice of paths by latency (Singh's thesis,
 * Publication VII): the candidate paths (live, within the latency bound)
 * are grouped by similar one-way latency, the groups ordered by
 * capacity / latency, and whole groups taken until the media requirement
 * is met.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_MPRTP_LATENCYGROUPS_H__
#define __RTPCC_MPRTP_LATENCYGROUPS_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* The latency a path is ordered by: @latency, but at least 1 ms, and 1 ms
 * while unknown (RTPCC_TIME_NONE), so capacity / latency stays finite. */
RtpccTime rtpcc_mprtp_order_latency (RtpccTime latency);

/* Of @n candidates with known one-way @latency and controller @rate
 * (bit/s), sets @take[i] for those chosen: sorted by latency (stable),
 * a group runs from its fastest path to the last within @similar of it;
 * groups are taken best capacity / mean latency first until their
 * capacity reaches @media_max (0: all of them). */
void rtpcc_mprtp_latency_groups_select (const RtpccTime * latency,
    const guint64 * rate, guint n, RtpccTime similar, guint64 media_max,
    gboolean * take);

G_END_DECLS

#endif /* __RTPCC_MPRTP_LATENCYGROUPS_H__ */

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/mprtp/latencygroups.h>
#include <rtpcc/mprtp/ext.h>

/* latency used for ordering while a path has no RTT yet */
#define UNKNOWN_LATENCY RTPCC_MSEC (1)

RtpccTime
rtpcc_mprtp_order_latency (RtpccTime latency)
{
  return latency == RTPCC_TIME_NONE || latency < UNKNOWN_LATENCY ?
      UNKNOWN_LATENCY : latency;
}

void
rtpcc_mprtp_latency_groups_select (const RtpccTime * latency,
    const guint64 * rate, guint n, RtpccTime similar, guint64 media_max,
    gboolean * take)
{
  guint idx[RTPCC_MPRTP_MAX_PATHS];
  guint start[RTPCC_MPRTP_MAX_PATHS], len[RTPCC_MPRTP_MAX_PATHS];
  gdouble score[RTPCC_MPRTP_MAX_PATHS];
  guint64 cap[RTPCC_MPRTP_MAX_PATHS];
  gboolean used[RTPCC_MPRTP_MAX_PATHS] = { FALSE };
  guint ng = 0;
  guint64 taken = 0;

  g_return_if_fail (n <= RTPCC_MPRTP_MAX_PATHS);
  /* by latency (insertion sort: n <= 16) */
  for (guint a = 0; a < n; a++) {
    guint b = a;

    take[a] = FALSE;
    while (b > 0 && latency[idx[b - 1]] > latency[a]) {
      idx[b] = idx[b - 1];
      b--;
    }
    idx[b] = a;
  }
  /* groups of similar latency */
  for (guint a = 0; a < n;) {
    RtpccTime first = latency[idx[a]];
    gdouble lat = 0.0;
    guint b = a;

    cap[ng] = 0;
    while (b < n && latency[idx[b]] - first <= similar) {
      cap[ng] += rate[idx[b]];
      lat += (gdouble) rtpcc_mprtp_order_latency (latency[idx[b]]);
      b++;
    }
    start[ng] = a;
    len[ng] = b - a;
    score[ng] = (gdouble) cap[ng] / (lat / len[ng]);
    ng++;
    a = b;
  }
  for (guint k = 0; k < ng; k++) {
    gint best = -1;

    if (media_max > 0 && taken >= media_max)
      break;
    for (guint g = 0; g < ng; g++) {
      if (!used[g] && (best < 0 || score[g] > score[best]))
        best = (gint) g;
    }
    used[best] = TRUE;
    taken += cap[best];
    for (guint m = 0; m < len[best]; m++)
      take[idx[start[best] + m]] = TRUE;
  }
}

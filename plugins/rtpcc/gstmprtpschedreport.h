/* mprtpsched's reading of a path's MPRTCP subflow reports
 * (draft-ietf-avtcore-mprtp §9.2) from that path's rtpccsink stats.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_MPRTP_SCHED_REPORT_H__
#define __GST_MPRTP_SCHED_REPORT_H__

#include <gst/gst.h>
#include <rtpcc/mprtp/ext.h>

G_BEGIN_DECLS

/* The latest subflow report in a path sink's @stats
 * ("application/x-rtpcc-sink-stats": mprtcp-received, subflow-*), into
 * @out, when one came since *@seen reports (then *@seen moves on); FALSE
 * otherwise, or when the fields are missing. */
gboolean gst_mprtp_sched_report_from_stats (const GstStructure * stats,
    guint64 * seen, RtpccMprtpSubflowReport * out);

G_END_DECLS

#endif

/* mprtpsched's reading of a path's MPRTCP subflow reports from that path's
 * rtpccsink stats (gstmprtpschedreport.h). The sink keeps the latest report
 * about our media (gst/rtpcc/sender.h); the counts in it are cumulative,
 * so a poll that missed one loses nothing.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstmprtpschedreport.h"

gboolean
gst_mprtp_sched_report_from_stats (const GstStructure * stats,
    guint64 * seen, RtpccMprtpSubflowReport * out)
{
  guint64 received = 0, discards = 0;
  guint id = 0, fraction = 0, highest = 0;
  gint lost = 0;

  if (!gst_structure_get_uint64 (stats, "mprtcp-received", &received)
      || received <= *seen)
    return FALSE;
  if (!gst_structure_get_uint (stats, "subflow-id", &id)
      || !gst_structure_get_uint (stats, "subflow-fraction-lost", &fraction)
      || !gst_structure_get_int (stats, "subflow-lost", &lost)
      || !gst_structure_get_uint (stats, "subflow-highest-seq", &highest)
      || !gst_structure_get_uint64 (stats, "subflow-discards", &discards))
    return FALSE;
  *seen = received;
  memset (out, 0, sizeof (*out));
  out->subflow_id = (guint16) id;
  out->rr.fraction_lost = (guint8) MIN (fraction, 255);
  out->rr.cumulative_lost = lost;
  out->rr.ext_highest_seq = highest;
  out->has_discards = TRUE;
  out->discards = (guint32) MIN (discards, G_MAXUINT32);
  return TRUE;
}

/* The report-interval request (RTCP APP "FBIV"): see reportinterval.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "reportinterval.h"
#include "rtcp.h"
#include "bytes.h"

#include <string.h>

gsize
rtpcc_report_interval_write (guint8 * buf, gsize max, guint32 ssrc,
    RtpccTime interval)
{
  RtpccTime us = interval / 1000;

  if (max < RTPCC_REPORT_INTERVAL_SIZE || us <= 0 || us > G_MAXUINT32)
    return 0;
  buf[0] = 0x80;                /* V=2, P=0, subtype 0 */
  buf[1] = RTPCC_RTCP_APP;
  rtpcc_wr16 (buf + 2, RTPCC_REPORT_INTERVAL_SIZE / 4 - 1);
  rtpcc_wr32 (buf + 4, ssrc);
  memcpy (buf + 8, RTPCC_REPORT_INTERVAL_NAME, 4);
  rtpcc_wr32 (buf + 12, (guint32) us);
  return RTPCC_REPORT_INTERVAL_SIZE;
}

gboolean
rtpcc_report_interval_parse (const guint8 * pkt, gsize len, guint32 * ssrc,
    RtpccTime * interval)
{
  guint32 us;

  if (len != RTPCC_REPORT_INTERVAL_SIZE || (pkt[0] >> 6) != 2
      || (pkt[0] & 0x20) || (pkt[0] & 0x1f) != 0 || pkt[1] != RTPCC_RTCP_APP
      || rtpcc_rd16 (pkt + 2) != RTPCC_REPORT_INTERVAL_SIZE / 4 - 1
      || memcmp (pkt + 8, RTPCC_REPORT_INTERVAL_NAME, 4) != 0)
    return FALSE;
  us = rtpcc_rd32 (pkt + 12);
  if (us == 0)
    return FALSE;
  *ssrc = rtpcc_rd32 (pkt + 4);
  *interval = (RtpccTime) us *1000;
  return TRUE;
}

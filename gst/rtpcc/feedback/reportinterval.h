/* The report-interval request: an RTCP APP packet (RFC 3550 §6.7) with
 * which a media sender asks its receiver for regular reports (RR, with the
 * XR the receiver adds) at a given interval.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  |V=2|P| subtype=0 |   PT=APP=204  |          length = 3           |
 *  |                       SSRC of the media sender                  |
 *  |                          name = "FBIV"                          |
 *  |               wanted report interval, microseconds              |
 *
 * A controller that evaluates once per report (FBRA) needs reports more
 * often than RFC 3550's default; the sender states what it needs instead
 * of the user configuring the receiver. A receiver that does not know the
 * name ignores the packet (RFC 3550 §6.7).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_REPORTINTERVAL_H__
#define __RTPCC_FEEDBACK_REPORTINTERVAL_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_REPORT_INTERVAL_SIZE 16
#define RTPCC_REPORT_INTERVAL_NAME "FBIV"

/* 0 if @max < RTPCC_REPORT_INTERVAL_SIZE or @interval is not in
 * (0, 2^32 µs); else RTPCC_REPORT_INTERVAL_SIZE. */
gsize rtpcc_report_interval_write (guint8 * buf, gsize max, guint32 ssrc,
    RtpccTime interval);
/* @pkt/@len: one RTCP packet (header included) as the compound iterator
 * yields it. FALSE if it is not an APP packet of this name and subtype, or
 * is one of the wrong length or with a zero interval. */
gboolean rtpcc_report_interval_parse (const guint8 * pkt, gsize len,
    guint32 * ssrc, RtpccTime * interval);

G_END_DECLS

#endif

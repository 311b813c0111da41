/* sendbuffer's "stats" property and bus message: the library's queue
 * statistics (RtpccSendbufStats) and the element's own counters as one
 * "application/x-sendbuffer-stats" structure. The fields are documented
 * with the property (GstSendBuffer:stats).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_SEND_BUFFER_STATS_H__
#define __GST_SEND_BUFFER_STATS_H__

#include <gst/gst.h>
#include <rtpcc/sendbuf.h>

G_BEGIN_DECLS

/* What the element counts itself (packets). */
typedef struct
{
  guint64 invalid;              /* not RTP, dropped */
  guint64 renumbered;           /* sent with a rewritten sequence number */
  guint64 target_events;        /* rtpcc-target events seen */
} GstSendBufferCounters;

/* A new structure; an empty one while there is no queue (@sb NULL). */
GstStructure *gst_send_buffer_stats_new (const RtpccSendbuf * sb,
    const GstSendBufferCounters * counters);

G_END_DECLS

#endif /* __GST_SEND_BUFFER_STATS_H__ */

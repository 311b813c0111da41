/* TFRC's send log: every packet's send time, size, the rate the sender
 * was allowed then and whether it was application-limited, so a round can
 * be judged data-limited (RFC 5348 §4.3, §8.2) from what the sender
 * actually did over the send-time interval the round's feedback covers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_TFRC_SENDLOG_H__
#define __RTPCC_CC_TFRC_SENDLOG_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  RtpccTime send_time;
  gdouble allowed;              /* bytes/s the sender was told at that time */
  guint size;
  gboolean app_limited;
} RtpccTfrcSentEntry;

typedef struct
{
  RtpccTfrcSentEntry *ring;     /* capacity a power of two */
  guint cap, head, len;
} RtpccTfrcSendLog;

void rtpcc_tfrc_send_log_init (RtpccTfrcSendLog * log);
void rtpcc_tfrc_send_log_clear (RtpccTfrcSendLog * log);
/* Appends @e (send times ascending); past 65536 entries the oldest goes. */
void rtpcc_tfrc_send_log_push (RtpccTfrcSendLog * log,
    const RtpccTfrcSentEntry * e);
/* Drops the entries sent before @before. */
void rtpcc_tfrc_send_log_prune (RtpccTfrcSendLog * log, RtpccTime before);

/* Was the sender data-limited over the send-time interval (@t_old,
 * @t_new]? TRUE when every packet in it was sent app-limited below the
 * allowance, or less than half of the allowance went out. FALSE when
 * there is nothing to judge (no packet in it, an unknown end, or the log
 * no longer reaches back to @t_old). */
gboolean rtpcc_tfrc_send_log_data_limited (const RtpccTfrcSendLog * log,
    RtpccTime t_old, RtpccTime t_new);

G_END_DECLS

#endif /* __RTPCC_CC_TFRC_SENDLOG_H__ */

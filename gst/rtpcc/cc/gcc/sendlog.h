/* gcc send log: the media bytes sent (and the sender's FEC outside
 * probes, gcc.c), cumulative over time, so the sending rate over any
 * recent window is exact (the application-limited test compares it with
 * the target). Marks older than 3 s are dropped.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_SENDLOG_H__
#define __RTPCC_CC_GCC_SENDLOG_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  GArray *marks;                /* (time, bytes sent up to it), oldest first */
  guint head;                   /* the oldest mark kept */
  guint64 cum;
} RtpccGccSendLog;

void rtpcc_gcc_send_log_init (RtpccGccSendLog * l);
void rtpcc_gcc_send_log_clear (RtpccGccSendLog * l);
/* @size bytes sent at @t (times ascending) */
void rtpcc_gcc_send_log_add (RtpccGccSendLog * l, RtpccTime t, guint size);
/* bit/s sent over (@t − @window, @t]; -1 if the log does not reach back to
 * @t − @window */
gdouble rtpcc_gcc_send_log_rate (const RtpccGccSendLog * l, RtpccTime t,
    RtpccTime window);

/* Shared by the time-ordered logs here (send log, applimit.c): arrays of
 * marks whose elements begin with their RtpccTime, the oldest kept at
 * @head. The last mark of @marks[@head..] at or before @t, or -1. */
gint rtpcc_gcc_marks_at (GArray * marks, guint head, RtpccTime t);
/* Drops the marks before *@head once they are the larger part. */
void rtpcc_gcc_marks_compact (GArray * marks, guint * head);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_SENDLOG_H__ */

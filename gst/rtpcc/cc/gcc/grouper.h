/* gcc packet grouping (draft-ietf-rmcat-gcc-02 §5.1–5.2, libwebrtc
 * inter_arrival_delta): received packets -> groups -> the inter-group delay
 * variation d(i) the arrival-time filters read.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_GROUPER_H__
#define __RTPCC_CC_GCC_GROUPER_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* the draft's burst_time: a group spans packets sent within this */
#define RTPCC_GCC_BURST_TIME RTPCC_MSEC (5)

typedef struct
{
  RtpccTime first_send, last_send;
  RtpccTime first_arrival, last_arrival;
  guint64 bytes;
  guint n_packets;              /* 0 = no group */
} RtpccGccGroup;

typedef struct
{
  RtpccTime burst_time;
  RtpccGccGroup cur, prev;
  guint n_reordered;            /* consecutive groups arriving out of order */
  guint64 n_groups;             /* groups closed */
  guint64 n_bursts;             /* packets merged by the arrival-burst rule */
} RtpccGccGrouper;

/* One inter-group sample, produced when a group is complete (the first
 * packet of the next group has been seen). */
typedef struct
{
  gdouble send_delta;           /* T(i) − T(i−1), ms */
  gdouble arrival_delta;        /* t(i) − t(i−1), ms */
  gdouble d;                    /* d(i) = arrival_delta − send_delta, ms */
  RtpccTime arrival;            /* t(i): arrival of the group's last packet */
  RtpccTime send;               /* T(i): send time of its last packet */
  guint64 bytes;
  guint n_packets;
} RtpccGccDelta;

/* @burst_time 0 = RTPCC_GCC_BURST_TIME */
void rtpcc_gcc_grouper_init (RtpccGccGrouper * g, RtpccTime burst_time);
/* Feed one received packet (ascending sequence order). Returns TRUE and
 * fills @out when this packet closed a group that has a predecessor. */
gboolean rtpcc_gcc_grouper_add (RtpccGccGrouper * g, RtpccTime send_time,
    RtpccTime arrival, guint size, RtpccGccDelta * out);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_GROUPER_H__ */

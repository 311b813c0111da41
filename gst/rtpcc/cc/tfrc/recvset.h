/* TFRC's X_recv_set (RFC 5348 §4.3, §4.4): the receive rates measured over
 * the last two RTTs, whose maximum limits the sending rate (twice it, or
 * once after a loss in a data-limited round). The set starts as
 * {Infinity} so the first reports cannot limit slow start.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_TFRC_RECVSET_H__
#define __RTPCC_CC_TFRC_RECVSET_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_TFRC_RECV_SET_SIZE 8

typedef struct
{
  gdouble rate;                 /* bytes/s */
  RtpccTime time;               /* when it was added */
} RtpccTfrcRecvEntry;

typedef struct
{
  RtpccTfrcRecvEntry entries[RTPCC_TFRC_RECV_SET_SIZE];
  guint n;                      /* zero-initialised: empty */
} RtpccTfrcRecvSet;

/* max (X_recv_set); INFINITY when empty (no limit, like {Infinity}). */
gdouble rtpcc_tfrc_recv_set_max (const RtpccTfrcRecvSet * set);

/* "Update X_recv_set()": forget entries older than @max_age (2 R) at
 * @now, then add @x_recv unless it is unknown (< 0), dropping the oldest
 * when full. */
void rtpcc_tfrc_recv_set_update (RtpccTfrcRecvSet * set, RtpccTime now,
    gdouble x_recv, RtpccTime max_age);

/* "Maximize X_recv_set()": one entry, the maximum of @x_recv and the
 * finite entries (Infinity dropped); empty if all are unknown. */
void rtpcc_tfrc_recv_set_maximize (RtpccTfrcRecvSet * set, RtpccTime now,
    gdouble x_recv);

/* The set becomes {@rate} (at @now). */
void rtpcc_tfrc_recv_set_reset (RtpccTfrcRecvSet * set, RtpccTime now,
    gdouble rate);

/* Every entry halved (§4.3 step 4, a loss in a data-limited round). */
void rtpcc_tfrc_recv_set_halve (RtpccTfrcRecvSet * set);

G_END_DECLS

#endif /* __RTPCC_CC_TFRC_RECVSET_H__ */

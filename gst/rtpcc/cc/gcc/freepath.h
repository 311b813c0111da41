/* gcc free path: a standing-queue tracker that tells when the path has
 * shown no queue for a while, so capacity grew or others left and the
 * estimate may climb (the free-path climb, docs/gcc.md (c)).
 *
 * A packet is queued when its one-way delay (arrival − send, with the
 * unknown clock offset) is more than 5 ms above the minimum of packets of
 * its size class over the last 10–20 s. Every flow through a FIFO sees
 * the queue empty at the same time, which is what keeps flows that climb
 * together equal.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_FREEPATH_H__
#define __RTPCC_CC_GCC_FREEPATH_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

/* no queue this long: the path is free */
#define RTPCC_GCC_FREE_TIME RTPCC_MSEC (800)
/* packet size classes the minimum one-way delay is kept for */
#define RTPCC_GCC_FREE_PATH_CLASSES 4

typedef struct
{
  RtpccTime free_time;          /* 0 = never free */
  gboolean by_size;             /* a minimum per size class (default) */
  RtpccTime bucket_start;
  RtpccTime cur_min[RTPCC_GCC_FREE_PATH_CLASSES];
  RtpccTime prev_min[RTPCC_GCC_FREE_PATH_CLASSES];
  RtpccTime last_send;          /* the previous reported packet */
  guint last_size;
  RtpccTime last_queue;         /* a queue above the start threshold */
  RtpccTime last_queue_stop;    /* ... above the stop threshold */
  RtpccTime free_since;         /* the free path holds since, or NONE */
} RtpccGccFreePath;

void rtpcc_gcc_free_path_init (RtpccGccFreePath * f);
/* One received packet @r, reported at @now in a feedback whose arrival
 * times come in units of @resolution, while the pacer drains at
 * @pacing_rate bit/s. */
void rtpcc_gcc_free_path_track (RtpccGccFreePath * f, RtpccTime now,
    const RtpccPacketReport * r, RtpccTime resolution, guint64 pacing_rate);
/* Starts or ends the free path at @now; TRUE while it holds. */
gboolean rtpcc_gcc_free_path_update (RtpccGccFreePath * f, RtpccTime now);
/* How long no packet has queued, as of @now; -1 before the first packet. */
RtpccTime rtpcc_gcc_free_path_quiet_time (const RtpccGccFreePath * f,
    RtpccTime now);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_FREEPATH_H__ */

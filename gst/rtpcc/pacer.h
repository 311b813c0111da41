/* RtpccPacer: leaky-bucket pacing with bounded frame spreading.
 *
 * Packets leave at the pacing rate, so a video frame's burst of packets is
 * spread out instead of hitting the bottleneck queue at once; but never so
 * slowly that a packet waits longer than max-delay: when the queue would not
 * drain in time the drain rate rises to make it. A small send credit lets a
 * late timer wake-up catch up (the under-sending that timer error caused in
 * Saurin's TFRC sender: "Congestion Control for Video-conferencing
 * Applications", MSc thesis, University of Glasgow 2006) without bursting more than
 * burst-time worth of data.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PACER_H__
#define __RTPCC_PACER_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct _RtpccPacer RtpccPacer;

typedef struct
{
  guint64 rate;                 /* bit/s; 0 = no pacing (send at once) */
  RtpccTime max_delay;          /* bound on queueing in the pacer */
  RtpccTime burst;              /* catch-up credit after a late wake-up */
  guint64 max_bytes;            /* queue limit; beyond it the oldest is dropped */
} RtpccPacerConfig;

/* rate 0, max_delay 100 ms, burst 5 ms, max_bytes 2 MB */
void rtpcc_pacer_config_init (RtpccPacerConfig * config);

RtpccPacer *rtpcc_pacer_new (const RtpccPacerConfig * config);
/* @free_func releases handles still queued at free / dropped on overflow */
void rtpcc_pacer_set_free_func (RtpccPacer * pacer, GDestroyNotify free_func);
void rtpcc_pacer_free (RtpccPacer * pacer);

void rtpcc_pacer_set_rate (RtpccPacer * pacer, guint64 bps);
guint64 rtpcc_pacer_get_rate (const RtpccPacer * pacer);
void rtpcc_pacer_set_max_delay (RtpccPacer * pacer, RtpccTime max_delay);

/* Queue a packet. Returns the number of old packets dropped to stay within
 * max_bytes (their handles go to the free func). */
guint rtpcc_pacer_push (RtpccPacer * pacer, RtpccTime now, gpointer handle,
    guint size);

/* Queue a packet ahead of every packet pushed with rtpcc_pacer_push (after
 * the urgent ones already queued): a retransmission, whose playout
 * deadline is nearer than that of the media behind it. It takes the age of
 * the queue's head, so the drain rate max_delay implies does not drop
 * because a young packet is first. Over max_bytes the oldest non-urgent
 * packets go first. Returns how many were dropped. */
guint rtpcc_pacer_push_urgent (RtpccPacer * pacer, RtpccTime now,
    gpointer handle, guint size);
/* The oldest packet that is not urgent (else the oldest urgent one),
 * regardless of pacing: what goes first over a byte limit. */
gpointer rtpcc_pacer_pop_oldest (RtpccPacer * pacer, guint * size);

/* When the head packet may leave (<= now: at once); RTPCC_TIME_NONE if the
 * queue is empty. */
RtpccTime rtpcc_pacer_next_send_time (RtpccPacer * pacer, RtpccTime now);
/* The head packet if it may leave at @now, else NULL. */
gpointer rtpcc_pacer_pop (RtpccPacer * pacer, RtpccTime now, guint * size,
    RtpccTime * enqueued);
/* The head packet regardless of pacing (flushing). */
gpointer rtpcc_pacer_pop_any (RtpccPacer * pacer, guint * size);

guint rtpcc_pacer_get_packets (const RtpccPacer * pacer);
guint64 rtpcc_pacer_get_bytes (const RtpccPacer * pacer);
/* Age of the oldest queued packet at @now (0 when empty). */
RtpccTime rtpcc_pacer_get_head_age (const RtpccPacer * pacer, RtpccTime now);

G_END_DECLS

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/grouper.h>

#include <string.h>

/* an arrival burst lasts at most this (libwebrtc kMaxBurstDuration) */
#define MAX_BURST_DURATION    RTPCC_MSEC (100)
/* Arrival times are quantised (CCFB 1/1024 s, TWCC 250 µs): a negative
 * propagation delta smaller than one CCFB tick is rounding, not a burst. */
#define ARRIVAL_QUANTUM       RTPCC_USEC (1000)
/* this many groups in a row arriving out of order: the clock jumped */
#define REORDER_RESET         3

void
rtpcc_gcc_grouper_init (RtpccGccGrouper * g, RtpccTime burst_time)
{
  memset (g, 0, sizeof (*g));
  g->burst_time = burst_time > 0 ? burst_time : RTPCC_GCC_BURST_TIME;
}

static void
group_start (RtpccGccGroup * grp, RtpccTime send, RtpccTime arrival,
    guint size)
{
  grp->first_send = grp->last_send = send;
  grp->first_arrival = grp->last_arrival = arrival;
  grp->bytes = size;
  grp->n_packets = 1;
}

/* draft §5.2: a packet joins the current group if it was sent within
 * burst_time of the group's first packet, or if it arrived in a burst:
 * less than burst_time after the group's last packet and with a negative
 * inter-group delay variation (it caught up — a queue released at once,
 * e.g. after an outage), for at most 100 ms of arrivals. */
static gboolean
belongs_to_group (const RtpccGccGrouper * g, RtpccTime send, RtpccTime arrival,
    gboolean * burst)
{
  const RtpccGccGroup *c = &g->cur;
  RtpccTime send_delta = send - c->last_send;
  RtpccTime arrival_delta = arrival - c->last_arrival;

  *burst = FALSE;
  if (send - c->first_send <= g->burst_time)
    return TRUE;
  if (send_delta == 0)
    return TRUE;
  if (arrival_delta - send_delta < -ARRIVAL_QUANTUM
      && arrival_delta <= g->burst_time
      && arrival - c->first_arrival < MAX_BURST_DURATION) {
    *burst = TRUE;
    return TRUE;
  }
  return FALSE;
}

gboolean
rtpcc_gcc_grouper_add (RtpccGccGrouper * g, RtpccTime send_time,
    RtpccTime arrival, guint size, RtpccGccDelta * out)
{
  gboolean produced = FALSE, burst;

  if (g->cur.n_packets == 0) {
    group_start (&g->cur, send_time, arrival, size);
    return FALSE;
  }
  /* sent before the current group began: reordered, ignored (§5.1) */
  if (send_time < g->cur.first_send)
    return FALSE;
  if (belongs_to_group (g, send_time, arrival, &burst)) {
    g->cur.last_send = MAX (g->cur.last_send, send_time);
    g->cur.last_arrival = arrival;
    g->cur.bytes += size;
    g->cur.n_packets++;
    if (burst)
      g->n_bursts++;
    return FALSE;
  }

  /* the current group is complete */
  g->n_groups++;
  if (g->prev.n_packets > 0) {
    RtpccTime sd = g->cur.last_send - g->prev.last_send;
    RtpccTime ad = g->cur.last_arrival - g->prev.last_arrival;

    if (ad < 0) {
      /* the group overtook its predecessor: no meaningful sample; a run of
       * them means the arrival clock jumped, start again */
      if (++g->n_reordered >= REORDER_RESET) {
        RtpccTime bt = g->burst_time;
        rtpcc_gcc_grouper_init (g, bt);
        group_start (&g->cur, send_time, arrival, size);
        return FALSE;
      }
    } else {
      g->n_reordered = 0;
      out->send_delta = RTPCC_TIME_AS_MSEC (sd);
      out->arrival_delta = RTPCC_TIME_AS_MSEC (ad);
      out->d = RTPCC_TIME_AS_MSEC (ad - sd);
      out->arrival = g->cur.last_arrival;
      out->send = g->cur.last_send;
      out->bytes = g->cur.bytes;
      out->n_packets = g->cur.n_packets;
      produced = TRUE;
    }
  }
  g->prev = g->cur;
  group_start (&g->cur, send_time, arrival, size);
  return produced;
}

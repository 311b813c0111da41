/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/freepath.h>

/* more than this above the minimum one-way delay is a queue */
#define QUEUE_TH              RTPCC_MSEC (5)
/* the minimum is kept over two buckets of this, so it follows route
 * changes and slow drift */
#define BUCKET                RTPCC_SEC (10)
/* Size classes of this many bytes: a full-size packet's own transmission
 * at the bottleneck (4.8 ms at 2 Mbit/s) read as queue against the frames'
 * short last packets. */
#define CLASS_BYTES           300

void
rtpcc_gcc_free_path_init (RtpccGccFreePath * f)
{
  f->free_time = RTPCC_GCC_FREE_TIME;
  f->by_size = TRUE;
  f->bucket_start = RTPCC_TIME_NONE;
  for (guint i = 0; i < RTPCC_GCC_FREE_PATH_CLASSES; i++)
    f->cur_min[i] = f->prev_min[i] = RTPCC_TIME_NONE;
  f->last_send = RTPCC_TIME_NONE;
  f->last_size = 0;
  f->last_queue = f->last_queue_stop = RTPCC_TIME_NONE;
  f->free_since = RTPCC_TIME_NONE;
}

/* Two kinds of packet would read as queue on an empty link, and are not
 * counted:
 * - one sent less than half its pacing interval after the previous one:
 *   the pacer's burst credit sends each frame's first two packets back to
 *   back, and the second waits for the first at the bottleneck. A standing
 *   queue delays the paced packets as well.
 * - rounding: the minimum picks the packets whose arrival was rounded
 *   furthest down, so a queue starts at QUEUE_TH plus two of the
 *   feedback's units. Once the path is free, the first packet above
 *   QUEUE_TH itself ends it. */
void
rtpcc_gcc_free_path_track (RtpccGccFreePath * f, RtpccTime now,
    const RtpccPacketReport * r, RtpccTime resolution, guint64 pacing_rate)
{
  RtpccTime owd = r->arrival - r->send_time, base;
  guint c = f->by_size ? MIN (r->size / CLASS_BYTES,
      RTPCC_GCC_FREE_PATH_CLASSES - 1) : 0;
  gboolean paced = TRUE;

  if (f->last_send != RTPCC_TIME_NONE && r->send_time >= f->last_send
      && pacing_rate > 0) {
    gdouble interval = f->last_size * 8.0 / pacing_rate;
    paced = RTPCC_TIME_AS_SEC (r->send_time - f->last_send) >=
        0.5 * interval;
  }
  f->last_send = r->send_time;
  f->last_size = r->size;

  if (f->bucket_start == RTPCC_TIME_NONE || now - f->bucket_start >= BUCKET) {
    for (guint i = 0; i < RTPCC_GCC_FREE_PATH_CLASSES; i++) {
      f->prev_min[i] = f->cur_min[i];
      f->cur_min[i] = RTPCC_TIME_NONE;
    }
    f->bucket_start = now;
  }
  if (f->cur_min[c] == RTPCC_TIME_NONE || owd < f->cur_min[c])
    f->cur_min[c] = owd;
  base = f->cur_min[c];
  if (f->prev_min[c] != RTPCC_TIME_NONE)
    base = MIN (base, f->prev_min[c]);
  if (paced && owd - base > QUEUE_TH)
    f->last_queue_stop = now;
  if ((paced && owd - base > QUEUE_TH + 2 * MAX (resolution, 0))
      || f->last_queue == RTPCC_TIME_NONE)
    f->last_queue = now;
}

/* The climb stops at the first packet above QUEUE_TH, which every flow
 * through the FIFO sees at once; stopping at the over-use detector, which
 * one flow's trendline reaches before the other's, set flows apart. */
gboolean
rtpcc_gcc_free_path_update (RtpccGccFreePath * f, RtpccTime now)
{
  if (f->free_time <= 0) {
    f->free_since = RTPCC_TIME_NONE;
  } else if (f->free_since != RTPCC_TIME_NONE) {
    if (f->last_queue_stop != RTPCC_TIME_NONE
        && f->last_queue_stop >= f->free_since) {
      f->free_since = RTPCC_TIME_NONE;
      /* the queue that ended it counts as one for the next start: without
       * this a queue between the two thresholds restarts the climb at the
       * next update */
      f->last_queue = MAX (f->last_queue, f->last_queue_stop);
    }
  } else if (f->last_queue != RTPCC_TIME_NONE
      && now - f->last_queue >= f->free_time) {
    f->free_since = now;
  }
  return f->free_since != RTPCC_TIME_NONE;
}

RtpccTime
rtpcc_gcc_free_path_quiet_time (const RtpccGccFreePath * f, RtpccTime now)
{
  return f->last_queue == RTPCC_TIME_NONE ? -1 : now - f->last_queue;
}

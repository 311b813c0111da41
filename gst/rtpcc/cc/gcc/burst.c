/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/burst.h>

#include <string.h>

/* a key frame has more than this × the delta frames' mean bytes */
#define KEY_FRAME_FACTOR      2.0
/* without frame ends: a frame keeping the pacer busy this many frame
 * intervals is a burst */
#define BUSY_FACTOR           1.5
/* frame ends closer than this are one frame's */
#define MIN_GAP               RTPCC_MSEC (2)
/* frames (or frame gaps) seen before anything is marked */
#define MIN_FRAMES            8
/* groups sent this long before / after a mark are the burst's (the pacer
 * catches up on the frames queued behind it) */
#define BEFORE                RTPCC_MSEC (100)
#define AFTER                 RTPCC_MSEC (150)
/* a burst excuses at most this much delay growth, ms */
#define MAX_DELAY             100.0
/* marks are kept this long */
#define KEEP                  RTPCC_SEC (3)

void
rtpcc_gcc_burst_init (RtpccGccBurst * b)
{
  memset (b, 0, sizeof (*b));
  b->guard = TRUE;
  b->by_size = TRUE;
  b->marks = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  b->pacer_idle = TRUE;
  b->last_busy_end = RTPCC_TIME_NONE;
  b->frame_first_send = RTPCC_TIME_NONE;
}

void
rtpcc_gcc_burst_clear (RtpccGccBurst * b)
{
  g_clear_pointer (&b->marks, g_array_unref);
}

static void
mark (RtpccGccBurst * b, RtpccTime t)
{
  g_array_append_val (b->marks, t);
  while (b->marks->len > 0
      && g_array_index (b->marks, RtpccTime, 0) < t - KEEP)
    g_array_remove_index (b->marks, 0);
}

/* A frame has been sent whole (RTP marker). A key frame's span is marked
 * after the fact (the delay samples it affects come back an RTT later).
 * Key frames stand alone: a second large frame in a row means the
 * encoder's rate went up, and the mean restarts there (else a rate step of
 * more than 2× would be excused for good). */
static void
frame_done (RtpccGccBurst * b, RtpccTime end, gboolean may_mark)
{
  gdouble bytes = b->frame_bytes;

  if (!b->by_size)
    return;
  if (b->n_frames >= MIN_FRAMES && bytes > KEY_FRAME_FACTOR * b->frame_mean) {
    if (b->last_frame_key) {
      b->frame_mean = bytes;
      b->last_frame_key = FALSE;
      return;
    }
    b->last_frame_key = TRUE;
    b->n_key_frames++;
    if (may_mark) {
      mark (b, b->frame_first_send);
      mark (b, end);
    }
    return;                     /* not part of the delta frames' mean */
  }
  b->last_frame_key = FALSE;
  b->frame_mean = b->n_frames == 0 ? bytes :
      b->frame_mean + (bytes - b->frame_mean) / 16.0;
  b->n_frames++;
}

void
rtpcc_gcc_burst_sent (RtpccGccBurst * b, const RtpccSentPacket * pkt,
    gboolean may_mark)
{
  if (b->pacer_idle)
    b->busy_start = pkt->send_time;
  if (pkt->frame_end)
    b->have_frame_ends = TRUE;
  if (b->frame_first_send == RTPCC_TIME_NONE)
    b->frame_first_send = pkt->send_time;
  b->frame_bytes += pkt->size;
  if (pkt->frame_end) {
    frame_done (b, pkt->send_time, may_mark);
    b->frame_bytes = 0;
    b->frame_first_send = RTPCC_TIME_NONE;
  }
  /* The frame interval, from frame ends when the sender marks them. Busy
   * ends (the pacer emptied) come twice per frame: its first packet also
   * leaves the pacer empty while the rest of the frame is still coming. */
  if (b->have_frame_ends ? pkt->frame_end : pkt->app_limited) {
    if (b->last_busy_end != RTPCC_TIME_NONE
        && pkt->send_time - b->last_busy_end >= MIN_GAP) {
      gdouble gap = pkt->send_time - b->last_busy_end;
      b->frame_interval = b->n_frame_gaps == 0 ? gap :
          b->frame_interval + (gap - b->frame_interval) / 16.0;
      b->n_frame_gaps++;
    }
    b->last_busy_end = pkt->send_time;
  }
  /* the busy rule, when key frames cannot be told by size */
  if (!(b->by_size && b->have_frame_ends)
      && b->n_frame_gaps >= MIN_FRAMES && may_mark
      && pkt->send_time - b->busy_start > BUSY_FACTOR * b->frame_interval)
    mark (b, pkt->send_time);
  b->pacer_idle = pkt->app_limited;
}

gboolean
rtpcc_gcc_burst_check (RtpccGccBurst * b, RtpccTime send,
    gdouble accumulated)
{
  gboolean burst = FALSE;

  for (guint i = b->guard ? b->marks->len : 0; i > 0; i--) {
    RtpccTime m = g_array_index (b->marks, RtpccTime, i - 1);
    if (m < send - AFTER)
      break;
    if (m <= send + BEFORE) {
      burst = TRUE;
      break;
    }
  }
  /* up to MAX_DELAY of growth since the burst began: more than that (a
   * capacity drop during a key frame) is an over-use */
  if (burst && !b->in_burst)
    b->burst_base = accumulated;
  b->in_burst = burst;
  if (burst && accumulated - b->burst_base > MAX_DELAY)
    burst = FALSE;
  if (burst)
    b->n_self_bursts++;
  return burst;
}

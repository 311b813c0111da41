/* gcc standing-queue drain (standing.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/gcc/standing.h>

#include <string.h>

void
rtpcc_gcc_standing_init (RtpccGccStanding * s, RtpccTime target)
{
  memset (s, 0, sizeof (*s));
  s->target = target;
  s->block_start = s->block_min = s->prev_block_min = RTPCC_TIME_NONE;
  s->last_drain = RTPCC_TIME_NONE;
  rtpcc_gcc_standing_restart (s);
}

void
rtpcc_gcc_standing_restart (RtpccGccStanding * s)
{
  s->interval_start = RTPCC_TIME_NONE;
  s->interval_min[0] = s->interval_min[1] = RTPCC_TIME_NONE;
  s->interval_first_send = RTPCC_TIME_NONE;
  s->standing = s->standing_first_send = RTPCC_TIME_NONE;
  s->pace = 0;
}

void
rtpcc_gcc_standing_add (RtpccGccStanding * s, RtpccTime send_time,
    RtpccTime arrival)
{
  RtpccTime owd = arrival - send_time, base, q;

  if (s->block_start == RTPCC_TIME_NONE
      || arrival - s->block_start >= RTPCC_GCC_STANDING_BASE_BLOCK) {
    s->prev_block_min = s->block_min;
    s->block_min = owd;
    s->block_start = arrival;
  } else if (owd < s->block_min) {
    s->block_min = owd;
  }
  base = s->prev_block_min == RTPCC_TIME_NONE ? s->block_min :
      MIN (s->block_min, s->prev_block_min);
  q = owd - base;

  if (s->interval_start != RTPCC_TIME_NONE
      && arrival - s->interval_start >= RTPCC_GCC_STANDING_INTERVAL) {
    RtpccTime a = s->interval_min[0], b = s->interval_min[1];

    /* an interval with a silent half (a stream starting again) tells
     * nothing of the queue's course */
    s->standing = b == RTPCC_TIME_NONE ? RTPCC_TIME_NONE : MIN (a, b);
    s->pace = b == RTPCC_TIME_NONE ? 0 : (gdouble) (b - a) /
        (gdouble) (RTPCC_GCC_STANDING_INTERVAL / 2);
    s->standing_first_send = s->interval_first_send;
    s->interval_start = RTPCC_TIME_NONE;
  }
  if (s->interval_start == RTPCC_TIME_NONE) {
    s->interval_start = arrival;
    s->interval_min[0] = q;
    s->interval_min[1] = RTPCC_TIME_NONE;
    s->interval_first_send = send_time;
  } else {
    guint h = arrival - s->interval_start >= RTPCC_GCC_STANDING_INTERVAL / 2;

    s->interval_min[h] = s->interval_min[h] == RTPCC_TIME_NONE ? q :
        MIN (s->interval_min[h], q);
    s->interval_first_send = MIN (s->interval_first_send, send_time);
  }
}

/* above @target, and not draining below it within DRAIN on its own */
static gboolean
queue_stands (const RtpccGccStanding * s, RtpccTime target)
{
  return target > 0 && s->standing != RTPCC_TIME_NONE
      && s->standing > target
      && s->standing + s->pace * RTPCC_GCC_STANDING_DRAIN > target;
}

gdouble
rtpcc_gcc_standing_drain (RtpccGccStanding * s, RtpccTime now, gdouble R)
{
  gdouble f;

  /* none, or already draining fast enough on its own */
  if (R <= 0 || !queue_stands (s, s->target))
    return -1;
  /* an interval that began before the last drain cannot show it yet */
  if (s->last_drain != RTPCC_TIME_NONE
      && s->standing_first_send < s->last_drain)
    return -1;
  f = MAX (RTPCC_GCC_STANDING_FLOOR, 1.0 - (gdouble) s->standing /
      (gdouble) RTPCC_GCC_STANDING_DRAIN);
  s->last_drain = now;
  s->n_drains++;
  return f * R;
}

gboolean
rtpcc_gcc_standing_above (const RtpccGccStanding * s, RtpccTime target)
{
  /* unlike a drain, even while the queue falls on its own: growing would
   * slow that down or stop it */
  return target > 0 && s->standing != RTPCC_TIME_NONE
      && s->standing > target;
}

gdouble
rtpcc_gcc_standing_cut (const RtpccGccStanding * s, gdouble R)
{
  if (s->standing == RTPCC_TIME_NONE || R <= 0)
    return -1;
  return MAX (RTPCC_GCC_STANDING_FLOOR, 1.0 - (gdouble) MAX (s->standing,
          0) / (gdouble) RTPCC_GCC_STANDING_DRAIN) * R;
}

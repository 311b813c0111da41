/* The transport pair's time: the library's timeline (RtpccTime) read from
 * the element's GstClock, and the task's wait on it.
 *
 * The elements take time from the clock they are given (set_clock: the
 * pipeline clock from PLAYING on, a GstTestClock in tests) and from the
 * monotonic system clock until then. A change of clock re-bases: library
 * time = clock time + offset, the offset chosen so that the timeline the
 * sender or receiver has seen continues without a jump (their timers,
 * RTT samples and rate windows would otherwise see time leap or run back).
 *
 * Waiting. On the monotonic system clock (the usual pipeline clock, and
 * the clock before PLAYING) the task sleeps in ppoll() with a nanosecond
 * timeout on its socket and wake-up eventfd: pacing is not quantised to
 * the millisecond, and no clock thread is involved. On any other clock an
 * asynchronous single-shot clock id wakes the eventfd at the deadline,
 * and ppoll() waits without a timeout; with a GstTestClock, time passes
 * only when the test advances it. A task registers its clock id only when
 * nothing is ready on its descriptors, and always registers one (a second
 * ahead when it has no deadline), so that "every task using the clock has
 * a pending id" means "every task is idle": what a test driving the clock
 * waits for.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_TIMEBASE_H__
#define __RTPCC_TIMEBASE_H__

#include <gst/gst.h>
#include <rtpcc/common.h>

#include <poll.h>

G_BEGIN_DECLS

typedef struct
{
  GMutex lock;
  GstClock *clock;              /* NULL: CLOCK_MONOTONIC read directly */
  RtpccTime offset;             /* library time = clock time + offset */
} RtpccTimebase;

/* On the monotonic system clock, offset 0. */
void rtpcc_timebase_init (RtpccTimebase * tb);
void rtpcc_timebase_clear (RtpccTimebase * tb);

/* Takes time from @clock from now on (NULL, or the monotonic system
 * clock: CLOCK_MONOTONIC), re-based so that the timeline continues.
 * Returns TRUE if the clock changed (a task waiting on the old one should
 * be woken to wait on the new one). */
gboolean rtpcc_timebase_set_clock (RtpccTimebase * tb, GstClock * clock);

RtpccTime rtpcc_timebase_now (RtpccTimebase * tb);

/* Waits until one of @fds is ready or @deadline (library time;
 * RTPCC_TIME_NONE: none) passes; @fds[@wake_index] is the task's wake-up
 * eventfd, which an asynchronous clock id writes to. @owner is kept alive
 * while such an id exists (the eventfd must outlive it: close it in
 * finalize). Returns what ppoll() does: > 0 if something is ready, 0 at
 * the deadline on the monotonic clock, < 0 with errno on failure. */
gint rtpcc_timebase_wait (RtpccTimebase * tb, GstObject * owner,
    struct pollfd *fds, guint n_fds, guint wake_index, RtpccTime deadline);

G_END_DECLS

#endif

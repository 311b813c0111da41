/* A src-pad task that sleeps until a time on the element's clock, or until
 * woken: for elements that hold what they receive and release it at times
 * the library computes (fecenc's block bound, fecdec's hole deadline,
 * playoutbuffer's playout times).
 *
 * The element's own lock guards the task's state. The task body calls
 * gst_rtpcc_timed_task_wait() with the lock held and the next time it has
 * something to do; the streaming thread, after a buffer changed that time,
 * calls gst_rtpcc_timed_task_kick() with the new time, which wakes the
 * task only if it sleeps past it: a buffer that changes nothing the task
 * waits for costs no wake-up (no context switch per buffer).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_TIMED_TASK_H__
#define __GST_RTPCC_TIMED_TASK_H__

#include <gst/gst.h>
#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  GstElement *element;          /* not reffed: the task's owner */
  GstPad *srcpad;
  GMutex *lock;                 /* the element's; guards all below */
  GCond cond;
  GstClockID clock_id;          /* the clock wait in progress, if any */
  GstClockID spare_id;          /* the last wait's id, re-armed for the
                                 * next one on the same clock (a wait per
                                 * packet: no allocation each time) */
  GstClock *spare_clock;        /* its clock (a reference: never another
                                 * clock at the same address) */
  RtpccTime sleeps_until;       /* what the task sleeps for: a running
                                 * time, INFINITE (a wake-up), NONE (it
                                 * does not sleep) */
  gboolean flushing;
  gboolean system_clock;        /* no element clock: time on the system
                                 * clock (else sleep until woken) */
} GstRtpccTimedTask;

/* @system_clock: without an element clock, time on the system clock
 * (running time = its time − the base time); FALSE: then sleep until
 * woken (an element whose "now" comes from buffer timestamps then). */
void gst_rtpcc_timed_task_init (GstRtpccTimedTask * task,
    GstElement * element, GstPad * srcpad, GMutex * lock,
    gboolean system_clock);
void gst_rtpcc_timed_task_clear (GstRtpccTimedTask * task);

/* In the task, lock held: sleeps until running time @until
 * (RTPCC_TIME_INFINITE: until woken), the lock released meanwhile. TRUE
 * once @until is reached; FALSE when woken sooner (kicked, flushing,
 * state changed): the caller looks again. Returns with the lock held. */
gboolean gst_rtpcc_timed_task_wait (GstRtpccTimedTask * task,
    RtpccTime until);
/* Lock held: something may be due at @when now (RTPCC_TIME_INFINITE:
 * nothing timed). Wakes the task only if it sleeps past @when. */
void gst_rtpcc_timed_task_kick (GstRtpccTimedTask * task, RtpccTime when);
/* Lock held: wakes the task whatever it sleeps for. */
void gst_rtpcc_timed_task_wake (GstRtpccTimedTask * task);
/* Lock held: sets flushing (and wakes the task out of any sleep). */
void gst_rtpcc_timed_task_set_flushing (GstRtpccTimedTask * task,
    gboolean flushing);
/* For a src pad's activate-mode function (lock not held): clears or sets
 * flushing, then starts the pad task running @func (@data) or stops it
 * (joining the thread). */
gboolean gst_rtpcc_timed_task_activate (GstRtpccTimedTask * task,
    gboolean active, GstTaskFunction func, gpointer data);

G_END_DECLS

#endif /* __GST_RTPCC_TIMED_TASK_H__ */

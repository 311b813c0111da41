/* A src-pad task that sleeps until a time on the element's clock, or until
 * woken: for elements that hold what they receive and release it at times
 * the library computes (fecenc's block bound, fecdec's hole deadline,
 * playoutbuffer's playout times, linkemu's delivery times, sendbuffer's
 * drain schedule).
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

#include "gstrtpccclock.h"

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
  GstRtpccClockCache clock_cache;       /* the element's clock: guarded by
                                         * its object lock */
} GstRtpccTimedTask;

/* @system_clock: without an element clock, time on the system clock
 * (running time = its time − the base time); FALSE: then sleep until
 * woken (an element whose "now" comes from buffer timestamps then). */
void gst_rtpcc_timed_task_init (GstRtpccTimedTask * task,
    GstElement * element, GstPad * srcpad, GMutex * lock,
    gboolean system_clock);
void gst_rtpcc_timed_task_clear (GstRtpccTimedTask * task);

/* The running time the task's waits count in: the element clock's, else
 * (with @system_clock) the system clock's; RTPCC_TIME_NONE without
 * either. For an element whose library "now" is the time it waits in. */
RtpccTime gst_rtpcc_timed_task_now (GstRtpccTimedTask * task);
/* The same for an element that holds packets while paused (linkemu,
 * playoutbuffer): *@last_now while not @playing, else the running time;
 * never going back (*@last_now, the floor, is updated). */
RtpccTime gst_rtpcc_timed_task_playing_now (GstRtpccTimedTask * task,
    gboolean playing, RtpccTime * last_now);
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

/* For a sink pad's flush events (lock not held): FLUSH_START sets
 * flushing (the task wakes and pauses); FLUSH_STOP clears it and starts
 * the task again, running @func (@data). */
void gst_rtpcc_timed_task_flush_start (GstRtpccTimedTask * task);
gboolean gst_rtpcc_timed_task_flush_stop (GstRtpccTimedTask * task,
    GstTaskFunction func, gpointer data);

/* The same for an element that holds what it received until the task
 * sends it (linkemu, playoutbuffer): under the lock, *@srcresult becomes
 * OK or FLUSHING and activating clears *@eos; after deactivating (the
 * task joined), @drop_locked (@data) drops what is held, under the lock. */
gboolean gst_rtpcc_timed_task_activate_holding (GstRtpccTimedTask * task,
    gboolean active, GstTaskFunction func, gpointer data,
    GstFlowReturn * srcresult, gboolean * eos, void (*drop_locked) (gpointer));

/* For a task that releases what its element holds at times the library
 * computes (fecenc's block bound, fecdec's hole deadline). */
typedef RtpccTime (*GstRtpccNextTimeFunc) (gpointer data);
typedef GstFlowReturn (*GstRtpccReleaseFunc) (gpointer data);

/* One turn of such a task, its whole body (lock not held): sleeps until
 * @next_time (@data) is reached — asked again at every wake-up, since the
 * element may replace its library object meanwhile — then calls @release
 * under @sinkpad's stream lock, so pushes never interleave with chain.
 * @release takes the lock itself to collect what is due (nothing when
 * the task is flushing) and pushes after dropping it, returning the push
 * result: one buffer goes as one push, not as a list. Pauses the task
 * when flushing. */
void gst_rtpcc_timed_task_release_due (GstRtpccTimedTask * task,
    GstPad * sinkpad, GstRtpccNextTimeFunc next_time,
    GstRtpccReleaseFunc release, gpointer data);

G_END_DECLS

#endif /* __GST_RTPCC_TIMED_TASK_H__ */

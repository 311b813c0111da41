/* A src-pad task sleeping until a time or a wake-up (gstrtpcctimedtask.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpcctimedtask.h"

void
gst_rtpcc_timed_task_init (GstRtpccTimedTask * task, GstElement * element,
    GstPad * srcpad, GMutex * lock, gboolean system_clock)
{
  task->element = element;
  task->srcpad = srcpad;
  task->lock = lock;
  g_cond_init (&task->cond);
  task->clock_id = NULL;
  task->spare_id = NULL;
  task->spare_clock = NULL;
  task->sleeps_until = RTPCC_TIME_NONE;
  task->flushing = TRUE;
  task->system_clock = system_clock;
  task->clock_cache.clock = NULL;
  task->clock_cache.monotonic = FALSE;
}

static void
drop_spare (GstRtpccTimedTask * task)
{
  if (task->spare_id)
    gst_clock_id_unref (task->spare_id);
  task->spare_id = NULL;
  gst_clear_object (&task->spare_clock);
}

void
gst_rtpcc_timed_task_clear (GstRtpccTimedTask * task)
{
  g_cond_clear (&task->cond);
  drop_spare (task);
  gst_rtpcc_clock_cache_clear (&task->clock_cache);
}

RtpccTime
gst_rtpcc_timed_task_now (GstRtpccTimedTask * task)
{
  GstElement *element = task->element;
  GstClockTime t = GST_CLOCK_TIME_NONE, base;
  gboolean have_clock;

  /* clock and base time under one object lock, without a reference: this
   * runs several times per packet */
  GST_OBJECT_LOCK (element);
  base = element->base_time;
  have_clock = element->clock != NULL;
  if (have_clock)
    t = gst_rtpcc_clock_cache_get_time (&task->clock_cache, element->clock);
  GST_OBJECT_UNLOCK (element);
  if (!have_clock) {
    GstClock *clock;

    if (!task->system_clock)
      return RTPCC_TIME_NONE;
    clock = gst_system_clock_obtain ();
    t = gst_clock_get_time (clock);
    gst_object_unref (clock);
  }
  if (!GST_CLOCK_TIME_IS_VALID (t) || t < base)
    return RTPCC_TIME_NONE;
  return (RtpccTime) (t - base);
}

RtpccTime
gst_rtpcc_timed_task_playing_now (GstRtpccTimedTask * task, gboolean playing,
    RtpccTime * last_now)
{
  RtpccTime now;

  /* running time does not advance while paused */
  if (!playing)
    return *last_now;
  now = gst_rtpcc_timed_task_now (task);
  if (now != RTPCC_TIME_NONE)
    *last_now = MAX (now, *last_now);
  return *last_now;
}

gboolean
gst_rtpcc_timed_task_wait (GstRtpccTimedTask * task, RtpccTime until)
{
  GstClock *clock = NULL;
  GstClockTime target, base_time = 0, now = GST_CLOCK_TIME_NONE;
  GstClockID id;

  if (task->flushing)
    return FALSE;
  if (until != RTPCC_TIME_INFINITE) {
    /* clock and base time under one object lock (a wait per packet) */
    GST_OBJECT_LOCK (task->element);
    base_time = task->element->base_time;
    if (task->element->clock) {
      now = gst_rtpcc_clock_cache_get_time (&task->clock_cache,
          task->element->clock);
      if (!task->clock_cache.monotonic)
        clock = gst_object_ref (task->element->clock);
    }
    GST_OBJECT_UNLOCK (task->element);
    if (GST_CLOCK_TIME_IS_VALID (now) && clock == NULL) {
      /* the monotonic system clock: the task's condition variable waits
       * on CLOCK_MONOTONIC, without a clock entry to arm and unschedule
       * (a wait per packet); a kick signals the condition */
      target = base_time + (GstClockTime) MAX (until, 0);
      if (now >= target)
        return TRUE;
      task->sleeps_until = until;
      /* g_cond_wait_until() counts in µs of g_get_monotonic_time(),
       * CLOCK_MONOTONIC: rounded up, never early */
      g_cond_wait_until (&task->cond, task->lock,
          (gint64) ((target + GST_USECOND - 1) / GST_USECOND));
      task->sleeps_until = RTPCC_TIME_NONE;
      return FALSE;
    }
    if (clock == NULL && task->system_clock)
      clock = gst_system_clock_obtain ();
  }
  if (clock == NULL) {
    /* nothing timed, or nothing to time it with: until woken */
    task->sleeps_until = RTPCC_TIME_INFINITE;
    g_cond_wait (&task->cond, task->lock);
    task->sleeps_until = RTPCC_TIME_NONE;
    return FALSE;
  }
  target = base_time + (GstClockTime) MAX (until, 0);
  if (gst_clock_get_time (clock) >= target) {
    gst_object_unref (clock);
    return TRUE;
  }
  if (task->spare_id && (task->spare_clock != clock
          || !gst_clock_single_shot_id_reinit (clock, task->spare_id,
              target)))
    drop_spare (task);
  id = task->spare_id ? task->spare_id :
      gst_clock_new_single_shot_id (clock, target);
  task->spare_id = NULL;
  /* published before the lock goes: a kick can unschedule it (also before
   * the wait starts, which then returns at once) */
  task->clock_id = id;
  task->sleeps_until = until;
  g_mutex_unlock (task->lock);
  gst_clock_id_wait (id, NULL);
  g_mutex_lock (task->lock);
  task->clock_id = NULL;
  task->sleeps_until = RTPCC_TIME_NONE;
  task->spare_id = id;
  if (task->spare_clock != clock)
    gst_object_replace ((GstObject **) & task->spare_clock,
        GST_OBJECT (clock));
  gst_object_unref (clock);
  return FALSE;
}

void
gst_rtpcc_timed_task_wake (GstRtpccTimedTask * task)
{
  if (task->clock_id)
    gst_clock_id_unschedule (task->clock_id);
  g_cond_signal (&task->cond);
}

void
gst_rtpcc_timed_task_kick (GstRtpccTimedTask * task, RtpccTime when)
{
  /* awake, it looks again before it sleeps; asleep until then or sooner,
   * it will be on time */
  if (task->sleeps_until == RTPCC_TIME_NONE || when >= task->sleeps_until)
    return;
  gst_rtpcc_timed_task_wake (task);
}

void
gst_rtpcc_timed_task_set_flushing (GstRtpccTimedTask * task,
    gboolean flushing)
{
  task->flushing = flushing;
  if (flushing) {
    gst_rtpcc_timed_task_wake (task);
    /* not in use (only a wait uses it, under the lock): the clock goes */
    drop_spare (task);
  }
}

gboolean
gst_rtpcc_timed_task_activate (GstRtpccTimedTask * task, gboolean active,
    GstTaskFunction func, gpointer data)
{
  g_mutex_lock (task->lock);
  gst_rtpcc_timed_task_set_flushing (task, !active);
  g_mutex_unlock (task->lock);
  if (active)
    return gst_pad_start_task (task->srcpad, func, data, NULL);
  /* joins the streaming thread: it cannot be stuck in a wait now */
  return gst_pad_stop_task (task->srcpad);
}

void
gst_rtpcc_timed_task_flush_start (GstRtpccTimedTask * task)
{
  g_mutex_lock (task->lock);
  gst_rtpcc_timed_task_set_flushing (task, TRUE);
  g_mutex_unlock (task->lock);
}

gboolean
gst_rtpcc_timed_task_flush_stop (GstRtpccTimedTask * task,
    GstTaskFunction func, gpointer data)
{
  g_mutex_lock (task->lock);
  gst_rtpcc_timed_task_set_flushing (task, FALSE);
  g_mutex_unlock (task->lock);
  return gst_pad_start_task (task->srcpad, func, data, NULL);
}

gboolean
gst_rtpcc_timed_task_activate_holding (GstRtpccTimedTask * task,
    gboolean active, GstTaskFunction func, gpointer data,
    GstFlowReturn * srcresult, gboolean * eos, void (*drop_locked) (gpointer))
{
  gboolean res;

  g_mutex_lock (task->lock);
  *srcresult = active ? GST_FLOW_OK : GST_FLOW_FLUSHING;
  if (active)
    *eos = FALSE;
  g_mutex_unlock (task->lock);
  res = gst_rtpcc_timed_task_activate (task, active, func, data);
  if (active)
    return res;
  g_mutex_lock (task->lock);
  drop_locked (data);
  g_mutex_unlock (task->lock);
  return res;
}

void
gst_rtpcc_timed_task_release_due (GstRtpccTimedTask * task, GstPad * sinkpad,
    GstRtpccNextTimeFunc next_time, GstRtpccReleaseFunc release,
    gpointer data)
{
  GstFlowReturn ret;

  g_mutex_lock (task->lock);
  while (!task->flushing && !gst_rtpcc_timed_task_wait (task,
          next_time (data)));
  if (task->flushing) {
    g_mutex_unlock (task->lock);
    gst_pad_pause_task (task->srcpad);
    return;
  }
  g_mutex_unlock (task->lock);

  GST_PAD_STREAM_LOCK (sinkpad);
  ret = release (data);
  GST_PAD_STREAM_UNLOCK (sinkpad);
  if (ret == GST_FLOW_FLUSHING)
    gst_pad_pause_task (task->srcpad);
}

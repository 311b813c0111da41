/* What fecenc and fecdec share: their src-pad task (activation, the timer
 * wait, pushing), and the clock reading they hand the library.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstfec.h"

gboolean
gst_fec_wait_next (GstElement * element, GstPad * srcpad,
    const GstFecWait * w, GstFecNextTime next, gpointer data)
{
  GstClock *clock = NULL;
  GstClockID id;
  RtpccTime t = RTPCC_TIME_INFINITE;

  g_mutex_lock (w->lock);
  while (!*w->flushing) {
    t = next (data);
    clock = t != RTPCC_TIME_INFINITE ? gst_element_get_clock (element) : NULL;
    if (clock)
      break;
    /* nothing timed, or no clock to time it: wait for the next buffer */
    g_cond_wait (w->cond, w->lock);
  }
  if (*w->flushing) {
    g_mutex_unlock (w->lock);
    gst_pad_pause_task (srcpad);
    return FALSE;
  }
  id = gst_clock_new_single_shot_id (clock,
      gst_element_get_base_time (element) + (GstClockTime) t);
  /* published so a flush can unschedule the wait */
  *w->clock_id = id;
  g_mutex_unlock (w->lock);
  gst_clock_id_wait (id, NULL);
  g_mutex_lock (w->lock);
  *w->clock_id = NULL;
  g_mutex_unlock (w->lock);
  gst_clock_id_unref (id);
  gst_object_unref (clock);
  return TRUE;
}

gboolean
gst_fec_task_activate (GstPad * srcpad, const GstFecWait * w,
    gboolean active, GstTaskFunction func, gpointer data)
{
  g_mutex_lock (w->lock);
  *w->flushing = !active;
  if (!active) {
    if (*w->clock_id)
      gst_clock_id_unschedule (*w->clock_id);
    g_cond_signal (w->cond);
  }
  g_mutex_unlock (w->lock);
  if (active)
    return gst_pad_start_task (srcpad, func, data, NULL);
  return gst_pad_stop_task (srcpad);
}

GstFlowReturn
gst_fec_push_list (GstPad * srcpad, GList * list)
{
  GstFlowReturn ret = GST_FLOW_OK;

  for (GList * l = list; l; l = l->next) {
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (srcpad, l->data);
    else
      gst_buffer_unref (l->data);
  }
  g_list_free (list);
  return ret;
}

RtpccTime
gst_fec_now (GstElement * element, const GstSegment * segment,
    GstBuffer * buf, RtpccTime * last_now)
{
  GstClock *clock = gst_element_get_clock (element);
  RtpccTime now = *last_now;

  if (clock) {
    now = (RtpccTime) (gst_clock_get_time (clock) -
        gst_element_get_base_time (element));
    gst_object_unref (clock);
  } else if (buf && GST_BUFFER_PTS_IS_VALID (buf)
      && segment->format == GST_FORMAT_TIME) {
    /* no clock (e.g. a harness without one): the buffer's running time */
    guint64 rt = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));

    if (GST_CLOCK_TIME_IS_VALID (rt))
      now = (RtpccTime) rt;
  }
  /* the library's time never goes back */
  now = MAX (now, *last_now);
  *last_now = now;
  return now;
}

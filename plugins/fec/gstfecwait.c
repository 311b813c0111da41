/* The timer wait shared by fecenc's and fecdec's src-pad tasks.
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

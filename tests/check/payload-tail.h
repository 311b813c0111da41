/* A pad probe that counts the RTP payload bytes (fixed 12-byte header, as
 * payloaders write it) of the buffers from a media time on: what an
 * encoder produced over the end of a run.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __PAYLOAD_TAIL_H__
#define __PAYLOAD_TAIL_H__

#include <gst/gst.h>

typedef struct
{
  GstClockTime from;            /* PTS from which buffers count */
  guint64 bytes;
} PayloadTail;

static gboolean
payload_tail_buffer (GstBuffer ** buf, guint idx, gpointer data)
{
  PayloadTail *t = data;

  if (GST_BUFFER_PTS_IS_VALID (*buf) && GST_BUFFER_PTS (*buf) >= t->from)
    t->bytes += gst_buffer_get_size (*buf) - 12;
  return TRUE;
}

/* a GstPadProbeCallback over buffers and lists (rtph264pay pushes lists);
 * user data: a PayloadTail */
static G_GNUC_UNUSED GstPadProbeReturn
payload_tail_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info),
        payload_tail_buffer, data);
  } else {
    buf = GST_PAD_PROBE_INFO_BUFFER (info);
    payload_tail_buffer (&buf, 0, data);
  }
  return GST_PAD_PROBE_OK;
}

#endif

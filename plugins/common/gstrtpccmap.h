/* Mapping a packet for reading, once per packet.
 *
 * gst_buffer_map() goes through the buffer's memory range lookup and merge
 * logic even for the one memory a packet usually has; the memory itself is
 * mapped here instead, with the reference gst_buffer_unmap() drops, so the
 * caller unmaps as usual.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_MAP_H__
#define __GST_RTPCC_MAP_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* gst_buffer_map (@buf, @map, GST_MAP_READ); undone by gst_buffer_unmap(). */
static inline gboolean
gst_rtpcc_buffer_map_read (GstBuffer * buf, GstMapInfo * map)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buf) != 1)
    return gst_buffer_map (buf, map, GST_MAP_READ);
  mem = gst_memory_ref (gst_buffer_peek_memory (buf, 0));
  if (gst_memory_map (mem, map, GST_MAP_READ))
    return TRUE;
  gst_memory_unref (mem);
  return FALSE;
}

G_END_DECLS

#endif /* __GST_RTPCC_MAP_H__ */

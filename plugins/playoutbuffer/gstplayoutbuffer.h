/* playoutbuffer: an I/O skin over RtpccPlayout (gst/rtpcc/playout.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_PLAYOUT_BUFFER_H__
#define __GST_PLAYOUT_BUFFER_H__

#include <gst/gst.h>
#include <rtpcc/playout.h>

G_BEGIN_DECLS

/**
 * GstPlayoutBufferMode:
 * @GST_PLAYOUT_BUFFER_MODE_ADAPTIVE: per subflow its delay floor plus a
 *   margin steered towards #GstPlayoutBuffer:late-target late packets (or
 *   the #GstPlayoutBuffer:percentile of its jitter with late-target 0); the
 *   slowest subflow sets the pace
 * @GST_PLAYOUT_BUFFER_MODE_SINGH: the MPRTP skew-compensating playout of
 *   Singh's thesis (path skew EWMA, (MAX(SW) + 124 prev) / 125)
 * @GST_PLAYOUT_BUFFER_MODE_FIXED: a constant #GstPlayoutBuffer:min-delay
 *
 * The values equal the library's #RtpccPlayoutMode.
 */
typedef enum
{
  GST_PLAYOUT_BUFFER_MODE_ADAPTIVE = RTPCC_PLAYOUT_MODE_ADAPTIVE,
  GST_PLAYOUT_BUFFER_MODE_SINGH = RTPCC_PLAYOUT_MODE_SINGH,
  GST_PLAYOUT_BUFFER_MODE_FIXED = RTPCC_PLAYOUT_MODE_FIXED,
} GstPlayoutBufferMode;

#define GST_TYPE_PLAYOUT_BUFFER_MODE (gst_playout_buffer_mode_get_type ())
GType gst_playout_buffer_mode_get_type (void);

#define GST_TYPE_PLAYOUT_BUFFER (gst_playout_buffer_get_type ())
G_DECLARE_FINAL_TYPE (GstPlayoutBuffer, gst_playout_buffer, GST,
    PLAYOUT_BUFFER, GstElement)
/* unchecked, for the per-packet paths */
#define GST_PLAYOUT_BUFFER_CAST(obj) ((GstPlayoutBuffer *) (obj))

GST_ELEMENT_REGISTER_DECLARE (playoutbuffer);

G_END_DECLS

#endif /* __GST_PLAYOUT_BUFFER_H__ */

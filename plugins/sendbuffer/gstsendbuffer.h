/* sendbuffer: the single queue on the send path, an I/O skin over
 * RtpccSendbuf.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_SEND_BUFFER_H__
#define __GST_SEND_BUFFER_H__

#include <gst/gst.h>
#include <rtpcc/sendbuf.h>

G_BEGIN_DECLS

/**
 * GstSendBufferPolicy:
 * @GST_SEND_BUFFER_POLICY_FIFO: arrival order, tail drop when full
 * @GST_SEND_BUFFER_POLICY_DEADLINE: UltraGrid whole-frame deadline
 * @GST_SEND_BUFFER_POLICY_SFDPS1: priority + expiry (created + budget <
 *   now + RTT/2 is dropped)
 * @GST_SEND_BUFFER_POLICY_SFDPS2: SFDPS1, but a lone expired frame is sent
 * @GST_SEND_BUFFER_POLICY_RING: arrival order, overflow drops the oldest
 *   frame of the lowest priority
 * @GST_SEND_BUFFER_POLICY_RING_SFDPS2: ring overflow rule + SFDPS2
 *
 * The values equal the library's #RtpccSendbufPolicy.
 */
typedef enum
{
  GST_SEND_BUFFER_POLICY_FIFO = RTPCC_SENDBUF_FIFO,
  GST_SEND_BUFFER_POLICY_DEADLINE = RTPCC_SENDBUF_DEADLINE,
  GST_SEND_BUFFER_POLICY_SFDPS1 = RTPCC_SENDBUF_SFDPS1,
  GST_SEND_BUFFER_POLICY_SFDPS2 = RTPCC_SENDBUF_SFDPS2,
  GST_SEND_BUFFER_POLICY_RING = RTPCC_SENDBUF_RING,
  GST_SEND_BUFFER_POLICY_RING_SFDPS2 = RTPCC_SENDBUF_RING_SFDPS2,
} GstSendBufferPolicy;

#define GST_TYPE_SEND_BUFFER_POLICY (gst_send_buffer_policy_get_type ())
GType gst_send_buffer_policy_get_type (void);

#define GST_TYPE_SEND_BUFFER (gst_send_buffer_get_type ())
G_DECLARE_FINAL_TYPE (GstSendBuffer, gst_send_buffer, GST, SEND_BUFFER,
    GstElement)

GST_ELEMENT_REGISTER_DECLARE (sendbuffer);

G_END_DECLS

#endif /* __GST_SEND_BUFFER_H__ */

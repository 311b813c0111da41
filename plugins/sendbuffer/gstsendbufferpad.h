/* GstSendBufferPad: one of sendbuffer's request sink pads, and what it
 * knows of its stream: the priority its packets get, the codec (so frame
 * types can be read from the payload), the segment (a packet's capture
 * time) and whether it has ended.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_SEND_BUFFER_PAD_H__
#define __GST_SEND_BUFFER_PAD_H__

#include <gst/gst.h>
#include <rtpcc/sendbuf.h>

G_BEGIN_DECLS

#define GST_TYPE_SEND_BUFFER_PAD (gst_send_buffer_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstSendBufferPad, gst_send_buffer_pad, GST,
    SEND_BUFFER_PAD, GstPad)

/* The RTP packet @buf as the queue needs it (@packet: header fields, frame
 * type, size, priority; created is left for the caller) and @buf's running
 * time in this pad's segment (GST_CLOCK_TIME_NONE if unknown). FALSE if
 * @buf is not RTP. */
gboolean gst_send_buffer_pad_describe (GstSendBufferPad * pad,
    GstBuffer * buf, RtpccSendbufPacket * packet,
    GstClockTime * running_time);
/* Keeps what the pad needs of a sink event (caps, segment, stream start,
 * EOS, flush stop); the event is not consumed. */
void gst_send_buffer_pad_track_event (GstSendBufferPad * pad,
    GstEvent * event);
gboolean gst_send_buffer_pad_is_eos (GstSendBufferPad * pad);

G_END_DECLS

#endif /* __GST_SEND_BUFFER_PAD_H__ */

/* Frame types from the RTP payload, for payloaders that do not flag delta
 * units (the stock ones do not): whether a packet belongs to a key frame
 * (decodable alone) or to a frame nothing else refers to (droppable), read
 * from the H.264 NAL header (RFC 6184) or the VP8 payload descriptor
 * (RFC 7741). sendbuffer uses it to drop the frames that cost the least.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FRAMETYPE_H__
#define __RTPCC_FRAMETYPE_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef enum
{
  RTPCC_SENDBUF_CODEC_OTHER,
  RTPCC_SENDBUF_CODEC_H264,     /* RFC 6184 */
  RTPCC_SENDBUF_CODEC_VP8,      /* RFC 7741 */
} RtpccSendbufCodec;

/* From an SDP encoding name ("H264", "VP8"; case-insensitive). */
RtpccSendbufCodec rtpcc_sendbuf_codec_from_name (const gchar * name);
/* Classify one packet's payload (bounds-checked): @keyframe if it carries
 * an H.264 IDR slice or SPS/PPS, or a VP8 key frame start; @droppable if
 * it carries an H.264 slice with nal_ref_idc 0 or a VP8 non-reference
 * frame (N bit). FALSE when the packet says nothing either way (another
 * codec, SEI, a continuation fragment without the information, malformed);
 * the outputs are then untouched. The buffer ORs keyframe and ANDs
 * droppable over a frame's packets. */
gboolean rtpcc_sendbuf_classify (RtpccSendbufCodec codec,
    const guint8 * payload, gsize len, gboolean * keyframe,
    gboolean * droppable);

/* TRUE if the payload carries (part of) a key frame's picture: an H.264
 * IDR slice (alone, in a STAP-A or in a FU-A) or a VP8 key frame's start.
 * Stricter than rtpcc_sendbuf_classify's @keyframe: H.264 parameter sets
 * alone do not count, since a payloader may repeat them before any frame
 * (rtph264pay config-interval > 0). A receiver uses it to see a requested
 * key frame arrive. */
gboolean rtpcc_frametype_has_keyframe (RtpccSendbufCodec codec,
    const guint8 * payload, gsize len);

G_END_DECLS

#endif /* __RTPCC_FRAMETYPE_H__ */

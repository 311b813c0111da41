/* Receiver Estimated Maximum Bitrate (draft-alvestrand-rmcat-remb-03):
 * PSFB (PT 206) FMT 15, an application layer feedback message, build and
 * parse.
 *
 *  |V=2|P| FMT=15  |    PT=206     |             length            |
 *  |                  SSRC of packet sender                        |
 *  |                  SSRC of media source (0)                     |
 *  |  Unique identifier 'R' 'E' 'M' 'B'                            |
 *  |  Num SSRC = n | BR Exp    |  BR Mantissa                      |
 *  |   SSRC feedback                                               |  × n
 *
 * The receiver's estimate of the total media bit rate the path carries
 * for the media streams named together, "ignoring all packet overhead"
 * (draft-03 §2.2: headers not counted), mantissa · 2^exp bit/s (a 6-bit
 * exponent as in RFC 5104's TMMBN, an 18-bit mantissa): what receiver-side
 * estimators (draft-ietf-rmcat-gcc's 2013 receiver-side mode, libwebrtc
 * before transport-wide feedback) send and deployed peers still do. A
 * media sender receiving it keeps the total it sends on the session at
 * or below that rate. The media source field is "always 0".
 *
 * The parser takes exactly one RTCP packet and refuses what libwebrtc's
 * does: another identifier (FMT 15 carries other application messages
 * too), an SSRC count that disagrees with the length, a bit rate past
 * 2^64.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_REMB_H__
#define __RTPCC_FEEDBACK_REMB_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_PSFB_FMT_AFB 15
#define RTPCC_REMB_MAX_SSRCS 255

typedef struct
{
  guint32 sender_ssrc;
  guint64 bitrate;              /* bit/s */
  guint n_ssrcs;
  guint32 ssrcs[RTPCC_REMB_MAX_SSRCS];
} RtpccRemb;

/* The 6-bit exponent and 18-bit mantissa for @bitrate: the smallest
 * exponent whose mantissa fits, lower bits dropped (as libwebrtc does). */
void rtpcc_remb_encode_bitrate (guint64 bitrate, guint8 * exp,
    guint32 * mantissa);
/* Bytes of a REMB naming @n_ssrcs streams; 0 if over 255. */
gsize rtpcc_remb_size (guint n_ssrcs);
/* Writes one REMB (no padding); returns its size, or 0 if it does not fit
 * in @max or @n_ssrcs is over 255. */
gsize rtpcc_remb_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint64 bitrate, const guint32 * ssrcs, guint n_ssrcs);
/* Parses exactly one RTCP packet into @out. FALSE and @error
 * (RTPCC_ERROR_PARSE) unless it is a well-formed REMB. */
gboolean rtpcc_remb_parse (const guint8 * pkt, gsize len, RtpccRemb * out,
    GError ** error);
/* Whether @remb names @ssrc. */
gboolean rtpcc_remb_names (const RtpccRemb * remb, guint32 ssrc);

G_END_DECLS

#endif

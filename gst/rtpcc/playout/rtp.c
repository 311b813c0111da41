/* What RtpccPlayout reads of an RTP packet (playout.h): the element hands
 * the bytes over rather than reading headers itself, so the one reader is
 * the bounds-checked one the fuzz target drives.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/playout.h>
#include <rtpcc/feedback/rtpext.h>

gboolean
rtpcc_playout_read_rtp (const guint8 * data, gsize len, RtpccPlayoutRtp * out)
{
  RtpccRtpLayout l;

  if (!rtpcc_rtp_parse_layout (data, len, &l))
    return FALSE;
  out->ssrc = l.ssrc;
  out->seq = l.seq;
  out->rtp_ts = l.timestamp;
  out->filler = l.padding_len > 0 && l.payload_len == 0;
  return TRUE;
}

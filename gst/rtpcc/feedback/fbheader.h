/* The common header of RFC 4585 feedback messages (RTPFB / PSFB), checked
 * on one RTCP packet. Private, not installed.
 *
 *  |V=2|P|   FMT   |      PT       |          length               |
 *  |                  SSRC of packet sender                        |
 *  |                  SSRC of media source                         |
 *  :            Feedback Control Information (FCI)                 :
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_FBHEADER_H__
#define __RTPCC_FEEDBACK_FBHEADER_H__

#include <rtpcc/common.h>
#include "bytes.h"

#define RTPCC_FB_HEADER_SIZE 12

/* Validates @pkt/@len as one feedback packet of type @pt and @fmt: version
 * 2, a length field that says exactly @len, and with P a padding count
 * that is a multiple of 4 and leaves the 12-byte header whole (RFC 3550
 * §6.4.1). On success *@fci_len is the FCI's size up to the padding.
 * FALSE and @error (RTPCC_ERROR_PARSE, prefixed with @what) otherwise. */
static inline gboolean
rtpcc_fb_check_header (const guint8 * pkt, gsize len, guint8 pt, guint8 fmt,
    const gchar * what, gsize * fci_len, GError ** error)
{
  gsize end = len;

  if (pkt == NULL || len < RTPCC_FB_HEADER_SIZE) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "%s: %" G_GSIZE_FORMAT " bytes, need at least %d", what, len,
        RTPCC_FB_HEADER_SIZE);
    return FALSE;
  }
  if ((pkt[0] >> 6) != 2) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "%s: RTP version %u, expected 2", what, pkt[0] >> 6);
    return FALSE;
  }
  if (pkt[1] != pt || (pkt[0] & 0x1f) != fmt) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "%s: packet type %u FMT %u, expected %u FMT %u", what, pkt[1],
        pkt[0] & 0x1f, pt, fmt);
    return FALSE;
  }
  if (((gsize) rtpcc_rd16 (pkt + 2) + 1) * 4 != len) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "%s: length field says %u bytes, packet has %" G_GSIZE_FORMAT, what,
        ((guint) rtpcc_rd16 (pkt + 2) + 1) * 4, len);
    return FALSE;
  }
  if (pkt[0] & 0x20) {
    guint8 pad = pkt[len - 1];

    if (pad == 0 || (pad & 3) != 0 || pad > len - RTPCC_FB_HEADER_SIZE) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "%s: bad padding count %u", what, pad);
      return FALSE;
    }
    end -= pad;
  }
  *fci_len = end - RTPCC_FB_HEADER_SIZE;
  return TRUE;
}

/* Writes the 12-byte header for a packet of @len bytes (a multiple of 4,
 * at most 2^18), no padding. */
static inline void
rtpcc_fb_write_header (guint8 * buf, gsize len, guint8 pt, guint8 fmt,
    guint32 sender_ssrc, guint32 media_ssrc)
{
  buf[0] = (guint8) (0x80 | fmt);
  buf[1] = pt;
  rtpcc_wr16 (buf + 2, (guint16) (len / 4 - 1));
  rtpcc_wr32 (buf + 4, sender_ssrc);
  rtpcc_wr32 (buf + 8, media_ssrc);
}

#endif

/* The benchmarks' media packets: the 12-byte fixed RTP header (V=2, PT 96).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __FEC_BENCH_RTP_HEADER_H__
#define __FEC_BENCH_RTP_HEADER_H__

#include <glib.h>

static inline void
bench_rtp_header (guint8 * p, gboolean marker, guint16 seq, guint32 ts,
    guint32 ssrc)
{
  p[0] = 0x80;
  p[1] = (guint8) (96 | (marker ? 0x80 : 0));
  p[2] = (guint8) (seq >> 8);
  p[3] = (guint8) seq;
  p[4] = (guint8) (ts >> 24);
  p[5] = (guint8) (ts >> 16);
  p[6] = (guint8) (ts >> 8);
  p[7] = (guint8) ts;
  p[8] = (guint8) (ssrc >> 24);
  p[9] = (guint8) (ssrc >> 16);
  p[10] = (guint8) (ssrc >> 8);
  p[11] = (guint8) ssrc;
}

#endif

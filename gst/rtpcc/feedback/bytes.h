/* Big-endian byte access for the feedback wire formats. Private, not
 * installed. memcpy-free shifts: no alignment or aliasing assumptions, and
 * every caller checks bounds before touching the bytes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_BYTES_H__
#define __RTPCC_FEEDBACK_BYTES_H__

#include <glib.h>

static inline guint16
rtpcc_rd16 (const guint8 * p)
{
  return (guint16) ((p[0] << 8) | p[1]);
}

static inline guint32
rtpcc_rd24 (const guint8 * p)
{
  return ((guint32) p[0] << 16) | ((guint32) p[1] << 8) | p[2];
}

static inline guint32
rtpcc_rd32 (const guint8 * p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) |
      ((guint32) p[2] << 8) | p[3];
}

static inline void
rtpcc_wr16 (guint8 * p, guint16 v)
{
  p[0] = (guint8) (v >> 8);
  p[1] = (guint8) v;
}

static inline void
rtpcc_wr24 (guint8 * p, guint32 v)
{
  p[0] = (guint8) (v >> 16);
  p[1] = (guint8) (v >> 8);
  p[2] = (guint8) v;
}

static inline void
rtpcc_wr32 (guint8 * p, guint32 v)
{
  p[0] = (guint8) (v >> 24);
  p[1] = (guint8) (v >> 16);
  p[2] = (guint8) (v >> 8);
  p[3] = (guint8) v;
}

#endif

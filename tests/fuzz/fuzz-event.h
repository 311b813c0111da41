/* What the fuzz targets of the elements' events
 * (plugins/common/gstrtpccevent.h) share: GStreamer initialised once, the
 * event's structure built from the input (each field of a type the input
 * picks, as another element or an application might have built it), and
 * a receiver that first heard the input's RTP packets, as rtpccsrc's has
 * when the event comes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FUZZ_EVENT_H__
#define __RTPCC_FUZZ_EVENT_H__

#include "fuzz.h"

#include <gst/gst.h>
#include <string.h>

static inline void
fuzz_gst_init_once (void)
{
  static gsize inited = 0;

  if (g_once_init_enter (&inited)) {
    gst_init (NULL, NULL);
    g_once_init_leave (&inited, 1);
  }
}

/* Feeds @r the RTP packets in the records from *@at on (fuzz.h), each
 * record's flags & 31 ms after the previous; *@now ends at the last. */
static inline void
fuzz_receiver_feed (RtpccReceiver * r, const uint8_t * data, size_t size,
    size_t at, RtpccTime * now)
{
  guint8 flags;
  const guint8 *d;
  size_t len;

  while (rtpcc_fuzz_next_record (data, size, &at, &flags, &d, &len)) {
    RtpccRtpInfo info;

    *now += RTPCC_MSEC (flags & 31);
    if (rtpcc_rtp_parse (d, len, len, 0, &info, NULL))
      (void) rtpcc_receiver_on_rtp (r, *now, &info);
  }
}

/* a type byte, then 8 value bytes (big-endian) */
#define FUZZ_FIELD_BYTES 9

/* Sets @name on @s from @b: uint, int, uint64, string, double, boolean,
 * or absent (the type byte modulo 7). */
static inline void
fuzz_structure_set_field (GstStructure * s, const gchar * name,
    const guint8 * b)
{
  guint64 v = 0;

  for (guint i = 0; i < 8; i++)
    v = v << 8 | b[1 + i];
  switch (b[0] % 7) {
    case 0:
      gst_structure_set (s, name, G_TYPE_UINT, (guint) v, NULL);
      break;
    case 1:
      gst_structure_set (s, name, G_TYPE_INT, (gint) v, NULL);
      break;
    case 2:
      gst_structure_set (s, name, G_TYPE_UINT64, v, NULL);
      break;
    case 3:{
      gchar str[9];
      memcpy (str, b + 1, 8);
      str[8] = '\0';
      if (g_utf8_validate (str, -1, NULL))
        gst_structure_set (s, name, G_TYPE_STRING, str, NULL);
      break;
    }
    case 4:
      gst_structure_set (s, name, G_TYPE_DOUBLE, (gdouble) (gint64) v, NULL);
      break;
    case 5:
      gst_structure_set (s, name, G_TYPE_BOOLEAN, (gboolean) (v & 1), NULL);
      break;
    default:
      break;                    /* absent */
  }
}

#endif

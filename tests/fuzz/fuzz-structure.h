/* The fuzz targets of the elements' events (plugins/common/gstrtpccevent.h)
 * build the event's structure from the input: one field of a type the
 * input picks, as another element (or an application) might have built it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FUZZ_STRUCTURE_H__
#define __RTPCC_FUZZ_STRUCTURE_H__

#include <gst/gst.h>
#include <string.h>

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

/* String properties with a default: setting NULL or "" restores it, so a
 * `prop=""` on a gst-launch line never leaves an element without a value.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_STRING_PROP_H__
#define __GST_RTPCC_STRING_PROP_H__

#include <glib-object.h>

G_BEGIN_DECLS

static inline void
gst_rtpcc_set_string_prop (gchar ** field, const GValue * value,
    const gchar * def)
{
  const gchar *v = g_value_get_string (value);

  g_free (*field);
  *field = g_strdup (v && *v ? v : def);
}

G_END_DECLS

#endif /* __GST_RTPCC_STRING_PROP_H__ */

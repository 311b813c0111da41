/* RtpccWindowExtreme: a windowed extreme (min or max) of what was added
 * over the last one to two windows: the current window's and the previous
 * one's, each kept until it is two windows old. Cheap, and forgets a route
 * change or a reordering episode within two windows.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_WINDOWEXTREME_H__
#define __RTPCC_WINDOWEXTREME_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  RtpccTime window;
  RtpccTime start;              /* of cur; RTPCC_TIME_NONE: empty */
  RtpccTime prev_start;         /* of prev; RTPCC_TIME_NONE: none */
  gint64 cur, prev;
} RtpccWindowExtreme;

/* Empty, with windows of @window. */
void rtpcc_window_extreme_init (RtpccWindowExtreme * w, RtpccTime window);
/* Empty again (the window length kept). */
void rtpcc_window_extreme_reset (RtpccWindowExtreme * w);
/* Adds @v at @now to the running maximum (@max) or minimum. */
void rtpcc_window_extreme_add (RtpccWindowExtreme * w, RtpccTime now,
    gint64 v, gboolean max);
/* The extreme of what is fresh at @now into @v; FALSE (@v untouched) if
 * nothing is. */
gboolean rtpcc_window_extreme_get (const RtpccWindowExtreme * w,
    RtpccTime now, gboolean max, gint64 * v);

G_END_DECLS

#endif

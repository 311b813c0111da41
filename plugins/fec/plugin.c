/* rtpccfec plugin: packet-level FEC on its own SSRC / PT / sequence space.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstfec.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = GST_ELEMENT_REGISTER (fecenc, plugin);

  ok |= GST_ELEMENT_REGISTER (fecdec, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR,
    GST_VERSION_MINOR,
    rtpccfec,
    "XOR / Reed-Solomon / 2-D XOR FEC for RTP on a separate sequence space",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)

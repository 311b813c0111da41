/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "rtpccelements.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (rtpccsink, plugin);
  ret |= GST_ELEMENT_REGISTER (rtpccsrc, plugin);
  ret |= GST_ELEMENT_REGISTER (rtpccbwe, plugin);
  ret |= GST_ELEMENT_REGISTER (mprtpsched, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, rtpcc,
    "Congestion-controlled RTP transport over UDP",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)

/* Controller unit tests' shared helper.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CC_UTIL_H__
#define __CC_UTIL_H__

#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

/* The controller registered as @name with @min / @max / @start bit/s; a
 * test failure if it cannot be made. */
static inline RtpccController *
cc_util_new (const gchar * name, guint64 min, guint64 max, guint64 start)
{
  RtpccControllerConfig cfg;
  GError *err = NULL;
  RtpccController *cc;

  rtpcc_controller_config_init (&cfg);
  cfg.min_bitrate = min;
  cfg.max_bitrate = max;
  cfg.start_bitrate = start;
  cc = rtpcc_controller_new (name, &cfg, 0, &err);
  fail_unless (cc != NULL, "%s", err ? err->message : "?");
  return cc;
}

/* An RTCP receiver report about our media at @now: @fraction lost /256,
 * round trip @rtt, 100 packets sent and *@hsn (the extended highest
 * sequence number) 100 further than before. */
static inline void
cc_util_rr (RtpccController * cc, RtpccTime now, guint8 fraction,
    RtpccTime rtt, guint32 * hsn)
{
  RtpccReceiverReport r;

  memset (&r, 0, sizeof (r));
  r.ssrc = 1;
  r.fraction_lost = fraction;
  r.rtt = rtt;
  *hsn += 100;
  r.ext_highest_seq = *hsn;
  r.packets_sent_interval = 100;
  rtpcc_controller_receiver_report (cc, now, &r);
}

#endif /* __CC_UTIL_H__ */

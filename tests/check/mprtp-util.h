/* Helpers of the multipath scheduler's unit tests (rtpcc_mprtp_sched.c,
 * rtpcc_mprtp_pathsender.c): a scheduler, and a path's state.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __MPRTP_UTIL_H__
#define __MPRTP_UTIL_H__

#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

/* @n paths with @cfg (NULL: the defaults); fails the test if refused. */
static inline RtpccMprtpSched *
new_sched (guint n, RtpccMprtpSchedConfig * cfg)
{
  RtpccMprtpSchedConfig c;
  RtpccMprtpSched *s;
  GError *err = NULL;

  if (cfg == NULL) {
    rtpcc_mprtp_sched_config_init (&c);
    cfg = &c;
  }
  s = rtpcc_mprtp_sched_new (cfg, n, 0, &err);
  fail_unless (s != NULL, "%s", err ? err->message : "");
  return s;
}

static inline RtpccMprtpPathInfo
info (RtpccMprtpSched * s, guint path)
{
  RtpccMprtpPathInfo i;

  fail_unless (rtpcc_mprtp_sched_get_path (s, path, &i));
  return i;
}

#endif /* __MPRTP_UTIL_H__ */

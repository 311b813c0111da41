/* A sender and a receiver of the library facing each other in a test
 * loop without a network (rtpcc_ratecap, rtpcc_xr_wire): how both are
 * made, and one media packet queued.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CALL_LOOP_H__
#define __CALL_LOOP_H__

#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

/* @controller from 1 Mbit/s (50 kbit/s – 2 Mbit/s), seed 3 */
static inline RtpccSender *
call_loop_sender_new (const gchar * controller, RtpccFeedbackMode feedback)
{
  RtpccSenderConfig sc;
  GError *err = NULL;
  RtpccSender *s;

  rtpcc_sender_config_init (&sc);
  sc.controller = controller;
  sc.feedback = feedback;
  sc.cc.start_bitrate = 1000000;
  sc.cc.min_bitrate = 50000;
  sc.cc.max_bitrate = 2000000;
  sc.seed = 3;
  s = rtpcc_sender_new (&sc, 0, &err);
  g_assert_no_error (err);
  return s;
}

/* seed 4; @rtcp_interval 0 and @xr_blocks G_MAXUINT: the defaults */
static inline RtpccReceiver *
call_loop_receiver_new (RtpccFeedbackMode feedback, RtpccTime rtcp_interval,
    guint xr_blocks)
{
  RtpccReceiverConfig rc;

  rtpcc_receiver_config_init (&rc);
  rc.feedback = feedback;
  rc.seed = 4;
  if (rtcp_interval > 0)
    rc.rtcp_interval = rtcp_interval;
  if (xr_blocks != G_MAXUINT)
    rc.xr_blocks = xr_blocks;
  return rtpcc_receiver_new (&rc, 0);
}

/* one @size-byte video packet of @ssrc, RTP time from @now */
static inline void
call_loop_enqueue (RtpccSender * s, RtpccTime now, guint32 ssrc,
    guint16 seq, guint size)
{
  RtpccRtpInfo info = { 0, };

  info.ssrc = ssrc;
  info.seq = seq;
  info.pt = 96;
  info.size = size;
  info.clock_rate = 90000;
  info.rtp_ts = (guint32) (now / RTPCC_MSEC (1) * 90);
  rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (1));
}

#endif

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_RTPCC_BWE_H__
#define __GST_RTPCC_BWE_H__

#include <gst/gst.h>
#include <rtpcc/sender.h>
#include <rtpcc/rtx.h>
#include "gstrtpccencoder.h"
#include "gstrtpccsenderprops.h"
#include "gstrtpccsink.h"

G_BEGIN_DECLS

#define GST_TYPE_RTPCC_BWE (gst_rtpcc_bwe_get_type ())
G_DECLARE_FINAL_TYPE (GstRtpccBwe, gst_rtpcc_bwe, GST, RTPCC_BWE, GstElement)

struct _GstRtpccBwe
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* properties (object lock) */
  GstRtpccSenderProps props;   /* controller, bitrates, pacing, encoder */
  guint twcc_ext_id;            /* 0: from the caps, or the lowest free ID */
  gboolean probing;
  gboolean circuit_breaker;
  gint fec_pt;

  /* runtime: lock guards all below but the encoder setter (task only) */
  GMutex lock;
  GCond cond;                   /* the task waits on it for work or time */
  RtpccSender *sender;
  RtpccRtxHistory *rtx;         /* what retransmission requests may ask */
  guint8 sender_ext_id;         /* the sender's TWCC extension ID */
  gboolean kicked;              /* work arrived since the task last looked */
  gboolean flushing;
  gboolean eos_pending;         /* EOS goes once the queue is empty */
  GstFlowReturn srcresult;
  GstClockTime last_pts, last_dts;      /* for probes */
  guint64 published_generation;
  guint64 published_channel;     /* rtpcc_sender_get_channel_generation */
  gboolean upstream_pending;    /* the last target event did not get up */
  gboolean last_tripped;
  gboolean feedback_warned;
  guint64 twcc_events, twcc_malformed;
  guint64 invalid_rtp;          /* buffers that could not be mapped */
  guint64 ext_id_conflicts;     /* caps changed the TWCC ID mid-stream */
  GstRtpccEncoderSetter encoder;
};

G_END_DECLS

#endif

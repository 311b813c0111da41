/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_MPRTP_SCHED_H__
#define __GST_MPRTP_SCHED_H__

#include <gst/gst.h>
#include <rtpcc/mprtp/sched.h>
#include <rtpcc/mprtp/pathsender.h>
#include "gstrtpccclock.h"
#include "gstrtpccencoder.h"
#include "gstrtpccsink.h"

G_BEGIN_DECLS

#define GST_TYPE_MPRTP_SCHED (gst_mprtp_sched_get_type ())
G_DECLARE_FINAL_TYPE (GstMprtpSched, gst_mprtp_sched, GST, MPRTP_SCHED,
    GstElement)

/* What mprtpsched knows of one path (src pad) */
typedef struct
{
  GstPad *pad;
  guint index;                  /* its src_%u number = subflow ID */
  gboolean announced;           /* rtpcc-mprtp event pushed */
  guint16 fssn;                 /* next subflow seq */
  RtpccMprtpPathSender sender;  /* its rtpccsink's target and counters */
  guint64 mprtcp_seen;          /* subflow reports taken (0: none came) */
  guint64 pushed, pushed_bytes, probes;
} GstMprtpSchedPath;

struct _GstMprtpSched
{
  GstElement parent;

  GstPad *sinkpad;

  /* properties (object lock) */
  guint ext_id;
  GstRtpccEncoderControl encoder_control;
  guint encoder_buffer_ms;
  guint64 max_bitrate;
  guint latency_bound_ms;
  guint probe_interval_ms;
  gboolean limits_changed;      /* one of the three above, while playing */

  /* runtime: lock guards everything below */
  GMutex lock;
  GPtrArray *paths;             /* GstMprtpSchedPath*, by request order */
  guint next_index;
  RtpccMprtpSched *sched;       /* from the first buffer on */
  GstSegment segment;
  RtpccTime last_now;
  GstRtpccClockCache clock_cache;       /* object lock */
  RtpccTime last_poll, last_interval;
  gboolean seen_delta;          /* the payloader marks delta units */
  gboolean have_ssrc;           /* the media stream's SSRC is known */
  guint32 ssrc;
  guint64 other_ssrc_packets;   /* packets of any other SSRC */
  guint64 published_rate;
  guint64 ext_failures, released_drops, malformed_targets;
  guint64 aggregate_updates, superseded_targets, key_unit_requests;
  /* repairs on the best path (gstmprtpschedrtx.c): the recent media
   * packets by media seq, the paths each went on; repairs sent on another
   * path, and requests refused (unknown seq or path, malformed) */
  struct _GstMprtpSchedSent *sent;
  guint64 rtx_moved, rtx_unknown, rtx_malformed;
  /* the repairs to push (GstMprtpSchedRepair), by rtx_task, which waits
   * on rtx_cond (with lock) */
  GArray *rtx_pending;
  GCond rtx_cond;
  gboolean rtx_stopping;
  GstTask *rtx_task;
  GRecMutex rtx_task_lock;
  GMutex encoder_lock;           /* guards encoder */
  GstRtpccEncoderSetter encoder;
};


G_END_DECLS

#endif

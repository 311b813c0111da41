/* mprtpsched's insides, shared by its two files: gstmprtpsched.c (the
 * element: pads, the paths, streaming, states) and gstmprtpschedprops.c
 * (the properties and the stats).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_MPRTP_SCHED_PRIV_H__
#define __GST_MPRTP_SCHED_PRIV_H__

#include "gstmprtpsched.h"

G_BEGIN_DECLS

#define DEFAULT_EXT_ID 5
#define DEFAULT_ENCODER_CONTROL GST_RTPCC_ENCODER_CONTROL_AUTO
/* rtpccsink's default max-pacing-delay, which paces each path */
#define DEFAULT_ENCODER_BUFFER 100
#define DEFAULT_MAX_BITRATE 0
#define DEFAULT_LATENCY_BOUND 500
#define DEFAULT_PROBE_INTERVAL 1000

enum
{
  PROP_0,
  PROP_EXT_ID,
  PROP_ENCODER_CONTROL,
  PROP_ENCODER_BUFFER,
  PROP_MAX_BITRATE,
  PROP_LATENCY_BOUND,
  PROP_PROBE_INTERVAL,
  PROP_TARGET_BITRATE,
  PROP_STATS,
};

/* gstmprtpschedprops.c */
G_GNUC_INTERNAL void gst_mprtp_sched_install_properties (GObjectClass *
    klass);
G_GNUC_INTERNAL void gst_mprtp_sched_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
G_GNUC_INTERNAL void gst_mprtp_sched_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);

/* gstmprtpsched.c: @buf with path @p's subflow element (its next FSSN),
 * or NULL (counted in ext_failures). With the lock. */
G_GNUC_INTERNAL GstBuffer *gst_mprtp_sched_stamp (GstMprtpSched * self,
    GstBuffer * buf, GstMprtpSchedPath * p, guint8 ext_id);

/* gstmprtpschedrtx.c. init / finalize: with the element; start: at
 * READY→PAUSED, stop: after PAUSED→READY (the repair task, which pushes
 * the repairs; the sinks are down by then, so a push it blocked in is
 * over). remember: @buf (a media packet, unstamped) went on
 * the paths of @mask (bit = path position); with the lock, two paths or
 * more. clear: forget them all; with the lock. rtx_query: an
 * rtpcc-mprtp-rtx query from the sink behind @pad, answered "moved" if
 * the repair went out on another path; FALSE if malformed. */
G_GNUC_INTERNAL void gst_mprtp_sched_rtx_init (GstMprtpSched * self);
G_GNUC_INTERNAL void gst_mprtp_sched_rtx_finalize (GstMprtpSched * self);
G_GNUC_INTERNAL void gst_mprtp_sched_rtx_start (GstMprtpSched * self);
G_GNUC_INTERNAL void gst_mprtp_sched_rtx_stop (GstMprtpSched * self);
G_GNUC_INTERNAL void gst_mprtp_sched_rtx_remember (GstMprtpSched * self,
    GstBuffer * buf, guint32 mask);
G_GNUC_INTERNAL void gst_mprtp_sched_rtx_clear (GstMprtpSched * self);
G_GNUC_INTERNAL gboolean gst_mprtp_sched_rtx_query (GstMprtpSched * self,
    GstPad * pad, GstQuery * query);

G_END_DECLS

#endif /* __GST_MPRTP_SCHED_PRIV_H__ */

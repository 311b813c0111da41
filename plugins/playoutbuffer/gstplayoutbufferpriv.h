/* playoutbuffer's insides, shared by its two files: gstplayoutbuffer.c
 * (the element: pads, the queue's task, events, states) and
 * gstplayoutbufferprops.c (the properties, the RtpccPlayout configuration
 * they make, and the stats).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_PLAYOUT_BUFFER_PRIV_H__
#define __GST_PLAYOUT_BUFFER_PRIV_H__

#include "gstplayoutbuffer.h"
#include "gstrtpcctimedtask.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_playout_buffer_debug);
#define GST_CAT_DEFAULT gst_playout_buffer_debug

#define DEFAULT_PERCENTILE 99.9
/* times in ms */
#define DEFAULT_MIN_DELAY 0
#define DEFAULT_MAX_DELAY 400
#define DEFAULT_FEC_WINDOW (-1)
#define DEFAULT_MODE GST_PLAYOUT_BUFFER_MODE_ADAPTIVE
#define DEFAULT_WINDOW 2000
#define DEFAULT_DOWN_RATE 0.5
#define DEFAULT_LATE_BUMP TRUE
#define DEFAULT_LATE_TARGET 0.5
#define DEFAULT_RETURN_TIME 100
#define DEFAULT_LEVEL_WINDOW 2000
#define DEFAULT_CLOCK_RATE 90000

enum
{
  PROP_0,
  PROP_PERCENTILE,
  PROP_MIN_DELAY,
  PROP_MAX_DELAY,
  PROP_FEC_WINDOW,
  PROP_MODE,
  PROP_WINDOW,
  PROP_DOWN_RATE,
  PROP_LATE_BUMP,
  PROP_LATE_TARGET,
  PROP_RETURN_TIME,
  PROP_LEVEL_WINDOW,
  PROP_CLOCK_RATE,
  PROP_TARGET_DELAY,
  PROP_STATS,
};

typedef struct
{
  guint subflow;
  gboolean eos;
  guint clock_rate;             /* from caps, 0 = unknown */
} SinkPadData;

struct _GstPlayoutBuffer
{
  GstElement parent;

  GstPad *srcpad;

  GMutex lock;
  /* the src pad's task: sleeps until the head packet is due */
  GstRtpccTimedTask task;

  /* properties */
  RtpccPlayoutConfig config;
  gint fec_window_prop;         /* ms, -1 = auto */
  guint clock_rate_prop;

  RtpccPlayout *playout;
  guint clock_rate;             /* from the caps, 0 = none */
  guint clock_rate_start;       /* clock-rate as the playout started */

  /* fecdec's deadline from its rtpcc-fec-window event; NONE: none came */
  GstClockTime fec_deadline;

  gboolean playing;
  RtpccTime last_now;
  gboolean eos;
  GstFlowReturn srcresult;
  gboolean sent_stream_start, sent_caps, sent_segment;
  /* held while the first stream-start, caps or segment of any subflow is
   * pushed, so that another subflow's data cannot overtake it */
  GMutex sticky_lock;

  guint64 invalid, ssrc_changes, discard_events, pushed;
  guint64 fillers_other_ssrc;   /* padding-only, not of the current SSRC */
  /* the de-jitter state rtpccsrc upstream reports (RFC 7005), sent as
   * "rtpcc-playout-state" at most every GST_RTPCC_PLAYOUT_STATE_INTERVAL */
  RtpccPlayoutDjbMeter djb_meter;
  guint64 state_events;
};

/* gstplayoutbufferprops.c */
G_GNUC_INTERNAL void gst_playout_buffer_install_properties (GObjectClass *
    klass);
G_GNUC_INTERNAL void gst_playout_buffer_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
G_GNUC_INTERNAL void gst_playout_buffer_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
/* Lock held: the configuration in force (the properties, the caps' clock
 * rate and what fecdec announced), and the same given to the live
 * RtpccPlayout. */
G_GNUC_INTERNAL RtpccPlayoutConfig
gst_playout_buffer_config_locked (GstPlayoutBuffer * self);
G_GNUC_INTERNAL void gst_playout_buffer_apply_config_locked (GstPlayoutBuffer
    * self);

G_END_DECLS

#endif /* __GST_PLAYOUT_BUFFER_PRIV_H__ */

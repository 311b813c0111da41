/* linkemu's insides, shared by its two files: gstlinkemu.c (the element:
 * pads, the delivery queue and its task, states) and gstlinkemuprops.c
 * (the properties, what they mean to the RtpccLink, and the stats).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_LINK_EMU_PRIV_H__
#define __GST_LINK_EMU_PRIV_H__

#include "gstlinkemu.h"
#include "gstrtpcctimedtask.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_link_emu_debug);
#define GST_CAT_DEFAULT gst_link_emu_debug

#define DEFAULT_RATE            0
#define DEFAULT_SCHEDULE        NULL
#define DEFAULT_TRACE           NULL
#define DEFAULT_QUEUE_MS        300
#define DEFAULT_QUEUE_BYTES     0
#define DEFAULT_BURST           0
#define DEFAULT_DELAY           0
#define DEFAULT_JITTER          0
#define DEFAULT_ALLOW_REORDER   FALSE
#define DEFAULT_LOSS            0.0
#define DEFAULT_LOSS_MODEL      GST_LINK_EMU_LOSS_MODEL_BERNOULLI
#define DEFAULT_GE_P            0.0
#define DEFAULT_GE_R            1.0
#define DEFAULT_GE_K            1.0
#define DEFAULT_GE_H            0.0
#define DEFAULT_SEED            0

enum
{
  PROP_0,
  PROP_RATE,
  PROP_SCHEDULE,
  PROP_TRACE,
  PROP_QUEUE_MS,
  PROP_QUEUE_BYTES,
  PROP_BURST,
  PROP_DELAY,
  PROP_JITTER,
  PROP_ALLOW_REORDER,
  PROP_LOSS,
  PROP_LOSS_MODEL,
  PROP_GE_P,
  PROP_GE_R,
  PROP_GE_K,
  PROP_GE_H,
  PROP_SEED,
  PROP_STATS,
};

/* One entry of the delivery queue: a buffer with its delivery time, or a
 * serialized event that keeps its place behind the buffers before it. */
typedef struct
{
  GstBuffer *buffer;
  GstEvent *event;
  RtpccTime deliver_at;
  gsize size;
} GstLinkEmuItem;

struct _GstLinkEmu
{
  GstElement parent;

  GstPad *sinkpad;
  GstPad *srcpad;

  /* Protects everything below. Lock order: lock, then any GstObject lock. */
  GMutex lock;
  /* The src pad's task: sleeps until the head's delivery time; woken when
   * the head may be due sooner, on PLAYING and on flushing. */
  GstRtpccTimedTask task;

  /* properties */
  guint rate;
  gchar *schedule;
  gchar *trace;
  guint queue_ms;
  guint queue_bytes;
  guint burst;
  guint delay;
  guint jitter;
  gboolean allow_reorder;
  gdouble loss;
  GstLinkEmuLossModel loss_model;
  gdouble ge_p, ge_r, ge_k, ge_h;
  guint64 seed;

  /* Parsed on set so errors show up early; a failed parse is kept and
   * reported when going to PAUSED. */
  RtpccCapacity *schedule_cap;
  GError *schedule_error;
  RtpccCapacity *trace_cap;
  GError *trace_error;

  /* streaming state */
  RtpccLink *link;
  GQueue queue;                 /* of GstLinkEmuItem */
  gboolean playing;
  gboolean eos;
  GstFlowReturn srcresult;
  RtpccTime last_now;

  /* Counters of links freed by a flush or a stop; the live link's own stats
   * are added on top. */
  RtpccLinkStats past;
  guint64 pushed_packets, pushed_bytes;
  guint64 flushed_packets;
};

/* gstlinkemuprops.c */
G_GNUC_INTERNAL void gst_link_emu_install_properties (GObjectClass * klass);
G_GNUC_INTERNAL void gst_link_emu_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
G_GNUC_INTERNAL void gst_link_emu_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
/* Lock held: a new link from the properties (FALSE and @error when they do
 * not make one); its counters folded into the element's and freed; a fresh
 * one with the configuration in force (after a flush). */
G_GNUC_INTERNAL gboolean gst_link_emu_create_link_locked (GstLinkEmu * self,
    GError ** error);
G_GNUC_INTERNAL void gst_link_emu_free_link_locked (GstLinkEmu * self);
G_GNUC_INTERNAL void gst_link_emu_restart_link_locked (GstLinkEmu * self);

/* gstlinkemu.c: the running time, never going back (lock held) */
G_GNUC_INTERNAL RtpccTime gst_link_emu_now_locked (GstLinkEmu * self);

G_END_DECLS

#endif /* __GST_LINK_EMU_PRIV_H__ */

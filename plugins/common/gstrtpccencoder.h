/* Encoder control for the transport elements: find the encoder upstream of
 * a pad, give it a bitrate in its own units, and tell the truth about it.
 *
 * After setting the property the value is read back: an encoder that
 * refuses a change while playing (libav's avenc_* do, once opened) is
 * reported once with a GST_ELEMENT_WARNING and every refusal is counted.
 * An encoder whose rate-control mode ignores its bitrate property (e.g.
 * openh264enc's default rate-control=quality) is reported once likewise,
 * naming the setting that makes the bitrate mean something.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_ENCODER_H__
#define __GST_RTPCC_ENCODER_H__

#include <gst/gst.h>
#include <rtpcc/encoderrate.h>
#include <rtpcc/encoderloop.h>
#include <rtpcc/encodersplit.h>

G_BEGIN_DECLS

/* Whether a transport element drives the encoder (its encoder-control) */
typedef enum
{
  GST_RTPCC_ENCODER_CONTROL_NONE = 0,
  GST_RTPCC_ENCODER_CONTROL_AUTO = 1,
} GstRtpccEncoderControl;

GType gst_rtpcc_encoder_control_get_type (void);

/* Encoders one transport drives at most (audio and video behind a funnel,
 * several cameras): beyond, the others are left alone (warned once). */
#define GST_RTPCC_MAX_ENCODERS 8

/* One encoder found upstream and what was done to it */
typedef struct
{
  GstElement *enc;              /* reffed */
  const RtpccEncoderInfo *info;
  gboolean audio;               /* its class says Audio */
  guint64 wish_bps;             /* its rate when found: the application's */
  RtpccEncoderHysteresis hysteresis;
  guint64 last_value;           /* in the encoder's unit, 0 = none */
  guint buffer_applied_ms;      /* 0 = nothing yet */
  gboolean warned_mode;
} GstRtpccEncoderSlot;

typedef struct
{
  GstElement *owner;            /* posts the warnings; not reffed */
  gboolean searched;            /* the "no encoder" note was logged */
  gboolean warned_refused;
  gboolean warned_full;
  RtpccTime retry_at;           /* an increase held back, or NONE */
  guint64 updates;              /* values the encoders took */
  guint64 refused;              /* values they read back differently */
  gchar *encoder_name;          /* factories of the encoders found, ", " */
  /* the encoders found so far; the target is shared among those found at
   * each change (encodersplit.h) */
  GstRtpccEncoderSlot slots[GST_RTPCC_MAX_ENCODERS];
  guint n_slots;
  /* the encoder's rate-control buffer (VBV), for an encoder that has one:
   * what the owner wants (ms, 0 = leave the encoder's own) */
  guint buffer_ms;
  /* atomic: the frame room a sendbuffer upstream told (ms, at least 1),
   * -1 = none; the buffer applied is the smaller of the two */
  gint room_ms;
  guint64 buffer_refused;
  gboolean warned_buffer;
  /* what the encoders produce against the target, and the correction
   * (encoderloop.h); the streaming thread feeds it, the thread that
   * applies reads it: under loop_lock */
  GMutex loop_lock;
  RtpccEncoderLoop loop;
  gint reapply;                 /* atomic: the correction changed */
} GstRtpccEncoderSetter;

void gst_rtpcc_encoder_setter_init (GstRtpccEncoderSetter * ec,
    GstElement * owner);
void gst_rtpcc_encoder_setter_clear (GstRtpccEncoderSetter * ec);
/* Forget the applied rate (a new stream starts). */
void gst_rtpcc_encoder_setter_reset (GstRtpccEncoderSetter * ec);

/* Apply @bps to the encoders found upstream of @sinkpad (shared by
 * rtpcc_encoder_split when there are several), each through its
 * hysteresis, and buffer_ms once (again when it changes). Call without locks the encoder might take (g_object_set on
 * it can block on its stream lock). @now is any monotonic time. */
void gst_rtpcc_encoder_setter_apply (GstRtpccEncoderSetter * ec,
    GstPad * sinkpad, RtpccTime now, guint64 bps);

/* An RTP packet on its way to the network (@data, @len bytes, media time
 * @pts): its payload is measured against the target, unless it has
 * payload type @skip_pt (FEC; -1 = none) or no payload (padding probes).
 * TRUE when the correction changed: the owner then applies its current
 * target again (gst_rtpcc_encoder_setter_take_reapply() in the applying
 * thread). Cheap; any thread. */
gboolean gst_rtpcc_encoder_setter_produced (GstRtpccEncoderSetter * ec,
    GstClockTime pts, const guint8 * data, gsize len, gint skip_pt);
/* TRUE once after the correction changed. */
gboolean gst_rtpcc_encoder_setter_take_reapply (GstRtpccEncoderSetter * ec);
/* A sendbuffer's frame room (rtpcc-frame-room; GST_CLOCK_TIME_NONE =
 * none): from the next apply on, the encoder's buffer is at most that
 * (UltraGrid's Eq. 6.3 through the encoder's VBV), unless buffer_ms is 0
 * (leave the encoder's own). A new value makes take_reapply TRUE, as a
 * new correction does. Any thread. */
void gst_rtpcc_encoder_setter_set_room (GstRtpccEncoderSetter * ec,
    GstClockTime room);
/* The rate-control buffer the encoders get now (ms, 0 = leave it). */
guint gst_rtpcc_encoder_setter_buffer_ms (const GstRtpccEncoderSetter *
    ec);

/* Adds encoder-produced (bit/s over the last window, 0 before one) and
 * encoder-correction (the factor on the target) to @s. */
void gst_rtpcc_encoder_setter_add_stats (const GstRtpccEncoderSetter * ec,
    GstStructure * s);

/* Element class metadata key: an element class that sets it (to any
 * value) owns the encoder's rate for everything downstream of it
 * (mprtpsched, which aggregates several transports' targets); the search
 * below never goes past it. */
#define GST_RTPCC_RATE_OWNER_KEY "rtpcc-rate-owner"

/* The element found upstream of @sinkpad whose factory the table knows,
 * through ghost pads and elements without one (payloaders, queues), or
 * NULL; never past an element whose class has GST_RTPCC_RATE_OWNER_KEY. */
GstElement *gst_rtpcc_find_encoder (GstPad * sinkpad,
    const RtpccEncoderInfo ** info);
/* All of them (at most @max, breadth first), reffed into @encs; their
 * number. */
guint gst_rtpcc_find_encoders (GstPad * sinkpad, GstElement ** encs,
    const RtpccEncoderInfo ** infos, guint max);

G_END_DECLS

#endif

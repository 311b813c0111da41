/* The sender-side settings rtpccsink and rtpccbwe share: which controller,
 * its tuning and bitrate bounds, pacing, whether the upstream encoder is
 * driven, and the current target. One struct holds the values; the element
 * installs the properties from its first ID on, forwards set/get to the
 * group first, fills its RtpccSenderConfig and stats from it, and
 * publishes each new target through it (upstream event, bus message,
 * notify). The properties whose meaning differs between the two elements
 * (feedback, probing, circuit-breaker, twcc-ext-id, fec-pt) stay with
 * each element.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_SENDER_PROPS_H__
#define __GST_RTPCC_SENDER_PROPS_H__

#include <gst/gst.h>
#include <rtpcc/sender.h>
#include "gstrtpccencoder.h"

G_BEGIN_DECLS

/* Property IDs, relative to the element's first_prop_id. */
enum
{
  GST_RTPCC_SENDER_PROP_CONTROLLER,
  GST_RTPCC_SENDER_PROP_CONTROLLER_PARAMS,
  GST_RTPCC_SENDER_PROP_MIN_BITRATE,
  GST_RTPCC_SENDER_PROP_MAX_BITRATE,
  GST_RTPCC_SENDER_PROP_START_BITRATE,
  GST_RTPCC_SENDER_PROP_ENCODER_CONTROL,
  GST_RTPCC_SENDER_PROP_PACING,
  GST_RTPCC_SENDER_PROP_MAX_PACING_DELAY,
  GST_RTPCC_SENDER_PROP_ENCODER_BUFFER,
  GST_RTPCC_SENDER_PROP_TARGET_BITRATE,
  GST_RTPCC_SENDER_N_PROPS
};

typedef struct
{
  /* what differs between the elements; fixed at init */
  const gchar *default_controller;
  /* the values (the element's object lock) */
  gchar *controller;
  gchar *controller_params;     /* "key=value;...", applied at start */
  guint min_bitrate, max_bitrate, start_bitrate;
  GstRtpccEncoderControl encoder_control;
  gboolean pacing;
  guint max_pacing_delay_ms;
  gint encoder_buffer_ms;       /* -1 = max_pacing_delay_ms, 0 = leave */
} GstRtpccSenderProps;

/* Defaults: @default_controller by registry name, the pacer's bound and
 * the encoder-buffer (-1: the pacer's bound, 0: leave the encoder's). */
void gst_rtpcc_sender_props_init (GstRtpccSenderProps * p,
    const gchar * default_controller, guint default_max_pacing_delay_ms,
    gint default_encoder_buffer_ms);
void gst_rtpcc_sender_props_clear (GstRtpccSenderProps * p);

/* Installs GST_RTPCC_SENDER_N_PROPS properties from @first_prop_id on,
 * with the same defaults as gst_rtpcc_sender_props_init(). */
void gst_rtpcc_sender_props_install (GObjectClass * klass,
    guint first_prop_id, const gchar * default_controller,
    guint default_max_pacing_delay_ms, gint default_encoder_buffer_ms);

/* TRUE when @prop_id is one of the group's writable properties of @obj:
 * then it is set, under the object lock. */
gboolean gst_rtpcc_sender_props_set_property (GstRtpccSenderProps * p,
    GstObject * obj, guint first_prop_id, guint prop_id,
    const GValue * value);
/* TRUE when @prop_id is one of the group's properties: then @value holds
 * it, read under the object lock, or for target-bitrate from *@sender
 * (NULL: 0) under @sender_lock. */
gboolean gst_rtpcc_sender_props_get_property (const GstRtpccSenderProps * p,
    GstObject * obj, guint first_prop_id, guint prop_id, GValue * value,
    GMutex * sender_lock, RtpccSender * const *sender);

/* Copies the group's values into @cfg (after rtpcc_sender_config_init);
 * cfg->controller points into @p, so make the sender under the same lock. */
void gst_rtpcc_sender_props_to_config (const GstRtpccSenderProps * p,
    RtpccSenderConfig * cfg);
/* The encoder's rate-control buffer to ask for, in ms (0 = leave it):
 * encoder-buffer, or max-pacing-delay when that is -1. */
guint gst_rtpcc_sender_props_encoder_buffer_ms (const GstRtpccSenderProps *
    p);
/* Applies controller-params to @sender's controller; FALSE with @error
 * naming the bad key or value. */
gboolean gst_rtpcc_sender_props_apply_params (const GstRtpccSenderProps * p,
    RtpccSender * sender, GError ** error);

/* Pushes the target @s (taken) upstream from @sinkpad as an rtpcc-target
 * event. TRUE when it must be pushed again later: the pad was flushing
 * (or became so) and dropped it. */
gboolean gst_rtpcc_sender_push_target (GstPad * sinkpad, GstStructure * s);
/* Publishes a new target @s (taken) of @element: the upstream event as
 * above (same return), a bus message, notify::target-bitrate. */
gboolean gst_rtpcc_sender_publish_target (GstElement * element,
    GstPad * sinkpad, GstStructure * s);

/* Adds to @s the fields every sender element reports: controller, state,
 * target-bitrate, pacing-rate, packets and bytes sent, drops, the
 * per-packet reports' rtt, loss, receive-rate, queue-delay,
 * breaker-tripped, probe counters, and the encoder's updates, refusals
 * (of a bitrate, of a buffer size) and name from @encoder. */
void gst_rtpcc_sender_props_add_stats (GstStructure * s,
    RtpccSender * sender, RtpccTime now,
    const GstRtpccEncoderSetter * encoder);

G_END_DECLS

#endif

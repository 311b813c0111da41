/* How a target rate reaches an encoder: which property of which encoder
 * takes the target, in which unit, in which rate-control mode that property
 * means what it says, and when a change is worth applying.
 *
 * The element walks upstream, finds an encoder by factory name, and sets
 * the property through GObject; this table holds only the facts and the
 * decisions, so it is unit-testable without GStreamer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_ENCODER_RATE_H__
#define __RTPCC_ENCODER_RATE_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  const gchar *factory;         /* GStreamer element factory name */
  const gchar *property;        /* its bitrate property */
  guint64 unit;                 /* bit/s per property unit (1000 = kbit/s) */
  guint64 min_value, max_value; /* property range we keep to */
  /* The enum property that selects rate control, and the comma-separated
   * nicks of its values in which the bitrate property is a rate the
   * encoder keeps to; NULL when the encoder has no such switch. */
  const gchar *mode_property;
  const gchar *rate_modes;
  /* the setting to recommend when the mode is another one */
  const gchar *recommended;
  /* the encoder keeps the value in multiples of this many property units
   * (vp8enc takes bit/s and stores kbit/s); 0 = any value */
  guint64 step;
  /* its rate-control buffer (VBV) size property, in ms, or NULL: how far
   * the encoder may run ahead of its rate (a key frame, the lag after a
   * rate cut), so how much the transport must absorb */
  const gchar *buffer_property;
} RtpccEncoderInfo;

/* NULL if the factory is not a known encoder. Matches avenc_* by prefix. */
const RtpccEncoderInfo *rtpcc_encoder_lookup (const gchar * factory);
/* The known entries, NULL-terminated (for docs and tests). */
const RtpccEncoderInfo *const *rtpcc_encoder_list (void);

/* Property value for @bps, rounded to the unit (and the step) and clamped
 * to the range. */
guint64 rtpcc_encoder_value_for_bitrate (const RtpccEncoderInfo * info,
    guint64 bps);

/* FALSE when the encoder's rate-control mode, given by the nick of its
 * @mode_property value, ignores or only loosely follows the bitrate
 * property (openh264enc rate-control=quality, x264enc pass=quant, …).
 * TRUE for encoders without a mode switch, and for a NULL @mode_nick. */
gboolean rtpcc_encoder_mode_follows_bitrate (const RtpccEncoderInfo * info,
    const gchar * mode_nick);

/* Hysteresis so the encoder is not poked for every small wiggle (each change
 * can cost a rate-control transient): decreases of >= @min_change (relative)
 * are applied at once — congestion must be answered — increases of that size
 * only if @min_interval has passed since the last applied change. */
typedef struct
{
  gdouble min_change;           /* default 0.05 */
  RtpccTime min_interval;       /* default 1 s, for increases only */
  guint64 applied_bps;          /* 0 = nothing applied yet */
  RtpccTime applied_at;
} RtpccEncoderHysteresis;

void rtpcc_encoder_hysteresis_init (RtpccEncoderHysteresis * h);
/* TRUE if @bps should be applied now; then records it as applied. */
gboolean rtpcc_encoder_hysteresis_update (RtpccEncoderHysteresis * h,
    RtpccTime now, guint64 bps);
/* After an update that returned FALSE for @bps: when that rate becomes due
 * even if the target does not change again (an increase held back by
 * @min_interval), or RTPCC_TIME_NONE if it never will (a change too small
 * to apply). */
RtpccTime rtpcc_encoder_hysteresis_retry_at (const RtpccEncoderHysteresis *
    h, RtpccTime now, guint64 bps);

G_END_DECLS

#endif

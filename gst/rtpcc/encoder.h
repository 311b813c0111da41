/* Encoder bitrate application table: which property of which encoder takes
 * the target, in which unit, and when a change is worth applying.
 *
 * The element walks upstream, finds an encoder by factory name, and sets
 * the property through GObject; this table holds only the facts and the
 * decision, so it is unit-testable without GStreamer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_ENCODER_H__
#define __RTPCC_ENCODER_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  const gchar *factory;         /* GStreamer element factory name */
  const gchar *property;        /* its bitrate property */
  guint64 unit;                 /* bit/s per property unit (1000 = kbit/s) */
  guint64 min_value, max_value; /* property range we keep to */
} RtpccEncoderInfo;

/* NULL if the factory is not a known encoder. Matches avenc_* by prefix. */
const RtpccEncoderInfo *rtpcc_encoder_lookup (const gchar * factory);
/* The known entries, NULL-terminated (for docs and tests). */
const RtpccEncoderInfo *const *rtpcc_encoder_list (void);

/* Property value for @bps, rounded to the unit and clamped to the range. */
guint64 rtpcc_encoder_value_for_bitrate (const RtpccEncoderInfo * info,
    guint64 bps);

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

G_END_DECLS

#endif

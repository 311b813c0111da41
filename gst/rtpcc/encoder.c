/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/encoder.h>

#include <string.h>

/* Units checked against gst-inspect-1.0 1.22 on Debian bookworm. */
static const RtpccEncoderInfo encoders[] = {
  {"x264enc", "bitrate", 1000, 1, 2048000},     /* kbit/s */
  {"x265enc", "bitrate", 1000, 1, 102400},      /* kbit/s */
  {"vp8enc", "target-bitrate", 1, 1, G_MAXINT}, /* bit/s */
  {"vp9enc", "target-bitrate", 1, 1, G_MAXINT}, /* bit/s */
  {"openh264enc", "bitrate", 1, 1, G_MAXUINT},  /* bit/s */
  {"svtav1enc", "target-bitrate", 1000, 1, 100000},     /* kbit/s */
  {"av1enc", "target-bitrate", 1000, 1, G_MAXUINT},     /* kbit/s (aom) */
  {"theoraenc", "bitrate", 1000, 1, 16777215},  /* kbit/s */
  {"opusenc", "bitrate", 1, 4000, 650000},      /* bit/s */
  {"vaapih264enc", "bitrate", 1000, 1, 102400}, /* kbit/s */
  {"vah264enc", "bitrate", 1000, 1, 2048000},   /* kbit/s */
  {"nvh264enc", "bitrate", 1000, 1, 2048000},   /* kbit/s */
};

/* libav encoders all take bit/s */
static const RtpccEncoderInfo avenc = { "avenc_*", "bitrate", 1, 1, G_MAXINT };

static const RtpccEncoderInfo *const encoder_list[] = {
  &encoders[0], &encoders[1], &encoders[2], &encoders[3], &encoders[4],
  &encoders[5], &encoders[6], &encoders[7], &encoders[8], &encoders[9],
  &encoders[10], &encoders[11], &avenc, NULL
};

G_STATIC_ASSERT (G_N_ELEMENTS (encoder_list) == G_N_ELEMENTS (encoders) + 2);

const RtpccEncoderInfo *
rtpcc_encoder_lookup (const gchar * factory)
{
  if (!factory)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (encoders); i++)
    if (strcmp (encoders[i].factory, factory) == 0)
      return &encoders[i];
  if (g_str_has_prefix (factory, "avenc_"))
    return &avenc;
  return NULL;
}

const RtpccEncoderInfo *const *
rtpcc_encoder_list (void)
{
  return encoder_list;
}

guint64
rtpcc_encoder_value_for_bitrate (const RtpccEncoderInfo * info, guint64 bps)
{
  guint64 v = (bps + info->unit / 2) / info->unit;
  return CLAMP (v, info->min_value, info->max_value);
}

void
rtpcc_encoder_hysteresis_init (RtpccEncoderHysteresis * h)
{
  h->min_change = 0.05;
  h->min_interval = RTPCC_SEC (1);
  h->applied_bps = 0;
  h->applied_at = RTPCC_TIME_NONE;
}

gboolean
rtpcc_encoder_hysteresis_update (RtpccEncoderHysteresis * h, RtpccTime now,
    guint64 bps)
{
  gdouble rel;

  if (h->applied_bps == 0)
    goto apply;
  if (bps == h->applied_bps)
    return FALSE;
  rel = ((gdouble) bps - (gdouble) h->applied_bps) / (gdouble) h->applied_bps;
  if (rel <= -h->min_change)
    goto apply;
  if (rel >= h->min_change && (h->applied_at == RTPCC_TIME_NONE
          || now - h->applied_at >= h->min_interval))
    goto apply;
  return FALSE;

apply:
  h->applied_bps = bps;
  h->applied_at = now;
  return TRUE;
}

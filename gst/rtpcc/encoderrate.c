/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/encoderrate.h>

#include <string.h>

/* Units and rate-control modes checked against gst-inspect-1.0 1.22 on Debian
 * bookworm. x264enc's pass1..3 are average-bitrate modes; vp8/vp9 VBR keeps
 * the average near the target, CBR also bounds each frame; openh264enc's
 * default "quality" mode treats the bitrate as a loose hint. The buffer
 * property: x264enc's vbv-buf-capacity (ms at the bitrate, default 600,
 * changeable while playing). libvpx has three coupled levels (buffer-size,
 * -initial-size, -optimal-size) and is left alone. */
static const RtpccEncoderInfo encoders[] = {
  {"x264enc", "bitrate", 1000, 1, 2048000, "pass", "cbr,pass1,pass2,pass3",
      "pass=cbr", 0, "vbv-buf-capacity"},
  {"x265enc", "bitrate", 1000, 1, 102400, NULL, NULL, NULL},
  /* libvpx's rc_target_bitrate is in kbit/s: the property keeps bit/s
   * rounded down to a multiple of 1000 */
  {"vp8enc", "target-bitrate", 1, 1000, G_MAXINT, "end-usage", "cbr,vbr",
      "end-usage=cbr", 1000},
  {"vp9enc", "target-bitrate", 1, 1000, G_MAXINT, "end-usage", "cbr,vbr",
      "end-usage=cbr", 1000},
  {"openh264enc", "bitrate", 1, 1, G_MAXUINT, "rate-control", "bitrate",
      "rate-control=bitrate"},
  {"svtav1enc", "target-bitrate", 1000, 1, 100000, NULL, NULL, NULL},
  {"av1enc", "target-bitrate", 1000, 1, G_MAXUINT, "end-usage", "cbr,vbr",
      "end-usage=cbr"},
  {"theoraenc", "bitrate", 1000, 1, 16777215, NULL, NULL, NULL},
  {"opusenc", "bitrate", 1, 4000, 650000, NULL, NULL, NULL},
  {"vaapih264enc", "bitrate", 1000, 1, 102400, NULL, NULL, NULL},
  {"vah264enc", "bitrate", 1000, 1, 2048000, NULL, NULL, NULL},
  {"nvh264enc", "bitrate", 1000, 1, 2048000, NULL, NULL, NULL},
};

/* libav encoders all take bit/s; "quant" ignores it */
static const RtpccEncoderInfo avenc = { "avenc_*", "bitrate", 1, 1, G_MAXINT,
  "pass", "cbr,pass1,pass2", "pass=cbr"
};

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

  if (info->step > 1)
    v = (v + info->step / 2) / info->step * info->step;
  return CLAMP (v, info->min_value, info->max_value);
}

gboolean
rtpcc_encoder_mode_follows_bitrate (const RtpccEncoderInfo * info,
    const gchar * mode_nick)
{
  gchar **modes;
  gboolean ok;

  if (!info->mode_property || !info->rate_modes || !mode_nick)
    return TRUE;
  modes = g_strsplit (info->rate_modes, ",", -1);
  ok = g_strv_contains ((const gchar * const *) modes, mode_nick);
  g_strfreev (modes);
  return ok;
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

RtpccTime
rtpcc_encoder_hysteresis_retry_at (const RtpccEncoderHysteresis * h,
    RtpccTime now, guint64 bps)
{
  RtpccTime due;

  if (h->applied_bps == 0 || bps <= h->applied_bps
      || h->applied_at == RTPCC_TIME_NONE)
    return RTPCC_TIME_NONE;
  if (((gdouble) bps - (gdouble) h->applied_bps) / (gdouble) h->applied_bps <
      h->min_change)
    return RTPCC_TIME_NONE;
  due = h->applied_at + h->min_interval;
  return due > now ? due : RTPCC_TIME_NONE;
}

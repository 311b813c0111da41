/* RtpccEncoderLoop: what the encoder produces against what it was asked
 * for, and the correction that closes the loop.
 *
 * An encoder's bitrate property is a request, not a promise: in a
 * quality-driven mode (openh264enc's default), on content harder than the
 * rate allows, or while its rate control lags a change, it produces more
 * than it was given, and the excess waits in the sender's pacing queue or
 * the bottleneck's. The loop measures the produced rate over windows of
 * media time and scales the value given to the encoder by a factor: when
 * over the last two windows the produced rate was r times the target (the
 * controller's rate, before the factor) and r is outside a dead band,
 * factor ← factor · r^−gain, kept within [min, max]. Two windows, so that
 * a key frame or the encoder's own rate-control swing in one window does
 * not move the factor; after a step the two windows start afresh (the
 * encoder's output before the change says nothing of it after). An encoder
 * that undershoots gets the factor relaxed back towards max (1 by default:
 * the target is never raised above what the controller allows). The dead
 * band keeps a key frame's share of one window and an encoder that keeps
 * to its rate within a few per cent from moving the factor at all.
 *
 * Media time is the buffers' running time, so the loop is deterministic
 * and works for live and non-live pipelines alike.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_ENCODER_LOOP_H__
#define __RTPCC_ENCODER_LOOP_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  RtpccTime window;             /* media time per measurement, 2 s */
  gdouble gain;                 /* share of the (log) error corrected, 0.5 */
  gdouble dead_band;            /* |r − 1| below this: no change, 0.05 */
  gdouble min_factor;           /* 0.5 */
  gdouble max_factor;           /* 1.0 */
} RtpccEncoderLoopConfig;

void rtpcc_encoder_loop_config_init (RtpccEncoderLoopConfig * config);

typedef struct
{
  RtpccEncoderLoopConfig config;
  gdouble factor;
  guint64 target_bps;           /* the controller's target, 0 = unknown */
  gboolean started;
  RtpccTime window_start, last_t;
  guint64 bytes;                /* produced in the window */
  gboolean have_prev;           /* the previous window, for the ratio */
  gdouble prev_bits, prev_target_bits;
  gdouble target_bits;          /* ∫ target dt over the window, bits */
  gboolean target_unknown;      /* part of the window had no target */
  /* the last complete window */
  guint64 produced_bps;
  gdouble last_ratio;
  guint64 windows, corrections, ignored;
} RtpccEncoderLoop;

/* FALSE (and a default config) if @config is invalid: window ≤ 0, gain
 * outside (0, 1], dead band < 0, 0 < min ≤ max. */
gboolean rtpcc_encoder_loop_init (RtpccEncoderLoop * loop,
    const RtpccEncoderLoopConfig * config);
/* A new stream: measurements restart, the factor is kept. */
void rtpcc_encoder_loop_restart (RtpccEncoderLoop * loop);

/* The controller's target for the encoder, in bit/s (before the factor),
 * from the current media time on. */
void rtpcc_encoder_loop_target (RtpccEncoderLoop * loop, guint64 bps);

/* @bytes of encoded media with media time @t. TRUE when a window closed
 * and the factor changed (the caller gives the encoder the corrected
 * target again). Media time going backwards restarts the window; a time
 * of RTPCC_TIME_NONE is ignored (counted). */
gboolean rtpcc_encoder_loop_produced (RtpccEncoderLoop * loop, RtpccTime t,
    gsize bytes);

/* @bps scaled by the current factor (at least 1 when @bps is). */
guint64 rtpcc_encoder_loop_correct (const RtpccEncoderLoop * loop,
    guint64 bps);

G_END_DECLS

#endif

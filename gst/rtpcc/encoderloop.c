/* RtpccEncoderLoop (encoderloop.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "encoderloop.h"

#include <math.h>
#include <string.h>

void
rtpcc_encoder_loop_config_init (RtpccEncoderLoopConfig * c)
{
  c->window = RTPCC_SEC (2);
  c->gain = 0.5;
  c->dead_band = 0.05;
  c->min_factor = 0.5;
  c->max_factor = 1.0;
}

gboolean
rtpcc_encoder_loop_init (RtpccEncoderLoop * loop,
    const RtpccEncoderLoopConfig * config)
{
  gboolean ok = config != NULL && config->window > 0 && config->gain > 0.0
      && config->gain <= 1.0 && config->dead_band >= 0.0
      && config->min_factor > 0.0 && config->min_factor <= config->max_factor;

  memset (loop, 0, sizeof (*loop));
  if (ok)
    loop->config = *config;
  else
    rtpcc_encoder_loop_config_init (&loop->config);
  loop->factor = loop->config.max_factor;
  return ok;
}

void
rtpcc_encoder_loop_restart (RtpccEncoderLoop * loop)
{
  loop->started = FALSE;
  loop->have_prev = FALSE;
  loop->bytes = 0;
  loop->target_bits = 0.0;
  loop->target_unknown = FALSE;
}

void
rtpcc_encoder_loop_target (RtpccEncoderLoop * loop, guint64 bps)
{
  loop->target_bps = bps;
}

static void
open_window (RtpccEncoderLoop * loop, RtpccTime t)
{
  loop->started = TRUE;
  loop->window_start = loop->last_t = t;
  loop->bytes = 0;
  loop->target_bits = 0.0;
  loop->target_unknown = loop->target_bps == 0;
}

/* The window [window_start, t) is complete: compare the last two windows
 * with the target and correct. */
static gboolean
close_window (RtpccEncoderLoop * loop, RtpccTime t)
{
  const RtpccEncoderLoopConfig *c = &loop->config;
  gdouble span = (gdouble) (t - loop->window_start) / RTPCC_NSEC_PER_SEC;
  gdouble bits = (gdouble) loop->bytes * 8.0, target = loop->target_bits;
  gdouble r, f;

  loop->windows++;
  loop->produced_bps = (guint64) llround (bits / span);
  if (loop->target_unknown || target <= 0.0) {
    loop->ignored++;
    loop->have_prev = FALSE;
    return FALSE;
  }
  if (!loop->have_prev) {
    loop->have_prev = TRUE;
    loop->prev_bits = bits;
    loop->prev_target_bits = target;
    return FALSE;
  }
  r = (bits + loop->prev_bits) / (target + loop->prev_target_bits);
  loop->prev_bits = bits;
  loop->prev_target_bits = target;
  loop->last_ratio = r;
  if (fabs (r - 1.0) < c->dead_band)
    return FALSE;
  /* undershooting while uncorrected: nothing to give back */
  if (r < 1.0 && loop->factor >= c->max_factor)
    return FALSE;
  f = CLAMP (loop->factor * pow (MAX (r, 1e-3), -c->gain), c->min_factor,
      c->max_factor);
  if (f == loop->factor)
    return FALSE;
  loop->factor = f;
  loop->corrections++;
  /* what the encoder did before the change says nothing of what it does
   * after: two fresh windows before the next step */
  loop->have_prev = FALSE;
  return TRUE;
}

gboolean
rtpcc_encoder_loop_produced (RtpccEncoderLoop * loop, RtpccTime t,
    gsize bytes)
{
  gboolean changed = FALSE;

  if (t == RTPCC_TIME_NONE) {
    loop->ignored++;
    return FALSE;
  }
  if (!loop->started || t < loop->last_t) {
    open_window (loop, t);
  } else {
    loop->target_bits += (gdouble) loop->target_bps *
        (gdouble) (t - loop->last_t) / RTPCC_NSEC_PER_SEC;
    if (loop->target_bps == 0 && t > loop->last_t)
      loop->target_unknown = TRUE;
    loop->last_t = t;
    if (t - loop->window_start >= loop->config.window) {
      changed = close_window (loop, t);
      open_window (loop, t);
    }
  }
  loop->bytes += bytes;
  return changed;
}

guint64
rtpcc_encoder_loop_correct (const RtpccEncoderLoop * loop, guint64 bps)
{
  guint64 v;

  if (bps == 0)
    return 0;
  v = (guint64) llround ((gdouble) bps * loop->factor);
  return MAX (v, 1);
}

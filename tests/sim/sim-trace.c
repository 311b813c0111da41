/* Seeded cellular-like mahimahi traces (see sim-trace.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sim-trace.h"

#include <math.h>
#include <rtpcc/rng.h>

/* the RtpccRng stream of the generator (independent of the simulator's) */
#define TRACE_STREAM 0x7ace

void
sim_trace_config_init (SimTraceConfig * config)
{
  config->seed = 1;
  config->duration_s = 120.0;
  config->step_ms = 100;
  config->min_kbps = 300.0;
  config->max_kbps = 6000.0;
  config->theta = 0.1;
  config->sigma = 0.3;
  config->fade_gap_s = 25.0;
  config->fade_min_s = 0.3;
  config->fade_max_s = 2.0;
  config->outage_prob = 0.3;
  config->fade_lo_kbps = 30.0;
  config->fade_hi_kbps = 150.0;
}

static gboolean
config_valid (const SimTraceConfig * c)
{
  return c->duration_s > 0 && c->duration_s < 1e6 && c->step_ms > 0 &&
      c->min_kbps > 0 && c->max_kbps >= c->min_kbps && c->theta >= 0 &&
      c->sigma >= 0 && c->fade_gap_s >= 0 && c->fade_min_s >= 0 &&
      c->fade_max_s >= c->fade_min_s && c->outage_prob >= 0 &&
      c->outage_prob <= 1 && c->fade_lo_kbps >= 0 &&
      c->fade_hi_kbps >= c->fade_lo_kbps;
}

SimTrace *
sim_trace_generate (const SimTraceConfig * c)
{
  SimTrace *tr;
  RtpccRng rng;
  gdouble lo, hi, mu, x, dt, next_fade, fade_end = -1.0, fade_kbps = 0.0;
  guint n_steps;
  guint64 credit = 0;           /* bit·ms/s: 1 ms at R bit/s adds R */
  const guint64 opp = (guint64) 1500 * 8 * 1000;
  guint64 end_ms;

  if (!config_valid (c))
    return NULL;
  tr = g_new0 (SimTrace, 1);
  tr->step_ms = c->step_ms;
  tr->kbps = g_array_new (FALSE, FALSE, sizeof (gdouble));
  tr->fade = g_array_new (FALSE, FALSE, sizeof (gboolean));
  tr->text = g_string_new (NULL);
  rtpcc_rng_init_stream (&rng, c->seed, TRACE_STREAM);

  lo = log (c->min_kbps);
  hi = log (c->max_kbps);
  mu = 0.5 * (lo + hi);
  x = mu;
  dt = c->step_ms / 1000.0;
  n_steps = (guint) ceil (c->duration_s * 1000.0 / c->step_ms - 1e-9);
  end_ms = (guint64) llround (c->duration_s * 1000.0);
  next_fade = c->fade_gap_s > 0 ? rtpcc_rng_exponential (&rng,
      c->fade_gap_s) : INFINITY;

  for (guint k = 0; k < n_steps; k++) {
    gdouble t = k * dt, kbps;
    gboolean fade;
    guint64 bps, ms0 = (guint64) k * c->step_ms;

    /* the walk: the same draws every step, fade or not */
    x += c->theta * (mu - x) * dt + c->sigma * sqrt (dt) *
        rtpcc_rng_normal (&rng);
    if (x > hi)
      x = 2 * hi - x;
    if (x < lo)
      x = 2 * lo - x;
    x = CLAMP (x, lo, hi);

    if (t >= next_fade && fade_end < t) {
      gdouble len = rtpcc_rng_uniform (&rng, c->fade_min_s, c->fade_max_s);
      gboolean outage = rtpcc_rng_bernoulli (&rng, c->outage_prob);
      gdouble depth = rtpcc_rng_uniform (&rng, c->fade_lo_kbps,
          c->fade_hi_kbps);
      fade_end = t + len;
      fade_kbps = outage ? 0.0 : depth;
      next_fade = fade_end + rtpcc_rng_exponential (&rng, c->fade_gap_s);
    }
    fade = t < fade_end;
    kbps = fade ? fade_kbps : exp (x);
    /* whole bit/s: the lines below are integer arithmetic */
    bps = (guint64) llround (kbps * 1000.0);
    kbps = bps / 1000.0;
    g_array_append_val (tr->kbps, kbps);
    g_array_append_val (tr->fade, fade);

    for (guint64 ms = ms0; ms < ms0 + c->step_ms && ms < end_ms; ms++) {
      credit += bps;
      while (credit >= opp) {
        credit -= opp;
        g_string_append_printf (tr->text, "%" G_GUINT64_FORMAT "\n", ms);
        tr->opportunities++;
      }
    }
  }
  g_string_append_printf (tr->text, "%" G_GUINT64_FORMAT "\n", end_ms);
  tr->opportunities++;
  return tr;
}

void
sim_trace_free (SimTrace * trace)
{
  if (!trace)
    return;
  g_array_free (trace->kbps, TRUE);
  g_array_free (trace->fade, TRUE);
  g_string_free (trace->text, TRUE);
  g_free (trace);
}

gdouble
sim_trace_mean_kbps (const SimTrace * trace)
{
  gdouble s = 0.0;

  for (guint k = 0; k < trace->kbps->len; k++)
    s += g_array_index (trace->kbps, gdouble, k);
  return trace->kbps->len ? s / trace->kbps->len : 0.0;
}

/* Cellular-like capacity traces in mahimahi format, generated from a seed.
 *
 * The process (all draws from one RtpccRng stream of @seed, so a seed
 * gives the same trace byte for byte):
 *
 *  - the log of the rate follows a mean-reverting random walk (a discretised
 *    Ornstein–Uhlenbeck process) in steps of step_ms:
 *      x ← x + θ (μ − x) Δ + σ √Δ N(0, 1),  Δ = step_ms / 1000 s,
 *    μ the log of the geometric middle of [min, max], reflected at
 *    ln(min_kbps) and ln(max_kbps) so the rate stays inside the band; the
 *    walk starts at μ;
 *  - fades arrive as a Poisson process (mean gap fade_gap_s); each lasts a
 *    uniform fade_min_s..fade_max_s and is, with probability outage_prob,
 *    an outage (rate 0), else a deep fade at a uniform fade_lo_kbps ..
 *    fade_hi_kbps; the walk keeps running underneath and resumes where it
 *    is when the fade ends;
 *  - the rate series becomes mahimahi lines (one 1500-byte delivery
 *    opportunity per line, its millisecond): every millisecond adds the
 *    rate's bits to a credit (exact integer arithmetic) and each full
 *    1500 bytes of credit is one line at that millisecond. A last line at
 *    duration_s × 1000 ms makes the trace's loop period exactly the
 *    duration (one extra opportunity).
 *
 * The defaults describe a cellular downlink in the range the matrix asks
 * for (0.3–6 Mbit/s with occasional deep fades and outages); they are the
 * scenario matrix's "cellular" generator, documented in docs/matrix.md.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SIM_TRACE_H__
#define __RTPCC_SIM_TRACE_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 seed;
  gdouble duration_s;           /* 120 */
  guint step_ms;                /* 100 */
  gdouble min_kbps, max_kbps;   /* 300, 6000: the walk's band */
  gdouble theta;                /* mean reversion, 1/s: 0.1 */
  gdouble sigma;                /* log-rate volatility, 1/√s: 0.3 */
  gdouble fade_gap_s;           /* mean time between fades: 25 (0: none) */
  gdouble fade_min_s, fade_max_s;       /* 0.3, 2.0 */
  gdouble outage_prob;          /* share of fades that are outages: 0.3 */
  gdouble fade_lo_kbps, fade_hi_kbps;   /* 30, 150 */
} SimTraceConfig;

void sim_trace_config_init (SimTraceConfig * config);

typedef struct
{
  guint step_ms;
  GArray *kbps;                 /* gdouble per step: the rate in force */
  GArray *fade;                 /* gboolean per step: inside a fade */
  GString *text;                /* the mahimahi trace */
  guint64 opportunities;        /* lines in text */
} SimTrace;

/* NULL if the config is invalid (duration <= 0, step 0, 0 < min <= max
 * violated, negative parameters, fade bounds reversed). */
SimTrace *sim_trace_generate (const SimTraceConfig * config);
void sim_trace_free (SimTrace * trace);

/* Mean rate in kbit/s of the steps (what the trace delivers, up to the
 * last opportunity's rounding). */
gdouble sim_trace_mean_kbps (const SimTrace * trace);

G_END_DECLS

#endif

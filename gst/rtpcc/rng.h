/* Seeded pseudo-random source (xoshiro256**, seeded through splitmix64).
 *
 * Our own generator rather than GRand so that sequences are identical across
 * GLib versions and platforms: a seed in a test or a results table must replay
 * the same run forever.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_RNG_H__
#define __RTPCC_RNG_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 s[4];
} RtpccRng;

void     rtpcc_rng_init      (RtpccRng * rng, guint64 seed);
/* Independent stream derived from @seed and a @stream label, so that e.g. the
 * loss and jitter draws of one link do not perturb each other. */
void     rtpcc_rng_init_stream (RtpccRng * rng, guint64 seed, guint64 stream);
guint64  rtpcc_rng_next_u64  (RtpccRng * rng);
/* Uniform in [0, 1). */
gdouble  rtpcc_rng_double    (RtpccRng * rng);
/* Uniform in [lo, hi). */
gdouble  rtpcc_rng_uniform   (RtpccRng * rng, gdouble lo, gdouble hi);
/* Uniform integer in [0, n); n > 0. Unbiased. */
guint64  rtpcc_rng_below     (RtpccRng * rng, guint64 n);
/* TRUE with probability p (p outside [0,1] is clamped). */
gboolean rtpcc_rng_bernoulli (RtpccRng * rng, gdouble p);
/* Standard normal N(0,1) (Box–Muller, no cached second value so the number of
 * draws per call is fixed). */
gdouble  rtpcc_rng_normal    (RtpccRng * rng);
/* Exponential with the given mean. */
gdouble  rtpcc_rng_exponential (RtpccRng * rng, gdouble mean);
/* Laplace(0, b): syncodecs-style frame-size noise. */
gdouble  rtpcc_rng_laplace   (RtpccRng * rng, gdouble b);

G_END_DECLS

#endif

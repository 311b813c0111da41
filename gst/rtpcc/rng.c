/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/rng.h>
#include <math.h>

static inline guint64
rotl (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static guint64
splitmix64 (guint64 * x)
{
  guint64 z = (*x += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

void
rtpcc_rng_init (RtpccRng * rng, guint64 seed)
{
  guint64 x = seed;
  for (int i = 0; i < 4; i++)
    rng->s[i] = splitmix64 (&x);
}

void
rtpcc_rng_init_stream (RtpccRng * rng, guint64 seed, guint64 stream)
{
  guint64 x = stream;
  rtpcc_rng_init (rng, seed ^ splitmix64 (&x));
}

guint64
rtpcc_rng_next_u64 (RtpccRng * rng)
{
  guint64 *s = rng->s;
  const guint64 result = rotl (s[1] * 5, 7) * 9;
  const guint64 t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

gdouble
rtpcc_rng_double (RtpccRng * rng)
{
  /* 53 random mantissa bits. */
  return (rtpcc_rng_next_u64 (rng) >> 11) * 0x1.0p-53;
}

gdouble
rtpcc_rng_uniform (RtpccRng * rng, gdouble lo, gdouble hi)
{
  return lo + (hi - lo) * rtpcc_rng_double (rng);
}

guint64
rtpcc_rng_below (RtpccRng * rng, guint64 n)
{
  g_return_val_if_fail (n > 0, 0);
  /* Rejection sampling removes the modulo bias. */
  guint64 limit = G_MAXUINT64 - (G_MAXUINT64 % n);
  guint64 v;
  do
    v = rtpcc_rng_next_u64 (rng);
  while (v >= limit);
  return v % n;
}

gboolean
rtpcc_rng_bernoulli (RtpccRng * rng, gdouble p)
{
  /* Always draw, so that the stream position does not depend on p. */
  gdouble u = rtpcc_rng_double (rng);
  return u < p;
}

gdouble
rtpcc_rng_normal (RtpccRng * rng)
{
  gdouble u1 = 1.0 - rtpcc_rng_double (rng);   /* (0, 1] */
  gdouble u2 = rtpcc_rng_double (rng);
  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

gdouble
rtpcc_rng_exponential (RtpccRng * rng, gdouble mean)
{
  return -mean * log (1.0 - rtpcc_rng_double (rng));
}

gdouble
rtpcc_rng_laplace (RtpccRng * rng, gdouble b)
{
  gdouble u = rtpcc_rng_double (rng) - 0.5;
  gdouble a = 1.0 - 2.0 * fabs (u);
  if (a <= 0.0)
    a = G_MINDOUBLE;
  return (u < 0 ? b : -b) * log (a);
}

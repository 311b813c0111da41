/* FEC strength from the channel (strength.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/fec/strength.h>

#include <math.h>
#include <string.h>

#define MAX_K RTPCC_FEC_MAX_SPAN
#define MAX_M RTPCC_FEC_MAX_PARITY

/* the Gilbert chain: state 0 good, 1 bad (lost) */
typedef struct
{
  gdouble q;                    /* good → bad */
  gdouble r;                    /* bad → good */
  gdouble pi_bad;               /* stationary share of the bad state */
} Chain;

static void
chain_fit (Chain * c, gdouble loss, gdouble burst)
{
  loss = CLAMP (loss, 0.0, 0.999);
  /* unknown (no loss seen yet, or nonsense): independent loss */
  if (!(burst >= 1.0))
    burst = 1.0 / (1.0 - (loss >= 0 ? loss : 0));
  c->r = 1.0 / burst;
  /* (a loss rate the burst cannot reach, over 1/2 at b = 1, saturates) */
  c->q = loss > 0 ? MIN (1.0, loss * c->r / (1.0 - loss)) : 0.0;
  c->pi_bad = c->q + c->r > 0 ? c->q / (c->q + c->r) : 0.0;
}

static gdouble
trans (const Chain * c, guint from, guint to)
{
  if (from == 0)
    return to ? c->q : 1.0 - c->q;
  return to ? 1.0 - c->r : c->r;
}

/* tail[s][m][x]: P(at least x of m parity packets lost | the last media
 * packet's state s), for m <= @max_m, x <= m + 1 */
typedef gdouble Tails[2][MAX_M + 1][MAX_M + 2];

static void
parity_tails (const Chain * c, guint max_m, Tails tail)
{
  for (guint s = 0; s < 2; s++) {
    /* d[t][l]: state t after the parities so far, l of them lost */
    gdouble d[2][MAX_M + 1], nd[2][MAX_M + 1];

    memset (d, 0, sizeof d);
    d[s][0] = 1.0;
    for (guint m = 0; m <= max_m; m++) {
      /* tails of the distribution after m parities */
      gdouble acc = 0;
      tail[s][m][m + 1] = 0;
      for (gint x = (gint) m; x >= 0; x--) {
        acc += d[0][x] + d[1][x];
        tail[s][m][x] = acc;
      }
      if (m == max_m)
        break;
      memset (nd, 0, sizeof nd);
      for (guint t = 0; t < 2; t++)
        for (guint l = 0; l <= m; l++) {
          if (d[t][l] == 0)
            continue;
          for (guint u = 0; u < 2; u++)
            nd[u][l + u] += d[t][l] * trans (c, t, u);
        }
      memcpy (d, nd, sizeof d);
    }
  }
}

/* f[s][j]: the state of the k-th media packet and j of the k lost; one
 * more media packet */
static void
media_step (const Chain * c, gdouble f[2][MAX_K + 1], guint k)
{
  gdouble nf[2][MAX_K + 1];

  memset (nf, 0, sizeof nf);
  if (k == 0) {
    nf[0][0] = 1.0 - c->pi_bad;
    nf[1][1] = c->pi_bad;
  } else {
    for (guint t = 0; t < 2; t++)
      for (guint j = 0; j <= k; j++) {
        if (f[t][j] == 0)
          continue;
        for (guint u = 0; u < 2; u++)
          nf[u][j + u] += f[t][j] * trans (c, t, u);
      }
  }
  memcpy (f, nf, sizeof nf);
}

/* E[media lost · 1(losses > m)] / k, from the media distribution f after
 * k packets */
static gdouble
residual_of (gdouble f[2][MAX_K + 1], guint k, guint m, Tails tail)
{
  gdouble sum = 0;

  for (guint s = 0; s < 2; s++)
    for (guint j = 1; j <= k; j++) {
      /* more than m losses in all: the parities must lose more than m − j */
      gdouble p_fail = j > m ? 1.0 : tail[s][m][m - j + 1];
      sum += f[s][j] * j * p_fail;
    }
  return sum / k;
}

gdouble
rtpcc_fec_residual_mds (guint k, guint m, gdouble loss, gdouble burst)
{
  Chain c;
  gdouble f[2][MAX_K + 1];
  Tails tail;

  g_return_val_if_fail (k >= 1 && k <= MAX_K && m <= MAX_M, loss);
  chain_fit (&c, loss, burst);
  if (m == 0 || c.pi_bad == 0)
    return c.pi_bad;
  parity_tails (&c, m, tail);
  for (guint i = 0; i < k; i++)
    media_step (&c, f, i);
  return residual_of (f, k, m, tail);
}

gboolean
rtpcc_fec_choose (const RtpccFecChannel * channel, RtpccFecChoice * out)
{
  Chain c;
  gdouble f[2][MAX_K + 1];
  Tails tail;
  RtpccFecChoice best = { RTPCC_FEC_SCHEME_XOR, 0, 0, 0 };
  gdouble best_bytes = 0;       /* best's parity bytes per media byte */
  gdouble after, none = 0;
  guint max_k = MAX_K, max_m;
  gdouble share;

  g_return_val_if_fail (channel != NULL && out != NULL, FALSE);
  /* (numbers from an application's event: NaN and infinities included) */
  share = channel->max_overhead;
  if (!(share > 0))
    return FALSE;
  share = MIN (share, (gdouble) MAX_M);
  if (channel->packet_rate > 0 && isfinite (channel->packet_rate)
      && channel->budget != RTPCC_TIME_NONE) {
    gdouble fill = RTPCC_TIME_AS_SEC (channel->budget) * channel->packet_rate;
    max_k = fill >= MAX_K ? MAX_K : fill > 0 ? (guint) floor (fill + 1e-9) : 0;
  }
  max_m = (guint) MIN ((gdouble) MAX_M, floor (share * max_k + 1e-9));
  if (max_k < 2 || max_m < 1)
    return FALSE;

  chain_fit (&c, channel->loss, channel->burst);
  parity_tails (&c, max_m, tail);
  /* what NACK leaves of a loss: each retransmission lost as any packet
   * (a round trip later, past the burst); with NACK, sending no FEC is a
   * candidate too, and a code must leave clearly less than it */
  after = channel->retransmissions > 0 ?
      pow (c.pi_bad, MIN (channel->retransmissions, 16)) : 1.0;
  if (channel->retransmissions > 0)
    none = MAX (c.pi_bad * after, RTPCC_FEC_NEGLIGIBLE);
  for (guint k = 0; k < max_k; k++) {
    guint kk = k + 1;

    media_step (&c, f, k);
    if (kk < 2)
      continue;
    /* parity bytes: m parity packets as long as the block's longest */
    gdouble r = channel->parity_ratios && channel->parity_ratios[kk] > 1.0 ?
        channel->parity_ratios[kk] : 1.0;

    for (guint m = 1; m <= max_m && m * r <= share * kk + 1e-9; m++) {
      gdouble res = c.pi_bad > 0 ? residual_of (f, kk, m, tail) : 0.0;
      gdouble bytes = m * r / kk;
      gdouble a = MAX (res * after, RTPCC_FEC_NEGLIGIBLE);
      gdouble b = MAX (best.residual * after, RTPCC_FEC_NEGLIGIBLE);
      gboolean take;

      if (none > 0 && a >= none * (1.0 - 1e-9))
        take = FALSE;           /* no better than NACK alone */
      else if (best.k == 0)
        take = TRUE;
      else if (a < b * (1.0 - 1e-9))
        take = TRUE;
      else if (a > b * (1.0 + 1e-9))
        take = FALSE;
      else                      /* a tie: fewer parity bytes, then a
                                 * shorter block */
        take = bytes < best_bytes - 1e-12
            || (fabs (bytes - best_bytes) <= 1e-12 && kk < best.k);
      if (take) {
        best.k = kk;
        best.m = m;
        best.residual = res;
        best_bytes = bytes;
      }
    }
  }
  if (best.k == 0)
    return FALSE;
  best.scheme = best.m == 1 && best.k <= RTPCC_FEC_MAX_N ?
      RTPCC_FEC_SCHEME_XOR : RTPCC_FEC_SCHEME_RS;
  *out = best;
  return TRUE;
}

gboolean
rtpcc_fec_choose_named (const RtpccFecChannel * channel,
    const gchar * scheme, guint k, guint m, RtpccFecChoice * out)
{
  RtpccFecChoice c;

  g_return_val_if_fail (channel != NULL && out != NULL, FALSE);
  if (!scheme || k < 2 || m < 1)
    return rtpcc_fec_choose (channel, out);
  if (m == 1 && strcmp (scheme,
          rtpcc_fec_scheme_name (RTPCC_FEC_SCHEME_XOR)) == 0)
    c.scheme = RTPCC_FEC_SCHEME_XOR;
  else if (strcmp (scheme, rtpcc_fec_scheme_name (RTPCC_FEC_SCHEME_RS)) == 0)
    c.scheme = RTPCC_FEC_SCHEME_RS;
  else
    return rtpcc_fec_choose (channel, out);
  c.k = MIN (k, c.scheme == RTPCC_FEC_SCHEME_XOR ? RTPCC_FEC_MAX_N : MAX_K);
  c.m = MIN (m, MAX_M);
  c.residual = rtpcc_fec_residual_mds (c.k, c.m, channel->loss,
      channel->burst);
  *out = c;
  return TRUE;
}

/* Coupled rates for a multipath call; see couple.h for the rule.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "couple.h"

#include <math.h>
#include <string.h>

#define MAX_WINDOW 1024

typedef struct
{
  gdouble sum;                  /* the open bin */
  guint count;
  gdouble *mean;                /* ring of closed bins, by bin index */
  gboolean *valid;
} PathBins;

struct _RtpccMprtpCouple
{
  RtpccMprtpCoupleConfig config;
  guint n;
  PathBins bins[RTPCC_MPRTP_MAX_PATHS];
  gint64 cur;                   /* index of the open bin; -1 before any */
  gboolean shared[RTPCC_MPRTP_MAX_PATHS][RTPCC_MPRTP_MAX_PATHS];
  guint group[RTPCC_MPRTP_MAX_PATHS];   /* group id: its leader */
};

void
rtpcc_mprtp_couple_config_init (RtpccMprtpCoupleConfig * config)
{
  config->bin = RTPCC_MSEC (250);
  config->window = 40;
  config->min_bins = 16;
  config->group_above = 0.8;
  config->split_below = 0.5;
  config->min_spread = RTPCC_MSEC (2);
  config->trickle = 0.05;
  config->leader_margin = 1.2;
}

RtpccMprtpCouple *
rtpcc_mprtp_couple_new (const RtpccMprtpCoupleConfig * config, guint n_paths)
{
  RtpccMprtpCouple *c;

  if (config == NULL || n_paths == 0 || n_paths > RTPCC_MPRTP_MAX_PATHS
      || config->bin <= 0 || config->window < 2
      || config->window > MAX_WINDOW || config->min_bins < 2
      || config->min_bins > config->window
      || !(config->split_below <= config->group_above)
      || config->min_spread < 0 || !(config->trickle >= 0.0)
      || config->trickle > 0.5 || !(config->leader_margin >= 1.0))
    return NULL;
  c = g_new0 (RtpccMprtpCouple, 1);
  c->config = *config;
  c->n = n_paths;
  c->cur = -1;
  for (guint i = 0; i < n_paths; i++) {
    c->bins[i].mean = g_new0 (gdouble, config->window);
    c->bins[i].valid = g_new0 (gboolean, config->window);
    c->group[i] = i;
  }
  return c;
}

void
rtpcc_mprtp_couple_free (RtpccMprtpCouple * c)
{
  if (c == NULL)
    return;
  for (guint i = 0; i < c->n; i++) {
    g_free (c->bins[i].mean);
    g_free (c->bins[i].valid);
  }
  g_free (c);
}

/* Close every bin before the one holding @now. */
static void
advance (RtpccMprtpCouple * c, RtpccTime now)
{
  gint64 idx = now / c->config.bin;
  guint w = c->config.window;

  if (c->cur < 0) {
    c->cur = idx;
    return;
  }
  if (idx - c->cur > (gint64) w) {
    for (guint i = 0; i < c->n; i++) {
      memset (c->bins[i].valid, 0, w * sizeof (gboolean));
      c->bins[i].sum = 0.0;
      c->bins[i].count = 0;
    }
    c->cur = idx;
    return;
  }
  while (c->cur < idx) {
    guint slot = (guint) (c->cur % w);

    for (guint i = 0; i < c->n; i++) {
      PathBins *b = &c->bins[i];

      b->valid[slot] = b->count > 0;
      b->mean[slot] = b->count > 0 ? b->sum / b->count : 0.0;
      b->sum = 0.0;
      b->count = 0;
    }
    c->cur++;
  }
}

void
rtpcc_mprtp_couple_add_delay (RtpccMprtpCouple * c, guint path, RtpccTime now,
    RtpccTime queue_delay)
{
  if (path >= c->n || queue_delay == RTPCC_TIME_NONE)
    return;
  advance (c, now);
  c->bins[path].sum += (gdouble) queue_delay;
  c->bins[path].count++;
}

gdouble
rtpcc_mprtp_couple_correlation (RtpccMprtpCouple * c, guint a, guint b)
{
  const PathBins *x = &c->bins[a], *y = &c->bins[b];
  gdouble sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, vx, vy, spread2;
  guint n = 0, w = c->config.window;

  if (a >= c->n || b >= c->n || a == b || c->cur < 0)
    return NAN;
  for (guint k = 1; k <= w && (gint64) k <= c->cur; k++) {
    guint slot = (guint) ((c->cur - k) % w);

    if (!x->valid[slot] || !y->valid[slot])
      continue;
    sx += x->mean[slot];
    sy += y->mean[slot];
    sxx += x->mean[slot] * x->mean[slot];
    syy += y->mean[slot] * y->mean[slot];
    sxy += x->mean[slot] * y->mean[slot];
    n++;
  }
  if (n < c->config.min_bins)
    return NAN;
  vx = MAX (sxx / n - (sx / n) * (sx / n), 0.0);
  vy = MAX (syy / n - (sy / n) * (sy / n), 0.0);
  spread2 = (gdouble) c->config.min_spread * (gdouble) c->config.min_spread;
  if (vx < spread2 && vy < spread2)
    return NAN;                 /* two flat queues: nothing to tell */
  if (vx < spread2 || vy < spread2)
    return 0.0;                 /* one queue moves, the other does not */
  return (sxy / n - (sx / n) * (sy / n)) / sqrt (vx * vy);
}

static guint
find (guint * parent, guint i)
{
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

guint64
rtpcc_mprtp_couple_compute (RtpccMprtpCouple * c, RtpccTime now,
    const guint64 * rates, guint64 * allowed)
{
  guint parent[RTPCC_MPRTP_MAX_PATHS];
  guint64 total = 0;

  if (c->n == 1) {
    allowed[0] = rates[0];
    return rates[0];
  }
  advance (c, now);
  for (guint a = 0; a < c->n; a++)
    parent[a] = a;
  for (guint a = 0; a < c->n; a++) {
    for (guint b = a + 1; b < c->n; b++) {
      gdouble r;

      if (rates[a] == 0 || rates[b] == 0)
        continue;
      r = rtpcc_mprtp_couple_correlation (c, a, b);
      if (!isnan (r)) {
        if (r >= c->config.group_above)
          c->shared[a][b] = c->shared[b][a] = TRUE;
        else if (r <= c->config.split_below)
          c->shared[a][b] = c->shared[b][a] = FALSE;
      }
      if (c->shared[a][b])
        parent[find (parent, b)] = find (parent, a);
    }
  }

  for (guint a = 0; a < c->n; a++) {
    guint root = find (parent, a), best = G_MAXUINT, prev = G_MAXUINT;
    guint64 lead_rate, given = 0;

    if (root != a)
      continue;                 /* each group once, from its root */
    /* the member with the highest rate; the previous leader stays unless
     * overtaken by the margin */
    for (guint i = 0; i < c->n; i++) {
      if (find (parent, i) != root)
        continue;
      if (best == G_MAXUINT || rates[i] > rates[best])
        best = i;
      if (c->group[i] == i && prev == G_MAXUINT)
        prev = i;
    }
    if (prev != G_MAXUINT && rates[prev] > 0 && (gdouble) rates[best] <=
        c->config.leader_margin * (gdouble) rates[prev])
      best = prev;
    lead_rate = rates[best];
    for (guint i = 0; i < c->n; i++) {
      if (find (parent, i) != root || i == best)
        continue;
      allowed[i] = MIN (rates[i], (guint64) (c->config.trickle *
              (gdouble) lead_rate));
      given += allowed[i];
    }
    allowed[best] = lead_rate > given ? lead_rate - given : 0;
    for (guint i = 0; i < c->n; i++) {
      if (find (parent, i) == root) {
        c->group[i] = best;
        total += allowed[i];
      }
    }
  }
  return total;
}

gboolean
rtpcc_mprtp_couple_shared (const RtpccMprtpCouple * c, guint a, guint b)
{
  if (a >= c->n || b >= c->n)
    return FALSE;
  return a == b || c->group[a] == c->group[b];
}

guint
rtpcc_mprtp_couple_leader (const RtpccMprtpCouple * c, guint path)
{
  return path < c->n ? c->group[path] : path;
}

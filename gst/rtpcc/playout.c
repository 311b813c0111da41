/* RtpccPlayout: adaptive playout delay and reorder buffer (see playout.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "playout.h"

#define BUCKET_LEN RTPCC_SEC (1)
#define MAX_BUCKETS 128
#define MAX_DRIFT 1e-3          /* ±1000 ppm: beyond any real crystal */
#define MIN_SAMPLES 10          /* fewer: use the maximum, not a percentile */
#define DW_PACKETS 100          /* singh: drift window, packets */
#define DW_SPAN RTPCC_SEC (2)
#define RELEASED_BITS 1024
#define CTRL_WARMUP 100         /* samples before the late-rate controller */
#define CTRL_STEP_MIN 50000.0   /* 50 µs: the controller's smallest step */
#define CTRL_STEP_FRAC (1.0 / 32.0)     /* step = this fraction of margin */

typedef struct
{
  RtpccTime t;                  /* arrival */
  RtpccTime d;                  /* relative delay */
  gdouble r;                    /* detrended: d − slope·t */
  gdouble dev;                  /* r over the path's level when it came */
} Sample;

typedef struct
{
  gboolean active;
  Sample *ring;                 /* window_packets entries */
  guint head, len;              /* oldest at head */
  gdouble *sorted;              /* the r of the ring, ascending */
  /* singh mode (Singh's thesis, MPRTP skew compensation) */
  gdouble dw[DW_PACKETS];
  RtpccTime dw_t[DW_PACKETS];
  guint dw_head, dw_len;
  gdouble path_skew;
  gboolean have_skew;
  RtpccTime last_arrival;
  /* late-rate controller (late_target > 0) */
  guint64 n;                    /* samples seen */
  gdouble level;                /* the path's floor (detrended ns) */
  gdouble level_pre;            /* the floor before the current episode */
  gdouble level_cap;            /* the floor's bound after an episode */
  gdouble jump_r;               /* the delay of the last jump */
  gdouble margin;               /* playout point over the floor (ns) */
  guint64 since_late;           /* packets on time since the last late */
  gboolean episode;             /* a delay episode: the floor was jumped */
  RtpccTime level_since;        /* the floor only looks at samples after */
  RtpccTime last_jump, last_late;
} Subflow;

typedef struct
{
  RtpccTime t;                  /* when the minimum was seen */
  RtpccTime min_d;
  gint64 slot;                  /* t / BUCKET_LEN at the first sample */
} Bucket;

typedef struct
{
  gint64 ext_seq;
  RtpccTime media;
  gpointer data;
} Item;

struct _RtpccPlayout
{
  RtpccPlayoutConfig config;
  guint cap;                    /* ring capacity per subflow */
  RtpccTime last_arrival;       /* for the mean interval (FEC_AUTO) */
  gdouble mean_gap;             /* EWMA 1/20 of arrival gaps, ns; 0: none */
  gboolean have_ssrc;
  guint32 ssrc;                 /* the stream being played */

  gboolean started;
  gint64 ext_ts, first_ts;      /* highest unwrapped RTP timestamp, first */
  gint64 ext_seq;               /* highest unwrapped sequence number seen */

  Subflow sub[RTPCC_PLAYOUT_MAX_SUBFLOWS];

  Bucket buckets[MAX_BUCKETS];
  guint b_head, b_len;
  Bucket cur_bucket;
  gboolean have_bucket;
  gdouble slope;

  gdouble target;               /* current extra delay (ns) before clamping */
  gdouble raw;                  /* rule input: percentile or singh */
  RtpccTime hold_until;         /* no fall before this (after a late bump) */
  RtpccTime last_update;

  /* singh mode */
  gdouble singh_delay, singh_dev;
  gboolean have_singh;

  GQueue queue;                 /* Item, ascending ext_seq */
  gboolean released_any;
  gint64 last_released;
  guint8 released[RELEASED_BITS / 8];

  RtpccPlayoutStats stats;
};

/* The FEC repair window in force (see RTPCC_PLAYOUT_FEC_AUTO). */
static RtpccTime
fec_window (const RtpccPlayout * p)
{
  if (p->config.fec_window != RTPCC_PLAYOUT_FEC_AUTO)
    return p->config.fec_window;
  return (RtpccTime) MIN (RTPCC_PLAYOUT_FEC_AUTO_PACKETS * p->mean_gap,
      (gdouble) RTPCC_PLAYOUT_FEC_AUTO_MAX);
}


const gchar *
rtpcc_playout_mode_name (RtpccPlayoutMode mode)
{
  switch (mode) {
    case RTPCC_PLAYOUT_MODE_ADAPTIVE:
      return "adaptive";
    case RTPCC_PLAYOUT_MODE_SINGH:
      return "singh";
    case RTPCC_PLAYOUT_MODE_FIXED:
      return "fixed";
  }
  return "unknown";
}

void
rtpcc_playout_config_init (RtpccPlayoutConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->mode = RTPCC_PLAYOUT_MODE_ADAPTIVE;
  config->clock_rate = 90000;
  config->percentile = 99.9;
  config->window = RTPCC_SEC (2);
  config->window_packets = 500;
  config->min_delay = 0;
  config->max_delay = RTPCC_MSEC (400);
  config->fec_window = 0;
  config->down_rate = 0.5;
  config->return_time = RTPCC_MSEC (100);
  config->late_bump = TRUE;
  config->hold = RTPCC_MSEC (500);
  config->bump_margin = 0;
  config->level_window = RTPCC_SEC (2);
  config->late_target = 0.5;
  config->drift_window = RTPCC_SEC (30);
  config->max_queue = 4096;
}

gboolean
rtpcc_playout_config_validate (const RtpccPlayoutConfig * c, GError ** error)
{
  const gchar *what = NULL;

  if (c->clock_rate == 0)
    what = "clock rate must be > 0";
  else if (!(c->percentile > 0.0 && c->percentile <= 100.0))
    what = "percentile must be in (0, 100]";
  else if (c->window <= 0 || c->window_packets < 1 ||
      c->window_packets > 100000)
    what = "window must be > 0 and window-packets in [1, 100000]";
  else if (c->min_delay < 0 || c->max_delay < c->min_delay)
    what = "need 0 <= min-delay <= max-delay";
  else if ((c->fec_window < 0 && c->fec_window != RTPCC_PLAYOUT_FEC_AUTO)
      || c->hold < 0 || c->bump_margin < 0 || c->return_time < 0)
    what = "fec-window, hold, bump-margin and return-time must be >= 0";
  else if (!(c->down_rate >= 0.0 && c->down_rate <= 1.0))
    what = "down-rate must be in [0, 1]";
  else if (c->level_window <= 0)
    what = "level-window must be > 0";
  else if (!(c->late_target >= 0.0 && c->late_target <= 20.0))
    what = "late-target must be in [0, 20] %";
  else if (c->drift_window < RTPCC_SEC (4))
    what = "drift-window must be >= 4 s";
  else if (c->max_queue < 1)
    what = "max-queue must be >= 1";
  else if ((guint) c->mode > RTPCC_PLAYOUT_MODE_FIXED)
    what = "unknown mode";

  if (what) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID, "playout: %s", what);
    return FALSE;
  }
  return TRUE;
}

static void
subflows_alloc (RtpccPlayout * p)
{
  guint i;

  p->cap = p->config.window_packets;
  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
    p->sub[i].ring = g_new0 (Sample, p->cap);
    p->sub[i].sorted = g_new0 (gdouble, p->cap);
  }
}

static void
subflows_free (RtpccPlayout * p)
{
  guint i;

  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
    g_free (p->sub[i].ring);
    g_free (p->sub[i].sorted);
    p->sub[i].ring = NULL;
    p->sub[i].sorted = NULL;
  }
}

RtpccPlayout *
rtpcc_playout_new (const RtpccPlayoutConfig * config)
{
  RtpccPlayout *p;

  if (!rtpcc_playout_config_validate (config, NULL))
    return NULL;
  p = g_new0 (RtpccPlayout, 1);
  p->config = *config;
  g_queue_init (&p->queue);
  subflows_alloc (p);
  rtpcc_playout_reset (p, NULL);
  return p;
}

static void
drop_queue (RtpccPlayout * p, GDestroyNotify destroy)
{
  Item *it;

  while ((it = g_queue_pop_head (&p->queue)) != NULL) {
    if (destroy && it->data)
      destroy (it->data);
    g_free (it);
  }
}

void
rtpcc_playout_free (RtpccPlayout * p, GDestroyNotify destroy)
{
  if (p == NULL)
    return;
  drop_queue (p, destroy);
  subflows_free (p);
  g_free (p);
}

RtpccPlayoutSsrc
rtpcc_playout_check_ssrc (RtpccPlayout * p, guint32 ssrc, gboolean filler,
    GDestroyNotify destroy)
{
  RtpccPlayoutSsrc r = RTPCC_PLAYOUT_SSRC_SAME;

  if (p->have_ssrc && ssrc != p->ssrc) {
    if (filler)
      return RTPCC_PLAYOUT_SSRC_IGNORE;
    rtpcc_playout_reset (p, destroy);
    r = RTPCC_PLAYOUT_SSRC_NEW;
  }
  p->have_ssrc = TRUE;
  p->ssrc = ssrc;
  return r;
}

void
rtpcc_playout_reset (RtpccPlayout * p, GDestroyNotify destroy)
{
  guint i;

  drop_queue (p, destroy);
  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
    Sample *ring = p->sub[i].ring;
    gdouble *sorted = p->sub[i].sorted;

    memset (&p->sub[i], 0, sizeof (Subflow));
    p->sub[i].ring = ring;
    p->sub[i].sorted = sorted;
    p->sub[i].last_jump = p->sub[i].last_late = RTPCC_TIME_NONE;
  }
  p->started = FALSE;
  p->have_ssrc = FALSE;
  p->last_arrival = RTPCC_TIME_NONE;
  p->mean_gap = 0.0;
  p->b_head = p->b_len = 0;
  p->have_bucket = FALSE;
  p->slope = 0.0;
  p->target = (gdouble) p->config.min_delay;
  p->raw = 0.0;
  p->last_update = RTPCC_TIME_NONE;
  p->hold_until = RTPCC_TIME_NONE;
  p->have_singh = FALSE;
  p->singh_delay = p->singh_dev = 0.0;
  p->released_any = FALSE;
  p->last_released = 0;
  memset (p->released, 0, sizeof (p->released));
  memset (&p->stats, 0, sizeof (p->stats));
}

void
rtpcc_playout_set_config (RtpccPlayout * p, const RtpccPlayoutConfig * config)
{
  GQueue keep;

  if (!rtpcc_playout_config_validate (config, NULL))
    return;
  if (config->window_packets != p->config.window_packets) {
    /* The history is resized: start learning again but keep the packets. */
    keep = p->queue;
    g_queue_init (&p->queue);
    subflows_free (p);
    p->config = *config;
    subflows_alloc (p);
    {
      gboolean released_any = p->released_any;
      gint64 last_released = p->last_released;
      gboolean started = p->started;
      gint64 ext_ts = p->ext_ts, first_ts = p->first_ts, ext_seq = p->ext_seq;
      guint8 released[RELEASED_BITS / 8];

      memcpy (released, p->released, sizeof (released));
      rtpcc_playout_reset (p, NULL);
      p->released_any = released_any;
      p->last_released = last_released;
      p->started = started;
      p->ext_ts = ext_ts;
      p->first_ts = first_ts;
      p->ext_seq = ext_seq;
      memcpy (p->released, released, sizeof (released));
    }
    p->queue = keep;
    return;
  }
  p->config = *config;
}

/* --- the drift fit --------------------------------------------------------- */

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

static const Bucket *
bucket_at (const RtpccPlayout * p, guint i)
{
  return &p->buckets[(p->b_head + i) % MAX_BUCKETS];
}

/* Theil–Sen: the median of pairwise slopes is robust to the buckets whose
 * minimum sits in a delay spike. */
static void
fit_slope (RtpccPlayout * p)
{
  gdouble *slopes;
  guint i, j, n = 0;
  RtpccTime span;

  if (p->b_len < 4)
    return;
  span = bucket_at (p, p->b_len - 1)->t - bucket_at (p, 0)->t;
  if (span < RTPCC_SEC (4))
    return;

  slopes = g_new (gdouble, p->b_len * (p->b_len - 1) / 2);
  for (i = 0; i < p->b_len; i++) {
    for (j = i + 1; j < p->b_len; j++) {
      const Bucket *a = bucket_at (p, i), *b = bucket_at (p, j);

      if (b->t - a->t < RTPCC_MSEC (500))
        continue;
      slopes[n++] = (gdouble) (b->min_d - a->min_d) / (gdouble) (b->t - a->t);
    }
  }
  if (n > 0) {
    qsort (slopes, n, sizeof (gdouble), cmp_double);
    p->slope = CLAMP (slopes[n / 2], -MAX_DRIFT, MAX_DRIFT);
  }
  g_free (slopes);
}

static void
rebuild_sorted (RtpccPlayout * p)
{
  guint i, k;

  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
    Subflow *s = &p->sub[i];

    /* deviations over the level are differences of nearby samples: the
     * slope hardly changes them, so only the detrended delays move */
    for (k = 0; k < s->len; k++) {
      Sample *x = &s->ring[(s->head + k) % p->cap];

      x->r = (gdouble) x->d - p->slope * (gdouble) x->t;
    }
  }
}

static void
drift_add (RtpccPlayout * p, RtpccTime now, RtpccTime d)
{
  if (p->have_bucket && now / BUCKET_LEN == p->cur_bucket.slot) {
    if (d < p->cur_bucket.min_d) {
      p->cur_bucket.min_d = d;
      p->cur_bucket.t = now;
    }
    return;
  }
  if (p->have_bucket) {
    gdouble old = p->slope;

    if (p->b_len == MAX_BUCKETS) {
      p->b_head = (p->b_head + 1) % MAX_BUCKETS;
      p->b_len--;
    }
    p->buckets[(p->b_head + p->b_len) % MAX_BUCKETS] = p->cur_bucket;
    p->b_len++;
    while (p->b_len > 0 &&
        now - bucket_at (p, 0)->t > p->config.drift_window) {
      p->b_head = (p->b_head + 1) % MAX_BUCKETS;
      p->b_len--;
    }
    fit_slope (p);
    if (p->slope != old) {
      guint i;

      rebuild_sorted (p);
      /* the stored floors are detrended delays too: move them with it */
      for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
        p->sub[i].level -= (p->slope - old) * (gdouble) now;
        p->sub[i].level_pre -= (p->slope - old) * (gdouble) now;
        p->sub[i].jump_r -= (p->slope - old) * (gdouble) now;
        p->sub[i].level_cap -= (p->slope - old) * (gdouble) now;
      }
    }
  }
  p->cur_bucket.t = now;
  p->cur_bucket.min_d = d;
  p->cur_bucket.slot = now / BUCKET_LEN;
  p->have_bucket = TRUE;
}

/* The lowest detrended delay over the drift window: the fastest transit. */
static gdouble
base_r (const RtpccPlayout * p)
{
  gdouble b = (gdouble) p->cur_bucket.min_d - p->slope *
      (gdouble) p->cur_bucket.t;
  guint i;

  for (i = 0; i < p->b_len; i++) {
    const Bucket *k = bucket_at (p, i);

    b = MIN (b, (gdouble) k->min_d - p->slope * (gdouble) k->t);
  }
  return b;
}

/* --- the delay history ----------------------------------------------------- */

static guint
sorted_lower_bound (const gdouble * a, guint n, gdouble v)
{
  guint lo = 0, hi = n;

  while (lo < hi) {
    guint mid = (lo + hi) / 2;

    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void
subflow_evict_oldest (RtpccPlayout * p, Subflow * s)
{
  Sample *x = &s->ring[s->head];
  guint pos = sorted_lower_bound (s->sorted, s->len, x->dev);

  /* the exact value is there: it was inserted (or rebuilt) from x->r */
  if (pos < s->len) {
    memmove (&s->sorted[pos], &s->sorted[pos + 1],
        (s->len - pos - 1) * sizeof (gdouble));
  }
  s->head = (s->head + 1) % p->cap;
  s->len--;
}

/* The path's current level: its lowest detrended delay over the last
 * level_window. It follows a delay step down at once and up after
 * level_window, so the spread above it (the percentile) stays the jitter
 * and not the steps (the level/spread split rtpjitterbuffer's skew
 * estimate also makes, with a fixed spread). */
static gdouble
subflow_level (const RtpccPlayout * p, const Subflow * s, RtpccTime now)
{
  gdouble level = G_MAXDOUBLE;
  guint k;

  for (k = s->len; k > 0; k--) {
    const Sample *x = &s->ring[(s->head + k - 1) % p->cap];

    if (k < s->len && now - x->t > p->config.level_window)
      break;
    level = MIN (level, x->r);
  }
  return level;
}

static void
subflow_add (RtpccPlayout * p, Subflow * s, RtpccTime now, RtpccTime d)
{
  Sample *x;
  guint pos;

  while (s->len > 0 && (s->len >= p->cap ||
          now - s->ring[s->head].t > p->config.window))
    subflow_evict_oldest (p, s);

  x = &s->ring[(s->head + s->len) % p->cap];
  x->t = now;
  x->d = d;
  x->r = (gdouble) d - p->slope * (gdouble) now;
  s->len++;
  x->dev = x->r - subflow_level (p, s, now);
  pos = sorted_lower_bound (s->sorted, s->len - 1, x->dev);
  memmove (&s->sorted[pos + 1], &s->sorted[pos],
      (s->len - 1 - pos) * sizeof (gdouble));
  s->sorted[pos] = x->dev;
  s->active = TRUE;
  s->last_arrival = now;
}

static gdouble
subflow_percentile (const RtpccPlayout * p, const Subflow * s)
{
  gdouble rank;
  guint idx;

  if (s->len < MIN_SAMPLES)
    return s->sorted[s->len - 1];
  rank = ceil (p->config.percentile / 100.0 * (gdouble) s->len);
  idx = (guint) CLAMP (rank, 1.0, (gdouble) s->len) - 1;
  return s->sorted[idx];
}

/* --- the late-rate controller ----------------------------------------------
 *
 * The playout point of a path is floor + margin.
 *
 * The floor is the lowest detrended delay over level_window (2 s by
 * default; only samples since the last episode end count): it follows a
 * fall at once and a rise after level_window.
 *
 * The margin is not a percentile of the past but is steered by the late
 * rate itself (stochastic quantile tracking): every late packet raises it
 * by a step, every packet on time lowers it by step·p/(1−p), so it settles
 * where a fraction p = late_target of the packets is late, whatever shape
 * the delay has (iid jitter, ramps, spikes, estimator noise), and it spends
 * the late budget where it is cheapest. The step is a fixed fraction of the
 * margin (log-domain tracking, so it scales with the jitter). A long run of
 * packets on time (4/p) makes it fall faster: a margin learnt in a noisier
 * regime that has passed is given back in seconds, not minutes.
 *
 * Episodes (spikes, queue ramps): a late packet that is clearly out (more
 * than CTRL_JUMP_FRAC of the margin over its playout point) or follows
 * another late one within `hold` starts or continues an episode: the floor
 * jumps to that packet's delay (rtpjitterbuffer's timeline reset, but with
 * the margin kept), and further jumps of the same episode extrapolate the
 * rise seen since the previous one (a queue filling up keeps rising). In
 * the episode the floor sinks towards the lowest delay since the last jump
 * (rtpjitterbuffer's 1/125 skew filter; that floor outright after
 * level_window without a jump). The episode ends when a packet comes back
 * below the middle between the old floor and the held one: the floor then
 * follows the samples down from at most the old floor or that packet's
 * delay less a margin. */

#define CTRL_TREND 1.0          /* extrapolate a rising episode by this */
/* A late packet more than this fraction of the margin beyond its playout
 * point starts an episode at once: iid jitter's late packets graze the
 * playout point (a steep tail), a queue building up or a spike does not. */
#define CTRL_JUMP_FRAC 0.05
#define CTRL_ACC_GAPS 4.0       /* on-time run (in 1/p) before a faster fall */
#define CTRL_SINK (1.0 / 125.0) /* episode floor's sink per packet */

/* The lowest detrended delay since @since within level_window. */
static gdouble
subflow_floor (const RtpccPlayout * p, const Subflow * s, RtpccTime now,
    RtpccTime since)
{
  gdouble level = G_MAXDOUBLE;
  guint k;

  for (k = s->len; k > 0; k--) {
    const Sample *x = &s->ring[(s->head + k - 1) % p->cap];

    if (k < s->len && (now - x->t > p->config.level_window || (since !=
                RTPCC_TIME_NONE && x->t < since)))
      break;
    level = MIN (level, x->r);
  }
  return level;
}

/* One sample @r (detrended) on path @s; @late: it missed its playout time,
 * by @excess ns (0 when it came after a later packet was released). */
static void
subflow_track (RtpccPlayout * p, Subflow * s, RtpccTime now, gdouble r,
    gboolean late, gdouble excess)
{
  gdouble pl = p->config.late_target / 100.0, step;
  gboolean jump;

  s->n++;
  if (s->n <= CTRL_WARMUP) {
    /* learn: floor and spread as in the percentile mode; that seeds the
     * controller */
    s->level = subflow_level (p, s, now);
    s->margin = subflow_percentile (p, s);
    s->level_since = RTPCC_TIME_NONE;
    if (late)
      s->last_late = now;
    return;
  }

  step = MAX (CTRL_STEP_MIN, CTRL_STEP_FRAC * s->margin);
  if (late) {                   /* bounded: beyond max-delay all is late */
    s->margin = MIN (s->margin + step, (gdouble) p->config.max_delay);
    s->since_late = 0;
  } else {
    gdouble gaps, acc = 1.0;

    /* A run of on-time packets much longer than 1/p says the margin is
     * oversized (learnt in a regime that has passed): fall faster, doubling
     * per further 1/p packets. At the target such runs are rare (e^-4). */
    s->since_late++;
    gaps = (gdouble) s->since_late * pl;
    if (gaps > CTRL_ACC_GAPS)
      acc = exp2 (MIN (gaps - CTRL_ACC_GAPS + 1.0, 6.0));
    s->margin = MAX (0.0, s->margin - acc * step * pl / (1.0 - pl));
  }

  jump = late && p->config.late_bump && (excess > CTRL_JUMP_FRAC * s->margin ||
      (s->last_late != RTPCC_TIME_NONE && now - s->last_late <=
          p->config.hold));
  if (jump) {
    if (!s->episode) {
      s->level_pre = s->level;
      s->level = MAX (s->level, r);
    } else {
      s->level = MAX (s->level, r + CTRL_TREND * MAX (0.0, r - s->jump_r));
    }
    s->jump_r = r;
    s->episode = TRUE;
    s->last_jump = s->level_since = now;
  } else if (s->episode &&
      r < s->level_pre + 0.5 * (s->level - s->level_pre)) {
    /* back near the old floor: the episode is over */
    s->episode = FALSE;
    s->level_since = now;
    s->level_cap = MAX (s->level_pre, r - s->margin);
  } else if (s->episode) {
    /* the held floor sinks towards the episode's own floor (the lowest
     * delay since the last jump) with rtpjitterbuffer's skew filter
     * constant, and is that floor once level_window has passed without a
     * jump (a long or lasting regime) */
    gdouble f = subflow_floor (p, s, now, s->last_jump);

    if (f < s->level)
      s->level -= (s->level - f) * CTRL_SINK;
    if (now - s->last_jump > p->config.level_window)
      s->level = MIN (s->level, f);
  }
  if (!s->episode) {
    s->level = subflow_floor (p, s, now, s->level_since);
    /* just after an episode the few samples since overstate the floor */
    if (s->level_since != RTPCC_TIME_NONE &&
        now - s->level_since < p->config.level_window)
      s->level = MIN (s->level, s->level_cap);
  }
  if (late)
    s->last_late = now;
}

/* --- singh: MPRTP skew compensation ---------------------------------------- *
 *
 * Varun Singh, "Protocols and Algorithms for Adaptive Multimedia Systems",
 * doctoral thesis, Aalto University 2015, ch. 6 (MPRTP, Publication VII):
 * per path a drift window of min(2 s, 100 packets) of packet skews, the
 * path skew an EWMA of its median, the playout delay a 1/125 filter of the
 * largest path skew. */

RtpccTime
rtpcc_playout_singh_path_skew (RtpccTime prev, RtpccTime median)
{
  return (RtpccTime) llround (0.01 * (gdouble) median + 0.99 * (gdouble) prev);
}

RtpccTime
rtpcc_playout_singh_delay (RtpccTime prev, RtpccTime max_skew)
{
  return (RtpccTime) llround (((gdouble) max_skew + 124.0 * (gdouble) prev) /
      125.0);
}

static void
singh_update (RtpccPlayout * p, Subflow * s, RtpccTime now, gdouble r)
{
  gdouble base = base_r (p), tmp[DW_PACKETS], median, max_skew = 0.0;
  guint i, n;

  /* Drift window: min(2 s, 100 packets) of this path's skew over the
   * fastest path. Skews are kept detrended, so clock drift is not skew. */
  if (s->dw_len == DW_PACKETS) {
    s->dw_head = (s->dw_head + 1) % DW_PACKETS;
    s->dw_len--;
  }
  s->dw[(s->dw_head + s->dw_len) % DW_PACKETS] = r;
  s->dw_t[(s->dw_head + s->dw_len) % DW_PACKETS] = now;
  s->dw_len++;
  while (s->dw_len > 1 && now - s->dw_t[s->dw_head] > DW_SPAN) {
    s->dw_head = (s->dw_head + 1) % DW_PACKETS;
    s->dw_len--;
  }
  for (i = 0; i < s->dw_len; i++)
    tmp[i] = s->dw[(s->dw_head + i) % DW_PACKETS] - base;
  n = s->dw_len;
  qsort (tmp, n, sizeof (gdouble), cmp_double);
  median = (n % 2) ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);

  if (!s->have_skew) {
    s->path_skew = median;
    s->have_skew = TRUE;
  } else {
    s->path_skew = 0.01 * median + 0.99 * s->path_skew;
  }

  /* Skew window: the current skew of every live path. */
  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
    Subflow *o = &p->sub[i];

    if (o->have_skew && now - o->last_arrival <= p->config.window)
      max_skew = MAX (max_skew, o->path_skew);
  }
  if (!p->have_singh) {
    p->singh_delay = max_skew;
    p->singh_dev = fabs (r - base - s->path_skew);
    p->have_singh = TRUE;
  } else {
    p->singh_delay = (max_skew + 124.0 * p->singh_delay) / 125.0;
    /* the classic playout calculation's variation term, same filter */
    p->singh_dev = (fabs (r - base - s->path_skew) + 124.0 * p->singh_dev)
        / 125.0;
  }
}

/* --- target delay ---------------------------------------------------------- */

/* How far the target, @above the need, falls in @dt: at down_rate, or
 * faster when far above it (an exponential return, time constant
 * return_time, so a spike's delay is given back within a few hundred ms),
 * never faster than real time (the output pauses, never runs backwards). */
static gdouble
fall_by (const RtpccPlayout * p, gdouble above, RtpccTime dt)
{
  gdouble fall = p->config.down_rate * (gdouble) dt;

  if (p->config.return_time > 0)
    fall = MAX (fall, above * (1.0 - exp (-(gdouble) dt /
                (gdouble) p->config.return_time)));
  return MIN (fall, (gdouble) dt);
}

static gdouble
clamp_target (const RtpccPlayout * p, gdouble t)
{
  return CLAMP (t, (gdouble) p->config.min_delay,
      (gdouble) p->config.max_delay);
}

static void
update_target (RtpccPlayout * p, RtpccTime now)
{
  gdouble base = base_r (p), raw = 0.0;
  guint i;

  switch (p->config.mode) {
    case RTPCC_PLAYOUT_MODE_FIXED:
      p->raw = p->target = (gdouble) p->config.min_delay;
      p->last_update = now;
      return;
    case RTPCC_PLAYOUT_MODE_SINGH:
      raw = p->singh_delay + 4.0 * p->singh_dev;
      break;
    case RTPCC_PLAYOUT_MODE_ADAPTIVE:
      /* the slowest live path sets the pace (skew compensation) */
      for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
        Subflow *s = &p->sub[i];

        if (s->len == 0 || now - s->last_arrival > p->config.window)
          continue;
        if (p->config.late_target > 0.0 && s->n > CTRL_WARMUP)
          raw = MAX (raw, s->level + s->margin - base);
        else
          raw = MAX (raw, subflow_level (p, s, now) +
              subflow_percentile (p, s) - base);
      }
      break;
  }
  p->raw = raw;
  raw += (gdouble) fec_window (p);

  if (p->last_update == RTPCC_TIME_NONE || raw >= p->target) {
    p->target = raw;
  } else if (p->hold_until != RTPCC_TIME_NONE && now < p->hold_until) {
    /* held after a late packet */
  } else {
    gdouble fall = fall_by (p, p->target - raw, now - p->last_update);

    p->target = MAX (raw, p->target - fall);
  }
  p->target = clamp_target (p, p->target);
  p->last_update = now;
}

RtpccTime
rtpcc_playout_offset (RtpccPlayout * p, RtpccTime now)
{
  gdouble target = clamp_target (p, p->target);

  if (p->config.mode == RTPCC_PLAYOUT_MODE_ADAPTIVE &&
      p->last_update != RTPCC_TIME_NONE && now > p->last_update &&
      (p->hold_until == RTPCC_TIME_NONE || now >= p->hold_until) &&
      p->target > p->raw + (gdouble) fec_window (p)) {
    /* the fall continues between arrivals */
    gdouble fall = fall_by (p, p->target - p->raw -
        (gdouble) fec_window (p), now - p->last_update);

    target = clamp_target (p, MAX (p->raw + (gdouble) fec_window (p),
            p->target - fall));
  }
  return (RtpccTime) llround (base_r (p) + p->slope * (gdouble) now + target);
}

/* --- the queue ------------------------------------------------------------- */

static gboolean
released_get (const RtpccPlayout * p, gint64 ext_seq)
{
  guint bit = (guint) (ext_seq & (RELEASED_BITS - 1));

  return (p->released[bit / 8] >> (bit % 8)) & 1;
}

static void
released_set (RtpccPlayout * p, gint64 ext_seq, gboolean v)
{
  guint bit = (guint) (ext_seq & (RELEASED_BITS - 1));

  if (v)
    p->released[bit / 8] |= (guint8) (1u << (bit % 8));
  else
    p->released[bit / 8] &= (guint8) ~(1u << (bit % 8));
}

static gint64
unwrap16 (gint64 ref, guint16 v)
{
  gint16 diff = (gint16) (guint16) (v - (guint16) ref);

  return ref + diff;
}

static gint64
unwrap32 (gint64 ref, guint32 v)
{
  gint32 diff = (gint32) (guint32) (v - (guint32) ref);

  return ref + diff;
}

static RtpccPlayoutVerdict
push_packet (RtpccPlayout * p, RtpccTime now, guint subflow, guint16 seq,
    guint32 rtp_ts, gpointer data, gboolean filler)
{
  gint64 ext_seq, ext_ts;
  RtpccTime media, d, due;
  Subflow *s;
  Item *it;
  GList *l;
  gboolean late = FALSE, reordered, slot_passed = FALSE;
  gdouble before, over = 0.0;
  gboolean missed, first_frame;

  if (subflow >= RTPCC_PLAYOUT_MAX_SUBFLOWS)
    subflow = RTPCC_PLAYOUT_MAX_SUBFLOWS - 1;
  s = &p->sub[subflow];

  if (!p->started) {
    p->started = TRUE;
    /* start the unwrapped spaces away from 0 so that early reordering
     * stays positive */
    p->ext_seq = (1 << 16) + seq;
    p->first_ts = p->ext_ts = (G_GINT64_CONSTANT (1) << 32) + rtp_ts;
  }
  ext_seq = unwrap16 (p->ext_seq, seq);
  ext_ts = unwrap32 (p->ext_ts, rtp_ts);
  /* a filler repeats a timestamp already seen: one from beyond the newest
   * (bogus, or a foreign sender's) would hold the stream behind its slot
   * until that time, and move the unwrapping reference */
  if (filler)
    ext_ts = MIN (ext_ts, p->ext_ts);
  p->stats.received++;
  if (filler)
    p->stats.fillers++;
  if (p->last_arrival != RTPCC_TIME_NONE && now >= p->last_arrival) {
    gdouble gap = (gdouble) (now - p->last_arrival);

    p->mean_gap = p->mean_gap > 0.0 ? 0.95 * p->mean_gap + 0.05 * gap : gap;
  }
  p->last_arrival = now;

  if (p->released_any && ext_seq <= p->last_released) {
    if (p->last_released - ext_seq < RELEASED_BITS &&
        released_get (p, ext_seq)) {
      p->stats.duplicates++;
      return RTPCC_PLAYOUT_DUPLICATE;
    }
    late = slot_passed = TRUE;
  }
  reordered = ext_seq < p->ext_seq;
  p->ext_seq = MAX (p->ext_seq, ext_seq);
  p->ext_ts = MAX (p->ext_ts, ext_ts);

  media = (RtpccTime) llround ((gdouble) (ext_ts - p->first_ts) *
      (gdouble) RTPCC_NSEC_PER_SEC / (gdouble) p->config.clock_rate);
  d = now - media;

  /* Start-up: the stream's first frame arrives before anything is known of
   * the path, and when it is a key frame the sender's pacer spreads its
   * many packets over tens of ms, all with one RTP timestamp. Against a
   * playout point set by its first packet the others read as late, but
   * that spread is the frame's size, not the path's jitter, and every
   * later frame depends on this one: while its slot is open (nothing after
   * it has left) a packet of the first frame is never late. It teaches the
   * estimator as usual and the target rises to cover it (below). */
  first_frame = ext_ts == p->first_ts && !slot_passed;

  before = clamp_target (p, p->target);
  /* The decision uses the playout clock in force before this packet. */
  if (p->last_update != RTPCC_TIME_NONE && !first_frame) {
    due = media + rtpcc_playout_offset (p, now);
    late = late || now > due;
    /* the controller judges the playout point without the FEC window: that
     * is time for repair packets, not margin to trade for late loss */
    over = (gdouble) (now - due) + (gdouble) fec_window (p);
  }
  missed = late || over > 0.0;
  over = MAX (0.0, over);

  if (filler) {
    /* past its time but not its slot (nothing after it has left yet): it
     * still fits in sequence and goes out at once, no gap downstream */
    if (slot_passed) {
      p->stats.fillers_late++;
      return RTPCC_PLAYOUT_FILLER_LATE;
    }
    goto enqueue;
  }

  /* Late packets teach the estimator too: they are the spikes. */
  drift_add (p, now, d);
  subflow_add (p, s, now, d);
  if (p->config.late_target > 0.0)
    subflow_track (p, s, now, (gdouble) d - p->slope * (gdouble) now, missed,
        over);
  singh_update (p, s, now, (gdouble) d - p->slope * (gdouble) now);
  update_target (p, now);
  if (first_frame && p->config.mode != RTPCC_PLAYOUT_MODE_FIXED) {
    gdouble j = (gdouble) d - p->slope * (gdouble) now - base_r (p);

    /* the frames queued behind it at the sender arrive as late as it did */
    p->target = clamp_target (p, MAX (p->target, j +
            (gdouble) fec_window (p)));
  }

  if (late) {
    if (p->config.late_bump && p->config.mode == RTPCC_PLAYOUT_MODE_ADAPTIVE
        && !(p->config.late_target > 0.0 && s->n > CTRL_WARMUP)) {
      gdouble j = (gdouble) d - p->slope * (gdouble) now - base_r (p);

      /* A late packet means the distribution moved up by at least its
       * excess: shift the spread seen so far with it, and hold. */
      gdouble spread = subflow_percentile (p, s) - s->sorted[0];
      /* a jump that large says the jitter there is unknown: keep a quarter
       * of the jump as extra room until the level catches up */
      gdouble excess = MAX (0.0, j - before);

      p->target = clamp_target (p, MAX (p->target, j + spread + 0.25 * excess +
              (gdouble) p->config.bump_margin +
              (gdouble) fec_window (p)));
      p->hold_until = now + p->config.hold;
    }
    p->stats.late++;
    if (reordered)
      p->stats.reordered++;
    return RTPCC_PLAYOUT_LATE;
  }

enqueue:
  /* Duplicate of a held packet? Scan from the tail: reordering is shallow. */
  for (l = p->queue.tail; l != NULL; l = l->prev) {
    Item *o = l->data;

    if (o->ext_seq == ext_seq) {
      p->stats.duplicates++;
      return RTPCC_PLAYOUT_DUPLICATE;
    }
    if (o->ext_seq < ext_seq)
      break;
  }
  if (p->queue.length >= p->config.max_queue) {
    p->stats.overflows++;
    return RTPCC_PLAYOUT_OVERFLOW;
  }

  if (reordered)
    p->stats.reordered++;
  it = g_new (Item, 1);
  it->ext_seq = ext_seq;
  it->media = media;
  it->data = data;
  if (l != NULL)
    g_queue_insert_after (&p->queue, l, it);
  else
    g_queue_push_head (&p->queue, it);
  return RTPCC_PLAYOUT_QUEUED;
}

RtpccPlayoutVerdict
rtpcc_playout_push (RtpccPlayout * p, RtpccTime now, guint subflow,
    guint16 seq, guint32 rtp_ts, gpointer data)
{
  return push_packet (p, now, subflow, seq, rtp_ts, data, FALSE);
}

RtpccPlayoutVerdict
rtpcc_playout_push_filler (RtpccPlayout * p, RtpccTime now, guint subflow,
    guint16 seq, guint32 rtp_ts, gpointer data)
{
  return push_packet (p, now, subflow, seq, rtp_ts, data, TRUE);
}

RtpccTime
rtpcc_playout_next_due (RtpccPlayout * p, RtpccTime now)
{
  Item *it = g_queue_peek_head (&p->queue);

  if (it == NULL)
    return RTPCC_TIME_NONE;
  return it->media + rtpcc_playout_offset (p, now);
}

static gpointer
release_head (RtpccPlayout * p, guint16 * seq)
{
  Item *it = g_queue_pop_head (&p->queue);
  gpointer data;
  gint64 k;

  if (p->released_any && it->ext_seq > p->last_released + 1) {
    p->stats.skipped += (guint64) (it->ext_seq - p->last_released - 1);
    for (k = MAX (p->last_released + 1, it->ext_seq - RELEASED_BITS);
        k < it->ext_seq; k++)
      released_set (p, k, FALSE);
  }
  released_set (p, it->ext_seq, TRUE);
  p->last_released = it->ext_seq;
  p->released_any = TRUE;
  p->stats.released++;
  if (seq)
    *seq = (guint16) it->ext_seq;
  data = it->data;
  g_free (it);
  return data;
}

gpointer
rtpcc_playout_pop (RtpccPlayout * p, RtpccTime now, guint16 * seq,
    RtpccTime * due)
{
  Item *it = g_queue_peek_head (&p->queue);
  RtpccTime t;

  if (it == NULL)
    return NULL;
  t = it->media + rtpcc_playout_offset (p, now);
  if (now < t)
    return NULL;
  if (due)
    *due = t;
  return release_head (p, seq);
}

gpointer
rtpcc_playout_pop_any (RtpccPlayout * p, guint16 * seq)
{
  if (g_queue_is_empty (&p->queue))
    return NULL;
  return release_head (p, seq);
}

void
rtpcc_playout_get_stats (RtpccPlayout * p, RtpccPlayoutStats * stats)
{
  guint i;
  gdouble fastest = G_MAXDOUBLE;

  *stats = p->stats;
  stats->target_delay = (RtpccTime) llround (clamp_target (p, p->target));
  stats->fec_window = fec_window (p);
  stats->jitter_percentile = (RtpccTime) llround (p->raw);
  stats->drift_ppm = p->slope * 1e6;
  stats->queued = p->queue.length;
  stats->subflows = 0;
  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
    if (p->sub[i].have_skew) {
      stats->subflows++;
      fastest = MIN (fastest, p->sub[i].path_skew);
    }
  }
  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
    stats->path_skew[i] = p->sub[i].have_skew ?
        (RtpccTime) llround (p->sub[i].path_skew - fastest) : 0;
  }
}

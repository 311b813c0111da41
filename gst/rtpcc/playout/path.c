/* RtpccPlayout's delay estimator for one path (path.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "path.h"
#include "sorted.h"

#include <math.h>
#include <string.h>

#define MIN_SAMPLES 10          /* fewer: use the maximum, not a percentile */
#define CTRL_STEP_MIN 50000.0   /* 50 µs: the controller's smallest step */
#define CTRL_STEP_FRAC (1.0 / 32.0)     /* step = this fraction of margin */

void
rtpcc_playout_path_init (RtpccPlayoutPath * path, guint cap)
{
  memset (path, 0, sizeof (*path));
  path->cap = cap;
  path->ring = g_new0 (RtpccPlayoutSample, cap);
  path->sorted = g_new0 (gdouble, cap);
  path->low_serial = g_new0 (guint64, cap);
  path->low_r = g_new0 (gdouble, cap);
  rtpcc_playout_path_reset (path);
}

void
rtpcc_playout_path_clear (RtpccPlayoutPath * path)
{
  g_clear_pointer (&path->ring, g_free);
  g_clear_pointer (&path->sorted, g_free);
  g_clear_pointer (&path->low_serial, g_free);
  g_clear_pointer (&path->low_r, g_free);
}

void
rtpcc_playout_path_reset (RtpccPlayoutPath * path)
{
  RtpccPlayoutSample *ring = path->ring;
  gdouble *sorted = path->sorted;
  guint64 *low_serial = path->low_serial;
  gdouble *low_r = path->low_r;
  guint cap = path->cap;

  memset (path, 0, sizeof (*path));
  path->ring = ring;
  path->sorted = sorted;
  path->low_serial = low_serial;
  path->low_r = low_r;
  path->cap = cap;
  path->last_jump = path->last_late = RTPCC_TIME_NONE;
}

/* The newest sample (@serial, @r) joins the monotonic queue: the samples
 * not lower than it are the lowest from themselves on no more. */
static void
low_push (RtpccPlayoutPath * s, guint64 serial, gdouble r)
{
  while (s->low_len > 0 &&
      s->low_r[(s->low_head + s->low_len - 1) % s->cap] >= r)
    s->low_len--;
  s->low_serial[(s->low_head + s->low_len) % s->cap] = serial;
  s->low_r[(s->low_head + s->low_len) % s->cap] = r;
  s->low_len++;
}

/* The lowest detrended delay of the samples from serial @from to the
 * newest (at least the newest): the first queued one at or after it. */
static gdouble
low_since (const RtpccPlayoutPath * s, guint64 from)
{
  guint lo = 0, hi = s->low_len - 1;

  while (lo < hi) {
    guint mid = (lo + hi) / 2;

    if (s->low_serial[(s->low_head + mid) % s->cap] < from)
      lo = mid + 1;
    else
      hi = mid;
  }
  return s->low_r[(s->low_head + lo) % s->cap];
}

/* The serial of the oldest sample that arrived at or after @t (the newest
 * if none did): arrivals are in time order. */
static guint64
first_since (const RtpccPlayoutPath * s, RtpccTime t)
{
  guint lo = 0, hi = s->len - 1;

  while (lo < hi) {
    guint mid = (lo + hi) / 2;

    if (s->ring[(s->head + mid) % s->cap].t < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return s->added - s->len + lo;
}

void
rtpcc_playout_path_detrend (RtpccPlayoutPath * s, gdouble slope, gdouble old,
    RtpccTime now)
{
  guint k;

  /* deviations over the level are differences of nearby samples: the
   * slope hardly changes them, so only the detrended delays move */
  for (k = 0; k < s->len; k++) {
    RtpccPlayoutSample *x = &s->ring[(s->head + k) % s->cap];

    x->r = (gdouble) x->d - slope * (gdouble) x->t;
  }
  /* the order of the detrended delays changed: queue them again */
  s->low_len = 0;
  for (k = 0; k < s->len; k++)
    low_push (s, s->added - s->len + k, s->ring[(s->head + k) % s->cap].r);
  /* the stored floors are detrended delays too: move them with it */
  s->level -= (slope - old) * (gdouble) now;
  s->level_pre -= (slope - old) * (gdouble) now;
  s->jump_r -= (slope - old) * (gdouble) now;
  s->level_cap -= (slope - old) * (gdouble) now;
}

static void
evict_oldest (RtpccPlayoutPath * s)
{
  RtpccPlayoutSample *x = &s->ring[s->head];

  /* the exact value is there: it was inserted from x->dev */
  rtpcc_sorted_remove (s->sorted, s->len, x->dev);
  if (s->low_len > 0 && s->low_serial[s->low_head] == s->added - s->len) {
    s->low_head = (s->low_head + 1) % s->cap;
    s->low_len--;
  }
  s->head = (s->head + 1) % s->cap;
  s->len--;
}

/* The path's current level: its lowest detrended delay over the last
 * level_window. It follows a delay step down at once and up after
 * level_window, so the spread above it (the percentile) stays the jitter
 * and not the steps (the level/spread split rtpjitterbuffer's skew
 * estimate also makes, with a fixed spread). */
gdouble
rtpcc_playout_path_level (const RtpccPlayoutPath * s,
    const RtpccPlayoutConfig * config, RtpccTime now)
{
  /* the samples of the last level_window (the newest at least) */
  return low_since (s, first_since (s, now - config->level_window));
}

void
rtpcc_playout_path_add (RtpccPlayoutPath * s, const RtpccPlayoutConfig * config,
    RtpccTime now, RtpccTime d, gdouble slope)
{
  RtpccPlayoutSample *x;

  while (s->len > 0 && (s->len >= s->cap ||
          now - s->ring[s->head].t > config->window))
    evict_oldest (s);

  x = &s->ring[(s->head + s->len) % s->cap];
  x->t = now;
  x->d = d;
  x->r = (gdouble) d - slope * (gdouble) now;
  s->len++;
  low_push (s, s->added++, x->r);
  x->dev = x->r - rtpcc_playout_path_level (s, config, now);
  rtpcc_sorted_insert (s->sorted, s->len - 1, x->dev);
  s->active = TRUE;
  s->last_arrival = now;
}

gdouble
rtpcc_playout_path_percentile (const RtpccPlayoutPath * s,
    const RtpccPlayoutConfig * config)
{
  gdouble rank;
  guint idx;

  if (s->len < MIN_SAMPLES)
    return s->sorted[s->len - 1];
  rank = ceil (config->percentile / 100.0 * (gdouble) s->len);
  idx = (guint) CLAMP (rank, 1.0, (gdouble) s->len) - 1;
  return s->sorted[idx];
}

/* The late-rate controller.
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

gdouble
rtpcc_playout_path_floor (const RtpccPlayoutPath * s,
    const RtpccPlayoutConfig * config, RtpccTime now, RtpccTime since)
{
  RtpccTime from = now - config->level_window;

  if (since != RTPCC_TIME_NONE)
    from = MAX (from, since);
  return low_since (s, first_since (s, from));
}

void
rtpcc_playout_path_track (RtpccPlayoutPath * s,
    const RtpccPlayoutConfig * config, RtpccTime now, gdouble r,
    gboolean late, gdouble excess)
{
  gdouble pl = config->late_target / 100.0, step;
  gboolean jump;

  s->n++;
  if (s->n <= RTPCC_PLAYOUT_CTRL_WARMUP) {
    /* learn: floor and spread as in the percentile mode; that seeds the
     * controller */
    s->level = rtpcc_playout_path_level (s, config, now);
    s->margin = rtpcc_playout_path_percentile (s, config);
    s->level_since = RTPCC_TIME_NONE;
    if (late)
      s->last_late = now;
    return;
  }

  step = MAX (CTRL_STEP_MIN, CTRL_STEP_FRAC * s->margin);
  if (late) {                   /* bounded: beyond max-delay all is late */
    s->margin = MIN (s->margin + step, (gdouble) config->max_delay);
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

  jump = late && config->late_bump && (excess > CTRL_JUMP_FRAC * s->margin ||
      (s->last_late != RTPCC_TIME_NONE && now - s->last_late <=
          config->hold));
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
    gdouble f = rtpcc_playout_path_floor (s, config, now, s->last_jump);

    if (f < s->level)
      s->level -= (s->level - f) * CTRL_SINK;
    if (now - s->last_jump > config->level_window)
      s->level = MIN (s->level, f);
  }
  if (!s->episode) {
    s->level = rtpcc_playout_path_floor (s, config, now, s->level_since);
    /* just after an episode the few samples since overstate the floor */
    if (s->level_since != RTPCC_TIME_NONE &&
        now - s->level_since < config->level_window)
      s->level = MIN (s->level, s->level_cap);
  }
  if (late)
    s->last_late = now;
}

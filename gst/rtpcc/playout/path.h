/* RtpccPlayout's delay estimator for one path (subflow): the history of
 * its relative delays, its floor (the lowest detrended delay over
 * level_window), the spread above the floor (a percentile of the
 * deviations), and the late-rate controller that steers the margin over
 * the floor (see path.c).
 *
 * Library-internal (not installed); see playout.h for the timing model.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PLAYOUT_PATH_H__
#define __RTPCC_PLAYOUT_PATH_H__

#include <rtpcc/playout.h>

G_BEGIN_DECLS

/* samples before the late-rate controller takes over from the percentile */
#define RTPCC_PLAYOUT_CTRL_WARMUP 100

typedef struct
{
  RtpccTime t;                  /* arrival */
  RtpccTime d;                  /* relative delay */
  gdouble r;                    /* detrended: d − slope·t */
  gdouble dev;                  /* r over the path's level when it came */
} RtpccPlayoutSample;

typedef struct
{
  gboolean active;
  RtpccPlayoutSample *ring;     /* cap entries */
  guint cap;
  guint head, len;              /* oldest at head */
  guint64 added;                /* samples ever added: the newest's serial
                                 * is added − 1 */
  gdouble *sorted;              /* the dev of the ring, ascending */
  /* The floor over any recent span in O(log n): the samples that are the
   * lowest from themselves to the newest (a monotonic queue), as serials
   * and detrended delays, ascending in both; its head is the lowest of all,
   * the first one at or after a sample the lowest since that sample. */
  guint64 *low_serial;
  gdouble *low_r;
  guint low_head, low_len;
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
} RtpccPlayoutPath;

/* A history of @cap samples (the configuration's window_packets). */
void rtpcc_playout_path_init (RtpccPlayoutPath * path, guint cap);
void rtpcc_playout_path_clear (RtpccPlayoutPath * path);
/* Forgets everything but the allocation. */
void rtpcc_playout_path_reset (RtpccPlayoutPath * path);

/* One relative delay @d at @now (@slope: the drift in force). */
void rtpcc_playout_path_add (RtpccPlayoutPath * path,
    const RtpccPlayoutConfig * config, RtpccTime now, RtpccTime d,
    gdouble slope);
/* The drift estimate moved from @old to @slope at @now: detrend again. */
void rtpcc_playout_path_detrend (RtpccPlayoutPath * path, gdouble slope,
    gdouble old, RtpccTime now);

/* The path's current level: its lowest detrended delay over the last
 * level_window. Needs a sample. */
gdouble rtpcc_playout_path_level (const RtpccPlayoutPath * path,
    const RtpccPlayoutConfig * config, RtpccTime now);
/* The lowest detrended delay since @since (RTPCC_TIME_NONE: any time)
 * within level_window; the newest sample's at least. Needs a sample. */
gdouble rtpcc_playout_path_floor (const RtpccPlayoutPath * path,
    const RtpccPlayoutConfig * config, RtpccTime now, RtpccTime since);
/* The configured percentile of the deviations over the level (the largest
 * while fewer than 10 samples). Needs a sample. */
gdouble rtpcc_playout_path_percentile (const RtpccPlayoutPath * path,
    const RtpccPlayoutConfig * config);
/* The lowest deviation held. Needs a sample. */
static inline gdouble
rtpcc_playout_path_lowest_dev (const RtpccPlayoutPath * path)
{
  return path->sorted[0];
}

/* The late-rate controller steers this path's margin (late_target > 0,
 * past the warm-up). */
static inline gboolean
rtpcc_playout_path_controlled (const RtpccPlayoutPath * path,
    const RtpccPlayoutConfig * config)
{
  return config->late_target > 0.0 && path->n > RTPCC_PLAYOUT_CTRL_WARMUP;
}

/* The late-rate controller's update for sample @r (detrended) added at
 * @now; @late: it missed its playout time, by @excess ns (0 when it came
 * after a later packet was released). */
void rtpcc_playout_path_track (RtpccPlayoutPath * path,
    const RtpccPlayoutConfig * config, RtpccTime now, gdouble r,
    gboolean late, gdouble excess);

G_END_DECLS

#endif /* __RTPCC_PLAYOUT_PATH_H__ */

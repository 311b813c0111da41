/* Path-skew compensation and playout delay (Singh's thesis, Publication
 * VII); see skew.h for the definitions.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "skew.h"
#include "../playout/sorted.h"

#include <math.h>
#include <string.h>

#define DW_MAX 1000
#define K_MAX 10.0              /* reference packets one packet stands for */

typedef struct
{
  gboolean started;
  RtpccTime prev_tr, prev_ts;   /* previous packet on this path */
  RtpccTime drift;
  RtpccTime last_arrival;
  /* Drift Window ring: drifts and their media times */
  RtpccTime *dw, *dw_ts;
  guint dw_head, dw_len;
  /* the same drifts in ascending order (exact as doubles below 2^53 ns):
   * the median by index, one short move per packet instead of a sort */
  gdouble *dw_sorted;
  gboolean have_skew;
  gdouble path_skew;
} Path;

struct _RtpccMprtpSkew
{
  RtpccMprtpSkewConfig config;
  Path path[RTPCC_MPRTP_MAX_PATHS];
  gboolean started;
  guint32 highest_ts;           /* RTP timestamp unwrapping */
  gint64 highest_ext;
  guint32 first_ts;
  RtpccTime ref;                /* first packet's TR − TS */
  RtpccTime last_tr, last_ts;   /* previous packet of the merged stream */
  RtpccTime last_drift;
  gboolean have_delay;
  gdouble playout_delay, deviation;
};

void
rtpcc_mprtp_skew_config_init (RtpccMprtpSkewConfig * config)
{
  config->clock_rate = 90000;
  config->dw_span = RTPCC_SEC (2);
  config->dw_packets = 100;
  config->live_window = RTPCC_SEC (2);
  config->ref_rate = 250;
}

RtpccTime
rtpcc_mprtp_packet_skew (RtpccTime tr_i, RtpccTime ts_i, RtpccTime tr_j,
    RtpccTime ts_j)
{
  return (tr_j - tr_i) - (ts_j - ts_i);
}

gdouble
rtpcc_mprtp_path_skew_next (gdouble prev, gdouble median)
{
  return 0.01 * median + 0.99 * prev;
}

gdouble
rtpcc_mprtp_playout_delay_next (gdouble prev, gdouble max_skew)
{
  return (max_skew + 124.0 * prev) / 125.0;
}

/* The weight of a packet in a filter of per-packet weight @a when it
 * stands for @k packets of the reference rate (skew.h). */
static gdouble
weight (gdouble a, gdouble k)
{
  return 1.0 - pow (1.0 - a, MIN (k, K_MAX));
}

/* How many reference packets @dt holds at @rate packets/s. */
static gdouble
ref_packets (RtpccTime dt, gdouble rate)
{
  return dt > 0 ? (gdouble) dt * rate / (gdouble) RTPCC_NSEC_PER_SEC : 0.0;
}

RtpccMprtpSkew *
rtpcc_mprtp_skew_new (const RtpccMprtpSkewConfig * config)
{
  RtpccMprtpSkew *s;

  if (config == NULL || config->clock_rate == 0 || config->dw_packets == 0
      || config->dw_packets > DW_MAX || config->dw_span <= 0
      || config->live_window <= 0)
    return NULL;
  s = g_new0 (RtpccMprtpSkew, 1);
  s->config = *config;
  for (guint i = 0; i < RTPCC_MPRTP_MAX_PATHS; i++) {
    s->path[i].dw = g_new (RtpccTime, config->dw_packets);
    s->path[i].dw_ts = g_new (RtpccTime, config->dw_packets);
    s->path[i].dw_sorted = g_new (gdouble, config->dw_packets);
  }
  rtpcc_mprtp_skew_reset (s);
  return s;
}

void
rtpcc_mprtp_skew_free (RtpccMprtpSkew * s)
{
  if (s == NULL)
    return;
  for (guint i = 0; i < RTPCC_MPRTP_MAX_PATHS; i++) {
    g_free (s->path[i].dw);
    g_free (s->path[i].dw_ts);
    g_free (s->path[i].dw_sorted);
  }
  g_free (s);
}

void
rtpcc_mprtp_skew_reset (RtpccMprtpSkew * s)
{
  for (guint i = 0; i < RTPCC_MPRTP_MAX_PATHS; i++) {
    Path *p = &s->path[i];

    p->started = FALSE;
    p->dw_head = p->dw_len = 0;
    p->have_skew = FALSE;
    p->path_skew = 0.0;
    p->drift = 0;
    p->last_arrival = RTPCC_TIME_NONE;
  }
  s->started = FALSE;
  s->have_delay = FALSE;
  s->playout_delay = s->deviation = 0.0;
}

/* Media time in ns of an extended timestamp (relative to the first one);
 * split so that long sessions cannot overflow. */
static RtpccTime
media_time (const RtpccMprtpSkew * s, gint64 ext)
{
  gint64 rel = ext - (gint64) s->first_ts;
  gint64 rate = s->config.clock_rate;
  gint64 q = rel / rate, r = rel % rate;

  return q * RTPCC_NSEC_PER_SEC + r * RTPCC_NSEC_PER_SEC / rate;
}

static gint64
unwrap (const RtpccMprtpSkew * s, guint32 ts)
{
  return s->highest_ext + (gint32) (ts - s->highest_ts);
}

static RtpccTime
dw_median (const Path * p)
{
  guint n = p->dw_len;
  RtpccTime lo, hi;

  /* the middle element, or the mean of the two middle ones (rounded down) */
  if (n % 2)
    return (RtpccTime) p->dw_sorted[n / 2];
  lo = (RtpccTime) p->dw_sorted[n / 2 - 1];
  hi = (RtpccTime) p->dw_sorted[n / 2];
  return lo + (hi - lo) / 2;
}

/* The oldest drift leaves the window. */
static void
dw_drop_oldest (Path * p, guint cap)
{
  rtpcc_sorted_remove (p->dw_sorted, p->dw_len, (gdouble) p->dw[p->dw_head]);
  p->dw_head = (p->dw_head + 1) % cap;
  p->dw_len--;
}

gboolean
rtpcc_mprtp_skew_push (RtpccMprtpSkew * s, RtpccTime now, guint path,
    guint32 rtp_ts, RtpccMprtpSkewSample * sample)
{
  Path *p;
  gint64 ext;
  RtpccTime ts, skew, median, path_dt, stream_dt;
  guint cap = s->config.dw_packets;
  guint live = 0;
  gdouble max_skew = -G_MAXDOUBLE;

  if (path >= RTPCC_MPRTP_MAX_PATHS)
    return FALSE;
  p = &s->path[path];
  if (!s->started) {
    s->started = TRUE;
    s->first_ts = s->highest_ts = rtp_ts;
    s->highest_ext = rtp_ts;
    s->ref = now;               /* TR − TS of the first packet, TS = 0 */
    s->last_tr = now;
    s->last_ts = 0;
    s->last_drift = 0;
  }
  ext = unwrap (s, rtp_ts);
  if (ext > s->highest_ext) {
    s->highest_ext = ext;
    s->highest_ts = rtp_ts;
  }
  ts = media_time (s, ext);

  path_dt = p->started ? now - p->prev_tr : 0;
  stream_dt = now - s->last_tr;
  if (p->started) {
    skew = rtpcc_mprtp_packet_skew (p->prev_tr, p->prev_ts, now, ts);
    p->drift += skew;
  } else {
    /* a new path: against the merged stream's previous packet */
    skew = rtpcc_mprtp_packet_skew (s->last_tr, s->last_ts, now, ts);
    p->drift = s->last_drift + skew;
    p->started = TRUE;
  }
  p->prev_tr = now;
  p->prev_ts = ts;
  p->last_arrival = now;
  s->last_tr = now;
  s->last_ts = ts;
  s->last_drift = p->drift;

  /* Drift Window: min (dw_span of media, dw_packets) */
  if (p->dw_len == cap)
    dw_drop_oldest (p, cap);
  p->dw[(p->dw_head + p->dw_len) % cap] = p->drift;
  p->dw_ts[(p->dw_head + p->dw_len) % cap] = ts;
  rtpcc_sorted_insert (p->dw_sorted, p->dw_len, (gdouble) p->drift);
  p->dw_len++;
  while (p->dw_len > 1 && ts - p->dw_ts[p->dw_head] > s->config.dw_span)
    dw_drop_oldest (p, cap);
  median = dw_median (p);
  for (guint i = 0; i < RTPCC_MPRTP_MAX_PATHS; i++) {
    const Path *o = &s->path[i];

    if (o->started && now - o->last_arrival <= s->config.live_window)
      live++;
  }
  if (!p->have_skew) {
    p->path_skew = (gdouble) median;
    p->have_skew = TRUE;
  } else if (s->config.ref_rate == 0) {
    p->path_skew = rtpcc_mprtp_path_skew_next (p->path_skew, median);
  } else {
    gdouble w = weight (0.01, ref_packets (path_dt,
            (gdouble) s->config.ref_rate / MAX (live, 1)));

    p->path_skew += w * ((gdouble) median - p->path_skew);
  }

  /* Skew Window: the PathSkews of the live paths */
  for (guint i = 0; i < RTPCC_MPRTP_MAX_PATHS; i++) {
    Path *o = &s->path[i];

    if (o->have_skew && now - o->last_arrival <= s->config.live_window)
      max_skew = MAX (max_skew, o->path_skew);
  }
  if (!s->have_delay) {
    s->playout_delay = max_skew;
    s->deviation = fabs ((gdouble) p->drift - p->path_skew);
    s->have_delay = TRUE;
  } else if (s->config.ref_rate == 0) {
    s->playout_delay = rtpcc_mprtp_playout_delay_next (s->playout_delay,
        max_skew);
    s->deviation = (fabs ((gdouble) p->drift - p->path_skew) +
        124.0 * s->deviation) / 125.0;
  } else {
    gdouble w = weight (1.0 / 125.0, ref_packets (stream_dt,
            (gdouble) s->config.ref_rate));

    s->playout_delay += w * (max_skew - s->playout_delay);
    s->deviation += w * (fabs ((gdouble) p->drift - p->path_skew) -
        s->deviation);
  }

  if (sample) {
    sample->packet_skew = skew;
    sample->drift = p->drift;
    sample->median = median;
  }
  return TRUE;
}

gboolean
rtpcc_mprtp_skew_get_path_skew (const RtpccMprtpSkew * s, guint path,
    gdouble * path_skew)
{
  if (path >= RTPCC_MPRTP_MAX_PATHS || !s->path[path].have_skew)
    return FALSE;
  if (path_skew)
    *path_skew = s->path[path].path_skew;
  return TRUE;
}

gdouble
rtpcc_mprtp_skew_get_playout_delay (const RtpccMprtpSkew * s)
{
  return s->playout_delay;
}

gdouble
rtpcc_mprtp_skew_get_deviation (const RtpccMprtpSkew * s)
{
  return s->deviation;
}

RtpccTime
rtpcc_mprtp_skew_get_target (const RtpccMprtpSkew * s)
{
  return (RtpccTime) llround (s->playout_delay + 4.0 * s->deviation);
}

RtpccTime
rtpcc_mprtp_skew_due (const RtpccMprtpSkew * s, guint32 rtp_ts,
    RtpccTime target)
{
  if (!s->started)
    return RTPCC_TIME_NONE;
  return media_time (s, unwrap (s, rtp_ts)) + s->ref + target;
}

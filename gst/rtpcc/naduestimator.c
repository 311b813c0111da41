/* The receiver half of C-NADU; see naduestimator.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <rtpcc/naduestimator.h>
#include <rtpcc/windowextreme.h>
#include <rtpcc/cc/competitor.h>

/* base delay: the minimum of the last one to two of these */
#define BASE_WINDOW RTPCC_SEC (10)
/* the frame interval before two frames gave one, and the longest step
 * taken as one (a longer gap is a pause, not a frame rate) */
#define DEFAULT_FRAME_INTERVAL RTPCC_MSEC (33)
#define MAX_FRAME_STEP RTPCC_MSEC (500)
/* the shortest span a report's received rate is taken over */
#define MIN_SPAN RTPCC_MSEC (100)
#define DECREASE 0.85
#define INCREASE_PER_SEC 1.08
#define CAP_FACTOR 1.5
#define CAP_ADD 10000.0
/* frames remembered for the NADU (the buffer's content): > D / frame
 * interval for any D up to 2 s at 30 fps */
#define FRAMES 64

typedef struct
{
  RtpccTime ts;                 /* RTP timestamp as time, unwrapped */
  guint16 first_seq;
} Frame;

struct _RtpccNaduEstimator
{
  RtpccNaduEstimatorConfig config;
  /* RTP timestamps, unwrapped */
  gboolean have_ts;
  guint32 last_ts;
  gint64 ext_ts;
  guint clock_rate;
  /* the frame being received */
  gboolean open;
  RtpccTime cur_ts, cur_arrival;
  guint16 cur_first_seq, cur_last_seq;
  RtpccTime prev_ts;            /* of the last complete frame, or NONE */
  RtpccTime frame_interval;     /* EWMA of T steps, 0 before one */
  RtpccWindowExtreme base;
  RtpccCompetitor competitor;   /* of the frames' lateness */
  Frame frames[FRAMES];         /* complete frames, a ring */
  guint head, n_frames;
  gboolean have_seq;
  guint16 next_seq;             /* highest received + 1 */
  /* since the last evaluation */
  guint on_time, late, missed;
  guint64 bytes;
  RtpccTime span_start;         /* NONE before the first packet */
  gdouble a;
  RtpccNaduEstimatorStats stats;
};

void
rtpcc_nadu_estimator_config_init (RtpccNaduEstimatorConfig * config)
{
  config->playout_delay = RTPCC_MSEC (200);
  config->min_bitrate = 30000;
  config->max_bitrate = 20000000;
}

RtpccNaduEstimator *
rtpcc_nadu_estimator_new (const RtpccNaduEstimatorConfig * config)
{
  RtpccNaduEstimator *e;

  if (config == NULL || config->playout_delay <= 0
      || config->max_bitrate == 0
      || config->min_bitrate > config->max_bitrate)
    return NULL;
  e = g_new0 (RtpccNaduEstimator, 1);
  e->config = *config;
  e->prev_ts = e->span_start = RTPCC_TIME_NONE;
  rtpcc_window_extreme_init (&e->base, BASE_WINDOW);
  rtpcc_competitor_init (&e->competitor);
  e->stats.reason = "initial";
  return e;
}

void
rtpcc_nadu_estimator_free (RtpccNaduEstimator * e)
{
  g_free (e);
}

/* TRUE if the frame was missed */
static gboolean
close_frame (RtpccNaduEstimator * e)
{
  gint64 delay = e->cur_arrival - e->cur_ts, base;
  RtpccTime lateness, interval;
  gboolean missed;

  rtpcc_window_extreme_add (&e->base, e->cur_arrival, delay, FALSE);
  if (!rtpcc_window_extreme_get (&e->base, e->cur_arrival, FALSE, &base))
    base = delay;
  lateness = delay - base;
  rtpcc_competitor_add_queue (&e->competitor, e->cur_arrival, lateness);
  if (e->prev_ts != RTPCC_TIME_NONE) {
    RtpccTime step = e->cur_ts - e->prev_ts;
    if (step > 0 && step <= MAX_FRAME_STEP)
      e->frame_interval = e->frame_interval == 0 ? step :
          (RtpccTime) (0.9 * e->frame_interval + 0.1 * step);
  }
  e->prev_ts = e->cur_ts;
  interval = e->frame_interval ? e->frame_interval : DEFAULT_FRAME_INTERVAL;
  missed = lateness > e->config.playout_delay;
  if (missed) {
    e->missed++;
    e->stats.frames_missed++;
  } else if (lateness > interval) {
    e->late++;
    e->stats.frames_late++;
  } else {
    e->on_time++;
    e->stats.frames_on_time++;
  }
  e->frames[(e->head + e->n_frames) % FRAMES] = (Frame) {
  e->cur_ts, e->cur_first_seq};
  if (e->n_frames < FRAMES)
    e->n_frames++;
  else
    e->head = (e->head + 1) % FRAMES;
  e->open = FALSE;
  return missed;
}

gboolean
rtpcc_nadu_estimator_on_packet (RtpccNaduEstimator * e, RtpccTime now,
    guint32 rtp_ts, guint clock_rate, guint16 seq, guint size,
    guint16 * missed_first, guint * missed_count)
{
  gboolean missed = FALSE;
  gint32 diff;

  if (clock_rate == 0)
    return FALSE;
  e->stats.packets++;
  e->bytes += size;
  if (e->span_start == RTPCC_TIME_NONE)
    e->span_start = now;
  if (!e->have_seq || (gint16) (seq - e->next_seq) >= 0) {
    e->have_seq = TRUE;
    e->next_seq = seq + 1;
  }
  if (!e->have_ts || clock_rate != e->clock_rate) {
    /* a new timeline: the frames and delays of the old one say nothing */
    e->have_ts = TRUE;
    e->clock_rate = clock_rate;
    e->last_ts = rtp_ts;
    e->ext_ts = 0;
    e->open = FALSE;
    e->prev_ts = RTPCC_TIME_NONE;
    e->n_frames = 0;
    rtpcc_window_extreme_reset (&e->base);
  }
  diff = (gint32) (rtp_ts - e->last_ts);
  if (diff < 0 || (diff == 0 && !e->open && e->n_frames > 0)) {
    /* a frame already judged */
    e->stats.reordered++;
    return FALSE;
  }
  if (diff == 0 && e->open) {
    e->cur_arrival = MAX (e->cur_arrival, now);
    if ((gint16) (seq - e->cur_first_seq) < 0)
      e->cur_first_seq = seq;
    if ((gint16) (seq - e->cur_last_seq) > 0)
      e->cur_last_seq = seq;
    return FALSE;
  }
  if (e->open && close_frame (e)) {
    missed = TRUE;
    *missed_first = e->cur_first_seq;
    *missed_count = (guint16) (e->cur_last_seq - e->cur_first_seq) + 1;
  }
  e->ext_ts += diff;
  e->last_ts = rtp_ts;
  e->open = TRUE;
  e->cur_ts = (RtpccTime) (e->ext_ts * (gdouble) RTPCC_SEC (1) / clock_rate);
  e->cur_arrival = now;
  e->cur_first_seq = e->cur_last_seq = seq;
  return missed;
}

guint64
rtpcc_nadu_estimator_evaluate (RtpccNaduEstimator * e, RtpccTime now)
{
  RtpccTime span;
  gdouble r, secs;
  gboolean competing;

  if (e->stats.packets == 0)
    return 0;
  span = now - e->span_start;
  if (span < MIN_SPAN)
    return e->stats.estimate;
  secs = RTPCC_TIME_AS_SEC (span);
  r = 8.0 * e->bytes / secs;
  competing = rtpcc_competitor_update (&e->competitor, now);
  e->stats.competing = e->competitor.active;
  if (e->a == 0) {
    e->a = r;
    e->stats.reason = "initial";
  } else if (competing && (e->missed > 0 || e->late > 0)) {
    /* a queue we cannot drain: the sender's loss rules share it */
    gdouble cap = CAP_FACTOR * r + CAP_ADD;
    if (e->a < cap)
      e->a = MIN (e->a * pow (INCREASE_PER_SEC, secs), cap);
    e->stats.reason = "competitor";
  } else if (e->missed > 0) {
    e->a = DECREASE * r;
    e->stats.reason = "missed";
  } else if (e->late > 0) {
    e->a = MIN (e->a, r);
    e->stats.reason = "late";
  } else if (e->on_time > 0) {
    gdouble cap = CAP_FACTOR * r + CAP_ADD;
    if (e->a < cap)
      e->a = MIN (e->a * pow (INCREASE_PER_SEC, secs), cap);
    e->stats.reason = "on-time";
  } else {
    e->stats.reason = "idle";
  }
  e->a = CLAMP (e->a, (gdouble) e->config.min_bitrate,
      (gdouble) e->config.max_bitrate);
  e->on_time = e->late = e->missed = 0;
  e->bytes = 0;
  e->span_start = now;
  e->stats.evaluations++;
  e->stats.estimate = (guint64) e->a;
  return e->stats.estimate;
}

gboolean
rtpcc_nadu_estimator_fill_block (const RtpccNaduEstimator * e, RtpccTime now,
    RtpccNaduBlock * block)
{
  gint64 base;
  guint i;

  if (e->stats.packets == 0 || !e->have_seq)
    return FALSE;
  memset (block, 0, sizeof (*block));
  block->playout_delay = RTPCC_NADU_DELAY_UNSET;
  block->nsn = e->next_seq;
  block->fbs = G_MAXUINT16;
  if (!rtpcc_window_extreme_get (&e->base, now, FALSE, &base))
    return TRUE;
  for (i = 0; i <= e->n_frames; i++) {
    RtpccTime ts, due;
    guint16 seq;

    if (i < e->n_frames) {
      const Frame *f = &e->frames[(e->head + i) % FRAMES];
      ts = f->ts;
      seq = f->first_seq;
    } else if (e->open) {
      ts = e->cur_ts;
      seq = e->cur_first_seq;
    } else {
      break;
    }
    due = base + ts + e->config.playout_delay;
    if (due > now) {
      block->playout_delay = rtpcc_nadu_delay_from_time (due - now);
      block->nsn = seq;
      break;
    }
  }
  return TRUE;
}

const RtpccNaduEstimatorStats *
rtpcc_nadu_estimator_get_stats (const RtpccNaduEstimator * e)
{
  return &e->stats;
}

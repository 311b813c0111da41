/* RtpccPlayout: adaptive playout delay and reorder buffer (see playout.h).
 *
 * This file ties the parts together: per packet it asks the reorder queue
 * (playout/queue.c) whether the packet's slot is still open, feeds the
 * drift estimate (playout/drift.c), the path's delay estimator
 * (playout/path.c) and the multipath skew compensation (mprtp/skew.c, the
 * one implementation of the thesis' formulas, shared with the simulator),
 * and sets the target delay from what they say.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "playout.h"
#include "playout/drift.h"
#include "playout/path.h"
#include "playout/queue.h"
#include "mprtp/skew.h"
#include "seqjump.h"

/* a playout subflow is an mprtp/skew path */
G_STATIC_ASSERT (RTPCC_PLAYOUT_MAX_SUBFLOWS <= RTPCC_MPRTP_MAX_PATHS);

/* A packet held on sequence probation (seqjump.h). */
typedef struct
{
  gboolean held;
  RtpccTime now;
  guint subflow;
  guint16 seq;
  guint32 rtp_ts;
  gpointer data;
  gboolean filler;
} Held;

struct _RtpccPlayout
{
  RtpccPlayoutConfig config;
  RtpccTime last_arrival;       /* for the mean interval (FEC_AUTO) */
  gdouble mean_gap;             /* EWMA 1/20 of arrival gaps, ns; 0: none */
  gboolean have_ssrc;
  guint32 ssrc;                 /* the stream being played */

  gboolean started;
  gint64 ext_ts, first_ts;      /* highest unwrapped RTP timestamp, first */
  gint64 ext_seq;               /* highest unwrapped sequence number seen */

  RtpccPlayoutPath path[RTPCC_PLAYOUT_MAX_SUBFLOWS];
  RtpccMprtpSkew *skew;         /* path skew, in every mode */
  RtpccTime skew_ref;           /* d of the skew's first packet, or NONE */
  RtpccPlayoutDrift drift;

  gdouble target;               /* current extra delay (ns) before clamping */
  gdouble raw;                  /* rule input: percentile or singh */
  RtpccTime hold_until;         /* no fall before this (after a late bump) */
  RtpccTime last_update;

  RtpccPlayoutQueue queue;
  RtpccSeqJump jump;
  Held held;

  RtpccPlayoutStats stats;
  GDestroyNotify free_func;
};

/* The FEC repair window in force (see RTPCC_PLAYOUT_FEC_AUTO). */
static RtpccTime
fec_window (const RtpccPlayout * p)
{
  if (p->config.fec_window != RTPCC_PLAYOUT_FEC_AUTO)
    return p->config.fec_window;
  return (RtpccTime) MIN (RTPCC_PLAYOUT_FEC_AUTO_PACKETS * p->mean_gap,
      (gdouble) p->config.fec_window_max);
}

static void
paths_alloc (RtpccPlayout * p)
{
  RtpccMprtpSkewConfig sc;
  guint i;

  /* a path's history is allocated when its first packet arrives (see
   * path_of): a single-path call holds one, not RTPCC_PLAYOUT_MAX_SUBFLOWS;
   * until then it is empty (len 0) and every reader skips it */
  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++)
    memset (&p->path[i], 0, sizeof (p->path[i]));
  /* a path counts in the skew window while it delivered within the
   * delay history's span, as in adaptive mode */
  rtpcc_mprtp_skew_config_init (&sc);
  sc.clock_rate = p->config.clock_rate;
  sc.live_window = p->config.window;
  p->skew = rtpcc_mprtp_skew_new (&sc);
  /* the config was validated: clock rate and window are > 0 */
  g_assert (p->skew != NULL);
}

static void
paths_free (RtpccPlayout * p)
{
  guint i;

  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++)
    rtpcc_playout_path_clear (&p->path[i]);
  rtpcc_mprtp_skew_free (p->skew);
  p->skew = NULL;
}

RtpccPlayout *
rtpcc_playout_new (const RtpccPlayoutConfig * config)
{
  RtpccPlayout *p;

  if (!rtpcc_playout_config_validate (config, NULL))
    return NULL;
  p = g_new0 (RtpccPlayout, 1);
  p->config = *config;
  rtpcc_playout_queue_init (&p->queue);
  paths_alloc (p);
  rtpcc_playout_reset (p, NULL);
  return p;
}

static void
drop_held (RtpccPlayout * p, GDestroyNotify destroy)
{
  if (p->held.held && destroy && p->held.data)
    destroy (p->held.data);
  memset (&p->held, 0, sizeof (p->held));
}

void
rtpcc_playout_free (RtpccPlayout * p, GDestroyNotify destroy)
{
  if (p == NULL)
    return;
  rtpcc_playout_queue_drop (&p->queue, destroy);
  drop_held (p, destroy);
  paths_free (p);
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

/* Forgets the stream's timing: what was learnt of its delay, its clocks
 * and sequence space. */
static void
restart_timing (RtpccPlayout * p)
{
  guint i;

  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++)
    rtpcc_playout_path_reset (&p->path[i]);
  rtpcc_mprtp_skew_reset (p->skew);
  p->skew_ref = RTPCC_TIME_NONE;
  p->started = FALSE;
  p->last_arrival = RTPCC_TIME_NONE;
  p->mean_gap = 0.0;
  rtpcc_playout_drift_reset (&p->drift);
  p->target = (gdouble) p->config.min_delay;
  p->raw = 0.0;
  p->last_update = RTPCC_TIME_NONE;
  p->hold_until = RTPCC_TIME_NONE;
  rtpcc_seq_jump_reset (&p->jump);
}

void
rtpcc_playout_reset (RtpccPlayout * p, GDestroyNotify destroy)
{
  rtpcc_playout_queue_drop (&p->queue, destroy);
  drop_held (p, destroy);
  restart_timing (p);
  p->have_ssrc = FALSE;
  rtpcc_playout_queue_forget (&p->queue);
  memset (&p->stats, 0, sizeof (p->stats));
}

void
rtpcc_playout_set_free_func (RtpccPlayout * p, GDestroyNotify free_func)
{
  p->free_func = free_func;
}

void
rtpcc_playout_set_config (RtpccPlayout * p, const RtpccPlayoutConfig * config)
{
  if (!rtpcc_playout_config_validate (config, NULL))
    return;
  if (config->window_packets != p->config.window_packets ||
      config->clock_rate != p->config.clock_rate ||
      config->window != p->config.window) {
    /* The history is resized: start learning again but keep the packets
     * and where the stream is. */
    RtpccPlayoutQueue keep = p->queue;
    RtpccSeqJump jump = p->jump;
    Held held = p->held;
    gboolean started = p->started;
    gint64 ext_ts = p->ext_ts, first_ts = p->first_ts, ext_seq = p->ext_seq;

    rtpcc_playout_queue_init (&p->queue);
    memset (&p->held, 0, sizeof (p->held));
    paths_free (p);
    p->config = *config;
    paths_alloc (p);
    rtpcc_playout_reset (p, NULL);
    p->started = started;
    p->ext_ts = ext_ts;
    p->first_ts = first_ts;
    p->ext_seq = ext_seq;
    p->queue = keep;
    p->jump = jump;
    p->held = held;
    return;
  }
  p->config = *config;
}

/* --- the steps of one packet ---------------------------------------------- */

/* The drift estimate, then the detrended delays that depend on it. */
static void
drift_add (RtpccPlayout * p, RtpccTime now, RtpccTime d)
{
  gdouble old;
  guint i;

  if (!rtpcc_playout_drift_add (&p->drift, now, d, p->config.drift_window,
          &old))
    return;
  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++)
    rtpcc_playout_path_detrend (&p->path[i], p->drift.slope, old, now);
}

/* The thesis' PacketSkew / PathSkew / PlayoutDelay for this arrival (run
 * in every mode: the path skews are reported in all of them). @d: its
 * relative delay, kept for the skew's first packet, whose transit is the
 * origin of every drift. */
static void
skew_update (RtpccPlayout * p, guint subflow, RtpccTime now, guint32 rtp_ts,
    RtpccTime d)
{
  if (rtpcc_mprtp_skew_push (p->skew, now, subflow, rtp_ts, NULL) &&
      p->skew_ref == RTPCC_TIME_NONE)
    p->skew_ref = d;
}

/* mode singh: the thesis' playout point (media time + the first packet's
 * transit + PlayoutDelay + 4 v) as buffering over base + drift·now. */
static gdouble
singh_raw (const RtpccPlayout * p, RtpccTime now)
{
  if (p->skew_ref == RTPCC_TIME_NONE)
    return 0.0;
  return (gdouble) p->skew_ref - rtpcc_playout_drift_base (&p->drift) -
      p->drift.slope * (gdouble) now +
      (gdouble) rtpcc_mprtp_skew_get_target (p->skew);
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
  gdouble base = rtpcc_playout_drift_base (&p->drift), raw = 0.0;
  guint i;

  switch (p->config.mode) {
    case RTPCC_PLAYOUT_MODE_FIXED:
      p->raw = p->target = (gdouble) p->config.min_delay;
      p->last_update = now;
      return;
    case RTPCC_PLAYOUT_MODE_SINGH:
      raw = MAX (0.0, singh_raw (p, now));
      break;
    case RTPCC_PLAYOUT_MODE_ADAPTIVE:
      /* the slowest live path sets the pace (skew compensation) */
      for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
        const RtpccPlayoutPath *s = &p->path[i];

        if (s->len == 0 || now - s->last_arrival > p->config.window)
          continue;
        if (rtpcc_playout_path_controlled (s, &p->config))
          raw = MAX (raw, s->level + s->margin - base);
        else
          raw = MAX (raw, rtpcc_playout_path_level (s, &p->config, now) +
              rtpcc_playout_path_percentile (s, &p->config) - base);
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
  return (RtpccTime) llround (rtpcc_playout_drift_base (&p->drift) +
      p->drift.slope * (gdouble) now + target);
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

gboolean
rtpcc_playout_has_range (RtpccPlayout * p, guint32 ssrc, guint16 first,
    guint16 last)
{
  guint n = (guint16) (last - first) + 1u;
  gint64 ext;

  if (!p->started || !p->have_ssrc || p->ssrc != ssrc
      || n > RTPCC_PLAYOUT_RANGE_MAX)
    return FALSE;
  ext = unwrap16 (p->ext_seq, first);
  for (guint i = 0; i < n; i++, ext++)
    if (!rtpcc_playout_queue_was_released (&p->queue, ext)
        && !rtpcc_playout_queue_holds (&p->queue, ext))
      return FALSE;
  return TRUE;
}

static RtpccPlayoutVerdict
push_packet (RtpccPlayout * p, RtpccTime now, guint subflow, guint16 seq,
    guint32 rtp_ts, gpointer data, gboolean filler)
{
  gint64 ext_seq, ext_ts;
  RtpccTime media, d, due;
  RtpccPlayoutPath *s;
  RtpccPlayoutVerdict v;
  gboolean late = FALSE, reordered, slot_passed = FALSE;
  gdouble before, over = 0.0;
  gboolean missed, first_frame;

  if (subflow >= RTPCC_PLAYOUT_MAX_SUBFLOWS)
    subflow = RTPCC_PLAYOUT_MAX_SUBFLOWS - 1;
  s = &p->path[subflow];
  if (s->ring == NULL)
    rtpcc_playout_path_init (s, p->config.window_packets);

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

  if (rtpcc_playout_queue_passed (&p->queue, ext_seq)) {
    if (rtpcc_playout_queue_was_released (&p->queue, ext_seq)) {
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
  rtpcc_playout_path_add (s, &p->config, now, d, p->drift.slope);
  if (p->config.late_target > 0.0)
    rtpcc_playout_path_track (s, &p->config, now, (gdouble) d -
        p->drift.slope * (gdouble) now, missed, over);
  skew_update (p, subflow, now, rtp_ts, d);
  update_target (p, now);
  if (first_frame && p->config.mode != RTPCC_PLAYOUT_MODE_FIXED) {
    gdouble j = (gdouble) d - p->drift.slope * (gdouble) now -
        rtpcc_playout_drift_base (&p->drift);

    /* the frames queued behind it at the sender arrive as late as it did */
    p->target = clamp_target (p, MAX (p->target, j +
            (gdouble) fec_window (p)));
  }

  if (late) {
    if (p->config.late_bump && p->config.mode == RTPCC_PLAYOUT_MODE_ADAPTIVE
        && !rtpcc_playout_path_controlled (s, &p->config)) {
      gdouble j = (gdouble) d - p->drift.slope * (gdouble) now -
          rtpcc_playout_drift_base (&p->drift);

      /* A late packet means the distribution moved up by at least its
       * excess: shift the spread seen so far with it, and hold. */
      gdouble spread = rtpcc_playout_path_percentile (s, &p->config) -
          rtpcc_playout_path_lowest_dev (s);
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
  v = rtpcc_playout_queue_insert (&p->queue, ext_seq, media, data,
      p->config.max_queue);
  if (v == RTPCC_PLAYOUT_DUPLICATE)
    p->stats.duplicates++;
  else if (v == RTPCC_PLAYOUT_OVERFLOW)
    p->stats.overflows++;
  else if (reordered)
    p->stats.reordered++;
  return v;
}

/* Sequence jumps (seqjump.h): a packet far from the sequence numbers seen
 * is held until the next one says what it was. Refuted, it is dropped;
 * confirmed, the sender restarted (or resumed after a long outage): the
 * old stream's packets are due at once and the timing starts over at the
 * packet that jumped. */
static RtpccPlayoutVerdict
push_checked (RtpccPlayout * p, RtpccTime now, guint subflow, guint16 seq,
    guint32 rtp_ts, gpointer data, gboolean filler)
{
  RtpccSeqJumpVerdict v;
  gboolean refuted;

  if (!p->started)
    return push_packet (p, now, subflow, seq, rtp_ts, data, filler);
  v = rtpcc_seq_jump_check (&p->jump, seq, unwrap16 (p->ext_seq, seq) -
      p->ext_seq, &refuted);
  if (refuted) {
    p->stats.refused++;
    drop_held (p, p->free_func);
  }
  if (v == RTPCC_SEQ_JUMP_PROBATION) {
    p->held.held = TRUE;
    p->held.now = now;
    p->held.subflow = subflow;
    p->held.seq = seq;
    p->held.rtp_ts = rtp_ts;
    p->held.data = data;
    p->held.filler = filler;
    return RTPCC_PLAYOUT_QUEUED;
  }
  if (v == RTPCC_SEQ_JUMP_CONFIRMED) {
    Held h = p->held;

    memset (&p->held, 0, sizeof (p->held));
    p->stats.restarts++;
    rtpcc_playout_queue_end_stream (&p->queue);
    restart_timing (p);
    if (push_packet (p, h.now, h.subflow, h.seq, h.rtp_ts, h.data,
            h.filler) != RTPCC_PLAYOUT_QUEUED && p->free_func && h.data)
      p->free_func (h.data);
  }
  return push_packet (p, now, subflow, seq, rtp_ts, data, filler);
}

RtpccPlayoutVerdict
rtpcc_playout_push (RtpccPlayout * p, RtpccTime now, guint subflow,
    guint16 seq, guint32 rtp_ts, gpointer data)
{
  return push_checked (p, now, subflow, seq, rtp_ts, data, FALSE);
}

RtpccPlayoutVerdict
rtpcc_playout_push_filler (RtpccPlayout * p, RtpccTime now, guint subflow,
    guint16 seq, guint32 rtp_ts, gpointer data)
{
  return push_checked (p, now, subflow, seq, rtp_ts, data, TRUE);
}

RtpccTime
rtpcc_playout_next_due (RtpccPlayout * p, RtpccTime now)
{
  const RtpccPlayoutItem *it = rtpcc_playout_queue_head (&p->queue);

  if (rtpcc_playout_queue_has_ended (&p->queue))
    return now;
  if (it == NULL)
    return RTPCC_TIME_NONE;
  return it->media + rtpcc_playout_offset (p, now);
}

gboolean
rtpcc_playout_next_unit (RtpccPlayout * p, RtpccTime now, guint16 * seq,
    RtpccTime * due)
{
  const RtpccPlayoutItem *it = rtpcc_playout_queue_head (&p->queue);

  if (it == NULL || rtpcc_playout_queue_has_ended (&p->queue))
    return FALSE;
  *seq = (guint16) it->ext_seq;
  *due = it->media + rtpcc_playout_offset (p, now);
  return TRUE;
}

static gpointer
release_head (RtpccPlayout * p, guint16 * seq)
{
  guint64 skipped;
  gpointer data = rtpcc_playout_queue_release (&p->queue, seq, &skipped);

  p->stats.skipped += skipped;
  p->stats.released++;
  return data;
}

gpointer
rtpcc_playout_pop (RtpccPlayout * p, RtpccTime now, guint16 * seq,
    RtpccTime * due)
{
  const RtpccPlayoutItem *it = rtpcc_playout_queue_head (&p->queue);
  RtpccTime t;

  if (rtpcc_playout_queue_has_ended (&p->queue)) {
    /* an ended stream's packets: at once */
    if (due)
      *due = now;
    p->stats.released++;
    return rtpcc_playout_queue_release_ended (&p->queue, seq);
  }
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
  if (rtpcc_playout_queue_has_ended (&p->queue)) {
    p->stats.released++;
    return rtpcc_playout_queue_release_ended (&p->queue, seq);
  }
  if (rtpcc_playout_queue_head (&p->queue) == NULL)
    return NULL;
  return release_head (p, seq);
}

RtpccTime
rtpcc_playout_get_target_delay (RtpccPlayout * p)
{
  return (RtpccTime) llround (clamp_target (p, p->target));
}

void
rtpcc_playout_get_stats (RtpccPlayout * p, RtpccPlayoutStats * stats)
{
  guint i;
  gdouble fastest = G_MAXDOUBLE;

  *stats = p->stats;
  stats->target_delay = rtpcc_playout_get_target_delay (p);
  stats->fec_window = fec_window (p);
  stats->jitter_percentile = (RtpccTime) llround (p->raw);
  stats->drift_ppm = p->drift.slope * 1e6;
  stats->queued = rtpcc_playout_queue_length (&p->queue);
  stats->subflows = 0;
  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
    gdouble ps;

    if (rtpcc_mprtp_skew_get_path_skew (p->skew, i, &ps)) {
      stats->subflows++;
      fastest = MIN (fastest, ps);
    }
  }
  for (i = 0; i < RTPCC_PLAYOUT_MAX_SUBFLOWS; i++) {
    gdouble ps;

    stats->path_skew[i] = rtpcc_mprtp_skew_get_path_skew (p->skew, i, &ps) ?
        (RtpccTime) llround (ps - fastest) : 0;
  }
}

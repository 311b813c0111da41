/* The receiver's loss-repair planner: NACK, wait for FEC, or give up and
 * ask for a key frame. The rules are in repair.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "repair-private.h"
#include "feedback/rtcp.h"

#include <string.h>


void
rtpcc_repair_config_init (RtpccRepairConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->clock_rate = 90000;
  config->playout_delay = RTPCC_MSEC (200);
  config->initial_rtt = RTPCC_MSEC (100);
  config->nack_margin = RTPCC_MSEC (10);
  config->max_nacks = 3;
  config->reorder_min = RTPCC_MSEC (5);
  config->reorder_max = RTPCC_MSEC (50);
  config->fec_window = 0;
  config->keyframe_min_interval = RTPCC_MSEC (300);
  config->keyframe_feedback = FALSE;
  config->tail_probe = FALSE;
  config->max_keyframe_repeats = 3;
  config->fec_downstream = FALSE;
  config->max_missing = 1000;
}

gboolean
rtpcc_repair_config_validate (const RtpccRepairConfig * c, GError ** error)
{
  const gchar *bad = NULL;

  if (c->clock_rate == 0)
    bad = "clock-rate must be > 0";
  else if (c->playout_delay < 0 || c->nack_margin < 0 || c->fec_window < 0
      || c->keyframe_min_interval < 0)
    bad = "times must be >= 0";
  else if (c->initial_rtt <= 0)
    bad = "initial RTT must be > 0";
  else if (c->reorder_min < 0 || c->reorder_max < c->reorder_min)
    bad = "need 0 <= reorder-min <= reorder-max";
  else if (c->max_missing == 0 || c->max_missing > 32768)
    bad = "max-missing must be 1..32768";
  if (bad) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID, "repair: %s", bad);
    return FALSE;
  }
  return TRUE;
}

static void
reset_stream (RtpccRepair * r)
{
  r->started = FALSE;
  r->have_bad_seq = FALSE;
  r->have_ts = FALSE;
  rtpcc_window_extreme_init (&r->transit, RTPCC_REPAIR_TRACK_WINDOW);
  rtpcc_window_extreme_init (&r->reorder, RTPCC_REPAIR_TRACK_WINDOW);
  rtpcc_window_extreme_init (&r->intra_gap, RTPCC_REPAIR_TRACK_WINDOW);
  r->tail_at = RTPCC_TIME_NONE;
  r->highest_at = RTPCC_TIME_NONE;
  g_array_set_size (r->missing, 0);
  r->n_blocks = r->next_block = 0;
  rtpcc_window_extreme_init (&r->fec_window, RTPCC_REPAIR_TRACK_WINDOW);
  for (guint i = 0; i < ARRIVALS; i++)
    r->arrival_ext[i] = -1;
  r->broken = FALSE;
  r->request_pending = FALSE;
}

RtpccRepair *
rtpcc_repair_new (const RtpccRepairConfig * config, GError ** error)
{
  RtpccRepair *r;
  RtpccRepairConfig def;

  if (config == NULL) {
    rtpcc_repair_config_init (&def);
    config = &def;
  }
  if (!rtpcc_repair_config_validate (config, error))
    return NULL;
  r = g_new0 (RtpccRepair, 1);
  r->config = *config;
  r->missing = g_array_new (FALSE, FALSE, sizeof (Missing));
  r->blocks = g_new0 (FecBlock, RTPCC_REPAIR_FEC_BLOCKS);
  r->rtt_set = RTPCC_TIME_NONE;
  r->last_request = RTPCC_TIME_NONE;
  reset_stream (r);
  return r;
}

void
rtpcc_repair_free (RtpccRepair * repair)
{
  if (repair == NULL)
    return;
  g_array_free (repair->missing, TRUE);
  g_free (repair->blocks);
  g_free (repair);
}

RtpccTime
rtpcc_repair_current_rtt (const RtpccRepair * r)
{
  if (r->rtt_set != RTPCC_TIME_NONE)
    return r->rtt_set;
  if (r->srtt > 0)
    return r->srtt;
  return r->config.initial_rtt;
}

static RtpccTime
reorder_wait (const RtpccRepair * r, RtpccTime now)
{
  gint64 late;
  RtpccTime w = r->config.reorder_min;

  if (rtpcc_window_extreme_get (&r->reorder, now, TRUE, &late))
    w = MAX (w, late + late / 2);
  return MIN (w, r->config.reorder_max);
}

/* The FEC window in force: configured, or the largest learnt of late. */
static RtpccTime
fec_window (const RtpccRepair * r, RtpccTime now)
{
  gint64 learnt;

  if (rtpcc_window_extreme_get (&r->fec_window, now, TRUE, &learnt))
    return MAX (r->config.fec_window, learnt);
  return r->config.fec_window;
}

/* How long after a packet of an unfinished frame the rest is due: twice
 * the widest spacing of a frame's packets of late plus the reorder wait,
 * at most reorder_max. */
static RtpccTime
tail_wait (const RtpccRepair * r, RtpccTime now)
{
  gint64 gap = 0;

  rtpcc_window_extreme_get (&r->intra_gap, now, TRUE, &gap);
  return MIN (reorder_wait (r, now) + 2 * gap, r->config.reorder_max);
}

static RtpccTime
keyframe_interval (const RtpccRepair * r)
{
  return MAX (r->config.keyframe_min_interval, 2 * rtpcc_repair_current_rtt (r));
}

/* ---- RTP time ----------------------------------------------------------- */

static gint64
unwrap_ts (const RtpccRepair * r, guint32 ts)
{
  return r->ts_last + (gint32) (ts - (guint32) r->ts_last);
}

/* ticks → ns without overflow for any call length */
static RtpccTime
media_time (const RtpccRepair * r, gint64 ext_ts)
{
  gint64 d = ext_ts - r->ts_base, rate = r->config.clock_rate;

  return d / rate * RTPCC_NSEC_PER_SEC + d % rate * RTPCC_NSEC_PER_SEC / rate;
}

static RtpccTime
deadline_of (const RtpccRepair * r, RtpccTime now, gint64 ext_ts)
{
  gint64 base;

  if (!r->have_ts || !rtpcc_window_extreme_get (&r->transit, now, FALSE, &base))
    return RTPCC_TIME_NONE;
  return media_time (r, ext_ts) + base + r->config.playout_delay;
}

RtpccTime
rtpcc_repair_deadline (RtpccRepair * repair, guint32 rtp_ts)
{
  if (!repair->have_ts)
    return RTPCC_TIME_NONE;
  return deadline_of (repair, repair->last_now, unwrap_ts (repair, rtp_ts));
}

static void
learn_transit (RtpccRepair * r, RtpccTime now, guint32 ts)
{
  gint64 ext;

  if (!r->have_ts) {
    r->have_ts = TRUE;
    r->ts_base = r->ts_last = ts;
  }
  ext = unwrap_ts (r, ts);
  if (ext > r->ts_last)
    r->ts_last = ext;
  rtpcc_window_extreme_add (&r->transit, now, now - media_time (r, ext), FALSE);
}

/* ---- the loss list ------------------------------------------------------ */

/* The extended seq of @seq: the one nearest the highest seen. */
gint64
rtpcc_repair_ext_of (const RtpccRepair * r, guint16 seq)
{
  return r->highest + (gint16) (seq - (guint16) r->highest);
}

Missing *
rtpcc_repair_find_missing (RtpccRepair * r, gint64 ext, guint * index)
{
  guint lo = 0, hi = r->missing->len;

  while (lo < hi) {
    guint mid = (lo + hi) / 2;
    Missing *m = &g_array_index (r->missing, Missing, mid);

    if (m->ext == ext) {
      if (index)
        *index = mid;
      return m;
    }
    if (m->ext < ext)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

static void
mark_broken (RtpccRepair * r, RtpccTime now)
{
  if (!r->broken) {
    r->broken = TRUE;
    r->broken_since = now;
  }
}

static void
give_up (RtpccRepair * r, Missing * m, RtpccTime now)
{
  r->stats.gave_up++;
  if (m->nacks == 0)
    r->stats.gave_up_unnacked++;
  /* a key frame asked for after this loss was seen repairs it too: the
   * other losses of one burst, given up one frame deadline after another,
   * make no second request */
  if (r->last_request == RTPCC_TIME_NONE || m->detected > r->last_request)
    mark_broken (r, now);
}

/* Missing seqs highest+1 .. ext−1, revealed at @now by a packet of
 * timestamp @ts. The first is the frame's of the highest packet unless
 * that one ended its frame. When the gap spans a change of timestamp the
 * others may be that frame's tail or the next frame's head: they get the
 * later frame's deadline, so that a burst across a frame boundary is not
 * given up (with its retransmissions on the way) one frame early. */
static void
add_gap (RtpccRepair * r, RtpccTime now, gint64 ext, guint32 ts)
{
  gint64 gap = ext - r->highest - 1;
  guint32 first_ts = r->highest_marker ? ts : r->highest_ts;
  RtpccTime deadline[2], wait = reorder_wait (r, now);
  RtpccTime window = fec_window (r, now);
  RtpccTime answer = rtpcc_repair_current_rtt (r) + r->config.nack_margin;

  if (gap <= 0)
    return;
  if (r->missing->len + gap > r->config.max_missing) {
    r->stats.overflows++;
    g_array_set_size (r->missing, 0);
    mark_broken (r, now);
    return;
  }
  for (guint i = 0; i < 2; i++) {
    guint32 lost_ts = i == 0 ? first_ts : ts;
    deadline[i] = r->have_ts ? deadline_of (r, now, unwrap_ts (r, lost_ts)) :
        RTPCC_TIME_NONE;
    /* no timing yet (the gap is revealed by an RTX or FEC packet before
     * any original): only the playout delay is known */
    if (deadline[i] == RTPCC_TIME_NONE)
      deadline[i] = now + r->config.playout_delay;
  }
  for (gint64 s = r->highest + 1; s < ext; s++) {
    Missing m = { 0, };

    m.ext = s;
    m.detected = now;
    m.lost_at = now + wait;
    m.deadline = deadline[s == r->highest + 1 ? 0 : 1];
    m.fec_until = RTPCC_TIME_NONE;
    /* wait only if what FEC leaves can still be NACKed in time */
    if (window > 0 && now + window + answer < m.deadline)
      m.fec_until = now + window;
    m.last_nack = RTPCC_TIME_NONE;
    g_array_append_val (r->missing, m);
  }
}

static void
start_stream (RtpccRepair * r, guint32 ssrc, guint16 seq, guint32 ts,
    gboolean marker)
{
  r->started = TRUE;
  r->ssrc = ssrc;
  /* far from 0 so that packets before the first never go negative */
  r->highest = (G_GINT64_CONSTANT (1) << 32) + seq;
  r->highest_ts = ts;
  r->highest_marker = marker;
  r->have_bad_seq = FALSE;
  r->tail_at = RTPCC_TIME_NONE;
  r->highest_at = RTPCC_TIME_NONE;
}

static void
repaired (RtpccRepair * r, RtpccTime now, guint index,
    RtpccRepairSource source)
{
  Missing *m = &g_array_index (r->missing, Missing, index);

  switch (source) {
    case RTPCC_REPAIR_RTX:
      r->stats.recovered_rtx++;
      /* Karn: only an answer to a single NACK is a clean sample */
      if (m->nacks == 1) {
        /* at least 1 ns: 0 means "no sample" */
        RtpccTime sample = MAX (now - m->last_nack, 1);

        r->srtt = r->srtt == 0 ? sample : r->srtt + (sample - r->srtt) / 8;
      }
      break;
    case RTPCC_REPAIR_FEC:
      r->stats.recovered_fec++;
      break;
    case RTPCC_REPAIR_ORIGINAL:
      if (now < m->lost_at)
        r->stats.reordered++;
      else
        r->stats.late_originals++;
      rtpcc_window_extreme_add (&r->reorder, now, MIN (now - m->detected,
              r->config.reorder_max), TRUE);
      break;
  }
  g_array_remove_index (r->missing, index);
}

guint
rtpcc_repair_get_missing (RtpccRepair * r, guint16 * seqs, guint max)
{
  guint n = MIN (max, r->missing->len);

  for (guint i = 0; i < n; i++)
    seqs[i] = (guint16) g_array_index (r->missing, Missing, i).ext;
  return n;
}

gboolean
rtpcc_repair_on_recovered_elsewhere (RtpccRepair * r, RtpccTime now,
    guint16 seq)
{
  guint index;

  if (!r->started
      || !rtpcc_repair_find_missing (r, rtpcc_repair_ext_of (r, seq), &index))
    return FALSE;
  r->last_now = now;
  r->stats.recovered_elsewhere++;
  g_array_remove_index (r->missing, index);
  return TRUE;
}

void
rtpcc_repair_on_packet (RtpccRepair * repair, RtpccTime now, guint32 ssrc,
    guint16 seq, guint32 rtp_ts, gboolean marker, RtpccRepairSource source)
{
  RtpccRepair *r = repair;
  gint32 delta;
  gint64 ext;
  guint index;

  r->last_now = now;
  if (r->started && ssrc != r->ssrc) {
    reset_stream (r);
    r->stats.ssrc_changes++;
  }
  r->stats.packets++;
  if (!r->started) {
    start_stream (r, ssrc, seq, rtp_ts, marker);
    if (source == RTPCC_REPAIR_ORIGINAL)
      learn_transit (r, now, rtp_ts);
    return;
  }

  ext = rtpcc_repair_ext_of (r, seq);
  delta = (gint32) (ext - r->highest);
  if (delta <= 0 && rtpcc_repair_find_missing (r, ext, &index)) {
    repaired (r, now, index, source);
    return;
  }
  if (ABS (delta) > RTPCC_RTP_MAX_DROPOUT) {
    /* RFC 3550 A.1: a big jump is a restart only if the next packet
     * follows it; retransmissions never confirm one */
    if (source == RTPCC_REPAIR_ORIGINAL && r->have_bad_seq
        && seq == r->bad_seq) {
      r->stats.restarts++;
      g_array_set_size (r->missing, 0);
      r->have_ts = FALSE;
      rtpcc_window_extreme_reset (&r->transit);
      start_stream (r, ssrc, seq, rtp_ts, marker);
      learn_transit (r, now, rtp_ts);
    } else if (source == RTPCC_REPAIR_ORIGINAL) {
      r->have_bad_seq = TRUE;
      r->bad_seq = (guint16) (seq + 1);
    }
    return;
  }
  r->have_bad_seq = FALSE;
  if (delta <= 0) {
    r->stats.duplicates++;
    return;
  }
  /* learn this packet's transit first: the gap's deadline uses it */
  if (source == RTPCC_REPAIR_ORIGINAL) {
    learn_transit (r, now, rtp_ts);
    r->arrival_ext[ext % ARRIVALS] = ext;
    r->arrival_at[ext % ARRIVALS] = now;
  }
  add_gap (r, now, ext, rtp_ts);
  /* the spacing of a frame's packets, for the tail probe */
  if (source == RTPCC_REPAIR_ORIGINAL && delta == 1 && !r->highest_marker
      && rtp_ts == r->highest_ts && r->highest_at != RTPCC_TIME_NONE)
    rtpcc_window_extreme_add (&r->intra_gap, now, now - r->highest_at, TRUE);
  r->highest = ext;
  r->highest_ts = rtp_ts;
  r->highest_marker = marker;
  r->tail_at = RTPCC_TIME_NONE;
  r->highest_at = RTPCC_TIME_NONE;
  if (source == RTPCC_REPAIR_ORIGINAL) {
    r->highest_at = now;
    if (r->config.tail_probe && !marker)
      r->tail_at = now + tail_wait (r, now);
  }
}

void
rtpcc_repair_on_padding (RtpccRepair * repair, RtpccTime now, guint32 ssrc,
    guint16 seq, guint32 rtp_ts)
{
  rtpcc_repair_on_packet (repair, now, ssrc, seq, rtp_ts, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  /* a padding packet ends no frame and starts none: nothing follows it */
  repair->tail_at = RTPCC_TIME_NONE;
}

/* The tail probe: a frame whose marker has not come, and after whose
 * latest packet nothing arrived for tail_wait, lost its next packet. */
static void
tail_probe (RtpccRepair * r, RtpccTime now)
{
  Missing *m;

  if (r->tail_at == RTPCC_TIME_NONE || now < r->tail_at)
    return;
  r->tail_at = RTPCC_TIME_NONE;
  add_gap (r, now, r->highest + 2, r->highest_ts);
  if (r->missing->len == 0)
    return;                     /* overflow */
  m = &g_array_index (r->missing, Missing, r->missing->len - 1);
  m->lost_at = now;             /* waited already */
  r->highest++;
  /* whether the probed packet ended the frame is unknown: the next gap's
   * first loss may be the next frame's (the later deadline) */
  r->highest_marker = TRUE;
  r->stats.tail_probes++;
}

void
rtpcc_repair_on_keyframe (RtpccRepair * repair, RtpccTime now,
    guint16 first_seq)
{
  RtpccRepair *r = repair;
  guint older = 0;
  gint64 first;

  r->last_now = now;
  r->stats.keyframes++;
  r->broken = FALSE;
  r->request_pending = FALSE;
  if (!r->started)
    return;
  first = rtpcc_repair_ext_of (r, first_seq);
  while (older < r->missing->len
      && g_array_index (r->missing, Missing, older).ext < first)
    older++;
  g_array_remove_range (r->missing, 0, older);
}

void
rtpcc_repair_on_corrupt (RtpccRepair * repair, RtpccTime now)
{
  repair->last_now = now;
  repair->stats.corrupt_reports++;
  mark_broken (repair, now);
}

void
rtpcc_repair_set_rtt (RtpccRepair * repair, RtpccTime rtt)
{
  if (rtt == RTPCC_TIME_NONE || rtt > 0)
    repair->rtt_set = rtt;
}

void
rtpcc_repair_set_playout_delay (RtpccRepair * repair, RtpccTime delay)
{
  if (delay >= 0)
    repair->config.playout_delay = delay;
}

void
rtpcc_repair_set_fec_window (RtpccRepair * repair, RtpccTime window)
{
  if (window >= 0)
    repair->config.fec_window = window;
}

/* ---- decisions ---------------------------------------------------------- */

/* Applies the rules to @m at @now. Returns FALSE if @m is done (given
 * up); sets *@nack if it is to be NACKed now. */
static gboolean
decide (RtpccRepair * r, Missing * m, RtpccTime now, gboolean * nack)
{
  RtpccTime rtt = rtpcc_repair_current_rtt (r), answer = rtt + r->config.nack_margin;
  gboolean in_time;

  *nack = FALSE;
  if (now < m->lost_at)
    return TRUE;
  if (!m->declared) {
    m->declared = TRUE;
    r->stats.losses++;
    if (m->fec_ok || m->fec_until != RTPCC_TIME_NONE)
      r->stats.fec_waits++;
  }
  if (now >= m->deadline) {
    if (m->fec_ok && r->config.fec_downstream)
      r->stats.fec_left++;      /* its rebuild is not ours to see */
    else
      give_up (r, m, now);
    return FALSE;
  }
  if (m->fec_ok)
    return TRUE;
  if (m->fec_until != RTPCC_TIME_NONE) {
    if (now < m->fec_until)
      return TRUE;
    m->fec_until = RTPCC_TIME_NONE;     /* FEC did not come */
  }
  in_time = now + answer < m->deadline;
  if (m->nacks == 0) {
    if (in_time && m->nacks < r->config.max_nacks) {
      *nack = TRUE;
      return TRUE;
    }
    give_up (r, m, now);
    return FALSE;
  }
  if (!m->no_more_nacks && now >= m->last_nack + answer) {
    if (in_time && m->nacks < r->config.max_nacks)
      *nack = TRUE;
    else
      m->no_more_nacks = TRUE;  /* wait for the deadline */
  }
  return TRUE;
}

/* When decide() next changes something for @m. */
static RtpccTime
next_event (const RtpccRepair * r, const Missing * m)
{
  RtpccTime answer = rtpcc_repair_current_rtt (r) + r->config.nack_margin;

  if (!m->declared)
    return m->lost_at;
  if (m->fec_ok)
    return m->deadline;
  if (m->fec_until != RTPCC_TIME_NONE)
    return MIN (m->fec_until, m->deadline);
  if (m->nacks == 0)
    return m->lost_at;          /* left over by a full poll: due now */
  if (!m->no_more_nacks)
    return MIN (m->last_nack + answer, m->deadline);
  return m->deadline;
}

gboolean
rtpcc_repair_poll (RtpccRepair * repair, RtpccTime now,
    RtpccRepairRequest * out)
{
  RtpccRepair *r = repair;
  guint w = 0;

  memset (out, 0, sizeof (*out));
  out->ssrc = r->ssrc;
  r->last_now = now;
  tail_probe (r, now);
  if (r->n_blocks > 0 && r->missing->len > 0)
    rtpcc_repair_settle_fec (r, now);

  for (guint i = 0; i < r->missing->len; i++) {
    Missing m = g_array_index (r->missing, Missing, i);
    gboolean nack;

    if (out->n_nack < RTPCC_REPAIR_MAX_NACK || m.nacks > 0
        || now < m.lost_at) {
      if (!decide (r, &m, now, &nack))
        continue;               /* given up: dropped */
      if (nack && out->n_nack < RTPCC_REPAIR_MAX_NACK) {
        out->nack[out->n_nack++] = (guint16) m.ext;
        if (m.nacks > 0)
          r->stats.retries++;
        m.nacks++;
        m.last_nack = now;
      }
    }
    g_array_index (r->missing, Missing, w++) = m;
  }
  g_array_set_size (r->missing, w);
  if (out->n_nack > 0) {
    r->stats.nack_requests++;
    r->stats.nacked += out->n_nack;
  }

  if (r->broken && r->request_pending
      && r->request_repeats >= r->config.max_keyframe_repeats
      && now >= r->last_request + keyframe_interval (r)) {
    /* the sender does not answer: stop until the next breakage */
    r->stats.keyframe_unanswered++;
    r->broken = FALSE;
    r->request_pending = FALSE;
  }
  if (r->broken && (r->last_request == RTPCC_TIME_NONE
          || now >= r->last_request + keyframe_interval (r))) {
    r->request_repeats = r->request_pending ? r->request_repeats + 1 : 0;
    out->keyframe = TRUE;
    out->keyframe_repeat = r->request_pending;
    if (!r->request_pending)
      r->fir_seq++;
    out->fir_seq = r->fir_seq;
    r->last_request = now;
    r->stats.keyframe_requests++;
    if (out->keyframe_repeat)
      r->stats.keyframe_repeats++;
    if (r->config.keyframe_feedback)
      r->request_pending = TRUE;
    else
      r->broken = FALSE;
  }
  return out->n_nack > 0 || out->keyframe;
}

RtpccTime
rtpcc_repair_next_timeout (RtpccRepair * repair)
{
  RtpccRepair *r = repair;
  RtpccTime t = RTPCC_TIME_INFINITE;

  for (guint i = 0; i < r->missing->len; i++)
    t = MIN (t, next_event (r, &g_array_index (r->missing, Missing, i)));
  if (r->tail_at != RTPCC_TIME_NONE)
    t = MIN (t, r->tail_at);
  if (r->broken)
    t = MIN (t, r->last_request == RTPCC_TIME_NONE ? r->broken_since :
        r->last_request + keyframe_interval (r));
  return t;
}

void
rtpcc_repair_get_stats (RtpccRepair * repair, RtpccRepairStats * stats)
{
  *stats = repair->stats;
  stats->missing = repair->missing->len;
  stats->rtt = rtpcc_repair_current_rtt (repair);
  stats->repair_rtt = repair->srtt;
  stats->reorder_wait = reorder_wait (repair, repair->last_now);
  stats->fec_window = fec_window (repair, repair->last_now);
}

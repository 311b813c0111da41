/* The multipath sender's scheduler; see sched.h for the rules.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sched.h"

#include <math.h>
#include <string.h>

/* before a path's first feedback its gap is unknown: wait this long */
#define FIRST_FEEDBACK_TIMEOUT RTPCC_SEC (1)
/* a feedback gap longer than this is an outage, not the feedback rate */
#define GAP_CAP RTPCC_SEC (1)
/* feedbacks remembered for the delivery rate, and its span */
#define DELIVERY_RING 16
#define DELIVERY_SPAN RTPCC_MSEC (200)
/* latency used for ordering while a path has no RTT yet */
#define UNKNOWN_LATENCY RTPCC_MSEC (1)

typedef struct
{
  guint64 rate;
  RtpccMprtpPathClass klass;
  guint mild_run;
  gdouble share;
  gboolean ever_active, active, failed;
  RtpccTime failed_at;
  guint feedbacks_since_failure;
  RtpccTime srtt, last_feedback, last_progress;
  gdouble gap;                  /* mean feedback gap, ns; < 0 unknown */
  RtpccTime first_unanswered;   /* first send after the last progress */
  gdouble vt;                   /* fair-queueing finish tag, ns at rate */
  guint64 allowed;
  guint64 packets, bytes, keyframe_packets, rtx_packets;
  guint failures;
  guint64 cap;                  /* collapse cap, 0 = none */
  guint64 ramp, ramp_step;      /* re-admission ramp, 0 = none */
  guint collapses, parks;
  RtpccTime drain_until;        /* after a collapse: nothing until then */
  RtpccTime parked_until;       /* congested in recovery: passive until */
  RtpccTime probed_at;          /* last duplicate sent on it while unused */
  guint64 probes;
  /* packets reported received by the recent feedbacks (a ring) */
  RtpccTime fb_at[DELIVERY_RING];
  guint64 fb_received[DELIVERY_RING];
  guint fb_head;
  /* the previous subflow report, to turn cumulative counts into intervals */
  gboolean have_report;
  guint32 prev_ext_high;
  gint32 prev_cum_lost;
  guint32 prev_discards;
} Path;

struct _RtpccMprtpSched
{
  RtpccMprtpSchedConfig config;
  guint n;
  Path path[RTPCC_MPRTP_MAX_PATHS];
  RtpccMprtpCouple *couple;
  guint64 encoder_rate;
  gdouble vstart;               /* start tag of the last packet picked */
};

const gchar *
rtpcc_mprtp_path_class_name (RtpccMprtpPathClass klass)
{
  switch (klass) {
    case RTPCC_MPRTP_CLASS_NON_CONGESTED:
      return "non-congested";
    case RTPCC_MPRTP_CLASS_LOSSY:
      return "lossy";
    case RTPCC_MPRTP_CLASS_MILDLY_CONGESTED:
      return "mildly-congested";
    case RTPCC_MPRTP_CLASS_CONGESTED:
      return "congested";
  }
  return "unknown";
}

const gchar *
rtpcc_mprtp_path_state_name (RtpccMprtpPathState state)
{
  switch (state) {
    case RTPCC_MPRTP_PATH_ACTIVE:
      return "active";
    case RTPCC_MPRTP_PATH_PASSIVE:
      return "passive";
    case RTPCC_MPRTP_PATH_FAILED:
      return "failed";
  }
  return "unknown";
}

void
rtpcc_mprtp_sched_config_init (RtpccMprtpSchedConfig * config)
{
  config->latency_bound = RTPCC_MSEC (500);
  config->playout_margin = RTPCC_MSEC (100);
  config->similar_latency = RTPCC_MSEC (50);
  config->media_max = 0;
  config->congested_intervals = 3;
  config->lossy_share = 0.75;
  config->mild_share = 0.5;
  config->congested_share = 0.25;
  config->handback_step = 0.1;
  config->readmit_share = 0.1;
  config->readmit_feedbacks = 2;
  config->failure_min = RTPCC_MSEC (200);
  config->failure_gaps = 2;
  config->collapse_ratio = 0.5;
  config->collapse_min_rate = 200000;
  config->collapse_queue = RTPCC_MSEC (50);
  config->park_time = RTPCC_SEC (10);
  config->probe_interval = RTPCC_SEC (1);
  rtpcc_mprtp_couple_config_init (&config->couple);
}

static gboolean
share_ok (gdouble v)
{
  return v > 0.0 && v <= 1.0;
}

RtpccMprtpSched *
rtpcc_mprtp_sched_new (const RtpccMprtpSchedConfig * config, guint n_paths,
    RtpccTime now, GError ** error)
{
  RtpccMprtpSched *s;

  (void) now;
  if (n_paths == 0 || n_paths > RTPCC_MPRTP_MAX_PATHS) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "mprtp: %u paths (1..%u)", n_paths, RTPCC_MPRTP_MAX_PATHS);
    return NULL;
  }
  if (config->latency_bound <= 0 || config->playout_margin < 0
      || config->similar_latency < 0 || config->congested_intervals == 0
      || !share_ok (config->lossy_share) || !share_ok (config->mild_share)
      || !share_ok (config->congested_share)
      || !share_ok (config->handback_step)
      || !share_ok (config->readmit_share) || config->failure_min <= 0
      || config->failure_gaps == 0 || config->park_time <= 0
      || !(config->collapse_ratio >= 0.0)
      || config->collapse_ratio >= 1.0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "mprtp: scheduler configuration out of range");
    return NULL;
  }
  s = g_new0 (RtpccMprtpSched, 1);
  s->config = *config;
  s->n = n_paths;
  s->couple = rtpcc_mprtp_couple_new (&config->couple, n_paths);
  if (s->couple == NULL) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "mprtp: coupling configuration out of range");
    g_free (s);
    return NULL;
  }
  for (guint i = 0; i < n_paths; i++) {
    Path *p = &s->path[i];

    p->share = 1.0;
    p->active = TRUE;
    p->failed_at = RTPCC_TIME_NONE;
    p->srtt = p->last_feedback = p->last_progress = RTPCC_TIME_NONE;
    p->first_unanswered = RTPCC_TIME_NONE;
    p->drain_until = RTPCC_TIME_NONE;
    p->parked_until = RTPCC_TIME_NONE;
    p->probed_at = RTPCC_TIME_NONE;
    for (guint k = 0; k < DELIVERY_RING; k++)
      p->fb_at[k] = RTPCC_TIME_NONE;
    p->gap = -1.0;
  }
  return s;
}

void
rtpcc_mprtp_sched_free (RtpccMprtpSched * s)
{
  if (s == NULL)
    return;
  rtpcc_mprtp_couple_free (s->couple);
  g_free (s);
}

guint
rtpcc_mprtp_sched_n_paths (const RtpccMprtpSched * s)
{
  return s->n;
}

RtpccMprtpCouple *
rtpcc_mprtp_sched_get_couple (RtpccMprtpSched * s)
{
  return s->couple;
}

static gdouble
class_share (const RtpccMprtpSched * s, RtpccMprtpPathClass k)
{
  switch (k) {
    case RTPCC_MPRTP_CLASS_LOSSY:
      return s->config.lossy_share;
    case RTPCC_MPRTP_CLASS_MILDLY_CONGESTED:
      return s->config.mild_share;
    case RTPCC_MPRTP_CLASS_CONGESTED:
      return s->config.congested_share;
    case RTPCC_MPRTP_CLASS_NON_CONGESTED:
      break;
  }
  return 1.0;
}

static RtpccTime
latency_of (const Path * p)
{
  return p->srtt == RTPCC_TIME_NONE ? RTPCC_TIME_NONE : p->srtt / 2;
}

static RtpccTime
order_latency (const Path * p)
{
  RtpccTime l = latency_of (p);
  return l == RTPCC_TIME_NONE || l < UNKNOWN_LATENCY ? UNKNOWN_LATENCY : l;
}

/* The active set (sched.h: latency bound, latency groups ordered by
 * capacity/latency, taken until the requirement is met). */
static void
select_active (RtpccMprtpSched * s, RtpccTime now)
{
  guint idx[RTPCC_MPRTP_MAX_PATHS], n = 0;
  guint64 taken = 0;

  for (guint i = 0; i < s->n; i++) {
    Path *p = &s->path[i];
    RtpccTime l = latency_of (p);

    p->active = FALSE;
    if (p->parked_until != RTPCC_TIME_NONE && now >= p->parked_until)
      p->parked_until = RTPCC_TIME_NONE;
    if (p->failed || p->parked_until != RTPCC_TIME_NONE)
      continue;
    if (l == RTPCC_TIME_NONE) {
      /* nothing known against it yet: used, but not counted on */
      p->active = TRUE;
      continue;
    }
    if (l + s->config.playout_margin > s->config.latency_bound)
      continue;
    idx[n++] = i;
  }
  /* by latency (insertion sort: n <= 16), then groups of similar latency */
  for (guint a = 1; a < n; a++) {
    guint v = idx[a], b = a;
    while (b > 0 && latency_of (&s->path[idx[b - 1]]) >
        latency_of (&s->path[v])) {
      idx[b] = idx[b - 1];
      b--;
    }
    idx[b] = v;
  }
  {
    guint start[RTPCC_MPRTP_MAX_PATHS], len[RTPCC_MPRTP_MAX_PATHS];
    gdouble score[RTPCC_MPRTP_MAX_PATHS];
    guint64 cap[RTPCC_MPRTP_MAX_PATHS];
    gboolean used[RTPCC_MPRTP_MAX_PATHS] = { FALSE };
    guint ng = 0;

    for (guint a = 0; a < n;) {
      RtpccTime first = latency_of (&s->path[idx[a]]);
      gdouble lat = 0.0;
      guint b = a;

      cap[ng] = 0;
      while (b < n && latency_of (&s->path[idx[b]]) - first <=
          s->config.similar_latency) {
        cap[ng] += s->path[idx[b]].rate;
        lat += (gdouble) order_latency (&s->path[idx[b]]);
        b++;
      }
      start[ng] = a;
      len[ng] = b - a;
      score[ng] = (gdouble) cap[ng] / (lat / len[ng]);
      ng++;
      a = b;
    }
    for (guint k = 0; k < ng; k++) {
      gint best = -1;

      if (s->config.media_max > 0 && taken >= s->config.media_max)
        break;
      for (guint g = 0; g < ng; g++) {
        if (!used[g] && (best < 0 || score[g] > score[best]))
          best = (gint) g;
      }
      used[best] = TRUE;
      taken += cap[best];
      for (guint m = 0; m < len[best]; m++)
        s->path[idx[start[best] + m]].active = TRUE;
    }
  }
}

/* Starts a re-admitted path at readmit_share of its rate; on_interval
 * grows it by handback_step of that rate (or of the rate then): an
 * absolute ramp, so the path's controller (which may not claim much more
 * than it receives) grows with it instead of shrinking to what it is let
 * through. */
static void
start_ramp (RtpccMprtpSched * s, Path * p)
{
  p->ramp = MAX ((guint64) (s->config.readmit_share * (gdouble) p->rate), 1);
  p->ramp_step = MAX ((guint64) (s->config.handback_step * (gdouble)
          p->rate), 1);
}

/* A requirement @total below what the paths allow is spread by the
 * allowed rates weighted with the class shares (water-filling: no path
 * above what it allows), so lossy and congested paths carry less. */
static void
spread (const RtpccMprtpSched * s, guint64 * allowed, guint64 total)
{
  gboolean full[RTPCC_MPRTP_MAX_PATHS] = { FALSE };
  gdouble left = (gdouble) total;

  for (guint round = 0; round < s->n; round++) {
    gdouble w = 0.0, lambda;
    gboolean again = FALSE;

    for (guint i = 0; i < s->n; i++)
      if (!full[i])
        w += (gdouble) allowed[i] * s->path[i].share;
    if (w <= 0.0)
      break;
    lambda = left / w;
    for (guint i = 0; i < s->n; i++) {
      if (!full[i] && lambda * s->path[i].share >= 1.0) {
        /* this path would get all it allows: fill it, spread the rest */
        full[i] = TRUE;
        left -= (gdouble) allowed[i];
        again = TRUE;
      }
    }
    if (again)
      continue;
    for (guint i = 0; i < s->n; i++)
      if (!full[i])
        allowed[i] = (guint64) llround (lambda * (gdouble) allowed[i] *
            s->path[i].share);
    break;
  }
}

static void
recompute (RtpccMprtpSched * s, RtpccTime now)
{
  guint64 in[RTPCC_MPRTP_MAX_PATHS], allowed[RTPCC_MPRTP_MAX_PATHS];
  guint64 total;

  if (s->n == 1) {
    s->path[0].allowed = s->path[0].rate;
    s->encoder_rate = s->path[0].rate;
    return;
  }
  {
    gboolean before[RTPCC_MPRTP_MAX_PATHS];

    for (guint i = 0; i < s->n; i++)
      before[i] = s->path[i].active;
    select_active (s, now);
    for (guint i = 0; i < s->n; i++) {
      Path *p = &s->path[i];
      guint64 r = p->rate;

      /* a path that comes back (latency bound) starts small, like a
       * re-admitted one; paths active from the start start whole */
      if (p->active && !before[i] && p->ever_active)
        start_ramp (s, p);
      if (p->active)
        p->ever_active = TRUE;
      /* the controller caught up with a cap or a ramp: it is its own */
      if (p->cap && p->rate <= p->cap)
        p->cap = 0;
      if (p->ramp && p->rate <= p->ramp)
        p->ramp = 0;
      if (p->drain_until != RTPCC_TIME_NONE && now >= p->drain_until)
        p->drain_until = RTPCC_TIME_NONE;
      if (p->cap)
        r = MIN (r, p->cap);
      if (p->ramp)
        r = MIN (r, p->ramp);
      in[i] = p->active && p->drain_until == RTPCC_TIME_NONE ? r : 0;
    }
  }
  total = rtpcc_mprtp_couple_compute (s->couple, now, in, allowed);
  if (total == 0) {
    /* nothing usable: never stop the media; the best live path, else any
     * path with a rate, carries its controller's rate */
    gint best = -1;

    for (guint i = 0; i < s->n; i++) {
      Path *p = &s->path[i];
      if (p->rate == 0)
        continue;
      if (best < 0 || (s->path[best].failed && !p->failed))
        best = (gint) i;
    }
    if (best >= 0) {
      allowed[best] = s->path[best].rate;
      total = allowed[best];
    }
  }
  if (s->config.media_max > 0 && total > s->config.media_max) {
    spread (s, allowed, s->config.media_max);
    total = s->config.media_max;
  }
  for (guint i = 0; i < s->n; i++)
    s->path[i].allowed = allowed[i];
  s->encoder_rate = total;
}

void
rtpcc_mprtp_sched_set_rate (RtpccMprtpSched * s, guint path, RtpccTime now,
    guint64 rate)
{
  if (path >= s->n)
    return;
  s->path[path].rate = rate;
  recompute (s, now);
}

/* What the path delivered over the last DELIVERY_SPAN, bit/s, from the
 * packets its feedbacks reported received (times their mean size), or -1
 * while the feedbacks remembered do not cover the span. Updated at every
 * feedback, unlike the endpoints' tumbling rate windows. */
static gdouble
delivered_rate (const Path * p, RtpccTime now)
{
  guint64 pkts = 0;
  gboolean covered = FALSE;

  if (p->packets == 0)
    return -1.0;
  for (guint k = 0; k < DELIVERY_RING; k++) {
    RtpccTime at = p->fb_at[k];
    if (at == RTPCC_TIME_NONE)
      continue;
    if (now - at >= DELIVERY_SPAN)
      covered = TRUE;
    else
      pkts += p->fb_received[k];
  }
  if (!covered)
    return -1.0;
  return (gdouble) pkts * ((gdouble) p->bytes / p->packets) * 8.0 /
      RTPCC_TIME_AS_SEC (DELIVERY_SPAN);
}

/* Capacity collapse (sched.h): a queue and a delivery ratio. */
#define COLLAPSE_MIN_REPORTS 8

static void
collapse_check (RtpccMprtpSched * s, Path * p, RtpccTime now,
    const RtpccMprtpFeedbackInfo * info)
{
  gdouble ratio = s->config.collapse_ratio, est = -1.0, sent, got;
  guint64 reported = info->reported_received + info->reported_lost;

  /* Once capped, the ramp and the path's controller take it from there:
   * what it delivers now measures our own reduced sending, not it; nor
   * does a path we stopped using say anything. */
  if (p->cap || !p->active || p->allowed == 0
      || info->queue_delay == RTPCC_TIME_NONE
      || info->queue_delay < s->config.collapse_queue)
    return;
  sent = info->send_rate > 0 ? (gdouble) info->send_rate :
      (gdouble) p->allowed;
  got = delivered_rate (p, now);
  {
    /* A path that stalled for a moment (a delay step) reads as a
     * collapse over the window that holds the stall; but its feedback
     * then resumes at the usual pace, reporting the usual number of
     * packets. So what the last three feedbacks report, over the time
     * they took (each gap counted at most as the mean gap: a stall is not
     * a rate), must be low too. */
    gdouble pkts = 0.0, span = 0.0;

    for (guint j = 1; j <= 3; j++) {
      guint cur = (p->fb_head + DELIVERY_RING - j) % DELIVERY_RING;
      guint prev = (p->fb_head + DELIVERY_RING - j - 1) % DELIVERY_RING;
      gdouble d;

      if (p->fb_at[prev] == RTPCC_TIME_NONE)
        break;
      d = (gdouble) (p->fb_at[cur] - p->fb_at[prev]);
      if (p->gap > 0 && d > p->gap)
        d = p->gap;
      pkts += (gdouble) p->fb_received[cur];
      span += d;
    }
    if (got >= 0 && span > 0 && pkts * ((gdouble) p->bytes / p->packets) *
        8.0 / (span / 1e9) >= ratio * sent)
      got = -1.0;
  }
  if (info->receive_rate > 0 && got >= 0
      && (gdouble) info->receive_rate < got)
    got = (gdouble) info->receive_rate;
  if (sent >= (gdouble) s->config.collapse_min_rate && got >= 0
      && got < ratio * sent)
    est = got;
  if (reported >= COLLAPSE_MIN_REPORTS && p->allowed > 0
      && (gdouble) info->reported_received < ratio * (gdouble) reported) {
    gdouble e = (gdouble) p->allowed * info->reported_received / reported;
    est = est < 0 ? e : MIN (est, e);
  }
  if (est < 0)
    return;
  /* The estimate lags (rate windows, losses declared after later
   * arrivals): send nothing for a round trip while the queue drains, then
   * come back as a re-admitted path does, never above the estimate. */
  p->collapses++;
  p->drain_until = now + MAX (p->srtt != RTPCC_TIME_NONE ? p->srtt : 0,
      s->config.failure_min);
  start_ramp (s, p);
  p->cap = MAX ((guint64) est, p->ramp);
}

void
rtpcc_mprtp_sched_on_feedback (RtpccMprtpSched * s, guint path,
    RtpccTime now, const RtpccMprtpFeedbackInfo * info)
{
  Path *p;

  if (path >= s->n || info == NULL)
    return;
  p = &s->path[path];
  if (p->last_feedback != RTPCC_TIME_NONE) {
    gdouble gap = (gdouble) MIN (now - p->last_feedback, GAP_CAP);
    p->gap = p->gap < 0 ? gap : 0.875 * p->gap + 0.125 * gap;
  }
  p->last_feedback = now;
  if (info->srtt != RTPCC_TIME_NONE)
    p->srtt = info->srtt;
  p->fb_at[p->fb_head] = now;
  p->fb_received[p->fb_head] = info->reported_received;
  p->fb_head = (p->fb_head + 1) % DELIVERY_RING;
  collapse_check (s, p, now, info);
  if (info->progress) {
    p->last_progress = now;
    p->first_unanswered = RTPCC_TIME_NONE;
    /* only a report about media says something about the queue now */
    if (info->queue_delay != RTPCC_TIME_NONE)
      rtpcc_mprtp_couple_add_delay (s->couple, path, now, info->queue_delay);
  }
  if (p->failed) {
    p->feedbacks_since_failure++;
    if (p->feedbacks_since_failure >= s->config.readmit_feedbacks) {
      p->failed = FALSE;
      p->failed_at = RTPCC_TIME_NONE;
      start_ramp (s, p);
      p->first_unanswered = RTPCC_TIME_NONE;
    }
  }
  recompute (s, now);
}

void
rtpcc_mprtp_sched_on_interval (RtpccMprtpSched * s, guint path,
    RtpccTime now, guint64 expected, guint64 lost, guint64 discarded)
{
  Path *p;
  gdouble target;

  if (path >= s->n || expected == 0)
    return;
  p = &s->path[path];
  if (lost > 0 && discarded > 0) {
    p->mild_run++;
    p->klass = p->mild_run >= s->config.congested_intervals ?
        RTPCC_MPRTP_CLASS_CONGESTED : RTPCC_MPRTP_CLASS_MILDLY_CONGESTED;
  } else if (lost > 0) {
    p->mild_run = 0;
    p->klass = RTPCC_MPRTP_CLASS_LOSSY;
  } else {
    /* no loss: discards alone are the receiver's playout catching up
     * with a path's delay (a skew it has not learnt yet), not congestion */
    p->mild_run = 0;
    p->klass = RTPCC_MPRTP_CLASS_NON_CONGESTED;
  }
  if (p->klass == RTPCC_MPRTP_CLASS_NON_CONGESTED && p->cap) {
    p->cap += (guint64) (s->config.handback_step * (gdouble) p->rate);
    if (p->cap >= p->rate)
      p->cap = 0;
  }
  /* still congested while recovering from a collapse or a failure (a
   * path that cannot carry even what its controller's floor asks):
   * passive for a while, then re-admitted as after a failure */
  if (p->klass == RTPCC_MPRTP_CLASS_CONGESTED && (p->cap || p->ramp)
      && p->parked_until == RTPCC_TIME_NONE) {
    p->parked_until = now + s->config.park_time;
    p->parks++;
  }
  if (p->klass <= RTPCC_MPRTP_CLASS_LOSSY && p->ramp) {
    /* by a tenth of the rate it came back with, or of the controller's
     * rate now if that grew meanwhile */
    p->ramp += MAX (p->ramp_step, (guint64) (s->config.handback_step *
            (gdouble) p->rate));
    if (p->ramp >= p->rate)
      p->ramp = 0;
  }
  target = class_share (s, p->klass);
  /* taken at once, handed back a step per interval */
  if (target < p->share)
    p->share = target;
  else
    p->share = MIN (target, p->share + s->config.handback_step);
  recompute (s, now);
}

gboolean
rtpcc_mprtp_sched_on_report (RtpccMprtpSched * s, guint path, RtpccTime now,
    const RtpccMprtpSubflowReport * r)
{
  Path *p;
  gint64 expected, lost, discarded = 0;

  if (path >= s->n || r == NULL)
    return FALSE;
  p = &s->path[path];
  if (!p->have_report) {
    p->have_report = TRUE;
    p->prev_ext_high = r->rr.ext_highest_seq;
    p->prev_cum_lost = r->rr.cumulative_lost;
    p->prev_discards = r->has_discards ? r->discards : 0;
    return TRUE;
  }
  expected = (gint32) (r->rr.ext_highest_seq - p->prev_ext_high);
  if (expected < 0)
    return FALSE;
  lost = (gint64) r->rr.cumulative_lost - p->prev_cum_lost;
  if (r->has_discards)
    discarded = (gint32) (r->discards - p->prev_discards);
  p->prev_ext_high = r->rr.ext_highest_seq;
  p->prev_cum_lost = r->rr.cumulative_lost;
  if (r->has_discards)
    p->prev_discards = r->discards;
  /* duplicates can make the loss negative (RFC 3550 A.3): no loss */
  rtpcc_mprtp_sched_on_interval (s, path, now, (guint64) expected,
      (guint64) MAX (lost, 0), (guint64) MAX (discarded, 0));
  return TRUE;
}

static RtpccTime
deadline (const RtpccMprtpSched * s, const Path * p)
{
  RtpccTime wait;

  if (p->failed || p->first_unanswered == RTPCC_TIME_NONE)
    return RTPCC_TIME_NONE;
  if (p->gap < 0)
    wait = MAX (s->config.failure_min, FIRST_FEEDBACK_TIMEOUT);
  else
    wait = MAX (s->config.failure_min,
        (RtpccTime) (s->config.failure_gaps * p->gap));
  if (p->srtt != RTPCC_TIME_NONE)
    wait += p->srtt;
  return p->first_unanswered + wait;
}

void
rtpcc_mprtp_sched_tick (RtpccMprtpSched * s, RtpccTime now)
{
  gboolean changed = FALSE;

  if (s->n == 1)
    return;
  for (guint i = 0; i < s->n; i++) {
    Path *p = &s->path[i];
    RtpccTime d = deadline (s, p);

    if ((p->drain_until != RTPCC_TIME_NONE && now >= p->drain_until)
        || (p->parked_until != RTPCC_TIME_NONE && now >= p->parked_until))
      changed = TRUE;           /* recompute ends the drain or the park */
    if (d != RTPCC_TIME_NONE && now >= d) {
      p->failed = TRUE;
      p->failed_at = now;
      p->failures++;
      p->feedbacks_since_failure = 0;
      p->first_unanswered = RTPCC_TIME_NONE;
      changed = TRUE;
    }
  }
  if (changed)
    recompute (s, now);
}

RtpccTime
rtpcc_mprtp_sched_next_timeout (RtpccMprtpSched * s)
{
  RtpccTime t = RTPCC_TIME_NONE;

  if (s->n == 1)
    return t;
  for (guint i = 0; i < s->n; i++) {
    RtpccTime d = deadline (s, &s->path[i]);
    if (d != RTPCC_TIME_NONE && (t == RTPCC_TIME_NONE || d < t))
      t = d;
    d = s->path[i].drain_until;
    if (d != RTPCC_TIME_NONE && (t == RTPCC_TIME_NONE || d < t))
      t = d;
    d = s->path[i].parked_until;
    if (d != RTPCC_TIME_NONE && (t == RTPCC_TIME_NONE || d < t))
      t = d;
  }
  return t;
}

/* The split weight of path @i: its allowed rate, or without any rate yet
 * an equal share for every live path. */
static guint64
weight (const RtpccMprtpSched * s, guint i, gboolean any)
{
  if (any)
    return s->path[i].allowed;
  return s->path[i].failed ? 0 : 1000000;
}

/* TRUE if @a is a better path than @b for key frames: the lower class,
 * then the higher capacity/latency. */
static gboolean
better (const RtpccMprtpSched * s, guint a, guint b)
{
  const Path *x = &s->path[a], *y = &s->path[b];

  if (x->klass != y->klass)
    return x->klass < y->klass;
  return (gdouble) x->allowed / (gdouble) order_latency (x) >
      (gdouble) y->allowed / (gdouble) order_latency (y);
}

static gint
best_path (const RtpccMprtpSched * s, gboolean by_rtt)
{
  gint best = -1;

  for (guint i = 0; i < s->n; i++) {
    const Path *p = &s->path[i];

    if (p->allowed == 0)
      continue;
    if (best < 0) {
      best = (gint) i;
      continue;
    }
    if (by_rtt) {
      RtpccTime a = p->srtt, b = s->path[best].srtt;
      if (a != b) {
        if (b == RTPCC_TIME_NONE || (a != RTPCC_TIME_NONE && a < b))
          best = (gint) i;
        continue;
      }
    }
    if (better (s, i, (guint) best))
      best = (gint) i;
  }
  return best;
}

/* Start-time fair queueing over the allowed rates (Goyal et al., SFQ): a
 * path's tag advances by size/rate per packet it takes; a packet goes to
 * the path with the smallest start tag, a tag being never below the last
 * packet's start, so a path that idled (passive, or under its share) gets
 * no credit for it. */
static gdouble
service (guint size, guint64 w)
{
  return (gdouble) size * 8.0 * 1e9 / (gdouble) w;
}

guint
rtpcc_mprtp_sched_pick (RtpccMprtpSched * s, RtpccTime now, guint size,
    RtpccMprtpPacketFlags flags)
{
  gint pick = -1;
  gboolean any = FALSE;
  Path *p;

  if (s->n > 1) {
    for (guint i = 0; i < s->n; i++)
      any |= s->path[i].allowed > 0;
    if (any && (flags & RTPCC_MPRTP_PACKET_RETRANSMISSION))
      pick = best_path (s, TRUE);
    else if (any && (flags & RTPCC_MPRTP_PACKET_KEYFRAME))
      pick = best_path (s, FALSE);
    if (pick < 0) {
      gdouble best_start = G_MAXDOUBLE, best_finish = G_MAXDOUBLE;

      /* the smallest start tag; among equal ones the earliest finish */
      for (guint i = 0; i < s->n; i++) {
        guint64 w = weight (s, i, any);
        gdouble start, finish;

        if (w == 0)
          continue;
        start = MAX (s->path[i].vt, s->vstart);
        finish = start + service (size, w);
        if (start < best_start || (start == best_start
                && finish < best_finish)) {
          best_start = start;
          best_finish = finish;
          pick = (gint) i;
        }
      }
    }
    if (pick < 0)
      pick = 0;                 /* every path failed and none has a rate */
    p = &s->path[pick];
    {
      guint64 w = weight (s, (guint) pick, any);
      gdouble start = MAX (p->vt, s->vstart);

      /* a key frame or retransmission is charged to its path but does
       * not move the others' clock */
      if (!(flags & (RTPCC_MPRTP_PACKET_KEYFRAME |
                  RTPCC_MPRTP_PACKET_RETRANSMISSION)))
        s->vstart = start;
      p->vt = start + service (size, w ? w : 1000000);
    }
  } else {
    p = &s->path[0];
  }

  p->packets++;
  p->bytes += size;
  if (flags & RTPCC_MPRTP_PACKET_KEYFRAME)
    p->keyframe_packets++;
  if (flags & RTPCC_MPRTP_PACKET_RETRANSMISSION)
    p->rtx_packets++;
  if (p->first_unanswered == RTPCC_TIME_NONE)
    p->first_unanswered = now;
  return (guint) (p - s->path);
}

gint
rtpcc_mprtp_sched_probe (RtpccMprtpSched * s, RtpccTime now)
{
  if (s->n == 1 || s->config.probe_interval <= 0)
    return -1;
  for (guint i = 0; i < s->n; i++) {
    Path *p = &s->path[i];

    if (p->allowed > 0)
      continue;
    if (p->probed_at == RTPCC_TIME_NONE
        || now - p->probed_at >= s->config.probe_interval) {
      p->probed_at = now;
      p->probes++;
      return (gint) i;
    }
  }
  return -1;
}

guint64
rtpcc_mprtp_sched_get_encoder_rate (const RtpccMprtpSched * s)
{
  return s->encoder_rate;
}

gboolean
rtpcc_mprtp_sched_get_path (const RtpccMprtpSched * s, guint path,
    RtpccMprtpPathInfo * info)
{
  const Path *p;

  if (path >= s->n || info == NULL)
    return FALSE;
  p = &s->path[path];
  memset (info, 0, sizeof (*info));
  info->state = p->failed ? RTPCC_MPRTP_PATH_FAILED : (p->active || s->n == 1)
      ? RTPCC_MPRTP_PATH_ACTIVE : RTPCC_MPRTP_PATH_PASSIVE;
  info->klass = p->klass;
  info->congested_run = p->mild_run;
  info->share = p->share;
  info->rate = p->rate;
  info->allowed = p->allowed;
  info->srtt = p->srtt;
  info->latency = latency_of (p);
  info->last_feedback = p->last_feedback;
  info->feedback_gap = p->gap < 0 ? RTPCC_TIME_NONE : (RtpccTime) p->gap;
  info->failed_at = p->failed_at;
  info->packets = p->packets;
  info->bytes = p->bytes;
  info->keyframe_packets = p->keyframe_packets;
  info->rtx_packets = p->rtx_packets;
  info->failures = p->failures;
  info->cap = p->cap;
  info->ramp = p->ramp;
  info->collapses = p->collapses;
  info->parks = p->parks;
  info->probes = p->probes;
  return TRUE;
}

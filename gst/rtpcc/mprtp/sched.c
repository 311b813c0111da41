/* The multipath sender's scheduler: what each path may carry, from its
 * feedback, reports and failures (sched.h has the rules; pick.c places
 * the packets).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "schedpriv.h"
#include <rtpcc/mprtp/latencygroups.h>

#include <math.h>
#include <string.h>

/* before a path's first feedback its gap is unknown: wait this long */
#define FIRST_FEEDBACK_TIMEOUT RTPCC_SEC (1)
/* a feedback gap longer than this is an outage, not the feedback rate */
#define GAP_CAP RTPCC_SEC (1)
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
  config->rtx_margin = RTPCC_MSEC (20);
  config->rtx_margin_ratio = 0.2;
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
      || config->collapse_ratio >= 1.0 || config->rtx_margin < 0
      || !(config->rtx_margin_ratio >= 0.0)
      || config->rtx_margin_ratio >= 1.0) {
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

    rtpcc_mprtp_classifier_init (&p->cls);
    p->active = TRUE;
    p->failed_at = RTPCC_TIME_NONE;
    p->srtt = p->last_feedback = p->last_progress = RTPCC_TIME_NONE;
    p->first_unanswered = RTPCC_TIME_NONE;
    p->drain_until = RTPCC_TIME_NONE;
    p->parked_until = RTPCC_TIME_NONE;
    p->probed_at = RTPCC_TIME_NONE;
    p->rtx_via = -1;
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

/* The active set (sched.h): the live paths within the latency bound, then
 * the latency groups (latencygroups.h) taken until the requirement is
 * met; a path without an RTT yet is used but not counted on. */
static void
select_active (RtpccMprtpSched * s, RtpccTime now)
{
  guint idx[RTPCC_MPRTP_MAX_PATHS], n = 0;
  RtpccTime lat[RTPCC_MPRTP_MAX_PATHS] = { 0 };
  guint64 rate[RTPCC_MPRTP_MAX_PATHS] = { 0 };
  gboolean take[RTPCC_MPRTP_MAX_PATHS] = { FALSE };

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
    lat[n] = l;
    rate[n] = p->rate;
    idx[n++] = i;
  }
  rtpcc_mprtp_latency_groups_select (lat, rate, n, s->config.similar_latency,
      s->config.media_max, take);
  for (guint k = 0; k < n; k++)
    if (take[k])
      s->path[idx[k]].active = TRUE;
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
        w += (gdouble) allowed[i] * s->path[i].cls.share;
    if (w <= 0.0)
      break;
    lambda = left / w;
    for (guint i = 0; i < s->n; i++) {
      if (!full[i] && lambda * s->path[i].cls.share >= 1.0) {
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
            s->path[i].cls.share);
    break;
  }
}

static void
recompute (RtpccMprtpSched * s, RtpccTime now)
{
  guint64 in[RTPCC_MPRTP_MAX_PATHS], allowed[RTPCC_MPRTP_MAX_PATHS];
  guint64 total;

  if (s->n == 1) {
    /* a single-path call: the controller's rate, under the requirement
     * like any call's */
    total = s->path[0].rate;
    if (s->config.media_max > 0)
      total = MIN (total, s->config.media_max);
    s->path[0].allowed = total;
    s->encoder_rate = total;
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

gboolean
rtpcc_mprtp_sched_set_limits (RtpccMprtpSched * s, RtpccTime now,
    guint64 media_max, RtpccTime latency_bound, RtpccTime probe_interval)
{
  if (latency_bound <= 0 || probe_interval < 0)
    return FALSE;
  s->config.media_max = media_max;
  s->config.latency_bound = latency_bound;
  s->config.probe_interval = probe_interval;
  recompute (s, now);
  return TRUE;
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
  RtpccMprtpPathClass klass;

  if (path >= s->n || expected == 0)
    return;
  p = &s->path[path];
  klass = rtpcc_mprtp_classifier_classify (&p->cls, lost, discarded,
      s->config.congested_intervals);
  if (klass == RTPCC_MPRTP_CLASS_NON_CONGESTED && p->cap) {
    p->cap += (guint64) (s->config.handback_step * (gdouble) p->rate);
    if (p->cap >= p->rate)
      p->cap = 0;
  }
  /* still congested while recovering from a collapse or a failure (a
   * path that cannot carry even what its controller's floor asks):
   * passive for a while, then re-admitted as after a failure */
  if (klass == RTPCC_MPRTP_CLASS_CONGESTED && (p->cap || p->ramp)
      && p->parked_until == RTPCC_TIME_NONE) {
    p->parked_until = now + s->config.park_time;
    p->parks++;
  }
  if (klass <= RTPCC_MPRTP_CLASS_LOSSY && p->ramp) {
    /* by a tenth of the rate it came back with, or of the controller's
     * rate now if that grew meanwhile */
    p->ramp += MAX (p->ramp_step, (guint64) (s->config.handback_step *
            (gdouble) p->rate));
    if (p->ramp >= p->rate)
      p->ramp = 0;
  }
  rtpcc_mprtp_classifier_approach (&p->cls, class_share (s, klass),
      s->config.handback_step);
  recompute (s, now);
}

gboolean
rtpcc_mprtp_sched_on_report (RtpccMprtpSched * s, guint path, RtpccTime now,
    const RtpccMprtpSubflowReport * r)
{
  guint64 expected, lost, discarded;

  if (path >= s->n || r == NULL
      || !rtpcc_mprtp_classifier_interval (&s->path[path].cls, r, &expected,
          &lost, &discarded))
    return FALSE;
  /* nothing expected (the first report): no interval */
  rtpcc_mprtp_sched_on_interval (s, path, now, expected, lost, discarded);
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

gboolean
rtpcc_mprtp_sched_take_losses (RtpccMprtpSched * s)
{
  gboolean lost = FALSE;

  for (guint i = 0; i < s->n; i++) {
    Path *p = &s->path[i];

    if (p->failures > p->seen_failures || p->collapses > p->seen_collapses)
      lost = TRUE;
    p->seen_failures = p->failures;
    p->seen_collapses = p->collapses;
  }
  return lost;
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
  info->klass = p->cls.klass;
  info->congested_run = p->cls.mild_run;
  memcpy (info->intervals, p->cls.intervals, sizeof info->intervals);
  info->share = p->cls.share;
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
  info->rtx_in = p->rtx_in;
  info->rtx_out = p->rtx_out;
  info->failures = p->failures;
  info->cap = p->cap;
  info->ramp = p->ramp;
  info->collapses = p->collapses;
  info->parks = p->parks;
  info->probes = p->probes;
  return TRUE;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* FBRA (MMSys 2014, Sub-algorithms 1a–1d): see fbra.h and docs/fbra.md. */
#include <rtpcc/cc/fbra.h>
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/params.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_START 128000    /* the FBRA paper's start rate */
#define RTT_SAMPLES 9           /* RTT_median window */
#define IV_SAMPLES 9            /* regular-report interval window */
#define MIN_IVS 3               /* before early detection is armed */
#define OWD_CAP 256             /* hard cap on the OWD history */
#define RATE_CAP 64             /* 2 s rate history entries */
/* loss/discard times kept per report (counts go on beyond): a report
 * interval at video rates has far fewer packets */
#define EVENT_CAP 65536

typedef struct
{
  RtpccTime t;
  gdouble rate;
} RateSample;

typedef struct
{
  RtpccTime t;
  RtpccTime owd;
} OwdSample;

typedef struct
{
  RtpccController parent;
  RtpccFbraParams p;

  RtpccFbraState state, previous;
  gdouble media;                /* bit/s */
  gdouble fec;                  /* bit/s asked of FEC, 0 off */
  guint n;                      /* FEC interval */
  gboolean guard_waited;        /* near-max guard: one STAY interval spent */
  gboolean rc_disabled, bounce_pending;
  gdouble stored_goodput;
  gdouble initial_goodput;
  /* the goodput of the last report free of losses and discards, and what
   * of it an outage keeps for the first clean report after it */
  gdouble clean_goodput, outage_goodput;
  RtpccTime outage_back;        /* first report with packets after it */
  RtpccTime last_news;          /* last report with packets or losses in it */
  /* RR blocks seen (highest sequence number and cumulative loss per SSRC),
   * and whether the current report's moved: with RR + XR feedback an RR is
   * the only sign that packets arrived */
  struct
  {
    guint32 ssrc, ext_highest_seq;
    gint32 cumulative_lost;
  } rr_seen[4];
  guint n_rr_seen;
  gboolean rr_progress;

  /* FEC actually sent during the current PROBE */
  RtpccTime probe_start;
  guint64 probe_fec_bytes;
  gdouble measured_fec;

  /* report arrivals */
  RtpccTime last_rr, last_report;       /* last RR; last RR or timeout */
  RtpccTime pending_rr;         /* an RR at this instant awaits evaluation */
  gboolean pending_early;
  RtpccTime ivs[IV_SAMPLES];
  guint n_ivs, iv_pos;
  RtpccTime rtts[RTT_SAMPLES];
  guint n_rtts, rtt_pos;
  RtpccTime min_rtt;

  /* per-packet feedback since the last evaluation (media only) */
  guint64 agg_bytes, agg_recv_bytes, agg_discard_bytes, agg_fec_bytes;
  guint agg_received, agg_lost, agg_discards;
  RtpccTime agg_first_send, agg_last_send;
  gdouble agg_owd_sum;
  guint agg_owd_n;
  GArray *agg_loss_times, *agg_discard_times;   /* send times */
  RtpccTime min_rel_owd;        /* arrival − send on the mapped timeline */
  /* the one-way delay an RTCP XR Delay Metrics block (RFC 6843) gave for
   * this report: half the receiver's mean round trip, or NONE */
  RtpccTime xr_owd;

  OwdSample owd[OWD_CAP];
  guint n_owd, owd_head;        /* ring: oldest at owd_head */
  RateSample rates[RATE_CAP];
  guint n_rates, rate_head;

  /* last evaluation, for the snapshot */
  gdouble corr_low, corr_high, p_low_owd, p_high_owd, last_owd_ms;
  gdouble last_goodput, last_send_rate;
  guint64 evaluations, reports, ignored, early, timeouts, undershoots,
      bounce_backs, ups, fec_packets, fec_bytes, losses_total, discards_total,
      outage_recalls;
  /* FEC episodes (a PROBE entered until it is left) and how they ended:
   * the paper's FRCC counts */
  guint64 fec_episodes, fec_raised, fec_kept, fec_down;
  const gchar *last_action;
} Fbra;

#define FBRA(cc) ((Fbra *) (cc))

/* ---- helpers ------------------------------------------------------------ */

static RtpccTime
median_time (const RtpccTime * v, guint n)
{
  RtpccTime s[MAX (RTT_SAMPLES, IV_SAMPLES)];

  if (n == 0)
    return RTPCC_TIME_NONE;
  memcpy (s, v, n * sizeof (RtpccTime));
  /* insertion sort: n ≤ 9 */
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && s[j - 1] > s[j]; j--) {
      RtpccTime t = s[j];
      s[j] = s[j - 1];
      s[j - 1] = t;
    }
  return s[n / 2];
}

static void
add_rtt (Fbra * f, RtpccTime rtt)
{
  if (rtt == RTPCC_TIME_NONE || rtt <= 0)
    return;
  f->rtts[f->rtt_pos] = rtt;
  f->rtt_pos = (f->rtt_pos + 1) % RTT_SAMPLES;
  if (f->n_rtts < RTT_SAMPLES)
    f->n_rtts++;
  if (f->min_rtt == RTPCC_TIME_NONE || rtt < f->min_rtt)
    f->min_rtt = rtt;
}

static void
owd_expire (Fbra * f, RtpccTime now)
{
  guint cap = (guint) CLAMP (f->p.owd_samples, 1, OWD_CAP);
  RtpccTime age = (RtpccTime) (f->p.owd_age * RTPCC_NSEC_PER_SEC);

  while (f->n_owd > 0 && (f->n_owd > cap
          || now - f->owd[f->owd_head].t > age)) {
    f->owd_head = (f->owd_head + 1) % OWD_CAP;
    f->n_owd--;
  }
}

static void
owd_push (Fbra * f, RtpccTime now, RtpccTime owd)
{
  if (f->n_owd == OWD_CAP) {
    f->owd_head = (f->owd_head + 1) % OWD_CAP;
    f->n_owd--;
  }
  f->owd[(f->owd_head + f->n_owd) % OWD_CAP].t = now;
  f->owd[(f->owd_head + f->n_owd) % OWD_CAP].owd = owd;
  f->n_owd++;
  owd_expire (f, now);
}

static void
rate_push (Fbra * f, RtpccTime now, gdouble rate)
{
  RtpccTime win = (RtpccTime) (f->p.rate_history * RTPCC_NSEC_PER_SEC);

  while (f->n_rates > 0 && (f->n_rates == RATE_CAP
          || now - f->rates[f->rate_head].t > win)) {
    f->rate_head = (f->rate_head + 1) % RATE_CAP;
    f->n_rates--;
  }
  f->rates[(f->rate_head + f->n_rates) % RATE_CAP].t = now;
  f->rates[(f->rate_head + f->n_rates) % RATE_CAP].rate = rate;
  f->n_rates++;
}

static gdouble
rate_max (Fbra * f, RtpccTime now)
{
  RtpccTime win = (RtpccTime) (f->p.rate_history * RTPCC_NSEC_PER_SEC);
  gdouble m = 0;

  for (guint i = 0; i < f->n_rates; i++) {
    const RateSample *s = &f->rates[(f->rate_head + i) % RATE_CAP];
    if (now - s->t <= win)
      m = MAX (m, s->rate);
  }
  return m;
}

static void
publish (Fbra * f, const gchar * reason)
{
  RtpccController *cc = &f->parent;
  gdouble lo = (gdouble) cc->config.min_bitrate;
  gdouble hi = (gdouble) cc->config.max_bitrate;

  f->media = CLAMP (f->media, lo, hi);
  if (f->fec > 0 && f->media + f->fec > hi)
    f->fec = MAX (0.0, hi - f->media);
  rtpcc_controller_update_target (cc, (guint64) (f->media + f->fec + 0.5),
      (guint64) (f->fec + 0.5), f->p.pacing_factor,
      rtpcc_fbra_state_name (f->state), reason);
  /* update_target clamps target ≥ min; media = target − fec */
  f->last_action = reason;
}

static void
fec_off (Fbra * f)
{
  f->fec = 0;
}

static void
fec_on (Fbra * f, RtpccTime now)
{
  f->n = rtpcc_fbra_fec_interval (&f->p, f->media, rate_max (f, now),
      f->initial_goodput);
  f->fec = f->media / f->n;
  f->probe_start = now;
  f->probe_fec_bytes = 0;
}

static void
undershoot (Fbra * f, const RtpccFbraReport * r, gboolean disable_rc)
{
  gdouble send = r->send_rate > 0 ? r->send_rate : f->media;
  gdouble good = r->goodput > 0 ? r->goodput : send;

  f->stored_goodput = good;
  f->media = rtpcc_fbra_undershoot (&f->p, send, good,
      (gdouble) f->parent.config.min_bitrate);
  /* the undershoot lowers from what is actually sent; never above the
   * target in force */
  f->media = MIN (f->media, f->parent.target.media_bitrate);
  fec_off (f);
  f->undershoots++;
  if (disable_rc)
    f->rc_disabled = TRUE;
}

/* Every state change; it also counts the FEC episodes for the paper's
 * FEC Rate-Control Correctness (FRCC): FEC is on from entering PROBE until
 * PROBE is left, and it was used correctly when that was to UP (the FEC
 * rate became media) or STAY (kept), wrongly when to DOWN. */
static void
go (Fbra * f, RtpccFbraState next)
{
  if (next == RTPCC_FBRA_PROBE && f->state != RTPCC_FBRA_PROBE)
    f->fec_episodes++;
  else if (f->state == RTPCC_FBRA_PROBE && next != RTPCC_FBRA_PROBE) {
    if (next == RTPCC_FBRA_UP)
      f->fec_raised++;
    else if (next == RTPCC_FBRA_DOWN)
      f->fec_down++;
    else
      f->fec_kept++;
  }
  f->previous = f->state;
  f->state = next;
}

/* A link that delivers nothing is out, not congested: the paper's goodput
 * would read its capacity as zero and the ramp would start over from the
 * floor at one FEC step per probe cycle. Keep what the last clean report
 * measured instead. */
static void
outage_mark (Fbra * f)
{
  if (f->p.outage_recall >= 0.5 && f->outage_goodput <= 0
      && f->clean_goodput > 0) {
    f->outage_goodput = f->clean_goodput;
    f->outage_back = RTPCC_TIME_NONE;
  }
}

/* After an outage, the first reports with packets in them still carry the
 * outage's losses and the late arrivals queued behind it; the first clean
 * one bounces back to bounce_back × the pre-outage goodput (the paper's
 * bounce-back, with the goodput the outage hid). A link that is not clean
 * within the feedback timeout of its return is left to the ordinary
 * rules. */
static const gchar *
outage_recall (Fbra * f, RtpccTime now, const RtpccFbraReport * r)
{
  gdouble g = f->outage_goodput;

  if (g <= 0)
    return NULL;
  if (f->outage_back == RTPCC_TIME_NONE)
    f->outage_back = now;
  if (r->losses > 0 || r->discards > 0 || f->corr_high > f->p.alpha_stay) {
    if (now - f->outage_back >
        (RtpccTime) (f->p.feedback_timeout * RTPCC_NSEC_PER_SEC))
      f->outage_goodput = 0;
    return NULL;
  }
  f->outage_goodput = 0;
  f->media = MAX (f->media, f->p.bounce_back * g);
  fec_off (f);
  f->bounce_pending = FALSE;
  f->outage_recalls++;
  go (f, RTPCC_FBRA_STAY);
  return "outage-recall";
}

/* The feedback timeout (the paper's, like RFC 8083's media timeout): the
 * outage keeps its goodput, the rate halves, DOWN. */
static void
timeout_halve (Fbra * f)
{
  outage_mark (f);
  f->media /= 2;
  fec_off (f);
  f->rc_disabled = f->bounce_pending = FALSE;
  go (f, RTPCC_FBRA_DOWN);
  f->timeouts++;
}

/* A report in which nothing arrived, nothing was lost and nothing was
 * discarded says nothing about the path: no state advances on it (the
 * paper's rules would probe and go UP on an empty report). If nothing has
 * been heard of the media for the feedback timeout, halve as a missing
 * report would. */
static const gchar *
no_delivery (Fbra * f, RtpccTime now)
{
  RtpccTime to = (RtpccTime) (f->p.feedback_timeout * RTPCC_NSEC_PER_SEC);

  if (f->last_news != RTPCC_TIME_NONE && now - f->last_news >= to) {
    timeout_halve (f);
    f->last_news = now;
    return "no-delivery-timeout";
  }
  outage_mark (f);
  return "no-delivery-hold";
}

/* ---- the state functions (Sub-algorithms 1a–1d) --------------------------- */

static const gchar *
eval_down (Fbra * f, const RtpccFbraReport * r)
{
  gboolean recent = r->recent_losses > 0 || r->recent_discards > 0;

  if (recent) {
    if (f->previous == RTPCC_FBRA_DOWN) {
      if (f->p.down_to_stay >= 0.5) {
        go (f, RTPCC_FBRA_STAY);
        return "down-persist-stay";
      }
      go (f, RTPCC_FBRA_DOWN);
      return "down-persist-hold";
    }
    if (r->discards > 0 && r->losses == 0) {
      undershoot (f, r, FALSE);
      go (f, RTPCC_FBRA_DOWN);
      return "down-discards-undershoot";
    }
    undershoot (f, r, TRUE);
    go (f, RTPCC_FBRA_DOWN);
    return "down-losses-undershoot";
  }
  if (f->corr_high > f->p.alpha_undershoot) {
    undershoot (f, r, TRUE);
    go (f, RTPCC_FBRA_DOWN);
    return "down-owd-undershoot";
  }
  go (f, RTPCC_FBRA_STAY);
  return "down-clear";
}

static const gchar *
eval_stay (Fbra * f, RtpccTime now, const RtpccFbraReport * r)
{
  if (r->losses > 0) {
    fec_off (f);
    if (r->recent_losses > 0) {
      undershoot (f, r, TRUE);
      go (f, RTPCC_FBRA_DOWN);
      return "stay-recent-losses";
    }
    go (f, RTPCC_FBRA_STAY);
    return "stay-old-losses";
  }
  if (r->recent_discards > 0) {
    undershoot (f, r, TRUE);
    go (f, RTPCC_FBRA_DOWN);
    return "stay-recent-discards";
  }
  if (f->corr_high > f->p.alpha_stay) {
    if (f->previous == RTPCC_FBRA_STAY && f->state == RTPCC_FBRA_STAY) {
      undershoot (f, r, TRUE);
      go (f, RTPCC_FBRA_DOWN);
      return "stay-owd-undershoot";
    }
    go (f, RTPCC_FBRA_STAY);
    return "stay-owd-hold";
  }
  /* text-only rule (X3): near the 2 s maximum, wait one more interval */
  if (!f->guard_waited && f->media > f->p.near_max * rate_max (f, now)) {
    f->guard_waited = TRUE;
    go (f, RTPCC_FBRA_STAY);
    return "stay-near-max";
  }
  f->guard_waited = FALSE;
  fec_on (f, now);
  go (f, RTPCC_FBRA_PROBE);
  return "stay-probe";
}

static const gchar *
eval_probe (Fbra * f, RtpccTime now, const RtpccFbraReport * r)
{
  if (r->recent_losses > 0 || r->recent_discards > 0) {
    undershoot (f, r, TRUE);
    go (f, RTPCC_FBRA_DOWN);
    return "probe-recent-congestion";
  }
  if (r->losses > 0 || r->discards > 0) {
    fec_off (f);
    go (f, RTPCC_FBRA_STAY);
    return "probe-old-congestion";
  }
  if (f->corr_high > f->p.alpha_down_probe) {
    undershoot (f, r, TRUE);
    go (f, RTPCC_FBRA_DOWN);
    return "probe-owd-down";
  }
  if (f->corr_high > f->p.alpha_stay) {
    fec_off (f);
    go (f, RTPCC_FBRA_STAY);
    return "probe-owd-stay";
  }
  if (f->corr_low > f->p.beta) {
    f->n = (guint) MIN (f->n + f->p.fec_step, f->p.fec_max);
    f->fec = f->media / f->n;
    go (f, RTPCC_FBRA_PROBE);
    return "probe-less-fec";
  }
  {
    RtpccTime el = now - f->probe_start;
    /* the FEC rate measured over the finished PROBE (on-wire bytes);
     * without any FEC seen (nothing produced it) the probe proved nothing
     * and the nominal rate stands in, flagged in the reason */
    if (el > 0 && f->probe_fec_bytes > 0) {
      f->measured_fec = f->probe_fec_bytes * 8.0 / RTPCC_TIME_AS_SEC (el);
      f->media += f->measured_fec;
      fec_off (f);
      f->ups++;
      go (f, RTPCC_FBRA_UP);
      return "probe-up";
    }
    f->measured_fec = 0;
    f->media += f->fec;
    fec_off (f);
    f->ups++;
    go (f, RTPCC_FBRA_UP);
    return "probe-up-nominal";
  }
}

static const gchar *
eval_up (Fbra * f, const RtpccFbraReport * r)
{
  /* X2: "Recent Losses ∨ Discards" read as recent discards too */
  if (r->recent_losses > 0 || r->recent_discards > 0
      || f->corr_high > f->p.alpha_down_up) {
    undershoot (f, r, TRUE);
    go (f, RTPCC_FBRA_DOWN);
    return "up-down";
  }
  fec_off (f);
  go (f, RTPCC_FBRA_STAY);
  return "up-stay";
}

static void
compute_corr (Fbra * f, const RtpccFbraReport * r, RtpccTime now)
{
  gdouble v[OWD_CAP];

  owd_expire (f, now);
  f->corr_low = f->corr_high = 1.0;
  f->p_low_owd = f->p_high_owd = 0;
  f->last_owd_ms = r->owd != RTPCC_TIME_NONE ? RTPCC_TIME_AS_MSEC (r->owd) :
      NAN;
  if (f->n_owd < (guint) MAX (1.0, f->p.owd_min_samples)
      || r->owd == RTPCC_TIME_NONE)
    return;
  for (guint i = 0; i < f->n_owd; i++)
    v[i] = (gdouble) f->owd[(f->owd_head + i) % OWD_CAP].owd;
  f->p_low_owd = rtpcc_fbra_percentile (v, f->n_owd, f->p.p_low);
  f->p_high_owd = rtpcc_fbra_percentile (v, f->n_owd, f->p.p_high);
  if (f->p_low_owd > 0)
    f->corr_low = r->owd / f->p_low_owd;
  if (f->p_high_owd > 0)
    f->corr_high = r->owd / f->p_high_owd;
  f->p_low_owd /= RTPCC_NSEC_PER_MSEC;
  f->p_high_owd /= RTPCC_NSEC_PER_MSEC;
}

static void
evaluate (Fbra * f, RtpccTime now, const RtpccFbraReport * r, gboolean early)
{
  const gchar *why;

  f->reports++;
  f->last_report = now;
  f->last_goodput = r->goodput;
  f->last_send_rate = r->send_rate;
  if (f->initial_goodput <= 0 && r->goodput > 0)
    f->initial_goodput = r->goodput;
  if (r->received == 0 && r->losses > 0)
    outage_mark (f);
  if (f->last_news == RTPCC_TIME_NONE)
    f->last_news = now;

  if (early) {
    /* an early report means the receiver saw trouble coming (the FBRA
     * paper: RTCP sent before its interval signals congestion) */
    f->early++;
    fec_off (f);
    go (f, RTPCC_FBRA_DOWN);
    f->evaluations++;
    publish (f, "early-report");
    return;
  }
  if (f->rc_disabled) {
    /* deactivation: the next report may still show the old overuse */
    f->rc_disabled = FALSE;
    f->bounce_pending = TRUE;
    f->ignored++;
    f->last_action = "ignored";
    return;
  }

  if (r->received == 0 && r->losses == 0 && r->discards == 0
      && !f->rr_progress) {
    f->evaluations++;
    publish (f, no_delivery (f, now));
    return;
  }
  f->last_news = now;
  compute_corr (f, r, now);
  f->evaluations++;

  if ((why = outage_recall (f, now, r)) != NULL) {
    /* done */
  } else if (f->bounce_pending) {
    gboolean congested = r->recent_losses > 0 || r->recent_discards > 0
        || f->corr_high > f->p.alpha_down_up;
    f->bounce_pending = FALSE;
    if (congested) {
      /* undershoot again, this time without deactivation */
      undershoot (f, r, FALSE);
      go (f, RTPCC_FBRA_DOWN);
      why = "bounce-undershoot";
    } else {
      f->media = MAX (f->media, f->p.bounce_back * f->stored_goodput);
      f->bounce_backs++;
      /* then DOWN's own rule (normally → STAY) */
      (void) eval_down (f, r);
      why = "bounce-back";
    }
  } else {
    switch (f->state) {
      case RTPCC_FBRA_DOWN:
        why = eval_down (f, r);
        break;
      case RTPCC_FBRA_STAY:
        why = eval_stay (f, now, r);
        break;
      case RTPCC_FBRA_PROBE:
        why = eval_probe (f, now, r);
        break;
      case RTPCC_FBRA_UP:
      default:
        why = eval_up (f, r);
        break;
    }
  }

  /* only reports free of losses and discards feed the OWD history, so the
   * thresholds compare against an uncongested path */
  if (r->losses == 0 && r->discards == 0 && r->owd != RTPCC_TIME_NONE)
    owd_push (f, now, r->owd);
  if (r->losses == 0 && r->discards == 0 && r->received > 0
      && r->goodput > 1.0)
    f->clean_goodput = r->goodput;
  publish (f, why);
  /* the rate history (the FEC interval's reference, the near-max guard):
   * only its highest is ever used, so one value per report; with
   * history-all-rates the paper's set (its Sec. 4.2: "all the rates
   * (goodput, sending rate, combined FEC and RTP sending rate) recorded
   * in the last two seconds") besides the rate FBRA set */
  rate_push (f, now, f->p.history_all > 0.5 ? MAX (f->media,
          MAX (r->goodput, r->send_rate + r->fec_rate)) : f->media);
}

/* ---- aggregation of per-packet feedback into one report ------------------ */

static void
agg_reset (Fbra * f)
{
  f->agg_bytes = f->agg_recv_bytes = f->agg_discard_bytes = 0;
  f->agg_fec_bytes = 0;
  f->agg_received = f->agg_lost = f->agg_discards = 0;
  f->agg_first_send = f->agg_last_send = RTPCC_TIME_NONE;
  f->agg_owd_sum = 0;
  f->agg_owd_n = 0;
  f->xr_owd = RTPCC_TIME_NONE;
  f->rr_progress = FALSE;
  g_array_set_size (f->agg_loss_times, 0);
  g_array_set_size (f->agg_discard_times, 0);
}

static void
agg_send_time (Fbra * f, RtpccTime t)
{
  if (f->agg_first_send == RTPCC_TIME_NONE || t < f->agg_first_send)
    f->agg_first_send = t;
  if (f->agg_last_send == RTPCC_TIME_NONE || t > f->agg_last_send)
    f->agg_last_send = t;
}

static void
build_report (Fbra * f, RtpccFbraReport * r)
{
  RtpccTime span, cut;

  memset (r, 0, sizeof (*r));
  r->owd = RTPCC_TIME_NONE;
  r->losses = f->agg_lost;
  r->discards = f->agg_discards;
  r->received = f->agg_received;
  /* "recent": sent in the later part of the interval the report covers */
  span = f->agg_first_send != RTPCC_TIME_NONE ?
      f->agg_last_send - f->agg_first_send : 0;
  cut = f->agg_first_send + (RtpccTime) ((1.0 - f->p.recent) * span);
  for (guint i = 0; i < f->agg_loss_times->len; i++)
    if (g_array_index (f->agg_loss_times, RtpccTime, i) >= cut)
      r->recent_losses++;
  for (guint i = 0; i < f->agg_discard_times->len; i++)
    if (g_array_index (f->agg_discard_times, RtpccTime, i) >= cut)
      r->recent_discards++;
  if (span >= RTPCC_MSEC (50) && f->agg_bytes > 0) {
    gdouble s = RTPCC_TIME_AS_SEC (span);
    guint64 good = f->agg_recv_bytes > f->agg_discard_bytes ?
        f->agg_recv_bytes - f->agg_discard_bytes : 0;
    r->send_rate = f->agg_bytes * 8.0 / s;
    r->goodput = good * 8.0 / s;
    r->fec_rate = f->agg_fec_bytes * 8.0 / s;
    if (r->goodput <= 0)
      r->goodput = 1.0;       /* nothing delivered: "known, and ~0" */
  }
  /* absolute scale: base delay = min RTT / 2, plus the queuing seen as
   * the rise of (arrival − send) above its minimum: the paper's OWD ratio
   * thresholds need a delay with a true zero, which (arrival − send) on
   * unsynchronised clocks lacks */
  if (f->agg_owd_n > 0 && f->min_rtt != RTPCC_TIME_NONE)
    r->owd = f->min_rtt / 2 + (RtpccTime) (f->agg_owd_sum / f->agg_owd_n);
  /* the receiver's own report, as the paper's receiver sends it, wins:
   * with RR + XR feedback it is the only delay there is */
  if (f->xr_owd != RTPCC_TIME_NONE)
    r->owd = f->xr_owd;
}

/* RFC 6843 reports round trips, not one-way delays: over a path the same
 * both ways, half the mean round trip of the interval is its one-way
 * delay, queuing included, with a true zero (what the OWD ratio
 * thresholds need). The minimum feeds the base RTT like any sample. */
static void
fbra_on_xr_delay (RtpccController * cc, RtpccTime now, RtpccTime mean_rtt,
    RtpccTime min_rtt, RtpccTime max_rtt)
{
  Fbra *f = FBRA (cc);

  (void) now;
  (void) max_rtt;
  add_rtt (f, min_rtt);
  if (mean_rtt != RTPCC_TIME_NONE && mean_rtt > 0)
    f->xr_owd = mean_rtt / 2;
}

static void
fbra_on_feedback (RtpccController * cc, RtpccTime now, const RtpccFeedback * fb)
{
  Fbra *f = FBRA (cc);

  (void) now;
  add_rtt (f, fb->rtt_sample);
  for (guint i = 0; i < fb->n_reports; i++) {
    const RtpccPacketReport *p = &fb->reports[i];
    /* FEC/probe packets neither count as losses nor as goodput: they are
     * the probe, not the media the rate describes */
    if (p->is_fec) {
      f->agg_fec_bytes += p->size;
      continue;
    }
    agg_send_time (f, p->send_time);
    f->agg_bytes += p->size;
    if (!p->received) {
      f->agg_lost++;
      f->losses_total++;
      if (f->agg_loss_times->len < EVENT_CAP)
        g_array_append_val (f->agg_loss_times, p->send_time);
      continue;
    }
    f->agg_received++;
    f->agg_recv_bytes += p->size;
    if (p->arrival != RTPCC_TIME_NONE) {
      RtpccTime rel = p->arrival - p->send_time;
      if (f->min_rel_owd == RTPCC_TIME_NONE || rel < f->min_rel_owd)
        f->min_rel_owd = rel;
      f->agg_owd_sum += (gdouble) (rel - f->min_rel_owd);
      f->agg_owd_n++;
    }
  }
}

static void
fbra_on_discards (RtpccController * cc, RtpccTime now,
    const RtpccPacketReport * reports, guint n)
{
  Fbra *f = FBRA (cc);

  (void) now;
  for (guint i = 0; i < n; i++) {
    if (reports[i].is_fec)
      continue;
    f->agg_discards++;
    f->discards_total++;
    f->agg_discard_bytes += reports[i].size;
    agg_send_time (f, reports[i].send_time);
    if (f->agg_discard_times->len < EVENT_CAP)
      g_array_append_val (f->agg_discard_times, reports[i].send_time);
  }
}

static void
schedule (Fbra * f)
{
  RtpccTime to = (RtpccTime) (f->p.feedback_timeout * RTPCC_NSEC_PER_SEC);

  f->parent.next_tick = f->pending_rr != RTPCC_TIME_NONE ? f->pending_rr :
      (f->last_report != RTPCC_TIME_NONE ? f->last_report + to :
      RTPCC_TIME_NONE);
}

static void
fbra_on_receiver_report (RtpccController * cc, RtpccTime now,
    const RtpccReceiverReport * rr)
{
  Fbra *f = FBRA (cc);
  guint i;

  add_rtt (f, rr->rtt);
  for (i = 0; i < f->n_rr_seen && f->rr_seen[i].ssrc != rr->ssrc; i++);
  if (i == f->n_rr_seen && i < G_N_ELEMENTS (f->rr_seen)) {
    f->n_rr_seen++;
    f->rr_seen[i].ssrc = rr->ssrc;
    f->rr_progress = TRUE;
  } else if (i < f->n_rr_seen
      && (f->rr_seen[i].ext_highest_seq != rr->ext_highest_seq
          || f->rr_seen[i].cumulative_lost != rr->cumulative_lost))
    f->rr_progress = TRUE;
  if (i < f->n_rr_seen) {
    f->rr_seen[i].ext_highest_seq = rr->ext_highest_seq;
    f->rr_seen[i].cumulative_lost = rr->cumulative_lost;
  }
  /* one compound carries a block per SSRC (media, FEC, probes): one
   * report, evaluated once its per-packet feedback has been read too */
  if (f->pending_rr == now || f->last_rr == now)
    return;
  f->pending_early = FALSE;
  if (f->last_rr != RTPCC_TIME_NONE) {
    RtpccTime iv = now - f->last_rr;
    RtpccTime rtt_med = median_time (f->rtts, f->n_rtts);
    RtpccTime iv_med = median_time (f->ivs, f->n_ivs);
    if (f->n_ivs >= MIN_IVS && rtt_med != RTPCC_TIME_NONE
        && iv < (RtpccTime) (f->p.early_rtt * rtt_med)
        && iv < (RtpccTime) (f->p.early_interval * iv_med))
      f->pending_early = TRUE;
    else {
      f->ivs[f->iv_pos] = iv;
      f->iv_pos = (f->iv_pos + 1) % IV_SAMPLES;
      if (f->n_ivs < IV_SAMPLES)
        f->n_ivs++;
    }
  }
  f->last_rr = now;
  f->pending_rr = now;
  schedule (f);
}

static void
fbra_on_tick (RtpccController * cc, RtpccTime now)
{
  Fbra *f = FBRA (cc);

  if (f->pending_rr != RTPCC_TIME_NONE && now >= f->pending_rr) {
    RtpccFbraReport r;
    build_report (f, &r);
    f->pending_rr = RTPCC_TIME_NONE;
    evaluate (f, now, &r, f->pending_early);
    f->pending_early = FALSE;
    agg_reset (f);
  } else if (f->last_report != RTPCC_TIME_NONE && now - f->last_report >=
      (RtpccTime) (f->p.feedback_timeout * RTPCC_NSEC_PER_SEC)) {
    /* no report for 2 s (like RFC 8083's media timeout): halve, DOWN */
    timeout_halve (f);
    f->last_report = now;
    /* the next report starts afresh rather than after a silent gap */
    agg_reset (f);
    publish (f, "feedback-timeout");
  }
  schedule (f);
}

static void
fbra_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  Fbra *f = FBRA (cc);

  if (f->last_report == RTPCC_TIME_NONE) {
    /* the feedback timeout runs from the first packet */
    f->last_report = now;
    schedule (f);
  }
  if (pkt->is_fec) {
    f->fec_packets++;
    f->fec_bytes += pkt->size;
    if (f->state == RTPCC_FBRA_PROBE)
      f->probe_fec_bytes += pkt->size;
  }
}

static void
fbra_init (RtpccController * cc, RtpccTime now)
{
  Fbra *f = FBRA (cc);

  (void) now;
  rtpcc_fbra_params_init (&f->p);
  f->state = f->previous = RTPCC_FBRA_STAY;
  f->media = cc->config.start_bitrate ? (gdouble) cc->config.start_bitrate :
      (gdouble) DEFAULT_START;
  f->n = (guint) f->p.fec_max;
  f->last_rr = f->last_report = f->pending_rr = RTPCC_TIME_NONE;
  f->min_rtt = f->min_rel_owd = RTPCC_TIME_NONE;
  f->last_news = RTPCC_TIME_NONE;
  f->probe_start = RTPCC_TIME_NONE;
  f->agg_loss_times = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  f->agg_discard_times = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  agg_reset (f);
  f->corr_low = f->corr_high = 1.0;
  f->last_owd_ms = NAN;
  cc->next_tick = RTPCC_TIME_NONE;
  publish (f, "start");
}

static void
fbra_finalize (RtpccController * cc)
{
  Fbra *f = FBRA (cc);

  g_array_unref (f->agg_loss_times);
  g_array_unref (f->agg_discard_times);
}

#define P(n, field, lo, hi) \
  RTPCC_PARAM_DOUBLE (n, RtpccFbraParams, field, lo, hi, 0)
static const RtpccParamSpec param_specs[] = {
  P ("alpha-stay", alpha_stay, 1.0, 2.0),
  P ("alpha-down-probe", alpha_down_probe, 1.0, 2.0),
  P ("alpha-down-up", alpha_down_up, 1.0, 2.0),
  P ("alpha-undershoot", alpha_undershoot, 1.0, 4.0),
  P ("beta", beta, 1.0, 2.0),
  P ("p-low", p_low, 1.0, 99.0),
  P ("p-high", p_high, 1.0, 99.0),
  P ("near-max", near_max, 0.0, 1.0),
  P ("rate-history", rate_history, 0.1, 60.0),
  P ("history-all-rates", history_all, 0.0, 1.0),
  P ("early-rtt", early_rtt, 0.0, 10.0),
  P ("early-interval", early_interval, 0.0, 1.0),
  P ("feedback-timeout", feedback_timeout, 0.1, 60.0),
  P ("undershoot-k", undershoot_k, 0.1, 1.0),
  P ("undershoot-mult", undershoot_mult, 0.0, 4.0),
  P ("undershoot-floor", undershoot_floor, 0.0, 1.0),
  P ("bounce-back", bounce_back, 0.1, 1.0),
  P ("recent", recent, 0.0, 1.0),
  P ("fec-min", fec_min, 2.0, 64.0),
  P ("fec-max", fec_max, 2.0, 64.0),
  P ("fec-step", fec_step, 1.0, 16.0),
  P ("owd-samples", owd_samples, 1.0, OWD_CAP),
  P ("owd-age", owd_age, 0.1, 600.0),
  P ("owd-min-samples", owd_min_samples, 1.0, OWD_CAP),
  P ("down-persist", down_to_stay, 0.0, 1.0),
  P ("pacing-factor", pacing_factor, 1.0, 4.0),
  P ("report-rtts", report_rtts, 1.0, 20.0),
  P ("report-min", report_min, 0.01, 10.0),
  P ("report-max", report_max, 0.01, 10.0),
  P ("outage-recall", outage_recall, 0.0, 1.0),
};
#undef P

static gboolean
fbra_set_param (RtpccController * cc, const gchar * key, const gchar * value)
{
  Fbra *f = FBRA (cc);
  RtpccFbraParams np = f->p;

  if (!rtpcc_params_set (param_specs, G_N_ELEMENTS (param_specs), &np, key,
          value))
    return FALSE;
  /* keep the pairs ordered */
  if (np.p_low > np.p_high || np.fec_min > np.fec_max
      || np.report_min > np.report_max)
    return FALSE;
  f->p = np;
  return TRUE;
}

/* The paper evaluates once per RR, so its ramp speed is the RR rate: a
 * probe cycle takes 3–4 reports, too slow at RFC 3550's default 1 s. */
static RtpccTime
fbra_report_interval (RtpccController * cc)
{
  Fbra *f = FBRA (cc);

  return rtpcc_fbra_report_interval (&f->p, f->min_rtt);
}

gboolean
rtpcc_fbra_inject_report (RtpccController * cc, RtpccTime now,
    const RtpccFbraReport * report)
{
  Fbra *f;

  g_return_val_if_fail (cc != NULL && report != NULL, FALSE);
  if (cc->ops != &rtpcc_cc_fbra_ops)
    return FALSE;
  f = FBRA (cc);
  evaluate (f, now, report, FALSE);
  schedule (f);
  return TRUE;
}

gboolean
rtpcc_fbra_get_info (RtpccController * cc, RtpccFbraInfo * info)
{
  Fbra *f;

  g_return_val_if_fail (cc != NULL && info != NULL, FALSE);
  if (cc->ops != &rtpcc_cc_fbra_ops)
    return FALSE;
  f = FBRA (cc);
  memset (info, 0, sizeof (*info));
  info->state = f->state;
  info->previous = f->previous;
  info->media_rate = cc->target.media_bitrate;
  info->fec_rate = cc->target.fec_bitrate;
  info->fec_interval = f->n;
  info->rc_disabled = f->rc_disabled;
  info->bounce_pending = f->bounce_pending;
  info->stored_goodput = f->stored_goodput;
  info->corr_low = f->corr_low;
  info->corr_high = f->corr_high;
  info->p_low_owd_ms = f->p_low_owd;
  info->p_high_owd_ms = f->p_high_owd;
  info->owd_history = f->n_owd;
  info->owd_ms = f->last_owd_ms;
  info->last_goodput = f->last_goodput;
  info->last_send_rate = f->last_send_rate;
  info->measured_fec_rate = f->measured_fec;
  info->rtt_median = median_time (f->rtts, f->n_rtts);
  info->evaluations = f->evaluations;
  info->reports = f->reports;
  info->ignored = f->ignored;
  info->early = f->early;
  info->timeouts = f->timeouts;
  info->undershoots = f->undershoots;
  info->bounce_backs = f->bounce_backs;
  info->outage_recalls = f->outage_recalls;
  info->outage_goodput = f->outage_goodput;
  info->ups = f->ups;
  info->fec_episodes = f->fec_episodes;
  info->fec_raised = f->fec_raised;
  info->fec_kept = f->fec_kept;
  info->fec_down = f->fec_down;
  info->fec_packets = f->fec_packets;
  info->fec_bytes = f->fec_bytes;
  info->losses = f->losses_total;
  info->discards = f->discards_total;
  info->last_action = f->last_action;
  info->params = f->p;
  return TRUE;
}

guint
rtpcc_fbra_get_owd_history (RtpccController * cc, RtpccTime * out, guint max)
{
  Fbra *f;
  guint n;

  g_return_val_if_fail (cc != NULL, 0);
  if (cc->ops != &rtpcc_cc_fbra_ops)
    return 0;
  f = FBRA (cc);
  n = MIN (max, f->n_owd);
  for (guint i = 0; i < n; i++)
    out[i] = f->owd[(f->owd_head + i) % OWD_CAP].owd;
  return n;
}

const RtpccControllerOps rtpcc_cc_fbra_ops = {
  .name = "fbra",
  .description = "FEC-based rate adaptation (Nagy et al., MMSys 2014): "
      "STAY/PROBE/UP/DOWN once per RTCP report, FEC as the probe",
  .instance_size = sizeof (Fbra),
  .init = fbra_init,
  .finalize = fbra_finalize,
  .on_packet_sent = fbra_on_packet_sent,
  .on_feedback = fbra_on_feedback,
  .on_receiver_report = fbra_on_receiver_report,
  .on_tick = fbra_on_tick,
  .set_param = fbra_set_param,
  .on_discards = fbra_on_discards,
  .on_xr_delay = fbra_on_xr_delay,
  .report_interval = fbra_report_interval,
};

gdouble
rtpcc_fbra_frcc (const RtpccFbraInfo * info)
{
  guint64 ended = info->fec_raised + info->fec_kept + info->fec_down;

  if (ended == 0)
    return NAN;
  return (gdouble) (info->fec_raised + info->fec_kept) / (gdouble) ended;
}

/* "rr": the RTCP receiver-report baseline, "what people do today" — the
 * default video rate control of linphone / mediastreamer2, reproduced rule
 * for rule from upstream mediastreamer2 at rev 22f54d40 (2012-12-27, the
 * revision the Jero thesis measured, §1.5). It sees only RTCP reception
 * reports (fraction lost, interarrival jitter, RTT from LSR/DLSR);
 * per-packet feedback is ignored.
 *
 * Analyser, src/qosanalyzer.c:
 *   L66  STATS_HISTORY = 3                 ring of per-report stats
 *   L68  unacceptable_loss_rate = 10 (%)
 *   L69  big_jitter = 10 (ms)
 *   L70  significant_delay = 0.2 (s)
 *   L152 lost % = 100 · fraction_lost / 256
 *   L153 jitter ms = 1000 · jitter / clock rate
 *   L108–117 RTT "doubled" iff cur ≥ 0.2 s, prev > 0 and cur ≥ 2 · prev
 *   L160–180 suggested action, first match wins:
 *     loss ≥ 10 % and jitter ≥ 10 ms → decrease bitrate by min (loss %, 50)
 *     RTT doubled                    → decrease bitrate by 20 %
 *     loss ≥ 10 %                    → "decrease packet rate": for video
 *                                      nothing (only audio ptime grows,
 *                                      bitratedriver.c L212–215)
 *   L182–202 "has improved": prev loss ≥ 10 % → cur loss < prev loss; else
 *     RTT-doubled flag set and cur RTT < prev RTT (clears the flag)
 * State machine, src/bitratecontrol.c:
 *   L25  probing_up_interval = 10 reports
 *   L64–117 Init/Stable → act and go Probing, or (Stable for 10 reports)
 *     +10 % and go ProbingUp; Probing → Stable once improved, else keep
 *     acting; ProbingUp → act and go Probing, else +10 % every 2nd report,
 *     back to Init at the nominal rate. Note Init never counts reports:
 *     the ramp only starts after a decrease was followed by recovery.
 * Video driver, src/bitratedriver.c:
 *   L156 min_video_bitrate = 64000 (we use the configured min-bitrate)
 *   L171 decrease: new = cur · (100 − v) / 100, truncated
 *   L186–190 increase: new = cur · (1 + v / 100), truncated, capped at the
 *     nominal (initial) bitrate; reaching it returns −1
 *
 * Start: linphone starts the encoder at its configured (nominal) bitrate, so
 * we start at start-bitrate, or max-bitrate when unset: the one-minute
 * startup blast the thesis measured (§1.5.3) is part of the baseline.
 *
 * Two deviations, because upstream never meets these cases. (1) A flow
 * started below its nominal rate (a start-bitrate) would never rise: Init
 * does not count reports, so the ramp of Stable is never reached. It starts
 * up instead: the rate doubles on every report that suggests no action,
 * until the nominal rate or the first action (then upstream's rules, from
 * Probing). (2) When feedback stops (no-feedback timer, nofeedback.h) the
 * rate becomes half of what it was, once (TCP's ssthresh after a timeout,
 * RFC 5681 §3.1); reports that show no new packet are not acted on, nor
 * is the loss of any report that counts packets sent before the first
 * report that does (those went into the outage: dropped at a full queue
 * while the link was down, they show in the reports after the link's
 * return), and the flow starts up again from there.
 * Params: "clock-rate" (Hz of the jitter field, default 90000) and
 * "packet-rate-decrease" (% cut for the lossy-low-jitter case; default 0 as
 * upstream, 20 reproduces the thesis build, Appendix A.2).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/params.h>

#define STATS_HISTORY 3
#define UNACCEPTABLE_LOSS_RATE 10.0f    /* % */
#define BIG_JITTER 10.0f        /* ms */
#define SIGNIFICANT_DELAY 0.2f  /* s */
#define PROBING_UP_INTERVAL 10  /* reports */
#define INCREASE_STEP 10        /* % */
#define RTT_DOUBLED_DECREASE 20 /* % */
#define MAX_LOSS_DECREASE 50    /* % */
#define PACING_FACTOR 1.25

typedef enum
{
  RR_INIT,
  RR_PROBING,
  RR_STABLE,
  RR_PROBING_UP,
} RrState;

typedef enum
{
  ACT_NOTHING,
  ACT_DECREASE_BITRATE,
  ACT_DECREASE_PACKET_RATE,
  ACT_INCREASE_QUALITY,
} RrAction;

typedef struct
{
  /* gfloat as upstream, so thresholds and truncations match bit for bit */
  gfloat lost_percentage;
  gfloat int_jitter;
  gfloat rt_prop;
} RrStats;

typedef struct
{
  RtpccController parent;
  RrStats stats[STATS_HISTORY];
  guint curindex;
  gboolean rt_prop_doubled;
  RrState state;
  gint stable_count;
  gint probing_up_count;
  guint64 nom_bitrate;
  guint64 cur_bitrate;
  gfloat last_rtt;              /* oRTP keeps the last computed RTT */
  guint clock_rate;
  guint packet_rate_decrease;
  const gchar *reason;
  gboolean startup;             /* doubling per clean report (deviation 1) */
  gboolean restart;             /* feedback stopped (deviation 2) */
  guint32 last_hsn;             /* extended highest seq of the last report */
  /* the media packet sent last (deviation 2: what went into the outage) */
  gboolean have_sent;
  guint32 sent_ssrc;
  guint16 sent_seq;
  gboolean outage_pending;      /* reports may still count outage packets */
  guint16 outage_seq;           /* ... those up to this seq */
} Rr;

static const gchar *
rr_state_name (RrState s)
{
  switch (s) {
    case RR_INIT:
      return "init";
    case RR_PROBING:
      return "probing";
    case RR_STABLE:
      return "stable";
    case RR_PROBING_UP:
      return "probing-up";
  }
  return "unknown";
}

static RrStats *
rr_cur (Rr * r)
{
  return &r->stats[r->curindex % STATS_HISTORY];
}

static RrStats *
rr_prev (Rr * r)
{
  return &r->stats[(STATS_HISTORY + r->curindex - 1) % STATS_HISTORY];
}

/* qosanalyzer.c L108–128 (sets the flag as a side effect, like upstream) */
static gboolean
rr_rt_prop_increased (Rr * r)
{
  RrStats *cur = rr_cur (r), *prev = rr_prev (r);

  if (cur->rt_prop >= SIGNIFICANT_DELAY && prev->rt_prop > 0
      && cur->rt_prop >= prev->rt_prop * 2.0) {
    r->rt_prop_doubled = TRUE;
    return TRUE;
  }
  return FALSE;
}

/* qosanalyzer.c L160–180 */
static RrAction
rr_suggest_action (Rr * r, gint * value, const gchar ** why)
{
  RrStats *cur = rr_cur (r);

  if (cur->lost_percentage >= UNACCEPTABLE_LOSS_RATE
      && cur->int_jitter >= BIG_JITTER) {
    /* int action->value = MIN (float, 50): truncation */
    *value = (gint) MIN (cur->lost_percentage, (gfloat) MAX_LOSS_DECREASE);
    *why = "loss-and-jitter";
    return ACT_DECREASE_BITRATE;
  }
  if (rr_rt_prop_increased (r)) {
    *value = RTT_DOUBLED_DECREASE;
    *why = "rtt-doubled";
    return ACT_DECREASE_BITRATE;
  }
  if (cur->lost_percentage >= UNACCEPTABLE_LOSS_RATE) {
    *value = 0;
    *why = "loss";
    return ACT_DECREASE_PACKET_RATE;
  }
  return ACT_NOTHING;
}

/* qosanalyzer.c L182–202 */
static gboolean
rr_has_improved (Rr * r)
{
  RrStats *cur = rr_cur (r), *prev = rr_prev (r);

  if (prev->lost_percentage >= UNACCEPTABLE_LOSS_RATE)
    return cur->lost_percentage < prev->lost_percentage;
  if (r->rt_prop_doubled && cur->rt_prop < prev->rt_prop) {
    r->rt_prop_doubled = FALSE;
    return TRUE;
  }
  return FALSE;
}

static void
rr_set_bitrate (Rr * r, guint64 bitrate)
{
  RtpccController *cc = &r->parent;

  bitrate = CLAMP (bitrate, cc->config.min_bitrate, cc->config.max_bitrate);
  r->cur_bitrate = bitrate;
}

static void
rr_decrease (Rr * r, gint value)
{
  /* bitratedriver.c L171: (float) cur · (100 − v) / 100, truncated */
  rr_set_bitrate (r, (guint64) ((gdouble) (gfloat) r->cur_bitrate *
          (100.0 - value) / 100.0));
}

/* bitratedriver.c L197–224 */
static gint
rr_execute (Rr * r, RrAction action, gint value, const gchar * why)
{
  switch (action) {
    case ACT_DECREASE_BITRATE:
      rr_decrease (r, value);
      r->reason = why;
      break;
    case ACT_DECREASE_PACKET_RATE:
      /* upstream: audio ptime only; the thesis build cut video 20 % too */
      if (r->packet_rate_decrease > 0)
        rr_decrease (r, (gint) r->packet_rate_decrease);
      r->reason = why;
      break;
    case ACT_INCREASE_QUALITY:{
      /* L186–190 */
      guint64 n = (guint64) ((gdouble) (gfloat) r->cur_bitrate *
          (1.0 + value / 100.0));
      gint ret = 0;
      if (n > r->nom_bitrate) {
        n = r->nom_bitrate;
        ret = -1;
      }
      rr_set_bitrate (r, n);
      r->reason = "probe-up";
      return ret;
    }
    case ACT_NOTHING:
      break;
  }
  return 0;
}

/* bitratecontrol.c L64–117 */
static void
rr_state_machine (Rr * r)
{
  RrAction action;
  gint value = 0;
  const gchar *why = NULL;

  if (r->startup) {
    action = rr_suggest_action (r, &value, &why);
    if (action == ACT_NOTHING) {
      rr_set_bitrate (r, MIN (2 * r->cur_bitrate, r->nom_bitrate));
      r->reason = "startup";
      if (r->cur_bitrate >= r->nom_bitrate)
        r->startup = FALSE;     /* Init at the nominal rate, as upstream */
      return;
    }
    r->startup = FALSE;
    rr_execute (r, action, value, why);
    r->state = RR_PROBING;
    return;
  }

  switch (r->state) {
    case RR_STABLE:
      r->stable_count++;
      /* upstream falls through into Init */
      G_GNUC_FALLTHROUGH;
    case RR_INIT:
      action = rr_suggest_action (r, &value, &why);
      if (action != ACT_NOTHING) {
        rr_execute (r, action, value, why);
        r->state = RR_PROBING;
      } else if (r->stable_count >= PROBING_UP_INTERVAL) {
        rr_execute (r, ACT_INCREASE_QUALITY, INCREASE_STEP, NULL);
        r->state = RR_PROBING_UP;
        r->probing_up_count = 0;
      }
      break;
    case RR_PROBING:
      r->stable_count = 0;
      if (rr_has_improved (r)) {
        r->state = RR_STABLE;
      } else {
        action = rr_suggest_action (r, &value, &why);
        if (action != ACT_NOTHING)
          rr_execute (r, action, value, why);
      }
      break;
    case RR_PROBING_UP:
      r->stable_count = 0;
      r->probing_up_count++;
      action = rr_suggest_action (r, &value, &why);
      if (action != ACT_NOTHING) {
        rr_execute (r, action, value, why);
        r->state = RR_PROBING;
      } else if (r->probing_up_count == 2) {
        if (rr_execute (r, ACT_INCREASE_QUALITY, INCREASE_STEP, NULL) == -1)
          r->state = RR_INIT;   /* reached the nominal bitrate */
        r->probing_up_count = 0;
      }
      break;
  }
}

static void
rr_publish (Rr * r)
{
  rtpcc_controller_update_target (&r->parent, r->cur_bitrate, 0,
      PACING_FACTOR, rr_state_name (r->state), r->reason);
}

static void
rr_init (RtpccController * cc, RtpccTime now)
{
  Rr *r = (Rr *) cc;

  r->nom_bitrate = cc->config.max_bitrate;
  r->cur_bitrate = cc->config.start_bitrate ? cc->config.start_bitrate :
      cc->config.max_bitrate;
  r->state = RR_INIT;
  r->clock_rate = 90000;
  r->reason = "initial";
  r->startup = r->cur_bitrate < r->nom_bitrate;
  rr_publish (r);
}

/* Feedback stopped (deviation 2). */
static void
rr_on_no_feedback (RtpccController * cc, RtpccTime now, guint64 rate)
{
  Rr *r = (Rr *) cc;

  if (!r->restart) {
    rr_set_bitrate (r, r->cur_bitrate / 2);
    r->restart = TRUE;
  }
  r->reason = "no-feedback";
  rr_publish (r);
}

static void
rr_on_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  Rr *r = (Rr *) cc;

  if (pkt->is_fec)
    return;
  r->have_sent = TRUE;
  r->sent_ssrc = pkt->ssrc;
  r->sent_seq = pkt->rtp_seq;
}

static void
rr_on_receiver_report (RtpccController * cc, RtpccTime now,
    const RtpccReceiverReport * rr)
{
  Rr *r = (Rr *) cc;
  RrStats *cur;
  guint32 prev_hsn = r->last_hsn;
  gboolean outage_loss = FALSE;

  /* deviation 2: a report whose interval starts before the last packet
   * sent into the outage may count its losses */
  if (r->outage_pending) {
    if ((gint16) ((guint16) prev_hsn - r->outage_seq) >= 0)
      r->outage_pending = FALSE;
    else
      outage_loss = TRUE;
  }
  if (!r->restart)
    r->last_hsn = rr->ext_highest_seq;
  /* qosanalyzer.c L142–154 */
  r->curindex++;
  cur = rr_cur (r);
  cur->lost_percentage = 100.0f * (gfloat) rr->fraction_lost / 256.0f;
  cur->int_jitter = 1000.0f * (gfloat) rr->jitter / (gfloat) r->clock_rate;
  if (rr->rtt != RTPCC_TIME_NONE && rr->rtt >= 0)
    r->last_rtt = (gfloat) RTPCC_TIME_AS_SEC (rr->rtt);
  cur->rt_prop = r->last_rtt;
  if (outage_loss)
    cur->lost_percentage = 0;

  if (r->restart) {
    gboolean progress = rr->ext_highest_seq != r->last_hsn;

    r->last_hsn = rr->ext_highest_seq;
    if (!progress)
      return;                   /* still nothing arrives */
    /* the first report after the stop: its loss is the outage's, and so
     * is that of the reports after it that count packets sent before
     * it came */
    r->restart = FALSE;
    cur->lost_percentage = 0;
    r->outage_pending = r->have_sent && r->sent_ssrc == rr->ssrc;
    r->outage_seq = r->sent_seq;
    r->startup = r->cur_bitrate < r->nom_bitrate;
    r->state = RR_INIT;
    r->rt_prop_doubled = FALSE;
    rr_publish (r);
    return;
  }
  rr_state_machine (r);
  rr_publish (r);
}

static const RtpccParamSpec param_specs[] = {
  RTPCC_PARAM_UINT ("clock-rate", Rr, clock_rate, 1, 1000000),
  RTPCC_PARAM_UINT ("packet-rate-decrease", Rr, packet_rate_decrease, 0, 100),
};

static gboolean
rr_set_param (RtpccController * cc, const gchar * key, const gchar * value)
{
  return rtpcc_params_set (param_specs, G_N_ELEMENTS (param_specs),
      (Rr *) cc, key, value) != NULL;
}

const RtpccControllerOps rtpcc_cc_rtcp_rr_ops = {
  .name = "rr",
  .description = "RTCP RR loss-driven baseline: linphone/mediastreamer2's "
      "default video rate control",
  .instance_size = sizeof (Rr),
  .init = rr_init,
  .on_receiver_report = rr_on_receiver_report,
  .on_packet_sent = rr_on_packet_sent,
  .set_param = rr_set_param,
  .on_no_feedback = rr_on_no_feedback,
};

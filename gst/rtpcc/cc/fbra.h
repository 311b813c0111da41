/* "fbra": FEC-based rate adaptation (Nagy, Singh, Ott, Eggert, MMSys 2014).
 *
 * The sender probes for spare capacity by adding FEC next to the media:
 * STAY (hold the rate, no FEC) → PROBE (FEC at media/N) → UP (the media rate
 * grows by the FEC rate measured during the probe) → STAY, and DOWN with an
 * undershoot below the goodput on losses, late discards or a rising one-way
 * delay. The state machine runs exactly once per received RTCP receiver
 * report; per-packet feedback (CCFB/TWCC) between reports is aggregated into
 * that report's digest (losses and discards with their timing, goodput,
 * send rate, one-way delay). See docs/fbra.md for the decisions on the
 * paper's ambiguities (the paper leaves the report timing, the OWD scale,
 * the history lengths and the handling of FEC in the goodput open).
 *
 * This header exposes the parameter set (each settable with set_param by
 * the name in brackets, effective at the next report), the pure pieces
 * (undershoot, percentile, FEC interval) and a snapshot of the state, so the
 * transition table can be tested row by row.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_FBRA_H__
#define __RTPCC_CC_FBRA_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

typedef enum
{
  RTPCC_FBRA_STAY = 0,
  RTPCC_FBRA_PROBE,
  RTPCC_FBRA_UP,
  RTPCC_FBRA_DOWN,
} RtpccFbraState;

const gchar *rtpcc_fbra_state_name (RtpccFbraState state);

typedef struct
{
  gdouble alpha_stay;           /* 1.1 [alpha-stay] */
  gdouble alpha_down_probe;     /* 1.6 [alpha-down-probe] */
  gdouble alpha_down_up;        /* 1.4 [alpha-down-up] */
  gdouble alpha_undershoot;     /* 2.0 [alpha-undershoot] */
  gdouble beta;                 /* 1.2 [beta] */
  gdouble p_low, p_high;        /* 40, 80 percentiles [p-low] [p-high] */
  gdouble near_max;             /* 0.9 of the 2 s maximum [near-max] */
  gdouble rate_history;         /* 2 s [rate-history] (seconds) */
  /* What the rate history holds (the FEC interval's reference and the
   * near-max guard's): 0 (default) the media rate FBRA set after each
   * report; 1 the paper's set, "all the rates (goodput, sending rate,
   * combined FEC and RTP sending rate)" of each report with it (its Sec.
   * 4.2). [history-all-rates] */
  gdouble history_all;
  gdouble early_rtt;            /* 1.5 × RTT_median [early-rtt] */
  /* An RR is early only if it also comes sooner than this fraction of the
   * median regular interval: RFC 3550 randomisation keeps regular ones at
   * ≥ min/max = 0.5/1.5 = 1/3 of any median, so an RTT test alone would
   * call randomised regular reports early. [early-interval] */
  gdouble early_interval;       /* 1/3 */
  gdouble feedback_timeout;     /* 2 s [feedback-timeout] (seconds) */
  gdouble undershoot_k;         /* 0.9 [undershoot-k] */
  gdouble undershoot_mult;      /* 2 [undershoot-mult] */
  gdouble undershoot_floor;     /* 0.5 × goodput, never below [undershoot-floor] */
  gdouble bounce_back;          /* 0.9 × stored goodput [bounce-back] */
  gdouble recent;               /* later 0.5 of the interval is "recent" [recent] */
  gdouble fec_min, fec_max;     /* FEC interval N in [2, 14] [fec-min] [fec-max] */
  gdouble fec_step;             /* IncrementFECinterval: +2 [fec-step] */
  gdouble owd_samples;          /* OWD history: 240 reports [owd-samples] */
  gdouble owd_age;              /* ... of at most 60 s [owd-age] (seconds) */
  gdouble owd_min_samples;      /* ratios used from 5 samples [owd-min-samples] */
  /* 1 (paper's pseudocode, default): DOWN with congestion again after a
   * DOWN goes to STAY; 0 (paper's text): stays in DOWN (X1). [down-persist] */
  gdouble down_to_stay;
  gdouble pacing_factor;        /* 1.5 [pacing-factor] */
  /* the RR interval asked of the receiver: report_rtts × min RTT (the
   * paper's "need not be shorter than 2 × RTT", with room for RFC 3550's
   * randomisation), within [report_min, report_max] seconds
   * [report-rtts] [report-min] [report-max] */
  gdouble report_rtts;          /* 2.5 */
  gdouble report_min, report_max;       /* 0.1 s, 1 s */
  /* 1 (default): a report in which nothing arrived is an outage, not a
   * measure of capacity; the goodput of the last clean report before it is
   * kept, and the first clean report after it bounces back to
   * bounce_back × that goodput. 0: the paper as published (the rate starts
   * over from the undershoot). [outage-recall] */
  gdouble outage_recall;
} RtpccFbraParams;

void rtpcc_fbra_params_init (RtpccFbraParams * p);

/* Undershoot (Sec. 4.4, primary reading): 0.9 × (R − 2 (R − G)), clamped to
 * ≥ max (@min_rate, undershoot_floor × G) and ≤ R (it never raises the
 * rate, and never goes negative). Rates in bit/s. */
gdouble rtpcc_fbra_undershoot (const RtpccFbraParams * p, gdouble send_rate,
    gdouble goodput, gdouble min_rate);

/* Nearest-rank percentile @pct (0..100) of @n values (unsorted, not
 * modified); 0 if @n is 0. */
gdouble rtpcc_fbra_percentile (const gdouble * values, guint n, gdouble pct);

/* FEC interval N for entering PROBE: x = R_cur / max (R_max_2s, G_init),
 * N = clamp (fec_min + round ((fec_max − fec_min) x)). A rate far below
 * what was recently reached probes hard (small N). */
guint rtpcc_fbra_fec_interval (const RtpccFbraParams * p, gdouble rate,
    gdouble max_rate_2s, gdouble initial_goodput);

/* The RR interval FBRA asks of its receiver: report_rtts × @min_rtt
 * clamped to [report_min, report_max], rounded to 10 ms (at least 10 ms);
 * with no RTT yet (@min_rtt NONE) that of a 100 ms RTT. */
RtpccTime rtpcc_fbra_report_interval (const RtpccFbraParams * p,
    RtpccTime min_rtt);

/* The digest of one receiver report, as the state machine sees it. The
 * controller builds it from per-packet feedback; tests may inject one. */
typedef struct
{
  guint losses, recent_losses;  /* media packets, FEC excluded */
  guint discards, recent_discards;
  guint received;               /* media packets received in the interval */
  gdouble send_rate;            /* media bit/s over the interval; 0 unknown */
  gdouble goodput;              /* media bit/s delivered in time; 0 unknown */
  gdouble fec_rate;             /* FEC (the probe) bit/s sent over the
                                 * same interval; 0 none or unknown */
  /* mean one-way delay on an absolute scale (base = min RTT / 2 plus
   * queuing), RTPCC_TIME_NONE if unknown */
  RtpccTime owd;
} RtpccFbraReport;

/* Run one evaluation on @report at @now, exactly as an RR would (global
 * early-report detection excepted: that needs real RR arrivals). FALSE if
 * @cc is not an fbra controller. */
gboolean rtpcc_fbra_inject_report (RtpccController * cc, RtpccTime now,
    const RtpccFbraReport * report);

typedef struct
{
  RtpccFbraState state, previous;
  guint64 media_rate;           /* bit/s, the encoder's target */
  guint64 fec_rate;             /* bit/s asked of FEC (0 when off) */
  guint fec_interval;           /* N in force (or last used) */
  gboolean rc_disabled;         /* the next report will be ignored */
  gboolean bounce_pending;      /* the one after it decides bounce-back */
  gdouble stored_goodput;       /* at the last undershoot */
  gdouble outage_goodput;       /* kept through an outage (0: none) */
  gdouble corr_low, corr_high;  /* of the last evaluation (1 if no history) */
  gdouble p_low_owd_ms, p_high_owd_ms;  /* watermarks used, ms (0 none) */
  guint owd_history;            /* samples */
  gdouble owd_ms;               /* last report's OWD, ms (NaN none) */
  gdouble last_goodput, last_send_rate;
  gdouble measured_fec_rate;    /* over the last PROBE, bit/s */
  RtpccTime rtt_median;         /* NONE before a sample */
  guint64 evaluations;          /* state-function runs */
  guint64 reports;              /* RRs counted (incl. ignored and early) */
  guint64 ignored;              /* reports skipped while deactivated */
  guint64 early, timeouts, undershoots, bounce_backs, ups;
  guint64 outage_recalls;       /* bounce-backs to the pre-outage goodput */
  /* FEC episodes (PROBE entered) and how the ended ones left PROBE: to UP
   * (the FEC rate became media), STAY (kept), DOWN (wrong). The paper's
   * FEC Rate-Control Correctness is (raised + kept) / ended, see
   * rtpcc_fbra_frcc(). */
  guint64 fec_episodes, fec_raised, fec_kept, fec_down;
  guint64 fec_packets, fec_bytes;       /* FEC sent seen by the controller */
  guint64 losses, discards;     /* media packets, all reports so far */
  const gchar *last_action;     /* static string */
  RtpccFbraParams params;
} RtpccFbraInfo;

/* FRCC of @info (Nagy et al., Sec. 5.1): of the FEC episodes that ended,
 * the share that did not end in DOWN; NaN before any ended. */
gdouble rtpcc_fbra_frcc (const RtpccFbraInfo * info);

/* FALSE (and @info untouched) if @cc is not an "fbra" controller. */
gboolean rtpcc_fbra_get_info (RtpccController * cc, RtpccFbraInfo * info);
/* The OWD history samples (ns, absolute scale) oldest first; returns the
 * count copied (at most @max). */
guint rtpcc_fbra_get_owd_history (RtpccController * cc, RtpccTime * out,
    guint max);

G_END_DECLS

#endif

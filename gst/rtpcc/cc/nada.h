/* "nada": Network-Assisted Dynamic Adaptation (RFC 8698), run at the sender
 * from per-packet feedback (RFC 8888 CCFB / TWCC).
 *
 * The controller itself is reached through the registry (name "nada"). This
 * header exposes the RFC's equations as pure functions, so each can be tested
 * against hand-computed values, the parameter set (RFC 8698 §4.1 defaults),
 * and a read-only snapshot of the controller's state.
 *
 * Units follow the RFC: delays and congestion signals (d_queue, x_curr, XREF,
 * QTH, ...) in milliseconds, rates in bit/s, loss and marking ratios as
 * fractions in [0, 1].
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_NADA_H__
#define __RTPCC_CC_NADA_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

/* Algorithm parameters; rtpcc_nada_params_init fills the RFC 8698 §4.1
 * defaults (verified against ns3-rmcat nada-controller.cc). All in ms unless
 * noted. Each can be changed on a live controller with set_param under the
 * name in brackets. */
typedef struct
{
  gdouble prio;                 /* PRIO 1.0 [prio] */
  gdouble xref;                 /* XREF 10 ms [xref] */
  gdouble kappa;                /* KAPPA 0.5 [kappa] */
  gdouble eta;                  /* ETA 2.0 [eta] */
  gdouble tau;                  /* TAU 500 ms [tau] */
  gdouble delta;                /* DELTA 100 ms, update interval [delta] */
  gdouble logwin;               /* LOGWIN 500 ms [logwin] */
  gdouble qeps;                 /* QEPS 10 ms [qeps] */
  gdouble dfilt;                /* DFILT 120 ms [dfilt] */
  gdouble gamma_max;            /* GAMMA_MAX 0.5 [gamma-max] */
  gdouble qbound;               /* QBOUND 50 ms [qbound] */
  gdouble multiloss;            /* MULTILOSS 7.0 [multiloss] */
  gdouble qth;                  /* QTH 50 ms [qth] */
  gdouble lambda;               /* LAMBDA 0.5 [lambda] */
  gdouble plrref;               /* PLRREF 0.01 [plrref] */
  gdouble pmrref;               /* PMRREF 0.01 [pmrref] */
  gdouble dloss;                /* DLOSS 10 ms [dloss] */
  gdouble dmark;                /* DMARK 2 ms [dmark] */
  gdouble xmax;                 /* XMAX 500 ms, cap on x_curr (ns3-rmcat) [xmax] */
  gdouble alpha;                /* ALPHA 0.1, loss/marking smoothing [alpha] */
  gdouble beta_s;               /* BETA_S 0.1 [beta-s] */
  gdouble beta_v;               /* BETA_V 0.1 [beta-v] */
  gdouble fps;                  /* FPS 30 [fps] */
  /* Not RFC 8698 (a named deviation, off by default): during the flow's
   * start-up, while there is no loss or mark and r_ref < CATCH_UP x the
   * rate the RFC's own equilibrium gives for the observed signal,
   * min (RMAX, PRIO XREF RMAX / x_curr), update by Eq. (3)-(4) (accelerated
   * ramp-up) instead of Eq. (5)-(7); the first update that does not
   * qualify ends the start-up. 0 = off (RFC behaviour), else in (0, 1]
   * [catch-up] */
  gdouble catch_up;
  /* Not RFC 8698 (a named deviation, on by default): while a loss-based
   * flow holds the bottleneck's queue (cc/competitor.h), publish at least
   * the TCP equation's rate for our own loss events and RTT
   * [competitive] */
  gboolean competitive;
} RtpccNadaParams;

void rtpcc_nada_params_init (RtpccNadaParams * p);

/* RFC 8698 §4.2 Eq. (1): the non-linear warping of queuing delay,
 *   d_tilde = d_queue                                  if d_queue < QTH
 *           = QTH exp (-LAMBDA (d_queue - QTH) / QTH)  otherwise. */
gdouble rtpcc_nada_warp_delay (const RtpccNadaParams * p, gdouble d_queue);

/* RFC 8698 §4.2 Eq. (2): the aggregate congestion signal
 *   x_curr = d_tilde + DMARK (p_mark / PMRREF)^2 + DLOSS (p_loss / PLRREF)^2
 * with d_tilde = Eq. (1) when @warp (losses seen recently), else d_queue;
 * capped at XMAX. */
gdouble rtpcc_nada_congestion_signal (const RtpccNadaParams * p,
    gdouble d_queue, gboolean warp, gdouble p_loss, gdouble p_mark);

/* RFC 8698 §4.3 Eq. (3): gamma = min (GAMMA_MAX, QBOUND / (rtt + DELTA +
 * DFILT)), @rtt in ms. */
gdouble rtpcc_nada_ramp_up_gamma (const RtpccNadaParams * p, gdouble rtt);

/* RFC 8698 §4.3 Eq. (4): r_ref = max (r_ref, (1 + gamma) r_recv). Not
 * clipped to [RMIN, RMAX]. */
gdouble rtpcc_nada_accelerated_ramp_up (const RtpccNadaParams * p,
    gdouble r_ref, gdouble r_recv, gdouble rtt);

/* RFC 8698 §4.3 Eq. (5)-(7), gradual update over an interval of @delta ms:
 *   x_offset = x_curr - PRIO XREF RMAX / r_ref
 *   x_diff   = x_curr - x_prev
 *   r_ref   -= KAPPA (delta / TAU) (x_offset / TAU) r_ref
 *            + KAPPA ETA (x_diff / TAU) r_ref
 * Not clipped to [RMIN, RMAX] (may even go negative). */
gdouble rtpcc_nada_gradual_update (const RtpccNadaParams * p, gdouble r_ref,
    gdouble rmax, gdouble x_curr, gdouble x_prev, gdouble delta);

/* RFC 8698 §5.2.2 Eq. (8)-(9), the rate-shaping buffer of @buffer_len bytes:
 *   r_vin  = max (RMIN, r_ref - BETA_V 8 buffer_len FPS)
 *   r_send = min (RMAX, r_ref + BETA_S 8 buffer_len FPS) */
void rtpcc_nada_shaping_rates (const RtpccNadaParams * p, gdouble r_ref,
    gdouble rmin, gdouble rmax, gdouble buffer_len, gdouble * r_vin,
    gdouble * r_send);

/* The sender-side queuing delay at equilibrium (§4.3: x_curr settles where
 * x_offset = 0, i.e. at PRIO XREF RMAX / r_ref), in ms, for a flow at
 * @rate bit/s without loss or marking. */
gdouble rtpcc_nada_equilibrium_delay (const RtpccNadaParams * p,
    gdouble rmax, gdouble rate);

/* The catch-up test (see RtpccNadaParams.catch_up; not RFC 8698): TRUE if
 * CATCH_UP > 0 and
 *   r_ref < CATCH_UP min (RMAX, PRIO XREF RMAX / x_curr)
 * (RMAX for x_curr <= 0),
 * i.e. the flow runs far below the rate at which Eq. (5)'s x_offset would
 * be 0 for the congestion signal it observes. */
gboolean rtpcc_nada_catch_up (const RtpccNadaParams * p, gdouble r_ref,
    gdouble rmax, gdouble x_curr);

/* Snapshot of the controller's state, for tests and statistics. */
typedef struct
{
  gdouble r_ref;                /* reference rate, bit/s */
  gdouble r_vin;                /* encoder target (Eq. 8), bit/s */
  gdouble r_send;               /* sending rate (Eq. 9), bit/s */
  gdouble r_recv;               /* receive rate over LOGWIN; 0 unknown */
  gdouble x_curr, x_prev;       /* ms */
  gdouble d_queue;              /* 15-tap min-filtered queuing delay, ms */
  gdouble d_queue_raw;          /* newest unfiltered sample, ms */
  gdouble p_loss, p_mark;       /* smoothed ratios */
  gdouble p_loss_window;        /* loss ratio over the last LOGWIN */
  gdouble loss_int;             /* mean loss interval, packets; 0 none yet */
  gboolean warping;             /* Eq. (1) in force (recent losses) */
  gboolean accelerated;         /* the mode of the last update (rmode 0) */
  gboolean catching_up;         /* the last update ramped up by the catch-up
                                 * test (accelerated is FALSE: rmode 1) */
  guint64 n_catch_up;           /* updates chosen by the catch-up test */
  gdouble gamma;                /* Eq. (3) at the last ramp-up, else 0 */
  gdouble rtt;                  /* ms; 0 before the first sample */
  gdouble last_delta;           /* ms, interval of the last update */
  guint64 n_updates;
  guint n_nofeedback;           /* rate cuts for missing feedback */
  gboolean have_feedback;
  gboolean competing;           /* the competitive floor is in force */
  gdouble r_competitive;        /* that floor, bit/s; 0 while not competing */
  guint n_competitor_entries;   /* times the competitive mode was entered */
  RtpccNadaParams params;
} RtpccNadaInfo;

/* FALSE (and @info untouched) if @cc is not a "nada" controller. */
gboolean rtpcc_nada_get_info (RtpccController * cc, RtpccNadaInfo * info);

G_END_DECLS

#endif

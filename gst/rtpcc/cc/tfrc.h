/* "tfrc": TCP-Friendly Rate Control (RFC 5348), run at the sender from
 * per-packet feedback (RFC 8888 CCFB / TWCC).
 *
 * The controller itself is reached through the registry (name "tfrc"); this
 * header exposes a read-only snapshot of the controller's internal state.
 * Its parts are in cc/tfrc/: the loss-interval history (history.h), the
 * X_recv set (recvset.h) and the send log that judges data-limited rounds
 * (sendlog.h); the throughput equation and its inverse are in
 * rtpcc/tcpeq.h.
 *
 * Units: rates in bytes/s (as in RFC 5348; the published RtpccTarget is in
 * bit/s), s in bytes, RTTs in seconds unless typed RtpccTime.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_TFRC_H__
#define __RTPCC_CC_TFRC_H__

#include <rtpcc/controller.h>
#include <rtpcc/cc/tfrc/history.h>

G_BEGIN_DECLS

/* Snapshot of the controller's state, for tests and statistics. */
typedef struct
{
  gdouble x;                    /* allowed sending rate X */
  gdouble x_inst;               /* X after oscillation prevention */
  gdouble x_calc;               /* X_Bps from the equation; 0 while p == 0 */
  gdouble x_recv;               /* last measured receive rate; < 0 unknown */
  gdouble x_recv_max;           /* max (X_recv_set); +inf while initial */
  gdouble recv_limit;           /* the limit applied at the last update */
  gdouble x_real;               /* send rate while backlogged; < 0 unknown */
  gdouble pacing_gain;          /* timer-error compensation factor, >= 1 */
  gdouble initial_rate;         /* W_init / R, or the pre-RTT rate */
  gdouble p;                    /* loss event rate */
  gdouble rtt;                  /* R in seconds; 0 before the first sample */
  gdouble r_sqmean;             /* oscillation prevention state, sqrt(s) */
  guint s;                      /* packet size in use */
  guint n_loss_events;
  guint n_nofeedback;           /* nofeedback timer expirations */
  guint64 n_rounds;             /* rate updates driven by feedback */
  gboolean data_limited;        /* the last round was data-limited */
  gboolean have_feedback;
  RtpccTime nofeedback_deadline;
} RtpccTfrcInfo;

/* FALSE (and @info untouched) if @cc is not a "tfrc" controller. */
gboolean rtpcc_tfrc_get_info (RtpccController * cc, RtpccTfrcInfo * info);

G_END_DECLS

#endif

/* gcc probe controller: when to probe for more capacity, at what rate, and
 * what a probe showed (libwebrtc probe_controller and
 * probe_bitrate_estimator, on FEC or padding instead of probe clusters).
 *
 * The controller asks for probe bytes through fec_bitrate while a probe is
 * SENDING; the sender adds them on top of the media. Probes run when the
 * delay signal has been clean for 500 ms: application-limited ones (the
 * media uses < 65 % of the target for 1 s: at 2 × A) by default, and, when
 * enabled, after a large drop (recovery), when the path shows no queue at
 * the last congestion point (capacity), or every 2 s of clean increase
 * (periodic). docs/gcc.md, (d), has the state machine and why only ALR
 * probes are on by default.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_PROBE_H__
#define __RTPCC_CC_GCC_PROBE_H__

#include <rtpcc/cc/gcc.h>

G_BEGIN_DECLS

/* What a probe shows of the path, from the send and receive rates of its
 * packets (bit/s): min (send, receive), unless the path came out markedly
 * slower (receive < 0.9 × send: the probe saturated the bottleneck, whose
 * queue grows at the receive rate), then 0.95 × receive. */
gdouble rtpcc_gcc_probe_estimate (gdouble send_rate, gdouble recv_rate);

typedef struct
{
  /* configuration */
  gboolean enabled;             /* any probes (ALR) */
  gboolean recovery;            /* after a large drop */
  gboolean capacity;            /* at the congestion point, no queue */
  gboolean periodic;            /* after 2 s of clean increase */
  RtpccTime duration;
  gdouble capacity_jump;        /* of what got through, for A */

  RtpccGccProbeState state;
  gdouble rate;                 /* P, bit/s */
  gdouble base;                 /* min (A, As) when it started */
  gdouble need;                 /* bit/s it must get through */
  gboolean is_capacity;         /* the running probe is a capacity probe */
  RtpccTime end, deadline;
  gboolean have_first;
  guint64 first_seq, last_seq;
  guint64 highest_sent_seq;
  gboolean have_sent;
  /* the probe's packets as reported */
  guint64 rx_bytes, tx_bytes;
  guint rx, lost;
  guint first_rx_bytes, last_tx_bytes;
  RtpccTime first_arrival, last_arrival;
  RtpccTime first_send, last_send;
  gboolean overuse;             /* an over-use while it ran */

  RtpccTime next_time, backoff;
  RtpccTime next_capacity, capacity_backoff;
  gboolean chain;               /* last probe succeeded unconstrained */
  /* the drop episode recovery probes aim back at: decreases less than 5 s
   * apart, from drop_from; once its probe runs or found the path's limit
   * (drop_limit) no other until the estimate grew past 1.1 × that limit,
   * or one gets ~all of its rate through */
  gdouble drop_from;
  gboolean drop_probed;
  gdouble drop_limit;
  RtpccTime drop_time;
  RtpccTime alr_since;          /* application-limited since, or NONE */

  guint n_probes, n_success, n_fail;
  gdouble last_result;          /* bit/s, -1 none */
} RtpccGccProber;

/* What the controller knows when a probe may start. */
typedef struct
{
  gdouble rate;                 /* min (A, As), bit/s */
  gdouble target;               /* the published target, bit/s */
  gdouble max_rate;             /* max-bitrate */
  gdouble send_rate;            /* media sent over the last second, -1 */
  gdouble received_rate;        /* R, -1 unknown */
  RtpccGccSignal signal;
  RtpccTime last_not_normal;    /* the signal was last not normal */
  RtpccGccRcState rc_state;
  gboolean startup;
  gboolean loss_limiting;       /* a loss cut is in force */
  gdouble loss_fraction;        /* of the last loss window, -1 none */
  gboolean have_cp;
  gdouble cp_mean;              /* the last congestion point, bit/s */
  RtpccTime quiet_time;         /* no packet queued for this long, or -1 */
} RtpccGccProbeInput;

typedef enum
{
  RTPCC_GCC_PROBE_RUNNING,      /* idle, or not judged yet */
  RTPCC_GCC_PROBE_FAILED,
  RTPCC_GCC_PROBE_SUCCEEDED,
} RtpccGccProbeOutcome;

void rtpcc_gcc_prober_init (RtpccGccProber * p, RtpccTime now);
/* Any packet sent (media, FEC or padding). */
void rtpcc_gcc_prober_sent (RtpccGccProber * p, const RtpccSentPacket * pkt);
/* The target went from @before to @after at @now (drop episodes). */
void rtpcc_gcc_prober_note_rate (RtpccGccProber * p, RtpccTime now,
    gdouble before, gdouble after);
/* One packet's fate from feedback; TRUE once the last probe packet of a
 * WAITING probe is reported. */
gboolean rtpcc_gcc_prober_account (RtpccGccProber * p,
    const RtpccPacketReport * r);
/* An over-use signal: a running probe fails. */
void rtpcc_gcc_prober_overuse (RtpccGccProber * p);
/* Starts a probe if one is due; TRUE if it did (state SENDING until end). */
gboolean rtpcc_gcc_prober_maybe_start (RtpccGccProber * p, RtpccTime now,
    const RtpccGccProbeInput * in);
/* Stops sending at the end of the probe and waits for its feedback until
 * @now + @rtt + 500 ms; FAILED at once if nothing was sent. */
RtpccGccProbeOutcome rtpcc_gcc_prober_stop (RtpccGccProber * p,
    RtpccTime now, RtpccTime rtt);
/* Judges a running probe at @now (@all_reported: its last packet was
 * reported). On success, *@new_rate is what A may rise to (from
 * @delay_rate, the current A). */
RtpccGccProbeOutcome rtpcc_gcc_prober_evaluate (RtpccGccProber * p,
    RtpccTime now, gboolean all_reported, gdouble delay_rate,
    gdouble * new_rate);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_PROBE_H__ */

/* Receiver-side estimate for REMB; see rembestimator.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/rembestimator.h>
#include <rtpcc/ratewindow.h>
#include <rtpcc/cc/gcc/aimd.h>
#include <rtpcc/cc/gcc/detector.h>
#include <rtpcc/cc/gcc/grouper.h>
#include <rtpcc/cc/gcc/kalman.h>

/* the incoming rate the decrease is taken from (the draft's 500 ms) */
#define INCOMING_WINDOW RTPCC_MSEC (500)
#define INCOMING_MIN_SPAN RTPCC_MSEC (100)
/* the rate controller's cadence; an over-use acts sooner */
#define CONTROL_INTERVAL RTPCC_MSEC (100)
/* the receiver knows no RTT; the draft's decrease spacing assumes one */
#define ASSUMED_RTT RTPCC_MSEC (100)
/* a stream silent this long starts its delay history afresh */
#define STREAM_TIMEOUT RTPCC_SEC (2)

struct _RtpccRembEstimator
{
  RtpccRembEstimatorConfig config;
  RtpccGccGrouper grouper;
  RtpccGccKalman kalman;
  RtpccGccDetector detector;
  RtpccGccAimd aimd;
  RtpccRateWindow incoming;
  gdouble accumulated;          /* sum of d(i), ms: the raw delay trend */
  /* RTP timestamps, unwrapped */
  gboolean have_ts;
  guint32 last_ts;
  gint64 ext_ts;
  guint clock_rate;
  RtpccTime last_arrival, last_rc;
  gboolean overuse_latched;
  RtpccTime last_sent;          /* NONE before the first REMB */
  guint64 last_sent_bitrate;
  RtpccRembEstimatorStats stats;
};

void
rtpcc_remb_estimator_config_init (RtpccRembEstimatorConfig * config)
{
  config->start_bitrate = 300000;
  config->min_bitrate = 30000;
  config->max_bitrate = 20000000;
  config->interval = RTPCC_SEC (1);
  config->decrease = 0.03;
}

static void
reset_delay (RtpccRembEstimator * e)
{
  rtpcc_gcc_grouper_init (&e->grouper, RTPCC_GCC_BURST_TIME);
  rtpcc_gcc_kalman_init (&e->kalman);
  rtpcc_gcc_detector_init (&e->detector);
  e->accumulated = 0;
  e->have_ts = FALSE;
}

RtpccRembEstimator *
rtpcc_remb_estimator_new (const RtpccRembEstimatorConfig * config)
{
  RtpccRembEstimator *e;

  if (config == NULL || config->interval <= 0 || config->max_bitrate == 0
      || config->min_bitrate > config->max_bitrate
      || !(config->decrease > 0.0 && config->decrease < 1.0))
    return NULL;
  e = g_new0 (RtpccRembEstimator, 1);
  e->config = *config;
  reset_delay (e);
  rtpcc_gcc_aimd_init (&e->aimd, (gdouble) CLAMP (config->start_bitrate,
          config->min_bitrate, config->max_bitrate),
      (gdouble) config->min_bitrate, (gdouble) config->max_bitrate,
      RTPCC_GCC_BETA);
  rtpcc_rate_window_init (&e->incoming, INCOMING_WINDOW);
  e->last_arrival = e->last_rc = e->last_sent = RTPCC_TIME_NONE;
  e->stats.estimate = (guint64) e->aimd.rate;
  return e;
}

void
rtpcc_remb_estimator_free (RtpccRembEstimator * e)
{
  if (e == NULL)
    return;
  rtpcc_rate_window_clear (&e->incoming);
  g_free (e);
}

/* The RTP timestamp as a send time: unwrapped, in ns from the first. A
 * timestamp older than the newest (a reordered packet of an earlier
 * frame) is FALSE: it would open a group backwards. */
static gboolean
send_time_of (RtpccRembEstimator * e, guint32 ts, guint clock_rate,
    RtpccTime * out)
{
  gint32 diff;

  if (!e->have_ts || clock_rate != e->clock_rate) {
    e->have_ts = TRUE;
    e->clock_rate = clock_rate;
    e->last_ts = ts;
    e->ext_ts = 0;
  }
  diff = (gint32) (ts - e->last_ts);
  if (diff < 0)
    return FALSE;
  e->ext_ts += diff;
  e->last_ts = ts;
  *out = (RtpccTime) (e->ext_ts * (gdouble) RTPCC_SEC (1) / clock_rate);
  return TRUE;
}

static void
process_delta (RtpccRembEstimator * e, const RtpccGccDelta * d)
{
  gdouble estimate, modified;
  RtpccGccSignal s;

  e->stats.groups++;
  e->accumulated += d->d;
  /* the noise is learnt in the normal state only (kalman.h) */
  e->kalman.hold_noise = e->detector.signal != RTPCC_GCC_NORMAL;
  estimate = rtpcc_gcc_kalman_update (&e->kalman, d->d, d->send_delta);
  modified = rtpcc_gcc_kalman_modified (&e->kalman);
  s = rtpcc_gcc_detector_update (&e->detector, modified, estimate,
      d->send_delta, e->accumulated, e->kalman.num_deltas, FALSE,
      d->arrival);
  if (e->detector.fired) {
    e->stats.overuses++;
    e->overuse_latched = TRUE;
  }
  (void) s;
}

static void
rate_control (RtpccRembEstimator * e, RtpccTime now)
{
  gdouble R = rtpcc_rate_window_rate (&e->incoming, RTPCC_TIME_NONE,
      INCOMING_MIN_SPAN);
  RtpccGccSignal signal = e->overuse_latched ? RTPCC_GCC_OVERUSE :
      e->detector.signal;
  gboolean due = e->last_rc == RTPCC_TIME_NONE
      || now - e->last_rc >= CONTROL_INTERVAL
      || (signal == RTPCC_GCC_OVERUSE
      && rtpcc_gcc_aimd_may_decrease (&e->aimd, now, ASSUMED_RTT, R));

  e->stats.incoming = R > 0 ? (guint64) R : 0;
  if (!due)
    return;
  rtpcc_gcc_aimd_update (&e->aimd, now, signal, R, ASSUMED_RTT);
  if (e->aimd.last_decreased)
    e->stats.decreases++;
  e->overuse_latched = FALSE;
  e->last_rc = now;
  e->stats.estimate = (guint64) e->aimd.rate;
}

void
rtpcc_remb_estimator_on_packet (RtpccRembEstimator * e, RtpccTime now,
    guint32 rtp_ts, guint clock_rate, guint size)
{
  RtpccTime send;
  RtpccGccDelta d;

  if (clock_rate == 0)
    return;
  e->stats.packets++;
  if (e->last_arrival != RTPCC_TIME_NONE
      && now - e->last_arrival > STREAM_TIMEOUT)
    reset_delay (e);
  if (e->last_arrival == RTPCC_TIME_NONE || now > e->last_arrival)
    e->last_arrival = now;
  rtpcc_rate_window_push (&e->incoming, now, size);
  if (!send_time_of (e, rtp_ts, clock_rate, &send)) {
    e->stats.reordered++;
  } else if (rtpcc_gcc_grouper_add (&e->grouper, send, now, size, &d)) {
    process_delta (e, &d);
  }
  rate_control (e, now);
}

guint64
rtpcc_remb_estimator_get_estimate (const RtpccRembEstimator * e)
{
  return e->stats.estimate;
}

RtpccTime
rtpcc_remb_estimator_next_due (const RtpccRembEstimator * e)
{
  if (e->stats.packets == 0)
    return RTPCC_TIME_NONE;
  if (e->last_sent == RTPCC_TIME_NONE)
    return 0;
  return e->last_sent + e->config.interval;
}

gboolean
rtpcc_remb_estimator_due (const RtpccRembEstimator * e, RtpccTime now)
{
  RtpccTime next = rtpcc_remb_estimator_next_due (e);

  if (next == RTPCC_TIME_NONE)
    return FALSE;
  if (now >= next)
    return TRUE;
  return (gdouble) e->stats.estimate < (1.0 - e->config.decrease) *
      (gdouble) e->last_sent_bitrate;
}

void
rtpcc_remb_estimator_sent (RtpccRembEstimator * e, RtpccTime now,
    guint64 bitrate)
{
  e->last_sent = now;
  e->last_sent_bitrate = bitrate;
  e->stats.sent++;
}

const RtpccRembEstimatorStats *
rtpcc_remb_estimator_get_stats (const RtpccRembEstimator * e)
{
  return &e->stats;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/probe.h>
#include <rtpcc/cc/gcc/loss.h>

#include <string.h>

/* how long a probe sends by default (probe-duration) */
#define DURATION              RTPCC_MSEC (200)
/* the delay signal must have been normal this long */
#define CLEAN_TIME            RTPCC_MSEC (500)
/* a probe must get this × the rate it started from through to succeed */
#define SUCCESS               1.1
/* failed probes back off from MIN doubling to MAX; after a success the
 * next may follow after AFTER_SUCCESS */
#define BACKOFF_MIN           RTPCC_SEC (5)
#define BACKOFF_MAX           RTPCC_SEC (60)
#define AFTER_SUCCESS         RTPCC_SEC (1)
/* a probe's feedback is waited for this long past an RTT */
#define WAIT                  RTPCC_MSEC (500)
/* fewer probe packets received say nothing */
#define MIN_PACKETS           5
/* receive < 0.9 × send: the probe saturated the path, whose queue grows
 * at the receive rate; take 0.95 of it (libwebrtc
 * probe_bitrate_estimator) */
#define SATURATED_RATIO       0.9
#define SATURATED_FRACTION    0.95
/* a probe that got this share of its rate through was not limited by the
 * path: probe again (libwebrtc's "further probing") */
#define CHAIN_RATIO           0.9
/* recovery: the estimate fell below 0.66 of where it was within 5 s; aim
 * at 0.85 of that, at most 1.5 × (libwebrtc probe_controller) */
#define DROP_RATIO            0.66
#define DROP_WINDOW           RTPCC_SEC (5)
#define DROP_FRACTION         0.85
#define RECOVERY_GAIN         1.5
/* ALR: the media uses < 65 % of the target for 1 s; probe at 2 × */
#define ALR_RATIO             0.65
#define ALR_TIME              RTPCC_SEC (1)
#define ALR_GAIN              2.0
/* periodic: after this long in increase with a clean signal, at 1.5 × */
#define PERIODIC_CLEAN        RTPCC_SEC (2)
/* capacity: 2 × for max (40 ms, 6 MTU-sized packets), once no packet
 * queued for 500 ms and the estimate is within 0.9 of the last congestion
 * point (a received rate, wire bytes and queue drain included); failures
 * back off to at most 20 s (a steady link pays one short burst per
 * period, a grown link is found within it) */
#define CAPACITY_GAIN         2.0
#define CAPACITY_DURATION     RTPCC_MSEC (40)
#define CAPACITY_QUIET        RTPCC_MSEC (500)
#define CAPACITY_NEAR         0.9
#define CAPACITY_BACKOFF_MAX  RTPCC_SEC (20)
/* a successful capacity probe moves A this far towards what got through */
#define CAPACITY_JUMP         0.5

gdouble
rtpcc_gcc_probe_estimate (gdouble send_rate, gdouble recv_rate)
{
  if (recv_rate < SATURATED_RATIO * send_rate)
    return SATURATED_FRACTION * recv_rate;
  return MIN (send_rate, recv_rate);
}

void
rtpcc_gcc_prober_init (RtpccGccProber * p, RtpccTime now)
{
  memset (p, 0, sizeof (*p));
  p->enabled = TRUE;
  p->duration = DURATION;
  p->capacity_jump = CAPACITY_JUMP;
  p->state = RTPCC_GCC_PROBE_IDLE;
  p->next_time = now;
  p->backoff = BACKOFF_MIN;
  p->next_capacity = now;
  p->capacity_backoff = BACKOFF_MIN;
  p->drop_time = RTPCC_TIME_NONE;
  p->alr_since = RTPCC_TIME_NONE;
  p->last_result = -1;
}

void
rtpcc_gcc_prober_sent (RtpccGccProber * p, const RtpccSentPacket * pkt)
{
  if (!p->have_sent || pkt->seq > p->highest_sent_seq)
    p->highest_sent_seq = pkt->seq;
  p->have_sent = TRUE;
  if (p->state == RTPCC_GCC_PROBE_SENDING && !p->have_first) {
    p->first_seq = pkt->seq;
    p->have_first = TRUE;
  }
}

void
rtpcc_gcc_prober_note_rate (RtpccGccProber * p, RtpccTime now,
    gdouble before, gdouble after)
{
  if (after >= before)
    return;
  /* decreases less than 5 s apart are one drop episode; its starting rate
   * is what recovery probes aim back at */
  if (p->drop_time == RTPCC_TIME_NONE || now - p->drop_time > DROP_WINDOW) {
    p->drop_from = before;
    p->drop_probed = FALSE;
  } else {
    p->drop_from = MAX (p->drop_from, before);
  }
  p->drop_time = now;
}

static void
account (RtpccGccProber * p, const RtpccPacketReport * r)
{
  if (p->state == RTPCC_GCC_PROBE_IDLE || !p->have_first
      || r->seq < p->first_seq)
    return;
  if (p->state == RTPCC_GCC_PROBE_WAITING && r->seq > p->last_seq)
    return;
  if (!r->received) {
    p->lost++;
    return;
  }
  if (r->arrival == RTPCC_TIME_NONE)
    return;
  if (p->rx == 0 || r->arrival < p->first_arrival) {
    p->first_arrival = r->arrival;
    p->first_rx_bytes = r->size;
  }
  if (p->rx == 0 || r->arrival > p->last_arrival)
    p->last_arrival = r->arrival;
  if (p->rx == 0 || r->send_time < p->first_send)
    p->first_send = r->send_time;
  if (p->rx == 0 || r->send_time >= p->last_send) {
    p->last_send = r->send_time;
    p->last_tx_bytes = r->size;
  }
  p->rx++;
  p->rx_bytes += r->size;
  p->tx_bytes += r->size;
}

gboolean
rtpcc_gcc_prober_account (RtpccGccProber * p, const RtpccPacketReport * r)
{
  account (p, r);
  return p->state == RTPCC_GCC_PROBE_WAITING && r->seq >= p->last_seq;
}

void
rtpcc_gcc_prober_overuse (RtpccGccProber * p)
{
  if (p->state != RTPCC_GCC_PROBE_IDLE)
    p->overuse = TRUE;
}

/* rtpcc_gcc_probe_estimate of the probe's packets, -1 if too few: the
 * receive rate over the arrivals after the first, the send rate over the
 * sends before the last */
static gdouble
result (const RtpccGccProber * p)
{
  gdouble tx, rx;

  if (p->rx < MIN_PACKETS || p->last_arrival <= p->first_arrival
      || p->last_send <= p->first_send)
    return -1;
  rx = (p->rx_bytes - p->first_rx_bytes) * 8.0 /
      RTPCC_TIME_AS_SEC (p->last_arrival - p->first_arrival);
  tx = (p->tx_bytes - p->last_tx_bytes) * 8.0 /
      RTPCC_TIME_AS_SEC (p->last_send - p->first_send);
  return rtpcc_gcc_probe_estimate (tx, rx);
}

static void
start (RtpccGccProber * p, RtpccTime now, gdouble rate, gdouble base,
    gdouble max_rate, RtpccTime duration)
{
  p->state = RTPCC_GCC_PROBE_SENDING;
  p->rate = MIN (rate, max_rate);
  p->base = base;
  p->need = SUCCESS * p->base;
  p->end = now + duration;
  p->have_first = FALSE;
  p->rx = p->lost = 0;
  p->rx_bytes = p->tx_bytes = 0;
  p->overuse = FALSE;
  p->n_probes++;
}

gboolean
rtpcc_gcc_prober_maybe_start (RtpccGccProber * p, RtpccTime now,
    const RtpccGccProbeInput * in)
{
  gdouble rate = in->rate, probe = 0;
  RtpccTime duration = p->duration;
  gboolean capacity = FALSE;

  if (in->send_rate >= 0 && in->send_rate < ALR_RATIO * in->target) {
    if (p->alr_since == RTPCC_TIME_NONE)
      p->alr_since = now;
  } else {
    p->alr_since = RTPCC_TIME_NONE;
  }

  if (!p->enabled || p->state != RTPCC_GCC_PROBE_IDLE || in->startup
      || now < p->next_time)
    return FALSE;
  /* the delay signal is clean: normal for a while, nothing lost */
  if (in->signal != RTPCC_GCC_NORMAL
      || now - in->last_not_normal < CLEAN_TIME
      || in->rc_state == RTPCC_GCC_RC_DECREASE || in->loss_limiting
      || in->loss_fraction >= RTPCC_GCC_LOSS_LOW || in->received_rate < 0)
    return FALSE;

  if (p->recovery && p->drop_time != RTPCC_TIME_NONE
      && now - p->drop_time <= DROP_WINDOW
      && rate < DROP_RATIO * p->drop_from && (!p->drop_probed
          || rate >= SUCCESS * p->drop_limit)) {
    probe = MIN (DROP_FRACTION * p->drop_from, RECOVERY_GAIN * rate);
    /* Not again at this level unless this one gets through (see
     * finish): the sawtooth's cuts at the new level keep the drop
     * episode open, and a full link would be probed after every back-off */
    p->drop_probed = TRUE;
    p->drop_limit = G_MAXDOUBLE;        /* until this one is judged */
  } else if (p->alr_since != RTPCC_TIME_NONE && now - p->alr_since >= ALR_TIME)
    probe = ALR_GAIN * rate;
  else if (p->capacity && in->rc_state == RTPCC_GCC_RC_INCREASE
      && now >= p->next_capacity && in->quiet_time >= CAPACITY_QUIET
      && (p->chain || !in->have_cp || rate >= CAPACITY_NEAR * in->cp_mean)) {
    /* A full link keeps a few ms of queue (frames are paced faster than
     * the target), one with spare capacity none: a short burst at 2 ×
     * answers within an RTT. On a shared link a flow near its share gets
     * ~2A / (2A + others) of C through, < 0.9 P: it fails and takes
     * nobody's share. */
    probe = CAPACITY_GAIN * rate;
    /* long enough for a few MTU-sized packets at low rates (padding
     * probes are small, FEC packets may not be) */
    duration = MIN (p->duration, MAX (CAPACITY_DURATION,
            (RtpccTime) (RTPCC_SEC (1) * 6.0 * 1200 * 8 / MAX (probe,
                    1.0))));
    capacity = TRUE;
  } else if (p->periodic && in->rc_state == RTPCC_GCC_RC_INCREASE
      && now - in->last_not_normal >= PERIODIC_CLEAN)
    probe = RECOVERY_GAIN * rate;
  probe = MIN (probe, in->max_rate);
  if (probe < SUCCESS * rate)
    return FALSE;
  start (p, now, probe, rate, in->max_rate, duration);
  /* A capacity probe runs where the link may be full, possibly shared: in
   * a FIFO that other flows keep busy a short burst still gets its share
   * of the input through, ~1.2 × A for two equal flows, which 1.1 × A
   * would call a success. Only ~all of its rate through shows spare
   * capacity. */
  p->is_capacity = capacity;
  if (capacity)
    p->need = MAX (p->need, CHAIN_RATIO * p->rate);
  return TRUE;
}

static RtpccGccProbeOutcome
finish (RtpccGccProber * p, RtpccTime now, gboolean success, gdouble res,
    gdouble delay_rate, gdouble * new_rate)
{
  p->state = RTPCC_GCC_PROBE_IDLE;
  p->last_result = res;
  if (success) {
    gdouble r = MIN (res, p->rate);
    if (p->is_capacity && r > delay_rate)
      r = delay_rate + p->capacity_jump * (r - delay_rate);
    *new_rate = r;
    p->n_success++;
    p->backoff = BACKOFF_MIN;
    p->capacity_backoff = BACKOFF_MIN;
    p->next_time = now + AFTER_SUCCESS;
    p->chain = res >= CHAIN_RATIO * p->rate;
  } else {
    p->chain = FALSE;
    p->n_fail++;
    if (p->is_capacity) {
      /* its own back-off: a capacity probe failing on a full link must not
       * hold back the recovery probe after a drop */
      p->next_capacity = now + p->capacity_backoff;
      p->capacity_backoff = MIN (p->capacity_backoff * 2,
          CAPACITY_BACKOFF_MAX);
      p->next_time = now + AFTER_SUCCESS;
    } else {
      p->next_time = now + p->backoff;
      p->backoff = MIN (p->backoff * 2, BACKOFF_MAX);
    }
  }
  /* A recovery probe that got (nearly) all of its rate through is followed
   * by the next (1 s later, 1.5 × again, up to 0.85 × the pre-drop rate);
   * one that found the path's limit is remembered (what got through, at
   * least the rate it left) */
  if (!p->is_capacity && p->drop_probed) {
    if (success && p->chain)
      p->drop_probed = FALSE;
    else
      p->drop_limit = MAX (res, p->base);
  }
  return success ? RTPCC_GCC_PROBE_SUCCEEDED : RTPCC_GCC_PROBE_FAILED;
}

RtpccGccProbeOutcome
rtpcc_gcc_prober_stop (RtpccGccProber * p, RtpccTime now, RtpccTime rtt)
{
  gdouble unused;

  p->state = RTPCC_GCC_PROBE_WAITING;
  p->last_seq = p->have_sent ? p->highest_sent_seq : 0;
  p->deadline = now + rtt + WAIT;
  /* nothing was sent during the probe */
  if (!p->have_first)
    return finish (p, now, FALSE, -1, 0, &unused);
  return RTPCC_GCC_PROBE_RUNNING;
}

RtpccGccProbeOutcome
rtpcc_gcc_prober_evaluate (RtpccGccProber * p, RtpccTime now,
    gboolean all_reported, gdouble delay_rate, gdouble * new_rate)
{
  gdouble res;

  if (p->state == RTPCC_GCC_PROBE_IDLE)
    return RTPCC_GCC_PROBE_RUNNING;
  if (p->overuse || (p->rx + p->lost >= MIN_PACKETS
          && p->lost > RTPCC_GCC_LOSS_HIGH * (p->rx + p->lost)))
    return finish (p, now, FALSE, result (p), delay_rate, new_rate);
  if (p->state != RTPCC_GCC_PROBE_WAITING)
    return RTPCC_GCC_PROBE_RUNNING;
  if (!all_reported && now < p->deadline)
    return RTPCC_GCC_PROBE_RUNNING;
  res = result (p);
  return finish (p, now, res >= p->need, res, delay_rate, new_rate);
}

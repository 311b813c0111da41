/* RFC 8083 RTP circuit breakers.
 *
 * What each rule takes from the RFC, and what is our choice:
 *
 * RTCP timeout (§4.1). The RFC times out after three deterministic RTCP
 * reporting intervals Td computed with the fixed minimum Tmin = 5 s, so a
 * reduced minimum interval (RFC 3550 §6.2, AVPF) never shortens it: here
 * timeout = 3 × MAX (Td, 5 s). It applies to a sender: it is armed only while
 * we keep sending after the last sign of life, and re-armed from the first
 * packet after a pause longer than the timeout. Choice: RFC 8888 congestion
 * feedback (on_feedback) resets it too. CCFB is an RTCP report about our SSRC
 * that carries per-packet reception state, a superset of what an RR block
 * proves, and RFC 8888 lets it be sent instead of frequent RRs; the rule
 * exists to catch a receiver or return path that is gone, and a CCFB proves
 * both alive.
 *
 * Media timeout (§4.2). Reports whose extended highest sequence number does
 * not increase while we send mean our packets no longer arrive. It trips
 * after MEDIA_TIMEOUT = ceil (k × max (Tf, Tr, Tdr) / Tdr) consecutive such
 * reports, k = 5 (Tf framing interval, Tr RTT, Tdr the receiver's reporting
 * interval). A report counts only when we sent on that SSRC in its interval,
 * so pausing media never trips it; a report that advances resets the count.
 *
 * Congestion (§4.3). Over the last CB_INTERVAL reporting intervals,
 *   CB_INTERVAL = ceil (3 × min (max (10·G·Tf, 10·Tr, 3·Tdr),
 *                                max (15 s, 3·Td)) / (3·Tdr)),
 * the TCP throughput X for the reported loss fraction p, the RTT R and our
 * mean packet size s is compared with our sending rate; more than 10 × X
 * ("within an order of magnitude" of TCP, RFC 3551 as quoted by §4.3) trips.
 * X is the simple equation s / (R·sqrt (2·b·p/3)), b = 1, or optionally the
 * full RFC 5348 one. Our choices: p is the fraction-lost values of the window
 * weighted by the packets we sent in each interval (the loss over the whole
 * window); with several SSRCs in one compound RTCP packet the worst fraction
 * counts; R is the mean RTT the window's reports carried; the sending rate is
 * everything we sent over the window's span (all SSRCs: one 5-tuple). With
 * reduce_first the sender first cuts to a tenth and ceases only if the
 * reduced rate is still congested one CB_INTERVAL later (§4.3's MAY).
 *
 * Media usability (§4.4) depends on the codec: only a hook here.
 *
 * Ceasing and restarting (§4.5). A trip means: stop sending media, keep
 * RTCP. The RFC does not want an automatic restart straight into the same
 * congestion. Our policy: hold off for the interval over which the rule
 * tripped, doubled on every consecutive trip (capped), then wait for a sign
 * of life from the receiver (a report or feedback since the trip), then
 * restart on probation at the minimum rate with fresh history (any RTCP from
 * the receiver counts: with our media stopped it has no block about us, so
 * waiting for a report block would wait forever). Probation ends
 * after CB_INTERVAL clean reports with at least one sequence advance; any rule
 * firing meanwhile trips again with twice the hold-off. auto_recover = FALSE
 * leaves restarting to the application (rtpcc_circuit_breaker_reset).
 *
 * After a timeout trip (§4.1, §4.2) §4.5's "information that the problem
 * has dissipated" can reach us while media is stopped: RTCP keeps flowing
 * both ways, and a report block whose LSR names one of our SRs sent after
 * the trip shows that the forward path delivers again and the receiver
 * hears it. That ends the hold-off at once (a path back after a 5 s outage
 * is used again within a few RTCP intervals, not after a doubled hold-off).
 * And since a timeout trip comes after the no-feedback timer (nofeedback.h)
 * has halved the controller's rate to the minimum, which then restarts in
 * slow start, its probation does not hold the rate (holds_rate); after a
 * congestion or usability trip it does.
 *
 * Note: the RFC text was only partly readable from here; the §4.1 Tmin, the
 * §4.2 formula with k = 5 and the §4.3 CB_INTERVAL formula match two
 * independent implementations (a WebRTC circuit-breaker patch and a C#
 * one). The §4.3 opening and its 10× "order of magnitude" were read in the
 * RFC itself.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/circuitbreaker.h>
#include <rtpcc/tcpeq.h>

#include <math.h>
#include <string.h>

/* reporting intervals kept; CB_INTERVAL is capped to it */
#define HISTORY 64

typedef struct
{
  RtpccTime start, end;         /* the interval this report covers */
  guint64 bytes;                /* what we sent in it */
  guint64 packets;
  gdouble loss;                 /* worst fraction lost of its blocks */
  gdouble rtt_sum;              /* seconds */
  guint rtt_n;
  gboolean advanced;            /* some SSRC's highest seq advanced */
} Interval;

typedef struct
{
  guint32 ssrc;
  guint32 hsn;
  gboolean have_hsn;
  guint stalls;
  guint64 packets_at_report;    /* our total_packets at its last report */
} SsrcState;

typedef enum
{
  EVAL_UNKNOWN,                 /* not enough history */
  EVAL_CLEAR,
  EVAL_CONGESTED,
} Eval;

struct _RtpccCircuitBreaker
{
  RtpccCircuitBreakerConfig cfg;

  RtpccCircuitBreakerState state;
  RtpccCircuitBreakerReason reason;
  RtpccTime since;
  RtpccTime resume_at;
  guint64 rate_cap;
  guint trips;
  guint64 generation;
  gchar *detail;
  gboolean alive_since_trip;

  /* sending */
  RtpccTime last_sent;
  RtpccTime active_since;       /* first packet after a long pause */
  guint64 total_packets;
  guint64 pending_bytes, pending_packets;
  RtpccTime pending_start;

  /* reception */
  RtpccTime last_alive;         /* last report or feedback */
  RtpccTime armed_since;        /* creation, reset, probation start */
  RtpccTime last_report;        /* time of the newest interval */
  Interval intervals[HISTORY];
  guint64 n_intervals;          /* ever, indexes the ring */
  guint n_armed;                /* since the history was last cleared */
  RtpccTime tdr;                /* learned receiver report interval */
  guint n_gaps;
  RtpccTime srtt;
  GArray *ssrcs;                /* SsrcState */

  guint probation_intervals;
  gboolean probation_advanced;

  /* the last congestion evaluation, for the detail string */
  gdouble last_rate, last_tcp_rate, last_p;
  RtpccTime last_rtt;
  guint last_s;
};

void
rtpcc_circuit_breaker_config_init (RtpccCircuitBreakerConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->rtcp_interval = RTPCC_CB_TMIN;
  config->report_interval = 0;
  config->frame_interval = RTPCC_NSEC_PER_SEC / 30;
  config->frame_group = 1;
  config->packet_size = 1200;
  config->media_timeout_k = RTPCC_CB_MEDIA_TIMEOUT_K;
  config->congestion_factor = RTPCC_CB_CONGESTION_FACTOR;
  config->full_equation = FALSE;
  config->reduce_first = FALSE;
  config->enable_rtcp_timeout = TRUE;
  config->enable_media_timeout = TRUE;
  config->enable_congestion = TRUE;
  config->auto_recover = TRUE;
  config->max_holdoff = RTPCC_SEC (300);
}

static void
set_detail (RtpccCircuitBreaker * cb, gchar * detail)
{
  g_free (cb->detail);
  cb->detail = detail;
}

static RtpccTime
rtcp_timeout (const RtpccCircuitBreaker * cb)
{
  return RTPCC_CB_RTCP_TIMEOUT_INTERVALS * MAX (cb->cfg.rtcp_interval,
      RTPCC_CB_TMIN);
}

static RtpccTime
get_tdr (const RtpccCircuitBreaker * cb)
{
  return cb->cfg.report_interval > 0 ? cb->cfg.report_interval : cb->tdr;
}

guint
rtpcc_circuit_breaker_get_cb_interval (const RtpccCircuitBreaker * cb)
{
  gdouble tdr = RTPCC_TIME_AS_SEC (get_tdr (cb));
  gdouble td = RTPCC_TIME_AS_SEC (cb->cfg.rtcp_interval);
  gdouble tf = RTPCC_TIME_AS_SEC (cb->cfg.frame_interval);
  gdouble tr = cb->srtt == RTPCC_TIME_NONE ? 0.0 : RTPCC_TIME_AS_SEC (cb->srtt);
  gdouble n;

  if (tdr <= 0.0)
    return 1;
  n = 3.0 * MIN (MAX (MAX (10.0 * cb->cfg.frame_group * tf, 10.0 * tr),
          3.0 * tdr), MAX (15.0, 3.0 * td)) / (3.0 * tdr);
  /* the epsilon keeps 3.0000000001 (a learned Tdr) from becoming 4 */
  n = ceil (n - 1e-9);
  return (guint) CLAMP (n, 1.0, (gdouble) HISTORY);
}

guint
rtpcc_circuit_breaker_get_media_timeout (const RtpccCircuitBreaker * cb)
{
  gdouble tdr = RTPCC_TIME_AS_SEC (get_tdr (cb));
  gdouble tf = RTPCC_TIME_AS_SEC (cb->cfg.frame_interval);
  gdouble tr = cb->srtt == RTPCC_TIME_NONE ? 0.0 : RTPCC_TIME_AS_SEC (cb->srtt);
  gdouble n;

  if (tdr <= 0.0)
    return cb->cfg.media_timeout_k;
  n = ceil (cb->cfg.media_timeout_k * MAX (MAX (tf, tr), tdr) / tdr - 1e-9);
  return (guint) MAX (n, 1.0);
}

static void
clear_history (RtpccCircuitBreaker * cb, RtpccTime now)
{
  cb->n_armed = 0;
  /* a gap across a trip or reset says nothing about the report interval */
  cb->last_report = RTPCC_TIME_NONE;
  cb->pending_bytes = cb->pending_packets = 0;
  cb->pending_start = now;
  cb->armed_since = now;
  for (guint i = 0; i < cb->ssrcs->len; i++) {
    SsrcState *s = &g_array_index (cb->ssrcs, SsrcState, i);
    s->have_hsn = FALSE;
    s->stalls = 0;
    s->packets_at_report = cb->total_packets;
  }
}

static void
set_state (RtpccCircuitBreaker * cb, RtpccTime now,
    RtpccCircuitBreakerState state, RtpccCircuitBreakerReason reason)
{
  cb->state = state;
  cb->reason = reason;
  cb->since = now;
  cb->generation++;
}

static void
trip (RtpccCircuitBreaker * cb, RtpccTime now,
    RtpccCircuitBreakerReason reason, RtpccTime base_holdoff, gchar * detail)
{
  RtpccTime holdoff = MAX (base_holdoff, RTPCC_MSEC (1));

  /* double per consecutive trip; the loop keeps the shift from overflowing */
  for (guint i = 1; i < cb->trips + 1 && holdoff < cb->cfg.max_holdoff; i++)
    holdoff *= 2;
  holdoff = MIN (holdoff, cb->cfg.max_holdoff);
  cb->trips++;
  set_state (cb, now, RTPCC_CB_STATE_TRIPPED, reason);
  cb->resume_at = now + holdoff;
  cb->rate_cap = 0;
  cb->alive_since_trip = FALSE;
  set_detail (cb, detail);
}

static gboolean
is_timeout (RtpccCircuitBreakerReason reason)
{
  return reason == RTPCC_CB_REASON_RTCP_TIMEOUT
      || reason == RTPCC_CB_REASON_MEDIA_TIMEOUT;
}

static void
try_recover (RtpccCircuitBreaker * cb, RtpccTime now)
{
  if (cb->state != RTPCC_CB_STATE_TRIPPED || !cb->cfg.auto_recover
      || now < cb->resume_at || !cb->alive_since_trip)
    return;
  set_state (cb, now, RTPCC_CB_STATE_PROBATION, cb->reason);
  clear_history (cb, now);
  cb->probation_intervals = 0;
  cb->probation_advanced = FALSE;
  set_detail (cb, g_strdup_printf ("probation after %s: restart at the "
          "minimum rate", rtpcc_circuit_breaker_reason_name (cb->reason)));
}

static void
close_breaker (RtpccCircuitBreaker * cb, RtpccTime now, const gchar * why)
{
  set_state (cb, now, RTPCC_CB_STATE_OK, RTPCC_CB_REASON_NONE);
  cb->rate_cap = 0;
  cb->trips = 0;
  set_detail (cb, g_strdup (why));
}

static void
check_rtcp_timeout (RtpccCircuitBreaker * cb, RtpccTime now)
{
  RtpccTime ref, timeout = rtcp_timeout (cb);

  if (!cb->cfg.enable_rtcp_timeout || cb->state == RTPCC_CB_STATE_TRIPPED
      || cb->last_sent == RTPCC_TIME_NONE)
    return;
  /* RTPCC_TIME_NONE is the smallest time, so MAX skips unset references */
  ref = MAX (MAX (cb->last_alive, cb->active_since), cb->armed_since);
  /* only a sender times out: we must have sent within the timeout */
  if (now - ref >= timeout && now - cb->last_sent >= timeout) {
    /* we stopped sending before anyone noticed: nothing to time out until
     * we send again (and next_tick must not stay in the past) */
    cb->armed_since = now;
    return;
  }
  if (now - ref >= timeout && now - cb->last_sent < timeout) {
    trip (cb, now, RTPCC_CB_REASON_RTCP_TIMEOUT, timeout,
        g_strdup_printf ("no RTCP report about our media for %.1f s while "
            "sending (timeout 3 x %.1f s)", RTPCC_TIME_AS_SEC (now - ref),
            RTPCC_TIME_AS_SEC (timeout / 3)));
  }
}

static void
mark_alive (RtpccCircuitBreaker * cb, RtpccTime now)
{
  cb->last_alive = now;
  if (cb->state == RTPCC_CB_STATE_TRIPPED)
    cb->alive_since_trip = TRUE;
}

/* Evaluates §4.3 over the last CB_INTERVAL reporting intervals. */
static Eval
evaluate_congestion (RtpccCircuitBreaker * cb)
{
  guint n = rtpcc_circuit_breaker_get_cb_interval (cb);
  guint64 bytes = 0, packets = 0;
  gdouble lost = 0.0, rtt_sum = 0.0, p, s, R, X, rate, span;
  guint rtt_n = 0;
  RtpccTime start = RTPCC_TIME_NONE, end = RTPCC_TIME_NONE;

  if (cb->n_armed < n)
    return EVAL_UNKNOWN;
  for (guint i = 0; i < n; i++) {
    const Interval *iv = &cb->intervals[(cb->n_intervals - 1 - i) % HISTORY];
    bytes += iv->bytes;
    packets += iv->packets;
    lost += iv->loss * iv->packets;
    rtt_sum += iv->rtt_sum;
    rtt_n += iv->rtt_n;
    start = iv->start;
    if (i == 0)
      end = iv->end;
  }
  span = RTPCC_TIME_AS_SEC (end - start);
  if (packets == 0 || span <= 0.0)
    return EVAL_CLEAR;          /* not sending: nothing to break */
  if (rtt_n > 0)
    R = rtt_sum / rtt_n;
  else if (cb->srtt != RTPCC_TIME_NONE)
    R = RTPCC_TIME_AS_SEC (cb->srtt);
  else
    return EVAL_UNKNOWN;        /* no RTT yet: the equation needs one */
  p = lost / packets;
  s = (gdouble) bytes / packets;
  rate = bytes / span;
  cb->last_p = p;
  cb->last_rate = rate * 8.0;
  cb->last_rtt = (RtpccTime) (R * RTPCC_NSEC_PER_SEC);
  cb->last_s = (guint) s;
  if (p <= 0.0) {
    cb->last_tcp_rate = INFINITY;
    return EVAL_CLEAR;
  }
  if (cb->cfg.full_equation)
    X = rtpcc_tcpeq_throughput (s, RTPCC_TIME_AS_SEC (cb->last_rtt), p);
  else
    X = s / (MAX (R, 1e-6) * sqrt (2.0 * p / 3.0));
  cb->last_tcp_rate = X * 8.0;
  return rate > cb->cfg.congestion_factor * X ? EVAL_CONGESTED : EVAL_CLEAR;
}

static gchar *
congestion_detail (const RtpccCircuitBreaker * cb, const gchar * what)
{
  return g_strdup_printf ("%ssending %.0f kbit/s > %.0f x TCP-friendly "
      "%.1f kbit/s (p = %.4f, RTT %.0f ms, s = %u B) over %u reports", what,
      cb->last_rate / 1000.0, cb->cfg.congestion_factor,
      cb->last_tcp_rate / 1000.0, cb->last_p,
      RTPCC_TIME_AS_MSEC (cb->last_rtt), cb->last_s,
      rtpcc_circuit_breaker_get_cb_interval (cb));
}

static SsrcState *
lookup_ssrc (RtpccCircuitBreaker * cb, guint32 ssrc)
{
  SsrcState s = { 0, };

  for (guint i = 0; i < cb->ssrcs->len; i++) {
    SsrcState *it = &g_array_index (cb->ssrcs, SsrcState, i);
    if (it->ssrc == ssrc)
      return it;
  }
  s.ssrc = ssrc;
  /* its first report only sets the baseline */
  s.packets_at_report = cb->total_packets;
  g_array_append_val (cb->ssrcs, s);
  return &g_array_index (cb->ssrcs, SsrcState, cb->ssrcs->len - 1);
}

RtpccCircuitBreaker *
rtpcc_circuit_breaker_new (const RtpccCircuitBreakerConfig * config,
    RtpccTime now)
{
  RtpccCircuitBreaker *cb = g_new0 (RtpccCircuitBreaker, 1);

  cb->cfg = *config;
  if (cb->cfg.rtcp_interval <= 0)
    cb->cfg.rtcp_interval = RTPCC_CB_TMIN;
  if (cb->cfg.frame_group == 0)
    cb->cfg.frame_group = 1;
  if (cb->cfg.packet_size == 0)
    cb->cfg.packet_size = 1200;
  if (cb->cfg.media_timeout_k == 0)
    cb->cfg.media_timeout_k = RTPCC_CB_MEDIA_TIMEOUT_K;
  if (cb->cfg.congestion_factor <= 0.0)
    cb->cfg.congestion_factor = RTPCC_CB_CONGESTION_FACTOR;
  if (cb->cfg.max_holdoff <= 0)
    cb->cfg.max_holdoff = RTPCC_SEC (300);
  cb->ssrcs = g_array_new (FALSE, TRUE, sizeof (SsrcState));
  cb->state = RTPCC_CB_STATE_OK;
  cb->reason = RTPCC_CB_REASON_NONE;
  cb->since = now;
  cb->resume_at = RTPCC_TIME_NONE;
  cb->last_sent = cb->active_since = RTPCC_TIME_NONE;
  cb->last_alive = RTPCC_TIME_NONE;
  cb->last_report = RTPCC_TIME_NONE;
  cb->srtt = cb->last_rtt = RTPCC_TIME_NONE;
  cb->tdr = cb->cfg.rtcp_interval;
  cb->detail = g_strdup ("ok");
  clear_history (cb, now);
  return cb;
}

void
rtpcc_circuit_breaker_free (RtpccCircuitBreaker * cb)
{
  if (!cb)
    return;
  g_array_unref (cb->ssrcs);
  g_free (cb->detail);
  g_free (cb);
}

void
rtpcc_circuit_breaker_on_sent (RtpccCircuitBreaker * cb, RtpccTime now,
    guint size)
{
  if (cb->last_sent == RTPCC_TIME_NONE
      || now - cb->last_sent >= rtcp_timeout (cb))
    cb->active_since = now;
  cb->last_sent = now;
  cb->total_packets++;
  cb->pending_packets++;
  cb->pending_bytes += size;
  check_rtcp_timeout (cb, now);
}

void
rtpcc_circuit_breaker_on_feedback (RtpccCircuitBreaker * cb, RtpccTime now)
{
  mark_alive (cb, now);
  try_recover (cb, now);
}

void
rtpcc_circuit_breaker_on_rtcp (RtpccCircuitBreaker * cb, RtpccTime now)
{
  if (cb->state != RTPCC_CB_STATE_TRIPPED)
    return;
  cb->alive_since_trip = TRUE;
  try_recover (cb, now);
}

void
rtpcc_circuit_breaker_on_report (RtpccCircuitBreaker * cb, RtpccTime now,
    const RtpccReceiverReport * rr)
{
  Interval *iv;
  SsrcState *s;
  guint64 sent;
  gboolean new_interval;
  Eval ev;

  mark_alive (cb, now);
  if (cb->state == RTPCC_CB_STATE_TRIPPED) {
    if (is_timeout (cb->reason) && rr->lsr_sent != RTPCC_TIME_NONE
        && rr->lsr_sent > cb->since)
      cb->resume_at = MIN (cb->resume_at, now);
    try_recover (cb, now);
    return;
  }

  if (rr->rtt != RTPCC_TIME_NONE && rr->rtt >= 0)
    cb->srtt = cb->srtt == RTPCC_TIME_NONE ? rr->rtt :
        (7 * cb->srtt + rr->rtt) / 8;

  /* one reporting interval per compound packet: blocks arriving at the same
   * time merge into it */
  new_interval = cb->n_armed == 0 || now > cb->last_report;
  if (new_interval) {
    if (cb->last_report != RTPCC_TIME_NONE && now > cb->last_report) {
      RtpccTime gap = now - cb->last_report;
      cb->tdr = cb->n_gaps++ == 0 ? gap : (7 * cb->tdr + gap) / 8;
    }
    iv = &cb->intervals[cb->n_intervals % HISTORY];
    memset (iv, 0, sizeof (*iv));
    iv->start = cb->pending_start;
    iv->end = now;
    iv->bytes = cb->pending_bytes;
    iv->packets = cb->pending_packets;
    cb->pending_bytes = cb->pending_packets = 0;
    cb->pending_start = now;
    cb->n_intervals++;
    cb->n_armed++;
    cb->last_report = now;
  } else {
    iv = &cb->intervals[(cb->n_intervals - 1) % HISTORY];
  }
  iv->loss = MAX (iv->loss, rr->fraction_lost / 256.0);
  if (rr->rtt != RTPCC_TIME_NONE && rr->rtt >= 0) {
    iv->rtt_sum += RTPCC_TIME_AS_SEC (rr->rtt);
    iv->rtt_n++;
  }

  /* §4.2 media timeout, per SSRC */
  s = lookup_ssrc (cb, rr->ssrc);
  sent = cb->total_packets - s->packets_at_report;
  s->packets_at_report = cb->total_packets;
  if (s->have_hsn) {
    if ((gint32) (rr->ext_highest_seq - s->hsn) > 0) {
      s->stalls = 0;
      iv->advanced = TRUE;
    } else if (sent > 0 && rr->packets_sent_interval > 0) {
      s->stalls++;
    }
  }
  s->hsn = rr->ext_highest_seq;
  s->have_hsn = TRUE;
  if (cb->cfg.enable_media_timeout
      && s->stalls >= rtpcc_circuit_breaker_get_media_timeout (cb)) {
    guint stalls = s->stalls;
    trip (cb, now, RTPCC_CB_REASON_MEDIA_TIMEOUT,
        stalls * get_tdr (cb),
        g_strdup_printf ("SSRC %08x: extended highest sequence number stuck "
            "at %u for %u reports while sending", rr->ssrc, rr->ext_highest_seq,
            stalls));
    return;
  }

  /* §4.3 congestion */
  if (cb->cfg.enable_congestion) {
    guint n = rtpcc_circuit_breaker_get_cb_interval (cb);
    ev = evaluate_congestion (cb);
    if (cb->state == RTPCC_CB_STATE_REDUCED) {
      if (ev == EVAL_CONGESTED) {
        trip (cb, now, RTPCC_CB_REASON_CONGESTION, n * get_tdr (cb),
            congestion_detail (cb, "still congested after the ten-fold cut: "));
        return;
      }
      if (ev == EVAL_CLEAR) {
        close_breaker (cb, now, "ten-fold cut resolved the congestion");
        return;
      }
    } else if (ev == EVAL_CONGESTED) {
      if (cb->cfg.reduce_first && cb->state == RTPCC_CB_STATE_OK) {
        set_state (cb, now, RTPCC_CB_STATE_REDUCED,
            RTPCC_CB_REASON_CONGESTION);
        cb->rate_cap = MAX ((guint64) (cb->last_rate / 10.0), 1);
        set_detail (cb, congestion_detail (cb, "cut ten-fold: "));
        /* the reduced rate is judged on its own reports */
        cb->n_armed = 0;
        return;
      }
      trip (cb, now, RTPCC_CB_REASON_CONGESTION, n * get_tdr (cb),
          congestion_detail (cb, ""));
      return;
    }
  }

  if (cb->state == RTPCC_CB_STATE_PROBATION && new_interval) {
    cb->probation_intervals++;
    if (iv->advanced)
      cb->probation_advanced = TRUE;
    if (cb->probation_intervals >= rtpcc_circuit_breaker_get_cb_interval (cb)
        && cb->probation_advanced)
      close_breaker (cb, now, "recovered: probation passed");
  }
}

void
rtpcc_circuit_breaker_media_unusable (RtpccCircuitBreaker * cb, RtpccTime now,
    const gchar * detail)
{
  if (cb->state == RTPCC_CB_STATE_TRIPPED)
    return;
  trip (cb, now, RTPCC_CB_REASON_MEDIA_USABILITY,
      rtpcc_circuit_breaker_get_cb_interval (cb) * get_tdr (cb),
      g_strdup_printf ("media unusable: %s", detail ? detail : "(no detail)"));
}

void
rtpcc_circuit_breaker_tick (RtpccCircuitBreaker * cb, RtpccTime now)
{
  check_rtcp_timeout (cb, now);
  try_recover (cb, now);
}

RtpccTime
rtpcc_circuit_breaker_next_tick (const RtpccCircuitBreaker * cb)
{
  RtpccTime ref;

  if (cb->state == RTPCC_CB_STATE_TRIPPED) {
    /* without a sign of life the next report or feedback will recover */
    return cb->cfg.auto_recover && cb->alive_since_trip ? cb->resume_at :
        RTPCC_TIME_NONE;
  }
  if (!cb->cfg.enable_rtcp_timeout || cb->last_sent == RTPCC_TIME_NONE)
    return RTPCC_TIME_NONE;
  ref = MAX (MAX (cb->last_alive, cb->active_since), cb->armed_since);
  return cb->last_sent > ref ? ref + rtcp_timeout (cb) : RTPCC_TIME_NONE;
}

void
rtpcc_circuit_breaker_reset (RtpccCircuitBreaker * cb, RtpccTime now)
{
  clear_history (cb, now);
  close_breaker (cb, now, "reset by the application");
}

gboolean
rtpcc_circuit_breaker_is_tripped (const RtpccCircuitBreaker * cb)
{
  return cb->state != RTPCC_CB_STATE_OK;
}

gboolean
rtpcc_circuit_breaker_holds_rate (const RtpccCircuitBreaker * cb)
{
  return cb->state != RTPCC_CB_STATE_OK
      && !(cb->state == RTPCC_CB_STATE_PROBATION && is_timeout (cb->reason));
}

gboolean
rtpcc_circuit_breaker_should_stop (const RtpccCircuitBreaker * cb)
{
  return cb->state == RTPCC_CB_STATE_TRIPPED;
}

RtpccCircuitBreakerState
rtpcc_circuit_breaker_get_state (const RtpccCircuitBreaker * cb)
{
  return cb->state;
}

RtpccCircuitBreakerReason
rtpcc_circuit_breaker_get_reason (const RtpccCircuitBreaker * cb)
{
  return cb->reason;
}

const gchar *
rtpcc_circuit_breaker_get_detail (const RtpccCircuitBreaker * cb)
{
  return cb->detail;
}

void
rtpcc_circuit_breaker_get_status (const RtpccCircuitBreaker * cb,
    RtpccCircuitBreakerStatus * status)
{
  status->state = cb->state;
  status->reason = cb->reason;
  status->since = cb->since;
  status->resume_at = cb->state == RTPCC_CB_STATE_TRIPPED ? cb->resume_at :
      RTPCC_TIME_NONE;
  status->rate_cap = cb->state == RTPCC_CB_STATE_REDUCED ? cb->rate_cap : 0;
  status->trips = cb->trips;
  status->generation = cb->generation;
  status->detail = cb->detail;
}

const gchar *
rtpcc_circuit_breaker_reason_name (RtpccCircuitBreakerReason r)
{
  switch (r) {
    case RTPCC_CB_REASON_NONE:
      return "none";
    case RTPCC_CB_REASON_RTCP_TIMEOUT:
      return "rtcp-timeout";
    case RTPCC_CB_REASON_MEDIA_TIMEOUT:
      return "media-timeout";
    case RTPCC_CB_REASON_CONGESTION:
      return "congestion";
    case RTPCC_CB_REASON_MEDIA_USABILITY:
      return "media-usability";
  }
  return "unknown";
}

const gchar *
rtpcc_circuit_breaker_state_name (RtpccCircuitBreakerState s)
{
  switch (s) {
    case RTPCC_CB_STATE_OK:
      return "ok";
    case RTPCC_CB_STATE_REDUCED:
      return "reduced";
    case RTPCC_CB_STATE_TRIPPED:
      return "tripped";
    case RTPCC_CB_STATE_PROBATION:
      return "probation";
  }
  return "unknown";
}

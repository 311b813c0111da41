/* RtpccCircuitBreaker: the RTP circuit breakers of RFC 8083.
 *
 * Not a congestion controller: the controller decides the rate, the breaker
 * decides when sending is no longer safe (it "opens the circuit"). It watches
 * only what RFC 8083 uses — RTCP reception reports about our media, the
 * packets we send and the passage of time:
 *
 *   §4.1 RTCP timeout   nothing heard about our media for 3 deterministic
 *                       RTCP intervals (Td with Tmin = 5 s) while sending
 *   §4.2 media timeout  MEDIA_TIMEOUT consecutive reports whose extended
 *                       highest sequence number does not advance while we
 *                       keep sending (k = 5 in the RFC's formula)
 *   §4.3 congestion     over CB_INTERVAL reporting intervals, we sent more
 *                       than 10 × the TCP throughput for the reported loss
 *                       fraction and RTT
 *   §4.4 media          not decidable here (codec specific): the application
 *        usability      reports it through rtpcc_circuit_breaker_media_unusable
 *
 * On a trip the sender must cease media (§4.5) but keep RTCP going. The
 * breaker then holds off for at least the interval that tripped it (doubled
 * on each consecutive trip), waits for a sign of life from the receiver, and
 * lets the sender restart at its minimum rate on probation; it closes again
 * only after CB_INTERVAL clean reports. After a timeout (§4.1, §4.2: the
 * path or the receiver failed) a report showing that one of our SRs sent
 * after the trip reached the receiver ends the hold-off at once, and on
 * probation the controller's own rate applies: the no-feedback timer
 * (nofeedback.h) has brought it down already and it restarts in slow
 * start. See circuitbreaker.c for the rules' details and which RFC text
 * each follows.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CIRCUIT_BREAKER_H__
#define __RTPCC_CIRCUIT_BREAKER_H__

#include <rtpcc/common.h>
#include <rtpcc/controller.h>

G_BEGIN_DECLS

/* RFC 8083 §4.1: three reporting intervals of silence */
#define RTPCC_CB_RTCP_TIMEOUT_INTERVALS 3
/* RFC 8083 §4.1: Td is taken with the fixed minimum interval Tmin = 5 s */
#define RTPCC_CB_TMIN RTPCC_SEC (5)
/* RFC 8083 §4.2: the non-reporting threshold k in MEDIA_TIMEOUT */
#define RTPCC_CB_MEDIA_TIMEOUT_K 5
/* RFC 8083 §4.3: "within an order of magnitude" of TCP */
#define RTPCC_CB_CONGESTION_FACTOR 10.0

typedef enum
{
  RTPCC_CB_REASON_NONE,
  RTPCC_CB_REASON_RTCP_TIMEOUT,         /* §4.1 */
  RTPCC_CB_REASON_MEDIA_TIMEOUT,        /* §4.2 */
  RTPCC_CB_REASON_CONGESTION,           /* §4.3 */
  RTPCC_CB_REASON_MEDIA_USABILITY,      /* §4.4, reported by the application */
} RtpccCircuitBreakerReason;

typedef enum
{
  RTPCC_CB_STATE_OK,            /* closed: the controller is in charge */
  /* §4.3 option: congestion tripped with reduce_first; send at most
   * rate_cap (a tenth of the offending rate) for one more CB_INTERVAL */
  RTPCC_CB_STATE_REDUCED,
  RTPCC_CB_STATE_TRIPPED,       /* open: cease media (§4.5) */
  RTPCC_CB_STATE_PROBATION,     /* restarted: send at the minimum rate */
} RtpccCircuitBreakerState;

typedef struct
{
  /* Td: our deterministic (non-randomised) RTCP reporting interval. The
   * RTCP timeout uses MAX (Td, RTPCC_CB_TMIN). Default 5 s. */
  RtpccTime rtcp_interval;
  /* Tdr: the receiver's reporting interval; 0 = learn it from the spacing
   * of the reports (starting from rtcp_interval). */
  RtpccTime report_interval;
  RtpccTime frame_interval;     /* Tf, the media framing interval; 1/30 s */
  guint frame_group;            /* G, frames per packet group; 1 */
  guint packet_size;            /* s when nothing was sent yet; 1200 B */
  guint media_timeout_k;        /* k; RTPCC_CB_MEDIA_TIMEOUT_K */
  gdouble congestion_factor;    /* RTPCC_CB_CONGESTION_FACTOR */
  /* §4.3 offers the simple (default) and the full TCP equation; the full
   * one trips earlier at high loss. */
  gboolean full_equation;
  /* §4.3: a sender able to cut its rate ten-fold MAY try that first, and
   * MUST cease if congestion persists one more CB_INTERVAL. Default FALSE. */
  gboolean reduce_first;
  gboolean enable_rtcp_timeout, enable_media_timeout, enable_congestion;
  /* FALSE: once tripped, stay tripped until rtpcc_circuit_breaker_reset
   * (e.g. a user decision). Default TRUE: restart on probation. */
  gboolean auto_recover;
  RtpccTime max_holdoff;        /* cap on the doubled hold-off; 5 min */
} RtpccCircuitBreakerConfig;

void rtpcc_circuit_breaker_config_init (RtpccCircuitBreakerConfig * config);

typedef struct
{
  RtpccCircuitBreakerState state;
  RtpccCircuitBreakerReason reason;     /* NONE while OK */
  RtpccTime since;              /* when state was entered */
  RtpccTime resume_at;          /* TRIPPED: end of the hold-off */
  guint64 rate_cap;             /* bit/s; REDUCED only, else 0 */
  guint trips;                  /* consecutive trips (backoff exponent) */
  guint64 generation;           /* bumped on every state change */
  const gchar *detail;          /* human-readable; valid until the next call */
} RtpccCircuitBreakerStatus;

typedef struct _RtpccCircuitBreaker RtpccCircuitBreaker;

RtpccCircuitBreaker *rtpcc_circuit_breaker_new (const RtpccCircuitBreakerConfig
    * config, RtpccTime now);
void rtpcc_circuit_breaker_free (RtpccCircuitBreaker * cb);

/* An RTP packet of @size bytes went on the wire. */
void rtpcc_circuit_breaker_on_sent (RtpccCircuitBreaker * cb, RtpccTime now,
    guint size);
/* An RTCP reception report block about one of our SSRCs (SR or RR).
 * rr->packets_sent_interval must be what we sent on that SSRC since the
 * previous report (0 = that stream was idle: no media timeout). Blocks of
 * one compound packet (same @now) count as one reporting interval. */
void rtpcc_circuit_breaker_on_report (RtpccCircuitBreaker * cb, RtpccTime now,
    const RtpccReceiverReport * rr);
/* Any other valid feedback about our media from the receiver (RFC 8888
 * CCFB, TWCC): proof that the receiver and the return path are alive, so it
 * resets the RTCP timeout and counts as the sign of life recovery waits
 * for. It carries no loss fraction or sequence number for §4.2/§4.3. */
void rtpcc_circuit_breaker_on_feedback (RtpccCircuitBreaker * cb,
    RtpccTime now);
/* Any valid RTCP packet from the receiver, even one with no report block
 * about us (an empty RR while our media is stopped): a sign of life that
 * lets a tripped breaker recover, but NOT a reset of the RTCP timeout,
 * which needs reports about our media. */
void rtpcc_circuit_breaker_on_rtcp (RtpccCircuitBreaker * cb, RtpccTime now);
/* §4.4 hook: the application judged the received media unusable. Trips
 * with RTPCC_CB_REASON_MEDIA_USABILITY; @detail is copied. */
void rtpcc_circuit_breaker_media_unusable (RtpccCircuitBreaker * cb,
    RtpccTime now, const gchar * detail);
/* Evaluates timers; safe to call at any time. */
void rtpcc_circuit_breaker_tick (RtpccCircuitBreaker * cb, RtpccTime now);
/* When tick must next run, or RTPCC_TIME_NONE. */
RtpccTime rtpcc_circuit_breaker_next_tick (const RtpccCircuitBreaker * cb);
/* Application restart (§4.5: a user's decision, a new network path): closes
 * the breaker, clears history and backoff. */
void rtpcc_circuit_breaker_reset (RtpccCircuitBreaker * cb, RtpccTime now);

/* TRUE while the breaker constrains the sender: TRIPPED, REDUCED or
 * PROBATION (send at the minimum rate / rate_cap). */
gboolean rtpcc_circuit_breaker_is_tripped (const RtpccCircuitBreaker * cb);
/* TRUE while the sender's target must be held at the minimum: TRIPPED,
 * REDUCED, or PROBATION after a congestion or usability trip (after a
 * timeout trip the controller restarts from below on its own). */
gboolean rtpcc_circuit_breaker_holds_rate (const RtpccCircuitBreaker * cb);
/* TRUE when media must cease (TRIPPED). */
gboolean rtpcc_circuit_breaker_should_stop (const RtpccCircuitBreaker * cb);
RtpccCircuitBreakerState rtpcc_circuit_breaker_get_state (const
    RtpccCircuitBreaker * cb);
RtpccCircuitBreakerReason rtpcc_circuit_breaker_get_reason (const
    RtpccCircuitBreaker * cb);
const gchar *rtpcc_circuit_breaker_get_detail (const RtpccCircuitBreaker * cb);
void rtpcc_circuit_breaker_get_status (const RtpccCircuitBreaker * cb,
    RtpccCircuitBreakerStatus * status);

/* The current CB_INTERVAL and MEDIA_TIMEOUT, in reporting intervals. */
guint rtpcc_circuit_breaker_get_cb_interval (const RtpccCircuitBreaker * cb);
guint rtpcc_circuit_breaker_get_media_timeout (const RtpccCircuitBreaker * cb);

/* Static strings: "none", "rtcp-timeout", "media-timeout", "congestion",
 * "media-usability"; "ok", "reduced", "tripped", "probation". */
const gchar *rtpcc_circuit_breaker_reason_name (RtpccCircuitBreakerReason r);
const gchar *rtpcc_circuit_breaker_state_name (RtpccCircuitBreakerState s);

G_END_DECLS

#endif

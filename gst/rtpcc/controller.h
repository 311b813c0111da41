/* Congestion controllers: an ops table per algorithm, registered by name.
 *
 * Modelled on Linux's tcp_congestion_ops / DCCP's ccid_operations: one file
 * under cc/ fills a RtpccControllerOps and the registry finds it by name
 * ("tfrc", "ccid2", "rr", "fixed", ...). A controller is fed events — packets
 * sent, per-packet feedback, RTCP receiver reports, timer ticks — each with
 * the current time, and publishes a RtpccTarget. It owns no timer: it asks
 * for one by setting next_tick.
 *
 * Every controller runs under the no-feedback timer (nofeedback.h): when
 * feedback stops while we send, the wrapper below halves the published
 * target per interval, tells the controller (on_no_feedback), and after
 * feedback returns lets the target climb back no faster than slow start.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CONTROLLER_H__
#define __RTPCC_CONTROLLER_H__

#include <rtpcc/common.h>
#include <rtpcc/nofeedback.h>
#include <rtpcc/feedback/nadu.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 min_bitrate;          /* bit/s; the target never goes below */
  guint64 max_bitrate;          /* bit/s; the target never goes above */
  guint64 start_bitrate;        /* bit/s; 0 = the controller's own default */
  guint packet_size;            /* nominal packet size s in bytes (TFRC) */
  guint64 seed;                 /* for controllers that randomise */
} RtpccControllerConfig;

/* 150 kbit/s .. 1.5 Mbit/s (RFC 8867's R_min / R_max), start 0, s = 1200. */
void rtpcc_controller_config_init (RtpccControllerConfig * config);

/* A packet the sender has just put on the wire. */
typedef struct
{
  guint64 seq;                  /* sender-wide unwrapped sequence, +1 per packet */
  RtpccTime send_time;
  guint size;                   /* bytes on the wire (RTP header + payload) */
  /* TRUE when the sender had nothing else queued after this packet: it is
   * sending less than it is allowed to (application-limited, RFC 5348 §8.2). */
  gboolean app_limited;
  gboolean is_fec;              /* FEC/probe packets (FBRA, later issues) */
  /* bytes still waiting in the sender (its rate-shaping buffer) after this
   * packet left: NADA's buffer_len (RFC 8698 Eq. 8-9) */
  guint64 queued_bytes;
  /* the last packet of a video frame (RTP marker): lets controllers learn
   * the frame interval from send times */
  gboolean frame_end;
  /* its RTP header's SSRC and sequence number, the numbers RTCP reception
   * reports count in */
  guint32 ssrc;
  guint16 rtp_seq;
} RtpccSentPacket;

/* The fate of one sent packet, as learned from feedback. The sender reports
 * each packet once: received, or lost once a report said it was missing and
 * later packets prove it (3 later packets received, RFC 5348's NDUPACK).
 * A packet whose reports were all lost is neither: it is only counted in
 * RtpccFeedback.n_unreported. */
typedef struct
{
  guint64 seq;
  RtpccTime send_time;
  guint size;
  gboolean received;
  /* Arrival on the receiver's clock, mapped onto the sender's timeline with an
   * unknown constant offset: only differences between packets are meaningful
   * (one-way delay variation). RTPCC_TIME_NONE when lost or not reported. */
  RtpccTime arrival;
  guint8 ecn;
  gboolean is_fec;
} RtpccPacketReport;

typedef struct
{
  const RtpccPacketReport *reports;     /* ascending seq */
  guint n_reports;
  /* RTT sample taken from this feedback (feedback arrival − send time of the
   * newest packet it acknowledges − the receiver's hold time), or NONE. */
  RtpccTime rtt_sample;
  RtpccTime srtt;               /* the sender's smoothed RTT (RFC 6298), or NONE */
  /* The receiver's report time on the sender's timeline (same offset as
   * arrival): lets controllers measure receive rates over report intervals. */
  RtpccTime report_time;
  /* the feedback format's arrival-time unit (RFC 8888 1/1024 s, TWCC
   * 250 us), 0 = exact: one-way delays carry up to this much rounding */
  RtpccTime arrival_resolution;
  /* packets given up since the last feedback because every report about
   * them was lost (senthistory.h): not in @reports, no longer in flight */
  guint n_unreported;
} RtpccFeedback;

/* An RTCP reception report block about our media (RFC 3550 §6.4.1). */
typedef struct
{
  guint32 ssrc;
  guint8 fraction_lost;         /* /256, since the previous report */
  gint32 cumulative_lost;
  guint32 ext_highest_seq;
  guint32 jitter;               /* RTP timestamp units */
  RtpccTime rtt;                /* from LSR/DLSR, or RTPCC_TIME_NONE */
  guint32 packets_sent_interval;        /* what we sent since the previous RR */
  /* when the SR its LSR names was sent, on our clock (now − (A − LSR)):
   * proof that that SR crossed the forward path; NONE without LSR */
  RtpccTime lsr_sent;
} RtpccReceiverReport;

typedef struct
{
  guint64 target_bitrate;       /* bit/s the application may send (media + FEC) */
  guint64 media_bitrate;        /* bit/s for the encoder(s) */
  guint64 fec_bitrate;          /* bit/s suggested for FEC / probing */
  guint64 pacing_rate;          /* bit/s the pacer drains at */
  guint32 cwnd;                 /* packets in flight allowed; 0 = rate-based */
  const gchar *state;           /* static string: "slow-start", ... */
  const gchar *reason;          /* static string: why the target last changed */
} RtpccTarget;

typedef struct _RtpccController RtpccController;
typedef struct _RtpccControllerOps RtpccControllerOps;

struct _RtpccControllerOps
{
  const gchar *name;
  const gchar *description;
  gsize instance_size;          /* >= sizeof (RtpccController) */

  /* config and an initial target are set before init runs */
  void (*init) (RtpccController * cc, RtpccTime now);
  void (*finalize) (RtpccController * cc);

  void (*on_packet_sent) (RtpccController * cc, RtpccTime now,
      const RtpccSentPacket * pkt);
  void (*on_feedback) (RtpccController * cc, RtpccTime now,
      const RtpccFeedback * fb);
  void (*on_receiver_report) (RtpccController * cc, RtpccTime now,
      const RtpccReceiverReport * rr);
  /* called when now >= next_tick */
  void (*on_tick) (RtpccController * cc, RtpccTime now);
  /* optional, window-based controllers: may a packet of @size go now? */
  gboolean (*can_send) (RtpccController * cc, RtpccTime now, guint size);
  /* optional: controller-specific tunables by name; FALSE if unknown/invalid */
  gboolean (*set_param) (RtpccController * cc, const gchar * key,
      const gchar * value);
  /* optional: packets reported received earlier that the receiver then
   * discarded as too late to play (RTCP XR discard RLE, RFC 7097). They
   * arrived, so the network delivered them; a delay-aware controller (FBRA)
   * counts them against the goodput. Ascending seq, received = TRUE. */
  void (*on_discards) (RtpccController * cc, RtpccTime now,
      const RtpccPacketReport * reports, guint n_reports);
  /* optional: feedback has stopped while we send (nofeedback.h); the
   * published target is capped at @rate, halved per interval, until
   * feedback returns. Lower the controller's own rate to it, so that it
   * restarts from there — ramping up as it starts up — and does not jump
   * back to the rate it had before the stop. */
  void (*on_no_feedback) (RtpccController * cc, RtpccTime now, guint64 rate);
  /* optional: the regular report (RR) interval this controller needs from
   * the receiver, RTPCC_TIME_NONE for no preference. The sender asks the
   * receiver for it in band (feedback/reportinterval.h). */
  RtpccTime (*report_interval) (RtpccController * cc);
  /* optional: an RTCP XR Delay Metrics block (RFC 6843) about our media
   * with the network round trip the receiver measured over its last
   * report interval: mean, min, max (RTPCC_TIME_NONE where unavailable).
   * Called while the compound is read, before the controller's tick
   * evaluates the report it belongs to. */
  void (*on_xr_delay) (RtpccController * cc, RtpccTime now,
      RtpccTime mean_rtt, RtpccTime min_rtt, RtpccTime max_rtt);
  /* optional: the receiver's maximum (RFC 5104 TMMBR, REMB) changed to
   * @limit bit/s, G_MAXUINT64 for none. The sender caps the published
   * target at it whatever the controller does; a controller whose own
   * rule includes it (the 2013 RRTCC's As <= A) keeps its state there. */
  void (*on_receiver_limit) (RtpccController * cc, RtpccTime now,
      guint64 limit);
  /* optional: a NADU block (3GPP TS 26.234, feedback/nadu.h) about our
   * media: the receiver's playout buffer. Called while the compound is
   * read, like on_xr_delay. */
  void (*on_nadu) (RtpccController * cc, RtpccTime now,
      const RtpccNaduBlock * block);
};

struct _RtpccController
{
  const RtpccControllerOps *ops;
  RtpccControllerConfig config;
  RtpccTarget target;
  /* the controller sets this to be ticked; RTPCC_TIME_NONE = no timer */
  RtpccTime next_tick;
  /* bumped by rtpcc_controller_update_target on every change */
  guint64 generation;
  /*< private > */
  RtpccNoFeedback no_feedback;  /* run by the wrapper, not the controller */
};

/* Registry. Built-in controllers are registered on first use. */
void rtpcc_controller_register (const RtpccControllerOps * ops);
const RtpccControllerOps *rtpcc_controller_lookup (const gchar * name);
/* NULL-terminated, sorted; free with g_strfreev */
gchar **rtpcc_controller_list (void);

/* NULL and @error set for an unknown name or an inconsistent config
 * (min > max, start outside [min, max]). */
RtpccController *rtpcc_controller_new (const gchar * name,
    const RtpccControllerConfig * config, RtpccTime now, GError ** error);
void rtpcc_controller_free (RtpccController * cc);

void rtpcc_controller_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt);
void rtpcc_controller_feedback (RtpccController * cc, RtpccTime now,
    const RtpccFeedback * fb);
void rtpcc_controller_receiver_report (RtpccController * cc, RtpccTime now,
    const RtpccReceiverReport * rr);
void rtpcc_controller_nadu (RtpccController * cc, RtpccTime now,
    const RtpccNaduBlock * block);
/* runs on_tick if it is due, and the no-feedback timer; safe to call any
 * time */
void rtpcc_controller_tick (RtpccController * cc, RtpccTime now);
/* When rtpcc_controller_tick is next due: the controller's next_tick or
 * the no-feedback timer, the earlier (RTPCC_TIME_NONE: neither). */
RtpccTime rtpcc_controller_next_timeout (const RtpccController * cc);
/* TRUE while feedback has stopped and the target is being halved;
 * @since: the last feedback that showed progress. */
gboolean rtpcc_controller_feedback_stopped (const RtpccController * cc,
    RtpccTime * since);
gboolean rtpcc_controller_can_send (RtpccController * cc, RtpccTime now,
    guint size);
void rtpcc_controller_xr_delay (RtpccController * cc, RtpccTime now,
    RtpccTime mean_rtt, RtpccTime min_rtt, RtpccTime max_rtt);
void rtpcc_controller_receiver_limit (RtpccController * cc, RtpccTime now,
    guint64 limit);
void rtpcc_controller_discards (RtpccController * cc, RtpccTime now,
    const RtpccPacketReport * reports, guint n_reports);
gboolean rtpcc_controller_set_param (RtpccController * cc, const gchar * key,
    const gchar * value);
/* The controller's wanted report interval, or RTPCC_TIME_NONE. */
RtpccTime rtpcc_controller_report_interval (RtpccController * cc);
/* Applies "key=value" pairs separated by ';' or ',' (whitespace around
 * them ignored, empty items skipped) in order. Stops at the first pair the
 * controller rejects (unknown key or bad value) or that has no '=', with
 * RTPCC_ERROR_INVALID / RTPCC_ERROR_PARSE naming it; pairs before it stay
 * applied. NULL or "" is a no-op. */
gboolean rtpcc_controller_set_params (RtpccController * cc,
    const gchar * params, GError ** error);

/* For controllers: set the target bit rate (clamped to [min, max]); media =
 * target − fec; pacing = target × @pacing_factor (≥ 1). Bumps generation
 * when anything changed. */
void rtpcc_controller_update_target (RtpccController * cc, guint64 bitrate,
    guint64 fec_bitrate, gdouble pacing_factor, const gchar * state,
    const gchar * reason);

G_END_DECLS

#endif

/* RtpccPlayout: adaptive playout delay and reorder buffer, sans I/O.
 *
 * One media stream (one SSRC, one RTP clock and sequence space) that may
 * arrive over several subflows (MPRTP-style paths). For every arrival the
 * caller passes its receive time; the object decides whether the packet is
 * late, keeps it in sequence order otherwise, and tells when the head is due.
 *
 * Timing model. Each packet has a relative delay d = arrival − media time
 * (its RTP timestamp in ns since the first one). d is the one-way delay plus
 * an unknown constant clock offset, and it drifts linearly when the sender's
 * RTP clock and our clock run at different rates. The drift slope is fitted
 * (Theil–Sen) over per-second minima of d, so neither the base nor the
 * buffer grows without bound under clock skew. The playout offset is
 *
 *   offset(now) = base + drift·now + target
 *
 * where base is the lowest detrended delay seen (the fastest path's transit)
 * and target ("target delay") is the extra buffering:
 *
 *   adaptive: per subflow, its floor (lowest detrended delay over the last
 *             level_window) plus a margin; the maximum over subflows (the
 *             slowest path sets the pace: skew compensation), plus the FEC
 *             repair window, bounded by [min_delay, max_delay]. With
 *             late_target > 0 (default 0.5 %) the margin is steered by a
 *             late-rate controller (each late packet raises it by a step,
 *             each packet on time lowers it by step·p/(1−p): it settles
 *             where p = late_target of the packets are late), and with
 *             late_bump a late packet far out, or a second within `hold`,
 *             jumps the floor to its delay until the delay comes back
 *             down (a spike or queue ramp; see playout.c). With
 *             late_target = 0 the margin is the configured percentile of
 *             the delays over the floor over `window`, and late_bump lifts
 *             the target over a late packet and holds it for `hold`. The
 *             target rises at once; it falls at down_rate s/s, or faster
 *             (exponentially, return_time) when far above the need, never
 *             faster than real time.
 *   singh:    the MPRTP skew compensation of Singh's doctoral thesis
 *             ("Protocols and Algorithms for Adaptive Multimedia Systems",
 *             Aalto University 2015, ch. 6), computed by mprtp/skew.h:
 *             PacketSkew between consecutive packets of the same path,
 *             drift window of min(2 s, 100 packets), PathSkew =
 *             0.01·median + 0.99·PathSkew_prev, PlayoutDelay =
 *             (MAX(SW) + 124·prev)/125, plus four mean deviations (the
 *             classic playout calculation); a packet is due at its media
 *             time + the first packet's transit + that, + the FEC window.
 *             Clock drift is not removed (the thesis does not): it shows
 *             as a skew growing on every path alike, which the filters
 *             follow.
 *   fixed:    target = min_delay (what rtpjitterbuffer's latency does).
 *
 * A packet is due at media time + offset(now). It is late, and must be
 * discarded, when it arrives after that time or after a later packet has
 * already been released. One exception at start-up: a packet of the
 * stream's first frame (its first RTP timestamp) is late only when a later
 * packet has been released. Nothing is known of the path yet, a key
 * frame's packets are spread by the sender's pacer, and without that frame
 * nothing decodes until the next key frame; in adaptive and singh modes
 * the target rises to cover each of them.
 *
 * Sequence jumps get RFC 3550 A.1-style probation: a packet more than 256
 * sequence numbers ahead of the highest seen, or more than 1024 behind it,
 * is held (QUEUED) until the next packet says what it was. If that one
 * follows it (within 16) the sender restarted, or resumed after a long
 * outage: the packets held of the old stream are due at once, and the
 * timing starts over at the packet that jumped (stats.restarts). Any other
 * packet refutes it: it is dropped, its data freed with the free func
 * (rtpcc_playout_set_free_func), and counted (stats.refused). One stray
 * packet can then no longer make every valid packet after it late.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PLAYOUT_H__
#define __RTPCC_PLAYOUT_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* config.fec_window: the repair time of a block of up to
 * RTPCC_PLAYOUT_FEC_AUTO_PACKETS packets (the repair packet of an XOR block
 * of N <= 14 comes after the block) at the measured mean packet interval,
 * at most config.fec_window_max (default RTPCC_PLAYOUT_FEC_AUTO_MAX: the
 * FEC decoder's default deadline); 0 until two packets arrived. */
#define RTPCC_PLAYOUT_FEC_AUTO ((RtpccTime) -1)
#define RTPCC_PLAYOUT_FEC_AUTO_PACKETS 14
#define RTPCC_PLAYOUT_FEC_AUTO_MAX RTPCC_MSEC (100)

typedef enum
{
  RTPCC_PLAYOUT_MODE_ADAPTIVE = 0,
  RTPCC_PLAYOUT_MODE_SINGH = 1,
  RTPCC_PLAYOUT_MODE_FIXED = 2,
} RtpccPlayoutMode;

const gchar *rtpcc_playout_mode_name (RtpccPlayoutMode mode);

#define RTPCC_PLAYOUT_MAX_SUBFLOWS 16

typedef struct
{
  RtpccPlayoutMode mode;
  guint clock_rate;             /* RTP clock rate in Hz, > 0 */
  gdouble percentile;           /* (0, 100]; default 99.9 */
  RtpccTime window;             /* span of the delay history, default 2 s */
  guint window_packets;         /* cap on the history, default 500 */
  RtpccTime min_delay;          /* default 0 */
  RtpccTime max_delay;          /* default 400 ms (FBRA's delay_max) */
  RtpccTime fec_window;         /* extra time for FEC repair, default 0;
                                 * RTPCC_PLAYOUT_FEC_AUTO: from the rate */
  RtpccTime fec_window_max;     /* RTPCC_PLAYOUT_FEC_AUTO's bound: the
                                 * longest a FEC decoder holds a packet */
  gdouble down_rate;            /* target decrease, s per s, default 0.5 */
  RtpccTime return_time;        /* or exponentially, this time constant,
                                 * when faster (0: off), default 100 ms */
  gboolean late_bump;           /* react to a late packet at once */
  RtpccTime hold;               /* no fall for this long after, 500 ms;
                                 * controller: two lates this close = jump */
  RtpccTime bump_margin;        /* added to a late bump (rising ramps), 0 */
  RtpccTime level_window;       /* path floor = min delay over this, 2 s */
  gdouble late_target;          /* %, default 0.5; > 0: the margin over the
                                 * floor comes from a late-rate controller
                                 * (percentile only seeds it); 0: percentile */
  RtpccTime drift_window;       /* span of the drift fit, default 30 s */
  guint max_queue;              /* packets held at most, default 4096 */
} RtpccPlayoutConfig;

void rtpcc_playout_config_init (RtpccPlayoutConfig * config);
gboolean rtpcc_playout_config_validate (const RtpccPlayoutConfig * config,
    GError ** error);

typedef enum
{
  RTPCC_PLAYOUT_QUEUED = 0,
  RTPCC_PLAYOUT_LATE,           /* discard; report it (RFC 7097) */
  RTPCC_PLAYOUT_DUPLICATE,      /* already held or released */
  RTPCC_PLAYOUT_OVERFLOW,       /* queue full: discard */
  RTPCC_PLAYOUT_FILLER_LATE,    /* filler past its slot: discard, no report */
} RtpccPlayoutVerdict;

typedef struct
{
  guint64 received, released, late, duplicates, overflows;
  guint64 reordered;            /* arrived after a higher sequence number */
  guint64 skipped;              /* gaps played over (lost or late) */
  guint64 fillers;              /* filler packets received (padding) */
  guint64 fillers_late;         /* fillers past their slot, dropped */
  guint64 refused;              /* sequence jumps no packet confirmed:
                                 * dropped (freed with the free func) */
  guint64 restarts;             /* sequence jumps believed: the stream
                                 * started over */
  RtpccTime target_delay;       /* current extra buffering over base */
  RtpccTime fec_window;         /* the FEC window in force */
  RtpccTime jitter_percentile;  /* raw percentile before adaptation rules */
  gdouble drift_ppm;            /* sender clock vs ours; > 0: we run faster */
  guint queued;
  guint subflows;
  RtpccTime path_skew[RTPCC_PLAYOUT_MAX_SUBFLOWS];  /* over the fastest path */
} RtpccPlayoutStats;

typedef struct _RtpccPlayout RtpccPlayout;

RtpccPlayout *rtpcc_playout_new (const RtpccPlayoutConfig * config);
/* @destroy frees the data of packets still held (may be NULL). */
void rtpcc_playout_free (RtpccPlayout * playout, GDestroyNotify destroy);
/* Forget the stream (new SSRC, flush); the configuration stays. */
void rtpcc_playout_reset (RtpccPlayout * playout, GDestroyNotify destroy);
/* Frees the data of a packet the playout drops on its own: one held on
 * probation (see rtpcc_playout_push) that nothing confirmed. NULL (the
 * default): nothing is freed. */
void rtpcc_playout_set_free_func (RtpccPlayout * playout,
    GDestroyNotify free_func);
/* Runtime changes of percentile, delays, FEC window and mode. */
void rtpcc_playout_set_config (RtpccPlayout * playout,
    const RtpccPlayoutConfig * config);

typedef enum
{
  RTPCC_PLAYOUT_SSRC_SAME = 0,  /* the stream being played (or the first) */
  RTPCC_PLAYOUT_SSRC_NEW,       /* payload on another SSRC: a new stream;
                                 * the playout was reset for it */
  RTPCC_PLAYOUT_SSRC_IGNORE,    /* padding-only on another SSRC: drop it */
} RtpccPlayoutSsrc;

/* Which stream a packet of @ssrc belongs to, before it is pushed. A packet
 * with payload on another SSRC starts a new stream: what was learnt about
 * the old one does not apply, so the playout is reset (@destroy frees what
 * was held) and NEW returned. A filler (@filler: padding only) on another
 * SSRC never switches streams: nothing to play and no sign of a new stream,
 * while a late probe of the previous one would throw the current stream's
 * packets away; IGNORE. rtpcc_playout_reset forgets the SSRC too. */
RtpccPlayoutSsrc rtpcc_playout_check_ssrc (RtpccPlayout * playout,
    guint32 ssrc, gboolean filler, GDestroyNotify destroy);

/* What the playout needs of an RTP packet. */
typedef struct
{
  guint32 ssrc;
  guint16 seq;
  guint32 rtp_ts;
  gboolean filler;              /* padding only, no payload (RFC 3550 §5.1):
                                 * a sender's probe (push it as a filler) */
} RtpccPlayoutRtp;

/* Reads @data as an RTP packet (bounds-checked: version, CSRCs, header
 * extension and padding inside @len). FALSE if it is not one. */
gboolean rtpcc_playout_read_rtp (const guint8 * data, gsize len,
    RtpccPlayoutRtp * out);

/* One arrival at @now (non-decreasing) on @subflow (< MAX_SUBFLOWS).
 * QUEUED: the object owns @data until rtpcc_playout_pop returns it.
 * Otherwise the caller keeps @data; @delay_out (may be NULL) gets how late
 * the packet is (LATE) or its relative delay over base. */
RtpccPlayoutVerdict rtpcc_playout_push (RtpccPlayout * playout, RtpccTime now,
    guint subflow, guint16 seq, guint32 rtp_ts, gpointer data);

/* A packet that carries no media (padding-only, RFC 3550 §5.1: a sender's
 * bandwidth probe on the media SSRC). It takes its sequence slot, so the
 * stream downstream has no gap, but teaches the delay estimator nothing:
 * probes leave after the frame whose timestamp they repeat, so their delay
 * over the media clock reads high. Past its time it still goes out at once
 * while its slot is open (no later packet has left); past its slot it is
 * dropped as FILLER_LATE, not counted late and not reported (nothing was
 * lost). Its
 * timestamp is taken as at most the newest one seen (it repeats one), so
 * a bogus one cannot hold the stream behind it. */
RtpccPlayoutVerdict rtpcc_playout_push_filler (RtpccPlayout * playout,
    RtpccTime now, guint subflow, guint16 seq, guint32 rtp_ts, gpointer data);

/* The next packet to play: the head's sequence number and when it is due
 * (what a NADU report, 3GPP TS 26.234, tells the sender); FALSE if
 * nothing is held. */
gboolean rtpcc_playout_next_unit (RtpccPlayout * playout, RtpccTime now,
    guint16 * seq, RtpccTime * due);
/* When the head packet is due (RTPCC_TIME_NONE if empty). */
RtpccTime rtpcc_playout_next_due (RtpccPlayout * playout, RtpccTime now);
/* The head packet if due at @now (NULL otherwise), in sequence order;
 * @seq and @due (may be NULL) receive its sequence number and due time. */
gpointer rtpcc_playout_pop (RtpccPlayout * playout, RtpccTime now,
    guint16 * seq, RtpccTime * due);
/* Pops the head regardless of time (drain at EOS). */
gpointer rtpcc_playout_pop_any (RtpccPlayout * playout, guint16 * seq);

/* The playout offset (due time − media time) in force at @now. */
/* Whether every sequence number from @first to @last (inclusive, at most
 * RTPCC_PLAYOUT_RANGE_MAX of them) of the stream @ssrc being played is
 * held or was released: the merge has it, whichever path brought it. A
 * packet that came too late to play does not count. For a path's
 * receiver whose loss another path repaired (multipath). */
#define RTPCC_PLAYOUT_RANGE_MAX 256
gboolean rtpcc_playout_has_range (RtpccPlayout * playout, guint32 ssrc,
    guint16 first, guint16 last);
RtpccTime rtpcc_playout_offset (RtpccPlayout * playout, RtpccTime now);
void rtpcc_playout_get_stats (RtpccPlayout * playout, RtpccPlayoutStats * stats);
/* The stats' target_delay alone (what the buffer samples per packet). */
RtpccTime rtpcc_playout_get_target_delay (RtpccPlayout * playout);

/* The de-jitter buffer's state as RFC 7005 §3.1 reports it, for the
 * receiver's XR De-Jitter Buffer Metrics block
 * (rtpcc_receiver_set_dejitter): the nominal delay (what a packet
 * arriving on time waits: the target delay), the maximum a packet may
 * wait and still play, and the highest and lowest nominal delay since the
 * previous update; RTPCC_TIME_NONE where not known. */
typedef struct
{
  gboolean adaptive;
  RtpccTime nominal, maximum, high_water, low_water;
} RtpccPlayoutDjb;

/* Samples of that state, let out at most once per @interval
 * (playout/djbmeter.c): the water marks cover every sample in between. */
typedef struct
{
  RtpccTime interval;
  RtpccTime last;               /* when an update last went, or NONE */
  gboolean have;
  RtpccPlayoutDjb cur;
} RtpccPlayoutDjbMeter;

void rtpcc_playout_djb_meter_init (RtpccPlayoutDjbMeter * meter,
    RtpccTime interval);
/* The buffer's state now: @nominal (ignored if NONE or negative) and
 * @maximum (NONE: unknown; raised to @nominal if below it). */
void rtpcc_playout_djb_meter_sample (RtpccPlayoutDjbMeter * meter,
    gboolean adaptive, RtpccTime nominal, RtpccTime maximum);
/* TRUE, filling @out, when an update is due at @now: there was a sample
 * and none went within @interval before (or time went back). The next
 * water marks start at the current nominal delay. */
gboolean rtpcc_playout_djb_meter_due (RtpccPlayoutDjbMeter * meter,
    RtpccTime now, RtpccPlayoutDjb * out);

G_END_DECLS

#endif

/* RtpccRepair: the receiver's loss-repair planner, sans I/O.
 *
 * One media stream (one SSRC). It is told what arrives (originals,
 * retransmissions, FEC rebuilds), what FEC can still repair, the RTT and
 * the playout delay, and it says, when polled, which sequence numbers to
 * NACK now (RFC 4585 §6.2.1 Generic NACK; the sender answers with RFC
 * 4588 RTX) and when to ask for a key frame (PLI, RFC 4585 §6.3.1, or FIR,
 * RFC 5104 §4.3.1). Every loss ends one way: it arrives (late original,
 * RTX or FEC), or it is given up — and a stream with a frame given up is
 * broken until a key frame, so the planner asks for one.
 *
 * Deadlines. A packet is worth repairing only until its frame is played.
 * The planner keeps the lowest transit seen (arrival − RTP time, over the
 * last 2–4 s, originals only) as the fastest path's delay; a packet of RTP
 * timestamp ts is played at
 *
 *   deadline = media_time(ts) + lowest transit + playout delay
 *
 * which is what a jitter buffer of that latency (rtpjitterbuffer's
 * "latency", playoutbuffer's target plus its FEC window) does. The first
 * packet of a gap has its predecessor's timestamp when that one did not
 * end a frame (marker clear: the frame goes on), else the timestamp of
 * the packet that revealed the gap (exact unless whole frames were lost).
 * The others of the gap have the revealing packet's: where the
 * timestamp changes within the gap they may be either frame's, and the
 * later deadline keeps a burst across a frame boundary from being given
 * up a frame early while its retransmissions are on the way.
 *
 * The rules, per missing sequence number:
 *
 * 1. Reordering. A gap is a loss only after reorder_wait has passed since
 *    a later packet arrived; a packet that arrives within it was merely
 *    reordered. reorder_wait adapts: 1.5 × the latest arrival of a
 *    reordered packet over the last 2–4 s, within [reorder_min,
 *    reorder_max]. (GStreamer's rtpjitterbuffer likewise waits rtx-delay
 *    before a request, and libwebrtc's NackModule2 learns how far packets
 *    are reordered.) No packet-count rule (TCP's three duplicate ACKs):
 *    the packets of a video frame leave back to back, so three later
 *    packets can arrive within a fraction of a millisecond, which says
 *    nothing about whether the missing one is still on its way.
 *    With tail_probe, the loss of a frame's last packets is not left
 *    until the next frame reveals it (a frame interval later, often too
 *    late to NACK): when the latest packet did not carry the marker
 *    (RFC 6184 §5.1, RFC 7741 §4.1: it is set on a frame's last packet),
 *    the frame goes on, and if nothing arrives for reorder_wait + twice
 *    the widest spacing of a frame's packets of late (at most
 *    reorder_max), the next seq is lost. Padding packets
 *    (rtpcc_repair_on_padding) arm no probe.
 *
 * 2. FEC first. With a FEC window (the time from a gap to its FEC
 *    block's repair packet: configured, or learnt from the FEC packets
 *    the caller reports, the largest time from a block's first packet to
 *    a repair packet of it over the last 2–4 s), a loss is not NACKed
 *    during that window if a NACK sent when it ends can still be answered
 *    before the deadline (now + window + RTT + nack_margin < deadline):
 *    FEC is expected to rebuild it, and a NACK would spend the same bytes
 *    twice. Otherwise waiting would leave no time to repair what FEC
 *    cannot, and the loss is handled as if unprotected. Repair packets
 *    (rtpcc_repair_on_fec_parity) settle losses early: a loss is
 *    rebuildable if some block covering it has at most as many losses
 *    not otherwise rebuildable as repair packets in (iterated, as a 2-D
 *    or overlapping decoder peels) — never NACKed from then on; a loss a
 *    complete block cannot rebuild is NACK-able at once, window or not.
 *    With fec_downstream (the caller does not see the rebuilt packets) a
 *    rebuildable loss is left to the decoder at its deadline rather than
 *    given up.
 *
 * 3. NACK only what can arrive in time: a NACK is sent at @now only if
 *    now + RTT + nack_margin < deadline (the request takes half an RTT,
 *    the retransmission the other half, nack_margin covers the sender's
 *    pacing queue). In a two-party session RFC 4585 §3.5.1 sets
 *    T_dither_max = 0: the NACK may leave at once as early feedback (our
 *    receiver sends feedback every frame interval anyway), so the planner
 *    adds no RTCP scheduling delay. Losses due at the same poll go in one
 *    list, which rtpcc_nack_fci_from_seqs() packs into PID + BLP words.
 *
 * 4. Retries. A NACK not answered within RTT + nack_margin is repeated,
 *    if rule 3 still allows, up to max_nacks NACKs per packet (libwebrtc
 *    resends after an RTT, GStreamer after rtx-retry-timeout ≈ RTT). A
 *    lost NACK or a lost retransmission thus costs one RTT, not the frame.
 *
 * 5. Giving up. A loss is given up at its deadline, or as soon as nothing
 *    can repair it before then: no FEC expected, no NACK outstanding, and
 *    no NACK would arrive in time (e.g. a loss seen too close to its
 *    deadline: no NACK, a key-frame request at once).
 *
 * 6. Key frames. A give-up, a decoder's corruption report, or a loss list
 *    over max_missing (an outage: a key frame costs less than hundreds of
 *    retransmissions; libwebrtc's NackModule clears its list and asks for
 *    one past 1000) breaks the stream. A broken stream asks for a key
 *    frame at most once per
 *
 *      max (2 × RTT, keyframe_min_interval = 300 ms)
 *
 *    because the key frame answering a request cannot arrive before one
 *    RTT plus its own (large) transfer, and because the media senders
 *    drop closer requests anyway: GStreamer's rtpsession ignores a PLI or
 *    FIR within two RTTs of the last, libwebrtc's sender passes at most
 *    one request per 300 ms to its encoder. A request made after a loss
 *    was seen covers that loss too: the other losses of one burst, given
 *    up frame after frame, ask nothing more. With keyframe_feedback the
 *    caller reports key frames (rtpcc_repair_on_keyframe) and a request is
 *    repeated, with the same FIR sequence number (RFC 5104 §4.3.1.2: a
 *    repetition keeps it), until one arrives; without, each breakage asks
 *    once (a new FIR number each time). Repeats are bounded
 *    (max_keyframe_repeats): a sender that never answers is not asked
 *    forever; the next breakage asks again. A key frame also drops the
 *    losses before it: the decoder restarts there (libwebrtc's NackModule
 *    does the same).
 *
 * 7. RTT. rtpcc_repair_set_rtt() (e.g. from the sender's reports); until
 *    then the NACK-to-retransmission time measured on packets NACKed
 *    once (Karn's rule: a retried packet's answer could be to either
 *    NACK), smoothed as RFC 6298's SRTT; until then initial_rtt.
 *
 * Polling. Call rtpcc_repair_poll() after every on_* call and whenever
 * rtpcc_repair_next_timeout() is reached; @now must not decrease.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_REPAIR_H__
#define __RTPCC_REPAIR_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* at most this many seqs are returned per poll (the rest stay due) */
#define RTPCC_REPAIR_MAX_NACK 128
/* seqs one FEC block may cover (a FEC mask's span), blocks remembered */
#define RTPCC_REPAIR_FEC_MAX_SEQS 48
#define RTPCC_REPAIR_FEC_BLOCKS 64
/* windows of the lowest-transit and reordering trackers */
#define RTPCC_REPAIR_TRACK_WINDOW RTPCC_SEC (2)

typedef struct
{
  guint clock_rate;             /* RTP clock, default 90000 */
  RtpccTime playout_delay;      /* default 200 ms (rtpjitterbuffer's) */
  RtpccTime initial_rtt;        /* before any RTT is known, 100 ms */
  RtpccTime nack_margin;        /* sender pacing + our send delay, 10 ms */
  guint max_nacks;              /* NACKs per packet, default 3; 0: none */
  RtpccTime reorder_min;        /* default 5 ms */
  RtpccTime reorder_max;        /* default 50 ms */
  RtpccTime fec_window;         /* default 0: no FEC expected */
  RtpccTime keyframe_min_interval;      /* default 300 ms */
  gboolean keyframe_feedback;   /* caller reports key frames, default FALSE */
  guint max_keyframe_repeats;   /* with keyframe_feedback, default 3 */
  gboolean tail_probe;          /* see rule 1, default FALSE */
  gboolean fec_downstream;      /* FEC is decoded after us: rebuilds are
                                 * not reported, default FALSE */
  guint max_missing;            /* default 1000 */
} RtpccRepairConfig;

void rtpcc_repair_config_init (RtpccRepairConfig * config);
gboolean rtpcc_repair_config_validate (const RtpccRepairConfig * config,
    GError ** error);

typedef enum
{
  RTPCC_REPAIR_ORIGINAL = 0,    /* as sent */
  RTPCC_REPAIR_RTX,             /* restored from an RTX packet */
  RTPCC_REPAIR_FEC,             /* rebuilt by the FEC decoder */
} RtpccRepairSource;

typedef struct
{
  guint64 packets;              /* on_packet calls */
  guint64 losses;               /* missing past the reorder wait */
  guint64 reordered;            /* missing, arrived within the wait */
  guint64 late_originals;       /* originals arriving after their loss was
                                 * declared (a NACK may have been wasted) */
  guint64 nack_requests;        /* polls that returned seqs to NACK */
  guint64 nacked;               /* seqs in them, retries included */
  guint64 retries;              /* ... of which a repeated NACK */
  guint64 recovered_rtx, recovered_fec;
  guint64 recovered_elsewhere;  /* arrived by another path (multipath) */
  guint64 fec_waits;            /* losses held back from NACK for FEC */
  guint64 fec_rebuildable;      /* losses FEC packets can rebuild (never
                                 * NACKed from then on) */
  guint64 fec_unrecoverable;    /* losses a complete FEC block cannot
                                 * rebuild (NACKed at once) */
  guint64 fec_left;             /* rebuildable losses left to a FEC
                                 * decoder downstream at their deadline */
  guint64 gave_up;              /* losses not repaired in time */
  guint64 gave_up_unnacked;     /* ... of which never NACKed */
  guint64 keyframe_requests;    /* polls that asked for a key frame */
  guint64 keyframe_repeats;     /* ... repeating an unanswered one */
  guint64 keyframe_unanswered;  /* requests given up after the repeats */
  guint64 corrupt_reports, keyframes;
  guint64 overflows;            /* loss lists over max_missing, dropped */
  guint64 duplicates;           /* packets for seqs not missing (twice,
                                 * or after being given up) */
  guint64 restarts;             /* sequence jumps taken as a new start */
  guint64 tail_probes;          /* losses found by the tail probe */
  guint64 ssrc_changes;
  guint missing;                /* tracked now */
  RtpccTime rtt;                /* in use */
  RtpccTime repair_rtt;         /* measured NACK → RTX, 0 before a sample */
  RtpccTime reorder_wait;       /* in use */
  RtpccTime fec_window;         /* in use (configured or learnt) */
} RtpccRepairStats;

/* What to send now. */
typedef struct
{
  guint32 ssrc;                 /* the media stream */
  guint n_nack;
  guint16 nack[RTPCC_REPAIR_MAX_NACK];  /* ascending (wrapping) */
  gboolean keyframe;            /* send a PLI (or FIR with fir_seq) */
  guint8 fir_seq;
  gboolean keyframe_repeat;     /* the same request as the last one */
} RtpccRepairRequest;

typedef struct _RtpccRepair RtpccRepair;

/* NULL and @error on an invalid configuration. */
RtpccRepair *rtpcc_repair_new (const RtpccRepairConfig * config,
    GError ** error);
void rtpcc_repair_free (RtpccRepair * repair);

/* A packet of @ssrc (an SSRC other than the current one starts a new
 * stream: everything but the RTT estimate is forgotten). Arrivals
 * (@source ORIGINAL) teach the transit and reordering trackers; RTX and
 * FEC packets only fill their gap. A sequence jump over 3000 (RFC 3550
 * A.1's MAX_DROPOUT) is a restart once the next packet confirms it. */
void rtpcc_repair_on_packet (RtpccRepair * repair, RtpccTime now,
    guint32 ssrc, guint16 seq, guint32 rtp_ts, gboolean marker,
    RtpccRepairSource source);
/* The losses tracked now (not yet repaired nor given up), up to @max of
 * them, into @seqs in ascending order; their number. */
guint rtpcc_repair_get_missing (RtpccRepair * repair, guint16 * seqs,
    guint max);
/* @seq of the current stream reached the receiver another way (the merge
 * of a multipath stream has it): no more NACKs, no key-frame request for
 * it; counted in recovered_elsewhere. FALSE if @seq is not missing. */
gboolean rtpcc_repair_on_recovered_elsewhere (RtpccRepair * repair,
    RtpccTime now, guint16 seq);
/* A padding-only packet (e.g. a bandwidth probe) in the media's
 * sequence space: as on_packet, but it continues no frame. */
void rtpcc_repair_on_padding (RtpccRepair * repair, RtpccTime now,
    guint32 ssrc, guint16 seq, guint32 rtp_ts);
/* A FEC block covering @seqs (distinct) has all its repair packets, and
 * can rebuild up to @can_recover of them: if as many or fewer are missing
 * they will be rebuilt (not NACKed); otherwise FEC cannot help them
 * (NACK-able at once). Seqs not missing are ignored. The same as
 * rtpcc_repair_on_fec_parity (..., can_recover, TRUE). */
void rtpcc_repair_on_fec_block (RtpccRepair * repair, RtpccTime now,
    const guint16 * seqs, guint n_seqs, guint can_recover);
/* A repair packet of a FEC block covering @seqs (distinct, at most
 * RTPCC_REPAIR_FEC_MAX_SEQS, the rest ignored) arrived; @n_parity of the block's repair packets
 * are in so far (the same @seqs again: the caller's count, the largest
 * is kept), each rebuilding one loss; @complete: no more will come. It
 * also teaches the FEC window (see rule 2). */
void rtpcc_repair_on_fec_parity (RtpccRepair * repair, RtpccTime now,
    const guint16 * seqs, guint n_seqs, guint n_parity, gboolean complete);
/* A key frame starting at @first_seq arrived: the stream is whole again,
 * losses before it are dropped, a pending request is answered. */
void rtpcc_repair_on_keyframe (RtpccRepair * repair, RtpccTime now,
    guint16 first_seq);
/* The decoder says the picture is corrupt: ask for a key frame. */
void rtpcc_repair_on_corrupt (RtpccRepair * repair, RtpccTime now);

/* The RTT in force from now on (> 0; RTPCC_TIME_NONE: back to the
 * measured one). */
void rtpcc_repair_set_rtt (RtpccRepair * repair, RtpccTime rtt);
void rtpcc_repair_set_playout_delay (RtpccRepair * repair, RtpccTime delay);
void rtpcc_repair_set_fec_window (RtpccRepair * repair, RtpccTime window);

/* Applies the rules at @now; TRUE if @out asks for something (NACKs, a
 * key frame or both). */
gboolean rtpcc_repair_poll (RtpccRepair * repair, RtpccTime now,
    RtpccRepairRequest * out);
/* When poll() next has something to do (RTPCC_TIME_INFINITE: nothing). */
RtpccTime rtpcc_repair_next_timeout (RtpccRepair * repair);
/* The playout deadline the planner assumes for @rtp_ts, as of the latest
 * packet or poll (RTPCC_TIME_NONE before the first original). */
RtpccTime rtpcc_repair_deadline (RtpccRepair * repair, guint32 rtp_ts);

void rtpcc_repair_get_stats (RtpccRepair * repair, RtpccRepairStats * stats);

G_END_DECLS

#endif

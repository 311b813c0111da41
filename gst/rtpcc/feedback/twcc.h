/* Transport-wide congestion control feedback (TWCC,
 * draft-holmer-rmcat-transport-wide-cc-extensions-01): RTPFB (PT 205), FMT 15.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |V=2|P|  FMT=15 |    PT=205     |           length              |
 *  |                     SSRC of packet sender                     |
 *  |                      SSRC of media source                     |
 *  |      base sequence number     |      packet status count      |
 *  |                 reference time                | fb pkt. count |
 *  |          packet chunk         |         packet chunk          |
 *  .                              ...                              .
 *  |         packet chunk          |  recv delta   |  recv delta   |
 *  .                              ...                              .
 *  |           recv delta          |  recv delta   | zero padding  |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * The packets covered are base, base + 1, …, base + count − 1 (mod 2^16)
 * of the transport-wide sequence number (the RTP header extension of
 * rtpext.h), whatever their SSRC.
 *
 * Packet chunks (16 bits), each a status symbol per packet:
 *   run length:     0 | S (2 bits) | run length (13 bits)
 *   status vector:  1 | 0 | 14 × 1-bit symbols (0 not received, 1 small)
 *                   1 | 1 |  7 × 2-bit symbols
 * Symbols: 0 not received; 1 received, small delta (1 byte, unsigned,
 * 0..255 × 250 µs); 2 received, large or negative delta (2 bytes, signed,
 * × 250 µs); 3 reserved. The last chunk may describe more symbols than the
 * count leaves (a partly used vector); the excess is ignored.
 *
 * Recv deltas, one per received packet in sequence order: the first is
 * relative to the reference time (24-bit signed, × 64 ms, in the feedback
 * sender's own time base), each later one to the previous received packet.
 * So arrival(k) = reference + Σ deltas up to k, and a packet that arrived
 * before its predecessor (reordering) has a negative delta.
 *
 * Writer. Reference time = floor(first received arrival / 64 ms) modulo
 * 2^24, so the first delta is 0..256 ticks. Each received packet's arrival
 * is rounded to the nearest 250 µs tick *from that reference*, and its
 * delta is the difference of rounded ticks: errors stay within ±125 µs and
 * never accumulate along the packet. Chunks are chosen greedily as
 * libwebrtc does (runs as run-length chunks of up to 8191, mixed stretches
 * as 14 × 1-bit vectors, 7 × 2-bit when a large delta is among them). A
 * packet ends early (the rest goes into the next one) when a delta would
 * not fit int16 (more than 8.19 s between consecutive arrivals), when the
 * status count would pass 65535, or when the next entry would make it
 * larger than the size limit. Zero padding to 32 bits, no P bit (as the
 * draft draws it; the parser also takes RTCP padding).
 *
 * Parser: exactly one RTCP packet; rejects what a writer could not have
 * meant: status count 0 (as libwebrtc does), chunks running out before the
 * status count, a reserved symbol for a covered packet, deltas truncated,
 * and more than 3 bytes left after the deltas (before any RTCP padding).
 *
 * Known pitfalls of other implementations we avoid (seen in libwebrtc's and
 * GStreamer's rtptwcc bug trackers): the
 * reference time wraps every 2^24 × 64 ms ≈ 12.4 days (RtpccTwccUnwrapper
 * unwraps it, and a receiver restart is a new epoch, not a 6-day jump);
 * duplicate RTP packets must not produce two statuses for one sequence
 * number (the recorder keeps one slot per number, first arrival wins); and
 * reordered packets go back into feedback with negative deltas.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_TWCC_H__
#define __RTPCC_FEEDBACK_TWCC_H__

#include <rtpcc/common.h>
#include <rtpcc/feedback/rtpext.h>

G_BEGIN_DECLS

#define RTPCC_TWCC_FMT 15
#define RTPCC_TWCC_DELTA_UNIT RTPCC_USEC (250)
#define RTPCC_TWCC_REF_UNIT RTPCC_MSEC (64)
/* 2^24 × 64 ms ≈ 12.43 days */
#define RTPCC_TWCC_REF_WRAP (G_GINT64_CONSTANT (1) << 24)
#define RTPCC_TWCC_MAX_STATUS_COUNT 0xFFFF
/* header, sender and media SSRC, base/count/reference/fb count */
#define RTPCC_TWCC_HEADER_SIZE 20
/* the smallest packet: header, one chunk, one 2-byte delta */
#define RTPCC_TWCC_MIN_SIZE 24

typedef enum
{
  RTPCC_TWCC_NOT_RECEIVED = 0,
  RTPCC_TWCC_SMALL_DELTA = 1,
  RTPCC_TWCC_LARGE_DELTA = 2,
  RTPCC_TWCC_RESERVED = 3,
} RtpccTwccSymbol;

/* Writer input: one packet's fate. */
typedef struct
{
  guint64 seq;                  /* extended transport-wide seq (low 16 bits
                                 * go on the wire) */
  RtpccTime arrival;            /* RTPCC_TIME_NONE: not received */
} RtpccTwccArrival;

/* Parser output: one status. */
typedef struct
{
  guint16 seq;
  guint8 symbol;                /* RtpccTwccSymbol: 0, 1 or 2 */
  gboolean received;            /* symbol != 0 */
  gint16 delta;                 /* recv delta in 250 µs ticks; 0 if lost */
  RtpccTime offset;             /* arrival − reference time in ns, or NONE */
} RtpccTwccStatus;

typedef struct
{
  guint32 sender_ssrc;
  guint32 media_ssrc;
  guint16 base_seq;
  guint16 status_count;
  guint32 ref_time;             /* 24 bits as on the wire */
  guint8 fb_count;
  guint n_received;
  RtpccTwccStatus *status;      /* status_count entries */
} RtpccTwcc;

/* ---- wire format -------------------------------------------------------- */

/* Writes one feedback packet covering a prefix of @pkts (@n entries,
 * strictly increasing seq; a gap in seq is a run of not-received packets,
 * and an entry not above its predecessor ends the packet). *@n_used gets
 * how many entries it covers (at least 1 on success): write the rest with
 * the next call, with @fb_count + 1. Returns the bytes written (a multiple
 * of 4, at most @max), or 0 if @n is 0 or not even the first entry fits
 * (@max < 24 always fails). If no covered packet was received the
 * reference time is 0. Arrival times beyond ±2^61 ns (73 years) are
 * refused: such an entry ends the packet, or fails the call if first. */
gsize rtpcc_twcc_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc, guint8 fb_count, const RtpccTwccArrival * pkts,
    guint n, guint * n_used);

/* Parses exactly one RTCP packet (@len = its length field, padding
 * included). NULL and @error (RTPCC_ERROR_PARSE, message prefixed "TWCC: ")
 * on: short input, version ≠ 2, PT ≠ 205, FMT ≠ 15, a length field that
 * disagrees with @len, a padding count of 0 or past the header (a count
 * that is not a multiple of 4 is taken: libwebrtc pads TWCC with P and a
 * count of 1..3), status count 0, chunks that end before
 * the status count is covered, a reserved symbol for a covered packet,
 * truncated deltas, or 4 or more bytes after the deltas. */
RtpccTwcc *rtpcc_twcc_parse (const guint8 * pkt, gsize len, GError ** error);
void rtpcc_twcc_free (RtpccTwcc * fb);

/* The 24-bit reference time as the draft's signed integer. */
gint32 rtpcc_twcc_ref_time_signed (guint32 ref_time);
/* floor(@t / 64 ms) modulo 2^24: the reference time for an arrival @t. */
guint32 rtpcc_twcc_ref_time_from_time (RtpccTime t);

/* ---- sequence numbers -------------------------------------------------- */

/* The extended seq ≤ @highest_sent whose low 16 bits are @seq, i.e. the
 * latest packet sent with that number (@highest_sent − 65535 at the
 * earliest; below 0 it wraps into the top of the 64-bit space, which a
 * sender's history simply does not have). */
guint64 rtpcc_twcc_unwrap_seq (guint64 highest_sent, guint16 seq);

/* ---- receiver side ---------------------------------------------------- */

#define RTPCC_TWCC_RECORDER_MIN_CAPACITY 64
#define RTPCC_TWCC_RECORDER_MAX_CAPACITY 32768
#define RTPCC_TWCC_RECORDER_DEFAULT_CAPACITY 8192
#define RTPCC_TWCC_DEFAULT_MAX_PACKET_SIZE 1200
#define RTPCC_TWCC_DEFAULT_LATE_WINDOW RTPCC_MSEC (500)
/* a seq this far behind the highest is a restart (RFC 3550 A.1's rule) or
 * a stale straggler, never reordering */
#define RTPCC_TWCC_RECORDER_MAX_MISORDER 16384

/* Records transport-wide seqs as packets arrive and writes TWCC feedback.
 *
 * Seqs are unwrapped to 64 bits against the highest seen (the first packet
 * gets 65536 + seq). One slot per seq in a ring of @capacity: a duplicate
 * is ignored (first arrival wins) and can never put two statuses for one
 * seq into a feedback packet. A seq more than 16384 behind the highest is
 * dropped, unless the next packet follows it: the sender restarted its
 * counter, and recording starts afresh there.
 *
 * Coverage: each write covers every seq after the highest one covered
 * before, up to the highest received (the first write starts at the first
 * seq recorded), limited to the ring. A packet that arrives after a write
 * covered its seq — reported lost, it was only reordered — reaches back:
 * the next write starts at it again (the draft allows the base to go
 * back), so the sender learns it arrived; packets between it and the old
 * end are then reported a second time, with the same arrival times. This
 * reach-back is limited to packets whose seq was first covered within the
 * late window (default 500 ms) before they arrived; later ones stay lost.
 * The coverage is split into as many feedback packets as needed, each at
 * most the max packet size; those that do not fit in @max stay pending for
 * the next write. Each packet written increments the 8-bit feedback
 * packet count. */
typedef struct _RtpccTwccRecorder RtpccTwccRecorder;

/* @capacity seqs remembered, clamped to [64, 32768]; 0: the default 8192. */
RtpccTwccRecorder *rtpcc_twcc_recorder_new (guint capacity);
void rtpcc_twcc_recorder_free (RtpccTwccRecorder * rec);
/* Each feedback packet at most @size bytes (clamped to ≥ 24); default 1200. */
void rtpcc_twcc_recorder_set_max_packet_size (RtpccTwccRecorder * rec,
    gsize size);
void rtpcc_twcc_recorder_set_late_window (RtpccTwccRecorder * rec,
    RtpccTime window);

/* Records that transport seq @seq arrived at @arrival (receiver clock).
 * TRUE if new; FALSE for a duplicate, a packet too old for the ring, a
 * suspected straggler, or @arrival NONE (or beyond ±2^61 ns). */
gboolean rtpcc_twcc_recorder_add (RtpccTwccRecorder * rec, guint16 seq,
    RtpccTime arrival);
/* TRUE if a write now would produce something. */
gboolean rtpcc_twcc_recorder_has_pending (const RtpccTwccRecorder * rec);
/* Writes the feedback packet(s) covering everything since the previous
 * write into @buf, back to back (each a complete RTCP packet: append them
 * to a compound or send them as reduced-size RTCP). Returns the bytes
 * written (0: nothing new, or not even one packet fits), and in
 * @n_packets (may be NULL) how many packets. @now is the time of the
 * write; it bounds the late reach-back. */
gsize rtpcc_twcc_recorder_write (RtpccTwccRecorder * rec, RtpccTime now,
    guint32 sender_ssrc, guint32 media_ssrc, guint8 * buf, gsize max,
    guint * n_packets);
/* Counters: unique packets recorded, duplicates, packets dropped as too
 * old or stale, feedback packets written, and the next feedback count. */
typedef struct
{
  guint64 received;
  guint64 duplicates;
  guint64 dropped;
  guint64 feedback_packets;
  guint8 next_fb_count;
} RtpccTwccRecorderStats;
void rtpcc_twcc_recorder_get_stats (const RtpccTwccRecorder * rec,
    RtpccTwccRecorderStats * stats);

/* ---- sender side ------------------------------------------------------- */

/* Maps parsed feedback onto the sender's extended transport seqs and onto
 * a continuous timeline of the receiver's clock.
 *
 * The 24-bit reference time is unwrapped against the previous feedback's
 * (the nearest value), so the 12.4-day wrap is invisible; the first one is
 * taken as unsigned (0..2^24 − 1), as libwebrtc and GStreamer write it.
 * A receiver restart (or any jump of its clock) shows as a reference time
 * that moved by more than the sender's own clock did between the two
 * feedback packets, give or take the restart threshold (default 2 s, well
 * above what feedback timing and reverse-path queueing make them differ
 * by): the mapping then starts a new epoch, carried on from the previous
 * one by the sender's clock (to within ~100 ms), so the timeline stays
 * roughly continuous. A silence longer than the ±6.2 days the 24 bits can
 * tell apart is caught the same way. Arrival times are only comparable
 * within one epoch: a delay-based controller must reset its baseline (e.g.
 * the minimum one-way delay) when the epoch changes. A step smaller than
 * the threshold passes as a change of delay; comparing arrival − send time
 * catches those finer, if a controller needs it. Feedback without a
 * received packet carries no usable reference time and leaves the
 * unwrapping state alone. */
typedef struct _RtpccTwccUnwrapper RtpccTwccUnwrapper;

typedef struct
{
  guint64 ext_seq;
  gboolean received;
  RtpccTime arrival;            /* receiver clock (this epoch), ns; NONE if lost */
} RtpccTwccResult;

typedef struct
{
  guint epoch;                  /* starts at 0 */
  gboolean new_epoch;           /* this feedback started @epoch (not the first) */
  guint feedback_gap;           /* feedback packets missed before this one
                                 * (from the 8-bit count; 0 for a late one
                                 * and at a new epoch) */
} RtpccTwccMapInfo;

#define RTPCC_TWCC_DEFAULT_RESTART_THRESHOLD RTPCC_SEC (2)

RtpccTwccUnwrapper *rtpcc_twcc_unwrapper_new (void);
void rtpcc_twcc_unwrapper_free (RtpccTwccUnwrapper * u);
void rtpcc_twcc_unwrapper_set_restart_threshold (RtpccTwccUnwrapper * u,
    RtpccTime threshold);
/* Fills @out (room for @fb->status_count entries) for feedback @fb that
 * arrived at @now (sender clock); @highest_sent is the highest extended
 * transport seq sent so far (see rtpcc_twcc_unwrap_seq). Returns the
 * number of entries (= status_count). A seq may be reported in more than
 * one feedback packet (lost, then received after reordering; or received
 * twice, identical to ±125 µs): the first "received" is the one to keep. */
guint rtpcc_twcc_unwrapper_map (RtpccTwccUnwrapper * u, RtpccTime now,
    const RtpccTwcc * fb, guint64 highest_sent, RtpccTwccResult * out,
    RtpccTwccMapInfo * info);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtpccTwcc, rtpcc_twcc_free)

G_END_DECLS

#endif

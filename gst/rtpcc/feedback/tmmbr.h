/* Temporary Maximum Media Stream Bit Rate Request and Notification
 * (RFC 5104 §4.2.1, §4.2.2): RTPFB (PT 205) FMT 3 and 4, build and parse;
 * the bounding set of competing requests (§3.5.4.2); the media sender's
 * state that obeys them and answers with TMMBN.
 *
 *  |V=2|P| FMT=3/4 |    PT=205     |          length = 2 + 2n      |
 *  |                  SSRC of packet sender                        |
 *  |                  SSRC of media source (0)                     |
 *  |                              SSRC                             |  × n
 *  | MxTBR Exp |  MxTBR Mantissa                 |Measured Overhead|
 *
 * Each FCI entry is a tuple (RFC 5104 §4.2.1.1): a maximum total media
 * bit rate MxTBR = mantissa · 2^exp bit/s (6-bit exponent, 17-bit
 * mantissa) and the per-packet overhead in bytes its sender measured
 * (9 bits: IP, UDP and the RTP header and what else the requester counts
 * as not media, a running average, see RtpccTmmbrOverhead). In a
 * TMMBR the SSRC names the media sender asked; in a TMMBN it names the
 * "owner" of the tuple, the requester whose TMMBR it was. The media source
 * field is unused and SHALL be 0. A TMMBR carries one entry or more; a
 * TMMBN may carry none (no limit in force).
 *
 * MxTBR is a total rate, overhead included as its requester counts it:
 * at packet rate PR the media may use net bit rate MxTBR − 8 · O · PR.
 * Several requests bound the sender together; only those that are the
 * lowest of all for some packet rate matter (the bounding set).
 *
 * Parsers are strict about framing (whole 8-byte entries, at least one in
 * a TMMBR, the length field equal to the bytes) and refuse a mantissa
 * shifted past 64 bits (the RFC's range reaches 131071 · 2^63, bit rates
 * are kept in 64 bits here); they ignore the media source field.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_TMMBR_H__
#define __RTPCC_FEEDBACK_TMMBR_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_RTPFB_FMT_TMMBR 3
#define RTPCC_RTPFB_FMT_TMMBN 4
#define RTPCC_TMMBR_MAX_OVERHEAD 511
/* the 16-bit length field counts 32-bit words minus one */
#define RTPCC_TMMBR_MAX_ENTRIES ((G_MAXUINT16 - 2) / 2)

typedef struct
{
  guint32 ssrc;                 /* TMMBR: media sender; TMMBN: owner */
  guint64 bitrate;              /* MxTBR, bit/s */
  guint16 overhead;             /* measured overhead, bytes per packet */
} RtpccTmmbrEntry;

/* A parsed TMMBR or TMMBN. */
typedef struct
{
  guint32 sender_ssrc;
  guint n_entries;              /* >= 1 in a TMMBR */
  RtpccTmmbrEntry *entries;
} RtpccTmmb;

/* ---- Wire format ------------------------------------------------------- */

/* The 6-bit exponent and 17-bit mantissa for @bitrate: the smallest
 * exponent whose mantissa fits, the bits below it dropped (a maximum is
 * never raised by its encoding). */
void rtpcc_tmmbr_encode_bitrate (guint64 bitrate, guint8 * exp,
    guint32 * mantissa);

/* Bytes of a TMMBR / TMMBN with @n entries; 0 if @n is out of range
 * (TMMBR: 1..max; TMMBN: 0..max). */
gsize rtpcc_tmmbr_size (guint n);
gsize rtpcc_tmmbn_size (guint n);
/* Write one packet (media source 0, no padding); return its size, or 0 if
 * it does not fit in @max, @n is out of range or an overhead is over 511.
 * Bitrates are encoded as rtpcc_tmmbr_encode_bitrate() says. */
gsize rtpcc_tmmbr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccTmmbrEntry * entries, guint n);
gsize rtpcc_tmmbn_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccTmmbrEntry * entries, guint n);
/* Parse exactly one RTCP packet. NULL and @error (RTPCC_ERROR_PARSE) when
 * malformed. */
RtpccTmmb *rtpcc_tmmbr_parse (const guint8 * pkt, gsize len, GError ** error);
RtpccTmmb *rtpcc_tmmbn_parse (const guint8 * pkt, gsize len, GError ** error);
void rtpcc_tmmb_free (RtpccTmmb * tmmb);

/* The Measured Overhead a requester reports: RFC 5104 §4.2.1.2's
 * "running average that is updated for each packet received for this
 * particular media source", avg = 15/16 · avg + 1/16 · the packet's
 * overhead, started at the first packet's (the RFC leaves the start
 * open). */
typedef struct
{
  guint64 avg;                  /* bytes · 2^16 */
  gboolean started;
} RtpccTmmbrOverhead;

void rtpcc_tmmbr_overhead_init (RtpccTmmbrOverhead * o);
/* One packet received from the media source with @overhead bytes that are
 * not media (IP, UDP, RTP header and what else the requester counts). */
void rtpcc_tmmbr_overhead_add (RtpccTmmbrOverhead * o, guint overhead);
/* The field value: the average rounded, at most 511; 0 before any
 * packet. */
guint16 rtpcc_tmmbr_overhead_value (const RtpccTmmbrOverhead * o);

/* ---- The bounding set (RFC 5104 §3.5.4.2) ------------------------------ */

/* Each tuple allows net bit rate B − 8 · O · PR at packet rate PR. The
 * bounding set is the tuples that are the lowest of all for some PR ≥ 0
 * at which that lowest limit is still positive, as RFC 5104 §3.5.4.2's
 * initial algorithm selects them: the first member is the lowest bit rate
 * (of equal ones, the highest overhead); each next one is the tuple of
 * higher overhead whose line crosses the last member's first (of equal
 * crossings, the highest overhead: the RFC's step 7 drops a member whose
 * crossing is "equal to or lower than" its predecessor's), taken only if
 * that crossing is "lower than the maximum packet rate" of the last
 * member, where its limit reaches zero (step 8); otherwise the set is
 * complete. No session maximum packet rate (SMAXPR) is applied. Of
 * identical tuples the first listed is kept. Exact integer arithmetic.
 *
 * Writes the set to @out (room for @n; never more are needed) in order of
 * rising overhead, and so of rising bit rate; returns its size (0 only for
 * @n = 0). */
guint rtpcc_tmmbr_bounding_set (const RtpccTmmbrEntry * in, guint n,
    RtpccTmmbrEntry * out);
/* The net bit rate the tuples allow at @packet_rate packets/s: the lowest
 * B − 8 · O · PR, at least 0; G_MAXUINT64 when @n is 0. */
guint64 rtpcc_tmmbr_net_limit (const RtpccTmmbrEntry * set, guint n,
    gdouble packet_rate);
/* Whether a TMMBR with @mine would change the bounding set @set (a
 * TMMBN's entries), its requester's own tuple there (same SSRC) replaced
 * by @mine: a tuple that would join the set, or an owner's changed one.
 * A requester need not send a TMMBR that would change nothing (RFC 5104
 * §3.5.4.1). */
gboolean rtpcc_tmmbr_would_change (const RtpccTmmbrEntry * set, guint n,
    const RtpccTmmbrEntry * mine);

/* ---- The media sender's side ------------------------------------------- */

#define RTPCC_TMMBR_MAX_REQUESTERS 32

/* The requests in force for one media stream, one per requester (the
 * latest replaces the earlier), and their bounding set. A request stays
 * until its requester sends another or leaves (RTCP BYE or timeout:
 * rtpcc_tmmbr_state_remove). */
typedef struct
{
  guint32 media_ssrc;
  guint n;
  RtpccTmmbrEntry requests[RTPCC_TMMBR_MAX_REQUESTERS]; /* ssrc = requester */
  guint n_set;
  RtpccTmmbrEntry set[RTPCC_TMMBR_MAX_REQUESTERS];      /* ssrc = owner */
  /* a new requester with the table full replaced the least limiting
   * request, or was ignored if it was the least limiting itself */
  guint64 n_evicted, n_ignored;
} RtpccTmmbrState;

void rtpcc_tmmbr_state_init (RtpccTmmbrState * s, guint32 media_ssrc);
/* Takes a parsed TMMBR: its entry about media_ssrc (the first, if several)
 * becomes the request of tmmbr->sender_ssrc. TRUE if it named media_ssrc:
 * a TMMBN is due in answer (even when nothing changed, so that the
 * requester learns the bounding set). */
gboolean rtpcc_tmmbr_state_on_tmmbr (RtpccTmmbrState * s,
    const RtpccTmmb * tmmbr);
/* Drops @requester's request (it left the session). TRUE if it had one. */
gboolean rtpcc_tmmbr_state_remove (RtpccTmmbrState * s, guint32 requester);
/* The total bit rate limit in force: the lowest MxTBR requested, or
 * G_MAXUINT64 without requests. */
guint64 rtpcc_tmmbr_state_limit (const RtpccTmmbrState * s);
/* MIN (@target, the limit): what the sender may aim at. */
guint64 rtpcc_tmmbr_state_apply (const RtpccTmmbrState * s, guint64 target);
/* Writes the TMMBN answering the requests: the bounding set. */
gsize rtpcc_tmmbr_state_write_tmmbn (const RtpccTmmbrState * s, guint8 * buf,
    gsize max, guint32 sender_ssrc);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtpccTmmb, rtpcc_tmmb_free)

G_END_DECLS

#endif

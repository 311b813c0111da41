/* Probation of RTP sequence number jumps, in the manner of RFC 3550 A.1
 * (update_seq): a packet far from the sequence numbers seen so far is not
 * believed at once, since one stray or corrupt packet would otherwise move
 * a receiver's window and make every valid packet after it look late. The
 * jump is believed only when the next packet follows it in sequence (a
 * sender restart, or the stream after a long outage); any other packet
 * refutes it.
 *
 * Library-internal (not installed): shared by the FEC decoder and the
 * playout buffer, which differ in what they do with the packet on
 * probation (the decoder holds it, the playout drops it as A.1 does).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SEQJUMP_H__
#define __RTPCC_SEQJUMP_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* More than this ahead of the highest sequence number seen is a jump: far
 * beyond reordering and the loss bursts FEC can repair, short of a few
 * seconds of packets. */
#define RTPCC_SEQ_JUMP_AHEAD 256
/* More than this behind the highest is a jump: deeper than any reordering
 * (multipath skew included), which A.1 bounds by MAX_MISORDER. */
#define RTPCC_SEQ_JUMP_BEHIND 1024
/* The packet that confirms a jump follows it within this many sequence
 * numbers (a few of those in between may be lost). */
#define RTPCC_SEQ_JUMP_CONFIRM 16

typedef struct
{
  gboolean pending;             /* a packet is on probation */
  guint16 seq;                  /* its sequence number */
} RtpccSeqJump;

typedef enum
{
  RTPCC_SEQ_JUMP_NONE = 0,      /* in the expected range */
  RTPCC_SEQ_JUMP_PROBATION,     /* a jump: on probation now */
  RTPCC_SEQ_JUMP_CONFIRMED,     /* follows the packet on probation: believe
                                 * the jump */
} RtpccSeqJumpVerdict;

void rtpcc_seq_jump_reset (RtpccSeqJump * j);
/* The verdict on a packet @seq that lies @delta (unwrapped: packet − highest
 * seen) from the highest sequence number. *@refuted (may be NULL) is set
 * when a packet on probation lost it: it was not confirmed by this one. */
RtpccSeqJumpVerdict rtpcc_seq_jump_check (RtpccSeqJump * j, guint16 seq,
    gint64 delta, gboolean * refuted);

G_END_DECLS

#endif /* __RTPCC_SEQJUMP_H__ */

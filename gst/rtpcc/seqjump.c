/* Probation of RTP sequence number jumps (see seqjump.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "seqjump.h"

void
rtpcc_seq_jump_reset (RtpccSeqJump * j)
{
  j->pending = FALSE;
  j->seq = 0;
}

RtpccSeqJumpVerdict
rtpcc_seq_jump_check (RtpccSeqJump * j, guint16 seq, gint64 delta,
    gboolean * refuted)
{
  gboolean was = j->pending;

  if (refuted)
    *refuted = FALSE;
  if (was) {
    guint16 d = (guint16) (seq - j->seq);

    j->pending = FALSE;
    if (d >= 1 && d <= RTPCC_SEQ_JUMP_CONFIRM)
      return RTPCC_SEQ_JUMP_CONFIRMED;
    if (refuted)
      *refuted = TRUE;
  }
  if (delta > RTPCC_SEQ_JUMP_AHEAD || delta < -RTPCC_SEQ_JUMP_BEHIND) {
    j->pending = TRUE;
    j->seq = seq;
    return RTPCC_SEQ_JUMP_PROBATION;
  }
  return RTPCC_SEQ_JUMP_NONE;
}

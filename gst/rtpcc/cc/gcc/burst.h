/* gcc burst guard: the sender's own bursts (key frames), which may not
 * fire an over-use.
 *
 * A key frame pushed through the pacer builds a queue at the bottleneck
 * that drains once the frame is out; the average rate is still the
 * target. The sender knows when it bursts: with frame ends marked (the
 * RTP marker), a frame of more than 2 × the delta frames' mean bytes is a
 * key frame; without them, a frame that keeps the pacer busy for more than
 * 1.5 frame intervals. Delay samples of groups sent from 100 ms before to
 * 150 ms after such a mark are the burst's, up to 100 ms of delay growth
 * (what the pacer's 100 ms max-delay lets one frame add); more than that
 * is an over-use whatever we sent. docs/gcc.md, (a).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_GCC_BURST_H__
#define __RTPCC_CC_GCC_BURST_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean guard;               /* excuse our own bursts at all (default) */
  gboolean by_size;             /* key frames by bytes (needs frame ends) */
  GArray *marks;                /* RtpccTime, send times in a burst */
  gboolean pacer_idle;          /* the last media packet left it empty */
  gboolean have_frame_ends;     /* the sender marks frame ends */
  RtpccTime busy_start, last_busy_end;
  gdouble frame_interval;       /* ns, EMA of the gaps between frame ends */
  guint n_frame_gaps;
  guint64 frame_bytes;          /* media bytes of the frame being sent */
  RtpccTime frame_first_send;   /* its first packet's send time */
  gdouble frame_mean;           /* EMA of delta frames' bytes */
  guint n_frames;
  gboolean last_frame_key;
  guint64 n_key_frames;         /* frames taken for key frames (by size) */
  gboolean in_burst;            /* the last sample was a burst's */
  gdouble burst_base;           /* accumulated delay when it began, ms */
  guint64 n_self_bursts;        /* samples excused as our own burst */
} RtpccGccBurst;

void rtpcc_gcc_burst_init (RtpccGccBurst * b);
void rtpcc_gcc_burst_clear (RtpccGccBurst * b);
/* A media packet left. @may_mark: FALSE while a probe runs (its own FEC
 * keeps the pacer busy, and a probe that over-uses must be seen). */
void rtpcc_gcc_burst_sent (RtpccGccBurst * b, const RtpccSentPacket * pkt,
    gboolean may_mark);
/* Is the delay sample of a group whose last packet left at @send, with the
 * raw accumulated delay at @accumulated ms, our own burst's? */
gboolean rtpcc_gcc_burst_check (RtpccGccBurst * b, RtpccTime send,
    gdouble accumulated);

G_END_DECLS

#endif /* __RTPCC_CC_GCC_BURST_H__ */

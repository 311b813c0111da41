/* A flow's FEC in the simulator: real parity packets and their recovery.
 *
 * At the sender, the library's encoder (XOR, RtpccFecEncoder) takes every
 * media packet as the payloader makes it (a 12-byte header and a payload
 * of zeros: the simulator's payloads are virtual, and parity over zeros is
 * as good as any for telling what can be rebuilt) and follows the
 * controller's split of its target as fecenc follow-target does (with its
 * default max-block-time, 100 ms): N = rtpcc_fec_interval_for_rates
 * (media, FEC), or the controller's own interval (FBRA's) with blocks
 * closed by count alone; off when the controller asks for no FEC. Each parity packet it completes is a whole RTP packet on its
 * own SSRC and payload type, queued in the sender after the media it
 * protects, so the controller sees it go out as FEC (FBRA's probe is this
 * FEC, not padding: the sender pads only while no FEC flows). At the
 * receiver, the library's decoder (RtpccFecDecoder) gets the media as
 * they arrive (rebuilt the same way from their wire headers) and the
 * parity packets, and rebuilds what it can before its deadline.
 *
 * A ledger keeps what became of every media packet (sent, covered by a
 * parity packet the encoder produced, arrived, rebuilt) and its frame, for
 * the FEC figures of Nagy, Singh, Ott and Varga, "Congestion control using
 * FEC for conversational multimedia communication" (ACM MMSys 2014): the
 * FEC rate and the FEC Frame Recovery Efficiency (FFRE = frames recovered
 * / (frames protected but lost + frames recovered)).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SIM_FEC_H__
#define __RTPCC_SIM_FEC_H__

#include <rtpcc/common.h>
#include <rtpcc/feedback/rtpext.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 fec_packets, fec_bytes;       /* parity the encoder produced */
  guint64 media_packets;        /* media packets sent */
  guint64 protected_packets;    /* of which a parity packet covered */
  guint64 recovered;            /* rebuilt by the decoder in time */
  guint64 lost;                 /* missing after FEC */
  guint64 lost_protected;       /* of which a parity packet covered */
  /* frames that lost a packet on the way: all of them rebuilt; or still
   * missing one, a covered one among those missing */
  guint64 frames_recovered, frames_lost_protected;
  /* recovered / (recovered + lost_protected), per packet and per frame
   * (the paper's FFRE); NaN when nothing covered was lost */
  gdouble ffre_packets, ffre_frames;
} SimFecResult;

typedef struct _SimFec SimFec;

/* Called with each parity packet (a whole RTP packet, borrowed) the
 * encoder completes. */
typedef void (*SimFecEmit) (const guint8 * packet, gsize len,
    gpointer user_data);

/* FEC for the media of @media_ssrc, its parity on @fec_ssrc with payload
 * type @fec_pt. */
SimFec *sim_fec_new (guint32 media_ssrc, guint32 fec_ssrc, guint8 fec_pt);
void sim_fec_free (SimFec * fec);
guint8 sim_fec_get_pt (const SimFec * fec);

/* Sender: the flow's media packet number @index (0, 1, ... in send order)
 * of frame @frame, whose payloader header is @hdr (@hdr_len bytes, no
 * CSRCs or extensions) in a packet of @size bytes, is queued at @now while
 * the controller asks for @media_bitrate and @fec_bitrate, and sets its
 * own FEC interval @interval (0: none). Blocks whose time bound passed
 * close first; the parity packets completed go to @emit. */
void sim_fec_media_sent (SimFec * fec, RtpccTime now, guint64 index,
    guint64 frame, const guint8 * hdr, gsize hdr_len, gsize size,
    guint64 media_bitrate, guint64 fec_bitrate, guint interval,
    SimFecEmit emit, gpointer user_data);

/* Receiver: media packet number @index arrived at @now; @info is its wire
 * header parsed (@header_len bytes of the @size on the wire). */
void sim_fec_media_arrived (SimFec * fec, RtpccTime now, guint64 index,
    const RtpccRtpInfo * info, gsize header_len, gsize size);
/* Receiver: a packet of the FEC payload type arrived (@data: the whole
 * packet as on the wire). */
void sim_fec_parity_arrived (SimFec * fec, RtpccTime now,
    const guint8 * data, gsize len);

/* What became of the media so far; the decoder's open holes are settled
 * (call at the end of the run). */
void sim_fec_get_result (SimFec * fec, SimFecResult * result);

G_END_DECLS

#endif

/* A stock GStreamer rtpsession on the sender's side, as the simulator sees
 * it: what rtpccbwe sits in front of.
 *
 *   SimRtpccSender ─▶ session: overwrites the transport-wide seq with its
 *                    own counter, keeps (seq → PT, payload size, time) ─▶ net
 *   SimRtpccSender ◀─ session: parses the receiver's TWCC, lists every
 *                    packet of it as GStreamer's RTPTWCCPackets event does
 *                    (packets it missed feedback for as lost; arrival =
 *                    the 24-bit reference time × 64 ms + the deltas), and
 *                    hands the list to rtpcc_sender_transport_feedback;
 *                    every other RTCP (the RRs) stays with the session
 *
 * so the sender's translation of a foreign numbering runs in closed loop,
 * on the same entry point the element uses.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SIM_SESSION_H__
#define __RTPCC_SIM_SESSION_H__

#include "sim-rtpcc.h"

G_BEGIN_DECLS

typedef struct
{
  guint8 twcc_ext_id;           /* the extension the sender stamps */
  guint16 first_seq;            /* the session's counter at our first
                                 * packet (a session that numbered others
                                 * before: not 0) */
} SimSessionConfig;

typedef struct
{
  guint64 numbered;             /* packets it stamped */
  guint64 unstamped;            /* packets without the extension */
  guint64 reports;              /* TWCC packets turned into a report */
  guint64 reported, reported_lost, gap_lost;    /* packets in them */
  guint64 rtcp_kept;            /* other RTCP packets, consumed */
  guint64 rejected;             /* reports the sender could not map */
} SimSessionCounters;

typedef struct _SimSession SimSession;

/* Between @sender and @forward (the network); put its rtcp node where the
 * reverse path delivers the flow's feedback. */
SimSession *sim_session_new (Sim * sim, const SimSessionConfig * config,
    SimRtpccSender * sender, SimNode * forward);
void sim_session_free (SimSession * session);
SimNode *sim_session_send_node (SimSession * session);
SimNode *sim_session_rtcp_node (SimSession * session);
const SimSessionCounters *sim_session_get_counters (SimSession * session);

G_END_DECLS

#endif

/* rtpcc_sender_transport_feedback in closed loop: gcc behind a simulated
 * stock rtpsession (sim-session.h) that numbers the packets itself, from
 * 63000 on (so its numbering is not ours and wraps in the run), and hands
 * the receiver's TWCC over as GStreamer's RTPTWCCPackets lists it —
 * against the same call with the sender parsing the TWCC itself.
 *
 * Capacity 2000 kbit/s for 20 s, then 700 kbit/s for 20 s; 50 ms each way.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-session.h"

#include <math.h>

#define FLOW 0

typedef struct
{
  gdouble high, low;            /* mean target (kbit/s), settled phases */
  gdouble low_recv;             /* received in the low phase */
  guint64 reported, lost;
  guint64 link_drops;
  RtpccTransportFeedbackStats tf;
  SimSessionCounters session;
} Outcome;

static Outcome
run (gboolean via_session, guint64 seed)
{
  SimRtpccNetConfig nc;
  SimRtpccFlowConfig fc;
  SimRtpccNet *net;
  SimRtpccFlow *flow;
  SimSession *session = NULL;
  SimRtpccResult *res;
  GError *err = NULL;
  const RtpccSenderStats *ss;
  const RtpccLinkStats *ls;
  RtpccSender *sender;
  Outcome o = { 0, };
  RtpccTime end = RTPCC_SEC (40);

  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = rtpcc_capacity_new_schedule ("2000@0,700@20", &err);
  g_assert_no_error (err);
  nc.forward.delay = RTPCC_MSEC (50);
  nc.reverse.delay = RTPCC_MSEC (50);
  net = sim_rtpcc_net_new (&nc);
  rtpcc_capacity_unref (nc.forward.capacity);

  sim_rtpcc_flow_config_init (&fc, FLOW, "gcc", SIM_RTPCC_FEEDBACK_TWCC,
      seed);
  fc.sender.sender.cc.max_bitrate = 3000000;
  fc.sender.sender.cc.start_bitrate = 500000;
  /* as rtpccbwe runs it: the session sends the SRs, no probes */
  fc.sender.sender.sender_reports = !via_session;
  fc.sender.sender.probing = FALSE;
  flow = sim_rtpcc_net_add_flow (net, &fc, &err);
  g_assert_no_error (err);
  if (via_session) {
    SimSessionConfig sc = { SIM_RTPCC_TWCC_EXT_ID, 63000 };
    session = sim_session_new (net->sim, &sc, flow->sender,
        sim_tap_node (net->send_tap));
    sim_demux_set_route (net->reverse_demux, FLOW,
        sim_session_rtcp_node (session));
  }
  sim_rtpcc_net_run (net, end);

  res = sim_rtpcc_net_collect (net, flow, RTPCC_SEC (5));
  g_assert_cmpuint (res->n_phases, ==, 2);
  o.high = res->phases[0].target_kbps;
  o.low = res->phases[1].target_kbps;
  o.low_recv = res->phases[1].recv_kbps;
  sender = sim_rtpcc_sender_get_sender (flow->sender);
  ss = rtpcc_sender_get_stats (sender, end);
  o.reported = ss->reported_received;
  o.lost = ss->reported_lost;
  o.tf = *rtpcc_sender_get_transport_feedback_stats (sender);
  ls = rtpcc_link_get_stats (sim_link_get_link (net->forward));
  o.link_drops = ls->queue_drops + ls->loss_drops;
  if (session)
    o.session = *sim_session_get_counters (session);
  g_test_message ("%s: target %.0f kbit/s at 2000, %.0f at 700 (received "
      "%.0f); reported received %" G_GUINT64_FORMAT " lost %" G_GUINT64_FORMAT
      " (link drops %" G_GUINT64_FORMAT "); reports %" G_GUINT64_FORMAT
      ", unmatched %" G_GUINT64_FORMAT ", offset %d, syncs %" G_GUINT64_FORMAT,
      via_session ? "via the session" : "own TWCC", o.high, o.low,
      o.low_recv, o.reported, o.lost, o.link_drops, o.tf.reports,
      o.tf.unmatched, o.tf.offset, o.tf.syncs);
  sim_rtpcc_result_free (res);
  sim_rtpcc_net_free (net);
  sim_session_free (session);
  return o;
}

static void
test_session (void)
{
  Outcome own = run (FALSE, 11);
  Outcome via = run (TRUE, 11);

  /* the session numbered every packet, from 63000 (wrapping at 65536):
   * the offset was found once, and every report mapped */
  g_assert_cmpuint (via.session.numbered, >, 65536 - 63000);
  g_assert_cmpuint (via.session.unstamped, ==, 0);
  g_assert_cmpuint (via.session.reports, >, 500);
  g_assert_cmpuint (via.session.rejected, ==, 0);
  g_assert_cmpuint (via.session.rtcp_kept, >, 0);
  g_assert_true (via.tf.synced);
  g_assert_cmpint (via.tf.offset, ==, (gint16) (guint16) (65536 - 63000));
  g_assert_cmpuint (via.tf.syncs, ==, 1);
  g_assert_cmpuint (via.tf.unmatched, ==, 0);
  /* each packet reported once: received or lost, the losses those of
   * the link (a few still pending at the end) */
  g_assert_cmpuint (via.lost, <=, via.link_drops);
  g_assert_cmpuint (via.lost + 20, >=, via.link_drops);

  /* the controller follows the capacity through the session */
  g_assert_cmpfloat (via.high, >, 1200);
  g_assert_cmpfloat (via.low, <, 0.8 * via.high);
  g_assert_cmpfloat (via.low, >, 0.5 * 700);
  g_assert_cmpfloat (via.low, <, 1.1 * 700);
  /* and as it does on its own TWCC (no RR here: only the RTT source
   * differs) */
  g_assert_cmpfloat (fabs (via.high - own.high), <, 0.15 * own.high);
  g_assert_cmpfloat (fabs (via.low - own.low), <, 0.15 * own.low);
}

/* the same inputs give the same run */
static void
test_session_determinism (void)
{
  Outcome a = run (TRUE, 3), b = run (TRUE, 3);

  g_assert_cmpfloat (a.high, ==, b.high);
  g_assert_cmpfloat (a.low, ==, b.low);
  g_assert_cmpuint (a.reported, ==, b.reported);
  g_assert_cmpuint (a.session.reported, ==, b.session.reported);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/session/gcc", test_session);
  g_test_add_func ("/sim/session/determinism", test_session_determinism);
  return g_test_run ();
}

/* C-NADU in the simulator: the receiver judges each frame against its
 * playout deadline, reports its buffer in NADU and its estimate in a REMB
 * (RtpccReceiverConfig.nadu); the sender's "cnadu" controller combines
 * them with its own cues. RFC 8867 §5.1 (capacity 1.0 → 2.5 → 0.6 → 1.0
 * Mbit/s, 50 ms each way, 300 ms drop-tail queue).
 *
 * Without its receiver the sender has the loss, the RTT percentiles and
 * nothing else: it backs off when the queue lengthens the RTT beyond its
 * own recent spread. With the receiver the late frames hold the rate
 * and the missed ones cut it, before the queue overflows.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-rtpcc.h"

static SimRtpccResult *
run (gboolean nadu, guint64 seed)
{
  SimRtpccScenarioConfig c;
  SimRtpccResult *r;
  gchar *title;

  sim_rtpcc_scenario_config_init (&c);
  c.controller = "cnadu";
  c.nadu = nadu;
  c.seed = seed;
  title = g_strdup_printf ("RFC 8867 5.1, cnadu, receiver C-NADU %s, seed %"
      G_GUINT64_FORMAT ":", nadu ? "on" : "off", seed);
  r = sim_rtpcc_run_logged (&c, title);
  g_free (title);
  return r;
}

static void
check_seed (guint64 seed)
{
  SimRtpccResult *with = run (TRUE, seed), *without = run (FALSE, seed);
  const RtpccReceiverStats *rs = &with->receiver_stats;
  guint full = 0;

  g_test_message ("receiver: NADU %" G_GUINT64_FORMAT ", late %"
      G_GUINT64_FORMAT ", missed %" G_GUINT64_FORMAT ", estimate %"
      G_GUINT64_FORMAT ", discards %" G_GUINT64_FORMAT "; sender: NADU %"
      G_GUINT64_FORMAT ", REMB %" G_GUINT64_FORMAT, rs->nadu_sent,
      rs->nadu_frames_late, rs->nadu_frames_missed, rs->nadu_estimate,
      rs->discards_marked, with->sender_stats.nadu_received,
      with->sender_stats.remb_received);
  for (guint i = 0; i < with->n_phases; i++) {
    const SimRtpccPhase *a = &with->phases[i], *b = &without->phases[i];

    g_test_message ("phase %u: util %.2f / %.2f, p95 %.0f / %.0f ms, loss "
        "%.2f / %.2f %% (C-NADU receiver on / off)", i, a->utilisation,
        b->utilisation, a->qdelay_p95_ms, b->qdelay_p95_ms, a->loss_pct,
        b->loss_pct);
    /* no more loss than the sender alone, and where it alone fills the
     * queue (its RTT cue needs the queue to stand out of its own recent
     * spread), less than half of that queue */
    g_assert_cmpfloat (a->loss_pct, <=, b->loss_pct);
    if (b->qdelay_p95_ms > 200.0) {
      full++;
      g_assert_cmpfloat (a->qdelay_p95_ms, <, 0.5 * b->qdelay_p95_ms);
    }
  }
  /* the reports went over the wire and were taken: a NADU and a REMB per
   * RR, late and missed frames judged, the missed ones reported as
   * discards and counted by the sender */
  g_assert_cmpuint (rs->nadu_sent, >, 50);
  g_assert_cmpuint (with->sender_stats.nadu_received, ==, rs->nadu_sent);
  g_assert_cmpuint (with->sender_stats.remb_received, ==, rs->nadu_sent);
  g_assert_cmpuint (rs->nadu_frames_late, >, 0);
  g_assert_cmpuint (rs->nadu_frames_missed, >, 0);
  g_assert_cmpuint (rs->discards_marked, >=, rs->nadu_frames_missed);
  g_assert_cmpuint (with->sender_stats.reported_discarded, >, 0);
  g_assert_cmpuint (without->receiver_stats.nadu_sent, ==, 0);
  g_assert_cmpuint (without->sender_stats.nadu_received, ==, 0);
  g_assert_cmpuint (with->sender.feedback_rejected, ==, 0);
  /* the comparison happened */
  g_assert_cmpuint (full, >=, 1);
  sim_rtpcc_result_free (with);
  sim_rtpcc_result_free (without);
}

static void
test_receiver_keeps_deadlines (void)
{
  check_seed (1);
  check_seed (2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/cnadu/receiver-keeps-deadlines",
      test_receiver_keeps_deadlines);
  return g_test_run ();
}

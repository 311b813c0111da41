/* The 2013 receiver-side RTCWEB congestion control in the simulator: the
 * receiver estimates the path from arrival times and sends REMB
 * (RtpccReceiverConfig.remb), the sender's "rrtcc" controller keeps its
 * loss-based rate under it. RFC 8867 §5.1 (capacity 1.0 → 2.5 → 0.6 →
 * 1.0 Mbit/s, 50 ms each way, 300 ms drop-tail queue).
 *
 * The loss-based rule alone only backs off when the queue overflows (2 %
 * loss or more): it sits in a full queue. With the receiver's estimate the
 * rate follows the capacity with the queue short, which is the point of
 * the receiver half.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-rtpcc.h"

#include <math.h>

static SimRtpccResult *
run (gboolean remb, guint64 seed)
{
  SimRtpccScenarioConfig c;
  SimRtpccResult *r;
  gchar *title;

  sim_rtpcc_scenario_config_init (&c);
  c.controller = "rrtcc";
  c.remb = remb;
  c.seed = seed;
  title = g_strdup_printf ("RFC 8867 5.1, rrtcc, receiver REMB %s, seed %"
      G_GUINT64_FORMAT ":", remb ? "on" : "off", seed);
  r = sim_rtpcc_run_logged (&c, title);
  g_free (title);
  return r;
}

static void
check_seed (guint64 seed)
{
  SimRtpccResult *with = run (TRUE, seed), *without = run (FALSE, seed);
  guint full = 0;

  /* the estimate went over the wire and was taken */
  g_assert_cmpuint (with->receiver_stats.remb_sent, >, 50);
  g_assert_cmpuint (with->sender_stats.remb_received, >, 50);
  g_assert_cmpuint (with->receiver_stats.remb_decreases, >, 0);
  g_assert_cmpuint (without->receiver_stats.remb_sent, ==, 0);
  g_assert_cmpuint (with->sender.feedback_rejected, ==, 0);
  for (guint i = 0; i < with->n_phases; i++) {
    const SimRtpccPhase *a = &with->phases[i], *b = &without->phases[i];

    g_test_message ("phase %u: util %.2f / %.2f, p95 %.0f / %.0f ms, loss "
        "%.2f / %.2f %% (REMB on / off)", i, a->utilisation, b->utilisation,
        a->qdelay_p95_ms, b->qdelay_p95_ms, a->loss_pct, b->loss_pct);
    /* the queue well under its 300 ms in every phase, no more loss than
     * the loss rule alone, and the link still used */
    g_assert_cmpfloat (a->qdelay_p95_ms, <, 150.0);
    g_assert_cmpfloat (a->loss_pct, <=, b->loss_pct);
    g_assert_cmpfloat (a->utilisation, >, 0.5);
    /* where the loss rule alone fills the queue (it backs off only on
     * overflow), the estimate keeps it at less than half */
    if (b->qdelay_p95_ms > 200.0) {
      full++;
      g_assert_cmpfloat (a->qdelay_p95_ms, <, 0.5 * b->qdelay_p95_ms);
    }
  }
  /* the comparison happened: the 0.6 Mbit/s phase at least overflows */
  g_assert_cmpuint (full, >=, 1);
  sim_rtpcc_result_free (with);
  sim_rtpcc_result_free (without);
}

static void
test_remb_keeps_queue_short (void)
{
  check_seed (1);
  check_seed (2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/rrtcc/remb-keeps-queue-short",
      test_remb_keeps_queue_short);
  return g_test_run ();
}

/* Controllers off the lab's happy path, closed loop (the library's sender
 * and receiver, RFC 8888 CCFB on the wire):
 *
 *  - lost feedback is not lost media: with 10 % of the feedback path's
 *    packets lost and no media loss, no controller hears of a loss, and
 *    every one keeps the link used;
 *  - CCFB reports each packet a bounded number of times: the feedback's
 *    bytes hardly change with the media's loss.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-rtpcc.h"

#include <math.h>

#define KBPS 1000

static SimRtpccResult *
run (SimRtpccScenarioConfig * c)
{
  GError *err = NULL;
  SimRtpccResult *r = sim_rtpcc_run_scenario (c, &err);

  g_assert_no_error (err);
  g_assert_nonnull (r);
  g_assert_cmpuint (r->sender.stalls + r->receiver.stalls, ==, 0);
  g_assert_cmpuint (r->sender.feedback_rejected, ==, 0);
  return r;
}

/* Mean received rate over capacity from @t0 on. */
static gdouble
utilisation (const SimRtpccResult * r, RtpccTime t0)
{
  gdouble recv = 0, cap = 0;

  for (guint i = 0; i < r->n_rows; i++)
    if (r->rows[i].time >= t0) {
      recv += r->rows[i].recv_kbps;
      cap += r->rows[i].capacity_kbps;
    }
  return cap > 0 ? recv / cap : 0;
}

static void
test_feedback_loss_is_not_media_loss (void)
{
  static const gchar *ctls[] = { "gcc", "nada", "tfrc", "ccid2" };

  for (guint i = 0; i < G_N_ELEMENTS (ctls); i++) {
    SimRtpccScenarioConfig c;
    SimRtpccResult *r;
    gdouble u;

    sim_rtpcc_scenario_config_init (&c);
    c.controller = ctls[i];
    c.capacity = rtpcc_capacity_new_constant (2000 * KBPS);
    c.duration = RTPCC_SEC (60);
    c.reverse_loss.loss = 0.1;
    r = run (&c);
    u = utilisation (r, RTPCC_SEC (10));
    g_test_message ("%s, 10 %% feedback loss: %" G_GUINT64_FORMAT
        " feedback packets sent, %" G_GUINT64_FORMAT " arrived; %"
        G_GUINT64_FORMAT " packets reported lost, %" G_GUINT64_FORMAT
        " lost on the path; utilisation %.2f over 10-60 s", ctls[i],
        r->receiver.feedback_out, r->sender.feedback_in,
        r->sender_stats.reported_lost, r->receiver_stats.packets_lost, u);
    /* the premise: about a tenth of the feedback was lost */
    g_assert_cmpuint (r->sender.feedback_in * 10, <,
        r->receiver.feedback_out * 95 / 10);
    /* no loss is reported that the path did not make (the loss-based
     * controllers fill the queue and lose packets there) */
    g_assert_cmpuint (r->sender_stats.reported_lost, <=,
        r->receiver_stats.packets_lost);
    g_assert_cmpfloat (u, >=, 0.85);
    sim_rtpcc_result_free (r);
    rtpcc_capacity_unref (c.capacity);
  }
}

/* The same 1 Mbit/s of media ("fixed") over 0 %, 5 % and 20 % random
 * loss: CCFB's bytes at 5 % within 1.5 × those at 0 % (a report that
 * reached back to every unacknowledged packet of the last 500 ms sent
 * 3.2 × as many at 5 %). */
static void
test_ccfb_bytes_bounded_under_loss (void)
{
  static const gdouble loss[] = { 0, 0.05, 0.2 };
  guint64 bytes[G_N_ELEMENTS (loss)], pkts[G_N_ELEMENTS (loss)];

  for (guint i = 0; i < G_N_ELEMENTS (loss); i++) {
    SimRtpccScenarioConfig c;
    SimRtpccResult *r;

    sim_rtpcc_scenario_config_init (&c);
    c.controller = "fixed";
    c.start_bitrate = c.max_bitrate = 1000 * KBPS;
    c.capacity = rtpcc_capacity_new_constant (2000 * KBPS);
    c.duration = RTPCC_SEC (30);
    c.loss.loss = loss[i];
    r = run (&c);
    bytes[i] = r->receiver.feedback_bytes_out;
    pkts[i] = r->receiver.media_in;
    g_test_message ("%.0f %% loss: %" G_GUINT64_FORMAT " CCFB packets, %"
        G_GUINT64_FORMAT " bytes, %.1f bytes per media packet received",
        100 * loss[i], r->receiver.feedback_out, bytes[i],
        (gdouble) bytes[i] / pkts[i]);
    sim_rtpcc_result_free (r);
    rtpcc_capacity_unref (c.capacity);
  }
  g_assert_cmpuint (bytes[1] * 10, <=, bytes[0] * 15);
  g_assert_cmpuint (bytes[2] * 10, <=, bytes[0] * 15);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/robust/feedback-loss-is-not-media-loss",
      test_feedback_loss_is_not_media_loss);
  g_test_add_func ("/sim/robust/ccfb-bytes-bounded-under-loss",
      test_ccfb_bytes_bounded_under_loss);
  return g_test_run ();
}

/* NACK/RTX repair in the closed-loop simulator: the same RtpccRtxSender and
 * RtpccRtxReceiver the elements run, on a 2 Mbit/s path with 30 ms each
 * way and 2 % random (Bernoulli) loss on the forward link, TFRC at a fixed
 * start, 20 s.
 *
 * Without repair every loss reaches the decoder; with it the receiver NACKs
 * what can still arrive before its playout deadline (200 ms after the
 * fastest transit) and the sender's retransmissions fill most gaps: the
 * delivered-loss rate (media packets never passed on / media packets sent)
 * must fall to under a quarter of the link's, and retransmissions must stay
 * a small share of what was sent.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-rtpcc.h"

#include <math.h>

#define RTX_PT 97
#define RUN RTPCC_SEC (20)

typedef struct
{
  guint64 media_sent;           /* media packets dequeued (RTX excluded) */
  guint64 delivered;            /* passed on: originals + restored */
  guint64 rtx_out, restored, repair_out;
  gdouble delivered_loss;
  guint64 stalls;
} Outcome;

static void
run (gboolean repair, guint64 seed, Outcome * o)
{
  SimRtpccNetConfig nc;
  SimRtpccFlowConfig fc;
  SimRtpccNet *net;
  SimRtpccFlow *f;
  const SimRtpccSenderCounters *sc;
  const SimRtpccReceiverCounters *rc;
  GError *err = NULL;

  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = rtpcc_capacity_new_constant (2000000);
  nc.forward.delay = RTPCC_MSEC (30);
  nc.forward.loss.loss = 0.02;
  nc.forward.seed = seed;
  nc.reverse.delay = RTPCC_MSEC (30);
  net = sim_rtpcc_net_new (&nc);
  rtpcc_capacity_unref (nc.forward.capacity);

  sim_rtpcc_flow_config_init (&fc, 0, "tfrc", SIM_RTPCC_FEEDBACK_AUTO, seed);
  fc.sender.sender.cc.start_bitrate = 800000;
  fc.sender.sender.cc.max_bitrate = 1200000;
  if (repair) {
    fc.sender.rtx_pt = RTX_PT;
    fc.receiver.repair = TRUE;
    fc.receiver.rtx_pt = RTX_PT;
  }
  f = sim_rtpcc_net_add_flow (net, &fc, &err);
  g_assert_no_error (err);
  sim_rtpcc_net_run (net, RUN);

  sc = sim_rtpcc_sender_get_counters (f->sender);
  rc = sim_rtpcc_receiver_get_counters (f->receiver);
  o->rtx_out = sc->rtx_out;
  o->media_sent = sc->media_out - sc->rtx_out;
  o->delivered = rc->media_delivered + rc->rtx_restored;
  o->restored = rc->rtx_restored;
  o->repair_out = rc->repair_out;
  o->stalls = sc->stalls + rc->stalls;
  o->delivered_loss = 1.0 - (gdouble) o->delivered / (gdouble) o->media_sent;
  sim_rtpcc_net_free (net);
}

static void
test_nack_rtx_repairs_random_loss (void)
{
  Outcome off, on;

  run (FALSE, 7, &off);
  run (TRUE, 7, &on);
  g_test_message ("no repair: %" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT
      " delivered, loss %.2f %%", off.media_sent, off.delivered,
      100 * off.delivered_loss);
  g_test_message ("NACK/RTX:  %" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT
      " delivered (%" G_GUINT64_FORMAT " restored), loss %.2f %%, %"
      G_GUINT64_FORMAT " RTX, %" G_GUINT64_FORMAT " NACK/PLI packets",
      on.media_sent, on.delivered, on.restored, 100 * on.delivered_loss,
      on.rtx_out, on.repair_out);
  /* the link drops about 2 % either way */
  g_assert_cmpfloat (off.delivered_loss, >, 0.01);
  g_assert_cmpfloat (off.delivered_loss, <, 0.03);
  g_assert_cmpuint (off.rtx_out, ==, 0);
  /* repair: most losses filled, a retransmission per loss or little more
   * (a retransmission can be lost too, and then asked again) */
  g_assert_cmpuint (on.restored, >, 0);
  g_assert_cmpfloat (on.delivered_loss, <, off.delivered_loss / 4);
  g_assert_cmpuint (on.rtx_out, <=, 2 * (on.media_sent - on.delivered +
          on.restored));
  g_assert_cmpuint (on.stalls, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/repair/nack-rtx-repairs-random-loss",
      test_nack_rtx_repairs_random_loss);
  return g_test_run ();
}

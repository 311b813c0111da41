/* Unit tests for the "ccid2" controller (gst/rtpcc/cc/ccid2.c): window
 * transitions step by step, against values computed by hand from the rules
 * in the file's header (RFC 4341 semantics).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

typedef struct
{
  RtpccController *cc;
  guint64 next_seq;
  GArray *outstanding;          /* RtpccSentPacket, oldest first */
} Harness;

static void
harness_init (Harness * h, guint packet_size)
{
  RtpccControllerConfig cfg;
  GError *err = NULL;

  rtpcc_controller_config_init (&cfg);
  cfg.min_bitrate = 8000;
  cfg.max_bitrate = 100000000;
  cfg.packet_size = packet_size;
  h->cc = rtpcc_controller_new ("ccid2", &cfg, 0, &err);
  fail_unless (h->cc != NULL, "%s", err ? err->message : "");
  h->next_seq = 1;
  h->outstanding = g_array_new (FALSE, FALSE, sizeof (RtpccSentPacket));
}

static void
harness_clear (Harness * h)
{
  rtpcc_controller_free (h->cc);
  g_array_unref (h->outstanding);
}

static void
send_one (Harness * h, RtpccTime now, guint size)
{
  RtpccSentPacket p;

  memset (&p, 0, sizeof (p));
  p.seq = h->next_seq++;
  p.send_time = now;
  p.size = size;
  rtpcc_controller_packet_sent (h->cc, now, &p);
  g_array_append_val (h->outstanding, p);
}

/* Sends 1000 B packets while the window allows; returns how many. */
static guint
fill (Harness * h, RtpccTime now)
{
  guint n = 0;
  while (rtpcc_controller_can_send (h->cc, now, 1000) && n < 100000) {
    send_one (h, now, 1000);
    n++;
  }
  return n;
}

/* Reports the @n oldest outstanding packets; those whose index is in @lost
 * (terminated by -1, or NULL) as lost, the others received with @ecn. */
static void
ack (Harness * h, RtpccTime now, guint n, const gint * lost, RtpccTime rtt,
    guint8 ecn)
{
  RtpccPacketReport *r = g_new0 (RtpccPacketReport, n);
  RtpccFeedback fb;

  fail_unless (n <= h->outstanding->len);
  for (guint i = 0; i < n; i++) {
    const RtpccSentPacket *p = &g_array_index (h->outstanding,
        RtpccSentPacket, i);
    r[i].seq = p->seq;
    r[i].send_time = p->send_time;
    r[i].size = p->size;
    r[i].received = TRUE;
    r[i].arrival = p->send_time + rtt / 2;
    r[i].ecn = ecn;
    for (const gint * l = lost; l && *l >= 0; l++)
      if ((guint) * l == i) {
        r[i].received = FALSE;
        r[i].arrival = RTPCC_TIME_NONE;
        r[i].ecn = 0;
      }
  }
  g_array_remove_range (h->outstanding, 0, n);
  memset (&fb, 0, sizeof (fb));
  fb.reports = r;
  fb.n_reports = n;
  fb.rtt_sample = rtt;
  fb.srtt = RTPCC_TIME_NONE;
  fb.report_time = now;
  rtpcc_controller_feedback (h->cc, now, &fb);
  g_free (r);
}

static guint32
cwnd (Harness * h)
{
  return h->cc->target.cwnd;
}

/* fill the window at @now and acknowledge all of it 100 ms later */
static void
round_trip (Harness * h, RtpccTime now)
{
  guint n = fill (h, now);
  ack (h, now + RTPCC_MSEC (100), n, NULL, RTPCC_MSEC (100), 0);
}

GST_START_TEST (test_initial_window)
{
  /* min (4, max (2, 4380 / s)) with integer division */
  const guint sizes[] = { 500, 1000, 1095, 1200, 1460, 2190, 3000 };
  const guint expect[] = { 4, 4, 4, 3, 3, 2, 2 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
    Harness h;
    harness_init (&h, sizes[i]);
    fail_unless_equals_int (cwnd (&h), expect[i]);
    /* can_send gates on packets in flight < cwnd */
    fail_unless_equals_int (fill (&h, 0), expect[i]);
    fail_if (rtpcc_controller_can_send (h.cc, 0, 1000));
    fail_unless_equals_string (h.cc->target.state, "slow-start");
    /* one acknowledgement frees one slot */
    ack (&h, RTPCC_MSEC (100), 1, NULL, RTPCC_MSEC (100), 0);
    fail_unless (rtpcc_controller_can_send (h.cc, RTPCC_MSEC (100), 1000));
    fail_unless_equals_int (fill (&h, RTPCC_MSEC (100)), 1);
    harness_clear (&h);
  }
}

GST_END_TEST;

GST_START_TEST (test_slow_start_growth)
{
  Harness h;
  const guint32 expect[] = { 6, 9, 13, 20, 30 };

  harness_init (&h, 1000);
  /* +1 per two acknowledged packets: one ack alone does nothing */
  fail_unless_equals_int (fill (&h, 0), 4);
  ack (&h, RTPCC_MSEC (100), 1, NULL, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 4);
  ack (&h, RTPCC_MSEC (100), 1, NULL, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 5);
  ack (&h, RTPCC_MSEC (100), 2, NULL, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 6);
  fail_unless_equals_string (h.cc->target.reason, "ack");

  /* ×1.5 per round: 6 → 9 → 13 (one ack left over) → 20 → 30 */
  for (guint i = 1; i < G_N_ELEMENTS (expect); i++) {
    round_trip (&h, RTPCC_MSEC (100) * i);
    fail_unless_equals_int (cwnd (&h), expect[i]);
    fail_unless_equals_string (h.cc->target.state, "slow-start");
  }
  harness_clear (&h);
}

GST_END_TEST;

/* slow start to cwnd 9, then one window with losses */
static void
setup_loss (Harness * h)
{
  harness_init (h, 1000);
  round_trip (h, 0);
  round_trip (h, RTPCC_MSEC (100));
  fail_unless_equals_int (cwnd (h), 9);
  fail_unless_equals_int (fill (h, RTPCC_MSEC (200)), 9);
}

GST_START_TEST (test_loss_halves_once_per_window)
{
  Harness h;
  const gint two_lost[] = { 0, 1, -1 };
  const gint first_lost[] = { 0, -1 };

  setup_loss (&h);
  /* two losses in the same window: one halving, 9 → 4 = ssthresh */
  ack (&h, RTPCC_MSEC (300), 5, two_lost, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 4);
  fail_unless_equals_string (h.cc->target.state, "congestion-avoidance");
  fail_unless_equals_string (h.cc->target.reason, "loss");
  /* a later report of the same window with another loss: no second cut,
   * and its acknowledgements do not grow the window either */
  ack (&h, RTPCC_MSEC (310), 4, first_lost, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 4);

  /* congestion avoidance: +1 only after a full window of acks */
  fail_unless_equals_int (fill (&h, RTPCC_MSEC (310)), 4);
  ack (&h, RTPCC_MSEC (410), 3, NULL, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 4);
  ack (&h, RTPCC_MSEC (410), 1, NULL, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 5);
  round_trip (&h, RTPCC_MSEC (410));
  fail_unless_equals_int (cwnd (&h), 6);
  round_trip (&h, RTPCC_MSEC (510));
  fail_unless_equals_int (cwnd (&h), 7);

  /* a loss in a newer window halves again: 7 → 3 */
  fail_unless_equals_int (fill (&h, RTPCC_MSEC (610)), 7);
  ack (&h, RTPCC_MSEC (710), 7, first_lost, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 3);
  harness_clear (&h);
}

GST_END_TEST;

GST_START_TEST (test_ecn_ce_is_congestion)
{
  Harness h;

  setup_loss (&h);
  /* all received, but CE-marked (ECN = 3): halve as for a loss */
  ack (&h, RTPCC_MSEC (300), 9, NULL, RTPCC_MSEC (100), 3);
  fail_unless_equals_int (cwnd (&h), 4);
  fail_unless_equals_string (h.cc->target.reason, "loss");
  harness_clear (&h);
}

GST_END_TEST;

GST_START_TEST (test_timeout_and_backoff)
{
  Harness h;
  RtpccTime t;
  const gint none[] = { -1 };

  harness_init (&h, 1000);
  /* one RTT sample of 100 ms: SRTT 100, RTTVAR 50 → RTO = 300 ms */
  round_trip (&h, 0);
  fail_unless_equals_int (cwnd (&h), 6);
  fail_unless_equals_int64 (h.cc->next_tick, RTPCC_TIME_NONE);
  t = RTPCC_MSEC (100);
  fail_unless_equals_int (fill (&h, t), 6);
  fail_unless_equals_int64 (h.cc->next_tick, t + RTPCC_MSEC (300));

  /* no feedback: nothing before the RTO, cwnd = 1 at it */
  rtpcc_controller_tick (h.cc, t + RTPCC_MSEC (300) - 1);
  fail_unless_equals_int (cwnd (&h), 6);
  rtpcc_controller_tick (h.cc, t + RTPCC_MSEC (300));
  fail_unless_equals_int (cwnd (&h), 1);
  fail_unless_equals_string (h.cc->target.state, "timeout");
  fail_unless_equals_string (h.cc->target.reason, "rto");
  /* the window as a rate: 1 × 1000 B / 100 ms */
  fail_unless_equals_int64 (h.cc->target.target_bitrate, 80000);

  /* pipe was reset: exactly one packet may go, and it re-arms the timer
   * with the doubled RTO */
  t += RTPCC_MSEC (300);
  fail_unless_equals_int (fill (&h, t), 1);
  fail_unless_equals_int64 (h.cc->next_tick, t + RTPCC_MSEC (600));
  rtpcc_controller_tick (h.cc, t + RTPCC_MSEC (600));
  fail_unless_equals_int (cwnd (&h), 1);
  t += RTPCC_MSEC (600);
  fail_unless_equals_int (fill (&h, t), 1);
  fail_unless_equals_int64 (h.cc->next_tick, t + RTPCC_MSEC (1200));

  /* late reports of the 7 forgiven packets do not grow the window, but
   * they show the path delivers again: the packet sent after the RTO
   * leaves the pipe too, and slow start need not wait for the next,
   * backed-off, timeout */
  ack (&h, t + RTPCC_MSEC (100), 7, none, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 1);
  fail_unless (rtpcc_controller_can_send (h.cc, t + RTPCC_MSEC (100), 1000));
  fail_unless_equals_string (h.cc->target.state, "slow-start");
  /* that packet's own ack comes later */
  ack (&h, t + RTPCC_MSEC (100), 1, none, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 1);
  fail_unless_equals_string (h.cc->target.state, "slow-start");
  fail_unless_equals_int64 (h.cc->next_tick, RTPCC_TIME_NONE);
  fail_unless_equals_int (fill (&h, t + RTPCC_MSEC (100)), 1);
  /* fresh RTT samples ended the backoff; the timer's estimator has its
   * one sample from before the timeouts (100 ms: the packets sent into
   * them are not sampled, as Karn's rule leaves retransmissions out), so
   * RTO = 100 + 4 × 50 = 300 ms */
  fail_unless_equals_int64 (h.cc->next_tick, t + RTPCC_MSEC (400));
  /* slow start from 1: the second acknowledged packet adds one */
  ack (&h, t + RTPCC_MSEC (200), 1, NULL, RTPCC_MSEC (100), 0);
  fail_unless_equals_int (cwnd (&h), 2);
  harness_clear (&h);
}

GST_END_TEST;

/* The receiver holds a report for up to a frame interval: with a window of
 * one packet the feedback comes an RTT plus that hold after the send. The
 * timer must wait that long, not an RTT-based RTO (here 200 ms, the floor,
 * from 100 ms RTT samples): an RTO that expires before every report keeps a
 * recovering flow at a window of one (seen after a 0.6 s outage on a
 * cellular-like trace: 40 s at the floor). */
GST_START_TEST (test_timer_covers_feedback_hold)
{
  Harness h;
  RtpccTime t = 0;
  const RtpccTime hold = RTPCC_MSEC (250), rtt = RTPCC_MSEC (100);

  harness_init (&h, 1000);
  for (guint i = 0; i < 20; i++) {
    send_one (&h, t, 1000);
    /* nothing has timed out just before the report arrives */
    rtpcc_controller_tick (h.cc, t + hold - 1);
    fail_if (g_strcmp0 (h.cc->target.state, "timeout") == 0,
        "timed out %u ms after packet %u, before its report", (guint)
        ((hold - 1) / RTPCC_MSEC (1)), i);
    ack (&h, t + hold, 1, NULL, rtt, 0);
    t += RTPCC_MSEC (300);
  }
  /* the RTO follows the hold: 250 ms plus a small deviation */
  send_one (&h, t, 1000);
  fail_unless (h.cc->next_tick > t + hold);
  fail_unless (h.cc->next_tick < t + hold + RTPCC_MSEC (50));
  /* and a report that does not come is still a timeout */
  rtpcc_controller_tick (h.cc, h.cc->next_tick);
  fail_unless_equals_string (h.cc->target.state, "timeout");
  harness_clear (&h);
}

GST_END_TEST;

GST_START_TEST (test_allowed_rate)
{
  Harness h;

  harness_init (&h, 1000);
  /* no RTT yet: the configured start (= min) stands */
  fail_unless_equals_int64 (h.cc->target.target_bitrate, 8000);
  fail_unless_equals_int (fill (&h, 0), 4);
  /* the first packet armed the RTO: 1 s before any RTT sample */
  fail_unless_equals_int64 (h.cc->next_tick, RTPCC_SEC (1));
  ack (&h, RTPCC_MSEC (100), 1, NULL, RTPCC_MSEC (100), 0);
  /* a new acknowledgement restarts it: 100 ms + (100 + 4 × 50) ms */
  fail_unless_equals_int64 (h.cc->next_tick, RTPCC_MSEC (400));
  /* cwnd 4 × 1000 B × 8 / 0.1 s */
  fail_unless_equals_int (cwnd (&h), 4);
  fail_unless_equals_int64 (h.cc->target.target_bitrate, 320000);
  fail_unless_equals_int64 (h.cc->target.pacing_rate, 400000);
  /* RTT 200 ms: SRTT = (7 × 100 + 200) / 8 = 112.5 ms, cwnd 5:
   * 5 × 8000 / 0.1125 = 355555.5 */
  ack (&h, RTPCC_MSEC (200), 1, NULL, RTPCC_MSEC (200), 0);
  fail_unless_equals_int (cwnd (&h), 5);
  fail_unless_equals_int64 (h.cc->target.target_bitrate, 355555);
  fail_unless_equals_int64 (h.cc->target.media_bitrate, 355555);
  harness_clear (&h);
}

GST_END_TEST;

GST_START_TEST (test_application_limited_and_idle)
{
  Harness h;

  harness_init (&h, 1000);
  round_trip (&h, 0);
  round_trip (&h, RTPCC_MSEC (100));
  fail_unless_equals_int (cwnd (&h), 9);

  /* an encoder sending 2 packets per RTT uses a fraction of the window:
   * 9 < 2 × 2 is false, so slow start must not inflate it */
  for (gint i = 0; i < 20; i++) {
    RtpccTime t = RTPCC_MSEC (200 + 100 * i);
    send_one (&h, t, 1000);
    send_one (&h, t, 1000);
    ack (&h, t + RTPCC_MSEC (100), 2, NULL, RTPCC_MSEC (100), 0);
  }
  fail_unless_equals_int (cwnd (&h), 9);

  /* 1 s idle, RTO 200 ms (SRTT + 4 RTTVAR below the floor): halved per
   * RTO, not below the restart window min (9, 4) = 4 */
  send_one (&h, RTPCC_MSEC (2200) + RTPCC_SEC (1), 1000);
  fail_unless_equals_int (cwnd (&h), 4);
  fail_unless_equals_string (h.cc->target.reason, "idle");
  harness_clear (&h);

  /* cwnd 20, then idle for 1.5 RTO (300 ms): one halving → 10; 2.25 RTO
   * (450 ms) would give two → 5. RTTVAR after four 100 ms samples is
   * 21.1 ms, so RTO = max (184.4, 200) = 200 ms. */
  for (gint idle_ms = 300; idle_ms <= 450; idle_ms += 150) {
    harness_init (&h, 1000);
    for (gint i = 0; i < 4; i++)
      round_trip (&h, RTPCC_MSEC (100) * i);
    fail_unless_equals_int (cwnd (&h), 20);
    send_one (&h, RTPCC_MSEC (300 + idle_ms), 1000);
    fail_unless_equals_int (cwnd (&h), idle_ms == 300 ? 10 : 5);
    harness_clear (&h);
  }

  /* congestion avoidance: 2 packets per RTT never fill cwnd 4 */
  setup_loss (&h);
  ack (&h, RTPCC_MSEC (300), 9, (const gint[]) { 0, -1 }, RTPCC_MSEC (100),
      0);
  fail_unless_equals_int (cwnd (&h), 4);
  for (gint i = 0; i < 20; i++) {
    RtpccTime t = RTPCC_MSEC (300 + 100 * i);
    send_one (&h, t, 1000);
    send_one (&h, t, 1000);
    ack (&h, t + RTPCC_MSEC (100), 2, NULL, RTPCC_MSEC (100), 0);
  }
  fail_unless_equals_int (cwnd (&h), 4);
  harness_clear (&h);
}

GST_END_TEST;

GST_START_TEST (test_params)
{
  Harness h;

  harness_init (&h, 1000);
  fail_unless (rtpcc_controller_set_param (h.cc, "min-rto", "500"));
  fail_if (rtpcc_controller_set_param (h.cc, "min-rto", "abc"));
  fail_if (rtpcc_controller_set_param (h.cc, "no-such", "1"));
  /* RTO = max (100 + 4 × 50, 500) */
  round_trip (&h, 0);
  fill (&h, RTPCC_MSEC (100));
  fail_unless_equals_int64 (h.cc->next_tick, RTPCC_MSEC (600));
  fail_unless (rtpcc_controller_set_param (h.cc, "initial-cwnd", "2"));
  fail_unless_equals_int (cwnd (&h), 2);
  harness_clear (&h);
}

GST_END_TEST;

static Suite *
rtpcc_ccid2_suite (void)
{
  Suite *s = suite_create ("rtpcc_ccid2");
  TCase *tc = tcase_create ("ccid2");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_initial_window);
  tcase_add_test (tc, test_slow_start_growth);
  tcase_add_test (tc, test_loss_halves_once_per_window);
  tcase_add_test (tc, test_ecn_ce_is_congestion);
  tcase_add_test (tc, test_timeout_and_backoff);
  tcase_add_test (tc, test_timer_covers_feedback_hold);
  tcase_add_test (tc, test_allowed_rate);
  tcase_add_test (tc, test_application_limited_and_idle);
  tcase_add_test (tc, test_params);
  return s;
}

GST_CHECK_MAIN (rtpcc_ccid2);

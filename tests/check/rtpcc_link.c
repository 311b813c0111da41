/* Unit tests for the sans-I/O link model (gst/rtpcc/net/).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <math.h>

/* Offers CBR packets (@size bytes every @interval) from @from to @to and
 * returns the bytes whose departure lies in [@win_from, @win_to). */
static guint64
run_cbr (RtpccLink * link, guint size, RtpccTime interval, RtpccTime from,
    RtpccTime to, RtpccTime win_from, RtpccTime win_to)
{
  guint64 bytes = 0;
  for (RtpccTime t = from; t < to; t += interval) {
    RtpccLinkOutcome o;
    rtpcc_link_send (link, t, size, &o);
    if (o.verdict == RTPCC_LINK_DELIVERED && o.departure >= win_from
        && o.departure < win_to)
      bytes += size;
  }
  return bytes;
}

static RtpccLink *
make_link (RtpccCapacity * cap, RtpccTime queue_time, guint64 queue_bytes)
{
  RtpccLinkConfig cfg;
  RtpccLink *link;

  rtpcc_link_config_init (&cfg);
  cfg.capacity = cap;
  cfg.queue_limit_time = queue_time;
  cfg.queue_limit_bytes = queue_bytes;
  link = rtpcc_link_new (&cfg);
  rtpcc_capacity_unref (cap);
  return link;
}

GST_START_TEST (test_overload_throughput_equals_capacity)
{
  /* 2x overload for 12 s; measure the 10 s after the queue filled. */
  RtpccLink *link = make_link (rtpcc_capacity_new_constant (1000000),
      RTPCC_MSEC (300), 0);
  guint64 bytes = run_cbr (link, 1000, RTPCC_MSEC (4), 0, RTPCC_SEC (13),
      RTPCC_SEC (2), RTPCC_SEC (12));
  gdouble bps = bytes * 8.0 / 10.0;

  fail_unless (fabs (bps - 1e6) / 1e6 < 0.01, "delivered %.0f bit/s", bps);
  fail_unless (rtpcc_link_get_stats (link)->queue_drops > 0);
  rtpcc_link_free (link);

  /* The same through a trace: one opportunity per ms = 12 Mbit/s. */
  {
    GError *err = NULL;
    RtpccCapacity *cap = rtpcc_capacity_new_trace ("1\n", 2, &err);
    fail_unless (cap != NULL);
    link = make_link (cap, RTPCC_MSEC (100), 0);
    bytes = run_cbr (link, 1500, RTPCC_USEC (500), 0, RTPCC_SEC (13),
        RTPCC_SEC (2), RTPCC_SEC (12));
    bps = bytes * 8.0 / 10.0;
    fail_unless (fabs (bps - 12e6) / 12e6 < 0.01, "trace delivered %.0f", bps);
    rtpcc_link_free (link);
  }
}

GST_END_TEST;

GST_START_TEST (test_queue_delay_bounded)
{
  const guint size = 1200;
  const RtpccTime ser = RTPCC_USEC (9600);     /* 1200 B at 1 Mbit/s */
  RtpccTime max_seen = 0;
  RtpccLink *link = make_link (rtpcc_capacity_new_constant (1000000),
      RTPCC_MSEC (100), 0);

  for (RtpccTime t = 0; t < RTPCC_SEC (5); t += RTPCC_MSEC (3)) {
    RtpccLinkOutcome o;
    rtpcc_link_send (link, t, size, &o);
    if (o.verdict != RTPCC_LINK_DELIVERED)
      continue;
    fail_unless (o.queue_delay <= RTPCC_MSEC (100) + ser,
        "queue delay %" G_GINT64_FORMAT " ns over limit", o.queue_delay);
    max_seen = MAX (max_seen, o.queue_delay);
    fail_unless (rtpcc_link_queue_delay (link, t) == o.queue_delay);
  }
  /* the queue really filled up to its limit */
  fail_unless (max_seen >= RTPCC_MSEC (90));
  fail_unless_equals_int64 (rtpcc_link_get_stats (link)->max_queue_delay,
      max_seen);
  rtpcc_link_free (link);

  /* byte limit: 12000 B = 96 ms at 1 Mbit/s, tighter than 300 ms */
  link = make_link (rtpcc_capacity_new_constant (1000000), RTPCC_MSEC (300),
      12000);
  max_seen = 0;
  for (RtpccTime t = 0; t < RTPCC_SEC (5); t += RTPCC_MSEC (3)) {
    RtpccLinkOutcome o;
    rtpcc_link_send (link, t, size, &o);
    if (o.verdict == RTPCC_LINK_DELIVERED)
      max_seen = MAX (max_seen, o.queue_delay);
    fail_unless (rtpcc_link_queue_bytes (link, t) <= 12000);
  }
  fail_unless (max_seen <= RTPCC_MSEC (96) + ser);
  fail_unless (max_seen >= RTPCC_MSEC (85));
  rtpcc_link_free (link);
}

GST_END_TEST;

/* A token bucket (burst, as tbf): an idle link passes the bucket's bytes
 * at once; under overload it still delivers the capacity, with a queue
 * the bucket's time shorter; packets never leave out of order nor before
 * they came. */
GST_START_TEST (test_token_bucket)
{
  const guint size = 1200;
  RtpccLinkOutcome o;
  RtpccLink *link = make_link (rtpcc_capacity_new_constant (1000000),
      RTPCC_MSEC (300), 0);
  RtpccTime last = 0, max_q = 0;
  guint64 bytes;

  rtpcc_link_set_burst (link, 3200, RTPCC_MSEC (5));
  /* a frame of four packets at an idle link: two leave at once (2400 B of
   * the 3200 B bucket), the third waits for 400 B of tokens (3.2 ms), the
   * fourth for 1200 B more (9.6 ms) */
  for (guint i = 0; i < 4; i++) {
    RtpccTime want;

    rtpcc_link_send (link, RTPCC_SEC (1), size, &o);
    fail_unless (o.verdict == RTPCC_LINK_DELIVERED);
    want = i < 2 ? 0 : i == 2 ? RTPCC_USEC (3200) :
        RTPCC_USEC (12800);

    fail_unless (o.queue_delay == want, "packet %u waited %" G_GINT64_FORMAT
        " ns", i, o.queue_delay);
  }
  fail_unless_equals_int64 (rtpcc_link_queue_delay (link, RTPCC_SEC (1)),
      RTPCC_USEC (12800));
  rtpcc_link_free (link);

  /* 2x overload: throughput is the capacity, the queue bounded */
  link = make_link (rtpcc_capacity_new_constant (1000000), RTPCC_MSEC (300),
      0);
  rtpcc_link_set_burst (link, 3200, 0);
  bytes = 0;
  for (RtpccTime t = 0; t < RTPCC_SEC (13); t += RTPCC_USEC (4800)) {
    rtpcc_link_send (link, t, size, &o);
    if (o.verdict != RTPCC_LINK_DELIVERED)
      continue;
    fail_unless (o.departure >= t && o.departure >= last);
    last = o.departure;
    max_q = MAX (max_q, o.queue_delay);
    if (o.departure >= RTPCC_SEC (2) && o.departure < RTPCC_SEC (12))
      bytes += size;
  }
  fail_unless (fabs (bytes * 8.0 / 10.0 - 1e6) / 1e6 < 0.01, "delivered "
      "%.0f bit/s", bytes * 8.0 / 10.0);
  /* tbf's limit (rate × latency + burst) lets a packet wait the bucket's
   * time beyond the latency: 25.6 ms for 3200 B at 1 Mbit/s */
  fail_unless (max_q <= RTPCC_MSEC (300) + RTPCC_USEC (25600 + 9600),
      "queue %" G_GINT64_FORMAT, max_q);
  fail_unless (max_q >= RTPCC_MSEC (280));
  rtpcc_link_free (link);
}

GST_END_TEST;

GST_START_TEST (test_schedule_change_exact)
{
  GError *err = NULL;
  RtpccCapacity *cap = rtpcc_capacity_new_schedule ("1000@0,2000@1", &err);
  RtpccLink *link;
  RtpccLinkOutcome o;

  fail_unless (cap != NULL);
  fail_unless_equals_uint64 (rtpcc_capacity_rate_at (cap, RTPCC_SEC (1) - 1,
          0), 1000000);
  fail_unless_equals_uint64 (rtpcc_capacity_rate_at (cap, RTPCC_SEC (1), 0),
      2000000);
  fail_unless_equals_int64 (rtpcc_capacity_next_change (cap, 0), RTPCC_SEC (1));
  fail_unless_equals_int64 (rtpcc_capacity_next_change (cap, RTPCC_SEC (1)),
      RTPCC_TIME_INFINITE);

  /* 1250 B starting 5 ms before the change: 625 B at 1 Mbit/s (5 ms), the
   * remaining 625 B at 2 Mbit/s (2.5 ms). */
  fail_unless_equals_int64 (rtpcc_capacity_serve (cap, RTPCC_MSEC (995), 1250,
          NULL), RTPCC_USEC (1002500));
  fail_unless_equals_int64 (rtpcc_capacity_serve (cap, RTPCC_SEC (1), 1250,
          NULL), RTPCC_SEC (1) + RTPCC_MSEC (5));

  /* Through the link, with an epoch: schedule time 0 is t = 10 s. */
  link = make_link (cap, RTPCC_MSEC (300), 0);
  rtpcc_link_set_epoch (link, RTPCC_SEC (10));
  rtpcc_link_send (link, RTPCC_SEC (10) + RTPCC_MSEC (995), 1250, &o);
  fail_unless_equals_int (o.verdict, RTPCC_LINK_DELIVERED);
  fail_unless_equals_int64 (o.departure, RTPCC_SEC (11) + RTPCC_USEC (2500));
  /* a second packet queued behind it is served entirely at the new rate */
  rtpcc_link_send (link, RTPCC_SEC (10) + RTPCC_MSEC (996), 1250, &o);
  fail_unless_equals_int64 (o.departure, RTPCC_SEC (11) + RTPCC_USEC (7500));
  fail_unless_equals_int64 (o.queue_delay, RTPCC_MSEC (11) + RTPCC_USEC (500));
  fail_unless_equals_uint64 (rtpcc_link_capacity_at (link, RTPCC_SEC (10)),
      1000000);
  rtpcc_link_free (link);
}

GST_END_TEST;

GST_START_TEST (test_outage)
{
  GError *err = NULL;
  RtpccCapacity *cap = rtpcc_capacity_new_schedule ("1000@0,0@1,1000@2", &err);
  RtpccLink *link;
  RtpccLinkOutcome o;

  fail_unless (cap != NULL);
  /* waits out the outage and finishes 10 ms after capacity returns */
  fail_unless_equals_int64 (rtpcc_capacity_serve (cap, RTPCC_MSEC (1500), 1250,
          NULL), RTPCC_SEC (2) + RTPCC_MSEC (10));
  rtpcc_capacity_unref (cap);

  cap = rtpcc_capacity_new_schedule ("1000@0,0@1", &err);
  link = make_link (cap, RTPCC_MSEC (300), 0);
  rtpcc_link_send (link, RTPCC_MSEC (1500), 100, &o);
  fail_unless_equals_int (o.verdict, RTPCC_LINK_DROPPED_QUEUE);
  rtpcc_link_free (link);
}

GST_END_TEST;

GST_START_TEST (test_bernoulli_rate)
{
  const guint n = 100000;
  const gdouble p = 0.05;
  RtpccLinkConfig cfg;
  RtpccLink *link;
  gdouble mean = n * p, sd = sqrt (n * p * (1 - p));
  guint64 lost;

  rtpcc_link_config_init (&cfg);
  cfg.loss.loss = p;
  cfg.seed = 42;
  link = rtpcc_link_new (&cfg);
  for (guint i = 0; i < n; i++)
    rtpcc_link_send (link, i * RTPCC_MSEC (1), 100, NULL);
  lost = rtpcc_link_get_stats (link)->loss_drops;
  /* two-sided 99.9 % normal bound for a binomial count */
  fail_unless (fabs (lost - mean) <= 3.29 * sd, "lost %" G_GUINT64_FORMAT
      " of %u", lost, n);
  fail_unless_equals_uint64 (rtpcc_link_get_stats (link)->packets_delivered,
      n - lost);
  rtpcc_link_free (link);
}

GST_END_TEST;

GST_START_TEST (test_gilbert_elliott_bursts)
{
  const guint n = 400000;
  RtpccLossParams params;
  RtpccLoss loss;
  RtpccRng rng;
  guint bursts = 0, lost = 0, run = 0;

  rtpcc_loss_params_init (&params);
  params.model = RTPCC_LOSS_GILBERT_ELLIOTT;
  params.ge_p = 0.01;
  params.ge_r = 0.25;
  params.ge_k = 1.0;
  params.ge_h = 0.0;
  rtpcc_rng_init (&rng, 7);
  rtpcc_loss_init (&loss, &params, &rng);

  for (guint i = 0; i < n; i++) {
    if (rtpcc_loss_next (&loss)) {
      lost++;
      run++;
    } else if (run > 0) {
      bursts++;
      run = 0;
    }
  }
  {
    gdouble mean_burst = (gdouble) lost / bursts;
    gdouble rate = (gdouble) lost / n;
    fail_unless (fabs (mean_burst - 1.0 / params.ge_r) < 0.05 / params.ge_r,
        "mean burst %.3f", mean_burst);
    fail_unless (fabs (rate - rtpcc_loss_params_mean_rate (&params)) < 0.002,
        "loss rate %.4f", rate);
  }
}

GST_END_TEST;

static guint64
outcome_digest (guint64 seed, gboolean reorder)
{
  RtpccLinkConfig cfg;
  RtpccLink *link;
  guint64 h = 1469598103934665603ULL;
  GError *err = NULL;

  rtpcc_link_config_init (&cfg);
  cfg.capacity = rtpcc_capacity_new_schedule ("1000@0,2500@4,600@6", &err);
  cfg.delay = RTPCC_MSEC (50);
  cfg.jitter = RTPCC_MSEC (20);
  cfg.allow_reorder = reorder;
  cfg.loss.model = RTPCC_LOSS_GILBERT_ELLIOTT;
  cfg.loss.ge_p = 0.02;
  cfg.loss.ge_r = 0.3;
  cfg.seed = seed;
  link = rtpcc_link_new (&cfg);
  rtpcc_capacity_unref (cfg.capacity);

  for (guint i = 0; i < 20000; i++) {
    RtpccLinkOutcome o;
    rtpcc_link_send (link, i * RTPCC_USEC (450), 700 + (i * 37) % 600, &o);
    h = (h ^ (guint64) o.verdict) * 1099511628211ULL;
    h = (h ^ (guint64) o.deliver_at) * 1099511628211ULL;
  }
  rtpcc_link_free (link);
  return h;
}

GST_START_TEST (test_same_seed_same_outcomes)
{
  fail_unless_equals_uint64 (outcome_digest (1, FALSE),
      outcome_digest (1, FALSE));
  fail_unless (outcome_digest (1, FALSE) != outcome_digest (2, FALSE));
  fail_unless_equals_uint64 (outcome_digest (9, TRUE), outcome_digest (9,
          TRUE));
}

GST_END_TEST;

GST_START_TEST (test_jitter_order)
{
  RtpccLinkConfig cfg;
  RtpccLink *link;
  RtpccTime last = 0;
  guint reordered = 0;

  for (int reorder = 0; reorder < 2; reorder++) {
    rtpcc_link_config_init (&cfg);
    cfg.delay = RTPCC_MSEC (50);
    cfg.jitter = RTPCC_MSEC (10);
    cfg.allow_reorder = reorder;
    cfg.seed = 3;
    link = rtpcc_link_new (&cfg);
    last = 0;
    reordered = 0;
    for (guint i = 0; i < 5000; i++) {
      RtpccTime now = i * RTPCC_MSEC (2);
      RtpccLinkOutcome o;
      rtpcc_link_send (link, now, 200, &o);
      /* unlimited capacity: no queueing */
      fail_unless_equals_int64 (o.departure, now);
      if (reorder) {
        fail_unless (o.deliver_at >= now + RTPCC_MSEC (40)
            && o.deliver_at <= now + RTPCC_MSEC (60));
      } else {
        fail_unless (o.deliver_at >= now + RTPCC_MSEC (40));
      }
      if (o.deliver_at < last)
        reordered++;
      last = MAX (last, o.deliver_at);
    }
    if (reorder)
      fail_unless (reordered > 100, "only %u reordered", reordered);
    else
      fail_unless_equals_int (reordered, 0);
    rtpcc_link_free (link);
  }
}

GST_END_TEST;

GST_START_TEST (test_schedule_parse)
{
  const gchar *bad[] = {
    "", "abc", "1000", "1000@", "@0", "1000@5", "1000@0,500@0",
    "1000@0,500@-1", "-5@0", "1000@0;500@1", "1000@0,", "1000@0,500@2,600@1",
    "nan@0", "inf@0", "1e300@0",
  };
  const gchar *good[][2] = {
    {"1000@0,2500@40,600@60,1000@80", "1000@0,2500@40,600@60,1000@80"},
    {" 1000 @ 0 , 2500.5@0.25 ", "1000@0,2500.5@0.25"},
    {"0@0,100@1", "0@0,100@1"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    GError *err = NULL;
    RtpccCapacity *cap = rtpcc_capacity_new_schedule (bad[i], &err);
    fail_unless (cap == NULL, "accepted \"%s\"", bad[i]);
    fail_unless (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
  }
  fail_unless (rtpcc_capacity_new_schedule (NULL, NULL) == NULL);

  for (guint i = 0; i < G_N_ELEMENTS (good); i++) {
    GError *err = NULL;
    RtpccCapacity *cap = rtpcc_capacity_new_schedule (good[i][0], &err);
    gchar *s;
    fail_unless (cap != NULL, "rejected \"%s\": %s", good[i][0],
        err ? err->message : "");
    s = rtpcc_capacity_to_string (cap);
    fail_unless_equals_string (s, good[i][1]);
    g_free (s);
    rtpcc_capacity_unref (cap);
  }
}

GST_END_TEST;

GST_START_TEST (test_trace_parse_and_serve)
{
  const gchar *bad[] = { "", "0\n0\n", "5\n3\n", "x\n", "1.5\n", "-3\n",
    "99999999999999\n"
  };
  const gchar *text = "# two opportunities at 2 ms, one at 4 ms\n2\n2\n\n4\n";
  GError *err = NULL;
  RtpccCapacity *cap;
  RtpccCapacityCursor cur = RTPCC_CAPACITY_CURSOR_INIT;
  gchar *s;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    cap = rtpcc_capacity_new_trace (bad[i], strlen (bad[i]), &err);
    fail_unless (cap == NULL, "accepted trace \"%s\"", bad[i]);
    g_clear_error (&err);
  }
  fail_unless (rtpcc_capacity_new_trace_file ("/nonexistent/trace", &err) ==
      NULL);
  fail_unless (err && err->code == RTPCC_ERROR_IO);
  g_clear_error (&err);

  cap = rtpcc_capacity_new_trace (text, strlen (text), &err);
  fail_unless (cap != NULL);
  s = rtpcc_capacity_to_string (cap);
  fail_unless_equals_string (s, "trace:3@4ms");
  g_free (s);
  /* 3 × 1500 B per 4 ms = 9 Mbit/s in the long run; [0, 4 ms) holds only
   * the two at 2 ms (the one at 4 ms belongs to the next window) */
  fail_unless_equals_uint64 (rtpcc_capacity_rate_at (cap, 0, RTPCC_MSEC (4)),
      6000000);
  fail_unless (fabs (rtpcc_capacity_rate_at (cap, 0, RTPCC_SEC (4)) - 9e6) <
      9e3);

  /* 1000 B at t=0 uses the first opportunity (2 ms), leaving 500 B credit */
  fail_unless_equals_int64 (rtpcc_capacity_serve (cap, 0, 1000, &cur),
      RTPCC_MSEC (2));
  /* a 400 B packet waiting at 2 ms rides on the credit */
  fail_unless_equals_int64 (rtpcc_capacity_serve (cap, RTPCC_MSEC (2), 400,
          &cur), RTPCC_MSEC (2));
  /* 1700 B: 100 B credit + second 2 ms opportunity + part of the 4 ms one */
  fail_unless_equals_int64 (rtpcc_capacity_serve (cap, RTPCC_MSEC (2), 1700,
          &cur), RTPCC_MSEC (4));
  /* arriving later, the leftover of the 4 ms opportunity is wasted; the trace
   * loops: next opportunities at 6, 6, 8 ms */
  fail_unless_equals_int64 (rtpcc_capacity_serve (cap, RTPCC_MSEC (5), 3000,
          &cur), RTPCC_MSEC (6));
  fail_unless_equals_int64 (rtpcc_capacity_serve (cap, RTPCC_MSEC (6), 1,
          &cur), RTPCC_MSEC (8));
  rtpcc_capacity_unref (cap);
}

GST_END_TEST;

GST_START_TEST (test_unlimited_and_runtime_changes)
{
  RtpccLinkConfig cfg;
  RtpccLink *link;
  RtpccLinkOutcome o;
  RtpccLossParams lp;

  rtpcc_link_config_init (&cfg);
  cfg.delay = RTPCC_MSEC (30);
  link = rtpcc_link_new (&cfg);
  rtpcc_link_send (link, RTPCC_SEC (1), 1500, &o);
  fail_unless_equals_int64 (o.deliver_at, RTPCC_SEC (1) + RTPCC_MSEC (30));
  fail_unless_equals_uint64 (rtpcc_link_capacity_at (link, 0), G_MAXUINT64);

  /* from now on 1 Mbit/s: 1250 B take 10 ms */
  {
    RtpccCapacity *c = rtpcc_capacity_new_constant (1000000);
    rtpcc_link_set_capacity (link, c);
    rtpcc_capacity_unref (c);
  }
  rtpcc_link_send (link, RTPCC_SEC (2), 1250, &o);
  fail_unless_equals_int64 (o.deliver_at, RTPCC_SEC (2) + RTPCC_MSEC (40));

  rtpcc_link_set_delay (link, RTPCC_MSEC (5), 0, FALSE);
  rtpcc_link_send (link, RTPCC_SEC (3), 1250, &o);
  fail_unless_equals_int64 (o.deliver_at, RTPCC_SEC (3) + RTPCC_MSEC (15));

  rtpcc_loss_params_init (&lp);
  lp.loss = 1.0;
  rtpcc_link_set_loss (link, &lp);
  rtpcc_link_send (link, RTPCC_SEC (4), 1250, &o);
  fail_unless_equals_int (o.verdict, RTPCC_LINK_DROPPED_LOSS);
  fail_unless_equals_uint64 (rtpcc_link_get_stats (link)->packets_in, 4);
  fail_unless_equals_uint64 (rtpcc_link_get_stats (link)->loss_drops, 1);

  /* reset empties the queue but keeps config and counters */
  rtpcc_loss_params_init (&lp);
  rtpcc_link_set_loss (link, &lp);
  rtpcc_link_send (link, RTPCC_SEC (5), 12500, &o);      /* 100 ms */
  fail_unless (rtpcc_link_queue_delay (link, RTPCC_SEC (5)) > 0);
  rtpcc_link_reset (link);
  fail_unless_equals_int64 (rtpcc_link_queue_delay (link, RTPCC_SEC (5)), 0);
  rtpcc_link_send (link, RTPCC_SEC (5), 1250, &o);
  fail_unless_equals_int64 (o.departure, RTPCC_SEC (5) + RTPCC_MSEC (10));
  fail_unless_equals_uint64 (rtpcc_link_get_stats (link)->packets_in, 6);
  rtpcc_link_free (link);

  /* validation of loss parameters */
  rtpcc_loss_params_init (&lp);
  lp.ge_r = 1.5;
  fail_if (rtpcc_loss_params_validate (&lp, NULL));
  lp.ge_r = NAN;
  fail_if (rtpcc_loss_params_validate (&lp, NULL));
  lp.ge_r = 0.5;
  fail_unless (rtpcc_loss_params_validate (&lp, NULL));
}

GST_END_TEST;

GST_START_TEST (test_rng_streams)
{
  RtpccRng a, b;
  gdouble sum = 0;

  rtpcc_rng_init (&a, 123);
  rtpcc_rng_init (&b, 123);
  for (int i = 0; i < 1000; i++)
    fail_unless_equals_uint64 (rtpcc_rng_next_u64 (&a),
        rtpcc_rng_next_u64 (&b));
  rtpcc_rng_init_stream (&a, 123, 1);
  rtpcc_rng_init_stream (&b, 123, 2);
  fail_unless (rtpcc_rng_next_u64 (&a) != rtpcc_rng_next_u64 (&b));
  for (int i = 0; i < 100000; i++) {
    gdouble u = rtpcc_rng_double (&a);
    fail_unless (u >= 0.0 && u < 1.0);
    sum += u;
    fail_unless (rtpcc_rng_below (&a, 7) < 7);
  }
  fail_unless (fabs (sum / 100000 - 0.5) < 0.01);
}

GST_END_TEST;

static Suite *
rtpcc_link_suite (void)
{
  Suite *s = suite_create ("rtpcc_link");
  TCase *tc = tcase_create ("link");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_overload_throughput_equals_capacity);
  tcase_add_test (tc, test_queue_delay_bounded);
  tcase_add_test (tc, test_token_bucket);
  tcase_add_test (tc, test_schedule_change_exact);
  tcase_add_test (tc, test_outage);
  tcase_add_test (tc, test_bernoulli_rate);
  tcase_add_test (tc, test_gilbert_elliott_bursts);
  tcase_add_test (tc, test_same_seed_same_outcomes);
  tcase_add_test (tc, test_jitter_order);
  tcase_add_test (tc, test_schedule_parse);
  tcase_add_test (tc, test_trace_parse_and_serve);
  tcase_add_test (tc, test_unlimited_and_runtime_changes);
  tcase_add_test (tc, test_rng_streams);
  return s;
}

GST_CHECK_MAIN (rtpcc_link);

/* Element tests for playoutbuffer (plugins/playoutbuffer/), driven by
 * GstHarness and a GstTestClock so every playout time is exact.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include "gstrtpccevent.h"
#include <gst/rtp/gstrtpbuffer.h>

#define MS(ms) ((GstClockTime) (ms) * GST_MSECOND)
#define SSRC 0x12345678u
#define CAPS "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=H264,payload=96"

static GstElement *
make_element (const gchar * first_property, ...)
{
  GstElement *e = gst_element_factory_make ("playoutbuffer", NULL);
  va_list args;

  fail_unless (e != NULL, "playoutbuffer not found (GST_PLUGIN_PATH?)");
  va_start (args, first_property);
  if (first_property)
    g_object_set_valist (G_OBJECT (e), first_property, args);
  va_end (args);
  return e;
}

static GstHarness *
harness_for (GstElement * e, const gchar * sink, const gchar * src)
{
  GstHarness *h = gst_harness_new_with_element (e, sink, src);

  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

static GstBuffer *
rtp_packet (guint16 seq, guint32 ts)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (20, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_ssrc (&rtp, SSRC);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_unmap (&rtp);
  return buf;
}

static guint
stat_uint (GstElement * e, const gchar * field)
{
  GstStructure *s = NULL;
  guint v = 0;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint (s, field, &v), "no field %s", field);
  gst_structure_free (s);
  return v;
}

/* Moves the test clock to @t, releasing on the way every playout wait that
 * falls before it at its own time (as a real clock would). */
static void
advance_to (GstElement * e, GstTestClock * tc, GstClockTime t)
{
  for (;;) {
    GstClockID id = NULL;
    GstClockTime due;

    if (!gst_test_clock_peek_next_pending_id (tc, &id)) {
      /* nothing waits: the queue is empty, or the streaming thread is
       * about to wait; give it a moment when packets are held */
      if (stat_uint (e, "queued") == 0)
        break;
      g_usleep (50);
      if (!gst_test_clock_peek_next_pending_id (tc, &id)) {
        if (stat_uint (e, "queued") == 0)
          break;
        continue;
      }
    }
    due = gst_clock_id_get_time (id);
    gst_clock_id_unref (id);
    if (due > t)
      break;
    if (gst_clock_get_time (GST_CLOCK (tc)) < due)
      gst_test_clock_set_time (tc, due);
    gst_test_clock_crank (tc);
  }
  if (gst_clock_get_time (GST_CLOCK (tc)) < t)
    gst_test_clock_set_time (tc, t);
}

static void
push_at (GstHarness * h, GstClockTime t, guint16 seq, guint32 ts)
{
  GstTestClock *tc = gst_harness_get_testclock (h);

  if (gst_clock_get_time (GST_CLOCK (tc)) < t)
    gst_test_clock_set_time (tc, t);
  gst_object_unref (tc);
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (seq, ts)),
      GST_FLOW_OK);
}

static guint16
buffer_seq (GstBuffer * buf)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint16 seq;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp));
  seq = gst_rtp_buffer_get_seq (&rtp);
  gst_rtp_buffer_unmap (&rtp);
  return seq;
}

static guint64
stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (s != NULL);
  fail_unless (gst_structure_has_name (s, "application/x-playoutbuffer-stats"));
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no field %s", field);
  gst_structure_free (s);
  return v;
}

static gdouble
stat_double (GstElement * e, const gchar * field)
{
  GstStructure *s = NULL;
  gdouble v = 0;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_get_double (s, field, &v));
  gst_structure_free (s);
  return v;
}

/* The next "rtpcc-discard" event that reached the harness upstream. */
static void
expect_discard (GstHarness * h, guint seqnum)
{
  for (;;) {
    GstEvent *ev = gst_harness_pull_upstream_event (h);
    const GstStructure *s;
    guint ssrc = 0, seq = 0, count = 0;

    fail_unless (ev != NULL, "no discard event");
    if (GST_EVENT_TYPE (ev) != GST_EVENT_CUSTOM_UPSTREAM) {
      gst_event_unref (ev);
      continue;
    }
    s = gst_event_get_structure (ev);
    /* (the de-jitter state goes up too: test_state_event) */
    if (gst_structure_has_name (s, "rtpcc-playout-state")) {
      gst_event_unref (ev);
      continue;
    }
    fail_unless (gst_structure_has_name (s, "rtpcc-discard"));
    fail_unless (gst_structure_get_uint (s, "ssrc", &ssrc));
    fail_unless (gst_structure_get_uint (s, "seqnum", &seq));
    fail_unless (gst_structure_get_uint (s, "count", &count));
    fail_unless_equals_int (ssrc, SSRC);
    fail_unless_equals_int (seq, seqnum);
    fail_unless_equals_int (count, 1);
    gst_event_unref (ev);
    return;
  }
}

/* Output timing and reordering in fixed mode: every packet leaves at media
 * time + base + 50 ms, stamped with that time, in sequence order. */
GST_START_TEST (test_timing_and_reorder)
{
  GstElement *e = make_element ("mode", 2, "min-delay", 50, NULL);
  GstHarness *h = harness_for (e, "sink_0", "src");
  GstBuffer *b;

  gst_harness_play (h);
  push_at (h, MS (0), 10, 0);
  push_at (h, MS (20), 12, 1800);
  push_at (h, MS (25), 11, 900);

  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 10);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), MS (50));
  gst_buffer_unref (b);

  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 11);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), MS (60));
  gst_buffer_unref (b);

  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 12);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), MS (70));
  gst_buffer_unref (b);

  fail_unless_equals_uint64 (stat_u64 (e, "reordered"), 1);
  fail_unless_equals_uint64 (stat_u64 (e, "released"), 3);
  fail_unless_equals_uint64 (stat_u64 (e, "late"), 0);
  /* the property in ms, the stats field in ns */
  {
    guint target = 0;

    g_object_get (e, "target-delay", &target, NULL);
    fail_unless_equals_int (target, 50);
    fail_unless_equals_uint64 (stat_u64 (e, "target-delay"), MS (50));
    /* min-delay applies while playing */
    g_object_set (e, "min-delay", 80, NULL);
    g_object_get (e, "target-delay", &target, NULL);
    fail_unless_equals_int (target, 80);
  }
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The "rtpcc-playout-state" events that reached the harness upstream
 * since the last call: how many, the last one in *@last. */
static guint
pull_states (GstHarness * h, GstStructure ** last)
{
  GstEvent *ev;
  guint n = 0;

  if (*last)
    gst_structure_free (*last);
  *last = NULL;
  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    const GstStructure *s = gst_event_get_structure (ev);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM
        && gst_structure_has_name (s, "rtpcc-playout-state")) {
      if (*last)
        gst_structure_free (*last);
      *last = gst_structure_copy (s);
      n++;
    }
    gst_event_unref (ev);
  }
  return n;
}

static guint64
field_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = G_MAXUINT64;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s", field);
  return v;
}

/* The de-jitter buffer's state goes upstream for rtpccsrc's RFC 7005
 * block: its target as the nominal delay, at most one event per 100 ms,
 * the high- and low-water marks covering every change in between. */
GST_START_TEST (test_state_event)
{
  GstElement *e = make_element ("mode", 2, "min-delay", 50, NULL);
  GstHarness *h = harness_for (e, "sink_0", "src");
  GstStructure *st = NULL;
  guint ssrc = 0;
  gboolean adaptive = TRUE;

  gst_harness_play (h);
  push_at (h, MS (0), 10, 0);
  fail_unless_equals_int (pull_states (h, &st), 1);
  fail_unless (gst_structure_get_uint (st, "ssrc", &ssrc));
  fail_unless_equals_int (ssrc, SSRC);
  fail_unless (gst_structure_get_boolean (st, "adaptive", &adaptive));
  fail_if (adaptive, "a fixed buffer");
  fail_unless_equals_uint64 (field_u64 (st, "nominal"), MS (50));
  fail_unless_equals_uint64 (field_u64 (st, "maximum"), MS (50));
  fail_unless_equals_uint64 (field_u64 (st, "high-water"), MS (50));
  fail_unless_equals_uint64 (field_u64 (st, "low-water"), MS (50));
  /* what a NADU needs: the packet just queued plays next, 50 ms on */
  fail_unless (gst_structure_get_uint (st, "next-seq", &ssrc));
  fail_unless_equals_int (ssrc, 10);
  fail_unless_equals_uint64 (field_u64 (st, "next-in"), MS (50));

  /* within 100 ms: nothing, though the delay went up and back down */
  g_object_set (e, "min-delay", 90, NULL);
  push_at (h, MS (20), 11, 1800);
  g_object_set (e, "min-delay", 70, NULL);
  push_at (h, MS (40), 12, 3600);
  fail_unless_equals_int (pull_states (h, &st), 0);
  /* then one, with both marks */
  push_at (h, MS (100), 13, 5400);
  fail_unless_equals_int (pull_states (h, &st), 1);
  fail_unless_equals_uint64 (field_u64 (st, "nominal"), MS (70));
  fail_unless_equals_uint64 (field_u64 (st, "high-water"), MS (90));
  fail_unless_equals_uint64 (field_u64 (st, "low-water"), MS (50));
  fail_unless_equals_uint64 (stat_u64 (e, "state-events"), 2);
  /* 10 is next, its time (0 + 70) past, so due now, unless the src task
   * released packets before the event was made (what the harness has
   * received by now bounds how many): then the next one, due at its
   * arrival (10 → 0, 11 → 20, 12 → 40 ms) + 70 ms, seen at 100 ms */
  fail_unless (gst_structure_get_uint (st, "next-seq", &ssrc));
  fail_unless (ssrc >= 10 && ssrc <= 10 + gst_harness_buffers_received (h)
      && ssrc <= 12, "next-seq %u with %u released", ssrc,
      gst_harness_buffers_received (h));
  fail_unless_equals_uint64 (field_u64 (st, "next-in"),
      MAX (MS (20) * (ssrc - 10) + MS (70), MS (100)) - MS (100));

  gst_structure_free (st);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A packet that misses its playout time is dropped, counted, and reported
 * upstream as "rtpcc-discard" with its seqnum, for rtpccsrc to report it
 * to the sender (RFC 7097). */
GST_START_TEST (test_late_drop_event)
{
  GstElement *e = make_element ("mode", 2, "min-delay", 50, NULL);
  GstHarness *h = harness_for (e, "sink_0", "src");
  GstBuffer *b;

  gst_harness_play (h);
  push_at (h, MS (0), 65535, 0);
  push_at (h, MS (25), 1, 1800);      /* 0 is missing (after a wrap) */

  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 65535);
  gst_buffer_unref (b);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 1);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), MS (70));
  gst_buffer_unref (b);

  /* 0 comes after 1 has been played out */
  push_at (h, MS (80), 0, 900);
  expect_discard (h, 0);
  /* 2 (due at 80 ms) arrives at 200 ms */
  push_at (h, MS (200), 2, 2700);
  expect_discard (h, 2);
  /* a duplicate of a played packet is not a late discard */
  push_at (h, MS (201), 1, 1800);

  fail_unless_equals_uint64 (stat_u64 (e, "late"), 2);
  fail_unless_equals_uint64 (stat_u64 (e, "discard-events"), 2);
  fail_unless_equals_uint64 (stat_u64 (e, "duplicates"), 1);
  fail_unless_equals_uint64 (stat_u64 (e, "skipped"), 1);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The sender's RTP clock runs 400 ppm fast for 120 s: the element estimates
 * the drift, the target delay stays small and the playout delay (PTS −
 * arrival) does not grow. */
GST_START_TEST (test_drift)
{
  GstElement *e = make_element ("percentile", 99.0, NULL);
  GstHarness *h = harness_for (e, "sink_0", "src");
  GstTestClock *tc = gst_harness_get_testclock (h);
  guint i, n = 6000;            /* 120 s at 50 packets/s */
  guint64 pulled = 0;
  GstClockTime max_hold_late = 0;
  GstBuffer *b;
  gdouble drift;

  gst_harness_play (h);
  for (i = 0; i < n; i++) {
    GstClockTime send = (GstClockTime) i * MS (20);
    /* deterministic jitter 0..3 ms */
    GstClockTime arrival = send + MS (30) + (i * 7919 % 4) * GST_MSECOND;
    guint32 ts = (guint32) llround ((gdouble) send / GST_SECOND *
        (1.0 + 400e-6) * 90000.0);

    advance_to (e, tc, arrival);
    push_at (h, arrival, (guint16) i, ts);
    while ((b = gst_harness_try_pull (h)) != NULL) {
      guint k = buffer_seq (b);
      GstClockTime arr_k = (GstClockTime) k * MS (20) + MS (30) +
          (k * 7919 % 4) * GST_MSECOND;

      /* in the last 30 s the time held (PTS − arrival) stays bounded */
      fail_unless (GST_BUFFER_PTS (b) >= arr_k);
      if (k > n * 3 / 4 && GST_BUFFER_PTS (b) - arr_k > MS (12))
        GST_INFO ("seq %u pts %" GST_TIME_FORMAT " arrival %" GST_TIME_FORMAT
            " now %" GST_TIME_FORMAT, k, GST_TIME_ARGS (GST_BUFFER_PTS (b)),
            GST_TIME_ARGS (arr_k), GST_TIME_ARGS (arrival));
      if (k > n * 3 / 4)
        max_hold_late = MAX (max_hold_late, GST_BUFFER_PTS (b) - arr_k);
      pulled++;
      gst_buffer_unref (b);
    }
  }
  drift = stat_double (e, "drift-ppm");
  GST_INFO ("drift %.1f ppm, target %" G_GUINT64_FORMAT " ns", drift,
      stat_u64 (e, "target-delay"));
  fail_unless (fabs (drift + 400.0) < 40.0, "drift %.1f ppm", drift);
  fail_unless (stat_u64 (e, "target-delay") < MS (10));
  fail_unless (stat_u64 (e, "late") < n / 50, "%" G_GUINT64_FORMAT " late",
      stat_u64 (e, "late"));
  /* held for at most the target plus the jitter spread */
  fail_unless (max_hold_late < MS (12), "hold %" GST_TIME_FORMAT,
      GST_TIME_ARGS (max_hold_late));
  fail_unless (pulled > n / 2);
  gst_object_unref (tc);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Two subflows (request pads), the second 60 ms slower: the merged output is
 * in sequence order and its delay covers the slow path. */
GST_START_TEST (test_two_subflows)
{
  GstElement *e = make_element ("percentile", 99.0, NULL);
  GstHarness *h0 = harness_for (e, "sink_0", "src");
  GstHarness *h1 = harness_for (e, "sink_1", NULL);
  GstTestClock *tc = gst_harness_get_testclock (h0);
  guint i, n = 1000;
  guint64 pulled = 0;
  gint last = -1;
  GstBuffer *b;

  /* both harnesses drive one element: keep the first one's clock */
  gst_element_set_clock (e, GST_CLOCK (tc));
  gst_harness_play (h0);
  gst_harness_play (h1);

  for (i = 0; i < n + 10; i++) {
    GstClockTime t = (GstClockTime) i * MS (10) + MS (20);
    guint j;

    /* fast path (even) packet i at t, slow path (odd) packet i - 6 at t */
    for (j = 0; j < 2; j++) {
      guint k = j == 0 ? i : i - 6;

      if (j == 0 && (i % 2 != 0 || i >= n))
        continue;
      if (j == 1 && (i < 6 || k % 2 != 1 || k >= n))
        continue;
      advance_to (e, tc, t + (k * 31 % 5) * MS (1));
      fail_unless_equals_int (gst_harness_push (j == 0 ? h0 : h1,
              rtp_packet ((guint16) k, k * 900)), GST_FLOW_OK);
    }
    while ((b = gst_harness_try_pull (h0)) != NULL) {
      gint seq = buffer_seq (b);

      fail_unless (last < 0 || seq > last, "%d after %d", seq, last);
      last = seq;
      pulled++;
      gst_buffer_unref (b);
    }
  }
  /* the rest leaves at its time */
  advance_to (e, tc, (GstClockTime) (n + 100) * MS (10));
  while (gst_harness_buffers_received (h0) < stat_u64 (e, "released"))
    g_usleep (1000);
  while ((b = gst_harness_try_pull (h0)) != NULL) {
    gint seq = buffer_seq (b);

    fail_unless (last < 0 || seq > last, "%d after %d", seq, last);
    last = seq;
    pulled++;
    gst_buffer_unref (b);
  }
  {
    GstStructure *s = NULL;
    guint subflows = 0;

    g_object_get (e, "stats", &s, NULL);
    fail_unless (gst_structure_get_uint (s, "subflows", &subflows));
    fail_unless_equals_int (subflows, 2);
    gst_structure_free (s);
  }
  GST_INFO ("target %" G_GUINT64_FORMAT " late %" G_GUINT64_FORMAT
      " pulled %" G_GUINT64_FORMAT " released %" G_GUINT64_FORMAT,
      stat_u64 (e, "target-delay"), stat_u64 (e, "late"), pulled,
      stat_u64 (e, "released"));
  fail_unless (stat_u64 (e, "target-delay") >= MS (55));
  /* only while learning the slow path */
  fail_unless (stat_u64 (e, "late") < 20, "%" G_GUINT64_FORMAT " late",
      stat_u64 (e, "late"));
  fail_unless (pulled > n * 9 / 10 - 20);
  gst_object_unref (tc);
  gst_object_unref (e);
  gst_harness_teardown (h1);
  gst_harness_teardown (h0);
}

GST_END_TEST;

typedef struct
{
  GstClockTime arrival;
  guint path;
  guint seq;
} StepArrival;

static gint
cmp_step_arrival (gconstpointer a, gconstpointer b)
{
  const StepArrival *x = a, *y = b;

  if (x->arrival != y->arrival)
    return x->arrival < y->arrival ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* mode=singh (mprtp/skew, Singh's thesis): two paths alternating packets
 * every 10 ms, 20-24 ms one way; from 10 s path 1 is 150 ms slower. The
 * playout point covers 90 % of the step within 3 s, and from 3 s after it
 * no packet is late (none was before it either, once the start was
 * learnt). */
GST_START_TEST (test_singh_skew_step)
{
  GstElement *e = make_element ("mode", 1, "max-delay", 1000, NULL);
  GstHarness *h0 = harness_for (e, "sink_0", "src");
  GstHarness *h1 = harness_for (e, "sink_1", NULL);
  GstTestClock *tc = gst_harness_get_testclock (h0);
  const guint n = 2000;         /* 20 s */
  StepArrival *a = g_new (StepArrival, n);
  guint64 late_2s = 0, late_step = 0, late_13s = 0;
  guint64 target_before = 0;
  GstClockTime covered = GST_CLOCK_TIME_NONE;
  GstBuffer *b;

  gst_element_set_clock (e, GST_CLOCK (tc));
  gst_harness_play (h0);
  gst_harness_play (h1);
  for (guint i = 0; i < n; i++) {
    GstClockTime send = (GstClockTime) i * MS (10);

    a[i].seq = i;
    a[i].path = i % 2;
    a[i].arrival = send + MS (20) + (i * 7 % 5) * MS (1) +
        (a[i].path == 1 && send >= MS (10000) ? MS (150) : 0);
  }
  qsort (a, n, sizeof (StepArrival), cmp_step_arrival);
  for (guint i = 0; i < n; i++) {
    advance_to (e, tc, a[i].arrival);
    fail_unless_equals_int (gst_harness_push (a[i].path == 0 ? h0 : h1,
            rtp_packet ((guint16) a[i].seq, a[i].seq * 900)), GST_FLOW_OK);
    if (a[i].arrival < MS (2000))
      late_2s = stat_u64 (e, "late");
    if (a[i].arrival < MS (10000)) {
      late_step = stat_u64 (e, "late");
      target_before = stat_u64 (e, "target-delay");
    }
    if (a[i].arrival < MS (13000))
      late_13s = stat_u64 (e, "late");
    if (a[i].arrival >= MS (10000) && covered == GST_CLOCK_TIME_NONE
        && stat_u64 (e, "target-delay") >= target_before + MS (135))
      covered = a[i].arrival - MS (10000);
    while ((b = gst_harness_try_pull (h0)) != NULL)
      gst_buffer_unref (b);
  }
  GST_INFO ("singh step: target %" G_GUINT64_FORMAT " ms before, covered "
      "after %" GST_TIME_FORMAT "; late %" G_GUINT64_FORMAT " in 0-2 s, %"
      G_GUINT64_FORMAT " in 2-10 s, %" G_GUINT64_FORMAT " in 10-13 s, %"
      G_GUINT64_FORMAT " after", target_before / GST_MSECOND,
      GST_TIME_ARGS (covered), late_2s, late_step - late_2s,
      late_13s - late_step, stat_u64 (e, "late") - late_13s);
  fail_unless (GST_CLOCK_TIME_IS_VALID (covered), "step never covered");
  fail_unless (covered <= 3 * GST_SECOND, "covered after %" GST_TIME_FORMAT,
      GST_TIME_ARGS (covered));
  fail_unless_equals_uint64 (late_step - late_2s, 0);
  fail_unless_equals_uint64 (stat_u64 (e, "late") - late_13s, 0);
  g_free (a);
  gst_object_unref (tc);
  gst_object_unref (e);
  gst_harness_teardown (h1);
  gst_harness_teardown (h0);
}

GST_END_TEST;

/* Bad input: non-RTP buffers are dropped and counted, never crash; bogus
 * properties are refused by their ranges. */
GST_START_TEST (test_bad_input)
{
  GstElement *e = make_element (NULL);
  GstHarness *h = harness_for (e, "sink_0", "src");
  GstBuffer *junk = gst_buffer_new_allocate (NULL, 5, NULL);
  gdouble pct = 0;

  gst_harness_play (h);
  gst_buffer_memset (junk, 0, 0xff, 5);
  fail_unless_equals_int (gst_harness_push (h, junk), GST_FLOW_OK);
  fail_unless_equals_uint64 (stat_u64 (e, "invalid"), 1);
  fail_unless (gst_element_request_pad_simple (e, "sink_99") == NULL);
  g_object_get (e, "percentile", &pct, NULL);
  fail_unless_equals_float (pct, 99.9);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The late-rate controller's properties: documented defaults, ranges, and
 * they reach the core (late-target 0 falls back to the percentile). */
GST_START_TEST (test_controller_properties)
{
  GstElement *e = gst_object_ref_sink (make_element (NULL));
  GObjectClass *k = G_OBJECT_GET_CLASS (e);
  GParamSpec *ps;
  gdouble lt = 0, dr = 0;
  guint rt = 0, lw = 0;

  g_object_get (e, "late-target", &lt, "return-time", &rt, "level-window",
      &lw, "down-rate", &dr, NULL);
  fail_unless_equals_float (lt, 0.5);
  fail_unless_equals_int (rt, 100);
  fail_unless_equals_int (lw, 2000);
  fail_unless_equals_float (dr, 0.5);
  ps = g_object_class_find_property (k, "late-target");
  fail_unless (ps != NULL);
  fail_unless_equals_float (G_PARAM_SPEC_DOUBLE (ps)->minimum, 0.0);
  fail_unless_equals_float (G_PARAM_SPEC_DOUBLE (ps)->maximum, 20.0);
  ps = g_object_class_find_property (k, "level-window");
  fail_unless (G_PARAM_SPEC_UINT (ps)->minimum > 0);
  g_object_set (e, "late-target", 2.5, "return-time", 0,
      "level-window", 500, NULL);
  g_object_get (e, "late-target", &lt, "return-time", &rt, "level-window",
      &lw, NULL);
  fail_unless_equals_float (lt, 2.5);
  fail_unless_equals_int (rt, 0);
  fail_unless_equals_int (lw, 500);
  gst_object_unref (e);
}

GST_END_TEST;

/* fec-window=-1 (default): with fecdec feeding the buffer the repair
 * window is added (a few packet gaps), without it none; @target gets the
 * target delay, which must carry it. */
static guint64
fec_window_after (const gchar * launch, guint64 * target)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstElement *e = gst_harness_find_element (h, "playoutbuffer");
  guint64 w;

  fail_unless (e != NULL);
  gst_harness_set_src_caps_str (h, CAPS);
  gst_harness_play (h);
  for (guint i = 0; i < 20; i++)
    push_at (h, MS (10) * i, (guint16) (100 + i), 900 * i);
  w = stat_u64 (e, "fec-window");
  *target = stat_u64 (e, "target-delay");
  gst_object_unref (e);
  gst_harness_teardown (h);
  return w;
}

GST_START_TEST (test_fec_window_auto)
{
  guint64 t_with, t_without;
  guint64 with = fec_window_after ("fecdec ! playoutbuffer", &t_with);
  guint64 without = fec_window_after ("identity ! playoutbuffer", &t_without);

  fail_unless_equals_uint64 (without, 0);
  /* a packet every 10 ms: 14 intervals, capped at 100 ms */
  fail_unless (with >= MS (90) && with <= MS (100), "%" G_GUINT64_FORMAT,
      with);
  /* and the estimator uses it: the target is that much higher */
  fail_unless (t_with >= t_without + with - MS (5), "target %"
      G_GUINT64_FORMAT " with fecdec, %" G_GUINT64_FORMAT " without, window %"
      G_GUINT64_FORMAT, t_with, t_without, with);
}

GST_END_TEST;

/* The repair window comes from what fecdec announces (its deadline, in a
 * sticky rtpcc-fec-window event), not from its name: fecdec deadline=30
 * caps the window at 30 ms, and any element upstream that sends the event
 * gets the window. */
static guint64
fec_window_with_event (const gchar * launch, GstClockTime deadline)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstElement *e = gst_harness_find_element (h, "playoutbuffer");
  guint64 w;

  gst_harness_set_src_caps_str (h, CAPS);
  gst_harness_play (h);
  if (GST_CLOCK_TIME_IS_VALID (deadline))
    fail_unless (gst_harness_push_event (h,
            gst_rtpcc_fec_window_event_new (deadline)));
  for (guint i = 0; i < 20; i++)
    push_at (h, MS (10) * i, (guint16) (100 + i), 900 * i);
  w = stat_u64 (e, "fec-window");
  gst_object_unref (e);
  gst_harness_teardown (h);
  return w;
}

GST_START_TEST (test_fec_window_event)
{
  guint64 w = fec_window_with_event ("fecdec deadline=30 ! playoutbuffer",
      GST_CLOCK_TIME_NONE);

  fail_unless (w > MS (20) && w <= MS (30), "%" G_GUINT64_FORMAT, w);
  w = fec_window_with_event ("identity ! playoutbuffer", MS (60));
  fail_unless (w >= MS (55) && w <= MS (60), "%" G_GUINT64_FORMAT, w);
  w = fec_window_with_event ("identity ! playoutbuffer", GST_CLOCK_TIME_NONE);
  fail_unless_equals_uint64 (w, 0);
  /* an explicit fec-window wins */
  w = fec_window_with_event ("identity ! playoutbuffer fec-window=7",
      MS (60));
  fail_unless_equals_uint64 (w, MS (7));
}

GST_END_TEST;

/* An RTP packet on @ssrc; @filler: padding only (a sender's probe on the
 * media SSRC), else a 20-byte payload. */
static GstBuffer *
rtp_packet_full (guint32 ssrc, guint16 seq, guint32 ts, gboolean filler)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (filler ? 0 : 20,
      filler ? 4 : 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_ssrc (&rtp, ssrc);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_unmap (&rtp);
  return buf;
}

static void
push_full_at (GstHarness * h, GstClockTime t, guint32 ssrc, guint16 seq,
    guint32 ts, gboolean filler)
{
  GstTestClock *tc = gst_harness_get_testclock (h);

  if (gst_clock_get_time (GST_CLOCK (tc)) < t)
    gst_test_clock_set_time (tc, t);
  gst_object_unref (tc);
  fail_unless_equals_int (gst_harness_push (h, rtp_packet_full (ssrc, seq,
              ts, filler)), GST_FLOW_OK);
}

/* Across an SSRC change a padding-only packet of the old stream that comes
 * late (probes follow a frame's last packet, so the old stream's last
 * frame may be followed by one) has nothing to play: it must not switch
 * the buffer back to the old stream and throw away the new one's packets. */
GST_START_TEST (test_filler_after_ssrc_change)
{
  GstElement *e = make_element ("mode", 2, "min-delay", 50, NULL);
  GstHarness *h = harness_for (e, "sink_0", "src");
  GstBuffer *b;

  gst_harness_play (h);
  push_full_at (h, MS (0), SSRC, 10, 0, FALSE);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 10);
  gst_buffer_unref (b);
  /* the new stream starts; the old one's probe arrives after its first
   * packet */
  push_full_at (h, MS (60), SSRC + 1, 500, 90000, FALSE);
  push_full_at (h, MS (61), SSRC, 11, 0, TRUE);
  push_full_at (h, MS (70), SSRC + 1, 501, 90900, FALSE);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 500);
  gst_buffer_unref (b);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 501);
  gst_buffer_unref (b);
  fail_unless_equals_uint64 (stat_u64 (e, "ssrc-changes"), 1);
  fail_unless_equals_uint64 (stat_u64 (e, "fillers-other-ssrc"), 1);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A filler as the very first packet: kept in sequence (released, no
 * estimator input), and the media after it plays at its time. */
GST_START_TEST (test_filler_first)
{
  GstElement *e = make_element ("mode", 2, "min-delay", 50, NULL);
  GstHarness *h = harness_for (e, "sink_0", "src");
  GstBuffer *b;

  gst_harness_play (h);
  push_full_at (h, MS (0), SSRC, 9, 0, TRUE);
  push_full_at (h, MS (30), SSRC, 10, 2700, FALSE);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 9);
  gst_buffer_unref (b);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  b = gst_harness_pull (h);
  fail_unless_equals_int (buffer_seq (b), 10);
  gst_buffer_unref (b);
  fail_unless_equals_uint64 (stat_u64 (e, "fillers"), 1);
  fail_unless_equals_uint64 (stat_u64 (e, "late"), 0);
  fail_unless_equals_uint64 (stat_u64 (e, "released"), 2);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gboolean
merged (GstHarness * h, guint32 ssrc, guint16 first, guint16 last)
{
  GstQuery *q = gst_rtpcc_merged_query_new (ssrc, first, last);
  gboolean all;

  /* as a path's rtpccsrc asks it, from upstream of that pad */
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  all = gst_rtpcc_merged_query_all (q);
  gst_query_unref (q);
  return all;
}

/* A path asks whether the merge has the media packets its loss can be:
 * what came on the other path counts, held or played; a hole does not. */
GST_START_TEST (test_merged_query_element)
{
  GstElement *e = make_element ("mode", 2, "min-delay", 50, NULL);
  GstHarness *h0 = harness_for (e, "sink_0", "src");
  GstHarness *h1 = harness_for (e, "sink_1", NULL);
  GstBuffer *b;

  gst_harness_play (h0);
  gst_harness_play (h1);
  fail_if (merged (h1, SSRC, 10, 10));
  push_full_at (h0, MS (0), SSRC, 10, 0, FALSE);
  push_full_at (h0, MS (10), SSRC, 11, 900, FALSE);
  push_full_at (h0, MS (20), SSRC, 13, 2700, FALSE);
  /* held */
  fail_unless (merged (h1, SSRC, 10, 11));
  fail_if (merged (h1, SSRC, 11, 13));
  fail_if (merged (h1, SSRC + 1, 10, 11));
  /* played */
  fail_unless (gst_harness_crank_single_clock_wait (h0));
  b = gst_harness_pull (h0);
  fail_unless_equals_int (buffer_seq (b), 10);
  gst_buffer_unref (b);
  fail_unless (merged (h1, SSRC, 10, 11));
  /* the hole filled (a repair that came on the other path) */
  push_full_at (h0, MS (21), SSRC, 12, 1800, FALSE);
  fail_unless (merged (h1, SSRC, 11, 13));
  gst_object_unref (e);
  gst_harness_teardown (h1);
  gst_harness_teardown (h0);
}

GST_END_TEST;

static Suite *
playoutbuffer_suite (void)
{
  Suite *s = suite_create ("playoutbuffer");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_timing_and_reorder);
  tcase_add_test (tc, test_late_drop_event);
  tcase_add_test (tc, test_state_event);
  tcase_add_test (tc, test_drift);
  tcase_add_test (tc, test_two_subflows);
  tcase_add_test (tc, test_merged_query_element);
  tcase_add_test (tc, test_singh_skew_step);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_fec_window_auto);
  tcase_add_test (tc, test_fec_window_event);
  tcase_add_test (tc, test_controller_properties);
  tcase_add_test (tc, test_filler_after_ssrc_change);
  tcase_add_test (tc, test_filler_first);
  return s;
}

GST_CHECK_MAIN (playoutbuffer);

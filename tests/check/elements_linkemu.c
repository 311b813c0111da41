/* Element tests for linkemu (plugins/linkemu/), driven by GstHarness and a
 * GstTestClock so every delivery time is exact.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#define MS(ms) ((GstClockTime) (ms) * GST_MSECOND)

/* linkemu with the given properties ("name", value, ..., NULL), set before
 * the harness takes it to PLAYING. */
static GstHarness *
harness_new (const gchar * first_property, ...)
{
  GstElement *e = gst_element_factory_make ("linkemu", NULL);
  GstHarness *h;
  va_list args;

  fail_unless (e != NULL, "linkemu not found (GST_PLUGIN_PATH?)");
  va_start (args, first_property);
  if (first_property)
    g_object_set_valist (G_OBJECT (e), first_property, args);
  va_end (args);

  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, "application/x-test");
  return h;
}

static void
push_sized (GstHarness * h, gsize size, GstClockTime pts, guint64 index)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);

  gst_buffer_memset (buf, 0, 0xaa, size);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_OFFSET (buf) = index;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
}

static guint64
stat_u64 (GstHarness * h, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (h->element, "stats", &s, NULL);
  fail_unless (s != NULL);
  fail_unless (gst_structure_has_name (s, "application/x-linkemu-stats"));
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no field %s", field);
  gst_structure_free (s);
  return v;
}

static gboolean
stat_boolean (GstHarness * h, const gchar * field)
{
  GstStructure *s = NULL;
  gboolean v = FALSE;

  g_object_get (h->element, "stats", &s, NULL);
  fail_unless (gst_structure_get_boolean (s, field, &v), "no field %s",
      field);
  gst_structure_free (s);
  return v;
}

static gboolean
stat_has (GstHarness * h, const gchar * field)
{
  GstStructure *s = NULL;
  gboolean has;

  g_object_get (h->element, "stats", &s, NULL);
  has = gst_structure_has_field (s, field);
  gst_structure_free (s);
  return has;
}

/* packets-in == delivered + in-flight + every kind of drop */
static void
check_accounting (GstHarness * h)
{
  guint64 in = stat_u64 (h, "packets-in");
  guint64 sum = stat_u64 (h, "packets-delivered") +
      stat_u64 (h, "packets-in-flight") + stat_u64 (h, "queue-drops") +
      stat_u64 (h, "loss-drops") + stat_u64 (h, "flush-drops");

  fail_unless_equals_uint64 (in, sum);
}

/* Pulls the next serialized event that is not a buffer, skipping nothing. */
static GstEventType
pull_event_type (GstHarness * h)
{
  GstEvent *ev = gst_harness_pull_event (h);
  GstEventType t;

  fail_unless (ev != NULL);
  t = GST_EVENT_TYPE (ev);
  gst_event_unref (ev);
  return t;
}

/* stream-start, caps and segment from gst_harness_set_src_caps_str() */
static void
pull_initial_events (GstHarness * h)
{
  fail_unless_equals_int (pull_event_type (h), GST_EVENT_STREAM_START);
  fail_unless_equals_int (pull_event_type (h), GST_EVENT_CAPS);
  fail_unless_equals_int (pull_event_type (h), GST_EVENT_SEGMENT);
}

/* For when the test clock is already past every delivery time. */
static void
release_until_received (GstHarness * h, guint n)
{
  GstTestClock *clock = gst_harness_get_testclock (h);

  while (gst_harness_buffers_received (h) < n) {
    GstClockID id = gst_test_clock_process_next_clock_id (clock);

    if (id)
      gst_clock_id_unref (id);
    else
      g_usleep (100);
  }
  gst_object_unref (clock);
}

/* 1 --------------------------------------------------------------------- */

GST_START_TEST (test_timestamps_queueing_and_delay)
{
  GstHarness *h = harness_new ("rate", 1000, "delay", 50, NULL);
  const guint n = 10;
  guint k;

  /* 1250 bytes at 1000 kbit/s = 10 ms of serialization each */
  gst_harness_set_time (h, 0);
  for (k = 0; k < n; k++)
    push_sized (h, 1250, 0, k);

  fail_unless_equals_uint64 (stat_u64 (h, "packets-in-flight"), n);
  fail_unless_equals_uint64 (stat_u64 (h, "queue-delay"), MS (10 * n));

  for (k = 0; k < n; k++) {
    GstClockTime expected = MS (10 * (k + 1) + 50);
    GstTestClock *clock;
    GstBuffer *out;

    /* nothing leaves before the clock reaches the delivery time */
    fail_unless_equals_int (gst_harness_buffers_received (h), k);
    fail_unless (gst_harness_try_pull (h) == NULL);
    fail_unless (gst_harness_crank_single_clock_wait (h));
    clock = gst_harness_get_testclock (h);
    fail_unless_equals_uint64 (gst_clock_get_time (GST_CLOCK (clock)),
        expected);
    gst_object_unref (clock);

    out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), k);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), expected);
    fail_unless (!GST_BUFFER_DTS_IS_VALID (out));
    fail_unless_equals_int (gst_buffer_get_size (out), 1250);
    gst_buffer_unref (out);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-delivered"), n);
  fail_unless_equals_uint64 (stat_u64 (h, "bytes-delivered"), 1250 * n);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-in-flight"), 0);
  fail_unless_equals_uint64 (stat_u64 (h, "max-queue-delay"), MS (10 * n));

  gst_harness_teardown (h);
}

GST_END_TEST;

/* burst: a token bucket as tbf's; with 2500 bytes the first two of ten
 * 1250-byte packets leave at once, the rest at the rate (the queue that
 * much shorter) */
GST_START_TEST (test_burst)
{
  GstHarness *h = harness_new ("rate", 1000, "delay", 50, "burst", 2500,
      NULL);
  const guint n = 10;
  guint k;

  gst_harness_set_time (h, 0);
  for (k = 0; k < n; k++)
    push_sized (h, 1250, 0, k);
  /* the last leaves at 10 ms × 10 − 20 ms */
  fail_unless_equals_uint64 (stat_u64 (h, "queue-delay"), MS (10 * n - 20));
  for (k = 0; k < n; k++) {
    GstClockTime expected = MS (k < 2 ? 50 : 10 * (k + 1) - 20 + 50);
    GstBuffer *out;

    if (gst_harness_buffers_received (h) <= k)
      fail_unless (gst_harness_crank_single_clock_wait (h));
    out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), k);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), expected);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The shift is (deliver_at - arrival), whatever the input timestamps; a
 * buffer without PTS gets its delivery running time. */
GST_START_TEST (test_timestamp_shift)
{
  GstHarness *h = harness_new ("rate", 1000, "delay", 20, NULL);
  GstBuffer *buf, *out;

  gst_harness_set_time (h, MS (100));
  buf = gst_buffer_new_allocate (NULL, 1250, NULL);
  GST_BUFFER_PTS (buf) = 5 * GST_SECOND;
  GST_BUFFER_DTS (buf) = 4 * GST_SECOND;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);

  fail_unless (gst_harness_crank_single_clock_wait (h));
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 5 * GST_SECOND + MS (30));
  fail_unless_equals_uint64 (GST_BUFFER_DTS (out), 4 * GST_SECOND + MS (30));
  gst_buffer_unref (out);

  /* no PTS: the delivery time, here 200 + 10 + 20 ms */
  gst_harness_set_time (h, MS (200));
  buf = gst_buffer_new_allocate (NULL, 1250, NULL);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), MS (230));
  gst_buffer_unref (out);

  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_schedule_and_runtime_rate)
{
  GstHarness *h = harness_new ("schedule", "1000@0,2000@1", "queue-ms", 0,
      NULL);
  GstBuffer *out;

  gst_harness_set_time (h, 0);
  push_sized (h, 1250, 0, 0);
  fail_unless_equals_uint64 (stat_u64 (h, "capacity"), 1000000);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), MS (10));
  gst_buffer_unref (out);

  /* from 1 s of running time the schedule gives 2000 kbit/s */
  gst_harness_set_time (h, GST_SECOND);
  push_sized (h, 1250, GST_SECOND, 1);
  fail_unless_equals_uint64 (stat_u64 (h, "capacity"), 2000000);
  fail_if (stat_boolean (h, "unlimited"));
  fail_unless (gst_harness_crank_single_clock_wait (h));
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_SECOND + MS (5));
  gst_buffer_unref (out);

  /* clearing the schedule while playing falls back to "rate" */
  g_object_set (h->element, "schedule", NULL, "rate", 500, NULL);
  gst_harness_set_time (h, 2 * GST_SECOND);
  push_sized (h, 1250, 2 * GST_SECOND, 2);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 2 * GST_SECOND + MS (20));
  gst_buffer_unref (out);

  /* unlimited: said so, and no rate shown */
  g_object_set (h->element, "rate", 0, NULL);
  fail_unless (stat_boolean (h, "unlimited"));
  fail_if (stat_has (h, "capacity"));

  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_jitter_reorder)
{
  const guint n = 20;
  gboolean reorder;

  for (reorder = FALSE; reorder <= TRUE; reorder++) {
    GstHarness *h = harness_new ("delay", 100, "jitter", 50,
        "allow-reorder", reorder, "seed", G_GUINT64_CONSTANT (3), NULL);
    GstClockTime last = 0;
    gboolean out_of_order = FALSE;
    guint k;

    /* 1 ms apart; every delivery is at least 50 ms after the last arrival,
     * so the streaming thread is waiting for the first one */
    for (k = 0; k < n; k++) {
      gst_harness_set_time (h, MS (k));
      push_sized (h, 100, MS (k), k);
    }
    /* Past every delivery time. The streaming thread may or may not be
     * blocked in a wait (it can see the new time first), so release waits
     * without blocking until everything is out. */
    gst_harness_set_time (h, GST_SECOND);
    release_until_received (h, n);
    for (k = 0; k < n; k++) {
      GstBuffer *out = gst_harness_pull (h);

      /* output is always in delivery order ... */
      fail_unless (GST_BUFFER_PTS (out) >= last);
      last = GST_BUFFER_PTS (out);
      /* ... and only reordered when allowed */
      if (GST_BUFFER_OFFSET (out) != k)
        out_of_order = TRUE;
      gst_buffer_unref (out);
    }
    fail_unless_equals_int (out_of_order, reorder);
    check_accounting (h);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* 2 --------------------------------------------------------------------- */

GST_START_TEST (test_stats_queue_drops)
{
  /* 50 ms at 1000 kbit/s is 6250 bytes: a burst of 20 overflows */
  GstHarness *h = harness_new ("rate", 1000, "queue-ms", 50, NULL);
  guint64 accepted, k;

  gst_harness_set_time (h, 0);
  for (k = 0; k < 20; k++)
    push_sized (h, 1250, 0, k);

  fail_unless_equals_uint64 (stat_u64 (h, "packets-in"), 20);
  fail_unless_equals_uint64 (stat_u64 (h, "bytes-in"), 20 * 1250);
  fail_unless (stat_u64 (h, "queue-drops") > 0);
  fail_unless_equals_uint64 (stat_u64 (h, "loss-drops"), 0);
  accepted = stat_u64 (h, "packets-in-flight");
  fail_unless (accepted > 0);
  fail_unless_equals_uint64 (accepted + stat_u64 (h, "queue-drops"), 20);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-delivered"), 0);
  /* the backlog is what was accepted, 10 ms each */
  fail_unless_equals_uint64 (stat_u64 (h, "queue-delay"), MS (10) * accepted);
  fail_unless (stat_u64 (h, "queue-delay") <= MS (50));
  check_accounting (h);

  for (k = 0; k < accepted; k++) {
    GstBuffer *out;

    fail_unless (gst_harness_crank_single_clock_wait (h));
    out = gst_harness_pull (h);
    /* drop-tail: the first packets got through */
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), k);
    gst_buffer_unref (out);
    check_accounting (h);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-delivered"), accepted);
  fail_unless_equals_uint64 (stat_u64 (h, "bytes-delivered"), accepted * 1250);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-in-flight"), 0);
  fail_unless_equals_uint64 (stat_u64 (h, "queue-delay"), 0);
  fail_unless_equals_uint64 (stat_u64 (h, "max-queue-delay"),
      MS (10) * accepted);

  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_stats_total_loss)
{
  GstHarness *h = harness_new ("loss", 1.0, NULL);
  guint k;

  for (k = 0; k < 10; k++)
    push_sized (h, 100, 0, k);
  fail_unless_equals_uint64 (stat_u64 (h, "loss-drops"), 10);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-in-flight"), 0);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-delivered"), 0);
  check_accounting (h);
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pushes @n numbered packets through a zero-delay link and returns the
 * indices that came out. */
static GArray *
run_loss (GstHarness * h, guint n)
{
  GArray *got = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 before = stat_u64 (h, "packets-delivered");
  guint64 drops = stat_u64 (h, "loss-drops") + stat_u64 (h, "queue-drops");
  guint64 expected, k;

  for (k = 0; k < n; k++)
    push_sized (h, 200, 0, k);

  /* everything not dropped comes out, without any clock wait; the drop
   * counters only change in this (the pushing) thread */
  expected = n - (stat_u64 (h, "loss-drops") + stat_u64 (h, "queue-drops") -
      drops);
  for (k = 0; k < expected; k++) {
    GstBuffer *out = gst_harness_pull (h);

    fail_unless (out != NULL);
    g_array_append_val (got, GST_BUFFER_OFFSET (out));
    gst_buffer_unref (out);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-delivered"),
      before + got->len);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-in-flight"), 0);
  check_accounting (h);
  return got;
}

GST_START_TEST (test_stats_seeded_loss)
{
  GstHarness *h = harness_new ("loss", 0.3, "seed", G_GUINT64_CONSTANT (42),
      NULL);
  GArray *got = run_loss (h, 1000);
  guint64 lost = stat_u64 (h, "loss-drops");

  fail_unless_equals_uint64 (got->len + lost, 1000);
  /* 300 expected; 6 standard deviations is ~87 */
  fail_unless (lost > 200 && lost < 400, "lost %" G_GUINT64_FORMAT, lost);
  fail_unless_equals_uint64 (stat_u64 (h, "bytes-delivered"), got->len * 200);

  g_array_unref (got);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* 3 --------------------------------------------------------------------- */

/* Going to PAUSED must fail with a RESOURCE/SETTINGS error on the bus whose
 * text contains @needle. */
static void
check_start_fails (GstElement * e, const gchar * needle)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message for '%s'", needle);
  gst_message_parse_error (msg, &err, &debug);
  GST_INFO ("error: %s (%s)", err->message, debug);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS));
  fail_unless (strstr (err->message, needle) != NULL,
      "'%s' not in '%s'", needle, err->message);
  g_clear_error (&err);
  g_free (debug);
  gst_message_unref (msg);

  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
}

static void
check_bad_string (const gchar * prop, const gchar * value,
    const gchar * needle)
{
  GstElement *e = gst_element_factory_make ("linkemu", NULL);

  /* must not crash or warn on set; the error comes when starting */
  g_object_set (e, prop, value, NULL);
  check_start_fails (e, needle);
  gst_object_unref (e);
}

GST_START_TEST (test_bad_schedule)
{
  check_bad_string ("schedule", "abc", "schedule");
  check_bad_string ("schedule", "1000@5", "schedule");
  check_bad_string ("schedule", "1000@0,500@0", "schedule");
  check_bad_string ("schedule", "1000@0,500@10,700@5", "schedule");
  check_bad_string ("schedule", "-100@0", "schedule");
  check_bad_string ("schedule", "1000@0,500@-3", "schedule");
  check_bad_string ("schedule", "1000@0,", "schedule");
  check_bad_string ("schedule", "1000", "schedule");
  check_bad_string ("schedule", "nan@0", "schedule");
}

GST_END_TEST;

GST_START_TEST (test_bad_schedule_fixed)
{
  GstElement *e = gst_element_factory_make ("linkemu", NULL);
  gchar *s = NULL;

  /* a good value replaces a bad one */
  g_object_set (e, "schedule", "1000@5", NULL);
  g_object_set (e, "schedule", "1000@0,500@5", NULL);
  g_object_get (e, "schedule", &s, NULL);
  fail_unless_equals_string (s, "1000@0,500@5");
  g_free (s);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_NO_PREROLL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (e);
}

GST_END_TEST;

static gchar *
write_temp_trace (const gchar * contents, gchar ** dir)
{
  GError *err = NULL;
  gchar *path;

  *dir = g_dir_make_tmp ("linkemu-XXXXXX", &err);
  fail_unless (*dir != NULL, "%s", err ? err->message : "?");
  path = g_build_filename (*dir, "link.trace", NULL);
  fail_unless (g_file_set_contents (path, contents, -1, &err));
  return path;
}

static void
remove_temp_trace (gchar * path, gchar * dir)
{
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

GST_START_TEST (test_bad_trace)
{
  gchar *dir, *path;

  check_bad_string ("trace", "/nonexistent/linkemu/none.trace", "trace");

  path = write_temp_trace ("5\nten\n", &dir);
  check_bad_string ("trace", path, "trace");
  remove_temp_trace (path, dir);

  path = write_temp_trace ("10\n5\n", &dir);
  check_bad_string ("trace", path, "trace");
  remove_temp_trace (path, dir);

  path = write_temp_trace ("", &dir);
  check_bad_string ("trace", path, "trace");
  remove_temp_trace (path, dir);
}

GST_END_TEST;

GST_START_TEST (test_schedule_and_trace_exclusive)
{
  GstElement *e = gst_element_factory_make ("linkemu", NULL);
  gchar *dir, *path = write_temp_trace ("1\n2\n", &dir);

  g_object_set (e, "schedule", "1000@0", "trace", path, NULL);
  check_start_fails (e, "schedule");
  check_start_fails (e, "trace");

  /* clearing one of them is enough */
  g_object_set (e, "schedule", NULL, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_NO_PREROLL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);

  gst_object_unref (e);
  remove_temp_trace (path, dir);
}

GST_END_TEST;

GST_START_TEST (test_trace)
{
  /* two 1500-byte opportunities per 10 ms period, at 5 and 10 ms */
  gchar *dir, *path = write_temp_trace ("# test trace\n5\n10\n", &dir);
  GstHarness *h = harness_new ("trace", path, "queue-ms", 0, NULL);
  guint k;

  gst_harness_set_time (h, 0);
  for (k = 0; k < 3; k++)
    push_sized (h, 1500, 0, k);
  for (k = 0; k < 3; k++) {
    GstBuffer *out;

    fail_unless (gst_harness_crank_single_clock_wait (h));
    out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), MS (5 * (k + 1)));
    gst_buffer_unref (out);
  }
  /* about 2 × 1500 bytes per 10 ms (a mean over a window) */
  fail_unless (stat_u64 (h, "capacity") > 2000000);
  fail_unless (stat_u64 (h, "capacity") < 2600000);

  gst_harness_teardown (h);
  remove_temp_trace (path, dir);
}

GST_END_TEST;

GST_START_TEST (test_bad_numbers)
{
  GstElement *e = gst_element_factory_make ("linkemu", NULL);
  gdouble d;
  gint model;

  g_object_set (e, "loss", 0.25, NULL);
  ASSERT_WARNING (g_object_set (e, "loss", 2.0, NULL));
  ASSERT_WARNING (g_object_set (e, "loss", -0.5, NULL));
  g_object_get (e, "loss", &d, NULL);
  fail_unless_equals_float (d, 0.25);

  ASSERT_WARNING (g_object_set (e, "ge-p", 1.5, NULL));
  g_object_get (e, "ge-p", &d, NULL);
  fail_unless_equals_float (d, 0.0);

  /* enum nicks as gst-launch sees them */
  gst_util_set_object_arg (G_OBJECT (e), "loss-model", "gilbert-elliott");
  g_object_get (e, "loss-model", &model, NULL);
  fail_unless_equals_int (model, 1);
  gst_util_set_object_arg (G_OBJECT (e), "loss-model", "bernoulli");
  g_object_get (e, "loss-model", &model, NULL);
  fail_unless_equals_int (model, 0);

  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_defaults)
{
  GstElement *e = gst_element_factory_make ("linkemu", NULL);
  guint rate, queue_ms, queue_bytes, delay, jitter;
  gdouble loss, p, r, k, hh;
  gboolean reorder;
  guint64 seed;
  gchar *schedule, *trace;
  GstStructure *s;

  g_object_get (e, "rate", &rate, "queue-ms", &queue_ms, "queue-bytes",
      &queue_bytes, "delay", &delay, "jitter", &jitter, "allow-reorder",
      &reorder, "loss", &loss, "ge-p", &p, "ge-r", &r, "ge-k", &k, "ge-h",
      &hh, "seed", &seed, "schedule", &schedule, "trace", &trace, "stats",
      &s, NULL);
  fail_unless_equals_int (rate, 0);
  fail_unless_equals_int (queue_ms, 300);
  fail_unless_equals_int (queue_bytes, 0);
  fail_unless_equals_int (delay, 0);
  fail_unless_equals_int (jitter, 0);
  fail_unless (!reorder);
  fail_unless_equals_float (loss, 0.0);
  fail_unless_equals_float (p, 0.0);
  fail_unless_equals_float (r, 1.0);
  fail_unless_equals_float (k, 1.0);
  fail_unless_equals_float (hh, 0.0);
  fail_unless_equals_uint64 (seed, 0);
  fail_unless (schedule == NULL && trace == NULL);
  fail_unless (s != NULL);
  gst_structure_free (s);

  gst_object_unref (e);
}

GST_END_TEST;

/* 4 --------------------------------------------------------------------- */

GST_START_TEST (test_eos_after_last_buffer)
{
  GstHarness *h = harness_new ("rate", 1000, "delay", 10, NULL);
  guint k;

  gst_harness_set_time (h, 0);
  for (k = 0; k < 3; k++)
    push_sized (h, 1250, 0, k);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* no more data after EOS */
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 10, NULL)), GST_FLOW_EOS);

  pull_initial_events (h);
  for (k = 0; k < 3; k++) {
    GstBuffer *out;

    /* EOS stays behind the buffers that are still on the link */
    fail_unless (gst_harness_try_pull_event (h) == NULL);
    fail_unless (gst_harness_crank_single_clock_wait (h));
    out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), k);
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (pull_event_type (h), GST_EVENT_EOS);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-in-flight"), 0);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* Custom serialized events keep their place between buffers. */
GST_START_TEST (test_serialized_event_order)
{
  GstHarness *h = harness_new ("rate", 1000, NULL);
  GstEvent *ev;
  GstBuffer *out;

  gst_harness_set_time (h, 0);
  push_sized (h, 1250, 0, 0);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
              gst_structure_new_empty ("marker"))));
  push_sized (h, 1250, 0, 1);

  pull_initial_events (h);
  fail_unless (gst_harness_try_pull_event (h) == NULL);

  fail_unless (gst_harness_crank_single_clock_wait (h));
  out = gst_harness_pull (h);
  gst_buffer_unref (out);
  ev = gst_harness_pull_event (h);
  fail_unless_equals_int (GST_EVENT_TYPE (ev), GST_EVENT_CUSTOM_DOWNSTREAM);
  gst_event_unref (ev);
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);

  fail_unless (gst_harness_crank_single_clock_wait (h));
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), 1);
  gst_buffer_unref (out);

  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_flush)
{
  GstHarness *h = harness_new ("rate", 1000, "delay", 10, NULL);
  GstSegment segment;
  GstBuffer *out;
  guint k;

  gst_harness_set_time (h, 0);
  for (k = 0; k < 5; k++)
    push_sized (h, 1250, 0, k);
  /* let the streaming thread block in its clock wait */
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 10));

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  /* dropped already while flushing */
  fail_unless_equals_uint64 (stat_u64 (h, "flush-drops"), 5);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 10, NULL)), GST_FLOW_FLUSHING);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));

  fail_unless_equals_uint64 (stat_u64 (h, "flush-drops"), 5);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-in-flight"), 0);
  check_accounting (h);
  fail_unless (gst_harness_try_pull (h) == NULL);

  /* the link restarts empty: no backlog from the flushed packets */
  gst_harness_set_time (h, MS (20));
  push_sized (h, 1250, MS (20), 100);
  fail_unless (gst_harness_crank_single_clock_wait (h));
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), 100);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), MS (40));
  gst_buffer_unref (out);
  fail_unless_equals_uint64 (stat_u64 (h, "packets-in"), 6);
  check_accounting (h);

  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_stop_with_pending_buffers)
{
  GstHarness *h = harness_new ("rate", 100, "delay", 10000, "queue-ms", 0,
      NULL);
  gint64 start;
  guint k;

  for (k = 0; k < 50; k++)
    push_sized (h, 1250, 0, k);
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 10));

  /* through PAUSED, where buffers are held */
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_PAUSED), GST_STATE_CHANGE_NO_PREROLL);
  start = g_get_monotonic_time ();
  fail_unless_equals_int (gst_element_set_state (h->element, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (g_get_monotonic_time () - start < G_USEC_PER_SEC);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);

  /* and straight from PLAYING */
  gst_harness_play (h);
  for (k = 0; k < 50; k++)
    push_sized (h, 1250, 0, k);
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 10));
  start = g_get_monotonic_time ();
  fail_unless_equals_int (gst_element_set_state (h->element, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (g_get_monotonic_time () - start < G_USEC_PER_SEC);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  /* the counters of the last run survive the stop */
  fail_unless_equals_uint64 (stat_u64 (h, "packets-in"), 50);
  fail_unless_equals_uint64 (stat_u64 (h, "flush-drops"), 50);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* PAUSED holds buffers; PLAYING again delivers them. */
GST_START_TEST (test_pause_resume)
{
  GstHarness *h = harness_new ("rate", 1000, NULL);
  GstBuffer *out;

  gst_harness_set_time (h, 0);
  push_sized (h, 1250, 0, 0);
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 10));
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_PAUSED), GST_STATE_CHANGE_NO_PREROLL);
  /* past the delivery time, but paused */
  gst_harness_set_time (h, MS (50));
  g_usleep (20000);
  fail_unless (gst_harness_try_pull (h) == NULL);

  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
  out = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), MS (10));
  gst_buffer_unref (out);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* The same code path against the real system clock. */
GST_START_TEST (test_system_clock)
{
  GstHarness *h = harness_new ("delay", 30, NULL);
  GstBuffer *out;
  gint64 start;

  gst_harness_use_systemclock (h);
  start = g_get_monotonic_time ();
  push_sized (h, 100, 0, 0);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless (g_get_monotonic_time () - start >= 29 * 1000);
  gst_buffer_unref (out);

  gst_harness_teardown (h);
}

GST_END_TEST;

/* 5 --------------------------------------------------------------------- */

static GArray *
run_gilbert_elliott (guint64 seed)
{
  GstHarness *h = harness_new ("ge-p", 0.05, "ge-r", 0.25,
      "seed", seed, NULL);
  GArray *got;

  gst_util_set_object_arg (G_OBJECT (h->element), "loss-model",
      "gilbert-elliott");
  got = run_loss (h, 2000);
  gst_harness_teardown (h);
  return got;
}

GST_START_TEST (test_gilbert_elliott)
{
  GArray *a = run_gilbert_elliott (11);
  GArray *b = run_gilbert_elliott (11);
  GArray *c = run_gilbert_elliott (12);
  guint64 prev = 0, lost = 0, bursts = 0;
  guint i;

  /* same seed, same drop pattern */
  fail_unless_equals_int (a->len, b->len);
  fail_unless (memcmp (a->data, b->data, a->len * sizeof (guint64)) == 0);
  /* another seed, another pattern */
  fail_unless (a->len != c->len ||
      memcmp (a->data, c->data, a->len * sizeof (guint64)) != 0);

  /* mean loss p/(p+r) = 1/6; losses come in bursts (mean length 1/r = 4) */
  for (i = 0; i < a->len; i++) {
    guint64 idx = g_array_index (a, guint64, i);

    if (idx != prev) {
      bursts++;
      lost += idx - prev;
    }
    prev = idx + 1;
  }
  lost += 2000 - prev;
  fail_unless (lost > 150 && lost < 550, "lost %" G_GUINT64_FORMAT, lost);
  fail_unless ((gdouble) lost / bursts > 2.0, "%" G_GUINT64_FORMAT
      " losses in %" G_GUINT64_FORMAT " bursts", lost, bursts);

  g_array_unref (a);
  g_array_unref (b);
  g_array_unref (c);
}

GST_END_TEST;

/* Loss parameters changed while playing take effect at once. */
GST_START_TEST (test_runtime_loss)
{
  GstHarness *h = harness_new (NULL, NULL);
  GArray *got;

  got = run_loss (h, 100);
  fail_unless_equals_int (got->len, 100);
  g_array_unref (got);

  g_object_set (h->element, "loss", 1.0, NULL);
  got = run_loss (h, 100);
  fail_unless_equals_int (got->len, 0);
  g_array_unref (got);
  fail_unless_equals_uint64 (stat_u64 (h, "loss-drops"), 100);

  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
linkemu_suite (void)
{
  Suite *s = suite_create ("linkemu");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_timestamps_queueing_and_delay);
  tcase_add_test (tc, test_timestamp_shift);
  tcase_add_test (tc, test_burst);
  tcase_add_test (tc, test_schedule_and_runtime_rate);
  tcase_add_test (tc, test_jitter_reorder);
  tcase_add_test (tc, test_stats_queue_drops);
  tcase_add_test (tc, test_stats_total_loss);
  tcase_add_test (tc, test_stats_seeded_loss);
  tcase_add_test (tc, test_bad_schedule);
  tcase_add_test (tc, test_bad_schedule_fixed);
  tcase_add_test (tc, test_bad_trace);
  tcase_add_test (tc, test_schedule_and_trace_exclusive);
  tcase_add_test (tc, test_trace);
  tcase_add_test (tc, test_bad_numbers);
  tcase_add_test (tc, test_defaults);
  tcase_add_test (tc, test_eos_after_last_buffer);
  tcase_add_test (tc, test_serialized_event_order);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_stop_with_pending_buffers);
  tcase_add_test (tc, test_pause_resume);
  tcase_add_test (tc, test_system_clock);
  tcase_add_test (tc, test_gilbert_elliott);
  tcase_add_test (tc, test_runtime_loss);

  return s;
}

GST_CHECK_MAIN (linkemu);

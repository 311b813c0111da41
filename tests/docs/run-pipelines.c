/* Runs several gst-launch-1.0 pipelines side by side in one process for a
 * few seconds, as a reader would start them in several shells: in-process
 * (not gst-launch-1.0 itself) so a sanitizer build can load its plugins.
 *
 *   run-pipelines MILLISECONDS [+]PIPELINE...
 *
 * Fails if a pipeline does not parse, does not reach PLAYING (or, waiting
 * for its first buffer, head for it), or posts an error. A pipeline prefixed with '+' must also get at least one buffer to
 * each of its sinks (a receiver fed by the other pipelines, a sender).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  GstElement *pipeline;
  gchar *desc;
  gboolean need_data;
  gint sinks;                   /* sink elements found */
  gint sinks_fed;               /* of them, those that got a buffer */
  gboolean failed;
} Run;

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Run *r = data;
  g_atomic_int_inc (&r->sinks_fed);
  return GST_PAD_PROBE_REMOVE;
}

static void
probe_sinks (Run * r)
{
  GstIterator *it = gst_bin_iterate_sinks (GST_BIN (r->pipeline));
  GValue v = G_VALUE_INIT;

  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);
    GstIterator *pit = gst_element_iterate_sink_pads (e);
    GValue pv = G_VALUE_INIT;
    if (gst_iterator_next (pit, &pv) == GST_ITERATOR_OK) {
      gst_pad_add_probe (g_value_get_object (&pv), GST_PAD_PROBE_TYPE_BUFFER
          | GST_PAD_PROBE_TYPE_BUFFER_LIST, on_buffer, r, NULL);
      r->sinks++;
      g_value_unset (&pv);
    }
    gst_iterator_free (pit);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Run *r = data;
  GError *err = NULL;
  gchar *dbg = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, &dbg);
    fprintf (stderr, "ERROR from %s in \"%s\": %s (%s)\n",
        GST_OBJECT_NAME (msg->src), r->desc, err->message, dbg ? dbg : "");
    r->failed = TRUE;
    g_clear_error (&err);
    g_free (dbg);
  }
  return TRUE;
}

static gboolean
quit (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  GMainLoop *loop;
  Run *runs;
  gint n, ms, bad = 0;

  gst_init (&argc, &argv);
  if (argc < 3) {
    fprintf (stderr, "usage: %s MILLISECONDS [+]PIPELINE...\n", argv[0]);
    return 2;
  }
  ms = atoi (argv[1]);
  n = argc - 2;
  runs = g_new0 (Run, n);
  loop = g_main_loop_new (NULL, FALSE);
  for (gint i = 0; i < n; i++) {
    const gchar *d = argv[i + 2];
    GError *err = NULL;
    GstBus *bus;

    runs[i].need_data = d[0] == '+';
    runs[i].desc = g_strdup (runs[i].need_data ? d + 1 : d);
    runs[i].pipeline = gst_parse_launch_full (runs[i].desc, NULL,
        GST_PARSE_FLAG_FATAL_ERRORS, &err);
    if (!runs[i].pipeline) {
      fprintf (stderr, "does not parse: \"%s\": %s\n", runs[i].desc,
          err->message);
      g_clear_error (&err);
      return 1;
    }
    if (!GST_IS_PIPELINE (runs[i].pipeline)) {
      GstElement *p = gst_pipeline_new (NULL);
      gst_bin_add (GST_BIN (p), runs[i].pipeline);
      runs[i].pipeline = p;
    }
    probe_sinks (&runs[i]);
    bus = gst_element_get_bus (runs[i].pipeline);
    gst_bus_add_watch (bus, on_message, &runs[i]);
    gst_object_unref (bus);
  }
  /* receivers first, as a reader starts them, so no first packet is lost */
  for (gint i = n - 1; i >= 0; i--)
    if (gst_element_set_state (runs[i].pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE) {
      fprintf (stderr, "cannot start \"%s\"\n", runs[i].desc);
      runs[i].failed = TRUE;
    }
  g_timeout_add (ms, quit, loop);
  g_main_loop_run (loop);
  for (gint i = 0; i < n; i++) {
    GstState st = GST_STATE_NULL, pending = GST_STATE_VOID_PENDING;
    gst_element_get_state (runs[i].pipeline, &st, &pending, 0);
    /* a receiver with no sender in sight waits for its first buffer on the
     * way to PLAYING: that is fine unless it was meant to get data */
    if (!runs[i].failed && st != GST_STATE_PLAYING
        && (runs[i].need_data || pending != GST_STATE_PLAYING)) {
      fprintf (stderr, "not PLAYING after %d ms: \"%s\"\n", ms, runs[i].desc);
      runs[i].failed = TRUE;
    }
    if (!runs[i].failed && runs[i].need_data
        && (runs[i].sinks == 0
            || g_atomic_int_get (&runs[i].sinks_fed) < runs[i].sinks)) {
      fprintf (stderr, "%d of %d sinks got data in %d ms: \"%s\"\n",
          g_atomic_int_get (&runs[i].sinks_fed), runs[i].sinks, ms,
          runs[i].desc);
      runs[i].failed = TRUE;
    }
    gst_element_set_state (runs[i].pipeline, GST_STATE_NULL);
    gst_object_unref (runs[i].pipeline);
    bad += runs[i].failed;
    printf ("%s: %s\n", runs[i].failed ? "FAIL" : "ok", runs[i].desc);
    g_free (runs[i].desc);
  }
  g_free (runs);
  g_main_loop_unref (loop);
  return bad ? 1 : 0;
}

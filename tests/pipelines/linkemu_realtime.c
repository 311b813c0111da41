/* Real-time pipeline tests for linkemu: the element against the real system
 * clock, in real pipelines. Tolerant by design (loaded CI machines): they
 * check behaviour, not precise timing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gio/gio.h>
#include <gst/check/gstcheck.h>

/* --- delivered rate under overload -------------------------------------- */

#define LINK_KBPS       2000
#define SOURCE_KBPS     (2 * LINK_KBPS)
#define PACKET_BYTES    1000
#define RUN_USEC        (3800 * G_TIME_SPAN_MILLISECOND)
#define WINDOW_FROM     (500 * G_TIME_SPAN_MILLISECOND)
#define WINDOW_TO       (3500 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  GMutex lock;
  gint64 start;                 /* monotonic µs when PLAYING was reached */
  guint64 window_bytes;
  guint64 total_bytes;
  guint64 buffers;
  gint64 first, last;           /* arrival of first/last buffer */
} Counter;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  Counter *c = data;
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&c->lock);
  if (c->buffers == 0)
    c->first = now;
  c->last = now;
  c->buffers++;
  c->total_bytes += gst_buffer_get_size (buf);
  if (c->start > 0 && now - c->start >= WINDOW_FROM
      && now - c->start < WINDOW_TO)
    c->window_bytes += gst_buffer_get_size (buf);
  g_mutex_unlock (&c->lock);
}

typedef struct
{
  GstElement *appsrc;
  gint64 start;
  guint64 pushed;
} Feeder;

/* Pushes SOURCE_KBPS of fixed-size buffers, catching up after oversleeping
 * so the mean rate holds on a loaded machine. */
static gpointer
feed_thread (gpointer data)
{
  Feeder *f = data;
  /* µs between packets */
  const gint64 interval = (gint64) PACKET_BYTES * 8 * 1000 / SOURCE_KBPS;

  for (;;) {
    gint64 elapsed = g_get_monotonic_time () - f->start;
    guint64 due;

    if (elapsed >= RUN_USEC)
      break;
    due = (guint64) (elapsed / interval) + 1;
    while (f->pushed < due) {
      GstBuffer *buf = gst_buffer_new_allocate (NULL, PACKET_BYTES, NULL);
      GstFlowReturn ret;

      gst_buffer_memset (buf, 0, 0x5a, PACKET_BYTES);
      g_signal_emit_by_name (f->appsrc, "push-buffer", buf, &ret);
      gst_buffer_unref (buf);
      if (ret != GST_FLOW_OK)
        return NULL;
      f->pushed++;
    }
    g_usleep (1000);
  }
  {
    GstFlowReturn ret;

    g_signal_emit_by_name (f->appsrc, "end-of-stream", &ret);
  }
  return NULL;
}

static guint64
stats_u64 (GstElement * linkemu, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (linkemu, "stats", &s, NULL);
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint64 (s, field, &v));
  gst_structure_free (s);
  return v;
}

GST_START_TEST (test_delivered_rate)
{
  GError *err = NULL;
  GstElement *pipeline, *appsrc, *sink, *linkemu;
  GstStateChangeReturn sret;
  Counter counter = { 0, };
  Feeder feeder = { 0, };
  GThread *thread;
  GstMessage *msg;
  GstBus *bus;
  gdouble kbps;
  gchar *desc;

  desc = g_strdup_printf ("appsrc name=src is-live=true format=time "
      "do-timestamp=true ! linkemu name=link rate=%d queue-ms=100 ! "
      "fakesink name=sink sync=false signal-handoffs=true", LINK_KBPS);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  fail_unless (pipeline != NULL, "%s", err ? err->message : "?");
  appsrc = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  linkemu = gst_bin_get_by_name (GST_BIN (pipeline), "link");

  g_mutex_init (&counter.lock);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &counter);

  /* live: the sink completes its state change with the first buffer */
  sret = gst_element_set_state (pipeline, GST_STATE_PLAYING);
  fail_unless (sret != GST_STATE_CHANGE_FAILURE);

  g_mutex_lock (&counter.lock);
  counter.start = g_get_monotonic_time ();
  g_mutex_unlock (&counter.lock);
  feeder.appsrc = appsrc;
  feeder.start = counter.start;
  thread = g_thread_new ("feeder", feed_thread, &feeder);

  /* EOS once the feeder stops and the link has drained (queue <= 100 ms) */
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_thread_join (thread);

  kbps = (gdouble) counter.window_bytes * 8.0 /
      ((gdouble) (WINDOW_TO - WINDOW_FROM) / G_USEC_PER_SEC) / 1000.0;
  GST_INFO ("pushed %" G_GUINT64_FORMAT " buffers, got %" G_GUINT64_FORMAT
      " (%" G_GUINT64_FORMAT " bytes), %.1f kbit/s in the window; "
      "queue drops %" G_GUINT64_FORMAT ", max queue delay %" GST_TIME_FORMAT,
      feeder.pushed, counter.buffers, counter.total_bytes, kbps,
      stats_u64 (linkemu, "queue-drops"),
      GST_TIME_ARGS (stats_u64 (linkemu, "max-queue-delay")));
  g_print ("linkemu rate=%d: delivered %.1f kbit/s in [%.1f s, %.1f s)\n",
      LINK_KBPS, kbps, (gdouble) WINDOW_FROM / G_USEC_PER_SEC,
      (gdouble) WINDOW_TO / G_USEC_PER_SEC);

  /* the source really overloaded the link */
  fail_unless (feeder.pushed * PACKET_BYTES * 8 / 1000 >
      (guint64) (1.5 * LINK_KBPS * RUN_USEC / G_USEC_PER_SEC));
  fail_unless (stats_u64 (linkemu, "queue-drops") > 0);
  /* the drop-tail queue bounds the queueing delay: 100 ms + one packet */
  fail_unless (stats_u64 (linkemu, "max-queue-delay") <= 105 * GST_MSECOND);
  /* everything accepted was delivered before EOS */
  fail_unless_equals_uint64 (stats_u64 (linkemu, "packets-delivered"),
      counter.buffers);
  fail_unless_equals_uint64 (stats_u64 (linkemu, "packets-in-flight"), 0);

  fail_unless (kbps > 0.85 * LINK_KBPS && kbps < 1.15 * LINK_KBPS,
      "delivered %.1f kbit/s, expected %d +/- 15 %%", kbps, LINK_KBPS);

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (appsrc);
  gst_object_unref (sink);
  gst_object_unref (linkemu);
  gst_object_unref (pipeline);
  g_mutex_clear (&counter.lock);
}

GST_END_TEST;

/* --- UDP relay ------------------------------------------------------------ */

/* The local port a udpsrc with port=0 got bound to. */
static guint16
udpsrc_bound_port (GstElement * udpsrc)
{
  GSocket *socket = NULL;
  GSocketAddress *addr;
  guint16 port;

  g_object_get (udpsrc, "used-socket", &socket, NULL);
  fail_unless (socket != NULL);
  addr = g_socket_get_local_address (socket, NULL);
  fail_unless (addr != NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (addr));
  g_object_unref (addr);
  g_object_unref (socket);
  fail_unless (port != 0);
  return port;
}

static GstElement *
start_pipeline (const gchar * desc)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);

  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "?");
  /* udpsrc binds its socket on the way, in READY->PAUSED; the live sinks
   * complete the change only once data flows */
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  return pipeline;
}

GST_START_TEST (test_udp_relay)
{
  const guint n = 50, size = 200;
  GstElement *rx, *relay, *rx_src, *rx_sink, *relay_src;
  Counter counter = { 0, };
  GSocketAddress *to;
  GSocket *socket;
  GError *err = NULL;
  gint64 sent_at, deadline;
  gchar payload[200];
  gchar *desc;
  guint i;

  g_mutex_init (&counter.lock);

  /* receiver: where the relay sends to */
  rx = start_pipeline ("udpsrc name=rx port=0 address=127.0.0.1 ! "
      "fakesink name=sink sync=false signal-handoffs=true");
  rx_src = gst_bin_get_by_name (GST_BIN (rx), "rx");
  rx_sink = gst_bin_get_by_name (GST_BIN (rx), "sink");
  g_signal_connect (rx_sink, "handoff", G_CALLBACK (on_handoff), &counter);

  /* relay: udpsrc ! linkemu ! udpsink, as in docs/linkemu.md */
  desc = g_strdup_printf ("udpsrc name=in port=0 address=127.0.0.1 ! "
      "linkemu rate=5000 queue-ms=300 delay=20 ! "
      "udpsink host=127.0.0.1 sync=false port=%u", udpsrc_bound_port (rx_src));
  relay = start_pipeline (desc);
  g_free (desc);
  relay_src = gst_bin_get_by_name (GST_BIN (relay), "in");

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, &err);
  fail_unless (socket != NULL, "%s", err ? err->message : "?");
  to = g_inet_socket_address_new_from_string ("127.0.0.1",
      udpsrc_bound_port (relay_src));

  memset (payload, 0x42, sizeof (payload));
  sent_at = g_get_monotonic_time ();
  for (i = 0; i < n; i++) {
    fail_unless_equals_int (g_socket_send_to (socket, to, payload, size,
            NULL, &err), size);
    g_usleep (2000);
  }

  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  for (;;) {
    guint64 got;

    g_mutex_lock (&counter.lock);
    got = counter.buffers;
    g_mutex_unlock (&counter.lock);
    if (got >= n || g_get_monotonic_time () > deadline)
      break;
    g_usleep (10000);
  }

  g_mutex_lock (&counter.lock);
  g_print ("udp relay: %" G_GUINT64_FORMAT "/%u datagrams, first after "
      "%.1f ms\n", counter.buffers, n,
      (gdouble) (counter.first - sent_at) / 1000.0);
  /* loopback without loss settings: all of it, and not before the delay */
  fail_unless_equals_uint64 (counter.buffers, n);
  fail_unless_equals_uint64 (counter.total_bytes, (guint64) n * size);
  fail_unless (counter.first - sent_at >= 19 * G_TIME_SPAN_MILLISECOND,
      "first packet after %" G_GINT64_FORMAT " us", counter.first - sent_at);
  g_mutex_unlock (&counter.lock);

  g_object_unref (to);
  g_object_unref (socket);
  fail_unless_equals_int (gst_element_set_state (relay, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (rx, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (relay_src);
  gst_object_unref (rx_src);
  gst_object_unref (rx_sink);
  gst_object_unref (relay);
  gst_object_unref (rx);
  g_mutex_clear (&counter.lock);
}

GST_END_TEST;

static Suite *
linkemu_realtime_suite (void)
{
  Suite *s = suite_create ("linkemu_realtime");
  TCase *tc = tcase_create ("realtime");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_delivered_rate);
  tcase_add_test (tc, test_udp_relay);
  return s;
}

GST_CHECK_MAIN (linkemu_realtime);

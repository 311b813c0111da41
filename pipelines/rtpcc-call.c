/* rtpcc-call: a loopback video call through an emulated bottleneck.
 *
 *   sender:   videotestsrc ! x264enc ! rtph264pay ! udpsink ──┐
 *   link:     udpsrc ! linkemu (RFC 8867 §5.1 schedule) ! udpsink ──┐
 *   receiver: udpsrc ! rtpjitterbuffer ! rtph264depay ! avdec_h264 ! fakesink
 *
 * Three independent pipelines talking UDP over 127.0.0.1, as a real call
 * would across a network. Prints one progress line per second, writes a CSV
 * for plotting, and a summary at the end.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>

#define RFC8867_5_1 "1000@0,2500@40,600@60,1000@80"

typedef struct
{
  /* options */
  gint duration;
  gchar *schedule;
  gint delay_ms;
  gint queue_ms;
  gint bitrate;
  gint width, height, fps;
  gchar *csv_path;
  gboolean quiet;

  GMainLoop *loop;
  GstElement *tx, *link, *rx;
  GstElement *emu;
  FILE *csv;
  gint64 t0;
  gint tick;
  gboolean failed;

  /* counters, updated from streaming threads */
  _Atomic gint64 tx_bytes, rx_bytes, rx_frames;
  /* previous tick's values */
  gint64 last_tx_bytes, last_rx_bytes, last_rx_frames;
  guint64 last_drops;

  /* per-second samples for the summary */
  GArray *qdelay_ms;
  gdouble sum_tx_kbps, sum_rx_kbps;
} Call;

static GstPadProbeReturn
count_bytes (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  _Atomic gint64 *counter = user_data;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
    atomic_fetch_add (counter,
        (gint64) gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info)));
  else if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    GstBufferList *l = GST_PAD_PROBE_INFO_BUFFER_LIST (info);
    for (guint i = 0; i < gst_buffer_list_length (l); i++)
      atomic_fetch_add (counter,
          (gint64) gst_buffer_get_size (gst_buffer_list_get (l, i)));
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_frames (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  atomic_fetch_add ((_Atomic gint64 *) user_data, 1);
  return GST_PAD_PROBE_OK;
}

static void
probe (GstElement * bin, const gchar * name, const gchar * pad_name,
    GstPadProbeCallback cb, gpointer data)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), name);
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, cb, data, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

/* Brings a pipeline whose udpsrc binds port 0 to PAUSED and returns the port
 * the kernel chose: no fixed ports, so parallel runs never collide. */
static gint
bound_port (GstElement * pipeline, const gchar * udpsrc_name)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), udpsrc_name);
  GSocket *sock = NULL;
  GSocketAddress *addr;
  gint port = -1;

  if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE)
    goto out;
  g_object_get (src, "used-socket", &sock, NULL);
  if (!sock)
    goto out;
  addr = g_socket_get_local_address (sock, NULL);
  if (addr) {
    port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (addr));
    g_object_unref (addr);
  }
  g_object_unref (sock);
out:
  gst_object_unref (src);
  return port;
}

static gboolean
on_bus (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Call *c = user_data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &err, &dbg);
      g_printerr ("ERROR from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
          err->message, dbg ? dbg : "");
      g_clear_error (&err);
      g_free (dbg);
      c->failed = TRUE;
      g_main_loop_quit (c->loop);
      break;
    }
    case GST_MESSAGE_WARNING:{
      GError *err = NULL;
      gst_message_parse_warning (msg, &err, NULL);
      g_printerr ("WARNING from %s: %s\n", GST_OBJECT_NAME (msg->src),
          err->message);
      g_clear_error (&err);
      break;
    }
    default:
      break;
  }
  return TRUE;
}

static gboolean
on_tick (gpointer user_data)
{
  Call *c = user_data;
  GstStructure *st = NULL;
  guint64 qdelay = 0, drops_q = 0, drops_l = 0, cap = 0;
  gint64 tx = atomic_load (&c->tx_bytes);
  gint64 rx = atomic_load (&c->rx_bytes);
  gint64 fr = atomic_load (&c->rx_frames);
  gdouble tx_kbps, rx_kbps, cap_kbps, qd_ms;
  guint64 drops;

  c->tick++;
  g_object_get (c->emu, "stats", &st, NULL);
  if (st) {
    gst_structure_get_uint64 (st, "queue-delay", &qdelay);
    gst_structure_get_uint64 (st, "queue-drops", &drops_q);
    gst_structure_get_uint64 (st, "loss-drops", &drops_l);
    gst_structure_get_uint64 (st, "capacity", &cap);
    gst_structure_free (st);
  }
  drops = drops_q + drops_l;
  tx_kbps = (tx - c->last_tx_bytes) * 8 / 1000.0;
  rx_kbps = (rx - c->last_rx_bytes) * 8 / 1000.0;
  cap_kbps = cap == G_MAXUINT64 ? -1 : cap / 1000.0;
  qd_ms = qdelay / 1e6;

  if (!c->quiet)
    g_print ("t=%3ds  link %6.0f kbit/s  sent %6.0f kbit/s  recv %6.0f "
        "kbit/s  queue %5.0f ms  drops +%-4" G_GUINT64_FORMAT " (%"
        G_GUINT64_FORMAT ")  %4.1f fps\n", c->tick, cap_kbps, tx_kbps,
        rx_kbps, qd_ms, drops - c->last_drops, drops,
        (gdouble) (fr - c->last_rx_frames));
  if (c->csv)
    fprintf (c->csv, "%d,%.1f,%.1f,%.1f,%.2f,%" G_GUINT64_FORMAT ",%"
        G_GUINT64_FORMAT ",%" G_GINT64_FORMAT "\n", c->tick, cap_kbps,
        tx_kbps, rx_kbps, qd_ms, drops_q, drops_l, fr - c->last_rx_frames);

  g_array_append_val (c->qdelay_ms, qd_ms);
  c->sum_tx_kbps += tx_kbps;
  c->sum_rx_kbps += rx_kbps;
  c->last_tx_bytes = tx;
  c->last_rx_bytes = rx;
  c->last_rx_frames = fr;
  c->last_drops = drops;

  if (c->tick >= c->duration) {
    g_main_loop_quit (c->loop);
    return G_SOURCE_REMOVE;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigint (gpointer user_data)
{
  Call *c = user_data;
  g_printerr ("interrupted\n");
  g_main_loop_quit (c->loop);
  return G_SOURCE_REMOVE;
}

static GstElement *
launch (const gchar * desc, Call * c)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstBus *bus;

  if (!p) {
    g_printerr ("cannot build pipeline \"%s\": %s\n", desc, err->message);
    g_clear_error (&err);
    return NULL;
  }
  if (err) {                    /* e.g. a missing optional element */
    g_printerr ("pipeline \"%s\": %s\n", desc, err->message);
    g_clear_error (&err);
    gst_object_unref (p);
    return NULL;
  }
  bus = gst_element_get_bus (p);
  gst_bus_add_watch (bus, on_bus, c);
  gst_object_unref (bus);
  return p;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

static void
summary (Call * c)
{
  GstStructure *st = NULL;
  guint64 pin = 0, pdel = 0, dq = 0, dl = 0, maxq = 0;
  guint n = c->qdelay_ms->len;
  gdouble mean = 0, p95 = 0;

  g_object_get (c->emu, "stats", &st, NULL);
  if (st) {
    gst_structure_get_uint64 (st, "packets-in", &pin);
    gst_structure_get_uint64 (st, "packets-delivered", &pdel);
    gst_structure_get_uint64 (st, "queue-drops", &dq);
    gst_structure_get_uint64 (st, "loss-drops", &dl);
    gst_structure_get_uint64 (st, "max-queue-delay", &maxq);
    gst_structure_free (st);
  }
  if (n > 0) {
    for (guint i = 0; i < n; i++)
      mean += g_array_index (c->qdelay_ms, gdouble, i);
    mean /= n;
    g_array_sort (c->qdelay_ms, cmp_double);
    p95 = g_array_index (c->qdelay_ms, gdouble, MIN (n - 1, (guint) (0.95 * n)));
  }
  g_print ("\n== summary (%u s, link %s, encoder %d kbit/s fixed)\n", n,
      c->schedule, c->bitrate);
  g_print ("sent     %8.0f kbit/s mean\n", n ? c->sum_tx_kbps / n : 0.0);
  g_print ("received %8.0f kbit/s mean\n", n ? c->sum_rx_kbps / n : 0.0);
  g_print ("packets  %" G_GUINT64_FORMAT " into the link, %" G_GUINT64_FORMAT
      " delivered, %" G_GUINT64_FORMAT " queue drops (%.1f %%), %"
      G_GUINT64_FORMAT " loss drops\n", pin, pdel, dq,
      pin ? 100.0 * dq / pin : 0.0, dl);
  g_print ("queue    mean %.0f ms, p95 %.0f ms (1 s samples), max %.0f ms\n",
      mean, p95, maxq / 1e6);
  g_print ("video    %" G_GINT64_FORMAT " frames decoded (%.1f fps)\n",
      (gint64) atomic_load (&c->rx_frames),
      n ? (gdouble) atomic_load (&c->rx_frames) / n : 0.0);
}

int
main (int argc, char **argv)
{
  Call c = { 0, };
  gchar *desc;
  gint rx_port, link_port;
  GError *err = NULL;
  GOptionContext *ctx;
  GOptionEntry entries[] = {
    {"duration", 'd', 0, G_OPTION_ARG_INT, &c.duration,
        "Seconds to run (default 100, the length of RFC 8867 §5.1)", "S"},
    {"schedule", 's', 0, G_OPTION_ARG_STRING, &c.schedule,
        "Link capacity schedule kbit/s@s,... (default RFC 8867 §5.1)", "SCHED"},
    {"delay", 0, 0, G_OPTION_ARG_INT, &c.delay_ms,
        "One-way propagation delay in ms (default 50)", "MS"},
    {"queue", 0, 0, G_OPTION_ARG_INT, &c.queue_ms,
        "Bottleneck queue in ms at current capacity (default 300)", "MS"},
    {"bitrate", 'b', 0, G_OPTION_ARG_INT, &c.bitrate,
        "Encoder bitrate in kbit/s (default 1200)", "KBPS"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &c.csv_path,
        "Write per-second samples to this CSV file", "FILE"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &c.quiet,
        "No progress lines, only the summary", NULL},
    {NULL}
  };

  c.duration = 100;
  c.delay_ms = 50;
  c.queue_ms = 300;
  c.bitrate = 1200;
  c.width = 640;
  c.height = 360;
  c.fps = 30;

  ctx = g_option_context_new ("- loopback video call through linkemu");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!c.schedule)
    c.schedule = g_strdup (RFC8867_5_1);
  if (c.duration <= 0 || c.bitrate <= 0 || c.delay_ms < 0 || c.queue_ms < 0) {
    g_printerr ("duration and bitrate must be > 0, delay and queue >= 0\n");
    return 2;
  }

  {
    GstPluginFeature *f = gst_registry_lookup_feature (gst_registry_get (),
        "linkemu");
    if (f)
      gst_object_unref (f);
    else {
    g_printerr ("linkemu not found: run through ./run demo, or set "
        "GST_PLUGIN_PATH to the build tree's plugins/\n");
      return 1;
    }
  }

  c.loop = g_main_loop_new (NULL, FALSE);
  c.qdelay_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));

  c.rx = launch ("udpsrc name=rxsrc address=127.0.0.1 port=0 "
      "caps=\"application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96\" ! rtpjitterbuffer latency=100 ! "
      "rtph264depay ! h264parse ! avdec_h264 ! fakesink name=vsink sync=false",
      &c);
  if (!c.rx)
    return 1;
  rx_port = bound_port (c.rx, "rxsrc");

  desc = g_strdup_printf ("udpsrc name=linksrc address=127.0.0.1 port=0 "
      "buffer-size=4194304 ! linkemu name=emu schedule=%s queue-ms=%d delay=%d "
      "! udpsink host=127.0.0.1 port=%d sync=false async=false",
      c.schedule, c.queue_ms, c.delay_ms, rx_port);
  c.link = launch (desc, &c);
  g_free (desc);
  if (!c.link)
    return 1;
  link_port = bound_port (c.link, "linksrc");
  if (rx_port <= 0 || link_port <= 0) {
    g_printerr ("could not bind UDP sockets on 127.0.0.1\n");
    return 1;
  }
  c.emu = gst_bin_get_by_name (GST_BIN (c.link), "emu");

  desc = g_strdup_printf ("videotestsrc is-live=true pattern=ball "
      "motion=sweep background-color=0xff203040 ! "
      "video/x-raw,width=%d,height=%d,framerate=%d/1 ! timeoverlay ! "
      "x264enc name=enc tune=zerolatency speed-preset=ultrafast bitrate=%d "
      "key-int-max=%d vbv-buf-capacity=300 ! "
      "video/x-h264,profile=constrained-baseline ! "
      "rtph264pay pt=96 mtu=1200 config-interval=-1 ! "
      "udpsink name=txsink host=127.0.0.1 port=%d sync=false async=false",
      c.width, c.height, c.fps, c.bitrate, c.fps * 2, link_port);
  c.tx = launch (desc, &c);
  g_free (desc);
  if (!c.tx)
    return 1;

  probe (c.tx, "txsink", "sink", count_bytes, &c.tx_bytes);
  probe (c.rx, "rxsrc", "src", count_bytes, &c.rx_bytes);
  probe (c.rx, "vsink", "sink", count_frames, &c.rx_frames);

  if (c.csv_path) {
    c.csv = fopen (c.csv_path, "w");
    if (!c.csv) {
      g_printerr ("cannot write %s\n", c.csv_path);
      return 1;
    }
    fprintf (c.csv, "# rtpcc-call schedule=%s delay_ms=%d queue_ms=%d "
        "bitrate_kbps=%d\n", c.schedule, c.delay_ms, c.queue_ms, c.bitrate);
    fprintf (c.csv, "time_s,capacity_kbps,send_kbps,recv_kbps,queue_delay_ms,"
        "queue_drops,loss_drops,frames\n");
  }

  g_print ("call: %dx%d@%d x264 %d kbit/s -> 127.0.0.1:%d -> linkemu [%s, "
      "queue %d ms, delay %d ms] -> 127.0.0.1:%d, %d s\n", c.width, c.height,
      c.fps, c.bitrate, link_port, c.schedule, c.queue_ms, c.delay_ms, rx_port,
      c.duration);

  gst_element_set_state (c.rx, GST_STATE_PLAYING);
  gst_element_set_state (c.link, GST_STATE_PLAYING);
  gst_element_set_state (c.tx, GST_STATE_PLAYING);

  g_timeout_add_seconds (1, on_tick, &c);
  g_unix_signal_add (SIGINT, on_sigint, &c);
  g_main_loop_run (c.loop);

  gst_element_set_state (c.tx, GST_STATE_NULL);
  if (!c.failed)
    summary (&c);
  gst_element_set_state (c.link, GST_STATE_NULL);
  gst_element_set_state (c.rx, GST_STATE_NULL);
  if (c.csv)
    fclose (c.csv);

  gst_object_unref (c.emu);
  gst_object_unref (c.tx);
  gst_object_unref (c.link);
  gst_object_unref (c.rx);
  g_array_free (c.qdelay_ms, TRUE);
  g_main_loop_unref (c.loop);
  g_free (c.schedule);
  g_free (c.csv_path);
  return c.failed ? 1 : 0;
}

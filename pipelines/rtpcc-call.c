/* rtpcc-call: an adaptive loopback video call through an emulated path.
 *
 *   videotestsrc ! x264enc ! rtph264pay ! rtpccsink ─▶ relay (linkemu both
 *   ways) ─▶ rtpccsrc ! rtpjitterbuffer ! rtph264depay ! avdec_h264 ! fakesink
 *
 * rtpccsink's controller sets x264enc's bitrate (encoder-control=auto); the
 * receiver's feedback returns through the relay's reverse linkemu. Prints a
 * progress line per second, writes a 200 ms CSV log in the simulator's
 * columns (so one plotting script serves both) and a summary at the end.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>

#include <rtpcc/controller.h>

#include "relay.h"

#define RFC8867_5_1 "1000@0,2500@40,600@60,1000@80"

typedef struct
{
  /* options */
  gint duration;
  gchar *schedule;
  gint delay_ms;
  gint queue_ms;
  gdouble loss;
  gchar *controller;
  gint min_kbps, max_kbps, start_kbps;
  gint width, height, fps;
  gchar *csv_path;
  gboolean quiet;

  GMainLoop *loop;
  GstElement *tx, *rx;
  GstElement *sink, *src, *enc, *emu;
  RtpccRelay *relay;
  FILE *csv;
  gint ticks;                   /* 200 ms ticks */
  gboolean failed;

  _Atomic gint64 tx_bytes, rx_bytes, rx_frames;
  gint64 last_tx_bytes, last_rx_bytes, last_rx_frames, sec_rx_bytes;
  gint64 sec_rx_frames;
  guint64 last_drops, last_lost_in, last_pkts_in;

  /* for the summary */
  GArray *qdelay_ms;            /* per 200 ms */
  GArray *util;                 /* recv/capacity per 200 ms */
  gdouble sum_rx_kbps, sum_target_kbps;
  guint breaker_trips;
  gboolean breaker_was;
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
probe (GstElement * e, const gchar * pad_name, GstPadProbeCallback cb,
    gpointer data)
{
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, cb, data, NULL);
  gst_object_unref (pad);
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

static guint64
st_u64 (const GstStructure * s, const gchar * f)
{
  guint64 v = 0;
  if (s)
    gst_structure_get_uint64 (s, f, &v);
  return v;
}

static gboolean
on_tick (gpointer user_data)
{
  Call *c = user_data;
  GstStructure *ss = NULL, *ls = NULL;
  gint64 tx = atomic_load (&c->tx_bytes);
  gint64 rx = atomic_load (&c->rx_bytes);
  gint64 fr = atomic_load (&c->rx_frames);
  gdouble dt = 0.2, t, cap_kbps, target_kbps, send_kbps, recv_kbps, qd_ms,
      rtt_ms, loss_pct, enc_kbps = 0;
  guint64 cap, drops, pkts_in, lost_in;
  gboolean tripped = FALSE, unlimited = FALSE;
  const gchar *state = "";
  guint enc_bitrate = 0;

  c->ticks++;
  t = c->ticks * dt;
  g_object_get (c->sink, "stats", &ss, NULL);
  g_object_get (c->emu, "stats", &ls, NULL);
  g_object_get (c->enc, "bitrate", &enc_bitrate, NULL);
  enc_kbps = enc_bitrate;

  cap = st_u64 (ls, "capacity");
  if (ls)
    gst_structure_get_boolean (ls, "unlimited", &unlimited);
  cap_kbps = unlimited ? -1 : cap / 1000.0;
  qd_ms = st_u64 (ls, "queue-delay") / 1e6;
  drops = st_u64 (ls, "queue-drops") + st_u64 (ls, "loss-drops");
  pkts_in = st_u64 (ls, "packets-in");
  lost_in = drops - c->last_drops;
  loss_pct = pkts_in > c->last_pkts_in ?
      100.0 * lost_in / (pkts_in - c->last_pkts_in) : 0.0;
  target_kbps = st_u64 (ss, "target-bitrate") / 1000.0;
  rtt_ms = st_u64 (ss, "rtt") / 1e6;
  if (ss) {
    gst_structure_get_boolean (ss, "breaker-tripped", &tripped);
    state = gst_structure_get_string (ss, "state");
  }
  send_kbps = (tx - c->last_tx_bytes) * 8 / 1000.0 / dt;
  recv_kbps = (rx - c->last_rx_bytes) * 8 / 1000.0 / dt;

  if (c->csv)
    fprintf (c->csv, "%.1f,%.1f,%.1f,%.1f,%.1f,%.2f,%.2f,%.2f,%.0f,%"
        G_GINT64_FORMAT ",%d\n", t, cap_kbps, target_kbps, send_kbps,
        recv_kbps, qd_ms, loss_pct, rtt_ms, enc_kbps, fr - c->last_rx_frames,
        tripped);
  g_array_append_val (c->qdelay_ms, qd_ms);
  if (cap_kbps > 0) {
    gdouble u = recv_kbps / cap_kbps;
    g_array_append_val (c->util, u);
  }
  c->sum_rx_kbps += recv_kbps;
  c->sum_target_kbps += target_kbps;
  if (tripped && !c->breaker_was)
    c->breaker_trips++;
  c->breaker_was = tripped;

  if (c->ticks % 5 == 0 && !c->quiet) {
    gdouble sec_recv = (rx - c->sec_rx_bytes) * 8 / 1000.0;
    g_print ("t=%3.0fs link %5.0f  target %5.0f  enc %5.0f  recv %5.0f kbit/s"
        "  rtt %4.0f ms  queue %4.0f ms  loss %4.1f%%  %4.1f fps  %s%s\n",
        t, cap_kbps, target_kbps, enc_kbps, sec_recv, rtt_ms, qd_ms, loss_pct,
        (gdouble) (fr - c->sec_rx_frames), state ? state : "",
        tripped ? " [BREAKER]" : "");
    c->sec_rx_bytes = rx;
    c->sec_rx_frames = fr;
  }

  c->last_tx_bytes = tx;
  c->last_rx_bytes = rx;
  c->last_rx_frames = fr;
  c->last_drops = drops;
  c->last_pkts_in = pkts_in;
  (void) lost_in;
  if (ss)
    gst_structure_free (ss);
  if (ls)
    gst_structure_free (ls);

  if (t >= c->duration - 1e-9) {
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

static void
watch (GstElement * p, Call * c)
{
  GstBus *bus = gst_element_get_bus (p);
  gst_bus_add_watch (bus, on_bus, c);
  gst_object_unref (bus);
}

static GstElement *
launch (const gchar * desc, Call * c)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  if (!p || err) {
    g_printerr ("cannot build pipeline \"%s\": %s\n", desc,
        err ? err->message : "?");
    g_clear_error (&err);
    if (p)
      gst_object_unref (p);
    return NULL;
  }
  watch (p, c);
  return p;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

static gdouble
percentile (GArray * a, gdouble p)
{
  if (a->len == 0)
    return 0;
  g_array_sort (a, cmp_double);
  return g_array_index (a, gdouble, MIN (a->len - 1, (guint) (p * a->len)));
}

static void
summary (Call * c)
{
  GstStructure *ss = NULL, *ls = NULL, *rs = NULL;
  guint n = c->ticks;
  gdouble mean_q = 0;

  g_object_get (c->sink, "stats", &ss, NULL);
  g_object_get (c->emu, "stats", &ls, NULL);
  g_object_get (c->src, "stats", &rs, NULL);
  for (guint i = 0; i < c->qdelay_ms->len; i++)
    mean_q += g_array_index (c->qdelay_ms, gdouble, i);
  if (c->qdelay_ms->len)
    mean_q /= c->qdelay_ms->len;

  g_print ("\n== summary: controller %s, %.0f s, link %s, delay %d ms, "
      "queue %d ms, loss %.3f\n", c->controller, n * 0.2, c->schedule,
      c->delay_ms, c->queue_ms, c->loss);
  g_print ("rates     target %.0f kbit/s mean, received %.0f kbit/s mean\n",
      n ? c->sum_target_kbps / n : 0.0, n ? c->sum_rx_kbps / n : 0.0);
  g_print ("link      utilisation p50 %.2f (200 ms samples), %" G_GUINT64_FORMAT
      " packets in, %" G_GUINT64_FORMAT " queue drops, %" G_GUINT64_FORMAT
      " loss drops\n", percentile (c->util, 0.5), st_u64 (ls, "packets-in"),
      st_u64 (ls, "queue-drops"), st_u64 (ls, "loss-drops"));
  g_print ("queue     mean %.0f ms, p95 %.0f ms, max %.0f ms\n", mean_q,
      percentile (c->qdelay_ms, 0.95), st_u64 (ls, "max-queue-delay") / 1e6);
  g_print ("feedback  %" G_GUINT64_FORMAT " RTCP received by the sender, %"
      G_GUINT64_FORMAT " feedback packets sent by the receiver, srtt %.0f ms\n",
      st_u64 (ss, "rtcp-received"), st_u64 (rs, "feedback-sent"),
      st_u64 (ss, "rtt") / 1e6);
  g_print ("breaker   %u trip(s)\n", c->breaker_trips);
  g_print ("video     %" G_GINT64_FORMAT " frames decoded (%.1f fps)\n",
      (gint64) atomic_load (&c->rx_frames), n ?
      atomic_load (&c->rx_frames) / (n * 0.2) : 0.0);
  if (ss)
    gst_structure_free (ss);
  if (ls)
    gst_structure_free (ls);
  if (rs)
    gst_structure_free (rs);
}

static gboolean
have_elements (const gchar * const *names)
{
  gboolean ok = TRUE;
  for (; *names; names++) {
    GstElementFactory *f = gst_element_factory_find (*names);
    if (!f) {
      g_printerr ("missing element %s%s\n", *names,
          g_str_has_prefix (*names, "rtpcc") || !strcmp (*names, "linkemu") ?
          " (run through ./run demo, or set GST_PLUGIN_PATH to the build "
          "tree's plugins/)" : "");
      ok = FALSE;
    } else
      gst_object_unref (f);
  }
  return ok;
}

int
main (int argc, char **argv)
{
  Call c = { 0, };
  gchar *desc, *fwd, *rev;
  gint rx_port, tx_port;
  GError *err = NULL;
  GOptionContext *ctx;
  RtpccRelayConfig rc = { 0, };
  gchar **controllers = rtpcc_controller_list ();
  gchar *known = g_strjoinv (", ", controllers);
  gchar *controller_help = g_strdup_printf ("Congestion controller: %s "
      "(default tfrc)", known);
  static const gchar *const needed[] = { "rtpccsink", "rtpccsrc", "linkemu",
    "timeoverlay", "x264enc", "avdec_h264", "rtph264pay", "rtph264depay",
    "h264parse", NULL
  };
  GOptionEntry entries[] = {
    {"controller", 'c', 0, G_OPTION_ARG_STRING, &c.controller,
        controller_help, "NAME"},
    {"duration", 'd', 0, G_OPTION_ARG_INT, &c.duration,
        "Seconds to run (default 100, the length of RFC 8867 section 5.1)",
        "S"},
    {"schedule", 's', 0, G_OPTION_ARG_STRING, &c.schedule,
        "Capacity schedule kbit/s@s,... (default RFC 8867 section 5.1)",
        "SCHED"},
    {"delay", 0, 0, G_OPTION_ARG_INT, &c.delay_ms,
        "One-way propagation delay in ms, each direction (default 50)", "MS"},
    {"queue", 0, 0, G_OPTION_ARG_INT, &c.queue_ms,
        "Bottleneck queue in ms at current capacity (default 300)", "MS"},
    {"loss", 0, 0, G_OPTION_ARG_DOUBLE, &c.loss,
        "Random loss probability on the forward path (default 0)", "P"},
    {"min-bitrate", 0, 0, G_OPTION_ARG_INT, &c.min_kbps,
        "Lowest target in kbit/s (default 150)", "KBPS"},
    {"max-bitrate", 0, 0, G_OPTION_ARG_INT, &c.max_kbps,
        "Highest target in kbit/s (default 3000)", "KBPS"},
    {"start-bitrate", 0, 0, G_OPTION_ARG_INT, &c.start_kbps,
        "Initial target in kbit/s (default 300)", "KBPS"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &c.csv_path,
        "Write the 200 ms log to this CSV file", "FILE"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &c.quiet,
        "No progress lines, only the summary", NULL},
    {NULL}
  };

  c.duration = 100;
  c.delay_ms = 50;
  c.queue_ms = 300;
  c.min_kbps = 150;
  c.max_kbps = 3000;
  c.start_kbps = 300;
  c.width = 640;
  c.height = 360;
  c.fps = 30;

  /* help and messages in the user's language and charset; numbers stay
   * in the C format, since they go into the CSV and pipeline descriptions */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  ctx = g_option_context_new ("- adaptive loopback video call through "
      "an emulated path");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  g_free (controller_help);
  if (!c.schedule)
    c.schedule = g_strdup (RFC8867_5_1);
  if (!c.controller)
    c.controller = g_strdup ("tfrc");
  if (!g_strv_contains ((const gchar * const *) controllers, c.controller)) {
    g_printerr ("unknown controller \"%s\" (known: %s)\n", c.controller,
        known);
    return 2;
  }
  g_strfreev (controllers);
  g_free (known);
  if (c.duration <= 0 || c.delay_ms < 0 || c.queue_ms < 0 || c.loss < 0
      || c.loss > 1 || c.min_kbps <= 0 || c.max_kbps < c.min_kbps
      || c.start_kbps < c.min_kbps || c.start_kbps > c.max_kbps) {
    g_printerr ("bad option values (see --help)\n");
    return 2;
  }
  if (!have_elements (needed))
    return 1;

  c.loop = g_main_loop_new (NULL, FALSE);
  c.qdelay_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  c.util = g_array_new (FALSE, FALSE, sizeof (gdouble));

  /* receiver */
  c.rx = launch ("rtpccsrc name=src port=0 address=127.0.0.1 "
      "caps=\"application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264,payload=96\" ! rtpjitterbuffer latency=100 ! "
      "rtph264depay ! h264parse ! avdec_h264 ! fakesink name=vsink sync=false",
      &c);
  if (!c.rx)
    return 1;
  gst_element_set_state (c.rx, GST_STATE_PAUSED);
  c.src = gst_bin_get_by_name (GST_BIN (c.rx), "src");
  g_object_get (c.src, "bound-port", &rx_port, NULL);

  /* the emulated path */
  fwd = g_strdup_printf ("schedule=%s queue-ms=%d delay=%d loss=%g seed=1",
      c.schedule, c.queue_ms, c.delay_ms, c.loss);
  rev = g_strdup_printf ("delay=%d", c.delay_ms);
  rc.listen_port = 0;
  rc.receiver_host = (gchar *) "127.0.0.1";
  rc.receiver_port = rx_port;
  rc.forward = fwd;
  rc.reverse = rev;
  c.relay = rtpcc_relay_new (&rc, &err);
  g_free (fwd);
  g_free (rev);
  if (!c.relay) {
    g_printerr ("relay: %s\n", err ? err->message : "?");
    return 1;
  }
  watch (rtpcc_relay_get_forward (c.relay), &c);
  watch (rtpcc_relay_get_reverse (c.relay), &c);
  c.emu = gst_object_ref (rtpcc_relay_get_forward_emu (c.relay));

  /* sender: smpte with motion keeps x264 at its target (a static ball
   * pattern would stay far below it and hide congestion) */
  desc = g_strdup_printf ("videotestsrc is-live=true pattern=smpte "
      "horizontal-speed=4 ! video/x-raw,width=%d,height=%d,framerate=%d/1 ! "
      "timeoverlay ! x264enc name=enc tune=zerolatency speed-preset=ultrafast "
      "bitrate=%d key-int-max=%d ! video/x-h264,profile=constrained-baseline ! "
      "rtph264pay pt=96 mtu=1200 config-interval=-1 ! "
      "rtpccsink name=sink host=127.0.0.1 port=%d controller=%s "
      "min-bitrate=%d max-bitrate=%d start-bitrate=%d",
      c.width, c.height, c.fps, c.start_kbps, c.fps * 4,
      rtpcc_relay_get_listen_port (c.relay), c.controller, c.min_kbps * 1000,
      c.max_kbps * 1000, c.start_kbps * 1000);
  c.tx = launch (desc, &c);
  g_free (desc);
  if (!c.tx)
    return 1;
  c.sink = gst_bin_get_by_name (GST_BIN (c.tx), "sink");
  c.enc = gst_bin_get_by_name (GST_BIN (c.tx), "enc");
  if (gst_element_set_state (c.tx, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE) {
    GstBus *bus = gst_element_get_bus (c.tx);
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (m) {
      GError *e = NULL;
      gst_message_parse_error (m, &e, NULL);
      g_printerr ("sender: %s\n", e->message);
      g_clear_error (&e);
      gst_message_unref (m);
    }
    gst_object_unref (bus);
    return 1;
  }
  g_object_get (c.sink, "bound-port", &tx_port, NULL);

  probe (c.sink, "sink", count_bytes, &c.tx_bytes);
  probe (c.src, "src", count_bytes, &c.rx_bytes);
  {
    GstElement *vsink = gst_bin_get_by_name (GST_BIN (c.rx), "vsink");
    probe (vsink, "sink", count_frames, &c.rx_frames);
    gst_object_unref (vsink);
  }

  if (c.csv_path) {
    c.csv = fopen (c.csv_path, "w");
    if (!c.csv) {
      g_printerr ("cannot write %s\n", c.csv_path);
      return 1;
    }
    fprintf (c.csv, "# rtpcc-call controller=%s schedule=%s delay_ms=%d "
        "queue_ms=%d loss=%g\n", c.controller, c.schedule, c.delay_ms,
        c.queue_ms, c.loss);
    fprintf (c.csv, "time_s,capacity_kbps,target_kbps,send_kbps,recv_kbps,"
        "queue_delay_ms,loss_pct,rtt_ms,encoder_kbps,frames,breaker\n");
  }

  g_print ("call: %dx%d@%d x264 -> rtpccsink(%s, :%d) -> relay :%d [%s, queue "
      "%d ms, delay %d ms each way, loss %g] -> rtpccsrc :%d, %d s\n", c.width,
      c.height, c.fps, c.controller, tx_port,
      rtpcc_relay_get_listen_port (c.relay), c.schedule, c.queue_ms,
      c.delay_ms, c.loss, rx_port, c.duration);

  gst_element_set_state (c.rx, GST_STATE_PLAYING);
  rtpcc_relay_start (c.relay);
  gst_element_set_state (c.tx, GST_STATE_PLAYING);

  g_timeout_add (200, on_tick, &c);
  g_unix_signal_add (SIGINT, on_sigint, &c);
  g_main_loop_run (c.loop);

  if (!c.failed)
    summary (&c);
  gst_element_set_state (c.tx, GST_STATE_NULL);
  rtpcc_relay_stop (c.relay);
  gst_element_set_state (c.rx, GST_STATE_NULL);
  if (c.csv)
    fclose (c.csv);

  gst_object_unref (c.sink);
  gst_object_unref (c.enc);
  gst_object_unref (c.src);
  gst_object_unref (c.emu);
  gst_object_unref (c.tx);
  gst_object_unref (c.rx);
  rtpcc_relay_free (c.relay);
  g_array_free (c.qdelay_ms, TRUE);
  g_array_free (c.util, TRUE);
  g_main_loop_unref (c.loop);
  g_free (c.schedule);
  g_free (c.controller);
  g_free (c.csv_path);
  return c.failed ? 1 : 0;
}

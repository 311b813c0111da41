/* rtpcc-fec-call: a loopback video call protected by fecenc/fecdec through
 * a lossy linkemu, printing a progress line per second with the FEC rate,
 * the link's losses and the packets fecdec recovered.
 *
 *   rtpcc-fec-call [--duration S] [--loss P] [--burst B] [--scheme xor|rs|
 *       xor-2d] [--n N] [--k K] [--m M] [--bitrate KBPS] [--delay MS]
 *       [--no-fec] [--controller NAME]
 *
 * Without --controller, one pipeline at a fixed bitrate:
 *   videotestsrc ! vp8enc ! rtpvp8pay ! fecenc ! linkemu ! fecdec ! ...
 * With --controller (e.g. fbra, gcc), a real transport through UDP and the
 * relay (linkemu both ways), the controller driving vp8enc and, through the
 * "rtpcc-target" upstream event, fecenc's N (follow-target):
 *   ... ! fecenc ! rtpccsink ─▶ relay ─▶ rtpccsrc ! fecdec ! rtpvp8depay ! ...
 *
 * --burst B > 1 switches the link to Gilbert-Elliott loss with the same
 * mean loss and mean burst length B packets.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <glib-unix.h>
#include <locale.h>
#include <stdio.h>

#include <rtpcc/controller.h>

#include "relay.h"

/* smpte with motion keeps vp8enc near its target (snow would exceed it,
 * a static pattern stay far below) */
#define SOURCE "videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! " \
  "video/x-raw,width=640,height=360,framerate=30/1 ! vp8enc name=venc " \
  "deadline=1 cpu-used=8 end-usage=cbr target-bitrate=%d " \
  "keyframe-max-dist=60 ! rtpvp8pay pt=96 mtu=1200"

typedef struct
{
  GMainLoop *loop;
  GstElement *pipeline, *enc, *link, *dec;
  GstElement *rx, *sink;        /* --controller: receiver pipeline, rtpccsink */
  RtpccRelay *relay;
  guint64 frames;
  gint elapsed;
  gint duration;
  gint ret;
} Call;

static guint64
get_u64 (const GstStructure * s, const gchar * f)
{
  guint64 v = 0;

  gst_structure_get_uint64 (s, f, &v);
  return v;
}

static void
print_line (Call * c, gboolean summary)
{
  GstStructure *es, *ls, *ds;
  guint n = 0;
  gboolean on = FALSE;

  g_object_get (c->enc, "stats", &es, NULL);
  g_object_get (c->link, "stats", &ls, NULL);
  g_object_get (c->dec, "stats", &ds, NULL);
  gst_structure_get_uint (es, "n", &n);
  gst_structure_get_boolean (es, "enabled", &on);
  if (!summary) {
    guint target = 0;

    if (c->sink)
      g_object_get (c->sink, "target-bitrate", &target, NULL);
    g_print ("t=%3ds ", c->elapsed);
    if (c->sink)
      g_print ("target %5.0f ", target / 1e3);
    g_print ("media %5.0f fec %4.0f kbit/s (n=%u%s)  link lost %4"
        G_GUINT64_FORMAT "  recovered %4" G_GUINT64_FORMAT "  unrecoverable %4"
        G_GUINT64_FORMAT "  late %3" G_GUINT64_FORMAT "  frames %5"
        G_GUINT64_FORMAT "\n", get_u64 (es, "media-bitrate") / 1e3,
        get_u64 (es, "fec-bitrate") / 1e3, n, on ? "" : ", off",
        get_u64 (ls, "loss-drops"), get_u64 (ds, "recovered"),
        get_u64 (ds, "unrecoverable"), get_u64 (ds, "late-recovered"),
        c->frames);
  } else {
    guint64 media = get_u64 (es, "media-packets");
    guint64 unrec = get_u64 (ds, "unrecoverable");

    g_print ("\n== summary: %" G_GUINT64_FORMAT " media + %" G_GUINT64_FORMAT
        " FEC packets sent (%.1f %% packet overhead), link dropped %"
        G_GUINT64_FORMAT " packets\n", media, get_u64 (es, "fec-packets"),
        media ? 100.0 * get_u64 (es, "fec-packets") / media : 0.0,
        get_u64 (ls, "loss-drops"));
    g_print ("fecdec    recovered %" G_GUINT64_FORMAT ", unrecoverable %"
        G_GUINT64_FORMAT ", late-recovered %" G_GUINT64_FORMAT
        ", corrupt FEC %" G_GUINT64_FORMAT "\n", get_u64 (ds, "recovered"),
        unrec, get_u64 (ds, "late-recovered"), get_u64 (ds, "fec-corrupt"));
    g_print ("residual  media loss after FEC %.2f %%; %" G_GUINT64_FORMAT
        " frames decoded\n", media ? 100.0 * unrec / media : 0.0, c->frames);
  }
  gst_structure_free (es);
  gst_structure_free (ls);
  gst_structure_free (ds);
}

static gboolean
on_tick (gpointer data)
{
  Call *c = data;

  c->elapsed++;
  print_line (c, FALSE);
  if (c->elapsed >= c->duration) {
    /* across UDP no EOS reaches the receiver: just stop */
    if (c->rx)
      g_main_loop_quit (c->loop);
    else
      gst_element_send_event (c->pipeline, gst_event_new_eos ());
    return G_SOURCE_REMOVE;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_bus (GstBus * bus, GstMessage * msg, gpointer data)
{
  Call *c = data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:{
      GError *err;
      gchar *dbg;

      gst_message_parse_error (msg, &err, &dbg);
      g_printerr ("ERROR from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
          err->message, dbg ? dbg : "");
      g_error_free (err);
      g_free (dbg);
      c->ret = 1;
      g_main_loop_quit (c->loop);
      break;
    }
    case GST_MESSAGE_EOS:
      g_main_loop_quit (c->loop);
      break;
    default:
      break;
  }
  return TRUE;
}

static void
watch (GstElement * pipeline, Call * c)
{
  GstBus *bus = gst_element_get_bus (pipeline);

  gst_bus_add_watch (bus, on_bus, c);
  gst_object_unref (bus);
}

static GstElement *
launch (const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  if (p == NULL || err) {
    g_printerr ("cannot build pipeline \"%s\": %s\n", desc,
        err ? err->message : "?");
    g_clear_error (&err);
    if (p)
      gst_object_unref (p);
    return NULL;
  }
  return p;
}

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  ((Call *) data)->frames++;
}

static gboolean
on_sigint (gpointer data)
{
  Call *c = data;

  g_printerr ("interrupted\n");
  gst_element_send_event (c->pipeline, gst_event_new_eos ());
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  gint duration = 10, bitrate = 800, delay = 40, n = 5, k = 10, m = 2;
  gdouble loss = 0.05, burst = 1.0;
  gchar *scheme = NULL, *desc, *link_loss, *controller = NULL;
  gboolean no_fec = FALSE, fixed_fec = FALSE;
  gint link_kbps = 2000;
  GstElement *vsink;
  gchar **controllers = rtpcc_controller_list ();
  gchar *known = g_strjoinv (", ", controllers);
  gchar *controller_help = g_strdup_printf ("Go through rtpccsink/rtpccsrc "
      "and the relay with this controller (%s); --bitrate is then the start "
      "bitrate", known);
  GOptionEntry entries[] = {
    {"duration", 'd', 0, G_OPTION_ARG_INT, &duration, "Seconds (10)", "S"},
    {"loss", 'l', 0, G_OPTION_ARG_DOUBLE, &loss, "Mean loss, 0..1 (0.05)",
        "P"},
    {"burst", 'b', 0, G_OPTION_ARG_DOUBLE, &burst,
        "Mean loss burst in packets; > 1 = Gilbert-Elliott (1)", "B"},
    {"scheme", 's', 0, G_OPTION_ARG_STRING, &scheme,
        "xor | rs | xor-2d (xor)", "S"},
    {"n", 'n', 0, G_OPTION_ARG_INT, &n, "XOR interval (5)", "N"},
    {"k", 'k', 0, G_OPTION_ARG_INT, &k, "RS data packets (10)", "K"},
    {"m", 'm', 0, G_OPTION_ARG_INT, &m, "RS parity packets (2)", "M"},
    {"bitrate", 'r', 0, G_OPTION_ARG_INT, &bitrate, "Video kbit/s (800)",
        "KBPS"},
    {"delay", 0, 0, G_OPTION_ARG_INT, &delay, "One-way delay ms (40)", "MS"},
    {"no-fec", 0, 0, G_OPTION_ARG_NONE, &no_fec, "FEC off (baseline)", NULL},
    {"controller", 'c', 0, G_OPTION_ARG_STRING, &controller,
        controller_help, "NAME"},
    {"link", 0, 0, G_OPTION_ARG_INT, &link_kbps,
        "Link capacity with --controller, kbit/s (2000)", "KBPS"},
    {"fixed-fec", 0, 0, G_OPTION_ARG_NONE, &fixed_fec,
        "With --controller: keep --n/--scheme, ignore the controller's FEC "
          "rate (follow-target=false)", NULL},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  Call c = { 0, };

  /* help and messages in the user's language and charset; numbers stay
   * in the C format, since they go into pipeline descriptions */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  ctx = g_option_context_new ("- loopback call with FEC");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  g_free (controller_help);
  if (controller && !g_strv_contains ((const gchar * const *) controllers,
          controller)) {
    g_printerr ("unknown controller \"%s\" (known: %s)\n", controller, known);
    return 2;
  }
  g_strfreev (controllers);
  g_free (known);
  if (loss < 0 || loss >= 1 || burst < 1 || duration < 1) {
    g_printerr ("bad option values (see --help)\n");
    return 2;
  }
  if (burst > 1.0) {
    gdouble r = 1.0 / burst;

    link_loss = g_strdup_printf ("loss-model=gilbert-elliott ge-p=%f ge-r=%f "
        "ge-k=1 ge-h=0", loss * r / (1.0 - loss), r);
  } else {
    link_loss = g_strdup_printf ("loss=%f", loss);
  }
  if (controller == NULL) {
    desc = g_strdup_printf (SOURCE " ! fecenc name=fec scheme=%s n=%d k=%d m=%d "
        "enabled=%s ! linkemu name=link delay=%d seed=1 %s ! fecdec name=dec ! "
        "rtpvp8depay ! vp8dec ! fakesink name=vsink signal-handoffs=true "
        "sync=false", bitrate * 1000, scheme ? scheme : "xor", n, k,
        m, no_fec ? "false" : "true", delay, link_loss);
    c.pipeline = launch (desc);
    g_free (desc);
    if (c.pipeline == NULL)
      return 1;
    c.enc = gst_bin_get_by_name (GST_BIN (c.pipeline), "fec");
    c.link = gst_bin_get_by_name (GST_BIN (c.pipeline), "link");
    c.dec = gst_bin_get_by_name (GST_BIN (c.pipeline), "dec");
    vsink = gst_bin_get_by_name (GST_BIN (c.pipeline), "vsink");
  } else {
    RtpccRelayConfig rc = { 0, };
    gchar *fwd, *rev;
    gint rx_port = 0;

    c.rx = launch ("rtpccsrc name=src port=0 address=127.0.0.1 "
        "caps=\"application/x-rtp,media=video,clock-rate=90000,"
        "encoding-name=VP8,payload=96\" ! fecdec name=dec ! rtpvp8depay ! "
        "vp8dec ! fakesink name=vsink signal-handoffs=true sync=false");
    if (c.rx == NULL)
      return 1;
    gst_element_set_state (c.rx, GST_STATE_PAUSED);
    {
      GstElement *src = gst_bin_get_by_name (GST_BIN (c.rx), "src");

      g_object_get (src, "bound-port", &rx_port, NULL);
      gst_object_unref (src);
    }
    fwd = g_strdup_printf ("rate=%d queue-ms=300 delay=%d seed=1 %s",
        link_kbps, delay, link_loss);
    rev = g_strdup_printf ("delay=%d", delay);
    rc.receiver_host = (gchar *) "127.0.0.1";
    rc.receiver_port = rx_port;
    rc.forward = fwd;
    rc.reverse = rev;
    c.relay = rtpcc_relay_new (&rc, &err);
    g_free (fwd);
    g_free (rev);
    if (c.relay == NULL) {
      g_printerr ("relay: %s\n", err ? err->message : "?");
      return 1;
    }
    c.link = gst_object_ref (rtpcc_relay_get_forward_emu (c.relay));
    desc = g_strdup_printf (SOURCE " ! fecenc name=fec scheme=%s n=%d k=%d m=%d "
        "enabled=%s follow-target=%s ! rtpccsink name=sink host=127.0.0.1 "
        "port=%d controller=%s start-bitrate=%d fec-pt=122", bitrate * 1000, scheme ? scheme : "xor", n, k, m,
        no_fec ? "false" : "true", fixed_fec ? "false" : "true",
        rtpcc_relay_get_listen_port (c.relay), controller, bitrate * 1000);
    c.pipeline = launch (desc);
    g_free (desc);
    if (c.pipeline == NULL)
      return 1;
    c.enc = gst_bin_get_by_name (GST_BIN (c.pipeline), "fec");
    c.sink = gst_bin_get_by_name (GST_BIN (c.pipeline), "sink");
    c.dec = gst_bin_get_by_name (GST_BIN (c.rx), "dec");
    vsink = gst_bin_get_by_name (GST_BIN (c.rx), "vsink");
  }
  g_free (link_loss);
  g_signal_connect (vsink, "handoff", G_CALLBACK (on_handoff), &c);
  gst_object_unref (vsink);
  c.duration = duration;
  c.loop = g_main_loop_new (NULL, FALSE);
  watch (c.pipeline, &c);
  if (c.rx)
    watch (c.rx, &c);
  if (c.relay) {
    watch (rtpcc_relay_get_forward (c.relay), &c);
    watch (rtpcc_relay_get_reverse (c.relay), &c);
  }
  g_timeout_add_seconds (1, on_tick, &c);
  g_unix_signal_add (SIGINT, on_sigint, &c);
  if ((c.rx && gst_element_set_state (c.rx, GST_STATE_PLAYING) ==
          GST_STATE_CHANGE_FAILURE) || (c.relay
          && !rtpcc_relay_start (c.relay))
      || gst_element_set_state (c.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_printerr ("cannot start the pipelines\n");
    return 1;
  }
  g_main_loop_run (c.loop);
  gst_element_set_state (c.pipeline, GST_STATE_NULL);
  if (c.relay)
    rtpcc_relay_stop (c.relay);
  if (c.rx)
    gst_element_set_state (c.rx, GST_STATE_NULL);
  print_line (&c, TRUE);
  gst_object_unref (c.enc);
  gst_object_unref (c.link);
  gst_object_unref (c.dec);
  gst_object_unref (c.pipeline);
  if (c.sink)
    gst_object_unref (c.sink);
  if (c.rx)
    gst_object_unref (c.rx);
  if (c.relay)
    rtpcc_relay_free (c.relay);
  g_free (controller);
  g_main_loop_unref (c.loop);
  g_free (scheme);
  return c.ret;
}

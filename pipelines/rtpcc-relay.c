/* rtpcc-relay: an emulated network path between a sender and a receiver,
 * for separate gst-launch pipelines (see sender.sh / receiver.sh).
 *
 *   rtpcc-relay --listen 5000 --to 127.0.0.1:5002 \
 *       --forward "schedule=1000@0,2500@40 queue-ms=300 delay=50" \
 *       --reverse "delay=50"
 *
 * The sender sends to the listen port; the relay forwards through a linkemu
 * to the receiver and carries the receiver's feedback back through another
 * linkemu, from the listen port, so rtpccsink's peer check holds.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <glib-unix.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "relay.h"

static gboolean
quit (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

static gboolean
on_bus (GstBus * bus, GstMessage * msg, gpointer loop)
{
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("ERROR from %s: %s\n", GST_OBJECT_NAME (msg->src),
        err->message);
    g_clear_error (&err);
    g_main_loop_quit (loop);
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  gint listen = 5000;
  gchar *to = NULL, *fwd = NULL, *rev = NULL, *colon;
  GOptionContext *ctx;
  GError *err = NULL;
  RtpccRelayConfig rc = { 0, };
  RtpccRelay *relay;
  GMainLoop *loop;
  GOptionEntry entries[] = {
    {"listen", 'l', 0, G_OPTION_ARG_INT, &listen,
        "UDP port the sender sends to (default 5000)", "PORT"},
    {"to", 't', 0, G_OPTION_ARG_STRING, &to,
        "Receiver address (default 127.0.0.1:5002)", "HOST:PORT"},
    {"forward", 'f', 0, G_OPTION_ARG_STRING, &fwd,
        "linkemu properties sender->receiver", "PROPS"},
    {"reverse", 'r', 0, G_OPTION_ARG_STRING, &rev,
        "linkemu properties receiver->sender", "PROPS"},
    {NULL}
  };

  /* help and messages in the user's language and charset; numbers stay
   * in the C format, since they go into pipeline descriptions */
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  ctx = g_option_context_new ("- emulated path between an RTP sender and "
      "receiver");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!to)
    to = g_strdup ("127.0.0.1:5002");
  colon = strrchr (to, ':');
  if (!colon || atoi (colon + 1) <= 0 || atoi (colon + 1) > 65535) {
    g_printerr ("--to wants HOST:PORT\n");
    return 2;
  }
  *colon = '\0';
  rc.listen_port = listen;
  rc.receiver_host = to;
  rc.receiver_port = atoi (colon + 1);
  rc.forward = fwd;
  rc.reverse = rev;
  relay = rtpcc_relay_new (&rc, &err);
  if (!relay) {
    g_printerr ("relay: %s\n", err ? err->message : "?");
    return 1;
  }
  loop = g_main_loop_new (NULL, FALSE);
  {
    GstBus *b = gst_element_get_bus (rtpcc_relay_get_forward (relay));
    gst_bus_add_watch (b, on_bus, loop);
    gst_object_unref (b);
    b = gst_element_get_bus (rtpcc_relay_get_reverse (relay));
    gst_bus_add_watch (b, on_bus, loop);
    gst_object_unref (b);
  }
  if (!rtpcc_relay_start (relay)) {
    g_printerr ("relay: cannot start (bad linkemu properties?)\n");
    return 1;
  }
  g_print ("relay: :%d -> %s:%d [%s] / back [%s]; Ctrl-C to stop\n",
      rtpcc_relay_get_listen_port (relay), to, rc.receiver_port,
      fwd ? fwd : "", rev ? rev : "");
  g_unix_signal_add (SIGINT, quit, loop);
  g_main_loop_run (loop);
  rtpcc_relay_free (relay);
  g_main_loop_unref (loop);
  g_free (to);
  g_free (fwd);
  g_free (rev);
  return 0;
}

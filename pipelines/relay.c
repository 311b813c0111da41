/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "relay.h"

#include <gst/net/gstnetaddressmeta.h>
#include <sys/socket.h>

struct _RtpccRelay
{
  GSocket *a, *b;
  GstElement *fwd, *rev;
  GstElement *fwd_emu, *rev_emu;
  GstElement *rev_sink;
  gboolean have_sender;
  gint listen_port;
};

static GSocket *
bind_socket (gint port, GError ** error)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, error);
  GInetAddress *lo;
  GSocketAddress *addr;
  gboolean ok;

  if (!s)
    return NULL;
  lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  addr = g_inet_socket_address_new (lo, port);
  ok = g_socket_bind (s, addr, FALSE, error);
  g_object_unref (addr);
  g_object_unref (lo);
  if (!ok) {
    g_object_unref (s);
    return NULL;
  }
  /* a 300 ms queue at a few Mbit/s must not overflow the kernel first */
  g_socket_set_option (s, SOL_SOCKET, SO_RCVBUF, 4 << 20, NULL);
  return s;
}

static gint
socket_port (GSocket * s)
{
  GSocketAddress *a = g_socket_get_local_address (s, NULL);
  gint port = a ? g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (a))
      : -1;
  g_clear_object (&a);
  return port;
}

/* The first packet from the sender tells where feedback must go. */
static GstPadProbeReturn
learn_sender (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  RtpccRelay *r = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstNetAddressMeta *meta = gst_buffer_get_net_address_meta (buf);

  if (meta && G_IS_INET_SOCKET_ADDRESS (meta->addr)) {
    GInetSocketAddress *isa = G_INET_SOCKET_ADDRESS (meta->addr);
    gchar *host = g_inet_address_to_string
        (g_inet_socket_address_get_address (isa));
    g_object_set (r->rev_sink, "host", host, "port",
        (gint) g_inet_socket_address_get_port (isa), NULL);
    g_free (host);
    r->have_sender = TRUE;
    return GST_PAD_PROBE_REMOVE;
  }
  return GST_PAD_PROBE_OK;
}

static GstElement *
direction (GSocket * in, GSocket * out, const gchar * emu_props,
    const gchar * host, gint port, const gchar * name, GError ** error)
{
  gchar *desc = g_strdup_printf ("udpsrc name=src close-socket=false "
      "buffer-size=4194304 ! linkemu name=emu %s ! udpsink name=sink "
      "close-socket=false sync=false async=false host=%s port=%d",
      emu_props ? emu_props : "", host, port);
  GstElement *p = gst_parse_launch (desc, error);
  GstElement *src, *sink;

  g_free (desc);
  if (!p)
    return NULL;
  if (error && *error) {
    gst_object_unref (p);
    return NULL;
  }
  gst_object_set_name (GST_OBJECT (p), name);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_object_set (src, "socket", in, NULL);
  g_object_set (sink, "socket", out, NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  return p;
}

RtpccRelay *
rtpcc_relay_new (const RtpccRelayConfig * cfg, GError ** error)
{
  RtpccRelay *r = g_new0 (RtpccRelay, 1);
  GstElement *src;
  GstPad *pad;

  r->a = bind_socket (cfg->listen_port, error);
  if (!r->a)
    goto fail;
  r->b = bind_socket (0, error);
  if (!r->b)
    goto fail;
  r->listen_port = socket_port (r->a);

  r->fwd = direction (r->a, r->b, cfg->forward, cfg->receiver_host,
      cfg->receiver_port, "relay-forward", error);
  if (!r->fwd)
    goto fail;
  /* the sender's port is unknown until it sends: a placeholder for now */
  r->rev = direction (r->b, r->a, cfg->reverse, "127.0.0.1", 9,
      "relay-reverse", error);
  if (!r->rev)
    goto fail;

  r->fwd_emu = gst_bin_get_by_name (GST_BIN (r->fwd), "emu");
  r->rev_emu = gst_bin_get_by_name (GST_BIN (r->rev), "emu");
  r->rev_sink = gst_bin_get_by_name (GST_BIN (r->rev), "sink");

  src = gst_bin_get_by_name (GST_BIN (r->fwd), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, learn_sender, r, NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
  return r;

fail:
  rtpcc_relay_free (r);
  return NULL;
}

gboolean
rtpcc_relay_start (RtpccRelay * r)
{
  return gst_element_set_state (r->fwd, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE
      && gst_element_set_state (r->rev, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE;
}

void
rtpcc_relay_stop (RtpccRelay * r)
{
  if (r->fwd)
    gst_element_set_state (r->fwd, GST_STATE_NULL);
  if (r->rev)
    gst_element_set_state (r->rev, GST_STATE_NULL);
}

void
rtpcc_relay_free (RtpccRelay * r)
{
  if (!r)
    return;
  rtpcc_relay_stop (r);
  g_clear_object (&r->fwd_emu);
  g_clear_object (&r->rev_emu);
  g_clear_object (&r->rev_sink);
  g_clear_object (&r->fwd);
  g_clear_object (&r->rev);
  if (r->a)
    g_socket_close (r->a, NULL);
  if (r->b)
    g_socket_close (r->b, NULL);
  g_clear_object (&r->a);
  g_clear_object (&r->b);
  g_free (r);
}

gint
rtpcc_relay_get_listen_port (RtpccRelay * r)
{
  return r->listen_port;
}

GstElement *
rtpcc_relay_get_forward_emu (RtpccRelay * r)
{
  return r->fwd_emu;
}

GstElement *
rtpcc_relay_get_reverse_emu (RtpccRelay * r)
{
  return r->rev_emu;
}

GstElement *
rtpcc_relay_get_forward (RtpccRelay * r)
{
  return r->fwd;
}

GstElement *
rtpcc_relay_get_reverse (RtpccRelay * r)
{
  return r->rev;
}

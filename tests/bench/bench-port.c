/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bench-port.h"

#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

#define TRIES 20

static guint
count_in (const gchar * path, guint port)
{
  gchar *text = NULL, **lines;
  guint n = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  lines = g_strsplit (text, "\n", -1);
  /* "  sl  local_address rem_address ...": local is ADDR:PORT in hex */
  for (guint i = 1; lines[i]; i++) {
    gchar local[64];
    const gchar *colon;

    if (sscanf (lines[i], "%*s %63s", local) == 1
        && (colon = strrchr (local, ':'))
        && g_ascii_strtoull (colon + 1, NULL, 16) == port)
      n++;
  }
  g_strfreev (lines);
  g_free (text);
  return n;
}

guint
bench_udp_port_users (guint port)
{
  return count_in ("/proc/net/udp", port) + count_in ("/proc/net/udp6",
      port);
}

/* The local port of @e's socket, 0 if it has none (yet). */
static guint
element_port (GstElement * e)
{
  GObjectClass *k = G_OBJECT_GET_CLASS (e);
  GSocket *sock = NULL;
  GSocketAddress *a;
  gint port = 0;

  if (g_object_class_find_property (k, "bound-port")) {
    g_object_get (e, "bound-port", &port, NULL);
    return (guint) port;
  }
  if (g_object_class_find_property (k, "used-socket"))
    g_object_get (e, "used-socket", &sock, NULL);
  if (!sock)
    return 0;
  a = g_socket_get_local_address (sock, NULL);
  if (a && G_IS_INET_SOCKET_ADDRESS (a))
    port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (a));
  g_clear_object (&a);
  g_object_unref (sock);
  return (guint) port;
}

GstElement *
bench_pipeline_bound (const gchar * desc, const gchar * name, guint * port,
    GError ** error)
{
  /* rejected pipelines stay open until the end: closing one would hand
   * its shared port straight back */
  GPtrArray *rejected = g_ptr_array_new ();
  GstElement *p = NULL;

  for (guint t = 0; t < TRIES && !p; t++) {
    GstElement *e;
    guint got;

    p = gst_parse_launch (desc, error);
    if (!p)
      break;
    if (gst_element_set_state (p, GST_STATE_PAUSED) ==
        GST_STATE_CHANGE_FAILURE) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
          "cannot pause \"%s\"", desc);
      g_ptr_array_add (rejected, p);
      p = NULL;
      break;
    }
    e = gst_bin_get_by_name (GST_BIN (p), name);
    got = e ? element_port (e) : 0;
    g_clear_object (&e);
    if (got && bench_udp_port_users (got) > 1) {
      g_ptr_array_add (rejected, p);
      p = NULL;
      continue;
    }
    if (port)
      *port = got;
  }
  if (!p && error && !*error)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
        "no UDP port of its own in %d tries", TRIES);
  for (guint i = 0; i < rejected->len; i++) {
    gst_element_set_state (g_ptr_array_index (rejected, i), GST_STATE_NULL);
    gst_object_unref (g_ptr_array_index (rejected, i));
  }
  g_ptr_array_unref (rejected);
  return p;
}

/* Helpers shared by the real-time rtpcc pipeline tests; see rt-util.h.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/socket.h>
#include <gst/check/gstcheck.h>

#include "rt-util.h"

void
rt_decoded_on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad,
    gpointer data)
{
  RtDecoded *d = data;
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&d->lock);
  d->frames++;
  if (d->start > 0 && now - d->start >= d->late_after)
    d->frames_late++;
  g_mutex_unlock (&d->lock);
}

void
rt_decoded_get (RtDecoded * d, guint64 * frames, guint64 * frames_late)
{
  g_mutex_lock (&d->lock);
  if (frames)
    *frames = d->frames;
  if (frames_late)
    *frames_late = d->frames_late;
  g_mutex_unlock (&d->lock);
}

GSocket *
rt_udp_socket_new (guint16 * port)
{
  GError *err = NULL;
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, &err);
  GSocketAddress *addr, *local;

  fail_unless (s != NULL, "%s", err ? err->message : "?");
  addr = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  fail_unless (g_socket_bind (s, addr, FALSE, &err), "%s",
      err ? err->message : "?");
  g_object_unref (addr);
  local = g_socket_get_local_address (s, NULL);
  fail_unless (local != NULL);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  g_object_unref (local);
  /* a few frames of room: the relay's udpsrc may be descheduled */
  g_socket_set_option (s, SOL_SOCKET, SO_RCVBUF, 1 << 21, NULL);
  return s;
}

/* @strict: also fail on a recoverable parse error (non-NULL pipeline with
 * an error set). */
GstElement *
rt_parse (const gchar * desc, gboolean strict)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);

  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "?");
  if (strict)
    fail_unless (err == NULL, "%s: %s", desc, err ? err->message : "?");
  return p;
}

void
rt_set_by_name (GstElement * bin, const gchar * name, const gchar * prop,
    gpointer value)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), name);

  fail_unless (e != NULL, "no element %s", name);
  g_object_set (e, prop, value, NULL);
  gst_object_unref (e);
}

void
rt_check_no_error (GstElement * pipeline, const gchar * what)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  if (msg) {
    GError *err = NULL;
    gchar *debug = NULL;
    gst_message_parse_error (msg, &err, &debug);
    fail ("%s: error from %s: %s (%s)", what, GST_OBJECT_NAME (msg->src),
        err->message, debug ? debug : "");
  }
  gst_object_unref (bus);
}

guint64
rt_stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s", field);
  gst_structure_free (s);
  return v;
}

/* The relay, both directions over the shared sockets A and B:
 *   udpsrc(A) ! linkemu fwd (capacity schedule) ! udpsink(B) → @fwd_port
 *   udpsrc(B) ! linkemu rev (delay)             ! udpsink(A) → @rev_port
 * @fsrc_opts: extra properties of the forward udpsrc ("" for none);
 * @strict as for rt_parse. */
GstElement *
rt_relay_new (const gchar * fsrc_opts, guint cap_before_kbps,
    guint cap_after_kbps, guint drop_at_s, guint fwd_port, guint rev_port,
    GSocket * sock_a, GSocket * sock_b, gboolean strict)
{
  gchar *desc = g_strdup_printf ("udpsrc name=fsrc close-socket=false%s%s ! "
      "linkemu name=fwd schedule=%u@0,%u@%u delay=20 queue-ms=200 ! "
      "udpsink name=fsink host=127.0.0.1 port=%u sync=false async=false "
      "close-socket=false "
      "udpsrc name=rsrc close-socket=false ! linkemu name=rev delay=20 ! "
      "udpsink name=rsink host=127.0.0.1 port=%u sync=false async=false "
      "close-socket=false", *fsrc_opts ? " " : "", fsrc_opts,
      cap_before_kbps, cap_after_kbps, drop_at_s, fwd_port, rev_port);
  GstElement *relay = rt_parse (desc, strict);

  g_free (desc);
  rt_relay_set_sockets (relay, sock_a, sock_b);
  return relay;
}

void
rt_relay_set_sockets (GstElement * relay, GSocket * sock_a, GSocket * sock_b)
{
  rt_set_by_name (relay, "fsrc", "socket", sock_a);
  rt_set_by_name (relay, "fsink", "socket", sock_b);
  rt_set_by_name (relay, "rsrc", "socket", sock_b);
  rt_set_by_name (relay, "rsink", "socket", sock_a);
}

/* Relay to PLAYING, then the sender; returns the run's start (the relay's
 * running time 0, the schedule's epoch), also stored in @dec. */
gint64
rt_run_start (GstElement * relay, GstElement * tx, RtDecoded * dec)
{
  gint64 start;

  fail_unless (gst_element_set_state (relay, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* the schedule's epoch is the relay's running time 0 */
  start = g_get_monotonic_time ();
  g_mutex_lock (&dec->lock);
  dec->start = start;
  g_mutex_unlock (&dec->lock);

  fail_unless (gst_element_set_state (tx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  return start;
}

/* One step of the sampling loop: FALSE once @run_s have passed since
 * @start; else waits @sample_ms, checks the three pipelines for errors and
 * returns TRUE with @t the seconds since @start. */
gboolean
rt_sample_next (gint64 start, gdouble run_s, guint sample_ms,
    GstElement * tx, GstElement * rx, GstElement * relay, gdouble * t)
{
  gdouble now = (gdouble) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;

  if (now >= run_s)
    return FALSE;
  g_usleep (sample_ms * 1000);
  rt_check_no_error (tx, "sender");
  rt_check_no_error (rx, "receiver");
  rt_check_no_error (relay, "relay");

  *t = (gdouble) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  return TRUE;
}

void
rt_stop (GstElement * tx, GstElement * relay, GstElement * rx)
{
  fail_unless_equals_int (gst_element_set_state (tx, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (relay, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (rx, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
}

/* rtpbin's recv_rtp_src_0_<ssrc>_<pt> appears with the first packet of an
 * SSRC (or a new PT on it). The first goes to the depayloader. There must
 * be no other: one is counted and left unlinked, as an application that
 * expects one stream would leave it (its not-linked return then stops the
 * udpsrc, and the video checks fail). */
static void
on_pad_added (GstElement * rtpbin, GstPad * pad, gpointer data)
{
  RtPadAdded *pa = data;
  GstPad *sinkpad;
  gchar *name = gst_pad_get_name (pad);

  if (g_str_has_prefix (name, "recv_rtp_src_0_")) {
    sinkpad = gst_element_get_static_pad (pa->depay, "sink");
    if (gst_pad_is_linked (sinkpad))
      g_atomic_int_inc (&pa->extra_pads);
    else if (GST_PAD_LINK_FAILED (gst_pad_link (pad, sinkpad)))
      GST_ERROR ("could not link %s", name);
    gst_object_unref (sinkpad);
  }
  g_free (name);
}

/* The stock receiver: rtpbin (AVPF, TWCC extension @twcc_ext_id in the
 * caps), RTP in and RTCP out on @sock_r, RTCP to 127.0.0.1:@port_b,
 * rtph264depay ! avdec_h264 ! fakesink "vsink"; rtpbin's pads are linked
 * through @pa. Report blocks (LSR/DLSR, rtpccsink's only RTT in TWCC mode)
 * at least every 0.25–0.75 s: with the default 5 s a 1.22 rtpsession,
 * which restarts the regular interval from every early TWCC packet, all
 * but never sends them. */
GstElement *
rt_stock_receiver_new (guint twcc_ext_id, guint port_b, GSocket * sock_r,
    RtPadAdded * pa, GstElement ** rtpbin, GstElement ** depay)
{
  GstElement *rx, *session = NULL;
  gchar *desc = g_strdup_printf ("rtpbin name=rtpbin rtp-profile=avpf "
      "latency=100 udpsrc name=rtpsrc close-socket=false buffer-size=4194304 "
      "caps=\"application/x-rtp,media=(string)video,clock-rate=(int)90000,"
      "encoding-name=(string)H264,payload=(int)96,extmap-%u=(string)"
      RT_TWCC_URI "\" ! rtpbin.recv_rtp_sink_0 "
      "rtpbin.send_rtcp_src_0 ! udpsink name=rtcpsink close-socket=false "
      "host=127.0.0.1 port=%u sync=false async=false "
      "rtph264depay name=depay ! avdec_h264 ! "
      "fakesink name=vsink sync=false signal-handoffs=true", twcc_ext_id,
      port_b);

  rx = rt_parse (desc, TRUE);
  g_free (desc);
  rt_set_by_name (rx, "rtpsrc", "socket", sock_r);
  rt_set_by_name (rx, "rtcpsink", "socket", sock_r);
  *rtpbin = gst_bin_get_by_name (GST_BIN (rx), "rtpbin");
  *depay = gst_bin_get_by_name (GST_BIN (rx), "depay");
  g_signal_emit_by_name (*rtpbin, "get-session", 0, &session);
  fail_unless (session != NULL);
  g_object_set (session, "rtcp-min-interval", (guint64) 500 * GST_MSECOND,
      NULL);
  gst_object_unref (session);
  pa->bin = rx;
  pa->depay = *depay;
  g_signal_connect (*rtpbin, "pad-added", G_CALLBACK (on_pad_added), pa);
  return rx;
}

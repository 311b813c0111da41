/* Element tests for the transport pair (plugins/rtpcc/): rtpccsink and
 * rtpccsrc against real loopback sockets (127.0.0.1, ephemeral ports only).
 *
 * The peer side is played by plain GSockets, and the feedback they send or
 * receive is built and parsed with the library itself (gst/rtpcc/feedback/).
 * Time is a GstTestClock the elements wait on (clock-util.h): it advances
 * only when a test runs it, each element idle at every step, so a test
 * sees the same instants on any machine and never sleeps. After a datagram
 * or a buffer reaches an element, the test waits until the element has
 * processed it (clock_settle_after()) and then reads its counters.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gio/gio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/video/video-event.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/fec.h>
#include "tshark-util.h"
#include "encoder-loop-check.h"
#include "clock-util.h"

#define TEST_SSRC 0x11223344u
#define MS_(x) RTPCC_MSEC (x)
#define RTP_CAPS "application/x-rtp,media=(string)video,clock-rate=(int)90000," \
  "encoding-name=(string)H264,payload=(int)96"

/* ---- helpers ------------------------------------------------------------ */

/* A UDP socket bound to 127.0.0.1 on an ephemeral port. */
/* A UDP socket on 127.0.0.1:*@port (0: any; *@port is then the port it
 * got); @shared: another socket may bind the same port (g_socket_bind's
 * allow_reuse, SO_REUSEADDR and SO_REUSEPORT). */
static GSocket *
udp_socket_bind (guint16 * port, gboolean shared)
{
  GError *err = NULL;
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, &err);
  GSocketAddress *addr, *local;

  fail_unless (s != NULL, "%s", err ? err->message : "?");
  addr = g_inet_socket_address_new_from_string ("127.0.0.1", *port);
  fail_unless (g_socket_bind (s, addr, shared, &err), "%s",
      err ? err->message : "?");
  g_object_unref (addr);
  local = g_socket_get_local_address (s, &err);
  fail_unless (local != NULL);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  g_object_unref (local);
  fail_unless (*port != 0);
  g_socket_set_blocking (s, FALSE);
  return s;
}

static GSocket *
udp_socket_new (guint16 * port)
{
  *port = 0;
  return udp_socket_bind (port, FALSE);
}

static void
send_to_port (GSocket * s, guint16 port, const guint8 * data, gsize len)
{
  GError *err = NULL;
  GSocketAddress *to = g_inet_socket_address_new_from_string ("127.0.0.1",
      port);
  gssize n = g_socket_send_to (s, to, (const gchar *) data, len, NULL, &err);

  fail_unless_equals_int ((gint) n, (gint) len);
  g_object_unref (to);
}

/* @data from @s to an element's @port, which then processes it: the test
 * continues once the element is idle again (clock-util.h). */
static void
send_and_settle (GSocket * s, guint16 port, const guint8 * data, gsize len,
    GstTestClock * clock, guint waiters)
{
  GList *before = clock_snapshot (clock);

  send_to_port (s, port, data, len);
  clock_settle_after (clock, waiters, before);
}

static guint64 stat_u64 (GstElement * e, const gchar * field);

/* The wake-ups of rtpccsink's task so far (its task-wakeups stat). */
static guint64
sink_wakeups (GstElement * sink)
{
  return stat_u64 (sink, "task-wakeups");
}

/* After buffers reached rtpccsink @sink, whose render() has returned:
 * render() sent what the pacer let go itself, so the sink is idle unless
 * it woke its task (a packet held back, a target to publish), which
 * task-wakeups, @wakeups before the buffers, tells; then the test waits
 * for the task to wake (one of @before, from clock_snapshot(), is taken)
 * and go idle again. */
static void
sink_settle_after (GstElement * sink, guint64 wakeups, GstTestClock * clock,
    guint waiters, GList * before)
{
  if (sink_wakeups (sink) != wakeups) {
    clock_settle_after (clock, waiters, before);
  } else {
    g_list_free_full (before, (GDestroyNotify) gst_clock_id_unref);
    clock_settle (clock, waiters);
  }
}

/* A buffer into a sink harness, which then processes it. */
static GstFlowReturn
push_and_settle (GstHarness * h, GstBuffer * buf, GstTestClock * clock,
    guint waiters)
{
  GList *before = clock_snapshot (clock);
  guint64 wakeups = sink_wakeups (h->element);
  GstFlowReturn ret = gst_harness_push (h, buf);

  sink_settle_after (h->element, wakeups, clock, waiters, before);
  return ret;
}

/* A datagram waiting on @s, or -1 (never blocks: what an element sent is
 * there once it is idle). @from_port gets the source port. */
static gssize
recv_datagram (GSocket * s, guint8 * buf, gsize max, guint16 * from_port)
{
  GError *err = NULL;
  GSocketAddress *from = NULL;
  gssize n;

  n = g_socket_receive_from (s, &from, (gchar *) buf, max, NULL, &err);
  if (n < 0) {
    g_clear_error (&err);
    return -1;
  }
  if (from_port)
    *from_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (from));
  g_clear_object (&from);
  return n;
}

static GstBuffer *
make_rtp (guint32 ssrc, guint16 seq, guint32 ts, gboolean marker,
    guint payload_len)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (payload_len, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint8 *payload;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_ssrc (&rtp, ssrc);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_marker (&rtp, marker);
  payload = gst_rtp_buffer_get_payload (&rtp);
  memset (payload, seq & 0xff, payload_len);
  gst_rtp_buffer_unmap (&rtp);
  return buf;
}

/* The same as raw bytes, for sending from a test socket. */
static gsize
make_rtp_bytes (guint8 * out, gsize max, guint32 ssrc, guint16 seq,
    guint32 ts, gboolean marker, guint payload_len)
{
  GstBuffer *buf = make_rtp (ssrc, seq, ts, marker, payload_len);
  gsize n = gst_buffer_get_size (buf);

  fail_unless (n <= max);
  gst_buffer_extract (buf, 0, out, n);
  gst_buffer_unref (buf);
  return n;
}

static guint64
stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no field %s in %"
      GST_PTR_FORMAT, field, s);
  gst_structure_free (s);
  return v;
}

/* A CCFB (RFC 8888) from the library's writer saying seqs
 * [begin, begin + n) of @ssrc arrived, the last one at @now (the peer's
 * report clock: the test clock's time). */
static gsize
make_ccfb (guint8 * buf, gsize max, guint32 ssrc, guint16 begin, guint n,
    GstClockTime now)
{
  RtpccCcfbMetric *m = g_new0 (RtpccCcfbMetric, n);
  RtpccCcfbBlockIn b;
  guint32 rts = rtpcc_ntp_short (rtpcc_ntp_from_time ((RtpccTime) now,
          RTPCC_NTP_UNIX_EPOCH_NS));
  gsize len;

  for (guint i = 0; i < n; i++) {
    m[i].received = TRUE;
    /* 1 ms apart, the newest at the report time */
    m[i].ato = rtpcc_ccfb_ato_from_delta (RTPCC_MSEC (n - 1 - i));
  }
  b.media_ssrc = ssrc;
  b.begin_seq = begin;
  b.num_reports = n;
  b.metrics = m;
  len = rtpcc_ccfb_write (buf, max, 0xfeedf00d, rts, &b, 1);
  fail_unless (len > 0);
  g_free (m);
  return len;
}

/* ---- 1. properties and start-up errors --------------------------------- */

static void
check_uint_range (GObject * o, const gchar * name, guint min, guint max,
    guint def)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (o), name);
  GParamSpecUInt *u;

  fail_unless (p != NULL, "no property %s", name);
  fail_unless (G_IS_PARAM_SPEC_UINT (p), "%s is not a guint", name);
  u = G_PARAM_SPEC_UINT (p);
  fail_unless_equals_int64 (u->minimum, min);
  fail_unless_equals_int64 (u->maximum, max);
  fail_unless_equals_int64 (u->default_value, def);
}

static void
check_int_range (GObject * o, const gchar * name, gint min, gint max, gint def)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (o), name);
  GParamSpecInt *i;

  fail_unless (p != NULL, "no property %s", name);
  fail_unless (G_IS_PARAM_SPEC_INT (p), "%s is not a gint", name);
  i = G_PARAM_SPEC_INT (p);
  fail_unless_equals_int (i->minimum, min);
  fail_unless_equals_int (i->maximum, max);
  fail_unless_equals_int (i->default_value, def);
}

static void
check_read_only (GObject * o, const gchar * name)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (o), name);

  fail_unless (p != NULL, "no property %s", name);
  fail_unless (p->flags & G_PARAM_READABLE);
  fail_if (p->flags & G_PARAM_WRITABLE, "%s should be read-only", name);
}

GST_START_TEST (test_sink_properties)
{
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  gchar *host, *bind_address, *controller, *cname;
  gint port, bind_port, bound_port, feedback, encoder_control;
  guint min_bitrate, max_bitrate, start_bitrate, target, rtcp_interval,
      max_pacing_delay;
  gboolean pacing, breaker;
  GstStructure *stats = NULL;
  guint64 v;

  fail_unless (sink != NULL, "rtpccsink not found (GST_PLUGIN_PATH?)");
  g_object_get (sink, "host", &host, "port", &port, "bind-address",
      &bind_address, "bind-port", &bind_port, "controller", &controller,
      "min-bitrate", &min_bitrate, "max-bitrate", &max_bitrate,
      "start-bitrate", &start_bitrate, "feedback", &feedback,
      "encoder-control", &encoder_control, "pacing", &pacing,
      "circuit-breaker", &breaker, "rtcp-interval", &rtcp_interval,
      "max-pacing-delay", &max_pacing_delay, "cname", &cname,
      "target-bitrate", &target, "bound-port", &bound_port, NULL);
  fail_unless_equals_string (host, "127.0.0.1");
  fail_unless_equals_int (port, 5004);
  fail_unless_equals_string (bind_address, "0.0.0.0");
  fail_unless_equals_int (bind_port, 0);
  fail_unless_equals_string (controller, "tfrc");
  fail_unless_equals_int (min_bitrate, 150000);
  fail_unless_equals_int (max_bitrate, 5000000);
  fail_unless_equals_int (start_bitrate, 300000);
  fail_unless_equals_int (feedback, RTPCC_FEEDBACK_CCFB);
  fail_unless_equals_int (encoder_control, 1);  /* auto */
  fail_unless (pacing);
  fail_unless (breaker);
  fail_unless_equals_int (rtcp_interval, 1000);
  fail_unless_equals_int (max_pacing_delay, 100);
  fail_unless_equals_string (cname, "rtpcc@localhost");
  fail_unless_equals_int (target, 0);   /* nothing published yet */
  fail_unless_equals_int (bound_port, 0);
  g_free (host);
  g_free (bind_address);
  g_free (controller);
  g_free (cname);

  /* ranges */
  check_int_range (G_OBJECT (sink), "port", 1, 65535, 5004);
  check_int_range (G_OBJECT (sink), "bind-port", 0, 65535, 0);
  check_uint_range (G_OBJECT (sink), "min-bitrate", 1000, G_MAXINT, 150000);
  check_uint_range (G_OBJECT (sink), "max-bitrate", 1000, G_MAXINT, 5000000);
  check_uint_range (G_OBJECT (sink), "start-bitrate", 0, G_MAXINT, 300000);
  check_uint_range (G_OBJECT (sink), "rtcp-interval", 100, 60000, 1000);
  check_uint_range (G_OBJECT (sink), "max-pacing-delay", 0, 10000, 100);
  check_read_only (G_OBJECT (sink), "target-bitrate");
  check_read_only (G_OBJECT (sink), "bound-port");
  check_read_only (G_OBJECT (sink), "stats");

  /* enums by nick, as gst-launch would set them */
  gst_util_set_object_arg (G_OBJECT (sink), "feedback", "rr");
  gst_util_set_object_arg (G_OBJECT (sink), "encoder-control", "none");
  g_object_get (sink, "feedback", &feedback, "encoder-control",
      &encoder_control, NULL);
  fail_unless_equals_int (feedback, RTPCC_FEEDBACK_RR);
  fail_unless_equals_int (encoder_control, 0);
  {
    gint mode = -1;
    g_object_get (sink, "probe-ssrc-mode", &mode, NULL);
    fail_unless_equals_int (mode, 0);   /* auto */
    gst_util_set_object_arg (G_OBJECT (sink), "probe-ssrc-mode", "separate");
    g_object_get (sink, "probe-ssrc-mode", &mode, NULL);
    fail_unless_equals_int (mode, 2);
    gst_util_set_object_arg (G_OBJECT (sink), "probe-ssrc-mode", "media");
    g_object_get (sink, "probe-ssrc-mode", &mode, NULL);
    fail_unless_equals_int (mode, 1);
  }

  /* NULL / empty strings fall back to the defaults */
  g_object_set (sink, "host", NULL, "controller", NULL, "cname", "", NULL);
  g_object_get (sink, "host", &host, "controller", &controller, "cname",
      &cname, NULL);
  fail_unless_equals_string (host, "127.0.0.1");
  fail_unless_equals_string (controller, "tfrc");
  fail_unless_equals_string (cname, "rtpcc@localhost");
  g_free (host);
  g_free (controller);
  g_free (cname);

  /* stats before start: a structure with the element-level counters */
  g_object_get (sink, "stats", &stats, NULL);
  fail_unless (stats != NULL);
  fail_unless (gst_structure_has_name (stats,
          "application/x-rtpcc-sink-stats"));
  fail_unless (gst_structure_get_uint64 (stats, "invalid-rtp", &v));
  fail_unless_equals_uint64 (v, 0);
  fail_unless (gst_structure_get_uint64 (stats, "rtcp-wrong-source", &v));
  gst_structure_free (stats);

  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_src_properties)
{
  GstElement *src = gst_element_factory_make ("rtpccsrc", NULL);
  gchar *address, *cname;
  gint port, feedback, bound_port;
  guint feedback_interval, rtcp_interval, buffer_size;
  GstCaps *caps = NULL, *want;
  GstStructure *stats = NULL;

  fail_unless (src != NULL, "rtpccsrc not found (GST_PLUGIN_PATH?)");
  g_object_get (src, "address", &address, "port", &port, "feedback",
      &feedback, "feedback-interval", &feedback_interval, "rtcp-interval",
      &rtcp_interval, "cname", &cname, "buffer-size", &buffer_size,
      "bound-port", &bound_port, "caps", &caps, NULL);
  fail_unless_equals_string (address, "0.0.0.0");
  fail_unless_equals_int (port, 5004);
  fail_unless_equals_int (feedback, RTPCC_FEEDBACK_CCFB);
  fail_unless_equals_int (feedback_interval, 0);
  fail_unless_equals_int (rtcp_interval, 1000);
  fail_unless_equals_string (cname, "rtpcc-receiver@localhost");
  fail_unless_equals_int (buffer_size, 4 * 1024 * 1024);
  fail_unless_equals_int (bound_port, 0);
  fail_unless (caps != NULL);
  want = gst_caps_from_string ("application/x-rtp");
  fail_unless (gst_caps_is_equal (caps, want));
  gst_caps_unref (want);
  gst_caps_unref (caps);
  g_free (address);
  g_free (cname);

  check_int_range (G_OBJECT (src), "port", 0, 65535, 5004);
  check_uint_range (G_OBJECT (src), "feedback-interval", 0, 5000, 0);
  check_uint_range (G_OBJECT (src), "rtcp-interval", 100, 60000, 1000);
  check_read_only (G_OBJECT (src), "bound-port");
  check_read_only (G_OBJECT (src), "stats");

  /* caps round-trip; NULL caps fall back to plain application/x-rtp */
  want = gst_caps_from_string (RTP_CAPS);
  g_object_set (src, "caps", want, NULL);
  g_object_get (src, "caps", &caps, NULL);
  fail_unless (gst_caps_is_equal (caps, want));
  gst_caps_unref (caps);
  gst_caps_unref (want);
  g_object_set (src, "caps", NULL, NULL);
  g_object_get (src, "caps", &caps, NULL);
  fail_unless (caps != NULL);
  gst_caps_unref (caps);

  g_object_get (src, "stats", &stats, NULL);
  fail_unless (stats != NULL);
  fail_unless (gst_structure_has_name (stats,
          "application/x-rtpcc-src-stats"));
  gst_structure_free (stats);
  gst_object_unref (src);
}

GST_END_TEST;

/* Sets @sink (configured by the caller) to PAUSED inside a pipeline and
 * expects the change to fail with an error message; returns the message's
 * text and debug string joined. */
static gchar *
expect_start_error (GstElement * sink)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("fakesrc", NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL, *text;

  gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
  fail_unless (gst_element_link (src, sink));
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message on the bus");
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (sink));
  gst_message_parse_error (msg, &err, &debug);
  text = g_strdup_printf ("%s | %s", err->message, debug ? debug : "");
  GST_INFO ("error: %s", text);
  g_clear_error (&err);
  g_free (debug);
  gst_message_unref (msg);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return text;
}

GST_START_TEST (test_sink_unknown_controller)
{
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  gchar *text;

  g_object_set (sink, "controller", "does-not-exist", NULL);
  text = expect_start_error (sink);
  /* names the bad one and lists every known one */
  fail_unless (strstr (text, "does-not-exist") != NULL, "%s", text);
  {
    gchar **names = rtpcc_controller_list ();
    for (guint i = 0; names[i]; i++)
      fail_unless (strstr (text, names[i]) != NULL, "%s: %s", names[i], text);
    g_strfreev (names);
  }
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_sink_controller_params)
{
  GstElement *pipeline, *src, *sink;
  gchar *text;

  /* a key the controller does not know, a bad value, a missing '=' */
  sink = gst_element_factory_make ("rtpccsink", NULL);
  g_object_set (sink, "controller", "nada", "controller-params",
      "catch-up=1; no-such-key=3", NULL);
  text = expect_start_error (sink);
  fail_unless (strstr (text, "no-such-key") != NULL, "%s", text);
  fail_unless (strstr (text, "nada") != NULL, "%s", text);
  g_free (text);

  sink = gst_element_factory_make ("rtpccsink", NULL);
  g_object_set (sink, "controller", "nada", "controller-params",
      "catch-up=7", NULL);    /* range [0, 1] */
  text = expect_start_error (sink);
  fail_unless (strstr (text, "catch-up=7") != NULL, "%s", text);
  g_free (text);

  sink = gst_element_factory_make ("rtpccsink", NULL);
  g_object_set (sink, "controller", "gcc", "controller-params",
      "estimator", NULL);
  text = expect_start_error (sink);
  fail_unless (strstr (text, "estimator") != NULL, "%s", text);
  g_free (text);

  /* valid ones start; the property reads back as set */
  pipeline = gst_pipeline_new (NULL);
  src = gst_element_factory_make ("fakesrc", NULL);
  sink = gst_element_factory_make ("rtpccsink", NULL);
  g_object_set (sink, "controller", "nada", "controller-params",
      " catch-up=1 , logwin=250 ;", "host", "127.0.0.1", NULL);
  g_object_get (sink, "controller-params", &text, NULL);
  fail_unless_equals_string (text, " catch-up=1 , logwin=250 ;");
  g_free (text);
  gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
  fail_unless (gst_element_link (src, sink));
  fail_if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_sink_min_above_max)
{
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  gchar *text;

  g_object_set (sink, "min-bitrate", 2000000, "max-bitrate", 1000000,
      "start-bitrate", 0, NULL);
  text = expect_start_error (sink);
  fail_unless (strstr (text, "min-bitrate") != NULL, "%s", text);
  g_free (text);

  /* a start outside [min, max] is refused the same way */
  sink = gst_element_factory_make ("rtpccsink", NULL);
  g_object_set (sink, "min-bitrate", 200000, "max-bitrate", 1000000,
      "start-bitrate", 5000000, NULL);
  text = expect_start_error (sink);
  fail_unless (strstr (text, "start-bitrate") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_sink_bad_host)
{
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  gchar *text;

  /* RFC 6761: .invalid never resolves */
  g_object_set (sink, "host", "no-such-host.invalid", NULL);
  text = expect_start_error (sink);
  fail_unless (strstr (text, "no-such-host.invalid") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_sink_restart)
{
  /* start, stop, start again: sockets and tasks are released and rebuilt */
  guint16 peer_port;
  GSocket *peer = udp_socket_new (&peer_port);
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  gint bound = 0;

  g_object_set (sink, "port", peer_port, "controller", "fixed", NULL);
  for (gint i = 0; i < 3; i++) {
    fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_PLAYING),
        GST_STATE_CHANGE_SUCCESS);
    g_object_get (sink, "bound-port", &bound, NULL);
    fail_unless (bound > 0);
    fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (sink);
  g_object_unref (peer);
}

GST_END_TEST;

/* A FEC encoder's sticky announcement (fecenc max-block-time) holds for
 * one run: stopped and started again, the sink has none until upstream
 * sends it again (codes for max-fec-share would otherwise keep a block
 * time from an encoder no longer there). */
GST_START_TEST (test_sink_restart_forgets_fec_encoder)
{
  guint16 peer_port;
  GSocket *peer = udp_socket_new (&peer_port);
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  GstHarness *h;

  g_object_set (sink, "port", peer_port, "controller", "fixed", NULL);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  fail_unless_equals_uint64 (stat_u64 (sink, "fec-block-time"),
      GST_CLOCK_TIME_NONE);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM_STICKY,
              gst_structure_new ("rtpcc-fec-encoder", "max-block-time",
                  G_TYPE_UINT64, (guint64) (40 * GST_MSECOND), NULL))));
  fail_unless_equals_uint64 (stat_u64 (sink, "fec-block-time"),
      40 * GST_MSECOND);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_uint64 (stat_u64 (sink, "fec-block-time"),
      GST_CLOCK_TIME_NONE);
  gst_harness_teardown (h);
  g_object_unref (peer);
}

GST_END_TEST;

/* ---- 2. target publication ---------------------------------------------- */

static void
on_notify_count (GObject * o, GParamSpec * p, gpointer data)
{
  g_atomic_int_inc ((gint *) data);
}

static void
check_target_structure (const GstStructure * s, guint64 target)
{
  guint64 u, v;
  gdouble d;
  const gchar *str;

  fail_unless (gst_structure_has_name (s, "rtpcc-target"), "%"
      GST_PTR_FORMAT, s);
  fail_unless (gst_structure_get_uint64 (s, "target-bitrate", &u));
  fail_unless_equals_uint64 (u, target);
  fail_unless (gst_structure_get_uint64 (s, "media-bitrate", &u));
  fail_unless_equals_uint64 (u, target);
  fail_unless (gst_structure_get_uint64 (s, "fec-bitrate", &u));
  fail_unless_equals_uint64 (u, 0);
  fail_unless (gst_structure_get_uint64 (s, "pacing-rate", &u));
  fail_unless (u >= target);
  /* all of it is media's (no FEC) */
  fail_unless (gst_structure_get_uint64 (s, "media-pacing-rate", &v));
  fail_unless_equals_uint64 (v, u);
  fail_unless (gst_structure_get_uint64 (s, "rtt", &u));
  fail_unless_equals_uint64 (u, 0);     /* no feedback yet */
  fail_unless (gst_structure_get_double (s, "loss", &d));
  fail_unless (d == 0.0);
  fail_unless (gst_structure_get_uint64 (s, "queue-delay", &u));
  str = gst_structure_get_string (s, "controller");
  fail_unless_equals_string (str, "fixed");
  str = gst_structure_get_string (s, "state");
  fail_unless (str != NULL && *str != '\0');
  str = gst_structure_get_string (s, "reason");
  fail_unless (str != NULL && *str != '\0');
}

GST_START_TEST (test_sink_target_publication)
{
  guint16 peer_port;
  GSocket *peer = udp_socket_new (&peer_port);
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  GstMessage *msg;
  GstEvent *ev = NULL, *e;
  GstTestClock *clock;
  gint notifies = 0;
  guint target = 0;

  g_object_set (sink, "controller", "fixed", "start-bitrate", 700000,
      "host", "127.0.0.1", "port", peer_port, NULL);
  gst_element_set_bus (sink, bus);
  g_signal_connect (sink, "notify::target-bitrate",
      G_CALLBACK (on_notify_count), &notifies);

  /* The sink starts (socket, task, controller) in NULL->READY, as
   * gst-launch takes it there, and publishes the first target at once,
   * while its pad is still inactive. */
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);

  /* 1. the bus message */
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no rtpcc-target message");
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (sink));
  check_target_structure (gst_message_get_structure (msg), 700000);
  gst_message_unref (msg);

  /* (the harness gives it its test clock: from now on the sink's time) */
  h = gst_harness_new_with_element (sink, "sink", NULL);
  clock = gst_harness_get_testclock (h);
  gst_harness_set_src_caps_str (h, RTP_CAPS);
  clock_settle (clock, 1);
  fail_unless_equals_int (push_and_settle (h, make_rtp (TEST_SSRC, 1, 0,
              TRUE, 100), clock, 1), GST_FLOW_OK);

  /* 2. the same structure upstream, as a custom upstream event, once the
   * pad is active */
  while (!ev && (e = gst_harness_try_pull_upstream_event (h))) {
    if (GST_EVENT_TYPE (e) == GST_EVENT_CUSTOM_UPSTREAM &&
        gst_event_has_name (e, "rtpcc-target"))
      ev = e;
    else
      gst_event_unref (e);
  }
  fail_unless (ev != NULL, "no rtpcc-target upstream event");
  check_target_structure (gst_event_get_structure (ev), 700000);
  gst_event_unref (ev);

  /* 3. the property and its notification */
  g_object_get (sink, "target-bitrate", &target, NULL);
  fail_unless_equals_int (target, 700000);
  fail_unless (g_atomic_int_get (&notifies) >= 1);

  /* a fixed controller publishes once: no further messages */
  clock_advance (clock, 1, 2 * GST_SECOND);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  fail_unless (msg == NULL);

  gst_harness_teardown (h);
  gst_object_unref (clock);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  g_object_unref (peer);
}

GST_END_TEST;

/* ---- 3. feedback from the peer ------------------------------------------ */

typedef struct
{
  GSocket *peer;
  guint16 peer_port;
  GstElement *sink;
  GstHarness *h;
  GstTestClock *clock;
  guint16 sink_port;
} SinkFixture;

/* (@srtp_key: NULL, or the sink's srtp-key) */
static void
sink_fixture_init_srtp (SinkFixture * f, const gchar * controller,
    const gchar * srtp_key)
{
  gint bound = 0;

  f->peer = udp_socket_new (&f->peer_port);
  f->sink = gst_element_factory_make ("rtpccsink", NULL);
  fail_unless (f->sink != NULL);
  g_object_set (f->sink, "controller", controller, "start-bitrate", 700000,
      "host", "127.0.0.1", "port", f->peer_port, "bind-address", "127.0.0.1",
      "srtp-key", srtp_key, NULL);
  f->h = gst_harness_new_with_element (f->sink, "sink", NULL);
  f->clock = gst_harness_get_testclock (f->h);
  gst_harness_set_src_caps_str (f->h, RTP_CAPS);
  g_object_get (f->sink, "bound-port", &bound, NULL);
  fail_unless (bound > 0 && bound < 65536);
  f->sink_port = (guint16) bound;
  clock_watch_port (f->clock, f->sink_port);
  clock_settle (f->clock, 1);
}

static void
sink_fixture_init (SinkFixture * f, const gchar * controller)
{
  sink_fixture_init_srtp (f, controller, NULL);
}

/* The peer sends @data to the sink, which processes it. */
static void
sink_fixture_send (SinkFixture * f, GSocket * from, const guint8 * data,
    gsize len)
{
  send_and_settle (from, f->sink_port, data, len, f->clock, 1);
}

static GstClockTime
clock_now (GstTestClock * clock)
{
  return gst_clock_get_time (GST_CLOCK (clock));
}

static void
sink_fixture_clear (SinkFixture * f)
{
  gst_harness_teardown (f->h);
  gst_object_unref (f->clock);
  gst_object_unref (f->sink);
  g_object_unref (f->peer);
}

/* Pushes @n packets from @seq and reads them off the peer socket as the
 * sink paces them out (SRs that come along are skipped), checking they
 * are ours and intact; then 20 ms pass, the peer's feedback delay. */
static void
push_and_receive (SinkFixture * f, guint16 seq, guint n)
{
  guint8 buf[2048];
  guint got = 0;
  GstClockTime end = clock_now (f->clock) + 5 * GST_SECOND;

  for (guint i = 0; i < n; i++)
    fail_unless_equals_int (push_and_settle (f->h, make_rtp (TEST_SSRC,
                (guint16) (seq + i), 3000 * (seq + i), i == n - 1, 500),
            f->clock, 1), GST_FLOW_OK);

  while (got < n && clock_now (f->clock) < end) {
    guint16 from = 0;
    gssize len = recv_datagram (f->peer, buf, sizeof (buf), &from);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    GstBuffer *b;

    if (len < 0) {
      clock_advance (f->clock, 1, GST_MSECOND);
      continue;
    }
    fail_unless_equals_int (from, f->sink_port);
    if (rtpcc_rtcp_is_rtcp (buf, len))
      continue;
    b = gst_buffer_new_memdup (buf, len);
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), TEST_SSRC);
    fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp),
        (guint16) (seq + got));
    fail_unless_equals_int (gst_rtp_buffer_get_payload_len (&rtp), 500);
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
    got++;
  }
  fail_unless_equals_int (got, n);
  clock_advance (f->clock, 1, 20 * GST_MSECOND);
}

GST_START_TEST (test_sink_feedback)
{
  SinkFixture f;
  guint8 fb[1500], junk[4000];
  gsize n;
  guint16 other_port;
  GSocket *other;
  guint64 malformed;

  sink_fixture_init (&f, "fixed");

  /* valid CCFB from the peer about what it received */
  push_and_receive (&f, 1000, 10);
  n = make_ccfb (fb, sizeof (fb), TEST_SSRC, 1000, 10, clock_now (f.clock));
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-received"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "reported-received"), 10);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "reported-lost"), 0);
  fail_unless (stat_u64 (f.sink, "rtt") > 0);
  fail_unless (stat_u64 (f.sink, "rtt") < 5 * GST_SECOND);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-malformed"), 0);

  /* garbage from the peer */
  sink_fixture_send (&f, f.peer, (const guint8 *) "not rtcp at all", 15);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-malformed"), 1);

  /* a valid CCFB about new packets, but from another port: ignored */
  push_and_receive (&f, 1010, 5);
  n = make_ccfb (fb, sizeof (fb), TEST_SSRC, 1010, 5, clock_now (f.clock));
  other = udp_socket_new (&other_port);
  sink_fixture_send (&f, other, fb, n);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-wrong-source"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-received"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "reported-received"), 10);
  g_object_unref (other);

  /* the same report from the peer is taken */
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-received"), 2);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "reported-received"), 15);

  /* from the peer, about an SSRC we do not send */
  n = make_ccfb (fb, sizeof (fb), 0x99999999, 1000, 10, clock_now (f.clock));
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-unknown-ssrc"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-received"), 2);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "reported-received"), 15);

  /* truncated, empty and oversized datagrams: counted, no crash */
  malformed = stat_u64 (f.sink, "rtcp-malformed");
  n = make_ccfb (fb, sizeof (fb), TEST_SSRC, 1010, 5, clock_now (f.clock));
  sink_fixture_send (&f, f.peer, fb, 10);
  sink_fixture_send (&f, f.peer, fb, 0);
  memset (junk, 0, sizeof (junk));
  memcpy (junk, fb, n);
  junk[2] = 0x03;               /* length field: 1000 words */
  junk[3] = 0xe7;
  sink_fixture_send (&f, f.peer, junk, sizeof (junk));
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-malformed"),
      malformed + 3);

  /* and feedback still works afterwards */
  push_and_receive (&f, 1015, 3);
  n = make_ccfb (fb, sizeof (fb), TEST_SSRC, 1015, 3, clock_now (f.clock));
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-received"), 3);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "reported-received"), 18);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "packets-sent"), 18);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "invalid-rtp"), 0);

  sink_fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_sink_invalid_rtp)
{
  SinkFixture f;
  guint8 buf[2048];
  static const guint8 not_rtp[] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
    0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d
  };

  sink_fixture_init (&f, "fixed");
  /* too short, wrong version, and an empty buffer */
  fail_unless_equals_int (push_and_settle (f.h,
          gst_buffer_new_memdup (not_rtp, 4), f.clock, 1), GST_FLOW_OK);
  fail_unless_equals_int (push_and_settle (f.h,
          gst_buffer_new_memdup (not_rtp, sizeof (not_rtp)), f.clock, 1),
      GST_FLOW_OK);
  fail_unless_equals_int (push_and_settle (f.h, gst_buffer_new (), f.clock,
          1), GST_FLOW_OK);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "invalid-rtp"), 3);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "packets-enqueued"), 0);
  /* nothing at all on the wire: no RTP, and no SR for a stream never seen
   * (an SR would be due within 1.5 s) */
  clock_advance (f.clock, 1, 3 * GST_SECOND);
  fail_unless (recv_datagram (f.peer, buf, sizeof (buf), NULL) < 0);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "packets-sent"), 0);
  sink_fixture_clear (&f);
}

GST_END_TEST;

/* ---- 3b. forged feedback ----------------------------------------------- */

/* A second socket on the same port (udp_socket_bind, shared) sends with
 * the first one's source address. The kernel hands a datagram for the
 * port to one of them: read both. */
static GSocket *
udp_socket_shared (guint16 * port)
{
  return udp_socket_bind (port, TRUE);
}

typedef struct
{
  RtpccTime at;
  GBytes *bytes;
} InFlight;

typedef struct
{
  guint32 ssrc;
  guint16 seq;
  RtpccTime sent;
} Seen;

/* The far end of a call from rtpccsink, played by the test with the
 * library on the sink's test clock: a 1 Mbit/s bottleneck (RtpccLink: 20
 * ms one way, 100 ms of queue), an RtpccReceiver sending CCFB from @rx;
 * and an attacker on the path, on @attacker (sharing @rx's address), who
 * sees every packet the sink sends and can answer for the receiver. */
typedef struct
{
  SinkFixture f;                /* (f.peer is @rx) */
  GSocket *attacker;
  RtpccLink *link;
  RtpccReceiver *recv;
  GQueue flight;
  GArray *seen;                 /* Seen: for the attacker */
  guint forged;                 /* forged reports sent */
  RtpccTime next_frame;
  guint16 seq;
} Call;

#define CALL_NTP (RTPCC_NTP_UNIX_EPOCH_NS + RTPCC_SEC (1700000000))

static void
call_init (Call * c)
{
  RtpccLinkConfig lc;
  RtpccReceiverConfig rc;
  RtpccCapacity *cap = rtpcc_capacity_new_constant (1000000);
  guint16 port = 0;
  SinkFixture *f = &c->f;
  gint bound = 0;

  memset (c, 0, sizeof (*c));
  f->peer = udp_socket_shared (&port);
  f->peer_port = port;
  c->attacker = udp_socket_shared (&port);
  fail_unless_equals_int (port, f->peer_port);
  f->sink = gst_element_factory_make ("rtpccsink", NULL);
  g_object_set (f->sink, "controller", "gcc", "start-bitrate", 950000,
      "max-bitrate", 5000000, "host", "127.0.0.1", "port", f->peer_port,
      "bind-address", "127.0.0.1", "encoder-control", 0, NULL);
  f->h = gst_harness_new_with_element (f->sink, "sink", NULL);
  f->clock = gst_harness_get_testclock (f->h);
  gst_harness_set_src_caps_str (f->h, RTP_CAPS);
  g_object_get (f->sink, "bound-port", &bound, NULL);
  f->sink_port = (guint16) bound;
  clock_watch_port (f->clock, f->sink_port);
  clock_settle (f->clock, 1);

  rtpcc_link_config_init (&lc);
  lc.capacity = cap;
  lc.delay = MS_ (20);
  lc.queue_limit_time = MS_ (100);
  c->link = rtpcc_link_new (&lc);
  rtpcc_capacity_unref (cap);
  rtpcc_receiver_config_init (&rc);
  rc.ntp_offset = CALL_NTP;
  rc.seed = 42;
  c->recv = rtpcc_receiver_new (&rc, (RtpccTime) clock_now (f->clock));
  g_queue_init (&c->flight);
  c->seen = g_array_new (FALSE, FALSE, sizeof (Seen));
  c->next_frame = (RtpccTime) clock_now (f->clock);
}

static void
call_clear (Call * c)
{
  InFlight *x;

  while ((x = g_queue_pop_head (&c->flight))) {
    g_bytes_unref (x->bytes);
    g_free (x);
  }
  g_array_unref (c->seen);
  rtpcc_receiver_free (c->recv);
  rtpcc_link_free (c->link);
  g_object_unref (c->attacker);
  sink_fixture_clear (&c->f);
}

/* What the sink sent during the last step: over the link (RTP), or to
 * the receiver at once (its SR). */
static void
call_take (Call * c, GSocket * s, RtpccTime now)
{
  guint8 buf[2048];
  gssize n;

  while ((n = recv_datagram (s, buf, sizeof buf, NULL)) >= 0) {
    RtpccLinkOutcome o;
    RtpccRtpInfo info;
    if (rtpcc_rtcp_is_rtcp (buf, n)) {
      rtpcc_receiver_on_rtcp (c->recv, now, buf, n);
      continue;
    }
    fail_unless (rtpcc_rtp_parse (buf, n, n, 0, &info, NULL));
    {
      Seen x = { info.ssrc, info.seq, now };
      g_array_append_val (c->seen, x);
    }
    rtpcc_link_send (c->link, now, (guint) n, &o);
    if (o.verdict == RTPCC_LINK_DELIVERED) {
      InFlight *x = g_new (InFlight, 1);
      x->at = o.deliver_at;
      x->bytes = g_bytes_new (buf, n);
      g_queue_push_tail (&c->flight, x);
    }
  }
}

/* The attacker answers for every packet seen since its last report:
 * "received, 20 ms after it left" — the path's delay without the queue
 * and without the bottleneck's serialisation — on the receiver's report
 * clock, from the receiver's address. */
static void
call_forge (Call * c, RtpccTime now)
{
  RtpccCcfbMetric m[512];
  RtpccCcfbBlockIn b;
  guint8 buf[1500];
  guint32 rts = rtpcc_ntp_short (rtpcc_ntp_from_time (now, CALL_NTP));
  RtpccTime report = rtpcc_ntp_short_to_time (rts);
  guint n = MIN (c->seen->len, G_N_ELEMENTS (m));
  gsize len;

  if (n == 0)
    return;
  memset (m, 0, sizeof m);
  for (guint i = 0; i < n; i++) {
    const Seen *x = &g_array_index (c->seen, Seen, c->seen->len - n + i);
    RtpccTime at = rtpcc_ntp_short_to_time (rtpcc_ntp_short
        (rtpcc_ntp_from_time (x->sent + MS_ (20), CALL_NTP)));
    m[i].received = TRUE;
    m[i].ato = rtpcc_ccfb_ato_from_delta (report - at);
  }
  b.media_ssrc = g_array_index (c->seen, Seen, c->seen->len - n).ssrc;
  b.begin_seq = g_array_index (c->seen, Seen, c->seen->len - n).seq;
  b.num_reports = n;
  b.metrics = m;
  len = rtpcc_ccfb_write (buf, sizeof buf, 0xfeedf00d, rts, &b, 1);
  fail_unless (len > 0);
  send_and_settle (c->attacker, c->f.sink_port, buf, len, c->f.clock, 1);
  g_array_set_size (c->seen, 0);
  c->forged++;
}

/* 2 ms of the call: a frame at the target every 33 ms (packets of at most
 * 1200 bytes), the link, the receiver's feedback; the attacker's reports
 * every 10 ms when @attack. */
static void
call_step (Call * c, gboolean attack)
{
  SinkFixture *f = &c->f;
  RtpccTime now = (RtpccTime) clock_now (f->clock);
  guint8 fb[1500];

  if (now >= c->next_frame) {
    guint target = 0;
    guint bytes;
    g_object_get (f->sink, "target-bitrate", &target, NULL);
    bytes = target / 8 / 30;
    for (guint left = bytes; left > 0;) {
      guint p = MIN (left, 1200);
      fail_unless_equals_int (push_and_settle (f->h, make_rtp (TEST_SSRC,
                  c->seq, (guint32) (now / 11111), left == p, p), f->clock,
              1), GST_FLOW_OK);
      c->seq++;
      left -= p;
    }
    c->next_frame += MS_ (33);
  }
  clock_advance (f->clock, 1, 2 * GST_MSECOND);
  now = (RtpccTime) clock_now (f->clock);
  call_take (c, f->peer, now);
  call_take (c, c->attacker, now);
  while (!g_queue_is_empty (&c->flight)
      && ((InFlight *) g_queue_peek_head (&c->flight))->at <= now) {
    InFlight *x = g_queue_pop_head (&c->flight);
    gsize n;
    const guint8 *d = g_bytes_get_data (x->bytes, &n);
    RtpccRtpInfo info;
    fail_unless (rtpcc_rtp_parse (d, n, n, 0, &info, NULL));
    rtpcc_receiver_on_rtp (c->recv, x->at, &info);
    g_bytes_unref (x->bytes);
    g_free (x);
  }
  if (attack && now % MS_ (10) < MS_ (2))
    call_forge (c, now);
  if (rtpcc_receiver_next_feedback_time (c->recv) <= now) {
    gsize n = rtpcc_receiver_build_feedback (c->recv, now, fb, sizeof fb);
    if (n > 0)
      send_and_settle (f->peer, f->sink_port, fb, n, f->clock, 1);
  }
}

/* A forged RFC 8888 report "everything arrived, at low delay", from the
 * receiver's address (an attacker on the path, or one who can spoof it),
 * arriving before the receiver's own: without checks the sender believes
 * it, ignores the receiver's losses and delays, and gcc climbs above the
 * 1 Mbit/s bottleneck (measured without the checks: from 1.0 to 1.56
 * Mbit/s in 8 s here, and on). The receiver's reports contradict the
 * forged ones: they are dropped and counted, and while feedback
 * contradicts itself the target does not rise. */
GST_START_TEST (test_sink_forged_feedback)
{
  Call c;
  guint target = 0, before = 0, highest = 0;

  call_init (&c);
  /* 4 s of the call alone */
  for (guint i = 0; i < 2000; i++)
    call_step (&c, FALSE);
  g_object_get (c.f.sink, "target-bitrate", &before, NULL);
  fail_unless_equals_uint64 (stat_u64 (c.f.sink, "feedback-contradictory"),
      0);
  fail_unless_equals_uint64 (stat_u64 (c.f.sink, "feedback-implausible"),
      0);
  /* 8 s with the attacker */
  for (guint i = 0; i < 4000; i++) {
    call_step (&c, TRUE);
    g_object_get (c.f.sink, "target-bitrate", &target, NULL);
    highest = MAX (highest, target);
  }
  GST_INFO ("target %u before the attack, at most %u during it, %u at the "
      "end; %u forged reports; %" G_GUINT64_FORMAT " contradictory, %"
      G_GUINT64_FORMAT " implausible; delivery rate %" G_GUINT64_FORMAT,
      before, highest, target, c.forged, stat_u64 (c.f.sink,
          "feedback-contradictory"), stat_u64 (c.f.sink,
          "feedback-implausible"), stat_u64 (c.f.sink, "delivery-rate"));
  fail_unless (before > 500000 && before < 1300000, "target %u", before);
  fail_unless (highest <= MAX (before, 1000000) * 12 / 10,
      "target reached %u (%u before the attack)", highest, before);
  fail_unless (stat_u64 (c.f.sink, "feedback-contradictory") > 0);
  call_clear (&c);
}

GST_END_TEST;

/* ---- 4. rtpccsrc -------------------------------------------------------- */

/* The CCFB blocks in one feedback datagram: adds every seq reported
 * received for @ssrc to @seen (indexed by seq - @base). FALSE if @data is
 * not a valid RTCP compound. */
static gboolean
collect_ccfb (const guint8 * data, gsize len, guint32 ssrc, guint16 base,
    gboolean * seen, guint n_seen, guint * n_ccfb)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;

  if (!rtpcc_rtcp_iter_init (&it, data, len))
    return FALSE;
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    GError *err = NULL;
    RtpccCcfb *fb;

    if (pkt.pt != RTPCC_RTCP_RTPFB || pkt.count != RTPCC_CCFB_FMT)
      continue;
    fb = rtpcc_ccfb_parse (pkt.data, pkt.len, &err);
    fail_unless (fb != NULL, "bad CCFB: %s", err ? err->message : "?");
    (*n_ccfb)++;
    for (guint b = 0; b < fb->n_blocks; b++) {
      const RtpccCcfbBlock *blk = &fb->blocks[b];
      if (blk->media_ssrc != ssrc)
        continue;
      for (guint i = 0; i < blk->num_reports; i++) {
        guint16 d = (guint16) (blk->metrics[i].seq - base);
        if (blk->metrics[i].received && d < n_seen)
          seen[d] = TRUE;
      }
    }
    rtpcc_ccfb_free (fb);
  }
  return TRUE;
}

typedef struct
{
  GSocket *peer;
  guint16 peer_port;
  GstElement *src;
  GstHarness *h;
  GstTestClock *clock;
  guint16 src_port;
} SrcFixture;

/* rtpccsrc in a harness on its test clock, receiving from f->peer; in
 * @feedback mode ("ccfb", "twcc", "rr"; NULL: the default), with a
 * kernel receive buffer of @buffer_size bytes (0: the default), and
 * @props ("name=value" strings, NULL-terminated; may be NULL) set before
 * it starts */
static void
src_fixture_init_props (SrcFixture * f, const gchar * feedback,
    guint buffer_size, const gchar * const *props)
{
  GstCaps *caps = gst_caps_from_string (RTP_CAPS);
  gint bound = 0;

  f->peer = udp_socket_new (&f->peer_port);
  f->src = gst_element_factory_make ("rtpccsrc", NULL);
  fail_unless (f->src != NULL);
  g_object_set (f->src, "address", "127.0.0.1", "port", 0, "caps", caps,
      NULL);
  gst_caps_unref (caps);
  if (feedback)
    gst_util_set_object_arg (G_OBJECT (f->src), "feedback", feedback);
  if (buffer_size)
    g_object_set (f->src, "buffer-size", buffer_size, NULL);
  for (guint i = 0; props && props[i]; i++) {
    gchar **kv = g_strsplit (props[i], "=", 2);
    fail_unless (kv[0] && kv[1]);
    gst_util_set_object_arg (G_OBJECT (f->src), kv[0], kv[1]);
    g_strfreev (kv);
  }
  f->h = gst_harness_new_with_element (f->src, NULL, "src");
  f->clock = gst_harness_get_testclock (f->h);
  gst_harness_play (f->h);
  g_object_get (f->src, "bound-port", &bound, NULL);
  fail_unless (bound > 0 && bound < 65536);
  f->src_port = (guint16) bound;
  clock_watch_port (f->clock, f->src_port);
  clock_settle (f->clock, 1);
}

static void
src_fixture_init_full (SrcFixture * f, const gchar * feedback,
    guint buffer_size)
{
  src_fixture_init_props (f, feedback, buffer_size, NULL);
}

static void
src_fixture_init_mode (SrcFixture * f, const gchar * feedback)
{
  src_fixture_init_full (f, feedback, 0);
}

static void
src_fixture_init (SrcFixture * f)
{
  src_fixture_init_mode (f, NULL);
}

/* @data from @from to the src, which then processes it */
static void
src_fixture_send (SrcFixture * f, GSocket * from, const guint8 * data,
    gsize len)
{
  send_and_settle (from, f->src_port, data, len, f->clock, 1);
}

static void
src_fixture_clear (SrcFixture * f)
{
  gst_harness_teardown (f->h);
  gst_object_unref (f->clock);
  gst_object_unref (f->src);
  g_object_unref (f->peer);
}

static void
send_rtp (SrcFixture * f, guint16 seq, gboolean marker)
{
  guint8 pkt[1500];
  gsize n = make_rtp_bytes (pkt, sizeof (pkt), TEST_SSRC, seq,
      3000 * seq, marker, 800);
  src_fixture_send (f, f->peer, pkt, n);
}

static guint16
pull_seq (SrcFixture * f)
{
  GstBuffer *b = gst_harness_pull (f->h);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint16 seq;

  fail_unless (b != NULL);
  fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
  fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), TEST_SSRC);
  fail_unless_equals_int (gst_rtp_buffer_get_payload_len (&rtp), 800);
  seq = gst_rtp_buffer_get_seq (&rtp);
  gst_rtp_buffer_unmap (&rtp);
  fail_unless (GST_BUFFER_PTS_IS_VALID (b));
  gst_buffer_unref (b);
  return seq;
}

GST_START_TEST (test_src_receive_and_feedback)
{
  SrcFixture f;
  GstCaps *caps, *want;
  gboolean seen[20] = { FALSE, };
  guint n_ccfb = 0, n_seen = 0;
  guint8 buf[2048];
  GstClockTime end;

  src_fixture_init (&f);

  /* two frames of 10 packets, marker on the last of each */
  for (guint i = 0; i < 20; i++)
    send_rtp (&f, (guint16) (65530 + i), i % 10 == 9);
  for (guint i = 0; i < 20; i++)
    fail_unless_equals_int (pull_seq (&f), (guint16) (65530 + i));

  caps = gst_pad_get_current_caps (f.h->sinkpad);
  want = gst_caps_from_string (RTP_CAPS);
  fail_unless (caps != NULL);
  fail_unless (gst_caps_is_equal (caps, want), "caps %" GST_PTR_FORMAT,
      caps);
  gst_caps_unref (caps);
  gst_caps_unref (want);

  /* feedback comes back to the address the RTP came from, and covers it */
  end = clock_now (f.clock) + 1500 * GST_MSECOND;
  while (n_seen < 20 && clock_now (f.clock) < end) {
    gssize n = recv_datagram (f.peer, buf, sizeof (buf), NULL);
    if (n < 0) {
      clock_advance (f.clock, 1, 10 * GST_MSECOND);
      continue;
    }
    fail_unless (rtpcc_rtcp_is_rtcp (buf, n));
    fail_unless (collect_ccfb (buf, n, TEST_SSRC, 65530, seen, 20, &n_ccfb),
        "feedback is not a valid RTCP compound");
    n_seen = 0;
    for (guint i = 0; i < 20; i++)
      n_seen += seen[i];
  }
  fail_unless (n_ccfb >= 1, "no CCFB within 1.5 s");
  fail_unless_equals_int (n_seen, 20);

  fail_unless_equals_uint64 (stat_u64 (f.src, "packets-received"), 20);
  fail_unless_equals_uint64 (stat_u64 (f.src, "packets-lost"), 0);
  fail_unless (stat_u64 (f.src, "feedback-sent") >= 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "invalid-rtp"), 0);

  src_fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_src_bad_input)
{
  SrcFixture f;
  guint8 pkt[2048];
  gsize n, m;
  RtpccRtcpSR sr;
  static const guint8 junk[] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
    0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d
  };

  src_fixture_init (&f);
  send_rtp (&f, 100, TRUE);
  fail_unless_equals_int (pull_seq (&f), 100);

  /* not RTP: short, wrong version, a lone byte, an empty datagram */
  src_fixture_send (&f, f.peer, junk, sizeof (junk));
  src_fixture_send (&f, f.peer, junk, 4);
  src_fixture_send (&f, f.peer, junk + 1, 1);
  src_fixture_send (&f, f.peer, junk, 0);

  /* the sender's RTCP (SR + SDES) on the same port */
  memset (&sr, 0, sizeof (sr));
  sr.ssrc = TEST_SSRC;
  sr.ntp = G_GUINT64_CONSTANT (0xE875470140000000);
  sr.rtp_ts = 300;
  sr.packet_count = 1;
  sr.octet_count = 800;
  n = rtpcc_rtcp_write_sr (pkt, sizeof (pkt), &sr);
  fail_unless (n > 0);
  m = rtpcc_rtcp_write_sdes_cname (pkt + n, sizeof (pkt) - n, TEST_SSRC,
      "peer@test");
  fail_unless (m > 0);
  src_fixture_send (&f, f.peer, pkt, n + m);
  /* a truncated RTCP packet */
  src_fixture_send (&f, f.peer, pkt, 6);

  /* none of that comes out: the next buffer is the next RTP packet */
  send_rtp (&f, 101, TRUE);
  fail_unless_equals_int (pull_seq (&f), 101);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.h), 0);

  fail_unless (stat_u64 (f.src, "invalid-rtp") >= 3);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtcp-received"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "packets-received"), 2);

  src_fixture_clear (&f);
}

GST_END_TEST;

/* ---- 1+4. sink and src talking to each other ---------------------------- */

/* rtpccsink sending to rtpccsrc, each in a harness, both on one test
 * clock. */
typedef struct
{
  GstTestClock *clock;
  GstElement *sink, *src;
  GstHarness *hs, *hr;
  guint16 src_port;
} Pair;

/* Makes the two elements, for the caller to configure before
 * pair_start(). */
static void
pair_init (Pair * p)
{
  GstCaps *caps = gst_caps_from_string (RTP_CAPS);

  memset (p, 0, sizeof (*p));
  p->src = gst_element_factory_make ("rtpccsrc", NULL);
  p->sink = gst_element_factory_make ("rtpccsink", NULL);
  fail_unless (p->src && p->sink);
  g_object_set (p->src, "address", "127.0.0.1", "port", 0, "caps", caps,
      NULL);
  gst_caps_unref (caps);
}

/* Starts the src, points the sink at @to (0: the src), starts the sink;
 * the sink's bound port goes to @sink_port (may be NULL). */
static void
pair_start_to (Pair * p, guint16 to, guint16 * sink_port)
{
  gint port = 0;

  p->clock = GST_TEST_CLOCK (gst_test_clock_new ());
  /* (each harness takes the clock its element already has) */
  gst_element_set_clock (p->src, GST_CLOCK (p->clock));
  gst_element_set_clock (p->sink, GST_CLOCK (p->clock));
  p->hr = gst_harness_new_with_element (p->src, NULL, "src");
  gst_harness_play (p->hr);
  g_object_get (p->src, "bound-port", &port, NULL);
  fail_unless (port > 0 && port < 65536);
  p->src_port = (guint16) port;
  g_object_set (p->sink, "host", "127.0.0.1", "port", to ? to : port, NULL);
  p->hs = gst_harness_new_with_element (p->sink, "sink", NULL);
  gst_harness_set_src_caps_str (p->hs, RTP_CAPS);
  g_object_get (p->sink, "bound-port", &port, NULL);
  if (sink_port)
    *sink_port = (guint16) port;
  clock_watch_port (p->clock, p->src_port);
  clock_watch_port (p->clock, (guint16) port);
  clock_settle (p->clock, 2);
}

static void
pair_start (Pair * p)
{
  pair_start_to (p, 0, NULL);
}

static void
pair_push (Pair * p, GstBuffer * buf)
{
  fail_unless_equals_int (push_and_settle (p->hs, buf, p->clock, 2),
      GST_FLOW_OK);
}

static void
pair_advance (Pair * p, GstClockTime dt)
{
  clock_advance (p->clock, 2, dt);
}

/* What the src pushed so far (the test clock runs while it is less than
 * @n, up to 5 s): appended to @out if not NULL, else dropped. */
static guint
pair_pull (Pair * p, guint n, GPtrArray * out)
{
  GstClockTime end = clock_now (p->clock) + 5 * GST_SECOND;
  guint got = 0;

  for (;;) {
    GstBuffer *b = gst_harness_try_pull (p->hr);
    if (b) {
      if (out)
        g_ptr_array_add (out, b);
      else
        gst_buffer_unref (b);
      got++;
      continue;
    }
    if (got >= n || clock_now (p->clock) >= end)
      break;
    pair_advance (p, GST_MSECOND);
  }
  return got;
}

/* Runs the clock (up to @max) until @e's counter @field reaches
 * @at_least; returns the counter. */
static guint64
run_until_stat (GstTestClock * clock, guint waiters, GstElement * e,
    const gchar * field, guint64 at_least, GstClockTime max)
{
  GstClockTime end = clock_now (clock) + max;
  guint64 v;

  while ((v = stat_u64 (e, field)) < at_least && clock_now (clock) < end)
    clock_advance (clock, waiters, 10 * GST_MSECOND);
  return v;
}

static void
pair_clear (Pair * p)
{
  gst_harness_teardown (p->hs);
  gst_harness_teardown (p->hr);
  gst_object_unref (p->sink);
  gst_object_unref (p->src);
  gst_object_unref (p->clock);
}

GST_START_TEST (test_sink_to_src_loopback)
{
  Pair p;
  GstElement *sink;

  pair_init (&p);
  sink = p.sink;
  g_object_set (sink, "controller", "fixed", "start-bitrate", 2000000,
      NULL);
  pair_start (&p);

  for (guint i = 0; i < 30; i++)
    pair_push (&p, make_rtp (TEST_SSRC, (guint16) i, 3000 * (i / 3),
            i % 3 == 2, 1000));
  fail_unless_equals_int (pair_pull (&p, 30, NULL), 30);
  /* the sink hears the src's feedback (the src answers to the sink's
   * bound port, which is where the sink accepts it from) */
  fail_unless (run_until_stat (p.clock, 2, sink, "reported-received", 30,
          3 * GST_SECOND) == 30);
  fail_unless (stat_u64 (sink, "rtcp-received") >= 1);
  fail_unless (stat_u64 (sink, "rtt") > 0);
  fail_unless_equals_uint64 (stat_u64 (sink, "rtcp-wrong-source"), 0);
  fail_unless_equals_uint64 (stat_u64 (sink, "rtcp-malformed"), 0);
  fail_unless_equals_uint64 (stat_u64 (sink, "rtcp-unknown-ssrc"), 0);
  {
    GstStructure *stats = NULL;
    gboolean srtp = TRUE;
    g_object_get (sink, "stats", &stats, NULL);
    fail_unless (gst_structure_get_string (stats, "feedback-problem") == NULL);
    /* (SRTP is off by default) */
    fail_unless (gst_structure_get_boolean (stats, "srtp", &srtp));
    fail_if (srtp);
    gst_structure_free (stats);
  }

  pair_clear (&p);
}

GST_END_TEST;

/* @n 1000-byte packets of TEST_SSRC, three per frame, from the sink to
 * the src and out of it. */
static void
pair_media (Pair * p, guint16 n)
{
  for (guint16 seq = 0; seq < n; seq++)
    pair_push (p, make_rtp (TEST_SSRC, seq, 3000 * (seq / 3), seq % 3 == 2,
            1000));
  fail_unless_equals_int (pair_pull (p, n, NULL), n);
}

/* rtpccsrc max-bitrate-request set while playing: its TMMBR reaches the
 * sink, which holds its target at the request and answers with a TMMBN
 * the src counts. */
GST_START_TEST (test_max_bitrate_request)
{
  Pair p;
  GstStructure *stats = NULL;
  gboolean acked = FALSE;

  pair_init (&p);
  g_object_set (p.sink, "controller", "fixed", "start-bitrate", 2000000,
      NULL);
  pair_start (&p);
  pair_media (&p, 30);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "target-bitrate"), 2000000);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "receiver-limit"), 0);

  g_object_set (p.src, "max-bitrate-request", (guint64) 500000, NULL);
  fail_unless (run_until_stat (p.clock, 2, p.src, "tmmbn-received", 1,
          3 * GST_SECOND) >= 1);
  fail_unless (stat_u64 (p.src, "tmmbr-sent") >= 1);
  fail_unless (stat_u64 (p.sink, "tmmbr-received") >= 1);
  fail_unless (stat_u64 (p.sink, "tmmbn-sent") >= 1);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "receiver-limit"), 500000);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "target-bitrate"), 500000);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "rtcp-malformed"), 0);
  g_object_get (p.src, "stats", &stats, NULL);
  fail_unless (gst_structure_get_boolean (stats, "max-bitrate-acked",
          &acked));
  fail_unless (acked);
  gst_structure_free (stats);

  pair_clear (&p);
}

GST_END_TEST;

/* rtpccsrc remb=true: its estimate goes out as REMB with the RR and
 * reaches the sink, whose rrtcc controller holds its rate at or under it
 * (the receiver's estimate starts at 300 kbit/s, the sender at 2 Mbit/s). */
GST_START_TEST (test_remb_to_rrtcc)
{
  Pair p;
  guint64 limit;

  pair_init (&p);
  g_object_set (p.src, "remb", TRUE, NULL);
  g_object_set (p.sink, "controller", "rrtcc", "start-bitrate", 2000000,
      NULL);
  pair_start (&p);
  pair_media (&p, 30);
  fail_unless (run_until_stat (p.clock, 2, p.sink, "remb-received", 1,
          3 * GST_SECOND) >= 1);
  fail_unless (stat_u64 (p.src, "remb-sent") >= 1);
  limit = stat_u64 (p.sink, "receiver-limit");
  fail_unless (limit > 0 && limit <= 2 * 300000, "%" G_GUINT64_FORMAT,
      limit);
  fail_unless (stat_u64 (p.sink, "target-bitrate") <= limit);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "rtcp-malformed"), 0);
  pair_clear (&p);
}

GST_END_TEST;

/* rtpccsrc nadu=true: a NADU and its estimate (a REMB) go out with every
 * RR and reach the sink's cnadu controller, which keeps its rate at or
 * under the estimate; on loopback every frame is on time. */
GST_START_TEST (test_nadu_to_cnadu)
{
  Pair p;
  guint64 limit;

  pair_init (&p);
  g_object_set (p.src, "nadu", TRUE, NULL);
  g_object_set (p.sink, "controller", "cnadu", "start-bitrate", 2000000,
      NULL);
  pair_start (&p);
  pair_media (&p, 30);
  fail_unless (run_until_stat (p.clock, 2, p.sink, "nadu-received", 1,
          3 * GST_SECOND) >= 1);
  fail_unless (stat_u64 (p.src, "nadu-sent") >= 1);
  fail_unless_equals_uint64 (stat_u64 (p.src, "nadu-frames-missed"), 0);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "nadu-rejected"), 0);
  fail_unless (stat_u64 (p.sink, "remb-received") >= 1);
  limit = stat_u64 (p.sink, "receiver-limit");
  fail_unless_equals_uint64 (limit, stat_u64 (p.src, "nadu-estimate"));
  fail_unless (stat_u64 (p.sink, "target-bitrate") <= limit);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "rtcp-malformed"), 0);
  pair_clear (&p);
}

GST_END_TEST;

/* With controller=fbra the sink asks the src (RTCP APP "FBIV" with its
 * SRs) for RRs every 2.5 min RTTs (here the 100 ms floor: loopback), and
 * the src, left at its default 1 s rtcp-interval, reports at that. */
GST_START_TEST (test_report_interval_follows)
{
  Pair p;
  guint64 rr0, asked;

  pair_init (&p);
  g_object_set (p.sink, "controller", "fbra", NULL);
  pair_start (&p);
  for (guint16 seq = 0; seq < 30; seq++)
    pair_push (&p, make_rtp (TEST_SSRC, seq, 3000 * (seq / 3), seq % 3 == 2,
            1000));
  fail_unless_equals_int (pair_pull (&p, 30, NULL), 30);
  fail_unless (run_until_stat (p.clock, 2, p.src, "interval-requests", 1,
          3 * GST_SECOND) >= 1);
  asked = stat_u64 (p.sink, "report-interval-asked");
  fail_unless (asked >= 100 * GST_MSECOND && asked < GST_SECOND,
      "asked %" G_GUINT64_FORMAT, asked);
  fail_unless_equals_uint64 (stat_u64 (p.src, "report-interval"), asked);
  /* and reports at it: ~20 RRs in 5 s at 250 ms, 5 at 1 s */
  rr0 = stat_u64 (p.src, "rtcp-sent");
  for (guint i = 0; i < 500; i++)
    pair_advance (&p, 10 * GST_MSECOND);
  fail_unless (stat_u64 (p.src, "rtcp-sent") - rr0 >= 5 * GST_SECOND /
      asked * 2 / 3, "%" G_GUINT64_FORMAT " RRs",
      stat_u64 (p.src, "rtcp-sent") - rr0);

  pair_clear (&p);
}

GST_END_TEST;

/* Sender expects CCFB, receiver sends RR only: after the grace period the
 * sink says so on the bus and in its stats, naming the likely cause. */
GST_START_TEST (test_feedback_mode_mismatch)
{
  Pair p;
  GstElement *sink;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  const GstStructure *st;
  GstStructure *stats = NULL;
  const gchar *problem;

  pair_init (&p);
  sink = p.sink;
  g_object_set (p.src, "feedback", 1 /* rr */ , "rtcp-interval", 300, NULL);
  gst_element_set_bus (sink, bus);
  g_object_set (sink, "controller", "fixed", NULL);
  pair_start (&p);

  /* 4 s of media: past the 3 s grace */
  for (guint i = 0; i < 200; i++) {
    pair_push (&p, make_rtp (TEST_SSRC, (guint16) i, 3000 * (i / 3),
            i % 3 == 2, 500));
    pair_advance (&p, 20 * GST_MSECOND);
  }
  msg = gst_bus_timed_pop_filtered (bus, 2 * GST_SECOND, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning about the missing feedback");
  {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_warning (msg, &err, &dbg);
    fail_unless (strstr (err->message, "feedback") != NULL);
    fail_unless (dbg && strstr (dbg, "CCFB") != NULL, "debug: %s", dbg);
    g_clear_error (&err);
    g_free (dbg);
  }
  gst_message_unref (msg);
  /* RTCP did arrive (the RRs): the problem is the mode, not the path */
  fail_unless (stat_u64 (sink, "rtcp-received") >= 1);
  g_object_get (sink, "stats", &stats, NULL);
  st = stats;
  problem = gst_structure_get_string (st, "feedback-problem");
  fail_unless (problem && strstr (problem, "rtpccsrc feedback=ccfb"));
  gst_structure_free (stats);

  pair_clear (&p);
  gst_object_unref (bus);
}

GST_END_TEST;

/* ---- 4b. who the receiver answers to ------------------------------------ */

/* A padding-only RTP packet (P bit, 4 bytes of padding, no payload). */
static gsize
make_padding_bytes (guint8 * out, gsize max, guint32 ssrc, guint16 seq)
{
  gsize n = make_rtp_bytes (out, max, ssrc, seq, 0, FALSE, 0);

  fail_unless (n + 4 <= max);
  out[0] |= 0x20;
  out[n] = out[n + 1] = out[n + 2] = 0;
  out[n + 3] = 4;
  return n + 4;
}

/* Datagrams waiting on @s (dropped). */
static guint
drain (GSocket * s)
{
  guint8 buf[2048];
  guint n = 0;

  while (recv_datagram (s, buf, sizeof buf, NULL) >= 0)
    n++;
  return n;
}

/* A third party on another port sends RTP to rtpccsrc while a call runs:
 * padding-only packets, and packets with payload on SSRCs of its own, 250
 * a second. The receiver's feedback must keep going to the sender only
 * (it names SSRCs and sequence numbers), and the sender must see none of
 * its packets lost. Before the peer was confirmed per source, each such
 * packet re-pointed the feedback: the attacker got most of it and the
 * sender took the packets it no longer heard about for lost. */
GST_START_TEST (test_src_peer_not_redirected)
{
  Pair p;
  GSocket *attacker;
  guint16 attacker_port;
  guint8 pkt[1500];
  guint sent = 0, got = 0, to_attacker = 0;
  guint64 start_target = 1000000;
  guint target = 0;

  pair_init (&p);
  g_object_set (p.sink, "controller", "gcc", "start-bitrate",
      (guint) start_target, NULL);
  pair_start (&p);
  attacker = udp_socket_new (&attacker_port);

  /* 2 s: a frame of three packets every 32 ms; from the fourth frame on,
   * an attack packet every 4 ms */
  for (guint t = 0; t < 500 + 24; t++) {
    gsize n;
    if (t % 8 == 0) {
      for (guint k = 0; k < 3; k++, sent++)
        pair_push (&p, make_rtp (TEST_SSRC, (guint16) sent, 3000 * (t / 8),
                k == 2, 1000));
    }
    if (t < 24) {
      pair_advance (&p, 4 * GST_MSECOND);
      got += pair_pull (&p, 0, NULL);
      continue;
    }
    if (t % 2 == 0)
      n = make_padding_bytes (pkt, sizeof pkt, 0xA77AC4E0, (guint16) t);
    else
      n = make_rtp_bytes (pkt, sizeof pkt, 0xA7000000u + t, (guint16) t,
          90 * t, TRUE, 100);
    send_and_settle (attacker, p.src_port, pkt, n, p.clock, 2);
    pair_advance (&p, 4 * GST_MSECOND);
    got += pair_pull (&p, 0, NULL);
    to_attacker += drain (attacker);
  }
  /* (the feedback crosses between two elements: the clock runs until it
   * is in, or long after it should be) */
  run_until_stat (p.clock, 2, p.sink, "reported-received", sent, GST_SECOND);
  got += pair_pull (&p, 0, NULL);
  to_attacker += drain (attacker);
  g_object_get (p.sink, "target-bitrate", &target, NULL);
  GST_INFO ("%u media packets sent, %u pushed; %u datagrams to the "
      "attacker; src refused %" G_GUINT64_FORMAT ", sink reported %"
      G_GUINT64_FORMAT " received, %" G_GUINT64_FORMAT " lost, target %u",
      sent, got, to_attacker, stat_u64 (p.src, "peer-refused"),
      stat_u64 (p.sink, "reported-received"), stat_u64 (p.sink,
          "reported-lost"), target);

  fail_unless_equals_int (to_attacker, 0);
  fail_unless_equals_uint64 (stat_u64 (p.src, "peer-refused"), 500);
  fail_unless_equals_uint64 (stat_u64 (p.src, "peer-changes"), 0);
  /* nothing of the attacker's reached downstream or the arrival log */
  fail_unless_equals_int (got, sent);
  fail_unless_equals_uint64 (stat_u64 (p.src, "packets-received"), sent);
  fail_unless_equals_uint64 (stat_u64 (p.src, "sources"), 1);
  /* the sender heard about every packet, and lost none */
  fail_unless_equals_uint64 (stat_u64 (p.sink, "reported-received"), sent);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "reported-lost"), 0);
  fail_unless (target >= start_target, "target %u", target);

  g_object_unref (attacker);
  pair_clear (&p);
}

GST_END_TEST;

/* The peer moves with the established media source (a NAT rebinding):
 * its SSRC, continuing its sequence, from a new address, four times in a
 * row; the first three are refused, the fourth taken, and the feedback
 * follows. Not while the old address still sends that SSRC, and never
 * for an SSRC the peer has not sent media on. */
GST_START_TEST (test_src_peer_moves_with_media_source)
{
  SrcFixture f;
  GSocket *moved, *third;
  guint16 moved_port, third_port;
  guint8 pkt[1500];
  gsize n;
  guint16 seq = 0;

  src_fixture_init (&f);
  moved = udp_socket_new (&moved_port);
  third = udp_socket_new (&third_port);

  for (; seq < 10; seq++)
    send_rtp (&f, seq, TRUE);
  for (guint i = 0; i < 10; i++)
    fail_unless_equals_int (pull_seq (&f), i);
  clock_advance (f.clock, 1, 200 * GST_MSECOND);
  fail_unless (drain (f.peer) > 0, "no feedback to the sender");

  /* an unknown SSRC from a third address, in sequence: never */
  for (guint i = 0; i < 10; i++) {
    n = make_rtp_bytes (pkt, sizeof pkt, 0x0BADCAFE, (guint16) (500 + i),
        0, TRUE, 800);
    src_fixture_send (&f, third, pkt, n);
  }
  /* the media SSRC from the new address, interleaved with the old one:
   * both alive, no move */
  for (guint i = 0; i < 7; i++, seq++) {
    n = make_rtp_bytes (pkt, sizeof pkt, TEST_SSRC, seq, 3000 * seq, TRUE,
        800);
    src_fixture_send (&f, i % 2 ? moved : f.peer, pkt, n);
  }
  fail_unless_equals_uint64 (stat_u64 (f.src, "peer-changes"), 0);
  fail_unless_equals_uint64 (stat_u64 (f.src, "peer-refused"), 13);
  /* (what the old address sent of them was pushed) */
  for (guint i = 0; i < 4; i++)
    fail_unless_equals_int (pull_seq (&f), 10 + 2 * i);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.h), 0);
  clock_advance (f.clock, 1, 200 * GST_MSECOND);
  fail_unless (drain (f.peer) > 0);
  fail_unless_equals_int (drain (moved) + drain (third), 0);

  /* the old address falls silent: four in a row from the new one */
  for (guint i = 0; i < 4; i++, seq++) {
    n = make_rtp_bytes (pkt, sizeof pkt, TEST_SSRC, seq, 3000 * seq, TRUE,
        800);
    src_fixture_send (&f, moved, pkt, n);
  }
  fail_unless_equals_uint64 (stat_u64 (f.src, "peer-changes"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "peer-refused"), 16);
  fail_unless_equals_int (pull_seq (&f), seq - 1);
  clock_advance (f.clock, 1, 200 * GST_MSECOND);
  fail_unless (drain (moved) > 0, "no feedback at the new address");
  fail_unless_equals_int (drain (f.peer), 0);
  /* and the old address is refused now */
  send_rtp (&f, seq, TRUE);
  fail_unless_equals_uint64 (stat_u64 (f.src, "peer-refused"), 17);

  g_object_unref (moved);
  g_object_unref (third);
  src_fixture_clear (&f);
}

GST_END_TEST;

/* The sender's SR sets the LSR the receiver's RRs echo, from which the
 * sender computes its RTT: only the peer's is taken. One from another
 * address is refused and counted, and the RRs keep the sender's LSR. A
 * well-formed SR about an SSRC we never received is counted too. */
GST_START_TEST (test_src_sr_only_from_peer)
{
  SrcFixture f;
  GSocket *third;
  guint16 third_port;
  guint8 pkt[512], buf[2048];
  RtpccRtcpSR sr;
  gsize n;
  guint32 lsr = 0;
  gboolean have_rr = FALSE;
  GstClockTime end;

  src_fixture_init (&f);
  third = udp_socket_new (&third_port);
  for (guint16 i = 0; i < 5; i++)
    send_rtp (&f, i, TRUE);
  for (guint i = 0; i < 5; i++)
    pull_seq (&f);

  memset (&sr, 0, sizeof (sr));
  sr.ssrc = TEST_SSRC;
  sr.ntp = G_GUINT64_CONSTANT (0xE875470112340000);
  n = rtpcc_rtcp_write_sr (pkt, sizeof (pkt), &sr);
  src_fixture_send (&f, f.peer, pkt, n);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtcp-received"), 1);
  /* a forged SR (another NTP time) from a third address */
  sr.ntp = G_GUINT64_CONSTANT (0xE8754701ABCD0000);
  n = rtpcc_rtcp_write_sr (pkt, sizeof (pkt), &sr);
  src_fixture_send (&f, third, pkt, n);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtcp-wrong-source"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtcp-received"), 1);
  /* from the peer, about an SSRC it never sent */
  sr.ssrc = 0x0BADCAFE;
  n = rtpcc_rtcp_write_sr (pkt, sizeof (pkt), &sr);
  src_fixture_send (&f, f.peer, pkt, n);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtcp-unknown-ssrc"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtcp-received"), 1);

  /* the next RR echoes the sender's SR */
  end = clock_now (f.clock) + 2 * GST_SECOND;
  while (!have_rr && clock_now (f.clock) < end) {
    gssize len = recv_datagram (f.peer, buf, sizeof buf, NULL);
    RtpccRtcpIter it;
    RtpccRtcpPacket rp;
    if (len < 0) {
      clock_advance (f.clock, 1, 10 * GST_MSECOND);
      continue;
    }
    fail_unless (rtpcc_rtcp_iter_init (&it, buf, len));
    while (rtpcc_rtcp_iter_next (&it, &rp)) {
      RtpccRtcpRR rr;
      if (rp.pt != RTPCC_RTCP_RR || !rtpcc_rtcp_parse_rr (&rp, &rr)
          || rr.n_blocks == 0)
        continue;
      fail_unless_equals_int (rr.blocks[0].ssrc, TEST_SSRC);
      lsr = rr.blocks[0].lsr;
      have_rr = TRUE;
    }
  }
  fail_unless (have_rr, "no RR");
  fail_unless_equals_int (lsr, 0x47011234);
  fail_unless_equals_int (drain (third), 0);

  g_object_unref (third);
  src_fixture_clear (&f);
}

GST_END_TEST;

/* Datagrams the kernel drops for want of room in the socket's receive
 * buffer show in stats (SO_RXQ_OVFL): here the src is held in its push
 * downstream while a burst arrives. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean held;
} Hold;

static GstPadProbeReturn
hold_push (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Hold *h = data;

  g_mutex_lock (&h->lock);
  h->held = TRUE;
  g_cond_signal (&h->cond);
  g_mutex_unlock (&h->lock);
  return GST_PAD_PROBE_OK;      /* (stays blocked until removed) */
}

GST_START_TEST (test_src_kernel_drops)
{
  SrcFixture f;
  guint8 pkt[1500];
  gsize n;
  guint pulled = 0;
  Hold hold;
  GstPad *pad;
  gulong probe;

  g_mutex_init (&hold.lock);
  g_cond_init (&hold.cond);
  hold.held = FALSE;
  src_fixture_init_full (&f, NULL, 4096);
  pad = gst_element_get_static_pad (f.src, "src");
  probe = gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_BUFFER, hold_push, &hold, NULL);
  n = make_rtp_bytes (pkt, sizeof pkt, TEST_SSRC, 0, 0, TRUE, 1000);
  send_to_port (f.peer, f.src_port, pkt, n);
  g_mutex_lock (&hold.lock);
  while (!hold.held)
    g_cond_wait (&hold.cond, &hold.lock);
  g_mutex_unlock (&hold.lock);
  fail_unless_equals_uint64 (stat_u64 (f.src, "kernel-drops"), 0);

  /* the src is held pushing seq 0: the burst overflows its socket */
  for (guint16 i = 1; i < 200; i++) {
    n = make_rtp_bytes (pkt, sizeof pkt, TEST_SSRC, i, 3000 * i, TRUE, 1000);
    send_to_port (f.peer, f.src_port, pkt, n);
  }
  gst_pad_remove_probe (pad, probe);
  gst_object_unref (pad);
  /* (the src held no clock id while held: one pending means it read all
   * its socket had) */
  clock_settle (f.clock, 1);
  /* a last one, read after all that made it */
  n = make_rtp_bytes (pkt, sizeof pkt, TEST_SSRC, 200, 0, TRUE, 1000);
  send_to_port (f.peer, f.src_port, pkt, n);
  for (;;) {
    GstBuffer *b = gst_harness_pull (f.h);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint16 seq;

    fail_unless (b != NULL);
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    seq = gst_rtp_buffer_get_seq (&rtp);
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
    pulled++;
    if (seq == 200)
      break;
  }
  GST_INFO ("%u of 201 pushed, kernel-drops %" G_GUINT64_FORMAT, pulled,
      stat_u64 (f.src, "kernel-drops"));
  fail_unless (pulled < 150, "%u of 201 pushed: nothing dropped?", pulled);
  fail_unless_equals_uint64 (stat_u64 (f.src, "kernel-drops"), 201 - pulled);
  /* (RFC 3550 counts them lost, as the network's) */
  fail_unless_equals_uint64 (stat_u64 (f.src, "packets-lost"), 201 - pulled);
  src_fixture_clear (&f);
  g_mutex_clear (&hold.lock);
  g_cond_clear (&hold.cond);
}

GST_END_TEST;

/* ---- 5. encoder control ------------------------------------------------- */

/* "test-step": a controller that walks a step sequence, one step per
 * 300 ms, scheduled with next_tick. Decreases are applied by the sink at
 * once; the increases test the hysteresis (applied, but at most once a
 * second). */
static const guint64 step_kbps[] = {
  1200, 900, 600, 400, 400, 400, 400, 800, 1000
};

#define STEP_INTERVAL RTPCC_MSEC (300)

typedef struct
{
  RtpccController parent;
  guint index;
} StepController;

static void
step_init (RtpccController * cc, RtpccTime now)
{
  StepController *s = (StepController *) cc;

  s->index = 0;
  rtpcc_controller_update_target (cc, step_kbps[0] * 1000, 0, 1.0, "step",
      "step");
  cc->next_tick = now + STEP_INTERVAL;
}

static void
step_tick (RtpccController * cc, RtpccTime now)
{
  StepController *s = (StepController *) cc;

  if (s->index + 1 >= G_N_ELEMENTS (step_kbps))
    return;
  s->index++;
  rtpcc_controller_update_target (cc, step_kbps[s->index] * 1000, 0, 1.0,
      "step", "step");
  /* relative to now: a late tick never makes two steps at once */
  cc->next_tick = now + STEP_INTERVAL;
}

static const RtpccControllerOps step_ops = {
  .name = "test-step",
  .description = "steps through a fixed sequence (elements_rtpcc test)",
  .instance_size = sizeof (StepController),
  .init = step_init,
  .on_tick = step_tick,
};

typedef struct
{
  GMutex lock;
  GArray *values;               /* guint64, in the encoder's units */
  const gchar *property;
  guint keyframes;
  guint frames;
} EncoderLog;

static void
on_encoder_notify (GObject * enc, GParamSpec * pspec, gpointer data)
{
  EncoderLog *log = data;
  GValue v = G_VALUE_INIT;
  guint64 x;

  g_value_init (&v, pspec->value_type);
  g_object_get_property (enc, log->property, &v);
  if (G_VALUE_HOLDS_UINT (&v))
    x = g_value_get_uint (&v);
  else if (G_VALUE_HOLDS_INT (&v))
    x = (guint64) g_value_get_int (&v);
  else
    x = 0;
  g_value_unset (&v);
  g_mutex_lock (&log->lock);
  /* GObject notifies even for an unchanged value: keep changes only */
  if (log->values->len == 0 || g_array_index (log->values, guint64,
          log->values->len - 1) != x)
    g_array_append_val (log->values, x);
  g_mutex_unlock (&log->lock);
}

static GstPadProbeReturn
count_keyframes (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  EncoderLog *log = data;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);

  g_mutex_lock (&log->lock);
  if (!GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_HEADER)) {
    log->frames++;
    if (!GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DELTA_UNIT))
      log->keyframes++;
  }
  g_mutex_unlock (&log->lock);
  return GST_PAD_PROBE_OK;
}

static guint64
encoder_value (GstElement * enc, const gchar * property)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
      property);
  GValue v = G_VALUE_INIT;
  guint64 x;

  g_value_init (&v, p->value_type);
  g_object_get_property (G_OBJECT (enc), property, &v);
  x = G_VALUE_HOLDS_UINT (&v) ? g_value_get_uint (&v) :
      (guint64) g_value_get_int (&v);
  g_value_unset (&v);
  return x;
}

/* A sender under test: @chain (encoder ! payloader [! fecenc ...]) into
 * rtpccsink name=sink, in one harness on its test clock, fed raw video by
 * a harnessed live videotestsrc (320x240, 30 fps; each push releases one
 * frame from its own test clock), one frame per rig_frame(). */
typedef struct
{
  GstElement *bin;
  GstHarness *h;
  GstTestClock *clock;
  GstElement *sink;
  GstBus *bus;
  guint waiters;                /* elements on the clock: the sink, and
                                 * any the test adds */
  GstClockTime start;
  guint frames;
  const gchar *src;             /* the source, NULL = the ball */
} SendRig;

/* Builds the rig (not started: the caller may connect to its elements
 * first, see rig_get()). */
static void
rig_init (SendRig * r, const gchar * chain, guint16 peer_port,
    const gchar * sink_props)
{
  gchar *desc = g_strdup_printf ("%s ! rtpccsink name=sink host=127.0.0.1 "
      "port=%u %s", chain, peer_port, sink_props);
  GError *err = NULL;

  memset (r, 0, sizeof (*r));
  r->bin = gst_parse_bin_from_description (desc, TRUE, &err);
  fail_unless (r->bin != NULL, "%s: %s", desc, err ? err->message : "?");
  g_free (desc);
  r->sink = gst_bin_get_by_name (GST_BIN (r->bin), "sink");
}

/* Starts it: the harness (and its clock), the video source. */
static void
rig_play (SendRig * r)
{
  r->bus = gst_bus_new ();
  gst_element_set_bus (r->bin, r->bus);
  r->h = gst_harness_new_with_element (r->bin, "sink", NULL);
  r->clock = gst_harness_get_testclock (r->h);
  {
    gint port = 0;
    g_object_get (r->sink, "bound-port", &port, NULL);
    clock_watch_port (r->clock, (guint16) port);
  }
  gst_harness_add_src_parse (r->h, r->src ? r->src :
      "videotestsrc is-live=true pattern=ball "
      "! capsfilter caps=\"video/x-raw,format=I420,width=320,height=240,"
      "framerate=30/1\"", TRUE);
  r->waiters = 1;
  clock_settle (r->clock, 1);
  r->start = clock_now (r->clock);
}

static void
rig_start (SendRig * r, const gchar * chain, guint16 peer_port,
    const gchar * sink_props)
{
  rig_init (r, chain, peer_port, sink_props);
  rig_play (r);
}

/* The element named @name in the rig (a reference). */
static GstElement *
rig_get (SendRig * r, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (r->bin), name);

  fail_unless (e != NULL, "no %s", name);
  return e;
}

/* One frame in (encoded, packetised and queued in the sink before the
 * push returns), then the clock runs to the frame's end. */
static void
rig_frame (SendRig * r)
{
  GList *before = clock_snapshot (r->clock);
  guint64 wakeups = sink_wakeups (r->sink);

  fail_unless_equals_int (gst_harness_push_from_src (r->h), GST_FLOW_OK);
  /* (an encoder may hold a frame back: then the sink did not wake) */
  sink_settle_after (r->sink, wakeups, r->clock, r->waiters, before);
  r->frames++;
  clock_run_until (r->clock, r->waiters, r->start +
      gst_util_uint64_scale (r->frames, GST_SECOND, 30));
}

/* The end of the stream: EOS reaches the bus, no error. */
static void
rig_eos (SendRig * r)
{
  GstMessage *msg;

  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  msg = gst_bus_pop_filtered (r->bus, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *debug = NULL;
    gst_message_parse_error (msg, &err, &debug);
    fail ("error: %s (%s)", err->message, debug);
  }
  gst_message_unref (msg);
}

static void
rig_clear (SendRig * r)
{
  gst_harness_teardown (r->h);
  gst_object_unref (r->sink);
  gst_object_unref (r->bin);
  gst_object_unref (r->clock);
  gst_bus_set_flushing (r->bus, TRUE);
  gst_object_unref (r->bus);
}

/* Runs @encoder_desc between videotestsrc and rtpccsink for @frames at
 * 30 fps, recording the encoder's @property changes and keyframes. */
static void
run_encoder_rig (SendRig * r, const gchar * encoder_desc, const gchar * pay,
    const gchar * property, const gchar * sink_props, guint frames,
    EncoderLog * log, guint16 peer_port)
{
  GstElement *enc;
  GstPad *pad;
  gchar *chain, *props, *notify;

  chain = g_strdup_printf ("%s name=enc ! %s", encoder_desc, pay);
  props = g_strdup_printf ("circuit-breaker=false %s", sink_props);
  rig_init (r, chain, peer_port, props);
  g_free (chain);
  g_free (props);

  enc = rig_get (r, "enc");
  log->property = property;
  notify = g_strdup_printf ("notify::%s", property);
  g_signal_connect (enc, notify, G_CALLBACK (on_encoder_notify), log);
  g_free (notify);
  pad = gst_element_get_static_pad (enc, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_keyframes, log,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (enc);

  rig_play (r);
  for (guint i = 0; i < frames; i++)
    rig_frame (r);
  rig_eos (r);
}

/* The sequence of distinct step values, in the encoder's units. */
static GArray *
expected_steps (guint64 unit)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (guint64));

  for (guint i = 0; i < G_N_ELEMENTS (step_kbps); i++) {
    guint64 v = step_kbps[i] * 1000 / unit;
    if (a->len == 0 || g_array_index (a, guint64, a->len - 1) != v)
      g_array_append_val (a, v);
  }
  return a;
}

static void
check_encoder_followed (SendRig * r, EncoderLog * log, guint64 unit)
{
  GstElement *enc = rig_get (r, "enc");
  GstElement *sink = rig_get (r, "sink");
  GArray *want = expected_steps (unit);
  guint64 last = g_array_index (want, guint64, want->len - 1);
  GstClockTime end = clock_now (r->clock) + 3 * GST_SECOND;
  GString *got = g_string_new (NULL);
  guint j = 0;

  /* the last step is an increase soon after another one: the hysteresis
   * holds it back for up to a second, but it must land */
  while (encoder_value (enc, log->property) != last
      && clock_now (r->clock) < end)
    clock_advance (r->clock, 1, 20 * GST_MSECOND);

  g_mutex_lock (&log->lock);
  for (guint i = 0; i < log->values->len; i++)
    g_string_append_printf (got, "%" G_GUINT64_FORMAT " ",
        g_array_index (log->values, guint64, i));
  GST_INFO ("%s values: %s; %u keyframes in %u frames; encoder-updates %"
      G_GUINT64_FORMAT, log->property, got->str, log->keyframes, log->frames,
      stat_u64 (sink, "encoder-updates"));
  /* every decrease applied at once and in order: the first four values are
   * exactly the first four steps */
  fail_unless (log->values->len >= 4, "values: %s", got->str);
  for (guint i = 0; i < 4; i++)
    fail_unless_equals_uint64 (g_array_index (log->values, guint64, i),
        g_array_index (want, guint64, i));
  /* everything applied was a step, in step order */
  for (guint i = 0; i < log->values->len; i++) {
    guint64 v = g_array_index (log->values, guint64, i);
    while (j < want->len && g_array_index (want, guint64, j) != v)
      j++;
    fail_unless (j < want->len, "value %" G_GUINT64_FORMAT " out of order "
        "(values: %s)", v, got->str);
  }
  fail_unless_equals_uint64 (encoder_value (enc, log->property), last);
  /* never a forced keyframe: only the first frame is one */
  fail_unless (log->frames > 60, "only %u frames", log->frames);
  fail_unless_equals_int (log->keyframes, 1);
  g_mutex_unlock (&log->lock);

  g_string_free (got, TRUE);
  g_array_unref (want);
  gst_object_unref (enc);
  gst_object_unref (sink);
}

static void
encoder_control_test (const gchar * encoder_factory,
    const gchar * encoder_desc, const gchar * pay, const gchar * property,
    guint64 unit)
{
  GstElementFactory *f = gst_element_factory_find (encoder_factory);
  EncoderLog log;
  SendRig r;
  guint16 peer_port;
  GSocket *peer;

  if (!f) {
    GST_WARNING ("%s not available, skipping", encoder_factory);
    return;
  }
  gst_object_unref (f);
  rtpcc_controller_register (&step_ops);

  peer = udp_socket_new (&peer_port);
  g_mutex_init (&log.lock);
  log.values = g_array_new (FALSE, FALSE, sizeof (guint64));
  log.keyframes = log.frames = 0;

  run_encoder_rig (&r, encoder_desc, pay, property,
      "controller=test-step min-bitrate=150000 max-bitrate=3000000", 120,
      &log, peer_port);
  check_encoder_followed (&r, &log, unit);

  rig_clear (&r);
  g_array_unref (log.values);
  g_mutex_clear (&log.lock);
  g_object_unref (peer);
}

GST_START_TEST (test_encoder_control_x264)
{
  encoder_control_test ("x264enc", "x264enc key-int-max=1000 "
      "tune=zerolatency speed-preset=ultrafast bitrate=2048", "rtph264pay",
      "bitrate", 1000);
}

GST_END_TEST;

GST_START_TEST (test_encoder_control_vp8)
{
  encoder_control_test ("vp8enc", "vp8enc keyframe-max-dist=1000 "
      "deadline=1 target-bitrate=2048000", "rtpvp8pay", "target-bitrate", 1);
}

GST_END_TEST;

/* rtpccsink closes the loop on a real encoder that overshoots:
 * openh264enc in its default rate control produces about a third more
 * than its bitrate on moving bars. controller=fixed holds the target at
 * 1 Mbit/s; the sink measures what reaches it over windows of media time
 * and gives the encoder less until the produced rate is the target
 * (stats encoder-produced, encoder-correction). 20 s of media on the
 * test clock; the produced rate is counted over its last 8 s. */
GST_START_TEST (test_encoder_loop_closed)
{
  GstElementFactory *f = gst_element_factory_find ("openh264enc");
  SendRig r;
  GstElement *enc;
  GstPad *pad;
  PayloadTail tail = { 12 * GST_SECOND, 0 };
  guint16 peer_port;
  GSocket *peer;

  /* openh264enc comes with ./run's packages (gstreamer1.0-plugins-bad) */
  fail_unless (f != NULL, "openh264enc is missing");
  gst_object_unref (f);
  peer = udp_socket_new (&peer_port);
  rig_init (&r, "openh264enc name=enc ! rtph264pay mtu=1200", peer_port,
      "controller=fixed start-bitrate=1000000 circuit-breaker=false");
  r.src = "videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! "
      "capsfilter caps=\"video/x-raw,format=I420,width=480,height=270,"
      "framerate=30/1\"";
  pad = gst_element_get_static_pad (r.sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, payload_tail_probe, &tail, NULL);
  rig_play (&r);
  for (guint i = 0; i < 600; i++)
    rig_frame (&r);
  enc = rig_get (&r, "enc");
  check_encoder_loop_closed (r.sink, enc, &tail);
  gst_object_unref (enc);
  gst_object_unref (pad);
  rig_eos (&r);
  rig_clear (&r);
  g_object_unref (peer);
}

GST_END_TEST;

GST_START_TEST (test_encoder_control_none)
{
  GstElementFactory *f = gst_element_factory_find ("x264enc");
  EncoderLog log;
  SendRig r;
  GstElement *enc, *sink;
  guint16 peer_port;
  GSocket *peer;
  guint target = 0;

  if (!f) {
    GST_WARNING ("x264enc not available, skipping");
    return;
  }
  gst_object_unref (f);
  rtpcc_controller_register (&step_ops);
  peer = udp_socket_new (&peer_port);
  g_mutex_init (&log.lock);
  log.values = g_array_new (FALSE, FALSE, sizeof (guint64));
  log.keyframes = log.frames = 0;

  /* 1.5 s: several steps happen, none reaches the encoder */
  run_encoder_rig (&r, "x264enc key-int-max=1000 "
      "tune=zerolatency speed-preset=ultrafast bitrate=2048", "rtph264pay",
      "bitrate", "controller=test-step encoder-control=none", 45, &log,
      peer_port);
  enc = rig_get (&r, "enc");
  sink = rig_get (&r, "sink");
  fail_unless_equals_uint64 (encoder_value (enc, "bitrate"), 2048);
  fail_unless_equals_int (log.values->len, 0);
  fail_unless_equals_uint64 (stat_u64 (sink, "encoder-updates"), 0);
  /* while the target itself did move */
  g_object_get (sink, "target-bitrate", &target, NULL);
  fail_unless (target < 1200000, "target %u", target);

  gst_object_unref (enc);
  gst_object_unref (sink);
  rig_clear (&r);
  g_array_unref (log.values);
  g_mutex_clear (&log.lock);
  g_object_unref (peer);
}

GST_END_TEST;

/* ---- padding probes on the media SSRC vs stock depayloaders ------------ */

/* asks for 400 kbit/s of probe bytes, as gcc does while probing */
static void
pad_ctl_init (RtpccController * cc, RtpccTime now)
{
  rtpcc_controller_update_target (cc, 3000000, 400000, 1.0, "probe", "test");
}

static const RtpccControllerOps pad_ctl_ops = {
  .name = "test-pad",
  .description = "asks for 400 kbit/s of probe bytes",
  .instance_size = sizeof (RtpccController),
  .init = pad_ctl_init,
};

static void
collect_buffer (GstElement * sink, GstBuffer * buf, GstPad * pad,
    gpointer user_data)
{
  g_ptr_array_add (user_data, gst_buffer_ref (buf));
}

static void
count_buffer (GstElement * sink, GstBuffer * buf, GstPad * pad,
    gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
}

/* Runs @desc (ending in fakesink name=out) to EOS; FALSE on an error.
 * Warnings are counted into @warnings. */
static gboolean
run_to_eos (GstElement * pipeline, guint * warnings)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean ok = FALSE;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (;;) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    if (!m)
      break;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      GError *e = NULL;
      gst_message_parse_warning (m, &e, NULL);
      GST_WARNING ("warning from %s: %s", GST_OBJECT_NAME (m->src),
          e->message);
      g_clear_error (&e);
      (*warnings)++;
      gst_message_unref (m);
      continue;
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gst_message_parse_error (m, &e, NULL);
      GST_WARNING ("error from %s: %s", GST_OBJECT_NAME (m->src),
          e->message);
      g_clear_error (&e);
    } else
      ok = TRUE;
    gst_message_unref (m);
    break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return ok;
}

/* The RTP of @frames encoded frames goes through an RtpccSender in
 * probe-ssrc-mode=media that asks for probes (the wire bytes the sender
 * writes, as rtpccsink sends them: its header, then the rest), then into
 * a stock rtpjitterbuffer ! depayloader ! decoder: every frame must still
 * decode, without warnings. */
static void
depay_with_media_padding (const gchar * enc, const gchar * pay,
    const gchar * depay, const gchar * dec, const gchar * encoding)
{
  const guint frames = 30;
  GstElementFactory *f = gst_element_factory_find (enc);
  GstElementFactory *g = gst_element_factory_find (dec);
  GPtrArray *rtp = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstElement *pipeline, *src, *out;
  RtpccSenderConfig cfg;
  RtpccSender *s;
  gchar *desc;
  guint warnings = 0, padding = 0, media = 0, i = 0;
  gint decoded = 0;
  GstCaps *caps;

  if (!f || !g) {
    GST_WARNING ("%s or %s not available, skipping", enc, dec);
    if (f)
      gst_object_unref (f);
    if (g)
      gst_object_unref (g);
    g_ptr_array_unref (rtp);
    return;
  }
  gst_object_unref (f);
  gst_object_unref (g);

  /* encode: small packets, so frames span several */
  desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball ! "
      "video/x-raw,width=320,height=240,framerate=30/1 ! %s ! %s mtu=400 "
      "pt=96 ! fakesink name=out signal-handoffs=true sync=false", frames,
      enc, pay);
  pipeline = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (pipeline != NULL);
  out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_signal_connect (out, "handoff", G_CALLBACK (collect_buffer), rtp);
  fail_unless (run_to_eos (pipeline, &warnings));
  gst_object_unref (out);
  gst_object_unref (pipeline);
  fail_unless (rtp->len > frames, "%u packets", rtp->len);

  /* decode */
  desc = g_strdup_printf ("appsrc name=src format=time ! rtpjitterbuffer "
      "latency=100 ! %s ! %s ! fakesink name=out signal-handoffs=true "
      "sync=false", depay, dec);
  pipeline = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (pipeline != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  caps = gst_caps_new_simple ("application/x-rtp", "media", G_TYPE_STRING,
      "video", "clock-rate", G_TYPE_INT, 90000, "encoding-name",
      G_TYPE_STRING, encoding, "payload", G_TYPE_INT, 96, NULL);
  g_object_set (src, "caps", caps, NULL);
  gst_caps_unref (caps);
  out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_signal_connect (out, "handoff", G_CALLBACK (count_buffer), &decoded);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  rtpcc_controller_register (&pad_ctl_ops);
  rtpcc_sender_config_init (&cfg);
  cfg.controller = "test-pad";
  cfg.cc.max_bitrate = 5000000;
  cfg.probe_ssrc_mode = RTPCC_PROBE_SSRC_MEDIA;
  cfg.circuit_breaker = FALSE;
  cfg.pacing = FALSE;
  cfg.clock_rate = 90000;
  s = rtpcc_sender_new (&cfg, 0, NULL);
  fail_unless (s != NULL);
  rtpcc_sender_set_free_func (s, (GDestroyNotify) gst_buffer_unref);
  /* a frame's packets 1 ms apart, frames 33 ms apart */
  for (RtpccTime now = 0; i < rtp->len || now < RTPCC_MSEC (1200);
      now += RTPCC_MSEC (1)) {
    RtpccWirePacket w;
    GstBuffer *b;
    GstFlowReturn ret;

    if (i < rtp->len) {
      GstMapInfo map;
      gboolean marker;
      b = g_ptr_array_index (rtp, i++);
      fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
      marker = (map.data[1] & 0x80) != 0;
      fail_unless_equals_int (rtpcc_sender_enqueue_rtp (s, now, map.data,
              map.size, map.size, gst_buffer_copy (b)), RTPCC_SENDER_QUEUED);
      gst_buffer_unmap (b, &map);
      if (marker)
        now += RTPCC_MSEC (32);
    }
    while ((b = rtpcc_sender_dequeue (s, now, &w))) {
      /* what rtpccsink sends: the header written, then the rest */
      GstBuffer *wire = gst_buffer_new_memdup (w.head, w.head_len);
      wire = gst_buffer_append (wire, gst_buffer_copy_region (b,
              GST_BUFFER_COPY_MEMORY, w.tail_offset,
              gst_buffer_get_size (b) - w.tail_offset));
      gst_buffer_unref (b);
      fail_unless_equals_int (gst_buffer_get_size (wire), w.size);
      GST_BUFFER_PTS (wire) = GST_BUFFER_DTS (wire) = now;
      g_signal_emit_by_name (src, "push-buffer", wire, &ret);
      gst_buffer_unref (wire);
      media++;
    }
    while (rtpcc_sender_dequeue_probe (s, now, &w)) {
      b = gst_buffer_new_memdup (w.head, w.head_len);
      GST_BUFFER_PTS (b) = GST_BUFFER_DTS (b) = now;
      g_signal_emit_by_name (src, "push-buffer", b, &ret);
      gst_buffer_unref (b);
      padding++;
    }
  }
  {
    GstFlowReturn ret;
    g_signal_emit_by_name (src, "end-of-stream", &ret);
  }
  rtpcc_sender_free (s);
  fail_unless (run_to_eos (pipeline, &warnings));
  GST_INFO ("%s: %u media, %u padding packets, %d frames decoded", depay,
      media, padding, decoded);
  fail_unless_equals_int (media, rtp->len);
  fail_unless (padding >= 20, "%u padding packets", padding);
  fail_unless_equals_int (decoded, frames);
  fail_unless_equals_int (warnings, 0);
  gst_object_unref (src);
  gst_object_unref (out);
  gst_object_unref (pipeline);
  g_ptr_array_unref (rtp);
}

GST_START_TEST (test_media_padding_h264_depay)
{
  depay_with_media_padding ("x264enc", "rtph264pay", "rtph264depay",
      "avdec_h264", "H264");
}

GST_END_TEST;

GST_START_TEST (test_media_padding_vp8_depay)
{
  depay_with_media_padding ("vp8enc", "rtpvp8pay", "rtpvp8depay", "vp8dec",
      "VP8");
}

GST_END_TEST;

/* rtpccsink with feedback=twcc and the default probe-ssrc-mode (auto →
 * media): what goes on the wire while the controller asks for probes is
 * one RTP stream — one SSRC, contiguous seqs and transport-wide seqs, the
 * padding-only packets right after a frame's last packet with its
 * timestamp — and tshark dissects every packet cleanly. */
GST_START_TEST (test_sink_probe_media_wire)
{
  GstElementFactory *f = gst_element_factory_find ("x264enc");
  GstElement *sink;
  SendRig rig;
  GSocket *peer;
  guint16 peer_port;
  gchar *tshark;
  guint8 buf[2048];
  GByteArray *pcap = test_pcap_new ();
  guint rtp = 0, padding = 0, ssrcs = 0, in_pcap = 0;
  guint32 ssrc = 0, last_ts = 0;
  guint16 last_seq = 0, last_twcc = 0;
  gboolean last_end = FALSE;
  GstClockTime end;
  gint mode;

  if (!f) {
    GST_WARNING ("x264enc not available, skipping");
    g_byte_array_unref (pcap);
    return;
  }
  gst_object_unref (f);
  rtpcc_controller_register (&pad_ctl_ops);
  peer = udp_socket_new (&peer_port);
  rig_start (&rig, "x264enc tune=zerolatency speed-preset=ultrafast "
      "key-int-max=15 bitrate=1500 ! rtph264pay pt=96 mtu=600", peer_port,
      "controller=test-pad feedback=twcc encoder-control=none");
  sink = rig.sink;
  g_object_get (sink, "probe-ssrc-mode", &mode, NULL);
  fail_unless_equals_int (mode, 0);     /* auto */

  /* 1.5 s of video; the probes go on after it (the controller keeps
   * asking), so the capture stops after 3 s */
  end = rig.start + 3 * GST_SECOND;
  for (;;) {
    gssize n = recv_datagram (peer, buf, sizeof buf, NULL);
    GstBuffer *b;
    GstRTPBuffer r = GST_RTP_BUFFER_INIT;
    gpointer ext;
    guint ext_size;
    guint16 seq, twcc;

    if (n < 0) {
      if (clock_now (rig.clock) >= end)
        break;
      if (rig.frames < 45)
        rig_frame (&rig);
      else
        clock_advance (rig.clock, 1, 20 * GST_MSECOND);
      continue;
    }
    if (rtpcc_rtcp_is_rtcp (buf, n))
      continue;
    b = gst_buffer_new_memdup (buf, n);
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &r));
    seq = gst_rtp_buffer_get_seq (&r);
    fail_unless_equals_int (gst_rtp_buffer_get_payload_type (&r), 96);
    fail_unless (gst_rtp_buffer_get_extension_onebyte_header (&r, 1, 0,
            &ext, &ext_size));
    fail_unless (ext_size >= 2);
    /* (byte by byte: the extension data is not aligned) */
    twcc = (guint16) ((((const guint8 *) ext)[0] << 8) |
        ((const guint8 *) ext)[1]);
    if (rtp == 0) {
      ssrc = gst_rtp_buffer_get_ssrc (&r);
      ssrcs = 1;
    } else {
      if (gst_rtp_buffer_get_ssrc (&r) != ssrc)
        ssrcs++;
      /* one stream: no gap in either sequence space */
      fail_unless_equals_int (seq, (guint16) (last_seq + 1));
      fail_unless_equals_int (twcc, (guint16) (last_twcc + 1));
    }
    if (gst_rtp_buffer_get_payload_len (&r) == 0) {
      padding++;
      fail_unless (gst_rtp_buffer_get_padding (&r));
      fail_unless (!gst_rtp_buffer_get_marker (&r));
      fail_unless (last_end, "padding inside a frame (seq %u)", seq);
      fail_unless_equals_int (gst_rtp_buffer_get_timestamp (&r), last_ts);
    } else {
      last_end = gst_rtp_buffer_get_marker (&r);
      last_ts = gst_rtp_buffer_get_timestamp (&r);
    }
    gst_rtp_buffer_unmap (&r);
    gst_buffer_unref (b);
    last_seq = seq;
    last_twcc = twcc;
    rtp++;
    if (in_pcap < 400)
      test_pcap_add (pcap, in_pcap++, 5006, buf, n);
  }
  GST_INFO ("%u RTP packets, %u padding, %u SSRCs", rtp, padding, ssrcs);
  fail_unless (rtp > 45, "%u RTP packets", rtp);
  fail_unless_equals_int (ssrcs, 1);
  fail_unless (padding >= 10, "%u padding packets", padding);
  fail_unless_equals_uint64 (stat_u64 (sink, "probe-media-packets"),
      stat_u64 (sink, "probe-packets"));
  fail_unless_equals_uint64 (stat_u64 (sink, "probe-packets"), padding);
  fail_unless_equals_uint64 (stat_u64 (sink, "twcc-stamp-errors"), 0);
  rig_clear (&rig);
  g_object_unref (peer);

  tshark = tshark_find ("test_sink_probe_media_wire");
  if (tshark) {
    static const gchar *const opts[] = { "-d", "udp.port==5006,rtp", NULL };
    gchar *dir, *file = test_pcap_save (pcap, "rtpcc-probe-XXXXXX",
        "probe.pcap", &dir);        /* (drops pcap) */
    gchar *out = tshark_run (tshark, file, opts, (const gchar *[]) {
        "-V", NULL});
    guint frames = 0;
    tshark_assert_clean (out);
    for (const gchar * q = out; (q = strstr (q, "Real-Time Transport "
                "Protocol")); q++)
      frames++;
    fail_unless_equals_int (frames, in_pcap);
    g_free (out);
    test_pcap_remove (file, dir);
    g_free (tshark);
  } else
    g_byte_array_unref (pcap);
}

GST_END_TEST;

/* Our own pair in TWCC mode, probes on the media SSRC: rtpccsrc pushes the
 * padding on (the stream downstream has no gap, so a jitterbuffer counts
 * no loss), its RFC 3550 count shows none, and the probes come back in
 * the TWCC feedback. */
GST_START_TEST (test_sink_to_src_media_probes)
{
  Pair p;
  GstElement *sink, *src;
  GstClockTime end;
  guint media = 0, padding = 0;
  guint16 last = 0;
  guint64 pushed;

  rtpcc_controller_register (&pad_ctl_ops);
  pair_init (&p);
  sink = p.sink;
  src = p.src;
  gst_util_set_object_arg (G_OBJECT (src), "feedback", "twcc");
  g_object_set (sink, "controller", "test-pad", NULL);
  gst_util_set_object_arg (G_OBJECT (sink), "feedback", "twcc");
  pair_start (&p);

  /* 30 frames of three packets, 33 ms apart */
  for (guint i = 0; i < 90; i++) {
    pair_push (&p, make_rtp (TEST_SSRC, (guint16) i, 3000 * (i / 3),
            i % 3 == 2, 1000));
    if (i % 3 == 2)
      pair_advance (&p, 33 * GST_MSECOND);
  }
  end = clock_now (p.clock) + 5 * GST_SECOND;
  while (media < 90) {
    GstBuffer *b = gst_harness_try_pull (p.hr);
    GstRTPBuffer r = GST_RTP_BUFFER_INIT;
    guint16 seq;
    if (!b) {
      fail_unless (clock_now (p.clock) < end, "%u of 90 media packets",
          media);
      pair_advance (&p, GST_MSECOND);
      continue;
    }
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &r));
    seq = gst_rtp_buffer_get_seq (&r);
    fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&r), TEST_SSRC);
    fail_unless (media + padding == 0 || seq == (guint16) (last + 1),
        "seq %u after %u", seq, last);
    last = seq;
    if (gst_rtp_buffer_get_payload_len (&r) == 0)
      padding++;
    else
      media++;
    gst_rtp_buffer_unmap (&r);
    gst_buffer_unref (b);
  }
  pushed = stat_u64 (src, "padding-pushed");
  GST_INFO ("%u media, %u padding pulled; %" G_GUINT64_FORMAT " pushed",
      media, padding, pushed);
  fail_unless (padding >= 5, "%u padding packets", padding);
  fail_unless (pushed >= padding);
  fail_unless_equals_uint64 (stat_u64 (src, "padding-packets"), 0);
  fail_unless_equals_uint64 (stat_u64 (src, "packets-lost"), 0);
  fail_unless (run_until_stat (p.clock, 2, sink, "probe-reported-received", 5,
          3 * GST_SECOND) >= 5);
  fail_unless_equals_uint64 (stat_u64 (sink, "probe-media-packets"),
      stat_u64 (sink, "probe-packets"));
  fail_unless_equals_uint64 (stat_u64 (sink, "reported-lost"), 0);

  pair_clear (&p);
}

GST_END_TEST;

/* fecenc ! rtpccsink probe-ssrc-mode=media: fecenc starts once padding
 * has renumbered the media (as when fecenc first follows a target's
 * fec-bitrate), so the sink must rewrite the FEC headers to the wire seqs.
 * What reaches the receiver, with one media packet in 15 lost, is
 * recovered byte for byte (wire seq included) by the FEC decoder. With
 * @twcc the receiver is rtpccsrc feedback=twcc, which takes the TWCC
 * extension off again (the sink stamps it after fecenc computed its
 * parity: left on, every recovery failed, with or without probes). */
static void
media_probes_fec_recovery (gboolean twcc)
{
  GstElementFactory *f = gst_element_factory_find ("x264enc");
  GstElementFactory *g = gst_element_factory_find ("fecenc");
  GstElement *sink, *src = NULL;
  SendRig rig;
  GstHarness *hr = NULL;
  GSocket *peer = NULL;
  guint16 peer_port;
  gchar *props;
  guint8 buf[2048];
  GPtrArray *wire = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GHashTable *dropped = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) g_bytes_unref);
  RtpccFecDecoderConfig dc;
  RtpccFecDecoder *dec;
  RtpccFecDecoderStats ds;
  guint media = 0, total_media = 0, drops = 0, exact = 0, fec = 0;
  GstClockTime end;
  GstElement *fec_el;
  gboolean fec_on = FALSE;
  gint first_fec = -1;

  if (!f || !g) {
    GST_WARNING ("x264enc or fecenc not available, skipping");
    if (f)
      gst_object_unref (f);
    if (g)
      gst_object_unref (g);
    g_ptr_array_unref (wire);
    g_hash_table_unref (dropped);
    return;
  }
  gst_object_unref (f);
  gst_object_unref (g);
  rtpcc_controller_register (&pad_ctl_ops);
  if (twcc) {
    GstCaps *caps = gst_caps_from_string (RTP_CAPS);
    gint port = 0;
    src = gst_element_factory_make ("rtpccsrc", NULL);
    g_object_set (src, "address", "127.0.0.1", "port", 0, "caps", caps,
        NULL);
    gst_caps_unref (caps);
    gst_util_set_object_arg (G_OBJECT (src), "feedback", "twcc");
    hr = gst_harness_new_with_element (src, NULL, "src");
    gst_harness_play (hr);
    g_object_get (src, "bound-port", &port, NULL);
    peer_port = (guint16) port;
  } else
    peer = udp_socket_new (&peer_port);
  /* (fecenc closes its blocks by count only: no timer on the clock) */
  props = g_strdup_printf ("controller=test-pad feedback=%s "
      "probe-ssrc-mode=media encoder-control=none", twcc ? "twcc" : "ccfb");
  rig_start (&rig, "x264enc tune=zerolatency speed-preset=ultrafast "
      "key-int-max=30 bitrate=300 ! rtph264pay pt=96 mtu=400 ! fecenc "
      "name=fec n=5 enabled=false follow-target=false max-block-time=0",
      peer_port, props);
  g_free (props);
  sink = rig.sink;
  fec_el = rig_get (&rig, "fec");
  if (twcc) {
    /* the receiver moves to the sender's clock (re-basing its time) */
    gst_element_set_clock (src, GST_CLOCK (rig.clock));
    clock_watch_port (rig.clock, peer_port);
    rig.waiters = 2;
    clock_settle (rig.clock, 2);
  }
  end = rig.start + 3 * GST_SECOND;
  while (clock_now (rig.clock) < end) {
    if (!fec_on && stat_u64 (sink, "probe-media-packets") >= 10) {
      g_object_set (fec_el, "enabled", TRUE, NULL);
      fec_on = TRUE;
    }
    if (twcc) {
      /* what rtpccsrc pushes downstream */
      GstBuffer *b = gst_harness_try_pull (hr);
      GstMapInfo map;
      if (!b) {
        if (rig.frames < 60)
          rig_frame (&rig);
        else
          clock_advance (rig.clock, rig.waiters, 20 * GST_MSECOND);
        continue;
      }
      fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
      /* the TWCC-only extension block is gone */
      fail_if (map.data[0] & 0x10);
      g_ptr_array_add (wire, g_bytes_new (map.data, map.size));
      gst_buffer_unmap (b, &map);
      gst_buffer_unref (b);
    } else {
      gssize n = recv_datagram (peer, buf, sizeof buf, NULL);
      if (n < 0) {
        if (rig.frames < 60)
          rig_frame (&rig);
        else
          clock_advance (rig.clock, rig.waiters, 20 * GST_MSECOND);
        continue;
      }
      if (rtpcc_rtcp_is_rtcp (buf, n) || n < 12)
        continue;
      g_ptr_array_add (wire, g_bytes_new (buf, n));
    }
  }
  GST_INFO ("sink: %" G_GUINT64_FORMAT " probes (%" G_GUINT64_FORMAT
      " on the media), %" G_GUINT64_FORMAT " FEC headers rewritten, %"
      G_GUINT64_FORMAT " dropped", stat_u64 (sink, "probe-packets"),
      stat_u64 (sink, "probe-media-packets"), stat_u64 (sink,
          "fec-rewritten"), stat_u64 (sink, "fec-rewrite-drops"));
  fail_unless (stat_u64 (sink, "probe-media-packets") > 0);
  fail_unless (stat_u64 (sink, "fec-rewritten") > 0);
  fail_unless_equals_uint64 (stat_u64 (sink, "fec-rewrite-drops"), 0);
  if (twcc)
    fail_unless (stat_u64 (src, "twcc-stripped") >= wire->len / 2);
  gst_object_unref (fec_el);
  rig_clear (&rig);
  if (hr) {
    gst_harness_teardown (hr);
    gst_object_unref (src);
  }
  if (peer)
    g_object_unref (peer);

  /* the receiver: from the first FEC packet on (what came before is
   * unprotected), lose one media packet in 15 (at most one per block of
   * five) in the first two thirds; give the rest to the FEC decoder */
  for (guint i = 0; i < wire->len; i++) {
    gsize len;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (wire, i), &len);
    if ((d[1] & 0x7f) == 96 && len > 12 && !(d[0] & 0x20))
      total_media++;
    if ((d[1] & 0x7f) == RTPCC_FEC_DEFAULT_PT && first_fec < 0)
      first_fec = i;
  }
  fail_unless (first_fec >= 0, "no FEC on the wire");
  rtpcc_fec_decoder_config_init (&dc);
  dc.deadline = RTPCC_SEC (10);
  dec = rtpcc_fec_decoder_new (&dc);
  for (guint i = 0; i < wire->len; i++) {
    GBytes *bytes = g_ptr_array_index (wire, i);
    gsize len;
    const guint8 *d = g_bytes_get_data (bytes, &len);
    RtpccTime now = RTPCC_MSEC (i);
    GBytes *out;
    gboolean recovered;

    if ((d[1] & 0x7f) == RTPCC_FEC_DEFAULT_PT) {
      fec++;
      fail_unless (rtpcc_fec_decoder_push_fec (dec, d, len, now));
    } else if (!(d[0] & 0x20) && ++media % 15 == 7 && (gint) i > first_fec
        && media < total_media * 2 / 3) {
      g_hash_table_insert (dropped, GUINT_TO_POINTER ((guint)
              GST_READ_UINT16_BE (d + 2)), g_bytes_ref (bytes));
      drops++;
    } else {
      rtpcc_fec_decoder_push_media (dec, d, len, now);
    }
    while ((out = rtpcc_fec_decoder_pop (dec, now, &recovered))) {
      gsize olen;
      const guint8 *od = g_bytes_get_data (out, &olen);
      GBytes *want = g_hash_table_lookup (dropped,
          GUINT_TO_POINTER ((guint) GST_READ_UINT16_BE (od + 2)));
      if (recovered && want && g_bytes_compare (want, out) == 0)
        exact++;
      g_bytes_unref (out);
    }
  }
  rtpcc_fec_decoder_get_stats (dec, &ds);
  GST_INFO ("%u packets on the wire, %u media, %u FEC; %u dropped, %u "
      "recovered exactly (decoder: %" G_GUINT64_FORMAT " recovered, %"
      G_GUINT64_FORMAT " bad)", wire->len, total_media, fec, drops, exact,
      ds.recovered, ds.bad_recoveries);
  fail_unless (drops >= 4, "%u drops", drops);
  fail_unless (fec > 0);
  fail_unless_equals_int (exact, drops);
  fail_unless_equals_uint64 (ds.bad_recoveries, 0);
  rtpcc_fec_decoder_free (dec);
  g_hash_table_unref (dropped);
  g_ptr_array_unref (wire);
}

GST_START_TEST (test_sink_media_probes_fec_recovery)
{
  media_probes_fec_recovery (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_sink_media_probes_fec_recovery_twcc)
{
  media_probes_fec_recovery (TRUE);
}

GST_END_TEST;

/* A fecenc-style FEC packet whose protected packets no longer fit the
 * mask once padding renumbered them is dropped by the sink (counted in
 * fec-rewrite-drops) before it is queued: nothing of it is counted as
 * sent, so the wire keeps contiguous transport-wide seqs (a TWCC receiver
 * would otherwise report the dropped packet lost to the controller). */
GST_START_TEST (test_sink_fec_rewrite_drop_no_gap)
{
  GstHarness *hs;
  GstElement *sink;
  GstTestClock *clock;
  GSocket *peer;
  guint16 peer_port, last_twcc = 0;
  guint8 buf[2048];
  guint rtp = 0, fec_seen = 0;
  guint8 fec[12 + RTPCC_FEC_HEADER_LEN + 16] = { 0, };
  GstBuffer *fb;
  GstClockTime end;

  rtpcc_controller_register (&pad_ctl_ops);
  peer = udp_socket_new (&peer_port);
  sink = gst_element_factory_make ("rtpccsink", NULL);
  g_object_set (sink, "controller", "test-pad", "host", "127.0.0.1", "port",
      peer_port, NULL);
  gst_util_set_object_arg (G_OBJECT (sink), "feedback", "twcc");
  gst_util_set_object_arg (G_OBJECT (sink), "probe-ssrc-mode", "media");
  hs = gst_harness_new_with_element (sink, "sink", NULL);
  clock = gst_harness_get_testclock (hs);
  gst_harness_set_src_caps_str (hs, RTP_CAPS);
  {
    gint port = 0;
    g_object_get (sink, "bound-port", &port, NULL);
    clock_watch_port (clock, (guint16) port);
  }
  clock_settle (clock, 1);

  /* 16 frames of three packets, seqs 0..47, the last one only once
   * padding went out (so some lies between seqs 0 and 47) */
  for (guint i = 0; i < 48; i++) {
    if (i == 45)
      fail_unless (run_until_stat (clock, 1, sink, "probe-media-packets", 1,
              2 * GST_SECOND) >= 1);
    fail_unless_equals_int (push_and_settle (hs, make_rtp (TEST_SSRC,
                (guint16) i, 3000 * (i / 3), i % 3 == 2, 500), clock, 1),
        GST_FLOW_OK);
    if (i % 3 == 2)
      clock_advance (clock, 1, 33 * GST_MSECOND);
  }
  /* XOR FEC on its own SSRC over original seqs 0 and 47: with any padding
   * in between the wire seqs span more than the 48-bit mask */
  fec[0] = 0x80;
  fec[1] = 122;
  GST_WRITE_UINT32_BE (fec + 8, 0xFEC0FEC0);
  fec[12] = 0x40;
  fec[14] = 1;
  GST_WRITE_UINT32_BE (fec + 16, TEST_SSRC);
  GST_WRITE_UINT16_BE (fec + 20, 0);
  fec[22] = 0x80;               /* mask bit 47: seq 0 */
  fec[27] = 0x01;               /* mask bit 0: seq 47 */
  fb = gst_buffer_new_memdup (fec, sizeof fec);
  fail_unless_equals_int (push_and_settle (hs, fb, clock, 1), GST_FLOW_OK);
  for (guint i = 48; i < 54; i++)
    fail_unless_equals_int (push_and_settle (hs, make_rtp (TEST_SSRC,
                (guint16) i, 3000 * (i / 3), TRUE, 500), clock, 1),
        GST_FLOW_OK);
  fail_unless_equals_uint64 (stat_u64 (sink, "fec-rewrite-drops"), 1);

  end = clock_now (clock) + 2 * GST_SECOND;
  for (;;) {
    gssize n = recv_datagram (peer, buf, sizeof buf, NULL);
    GstBuffer *b;
    GstRTPBuffer r = GST_RTP_BUFFER_INIT;
    gpointer ext;
    guint ext_size;
    guint16 twcc;

    if (n < 0) {
      if (clock_now (clock) >= end)
        break;
      clock_advance (clock, 1, 10 * GST_MSECOND);
      continue;
    }
    if (rtpcc_rtcp_is_rtcp (buf, n))
      continue;
    b = gst_buffer_new_memdup (buf, n);
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &r));
    if (gst_rtp_buffer_get_payload_type (&r) == 122)
      fec_seen++;
    fail_unless (gst_rtp_buffer_get_extension_onebyte_header (&r, 1, 0,
            &ext, &ext_size));
    twcc = (guint16) ((((const guint8 *) ext)[0] << 8) |
        ((const guint8 *) ext)[1]);
    fail_unless (rtp == 0 || twcc == (guint16) (last_twcc + 1),
        "transport-wide seq %u after %u", twcc, last_twcc);
    last_twcc = twcc;
    rtp++;
    gst_rtp_buffer_unmap (&r);
    gst_buffer_unref (b);
  }
  GST_INFO ("%u RTP packets on the wire", rtp);
  fail_unless (rtp >= 54 + 1, "%u RTP packets", rtp);
  fail_unless_equals_int (fec_seen, 0);
  gst_harness_teardown (hs);
  gst_object_unref (clock);
  gst_object_unref (sink);
  g_object_unref (peer);
}

GST_END_TEST;

/* rtpccsrc (its RtpccReceiver) remembers which SSRCs carried media
 * (padding on those is pushed on, not dropped); a peer that sprays SSRCs
 * must not grow that table without bound, and the stream in use is still
 * tracked: its padding goes through. */
GST_START_TEST (test_src_media_ssrcs_bounded)
{
  SrcFixture f;
  guint8 pkt[1500];
  gsize n;
  GstBuffer *b;
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  src_fixture_init (&f);
  for (guint i = 0; i < 600; i++) {
    n = make_rtp_bytes (pkt, sizeof (pkt), 0x50000000u + i, 7, 3000, TRUE,
        20);
    send_to_port (f.peer, f.src_port, pkt, n);
    gst_buffer_unref (gst_harness_pull (f.h));
  }
  fail_unless (stat_u64 (f.src, "media-ssrcs") <= 16, "%" G_GUINT64_FORMAT
      " SSRCs held", stat_u64 (f.src, "media-ssrcs"));
  fail_unless (stat_u64 (f.src, "media-ssrcs") >= 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "sources-evicted"), 600 - 16);
  /* the stream in use: media, then a padding-only packet on its SSRC */
  send_rtp (&f, 100, TRUE);
  fail_unless_equals_int (pull_seq (&f), 100);
  n = make_rtp_bytes (pkt, sizeof (pkt), TEST_SSRC, 101, 300, FALSE, 0);
  pkt[0] |= 0x20;
  pkt[n] = 0;
  pkt[n + 1] = 0;
  pkt[n + 2] = 0;
  pkt[n + 3] = 4;
  send_to_port (f.peer, f.src_port, pkt, n + 4);
  b = gst_harness_pull (f.h);
  fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
  fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), 101);
  fail_unless_equals_int (gst_rtp_buffer_get_payload_len (&rtp), 0);
  gst_rtp_buffer_unmap (&rtp);
  gst_buffer_unref (b);
  fail_unless_equals_uint64 (stat_u64 (f.src, "padding-pushed"), 1);
  src_fixture_clear (&f);
}

GST_END_TEST;

/* What rtpccsrc pushes for @pkt (a copy), or NULL if it pushed nothing
 * for it. */
static GBytes *
src_roundtrip (SrcFixture * f, const guint8 * pkt, gsize len)
{
  GstBuffer *b;
  GstMapInfo map;
  GBytes *out;

  src_fixture_send (f, f->peer, pkt, len);
  if (!(b = gst_harness_try_pull (f->h)))
    return NULL;
  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  out = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (b, &map);
  gst_buffer_unref (b);
  return out;
}

/* An RTP packet (PT 96, 8 bytes of payload) with @n_csrc CSRCs, the
 * extension block @ext (@ext_len bytes, profile and length included; none
 * if NULL) and @pad bytes of RTP padding. */
static gsize
build_ext_packet (guint8 * p, guint n_csrc, const guint8 * ext,
    gsize ext_len, guint pad)
{
  gsize n = 12;

  memset (p, 0, 12);
  p[0] = (guint8) (0x80 | (ext ? 0x10 : 0) | (pad ? 0x20 : 0) | n_csrc);
  p[1] = 96;
  GST_WRITE_UINT16_BE (p + 2, 7);
  GST_WRITE_UINT32_BE (p + 4, 900);
  GST_WRITE_UINT32_BE (p + 8, TEST_SSRC);
  for (guint i = 0; i < n_csrc; i++, n += 4)
    GST_WRITE_UINT32_BE (p + n, 0xC0000000u + i);
  if (ext) {
    memcpy (p + n, ext, ext_len);
    n += ext_len;
  }
  for (guint i = 0; i < 8; i++)
    p[n++] = (guint8) (0xA0 + i);
  for (guint i = 0; i < pad; i++)
    p[n++] = i + 1 == pad ? (guint8) pad : 0;
  return n;
}

/* rtpccsrc feedback=twcc takes the header extension block off only when
 * it holds nothing but the transport-wide seq (plus padding bytes);
 * anything else in the block, a block that is not one-byte form, or an
 * element running past the block, is passed on unchanged; a block running
 * past the packet is not RTP (dropped, counted); with feedback=ccfb an
 * element with the TWCC ID is some other extension of the sender's and is
 * never touched. */
GST_START_TEST (test_src_twcc_strip_cases)
{
  static const guint8 twcc_only[] = { 0xBE, 0xDE, 0, 1, 0x11, 0x12, 0x34,
    0
  };
  static const guint8 twcc_abs[] = { 0xBE, 0xDE, 0, 2, 0x11, 0x12, 0x34,
    0x32, 1, 2, 3, 0
  };
  static const guint8 mid_twcc[] = { 0xBE, 0xDE, 0, 2, 0x41, 'v', '0', 0,
    0x11, 0x12, 0x34, 0
  };
  static const guint8 twcc_overrun[] = { 0xBE, 0xDE, 0, 1, 0x11, 0x12, 0x34,
    0x13
  };
  static const guint8 two_byte[] = { 0x10, 0x00, 0, 1, 1, 2, 0x12, 0x34 };
  static const guint8 past_end[] = { 0xBE, 0xDE, 0, 9, 0x11, 0x12, 0x34, 0 };
  static const struct
  {
    const guint8 *ext;
    gsize len;
    guint csrc, pad;
    gboolean strip;
  } cases[] = {
    {twcc_only, sizeof twcc_only, 0, 0, TRUE},
    {twcc_only, sizeof twcc_only, 2, 4, TRUE},
    {twcc_abs, sizeof twcc_abs, 0, 0, FALSE},
    {mid_twcc, sizeof mid_twcc, 1, 0, FALSE},
    {twcc_overrun, sizeof twcc_overrun, 0, 0, FALSE},
    {two_byte, sizeof two_byte, 0, 0, FALSE},
  };
  SrcFixture f;
  guint8 pkt[256], want[256];
  gsize n, m;
  GBytes *out;

  for (guint mode = 0; mode < 2; mode++) {
    src_fixture_init_mode (&f, mode == 0 ? "twcc" : "ccfb");

    for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
      gboolean strip = cases[c].strip && mode == 0;
      n = build_ext_packet (pkt, cases[c].csrc, cases[c].ext, cases[c].len,
          cases[c].pad);
      m = build_ext_packet (want, cases[c].csrc, strip ? NULL : cases[c].ext,
          cases[c].len, cases[c].pad);
      out = src_roundtrip (&f, pkt, n);
      fail_unless (out != NULL, "case %u (mode %u): nothing pushed", c, mode);
      fail_unless (g_bytes_get_size (out) == m, "case %u (mode %u): %"
          G_GSIZE_FORMAT " bytes out, want %" G_GSIZE_FORMAT, c, mode,
          g_bytes_get_size (out), m);
      fail_unless (memcmp (g_bytes_get_data (out, NULL), want, m) == 0,
          "case %u (mode %u): %s", c, mode, strip ? "not stripped" :
          "changed");
      g_bytes_unref (out);
    }
    fail_unless_equals_uint64 (stat_u64 (f.src, "twcc-stripped"),
        mode == 0 ? 2 : 0);
    /* a block running past the packet: not RTP */
    n = build_ext_packet (pkt, 0, past_end, sizeof past_end, 0);
    out = src_roundtrip (&f, pkt, n);
    fail_unless (out == NULL);
    fail_unless_equals_uint64 (stat_u64 (f.src, "invalid-rtp"), 1);
    src_fixture_clear (&f);
  }
}

GST_END_TEST;

/* Fuzz-style: mutated packets with header extensions into rtpccsrc
 * feedback=twcc (a fixed seed). Whatever comes out is the packet as sent,
 * or as sent without exactly its extension block (X bit cleared); a
 * sentinel after each shows the source kept going. */
GST_START_TEST (test_src_twcc_strip_mutations)
{
  static const guint8 exts[][12] = {
    {0xBE, 0xDE, 0, 1, 0x11, 0x12, 0x34, 0},
    {0xBE, 0xDE, 0, 2, 0x11, 0x12, 0x34, 0x32, 1, 2, 3, 0},
  };
  SrcFixture f;
  GRand *rand = g_rand_new_with_seed (20261122);
  guint8 pkt[256], sentinel[64];
  gsize sn;
  guint same = 0, stripped = 0, none = 0;

  src_fixture_init_mode (&f, "twcc");
  sn = make_rtp_bytes (sentinel, sizeof sentinel, 0x5E5E5E5Eu, 1, 0, TRUE,
      8);

  for (guint it = 0; it < 1500; it++) {
    guint e = (guint) g_rand_int_range (rand, 0, 2);
    gsize n = build_ext_packet (pkt, (guint) g_rand_int_range (rand, 0, 3),
        exts[e], e == 0 ? 8 : 12, g_rand_boolean (rand) ? 4 : 0);
    guint flips = (guint) g_rand_int_range (rand, 1, 4);
    gboolean done = FALSE;

    for (guint k = 0; k < flips; k++) {
      guint at = (guint) g_rand_int_range (rand, 0, (gint) MIN (n, 32));
      pkt[at] ^= (guint8) g_rand_int_range (rand, 1, 256);
    }
    /* keep it looking like RTP more often than not */
    if (g_rand_int_range (rand, 0, 4) != 0)
      pkt[0] = (guint8) ((pkt[0] & 0x3f) | 0x80);
    if (g_rand_int_range (rand, 0, 8) == 0)
      n = (gsize) g_rand_int_range (rand, 1, (gint) n);
    if (n >= 2 && pkt[1] >= 200 && pkt[1] <= 206)
      pkt[1] = 96;              /* not RTCP */
    send_to_port (f.peer, f.src_port, pkt, n);
    send_to_port (f.peer, f.src_port, sentinel, sn);
    while (!done) {
      GstBuffer *b = gst_harness_pull (f.h);
      GstMapInfo map;

      fail_unless (b != NULL);
      fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
      if (map.size == sn && memcmp (map.data, sentinel, sn) == 0) {
        done = TRUE;
      } else if (map.size == n && memcmp (map.data, pkt, n) == 0) {
        same++;
      } else {
        /* the same less the extension block */
        gsize off = 12 + 4 * (gsize) (pkt[0] & 0x0f), end;
        fail_unless (pkt[0] & 0x10, "iteration %u: changed without X", it);
        fail_unless (off + 4 <= n);
        end = off + 4 + 4 * (gsize) GST_READ_UINT16_BE (pkt + off + 2);
        fail_unless (end <= n && map.size == n - (end - off),
            "iteration %u: %" G_GSIZE_FORMAT " bytes from %" G_GSIZE_FORMAT,
            it, map.size, n);
        fail_unless_equals_int (map.data[0], pkt[0] & ~0x10);
        fail_unless (memcmp (map.data + 1, pkt + 1, off - 1) == 0);
        fail_unless (memcmp (map.data + off, pkt + end, n - end) == 0);
        stripped++;
      }
      gst_buffer_unmap (b, &map);
      gst_buffer_unref (b);
    }
  }
  none = 1500 - same - stripped;
  GST_INFO ("%u unchanged, %u stripped, %u not pushed", same, stripped,
      none);
  fail_unless (same > 100 && stripped > 100, "%u unchanged, %u stripped",
      same, stripped);
  fail_unless_equals_uint64 (stat_u64 (f.src, "twcc-stripped"), stripped);
  g_rand_free (rand);
  src_fixture_clear (&f);
}

GST_END_TEST;

/* ---- 5. SRTP ----------------------------------------------------------- */

/* Master key + salt for AES_CM_128_HMAC_SHA1_80, and another. */
#define SRTP_KEY_A "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
#define SRTP_KEY_B "f00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"

static gboolean
stat_bool (GstElement * e, const gchar * field)
{
  GstStructure *s = NULL;
  gboolean v = FALSE;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_get_boolean (s, field, &v), "no field %s",
      field);
  gst_structure_free (s);
  return v;
}

static RtpccSrtp *
srtp_ctx (const gchar * hex, RtpccSrtpDirection dir)
{
  RtpccSrtpConfig cfg;
  GBytes *key = rtpcc_srtp_key_from_hex (hex, RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80,
      NULL);
  gsize n;
  const guint8 *k = g_bytes_get_data (key, &n);
  RtpccSrtp *ctx;

  rtpcc_srtp_config_init (&cfg);
  cfg.direction = dir;
  ctx = rtpcc_srtp_new (&cfg, k, n, NULL);
  fail_unless (ctx != NULL);
  g_bytes_unref (key);
  return ctx;
}

static void
check_srtp_clean (GstElement * e)
{
  fail_unless (stat_bool (e, "srtp"));
  fail_unless_equals_uint64 (stat_u64 (e, "srtp-auth-failures"), 0);
  fail_unless_equals_uint64 (stat_u64 (e, "srtp-replays"), 0);
  fail_unless_equals_uint64 (stat_u64 (e, "srtp-malformed"), 0);
  fail_unless_equals_uint64 (stat_u64 (e, "srtp-protect-errors"), 0);
}

/* Both ends with the same key: the media arrives intact (decrypted), the
 * sink's SRs reach the src, the src's feedback reaches the sink, nothing
 * fails verification. */
GST_START_TEST (test_srtp_sink_to_src)
{
  GPtrArray *got = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  Pair p;

  pair_init (&p);
  g_object_set (p.sink, "controller", "fixed", "start-bitrate", 2000000,
      "srtp-key", SRTP_KEY_A, NULL);
  g_object_set (p.src, "srtp-key", SRTP_KEY_A, NULL);
  pair_start (&p);

  for (guint i = 0; i < 30; i++)
    pair_push (&p, make_rtp (TEST_SSRC, (guint16) i, 3000 * (i / 3),
            i % 3 == 2, 1000));
  fail_unless_equals_int (pair_pull (&p, 30, got), 30);
  for (guint i = 0; i < got->len; i++) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    const guint8 *pl;

    fail_unless (gst_rtp_buffer_map (g_ptr_array_index (got, i),
            GST_MAP_READ, &rtp));
    fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), i);
    fail_unless_equals_int (gst_rtp_buffer_get_payload_len (&rtp), 1000);
    pl = gst_rtp_buffer_get_payload (&rtp);
    for (guint k = 0; k < 1000; k++)
      fail_unless_equals_int (pl[k], i & 0xff);
    gst_rtp_buffer_unmap (&rtp);
  }
  fail_unless (run_until_stat (p.clock, 2, p.sink, "reported-received", 30,
          3 * GST_SECOND) == 30);
  fail_unless (run_until_stat (p.clock, 2, p.src, "rtcp-received", 1,
          3 * GST_SECOND) >= 1);
  fail_unless (stat_u64 (p.sink, "rtt") > 0);
  check_srtp_clean (p.sink);
  check_srtp_clean (p.src);
  g_ptr_array_unref (got);
  pair_clear (&p);
}

GST_END_TEST;

/* Different keys: nothing the sink sends verifies at the src (counted,
 * nothing pushed), so no feedback comes back either; nothing crashes. */
GST_START_TEST (test_srtp_wrong_key)
{
  Pair p;

  pair_init (&p);
  g_object_set (p.sink, "controller", "fixed", "start-bitrate", 2000000,
      "srtp-key", SRTP_KEY_A, NULL);
  g_object_set (p.src, "srtp-key", SRTP_KEY_B, NULL);
  pair_start (&p);

  for (guint i = 0; i < 10; i++)
    pair_push (&p, make_rtp (TEST_SSRC, (guint16) i, 3000 * i, TRUE, 500));
  fail_unless_equals_int (pair_pull (&p, 1, NULL), 0);
  fail_unless (stat_u64 (p.src, "srtp-auth-failures") >= 10);
  fail_unless_equals_uint64 (stat_u64 (p.src, "packets-received"), 0);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "rtcp-received"), 0);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "reported-received"), 0);
  pair_clear (&p);
}

GST_END_TEST;

/* The sink with SRTP, the test as its peer (with the library's SRTP):
 * what the sink sends is protected (longer by the tag, payload
 * encrypted, verifies with the key); feedback that does not verify
 * (a flipped bit, no protection, another key, a replay) is dropped and
 * counted before the sender sees it; the genuine report is taken. */
GST_START_TEST (test_srtp_sink_feedback)
{
  SinkFixture f;
  RtpccSrtp *in = srtp_ctx (SRTP_KEY_A, RTPCC_SRTP_INBOUND);
  RtpccSrtp *out = srtp_ctx (SRTP_KEY_A, RTPCC_SRTP_OUTBOUND);
  RtpccSrtp *other = srtp_ctx (SRTP_KEY_B, RTPCC_SRTP_OUTBOUND);
  guint8 buf[2048], fb[1500], bad[1500];
  gsize n, len, plain;
  guint got = 0, srs = 0;
  GstClockTime end;

  sink_fixture_init_srtp (&f, "fixed", SRTP_KEY_A);
  for (guint i = 0; i < 10; i++)
    fail_unless_equals_int (push_and_settle (f.h, make_rtp (TEST_SSRC,
                (guint16) (1000 + i), 3000 * i, TRUE, 500), f.clock, 1),
        GST_FLOW_OK);
  end = clock_now (f.clock) + 5 * GST_SECOND;
  while ((got < 10 || srs < 1) && clock_now (f.clock) < end) {
    gssize r = recv_datagram (f.peer, buf, sizeof (buf), NULL);

    if (r < 0) {
      clock_advance (f.clock, 1, GST_MSECOND);
      continue;
    }
    if (rtpcc_rtcp_is_rtcp (buf, r)) {
      fail_unless_equals_int (rtpcc_srtp_unprotect_rtcp (in, buf, r, &len),
          RTPCC_SRTP_OK);
      srs++;
      continue;
    }
    /* 12 + 500 + the 80-bit tag, the payload not in clear */
    fail_unless_equals_int (r, 12 + 500 + 10);
    fail_unless_equals_int (GST_READ_UINT16_BE (buf + 2), 1000 + got);
    {
      guint same = 0;
      for (guint k = 12; k < 512; k++)
        same += buf[k] == ((1000 + got) & 0xff);
      fail_unless (same < 50, "%u payload bytes in clear", same);
    }
    fail_unless_equals_int (rtpcc_srtp_unprotect_rtp (in, buf, r, &len),
        RTPCC_SRTP_OK);
    fail_unless_equals_int (len, 512);
    for (guint k = 12; k < 512; k++)
      fail_unless_equals_int (buf[k], (1000 + got) & 0xff);
    got++;
  }
  fail_unless_equals_int (got, 10);
  fail_unless (srs >= 1);

  plain = make_ccfb (fb, sizeof (fb) - RTPCC_SRTP_MAX_RTCP_OVERHEAD,
      TEST_SSRC, 1000, 10, clock_now (f.clock));
  memcpy (bad, fb, plain);
  fail_unless_equals_int (rtpcc_srtp_protect_rtcp (out, fb, plain,
          sizeof (fb), &n), RTPCC_SRTP_OK);

  /* a bit flipped in the encrypted part, then in the tag */
  memcpy (buf, fb, n);
  buf[12] ^= 0x04;
  sink_fixture_send (&f, f.peer, buf, n);
  memcpy (buf, fb, n);
  buf[n - 1] ^= 0x80;
  sink_fixture_send (&f, f.peer, buf, n);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "srtp-auth-failures"), 2);
  /* not protected at all; protected with another key */
  sink_fixture_send (&f, f.peer, bad, plain);
  fail_unless_equals_int (rtpcc_srtp_protect_rtcp (other, bad, plain,
          sizeof (bad), &len), RTPCC_SRTP_OK);
  sink_fixture_send (&f, f.peer, bad, len);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "srtp-auth-failures") +
      stat_u64 (f.sink, "srtp-malformed"), 4);
  /* none of it reached the sender */
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-received"), 0);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-malformed"), 0);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "reported-received"), 0);

  /* the genuine report */
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-received"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "reported-received"), 10);
  /* replayed */
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "srtp-replays"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "rtcp-received"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "srtp-protect-errors"), 0);

  rtpcc_srtp_free (in);
  rtpcc_srtp_free (out);
  rtpcc_srtp_free (other);
  sink_fixture_clear (&f);
}

GST_END_TEST;

/* A key that is not hex, or of the wrong length for the suite: the
 * element does not start, with an error (and no crash). */
GST_START_TEST (test_srtp_bad_key)
{
  const gchar *keys[] = { "zz", SRTP_KEY_A "00",
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c"
  };

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++) {
    GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
    GstElement *src = gst_element_factory_make ("rtpccsrc", NULL);

    g_object_set (sink, "host", "127.0.0.1", "srtp-key", keys[i], NULL);
    g_object_set (src, "address", "127.0.0.1", "port", 0, "srtp-key",
        keys[i], NULL);
    fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    fail_unless_equals_int (gst_element_set_state (src, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (sink, GST_STATE_NULL);
    gst_element_set_state (src, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (src);
  }
  /* a 46-byte key is right for AES-256 */
  {
    GstElement *src = gst_element_factory_make ("rtpccsrc", NULL);
    g_object_set (src, "address", "127.0.0.1", "port", 0, "srtp-suite", 2,
        "srtp-key", SRTP_KEY_A "000102030405060708090a0b0c0d0e0f", NULL);
    fail_unless (gst_element_set_state (src, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    fail_unless (stat_bool (src, "srtp"));
    gst_element_set_state (src, GST_STATE_NULL);
    gst_object_unref (src);
  }
}

GST_END_TEST;

/* ---- repair: NACK → RTX, PLI / FIR → GstForceKeyUnit ------------------- */

#define RTX_PT 97
#define RTX_SSRC 0x52545831u

/* A relay between rtpccsink and rtpccsrc in the test thread: RTP from the
 * sink goes on to the src unless it is the media packet @drop_seq (dropped
 * once), RTCP from the src goes back to the sink. Both elements see only
 * the relay's address, as with a NAT in between. */
typedef struct
{
  GSocket *sock;
  guint16 port, sink_port;
  gint drop_seq;                /* -1: none */
  guint dropped, forwarded_rtp, forwarded_rtcp;
  guint8 dropped_bytes[2048];
  gsize dropped_len;
  GPtrArray *rtcp;              /* GBytes of every RTCP from the src */
} Relay;

static void
relay_pump (Relay * r, Pair * p)
{
  guint8 buf[2048];
  guint16 from;
  gssize n;

  while ((n = recv_datagram (r->sock, buf, sizeof buf, &from)) >= 0) {
    if (from == p->src_port) {
      g_ptr_array_add (r->rtcp, g_bytes_new (buf, n));
      r->forwarded_rtcp++;
      send_and_settle (r->sock, r->sink_port, buf, n, p->clock, 2);
      continue;
    }
    if (!rtpcc_rtcp_is_rtcp (buf, n) && n >= 12
        && GST_READ_UINT32_BE (buf + 8) == TEST_SSRC
        && r->drop_seq >= 0 && GST_READ_UINT16_BE (buf + 2) == r->drop_seq) {
      memcpy (r->dropped_bytes, buf, n);
      r->dropped_len = n;
      r->drop_seq = -1;
      r->dropped++;
      continue;
    }
    r->forwarded_rtp++;
    send_and_settle (r->sock, p->src_port, buf, n, p->clock, 2);
  }
}

/* Runs the pair @dt in 1 ms steps, relaying as it goes. */
static void
relay_run (Relay * r, Pair * p, GstClockTime dt)
{
  GstClockTime end = clock_now (p->clock) + dt;

  relay_pump (r, p);
  while (clock_now (p->clock) < end) {
    pair_advance (p, GST_MSECOND);
    relay_pump (r, p);
  }
}

/* Whether one of @r's RTCP compounds holds an RTCP packet of @pt / @fmt. */
static guint
relay_count_rtcp (Relay * r, guint8 pt, guint8 fmt)
{
  guint count = 0;

  for (guint i = 0; i < r->rtcp->len; i++) {
    gsize len;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (r->rtcp, i), &len);
    RtpccRtcpIter it;
    RtpccRtcpPacket pkt;

    fail_unless (rtpcc_rtcp_iter_init (&it, d, len));
    while (rtpcc_rtcp_iter_next (&it, &pkt))
      if (pkt.pt == pt && pkt.count == fmt)
        count++;
  }
  return count;
}

/* rtpccsink ! relay dropping one packet ! rtpccsrc, repair=nack on both:
 * the src NACKs the loss, the sink answers with an RTX packet, and the src
 * pushes the original, byte for byte. */
GST_START_TEST (test_repair_nack_rtx_loopback)
{
  Pair p;
  Relay r = { 0, };
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  gboolean restored = FALSE;
  guint8 want[2048];
  gsize want_len;

  r.sock = udp_socket_new (&r.port);
  r.drop_seq = 10;
  r.rtcp = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  pair_init (&p);
  g_object_set (p.sink, "controller", "fixed", "start-bitrate", 2000000,
      "rtx-payload-type", RTX_PT, "rtx-ssrc", RTX_SSRC, NULL);
  gst_util_set_object_arg (G_OBJECT (p.src), "repair", "nack");
  g_object_set (p.src, "rtx-payload-type", RTX_PT, NULL);
  pair_start_to (&p, r.port, &r.sink_port);

  /* 10 frames of 3 packets, one every 33 ms as an encoder makes them */
  for (guint i = 0; i < 30; i++) {
    pair_push (&p, make_rtp (TEST_SSRC, (guint16) i, 3000 * (i / 3),
            i % 3 == 2, 1000));
    if (i % 3 == 2)
      relay_run (&r, &p, 33 * GST_MSECOND);
  }
  relay_run (&r, &p, 300 * GST_MSECOND);
  fail_unless_equals_int (r.dropped, 1);
  want_len = make_rtp_bytes (want, sizeof want, TEST_SSRC, 10, 9000, FALSE,
      1000);
  /* the relay saw the original as sent: it is what the src must restore */
  fail_unless_equals_int ((gint) r.dropped_len, (gint) want_len);
  fail_unless (memcmp (r.dropped_bytes, want, want_len) == 0);

  fail_unless_equals_int (pair_pull (&p, 30, out), 30);
  for (guint i = 0; i < out->len; i++) {
    GstBuffer *b = g_ptr_array_index (out, i);
    GstMapInfo map;

    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    fail_unless_equals_int (GST_READ_UINT32_BE (map.data + 8), TEST_SSRC);
    if (GST_READ_UINT16_BE (map.data + 2) == 10) {
      fail_if (restored, "seq 10 pushed twice");
      fail_unless_equals_int ((gint) map.size, (gint) want_len);
      fail_unless (memcmp (map.data, want, want_len) == 0,
          "the restored packet differs from the original");
      restored = TRUE;
    }
    gst_buffer_unmap (b, &map);
  }
  fail_unless (restored);
  fail_unless (relay_count_rtcp (&r, RTPCC_RTCP_RTPFB, RTPCC_NACK_FMT) >= 1);

  fail_unless_equals_uint64 (stat_u64 (p.src, "nacks-sent"), 1);
  fail_unless_equals_uint64 (stat_u64 (p.src, "nacked-packets"), 1);
  fail_unless_equals_uint64 (stat_u64 (p.src, "rtx-received"), 1);
  fail_unless_equals_uint64 (stat_u64 (p.src, "rtx-recovered"), 1);
  fail_unless_equals_uint64 (stat_u64 (p.src, "rtx-late"), 0);
  fail_unless_equals_uint64 (stat_u64 (p.src, "rtx-duplicate"), 0);
  fail_unless_equals_uint64 (stat_u64 (p.src, "repair-gave-up"), 0);
  fail_unless_equals_uint64 (stat_u64 (p.src, "plis-sent"), 0);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "nacks-received"), 1);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "nacked-packets"), 1);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "rtx-sent"), 1);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "rtx-bytes"), want_len + 2);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "rtx-dropped"), 0);
  /* the RTX packet went through the sender like media: 30 + 1 sent */
  fail_unless_equals_uint64 (stat_u64 (p.sink, "packets-sent"), 31);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "rtcp-malformed"), 0);
  fail_unless_equals_uint64 (stat_u64 (p.sink, "rtcp-wrong-source"), 0);

  g_ptr_array_unref (out);
  g_ptr_array_unref (r.rtcp);
  pair_clear (&p);
  g_object_unref (r.sock);
}

GST_END_TEST;

/* An RTX packet for a packet that did arrive, or one that is not valid
 * RTX, is dropped and counted, never pushed. */
GST_START_TEST (test_repair_src_rtx_duplicate)
{
  SrcFixture f;
  guint8 pkt[1500], rtx[1502];
  gsize n, m;

  src_fixture_init_props (&f, NULL, 0, (const gchar *[]) {
      "repair=nack", "rtx-payload-type=97", NULL});
  for (guint i = 0; i < 3; i++)
    send_rtp (&f, (guint16) i, i == 2);
  for (guint i = 0; i < 3; i++)
    fail_unless_equals_int (pull_seq (&f), i);
  n = make_rtp_bytes (pkt, sizeof pkt, TEST_SSRC, 1, 3000, FALSE, 800);
  m = rtpcc_rtx_build (pkt, n, RTX_SSRC, RTX_PT, 500, rtx, sizeof rtx);
  fail_unless (m == n + 2);
  src_fixture_send (&f, f.peer, rtx, m);
  /* no OSN: nothing to restore */
  src_fixture_send (&f, f.peer, rtx, 12);
  fail_unless (gst_harness_try_pull (f.h) == NULL);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtx-received"), 2);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtx-duplicate"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtx-invalid"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "rtx-recovered"), 0);
  src_fixture_clear (&f);
}

GST_END_TEST;

/* A PLI (and later a FIR) from the receiver becomes a GstForceKeyUnit
 * event upstream of rtpccsink, seen by a probe on its sink pad; a second
 * request within 300 ms is held back. */
static GstPadProbeReturn
catch_key_unit (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
  GPtrArray *seen = data;

  if (gst_video_event_is_force_key_unit (ev))
    g_ptr_array_add (seen, gst_event_ref (ev));
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_repair_pli_force_key_unit)
{
  SinkFixture f;
  GPtrArray *seen = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_event_unref);
  GstPad *pad;
  guint8 fb[64];
  gsize n;
  gboolean all_headers = FALSE;
  RtpccFirEntry e = { TEST_SSRC, 1 };

  sink_fixture_init (&f, "fixed");
  pad = gst_element_get_static_pad (f.sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM, catch_key_unit,
      seen, NULL);
  push_and_receive (&f, 0, 3);

  n = rtpcc_pli_write (fb, sizeof fb, 0x5555, TEST_SSRC);
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_int (seen->len, 1);
  fail_unless (gst_video_event_parse_upstream_force_key_unit
      (g_ptr_array_index (seen, 0), NULL, &all_headers, NULL));
  fail_unless (!all_headers);
  /* again at once: the same loss, held back */
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_int (seen->len, 1);
  /* about an SSRC we do not send: ignored */
  n = rtpcc_pli_write (fb, sizeof fb, 0x5555, TEST_SSRC + 1);
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_int (seen->len, 1);

  clock_advance (f.clock, 1, 400 * GST_MSECOND);
  n = rtpcc_fir_write (fb, sizeof fb, 0x5555, &e, 1);
  sink_fixture_send (&f, f.peer, fb, n);
  fail_unless_equals_int (seen->len, 2);
  fail_unless (gst_video_event_parse_upstream_force_key_unit
      (g_ptr_array_index (seen, 1), NULL, &all_headers, NULL));
  fail_unless (all_headers);

  fail_unless_equals_uint64 (stat_u64 (f.sink, "plis-received"), 2);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "firs-received"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "keyunit-requests"), 2);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "keyunit-suppressed"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.sink, "repair-foreign"), 1);
  /* RTX is off by default: a NACK is counted, not answered */
  {
    RtpccNackFci fci = { 1, 0 };
    n = rtpcc_nack_write (fb, sizeof fb, 0x5555, TEST_SSRC, &fci, 1);
    sink_fixture_send (&f, f.peer, fb, n);
    fail_unless_equals_uint64 (stat_u64 (f.sink, "nacks-received"), 1);
    fail_unless_equals_uint64 (stat_u64 (f.sink, "rtx-off"), 1);
    fail_unless_equals_uint64 (stat_u64 (f.sink, "rtx-sent"), 0);
  }

  gst_object_unref (pad);
  g_ptr_array_unref (seen);
  sink_fixture_clear (&f);
}

GST_END_TEST;

/* Counts the PLIs about TEST_SSRC the peer received so far. */
static guint
recv_plis (SrcFixture * f)
{
  guint8 buf[2048];
  guint plis = 0;
  gssize n;

  while ((n = recv_datagram (f->peer, buf, sizeof buf, NULL)) >= 0) {
    RtpccRtcpIter it;
    RtpccRtcpPacket pkt;
    fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
    while (rtpcc_rtcp_iter_next (&it, &pkt)) {
      guint32 media = 0;
      if (pkt.pt != RTPCC_RTCP_PSFB)
        continue;
      fail_unless (rtpcc_pli_parse (pkt.data, pkt.len, NULL, &media, NULL));
      fail_unless_equals_int (media, TEST_SSRC);
      plis++;
    }
  }
  return plis;
}

/* A GstForceKeyUnit event from downstream makes rtpccsrc send a PLI (with
 * keyframe-request=pli), once per 300 ms. */
GST_START_TEST (test_repair_src_force_key_unit_pli)
{
  SrcFixture f;

  src_fixture_init_props (&f, NULL, 0, (const gchar *[]) {
      "keyframe-request=pli", NULL});
  /* enough for the src to take f.peer as its peer (peer.h) */
  for (guint i = 0; i < 6; i++)
    send_rtp (&f, (guint16) i, i % 3 == 2);
  for (guint i = 0; i < 6; i++)
    pull_seq (&f);
  for (guint k = 0; k < 2; k++) {
    GList *before = clock_snapshot (f.clock);
    fail_unless (gst_harness_push_upstream_event (f.h,
            gst_video_event_new_upstream_force_key_unit (GST_CLOCK_TIME_NONE,
                TRUE, k)));
    clock_settle_after (f.clock, 1, before);
  }
  clock_advance (f.clock, 1, 10 * GST_MSECOND);
  fail_unless_equals_int (recv_plis (&f), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "plis-sent"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "keyunit-events"), 2);
  fail_unless_equals_uint64 (stat_u64 (f.src, "nacks-sent"), 0);
  src_fixture_clear (&f);
}

GST_END_TEST;

/* An unanswered PLI is repeated after max(2 × RTT, 300 ms) until a key
 * frame arrives, which rtpccsrc reads in the H.264 payload (the caps'
 * encoding-name). send_rtp's payload bytes are the seq: seqs 90..100 are
 * NAL types 26..31 and 0..4 (no key frame), seq 101 (0x65) an IDR slice. */
GST_START_TEST (test_repair_src_keyframe_repeat)
{
  SrcFixture f;
  GList *before;

  src_fixture_init_props (&f, NULL, 0, (const gchar *[]) {
      "keyframe-request=pli", NULL});
  for (guint i = 90; i <= 100; i++)
    send_rtp (&f, (guint16) i, i % 3 == 2);
  for (guint i = 90; i <= 100; i++)
    pull_seq (&f);
  before = clock_snapshot (f.clock);
  fail_unless (gst_harness_push_upstream_event (f.h,
          gst_video_event_new_upstream_force_key_unit (GST_CLOCK_TIME_NONE,
              TRUE, 0)));
  clock_settle_after (f.clock, 1, before);
  clock_advance (f.clock, 1, 10 * GST_MSECOND);
  fail_unless_equals_int (recv_plis (&f), 1);
  /* no key frame within 300 ms: asked again */
  clock_advance (f.clock, 1, 310 * GST_MSECOND);
  fail_unless_equals_int (recv_plis (&f), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "keyframe-repeats"), 1);
  /* the IDR answers it: no more requests */
  send_rtp (&f, 101, TRUE);
  pull_seq (&f);
  fail_unless_equals_uint64 (stat_u64 (f.src, "keyframes-received"), 1);
  for (guint k = 0; k < 4; k++)
    clock_advance (f.clock, 1, 200 * GST_MSECOND);
  fail_unless_equals_int (recv_plis (&f), 0);
  fail_unless_equals_uint64 (stat_u64 (f.src, "plis-sent"), 2);
  fail_unless_equals_uint64 (stat_u64 (f.src, "keyframe-repeats"), 1);
  fail_unless_equals_uint64 (stat_u64 (f.src, "keyframe-unanswered"), 0);
  src_fixture_clear (&f);
}

GST_END_TEST;

/* FEC packets (fec-pt) tell the planner what they protect. Media 110..125
 * (payload bytes = seq: no H.264 key-frame NAL type among them) with one
 * XOR repair packet per 3 (the library's encoder, on its own SSRC), seq
 * 115 lost: its block can rebuild it, so it is not NACKed and
 * the FEC packets go downstream untouched (for fecdec). Without fec-pt
 * the same loss is NACKed. */
static guint64
src_fec_run (gboolean fec_pt)
{
  SrcFixture f;
  RtpccFecEncoderConfig fc;
  RtpccFecEncoder *enc;
  guint8 pkt[1500];
  guint pulled = 0, fec_pulled = 0;
  guint64 nacks;
  GstBuffer *b;
  GBytes *fec;

  src_fixture_init_props (&f, NULL, 0, (const gchar *[]) {
      "repair=nack", "rtx-payload-type=97",
      fec_pt ? "fec-pt=122" : "fec-pt=-1", NULL});
  rtpcc_fec_encoder_config_init (&fc);
  fc.scheme = RTPCC_FEC_SCHEME_XOR;
  fc.n = 3;
  fc.ssrc = 0xFEC0FEC0u;
  fc.pt = 122;
  enc = rtpcc_fec_encoder_new (&fc, NULL);
  fail_unless (enc != NULL);
  for (guint i = 110; i <= 125; i++) {
    gsize n = make_rtp_bytes (pkt, sizeof pkt, TEST_SSRC, (guint16) i,
        3000 * (i / 3), i % 3 == 2, 800);
    rtpcc_fec_encoder_push (enc, pkt, n, 0);
    if (i != 115)
      src_fixture_send (&f, f.peer, pkt, n);
    while ((fec = rtpcc_fec_encoder_pop (enc)) != NULL) {
      gsize len;
      const guint8 *d = g_bytes_get_data (fec, &len);
      src_fixture_send (&f, f.peer, d, len);
      g_bytes_unref (fec);
    }
    if (i % 3 == 2)
      clock_advance (f.clock, 1, 33 * GST_MSECOND);
  }
  for (guint k = 0; k < 30; k++)
    clock_advance (f.clock, 1, 10 * GST_MSECOND);
  while ((b = gst_harness_try_pull (f.h)) != NULL) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    if (gst_rtp_buffer_get_ssrc (&rtp) == 0xFEC0FEC0u)
      fec_pulled++;
    else
      pulled++;
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (pulled, 15);
  fail_unless_equals_int (fec_pulled, 5);
  nacks = stat_u64 (f.src, "nacked-packets");
  if (fec_pt) {
    fail_unless_equals_uint64 (stat_u64 (f.src, "fec-packets"), 5);
    fail_unless_equals_uint64 (stat_u64 (f.src, "fec-invalid"), 0);
    fail_unless_equals_uint64 (stat_u64 (f.src, "fec-rebuildable"), 1);
    fail_unless_equals_uint64 (stat_u64 (f.src, "repair-gave-up"), 0);
    fail_unless_equals_uint64 (stat_u64 (f.src, "plis-sent"), 0);
  } else {
    fail_unless_equals_uint64 (stat_u64 (f.src, "fec-packets"), 0);
  }
  rtpcc_fec_encoder_free (enc);
  src_fixture_clear (&f);
  return nacks;
}

GST_START_TEST (test_repair_src_fec_not_nacked)
{
  fail_unless_equals_uint64 (src_fec_run (TRUE), 0);
  fail_unless (src_fec_run (FALSE) >= 1);
}

GST_END_TEST;

static Suite *
elements_rtpcc_suite (void)
{
  Suite *s = suite_create ("elements_rtpcc");
  TCase *tc_props = tcase_create ("properties");
  TCase *tc_sink = tcase_create ("sink");
  TCase *tc_src = tcase_create ("src");
  TCase *tc_enc = tcase_create ("encoder");

  suite_add_tcase (s, tc_props);
  tcase_add_test (tc_props, test_sink_properties);
  tcase_add_test (tc_props, test_src_properties);
  tcase_add_test (tc_props, test_sink_unknown_controller);
  tcase_add_test (tc_props, test_sink_controller_params);
  tcase_add_test (tc_props, test_sink_min_above_max);
  tcase_add_test (tc_props, test_sink_bad_host);
  tcase_add_test (tc_props, test_sink_restart);
  tcase_add_test (tc_props, test_sink_restart_forgets_fec_encoder);

  suite_add_tcase (s, tc_sink);
  tcase_set_timeout (tc_sink, 60);
  tcase_add_test (tc_sink, test_sink_target_publication);
  tcase_add_test (tc_sink, test_sink_feedback);
  tcase_add_test (tc_sink, test_sink_invalid_rtp);
  tcase_add_test (tc_sink, test_sink_forged_feedback);

  suite_add_tcase (s, tc_src);
  tcase_set_timeout (tc_src, 60);
  tcase_add_test (tc_src, test_src_receive_and_feedback);
  tcase_add_test (tc_src, test_src_bad_input);
  tcase_add_test (tc_src, test_sink_to_src_loopback);
  tcase_add_test (tc_src, test_max_bitrate_request);
  tcase_add_test (tc_src, test_remb_to_rrtcc);
  tcase_add_test (tc_src, test_nadu_to_cnadu);
  tcase_add_test (tc_src, test_report_interval_follows);
  tcase_add_test (tc_src, test_feedback_mode_mismatch);
  tcase_add_test (tc_src, test_src_peer_not_redirected);
  tcase_add_test (tc_src, test_src_peer_moves_with_media_source);
  tcase_add_test (tc_src, test_src_sr_only_from_peer);
  tcase_add_test (tc_src, test_src_kernel_drops);
  tcase_add_test (tc_src, test_repair_nack_rtx_loopback);
  tcase_add_test (tc_src, test_repair_src_rtx_duplicate);
  tcase_add_test (tc_src, test_repair_src_force_key_unit_pli);
  tcase_add_test (tc_src, test_repair_src_keyframe_repeat);
  tcase_add_test (tc_src, test_repair_src_fec_not_nacked);
  tcase_add_test (tc_sink, test_repair_pli_force_key_unit);

  suite_add_tcase (s, tc_enc);
  tcase_set_timeout (tc_enc, 120);
  tcase_add_test (tc_enc, test_encoder_control_x264);
  tcase_add_test (tc_enc, test_encoder_control_vp8);
  tcase_add_test (tc_enc, test_encoder_control_none);
  tcase_add_test (tc_enc, test_encoder_loop_closed);
  tcase_add_test (tc_enc, test_media_padding_h264_depay);
  tcase_add_test (tc_enc, test_media_padding_vp8_depay);
  tcase_add_test (tc_enc, test_sink_probe_media_wire);
  tcase_add_test (tc_enc, test_sink_to_src_media_probes);
  tcase_add_test (tc_enc, test_sink_media_probes_fec_recovery);
  tcase_add_test (tc_enc, test_sink_media_probes_fec_recovery_twcc);
  tcase_add_test (tc_enc, test_sink_fec_rewrite_drop_no_gap);
  tcase_add_test (tc_src, test_src_media_ssrcs_bounded);
  tcase_add_test (tc_src, test_src_twcc_strip_cases);
  tcase_add_test (tc_src, test_src_twcc_strip_mutations);
  tcase_add_test (tc_src, test_srtp_sink_to_src);
  tcase_add_test (tc_src, test_srtp_wrong_key);
  tcase_add_test (tc_src, test_srtp_sink_feedback);
  tcase_add_test (tc_src, test_srtp_bad_key);
  return s;
}

GST_CHECK_MAIN (elements_rtpcc);

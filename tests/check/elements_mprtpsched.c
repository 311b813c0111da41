/* Element tests for mprtpsched (plugins/rtpcc/gstmprtpsched.c), driven by
 * GstHarness: pads, properties, the MPRTP subflow extension on every
 * packet, the split by the paths' rates, the aggregate target, and one
 * src pad as a plain passthrough.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gio/gio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <rtpcc/mprtp/ext.h>
#include <rtpcc/feedback/rtpext.h>
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/nack.h>
#include <rtpcc/rtx.h>
#include "gstrtpccevent.h"
#include "gstrtpccencoder.h"

#define SSRC 0x4d505254u
#define CAPS "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=H264,payload=96"

static GstBuffer *
rtp_packet (guint16 seq, guint32 ts, guint payload, gboolean delta)
{
  GstBuffer *buf = gst_rtp_buffer_new_allocate (payload, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, ts);
  gst_rtp_buffer_set_ssrc (&rtp, SSRC);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  memset (gst_rtp_buffer_get_payload (&rtp), (guint8) seq, payload);
  gst_rtp_buffer_unmap (&rtp);
  if (delta)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  return buf;
}

/* what a path's rtpccsink publishes: @media bit/s for the encoder */
static void
send_target (GstHarness * path, guint64 media)
{
  GstRtpccTargetInfo t = { 0, };

  t.target_bitrate = media + media / 10;
  t.media_bitrate = media;
  t.rtt = 40 * GST_MSECOND;
  t.controller = "gcc";
  fail_unless (gst_harness_push_upstream_event (path,
          gst_rtpcc_target_event_new (&t)));
}

/* The share of the bytes waiting on @h0 and @h1 that went to @h1
 * (drained). */
static gdouble
path1_share (GstHarness * h0, GstHarness * h1)
{
  GstHarness *paths[2] = { h0, h1 };
  guint64 bytes[2] = { 0, 0 };
  GstBuffer *b;

  for (guint k = 0; k < 2; k++) {
    while ((b = gst_harness_try_pull (paths[k]))) {
      bytes[k] += gst_buffer_get_size (b);
      gst_buffer_unref (b);
    }
  }
  fail_unless (bytes[0] + bytes[1] > 0);
  return (gdouble) bytes[1] / (bytes[0] + bytes[1]);
}

/* The last rtpcc-target that reached the sink side's upstream, or FALSE
 * (other upstream events are dropped). */
static gboolean
last_aggregate (GstHarness * h, GstRtpccTargetInfo * out, gchar ** controller)
{
  GstEvent *ev;
  gboolean found = FALSE;

  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    GstRtpccTargetInfo t;
    if (gst_rtpcc_target_event_parse (ev, &t)) {
      *out = t;
      g_free (*controller);
      *controller = g_strdup (t.controller);
      found = TRUE;
    }
    gst_event_unref (ev);
  }
  return found;
}

/* The rtpcc-mprtp event among @h's sticky events: its ext-id and subflow;
 * FALSE if there is none. */
static gboolean
announced (GstHarness * h, guint * ext_id, guint * subflow)
{
  GstEvent *ev;
  gboolean found = FALSE;

  while ((ev = gst_harness_try_pull_event (h))) {
    if (gst_rtpcc_mprtp_event_parse (ev, ext_id, subflow))
      found = TRUE;
    gst_event_unref (ev);
  }
  return found;
}

GST_START_TEST (test_pads)
{
  GstElement *e = gst_element_factory_make ("mprtpsched", NULL);
  GstPad *p0, *p1, *p5, *again, *next;
  guint n = 0;

  fail_unless (e != NULL, "mprtpsched not found (GST_PLUGIN_PATH?)");
  p0 = gst_element_request_pad_simple (e, "src_%u");
  p1 = gst_element_request_pad_simple (e, "src_%u");
  fail_unless_equals_string (GST_PAD_NAME (p0), "src_0");
  fail_unless_equals_string (GST_PAD_NAME (p1), "src_1");
  p5 = gst_element_request_pad_simple (e, "src_5");
  fail_unless_equals_string (GST_PAD_NAME (p5), "src_5");
  /* a subflow ID is 16 bits */
  again = gst_element_request_pad_simple (e, "src_70000");
  fail_unless (again == NULL);
  /* the next free number follows the highest */
  next = gst_element_request_pad_simple (e, "src_%u");
  fail_unless_equals_string (GST_PAD_NAME (next), "src_6");
  gst_element_release_request_pad (e, p5);
  gst_object_unref (p5);
  {
    GstStructure *s = NULL;
    g_object_get (e, "stats", &s, NULL);
    fail_unless (gst_structure_get_uint (s, "paths", &n));
    gst_structure_free (s);
  }
  fail_unless_equals_int (n, 3);
  /* at most RTPCC_MPRTP_MAX_PATHS */
  for (guint i = 3; i < RTPCC_MPRTP_MAX_PATHS; i++) {
    GstPad *p = gst_element_request_pad_simple (e, "src_%u");
    fail_unless (p != NULL);
    gst_object_unref (p);
  }
  fail_unless (gst_element_request_pad_simple (e, "src_%u") == NULL);
  gst_object_unref (p0);
  gst_object_unref (p1);
  gst_object_unref (next);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("mprtpsched", NULL);
  guint ext_id = 0, bound = 0, probe = 0;
  guint64 max = 1, target = 1;
  gint ec = -1;

  g_object_get (e, "ext-id", &ext_id, "latency-bound", &bound,
      "probe-interval", &probe, "max-bitrate", &max, "target-bitrate",
      &target, "encoder-control", &ec, NULL);
  fail_unless_equals_int (ext_id, 5);
  fail_unless_equals_int (bound, 500);
  fail_unless_equals_int (probe, 1000);
  fail_unless_equals_uint64 (max, 0);
  fail_unless_equals_uint64 (target, 0);
  fail_unless_equals_int (ec, 1);       /* auto */
  g_object_set (e, "ext-id", 9, "latency-bound", 300, "probe-interval", 0,
      "max-bitrate", (guint64) 2000000, "encoder-control", 0, NULL);
  g_object_get (e, "ext-id", &ext_id, "latency-bound", &bound,
      "probe-interval", &probe, "max-bitrate", &max, "encoder-control", &ec,
      NULL);
  fail_unless_equals_int (ext_id, 9);
  fail_unless_equals_int (bound, 300);
  fail_unless_equals_int (probe, 0);
  fail_unless_equals_uint64 (max, 2000000);
  fail_unless_equals_int (ec, 0);
  gst_object_unref (e);
}

GST_END_TEST;

/* Two paths: every packet leaves on one of them with the subflow element
 * (subflow ID = the pad's number, a gap-free FSSN per path), the media's
 * seq, SSRC and payload untouched; each pad first gets rtpcc-mprtp. */
GST_START_TEST (test_extension_stamped)
{
  GstHarness *h = gst_harness_new_with_padnames ("mprtpsched", "sink",
      "src_0");
  GstHarness *h1 = gst_harness_new_with_element (h->element, NULL, "src_1");
  GstHarness *paths[2] = { h, h1 };
  guint count[2] = { 0, 0 };
  gboolean seen[200] = { FALSE, };
  const guint n = 200;

  g_object_set (h->element, "ext-id", 7, "probe-interval", 0, NULL);
  gst_harness_set_src_caps_str (h, CAPS);
  for (guint i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, rtp_packet (1000 + i,
                i * 3000, 800, TRUE)), GST_FLOW_OK);

  for (guint k = 0; k < 2; k++) {
    GstBuffer *b;
    guint ext_id = 0, subflow = 99;
    fail_unless (announced (paths[k], &ext_id, &subflow));
    fail_unless_equals_int (ext_id, 7);
    fail_unless_equals_int (subflow, k);
    while ((b = gst_harness_try_pull (paths[k]))) {
      GstMapInfo map;
      RtpccMprtpSubflow sf;
      RtpccRtpInfo info;
      gsize hdr;
      fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
      fail_unless (rtpcc_mprtp_read_subflow (map.data, map.size, 7, &sf));
      fail_unless_equals_int (sf.subflow_id, k);
      fail_unless_equals_int (sf.fssn, count[k]);
      fail_unless (rtpcc_rtp_parse (map.data, map.size, map.size, 0, &info,
              &hdr));
      fail_unless_equals_int (info.ssrc, SSRC);
      fail_unless (info.seq >= 1000 && info.seq < 1000 + n);
      fail_if (seen[info.seq - 1000], "seq %u twice", info.seq);
      seen[info.seq - 1000] = TRUE;
      fail_unless_equals_int (map.size - hdr, 800);
      fail_unless_equals_int (map.data[hdr], (guint8) info.seq);
      /* the element alone: a new one-byte block of 12 bytes */
      fail_unless_equals_int (map.size, 12 + 12 + 800);
      gst_buffer_unmap (b, &map);
      gst_buffer_unref (b);
      count[k]++;
    }
  }
  fail_unless_equals_int (count[0] + count[1], n);
  /* equal start: neither path is left out */
  fail_unless (count[0] > n / 4 && count[1] > n / 4, "%u / %u", count[0],
      count[1]);
  gst_harness_teardown (h1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The split follows the rates the paths' sinks publish (1:3), and the
 * aggregate that goes upstream is their sum. */
GST_START_TEST (test_split_follows_rates)
{
  GstHarness *h = gst_harness_new_with_padnames ("mprtpsched", "sink",
      "src_0");
  GstHarness *h1 = gst_harness_new_with_element (h->element, NULL, "src_1");
  GstRtpccTargetInfo agg = { 0, };
  gchar *controller = NULL;
  guint64 target = 0;
  const guint n = 2000;
  gdouble share;

  g_object_set (h->element, "probe-interval", 0, "encoder-control", 0, NULL);
  gst_harness_set_src_caps_str (h, CAPS);
  /* the stream starts (the scheduler is made at the first buffer) */
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (0, 0, 1000,
              TRUE)), GST_FLOW_OK);
  send_target (h, 300000);
  send_target (h1, 900000);
  fail_unless (last_aggregate (h, &agg, &controller));
  fail_unless_equals_uint64 (agg.media_bitrate, 1200000);
  fail_unless_equals_string (controller, "mprtp");
  fail_unless (agg.target_bitrate >= agg.media_bitrate);
  g_object_get (h->element, "target-bitrate", &target, NULL);
  fail_unless_equals_uint64 (target, 1200000);
  g_free (controller);

  for (guint i = 1; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, rtp_packet (i, i * 3000,
                1000, TRUE)), GST_FLOW_OK);
  share = path1_share (h, h1);
  GST_INFO ("path 1 carried %.3f of the bytes", share);
  fail_unless (share > 0.70 && share < 0.80, "path 1 share %.3f (rates 1:3)",
      share);

  /* a path's rate falls: the split and the aggregate follow */
  send_target (h1, 300000);
  controller = NULL;
  fail_unless (last_aggregate (h, &agg, &controller));
  fail_unless_equals_uint64 (agg.media_bitrate, 600000);
  g_free (controller);
  for (guint i = n; i < 2 * n; i++)
    fail_unless_equals_int (gst_harness_push (h, rtp_packet (i, i * 3000,
                1000, TRUE)), GST_FLOW_OK);
  share = path1_share (h, h1);
  fail_unless (share > 0.45 && share < 0.55, "path 1 share %.3f (rates 1:1)",
      share);
  gst_harness_teardown (h1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Key-frame packets (no DELTA_UNIT, from a payloader that marks the
 * others) go on the best path, here the one with the higher rate. */
GST_START_TEST (test_keyframes_on_best_path)
{
  GstHarness *h = gst_harness_new_with_padnames ("mprtpsched", "sink",
      "src_0");
  GstHarness *h1 = gst_harness_new_with_element (h->element, NULL, "src_1");
  GstStructure *s = NULL;
  const GValue *list;
  guint64 kf[2] = { 0, 0 };
  guint seq = 0;

  g_object_set (h->element, "probe-interval", 0, "encoder-control", 0, NULL);
  gst_harness_set_src_caps_str (h, CAPS);
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (seq++, 0, 1000,
              TRUE)), GST_FLOW_OK);
  send_target (h, 300000);
  send_target (h1, 900000);
  for (guint f = 0; f < 20; f++) {
    gboolean key = f % 10 == 0;
    for (guint p = 0; p < (key ? 12 : 3); p++)
      fail_unless_equals_int (gst_harness_push (h, rtp_packet (seq++,
                  f * 3000, 1000, !key)), GST_FLOW_OK);
  }
  g_object_get (h->element, "stats", &s, NULL);
  list = gst_structure_get_value (s, "path-stats");
  for (guint k = 0; k < 2; k++) {
    const GstStructure *ps =
        gst_value_get_structure (gst_value_list_get_value (list, k));
    fail_unless (gst_structure_get_uint64 (ps, "keyframe-packets", &kf[k]));
  }
  gst_structure_free (s);
  fail_unless_equals_uint64 (kf[0], 0);
  fail_unless_equals_uint64 (kf[1], 24);
  gst_harness_teardown (h1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* One src pad: every packet leaves byte for byte as it came, no
 * extension; the sink's target comes back upstream as the aggregate with
 * the same media bitrate. */
GST_START_TEST (test_single_path_passthrough)
{
  GstHarness *h = gst_harness_new_with_padnames ("mprtpsched", "sink",
      "src_0");
  GstRtpccTargetInfo agg = { 0, };
  gchar *controller = NULL;
  guint ext_id = 99, subflow = 99;

  g_object_set (h->element, "encoder-control", 0, NULL);
  gst_harness_set_src_caps_str (h, CAPS);
  for (guint i = 0; i < 100; i++) {
    GstBuffer *in = rtp_packet (500 + i, i * 3000, 700, i % 10 != 0);
    GstBuffer *out;
    GstMapInfo a, b;
    gst_buffer_ref (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (gst_buffer_map (in, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (out, &b, GST_MAP_READ));
    fail_unless_equals_int (a.size, b.size);
    fail_unless (memcmp (a.data, b.data, a.size) == 0);
    gst_buffer_unmap (in, &a);
    gst_buffer_unmap (out, &b);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    if (i == 0) {
      /* the sink is told it is behind mprtpsched, without an extension */
      fail_unless (announced (h, &ext_id, &subflow));
      fail_unless_equals_int (ext_id, 0);
      fail_unless_equals_int (subflow, 0);
    }
    if (i == 50)
      send_target (h, 750000);
  }
  fail_unless (last_aggregate (h, &agg, &controller));
  fail_unless_equals_uint64 (agg.media_bitrate, 750000);
  fail_unless_equals_uint64 (agg.target_bitrate, 825000);
  g_free (controller);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* @seq with the subflow element (ID 5) of @subflow / @fssn, as bytes. */
static GBytes *
mprtp_packet (guint16 seq, guint16 subflow, guint16 fssn)
{
  GstBuffer *b = rtp_packet (seq, seq * 3000u, 200, TRUE);
  RtpccMprtpSubflow sf = { subflow, fssn };
  GstMapInfo map;
  guint8 out[300];
  gsize n;

  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  n = rtpcc_mprtp_add_subflow (map.data, map.size, 5, &sf, out, sizeof out);
  gst_buffer_unmap (b, &map);
  gst_buffer_unref (b);
  fail_unless (n > 0);
  return g_bytes_new (out, n);
}

static GSocket *
udp_socket (guint16 * port)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *a = g_inet_socket_address_new (lo, 0), *bound;

  fail_unless (g_socket_bind (s, a, FALSE, NULL));
  bound = g_socket_get_local_address (s, NULL);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_set_timeout (s, 5);
  g_object_unref (bound);
  g_object_unref (a);
  g_object_unref (lo);
  return s;
}

static guint64
stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s", field);
  gst_structure_free (s);
  return v;
}

/* Sends @datagram from @sock to @dst, where the rtpccsrc of @h listens,
 * and checks that it pushes @expect (@datagram when NULL). */
static void
send_expect (GSocket * sock, GSocketAddress * dst, GstHarness * h,
    GBytes * datagram, GBytes * expect)
{
  GstBuffer *out;
  GstMapInfo map;

  if (!expect)
    expect = datagram;
  fail_unless (g_socket_send_to (sock, dst, g_bytes_get_data (datagram, NULL),
          g_bytes_get_size (datagram), NULL, NULL) > 0);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, g_bytes_get_size (expect));
  fail_unless (memcmp (map.data, g_bytes_get_data (expect, NULL),
          map.size) == 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
}

/* @sink as path (subflow) 1 behind mprtpsched, the packets @seqs (FSSN
 * 0, 1, ...) pushed into it. */
static GstHarness *
path_sink_push (GstElement * sink, const guint16 * seqs, guint n)
{
  GstHarness *h = gst_harness_new_with_element (sink, "sink", NULL);

  gst_harness_use_systemclock (h);
  gst_harness_set_src_caps_str (h, CAPS);
  fail_unless (gst_harness_push_event (h, gst_rtpcc_mprtp_event_new (5, 1)));
  for (guint i = 0; i < n; i++) {
    GBytes *bytes = mprtp_packet (seqs[i], 1, (guint16) i);
    fail_unless_equals_int (gst_harness_push (h,
            gst_buffer_new_wrapped_bytes (bytes)), GST_FLOW_OK);
    g_bytes_unref (bytes);
  }
  return h;
}

/* rtpccsink behind mprtpsched (its rtpcc-mprtp event): the packets leave
 * with the media's seq in the RTP header and the subflow element intact,
 * although its sender numbers them by the FSSN. */
GST_START_TEST (test_sink_subflow_mode)
{
  const guint16 seqs[3] = { 100, 105, 110 };
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  GstHarness *h;
  guint16 port;
  GSocket *sock = udp_socket (&port);
  GSocketAddress *sink_addr = NULL;
  guint got = 0;

  g_object_set (sink, "host", "127.0.0.1", "port", port, "controller",
      "fixed", "start-bitrate", 1000000, NULL);
  h = path_sink_push (sink, seqs, 3);
  while (got < 3) {
    guint8 buf[1500];
    gssize n;
    RtpccMprtpSubflow sf;

    g_clear_object (&sink_addr);
    n = g_socket_receive_from (sock, &sink_addr, (gchar *) buf, sizeof buf,
        NULL, NULL);
    fail_unless (n > 0, "nothing sent");
    if ((buf[1] & 0x7f) != 96)
      continue;                 /* an SR */
    fail_unless_equals_int ((buf[2] << 8) | buf[3], seqs[got]);
    fail_unless (rtpcc_mprtp_read_subflow (buf, n, 5, &sf));
    fail_unless_equals_int (sf.subflow_id, 1);
    fail_unless_equals_int (sf.fssn, got);
    got++;
  }
  fail_unless_equals_uint64 (stat_u64 (sink, "mprtp-missing"), 0);

  /* the path's receiver answers with a subflow report (one lost, two
   * discarded): the sink keeps it in its stats */
  {
    RtpccMprtpSubflowReport rep = { 0, };
    guint8 buf[200];
    gsize n;
    GstStructure *st = NULL;
    guint id = 0, hi = 0;
    gint lost = 0;
    guint64 disc = 0;

    rep.subflow_id = 1;
    rep.rr.cumulative_lost = 1;
    rep.rr.ext_highest_seq = 2;
    rep.has_discards = TRUE;
    rep.discards = 2;
    n = rtpcc_mprtcp_write (buf, sizeof buf, 0x5eed, SSRC, &rep, 1);
    fail_unless (g_socket_send_to (sock, sink_addr, (const gchar *) buf, n,
            NULL, NULL) == (gssize) n);
    for (guint i = 0; i < 200 && stat_u64 (sink, "mprtcp-received") == 0;
        i++)
      g_usleep (10000);
    fail_unless_equals_uint64 (stat_u64 (sink, "mprtcp-received"), 1);
    fail_unless_equals_uint64 (stat_u64 (sink, "mprtcp-rejected"), 0);
    g_object_get (sink, "stats", &st, NULL);
    fail_unless (gst_structure_get_uint (st, "subflow-id", &id));
    fail_unless (gst_structure_get_int (st, "subflow-lost", &lost));
    fail_unless (gst_structure_get_uint (st, "subflow-highest-seq", &hi));
    fail_unless (gst_structure_get_uint64 (st, "subflow-discards", &disc));
    fail_unless_equals_int (id, 1);
    fail_unless_equals_int (lost, 1);
    fail_unless_equals_int (hi, 2);
    fail_unless_equals_uint64 (disc, 2);
    gst_structure_free (st);
  }
  gst_harness_teardown (h);
  gst_object_unref (sink);
  g_object_unref (sink_addr);
  g_object_unref (sock);
}

GST_END_TEST;

/* rtpccsrc counts a subflow on its FSSN: media seqs 5 apart with
 * consecutive FSSNs are no loss; one FSSN missing is one packet lost. The
 * packets go downstream unchanged. */
GST_START_TEST (test_src_subflow_accounting)
{
  GstElement *src = gst_element_factory_make ("rtpccsrc", NULL);
  GstHarness *h;
  guint16 port, from;
  GSocket *sock = udp_socket (&from);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *dst;
  gint bound = 0;
  /* FSSN 3 never arrives */
  const guint16 fssn[5] = { 0, 1, 2, 4, 5 };
  GstCaps *caps = gst_caps_from_string (CAPS);

  g_object_set (src, "address", "127.0.0.1", "port", 0, "caps", caps, NULL);
  gst_caps_unref (caps);
  h = gst_harness_new_with_element (src, NULL, "src");
  gst_harness_use_systemclock (h);
  gst_harness_play (h);
  g_object_get (src, "bound-port", &bound, NULL);
  port = (guint16) bound;
  dst = g_inet_socket_address_new (lo, port);
  for (guint i = 0; i < 5; i++) {
    GBytes *bytes = mprtp_packet (200 + 5 * i, 2, fssn[i]);
    send_expect (sock, dst, h, bytes, NULL);
    g_bytes_unref (bytes);
  }
  fail_unless_equals_uint64 (stat_u64 (src, "mprtp-packets"), 5);
  fail_unless_equals_uint64 (stat_u64 (src, "packets-lost"), 1);
  /* its regular report carries the path's MPRTCP subflow report: subflow
   * 2, FSSN 3 lost, highest FSSN 9 (the RR interval is 1 s ± 50 %). Four
   * packets more in sequence first: feedback goes to the sender once a
   * run of them has made its address the peer (gst/rtpcc/peer.h). */
  {
    RtpccMprtcp mp;
    gboolean found = FALSE;

    for (guint16 q = 6; q <= 9; q++) {
      GBytes *bytes = mprtp_packet (200 + 5 * q, 2, q);
      send_expect (sock, dst, h, bytes, NULL);
      g_bytes_unref (bytes);
    }

    while (!found) {
      guint8 buf[1500];
      gssize n = g_socket_receive (sock, (gchar *) buf, sizeof buf, NULL,
          NULL);
      fail_unless (n > 0, "no subflow report");
      found = rtpcc_mprtcp_find (buf, (gsize) n, &mp);
    }
    fail_unless_equals_int (mp.media_ssrc, SSRC);
    fail_unless_equals_int (mp.n_reports, 1);
    fail_unless_equals_int (mp.reports[0].subflow_id, 2);
    fail_unless_equals_int (mp.reports[0].rr.cumulative_lost, 1);
    fail_unless_equals_int (mp.reports[0].rr.ext_highest_seq & 0xffff, 9);
    fail_unless (mp.reports[0].has_discards);
    fail_unless_equals_int (mp.reports[0].discards, 0);
    fail_unless (stat_u64 (src, "mprtcp-sent") >= 1);
  }
  gst_harness_teardown (h);
  gst_object_unref (src);
  g_object_unref (dst);
  g_object_unref (lo);
  g_object_unref (sock);
}

GST_END_TEST;

#define RTX_PT 97
#define RTX_SSRC 0x52545831u

/* A receiving rtpccsrc on 127.0.0.1 that NACKs (RFC 4585 §6.2.1) and
 * takes RTX of RTX_PT; its port in *@port. */
static GstHarness *
nack_src (GstElement ** src, guint16 * port)
{
  GstCaps *caps = gst_caps_from_string (CAPS);
  GstHarness *h;
  gint bound = 0;

  *src = gst_element_factory_make ("rtpccsrc", NULL);
  g_object_set (*src, "address", "127.0.0.1", "port", 0, "caps", caps,
      "rtx-payload-type", RTX_PT, NULL);
  gst_util_set_object_arg (G_OBJECT (*src), "repair", "nack");
  gst_caps_unref (caps);
  h = gst_harness_new_with_element (*src, NULL, "src");
  gst_harness_use_systemclock (h);
  gst_harness_play (h);
  g_object_get (*src, "bound-port", &bound, NULL);
  *port = (guint16) bound;
  return h;
}

/* mprtp_packet() as a whole frame, one every 10 ms: the marker set (the
 * repair planner takes a frame without it as one whose last packet is
 * missing), the timestamp as the packets are paced (a retransmission's
 * deadline is reckoned from it). */
static GBytes *
mprtp_frame (guint16 seq, guint16 subflow, guint16 fssn)
{
  GBytes *b = mprtp_packet (seq, subflow, fssn);
  gsize n;
  guint8 *d = g_bytes_unref_to_data (b, &n);

  d[1] |= 0x80;
  GST_WRITE_UINT32_BE (d + 4, seq * 900u);
  return g_bytes_new_take (d, n);
}

/* The FSSNs the Generic NACKs in RTCP compound @buf name, into @seqs
 * (room for 64); how many. */
static guint
nacked_seqs (const guint8 * buf, gsize n, guint16 * seqs)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket p;
  guint count = 0;

  if (!rtpcc_rtcp_iter_init (&it, buf, n))
    return 0;
  while (rtpcc_rtcp_iter_next (&it, &p)) {
    RtpccNack *nack;
    if (p.pt != RTPCC_RTCP_RTPFB || p.count != RTPCC_NACK_FMT)
      continue;
    nack = rtpcc_nack_parse (p.data, p.len, NULL);
    fail_unless (nack != NULL);
    fail_unless_equals_int (nack->media_ssrc, SSRC);
    for (guint i = 0; i < nack->n_fci; i++) {
      guint16 s[17];
      guint k = rtpcc_nack_fci_seqs (nack->fci[i], s);
      for (guint j = 0; j < k && count < 64; j++)
        seqs[count++] = s[j];
    }
    rtpcc_nack_free (nack);
  }
  return count;
}

/* Waits for the NACK path 1's rtpccsrc sends back to @sock: it must name
 * @lost_fssn alone. Then sends the RTX of @lost as the path's rtpccsink
 * does (the original's header and subflow element, OSN = its media seq)
 * and expects the src to push @lost, byte for byte. */
static void
repair_lost (GSocket * sock, GSocketAddress * dst, GstHarness * h,
    GBytes * lost, guint16 lost_fssn)
{
  guint16 nacked[64];
  guint n_nacked = 0;
  gint64 until = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  gsize len, n;
  const guint8 *orig = g_bytes_get_data (lost, &len);
  guint8 rtx[1500];
  GBytes *b;

  while (n_nacked == 0) {
    guint8 buf[1500];
    gssize got = g_socket_receive (sock, (gchar *) buf, sizeof buf, NULL,
        NULL);
    fail_unless (got > 0 && g_get_monotonic_time () < until, "no NACK");
    n_nacked = nacked_seqs (buf, (gsize) got, nacked);
  }
  fail_unless_equals_int (n_nacked, 1);
  fail_unless_equals_int (nacked[0], lost_fssn);
  n = rtpcc_rtx_build (orig, len, RTX_SSRC, RTX_PT, 7, rtx, sizeof rtx);
  fail_unless (n == len + 2);
  b = g_bytes_new (rtx, n);
  send_expect (sock, dst, h, b, lost);
  g_bytes_unref (b);
}

/* Two paths, one rtpccsrc each with repair=nack: media seqs 0..59 alternate
 * between them, each path numbering its share 0..29 by FSSN. Path 0 loses
 * nothing: its receiver sees every other media seq missing and must NACK
 * none of them. Path 1 loses FSSN 12 (media seq 25): its NACK names FSSN
 * 12 alone, and an RTX carrying it (OSN = the media seq, the subflow
 * element copied, as the path's rtpccsink sends it) makes that src push
 * the original, byte for byte. */
GST_START_TEST (test_src_paths_nack_on_fssn)
{
  GstElement *src[2];
  GstHarness *h[2];
  guint16 port[2], from;
  GSocketAddress *dst[2];
  GSocket *sock = udp_socket (&from);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  const guint16 lost_fssn = 12, lost_seq = 25;
  GBytes *lost = NULL;
  guint16 fssn[2] = { 0, 0 };

  for (guint k = 0; k < 2; k++) {
    h[k] = nack_src (&src[k], &port[k]);
    dst[k] = g_inet_socket_address_new (lo, port[k]);
  }
  for (guint16 seq = 0; seq < 60; seq++) {
    guint k = seq % 2;
    GBytes *bytes = mprtp_frame (seq, k, fssn[k]);

    if (k == 1 && fssn[k] == lost_fssn) {
      fail_unless_equals_int (seq, lost_seq);
      lost = g_bytes_ref (bytes);
    } else {
      send_expect (sock, dst[k], h[k], bytes, NULL);
    }
    g_bytes_unref (bytes);
    fssn[k]++;
    g_usleep (10000);
    if (seq == lost_seq + 2)
      repair_lost (sock, dst[1], h[1], lost, lost_fssn);
  }
  fail_unless_equals_uint64 (stat_u64 (src[1], "nacked-packets"), 1);
  fail_unless_equals_uint64 (stat_u64 (src[1], "rtx-recovered"), 1);
  /* path 0 saw half the media seqs and no gap in its FSSNs */
  fail_unless_equals_uint64 (stat_u64 (src[0], "nacks-sent"), 0);
  fail_unless_equals_uint64 (stat_u64 (src[0], "nacked-packets"), 0);
  fail_unless_equals_uint64 (stat_u64 (src[0], "packets-lost"), 0);
  fail_unless_equals_uint64 (stat_u64 (src[1], "packets-lost"), 1);

  for (guint k = 0; k < 2; k++) {
    gst_harness_teardown (h[k]);
    gst_object_unref (src[k]);
    g_object_unref (dst[k]);
  }
  g_bytes_unref (lost);
  g_object_unref (lo);
  g_object_unref (sock);
}

GST_END_TEST;

/* rtpccsink behind mprtpsched with RTX: its history is numbered by FSSN,
 * so a NACK from its path's receiver names FSSNs; the RTX it sends carries
 * the media seq as OSN (what the decoder's stream knows) and the
 * original's subflow element. */
GST_START_TEST (test_sink_rtx_by_fssn)
{
  const guint16 seqs[4] = { 100, 105, 110, 115 };
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  GstHarness *h;
  guint16 port;
  GSocket *sock = udp_socket (&port);
  GSocketAddress *sink_addr = NULL;
  guint got = 0;
  gboolean answered = FALSE;
  gint64 until = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  g_object_set (sink, "host", "127.0.0.1", "port", port, "controller",
      "fixed", "start-bitrate", 1000000, "rtx-payload-type", RTX_PT,
      "rtx-ssrc", RTX_SSRC, NULL);
  h = path_sink_push (sink, seqs, 4);
  while (got < 4) {
    guint8 buf[1500];
    gssize n;

    g_clear_object (&sink_addr);
    n = g_socket_receive_from (sock, &sink_addr, (gchar *) buf, sizeof buf,
        NULL, NULL);
    fail_unless (n > 0, "nothing sent");
    if ((buf[1] & 0x7f) == 96)
      got++;
  }
  /* the path's receiver lost FSSN 2 (media seq 110) */
  {
    RtpccNackFci fci = { 2, 0 };
    guint8 fb[64];
    gsize n = rtpcc_nack_write (fb, sizeof fb, 0x5eed, SSRC, &fci, 1);
    fail_unless (g_socket_send_to (sock, sink_addr, (const gchar *) fb, n,
            NULL, NULL) == (gssize) n);
  }
  while (!answered) {
    guint8 buf[1500];
    gssize n = g_socket_receive (sock, (gchar *) buf, sizeof buf, NULL,
        NULL);
    RtpccMprtpSubflow sf;
    gsize hl;
    GBytes *want = mprtp_packet (110, 1, 2);
    gsize want_len;
    const guint8 *w = g_bytes_get_data (want, &want_len);

    fail_unless (n > 0 && g_get_monotonic_time () < until, "no RTX");
    if ((buf[1] & 0x7f) != RTX_PT) {
      g_bytes_unref (want);
      continue;
    }
    fail_unless_equals_int (GST_READ_UINT32_BE (buf + 8), RTX_SSRC);
    fail_unless (rtpcc_mprtp_read_subflow (buf, n, 5, &sf));
    fail_unless_equals_int (sf.subflow_id, 1);
    fail_unless_equals_int (sf.fssn, 2);
    fail_unless (rtpcc_rtp_header_size (buf, n, &hl));
    fail_unless_equals_int (GST_READ_UINT16_BE (buf + hl), 110);
    /* the payload after the OSN is the original's */
    fail_unless_equals_int ((gint) n, (gint) want_len + 2);
    fail_unless (memcmp (buf + hl + 2, w + hl, want_len - hl) == 0);
    g_bytes_unref (want);
    answered = TRUE;
  }
  fail_unless_equals_uint64 (stat_u64 (sink, "rtx-sent"), 1);
  fail_unless_equals_uint64 (stat_u64 (sink, "rtx-unknown"), 0);
  fail_unless_equals_uint64 (stat_u64 (sink, "mprtp-rtx-unmapped"), 0);
  gst_harness_teardown (h);
  gst_object_unref (sink);
  g_object_unref (sink_addr);
  g_object_unref (sock);
}

GST_END_TEST;

#define SRTP_KEY "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"

/* SRTP on a path: rtpccsink behind mprtpsched protects what it sends
 * after writing the media seq back into the header, so the path's rtpccsrc
 * with the same key authenticates every packet, counts it on its FSSN and
 * hands on the very packet mprtpsched produced. */
GST_START_TEST (test_srtp_path)
{
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  GstElement *src = gst_element_factory_make ("rtpccsrc", NULL);
  GstHarness *hs, *hr;
  guint16 port, from;
  GSocket *sock = udp_socket (&port), *out = udp_socket (&from);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *dst;
  GstCaps *caps = gst_caps_from_string (CAPS);
  GBytes *sent[6];
  GPtrArray *wire = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  gint bound = 0;

  g_object_set (sink, "host", "127.0.0.1", "port", port, "controller",
      "fixed", "start-bitrate", 1000000, "srtp-key", SRTP_KEY, NULL);
  hs = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_use_systemclock (hs);
  gst_harness_set_src_caps_str (hs, CAPS);
  fail_unless (gst_harness_push_event (hs, gst_rtpcc_mprtp_event_new (5, 1)));
  for (guint i = 0; i < 6; i++) {
    sent[i] = mprtp_packet (300 + 3 * i, 1, i);
    fail_unless_equals_int (gst_harness_push (hs,
            gst_buffer_new_wrapped_bytes (sent[i])), GST_FLOW_OK);
  }
  while (wire->len < 6) {
    guint8 buf[1500];
    gssize n = g_socket_receive (sock, (gchar *) buf, sizeof buf, NULL, NULL);
    fail_unless (n > 0, "nothing sent");
    if ((buf[1] & 0x7f) != 96)
      continue;                 /* an SR */
    /* encrypted: not the packet itself */
    fail_if ((gsize) n == g_bytes_get_size (sent[wire->len]) &&
        memcmp (buf, g_bytes_get_data (sent[wire->len], NULL), n) == 0);
    g_ptr_array_add (wire, g_bytes_new (buf, n));
  }

  g_object_set (src, "address", "127.0.0.1", "port", 0, "caps", caps,
      "srtp-key", SRTP_KEY, NULL);
  hr = gst_harness_new_with_element (src, NULL, "src");
  gst_harness_use_systemclock (hr);
  gst_harness_play (hr);
  g_object_get (src, "bound-port", &bound, NULL);
  dst = g_inet_socket_address_new (lo, (guint16) bound);
  for (guint i = 0; i < 6; i++)
    send_expect (out, dst, hr, g_ptr_array_index (wire, i), sent[i]);
  fail_unless_equals_uint64 (stat_u64 (src, "srtp-auth-failures"), 0);
  fail_unless_equals_uint64 (stat_u64 (src, "mprtp-packets"), 6);
  fail_unless_equals_uint64 (stat_u64 (src, "packets-lost"), 0);
  fail_unless_equals_uint64 (stat_u64 (sink, "mprtp-missing"), 0);

  gst_harness_teardown (hr);
  gst_harness_teardown (hs);
  for (guint i = 0; i < 6; i++)
    g_bytes_unref (sent[i]);
  g_ptr_array_unref (wire);
  gst_caps_unref (caps);
  g_object_unref (dst);
  g_object_unref (lo);
  g_object_unref (out);
  g_object_unref (sock);
  gst_object_unref (src);
  gst_object_unref (sink);
}

GST_END_TEST;

/* Repair requests (rtpcc-mprtp-rtx queries from a path's sink): a seq
 * the asking path never carried, or never sent, is refused and counted; a
 * malformed request is refused and counted; with no RTT measured on any
 * path the repair stays on the asking path (the sink sends its own RTX);
 * with one path nothing is asked of the scheduler at all. */
static gboolean
ask_rtx (GstHarness * path, guint16 seq, gboolean * moved)
{
  GstQuery *q = gst_rtpcc_mprtp_rtx_query_new (seq, 1200);
  gboolean ok = gst_pad_peer_query (path->sinkpad, q);

  *moved = gst_rtpcc_mprtp_rtx_query_moved (q);
  gst_query_unref (q);
  return ok;
}

GST_START_TEST (test_rtx_requests)
{
  GstHarness *h = gst_harness_new_with_padnames ("mprtpsched", "sink",
      "src_0");
  GstHarness *h1 = gst_harness_new_with_element (h->element, NULL, "src_1");
  GstHarness *paths[2] = { h, h1 };
  gint on0 = -1, on1 = -1;
  gboolean moved = TRUE;
  GstBuffer *b;
  GstQuery *bad;

  g_object_set (h->element, "encoder-control", 0, NULL);
  gst_harness_set_src_caps_str (h, CAPS);
  send_target (h, 500000);
  send_target (h1, 500000);
  for (guint i = 0; i < 10; i++)
    fail_unless_equals_int (gst_harness_push (h, rtp_packet (100 + i,
                i * 3000, 1000, TRUE)), GST_FLOW_OK);
  for (guint k = 0; k < 2; k++) {
    while ((b = gst_harness_try_pull (paths[k]))) {
      guint8 hdr[4];
      fail_unless_equals_int (gst_buffer_extract (b, 0, hdr, 4), 4);
      if (k == 0)
        on0 = GST_READ_UINT16_BE (hdr + 2);
      else
        on1 = GST_READ_UINT16_BE (hdr + 2);
      gst_buffer_unref (b);
    }
  }
  fail_unless (on0 >= 0 && on1 >= 0);

  /* path 1 asks for a packet path 0 carried: refused */
  fail_unless (ask_rtx (h1, (guint16) on0, &moved));
  fail_if (moved);
  fail_unless_equals_uint64 (stat_u64 (h->element, "rtx-unknown"), 1);
  /* ... and for one never sent */
  fail_unless (ask_rtx (h1, 999, &moved));
  fail_if (moved);
  fail_unless_equals_uint64 (stat_u64 (h->element, "rtx-unknown"), 2);
  /* its own packet: no path has an RTT, so it stays (not refused) */
  fail_unless (ask_rtx (h1, (guint16) on1, &moved));
  fail_if (moved);
  fail_unless_equals_uint64 (stat_u64 (h->element, "rtx-unknown"), 2);
  fail_unless_equals_uint64 (stat_u64 (h->element, "rtx-moved"), 0);
  fail_if (gst_harness_try_pull (h));
  /* malformed: refused, counted */
  bad = gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new (GST_RTPCC_MPRTP_RTX_NAME, "seq", G_TYPE_STRING,
          "12", NULL));
  fail_if (gst_pad_peer_query (h1->sinkpad, bad));
  gst_query_unref (bad);
  fail_unless_equals_uint64 (stat_u64 (h->element, "rtx-malformed"), 1);
  gst_harness_teardown (h1);
  gst_harness_teardown (h);

  /* one path: answered "not moved", nothing counted */
  h = gst_harness_new_with_padnames ("mprtpsched", "sink", "src_0");
  gst_harness_set_src_caps_str (h, CAPS);
  g_object_set (h->element, "encoder-control", 0, NULL);
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (7, 0, 1000,
              TRUE)), GST_FLOW_OK);
  fail_unless (ask_rtx (h, 7, &moved));
  fail_if (moved);
  fail_unless_equals_uint64 (stat_u64 (h->element, "rtx-unknown"), 0);
  fail_unless_equals_uint64 (stat_u64 (h->element, "rtx-moved"), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* mprtpsched with two src pads (the second in *@h1), encoder control
 * off, its first packet (media seq 0) pushed: the scheduler runs. */
static GstHarness *
two_paths_running (GstHarness ** h1)
{
  GstHarness *h = gst_harness_new_with_padnames ("mprtpsched", "sink",
      "src_0");

  *h1 = gst_harness_new_with_element (h->element, NULL, "src_1");
  g_object_set (h->element, "encoder-control", 0, NULL);
  gst_harness_set_src_caps_str (h, CAPS);
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (0, 0, 100,
              TRUE)), GST_FLOW_OK);
  return h;
}

/* A malformed rtpcc-target from a path is dropped and counted; it neither
 * reaches upstream nor changes the aggregate. */
GST_START_TEST (test_malformed_target)
{
  GstHarness *h1 = NULL;
  GstHarness *h = two_paths_running (&h1);
  GstRtpccTargetInfo agg = { 0, };
  gchar *controller = NULL;
  GstStructure *s = NULL;
  guint64 n = 0;
  GstEvent *ev;

  send_target (h, 300000);
  send_target (h1, 300000);
  fail_unless (last_aggregate (h, &agg, &controller));
  fail_unless_equals_uint64 (agg.media_bitrate, 600000);
  fail_if (gst_harness_push_upstream_event (h1,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new (GST_RTPCC_TARGET_NAME, "target-bitrate",
                  G_TYPE_STRING, "lots", NULL))));
  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    fail_if (gst_rtpcc_target_event_is (ev), "it went upstream");
    gst_event_unref (ev);
  }
  g_object_get (h->element, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, "malformed-targets", &n));
  fail_unless_equals_uint64 (n, 1);
  fail_unless (gst_structure_get_uint64 (s, "encoder-rate", &n));
  fail_unless_equals_uint64 (n, 600000);
  gst_structure_free (s);
  g_free (controller);
  gst_harness_teardown (h1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A second RTP stream (fecenc in front of mprtpsched): its packets still
 * go out, counted, and the bus gets one warning saying what to do. */
GST_START_TEST (test_second_stream_warned)
{
  GstHarness *h1 = NULL;
  GstHarness *h = two_paths_running (&h1);
  GstBus *bus = gst_bus_new ();
  GstStructure *s = NULL;
  GstMessage *m;
  guint64 n = 0;
  guint warnings = 0, out = 0;
  GstBuffer *b;

  gst_element_set_bus (h->element, bus);
  for (guint i = 0; i < 3; i++) {
    GstBuffer *fec = rtp_packet (i, 0, 100, TRUE);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

    fail_unless (gst_rtp_buffer_map (fec, GST_MAP_WRITE, &rtp));
    gst_rtp_buffer_set_ssrc (&rtp, SSRC + 1);
    gst_rtp_buffer_unmap (&rtp);
    fail_unless_equals_int (gst_harness_push (h, fec), GST_FLOW_OK);
  }
  /* each packet out at least once (a path not used gets duplicates) */
  for (guint k = 0; k < 2; k++) {
    while ((b = gst_harness_try_pull (k ? h1 : h))) {
      GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

      fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
      out |= 1u << ((gst_rtp_buffer_get_ssrc (&rtp) - SSRC) * 3 +
          gst_rtp_buffer_get_seq (&rtp));
      gst_rtp_buffer_unmap (&rtp);
      gst_buffer_unref (b);
    }
  }
  /* media seq 0; the other stream's 0, 1, 2 */
  fail_unless_equals_int (out, 0x1 | 0x8 | 0x10 | 0x20);
  g_object_get (h->element, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, "other-ssrc-packets", &n));
  fail_unless_equals_uint64 (n, 3);
  gst_structure_free (s);
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    warnings++;
    gst_message_unref (m);
  }
  fail_unless_equals_int (warnings, 1);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* max-bitrate set while playing reaches the running scheduler: the
 * aggregate published upstream and the encoder rate follow from the next
 * packet on, down and back up. */
GST_START_TEST (test_max_bitrate_while_playing)
{
  GstHarness *h1 = NULL;
  GstHarness *h = two_paths_running (&h1);
  GstRtpccTargetInfo agg = { 0, };
  gchar *controller = NULL;
  GstStructure *s = NULL;
  guint64 n = 0, published = 0;

  send_target (h, 300000);
  send_target (h1, 300000);
  fail_unless (last_aggregate (h, &agg, &controller));
  fail_unless_equals_uint64 (agg.media_bitrate, 600000);

  g_object_set (h->element, "max-bitrate", (guint64) 400000, NULL);
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (1, 3000, 100,
              TRUE)), GST_FLOW_OK);
  fail_unless (last_aggregate (h, &agg, &controller));
  fail_unless_equals_uint64 (agg.media_bitrate, 400000);
  /* the paths' own headroom (a tenth here) on top: the total rate */
  fail_unless_equals_uint64 (agg.target_bitrate, 440000);
  g_object_get (h->element, "target-bitrate", &published, "stats", &s, NULL);
  fail_unless_equals_uint64 (published, 400000);
  fail_unless (gst_structure_get_uint64 (s, "encoder-rate", &n));
  fail_unless_equals_uint64 (n, 400000);
  gst_structure_free (s);

  g_object_set (h->element, "max-bitrate", (guint64) 0, NULL);
  fail_unless_equals_int (gst_harness_push (h, rtp_packet (2, 6000, 100,
              TRUE)), GST_FLOW_OK);
  fail_unless (last_aggregate (h, &agg, &controller));
  fail_unless_equals_uint64 (agg.media_bitrate, 600000);
  g_free (controller);
  gst_harness_teardown (h1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Two paths' sinks publish from their own threads; an aggregate computed
 * first may be published last. Here the first (350 kbit/s) is held in a
 * sync bus handler until the other path's target made the aggregate
 * 700 kbit/s: the encoder must end at 700 kbit/s, the newest, not at the
 * one that reached it last. (It ended at the stale one before: x264enc
 * stuck at one path's 625 kbit/s in a two-path call.) */
typedef struct
{
  GstElement *sched;
  GstPad *src1;
  GThread *other;
  gboolean held;
  guint64 waited_for;
} RaceCtx;

static gpointer
race_other_path (gpointer data)
{
  RaceCtx *r = data;
  GstRtpccTargetInfo t = { 0, };

  t.media_bitrate = 450000;
  t.target_bitrate = 495000;
  t.rtt = 40 * GST_MSECOND;
  t.controller = "gcc";
  gst_pad_send_event (r->src1, gst_rtpcc_target_event_new (&t));
  return NULL;
}

static GstBusSyncReply
race_hold_first (GstBus * bus, GstMessage * msg, gpointer data)
{
  RaceCtx *r = data;
  GstRtpccTargetInfo t;

  if (GST_MESSAGE_SRC (msg) != GST_OBJECT (r->sched)
      || !gst_rtpcc_target_message_is (msg)
      || !gst_rtpcc_target_structure_parse (gst_message_get_structure (msg),
          &t) || t.media_bitrate != 350000 || r->held)
    return GST_BUS_PASS;
  r->held = TRUE;
  r->other = g_thread_new ("path1", race_other_path, r);
  /* until the other path's aggregate is computed (published_rate), at
   * most 2 s */
  for (guint i = 0; i < 200 && r->waited_for != 700000; i++) {
    g_object_get (r->sched, "target-bitrate", &r->waited_for, NULL);
    if (r->waited_for != 700000)
      g_usleep (10000);
  }
  return GST_BUS_PASS;
}

GST_START_TEST (test_encoder_gets_newest_aggregate)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=3 ! "
      "video/x-raw,width=64,height=64 ! x264enc name=enc ! rtph264pay ! "
      "mprtpsched name=m m.src_0 ! fakesink async=false "
      "m.src_1 ! fakesink async=false", NULL);
  GstElement *enc = gst_bin_get_by_name (GST_BIN (pipe), "enc");
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *eos;
  GstPad *src0;
  RaceCtx r = { 0, };
  GstRtpccTargetInfo t = { 0, };
  guint kbps = 0;
  guint64 published = 0;

  r.sched = gst_bin_get_by_name (GST_BIN (pipe), "m");
  src0 = gst_element_get_static_pad (r.sched, "src_0");
  r.src1 = gst_element_get_static_pad (r.sched, "src_1");
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  eos = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  fail_unless (eos && GST_MESSAGE_TYPE (eos) == GST_MESSAGE_EOS);
  gst_message_unref (eos);
  gst_bus_set_sync_handler (bus, race_hold_first, &r, NULL);

  /* 900 + 100 kbit/s: the encoder at 900 (the rise to 1000 waits, by the
   * encoder hysteresis); then 250 + 100 (held) and 250 + 450, both cuts */
  t.rtt = 40 * GST_MSECOND;
  t.controller = "gcc";
  t.media_bitrate = 900000;
  t.target_bitrate = 990000;
  fail_unless (gst_pad_send_event (src0, gst_rtpcc_target_event_new (&t)));
  t.media_bitrate = 100000;
  t.target_bitrate = 110000;
  fail_unless (gst_pad_send_event (r.src1, gst_rtpcc_target_event_new (&t)));
  g_object_get (enc, "bitrate", &kbps, NULL);
  fail_unless_equals_int (kbps, 900);
  t.media_bitrate = 250000;
  t.target_bitrate = 275000;
  fail_unless (gst_pad_send_event (src0, gst_rtpcc_target_event_new (&t)));
  fail_unless (r.held, "the 350 kbit/s aggregate was not published");
  g_thread_join (r.other);
  fail_unless_equals_uint64 (r.waited_for, 700000);

  g_object_get (r.sched, "target-bitrate", &published, NULL);
  fail_unless_equals_uint64 (published, 700000);
  g_object_get (enc, "bitrate", &kbps, NULL);
  fail_unless_equals_int (kbps, 700);

  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (src0);
  gst_object_unref (r.src1);
  gst_object_unref (r.sched);
  gst_object_unref (enc);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* A sink behind mprtpsched leaves the encoder alone: the encoder search
 * from below stops at mprtpsched (and finds the encoder without it). */
GST_START_TEST (test_encoder_search_stops)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc ! x264enc ! "
      "rtph264pay ! tee name=t "
      "t. ! queue ! mprtpsched name=m m.src_0 ! fakesink name=behind "
      "t. ! queue ! fakesink name=direct", NULL);
  const gchar *names[2] = { "behind", "direct" };

  fail_unless (pipe != NULL);
  for (guint k = 0; k < 2; k++) {
    GstElement *s = gst_bin_get_by_name (GST_BIN (pipe), names[k]);
    GstPad *pad = gst_element_get_static_pad (s, "sink");
    const RtpccEncoderInfo *info = NULL;
    GstElement *enc = gst_rtpcc_find_encoder (pad, &info);
    if (k == 0)
      fail_unless (enc == NULL, "found the encoder through mprtpsched");
    else
      fail_unless (enc != NULL, "no encoder found without mprtpsched");
    g_clear_object (&enc);
    gst_object_unref (pad);
    gst_object_unref (s);
  }
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
elements_mprtpsched_suite (void)
{
  Suite *s = suite_create ("elements_mprtpsched");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pads);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_extension_stamped);
  tcase_add_test (tc, test_split_follows_rates);
  tcase_add_test (tc, test_keyframes_on_best_path);
  tcase_add_test (tc, test_single_path_passthrough);
  tcase_add_test (tc, test_malformed_target);
  tcase_add_test (tc, test_max_bitrate_while_playing);
  tcase_add_test (tc, test_second_stream_warned);
  tcase_add_test (tc, test_sink_subflow_mode);
  tcase_add_test (tc, test_src_subflow_accounting);
  tcase_add_test (tc, test_src_paths_nack_on_fssn);
  tcase_add_test (tc, test_sink_rtx_by_fssn);
  tcase_add_test (tc, test_rtx_requests);
  tcase_add_test (tc, test_srtp_path);
  tcase_add_test (tc, test_encoder_search_stops);
  tcase_add_test (tc, test_encoder_gets_newest_aggregate);
  return s;
}

GST_CHECK_MAIN (elements_mprtpsched);

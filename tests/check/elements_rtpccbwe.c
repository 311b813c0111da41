/* Element tests for rtpccbwe (plugins/rtpcc/gstrtpccbwe.c) in a GstHarness:
 * the TWCC extension ID taken from or added to the caps and stamped on the
 * packets (payload untouched), the session's RTPTWCCPackets event consumed
 * and turned into per-packet reports, bad events counted, the target
 * published, bad settings refused, EOS held until the pacer is empty.
 * (With a real rtpbin: tests/pipelines/rtpccbwe_rtpbin.c.)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <rtpcc/rtpcc.h>
#include "encoder-loop-check.h"
#include <math.h>
#include <string.h>

#define SSRC 0x5eed0001u
#define CAPS "application/x-rtp,media=(string)video,clock-rate=(int)90000," \
  "encoding-name=(string)H264,payload=(int)96"
#define URI RTPCC_TWCC_EXTMAP_URI

static guint
payload_of (guint k)
{
  return 200 + 37 * (k % 9);
}

/* RTP packet k: seq 1000 + k, a payload of payload_of (k) bytes of k */
static GstBuffer *
rtp_packet (guint k)
{
  RtpccRtpInfo i = { 0, };
  guint8 hdr[RTPCC_RTP_HEADER_MIN];
  GstBuffer *b;
  GstMapInfo map;
  gsize n;

  i.ssrc = SSRC;
  i.seq = (guint16) (1000 + k);
  i.rtp_ts = 3000 * (k / 3);
  i.pt = 96;
  i.marker = k % 3 == 2;
  n = rtpcc_rtp_write_header (&i, hdr, sizeof hdr);
  b = gst_buffer_new_allocate (NULL, n + payload_of (k), NULL);
  gst_buffer_map (b, &map, GST_MAP_WRITE);
  memcpy (map.data, hdr, n);
  memset (map.data + n, (gint) k, payload_of (k));
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = k * GST_MSECOND;
  return b;
}

/* rtpccbwe with @props ("key=value key=value") between two harness pads */
static GstHarness *
harness_new (const gchar * props, const gchar * caps)
{
  GstElement *e = gst_element_factory_make ("rtpccbwe", NULL);
  gchar **kv = g_strsplit (props, " ", -1);
  GstHarness *h;

  for (guint i = 0; kv[i]; i++) {
    gchar **p = g_strsplit (kv[i], "=", 2);
    if (p[0] && p[1])
      gst_util_set_object_arg (G_OBJECT (e), p[0], p[1]);
    g_strfreev (p);
  }
  g_strfreev (kv);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

static guint64
stat_u64 (GstHarness * h, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (h->element, "stats", &s, NULL);
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s", field);
  gst_structure_free (s);
  return v;
}

static guint
stat_uint (GstHarness * h, const gchar * field)
{
  GstStructure *s = NULL;
  guint v = 0;

  g_object_get (h->element, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint (s, field, &v), "no %s", field);
  gst_structure_free (s);
  return v;
}

/* pushes packet k and checks what leaves: the same header fields, the
 * TWCC extension with @ext_id and transport seq k, the payload as it was */
static void
push_and_check (GstHarness * h, guint k, guint8 ext_id)
{
  GstBuffer *out;
  GstMapInfo map;
  RtpccRtpInfo info;
  gsize hl;
  guint16 tseq;

  fail_unless_equals_int (gst_harness_push (h, rtp_packet (k)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), k * GST_MSECOND);
  gst_buffer_map (out, &map, GST_MAP_READ);
  fail_unless (rtpcc_rtp_parse (map.data, map.size, map.size, ext_id, &info,
          &hl));
  fail_unless_equals_int (info.ssrc, SSRC);
  fail_unless_equals_int (info.seq, 1000 + k);
  fail_unless_equals_int (info.marker, k % 3 == 2);
  fail_unless (rtpcc_rtp_read_twcc_seq (map.data, map.size, ext_id, &tseq));
  fail_unless_equals_int (tseq, k);
  fail_unless_equals_int (map.size - hl, payload_of (k));
  for (gsize i = hl; i < map.size; i++)
    fail_unless_equals_int (map.data[i], (guint8) k);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
}

static gchar *
src_caps_field (GstHarness * h, const gchar * field)
{
  GstCaps *c = gst_pad_get_current_caps (h->sinkpad);
  gchar *v;

  fail_unless (c != NULL);
  v = g_strdup (gst_structure_get_string (gst_caps_get_structure (c, 0),
          field));
  gst_caps_unref (c);
  return v;
}

/* The TWCC extension ID: the caps' own (string or webrtcbin's array
 * form), else the property's, else the lowest one the caps leave free,
 * added to the caps; every packet leaves stamped with it. */
GST_START_TEST (test_caps_extension_id)
{
  struct
  {
    const gchar *props, *caps_extra;
    guint8 want;
    gboolean added;
  } cases[] = {
    {"", "", 1, TRUE},
    {"", ",extmap-1=(string)urn:a,extmap-3=(string)urn:b", 2, TRUE},
    {"", ",extmap-5=(string)" URI, 5, FALSE},
    {"", ",extmap-4=(string)<\"\",\"" URI "\",\"\">", 4, FALSE},
    {"twcc-ext-id=7", "", 7, TRUE},
    {"twcc-ext-id=7", ",extmap-7=(string)urn:a", 1, TRUE},
    {"twcc-ext-id=7", ",extmap-9=(string)" URI, 9, FALSE},
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    gchar *caps = g_strconcat (CAPS, cases[c].caps_extra, NULL);
    gchar *field = g_strdup_printf ("extmap-%u", cases[c].want);
    GstHarness *h = harness_new (cases[c].props, caps);
    gchar *v;

    for (guint k = 0; k < 3; k++)
      push_and_check (h, k, cases[c].want);
    fail_unless_equals_int (stat_uint (h, "twcc-ext-id"), cases[c].want);
    if (cases[c].added) {
      v = src_caps_field (h, field);
      fail_unless_equals_string (v, URI);
      g_free (v);
    } else {
      GstCaps *in = gst_caps_from_string (caps);
      GstCaps *out = gst_pad_get_current_caps (h->sinkpad);
      fail_unless (gst_caps_is_equal (in, out), "caps changed: %"
          GST_PTR_FORMAT, out);
      gst_caps_unref (in);
      gst_caps_unref (out);
    }
    gst_harness_teardown (h);
    g_free (caps);
    g_free (field);
  }
}

GST_END_TEST;

/* An RTPTWCCPackets event as rtpsession makes it (rtpstats.c): packets
 * 0 .. n − 1 as the session numbered them (@offset below ours), 5 ms
 * apart on the receiver's clock, packet @lost_k lost. */
static GstEvent *
twcc_event (guint n, guint16 offset, guint lost_k)
{
  GstStructure *s = gst_structure_new_empty ("RTPTWCCPackets");
  GValue arr = G_VALUE_INIT;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_value_init (&arr, g_value_array_get_type ());
  g_value_take_boxed (&arr, g_value_array_new (n));
  for (guint k = 0; k < n; k++) {
    GValue v = G_VALUE_INIT;
    GstStructure *p = gst_structure_new ("RTPTWCCPacket",
        "seqnum", G_TYPE_UINT, (guint) (guint16) (k - offset),
        "local-ts", G_TYPE_UINT64, (guint64) k * GST_MSECOND,
        "remote-ts", G_TYPE_UINT64, k == lost_k ? GST_CLOCK_TIME_NONE :
        (guint64) GST_SECOND + k * 5 * GST_MSECOND,
        "payload-type", G_TYPE_UCHAR, (guchar) 96,
        "size", G_TYPE_UINT, payload_of (k),
        "lost", G_TYPE_BOOLEAN, k == lost_k, NULL);
    g_value_init (&v, GST_TYPE_STRUCTURE);
    gst_value_set_structure (&v, p);
    gst_structure_free (p);
    g_value_array_append (g_value_get_boxed (&arr), &v);
    g_value_unset (&v);
  }
  G_GNUC_END_IGNORE_DEPRECATIONS;
  gst_structure_take_value (s, "packets", &arr);
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s);
}

static gboolean
upstream_has (GstHarness * h, const gchar * name)
{
  GstEvent *e;
  gboolean found = FALSE;

  while ((e = gst_harness_try_pull_upstream_event (h))) {
    if (gst_event_has_name (e, name))
      found = TRUE;
    gst_event_unref (e);
  }
  return found;
}

/* The session's report becomes per-packet reports (the lost one declared
 * once three later ones arrived); the event goes no further upstream;
 * events that are not what rtpsession sends are counted, never fatal. */
GST_START_TEST (test_twcc_event)
{
  GstHarness *h = harness_new ("controller=fixed start-bitrate=2000000",
      CAPS);
  GstStructure *s;

  for (guint k = 0; k < 20; k++)
    push_and_check (h, k, 1);
  fail_unless (gst_harness_push_upstream_event (h, twcc_event (20, 0, 5)));
  fail_unless_equals_uint64 (stat_u64 (h, "twcc-events"), 1);
  fail_unless_equals_uint64 (stat_u64 (h, "reported-received"), 19);
  fail_unless_equals_uint64 (stat_u64 (h, "reported-lost"), 1);
  fail_unless_equals_uint64 (stat_u64 (h, "twcc-unmatched"), 0);
  fail_unless (stat_u64 (h, "rtt") > 0);
  fail_if (upstream_has (h, "RTPTWCCPackets"));

  /* no packets field; packets of the wrong type; a packet without seqnum */
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new_empty ("RTPTWCCPackets"))));
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("RTPTWCCPackets", "packets", G_TYPE_STRING,
                  "x", NULL))));
  s = gst_structure_new ("RTPTWCCPackets", "packets", G_TYPE_INT, 3, NULL);
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s)));
  fail_unless_equals_uint64 (stat_u64 (h, "twcc-malformed"), 3);
  fail_unless_equals_uint64 (stat_u64 (h, "twcc-events"), 1);
  fail_unless_equals_uint64 (stat_u64 (h, "reported-received"), 19);

  /* other upstream events pass through */
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new_empty ("something-else"))));
  fail_unless (upstream_has (h, "something-else"));
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
on_notify (GObject * o, GParamSpec * p, gint * n)
{
  g_atomic_int_inc (n);
}

/* The target as rtpccsink publishes it: bus message, upstream
 * rtpcc-target event, target-bitrate with notify. */
GST_START_TEST (test_target_publication)
{
  GstBus *bus = gst_bus_new ();
  GstElement *e = gst_element_factory_make ("rtpccbwe", NULL);
  GstHarness *h;
  GstMessage *msg;
  gint notifies = 0;
  guint target = 0;
  guint64 v = 0;
  gboolean ev = FALSE;

  /* all set before the harness starts it: the first target goes out at
   * once */
  g_object_set (e, "controller", "fixed", "start-bitrate", 700000, NULL);
  gst_element_set_bus (e, bus);
  g_signal_connect (e, "notify::target-bitrate", G_CALLBACK (on_notify),
      &notifies);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, CAPS);
  push_and_check (h, 0, 1);
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ELEMENT);
  fail_unless (msg != NULL, "no rtpcc-target message");
  fail_unless (gst_message_has_name (msg, "rtpcc-target"));
  fail_unless (gst_structure_get_uint64 (gst_message_get_structure (msg),
          "media-bitrate", &v));
  fail_unless_equals_uint64 (v, 700000);
  gst_message_unref (msg);
  /* the event may come from another thread: wait for it (the harness's
   * pull blocks until one arrives, NULL after its timeout) rather than
   * polling with sleeps */
  while (!ev) {
    GstEvent *up = gst_harness_pull_upstream_event (h);

    if (!up)
      break;
    ev = gst_event_has_name (up, "rtpcc-target");
    gst_event_unref (up);
  }
  fail_unless (ev, "no rtpcc-target upstream event");
  g_object_get (h->element, "target-bitrate", &target, NULL);
  fail_unless_equals_int (target, 700000);
  fail_unless (g_atomic_int_get (&notifies) >= 1);
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* An unknown controller or bad parameters fail NULL→READY. */
GST_START_TEST (test_bad_settings)
{
  const gchar *bad[][2] = {
    {"controller", "no-such-controller"},
    {"controller-params", "no-such-key=1"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstElement *e = gst_element_factory_make ("rtpccbwe", NULL);
    GstBus *bus = gst_bus_new ();
    GstMessage *m;

    gst_element_set_bus (e, bus);
    g_object_set (e, bad[i][0], bad[i][1], NULL);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
        GST_STATE_CHANGE_FAILURE);
    m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (m != NULL, "no error for %s", bad[i][0]);
    gst_message_unref (m);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* EOS leaves after the packets queued before it. */
GST_START_TEST (test_eos_after_queue)
{
  GstHarness *h = harness_new ("controller=fixed min-bitrate=50000 "
      "start-bitrate=100000 max-pacing-delay=5000", CAPS);
  GstEvent *e;

  for (guint k = 0; k < 20; k++)
    fail_unless_equals_int (gst_harness_push (h, rtp_packet (k)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* ~7 kB at ~100 kbit/s: most are still queued now */
  fail_unless (gst_harness_buffers_received (h) < 20);
  while ((e = gst_harness_pull_event (h))) {
    GstEventType t = GST_EVENT_TYPE (e);
    gst_event_unref (e);
    if (t == GST_EVENT_EOS)
      break;
  }
  fail_unless_equals_int (gst_harness_buffers_received (h), 20);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* rtpccbwe closes the encoder loop as rtpccsink does: openh264enc in its
 * default rate control produces about a third more than its bitrate on
 * moving bars; controller=fixed holds the target at 1 Mbit/s, and the
 * element measures what passes through over windows of media time and
 * gives the encoder less until what it produces is the target. Non-live,
 * as fast as the encoder runs: the loop counts media time (PTS), so the
 * wall clock does not enter; 20 s of media, counted over the last 8 s. */
GST_START_TEST (test_encoder_loop_closed)
{
  GstElementFactory *f = gst_element_factory_find ("openh264enc");
  GstElement *pipe, *bwe, *enc;
  GstMessage *msg;
  GstBus *bus;
  GstPad *pad;
  GError *err = NULL;
  PayloadTail tail = { 12 * GST_SECOND, 0 };

  /* openh264enc comes with ./run's packages (gstreamer1.0-plugins-bad) */
  fail_unless (f != NULL, "openh264enc is missing");
  gst_object_unref (f);
  pipe = gst_parse_launch ("videotestsrc num-buffers=600 pattern=smpte "
      "horizontal-speed=4 ! video/x-raw,format=I420,width=480,height=270,"
      "framerate=30/1 ! openh264enc name=enc ! rtph264pay mtu=1200 ! "
      "rtpccbwe name=bwe controller=fixed start-bitrate=1000000 "
      "pacing=false ! fakesink sync=false", &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  bwe = gst_bin_get_by_name (GST_BIN (pipe), "bwe");
  pad = gst_element_get_static_pad (bwe, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, payload_tail_probe, &tail, NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS");
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "error");
  gst_message_unref (msg);

  enc = gst_bin_get_by_name (GST_BIN (pipe), "enc");
  /* the src task pushes EOS, then applies a correction the last buffers
   * made, in the same turn: let it finish that turn (bounded) */
  for (guint i = 0; i < 500 && !encoder_holds_correction (bwe, enc); i++)
    g_usleep (10 * 1000);
  check_encoder_loop_closed (bwe, enc, &tail);
  gst_object_unref (enc);

  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (bwe);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
elements_rtpccbwe_suite (void)
{
  Suite *s = suite_create ("elements_rtpccbwe");
  TCase *tc = tcase_create ("rtpccbwe");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_caps_extension_id);
  tcase_add_test (tc, test_twcc_event);
  tcase_add_test (tc, test_target_publication);
  tcase_add_test (tc, test_bad_settings);
  tcase_add_test (tc, test_eos_after_queue);
  tcase_add_test (tc, test_encoder_loop_closed);
  return s;
}

GST_CHECK_MAIN (elements_rtpccbwe);

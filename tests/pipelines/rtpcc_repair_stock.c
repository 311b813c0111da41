/* Real-time interop test: our rtpccsink answers a STOCK GStreamer
 * receiver's NACKs with RTX, and the stock receiver restores them.
 *
 *   videotestsrc ! x264enc ! rtph264pay ! rtpccsink feedback=rr
 *       rtx-payload-type=97 ──▶ R
 *   receiver (stock 1.22, nothing of ours):
 *     udpsrc(R) ─[probe: drops one media packet]─▶ rtpbin rtp-profile=avpf
 *       do-retransmission=true, aux receiver rtprtxreceive 96 → 97
 *       recv_rtp_src ─[probe: seqs]─▶ fakesink
 *       send_rtcp_src ! udpsink(R) ──▶ rtpccsink
 *
 * rtpbin's jitterbuffer asks for the missing seq, rtpsession sends it as an
 * RFC 4585 Generic NACK (early feedback in AVPF); rtpccsink retransmits it
 * as RFC 4588 RTX on its own SSRC and payload type; rtprtxreceive (told
 * only the payload-type map, the SSRC it learns from the request) restores
 * it and the jitterbuffer pushes the dropped seq in order.
 *
 * feedback=rr: a 1.22 rtpsession sends TWCC feedback as early RTCP once
 * per frame, and an early packet may follow another only after the next
 * regular one (RFC 4585 §3.5.2), so with TWCC its NACKs waited up to a
 * regular interval — past the jitterbuffer's latency.
 *
 * The receiver's udpsrc and udpsink share socket R, as rtpccsink accepts
 * feedback only from the address it sends to. Skipped without x264enc or
 * rtprtxreceive.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gio/gio.h>
#include <gst/check/gstcheck.h>

#include "rt-util.h"

#define MEDIA_PT 96
#define RTX_PT 97
#define RUN_S 4
/* the media packet dropped: the first one this long after the first one
 * seen (the stream is established, the jitterbuffer running) */
#define DROP_AFTER_US (300 * 1000)

typedef struct
{
  GMutex lock;
  gboolean have_first;
  gint64 first_time;
  guint16 first, drop;
  gboolean dropped;
  guint32 media_ssrc;
  gboolean delivered;           /* the dropped seq came out of rtpbin */
  guint64 out_packets;
} Watch;

/* On the receiver's udpsrc: drops media packet first + DROP_AFTER once. */
static GstPadProbeReturn
drop_one (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Watch *w = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstPadProbeReturn ret = GST_PAD_PROBE_OK;
  guint8 h[12];
  guint16 seq;

  if (gst_buffer_extract (buf, 0, h, 12) < 12 || (h[0] >> 6) != 2
      || (h[1] & 0x7f) != MEDIA_PT || (h[1] >= 200 && h[1] <= 207))
    return GST_PAD_PROBE_OK;
  seq = GST_READ_UINT16_BE (h + 2);
  g_mutex_lock (&w->lock);
  if (!w->have_first) {
    w->have_first = TRUE;
    w->first = seq;
    w->first_time = g_get_monotonic_time ();
    w->media_ssrc = GST_READ_UINT32_BE (h + 8);
  } else if (!w->dropped
      && g_get_monotonic_time () - w->first_time >= DROP_AFTER_US
      && GST_READ_UINT32_BE (h + 8) == w->media_ssrc) {
    w->dropped = TRUE;
    w->drop = seq;
    ret = GST_PAD_PROBE_DROP;
  }
  g_mutex_unlock (&w->lock);
  return ret;
}

/* Out of rtpbin: was the dropped seq delivered (restored from RTX)? */
static GstPadProbeReturn
watch_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Watch *w = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint8 h[12];

  if (gst_buffer_extract (buf, 0, h, 12) < 12)
    return GST_PAD_PROBE_OK;
  g_mutex_lock (&w->lock);
  w->out_packets++;
  if (w->dropped && GST_READ_UINT16_BE (h + 2) == w->drop
      && GST_READ_UINT32_BE (h + 8) == w->media_ssrc)
    w->delivered = TRUE;
  g_mutex_unlock (&w->lock);
  return GST_PAD_PROBE_OK;
}

typedef struct
{
  GstElement *pipeline;
  Watch *watch;
} Rx;

static void
on_pad_added (GstElement * rtpbin, GstPad * pad, gpointer data)
{
  Rx *rx = data;
  GstElement *sink;
  GstPad *sinkpad;

  if (GST_PAD_DIRECTION (pad) != GST_PAD_SRC
      || !g_str_has_prefix (GST_PAD_NAME (pad), "recv_rtp_src_"))
    return;
  sink = gst_element_factory_make ("fakesink", NULL);
  g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
  gst_bin_add (GST_BIN (rx->pipeline), sink);
  gst_element_sync_state_with_parent (sink);
  sinkpad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, watch_out, rx->watch,
      NULL);
  fail_unless_equals_int (gst_pad_link (pad, sinkpad), GST_PAD_LINK_OK);
  gst_object_unref (sinkpad);
}

/* rtpbin's aux receiver: rtprtxreceive with the payload-type map (the
 * SDP's apt=), in a bin with sink_0 / src_0 */
static GstElement *
request_aux_receiver (GstElement * rtpbin, guint session, gpointer data)
{
  GstElement *bin = gst_bin_new (NULL);
  GstElement *rtx = gst_element_factory_make ("rtprtxreceive", NULL);
  GstStructure *map = gst_structure_new ("application/x-rtp-pt-map",
      G_STRINGIFY (MEDIA_PT), G_TYPE_UINT, (guint) RTX_PT, NULL);
  GstPad *p;

  g_object_set (rtx, "payload-type-map", map, NULL);
  gst_structure_free (map);
  gst_bin_add (GST_BIN (bin), rtx);
  p = gst_element_get_static_pad (rtx, "sink");
  gst_element_add_pad (bin, gst_ghost_pad_new ("sink_0", p));
  gst_object_unref (p);
  p = gst_element_get_static_pad (rtx, "src");
  gst_element_add_pad (bin, gst_ghost_pad_new ("src_0", p));
  gst_object_unref (p);
  return bin;
}

/* The caps of each payload type (the SDP's rtpmap): the RTX PT too, or
 * rtpsession has no clock rate for it */
static GstCaps *
request_pt_map (GstElement * rtpbin, guint session, guint pt, gpointer data)
{
  if (pt == RTX_PT)
    return gst_caps_from_string ("application/x-rtp,media=(string)video,"
        "clock-rate=(int)90000,encoding-name=(string)RTX,"
        "apt=(int)" G_STRINGIFY (MEDIA_PT));
  if (pt == MEDIA_PT)
    return gst_caps_from_string ("application/x-rtp,media=(string)video,"
        "clock-rate=(int)90000,encoding-name=(string)H264");
  return NULL;
}

static gboolean
have (const gchar * factory)
{
  GstElementFactory *f = gst_element_factory_find (factory);

  if (!f)
    return FALSE;
  gst_object_unref (f);
  return TRUE;
}

GST_START_TEST (test_stock_receiver_nack_rtx)
{
  Watch w;
  Rx rx;
  GSocket *sock_r;
  guint16 port_r;
  gint sink_port = 0;
  GstElement *tx, *rtpbin, *src, *rtcpsink, *sink;
  GstPad *pad;
  GstCaps *caps;
  gchar *desc;
  gboolean delivered;

  if (!have ("x264enc") || !have ("rtprtxreceive")) {
    GST_WARNING ("x264enc or rtprtxreceive missing: skipped");
    return;
  }
  memset (&w, 0, sizeof w);
  g_mutex_init (&w.lock);
  sock_r = rt_udp_socket_new (&port_r);

  desc = g_strdup_printf ("videotestsrc is-live=true ! "
      "video/x-raw,width=320,height=240,framerate=30/1 ! "
      "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=300 "
      "bitrate=600 ! rtph264pay pt=%d config-interval=-1 mtu=1000 ! "
      "rtpccsink name=sink host=127.0.0.1 port=%u feedback=rr "
      "controller=fixed start-bitrate=1500000 encoder-control=none "
      "rtx-payload-type=%d", MEDIA_PT, port_r, RTX_PT);
  tx = rt_parse (desc, TRUE);
  g_free (desc);
  sink = gst_bin_get_by_name (GST_BIN (tx), "sink");
  fail_unless (gst_element_set_state (tx, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  g_object_get (sink, "bound-port", &sink_port, NULL);
  fail_unless (sink_port > 0);

  /* the stock receiver, built by hand: the aux receiver must be connected
   * before rtpbin's session exists */
  rx.pipeline = gst_pipeline_new ("rx");
  rx.watch = &w;
  rtpbin = gst_element_factory_make ("rtpbin", NULL);
  src = gst_element_factory_make ("udpsrc", NULL);
  rtcpsink = gst_element_factory_make ("udpsink", NULL);
  fail_unless (rtpbin && src && rtcpsink);
  gst_util_set_object_arg (G_OBJECT (rtpbin), "rtp-profile", "avpf");
  g_object_set (rtpbin, "latency", 300, "do-retransmission", TRUE, NULL);
  g_signal_connect (rtpbin, "request-aux-receiver",
      G_CALLBACK (request_aux_receiver), NULL);
  g_signal_connect (rtpbin, "pad-added", G_CALLBACK (on_pad_added), &rx);
  g_signal_connect (rtpbin, "request-pt-map", G_CALLBACK (request_pt_map),
      NULL);
  caps = gst_caps_from_string ("application/x-rtp,media=(string)video,"
      "clock-rate=(int)90000,encoding-name=(string)H264,payload=(int)96");
  g_object_set (src, "socket", sock_r, "close-socket", FALSE, "caps", caps,
      NULL);
  gst_caps_unref (caps);
  g_object_set (rtcpsink, "socket", sock_r, "close-socket", FALSE, "host",
      "127.0.0.1", "port", sink_port, "sync", FALSE, "async", FALSE, NULL);
  gst_bin_add_many (GST_BIN (rx.pipeline), src, rtpbin, rtcpsink, NULL);
  fail_unless (gst_element_link_pads (src, "src", rtpbin,
          "recv_rtp_sink_0"));
  fail_unless (gst_element_link_pads (rtpbin, "send_rtcp_src_0", rtcpsink,
          "sink"));
  {
    /* the RTX stream is a new SSRC: with rtpsession's default probation
     * (2 packets in sequence) a lone retransmission waits until a second
     * one validates the source (libwebrtc's senders validate it with
     * padding early on; ours only sends RTX when asked) */
    GObject *session = NULL;
    g_signal_emit_by_name (rtpbin, "get-internal-session", 0, &session);
    fail_unless (session != NULL);
    g_object_set (session, "probation", 0, NULL);
    g_object_unref (session);
  }
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, drop_one, &w, NULL);
  gst_object_unref (pad);

  fail_unless (gst_element_set_state (rx.pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (tx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < RUN_S * 10; i++) {
    g_usleep (100 * 1000);
    rt_check_no_error (tx, "sender");
    rt_check_no_error (rx.pipeline, "receiver");
  }
  g_mutex_lock (&w.lock);
  delivered = w.delivered;
  GST_INFO ("first %u dropped %u (%d) delivered %d, %" G_GUINT64_FORMAT
      " out", w.first, w.drop, w.dropped, w.delivered, w.out_packets);
  fail_unless (w.dropped, "nothing dropped: no media reached the receiver");
  g_mutex_unlock (&w.lock);

  GST_INFO ("sink: nacks %" G_GUINT64_FORMAT " rtx %" G_GUINT64_FORMAT,
      rt_stat_u64 (sink, "nacks-received"), rt_stat_u64 (sink, "rtx-sent"));
  fail_unless (rt_stat_u64 (sink, "nacks-received") >= 1,
      "rtpccsink got no NACK from rtpbin");
  fail_unless (rt_stat_u64 (sink, "rtx-sent") >= 1);
  fail_unless_equals_uint64 (rt_stat_u64 (sink, "repair-malformed"), 0);
  fail_unless (delivered, "rtpbin did not deliver the retransmitted seq");

  gst_element_set_state (tx, GST_STATE_NULL);
  gst_element_set_state (rx.pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (tx);
  gst_object_unref (rx.pipeline);
  g_object_unref (sock_r);
  g_mutex_clear (&w.lock);
}

GST_END_TEST;

static Suite *
rtpcc_repair_stock_suite (void)
{
  Suite *s = suite_create ("rtpcc_repair_stock");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_stock_receiver_nack_rtx);
  return s;
}

GST_CHECK_MAIN (rtpcc_repair_stock);

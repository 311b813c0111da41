/* Real-time test: rtpccbwe inside a STOCK rtpbin sender, placed where
 * rtpgccbwe goes (rtpbin's request-aux-sender), against a stock rtpbin
 * receiver with transport-wide CC, through a linkemu relay whose forward
 * capacity drops mid-run.
 *
 *   videotestsrc ! x264enc ! rtph264pay ! rtpbin.send_rtp_sink_0
 *     rtpbin (avpf): [aux sender: rtpccbwe] ─ rtpsession ─ send_rtp_src_0
 *       ! udpsink(S) ──▶ A      send_rtcp_src_0 ! udpsink(S) ──▶ A
 *       udpsrc(S) ! recv_rtcp_sink_0   ◀── RR + TWCC from the relay
 *   relay:  udpsrc(A) ! linkemu (2000 → 700 kbit/s at 8 s) ! udpsink(B) ──▶ R
 *           udpsrc(B) ! linkemu (delay)                    ! udpsink(A) ──▶ S
 *   receiver (stock): udpsrc(R, caps … extmap-1=<TWCC URI>) ! rtpbin
 *           ! rtph264depay ! avdec_h264 ! fakesink;  RTCP ──▶ B
 *
 * Nothing of ours but rtpccbwe: the payloader has no TWCC extension, so
 * rtpccbwe adds extmap-1 to the caps (the lowest free ID, which the
 * receiver is given), stamps each packet, the sender's rtpsession numbers
 * them and turns the receiver's TWCC into RTPTWCCPackets events, and
 * rtpccbwe's controller (gcc) sets x264enc's bitrate.
 *
 * Checks, with wide margins (a loaded 2-core machine): the session's
 * reports reach the element and match its packets; the target climbs on
 * the 2 Mbit/s link and its mean after the drop is under 0.8 × the mean
 * before and within [0.3, 1.25] × the new capacity, x264enc's bitrate
 * likewise; the queue the drop left has drained (a gcc flow alone must not
 * settle on it: docs/gcc.md (h)); the receiver decodes frames before the
 * drop and to the end.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gio/gio.h>
#include <gst/check/gstcheck.h>

#include "rt-util.h"

#define TWCC_EXT_ID      1
#define START_KBPS       500
#define CAP_HIGH_KBPS    2000
#define CAP_LOW_KBPS     700
#define DROP_AT_S        8
#define RUN_S            16.0
/* the phases compared: the 3 s before the drop, and from 3 s after it */
#define HIGH_FROM_S      (DROP_AT_S - 3.0)
#define LOW_FROM_S       (DROP_AT_S + 3.0)
#define SAMPLE_MS        250

typedef struct
{
  gdouble t;
  guint64 target;
  guint enc_kbps;
  guint64 queue_delay;          /* ns, rtpccbwe's measure of the queue */
  guint64 twcc_events, reported, frames;
  gboolean problem;
} Sample;

/* rtpbin's request-aux-sender: rtpccbwe in a bin with the pads rtpbin
 * wants (sink_<session>, src_<session>), as webrtcbin builds it */
static GstElement *
on_request_aux_sender (GstElement * rtpbin, guint session, gpointer data)
{
  GstElement **bwe = data;
  GstElement *bin = gst_bin_new (NULL);
  GstPad *pad;
  gchar *name;

  *bwe = gst_element_factory_make ("rtpccbwe", "bwe");
  fail_unless (*bwe != NULL);
  g_object_set (*bwe, "controller", "gcc", "start-bitrate",
      START_KBPS * 1000, "min-bitrate", 150000, "max-bitrate", 3000000,
      NULL);
  gst_bin_add (GST_BIN (bin), gst_object_ref (*bwe));
  pad = gst_element_get_static_pad (*bwe, "sink");
  name = g_strdup_printf ("sink_%u", session);
  gst_element_add_pad (bin, gst_ghost_pad_new (name, pad));
  g_free (name);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (*bwe, "src");
  name = g_strdup_printf ("src_%u", session);
  gst_element_add_pad (bin, gst_ghost_pad_new (name, pad));
  g_free (name);
  gst_object_unref (pad);
  return bin;
}

static GstElement *
sender_new (GSocket * sock_s, guint16 port_a, GstElement ** bwe,
    GstElement ** rtpbin)
{
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true pattern=smpte "
      "horizontal-speed=4 ! video/x-raw,width=640,height=360,framerate=30/1 "
      "! x264enc name=enc tune=zerolatency speed-preset=ultrafast "
      "key-int-max=60 bitrate=%u ! rtph264pay name=pay pt=96 mtu=1200 "
      "config-interval=-1 "
      "rtpbin name=rtpbin rtp-profile=avpf "
      "udpsink name=rtpsink close-socket=false host=127.0.0.1 port=%u "
      "sync=false async=false "
      "udpsink name=rtcpsink close-socket=false host=127.0.0.1 port=%u "
      "sync=false async=false "
      "udpsrc name=rtcpsrc close-socket=false caps=application/x-rtcp ! "
      "rtpbin.recv_rtcp_sink_0", START_KBPS, port_a, port_a);
  GstElement *tx = rt_parse (desc, TRUE);
  GstElement *pay, *rtpsink, *rtcpsink;
  GstPad *src, *sink;

  g_free (desc);
  rt_set_by_name (tx, "rtpsink", "socket", sock_s);
  rt_set_by_name (tx, "rtcpsink", "socket", sock_s);
  rt_set_by_name (tx, "rtcpsrc", "socket", sock_s);
  *rtpbin = gst_bin_get_by_name (GST_BIN (tx), "rtpbin");
  /* connected before the send pad is requested: that is when rtpbin asks */
  g_signal_connect (*rtpbin, "request-aux-sender",
      G_CALLBACK (on_request_aux_sender), bwe);
  pay = gst_bin_get_by_name (GST_BIN (tx), "pay");
  src = gst_element_get_static_pad (pay, "src");
  sink = gst_element_request_pad_simple (*rtpbin, "send_rtp_sink_0");
  fail_unless (sink != NULL);
  fail_unless_equals_int (gst_pad_link (src, sink), GST_PAD_LINK_OK);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pay);
  fail_unless (*bwe != NULL, "rtpbin did not ask for an aux sender");
  rtpsink = gst_bin_get_by_name (GST_BIN (tx), "rtpsink");
  rtcpsink = gst_bin_get_by_name (GST_BIN (tx), "rtcpsink");
  fail_unless (gst_element_link_pads (*rtpbin, "send_rtp_src_0", rtpsink,
          "sink"));
  fail_unless (gst_element_link_pads (*rtpbin, "send_rtcp_src_0", rtcpsink,
          "sink"));
  gst_object_unref (rtpsink);
  gst_object_unref (rtcpsink);
  return tx;
}

enum
{ TARGET, ENCODER, QUEUE };

static gdouble
mean_between (GArray * samples, gdouble from, gdouble to, gint what)
{
  gdouble sum = 0;
  guint n = 0;

  for (guint i = 0; i < samples->len; i++) {
    Sample *s = &g_array_index (samples, Sample, i);
    if (s->t >= from && s->t < to) {
      sum += what == ENCODER ? s->enc_kbps * 1000.0 : what == QUEUE ?
          s->queue_delay / 1e6 : (gdouble) s->target;
      n++;
    }
  }
  return n ? sum / n : 0;
}

GST_START_TEST (test_rtpccbwe_in_rtpbin)
{
  GstElement *tx, *rx, *relay, *bwe = NULL, *enc, *vsink, *rtpbin, *rxbin;
  GstElement *depay, *fwd;
  RtPadAdded pa = { 0, };
  GSocket *sock_s, *sock_a, *sock_b, *sock_r;
  guint16 port_s, port_a, port_b, port_r;
  RtDecoded dec = { 0, };
  GArray *samples = g_array_new (FALSE, TRUE, sizeof (Sample));
  GString *series = g_string_new (NULL);
  gint64 start;
  guint64 frames_at_drop = 0, frames_end, frames_late, events_at_drop = 0;
  guint64 reported_at_drop = 0, unmatched, events, reported, lost, drops;
  guint problems = 0;
  gdouble high, low, enc_high, enc_low, queue_low;
  gint offset;

  g_mutex_init (&dec.lock);
  dec.late_after = (RUN_S - 3.0) * G_USEC_PER_SEC;
  sock_s = rt_udp_socket_new (&port_s);
  sock_a = rt_udp_socket_new (&port_a);
  sock_b = rt_udp_socket_new (&port_b);
  sock_r = rt_udp_socket_new (&port_r);

  tx = sender_new (sock_s, port_a, &bwe, &rtpbin);
  fail_unless (gst_object_has_as_ancestor (GST_OBJECT (bwe),
          GST_OBJECT (rtpbin)), "rtpccbwe is not inside rtpbin");
  enc = gst_bin_get_by_name (GST_BIN (tx), "enc");

  rx = rt_stock_receiver_new (TWCC_EXT_ID, port_b, sock_r, &pa, &rxbin,
      &depay);
  vsink = gst_bin_get_by_name (GST_BIN (rx), "vsink");
  g_signal_connect (vsink, "handoff", G_CALLBACK (rt_decoded_on_handoff),
      &dec);
  fail_unless (gst_element_set_state (rx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  relay = rt_relay_new ("buffer-size=4194304", CAP_HIGH_KBPS, CAP_LOW_KBPS,
      DROP_AT_S, port_r, port_s, sock_a, sock_b, TRUE);
  fwd = gst_bin_get_by_name (GST_BIN (relay), "fwd");
  start = rt_run_start (relay, tx, &dec);

  for (;;) {
    Sample s = { 0, };
    GstStructure *st = NULL;
    gboolean problem = FALSE;

    if (!rt_sample_next (start, RUN_S, SAMPLE_MS, tx, rx, relay, &s.t))
      break;
    g_object_get (enc, "bitrate", &s.enc_kbps, NULL);
    g_object_get (bwe, "stats", &st, NULL);
    fail_unless (st != NULL);
    gst_structure_get_uint64 (st, "target-bitrate", &s.target);
    gst_structure_get_uint64 (st, "queue-delay", &s.queue_delay);
    gst_structure_get_uint64 (st, "twcc-events", &s.twcc_events);
    gst_structure_get_uint64 (st, "reported-received", &s.reported);
    gst_structure_get_boolean (st, "feedback-problem", &problem);
    s.problem = problem;
    problems += problem;
    gst_structure_free (st);
    rt_decoded_get (&dec, &s.frames, NULL);
    g_array_append_val (samples, s);
    if (s.t < DROP_AT_S) {
      frames_at_drop = s.frames;
      events_at_drop = s.twcc_events;
      reported_at_drop = s.reported;
    }
  }
  rt_decoded_get (&dec, &frames_end, &frames_late);

  for (guint i = 0; i < samples->len; i++) {
    Sample *s = &g_array_index (samples, Sample, i);
    g_string_append_printf (series, "  t=%5.2f s  cap %4u  target %5"
        G_GUINT64_FORMAT " kbit/s  x264enc %4u kbit/s  queue %3.0f ms  "
        "twcc events %4"
        G_GUINT64_FORMAT "  reported %5" G_GUINT64_FORMAT "  frames %4"
        G_GUINT64_FORMAT "%s\n", s->t, s->t < DROP_AT_S ? CAP_HIGH_KBPS :
        CAP_LOW_KBPS, s->target / 1000, s->enc_kbps, s->queue_delay / 1e6,
        s->twcc_events, s->reported, s->frames,
        s->problem ? "  FEEDBACK-PROBLEM" : "");
  }
  high = mean_between (samples, HIGH_FROM_S, DROP_AT_S, TARGET);
  low = mean_between (samples, LOW_FROM_S, RUN_S + 1, TARGET);
  enc_high = mean_between (samples, HIGH_FROM_S, DROP_AT_S, ENCODER);
  enc_low = mean_between (samples, LOW_FROM_S, RUN_S + 1, ENCODER);
  queue_low = mean_between (samples, LOW_FROM_S, RUN_S + 1, QUEUE);
  events = rt_stat_u64 (bwe, "twcc-events");
  unmatched = rt_stat_u64 (bwe, "twcc-unmatched");
  reported = rt_stat_u64 (bwe, "reported-received");
  lost = rt_stat_u64 (bwe, "reported-lost");
  drops = rt_stat_u64 (fwd, "queue-drops");
  {
    GstStructure *st = NULL;
    g_object_get (bwe, "stats", &st, NULL);
    gst_structure_get_int (st, "twcc-offset", &offset);
    gst_structure_free (st);
  }
  g_print ("rtpccbwe in a stock rtpbin sender (aux sender, gcc) -> stock "
      "rtpbin receiver; capacity %u -> %u kbit/s at %u s:\n%s", CAP_HIGH_KBPS,
      CAP_LOW_KBPS, DROP_AT_S, series->str);
  g_print ("  mean target %.0f kbit/s in [%.0f, %u) s, %.0f kbit/s from "
      "%.0f s (%.2f x), queuing delay %.0f ms; x264enc %.0f -> %.0f "
      "kbit/s; TWCC events %"
      G_GUINT64_FORMAT " (unmatched %" G_GUINT64_FORMAT ", offset %d), "
      "reported received %" G_GUINT64_FORMAT " lost %" G_GUINT64_FORMAT
      " (link queue drops %" G_GUINT64_FORMAT "), sent %" G_GUINT64_FORMAT
      ", pacer drops %" G_GUINT64_FORMAT ", rtt %.1f ms; frames decoded %"
      G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " before the drop, %"
      G_GUINT64_FORMAT " in the last 3 s)\n", high / 1000, HIGH_FROM_S,
      DROP_AT_S, low / 1000, LOW_FROM_S, high > 0 ? low / high : 0,
      queue_low,
      enc_high / 1000, enc_low / 1000, events, unmatched, offset, reported,
      lost, drops, rt_stat_u64 (bwe, "packets-sent"),
      rt_stat_u64 (bwe, "pacer-drops"),
      rt_stat_u64 (bwe, "rtt") / 1e6, frames_end, frames_at_drop,
      frames_late);

  /* (1) the session's TWCC reaches rtpccbwe, before and after the drop,
   * in its numbering (a fresh session: offset 0, every report matched) */
  fail_unless (events_at_drop >= 20, "%" G_GUINT64_FORMAT " TWCC events "
      "before the drop", events_at_drop);
  fail_unless (events >= events_at_drop + 20, "TWCC events stopped after "
      "the drop");
  fail_unless (reported_at_drop >= 150, "%" G_GUINT64_FORMAT " packets "
      "reported received before the drop", reported_at_drop);
  fail_unless_equals_uint64 (unmatched, 0);
  fail_unless_equals_int (offset, 0);
  fail_unless_equals_int (problems, 0);
  fail_unless_equals_uint64 (rt_stat_u64 (bwe, "twcc-malformed"), 0);
  fail_unless_equals_uint64 (rt_stat_u64 (bwe, "twcc-stamp-errors"), 0);

  /* (2) the target follows the capacity, and the encoder the target */
  fail_unless (high > START_KBPS * 1000, "target never rose above the start "
      "rate on the %u kbit/s link (mean %.0f)", CAP_HIGH_KBPS, high);
  fail_unless (low < 0.8 * high, "target after the drop %.0f, not under 0.8 "
      "x %.0f before", low, high);
  fail_unless (low <= 1.25 * CAP_LOW_KBPS * 1000 && low >= 0.3 *
      CAP_LOW_KBPS * 1000, "mean target %.0f after the drop, capacity %u "
      "kbit/s", low, CAP_LOW_KBPS);
  fail_unless (enc_low < 0.8 * enc_high && enc_low <= 1.25 * CAP_LOW_KBPS *
      1000, "x264enc %.0f -> %.0f", enc_high, enc_low);
  fail_unless (rt_stat_u64 (bwe, "encoder-updates") >= 2);
  /* the drop filled the relay's 200 ms queue; a flow alone drains it
   * within a few seconds. Half the queue is the line (docs/gcc.md (h) has
   * the runs). */
  fail_unless (queue_low <= 100, "mean queuing delay %.0f ms from %.0f s: "
      "gcc settled on the drop's queue", queue_low, LOW_FROM_S);

  /* (3) the stock receiver decoded video before the drop and to the end */
  fail_unless (frames_at_drop > 60, "%" G_GUINT64_FORMAT " frames before the "
      "drop", frames_at_drop);
  fail_unless (frames_late >= 30, "%" G_GUINT64_FORMAT " frames in the last "
      "3 s", frames_late);
  fail_unless_equals_int (g_atomic_int_get (&pa.extra_pads), 0);

  rt_stop (tx, relay, rx);
  gst_object_unref (bwe);
  gst_object_unref (enc);
  gst_object_unref (rtpbin);
  gst_object_unref (rxbin);
  gst_object_unref (depay);
  gst_object_unref (vsink);
  gst_object_unref (fwd);
  gst_object_unref (tx);
  gst_object_unref (relay);
  gst_object_unref (rx);
  g_object_unref (sock_s);
  g_object_unref (sock_a);
  g_object_unref (sock_b);
  g_object_unref (sock_r);
  g_array_unref (samples);
  g_string_free (series, TRUE);
  g_mutex_clear (&dec.lock);
}

GST_END_TEST;

static Suite *
rtpccbwe_rtpbin_suite (void)
{
  Suite *s = suite_create ("rtpccbwe_rtpbin");
  TCase *tc = tcase_create ("rtpbin");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 90);
  tcase_add_test (tc, test_rtpccbwe_in_rtpbin);
  return s;
}

GST_CHECK_MAIN (rtpccbwe_rtpbin);

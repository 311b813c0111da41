/* Real-time pipeline test of RTCP XR between the elements, on 127.0.0.1:
 *
 *   videotestsrc ! x264enc ! rtph264pay !
 *       rtpccsink controller=fbra feedback=rr ──UDP──▶
 *       rtpccsrc feedback=rr xr-blocks=(all) ! fakesink
 *
 * The receiver's blocks reach the sender: rtpccsink's statistics show
 * Loss RLE coverage of what arrived, the de-jitter buffer's nominal delay
 * (rtpccsrc's playout-delay), the discard counts, the round trips the
 * receiver measured with RRTR / DLRR (RFC 3611), and nothing dropped as
 * malformed. Loopback loses nothing, so every packet
 * a Loss RLE covers was received; with feedback=rr the Loss RLE is also
 * the per-packet feedback FBRA runs on.
 *
 * And with the receiver's elements behind rtpccsrc,
 *
 *   rtpccsrc ! linkemu loss=0.05 ! fecdec ! playoutbuffer ! fakesink
 *
 * (fecenc n=5 at the sender): the De-Jitter block is playoutbuffer's own
 * state ("rtpcc-playout-state"), its maximum the buffer's max-delay, and
 * every packet fecdec rebuilt reaches rtpccsrc ("rtpcc-repaired"). The
 * loss is after rtpccsrc, so these packets were received anyway: the
 * check is that the events arrive and are taken, not the RLE bits (the
 * element tests in tests/check show those).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include "rt-util.h"

#define RUN_S 3.0
#define PLAYOUT_MS 150

static guint64
field (const GstStructure * st, const gchar * name)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (st, name, &v), "no %s", name);
  return v;
}

/* A call for RUN_S seconds: the receiver @rx_desc (its rtpccsrc named
 * "rx", bound to an ephemeral port) started first, then the sender: H.264
 * test video, @tx_mid (elements before rtpccsink, "" or ending in "! ")
 * and an rtpccsink named "tx" with @tx_props. Both pipelines are left
 * PLAYING. */
static void
run_call (const gchar * rx_desc, const gchar * tx_mid, const gchar * tx_props,
    GstElement ** rx, GstElement ** tx, GstElement ** src, GstElement ** sink)
{
  gint port = 0;
  gint64 start;
  gchar *desc;

  *rx = rt_parse (rx_desc, TRUE);
  fail_unless (gst_element_set_state (*rx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  *src = gst_bin_get_by_name (GST_BIN (*rx), "rx");
  g_object_get (*src, "bound-port", &port, NULL);
  fail_unless (port > 0);

  desc = g_strdup_printf ("videotestsrc is-live=true ! "
      "video/x-raw,width=320,height=240,framerate=30/1 ! "
      "x264enc tune=zerolatency speed-preset=ultrafast ! rtph264pay ! "
      "%s rtpccsink name=tx host=127.0.0.1 port=%d %s", tx_mid, port,
      tx_props);
  *tx = rt_parse (desc, TRUE);
  g_free (desc);
  *sink = gst_bin_get_by_name (GST_BIN (*tx), "tx");
  fail_unless (gst_element_set_state (*tx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  start = g_get_monotonic_time ();
  while (g_get_monotonic_time () - start < RUN_S * G_USEC_PER_SEC) {
    g_usleep (250 * 1000);
    rt_check_no_error (*tx, "sender");
    rt_check_no_error (*rx, "receiver");
  }
}

static void
stop_call (GstElement * rx, GstElement * tx, GstElement * src,
    GstElement * sink)
{
  fail_unless_equals_int (gst_element_set_state (tx, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (rx, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (tx);
  gst_object_unref (rx);
}

GST_START_TEST (test_xr_reaches_sink)
{
  GstElement *rx, *tx, *src, *sink;
  gchar *desc;
  guint64 blocks, received, lost, sent;
  GstStructure *st = NULL;

  desc = g_strdup_printf ("rtpccsrc name=rx address=127.0.0.1 port=0 "
      "feedback=rr rtcp-interval=250 playout-delay=%d "
      "xr-blocks=discard-rle+loss-rle+post-repair-rle+delay+discard-count+"
      "bytes-discarded+dejitter "
      "caps=\"application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264\" ! fakesink sync=false", PLAYOUT_MS);
  run_call (desc, "", "controller=fbra feedback=rr", &rx, &tx, &src, &sink);
  g_free (desc);
  /* one snapshot: reports keep arriving while we read */
  g_object_get (sink, "stats", &st, NULL);
  fail_unless (st != NULL);
  blocks = field (st, "xr-blocks");
  received = field (st, "xr-loss-received");
  lost = field (st, "xr-loss-lost");
  g_print ("XR blocks used by the sender %" G_GUINT64_FORMAT "; Loss RLE: %"
      G_GUINT64_FORMAT " received, %" G_GUINT64_FORMAT " lost\n", blocks,
      received, lost);
  /* a report every ~250 ms for ~3 s, six blocks each (Loss and
   * Post-repair RLE while media flows) */
  fail_unless (blocks >= 20, "only %" G_GUINT64_FORMAT " XR blocks", blocks);
  fail_unless_equals_uint64 (field (st, "xr-dropped"), 0);
  fail_unless (received > 30, "Loss RLE covered %" G_GUINT64_FORMAT
      " packets", received);
  fail_unless_equals_uint64 (lost, 0);
  /* feedback=rr: the Loss RLE blocks were the per-packet feedback, each
   * packet acknowledged once */
  fail_unless_equals_uint64 (field (st, "reported-received"),
      received);
  fail_unless_equals_uint64 (field (st, "reported-lost"), 0);
  fail_unless_equals_uint64 (field (st, "xr-post-repair-received"),
      received);
  fail_unless_equals_uint64 (field (st, "xr-djb-nominal"),
      (guint64) PLAYOUT_MS * GST_MSECOND);
  fail_unless_equals_uint64 (field (st, "xr-djb-maximum"), 0);
  /* RRTR answered by DLRR: a loopback round trip, under a few ms on an
   * idle machine; 500 ms bounds it under load */
  fail_unless (field (st, "xr-rtt-mean") > 0);
  fail_unless (field (st, "xr-rtt-max") < 500 * GST_MSECOND);
  fail_unless_equals_uint64 (field (st, "xr-discarded-packets"), 0);
  gst_structure_free (st);
  /* the receiver's count, read after the sender's: at least as many */
  sent = rt_stat_u64 (src, "xr-blocks-sent");
  fail_unless (blocks <= sent);

  stop_call (rx, tx, src, sink);
}

GST_END_TEST;

GST_START_TEST (test_playout_state_and_fec_reach_sink)
{
  GstElement *rx, *tx, *src, *sink, *pb, *fd;
  guint max_delay = 0;
  gchar *desc;
  guint64 nominal, maximum, high, low, marked, rejected, recovered;
  GstStructure *st = NULL;

  desc = g_strdup_printf ("rtpccsrc name=rx address=127.0.0.1 port=0 "
      "feedback=rr rtcp-interval=250 playout-delay=%d "
      "xr-blocks=loss-rle+post-repair-rle+dejitter "
      "caps=\"application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=H264\" ! linkemu loss=0.05 seed=1 ! fecdec name=fd ! "
      "playoutbuffer name=pb ! fakesink sync=false", PLAYOUT_MS);
  run_call (desc, "fecenc n=5 follow-target=false !", "feedback=rr", &rx,
      &tx, &src, &sink);
  g_free (desc);
  pb = gst_bin_get_by_name (GST_BIN (rx), "pb");
  fd = gst_bin_get_by_name (GST_BIN (rx), "fd");
  g_object_get (pb, "max-delay", &max_delay, NULL);

  g_object_get (sink, "stats", &st, NULL);
  fail_unless (st != NULL);
  nominal = field (st, "xr-djb-nominal");
  maximum = field (st, "xr-djb-maximum");
  high = field (st, "xr-djb-high-water");
  low = field (st, "xr-djb-low-water");
  g_print ("De-Jitter as the sender read it: nominal %" GST_TIME_FORMAT
      " maximum %" GST_TIME_FORMAT " marks %" GST_TIME_FORMAT " .. %"
      GST_TIME_FORMAT "\n", GST_TIME_ARGS (nominal), GST_TIME_ARGS (maximum),
      GST_TIME_ARGS (low), GST_TIME_ARGS (high));
  fail_unless_equals_uint64 (field (st, "xr-dropped"), 0);
  gst_structure_free (st);
  /* playoutbuffer's, not playout-delay's (whose maximum is unavailable) */
  fail_unless_equals_uint64 (maximum, (guint64) max_delay * GST_MSECOND);
  fail_unless (nominal > 0 && nominal <= maximum);
  fail_unless (low <= nominal && nominal <= high && high <= maximum);
  fail_unless (rt_stat_u64 (pb, "state-events") > 0);
  fail_unless_equals_uint64 (rt_stat_u64 (src, "dejitter-rejected"), 0);
  fail_unless_equals_uint64 (rt_stat_u64 (src, "events-rejected"), 0);

  /* rtpccsrc first: a repair fecdec counted may still be on its way.
   * Refused ones are those rebuilt after a report had covered them
   * (rtpccsrc had received them: the loss is behind it). */
  marked = rt_stat_u64 (src, "repairs-marked");
  rejected = rt_stat_u64 (src, "repairs-rejected");
  recovered = rt_stat_u64 (fd, "recovered");
  g_print ("fecdec rebuilt %" G_GUINT64_FORMAT "; rtpccsrc took %"
      G_GUINT64_FORMAT ", refused %" G_GUINT64_FORMAT "\n", recovered,
      marked, rejected);
  fail_unless (recovered > 0, "linkemu loss=0.05 and nothing rebuilt");
  fail_unless (marked > 0);
  fail_unless (marked + rejected <= recovered);

  gst_object_unref (pb);
  gst_object_unref (fd);
  stop_call (rx, tx, src, sink);
}

GST_END_TEST;

static Suite *
rtpcc_xr_realtime_suite (void)
{
  Suite *s = suite_create ("rtpcc_xr_realtime");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_xr_reaches_sink);
  tcase_add_test (tc, test_playout_state_and_fec_reach_sink);
  return s;
}

GST_CHECK_MAIN (rtpcc_xr_realtime);

/* rtpccsrc and the "rtpcc-discard" upstream event: a
 * playout buffer's late discards reach the receiver, go back to the sender
 * as an RTCP XR Discard RLE block (RFC 7097) in the next regular report,
 * and show in the element's statistics; malformed events are counted and
 * dropped. Real loopback sockets (127.0.0.1, ephemeral ports), time from
 * the harness's GstTestClock (clock-util.h). With xr-blocks, the other
 * XR blocks go out too, with what the element saw, and tshark dissects
 * them. Also: rtpccsink accepts controller=fbra.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gio/gio.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/xr.h>
#include <string.h>

#include "clock-util.h"
#include "tshark-util.h"

#define SSRC 0x1234abcdu
#define CAPS "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=VP8,payload=96"

static GSocket *
udp_socket_new (guint16 * port)
{
  GError *err = NULL;
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, &err);
  GSocketAddress *addr, *local;

  fail_unless (s != NULL, "%s", err ? err->message : "?");
  addr = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  fail_unless (g_socket_bind (s, addr, FALSE, &err));
  g_object_unref (addr);
  local = g_socket_get_local_address (s, &err);
  fail_unless (local != NULL);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  g_object_unref (local);
  g_socket_set_blocking (s, FALSE);
  return s;
}

static void
send_rtp (GSocket * s, guint16 port, guint16 seq)
{
  guint8 pkt[112];
  GSocketAddress *to = g_inet_socket_address_new_from_string ("127.0.0.1",
      port);

  memset (pkt, 0x55, sizeof (pkt));
  pkt[0] = 0x80;
  pkt[1] = 96 | 0x80;           /* marker: one packet per frame */
  pkt[2] = seq >> 8;
  pkt[3] = seq & 0xff;
  pkt[4] = pkt[5] = pkt[6] = 0;
  pkt[7] = (guint8) seq;
  pkt[8] = SSRC >> 24;
  pkt[9] = (SSRC >> 16) & 0xff;
  pkt[10] = (SSRC >> 8) & 0xff;
  pkt[11] = SSRC & 0xff;
  fail_unless_equals_int (g_socket_send_to (s, to, (const gchar *) pkt,
          sizeof (pkt), NULL, NULL), sizeof (pkt));
  g_object_unref (to);
}

/* seqs reported discarded for SSRC in one compound, added to @seen[seq-100] */
static guint
collect_discards (const guint8 * data, gsize len, gboolean * seen, guint n)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  guint found = 0;

  if (!rtpcc_rtcp_iter_init (&it, data, len))
    return 0;
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    RtpccXr *xr;
    if (pkt.pt != RTPCC_RTCP_XR)
      continue;
    xr = rtpcc_xr_parse (pkt.data, pkt.len, NULL);
    fail_unless (xr != NULL, "rtpccsrc sent a malformed XR");
    for (guint b = 0; b < xr->n_blocks; b++) {
      const RtpccXrRleBlock *blk = &xr->blocks[b];
      fail_unless_equals_int (blk->bt, RTPCC_XR_BT_DISCARD_RLE);
      if (blk->ssrc != SSRC)
        continue;
      for (guint i = 0; i < blk->n_bits; i++) {
        guint16 d = (guint16) (blk->begin_seq + i - 100);
        if (blk->bits[i] && d < n) {
          seen[d] = TRUE;
          found++;
        }
      }
    }
    rtpcc_xr_free (xr);
  }
  return found;
}

static guint64
stat_u64 (GstElement * src, const gchar * field)
{
  GstStructure *st = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (src, "stats", &st, NULL);
  fail_unless (st != NULL);
  fail_unless (gst_structure_get_uint64 (st, field, &v), "no %s", field);
  gst_structure_free (st);
  return v;
}

/* @src (RR every 200 ms) playing in a harness on a test clock, bound to
 * an ephemeral loopback port (*@bound); *@peer a socket to send it RTP
 * and hear its RTCP. */
static GstHarness *
start_src (GstElement * src, GSocket ** peer, GstTestClock ** clock,
    gint * bound)
{
  GstCaps *caps = gst_caps_from_string (CAPS);
  guint16 peer_port;
  GstHarness *h;

  fail_unless (src != NULL, "rtpccsrc not found (GST_PLUGIN_PATH?)");
  *peer = udp_socket_new (&peer_port);
  g_object_set (src, "address", "127.0.0.1", "port", 0, "caps", caps,
      "rtcp-interval", 200, NULL);
  gst_caps_unref (caps);
  h = gst_harness_new_with_element (src, NULL, "src");
  *clock = gst_harness_get_testclock (h);
  gst_harness_play (h);
  g_object_get (src, "bound-port", bound, NULL);
  fail_unless (*bound > 0);
  clock_watch_port (*clock, (guint16) * bound);
  clock_settle (*clock, 1);
  return h;
}

GST_START_TEST (test_discard_event_reaches_feedback)
{
  GstElement *src = gst_element_factory_make ("rtpccsrc", NULL);
  GstHarness *h;
  GSocket *peer;
  gint bound = 0;
  gboolean seen[20] = { FALSE, };
  guint8 buf[2048];
  GstTestClock *clock;
  GstClockTime end;

  h = start_src (src, &peer, &clock, &bound);

  for (guint i = 0; i < 10; i++)
    send_rtp (peer, (guint16) bound, (guint16) (100 + i));
  for (guint i = 0; i < 10; i++)
    gst_buffer_unref (gst_harness_pull (h));

  /* the playout buffer discarded 105 and 106 as late */
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("rtpcc-discard", "ssrc", G_TYPE_UINT, SSRC,
                  "seqnum", G_TYPE_UINT, 105, "count", G_TYPE_UINT, 2,
                  NULL))));
  /* malformed: no count; and a seqnum out of range */
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("rtpcc-discard", "ssrc", G_TYPE_UINT, SSRC,
                  "seqnum", G_TYPE_UINT, 101, NULL))));
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("rtpcc-discard", "ssrc", G_TYPE_UINT, SSRC,
                  "seqnum", G_TYPE_UINT, 70000, "count", G_TYPE_UINT, 1,
                  NULL))));
  fail_unless_equals_uint64 (stat_u64 (src, "discards-marked"), 2);
  fail_unless_equals_uint64 (stat_u64 (src, "discards-rejected"), 2);

  /* the next regular report carries them (RR every ~200 ms) */
  end = gst_clock_get_time (GST_CLOCK (clock)) + 3 * GST_SECOND;
  while (!(seen[5] && seen[6])
      && gst_clock_get_time (GST_CLOCK (clock)) < end) {
    gssize n = g_socket_receive (peer, (gchar *) buf, sizeof (buf), NULL,
        NULL);
    if (n > 0)
      collect_discards (buf, (gsize) n, seen, G_N_ELEMENTS (seen));
    else
      clock_advance (clock, 1, 10 * GST_MSECOND);
  }
  fail_unless (seen[5] && seen[6], "no Discard RLE for 105/106 in 3 s");
  for (guint i = 0; i < G_N_ELEMENTS (seen); i++)
    fail_unless (seen[i] == (i == 5 || i == 6), "seq %u reported", 100 + i);
  fail_unless_equals_uint64 (stat_u64 (src, "discards-reported"), 2);

  gst_harness_teardown (h);
  gst_object_unref (clock);
  gst_object_unref (src);
  g_object_unref (peer);
}

GST_END_TEST;

/* xr-blocks on: the report after 100..109 (103 lost on the way, 105
 * played out late) carries a Loss RLE and a Post-repair Loss RLE over
 * them, a Discard Count of 1 and 100 payload bytes discarded, the
 * playout delay as the de-jitter buffer's nominal delay, a Delay Metrics
 * block whose round trips are unavailable (this peer never answers the
 * Receiver Reference Time block that comes with it, and there is no
 * repair); tshark dissects the compounds cleanly. */
GST_START_TEST (test_xr_blocks_on_the_wire)
{
  GstElement *src = gst_element_factory_make ("rtpccsrc", NULL);
  gchar *tshark = tshark_find ("test_xr_blocks_on_the_wire");
  GByteArray *pcap = test_pcap_new ();
  GstHarness *h;
  GSocket *peer;
  gint bound = 0;
  guint8 buf[2048];
  GstTestClock *clock;
  GstClockTime end;
  guint frames = 0, flags = 0;
  gboolean loss = FALSE, post = FALSE, count = FALSE, bytes = FALSE,
      djb = FALSE, delay = FALSE, rrtr = FALSE;

  fail_unless (src != NULL, "rtpccsrc not found (GST_PLUGIN_PATH?)");
  gst_util_set_object_arg (G_OBJECT (src), "xr-blocks",
      "discard-rle+loss-rle+post-repair-rle+delay+discard-count+"
      "bytes-discarded+dejitter");
  g_object_get (src, "xr-blocks", &flags, NULL);
  fail_unless_equals_int (flags, RTPCC_RECEIVER_XR_ALL);
  h = start_src (src, &peer, &clock, &bound);

  for (guint i = 0; i < 10; i++)
    if (i != 3)
      send_rtp (peer, (guint16) bound, (guint16) (100 + i));
  for (guint i = 0; i < 9; i++)
    gst_buffer_unref (gst_harness_pull (h));
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("rtpcc-discard", "ssrc", G_TYPE_UINT, SSRC,
                  "seqnum", G_TYPE_UINT, 105, "count", G_TYPE_UINT, 1,
                  NULL))));

  end = gst_clock_get_time (GST_CLOCK (clock)) + 3 * GST_SECOND;
  while (!(loss && post && count && bytes && djb && delay && rrtr)
      && gst_clock_get_time (GST_CLOCK (clock)) < end) {
    gssize n = g_socket_receive (peer, (gchar *) buf, sizeof (buf), NULL,
        NULL);
    RtpccRtcpIter it;
    RtpccRtcpPacket pkt;

    if (n <= 0) {
      clock_advance (clock, 1, 10 * GST_MSECOND);
      continue;
    }
    test_pcap_add (pcap, ++frames, TSHARK_RTCP_PORT, buf, (gsize) n);
    fail_unless (rtpcc_rtcp_iter_init (&it, buf, (gsize) n));
    while (rtpcc_rtcp_iter_next (&it, &pkt)) {
      RtpccXrReport *x;
      if (pkt.pt != RTPCC_RTCP_XR)
        continue;
      rrtr |= rtpcc_xr_find_rrtr (pkt.data, pkt.len, NULL) == 1;
      x = rtpcc_xr_report_parse (pkt.data, pkt.len, NULL);
      fail_unless (x != NULL, "rtpccsrc sent a malformed XR");
      for (guint b = 0; b < x->n_blocks; b++) {
        const RtpccXrBlock *blk = &x->blocks[b];
        switch (blk->bt) {
          case RTPCC_XR_BT_LOSS_RLE:
          case RTPCC_XR_BT_POST_REPAIR_RLE:
            /* the first report may come before all ten arrived */
            if (blk->rle.ssrc != SSRC || blk->rle.end_seq != 110)
              break;
            fail_unless (blk->rle.n_bits >= 7);
            for (guint i = 0; i < blk->rle.n_bits; i++)
              fail_unless_equals_int (blk->rle.bits[i],
                  rtpcc_xr_rle_seq (&blk->rle, i) != 103);
            if (blk->bt == RTPCC_XR_BT_LOSS_RLE)
              loss = TRUE;
            else
              post = TRUE;
            break;
          case RTPCC_XR_BT_DISCARD_COUNT:
            fail_unless_equals_int (blk->discard_count.discard_type,
                RTPCC_XR_DT_LATE);
            count |= blk->discard_count.packets == 1;
            break;
          case RTPCC_XR_BT_BYTES_DISCARDED:
            bytes |= blk->bytes_discarded.bytes == 112 - 12;
            break;
          case RTPCC_XR_BT_DEJITTER:
            fail_unless_equals_int (blk->dejitter.nominal, 200);
            fail_unless_equals_int (blk->dejitter.maximum,
                RTPCC_XR_DJB_UNAVAILABLE);
            djb = TRUE;
            break;
          case RTPCC_XR_BT_DELAY:
            fail_unless_equals_int (blk->delay.mean_rtt,
                RTPCC_XR_DELAY_UNAVAILABLE);
            delay = TRUE;
            break;
          default:
            break;
        }
      }
      rtpcc_xr_report_free (x);
    }
  }
  fail_unless (loss && post && count && bytes && djb && delay && rrtr,
      "blocks seen in 3 s: loss %d post %d count %d bytes %d djb %d "
      "delay %d rrtr %d", loss, post, count, bytes, djb, delay, rrtr);
  fail_unless (stat_u64 (src, "xr-blocks-sent") >= 6);

  if (tshark) {
    gchar *dir, *file, *out;
    file = test_pcap_save (pcap, "rtpcc-srcxr-XXXXXX", "xr.pcap", &dir);
    out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
        "-V", NULL});
    tshark_assert_clean (out);
    tshark_assert_no_warnings (out);
    g_free (out);
    test_pcap_remove (file, dir);
    g_free (tshark);
  } else {
    g_byte_array_unref (pcap);
  }
  gst_harness_teardown (h);
  gst_object_unref (clock);
  gst_object_unref (src);
  g_object_unref (peer);
}

GST_END_TEST;

/* The XR De-Jitter block follows what playoutbuffer reports
 * ("rtpcc-playout-state") instead of the playout-delay estimate, and a
 * packet fecdec rebuilt ("rtpcc-repaired") is received in the Post-repair
 * Loss RLE though lost in the Loss RLE; malformed events are dropped and
 * counted. */
static void
push_state (GstHarness * h, guint64 nominal, guint64 maximum, guint64 high,
    guint64 low)
{
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("rtpcc-playout-state",
                  "ssrc", G_TYPE_UINT, SSRC, "adaptive", G_TYPE_BOOLEAN, TRUE,
                  "nominal", G_TYPE_UINT64, nominal,
                  "maximum", G_TYPE_UINT64, maximum,
                  "high-water", G_TYPE_UINT64, high,
                  "low-water", G_TYPE_UINT64, low, NULL))));
}

static void
push_repaired (GstHarness * h, GstStructure * s)
{
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s)));
}

/* The next XR report's De-Jitter block (*@djb, zeroed if none) and, when
 * its RLE blocks end at @rle_end, the seqs they say received (bit i of
 * *@loss / *@post: seq rle_end - 32 + i). FALSE if no XR in 3 s. */
static gboolean
next_report (GstHarness * h, GSocket * peer, GstTestClock * clock,
    RtpccXrDejitter * djb, guint16 rle_end, guint32 * loss, guint32 * post)
{
  GstClockTime end = gst_clock_get_time (GST_CLOCK (clock)) + 3 * GST_SECOND;
  guint8 buf[2048];
  gboolean found = FALSE;

  memset (djb, 0, sizeof (*djb));
  while (!found && gst_clock_get_time (GST_CLOCK (clock)) < end) {
    gssize n = g_socket_receive (peer, (gchar *) buf, sizeof (buf), NULL,
        NULL);
    RtpccRtcpIter it;
    RtpccRtcpPacket pkt;

    if (n <= 0) {
      clock_advance (clock, 1, 10 * GST_MSECOND);
      continue;
    }
    fail_unless (rtpcc_rtcp_iter_init (&it, buf, (gsize) n));
    while (rtpcc_rtcp_iter_next (&it, &pkt)) {
      RtpccXrReport *x;
      if (pkt.pt != RTPCC_RTCP_XR)
        continue;
      x = rtpcc_xr_report_parse (pkt.data, pkt.len, NULL);
      fail_unless (x != NULL, "rtpccsrc sent a malformed XR");
      for (guint b = 0; b < x->n_blocks; b++) {
        const RtpccXrBlock *blk = &x->blocks[b];
        guint32 *bits = blk->bt == RTPCC_XR_BT_LOSS_RLE ? loss :
            blk->bt == RTPCC_XR_BT_POST_REPAIR_RLE ? post : NULL;
        if (blk->bt == RTPCC_XR_BT_DEJITTER) {
          *djb = blk->dejitter;
          found = TRUE;
        }
        if (!bits || blk->rle.end_seq != rle_end)
          continue;
        *bits = 0;
        for (guint i = 0; i < blk->rle.n_bits; i++) {
          guint16 d = (guint16) (rtpcc_xr_rle_seq (&blk->rle, i) -
              (rle_end - 32));
          if (d < 32 && blk->rle.bits[i])
            *bits |= 1u << d;
        }
      }
      rtpcc_xr_report_free (x);
    }
  }
  return found;
}

/* nadu=true: each RR carries a NADU, and while playoutbuffer keeps
 * telling ("rtpcc-playout-state" next-seq / next-in, every 100 ms) it
 * reports that buffer's next unit, counted down to the report; a next-seq
 * out of range is dropped and counted. */
static void
push_next (GstHarness * h, guint next_seq, guint64 next_in)
{
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("rtpcc-playout-state",
                  "ssrc", G_TYPE_UINT, SSRC,
                  "nominal", G_TYPE_UINT64, 200 * GST_MSECOND,
                  "next-seq", G_TYPE_UINT, next_seq,
                  "next-in", G_TYPE_UINT64, next_in, NULL))));
}

GST_START_TEST (test_nadu_from_playout_state)
{
  GstElement *src = gst_element_factory_make ("rtpccsrc", NULL);
  GstHarness *h;
  GSocket *peer;
  gint bound = 0;
  GstTestClock *clock;
  GstClockTime end;
  guint8 buf[2048];
  guint found = 0;

  fail_unless (src != NULL, "rtpccsrc not found (GST_PLUGIN_PATH?)");
  g_object_set (src, "nadu", TRUE, NULL);
  h = start_src (src, &peer, &clock, &bound);
  for (guint i = 0; i < 10; i++)
    send_rtp (peer, (guint16) bound, (guint16) (100 + i));
  for (guint i = 0; i < 10; i++)
    gst_buffer_unref (gst_harness_pull (h));
  push_next (h, 70000, 0);
  fail_unless_equals_uint64 (stat_u64 (src, "events-rejected"), 1);

  end = gst_clock_get_time (GST_CLOCK (clock)) + 3 * GST_SECOND;
  while (found < 3 && gst_clock_get_time (GST_CLOCK (clock)) < end) {
    gssize n;
    RtpccNaduBlock b;

    push_next (h, 105, 300 * GST_MSECOND);
    n = g_socket_receive (peer, (gchar *) buf, sizeof (buf), NULL, NULL);
    if (n <= 0) {
      clock_advance (clock, 1, 10 * GST_MSECOND);
      continue;
    }
    if (!rtpcc_nadu_find (buf, (gsize) n, SSRC, &b, NULL))
      continue;
    /* told at most one 10 ms step before the report */
    fail_unless_equals_int (b.nsn, 105);
    fail_unless (b.playout_delay >= 290 && b.playout_delay <= 300, "%u",
        b.playout_delay);
    found++;
  }
  fail_unless_equals_int (found, 3);
  fail_unless (stat_u64 (src, "nadu-sent") >= 3);
  gst_harness_teardown (h);
  g_object_unref (peer);
}

GST_END_TEST;

GST_START_TEST (test_playout_state_and_fec_repairs)
{
  GstElement *src = gst_element_factory_make ("rtpccsrc", NULL);
  GstHarness *h;
  GSocket *peer;
  gint bound = 0;
  GstTestClock *clock;
  RtpccXrDejitter djb;
  guint32 loss = 0, post = 0, want;

  fail_unless (src != NULL, "rtpccsrc not found (GST_PLUGIN_PATH?)");
  gst_util_set_object_arg (G_OBJECT (src), "xr-blocks",
      "loss-rle+post-repair-rle+dejitter");
  h = start_src (src, &peer, &clock, &bound);

  /* no playoutbuffer has spoken: playout-delay (200 ms) as before */
  for (guint i = 0; i < 10; i++)
    send_rtp (peer, (guint16) bound, (guint16) (100 + i));
  for (guint i = 0; i < 10; i++)
    gst_buffer_unref (gst_harness_pull (h));
  fail_unless (next_report (h, peer, clock, &djb, 110, &loss, &post));
  fail_unless_equals_int (djb.nominal, 200);
  fail_unless_equals_int (djb.maximum, RTPCC_XR_DJB_UNAVAILABLE);

  /* 110..129, 113 and 114 lost; fecdec rebuilt 113 */
  for (guint i = 10; i < 30; i++)
    if (i != 13 && i != 14)
      send_rtp (peer, (guint16) bound, (guint16) (100 + i));
  for (guint i = 0; i < 18; i++)
    gst_buffer_unref (gst_harness_pull (h));
  push_repaired (h, gst_structure_new ("rtpcc-repaired", "ssrc", G_TYPE_UINT,
          SSRC, "seqnum", G_TYPE_UINT, 113, NULL));
  /* malformed (no seqnum; seqnum out of range) and out of the window */
  push_repaired (h, gst_structure_new ("rtpcc-repaired", "ssrc", G_TYPE_UINT,
          SSRC, NULL));
  push_repaired (h, gst_structure_new ("rtpcc-repaired", "ssrc", G_TYPE_UINT,
          SSRC, "seqnum", G_TYPE_UINT, 70000, NULL));
  push_repaired (h, gst_structure_new ("rtpcc-repaired", "ssrc", G_TYPE_UINT,
          SSRC, "seqnum", G_TYPE_UINT, 30000, NULL));
  /* the buffer's state: 80 ms now, 60..120 since its last update; and a
   * bogus one (low over high) that must change nothing */
  push_state (h, 80 * GST_MSECOND, 400 * GST_MSECOND, 120 * GST_MSECOND,
      60 * GST_MSECOND);
  push_state (h, 10 * GST_MSECOND, 400 * GST_MSECOND, 5 * GST_MSECOND,
      9 * GST_MSECOND);
  fail_unless_equals_uint64 (stat_u64 (src, "repairs-marked"), 1);
  fail_unless_equals_uint64 (stat_u64 (src, "repairs-rejected"), 1);
  fail_unless_equals_uint64 (stat_u64 (src, "events-rejected"), 3);

  loss = post = 0;
  fail_unless (next_report (h, peer, clock, &djb, 130, &loss, &post));
  fail_unless (djb.adaptive);
  fail_unless_equals_int (djb.nominal, 80);
  fail_unless_equals_int (djb.maximum, 400);
  fail_unless_equals_int (djb.high_water, 120);
  fail_unless_equals_int (djb.low_water, 60);
  /* bits for 98..129: 110..129 came but 113 and 114 */
  want = 0xfffff000u & ~(1u << 15) & ~(1u << 16);
  fail_unless_equals_int (loss, want);
  fail_unless_equals_int (post, want | (1u << 15));

  /* the buffer climbs to 150 ms: the marks span 80 (where the interval
   * began) to 150 */
  push_state (h, 150 * GST_MSECOND, 400 * GST_MSECOND, 150 * GST_MSECOND,
      90 * GST_MSECOND);
  fail_unless (next_report (h, peer, clock, &djb, 0, &loss, &post));
  fail_unless_equals_int (djb.nominal, 150);
  fail_unless_equals_int (djb.high_water, 150);
  fail_unless_equals_int (djb.low_water, 80);

  gst_harness_teardown (h);
  gst_object_unref (clock);
  gst_object_unref (src);
  g_object_unref (peer);
}

GST_END_TEST;

/* rtpccsink takes "fbra" from the controller registry */
GST_START_TEST (test_sink_accepts_fbra)
{
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  gchar *name = NULL;

  fail_unless (sink != NULL);
  g_object_set (sink, "controller", "fbra", "host", "127.0.0.1", "port",
      9, NULL);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  g_object_get (sink, "controller", &name, NULL);
  fail_unless_equals_string (name, "fbra");
  g_free (name);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (sink);
}

GST_END_TEST;

static Suite *
elements_rtpcc_discard_suite (void)
{
  Suite *s = suite_create ("elements_rtpcc_discard");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 30);
  tcase_add_test (tc, test_discard_event_reaches_feedback);
  tcase_add_test (tc, test_xr_blocks_on_the_wire);
  tcase_add_test (tc, test_playout_state_and_fec_repairs);
  tcase_add_test (tc, test_nadu_from_playout_state);
  tcase_add_test (tc, test_sink_accepts_fbra);
  return s;
}

GST_CHECK_MAIN (elements_rtpcc_discard);

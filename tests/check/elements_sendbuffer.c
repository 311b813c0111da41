/* Element tests: sendbuffer with GstHarness and a test clock.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>

#define MS GST_MSECOND
#define VSSRC 0x11110000u
#define ASSRC 0x22220000u

static GstBuffer *
rtp (guint32 ssrc, guint16 seq, guint32 ts, gboolean marker, guint size,
    GstClockTime pts)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (size - 12, 0, 0);
  GstRTPBuffer r = GST_RTP_BUFFER_INIT;

  fail_unless (gst_rtp_buffer_map (b, GST_MAP_WRITE, &r));
  gst_rtp_buffer_set_ssrc (&r, ssrc);
  gst_rtp_buffer_set_seq (&r, seq);
  gst_rtp_buffer_set_timestamp (&r, ts);
  gst_rtp_buffer_set_marker (&r, marker);
  gst_rtp_buffer_set_payload_type (&r, ssrc == ASSRC ? 111 : 96);
  gst_rtp_buffer_unmap (&r);
  GST_BUFFER_PTS (b) = pts;
  return b;
}

static void
read_rtp (GstBuffer * b, guint32 * ssrc, guint16 * seq, guint32 * ts)
{
  GstRTPBuffer r = GST_RTP_BUFFER_INIT;

  fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &r));
  if (ssrc)
    *ssrc = gst_rtp_buffer_get_ssrc (&r);
  if (seq)
    *seq = gst_rtp_buffer_get_seq (&r);
  if (ts)
    *ts = gst_rtp_buffer_get_timestamp (&r);
  gst_rtp_buffer_unmap (&r);
}

/* Video on sink_0 (@hv, which also owns the output), audio on sink_1. */
static void
setup (const gchar * policy, GstHarness ** hv, GstHarness ** ha)
{
  *hv = gst_harness_new_with_padnames ("sendbuffer", "sink_0", "src");
  gst_harness_use_testclock (*hv);
  gst_util_set_object_arg (G_OBJECT ((*hv)->element), "policy", policy);
  gst_harness_set_src_caps_str (*hv,
      "application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8");
  if (ha) {
    *ha = gst_harness_new_with_element ((*hv)->element, "sink_1", NULL);
    gst_harness_set_src_caps_str (*ha,
        "application/x-rtp,media=audio,clock-rate=48000,encoding-name=OPUS");
  }
  gst_harness_play (*hv);
}

/* What rtpccsink sends upstream. */
static void
send_target (GstHarness * h, GstClockTime rtt, guint64 rate)
{
  GstStructure *s = gst_structure_new ("rtpcc-target",
      "target-bitrate", G_TYPE_UINT64, rate,
      "media-bitrate", G_TYPE_UINT64, rate,
      "fec-bitrate", G_TYPE_UINT64, (guint64) 0,
      "pacing-rate", G_TYPE_UINT64, rate,
      "rtt", G_TYPE_UINT64, (guint64) rtt, NULL);

  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s)));
}

/* Next output buffer, releasing the element's drain-rate waits as needed
 * (each crank moves the test clock to the wait's time if it is later). */
static GstBuffer *
pull_one (GstHarness * h)
{
  GstTestClock *tc = gst_harness_get_testclock (h);
  GstBuffer *b = NULL;

  for (guint i = 0; i < 5000 && !b; i++) {
    b = gst_harness_try_pull (h);
    if (b)
      break;
    if (gst_test_clock_peek_next_pending_id (tc, NULL))
      gst_test_clock_crank (tc);
    else
      g_usleep (1000);
  }
  gst_object_unref (tc);
  fail_unless (b != NULL, "no output buffer");
  return b;
}

static guint64
stat (GstHarness * h, const gchar * field)
{
  GstStructure *s;
  guint64 v = 0;

  g_object_get (h->element, "stats", &s, NULL);
  if (!gst_structure_get_uint64 (s, field, &v))
    v = 0;
  gst_structure_free (s);
  return v;
}

/* Wait (real time, bounded) until the streaming thread has got that far. */
static void
wait_stat (GstHarness * h, const gchar * field, guint64 value)
{
  GstTestClock *tc = gst_harness_get_testclock (h);

  for (guint i = 0; i < 5000 && stat (h, field) < value; i++) {
    if (gst_test_clock_peek_next_pending_id (tc, NULL))
      gst_test_clock_crank (tc);
    else
      g_usleep (1000);
  }
  gst_object_unref (tc);
  fail_unless_equals_uint64 (stat (h, field), value);
}

static void
set_time (GstHarness * h, GstClockTime t)
{
  GstTestClock *tc = gst_harness_get_testclock (h);
  gst_test_clock_set_time (tc, t);
  gst_object_unref (tc);
}

/* The first packet goes at once (no drain debt yet); after it, 1000 B at
 * 800 kbit/s hold the queue for 5 ms (10 ms minus the 5 ms idle credit),
 * long enough to script what is queued. */
static void
warm_up (GstHarness * hv, guint16 seq)
{
  GstBuffer *b;

  send_target (hv, 80 * MS, 800000);
  gst_harness_push (hv, rtp (VSSRC, seq, 0, TRUE, 1000, 0));
  b = pull_one (hv);
  gst_buffer_unref (b);
}

/* Audio (sink_1, media=audio) goes before video queued earlier; within
 * video, arrival order; the priority pad property overrides the caps. */
GST_START_TEST (test_priorities_across_pads)
{
  GstHarness *hv, *ha;
  guint32 ssrc[5], ts[5];
  GstPad *pad;
  gint prio;

  setup ("sfdps1", &hv, &ha);
  g_object_set (hv->element, "budget", 5000, NULL);
  warm_up (hv, 100);
  for (guint i = 0; i < 3; i++)
    gst_harness_push (hv, rtp (VSSRC, 101 + i, 3000 * (i + 1), TRUE, 1000,
            0));
  gst_harness_push (ha, rtp (ASSRC, 7, 960, TRUE, 200, 0));
  gst_harness_push (ha, rtp (ASSRC, 8, 1920, TRUE, 200, 0));
  for (guint i = 0; i < 5; i++) {
    GstBuffer *b = pull_one (hv);
    read_rtp (b, &ssrc[i], NULL, &ts[i]);
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (ssrc[0], ASSRC);
  fail_unless_equals_int (ssrc[1], ASSRC);
  fail_unless_equals_int (ts[0], 960);
  for (guint i = 2; i < 5; i++) {
    fail_unless_equals_int (ssrc[i], VSSRC);
    fail_unless_equals_int (ts[i], 3000 * (i - 1));
  }
  fail_unless_equals_uint64 (stat (hv, "sent-priority-4"), 2);
  fail_unless_equals_uint64 (stat (hv, "sent-priority-2"), 4);

  /* video forced above audio */
  pad = gst_element_get_static_pad (hv->element, "sink_0");
  g_object_set (pad, "priority", 6, NULL);
  g_object_get (pad, "priority", &prio, NULL);
  fail_unless_equals_int (prio, 6);
  gst_object_unref (pad);
  set_time (hv, 100 * MS);
  warm_up (hv, 104);
  gst_harness_push (ha, rtp (ASSRC, 9, 2880, TRUE, 200, 100 * MS));
  gst_harness_push (hv, rtp (VSSRC, 105, 20000, TRUE, 1000, 100 * MS));
  {
    GstBuffer *b = pull_one (hv);
    read_rtp (b, &ssrc[0], NULL, NULL);
    gst_buffer_unref (b);
    fail_unless_equals_int (ssrc[0], VSSRC);
    gst_buffer_unref (pull_one (hv));
  }

  gst_harness_teardown (ha);
  gst_harness_teardown (hv);
}

GST_END_TEST;

/* deadline: frames that cannot make the budget are dropped whole at
 * transmission time, counted by reason and priority, and the output
 * sequence numbers have no hole for them. */
GST_START_TEST (test_deadline_drops_with_stats)
{
  GstHarness *hv;
  GstBuffer *b;
  guint16 seq;
  guint32 ts;

  setup ("deadline", &hv, NULL);
  warm_up (hv, 100);
  /* three frames captured at 0 (two of them two packets), one at 150 ms */
  gst_harness_push (hv, rtp (VSSRC, 101, 3000, FALSE, 1000, 0));
  gst_harness_push (hv, rtp (VSSRC, 102, 3000, TRUE, 1000, 0));
  gst_harness_push (hv, rtp (VSSRC, 103, 6000, FALSE, 1000, 0));
  gst_harness_push (hv, rtp (VSSRC, 104, 6000, TRUE, 1000, 0));
  gst_harness_push (hv, rtp (VSSRC, 105, 9000, TRUE, 1000, 0));
  /* (a timestamp ahead of the clock would count from its arrival) */
  set_time (hv, 150 * MS);
  gst_harness_push (hv, rtp (VSSRC, 106, 13500, TRUE, 1000, 150 * MS));
  /* at 170 ms: 170 + RTT/2 40 + L/X >= 200 for the old ones; the new one
   * has 20 + 40 + 10 = 70 ms */
  set_time (hv, 170 * MS);
  b = pull_one (hv);
  read_rtp (b, NULL, &seq, &ts);
  gst_buffer_unref (b);
  fail_unless_equals_int (ts, 13500);
  fail_unless_equals_int (seq, 101);    /* renumbered: 100, 101 */
  fail_unless_equals_uint64 (stat (hv, "dropped-late"), 5);
  fail_unless_equals_uint64 (stat (hv, "dropped-frames"), 3);
  fail_unless_equals_uint64 (stat (hv, "dropped-priority-2"), 5);
  fail_unless_equals_uint64 (stat (hv, "sent-packets"), 2);
  fail_unless_equals_uint64 (stat (hv, "renumbered-packets"), 1);
  fail_unless_equals_uint64 (stat (hv, "rtt"), 80 * MS);
  fail_unless_equals_uint64 (stat (hv, "drain-rate"), 800000);
  fail_unless (stat (hv, "age-max-priority-2") <= 20 * MS);
  /* playout-delay takes effect while playing: 60 ms less of the budget
   * for the next frame is 6000 bytes less at 800 kbit/s */
  {
    gint64 before, after;
    GstStructure *s;

    g_object_get (hv->element, "stats", &s, NULL);
    fail_unless (gst_structure_get_int64 (s, "max-frame-bytes", &before));
    gst_structure_free (s);
    g_object_set (hv->element, "playout-delay", 60, NULL);
    g_object_get (hv->element, "stats", &s, NULL);
    fail_unless (gst_structure_get_int64 (s, "max-frame-bytes", &after));
    gst_structure_free (s);
    fail_unless (before > 6000, "%" G_GINT64_FORMAT, before);
    fail_unless_equals_int64 (before - after, 6000);
  }
  gst_harness_teardown (hv);
}

GST_END_TEST;

/* A frame whose first packet went out is finished even when expired; a
 * frame expired before its first packet is dropped whole, including its
 * packets that arrive afterwards. The output never has a partial frame. */
GST_START_TEST (test_no_frame_split)
{
  GstHarness *hv;
  guint16 seq[4];
  guint32 ts[4];

  setup ("sfdps1", &hv, NULL);
  warm_up (hv, 100);
  for (guint i = 0; i < 3; i++)
    gst_harness_push (hv, rtp (VSSRC, 101 + i, 3000, i == 2, 1000, 0));
  /* at 150 ms: expiry 200 >= 150 + 40: the first packet goes */
  set_time (hv, 150 * MS);
  {
    GstBuffer *b = pull_one (hv);
    gst_buffer_unref (b);
  }
  /* way past the expiry: the rest of the started frame still goes */
  set_time (hv, 600 * MS);
  for (guint i = 0; i < 2; i++) {
    GstBuffer *b = pull_one (hv);
    read_rtp (b, NULL, &seq[i], &ts[i]);
    gst_buffer_unref (b);
    fail_unless_equals_int (ts[i], 3000);
  }
  fail_unless_equals_uint64 (stat (hv, "dropped-packets"), 0);

  /* an expired frame, its end not yet arrived: dropped, and its end too */
  gst_harness_push (hv, rtp (VSSRC, 104, 6000, FALSE, 1000, 100 * MS));
  gst_harness_push (hv, rtp (VSSRC, 105, 6000, FALSE, 1000, 100 * MS));
  wait_stat (hv, "dropped-expired", 2);
  gst_harness_push (hv, rtp (VSSRC, 106, 6000, TRUE, 1000, 100 * MS));
  fail_unless_equals_uint64 (stat (hv, "dropped-frame"), 1);
  /* the next frame is whole and numbered on */
  gst_harness_push (hv, rtp (VSSRC, 107, 9000, TRUE, 1000, 600 * MS));
  {
    GstBuffer *b = pull_one (hv);
    read_rtp (b, NULL, &seq[2], &ts[2]);
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (ts[2], 9000);
  fail_unless_equals_int (seq[0], 102);
  fail_unless_equals_int (seq[1], 103);
  fail_unless_equals_int (seq[2], 104);
  fail_unless_equals_int (gst_harness_buffers_in_queue (hv), 0);
  gst_harness_teardown (hv);
}

GST_END_TEST;

/* The target event is learned and forwarded upstream on every sink pad;
 * non-RTP input is counted and dropped; EOS goes out once all pads are at
 * EOS and the queue is empty. */
GST_START_TEST (test_events_and_bad_input)
{
  GstHarness *hv, *ha;
  GstEvent *ev;
  guint n_up = 0;

  setup ("ring-sfdps2", &hv, &ha);
  send_target (hv, 30 * MS, 2000000);
  while ((ev = gst_harness_try_pull_upstream_event (hv))) {
    n_up += gst_event_has_name (ev, "rtpcc-target");
    gst_event_unref (ev);
  }
  while ((ev = gst_harness_try_pull_upstream_event (ha))) {
    n_up += gst_event_has_name (ev, "rtpcc-target");
    gst_event_unref (ev);
  }
  fail_unless_equals_int (n_up, 2);
  fail_unless_equals_uint64 (stat (hv, "target-events"), 1);
  fail_unless_equals_uint64 (stat (hv, "rtt"), 30 * MS);
  fail_unless_equals_uint64 (stat (hv, "drain-rate"), 2000000);
  /* with FEC (or probing) in the target, media drains at the media pacing
   * rate the sender publishes, not at the whole pacing rate */
  {
    GstStructure *s = gst_structure_new ("rtpcc-target",
        "target-bitrate", G_TYPE_UINT64, (guint64) 1000000,
        "media-bitrate", G_TYPE_UINT64, (guint64) 800000,
        "fec-bitrate", G_TYPE_UINT64, (guint64) 200000,
        "pacing-rate", G_TYPE_UINT64, (guint64) 1500000,
        "media-pacing-rate", G_TYPE_UINT64, (guint64) 1200000,
        "rtt", G_TYPE_UINT64, (guint64) (30 * MS), NULL);
    fail_unless (gst_harness_push_upstream_event (hv,
            gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s)));
    fail_unless_equals_uint64 (stat (hv, "drain-rate"), 1200000);
    send_target (hv, 30 * MS, 2000000);
  }

  gst_harness_push (hv, gst_buffer_new_wrapped (g_strdup ("xy"), 2));
  fail_unless_equals_uint64 (stat (hv, "invalid-packets"), 1);

  /* stats on the bus (stats-interval, default 1 s: the first at once) */
  {
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    guint64 sent = 0;

    gst_element_set_bus (hv->element, bus);
    gst_harness_push (ha, rtp (ASSRC, 1, 960, TRUE, 200, 0));
    gst_buffer_unref (pull_one (hv));
    msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
        GST_MESSAGE_ELEMENT);
    fail_unless (msg != NULL);
    fail_unless (gst_message_has_name (msg, "application/x-sendbuffer-stats"));
    fail_unless (gst_structure_get_uint64 (gst_message_get_structure (msg),
            "sent-packets", &sent));
    fail_unless_equals_uint64 (sent, 1);
    gst_message_unref (msg);
    gst_element_set_bus (hv->element, NULL);
    gst_object_unref (bus);
  }
  fail_unless (gst_harness_push_event (hv, gst_event_new_eos ()));
  /* one pad still running: no EOS yet */
  g_usleep (20000);
  while ((ev = gst_harness_try_pull_event (hv))) {
    fail_if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS);
    gst_event_unref (ev);
  }
  fail_unless (gst_harness_push_event (ha, gst_event_new_eos ()));
  for (guint i = 0; i < 5000; i++) {
    ev = gst_harness_try_pull_event (hv);
    if (ev && GST_EVENT_TYPE (ev) == GST_EVENT_EOS) {
      gst_event_unref (ev);
      break;
    }
    if (ev)
      gst_event_unref (ev);
    else
      g_usleep (1000);
    fail_if (i == 4999, "no EOS");
  }
  gst_harness_teardown (ha);
  gst_harness_teardown (hv);
}

GST_END_TEST;

/* The room's sticky event downstream, in ms (-1 = none, -2 = no event) */
static gint64
told_room (GstHarness * h)
{
  GstEvent *ev = gst_pad_get_sticky_event (h->sinkpad,
      GST_EVENT_CUSTOM_DOWNSTREAM_STICKY, 0);
  guint64 room = 0;
  gint64 ms = -2;

  if (ev && gst_event_has_name (ev, "rtpcc-frame-room")
      && gst_structure_get_uint64 (gst_event_get_structure (ev), "room",
          &room))
    ms = room == GST_CLOCK_TIME_NONE ? -1 : (gint64) (room / MS);
  if (ev)
    gst_event_unref (ev);
  return ms;
}

/* UltraGrid's Eq. 6.3 for the encoder: the time a frame may wait goes
 * downstream before the packet that follows a change of a quarter. */
GST_START_TEST (test_frame_room_event)
{
  GstHarness *hv;

  setup ("deadline", &hv, NULL);
  g_object_set (hv->element, "budget", 200, "playout-delay", 20, NULL);
  warm_up (hv, 0);
  /* 200 − 80/2 − 20 */
  fail_unless_equals_int64 (told_room (hv), 140);
  /* 200 − 60 − 20 = 120: within a quarter, not told */
  send_target (hv, 120 * MS, 800000);
  gst_harness_push (hv, rtp (VSSRC, 1, 3000, TRUE, 1000, 0));
  gst_buffer_unref (pull_one (hv));
  fail_unless_equals_int64 (told_room (hv), 140);
  /* 200 − 150 − 20 = 30 */
  send_target (hv, 300 * MS, 800000);
  gst_harness_push (hv, rtp (VSSRC, 2, 6000, TRUE, 1000, 0));
  gst_buffer_unref (pull_one (hv));
  fail_unless_equals_int64 (told_room (hv), 30);
  /* no budget in fifo: none */
  g_object_set (hv->element, "policy", 0, NULL);
  gst_harness_push (hv, rtp (VSSRC, 3, 9000, TRUE, 1000, 0));
  gst_buffer_unref (pull_one (hv));
  fail_unless_equals_int64 (told_room (hv), -1);
  gst_harness_teardown (hv);
}

GST_END_TEST;

/* ... and reaches a real x264enc through rtpccsink (or mprtpsched, or
 * rtpccbwe as in an rtpbin): its VBV becomes the room (60 ms), below the
 * sink's own encoder-buffer (max-pacing-delay, 100 ms); with fifo it stays
 * at the sink's. @tail: the elements after the sendbuffer, of which the
 * one named "s" drove the encoder. */
static guint
vbv_behind_sendbuffer (const gchar * policy, const gchar * tail)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=30 "
      "! video/x-raw,width=160,height=120,framerate=30/1 "
      "! x264enc name=e tune=zerolatency ! rtph264pay "
      "! sendbuffer policy=%s budget=100 playout-delay=40 ! %s", policy,
      tail);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *enc, *driver;
  GstMessage *msg;
  GstStructure *st;
  guint vbv = 0, applied = 0;

  fail_unless (pipe != NULL);
  g_free (desc);
  enc = gst_bin_get_by_name (GST_BIN (pipe), "e");
  driver = gst_bin_get_by_name (GST_BIN (pipe), "s");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_object_get (enc, "vbv-buf-capacity", &vbv, NULL);
  /* whoever drove the encoder says what it applied */
  g_object_get (driver, "stats", &st, NULL);
  fail_unless (gst_structure_get_uint (st, "encoder-buffer", &applied));
  fail_unless_equals_int (applied, vbv);
  gst_structure_free (st);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (enc);
  gst_object_unref (driver);
  gst_object_unref (pipe);
  return vbv;
}

#define TO_SINK "rtpccsink name=s host=127.0.0.1 port=9 controller=fixed"
#define TO_MPRTP "mprtpsched name=s s.src_0 ! rtpccsink host=127.0.0.1 " \
    "port=9 controller=fixed"
#define TO_BWE "rtpccbwe name=s controller=fixed encoder-buffer=100 ! fakesink"

GST_START_TEST (test_frame_room_to_encoder)
{
  GstElementFactory *f = gst_element_factory_find ("x264enc");

  /* x264enc comes with ./run's packages */
  fail_unless (f != NULL, "x264enc is missing");
  gst_object_unref (f);
  fail_unless_equals_int (vbv_behind_sendbuffer ("deadline", TO_SINK), 60);
  fail_unless_equals_int (vbv_behind_sendbuffer ("fifo", TO_SINK), 100);
  /* mprtpsched drives the encoder when the sendbuffer is before it */
  fail_unless_equals_int (vbv_behind_sendbuffer ("deadline", TO_MPRTP), 60);
  /* rtpccbwe (rtpbin's aux sender) takes the room too, when it sets the
   * encoder's buffer at all (its encoder-buffer defaults to 0, leave it) */
  fail_unless_equals_int (vbv_behind_sendbuffer ("deadline", TO_BWE), 60);
  fail_unless_equals_int (vbv_behind_sendbuffer ("fifo", TO_BWE), 100);
}

GST_END_TEST;

/* Ring overflow in the element: the oldest video frame makes room for
 * audio. */
GST_START_TEST (test_ring_overflow_element)
{
  GstHarness *hv, *ha;
  guint32 ssrc[3];

  setup ("ring", &hv, &ha);
  g_object_set (hv->element, "max-packets", 3, NULL);
  warm_up (hv, 100);
  gst_harness_push (hv, rtp (VSSRC, 101, 3000, TRUE, 1000, 0));
  gst_harness_push (hv, rtp (VSSRC, 102, 6000, TRUE, 1000, 0));
  gst_harness_push (ha, rtp (ASSRC, 1, 960, TRUE, 200, 0));
  gst_harness_push (ha, rtp (ASSRC, 2, 1920, TRUE, 200, 0));
  fail_unless_equals_uint64 (stat (hv, "dropped-overflow"), 1);
  for (guint i = 0; i < 3; i++) {
    GstBuffer *b = pull_one (hv);
    read_rtp (b, &ssrc[i], NULL, NULL);
    gst_buffer_unref (b);
  }
  /* ring is arrival order: the surviving video first */
  fail_unless_equals_int (ssrc[0], VSSRC);
  fail_unless_equals_int (ssrc[1], ASSRC);
  fail_unless_equals_int (ssrc[2], ASSRC);
  gst_harness_teardown (ha);
  gst_harness_teardown (hv);
}

GST_END_TEST;

typedef struct
{
  GstHarness *h;
  GstBuffer *buf;
  gint done;
} PushJob;

static gpointer
push_thread (gpointer data)
{
  PushJob *job = data;
  gst_harness_push (job->h, job->buf);
  g_atomic_int_set (&job->done, 1);
  return NULL;
}

/* block=true: a full queue holds upstream until a packet leaves, and
 * nothing is dropped. */
GST_START_TEST (test_block_when_full)
{
  GstHarness *hv;
  PushJob job;
  GThread *t;

  setup ("fifo", &hv, NULL);
  g_object_set (hv->element, "block", TRUE, "max-packets", 2, NULL);
  warm_up (hv, 100);
  gst_harness_push (hv, rtp (VSSRC, 101, 3000, TRUE, 1000, 0));
  gst_harness_push (hv, rtp (VSSRC, 102, 6000, TRUE, 1000, 0));
  job.h = hv;
  job.buf = rtp (VSSRC, 103, 9000, TRUE, 1000, 0);
  job.done = 0;
  t = g_thread_new ("push", push_thread, &job);
  g_usleep (50000);
  fail_if (g_atomic_int_get (&job.done), "push did not block");
  gst_buffer_unref (pull_one (hv));     /* one leaves: room */
  g_thread_join (t);
  fail_unless (g_atomic_int_get (&job.done));
  gst_buffer_unref (pull_one (hv));
  gst_buffer_unref (pull_one (hv));
  fail_unless_equals_uint64 (stat (hv, "dropped-packets"), 0);
  fail_unless_equals_uint64 (stat (hv, "sent-packets"), 4);
  gst_harness_teardown (hv);
}

GST_END_TEST;

/* A flush empties the queue (counted), and data flows again after it. */
GST_START_TEST (test_flush)
{
  GstHarness *hv;
  GstEvent *ev;
  gboolean got_stop = FALSE;

  setup ("ring-sfdps2", &hv, NULL);
  warm_up (hv, 100);
  for (guint i = 0; i < 3; i++)
    gst_harness_push (hv, rtp (VSSRC, 101 + i, 3000 * (i + 1), TRUE, 1000,
            0));
  fail_unless (gst_harness_push_event (hv, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (hv, gst_event_new_flush_stop (TRUE)));
  fail_unless_equals_uint64 (stat (hv, "dropped-flush"), 3);
  fail_unless_equals_uint64 (stat (hv, "queued-packets"), 0);
  while ((ev = gst_harness_try_pull_event (hv))) {
    got_stop = got_stop || GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_STOP;
    gst_event_unref (ev);
  }
  fail_unless (got_stop);
  {
    GstSegment seg;
    guint32 ts;
    GstBuffer *b;

    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (hv, gst_event_new_segment (&seg)));
    gst_harness_push (hv, rtp (VSSRC, 104, 12000, TRUE, 1000, 0));
    b = pull_one (hv);
    read_rtp (b, NULL, NULL, &ts);
    gst_buffer_unref (b);
    fail_unless_equals_int (ts, 12000);
  }
  gst_harness_teardown (hv);
}

GST_END_TEST;

static Suite *
sendbuffer_suite (void)
{
  Suite *s = suite_create ("sendbuffer");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_priorities_across_pads);
  tcase_add_test (tc, test_deadline_drops_with_stats);
  tcase_add_test (tc, test_no_frame_split);
  tcase_add_test (tc, test_events_and_bad_input);
  tcase_add_test (tc, test_ring_overflow_element);
  tcase_add_test (tc, test_frame_room_event);
  tcase_add_test (tc, test_frame_room_to_encoder);
  tcase_add_test (tc, test_block_when_full);
  tcase_add_test (tc, test_flush);
  return s;
}

GST_CHECK_MAIN (sendbuffer);

/* Real-time pipeline tests for multipath RTP: a live H.264 call split by
 * mprtpsched over two rtpccsink paths, each through its own linkemu relay
 * (both directions) with its own capacity and delay, received by one
 * rtpccsrc per path and merged by playoutbuffer.
 *
 *   videotestsrc ! x264enc ! rtph264pay ! mprtpsched
 *        src_0 ! rtpccsink ──▶ relay 0 (linkemu) ──▶ rtpccsrc ! pb.sink_0
 *        src_1 ! rtpccsink ──▶ relay 1 (linkemu) ──▶ rtpccsrc ! pb.sink_1
 *   playoutbuffer name=pb ! rtph264depay ! avdec_h264 ! fakesink
 *
 * Tolerant by design (2-core loaded CI machines): the checks are about
 * behaviour (both paths carry media, the aggregate is above one path's
 * capacity, a dead path is drained), not tight timing.
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

#define SAMPLE_MS 250

/* decoded frames and the longest gap between two of them after @gap_from */
typedef struct
{
  GMutex lock;
  gint64 start;
  gint64 gap_from;              /* us after start */
  gint64 last;
  gint64 max_gap;               /* us */
  gdouble max_gap_at;           /* s after start, where it ended */
  guint64 frames;
} Frames;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  Frames *f = data;
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&f->lock);
  f->frames++;
  if (f->start > 0 && f->last > 0 && now - f->start >= f->gap_from
      && now - f->last > f->max_gap) {
    f->max_gap = now - f->last;
    f->max_gap_at = (gdouble) (now - f->start) / G_USEC_PER_SEC;
  }
  f->last = now;
  g_mutex_unlock (&f->lock);
}

typedef struct
{
  GstElement *tx, *rx, *relay[2];
  GstElement *sched, *sink[2], *src[2], *enc, *pb, *vsink;
  GSocket *sock_a[2], *sock_b[2];
  Frames frames;
  gint64 start;
} Call;

static GstElement *
relay_new (guint i, guint rate_kbps, guint delay_ms, guint fwd_port,
    guint rev_port, GSocket * sock_a, GSocket * sock_b)
{
  gchar *desc = g_strdup_printf ("udpsrc name=fsrc close-socket=false "
      "buffer-size=4194304 ! linkemu name=fwd rate=%u delay=%u queue-ms=200 "
      "seed=%u ! udpsink name=fsink host=127.0.0.1 port=%u sync=false "
      "async=false close-socket=false "
      "udpsrc name=rsrc close-socket=false ! linkemu name=rev delay=%u "
      "seed=%u ! udpsink name=rsink host=127.0.0.1 port=%u sync=false "
      "async=false close-socket=false", rate_kbps, delay_ms, i + 1,
      fwd_port, delay_ms, i + 11, rev_port);
  GstElement *relay = rt_parse (desc, FALSE);

  g_free (desc);
  rt_relay_set_sockets (relay, sock_a, sock_b);
  return relay;
}

/* Two paths of @rate_kbps / @delay_ms each; x264enc key frames every
 * @key_int frames. The receiver's paths go to the request pads of the
 * element named @rx_join, which @rx_merge (up to the depayloader) has,
 * with a playoutbuffer named pb in it; @tx_pre goes between the payloader
 * and mprtpsched (ending in "!"), @sched_props for mprtpsched,
 * @sink_props for both rtpccsinks (controller and its rates), @src_props
 * for both rtpccsrcs. */
static void
call_start_full (Call * c, const guint rate_kbps[2], const guint delay_ms[2],
    guint key_int, const gchar * rx_join, const gchar * rx_merge,
    const gchar * tx_pre, const gchar * sched_props, const gchar * path_pre,
    const gchar * sink_props, const gchar * src_props)
{
  guint16 port_a[2];
  gint rx_port[2], tx_port[2];
  gchar *desc;

  memset (c, 0, sizeof *c);
  g_mutex_init (&c->frames.lock);
  c->frames.gap_from = 3 * G_USEC_PER_SEC;
  for (guint i = 0; i < 2; i++) {
    guint16 port_b;
    c->sock_a[i] = rt_udp_socket_new (&port_a[i]);
    c->sock_b[i] = rt_udp_socket_new (&port_b);
  }

  desc = g_strdup_printf ("rtpccsrc name=rx0 address=127.0.0.1 port=0 %s "
      "caps=\"application/x-rtp,media=(string)video,clock-rate=(int)90000,"
      "encoding-name=(string)H264,payload=(int)96\" ! %s.sink_0 "
      "rtpccsrc name=rx1 address=127.0.0.1 port=0 %s "
      "caps=\"application/x-rtp,media=(string)video,clock-rate=(int)90000,"
      "encoding-name=(string)H264,payload=(int)96\" ! %s.sink_1 "
      "%s ! rtph264depay ! avdec_h264 ! "
      "fakesink name=vsink sync=false signal-handoffs=true", src_props,
      rx_join, src_props, rx_join, rx_merge);
  c->rx = rt_parse (desc, FALSE);
  g_free (desc);
  c->vsink = gst_bin_get_by_name (GST_BIN (c->rx), "vsink");
  c->pb = gst_bin_get_by_name (GST_BIN (c->rx), "pb");
  g_signal_connect (c->vsink, "handoff", G_CALLBACK (on_handoff),
      &c->frames);
  fail_unless (gst_element_set_state (c->rx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < 2; i++) {
    gchar name[8];
    g_snprintf (name, sizeof name, "rx%u", i);
    c->src[i] = gst_bin_get_by_name (GST_BIN (c->rx), name);
    g_object_get (c->src[i], "bound-port", &rx_port[i], NULL);
    fail_unless (rx_port[i] > 0);
  }

  desc = g_strdup_printf ("videotestsrc is-live=true pattern=smpte "
      "horizontal-speed=4 ! video/x-raw,width=640,height=360,framerate=30/1 "
      "! x264enc name=enc tune=zerolatency speed-preset=ultrafast "
      "key-int-max=%u bitrate=600 ! rtph264pay pt=96 config-interval=-1 ! "
      "%s mprtpsched name=m %s "
      "m.src_0 ! %s rtpccsink name=s0 %s host=127.0.0.1 port=%u "
      "m.src_1 ! %s rtpccsink name=s1 %s host=127.0.0.1 port=%u",
      key_int, tx_pre, sched_props, path_pre, sink_props, port_a[0],
      path_pre, sink_props, port_a[1]);
  c->tx = rt_parse (desc, FALSE);
  g_free (desc);
  fail_unless_equals_int (gst_element_set_state (c->tx, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  c->sched = gst_bin_get_by_name (GST_BIN (c->tx), "m");
  c->enc = gst_bin_get_by_name (GST_BIN (c->tx), "enc");
  for (guint i = 0; i < 2; i++) {
    gchar name[8];
    g_snprintf (name, sizeof name, "s%u", i);
    c->sink[i] = gst_bin_get_by_name (GST_BIN (c->tx), name);
    g_object_get (c->sink[i], "bound-port", &tx_port[i], NULL);
    fail_unless (tx_port[i] > 0);
    c->relay[i] = relay_new (i, rate_kbps[i], delay_ms[i], rx_port[i],
        tx_port[i], c->sock_a[i], c->sock_b[i]);
  }
  fail_unless (gst_element_set_state (c->relay[0], GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (c->relay[1], GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  c->start = g_get_monotonic_time ();
  g_mutex_lock (&c->frames.lock);
  c->frames.start = c->start;
  g_mutex_unlock (&c->frames.lock);
  fail_unless (gst_element_set_state (c->tx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
}

static void
call_start_with (Call * c, const guint rate_kbps[2], const guint delay_ms[2],
    guint key_int, const gchar * rx_join, const gchar * rx_merge,
    const gchar * tx_pre, const gchar * sched_props, const gchar * path_pre,
    const gchar * sink_props)
{
  call_start_full (c, rate_kbps, delay_ms, key_int, rx_join, rx_merge, tx_pre,
      sched_props, path_pre, sink_props, "");
}

static void
call_start (Call * c, const guint rate_kbps[2], const guint delay_ms[2],
    guint key_int)
{
  call_start_with (c, rate_kbps, delay_ms, key_int, "pb",
      "playoutbuffer name=pb max-delay=400", "", "", "",
      "controller=gcc min-bitrate=150000 max-bitrate=3000000 "
      "start-bitrate=400000");
}

static gboolean
call_sample (Call * c, gdouble run_s, gdouble * t)
{
  gdouble now = (gdouble) (g_get_monotonic_time () - c->start) /
      G_USEC_PER_SEC;

  if (now >= run_s)
    return FALSE;
  g_usleep (SAMPLE_MS * 1000);
  rt_check_no_error (c->tx, "sender");
  rt_check_no_error (c->rx, "receiver");
  rt_check_no_error (c->relay[0], "relay 0");
  rt_check_no_error (c->relay[1], "relay 1");
  *t = (gdouble) (g_get_monotonic_time () - c->start) / G_USEC_PER_SEC;
  return TRUE;
}

static void
call_stop (Call * c)
{
  fail_unless_equals_int (gst_element_set_state (c->tx, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  for (guint i = 0; i < 2; i++)
    fail_unless_equals_int (gst_element_set_state (c->relay[i],
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (c->rx, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  for (guint i = 0; i < 2; i++) {
    gst_object_unref (c->sink[i]);
    gst_object_unref (c->src[i]);
    gst_object_unref (c->relay[i]);
    g_object_unref (c->sock_a[i]);
    g_object_unref (c->sock_b[i]);
  }
  gst_object_unref (c->sched);
  gst_object_unref (c->enc);
  gst_object_unref (c->pb);
  gst_object_unref (c->vsink);
  gst_object_unref (c->tx);
  gst_object_unref (c->rx);
  g_mutex_clear (&c->frames.lock);
}

/* Packets mprtpsched gave path @i (media, not duplicates), and its state. */
static guint64
path_stat (GstElement * sched, guint i, const gchar * field, gchar ** state)
{
  GstStructure *s = NULL, *ps;
  const GValue *list, *v;
  guint64 n = 0;
  guint u = 0;

  g_object_get (sched, "stats", &s, NULL);
  list = gst_structure_get_value (s, "path-stats");
  fail_unless (list && gst_value_list_get_size (list) == 2);
  v = gst_value_list_get_value (list, i);
  ps = (GstStructure *) gst_value_get_structure (v);
  if (!gst_structure_get_uint64 (ps, field, &n) && gst_structure_get_uint (ps,
          field, &u))
    n = u;
  if (state)
    *state = g_strdup (gst_structure_get_string (ps, "state"));
  gst_structure_free (s);
  return n;
}

/* a clock time in ms, -1 for none */
static gdouble
rt_ms_or_none (guint64 t)
{
  return t == GST_CLOCK_TIME_NONE ? -1.0 : (gdouble) t / 1e6;
}

#define CAP0 700
#define CAP1 1200

GST_START_TEST (test_two_paths)
{
  const guint rate[2] = { CAP0, CAP1 }, delay[2] = { 20, 50 };
  const gdouble run_s = 14.0;
  Call c;
  gdouble t;
  guint64 agg_max = 0, agg_late_sum = 0, n_late = 0;
  GString *series = g_string_new (NULL);
  guint64 sent[2], mp[2], frames;

  call_start (&c, rate, delay, 60);
  while (call_sample (&c, run_s, &t)) {
    guint64 agg = 0, target[2];
    guint enc_kbps = 0;
    g_object_get (c.sched, "target-bitrate", &agg, NULL);
    g_object_get (c.enc, "bitrate", &enc_kbps, NULL);
    for (guint i = 0; i < 2; i++) {
      guint tb = 0;
      g_object_get (c.sink[i], "target-bitrate", &tb, NULL);
      target[i] = tb;
    }
    g_string_append_printf (series, "  t=%5.2f s  aggregate %5" G_GUINT64_FORMAT
        " kbit/s  path0 %5" G_GUINT64_FORMAT " path1 %5" G_GUINT64_FORMAT
        " kbit/s  x264enc %4u  packets %" G_GUINT64_FORMAT " / %"
        G_GUINT64_FORMAT "\n", t, agg / 1000, target[0] / 1000,
        target[1] / 1000, enc_kbps, path_stat (c.sched, 0, "packets", NULL),
        path_stat (c.sched, 1, "packets", NULL));
    agg_max = MAX (agg_max, agg);
    if (t >= run_s / 2) {
      agg_late_sum += agg;
      n_late++;
    }
  }
  g_mutex_lock (&c.frames.lock);
  frames = c.frames.frames;
  g_mutex_unlock (&c.frames.lock);
  for (guint i = 0; i < 2; i++) {
    sent[i] = rt_stat_u64 (c.sink[i], "packets-sent");
    mp[i] = rt_stat_u64 (c.src[i], "mprtp-packets");
  }
  g_print ("mprtp two paths (%u and %u kbit/s, %u and %u ms):\n%s",
      rate[0], rate[1], delay[0], delay[1], series->str);
  g_print ("  sent %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
      ", received as subflows %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
      ", rtcp %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
      ", rx lost %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
      ", frames %" G_GUINT64_FORMAT ", aggregate max %" G_GUINT64_FORMAT
      ", mean over the second half %" G_GUINT64_FORMAT ", encoder updates %"
      G_GUINT64_FORMAT ", sinks' %" G_GUINT64_FORMAT "+%" G_GUINT64_FORMAT
      "\n", sent[0], sent[1], mp[0], mp[1],
      rt_stat_u64 (c.sink[0], "rtcp-received"),
      rt_stat_u64 (c.sink[1], "rtcp-received"),
      rt_stat_u64 (c.src[0], "packets-lost"),
      rt_stat_u64 (c.src[1], "packets-lost"), frames, agg_max,
      n_late ? agg_late_sum / n_late : 0,
      rt_stat_u64 (c.sched, "encoder-updates"),
      rt_stat_u64 (c.sink[0], "encoder-updates"),
      rt_stat_u64 (c.sink[1], "encoder-updates"));

  /* both paths carry media, and arrive as subflows of their own */
  for (guint i = 0; i < 2; i++) {
    fail_unless (sent[i] > 500, "path %u sent only %" G_GUINT64_FORMAT, i,
        sent[i]);
    fail_unless (mp[i] > 400, "path %u: %" G_GUINT64_FORMAT " subflow "
        "packets received", i, mp[i]);
    fail_unless (rt_stat_u64 (c.sink[i], "rtcp-received") > 10);
    /* each receiver counts its path on the subflow seq: the other path's
     * share of the media seqs is no loss (on the media seq it would read
     * as a third to two thirds lost) */
    fail_unless (rt_stat_u64 (c.src[i], "packets-lost") * 10 < mp[i],
        "path %u: %" G_GUINT64_FORMAT " lost of %" G_GUINT64_FORMAT, i,
        rt_stat_u64 (c.src[i], "packets-lost"), mp[i]);
    fail_unless_equals_uint64 (rt_stat_u64 (c.sink[i], "mprtp-missing"), 0);
    /* each path's receiver reports it by subflow (MPRTCP, one per RR,
     * about 1 s apart) and that path's sender takes the reports */
    fail_unless (rt_stat_u64 (c.src[i], "mprtcp-sent") >= 5,
        "path %u: %" G_GUINT64_FORMAT " subflow reports sent", i,
        rt_stat_u64 (c.src[i], "mprtcp-sent"));
    fail_unless (rt_stat_u64 (c.sink[i], "mprtcp-received") >= 5,
        "path %u: %" G_GUINT64_FORMAT " subflow reports received", i,
        rt_stat_u64 (c.sink[i], "mprtcp-received"));
    fail_unless_equals_uint64 (rt_stat_u64 (c.sink[i], "mprtcp-rejected"), 0);
    /* the sinks leave the encoder to mprtpsched */
    fail_unless_equals_uint64 (rt_stat_u64 (c.sink[i], "encoder-updates"), 0);
  }
  fail_unless (rt_stat_u64 (c.sched, "encoder-updates") >= 1);
  /* video is decoded from the merged stream */
  fail_unless (frames > 30 * (run_s - 4), "%" G_GUINT64_FORMAT " frames",
      frames);
  /* the aggregate is more than the larger path could carry alone */
  fail_unless (n_late > 0 && agg_late_sum / n_late > CAP1 * 1000,
      "aggregate over the second half %" G_GUINT64_FORMAT " bit/s",
      n_late ? agg_late_sum / n_late : 0);

  call_stop (&c);
  g_string_free (series, TRUE);
}

GST_END_TEST;

/* @relay's links in both directions lose @loss of the packets */
static void
set_loss (GstElement * relay, gdouble loss)
{
  const gchar *names[2] = { "fwd", "rev" };

  for (guint i = 0; i < 2; i++) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (relay), names[i]);
    g_object_set (e, "loss", loss, NULL);
    gst_object_unref (e);
  }
}

#define FAIL_AT_S 7.0
#define RESTORE_AT_S 11.0

GST_START_TEST (test_path_failure)
{
  const guint rate[2] = { 1500, 1500 }, delay[2] = { 20, 20 };
  const gdouble run_s = 17.0;
  Call c;
  gdouble t;
  gboolean failed = FALSE, restored = FALSE;
  guint64 p1_at_restore = 0, p0_at_restore = 0;
  gchar *state_dead = NULL;
  guint64 p1_at_fail = 0, p1_soon = 0, p0_at_fail = 0, p0_soon = 0;
  guint64 frames_after = 0;
  gchar *state = NULL;
  GString *series = g_string_new (NULL);
  gint64 max_gap;
  gdouble max_gap_at;
  GstClockTime loss_began = GST_CLOCK_TIME_NONE;
  guint64 failed_at = G_MAXUINT64, srtt = G_MAXUINT64;
  guint64 fb_interval = G_MAXUINT64, last_bytes = 0;

  call_start (&c, rate, delay, 15);
  while (call_sample (&c, run_s, &t)) {
    guint64 p0 = path_stat (c.sched, 0, "packets", NULL);
    guint64 p1 = path_stat (c.sched, 1, "packets", &state);
    guint64 agg = 0, bytes = path_stat (c.sched, 0, "bytes", NULL) +
        path_stat (c.sched, 1, "bytes", NULL);
    GstElement *fwd0 = gst_bin_get_by_name (GST_BIN (c.relay[0]), "fwd");
    g_object_get (c.sched, "target-bitrate", &agg, NULL);
    g_string_append_printf (series, "  t=%5.2f s  aggregate %5" G_GUINT64_FORMAT
        " kbit/s  sent %5" G_GUINT64_FORMAT " kbit/s  packets %"
        G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " path1 %s  path0 link "
        "drops %" G_GUINT64_FORMAT "  playout skipped %" G_GUINT64_FORMAT
        "  frames %" G_GUINT64_FORMAT "\n", t, agg / 1000,
        (bytes - last_bytes) * 8 / SAMPLE_MS, p0, p1, state,
        rt_stat_u64 (fwd0, "queue-drops"), rt_stat_u64 (c.pb, "skipped"),
        c.frames.frames);
    last_bytes = bytes;
    gst_object_unref (fwd0);
    if (!failed && t >= FAIL_AT_S) {
      /* path 1 black-holed both ways */
      set_loss (c.relay[1], 1.0);
      loss_began = gst_element_get_current_running_time (c.tx);
      failed = TRUE;
      p1_at_fail = p1;
      p0_at_fail = p0;
      g_mutex_lock (&c.frames.lock);
      frames_after = c.frames.frames;
      g_mutex_unlock (&c.frames.lock);
    } else if (failed && t < FAIL_AT_S + 1.5) {
      p1_soon = p1;
      p0_soon = p0;
    } else if (!restored && t >= RESTORE_AT_S) {
      /* the path comes back */
      set_loss (c.relay[1], 0.0);
      restored = TRUE;
      p1_at_restore = p1;
      p0_at_restore = p0;
      state_dead = g_strdup (state);
      failed_at = path_stat (c.sched, 1, "failed-at", NULL);
      srtt = path_stat (c.sched, 1, "srtt", NULL);
      fb_interval = path_stat (c.sched, 1, "feedback-interval", NULL);
    }
    g_free (state);
  }
  {
    guint64 p0 = path_stat (c.sched, 0, "packets", NULL);
    guint64 p1 = path_stat (c.sched, 1, "packets", &state);
    guint64 failures = path_stat (c.sched, 1, "failures", NULL);
    guint64 frames;

    g_mutex_lock (&c.frames.lock);
    frames = c.frames.frames - frames_after;
    max_gap = c.frames.max_gap;
    max_gap_at = c.frames.max_gap_at;
    g_mutex_unlock (&c.frames.lock);
    g_print ("mprtp path failure (path 1 dead from %.1f to %.1f s):\n%s",
        FAIL_AT_S, RESTORE_AT_S, series->str);
    g_print ("  path 1: %" G_GUINT64_FORMAT " packets at the failure, %"
        G_GUINT64_FORMAT " by 1.5 s after, %" G_GUINT64_FORMAT " when it "
        "came back (%s), %" G_GUINT64_FORMAT " at the end (%s, %"
        G_GUINT64_FORMAT " failures); path 0: %" G_GUINT64_FORMAT " -> %"
        G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT "; frames after %"
        G_GUINT64_FORMAT "; longest gap between decoded frames %.0f ms "
        "(ending at %.2f s)\n", p1_at_fail, p1_soon, p1_at_restore,
        state_dead, p1, state, failures, p0_at_fail, p0_at_restore, p0,
        frames, max_gap / 1000.0, max_gap_at);
    if (GST_CLOCK_TIME_IS_VALID (loss_began) && failed_at != G_MAXUINT64
        && failed_at >= loss_began)
      g_print ("  path 1 declared failed %.0f ms after its loss began (its "
          "srtt %.0f ms, feedback every %.0f ms)\n",
          (failed_at - loss_began) / 1e6, srtt == G_MAXUINT64 ? -1.0 :
          srtt / 1e6, fb_interval == G_MAXUINT64 ? -1.0 : fb_interval / 1e6);
    {
      GstElement *fwd0 = gst_bin_get_by_name (GST_BIN (c.relay[0]), "fwd");
      g_print ("  path 0 link queue drops %" G_GUINT64_FORMAT
          "; playout: late %" G_GUINT64_FORMAT ", skipped %" G_GUINT64_FORMAT
          ", duplicates %" G_GUINT64_FORMAT "; path 0 sink pacer drops %"
          G_GUINT64_FORMAT "\n", rt_stat_u64 (fwd0, "queue-drops"),
          rt_stat_u64 (c.pb, "late"), rt_stat_u64 (c.pb, "skipped"),
          rt_stat_u64 (c.pb, "duplicates"),
          rt_stat_u64 (c.sink[0], "pacer-drops"));
      gst_object_unref (fwd0);
    }

    fail_unless (failed && restored);
    fail_unless (failures >= 1, "path 1 was never declared failed");
    fail_unless_equals_string (state_dead, "failed");
    /* nothing more on the dead path after the drain (duplicates that
     * probe it are counted apart) */
    fail_unless (p1_at_restore - p1_soon < 20, "path 1 still got %"
        G_GUINT64_FORMAT " packets", p1_at_restore - p1_soon);
    /* declared failed within the scheduler's stated bound: srtt +
     * max(200 ms, two mean feedback gaps) after the first unanswered
     * packet. That packet is sent up to a feedback's trip (< srtt) and a
     * frame after the loss began (feedback already past the relay still
     * shows progress), and the check runs on the next packet: two frame
     * intervals of slack in all. Packet counts would depend on the rates,
     * which a loaded machine (sanitizers, parallel tests) lowers. */
    fail_unless (failed_at != G_MAXUINT64 && failed_at >= loss_began
        && srtt != G_MAXUINT64 && fb_interval != G_MAXUINT64);
    fail_unless (failed_at - loss_began <= 2 * srtt + MAX (200 * GST_MSECOND,
            2 * fb_interval) + 70 * GST_MSECOND,
        "declared failed %.0f ms after the loss began (srtt %.0f ms, "
        "feedback every %.0f ms)", (failed_at - loss_began) / 1e6,
        srtt / 1e6, fb_interval / 1e6);
    /* then the traffic moved to path 0: all of it but the stragglers */
    fail_unless (p0_at_restore - p0_soon > 20 * (p1_at_restore - p1_soon),
        "after the drain path 0 got %" G_GUINT64_FORMAT ", path 1 %"
        G_GUINT64_FORMAT " packets", p0_at_restore - p0_soon,
        p1_at_restore - p1_soon);
    /* re-admitted once it came back, carefully: carrying media again, but
     * less than path 0 in the seconds that follow (it starts at a tenth of
     * its rate, which its controller's no-feedback timer has halved down
     * meanwhile, and is handed more per clean interval: how much it gets
     * back within 6 s varies, 40-226 packets measured) */
    fail_unless_equals_string (state, "active");
    fail_unless (p1 - p1_at_restore >= 10, "path 1 got %" G_GUINT64_FORMAT
        " packets after it came back", p1 - p1_at_restore);
    fail_unless (p1 - p1_at_restore < p0 - p0_at_restore);
    /* video went on */
    fail_unless (frames > 30 * (run_s - FAIL_AT_S - 2), "%" G_GUINT64_FORMAT
        " frames after the failure", frames);
    /* the bound: no stretch without a decoded frame longer than 500 ms
     * after the first 3 s (failure detection: srtt + 200 ms or two
     * feedback gaps; then a key frame, which mprtpsched asks for, repairs
     * the picture; the encoder's periodic ones come every 0.5 s here) */
    fail_unless (max_gap <= 500 * 1000, "a %.0f ms gap between decoded "
        "frames", max_gap / 1000.0);
    g_free (state);
    g_free (state_dead);
  }
  call_stop (&c);
  g_string_free (series, TRUE);
}

GST_END_TEST;

/* The scheduler classifies a path by the MPRTCP subflow reports that its
 * receiver really sends. Path 1 loses 15 % of its media on the way, and
 * arrives 40 ms after path 0, past playoutbuffer's fixed 30 ms of buffering
 * (in the same latency group, so both paths stay active), so its packets
 * are also discarded by the playout: its rtpccsrc reports both by
 * subflow. Losses and discards together are "mildly congested",
 * three intervals of it "congested" (the thesis' rules): only the reports
 * carry discards; the paths' own CCFB feedback, which mprtpsched falls back
 * on while no report has come, shows the loss alone ("lossy" at most). With
 * both controllers fixed at the same rate and a media requirement below
 * what they allow, the requirement is split by share: path 1's share of
 * the media packets falls well below half while path 0 stays clean. */
#define LOSSY_RUN_S 9.0

GST_START_TEST (test_reports_classify)
{
  const guint rate[2] = { 3000, 3000 }, delay[2] = { 10, 50 };
  Call c;
  gdouble t;
  gchar *klass[2] = { NULL, NULL }, *state[2] = { NULL, NULL };
  guint64 media[2] = { 0, 0 }, at_mark[2] = { 0, 0 }, srtt[2] = { 0, 0 };
  guint64 allowed[2] = { 0, 0 }, failures[2] = { 0, 0 };
  gboolean marked = FALSE;
  guint n_late = 0, n_clean0 = 0;
  GString *series = g_string_new (NULL);
  GstElement *fwd1;

  call_start_with (&c, rate, delay, 30, "pb", "playoutbuffer name=pb "
      "mode=fixed min-delay=30 max-delay=400", "", "max-bitrate=400000", "",
      "controller=fixed start-bitrate=500000");
  fwd1 = gst_bin_get_by_name (GST_BIN (c.relay[1]), "fwd");
  g_object_set (fwd1, "loss", 0.15, NULL);
  while (call_sample (&c, LOSSY_RUN_S, &t)) {
    for (guint i = 0; i < 2; i++) {
      GstStructure *s = NULL, *ps;
      const GValue *list;

      g_object_get (c.sched, "stats", &s, NULL);
      list = gst_structure_get_value (s, "path-stats");
      ps = (GstStructure *) gst_value_get_structure (gst_value_list_get_value
          (list, i));
      g_free (klass[i]);
      klass[i] = g_strdup (gst_structure_get_string (ps, "class"));
      gst_structure_free (s);
      /* media packets, not key-frame packets: those go to the best path
       * whatever the shares */
      g_free (state[i]);
      media[i] = path_stat (c.sched, i, "packets", &state[i]) -
          path_stat (c.sched, i, "keyframe-packets", NULL);
      srtt[i] = path_stat (c.sched, i, "srtt", NULL);
      allowed[i] = path_stat (c.sched, i, "allowed", NULL);
      failures[i] = path_stat (c.sched, i, "failures", NULL);
    }
    if (!marked && t >= LOSSY_RUN_S - 4.0) {
      marked = TRUE;
      at_mark[0] = media[0];
      at_mark[1] = media[1];
    }
    if (marked) {
      n_late++;
      if (g_strcmp0 (klass[0], "non-congested") == 0)
        n_clean0++;
    }
    /* the state and srtt say why a path carries nothing, if it does */
    g_string_append_printf (series, "  t=%5.2f s  classes %s / %s  media "
        "packets %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT "  states %s / "
        "%s  srtt %.0f / %.0f ms  allowed %" G_GUINT64_FORMAT " / %"
        G_GUINT64_FORMAT "  failures %" G_GUINT64_FORMAT " / %"
        G_GUINT64_FORMAT "\n", t, klass[0], klass[1], media[0], media[1],
        state[0], state[1], rt_ms_or_none (srtt[0]), rt_ms_or_none (srtt[1]),
        allowed[0], allowed[1], failures[0], failures[1]);
  }
  {
    guint64 late0 = media[0] - at_mark[0];
    guint64 late1 = media[1] - at_mark[1];
    /* path 1's reporting intervals over the run, by class */
    guint64 clean1 = path_stat (c.sched, 1, "intervals-non-congested", NULL);
    guint64 lossy1 = path_stat (c.sched, 1, "intervals-lossy", NULL);
    guint64 mild1 = path_stat (c.sched, 1, "intervals-mildly-congested",
        NULL) + path_stat (c.sched, 1, "intervals-congested", NULL);
    guint64 others0 = path_stat (c.sched, 0, "intervals-lossy", NULL) +
        path_stat (c.sched, 0, "intervals-mildly-congested", NULL) +
        path_stat (c.sched, 0, "intervals-congested", NULL);
    gdouble share1 = late0 + late1 > 0 ?
        (gdouble) late1 / (gdouble) (late0 + late1) : 1.0;

    g_print ("mprtp classification by subflow reports (path 1: 15 %% loss, "
        "+40 ms):\n%s", series->str);
    g_print ("  path 1: lost %" G_GUINT64_FORMAT ", subflow reports sent %"
        G_GUINT64_FORMAT ", received %" G_GUINT64_FORMAT "; playout late %"
        G_GUINT64_FORMAT "; share of the media over the last 4 s %.3f\n",
        rt_stat_u64 (c.src[1], "packets-lost"),
        rt_stat_u64 (c.src[1], "mprtcp-sent"),
        rt_stat_u64 (c.sink[1], "mprtcp-received"),
        rt_stat_u64 (c.pb, "late"), share1);
    g_print ("  path 1 intervals: non-congested %" G_GUINT64_FORMAT ", lossy %"
        G_GUINT64_FORMAT ", mildly congested or congested %" G_GUINT64_FORMAT
        "; path 0 intervals not clean %" G_GUINT64_FORMAT "\n", clean1,
        lossy1, mild1, others0);
    /* what path 0's sink heard back, should it go unused */
    g_print ("  path 0: RTCP received %" G_GUINT64_FORMAT ", from a wrong "
        "source %" G_GUINT64_FORMAT "; its receiver's packets %"
        G_GUINT64_FORMAT "\n", rt_stat_u64 (c.sink[0], "rtcp-received"),
        rt_stat_u64 (c.sink[0], "rtcp-wrong-source"),
        rt_stat_u64 (c.src[0], "packets-received"));

    /* the reports went over the wire and were taken */
    fail_unless (rt_stat_u64 (c.sink[1], "mprtcp-received") >= 4);
    fail_unless_equals_uint64 (rt_stat_u64 (c.sink[1], "mprtcp-rejected"), 0);
    fail_unless (rt_stat_u64 (c.src[1], "packets-lost") > 0);
    fail_unless (rt_stat_u64 (c.pb, "late") > 0);
    /* path 1 classified from them: its intervals with losses had discards
     * too (the feedback alone would say "lossy" at most). An interval
     * without a loss reads "non-congested", as the thesis classifies; with
     * the path's share cut to a quarter it carries ~20 packets a report,
     * so at 15 % loss ~4 % of the intervals are clean, and one such read
     * stands until the next report: counted by interval, not by sample.
     * Path 0 clean throughout. */
    fail_unless (lossy1 + mild1 >= 4 && mild1 * 3 >= (lossy1 + mild1) * 2,
        "path 1: of %" G_GUINT64_FORMAT " intervals with losses %"
        G_GUINT64_FORMAT " mildly congested or congested", lossy1 + mild1,
        mild1);
    fail_unless (clean1 * 3 < lossy1 + mild1, "path 1: %" G_GUINT64_FORMAT
        " clean intervals of %" G_GUINT64_FORMAT, clean1,
        clean1 + lossy1 + mild1);
    fail_unless_equals_int (n_clean0, n_late);
    fail_unless_equals_uint64 (others0, 0);
    /* and its share cut: half of the packets with equal shares, 3/7 as
     * "lossy" (share 0.75), a third from "mildly congested" (0.5), a fifth
     * as "congested" (0.25); the bound lies between "lossy" and "mildly
     * congested" (0.23-0.34 measured; 0.47 with the reports ignored) */
    fail_unless (marked && late1 > 0 && share1 < 0.39, "path 1 carried "
        "%.3f of the media", share1);
  }
  gst_object_unref (fwd1);
  g_free (klass[0]);
  g_free (klass[1]);
  g_free (state[0]);
  g_free (state[1]);
  call_stop (&c);
  g_string_free (series, TRUE);
}

GST_END_TEST;

/* The element right after @e (its src pad's peer's parent). */
static GstElement *
next_element (GstElement * e)
{
  GstPad *src = gst_element_get_static_pad (e, "src");
  GstPad *peer = gst_pad_get_peer (src);
  GstElement *next = gst_pad_get_parent_element (peer);

  gst_object_unref (peer);
  gst_object_unref (src);
  return next;
}

/* FEC per path, the shape docs/multipath.md gives: fecenc after
 * mprtpsched on each path (its parity covers the packets as that path
 * carries them, extension included) and fecdec after each path's
 * rtpccsrc, before playoutbuffer merges the paths. Path 1 loses 5 % of
 * what it carries; its fecdec rebuilds lost media from the FEC packets
 * that crossed that path, so far fewer packets are missing at the playout
 * than the path lost. */
GST_START_TEST (test_fec_per_path)
{
  const guint rate[2] = { 3000, 3000 }, delay[2] = { 20, 20 };
  Call c;
  gdouble t;
  GstElement *fwd1, *fd[2];
  guint64 fec[2], recovered[2], bad, lost1, skipped;

  call_start_with (&c, rate, delay, 30, "fecdec ! pb",
      "playoutbuffer name=pb max-delay=400", "", "",
      "fecenc n=5 follow-target=false !", "controller=fixed "
      "start-bitrate=500000");
  fwd1 = gst_bin_get_by_name (GST_BIN (c.relay[1]), "fwd");
  g_object_set (fwd1, "loss", 0.05, NULL);
  for (guint i = 0; i < 2; i++)
    fd[i] = next_element (c.src[i]);
  while (call_sample (&c, 8.0, &t))
    continue;
  for (guint i = 0; i < 2; i++) {
    fec[i] = rt_stat_u64 (fd[i], "fec-packets");
    recovered[i] = rt_stat_u64 (fd[i], "recovered");
  }
  bad = rt_stat_u64 (fd[0], "bad-recoveries") +
      rt_stat_u64 (fd[1], "bad-recoveries");
  lost1 = rt_stat_u64 (c.src[1], "packets-lost");
  skipped = rt_stat_u64 (c.pb, "skipped");
  g_print ("mprtp FEC per path (path 1: 5 %% loss): FEC packets %"
      G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT ", recovered %"
      G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT ", bad recoveries %"
      G_GUINT64_FORMAT "; path 1 lost %" G_GUINT64_FORMAT " (media and "
      "FEC); playout skipped %" G_GUINT64_FORMAT ", late %" G_GUINT64_FORMAT
      "; sinks' mprtp-missing %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
      "\n", fec[0], fec[1], recovered[0], recovered[1], bad, lost1, skipped,
      rt_stat_u64 (c.pb, "late"), rt_stat_u64 (c.sink[0], "mprtp-missing"),
      rt_stat_u64 (c.sink[1], "mprtp-missing"));

  /* FEC crossed both paths; each path's fecdec sees its own */
  fail_unless (fec[0] > 50 && fec[1] > 50);
  fail_unless (lost1 > 5, "path 1 lost only %" G_GUINT64_FORMAT, lost1);
  /* path 1's decoder rebuilt lost media, bit-exact (the extension too);
   * path 0 lost nothing to rebuild */
  fail_unless (recovered[1] > 0);
  fail_unless_equals_uint64 (recovered[0], 0);
  fail_unless_equals_uint64 (bad, 0);
  /* missing at the playout: at most two thirds of what the path lost
   * (without fecenc the same run skips nearly all of it: 35 of 38) */
  fail_unless (skipped * 3 < lost1 * 2, "playout skipped %" G_GUINT64_FORMAT
      " with %" G_GUINT64_FORMAT " lost", skipped, lost1);
  /* FEC on its own SSRC and sequence space: the clean path's receiver
   * counts no loss */
  fail_unless_equals_uint64 (rt_stat_u64 (c.src[0], "packets-lost"), 0);

  for (guint i = 0; i < 2; i++)
    gst_object_unref (fd[i]);
  gst_object_unref (fwd1);
  call_stop (&c);
}

GST_END_TEST;

/* The NACK / RTX call: both sinks fixed at 500 kbit/s with RTX, both
 * receivers NACKing, over two 3 Mbit/s paths of @delay_ms, merged by
 * @pb_desc; path 1 loses 5 % of what it carries; 8 s. Returns path 1's
 * forward link (a reference). */
static GstElement *
nack_call_run (Call * c, const guint delay_ms[2], const gchar * pb_desc)
{
  const guint rate[2] = { 3000, 3000 };
  GstElement *fwd1;
  gdouble t;

  call_start_full (c, rate, delay_ms, 30, "pb", pb_desc, "", "", "",
      "controller=fixed start-bitrate=500000 rtx-payload-type=97",
      "repair=nack rtx-payload-type=97");
  fwd1 = gst_bin_get_by_name (GST_BIN (c->relay[1]), "fwd");
  g_object_set (fwd1, "loss", 0.05, NULL);
  while (call_sample (c, 8.0, &t))
    continue;
  return fwd1;
}

/* NACK / RTX per path: each path's rtpccsrc NACKs the losses of its own
 * subflow (gaps in the FSSN) to its own rtpccsink, whose history is
 * numbered by FSSN. Path 1 loses 5 % of what it carries, path 0 nothing:
 * path 0's receiver, seeing only its share of the media seqs, must NACK
 * nothing, and no sink may be asked for a packet it never sent
 * (rtx-unknown). Path 1's losses are retransmitted and restored. */
GST_START_TEST (test_nack_per_path)
{
  const guint delay[2] = { 20, 20 };
  Call c;
  GstElement *fwd1;
  guint64 nacked[2], unknown[2], recovered1, lost1, skipped;

  fwd1 = nack_call_run (&c, delay, "playoutbuffer name=pb max-delay=400");
  for (guint i = 0; i < 2; i++) {
    nacked[i] = rt_stat_u64 (c.src[i], "nacked-packets");
    unknown[i] = rt_stat_u64 (c.sink[i], "rtx-unknown");
  }
  recovered1 = rt_stat_u64 (c.src[1], "rtx-recovered");
  lost1 = rt_stat_u64 (c.src[1], "packets-lost");
  skipped = rt_stat_u64 (c.pb, "skipped");
  g_print ("mprtp NACK per path (path 1: 5 %% loss): NACKed %"
      G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT ", rtx-unknown %"
      G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT ", rtx sent %"
      G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT ", path 1 lost %"
      G_GUINT64_FORMAT ", recovered %" G_GUINT64_FORMAT "; playout skipped %"
      G_GUINT64_FORMAT "; unmapped %" G_GUINT64_FORMAT "\n", nacked[0],
      nacked[1], unknown[0], unknown[1], rt_stat_u64 (c.sink[0], "rtx-sent"),
      rt_stat_u64 (c.sink[1], "rtx-sent"), lost1, recovered1, skipped,
      rt_stat_u64 (c.sink[1], "mprtp-rtx-unmapped"));

  /* NACKs for media never lost on the path: none */
  fail_unless_equals_uint64 (rt_stat_u64 (c.src[0], "packets-lost"), 0);
  fail_unless_equals_uint64 (nacked[0], 0);
  fail_unless_equals_uint64 (unknown[0], 0);
  fail_unless_equals_uint64 (unknown[1], 0);
  /* path 1's losses NACKed by FSSN, retransmitted and restored */
  fail_unless (lost1 > 5, "path 1 lost only %" G_GUINT64_FORMAT, lost1);
  fail_unless (nacked[1] > 0);
  fail_unless (recovered1 > 0);
  fail_unless_equals_uint64 (rt_stat_u64 (c.sink[1], "mprtp-rtx-unmapped"),
      0);

  gst_object_unref (fwd1);
  call_stop (&c);
}

GST_END_TEST;

/* Retransmissions on the best path: path 1 loses 5 % and has 60 ms more
 * delay each way than the clean path 0 (RTT about 160 vs 40 ms). Path 1's
 * receiver NACKs its losses by FSSN to its own rtpccsink, which asks
 * mprtpsched; the repair goes out on path 0 as a packet of path 0 (its
 * element, its next FSSN), so path 0's receiver counts no loss and NACKs
 * nothing, and playoutbuffer fills path 1's holes from it. */
GST_START_TEST (test_rtx_best_path)
{
  const guint delay[2] = { 20, 80 };
  Call c;
  GstElement *fwd1;
  guint64 moved, unknown, in0, out1, in1, out0, sink_moved, lost1, nacked1;
  guint64 skipped, rtx_sent0, recovered1, frames, elsewhere1;

  fwd1 = nack_call_run (&c, delay,
      "playoutbuffer name=pb min-delay=150 max-delay=400");
  moved = rt_stat_u64 (c.sched, "rtx-moved");
  unknown = rt_stat_u64 (c.sched, "rtx-unknown");
  in0 = path_stat (c.sched, 0, "rtx-in", NULL);
  out0 = path_stat (c.sched, 0, "rtx-out", NULL);
  in1 = path_stat (c.sched, 1, "rtx-in", NULL);
  out1 = path_stat (c.sched, 1, "rtx-out", NULL);
  sink_moved = rt_stat_u64 (c.sink[1], "mprtp-rtx-moved");
  rtx_sent0 = rt_stat_u64 (c.sink[0], "rtx-sent");
  lost1 = rt_stat_u64 (c.src[1], "packets-lost");
  nacked1 = rt_stat_u64 (c.src[1], "nacked-packets");
  recovered1 = rt_stat_u64 (c.src[1], "rtx-recovered");
  skipped = rt_stat_u64 (c.pb, "skipped");
  elsewhere1 = rt_stat_u64 (c.src[1], "repair-recovered-elsewhere");
  g_mutex_lock (&c.frames.lock);
  frames = c.frames.frames;
  g_mutex_unlock (&c.frames.lock);
  g_print ("mprtp RTX on the best path (path 1: 5 %% loss, +60 ms): path 1 "
      "lost %" G_GUINT64_FORMAT ", NACKed %" G_GUINT64_FORMAT ", repairs "
      "moved %" G_GUINT64_FORMAT " (sink 1: %" G_GUINT64_FORMAT
      ", path 0 in %" G_GUINT64_FORMAT "), sent on path 1 itself %"
      G_GUINT64_FORMAT " (restored there %" G_GUINT64_FORMAT
      "), refused %" G_GUINT64_FORMAT "; path 0 lost %" G_GUINT64_FORMAT
      " NACKed %" G_GUINT64_FORMAT "; playout skipped %" G_GUINT64_FORMAT
      ", duplicates %" G_GUINT64_FORMAT ", frames %" G_GUINT64_FORMAT
      "; srtt %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " ms; path 1 "
      "NACK retries %" G_GUINT64_FORMAT ", gave up %" G_GUINT64_FORMAT
      ", recovered elsewhere %" G_GUINT64_FORMAT " (asked %" G_GUINT64_FORMAT
      "), its sink's too soon %" G_GUINT64_FORMAT "\n", lost1,
      nacked1, moved, sink_moved, in0,
      rt_stat_u64 (c.sink[1], "rtx-sent") - sink_moved, recovered1, unknown,
      rt_stat_u64 (c.src[0], "packets-lost"),
      rt_stat_u64 (c.src[0], "nacked-packets"), skipped,
      rt_stat_u64 (c.pb, "duplicates"), frames,
      path_stat (c.sched, 0, "srtt", NULL) / GST_MSECOND,
      path_stat (c.sched, 1, "srtt", NULL) / GST_MSECOND,
      rt_stat_u64 (c.src[1], "nack-retries"),
      rt_stat_u64 (c.src[1], "repair-gave-up"), elsewhere1,
      rt_stat_u64 (c.src[1], "merged-queries"),
      rt_stat_u64 (c.sink[1], "rtx-too-soon"));

  /* the repairs of path 1's losses travelled on path 0 */
  fail_unless (lost1 > 5, "path 1 lost only %" G_GUINT64_FORMAT, lost1);
  fail_unless (moved > 0, "no repair moved to the faster path");
  fail_unless_equals_uint64 (in0, out1);
  fail_unless_equals_uint64 (in1, 0);
  fail_unless_equals_uint64 (out0, 0);
  /* routed (in0, out1) when asked, pushed (moved) by mprtpsched's repair
   * task just after, counted by the sink once answered: the stats, read
   * while the call runs, differ by the repairs in flight at most */
  fail_unless (moved <= in0 && in0 - moved <= 2, "routed %" G_GUINT64_FORMAT
      ", pushed %" G_GUINT64_FORMAT, in0, moved);
  fail_unless (sink_moved <= out1 + 2 && out1 <= sink_moved + 2);
  /* at least most of the repairs: the first one may precede path 0's
   * first RTT */
  fail_unless (sink_moved * 2 > rt_stat_u64 (c.sink[1], "rtx-sent"));
  /* path 0 made no RTX of its own and its receiver saw them as its own
   * packets: no loss, no NACK */
  fail_unless_equals_uint64 (rtx_sent0, 0);
  fail_unless_equals_uint64 (rt_stat_u64 (c.src[0], "packets-lost"), 0);
  fail_unless_equals_uint64 (rt_stat_u64 (c.src[0], "nacked-packets"), 0);
  fail_unless_equals_uint64 (unknown, 0);
  /* most holes were filled before the playout point: over ten runs on a
   * loaded 2-core machine 2-19 of 36-40 lost were skipped (playoutbuffer's
   * adaptive delay differs from run to run); the same run with the
   * repairs on path 1 itself, the NACK and the RTX both taking its 80 ms,
   * skipped 32 of 37 */
  fail_unless (skipped * 3 <= lost1 * 2, "playout skipped %" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT " lost", skipped, lost1);
  fail_unless (frames > 8 * 25, "%" G_GUINT64_FORMAT " frames", frames);
  /* path 1's receiver learns from the merge that a moved repair arrived:
   * most losses whose repair reached the playout point in time (those
   * playoutbuffer did not skip) are recovered elsewhere, not given up.
   * Over six runs 0.64-0.89 of them; without it none (33 of 39 given
   * up). Not all: the planner's deadline can come before the playout
   * buffer's adaptive one. */
  fail_unless (elsewhere1 * 2 >= lost1 - MIN (skipped, lost1),
      "recovered elsewhere %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
      " lost, %" G_GUINT64_FORMAT " skipped", elsewhere1, lost1, skipped);
  fail_unless (elsewhere1 > 0);

  gst_object_unref (fwd1);
  call_stop (&c);
}

GST_END_TEST;

static Suite *
mprtp_realtime_suite (void)
{
  Suite *s = suite_create ("mprtp_realtime");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_two_paths);
  tcase_add_test (tc, test_path_failure);
  tcase_add_test (tc, test_reports_classify);
  tcase_add_test (tc, test_fec_per_path);
  tcase_add_test (tc, test_nack_per_path);
  tcase_add_test (tc, test_rtx_best_path);
  return s;
}

GST_CHECK_MAIN (mprtp_realtime);

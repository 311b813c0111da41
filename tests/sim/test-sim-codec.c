/* The syncodecs-like statistical codec (sim-codec.h): mean rate, bounded
 * rate change per update, big changes jump with an I-frame that the
 * transient pays back, frame-size and interval noise, packetization,
 * pause, determinism, driving it from the closed loop, and its profile
 * modelled on x264enc.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim-codec.h"

#include <math.h>

typedef struct
{
  SimNode node;
  GArray *frames;               /* Frame */
  guint64 bytes;
  guint max_size;
  gboolean bad_marker;
} Sink;

typedef struct
{
  RtpccTime at;
  guint bytes;
  gboolean key;
} Frame;

static void
sink_receive (SimNode * node, Sim * sim, SimPacket * p)
{
  Sink *s = (Sink *) node;

  s->bytes += p->size;
  s->max_size = MAX (s->max_size, p->size);
  if (p->frame_packet == 0) {
    Frame f = { p->created, 0, p->keyframe };
    g_array_append_val (s->frames, f);
  }
  g_array_index (s->frames, Frame, s->frames->len - 1).bytes += p->size;
  if (p->marker != (p->frame_packet + 1 == p->frame_packets))
    s->bad_marker = TRUE;
  sim_packet_free (sim, p);
}

static void
sink_init (Sink * s)
{
  s->node.receive = sink_receive;
  s->node.name = "sink";
  s->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  s->bytes = 0;
  s->max_size = 0;
  s->bad_marker = FALSE;
}

/* A constant target: the mean payload rate over 200 s is within 3 % of
 * it (the one I-frame is paid back), packets fill the MTU, markers close
 * frames, and the frame interval varies around 1/fps. */
static void
test_mean_rate (void)
{
  Sim *sim = sim_new ();
  Sink sink;
  SimCodecConfig c;
  SimSource *src;
  SimCodecStats st;
  gdouble rate, mean_int = 0.0, sd = 0.0;
  guint n;

  sink_init (&sink);
  sim_codec_config_init (&c);
  c.seed = 3;
  c.keyframe_interval = 100;    /* every 4 s: each paid back */
  src = sim_codec_source_new (sim, &c, &sink.node);
  g_assert_nonnull (src);
  sim_source_set_rate (src, 800000);
  sim_run_until (sim, RTPCC_SEC (200));
  sim_codec_source_get_stats (src, &st);
  rate = sink.bytes * 8.0 / 200.0;
  g_test_message ("mean %.0f bit/s, %" G_GUINT64_FORMAT " frames, %"
      G_GUINT64_FORMAT " I-frames", rate, st.frames, st.iframes);
  g_assert_cmpfloat (fabs (rate - 800000) / 800000, <, 0.03);
  g_assert_cmpuint (sink.max_size, <=, 1200);
  g_assert_false (sink.bad_marker);
  g_assert_cmpuint (st.iframes, >=, 49);
  g_assert_cmpuint (st.iframes, <=, 51);
  /* I-frames are bigger than the mean frame by about iframe_bytes */
  g_assert_cmpfloat ((gdouble) st.iframe_bytes / st.iframes, >, 4000.0 +
      0.5 * 4000.0);
  n = sink.frames->len;
  for (guint i = 1; i < n; i++)
    mean_int += RTPCC_TIME_AS_SEC (g_array_index (sink.frames, Frame,
            i).at - g_array_index (sink.frames, Frame, i - 1).at);
  mean_int /= n - 1;
  for (guint i = 1; i < n; i++) {
    gdouble d = RTPCC_TIME_AS_SEC (g_array_index (sink.frames, Frame,
            i).at - g_array_index (sink.frames, Frame, i - 1).at) - mean_int;
    sd += d * d;
  }
  sd = sqrt (sd / (n - 2));
  g_test_message ("frame interval %.4f s sd %.4f s", mean_int, sd);
  g_assert_cmpfloat (fabs (mean_int - 0.04), <, 0.002);
  g_assert_cmpfloat (sd, >, 0.001);
  g_assert_cmpfloat (sd, <, 0.01);
  sim_source_free (src);
  g_array_free (sink.frames, TRUE);
  sim_free (sim);
}

/* Small target steps are followed at most 10 % per 100 ms update; a step
 * beyond 50 % is a jump with an I-frame right after it. */
static void
test_rate_control (void)
{
  Sim *sim = sim_new ();
  Sink sink;
  SimCodecConfig c;
  SimSource *src;
  const SimCodecRateChange *log;
  guint n, steps = 0;
  SimCodecStats st;

  sink_init (&sink);
  sim_codec_config_init (&c);
  src = sim_codec_source_new (sim, &c, &sink.node);
  sim_source_set_rate (src, 1000000);
  sim_run_until (sim, RTPCC_SEC (2));
  sim_source_set_rate (src, 1400000);   /* +40 %: gradual */
  sim_run_until (sim, RTPCC_SEC (6));
  sim_codec_source_get_stats (src, &st);
  g_assert_cmpuint (st.rate_bps, ==, 1400000);
  g_assert_cmpuint (st.transients, ==, 1);      /* the start */
  log = sim_codec_source_get_rate_log (src, &n);
  for (guint i = 1; i < n; i++) {
    gdouble ratio = (gdouble) log[i].rate_bps / log[i - 1].rate_bps;
    g_assert_false (log[i].transient);
    g_assert_cmpfloat (ratio, <=, 1.1 + 1e-9);
    g_assert_cmpfloat (ratio, >, 1.0);
    g_assert_cmpint (log[i].time - log[i - 1].time, >=, RTPCC_MSEC (100));
    steps++;
  }
  /* 1.0 → 1.4 at ≤ 10 % per step: 4 steps (1.1, 1.21, 1.331, 1.4) */
  g_assert_cmpuint (steps, ==, 4);

  sim_source_set_rate (src, 500000);    /* −64 %: a jump */
  sim_run_until (sim, RTPCC_SEC (7));
  sim_codec_source_get_stats (src, &st);
  g_assert_cmpuint (st.rate_bps, ==, 500000);
  g_assert_cmpuint (st.transients, ==, 2);
  log = sim_codec_source_get_rate_log (src, &n);
  g_assert_true (log[n - 1].transient);
  /* the first frame after the jump is an I-frame */
  for (guint i = 0; i < sink.frames->len; i++) {
    Frame *f = &g_array_index (sink.frames, Frame, i);
    if (f->at >= log[n - 1].time) {
      g_assert_true (f->key);
      break;
    }
  }
  /* pause and resume */
  sim_source_set_rate (src, 0);
  sim_run_until (sim, RTPCC_SEC (8));
  n = sink.frames->len;
  sim_run_until (sim, RTPCC_SEC (9));
  g_assert_cmpuint (sink.frames->len, ==, n);
  sim_source_set_rate (src, 500000);
  sim_run_until (sim, RTPCC_SEC (10));
  g_assert_cmpuint (sink.frames->len, >, n + 20);
  g_assert_true (g_array_index (sink.frames, Frame, n).key);
  sim_source_free (src);
  g_array_free (sink.frames, TRUE);
  sim_free (sim);
}

static gchar *
fingerprint (guint64 seed)
{
  Sim *sim = sim_new ();
  Sink sink;
  SimCodecConfig c;
  SimSource *src;
  GString *s = g_string_new (NULL);

  sink_init (&sink);
  sim_codec_config_init (&c);
  c.seed = seed;
  src = sim_codec_source_new (sim, &c, &sink.node);
  sim_source_set_rate (src, 700000);
  sim_run_until (sim, RTPCC_SEC (10));
  for (guint i = 0; i < sink.frames->len; i++) {
    Frame *f = &g_array_index (sink.frames, Frame, i);
    g_string_append_printf (s, "%" G_GINT64_FORMAT " %u\n", f->at, f->bytes);
  }
  sim_source_free (src);
  g_array_free (sink.frames, TRUE);
  sim_free (sim);
  return g_string_free (s, FALSE);
}

static void
test_determinism (void)
{
  gchar *a = fingerprint (1), *b = fingerprint (1), *c = fingerprint (2);

  g_assert_cmpstr (a, ==, b);
  g_assert_cmpstr (a, !=, c);
  g_free (a);
  g_free (b);
  g_free (c);
}

/* In the closed loop the codec replaces the flow's frame source and the
 * controller drives it: it reaches the link and follows the target. */
static void
test_closed_loop (void)
{
  SimRtpccNetConfig nc;
  SimRtpccFlowConfig fc;
  SimRtpccNet *net;
  SimRtpccFlow *flow;
  SimCodecConfig c;
  SimCodecStats st;
  SimFlowSummary sum;
  GError *err = NULL;
  RtpccCapacity *cap = rtpcc_capacity_new_constant (1000000);
  gdouble target;

  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = cap;
  nc.forward.delay = nc.reverse.delay = RTPCC_MSEC (50);
  net = sim_rtpcc_net_new (&nc);
  sim_rtpcc_flow_config_init (&fc, 0, "tfrc", SIM_RTPCC_FEEDBACK_AUTO, 1);
  fc.sender.sender.cc.min_bitrate = 150000;
  fc.sender.sender.cc.start_bitrate = 150000;
  fc.sender.sender.cc.max_bitrate = 1500000;
  flow = sim_rtpcc_net_add_flow (net, &fc, &err);
  g_assert_no_error (err);
  sim_codec_config_init (&c);
  c.overhead = 12;
  c.fps = 0.0;
  g_assert_false (sim_rtpcc_flow_use_codec (net, flow, &c));
  c.fps = 25.0;
  g_assert_true (sim_rtpcc_flow_use_codec (net, flow, &c));
  g_assert_true (sim_source_is_codec (flow->source));
  sim_rtpcc_net_run (net, RTPCC_SEC (60));
  sim_codec_source_get_stats (flow->source, &st);
  g_assert_true (sim_metrics_summarize (net->metrics, 0, RTPCC_SEC (30),
          RTPCC_SEC (60), &sum));
  target = sim_rtpcc_sender_target_mean (flow->sender, RTPCC_SEC (30),
      RTPCC_SEC (60));
  g_test_message ("closed loop: recv %.0f kbit/s, target %.0f kbit/s, "
      "%" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT " transients",
      sum.recv_kbps, target / 1000, st.frames, st.transients);
  g_assert_cmpuint (st.frames, >, 1400);
  g_assert_cmpfloat (sum.recv_kbps, >, 400.0);
  g_assert_cmpfloat (sum.recv_kbps, <, 1001.0);
  sim_rtpcc_net_free (net);
  rtpcc_capacity_unref (cap);
}

/* The codec's target, sampled every 10 ms: its changes. */
typedef struct
{
  SimSource *src;
  Sim *sim;
  GArray *times, *rates;
} TargetProbe;

static void
probe_tick (Sim * sim, gpointer user_data)
{
  TargetProbe *p = user_data;
  guint64 r = sim_source_get_rate (p->src);
  RtpccTime now = sim_now (sim);

  if (p->rates->len == 0
      || g_array_index (p->rates, guint64, p->rates->len - 1) != r) {
    g_array_append_val (p->times, now);
    g_array_append_val (p->rates, r);
  }
  sim_schedule (sim, now + RTPCC_MSEC (10), probe_tick, p);
}

/* With encoder_hysteresis the codec gets what rtpccsink would hand the
 * encoder: increases at most once a second after the last change,
 * decreases at once; without, increases come as fast as gcc makes them. */
static guint
closed_loop_fast_increases (gboolean hysteresis, guint * n_increases)
{
  SimRtpccNetConfig nc;
  SimRtpccFlowConfig fc;
  SimRtpccNet *net;
  SimRtpccFlow *flow;
  SimCodecConfig c;
  GError *err = NULL;
  RtpccCapacity *cap = rtpcc_capacity_new_constant (1000000);
  TargetProbe p;
  guint fast = 0;

  sim_rtpcc_net_config_init (&nc);
  nc.forward.capacity = cap;
  nc.forward.delay = nc.reverse.delay = RTPCC_MSEC (50);
  net = sim_rtpcc_net_new (&nc);
  sim_rtpcc_flow_config_init (&fc, 0, "gcc", SIM_RTPCC_FEEDBACK_AUTO, 1);
  fc.sender.sender.cc.min_bitrate = 150000;
  fc.sender.sender.cc.start_bitrate = 150000;
  fc.sender.sender.cc.max_bitrate = 1500000;
  fc.sender.encoder_hysteresis = hysteresis;
  flow = sim_rtpcc_net_add_flow (net, &fc, &err);
  g_assert_no_error (err);
  sim_codec_config_init (&c);
  g_assert_true (sim_rtpcc_flow_use_codec (net, flow, &c));
  p.src = flow->source;
  p.times = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  p.rates = g_array_new (FALSE, FALSE, sizeof (guint64));
  sim_schedule (net->sim, 0, probe_tick, &p);
  sim_rtpcc_net_run (net, RTPCC_SEC (30));
  *n_increases = 0;
  for (guint i = 1; i < p.rates->len; i++) {
    RtpccTime dt = g_array_index (p.times, RtpccTime, i) -
        g_array_index (p.times, RtpccTime, i - 1);
    guint64 a = g_array_index (p.rates, guint64, i - 1);
    guint64 b = g_array_index (p.rates, guint64, i);

    if (b > a) {
      (*n_increases)++;
      /* 10 ms of sampling slack */
      if (dt < RTPCC_SEC (1) - RTPCC_MSEC (10))
        fast++;
    } else if (hysteresis) {
      /* a decrease the hysteresis let through is one of >= 5 % */
      g_assert_cmpfloat ((gdouble) (a - b) / a, >=, 0.05 - 1e-9);
    }
  }
  g_array_free (p.times, TRUE);
  g_array_free (p.rates, TRUE);
  sim_rtpcc_net_free (net);
  rtpcc_capacity_unref (cap);
  return fast;
}

static void
test_encoder_hysteresis (void)
{
  guint inc_ideal, inc_hyst;

  /* ideal: gcc's ramp reaches the codec every few hundred ms */
  g_assert_cmpuint (closed_loop_fast_increases (FALSE, &inc_ideal), >, 5);
  /* through the hysteresis: never an increase within 1 s, but some */
  g_assert_cmpuint (closed_loop_fast_increases (TRUE, &inc_hyst), ==, 0);
  g_assert_cmpuint (inc_hyst, >, 3);
  g_assert_cmpuint (inc_hyst, <, inc_ideal);
}

/* The x264enc profile (sim_codec_config_x264): 30 fps with little
 * interval noise, frame sizes within a few per cent of their mean, a key
 * frame every 120 frames and none on a big change, and the rate following
 * the target as a first-order lag. */
static void
test_x264 (void)
{
  Sim *sim = sim_new ();
  Sink sink;
  SimCodecConfig c;
  SimSource *src;
  SimCodecStats st;
  const SimCodecRateChange *log;
  guint n, first, keys = 0;
  gdouble sum = 0, sum2 = 0, isum = 0, isum2 = 0, up = 0, down = 0;
  guint nf = 0, ni = 0;

  sink_init (&sink);
  sim_codec_config_init (&c);
  sim_codec_config_x264 (&c);
  c.seed = 7;
  src = sim_codec_source_new (sim, &c, &sink.node);
  g_assert_nonnull (src);
  sim_source_set_rate (src, 1000000);
  sim_run_until (sim, RTPCC_SEC (20));
  /* steady 1 Mbit/s over 2-20 s: delta frames' sizes and every interval */
  for (guint i = 1; i < sink.frames->len; i++) {
    Frame *f = &g_array_index (sink.frames, Frame, i);
    gdouble dt = RTPCC_TIME_AS_SEC (f->at - g_array_index (sink.frames,
            Frame, i - 1).at);

    isum += dt;
    isum2 += dt * dt;
    ni++;
    if (f->key) {
      keys++;
      g_assert_cmpuint (i % 120, ==, 0);
    } else if (f->at >= RTPCC_SEC (2) && i % 120 > 10) {
      /* (past the key frame's payback) */
      sum += f->bytes;
      sum2 += (gdouble) f->bytes * f->bytes;
      nf++;
    }
  }
  {
    gdouble mean = sum / nf, cv = sqrt (sum2 / nf - mean * mean) / mean;
    gdouble imean = isum / ni, icv = sqrt (isum2 / ni - imean * imean) /
        imean;

    g_test_message ("x264: frame %.0f B cv %.3f, interval %.4f s cv %.4f, "
        "%u key frames", mean, cv, imean, icv, keys);
    g_assert_cmpfloat (fabs (imean - 1.0 / 30), <, 0.0005);
    g_assert_cmpfloat (icv, <, 0.02);
    g_assert_cmpfloat (cv, >, 0.02);
    g_assert_cmpfloat (cv, <, 0.08);
    /* 1 Mbit/s at 30 fps, with the IP/UDP/RTP header bytes of the sink */
    g_assert_cmpfloat (fabs (mean - 1000000 / 8.0 / 30) / mean, <, 0.05);
  }
  /* the first frame, then 120, 240, 360 and 480 */
  g_assert_true (g_array_index (sink.frames, Frame, 0).key);
  g_assert_cmpuint (keys, ==, 4);

  /* tripled: no jump, no key frame; a lag of up to (1 - 1/e) per
   * response_up, arriving within a few of them */
  sim_codec_source_get_stats (src, &st);
  first = st.transients;
  log = sim_codec_source_get_rate_log (src, &n);
  sim_source_set_rate (src, 3000000);
  sim_run_until (sim, RTPCC_SEC (20) + c.response_up);
  sim_codec_source_get_stats (src, &st);
  up = (st.rate_bps - 1e6) / 2e6;
  sim_run_until (sim, RTPCC_SEC (20) + 10 * c.response_up);
  sim_codec_source_get_stats (src, &st);
  g_assert_cmpuint (st.rate_bps, ==, 3000000);
  g_assert_cmpuint (st.transients, ==, first);
  /* a third: down at its own pace */
  sim_source_set_rate (src, 1000000);
  sim_run_until (sim, RTPCC_SEC (20) + 10 * c.response_up + c.response_down);
  sim_codec_source_get_stats (src, &st);
  down = (3e6 - st.rate_bps) / 2e6;
  g_test_message ("x264: %.2f of a rise within response-up, %.2f of a fall "
      "within response-down", up, down);
  /* 1 - 1/e = 0.63, taken in steps of update_interval */
  g_assert_cmpfloat (up, >, 0.55);
  g_assert_cmpfloat (up, <, 0.75);
  g_assert_cmpfloat (down, >, 0.55);
  g_assert_cmpfloat (down, <, 0.75);
  g_assert_cmpuint (st.transients, ==, first);
  log = sim_codec_source_get_rate_log (src, &n);
  for (guint i = 0; i < n; i++)
    if (log[i].time > RTPCC_SEC (1))
      g_assert_false (log[i].transient);
  sim_source_free (src);
  g_array_free (sink.frames, TRUE);
  sim_free (sim);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/codec/mean-rate", test_mean_rate);
  g_test_add_func ("/sim/codec/rate-control", test_rate_control);
  g_test_add_func ("/sim/codec/determinism", test_determinism);
  g_test_add_func ("/sim/codec/closed-loop", test_closed_loop);
  g_test_add_func ("/sim/codec/encoder-hysteresis", test_encoder_hysteresis);
  g_test_add_func ("/sim/codec/x264", test_x264);
  return g_test_run ();
}

/* Per-packet CPU cost of the call's paths, ours and the stock GStreamer
 * pipeline doing the same job, on the same deterministic packet stream
 * (bench-stream.h: 100 packets/s of 1200 bytes), in the same run.
 *
 * Each pipeline runs alone in a child process, under callgrind where
 * valgrind is installed (instructions, repeatable) or timed by process
 * CPU time otherwise (noisy). Only a steady window is counted: after a
 * warm-up of W packets, the next N (bench-measure.h), every thread of the
 * process summed, divided by N.
 *
 *   receivers: this process sends the stream from a UDP socket on
 *     127.0.0.1 (and takes the feedback); the child runs
 *       rtpccsrc ! fecdec ! playoutbuffer ! fakesink   (rx-ours)
 *       udpsrc ! rtpjitterbuffer ! fakesink            (rx-stock)
 *     and counts packets at the fakesink: the window is packets W..W+N
 *     leaving the chain.
 *   senders: the child pushes the stream into appsrc every 10 ms
 *       appsrc ! udpsink                               (tx-udpsink)
 *       appsrc ! rtpccsink controller=gcc              (tx-ccfb, tx-twcc)
 *       appsrc ! sendbuffer ! fecenc ! rtpccsink       (tx-chain)
 *     towards an `rtpccsrc ! fakesink` in this process, which sends the
 *     feedback; the window is the pushes W..W+N. The feeding (a buffer
 *     allocated and pushed per packet, appsrc's thread) is in every
 *     figure, ours and stock alike.
 *   FEC decoder (library, no pipeline): RtpccFecDecoder fed a Reed-Solomon
 *     k=10 m=2 stream (RtpccFecEncoder, encoded before the window) through
 *     seeded Bernoulli loss of 5 % and 30 %, cost per media packet
 *     received in the window (10000 media packets after 500: exact, no
 *     clock involved).
 *   sending buffer (library, no pipeline): RtpccSendbuf (sfdps2) with 1000
 *     one-packet frames of ten streams standing, one frame in and one out
 *     per step, the indexed scheduler against the naive reference that
 *     scans every frame (tests/check/sendbuf-naive.c), cost per step.
 *
 *   bench-cpu [--quick|--smoke] [--no-valgrind] [--reps N] [PATH...]
 *   PATH: rx-chain tx-rtpccsink tx-twcc tx-chain fecdec-loss sendbuf-1000
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench-measure.h"
#include "bench-port.h"
#include "bench-report.h"
#include "bench-stream.h"

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <rtpcc/fec/fec.h>
#include <rtpcc/net/loss.h>
#include <rtpcc/sendbuf.h>

#include "sendbuf-naive.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PKT_INTERVAL_NS (G_GINT64_CONSTANT (1000000000) / BENCH_PKT_RATE)
#define RX_CAPS "caps=\"" BENCH_CAPS "\""
/* start above the stream's rate: the controller's default start (300
 * kbit/s) would hold the stream in the pacer for seconds */
#define RTPCCSINK "rtpccsink name=net host=127.0.0.1 port=@PORT@ controller=gcc " \
    "start-bitrate=2000000 encoder-control=none sync=false async=false"

typedef enum
{
  KIND_RX,
  KIND_TX,
  KIND_FECDEC,
  KIND_SENDBUF,
} Kind;

typedef struct
{
  const gchar *name;
  Kind kind;
  /* KIND_RX: the pipeline; KIND_TX: with @PORT@ for the peer's port */
  const gchar *launch;
  const gchar *peer_feedback;   /* KIND_TX: the peer rtpccsrc's mode */
  gdouble loss;                 /* KIND_FECDEC */
} Scenario;

static const Scenario scenarios[] = {
  {"rx-ours", KIND_RX, "rtpccsrc name=net port=0 " RX_CAPS
        " ! fecdec ! playoutbuffer ! fakesink name=sink", NULL, 0},
  {"rx-stock", KIND_RX, "udpsrc name=net port=0 " RX_CAPS
        " ! rtpjitterbuffer ! fakesink name=sink", NULL, 0},
  {"tx-udpsink", KIND_TX, "appsrc name=src ! udpsink name=net host=127.0.0.1 "
        "port=@PORT@ sync=false async=false", "ccfb", 0},
  {"tx-ccfb", KIND_TX, "appsrc name=src ! " RTPCCSINK " feedback=ccfb",
      "ccfb", 0},
  {"tx-twcc", KIND_TX, "appsrc name=src ! " RTPCCSINK " feedback=twcc",
      "twcc", 0},
  {"tx-chain", KIND_TX, "appsrc name=src ! sendbuffer ! "
        "fecenc follow-target=false ! " RTPCCSINK " feedback=ccfb", "ccfb", 0},
  {"fecdec-5", KIND_FECDEC, NULL, NULL, 0.05},
  {"fecdec-30", KIND_FECDEC, NULL, NULL, 0.30},
  {"sendbuf-indexed", KIND_SENDBUF, NULL, NULL, 0},
  {"sendbuf-naive", KIND_SENDBUF, NULL, NULL, 0},
};

typedef struct
{
  const gchar *name;
  const gchar *ours, *base;
  gdouble goal;
  const gchar *what;
} Path;

static const Path paths[] = {
  {"rx-chain", "rx-ours", "rx-stock", 1.5,
      "rtpccsrc ! fecdec ! playoutbuffer vs udpsrc ! rtpjitterbuffer"},
  {"tx-rtpccsink", "tx-ccfb", "tx-udpsink", 1.3,
      "appsrc ! rtpccsink controller=gcc (CCFB) vs appsrc ! udpsink"},
  {"tx-twcc", "tx-twcc", "tx-ccfb", 1.15,
      "rtpccsink feedback=twcc vs feedback=ccfb"},
  {"tx-chain", "tx-chain", "tx-udpsink", 2.0,
      "appsrc ! sendbuffer ! fecenc ! rtpccsink vs appsrc ! udpsink"},
  {"fecdec-loss", "fecdec-30", "fecdec-5", 2.0,
      "RS k=10 m=2 decoder per received media packet, 30 % vs 5 % loss"},
  {"sendbuf-1000", "sendbuf-indexed", "sendbuf-naive", 0.25,
      "sending buffer, 1000 frames standing, one in and one out per step: "
        "indexed vs every frame scanned"},
};

static const Scenario *
find_scenario (const gchar * name)
{
  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    if (g_str_equal (scenarios[i].name, name))
      return &scenarios[i];
  return NULL;
}

/* FALSE (after saying why) if the bus holds an error. */
static gboolean
bus_ok (GstElement * pipeline, GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *m;
  gboolean ok = TRUE;

  while (ok && (m = gst_bus_timed_pop (bus, timeout))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *err = NULL;

      gst_message_parse_error (m, &err, NULL);
      g_printerr ("bench-cpu: %s: %s\n", GST_OBJECT_NAME (m->src),
          err->message);
      g_clear_error (&err);
      ok = FALSE;
    }
    gst_message_unref (m);
    timeout = 0;
  }
  gst_object_unref (bus);
  return ok;
}

/* ---- children ------------------------------------------------------------ */

typedef struct
{
  guint warmup, window;
  gint count;                   /* atomic */
  gint done;                    /* atomic */
  gint64 start;                 /* monotonic µs */
  gint last_ms;                 /* atomic, last packet, ms after start */
} RxCount;

static void
rx_count_one (RxCount * c)
{
  gint n = g_atomic_int_add (&c->count, 1) + 1;

  if ((guint) n == c->warmup)
    bench_window_begin ();
  if ((guint) n == c->warmup + c->window) {
    bench_window_end ();
    g_atomic_int_set (&c->done, 1);
  }
}

static GstPadProbeReturn
rx_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  RxCount *c = data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    guint n = gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info));

    for (guint i = 0; i < n; i++)
      rx_count_one (c);
  } else {
    rx_count_one (c);
  }
  g_atomic_int_set (&c->last_ms,
      (gint) ((g_get_monotonic_time () - c->start) / 1000));
  return GST_PAD_PROBE_OK;
}

static gint
child_rx (const Scenario * s, guint warmup, guint window)
{
  GError *err = NULL;
  guint port = 0;
  GstElement *pipeline = bench_pipeline_bound (s->launch, "net", &port, &err);
  GstElement *sink;
  GstPad *pad;
  RxCount c = { warmup, window, 0, 0, g_get_monotonic_time (), 0 };
  gint rc = 0;

  if (!pipeline) {
    g_printerr ("bench-cpu: %s\n", err->message);
    return 1;
  }
  /* PAUSED: bound, and a live source sends nothing yet */
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, rx_probe, &c, NULL);
  gst_object_unref (pad);
  printf ("port %u\n", port);
  fflush (stdout);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  while (!g_atomic_int_get (&c.done)) {
    gint last = g_atomic_int_get (&c.last_ms);
    gint now = (gint) ((g_get_monotonic_time () - c.start) / 1000);

    if (!bus_ok (pipeline, 100 * GST_MSECOND)) {
      rc = 1;
      break;
    }
    /* the sender stopped before the window was full (a child too slow to
     * keep up): end the window where it is */
    if ((last && now - last > 3000) || (!last && now > 120000)) {
      if ((guint) g_atomic_int_get (&c.count) >= warmup)
        bench_window_end ();
      break;
    }
  }
  {
    guint n = (guint) g_atomic_int_get (&c.count);
    guint in_window = n < warmup ? 0 : MIN (n - warmup, window);

    printf ("result packets=%u total=%u cpu_ns=%" G_GUINT64_FORMAT "\n",
        in_window, n, bench_window_cpu_ns ());
    fflush (stdout);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return rc;
}

static gint
child_tx (const Scenario * s, gint port, guint warmup, guint window)
{
  gchar **parts = g_strsplit (s->launch, "@PORT@", -1);
  gchar *port_str = g_strdup_printf ("%d", port);
  gchar *desc = g_strjoinv (port_str, parts);
  GError *err = NULL;
  GstElement *pipeline = bench_pipeline_bound (desc, "net", NULL, &err);
  GstElement *src;
  GstCaps *caps;
  guint8 pkt[BENCH_PKT_SIZE];
  gint64 t0;
  gint rc = 0;
  guint i;

  g_free (desc);
  g_free (port_str);
  g_strfreev (parts);
  if (!pipeline) {
    g_printerr ("bench-cpu: %s\n", err->message);
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  caps = gst_caps_from_string (BENCH_CAPS);
  g_object_set (src, "caps", caps, "is-live", TRUE, "format", GST_FORMAT_TIME,
      "do-timestamp", TRUE, NULL);
  gst_caps_unref (caps);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  t0 = bench_mono_ns ();
  for (i = 0; i < warmup + window; i++) {
    bench_sleep_until (t0 + (gint64) i * PKT_INTERVAL_NS);
    if (i == warmup)
      bench_window_begin ();
    bench_stream_packet (i, 0, pkt);
    if (gst_app_src_push_buffer (GST_APP_SRC (src),
            gst_buffer_new_memdup (pkt, sizeof pkt)) != GST_FLOW_OK
        || !bus_ok (pipeline, 0)) {
      rc = 1;
      break;
    }
  }
  /* the last packet's processing, up to the next packet time */
  bench_sleep_until (t0 + (gint64) i * PKT_INTERVAL_NS);
  if (i > warmup)
    bench_window_end ();
  printf ("result packets=%u total=%u cpu_ns=%" G_GUINT64_FORMAT "\n",
      i > warmup ? i - warmup : 0, i, bench_window_cpu_ns ());
  fflush (stdout);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  return rc;
}

/* The decoder alone: the wire stream (media and parity, in sending order,
 * 10 ms apart) is encoded and thinned by the loss before the window. */
static gint
child_fecdec (const Scenario * s, guint warmup, guint window)
{
  RtpccFecEncoderConfig ecfg;
  RtpccFecDecoderConfig dcfg;
  RtpccFecEncoder *enc;
  RtpccFecDecoder *dec;
  RtpccLossParams lp;
  RtpccLoss loss;
  RtpccRng rng;
  GPtrArray *wire = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GArray *media_idx = g_array_new (FALSE, FALSE, sizeof (gint));
  GArray *at = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  guint8 pkt[BENCH_PKT_SIZE];
  guint received = 0;
  gboolean in_window = FALSE;
  GBytes *b;

  rtpcc_fec_encoder_config_init (&ecfg);
  ecfg.scheme = RTPCC_FEC_SCHEME_RS;
  ecfg.k = 10;
  ecfg.m = 2;
  enc = rtpcc_fec_encoder_new (&ecfg, NULL);
  rtpcc_loss_params_init (&lp);
  lp.loss = s->loss;
  rtpcc_rng_init (&rng, 7);
  rtpcc_loss_init (&loss, &lp, &rng);
  for (guint i = 0; i < warmup + window; i++) {
    RtpccTime now = (RtpccTime) i * PKT_INTERVAL_NS;
    gint idx = (gint) i;

    bench_stream_packet (i, 0, pkt);
    rtpcc_fec_encoder_push (enc, pkt, sizeof pkt, now);
    if (!rtpcc_loss_next (&loss)) {
      g_ptr_array_add (wire, g_bytes_new (pkt, sizeof pkt));
      g_array_append_val (media_idx, idx);
      g_array_append_val (at, now);
    }
    while ((b = rtpcc_fec_encoder_pop (enc))) {
      gint fec = -1;

      if (rtpcc_loss_next (&loss)) {
        g_bytes_unref (b);
        continue;
      }
      g_ptr_array_add (wire, b);
      g_array_append_val (media_idx, fec);
      g_array_append_val (at, now);
    }
  }
  rtpcc_fec_encoder_free (enc);

  rtpcc_fec_decoder_config_init (&dcfg);
  dec = rtpcc_fec_decoder_new (&dcfg);
  for (guint w = 0; w < wire->len; w++) {
    gint idx = g_array_index (media_idx, gint, w);
    RtpccTime now = g_array_index (at, RtpccTime, w);
    gsize len;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (wire, w), &len);

    if (!in_window && idx >= (gint) warmup) {
      bench_window_begin ();
      in_window = TRUE;
    }
    if (idx >= 0) {
      rtpcc_fec_decoder_push_media (dec, d, len, now);
      received += in_window;
    } else {
      rtpcc_fec_decoder_push_fec (dec, d, len, now);
    }
    while ((b = rtpcc_fec_decoder_pop (dec, now, NULL)))
      g_bytes_unref (b);
  }
  if (in_window)
    bench_window_end ();
  printf ("result packets=%u total=%u cpu_ns=%" G_GUINT64_FORMAT "\n",
      received, wire->len, bench_window_cpu_ns ());
  fflush (stdout);
  rtpcc_fec_decoder_free (dec);
  g_ptr_array_unref (wire);
  g_array_unref (media_idx);
  g_array_unref (at);
  return 0;
}

#define SENDBUF_STANDING 1000
#define SENDBUF_STREAMS 10

static void
sendbuf_packet (guint i, RtpccSendbufPacket * p)
{
  memset (p, 0, sizeof *p);
  p->ssrc = 0x100 + i % SENDBUF_STREAMS;
  p->seq = (guint16) (i / SENDBUF_STREAMS);
  p->rtp_ts = i;
  p->marker = TRUE;
  p->size = BENCH_PKT_SIZE;
  /* audio-like and video-like streams */
  p->priority = (i % SENDBUF_STREAMS) < 2 ? RTPCC_SENDBUF_PRIORITY_AUDIO :
      RTPCC_SENDBUF_PRIORITY_VIDEO;
  p->created = (RtpccTime) i * RTPCC_MSEC (1);
  p->type_unknown = TRUE;
}

static gint
child_sendbuf (const Scenario * s, guint warmup, guint window)
{
  gboolean naive = g_str_equal (s->name, "sendbuf-naive");
  RtpccSendbufConfig cfg;
  RtpccSendbuf *ours = NULL;
  NaiveSendbuf *ref = NULL;
  RtpccSendbufPacket p;
  RtpccTime now;
  guint i = 0, sent = 0;

  rtpcc_sendbuf_config_init (&cfg);
  cfg.policy = RTPCC_SENDBUF_SFDPS2;
  cfg.budget = RTPCC_SEC (3600);        /* nothing expires */
  if (naive)
    ref = naive_sendbuf_new (&cfg);
  else
    ours = rtpcc_sendbuf_new (&cfg);
  for (; i < SENDBUF_STANDING; i++) {
    sendbuf_packet (i, &p);
    if (naive)
      naive_sendbuf_enqueue (ref, p.created, &p, NULL);
    else
      rtpcc_sendbuf_enqueue (ours, p.created, &p, NULL);
  }
  for (guint step = 0; step < warmup + window; step++, i++) {
    RtpccSendbufOut out;
    const RtpccSendbufStats *st;

    if (step == warmup)
      bench_window_begin ();
    sendbuf_packet (i, &p);
    now = p.created;
    if (naive) {
      naive_sendbuf_enqueue (ref, now, &p, NULL);
      naive_sendbuf_dequeue (ref, now, &out);
      st = naive_sendbuf_get_stats (ref);
    } else {
      rtpcc_sendbuf_enqueue (ours, now, &p, NULL);
      rtpcc_sendbuf_dequeue (ours, now, &out);
      st = rtpcc_sendbuf_get_stats (ours);
    }
    sent += step >= warmup;
    if (st->queued_frames != SENDBUF_STANDING) {
      g_printerr ("bench-cpu: %s: %u frames standing\n", s->name,
          st->queued_frames);
      return 1;
    }
  }
  bench_window_end ();
  printf ("result packets=%u total=%u cpu_ns=%" G_GUINT64_FORMAT "\n",
      sent, sent, bench_window_cpu_ns ());
  fflush (stdout);
  if (naive)
    naive_sendbuf_free (ref);
  else
    rtpcc_sendbuf_free (ours);
  return 0;
}

/* ---- parent -------------------------------------------------------------- */

typedef struct
{
  gchar *valgrind;
  guint warmup, window, reps;
  /* the decoder alone runs as fast as it can: a longer stream (its cost
   * per packet at 30 % loss still creeps up with the stream's length) */
  guint fec_warmup, fec_window;
} Opts;

/* The child's cost per packet in its result line (or callgrind's). */
static gdouble
child_cost (const Opts * o, BenchChild * child, const gchar * result)
{
  guint64 pkts = bench_line_get (result, "packets");

  if (pkts == 0)
    return -1;
  return (gdouble) (o->valgrind ? bench_child_instructions (child) :
      bench_line_get (result, "cpu_ns")) / pkts;
}

static gdouble
run_child (const Scenario * s, const Opts * o, BenchChild * child)
{
  gchar *result = bench_child_expect (child, "result", 600000);
  gdouble cost = -1;

  if (!bench_child_wait (child, 120000) || !result)
    g_printerr ("bench-cpu: %s failed\n", s->name);
  else
    cost = child_cost (o, child, result);
  g_free (result);
  return cost;
}

/* Runs the child for @s and returns its cost per packet (instructions, or
 * CPU ns without valgrind); < 0 on failure. */
static gdouble
run_rx (const Scenario * s, const Opts * o, BenchChild * child)
{
  gint sock = socket (AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  struct sockaddr_in me = { 0, }, to = { 0, };
  gchar *line, *result = NULL;
  guint8 pkt[BENCH_PKT_SIZE], fb[2048];
  guint64 fb_bytes = 0;
  gint64 t0;
  /* packets beyond the window: the chain's own latency, and slack for a
   * child that fell behind */
  guint max = o->warmup + o->window + 3 * BENCH_PKT_RATE;
  gdouble cost = -1;

  me.sin_family = AF_INET;
  me.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (sock < 0 || bind (sock, (struct sockaddr *) &me, sizeof me) < 0) {
    g_printerr ("bench-cpu: socket: %s\n", g_strerror (errno));
    goto out;
  }
  line = bench_child_expect (child, "port", 120000);
  if (!line) {
    g_printerr ("bench-cpu: %s: no port from the child\n", s->name);
    goto out;
  }
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  to.sin_port = htons ((guint16) g_ascii_strtoull (line + 5, NULL, 10));
  g_free (line);

  t0 = bench_mono_ns ();
  for (guint i = 0; i < max && !result; i++) {
    gint64 wait_ms = (t0 + (gint64) i * PKT_INTERVAL_NS - bench_mono_ns ()) /
        1000000;

    while ((line = bench_child_read_line (child, (gint) MAX (wait_ms, 0)))) {
      if (g_str_has_prefix (line, "result ")) {
        result = line;
        break;
      }
      g_printerr ("%s\n", line);
      g_free (line);
    }
    bench_sleep_until (t0 + (gint64) i * PKT_INTERVAL_NS);
    bench_stream_packet (i, 0, pkt);
    sendto (sock, pkt, sizeof pkt, 0, (struct sockaddr *) &to, sizeof to);
    for (;;) {
      gssize n = recv (sock, fb, sizeof fb, 0);

      if (n <= 0)
        break;
      fb_bytes += n;
    }
  }
  if (!result)
    result = bench_child_expect (child, "result", 60000);
  if (!bench_child_wait (child, 120000) || !result) {
    g_printerr ("bench-cpu: %s failed\n", s->name);
    goto out;
  }
  {
    guint64 pkts = bench_line_get (result, "packets");

    cost = child_cost (o, child, result);
    if (pkts < o->window)
      bench_note ("%s: only %" G_GUINT64_FORMAT " of %u window packets "
          "arrived", s->name, pkts, o->window);
  }
out:
  g_free (result);
  if (sock >= 0)
    close (sock);
  return cost;
}

static gdouble
run_tx (const Scenario * s, const Opts * o, BenchChild * child,
    GstElement * peer)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (peer), "net");
  GstStructure *st = NULL;
  guint64 got = 0;
  gchar *result = bench_child_expect (child, "result",
      (gint) ((o->warmup + o->window) * 10 + 300000));
  gdouble cost = -1;

  if (!bench_child_wait (child, 120000) || !result) {
    g_printerr ("bench-cpu: %s failed\n", s->name);
  } else {
    cost = child_cost (o, child, result);
    /* everything pushed must have reached the peer (FEC comes on top) */
    g_object_get (src, "stats", &st, NULL);
    gst_structure_get_uint64 (st, "packets-received", &got);
    if (got < bench_line_get (result, "total"))
      bench_note ("%s: the peer received %" G_GUINT64_FORMAT " of %"
          G_GUINT64_FORMAT " packets", s->name, got,
          bench_line_get (result, "total"));
    gst_structure_free (st);
  }
  g_free (result);
  gst_object_unref (src);
  return cost;
}

static gdouble
measure_once (const Scenario * s, const Opts * o)
{
  gchar warmup[16], window[16], port[16];
  const gchar *args[] = { "--child", s->name, "--warmup", warmup,
    "--window", window, "--port", port, NULL
  };
  GstElement *peer = NULL;
  BenchChild *child;
  GError *err = NULL;
  gdouble cost;

  g_snprintf (warmup, sizeof warmup, "%u",
      s->kind == KIND_FECDEC ? o->fec_warmup : o->warmup);
  g_snprintf (window, sizeof window, "%u",
      s->kind == KIND_FECDEC ? o->fec_window : o->window);
  g_snprintf (port, sizeof port, "0");
  if (s->kind == KIND_TX) {
    gchar *desc = g_strdup_printf ("rtpccsrc name=net port=0 feedback=%s "
        RX_CAPS " ! fakesink", s->peer_feedback);
    guint p = 0;

    peer = bench_pipeline_bound (desc, "net", &p, &err);
    g_free (desc);
    if (!peer) {
      g_printerr ("bench-cpu: peer: %s\n", err->message);
      g_clear_error (&err);
      return -1;
    }
    gst_element_set_state (peer, GST_STATE_PLAYING);
    g_snprintf (port, sizeof port, "%u", p);
  }
  child = bench_child_spawn (o->valgrind, args, &err);
  if (!child) {
    g_printerr ("bench-cpu: %s\n", err->message);
    g_clear_error (&err);
    cost = -1;
  } else if (s->kind == KIND_RX) {
    cost = run_rx (s, o, child);
  } else if (s->kind == KIND_TX) {
    cost = run_tx (s, o, child, peer);
  } else {
    cost = run_child (s, o, child);
  }
  bench_child_free (child);
  if (peer) {
    gst_element_set_state (peer, GST_STATE_NULL);
    gst_object_unref (peer);
  }
  return cost;
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Median of o->reps runs (each scenario measured once per program run and
 * remembered: tx-ccfb is ours in one line and the baseline in another). */
static gdouble
measure (const Scenario * s, const Opts * o, GHashTable * cache)
{
  gdouble *cached = g_hash_table_lookup (cache, s->name);
  gdouble *v, med;

  if (cached)
    return *cached;
  v = g_new (gdouble, o->reps);
  for (guint r = 0; r < o->reps; r++)
    v[r] = measure_once (s, o);
  qsort (v, o->reps, sizeof (gdouble), cmp_double);
  med = v[o->reps / 2];
  if (o->reps > 1)
    bench_note ("%s (%u runs): min %.0f, median %.0f, max %.0f", s->name,
        o->reps, v[0], med, v[o->reps - 1]);
  g_free (v);
  cached = g_new (gdouble, 1);
  *cached = med;
  g_hash_table_insert (cache, (gpointer) s->name, cached);
  return med;
}

int
main (int argc, char **argv)
{
  gchar *child = NULL;
  gint port = 0, warmup = -1, window = -1, reps = 1;
  gboolean quick = FALSE, smoke = FALSE, no_valgrind = FALSE;
  GOptionEntry entries[] = {
    {"quick", 0, 0, G_OPTION_ARG_NONE, &quick, "Shorter window", NULL},
    {"smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
        "A few packets, no valgrind: does it run (for meson test)", NULL},
    {"no-valgrind", 0, 0, G_OPTION_ARG_NONE, &no_valgrind,
        "Process CPU time instead of callgrind", NULL},
    {"reps", 0, 0, G_OPTION_ARG_INT, &reps, "Runs per figure (median)", "N"},
    {"warmup", 0, 0, G_OPTION_ARG_INT, &warmup, "Packets before the window",
        "W"},
    {"window", 0, 0, G_OPTION_ARG_INT, &window, "Packets counted", "N"},
    {"child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &child, NULL,
        NULL},
    {"port", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &port, NULL, NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("[PATH...] - per-packet CPU "
      "cost, ours vs stock");
  GError *err = NULL;
  GHashTable *cache;
  Opts o;
  gint rc = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  gst_init (NULL, NULL);
  if (warmup < 0)
    warmup = smoke ? 20 : quick ? 200 : 300;
  if (window < 0)
    window = smoke ? 30 : quick ? 400 : 1000;

  if (child) {
    const Scenario *s = find_scenario (child);

    if (!s)
      return 2;
    switch (s->kind) {
      case KIND_RX:
        return child_rx (s, (guint) warmup, (guint) window);
      case KIND_TX:
        return child_tx (s, port, (guint) warmup, (guint) window);
      case KIND_SENDBUF:
        return child_sendbuf (s, (guint) warmup, (guint) window);
      default:
        return child_fecdec (s, (guint) warmup, (guint) window);
    }
  }

  o.valgrind = bench_find_valgrind (no_valgrind || smoke);
  o.warmup = (guint) warmup;
  o.window = (guint) window;
  o.reps = (guint) MAX (reps, 1);
  o.fec_warmup = smoke ? 50 : 500;
  o.fec_window = smoke ? 200 : quick ? 3000 : 10000;
  bench_note ("bench-cpu: %s, warm-up %u packets, window %u packets "
      "(FEC decoder: %u and %u media packets), %u run(s) per figure",
      o.valgrind ? "callgrind instructions" :
      "process CPU time (no valgrind)", o.warmup, o.window, o.fec_warmup,
      o.fec_window, o.reps);
  cache = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  for (guint p = 0; p < G_N_ELEMENTS (paths); p++) {
    const Path *path = &paths[p];
    gboolean wanted = argc < 2;
    gdouble ours, base;

    for (gint a = 1; a < argc; a++)
      wanted |= g_str_equal (argv[a], path->name);
    if (!wanted)
      continue;
    ours = measure (find_scenario (path->ours), &o, cache);
    base = measure (find_scenario (path->base), &o, cache);
    if (ours < 0 || base < 0) {
      g_printerr ("bench-cpu: %s: a run failed\n", path->name);
      rc = 1;
      continue;
    }
    bench_note ("%s: %s", path->name, path->what);
    bench_report (path->name, ours, o.valgrind ? "instr/pkt" : "ns/pkt",
        base, NULL, BENCH_GOAL_RATIO_LE, path->goal,
        o.valgrind ? NULL : "process CPU time");
  }
  g_hash_table_unref (cache);
  g_free (o.valgrind);
  return rc;
}

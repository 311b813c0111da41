/* FEC elements against GStreamer's ULPFEC ones, same packets, same run: fecenc (XOR, n=5: one parity per 5 media packets)
 * against rtpulpfecenc percentage=20 multipacket=true (the same overhead),
 * and fecdec against rtpstorage + rtpulpfecdec, each decoding its own
 * encoder's output through the same seeded 5 % Bernoulli loss.
 *
 * Each element runs in a GstHarness whose test clock advances 10 ms per
 * media packet (bench-stream.h's 100 packets/s). The stock decoder needs
 * rtpstorage on arrival and rtpjitterbuffer's GstRTPPacketLost events
 * after its latency; the jitter buffer is emulated by releasing packets and
 * loss events 16 wire packets late (more than a block: the parity has
 * arrived by then), in order.
 *
 * Wall clock (the goal's measure): the best of R passes (the least
 * disturbed on a shared machine) of the whole push/pull loop, per media
 * packet; noisy. Instructions (where valgrind is installed): the same loop
 * in a child process under callgrind (bench-measure.h), per media packet;
 * repeatable, the figure to follow while optimising.
 *
 *   bench-fec-elements [--packets N] [--reps R] [--smoke] [--no-valgrind]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench-measure.h"
#include "bench-report.h"
#include "bench-stream.h"

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <rtpcc/net/loss.h>

#include <stdio.h>

#define FEC_PT 122
#define STEP (GST_SECOND / BENCH_PKT_RATE)
#define JB_LAG 16
#define LOSS 0.05
#define CALLGRIND_PACKETS 5000

/* in a child under callgrind, the timed loop is the counted window */
static gboolean in_child;

static gint64
loop_begin (void)
{
  if (in_child)
    bench_window_begin ();
  return g_get_monotonic_time ();
}

/* ns since @t0 */
static gint64
loop_end (gint64 t0)
{
  gint64 t1 = g_get_monotonic_time ();

  if (in_child)
    bench_window_end ();
  return (t1 - t0) * 1000;
}

static GstBuffer *
media_buffer (guint i)
{
  guint8 pkt[BENCH_PKT_SIZE];
  GstBuffer *b;

  bench_stream_packet (i, 0, pkt);
  b = gst_buffer_new_memdup (pkt, sizeof pkt);
  GST_BUFFER_PTS (b) = (GstClockTime) i * STEP;
  return b;
}

static GstHarness *
new_encoder (gboolean ours)
{
  GstHarness *h = gst_harness_new (ours ? "fecenc" : "rtpulpfecenc");

  if (ours)
    g_object_set (h->element, "follow-target", FALSE, "n", 5, "pt", FEC_PT,
        NULL);
  else
    g_object_set (h->element, "pt", FEC_PT, "percentage", 20,
        "multipacket", TRUE, NULL);
  gst_harness_set_src_caps_str (h, BENCH_CAPS ",ssrc=(uint)1592590337");
  return h;
}

/* Encodes @n media packets; with @wire, keeps what came out (arrival time
 * in the PTS). Returns the time of the push/pull loop in ns. */
static gint64
encode (gboolean ours, guint n, GPtrArray * wire)
{
  GstHarness *h = new_encoder (ours);
  GPtrArray *in = g_ptr_array_new ();
  GstBuffer *b;
  gint64 t0, elapsed;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (in, media_buffer (i));
  t0 = loop_begin ();
  for (guint i = 0; i < n; i++) {
    gst_harness_set_time (h, (GstClockTime) i * STEP);
    gst_harness_push (h, g_ptr_array_index (in, i));
    while ((b = gst_harness_try_pull (h))) {
      if (wire) {
        b = gst_buffer_make_writable (b);
        GST_BUFFER_PTS (b) = (GstClockTime) i * STEP;
        g_ptr_array_add (wire, b);
      } else {
        gst_buffer_unref (b);
      }
    }
  }
  elapsed = loop_end (t0);
  g_ptr_array_unref (in);
  gst_harness_teardown (h);
  return elapsed;
}

static guint8
buf_pt (GstBuffer * b)
{
  guint8 x = 0;

  gst_buffer_extract (b, 1, &x, 1);
  return x & 0x7f;
}

static guint16
buf_seq (GstBuffer * b)
{
  guint8 x[4] = { 0, };

  gst_buffer_extract (b, 0, x, 4);
  return (guint16) ((x[2] << 8) | x[3]);
}

/* What arrives of @wire through the seeded loss (same draws for both). */
static GPtrArray *
thin (GPtrArray * wire)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  RtpccLossParams lp;
  RtpccLoss loss;
  RtpccRng rng;

  rtpcc_loss_params_init (&lp);
  lp.loss = LOSS;
  rtpcc_rng_init (&rng, 11);
  rtpcc_loss_init (&loss, &lp, &rng);
  for (guint i = 0; i < wire->len; i++)
    if (!rtpcc_loss_next (&loss))
      g_ptr_array_add (out, gst_buffer_ref (g_ptr_array_index (wire, i)));
  return out;
}

static void
drain (GstHarness * h, guint * media_out)
{
  GstBuffer *b;
  GstEvent *e;

  while ((b = gst_harness_try_pull (h))) {
    *media_out += buf_pt (b) != FEC_PT;
    gst_buffer_unref (b);
  }
  while ((e = gst_harness_try_pull_event (h)))
    gst_event_unref (e);
}

static gint64
decode_ours (GPtrArray * arrived, guint * media_out, guint * recovered)
{
  GstHarness *h = gst_harness_new ("fecdec");
  GstStructure *st = NULL;
  guint64 rec = 0;
  gint64 t0, elapsed;

  g_object_set (h->element, "pt", FEC_PT, NULL);
  gst_harness_set_src_caps_str (h, BENCH_CAPS);
  *media_out = 0;
  t0 = loop_begin ();
  for (guint i = 0; i < arrived->len; i++) {
    GstBuffer *b = g_ptr_array_index (arrived, i);

    gst_harness_set_time (h, GST_BUFFER_PTS (b));
    gst_harness_push (h, gst_buffer_ref (b));
    drain (h, media_out);
  }
  elapsed = loop_end (t0);
  g_object_get (h->element, "stats", &st, NULL);
  gst_structure_get_uint64 (st, "recovered", &rec);
  gst_structure_free (st);
  *recovered = (guint) rec;
  gst_harness_teardown (h);
  return elapsed;
}

typedef struct
{
  GstBuffer *buf;               /* NULL: a loss event for seq */
  guint16 seq;
} JbEntry;

static void
jb_release (GstHarness * dec, const JbEntry * e, guint * media_out)
{
  if (e->buf) {
    gst_harness_push (dec, e->buf);
  } else {
    gst_harness_push_event (dec, gst_event_new_custom
        (GST_EVENT_CUSTOM_DOWNSTREAM, gst_structure_new ("GstRTPPacketLost",
                "seqnum", G_TYPE_UINT, (guint) e->seq,
                "timestamp", G_TYPE_UINT64, (guint64) 0,
                "duration", G_TYPE_UINT64, (guint64) 0,
                "retry", G_TYPE_UINT, 0, NULL)));
  }
  drain (dec, media_out);
}

static gint64
decode_stock (GPtrArray * arrived, guint * media_out, guint * recovered)
{
  GstHarness *store = gst_harness_new ("rtpstorage");
  GstHarness *dec = gst_harness_new ("rtpulpfecdec");
  GObject *storage = NULL;
  GQueue jb = G_QUEUE_INIT;
  gboolean started = FALSE;
  guint16 expect = 0;
  GstBuffer *b;
  gint64 t0, elapsed;

  g_object_set (store->element, "size-time", (guint64) GST_SECOND, NULL);
  g_object_get (store->element, "internal-storage", &storage, NULL);
  g_object_set (dec->element, "pt", FEC_PT, "storage", storage, NULL);
  gst_harness_set_src_caps_str (store, BENCH_CAPS ",ssrc=(uint)1592590337");
  gst_harness_set_src_caps_str (dec, BENCH_CAPS ",ssrc=(uint)1592590337");
  *media_out = 0;
  t0 = loop_begin ();
  for (guint i = 0; i < arrived->len; i++) {
    GstBuffer *in = g_ptr_array_index (arrived, i);

    gst_harness_set_time (store, GST_BUFFER_PTS (in));
    gst_harness_set_time (dec, GST_BUFFER_PTS (in));
    gst_harness_push (store, gst_buffer_ref (in));
    while ((b = gst_harness_try_pull (store))) {
      guint16 seq = buf_seq (b);
      JbEntry *e;

      /* every seq skipped is a loss the jitter buffer will announce */
      for (; started && expect != seq; expect++) {
        e = g_new (JbEntry, 1);
        e->buf = NULL;
        e->seq = expect;
        g_queue_push_tail (&jb, e);
      }
      started = TRUE;
      expect = seq + 1;
      e = g_new (JbEntry, 1);
      e->buf = b;
      e->seq = seq;
      g_queue_push_tail (&jb, e);
    }
    while (jb.length > JB_LAG) {
      JbEntry *e = g_queue_pop_head (&jb);

      jb_release (dec, e, media_out);
      g_free (e);
    }
  }
  elapsed = loop_end (t0);
  g_object_get (dec->element, "recovered", recovered, NULL);
  while (jb.length) {
    JbEntry *e = g_queue_pop_head (&jb);

    if (e->buf)
      gst_buffer_unref (e->buf);
    g_free (e);
  }
  g_object_unref (storage);
  gst_harness_teardown (store);
  gst_harness_teardown (dec);
  return elapsed;
}

/* The decoders' input: each encoder's wire stream, thinned alike. */
static void
make_inputs (guint n, GPtrArray ** arrived)
{
  for (guint ours = 0; ours < 2; ours++) {
    GPtrArray *wire = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);

    encode (ours, n, wire);
    arrived[ours] = thin (wire);
    g_ptr_array_unref (wire);
  }
}

static const gchar *const cases[] = { "enc-stock", "enc-ours", "dec-stock",
  "dec-ours"
};

/* One case of cases[] in a child under callgrind: the loop is the window. */
static gint
child_main (const gchar * name, guint n)
{
  GPtrArray *arrived[2];
  guint out = 0, rec = 0;

  in_child = TRUE;
  if (g_str_has_prefix (name, "enc-")) {
    encode (g_str_equal (name, "enc-ours"), n, NULL);
  } else {
    in_child = FALSE;
    make_inputs (n, arrived);
    in_child = TRUE;
    if (g_str_equal (name, "dec-ours"))
      decode_ours (arrived[1], &out, &rec);
    else
      decode_stock (arrived[0], &out, &rec);
    g_ptr_array_unref (arrived[0]);
    g_ptr_array_unref (arrived[1]);
  }
  printf ("result packets=%u\n", n);
  fflush (stdout);
  return 0;
}

/* Instructions per media packet of cases[@i] (callgrind), < 0 on failure. */
static gdouble
instructions (const gchar * valgrind, guint i)
{
  gchar num[16];
  const gchar *args[] = { "--child", cases[i], "--packets", num, NULL };
  GError *err = NULL;
  BenchChild *child;
  gchar *result;
  gdouble v = -1;

  g_snprintf (num, sizeof num, "%u", CALLGRIND_PACKETS);
  child = bench_child_spawn (valgrind, args, &err);
  if (!child) {
    g_printerr ("bench-fec-elements: %s\n", err->message);
    g_clear_error (&err);
    return -1;
  }
  result = bench_child_expect (child, "result", 600000);
  if (bench_child_wait (child, 60000) && result)
    v = (gdouble) bench_child_instructions (child) / CALLGRIND_PACKETS;
  g_free (result);
  bench_child_free (child);
  return v;
}

int
main (int argc, char **argv)
{
  gint n = 20000, reps = 7;
  gboolean smoke = FALSE, no_valgrind = FALSE;
  gchar *child = NULL, *valgrind;
  GOptionEntry entries[] = {
    {"packets", 'n', 0, G_OPTION_ARG_INT, &n, "Media packets per pass", "N"},
    {"reps", 0, 0, G_OPTION_ARG_INT, &reps, "Passes (best counts)", "R"},
    {"smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
        "One short pass, no valgrind", NULL},
    {"no-valgrind", 0, 0, G_OPTION_ARG_NONE, &no_valgrind,
        "Wall clock only", NULL},
    {"child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &child, NULL,
        NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- FEC elements vs ULPFEC");
  GError *err = NULL;
  gint64 enc[2] = { G_MAXINT64, G_MAXINT64 }, dec[2] = { G_MAXINT64,
    G_MAXINT64
  };
  GPtrArray *arrived[2];
  guint out[2] = { 0, }, rec[2] = { 0, };
  gchar *noisy;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  gst_init (NULL, NULL);
  if (smoke) {
    n = 500;
    reps = 1;
  }
  n = MAX (n, 100);
  reps = MAX (reps, 1);
  {
    static const gchar *need[] = { "fecenc", "fecdec", "rtpulpfecenc",
      "rtpulpfecdec", "rtpstorage"
    };

    for (guint i = 0; i < G_N_ELEMENTS (need); i++) {
      GstElementFactory *f = gst_element_factory_find (need[i]);

      if (!f) {
        g_printerr ("bench-fec-elements: no element %s (GST_PLUGIN_PATH?)\n",
            need[i]);
        return 1;
      }
      gst_object_unref (f);
    }
  }
  if (child)
    return child_main (child, (guint) n);

  make_inputs ((guint) n, arrived);
  /* alternate ours and stock, so both see the same machine load */
  for (gint r = 0; r < reps; r++) {
    for (guint ours = 0; ours < 2; ours++) {
      enc[ours] = MIN (enc[ours], encode (ours, (guint) n, NULL));
      dec[ours] = MIN (dec[ours], ours ?
          decode_ours (arrived[1], &out[1], &rec[1]) :
          decode_stock (arrived[0], &out[0], &rec[0]));
    }
  }
  noisy = g_strdup_printf ("wall clock, best of %d", reps);
  bench_note ("bench-fec-elements: %d media packets of %d B; decoders at "
      "%.0f %% loss: fecdec recovered %u, delivered %u; rtpulpfecdec "
      "recovered %u, delivered %u", n, BENCH_PKT_SIZE, LOSS * 100, rec[1],
      out[1], rec[0], out[0]);
  bench_note ("fec-enc-wall: fecenc n=5 vs rtpulpfecenc percentage=20 "
      "multipacket=true");
  bench_report ("fec-enc-wall", (gdouble) enc[1] / n, "ns/pkt",
      (gdouble) enc[0] / n, NULL, BENCH_GOAL_RATIO_LE, 1.0, noisy);
  bench_note ("fec-dec-wall: fecdec vs rtpstorage + rtpulpfecdec "
      "(jitter buffer emulated)");
  bench_report ("fec-dec-wall", (gdouble) dec[1] / n, "ns/pkt",
      (gdouble) dec[0] / n, NULL, BENCH_GOAL_RATIO_LE, 1.0, noisy);
  g_free (noisy);
  g_ptr_array_unref (arrived[0]);
  g_ptr_array_unref (arrived[1]);

  valgrind = bench_find_valgrind (no_valgrind || smoke);
  if (valgrind) {
    gdouble v[G_N_ELEMENTS (cases)];

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      v[i] = instructions (valgrind, i);
    bench_note ("fec-enc-instr: the encoders' loop under callgrind, %d "
        "media packets", CALLGRIND_PACKETS);
    if (v[0] > 0 && v[1] > 0)
      bench_report ("fec-enc-instr", v[1], "instr/pkt", v[0], NULL,
          BENCH_GOAL_NONE, 0, NULL);
    bench_note ("fec-dec-instr: the decoders' loop under callgrind");
    if (v[2] > 0 && v[3] > 0)
      bench_report ("fec-dec-instr", v[3], "instr/pkt", v[2], NULL,
          BENCH_GOAL_NONE, 0, NULL);
    g_free (valgrind);
  }
  return 0;
}

/* FEC benchmark: residual media loss vs overhead for our XOR, RS and 2-D
 * XOR (library, sans-I/O) and GStreamer's stock rtpulpfecenc/rtpulpfecdec
 * (driven through GstHarness with an emulated jitter buffer), over
 * Bernoulli and Gilbert-Elliott loss from the library's RtpccLoss
 * (seeded: the numbers replay exactly); then encode / decode throughput.
 *
 *   bench-fec [--packets N] [--csv FILE] [--quick]
 *
 * CSV columns: model,loss_pct,scheme,param,overhead_pkt_pct,
 * overhead_byte_pct,residual_pct,recovered,lost_media
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/fec.h>
#include <rtpcc/fec/strength.h>
#include <stdio.h>
#include <string.h>
#include "rtp-header.h"

#define MEDIA_SSRC 0x12345678
#define FEC_PT 122

typedef struct
{
  GPtrArray *pkts;              /* GBytes, the media stream */
  guint64 bytes;
} Stream;

/* A video-like stream: frames of 1..6 packets, 300..1200 bytes, marker on
 * each frame's last packet, 90 kHz timestamps at 30 fps. */
static void
make_stream (Stream * s, guint n, guint64 seed)
{
  RtpccRng rng;
  guint i = 0, frame = 0;

  rtpcc_rng_init (&rng, seed);
  s->pkts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  s->bytes = 0;
  while (i < n) {
    guint np = 1 + (guint) rtpcc_rng_below (&rng, 6);

    for (guint j = 0; j < np && i < n; j++, i++) {
      gsize len = 300 + rtpcc_rng_below (&rng, 901);
      guint8 *p = g_malloc (len);
      guint32 ts = frame * 3000;

      for (gsize b = 12; b < len; b++)
        p[b] = (guint8) rtpcc_rng_below (&rng, 256);
      bench_rtp_header (p, j == np - 1, (guint16) i, ts, MEDIA_SSRC);
      s->bytes += len;
      g_ptr_array_add (s->pkts, g_bytes_new_take (p, len));
    }
    frame++;
  }
}

typedef struct
{
  const gchar *model;
  gdouble loss;                 /* mean */
  RtpccLossParams params;
} LossCase;

typedef struct
{
  gdouble overhead_pkt, overhead_byte, residual;
  guint64 recovered, lost_media;
} Result;

/* Ours: encoder -> loss over every wire packet -> decoder. */
static void
run_ours (const Stream * s, const RtpccFecEncoderConfig * ecfg,
    const LossCase * lc, guint64 seed, Result * r)
{
  GError *err = NULL;
  RtpccFecEncoder *enc = ecfg ? rtpcc_fec_encoder_new (ecfg, &err) : NULL;
  RtpccFecDecoderConfig dcfg;
  RtpccFecDecoder *dec;
  RtpccFecDecoderStats st;
  RtpccFecEncoderStats es = { 0, };
  RtpccRng rng;
  RtpccLoss loss;
  GBytes *b;
  guint64 fec_pkts = 0, fec_bytes = 0, out = 0;

  /* a code the encoder refuses must not pass for no FEC */
  if (ecfg && !enc)
    g_error ("bench-fec: %s", err->message);
  rtpcc_rng_init (&rng, seed);
  rtpcc_loss_init (&loss, &lc->params, &rng);
  rtpcc_fec_decoder_config_init (&dcfg);
  /* coding power only: no playout deadline (a hole waits 1 s of packets) */
  dcfg.deadline = RTPCC_SEC (1);
  dec = rtpcc_fec_decoder_new (&dcfg);
  r->lost_media = 0;
  for (guint i = 0; i < s->pkts->len; i++) {
    gsize len;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (s->pkts, i), &len);
    RtpccTime now = RTPCC_MSEC (i);

    if (enc)
      rtpcc_fec_encoder_push (enc, d, len, now);
    if (!rtpcc_loss_next (&loss))
      rtpcc_fec_decoder_push_media (dec, d, len, now);
    else
      r->lost_media++;
    while (enc && (b = rtpcc_fec_encoder_pop (enc)) != NULL) {
      const guint8 *f = g_bytes_get_data (b, &len);

      fec_pkts++;
      fec_bytes += len;
      if (!rtpcc_loss_next (&loss))
        rtpcc_fec_decoder_push_fec (dec, f, len, now);
      g_bytes_unref (b);
    }
    while ((b = rtpcc_fec_decoder_pop (dec, now, NULL)) != NULL) {
      out++;
      g_bytes_unref (b);
    }
  }
  if (enc) {
    rtpcc_fec_encoder_flush (enc);
    while ((b = rtpcc_fec_encoder_pop (enc)) != NULL) {
      gsize len;
      const guint8 *f = g_bytes_get_data (b, &len);

      fec_pkts++;
      fec_bytes += len;
      if (!rtpcc_loss_next (&loss))
        rtpcc_fec_decoder_push_fec (dec, f, len, RTPCC_MSEC (s->pkts->len));
      g_bytes_unref (b);
    }
    rtpcc_fec_encoder_get_stats (enc, &es);
  }
  while ((b = rtpcc_fec_decoder_pop (dec, RTPCC_TIME_INFINITE, NULL))) {
    out++;
    g_bytes_unref (b);
  }
  rtpcc_fec_decoder_get_stats (dec, &st);
  r->recovered = st.recovered;
  r->overhead_pkt = 100.0 * fec_pkts / s->pkts->len;
  r->overhead_byte = 100.0 * fec_bytes / s->bytes;
  r->residual = 100.0 * (1.0 - (gdouble) out / s->pkts->len);
  rtpcc_fec_decoder_free (dec);
  rtpcc_fec_encoder_free (enc);
}

/* The code fecenc scheme=auto would choose (fec/strength.h) for each loss
 * case, FEC share and block length, run on the same stream: its predicted
 * residual (the MDS bound on the Gilbert channel fitted from the case's
 * loss and mean burst) beside the measured one, and the rate-split rule's
 * XOR (n = 1 / share) for comparison. Blocks in packets: 100 packets/s
 * with a 100 ms or 400 ms budget. */
static void
auto_table (FILE * md, const Stream * s, GPtrArray * cases)
{
  static const gdouble shares[] = { 0.1, 0.2 };
  static const guint blocks[] = { 10, 40 };

  fprintf (md, "| loss model | loss | parity share | block <= | chosen "
      "| predicted residual | measured | XOR n = 1/share, measured |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (guint c = 0; c < cases->len; c++) {
    const LossCase *lc = g_ptr_array_index (cases, c);
    gboolean bursty = lc->params.model == RTPCC_LOSS_GILBERT_ELLIOTT;

    for (guint i = 0; i < G_N_ELEMENTS (shares); i++)
      for (guint j = 0; j < G_N_ELEMENTS (blocks); j++) {
        RtpccFecChannel ch = { 0 };
        RtpccFecChoice o;
        RtpccFecEncoderConfig cfg;
        Result r, x;
        gchar code[32];

        ch.loss = lc->loss;
        ch.burst = bursty ? 1.0 / lc->params.ge_r : 1.0 / (1.0 - lc->loss);
        ch.packet_rate = 100;
        ch.budget = RTPCC_MSEC (10 * blocks[j]);
        ch.max_overhead = shares[i];
        if (!rtpcc_fec_choose (&ch, &o))
          continue;
        rtpcc_fec_encoder_config_init (&cfg);
        cfg.max_block_time = 0;
        cfg.scheme = o.scheme;
        if (o.scheme == RTPCC_FEC_SCHEME_XOR)
          cfg.n = o.k;
        else {
          cfg.k = o.k;
          cfg.m = o.m;
        }
        if (o.scheme == RTPCC_FEC_SCHEME_XOR)
          g_snprintf (code, sizeof code, "xor n=%u", o.k);
        else
          g_snprintf (code, sizeof code, "rs k=%u m=%u", o.k, o.m);
        run_ours (s, &cfg, lc, 42 + c, &r);
        cfg.scheme = RTPCC_FEC_SCHEME_XOR;
        cfg.n = (guint) (1.0 / shares[i] + 0.5);
        run_ours (s, &cfg, lc, 42 + c, &x);
        fprintf (md, "| %s | %.0f %% | %.0f %% | %u | %s | %.3f %% | %.3f %% "
            "| n=%u: %.3f %% |\n", lc->model, lc->loss * 100,
            shares[i] * 100, blocks[j], code, o.residual * 100, r.residual,
            cfg.n, x.residual);
      }
  }
  fprintf (md, "\n");
}

/* Stock: rtpulpfecenc -> loss -> rtpstorage -> (jitter buffer emulated:
 * in seq order, a lost seq announced by a GstRTPPacketLost event once 64
 * later seqs have arrived, as rtpjitterbuffer do-lost=true does after its
 * latency) -> rtpulpfecdec. */
static GstBuffer *
to_buffer (GBytes * b, guint i)
{
  GstBuffer *buf = gst_buffer_new_wrapped_bytes (b);

  GST_BUFFER_PTS (buf) = (GstClockTime) i * GST_MSECOND;
  return buf;
}

static guint16
buf_seq (GstBuffer * b)
{
  guint8 x[4];

  gst_buffer_extract (b, 0, x, 4);
  return (guint16) ((x[2] << 8) | x[3]);
}

static guint8
buf_pt (GstBuffer * b)
{
  guint8 x;

  gst_buffer_extract (b, 1, &x, 1);
  return x & 0x7f;
}

typedef struct
{
  GstHarness *store, *dec;
  gint64 released;              /* last extended seq handed to the decoder */
  gint64 highest;
  GHashTable *held;             /* ext seq -> GstBuffer */
  guint64 media_out;
  gboolean started;
} StockRx;

static void
stock_drain_dec (StockRx * rx)
{
  GstBuffer *b;

  while ((b = gst_harness_try_pull (rx->dec)) != NULL) {
    if (buf_pt (b) != FEC_PT)
      rx->media_out++;
    gst_buffer_unref (b);
  }
  while (gst_harness_try_pull_event (rx->dec))
    ;                           /* unrecovered-loss events, not counted */
}

static void
stock_release_upto (StockRx * rx, gint64 upto)
{
  while (rx->released < upto) {
    gint64 e = ++rx->released;
    GstBuffer *b = g_hash_table_lookup (rx->held, &e);

    if (b) {
      g_hash_table_steal (rx->held, &e);
      gst_harness_push (rx->dec, b);
    } else {
      GstEvent *ev = gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
          gst_structure_new ("GstRTPPacketLost",
              "seqnum", G_TYPE_UINT, (guint) (e & 0xffff),
              "timestamp", G_TYPE_UINT64, (guint64) 0,
              "duration", G_TYPE_UINT64, (guint64) 0,
              "retry", G_TYPE_UINT, 0, NULL));

      gst_harness_push_event (rx->dec, ev);
    }
    stock_drain_dec (rx);
  }
}

static void
stock_receive (StockRx * rx, GstBuffer * buf)
{
  GstBuffer *b;

  gst_harness_push (rx->store, buf);
  while ((b = gst_harness_try_pull (rx->store)) != NULL) {
    guint16 seq = buf_seq (b);
    gint64 ext, *key;

    if (!rx->started) {
      rx->highest = rx->released = (G_GINT64_CONSTANT (1) << 20) + seq - 1;
      rx->started = TRUE;
    }
    ext = rx->highest + (gint16) (guint16) (seq - (guint16) rx->highest);
    if (ext <= rx->released) {
      gst_buffer_unref (b);
      continue;
    }
    key = g_new (gint64, 1);
    *key = ext;
    g_hash_table_replace (rx->held, key, b);
    rx->highest = MAX (rx->highest, ext);
    stock_release_upto (rx, rx->highest - 64);
  }
}

static void
run_stock (const Stream * s, guint percentage, const LossCase * lc,
    guint64 seed, Result * r)
{
  GstHarness *enc = gst_harness_new ("rtpulpfecenc");
  StockRx rx = { 0, };
  GObject *storage = NULL;
  RtpccRng rng;
  RtpccLoss loss;
  GstBuffer *b;
  guint64 fec_pkts = 0, fec_bytes = 0, media_sent = 0;
  guint recovered = 0;
  const gchar *caps = "application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=VP8,payload=96,ssrc=(uint)305419896";

  g_object_set (enc->element, "pt", FEC_PT, "percentage", percentage,
      "multipacket", TRUE, NULL);
  gst_harness_set_src_caps_str (enc, caps);
  rx.store = gst_harness_new ("rtpstorage");
  g_object_set (rx.store->element, "size-time", (guint64) 10 * GST_SECOND,
      NULL);
  g_object_get (rx.store->element, "internal-storage", &storage, NULL);
  gst_harness_set_src_caps_str (rx.store, caps);
  rx.dec = gst_harness_new ("rtpulpfecdec");
  g_object_set (rx.dec->element, "pt", FEC_PT, "storage", storage, NULL);
  gst_harness_set_src_caps_str (rx.dec, caps);
  rx.held = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      (GDestroyNotify) gst_buffer_unref);

  rtpcc_rng_init (&rng, seed);
  rtpcc_loss_init (&loss, &lc->params, &rng);
  r->lost_media = 0;
  for (guint i = 0; i < s->pkts->len; i++) {
    gst_harness_push (enc, to_buffer (g_bytes_ref (g_ptr_array_index (s->pkts,
                    i)), i));
    while ((b = gst_harness_try_pull (enc)) != NULL) {
      gboolean is_fec = buf_pt (b) == FEC_PT;

      if (is_fec) {
        fec_pkts++;
        fec_bytes += gst_buffer_get_size (b);
      } else {
        media_sent++;
      }
      if (rtpcc_loss_next (&loss)) {
        r->lost_media += !is_fec;
        gst_buffer_unref (b);
      } else {
        stock_receive (&rx, b);
      }
    }
  }
  stock_release_upto (&rx, rx.highest);
  g_object_get (rx.dec->element, "recovered", &recovered, NULL);
  r->recovered = recovered;
  r->overhead_pkt = 100.0 * fec_pkts / s->pkts->len;
  r->overhead_byte = 100.0 * fec_bytes / s->bytes;
  r->residual = 100.0 * (1.0 - (gdouble) rx.media_out / s->pkts->len);
  g_hash_table_unref (rx.held);
  g_object_unref (storage);
  gst_harness_teardown (enc);
  gst_harness_teardown (rx.store);
  gst_harness_teardown (rx.dec);
}

/* ---- throughput -------------------------------------------------------- */

static void
throughput (FILE * md, guint n_pkts)
{
  static const struct
  {
    const gchar *name;
    RtpccFecScheme scheme;
    guint n, k, m;
  } cases[] = {
    {"xor n=5", RTPCC_FEC_SCHEME_XOR, 5, 10, 2},
    {"xor n=10", RTPCC_FEC_SCHEME_XOR, 10, 10, 2},
    {"rs k=10 m=2", RTPCC_FEC_SCHEME_RS, 5, 10, 2},
    {"rs k=20 m=4", RTPCC_FEC_SCHEME_RS, 5, 20, 4},
    {"xor-2d 5x4", RTPCC_FEC_SCHEME_XOR_2D, 5, 10, 2},
  };
  Stream s;
  LossCase lc = { "bernoulli", 0.05, };

  rtpcc_loss_params_init (&lc.params);
  lc.params.loss = 0.05;
  /* 1200-byte packets: the MTU-sized case */
  make_stream (&s, n_pkts, 99);
  {
    GPtrArray *full = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);

    for (guint i = 0; i < s.pkts->len; i++) {
      guint8 *p = g_malloc0 (1200);
      gsize len;
      const guint8 *d = g_bytes_get_data (g_ptr_array_index (s.pkts, i),
          &len);

      memcpy (p, d, MIN (len, 1200));
      g_ptr_array_add (full, g_bytes_new_take (p, 1200));
    }
    g_ptr_array_unref (s.pkts);
    s.pkts = full;
  }
  s.bytes = (guint64) s.pkts->len * 1200;

  fprintf (md, "| code | encode Gbit/s | encode + decode at 5 %% loss "
      "Gbit/s |\n|---|---|---|\n");
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    RtpccFecEncoderConfig cfg;
    RtpccFecEncoder *enc;
    GBytes *b;
    gint64 t0, t1;
    gdouble enc_s = G_MAXDOUBLE, both_s = G_MAXDOUBLE;
    Result r;
    guint reps = 5;

    rtpcc_fec_encoder_config_init (&cfg);
    cfg.scheme = cases[c].scheme;
    cfg.n = cases[c].n;
    cfg.k = cases[c].k;
    cfg.m = cases[c].m;
    cfg.depth = 4;
    cfg.max_block_time = 0;
    enc = rtpcc_fec_encoder_new (&cfg, NULL);
    /* best of several passes: the machine is shared, the minimum is the
     * least disturbed */
    for (guint rep = 0; rep < reps; rep++) {
      t0 = g_get_monotonic_time ();
      for (guint i = 0; i < s.pkts->len; i++) {
        gsize len;
        const guint8 *d = g_bytes_get_data (g_ptr_array_index (s.pkts, i),
            &len);

        rtpcc_fec_encoder_push (enc, d, len, 0);
        while ((b = rtpcc_fec_encoder_pop (enc)) != NULL)
          g_bytes_unref (b);
      }
      t1 = g_get_monotonic_time ();
      enc_s = MIN (enc_s, (t1 - t0) / 1e6);
    }
    rtpcc_fec_encoder_free (enc);
    for (guint rep = 0; rep < 3; rep++) {
      t0 = g_get_monotonic_time ();
      run_ours (&s, &cfg, &lc, 7, &r);
      t1 = g_get_monotonic_time ();
      both_s = MIN (both_s, (t1 - t0) / 1e6);
    }
    fprintf (md, "| %s | %.2f | %.2f |\n", cases[c].name,
        s.bytes * 8 / enc_s / 1e9, s.bytes * 8 / both_s / 1e9);
  }
  g_ptr_array_unref (s.pkts);
}

int
main (int argc, char **argv)
{
  gint n_pkts = 50000;
  gchar *csv_path = NULL, *md_path = NULL;
  gboolean quick = FALSE;
  GOptionEntry entries[] = {
    {"packets", 'n', 0, G_OPTION_ARG_INT, &n_pkts, "Media packets per run",
        "N"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_path, "CSV output", "FILE"},
    {"markdown", 0, 0, G_OPTION_ARG_FILENAME, &md_path,
        "Markdown tables output", "FILE"},
    {"quick", 0, 0, G_OPTION_ARG_NONE, &quick, "Few cases (for meson test)",
        NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- FEC residual loss bench");
  GError *err = NULL;
  static const gdouble losses[] = { 0.01, 0.03, 0.05, 0.10 };
  static const guint xor_n[] = { 14, 10, 5, 3, 2 };
  static const guint rs_km[][2] = { {20, 2}, {10, 1}, {10, 2}, {10, 3},
  {10, 5}
  };
  static const guint d2_n[] = { 10, 6, 4 };
  static const guint ulp_pct[] = { 7, 10, 20, 33, 50 };
  FILE *csv, *md;
  Stream s;
  GPtrArray *cases = g_ptr_array_new_with_free_func (g_free);

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  gst_init (NULL, NULL);
  if (quick)
    n_pkts = MIN (n_pkts, 3000);
  csv = csv_path ? fopen (csv_path, "w") : stdout;
  md = md_path ? fopen (md_path, "w") : stdout;
  if (!csv || !md) {
    g_printerr ("cannot open output\n");
    return 1;
  }
  fprintf (csv, "model,loss_pct,scheme,param,overhead_pkt_pct,"
      "overhead_byte_pct,residual_pct,recovered,lost_media\n");

  for (guint l = 0; l < G_N_ELEMENTS (losses); l++) {
    for (guint m = 0; m < 2; m++) {
      LossCase *lc = g_new0 (LossCase, 1);

      rtpcc_loss_params_init (&lc->params);
      lc->loss = losses[l];
      if (m == 0) {
        lc->model = "bernoulli";
        lc->params.loss = losses[l];
      } else {
        /* Gilbert: mean burst 1/r = 3 packets, same mean loss */
        lc->model = "gilbert-elliott";
        lc->params.model = RTPCC_LOSS_GILBERT_ELLIOTT;
        lc->params.ge_r = 1.0 / 3.0;
        lc->params.ge_p = losses[l] * lc->params.ge_r / (1.0 - losses[l]);
        lc->params.ge_k = 1.0;
        lc->params.ge_h = 0.0;
      }
      g_ptr_array_add (cases, lc);
      if (quick)
        break;
    }
    if (quick && l >= 1)
      break;
  }

  make_stream (&s, (guint) n_pkts, 1);
  fprintf (md, "| loss model | loss | code | overhead (pkts) | overhead "
      "(bytes) | residual loss |\n|---|---|---|---|---|---|\n");
  for (guint c = 0; c < cases->len; c++) {
    LossCase *lc = g_ptr_array_index (cases, c);
    RtpccFecEncoderConfig cfg;
    Result r;
    gchar param[64];

#define EMIT(scheme_name)                                                   \
    do {                                                                    \
      fprintf (csv, "%s,%.0f,%s,%s,%.2f,%.2f,%.3f,%" G_GUINT64_FORMAT ",%"  \
          G_GUINT64_FORMAT "\n", lc->model, lc->loss * 100, scheme_name,    \
          param, r.overhead_pkt, r.overhead_byte, r.residual, r.recovered,  \
          r.lost_media);                                                    \
      fprintf (md, "| %s | %.0f %% | %s %s | %.1f %% | %.1f %% | %.3f %% |\n", \
          lc->model, lc->loss * 100, scheme_name, param, r.overhead_pkt,    \
          r.overhead_byte, r.residual);                                     \
    } while (0)

    g_snprintf (param, sizeof (param), "-");
    run_ours (&s, NULL, lc, 42 + c, &r);
    EMIT ("none");
    rtpcc_fec_encoder_config_init (&cfg);
    cfg.max_block_time = 0;
    cfg.depth = 4;
    for (guint i = 0; i < G_N_ELEMENTS (xor_n); i++) {
      cfg.scheme = RTPCC_FEC_SCHEME_XOR;
      cfg.n = xor_n[i];
      g_snprintf (param, sizeof (param), "n=%u", xor_n[i]);
      run_ours (&s, &cfg, lc, 42 + c, &r);
      EMIT ("xor");
    }
    cfg.n = 5;
    for (guint i = 0; i < G_N_ELEMENTS (rs_km); i++) {
      cfg.scheme = RTPCC_FEC_SCHEME_RS;
      cfg.k = rs_km[i][0];
      cfg.m = rs_km[i][1];
      g_snprintf (param, sizeof (param), "k=%u m=%u", cfg.k, cfg.m);
      run_ours (&s, &cfg, lc, 42 + c, &r);
      EMIT ("rs");
    }
    for (guint i = 0; i < G_N_ELEMENTS (d2_n); i++) {
      cfg.scheme = RTPCC_FEC_SCHEME_XOR_2D;
      cfg.n = d2_n[i];
      g_snprintf (param, sizeof (param), "%ux4", d2_n[i]);
      run_ours (&s, &cfg, lc, 42 + c, &r);
      EMIT ("xor-2d");
    }
    if (gst_registry_check_feature_version (gst_registry_get (),
            "rtpulpfecenc", 1, 14, 0)) {
      for (guint i = 0; i < G_N_ELEMENTS (ulp_pct); i++) {
        g_snprintf (param, sizeof (param), "percentage=%u", ulp_pct[i]);
        run_stock (&s, ulp_pct[i], lc, 42 + c, &r);
        EMIT ("ulpfec");
      }
    }
    fflush (csv);
    fflush (md);
  }
  fprintf (md, "\n");
  auto_table (md, &s, cases);
  throughput (md, quick ? 2000 : 20000);

  g_ptr_array_unref (s.pkts);
  g_ptr_array_unref (cases);
  if (csv != stdout)
    fclose (csv);
  if (md != stdout)
    fclose (md);
  g_free (csv_path);
  g_free (md_path);
  return 0;
}

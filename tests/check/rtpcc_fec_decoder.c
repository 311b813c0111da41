/* Unit tests for the FEC decoder's robustness (gst/rtpcc/fec/decoder.c):
 * which media SSRC it orders and repairs (the one the FEC protects, past a
 * stray packet, across a sender restart), and sequence jumps (RFC 3550
 * A.1-style probation: a jump is believed only when a second packet
 * confirms it).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/fec.h>
#include <string.h>

#define SSRC_A 0x11223344
#define SSRC_B 0x55667788

static GBytes *
make_packet (RtpccRng * rng, guint32 ssrc, guint16 seq, guint32 ts)
{
  gsize len = 12 + 20 + rtpcc_rng_below (rng, 300);
  guint8 *p = g_malloc (len);

  for (gsize i = 12; i < len; i++)
    p[i] = (guint8) rtpcc_rng_below (rng, 256);
  p[0] = 0x80;
  p[1] = (guint8) ((rtpcc_rng_bernoulli (rng, 0.3) ? 0x80 : 0) | 96);
  p[2] = (guint8) (seq >> 8);
  p[3] = (guint8) seq;
  p[4] = (guint8) (ts >> 24);
  p[5] = (guint8) (ts >> 16);
  p[6] = (guint8) (ts >> 8);
  p[7] = (guint8) ts;
  p[8] = (guint8) (ssrc >> 24);
  p[9] = (guint8) (ssrc >> 16);
  p[10] = (guint8) (ssrc >> 8);
  p[11] = (guint8) ssrc;
  return g_bytes_new_take (p, len);
}

static RtpccFecEncoder *
make_encoder (RtpccFecScheme scheme, guint32 fec_ssrc)
{
  RtpccFecEncoderConfig cfg;
  RtpccFecEncoder *enc;

  rtpcc_fec_encoder_config_init (&cfg);
  cfg.scheme = scheme;
  cfg.n = 5;
  cfg.k = 8;
  cfg.m = 2;
  cfg.max_block_time = 0;
  cfg.ssrc = fec_ssrc;
  enc = rtpcc_fec_encoder_new (&cfg, NULL);
  fail_unless (enc != NULL);
  return enc;
}

/* What reaches the decoder, in order: media and FEC packets. */
typedef struct
{
  GPtrArray *pkts;              /* GBytes */
  GArray *is_fec;               /* gboolean */
  GPtrArray *media;             /* every media packet sent, in send order */
} Wire;

static void
wire_init (Wire * w)
{
  w->pkts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  w->is_fec = g_array_new (FALSE, FALSE, sizeof (gboolean));
  w->media = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
}

static void
wire_clear (Wire * w)
{
  g_ptr_array_unref (w->pkts);
  g_array_unref (w->is_fec);
  g_ptr_array_unref (w->media);
}

static void
wire_add (Wire * w, GBytes * b, gboolean fec)
{
  g_ptr_array_add (w->pkts, g_bytes_ref (b));
  g_array_append_val (w->is_fec, fec);
}

/* @count media packets of @ssrc from @seq0 through @enc (may be NULL) onto
 * the wire; those whose index is in @lost (sorted, -1 terminated) are lost
 * (the encoder still protects them). */
static void
wire_media (Wire * w, RtpccRng * rng, RtpccFecEncoder * enc, guint32 ssrc,
    guint16 seq0, guint count, const gint * lost)
{
  for (guint i = 0; i < count; i++) {
    GBytes *p = make_packet (rng, ssrc, (guint16) (seq0 + i), 3000 * (i / 2));
    GBytes *f;
    gsize len;
    const guint8 *d = g_bytes_get_data (p, &len);

    g_ptr_array_add (w->media, g_bytes_ref (p));
    if (enc)
      rtpcc_fec_encoder_push (enc, d, len, RTPCC_MSEC (i));
    if (lost && *lost == (gint) i)
      lost++;
    else
      wire_add (w, p, FALSE);
    g_bytes_unref (p);
    while (enc && (f = rtpcc_fec_encoder_pop (enc)) != NULL) {
      wire_add (w, f, TRUE);
      g_bytes_unref (f);
    }
  }
}

/* Runs @w through a decoder (one packet per ms, pop after each, drain at
 * the end): the released packets in order. */
static GPtrArray *
run (const Wire * w, RtpccFecDecoderStats * st)
{
  RtpccFecDecoderConfig cfg;
  RtpccFecDecoder *dec;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GBytes *b;

  rtpcc_fec_decoder_config_init (&cfg);
  dec = rtpcc_fec_decoder_new (&cfg);
  for (guint i = 0; i < w->pkts->len; i++) {
    gsize len;
    const guint8 *d = g_bytes_get_data (w->pkts->pdata[i], &len);
    RtpccTime now = RTPCC_MSEC (i);

    if (g_array_index (w->is_fec, gboolean, i))
      fail_unless (rtpcc_fec_decoder_push_fec (dec, d, len, now));
    else if (rtpcc_fec_decoder_push_media (dec, d, len, now) ==
        RTPCC_FEC_MEDIA_PASS)
      g_ptr_array_add (out, g_bytes_ref (w->pkts->pdata[i]));
    while ((b = rtpcc_fec_decoder_pop (dec, now, NULL)) != NULL)
      g_ptr_array_add (out, b);
  }
  while ((b = rtpcc_fec_decoder_pop (dec, RTPCC_TIME_INFINITE, NULL)))
    g_ptr_array_add (out, b);
  rtpcc_fec_decoder_get_stats (dec, st);
  rtpcc_fec_decoder_free (dec);
  return out;
}

/* @out is exactly @want minus the entries at the indices in @missing
 * (sorted, -1 terminated), in order. */
static void
assert_output (GPtrArray * out, GPtrArray * want, const gint * missing)
{
  guint o = 0;

  for (guint i = 0; i < want->len; i++) {
    if (missing && *missing == (gint) i) {
      missing++;
      continue;
    }
    fail_unless (o < out->len, "output ends at %u of %u", o, want->len);
    fail_unless (g_bytes_equal (out->pdata[o], want->pdata[i]),
        "output %u is not sent packet %u", o, i);
    o++;
  }
  fail_unless_equals_int (o, out->len);
}

/* 11 losses, XOR n=5: two share the block 20..24 (unrecoverable), the
 * other nine are alone in their block. */
static const gint losses[] = { 3, 12, 21, 23, 36, 48, 57, 66, 77, 88, 97, -1 };
static const gint unrecoverable[] = { 21, 23, -1 };

/* The stream alone: 9 of the 11 losses repaired. */
GST_START_TEST (test_ssrc_plain)
{
  RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_XOR, 0xfec0);
  RtpccFecDecoderStats st;
  RtpccRng rng;
  GPtrArray *out;
  Wire w;

  rtpcc_rng_init (&rng, 1);
  wire_init (&w);
  wire_media (&w, &rng, enc, SSRC_A, 1000, 105, losses);
  out = run (&w, &st);
  fail_unless_equals_int (st.recovered, 9);
  fail_unless_equals_int (st.unrecoverable, 2);
  assert_output (out, w.media, unrecoverable);
  g_ptr_array_unref (out);
  wire_clear (&w);
  rtpcc_fec_encoder_free (enc);
}

GST_END_TEST;

/* One stray packet of another SSRC before the media: the decoder follows
 * the SSRC the FEC protects, repairs the same 9 losses, and the stray is
 * forwarded once. */
GST_START_TEST (test_ssrc_stray_first)
{
  RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_XOR, 0xfec0);
  RtpccFecDecoderStats st;
  RtpccRng rng;
  GPtrArray *out, *want;
  GBytes *stray;
  Wire w;

  rtpcc_rng_init (&rng, 2);
  wire_init (&w);
  stray = make_packet (&rng, SSRC_B, 7, 1234);
  wire_add (&w, stray, FALSE);
  wire_media (&w, &rng, enc, SSRC_A, 1000, 105, losses);
  out = run (&w, &st);
  fail_unless_equals_int (st.recovered, 9);
  fail_unless_equals_int (st.unrecoverable, 2);
  want = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (want, stray);
  for (guint i = 0; i < w.media->len; i++)
    g_ptr_array_add (want, g_bytes_ref (w.media->pdata[i]));
  {
    const gint missing[] = { 1 + 21, 1 + 23, -1 };
    assert_output (out, want, missing);
  }
  g_ptr_array_unref (want);
  g_ptr_array_unref (out);
  wire_clear (&w);
  rtpcc_fec_encoder_free (enc);
}

GST_END_TEST;

/* Stray packets of another SSRC in the middle of the stream (one alone,
 * one pair out of sequence) change nothing for the media and are
 * forwarded. */
GST_START_TEST (test_ssrc_stray_middle)
{
  RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_XOR, 0xfec0);
  RtpccFecDecoderStats st;
  RtpccRng rng;
  GPtrArray *out, *strays;
  Wire a, w;
  guint s = 0;

  rtpcc_rng_init (&rng, 3);
  wire_init (&a);
  wire_init (&w);
  strays = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (strays, make_packet (&rng, SSRC_B, 100, 0));
  g_ptr_array_add (strays, make_packet (&rng, SSRC_B, 300, 0));
  g_ptr_array_add (strays, make_packet (&rng, SSRC_B, 200, 0));
  wire_media (&a, &rng, enc, SSRC_A, 1000, 105, losses);
  for (guint i = 0; i < a.pkts->len; i++) {
    if (i == 40 || i == 70 || i == 71)
      wire_add (&w, strays->pdata[s++], FALSE);
    wire_add (&w, a.pkts->pdata[i], g_array_index (a.is_fec, gboolean, i));
  }
  out = run (&w, &st);
  fail_unless_equals_int (st.recovered, 9);
  fail_unless_equals_int (st.unrecoverable, 2);
  /* the media in order; the strays somewhere, each once */
  for (guint i = 0; i < strays->len; i++) {
    guint found = 0;

    for (guint o = 0; o < out->len; o++) {
      if (g_bytes_equal (out->pdata[o], strays->pdata[i])) {
        found++;
        g_ptr_array_remove_index (out, o--);
      }
    }
    fail_unless_equals_int (found, 1);
  }
  assert_output (out, a.media, unrecoverable);
  g_ptr_array_unref (strays);
  g_ptr_array_unref (out);
  wire_clear (&a);
  wire_clear (&w);
  rtpcc_fec_encoder_free (enc);
}

GST_END_TEST;

/* A sender restart: new media SSRC and sequence numbers, new FEC SSRC. The
 * decoder follows it: the losses after the restart are repaired too. */
GST_START_TEST (test_ssrc_restart)
{
  static const gint lost_a[] = { 3, 12, 21, 23, 36, -1 };
  static const gint lost_b[] = { 7, 18, 31, 44, -1 };
  RtpccFecEncoder *enc_a = make_encoder (RTPCC_FEC_SCHEME_XOR, 0xfec0);
  RtpccFecEncoder *enc_b = make_encoder (RTPCC_FEC_SCHEME_RS, 0xfec1);
  RtpccFecDecoderStats st;
  RtpccRng rng;
  GPtrArray *out;
  Wire w;

  rtpcc_rng_init (&rng, 4);
  wire_init (&w);
  wire_media (&w, &rng, enc_a, SSRC_A, 1000, 50, lost_a);
  wire_media (&w, &rng, enc_b, SSRC_B, 20000, 56, lost_b);
  out = run (&w, &st);
  fail_unless_equals_int (st.recovered, 3 + 4);
  fail_unless_equals_int (st.unrecoverable, 2);
  assert_output (out, w.media, unrecoverable);
  g_ptr_array_unref (out);
  wire_clear (&w);
  rtpcc_fec_encoder_free (enc_a);
  rtpcc_fec_encoder_free (enc_b);
}

GST_END_TEST;

/* One packet with a bogus sequence number on the media SSRC (+500 ...
 * +32767, or far behind): refused and counted; every valid packet after it
 * still comes out, repairs included. */
GST_START_TEST (test_seq_jump_refused)
{
  static const gint jumps[] = { 500, 1024, 5000, 32767, -2000, -30000 };

  for (guint j = 0; j < G_N_ELEMENTS (jumps); j++) {
    RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_XOR, 0xfec0);
    RtpccFecDecoderStats st;
    RtpccRng rng;
    GPtrArray *out;
    GBytes *bogus;
    Wire a, w;

    rtpcc_rng_init (&rng, 10 + j);
    wire_init (&a);
    wire_init (&w);
    wire_media (&a, &rng, enc, SSRC_A, 65000, 305, losses);
    /* after media packet 100 (seq 65100), before the rest */
    bogus = make_packet (&rng, SSRC_A, (guint16) (65100 + jumps[j]), 3000);
    for (guint i = 0, m = 0; i < a.pkts->len; i++) {
      wire_add (&w, a.pkts->pdata[i], g_array_index (a.is_fec, gboolean, i));
      if (!g_array_index (a.is_fec, gboolean, i) && ++m == 100 - 10)
        wire_add (&w, bogus, FALSE);
    }
    out = run (&w, &st);
    fail_unless_equals_int (st.refused, 1);
    fail_unless_equals_int (st.recovered, 9);
    fail_unless_equals_int (st.unrecoverable, 2);
    assert_output (out, a.media, unrecoverable);
    g_bytes_unref (bogus);
    g_ptr_array_unref (out);
    wire_clear (&a);
    wire_clear (&w);
    rtpcc_fec_encoder_free (enc);
  }
}

GST_END_TEST;

/* The sender restarts on the same SSRC at a lower sequence number (or one
 * far ahead): the second packet confirms the jump and the decoder follows;
 * nothing after the restart is lost, repairs included. */
GST_START_TEST (test_seq_restart_followed)
{
  static const guint16 seq_b[] = { 100, 29000, 42000, 30300 + 3000,
    30300 + 600
  };

  for (guint j = 0; j < G_N_ELEMENTS (seq_b); j++) {
    static const gint lost_a[] = { 3, 12, 21, 23, 36, -1 };
    static const gint lost_b[] = { 7, 18, 31, 44, -1 };
    RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_XOR, 0xfec0);
    RtpccFecDecoderStats st;
    RtpccRng rng;
    GPtrArray *out;
    Wire w;

    rtpcc_rng_init (&rng, 20 + j);
    wire_init (&w);
    wire_media (&w, &rng, enc, SSRC_A, 30000, 300, lost_a);
    wire_media (&w, &rng, enc, SSRC_A, seq_b[j], 200, lost_b);
    out = run (&w, &st);
    fail_unless_equals_int (st.refused, 0);
    fail_unless_equals_int (st.recovered, 3 + 4);
    fail_unless_equals_int (st.unrecoverable, 2);
    assert_output (out, w.media, unrecoverable);
    g_ptr_array_unref (out);
    wire_clear (&w);
    rtpcc_fec_encoder_free (enc);
  }
}

GST_END_TEST;


/* A block that can no longer repair anything (more losses than its code
 * rebuilds, all of them given up) is not kept: nothing stays stored once
 * the holes are given up. */
GST_START_TEST (test_dead_blocks_dropped)
{
  static const RtpccFecScheme schemes[] = { RTPCC_FEC_SCHEME_XOR,
    RTPCC_FEC_SCHEME_RS
  };

  for (guint s = 0; s < G_N_ELEMENTS (schemes); s++) {
    /* XOR n=5: two of each block; RS k=8 m=2: three of each block */
    static const gint lost_xor[] = { 1, 3, 6, 8, 11, 13, 16, 18, -1 };
    static const gint lost_rs[] = { 1, 3, 5, 9, 11, 13, 17, 19, 21, -1 };
    RtpccFecEncoder *enc = make_encoder (schemes[s], 0xfec0);
    RtpccFecDecoderConfig cfg;
    RtpccFecDecoder *dec;
    RtpccFecDecoderStats st;
    RtpccRng rng;
    GBytes *b;
    Wire w;
    guint i;

    rtpcc_rng_init (&rng, 30 + s);
    wire_init (&w);
    wire_media (&w, &rng, enc, SSRC_A, 500, 24, s == 0 ? lost_xor : lost_rs);
    rtpcc_fec_decoder_config_init (&cfg);
    cfg.deadline = RTPCC_MSEC (10);
    dec = rtpcc_fec_decoder_new (&cfg);
    for (i = 0; i < w.pkts->len; i++) {
      gsize len;
      const guint8 *d = g_bytes_get_data (w.pkts->pdata[i], &len);

      if (g_array_index (w.is_fec, gboolean, i))
        rtpcc_fec_decoder_push_fec (dec, d, len, 0);
      else
        rtpcc_fec_decoder_push_media (dec, d, len, 0);
    }
    rtpcc_fec_decoder_get_stats (dec, &st);
    fail_unless (st.fec_stored > 0);
    /* the deadline passes: every hole is given up, no block can help */
    while ((b = rtpcc_fec_decoder_pop (dec, RTPCC_MSEC (20), NULL)))
      g_bytes_unref (b);
    rtpcc_fec_decoder_get_stats (dec, &st);
    fail_unless_equals_int (st.recovered, 0);
    fail_unless_equals_int (st.unrecoverable, s == 0 ? 8 : 9);
    fail_unless_equals_int (st.fec_stored, 0);
    rtpcc_fec_decoder_free (dec);
    wire_clear (&w);
    rtpcc_fec_encoder_free (enc);
  }
}

GST_END_TEST;

/* --- the same repairs as the decoder before its block index -------------
 *
 * Randomized streams (every code, random and bursty loss of media and FEC,
 * reordering, duplicates, late FEC, irregular pops) through the decoder;
 * what it releases (bytes, in order, and which were rebuilt) and its counts
 * must be what the decoder that rescanned every stored FEC packet on every
 * packet produced on the same streams. Its results are recorded below
 * (RTPCC_FEC_RECORD=1 prints the table afresh). */

typedef struct
{
  guint64 digest;               /* FNV-1a over the released packets */
  guint64 pushed, recovered, unrecoverable, late_recovered, late_media,
      duplicates, bad_recoveries;
} DiffResult;

static guint64
fnv (guint64 h, const guint8 * d, gsize len)
{
  for (gsize i = 0; i < len; i++)
    h = (h ^ d[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  return h;
}

static void
diff_run (guint scenario, DiffResult * r)
{
  RtpccRng rng, lrng;
  RtpccFecEncoderConfig ecfg;
  RtpccFecDecoderConfig dcfg;
  RtpccFecEncoder *enc;
  RtpccFecDecoder *dec;
  RtpccFecDecoderStats st;
  RtpccLossParams lp;
  RtpccLoss loss;
  GPtrArray *wire = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GArray *fec = g_array_new (FALSE, FALSE, sizeof (gboolean));
  guint n = 1500, gap_ms, reorder_pct, dup_pct, fec_delay_pct, skip_pop_pct;
  gdouble p_loss;
  RtpccTime now = 0;
  GBytes *b;
  gboolean rec;

  rtpcc_rng_init (&rng, 1000 + scenario);
  rtpcc_fec_encoder_config_init (&ecfg);
  ecfg.scheme = (RtpccFecScheme) (scenario % 3);
  ecfg.n = 2 + (guint) rtpcc_rng_below (&rng, 13);
  ecfg.depth = 2 + (guint) rtpcc_rng_below (&rng, 3);
  while (ecfg.n * ecfg.depth > RTPCC_FEC_MAX_SPAN)
    ecfg.depth--;
  ecfg.k = 2 + (guint) rtpcc_rng_below (&rng, 19);
  ecfg.m = 1 + (guint) rtpcc_rng_below (&rng, 4);
  ecfg.max_block_time = rtpcc_rng_bernoulli (&rng, 0.5) ?
      RTPCC_MSEC (10 + rtpcc_rng_below (&rng, 100)) : 0;
  ecfg.ssrc = 0xfec;
  enc = rtpcc_fec_encoder_new (&ecfg, NULL);
  fail_unless (enc != NULL);
  rtpcc_fec_decoder_config_init (&dcfg);
  dcfg.deadline = RTPCC_MSEC (10 + rtpcc_rng_below (&rng, 200));
  dec = rtpcc_fec_decoder_new (&dcfg);

  rtpcc_loss_params_init (&lp);
  p_loss = 0.01 + 0.34 * rtpcc_rng_double (&rng);
  if (rtpcc_rng_bernoulli (&rng, 0.5)) {
    lp.model = RTPCC_LOSS_GILBERT_ELLIOTT;
    lp.ge_r = 0.3 + 0.5 * rtpcc_rng_double (&rng);
    lp.ge_p = p_loss * lp.ge_r / (1.0 - p_loss);
  } else {
    lp.model = RTPCC_LOSS_BERNOULLI;
    lp.loss = p_loss;
  }
  rtpcc_rng_init (&lrng, 5000 + scenario);
  rtpcc_loss_init (&loss, &lp, &lrng);
  gap_ms = 1 + (guint) rtpcc_rng_below (&rng, 20);
  reorder_pct = (guint) rtpcc_rng_below (&rng, 10);
  dup_pct = (guint) rtpcc_rng_below (&rng, 3);
  fec_delay_pct = (guint) rtpcc_rng_below (&rng, 30);
  skip_pop_pct = (guint) rtpcc_rng_below (&rng, 30);

  /* the wire, in send order; then reordered */
  for (guint i = 0; i < n; i++) {
    GBytes *p = make_packet (&rng, SSRC_A, (guint16) (60000 + i),
        3000 * (i / 3));
    gsize len;
    const guint8 *d = g_bytes_get_data (p, &len);
    gboolean f = FALSE;

    rtpcc_fec_encoder_push (enc, d, len, RTPCC_MSEC (gap_ms) * i);
    if (!rtpcc_loss_next (&loss)) {
      g_ptr_array_add (wire, g_bytes_ref (p));
      g_array_append_val (fec, f);
      if (rtpcc_rng_below (&rng, 100) < dup_pct) {
        g_ptr_array_add (wire, g_bytes_ref (p));
        g_array_append_val (fec, f);
      }
    }
    g_bytes_unref (p);
    while ((b = rtpcc_fec_encoder_pop (enc)) != NULL) {
      f = TRUE;
      if (rtpcc_loss_next (&loss)) {
        g_bytes_unref (b);
        continue;
      }
      g_ptr_array_add (wire, b);
      g_array_append_val (fec, f);
    }
  }
  for (guint i = 0; i + 1 < wire->len; i++) {
    gboolean f = g_array_index (fec, gboolean, i);
    guint by = 0;

    if (f && rtpcc_rng_below (&rng, 100) < fec_delay_pct)
      by = 1 + (guint) rtpcc_rng_below (&rng, 12);
    else if (rtpcc_rng_below (&rng, 100) < reorder_pct)
      by = 1 + (guint) rtpcc_rng_below (&rng, 5);
    by = MIN (by, wire->len - 1 - i);
    for (guint j = i; j < i + by; j++) {
      gpointer t = wire->pdata[j];
      gboolean tf = g_array_index (fec, gboolean, j);

      wire->pdata[j] = wire->pdata[j + 1];
      wire->pdata[j + 1] = t;
      g_array_index (fec, gboolean, j) = g_array_index (fec, gboolean, j + 1);
      g_array_index (fec, gboolean, j + 1) = tf;
    }
    if (by)
      i += by;
  }

  r->digest = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  for (guint i = 0; i < wire->len; i++) {
    gsize len;
    const guint8 *d = g_bytes_get_data (wire->pdata[i], &len);

    now += RTPCC_USEC (200) + (RtpccTime) rtpcc_rng_below (&rng,
        (guint64) RTPCC_MSEC (gap_ms));
    if (g_array_index (fec, gboolean, i))
      rtpcc_fec_decoder_push_fec (dec, d, len, now);
    else
      rtpcc_fec_decoder_push_media (dec, d, len, now);
    if (rtpcc_rng_below (&rng, 100) < skip_pop_pct)
      continue;
    while ((b = rtpcc_fec_decoder_pop (dec, now, &rec)) != NULL) {
      guint8 flag = rec;

      d = g_bytes_get_data (b, &len);
      r->digest = fnv (fnv (r->digest, &flag, 1), d, len);
      g_bytes_unref (b);
    }
  }
  while ((b = rtpcc_fec_decoder_pop (dec, RTPCC_TIME_INFINITE, &rec))) {
    guint8 flag = rec;
    gsize len;
    const guint8 *d = g_bytes_get_data (b, &len);

    r->digest = fnv (fnv (r->digest, &flag, 1), d, len);
    g_bytes_unref (b);
  }
  rtpcc_fec_decoder_get_stats (dec, &st);
  r->pushed = st.pushed;
  r->recovered = st.recovered;
  r->unrecoverable = st.unrecoverable;
  r->late_recovered = st.late_recovered;
  r->late_media = st.late_media;
  r->duplicates = st.duplicates;
  r->bad_recoveries = st.bad_recoveries;
  rtpcc_fec_decoder_free (dec);
  rtpcc_fec_encoder_free (enc);
  g_ptr_array_unref (wire);
  g_array_unref (fec);
}

/* RTPCC_FEC_RECORD=1 prints this table from the decoder under test */
static const DiffResult diff_expected[] = {
  {G_GUINT64_CONSTANT (0xb15c9f3427266ef1), 1260, 127, 240, 19, 0, 0, 0},
  {G_GUINT64_CONSTANT (0x4da112985fa40304), 1232, 260, 268, 0, 0, 11, 0},
  {G_GUINT64_CONSTANT (0x75a5710726a2ea02), 1120, 157, 380, 0, 0, 8, 0},
  {G_GUINT64_CONSTANT (0x30c878e2dec5a6c3), 1323, 110, 177, 1, 0, 38, 0},
  {G_GUINT64_CONSTANT (0x6d6a1eb189e1763d), 1020, 18, 480, 0, 0, 13, 0},
  {G_GUINT64_CONSTANT (0xd05f13e21f0b4f11), 1419, 17, 81, 24, 29, 50, 0},
  {G_GUINT64_CONSTANT (0x8fbee76c050e2f15), 1440, 48, 59, 0, 0, 42, 0},
  {G_GUINT64_CONSTANT (0x4117b5f3922f402f), 1478, 24, 22, 3, 0, 13, 0},
  {G_GUINT64_CONSTANT (0xc06720bd2f270c15), 1319, 163, 179, 68, 1, 22, 0},
  {G_GUINT64_CONSTANT (0x81289b2784b2c892), 1184, 155, 314, 1, 0, 7, 0},
  {G_GUINT64_CONSTANT (0xb7308de1563df238), 1469, 451, 30, 12, 0, 27, 0},
  {G_GUINT64_CONSTANT (0x5b66e4c8434bb762), 1267, 191, 233, 0, 0, 6, 0},
  {G_GUINT64_CONSTANT (0xc15b42296422d03f), 1274, 126, 226, 5, 0, 17, 0},
  {G_GUINT64_CONSTANT (0x2980f67aba460e98), 1206, 150, 292, 1, 0, 21, 0},
  {G_GUINT64_CONSTANT (0x7f9703756db644da), 1273, 54, 226, 0, 0, 30, 0},
  {G_GUINT64_CONSTANT (0xfcb9198b2bbbaac3), 1407, 102, 93, 0, 0, 44, 0},
  {G_GUINT64_CONSTANT (0xd57e8140f7e4596d), 1382, 249, 118, 14, 0, 11, 0},
  {G_GUINT64_CONSTANT (0x4633b0989ef40d30), 1356, 79, 144, 90, 0, 12, 0},
  {G_GUINT64_CONSTANT (0x184b6655e067340a), 1146, 6, 351, 0, 0, 0, 0},
  {G_GUINT64_CONSTANT (0x620096b247228dc8), 1500, 47, 0, 0, 0, 12, 0},
  {G_GUINT64_CONSTANT (0xb27bee6cdca133c7), 1496, 115, 4, 0, 0, 26, 0},
  {G_GUINT64_CONSTANT (0x8d7dcef106ef6d5f), 1104, 10, 395, 0, 0, 18, 0},
  {G_GUINT64_CONSTANT (0x100ec305b03f683f), 1149, 24, 350, 1, 0, 0, 0},
  {G_GUINT64_CONSTANT (0x199478cb6897161d), 1169, 29, 328, 0, 1, 2, 0},
  {G_GUINT64_CONSTANT (0xdeb480fc913e02e5), 1096, 82, 403, 0, 0, 4, 0},
  {G_GUINT64_CONSTANT (0x23816272befb15b9), 1180, 142, 320, 0, 0, 41, 0},
  {G_GUINT64_CONSTANT (0x05ef7da327ffc96f), 1393, 153, 107, 55, 0, 14, 0},
  {G_GUINT64_CONSTANT (0x75ceaea03167ef40), 1477, 104, 23, 0, 0, 27, 0},
  {G_GUINT64_CONSTANT (0x7d70e6700081e606), 1392, 159, 107, 7, 0, 11, 0},
  {G_GUINT64_CONSTANT (0x81203412357c7eb5), 1202, 88, 296, 0, 0, 11, 0},
  {G_GUINT64_CONSTANT (0xe198c518470cf188), 1408, 27, 92, 31, 1, 4, 0},
  {G_GUINT64_CONSTANT (0x858019472334b1e5), 1377, 231, 123, 8, 0, 34, 0},
  {G_GUINT64_CONSTANT (0xbbc39f5f8a0cc1ce), 1363, 132, 137, 0, 0, 59, 0},
  {G_GUINT64_CONSTANT (0x9a68bdbb924a0237), 1262, 98, 236, 0, 0, 33, 0},
  {G_GUINT64_CONSTANT (0xe49ca460c001a897), 1054, 1, 445, 0, 0, 0, 0},
  {G_GUINT64_CONSTANT (0x5357e6885e55b042), 1421, 237, 79, 11, 0, 40, 0},
  {G_GUINT64_CONSTANT (0x9bcc1a578b073917), 1348, 91, 152, 0, 0, 52, 0},
  {G_GUINT64_CONSTANT (0xcf73c3e1557cec9d), 1065, 7, 434, 12, 0, 10, 0},
  {G_GUINT64_CONSTANT (0x29b8dc8d32ecbb51), 1415, 115, 84, 73, 0, 32, 0},
  {G_GUINT64_CONSTANT (0xefe7b059b2c3c47b), 1018, 2, 482, 2, 0, 15, 0},
  {G_GUINT64_CONSTANT (0xa228a0807748302b), 1161, 112, 338, 0, 0, 0, 0},
  {G_GUINT64_CONSTANT (0x44bc586190d64f7a), 1078, 37, 421, 8, 0, 1, 0},
  {G_GUINT64_CONSTANT (0x3639ac839376b9ee), 1477, 8, 23, 0, 0, 26, 0},
  {G_GUINT64_CONSTANT (0x6348a440302c486d), 1385, 51, 114, 0, 0, 33, 0},
  {G_GUINT64_CONSTANT (0x61a18e35d82c8a9d), 1486, 85, 14, 0, 0, 32, 0},
  {G_GUINT64_CONSTANT (0x0c63ebfe0e6c0af2), 1251, 108, 249, 0, 0, 7, 0},
  {G_GUINT64_CONSTANT (0x4484ba18c142263e), 1500, 46, 0, 0, 0, 29, 0},
  {G_GUINT64_CONSTANT (0xec575184f3746fa7), 1107, 66, 393, 78, 0, 27, 0},
  {G_GUINT64_CONSTANT (0x163008b803c22171), 1043, 27, 452, 0, 1, 17, 0},
  {G_GUINT64_CONSTANT (0x25f1029c37b70a6a), 1177, 37, 323, 0, 0, 13, 0},
  {G_GUINT64_CONSTANT (0xb75c13370ccb3c06), 1333, 207, 167, 20, 0, 17, 0},
  {G_GUINT64_CONSTANT (0xb2b8115109ef471c), 1009, 13, 483, 15, 5, 29, 0},
  {G_GUINT64_CONSTANT (0x3c99d5042f82598c), 1198, 1, 302, 0, 0, 0, 0},
  {G_GUINT64_CONSTANT (0xbb5c9b9acd142ae4), 1460, 40, 40, 26, 8, 33, 0},
  {G_GUINT64_CONSTANT (0x46ed750a6fc826f7), 1403, 24, 97, 0, 0, 50, 0},
  {G_GUINT64_CONSTANT (0xe0b01a563f4379e5), 1398, 157, 102, 1, 0, 44, 0},
  {G_GUINT64_CONSTANT (0x8d57fb6cd0fd488e), 1108, 107, 391, 0, 0, 10, 0},
  {G_GUINT64_CONSTANT (0xad38234618dab584), 1460, 51, 40, 0, 0, 57, 0},
  {G_GUINT64_CONSTANT (0xb32b668cb66c321b), 1290, 53, 209, 20, 0, 0, 0},
  {G_GUINT64_CONSTANT (0xc9ffea64186b0b4f), 1417, 221, 83, 6, 0, 0, 0},
};

GST_START_TEST (test_same_recoveries)
{
  gboolean record = g_getenv ("RTPCC_FEC_RECORD") != NULL;
  guint n = record ? 60 : G_N_ELEMENTS (diff_expected);
  guint64 total_recovered = 0, total_late = 0;

  fail_unless (n > 0);
  for (guint s = 0; s < n; s++) {
    DiffResult r;

    diff_run (s, &r);
    total_recovered += r.recovered;
    total_late += r.late_recovered;
    if (record) {
      g_print ("  {G_GUINT64_CONSTANT (0x%016" G_GINT64_MODIFIER "x), %"
          G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %"
          G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %"
          G_GUINT64_FORMAT "},\n", r.digest, r.pushed, r.recovered,
          r.unrecoverable, r.late_recovered, r.late_media, r.duplicates,
          r.bad_recoveries);
      continue;
    }
    fail_unless_equals_uint64 (r.pushed, diff_expected[s].pushed);
    fail_unless_equals_uint64 (r.recovered, diff_expected[s].recovered);
    fail_unless_equals_uint64 (r.unrecoverable,
        diff_expected[s].unrecoverable);
    fail_unless_equals_uint64 (r.late_recovered,
        diff_expected[s].late_recovered);
    fail_unless_equals_uint64 (r.late_media, diff_expected[s].late_media);
    fail_unless_equals_uint64 (r.duplicates, diff_expected[s].duplicates);
    fail_unless_equals_uint64 (r.bad_recoveries,
        diff_expected[s].bad_recoveries);
    fail_unless (r.digest == diff_expected[s].digest,
        "scenario %u: other packets released", s);
  }
  /* the streams do exercise repair, and repair too late */
  fail_unless (total_recovered > 1000 && total_late > 0);
}

GST_END_TEST;

/* rtpcc_fec_decoder_last_stored: the decoder's copy of the packet just
 * pushed, which pop then returns as the same GBytes; NULL when the push
 * stored nothing (a duplicate, a malformed FEC packet, a stray of another
 * SSRC held back). fecdec forwards its input buffer by it. */
GST_START_TEST (test_last_stored)
{
  RtpccFecDecoderConfig cfg;
  RtpccFecDecoder *dec;
  RtpccRng rng;
  GBytes *p10, *p11, *p12, *stray, *stored, *b;
  const guint8 junk[16] = { 0x80, 127, };
  gsize len;
  gconstpointer d;

  rtpcc_rng_init (&rng, 3);
  rtpcc_fec_decoder_config_init (&cfg);
  dec = rtpcc_fec_decoder_new (&cfg);
  fail_unless (rtpcc_fec_decoder_last_stored (dec) == NULL);
  p10 = make_packet (&rng, SSRC_A, 10, 900);
  p11 = make_packet (&rng, SSRC_A, 11, 900);
  p12 = make_packet (&rng, SSRC_A, 12, 1800);
  stray = make_packet (&rng, SSRC_B, 500, 7);

  /* in order: stored, and out at once as the same bytes object */
  d = g_bytes_get_data (p10, &len);
  fail_unless_equals_int (rtpcc_fec_decoder_push_media (dec, d, len, 0),
      RTPCC_FEC_MEDIA_QUEUED);
  stored = rtpcc_fec_decoder_last_stored (dec);
  fail_unless (stored != NULL && g_bytes_equal (stored, p10));
  b = rtpcc_fec_decoder_pop (dec, 0, NULL);
  fail_unless (b == stored);
  g_bytes_unref (b);

  /* after a hole: stored, held */
  d = g_bytes_get_data (p12, &len);
  rtpcc_fec_decoder_push_media (dec, d, len, 1);
  stored = rtpcc_fec_decoder_last_stored (dec);
  fail_unless (stored != NULL && g_bytes_equal (stored, p12));
  fail_unless (rtpcc_fec_decoder_pop (dec, 1, NULL) == NULL);

  /* its duplicate is dropped: nothing stored */
  fail_unless_equals_int (rtpcc_fec_decoder_push_media (dec, d, len, 2),
      RTPCC_FEC_MEDIA_DROPPED);
  fail_unless (rtpcc_fec_decoder_last_stored (dec) == NULL);

  /* a malformed FEC packet stores nothing either */
  fail_if (rtpcc_fec_decoder_push_fec (dec, junk, sizeof junk, 2));
  fail_unless (rtpcc_fec_decoder_last_stored (dec) == NULL);

  /* a stray of another SSRC is held back, not stored in the window */
  d = g_bytes_get_data (stray, &len);
  fail_unless_equals_int (rtpcc_fec_decoder_push_media (dec, d, len, 2),
      RTPCC_FEC_MEDIA_QUEUED);
  fail_unless (rtpcc_fec_decoder_last_stored (dec) == NULL);

  /* the hole filled: it comes out as its stored copy, then the stray
   * (released by this packet of the stream) and the packet held */
  d = g_bytes_get_data (p11, &len);
  rtpcc_fec_decoder_push_media (dec, d, len, 3);
  stored = rtpcc_fec_decoder_last_stored (dec);
  fail_unless (stored != NULL && g_bytes_equal (stored, p11));
  b = rtpcc_fec_decoder_pop (dec, 3, NULL);
  fail_unless (b != NULL && g_bytes_equal (b, stray));
  g_bytes_unref (b);
  b = rtpcc_fec_decoder_pop (dec, 3, NULL);
  fail_unless (b == stored);
  g_bytes_unref (b);
  b = rtpcc_fec_decoder_pop (dec, 3, NULL);
  fail_unless (b != NULL && b != stored && g_bytes_equal (b, p12));
  g_bytes_unref (b);

  g_bytes_unref (p10);
  g_bytes_unref (p11);
  g_bytes_unref (p12);
  g_bytes_unref (stray);
  rtpcc_fec_decoder_free (dec);
}

GST_END_TEST;

static Suite *
rtpcc_fec_decoder_suite (void)
{
  Suite *s = suite_create ("rtpcc_fec_decoder");
  TCase *tc = tcase_create ("decoder");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_ssrc_plain);
  tcase_add_test (tc, test_ssrc_stray_first);
  tcase_add_test (tc, test_ssrc_stray_middle);
  tcase_add_test (tc, test_ssrc_restart);
  tcase_add_test (tc, test_seq_jump_refused);
  tcase_add_test (tc, test_seq_restart_followed);
  tcase_add_test (tc, test_same_recoveries);
  tcase_add_test (tc, test_dead_blocks_dropped);
  tcase_add_test (tc, test_last_stored);
  return s;
}

GST_CHECK_MAIN (rtpcc_fec_decoder);

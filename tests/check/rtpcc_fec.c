/* Unit tests for the FEC library (gst/rtpcc/fec/): XOR and Reed-Solomon
 * recover every recoverable loss pattern bit-exact (exhaustive over small
 * blocks) and report the rest unrecoverable; 2-D XOR repairs bursts rows
 * cannot; the parity rate is 1/N; the time bound holds; malformed FEC is
 * dropped and counted; the decoder releases in order within its deadline.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/fec.h>
#include <string.h>
#include <math.h>

#define MEDIA_SSRC 0x11223344

/* A random but valid RTP packet: CSRCs, a header extension, padding and
 * the marker vary so that recovery must restore all of them. */
static GBytes *
make_packet (RtpccRng * rng, guint16 seq, guint32 ts)
{
  guint cc = (guint) rtpcc_rng_below (rng, 3);
  gboolean ext = rtpcc_rng_bernoulli (rng, 0.3);
  guint ext_words = ext ? 1 + (guint) rtpcc_rng_below (rng, 2) : 0;
  guint pad = rtpcc_rng_bernoulli (rng, 0.2) ? 1 + (guint) rtpcc_rng_below (rng,
      4) : 0;
  guint payload = 1 + (guint) rtpcc_rng_below (rng, 400);
  gsize len = 12 + 4 * cc + (ext ? 4 + 4 * ext_words : 0) + payload + pad;
  guint8 *p = g_malloc (len);
  gsize o = 12;

  for (gsize i = 0; i < len; i++)
    p[i] = (guint8) rtpcc_rng_below (rng, 256);
  p[0] = (guint8) (0x80 | (pad ? 0x20 : 0) | (ext ? 0x10 : 0) | cc);
  p[1] = (guint8) ((rtpcc_rng_bernoulli (rng, 0.5) ? 0x80 : 0) | 96);
  p[2] = (guint8) (seq >> 8);
  p[3] = (guint8) seq;
  p[4] = (guint8) (ts >> 24);
  p[5] = (guint8) (ts >> 16);
  p[6] = (guint8) (ts >> 8);
  p[7] = (guint8) ts;
  p[8] = 0x11;
  p[9] = 0x22;
  p[10] = 0x33;
  p[11] = 0x44;
  o += 4 * cc;
  if (ext) {
    p[o + 2] = 0;
    p[o + 3] = (guint8) ext_words;
  }
  if (pad)
    p[len - 1] = (guint8) pad;
  fail_unless (rtpcc_fec_rtp_valid (p, len));
  return g_bytes_new_take (p, len);
}

static RtpccFecEncoder *
make_encoder (RtpccFecScheme scheme, guint n, guint k, guint m)
{
  RtpccFecEncoderConfig cfg;
  GError *err = NULL;
  RtpccFecEncoder *enc;

  rtpcc_fec_encoder_config_init (&cfg);
  cfg.scheme = scheme;
  cfg.n = n;
  cfg.k = k;
  cfg.m = m;
  cfg.depth = 4;
  cfg.max_block_time = 0;
  enc = rtpcc_fec_encoder_new (&cfg, &err);
  fail_unless (enc != NULL, "%s", err ? err->message : "");
  return enc;
}

typedef struct
{
  GPtrArray *media;             /* GBytes, index 0 = warm-up, not protected */
  GPtrArray *fec;
} Block;

/* One block: a warm-up packet (so the decoder's window starts before the
 * block), @count protected packets and their parity, and a trailer that
 * shows the decoder where the block ends. */
static void
make_block (Block * b, RtpccFecEncoder * enc, guint count, guint64 seed)
{
  RtpccRng rng;
  GBytes *fec;
  guint16 seq0 = (guint16) (65530 + seed);  /* crosses the wrap */

  rtpcc_rng_init (&rng, seed);
  b->media = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  b->fec = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (b->media, make_packet (&rng, (guint16) (seq0 - 1), 0));
  for (guint i = 0; i < count; i++) {
    GBytes *p = make_packet (&rng, (guint16) (seq0 + i), 3000 * i);
    gsize len;
    const guint8 *d = g_bytes_get_data (p, &len);

    g_ptr_array_add (b->media, p);
    rtpcc_fec_encoder_push (enc, d, len, RTPCC_MSEC (i));
  }
  rtpcc_fec_encoder_flush (enc);
  while ((fec = rtpcc_fec_encoder_pop (enc)) != NULL)
    g_ptr_array_add (b->fec, fec);
  g_ptr_array_add (b->media, make_packet (&rng, (guint16) (seq0 + count),
          3000 * count));
}

static void
block_clear (Block * b)
{
  g_ptr_array_unref (b->media);
  g_ptr_array_unref (b->fec);
}

/* Delivers the block minus the packets in @lost (bit i: protected packet i;
 * bit count + j: parity j), then drains the decoder. Checks that every
 * released packet is bit-exact and in order; returns the stats. */
static void
deliver (const Block * b, guint64 lost, RtpccFecDecoderStats * st)
{
  RtpccFecDecoderConfig cfg;
  RtpccFecDecoder *dec;
  guint count = b->media->len - 2;
  GBytes *out;
  guint next = 0;
  gboolean rec;

  rtpcc_fec_decoder_config_init (&cfg);
  dec = rtpcc_fec_decoder_new (&cfg);
  for (guint i = 0; i <= count + 1; i++) {
    gsize len;
    const guint8 *d;

    if (i > 0 && i <= count && (lost & (G_GUINT64_CONSTANT (1) << (i - 1))))
      continue;
    d = g_bytes_get_data (g_ptr_array_index (b->media, i), &len);
    fail_unless_equals_int (rtpcc_fec_decoder_push_media (dec, d, len, 0),
        RTPCC_FEC_MEDIA_QUEUED);
  }
  for (guint j = 0; j < b->fec->len; j++) {
    gsize len;
    const guint8 *d;

    if (lost & (G_GUINT64_CONSTANT (1) << (count + j)))
      continue;
    d = g_bytes_get_data (g_ptr_array_index (b->fec, j), &len);
    fail_unless (rtpcc_fec_decoder_push_fec (dec, d, len, 0));
  }
  while ((out = rtpcc_fec_decoder_pop (dec, RTPCC_TIME_INFINITE, &rec))) {
    /* in order: skip the indices that were given up */
    while (next <= count + 1 && !g_bytes_equal (out,
            g_ptr_array_index (b->media, next)))
      next++;
    fail_unless (next <= count + 1, "released packet is not bit-exact");
    if (next > 0 && next <= count && !(lost & (G_GUINT64_CONSTANT (1) << (next - 1))))
      fail_if (rec);
    next++;
    g_bytes_unref (out);
  }
  rtpcc_fec_decoder_get_stats (dec, st);
  fail_unless_equals_int (st->pushed + st->unrecoverable, count + 2);
  fail_unless_equals_int (st->fec_corrupt + st->bad_recoveries, 0);
  rtpcc_fec_decoder_free (dec);
}

static guint
popcount (guint64 v)
{
  guint n = 0;

  for (; v; v &= v - 1)
    n++;
  return n;
}

/* The XOR kernels (vectors of 16 bytes, then words, then bytes) against a
 * byte at a time: every length to 200 bytes and 1500, one to eight rows,
 * rows at any alignment. */
GST_START_TEST (test_xor_kernels)
{
  static const gsize lens[] = { 0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64,
    65, 100, 127, 128, 129, 191, 200, 1500
  };
  guint8 *rows[8], *parity = g_malloc (1600), *acc = g_malloc (1600);
  RtpccRng rng;

  rtpcc_rng_init (&rng, 5);
  for (guint j = 0; j < 8; j++) {
    rows[j] = g_malloc (1600);
    for (guint i = 0; i < 1600; i++)
      rows[j][i] = (guint8) rtpcc_rng_below (&rng, 256);
  }
  for (guint k = 0; k < G_N_ELEMENTS (lens); k++) {
    for (guint n = 1; n <= 8; n++) {
      for (guint off = 0; off < 3; off++) {
        guint8 *r[8];
        gsize len = lens[k];

        for (guint j = 0; j < n; j++)
          r[j] = rows[j] + off + j;
        memset (parity, 0xAA, len + 1);
        rtpcc_fec_xor (parity + off, r, n, len);
        memcpy (acc, r[0], len);
        for (guint j = 1; j < n; j++)
          rtpcc_fec_xor_into (acc, r[j], len);
        for (gsize i = 0; i < len; i++) {
          guint8 x = 0;
          for (guint j = 0; j < n; j++)
            x ^= r[j][i];
          fail_unless_equals_int (parity[off + i], x);
          fail_unless_equals_int (acc[i], x);
        }
        /* nothing beyond */
        if (off == 0)
          fail_unless_equals_int (parity[len], 0xAA);
      }
    }
  }
  for (guint j = 0; j < 8; j++)
    g_free (rows[j]);
  g_free (parity);
  g_free (acc);
}

GST_END_TEST;

GST_START_TEST (test_xor_exhaustive)
{
  for (guint n = RTPCC_FEC_MIN_N; n <= RTPCC_FEC_MAX_N; n++) {
    RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_XOR, n, 4, 1);
    Block b;
    guint64 patterns = G_GUINT64_CONSTANT (1) << (n + 1);
    RtpccRng rng;

    make_block (&b, enc, n, n);
    fail_unless_equals_int (b.fec->len, 1);
    rtpcc_rng_init (&rng, 77);
    /* exhaustive up to n = 10 (2048 patterns), 3000 random beyond */
    for (guint64 t = 0; t < (n <= 10 ? patterns : 3000); t++) {
      guint64 lost = n <= 10 ? t : rtpcc_rng_below (&rng, patterns);
      guint64 data_lost = lost & ((G_GUINT64_CONSTANT (1) << n) - 1);
      gboolean par_lost = (lost >> n) & 1;
      guint d = popcount (data_lost);
      RtpccFecDecoderStats st;

      deliver (&b, lost, &st);
      if (d == 1 && !par_lost) {
        fail_unless_equals_int (st.recovered, 1);
        fail_unless_equals_int (st.unrecoverable, 0);
      } else {
        fail_unless_equals_int (st.recovered, 0);
        fail_unless_equals_int (st.unrecoverable, d);
      }
    }
    block_clear (&b);
    rtpcc_fec_encoder_free (enc);
  }
}

GST_END_TEST;

GST_START_TEST (test_rs_exhaustive)
{
  static const guint km[][2] = { {2, 1}, {3, 2}, {4, 2}, {5, 3}, {8, 4},
  {10, 2}, {6, 6}
  };

  for (guint c = 0; c < G_N_ELEMENTS (km); c++) {
    guint k = km[c][0], m = km[c][1];
    RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_RS, 5, k, m);
    Block b;
    guint n_ok = 0, n_bad = 0;

    make_block (&b, enc, k, 100 + c);
    fail_unless_equals_int (b.fec->len, m);
    for (guint64 lost = 0; lost < (G_GUINT64_CONSTANT (1) << (k + m)); lost++) {
      guint d = popcount (lost & ((G_GUINT64_CONSTANT (1) << k) - 1));
      guint total = popcount (lost);
      RtpccFecDecoderStats st;

      deliver (&b, lost, &st);
      if (total <= m) {
        /* the MDS bound: any m losses among k + m are repaired */
        fail_unless_equals_int (st.recovered, d);
        fail_unless_equals_int (st.unrecoverable, 0);
        n_ok += d > 0;
      } else {
        fail_unless_equals_int (st.recovered, 0);
        fail_unless_equals_int (st.unrecoverable, d);
        n_bad++;
      }
    }
    fail_unless (n_ok > 0 && n_bad > 0);
    block_clear (&b);
    rtpcc_fec_encoder_free (enc);
  }
}

GST_END_TEST;

/* Random tails: the codec alone on random bytes, any loss set of size <= m. */
GST_START_TEST (test_rs_codec_random)
{
  RtpccRng rng;

  rtpcc_rng_init (&rng, 5);
  for (guint iter = 0; iter < 200; iter++) {
    guint k = 1 + (guint) rtpcc_rng_below (&rng, RTPCC_FEC_MAX_SPAN);
    guint m = 1 + (guint) rtpcc_rng_below (&rng, RTPCC_FEC_MAX_PARITY);
    gsize len = 1 + rtpcc_rng_below (&rng, 300);
    guint8 *data[RTPCC_FEC_MAX_SPAN], *orig[RTPCC_FEC_MAX_SPAN];
    guint8 *par[RTPCC_FEC_MAX_PARITY];
    gboolean present[RTPCC_FEC_MAX_SPAN];
    guint lost = 0;

    for (guint i = 0; i < k; i++) {
      data[i] = g_malloc (len);
      for (gsize j = 0; j < len; j++)
        data[i][j] = (guint8) rtpcc_rng_below (&rng, 256);
      orig[i] = g_memdup2 (data[i], len);
    }
    for (guint j = 0; j < m; j++)
      par[j] = g_malloc (len);
    rtpcc_fec_rs_encode (k, m, len, data, par);
    for (guint i = 0; i < k; i++) {
      present[i] = !(lost < m && rtpcc_rng_bernoulli (&rng, 0.4));
      if (!present[i]) {
        lost++;
        memset (data[i], 0xaa, len);
      }
    }
    /* drop parity rows so that exactly k symbols remain at most */
    for (guint j = 0; j < m; j++)
      if (j < lost) {
        /* keep: parity j replaces a lost data row */
      } else {
        g_clear_pointer (&par[j], g_free);
      }
    fail_unless (rtpcc_fec_rs_decode (k, m, len, data, present, par));
    for (guint i = 0; i < k; i++) {
      fail_unless (memcmp (data[i], orig[i], len) == 0);
      g_free (data[i]);
      g_free (orig[i]);
    }
    for (guint j = 0; j < m; j++)
      g_free (par[j]);
  }
}

GST_END_TEST;

GST_START_TEST (test_xor_2d_bursts)
{
  /* 4 x 4 matrix: a burst of one whole row (4 consecutive) defeats the row
   * parity but every column has one loss */
  RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_XOR_2D, 4, 4, 1);
  Block b;
  RtpccFecDecoderStats st;

  make_block (&b, enc, 16, 9);
  fail_unless_equals_int (b.fec->len, 4 + 4);
  for (guint start = 0; start + 4 <= 16; start++) {
    deliver (&b, G_GUINT64_CONSTANT (0xf) << start, &st);
    fail_unless_equals_int (st.recovered, 4);
    fail_unless_equals_int (st.unrecoverable, 0);
  }
  /* a 2 x 2 square: rows and columns both have two losses: stuck */
  deliver (&b, (1 << 0) | (1 << 1) | (1 << 4) | (1 << 5), &st);
  fail_unless_equals_int (st.recovered, 0);
  fail_unless_equals_int (st.unrecoverable, 4);
  /* an L shape peels: (0,1) by row 0 ... then the rest by columns */
  deliver (&b, (1 << 0) | (1 << 1) | (1 << 4), &st);
  fail_unless_equals_int (st.recovered, 3);
  block_clear (&b);
  rtpcc_fec_encoder_free (enc);
}

GST_END_TEST;

GST_START_TEST (test_parity_rate)
{
  for (guint n = RTPCC_FEC_MIN_N; n <= RTPCC_FEC_MAX_N; n++) {
    RtpccFecEncoderConfig cfg;
    RtpccFecEncoder *enc;
    RtpccFecEncoderStats st;
    RtpccRng rng;
    GBytes *fec;
    guint64 fec_count = 0;

    rtpcc_fec_encoder_config_init (&cfg);
    cfg.n = n;
    enc = rtpcc_fec_encoder_new (&cfg, NULL);
    rtpcc_rng_init (&rng, n);
    /* 60 s at 250 packets/s: every block fills before the 100 ms bound */
    for (guint i = 0; i < 15000; i++) {
      GBytes *p = make_packet (&rng, (guint16) i, i * 360);
      gsize len;
      const guint8 *d = g_bytes_get_data (p, &len);
      RtpccTime now = RTPCC_MSEC (4) * i;

      rtpcc_fec_encoder_poll (enc, now);
      rtpcc_fec_encoder_push (enc, d, len, now);
      while ((fec = rtpcc_fec_encoder_pop (enc)) != NULL) {
        fec_count++;
        g_bytes_unref (fec);
      }
      g_bytes_unref (p);
    }
    rtpcc_fec_encoder_get_stats (enc, &st);
    fail_unless_equals_int (st.fec_packets, fec_count);
    fail_unless (fabs ((gdouble) fec_count / 15000.0 * n - 1.0) <= 0.02,
        "n %u: %" G_GUINT64_FORMAT " parity packets", n, fec_count);
    fail_unless_equals_int (st.blocks_closed_by_time, 0);
    /* disabled: no parity at all */
    rtpcc_fec_encoder_set_enabled (enc, FALSE);
    for (guint i = 0; i < 100; i++) {
      GBytes *p = make_packet (&rng, (guint16) (15000 + i), 0);
      gsize len;
      const guint8 *d = g_bytes_get_data (p, &len);

      rtpcc_fec_encoder_push (enc, d, len, RTPCC_SEC (61));
      g_bytes_unref (p);
    }
    rtpcc_fec_encoder_flush (enc);
    fail_unless (rtpcc_fec_encoder_pop (enc) == NULL);
    rtpcc_fec_encoder_free (enc);
  }
}

GST_END_TEST;

/* Event-driven: the caller polls at next_deadline(); no parity is later
 * than the first protected packet + max-block-time. */
/* close_early: with packets every 10 ms and a 25 ms bound, the block is
 * closed at the push whose successor would come after the bound (20 ms),
 * so its parity leaves with that packet rather than at the timer. */
GST_START_TEST (test_close_early)
{
  RtpccFecEncoderConfig cfg;
  RtpccFecEncoder *enc;
  RtpccRng rng;
  GBytes *fec;

  rtpcc_fec_encoder_config_init (&cfg);
  cfg.n = 14;
  cfg.max_block_time = RTPCC_MSEC (25);
  enc = rtpcc_fec_encoder_new (&cfg, NULL);
  rtpcc_rng_init (&rng, 5);
  for (guint i = 0; i < 3; i++) {
    GBytes *p = make_packet (&rng, (guint16) (100 + i), i * 900);
    gsize len;
    const guint8 *d = g_bytes_get_data (p, &len);
    RtpccTime now = RTPCC_MSEC (10) * i;

    rtpcc_fec_encoder_push (enc, d, len, now);
    rtpcc_fec_encoder_close_early (enc, now);
    fec = rtpcc_fec_encoder_pop (enc);
    /* 0 and 10 ms: the next packet (+10 ms) is within the bound */
    if (i < 2)
      fail_unless (fec == NULL, "closed at %u", i);
    else
      fail_unless (fec != NULL, "not closed at 20 ms");
    if (fec)
      g_bytes_unref (fec);
    g_bytes_unref (p);
  }
  /* nothing open any more */
  fail_unless (rtpcc_fec_encoder_next_deadline (enc) == RTPCC_TIME_INFINITE);
  rtpcc_fec_encoder_free (enc);
}

GST_END_TEST;

GST_START_TEST (test_max_block_time)
{
  static const RtpccFecScheme schemes[] = { RTPCC_FEC_SCHEME_XOR,
    RTPCC_FEC_SCHEME_RS, RTPCC_FEC_SCHEME_XOR_2D
  };

  for (guint s = 0; s < G_N_ELEMENTS (schemes); s++) {
    RtpccFecEncoderConfig cfg;
    RtpccFecEncoder *enc;
    RtpccFecEncoderStats st;
    RtpccRng rng;
    RtpccTime *send_time = g_new0 (RtpccTime, 65536);
    RtpccTime now = 0, bound = RTPCC_MSEC (100), worst = 0;
    guint seq = 0, n_fec = 0;

    rtpcc_fec_encoder_config_init (&cfg);
    cfg.scheme = schemes[s];
    cfg.n = 14;
    cfg.k = 20;
    cfg.m = 3;
    cfg.depth = 3;
    cfg.max_block_time = bound;
    enc = rtpcc_fec_encoder_new (&cfg, NULL);
    rtpcc_rng_init (&rng, 3);
    while (seq < 2000) {
      /* irregular packet spacing 1..40 ms */
      RtpccTime next_pkt = now + RTPCC_MSEC (1 + rtpcc_rng_below (&rng, 40));
      RtpccTime dl = rtpcc_fec_encoder_next_deadline (enc);
      GBytes *fec;

      if (dl <= next_pkt) {
        now = dl;
        rtpcc_fec_encoder_poll (enc, now);
      } else {
        GBytes *p = make_packet (&rng, (guint16) seq, seq * 3000);
        gsize len;
        const guint8 *d = g_bytes_get_data (p, &len);

        now = next_pkt;
        send_time[seq] = now;
        rtpcc_fec_encoder_push (enc, d, len, now);
        seq++;
        g_bytes_unref (p);
      }
      while ((fec = rtpcc_fec_encoder_pop (enc)) != NULL) {
        RtpccFecPacket f;
        gsize len;
        const guint8 *d = g_bytes_get_data (fec, &len);

        fail_unless (rtpcc_fec_packet_parse (d, len, &f, NULL));
        fail_unless_equals_int (f.ssrc, MEDIA_SSRC);
        worst = MAX (worst, now - send_time[f.base]);
        fail_unless (now - send_time[f.base] <= bound);
        rtpcc_fec_packet_clear (&f);
        g_bytes_unref (fec);
        n_fec++;
      }
    }
    rtpcc_fec_encoder_get_stats (enc, &st);
    fail_unless (st.blocks_closed_by_time > 0);
    fail_unless (n_fec > 0);
    GST_INFO ("%s: worst parity delay %.1f ms", rtpcc_fec_scheme_name
        (schemes[s]), RTPCC_TIME_AS_MSEC (worst));
    g_free (send_time);
    rtpcc_fec_encoder_free (enc);
  }
}

GST_END_TEST;

GST_START_TEST (test_corrupt_fec)
{
  RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_RS, 5, 4, 2);
  RtpccFecDecoderConfig cfg;
  RtpccFecDecoder *dec;
  RtpccFecDecoderStats st;
  Block b;
  gsize len;
  const guint8 *d;
  guint8 buf[2048];
  guint bad = 0;
  GError *err = NULL;
  RtpccFecPacket f;

  make_block (&b, enc, 4, 1);
  d = g_bytes_get_data (g_ptr_array_index (b.fec, 0), &len);
  fail_unless (len <= sizeof (buf));
  rtpcc_fec_decoder_config_init (&cfg);
  dec = rtpcc_fec_decoder_new (&cfg);
  /* every truncation below header + 8 bytes of parity */
  for (gsize l = 0; l < 12 + RTPCC_FEC_HEADER_LEN + 8; l++, bad++)
    fail_if (rtpcc_fec_decoder_push_fec (dec, d, l, 0));
  /* the protected SSRC alone (rtpccsink): the parser's, and nothing from
   * a payload shorter than the header */
  {
    guint32 ssrc = 0;
    fail_unless (rtpcc_fec_packet_parse (d, len, &f, NULL));
    fail_unless (rtpcc_fec_payload_protected_ssrc (d + 12, len - 12, &ssrc));
    fail_unless_equals_int (ssrc, f.ssrc);
    rtpcc_fec_packet_clear (&f);
    fail_if (rtpcc_fec_payload_protected_ssrc (d + 12,
            RTPCC_FEC_HEADER_LEN - 1, &ssrc));
    fail_if (rtpcc_fec_payload_protected_ssrc (NULL, 0, &ssrc));
  }
  /* bad version, reserved bits, index >= m, m = 0, empty mask, XOR m=2 */
  {
    static const struct
    {
      guint off;
      guint8 val;
    } muts[] = { {12, 0x80}, {12, 0x51}, {13, 5}, {14, 0}, {14, 17}, {12, 0x60},
    {15, 1}
    };
    for (guint i = 0; i < G_N_ELEMENTS (muts); i++, bad++) {
      memcpy (buf, d, len);
      buf[muts[i].off] = muts[i].val;
      fail_if (rtpcc_fec_packet_parse (buf, len, &f, &err));
      fail_unless (err != NULL);
      g_clear_error (&err);
      /* the SSRC-only read checks the version alone */
      {
        guint32 ssrc = 0;
        fail_unless (rtpcc_fec_payload_protected_ssrc (buf + 12, len - 12,
                &ssrc) == ((buf[12] >> 6) == 1));
      }
      fail_if (rtpcc_fec_decoder_push_fec (dec, buf, len, 0));
    }
    memcpy (buf, d, len);
    memset (buf + 22, 0, 6);
    fail_if (rtpcc_fec_decoder_push_fec (dec, buf, len, 0));
    bad++;
    memcpy (buf, d, len);
    buf[13] = 0;
    buf[12] = 0x40;             /* XOR with m = 2 */
    fail_if (rtpcc_fec_decoder_push_fec (dec, buf, len, 0));
    bad++;
  }
  rtpcc_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (st.fec_corrupt, bad);
  fail_unless_equals_int (st.fec_packets, 0);
  rtpcc_fec_decoder_free (dec);
  block_clear (&b);
  rtpcc_fec_encoder_free (enc);
}

GST_END_TEST;

/* Holes wait for the deadline counted from the next arrival; a repair
 * after that is late (discarded), not a recovery. */
GST_START_TEST (test_deadline_and_order)
{
  RtpccFecEncoder *enc = make_encoder (RTPCC_FEC_SCHEME_XOR, 4, 4, 1);
  RtpccFecDecoderConfig cfg;
  RtpccFecDecoder *dec;
  RtpccFecDecoderStats st;
  Block b;
  GBytes *out;
  gsize len;
  const guint8 *d;
  gboolean rec;

  make_block (&b, enc, 4, 2);
  rtpcc_fec_decoder_config_init (&cfg);
  cfg.deadline = RTPCC_MSEC (50);
  dec = rtpcc_fec_decoder_new (&cfg);
  /* warm-up, 1st protected; lose the 2nd; 3rd at t = 10 ms */
  for (guint i = 0; i < 2; i++) {
    d = g_bytes_get_data (g_ptr_array_index (b.media, i), &len);
    rtpcc_fec_decoder_push_media (dec, d, len, 0);
  }
  d = g_bytes_get_data (g_ptr_array_index (b.media, 3), &len);
  rtpcc_fec_decoder_push_media (dec, d, len, RTPCC_MSEC (10));
  for (guint i = 0; i < 2; i++) {
    out = rtpcc_fec_decoder_pop (dec, RTPCC_MSEC (10), NULL);
    fail_unless (out && g_bytes_equal (out, g_ptr_array_index (b.media, i)));
    g_bytes_unref (out);
  }
  /* the hole holds the 3rd back until 10 + 50 ms */
  fail_unless (rtpcc_fec_decoder_pop (dec, RTPCC_MSEC (59), NULL) == NULL);
  fail_unless_equals_int64 (rtpcc_fec_decoder_next_timeout (dec),
      RTPCC_MSEC (60));
  out = rtpcc_fec_decoder_pop (dec, RTPCC_MSEC (60), &rec);
  fail_unless (out && g_bytes_equal (out, g_ptr_array_index (b.media, 3)));
  fail_if (rec);
  g_bytes_unref (out);
  /* the rest of the block and the parity arrive late: repair is late */
  d = g_bytes_get_data (g_ptr_array_index (b.media, 4), &len);
  rtpcc_fec_decoder_push_media (dec, d, len, RTPCC_MSEC (70));
  d = g_bytes_get_data (g_ptr_array_index (b.fec, 0), &len);
  fail_unless (rtpcc_fec_decoder_push_fec (dec, d, len, RTPCC_MSEC (70)));
  /* the late original itself is dropped too */
  d = g_bytes_get_data (g_ptr_array_index (b.media, 2), &len);
  fail_unless_equals_int (rtpcc_fec_decoder_push_media (dec, d, len,
          RTPCC_MSEC (71)), RTPCC_FEC_MEDIA_DROPPED);
  out = rtpcc_fec_decoder_pop (dec, RTPCC_MSEC (71), NULL);
  fail_unless (out && g_bytes_equal (out, g_ptr_array_index (b.media, 4)));
  g_bytes_unref (out);
  rtpcc_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_int (st.unrecoverable, 1);
  fail_unless_equals_int (st.late_recovered, 1);
  fail_unless_equals_int (st.recovered, 0);
  fail_unless_equals_int (st.late_media, 1);
  fail_unless_equals_int (st.pushed, 4);
  rtpcc_fec_decoder_free (dec);
  block_clear (&b);
  rtpcc_fec_encoder_free (enc);
}

GST_END_TEST;

/* A long random run through Gilbert-Elliott loss with parity losses too:
 * every released packet bit-exact and in order, counts add up. */
GST_START_TEST (test_stream_ge_loss)
{
  static const RtpccFecScheme schemes[] = { RTPCC_FEC_SCHEME_XOR,
    RTPCC_FEC_SCHEME_RS, RTPCC_FEC_SCHEME_XOR_2D
  };

  for (guint s = 0; s < G_N_ELEMENTS (schemes); s++) {
    RtpccFecEncoder *enc = make_encoder (schemes[s], 4, 8, 3);
    RtpccFecDecoderConfig dcfg;
    RtpccFecDecoder *dec;
    RtpccFecDecoderStats st;
    RtpccLossParams lp;
    RtpccLoss loss;
    RtpccRng rng, lrng;
    GPtrArray *sent = g_ptr_array_new_with_free_func ((GDestroyNotify)
        g_bytes_unref);
    guint next = 0, lost_media = 0;
    GBytes *out, *fec;

    rtpcc_loss_params_init (&lp);
    lp.model = RTPCC_LOSS_GILBERT_ELLIOTT;
    lp.ge_p = 0.02;
    lp.ge_r = 0.5;
    rtpcc_rng_init (&lrng, 11);
    rtpcc_loss_init (&loss, &lp, &lrng);
    rtpcc_rng_init (&rng, 12);
    rtpcc_fec_decoder_config_init (&dcfg);
    dec = rtpcc_fec_decoder_new (&dcfg);
    for (guint i = 0; i < 5000; i++) {
      GBytes *p = make_packet (&rng, (guint16) (i + 60000), i * 3000);
      gsize len;
      const guint8 *d = g_bytes_get_data (p, &len);
      RtpccTime now = RTPCC_MSEC (5) * i;

      g_ptr_array_add (sent, p);
      rtpcc_fec_encoder_push (enc, d, len, now);
      if (i == 0 || !rtpcc_loss_next (&loss))
        rtpcc_fec_decoder_push_media (dec, d, len, now);
      else
        lost_media++;
      while ((fec = rtpcc_fec_encoder_pop (enc)) != NULL) {
        d = g_bytes_get_data (fec, &len);
        if (!rtpcc_loss_next (&loss))
          rtpcc_fec_decoder_push_fec (dec, d, len, now);
        g_bytes_unref (fec);
      }
      while ((out = rtpcc_fec_decoder_pop (dec, now, NULL)) != NULL) {
        while (next < sent->len && !g_bytes_equal (out,
                g_ptr_array_index (sent, next)))
          next++;
        fail_unless (next < sent->len);
        next++;
        g_bytes_unref (out);
      }
    }
    while ((out = rtpcc_fec_decoder_pop (dec, RTPCC_TIME_INFINITE, NULL))) {
      while (next < sent->len && !g_bytes_equal (out,
              g_ptr_array_index (sent, next)))
        next++;
      fail_unless (next < sent->len);
      next++;
      g_bytes_unref (out);
    }
    rtpcc_fec_decoder_get_stats (dec, &st);
    GST_INFO ("%s: lost %u, recovered %" G_GUINT64_FORMAT ", unrecoverable %"
        G_GUINT64_FORMAT, rtpcc_fec_scheme_name (schemes[s]), lost_media,
        st.recovered, st.unrecoverable);
    fail_unless (lost_media > 50);
    fail_unless (st.recovered > lost_media / 4);
    fail_unless_equals_int (st.recovered + st.unrecoverable, lost_media);
    fail_unless_equals_int (st.pushed + st.unrecoverable, 5000);
    g_ptr_array_unref (sent);
    rtpcc_fec_decoder_free (dec);
    rtpcc_fec_encoder_free (enc);
  }
}

GST_END_TEST;

GST_START_TEST (test_interval_for_rates)
{
  /* N = round (media / fec), clamped to [2, 14]; off when either is 0 */
  fail_unless_equals_int (rtpcc_fec_interval_for_rates (1000000, 100000), 10);
  fail_unless_equals_int (rtpcc_fec_interval_for_rates (1050, 100), 11);
  fail_unless_equals_int (rtpcc_fec_interval_for_rates (1049, 100), 10);
  fail_unless_equals_int (rtpcc_fec_interval_for_rates (1000, 1000), 2);
  fail_unless_equals_int (rtpcc_fec_interval_for_rates (1000, 10), 14);
  fail_unless_equals_int (rtpcc_fec_interval_for_rates (0, 100), 0);
  fail_unless_equals_int (rtpcc_fec_interval_for_rates (1000, 0), 0);
  fail_unless_equals_int (rtpcc_fec_interval_for_rates (G_MAXUINT64,
          G_MAXUINT64 / 5), 5);
}

GST_END_TEST;

/* Following a target: a controller's own interval is n, by count; else n
 * from the rates within the time bound; off without a FEC rate. */
GST_START_TEST (test_config_follow)
{
  RtpccFecEncoderConfig c;
  RtpccFecSizes sz;

  rtpcc_fec_encoder_config_init (&c);
  fail_unless (rtpcc_fec_config_follow (&c, 300000, 300000 / 14, 14,
          RTPCC_MSEC (100), NULL));
  fail_unless_equals_int (c.n, 14);
  fail_unless_equals_int64 (c.max_block_time, 0);
  fail_unless (rtpcc_fec_config_follow (&c, 300000, 0, 40, RTPCC_MSEC (100),
          NULL));
  fail_unless_equals_int (c.n, RTPCC_FEC_MAX_N);
  fail_unless (rtpcc_fec_config_follow (&c, 1000000, 100000, 0,
          RTPCC_MSEC (100), NULL));
  fail_unless_equals_int (c.n, 10);
  fail_unless_equals_int64 (c.max_block_time, RTPCC_MSEC (100));
  c.n = 7;
  fail_if (rtpcc_fec_config_follow (&c, 1000000, 0, 0, RTPCC_MSEC (100), NULL));
  fail_unless_equals_int (c.n, 7);
  /* frames of one full packet (1184 B) and one of 416 B: a parity for 5
   * of them costs 1200 / 800 = 1.5 mean packets, so the same FEC rate
   * buys one parity per 8 (7.5, rounded), not per 5 */
  rtpcc_fec_sizes_init (&sz, RTPCC_SEC (1));
  for (guint i = 0; i < 200; i++)
    rtpcc_fec_sizes_add (&sz, RTPCC_MSEC (10) * i, i % 2 ? 416 : 1184);
  fail_unless (rtpcc_fec_config_follow (&c, 1000000, 200000, 0,
          RTPCC_MSEC (100), &sz));
  fail_unless_equals_int (c.n, 8);
  fail_unless (rtpcc_fec_config_follow (&c, 1000000, 200000, 0,
          RTPCC_MSEC (100), NULL));
  fail_unless_equals_int (c.n, 5);
  /* a controller's own interval is its probe: not scaled */
  fail_unless (rtpcc_fec_config_follow (&c, 1000000, 200000, 4,
          RTPCC_MSEC (100), &sz));
  fail_unless_equals_int (c.n, 4);
}

GST_END_TEST;

/* A parity packet is as long as the longest it protects plus the FEC
 * header: its bytes over the mean media packet's, measured per window. */
GST_START_TEST (test_parity_ratio)
{
  RtpccFecSizes sz;
  RtpccTime t = RTPCC_SEC (5);

  fail_unless_equals_float (rtpcc_fec_parity_ratio (800, 1200),
      (1200.0 + RTPCC_FEC_HEADER_LEN) / 800);
  fail_unless_equals_float (rtpcc_fec_parity_ratio (1200, 1200),
      (1200.0 + RTPCC_FEC_HEADER_LEN) / 1200);
  fail_unless_equals_float (rtpcc_fec_parity_ratio (0, 1200), 1.0);
  fail_unless_equals_float (rtpcc_fec_parity_ratio (NAN, 1200), 1.0);
  fail_unless_equals_float (rtpcc_fec_parity_ratio (800, 0), 1.0);

  rtpcc_fec_sizes_init (&sz, RTPCC_SEC (1));
  fail_unless_equals_float (sz.ratio, 1.0);
  /* a second of full packets and frame ends of 400 bytes, in turn */
  for (guint i = 0; i < 100; i++)
    rtpcc_fec_sizes_add (&sz, t + RTPCC_MSEC (10) * i, i % 2 ? 400 : 1200);
  fail_unless_equals_float (sz.ratio, 1.0);
  rtpcc_fec_sizes_add (&sz, t + RTPCC_SEC (1), 1200);
  fail_unless_equals_float (sz.ratio, (1200.0 + RTPCC_FEC_HEADER_LEN) / 800);
  /* the next window: only the packets in it */
  for (guint i = 1; i < 100; i++)
    rtpcc_fec_sizes_add (&sz, t + RTPCC_SEC (1) + RTPCC_MSEC (10) * i, 600);
  rtpcc_fec_sizes_add (&sz, t + RTPCC_SEC (2), 600);
  fail_unless_equals_float (sz.ratio, (1200.0 + RTPCC_FEC_HEADER_LEN) /
      ((1200.0 + 99 * 600) / 100));

  /* per block length, over the last packets in order: one full packet
   * and three of 200 bytes, in turn; a block of 1 is each packet (+16), a
   * block of 4 or more always holds a full one */
  rtpcc_fec_sizes_init (&sz, RTPCC_SEC (1));
  fail_unless_equals_float (rtpcc_fec_sizes_ratio (&sz, 4), 1.0);
  for (guint i = 0; i < 400; i++)
    rtpcc_fec_sizes_add (&sz, t + RTPCC_MSEC (5) * i, i % 4 ? 200 : 1200);
  fail_unless_equals_float (rtpcc_fec_sizes_ratio (&sz, 1), (450.0 + 16) /
      450);
  fail_unless_equals_float (rtpcc_fec_sizes_ratio (&sz, 4), 1216.0 / 450);
  fail_unless_equals_float (rtpcc_fec_sizes_ratio (&sz, 8), 1216.0 / 450);
  /* blocks of 2: one with the full packet, one without */
  fail_unless_equals_float (rtpcc_fec_sizes_ratio (&sz, 2),
      (1216.0 + 216) / 2 / 450);
}

GST_END_TEST;

static Suite *
rtpcc_fec_suite (void)
{
  Suite *s = suite_create ("rtpcc_fec");
  TCase *tc = tcase_create ("fec");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, test_interval_for_rates);
  tcase_add_test (tc, test_config_follow);
  tcase_add_test (tc, test_parity_ratio);
  tcase_add_test (tc, test_xor_kernels);
  tcase_add_test (tc, test_xor_exhaustive);
  tcase_add_test (tc, test_rs_exhaustive);
  tcase_add_test (tc, test_rs_codec_random);
  tcase_add_test (tc, test_xor_2d_bursts);
  tcase_add_test (tc, test_parity_rate);
  tcase_add_test (tc, test_max_block_time);
  tcase_add_test (tc, test_close_early);
  tcase_add_test (tc, test_corrupt_fec);
  tcase_add_test (tc, test_deadline_and_order);
  tcase_add_test (tc, test_stream_ge_loss);
  return s;
}

GST_CHECK_MAIN (rtpcc_fec);

/* Unit tests for RFC 5104 TMMBR / TMMBN (feedback/tmmbr.h): the wire
 * format against hand-assembled bytes, the exponent/mantissa encoding,
 * malformed packets, the measured overhead's running average, the bounding
 * set against a hand-worked example, RFC 5104's example, the RFC's
 * algorithm run step by step and the lower envelope of random tuples,
 * the requester's "would it
 * change anything", the media sender's state; GStreamer's RTCP reader and
 * tshark's dissection.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <rtpcc/rtpcc.h>
#include <math.h>
#include <string.h>

#include "assert-bytes.h"
#include "tshark-util.h"

/* 0x11223344 asks media sender 0x55667788 for at most 3.2 Mbit/s with 40
 * bytes of overhead per packet: 3 200 000 = 100000 · 2^5, the smallest
 * exponent whose mantissa fits 17 bits (2^17 = 131072);
 * 5 << 26 | 100000 << 9 | 40 = 0x170D4028. */
static const guint8 tmmbr_example[] = {
  0x83, 0xCD, 0x00, 0x04,       /* V=2 FMT=3, PT 205, length 4 */
  0x11, 0x22, 0x33, 0x44,       /* SSRC of packet sender */
  0x00, 0x00, 0x00, 0x00,       /* media source: 0 */
  0x55, 0x66, 0x77, 0x88,       /* the media sender asked */
  0x17, 0x0D, 0x40, 0x28,
};

/* The answer of a sender limited by two requesters: 900 kbit/s at 60
 * bytes (112500 · 2^3: 3 << 26 | 112500 << 9 | 60 = 0x0F6EE83C) owned by
 * 0x11223344, 1 Mbit/s at 80 bytes (125000 · 2^3 → 0x0FD09050) owned by
 * 0x99AABBCC. */
static const guint8 tmmbn_example[] = {
  0x84, 0xCD, 0x00, 0x06,       /* V=2 FMT=4, PT 205, length 6 */
  0x55, 0x66, 0x77, 0x88,
  0x00, 0x00, 0x00, 0x00,
  0x11, 0x22, 0x33, 0x44, 0x0F, 0x6E, 0xE8, 0x3C,
  0x99, 0xAA, 0xBB, 0xCC, 0x0F, 0xD0, 0x90, 0x50,
};

static const guint8 tmmbn_empty[] = {
  0x84, 0xCD, 0x00, 0x02, 0x55, 0x66, 0x77, 0x88, 0x00, 0x00, 0x00, 0x00,
};

static const RtpccTmmbrEntry tmmbn_entries[] = {
  {0x11223344, 900000, 60}, {0x99AABBCC, 1000000, 80},
};

GST_START_TEST (test_layout)
{
  RtpccTmmbrEntry e = { 0x55667788, 3200000, 40 };
  guint8 buf[64];
  gsize n;
  GError *err = NULL;
  g_autoptr (RtpccTmmb) t = NULL;

  fail_unless_equals_int (rtpcc_tmmbr_size (1), 20);
  fail_unless_equals_int (rtpcc_tmmbr_size (0), 0);
  fail_unless_equals_int (rtpcc_tmmbn_size (0), 12);
  fail_unless_equals_int (rtpcc_tmmbn_size (RTPCC_TMMBR_MAX_ENTRIES + 1), 0);
  fail_unless_equals_int (rtpcc_tmmbr_size (RTPCC_TMMBR_MAX_ENTRIES),
      (G_MAXUINT16 + 1) * 4 - 4);

  n = rtpcc_tmmbr_write (buf, sizeof (buf), 0x11223344, &e, 1);
  assert_bytes (buf, n, tmmbr_example);
  t = rtpcc_tmmbr_parse (tmmbr_example, sizeof (tmmbr_example), &err);
  fail_unless (t != NULL, "%s", err ? err->message : "");
  fail_unless (t->sender_ssrc == 0x11223344);
  fail_unless_equals_int (t->n_entries, 1);
  fail_unless (t->entries[0].ssrc == 0x55667788);
  fail_unless_equals_uint64 (t->entries[0].bitrate, 3200000);
  fail_unless_equals_int (t->entries[0].overhead, 40);
  g_clear_pointer (&t, rtpcc_tmmb_free);
  /* a TMMBR is not a TMMBN */
  fail_unless (rtpcc_tmmbn_parse (tmmbr_example, sizeof (tmmbr_example),
          NULL) == NULL);

  n = rtpcc_tmmbn_write (buf, sizeof (buf), 0x55667788, tmmbn_entries, 2);
  assert_bytes (buf, n, tmmbn_example);
  t = rtpcc_tmmbn_parse (tmmbn_example, sizeof (tmmbn_example), &err);
  fail_unless (t != NULL, "%s", err ? err->message : "");
  fail_unless_equals_int (t->n_entries, 2);
  for (guint i = 0; i < 2; i++) {
    fail_unless (t->entries[i].ssrc == tmmbn_entries[i].ssrc);
    fail_unless_equals_uint64 (t->entries[i].bitrate,
        tmmbn_entries[i].bitrate);
    fail_unless_equals_int (t->entries[i].overhead,
        tmmbn_entries[i].overhead);
  }
  g_clear_pointer (&t, rtpcc_tmmb_free);

  /* no limit in force: a TMMBN without entries */
  n = rtpcc_tmmbn_write (buf, sizeof (buf), 0x55667788, NULL, 0);
  assert_bytes (buf, n, tmmbn_empty);
  t = rtpcc_tmmbn_parse (tmmbn_empty, sizeof (tmmbn_empty), NULL);
  fail_unless (t != NULL && t->n_entries == 0);

  /* the writer refuses: no room, no entry in a TMMBR, overhead past 9
   * bits */
  fail_unless_equals_int (rtpcc_tmmbr_write (buf, 19, 1, &e, 1), 0);
  fail_unless_equals_int (rtpcc_tmmbr_write (buf, 64, 1, &e, 0), 0);
  fail_unless_equals_int (rtpcc_tmmbr_write (NULL, 64, 1, &e, 1), 0);
  e.overhead = 512;
  fail_unless_equals_int (rtpcc_tmmbr_write (buf, 64, 1, &e, 1), 0);
  e.overhead = 511;
  fail_unless_equals_int (rtpcc_tmmbr_write (buf, 64, 1, &e, 1), 20);
}

GST_END_TEST;

GST_START_TEST (test_bitrate_encoding)
{
  static const struct
  {
    guint64 bitrate;
    guint8 exp;
    guint32 mantissa;
  } cases[] = {
    {0, 0, 0},
    {131071, 0, 131071},        /* the largest mantissa */
    {131072, 1, 65536},
    {1000001, 3, 125000},       /* 125000.125: rounded down */
    {3200000, 5, 100000},
    {G_MAXUINT64, 47, 131071},  /* (2^17 − 1) · 2^47 */
  };
  RtpccRng rng;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    guint8 exp;
    guint32 m;

    rtpcc_tmmbr_encode_bitrate (cases[i].bitrate, &exp, &m);
    fail_unless_equals_int (exp, cases[i].exp);
    fail_unless_equals_int (m, cases[i].mantissa);
  }

  /* written and read: never above the request, less by under one unit
   * of the exponent (the mantissa keeps the top 17 bits) */
  rtpcc_rng_init (&rng, 5104);
  for (guint i = 0; i < 2000; i++) {
    guint64 r = rtpcc_rng_next_u64 (&rng) >> (i % 64);
    RtpccTmmbrEntry e = { i, r, (guint16) (i % 512) };
    guint8 buf[20];
    RtpccTmmb *t;
    guint8 exp;
    guint32 m;

    rtpcc_tmmbr_encode_bitrate (r, &exp, &m);
    fail_unless (m <= 131071 && exp <= 47);
    fail_unless (exp == 0 || m >= 65536, "not the smallest exponent");
    fail_unless_equals_int (rtpcc_tmmbr_write (buf, sizeof (buf), 7, &e, 1),
        20);
    t = rtpcc_tmmbr_parse (buf, 20, NULL);
    fail_unless (t != NULL);
    fail_unless (t->entries[0].bitrate <= r);
    fail_unless (r - t->entries[0].bitrate < (G_GUINT64_CONSTANT (1) << exp));
    fail_unless_equals_int (t->entries[0].overhead, i % 512);
    rtpcc_tmmb_free (t);
  }
}

GST_END_TEST;

static void
assert_refused (const guint8 * p, gsize len, gboolean tmmbn,
    const gchar * why)
{
  GError *err = NULL;
  RtpccTmmb *t = tmmbn ? rtpcc_tmmbn_parse (p, len, &err) :
      rtpcc_tmmbr_parse (p, len, &err);

  fail_unless (t == NULL, "accepted (%s)", why);
  fail_unless (err != NULL && err->domain == RTPCC_ERROR);
  fail_unless (strstr (err->message, why) != NULL, "%s", err->message);
  g_error_free (err);
}

GST_START_TEST (test_malformed)
{
  guint8 p[64];

  assert_refused (NULL, 0, FALSE, "need at least 12");
  assert_refused (tmmbr_example, 11, FALSE, "need at least 12");
  /* FMT 1 (a NACK), PT 206 */
  memcpy (p, tmmbr_example, sizeof (tmmbr_example));
  p[0] = 0x81;
  assert_refused (p, sizeof (tmmbr_example), FALSE, "FMT 1, expected 205");
  memcpy (p, tmmbr_example, sizeof (tmmbr_example));
  p[1] = 206;
  assert_refused (p, sizeof (tmmbr_example), FALSE, "type 206");
  /* length field and bytes disagree */
  assert_refused (tmmbr_example, 16, FALSE, "length field says");
  /* half an entry */
  memcpy (p, tmmbr_example, sizeof (tmmbr_example));
  p[3] = 3;
  assert_refused (p, 16, FALSE, "4 FCI bytes");
  /* a TMMBR must name someone */
  assert_refused (tmmbn_empty, sizeof (tmmbn_empty), FALSE, "FMT 4");
  memcpy (p, tmmbn_empty, sizeof (tmmbn_empty));
  p[0] = 0x83;
  assert_refused (p, sizeof (tmmbn_empty), FALSE, "one or more");
  /* exponent 48, mantissa 2^17 − 1: past 64 bits; exponent 63,
   * mantissa 1 is 2^63 and fine */
  memcpy (p, tmmbr_example, sizeof (tmmbr_example));
  p[16] = 48 << 2 | 0x03;
  p[17] = 0xFF;
  p[18] = 0xFE;
  assert_refused (p, sizeof (tmmbr_example), FALSE, "past 2^64");
  p[16] = 63 << 2;
  p[17] = 0x00;
  p[18] = 0x02;
  {
    RtpccTmmb *t = rtpcc_tmmbr_parse (p, sizeof (tmmbr_example), NULL);
    fail_unless (t != NULL);
    fail_unless (t->entries[0].bitrate == G_GUINT64_CONSTANT (1) << 63);
    rtpcc_tmmb_free (t);
  }
  /* padding of a whole word is fine, of three bytes not */
  memcpy (p, tmmbn_example, sizeof (tmmbn_example));
  p[0] |= 0x20;
  p[3] += 1;
  memset (p + sizeof (tmmbn_example), 0, 4);
  p[sizeof (tmmbn_example) + 3] = 4;
  {
    RtpccTmmb *t = rtpcc_tmmbn_parse (p, sizeof (tmmbn_example) + 4, NULL);
    fail_unless (t != NULL && t->n_entries == 2);
    rtpcc_tmmb_free (t);
  }
  p[sizeof (tmmbn_example) + 3] = 3;
  assert_refused (p, sizeof (tmmbn_example) + 4, TRUE, "padding");
}

GST_END_TEST;

/* Seven tuples (bit/s, bytes), worked by hand. C has the lowest rate.
 * Of those with more overhead, E crosses C first: at (1 000 000 −
 * 900 000) / (8 · 20) = 625 packets/s, before C's limit reaches zero at
 * 900 000 / (8 · 60) = 1875. After E (zero at 1562.5): F crosses at
 * 2 000 000 / (8 · 220) = 1136.4, G at 8 000 000 / 2560 = 3125, past E's
 * zero. After F (zero at 1250): G at 6 000 000 / 800 = 7500, past it.
 * A, B and D start higher than C and fall slower: never the lowest. */
static const RtpccTmmbrEntry tuples[] = {
  {0xA, 1000000, 40}, {0xB, 1200000, 20}, {0xC, 900000, 60},
  {0xD, 2000000, 10}, {0xE, 1000000, 80}, {0xF, 3000000, 300},
  {0x6, 9000000, 400},
};

static RtpccTmmbrEntry
entry (guint32 ssrc, guint64 bitrate, guint16 overhead)
{
  RtpccTmmbrEntry e = { ssrc, bitrate, overhead };
  return e;
}

GST_START_TEST (test_bounding_set_example)
{
  RtpccTmmbrEntry out[G_N_ELEMENTS (tuples) + 1], in[4];
  guint n = rtpcc_tmmbr_bounding_set (tuples, G_N_ELEMENTS (tuples), out);

  fail_unless_equals_int (n, 3);
  fail_unless_equals_int (out[0].ssrc, 0xC);
  fail_unless_equals_int (out[1].ssrc, 0xE);
  fail_unless_equals_int (out[2].ssrc, 0xF);

  /* the net limit: C below 625 packets/s, E to 1136.4, then F */
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 0), 900000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 500), 660000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 1000), 360000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 1200), 120000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 1250), 0);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 5000), 0);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, -1), 900000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, NAN), 900000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, 0, 100),
      G_MAXUINT64);

  /* of equal lowest rates the higher overhead; of identical tuples the
   * first listed */
  in[0] = entry (1, 500000, 20);
  in[1] = entry (2, 500000, 30);
  in[2] = entry (3, 500000, 30);
  n = rtpcc_tmmbr_bounding_set (in, 3, out);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_int (out[0].ssrc, 2);

  /* no overhead: a flat line; a steeper one starting higher takes over at
   * 100 000 / 800 = 125 packets/s, however far the flat one goes */
  in[0] = entry (1, 500000, 0);
  in[1] = entry (2, 600000, 100);
  n = rtpcc_tmmbr_bounding_set (in, 2, out);
  fail_unless_equals_int (n, 2);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 125), 500000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 126), 499200);

  /* a request of 0 (pause) bounds everything alone */
  in[2] = entry (3, 0, 10);
  n = rtpcc_tmmbr_bounding_set (in, 3, out);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_int (out[0].ssrc, 3);

  /* crossing exactly where the last member's limit reaches zero is left
   * out: (1 000 000 − 500 000) / (8 · 50) = 1250 = 500 000 / (8 · 50) */
  in[0] = entry (1, 500000, 50);
  in[1] = entry (2, 1000000, 100);
  n = rtpcc_tmmbr_bounding_set (in, 2, out);
  fail_unless_equals_int (n, 1);

  fail_unless_equals_int (rtpcc_tmmbr_bounding_set (in, 0, out), 0);
}

GST_END_TEST;

/* RFC 5104 §3.5.4.2's own example: receiver A at 35 kbit/s with 40 bytes,
 * B at 40 kbit/s with 60 bytes. At 20 packets/s A leaves 28 600 bit/s,
 * B 30 400; they switch over at 31.25 packets/s, before A's limit reaches
 * zero (35 000 / 320 = 109.4), so both bound. */
GST_START_TEST (test_bounding_set_rfc_example)
{
  RtpccTmmbrEntry in[2] = { {0xA, 35000, 40}, {0xB, 40000, 60} }, out[2];
  guint n = rtpcc_tmmbr_bounding_set (in, 2, out);

  fail_unless_equals_int (n, 2);
  fail_unless_equals_int (out[0].ssrc, 0xA);
  fail_unless_equals_int (out[1].ssrc, 0xB);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 20), 28600);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 31.25), 25000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_net_limit (out, n, 40), 20800);
  /* the order they came in does not matter */
  in[0] = out[1];
  in[1] = out[0];
  fail_unless_equals_int (rtpcc_tmmbr_bounding_set (in, 2, out), 2);
  fail_unless_equals_int (out[0].ssrc, 0xA);
}

GST_END_TEST;

/* @n random tuples for round @it: every fourth from a coarse grid (ties,
 * crossings at zero, zero overheads and zero rates are likely), every
 * fourth low rates under any overhead, the rest with more overhead for
 * more rate, as along a path whose hops add headers (longer sets). */
static void
random_tuples (RtpccRng * rng, guint it, RtpccTmmbrEntry * in, guint n)
{
  for (guint i = 0; i < n; i++) {
    guint64 r = rtpcc_rng_next_u64 (rng);

    in[i].ssrc = i;
    switch (it % 4) {
      case 0:
        in[i].bitrate = 100000 * (r % 6);
        in[i].overhead = 20 * ((r >> 8) % 5);
        break;
      case 1:
        in[i].bitrate = 1000 * (1 + r % 50);
        in[i].overhead = (r >> 8) % 512;
        break;
      default:
        in[i].overhead = r % 512;
        in[i].bitrate = 100000 + in[i].overhead * (1000 + (r >> 16) %
            4000) + (r >> 32) % 300000;
        break;
    }
  }
}

/* A packet rate as an exact fraction num / den, den ≥ 0 (0: unbounded).
 * A crossing can be negative: a steeper line that starts lower. */
typedef struct
{
  gint64 num, den;
} Rate;

/* Sign of a − b; values below 2^40 and denominators below 2^13 keep the
 * cross products inside 63 bits. */
static gint
rate_cmp (Rate a, Rate b)
{
  gint64 l, r;

  if (a.den == 0 || b.den == 0)
    return (a.den == 0) - (b.den == 0);
  l = a.num * b.den;
  r = b.num * a.den;
  return l < r ? -1 : l > r;
}

/* Where @t's limit reaches zero, B / (8 · O) (equation 4); no positive
 * stretch at all for B = 0. */
static Rate
max_pr (const RtpccTmmbrEntry * t)
{
  Rate r = { (gint64) t->bitrate, 8 * (gint64) t->overhead };

  if (t->bitrate == 0)
    r.den = 1;
  return r;
}

/* RFC 5104 §3.5.4.2's "Initial Algorithm", step by step, without SMAXPR,
 * as a reference for rtpcc_tmmbr_bounding_set. */
static guint
rfc5104_initial_algorithm (const RtpccTmmbrEntry * in, guint n,
    RtpccTmmbrEntry * y)
{
  RtpccTmmbrEntry x[16];
  Rate isect[16], maxpr[16];
  guint nx = 0, ny = 0, first = 0;

  /* 1. the candidate list X by increasing overhead (stable: the first
   * listed stays first among equals) */
  for (guint i = 0; i < n; i++) {
    guint j = nx++;
    while (j > 0 && x[j - 1].overhead > in[i].overhead) {
      x[j] = x[j - 1];
      j--;
    }
    x[j] = in[i];
  }
  /* 2. of equal overheads only the lowest bit rate */
  {
    guint k = 0;
    for (guint i = 0; i < nx; i++) {
      if (k > 0 && x[k - 1].overhead == x[i].overhead) {
        if (x[i].bitrate < x[k - 1].bitrate)
          x[k - 1] = x[i];
        continue;
      }
      x[k++] = x[i];
    }
    nx = k;
  }
  /* 3. the lowest bit rate (of equal ones the highest overhead) starts Y
   * with intersection 0 */
  for (guint i = 1; i < nx; i++)
    if (x[i].bitrate <= x[first].bitrate)
      first = i;
  y[ny] = x[first];
  isect[ny] = (Rate) {
  0, 1};
  maxpr[ny] = max_pr (&x[first]);
  ny++;
  /* 4. tuples of lower overhead are discarded; 5. the rest in order */
  for (guint c = first + 1; c < nx; c++) {
    Rate pr;

    for (;;) {
      /* 6. the crossing with the last of Y, equation (3) */
      const RtpccTmmbrEntry *l = &y[ny - 1];
      pr.num = (gint64) x[c].bitrate - (gint64) l->bitrate;
      pr.den = 8 * (gint64) (x[c].overhead - l->overhead);
      /* 7. at or before the last one's own crossing: it goes */
      if (ny > 1 && rate_cmp (pr, isect[ny - 1]) <= 0) {
        ny--;
        continue;
      }
      break;
    }
    /* 8. added only before the last one's limit reaches zero */
    if (rate_cmp (pr, maxpr[ny - 1]) < 0) {
      y[ny] = x[c];
      isect[ny] = pr;
      maxpr[ny] = max_pr (&x[c]);
      ny++;
    }
    /* 9. the next candidate */
  }
  return ny;
}

/* The lowest B − 8·O·PR among @t (exact: values below 2^40). */
static gint64
envelope (const RtpccTmmbrEntry * t, guint n, gint64 pr)
{
  gint64 m = G_MAXINT64;

  for (guint i = 0; i < n; i++)
    m = MIN (m, (gint64) t[i].bitrate - 8 * (gint64) t[i].overhead * pr);
  return m;
}

/* The bounding set @out (@k members) of @in draws the same lower envelope
 * as all of @in wherever it is positive, and every member is needed
 * (taking it out raises the envelope somewhere there). */
static void
check_envelope (const RtpccTmmbrEntry * in, guint n,
    const RtpccTmmbrEntry * out, guint k, guint it)
{
  RtpccTmmbrEntry less[16];
  gint64 pr_max = 0;

  /* where the envelope of all is positive (its zero at most B_min / 8 at
   * one byte of overhead, or unbounded without any), both agree */
  while (pr_max < 2000000 && envelope (in, n, pr_max) > 0)
    pr_max += 1 + pr_max / 64;
  for (gint64 pr = 0; pr <= pr_max; pr += 1 + pr / 128)
    if (envelope (in, n, pr) > 0)
      fail_unless_equals_int64 (envelope (out, k, pr), envelope (in, n,
              pr));
  /* every member is needed: without it the envelope is higher at some
   * positive point (checked at the midpoint of its stretch, in exact
   * rationals: 2·8·O·PR with PR = (x1 + x2) / 2 stays integral) */
  for (guint j = 0; j < k && k > 1; j++) {
    gdouble lo = 0, hi, mid;
    guint m = 0;
    gboolean higher = FALSE;

    if (j > 0)
      lo = (gdouble) (out[j].bitrate - out[j - 1].bitrate) /
          (8.0 * (out[j].overhead - out[j - 1].overhead));
    if (j + 1 < k)
      hi = (gdouble) (out[j + 1].bitrate - out[j].bitrate) /
          (8.0 * (out[j + 1].overhead - out[j].overhead));
    else
      hi = out[j].overhead ? out[j].bitrate / (8.0 * out[j].overhead) :
          lo + 1000;
    mid = (lo + hi) / 2;
    for (guint i = 0; i < k; i++)
      if (i != j)
        less[m++] = out[i];
    {
      gdouble with = G_MAXDOUBLE, without = G_MAXDOUBLE;
      for (guint i = 0; i < k; i++) {
        gdouble v = out[i].bitrate - 8.0 * out[i].overhead * mid;
        with = MIN (with, v);
      }
      for (guint i = 0; i < m; i++) {
        gdouble v = less[i].bitrate - 8.0 * less[i].overhead * mid;
        without = MIN (without, v);
      }
      higher = without > with + 1e-6 && with > 0;
    }
    fail_unless (higher, "member %u of %u not needed (it %u)", j, k, it);
  }
}

/* Random tuples: the same set, member for member, as RFC 5104's
 * algorithm run step by step, in order of rising overhead and rate, and
 * the same envelope as all tuples. */
GST_START_TEST (test_bounding_set_random)
{
  RtpccRng rng;
  guint n_three = 0;

  rtpcc_rng_init (&rng, 5104);
  for (guint it = 0; it < 3000; it++) {
    guint n = 1 + it % 16;
    RtpccTmmbrEntry in[16], got[16], want[16];
    guint k, kw;

    random_tuples (&rng, it, in, n);
    k = rtpcc_tmmbr_bounding_set (in, n, got);
    kw = rfc5104_initial_algorithm (in, n, want);
    fail_unless_equals_int (k, kw);
    for (guint j = 0; j < k; j++) {
      fail_unless_equals_int (got[j].ssrc, want[j].ssrc);
      fail_unless_equals_uint64 (got[j].bitrate, want[j].bitrate);
      fail_unless_equals_int (got[j].overhead, want[j].overhead);
    }
    for (guint j = 1; j < k; j++) {
      fail_unless (got[j].overhead > got[j - 1].overhead);
      fail_unless (got[j].bitrate > got[j - 1].bitrate);
    }
    check_envelope (in, n, got, k, it);
    n_three += k >= 3;
  }
  /* the sets were not all trivial */
  fail_unless (n_three > 300, "%u sets of three or more", n_three);
}

GST_END_TEST;

GST_START_TEST (test_would_change)
{
  RtpccTmmbrEntry set[3];
  guint n = rtpcc_tmmbr_bounding_set (tuples, G_N_ELEMENTS (tuples), set);
  RtpccTmmbrEntry mine;

  fail_unless_equals_int (n, 3);
  /* A's request is above the envelope: nothing to send */
  mine = tuples[0];
  fail_if (rtpcc_tmmbr_would_change (set, n, &mine));
  /* lower than C: it joins */
  mine.bitrate = 800000;
  fail_unless (rtpcc_tmmbr_would_change (set, n, &mine));
  /* an owner asking for more changes the set (its tuple leaves it) */
  mine = tuples[4];             /* E */
  mine.bitrate = 5000000;
  fail_unless (rtpcc_tmmbr_would_change (set, n, &mine));
  /* the same tuple again changes nothing; another's identical one neither */
  mine = tuples[4];
  fail_if (rtpcc_tmmbr_would_change (set, n, &mine));
  mine.ssrc = 0x77;
  fail_if (rtpcc_tmmbr_would_change (set, n, &mine));
  /* into an empty set anything goes */
  fail_unless (rtpcc_tmmbr_would_change (set, 0, &mine));
}

GST_END_TEST;

/* A TMMBR from @from asking @media for @bitrate at @overhead. */
static RtpccTmmb *
make_tmmbr (guint32 from, guint32 media, guint64 bitrate, guint16 overhead)
{
  RtpccTmmbrEntry e[2] = { {0xDEAD, 1, 1}, {media, bitrate, overhead} };
  guint8 buf[32];
  gsize n = rtpcc_tmmbr_write (buf, sizeof (buf), from, e, 2);

  fail_unless (n == 28);
  return rtpcc_tmmbr_parse (buf, n, NULL);
}

GST_START_TEST (test_sender_state)
{
  RtpccTmmbrState s;
  RtpccTmmb *t;
  guint8 buf[512];
  gsize n;

  rtpcc_tmmbr_state_init (&s, 0x55667788);
  fail_unless_equals_uint64 (rtpcc_tmmbr_state_limit (&s), G_MAXUINT64);
  fail_unless_equals_uint64 (rtpcc_tmmbr_state_apply (&s, 2000000), 2000000);
  n = rtpcc_tmmbr_state_write_tmmbn (&s, buf, sizeof (buf), 0x55667788);
  assert_bytes (buf, n, tmmbn_empty);

  /* about another stream: not ours, nothing due */
  t = make_tmmbr (0x11223344, 0x1234, 100, 0);
  fail_if (rtpcc_tmmbr_state_on_tmmbr (&s, t));
  rtpcc_tmmb_free (t);
  fail_unless_equals_int (s.n, 0);

  /* two requesters: the example TMMBN answers them */
  t = make_tmmbr (0x11223344, 0x55667788, 900000, 60);
  fail_unless (rtpcc_tmmbr_state_on_tmmbr (&s, t));
  rtpcc_tmmb_free (t);
  t = make_tmmbr (0x99AABBCC, 0x55667788, 1000000, 80);
  fail_unless (rtpcc_tmmbr_state_on_tmmbr (&s, t));
  rtpcc_tmmb_free (t);
  fail_unless_equals_uint64 (rtpcc_tmmbr_state_limit (&s), 900000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_state_apply (&s, 2000000), 900000);
  fail_unless_equals_uint64 (rtpcc_tmmbr_state_apply (&s, 700000), 700000);
  n = rtpcc_tmmbr_state_write_tmmbn (&s, buf, sizeof (buf), 0x55667788);
  assert_bytes (buf, n, tmmbn_example);

  /* the owner of the lowest raises its request: the other one rules */
  t = make_tmmbr (0x11223344, 0x55667788, 1500000, 60);
  fail_unless (rtpcc_tmmbr_state_on_tmmbr (&s, t));
  rtpcc_tmmb_free (t);
  fail_unless_equals_int (s.n, 2);
  fail_unless_equals_uint64 (rtpcc_tmmbr_state_limit (&s), 1000000);
  /* and leaves: the same */
  fail_unless (rtpcc_tmmbr_state_remove (&s, 0x11223344));
  fail_if (rtpcc_tmmbr_state_remove (&s, 0x11223344));
  fail_unless_equals_uint64 (rtpcc_tmmbr_state_limit (&s), 1000000);
  fail_unless (rtpcc_tmmbr_state_remove (&s, 0x99AABBCC));
  fail_unless_equals_uint64 (rtpcc_tmmbr_state_limit (&s), G_MAXUINT64);

  /* a full table: a more limiting newcomer evicts the least limiting
   * request, a less limiting one is ignored */
  for (guint i = 0; i < RTPCC_TMMBR_MAX_REQUESTERS; i++) {
    t = make_tmmbr (100 + i, 0x55667788, 1000000 + 1000 * i, 40);
    fail_unless (rtpcc_tmmbr_state_on_tmmbr (&s, t));
    rtpcc_tmmb_free (t);
  }
  t = make_tmmbr (99, 0x55667788, 5000000, 40);
  fail_unless (rtpcc_tmmbr_state_on_tmmbr (&s, t));
  rtpcc_tmmb_free (t);
  fail_unless_equals_uint64 (s.n_ignored, 1);
  t = make_tmmbr (98, 0x55667788, 500000, 40);
  fail_unless (rtpcc_tmmbr_state_on_tmmbr (&s, t));
  rtpcc_tmmb_free (t);
  fail_unless_equals_uint64 (s.n_evicted, 1);
  fail_unless_equals_int (s.n, RTPCC_TMMBR_MAX_REQUESTERS);
  fail_unless_equals_uint64 (rtpcc_tmmbr_state_limit (&s), 500000);
  fail_if (rtpcc_tmmbr_state_remove (&s, 100 + RTPCC_TMMBR_MAX_REQUESTERS
          - 1));
  /* equal overheads: the lowest request bounds alone */
  fail_unless_equals_int (s.n_set, 1);
  n = rtpcc_tmmbr_state_write_tmmbn (&s, buf, sizeof (buf), 0x55667788);
  t = rtpcc_tmmbn_parse (buf, n, NULL);
  fail_unless (t != NULL && t->n_entries == 1 && t->entries[0].ssrc == 98);
  rtpcc_tmmb_free (t);
}

GST_END_TEST;

/* RFC 5104 §4.2.1.2's running average, avg = 15/16 · avg + 1/16 · the
 * packet's overhead, rounded into the 9-bit field. */
GST_START_TEST (test_overhead)
{
  RtpccTmmbrOverhead o;

  rtpcc_tmmbr_overhead_init (&o);
  fail_unless_equals_int (rtpcc_tmmbr_overhead_value (&o), 0);
  /* IPv4 20 + UDP 8 + RTP 12: the first packet starts the average */
  rtpcc_tmmbr_overhead_add (&o, 40);
  fail_unless_equals_int (rtpcc_tmmbr_overhead_value (&o), 40);
  /* one of 56 (a 16-byte header extension) moves it by 16/16 = 1, not to
   * the mean 48 */
  rtpcc_tmmbr_overhead_add (&o, 56);
  fail_unless_equals_int (rtpcc_tmmbr_overhead_value (&o), 41);
  /* 41 · 15/16 + 56/16 = 41.9375 */
  rtpcc_tmmbr_overhead_add (&o, 56);
  fail_unless_equals_int (rtpcc_tmmbr_overhead_value (&o), 42);
  /* 56 from then on: 56 − 14.0625 · (15/16)^k, over 55.5 from k = 52 */
  for (guint k = 0; k < 51; k++)
    rtpcc_tmmbr_overhead_add (&o, 56);
  fail_unless_equals_int (rtpcc_tmmbr_overhead_value (&o), 55);
  rtpcc_tmmbr_overhead_add (&o, 56);
  fail_unless_equals_int (rtpcc_tmmbr_overhead_value (&o), 56);
  for (guint k = 0; k < 1000; k++)
    rtpcc_tmmbr_overhead_add (&o, 56);
  fail_unless_equals_int (rtpcc_tmmbr_overhead_value (&o), 56);
  /* the field holds 511 at most */
  rtpcc_tmmbr_overhead_init (&o);
  rtpcc_tmmbr_overhead_add (&o, 100000);
  fail_unless_equals_int (rtpcc_tmmbr_overhead_value (&o), 511);
}

GST_END_TEST;

/* GStreamer's RTCP reader sees our TMMBR and TMMBN as RTPFB of the right
 * FMT with the FCI we wrote. */
GST_START_TEST (test_gst_rtcp_buffer_reads_ours)
{
  GstBuffer *gbuf;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket packet;
  guint8 buf[64];
  gsize n;

  memcpy (buf, tmmbr_example, sizeof (tmmbr_example));
  memcpy (buf + sizeof (tmmbr_example), tmmbn_example,
      sizeof (tmmbn_example));
  n = sizeof (tmmbr_example) + sizeof (tmmbn_example);
  gbuf = gst_buffer_new_memdup (buf, n);
  fail_unless (gst_rtcp_buffer_validate_reduced (gbuf));
  fail_unless (gst_rtcp_buffer_map (gbuf, GST_MAP_READ, &rtcp));
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &packet));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&packet),
      GST_RTCP_TYPE_RTPFB);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_type (&packet),
      GST_RTCP_RTPFB_TYPE_TMMBR);
  fail_unless (gst_rtcp_packet_fb_get_sender_ssrc (&packet) == 0x11223344);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_fci_length (&packet), 2);
  fail_unless (memcmp (gst_rtcp_packet_fb_get_fci (&packet),
          tmmbr_example + 12, 8) == 0);
  fail_unless (gst_rtcp_packet_move_to_next (&packet));
  fail_unless_equals_int (gst_rtcp_packet_fb_get_type (&packet),
      GST_RTCP_RTPFB_TYPE_TMMBN);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_fci_length (&packet), 4);
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (gbuf);
}

GST_END_TEST;

GST_START_TEST (test_tshark_dissection)
{
  gchar *tshark = tshark_find ("test_tshark_dissection");
  GByteArray *pcap;
  gchar *dir, *file, *out;
  guint8 pkt[256];
  gsize n;

  if (tshark == NULL)
    return;

  pcap = test_pcap_new ();
  test_pcap_add (pcap, 1, TSHARK_RTCP_PORT, tmmbr_example,
      sizeof (tmmbr_example));
  test_pcap_add (pcap, 2, TSHARK_RTCP_PORT, tmmbn_example,
      sizeof (tmmbn_example));
  /* 3: RR + SDES + the empty TMMBN */
  n = test_rtcp_rr_sdes (pkt, sizeof (pkt), 0x55667788);
  n += rtpcc_tmmbn_write (pkt + n, sizeof (pkt) - n, 0x55667788, NULL, 0);
  test_pcap_add (pcap, 3, TSHARK_RTCP_PORT, pkt, n);
  file = test_pcap_save (pcap, "rtpcc-tmmbr-XXXXXX", "tmmbr.pcap", &dir);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_no_warnings (out);
  fail_unless (strstr (out, "Temporary Maximum Media Stream Bit Rate Request "
          "(TMMBR) (3)") != NULL, "%s", out);
  fail_unless (strstr (out, "Temporary Maximum Media Stream Bit Rate "
          "Notification (TMMBN) (4)") != NULL, "%s", out);
  g_free (out);

  out = tshark_run (tshark, file, tshark_rtcp_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "frame.number", "-e", "rtcp.pt", "-e", "rtcp.length_check",
      "-e", "rtcp.rtpfb.fmt", "-e", "rtcp.mediassrc",
      "-e", "rtcp.rtpfb.tmmbr.fci.ssrc", "-e", "rtcp.rtpfb.tmmbr.fci.exp",
      "-e", "rtcp.rtpfb.tmmbr.fci.mantissa",
      "-e", "rtcp.rtpfb.tmmbr.fci.measuredoverhead", NULL});
  {
    const gchar *want[] = {
      "1;205;1;3;0x00000000;0x55667788;5;100000;40",
      "2;205;1;4;0x00000000;0x11223344,0x99aabbcc;3,3;112500,125000;60,80",
      "3;201,202,205;1;4;0x00000000;;;;",
    };
    tshark_assert_lines (out, want, G_N_ELEMENTS (want));
  }
  g_free (out);

  test_pcap_remove (file, dir);
  g_free (tshark);
}

GST_END_TEST;

static Suite *
rtpcc_tmmbr_suite (void)
{
  Suite *s = suite_create ("rtpcc_tmmbr");
  TCase *tc = tcase_create ("tmmbr");
  TCase *tc_bound = tcase_create ("bounding");
  TCase *tc_interop = tcase_create ("interop");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_layout);
  tcase_add_test (tc, test_bitrate_encoding);
  tcase_add_test (tc, test_malformed);
  tcase_add_test (tc, test_overhead);

  suite_add_tcase (s, tc_bound);
  tcase_add_test (tc_bound, test_bounding_set_example);
  tcase_add_test (tc_bound, test_bounding_set_rfc_example);
  tcase_add_test (tc_bound, test_bounding_set_random);
  tcase_add_test (tc_bound, test_would_change);
  tcase_add_test (tc_bound, test_sender_state);

  suite_add_tcase (s, tc_interop);
  tcase_set_timeout (tc_interop, 120);
  tcase_add_test (tc_interop, test_gst_rtcp_buffer_reads_ours);
  tcase_add_test (tc_interop, test_tshark_dissection);
  return s;
}

GST_CHECK_MAIN (rtpcc_tmmbr);

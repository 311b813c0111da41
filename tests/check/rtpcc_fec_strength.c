/* Unit tests for the FEC strength choice (gst/rtpcc/fec/strength.h): the
 * residual loss of an MDS block on the Gilbert channel against brute force
 * over every loss pattern and against the binomial formula for independent
 * loss; the choice against an exhaustive search of the codes that fit.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/strength.h>
#include <math.h>

/* The residual by enumeration: every loss pattern of the k + m packets,
 * weighted by the chain's probability of it (a block starts in the
 * stationary state). */
static gdouble
brute_residual (guint k, guint m, gdouble loss, gdouble burst)
{
  gdouble r = 1.0 / burst, q = loss * r / (1.0 - loss);
  gdouble pi_bad = q / (q + r), sum = 0;
  guint n = k + m;

  for (guint pat = 0; pat < (1u << n); pat++) {
    gdouble p = 1.0;
    guint lost = 0, media_lost = 0;

    for (guint i = 0; i < n; i++) {
      gboolean bad = (pat >> i) & 1;
      if (i == 0)
        p *= bad ? pi_bad : 1.0 - pi_bad;
      else {
        gboolean was = (pat >> (i - 1)) & 1;
        p *= was ? (bad ? 1.0 - r : r) : (bad ? q : 1.0 - q);
      }
      lost += bad;
      if (bad && i < k)
        media_lost++;
    }
    if (lost > m)
      sum += p * media_lost;
  }
  return sum / k;
}

GST_START_TEST (test_residual_exact)
{
  const gdouble losses[] = { 0.01, 0.05, 0.2 };
  const gdouble bursts[] = { 1.0, 2.5, 6.0 };

  for (guint a = 0; a < G_N_ELEMENTS (losses); a++)
    for (guint b = 0; b < G_N_ELEMENTS (bursts); b++)
      for (guint k = 1; k <= 8; k++)
        for (guint m = 1; m <= 4; m++) {
          gdouble want = brute_residual (k, m, losses[a], bursts[b]);
          gdouble got = rtpcc_fec_residual_mds (k, m, losses[a], bursts[b]);
          fail_unless (fabs (got - want) <= 1e-12 + 1e-9 * want,
              "k %u m %u loss %.2f burst %.1f: %.12g, enumeration %.12g",
              k, m, losses[a], bursts[b], got, want);
        }
}

GST_END_TEST;

static gdouble
choose_k (guint n, guint j)
{
  gdouble c = 1;

  for (guint i = 1; i <= j; i++)
    c = c * (n - j + i) / i;
  return c;
}

/* Independent loss is the chain with b = 1/(1 − p): the binomial formula. */
GST_START_TEST (test_residual_independent)
{
  const gdouble p = 0.05;
  const guint ks[] = { 5, 10, 20, 48 }, ms[] = { 1, 2, 3, 8 };

  for (guint a = 0; a < G_N_ELEMENTS (ks); a++)
    for (guint b = 0; b < G_N_ELEMENTS (ms); b++) {
      guint k = ks[a], m = ms[b];
      gdouble want = 0;

      for (guint j = 1; j <= k; j++) {
        gdouble pj = choose_k (k, j) * pow (p, j) * pow (1 - p, k - j);
        gdouble fail = 0;
        /* the parities lose more than m − j */
        for (guint l = 0; l <= m; l++)
          if (j + l > m)
            fail += choose_k (m, l) * pow (p, l) * pow (1 - p, m - l);
        want += pj * j * fail;
      }
      want /= k;
      fail_unless (fabs (rtpcc_fec_residual_mds (k, m, p, 1 / (1 - p)) -
              want) <= 1e-12 + 1e-9 * want, "k %u m %u", k, m);
    }
  /* no parity: the channel's loss; no loss: nothing */
  fail_unless (fabs (rtpcc_fec_residual_mds (10, 0, 0.07, 3) - 0.07) < 1e-12);
  fail_unless_equals_float (rtpcc_fec_residual_mds (10, 2, 0, 3), 0);
  /* more parity, less residual; longer bursts at the same loss, more */
  fail_unless (rtpcc_fec_residual_mds (10, 3, 0.05, 3) <
      rtpcc_fec_residual_mds (10, 2, 0.05, 3));
  fail_unless (rtpcc_fec_residual_mds (10, 2, 0.05, 3) >
      3 * rtpcc_fec_residual_mds (10, 2, 0.05, 1 / 0.95));
}

GST_END_TEST;

/* a parity packet's bytes over a media packet's in blocks of k */
static gdouble
ratio (const RtpccFecChannel * c, guint k)
{
  return c->parity_ratios && c->parity_ratios[k] > 1 ? c->parity_ratios[k] :
      1.0;
}

/* The best of the codes that fit, by exhaustive search with
 * rtpcc_fec_residual_mds (under RTPCC_FEC_NEGLIGIBLE as none): none
 * better, none of as little residual with fewer parity bytes; none when
 * no block fits one parity. */
static void
check_choice (const RtpccFecChannel * c)
{
  RtpccFecChoice o;
  guint max_k = MIN (48, (guint) floor (RTPCC_TIME_AS_SEC (c->budget) *
          c->packet_rate + 1e-9));
  gboolean fits = FALSE;

  for (guint k = 2; k <= max_k; k++)
    fits |= ratio (c, k) <= c->max_overhead * k + 1e-9;
  if (!fits) {
    /* no block fits one parity */
    fail_if (rtpcc_fec_choose (c, &o));
    return;
  }
  fail_unless (rtpcc_fec_choose (c, &o));
  fail_unless (o.k >= 2 && o.k <= max_k, "k %u", o.k);
  fail_unless (o.m >= 1 && o.m <= 16
      && o.m * ratio (c, o.k) <= c->max_overhead * o.k + 1e-9,
      "m %u for k %u", o.m, o.k);
  fail_unless_equals_int (o.scheme, o.m == 1 && o.k <= 14 ?
      RTPCC_FEC_SCHEME_XOR : RTPCC_FEC_SCHEME_RS);
  fail_unless (fabs (o.residual - rtpcc_fec_residual_mds (o.k, o.m, c->loss,
              c->burst)) <= 1e-15);
  for (guint k = 2; k <= max_k; k++)
    for (guint m = 1; m <= 16
        && m * ratio (c, k) <= c->max_overhead * k + 1e-9; m++) {
      gdouble r = MAX (rtpcc_fec_residual_mds (k, m, c->loss, c->burst),
          RTPCC_FEC_NEGLIGIBLE);
      gdouble chosen = MAX (o.residual, RTPCC_FEC_NEGLIGIBLE);
      fail_unless (r >= chosen * (1 - 1e-9),
          "(%u, %u) leaves %g, the choice (%u, %u) %g", k, m, r, o.k, o.m,
          o.residual);
      if (r <= chosen * (1 + 1e-9))
        fail_unless (m * ratio (c, k) / k >=
            o.m * ratio (c, o.k) / o.k - 1e-12,
            "(%u, %u) leaves as little (%g) as the choice (%u, %u), with "
            "fewer parity bytes", k, m, r, o.k, o.m);
    }
}

GST_START_TEST (test_choice)
{
  const gdouble losses[] = { 0, 0.01, 0.05, 0.15 };
  const gdouble bursts[] = { 1, 3 };
  const gdouble overheads[] = { 0.07, 0.2, 0.5 };
  const guint budgets_ms[] = { 50, 100, 400 };
  RtpccFecChannel c = { 0 };
  RtpccFecChoice o;
  gdouble growing[49], step[49];

  /* longer blocks hold longer packets: parity ratios that grow with k */
  for (guint k = 0; k <= 48; k++) {
    growing[k] = 1 + 0.04 * k;
    step[k] = k >= 9 ? 2.0 : 1.0;
  }
  for (guint a = 0; a < G_N_ELEMENTS (losses); a++)
    for (guint b = 0; b < G_N_ELEMENTS (bursts); b++)
      for (guint d = 0; d < G_N_ELEMENTS (overheads); d++)
        for (guint e = 0; e < G_N_ELEMENTS (budgets_ms); e++)
          for (guint f = 0; f < 2; f++) {
            c.loss = losses[a];
            c.burst = bursts[b];
            c.packet_rate = 100;
            c.budget = RTPCC_MSEC (budgets_ms[e]);
            c.max_overhead = overheads[d];
            c.parity_ratios = f ? growing : NULL;
            check_choice (&c);
          }
  c.parity_ratios = NULL;

  /* no loss: the least parity, one per block as long as the delay allows */
  c.loss = 0;
  c.burst = 1;
  c.packet_rate = 100;
  c.budget = RTPCC_MSEC (100);
  c.max_overhead = 0.2;
  fail_unless (rtpcc_fec_choose (&c, &o));
  fail_unless_equals_int (o.scheme, RTPCC_FEC_SCHEME_XOR);
  fail_unless_equals_int (o.k, 10);
  fail_unless_equals_int (o.m, 1);
  /* ... in bytes: when blocks of 9 or more hold a packet twice the mean,
   * one parity per 8 costs less (1/8) than one per 10 (2/10) */
  c.parity_ratios = step;
  fail_unless (rtpcc_fec_choose (&c, &o));
  fail_unless_equals_int (o.k, 8);
  fail_unless_equals_int (o.m, 1);
  c.parity_ratios = NULL;
  /* nothing fits: under two packets' time, or under one parity per block */
  c.budget = RTPCC_MSEC (15);
  fail_unless (!rtpcc_fec_choose (&c, &o));
  c.budget = RTPCC_MSEC (100);
  c.max_overhead = 0.05;
  fail_unless (!rtpcc_fec_choose (&c, &o));
  /* 5 % loss, 20 % parity, 100 ms at 100 packets/s: RS (10, 2), which the
   * one-parity-per-n rule (XOR n = 5) trails by half */
  c.loss = 0.05;
  c.burst = 1 / 0.95;
  c.max_overhead = 0.2;
  fail_unless (rtpcc_fec_choose (&c, &o));
  fail_unless_equals_int (o.scheme, RTPCC_FEC_SCHEME_RS);
  fail_unless_equals_int (o.k, 10);
  fail_unless_equals_int (o.m, 2);
  fail_unless (o.residual < 0.5 * rtpcc_fec_residual_mds (5, 1, c.loss,
          c.burst));
}

GST_END_TEST;

/* With NACK behind it (r retransmissions in time), a code is judged by
 * what NACK leaves of its residual (× p^r) and is chosen only if that is
 * clearly under what NACK alone leaves (p^(r+1)); by exhaustive search. */
GST_START_TEST (test_with_nack)
{
  const gdouble losses[] = { 0.005, 0.02, 0.05, 0.15 };
  const gdouble bursts[] = { 1, 3 };
  const gdouble overheads[] = { 0.07, 0.2, 0.5 };
  RtpccFecChannel c = { 0 };
  RtpccFecChoice o;
  guint chosen = 0, declined = 0;

  c.packet_rate = 100;
  c.budget = RTPCC_MSEC (200);
  for (guint a = 0; a < G_N_ELEMENTS (losses); a++)
    for (guint b = 0; b < G_N_ELEMENTS (bursts); b++)
      for (guint d = 0; d < G_N_ELEMENTS (overheads); d++)
        for (guint r = 1; r <= 3; r++) {
          gdouble p = losses[a], after = pow (p, r);
          gdouble none = MAX (p * after, RTPCC_FEC_NEGLIGIBLE);
          gdouble best = G_MAXDOUBLE;

          c.loss = p;
          c.burst = bursts[b];
          c.max_overhead = overheads[d];
          c.retransmissions = r;
          for (guint k = 2; k <= 20; k++)
            for (guint m = 1; m <= 16 && m <= c.max_overhead * k + 1e-9; m++)
              best = MIN (best, MAX (rtpcc_fec_residual_mds (k, m, p,
                          bursts[b]) * after, RTPCC_FEC_NEGLIGIBLE));
          if (rtpcc_fec_choose (&c, &o)) {
            gdouble got = MAX (o.residual * after, RTPCC_FEC_NEGLIGIBLE);

            chosen++;
            fail_unless (got < none * (1 - 1e-9), "p %g b %g r %u: (%u, %u) "
                "leaves %g, NACK alone %g", p, bursts[b], r, o.k, o.m, got,
                none);
            fail_unless (got <= best * (1 + 1e-6), "p %g b %g r %u: (%u, %u) "
                "leaves %g, a code that fits %g", p, bursts[b], r, o.k, o.m,
                got, best);
          } else {
            declined++;
            fail_unless (best >= none * (1 - 1e-9), "p %g b %g r %u: none "
                "chosen, a code leaves %g against NACK's %g", p, bursts[b], r,
                best, none);
          }
        }
  /* both outcomes occur on this grid */
  fail_unless (chosen > 0 && declined > 0, "%u %u", chosen, declined);

  /* 2 % random loss, 20 % parity: without NACK RS (k, 2) or so; with
   * three round trips in time NACK alone leaves 1.6e-7, no code */
  c.loss = 0.02;
  c.burst = 1 / 0.98;
  c.max_overhead = 0.2;
  c.budget = RTPCC_MSEC (100);
  c.retransmissions = 0;
  fail_unless (rtpcc_fec_choose (&c, &o));
  c.retransmissions = 3;
  fail_if (rtpcc_fec_choose (&c, &o));
  /* one round trip: NACK leaves 4e-4, a code still helps */
  c.retransmissions = 1;
  fail_unless (rtpcc_fec_choose (&c, &o));
}

GST_END_TEST;

/* A code the sender named is taken as named, within what the encoder
 * builds and with its residual on the channel; anything else is not a
 * name, and the channel decides. */
GST_START_TEST (test_named)
{
  RtpccFecChannel c = { 0 };
  RtpccFecChoice o, own;
  const gchar *not_names[] = { NULL, "", "xor-2d", "RS", "xor " };

  c.loss = 0.05;
  c.burst = 2;
  c.packet_rate = 100;
  c.budget = RTPCC_MSEC (100);
  c.max_overhead = 0.2;
  fail_unless (rtpcc_fec_choose (&c, &own));

  fail_unless (rtpcc_fec_choose_named (&c, "rs", 12, 2, &o));
  fail_unless_equals_int (o.scheme, RTPCC_FEC_SCHEME_RS);
  fail_unless_equals_int (o.k, 12);
  fail_unless_equals_int (o.m, 2);
  fail_unless (o.residual == rtpcc_fec_residual_mds (12, 2, 0.05, 2));
  /* beyond the encoder's limits: its longest block, its most parity */
  fail_unless (rtpcc_fec_choose_named (&c, "rs", 1000, 99, &o));
  fail_unless_equals_int (o.k, RTPCC_FEC_MAX_SPAN);
  fail_unless_equals_int (o.m, RTPCC_FEC_MAX_PARITY);
  fail_unless (rtpcc_fec_choose_named (&c, "xor", 30, 1, &o));
  fail_unless_equals_int (o.scheme, RTPCC_FEC_SCHEME_XOR);
  fail_unless_equals_int (o.k, RTPCC_FEC_MAX_N);
  fail_unless_equals_int (o.m, 1);
  /* not a code: XOR with two parities, k < 2, m < 1, other names */
  fail_unless (rtpcc_fec_choose_named (&c, "xor", 10, 2, &o));
  fail_unless (o.k == own.k && o.m == own.m && o.scheme == own.scheme);
  fail_unless (rtpcc_fec_choose_named (&c, "rs", 1, 1, &o));
  fail_unless (o.k == own.k && o.m == own.m);
  fail_unless (rtpcc_fec_choose_named (&c, "rs", 10, 0, &o));
  fail_unless (o.k == own.k && o.m == own.m);
  for (guint i = 0; i < G_N_ELEMENTS (not_names); i++) {
    fail_unless (rtpcc_fec_choose_named (&c, not_names[i], 10, 2, &o));
    fail_unless (o.k == own.k && o.m == own.m, "%s", not_names[i]);
  }
  /* no name and nothing fits: none */
  c.max_overhead = 0;
  fail_if (rtpcc_fec_choose_named (&c, NULL, 0, 0, &o));
  fail_unless (rtpcc_fec_choose_named (&c, "rs", 10, 2, &o));
}

GST_END_TEST;

/* Whatever an application's event says (NaN, infinities, negative or
 * out-of-range numbers): a valid code or none, never a crash. */
GST_START_TEST (test_bad_channel)
{
  const gdouble bad[] = { NAN, INFINITY, -INFINITY, -1, 0, 0.5, 1, 2, 1e300 };
  RtpccFecChannel c = { 0 };
  RtpccFecChoice o;

  for (guint a = 0; a < G_N_ELEMENTS (bad); a++)
    for (guint b = 0; b < G_N_ELEMENTS (bad); b++)
      for (guint d = 0; d < G_N_ELEMENTS (bad); d++) {
        gdouble r;

        c.loss = bad[a];
        c.burst = bad[b];
        c.packet_rate = 100;
        c.budget = RTPCC_MSEC (400);
        c.max_overhead = bad[d];
        if (rtpcc_fec_choose (&c, &o)) {
          fail_unless (o.k >= 2 && o.k <= 48 && o.m >= 1 && o.m <= 16);
          fail_unless (o.residual >= 0 && o.residual <= 1, "%g", o.residual);
        }
        c.packet_rate = bad[d];
        c.max_overhead = 0.2;
        if (rtpcc_fec_choose (&c, &o))
          fail_unless (o.k >= 2 && o.k <= 48 && o.m >= 1 && o.m <= 16);
        r = rtpcc_fec_residual_mds (10, 2, bad[a], bad[b]);
        fail_unless (r >= 0 && r <= 1, "loss %g burst %g: %g", bad[a],
            bad[b], r);
      }
}

GST_END_TEST;

static Suite *
rtpcc_fec_strength_suite (void)
{
  Suite *s = suite_create ("rtpcc_fec_strength");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_residual_exact);
  tcase_add_test (tc, test_residual_independent);
  tcase_add_test (tc, test_choice);
  tcase_add_test (tc, test_named);
  tcase_add_test (tc, test_with_nack);
  tcase_add_test (tc, test_bad_channel);
  return s;
}

GST_CHECK_MAIN (rtpcc_fec_strength);

/* Unit tests for RtpccPlayout (gst/rtpcc/playout.[ch]): the adaptive playout
 * delay estimator on synthetic jitter, drift, wrap, reordering, multipath.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <gst/check/gstcheck.h>

#include <rtpcc/playout.h>
#include <rtpcc/rng.h>

#define MS(x) RTPCC_MSEC (x)
#define RATE 90000

typedef struct
{
  RtpccTime arrival;
  RtpccTime send;
  guint subflow;
  guint16 seq;
  guint32 ts;
} Arr;

static int
cmp_arr (const void *a, const void *b)
{
  const Arr *x = a, *y = b;

  return (x->arrival > y->arrival) - (x->arrival < y->arrival);
}

/* Sender: one packet every @gap from t = 0; the RTP clock runs @ppm fast
 * relative to real time; seq and ts start at @seq0/@ts0. @delay gives the
 * one-way delay of packet i at its send time. */
typedef RtpccTime (*DelayFn) (guint i, RtpccTime send, gpointer user);

static Arr *
make_arrivals (guint n, RtpccTime gap, gdouble ppm, guint16 seq0, guint32 ts0,
    guint subflows, DelayFn fn, gpointer user)
{
  Arr *a = g_new0 (Arr, n);
  guint i;

  for (i = 0; i < n; i++) {
    RtpccTime send = (RtpccTime) i * gap;
    gdouble media_s = (gdouble) send / 1e9 * (1.0 + ppm * 1e-6);

    a[i].send = send;
    a[i].arrival = send + fn (i, send, user);
    a[i].subflow = subflows ? i % subflows : 0;
    a[i].seq = (guint16) (seq0 + i);
    a[i].ts = (guint32) (ts0 + (guint64) llround (media_s * RATE));
  }
  qsort (a, n, sizeof (Arr), cmp_arr);
  return a;
}

static RtpccPlayout *
new_playout (RtpccPlayoutMode mode, gdouble pct)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;

  rtpcc_playout_config_init (&c);
  c.clock_rate = RATE;
  c.mode = mode;
  c.percentile = pct;
  p = rtpcc_playout_new (&c);
  fail_unless (p != NULL);
  return p;
}

/* --- delay models ------------------------------------------------------------ */

typedef struct
{
  RtpccRng rng;
  RtpccTime base, jitter;       /* uniform [base, base + jitter] */
  RtpccTime spike_from, spike_to, spike;        /* step added in [from, to) */
  RtpccTime skew1;              /* extra delay on odd packets (subflow 1) */
} Model;

static RtpccTime
model_delay (guint i, RtpccTime send, gpointer user)
{
  Model *m = user;
  RtpccTime d = m->base + (RtpccTime) (rtpcc_rng_double (&m->rng) *
      (gdouble) m->jitter);

  if (send >= m->spike_from && send < m->spike_to)
    d += m->spike;
  if (i % 2 == 1)
    d += m->skew1;
  return d;
}

static void
model_init (Model * m, guint64 seed, RtpccTime base, RtpccTime jitter)
{
  memset (m, 0, sizeof (*m));
  rtpcc_rng_init (&m->rng, seed);
  m->base = base;
  m->jitter = jitter;
}

/* FIFO paths do not reorder: arrival = max(arrival, previous arrival). */
static void
fifo (Arr * a, guint n)
{
  guint i;

  for (i = 1; i < n; i++)
    a[i].arrival = MAX (a[i].arrival, a[i - 1].arrival);
}

/* Plays @a (sorted by arrival) with exact event timing: each packet is
 * popped at its due time. late_at[i] (may be NULL) is set for the packets
 * (by send order) that were late; the return value is the mean playout
 * delay (play time − send time) in ms of the packets played from @from_send
 * on; *late_out counts the late ones from @from_send on. late_at is
 * indexed like @a. @targets (may be
 * NULL, n entries) get the target delay after each arrival. */
static gdouble
play_all (RtpccPlayout * p, const Arr * a, guint n, RtpccTime from_send,
    guint64 * late_out, guint8 * late_at, RtpccTime * targets)
{
  guint i = 0;
  RtpccTime now = 0;
  gdouble sum = 0;
  guint64 played = 0, late = 0;
  RtpccPlayoutStats st;

  for (;;) {
    RtpccTime ta = i < n ? a[i].arrival : RTPCC_TIME_INFINITE;
    RtpccTime due = rtpcc_playout_next_due (p, now);

    if (due != RTPCC_TIME_NONE && due <= ta) {
      gpointer d;

      now = MAX (now, due);
      d = rtpcc_playout_pop (p, now, NULL, NULL);
      if (d == NULL) {
        now += RTPCC_USEC (100);
        continue;
      }
      if (a[GPOINTER_TO_UINT (d) - 1].send >= from_send) {
        sum += (gdouble) (now - a[GPOINTER_TO_UINT (d) - 1].send);
        played++;
      }
      continue;
    }
    if (i == n)
      break;
    now = MAX (now, ta);
    if (rtpcc_playout_push (p, now, a[i].subflow, a[i].seq, a[i].ts,
            GUINT_TO_POINTER (i + 1)) != RTPCC_PLAYOUT_QUEUED) {
      if (a[i].send >= from_send)
        late++;
      if (late_at)
        late_at[i] = 1;
    }
    if (targets) {
      rtpcc_playout_get_stats (p, &st);
      targets[i] = st.target_delay;
    }
    i++;
  }
  if (late_out)
    *late_out = late;
  return played ? sum / (gdouble) played / 1e6 : 0.0;
}

static int
cmp_time (const void *a, const void *b)
{
  RtpccTime x = *(const RtpccTime *) a, y = *(const RtpccTime *) b;

  return (x > y) - (x < y);
}

/* The smallest constant delay (ms) with at most @frac of @a[from..n) later:
 * what an oracle knowing the trace would pick. */
static gdouble
oracle_delay (const Arr * a, guint from, guint n, gdouble frac)
{
  guint m = n - from, i, allowed = (guint) floor (frac * m);
  RtpccTime *owd = g_new (RtpccTime, m), d;

  for (i = 0; i < m; i++)
    owd[i] = a[from + i].arrival - a[from + i].send;
  qsort (owd, m, sizeof (RtpccTime), cmp_time);
  d = owd[m - 1 - MIN (allowed, m - 1)];
  g_free (owd);
  return RTPCC_TIME_AS_MSEC (d);
}

/* --- tests -------------------------------------------------------------------- */

/* The target converges to the configured percentile of uniform jitter. */
GST_START_TEST (test_converges_to_percentile)
{
  const gdouble pcts[] = { 50.0, 90.0, 99.0 };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (pcts); k++) {
    RtpccPlayoutConfig c;
    RtpccPlayout *p;
    RtpccRng rng;
    RtpccPlayoutStats st;
    guint i;
    RtpccTime expect = (RtpccTime) (pcts[k] / 100.0 * MS (40));

    rtpcc_playout_config_init (&c);
    c.clock_rate = RATE;
    c.percentile = pcts[k];
    c.late_bump = FALSE;
    c.late_target = 0.0;        /* the percentile mode */
    p = rtpcc_playout_new (&c);
    rtpcc_rng_init (&rng, 7 + k);
    /* 20 s at 100 packets/s, delay 30 ms + U(0, 40 ms), reordering allowed */
    for (i = 0; i < 2000; i++) {
      RtpccTime send = (RtpccTime) i * MS (10);
      RtpccTime now = send + MS (30) +
          (RtpccTime) (rtpcc_rng_double (&rng) * (gdouble) MS (40));

      /* time must not go backwards: deliver with the send clock, the jitter
       * only in the timestamp relation */
      (void) now;
      rtpcc_playout_push (p, send + MS (70),
          0, (guint16) i, (guint32) (i * 900u - (guint32) ((now - send -
                      MS (30)) * RATE / RTPCC_NSEC_PER_SEC)), NULL);
      while (rtpcc_playout_pop_any (p, NULL));
    }
    rtpcc_playout_get_stats (p, &st);
    /* within 3 ms (sampling error of the window plus the base estimate) */
    fail_unless (llabs (st.target_delay - expect) < MS (3),
        "p%.0f: target %.2f ms, expected %.2f ms", pcts[k],
        RTPCC_TIME_AS_MSEC (st.target_delay), RTPCC_TIME_AS_MSEC (expect));
    rtpcc_playout_free (p, NULL);
  }
}

GST_END_TEST;

/* A delay spike raises the target at once; after it the target returns. */
GST_START_TEST (test_spike_up_and_down)
{
  Model m;
  Arr *a;
  guint n = 3000, i;
  RtpccPlayout *p = new_playout (RTPCC_PLAYOUT_MODE_ADAPTIVE, 99.0);
  RtpccPlayoutStats st;
  RtpccTime during = 0, after = 0;
  guint64 late_spike = 0;

  model_init (&m, 11, MS (20), MS (5));
  m.spike_from = RTPCC_SEC (10);
  m.spike_to = RTPCC_SEC (12);
  m.spike = MS (100);
  a = make_arrivals (n, MS (10), 0.0, 100, 1000, 1, model_delay, &m);
  fifo (a, n);

  for (i = 0; i < n; i++) {
    RtpccPlayoutVerdict v = rtpcc_playout_push (p, a[i].arrival, 0, a[i].seq,
        a[i].ts, NULL);

    while (rtpcc_playout_pop (p, a[i].arrival, NULL, NULL));
    rtpcc_playout_get_stats (p, &st);
    if (a[i].send >= RTPCC_SEC (10) && a[i].send < RTPCC_SEC (12)) {
      if (v == RTPCC_PLAYOUT_LATE)
        late_spike++;
      if (g_getenv ("PLAYOUT_DEBUG"))
        g_printerr ("%.3f d=%.1f v=%d target=%.1f drift=%.1f\n",
            RTPCC_TIME_AS_SEC (a[i].send),
            RTPCC_TIME_AS_MSEC (a[i].arrival - a[i].send), v,
            RTPCC_TIME_AS_MSEC (st.target_delay), st.drift_ppm);
      if (a[i].send >= RTPCC_MSEC (10500))
        during = MAX (during, st.target_delay);
    }
    if (a[i].send >= RTPCC_SEC (28) && after == 0)
      after = st.target_delay;
  }
  /* The step is +100 ms: within half a second the target covers it, and
   * only the packets at the step's front are late. */
  fail_unless (during >= MS (100), "target during spike %.1f ms",
      RTPCC_TIME_AS_MSEC (during));
  fail_unless (late_spike <= 10, "%" G_GUINT64_FORMAT " late in the spike",
      late_spike);
  /* 16 s after the spike (window + 100 ms at down-rate) it is back low */
  fail_unless (after > 0 && after < MS (10), "target after spike %.1f ms",
      RTPCC_TIME_AS_MSEC (after));
  g_free (a);
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

/* Sender clock drift: estimated in ppm and removed, so the delay does not
 * creep (rtpjitterbuffer's skew estimate lets it creep under drift). */
GST_START_TEST (test_drift)
{
  const gdouble ppms[] = { 300.0, -300.0 };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (ppms); k++) {
    Model m;
    Arr *a;
    guint n = 18000, i;        /* 180 s */
    RtpccPlayout *p = new_playout (RTPCC_PLAYOUT_MODE_ADAPTIVE, 99.0);
    RtpccPlayoutStats st;
    guint64 late = 0;
    RtpccTime max_buffered = 0;

    model_init (&m, 21 + k, MS (40), MS (4));
    a = make_arrivals (n, MS (10), ppms[k], 0, 0, 1, model_delay, &m);
    fifo (a, n);
    for (i = 0; i < n; i++) {
      RtpccTime due;

      if (rtpcc_playout_push (p, a[i].arrival, 0, a[i].seq, a[i].ts,
              GUINT_TO_POINTER (i + 1)) == RTPCC_PLAYOUT_LATE && i > n / 4)
        late++;
      /* buffering = due − arrival, sampled in the last minute */
      due = rtpcc_playout_next_due (p, a[i].arrival);
      if (i > n * 2 / 3 && due != RTPCC_TIME_NONE)
        max_buffered = MAX (max_buffered, due - a[i].arrival);
      while (rtpcc_playout_pop (p, a[i].arrival, NULL, NULL));
    }
    rtpcc_playout_get_stats (p, &st);
    /* our clock runs slower than the sender's RTP clock when ppm > 0, so
     * relative delays fall: the estimate has the opposite sign */
    fail_unless (fabs (st.drift_ppm + ppms[k]) < 30.0,
        "drift %.1f ppm, expected %.1f", st.drift_ppm, -ppms[k]);
    fail_unless (st.target_delay < MS (8), "target %.1f ms",
        RTPCC_TIME_AS_MSEC (st.target_delay));
    fail_unless (max_buffered < MS (12), "buffered up to %.1f ms",
        RTPCC_TIME_AS_MSEC (max_buffered));
    fail_unless (late < (n * 3 / 4) / 50, "%" G_GUINT64_FORMAT " late", late);
    g_free (a);
    rtpcc_playout_free (p, NULL);
  }
}

GST_END_TEST;

/* Sequence and RTP timestamp wrap: everything is released in order, nothing
 * is late, the target stays small. */
GST_START_TEST (test_wrap)
{
  Model m;
  Arr *a;
  guint n = 1000, i;
  RtpccPlayout *p = new_playout (RTPCC_PLAYOUT_MODE_ADAPTIVE, 99.0);
  RtpccPlayoutStats st;
  guint64 late = 0, released = 0;
  gint last = -1;

  model_init (&m, 5, MS (10), MS (2));
  /* ts wraps after 2 s, seq after 100 packets */
  a = make_arrivals (n, MS (10), 0.0, 65436, G_MAXUINT32 - 2 * RATE,
      1, model_delay, &m);
  fifo (a, n);
  for (i = 0; i <= n; i++) {
    RtpccTime now = i < n ? a[i].arrival : a[n - 1].arrival + RTPCC_SEC (1);
    guint16 seq;

    while (rtpcc_playout_pop (p, now, &seq, NULL) != NULL || (last >= 0 &&
            FALSE)) {
      if (last >= 0)
        fail_unless ((gint16) (seq - (guint16) last) > 0);
      last = seq;
      released++;
    }
    if (i < n && rtpcc_playout_push (p, now, 0, a[i].seq, a[i].ts,
            GUINT_TO_POINTER (1)) == RTPCC_PLAYOUT_LATE)
      late++;
  }
  rtpcc_playout_get_stats (p, &st);
  /* only while the first second's history is learnt */
  fail_unless (late <= 10, "%" G_GUINT64_FORMAT " late", late);
  fail_unless_equals_uint64 (released + late, n);
  fail_unless (st.target_delay < MS (5));
  fail_unless (fabs (st.drift_ppm) < 50.0);
  g_free (a);
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

/* Reordering inside the target, late after release, duplicates. */
GST_START_TEST (test_reorder_late_duplicate)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;
  RtpccPlayoutStats st;
  guint16 seq;
  RtpccTime t = RTPCC_SEC (1);

  rtpcc_playout_config_init (&c);
  c.clock_rate = RATE;
  c.mode = RTPCC_PLAYOUT_MODE_FIXED;
  c.min_delay = MS (50);
  p = rtpcc_playout_new (&c);

  /* packets every 10 ms (900 ticks); 3 overtakes 2 */
  fail_unless_equals_int (rtpcc_playout_push (p, t, 0, 1, 0, GUINT_TO_POINTER
          (1)), RTPCC_PLAYOUT_QUEUED);
  fail_unless_equals_int (rtpcc_playout_push (p, t + MS (20), 0, 3, 1800,
          GUINT_TO_POINTER (3)), RTPCC_PLAYOUT_QUEUED);
  fail_unless_equals_int (rtpcc_playout_push (p, t + MS (25), 0, 2, 900,
          GUINT_TO_POINTER (2)), RTPCC_PLAYOUT_QUEUED);
  fail_unless_equals_int (rtpcc_playout_push (p, t + MS (26), 0, 2, 900,
          GUINT_TO_POINTER (2)), RTPCC_PLAYOUT_DUPLICATE);
  /* nothing is due before the 50 ms delay */
  fail_unless (rtpcc_playout_pop (p, t + MS (49), &seq, NULL) == NULL);
  fail_unless_equals_int (rtpcc_playout_next_due (p, t + MS (49)), t + MS (50));
  fail_unless (rtpcc_playout_pop (p, t + MS (50), &seq, NULL) ==
      GUINT_TO_POINTER (1));
  fail_unless (rtpcc_playout_pop (p, t + MS (59), &seq, NULL) == NULL);
  fail_unless (rtpcc_playout_pop (p, t + MS (60), &seq, NULL) ==
      GUINT_TO_POINTER (2));
  fail_unless_equals_int (seq, 2);
  fail_unless (rtpcc_playout_pop (p, t + MS (70), &seq, NULL) ==
      GUINT_TO_POINTER (3));
  /* 5 is missing, 6 plays over the gap; 5 then is late, 6 a duplicate */
  fail_unless_equals_int (rtpcc_playout_push (p, t + MS (40), 0, 6, 4500,
          GUINT_TO_POINTER (6)), RTPCC_PLAYOUT_QUEUED);
  fail_unless (rtpcc_playout_pop (p, t + MS (100), &seq, NULL) ==
      GUINT_TO_POINTER (6));
  fail_unless_equals_int (rtpcc_playout_push (p, t + MS (101), 0, 5, 3600,
          GUINT_TO_POINTER (5)), RTPCC_PLAYOUT_LATE);
  fail_unless_equals_int (rtpcc_playout_push (p, t + MS (102), 0, 6, 4500,
          GUINT_TO_POINTER (6)), RTPCC_PLAYOUT_DUPLICATE);
  /* 7 arrives after its playout time (10 ms late) */
  fail_unless_equals_int (rtpcc_playout_push (p, t + MS (120), 0, 7, 5400,
          GUINT_TO_POINTER (7)), RTPCC_PLAYOUT_LATE);

  rtpcc_playout_get_stats (p, &st);
  fail_unless_equals_uint64 (st.reordered, 2);  /* 2 and 5 */
  fail_unless_equals_uint64 (st.late, 2);
  fail_unless_equals_uint64 (st.duplicates, 2);
  fail_unless_equals_uint64 (st.skipped, 2);    /* 4 and 5 */
  fail_unless_equals_uint64 (st.released, 4);
  fail_unless_equals_int (st.target_delay, MS (50));
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

/* Bounds: max-delay caps the target, the FEC window adds to it. */
GST_START_TEST (test_bounds_and_fec)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;
  RtpccPlayoutStats st;
  RtpccRng rng;
  guint i, k;
  RtpccTime got[2];

  for (k = 0; k < 2; k++) {
    rtpcc_playout_config_init (&c);
    c.clock_rate = RATE;
    c.percentile = 90.0;
    c.late_bump = FALSE;
    c.late_target = 0.0;        /* the percentile mode */
    c.fec_window = k ? MS (30) : 0;
    p = rtpcc_playout_new (&c);
    rtpcc_rng_init (&rng, 3);
    for (i = 0; i < 1000; i++) {
      RtpccTime j = (RtpccTime) (rtpcc_rng_double (&rng) * (gdouble) MS (20));

      rtpcc_playout_push (p, (RtpccTime) i * MS (10) + MS (20), 0,
          (guint16) i, (guint32) (i * 900u - (guint32) (j * RATE /
                  RTPCC_NSEC_PER_SEC)), NULL);
    }
    rtpcc_playout_get_stats (p, &st);
    got[k] = st.target_delay;
    rtpcc_playout_free (p, NULL);
  }
  fail_unless (llabs (got[0] - MS (18)) < MS (2), "%.1f ms",
      RTPCC_TIME_AS_MSEC (got[0]));
  fail_unless (llabs (got[1] - got[0] - MS (30)) < MS (1));

  /* huge jitter: capped */
  rtpcc_playout_config_init (&c);
  c.clock_rate = RATE;
  c.max_delay = MS (100);
  p = rtpcc_playout_new (&c);
  rtpcc_rng_init (&rng, 4);
  for (i = 0; i < 1000; i++) {
    RtpccTime j = (RtpccTime) (rtpcc_rng_double (&rng) * (gdouble) MS (500));

    rtpcc_playout_push (p, (RtpccTime) i * MS (10) + MS (600), 0, (guint16) i,
        (guint32) (i * 900u - (guint32) (j * RATE / RTPCC_NSEC_PER_SEC)),
        NULL);
  }
  rtpcc_playout_get_stats (p, &st);
  fail_unless_equals_int (st.target_delay, MS (100));
  rtpcc_playout_free (p, NULL);

  /* validation */
  {
    GError *err = NULL;

    rtpcc_playout_config_init (&c);
    c.percentile = 0.0;
    fail_if (rtpcc_playout_config_validate (&c, &err));
    fail_unless (err != NULL);
    g_clear_error (&err);
    rtpcc_playout_config_init (&c);
    c.min_delay = MS (10);
    c.max_delay = MS (5);
    fail_if (rtpcc_playout_config_validate (&c, NULL));
    fail_unless (rtpcc_playout_new (&c) == NULL);
    rtpcc_playout_config_init (&c);
    c.clock_rate = 0;
    fail_if (rtpcc_playout_config_validate (&c, NULL));
  }
}

GST_END_TEST;

/* Two subflows, the second 80 ms slower: the slowest sets the pace and
 * nothing from it is late once learnt; path skew is reported. */
GST_START_TEST (test_multipath_skew)
{
  Model m;
  Arr *a;
  guint n = 2000, i;
  RtpccPlayout *p = new_playout (RTPCC_PLAYOUT_MODE_ADAPTIVE, 99.0);
  RtpccPlayoutStats st;
  guint64 late = 0;

  model_init (&m, 9, MS (30), MS (6));
  m.skew1 = MS (80);
  a = make_arrivals (n, MS (10), 0.0, 0, 0, 2, model_delay, &m);
  for (i = 0; i < n; i++) {
    if (rtpcc_playout_push (p, a[i].arrival, a[i].subflow, a[i].seq, a[i].ts,
            NULL) == RTPCC_PLAYOUT_LATE && a[i].arrival > RTPCC_SEC (2))
      late++;
    while (rtpcc_playout_pop (p, a[i].arrival, NULL, NULL));
  }
  rtpcc_playout_get_stats (p, &st);
  fail_unless_equals_int (st.subflows, 2);
  fail_unless (st.target_delay >= MS (80) && st.target_delay <= MS (95),
      "target %.1f ms", RTPCC_TIME_AS_MSEC (st.target_delay));
  fail_unless (llabs (st.path_skew[1] - MS (80)) < MS (5),
      "path skew %.1f ms", RTPCC_TIME_AS_MSEC (st.path_skew[1]));
  fail_unless (st.path_skew[0] == 0);
  fail_unless (late < n / 100, "%" G_GUINT64_FORMAT " late", late);
  g_free (a);
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

/* singh mode (Singh's thesis, ch. 6): the filters' numerics, and the
 * settling time after a 0 → 150 ms path skew step (the thesis: about
 * 3 s). */
GST_START_TEST (test_singh)
{
  Model m;
  Arr *a;
  guint n = 3000, i;
  RtpccPlayout *p = new_playout (RTPCC_PLAYOUT_MODE_SINGH, 99.0);
  RtpccPlayoutStats st;
  RtpccTime settled = RTPCC_TIME_NONE;

  model_init (&m, 13, MS (30), MS (2));
  m.skew1 = 0;
  a = make_arrivals (n, MS (10), 0.0, 0, 0, 2, model_delay, &m);
  /* the step: subflow 1 gets +150 ms from t = 10 s */
  for (i = 0; i < n; i++)
    if (a[i].subflow == 1 && a[i].send >= RTPCC_SEC (10))
      a[i].arrival += MS (150);
  qsort (a, n, sizeof (Arr), cmp_arr);
  for (i = 0; i < n; i++) {
    rtpcc_playout_push (p, a[i].arrival, a[i].subflow, a[i].seq, a[i].ts,
        NULL);
    while (rtpcc_playout_pop (p, a[i].arrival, NULL, NULL));
    rtpcc_playout_get_stats (p, &st);
    if (a[i].arrival > RTPCC_SEC (10) && settled == RTPCC_TIME_NONE &&
        st.target_delay >= MS (135))
      settled = a[i].arrival - RTPCC_SEC (10);
  }
  fail_unless (settled != RTPCC_TIME_NONE, "never settled: %.1f ms",
      RTPCC_TIME_AS_MSEC (st.target_delay));
  GST_INFO ("singh: 90 %% of a 150 ms step after %.2f s",
      RTPCC_TIME_AS_SEC (settled));
  fail_unless (settled < RTPCC_SEC (6), "settled after %.2f s",
      RTPCC_TIME_AS_SEC (settled));
  g_free (a);
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

/* The late-rate controller (late-target): on stationary FIFO jitter the
 * measured late fraction settles at the target, and the mean delay is close
 * to what an oracle that knows the trace needs for that late loss. */
GST_START_TEST (test_late_target_converges)
{
  const gdouble goals[] = { 0.5, 1.0, 2.0 };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (goals); k++) {
    RtpccPlayoutConfig c;
    RtpccPlayout *p;
    Model m;
    Arr *a;
    guint n = 12000, half = n / 2;      /* 120 s; judged on the last 60 s */
    guint64 late;
    gdouble mean, frac, oracle;

    rtpcc_playout_config_init (&c);
    c.clock_rate = RATE;
    c.late_target = goals[k];
    p = rtpcc_playout_new (&c);
    fail_unless (p != NULL);
    model_init (&m, 31 + k, MS (30), MS (30));
    a = make_arrivals (n, MS (10), 0.0, 0, 0, 1, model_delay, &m);
    fifo (a, n);
    mean = play_all (p, a, n, a[half].send, &late, NULL, NULL);
    frac = 100.0 * (gdouble) late / (gdouble) (n - half);
    oracle = oracle_delay (a, half, n, frac / 100.0);
    GST_INFO ("late-target %.1f %%: late %.3f %%, mean %.2f ms, oracle at "
        "that late loss %.2f ms", goals[k], frac, mean, oracle);
    /* sampling noise: 60 s at 1 % is 60 late packets (±8) */
    fail_unless (fabs (frac - goals[k]) < 0.3 * goals[k] + 0.1,
        "target %.1f %%: measured %.3f %%", goals[k], frac);
    fail_unless (mean < oracle + 1.5, "mean %.2f ms, oracle %.2f ms", mean,
        oracle);
    g_free (a);
    rtpcc_playout_free (p, NULL);
  }
}

GST_END_TEST;

/* A 1 s delay spike of +120 ms (with ±20 ms jitter of its own) on 40 ms +
 * U(0, 8 ms): the first packets of the spike are late, then the playout
 * point jumps over it (a few late packets, not a percentile window's
 * worth); after the spike the target returns to its old value within
 * half a second (not the several seconds a percentile window takes). */
GST_START_TEST (test_spike_reaction_and_return)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;
  Model m;
  Arr *a;
  guint n = 4000, i, spike_late = 0, spike_n = 0;
  guint8 *late_at = g_new0 (guint8, n);
  RtpccTime *targets = g_new0 (RtpccTime, n), before = 0;
  RtpccTime spike_end_arrival = 0, back = RTPCC_TIME_NONE;
  RtpccRng rng;

  rtpcc_playout_config_init (&c);
  c.clock_rate = RATE;
  p = rtpcc_playout_new (&c);
  model_init (&m, 41, MS (40), MS (8));
  rtpcc_rng_init (&rng, 42);
  a = make_arrivals (n, MS (10), 0.0, 500, 0, 1, model_delay, &m);
  for (i = 0; i < n; i++) {
    if (a[i].send >= RTPCC_SEC (20) && a[i].send < RTPCC_SEC (21))
      a[i].arrival += MS (100) + (RtpccTime) (rtpcc_rng_double (&rng) *
          (gdouble) MS (40));
  }
  qsort (a, n, sizeof (Arr), cmp_arr);
  fifo (a, n);
  play_all (p, a, n, 0, NULL, late_at, targets);

  for (i = 0; i < n; i++) {
    if (a[i].send < RTPCC_SEC (20))
      before = targets[i];
    else if (a[i].send < RTPCC_SEC (21)) {
      spike_n++;
      spike_late += late_at[i];
      spike_end_arrival = a[i].arrival;
    } else if (back == RTPCC_TIME_NONE && targets[i] <= before + MS (3)) {
      back = a[i].arrival - spike_end_arrival;
    }
  }
  GST_INFO ("spike: %u of %u late; target before %.1f ms, back after "
      "%.0f ms", spike_late, spike_n, RTPCC_TIME_AS_MSEC (before),
      RTPCC_TIME_AS_MSEC (back));
  fail_unless (spike_late >= 1 && spike_late <= 12, "%u late in the spike",
      spike_late);
  fail_unless (before < MS (12), "target before the spike %.1f ms",
      RTPCC_TIME_AS_MSEC (before));
  fail_unless (back != RTPCC_TIME_NONE && back < MS (500),
      "back %.0f ms after the spike", RTPCC_TIME_AS_MSEC (back));
  g_free (late_at);
  g_free (targets);
  g_free (a);
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

/* Queue ramps (a bottleneck filling at +1.8 ms per packet for 0.5 s, every
 * 4 s, then draining): the episode jumps extrapolate the rise, so a ramp
 * costs a handful of late packets, at half the mean delay of the
 * percentile estimator (late-target 0) for about the same late loss. */
GST_START_TEST (test_ramps)
{
  guint64 late[2];
  gdouble mean[2];
  guint n = 6000, k;

  for (k = 0; k < 2; k++) {
    RtpccPlayoutConfig c;
    RtpccPlayout *p;
    Model m;
    Arr *a;
    guint i;
    RtpccTime queue = 0;

    rtpcc_playout_config_init (&c);
    c.clock_rate = RATE;
    if (k == 0)
      c.late_target = 0.0;      /* the percentile estimator */
    p = rtpcc_playout_new (&c);
    model_init (&m, 51, MS (30), MS (4));
    a = make_arrivals (n, MS (10), 0.0, 0, 0, 1, model_delay, &m);
    for (i = 0; i < n; i++) {
      RtpccTime phase = a[i].send % RTPCC_SEC (4);

      /* the queue grows for 0.5 s from 2 s into each period, drains at
       * 6 ms per packet */
      if (phase >= RTPCC_SEC (2) && phase < RTPCC_MSEC (2500))
        queue += RTPCC_USEC (1800);
      else
        queue = MAX (0, queue - MS (6));
      a[i].arrival += queue;
    }
    fifo (a, n);
    mean[k] = play_all (p, a, n, RTPCC_SEC (2), &late[k], NULL, NULL);
    GST_INFO ("ramps, late-target %.1f: %" G_GUINT64_FORMAT " late "
        "(%.2f %%), mean %.1f ms", c.late_target, late[k],
        100.0 * (gdouble) late[k] / (gdouble) (n - 200), mean[k]);
    g_free (a);
    rtpcc_playout_free (p, NULL);
  }
  /* 15 ramps of 50 packets: about five late packets each */
  fail_unless (late[1] <= (n - 200) / 50, "%" G_GUINT64_FORMAT " late",
      late[1]);
  fail_unless (late[1] <= late[0] * 3 / 2, "%" G_GUINT64_FORMAT " vs %"
      G_GUINT64_FORMAT " late", late[1], late[0]);
  fail_unless (mean[1] < 0.7 * mean[0], "mean %.1f vs %.1f ms", mean[1],
      mean[0]);
}

GST_END_TEST;

/* A margin learnt in a noisy regime (jitter 0–40 ms for 30 s) is given
 * back once the jitter drops (0–4 ms): a run of packets on time far longer
 * than 1/p speeds up the fall, so the target is near the new need within
 * seconds rather than the minutes the plain controller step would take
 * (margin/32·p/(1−p) per packet: 1.6 % per second at p = 0.5 %). */
static RtpccTime
two_regimes_delay (guint i, RtpccTime send, gpointer user)
{
  Model *m = user;

  return m->base + (RtpccTime) (rtpcc_rng_double (&m->rng) * (gdouble)
      (send < RTPCC_SEC (30) ? MS (40) : MS (4)));
}

GST_START_TEST (test_margin_given_back)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;
  Model m;
  Arr *a;
  guint n = 9000, i;
  RtpccTime *targets = g_new0 (RtpccTime, n), wide = 0, at20 = 0;
  guint64 late;

  rtpcc_playout_config_init (&c);
  c.clock_rate = RATE;
  p = rtpcc_playout_new (&c);
  model_init (&m, 71, MS (30), 0);
  a = make_arrivals (n, MS (10), 0.0, 0, 0, 1, two_regimes_delay, &m);
  fifo (a, n);
  play_all (p, a, n, RTPCC_SEC (30), &late, NULL, targets);
  for (i = 0; i < n; i++) {
    if (a[i].send < RTPCC_SEC (30))
      wide = targets[i];
    else if (a[i].send < RTPCC_SEC (50))
      at20 = targets[i];
  }
  GST_INFO ("target %.1f ms in the wide regime, %.1f ms 20 s after, "
      "%" G_GUINT64_FORMAT " late after", RTPCC_TIME_AS_MSEC (wide),
      RTPCC_TIME_AS_MSEC (at20), late);
  fail_unless (wide > MS (30), "wide regime target %.1f ms",
      RTPCC_TIME_AS_MSEC (wide));
  /* the plain step alone would still be near 0.7 × wide (~29 ms) */
  fail_unless (at20 < MS (10), "20 s after: %.1f ms",
      RTPCC_TIME_AS_MSEC (at20));
  fail_unless (late < (n - 3000) / 100, "%" G_GUINT64_FORMAT " late", late);
  g_free (targets);
  g_free (a);
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

/* The controller judges lateness without the FEC window: the window adds
 * exactly its length and is not traded away for late loss. */
GST_START_TEST (test_late_target_fec)
{
  RtpccTime got[2];
  guint64 late[2];
  guint k;

  for (k = 0; k < 2; k++) {
    RtpccPlayoutConfig c;
    RtpccPlayout *p;
    RtpccPlayoutStats st;
    Model m;
    Arr *a;
    guint n = 3000;

    rtpcc_playout_config_init (&c);
    c.clock_rate = RATE;
    c.fec_window = k ? MS (30) : 0;
    p = rtpcc_playout_new (&c);
    model_init (&m, 61, MS (20), MS (20));
    a = make_arrivals (n, MS (10), 0.0, 0, 0, 1, model_delay, &m);
    fifo (a, n);
    play_all (p, a, n, 0, &late[k], NULL, NULL);
    rtpcc_playout_get_stats (p, &st);
    got[k] = st.target_delay;
    g_free (a);
    rtpcc_playout_free (p, NULL);
  }
  fail_unless (llabs (got[1] - got[0] - MS (30)) < RTPCC_USEC (10),
      "%.3f vs %.3f ms", RTPCC_TIME_AS_MSEC (got[1]),
      RTPCC_TIME_AS_MSEC (got[0]));
  fail_unless (late[0] > 0 && late[1] < late[0] / 4);
}

GST_END_TEST;

/* Padding-only probes on the media SSRC are fillers: in sequence, not timed.
 * A stream with a probe after every 4th packet, sent 15 ms after it with its
 * timestamp: as fillers the target is that of the stream without them; as
 * media they would read 15 ms of extra delay and inflate the margin. */
typedef struct
{
  RtpccTime arrival;
  guint16 seq;
  guint32 ts;
  gboolean filler;
} FillerEv;

static gint
cmp_filler_ev (gconstpointer a, gconstpointer b)
{
  const FillerEv *x = a, *y = b;

  return x->arrival < y->arrival ? -1 : x->arrival > y->arrival ? 1 :
      (gint) x->seq - (gint) y->seq;
}

static RtpccTime
run_fillers (gint how, guint64 * popped_fillers, RtpccPlayoutStats * st)
{
  /* how: 0 no probes, 1 probes as fillers, 2 probes as media */
  RtpccPlayoutConfig c;
  RtpccPlayout *p;
  RtpccRng rng;
  GArray *ev = g_array_new (FALSE, FALSE, sizeof (FillerEv));
  guint16 seq = 0;
  guint i, k;

  rtpcc_playout_config_init (&c);
  c.clock_rate = RATE;
  p = rtpcc_playout_new (&c);
  rtpcc_rng_init (&rng, 11);
  /* 50 packets/s; a FIFO path, so arrivals keep the wire order (a probe
   * leaves 15 ms after its frame, before the next one) */
  for (i = 0; i < 6000; i++) {
    RtpccTime send = (RtpccTime) i * MS (20);
    FillerEv e = { send + MS (40) + (RtpccTime) (rtpcc_rng_double (&rng) *
          (gdouble) MS (10)), seq++, i * 1800u, FALSE
    };
    gdouble jp = rtpcc_rng_double (&rng);

    if (ev->len)
      e.arrival = MAX (e.arrival,
          g_array_index (ev, FillerEv, ev->len - 1).arrival);
    g_array_append_val (ev, e);
    if (how != 0 && i % 4 == 3) {
      FillerEv f = { send + MS (55) + (RtpccTime) (jp * (gdouble) MS (10)),
        seq++, i * 1800u, TRUE
      };
      f.arrival = MAX (f.arrival, e.arrival);
      g_array_append_val (ev, f);
    }
  }
  g_array_sort (ev, cmp_filler_ev);
  *popped_fillers = 0;
  for (k = 0; k < ev->len; k++) {
    const FillerEv *e = &g_array_index (ev, FillerEv, k);
    gpointer data = GUINT_TO_POINTER ((guint) e->filler + 1);
    gpointer out;

    if (e->filler && how == 1)
      rtpcc_playout_push_filler (p, e->arrival, 0, e->seq, e->ts, data);
    else
      rtpcc_playout_push (p, e->arrival, 0, e->seq, e->ts, data);
    while ((out = rtpcc_playout_pop (p, e->arrival, NULL, NULL)))
      *popped_fillers += GPOINTER_TO_UINT (out) == 2;
  }
  rtpcc_playout_get_stats (p, st);
  rtpcc_playout_free (p, NULL);
  g_array_free (ev, TRUE);
  return st->target_delay;
}

GST_START_TEST (test_fillers)
{
  RtpccPlayoutStats none, fill, media;
  guint64 f0, f1, f2;
  RtpccTime t0 = run_fillers (0, &f0, &none);
  RtpccTime t1 = run_fillers (1, &f1, &fill);
  RtpccTime t2 = run_fillers (2, &f2, &media);

  GST_INFO ("target: no probes %.2f ms, fillers %.2f ms, as media %.2f ms",
      RTPCC_TIME_AS_MSEC (t0), RTPCC_TIME_AS_MSEC (t1),
      RTPCC_TIME_AS_MSEC (t2));
  fail_unless_equals_uint64 (fill.fillers, 1500);
  fail_unless_equals_uint64 (media.fillers, 0);
  /* fillers leave the estimator as it was without them */
  fail_unless (llabs (t1 - t0) <= MS (1), "fillers %.2f vs none %.2f ms",
      RTPCC_TIME_AS_MSEC (t1), RTPCC_TIME_AS_MSEC (t0));
  fail_unless_equals_uint64 (fill.late, none.late);
  /* the same probes taken for media push the target up by their lag */
  fail_unless (t2 > t0 + MS (8), "as media %.2f vs none %.2f ms",
      RTPCC_TIME_AS_MSEC (t2), RTPCC_TIME_AS_MSEC (t0));
  /* every filler either left in sequence or was dropped past its slot */
  fail_unless_equals_uint64 (f1 + fill.fillers_late, 1500);
  /* 15-25 ms behind their frame with a ~10 ms margin, so many are past
   * their time; but the next frame has not left yet (FIFO path): each
   * still fits its slot and none is dropped, so no gap downstream */
  fail_unless_equals_uint64 (fill.fillers_late, 0);

  /* a filler whose slot has passed (a later packet has left) is dropped,
   * not counted late */
  {
    RtpccPlayoutConfig c;
    RtpccPlayout *p;
    RtpccPlayoutStats st;

    rtpcc_playout_config_init (&c);
    c.clock_rate = RATE;
    p = rtpcc_playout_new (&c);
    fail_unless_equals_int (rtpcc_playout_push (p, MS (40), 0, 10, 0,
            GUINT_TO_POINTER (1)), RTPCC_PLAYOUT_QUEUED);
    fail_unless_equals_int (rtpcc_playout_push (p, MS (80), 0, 12, 3600,
            GUINT_TO_POINTER (1)), RTPCC_PLAYOUT_QUEUED);
    while (rtpcc_playout_pop (p, MS (1000), NULL, NULL));
    fail_unless_equals_int (rtpcc_playout_push_filler (p, MS (1010), 0, 11, 0,
            GUINT_TO_POINTER (2)), RTPCC_PLAYOUT_FILLER_LATE);
    rtpcc_playout_get_stats (p, &st);
    fail_unless_equals_uint64 (st.fillers_late, 1);
    fail_unless_equals_uint64 (st.late, 0);
    rtpcc_playout_free (p, NULL);
  }
  /* and the media left as without them (± what is still queued at the end) */
  fail_unless (fill.released - f1 + 2 >= none.released &&
      fill.released - f1 <= none.released + 2, "media %" G_GUINT64_FORMAT
      " vs %" G_GUINT64_FORMAT, fill.released - f1, none.released);
}

GST_END_TEST;

/* A filler has no timing of its own to offer: one whose timestamp is far
 * off (a foreign sender's padding, a bogus packet) must neither hold the
 * stream behind it nor move the timestamp unwrapping; the media after it
 * plays as without it. */
static guint freed_packets;

static void
count_free (gpointer data)
{
  freed_packets++;
}

static void
assert_queued_freed (RtpccPlayout * p, guint queued, guint freed)
{
  RtpccPlayoutStats st;

  rtpcc_playout_get_stats (p, &st);
  fail_unless_equals_int (st.queued, queued);
  fail_unless_equals_int (freed_packets, freed);
}

/* Which stream a packet belongs to: payload on another SSRC restarts the
 * playout (what was held is freed), a filler on another SSRC never does;
 * reset forgets the SSRC. */
GST_START_TEST (test_ssrc_switch)
{
  RtpccPlayout *p = new_playout (RTPCC_PLAYOUT_MODE_ADAPTIVE, 0.95);

  freed_packets = 0;
  fail_unless_equals_int (rtpcc_playout_check_ssrc (p, 0xA, FALSE,
          count_free), RTPCC_PLAYOUT_SSRC_SAME);
  for (guint i = 0; i < 3; i++)
    fail_unless_equals_int (rtpcc_playout_push (p, MS (10) * i, 0, i,
            i * 900u, GUINT_TO_POINTER (1)), RTPCC_PLAYOUT_QUEUED);
  /* a late probe of another stream: ignored, nothing freed */
  fail_unless_equals_int (rtpcc_playout_check_ssrc (p, 0xB, TRUE,
          count_free), RTPCC_PLAYOUT_SSRC_IGNORE);
  assert_queued_freed (p, 3, 0);
  fail_unless_equals_int (rtpcc_playout_check_ssrc (p, 0xA, TRUE,
          count_free), RTPCC_PLAYOUT_SSRC_SAME);
  /* media on another SSRC: a new stream, the old one's packets freed */
  fail_unless_equals_int (rtpcc_playout_check_ssrc (p, 0xB, FALSE,
          count_free), RTPCC_PLAYOUT_SSRC_NEW);
  assert_queued_freed (p, 0, 3);
  /* ... which is now the one a filler must match */
  fail_unless_equals_int (rtpcc_playout_check_ssrc (p, 0xA, TRUE,
          count_free), RTPCC_PLAYOUT_SSRC_IGNORE);
  /* after a reset (flush) any SSRC is the first */
  rtpcc_playout_reset (p, count_free);
  fail_unless_equals_int (rtpcc_playout_check_ssrc (p, 0xC, TRUE,
          count_free), RTPCC_PLAYOUT_SSRC_SAME);
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

GST_START_TEST (test_filler_bogus_timestamp)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;
  RtpccPlayoutStats st;
  guint64 media_out = 0;
  guint16 seq = 65500;          /* seqs wrap too */
  guint32 ts0 = 0xFFFF0000u;    /* and timestamps, during the run */

  rtpcc_playout_config_init (&c);
  c.clock_rate = RATE;
  p = rtpcc_playout_new (&c);
  for (guint i = 0; i < 300; i++) {
    RtpccTime now = MS (10) * i + MS (40);
    guint32 ts = ts0 + i * 900u;
    gpointer out;

    rtpcc_playout_push (p, now, 0, seq++, ts, GUINT_TO_POINTER (1));
    /* now and then a filler from 6 hours ahead (just under half the
     * 32-bit space), or behind */
    if (i % 100 == 10)
      rtpcc_playout_push_filler (p, now, 0, seq++, ts + 0x7FFF0000u,
          GUINT_TO_POINTER (2));
    else if (i % 100 == 60)
      rtpcc_playout_push_filler (p, now, 0, seq++, ts - 0x7FFF0000u,
          GUINT_TO_POINTER (2));
    while ((out = rtpcc_playout_pop (p, now, NULL, NULL)))
      media_out += GPOINTER_TO_UINT (out) == 1;
    /* the media keeps flowing: nothing held much longer than the
     * playout delay (a few tens of ms here) */
    fail_unless (media_out + 20 >= i, "%" G_GUINT64_FORMAT " of %u media "
        "released", media_out, i + 1);
  }
  rtpcc_playout_get_stats (p, &st);
  GST_INFO ("%" G_GUINT64_FORMAT " media released, %" G_GUINT64_FORMAT
      " late", media_out, st.late);
  /* all but the last few (still within their playout delay) */
  fail_unless (media_out >= 290, "%" G_GUINT64_FORMAT " of 300 media "
      "released", media_out);
  fail_unless_equals_uint64 (st.late, 0);
  rtpcc_playout_free (p, NULL);
}

GST_END_TEST;

/* fec_window = RTPCC_PLAYOUT_FEC_AUTO: 14 mean packet intervals (5 ms:
 * 70 ms), at most 100 ms (20 ms: 280 -> 100), and the target carries it. */
static RtpccPlayoutStats
run_fec_auto (RtpccTime fec_window, RtpccTime gap)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;
  RtpccPlayoutStats st;
  guint i;

  rtpcc_playout_config_init (&c);
  c.clock_rate = RATE;
  c.fec_window = fec_window;
  fail_unless (rtpcc_playout_config_validate (&c, NULL));
  p = rtpcc_playout_new (&c);
  for (i = 0; i < 400; i++) {
    RtpccTime now = (RtpccTime) i * gap + MS (40);

    rtpcc_playout_push (p, now, 0, (guint16) i,
        (guint32) (i * (gap * RATE / RTPCC_NSEC_PER_SEC)), GUINT_TO_POINTER (1));
    while (rtpcc_playout_pop (p, now, NULL, NULL));
  }
  rtpcc_playout_get_stats (p, &st);
  rtpcc_playout_free (p, NULL);
  return st;
}

GST_START_TEST (test_fec_window_auto)
{
  RtpccPlayoutStats none = run_fec_auto (0, MS (5));
  RtpccPlayoutStats fast = run_fec_auto (RTPCC_PLAYOUT_FEC_AUTO, MS (5));
  RtpccPlayoutStats slow = run_fec_auto (RTPCC_PLAYOUT_FEC_AUTO, MS (20));
  RtpccPlayoutConfig c;

  fail_unless_equals_uint64 (none.fec_window, 0);
  fail_unless (llabs (fast.fec_window - MS (70)) <= MS (1), "%.2f ms",
      RTPCC_TIME_AS_MSEC (fast.fec_window));
  fail_unless_equals_uint64 (slow.fec_window, RTPCC_PLAYOUT_FEC_AUTO_MAX);
  fail_unless (llabs (fast.target_delay - none.target_delay - MS (70)) <=
      MS (2), "target %.2f vs %.2f ms", RTPCC_TIME_AS_MSEC (fast.target_delay),
      RTPCC_TIME_AS_MSEC (none.target_delay));
  /* other negative windows stay invalid */
  rtpcc_playout_config_init (&c);
  c.fec_window = -2;
  fail_if (rtpcc_playout_config_validate (&c, NULL));
}

GST_END_TEST;

/* Start-up: a stream opens with a key frame much larger than the frames
 * after it, and the sender's pacer spreads its packets over tens of ms, all
 * with the same RTP timestamp. Nothing is known of the path yet, so the
 * spread must not be taken for lateness: no packet of the first frame is
 * discarded, the frame is complete once its last packet arrived, and the
 * frames queued behind it at the sender play on time. */
#define SU_KEY 30               /* key-frame packets, one per 1.5 ms */
#define SU_FRAMES 60            /* then 3 packets per 30 fps frame */

static void
run_startup (RtpccPlayoutMode mode, RtpccTime min_delay, RtpccTime fec_window)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;
  RtpccPlayoutStats st;
  guint n = SU_KEY + 3 * SU_FRAMES, i, k;
  RtpccTime *arrival = g_new (RtpccTime, n), *released = g_new (RtpccTime, n);
  guint32 *ts = g_new (guint32, n);
  RtpccTime send = 0, now = 0;
  const RtpccTime transit = MS (40), pace = RTPCC_USEC (1500);

  /* a FIFO path with a constant transit: all the variation is the pacer */
  for (i = 0; i < n; i++) {
    guint frame = i < SU_KEY ? 0 : 1 + (i - SU_KEY) / 3;
    RtpccTime capture = (RtpccTime) frame * RTPCC_SEC (1) / 30;

    send = i == 0 ? 0 : MAX (send + pace, capture);
    arrival[i] = send + transit;
    ts[i] = 1000u + frame * 3000u;
    released[i] = RTPCC_TIME_NONE;
  }

  rtpcc_playout_config_init (&c);
  c.clock_rate = RATE;
  c.mode = mode;
  c.min_delay = min_delay;
  c.fec_window = fec_window;
  p = rtpcc_playout_new (&c);
  fail_unless (p != NULL);
  for (i = 0; i <= n; i++) {
    RtpccTime ta = i < n ? arrival[i] : arrival[n - 1] + RTPCC_SEC (1);
    RtpccTime due;
    gpointer d;

    /* release what falls due before this arrival, at its due time */
    while ((due = rtpcc_playout_next_due (p, now)) != RTPCC_TIME_NONE &&
        due <= ta) {
      now = MAX (now, due);
      while ((d = rtpcc_playout_pop (p, now, NULL, NULL)) != NULL)
        released[GPOINTER_TO_UINT (d) - 1] = now;
    }
    if (i == n)
      break;
    now = MAX (now, ta);
    fail_unless_equals_int (rtpcc_playout_push (p, now, 0,
            (guint16) (65530 + i), ts[i], GUINT_TO_POINTER (i + 1)),
        RTPCC_PLAYOUT_QUEUED);
    /* a packet past its time goes out at once */
    while ((d = rtpcc_playout_pop (p, now, NULL, NULL)) != NULL)
      released[GPOINTER_TO_UINT (d) - 1] = now;
  }

  rtpcc_playout_get_stats (p, &st);
  fail_unless_equals_uint64 (st.late, 0);
  fail_unless_equals_uint64 (st.released, n);
  /* the key frame is whole as soon as its last packet is in (plus the FEC
   * repair window, the time a lost packet's repair may take) */
  for (k = 0; k < SU_KEY; k++)
    fail_unless (released[k] <= arrival[SU_KEY - 1] + fec_window + MS (1),
        "key packet %u released %.1f ms after the frame's last arrival", k,
        RTPCC_TIME_AS_MSEC (released[k] - arrival[SU_KEY - 1]));
  GST_INFO ("mode %s: key frame spread %.1f ms, complete at %.1f ms, "
      "target %.1f ms", rtpcc_playout_mode_name (mode),
      RTPCC_TIME_AS_MSEC (arrival[SU_KEY - 1] - arrival[0]),
      RTPCC_TIME_AS_MSEC (released[SU_KEY - 1]),
      RTPCC_TIME_AS_MSEC (st.target_delay));
  rtpcc_playout_free (p, NULL);
  g_free (arrival);
  g_free (released);
  g_free (ts);
}

GST_START_TEST (test_startup_key_frame)
{
  run_startup (RTPCC_PLAYOUT_MODE_ADAPTIVE, 0, 0);
  /* with fecdec upstream: the automatic FEC window */
  run_startup (RTPCC_PLAYOUT_MODE_ADAPTIVE, 0, RTPCC_PLAYOUT_FEC_AUTO_MAX);
  /* a fixed delay shorter than the key frame's spread */
  run_startup (RTPCC_PLAYOUT_MODE_FIXED, MS (20), 0);
}

GST_END_TEST;

/* The de-jitter state for RFC 7005 goes out at most once per interval;
 * the water marks keep every sample in between, and the next interval's
 * marks start at the delay in force. */
GST_START_TEST (test_djb_meter)
{
  RtpccPlayoutDjbMeter m;
  RtpccPlayoutDjb d;

  rtpcc_playout_djb_meter_init (&m, RTPCC_MSEC (100));
  /* nothing sampled, nothing due; a bogus sample is ignored */
  fail_if (rtpcc_playout_djb_meter_due (&m, 0, &d));
  rtpcc_playout_djb_meter_sample (&m, TRUE, RTPCC_TIME_NONE, 0);
  rtpcc_playout_djb_meter_sample (&m, TRUE, -1, 0);
  fail_if (rtpcc_playout_djb_meter_due (&m, 0, &d));

  rtpcc_playout_djb_meter_sample (&m, TRUE, RTPCC_MSEC (40),
      RTPCC_MSEC (400));
  fail_unless (rtpcc_playout_djb_meter_due (&m, RTPCC_MSEC (10), &d));
  fail_unless (d.adaptive);
  fail_unless_equals_int64 (d.nominal, RTPCC_MSEC (40));
  fail_unless_equals_int64 (d.maximum, RTPCC_MSEC (400));
  fail_unless_equals_int64 (d.high_water, RTPCC_MSEC (40));
  fail_unless_equals_int64 (d.low_water, RTPCC_MSEC (40));

  /* a spike and a dip within the interval: not due, but remembered */
  rtpcc_playout_djb_meter_sample (&m, TRUE, RTPCC_MSEC (90),
      RTPCC_MSEC (400));
  fail_if (rtpcc_playout_djb_meter_due (&m, RTPCC_MSEC (50), &d));
  rtpcc_playout_djb_meter_sample (&m, TRUE, RTPCC_MSEC (20),
      RTPCC_MSEC (400));
  rtpcc_playout_djb_meter_sample (&m, TRUE, RTPCC_MSEC (30),
      RTPCC_MSEC (400));
  fail_if (rtpcc_playout_djb_meter_due (&m, RTPCC_MSEC (109), &d));
  fail_unless (rtpcc_playout_djb_meter_due (&m, RTPCC_MSEC (110), &d));
  fail_unless_equals_int64 (d.nominal, RTPCC_MSEC (30));
  fail_unless_equals_int64 (d.high_water, RTPCC_MSEC (90));
  fail_unless_equals_int64 (d.low_water, RTPCC_MSEC (20));

  /* a nominal delay over a stale maximum raises the maximum */
  rtpcc_playout_djb_meter_sample (&m, FALSE, RTPCC_MSEC (500),
      RTPCC_MSEC (400));
  fail_unless (rtpcc_playout_djb_meter_due (&m, RTPCC_MSEC (300), &d));
  fail_if (d.adaptive);
  fail_unless_equals_int64 (d.maximum, RTPCC_MSEC (500));
  fail_unless_equals_int64 (d.high_water, RTPCC_MSEC (500));
  fail_unless_equals_int64 (d.low_water, RTPCC_MSEC (30));
  /* time went back (a new segment): due at once */
  fail_unless (rtpcc_playout_djb_meter_due (&m, RTPCC_MSEC (5), &d));
  fail_unless_equals_int64 (d.low_water, RTPCC_MSEC (500));
}

GST_END_TEST;

static Suite *
rtpcc_playout_suite (void)
{
  Suite *s = suite_create ("rtpcc_playout");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_converges_to_percentile);
  tcase_add_test (tc, test_djb_meter);
  tcase_add_test (tc, test_spike_up_and_down);
  tcase_add_test (tc, test_drift);
  tcase_add_test (tc, test_wrap);
  tcase_add_test (tc, test_reorder_late_duplicate);
  tcase_add_test (tc, test_bounds_and_fec);
  tcase_add_test (tc, test_multipath_skew);
  tcase_add_test (tc, test_singh);
  tcase_add_test (tc, test_late_target_converges);
  tcase_add_test (tc, test_spike_reaction_and_return);
  tcase_add_test (tc, test_ramps);
  tcase_add_test (tc, test_late_target_fec);
  tcase_add_test (tc, test_margin_given_back);
  tcase_add_test (tc, test_fillers);
  tcase_add_test (tc, test_fec_window_auto);
  tcase_add_test (tc, test_filler_bogus_timestamp);
  tcase_add_test (tc, test_ssrc_switch);
  tcase_add_test (tc, test_startup_key_frame);
  return s;
}

GST_CHECK_MAIN (rtpcc_playout);

/* Unit tests for RtpccEncoderLoop (gst/rtpcc/encoderloop.[ch]): an encoder
 * model that keeps to, overshoots, undershoots or cannot go below a rate,
 * with key frames, driven through the loop as an element drives it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <math.h>

#define FPS 30
#define KEY_EVERY 120           /* frames: a key frame every 4 s */
#define KEY_SIZE 5.0            /* a key frame is 5 average frames */
#define MTU 1200

typedef struct
{
  gdouble overshoot;            /* produced / asked */
  gdouble floor_bps;            /* it cannot produce less than this */
  guint64 asked;                /* the value it holds */
  guint frame;
} Encoder;

/* One frame at media time @t, in packets of at most MTU bytes, through
 * the loop; TRUE if the loop changed its factor. */
static gboolean
encode_frame (Encoder * e, RtpccEncoderLoop * loop, RtpccTime t)
{
  gdouble rate = MAX (e->overshoot * (gdouble) e->asked, e->floor_bps);
  /* key frames take their share of the same budget */
  gdouble mean = rate / 8.0 / FPS;
  gdouble norm = (KEY_EVERY - 1 + KEY_SIZE) / KEY_EVERY;
  gsize size = (gsize) llround (mean / norm *
      (e->frame % KEY_EVERY == 0 ? KEY_SIZE : 1.0));
  gboolean changed = FALSE;

  e->frame++;
  while (size > 0) {
    gsize n = MIN (size, MTU);

    changed |= rtpcc_encoder_loop_produced (loop, t, n);
    size -= n;
  }
  return changed;
}

/* The element's side: give the encoder the corrected target, tell the
 * loop what it now holds. */
static void
apply (Encoder * e, RtpccEncoderLoop * loop, guint64 target)
{
  e->asked = rtpcc_encoder_loop_correct (loop, target);
  rtpcc_encoder_loop_target (loop, target);
}

/* Runs @seconds of media at @target; returns the produced rate over the
 * last 4 s (two windows), in bit/s. */
static gdouble
run (Encoder * e, RtpccEncoderLoop * loop, guint64 target, RtpccTime * t,
    guint seconds)
{
  guint frames = seconds * FPS;
  gdouble tail_bits = 0.0;

  apply (e, loop, target);
  for (guint i = 0; i < frames; i++) {
    gdouble rate = MAX (e->overshoot * (gdouble) e->asked, e->floor_bps);

    if (i >= frames - 4 * FPS)
      tail_bits += rate / FPS;
    if (encode_frame (e, loop, *t))
      apply (e, loop, target);
    *t += RTPCC_SEC (1) / FPS;
  }
  return tail_bits / 4.0;
}

static void
new_loop (RtpccEncoderLoop * loop)
{
  RtpccEncoderLoopConfig c;

  rtpcc_encoder_loop_config_init (&c);
  fail_unless (rtpcc_encoder_loop_init (loop, &c));
}

/* An encoder that keeps to its rate, key frames included: the loop never
 * moves (the dead band holds a key frame's share of a window). */
GST_START_TEST (test_on_target)
{
  RtpccEncoderLoop loop;
  Encoder e = { 1.0, 0.0, 0, 0 };
  RtpccTime t = RTPCC_SEC (10);

  new_loop (&loop);
  run (&e, &loop, 800000, &t, 60);
  fail_unless_equals_uint64 (loop.corrections, 0);
  fail_unless (loop.factor == 1.0);
  fail_unless (loop.windows >= 29, "%" G_GUINT64_FORMAT, loop.windows);
  fail_unless (fabs ((gdouble) loop.produced_bps - 800000.0) < 0.05 * 800000,
      "%" G_GUINT64_FORMAT, loop.produced_bps);
}

GST_END_TEST;

/* 30 % over whatever it is asked: within a few windows the produced rate
 * is the target, within the dead band; the factor is about 1/1.3. Without
 * the loop it would stay 30 % over. */
GST_START_TEST (test_overshoot_corrected)
{
  RtpccEncoderLoop loop;
  Encoder e = { 1.3, 0.0, 0, 0 };
  RtpccTime t = 0;
  gdouble produced;

  new_loop (&loop);
  produced = run (&e, &loop, 1000000, &t, 30);
  g_print ("overshoot 1.3: produced %.0f bit/s for a 1000000 target, factor "
      "%.3f after %" G_GUINT64_FORMAT " corrections\n", produced, loop.factor,
      loop.corrections);
  fail_unless (fabs (produced / 1e6 - 1.0) < 0.06, "%.0f", produced);
  fail_unless (fabs (loop.factor - 1.0 / 1.3) < 0.05, "%.3f", loop.factor);
  fail_unless (loop.corrections >= 1 && loop.corrections <= 6);
  /* a new target later: the correction carries over at once */
  produced = run (&e, &loop, 400000, &t, 10);
  fail_unless (fabs (produced / 4e5 - 1.0) < 0.06, "%.0f", produced);
}

GST_END_TEST;

/* An encoder at its floor (600 kbit/s whatever it is asked): the factor
 * goes to its minimum and stays there, no oscillation; the produced rate
 * is what the encoder can do. */
GST_START_TEST (test_floor_bounded)
{
  RtpccEncoderLoop loop;
  Encoder e = { 1.0, 600000.0, 0, 0 };
  RtpccTime t = 0;
  gdouble f_20;

  new_loop (&loop);
  run (&e, &loop, 300000, &t, 20);
  f_20 = loop.factor;
  run (&e, &loop, 300000, &t, 20);
  fail_unless (f_20 == loop.config.min_factor, "%.3f", f_20);
  fail_unless (loop.factor == loop.config.min_factor);
}

GST_END_TEST;

/* Overshoot, then the encoder keeps to its rate again (the scene got
 * easier): the factor relaxes back to 1 and the target is met. */
GST_START_TEST (test_relax)
{
  RtpccEncoderLoop loop;
  Encoder e = { 1.4, 0.0, 0, 0 };
  RtpccTime t = 0;
  gdouble produced;

  new_loop (&loop);
  run (&e, &loop, 1000000, &t, 30);
  fail_unless (loop.factor < 0.8);
  e.overshoot = 1.0;
  produced = run (&e, &loop, 1000000, &t, 40);
  fail_unless (loop.factor > 0.95, "%.3f", loop.factor);
  fail_unless (fabs (produced / 1e6 - 1.0) < 0.06, "%.0f", produced);
}

GST_END_TEST;

/* Undershooting: the target is never raised above what was allowed. */
GST_START_TEST (test_undershoot_not_raised)
{
  RtpccEncoderLoop loop;
  Encoder e = { 0.6, 0.0, 0, 0 };
  RtpccTime t = 0;

  new_loop (&loop);
  run (&e, &loop, 1000000, &t, 30);
  fail_unless (loop.factor == 1.0);
  fail_unless_equals_uint64 (loop.corrections, 0);
  fail_unless (loop.last_ratio < 0.65);
}

GST_END_TEST;

GST_START_TEST (test_bad_input)
{
  RtpccEncoderLoop loop;
  RtpccEncoderLoopConfig c;

  rtpcc_encoder_loop_config_init (&c);
  c.window = 0;
  fail_if (rtpcc_encoder_loop_init (&loop, &c));
  fail_unless (loop.config.window == RTPCC_SEC (2));
  rtpcc_encoder_loop_config_init (&c);
  c.gain = 1.5;
  fail_if (rtpcc_encoder_loop_init (&loop, &c));
  rtpcc_encoder_loop_config_init (&c);
  c.min_factor = 1.2;
  fail_if (rtpcc_encoder_loop_init (&loop, &c));
  fail_if (rtpcc_encoder_loop_init (&loop, NULL));

  new_loop (&loop);
  /* no time: ignored and counted */
  fail_if (rtpcc_encoder_loop_produced (&loop, RTPCC_TIME_NONE, 1000));
  fail_unless_equals_uint64 (loop.ignored, 1);
  /* no target known: windows close but never correct */
  for (RtpccTime t = 0; t < RTPCC_SEC (10); t += RTPCC_MSEC (10))
    fail_if (rtpcc_encoder_loop_produced (&loop, t, 100000));
  fail_unless (loop.factor == 1.0);
  fail_unless (loop.windows >= 4);
  /* time going backwards (a new segment) restarts the window: the bytes
   * before it are not mixed in */
  rtpcc_encoder_loop_target (&loop, 1000000);
  for (RtpccTime t = 0; t < RTPCC_MSEC (2500); t += RTPCC_MSEC (10))
    rtpcc_encoder_loop_produced (&loop, t, 1250);
  fail_unless (loop.factor == 1.0, "%.3f", loop.factor);
  fail_unless (fabs ((gdouble) loop.produced_bps - 1e6) < 1e4,
      "%" G_GUINT64_FORMAT, loop.produced_bps);
  fail_unless_equals_uint64 (rtpcc_encoder_loop_correct (&loop, 0), 0);
  fail_unless_equals_uint64 (rtpcc_encoder_loop_correct (&loop, 1), 1);
}

GST_END_TEST;

static Suite *
encoder_loop_suite (void)
{
  Suite *s = suite_create ("rtpcc_encoder_loop");
  TCase *tc = tcase_create ("loop");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_on_target);
  tcase_add_test (tc, test_overshoot_corrected);
  tcase_add_test (tc, test_floor_bounded);
  tcase_add_test (tc, test_relax);
  tcase_add_test (tc, test_undershoot_not_raised);
  tcase_add_test (tc, test_bad_input);
  return s;
}

GST_CHECK_MAIN (encoder_loop);

/* Unit tests for the controllers' shared parameter parser
 * (gst/rtpcc/cc/params.c): grammar, ranges and storage per type.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/cc/params.h>

typedef enum
{
  MODE_A,
  MODE_B,
  MODE_C,
} Mode;

typedef struct
{
  gdouble half_open, open_low;
  guint count;
  RtpccTime ms, us;
  gboolean flag;
  Mode mode;
} Knobs;

static const gchar *const mode_names[] = { "a", "b", "c", NULL };

static const RtpccParamSpec specs[] = {
  RTPCC_PARAM_DOUBLE ("half-open", Knobs, half_open, 0.5, 1.0,
      RTPCC_PARAM_MAX_OPEN),
  RTPCC_PARAM_DOUBLE ("open-low", Knobs, open_low, 0.0, 1.0,
      RTPCC_PARAM_MIN_OPEN),
  RTPCC_PARAM_UINT ("count", Knobs, count, 1, 100),
  RTPCC_PARAM_TIME ("ms", Knobs, ms, 0, 1000, 0),
  RTPCC_PARAM_TIME ("us", Knobs, us, 0, 100, RTPCC_PARAM_USEC),
  RTPCC_PARAM_BOOL ("flag", Knobs, flag),
  RTPCC_PARAM_CHOICE ("mode", Knobs, mode, mode_names),
};

static gboolean
set (Knobs * k, const gchar * key, const gchar * value)
{
  const RtpccParamSpec *s = rtpcc_params_set (specs, G_N_ELEMENTS (specs), k,
      key, value);

  /* the entry returned is the one named */
  fail_unless (s == NULL || g_str_equal (s->key, key));
  return s != NULL;
}

GST_START_TEST (test_numbers)
{
  Knobs k = { 0 };

  fail_unless (set (&k, "half-open", "0.5") && k.half_open == 0.5);
  fail_unless (set (&k, "half-open", "0.999") && k.half_open == 0.999);
  fail_if (set (&k, "half-open", "1"));
  fail_if (set (&k, "half-open", "0.49"));
  fail_unless (k.half_open == 0.999, "a rejected value leaves the field");
  fail_unless (set (&k, "open-low", "1") && k.open_low == 1.0);
  fail_if (set (&k, "open-low", "0"));
  fail_if (set (&k, "open-low", "-0"));
  fail_unless (set (&k, "open-low", "1e-3") && k.open_low == 1e-3);
  /* the whole value, a finite number */
  fail_if (set (&k, "open-low", "0.5x"));
  fail_if (set (&k, "open-low", ""));
  fail_if (set (&k, "open-low", "nan"));
  fail_if (set (&k, "open-low", "inf"));
  fail_unless (k.open_low == 1e-3);

  fail_unless (set (&k, "count", "100") && k.count == 100);
  fail_unless (set (&k, "count", "7.0") && k.count == 7);
  fail_if (set (&k, "count", "7.5"));
  fail_if (set (&k, "count", "0"));
  fail_if (set (&k, "count", "101"));
  fail_if (set (&k, "count", "-18446744073709551615"));
  fail_unless (k.count == 7);
}

GST_END_TEST;

GST_START_TEST (test_times)
{
  Knobs k = { 0 };

  /* milliseconds, truncated to the unit kept */
  fail_unless (set (&k, "ms", "250") && k.ms == RTPCC_MSEC (250));
  fail_unless (set (&k, "ms", "250.9") && k.ms == RTPCC_MSEC (250));
  fail_unless (set (&k, "ms", "0") && k.ms == 0);
  fail_if (set (&k, "ms", "1000.5"));
  fail_if (set (&k, "ms", "-1"));
  fail_unless (set (&k, "us", "4.5") && k.us == RTPCC_USEC (4500));
  fail_unless (set (&k, "us", "0.0019") && k.us == RTPCC_USEC (1));
  fail_if (set (&k, "us", "100.001"));
}

GST_END_TEST;

GST_START_TEST (test_words)
{
  Knobs k = { 0 };
  static const gchar *const yes[] = { "true", "1", "yes", "on", "TRUE", "On" };
  static const gchar *const no[] = { "false", "0", "no", "off", "False" };

  for (guint i = 0; i < G_N_ELEMENTS (yes); i++) {
    k.flag = FALSE;
    fail_unless (set (&k, "flag", yes[i]) && k.flag == TRUE, "%s", yes[i]);
  }
  for (guint i = 0; i < G_N_ELEMENTS (no); i++) {
    k.flag = TRUE;
    fail_unless (set (&k, "flag", no[i]) && k.flag == FALSE, "%s", no[i]);
  }
  fail_if (set (&k, "flag", "2"));
  fail_if (set (&k, "flag", "truth"));

  /* choices: exactly one of the names, stored as its index */
  fail_unless (set (&k, "mode", "c") && k.mode == MODE_C);
  fail_unless (set (&k, "mode", "b") && k.mode == MODE_B);
  fail_if (set (&k, "mode", "B"));
  fail_if (set (&k, "mode", "d"));
  fail_if (set (&k, "mode", ""));
  fail_unless (k.mode == MODE_B);
}

GST_END_TEST;

GST_START_TEST (test_lookup)
{
  Knobs k = { 0 }, before;

  before = k;
  fail_if (set (&k, "no-such", "1"));
  fail_if (rtpcc_params_set (specs, G_N_ELEMENTS (specs), &k, NULL, "1"));
  fail_if (rtpcc_params_set (specs, G_N_ELEMENTS (specs), &k, "count", NULL));
  fail_unless (memcmp (&k, &before, sizeof (k)) == 0);
}

GST_END_TEST;

static Suite *
rtpcc_params_suite (void)
{
  Suite *s = suite_create ("rtpcc_params");
  TCase *tc = tcase_create ("params");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_numbers);
  tcase_add_test (tc, test_times);
  tcase_add_test (tc, test_words);
  tcase_add_test (tc, test_lookup);
  return s;
}

GST_CHECK_MAIN (rtpcc_params);

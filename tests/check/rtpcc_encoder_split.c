/* Unit tests for the split of one target among several encoders
 * (gst/rtpcc/encodersplit.[ch]).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

GST_START_TEST (test_one_encoder)
{
  RtpccEncoderShare v = { FALSE, 0 }, a = { TRUE, 64000 };
  guint64 out[1];

  rtpcc_encoder_split (1000000, &v, 1, out);
  fail_unless_equals_uint64 (out[0], 1000000);
  /* one audio encoder alone gets the target, as without a split */
  rtpcc_encoder_split (300000, &a, 1, out);
  fail_unless_equals_uint64 (out[0], 300000);
}

GST_END_TEST;

/* Audio keeps what it was configured with; video gets the rest. */
GST_START_TEST (test_audio_first)
{
  RtpccEncoderShare e[2] = { {TRUE, 64000}, {FALSE, 0} };
  guint64 out[2];

  rtpcc_encoder_split (1000000, e, 2, out);
  fail_unless_equals_uint64 (out[0], 64000);
  fail_unless_equals_uint64 (out[1], 936000);
  /* at 100 kbit/s audio may take only half */
  rtpcc_encoder_split (100000, e, 2, out);
  fail_unless_equals_uint64 (out[0], 50000);
  fail_unless_equals_uint64 (out[1], 50000);
}

GST_END_TEST;

/* Two video encoders share equally; two audio encoders over half the
 * target are scaled down together, in proportion to what they asked. */
GST_START_TEST (test_shares)
{
  RtpccEncoderShare e[4] = { {FALSE, 0}, {TRUE, 96000}, {FALSE, 0},
  {TRUE, 32000}
  };
  guint64 out[4];

  rtpcc_encoder_split (2128000, e, 4, out);
  fail_unless_equals_uint64 (out[1], 96000);
  fail_unless_equals_uint64 (out[3], 32000);
  fail_unless_equals_uint64 (out[0], 1000000);
  fail_unless_equals_uint64 (out[2], 1000000);
  rtpcc_encoder_split (128000, e, 4, out);
  fail_unless_equals_uint64 (out[1], 48000);
  fail_unless_equals_uint64 (out[3], 16000);
  fail_unless_equals_uint64 (out[0], 32000);
  fail_unless_equals_uint64 (out[2], 32000);
  /* no encoder: nothing written, no crash */
  rtpcc_encoder_split (1000, e, 0, out);
}

GST_END_TEST;

static Suite *
encoder_split_suite (void)
{
  Suite *s = suite_create ("rtpcc_encoder_split");
  TCase *tc = tcase_create ("split");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_one_encoder);
  tcase_add_test (tc, test_audio_first);
  tcase_add_test (tc, test_shares);
  return s;
}

GST_CHECK_MAIN (encoder_split);

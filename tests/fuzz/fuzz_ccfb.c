/* Fuzz target: the RFC 8888 CCFB parser (with a write/re-parse round trip)
 * and the arrival log that generates CCFB.
 *
 * The first byte picks the mode: even → the rest is one CCFB packet; odd →
 * the rest is a script of arrival-log operations whose every CCFB output
 * must parse and respect its limits.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <string.h>

static void
fuzz_parse (const guint8 * data, size_t size)
{
  GError *err = NULL;
  RtpccCcfb *fb = rtpcc_ccfb_parse (data, size, &err), *again;
  RtpccCcfbBlockIn *in;
  guint8 *buf;
  gsize n;

  if (fb == NULL) {
    FUZZ_CHECK (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
    return;
  }

  /* write what we parsed, parse that: the same report */
  in = g_new0 (RtpccCcfbBlockIn, MAX (fb->n_blocks, 1));
  for (guint b = 0; b < fb->n_blocks; b++) {
    in[b].media_ssrc = fb->blocks[b].media_ssrc;
    in[b].begin_seq = fb->blocks[b].begin_seq;
    in[b].num_reports = fb->blocks[b].num_reports;
    in[b].metrics = fb->blocks[b].metrics;
    for (guint j = 0; j < fb->blocks[b].num_reports; j++) {
      const RtpccCcfbMetric *m = &fb->blocks[b].metrics[j];
      FUZZ_CHECK (m->seq == (guint16) (fb->blocks[b].begin_seq + j));
      FUZZ_CHECK (m->ecn < 4 && m->ato < 0x2000);
      FUZZ_CHECK (m->received || (m->ecn == 0 && m->ato == 0));
      if (m->received && m->ato <= RTPCC_CCFB_ATO_MAX)
        FUZZ_CHECK (rtpcc_ccfb_ato_from_delta (rtpcc_ccfb_ato_to_delta
                (m->ato)) == m->ato);
    }
  }
  n = rtpcc_ccfb_size (in, fb->n_blocks);
  FUZZ_CHECK (n > 0 && n <= size);
  buf = g_malloc (n);
  FUZZ_CHECK (rtpcc_ccfb_write (buf, n, fb->sender_ssrc,
          fb->report_timestamp, in, fb->n_blocks) == n);
  /* one byte less never fits */
  FUZZ_CHECK (rtpcc_ccfb_write (buf, n - 1, fb->sender_ssrc,
          fb->report_timestamp, in, fb->n_blocks) == 0);
  again = rtpcc_ccfb_parse (buf, n, NULL);
  FUZZ_CHECK (again != NULL);
  FUZZ_CHECK (again->sender_ssrc == fb->sender_ssrc);
  FUZZ_CHECK (again->report_timestamp == fb->report_timestamp);
  FUZZ_CHECK (again->n_blocks == fb->n_blocks);
  for (guint b = 0; b < fb->n_blocks; b++) {
    FUZZ_CHECK (again->blocks[b].media_ssrc == fb->blocks[b].media_ssrc);
    FUZZ_CHECK (again->blocks[b].begin_seq == fb->blocks[b].begin_seq);
    FUZZ_CHECK (again->blocks[b].num_reports == fb->blocks[b].num_reports);
    if (fb->blocks[b].num_reports)
      FUZZ_CHECK (memcmp (again->blocks[b].metrics, fb->blocks[b].metrics,
              fb->blocks[b].num_reports * sizeof (RtpccCcfbMetric)) == 0);
  }
  /* without padding or junk bits, the bytes themselves round-trip */
  if (!(data[0] & 0x20) && n == size) {
    gboolean junk = FALSE;
    gsize off = 8;
    for (guint b = 0; b < fb->n_blocks && !junk; b++) {
      guint num = fb->blocks[b].num_reports;
      off += 8;
      for (guint j = 0; j < num; j++)
        if (!(data[off + 2 * j] & 0x80)
            && (data[off + 2 * j] || data[off + 2 * j + 1]))
          junk = TRUE;
      /* the padding word of an odd count is written as zero */
      if ((num & 1) && (data[off + 2 * num] || data[off + 2 * num + 1]))
        junk = TRUE;
      off += 2 * (num + (num & 1));
    }
    if (!junk)
      FUZZ_CHECK (memcmp (buf, data, n) == 0);
  }
  rtpcc_ccfb_free (again);
  g_free (buf);
  g_free (in);
  rtpcc_ccfb_free (fb);
}

/* Script: 4-byte ops. op & 3: 0–2 add a packet to SSRC (op >> 2) & 3 with
 * seq += (int8) b1 (so runs, gaps, reordering and duplicates all happen),
 * arrival += b2 × 100 µs, ECN b3 & 3; 3 with b1 = 0 forget that SSRC,
 * else write a CCFB into b1 × 8 bytes with max_reports b2, after b3 ms. */
static void
fuzz_log (const guint8 * data, size_t size)
{
  RtpccArrivalLog *log;
  guint16 seq[4] = { 0, 1000, 65000, 30000 };
  RtpccTime now = RTPCC_SEC (1);
  guint8 buf[2048];

  if (size < 1)
    return;
  log = rtpcc_arrival_log_new (16 + data[0] * 4);
  rtpcc_arrival_log_set_redundancy (log, data[0] % 4);
  rtpcc_arrival_log_set_inactive_timeout (log, RTPCC_MSEC (data[0] * 10));

  for (size_t i = 1; i + 4 <= size; i += 4) {
    const guint8 *p = data + i;
    guint ssrc = (p[0] >> 2) & 3;

    if ((p[0] & 3) != 3) {
      guint64 hi0 = 0, hi1 = 0, n0 = 0, n1 = 0;
      gboolean known = rtpcc_arrival_log_get_highest (log, ssrc, &hi0, &n0);
      gboolean added;

      seq[ssrc] = (guint16) (seq[ssrc] + (gint8) p[1]);
      now += (RtpccTime) p[2] * RTPCC_USEC (100);
      added = rtpcc_arrival_log_add (log, ssrc, seq[ssrc], now, p[3] & 3);
      FUZZ_CHECK (rtpcc_arrival_log_get_highest (log, ssrc, &hi1, &n1));
      FUZZ_CHECK ((hi1 & 0xffff) == seq[ssrc] || (known && hi1 >= hi0));
      FUZZ_CHECK (n1 == (known ? n0 : 0) + (added ? 1 : 0) || !known);
      if (added) {
        guint64 ext;
        RtpccTime arr;
        FUZZ_CHECK (rtpcc_arrival_log_extend_seq (log, ssrc, seq[ssrc],
                &ext));
        FUZZ_CHECK (rtpcc_arrival_log_lookup (log, ssrc, ext, &arr, NULL));
        FUZZ_CHECK (arr == now);
      }
    } else if (p[1] == 0) {
      /* a BYE */
      rtpcc_arrival_log_remove_ssrc (log, ssrc);
      FUZZ_CHECK (!rtpcc_arrival_log_get_highest (log, ssrc, NULL, NULL));
    } else {
      gsize max = MIN ((gsize) p[1] * 8, sizeof (buf));
      gsize n;

      now += RTPCC_MSEC (p[3]);
      n = rtpcc_arrival_log_write_ccfb (log, now, RTPCC_SEC (3900000000),
          0xfeed, p[2], buf, max);
      FUZZ_CHECK (n <= max);
      if (n > 0) {
        RtpccCcfb *fb = rtpcc_ccfb_parse (buf, n, NULL);
        guint limit = p[2] ? p[2] : rtpcc_arrival_log_get_capacity (log);

        FUZZ_CHECK (fb != NULL);
        FUZZ_CHECK (fb->n_blocks >= 1 && fb->n_blocks <= 4);
        for (guint b = 0; b < fb->n_blocks; b++) {
          FUZZ_CHECK (fb->blocks[b].num_reports <= limit);
          for (guint j = 0; j < fb->blocks[b].num_reports; j++) {
            const RtpccCcfbMetric *m = &fb->blocks[b].metrics[j];
            /* arrivals are never after the report */
            FUZZ_CHECK (!m->received || m->ato != RTPCC_CCFB_ATO_UNAVAILABLE);
          }
        }
        rtpcc_ccfb_free (fb);
      }
    }
  }
  rtpcc_arrival_log_free (log);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size < 1)
    return 0;
  if ((data[0] & 1) == 0)
    fuzz_parse (data + 1, size - 1);
  else
    fuzz_log (data + 1, size - 1);
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  guint8 buf[512];
  gsize n;
  RtpccCcfbMetric m[3] = {
    {0, TRUE, 2, 0x40}, {0, FALSE, 0, 0}, {0, TRUE, 1, 0x1FFE},
  };
  RtpccCcfbBlockIn blocks[3] = {
    {0x22222222, 100, 3, m}, {0x33, 65535, 2, m}, {0x44, 9, 0, NULL},
  };
  static const guint8 script[] = {
    0x01, 0x20,
    0x00, 0x01, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x03, 0x00, 0x02, 0x0a, 0x00,
    0x04, 0x05, 0x01, 0x00, 0x00, 0xff, 0x01, 0x00, 0x03, 0xc8, 0x00, 0x05,
    0x00, 0x01, 0x0a, 0x00, 0x00, 0x00, 0x0a, 0x03, 0x03, 0x10, 0x04, 0x10,
    0x08, 0x80, 0x02, 0x01, 0x03, 0xc8, 0x00, 0xff,
  };

  buf[0] = 0;
  n = rtpcc_ccfb_write (buf + 1, sizeof (buf) - 1, 0x11111111, 0x12345678,
      blocks, 3);
  g_ptr_array_add (seeds, g_bytes_new (buf, n + 1));
  n = rtpcc_ccfb_write (buf + 1, sizeof (buf) - 1, 1, 2, blocks, 1);
  g_ptr_array_add (seeds, g_bytes_new (buf, n + 1));
  /* the same, padded with 8 bytes */
  buf[1] |= 0x20;
  buf[4] += 2;
  memset (buf + 1 + n, 0, 8);
  buf[n + 8] = 8;
  g_ptr_array_add (seeds, g_bytes_new (buf, n + 9));
  g_ptr_array_add (seeds, g_bytes_new_static (script, sizeof (script)));
}

/* Fuzz target: the REMB parser (draft-alvestrand-rmcat-remb-03) and the
 * NADU APP parser (3GPP TS 26.234), with write/re-parse round trips.
 *
 * The whole input goes to both parsers (it is one of them at most).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/feedback/remb.h>
#include <rtpcc/feedback/nadu.h>
#include <string.h>

static void
check_remb (const guint8 * data, size_t size)
{
  GError *err = NULL;
  RtpccRemb r, again;
  guint8 buf[12 + 8 + 4 * RTPCC_REMB_MAX_SSRCS];
  gsize n;

  if (!rtpcc_remb_parse (data, size, &r, &err)) {
    FUZZ_CHECK (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
    return;
  }
  FUZZ_CHECK (r.n_ssrcs <= RTPCC_REMB_MAX_SSRCS);
  n = rtpcc_remb_write (buf, sizeof (buf), r.sender_ssrc, r.bitrate, r.ssrcs,
      r.n_ssrcs);
  FUZZ_CHECK (n == rtpcc_remb_size (r.n_ssrcs) && n <= size);
  /* a parsed rate is exactly representable, so it survives unchanged */
  FUZZ_CHECK (rtpcc_remb_parse (buf, n, &again, NULL));
  FUZZ_CHECK (again.sender_ssrc == r.sender_ssrc);
  FUZZ_CHECK (again.bitrate == r.bitrate && again.n_ssrcs == r.n_ssrcs);
  FUZZ_CHECK (memcmp (again.ssrcs, r.ssrcs, 4 * r.n_ssrcs) == 0);
  for (guint i = 0; i < r.n_ssrcs; i++)
    FUZZ_CHECK (rtpcc_remb_names (&r, r.ssrcs[i]));
}

static void
check_nadu (const guint8 * data, size_t size)
{
  GError *err = NULL;
  RtpccNadu *nadu = rtpcc_nadu_parse (data, size, &err), *again;
  guint8 *buf;
  gsize n;

  if (nadu == NULL) {
    FUZZ_CHECK (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
    return;
  }
  FUZZ_CHECK (nadu->n_blocks >= 1);
  n = rtpcc_nadu_size (nadu->n_blocks);
  FUZZ_CHECK (n > 0 && n <= size);
  buf = g_malloc (n);
  FUZZ_CHECK (rtpcc_nadu_write (buf, n, nadu->sender_ssrc, nadu->blocks,
          nadu->n_blocks) == n);
  /* unpadded, it comes back byte for byte but for the reserved bits */
  if (!(data[0] & 0x20)) {
    FUZZ_CHECK (n == size);
    for (gsize i = 0; i < n; i++) {
      gsize at = i < 12 ? 0 : (i - 12) % 12;

      if (i >= 12 && at == 8)
        FUZZ_CHECK (buf[i] == 0);
      else if (i >= 12 && at == 9)
        FUZZ_CHECK (buf[i] == (data[i] & 0x1F));
      else
        FUZZ_CHECK (buf[i] == data[i]);
    }
  }
  again = rtpcc_nadu_parse (buf, n, NULL);
  FUZZ_CHECK (again != NULL && again->n_blocks == nadu->n_blocks);
  for (guint i = 0; i < nadu->n_blocks; i++) {
    FUZZ_CHECK (again->blocks[i].ssrc == nadu->blocks[i].ssrc);
    FUZZ_CHECK (again->blocks[i].playout_delay ==
        nadu->blocks[i].playout_delay);
    FUZZ_CHECK (again->blocks[i].nsn == nadu->blocks[i].nsn);
    FUZZ_CHECK (again->blocks[i].nun == nadu->blocks[i].nun);
    FUZZ_CHECK (again->blocks[i].fbs == nadu->blocks[i].fbs);
  }
  rtpcc_nadu_free (again);
  g_free (buf);
  rtpcc_nadu_free (nadu);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  check_remb (data, size);
  check_nadu (data, size);
  {
    /* as a compound, the way the sender looks for its block */
    RtpccNaduBlock b;
    guint64 rejected = 0;
    if (rtpcc_nadu_find (data, size, 0x55667788, &b, &rejected))
      FUZZ_CHECK (b.ssrc == 0x55667788 && b.nun <= 31);
  }
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  static const guint32 ssrcs[] = { 0x55667788, 0x99AABBCC, 0x1 };
  static const RtpccNaduBlock blocks[] = {
    {0x55667788, 500, 1000, 3, 20}, {0x99AABBCC, 0xFFFF, 7, 0, 65535},
  };
  guint8 buf[128];
  gsize n;

  n = rtpcc_remb_write (buf, sizeof (buf), 0x11223344, 1000000, ssrcs, 2);
  FUZZ_CHECK (n == 28);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
  n = rtpcc_remb_write (buf, sizeof (buf), 0x11223344, G_MAXUINT64, ssrcs, 3);
  FUZZ_CHECK (n == 32);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
  n = rtpcc_nadu_write (buf, sizeof (buf), 0x11223344, blocks, 2);
  FUZZ_CHECK (n == 36);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
}

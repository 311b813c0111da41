/* Fuzz target: the loss-repair feedback parsers — RFC 4585 Generic NACK,
 * PLI and RFC 5104 FIR — with write/re-parse round trips, and the NACK
 * FCI packer on arbitrary loss lists.
 *
 * The whole input goes to all three parsers (one is a NACK, PLI or FIR at
 * most); then its 16-bit words are a loss list for
 * rtpcc_nack_fci_from_seqs, whose FCIs must name exactly those seqs.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/feedback/nack.h>
#include <rtpcc/feedback/psfb.h>
#include <string.h>

static void
check_nack (const guint8 * data, size_t size)
{
  GError *err = NULL;
  RtpccNack *nack = rtpcc_nack_parse (data, size, &err), *again;
  guint8 *buf;
  gsize n;

  if (nack == NULL) {
    FUZZ_CHECK (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
    return;
  }
  FUZZ_CHECK (nack->n_fci >= 1);
  FUZZ_CHECK (12 + 4 * (gsize) nack->n_fci <= size);
  /* written again (no padding): the same packet, byte for byte, when the
   * input had none */
  n = rtpcc_nack_size (nack->n_fci);
  buf = g_malloc (n);
  FUZZ_CHECK (rtpcc_nack_write (buf, n, nack->sender_ssrc, nack->media_ssrc,
          nack->fci, nack->n_fci) == n);
  if (!(data[0] & 0x20))
    FUZZ_CHECK (n == size && memcmp (buf, data, n) == 0);
  again = rtpcc_nack_parse (buf, n, NULL);
  FUZZ_CHECK (again != NULL && again->n_fci == nack->n_fci);
  FUZZ_CHECK (memcmp (again->fci, nack->fci,
          nack->n_fci * sizeof (RtpccNackFci)) == 0);
  rtpcc_nack_free (again);
  g_free (buf);
  rtpcc_nack_free (nack);
}

static void
check_psfb (const guint8 * data, size_t size)
{
  guint32 sender = 0, media = 0;
  RtpccFir *fir;

  if (rtpcc_pli_parse (data, size, &sender, &media, NULL)) {
    guint8 buf[RTPCC_PLI_SIZE];

    FUZZ_CHECK (size == RTPCC_PLI_SIZE);
    FUZZ_CHECK (rtpcc_pli_write (buf, sizeof (buf), sender, media) ==
        RTPCC_PLI_SIZE);
    FUZZ_CHECK (memcmp (buf, data, RTPCC_PLI_SIZE) == 0);
  }
  fir = rtpcc_fir_parse (data, size, NULL);
  if (fir) {
    gsize n = rtpcc_fir_size (fir->n_entries);
    guint8 *buf = g_malloc (n);
    RtpccFir *again;

    FUZZ_CHECK (fir->n_entries >= 1 && n <= size);
    FUZZ_CHECK (rtpcc_fir_write (buf, n, fir->sender_ssrc, fir->entries,
            fir->n_entries) == n);
    again = rtpcc_fir_parse (buf, n, NULL);
    FUZZ_CHECK (again != NULL && again->n_entries == fir->n_entries);
    for (guint i = 0; i < fir->n_entries; i++) {
      FUZZ_CHECK (again->entries[i].ssrc == fir->entries[i].ssrc);
      FUZZ_CHECK (again->entries[i].seq == fir->entries[i].seq);
    }
    rtpcc_fir_free (again);
    g_free (buf);
    rtpcc_fir_free (fir);
  }
}

/* The FCIs of a loss list name exactly its distinct seqs, once each. */
static void
check_pack (const guint8 * data, size_t size)
{
  guint n = (guint) (size / 2), n_fci, named = 0, distinct = 0;
  guint16 *seqs;
  RtpccNackFci *fci;
  guint8 *want, *got;

  if (n == 0)
    return;
  seqs = g_new (guint16, n);
  fci = g_new (RtpccNackFci, n);
  want = g_malloc0 (65536);
  got = g_malloc0 (65536);
  for (guint i = 0; i < n; i++) {
    seqs[i] = (guint16) ((data[2 * i] << 8) | data[2 * i + 1]);
    if (!want[seqs[i]])
      distinct++;
    want[seqs[i]] = 1;
  }
  n_fci = rtpcc_nack_fci_from_seqs (seqs, n, fci);
  FUZZ_CHECK (n_fci >= 1 && n_fci <= distinct);
  for (guint i = 0; i < n_fci; i++) {
    guint16 s[17];
    guint k = rtpcc_nack_fci_seqs (fci[i], s);

    for (guint j = 0; j < k; j++) {
      FUZZ_CHECK (want[s[j]] && !got[s[j]]);
      got[s[j]] = 1;
      named++;
    }
  }
  FUZZ_CHECK (named == distinct);
  g_free (seqs);
  g_free (fci);
  g_free (want);
  g_free (got);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  check_nack (data, size);
  check_psfb (data, size);
  check_pack (data, size);
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  static const guint16 lost[] = { 100, 101, 103, 116, 117, 200, 65535, 0 };
  static const RtpccFirEntry entries[] = { {0x55667788, 7}, {0x9, 255} };
  guint8 buf[256];
  gsize n;

  n = rtpcc_nack_write_seqs (buf, sizeof (buf), 0x11223344, 0x55667788,
      lost, G_N_ELEMENTS (lost));
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
  /* the same with four bytes of RTCP padding */
  buf[0] |= 0x20;
  buf[3]++;
  memset (buf + n, 0, 3);
  buf[n + 3] = 4;
  g_ptr_array_add (seeds, g_bytes_new (buf, n + 4));
  n = rtpcc_pli_write (buf, sizeof (buf), 0x11223344, 0x55667788);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
  n = rtpcc_fir_write (buf, sizeof (buf), 0x11223344, entries, 2);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
}

/* Fuzz target: RFC 5104 TMMBR / TMMBN parsers with write/re-parse round
 * trips, the bounding set of the tuples found, and the media sender's
 * state driven by them.
 *
 * The whole input goes to both parsers (one is a TMMBR or a TMMBN at
 * most). Then its 12-byte records are requests to a media sender's
 * state: requester pick (1 byte), the requested stream (1 byte: ours or
 * not), exponent (1), mantissa (3, 17 bits used), overhead (2, 9 bits
 * used), a removal flag (1), unused (3).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/feedback/tmmbr.h>
#include <string.h>

#define MEDIA 0x55667788

static gboolean
same_entry (const RtpccTmmbrEntry * a, const RtpccTmmbrEntry * b)
{
  return a->ssrc == b->ssrc && a->bitrate == b->bitrate
      && a->overhead == b->overhead;
}

/* The set's envelope is that of all tuples wherever it is positive, up to
 * one bit/s of rounding in rtpcc_tmmbr_net_limit. */
static void
check_bounding_set (const RtpccTmmbrEntry * in, guint n)
{
  RtpccTmmbrEntry *out = g_new (RtpccTmmbrEntry, MAX (n, 1));
  guint k = rtpcc_tmmbr_bounding_set (in, n, out);

  FUZZ_CHECK ((n == 0) == (k == 0) && k <= n);
  for (guint j = 0; j < k; j++) {
    gboolean found = FALSE;

    for (guint i = 0; i < n && !found; i++)
      found = same_entry (&out[j], &in[i]);
    FUZZ_CHECK (found);
    if (j > 0)
      FUZZ_CHECK (out[j].overhead > out[j - 1].overhead
          && out[j].bitrate > out[j - 1].bitrate);
  }
  for (gdouble pr = 0; pr < 1e7; pr = pr * 1.7 + 1) {
    guint64 all = rtpcc_tmmbr_net_limit (in, n, pr);
    guint64 set = rtpcc_tmmbr_net_limit (out, k, pr);

    FUZZ_CHECK (set >= all);
    if (all > 1)
      FUZZ_CHECK (set - all <= 1);
  }
  g_free (out);
}

static void
check_parse (const guint8 * data, size_t size, gboolean tmmbn)
{
  GError *err = NULL;
  RtpccTmmb *t = tmmbn ? rtpcc_tmmbn_parse (data, size, &err) :
      rtpcc_tmmbr_parse (data, size, &err), *again;
  guint8 *buf;
  gsize n;

  if (t == NULL) {
    FUZZ_CHECK (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
    return;
  }
  FUZZ_CHECK (tmmbn || t->n_entries >= 1);
  n = tmmbn ? rtpcc_tmmbn_size (t->n_entries) :
      rtpcc_tmmbr_size (t->n_entries);
  FUZZ_CHECK (n > 0 && n <= size);
  buf = g_malloc (n);
  FUZZ_CHECK ((tmmbn ? rtpcc_tmmbn_write (buf, n, t->sender_ssrc,
              t->entries, t->n_entries) : rtpcc_tmmbr_write (buf, n,
              t->sender_ssrc, t->entries, t->n_entries)) == n);
  /* every parsed bit rate is exactly representable; the encoding is the
   * shortest, so the bytes may differ from the input's, never the values */
  again = tmmbn ? rtpcc_tmmbn_parse (buf, n, NULL) :
      rtpcc_tmmbr_parse (buf, n, NULL);
  FUZZ_CHECK (again != NULL && again->n_entries == t->n_entries);
  FUZZ_CHECK (again->sender_ssrc == t->sender_ssrc);
  for (guint i = 0; i < t->n_entries; i++)
    FUZZ_CHECK (same_entry (&again->entries[i], &t->entries[i]));
  rtpcc_tmmb_free (again);
  g_free (buf);
  check_bounding_set (t->entries, t->n_entries);
  rtpcc_tmmb_free (t);
}

static void
check_state (const guint8 * data, size_t size)
{
  RtpccTmmbrState s;
  guint8 buf[1024];

  rtpcc_tmmbr_state_init (&s, MEDIA);
  for (size_t off = 0; off + 12 <= size; off += 12) {
    const guint8 *r = data + off;
    guint32 requester = 0x1000 + r[0] % 40;     /* more than fit */
    RtpccTmmbrEntry e = {
      (r[1] & 1) ? MEDIA : 0x1234,
      (guint64) (((r[3] << 16) | (r[4] << 8) | r[5]) & 0x1FFFF)
          << (r[2] % 48),
      (guint16) (((r[6] << 8) | r[7]) & 0x1FF),
    };
    guint64 lowest = G_MAXUINT64;
    gsize n;
    RtpccTmmb *t;

    if (r[8] & 1) {
      rtpcc_tmmbr_state_remove (&s, requester);
    } else {
      n = rtpcc_tmmbr_write (buf, sizeof (buf), requester, &e, 1);
      FUZZ_CHECK (n == 20);
      t = rtpcc_tmmbr_parse (buf, n, NULL);
      FUZZ_CHECK (t != NULL);
      FUZZ_CHECK (rtpcc_tmmbr_state_on_tmmbr (&s, t) == (e.ssrc == MEDIA));
      rtpcc_tmmb_free (t);
    }
    FUZZ_CHECK (s.n <= RTPCC_TMMBR_MAX_REQUESTERS);
    FUZZ_CHECK ((s.n == 0) == (s.n_set == 0));
    for (guint i = 0; i < s.n; i++) {
      for (guint j = i + 1; j < s.n; j++)
        FUZZ_CHECK (s.requests[i].ssrc != s.requests[j].ssrc);
      lowest = MIN (lowest, s.requests[i].bitrate);
    }
    FUZZ_CHECK (rtpcc_tmmbr_state_limit (&s) == lowest);
    FUZZ_CHECK (rtpcc_tmmbr_state_apply (&s, 12345) == MIN (lowest, 12345));
    /* the TMMBN answer carries exactly the set */
    n = rtpcc_tmmbr_state_write_tmmbn (&s, buf, sizeof (buf), MEDIA);
    FUZZ_CHECK (n == rtpcc_tmmbn_size (s.n_set));
    t = rtpcc_tmmbn_parse (buf, n, NULL);
    FUZZ_CHECK (t != NULL && t->n_entries == s.n_set);
    for (guint i = 0; i < s.n_set; i++)
      FUZZ_CHECK (same_entry (&t->entries[i], &s.set[i]));
    rtpcc_tmmb_free (t);
    /* a member of the set asking for the same again changes nothing */
    if (s.n_set > 0)
      FUZZ_CHECK (!rtpcc_tmmbr_would_change (s.set, s.n_set, &s.set[0]));
  }
  check_bounding_set (s.requests, s.n);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  check_parse (data, size, FALSE);
  check_parse (data, size, TRUE);
  check_state (data, size);
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  static const RtpccTmmbrEntry entries[] = {
    {0x55667788, 3200000, 40}, {0x11223344, 900000, 60},
    {0x99AABBCC, 1000000, 80}, {0x1, 3000000, 300}, {0x2, 0, 511},
  };
  static const guint8 script[] = {
    0, 1, 3, 0x01, 0xB7, 0x74, 0, 60, 0, 0, 0, 0,
    1, 1, 3, 0x01, 0xE8, 0x48, 0, 80, 0, 0, 0, 0,
    2, 1, 5, 0x01, 0x86, 0xA0, 0, 40, 0, 0, 0, 0,
    0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
  };
  guint8 buf[128];
  gsize n;

  n = rtpcc_tmmbr_write (buf, sizeof (buf), 0x11223344, entries, 1);
  FUZZ_CHECK (n == 20);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
  n = rtpcc_tmmbr_write (buf, sizeof (buf), 0x11223344, entries, 5);
  FUZZ_CHECK (n == 52);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
  n = rtpcc_tmmbn_write (buf, sizeof (buf), 0x55667788, entries + 1, 3);
  FUZZ_CHECK (n == 36);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
  n = rtpcc_tmmbn_write (buf, sizeof (buf), 0x55667788, NULL, 0);
  FUZZ_CHECK (n == 12);
  g_ptr_array_add (seeds, g_bytes_new (buf, n));
  g_ptr_array_add (seeds, g_bytes_new (script, sizeof (script)));
}

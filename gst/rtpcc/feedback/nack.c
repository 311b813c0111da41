/* RFC 4585 Generic NACK: build and parse.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "nack.h"
#include "rtcp.h"
#include "fbheader.h"

#include <stdlib.h>
#include <string.h>

gsize
rtpcc_nack_size (guint n_fci)
{
  if (n_fci == 0 || n_fci > RTPCC_NACK_MAX_FCI)
    return 0;
  return RTPCC_NACK_HEADER_SIZE + (gsize) n_fci * 4;
}

gsize
rtpcc_nack_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc, const RtpccNackFci * fci, guint n_fci)
{
  gsize len = rtpcc_nack_size (n_fci);

  if (buf == NULL || fci == NULL || len == 0 || len > max)
    return 0;
  rtpcc_fb_write_header (buf, len, RTPCC_RTCP_RTPFB, RTPCC_NACK_FMT,
      sender_ssrc, media_ssrc);
  for (guint i = 0; i < n_fci; i++) {
    rtpcc_wr16 (buf + RTPCC_NACK_HEADER_SIZE + 4 * i, fci[i].pid);
    rtpcc_wr16 (buf + RTPCC_NACK_HEADER_SIZE + 4 * i + 2, fci[i].blp);
  }
  return len;
}

RtpccNack *
rtpcc_nack_parse (const guint8 * pkt, gsize len, GError ** error)
{
  RtpccNack *nack;
  gsize fci_len;
  guint n;

  if (!rtpcc_fb_check_header (pkt, len, RTPCC_RTCP_RTPFB, RTPCC_NACK_FMT,
          "NACK", &fci_len, error))
    return NULL;
  /* the padding is whole words, so the FCI is too */
  n = (guint) (fci_len / 4);
  if (n == 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "NACK: no FCI (RFC 4585 §6.2.1 requires at least one)");
    return NULL;
  }

  nack = g_malloc (sizeof (RtpccNack) + n * sizeof (RtpccNackFci));
  nack->sender_ssrc = rtpcc_rd32 (pkt + 4);
  nack->media_ssrc = rtpcc_rd32 (pkt + 8);
  nack->n_fci = n;
  nack->fci = (RtpccNackFci *) (nack + 1);
  for (guint i = 0; i < n; i++) {
    nack->fci[i].pid = rtpcc_rd16 (pkt + RTPCC_NACK_HEADER_SIZE + 4 * i);
    nack->fci[i].blp = rtpcc_rd16 (pkt + RTPCC_NACK_HEADER_SIZE + 4 * i + 2);
  }
  return nack;
}

void
rtpcc_nack_free (RtpccNack * nack)
{
  g_free (nack);
}

guint
rtpcc_nack_fci_seqs (RtpccNackFci fci, guint16 seqs[17])
{
  guint n = 0;

  seqs[n++] = fci.pid;
  for (guint i = 1; i <= 16; i++)
    if (fci.blp & (1u << (i - 1)))
      seqs[n++] = (guint16) (fci.pid + i);
  return n;
}

static int
cmp_u16 (const void *a, const void *b)
{
  return (int) *(const guint16 *) a - (int) *(const guint16 *) b;
}

guint
rtpcc_nack_fci_from_seqs (const guint16 * seqs, guint n_seqs,
    RtpccNackFci * fci)
{
  guint16 *s;
  guint n = 0, start = 0, n_fci = 0;
  guint32 widest = 0;

  if (n_seqs == 0 || seqs == NULL || fci == NULL)
    return 0;

  s = g_memdup2 (seqs, n_seqs * sizeof (guint16));
  qsort (s, n_seqs, sizeof (guint16), cmp_u16);
  for (guint i = 0; i < n_seqs; i++)
    if (n == 0 || s[i] != s[n - 1])
      s[n++] = s[i];

  /* start after the widest gap between circular neighbours, so that a
   * list across the wrap (65534, 65535, 0, 1) stays one run */
  for (guint i = 0; i < n; i++) {
    /* distinct values: every gap is 1..65535; a lone seq starts itself */
    guint32 gap = n == 1 ? 65536 : (guint16) (s[(i + 1) % n] - s[i]);

    if (gap > widest) {
      widest = gap;
      start = (i + 1) % n;
    }
  }

  for (guint k = 0; k < n; k++) {
    guint16 v = s[(start + k) % n];
    guint16 d;

    if (n_fci > 0) {
      d = (guint16) (v - fci[n_fci - 1].pid);
      if (d >= 1 && d <= 16) {
        fci[n_fci - 1].blp |= (guint16) (1u << (d - 1));
        continue;
      }
    }
    fci[n_fci].pid = v;
    fci[n_fci].blp = 0;
    n_fci++;
  }
  g_free (s);
  return n_fci;
}

gsize
rtpcc_nack_write_seqs (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc, const guint16 * seqs, guint n_seqs)
{
  RtpccNackFci *fci;
  guint n;
  gsize len;

  if (n_seqs == 0 || seqs == NULL)
    return 0;
  fci = g_new (RtpccNackFci, n_seqs);
  n = rtpcc_nack_fci_from_seqs (seqs, n_seqs, fci);
  len = rtpcc_nack_write (buf, max, sender_ssrc, media_ssrc, fci, n);
  g_free (fci);
  return len;
}

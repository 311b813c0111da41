/* Reed-Solomon codec over ISA-L, with per-(k, m) tables cached (rs.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "rs.h"

#include <string.h>
#include <isa-l/erasure_code.h>

static void
code_init (RtpccFecRsCode * code, guint k, guint m, gboolean tables)
{
  code->k = k;
  code->m = m;
  /* Cauchy so that every k x k submatrix is invertible (MDS) */
  gf_gen_cauchy1_matrix (code->matrix, (int) (k + m), (int) k);
  code->enc_tables = NULL;
  if (tables) {
    code->enc_tables = g_malloc (32 * k * m);
    ec_init_tables ((int) k, (int) m, code->matrix + k * k, code->enc_tables);
  }
}

static void
code_free (RtpccFecRsCode * code)
{
  if (code == NULL)
    return;
  g_free (code->enc_tables);
  g_free (code);
}

void
rtpcc_fec_rs_cache_clear (RtpccFecRsCache * cache)
{
  for (guint i = 0; i < RTPCC_FEC_RS_CACHE_SIZE; i++)
    g_clear_pointer (&cache->codes[i], code_free);
}

const RtpccFecRsCode *
rtpcc_fec_rs_cache_get (RtpccFecRsCache * cache, guint k, guint m)
{
  RtpccFecRsCode *code = NULL;
  guint i;

  for (i = 0; i < RTPCC_FEC_RS_CACHE_SIZE; i++) {
    RtpccFecRsCode *c = cache->codes[i];

    if (c && c->k == k && c->m == m) {
      code = c;
      break;
    }
  }
  if (code == NULL) {
    /* the least recently used goes */
    i = RTPCC_FEC_RS_CACHE_SIZE - 1;
    code_free (cache->codes[i]);
    code = g_new (RtpccFecRsCode, 1);
    code_init (code, k, m, TRUE);
  }
  memmove (&cache->codes[1], &cache->codes[0], i * sizeof (cache->codes[0]));
  cache->codes[0] = code;
  return code;
}

void
rtpcc_fec_rs_code_encode (const RtpccFecRsCode * code, gsize len,
    guint8 * const *data, guint8 ** parity)
{
  ec_encode_data ((int) len, (int) code->k, (int) code->m, code->enc_tables,
      (guint8 **) data, parity);
}

gboolean
rtpcc_fec_rs_code_decode (const RtpccFecRsCode * code, gsize len,
    guint8 ** data, const gboolean * present, guint8 * const *parity)
{
  guint8 b[RTPCC_FEC_MAX_SPAN * RTPCC_FEC_MAX_SPAN];
  guint8 inv[RTPCC_FEC_MAX_SPAN * RTPCC_FEC_MAX_SPAN];
  guint8 c[RTPCC_FEC_MAX_SPAN * RTPCC_FEC_MAX_SPAN];
  guint8 *src[RTPCC_FEC_MAX_SPAN], *dst[RTPCC_FEC_MAX_SPAN];
  guint k = code->k, m = code->m, rows = 0, nmiss = 0;
  guint8 *tbl;

  /* choose k surviving rows: data first (identity rows), then parity */
  for (guint i = 0; i < k && rows < k; i++) {
    if (!present[i])
      continue;
    memcpy (b + rows * k, code->matrix + i * k, k);
    src[rows++] = data[i];
  }
  for (guint j = 0; j < m && rows < k; j++) {
    if (parity[j] == NULL)
      continue;
    memcpy (b + rows * k, code->matrix + (k + j) * k, k);
    src[rows++] = parity[j];
  }
  if (rows < k)
    return FALSE;
  if (gf_invert_matrix (b, inv, (int) k) < 0)
    return FALSE;               /* cannot happen for a Cauchy matrix */
  for (guint i = 0; i < k; i++) {
    if (present[i])
      continue;
    /* row i of the inverse maps the chosen symbols back to data row i */
    memcpy (c + nmiss * k, inv + i * k, k);
    dst[nmiss++] = data[i];
  }
  if (nmiss == 0)
    return TRUE;
  tbl = g_malloc (32 * k * nmiss);
  ec_init_tables ((int) k, (int) nmiss, c, tbl);
  ec_encode_data ((int) len, (int) k, (int) nmiss, tbl, src, dst);
  g_free (tbl);
  return TRUE;
}

/* ---- the public pure functions (fec.h): a code built per call ---------- */

void
rtpcc_fec_rs_encode (guint k, guint m, gsize len, guint8 * const *data,
    guint8 ** parity)
{
  RtpccFecRsCode code;

  g_return_if_fail (k >= 1 && k <= RTPCC_FEC_MAX_SPAN && m >= 1
      && m <= RTPCC_FEC_MAX_PARITY);
  code_init (&code, k, m, TRUE);
  rtpcc_fec_rs_code_encode (&code, len, data, parity);
  g_free (code.enc_tables);
}

gboolean
rtpcc_fec_rs_decode (guint k, guint m, gsize len, guint8 ** data,
    const gboolean * present, guint8 * const *parity)
{
  RtpccFecRsCode code;

  g_return_val_if_fail (k >= 1 && k <= RTPCC_FEC_MAX_SPAN && m >= 1
      && m <= RTPCC_FEC_MAX_PARITY, FALSE);
  code_init (&code, k, m, FALSE);
  return rtpcc_fec_rs_code_decode (&code, len, data, present, parity);
}

/* Reed-Solomon over GF(2^8) with ISA-L (a systematic Cauchy code, see
 * fec.h), with what does not depend on the data kept per (k, m): the
 * generator matrix and the encode tables. Building those (matrix, then
 * ec_init_tables' 32·k·m bytes) cost more than coding a block of short
 * packets, and an encoder or decoder sees a handful of (k, m) only.
 *
 * Library-internal (not installed).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEC_RS_H__
#define __RTPCC_FEC_RS_H__

#include "fec.h"

G_BEGIN_DECLS

typedef struct
{
  guint k, m;
  /* (k + m) x k: identity, then the m parity rows */
  guint8 matrix[(RTPCC_FEC_MAX_SPAN + RTPCC_FEC_MAX_PARITY) *
      RTPCC_FEC_MAX_SPAN];
  guint8 *enc_tables;           /* ec_init_tables of the parity rows */
} RtpccFecRsCode;

#define RTPCC_FEC_RS_CACHE_SIZE 4

/* The codes last used, most recent first (zero-initialised = empty). */
typedef struct
{
  RtpccFecRsCode *codes[RTPCC_FEC_RS_CACHE_SIZE];
} RtpccFecRsCache;

void rtpcc_fec_rs_cache_clear (RtpccFecRsCache * cache);
/* The code for (@k, @m), 1 <= k <= 48, 1 <= m <= 16. */
const RtpccFecRsCode *rtpcc_fec_rs_cache_get (RtpccFecRsCache * cache,
    guint k, guint m);

void rtpcc_fec_rs_code_encode (const RtpccFecRsCode * code, gsize len,
    guint8 * const *data, guint8 ** parity);
/* As rtpcc_fec_rs_decode (fec.h) with the code's k and m. */
gboolean rtpcc_fec_rs_code_decode (const RtpccFecRsCode * code, gsize len,
    guint8 ** data, const gboolean * present, guint8 * const *parity);

G_END_DECLS

#endif /* __RTPCC_FEC_RS_H__ */

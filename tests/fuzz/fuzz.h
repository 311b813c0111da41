/* Shared declarations of the fuzz targets and their replay driver.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FUZZ_H__
#define __RTPCC_FUZZ_H__

#include <rtpcc/rtpcc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The libFuzzer entry point every target defines. */
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Valid inputs for the target (GBytes), for the replay driver to run and
 * mutate: fuzzing from well-formed packets reaches the deep paths that
 * random bytes rarely do. */
void rtpcc_fuzz_seeds (GPtrArray * seeds);

/* An invariant of the code under test broke: report and crash, so that
 * both libFuzzer and the replay test flag it. */
#define FUZZ_CHECK(cond)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf (stderr, "%s:%d: invariant failed: %s\n", __FILE__,         \
          __LINE__, #cond);                                               \
      abort ();                                                           \
    }                                                                     \
  } while (0)

/* The targets that read a stream of packets cut the input into records:
 * a flags byte, a 2-byte big-endian length (cut to what is left), the
 * bytes. The next record from *@at (advanced): FALSE when none is left. */
static inline gboolean
rtpcc_fuzz_next_record (const uint8_t * data, size_t size, size_t * at,
    guint8 * flags, const guint8 ** bytes, size_t * len)
{
  size_t i = *at;

  if (i + 3 > size)
    return FALSE;
  *flags = data[i];
  *len = MIN ((size_t) ((data[i + 1] << 8) | data[i + 2]), size - i - 3);
  *bytes = data + i + 3;
  *at = i + 3 + *len;
  return TRUE;
}

/* A seed's record, for rtpcc_fuzz_next_record. */
static inline void
rtpcc_fuzz_add_record (GByteArray * a, guint8 flags, const guint8 * d,
    gsize len)
{
  guint8 h[3] = { flags, (guint8) (len >> 8), (guint8) len };

  g_byte_array_append (a, h, 3);
  g_byte_array_append (a, d, (guint) len);
}

/* The 12-byte fixed RTP header of a seed packet (V=2, @b0's low bits:
 * P, X, CC). */
static inline void
rtpcc_fuzz_rtp_header (guint8 * p, guint8 b0, guint8 pt, guint16 seq,
    guint32 ts, guint32 ssrc)
{
  p[0] = (guint8) (0x80 | (b0 & 0x3f));
  p[1] = pt;
  p[2] = (guint8) (seq >> 8);
  p[3] = (guint8) seq;
  p[4] = (guint8) (ts >> 24);
  p[5] = (guint8) (ts >> 16);
  p[6] = (guint8) (ts >> 8);
  p[7] = (guint8) ts;
  p[8] = (guint8) (ssrc >> 24);
  p[9] = (guint8) (ssrc >> 16);
  p[10] = (guint8) (ssrc >> 8);
  p[11] = (guint8) ssrc;
}

#endif

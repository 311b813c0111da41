/* Fuzz target: fecdec's chain path, rtpcc_fec_decoder_push (which tells
 * FEC from media by payload type and reads every header) and
 * rtpcc_fec_decoder_pop_tagged, on a stream of packets cut from the input.
 *
 * Input: a configuration byte (bit 0: ULPFEC mode; bits 1-7: the FEC
 * payload type's offset from 96, and the deadline), then records: a flags
 * byte (bits 0-5: time step in ms; bit 6: pop after it; bit 7: pop with
 * an infinite time, as at EOS), a 2-byte length, the bytes.
 *
 * Checks: whatever comes out is valid RTP; an original comes out with the
 * tag it went in with (each packet is tagged with its record number), a
 * rebuilt one with tag 0; pushed + passed count what came out of pop; a
 * FEC verdict only for the FEC payload type.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/fec/fec.h>
#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtpccFecDecoderConfig cfg;
  RtpccFecDecoder *dec;
  RtpccFecDecoderStats st;
  RtpccTime now = 0;
  guint64 popped = 0, passed = 0, records = 0;
  GHashTable *queued = g_hash_table_new (g_direct_hash, g_direct_equal);
  size_t i = 1, len;
  const guint8 *pkt;
  guint8 flags;
  GBytes *out;

  if (size < 1) {
    g_hash_table_unref (queued);
    return 0;
  }
  rtpcc_fec_decoder_config_init (&cfg);
  cfg.ulpfec = data[0] & 1;
  cfg.fec_pt = (guint8) (96 + ((data[0] >> 1) & 31));
  cfg.deadline = RTPCC_MSEC (10 * (data[0] >> 6));
  dec = rtpcc_fec_decoder_new (&cfg);
  while (rtpcc_fuzz_next_record (data, size, &i, &flags, &pkt, &len)) {
    RtpccFecInput r;
    guint64 tag = ++records;

    now += RTPCC_MSEC (flags & 63);
    r = rtpcc_fec_decoder_push (dec, pkt, len, now, tag);
    if (r == RTPCC_FEC_INPUT_FEC || r == RTPCC_FEC_INPUT_FEC_CORRUPT)
      FUZZ_CHECK (len >= 12 && (pkt[1] & 0x7f) == cfg.fec_pt);
    if (r == RTPCC_FEC_INPUT_NOT_RTP)
      FUZZ_CHECK (len < 12);
    if (r == RTPCC_FEC_INPUT_PASS)
      passed++;
    if (r == RTPCC_FEC_INPUT_QUEUED)
      g_hash_table_add (queued, GSIZE_TO_POINTER ((gsize) tag));
    if (flags & 0xc0) {
      RtpccTime t = (flags & 0x80) ? RTPCC_TIME_INFINITE : now;
      gboolean rec;

      while ((out = rtpcc_fec_decoder_pop_tagged (dec, t, &rec, &tag))) {
        gsize l;
        const guint8 *d = g_bytes_get_data (out, &l);

        FUZZ_CHECK (rtpcc_fec_rtp_valid (d, l));
        if (rec)
          FUZZ_CHECK (tag == 0);
        else                    /* each original comes out once */
          FUZZ_CHECK (g_hash_table_remove (queued,
                  GSIZE_TO_POINTER ((gsize) tag)));
        popped++;
        g_bytes_unref (out);
      }
    }
  }
  while ((out = rtpcc_fec_decoder_pop (dec, RTPCC_TIME_INFINITE, NULL))) {
    popped++;
    g_bytes_unref (out);
  }
  rtpcc_fec_decoder_get_stats (dec, &st);
  /* out of pop(): the stream, and other SSRCs' packets held back */
  FUZZ_CHECK (st.pushed + st.passed == popped + passed);
  FUZZ_CHECK (st.recovered <= st.pushed);
  /* with every hole final and every probation settled, nothing is left */
  FUZZ_CHECK (rtpcc_fec_decoder_pop (dec, RTPCC_TIME_INFINITE, NULL) == NULL);
  rtpcc_fec_decoder_free (dec);
  g_hash_table_unref (queued);
  return 0;
}

static void
rtp (guint8 * p, guint32 ssrc, guint16 seq, guint32 ts, gsize len)
{
  memset (p + 12, (int) (seq * 13), len - 12);
  rtpcc_fuzz_rtp_header (p, 0, 96, seq, ts, ssrc);
}

/* A protected stream with a loss, then (per @twist) a stray SSRC first, a
 * sender restart, a bogus sequence jump, a restart at a lower sequence. */
static GBytes *
stream (RtpccFecScheme scheme, guint twist)
{
  RtpccFecEncoderConfig cfg;
  RtpccFecEncoder *enc;
  GByteArray *a = g_byte_array_new ();
  /* FEC pt 122, deadline 10 ms */
  guint8 cfgbyte = (guint8) (((122 - 96) << 1) | 0x40);
  GBytes *f;

  g_byte_array_append (a, &cfgbyte, 1);
  rtpcc_fec_encoder_config_init (&cfg);
  cfg.scheme = scheme;
  cfg.n = 3;
  cfg.k = 4;
  cfg.m = 2;
  cfg.depth = 2;
  cfg.max_block_time = 0;
  enc = rtpcc_fec_encoder_new (&cfg, NULL);
  if (twist == 1) {
    guint8 p[30];

    rtp (p, 0x99, 7, 0, sizeof (p));
    rtpcc_fuzz_add_record (a, 0x41, p, sizeof (p));
  }
  for (guint i = 0; i < 12; i++) {
    guint8 p[40];
    guint32 ssrc = twist == 2 && i >= 6 ? 0x0b0b0b0b : 0x01020304;
    guint16 seq = (guint16) (65530 + i);

    if (twist == 4 && i >= 6)
      seq = (guint16) (30000 + i);
    rtp (p, ssrc, seq, 3000 * i, sizeof (p) - i);
    rtpcc_fec_encoder_push (enc, p, sizeof (p) - i, RTPCC_MSEC (i));
    if (i != 1)
      rtpcc_fuzz_add_record (a, 0x41, p, sizeof (p) - i);
    if (twist == 3 && i == 4) {
      p[2] ^= 0x40;
      rtpcc_fuzz_add_record (a, 0x41, p, sizeof (p) - i);
    }
    while ((f = rtpcc_fec_encoder_pop (enc)) != NULL) {
      gsize len;
      const guint8 *d = g_bytes_get_data (f, &len);

      rtpcc_fuzz_add_record (a, 0x41, d, len);
      g_bytes_unref (f);
    }
  }
  rtpcc_fec_encoder_free (enc);
  return g_byte_array_free_to_bytes (a);
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  static const RtpccFecScheme schemes[] = { RTPCC_FEC_SCHEME_XOR,
    RTPCC_FEC_SCHEME_RS, RTPCC_FEC_SCHEME_XOR_2D
  };

  for (guint s = 0; s < G_N_ELEMENTS (schemes); s++)
    for (guint twist = 0; twist < 5; twist++)
      g_ptr_array_add (seeds, stream (schemes[s], twist));
}

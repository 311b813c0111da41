/* A fixed packet stream through the FEC decoder, for counting its
 * instructions per packet with callgrind (tests/fec/callgrind-fecdec):
 *
 *   fec-cost SCHEME LOSS [PACKETS]     SCHEME: xor | rs | xor-2d
 *
 * A video-like media stream (300..1200-byte packets, one every ms) is
 * encoded (xor n=5, rs k=10 m=2, xor-2d 6x4), every wire packet (media and
 * FEC) is lost with probability LOSS (seeded Bernoulli), the rest goes
 * through rtpcc_fec_decoder_push_media / _push_fec / _pop with the default
 * decoder configuration. Prints the received media packets (the divisor)
 * and what the decoder recovered.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/fec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtp-header.h"

int
main (int argc, char **argv)
{
  RtpccFecEncoderConfig ecfg;
  RtpccFecDecoderConfig dcfg;
  RtpccFecEncoder *enc;
  RtpccFecDecoder *dec;
  RtpccFecDecoderStats st;
  RtpccRng rng, lrng;
  guint n = 20000, received = 0;
  gdouble loss;
  GBytes *b;

  if (argc < 3) {
    fprintf (stderr, "usage: %s xor|rs|xor-2d LOSS [PACKETS]\n", argv[0]);
    return 2;
  }
  rtpcc_fec_encoder_config_init (&ecfg);
  if (strcmp (argv[1], "rs") == 0)
    ecfg.scheme = RTPCC_FEC_SCHEME_RS;
  else if (strcmp (argv[1], "xor-2d") == 0) {
    ecfg.scheme = RTPCC_FEC_SCHEME_XOR_2D;
    ecfg.n = 6;
  } else if (strcmp (argv[1], "xor") != 0) {
    fprintf (stderr, "unknown scheme %s\n", argv[1]);
    return 2;
  }
  ecfg.max_block_time = 0;
  loss = g_ascii_strtod (argv[2], NULL);
  if (argc > 3)
    n = (guint) atoi (argv[3]);

  enc = rtpcc_fec_encoder_new (&ecfg, NULL);
  rtpcc_fec_decoder_config_init (&dcfg);
  dec = rtpcc_fec_decoder_new (&dcfg);
  rtpcc_rng_init (&rng, 1);
  rtpcc_rng_init (&lrng, 2);
  for (guint i = 0; i < n; i++) {
    RtpccTime now = RTPCC_MSEC (i);
    gsize len = 300 + rtpcc_rng_below (&rng, 901);
    guint8 p[1200];
    guint32 ts = (i / 3) * 3000;

    bench_rtp_header (p, i % 3 == 2, (guint16) i, ts, 0x12345678);
    for (gsize k = 12; k < len; k++)
      p[k] = (guint8) (i * 7 + k);
    rtpcc_fec_encoder_push (enc, p, len, now);
    if (!rtpcc_rng_bernoulli (&lrng, loss)) {
      rtpcc_fec_decoder_push_media (dec, p, len, now);
      received++;
    }
    while ((b = rtpcc_fec_encoder_pop (enc)) != NULL) {
      const guint8 *f = g_bytes_get_data (b, &len);

      if (!rtpcc_rng_bernoulli (&lrng, loss))
        rtpcc_fec_decoder_push_fec (dec, f, len, now);
      g_bytes_unref (b);
    }
    while ((b = rtpcc_fec_decoder_pop (dec, now, NULL)) != NULL)
      g_bytes_unref (b);
  }
  while ((b = rtpcc_fec_decoder_pop (dec, RTPCC_TIME_INFINITE, NULL)) != NULL)
    g_bytes_unref (b);
  rtpcc_fec_decoder_get_stats (dec, &st);
  printf ("received %u recovered %" G_GUINT64_FORMAT " unrecoverable %"
      G_GUINT64_FORMAT " late-recovered %" G_GUINT64_FORMAT "\n", received,
      st.recovered, st.unrecoverable, st.late_recovered);
  rtpcc_fec_decoder_free (dec);
  rtpcc_fec_encoder_free (enc);
  return 0;
}

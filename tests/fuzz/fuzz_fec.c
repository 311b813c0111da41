/* Fuzz target: the FEC packet parsers (our format and RFC 5109 ULPFEC),
 * bit-string rebuild, the sender's byte path for a packet (parse,
 * renumbering, TWCC stamp, FEC header rewrite), and a decoder in both
 * modes driven by a stream of media / FEC packets cut from the input.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/fec/fec.h>
#include <rtpcc/sender.h>
#include <rtpcc/feedback/rtpext.h>
#include <string.h>

static void
check_parse (const uint8_t * data, size_t size)
{
  RtpccFecPacket f;
  guint16 seqs[RTPCC_FEC_MAX_SPAN];

  if (rtpcc_fec_packet_parse (data, size, &f, NULL)) {
    FUZZ_CHECK (f.k >= 1 && f.k <= RTPCC_FEC_MAX_SPAN);
    FUZZ_CHECK (f.index < f.m && f.m <= RTPCC_FEC_MAX_PARITY);
    FUZZ_CHECK (rtpcc_fec_mask_seqs (f.mask, f.base, seqs) == f.k);
    FUZZ_CHECK (f.parity_len >= 8 && f.parity_len + 12 + RTPCC_FEC_HEADER_LEN
        <= size);
    /* whatever the parity says, a rebuild is valid RTP or refused */
    {
      GBytes *b = rtpcc_fec_rebuild (f.parity, f.parity_len, 1, 2);

      if (b) {
        gsize len;
        const guint8 *d = g_bytes_get_data (b, &len);

        FUZZ_CHECK (rtpcc_fec_rtp_valid (d, len));
        FUZZ_CHECK (len <= f.parity_len + 4);
        g_bytes_unref (b);
      }
    }
    rtpcc_fec_packet_clear (&f);
  }
  if (rtpcc_fec_packet_parse_ulpfec (data, size, &f, NULL)) {
    FUZZ_CHECK (f.k >= 1 && f.m == 1);
    FUZZ_CHECK (f.parity_len >= 8 && f.parity_len <= size);
    rtpcc_fec_packet_clear (&f);
  }
}

/* The sender's byte path (what rtpccsink calls): a sender in TWCC mode
 * whose media SSRC 0x01020304 (the seeds') padding renumbered, by a
 * growing offset, over original seqs 0..63, with fecenc's PT. */
static void
fuzz_ctl_init (RtpccController * cc, RtpccTime now)
{
  rtpcc_controller_update_target (cc, 2000000, 1000000, 1.0, "probe", "fuzz");
}

static const RtpccControllerOps fuzz_ctl_ops = {
  .name = "fuzz-probe",
  .description = "asks for probe bytes from the start",
  .instance_size = sizeof (RtpccController),
  .init = fuzz_ctl_init,
};

static RtpccTime fuzz_now;

static RtpccSender *
renumbered_sender (void)
{
  static RtpccSender *s;
  RtpccSenderConfig cfg;
  RtpccRtpInfo info = { 0, };

  if (s)
    return s;
  rtpcc_controller_register (&fuzz_ctl_ops);
  rtpcc_sender_config_init (&cfg);
  cfg.controller = "fuzz-probe";
  cfg.cc.max_bitrate = 4000000;
  cfg.feedback = RTPCC_FEEDBACK_TWCC;
  cfg.probe_ssrc_mode = RTPCC_PROBE_SSRC_MEDIA;
  cfg.circuit_breaker = FALSE;
  cfg.pacing = FALSE;
  cfg.fec_pt = RTPCC_FEC_DEFAULT_PT;
  cfg.seed = 1;
  s = rtpcc_sender_new (&cfg, 0, NULL);
  FUZZ_CHECK (s != NULL);
  rtpcc_sender_set_free_func (s, g_free);
  info.ssrc = 0x01020304;
  info.pt = 96;
  info.size = 40;
  for (guint i = 0; i < 64; i++) {
    fuzz_now = RTPCC_MSEC (10) * i;
    info.seq = (guint16) i;
    info.marker = i % 2 == 1;
    info.rtp_ts = 3000 * (i / 2);
    rtpcc_sender_enqueue (s, fuzz_now, &info, NULL);
    while (rtpcc_sender_dequeue (s, fuzz_now, NULL));
    while (rtpcc_sender_dequeue_probe (s, fuzz_now, NULL));
  }
  FUZZ_CHECK (rtpcc_sender_get_stats (s, fuzz_now)->probe_media_packets > 0);
  return s;
}

/* Whatever the bytes: invalid RTP is refused and counted; anything queued
 * goes out as the header the sender wrote plus the rest of the input from
 * tail_offset, and that datagram is the input with the transport-wide seq
 * added, its seq renumbered and, for our FEC, SN base and mask rewritten —
 * nothing else: the same payload and parity, as many protected packets. */
static void
check_sender (const uint8_t * data, size_t size)
{
  RtpccSender *s = renumbered_sender ();
  const RtpccSenderStats *st = rtpcc_sender_get_stats (s, fuzz_now);
  guint64 invalid = st->invalid_rtp, drops = st->fec_rewrite_drops;
  guint8 *copy = g_memdup2 (data, size ? size : 1);
  RtpccSenderEnqueueResult r;
  RtpccWirePacket w;
  RtpccRtpLayout in, out;
  guint8 *wire, *back;
  gsize n, hdr;
  RtpccFecPacket a, b;

  fuzz_now += RTPCC_MSEC (10);
  r = rtpcc_sender_enqueue_rtp (s, fuzz_now, copy, size, size, copy);
  st = rtpcc_sender_get_stats (s, fuzz_now);
  FUZZ_CHECK ((r == RTPCC_SENDER_INVALID) == (st->invalid_rtp == invalid + 1));
  FUZZ_CHECK ((r == RTPCC_SENDER_FEC_DROPPED) ==
      (st->fec_rewrite_drops == drops + 1));
  FUZZ_CHECK ((r == RTPCC_SENDER_INVALID) == !rtpcc_rtp_parse_layout (data,
          size, &in));
  if (r != RTPCC_SENDER_QUEUED)
    return;
  copy = rtpcc_sender_dequeue (s, fuzz_now, &w);
  FUZZ_CHECK (copy != NULL && w.tail_offset <= size);
  FUZZ_CHECK (w.size == w.head_len + size - w.tail_offset);
  wire = g_malloc (w.size);
  memcpy (wire, w.head, w.head_len);
  memcpy (wire + w.head_len, copy + w.tail_offset, size - w.tail_offset);
  FUZZ_CHECK (rtpcc_rtp_parse_layout (wire, w.size, &out));
  FUZZ_CHECK (out.ssrc == in.ssrc && out.pt == in.pt
      && out.timestamp == in.timestamp && out.marker == in.marker
      && out.seq == w.info.seq && out.padding_len == in.padding_len);
  if (w.info.has_twcc) {
    guint16 tseq;
    FUZZ_CHECK (rtpcc_rtp_read_twcc_seq (wire, w.size, 1, &tseq)
        && tseq == w.info.twcc_seq);
  } else
    FUZZ_CHECK (rtpcc_sender_get_stats (s, fuzz_now)->twcc_stamp_errors > 0);
  /* the payload (with the FEC header, and padding) is the input's */
  hdr = in.header_len;
  FUZZ_CHECK (w.size - out.header_len == size - hdr);
  back = wire + out.header_len;
  if (rtpcc_fec_packet_parse (data, size, &a, NULL) && in.pt ==
      RTPCC_FEC_DEFAULT_PT) {
    FUZZ_CHECK (rtpcc_fec_packet_parse (wire, w.size, &b, NULL));
    FUZZ_CHECK (a.k == b.k && a.ssrc == b.ssrc && a.scheme == b.scheme);
    FUZZ_CHECK (a.parity_len == b.parity_len
        && memcmp (a.parity, b.parity, a.parity_len) == 0);
    FUZZ_CHECK (memcmp (back, data + hdr, 8) == 0);
    rtpcc_fec_packet_clear (&a);
    rtpcc_fec_packet_clear (&b);
    n = RTPCC_FEC_HEADER_LEN;
  } else
    n = 0;
  FUZZ_CHECK (memcmp (back + n, data + hdr + n, size - hdr - n) == 0);
  g_free (wire);
  g_free (copy);
}

/* Input = records: flags byte (bit 0: FEC, bit 1: pop, bits 2-7: time
 * step ms), 2-byte length, bytes. */
static void
drive_decoder (const uint8_t * data, size_t size, gboolean ulpfec)
{
  RtpccFecDecoderConfig cfg;
  RtpccFecDecoder *dec;
  RtpccFecDecoderStats st;
  RtpccTime now = 0;
  GBytes *out;
  size_t i = 0, len;
  const guint8 *pkt;
  guint8 flags;
  guint64 popped = 0, passed = 0;

  rtpcc_fec_decoder_config_init (&cfg);
  cfg.ulpfec = ulpfec;
  cfg.deadline = RTPCC_MSEC (20);
  dec = rtpcc_fec_decoder_new (&cfg);
  while (rtpcc_fuzz_next_record (data, size, &i, &flags, &pkt, &len)) {
    now += RTPCC_MSEC (flags >> 2);
    if (flags & 1)
      rtpcc_fec_decoder_push_fec (dec, pkt, len, now);
    else if (rtpcc_fec_decoder_push_media (dec, pkt, len, now) ==
        RTPCC_FEC_MEDIA_PASS)
      passed++;
    if (flags & 2) {
      while ((out = rtpcc_fec_decoder_pop (dec, now, NULL)) != NULL) {
        gsize l;
        const guint8 *d = g_bytes_get_data (out, &l);

        FUZZ_CHECK (rtpcc_fec_rtp_valid (d, l));
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
  rtpcc_fec_decoder_free (dec);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  check_parse (data, size);
  check_sender (data, size);
  drive_decoder (data, size, FALSE);
  drive_decoder (data, size, TRUE);
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  static const RtpccFecScheme schemes[] = { RTPCC_FEC_SCHEME_XOR,
    RTPCC_FEC_SCHEME_RS, RTPCC_FEC_SCHEME_XOR_2D
  };

  /* RFC 5109: RTP header, FEC header (SN base 5, length recovery 8), ULP
   * level 0 (protection length 8, mask: base and base + 1), payload */
  static const guint8 ulp[12 + 14 + 8] = { 0x80, 122, 0, 9, 0, 0, 0, 1,
    1, 2, 3, 4, 0x00, 96, 0, 5, 0, 0, 0, 1, 0, 8, 0, 8, 0xc0, 0,
    1, 2, 3, 4, 5, 6, 7, 8
  };

  g_ptr_array_add (seeds, g_bytes_new_static (ulp, sizeof (ulp)));
  for (guint s = 0; s < G_N_ELEMENTS (schemes); s++) {
    RtpccFecEncoderConfig cfg;
    RtpccFecEncoder *enc;
    GByteArray *stream = g_byte_array_new ();
    GBytes *fec;
    gboolean first = TRUE;

    rtpcc_fec_encoder_config_init (&cfg);
    cfg.scheme = schemes[s];
    cfg.n = 3;
    cfg.depth = 2;
    cfg.k = 4;
    cfg.m = 2;
    enc = rtpcc_fec_encoder_new (&cfg, NULL);
    for (guint i = 0; i < 8; i++) {
      guint8 pkt[40] = { 0x80, 96, 0, (guint8) i, 0, 0, 0, (guint8) i,
        1, 2, 3, 4
      };

      memset (pkt + 12, (int) (i * 17), sizeof (pkt) - 12 - i);
      rtpcc_fec_encoder_push (enc, pkt, sizeof (pkt) - i, RTPCC_MSEC (i));
      /* lose packet 1 */
      if (i != 1)
        rtpcc_fuzz_add_record (stream, (guint8) (2 | 4), pkt, sizeof (pkt) - i);
      while ((fec = rtpcc_fec_encoder_pop (enc)) != NULL) {
        gsize len;
        const guint8 *d = g_bytes_get_data (fec, &len);

        if (first)
          g_ptr_array_add (seeds, g_bytes_new (d, len));
        first = FALSE;
        rtpcc_fuzz_add_record (stream, 3, d, len);
        g_bytes_unref (fec);
      }
    }
    g_ptr_array_add (seeds, g_byte_array_free_to_bytes (stream));
    rtpcc_fec_encoder_free (enc);
  }
}

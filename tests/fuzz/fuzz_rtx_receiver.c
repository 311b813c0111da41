/* Fuzz target: RtpccRtxReceiver (rtxreceiver.h) as rtpccsrc runs it with
 * repair=nack, an RTX payload type, an H.264 codec (key frames read in
 * the payload) and a FEC payload type (FEC packets read for the planner):
 * every datagram goes to on_rtp, and the feedback due is built between
 * them. Invariants: a restored packet fits the output and is shorter than
 * the RTX packet by the OSN and the RTX packet's own padding (RFC 4588:
 * padding belongs to the retransmission, not to the original); the feedback is well-formed RTCP; the
 * planner's next timeout moves on once what was due is built (unless the
 * NACK list was full); every RTX packet is counted once.
 *
 * Input: records (fuzz.h): the datagram is the bytes, after flags ms.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <string.h>

#define MEDIA_SSRC 0x11223344u
#define RTX_SSRC 0x52545831u
#define RTX_PT 97
#define FEC_PT 122

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtpccRtxReceiverConfig rc;
  RtpccRtxReceiver *r;
  RtpccRtxReceiverStats st;
  RtpccTime now = RTPCC_SEC (1);
  size_t at = 0;
  guint8 flags, out[2048], fb[1500];
  const guint8 *d;
  size_t len;

  rtpcc_rtx_receiver_config_init (&rc);
  rc.nack = TRUE;
  rc.keyframe = RTPCC_KEYFRAME_REQUEST_FIR;
  rc.rtx_pt = RTX_PT;
  rc.codec = RTPCC_SENDBUF_CODEC_H264;
  rc.fec_pt = FEC_PT;
  r = rtpcc_rtx_receiver_new (&rc, NULL);
  FUZZ_CHECK (r != NULL);
  while (rtpcc_fuzz_next_record (data, size, &at, &flags, &d, &len)) {
    gsize out_len = 0, n;

    now += RTPCC_MSEC (flags);
    if (rtpcc_rtx_receiver_on_rtp (r, now, d, len, len, out, sizeof out,
            &out_len) == RTPCC_RTX_RECEIVER_RESTORED) {
      size_t pad = (d[0] & 0x20) ? d[len - 1] : 0;

      FUZZ_CHECK (out_len + 2 + pad == len && out_len <= sizeof out);
      FUZZ_CHECK ((out[0] & 0x20) == 0);
    }
    if (rtpcc_rtx_receiver_next_timeout (r) <= now) {
      RtpccRtxReceiverStats before;

      rtpcc_rtx_receiver_get_stats (r, &before);
      n = rtpcc_rtx_receiver_build (r, now, 0x0BADCAFEu, fb, sizeof fb);
      rtpcc_rtx_receiver_get_stats (r, &st);
      if (n > 0) {
        RtpccRtcpIter it;
        RtpccRtcpPacket pkt;
        FUZZ_CHECK (n <= sizeof fb);
        FUZZ_CHECK (rtpcc_rtcp_iter_init (&it, fb, n));
        while (rtpcc_rtcp_iter_next (&it, &pkt));
      }
      /* unless a full NACK list left the rest due at once */
      if (st.repair.nacked - before.repair.nacked < RTPCC_REPAIR_MAX_NACK)
        FUZZ_CHECK (rtpcc_rtx_receiver_next_timeout (r) > now);
    }
  }
  rtpcc_rtx_receiver_get_stats (r, &st);
  FUZZ_CHECK (st.rtx_recovered + st.rtx_duplicate + st.rtx_late +
      st.rtx_invalid == st.rtx_received);
  rtpcc_rtx_receiver_free (r);
  return 0;
}

/* Media packets 0..29 (3 a frame, an IDR in frame 5 as a FU-A start, the
 * rest non-IDR slices), XOR FEC over every 3 from the library's encoder,
 * seqs 7, 10 and 11 lost, then RTX for 10 and 11. */
void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  GByteArray *a = g_byte_array_new (), *later = g_byte_array_new ();
  RtpccFecEncoderConfig fc;
  RtpccFecEncoder *enc;
  guint8 pkt[256], rtx[258];
  GBytes *fec;

  rtpcc_fec_encoder_config_init (&fc);
  fc.n = 3;
  fc.ssrc = 0xFEC0FEC0u;
  fc.pt = FEC_PT;
  enc = rtpcc_fec_encoder_new (&fc, NULL);
  for (guint i = 0; i < 30; i++) {
    gsize n = 12 + 40;

    rtpcc_fuzz_rtp_header (pkt, 0, 96, (guint16) i, 3000 * (i / 3),
        MEDIA_SSRC);
    if (i % 3 == 2)
      pkt[1] |= 0x80;
    memset (pkt + 12, (guint8) i, 40);
    pkt[12] = i / 3 == 5 ? 0x7c : 0x41;
    pkt[13] = i / 3 == 5 ? (i % 3 == 0 ? 0x85 : 0x05) : 0x9a;
    rtpcc_fec_encoder_push (enc, pkt, n, 0);
    if (i != 7 && i != 10 && i != 11)
      rtpcc_fuzz_add_record (a, 5, pkt, n);
    while ((fec = rtpcc_fec_encoder_pop (enc)) != NULL) {
      gsize flen;
      const guint8 *fd = g_bytes_get_data (fec, &flen);
      rtpcc_fuzz_add_record (a, 0, fd, flen);
      g_bytes_unref (fec);
    }
    if (i == 10 || i == 11) {
      gsize m = rtpcc_rtx_build (pkt, n, RTX_SSRC, RTX_PT, (guint16) i, rtx,
          sizeof rtx);
      if (m > 0)
        rtpcc_fuzz_add_record (later, 20, rtx, m);
    }
  }
  /* the retransmissions come after the losses are seen */
  g_byte_array_append (a, later->data, later->len);
  g_byte_array_free (later, TRUE);
  rtpcc_fec_encoder_free (enc);
  g_ptr_array_add (seeds, g_byte_array_free_to_bytes (a));
}

/* Fuzz target: what rtpccsrc does with each datagram it reads (its
 * handle_datagram, with the library calls it makes): RTCP goes to the
 * receiver with the address it came from (on_rtcp_from: only from the
 * peer), anything else must parse as RTP and is logged with its address
 * (on_rtp_from: the peer's probation and moves), and a packet that is
 * passed on loses the header extension block if that holds only the
 * transport-wide seq (rtpcc_rtp_strip_extension). Feedback is built
 * between datagrams, as the element's loop does.
 *
 * Input: a byte picking the feedback mode, then records (fuzz.h): the
 * datagram is the bytes, from address flags & 3 (of four), after
 * (flags >> 2) ms.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <string.h>

#define TWCC_ID 1

static void
datagram (RtpccReceiver * r, RtpccTime now, const guint8 * d, size_t len,
    const RtpccAddress * from, gboolean twcc)
{
  RtpccRtpInfo info;
  RtpccReceiverVerdict v;

  if (rtpcc_rtcp_is_rtcp (d, len)) {
    (void) rtpcc_receiver_on_rtcp_from (r, now, d, len, from);
    return;
  }
  if (!rtpcc_rtp_parse (d, len, len, TWCC_ID, &info, NULL))
    return;
  v = rtpcc_receiver_on_rtp_from (r, now, &info, from);
  if (v == RTPCC_RECEIVER_PASS && info.has_twcc && twcc) {
    guint8 *out = g_malloc (MAX (len, 1));
    gsize n = rtpcc_rtp_strip_extension (d, len, TWCC_ID, out, len);
    RtpccRtpLayout l;

    /* what is passed on is RTP without an extension, and shorter */
    if (n > 0) {
      FUZZ_CHECK (n < len);
      FUZZ_CHECK (rtpcc_rtp_parse_layout (out, n, &l) && !l.has_extension);
    }
    g_free (out);
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  RtpccAddress from[4];
  RtpccTime now = RTPCC_SEC (1);
  size_t at = 1;
  guint8 flags, fb[1500];
  const guint8 *d;
  size_t len;

  if (size < 1)
    return 0;
  for (guint i = 0; i < 4; i++) {
    guint8 a[6] = { 127, 0, 0, 1, 0x13, (guint8) (0x88 + i) };
    rtpcc_address_set (&from[i], a, sizeof (a));
  }
  rtpcc_receiver_config_init (&rc);
  rc.feedback = (RtpccFeedbackMode) (data[0] % 3);
  rc.seed = 3;
  r = rtpcc_receiver_new (&rc, now);
  while (rtpcc_fuzz_next_record (data, size, &at, &flags, &d, &len)) {
    gsize n;

    now += RTPCC_MSEC (flags >> 2);
    datagram (r, now, d, len, &from[flags & 3],
        rc.feedback == RTPCC_FEEDBACK_TWCC);
    n = rtpcc_receiver_build_feedback (r, now, fb, sizeof (fb));
    if (n > 0) {
      RtpccRtcpIter it;
      FUZZ_CHECK (n <= sizeof (fb));
      FUZZ_CHECK (rtpcc_rtcp_iter_init (&it, fb, n));
    }
  }
  rtpcc_receiver_free (r);
  return 0;
}

/* A stream of @n packets of one SSRC from address 0 (with the TWCC
 * extension in TWCC mode), an SR, then the same SSRC continuing from
 * address 1 (a NAT rebinding) and a stranger on address 2. */
static GBytes *
seed (guint8 mode)
{
  GByteArray *a = g_byte_array_new ();
  guint8 pkt[64];

  g_byte_array_append (a, &mode, 1);
  for (guint i = 0; i < 24; i++) {
    guint8 addr = i < 16 ? 0 : i < 20 ? 1 : 2;
    guint32 ssrc = addr == 2 ? 0x99999999u : 0x11223344u;
    gsize n = 12;

    rtpcc_fuzz_rtp_header (pkt, 0, 96, (guint16) (100 + i), 3000 * i, ssrc);
    if (mode == RTPCC_FEEDBACK_TWCC) {
      static const guint8 ext[8] = { 0xbe, 0xde, 0, 1, TWCC_ID << 4 | 1 };
      pkt[0] |= 0x10;
      memcpy (pkt + 12, ext, sizeof (ext));
      pkt[17] = (guint8) i;
      n += sizeof (ext);
    }
    memset (pkt + n, 0xab, 20);
    n += 20;
    rtpcc_fuzz_add_record (a, (guint8) (addr | 10 << 2), pkt, n);
    if (i == 8) {
      RtpccRtcpSR sr;
      guint8 buf[64];
      gsize m;

      memset (&sr, 0, sizeof (sr));
      sr.ssrc = 0x11223344u;
      sr.ntp = G_GUINT64_CONSTANT (0xe000000000000000);
      m = rtpcc_rtcp_write_sr (buf, sizeof (buf), &sr);
      rtpcc_fuzz_add_record (a, 0, buf, m);
    }
  }
  return g_byte_array_free_to_bytes (a);
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  for (guint8 mode = 0; mode < 3; mode++)
    g_ptr_array_add (seeds, seed (mode));
}

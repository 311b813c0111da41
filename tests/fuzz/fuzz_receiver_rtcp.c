/* Fuzz target: RTCP and RTP into a receiver (rtpcc_receiver_on_rtcp,
 * rtpcc_receiver_on_rtp), whose feedback goes to a sender with a
 * controller behind it that is sending it media (fuzzcall.h).
 *
 * Input: a byte picking the controller, a byte picking the feedback mode,
 * then records (fuzz.h):
 *   & 3 == 0   the bytes arrive at the receiver as RTCP (from the sender)
 *   & 3 == 1   the bytes arrive at the receiver as an RTP packet
 *   & 3 == 2   time passes (the first two bytes, in 100 µs) and the
 *              sender queues a packet (a frame ends with flags & 4)
 *   & 3 == 3   the first byte, of what was sent, reaches the receiver,
 *              which answers with the feedback it builds
 * The seeds are calls with the sender's own SRs and its media as records.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzzcall.h"

static void
step (Call * c, guint8 flags, const guint8 * d, size_t len)
{
  switch (flags & 3) {
    case 0:
      (void) rtpcc_receiver_on_rtcp (c->r, c->now, d, len);
      break;
    case 1:{
      RtpccRtpInfo info;
      if (rtpcc_rtp_parse (d, len, len, 1, &info, NULL))
        (void) rtpcc_receiver_on_rtp (c->r, c->now, &info);
      break;
    }
    case 2:
      call_advance (c, RTPCC_USEC (100) * MAX (record_u16 (d, len), 1));
      call_media (c, 1000, flags & 4);
      break;
    default:
      call_deliver (c, len ? d[0] : G_MAXUINT);
      break;
  }
  call_check (c);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  call_run (data, size, step);
  return 0;
}

/* A call of @frames frames: the sender's SRs as RTCP records, its packets
 * as RTP records (a few as deliveries instead), time between frames. */
static GBytes *
seed_call (guint8 which, guint8 mode, guint frames)
{
  Call c;
  GByteArray *a = g_byte_array_new ();
  guint8 dt[2] = { 330 >> 8, 330 & 0xff }, sr[512];

  g_byte_array_append (a, (guint8[2]) {
      which, mode}, 2);
  call_init (&c, which, mode);
  for (guint f = 0; f < frames; f++) {
    gsize n;
    guint8 fl = f % 3 == 2 ? 6 : 2;

    rtpcc_fuzz_add_record (a, fl, dt, 2);
    step (&c, fl, dt, 2);
    /* the packets it sent, as the receiver would read them */
    for (guint i = 0; i < c.sent->len; i++) {
      RtpccRtpInfo *info = &g_array_index (c.sent, RtpccRtpInfo, i);
      guint8 pkt[64];
      gsize hl = rtpcc_rtp_write_header (info, pkt, sizeof (pkt));
      if (hl > 0)
        rtpcc_fuzz_add_record (a, 1, pkt, hl);
    }
    g_array_set_size (c.sent, 0);
    n = rtpcc_sender_build_rtcp (c.s, c.now + RTPCC_SEC (2), sr,
        sizeof (sr));
    if (n > 0)
      rtpcc_fuzz_add_record (a, 0, sr, n);
  }
  call_clear (&c);
  return g_byte_array_free_to_bytes (a);
}

static GBytes *
seed (guint8 which, guint8 mode)
{
  return seed_call (which, mode, 20);
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  call_seeds (seeds, seed);
}

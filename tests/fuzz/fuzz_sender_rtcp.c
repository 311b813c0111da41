/* Fuzz target: RTCP into a sender with a controller behind it
 * (rtpcc_sender_receive_rtcp: the feedback adapter, its plausibility
 * checks, the delivery rate, the controller, the target ceiling), while
 * it sends media.
 *
 * Input: a byte picking the controller, a byte picking the feedback mode
 * (and, when mode / 3 is odd, a receiver sending every RTCP XR block),
 * then records (fuzz.h) whose flags say what happens:
 *   & 3 == 0   the bytes arrive as an RTCP datagram from the peer
 *   & 3 == 1   a media packet is queued, its payload as long as the
 *              first two bytes say (at most 1200; a frame ends with
 *              flags & 4), and everything due is sent
 *   & 3 == 2   time passes: the first two bytes, in 100 µs; timers run
 *   & 3 == 3   the first byte, of what was sent, is reported received by
 *              a receiver that answers with the feedback it builds
 * The seeds are calls whose feedback came from the library's receiver, so
 * that the fuzzer starts from reports that acknowledge what was sent.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzzcall.h"

/* One record. */
static void
step (Call * c, guint8 flags, const guint8 * d, size_t len)
{
  switch (flags & 3) {
    case 0:
      (void) rtpcc_sender_receive_rtcp (c->s, c->now, d, len);
      break;
    case 1:
      call_media (c, record_u16 (d, len), flags & 4);
      break;
    case 2:
      call_advance (c, RTPCC_USEC (100) * MAX (record_u16 (d, len), 1));
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

/* A call of @frames frames at about 0.8 Mbit/s: 3 packets every 33 ms,
 * feedback after each frame; the seed keeps everything but the
 * receiver's instructions, whose feedback it holds instead. */
static GBytes *
seed_call (guint8 which, guint8 mode, guint frames, gboolean lose)
{
  Call c;
  GByteArray *a = g_byte_array_new ();
  guint8 payload[2] = { 1100 >> 8, 1100 & 0xff };
  guint8 dt[2] = { 330 >> 8, 330 & 0xff };

  g_byte_array_append (a, (guint8[2]) {
      which, mode}, 2);
  call_init (&c, which, mode);
  c.script = a;
  for (guint f = 0; f < frames; f++) {
    for (guint p = 0; p < 3; p++) {
      guint8 fl = p == 2 ? 5 : 1;
      rtpcc_fuzz_add_record (a, fl, payload, 2);
      step (&c, fl, payload, 2);
    }
    rtpcc_fuzz_add_record (a, 2, dt, 2);
    step (&c, 2, dt, 2);
    {
      guint8 k = (guint8) MIN (c.sent->len, 255);
      /* (a loss: the oldest packet never reaches the receiver) */
      if (lose && f % 5 == 4 && c.sent->len > 0)
        g_array_remove_index (c.sent, 0);
      step (&c, 3, &k, 1);
    }
  }
  /* (the seed is only worth having if its feedback was taken) */
  FUZZ_CHECK (rtpcc_sender_get_stats (c.s, c.now)->rtcp_received > 0);
  if (mode % 3 != RTPCC_FEEDBACK_RR)
    FUZZ_CHECK (rtpcc_sender_get_stats (c.s, c.now)->reported_received > 0);
  call_clear (&c);
  return g_byte_array_free_to_bytes (a);
}

static GBytes *
seed (guint8 which, guint8 mode)
{
  return seed_call (which, mode, 24, which % 2 == 1);
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  gchar **names = rtpcc_controller_list ();
  guint n = g_strv_length (names);

  g_strfreev (names);
  call_seeds (seeds, seed);
  /* RR feedback with every XR block (Loss RLE with its losses) */
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (seeds, seed_call ((guint8) i, 3 + RTPCC_FEEDBACK_RR,
            24, TRUE));
}

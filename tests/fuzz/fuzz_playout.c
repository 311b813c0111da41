/* Fuzz target: playoutbuffer's header read and what it hands the library:
 * rtpcc_playout_read_rtp, rtpcc_playout_check_ssrc, rtpcc_playout_push /
 * _push_filler, _pop / _pop_any, on a stream of packets cut from the
 * input.
 *
 * Input: a configuration byte (bits 0-1: mode; bit 2: late-target 0, the
 * percentile estimator; bits 3-7: min-delay in 5 ms), then records: a
 * flags byte (bits 0-4: time step in ms; bits 5-6: subflow; bit 7: pop
 * what is due after it), a 2-byte length, the bytes.
 *
 * Checks: what the reader returns is what the header says; every packet
 * the playout takes (QUEUED) comes back exactly once, popped or freed
 * (refused on probation, or dropped on a reset); nothing else does.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/playout.h>
#include <string.h>

static GHashTable *owned;       /* tokens the playout holds */

static void
give_back (gpointer token)
{
  FUZZ_CHECK (g_hash_table_remove (owned, token));
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtpccPlayoutConfig cfg;
  RtpccPlayout *p;
  RtpccPlayoutStats st;
  RtpccTime now = 0;
  gsize token = 0;
  size_t i = 1, len;
  const guint8 *pkt;
  guint8 flags;
  gpointer d;

  if (size < 1)
    return 0;
  owned = g_hash_table_new (g_direct_hash, g_direct_equal);
  rtpcc_playout_config_init (&cfg);
  cfg.mode = (RtpccPlayoutMode) ((data[0] & 3) % 3);
  if (data[0] & 4)
    cfg.late_target = 0.0;
  cfg.min_delay = RTPCC_MSEC (5 * (data[0] >> 3));
  cfg.max_delay = MAX (cfg.max_delay, cfg.min_delay);
  p = rtpcc_playout_new (&cfg);
  FUZZ_CHECK (p != NULL);
  rtpcc_playout_set_free_func (p, give_back);
  while (rtpcc_fuzz_next_record (data, size, &i, &flags, &pkt, &len)) {
    RtpccPlayoutRtp rtp;
    RtpccPlayoutVerdict v;
    gpointer tok;

    now += RTPCC_MSEC (flags & 31);
    if (rtpcc_playout_read_rtp (pkt, len, &rtp)) {
      FUZZ_CHECK (len >= 12 && (pkt[0] >> 6) == 2);
      FUZZ_CHECK (rtp.seq == ((pkt[2] << 8) | pkt[3]));
      FUZZ_CHECK (rtp.ssrc == (((guint32) pkt[8] << 24) |
              ((guint32) pkt[9] << 16) | ((guint32) pkt[10] << 8) | pkt[11]));
      FUZZ_CHECK (!rtp.filler || (pkt[0] & 0x20));
      if (rtpcc_playout_check_ssrc (p, rtp.ssrc, rtp.filler,
              give_back) != RTPCC_PLAYOUT_SSRC_IGNORE) {
        tok = GSIZE_TO_POINTER (++token);
        v = rtp.filler ?
            rtpcc_playout_push_filler (p, now, (flags >> 5) & 3, rtp.seq,
            rtp.rtp_ts, tok) :
            rtpcc_playout_push (p, now, (flags >> 5) & 3, rtp.seq,
            rtp.rtp_ts, tok);
        if (v == RTPCC_PLAYOUT_QUEUED)
          g_hash_table_add (owned, tok);
      }
    }
    if (flags & 0x80) {
      RtpccTime due = rtpcc_playout_next_due (p, now);

      while ((d = rtpcc_playout_pop (p, now, NULL, NULL)) != NULL)
        give_back (d);
      /* what was not popped is not due yet */
      due = rtpcc_playout_next_due (p, now);
      FUZZ_CHECK (due == RTPCC_TIME_NONE || due > now);
    }
  }
  while ((d = rtpcc_playout_pop_any (p, NULL)) != NULL)
    give_back (d);
  rtpcc_playout_get_stats (p, &st);
  FUZZ_CHECK (st.queued == 0);
  /* a packet still on probation goes with the playout */
  rtpcc_playout_free (p, give_back);
  FUZZ_CHECK (g_hash_table_size (owned) == 0);
  g_hash_table_unref (owned);
  return 0;
}

static void
add_rtp (GByteArray * a, guint8 flags, guint32 ssrc, guint16 seq,
    guint32 ts, gboolean filler)
{
  guint8 p[32] = { 0, };
  gsize len = filler ? 16 : sizeof (p);

  rtpcc_fuzz_rtp_header (p, filler ? 0x20 : 0, 96, seq, ts, ssrc);
  if (filler)
    p[15] = 4;
  rtpcc_fuzz_add_record (a, flags, p, len);
}

/* A jittered stream on two subflows, with (per @twist) fillers, a bogus
 * sequence jump, a restart at a lower sequence, an SSRC change. */
static GBytes *
stream (guint8 cfg, guint twist)
{
  GByteArray *a = g_byte_array_new ();

  g_byte_array_append (a, &cfg, 1);
  for (guint i = 0; i < 60; i++) {
    guint16 seq = (guint16) (65500 + i);
    guint32 ssrc = 0x1234;
    guint8 flags = (guint8) (0x80 | (5 + (i * 7) % 11) | ((i & 1) << 5));

    if (twist == 2 && i >= 30)
      seq = (guint16) (30000 + i);
    if (twist == 3 && i >= 40)
      ssrc = 0x5678;
    add_rtp (a, flags, ssrc, seq, 900 * i, FALSE);
    if (twist == 1 && i % 5 == 4)
      add_rtp (a, 0x80, ssrc, (guint16) (seq + 1), 900 * i, TRUE);
    if (twist == 4 && i == 20)
      add_rtp (a, 0x81, ssrc, (guint16) (seq + 5000), 900 * i, FALSE);
  }
  return g_byte_array_free_to_bytes (a);
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  static const guint8 cfgs[] = { 0, 1, 2 | (8 << 3), 4 };

  for (guint c = 0; c < G_N_ELEMENTS (cfgs); c++)
    for (guint twist = 0; twist < 5; twist++)
      g_ptr_array_add (seeds, stream (cfgs[c], twist));
}

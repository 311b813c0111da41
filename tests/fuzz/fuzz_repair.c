/* Fuzz target: the loss-repair planner driven by an arbitrary script.
 *
 * Records of 5 bytes: op, seq offset (2 bytes, added to a running base),
 * time step (ms), argument. Ops: packets (original, RTX, FEC), a FEC
 * block, a key frame, a corruption report, RTT / playout / FEC window
 * changes, a new SSRC. After each record the planner is polled; whatever
 * the script, a poll returns at most RTPCC_REPAIR_MAX_NACK distinct seqs
 * in ascending order, the next timeout lies after the poll unless the
 * NACK list was full, and the counters stay consistent.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/repair.h>
#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtpccRepairConfig cfg;
  RtpccRepair *r;
  RtpccRepairRequest req;
  RtpccRepairStats st;
  RtpccTime now = RTPCC_SEC (1);
  guint32 ssrc = 1;
  guint16 base = 65000;

  rtpcc_repair_config_init (&cfg);
  cfg.max_missing = 300;
  /* the tail probe on for half the inputs */
  cfg.tail_probe = size > 0 && (data[size - 1] & 1);
  r = rtpcc_repair_new (&cfg, NULL);
  FUZZ_CHECK (r != NULL);
  for (size_t i = 0; i + 5 <= size; i += 5) {
    guint8 op = data[i] % 14, arg = data[i + 4];
    guint16 seq = (guint16) (base + ((data[i + 1] << 8) | data[i + 2]));
    guint32 ts = (guint32) seq / 4 * 3000;

    now += RTPCC_MSEC (data[i + 3]);
    switch (op) {
      case 0:
      case 1:
      case 2:
      case 3:
        if (op == 3 && (arg & 2))
          rtpcc_repair_on_padding (r, now, ssrc, seq, ts);
        else
          rtpcc_repair_on_packet (r, now, ssrc, seq, ts, arg & 1,
              RTPCC_REPAIR_ORIGINAL);
        /* offsets count from the next seq in order: 0 is in order, 1
         * loses one, 0xFFFF is the last one again */
        base = (guint16) (seq + 1);
        break;
      case 4:
        rtpcc_repair_on_packet (r, now, ssrc, seq, ts, FALSE,
            RTPCC_REPAIR_RTX);
        break;
      case 5:
        rtpcc_repair_on_packet (r, now, ssrc, seq, ts, FALSE,
            RTPCC_REPAIR_FEC);
        break;
      case 6:{
        guint16 seqs[16];
        guint n = 1 + arg % 16, stride = 1 + (data[i + 1] & 3);

        for (guint k = 0; k < n; k++)
          seqs[k] = (guint16) (seq + k * stride);
        /* a complete block, or one repair packet of several (2-D, RS) */
        if (data[i + 2] & 1)
          rtpcc_repair_on_fec_block (r, now, seqs, n, arg >> 4);
        else
          rtpcc_repair_on_fec_parity (r, now, seqs, n, arg >> 4,
              data[i + 2] & 2);
        break;
      }
      case 7:
        rtpcc_repair_on_keyframe (r, now, seq);
        break;
      case 8:
        rtpcc_repair_on_corrupt (r, now);
        break;
      case 9:
        rtpcc_repair_set_rtt (r, arg ? RTPCC_MSEC (arg) : RTPCC_TIME_NONE);
        break;
      case 10:
        rtpcc_repair_set_playout_delay (r, RTPCC_MSEC (arg * 2));
        break;
      case 11:
        rtpcc_repair_set_fec_window (r, RTPCC_MSEC (arg));
        break;
      case 12:
        ssrc = arg;
        break;
      default:
        break;                  /* time passes */
    }

    rtpcc_repair_poll (r, now, &req);
    FUZZ_CHECK (req.n_nack <= RTPCC_REPAIR_MAX_NACK);
    for (guint k = 1; k < req.n_nack; k++) {
      guint16 d = (guint16) (req.nack[k] - req.nack[k - 1]);
      FUZZ_CHECK (d >= 1 && d < 32768);
    }
    if (req.n_nack < RTPCC_REPAIR_MAX_NACK)
      FUZZ_CHECK (rtpcc_repair_next_timeout (r) > now);
    rtpcc_repair_get_stats (r, &st);
    FUZZ_CHECK (st.missing <= cfg.max_missing);
    FUZZ_CHECK (st.gave_up <= st.losses);
    FUZZ_CHECK (st.retries <= st.nacked);
    FUZZ_CHECK (st.keyframe_repeats <= st.keyframe_requests);
  }
  rtpcc_repair_free (r);
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  /* seqs 65000..65009 with 65003, 65004 and 65007 lost; an RTX of 65003,
   * a FEC rebuild of 65004, a FEC block over 65005..65009 that can rebuild
   * one, an RTT, a key frame, a corruption report, time passing */
  static const guint8 script[] = {
    0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 2, 1, 0,
    0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1,
    13, 0, 0, 10, 0, 4, 0xff, 0xf9, 30, 0, 5, 0xff, 0xfa, 2, 0,
    6, 0xff, 0xfb, 1, 0x14, 9, 0, 0, 1, 80, 7, 0, 0, 1, 0,
    8, 0, 0, 100, 0, 13, 0, 0, 250, 0, 13, 0, 0, 250, 0,
  };

  g_ptr_array_add (seeds, g_bytes_new_static (script, sizeof (script)));
}

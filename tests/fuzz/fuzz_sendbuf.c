/* Fuzz target: RtpccSendbuf driven by a script of operations.
 *
 * Byte 0 picks the policy, byte 1 the packet limit, byte 2 the frame limit
 * and drop_dependents; then 8-byte operations: enqueue (SSRC pick,
 * timestamp step, marker, size, priority, age, key/droppable flags),
 * dequeue, drain rate, RTT, flush, time step. Invariants: every handle is
 * released or handed out exactly once, the counters add up, output sequence
 * numbers have no holes per SSRC, and a stream's packets leave in their
 * arrival order. The same input also goes through the H.264 and VP8
 * payload classifiers.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/sendbuf.h>
#include <string.h>

#define N_SSRC 4

typedef struct
{
  guint64 id;                   /* arrival order */
  guint ssrc_index;
  gboolean gone;                /* released or dequeued */
} Handle;

static guint64 live;

static void
release (gpointer p)
{
  Handle *h = p;
  FUZZ_CHECK (!h->gone);
  h->gone = TRUE;
  live--;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtpccSendbufConfig c;
  RtpccSendbuf *sb;
  GPtrArray *handles;
  RtpccTime now = RTPCC_SEC (10);
  guint32 ts[N_SSRC] = { 0 };
  guint16 seq[N_SSRC] = { 0 };
  gboolean have_out[N_SSRC] = { FALSE };
  guint16 next_out[N_SSRC] = { 0 };
  guint64 last_id[N_SSRC] = { 0 };
  gboolean have_id[N_SSRC] = { FALSE };
  guint64 out_packets = 0, out_bytes = 0, in_packets = 0, in_bytes = 0;
  const RtpccSendbufStats *st;
  size_t pos;

  /* the payload classifiers on the raw input, as if it were a payload */
  for (guint codec = 0; codec < 3; codec++) {
    gboolean k = 2, d = 2;
    if (rtpcc_sendbuf_classify ((RtpccSendbufCodec) codec, data, size, &k,
            &d))
      FUZZ_CHECK (k <= 1 && d <= 1 && !(k && d));
    else
      FUZZ_CHECK (k == 2 && d == 2);
  }
  if (size < 3)
    return 0;
  rtpcc_sendbuf_config_init (&c);
  c.policy = (RtpccSendbufPolicy) (data[0] % RTPCC_SENDBUF_N_POLICIES);
  c.max_packets = data[1] % 17;
  c.max_frames = (data[2] >> 1) % 5;
  c.drop_dependents = data[2] & 1;
  sb = rtpcc_sendbuf_new (&c);
  rtpcc_sendbuf_set_free_func (sb, release);
  handles = g_ptr_array_new_with_free_func (g_free);
  live = 0;

  for (pos = 3; pos + 8 <= size; pos += 8) {
    const guint8 *op = data + pos;

    switch (op[0] % 8) {
      case 0:
      case 1:
      case 2:{                 /* enqueue */
        RtpccSendbufPacket p = { 0 };
        Handle *h = g_new0 (Handle, 1);
        guint k = op[1] % N_SSRC;

        ts[k] += op[2] & 0x0f;  /* 0: same frame */
        p.ssrc = 0x1000 + k;
        p.seq = seq[k]++;
        p.rtp_ts = ts[k];
        p.marker = op[2] >> 7;
        p.size = ((guint) op[3] << 8 | op[4]) % 1500;
        p.priority = op[5];     /* may exceed the maximum: clamped */
        p.created = now - (RtpccTime) op[6] * RTPCC_MSEC (4);
        p.keyframe = op[7] & 1;
        p.droppable = (op[7] >> 1) & 1;
        p.type_unknown = (op[7] >> 2) & 1;
        h->id = in_packets;
        h->ssrc_index = k;
        g_ptr_array_add (handles, h);
        live++;
        in_packets++;
        in_bytes += p.size;
        rtpcc_sendbuf_enqueue (sb, now, &p, h);
        break;
      }
      case 3:{                 /* dequeue */
        RtpccSendbufOut out;
        Handle *h;
        while ((h = rtpcc_sendbuf_dequeue (sb, now, &out))) {
          guint k = h->ssrc_index;
          FUZZ_CHECK (!h->gone);
          FUZZ_CHECK (out.packet.ssrc == 0x1000 + k);
          if (have_out[k])
            FUZZ_CHECK (out.seq == next_out[k]);
          have_out[k] = TRUE;
          next_out[k] = out.seq + 1;
          if (have_id[k])
            FUZZ_CHECK (h->id > last_id[k]);
          have_id[k] = TRUE;
          last_id[k] = h->id;
          FUZZ_CHECK (out.packet.priority <= RTPCC_SENDBUF_MAX_PRIORITY);
          h->gone = TRUE;
          live--;
          out_packets++;
          out_bytes += out.packet.size;
          if (!(op[1] & 1))
            break;
        }
        break;
      }
      case 4:
        rtpcc_sendbuf_set_rate (sb, (guint64) op[1] * 10000);
        break;
      case 5:
        rtpcc_sendbuf_set_rtt (sb, (RtpccTime) op[1] * RTPCC_MSEC (2) -
            RTPCC_MSEC (10));
        break;
      case 6:
        if (op[1] == 0)
          rtpcc_sendbuf_flush (sb);
        else
          rtpcc_sendbuf_set_policy (sb, (RtpccSendbufPolicy) (op[2] %
                  (RTPCC_SENDBUF_N_POLICIES + 1)));
        break;
      default:
        now += (RtpccTime) op[1] * RTPCC_MSEC (1);
        break;
    }
    st = rtpcc_sendbuf_get_stats (sb);
    FUZZ_CHECK (st->enqueued_packets == in_packets);
    FUZZ_CHECK (st->enqueued_bytes == in_bytes);
    FUZZ_CHECK (st->sent_packets == out_packets);
    FUZZ_CHECK (st->sent_bytes == out_bytes);
    FUZZ_CHECK (st->enqueued_packets == st->sent_packets +
        st->dropped_packets + st->queued_packets);
    FUZZ_CHECK (st->enqueued_bytes == st->sent_bytes + st->dropped_bytes +
        st->queued_bytes);
    FUZZ_CHECK (live == st->queued_packets);
    if (st->queued_packets == 0)
      FUZZ_CHECK (rtpcc_sendbuf_next_time (sb, now) == RTPCC_TIME_NONE);
    if (!c.drop_dependents && st->queued_packets > 0)
      FUZZ_CHECK (rtpcc_sendbuf_next_time (sb, now) != RTPCC_TIME_NONE);
  }
  (void) rtpcc_sendbuf_max_frame_bytes (sb);
  rtpcc_sendbuf_free (sb);
  FUZZ_CHECK (live == 0);
  g_ptr_array_unref (handles);
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  /* every policy with a small queue: audio every op, a 3-packet video frame,
   * time steps, dequeues, a flush */
  for (guint pol = 0; pol < RTPCC_SENDBUF_N_POLICIES; pol++) {
    GByteArray *b = g_byte_array_new ();
    guint8 head[3] = { (guint8) pol, 5, 0 };
    guint8 ops[][8] = {
      {5, 40, 0, 0, 0, 0, 0, 0},        /* rtt 70 ms */
      {4, 30, 0, 0, 0, 0, 0, 0},        /* 300 kbit/s */
      {0, 0, 0x81, 0, 214, 4, 0, 1},    /* audio */
      {0, 1, 0x01, 4, 2, 2, 0, 1},      /* video frame, 3 packets */
      {0, 1, 0x00, 4, 2, 2, 0, 1},
      {0, 1, 0x80, 2, 0, 2, 0, 1},
      {0, 0, 0x81, 0, 214, 4, 0, 1},
      {7, 20, 0, 0, 0, 0, 0, 0},
      {3, 1, 0, 0, 0, 0, 0, 0},
      {0, 1, 0x81, 4, 2, 2, 60, 0},     /* old delta frame */
      {7, 250, 0, 0, 0, 0, 0, 0},
      {3, 1, 0, 0, 0, 0, 0, 0},
      {6, 0, 0, 0, 0, 0, 0, 0},         /* flush */
      {0, 2, 0x81, 0, 100, 1, 0, 2},
      {3, 0, 0, 0, 0, 0, 0, 0},
    };
    g_byte_array_append (b, head, sizeof head);
    for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
      g_byte_array_append (b, ops[i], 8);
    g_ptr_array_add (seeds, g_byte_array_free_to_bytes (b));
  }
}

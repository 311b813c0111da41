/* Unit tests: RtpccSendbuf policies on scripted queues.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/rng.h>

#include "sendbuf-naive.h"

#define MS(x) RTPCC_MSEC (x)

/* handles are small integers + 1; released ones are remembered */
static GArray *released;

static void
on_release (gpointer handle)
{
  guint id = GPOINTER_TO_UINT (handle) - 1;
  g_array_append_val (released, id);
}

static RtpccSendbuf *
make (RtpccSendbufPolicy policy, guint max_packets)
{
  RtpccSendbufConfig c;
  RtpccSendbuf *sb;

  rtpcc_sendbuf_config_init (&c);
  c.policy = policy;
  c.max_packets = max_packets;
  sb = rtpcc_sendbuf_new (&c);
  rtpcc_sendbuf_set_free_func (sb, on_release);
  if (released)
    g_array_free (released, TRUE);
  released = g_array_new (FALSE, FALSE, sizeof (guint));
  return sb;
}

static void
done (RtpccSendbuf * sb)
{
  rtpcc_sendbuf_free (sb);
  g_array_free (released, TRUE);
  released = NULL;
}

#define AUDIO 0xa0d10u
#define VIDEO 0x51de0u

/* Enqueue one packet with handle id @id. */
static gboolean
put (RtpccSendbuf * sb, RtpccTime now, guint id, guint32 ssrc, guint16 seq,
    guint32 ts, gboolean marker, RtpccTime created, guint size)
{
  RtpccSendbufPacket p = { 0 };

  p.ssrc = ssrc;
  p.seq = seq;
  p.rtp_ts = ts;
  p.marker = marker;
  p.size = size;
  p.created = created;
  p.priority = ssrc == AUDIO ? RTPCC_SENDBUF_PRIORITY_AUDIO :
      RTPCC_SENDBUF_PRIORITY_VIDEO;
  return rtpcc_sendbuf_enqueue (sb, now, &p, GUINT_TO_POINTER (id + 1));
}

/* Handle id of the next packet, or -1. */
static gint
take (RtpccSendbuf * sb, RtpccTime now, RtpccSendbufOut * out)
{
  RtpccSendbufOut o;
  gpointer h = rtpcc_sendbuf_dequeue (sb, now, out ? out : &o);
  return h ? (gint) GPOINTER_TO_UINT (h) - 1 : -1;
}

static gboolean
was_released (guint id)
{
  for (guint i = 0; i < released->len; i++)
    if (g_array_index (released, guint, i) == id)
      return TRUE;
  return FALSE;
}

GST_START_TEST (test_policy_names)
{
  RtpccSendbufPolicy p;

  for (guint i = 0; i < RTPCC_SENDBUF_N_POLICIES; i++) {
    fail_unless (rtpcc_sendbuf_policy_from_string (rtpcc_sendbuf_policy_name
            (i), &p));
    fail_unless_equals_int (p, i);
  }
  fail_unless (!rtpcc_sendbuf_policy_from_string ("lifo", &p));
  fail_unless (!rtpcc_sendbuf_policy_from_string (NULL, &p));
  fail_unless_equals_string (rtpcc_sendbuf_policy_name (99), "unknown");
}

GST_END_TEST;

/* Audio goes before video whatever the arrival order (except in the fifo
 * and ring baselines); within a priority, creation order; a video frame is
 * not interrupted by other video. */
GST_START_TEST (test_priority_order)
{
  RtpccSendbufPolicy pols[] = { RTPCC_SENDBUF_FIFO, RTPCC_SENDBUF_SFDPS1,
    RTPCC_SENDBUF_SFDPS2, RTPCC_SENDBUF_RING, RTPCC_SENDBUF_RING_SFDPS2,
    RTPCC_SENDBUF_DEADLINE
  };

  for (guint k = 0; k < G_N_ELEMENTS (pols); k++) {
    RtpccSendbuf *sb = make (pols[k], 0);
    const RtpccSendbufStats *st = rtpcc_sendbuf_get_stats (sb);
    gint prio_order[] = { 3, 4, 0, 1, 2, 5 };
    gint arrival_order[] = { 0, 1, 2, 3, 4, 5 };
    /* the baselines (unmodified DCCP, ring buffers) ignore priorities */
    gint *expect = (pols[k] == RTPCC_SENDBUF_FIFO
        || pols[k] == RTPCC_SENDBUF_RING) ? arrival_order : prio_order;

    /* video frame (3 packets) at 0, then two audio packets, then a second
     * video frame */
    fail_unless (put (sb, MS (1), 0, VIDEO, 10, 900, FALSE, MS (0), 1000));
    fail_unless (put (sb, MS (1), 1, VIDEO, 11, 900, FALSE, MS (0), 1000));
    fail_unless (put (sb, MS (1), 2, VIDEO, 12, 900, TRUE, MS (0), 1000));
    fail_unless (put (sb, MS (2), 3, AUDIO, 50, 160, TRUE, MS (2), 200));
    fail_unless (put (sb, MS (3), 4, AUDIO, 51, 320, FALSE, MS (3), 200));
    fail_unless (put (sb, MS (4), 5, VIDEO, 13, 1800, TRUE, MS (4), 500));
    fail_unless_equals_int (st->queued_packets, 6);
    fail_unless_equals_int (st->queued_frames, 4);
    for (guint i = 0; i < G_N_ELEMENTS (prio_order); i++)
      fail_unless_equals_int (take (sb, MS (5), NULL), expect[i]);
    fail_unless_equals_int (take (sb, MS (5), NULL), -1);
    fail_unless_equals_int (st->sent_packets, 6);
    fail_unless_equals_int (st->dropped_packets, 0);
    fail_unless_equals_int (st->sent_by_priority[RTPCC_SENDBUF_PRIORITY_AUDIO],
        2);
    fail_unless_equals_int64 (rtpcc_sendbuf_next_time (sb, MS (5)),
        RTPCC_TIME_NONE);
    done (sb);
  }
}

GST_END_TEST;

/* A started video frame does not stop audio: audio arriving between its
 * packets goes next, and the frame resumes. */
GST_START_TEST (test_audio_preempts_started_frame)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_SFDPS1, 0);

  put (sb, 0, 0, VIDEO, 1, 90, FALSE, 0, 1000);
  put (sb, 0, 1, VIDEO, 2, 90, TRUE, 0, 1000);
  fail_unless_equals_int (take (sb, MS (1), NULL), 0);
  put (sb, MS (1), 2, AUDIO, 7, 8, TRUE, MS (1), 200);
  fail_unless_equals_int (take (sb, MS (1), NULL), 2);
  /* far past expiry, but the frame has started: it is finished */
  fail_unless_equals_int (take (sb, MS (500), NULL), 1);
  fail_unless_equals_int (rtpcc_sendbuf_get_stats (sb)->dropped_packets, 0);
  done (sb);
}

GST_END_TEST;

/* A stream's frames keep their order even when a later one has an earlier
 * timestamp (B-frames) or another stream's packets are older. */
GST_START_TEST (test_stream_order_kept)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_SFDPS2, 0);

  put (sb, MS (100), 0, VIDEO, 1, 3000, TRUE, MS (100), 500);   /* P */
  put (sb, MS (100), 1, VIDEO, 2, 1500, TRUE, MS (60), 500);    /* B */
  put (sb, MS (100), 2, AUDIO + 1, 1, 10, TRUE, MS (80), 200);
  /* same priority for the second stream: it goes between by creation time,
   * but the B-frame never overtakes the P-frame */
  fail_unless_equals_int (take (sb, MS (101), NULL), 2);
  fail_unless_equals_int (take (sb, MS (101), NULL), 0);
  fail_unless_equals_int (take (sb, MS (101), NULL), 1);
  done (sb);
}

GST_END_TEST;

/* SFDPS1: budget 200 ms, RTT 80 ms: aged 159 ms is sent, 161 ms dropped
 * (expiry < now + RTT/2). */
GST_START_TEST (test_sfdps1_expiry_vs_rtt)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_SFDPS1, 0);
  const RtpccSendbufStats *st = rtpcc_sendbuf_get_stats (sb);
  RtpccSendbufOut out;

  rtpcc_sendbuf_set_rtt (sb, MS (80));
  put (sb, MS (1000), 0, AUDIO, 1, 0, TRUE, MS (1000), 200);
  fail_unless_equals_int (take (sb, MS (1159), &out), 0);
  fail_unless_equals_int64 (out.age, MS (159));

  put (sb, MS (2000), 1, AUDIO, 2, 160, TRUE, MS (2000), 200);
  fail_unless_equals_int (take (sb, MS (2161), NULL), -1);
  fail_unless (was_released (1));
  fail_unless_equals_int (st->dropped_by_reason[RTPCC_SENDBUF_DROP_EXPIRED],
      1);
  fail_unless_equals_int (st->dropped_by_priority[RTPCC_SENDBUF_PRIORITY_AUDIO],
      1);

  /* without RTT the same packet would go: RTT/2 matters */
  rtpcc_sendbuf_set_rtt (sb, RTPCC_TIME_NONE);
  put (sb, MS (3000), 2, AUDIO, 3, 320, TRUE, MS (3000), 200);
  fail_unless_equals_int (take (sb, MS (3161), NULL), 2);
  /* and fifo never expires anything */
  rtpcc_sendbuf_set_policy (sb, RTPCC_SENDBUF_FIFO);
  put (sb, MS (4000), 3, AUDIO, 4, 480, TRUE, MS (4000), 200);
  fail_unless_equals_int (take (sb, MS (9000), NULL), 3);
  done (sb);
}

GST_END_TEST;

/* SFDPS2: an expired frame that is alone in the queue is sent;
 * with anything else queued it is dropped. SFDPS1 always drops it. */
GST_START_TEST (test_sfdps2_lone_expired)
{
  RtpccSendbufPolicy pols[] = { RTPCC_SENDBUF_SFDPS2,
    RTPCC_SENDBUF_RING_SFDPS2, RTPCC_SENDBUF_SFDPS1
  };

  for (guint k = 0; k < G_N_ELEMENTS (pols); k++) {
    RtpccSendbuf *sb = make (pols[k], 0);
    const RtpccSendbufStats *st = rtpcc_sendbuf_get_stats (sb);
    gboolean sfdps1 = pols[k] == RTPCC_SENDBUF_SFDPS1;

    /* alone and expired (a two-packet frame counts as one) */
    put (sb, 0, 0, VIDEO, 1, 90, FALSE, 0, 1000);
    put (sb, 0, 1, VIDEO, 2, 90, TRUE, 0, 1000);
    fail_unless_equals_int (take (sb, MS (300), NULL), sfdps1 ? -1 : 0);
    if (!sfdps1)
      fail_unless_equals_int (take (sb, MS (300), NULL), 1);

    /* expired video with a fresh audio packet queued: audio first, then the
     * video frame is alone and goes (sfdps2) */
    put (sb, MS (400), 2, VIDEO, 3, 180, TRUE, MS (400), 1000);
    put (sb, MS (700), 3, AUDIO, 9, 0, TRUE, MS (700), 200);
    fail_unless_equals_int (take (sb, MS (700), NULL), 3);
    fail_unless_equals_int (take (sb, MS (700), NULL), sfdps1 ? -1 : 2);

    /* two expired frames and a fresh one: both expired are dropped */
    put (sb, MS (1000), 4, VIDEO, 4, 270, TRUE, MS (1000), 1000);
    put (sb, MS (1100), 5, VIDEO, 5, 360, TRUE, MS (1100), 1000);
    put (sb, MS (1300), 6, VIDEO, 6, 450, TRUE, MS (1300), 1000);
    fail_unless_equals_int (take (sb, MS (1320), NULL), 6);
    fail_unless (was_released (4) && was_released (5));
    fail_unless_equals_int (st->dropped_by_reason[RTPCC_SENDBUF_DROP_EXPIRED],
        sfdps1 ? 5 : 2);
    done (sb);
  }
}

GST_END_TEST;

/* Ring overflow (SFDPS's ring buffers): when full, drop the oldest video
 * frame if any, else the oldest audio; fifo drops the arrival (tail
 * drop). */
GST_START_TEST (test_ring_overflow)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_RING, 5);
  const RtpccSendbufStats *st = rtpcc_sendbuf_get_stats (sb);

  put (sb, 0, 0, AUDIO, 1, 0, TRUE, 0, 200);
  put (sb, 0, 1, VIDEO, 1, 90, FALSE, 0, 1000);
  put (sb, 0, 2, VIDEO, 2, 90, TRUE, 0, 1000);
  put (sb, MS (20), 3, AUDIO, 2, 160, TRUE, MS (20), 200);
  put (sb, MS (20), 4, VIDEO, 3, 180, TRUE, MS (20), 1000);
  fail_unless_equals_int (st->queued_packets, 5);
  /* full: the arriving audio evicts the oldest video frame, whole */
  fail_unless (put (sb, MS (40), 5, AUDIO, 3, 320, TRUE, MS (40), 200));
  fail_unless (was_released (1) && was_released (2) && !was_released (4));
  fail_unless_equals_int (st->queued_packets, 4);
  fail_unless_equals_int (st->dropped_by_reason[RTPCC_SENDBUF_DROP_OVERFLOW],
      2);
  fail_unless_equals_int (st->frames_by_reason[RTPCC_SENDBUF_DROP_OVERFLOW],
      1);
  /* an arriving video frame when only it is video: it is the victim */
  put (sb, MS (50), 6, AUDIO, 4, 480, TRUE, MS (50), 200);
  fail_unless_equals_int (st->queued_packets, 5);
  fail_unless (put (sb, MS (60), 7, VIDEO, 4, 270, TRUE, MS (60), 1000));
  fail_unless (was_released (4));       /* older video goes first */
  fail_unless (!put (sb, MS (70), 8, VIDEO, 5, 360, TRUE, MS (60), 1000)
      || was_released (7));
  /* audio only: the oldest audio is the victim */
  while (take (sb, MS (80), NULL) >= 0);
  for (guint i = 0; i < 6; i++)
    put (sb, MS (100 + i), 20 + i, AUDIO, 10 + i, 1000 + 160 * i, TRUE,
        MS (100 + i), 200);
  fail_unless (was_released (20) && !was_released (21) && !was_released (25));
  fail_unless_equals_int (take (sb, MS (110), NULL), 21);
  done (sb);

  /* a started video frame fills the queue: arriving audio evicts no older
   * audio (the queue goes over its limit instead) */
  sb = make (RTPCC_SENDBUF_RING, 3);
  st = rtpcc_sendbuf_get_stats (sb);
  put (sb, 0, 0, AUDIO, 1, 0, TRUE, 0, 200);
  put (sb, 0, 1, VIDEO, 1, 90, FALSE, 0, 1000);
  put (sb, 0, 2, VIDEO, 2, 90, FALSE, 0, 1000);
  fail_unless_equals_int (take (sb, 0, NULL), 0);
  fail_unless_equals_int (take (sb, 0, NULL), 1);       /* video started */
  put (sb, 0, 3, VIDEO, 3, 90, FALSE, 0, 1000);
  put (sb, 0, 4, AUDIO, 2, 160, TRUE, MS (20), 200);
  put (sb, 0, 5, AUDIO, 3, 320, TRUE, MS (40), 200);
  fail_unless_equals_int (st->queued_packets, 4);
  fail_unless_equals_int (st->dropped_packets, 0);
  /* once a droppable video frame is queued, it is the victim */
  put (sb, 0, 6, VIDEO, 4, 90, TRUE, 0, 1000);  /* ends the started frame */
  put (sb, 0, 7, VIDEO, 5, 180, TRUE, MS (100), 1000);
  fail_unless (was_released (7) && !was_released (4));
  done (sb);

  /* fifo: tail drop of the arriving frame, with its queued packets */
  sb = make (RTPCC_SENDBUF_FIFO, 3);
  st = rtpcc_sendbuf_get_stats (sb);
  put (sb, 0, 0, AUDIO, 1, 0, TRUE, 0, 200);
  put (sb, 0, 1, VIDEO, 1, 90, FALSE, 0, 1000);
  put (sb, 0, 2, VIDEO, 2, 90, FALSE, 0, 1000);
  fail_unless (!put (sb, 0, 3, VIDEO, 3, 90, TRUE, 0, 1000));
  fail_unless (was_released (1) && was_released (2) && was_released (3));
  fail_unless (!was_released (0));
  fail_unless_equals_int (st->queued_packets, 1);
  done (sb);
}

GST_END_TEST;

/* Non-reference frames are evicted before reference frames, and delta
 * frames before keyframes, whatever their age. */
GST_START_TEST (test_ring_protects_reference)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_RING, 3);
  RtpccSendbufPacket p = { 0 };

  p.ssrc = VIDEO;
  p.priority = 1;
  p.marker = TRUE;
  p.size = 100;
  p.keyframe = TRUE;
  p.rtp_ts = 0;
  rtpcc_sendbuf_enqueue (sb, 0, &p, GUINT_TO_POINTER (1));      /* id 0: key */
  p.keyframe = FALSE;
  p.rtp_ts = 1;
  p.seq = 1;
  rtpcc_sendbuf_enqueue (sb, 0, &p, GUINT_TO_POINTER (2));      /* id 1: delta */
  p.droppable = TRUE;
  p.rtp_ts = 2;
  p.seq = 2;
  rtpcc_sendbuf_enqueue (sb, 0, &p, GUINT_TO_POINTER (3));      /* id 2: b-frame */
  p.droppable = FALSE;
  p.rtp_ts = 3;
  p.seq = 3;
  rtpcc_sendbuf_enqueue (sb, 0, &p, GUINT_TO_POINTER (4));      /* id 3 */
  fail_unless (was_released (2) && !was_released (0) && !was_released (1));
  p.rtp_ts = 4;
  p.seq = 4;
  rtpcc_sendbuf_enqueue (sb, 0, &p, GUINT_TO_POINTER (5));      /* id 4 */
  /* now the oldest delta goes, the keyframe stays */
  fail_unless (was_released (1) && !was_released (0));
  done (sb);
}

GST_END_TEST;

/* drop_dependents: after a reference frame is dropped, later delta frames
 * of that SSRC go too until the next keyframe. */
GST_START_TEST (test_drop_dependents)
{
  RtpccSendbufConfig c;
  RtpccSendbuf *sb;
  RtpccSendbufPacket p = { 0 };
  const RtpccSendbufStats *st;

  rtpcc_sendbuf_config_init (&c);
  c.policy = RTPCC_SENDBUF_SFDPS1;
  c.drop_dependents = TRUE;
  sb = rtpcc_sendbuf_new (&c);
  st = rtpcc_sendbuf_get_stats (sb);
  p.ssrc = VIDEO;
  p.marker = TRUE;
  p.size = 100;
  for (guint i = 0; i < 3; i++) {       /* delta frames at 0, 10, 300 ms */
    p.rtp_ts = i;
    p.seq = i;
    p.created = MS (i == 2 ? 300 : i * 10);
    rtpcc_sendbuf_enqueue (sb, p.created, &p, NULL);
  }
  /* at 250 ms the first two are expired; the third depends on them */
  fail_unless (rtpcc_sendbuf_dequeue (sb, MS (250), NULL) == NULL);
  fail_unless_equals_int (st->dropped_by_reason[RTPCC_SENDBUF_DROP_EXPIRED],
      1);
  fail_unless_equals_int (st->dropped_by_reason[RTPCC_SENDBUF_DROP_DEPENDENT],
      2);
  /* later deltas are dropped on arrival; a keyframe resumes */
  p.rtp_ts = 3;
  p.created = MS (260);
  fail_unless (!rtpcc_sendbuf_enqueue (sb, MS (260), &p, NULL));
  p.rtp_ts = 4;
  p.keyframe = TRUE;
  fail_unless (rtpcc_sendbuf_enqueue (sb, MS (260), &p, NULL));
  p.rtp_ts = 5;
  p.keyframe = FALSE;
  fail_unless (rtpcc_sendbuf_enqueue (sb, MS (260), &p, NULL));
  fail_unless_equals_int (st->queued_packets, 2);
  rtpcc_sendbuf_free (sb);
}

GST_END_TEST;

/* Whole-frame rule (UltraGrid, Saurin's thesis Eq. 6.4): the frame is
 * judged before its first packet with L/X of the whole frame; once started
 * it is never dropped; when dropped before its end, its later packets are
 * dropped on arrival. */
GST_START_TEST (test_deadline_whole_frame)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_DEADLINE, 0);
  const RtpccSendbufStats *st = rtpcc_sendbuf_get_stats (sb);

  /* 4 x 1000 B at 1 Mbit/s: L/X = 32 ms; RTT 40 ms: RTT/2 = 20 ms */
  rtpcc_sendbuf_set_rate (sb, 1000000);
  rtpcc_sendbuf_set_rtt (sb, MS (40));
  for (guint i = 0; i < 4; i++)
    put (sb, 0, i, VIDEO, i, 90, i == 3, 0, 1000);
  /* 147 + 20 + 32 = 199 < 200: sent */
  fail_unless_equals_int (take (sb, MS (147), NULL), 0);
  /* the rest goes even far past the budget */
  fail_unless_equals_int (take (sb, MS (400), NULL), 1);
  fail_unless_equals_int (take (sb, MS (410), NULL), 2);
  fail_unless_equals_int (take (sb, MS (420), NULL), 3);

  /* the same frame at 148 ms: 200, not < 200: dropped whole */
  for (guint i = 0; i < 4; i++)
    put (sb, MS (1000), 10 + i, VIDEO, 10 + i, 180, i == 3, MS (1000), 1000);
  fail_unless_equals_int (take (sb, MS (1148), NULL), -1);
  fail_unless_equals_int (st->dropped_by_reason[RTPCC_SENDBUF_DROP_LATE], 4);
  fail_unless_equals_int (st->frames_by_reason[RTPCC_SENDBUF_DROP_LATE], 1);

  /* dropped while incomplete: its later packets are dropped on arrival and
   * the next frame is kept */
  put (sb, MS (2000), 20, VIDEO, 20, 270, FALSE, MS (2000), 1000);
  fail_unless_equals_int (take (sb, MS (2190), NULL), -1);
  fail_unless (!put (sb, MS (2190), 21, VIDEO, 21, 270, TRUE, MS (2000),
          1000));
  fail_unless_equals_int (st->dropped_by_reason[RTPCC_SENDBUF_DROP_FRAME], 1);
  fail_unless (put (sb, MS (2190), 22, VIDEO, 22, 360, TRUE, MS (2190), 500));
  fail_unless_equals_int (take (sb, MS (2200), NULL), 22);
  done (sb);
}

GST_END_TEST;

/* UltraGrid's implicit frame-rate reduction (Saurin's thesis, §6.3.2):
 * capture at 25 fps while the transmission takes one frame per 100 ms: the
 * deadline rule sends 10 frames per second and discards 15, interleaved
 * (no long gaps). */
GST_START_TEST (test_deadline_frame_rate_reduction)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_DEADLINE, 0);
  const RtpccSendbufStats *st = rtpcc_sendbuf_get_stats (sb);
  RtpccTime last_sent = RTPCC_TIME_NONE, max_gap = 0;
  guint frame = 0;

  rtpcc_sendbuf_set_budget (sb, MS (150));
  rtpcc_sendbuf_set_rate (sb, 100000);  /* 1250 B = 100 ms */
  for (RtpccTime now = 0; now < RTPCC_SEC (10); now += MS (1)) {
    if (now % MS (40) == 0) {
      put (sb, now, frame, VIDEO, (guint16) frame, frame * 3600, TRUE, now,
          1250);
      frame++;
    }
    while (take (sb, now, NULL) >= 0) {
      if (last_sent != RTPCC_TIME_NONE)
        max_gap = MAX (max_gap, now - last_sent);
      last_sent = now;
    }
  }
  g_print ("deadline, 25 fps in, 100 ms per frame out: %" G_GUINT64_FORMAT
      " frames sent, %" G_GUINT64_FORMAT " dropped in 10 s, largest gap %.0f "
      "ms\n", st->sent_frames, st->frames_by_reason[RTPCC_SENDBUF_DROP_LATE],
      RTPCC_TIME_AS_MSEC (max_gap));
  fail_unless_equals_int (frame, 250);
  fail_unless (st->sent_frames >= 98 && st->sent_frames <= 102,
      "%" G_GUINT64_FORMAT " frames sent", st->sent_frames);
  fail_unless (st->frames_by_reason[RTPCC_SENDBUF_DROP_LATE] >= 145,
      "%" G_GUINT64_FORMAT " frames dropped",
      st->frames_by_reason[RTPCC_SENDBUF_DROP_LATE]);
  fail_unless (max_gap <= MS (120), "gap %" G_GINT64_FORMAT " ns", max_gap);
  done (sb);
}

GST_END_TEST;

/* A frame whose queued packets have all gone out is still started: a late
 * packet of it is sent even under a tight policy. */
GST_START_TEST (test_started_frame_continues)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_SFDPS1, 0);

  put (sb, 0, 0, VIDEO, 0, 90, FALSE, 0, 1000);
  fail_unless_equals_int (take (sb, MS (10), NULL), 0);
  put (sb, MS (500), 1, VIDEO, 1, 90, TRUE, 0, 1000);
  put (sb, MS (500), 2, AUDIO, 1, 0, TRUE, MS (500), 200);
  fail_unless_equals_int (take (sb, MS (500), NULL), 2);
  fail_unless_equals_int (take (sb, MS (500), NULL), 1);
  fail_unless_equals_int (rtpcc_sendbuf_get_stats (sb)->dropped_packets, 0);
  done (sb);
}

GST_END_TEST;

/* Deliberate drops are not loss: output sequence numbers have no holes per
 * SSRC whatever is dropped; with no drops they equal the input numbers. */
GST_START_TEST (test_renumbering)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_SFDPS1, 0);
  RtpccSendbufOut out;
  guint16 next_a = 65534, next_v = 100;
  guint sent = 0, i;

  for (i = 0; i < 40; i++) {
    RtpccTime t = MS (i * 20);
    /* every third audio packet is created too early: it expires */
    RtpccTime created = (i % 3 == 0) ? t - MS (250) : t;
    put (sb, t, i, AUDIO, (guint16) (65534 + i), i * 160, TRUE, created, 200);
    if (i % 5 == 0)
      put (sb, t, 100 + i, VIDEO, (guint16) (100 + i), i * 1800, TRUE,
          (i % 10 == 0) ? t - MS (300) : t, 800);
    while (take (sb, t, &out) >= 0) {
      if (out.packet.ssrc == AUDIO) {
        fail_unless_equals_int (out.seq, next_a);
        next_a++;
      } else {
        fail_unless_equals_int (out.seq, next_v);
        next_v++;
      }
      sent++;
    }
  }
  fail_unless (rtpcc_sendbuf_get_stats (sb)->dropped_packets > 10);
  fail_unless_equals_int (sent, rtpcc_sendbuf_get_stats (sb)->sent_packets);
  done (sb);

  /* no drops: identity */
  sb = make (RTPCC_SENDBUF_FIFO, 0);
  for (i = 0; i < 5; i++) {
    put (sb, 0, i, VIDEO, (guint16) (777 + i), i, TRUE, 0, 100);
    take (sb, 0, &out);
    fail_unless_equals_int (out.seq, 777 + i);
    fail_unless_equals_int (out.packet.seq, 777 + i);
  }
  done (sb);
}

GST_END_TEST;

/* The drain rate spaces packets by size/X, with a small idle credit. */
GST_START_TEST (test_drain_rate)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_FIFO, 0);

  rtpcc_sendbuf_set_rate (sb, 800000);  /* 1000 B = 10 ms */
  for (guint i = 0; i < 4; i++)
    put (sb, 0, i, VIDEO, i, i, TRUE, 0, 1000);
  fail_unless_equals_int (take (sb, MS (100), NULL), 0);
  /* credit of 5 ms after idling: the second may go 5 ms later */
  fail_unless_equals_int64 (rtpcc_sendbuf_next_time (sb, MS (100)),
      MS (105));
  fail_unless_equals_int (take (sb, MS (104), NULL), -1);
  fail_unless_equals_int (take (sb, MS (105), NULL), 1);
  fail_unless_equals_int64 (rtpcc_sendbuf_next_time (sb, MS (105)),
      MS (115));
  fail_unless_equals_int (take (sb, MS (115), NULL), 2);
  rtpcc_sendbuf_set_rate (sb, 0);
  fail_unless_equals_int (take (sb, MS (115), NULL), 3);
  done (sb);
}

GST_END_TEST;

/* The caller's clock going back (an element dequeued in PAUSED, then its
 * running time restarted at PLAYING) does not hold the queue until the
 * old time returns: the drain starts again from the new time. */
GST_START_TEST (test_drain_clock_back)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_FIFO, 0);

  rtpcc_sendbuf_set_rate (sb, 800000);  /* 1000 B = 10 ms */
  for (guint i = 0; i < 4; i++)
    put (sb, 0, i, VIDEO, i, i, TRUE, 0, 1000);
  fail_unless_equals_int (take (sb, RTPCC_SEC (3000), NULL), 0);
  fail_unless (rtpcc_sendbuf_next_time (sb, RTPCC_SEC (3000)) >
      RTPCC_SEC (3000));
  /* back to 20 ms: due now, and paced from there */
  fail_unless_equals_int64 (rtpcc_sendbuf_next_time (sb, MS (20)), MS (20));
  fail_unless_equals_int (take (sb, MS (20), NULL), 1);
  fail_unless_equals_int64 (rtpcc_sendbuf_next_time (sb, MS (20)), MS (25));
  fail_unless_equals_int (take (sb, MS (24), NULL), -1);
  fail_unless_equals_int (take (sb, MS (25), NULL), 2);
  done (sb);
}

GST_END_TEST;

/* What a producer that blocks instead of dropping waits for: room under
 * every limit for the next packet's size; an empty queue always has room. */
GST_START_TEST (test_has_room)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_FIFO, 3);

  rtpcc_sendbuf_set_limits (sb, 3, 2500, 0);
  fail_unless (rtpcc_sendbuf_has_room (sb, 1000000));   /* empty */
  put (sb, 0, 0, VIDEO, 0, 0, TRUE, 0, 1000);
  fail_unless (rtpcc_sendbuf_has_room (sb, 1500));
  fail_if (rtpcc_sendbuf_has_room (sb, 1501));          /* bytes */
  put (sb, 0, 1, VIDEO, 1, 1, TRUE, 0, 500);
  fail_unless (rtpcc_sendbuf_has_room (sb, 100));
  put (sb, 0, 2, VIDEO, 2, 2, TRUE, 0, 100);
  fail_if (rtpcc_sendbuf_has_room (sb, 1));             /* packets */
  rtpcc_sendbuf_set_limits (sb, 0, 0, 3);
  fail_if (rtpcc_sendbuf_has_room (sb, 1));             /* frames */
  rtpcc_sendbuf_set_limits (sb, 0, 0, 0);
  fail_unless (rtpcc_sendbuf_has_room (sb, 1000000));   /* no limits */
  fail_unless_equals_int (take (sb, 0, NULL), 0);
  rtpcc_sendbuf_set_limits (sb, 0, 0, 3);
  fail_unless (rtpcc_sendbuf_has_room (sb, 1));
  done (sb);
}

GST_END_TEST;

/* UltraGrid rule 1 (Eq. 6.3) and frame-count cap. */
GST_START_TEST (test_max_frame_bytes_and_frame_cap)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_DEADLINE, 0);

  fail_unless_equals_int64 (rtpcc_sendbuf_max_frame_bytes (sb), -1);
  rtpcc_sendbuf_set_rate (sb, 1000000);
  rtpcc_sendbuf_set_rtt (sb, MS (100));
  /* (200 − 50) ms at 1 Mbit/s = 18750 B */
  fail_unless_equals_int64 (rtpcc_sendbuf_max_frame_bytes (sb), 18750);
  put (sb, 0, 0, VIDEO, 0, 0, TRUE, 0, 750);
  fail_unless_equals_int64 (rtpcc_sendbuf_max_frame_bytes (sb), 18000);
  /* the receiver's playout delay takes its share of the budget */
  rtpcc_sendbuf_set_playout_delay (sb, MS (50));
  fail_unless_equals_int64 (rtpcc_sendbuf_max_frame_bytes (sb), 12500 - 750);
  rtpcc_sendbuf_set_playout_delay (sb, 0);
  rtpcc_sendbuf_set_rtt (sb, MS (500));
  fail_unless_equals_int64 (rtpcc_sendbuf_max_frame_bytes (sb), 0);

  rtpcc_sendbuf_set_limits (sb, 0, 0, 2);
  put (sb, 0, 1, VIDEO, 1, 1, TRUE, 0, 750);
  fail_unless (!put (sb, 0, 2, VIDEO, 2, 2, TRUE, 0, 750));
  fail_unless_equals_int (rtpcc_sendbuf_get_stats (sb)->queued_frames, 2);
  rtpcc_sendbuf_flush (sb);
  fail_unless_equals_int (rtpcc_sendbuf_get_stats (sb)->queued_packets, 0);
  fail_unless_equals_int (rtpcc_sendbuf_get_stats (sb)->dropped_by_reason
      [RTPCC_SENDBUF_DROP_FLUSH], 2);
  fail_unless_equals_int (released->len, 3);
  done (sb);
}

GST_END_TEST;

/* Eq. 6.3 for an encoder's VBV: the queueing time a frame has, told
 * again only when it moves by a quarter; none for policies without a
 * budget. */
GST_START_TEST (test_frame_room_for_encoder)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_DEADLINE, 0);
  RtpccTime room = 1;

  /* no RTT yet: the whole budget (200 ms) */
  fail_unless_equals_int64 (rtpcc_sendbuf_frame_room (sb), MS (200));
  fail_unless (rtpcc_sendbuf_take_frame_room (sb, &room));
  fail_unless_equals_int64 (room, MS (200));
  fail_if (rtpcc_sendbuf_take_frame_room (sb, &room));
  /* 200 − 40/2 = 180: a tenth, not told */
  rtpcc_sendbuf_set_rtt (sb, MS (40));
  fail_unless_equals_int64 (rtpcc_sendbuf_frame_room (sb), MS (180));
  fail_if (rtpcc_sendbuf_take_frame_room (sb, &room));
  /* 200 − 50 − 50 = 100: half of what was told */
  rtpcc_sendbuf_set_rtt (sb, MS (100));
  rtpcc_sendbuf_set_playout_delay (sb, MS (50));
  fail_unless (rtpcc_sendbuf_take_frame_room (sb, &room));
  fail_unless_equals_int64 (room, MS (100));
  /* the queue's content is the encoder's VBV fullness, not the room */
  put (sb, 0, 0, VIDEO, 0, 0, TRUE, 0, 750);
  fail_unless_equals_int64 (rtpcc_sendbuf_frame_room (sb), MS (100));
  /* nothing fits: 0 is told whatever was before */
  rtpcc_sendbuf_set_rtt (sb, MS (400));
  fail_unless (rtpcc_sendbuf_take_frame_room (sb, &room));
  fail_unless_equals_int64 (room, 0);
  fail_if (rtpcc_sendbuf_take_frame_room (sb, &room));
  /* a policy without a budget: unknown, told once */
  rtpcc_sendbuf_set_policy (sb, RTPCC_SENDBUF_RING);
  fail_unless_equals_int64 (rtpcc_sendbuf_frame_room (sb), RTPCC_TIME_NONE);
  fail_unless (rtpcc_sendbuf_take_frame_room (sb, &room));
  fail_unless_equals_int64 (room, RTPCC_TIME_NONE);
  fail_if (rtpcc_sendbuf_take_frame_room (sb, &room));
  done (sb);
}

GST_END_TEST;

/* Bad input: a new SSRC on every packet does not grow the state without
 * bound, and nothing breaks for the streams still queued. */
GST_START_TEST (test_many_ssrcs_bounded)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_RING_SFDPS2, 100);
  const RtpccSendbufStats *st = rtpcc_sendbuf_get_stats (sb);

  for (guint i = 0; i < 5000; i++) {
    put (sb, MS (i), i, 0x70000000u + i, (guint16) i, i, i % 3 == 0, MS (i),
        100);
    if (i % 2)
      take (sb, MS (i), NULL);
  }
  st = rtpcc_sendbuf_get_stats (sb);
  fail_unless (st->streams <= 256 + 100, "%u streams", st->streams);
  fail_unless (st->queued_packets > 50 && st->queued_packets <= 100);
  while (take (sb, MS (6000), NULL) >= 0);
  fail_unless_equals_uint64 (st->enqueued_packets, st->sent_packets +
      st->dropped_packets);
  done (sb);
}

GST_END_TEST;

/* Frame types from H.264 and VP8 payloads; malformed input says nothing.
 * And the stricter key-frame check a receiver uses. */
GST_START_TEST (test_classify_payloads)
{
  const RtpccSendbufCodec h264 = rtpcc_sendbuf_codec_from_name ("h264");
  const RtpccSendbufCodec vp8 = rtpcc_sendbuf_codec_from_name ("VP8");
  gboolean k, d;
  /* H.264 */
  const guint8 idr[] = { 0x65, 0x88 };
  const guint8 p_ref[] = { 0x41, 0x9a };
  const guint8 b_nonref[] = { 0x01, 0x9e };
  const guint8 sei[] = { 0x06, 0x05 };
  const guint8 stap_sps_pps[] = { 0x18, 0x00, 0x02, 0x67, 0x42, 0x00, 0x02,
    0x68, 0xce
  };
  const guint8 stap_bad[] = { 0x18, 0x00, 0x09, 0x67, 0x42 };
  const guint8 fua_idr[] = { 0x7c, 0x85, 0x00 };
  const guint8 fua_p[] = { 0x5c, 0x41, 0x00 };
  /* VP8: S=1 PID=0, then P bit */
  const guint8 vp8_key[] = { 0x10, 0x00, 0x00 };
  const guint8 vp8_delta[] = { 0x10, 0x01, 0x00 };
  const guint8 vp8_nonref[] = { 0x30, 0x01 };
  /* X, I with a 15-bit picture id, then a key frame header */
  const guint8 vp8_ext_key[] = { 0x90, 0x80, 0x81, 0x23, 0x00 };
  const guint8 vp8_ext_short[] = { 0x90, 0x80, 0x81 };
  const guint8 vp8_cont[] = { 0x00, 0x11 };

  fail_unless_equals_int (rtpcc_sendbuf_codec_from_name ("OPUS"),
      RTPCC_SENDBUF_CODEC_OTHER);
  fail_unless_equals_int (rtpcc_sendbuf_codec_from_name (NULL),
      RTPCC_SENDBUF_CODEC_OTHER);
#define CLASSIFY(codec, buf, ek, ed) \
  do { k = !(ek); d = !(ed); \
    fail_unless (rtpcc_sendbuf_classify (codec, buf, sizeof buf, &k, &d)); \
    fail_unless_equals_int (k, ek); fail_unless_equals_int (d, ed); } while (0)
#define UNKNOWN(codec, buf, len) \
  do { k = d = 7; \
    fail_unless (!rtpcc_sendbuf_classify (codec, buf, len, &k, &d)); \
    fail_unless (k == 7 && d == 7); } while (0)
  CLASSIFY (h264, idr, TRUE, FALSE);
  CLASSIFY (h264, p_ref, FALSE, FALSE);
  CLASSIFY (h264, b_nonref, FALSE, TRUE);
  CLASSIFY (h264, stap_sps_pps, TRUE, FALSE);
  CLASSIFY (h264, fua_idr, TRUE, FALSE);
  CLASSIFY (h264, fua_p, FALSE, FALSE);
  UNKNOWN (h264, sei, sizeof sei);
  UNKNOWN (h264, stap_bad, sizeof stap_bad);
  UNKNOWN (h264, idr, 0);
  CLASSIFY (vp8, vp8_key, TRUE, FALSE);
  CLASSIFY (vp8, vp8_delta, FALSE, FALSE);
  CLASSIFY (vp8, vp8_nonref, FALSE, TRUE);
  CLASSIFY (vp8, vp8_ext_key, TRUE, FALSE);
  UNKNOWN (vp8, vp8_ext_short, sizeof vp8_ext_short);
  UNKNOWN (vp8, vp8_cont, sizeof vp8_cont);
  UNKNOWN (RTPCC_SENDBUF_CODEC_OTHER, idr, sizeof idr);
  UNKNOWN (vp8, NULL, 4);
#undef CLASSIFY
#undef UNKNOWN

  /* a receiver's key-frame check: pictures only, parameter sets not */
  {
    const guint8 stap_sps_idr[] = { 0x18, 0x00, 0x02, 0x67, 0x42, 0x00,
      0x02, 0x65, 0x88
    };
    fail_unless (rtpcc_frametype_has_keyframe (h264, idr, sizeof idr));
    fail_unless (rtpcc_frametype_has_keyframe (h264, fua_idr,
            sizeof fua_idr));
    fail_unless (rtpcc_frametype_has_keyframe (h264, stap_sps_idr,
            sizeof stap_sps_idr));
    fail_if (rtpcc_frametype_has_keyframe (h264, stap_sps_pps,
            sizeof stap_sps_pps));
    fail_if (rtpcc_frametype_has_keyframe (h264, p_ref, sizeof p_ref));
    fail_if (rtpcc_frametype_has_keyframe (h264, fua_p, sizeof fua_p));
    fail_if (rtpcc_frametype_has_keyframe (h264, stap_bad,
            sizeof stap_bad));
    fail_if (rtpcc_frametype_has_keyframe (h264, idr, 0));
    fail_unless (rtpcc_frametype_has_keyframe (vp8, vp8_key,
            sizeof vp8_key));
    fail_unless (rtpcc_frametype_has_keyframe (vp8, vp8_ext_key,
            sizeof vp8_ext_key));
    fail_if (rtpcc_frametype_has_keyframe (vp8, vp8_delta,
            sizeof vp8_delta));
    fail_if (rtpcc_frametype_has_keyframe (vp8, vp8_cont, sizeof vp8_cont));
    fail_if (rtpcc_frametype_has_keyframe (RTPCC_SENDBUF_CODEC_OTHER, idr,
            sizeof idr));
    fail_if (rtpcc_frametype_has_keyframe (vp8, NULL, 4));
  }
}

GST_END_TEST;

/* drop_dependents with frames whose first packet tells nothing (AUD): a
 * new frame of a broken stream is held until a packet shows a keyframe,
 * and dropped if none does. */
GST_START_TEST (test_dependents_held_until_known)
{
  RtpccSendbufConfig c;
  RtpccSendbuf *sb;
  RtpccSendbufPacket p = { 0 };
  const RtpccSendbufStats *st;

  rtpcc_sendbuf_config_init (&c);
  c.policy = RTPCC_SENDBUF_SFDPS1;
  c.drop_dependents = TRUE;
  sb = rtpcc_sendbuf_new (&c);
  st = rtpcc_sendbuf_get_stats (sb);
  p.ssrc = VIDEO;
  p.size = 100;
  p.marker = TRUE;
  /* a delta frame expires: the stream is broken */
  rtpcc_sendbuf_enqueue (sb, 0, &p, NULL);
  fail_unless (rtpcc_sendbuf_dequeue (sb, MS (300), NULL) == NULL);
  /* AUD first, then a delta slice: held, then dropped at its end */
  p.marker = FALSE;
  p.type_unknown = TRUE;
  p.rtp_ts = 1;
  p.created = MS (300);
  fail_unless (rtpcc_sendbuf_enqueue (sb, MS (300), &p, NULL));
  fail_unless_equals_int64 (rtpcc_sendbuf_next_time (sb, MS (300)),
      RTPCC_TIME_NONE);
  fail_unless (rtpcc_sendbuf_dequeue (sb, MS (300), NULL) == NULL);
  p.type_unknown = FALSE;
  p.marker = TRUE;
  fail_unless (!rtpcc_sendbuf_enqueue (sb, MS (300), &p, NULL));
  fail_unless_equals_int (st->dropped_by_reason[RTPCC_SENDBUF_DROP_DEPENDENT],
      2);
  /* AUD, then IDR: held until the IDR, then sent whole */
  p.marker = FALSE;
  p.type_unknown = TRUE;
  p.rtp_ts = 2;
  fail_unless (rtpcc_sendbuf_enqueue (sb, MS (300), &p, NULL));
  p.type_unknown = FALSE;
  p.keyframe = TRUE;
  fail_unless (rtpcc_sendbuf_enqueue (sb, MS (300), &p, NULL));
  fail_unless (rtpcc_sendbuf_next_time (sb, MS (300)) != RTPCC_TIME_NONE);
  rtpcc_sendbuf_dequeue (sb, MS (300), NULL);
  rtpcc_sendbuf_dequeue (sb, MS (300), NULL);
  fail_unless_equals_int (st->sent_packets, 2);
  /* the stream is whole again: the next delta frame goes */
  p.keyframe = FALSE;
  p.marker = TRUE;
  p.rtp_ts = 3;
  fail_unless (rtpcc_sendbuf_enqueue (sb, MS (300), &p, NULL));
  fail_unless (rtpcc_sendbuf_dequeue (sb, MS (300), NULL) == NULL
      && st->sent_packets == 3);
  rtpcc_sendbuf_free (sb);
}

GST_END_TEST;

/* The frame type is the OR (key) and AND (droppable) over its packets. */
GST_START_TEST (test_frame_type_over_packets)
{
  RtpccSendbuf *sb = make (RTPCC_SENDBUF_RING, 2);
  RtpccSendbufPacket p = { 0 };

  p.ssrc = VIDEO;
  p.size = 100;
  /* frame A: SEI then IDR: a keyframe */
  p.rtp_ts = 1;
  p.seq = 1;
  rtpcc_sendbuf_enqueue (sb, 0, &p, GUINT_TO_POINTER (1));
  p.keyframe = TRUE;
  p.marker = TRUE;
  p.seq = 2;
  rtpcc_sendbuf_enqueue (sb, 0, &p, GUINT_TO_POINTER (2));
  /* frame B, newer delta: the overflow victim rather than A */
  p.keyframe = FALSE;
  p.rtp_ts = 2;
  p.seq = 3;
  rtpcc_sendbuf_enqueue (sb, 0, &p, GUINT_TO_POINTER (3));
  fail_unless (was_released (2) && !was_released (0) && !was_released (1));
  done (sb);
}

GST_END_TEST;

/* ---- the indexed scheduler against the naive one ------------------------ */

/* check's assertions cost a message each: compare in plain C and fail
 * with the place */
#define SAME(a, b) G_STMT_START {                                       \
    if ((gint64) (a) != (gint64) (b))                                   \
      fail ("seed %" G_GUINT64_FORMAT " step %u: %s: %" G_GINT64_FORMAT \
          " vs %" G_GINT64_FORMAT, seed, step, #a, (gint64) (a),        \
          (gint64) (b));                                                \
  } G_STMT_END

static GArray *released_ours, *released_naive;
static guint64 total_sent, total_dropped;

static void
release_ours (gpointer h)
{
  guint id = GPOINTER_TO_UINT (h);
  g_array_append_val (released_ours, id);
}

static void
release_naive (gpointer h)
{
  guint id = GPOINTER_TO_UINT (h);
  g_array_append_val (released_naive, id);
}

typedef struct
{
  guint32 ssrc;
  guint priority;
  guint16 seq;
  guint32 ts;
  guint left;                   /* packets left in the frame */
  gboolean key, droppable;
} RandStream;

static gboolean
same_releases (void)
{
  return released_ours->len == released_naive->len
      && (released_ours->len == 0
      || memcmp (released_ours->data, released_naive->data,
          released_ours->len * sizeof (guint)) == 0);
}

/* One random session: streams of random priorities and frame types,
 * random limits, drain rate, RTT and policy changes; every call's result,
 * every release and the statistics must be the naive scheduler's. */
static void
compare_session (guint64 seed)
{
  RtpccRng rng;
  RtpccSendbufConfig cfg;
  RtpccSendbuf *ours;
  NaiveSendbuf *naive;
  RandStream st[6];
  guint n_streams, next_id = 1;
  RtpccTime now = RTPCC_SEC (1);

  rtpcc_rng_init (&rng, seed);
  rtpcc_sendbuf_config_init (&cfg);
  cfg.policy = (RtpccSendbufPolicy) rtpcc_rng_below (&rng,
      RTPCC_SENDBUF_N_POLICIES);
  cfg.budget = RTPCC_MSEC (20 + rtpcc_rng_below (&rng, 300));
  cfg.playout_delay = RTPCC_MSEC (rtpcc_rng_below (&rng, 50));
  cfg.max_packets = rtpcc_rng_bernoulli (&rng, 0.6) ?
      4 + (guint) rtpcc_rng_below (&rng, 80) : 0;
  cfg.max_bytes = rtpcc_rng_bernoulli (&rng, 0.3) ?
      5000 + rtpcc_rng_below (&rng, 60000) : 0;
  cfg.max_frames = rtpcc_rng_bernoulli (&rng, 0.3) ?
      2 + (guint) rtpcc_rng_below (&rng, 30) : 0;
  cfg.drop_dependents = rtpcc_rng_bernoulli (&rng, 0.5);
  ours = rtpcc_sendbuf_new (&cfg);
  naive = naive_sendbuf_new (&cfg);
  rtpcc_sendbuf_set_free_func (ours, release_ours);
  naive_sendbuf_set_free_func (naive, release_naive);
  g_array_set_size (released_ours, 0);
  g_array_set_size (released_naive, 0);

  n_streams = 1 + (guint) rtpcc_rng_below (&rng, G_N_ELEMENTS (st));
  for (guint i = 0; i < n_streams; i++) {
    st[i].ssrc = 0x1000 + i;
    st[i].priority = (guint) rtpcc_rng_below (&rng, 9);  /* 8 is clamped */
    st[i].seq = (guint16) rtpcc_rng_next_u64 (&rng);
    st[i].ts = (guint32) rtpcc_rng_next_u64 (&rng);
    st[i].left = 0;
  }

  for (guint step = 0; step < 600; step++) {
    guint arrivals = (guint) rtpcc_rng_below (&rng, 6);
    guint sends = (guint) rtpcc_rng_below (&rng, 6);

    now += RTPCC_MSEC (rtpcc_rng_below (&rng, 6));
    if (rtpcc_rng_bernoulli (&rng, 0.02)) {
      RtpccSendbufPolicy p = (RtpccSendbufPolicy) rtpcc_rng_below (&rng,
          RTPCC_SENDBUF_N_POLICIES);
      rtpcc_sendbuf_set_policy (ours, p);
      naive_sendbuf_set_policy (naive, p);
    }
    if (rtpcc_rng_bernoulli (&rng, 0.05)) {
      RtpccTime rtt = RTPCC_MSEC (rtpcc_rng_below (&rng, 400));
      guint64 rate = rtpcc_rng_bernoulli (&rng, 0.3) ? 0 :
          100000 + rtpcc_rng_below (&rng, 5000000);
      rtpcc_sendbuf_set_rtt (ours, rtt);
      naive_sendbuf_set_rtt (naive, rtt);
      rtpcc_sendbuf_set_rate (ours, rate);
      naive_sendbuf_set_rate (naive, rate);
    }
    if (rtpcc_rng_bernoulli (&rng, 0.005)) {
      rtpcc_sendbuf_flush (ours);
      naive_sendbuf_flush (naive);
    }
    for (guint a = 0; a < arrivals; a++) {
      RandStream *r = &st[rtpcc_rng_below (&rng, n_streams)];
      RtpccSendbufPacket p = { 0, };
      gboolean a_ok, b_ok;

      if (r->left == 0) {
        /* a new frame (sometimes the last one ended without a marker) */
        r->ts += 3000;
        r->left = 1 + (guint) rtpcc_rng_below (&rng, 8);
        r->key = rtpcc_rng_bernoulli (&rng, 0.1);
        r->droppable = !r->key && rtpcc_rng_bernoulli (&rng, 0.3);
      }
      p.ssrc = r->ssrc;
      p.seq = r->seq++;
      p.rtp_ts = r->ts;
      r->left--;
      p.marker = r->left == 0 && !rtpcc_rng_bernoulli (&rng, 0.1);
      p.size = 100 + (guint) rtpcc_rng_below (&rng, 1300);
      p.priority = r->priority;
      p.created = rtpcc_rng_bernoulli (&rng, 0.05) ? RTPCC_TIME_NONE :
          now - RTPCC_MSEC (rtpcc_rng_below (&rng, 80));
      p.type_unknown = rtpcc_rng_bernoulli (&rng, 0.2);
      p.keyframe = r->key;
      p.droppable = r->droppable;
      a_ok = rtpcc_sendbuf_enqueue (ours, now, &p, GUINT_TO_POINTER (next_id));
      b_ok = naive_sendbuf_enqueue (naive, now, &p,
          GUINT_TO_POINTER (next_id));
      next_id++;
      SAME (a_ok, b_ok);
    }
    for (guint d = 0; d < sends; d++) {
      RtpccSendbufOut oa, ob;
      gpointer ha, hb;

      SAME (rtpcc_sendbuf_next_time (ours, now),
          naive_sendbuf_next_time (naive, now));
      ha = rtpcc_sendbuf_dequeue (ours, now, &oa);
      hb = naive_sendbuf_dequeue (naive, now, &ob);
      SAME (GPOINTER_TO_UINT (ha), GPOINTER_TO_UINT (hb));
      if (ha) {
        SAME (oa.seq, ob.seq);
        SAME (oa.age, ob.age);
        SAME (oa.frame_start, ob.frame_start);
        SAME (oa.packet.ssrc, ob.packet.ssrc);
        SAME (oa.packet.seq, ob.packet.seq);
      }
    }
    SAME (same_releases (), TRUE);
    SAME (memcmp (rtpcc_sendbuf_get_stats (ours),
            naive_sendbuf_get_stats (naive), sizeof (RtpccSendbufStats)), 0);
  }
  total_sent += rtpcc_sendbuf_get_stats (ours)->sent_packets;
  total_dropped += rtpcc_sendbuf_get_stats (ours)->dropped_packets;
  rtpcc_sendbuf_free (ours);
  naive_sendbuf_free (naive);
  fail_unless (same_releases ());
}

GST_START_TEST (test_indexed_matches_naive)
{
  released_ours = g_array_new (FALSE, FALSE, sizeof (guint));
  released_naive = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint64 seed = 1; seed <= 300; seed++)
    compare_session (seed);
  /* the sessions did send, and did drop */
  fail_unless (total_sent > 10000);
  fail_unless (total_dropped > 1000);
  g_array_unref (released_ours);
  g_array_unref (released_naive);
}

GST_END_TEST;

static Suite *
rtpcc_sendbuf_suite (void)
{
  Suite *s = suite_create ("rtpcc_sendbuf");
  TCase *tc = tcase_create ("sendbuf");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_policy_names);
  tcase_add_test (tc, test_priority_order);
  tcase_add_test (tc, test_audio_preempts_started_frame);
  tcase_add_test (tc, test_stream_order_kept);
  tcase_add_test (tc, test_sfdps1_expiry_vs_rtt);
  tcase_add_test (tc, test_sfdps2_lone_expired);
  tcase_add_test (tc, test_ring_overflow);
  tcase_add_test (tc, test_ring_protects_reference);
  tcase_add_test (tc, test_drop_dependents);
  tcase_add_test (tc, test_deadline_whole_frame);
  tcase_add_test (tc, test_deadline_frame_rate_reduction);
  tcase_add_test (tc, test_started_frame_continues);
  tcase_add_test (tc, test_renumbering);
  tcase_add_test (tc, test_drain_rate);
  tcase_add_test (tc, test_drain_clock_back);
  tcase_add_test (tc, test_has_room);
  tcase_add_test (tc, test_max_frame_bytes_and_frame_cap);
  tcase_add_test (tc, test_frame_room_for_encoder);
  tcase_add_test (tc, test_many_ssrcs_bounded);
  tcase_add_test (tc, test_classify_payloads);
  tcase_add_test (tc, test_frame_type_over_packets);
  tcase_add_test (tc, test_dependents_held_until_known);
  tcase_add_test (tc, test_indexed_matches_naive);
  return s;
}

GST_CHECK_MAIN (rtpcc_sendbuf);

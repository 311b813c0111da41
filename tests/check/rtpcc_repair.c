/* Unit tests for the receiver's loss-repair planner (repair.h), driven by
 * a small event loop: a 25 fps stream of 5-packet frames (1 ms apart,
 * 20 ms one way, RTP clock 90 kHz), a sender that answers each NACK with
 * an RTX packet one RTT later unless told to lose it, and FEC events at
 * chosen times. Every expected time below is computed in its comment.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#define MS(x) RTPCC_MSEC (x)
#define SSRC 0x5EED
#define PPF 5                   /* packets per frame */
#define FRAME MS (40)
#define OWD MS (20)
#define RTT MS (40)
#define NPKT 400

typedef enum
{
  EV_ORIGINAL,
  EV_RTX,
  EV_FEC,                       /* a packet rebuilt by FEC */
  EV_FEC_BLOCK,                 /* a complete FEC block: seq..seq+n-1 */
  EV_FEC_PARITY,                /* repair packets: seq + i × stride, i < n */
  EV_KEYFRAME,                  /* a key frame starting at seq */
  EV_CORRUPT,
} EvType;

typedef struct
{
  RtpccTime at;
  EvType type;
  guint seq;
  guint n, can_recover;         /* EV_FEC_BLOCK, EV_FEC_PARITY */
  guint stride;                 /* EV_FEC_PARITY */
  gboolean complete;            /* EV_FEC_PARITY */
} Ev;

typedef struct
{
  RtpccTime at;
  guint n_nack;
  guint16 nack[RTPCC_REPAIR_MAX_NACK];
  gboolean keyframe, repeat;
  guint8 fir_seq;
} Out;

typedef struct
{
  RtpccRepair *r;
  GArray *ev;                   /* Ev, by time (stable) */
  GArray *out;                  /* Out */
  guint n_packets;
  gboolean lost[NPKT];          /* originals lost */
  RtpccTime extra[NPKT];        /* originals delayed (reordering) */
  guint rtx_losses[NPKT];       /* RTX answers to lose, per seq */
  RtpccTime rtx_delay;          /* NACK → RTX arrival */
  guint nacks[NPKT];            /* NACKs per seq */
  gboolean sent;                /* the originals are scheduled */
} Sim;

static RtpccTime
sent_at (guint seq)
{
  return (RtpccTime) (seq / PPF) * FRAME + MS (seq % PPF);
}

static void
add_ev (Sim * s, RtpccTime at, EvType type, guint seq)
{
  Ev e = { at, type, seq, 0, 0, 1, FALSE };
  guint i = s->ev->len;

  /* keep time order, later insertions after equal times */
  while (i > 0 && g_array_index (s->ev, Ev, i - 1).at > at)
    i--;
  g_array_insert_val (s->ev, i, e);
}

static void
add_fec_block (Sim * s, RtpccTime at, guint first, guint n, guint can)
{
  add_ev (s, at, EV_FEC_BLOCK, first);
  for (guint i = 0; i < s->ev->len; i++) {
    Ev *e = &g_array_index (s->ev, Ev, i);
    if (e->type == EV_FEC_BLOCK && e->at == at && e->seq == first) {
      e->n = n;
      e->can_recover = can;
    }
  }
}

/* Repair packets of a block over @first + i × @stride (i < @n): @parity of
 * them in so far, @complete if no more come. */
static void
add_fec_parity (Sim * s, RtpccTime at, guint first, guint n, guint stride,
    guint parity, gboolean complete)
{
  Ev e = { at, EV_FEC_PARITY, first, n, parity, stride, complete };
  guint i = s->ev->len;

  while (i > 0 && g_array_index (s->ev, Ev, i - 1).at > at)
    i--;
  g_array_insert_val (s->ev, i, e);
}

static RtpccRepairConfig
default_config (void)
{
  RtpccRepairConfig c;

  rtpcc_repair_config_init (&c);
  return c;
}

static Sim *
sim_new (const RtpccRepairConfig * cfg, guint n_packets)
{
  Sim *s = g_new0 (Sim, 1);
  GError *err = NULL;

  s->r = rtpcc_repair_new (cfg, &err);
  fail_unless (s->r != NULL, "%s", err ? err->message : "");
  rtpcc_repair_set_rtt (s->r, RTT);
  s->ev = g_array_new (FALSE, FALSE, sizeof (Ev));
  s->out = g_array_new (FALSE, FALSE, sizeof (Out));
  s->n_packets = n_packets;
  s->rtx_delay = RTT;
  return s;
}

static void
sim_free (Sim * s)
{
  rtpcc_repair_free (s->r);
  g_array_free (s->ev, TRUE);
  g_array_free (s->out, TRUE);
  g_free (s);
}

/* Polls at @now; returns how many seqs it NACKed. */
static guint
sim_poll (Sim * s, RtpccTime now)
{
  RtpccRepairRequest req;

  if (!rtpcc_repair_poll (s->r, now, &req))
    return 0;
  fail_unless (req.ssrc == SSRC);
  {
    Out o = { now, req.n_nack, {0}, req.keyframe, req.keyframe_repeat,
      req.fir_seq
    };
    memcpy (o.nack, req.nack, sizeof (req.nack));
    g_array_append_val (s->out, o);
  }
  for (guint i = 0; i < req.n_nack; i++) {
    guint seq = req.nack[i];

    fail_unless (seq < s->n_packets);
    s->nacks[seq]++;
    if (s->rtx_losses[seq] > 0)
      s->rtx_losses[seq]--;
    else
      add_ev (s, now + s->rtx_delay, EV_RTX, seq);
  }
  return req.n_nack;
}

static void
sim_event (Sim * s, const Ev * e)
{
  guint16 seqs[64];
  guint seq = e->seq;

  switch (e->type) {
    case EV_ORIGINAL:
    case EV_RTX:
    case EV_FEC:
      rtpcc_repair_on_packet (s->r, e->at, SSRC, (guint16) seq,
          (guint32) (seq / PPF) * 3600, seq % PPF == PPF - 1,
          e->type == EV_ORIGINAL ? RTPCC_REPAIR_ORIGINAL : e->type ==
          EV_RTX ? RTPCC_REPAIR_RTX : RTPCC_REPAIR_FEC);
      break;
    case EV_FEC_BLOCK:
      for (guint i = 0; i < e->n; i++)
        seqs[i] = (guint16) (seq + i);
      rtpcc_repair_on_fec_block (s->r, e->at, seqs, e->n, e->can_recover);
      break;
    case EV_FEC_PARITY:
      for (guint i = 0; i < e->n; i++)
        seqs[i] = (guint16) (seq + i * e->stride);
      rtpcc_repair_on_fec_parity (s->r, e->at, seqs, e->n, e->can_recover,
          e->complete);
      break;
    case EV_KEYFRAME:
      rtpcc_repair_on_keyframe (s->r, e->at, (guint16) seq);
      break;
    case EV_CORRUPT:
      rtpcc_repair_on_corrupt (s->r, e->at);
      break;
  }
}

/* Runs the stream and the planner until @end (again: further on). */
static void
sim_run (Sim * s, RtpccTime end)
{
  guint guard = 0;

  for (guint seq = 0; seq < s->n_packets && !s->sent; seq++)
    if (!s->lost[seq])
      add_ev (s, sent_at (seq) + OWD + s->extra[seq], EV_ORIGINAL, seq);
  s->sent = TRUE;

  for (;;) {
    RtpccTime t = rtpcc_repair_next_timeout (s->r);
    guint n;

    if (s->ev->len > 0)
      t = MIN (t, g_array_index (s->ev, Ev, 0).at);
    if (t > end)
      break;
    while (s->ev->len > 0 && g_array_index (s->ev, Ev, 0).at == t) {
      Ev e = g_array_index (s->ev, Ev, 0);

      g_array_remove_index (s->ev, 0);
      sim_event (s, &e);
    }
    n = sim_poll (s, t);
    fail_unless (++guard < 100000, "the planner does not settle at %"
        G_GINT64_FORMAT, t);
    /* a timeout that poll() did nothing about would spin: it must move on,
     * unless the poll's NACK list was full (the rest is due at once) */
    if (n < RTPCC_REPAIR_MAX_NACK)
      fail_unless (rtpcc_repair_next_timeout (s->r) > t);
  }
}

#define END RTPCC_SEC (3)

/* A 50-packet stream that loses the original of @seq. */
static Sim *
sim_losing (const RtpccRepairConfig * cfg, guint seq)
{
  Sim *s = sim_new (cfg, 50);

  s->lost[seq] = TRUE;
  return s;
}

/* ... run to the end. */
static Sim *
run_losing (const RtpccRepairConfig * cfg, guint seq)
{
  Sim *s = sim_losing (cfg, seq);

  sim_run (s, END);
  return s;
}

static RtpccRepairStats
stats (Sim * s)
{
  RtpccRepairStats st;

  rtpcc_repair_get_stats (s->r, &st);
  return st;
}

static const Out *
out_at (Sim * s, guint i)
{
  fail_unless (i < s->out->len, "only %u requests", s->out->len);
  return &g_array_index (s->out, Out, i);
}

/* ---- the rules ------------------------------------------------------------ */

/* Seq 12 (frame 2, third packet, sent at 82 ms) is lost. Seq 13 arrives at
 * 80 + 3 + 20 = 103 ms and reveals the gap; after the 5 ms reorder wait,
 * at 108 ms, the NACK is due: 108 + 40 + 10 = 158 < deadline 80 + 20 +
 * 200 = 300. The RTX arrives at 148 ms: one NACK, nothing else. */
GST_START_TEST (test_single_loss_one_nack)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s = run_losing (&cfg, 12);
  RtpccRepairStats st;

  fail_unless_equals_int (s->out->len, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (108));
  fail_unless_equals_int (out_at (s, 0)->n_nack, 1);
  fail_unless_equals_int (out_at (s, 0)->nack[0], 12);
  fail_if (out_at (s, 0)->keyframe);
  fail_unless_equals_int64 (rtpcc_repair_deadline (s->r, 2 * 3600), MS (300));

  st = stats (s);
  fail_unless_equals_int (st.packets, 50);
  fail_unless_equals_int (st.losses, 1);
  fail_unless_equals_int (st.nack_requests, 1);
  fail_unless_equals_int (st.nacked, 1);
  fail_unless_equals_int (st.retries, 0);
  fail_unless_equals_int (st.recovered_rtx, 1);
  fail_unless_equals_int (st.gave_up, 0);
  fail_unless_equals_int (st.keyframe_requests, 0);
  fail_unless_equals_int (st.missing, 0);
  /* the NACK → RTX time was measured: 40 ms */
  fail_unless_equals_int64 (st.repair_rtt, MS (40));
  fail_unless_equals_int64 (rtpcc_repair_next_timeout (s->r),
      RTPCC_TIME_INFINITE);
  sim_free (s);
}

GST_END_TEST;

/* A loss that reached the receiver by another path (multipath): listed
 * while missing, then neither NACKed again nor given up with a key-frame
 * request; the same loss left alone is given up and asks for one. */
static RtpccRepairStats
lose_then (gboolean elsewhere)
{
  RtpccRepairConfig cfg = default_config ();
  RtpccRepair *r;
  RtpccRepairRequest req;
  RtpccRepairStats st;
  guint16 seqs[4];
  gboolean keyframe = FALSE;

  cfg.keyframe_feedback = TRUE;
  r = rtpcc_repair_new (&cfg, NULL);
  for (guint i = 0; i < 20; i++)
    if (i != 10)
      rtpcc_repair_on_packet (r, MS (10) * i, SSRC, (guint16) i, 900 * i,
          TRUE, RTPCC_REPAIR_ORIGINAL);
  fail_unless_equals_int (rtpcc_repair_get_missing (r, seqs, 4), 1);
  fail_unless_equals_int (seqs[0], 10);
  if (elsewhere) {
    fail_unless (rtpcc_repair_on_recovered_elsewhere (r, MS (200), 10));
    fail_if (rtpcc_repair_on_recovered_elsewhere (r, MS (200), 10));
    fail_if (rtpcc_repair_on_recovered_elsewhere (r, MS (200), 11));
    fail_unless_equals_int (rtpcc_repair_get_missing (r, seqs, 4), 0);
  }
  for (RtpccTime t = MS (200); t < MS (2000); t += MS (10))
    if (rtpcc_repair_poll (r, t, &req))
      keyframe |= req.keyframe;
  rtpcc_repair_get_stats (r, &st);
  fail_unless_equals_int (keyframe, !elsewhere);
  rtpcc_repair_free (r);
  return st;
}

GST_START_TEST (test_recovered_elsewhere)
{
  RtpccRepairStats st = lose_then (TRUE);

  fail_unless_equals_int (st.recovered_elsewhere, 1);
  fail_unless_equals_int (st.gave_up, 0);
  fail_unless_equals_int (st.keyframe_requests, 0);
  st = lose_then (FALSE);
  fail_unless_equals_int (st.recovered_elsewhere, 0);
  fail_unless_equals_int (st.gave_up, 1);
  fail_unless (st.keyframe_requests >= 1);
}

GST_END_TEST;

/* With a 50 ms playout delay the same loss is due at 80 + 20 + 50 =
 * 150 ms; at 108 ms a NACK's answer would land at 158: no NACK, the loss
 * is given up at once and a key frame asked for. */
GST_START_TEST (test_too_late_no_nack_keyframe)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.playout_delay = MS (50);
  s = run_losing (&cfg, 12);
  fail_unless_equals_int (s->out->len, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (108));
  fail_unless_equals_int (out_at (s, 0)->n_nack, 0);
  fail_unless (out_at (s, 0)->keyframe);
  fail_if (out_at (s, 0)->repeat);
  st = stats (s);
  fail_unless_equals_int (st.nacked, 0);
  fail_unless_equals_int (st.gave_up, 1);
  fail_unless_equals_int (st.gave_up_unnacked, 1);
  fail_unless_equals_int (st.keyframe_requests, 1);
  sim_free (s);
}

GST_END_TEST;

/* The rule is strict and exact: with a 58 ms playout delay the loss of
 * seq 12 is due at 80 + 20 + 58 = 158 ms, and a NACK at 108 would be
 * answered at 108 + 40 + 10 = 158, not before: given up. One nanosecond
 * more delay and it is NACKed. */
GST_START_TEST (test_deadline_edge)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;

  cfg.playout_delay = MS (58);  /* deadline 158: 108 + 50 is not before */
  s = run_losing (&cfg, 12);
  fail_unless_equals_int (stats (s).nacked, 0);
  fail_unless_equals_int (stats (s).gave_up, 1);
  sim_free (s);

  cfg.playout_delay = MS (58) + 1;      /* deadline 158 ms + 1 ns */
  s = run_losing (&cfg, 12);
  fail_unless_equals_int (stats (s).nacked, 1);
  fail_unless_equals_int (stats (s).gave_up, 0);
  sim_free (s);
}

GST_END_TEST;

/* Which frame a loss belongs to. Playout 60 ms. Seq 15 (first of frame 3)
 * lost: seq 14 ended frame 2 (marker), so the loss is frame 3's, due
 * 120 + 20 + 60 = 200 ms; seen at 141, lost at 146, 146 + 50 < 200: NACK.
 * Seq 14 (last of frame 2) lost: seq 13 had no marker, so it is frame 2's,
 * due 80 + 20 + 60 = 160; lost at 140 + 5, 145 + 50 > 160: given up. */
GST_START_TEST (test_frame_of_a_loss)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;

  cfg.playout_delay = MS (60);
  s = run_losing (&cfg, 15);
  fail_unless_equals_int (out_at (s, 0)->n_nack, 1);
  fail_unless_equals_int (out_at (s, 0)->nack[0], 15);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (146));
  fail_unless_equals_int (stats (s).gave_up, 0);
  sim_free (s);

  s = run_losing (&cfg, 14);
  fail_unless_equals_int (stats (s).nacked, 0);
  fail_unless_equals_int (stats (s).gave_up, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (145));
  fail_unless (out_at (s, 0)->keyframe);
  sim_free (s);
}

GST_END_TEST;

/* The tail probe. Playout 70 ms. Seq 14 (last of frame 2, due 80 + 20 +
 * 70 = 170 ms) lost: 13 arrives at 103 without the marker, so frame 2
 * goes on; its packets come 1 ms apart, so after 5 + 2 × 1 = 7 ms of
 * silence (110 ms) 14 is lost and NACKed at once: 110 + 50 < 170, its RTX
 * in at 150. Without the probe it is seen only with frame 3 (141 ms, lost
 * at 146): 146 + 50 > 170, given up. */
GST_START_TEST (test_tail_probe)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.playout_delay = MS (70);
  s = run_losing (&cfg, 14);
  fail_unless_equals_int (stats (s).gave_up, 1);
  fail_unless_equals_int (stats (s).nacked, 0);
  sim_free (s);

  cfg.tail_probe = TRUE;
  s = run_losing (&cfg, 14);
  st = stats (s);
  fail_unless_equals_int (st.tail_probes, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (110));
  fail_unless_equals_int (out_at (s, 0)->nack[0], 14);
  fail_unless_equals_int (st.recovered_rtx, 1);
  fail_unless_equals_int (st.gave_up, 0);
  fail_unless_equals_int (st.losses, 1);
  sim_free (s);

  /* a frame's last packet only late (12 ms, past the probe): NACKed for
   * nothing, but the original fills the gap when it comes */
  s = sim_new (&cfg, 50);
  s->extra[14] = MS (12);
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (st.tail_probes, 1);
  fail_unless_equals_int (st.late_originals, 1);
  fail_unless_equals_int (st.gave_up, 0);
  fail_unless_equals_int (st.duplicates, 1);    /* the RTX */
  sim_free (s);
}

GST_END_TEST;

/* A burst across a frame boundary: 14 (last of frame 2) and 15 (first of
 * frame 3) lost, revealed by 16 at 141 ms, lost at 146. Playout 60 ms.
 * 14 follows a packet without a marker: frame 2's, due 160, given up
 * (146 + 50 > 160). 15 may be frame 2's tail or frame 3's head: it gets
 * frame 3's deadline, 200, and is NACKed (146 + 50 < 200), its RTX in at
 * 186. */
GST_START_TEST (test_burst_across_frames)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.playout_delay = MS (60);
  s = sim_new (&cfg, 50);
  s->lost[14] = s->lost[15] = TRUE;
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (st.nacked, 1);
  fail_unless_equals_int (out_at (s, 0)->nack[0], 15);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (146));
  fail_unless_equals_int (st.recovered_rtx, 1);
  fail_unless_equals_int (st.gave_up, 1);
  sim_free (s);
}

GST_END_TEST;

/* A burst of 11..15 (across a frame boundary) is one poll, one NACK
 * packet, one FCI: PID 11, BLP 0x000F. */
GST_START_TEST (test_burst_one_nack_packet)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s = sim_new (&cfg, 50);
  RtpccNackFci fci[5];
  guint8 buf[64];
  gsize n;
  g_autoptr (RtpccNack) nack = NULL;

  for (guint i = 11; i <= 15; i++)
    s->lost[i] = TRUE;
  sim_run (s, END);
  fail_unless_equals_int (s->out->len, 1);
  fail_unless_equals_int (out_at (s, 0)->n_nack, 5);
  for (guint i = 0; i < 5; i++)
    fail_unless_equals_int (out_at (s, 0)->nack[i], 11 + i);
  fail_unless_equals_int (rtpcc_nack_fci_from_seqs (out_at (s, 0)->nack, 5,
          fci), 1);
  fail_unless_equals_int (fci[0].pid, 11);
  fail_unless_equals_int (fci[0].blp, 0x000F);
  n = rtpcc_nack_write_seqs (buf, sizeof (buf), 1, SSRC, out_at (s, 0)->nack,
      5);
  fail_unless_equals_int (n, 16);
  nack = rtpcc_nack_parse (buf, n, NULL);
  fail_unless (nack != NULL && nack->n_fci == 1);
  fail_unless_equals_int (stats (s).recovered_rtx, 5);
  fail_unless_equals_int (stats (s).nack_requests, 1);
  sim_free (s);
}

GST_END_TEST;

/* Seq 12 arriving 3 ms after seq 13 (at 106 ms, inside the 5 ms wait) is
 * reordering: no NACK. 9 ms late it is NACKed at 108, arrives at 112 (a
 * late original), and the reorder wait learns 1.5 × 9 = 13.5 ms: the same
 * reordering of seq 22 two frames later is then tolerated. */
GST_START_TEST (test_reorder_tolerance)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s = sim_new (&cfg, 50);
  RtpccRepairStats st;

  s->extra[12] = MS (4);        /* 82 + 20 + 4 = 106 */
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (s->out->len, 0);
  fail_unless_equals_int (st.reordered, 1);
  fail_unless_equals_int (st.losses, 0);
  fail_unless_equals_int64 (st.reorder_wait, MS (5));
  sim_free (s);

  s = sim_new (&cfg, 50);
  s->extra[12] = MS (10);       /* 112 */
  s->extra[22] = MS (10);       /* 122 + 10 = 132; seq 23 at 123 */
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (s->out->len, 1);
  fail_unless_equals_int (out_at (s, 0)->nack[0], 12);
  fail_unless_equals_int (st.late_originals, 1);
  fail_unless_equals_int (st.reordered, 1);
  fail_unless_equals_int64 (st.reorder_wait, MS (13) + RTPCC_USEC (500));
  /* the RTX of 12 came after the original: not needed */
  fail_unless_equals_int (st.duplicates, 1);
  fail_unless_equals_int (st.recovered_rtx, 0);
  /* the episode (first sample at 112 ms) is forgotten two windows later */
  {
    RtpccRepairRequest req;

    rtpcc_repair_poll (s->r, MS (4100), &req);
    fail_unless_equals_int64 (stats (s).reorder_wait, MS (13) +
        RTPCC_USEC (500));
    rtpcc_repair_poll (s->r, MS (4112), &req);
    fail_unless_equals_int64 (stats (s).reorder_wait, MS (5));
  }
  sim_free (s);
}

GST_END_TEST;

/* Every RTX is lost: NACKs at 108, 158, 208 (each RTT + margin = 50 ms
 * after the last), then max_nacks = 3 is reached; the loss is given up at
 * its deadline (300 ms) and a key frame asked for then. With max_nacks 10
 * the deadline ends it the same way: at 258, 258 + 50 > 300. With 2, two
 * NACKs. */
GST_START_TEST (test_retries_bounded)
{
  RtpccRepairConfig cfg = default_config ();
  guint max[] = { 3, 10, 2 }, want[] = { 3, 3, 2 };

  for (guint k = 0; k < G_N_ELEMENTS (max); k++) {
    Sim *s;
    RtpccRepairStats st;

    cfg.max_nacks = max[k];
    s = sim_losing (&cfg, 12);
    s->rtx_losses[12] = 100;
    sim_run (s, END);
    fail_unless_equals_int (s->nacks[12], want[k]);
    for (guint i = 0; i < want[k]; i++) {
      fail_unless_equals_int64 (out_at (s, i)->at, MS (108 + 50 * i));
      fail_unless_equals_int (out_at (s, i)->nack[0], 12);
    }
    fail_unless_equals_int (s->out->len, want[k] + 1);
    fail_unless_equals_int64 (out_at (s, want[k])->at, MS (300));
    fail_unless (out_at (s, want[k])->keyframe);
    st = stats (s);
    fail_unless_equals_int (st.retries, want[k] - 1);
    fail_unless_equals_int (st.gave_up, 1);
    fail_unless_equals_int (st.gave_up_unnacked, 0);
    fail_unless_equals_int64 (st.repair_rtt, 0);
    sim_free (s);
  }

  /* max_nacks 0: no NACK ever, a loss is a key-frame request */
  cfg.max_nacks = 0;
  {
    Sim *s = run_losing (&cfg, 12);

    fail_unless_equals_int (s->out->len, 1);
    fail_unless (out_at (s, 0)->keyframe);
    fail_unless_equals_int64 (out_at (s, 0)->at, MS (108));
    sim_free (s);
  }
}

GST_END_TEST;

/* The first RTX lost, the second in time: repaired by the retry. Karn:
 * the answer to a retried seq is no RTT sample. */
GST_START_TEST (test_retry_repairs)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s = sim_losing (&cfg, 12);
  RtpccRepairStats st;

  s->rtx_losses[12] = 1;
  sim_run (s, END);
  fail_unless_equals_int (s->out->len, 2);
  fail_unless_equals_int64 (out_at (s, 1)->at, MS (158));
  st = stats (s);
  fail_unless_equals_int (st.recovered_rtx, 1);
  fail_unless_equals_int (st.retries, 1);
  fail_unless_equals_int (st.keyframe_requests, 0);
  fail_unless_equals_int64 (st.repair_rtt, 0);
  sim_free (s);
}

GST_END_TEST;

/* ---- FEC ------------------------------------------------------------------ */

/* FEC window 30 ms: the loss of 12, seen at 103, waits for FEC until 133
 * (before its deadline, 300). */
GST_START_TEST (test_fec_recovers_no_nack)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.fec_window = MS (30);
  s = sim_losing (&cfg, 12);
  add_ev (s, MS (125), EV_FEC, 12);
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (s->out->len, 0);
  fail_unless_equals_int (st.recovered_fec, 1);
  fail_unless_equals_int (st.fec_waits, 1);
  fail_unless_equals_int (st.nacked, 0);
  sim_free (s);
}

GST_END_TEST;

/* The FEC packet never comes: NACK when the window ends, at 133 ms. */
GST_START_TEST (test_fec_window_ends_nack)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;

  cfg.fec_window = MS (30);
  s = run_losing (&cfg, 12);
  fail_unless_equals_int (s->out->len, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (133));
  fail_unless_equals_int (out_at (s, 0)->nack[0], 12);
  fail_unless_equals_int (stats (s).recovered_rtx, 1);
  sim_free (s);

  /* a window that would end after the deadline protects nothing: the
   * loss is NACKed at once (playout 100 ms: due at 200; window 100 ms
   * would end at 203) */
  cfg.fec_window = MS (100);
  cfg.playout_delay = MS (100);
  s = run_losing (&cfg, 12);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (108));
  fail_unless_equals_int (stats (s).fec_waits, 0);
  sim_free (s);
}

GST_END_TEST;

/* A complete block over 10..14 that can rebuild one packet arrives at
 * 110 ms with two missing (11, 12): FEC cannot alone. One retransmission
 * is enough: 11 is NACKed at once, inside the FEC window, and 12 is held
 * back for an RTT + margin (until 160), since FEC rebuilds it once 11 is
 * in (RTX at 150, the rebuild at 151). If that RTX is lost, 12 is NACKed
 * at 160 with 11's retry. With one missing FEC can: no NACK even after
 * the window, and if FEC never delivers, the loss is given up at its
 * deadline (300 ms). */
GST_START_TEST (test_fec_block_decides)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.fec_window = MS (30);
  s = sim_new (&cfg, 50);
  s->lost[11] = s->lost[12] = TRUE;
  add_fec_block (s, MS (110), 10, 5, 1);
  add_ev (s, MS (151), EV_FEC, 12);
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (s->out->len, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (110));
  fail_unless_equals_int (out_at (s, 0)->n_nack, 1);
  fail_unless_equals_int (out_at (s, 0)->nack[0], 11);
  fail_unless_equals_int (st.recovered_rtx, 1);
  fail_unless_equals_int (st.recovered_fec, 1);
  fail_unless_equals_int (st.fec_unrecoverable, 1);
  sim_free (s);

  s = sim_new (&cfg, 50);
  s->lost[11] = s->lost[12] = TRUE;
  s->rtx_losses[11] = 1;
  add_fec_block (s, MS (110), 10, 5, 1);
  sim_run (s, END);
  fail_unless_equals_int (s->out->len, 2);
  fail_unless_equals_int64 (out_at (s, 1)->at, MS (160));
  fail_unless_equals_int (out_at (s, 1)->n_nack, 2);
  fail_unless_equals_int (stats (s).recovered_rtx, 2);
  sim_free (s);

  s = sim_losing (&cfg, 12);
  add_fec_block (s, MS (110), 10, 5, 1);
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (st.nacked, 0);
  fail_unless_equals_int (st.gave_up, 1);
  fail_unless_equals_int (s->out->len, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (300));
  fail_unless (out_at (s, 0)->keyframe);
  sim_free (s);
}

GST_END_TEST;

/* FEC is waited for only if a NACK after the window can still be
 * answered. Playout 70 ms: the loss of 12 (frame 2, media time 80 ms,
 * transit 20 ms) is due at 170 ms. Declared at 108; a 30 ms window from
 * 103 ends at 133, and a NACK then would be answered at 133 + 40 + 10 =
 * 183, too late: no wait, the NACK leaves at 108 and its answer (148)
 * repairs the loss. */
GST_START_TEST (test_fec_wait_leaves_time_to_nack)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.fec_window = MS (30);
  cfg.playout_delay = MS (70);
  s = run_losing (&cfg, 12);
  st = stats (s);
  fail_unless_equals_int (s->out->len, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (108));
  fail_unless_equals_int (st.fec_waits, 0);
  fail_unless_equals_int (st.recovered_rtx, 1);
  fail_unless_equals_int (st.gave_up, 0);
  sim_free (s);

  /* playout 100 ms (due 200): 183 < 200, so it waits; FEC does not come
   * and the NACK at 133 is still answered (173) */
  cfg.playout_delay = MS (100);
  s = run_losing (&cfg, 12);
  st = stats (s);
  fail_unless_equals_int (st.fec_waits, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (133));
  fail_unless_equals_int (st.recovered_rtx, 1);
  sim_free (s);
}

GST_END_TEST;

/* 2-D XOR: 11 and 12 lost; the row 10..14 alone (one repair packet, two
 * losses) cannot rebuild them, but the column 12, 17, 22 rebuilds 12 and
 * then the row rebuilds 11, as a peeling decoder does. Neither is NACKed;
 * without the column one is, at once (110 ms). */
GST_START_TEST (test_fec_peels_2d)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.fec_window = MS (30);
  s = sim_new (&cfg, 50);
  s->lost[11] = s->lost[12] = TRUE;
  add_fec_parity (s, MS (110), 10, 5, 1, 1, TRUE);
  add_fec_parity (s, MS (110), 12, 3, 5, 1, TRUE);
  add_ev (s, MS (120), EV_FEC, 12);
  add_ev (s, MS (120), EV_FEC, 11);
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (st.nacked, 0);
  fail_unless_equals_int (st.fec_rebuildable, 2);
  fail_unless_equals_int (st.recovered_fec, 2);
  fail_unless_equals_int (s->out->len, 0);
  sim_free (s);

  s = sim_new (&cfg, 50);
  s->lost[11] = s->lost[12] = TRUE;
  add_fec_parity (s, MS (110), 10, 5, 1, 1, TRUE);
  sim_run (s, END);
  st = stats (s);
  /* one retransmission lets the row rebuild the other */
  fail_unless_equals_int (st.fec_unrecoverable, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (110));
  fail_unless_equals_int (out_at (s, 0)->n_nack, 1);
  sim_free (s);
}

GST_END_TEST;

/* Reed-Solomon, two repair rows over 10..14, 11 and 12 lost: the first
 * row (110 ms, not the last) neither rebuilds both nor gives up on them;
 * the second (112 ms) makes both rebuildable. FEC decoded downstream: the
 * rebuilds are never reported, and at the deadline the losses are left to
 * the decoder: nothing NACKed, nothing given up, no key frame asked for. */
GST_START_TEST (test_fec_rs_rows_downstream)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.fec_window = MS (30);
  cfg.fec_downstream = TRUE;
  s = sim_new (&cfg, 50);
  s->lost[11] = s->lost[12] = TRUE;
  add_fec_parity (s, MS (110), 10, 5, 1, 1, FALSE);
  add_fec_parity (s, MS (112), 10, 5, 1, 2, TRUE);
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (st.nacked, 0);
  fail_unless_equals_int (st.fec_unrecoverable, 0);
  fail_unless_equals_int (st.fec_rebuildable, 2);
  fail_unless_equals_int (st.fec_left, 2);
  fail_unless_equals_int (st.gave_up, 0);
  fail_unless_equals_int (st.keyframe_requests, 0);
  fail_unless_equals_int (s->out->len, 0);
  sim_free (s);

  /* the second row lost (the first was the last one sent): complete with
   * one row, two losses: one NACKed at once; once its retransmission is
   * in (150 ms), the row rebuilds the other downstream */
  s = sim_new (&cfg, 50);
  s->lost[11] = s->lost[12] = TRUE;
  add_fec_parity (s, MS (110), 10, 5, 1, 1, TRUE);
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (s->out->len, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (110));
  fail_unless_equals_int (out_at (s, 0)->n_nack, 1);
  fail_unless_equals_int (st.recovered_rtx, 1);
  fail_unless_equals_int (st.fec_left, 1);
  fail_unless_equals_int (st.gave_up, 0);
  sim_free (s);
}

GST_END_TEST;

/* No configured window: the planner learns it from the repair packets.
 * A block over 5..9 (frame 1: first packet arrives at 40 + 20 = 60 ms)
 * whose repair packet comes at 72 ms: a 12 ms window. The loss of 12,
 * revealed at 103, then waits until 115 and is NACKed then. */
GST_START_TEST (test_fec_window_learnt)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  s = sim_losing (&cfg, 12);
  add_fec_parity (s, MS (72), 5, 5, 1, 1, TRUE);
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int64 (st.fec_window, MS (12));
  fail_unless_equals_int (st.fec_waits, 1);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (115));
  fail_unless_equals_int (st.recovered_rtx, 1);
  sim_free (s);
}

GST_END_TEST;

/* ---- key frames ------------------------------------------------------------- */

/* Playout 50 ms: every loss is given up when declared. Losses of 12, 37,
 * 62, 87 (frames 2, 7, 12, 17: declared at 108, 308, 508, 708 ms).
 * Interval max(2 × 40, 300) = 300 ms: requests at 108, then 408 (the
 * loss at 308 waited), then 708 (508's waited; 708's is covered by the
 * 708 request, detected before it). */
GST_START_TEST (test_keyframe_rate_limit)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccTime want[] = { MS (108), MS (408), MS (708) };

  cfg.playout_delay = MS (50);
  s = sim_new (&cfg, 100);
  s->lost[12] = s->lost[37] = s->lost[62] = s->lost[87] = TRUE;
  sim_run (s, END);
  fail_unless_equals_int (s->out->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
    fail_unless_equals_int64 (out_at (s, i)->at, want[i]);
    fail_unless (out_at (s, i)->keyframe);
    fail_if (out_at (s, i)->repeat);
    /* each a new command: FIR numbers 1, 2, 3 */
    fail_unless_equals_int (out_at (s, i)->fir_seq, i + 1);
  }
  fail_unless_equals_int (stats (s).gave_up, 4);
  sim_free (s);

  /* a 200 ms RTT makes it 400 ms: 108, 508 (308 waited), then 708's loss
   * is detected after 508: 908 */
  s = sim_new (&cfg, 100);
  rtpcc_repair_set_rtt (s->r, MS (200));
  s->lost[12] = s->lost[37] = s->lost[62] = s->lost[87] = TRUE;
  sim_run (s, END);
  fail_unless_equals_int (s->out->len, 3);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (108));
  fail_unless_equals_int64 (out_at (s, 1)->at, MS (508));
  fail_unless_equals_int64 (out_at (s, 2)->at, MS (908));
  sim_free (s);
}

GST_END_TEST;

/* One burst: 12 (frame 2) and 17 (frame 3) lost with every RTX; given up
 * at their deadlines 300 and 340 ms. One request at 300 covers both: the
 * second loss was seen (at 143 ms) before the request. */
GST_START_TEST (test_keyframe_covers_earlier_losses)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s = sim_new (&cfg, 50);

  s->lost[12] = s->lost[17] = TRUE;
  s->rtx_losses[12] = s->rtx_losses[17] = 100;
  sim_run (s, END);
  fail_unless_equals_int (stats (s).gave_up, 2);
  fail_unless_equals_int (stats (s).keyframe_requests, 1);
  sim_free (s);
}

GST_END_TEST;

/* With key-frame feedback, an unanswered request is repeated every 300 ms
 * with the same FIR number until the key frame arrives; the next breakage
 * is a new command. The key frame also drops the losses before it. */
GST_START_TEST (test_keyframe_feedback_repeats)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.playout_delay = MS (50);
  cfg.keyframe_feedback = TRUE;
  s = sim_new (&cfg, 100);
  s->lost[12] = TRUE;
  add_ev (s, MS (750), EV_KEYFRAME, 90);
  add_ev (s, MS (1000), EV_CORRUPT, 0);
  sim_run (s, MS (1200));
  /* 108, 408, 708 (repeats), key frame at 750, corrupt at 1000 */
  fail_unless_equals_int (s->out->len, 4);
  for (guint i = 0; i < 3; i++) {
    fail_unless_equals_int64 (out_at (s, i)->at, MS (108 + 300 * i));
    fail_unless_equals_int (out_at (s, i)->fir_seq, 1);
    fail_unless_equals_int (out_at (s, i)->repeat, i > 0);
  }
  /* 1000 is 292 ms after the last request: it waits until 1008 */
  fail_unless_equals_int64 (out_at (s, 3)->at, MS (1008));
  fail_unless_equals_int (out_at (s, 3)->fir_seq, 2);
  fail_if (out_at (s, 3)->repeat);
  st = stats (s);
  fail_unless_equals_int (st.keyframe_requests, 4);
  fail_unless_equals_int (st.keyframe_repeats, 2);
  fail_unless_equals_int (st.keyframes, 1);
  fail_unless_equals_int (st.corrupt_reports, 1);
  /* and it is repeated until a key frame comes */
  sim_run (s, MS (1700));
  fail_unless_equals_int (s->out->len, 6);
  fail_unless_equals_int64 (out_at (s, 5)->at, MS (1608));
  fail_unless_equals_int (out_at (s, 5)->fir_seq, 2);
  fail_unless (out_at (s, 5)->repeat);
  sim_free (s);
}

GST_END_TEST;

/* Repeats are bounded: with two allowed, an unanswered request goes out
 * at 108, 408 and 708 ms; at 1008 it is given up (no request). The next
 * breakage (a corruption report at 1500) asks again, a new command. */
GST_START_TEST (test_keyframe_repeats_bounded)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;
  RtpccRepairStats st;

  cfg.playout_delay = MS (50);
  cfg.keyframe_feedback = TRUE;
  cfg.max_keyframe_repeats = 2;
  s = sim_new (&cfg, 100);
  s->lost[12] = TRUE;
  sim_run (s, MS (1400));
  fail_unless_equals_int (s->out->len, 3);
  for (guint i = 0; i < 3; i++) {
    fail_unless_equals_int64 (out_at (s, i)->at, MS (108 + 300 * i));
    fail_unless_equals_int (out_at (s, i)->repeat, i > 0);
  }
  st = stats (s);
  fail_unless_equals_int (st.keyframe_repeats, 2);
  fail_unless_equals_int (st.keyframe_unanswered, 1);
  add_ev (s, MS (1500), EV_CORRUPT, 0);
  sim_run (s, MS (1600));
  fail_unless_equals_int (s->out->len, 4);
  fail_unless_equals_int64 (out_at (s, 3)->at, MS (1500));
  fail_unless_equals_int (out_at (s, 3)->fir_seq, 2);
  fail_if (out_at (s, 3)->repeat);
  sim_free (s);
}

GST_END_TEST;

/* A key frame at seq 15 drops the NACK list before it: seq 12, whose RTX
 * are all lost, is not given up and asks for nothing more. */
GST_START_TEST (test_keyframe_drops_older_losses)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s = sim_losing (&cfg, 12);
  RtpccRepairStats st;

  s->rtx_losses[12] = 100;
  add_ev (s, MS (130), EV_KEYFRAME, 15);
  sim_run (s, END);
  fail_unless_equals_int (s->out->len, 1);    /* the NACK at 108 only */
  st = stats (s);
  fail_unless_equals_int (st.gave_up, 0);
  fail_unless_equals_int (st.keyframe_requests, 0);
  fail_unless_equals_int (st.missing, 0);
  sim_free (s);
}

GST_END_TEST;

/* ---- stream edges ------------------------------------------------------------ */

/* 300 consecutive losses: NACKs of 128 + 128 + 44 at the same instant. */
GST_START_TEST (test_many_losses_split)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s = sim_new (&cfg, 400);

  for (guint i = 50; i < 350; i++)
    s->lost[i] = TRUE;
  /* seq 350 (frame 70) at 2820 ms reveals the gap; all of it takes frame
   * 70's deadline (seq 49 ended frame 9), 2800 + 20 + 200 = 3020 */
  sim_run (s, RTPCC_SEC (4));
  fail_unless_equals_int (s->out->len, 3);
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (2825));
  fail_unless_equals_int (out_at (s, 0)->n_nack, RTPCC_REPAIR_MAX_NACK);
  fail_unless_equals_int (out_at (s, 1)->n_nack, RTPCC_REPAIR_MAX_NACK);
  fail_unless_equals_int (out_at (s, 2)->n_nack, 44);
  fail_unless_equals_int64 (out_at (s, 1)->at, out_at (s, 0)->at);
  fail_unless_equals_int64 (out_at (s, 2)->at, out_at (s, 0)->at);
  fail_unless_equals_int (out_at (s, 0)->nack[0], 50);
  fail_unless_equals_int (out_at (s, 2)->nack[43], 349);
  sim_free (s);
}

GST_END_TEST;

/* More missing than max_missing: the list is dropped, a key frame asked
 * for, nothing NACKed. */
GST_START_TEST (test_overflow)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s;

  cfg.max_missing = 20;
  s = sim_new (&cfg, 100);
  for (guint i = 10; i < 31; i++)
    s->lost[i] = TRUE;
  sim_run (s, END);
  fail_unless_equals_int (stats (s).overflows, 1);
  fail_unless_equals_int (stats (s).nacked, 0);
  fail_unless_equals_int (s->out->len, 1);
  fail_unless (out_at (s, 0)->keyframe);
  /* revealed by seq 31 at 6 × 40 + 1 + 20 = 261 ms, asked at once */
  fail_unless_equals_int64 (out_at (s, 0)->at, MS (261));
  sim_free (s);
}

GST_END_TEST;

GST_START_TEST (test_restart_ssrc_duplicates)
{
  RtpccRepair *r = rtpcc_repair_new (NULL, NULL);
  RtpccRepairRequest req;
  RtpccRepairStats st;

  rtpcc_repair_set_rtt (r, RTT);
  rtpcc_repair_on_packet (r, MS (0), SSRC, 100, 0, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  rtpcc_repair_on_packet (r, MS (1), SSRC, 101, 0, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  rtpcc_repair_on_packet (r, MS (2), SSRC, 101, 0, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  /* a lone jump of 5000 is ignored; confirmed by its successor it is a
   * restart: no gap of 5000 */
  rtpcc_repair_on_packet (r, MS (3), SSRC, 5101, 0, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  rtpcc_repair_on_packet (r, MS (4), SSRC, 102, 0, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  rtpcc_repair_on_packet (r, MS (5), SSRC, 9000, 0, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  rtpcc_repair_on_packet (r, MS (6), SSRC, 9001, 0, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  rtpcc_repair_on_packet (r, MS (7), SSRC, 9003, 0, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  rtpcc_repair_get_stats (r, &st);
  fail_unless_equals_int (st.duplicates, 1);
  fail_unless_equals_int (st.restarts, 1);
  fail_unless_equals_int (st.missing, 1);       /* 9002 */
  fail_unless (rtpcc_repair_poll (r, MS (50), &req));
  fail_unless_equals_int (req.n_nack, 1);
  fail_unless_equals_int (req.nack[0], 9002);

  /* another SSRC: a new stream, nothing of the old one is left */
  rtpcc_repair_on_packet (r, MS (60), SSRC + 1, 7, 0, FALSE,
      RTPCC_REPAIR_ORIGINAL);
  rtpcc_repair_get_stats (r, &st);
  fail_unless_equals_int (st.ssrc_changes, 1);
  fail_unless_equals_int (st.missing, 0);
  fail_if (rtpcc_repair_poll (r, MS (500), &req));
  fail_unless (req.ssrc == SSRC + 1);
  fail_unless_equals_int64 (rtpcc_repair_next_timeout (r),
      RTPCC_TIME_INFINITE);
  rtpcc_repair_free (r);
}

GST_END_TEST;

/* Without a configured RTT: initial_rtt (100 ms) until an RTX answers a
 * single NACK; then that time (smoothed 1/8 per sample). */
GST_START_TEST (test_measured_rtt)
{
  RtpccRepairConfig cfg = default_config ();
  Sim *s = sim_new (&cfg, 100);
  RtpccRepairStats st;

  rtpcc_repair_set_rtt (s->r, RTPCC_TIME_NONE);
  st = stats (s);
  fail_unless_equals_int64 (st.rtt, MS (100));
  s->rtx_delay = MS (60);
  s->lost[12] = s->lost[62] = TRUE;
  sim_run (s, END);
  st = stats (s);
  fail_unless_equals_int (st.recovered_rtx, 2);
  fail_unless_equals_int64 (st.repair_rtt, MS (60));
  fail_unless_equals_int64 (st.rtt, MS (60));
  /* a configured RTT wins */
  rtpcc_repair_set_rtt (s->r, MS (30));
  fail_unless_equals_int64 (stats (s).rtt, MS (30));
  sim_free (s);
}

GST_END_TEST;

GST_START_TEST (test_config_validate)
{
  RtpccRepairConfig c;
  GError *err = NULL;

  rtpcc_repair_config_init (&c);
  fail_unless (rtpcc_repair_config_validate (&c, NULL));
  c.clock_rate = 0;
  fail_if (rtpcc_repair_new (&c, &err));
  fail_unless (g_error_matches (err, RTPCC_ERROR, RTPCC_ERROR_INVALID));
  g_clear_error (&err);
  rtpcc_repair_config_init (&c);
  c.reorder_max = MS (1);
  fail_if (rtpcc_repair_config_validate (&c, NULL));
  rtpcc_repair_config_init (&c);
  c.initial_rtt = 0;
  fail_if (rtpcc_repair_config_validate (&c, NULL));
  rtpcc_repair_config_init (&c);
  c.max_missing = 0;
  fail_if (rtpcc_repair_config_validate (&c, NULL));
  rtpcc_repair_config_init (&c);
  c.playout_delay = -1;
  fail_if (rtpcc_repair_config_validate (&c, NULL));
}

GST_END_TEST;

static Suite *
rtpcc_repair_suite (void)
{
  Suite *s = suite_create ("rtpcc_repair");
  TCase *tc = tcase_create ("nack");
  TCase *tc_fec = tcase_create ("fec");
  TCase *tc_key = tcase_create ("keyframe");
  TCase *tc_edge = tcase_create ("edges");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_single_loss_one_nack);
  tcase_add_test (tc, test_recovered_elsewhere);
  tcase_add_test (tc, test_too_late_no_nack_keyframe);
  tcase_add_test (tc, test_deadline_edge);
  tcase_add_test (tc, test_frame_of_a_loss);
  tcase_add_test (tc, test_burst_across_frames);
  tcase_add_test (tc, test_tail_probe);
  tcase_add_test (tc, test_burst_one_nack_packet);
  tcase_add_test (tc, test_reorder_tolerance);
  tcase_add_test (tc, test_retries_bounded);
  tcase_add_test (tc, test_retry_repairs);

  suite_add_tcase (s, tc_fec);
  tcase_add_test (tc_fec, test_fec_recovers_no_nack);
  tcase_add_test (tc_fec, test_fec_window_ends_nack);
  tcase_add_test (tc_fec, test_fec_block_decides);
  tcase_add_test (tc_fec, test_fec_wait_leaves_time_to_nack);
  tcase_add_test (tc_fec, test_fec_peels_2d);
  tcase_add_test (tc_fec, test_fec_rs_rows_downstream);
  tcase_add_test (tc_fec, test_fec_window_learnt);

  suite_add_tcase (s, tc_key);
  tcase_add_test (tc_key, test_keyframe_rate_limit);
  tcase_add_test (tc_key, test_keyframe_covers_earlier_losses);
  tcase_add_test (tc_key, test_keyframe_feedback_repeats);
  tcase_add_test (tc_key, test_keyframe_repeats_bounded);
  tcase_add_test (tc_key, test_keyframe_drops_older_losses);

  suite_add_tcase (s, tc_edge);
  tcase_add_test (tc_edge, test_many_losses_split);
  tcase_add_test (tc_edge, test_overflow);
  tcase_add_test (tc_edge, test_restart_ssrc_duplicates);
  tcase_add_test (tc_edge, test_measured_rtt);
  tcase_add_test (tc_edge, test_config_validate);
  return s;
}

GST_CHECK_MAIN (rtpcc_repair);

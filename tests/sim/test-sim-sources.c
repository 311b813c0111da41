/* CBR and frame-based synthetic sources.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

#include <math.h>

typedef struct
{
  RtpccTime at;
  SimPacket p;                  /* copy of the fields */
} Seen;

typedef struct
{
  SimNode node;
  GArray *seen;
} Catcher;

static void
catch_receive (SimNode * node, Sim * sim, SimPacket * packet)
{
  Catcher *c = (Catcher *) node;
  Seen s = { sim_now (sim), *packet };
  g_array_append_val (c->seen, s);
  sim_packet_free (sim, packet);
}

static void
catcher_init (Catcher * c)
{
  c->node.receive = catch_receive;
  c->node.name = "catcher";
  c->seen = g_array_new (FALSE, FALSE, sizeof (Seen));
}

#define SEEN(c, i) (&g_array_index ((c)->seen, Seen, (i)))

/* ---- CBR ---------------------------------------------------------------- */

static void
test_cbr_grid (void)
{
  Sim *sim = sim_new ();
  Catcher c;
  SimCbrConfig cfg;
  SimSource *src;

  catcher_init (&c);
  sim_cbr_config_init (&cfg);
  cfg.rate_bps = 1000000;
  cfg.packet_size = 1200;       /* 9.6 ms */
  cfg.start = RTPCC_MSEC (100);
  cfg.stop = RTPCC_SEC (10);
  src = sim_cbr_source_new (sim, &cfg, &c.node);
  sim_run_until (sim, RTPCC_SEC (20));

  /* [0.1 s, 10 s) every 9.6 ms */
  g_assert_cmpuint (c.seen->len, ==, 1032);
  for (guint i = 0; i < c.seen->len; i++) {
    g_assert_cmpint (SEEN (&c, i)->at, ==, RTPCC_MSEC (100) +
        (RtpccTime) i * RTPCC_USEC (9600));
    g_assert_cmpuint (SEEN (&c, i)->p.seq, ==, i);
    g_assert_cmpint (SEEN (&c, i)->p.sent, ==, SEEN (&c, i)->at);
    g_assert_cmpuint (SEEN (&c, i)->p.size, ==, 1200);
  }
  g_assert_cmpuint (src->packets_sent, ==, 1032);
  g_assert_cmpuint (sim_pending_events (sim), ==, 0);
  sim_source_free (src);
  sim_free (sim);
  g_array_free (c.seen, TRUE);
}

static void
test_cbr_rate_changes (void)
{
  Sim *sim = sim_new ();
  Catcher c;
  SimCbrConfig cfg;
  SimSource *src;
  guint n1, n2;

  catcher_init (&c);
  sim_cbr_config_init (&cfg);
  cfg.rate_bps = 3000000;       /* 1000 B every 8/3 ms: remainders */
  cfg.packet_size = 1000;
  src = sim_cbr_source_new (sim, &cfg, &c.node);
  sim_run_until (sim, RTPCC_SEC (3));
  n1 = c.seen->len;
  /* exact long-run rate despite the non-integer spacing */
  g_assert_cmpuint (n1, ==, 1126);      /* t = 0 .. 3 s inclusive: 1125 + 1 */
  g_assert_cmpint (SEEN (&c, n1 - 1)->at, ==, RTPCC_SEC (3));

  /* halve the rate: the next packet is one new interval after the last */
  sim_source_set_rate (src, 1500000);
  g_assert_cmpuint (sim_source_get_rate (src), ==, 1500000);
  sim_run_until (sim, RTPCC_SEC (6));
  n2 = c.seen->len;
  g_assert_cmpint (SEEN (&c, n1)->at, ==, RTPCC_SEC (3) + 5333333);
  g_assert_cmpuint (n2 - n1, ==, 562);

  /* pause, then resume later: restarts at once */
  sim_source_set_rate (src, 0);
  sim_run_until (sim, RTPCC_SEC (8));
  g_assert_cmpuint (c.seen->len, ==, n2);
  sim_source_set_rate (src, 800000);
  sim_run_until (sim, RTPCC_SEC (9));
  g_assert_cmpint (SEEN (&c, n2)->at, ==, RTPCC_SEC (8));
  g_assert_cmpuint (c.seen->len - n2, ==, 101);      /* 10 ms spacing */

  sim_source_free (src);
  g_assert_cmpuint (sim_pending_events (sim), ==, 0);
  sim_free (sim);
  g_array_free (c.seen, TRUE);
}

/* ---- frames ------------------------------------------------------------- */

typedef struct
{
  guint64 frames, keyframes;
  gdouble key_bytes, delta_bytes;       /* payload */
} FrameTally;

/* Walks the packets of whole frames in [t0, t1) and checks packetization. */
static void
tally_frames (Catcher * c, const SimFrameConfig * cfg, RtpccTime t0,
    RtpccTime t1, FrameTally * t)
{
  guint i = 0;

  memset (t, 0, sizeof (*t));
  while (i < c->seen->len) {
    const Seen *first = SEEN (c, i);
    guint n = first->p.frame_packets;
    guint64 payload = 0;

    g_assert_cmpuint (first->p.frame_packet, ==, 0);
    g_assert_cmpuint (n, >=, 1);
    g_assert_cmpuint (i + n, <=, c->seen->len);
    for (guint j = 0; j < n; j++) {
      const Seen *s = SEEN (c, i + j);
      g_assert_cmpuint (s->p.frame, ==, first->p.frame);
      g_assert_cmpuint (s->p.frame_packet, ==, j);
      g_assert_cmpuint (s->p.size, <=, cfg->mtu);
      g_assert_cmpuint (s->p.size, >, cfg->overhead);
      g_assert_cmpint (s->p.keyframe, ==, first->p.keyframe);
      g_assert_cmpint (s->p.marker, ==, j + 1 == n);
      g_assert_cmpint (s->p.created, ==, first->p.created);
      /* all but the last are full */
      if (j + 1 < n)
        g_assert_cmpuint (s->p.size, ==, cfg->mtu);
      payload += s->p.size - cfg->overhead;
    }
    if (first->p.created >= t0 && first->p.created < t1) {
      t->frames++;
      if (first->p.keyframe) {
        t->keyframes++;
        t->key_bytes += payload;
      } else {
        t->delta_bytes += payload;
      }
    }
    i += n;
  }
}

static void
test_frames_bitrate_keyframes (void)
{
  Sim *sim = sim_new ();
  Catcher c;
  SimFrameConfig cfg;
  SimSource *src;
  FrameTally t;
  SimFrameStats st;
  gdouble mean_bps, key_mean, delta_mean;

  catcher_init (&c);
  sim_frame_config_init (&cfg);
  cfg.target_bps = 1000000;
  cfg.fps = 25;
  cfg.keyframe_interval = 50;
  cfg.keyframe_ratio = 4.0;
  cfg.noise = 0.2;
  cfg.mtu = 1200;
  cfg.overhead = 40;
  cfg.seed = 3;
  src = sim_frame_source_new (sim, &cfg, &c.node);
  sim_run_until (sim, RTPCC_SEC (200) - 1);

  tally_frames (&c, &cfg, 0, RTPCC_SEC (200), &t);
  g_assert_cmpuint (t.frames, ==, 5000);
  g_assert_cmpuint (t.keyframes, ==, 100);
  mean_bps = (t.key_bytes + t.delta_bytes) * 8.0 / 200.0;
  key_mean = t.key_bytes / t.keyframes;
  delta_mean = t.delta_bytes / (t.frames - t.keyframes);
  g_test_message ("mean %.0f bit/s, keyframe %.0f B, delta %.0f B",
      mean_bps, key_mean, delta_mean);
  g_assert_cmpfloat (fabs (mean_bps - 1e6) / 1e6, <, 0.03);
  g_assert_cmpfloat (key_mean / delta_mean, >, 3.0);
  g_assert_cmpfloat (key_mean / delta_mean, <, 5.0);

  sim_frame_source_get_stats (src, &st);
  g_assert_cmpuint (st.frames, ==, 5000);
  g_assert_cmpuint (st.keyframes, ==, 100);
  g_assert_cmpfloat ((gdouble) st.payload_bytes, ==, t.key_bytes +
      t.delta_bytes);
  /* frame k at exactly k / fps */
  for (guint i = 0; i < c.seen->len; i++)
    g_assert_cmpint (SEEN (&c, i)->p.created, ==,
        (RtpccTime) SEEN (&c, i)->p.frame * RTPCC_MSEC (40));

  sim_source_free (src);
  sim_free (sim);
  g_array_free (c.seen, TRUE);
}

static void
test_frames_target_change (void)
{
  Sim *sim = sim_new ();
  Catcher c;
  SimFrameConfig cfg;
  SimSource *src;
  FrameTally before, after;
  gdouble r0, r1;

  catcher_init (&c);
  sim_frame_config_init (&cfg);
  cfg.target_bps = 2000000;
  cfg.fps = 30;
  cfg.noise = 0.1;
  cfg.seed = 11;
  src = sim_frame_source_new (sim, &cfg, &c.node);
  sim_run_until (sim, RTPCC_SEC (60));
  sim_source_set_rate (src, 300000);
  sim_run_until (sim, RTPCC_SEC (120) - 1);

  tally_frames (&c, &cfg, RTPCC_SEC (1), RTPCC_SEC (60), &before);
  tally_frames (&c, &cfg, RTPCC_MSEC (60001), RTPCC_SEC (120), &after);
  r0 = (before.key_bytes + before.delta_bytes) * 8.0 / 59.0;
  r1 = (after.key_bytes + after.delta_bytes) * 8.0 / 60.0;
  g_test_message ("before %.0f bit/s, after %.0f bit/s", r0, r1);
  g_assert_cmpfloat (fabs (r0 - 2e6) / 2e6, <, 0.03);
  g_assert_cmpfloat (fabs (r1 - 3e5) / 3e5, <, 0.03);

  /* forced keyframe on the next frame */
  sim_frame_source_force_keyframe (src);
  {
    guint n = c.seen->len;
    sim_run_until (sim, RTPCC_SEC (121));
    g_assert_true (SEEN (&c, n)->p.keyframe);
    g_assert_false (SEEN (&c, c.seen->len - 1)->p.keyframe);
  }
  sim_source_free (src);
  sim_free (sim);
  g_array_free (c.seen, TRUE);
}

static void
test_frames_pacing (void)
{
  Sim *sim = sim_new ();
  Catcher c;
  SimFrameConfig cfg;
  SimSource *src;

  catcher_init (&c);
  sim_frame_config_init (&cfg);
  cfg.target_bps = 3000000;     /* 15000 B per frame: ~13 packets */
  cfg.noise = 0;
  cfg.pacing = RTPCC_MSEC (20);
  src = sim_frame_source_new (sim, &cfg, &c.node);
  sim_run_until (sim, RTPCC_SEC (2));

  for (guint i = 0; i < c.seen->len; i++) {
    const Seen *s = SEEN (&c, i);
    RtpccTime expect = s->p.created +
        cfg.pacing * s->p.frame_packet / s->p.frame_packets;
    g_assert_cmpint (s->at, ==, expect);
    g_assert_cmpint (s->p.sent, ==, s->at);
    if (i > 0)
      g_assert_cmpint (s->at, >=, SEEN (&c, i - 1)->at);
  }
  /* the first frame is a keyframe (4x); the second is a 15000 B delta */
  g_assert_cmpuint (SEEN (&c, 0)->p.frame_packets, ==, 50);
  g_assert_cmpuint (SEEN (&c, 50)->p.frame, ==, 1);
  g_assert_cmpuint (SEEN (&c, 50)->p.frame_packets, ==, 13);
  /* freeing with packets still waiting in the pacer leaks nothing */
  sim_run_until (sim, RTPCC_SEC (2) + RTPCC_MSEC (5));
  sim_source_free (src);
  g_assert_cmpuint (sim_packets_live (sim), ==, 0);
  sim_free (sim);
  g_array_free (c.seen, TRUE);

  /* back to back: every packet of a frame at its capture time */
  sim = sim_new ();
  catcher_init (&c);
  cfg.pacing = 0;
  src = sim_frame_source_new (sim, &cfg, &c.node);
  sim_run_until (sim, RTPCC_SEC (1));
  for (guint i = 0; i < c.seen->len; i++)
    g_assert_cmpint (SEEN (&c, i)->at, ==, SEEN (&c, i)->p.created);
  sim_source_free (src);
  sim_free (sim);
  g_array_free (c.seen, TRUE);
}

static void
test_frames_seeds (void)
{
  guint64 bytes[3];
  guint64 seeds[3] = { 5, 5, 6 };

  for (guint k = 0; k < 3; k++) {
    Sim *sim = sim_new ();
    SimSink sink;
    SimFrameConfig cfg;
    SimSource *src;

    sim_sink_init (&sink);
    sim_frame_config_init (&cfg);
    cfg.seed = seeds[k];
    src = sim_frame_source_new (sim, &cfg, &sink.node);
    sim_run_until (sim, RTPCC_SEC (10));
    bytes[k] = sink.bytes;
    sim_source_free (src);
    sim_free (sim);
  }
  g_assert_cmpuint (bytes[0], ==, bytes[1]);
  g_assert_cmpuint (bytes[0], !=, bytes[2]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/source/cbr/grid", test_cbr_grid);
  g_test_add_func ("/sim/source/cbr/rate-changes", test_cbr_rate_changes);
  g_test_add_func ("/sim/source/frames/bitrate-keyframes",
      test_frames_bitrate_keyframes);
  g_test_add_func ("/sim/source/frames/target-change",
      test_frames_target_change);
  g_test_add_func ("/sim/source/frames/pacing", test_frames_pacing);
  g_test_add_func ("/sim/source/frames/seeds", test_frames_seeds);
  return g_test_run ();
}

/* Same seed, same bytes: runs replay exactly; another seed gives another run.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs the §5.1 schedule with a noisy frame source or CBR and a lossy,
 * jittery link; returns the live CSV log as written to a FILE. */
static gchar *
run_log (SimSourceKind kind, guint64 seed, gsize * len)
{
  SimOneWayConfig cfg;
  SimOneWay *ow;
  gchar *buf = NULL;
  gsize size = 0;
  FILE *f = open_memstream (&buf, &size);
  GString *again = g_string_new (NULL);

  g_assert_nonnull (f);
  sim_oneway_config_init (&cfg);
  cfg.source = kind;
  cfg.cbr.rate_bps = 1200000;
  cfg.frames.target_bps = 1500000;
  cfg.frames.keyframe_interval = 60;
  cfg.frames.noise = 0.3;
  cfg.frames.seed = seed;
  cfg.link.capacity =
      rtpcc_capacity_new_schedule ("1000@0,2500@40,600@60,1000@80", NULL);
  cfg.link.delay = RTPCC_MSEC (50);
  cfg.link.jitter = RTPCC_MSEC (3);
  cfg.link.loss.loss = 0.01;
  cfg.link.seed = seed;
  cfg.log = f;
  ow = sim_oneway_new (&cfg);
  rtpcc_capacity_unref (cfg.link.capacity);
  sim_oneway_run (ow, RTPCC_SEC (100));
  fclose (f);

  /* the rows kept in memory print exactly as the live log */
  sim_metrics_write_csv (ow->metrics, again);
  g_assert_cmpuint (again->len, ==, size);
  g_assert_cmpint (memcmp (again->str, buf, size), ==, 0);
  g_assert_true (g_str_has_prefix (buf, SIM_METRICS_CSV_HEADER));
  g_string_free (again, TRUE);

  sim_oneway_free (ow);
  *len = size;
  return buf;
}

static void
check_kind (SimSourceKind kind)
{
  gsize la, lb, lc;
  gchar *a = run_log (kind, 1, &la);
  gchar *b = run_log (kind, 1, &lb);
  gchar *c = run_log (kind, 2, &lc);

  /* header + 500 rows */
  {
    guint lines = 0;
    for (gsize i = 0; i < la; i++)
      lines += a[i] == '\n';
    g_assert_cmpuint (lines, ==, 501);
  }
  g_assert_cmpuint (la, ==, lb);
  g_assert_cmpint (memcmp (a, b, la), ==, 0);
  g_assert_true (la != lc || memcmp (a, c, la) != 0);
  free (a);
  free (b);
  free (c);
}

static void
test_frames_replay (void)
{
  check_kind (SIM_SOURCE_FRAMES);
}

static void
test_cbr_loss_replay (void)
{
  check_kind (SIM_SOURCE_CBR);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/determinism/frames", test_frames_replay);
  g_test_add_func ("/sim/determinism/cbr-loss", test_cbr_loss_replay);
  return g_test_run ();
}

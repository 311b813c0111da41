/* Benchmark (not a test): the RFC 8867 §5.1 case, 100 simulated seconds, with
 * a CBR source at 2x the highest capacity (the heaviest packet load of the
 * case) and with the frame source at R_max; prints the wall time and the
 * simulated seconds per wall-clock second.
 *
 *   bench-sim [repeats (default 20)]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

#include <stdlib.h>

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

static void
bench (const gchar * name, SimSourceKind kind, guint64 rate_bps, guint reps)
{
  gdouble *wall = g_new (gdouble, reps);
  guint64 events = 0, packets = 0;

  for (guint r = 0; r < reps; r++) {
    SimOneWayConfig cfg;
    SimOneWay *ow;
    gint64 t0, t1;

    t0 = g_get_monotonic_time ();
    sim_oneway_config_init (&cfg);
    cfg.source = kind;
    cfg.cbr.rate_bps = rate_bps;
    cfg.frames.target_bps = rate_bps;
    cfg.frames.seed = r;
    cfg.link.capacity =
        rtpcc_capacity_new_schedule ("1000@0,2500@40,600@60,1000@80", NULL);
    cfg.link.delay = RTPCC_MSEC (50);
    cfg.link.seed = r;
    ow = sim_oneway_new (&cfg);
    rtpcc_capacity_unref (cfg.link.capacity);
    sim_oneway_run (ow, RTPCC_SEC (100));
    events = sim_events_run (ow->sim);
    packets = ow->source->packets_sent;
    sim_oneway_free (ow);
    t1 = g_get_monotonic_time ();
    wall[r] = (t1 - t0) / 1e6;
  }
  qsort (wall, reps, sizeof (gdouble), cmp_double);
  g_print ("%-28s median %.4f s  min %.4f s  max %.4f s  "
      "=> %.0f sim-s/wall-s (median)  [%" G_GUINT64_FORMAT " packets, %"
      G_GUINT64_FORMAT " events per run, %u runs]\n", name,
      wall[reps / 2], wall[0], wall[reps - 1], 100.0 / wall[reps / 2],
      packets, events, reps);
  g_free (wall);
}

int
main (int argc, char **argv)
{
  guint reps = argc > 1 ? (guint) atoi (argv[1]) : 20;

  if (reps == 0)
    reps = 1;
  g_print ("RFC 8867 5.1 (1000@0,2500@40,600@60,1000@80 kbit/s, 300 ms queue, "
      "50 ms delay), 100 s simulated per run\n");
  bench ("cbr 5000 kbit/s, 1200 B", SIM_SOURCE_CBR, 5000000, reps);
  bench ("frames 1500 kbit/s, 25 fps", SIM_SOURCE_FRAMES, 1500000, reps);
  return 0;
}

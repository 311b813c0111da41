/* A fixed arrival trace through RtpccPlayout, for counting the
 * instructions of rtpcc_playout_push with callgrind
 * (tests/playout/callgrind-playout):
 *
 *   playout-cost MODE [SUBFLOWS [PACKETS]]    MODE: adaptive | singh | fixed
 *
 * One packet every 10 ms (90 kHz clock, frames of 3 packets), spread over
 * SUBFLOWS paths (default 1) with 30 ms + uniform 0..20 ms delay, path i
 * 10·i ms slower, seeded; every due packet is popped at each arrival.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/rtpcc.h>
#include <rtpcc/playout.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  RtpccTime arrival;
  guint i;
} Arr;

static int
cmp_arr (const void *a, const void *b)
{
  const Arr *x = a, *y = b;

  if (x->arrival != y->arrival)
    return (x->arrival > y->arrival) - (x->arrival < y->arrival);
  return (x->i > y->i) - (x->i < y->i);
}

int
main (int argc, char **argv)
{
  RtpccPlayoutConfig c;
  RtpccPlayout *p;
  RtpccPlayoutStats st;
  RtpccRng rng;
  guint subflows = 1, n = 20000;
  Arr *a;

  if (argc < 2) {
    fprintf (stderr, "usage: %s adaptive|singh|fixed [SUBFLOWS [PACKETS]]\n",
        argv[0]);
    return 2;
  }
  rtpcc_playout_config_init (&c);
  if (strcmp (argv[1], "singh") == 0)
    c.mode = RTPCC_PLAYOUT_MODE_SINGH;
  else if (strcmp (argv[1], "fixed") == 0) {
    c.mode = RTPCC_PLAYOUT_MODE_FIXED;
    c.min_delay = RTPCC_MSEC (40);
  } else if (strcmp (argv[1], "adaptive") != 0) {
    fprintf (stderr, "unknown mode %s\n", argv[1]);
    return 2;
  }
  if (argc > 2)
    subflows = CLAMP (atoi (argv[2]), 1, RTPCC_PLAYOUT_MAX_SUBFLOWS);
  if (argc > 3)
    n = (guint) atoi (argv[3]);

  rtpcc_rng_init (&rng, 7);
  a = g_new (Arr, n);
  for (guint i = 0; i < n; i++) {
    a[i].i = i;
    a[i].arrival = RTPCC_MSEC (10) * i + RTPCC_MSEC (30) +
        RTPCC_MSEC (10) * (i % subflows) +
        (RtpccTime) rtpcc_rng_below (&rng, RTPCC_MSEC (20));
  }
  qsort (a, n, sizeof (Arr), cmp_arr);

  p = rtpcc_playout_new (&c);
  for (guint k = 0; k < n; k++) {
    guint i = a[k].i;

    rtpcc_playout_push (p, a[k].arrival, i % subflows, (guint16) i,
        (guint32) (i / 3) * 2700, GUINT_TO_POINTER (i + 1));
    while (rtpcc_playout_pop (p, a[k].arrival, NULL, NULL));
  }
  rtpcc_playout_get_stats (p, &st);
  printf ("pushed %u released %" G_GUINT64_FORMAT " late %" G_GUINT64_FORMAT
      " target %.1f ms\n", n, st.released, st.late,
      RTPCC_TIME_AS_MSEC (st.target_delay));
  rtpcc_playout_free (p, NULL);
  g_free (a);
  return 0;
}

/* How many calls one core carries, and what a call costs in memory.
 *
 * A call is a sender pipeline and a receiver pipeline in this process,
 * over UDP on 127.0.0.1, fed bench-stream.h's packets (100 packets/s of
 * 1200 bytes: a 1 Mbit/s call) by one feeding thread for all calls, their
 * pushes spread over each 10 ms:
 *   minimal  appsrc ! rtpccsink controller=gcc  ->  rtpccsrc ! fakesink
 *   full     appsrc ! sendbuffer ! fecenc follow-target=false ! rtpccsink
 *              ->  rtpccsrc ! fecdec ! playoutbuffer ! fakesink
 *   stock    appsrc ! udpsink  ->  udpsrc ! rtpjitterbuffer ! fakesink
 * Each measurement is a child process pinned to one CPU (sched_setaffinity,
 * as taskset does) with N calls: 2 s of warm-up, then S seconds in which
 * the process CPU time is measured, then the feeding stops and, after 1.5
 * s, every packet pushed must have reached its fakesink.
 *
 *   - CPU per call: % of the core per call at a fixed N (default 20).
 *   - Capacity: N ramps up per kind until a step loses a packet, needs
 *     more than 90 % of the core, or cannot feed on time (the feeding
 *     thread more than 100 ms behind its schedule: the calls are not
 *     carried in real time); the largest N that passed is reported.
 *   - Memory per call: resident set growth over the process with no call
 *     (plugins loaded) divided by N, at the fixed N.
 *   - Long call: one full call at 10x the packet rate (1000 packets/s) for
 *     60 s, i.e. the packets of a 10-minute 1 Mbit/s call (60000 of the
 *     65536 sequence numbers), with RSS sampled every 5 s; the growth from
 *     the first sixth of the run to its end is reported (packet-count
 *     histories fill as in 10 minutes; time-based ones, all under 60 s,
 *     fill too). Stock beside it. Flat: less than 256 KiB of growth.
 * All of it is wall-clock on a shared machine: noisy. Other processes on
 * the pinned core take CPU time from the calls and can fail a ramp step
 * early; each run says how much of the core they took (/proc/stat), and a
 * failed step they disturbed is run again.
 *
 *   bench-scale [--smoke|--quick] [--cpu C] [--calls N] [--seconds S]
 *               [--no-ramp] [--no-long] [--long-seconds L]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench-measure.h"
#include "bench-port.h"
#include "bench-report.h"
#include "bench-stream.h"

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define RX_CAPS "caps=\"" BENCH_CAPS "\""
#define RTPCCSINK "rtpccsink name=net host=127.0.0.1 port=@PORT@ controller=gcc " \
    "start-bitrate=@START@ max-bitrate=@MAX@ encoder-control=none " \
    "sync=false async=false"
#define HEADROOM 0.9
/* the feeding may fall this far behind its 10 ms schedule, no more */
#define MAX_LATE_MS 100

typedef enum
{
  CALL_MINIMAL,
  CALL_FULL,
  CALL_STOCK,
} CallKind;

static const struct
{
  const gchar *name;
  const gchar *tx, *rx;
} kinds[] = {
  {"minimal", "appsrc name=src ! " RTPCCSINK,
      "rtpccsrc name=net port=0 " RX_CAPS " ! fakesink name=sink"},
  {"full", "appsrc name=src ! sendbuffer ! fecenc follow-target=false ! "
        RTPCCSINK, "rtpccsrc name=net port=0 " RX_CAPS
        " ! fecdec ! playoutbuffer ! fakesink name=sink"},
  {"stock", "appsrc name=src ! udpsink name=net host=127.0.0.1 "
        "port=@PORT@ sync=false async=false", "udpsrc name=net port=0 " RX_CAPS
        " ! rtpjitterbuffer ! fakesink name=sink"},
};

/* ---- the child: N calls on one core -------------------------------------- */

typedef struct
{
  GstElement *tx, *rx;
  GstElement *src, *sink;
  guint64 pushed;
} Call;

static gint bus_errors;

/* an error is counted (the first printed) */
static void
look_at (GstMessage * m)
{
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR
      && g_atomic_int_add (&bus_errors, 1) == 0) {
    GError *err = NULL;

    gst_message_parse_error (m, &err, NULL);
    g_printerr ("bench-scale: %s: %s\n", GST_OBJECT_NAME (m->src),
        err->message);
    g_clear_error (&err);
  }
}

static GstBusSyncReply
bus_drop (GstBus * bus, GstMessage * m, gpointer data)
{
  look_at (m);
  /* nobody reads the buses: queued messages would pile up. A sync
   * handler that drops a message owns it (GstBusSyncHandler). */
  gst_message_unref (m);
  return GST_BUS_DROP;
}

static gchar *
replace (const gchar * s, const gchar * key, const gchar * value)
{
  gchar **parts = g_strsplit (s, key, -1);
  gchar *out = g_strjoinv (value, parts);

  g_strfreev (parts);
  return out;
}

/* @desc in PAUSED, its socket ("net") on a port of its own. */
static GstElement *
launch (const gchar * desc, guint * port)
{
  GError *err = NULL;
  GstElement *p = bench_pipeline_bound (desc, "net", port, &err);
  GstBus *bus;
  GstMessage *m;

  if (!p) {
    g_printerr ("bench-scale: %s\n", err->message);
    g_clear_error (&err);
    return NULL;
  }
  bus = gst_element_get_bus (p);
  gst_bus_set_sync_handler (bus, bus_drop, NULL, NULL);
  /* what was posted before the handler: looked at, then dropped too */
  while ((m = gst_bus_pop (bus))) {
    look_at (m);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return p;
}

static gboolean
call_start (Call * c, CallKind kind, guint rate)
{
  GstCaps *caps;
  guint port = 0;
  gchar num[32], *d1, *d2, *d3;
  guint64 bps = (guint64) rate * BENCH_PKT_SIZE * 8;

  memset (c, 0, sizeof *c);
  if (!(c->rx = launch (kinds[kind].rx, &port)))
    return FALSE;
  c->sink = gst_bin_get_by_name (GST_BIN (c->rx), "sink");

  g_snprintf (num, sizeof num, "%u", port);
  d1 = replace (kinds[kind].tx, "@PORT@", num);
  /* the controller starts above the stream (FEC included) */
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, 2 * bps);
  d2 = replace (d1, "@START@", num);
  g_snprintf (num, sizeof num, "%" G_GUINT64_FORMAT, 4 * bps);
  d3 = replace (d2, "@MAX@", num);
  c->tx = launch (d3, NULL);
  g_free (d1);
  g_free (d2);
  g_free (d3);
  if (!c->tx)
    return FALSE;
  c->src = gst_bin_get_by_name (GST_BIN (c->tx), "src");
  caps = gst_caps_from_string (BENCH_CAPS);
  g_object_set (c->src, "caps", caps, "is-live", TRUE, "format",
      GST_FORMAT_TIME, "do-timestamp", TRUE, NULL);
  gst_caps_unref (caps);
  gst_element_set_state (c->rx, GST_STATE_PLAYING);
  gst_element_set_state (c->tx, GST_STATE_PLAYING);
  return TRUE;
}

static void
call_stop (Call * c)
{
  if (c->tx)
    gst_element_set_state (c->tx, GST_STATE_NULL);
  if (c->rx)
    gst_element_set_state (c->rx, GST_STATE_NULL);
  g_clear_object (&c->src);
  g_clear_object (&c->sink);
  g_clear_object (&c->tx);
  g_clear_object (&c->rx);
}

static guint64
call_delivered (Call * c)
{
  GstStructure *st = NULL;
  guint64 n = 0;

  g_object_get (c->sink, "stats", &st, NULL);
  if (st) {
    gst_structure_get_uint64 (st, "rendered", &n);
    gst_structure_free (st);
  }
  return n;
}

static guint64
rss_kib (void)
{
  gchar *text = NULL;
  guint64 pages = 0;

  if (g_file_get_contents ("/proc/self/statm", &text, NULL, NULL))
    sscanf (text, "%*u %" G_GUINT64_FORMAT, &pages);
  g_free (text);
  return pages * (guint64) sysconf (_SC_PAGESIZE) / 1024;
}

/* Busy time of @cpu so far, ns, every process (/proc/stat): what the
 * others took of the pinned core is this minus our own CPU time. */
static guint64
cpu_busy_ns (gint cpu)
{
  gchar *text = NULL, key[16];
  guint64 busy = 0;

  g_snprintf (key, sizeof key, "\ncpu%d ", cpu);
  if (g_file_get_contents ("/proc/stat", &text, NULL, NULL)) {
    const gchar *l = strstr (text, key);
    guint64 v[8] = { 0, };

    /* user nice system idle iowait irq softirq steal */
    if (l && sscanf (l + strlen (key), "%" G_GUINT64_FORMAT " %"
            G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
            G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
            G_GUINT64_FORMAT, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
            &v[6], &v[7]) == 8)
      busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  }
  g_free (text);
  return busy * (1000000000 / (guint64) sysconf (_SC_CLK_TCK));
}

/* One feeding thread for all calls: each packet period is cut into up to
 * ten slots, call c pushing in slot c % slots, so the load is spread. */
typedef struct
{
  Call *calls;
  guint n, rate, slots, pkts_per_frame;
  gint64 t0, slot_ns;
  guint64 next_slot;
  gint64 max_late;              /* ns behind the schedule, worst slot */
} Feeder;

static void
feed_until (Feeder * f, gint64 t_end)
{
  guint8 pkt[BENCH_PKT_SIZE];

  for (;;) {
    gint64 t = f->t0 + (gint64) f->next_slot * f->slot_ns;
    guint slot = (guint) (f->next_slot % f->slots);
    guint64 i = f->next_slot / f->slots;

    if (t >= t_end)
      break;
    bench_sleep_until (t);
    f->max_late = MAX (f->max_late, bench_mono_ns () - t);
    bench_stream_packet (i, f->pkts_per_frame, pkt);
    for (guint c = slot; c < f->n; c += f->slots) {
      gst_app_src_push_buffer (GST_APP_SRC (f->calls[c].src),
          gst_buffer_new_memdup (pkt, sizeof pkt));
      f->calls[c].pushed++;
    }
    f->next_slot++;
  }
}

static void
pin_to_cpu (gint cpu)
{
  cpu_set_t set;

  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  if (sched_setaffinity (0, sizeof set, &set) < 0)
    g_printerr ("bench-scale: cannot pin to CPU %d: %s\n", cpu,
        g_strerror (errno));
}

/* Timing of one child run, ms. */
typedef struct
{
  guint warmup, measure, drain, sample;  /* sample 0: no RSS samples */
} Timing;

static gint
child_main (CallKind kind, guint n, const Timing * tm, guint rate, gint cpu)
{
  Call *calls = g_new0 (Call, n);
  Feeder f = { calls, n, rate, MIN (n, 10), rate / BENCH_FPS, 0, 0, 0, 0 };
  struct rlimit rl;
  guint64 rss0, rss1, cpu0, cpu1, busy0, busy1, pushed = 0, delivered = 0;
  gint64 w0, w1;

  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit (RLIMIT_NOFILE, &rl);
  }
  pin_to_cpu (cpu);
  gst_init (NULL, NULL);
  /* a call started and stopped once: plugins loaded, not counted */
  if (!call_start (&calls[0], kind, rate))
    return 1;
  g_usleep (100000);
  call_stop (&calls[0]);
  rss0 = rss_kib ();
  for (guint c = 0; c < n; c++)
    if (!call_start (&calls[c], kind, rate))
      return 1;

  f.slot_ns = 1000000000 / ((gint64) rate * f.slots);
  f.t0 = bench_mono_ns ();
  /* the window follows the schedule, not the clock: a feeder behind it
   * (max_late) means the calls were not carried in real time */
  feed_until (&f, f.t0 + (gint64) tm->warmup * 1000000);
  cpu0 = bench_process_cpu_ns ();
  busy0 = cpu_busy_ns (cpu);
  w0 = bench_mono_ns ();
  f.max_late = 0;
  for (guint t = tm->sample; t && t <= tm->measure; t += tm->sample) {
    feed_until (&f, f.t0 + (gint64) (tm->warmup + t) * 1000000);
    printf ("sample t_ms=%u rss_kib=%" G_GUINT64_FORMAT "\n", t, rss_kib ());
    fflush (stdout);
  }
  feed_until (&f, f.t0 + (gint64) (tm->warmup + tm->measure) * 1000000);
  cpu1 = bench_process_cpu_ns ();
  busy1 = cpu_busy_ns (cpu);
  w1 = bench_mono_ns ();
  rss1 = rss_kib ();
  g_usleep (tm->drain * 1000);
  for (guint c = 0; c < n; c++) {
    pushed += calls[c].pushed;
    delivered += call_delivered (&calls[c]);
  }
  printf ("result calls=%u cpu_ns=%" G_GUINT64_FORMAT " wall_ns=%"
      G_GINT64_FORMAT " pushed=%" G_GUINT64_FORMAT " delivered=%"
      G_GUINT64_FORMAT " rss0_kib=%" G_GUINT64_FORMAT " rss_kib=%"
      G_GUINT64_FORMAT " errors=%d others_ns=%" G_GUINT64_FORMAT
      " late_ms=%" G_GINT64_FORMAT "\n", n, cpu1 - cpu0, w1 - w0, pushed,
      delivered, rss0, rss1, g_atomic_int_get (&bus_errors),
      busy1 - busy0 > cpu1 - cpu0 ? busy1 - busy0 - (cpu1 - cpu0) : 0,
      f.max_late / 1000000);
  fflush (stdout);
  /* hundreds of pipelines need not be torn down one by one */
  _exit (0);
}

/* ---- the parent ---------------------------------------------------------- */

typedef struct
{
  gboolean ok;                  /* ran and printed its result */
  guint calls;
  gdouble cpu_frac;             /* of the one core */
  gdouble others_frac;          /* of it, taken by other processes */
  guint64 late_ms;              /* feeding behind its schedule, worst */
  guint64 pushed, delivered;
  gdouble kib_per_call;
  guint64 errors;
  GArray *samples;              /* rss KiB per sample (long runs) */
} Run;

static Run
run_child (CallKind kind, guint n, const Timing * tm, guint rate, gint cpu)
{
  gchar sn[16], sr[16], sc[16], st[64];
  const gchar *args[] = { "--child", kinds[kind].name, "--calls", sn,
    "--rate", sr, "--cpu", sc, "--timing", st, NULL
  };
  Run r = { 0, };
  GError *err = NULL;
  BenchChild *child;
  gchar *line;

  g_snprintf (sn, sizeof sn, "%u", n);
  g_snprintf (sr, sizeof sr, "%u", rate);
  g_snprintf (sc, sizeof sc, "%d", cpu);
  g_snprintf (st, sizeof st, "%u,%u,%u,%u", tm->warmup, tm->measure,
      tm->drain, tm->sample);
  r.samples = g_array_new (FALSE, FALSE, sizeof (guint64));
  child = bench_child_spawn (NULL, args, &err);
  if (!child) {
    g_printerr ("bench-scale: %s\n", err->message);
    g_clear_error (&err);
    return r;
  }
  while ((line = bench_child_read_line (child, (gint) (tm->warmup +
                  tm->measure + tm->drain) + 300000))) {
    if (g_str_has_prefix (line, "sample ")) {
      guint64 v = bench_line_get (line, "rss_kib");

      g_array_append_val (r.samples, v);
    } else if (g_str_has_prefix (line, "result ")) {
      guint64 wall = bench_line_get (line, "wall_ns");

      r.ok = TRUE;
      r.calls = n;
      r.cpu_frac = wall ? (gdouble) bench_line_get (line, "cpu_ns") / wall :
          0;
      r.others_frac = wall ?
          (gdouble) bench_line_get (line, "others_ns") / wall : 0;
      r.pushed = bench_line_get (line, "pushed");
      r.delivered = bench_line_get (line, "delivered");
      r.errors = bench_line_get (line, "errors");
      r.late_ms = bench_line_get (line, "late_ms");
      r.kib_per_call = ((gdouble) bench_line_get (line, "rss_kib") -
          (gdouble) bench_line_get (line, "rss0_kib")) / n;
    } else {
      g_printerr ("%s\n", line);
    }
    g_free (line);
  }
  if (!bench_child_wait (child, 60000))
    r.ok = FALSE;
  bench_child_free (child);
  return r;
}

static gboolean
run_passed (const Run * r)
{
  return r->ok && r->errors == 0 && r->pushed > 0
      && r->delivered == r->pushed && r->cpu_frac <= HEADROOM
      && r->late_ms <= MAX_LATE_MS;
}

static void
note_run (const gchar * what, const Run * r)
{
  bench_note ("%s %s: %u calls, %.1f %% of the core (other processes "
      "%.1f %%), %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " packets "
      "delivered, feeding at most %" G_GUINT64_FORMAT " ms late, %.0f "
      "KiB/call%s", what, run_passed (r) ? "passed" : "failed", r->calls,
      100 * r->cpu_frac, 100 * r->others_frac, r->delivered, r->pushed,
      r->late_ms, r->kib_per_call, r->ok ? "" : " (no result)");
}

/* Largest N of @steps that passes, stopping at the first failure. A step
 * that fails while other processes took more than DISTURBED of the core
 * is tried again, up to RETRIES times: the machine's load, not the calls,
 * may have failed it. */
#define DISTURBED 0.1
#define RETRIES 2

static guint
ramp (CallKind kind, const guint * steps, guint n_steps, const Timing * tm,
    gint cpu)
{
  guint best = 0;

  for (guint i = 0; i < n_steps; i++) {
    gboolean passed = FALSE;

    for (guint attempt = 0; attempt <= RETRIES && !passed; attempt++) {
      Run r = run_child (kind, steps[i], tm, BENCH_PKT_RATE, cpu);
      gchar *what = g_strdup_printf ("ramp %s", kinds[kind].name);

      note_run (what, &r);
      g_free (what);
      g_array_unref (r.samples);
      passed = run_passed (&r);
      if (!passed && r.others_frac <= DISTURBED)
        break;
    }
    if (!passed)
      break;
    best = steps[i];
  }
  return best;
}

/* RSS growth (KiB) from the first sixth of a long run to its end, and
 * what counts as flat: allocator noise (a stock call's RSS moved by up to
 * about 200 KiB in such runs). */
#define FLAT_KIB 256

/* From the end of the first sixth to the last sample. */
static gdouble
growth (const GArray * samples)
{
  guint n = samples ? samples->len : 0;

  if (n < 2)
    return 0;
  return (gdouble) g_array_index (samples, guint64, n - 1) -
      (gdouble) g_array_index (samples, guint64, MAX (n / 6, 1) - 1);
}

static gchar *
samples_str (const GArray * samples)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; samples && i < samples->len; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? " " : "",
        g_array_index (samples, guint64, i));
  return g_string_free (s, FALSE);
}

static gboolean
parse_timing (const gchar * s, Timing * tm)
{
  return s && sscanf (s, "%u,%u,%u,%u", &tm->warmup, &tm->measure,
      &tm->drain, &tm->sample) == 4 && tm->measure > 0;
}

int
main (int argc, char **argv)
{
  gchar *child = NULL, *timing = NULL;
  gint calls = -1, seconds = -1, rate = BENCH_PKT_RATE, cpu = -1;
  gint long_seconds = -1;
  gboolean smoke = FALSE, quick = FALSE, no_ramp = FALSE, no_long = FALSE;
  GOptionEntry entries[] = {
    {"smoke", 0, 0, G_OPTION_ARG_NONE, &smoke,
        "Two calls, short runs: does it run (for meson test)", NULL},
    {"quick", 0, 0, G_OPTION_ARG_NONE, &quick, "Shorter runs", NULL},
    {"cpu", 0, 0, G_OPTION_ARG_INT, &cpu, "CPU to pin to (default: the "
          "last one)", "C"},
    {"calls", 0, 0, G_OPTION_ARG_INT, &calls, "Calls for CPU and memory "
          "per call", "N"},
    {"seconds", 0, 0, G_OPTION_ARG_INT, &seconds, "Measured seconds per run",
        "S"},
    {"no-ramp", 0, 0, G_OPTION_ARG_NONE, &no_ramp, "Skip the capacity ramp",
        NULL},
    {"no-long", 0, 0, G_OPTION_ARG_NONE, &no_long, "Skip the long call",
        NULL},
    {"long-seconds", 0, 0, G_OPTION_ARG_INT, &long_seconds,
        "Length of the long call at 10x rate", "L"},
    {"child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &child, NULL,
        NULL},
    {"rate", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &rate, NULL, NULL},
    {"timing", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &timing, NULL,
        NULL},
    {NULL}
  };
  static const guint steps_minimal[] = { 100, 200, 300, 400, 500, 600, 800,
    1000
  };
  static const guint steps_full[] = { 25, 50, 100, 150, 200, 250, 300, 400 };
  GOptionContext *ctx = g_option_context_new ("- calls per core, memory per "
      "call");
  GError *err = NULL;
  Run fixed[3];
  guint cap[3] = { 0, };
  const gchar *noisy = "wall clock, one pinned core shared with the machine";
  Timing tm, tm_long;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (cpu < 0) {
    cpu_set_t set;

    cpu = 0;
    if (sched_getaffinity (0, sizeof set, &set) == 0)
      for (gint i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET (i, &set))
          cpu = i;
  }
  if (calls < 0)
    calls = smoke ? 2 : 20;
  calls = MAX (calls, 1);

  if (child) {
    if (!parse_timing (timing, &tm))
      return 2;
    for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
      if (g_str_equal (child, kinds[k].name))
        return child_main ((CallKind) k, (guint) calls, &tm,
            (guint) MAX (rate, BENCH_FPS), cpu);
    return 2;
  }

  if (seconds < 0)
    seconds = quick ? 3 : 5;
  if (long_seconds < 0)
    long_seconds = quick ? 30 : 60;
  tm.warmup = smoke ? 200 : 2000;
  tm.measure = smoke ? 500 : (guint) MAX (seconds, 1) * 1000;
  tm.drain = smoke ? 600 : 1500;
  tm.sample = 0;
  tm_long = tm;
  tm_long.measure = smoke ? 1200 : (guint) MAX (long_seconds, 6) * 1000;
  tm_long.sample = tm_long.measure / 12;

  bench_note ("bench-scale: pinned to CPU %d, %u ms measured after %u ms, "
      "%d pkt/s of %d B per call", cpu, tm.measure, tm.warmup,
      BENCH_PKT_RATE, BENCH_PKT_SIZE);
  for (guint k = 0; k < 3; k++) {
    gchar *what = g_strdup_printf ("fixed %s", kinds[k].name);

    fixed[k] = run_child ((CallKind) k, (guint) calls, &tm, BENCH_PKT_RATE,
        cpu);
    note_run (what, &fixed[k]);
    g_free (what);
  }
  for (guint k = 0; k < 2; k++) {
    gchar *name = g_strdup_printf ("scale-cpu-%s", kinds[k].name);
    gdouble ours = fixed[k].cpu_frac / calls;
    gdouble stock = fixed[CALL_STOCK].cpu_frac / calls;

    bench_note ("%s: share of the pinned core per %s call vs per stock call, "
        "%d calls each", name, kinds[k].name, calls);
    bench_report (name, 100 * ours, "%core/call", 100 * stock, NULL,
        BENCH_GOAL_NONE, 0, noisy);
    g_free (name);
    /* what the ramp measures, projected from the CPU time alone: a busy
     * machine starves a ramp's process long before its own core is full,
     * the CPU time per call it hardly moves */
    name = g_strdup_printf ("scale-projected-%s", kinds[k].name);
    bench_note ("%s: calls %.0f %% of a core carries at that share per call, "
        "%s vs stock (a projection; the ramp measures it)", name,
        100 * HEADROOM, kinds[k].name);
    bench_report (name, ours > 0 ? HEADROOM / ours : 0, "calls",
        stock > 0 ? HEADROOM / stock : 0, NULL, BENCH_GOAL_VALUE_GE,
        k == CALL_MINIMAL ? 500 : 150, noisy);
    g_free (name);
    name = g_strdup_printf ("mem-per-call-%s", kinds[k].name);
    bench_note ("%s: RSS growth per %s call vs per stock call, over the "
        "process with no call (plugins loaded), %d calls", name,
        kinds[k].name, calls);
    bench_report (name, fixed[k].kib_per_call, "KiB/call",
        fixed[CALL_STOCK].kib_per_call, NULL, BENCH_GOAL_NONE, 0, noisy);
    g_free (name);
  }

  if (!no_ramp) {
    /* smoke: a single one-call step of each, to see the ramp run */
    const guint one[] = { 1 };

    cap[CALL_MINIMAL] = ramp (CALL_MINIMAL, smoke ? one : steps_minimal,
        smoke ? 1 : G_N_ELEMENTS (steps_minimal), &tm, cpu);
    cap[CALL_FULL] = ramp (CALL_FULL, smoke ? one : steps_full,
        smoke ? 1 : G_N_ELEMENTS (steps_full), &tm, cpu);
    cap[CALL_STOCK] = ramp (CALL_STOCK, smoke ? one : steps_minimal,
        smoke ? 1 : G_N_ELEMENTS (steps_minimal), &tm, cpu);
    bench_note ("scale-minimal: largest ramp step (100, 200, ... calls) "
        "with every packet delivered, the feeding never over %d ms late and "
        "the core below %.0f %%: minimal calls vs stock calls", MAX_LATE_MS,
        100 * HEADROOM);
    bench_report ("scale-minimal", cap[CALL_MINIMAL], "calls",
        cap[CALL_STOCK], NULL, BENCH_GOAL_VALUE_GE, 500, noisy);
    bench_note ("scale-full: the same for full calls (25, 50, 100, ...) vs "
        "stock calls");
    bench_report ("scale-full", cap[CALL_FULL], "calls", cap[CALL_STOCK],
        NULL, BENCH_GOAL_VALUE_GE, 150, noisy);
  }

  if (!no_long) {
    Run ours = run_child (CALL_FULL, 1, &tm_long, 10 * BENCH_PKT_RATE, cpu);
    Run stock = run_child (CALL_STOCK, 1, &tm_long, 10 * BENCH_PKT_RATE,
        cpu);
    gchar *so = samples_str (ours.samples), *ss = samples_str (stock.samples);

    bench_note ("long call RSS (KiB, every %u ms of %u ms at %d pkt/s): full "
        "chain %s; stock %s", tm_long.sample, tm_long.measure,
        10 * BENCH_PKT_RATE, so, ss);
    note_run ("long full", &ours);
    note_run ("long stock", &stock);
    bench_note ("mem-long-call: RSS growth of one full call after the first "
        "sixth of a compressed 10-minute call (the packets of 10 minutes at "
        "ten times the rate) vs a stock call; flat = under %d KiB (the "
        "allocator moves a stock call's RSS by up to about 200 KiB)",
        FLAT_KIB);
    bench_report ("mem-long-call", growth (ours.samples), "KiB",
        growth (stock.samples), NULL, BENCH_GOAL_VALUE_LE, FLAT_KIB,
        "RSS, wall-clock run");
    g_free (so);
    g_free (ss);
    g_array_unref (ours.samples);
    g_array_unref (stock.samples);
  }
  for (guint k = 0; k < 3; k++)
    g_array_unref (fixed[k].samples);
  return 0;
}

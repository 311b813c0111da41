/* rtpcc-sim: run one source through one simulated bottleneck and print an
 * RFC 8868-style summary (and optionally the per-interval CSV log).
 *
 *   rtpcc-sim --source cbr --rate-kbps 5000 \
 *       --schedule 1000@0,2500@40,600@60,1000@80 --queue-ms 300 \
 *       --delay-ms 50 --seed 1 --duration 100 --log out.csv
 *
 * With --controller NAME the loop is closed: a frame source driven by the
 * library's RtpccSender (that controller) and RtpccReceiver with feedback
 * over a reverse link (sim-rtpcc.h), logging the real-time demo's columns.
 *
 *   rtpcc-sim --controller tfrc --log tfrc.csv
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"
#include "sim-rtpcc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  gchar *source;
  gdouble rate_kbps;
  gint packet_size;
  gdouble fps;
  gint keyint;
  gdouble key_ratio;
  gdouble noise;
  gdouble pacing_ms;
  gchar *schedule;
  gchar *trace;
  gdouble queue_ms;
  gint64 queue_bytes;
  gdouble delay_ms;
  gdouble jitter_ms;
  gboolean reorder;
  gdouble loss;
  gchar *gilbert;
  gint64 seed;
  gdouble duration;
  gdouble interval_ms;
  gdouble skip;
  gchar *log;
  gboolean quiet;
  /* closed loop */
  gchar *controller;
  gdouble min_kbps, max_kbps, start_kbps;
  gchar *feedback;
  gboolean no_breaker;
  gdouble clock_offset_s;
  gchar *reverse_schedule;
  gdouble reverse_delay_ms;
  gdouble reverse_queue_ms;
  gchar *params;
  gchar *probe_ssrc_mode;
} Options;

static gboolean
parse_gilbert (const gchar * spec, RtpccLossParams * loss, GError ** error)
{
  gchar *full = g_strconcat ("gilbert:", spec, NULL);
  gboolean ok = sim_loss_parse (full, loss, error);

  g_free (full);
  return ok;
}

static void
print_summary_line (const gchar * label, const SimFlowSummary * s,
    gdouble cap_kbps)
{
  gchar cap[32];

  if (isinf (cap_kbps))
    g_strlcpy (cap, "unlimited", sizeof cap);
  else if (isnan (cap_kbps))
    g_strlcpy (cap, "-", sizeof cap);
  else
    g_snprintf (cap, sizeof cap, "%.1f", cap_kbps);

  g_print ("%-16s %10s %10.1f %10.1f %7.1f%% %7.2f%% %8.1f %8.1f %8.1f\n",
      label, cap, s->send_kbps, s->recv_kbps,
      (isfinite (cap_kbps) && cap_kbps > 0) ?
      100.0 * s->recv_kbps / cap_kbps : NAN, s->loss_pct,
      s->qdelay_ms_p50, s->qdelay_ms_p95, s->qdelay_ms_max);
}

/* Mean capacity over [t0, t1) from the interval rows' capacity column. */
static gdouble
mean_capacity (SimMetrics * m, RtpccTime t0, RtpccTime t1)
{
  guint n;
  const SimIntervalRow *rows = sim_metrics_get_rows (m, &n);
  gdouble acc = 0;
  guint cnt = 0;

  for (guint i = 0; i < n; i++) {
    if (rows[i].time >= t0 && rows[i].time < t1) {
      acc += rows[i].capacity_kbps;
      cnt++;
    }
  }
  return cnt ? acc / cnt : NAN;
}

/* --controller: the closed loop of sim-rtpcc.h on the same link options. */
static gboolean
run_closed_loop (const Options * o, RtpccCapacity * cap,
    const RtpccLinkConfig * link, FILE * log, GError ** error)
{
  SimRtpccScenarioConfig c;
  SimRtpccResult *r;
  RtpccCapacity *rev = NULL;
  gint64 wall0, wall1;

  sim_rtpcc_scenario_config_init (&c);
  c.controller = o->controller;
  c.min_bitrate = (guint64) llround (o->min_kbps * 1000.0);
  c.max_bitrate = (guint64) llround (o->max_kbps * 1000.0);
  c.start_bitrate = (guint64) llround (o->start_kbps * 1000.0);
  c.capacity = cap;
  c.delay = link->delay;
  c.queue = link->queue_limit_time;
  c.queue_bytes = link->queue_limit_bytes;
  c.loss = link->loss;
  c.jitter = link->jitter;
  c.allow_reorder = link->allow_reorder;
  c.duration = (RtpccTime) llround (o->duration * RTPCC_NSEC_PER_SEC);
  c.seed = (guint64) o->seed;
  if (o->feedback && !sim_rtpcc_feedback_from_string (o->feedback,
          &c.feedback)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "--feedback must be auto, ccfb, rr or twcc (got \"%s\")", o->feedback);
    return FALSE;
  }
  c.circuit_breaker = !o->no_breaker;
  c.controller_params = o->params;
  if (!o->probe_ssrc_mode || g_str_equal (o->probe_ssrc_mode, "separate"))
    c.probe_ssrc_mode = RTPCC_PROBE_SSRC_SEPARATE;
  else if (g_str_equal (o->probe_ssrc_mode, "media"))
    c.probe_ssrc_mode = RTPCC_PROBE_SSRC_MEDIA;
  else {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "--probe-ssrc-mode must be separate or media (got \"%s\")",
        o->probe_ssrc_mode);
    return FALSE;
  }
  c.clock_offset = (RtpccTime) llround (o->clock_offset_s *
      RTPCC_NSEC_PER_SEC);
  if (o->reverse_schedule) {
    rev = rtpcc_capacity_new_schedule (o->reverse_schedule, error);
    if (!rev)
      return FALSE;
    c.reverse_capacity = rev;
  }
  c.reverse_delay = o->reverse_delay_ms < 0 ? RTPCC_TIME_NONE :
      (RtpccTime) llround (o->reverse_delay_ms * RTPCC_NSEC_PER_MSEC);
  c.reverse_queue = (RtpccTime) llround (o->reverse_queue_ms *
      RTPCC_NSEC_PER_MSEC);
  c.fps = o->fps;
  c.mtu = (guint) o->packet_size;
  c.noise = o->noise;
  c.keyframe_interval = (guint) o->keyint;
  c.keyframe_ratio = o->key_ratio;
  c.interval = (RtpccTime) llround (o->interval_ms * RTPCC_NSEC_PER_MSEC);
  c.settle = (RtpccTime) llround ((o->skip < 0 ? 5.0 : o->skip) *
      RTPCC_NSEC_PER_SEC);

  wall0 = g_get_monotonic_time ();
  r = sim_rtpcc_run_scenario (&c, error);
  wall1 = g_get_monotonic_time ();
  rtpcc_capacity_unref (rev);
  if (!r)
    return FALSE;

  if (log) {
    GString *csv = g_string_new (NULL);
    gchar *capstr = rtpcc_capacity_to_string (cap);
    /* the real-time demo's comment line (plot titles) and columns */
    g_string_append_printf (csv, "# rtpcc-sim controller=%s feedback=%s "
        "schedule=%s delay_ms=%.0f queue_ms=%.0f min_kbps=%.0f "
        "max_kbps=%.0f start_kbps=%.0f breaker=%s seed=%" G_GINT64_FORMAT
        "\n", r->controller, r->feedback, capstr,
        RTPCC_TIME_AS_MSEC (c.delay), RTPCC_TIME_AS_MSEC (c.queue),
        o->min_kbps, o->max_kbps, o->start_kbps, c.circuit_breaker ? "on" :
        "off", o->seed);
    sim_rtpcc_result_write_csv (r, csv);
    fputs (csv->str, log);
    fflush (log);
    g_string_free (csv, TRUE);
    g_free (capstr);
  }
  if (!o->quiet) {
    GString *out = g_string_new (NULL);
    gchar *capstr = rtpcc_capacity_to_string (cap);
    gdouble wall_s = (wall1 - wall0) / 1e6;

    g_print ("closed loop: %s, capacity %s, queue %.0f ms, delay %.0f ms, "
        "min/start/max %.0f/%.0f/%.0f kbit/s, seed %" G_GINT64_FORMAT
        ", %.1f s simulated\n", r->controller, capstr,
        RTPCC_TIME_AS_MSEC (c.queue), RTPCC_TIME_AS_MSEC (c.delay),
        o->min_kbps, o->start_kbps, o->max_kbps, o->seed, o->duration);
    g_free (capstr);
    sim_rtpcc_result_format (r, "", out);
    g_print ("%s", out->str);
    g_print ("wall %.3f s for %.1f simulated s (%.0f sim-s per wall-s)\n",
        wall_s, o->duration, wall_s > 0 ? o->duration / wall_s : INFINITY);
    g_string_free (out, TRUE);
  }
  sim_rtpcc_result_free (r);
  return TRUE;
}

int
main (int argc, char **argv)
{
  Options o = {
    .source = NULL,.rate_kbps = 1000,.packet_size = 1200,.fps = 25,
    .keyint = 0,.key_ratio = 4,.noise = 0.1,.pacing_ms = 0,.schedule = NULL,
    .trace = NULL,.queue_ms = 300,.queue_bytes = 0,.delay_ms = 50,
    .jitter_ms = 0,.reorder = FALSE,.loss = 0,.gilbert = NULL,.seed = 1,
    .duration = 100,.interval_ms = 200,.skip = -1,.log = NULL,.quiet = FALSE,
    .controller = NULL,.min_kbps = 150,.max_kbps = 3000,.start_kbps = 150,
    .feedback = NULL,.no_breaker = FALSE,.clock_offset_s = 0,
    .reverse_schedule = NULL,.reverse_delay_ms = -1,.reverse_queue_ms = 0,
    .params = NULL,.probe_ssrc_mode = NULL,
  };
  GOptionEntry entries[] = {
    {"source", 0, 0, G_OPTION_ARG_STRING, &o.source,
        "cbr or frames (default cbr)", "KIND"},
    {"rate-kbps", 'r', 0, G_OPTION_ARG_DOUBLE, &o.rate_kbps,
        "CBR rate or frame target bitrate in kbit/s (1000)", "N"},
    {"packet-size", 0, 0, G_OPTION_ARG_INT, &o.packet_size,
        "CBR packet size / frame MTU in bytes (1200)", "B"},
    {"fps", 0, 0, G_OPTION_ARG_DOUBLE, &o.fps, "frame rate (25)", "F"},
    {"keyint", 0, 0, G_OPTION_ARG_INT, &o.keyint,
        "keyframe every N frames, 0 = first only (0)", "N"},
    {"key-ratio", 0, 0, G_OPTION_ARG_DOUBLE, &o.key_ratio,
        "keyframe size / delta frame size (4)", "X"},
    {"noise", 0, 0, G_OPTION_ARG_DOUBLE, &o.noise,
        "Laplace frame-size noise, relative (0.1)", "X"},
    {"pacing-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o.pacing_ms,
        "spread a frame's packets over this time, 0 = back to back (0)",
        "MS"},
    {"schedule", 's', 0, G_OPTION_ARG_STRING, &o.schedule,
        "capacity schedule kbit/s@s,... (RFC 8867 5.1: "
          "1000@0,2500@40,600@60,1000@80)", "SPEC"},
    {"trace", 0, 0, G_OPTION_ARG_FILENAME, &o.trace,
        "mahimahi capacity trace (instead of --schedule)", "FILE"},
    {"queue-ms", 'q', 0, G_OPTION_ARG_DOUBLE, &o.queue_ms,
        "drop-tail limit in ms at current capacity, 0 = none (300)", "MS"},
    {"queue-bytes", 0, 0, G_OPTION_ARG_INT64, &o.queue_bytes,
        "drop-tail limit in bytes, 0 = none (0)", "B"},
    {"delay-ms", 'd', 0, G_OPTION_ARG_DOUBLE, &o.delay_ms,
        "one-way propagation delay (50)", "MS"},
    {"jitter-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o.jitter_ms,
        "uniform delay jitter +- (0)", "MS"},
    {"reorder", 0, 0, G_OPTION_ARG_NONE, &o.reorder,
        "let jitter reorder packets", NULL},
    {"loss", 'l', 0, G_OPTION_ARG_DOUBLE, &o.loss,
        "Bernoulli loss probability 0..1 (0)", "P"},
    {"gilbert", 0, 0, G_OPTION_ARG_STRING, &o.gilbert,
        "Gilbert-Elliott loss p,r[,k[,h]] (instead of --loss)", "P,R,K,H"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed, "random seed (1)", "N"},
    {"duration", 't', 0, G_OPTION_ARG_DOUBLE, &o.duration,
        "simulated seconds (100)", "S"},
    {"interval-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o.interval_ms,
        "log interval (200)", "MS"},
    {"skip", 0, 0, G_OPTION_ARG_DOUBLE, &o.skip,
        "seconds after each capacity change left out of the phase "
          "summary (2; 5 with --controller)", "S"},
    {"log", 'o', 0, G_OPTION_ARG_FILENAME, &o.log,
        "per-interval CSV log (- = stdout)", "FILE"},
    {"quiet", 0, 0, G_OPTION_ARG_NONE, &o.quiet, "no summary table", NULL},
    {"controller", 'c', 0, G_OPTION_ARG_STRING, &o.controller,
        "close the loop: RtpccSender with this controller (tfrc, ccid2, rr, "
          "fixed, ...) drives a frame source; RtpccReceiver feeds back",
        "NAME"},
    {"min-kbps", 0, 0, G_OPTION_ARG_DOUBLE, &o.min_kbps,
        "controller min bitrate (150)", "N"},
    {"max-kbps", 0, 0, G_OPTION_ARG_DOUBLE, &o.max_kbps,
        "controller max bitrate (3000; RFC 8867 says 1500, but 5.1 needs "
          ">= 2500 to follow capacity)", "N"},
    {"start-kbps", 0, 0, G_OPTION_ARG_DOUBLE, &o.start_kbps,
        "controller start bitrate, 0 = the controller's own (150)", "N"},
    {"feedback", 0, 0, G_OPTION_ARG_STRING, &o.feedback,
        "auto (rr for the rr controller, else ccfb), ccfb, rr or twcc",
        "MODE"},
    {"no-breaker", 0, 0, G_OPTION_ARG_NONE, &o.no_breaker,
        "disable the RFC 8083 circuit breaker", NULL},
    {"clock-offset", 0, 0, G_OPTION_ARG_DOUBLE, &o.clock_offset_s,
        "receiver clock = sender clock + S seconds (0)", "S"},
    {"reverse-schedule", 0, 0, G_OPTION_ARG_STRING, &o.reverse_schedule,
        "feedback path capacity schedule (unlimited)", "SPEC"},
    {"reverse-delay-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o.reverse_delay_ms,
        "feedback path delay (= --delay-ms)", "MS"},
    {"reverse-queue-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o.reverse_queue_ms,
        "feedback path drop-tail limit, 0 = none (0)", "MS"},
    {"params", 0, 0, G_OPTION_ARG_STRING, &o.params,
        "controller parameters, \"key=value;key=value\" (e.g. "
          "periodic-probing=true for gcc)", "PARAMS"},
    {"probe-ssrc-mode", 0, 0, G_OPTION_ARG_STRING, &o.probe_ssrc_mode,
        "where padding probes go: separate (an SSRC of their own, default) "
          "or media (the media SSRC, renumbered on the wire)", "MODE"},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  SimOneWayConfig cfg;
  RtpccCapacity *cap = NULL;
  SimOneWay *ow;
  FILE *log = NULL;
  RtpccTime duration;
  gint64 wall0, wall1;
  guint flow = 0;
  int ret = 1;

  ctx = g_option_context_new ("- rtpcc discrete-event simulator");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, "One source through one simulated "
      "bottleneck (RtpccLink), with an RFC 8868-style log.");
  if (!g_option_context_parse (ctx, &argc, &argv, &err))
    goto out;

  sim_oneway_config_init (&cfg);
  if (o.controller && o.source && !g_str_equal (o.source, "frames")) {
    g_set_error (&err, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "--controller drives a frame source (--source frames)");
    goto out;
  }
  if (!o.source || g_str_equal (o.source, "cbr")) {
    cfg.source = SIM_SOURCE_CBR;
  } else if (g_str_equal (o.source, "frames")) {
    cfg.source = SIM_SOURCE_FRAMES;
  } else {
    g_set_error (&err, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "--source must be cbr or frames (got \"%s\")", o.source);
    goto out;
  }
  if (o.rate_kbps < 0 || o.packet_size <= 0 || o.fps <= 0 || o.keyint < 0
      || o.key_ratio <= 0 || o.noise < 0 || o.pacing_ms < 0
      || o.queue_ms < 0 || o.queue_bytes < 0 || o.delay_ms < 0
      || o.jitter_ms < 0 || o.duration <= 0 || o.interval_ms <= 0
      || (o.skip < 0 && o.skip != -1) || o.min_kbps < 0 || o.max_kbps <= 0
      || o.start_kbps < 0 || o.clock_offset_s < 0
      || (o.reverse_delay_ms < 0 && o.reverse_delay_ms != -1)
      || o.reverse_queue_ms < 0) {
    g_set_error (&err, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "numeric options must be positive (see --help)");
    goto out;
  }

  if (o.trace)
    cap = rtpcc_capacity_new_trace_file (o.trace, &err);
  else
    cap = rtpcc_capacity_new_schedule (o.schedule ? o.schedule :
        "1000@0,2500@40,600@60,1000@80", &err);
  if (!cap)
    goto out;

  cfg.cbr.rate_bps = (guint64) llround (o.rate_kbps * 1000.0);
  cfg.cbr.packet_size = (guint) o.packet_size;
  cfg.frames.target_bps = cfg.cbr.rate_bps;
  cfg.frames.mtu = (guint) o.packet_size;
  cfg.frames.fps = o.fps;
  cfg.frames.keyframe_interval = (guint) o.keyint;
  cfg.frames.keyframe_ratio = o.key_ratio;
  cfg.frames.noise = o.noise;
  cfg.frames.pacing = (RtpccTime) llround (o.pacing_ms * RTPCC_NSEC_PER_MSEC);
  cfg.frames.seed = (guint64) o.seed;

  cfg.link.capacity = cap;
  cfg.link.queue_limit_time =
      (RtpccTime) llround (o.queue_ms * RTPCC_NSEC_PER_MSEC);
  cfg.link.queue_limit_bytes = (guint64) o.queue_bytes;
  cfg.link.delay = (RtpccTime) llround (o.delay_ms * RTPCC_NSEC_PER_MSEC);
  cfg.link.jitter = (RtpccTime) llround (o.jitter_ms * RTPCC_NSEC_PER_MSEC);
  cfg.link.allow_reorder = o.reorder;
  cfg.link.seed = (guint64) o.seed;
  cfg.link.loss.loss = o.loss;
  if (o.gilbert && !parse_gilbert (o.gilbert, &cfg.link.loss, &err))
    goto out;
  if (!rtpcc_loss_params_validate (&cfg.link.loss, &err))
    goto out;

  cfg.interval = (RtpccTime) llround (o.interval_ms * RTPCC_NSEC_PER_MSEC);
  if (o.log) {
    if (g_str_equal (o.log, "-")) {
      log = stdout;
      o.quiet = TRUE;
    } else if (!(log = fopen (o.log, "w"))) {
      g_set_error (&err, RTPCC_ERROR, RTPCC_ERROR_IO, "cannot write %s: %s",
          o.log, g_strerror (errno));
      goto out;
    }
  }
  cfg.log = log;
  duration = (RtpccTime) llround (o.duration * RTPCC_NSEC_PER_SEC);

  if (o.controller) {
    if (run_closed_loop (&o, cap, &cfg.link, log, &err))
      ret = 0;
    goto out;
  }
  if (o.skip < 0)
    o.skip = 2;

  wall0 = g_get_monotonic_time ();
  ow = sim_oneway_new (&cfg);
  if (!ow) {
    g_set_error (&err, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "invalid source configuration");
    goto out;
  }
  sim_oneway_run (ow, duration);
  wall1 = g_get_monotonic_time ();

  if (!o.quiet) {
    SimFlowSummary s;
    gchar *capstr = rtpcc_capacity_to_string (cap);
    RtpccTime t = 0;
    guint phase = 0;
    gdouble wall_s = (wall1 - wall0) / 1e6;

    g_print ("source %s %.0f kbit/s, capacity %s, queue %.0f ms, "
        "delay %.0f ms, seed %" G_GINT64_FORMAT ", %.1f s simulated\n",
        cfg.source == SIM_SOURCE_CBR ? "cbr" : "frames", o.rate_kbps, capstr,
        o.queue_ms, o.delay_ms, o.seed, o.duration);
    g_free (capstr);
    g_print ("%-16s %10s %10s %10s %8s %8s %8s %8s %8s\n", "window",
        "cap_kbps", "send_kbps", "recv_kbps", "util", "loss", "qd_p50",
        "qd_p95", "qd_max");

    /* One line per schedule phase, leaving out the transient after each
     * change (receive rate vs the capacity in force). */
    while (t < duration) {
      RtpccTime next = MIN (rtpcc_capacity_next_change (cap, t), duration);
      RtpccTime from = t + (RtpccTime) llround (o.skip * RTPCC_NSEC_PER_SEC);
      gchar label[64];

      if (from < next) {
        g_snprintf (label, sizeof label, "%u [%.1f,%.1f)", ++phase,
            RTPCC_TIME_AS_SEC (from), RTPCC_TIME_AS_SEC (next));
        sim_metrics_summarize (ow->metrics, flow, from, next, &s);
        print_summary_line (label, &s, mean_capacity (ow->metrics, from,
                next));
      }
      t = next;
    }
    sim_metrics_summarize (ow->metrics, flow, 0, duration, &s);
    print_summary_line ("all", &s, mean_capacity (ow->metrics, 0, duration));
    g_print ("owd mean %.1f ms max %.1f ms; %" G_GUINT64_FORMAT
        " packets sent, %" G_GUINT64_FORMAT " received\n",
        s.owd_ms_mean, s.owd_ms_max, ow->source->packets_sent,
        s.totals.recv_packets);
    g_print ("wall %.3f s for %.1f simulated s (%.0f sim-s per wall-s), "
        "%" G_GUINT64_FORMAT " events\n", wall_s, o.duration,
        wall_s > 0 ? o.duration / wall_s : INFINITY,
        sim_events_run (ow->sim));
  }
  sim_oneway_free (ow);
  ret = 0;

out:
  if (err) {
    g_printerr ("rtpcc-sim: %s\n", err->message);
    g_error_free (err);
  }
  if (log && log != stdout)
    fclose (log);
  rtpcc_capacity_unref (cap);
  g_option_context_free (ctx);
  g_free (o.source);
  g_free (o.schedule);
  g_free (o.trace);
  g_free (o.gilbert);
  g_free (o.log);
  g_free (o.controller);
  g_free (o.feedback);
  g_free (o.reverse_schedule);
  g_free (o.params);
  g_free (o.probe_ssrc_mode);
  return ret;
}

/* Syncodecs-like statistical codec source (see sim-codec.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sim-codec.h"

#include <math.h>

#define SIZE_MIN_SCALE 0.1
#define SIZE_MAX_SCALE 10.0

typedef struct
{
  SimSource parent;
  SimCodecConfig config;
  RtpccRng rng;
  SimTimer frame_timer, update_timer;
  guint64 target;               /* bit/s, from the controller */
  guint64 rate;                 /* encoder rate, bit/s */
  guint64 frame_no;
  gboolean force_key;
  guint transient_left;         /* frames still paying back an I-frame */
  gdouble payback;              /* bytes each of them gives back */
  SimCodecStats stats;
  GArray *rate_log;             /* SimCodecRateChange */
} SimCodecSource;

static void codec_finalize (SimSource * src);

void
sim_codec_config_init (SimCodecConfig * config)
{
  config->flow = 0;
  config->fps = 25.0;
  config->mtu = 1200;
  config->overhead = 0;
  config->update_interval = RTPCC_MSEC (100);
  config->max_update_ratio = 0.1;
  config->big_change_ratio = 0.5;
  config->transient_length = 10;
  config->iframe_bytes = 4170;
  config->keyframe_interval = 0;
  config->size_noise = 0.1;
  config->interval_noise = 0.05;
  config->initial_bps = 0;
  config->response_up = 0;
  config->response_down = 0;
  config->start = 0;
  config->stop = RTPCC_TIME_INFINITE;
  config->seed = 0;
}

void
sim_codec_config_x264 (SimCodecConfig * config)
{
  /* capture is regular: interval CV 0.009 (Laplace b = CV / sqrt 2) */
  config->fps = 30.0;
  config->interval_noise = 0.0064;
  /* frame sizes CV 0.05 around their 1 s mean */
  config->size_noise = 0.035;
  /* a key frame every 4 s (key-int-max), about 1.5 kB over its
   * neighbours at 0.6-2.5 Mbit/s: the buffer bounds it */
  config->keyframe_interval = 120;
  config->iframe_bytes = 1500;
  /* no jump and no key frame on a big change of the bitrate; the output
   * follows it as a first-order lag, 200 ms up and 100 ms down: the pair
   * of a grid of lags whose simulated queue came closest to one real run
   * of RFC 8867 5.1 (docs/simulator.md, "What the simulator lacked (3)") */
  config->big_change_ratio = G_MAXDOUBLE;
  config->response_up = RTPCC_MSEC (200);
  config->response_down = RTPCC_MSEC (100);
}

static void
log_rate (SimCodecSource * cs, gboolean transient)
{
  SimCodecRateChange c = { sim_now (cs->parent.sim), cs->rate, transient };
  g_array_append_val (cs->rate_log, c);
}

/* An I-frame now, paid back over the next transient_length frames. */
static void
begin_transient (SimCodecSource * cs)
{
  cs->force_key = TRUE;
}

/* Rate control step: follow the target, bounded, or jump on a big change. */
static void
codec_update (SimCodecSource * cs)
{
  const SimCodecConfig *c = &cs->config;
  gdouble r = (gdouble) cs->rate, t = (gdouble) cs->target, next;

  if (cs->rate == cs->target)
    return;
  if (cs->rate == 0 || cs->target == 0 || fabs (t - r) > c->big_change_ratio * r) {
    cs->rate = cs->target;
    if (cs->target > 0) {
      cs->stats.transients++;
      begin_transient (cs);
    }
    log_rate (cs, cs->target > 0);
    return;
  }
  if (c->response_up > 0 && c->response_down > 0) {
    RtpccTime tau = t > r ? c->response_up : c->response_down;

    next = r + (t - r) * -expm1 (-(gdouble) c->update_interval /
        (gdouble) tau);
    /* within a thousandth: there (the lag never quite arrives) */
    if (fabs (t - next) < 1e-3 * t)
      next = t;
  } else {
    next = t > r ? MIN (t, r * (1.0 + c->max_update_ratio)) :
        MAX (t, r * (1.0 - c->max_update_ratio));
  }
  cs->rate = (guint64) llround (next);
  log_rate (cs, FALSE);
}

static void
update_fire (Sim * sim, gpointer user_data)
{
  SimCodecSource *cs = user_data;

  codec_update (cs);
  cs->update_timer = 0;
  if (sim_now (sim) + cs->config.update_interval < cs->config.stop)
    cs->update_timer = sim_schedule (sim, sim_now (sim) +
        cs->config.update_interval, update_fire, cs);
}

static void frame_fire (Sim * sim, gpointer user_data);

static void
frame_arm (SimCodecSource * cs, RtpccTime at)
{
  cs->frame_timer = 0;
  if (at >= cs->config.stop)
    return;
  cs->frame_timer = sim_schedule (cs->parent.sim, at, frame_fire, cs);
}

static void
emit (SimCodecSource * cs, SimPacket * p)
{
  SimSource *src = &cs->parent;

  p->sent = sim_now (src->sim);
  src->packets_sent++;
  src->bytes_sent += p->size;
  sim_node_receive (src->next, src->sim, p);
}

static void
frame_fire (Sim * sim, gpointer user_data)
{
  SimCodecSource *cs = user_data;
  SimSource *src = &cs->parent;
  const SimCodecConfig *c = &cs->config;
  RtpccTime now = sim_now (sim);
  gdouble mean, size, scale, jitter;
  gboolean key;
  guint64 k;
  guint bytes, payload_max, n, left;

  /* fixed draws per frame: the stream position depends on frames only */
  scale = 1.0 + rtpcc_rng_laplace (&cs->rng, c->size_noise);
  scale = CLAMP (scale, SIZE_MIN_SCALE, SIZE_MAX_SCALE);
  jitter = 1.0 + rtpcc_rng_laplace (&cs->rng, c->interval_noise);
  jitter = CLAMP (jitter, 0.5, 1.5);
  frame_arm (cs, now + (RtpccTime) llround (jitter * RTPCC_NSEC_PER_SEC /
          c->fps));

  if (cs->rate == 0)
    return;                     /* paused: a due I-frame waits */

  k = cs->frame_no++;
  key = k == 0 || cs->force_key ||
      (c->keyframe_interval > 0 && k % c->keyframe_interval == 0);
  cs->force_key = FALSE;
  mean = (gdouble) cs->rate / 8.0 / c->fps;
  size = mean;
  if (key) {
    size += c->iframe_bytes;
    cs->transient_left = c->transient_length;
    cs->payback = c->transient_length ?
        (gdouble) c->iframe_bytes / c->transient_length : 0.0;
  } else if (cs->transient_left > 0) {
    cs->transient_left--;
    size = MAX (size - cs->payback, SIZE_MIN_SCALE * mean);
  }
  size = round (size * scale);
  bytes = size < 1.0 ? 1 : (guint) MIN (size, (gdouble) G_MAXINT);

  cs->stats.frames++;
  cs->stats.payload_bytes += bytes;
  if (key) {
    cs->stats.iframes++;
    cs->stats.iframe_bytes += bytes;
  }

  payload_max = c->mtu - c->overhead;
  n = (bytes + payload_max - 1) / payload_max;
  left = bytes;
  for (guint i = 0; i < n; i++) {
    SimPacket *p = sim_packet_new (sim);
    guint chunk = MIN (left, payload_max);

    left -= chunk;
    p->flow = src->flow;
    p->kind = SIM_PACKET_MEDIA;
    p->seq = src->seq++;
    p->size = chunk + c->overhead;
    p->created = now;
    p->frame = k;
    p->frame_packet = i;
    p->frame_packets = n;
    p->keyframe = key;
    p->marker = i + 1 == n;
    emit (cs, p);
  }
}

static void
codec_set_rate (SimSource * src, guint64 bps)
{
  SimCodecSource *cs = (SimCodecSource *) src;

  cs->target = bps;
  /* starting from pause (or the very first target) takes effect now */
  if (cs->rate == 0 && bps > 0)
    codec_update (cs);
}

static guint64
codec_get_rate (SimSource * src)
{
  return ((SimCodecSource *) src)->target;
}

static void
codec_finalize (SimSource * src)
{
  SimCodecSource *cs = (SimCodecSource *) src;

  sim_cancel (src->sim, cs->frame_timer);
  sim_cancel (src->sim, cs->update_timer);
  g_array_free (cs->rate_log, TRUE);
}

static gboolean
config_valid (Sim * sim, const SimCodecConfig * c)
{
  return c->fps > 0.0 && c->mtu > c->overhead && c->update_interval > 0 &&
      c->max_update_ratio >= 0.0 && c->big_change_ratio >= 0.0 &&
      c->size_noise >= 0.0 && c->interval_noise >= 0.0 &&
      c->start >= sim_now (sim) && c->stop > c->start;
}

SimSource *
sim_codec_source_new (Sim * sim, const SimCodecConfig * config,
    SimNode * next)
{
  SimCodecSource *cs;

  if (!config_valid (sim, config))
    return NULL;
  cs = g_new0 (SimCodecSource, 1);
  cs->parent.sim = sim;
  cs->parent.next = next;
  cs->parent.flow = config->flow;
  cs->parent.set_rate = codec_set_rate;
  cs->parent.get_rate = codec_get_rate;
  cs->parent.finalize = codec_finalize;
  cs->config = *config;
  cs->rate_log = g_array_new (FALSE, FALSE, sizeof (SimCodecRateChange));
  rtpcc_rng_init_stream (&cs->rng, config->seed,
      G_GUINT64_CONSTANT (0xc0dec0000) + config->flow);
  cs->target = config->initial_bps;
  frame_arm (cs, config->start);
  cs->update_timer = sim_schedule (sim, config->start, update_fire, cs);
  return &cs->parent;
}

gboolean
sim_source_is_codec (SimSource * src)
{
  return src && src->finalize == codec_finalize;
}

void
sim_codec_source_get_stats (SimSource * src, SimCodecStats * stats)
{
  g_return_if_fail (sim_source_is_codec (src));
  *stats = ((SimCodecSource *) src)->stats;
  stats->rate_bps = ((SimCodecSource *) src)->rate;
}

const SimCodecRateChange *
sim_codec_source_get_rate_log (SimSource * src, guint * n)
{
  SimCodecSource *cs = (SimCodecSource *) src;

  g_return_val_if_fail (sim_source_is_codec (src), NULL);
  *n = cs->rate_log->len;
  return (const SimCodecRateChange *) cs->rate_log->data;
}

void
sim_codec_source_force_keyframe (SimSource * src)
{
  g_return_if_fail (sim_source_is_codec (src));
  ((SimCodecSource *) src)->force_key = TRUE;
}

gboolean
sim_rtpcc_flow_use_codec (SimRtpccNet * net, SimRtpccFlow * flow,
    const SimCodecConfig * config)
{
  SimCodecConfig c = *config;
  SimSource *src;

  c.flow = flow->flow;
  src = sim_codec_source_new (net->sim, &c,
      sim_rtpcc_sender_node (flow->sender));
  if (!src)
    return FALSE;
  sim_source_free (flow->source);
  flow->source = src;
  sim_rtpcc_sender_set_source (flow->sender, src);
  return TRUE;
}

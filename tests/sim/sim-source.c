/* Synthetic traffic sources: CBR and a frame-based video model.
 *
 * The frame source follows syncodecs' SimpleFpsBasedCodec (RFC 8593 spirit):
 * fixed frame rate, frame size = target / fps with Laplace noise, periodic
 * keyframes, packetized into MTU-sized packets. Keyframes are paid for by
 * smaller delta frames so the long-run mean stays at the target.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sim.h"

#include <math.h>

static void
source_emit (SimSource * src, SimPacket * p)
{
  p->sent = sim_now (src->sim);
  src->packets_sent++;
  src->bytes_sent += p->size;
  sim_node_receive (src->next, src->sim, p);
}

void
sim_source_set_rate (SimSource * src, guint64 bps)
{
  src->set_rate (src, bps);
}

guint64
sim_source_get_rate (SimSource * src)
{
  return src->get_rate (src);
}

void
sim_source_set_next (SimSource * src, SimNode * next)
{
  src->next = next;
}

void
sim_source_free (SimSource * src)
{
  if (!src)
    return;
  src->finalize (src);
  g_free (src);
}

/* ---- CBR ----------------------------------------------------------------- */

typedef struct
{
  SimSource parent;
  SimCbrConfig config;
  SimTimer timer;
  RtpccTime last_sent;          /* RTPCC_TIME_NONE: nothing sent yet */
  guint64 rem;                  /* remainder (ns * bit/s) of the packet grid */
} SimCbrSource;

#define SIM_MAX_RATE G_GUINT64_CONSTANT (1000000000000)   /* 1 Tbit/s */

static void cbr_fire (Sim * sim, gpointer user_data);

static void
cbr_arm (SimCbrSource * cbr, RtpccTime at)
{
  Sim *sim = cbr->parent.sim;

  sim_cancel (sim, cbr->timer);
  cbr->timer = 0;
  if (cbr->config.rate_bps == 0)
    return;
  if (at < sim_now (sim)) {
    /* restart the grid now */
    at = sim_now (sim);
    cbr->rem = 0;
  }
  if (at >= cbr->config.stop)
    return;
  cbr->timer = sim_schedule (sim, at, cbr_fire, cbr);
}

static void
cbr_fire (Sim * sim, gpointer user_data)
{
  SimCbrSource *cbr = user_data;
  SimSource *src = &cbr->parent;
  RtpccTime now = sim_now (sim);
  SimPacket *p;
  guint64 num;

  cbr->timer = 0;
  p = sim_packet_new (sim);
  p->flow = src->flow;
  p->kind = SIM_PACKET_MEDIA;
  p->seq = src->seq++;
  p->size = cbr->config.packet_size;
  p->created = now;
  cbr->last_sent = now;

  /* Exact rational grid: packet k leaves floor(k * size * 8 s / rate) after
   * the grid started, whatever the rate; no rounding drift. */
  num = (guint64) cbr->config.packet_size * 8 * RTPCC_NSEC_PER_SEC + cbr->rem;
  cbr->rem = num % cbr->config.rate_bps;
  cbr_arm (cbr, now + (RtpccTime) (num / cbr->config.rate_bps));

  source_emit (src, p);
}

static void
cbr_set_rate (SimSource * src, guint64 bps)
{
  SimCbrSource *cbr = (SimCbrSource *) src;
  guint64 num = (guint64) cbr->config.packet_size * 8 * RTPCC_NSEC_PER_SEC;

  bps = MIN (bps, SIM_MAX_RATE);
  if (bps == cbr->config.rate_bps)
    return;
  cbr->config.rate_bps = bps;
  if (bps == 0) {
    cbr_arm (cbr, 0);
  } else if (cbr->last_sent == RTPCC_TIME_NONE) {
    cbr->rem = 0;
    cbr_arm (cbr, cbr->config.start);
  } else {
    /* A new grid from the last packet sent, spaced at the new rate. */
    cbr->rem = num % bps;
    cbr_arm (cbr, cbr->last_sent + (RtpccTime) (num / bps));
  }
}

static guint64
cbr_get_rate (SimSource * src)
{
  return ((SimCbrSource *) src)->config.rate_bps;
}

static void
cbr_finalize (SimSource * src)
{
  SimCbrSource *cbr = (SimCbrSource *) src;
  sim_cancel (src->sim, cbr->timer);
}

void
sim_cbr_config_init (SimCbrConfig * config)
{
  config->flow = 0;
  config->rate_bps = 1000000;
  config->packet_size = 1200;
  config->start = 0;
  config->stop = RTPCC_TIME_INFINITE;
}

SimSource *
sim_cbr_source_new (Sim * sim, const SimCbrConfig * config, SimNode * next)
{
  SimCbrSource *cbr;

  /* Keep size * 8e9 + rate (the grid arithmetic) far inside 64 bits. */
  g_return_val_if_fail (config->packet_size > 0
      && config->packet_size <= 1u << 20, NULL);
  g_return_val_if_fail (config->rate_bps <= SIM_MAX_RATE, NULL);
  g_return_val_if_fail (config->start >= sim_now (sim), NULL);

  cbr = g_new0 (SimCbrSource, 1);
  cbr->parent.sim = sim;
  cbr->parent.next = next;
  cbr->parent.flow = config->flow;
  cbr->parent.set_rate = cbr_set_rate;
  cbr->parent.get_rate = cbr_get_rate;
  cbr->parent.finalize = cbr_finalize;
  cbr->config = *config;
  cbr->last_sent = RTPCC_TIME_NONE;
  cbr_arm (cbr, config->start);
  return &cbr->parent;
}

/* ---- frames -------------------------------------------------------------- */

/* Noise never shrinks a frame below this share of its mean (a Laplace draw
 * can be arbitrarily negative) nor grows it beyond the upper bound. */
#define FRAME_MIN_SCALE 0.1
#define FRAME_MAX_SCALE 10.0

typedef struct
{
  RtpccTime at;
  SimPacket *packet;
} PacedPacket;

typedef struct
{
  SimSource parent;
  SimFrameConfig config;
  RtpccRng rng;
  SimTimer frame_timer;
  SimTimer pace_timer;
  guint64 frame_no;             /* next frame */
  gboolean force_key;
  GQueue paced;                 /* PacedPacket*, times non-decreasing */
  SimFrameStats stats;
} SimFrameSource;

static RtpccTime
frame_time (SimFrameSource * fs, guint64 k)
{
  /* From the frame index, not by accumulation, so 1/fps never drifts. */
  return fs->config.start +
      (RtpccTime) llround ((gdouble) k * (gdouble) RTPCC_NSEC_PER_SEC /
      fs->config.fps);
}

static void frame_fire (Sim * sim, gpointer user_data);
static void pace_fire (Sim * sim, gpointer user_data);

static void
frame_arm (SimFrameSource * fs)
{
  RtpccTime at = frame_time (fs, fs->frame_no);

  fs->frame_timer = 0;
  if (at >= fs->config.stop)
    return;
  fs->frame_timer = sim_schedule (fs->parent.sim, MAX (at,
          sim_now (fs->parent.sim)), frame_fire, fs);
}

/* Bytes of frame @k: the mean frame size, split between key and delta frames
 * so that one keyframe interval averages to the target, times the noise. */
static guint
frame_size (SimFrameSource * fs, gboolean key)
{
  const SimFrameConfig *c = &fs->config;
  gdouble mean = (gdouble) c->target_bps / 8.0 / c->fps;
  gdouble size, scale;

  if (c->keyframe_interval > 1) {
    gdouble n = c->keyframe_interval;
    gdouble delta = mean * n / (n - 1.0 + c->keyframe_ratio);
    size = key ? delta * c->keyframe_ratio : delta;
  } else if (c->keyframe_interval == 1) {
    size = mean;                /* all keyframes */
  } else {
    size = key ? mean * c->keyframe_ratio : mean;
  }

  /* Always one draw per frame so the stream position depends only on the
   * frame count. */
  scale = 1.0 + rtpcc_rng_laplace (&fs->rng, c->noise);
  scale = CLAMP (scale, FRAME_MIN_SCALE, FRAME_MAX_SCALE);
  size = round (size * scale);
  return size < 1.0 ? 1 : (guint) MIN (size, (gdouble) G_MAXINT);
}

static void
pace_arm (SimFrameSource * fs)
{
  PacedPacket *head = g_queue_peek_head (&fs->paced);

  if (fs->pace_timer || !head)
    return;
  fs->pace_timer = sim_schedule (fs->parent.sim, head->at, pace_fire, fs);
}

static void
pace_fire (Sim * sim, gpointer user_data)
{
  SimFrameSource *fs = user_data;
  PacedPacket *pp;

  fs->pace_timer = 0;
  while ((pp = g_queue_peek_head (&fs->paced)) && pp->at <= sim_now (sim)) {
    SimPacket *p = pp->packet;
    g_queue_pop_head (&fs->paced);
    g_free (pp);
    source_emit (&fs->parent, p);
  }
  pace_arm (fs);
}

static void
frame_fire (Sim * sim, gpointer user_data)
{
  SimFrameSource *fs = user_data;
  SimSource *src = &fs->parent;
  const SimFrameConfig *c = &fs->config;
  RtpccTime now = sim_now (sim);
  guint64 k = fs->frame_no++;
  gboolean key;
  guint bytes, payload_max, n, left;
  RtpccTime last_at;
  PacedPacket *tail;

  key = k == 0 || fs->force_key
      || (c->keyframe_interval > 0 && k % c->keyframe_interval == 0);
  bytes = frame_size (fs, key);
  if (c->target_bps == 0) {
    /* Paused encoder: the slot passes without output; a due keyframe waits
     * for the first frame after the pause. */
    fs->force_key = key;
    frame_arm (fs);
    return;
  }
  fs->force_key = FALSE;

  fs->stats.frames++;
  fs->stats.payload_bytes += bytes;
  if (key) {
    fs->stats.keyframes++;
    fs->stats.keyframe_bytes += bytes;
  }

  /* Fill packets to the MTU, the remainder last (as RTP packetizers do). */
  payload_max = c->mtu - c->overhead;
  n = (bytes + payload_max - 1) / payload_max;
  left = bytes;
  tail = g_queue_peek_tail (&fs->paced);
  last_at = tail ? tail->at : now;

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

    if (c->pacing <= 0) {
      source_emit (src, p);
    } else {
      PacedPacket *pp = g_new (PacedPacket, 1);
      /* Evenly over the pacing span, never ahead of an earlier frame's
       * packets still waiting. */
      pp->at = MAX (now + c->pacing * (RtpccTime) i / (RtpccTime) n, last_at);
      pp->packet = p;
      last_at = pp->at;
      g_queue_push_tail (&fs->paced, pp);
    }
  }
  pace_arm (fs);
  frame_arm (fs);
}

static void
frame_set_rate (SimSource * src, guint64 bps)
{
  ((SimFrameSource *) src)->config.target_bps = bps;
}

static guint64
frame_get_rate (SimSource * src)
{
  return ((SimFrameSource *) src)->config.target_bps;
}

static void
frame_finalize (SimSource * src)
{
  SimFrameSource *fs = (SimFrameSource *) src;
  PacedPacket *pp;

  sim_cancel (src->sim, fs->frame_timer);
  sim_cancel (src->sim, fs->pace_timer);
  while ((pp = g_queue_pop_head (&fs->paced))) {
    sim_packet_free (src->sim, pp->packet);
    g_free (pp);
  }
}

void
sim_frame_config_init (SimFrameConfig * config)
{
  config->flow = 0;
  config->fps = 25.0;
  config->target_bps = 1000000;
  config->mtu = 1200;
  config->overhead = 0;
  config->keyframe_interval = 0;
  config->keyframe_ratio = 4.0;
  config->noise = 0.1;
  config->pacing = 0;
  config->start = 0;
  config->stop = RTPCC_TIME_INFINITE;
  config->seed = 0;
}

SimSource *
sim_frame_source_new (Sim * sim, const SimFrameConfig * config,
    SimNode * next)
{
  SimFrameSource *fs;

  g_return_val_if_fail (config->fps > 0.0, NULL);
  g_return_val_if_fail (config->mtu > config->overhead, NULL);
  g_return_val_if_fail (config->keyframe_ratio > 0.0, NULL);
  g_return_val_if_fail (config->noise >= 0.0, NULL);
  g_return_val_if_fail (config->start >= sim_now (sim), NULL);

  fs = g_new0 (SimFrameSource, 1);
  fs->parent.sim = sim;
  fs->parent.next = next;
  fs->parent.flow = config->flow;
  fs->parent.set_rate = frame_set_rate;
  fs->parent.get_rate = frame_get_rate;
  fs->parent.finalize = frame_finalize;
  fs->config = *config;
  /* One stream per flow: sources sharing a seed still differ. */
  rtpcc_rng_init_stream (&fs->rng, config->seed,
      G_GUINT64_CONSTANT (0x5f5f0000) + config->flow);
  g_queue_init (&fs->paced);
  frame_arm (fs);
  return &fs->parent;
}

void
sim_frame_source_force_keyframe (SimSource * src)
{
  g_return_if_fail (src->finalize == frame_finalize);
  ((SimFrameSource *) src)->force_key = TRUE;
}

void
sim_frame_source_get_stats (SimSource * src, SimFrameStats * stats)
{
  g_return_if_fail (src->finalize == frame_finalize);
  *stats = ((SimFrameSource *) src)->stats;
}

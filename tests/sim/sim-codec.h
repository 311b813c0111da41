/* A syncodecs-like statistical video codec as a SimSource (RFC 8593 §4's
 * statistical model, after cisco/syncodecs' StatisticsCodec): it follows
 * the target the way a real encoder's rate control does, not instantly.
 *
 *  - Rate control: every update_interval the encoder rate r moves toward
 *    the target by at most max_update_ratio × r; a target further than
 *    big_change_ratio × r away is taken at once and starts a transient
 *    (the encoder reconfigures: an I-frame, then transient_length lighter
 *    frames that pay it back so the transient averages to the new rate).
 *  - Frames: mean size r / 8 / fps; an I-frame adds iframe_bytes (at the
 *    start, every keyframe_interval frames, after a big change, or when
 *    forced); size × (1 + Laplace(size_noise)) clamped to [0.1, 10];
 *    frame interval 1/fps × (1 + Laplace(interval_noise)) clamped to
 *    [0.5, 1.5]/fps (capture jitter; frames never reorder).
 *  - Packets: filled to mtu (overhead header bytes included), remainder
 *    last, back to back at capture, marker on the last; target 0 pauses.
 *
 * One RtpccRng stream per flow from seed: one seed replays one run.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SIM_CODEC_H__
#define __RTPCC_SIM_CODEC_H__

#include "sim-rtpcc.h"

G_BEGIN_DECLS

typedef struct
{
  guint flow;
  gdouble fps;                  /* 25 */
  guint mtu;                    /* 1200 */
  guint overhead;               /* header bytes per packet, 0 */
  RtpccTime update_interval;    /* 100 ms */
  gdouble max_update_ratio;     /* 0.1 */
  gdouble big_change_ratio;     /* 0.5 */
  guint transient_length;       /* 10 frames */
  guint iframe_bytes;           /* extra bytes of an I-frame, 4170 */
  guint keyframe_interval;      /* frames; 0: start and transients only */
  gdouble size_noise;           /* 0.1 */
  gdouble interval_noise;       /* 0.05 */
  guint64 initial_bps;          /* target before any set_rate, 0 */
  /* 0: the rate moves max_update_ratio per update (or jumps on a big
   * change); else it approaches the target as a first-order lag with
   * these time constants, up and down (sim_codec_config_x264) */
  RtpccTime response_up, response_down;
  RtpccTime start, stop;        /* 0, INFINITE */
  guint64 seed;
} SimCodecConfig;

/* The syncodecs StatisticsCodec defaults listed above. */
void sim_codec_config_init (SimCodecConfig * config);
/* The codec as x264enc behind rtpccsink in the real-time runner
 * (tests/eval/rt: 30 fps from a live videotestsrc, key frames every 4 s,
 * rtpccsink's 100 ms rate-control buffer), from what one real run of
 * RFC 8867 5.1 measured (docs/simulator.md, "What the simulator lacked
 * (3)"). */
void sim_codec_config_x264 (SimCodecConfig * config);

typedef struct
{
  guint64 frames, iframes, transients;
  guint64 payload_bytes, iframe_bytes;
  guint64 rate_bps;             /* encoder rate now */
} SimCodecStats;

/* One entry per change of the encoder rate. */
typedef struct
{
  RtpccTime time;
  guint64 rate_bps;
  gboolean transient;           /* a big change (jump + I-frame) */
} SimCodecRateChange;

/* NULL if the config is invalid (fps <= 0, mtu <= overhead, ratios < 0,
 * start in the past). sim_source_set_rate sets the target. */
SimSource *sim_codec_source_new (Sim * sim, const SimCodecConfig * config,
    SimNode * next);
void sim_codec_source_get_stats (SimSource * src, SimCodecStats * stats);
const SimCodecRateChange *sim_codec_source_get_rate_log (SimSource * src,
    guint * n);
void sim_codec_source_force_keyframe (SimSource * src);
gboolean sim_source_is_codec (SimSource * src);

/* Replace @flow's frame source by a codec source (call right after
 * sim_rtpcc_net_add_flow, before running on): the flow id and the next
 * node are the flow's; start/stop/seed are @config's (start >= now). The
 * sender drives it with target.media_bitrate. FALSE if @config is
 * invalid (the frame source stays). */
gboolean sim_rtpcc_flow_use_codec (SimRtpccNet * net, SimRtpccFlow * flow,
    const SimCodecConfig * config);

G_END_DECLS

#endif

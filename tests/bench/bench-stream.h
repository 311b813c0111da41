/* The benchmarks' packet stream: deterministic, video-like RTP.
 *
 * 1200-byte H.264 packets (FU-A fragments, so sendbuffer sees frames and
 * key frames as in a real call), four per frame at 25 frames/s: 100
 * packets/s, 0.96 Mbit/s, one key frame every 2 s. The marker bit ends each
 * frame; timestamps step 3600 (90 kHz). Payload bytes are seeded random,
 * identical in every run and every process.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __BENCH_STREAM_H__
#define __BENCH_STREAM_H__

#include <glib.h>

G_BEGIN_DECLS

#define BENCH_PKT_SIZE 1200
#define BENCH_PKTS_PER_FRAME 4
#define BENCH_FPS 25
#define BENCH_PKT_RATE (BENCH_PKTS_PER_FRAME * BENCH_FPS)
#define BENCH_PT 96
#define BENCH_SSRC 0x5eed0001u
#define BENCH_CLOCK_RATE 90000
#define BENCH_CAPS "application/x-rtp,media=(string)video," \
    "clock-rate=(int)90000,encoding-name=(string)H264,payload=(int)96"

/* Packet @i of the stream (@i from 0), BENCH_PKT_SIZE bytes into @out.
 * @pkts_per_frame: 0 = BENCH_PKTS_PER_FRAME (other rates keep 25 fps). */
void bench_stream_packet (guint64 i, guint pkts_per_frame, guint8 * out);

G_END_DECLS

#endif

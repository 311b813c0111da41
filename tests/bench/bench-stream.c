/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bench-stream.h"

#include <rtpcc/rng.h>
#include <string.h>

#define TEMPLATES 16
#define KEY_EVERY (2 * BENCH_FPS)       /* frames */

static guint8 templates[TEMPLATES][BENCH_PKT_SIZE];

static gpointer
make_templates (gpointer data)
{
  RtpccRng rng;

  rtpcc_rng_init (&rng, 20240519);
  for (guint t = 0; t < TEMPLATES; t++)
    for (guint b = 0; b < BENCH_PKT_SIZE; b++)
      templates[t][b] = (guint8) rtpcc_rng_below (&rng, 256);
  return NULL;
}

void
bench_stream_packet (guint64 i, guint pkts_per_frame, guint8 * out)
{
  static GOnce once = G_ONCE_INIT;
  guint ppf = pkts_per_frame ? pkts_per_frame : BENCH_PKTS_PER_FRAME;
  guint64 frame = i / ppf;
  guint in_frame = (guint) (i % ppf);
  gboolean last = in_frame == ppf - 1;
  guint16 seq = (guint16) (1000 + i);
  guint32 ts = (guint32) (frame * (BENCH_CLOCK_RATE / BENCH_FPS));
  guint8 nal_type = frame % KEY_EVERY == 0 ? 5 : 1;

  g_once (&once, make_templates, NULL);
  memcpy (out, templates[i % TEMPLATES], BENCH_PKT_SIZE);
  out[0] = 0x80;
  out[1] = (guint8) (BENCH_PT | (last ? 0x80 : 0));
  out[2] = (guint8) (seq >> 8);
  out[3] = (guint8) seq;
  out[4] = (guint8) (ts >> 24);
  out[5] = (guint8) (ts >> 16);
  out[6] = (guint8) (ts >> 8);
  out[7] = (guint8) ts;
  out[8] = (guint8) (BENCH_SSRC >> 24);
  out[9] = (guint8) (BENCH_SSRC >> 16);
  out[10] = (guint8) (BENCH_SSRC >> 8);
  out[11] = (guint8) BENCH_SSRC;
  /* FU-A (RFC 6184 §5.8): indicator NRI 2, type 28; header S/E, NAL type */
  out[12] = 0x40 | 28;
  out[13] = (guint8) ((in_frame == 0 ? 0x80 : 0) | (last ? 0x40 : 0) |
      nal_type);
}

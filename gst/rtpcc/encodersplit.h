/* How one transport's target is shared by several encoders behind it
 * (audio and video into one rtpccsink through a funnel, an rtpbin session
 * with both): audio first, the rest to video, shared equally.
 *
 * Audio is a small, nearly constant rate whose loss costs the call its
 * intelligibility, so it keeps what the application configured (its
 * bitrate when the encoder was found) as long as all audio together takes
 * at most half the target; below that the audio encoders are scaled down
 * together to half the target. The video encoders share what is left
 * equally. With no video encoder the audio encoders share the whole target
 * equally, and with one encoder it gets the target, as without a split.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_ENCODER_SPLIT_H__
#define __RTPCC_ENCODER_SPLIT_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean audio;
  guint64 wish_bps;             /* audio: what the application configured */
} RtpccEncoderShare;

/* @out[i]: the rate for encoder @i of @n (n ≤ 64); the sum is @target (up
 * to rounding down). */
void rtpcc_encoder_split (guint64 target, const RtpccEncoderShare * enc,
    guint n, guint64 * out);

G_END_DECLS

#endif

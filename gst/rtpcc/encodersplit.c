/* RtpccEncoderShare split (encodersplit.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "encodersplit.h"

void
rtpcc_encoder_split (guint64 target, const RtpccEncoderShare * enc, guint n,
    guint64 * out)
{
  guint n_audio = 0, n_video = 0;
  guint64 wish = 0, audio = 0, cap;

  if (n == 0)
    return;
  for (guint i = 0; i < n; i++) {
    if (enc[i].audio) {
      n_audio++;
      wish += enc[i].wish_bps;
    } else {
      n_video++;
    }
  }
  if (n_video == 0 || n_audio == 0) {
    for (guint i = 0; i < n; i++)
      out[i] = target / n;
    return;
  }
  cap = target / 2;
  for (guint i = 0; i < n; i++) {
    if (!enc[i].audio)
      continue;
    out[i] = wish <= cap ? enc[i].wish_bps :
        (guint64) ((gdouble) enc[i].wish_bps * (gdouble) cap / (gdouble) wish);
    audio += out[i];
  }
  for (guint i = 0; i < n; i++)
    if (!enc[i].audio)
      out[i] = (target - audio) / n_video;
}

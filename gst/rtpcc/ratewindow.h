/* RtpccRateWindow: bytes over a sliding time window, for rates that must
 * follow the last N ms exactly (a controller's receive rate, an element's
 * reported bitrate). Samples are kept in time order in an array that is
 * compacted as old ones expire, so pushes and reads are amortised O(1) and
 * memory is bounded by the packets of one window.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_RATEWINDOW_H__
#define __RTPCC_RATEWINDOW_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  RtpccTime t;
  guint bytes;
} RtpccRateSample;

typedef struct
{
  /* (time, bytes), oldest first from head; a plain buffer, not a GArray:
   * a push is on every packet's path and must stay a few stores */
  RtpccRateSample *samples;
  guint len, cap;
  guint head;
  guint64 bytes;                /* in samples[head..] */
  RtpccTime first_ever, newest;
  RtpccTime window;
} RtpccRateWindow;

void rtpcc_rate_window_init (RtpccRateWindow * w, RtpccTime window);
void rtpcc_rate_window_clear (RtpccRateWindow * w);
/* Forget every sample; the window length stays. */
void rtpcc_rate_window_reset (RtpccRateWindow * w);
/* A sample of @bytes at @t; times may repeat but should not go backwards
 * by more than the window (older ones expire at once). */
void rtpcc_rate_window_push (RtpccRateWindow * w, RtpccTime t, guint bytes);
/* Bytes of the samples in (@now − window, @now]. */
guint64 rtpcc_rate_window_bytes (RtpccRateWindow * w, RtpccTime now);
/* bit/s over the window ending at @end (the newest sample if
 * RTPCC_TIME_NONE). While the history is shorter than the window, over the
 * span there is if it is at least @min_span, not counting the first sample
 * (it only opens the interval); -1 if there is too little. */
gdouble rtpcc_rate_window_rate (RtpccRateWindow * w, RtpccTime end,
    RtpccTime min_span);

G_END_DECLS
#endif /* __RTPCC_RATEWINDOW_H__ */

/* Loss events (RFC 5348 §5.2).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/lossevents.h>

#include <string.h>

void
rtpcc_loss_events_init (RtpccLossEvents * le)
{
  memset (le, 0, sizeof (*le));
  le->first_send = RTPCC_TIME_NONE;
}

gboolean
rtpcc_loss_events_on_loss (RtpccLossEvents * le, guint64 seq,
    RtpccTime send_time, RtpccTime rtt, guint64 * interval)
{
  if (le->started && (seq <= le->first_seq
          || send_time <= le->first_send + rtt))
    return FALSE;
  if (interval)
    *interval = le->started ? seq - le->first_seq : 0;
  le->started = TRUE;
  le->first_seq = seq;
  le->first_send = send_time;
  le->n_events++;
  return TRUE;
}

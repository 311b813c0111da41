/* RtpccPlayoutDjbMeter: what a de-jitter buffer tells the receiver for
 * the RFC 7005 De-Jitter Buffer Metrics block, at a bounded rate.
 *
 * RFC 7005 §3.1 reports the nominal delay (what a packet arriving exactly
 * on time waits), the maximum (the longest delay a packet may wait and
 * still play) and the high- and low-water marks of the nominal delay over
 * the reporting interval. The buffer samples its state after every change;
 * the meter keeps the extremes of the nominal delay since the last update
 * it let out, so a spike between two updates is not lost to the bounded
 * rate, and starts the next marks at the current nominal delay (the buffer
 * held that delay when the next interval began).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/playout.h>

#include <string.h>

void
rtpcc_playout_djb_meter_init (RtpccPlayoutDjbMeter * m, RtpccTime interval)
{
  memset (m, 0, sizeof (*m));
  m->interval = MAX (interval, 0);
  m->last = RTPCC_TIME_NONE;
  m->cur.nominal = m->cur.maximum = RTPCC_TIME_NONE;
  m->cur.high_water = m->cur.low_water = RTPCC_TIME_NONE;
}

void
rtpcc_playout_djb_meter_sample (RtpccPlayoutDjbMeter * m, gboolean adaptive,
    RtpccTime nominal, RtpccTime maximum)
{
  if (nominal == RTPCC_TIME_NONE || nominal < 0)
    return;
  m->cur.adaptive = adaptive;
  m->cur.nominal = nominal;
  /* the buffer never holds a packet past its maximum: a nominal delay
   * above a stale maximum means the maximum moved */
  m->cur.maximum = maximum == RTPCC_TIME_NONE ? RTPCC_TIME_NONE :
      MAX (maximum, nominal);
  if (m->cur.high_water == RTPCC_TIME_NONE || nominal > m->cur.high_water)
    m->cur.high_water = nominal;
  if (m->cur.low_water == RTPCC_TIME_NONE || nominal < m->cur.low_water)
    m->cur.low_water = nominal;
  m->have = TRUE;
}

gboolean
rtpcc_playout_djb_meter_due (RtpccPlayoutDjbMeter * m, RtpccTime now,
    RtpccPlayoutDjb * out)
{
  if (!m->have || now == RTPCC_TIME_NONE)
    return FALSE;
  if (m->last != RTPCC_TIME_NONE && now >= m->last
      && now - m->last < m->interval)
    return FALSE;
  *out = m->cur;
  m->last = now;
  m->cur.high_water = m->cur.low_water = m->cur.nominal;
  return TRUE;
}

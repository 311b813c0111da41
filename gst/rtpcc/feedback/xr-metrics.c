/* RTCP XR fixed-size metric blocks, and the conversions of their units.
 * Which I (and DT) values each block allows is in xr.h.
 *
 * Delay Metrics (RFC 6843 §3.1), block length 6:
 *  |    BT=16      | I |   resv.   |       block length = 6        |
 *  |                        SSRC of source                         |
 *  |                 Mean Network Round-Trip Delay                 |
 *  |                  Min Network Round-Trip Delay                 |
 *  |                  Max Network Round-Trip Delay                 |
 *  |              End System Delay - Seconds (bit 0-31)            |
 *  |             End System Delay - Fraction (bit 0-31)            |
 *
 * De-Jitter Buffer Metrics (RFC 7005 §4.1), block length 3:
 *  |     BT=23     | I |C|  resv.  |       block length = 3        |
 *  |                        SSRC of source                         |
 *  |          DJB nominal          |          DJB maximum          |
 *  |      DJB high-water mark      |      DJB low-water mark       |
 *
 * Discard Count (RFC 7002 §3.1), block length 2:
 *  |     BT=24     | I |DT |  resv.|       block length = 2        |
 *  |                        SSRC of source                         |
 *  |                 Number of packets discarded                   |
 *
 * Bytes Discarded (RFC 7243 §3), block length 2:
 *  |     BT=26     | I |E| reserved|       block length = 2        |
 *  |                        SSRC of source                         |
 *  |              Number of RTP payload bytes discarded            |
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "xr-private.h"
#include "bytes.h"

#include <string.h>

#define I_SHIFT 6

gsize
rtpcc_xr_metric_size (guint8 bt)
{
  switch (bt) {
    case RTPCC_XR_BT_DELAY:
      return 28;
    case RTPCC_XR_BT_DEJITTER:
      return 16;
    case RTPCC_XR_BT_DISCARD_COUNT:
    case RTPCC_XR_BT_BYTES_DISCARDED:
      return 12;
    default:
      return 0;
  }
}

gboolean
rtpcc_xr_metric_read (const guint8 * blk, gsize blen, RtpccXrBlock * out,
    GError ** error)
{
  guint8 bt = blk[0], ts = blk[1], interval = ts >> I_SHIFT;
  guint32 ssrc;

  if (blen != rtpcc_xr_metric_size (bt)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "XR: block type %u is %" G_GSIZE_FORMAT " bytes, must be %"
        G_GSIZE_FORMAT, bt, blen, rtpcc_xr_metric_size (bt));
    return FALSE;
  }
  memset (out, 0, sizeof (*out));
  out->bt = bt;
  ssrc = rtpcc_rd32 (blk + 4);
  switch (bt) {
    case RTPCC_XR_BT_DELAY:
      out->delay.interval = interval;
      out->delay.ssrc = ssrc;
      out->delay.mean_rtt = rtpcc_rd32 (blk + 8);
      out->delay.min_rtt = rtpcc_rd32 (blk + 12);
      out->delay.max_rtt = rtpcc_rd32 (blk + 16);
      out->delay.end_system_delay = ((guint64) rtpcc_rd32 (blk + 20) << 32)
          | rtpcc_rd32 (blk + 24);
      break;
    case RTPCC_XR_BT_DEJITTER:
      out->dejitter.interval = interval;
      out->dejitter.adaptive = (ts >> 5) & 1;
      out->dejitter.ssrc = ssrc;
      out->dejitter.nominal = rtpcc_rd16 (blk + 8);
      out->dejitter.maximum = rtpcc_rd16 (blk + 10);
      out->dejitter.high_water = rtpcc_rd16 (blk + 12);
      out->dejitter.low_water = rtpcc_rd16 (blk + 14);
      break;
    case RTPCC_XR_BT_DISCARD_COUNT:
      out->discard_count.interval = interval;
      out->discard_count.discard_type = (ts >> 4) & 3;
      out->discard_count.ssrc = ssrc;
      out->discard_count.packets = rtpcc_rd32 (blk + 8);
      break;
    default:                   /* RTPCC_XR_BT_BYTES_DISCARDED */
      out->bytes_discarded.interval = interval;
      out->bytes_discarded.early = (ts >> 5) & 1;
      out->bytes_discarded.ssrc = ssrc;
      out->bytes_discarded.bytes = rtpcc_rd32 (blk + 8);
      break;
  }
  return TRUE;
}

/* I = 10 or 11: a count over a definite interval (RFC 7002 §3.2, RFC 7243
 * §3: "MUST NOT be reported as a Sampled Metric"). */
static gboolean
interval_or_cumulative (guint8 i)
{
  return i == RTPCC_XR_I_INTERVAL || i == RTPCC_XR_I_CUMULATIVE;
}

gboolean
rtpcc_xr_metric_valid (const RtpccXrBlock * b)
{
  switch (b->bt) {
    case RTPCC_XR_BT_DELAY:
      /* RFC 6843 §3.2 defines 01, 10 and 11; 00 has no meaning */
      return b->delay.interval >= RTPCC_XR_I_SAMPLED
          && b->delay.interval <= RTPCC_XR_I_CUMULATIVE;
    case RTPCC_XR_BT_DEJITTER:
      /* RFC 7005 §4.2: "can only be sampled" */
      return b->dejitter.interval == RTPCC_XR_I_SAMPLED;
    case RTPCC_XR_BT_DISCARD_COUNT:
      /* RFC 7002 §3.2: DT = 11 is reserved, "MUST be discarded" */
      return interval_or_cumulative (b->discard_count.interval)
          && b->discard_count.discard_type <= RTPCC_XR_DT_LATE;
    case RTPCC_XR_BT_BYTES_DISCARDED:
      return interval_or_cumulative (b->bytes_discarded.interval);
    default:
      return FALSE;
  }
}

void
rtpcc_xr_metric_write (guint8 * p, const RtpccXrBlock * b)
{
  gsize size = rtpcc_xr_metric_size (b->bt);

  memset (p, 0, size);
  p[0] = b->bt;
  rtpcc_wr16 (p + 2, (guint16) (size / 4 - 1));
  switch (b->bt) {
    case RTPCC_XR_BT_DELAY:
      p[1] = (guint8) (b->delay.interval << I_SHIFT);
      rtpcc_wr32 (p + 4, b->delay.ssrc);
      rtpcc_wr32 (p + 8, b->delay.mean_rtt);
      rtpcc_wr32 (p + 12, b->delay.min_rtt);
      rtpcc_wr32 (p + 16, b->delay.max_rtt);
      rtpcc_wr32 (p + 20, (guint32) (b->delay.end_system_delay >> 32));
      rtpcc_wr32 (p + 24, (guint32) b->delay.end_system_delay);
      break;
    case RTPCC_XR_BT_DEJITTER:
      p[1] = (guint8) ((b->dejitter.interval << I_SHIFT)
          | (b->dejitter.adaptive ? 0x20 : 0));
      rtpcc_wr32 (p + 4, b->dejitter.ssrc);
      rtpcc_wr16 (p + 8, b->dejitter.nominal);
      rtpcc_wr16 (p + 10, b->dejitter.maximum);
      rtpcc_wr16 (p + 12, b->dejitter.high_water);
      rtpcc_wr16 (p + 14, b->dejitter.low_water);
      break;
    case RTPCC_XR_BT_DISCARD_COUNT:
      p[1] = (guint8) ((b->discard_count.interval << I_SHIFT)
          | (b->discard_count.discard_type << 4));
      rtpcc_wr32 (p + 4, b->discard_count.ssrc);
      rtpcc_wr32 (p + 8, b->discard_count.packets);
      break;
    default:                   /* RTPCC_XR_BT_BYTES_DISCARDED */
      p[1] = (guint8) ((b->bytes_discarded.interval << I_SHIFT)
          | (b->bytes_discarded.early ? 0x20 : 0));
      rtpcc_wr32 (p + 4, b->bytes_discarded.ssrc);
      rtpcc_wr32 (p + 8, b->bytes_discarded.bytes);
      break;
  }
}

/* ---- Units ------------------------------------------------------------- */

guint32
rtpcc_xr_delay_from_time (RtpccTime d)
{
  guint64 secs, frac, v;

  if (d == RTPCC_TIME_NONE)
    return RTPCC_XR_DELAY_UNAVAILABLE;
  if (d <= 0)
    return 0;
  secs = (guint64) d / RTPCC_NSEC_PER_SEC;
  frac = (((guint64) d % RTPCC_NSEC_PER_SEC) << 16) / RTPCC_NSEC_PER_SEC;
  v = (secs << 16) | frac;
  /* a measured delay never reads as "unavailable" */
  return (guint32) MIN (v, RTPCC_XR_DELAY_UNAVAILABLE - 1);
}

RtpccTime
rtpcc_xr_delay_to_time (guint32 v)
{
  if (v == RTPCC_XR_DELAY_UNAVAILABLE)
    return RTPCC_TIME_NONE;
  /* v × 10^9 < 2^62: no overflow */
  return (RtpccTime) (((guint64) v * RTPCC_NSEC_PER_SEC + 32768) >> 16);
}

guint64
rtpcc_xr_es_delay_from_time (RtpccTime d)
{
  guint64 secs, frac;

  if (d == RTPCC_TIME_NONE)
    return RTPCC_XR_ES_DELAY_UNAVAILABLE;
  if (d <= 0)
    return 0;
  /* 2^63 ns is 292 years, more than 32 bits of seconds hold (136) */
  secs = (guint64) d / RTPCC_NSEC_PER_SEC;
  if (secs > G_MAXUINT32)
    return RTPCC_XR_ES_DELAY_UNAVAILABLE - 1;
  /* remainder < 2^30: the shift cannot overflow */
  frac = (((guint64) d % RTPCC_NSEC_PER_SEC) << 32) / RTPCC_NSEC_PER_SEC;
  return MIN ((secs << 32) | frac, RTPCC_XR_ES_DELAY_UNAVAILABLE - 1);
}

RtpccTime
rtpcc_xr_es_delay_to_time (guint64 v)
{
  guint64 secs = v >> 32, frac = v & G_MAXUINT32;

  if (v == RTPCC_XR_ES_DELAY_UNAVAILABLE)
    return RTPCC_TIME_NONE;
  /* secs < 2^32 and 10^9 < 2^30: fits in 62 bits */
  return (RtpccTime) (secs * RTPCC_NSEC_PER_SEC +
      ((frac * RTPCC_NSEC_PER_SEC + (G_GUINT64_CONSTANT (1) << 31)) >> 32));
}

guint16
rtpcc_xr_djb_from_time (RtpccTime d)
{
  if (d == RTPCC_TIME_NONE)
    return RTPCC_XR_DJB_UNAVAILABLE;
  if (d <= 0)
    return 0;
  if (d / RTPCC_NSEC_PER_MSEC >= RTPCC_XR_DJB_OVER_RANGE)
    return RTPCC_XR_DJB_OVER_RANGE;
  return (guint16) (d / RTPCC_NSEC_PER_MSEC);
}

RtpccTime
rtpcc_xr_djb_to_time (guint16 v)
{
  if (v >= RTPCC_XR_DJB_OVER_RANGE)
    return RTPCC_TIME_NONE;
  return RTPCC_MSEC (v);
}

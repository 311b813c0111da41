/* RTCP XR round trips for a receiver that sends no RTP (RFC 3611 §4.4,
 * §4.5): it stamps its report with a Receiver Reference Time block, the
 * media sender echoes the stamp's middle 32 bits in a DLRR block with the
 * time it held it, and the receiver takes A − LRR − DLRR, as RFC 3550
 * §6.4.1 does with LSR / DLSR.
 *
 * Receiver Reference Time (BT 4), block length 2:
 *  |     BT=4      |   reserved    |       block length = 2        |
 *  |              NTP timestamp, most significant word             |
 *  |             NTP timestamp, least significant word             |
 *
 * DLRR (BT 5), block length 3 × sub-blocks:
 *  |     BT=5      |   reserved    |         block length          |
 *  |                 SSRC_1 (SSRC of first receiver)               |
 *  |                         last RR (LRR)                         |
 *  |                   delay since last RR (DLRR)                  |
 *  :                  ... one sub-block per receiver               :
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "xr-private.h"
#include <rtpcc/feedback/rtcp.h>
#include "bytes.h"

gsize
rtpcc_xr_rrtr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint64 ntp)
{
  const gsize total = RTPCC_XR_HEADER_SIZE + 12;

  if (buf == NULL || max < total)
    return 0;
  rtpcc_xr_write_header (buf, total, sender_ssrc);
  buf[8] = RTPCC_XR_BT_RRTR;
  buf[9] = 0;
  rtpcc_wr16 (buf + 10, 2);
  rtpcc_wr32 (buf + 12, (guint32) (ntp >> 32));
  rtpcc_wr32 (buf + 16, (guint32) ntp);
  return total;
}

gsize
rtpcc_xr_dlrr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 ssrc, guint32 lrr, guint32 dlrr)
{
  const gsize total = RTPCC_XR_HEADER_SIZE + 16;

  if (buf == NULL || max < total)
    return 0;
  rtpcc_xr_write_header (buf, total, sender_ssrc);
  buf[8] = RTPCC_XR_BT_DLRR;
  buf[9] = 0;
  rtpcc_wr16 (buf + 10, 3);
  rtpcc_wr32 (buf + 12, ssrc);
  rtpcc_wr32 (buf + 16, lrr);
  rtpcc_wr32 (buf + 20, dlrr);
  return total;
}

/* Walks the blocks of one XR packet (@len = its length field); calls
 * @fn on each until it returns TRUE. FALSE if the framing is broken. */
static gboolean
walk (const guint8 * data, gsize len,
    gboolean (*fn) (const guint8 * blk, gsize blen, gpointer user_data),
    gpointer user_data)
{
  gsize end, off, blen;
  guint8 bt;

  if (!rtpcc_xr_check_header (data, len, FALSE, &end, NULL))
    return FALSE;
  for (off = RTPCC_XR_HEADER_SIZE; off < end; off += blen) {
    if (!rtpcc_xr_next_block (data, end, off, &bt, &blen, NULL))
      return FALSE;
    if (fn (data + off, blen, user_data))
      return TRUE;
  }
  return TRUE;
}

typedef struct
{
  gboolean found, bad;
  guint32 ssrc, lrr, dlrr;
  guint64 ntp;
} Find;

static gboolean
find_rrtr (const guint8 * blk, gsize blen, gpointer user_data)
{
  Find *f = user_data;

  if (blk[0] != RTPCC_XR_BT_RRTR)
    return FALSE;
  if (blen != 12) {
    f->bad = TRUE;
    return TRUE;
  }
  f->ntp = ((guint64) rtpcc_rd32 (blk + 4) << 32) | rtpcc_rd32 (blk + 8);
  f->found = TRUE;
  return TRUE;
}

gint
rtpcc_xr_find_rrtr (const guint8 * data, gsize len, guint64 * ntp)
{
  Find f = { 0, };

  if (!walk (data, len, find_rrtr, &f) || f.bad)
    return -1;
  if (f.found && ntp)
    *ntp = f.ntp;
  return f.found;
}

static gboolean
find_dlrr (const guint8 * blk, gsize blen, gpointer user_data)
{
  Find *f = user_data;

  if (blk[0] != RTPCC_XR_BT_DLRR)
    return FALSE;
  if ((blen - RTPCC_XR_BLOCK_HEADER_SIZE) % 12 != 0) {
    f->bad = TRUE;
    return TRUE;
  }
  for (gsize o = RTPCC_XR_BLOCK_HEADER_SIZE; o < blen; o += 12)
    if (rtpcc_rd32 (blk + o) == f->ssrc) {
      f->lrr = rtpcc_rd32 (blk + o + 4);
      f->dlrr = rtpcc_rd32 (blk + o + 8);
      f->found = TRUE;
      return TRUE;
    }
  return FALSE;
}

gint
rtpcc_xr_find_dlrr (const guint8 * data, gsize len, guint32 ssrc,
    guint32 * lrr, guint32 * dlrr)
{
  Find f = { 0, };

  f.ssrc = ssrc;
  if (!walk (data, len, find_dlrr, &f) || f.bad)
    return -1;
  if (f.found) {
    *lrr = f.lrr;
    *dlrr = f.dlrr;
  }
  return f.found;
}

/* RTCP (RFC 3550): NTP helpers, compound iteration, SR/RR/SDES, A.1/A.3/A.8.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "rtcp.h"
#include "bytes.h"

#include <string.h>

#define RTP_SEQ_MOD (G_GUINT64_CONSTANT (1) << 16)

/* ---- NTP ---------------------------------------------------------------- */

guint64
rtpcc_ntp_from_time (RtpccTime t, RtpccTime ntp_offset)
{
  gint64 ns;
  guint64 secs, frac;

  if (t == RTPCC_TIME_NONE)
    return 0;
  /* saturate instead of overflowing: the inputs are caller-supplied */
  if (ntp_offset > 0 && t > G_MAXINT64 - ntp_offset)
    ns = G_MAXINT64;
  else if (ntp_offset < 0 && t < G_MININT64 - ntp_offset)
    return 0;
  else
    ns = t + ntp_offset;
  if (ns < 0)
    return 0;

  secs = (guint64) ns / RTPCC_NSEC_PER_SEC;
  /* remainder < 2^30, so the shift cannot overflow */
  frac = (((guint64) ns % RTPCC_NSEC_PER_SEC) << 32) / RTPCC_NSEC_PER_SEC;
  return ((secs & 0xffffffffu) << 32) | frac;
}

RtpccTime
rtpcc_ntp_to_time (guint64 ntp, RtpccTime ntp_offset)
{
  guint64 secs = ntp >> 32, frac = ntp & 0xffffffffu;
  gint64 ns = (gint64) (secs * RTPCC_NSEC_PER_SEC +
      ((frac * RTPCC_NSEC_PER_SEC + (G_GUINT64_CONSTANT (1) << 31)) >> 32));
  gint64 t;

  if (__builtin_sub_overflow (ns, ntp_offset, &t))
    return ntp_offset > 0 ? G_MININT64 + 1 : G_MAXINT64;
  return t;
}

guint32
rtpcc_ntp_short (guint64 ntp)
{
  return (guint32) (ntp >> 16);
}

RtpccTime
rtpcc_ntp_short_to_time (guint32 v)
{
  /* v × 10^9 < 2^62: no overflow */
  return (RtpccTime) (((guint64) v * RTPCC_NSEC_PER_SEC + 32768) >> 16);
}

guint32
rtpcc_ntp_short_from_time (RtpccTime d)
{
  guint64 secs, frac;

  if (d <= 0)                   /* also RTPCC_TIME_NONE */
    return 0;
  secs = (guint64) d / RTPCC_NSEC_PER_SEC;
  if (secs >= 65536)
    return G_MAXUINT32;
  frac = (((guint64) d % RTPCC_NSEC_PER_SEC) << 16) / RTPCC_NSEC_PER_SEC;
  return (guint32) ((secs << 16) | frac);
}

RtpccTime
rtpcc_rtcp_rtt_from_lsr (guint32 now_ntp_short, guint32 lsr, guint32 dlsr)
{
  gint32 rtt;
  RtpccTime t;

  if (lsr == 0)
    return RTPCC_TIME_NONE;
  /* modulo-2^32 difference: correct across the 16.16 wrap */
  rtt = (gint32) (now_ntp_short - lsr - dlsr);
  /* A, LSR and DLSR are each truncated to 1/65536 s, so a near-zero RTT
   * (loopback) can come out a unit or two negative: that is 0, not junk. */
  if (rtt < 0 && rtt >= -2)
    rtt = 0;
  if (rtt < 0)
    return RTPCC_TIME_NONE;
  t = rtpcc_ntp_short_to_time ((guint32) rtt);
  if (t > RTPCC_RTCP_RTT_MAX)
    return RTPCC_TIME_NONE;
  return t;
}

/* ---- Compound packets -------------------------------------------------- */

gboolean
rtpcc_rtcp_is_rtcp (const guint8 * data, gsize len)
{
  if (data == NULL || len < 4)
    return FALSE;
  return (data[0] >> 6) == 2 && data[1] >= 192 && data[1] <= 223;
}

gboolean
rtpcc_rtcp_iter_init (RtpccRtcpIter * iter, const guint8 * data, gsize len)
{
  gsize off = 0;
  guint n = 0;

  g_return_val_if_fail (iter != NULL, FALSE);
  memset (iter, 0, sizeof (*iter));

  if (data == NULL || len < 4)
    return FALSE;

  while (off < len) {
    const guint8 *p = data + off;
    gsize plen;

    if (len - off < 4)
      return FALSE;
    if ((p[0] >> 6) != 2)
      return FALSE;
    plen = ((gsize) rtpcc_rd16 (p + 2) + 1) * 4;
    if (plen > len - off)
      return FALSE;
    if (p[0] & 0x20) {
      guint8 pad;
      /* RFC 3550 A.2: only the last packet of a compound may be padded */
      if (off + plen != len)
        return FALSE;
      pad = p[plen - 1];
      /* §6.4.1: the count includes itself and "will be a multiple of
       * four", but libwebrtc pads TWCC feedback to 32 bits with counts of
       * 1-3; the length field keeps the framing either way, so accept any
       * count within the packet (parsers of each format may be stricter) */
      if (pad == 0 || pad > plen - 4)
        return FALSE;
    }
    off += plen;
    n++;
  }

  iter->data = data;
  iter->len = len;
  iter->offset = 0;
  iter->n_packets = n;
  iter->reduced_size = !(data[1] == RTPCC_RTCP_SR || data[1] == RTPCC_RTCP_RR);
  return TRUE;
}

gboolean
rtpcc_rtcp_iter_next (RtpccRtcpIter * iter, RtpccRtcpPacket * out)
{
  const guint8 *p;
  gsize plen;

  g_return_val_if_fail (iter != NULL && out != NULL, FALSE);

  /* re-checked so that a zeroed or tampered iterator cannot read past */
  if (iter->data == NULL || iter->offset >= iter->len
      || iter->len - iter->offset < 4)
    return FALSE;

  p = iter->data + iter->offset;
  plen = ((gsize) rtpcc_rd16 (p + 2) + 1) * 4;
  if (plen > iter->len - iter->offset)
    return FALSE;

  out->pt = p[1];
  out->count = p[0] & 0x1f;
  out->padding = (p[0] & 0x20) != 0;
  out->padding_len = 0;
  out->data = p;
  out->len = plen;
  out->body = p + 4;
  out->body_len = plen - 4;
  if (out->padding) {
    guint8 pad = p[plen - 1];
    if (pad == 0 || pad > plen - 4)
      return FALSE;
    out->padding_len = pad;
    out->body_len -= pad;
  }
  iter->offset += plen;
  return TRUE;
}

/* ---- SR / RR / SDES ---------------------------------------------------- */

#define REPORT_BLOCK_SIZE 24

static void
read_report_block (const guint8 * p, RtpccRtcpReportBlock * b)
{
  guint32 lost = rtpcc_rd24 (p + 5);

  b->ssrc = rtpcc_rd32 (p);
  b->fraction_lost = p[4];
  /* sign-extend the 24-bit two's complement field */
  b->cumulative_lost = (lost & 0x800000) ? (gint32) lost - 0x1000000
      : (gint32) lost;
  b->ext_highest_seq = rtpcc_rd32 (p + 8);
  b->jitter = rtpcc_rd32 (p + 12);
  b->lsr = rtpcc_rd32 (p + 16);
  b->dlsr = rtpcc_rd32 (p + 20);
}

static void
write_report_block (guint8 * p, const RtpccRtcpReportBlock * b)
{
  gint32 lost = CLAMP (b->cumulative_lost, -0x800000, 0x7fffff);

  rtpcc_wr32 (p, b->ssrc);
  p[4] = b->fraction_lost;
  rtpcc_wr24 (p + 5, (guint32) lost & 0xffffff);
  rtpcc_wr32 (p + 8, b->ext_highest_seq);
  rtpcc_wr32 (p + 12, b->jitter);
  rtpcc_wr32 (p + 16, b->lsr);
  rtpcc_wr32 (p + 20, b->dlsr);
}

static void
write_header (guint8 * p, guint count, guint pt, gsize len)
{
  p[0] = (guint8) (0x80 | (count & 0x1f));
  p[1] = (guint8) pt;
  rtpcc_wr16 (p + 2, (guint16) (len / 4 - 1));
}

gboolean
rtpcc_rtcp_parse_sr (const RtpccRtcpPacket * pkt, RtpccRtcpSR * sr)
{
  const guint8 *b;
  guint i;

  g_return_val_if_fail (pkt != NULL && sr != NULL, FALSE);
  if (pkt->pt != RTPCC_RTCP_SR || pkt->body == NULL)
    return FALSE;
  if (pkt->body_len < 24 + (gsize) pkt->count * REPORT_BLOCK_SIZE)
    return FALSE;

  b = pkt->body;
  sr->ssrc = rtpcc_rd32 (b);
  sr->ntp = ((guint64) rtpcc_rd32 (b + 4) << 32) | rtpcc_rd32 (b + 8);
  sr->rtp_ts = rtpcc_rd32 (b + 12);
  sr->packet_count = rtpcc_rd32 (b + 16);
  sr->octet_count = rtpcc_rd32 (b + 20);
  sr->n_blocks = pkt->count;
  for (i = 0; i < sr->n_blocks; i++)
    read_report_block (b + 24 + i * REPORT_BLOCK_SIZE, &sr->blocks[i]);
  return TRUE;
}

gboolean
rtpcc_rtcp_parse_rr (const RtpccRtcpPacket * pkt, RtpccRtcpRR * rr)
{
  const guint8 *b;
  guint i;

  g_return_val_if_fail (pkt != NULL && rr != NULL, FALSE);
  if (pkt->pt != RTPCC_RTCP_RR || pkt->body == NULL)
    return FALSE;
  if (pkt->body_len < 4 + (gsize) pkt->count * REPORT_BLOCK_SIZE)
    return FALSE;

  b = pkt->body;
  rr->ssrc = rtpcc_rd32 (b);
  rr->n_blocks = pkt->count;
  for (i = 0; i < rr->n_blocks; i++)
    read_report_block (b + 4 + i * REPORT_BLOCK_SIZE, &rr->blocks[i]);
  return TRUE;
}

gsize
rtpcc_rtcp_write_sr (guint8 * buf, gsize max, const RtpccRtcpSR * sr)
{
  gsize len;
  guint i;

  g_return_val_if_fail (sr != NULL, 0);
  if (buf == NULL || sr->n_blocks > RTPCC_RTCP_MAX_BLOCKS)
    return 0;
  len = 28 + (gsize) sr->n_blocks * REPORT_BLOCK_SIZE;
  if (len > max)
    return 0;

  write_header (buf, sr->n_blocks, RTPCC_RTCP_SR, len);
  rtpcc_wr32 (buf + 4, sr->ssrc);
  rtpcc_wr32 (buf + 8, (guint32) (sr->ntp >> 32));
  rtpcc_wr32 (buf + 12, (guint32) sr->ntp);
  rtpcc_wr32 (buf + 16, sr->rtp_ts);
  rtpcc_wr32 (buf + 20, sr->packet_count);
  rtpcc_wr32 (buf + 24, sr->octet_count);
  for (i = 0; i < sr->n_blocks; i++)
    write_report_block (buf + 28 + i * REPORT_BLOCK_SIZE, &sr->blocks[i]);
  return len;
}

gsize
rtpcc_rtcp_write_rr (guint8 * buf, gsize max, const RtpccRtcpRR * rr)
{
  gsize len;
  guint i;

  g_return_val_if_fail (rr != NULL, 0);
  if (buf == NULL || rr->n_blocks > RTPCC_RTCP_MAX_BLOCKS)
    return 0;
  len = 8 + (gsize) rr->n_blocks * REPORT_BLOCK_SIZE;
  if (len > max)
    return 0;

  write_header (buf, rr->n_blocks, RTPCC_RTCP_RR, len);
  rtpcc_wr32 (buf + 4, rr->ssrc);
  for (i = 0; i < rr->n_blocks; i++)
    write_report_block (buf + 8 + i * REPORT_BLOCK_SIZE, &rr->blocks[i]);
  return len;
}

gsize
rtpcc_rtcp_write_sdes_cname (guint8 * buf, gsize max, guint32 ssrc,
    const gchar * cname)
{
  gsize clen, items, len;

  if (buf == NULL || cname == NULL)
    return 0;
  clen = strlen (cname);
  if (clen == 0 || clen > 255)
    return 0;
  /* CNAME item (2 + clen), then at least one null octet ending the item
   * list, padded to the next 32-bit boundary (§6.5) */
  items = (2 + clen + 1 + 3) & ~(gsize) 3;
  len = 4 + 4 + items;
  if (len > max)
    return 0;

  memset (buf, 0, len);
  write_header (buf, 1, RTPCC_RTCP_SDES, len);
  rtpcc_wr32 (buf + 4, ssrc);
  buf[8] = RTPCC_RTCP_SDES_CNAME;
  buf[9] = (guint8) clen;
  memcpy (buf + 10, cname, clen);
  return len;
}

/* ---- Receiver statistics (RFC 3550 A.1, A.3, A.8) ---------------------- */

void
rtpcc_rtp_source_init (RtpccRtpSourceStats * s, guint32 ssrc)
{
  g_return_if_fail (s != NULL);
  memset (s, 0, sizeof (*s));
  s->ssrc = ssrc;
  s->min_sequential = RTPCC_RTP_MIN_SEQUENTIAL;
}

static void
init_seq (RtpccRtpSourceStats * s, guint16 seq)
{
  s->base_seq = seq;
  s->max_seq = seq;
  s->bad_seq = RTP_SEQ_MOD + 1; /* so seq == bad_seq is false */
  s->cycles = 0;
  s->received = 0;
  s->received_prior = 0;
  s->expected_prior = 0;
}

gboolean
rtpcc_rtp_source_update_seq (RtpccRtpSourceStats * s, guint16 seq)
{
  guint16 udelta;

  g_return_val_if_fail (s != NULL, FALSE);

  if (!s->started) {
    /* A.1: a new source starts on probation */
    init_seq (s, seq);
    s->max_seq = (guint16) (seq - 1);
    s->probation = MAX (s->min_sequential, 1);
    s->started = TRUE;
  }

  udelta = (guint16) (seq - s->max_seq);

  if (s->probation) {
    /* the source is valid once min_sequential packets came in sequence */
    if (seq == (guint16) (s->max_seq + 1)) {
      s->probation--;
      s->max_seq = seq;
      if (s->probation == 0) {
        init_seq (s, seq);
        s->received++;
        return TRUE;
      }
    } else {
      /* min_sequential >= 2 here: with 1 the first packet always passes */
      s->probation = MAX (s->min_sequential, 1) - 1;
      s->max_seq = seq;
    }
    return FALSE;
  } else if (udelta < RTPCC_RTP_MAX_DROPOUT) {
    /* in order, with permissible gap */
    if (seq < s->max_seq)
      s->cycles += RTP_SEQ_MOD;
    s->max_seq = seq;
  } else if (udelta <= RTP_SEQ_MOD - RTPCC_RTP_MAX_MISORDER) {
    /* a very large jump: believe it only if the next packet follows it
     * (the sender restarted without telling us) */
    if (seq == s->bad_seq) {
      init_seq (s, seq);
    } else {
      s->bad_seq = (seq + 1) & (RTP_SEQ_MOD - 1);
      return FALSE;
    }
  } else {
    /* duplicate or reordered packet */
  }
  s->received++;
  return TRUE;
}

/* @t in units of @rate per second, modulo 2^32. Unsigned wrap-around keeps
 * the result right modulo 2^32 for any t; differences are what matter. */
static guint32
time_to_rtp_units (RtpccTime t, guint32 rate)
{
  gint64 secs = t / RTPCC_NSEC_PER_SEC, rem = t % RTPCC_NSEC_PER_SEC;
  guint64 units = (guint64) secs * rate;
  /* |rem| < 10^9 and rate < 2^32: the product fits in 63 bits */
  units += (guint64) ((rem * (gint64) rate) / RTPCC_NSEC_PER_SEC);
  return (guint32) units;
}

void
rtpcc_rtp_source_update_jitter (RtpccRtpSourceStats * s, RtpccTime arrival,
    guint32 rtp_ts, guint32 clock_rate)
{
  guint32 transit;
  gint32 d;
  gint64 ad, j;

  g_return_if_fail (s != NULL);
  if (clock_rate == 0 || arrival == RTPCC_TIME_NONE)
    return;

  transit = time_to_rtp_units (arrival, clock_rate) - rtp_ts;
  if (!s->have_transit) {
    s->transit = transit;
    s->have_transit = TRUE;
    return;
  }
  d = (gint32) (transit - s->transit);
  s->transit = transit;
  ad = d < 0 ? -(gint64) d : (gint64) d;
  /* J += (|D| − J) / 16, in A.8's scaled integer form */
  j = (gint64) s->jitter_q4 + ad - (((gint64) s->jitter_q4 + 8) >> 4);
  s->jitter_q4 = (guint32) CLAMP (j, 0, (gint64) G_MAXUINT32);
}

guint32
rtpcc_rtp_source_ext_highest_seq (const RtpccRtpSourceStats * s)
{
  g_return_val_if_fail (s != NULL, 0);
  return s->cycles + s->max_seq;
}

guint32
rtpcc_rtp_source_jitter (const RtpccRtpSourceStats * s)
{
  g_return_val_if_fail (s != NULL, 0);
  return s->jitter_q4 >> 4;
}

gboolean
rtpcc_rtp_source_make_report_block (RtpccRtpSourceStats * s, RtpccTime now,
    guint32 lsr, RtpccTime last_sr_arrival, RtpccRtcpReportBlock * out)
{
  guint32 extended_max;
  gint64 expected, lost, expected_interval, received_interval, lost_interval;
  gint64 since_sr;
  guint fraction;

  g_return_val_if_fail (s != NULL && out != NULL, FALSE);
  if (!s->started || s->probation)
    return FALSE;

  /* A.3 */
  extended_max = s->cycles + s->max_seq;
  expected = (gint64) extended_max - s->base_seq + 1;
  lost = expected - s->received;
  expected_interval = expected - s->expected_prior;
  s->expected_prior = (guint32) expected;
  received_interval = (gint64) s->received - s->received_prior;
  s->received_prior = s->received;
  lost_interval = expected_interval - received_interval;
  if (expected_interval <= 0 || lost_interval <= 0)
    fraction = 0;
  else
    /* all lost gives 256, which the 8-bit field cannot hold */
    fraction = MIN ((lost_interval << 8) / expected_interval, 255);

  out->ssrc = s->ssrc;
  out->fraction_lost = (guint8) fraction;
  out->cumulative_lost = (gint32) CLAMP (lost, -0x800000, 0x7fffff);
  out->ext_highest_seq = extended_max;
  out->jitter = s->jitter_q4 >> 4;
  out->lsr = lsr;
  if (lsr == 0 || last_sr_arrival == RTPCC_TIME_NONE
      || __builtin_sub_overflow (now, last_sr_arrival, &since_sr))
    out->dlsr = 0;
  else
    out->dlsr = rtpcc_ntp_short_from_time (since_sr);
  return TRUE;
}

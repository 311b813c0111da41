/* RtpccFeedbackAdapter: RTCP XR from the receiver (RFC 7097 Discard RLE,
 * RFC 3611 Loss RLE as the per-packet feedback of RR mode, the other
 * blocks into the stats and the controller's one-way delay).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "feedbackadapter-private.h"
#include <rtpcc/feedback/xr.h>

#include <string.h>

/* ---- XR (RFC 7097 Discard RLE) ------------------------------------------- */

static void
count_rle (const RtpccXrRleBlock * b, guint64 * lost, guint64 * received)
{
  for (guint i = 0; i < b->n_bits; i++) {
    if (b->bits[i])
      (*received)++;
    else
      (*lost)++;
  }
}

/* The XR blocks other than Discard RLE, about our media: into the stats,
 * Delay Metrics to the sink. TRUE if one was about us. */
static gboolean
xr_metrics (RtpccFeedbackAdapter * a, RtpccTime now, const guint8 * data,
    gsize len)
{
  g_autoptr (RtpccXrReport) x = NULL;
  RtpccXrFeedbackStats *st = &a->stats.xr;
  gboolean about_us = FALSE;

  x = rtpcc_xr_report_parse (data, len, NULL);
  if (!x) {
    /* the RLE-only parser took it (it is laxer about length and
     * padding): its other blocks are dropped */
    st->dropped++;
    return FALSE;
  }
  st->dropped += x->n_discarded;
  for (guint i = 0; i < x->n_blocks; i++) {
    const RtpccXrBlock *b = &x->blocks[i];
    guint32 ssrc;

    switch (b->bt) {
      case RTPCC_XR_BT_LOSS_RLE:
      case RTPCC_XR_BT_POST_REPAIR_RLE:
        ssrc = b->rle.ssrc;
        break;
      case RTPCC_XR_BT_DELAY:
        ssrc = b->delay.ssrc;
        break;
      case RTPCC_XR_BT_DEJITTER:
        ssrc = b->dejitter.ssrc;
        break;
      case RTPCC_XR_BT_DISCARD_COUNT:
        ssrc = b->discard_count.ssrc;
        break;
      case RTPCC_XR_BT_BYTES_DISCARDED:
        ssrc = b->bytes_discarded.ssrc;
        break;
      default:                 /* Discard RLE: on_xr's */
        continue;
    }
    if (!rtpcc_sent_history_get_stream (a->history, ssrc))
      continue;
    about_us = TRUE;
    st->blocks++;
    switch (b->bt) {
      case RTPCC_XR_BT_LOSS_RLE:
        count_rle (&b->rle, &st->loss_lost, &st->loss_received);
        break;
      case RTPCC_XR_BT_POST_REPAIR_RLE:
        count_rle (&b->rle, &st->post_repair_lost,
            &st->post_repair_received);
        break;
      case RTPCC_XR_BT_DELAY:
        st->rtt_mean = rtpcc_xr_delay_to_time (b->delay.mean_rtt);
        st->rtt_min = rtpcc_xr_delay_to_time (b->delay.min_rtt);
        st->rtt_max = rtpcc_xr_delay_to_time (b->delay.max_rtt);
        if (a->sink.xr_delay)
          a->sink.xr_delay (a->user_data, now, st->rtt_mean,
              st->rtt_min, st->rtt_max);
        break;
      case RTPCC_XR_BT_DEJITTER:
        st->djb_nominal = rtpcc_xr_djb_to_time (b->dejitter.nominal);
        st->djb_maximum = rtpcc_xr_djb_to_time (b->dejitter.maximum);
        st->djb_high = rtpcc_xr_djb_to_time (b->dejitter.high_water);
        st->djb_low = rtpcc_xr_djb_to_time (b->dejitter.low_water);
        break;
      case RTPCC_XR_BT_DISCARD_COUNT:
        /* over range / unavailable: no count to take */
        if (b->discard_count.packets >= RTPCC_XR_COUNT_OVER_RANGE)
          break;
        if (b->discard_count.interval == RTPCC_XR_I_CUMULATIVE)
          st->discarded_packets = b->discard_count.packets;
        else
          st->discarded_packets += b->discard_count.packets;
        break;
      default:                 /* RTPCC_XR_BT_BYTES_DISCARDED */
        if (b->bytes_discarded.interval == RTPCC_XR_I_CUMULATIVE)
          st->discarded_bytes = b->bytes_discarded.bytes;
        else
          st->discarded_bytes += b->bytes_discarded.bytes;
        break;
    }
  }
  return about_us;
}

/* RR mode: Loss RLE blocks about our media (RFC 3611 §4.1: bit 1
 * received, at a time not given) are this mode's per-packet feedback,
 * checked whole first as a CCFB is. */
static Verdict
loss_rle_feedback (RtpccFeedbackAdapter * a, RtpccTime now, const RtpccXr * xr)
{
  gboolean any = FALSE;
  Verdict v;

  for (guint b = 0; b < xr->n_blocks; b++) {
    const RtpccXrRleBlock *blk = &xr->blocks[b];
    RtpccSentStream *st;
    if (blk->bt != RTPCC_XR_BT_LOSS_RLE
        || !(st = rtpcc_sent_history_get_stream (a->history, blk->ssrc)))
      continue;
    any = TRUE;
    for (guint i = 0; i < blk->n_bits; i++) {
      guint16 seq = rtpcc_xr_rle_seq (blk, i);
      RtpccSentEntry *e = rtpcc_sent_history_find (a->history, blk->ssrc,
          seq);
      if (!e) {
        /* received, yet never sent: beyond the newest seq sent */
        guint16 ahead = (guint16) (seq - st->highest_wire_seq);
        if (blk->bits[i] && (!st->sent_any || (ahead > 0 && ahead < 0x8000))) {
          g_array_set_size (a->disputed, 0);
          return IMPLAUSIBLE;
        }
        continue;
      }
      rtpcc_feedback_adapter_check_entry (a, e, blk->bits[i], RTPCC_TIME_NONE, 0);
    }
  }
  if (!any)
    return IGNORED;
  if ((v = rtpcc_feedback_adapter_disputes (a, now)) != ABOUT_US)
    return v;
  g_array_set_size (a->reports, 0);
  for (guint b = 0; b < xr->n_blocks; b++) {
    const RtpccXrRleBlock *blk = &xr->blocks[b];
    if (blk->bt != RTPCC_XR_BT_LOSS_RLE
        || !rtpcc_sent_history_get_stream (a->history, blk->ssrc))
      continue;
    for (guint i = 0; i < blk->n_bits; i++) {
      RtpccSentEntry *e = rtpcc_sent_history_find (a->history, blk->ssrc,
          rtpcc_xr_rle_seq (blk, i));
      if (!e)
        continue;
      if (blk->bits[i])
        (void) rtpcc_feedback_adapter_mark_received (a, e, RTPCC_TIME_NONE);
      else
        rtpcc_sent_history_mark_missing (a->history, e);
    }
  }
  a->stats.has_feedback = TRUE;
  /* no arrival times, no RTT sample (the RR has one); the receive rate
   * runs over our arrival times of the reports */
  a->rtt_sample = RTPCC_TIME_NONE;
  a->report_time = now;
  a->arrival_resolution = 0;
  a->xr_feedback = TRUE;
  return ABOUT_US;
}

Verdict
rtpcc_feedback_adapter_on_xr (RtpccFeedbackAdapter * a, RtpccTime now,
    const guint8 * data, gsize len)
{
  GError *err = NULL;
  RtpccXr *xr = rtpcc_xr_parse (data, len, &err);
  gboolean about_us = FALSE;

  if (!xr) {
    g_clear_error (&err);
    return MALFORMED;
  }
  if (a->mode == RTPCC_FEEDBACK_RR) {
    /* an implausible or contradictory report is dropped whole, before
     * anything in it is used */
    Verdict v = loss_rle_feedback (a, now, xr);
    if (v != IGNORED && v != ABOUT_US) {
      rtpcc_xr_free (xr);
      return v;
    }
    about_us = v == ABOUT_US;
  }
  {
    /* a packet of Discard RLE blocks alone (as always sent) is read once */
    gboolean others = xr->n_skipped > 0;
    for (guint b = 0; b < xr->n_blocks; b++)
      others |= xr->blocks[b].bt != RTPCC_XR_BT_DISCARD_RLE;
    if (others)
      about_us |= xr_metrics (a, now, data, len);
  }
  for (guint b = 0; b < xr->n_blocks; b++) {
    const RtpccXrRleBlock *blk = &xr->blocks[b];
    /* Loss RLE: the stats (xr_metrics), and RR mode's per-packet
     * feedback (above); with CCFB / TWCC those say more */
    if (blk->bt != RTPCC_XR_BT_DISCARD_RLE || blk->early
        || !rtpcc_sent_history_get_stream (a->history, blk->ssrc))
      continue;
    about_us = TRUE;
    for (guint i = 0; i < blk->n_bits; i++) {
      RtpccSentEntry *e;
      RtpccPacketReport r;
      if (!blk->bits[i])
        continue;
      /* thinned (T > 0): bit i is the i-th multiple of 2^T from
       * begin_seq on, not begin_seq + i·2^T (RFC 3611 §4.1) */
      e = rtpcc_sent_history_find (a->history, blk->ssrc,
          rtpcc_xr_rle_seq (blk, i));
      if (!e)
        continue;
      /* it arrived, whatever feedback has said about it yet */
      r = rtpcc_feedback_adapter_report_of (e);
      r.received = TRUE;
      r.arrival = e->arrival;
      g_array_append_val (a->discards, r);
      a->stats.reported_discarded++;
    }
  }
  rtpcc_xr_free (xr);
  return about_us ? ABOUT_US : IGNORED;
}

void
rtpcc_feedback_adapter_hand_discards (RtpccFeedbackAdapter * a, RtpccTime now)
{
  if (a->discards->len == 0)
    return;
  a->sink.discards (a->user_data, now,
      (const RtpccPacketReport *) a->discards->data, a->discards->len);
  g_array_set_size (a->discards, 0);
}

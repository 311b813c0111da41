/* The receiver's report blocks beside the RR: RTCP XR (RFC 3611 Loss and
 * Post-repair RLE, RFC 7097 Discard RLE, RFC 6843 delay, RFC 7002/7243
 * discards, RFC 7005 de-jitter), chosen per call by config.xr_blocks, and
 * MPRTCP subflow reports for one path of a multipath stream.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "receiver-private.h"
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/mprtp/ext.h>
#include "feedback/bytes.h"

#include <string.h>

gboolean
rtpcc_receiver_mark_discarded (RtpccReceiver * r, RtpccTime now,
    guint32 ssrc, guint16 seq, guint count)
{
  Source *s = rtpcc_receiver_get_source (r, ssrc, FALSE, now);

  if (!r->marking_own)
    r->app_discards = TRUE;
  if (!s || count == 0) {
    r->stats.discards_rejected += MAX (count, 1);
    return FALSE;
  }
  if (!s->discards)
    s->discards = g_array_new (FALSE, FALSE, sizeof (guint16));
  for (guint i = 0; i < count; i++) {
    guint16 q = (guint16) (seq + i);
    if (s->discards->len >= RTPCC_RECEIVER_MAX_DISCARDS
        && (r->config.xr_blocks & RTPCC_RECEIVER_XR_DISCARD_RLE)) {
      r->stats.discards_rejected += count - i;
      return i > 0;
    }
    s->discards_total++;
    /* only Discard RLE reports them one by one */
    if (r->config.xr_blocks & RTPCC_RECEIVER_XR_DISCARD_RLE)
      g_array_append_val (s->discards, q);
    r->stats.discards_marked++;
    s->discarded++;
    if (s->sizes && (s->sizes[q % SIZE_RING] >> 16) == q)
      s->discarded_bytes += (s->sizes[q % SIZE_RING] & 0xffff) -
          MIN (s->sizes[q % SIZE_RING] & 0xffff, RTP_FIXED_HEADER);
  }
  if (r->config.early_discard_feedback && r->next_rr != RTPCC_TIME_NONE
      && r->next_rr > now && (r->last_early == RTPCC_TIME_NONE
          || now - r->last_early >= 2 * r->rr_interval)) {
    /* an early report: at most one per two regular intervals */
    r->next_rr = now;
    r->last_early = now;
    r->stats.early_feedback++;
  }
  return TRUE;
}

/* XR bytes a regular report may spend on discards, so the per-packet
 * feedback behind it in the compound keeps its room */
#define XR_BUDGET 256

static gint
cmp_int (gconstpointer a, gconstpointer b)
{
  gint x = *(const gint *) a, y = *(const gint *) b;
  return x < y ? -1 : x > y;
}

/* The Discard RLE block over the first @k of the sorted offsets @d (from
 * @ref); bits freshly allocated. */
static void
discard_block (RtpccXrRleBlock * b, guint32 ssrc, guint16 ref,
    const gint * d, guint k)
{
  memset (b, 0, sizeof (*b));
  b->bt = RTPCC_XR_BT_DISCARD_RLE;
  b->ssrc = ssrc;
  b->begin_seq = (guint16) (ref + d[0]);
  b->n_bits = (guint) (d[k - 1] - d[0] + 1);
  b->end_seq = (guint16) (b->begin_seq + b->n_bits);
  b->bits = g_malloc0 (b->n_bits);
  for (guint i = 0; i < k; i++)
    b->bits[d[i] - d[0]] = 1;
}

/* One Discard RLE block per source with pending discards, all in one XR
 * packet of at most XR_BUDGET bytes. A source whose discards do not all
 * fit reports the oldest (in sequence order) and keeps the rest for the
 * next report. 0 if none. */
gsize
rtpcc_receiver_write_discards (RtpccReceiver * r, guint8 * buf, gsize max)
{
  GHashTableIter hit;
  gpointer value;
  GArray *blocks = g_array_new (FALSE, TRUE, sizeof (RtpccXrRleBlock));
  GPtrArray *srcs = g_ptr_array_new ();
  GArray *reported = g_array_new (FALSE, FALSE, sizeof (guint));
  gsize n = 0, budget, per;

  budget = MIN (max, XR_BUDGET);
  if (budget < 8 + 16)
    goto out;
  g_hash_table_iter_init (&hit, r->sources);
  while (g_hash_table_iter_next (&hit, NULL, &value))
    if (((Source *) value)->discards && ((Source *) value)->discards->len)
      g_ptr_array_add (srcs, value);
  if (srcs->len == 0)
    goto out;
  per = MAX ((budget - 8) / srcs->len, 16);
  for (guint si = 0; si < srcs->len && (blocks->len + 1) * 16 + 8 <= budget;
      si++) {
    Source *s = g_ptr_array_index (srcs, si);
    guint16 ref = g_array_index (s->discards, guint16, 0);
    GArray *d = g_array_sized_new (FALSE, FALSE, sizeof (gint),
        s->discards->len);
    guint u = 0, lo, hi, k;
    RtpccXrRleBlock b;

    /* offsets from the first pending seq in serial-number order, unique */
    for (guint i = 0; i < s->discards->len; i++) {
      gint o = (gint16) (g_array_index (s->discards, guint16, i) - ref);
      g_array_append_val (d, o);
    }
    g_array_sort (d, cmp_int);
    for (guint i = 0; i < d->len; i++)
      if (u == 0 || g_array_index (d, gint, i) != g_array_index (d, gint,
              u - 1))
        g_array_index (d, gint, u++) = g_array_index (d, gint, i);
    /* the longest prefix whose block fits this source's share */
    lo = 1;
    hi = u;
    while (lo < hi) {
      guint mid = (lo + hi + 1) / 2;
      gsize sz;
      discard_block (&b, s->stats.ssrc, ref, (const gint *) d->data, mid);
      sz = rtpcc_xr_rle_block_size (&b);
      g_free (b.bits);
      if (sz <= per)
        lo = mid;
      else
        hi = mid - 1;
    }
    k = lo;
    discard_block (&b, s->stats.ssrc, ref, (const gint *) d->data, k);
    g_array_append_val (blocks, b);
    /* keep what was not reported */
    {
      gint last = g_array_index (d, gint, k - 1);
      guint kept = 0, gone = 0;
      for (guint i = 0; i < s->discards->len; i++) {
        guint16 q = g_array_index (s->discards, guint16, i);
        if ((gint16) (q - ref) > last)
          g_array_index (s->discards, guint16, kept++) = q;
        else
          gone++;
      }
      g_array_set_size (s->discards, kept);
      g_array_append_val (reported, gone);
    }
    g_array_unref (d);
  }
  n = rtpcc_xr_write (buf, budget, r->ssrc,
      (const RtpccXrRleBlock *) blocks->data, blocks->len);
  /* cannot fail with the sizes checked; counted only when sent */
  if (n > 0)
    for (guint i = 0; i < reported->len; i++)
      r->stats.discards_reported += g_array_index (reported, guint, i);
out:
  for (guint i = 0; i < blocks->len; i++)
    g_free (g_array_index (blocks, RtpccXrRleBlock, i).bits);
  g_array_unref (blocks);
  g_ptr_array_unref (srcs);
  g_array_unref (reported);
  return n;
}

/* One path of a multipath stream: the RR's blocks again as MPRTCP subflow
 * reports (draft-ietf-avtcore-mprtp §9.2; the sequence space counted is
 * this path's FSSN, see rtpcc_receiver_set_mprtp_subflow), each with the
 * source's cumulative discards, one MPRTCP packet per source numbered by
 * FSSN (not the RTX or FEC streams that share the path). The
 * same blocks: a report block is made once per interval (its fraction
 * lost is since the previous one). */
gsize
rtpcc_receiver_write_subflow_reports (RtpccReceiver * r, const RtpccRtcpRR * rr,
    guint8 * buf, gsize max)
{
  gsize n = 0;

  if (r->mprtp_subflow < 0)
    return 0;
  for (guint i = 0; i < rr->n_blocks; i++) {
    Source *s = g_hash_table_lookup (r->sources,
        GUINT_TO_POINTER (rr->blocks[i].ssrc));
    RtpccMprtpSubflowReport rep;
    gsize m;

    /* only the source numbered by FSSN: a report about another (the RTX
     * stream, FEC) would speak of a sequence space that is not the path's,
     * and the sender refuses it */
    if (!s || !s->media || !s->subflow)
      continue;
    memset (&rep, 0, sizeof rep);
    rep.subflow_id = (guint16) r->mprtp_subflow;
    rep.rr = rr->blocks[i];
    rep.has_discards = TRUE;
    rep.discards = s->discards_total;
    m = rtpcc_mprtcp_write (buf + n, max - n, r->ssrc, rr->blocks[i].ssrc,
        &rep, 1);
    if (m == 0)
      break;
    n += m;
    r->stats.mprtcp_sent++;
  }
  return n;
}

gboolean
rtpcc_receiver_mark_repaired (RtpccReceiver * r, RtpccTime now,
    guint32 ssrc, guint16 seq)
{
  Source *s = rtpcc_receiver_get_source (r, ssrc, FALSE, now);
  guint64 highest, ext;
  guint16 behind;

  /* a repair names a packet near the newest one: one far away is bogus,
   * and one a Post-repair RLE already covered can no longer count (its
   * bit would linger until the sequence space wraps onto a later loss) */
  if (!s || !rtpcc_arrival_log_get_highest (r->log, ssrc, &highest, NULL))
    goto reject;
  behind = (guint16) ((guint16) highest - seq);
  if (behind != 0 && behind >= 65536 - RTPCC_RECEIVER_REPAIR_AHEAD)
    ext = highest + (guint16) (seq - (guint16) highest);
  else if (behind <= RTPCC_RECEIVER_REPAIR_BEHIND && behind <= highest)
    ext = highest - behind;
  else
    goto reject;
  if (s->xr_started && ext < s->xr_next)
    goto reject;
  if (!s->repaired)
    s->repaired = g_malloc0 (65536 / 8);
  s->repaired[seq >> 3] |= (guint8) (1u << (seq & 7));
  r->stats.repairs_marked++;
  return TRUE;

reject:
  r->stats.repairs_rejected++;
  return FALSE;
}

void
rtpcc_receiver_add_rtt (RtpccReceiver * r, RtpccTime rtt)
{
  if (rtt == RTPCC_TIME_NONE || rtt <= 0)
    return;
  if (r->rtt_n == 0 || rtt < r->rtt_min)
    r->rtt_min = rtt;
  if (r->rtt_n == 0 || rtt > r->rtt_max)
    r->rtt_max = rtt;
  r->rtt_sum += (gdouble) rtt;
  r->rtt_n++;
}

gboolean
rtpcc_receiver_set_dejitter (RtpccReceiver * r, guint32 ssrc,
    gboolean adaptive, RtpccTime nominal, RtpccTime maximum,
    RtpccTime high_water, RtpccTime low_water)
{
  Source *s = g_hash_table_lookup (r->sources, GUINT_TO_POINTER (ssrc));

  if (!s || nominal == RTPCC_TIME_NONE || nominal < 0
      || (maximum != RTPCC_TIME_NONE && maximum < 0)
      || (high_water != RTPCC_TIME_NONE && high_water < 0)
      || (low_water != RTPCC_TIME_NONE && low_water < 0)
      || (high_water != RTPCC_TIME_NONE && low_water != RTPCC_TIME_NONE
          && low_water > high_water)) {
    r->stats.dejitter_rejected++;
    return FALSE;
  }
  s->djb_adaptive = adaptive;
  s->djb_nominal = nominal;
  s->djb_maximum = maximum;
  /* the marks since the last block take every update's marks and its
   * nominal delay */
  if (high_water == RTPCC_TIME_NONE || high_water < nominal)
    high_water = nominal;
  if (low_water == RTPCC_TIME_NONE || low_water > nominal)
    low_water = nominal;
  if (!s->have_djb || high_water > s->djb_high)
    s->djb_high = high_water;
  if (!s->have_djb || low_water < s->djb_low)
    s->djb_low = low_water;
  s->have_djb = TRUE;
  return TRUE;
}

void
rtpcc_receiver_clear_dejitter (RtpccReceiver * r, guint32 ssrc)
{
  Source *s = g_hash_table_lookup (r->sources, GUINT_TO_POINTER (ssrc));

  if (s)
    s->have_djb = FALSE;
}

/* XR bytes a regular report may spend on the blocks other than Discard
 * RLE: two RLE blocks of XR_RLE_MAX packets at worst (all bit vectors,
 * 15 packets per 2 bytes) and the fixed-size blocks fit */
#define XR_METRICS_BUDGET 256
#define XR_RLE_MAX MIN (RTPCC_RECEIVER_XR_RLE_MAX, 512)

/* sources that waited longest for their XR blocks first */
static gint
cmp_xr_turn (gconstpointer a, gconstpointer b)
{
  const Source *x = *(Source * const *) a, *y = *(Source * const *) b;
  return x->xr_turn < y->xr_turn ? -1 : x->xr_turn > y->xr_turn;
}

/* A Loss (@post_repair FALSE) or Post-repair Loss RLE block over
 * [@begin, @begin + @n) of @s: bits freshly allocated. */
static void
loss_block (RtpccReceiver * r, Source * s, guint64 begin, guint n,
    gboolean post_repair, RtpccXrBlock * out)
{
  RtpccXrRleBlock *b = &out->rle;

  memset (out, 0, sizeof (*out));
  out->bt = b->bt = post_repair ? RTPCC_XR_BT_POST_REPAIR_RLE :
      RTPCC_XR_BT_LOSS_RLE;
  b->ssrc = s->stats.ssrc;
  b->begin_seq = (guint16) begin;
  b->end_seq = (guint16) (begin + n);
  b->n_bits = n;
  b->bits = g_malloc0 (MAX (n, 1));
  for (guint i = 0; i < n; i++) {
    guint16 q = (guint16) (begin + i);
    b->bits[i] = rtpcc_arrival_log_lookup (r->log, s->stats.ssrc, begin + i,
        NULL, NULL) || (post_repair && s->repaired
        && (s->repaired[q >> 3] >> (q & 7)) & 1);
  }
}

/* The blocks xr_blocks asks for besides Discard RLE, for every media
 * source, as one XR packet of at most XR_METRICS_BUDGET bytes; a source
 * whose blocks do not fit waits for the next report, where it comes
 * first (those that waited longest go first). 0 if none. */
gsize
rtpcc_receiver_write_xr_metrics (RtpccReceiver * r, guint8 * buf, gsize max)
{
  guint flags = r->config.xr_blocks;
  GArray *blocks;
  GHashTableIter hit;
  gpointer value;
  gsize n = 0, used = 8, budget = MIN (max, XR_METRICS_BUDGET);
  GPtrArray *advanced = g_ptr_array_new ();
  GArray *ends = g_array_new (FALSE, FALSE, sizeof (guint64));
  GPtrArray *order, *included = g_ptr_array_new ();
  guint64 skipped = 0;

  if (!(flags & ~RTPCC_RECEIVER_XR_DISCARD_RLE) || budget < 8 + 12) {
    g_ptr_array_unref (included);
    g_ptr_array_unref (advanced);
    g_array_unref (ends);
    return 0;
  }
  blocks = g_array_new (FALSE, TRUE, sizeof (RtpccXrBlock));
  order = g_ptr_array_new ();
  g_hash_table_iter_init (&hit, r->sources);
  while (g_hash_table_iter_next (&hit, NULL, &value))
    g_ptr_array_add (order, value);
  g_ptr_array_sort (order, cmp_xr_turn);
  for (guint si = 0; si < order->len; si++) {
    Source *s = g_ptr_array_index (order, si);
    guint first = blocks->len;
    gsize need = 0;
    guint64 highest, begin = 0, end = 0;
    RtpccXrBlock b;

    if (!s->media)
      continue;
    if ((flags & (RTPCC_RECEIVER_XR_LOSS_RLE |
                RTPCC_RECEIVER_XR_POST_REPAIR_RLE)) && s->xr_started
        && rtpcc_arrival_log_get_highest (r->log, s->stats.ssrc, &highest,
            NULL) && highest + 1 > s->xr_next) {
      begin = s->xr_next;
      end = highest + 1;
      if (end - begin > XR_RLE_MAX) {
        /* fell behind: the newest packets matter, the older go unreported */
        skipped += end - XR_RLE_MAX - begin;
        begin = end - XR_RLE_MAX;
      }
      if (flags & RTPCC_RECEIVER_XR_LOSS_RLE) {
        loss_block (r, s, begin, (guint) (end - begin), FALSE, &b);
        g_array_append_val (blocks, b);
      }
      if (flags & RTPCC_RECEIVER_XR_POST_REPAIR_RLE) {
        loss_block (r, s, begin, (guint) (end - begin), TRUE, &b);
        g_array_append_val (blocks, b);
      }
    }
    if (flags & RTPCC_RECEIVER_XR_DELAY) {
      memset (&b, 0, sizeof (b));
      b.bt = RTPCC_XR_BT_DELAY;
      b.delay.interval = RTPCC_XR_I_INTERVAL;
      b.delay.ssrc = s->stats.ssrc;
      b.delay.min_rtt = rtpcc_xr_delay_from_time (r->rtt_n ? r->rtt_min :
          RTPCC_TIME_NONE);
      b.delay.max_rtt = rtpcc_xr_delay_from_time (r->rtt_n ? r->rtt_max :
          RTPCC_TIME_NONE);
      b.delay.mean_rtt = rtpcc_xr_delay_from_time (r->rtt_n ?
          (RtpccTime) (r->rtt_sum / r->rtt_n) : RTPCC_TIME_NONE);
      b.delay.end_system_delay = RTPCC_XR_ES_DELAY_UNAVAILABLE;
      g_array_append_val (blocks, b);
    }
    if (flags & RTPCC_RECEIVER_XR_DISCARD_COUNT) {
      memset (&b, 0, sizeof (b));
      b.bt = RTPCC_XR_BT_DISCARD_COUNT;
      b.discard_count.interval = RTPCC_XR_I_CUMULATIVE;
      b.discard_count.discard_type = RTPCC_XR_DT_LATE;
      b.discard_count.ssrc = s->stats.ssrc;
      b.discard_count.packets = (guint32) MIN (s->discarded,
          RTPCC_XR_COUNT_OVER_RANGE);
      g_array_append_val (blocks, b);
    }
    if (flags & RTPCC_RECEIVER_XR_BYTES_DISCARDED) {
      memset (&b, 0, sizeof (b));
      b.bt = RTPCC_XR_BT_BYTES_DISCARDED;
      b.bytes_discarded.interval = RTPCC_XR_I_CUMULATIVE;
      b.bytes_discarded.ssrc = s->stats.ssrc;
      /* RFC 7243 has no "over range": the count wraps like RTP's */
      b.bytes_discarded.bytes = (guint32) s->discarded_bytes;
      g_array_append_val (blocks, b);
    }
    if ((flags & RTPCC_RECEIVER_XR_DEJITTER) && s->have_djb) {
      memset (&b, 0, sizeof (b));
      b.bt = RTPCC_XR_BT_DEJITTER;
      /* RFC 7005 §4.2: the block can only be sampled; its marks
       * still cover the interval since the previous block */
      b.dejitter.interval = RTPCC_XR_I_SAMPLED;
      b.dejitter.adaptive = s->djb_adaptive;
      b.dejitter.ssrc = s->stats.ssrc;
      b.dejitter.nominal = rtpcc_xr_djb_from_time (s->djb_nominal);
      b.dejitter.maximum = rtpcc_xr_djb_from_time (s->djb_maximum);
      b.dejitter.high_water = rtpcc_xr_djb_from_time (s->djb_high);
      b.dejitter.low_water = rtpcc_xr_djb_from_time (s->djb_low);
      g_array_append_val (blocks, b);
    }
    for (guint i = first; i < blocks->len; i++)
      need += rtpcc_xr_block_size (&g_array_index (blocks, RtpccXrBlock, i));
    if (used + need > budget) {
      /* next time (the cursor stays) */
      for (guint i = first; i < blocks->len; i++) {
        RtpccXrBlock *x = &g_array_index (blocks, RtpccXrBlock, i);
        if (x->bt == RTPCC_XR_BT_LOSS_RLE
            || x->bt == RTPCC_XR_BT_POST_REPAIR_RLE)
          g_free (x->rle.bits);
      }
      g_array_set_size (blocks, first);
      continue;
    }
    used += need;
    if (need > 0)
      g_ptr_array_add (included, s);
    if (end > begin) {
      g_ptr_array_add (advanced, s);
      g_array_append_val (ends, end);
    }
  }
  if (blocks->len > 0)
    n = rtpcc_xr_report_write (buf, budget, r->ssrc,
        (const RtpccXrBlock *) blocks->data, blocks->len);
  if (n > 0) {
    r->xr_packets++;
    for (guint i = 0; i < included->len; i++) {
      Source *s = g_ptr_array_index (included, i);
      s->xr_turn = r->xr_packets;
      /* the next interval's marks start where the buffer is now */
      s->djb_high = s->djb_low = s->djb_nominal;
    }
    r->stats.xr_blocks_sent += blocks->len;
    r->stats.xr_rle_skipped += skipped;
    for (guint i = 0; i < advanced->len; i++) {
      Source *s = g_ptr_array_index (advanced, i);
      guint64 end = g_array_index (ends, guint64, i);
      /* the repairs reported are done with */
      if (s->repaired && end - s->xr_next >= 65536)
        memset (s->repaired, 0, 65536 / 8);
      else if (s->repaired)
        for (guint64 q = s->xr_next; q < end; q++)
          s->repaired[(guint16) q >> 3] &= (guint8) ~(1u << (q & 7));
      s->xr_next = end;
    }
    r->rtt_n = 0;
    r->rtt_sum = 0;
  }
  for (guint i = 0; i < blocks->len; i++) {
    RtpccXrBlock *x = &g_array_index (blocks, RtpccXrBlock, i);
    if (x->bt == RTPCC_XR_BT_LOSS_RLE || x->bt == RTPCC_XR_BT_POST_REPAIR_RLE)
      g_free (x->rle.bits);
  }
  g_array_unref (blocks);
  g_ptr_array_unref (order);
  g_ptr_array_unref (included);
  g_ptr_array_unref (advanced);
  g_array_unref (ends);
  return n;
}

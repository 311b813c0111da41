/* RtpccSentHistory: sent packets and their fate.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/senthistory.h>

#include <string.h>

typedef struct
{
  RtpccSentStream pub;
  guint64 *seqmap;              /* wire seq & mask → sender seq (0 = none) */
  guint64 *origmap;             /* the same by original seq (by_original) */
} Stream;

struct _RtpccSentHistory
{
  gboolean by_original;
  RtpccSentEntry *ring;
  guint cap;                    /* ring entries, a power of two */
  guint map_size;               /* per-stream map entries, a power of two */
  guint64 next_seq;             /* starts at 1 */
  guint64 oldest_unresolved;    /* lowest seq not yet received or lost */
  guint64 highest_received;
  GHashTable *streams;          /* ssrc → Stream* */
  Stream *last;                 /* the stream looked up last: a call has one
                                 * or two, so most lookups end here (streams
                                 * are never removed) */
};

static Stream *
lookup (RtpccSentHistory * h, guint32 ssrc)
{
  Stream *st = h->last;

  if (st && st->pub.ssrc == ssrc)
    return st;
  st = g_hash_table_lookup (h->streams, GUINT_TO_POINTER (ssrc));
  if (st)
    h->last = st;
  return st;
}

static void
stream_free (gpointer data)
{
  Stream *st = data;

  g_free (st->seqmap);
  g_free (st->origmap);
  g_free (st);
}

RtpccSentHistory *
rtpcc_sent_history_new (gboolean by_original)
{
  RtpccSentHistory *h = g_new0 (RtpccSentHistory, 1);

  h->by_original = by_original;
  h->cap = RTPCC_SENT_HISTORY_MIN;
  h->map_size = MIN (h->cap, RTPCC_SENT_HISTORY_SEQS);
  h->ring = g_new0 (RtpccSentEntry, h->cap);
  h->next_seq = 1;
  h->oldest_unresolved = 1;
  h->streams = g_hash_table_new_full (NULL, NULL, NULL, stream_free);
  return h;
}

void
rtpcc_sent_history_free (RtpccSentHistory * h)
{
  if (!h)
    return;
  g_hash_table_unref (h->streams);
  g_free (h->ring);
  g_free (h);
}

RtpccSentStream *
rtpcc_sent_history_add_stream (RtpccSentHistory * h, guint32 ssrc)
{
  Stream *st = lookup (h, ssrc);

  if (!st) {
    st = g_new0 (Stream, 1);
    st->pub.ssrc = ssrc;
    st->seqmap = g_new0 (guint64, h->map_size);
    /* packets sent before the prober first renumbers the SSRC must be
     * found by their original seq too */
    if (h->by_original)
      st->origmap = g_new0 (guint64, h->map_size);
    g_hash_table_insert (h->streams, GUINT_TO_POINTER (ssrc), st);
  }
  return &st->pub;
}

RtpccSentStream *
rtpcc_sent_history_get_stream (RtpccSentHistory * h, guint32 ssrc)
{
  return (RtpccSentStream *) lookup (h, ssrc);
}

guint
rtpcc_sent_history_capacity (const RtpccSentHistory * h)
{
  return h->cap;
}

guint64
rtpcc_sent_history_next_seq (const RtpccSentHistory * h)
{
  return h->next_seq;
}

RtpccSentEntry *
rtpcc_sent_history_get (RtpccSentHistory * h, guint64 seq)
{
  RtpccSentEntry *e;

  if (seq == 0 || seq >= h->next_seq
      || h->next_seq - seq > h->cap)
    return NULL;
  e = &h->ring[seq & (h->cap - 1)];
  return e->seq == seq ? e : NULL;
}

RtpccSentEntry *
rtpcc_sent_history_find (RtpccSentHistory * h, guint32 ssrc,
    guint16 wire_seq)
{
  Stream *st = lookup (h, ssrc);
  RtpccSentEntry *e;

  if (!st)
    return NULL;
  e = rtpcc_sent_history_get (h, st->seqmap[wire_seq & (h->map_size - 1)]);
  return e && e->ssrc == ssrc && e->wire_seq == wire_seq ? e : NULL;
}

RtpccSentEntry *
rtpcc_sent_history_find_original (RtpccSentHistory * h, guint32 ssrc,
    guint16 orig_seq)
{
  Stream *st = lookup (h, ssrc);
  RtpccSentEntry *e;

  if (!st || !st->origmap)
    return NULL;
  e = rtpcc_sent_history_get (h,
      st->origmap[orig_seq & (h->map_size - 1)]);
  return e && e->ssrc == ssrc && e->orig_seq == orig_seq ? e : NULL;
}

gboolean
rtpcc_sent_history_sr (RtpccSentHistory * h, guint32 ssrc, RtpccTime now,
    RtpccTime ntp_offset, RtpccRtcpSR * sr)
{
  RtpccSentStream *st = rtpcc_sent_history_get_stream (h, ssrc);

  if (!st)
    return FALSE;
  memset (sr, 0, sizeof (*sr));
  sr->ssrc = ssrc;
  sr->ntp = rtpcc_ntp_from_time (now, ntp_offset);
  sr->rtp_ts = st->last_rtp_ts + (guint32) (RTPCC_TIME_AS_SEC (now -
          st->last_rtp_time) * (st->clock_rate ? st->clock_rate : 90000));
  sr->packet_count = st->packet_count;
  sr->octet_count = st->octet_count;
  return TRUE;
}

static void
map_entry (RtpccSentHistory * h, Stream * st, const RtpccSentEntry * e)
{
  st->seqmap[e->wire_seq & (h->map_size - 1)] = e->seq;
  if (st->origmap && !e->padding)
    st->origmap[e->orig_seq & (h->map_size - 1)] = e->seq;
}

/* Twice the entries: the ring holds the last cap seqs, which land in
 * distinct slots of the larger ring too; the per-stream maps grow with
 * it, rebuilt in send order (a later packet wins a slot, as when
 * recorded). */
static void
grow (RtpccSentHistory * h)
{
  guint cap = h->cap * 2;
  RtpccSentEntry *ring = g_new0 (RtpccSentEntry, cap);
  GHashTableIter it;
  gpointer value;

  for (guint i = 0; i < h->cap; i++)
    if (h->ring[i].seq != 0)
      ring[h->ring[i].seq & (cap - 1)] = h->ring[i];
  g_free (h->ring);
  h->ring = ring;
  h->cap = cap;
  if (MIN (cap, RTPCC_SENT_HISTORY_SEQS) == h->map_size)
    return;
  h->map_size = MIN (cap, RTPCC_SENT_HISTORY_SEQS);
  g_hash_table_iter_init (&it, h->streams);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    Stream *st = value;

    g_free (st->seqmap);
    st->seqmap = g_new0 (guint64, h->map_size);
    if (st->origmap) {
      g_free (st->origmap);
      st->origmap = g_new0 (guint64, h->map_size);
    }
  }
  for (guint64 seq = h->next_seq > cap ? h->next_seq - cap : 1;
      seq < h->next_seq; seq++) {
    RtpccSentEntry *e = rtpcc_sent_history_get (h, seq);

    if (e)
      map_entry (h, g_hash_table_lookup (h->streams,
              GUINT_TO_POINTER (e->ssrc)), e);
  }
}

RtpccSentEntry *
rtpcc_sent_history_record (RtpccSentHistory * h, RtpccTime now,
    const RtpccRtpInfo * info, guint16 orig_seq, guint payload,
    gboolean padding)
{
  Stream *st = (Stream *) rtpcc_sent_history_add_stream (h, info->ssrc);
  guint64 seq = h->next_seq;
  RtpccSentEntry *e = &h->ring[seq & (h->cap - 1)];

  /* an entry sent less than KEEP ago is not overwritten while the ring
   * may grow */
  while (e->seq != 0 && h->cap < RTPCC_SENT_HISTORY_SIZE
      && now - e->send_time < RTPCC_SENT_HISTORY_KEEP) {
    grow (h);
    e = &h->ring[seq & (h->cap - 1)];
  }
  h->next_seq++;
  /* an entry about to be overwritten unresolved is given up as lost to
   * feedback: it no longer matters to anyone */
  if (h->oldest_unresolved + h->cap <= seq)
    h->oldest_unresolved = seq - h->cap + 1;

  memset (e, 0, sizeof (*e));
  e->seq = seq;
  e->ssrc = info->ssrc;
  e->wire_seq = info->seq;
  e->orig_seq = orig_seq;
  e->pt = info->pt;
  e->payload = payload;
  e->state = RTPCC_SENT_PENDING;
  e->is_fec = info->is_fec;
  e->padding = padding;
  e->size = info->size;
  e->send_time = now;
  map_entry (h, st, e);
  if (!st->pub.sent_any || (gint16) (info->seq - st->pub.highest_wire_seq) > 0)
    st->pub.highest_wire_seq = info->seq;
  st->pub.sent_any = TRUE;
  st->pub.packet_count++;
  /* RFC 3550 §6.4.1: the octet count excludes header and padding; a
   * padding packet repeats the last media timestamp, so it must not move
   * the SR's RTP clock anchor either */
  st->pub.octet_count += payload;
  if (!padding) {
    st->pub.last_rtp_ts = info->rtp_ts;
    st->pub.last_rtp_time = now;
  }
  return e;
}

void
rtpcc_sent_history_mark_received (RtpccSentHistory * h, RtpccSentEntry * e,
    RtpccTime arrival)
{
  e->state = RTPCC_SENT_RECEIVED;
  e->arrival = arrival;
  if (e->seq > h->highest_received)
    h->highest_received = e->seq;
}

void
rtpcc_sent_history_mark_missing (RtpccSentHistory * h, RtpccSentEntry * e)
{
  if (e->state == RTPCC_SENT_PENDING)
    e->state = RTPCC_SENT_MISSING;
}

static gboolean
unresolved (const RtpccSentEntry * e)
{
  return e->state == RTPCC_SENT_PENDING || e->state == RTPCC_SENT_MISSING;
}

void
rtpcc_sent_history_declare_losses (RtpccSentHistory * h,
    RtpccSentLossFunc func, gpointer user_data)
{
  guint64 threshold = 0;
  guint found = 0;
  gboolean stalled = FALSE;

  /* the NDUPACK-th highest received packet: every unresolved one below it
   * has NDUPACK received packets after it */
  for (guint64 q = h->highest_received; q > 0 && q >= h->oldest_unresolved;
      q--) {
    RtpccSentEntry *e = rtpcc_sent_history_get (h, q);
    if (e && e->state == RTPCC_SENT_RECEIVED && ++found == RTPCC_NDUPACK) {
      threshold = q;
      break;
    }
  }
  /* a packet never reported waits for a report (or its give-up), and
   * keeps oldest_unresolved where it is; those reported missing after it
   * are declared all the same */
  for (guint64 q = h->oldest_unresolved; q < threshold; q++) {
    RtpccSentEntry *e = rtpcc_sent_history_get (h, q);

    if (e && e->state == RTPCC_SENT_MISSING) {
      e->state = RTPCC_SENT_LOST;
      func (e, user_data);
    } else if (e && e->state == RTPCC_SENT_PENDING) {
      if (++e->passed >= RTPCC_SENT_GIVE_UP_REPORTS) {
        e->state = RTPCC_SENT_UNREPORTED;
        func (e, user_data);
      } else {
        stalled = TRUE;
      }
    }
    if (!stalled)
      h->oldest_unresolved = q + 1;
  }
  /* skip over resolved entries */
  for (;;) {
    RtpccSentEntry *e = rtpcc_sent_history_get (h, h->oldest_unresolved);
    if (!e || unresolved (e))
      break;
    h->oldest_unresolved++;
  }
}

/* Per-packet arrival log and the RFC 8888 feedback built from it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "arrivallog.h"
#include "ccfb.h"
#include "rtcp.h"

#include <string.h>

typedef struct
{
  guint64 ext;                  /* which seq the slot holds; 0 = never used */
  RtpccTime arrival;            /* NONE: not received (yet) */
  guint8 ecn;
} Slot;

typedef struct
{
  guint32 ssrc;
  guint64 first_ext;            /* lowest seq ever logged */
  guint64 highest_ext;          /* highest seq received */
  /* the end (highest seq) of each report that had a block for this SSRC,
   * the last RTPCC_ARRIVAL_LOG_MAX_REDUNDANCY of them, by n_reports */
  guint64 report_end[RTPCC_ARRIVAL_LOG_MAX_REDUNDANCY];
  guint64 n_reports;
  /* the lowest seq that arrived out of order, with fewer than NDUPACK
   * later ones received, since the last report; 0 = none */
  guint64 late_lowest;
  guint64 n_received;
  RtpccTime last_arrival;
  guint32 bad_seq;              /* seq confirming a restart; > 0xFFFF: none */
  guint cap;                    /* slots, up to the log's capacity */
  Slot *slots;
} Stream;

struct _RtpccArrivalLog
{
  guint capacity;
  guint redundancy;
  RtpccTime inactive_timeout;
  GPtrArray *streams;           /* insertion order: reports are deterministic */
};

/* A report block under construction. */
typedef struct
{
  Stream *st;
  guint64 begin;
  guint64 end;                  /* inclusive; begin > end: empty block */
} Range;

static void
stream_free (gpointer data)
{
  Stream *st = data;
  g_free (st->slots);
  g_free (st);
}

RtpccArrivalLog *
rtpcc_arrival_log_new (guint capacity)
{
  RtpccArrivalLog *log = g_new0 (RtpccArrivalLog, 1);

  log->capacity = CLAMP (capacity, RTPCC_ARRIVAL_LOG_MIN_CAPACITY,
      RTPCC_ARRIVAL_LOG_MAX_CAPACITY);
  log->redundancy = RTPCC_ARRIVAL_LOG_DEFAULT_REDUNDANCY;
  log->inactive_timeout = RTPCC_ARRIVAL_LOG_DEFAULT_INACTIVE_TIMEOUT;
  log->streams = g_ptr_array_new_with_free_func (stream_free);
  return log;
}

void
rtpcc_arrival_log_free (RtpccArrivalLog * log)
{
  if (log == NULL)
    return;
  g_ptr_array_unref (log->streams);
  g_free (log);
}

guint
rtpcc_arrival_log_get_capacity (const RtpccArrivalLog * log)
{
  g_return_val_if_fail (log != NULL, 0);
  return log->capacity;
}

void
rtpcc_arrival_log_set_redundancy (RtpccArrivalLog * log, guint reports)
{
  g_return_if_fail (log != NULL);
  log->redundancy = CLAMP (reports, 1, RTPCC_ARRIVAL_LOG_MAX_REDUNDANCY);
}

void
rtpcc_arrival_log_set_inactive_timeout (RtpccArrivalLog * log,
    RtpccTime timeout)
{
  g_return_if_fail (log != NULL);
  log->inactive_timeout = MAX (timeout, 0);
}

static Stream *
find_stream (const RtpccArrivalLog * log, guint32 ssrc, guint * index)
{
  guint i;

  for (i = 0; i < log->streams->len; i++) {
    Stream *st = g_ptr_array_index (log->streams, i);
    if (st->ssrc == ssrc) {
      if (index)
        *index = i;
      return st;
    }
  }
  return NULL;
}

guint
rtpcc_arrival_log_get_stream_capacity (const RtpccArrivalLog * log,
    guint32 ssrc)
{
  Stream *st;

  g_return_val_if_fail (log != NULL, 0);
  st = find_stream (log, ssrc, NULL);
  return st ? st->cap : 0;
}

static inline Slot *
slot_of (const RtpccArrivalLog * log, const Stream * st, guint64 ext)
{
  return &st->slots[ext % st->cap];
}

/* The slot if it currently holds @ext, else NULL. */
static inline Slot *
lookup_slot (const RtpccArrivalLog * log, const Stream * st, guint64 ext)
{
  Slot *s = slot_of (log, st, ext);
  return s->ext == ext ? s : NULL;
}

static guint64
extend (const Stream * st, guint16 seq)
{
  gint16 delta = (gint16) (guint16) (seq - (guint16) st->highest_ext);
  return (guint64) ((gint64) st->highest_ext + delta);
}

/* Packets received after @ext, counted up to RTPCC_NDUPACK. */
static guint
received_after (const RtpccArrivalLog * log, const Stream * st, guint64 ext)
{
  guint found = 0;

  for (guint64 e = st->highest_ext; e > ext && found < RTPCC_NDUPACK; e--) {
    Slot *s = lookup_slot (log, st, e);
    if (s && s->arrival != RTPCC_TIME_NONE)
      found++;
  }
  return found;
}

/* The highest seq the report @redundancy reports ago covered, 0 if there
 * were fewer: what a report may still reach back to starts after it. */
static guint64
reported_enough (const RtpccArrivalLog * log, const Stream * st)
{
  if (st->n_reports < log->redundancy)
    return 0;
  return st->report_end[(st->n_reports - log->redundancy) %
      RTPCC_ARRIVAL_LOG_MAX_REDUNDANCY];
}

/* @slot, about to be overwritten, may still be read: it arrived within
 * KEEP of @now, or a report is still to cover it. */
static gboolean
still_needed (const RtpccArrivalLog * log, const Stream * st,
    const Slot * slot, RtpccTime now)
{
  if (slot->arrival != RTPCC_TIME_NONE
      && rtpcc_time_sub_saturated (now, slot->arrival) < RTPCC_ARRIVAL_LOG_KEEP)
    return TRUE;
  if (slot->ext > reported_enough (log, st))
    return TRUE;
  return st->late_lowest != 0 && slot->ext >= st->late_lowest;
}

/* Twice the slots (at most the log's capacity), the entries of the larger
 * window moved over (distinct seqs less than its size apart: distinct
 * slots). */
static void
grow (const RtpccArrivalLog * log, Stream * st)
{
  guint cap = MIN (st->cap * 2, log->capacity);
  Slot *slots = g_new0 (Slot, cap);

  for (guint i = 0; i < st->cap; i++) {
    const Slot *s = &st->slots[i];

    if (s->ext != 0 && s->ext + cap > st->highest_ext)
      slots[s->ext % cap] = *s;
  }
  g_free (st->slots);
  st->slots = slots;
  st->cap = cap;
}

gboolean
rtpcc_arrival_log_add (RtpccArrivalLog * log, guint32 ssrc, guint16 seq,
    RtpccTime arrival, guint8 ecn)
{
  Stream *st;
  Slot *slot;
  guint64 ext;

  g_return_val_if_fail (log != NULL, FALSE);
  if (arrival == RTPCC_TIME_NONE)
    return FALSE;
  ecn &= 0x3;

  st = find_stream (log, ssrc, NULL);
  if (st == NULL) {
    if (log->streams->len >= RTPCC_ARRIVAL_LOG_MAX_SSRCS) {
      /* bounded memory whatever SSRCs an attacker sprays: evict the one
       * silent for longest */
      guint i, victim = 0;
      for (i = 1; i < log->streams->len; i++) {
        Stream *a = g_ptr_array_index (log->streams, i);
        Stream *v = g_ptr_array_index (log->streams, victim);
        if (a->last_arrival < v->last_arrival)
          victim = i;
      }
      g_ptr_array_remove_index (log->streams, victim);
    }
    st = g_new0 (Stream, 1);
    st->ssrc = ssrc;
    st->cap = MIN (RTPCC_ARRIVAL_LOG_START_CAPACITY, log->capacity);
    st->slots = g_new0 (Slot, st->cap);
    st->first_ext = st->highest_ext = G_GUINT64_CONSTANT (65536) + seq;
    st->last_arrival = arrival;
    st->bad_seq = G_MAXUINT32;
    g_ptr_array_add (log->streams, st);
    ext = st->highest_ext;
  } else {
    ext = extend (st, seq);
    if (ext + RTPCC_CCFB_MAX_REPORTS < st->highest_ext) {
      /* far behind: the sender restarted its sequence (as RFC 3550 A.1,
       * believed when the next packet follows), or a stale straggler */
      if (seq != st->bad_seq) {
        st->bad_seq = (guint16) (seq + 1);
        return FALSE;
      }
      /* a fresh start above every extended seq handed out so far */
      memset (st->slots, 0, st->cap * sizeof (Slot));
      ext = ((st->highest_ext + 2 * G_GUINT64_CONSTANT (65536)) &
          ~G_GUINT64_CONSTANT (0xffff)) | seq;
      st->first_ext = st->highest_ext = ext;
      st->n_reports = 0;
      st->late_lowest = 0;
    }
    st->bad_seq = G_MAXUINT32;
    /* too old for the ring: its slot now belongs to a newer packet */
    if (ext + st->cap <= st->highest_ext)
      return FALSE;
    if (ext > st->highest_ext)
      st->highest_ext = ext;
    if (ext < st->first_ext)
      st->first_ext = ext;
  }

  slot = slot_of (log, st, ext);
  while (slot->ext != 0 && slot->ext != ext && st->cap < log->capacity
      && still_needed (log, st, slot, arrival)) {
    grow (log, st);
    slot = slot_of (log, st, ext);
  }
  if (slot->ext == ext && slot->arrival != RTPCC_TIME_NONE) {
    /* duplicate: first arrival stands, but any CE copy marks it CE */
    if (ecn == RTPCC_ECN_CE)
      slot->ecn = RTPCC_ECN_CE;
    return FALSE;
  }
  if (ext < st->highest_ext && received_after (log, st, ext) < RTPCC_NDUPACK)
    st->late_lowest = st->late_lowest ? MIN (st->late_lowest, ext) : ext;
  slot->ext = ext;
  slot->arrival = arrival;
  slot->ecn = ecn;
  st->n_received++;
  if (arrival > st->last_arrival)
    st->last_arrival = arrival;
  return TRUE;
}

void
rtpcc_arrival_log_remove_ssrc (RtpccArrivalLog * log, guint32 ssrc)
{
  guint i;

  g_return_if_fail (log != NULL);
  if (find_stream (log, ssrc, &i))
    g_ptr_array_remove_index (log->streams, i);
}

gboolean
rtpcc_arrival_log_extend_seq (const RtpccArrivalLog * log, guint32 ssrc,
    guint16 seq, guint64 * ext_seq)
{
  Stream *st;

  g_return_val_if_fail (log != NULL, FALSE);
  st = find_stream (log, ssrc, NULL);
  if (st == NULL)
    return FALSE;
  if (ext_seq)
    *ext_seq = extend (st, seq);
  return TRUE;
}

gboolean
rtpcc_arrival_log_get_highest (const RtpccArrivalLog * log, guint32 ssrc,
    guint64 * ext_seq, guint64 * n_received)
{
  Stream *st;

  g_return_val_if_fail (log != NULL, FALSE);
  st = find_stream (log, ssrc, NULL);
  if (st == NULL)
    return FALSE;
  if (ext_seq)
    *ext_seq = st->highest_ext;
  if (n_received)
    *n_received = st->n_received;
  return TRUE;
}

gboolean
rtpcc_arrival_log_lookup (const RtpccArrivalLog * log, guint32 ssrc,
    guint64 ext_seq, RtpccTime * arrival, guint8 * ecn)
{
  Stream *st;
  Slot *s;

  g_return_val_if_fail (log != NULL, FALSE);
  st = find_stream (log, ssrc, NULL);
  if (st == NULL || ext_seq == 0)
    return FALSE;
  s = lookup_slot (log, st, ext_seq);
  if (s == NULL || s->arrival == RTPCC_TIME_NONE)
    return FALSE;
  if (arrival)
    *arrival = s->arrival;
  if (ecn)
    *ecn = s->ecn;
  return TRUE;
}

/* The range the next report should cover for @st (see the policy in the
 * header), before the @limit; begin > end when there is nothing to say. */
static void
choose_range (const RtpccArrivalLog * log, Stream * st, Range * r)
{
  guint64 lo, begin;

  /* oldest seq still in the ring */
  lo = st->highest_ext >= st->cap ?
      MAX (st->first_ext, st->highest_ext - st->cap + 1) : st->first_ext;

  /* after what the report @redundancy reports ago covered: each packet is
   * in that many reports, received or lost */
  if (st->n_reports < log->redundancy)
    begin = lo;
  else
    begin = MAX (st->report_end[(st->n_reports - log->redundancy) %
            RTPCC_ARRIVAL_LOG_MAX_REDUNDANCY] + 1, lo);

  /* and once back to a packet that came late, while the sender has not
   * declared it lost */
  if (st->late_lowest != 0 && st->late_lowest >= lo)
    begin = MIN (begin, st->late_lowest);

  r->st = st;
  r->end = st->highest_ext;
  r->begin = begin;
}

gsize
rtpcc_arrival_log_write_ccfb (RtpccArrivalLog * log, RtpccTime now,
    RtpccTime ntp_offset, guint32 sender_ssrc, guint max_reports_per_ssrc,
    guint8 * buf, gsize max)
{
  Range *ranges;
  RtpccCcfbBlockIn *blocks;
  RtpccCcfbMetric *metrics = NULL;
  guint n = 0, i, limit;
  gsize total = 0, size = 0, written = 0, mi;
  guint64 ntp;
  guint32 rts;
  RtpccTime rts_time;

  g_return_val_if_fail (log != NULL, 0);
  if (buf == NULL || log->streams->len == 0)
    return 0;

  limit = max_reports_per_ssrc ? max_reports_per_ssrc : log->capacity;
  limit = MIN (limit, MIN (log->capacity, RTPCC_CCFB_MAX_REPORTS));

  ranges = g_new0 (Range, log->streams->len);
  blocks = g_new0 (RtpccCcfbBlockIn, log->streams->len);

  for (i = 0; i < log->streams->len; i++) {
    Stream *st = g_ptr_array_index (log->streams, i);
    Range *r = &ranges[n];

    choose_range (log, st, r);
    if (r->begin <= r->end && r->end - r->begin + 1 > limit)
      r->begin = r->end - limit + 1;
    if (r->begin > r->end
        && rtpcc_time_sub_saturated (now, st->last_arrival) >
        log->inactive_timeout)
      continue;                 /* silent and nothing to say: not active */
    n++;
  }
  if (n == 0)
    goto out;

  /* too big for @max: drop the oldest packets of the largest block first */
  for (;;) {
    guint big = 0;
    guint64 big_n = 0;

    for (i = 0; i < n; i++) {
      blocks[i].num_reports = ranges[i].begin <= ranges[i].end ?
          (guint16) (ranges[i].end - ranges[i].begin + 1) : 0;
      if (blocks[i].num_reports > big_n) {
        big_n = blocks[i].num_reports;
        big = i;
      }
    }
    size = rtpcc_ccfb_size (blocks, n);
    if (size != 0 && size <= max)
      break;
    if (big_n == 0)
      goto out;
    /* each report is 2 bytes; +2 absorbs the odd-count padding word */
    ranges[big].begin += MIN (big_n, (size > max ? (size - max) / 2 : 0) + 2);
  }

  /* the report timestamp is @now rounded *up* to 1/65536 s: truncating
   * would put packets of the last 15 µs after it, which RFC 8888 makes
   * 0x1FFF (unavailable). ATOs are relative to the instant it denotes. */
  ntp = rtpcc_ntp_from_time (now, ntp_offset);
  ntp = (ntp + 0xffff) & ~G_GUINT64_CONSTANT (0xffff);
  rts = rtpcc_ntp_short (ntp);
  rts_time = rtpcc_ntp_to_time (ntp, ntp_offset);

  for (i = 0; i < n; i++)
    total += blocks[i].num_reports;
  metrics = g_new0 (RtpccCcfbMetric, MAX (total, 1));

  mi = 0;
  for (i = 0; i < n; i++) {
    Range *r = &ranges[i];
    Stream *st = r->st;
    guint j;

    blocks[i].media_ssrc = st->ssrc;
    blocks[i].metrics = &metrics[mi];
    if (blocks[i].num_reports == 0) {
      blocks[i].begin_seq = (guint16) st->highest_ext;
      continue;
    }
    blocks[i].begin_seq = (guint16) r->begin;
    for (j = 0; j < blocks[i].num_reports; j++) {
      Slot *s = lookup_slot (log, st, r->begin + j);
      RtpccCcfbMetric *m = &metrics[mi + j];

      m->seq = (guint16) (r->begin + j);
      if (s && s->arrival != RTPCC_TIME_NONE) {
        m->received = TRUE;
        m->ecn = s->ecn;
        m->ato = rtpcc_ccfb_ato_from_delta (rtpcc_time_sub_saturated
            (rts_time, s->arrival));
      }
    }
    mi += blocks[i].num_reports;
  }

  written = rtpcc_ccfb_write (buf, max, sender_ssrc, rts, blocks, n);
  if (written == 0)
    goto out;

  /* remember where this report ended, for the next ones' ranges */
  for (i = 0; i < n; i++) {
    Stream *st = ranges[i].st;

    st->report_end[st->n_reports % RTPCC_ARRIVAL_LOG_MAX_REDUNDANCY] =
        ranges[i].end;
    st->n_reports++;
    st->late_lowest = 0;
  }

out:
  g_free (metrics);
  g_free (blocks);
  g_free (ranges);
  return written;
}

/* Transport-wide congestion control feedback: build, parse, record, map.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "twcc.h"
#include "rtcp.h"
#include "bytes.h"

#include <string.h>

#define VEC1_CAPACITY 14        /* 1-bit symbols in a status vector */
#define VEC2_CAPACITY 7         /* 2-bit symbols */
#define RUN_CAPACITY 0x1FFF     /* 13-bit run length */
/* the RTCP length field counts 32-bit words minus one */
#define MAX_RTCP_BYTES ((gsize) (G_MAXUINT16 + 1) * 4)
/* arrivals beyond ±2^61 ns (73 years) are refused, which keeps every sum
 * below free of overflow */
#define MAX_ABS_TIME (G_GINT64_CONSTANT (1) << 61)
/* the unwrapped reference time stays within ±2^36 × 64 ms (139 years) */
#define MAX_EXT_REF (G_GINT64_CONSTANT (1) << 36)

static gint64
floor_div (gint64 a, gint64 b)
{
  gint64 q = a / b;
  if ((a % b) != 0 && a < 0)
    q--;
  return q;
}

static gboolean
time_ok (RtpccTime t)
{
  return t != RTPCC_TIME_NONE && t >= -MAX_ABS_TIME && t <= MAX_ABS_TIME;
}

gint32
rtpcc_twcc_ref_time_signed (guint32 ref_time)
{
  ref_time &= 0xFFFFFF;
  return (ref_time & 0x800000) ? (gint32) ref_time - 0x1000000 :
      (gint32) ref_time;
}

guint32
rtpcc_twcc_ref_time_from_time (RtpccTime t)
{
  return (guint32) (floor_div (t, RTPCC_TWCC_REF_UNIT) & 0xFFFFFF);
}

guint64
rtpcc_twcc_unwrap_seq (guint64 highest_sent, guint16 seq)
{
  guint16 back = (guint16) ((guint16) highest_sent - seq);
  return highest_sent - back;
}

/* ---- chunk encoder ------------------------------------------------------ */

/* The greedy encoder libwebrtc uses: symbols gather in a pending chunk for
 * as long as some chunk type can still hold them all; when the next one
 * does not fit, the pending ones go out as a run, a 1-bit vector of 14, or
 * a 2-bit vector of the first 7 (the rest stays pending). */
typedef struct
{
  guint8 sym[VEC1_CAPACITY];    /* the first 14 pending symbols */
  guint size;                   /* pending symbols */
  gboolean all_same;
  gboolean has_large;
  guint n_chunks;               /* emitted */
  guint8 *out;                  /* where chunks go; NULL: just count */
} ChunkEnc;

static void
enc_clear (ChunkEnc * e)
{
  e->size = 0;
  e->all_same = TRUE;
  e->has_large = FALSE;
}

static void
enc_put (ChunkEnc * e, guint16 chunk)
{
  if (e->out)
    rtpcc_wr16 (e->out + 2 * (gsize) e->n_chunks, chunk);
  e->n_chunks++;
}

static guint16
chunk_run (guint8 sym, guint run)
{
  return (guint16) ((sym << 13) | run);
}

static guint16
chunk_vec1 (const guint8 * sym, guint n)
{
  guint16 c = 0x8000;
  for (guint i = 0; i < n; i++)
    c |= (guint16) ((sym[i] & 1) << (VEC1_CAPACITY - 1 - i));
  return c;
}

static guint16
chunk_vec2 (const guint8 * sym, guint n)
{
  guint16 c = 0xC000;
  for (guint i = 0; i < n; i++)
    c |= (guint16) ((sym[i] & 3) << (2 * (VEC2_CAPACITY - 1 - i)));
  return c;
}

static gboolean
enc_can_add (const ChunkEnc * e, guint8 s)
{
  if (e->size < VEC2_CAPACITY)
    return TRUE;
  if (e->size < VEC1_CAPACITY && !e->has_large && s != RTPCC_TWCC_LARGE_DELTA)
    return TRUE;
  return e->size < RUN_CAPACITY && e->all_same && e->sym[0] == s;
}

static void
enc_emit (ChunkEnc * e)
{
  guint rest;

  if (e->all_same) {
    enc_put (e, chunk_run (e->sym[0], e->size));
    enc_clear (e);
    return;
  }
  if (e->size == VEC1_CAPACITY) {
    enc_put (e, chunk_vec1 (e->sym, VEC1_CAPACITY));
    enc_clear (e);
    return;
  }
  /* mixed and 7..13 pending: only with a large delta among or after them */
  g_assert (e->size >= VEC2_CAPACITY && e->size < VEC1_CAPACITY);
  enc_put (e, chunk_vec2 (e->sym, VEC2_CAPACITY));
  rest = e->size - VEC2_CAPACITY;
  memmove (e->sym, e->sym + VEC2_CAPACITY, rest);
  enc_clear (e);
  for (guint i = 0; i < rest; i++) {
    e->all_same = e->all_same && e->sym[i] == e->sym[0];
    e->has_large = e->has_large || e->sym[i] == RTPCC_TWCC_LARGE_DELTA;
  }
  e->size = rest;
}

static void
enc_add (ChunkEnc * e, guint8 s)
{
  if (!enc_can_add (e, s))
    enc_emit (e);
  if (e->size < VEC1_CAPACITY)
    e->sym[e->size] = s;
  e->size++;
  e->all_same = e->all_same && s == e->sym[0];
  e->has_large = e->has_large || s == RTPCC_TWCC_LARGE_DELTA;
}

static void
enc_finish (ChunkEnc * e)
{
  if (e->size == 0)
    return;
  if (e->all_same)
    enc_put (e, chunk_run (e->sym[0], e->size));
  else if (e->has_large)
    enc_put (e, chunk_vec2 (e->sym, e->size));  /* ≤ 7 when mixed with large */
  else
    enc_put (e, chunk_vec1 (e->sym, e->size));
  enc_clear (e);
}

static guint
enc_total_chunks (const ChunkEnc * e)
{
  return e->n_chunks + (e->size > 0 ? 1 : 0);
}

/* ---- writer ------------------------------------------------------------- */

typedef struct
{
  ChunkEnc enc;
  guint count;                  /* statuses */
  gsize delta_bytes;
  gboolean have_ref;
  gint64 ref_units;             /* floor(first arrival / 64 ms) */
  RtpccTime base;               /* ref_units × 64 ms */
  gint64 prev_ticks;            /* rounded ticks of the last received, from base */
  guint8 *deltas;               /* where deltas go; NULL: just count */
} Plan;

static gsize
plan_size (const Plan * p)
{
  gsize n = RTPCC_TWCC_HEADER_SIZE + 2 * (gsize) enc_total_chunks (&p->enc) +
      p->delta_bytes;
  return (n + 3) & ~(gsize) 3;
}

/* Adds @e (after @prev, NULL for the first) to @p if the packet can hold
 * it within @max bytes; FALSE (and @p unchanged) if not. */
static gboolean
plan_add (Plan * p, const RtpccTwccArrival * prev, const RtpccTwccArrival * e,
    gsize max)
{
  Plan t = *p;
  guint8 sym = RTPCC_TWCC_NOT_RECEIVED;
  gint64 delta = 0;

  if (prev) {
    guint64 gap;
    if (e->seq <= prev->seq)
      return FALSE;
    gap = e->seq - prev->seq - 1;
    if (gap >= (guint64) (RTPCC_TWCC_MAX_STATUS_COUNT - t.count))
      return FALSE;
    for (guint64 g = 0; g < gap; g++)
      enc_add (&t.enc, RTPCC_TWCC_NOT_RECEIVED);
    t.count += (guint) gap;
  } else if (t.count >= RTPCC_TWCC_MAX_STATUS_COUNT) {
    return FALSE;
  }

  if (e->arrival != RTPCC_TIME_NONE) {
    gint64 ticks;

    if (!time_ok (e->arrival))
      return FALSE;
    if (!t.have_ref) {
      t.have_ref = TRUE;
      t.ref_units = floor_div (e->arrival, RTPCC_TWCC_REF_UNIT);
      t.base = t.ref_units * RTPCC_TWCC_REF_UNIT;
      t.prev_ticks = 0;
    }
    /* nearest tick from the reference: no drift along the packet */
    ticks = floor_div (e->arrival - t.base + RTPCC_TWCC_DELTA_UNIT / 2,
        RTPCC_TWCC_DELTA_UNIT);
    delta = ticks - t.prev_ticks;
    if (delta < G_MININT16 || delta > G_MAXINT16)
      return FALSE;
    t.prev_ticks = ticks;
    sym = (delta >= 0 && delta <= 0xFF) ? RTPCC_TWCC_SMALL_DELTA :
        RTPCC_TWCC_LARGE_DELTA;
    t.delta_bytes += sym;
  }
  enc_add (&t.enc, sym);
  t.count++;
  if (plan_size (&t) > max)
    return FALSE;

  if (t.deltas && sym == RTPCC_TWCC_SMALL_DELTA)
    t.deltas[p->delta_bytes] = (guint8) delta;
  else if (t.deltas && sym == RTPCC_TWCC_LARGE_DELTA)
    rtpcc_wr16 (t.deltas + p->delta_bytes, (guint16) (gint16) delta);
  *p = t;
  return TRUE;
}

gsize
rtpcc_twcc_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc, guint8 fb_count, const RtpccTwccArrival * pkts,
    guint n, guint * n_used)
{
  Plan plan;
  guint used = 0, chunks;
  gsize size;

  if (n_used)
    *n_used = 0;
  if (buf == NULL || pkts == NULL || n == 0 || max < RTPCC_TWCC_MIN_SIZE)
    return 0;
  max = MIN (max, MAX_RTCP_BYTES);

  /* pass 1: how many entries fit, and the chunk count */
  memset (&plan, 0, sizeof (plan));
  enc_clear (&plan.enc);
  while (used < n && plan_add (&plan, used ? &pkts[used - 1] : NULL,
          &pkts[used], max))
    used++;
  if (used == 0)
    return 0;
  chunks = enc_total_chunks (&plan.enc);
  size = plan_size (&plan);

  /* pass 2: the same decisions, now writing chunks and deltas in place */
  memset (&plan, 0, sizeof (plan));
  enc_clear (&plan.enc);
  plan.enc.out = buf + RTPCC_TWCC_HEADER_SIZE;
  plan.deltas = buf + RTPCC_TWCC_HEADER_SIZE + 2 * (gsize) chunks;
  for (guint i = 0; i < used; i++) {
    gboolean ok = plan_add (&plan, i ? &pkts[i - 1] : NULL, &pkts[i], max);
    g_assert (ok);
  }
  enc_finish (&plan.enc);
  g_assert (plan.enc.n_chunks == chunks && plan_size (&plan) == size);

  buf[0] = 0x80 | RTPCC_TWCC_FMT;
  buf[1] = RTPCC_RTCP_RTPFB;
  rtpcc_wr16 (buf + 2, (guint16) (size / 4 - 1));
  rtpcc_wr32 (buf + 4, sender_ssrc);
  rtpcc_wr32 (buf + 8, media_ssrc);
  rtpcc_wr16 (buf + 12, (guint16) pkts[0].seq);
  rtpcc_wr16 (buf + 14, (guint16) plan.count);
  rtpcc_wr24 (buf + 16, plan.have_ref ?
      (guint32) (plan.ref_units & 0xFFFFFF) : 0);
  buf[19] = fb_count;
  {
    gsize end = RTPCC_TWCC_HEADER_SIZE + 2 * (gsize) chunks +
        plan.delta_bytes;
    memset (buf + end, 0, size - end);
  }
  if (n_used)
    *n_used = used;
  return size;
}

/* ---- parser ------------------------------------------------------------- */

#define PARSE_ERROR(...)                                                  \
  G_STMT_START {                                                          \
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "TWCC: " __VA_ARGS__); \
    g_free (fb);                                                          \
    return NULL;                                                          \
  } G_STMT_END

RtpccTwcc *
rtpcc_twcc_parse (const guint8 * pkt, gsize len, GError ** error)
{
  RtpccTwcc *fb = NULL;
  gsize end, off, need = 0;
  guint count, i = 0;
  gint64 acc = 0;

  if (pkt == NULL || len < RTPCC_TWCC_HEADER_SIZE)
    PARSE_ERROR ("%" G_GSIZE_FORMAT " bytes, need at least %d", len,
        RTPCC_TWCC_HEADER_SIZE);
  if ((pkt[0] >> 6) != 2)
    PARSE_ERROR ("RTP version %u, expected 2", pkt[0] >> 6);
  if (pkt[1] != RTPCC_RTCP_RTPFB)
    PARSE_ERROR ("packet type %u, expected %u", pkt[1], RTPCC_RTCP_RTPFB);
  if ((pkt[0] & 0x1f) != RTPCC_TWCC_FMT)
    PARSE_ERROR ("FMT %u, expected %u", pkt[0] & 0x1f, RTPCC_TWCC_FMT);
  if (((gsize) rtpcc_rd16 (pkt + 2) + 1) * 4 != len)
    PARSE_ERROR ("length field says %u bytes, packet has %" G_GSIZE_FORMAT,
        ((guint) rtpcc_rd16 (pkt + 2) + 1) * 4, len);

  end = len;
  if (pkt[0] & 0x20) {
    guint8 pad = pkt[len - 1];
    /* the count includes itself. RFC 3550 §6.4.1 wants a multiple of 4,
     * but libwebrtc pads TWCC to 32 bits this way with 1..3 */
    if (pad == 0 || pad > len - RTPCC_TWCC_HEADER_SIZE)
      PARSE_ERROR ("bad padding count %u", pad);
    end -= pad;
  }

  count = rtpcc_rd16 (pkt + 14);
  if (count == 0)
    PARSE_ERROR ("packet status count 0");

  fb = g_malloc0 (sizeof (RtpccTwcc) + count * sizeof (RtpccTwccStatus));
  fb->status = (RtpccTwccStatus *) (fb + 1);
  fb->sender_ssrc = rtpcc_rd32 (pkt + 4);
  fb->media_ssrc = rtpcc_rd32 (pkt + 8);
  fb->base_seq = rtpcc_rd16 (pkt + 12);
  fb->status_count = (guint16) count;
  fb->ref_time = rtpcc_rd24 (pkt + 16);
  fb->fb_count = pkt[19];

  /* chunks, until every status is known */
  off = RTPCC_TWCC_HEADER_SIZE;
  while (i < count) {
    guint16 c;
    guint take;

    if (end - off < 2)
      PARSE_ERROR ("packet chunks end after %u of %u statuses", i, count);
    c = rtpcc_rd16 (pkt + off);
    off += 2;
    if (!(c & 0x8000)) {
      guint8 s = (c >> 13) & 3;
      take = MIN ((guint) (c & RUN_CAPACITY), count - i);
      if (take > 0 && s == RTPCC_TWCC_RESERVED)
        PARSE_ERROR ("reserved symbol for seq %u",
            (guint16) (fb->base_seq + i));
      for (guint k = 0; k < take; k++)
        fb->status[i + k].symbol = s;
    } else if (!(c & 0x4000)) {
      take = MIN ((guint) VEC1_CAPACITY, count - i);
      for (guint k = 0; k < take; k++)
        fb->status[i + k].symbol = (c >> (VEC1_CAPACITY - 1 - k)) & 1;
    } else {
      take = MIN ((guint) VEC2_CAPACITY, count - i);
      for (guint k = 0; k < take; k++) {
        guint8 s = (c >> (2 * (VEC2_CAPACITY - 1 - k))) & 3;
        if (s == RTPCC_TWCC_RESERVED)
          PARSE_ERROR ("reserved symbol for seq %u",
              (guint16) (fb->base_seq + i + k));
        fb->status[i + k].symbol = s;
      }
    }
    i += take;
  }

  for (i = 0; i < count; i++)
    need += fb->status[i].symbol;
  if (need > end - off)
    PARSE_ERROR ("recv deltas need %" G_GSIZE_FORMAT " bytes, %"
        G_GSIZE_FORMAT " left", need, end - off);

  for (i = 0; i < count; i++) {
    RtpccTwccStatus *st = &fb->status[i];

    st->seq = (guint16) (fb->base_seq + i);
    st->received = st->symbol != RTPCC_TWCC_NOT_RECEIVED;
    st->offset = RTPCC_TIME_NONE;
    if (!st->received)
      continue;
    if (st->symbol == RTPCC_TWCC_SMALL_DELTA) {
      st->delta = pkt[off];
      off += 1;
    } else {
      st->delta = (gint16) rtpcc_rd16 (pkt + off);
      off += 2;
    }
    acc += st->delta;
    st->offset = acc * RTPCC_TWCC_DELTA_UNIT;
    fb->n_received++;
  }
  /* only the zero padding to 32 bits may follow */
  if (end - off >= 4)
    PARSE_ERROR ("%" G_GSIZE_FORMAT " bytes left over after the deltas",
        end - off);
  return fb;
}

#undef PARSE_ERROR

void
rtpcc_twcc_free (RtpccTwcc * fb)
{
  g_free (fb);
}

/* ---- recorder ----------------------------------------------------------- */

typedef struct
{
  guint64 ext;                  /* which seq the slot holds; 0 = never used */
  RtpccTime arrival;            /* NONE: not received (yet) */
  RtpccTime covered_at;         /* first write covering it, or NONE */
} Slot;

struct _RtpccTwccRecorder
{
  guint capacity;
  Slot *slots;
  gboolean started;
  guint64 first_ext;            /* lowest seq recorded */
  guint64 highest_ext;          /* highest seq received */
  guint64 covered_highest;      /* highest seq a write covered; 0 = none */
  guint64 late_lowest;          /* lowest seq to reach back to; 0 = none */
  guint32 bad_seq;              /* seq confirming a restart; > 0xFFFF: none */
  gsize max_packet;
  RtpccTime late_window;
  guint8 fb_count;
  guint64 n_received, n_duplicates, n_dropped, n_feedback;
  RtpccTwccArrival *scratch;    /* capacity entries */
};

RtpccTwccRecorder *
rtpcc_twcc_recorder_new (guint capacity)
{
  RtpccTwccRecorder *rec = g_new0 (RtpccTwccRecorder, 1);

  if (capacity == 0)
    capacity = RTPCC_TWCC_RECORDER_DEFAULT_CAPACITY;
  rec->capacity = CLAMP (capacity, RTPCC_TWCC_RECORDER_MIN_CAPACITY,
      RTPCC_TWCC_RECORDER_MAX_CAPACITY);
  rec->slots = g_new0 (Slot, rec->capacity);
  rec->scratch = g_new (RtpccTwccArrival, rec->capacity);
  rec->bad_seq = G_MAXUINT32;
  rec->max_packet = RTPCC_TWCC_DEFAULT_MAX_PACKET_SIZE;
  rec->late_window = RTPCC_TWCC_DEFAULT_LATE_WINDOW;
  return rec;
}

void
rtpcc_twcc_recorder_free (RtpccTwccRecorder * rec)
{
  if (rec == NULL)
    return;
  g_free (rec->slots);
  g_free (rec->scratch);
  g_free (rec);
}

void
rtpcc_twcc_recorder_set_max_packet_size (RtpccTwccRecorder * rec, gsize size)
{
  g_return_if_fail (rec != NULL);
  rec->max_packet = CLAMP (size, RTPCC_TWCC_MIN_SIZE, MAX_RTCP_BYTES);
}

void
rtpcc_twcc_recorder_set_late_window (RtpccTwccRecorder * rec,
    RtpccTime window)
{
  g_return_if_fail (rec != NULL);
  rec->late_window = MAX (window, 0);
}

static inline Slot *
rec_slot (const RtpccTwccRecorder * rec, guint64 ext)
{
  return &rec->slots[ext % rec->capacity];
}

gboolean
rtpcc_twcc_recorder_add (RtpccTwccRecorder * rec, guint16 seq,
    RtpccTime arrival)
{
  Slot *slot;
  guint64 ext;

  g_return_val_if_fail (rec != NULL, FALSE);
  if (!time_ok (arrival))
    return FALSE;

  if (!rec->started) {
    rec->started = TRUE;
    ext = rec->first_ext = rec->highest_ext = G_GUINT64_CONSTANT (65536) + seq;
  } else {
    gint16 d = (gint16) (guint16) (seq - (guint16) rec->highest_ext);
    ext = (guint64) ((gint64) rec->highest_ext + d);
    if (ext + RTPCC_TWCC_RECORDER_MAX_MISORDER < rec->highest_ext) {
      /* far behind: a restarted sender (believed when the next packet
       * follows, as RFC 3550 A.1), or a stale straggler */
      if (seq != rec->bad_seq) {
        rec->bad_seq = (guint16) (seq + 1);
        rec->n_dropped++;
        return FALSE;
      }
      memset (rec->slots, 0, rec->capacity * sizeof (Slot));
      ext = ((rec->highest_ext + 2 * G_GUINT64_CONSTANT (65536)) &
          ~G_GUINT64_CONSTANT (0xffff)) | seq;
      rec->first_ext = rec->highest_ext = ext;
      rec->covered_highest = 0;
      rec->late_lowest = 0;
    }
    rec->bad_seq = G_MAXUINT32;
    if (ext + rec->capacity <= rec->highest_ext) {
      rec->n_dropped++;         /* its slot belongs to a newer packet */
      return FALSE;
    }
    rec->highest_ext = MAX (rec->highest_ext, ext);
    rec->first_ext = MIN (rec->first_ext, ext);
  }

  slot = rec_slot (rec, ext);
  if (slot->ext == ext && slot->arrival != RTPCC_TIME_NONE) {
    rec->n_duplicates++;        /* first arrival stands */
    return FALSE;
  }
  if (slot->ext != ext) {
    slot->ext = ext;
    slot->covered_at = RTPCC_TIME_NONE;
  }
  slot->arrival = arrival;
  rec->n_received++;

  /* behind what was already covered: reach back for it, if it was never
   * covered or only recently (reported lost) */
  if (rec->covered_highest != 0 && ext <= rec->covered_highest
      && (slot->covered_at == RTPCC_TIME_NONE
          || rtpcc_time_sub_saturated (arrival, slot->covered_at) <=
          rec->late_window))
    rec->late_lowest = rec->late_lowest ? MIN (rec->late_lowest, ext) : ext;
  return TRUE;
}

/* [*begin, *end] to cover next; FALSE if nothing. */
static gboolean
rec_range (const RtpccTwccRecorder * rec, guint64 * begin, guint64 * end)
{
  guint64 lo, b;

  if (!rec->started)
    return FALSE;
  lo = rec->highest_ext >= rec->capacity ?
      MAX (rec->first_ext, rec->highest_ext - rec->capacity + 1) :
      rec->first_ext;
  b = rec->covered_highest ? rec->covered_highest + 1 : rec->first_ext;
  if (rec->late_lowest)
    b = MIN (b, rec->late_lowest);
  b = MAX (b, lo);
  if (b > rec->highest_ext)
    return FALSE;
  *begin = b;
  *end = rec->highest_ext;
  return TRUE;
}

gboolean
rtpcc_twcc_recorder_has_pending (const RtpccTwccRecorder * rec)
{
  guint64 b, e;

  g_return_val_if_fail (rec != NULL, FALSE);
  return rec_range (rec, &b, &e);
}

gsize
rtpcc_twcc_recorder_write (RtpccTwccRecorder * rec, RtpccTime now,
    guint32 sender_ssrc, guint32 media_ssrc, guint8 * buf, gsize max,
    guint * n_packets)
{
  guint64 begin, end;
  guint n, i = 0, np = 0;
  gsize off = 0;

  if (n_packets)
    *n_packets = 0;
  g_return_val_if_fail (rec != NULL, 0);
  if (buf == NULL || !rec_range (rec, &begin, &end))
    return 0;

  n = (guint) (end - begin + 1);
  g_assert (n <= rec->capacity);
  for (guint k = 0; k < n; k++) {
    guint64 e = begin + k;
    Slot *s = rec_slot (rec, e);

    rec->scratch[k].seq = e;
    rec->scratch[k].arrival = s->ext == e ? s->arrival : RTPCC_TIME_NONE;
  }

  while (i < n && max - off >= RTPCC_TWCC_MIN_SIZE) {
    guint used = 0;
    gsize w = rtpcc_twcc_write (buf + off, MIN (max - off, rec->max_packet),
        sender_ssrc, media_ssrc, rec->fb_count, rec->scratch + i, n - i,
        &used);

    if (w == 0)
      break;
    for (guint k = i; k < i + used; k++) {
      guint64 e = rec->scratch[k].seq;
      Slot *s = rec_slot (rec, e);

      if (s->ext != e) {
        /* a loss we report: give it a slot so a late arrival is seen */
        s->ext = e;
        s->arrival = RTPCC_TIME_NONE;
        s->covered_at = RTPCC_TIME_NONE;
      }
      if (s->covered_at == RTPCC_TIME_NONE)
        s->covered_at = now;
    }
    rec->covered_highest = MAX (rec->covered_highest,
        rec->scratch[i + used - 1].seq);
    rec->fb_count++;
    rec->n_feedback++;
    np++;
    i += used;
    off += w;
  }
  if (np > 0) {
    /* what did not fit and lies behind the covered end stays to reach */
    rec->late_lowest = (i < n && rec->scratch[i].seq <= rec->covered_highest)
        ? rec->scratch[i].seq : 0;
  }
  if (n_packets)
    *n_packets = np;
  return off;
}

void
rtpcc_twcc_recorder_get_stats (const RtpccTwccRecorder * rec,
    RtpccTwccRecorderStats * stats)
{
  g_return_if_fail (rec != NULL && stats != NULL);
  stats->received = rec->n_received;
  stats->duplicates = rec->n_duplicates;
  stats->dropped = rec->n_dropped;
  stats->feedback_packets = rec->n_feedback;
  stats->next_fb_count = rec->fb_count;
}

/* ---- unwrapper ---------------------------------------------------------- */

struct _RtpccTwccUnwrapper
{
  gboolean have_ref;
  gint64 ext_ref;               /* unwrapped reference time, 64 ms units */
  guint32 last_raw;             /* the 24-bit value it came from */
  RtpccTime last_now;           /* sender time of that feedback */
  gboolean have_count;
  guint8 last_fb_count;
  guint epoch;
  RtpccTime restart_threshold;
};

RtpccTwccUnwrapper *
rtpcc_twcc_unwrapper_new (void)
{
  RtpccTwccUnwrapper *u = g_new0 (RtpccTwccUnwrapper, 1);

  u->restart_threshold = RTPCC_TWCC_DEFAULT_RESTART_THRESHOLD;
  return u;
}

void
rtpcc_twcc_unwrapper_free (RtpccTwccUnwrapper * u)
{
  g_free (u);
}

void
rtpcc_twcc_unwrapper_set_restart_threshold (RtpccTwccUnwrapper * u,
    RtpccTime threshold)
{
  g_return_if_fail (u != NULL);
  u->restart_threshold = MAX (threshold, 0);
}

guint
rtpcc_twcc_unwrapper_map (RtpccTwccUnwrapper * u, RtpccTime now,
    const RtpccTwcc * fb, guint64 highest_sent, RtpccTwccResult * out,
    RtpccTwccMapInfo * info)
{
  RtpccTwccMapInfo inf = { 0 };
  RtpccTime base;

  g_return_val_if_fail (u != NULL && fb != NULL, 0);
  g_return_val_if_fail (out != NULL || fb->status_count == 0, 0);

  if (fb->n_received > 0) {
    guint32 raw = fb->ref_time & 0xFFFFFF;

    if (!u->have_ref) {
      u->have_ref = TRUE;
      u->ext_ref = raw;
    } else {
      gint64 d = rtpcc_twcc_ref_time_signed (raw - u->last_raw);
      RtpccTime ds = rtpcc_time_sub_saturated (now, u->last_now);
      RtpccTime dr = d * RTPCC_TWCC_REF_UNIT;

      if (ABS (rtpcc_time_sub_saturated (dr, ds)) > u->restart_threshold) {
        /* the receiver's clock jumped (a restart): a new epoch, carried
         * on by the sender's clock so the timeline stays roughly
         * continuous */
        u->epoch++;
        inf.new_epoch = TRUE;
        d = floor_div (CLAMP (ds, -MAX_ABS_TIME, MAX_ABS_TIME) +
            RTPCC_TWCC_REF_UNIT / 2, RTPCC_TWCC_REF_UNIT);
      }
      u->ext_ref = CLAMP (u->ext_ref + d, -MAX_EXT_REF, MAX_EXT_REF);
    }
    u->last_raw = raw;
    u->last_now = now;
  }
  inf.epoch = u->epoch;

  if (u->have_count && !inf.new_epoch) {
    gint8 d = (gint8) (guint8) (fb->fb_count - u->last_fb_count - 1);
    /* a late or repeated feedback packet is not a gap; a count far behind
     * is a restarted counter */
    if (d >= 0) {
      inf.feedback_gap = (guint) d;
      u->last_fb_count = fb->fb_count;
    } else if (d < -16) {
      u->last_fb_count = fb->fb_count;
    }
  } else {
    u->have_count = TRUE;
    u->last_fb_count = fb->fb_count;
  }

  base = u->ext_ref * RTPCC_TWCC_REF_UNIT;
  for (guint i = 0; i < fb->status_count; i++) {
    const RtpccTwccStatus *st = &fb->status[i];

    out[i].ext_seq = rtpcc_twcc_unwrap_seq (highest_sent, st->seq);
    out[i].received = st->received;
    out[i].arrival = st->received ? base + st->offset : RTPCC_TIME_NONE;
  }
  if (info)
    *info = inf;
  return fb->status_count;
}

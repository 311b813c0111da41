/* RFC 5104 TMMBR / TMMBN: build, parse, bounding set, the media sender's
 * state.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tmmbr.h"
#include "rtcp.h"
#include "fbheader.h"

#include <math.h>
#include <string.h>

#define ENTRY_SIZE 8
#define MANTISSA_BITS 17
#define MANTISSA_MAX ((1u << MANTISSA_BITS) - 1)

/* ---- Wire format ------------------------------------------------------- */

void
rtpcc_tmmbr_encode_bitrate (guint64 bitrate, guint8 * exp, guint32 * mantissa)
{
  guint8 e = 0;

  while ((bitrate >> e) > MANTISSA_MAX)
    e++;
  *exp = e;
  *mantissa = (guint32) (bitrate >> e);
}

static gsize
size_for (guint n, guint min_n)
{
  if (n < min_n || n > RTPCC_TMMBR_MAX_ENTRIES)
    return 0;
  return RTPCC_FB_HEADER_SIZE + (gsize) n * ENTRY_SIZE;
}

gsize
rtpcc_tmmbr_size (guint n)
{
  return size_for (n, 1);
}

gsize
rtpcc_tmmbn_size (guint n)
{
  return size_for (n, 0);
}

static gsize
write_packet (guint8 * buf, gsize max, guint8 fmt, guint min_n,
    guint32 sender_ssrc, const RtpccTmmbrEntry * entries, guint n)
{
  gsize len = size_for (n, min_n);

  if (buf == NULL || len == 0 || len > max || (n > 0 && entries == NULL))
    return 0;
  for (guint i = 0; i < n; i++)
    if (entries[i].overhead > RTPCC_TMMBR_MAX_OVERHEAD)
      return 0;
  rtpcc_fb_write_header (buf, len, RTPCC_RTCP_RTPFB, fmt, sender_ssrc, 0);
  for (guint i = 0; i < n; i++) {
    guint8 *e = buf + RTPCC_FB_HEADER_SIZE + ENTRY_SIZE * i;
    guint8 exp;
    guint32 mantissa;

    rtpcc_tmmbr_encode_bitrate (entries[i].bitrate, &exp, &mantissa);
    rtpcc_wr32 (e, entries[i].ssrc);
    rtpcc_wr32 (e + 4, ((guint32) exp << 26) | (mantissa << 9)
        | entries[i].overhead);
  }
  return len;
}

gsize
rtpcc_tmmbr_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccTmmbrEntry * entries, guint n)
{
  return write_packet (buf, max, RTPCC_RTPFB_FMT_TMMBR, 1, sender_ssrc,
      entries, n);
}

gsize
rtpcc_tmmbn_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccTmmbrEntry * entries, guint n)
{
  return write_packet (buf, max, RTPCC_RTPFB_FMT_TMMBN, 0, sender_ssrc,
      entries, n);
}

static RtpccTmmb *
parse_packet (const guint8 * pkt, gsize len, guint8 fmt, const gchar * what,
    GError ** error)
{
  RtpccTmmb *t;
  gsize fci_len;
  guint n;

  if (!rtpcc_fb_check_header (pkt, len, RTPCC_RTCP_RTPFB, fmt, what,
          &fci_len, error))
    return NULL;
  if (fci_len % ENTRY_SIZE != 0
      || (fmt == RTPCC_RTPFB_FMT_TMMBR && fci_len == 0)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "%s: %" G_GSIZE_FORMAT " FCI bytes, need %s 8-byte entries "
        "(RFC 5104 §4.2)", what, fci_len,
        fmt == RTPCC_RTPFB_FMT_TMMBR ? "one or more" : "whole");
    return NULL;
  }
  n = (guint) (fci_len / ENTRY_SIZE);
  t = g_malloc (sizeof (RtpccTmmb) + n * sizeof (RtpccTmmbrEntry));
  t->sender_ssrc = rtpcc_rd32 (pkt + 4);
  t->n_entries = n;
  t->entries = (RtpccTmmbrEntry *) (t + 1);
  for (guint i = 0; i < n; i++) {
    const guint8 *e = pkt + RTPCC_FB_HEADER_SIZE + ENTRY_SIZE * i;
    guint32 w = rtpcc_rd32 (e + 4);
    guint exp = w >> 26;
    guint64 mantissa = (w >> 9) & MANTISSA_MAX;

    /* 17 bits shifted by up to 63: refuse what 64 bits cannot hold */
    if (mantissa != 0 && exp > 64 - MANTISSA_BITS
        && (mantissa >> (64 - exp)) != 0) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "%s: entry %u: bit rate %" G_GUINT64_FORMAT "·2^%u past 2^64",
          what, i, mantissa, exp);
      g_free (t);
      return NULL;
    }
    t->entries[i].ssrc = rtpcc_rd32 (e);
    t->entries[i].bitrate = mantissa << exp;
    t->entries[i].overhead = w & RTPCC_TMMBR_MAX_OVERHEAD;
  }
  return t;
}

RtpccTmmb *
rtpcc_tmmbr_parse (const guint8 * pkt, gsize len, GError ** error)
{
  return parse_packet (pkt, len, RTPCC_RTPFB_FMT_TMMBR, "TMMBR", error);
}

RtpccTmmb *
rtpcc_tmmbn_parse (const guint8 * pkt, gsize len, GError ** error)
{
  return parse_packet (pkt, len, RTPCC_RTPFB_FMT_TMMBN, "TMMBN", error);
}

void
rtpcc_tmmb_free (RtpccTmmb * tmmb)
{
  g_free (tmmb);
}

#define OH_ONE (G_GUINT64_CONSTANT (1) << 16)

void
rtpcc_tmmbr_overhead_init (RtpccTmmbrOverhead * o)
{
  g_return_if_fail (o != NULL);
  o->avg = 0;
  o->started = FALSE;
}

void
rtpcc_tmmbr_overhead_add (RtpccTmmbrOverhead * o, guint overhead)
{
  /* more than 16 bits of overhead is no packet; it saturates the 9-bit
   * field long before, and keeps 15 · avg far from overflowing */
  guint64 v = (guint64) MIN (overhead, G_MAXUINT16) * OH_ONE;

  g_return_if_fail (o != NULL);
  if (!o->started) {
    o->avg = v;
    o->started = TRUE;
    return;
  }
  o->avg = (15 * o->avg + v + 8) / 16;
}

guint16
rtpcc_tmmbr_overhead_value (const RtpccTmmbrOverhead * o)
{
  guint64 bytes;

  g_return_val_if_fail (o != NULL, 0);
  bytes = (o->avg + OH_ONE / 2) / OH_ONE;
  return (guint16) MIN (bytes, RTPCC_TMMBR_MAX_OVERHEAD);
}

/* ---- The bounding set -------------------------------------------------- */

/* Sign of a/b − c/d, for b and d in 1..511: whole parts first, then the
 * remainders, whose cross products stay below 2^18. */
static gint
cmp_frac (guint64 a, guint b, guint64 c, guint d)
{
  guint64 qa = a / b, qc = c / d, l, r;

  if (qa != qc)
    return qa < qc ? -1 : 1;
  l = (a % b) * d;
  r = (c % d) * b;
  return l < r ? -1 : l > r;
}

/* Whether tuple @x's limit reaches zero at or before its crossing with a
 * tuple of higher overhead, at packet rate a/(8 b): B_x − 8·O_x·PR ≤ 0
 * there, i.e. B_x / O_x ≤ a / b. RFC 5104 §3.5.4.2 step 8 adds the
 * candidate only if the crossing "is lower than the maximum packet rate
 * associated with the last tuple", so equality leaves it out. */
static gboolean
exhausted_before (const RtpccTmmbrEntry * x, guint64 a, guint b)
{
  if (x->bitrate == 0)
    return TRUE;
  if (x->overhead == 0)
    return FALSE;
  return cmp_frac (x->bitrate, x->overhead, a, b) <= 0;
}

guint
rtpcc_tmmbr_bounding_set (const RtpccTmmbrEntry * in, guint n,
    RtpccTmmbrEntry * out)
{
  guint cur = 0, k = 0;

  if (n == 0 || in == NULL || out == NULL)
    return 0;
  /* the lowest bit rate; of equal ones the highest overhead, whose line
   * lies below the others' at every packet rate */
  for (guint i = 1; i < n; i++)
    if (in[i].bitrate < in[cur].bitrate || (in[i].bitrate == in[cur].bitrate
            && in[i].overhead > in[cur].overhead))
      cur = i;
  out[k++] = in[cur];

  for (;;) {
    gint next = -1;
    guint64 best_a = 0;
    guint best_b = 1;

    for (guint i = 0; i < n; i++) {
      guint64 a;
      guint b;

      /* a tuple of no higher overhead is above the current one from here
       * on: only steeper lines can take over */
      if (in[i].overhead <= in[cur].overhead)
        continue;
      /* crossing at PR = a / (8 b); a steeper line that starts no higher
       * is below at once (it cannot be left, see above, but be safe) */
      a = in[i].bitrate > in[cur].bitrate ?
          in[i].bitrate - in[cur].bitrate : 0;
      b = in[i].overhead - in[cur].overhead;
      if (exhausted_before (&in[cur], a, b))
        continue;
      if (next < 0) {
        next = (gint) i;
      } else {
        gint c = cmp_frac (a, b, best_a, best_b);
        if (c > 0 || (c == 0 && in[i].overhead <= in[next].overhead))
          continue;
        next = (gint) i;
      }
      best_a = a;
      best_b = b;
    }
    if (next < 0)
      break;
    cur = (guint) next;
    out[k++] = in[cur];
  }
  return k;
}

guint64
rtpcc_tmmbr_net_limit (const RtpccTmmbrEntry * set, guint n,
    gdouble packet_rate)
{
  guint64 limit = G_MAXUINT64;

  if (!(packet_rate > 0))       /* also NaN */
    packet_rate = 0;
  for (guint i = 0; i < n; i++) {
    gdouble cut = ceil (8.0 * set[i].overhead * packet_rate);
    guint64 c = cut >= 18446744073709551615.0 ? G_MAXUINT64 : (guint64) cut;
    guint64 v = set[i].bitrate > c ? set[i].bitrate - c : 0;

    limit = MIN (limit, v);
  }
  return limit;
}

static gboolean
same_set (const RtpccTmmbrEntry * a, guint na, const RtpccTmmbrEntry * b,
    guint nb)
{
  if (na != nb)
    return FALSE;
  for (guint i = 0; i < na; i++)
    if (a[i].ssrc != b[i].ssrc || a[i].bitrate != b[i].bitrate
        || a[i].overhead != b[i].overhead)
      return FALSE;
  return TRUE;
}

gboolean
rtpcc_tmmbr_would_change (const RtpccTmmbrEntry * set, guint n,
    const RtpccTmmbrEntry * mine)
{
  RtpccTmmbrEntry *with, *before, *after;
  guint m = 0, nb, na;
  gboolean changed;

  g_return_val_if_fail (mine != NULL && (n == 0 || set != NULL), FALSE);
  with = g_new (RtpccTmmbrEntry, n + 1);
  before = g_new (RtpccTmmbrEntry, n + 1);
  after = g_new (RtpccTmmbrEntry, n + 1);
  for (guint i = 0; i < n; i++)
    if (set[i].ssrc != mine->ssrc)
      with[m++] = set[i];
  /* last, so that an identical tuple already there is the one kept */
  with[m++] = *mine;
  nb = rtpcc_tmmbr_bounding_set (set, n, before);
  na = rtpcc_tmmbr_bounding_set (with, m, after);
  changed = !same_set (before, nb, after, na);
  g_free (with);
  g_free (before);
  g_free (after);
  return changed;
}

/* ---- The media sender's side ------------------------------------------- */

void
rtpcc_tmmbr_state_init (RtpccTmmbrState * s, guint32 media_ssrc)
{
  memset (s, 0, sizeof (*s));
  s->media_ssrc = media_ssrc;
}

static void
recompute (RtpccTmmbrState * s)
{
  s->n_set = rtpcc_tmmbr_bounding_set (s->requests, s->n, s->set);
}

gboolean
rtpcc_tmmbr_state_on_tmmbr (RtpccTmmbrState * s, const RtpccTmmb * tmmbr)
{
  const RtpccTmmbrEntry *mine = NULL;
  RtpccTmmbrEntry req;
  guint slot, worst = 0;

  g_return_val_if_fail (s != NULL && tmmbr != NULL, FALSE);
  for (guint i = 0; i < tmmbr->n_entries && !mine; i++)
    if (tmmbr->entries[i].ssrc == s->media_ssrc)
      mine = &tmmbr->entries[i];
  if (mine == NULL)
    return FALSE;
  req = *mine;
  req.ssrc = tmmbr->sender_ssrc;

  for (slot = 0; slot < s->n; slot++)
    if (s->requests[slot].ssrc == req.ssrc)
      break;
  if (slot == s->n) {
    if (s->n < RTPCC_TMMBR_MAX_REQUESTERS) {
      s->n++;
    } else {
      /* full: the least limiting request makes way for a more limiting
       * one, so that what the sender obeys never loosens */
      for (guint i = 1; i < s->n; i++)
        if (s->requests[i].bitrate > s->requests[worst].bitrate)
          worst = i;
      if (req.bitrate >= s->requests[worst].bitrate) {
        s->n_ignored++;
        return TRUE;
      }
      slot = worst;
      s->n_evicted++;
    }
  }
  s->requests[slot] = req;
  recompute (s);
  return TRUE;
}

gboolean
rtpcc_tmmbr_state_remove (RtpccTmmbrState * s, guint32 requester)
{
  for (guint i = 0; i < s->n; i++) {
    if (s->requests[i].ssrc == requester) {
      memmove (&s->requests[i], &s->requests[i + 1],
          (s->n - i - 1) * sizeof (RtpccTmmbrEntry));
      s->n--;
      recompute (s);
      return TRUE;
    }
  }
  return FALSE;
}

guint64
rtpcc_tmmbr_state_limit (const RtpccTmmbrState * s)
{
  /* the set starts with the lowest bit rate of all */
  return s->n_set > 0 ? s->set[0].bitrate : G_MAXUINT64;
}

guint64
rtpcc_tmmbr_state_apply (const RtpccTmmbrState * s, guint64 target)
{
  return MIN (target, rtpcc_tmmbr_state_limit (s));
}

gsize
rtpcc_tmmbr_state_write_tmmbn (const RtpccTmmbrState * s, guint8 * buf,
    gsize max, guint32 sender_ssrc)
{
  return rtpcc_tmmbn_write (buf, max, sender_ssrc, s->set, s->n_set);
}

/* RFC 4588 RTX packets and the sender's retransmission history.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "rtx.h"
#include "feedback/rtpext.h"
#include "feedback/bytes.h"

#include <string.h>

/* ---- format ------------------------------------------------------------ */

gsize
rtpcc_rtx_build (const guint8 * orig, gsize len, guint32 rtx_ssrc,
    guint8 rtx_pt, guint16 rtx_seq, guint8 * out, gsize max)
{
  RtpccRtpLayout l;
  gsize n;

  if (orig == NULL || out == NULL || rtx_pt > 127
      || !rtpcc_rtp_parse_layout (orig, len, &l))
    return 0;
  n = l.header_len + RTPCC_RTX_OSN_SIZE + l.payload_len;
  if (n > max)
    return 0;
  /* fixed header, CSRCs and extension as they were */
  memcpy (out, orig, l.header_len);
  out[0] &= ~0x20;              /* no padding */
  out[1] = (guint8) ((orig[1] & 0x80) | rtx_pt);
  rtpcc_wr16 (out + 2, rtx_seq);
  rtpcc_wr32 (out + 8, rtx_ssrc);
  rtpcc_wr16 (out + l.header_len, l.seq);
  memcpy (out + l.header_len + RTPCC_RTX_OSN_SIZE, orig + l.header_len,
      l.payload_len);
  return n;
}

gsize
rtpcc_rtx_restore (const guint8 * rtx, gsize len, guint32 media_ssrc,
    guint8 media_pt, guint8 * out, gsize max, GError ** error)
{
  RtpccRtpLayout l;
  gsize n;

  if (rtx == NULL || !rtpcc_rtp_parse_layout (rtx, len, &l)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "RTX: not a valid RTP packet");
    return 0;
  }
  if (l.payload_len < RTPCC_RTX_OSN_SIZE) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "RTX: %" G_GSIZE_FORMAT " payload bytes, no OSN (a padding-only "
        "packet?)", l.payload_len);
    return 0;
  }
  n = len - l.padding_len - RTPCC_RTX_OSN_SIZE;
  if (media_pt > 127 || out == NULL || n > max) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "RTX: payload type %u or %" G_GSIZE_FORMAT " bytes of room for a "
        "%" G_GSIZE_FORMAT "-byte packet", media_pt, max, n);
    return 0;
  }
  memcpy (out, rtx, l.header_len);
  out[0] &= ~0x20;
  out[1] = (guint8) ((rtx[1] & 0x80) | media_pt);
  rtpcc_wr16 (out + 2, rtpcc_rd16 (rtx + l.header_len));
  rtpcc_wr32 (out + 8, media_ssrc);
  memcpy (out + l.header_len, rtx + l.header_len + RTPCC_RTX_OSN_SIZE,
      l.payload_len - RTPCC_RTX_OSN_SIZE);
  return n;
}

/* ---- history ----------------------------------------------------------- */

typedef struct
{
  guint64 key;                  /* ssrc << 16 | seq */
  RtpccTime sent;
  RtpccTime last_rtx;           /* RTPCC_TIME_NONE: never retransmitted */
  GList *link;                  /* in history->order */
  gsize len;
  guint8 data[];
} Entry;

typedef struct
{
  RtpccTime at;
  gsize bytes;
} Grant;

struct _RtpccRtxHistory
{
  RtpccRtxHistoryConfig config;
  GHashTable *by_key;           /* &Entry.key → Entry (owned by order) */
  GQueue order;                 /* Entry, oldest send first */
  GQueue grants;                /* Grant, within the rate window */
  gsize granted_bytes;          /* sum over grants */
  RtpccRtxHistoryStats stats;
};

void
rtpcc_rtx_history_config_init (RtpccRtxHistoryConfig * config)
{
  config->max_age = RTPCC_SEC (1);
  config->max_bytes = 4 * 1024 * 1024;
}

const gchar *
rtpcc_rtx_verdict_name (RtpccRtxVerdict verdict)
{
  switch (verdict) {
    case RTPCC_RTX_SEND:
      return "send";
    case RTPCC_RTX_UNKNOWN:
      return "unknown";
    case RTPCC_RTX_TOO_OLD:
      return "too-old";
    case RTPCC_RTX_TOO_SOON:
      return "too-soon";
    case RTPCC_RTX_RATE_LIMITED:
      return "rate-limited";
  }
  return "invalid";
}

static guint64
make_key (guint32 ssrc, guint16 seq)
{
  return ((guint64) ssrc << 16) | seq;
}

RtpccRtxHistory *
rtpcc_rtx_history_new (const RtpccRtxHistoryConfig * config)
{
  RtpccRtxHistory *h = g_new0 (RtpccRtxHistory, 1);

  if (config)
    h->config = *config;
  else
    rtpcc_rtx_history_config_init (&h->config);
  h->by_key = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_queue_init (&h->order);
  g_queue_init (&h->grants);
  return h;
}

static gsize
entry_charge (const Entry * e)
{
  return e->len + RTPCC_RTX_ENTRY_OVERHEAD;
}

static void
drop_entry (RtpccRtxHistory * h, Entry * e)
{
  g_hash_table_remove (h->by_key, &e->key);
  g_queue_delete_link (&h->order, e->link);
  h->stats.packets--;
  h->stats.bytes -= entry_charge (e);
  g_free (e);
}

void
rtpcc_rtx_history_free (RtpccRtxHistory * history)
{
  if (history == NULL)
    return;
  g_hash_table_destroy (history->by_key);
  g_queue_clear_full (&history->order, g_free);
  g_queue_clear_full (&history->grants, g_free);
  g_free (history);
}

void
rtpcc_rtx_history_expire (RtpccRtxHistory * history, RtpccTime now)
{
  Entry *e;

  while ((e = g_queue_peek_head (&history->order)) != NULL
      && now - e->sent >= history->config.max_age) {
    drop_entry (history, e);
    history->stats.expired++;
  }
}

gboolean
rtpcc_rtx_history_put (RtpccRtxHistory * history, RtpccTime now,
    const guint8 * pkt, gsize len)
{
  RtpccRtpLayout l;
  Entry *e, *old;
  guint64 key;

  if (pkt == NULL || !rtpcc_rtp_parse_layout (pkt, len, &l)) {
    history->stats.invalid++;
    return FALSE;
  }
  rtpcc_rtx_history_expire (history, now);
  key = make_key (l.ssrc, l.seq);
  old = g_hash_table_lookup (history->by_key, &key);
  if (old) {
    drop_entry (history, old);
    history->stats.replaced++;
  }

  e = g_malloc (sizeof (Entry) + len);
  e->key = key;
  e->sent = now;
  e->last_rtx = RTPCC_TIME_NONE;
  e->len = len;
  memcpy (e->data, pkt, len);
  g_queue_push_tail (&history->order, e);
  e->link = history->order.tail;
  g_hash_table_insert (history->by_key, &e->key, e);
  history->stats.packets++;
  history->stats.bytes += entry_charge (e);
  history->stats.stored++;

  /* the newest packet stays even if it alone is over the budget: a
   * history that cannot hold the last packet sent is no history */
  while (history->stats.bytes > history->config.max_bytes
      && history->order.head != history->order.tail) {
    drop_entry (history, g_queue_peek_head (&history->order));
    history->stats.evicted++;
  }
  return TRUE;
}

static void
expire_grants (RtpccRtxHistory * h, RtpccTime now)
{
  Grant *g;

  while ((g = g_queue_peek_head (&h->grants)) != NULL
      && now - g->at >= RTPCC_RTX_RATE_WINDOW) {
    h->granted_bytes -= g->bytes;
    g_free (g_queue_pop_head (&h->grants));
  }
}

RtpccRtxVerdict
rtpcc_rtx_history_request (RtpccRtxHistory * history, RtpccTime now,
    guint32 ssrc, guint16 seq, RtpccTime rtt, guint64 max_bitrate,
    const guint8 ** pkt, gsize * len)
{
  guint64 key = make_key (ssrc, seq);
  Entry *e;
  Grant *g;

  history->stats.requests++;
  rtpcc_rtx_history_expire (history, now);
  expire_grants (history, now);
  if (rtt == RTPCC_TIME_NONE || rtt <= 0)
    rtt = RTPCC_RTX_DEFAULT_RTT;

  e = g_hash_table_lookup (history->by_key, &key);
  if (e == NULL) {
    history->stats.unknown++;
    return RTPCC_RTX_UNKNOWN;
  }
  if (now + rtt / 2 >= e->sent + history->config.max_age) {
    history->stats.too_old++;
    return RTPCC_RTX_TOO_OLD;
  }
  if (e->last_rtx != RTPCC_TIME_NONE && now - e->last_rtx < rtt) {
    history->stats.too_soon++;
    return RTPCC_RTX_TOO_SOON;
  }
  /* bytes allowed in one window: max_bitrate / 8 × window */
  if (max_bitrate > 0 && (gdouble) (history->granted_bytes + e->len) >
      (gdouble) max_bitrate / 8.0 * RTPCC_TIME_AS_SEC (RTPCC_RTX_RATE_WINDOW)) {
    history->stats.rate_limited++;
    return RTPCC_RTX_RATE_LIMITED;
  }

  e->last_rtx = now;
  g = g_new (Grant, 1);
  g->at = now;
  g->bytes = e->len;
  g_queue_push_tail (&history->grants, g);
  history->granted_bytes += e->len;
  history->stats.retransmitted++;
  history->stats.retransmitted_bytes += e->len;
  if (pkt)
    *pkt = e->data;
  if (len)
    *len = e->len;
  return RTPCC_RTX_SEND;
}

void
rtpcc_rtx_history_get_stats (RtpccRtxHistory * history,
    RtpccRtxHistoryStats * stats)
{
  *stats = history->stats;
}

/* A call for the fuzz targets that need both ends: an RtpccSender with a
 * controller behind it, sending media, and an RtpccReceiver answering
 * with the feedback it builds (fuzz_sender_rtcp, fuzz_receiver_rtcp).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FUZZ_CALL_H__
#define __RTPCC_FUZZ_CALL_H__

#include "fuzz.h"

#include <string.h>

#define MEDIA_SSRC 0x11223344u

typedef struct
{
  RtpccSender *s;
  RtpccReceiver *r;
  RtpccTime now;
  guint16 seq;
  guint32 ts;
  /* what was sent and not yet shown to the receiver */
  GArray *sent;                 /* RtpccRtpInfo */
  guint64 max_bitrate;
  GByteArray *script;           /* seeds: the records, as they run */
} Call;

static inline void
call_init (Call * c, guint8 which, guint8 mode)
{
  gchar **names = rtpcc_controller_list ();
  guint n = g_strv_length (names);
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;

  memset (c, 0, sizeof (*c));
  rtpcc_sender_config_init (&sc);
  sc.controller = names[which % n];
  sc.feedback = (RtpccFeedbackMode) (mode % 3);
  sc.cc.start_bitrate = 1000000;
  sc.seed = 7;
  c->max_bitrate = sc.cc.max_bitrate;
  c->now = RTPCC_SEC (1);
  c->s = rtpcc_sender_new (&sc, c->now, NULL);
  FUZZ_CHECK (c->s != NULL);
  rtpcc_sender_set_free_func (c->s, (GDestroyNotify) g_bytes_unref);
  g_strfreev (names);
  rtpcc_receiver_config_init (&rc);
  rc.feedback = sc.feedback;
  rc.seed = 9;
  /* mode / 3 odd: the receiver sends every RTCP XR block it can */
  if ((mode / 3) & 1)
    rc.xr_blocks = RTPCC_RECEIVER_XR_ALL;
  c->r = rtpcc_receiver_new (&rc, c->now);
  c->sent = g_array_new (FALSE, FALSE, sizeof (RtpccRtpInfo));
}

static inline void
call_clear (Call * c)
{
  rtpcc_sender_free (c->s);
  rtpcc_receiver_free (c->r);
  g_array_unref (c->sent);
}

/* The packet as it went on the wire (egress.h): @w's head, then the
 * queued packet (@orig, NULL for a probe) from tail_offset on. */
static inline void
keep (Call * c, const RtpccWirePacket * w, GBytes * orig)
{
  guint8 wire[2048];
  gsize n = MIN (w->head_len, sizeof (wire)), olen = 0;
  const guint8 *o = orig ? g_bytes_get_data (orig, &olen) : NULL;
  RtpccRtpInfo info;

  memcpy (wire, w->head, n);
  if (o && olen > w->tail_offset) {
    gsize t = MIN (olen - w->tail_offset, sizeof (wire) - n);
    memcpy (wire + n, o + w->tail_offset, t);
    n += t;
  }
  /* (with the transport-wide seq in TWCC mode) */
  if (rtpcc_rtp_parse (wire, n, n, 1, &info, NULL))
    g_array_append_val (c->sent, info);
}

static inline void
send_due (Call * c)
{
  RtpccWirePacket w;
  guint8 buf[1500];

  for (guint i = 0; i < 256; i++) {
    GBytes *b = rtpcc_sender_dequeue (c->s, c->now, &w);
    if (!b)
      break;
    keep (c, &w, b);
    g_bytes_unref (b);
  }
  for (guint i = 0; i < 64 && rtpcc_sender_dequeue_probe (c->s, c->now, &w);
      i++)
    keep (c, &w, NULL);
  (void) rtpcc_sender_build_rtcp (c->s, c->now, buf, sizeof (buf));
}

static inline void
call_check (Call * c)
{
  const RtpccTarget *t = rtpcc_sender_get_target (c->s);

  FUZZ_CHECK (t->target_bitrate >= t->media_bitrate);
  FUZZ_CHECK (t->media_bitrate <= c->max_bitrate);
  (void) rtpcc_sender_get_stats (c->s, c->now);
}

/* Queues a media packet of @payload bytes (at most 1200); @marker ends a
 * frame. Then sends what is due. */
static inline void
call_media (Call * c, guint payload, gboolean marker)
{
  guint8 pkt[12 + 1200];
  guint size = 12 + MIN (payload, 1200);

  rtpcc_fuzz_rtp_header (pkt, 0, 96, c->seq++, c->ts, MEDIA_SSRC);
  if (marker) {
    pkt[1] |= 0x80;
    c->ts += 3000;
  }
  memset (pkt + 12, 0xab, size - 12);
  (void) rtpcc_sender_enqueue_rtp (c->s, c->now, pkt, size, size,
      g_bytes_new (pkt, size));
  send_due (c);
}

/* @dt passes; timers run, what is due is sent. */
static inline void
call_advance (Call * c, RtpccTime dt)
{
  c->now += dt;
  rtpcc_sender_tick (c->s, c->now);
  send_due (c);
}

/* The oldest @k packets sent reach the receiver; its feedback, if any is
 * due, goes to the sender (and into c->script as a record, if set). */
static inline void
call_deliver (Call * c, guint k)
{
  guint8 fb[1500];
  gsize n;

  k = MIN (k, c->sent->len);
  for (guint i = 0; i < k; i++) {
    RtpccRtpInfo *info = &g_array_index (c->sent, RtpccRtpInfo, i);
    (void) rtpcc_receiver_on_rtp (c->r, c->now, info);
  }
  g_array_remove_range (c->sent, 0, k);
  n = rtpcc_receiver_build_feedback (c->r, c->now, fb, sizeof (fb));
  if (n > 0) {
    FUZZ_CHECK (rtpcc_rtcp_is_rtcp (fb, n));
    if (c->script)
      rtpcc_fuzz_add_record (c->script, 0, fb, n);
    (void) rtpcc_sender_receive_rtcp (c->s, c->now, fb, n);
  }
}

/* The first two bytes of a record as a number (fewer: what there is). */
static inline guint
record_u16 (const guint8 * d, size_t len)
{
  return len >= 2 ? (guint) ((d[0] << 8) | d[1]) : len ? d[0] : 0;
}

typedef void (*CallStep) (Call * c, guint8 flags, const guint8 * d,
    size_t len);

/* The input (fuzz_sender_rtcp.c's format: controller, mode, records) run
 * through @step. */
static inline void
call_run (const uint8_t * data, size_t size, CallStep step)
{
  Call c;
  size_t at = 2;
  guint8 flags;
  const guint8 *d;
  size_t len;

  if (size < 2)
    return;
  call_init (&c, data[0], data[1]);
  while (rtpcc_fuzz_next_record (data, size, &at, &flags, &d, &len))
    step (&c, flags, d, len);
  call_clear (&c);
}

/* A seed from @make for each registered controller and feedback mode. */
static inline void
call_seeds (GPtrArray * seeds, GBytes * (*make) (guint8 which, guint8 mode))
{
  gchar **names = rtpcc_controller_list ();
  guint n = g_strv_length (names);

  g_strfreev (names);
  for (guint i = 0; i < n; i++)
    for (guint8 mode = 0; mode < 3; mode++)
      g_ptr_array_add (seeds, make ((guint8) i, mode));
}

#endif

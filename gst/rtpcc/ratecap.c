/* A receiver's maximum rate (TMMBR / REMB): see ratecap.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/ratecap.h>
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/tmmbr.h>
#include <rtpcc/feedback/remb.h>

#include <string.h>

struct _RtpccRateCap
{
  guint32 media_ssrc;
  RtpccTmmbrState tmmbr;
  guint64 remb;                 /* G_MAXUINT64: none */
  RtpccTime remb_time;          /* when the REMB in force arrived */
  gboolean tmmbn_due;
  RtpccRateCapStats stats;
};

RtpccRateCap *
rtpcc_rate_cap_new (guint32 media_ssrc)
{
  RtpccRateCap *cap = g_new0 (RtpccRateCap, 1);

  cap->media_ssrc = media_ssrc;
  rtpcc_tmmbr_state_init (&cap->tmmbr, media_ssrc);
  cap->remb = G_MAXUINT64;
  cap->stats.tmmbr_limit = cap->stats.remb_limit = G_MAXUINT64;
  return cap;
}

void
rtpcc_rate_cap_free (RtpccRateCap * cap)
{
  g_free (cap);
}

void
rtpcc_rate_cap_set_ssrc (RtpccRateCap * cap, guint32 media_ssrc)
{
  if (cap->media_ssrc == media_ssrc)
    return;
  /* requests were about the old stream */
  cap->media_ssrc = media_ssrc;
  rtpcc_tmmbr_state_init (&cap->tmmbr, media_ssrc);
  cap->tmmbn_due = FALSE;
  cap->stats.tmmbr_limit = G_MAXUINT64;
}

guint32
rtpcc_rate_cap_get_ssrc (const RtpccRateCap * cap)
{
  return cap->media_ssrc;
}

static gboolean
on_tmmbr (RtpccRateCap * cap, const RtpccRtcpPacket * pkt)
{
  g_autoptr (RtpccTmmb) t = NULL;
  GError *err = NULL;

  t = rtpcc_tmmbr_parse (pkt->data, pkt->len, &err);
  if (!t) {
    g_clear_error (&err);
    cap->stats.malformed++;
    return FALSE;
  }
  if (cap->media_ssrc == 0 || !rtpcc_tmmbr_state_on_tmmbr (&cap->tmmbr, t))
    return FALSE;
  /* a value no rate reaches withdraws the request (RFC 5104 has no
   * message of its own for it) */
  if (rtpcc_tmmbr_state_limit (&cap->tmmbr) != G_MAXUINT64)
    for (guint i = 0; i < t->n_entries; i++)
      if (t->entries[i].ssrc == cap->media_ssrc
          && t->entries[i].bitrate >= RTPCC_RATE_CAP_NONE) {
        rtpcc_tmmbr_state_remove (&cap->tmmbr, t->sender_ssrc);
        break;
      }
  cap->stats.tmmbr_received++;
  cap->stats.tmmbr_limit = rtpcc_tmmbr_state_limit (&cap->tmmbr);
  cap->tmmbn_due = TRUE;
  return TRUE;
}

static gboolean
on_remb (RtpccRateCap * cap, RtpccTime now, const RtpccRtcpPacket * pkt)
{
  RtpccRemb r;
  GError *err = NULL;

  /* FMT 15 is any application-layer feedback; only "REMB" is ours */
  if (pkt->body_len < 12 || memcmp (pkt->body + 8, "REMB", 4) != 0)
    return FALSE;
  if (!rtpcc_remb_parse (pkt->data, pkt->len, &r, &err)) {
    g_clear_error (&err);
    cap->stats.malformed++;
    return FALSE;
  }
  if (cap->media_ssrc == 0 || !rtpcc_remb_names (&r, cap->media_ssrc))
    return FALSE;
  /* the latest estimate replaces the earlier; it holds until the next,
   * or until rtpcc_rate_cap_expire finds the receiver silent */
  cap->remb = r.bitrate;
  cap->remb_time = now;
  cap->stats.remb_received++;
  cap->stats.remb_limit = r.bitrate;
  return TRUE;
}

gboolean
rtpcc_rate_cap_receive (RtpccRateCap * cap, RtpccTime now,
    const guint8 * data, gsize len)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  gboolean ours = FALSE;

  if (!rtpcc_rtcp_iter_init (&it, data, len))
    return FALSE;
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    if (pkt.pt == RTPCC_RTCP_RTPFB && pkt.count == RTPCC_RTPFB_FMT_TMMBR)
      ours |= on_tmmbr (cap, &pkt);
    else if (pkt.pt == RTPCC_RTCP_PSFB && pkt.count == RTPCC_PSFB_FMT_AFB)
      ours |= on_remb (cap, now, &pkt);
  }
  return ours;
}

gboolean
rtpcc_rate_cap_expire (RtpccRateCap * cap, RtpccTime now)
{
  if (cap->remb == G_MAXUINT64
      || now - cap->remb_time < RTPCC_RATE_CAP_REMB_TIMEOUT)
    return FALSE;
  cap->remb = G_MAXUINT64;
  cap->stats.remb_limit = G_MAXUINT64;
  cap->stats.remb_expired++;
  return TRUE;
}

guint64
rtpcc_rate_cap_limit (const RtpccRateCap * cap)
{
  return MIN (rtpcc_tmmbr_state_limit (&cap->tmmbr), cap->remb);
}

gboolean
rtpcc_rate_cap_apply (const RtpccRateCap * cap, RtpccTarget * t)
{
  guint64 limit = rtpcc_rate_cap_limit (cap);
  gdouble k;

  if (t->target_bitrate <= limit)
    return FALSE;
  k = (gdouble) limit / (gdouble) t->target_bitrate;
  t->target_bitrate = limit;
  t->fec_bitrate = (guint64) (t->fec_bitrate * k);
  t->media_bitrate = limit - MIN (limit, t->fec_bitrate);
  t->pacing_rate = MAX (limit, (guint64) (t->pacing_rate * k));
  t->reason = limit == cap->remb ? "remb-limit" : "tmmbr-limit";
  return TRUE;
}

gboolean
rtpcc_rate_cap_tmmbn_due (const RtpccRateCap * cap)
{
  return cap->tmmbn_due;
}

gsize
rtpcc_rate_cap_write_tmmbn (RtpccRateCap * cap, guint8 * buf, gsize max)
{
  gsize n;

  if (!cap->tmmbn_due)
    return 0;
  n = rtpcc_tmmbr_state_write_tmmbn (&cap->tmmbr, buf, max, cap->media_ssrc);
  if (n > 0) {
    cap->tmmbn_due = FALSE;
    cap->stats.tmmbn_sent++;
  }
  return n;
}

const RtpccRateCapStats *
rtpcc_rate_cap_get_stats (const RtpccRateCap * cap)
{
  return &cap->stats;
}

/* RtpccRtxReceiver: RTX restore + repair planner + NACK/PLI/FIR writer
 * (rtxreceiver.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "rtxreceiver.h"
#include "rtx.h"
#include "packet.h"
#include "feedback/nack.h"
#include "feedback/psfb.h"
#include "feedback/rtpext.h"

#include <string.h>

struct _RtpccRtxReceiver
{
  RtpccRtxReceiverConfig config;
  RtpccRepair *planner;
  guint32 rtx_ssrc;             /* 0 until learnt */
  guint32 media_ssrc;           /* 0 until learnt */
  gboolean have_media_pt;
  guint8 media_pt;
  RtpccTime media_last;
  RtpccRtxReceiverStats stats;
};

void
rtpcc_rtx_receiver_config_init (RtpccRtxReceiverConfig * config)
{
  memset (config, 0, sizeof *config);
  rtpcc_repair_config_init (&config->repair);
}

RtpccRtxReceiver *
rtpcc_rtx_receiver_new (const RtpccRtxReceiverConfig * config,
    GError ** error)
{
  RtpccRtxReceiver *r;
  RtpccRepairConfig rc = config->repair;
  RtpccRepair *planner;

  if (config->rtx_pt > 127) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "RTX payload type %u is over 127", config->rtx_pt);
    return NULL;
  }
  if (!config->nack)
    rc.max_nacks = 0;
  planner = rtpcc_repair_new (&rc, error);
  if (!planner)
    return NULL;
  r = g_new0 (RtpccRtxReceiver, 1);
  r->config = *config;
  r->config.repair = rc;
  r->planner = planner;
  r->rtx_ssrc = config->rtx_ssrc;
  r->media_ssrc = config->media_ssrc;
  r->media_last = RTPCC_TIME_NONE;
  return r;
}

void
rtpcc_rtx_receiver_free (RtpccRtxReceiver * r)
{
  if (!r)
    return;
  rtpcc_repair_free (r->planner);
  g_free (r);
}

static gboolean
is_rtx (RtpccRtxReceiver * r, const RtpccRtpInfo * info)
{
  if (r->config.rtx_pt == 0 || info->pt != r->config.rtx_pt
      || info->ssrc == r->media_ssrc)
    return FALSE;
  if (r->rtx_ssrc == 0)
    r->rtx_ssrc = info->ssrc;
  return info->ssrc == r->rtx_ssrc;
}

static RtpccRtxReceiverVerdict
on_rtx (RtpccRtxReceiver * r, RtpccTime now, const guint8 * data, gsize len,
    guint8 * out, gsize max, gsize * out_len)
{
  RtpccRtpInfo orig;
  RtpccRepairStats before, after;
  RtpccTime deadline;
  gsize n;

  r->stats.rtx_received++;
  if (r->media_ssrc == 0 || !r->have_media_pt) {
    r->stats.rtx_invalid++;
    return RTPCC_RTX_RECEIVER_DROP;
  }
  n = rtpcc_rtx_restore (data, len, r->media_ssrc, r->media_pt, out, max,
      NULL);
  if (n == 0 || !rtpcc_rtp_parse (out, n, n, 0, &orig, NULL)) {
    r->stats.rtx_invalid++;
    return RTPCC_RTX_RECEIVER_DROP;
  }
  rtpcc_repair_get_stats (r->planner, &before);
  rtpcc_repair_on_packet (r->planner, now, r->media_ssrc, orig.seq,
      orig.rtp_ts, orig.marker, RTPCC_REPAIR_RTX);
  rtpcc_repair_get_stats (r->planner, &after);
  if (after.recovered_rtx > before.recovered_rtx) {
    r->stats.rtx_recovered++;
    *out_len = n;
    return RTPCC_RTX_RECEIVER_RESTORED;
  }
  /* not missing: either given up (its frame is played) or there already */
  deadline = rtpcc_repair_deadline (r->planner, orig.rtp_ts);
  if (deadline != RTPCC_TIME_NONE && now >= deadline)
    r->stats.rtx_late++;
  else
    r->stats.rtx_duplicate++;
  return RTPCC_RTX_RECEIVER_DROP;
}

RtpccRtxReceiverVerdict
rtpcc_rtx_receiver_on_rtp (RtpccRtxReceiver * r, RtpccTime now,
    const guint8 * data, gsize len, gsize size, guint8 * out, gsize max,
    gsize * out_len)
{
  RtpccRtpInfo info;

  *out_len = 0;
  if (!rtpcc_rtp_parse (data, len, MAX (size, len), 0, &info, NULL))
    return RTPCC_RTX_RECEIVER_PASS;
  if (is_rtx (r, &info))
    return on_rtx (r, now, data, len, out, max, out_len);
  if (info.ssrc != r->media_ssrc) {
    gboolean silent = r->media_last == RTPCC_TIME_NONE
        || now - r->media_last > RTPCC_RTX_RECEIVER_MEDIA_TIMEOUT;
    if (info.padding_only || !silent || (r->config.media_ssrc != 0
            && r->media_ssrc != 0))
      return RTPCC_RTX_RECEIVER_PASS;
    r->media_ssrc = info.ssrc;
    r->have_media_pt = FALSE;
  }
  r->media_last = now;
  if (!info.padding_only) {
    r->media_pt = info.pt;
    r->have_media_pt = TRUE;
  }
  rtpcc_repair_on_packet (r->planner, now, info.ssrc, info.seq, info.rtp_ts,
      info.marker, RTPCC_REPAIR_ORIGINAL);
  return RTPCC_RTX_RECEIVER_PASS;
}

void
rtpcc_rtx_receiver_on_keyframe_request (RtpccRtxReceiver * r, RtpccTime now)
{
  r->stats.keyframe_requests_downstream++;
  if (r->media_ssrc != 0)
    rtpcc_repair_on_corrupt (r->planner, now);
}

void
rtpcc_rtx_receiver_set_playout_delay (RtpccRtxReceiver * r, RtpccTime delay)
{
  rtpcc_repair_set_playout_delay (r->planner, delay);
}

gsize
rtpcc_rtx_receiver_build (RtpccRtxReceiver * r, RtpccTime now,
    guint32 sender_ssrc, guint8 * buf, gsize max)
{
  RtpccRepairRequest req;
  gsize off = 0, n;

  if (!rtpcc_repair_poll (r->planner, now, &req))
    return 0;
  if (req.n_nack > 0 && r->config.nack) {
    n = rtpcc_nack_write_seqs (buf, max, sender_ssrc, req.ssrc, req.nack,
        req.n_nack);
    if (n > 0) {
      r->stats.nacks_sent++;
      r->stats.nacked_packets += req.n_nack;
      off += n;
    }
  }
  if (req.keyframe && r->config.keyframe == RTPCC_KEYFRAME_REQUEST_PLI) {
    n = rtpcc_pli_write (buf + off, max - off, sender_ssrc, req.ssrc);
    if (n > 0) {
      r->stats.plis_sent++;
      off += n;
    }
  } else if (req.keyframe && r->config.keyframe == RTPCC_KEYFRAME_REQUEST_FIR) {
    RtpccFirEntry e = { req.ssrc, req.fir_seq };
    n = rtpcc_fir_write (buf + off, max - off, sender_ssrc, &e, 1);
    if (n > 0) {
      r->stats.firs_sent++;
      off += n;
    }
  }
  return off;
}

RtpccTime
rtpcc_rtx_receiver_next_timeout (RtpccRtxReceiver * r)
{
  return rtpcc_repair_next_timeout (r->planner);
}

void
rtpcc_rtx_receiver_get_stats (RtpccRtxReceiver * r,
    RtpccRtxReceiverStats * stats)
{
  *stats = r->stats;
  rtpcc_repair_get_stats (r->planner, &stats->repair);
}

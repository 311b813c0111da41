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
#include "fec/fec.h"

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

  /* key frames: the first seq of the frame now arriving */
  gboolean have_frame;
  guint32 frame_ts;
  guint16 frame_first, frame_last;
  gboolean have_key_ts;
  guint32 key_ts;               /* the latest key frame reported */

  /* repair packets seen per FEC block (RS rows), a small ring */
  struct
  {
    guint32 ssrc;
    guint16 base;
    guint64 mask;
    guint32 rows;               /* bit i: parity row i in */
  } fec_blocks[16];
  guint fec_next;

  RtpccRtxReceiverStats stats;
};

void
rtpcc_rtx_receiver_config_init (RtpccRtxReceiverConfig * config)
{
  memset (config, 0, sizeof *config);
  config->codec = RTPCC_SENDBUF_CODEC_OTHER;
  config->fec_pt = -1;
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
  if (config->fec_pt > 127) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "FEC payload type %d is over 127", config->fec_pt);
    return NULL;
  }
  if (config->rtx_pt != 0 && config->fec_pt == config->rtx_pt) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "FEC and RTX have the same payload type %d", config->fec_pt);
    return NULL;
  }
  if (!config->nack)
    rc.max_nacks = 0;
  /* H.264 and VP8 payloaders set the marker on a frame's last packet
   * (RFC 6184 §5.1, RFC 7741 §4.1): a frame without it goes on */
  if (config->codec != RTPCC_SENDBUF_CODEC_OTHER) {
    rc.keyframe_feedback = TRUE;
    rc.tail_probe = TRUE;
  }
  if (config->fec_pt >= 0)
    rc.fec_downstream = TRUE;
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

/* The payload of a parsed packet (@hdr_len header bytes), without its
 * padding when the whole packet is at hand. */
static gsize
payload_len (const guint8 * data, gsize len, gsize size, gsize hdr_len)
{
  gsize n = len - hdr_len;

  if ((data[0] & 0x20) && len == size && len > hdr_len)
    n -= MIN (n, (gsize) data[len - 1]);
  return n;
}

/* A media packet (original or restored): the frame it starts, and
 * whether a key frame arrived. */
static void
check_keyframe (RtpccRtxReceiver * r, RtpccTime now, const guint8 * data,
    gsize len, gsize size, gsize hdr_len, const RtpccRtpInfo * info,
    gboolean original)
{
  guint16 first = info->seq;

  if (original) {
    /* a frame starts after the last packet of another timestamp: losses
     * between them may be its first packets, so they stay missing */
    if (!r->have_frame || info->rtp_ts != r->frame_ts) {
      if (r->have_frame && (gint16) (info->seq - r->frame_last) > 0)
        r->frame_first = (guint16) (r->frame_last + 1);
      else
        r->frame_first = info->seq;
      r->have_frame = TRUE;
      r->frame_ts = info->rtp_ts;
    }
    if ((gint16) (info->seq - r->frame_last) > 0 || r->frame_first == info->seq)
      r->frame_last = info->seq;
  }
  if (r->config.codec == RTPCC_SENDBUF_CODEC_OTHER)
    return;
  if (!rtpcc_frametype_has_keyframe (r->config.codec, data + hdr_len,
          payload_len (data, len, size, hdr_len)))
    return;
  if (r->have_key_ts && r->key_ts == info->rtp_ts)
    return;                     /* this key frame is known */
  r->have_key_ts = TRUE;
  r->key_ts = info->rtp_ts;
  if (r->have_frame && r->frame_ts == info->rtp_ts
      && (gint16) (info->seq - r->frame_first) >= 0)
    first = r->frame_first;
  rtpcc_repair_on_keyframe (r->planner, now, first);
}

/* A fec_pt packet: tell the planner what it protects. */
static void
on_fec (RtpccRtxReceiver * r, RtpccTime now, const guint8 * data, gsize len,
    gsize size, gboolean ulpfec)
{
  RtpccFecPacket pkt;
  guint16 seqs[RTPCC_FEC_MAX_SPAN];
  guint n, slot, rows;
  gboolean ok, complete;

  if (len < size) {
    r->stats.fec_invalid++;     /* a header only: nothing to read */
    return;
  }
  ok = ulpfec ? rtpcc_fec_packet_parse_ulpfec (data, len, &pkt, NULL) :
      rtpcc_fec_packet_parse (data, len, &pkt, NULL);
  if (!ok) {
    r->stats.fec_invalid++;
    return;
  }
  if (pkt.ssrc != r->media_ssrc) {
    rtpcc_fec_packet_clear (&pkt);
    return;
  }
  r->stats.fec_packets++;
  n = rtpcc_fec_mask_seqs (pkt.mask, pkt.base, seqs);
  for (slot = 0; slot < G_N_ELEMENTS (r->fec_blocks); slot++)
    if (r->fec_blocks[slot].rows != 0 && r->fec_blocks[slot].ssrc == pkt.ssrc
        && r->fec_blocks[slot].base == pkt.base
        && r->fec_blocks[slot].mask == pkt.mask)
      break;
  if (slot == G_N_ELEMENTS (r->fec_blocks)) {
    slot = r->fec_next;
    r->fec_next = (r->fec_next + 1) % G_N_ELEMENTS (r->fec_blocks);
    r->fec_blocks[slot].ssrc = pkt.ssrc;
    r->fec_blocks[slot].base = pkt.base;
    r->fec_blocks[slot].mask = pkt.mask;
    r->fec_blocks[slot].rows = 0;
  }
  r->fec_blocks[slot].rows |= 1u << MIN (pkt.index, 31);
  rows = 0;
  for (guint32 b = r->fec_blocks[slot].rows; b != 0; b &= b - 1)
    rows++;
  /* XOR: one packet per block; RS rows leave in order, so the last row
   * (or all of them) means the rest is lost or in */
  complete = pkt.m <= 1 || rows >= pkt.m || pkt.index + 1 >= pkt.m;
  rtpcc_repair_on_fec_parity (r->planner, now, seqs, n, rows, complete);
  rtpcc_fec_packet_clear (&pkt);
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
    gsize hdr_len;

    r->stats.rtx_recovered++;
    if (rtpcc_rtp_header_size (out, n, &hdr_len))
      check_keyframe (r, now, out, n, n, hdr_len, &orig, FALSE);
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
  gsize hdr_len = 0;
  gboolean fec;

  *out_len = 0;
  if (!rtpcc_rtp_parse (data, len, MAX (size, len), 0, &info, &hdr_len))
    return RTPCC_RTX_RECEIVER_PASS;
  if (is_rtx (r, &info))
    return on_rtx (r, now, data, len, out, max, out_len);
  fec = r->config.fec_pt >= 0 && info.pt == r->config.fec_pt;
  if (fec && info.ssrc != r->media_ssrc) {
    /* FEC on its own SSRC never becomes the media stream */
    if (r->media_ssrc != 0)
      on_fec (r, now, data, len, MAX (size, len), FALSE);
    return RTPCC_RTX_RECEIVER_PASS;
  }
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
  if (!info.padding_only && !fec) {
    r->media_pt = info.pt;
    r->have_media_pt = TRUE;
  }
  /* ULPFEC shares the media's sequence space: the planner sees it */
  if (info.padding_only || fec)
    rtpcc_repair_on_padding (r->planner, now, info.ssrc, info.seq,
        info.rtp_ts);
  else
    rtpcc_repair_on_packet (r->planner, now, info.ssrc, info.seq,
        info.rtp_ts, info.marker, RTPCC_REPAIR_ORIGINAL);
  if (fec)
    on_fec (r, now, data, len, MAX (size, len), TRUE);
  else if (!info.padding_only)
    check_keyframe (r, now, data, len, MAX (size, len), hdr_len, &info, TRUE);
  return RTPCC_RTX_RECEIVER_PASS;
}

void
rtpcc_rtx_receiver_on_keyframe_request (RtpccRtxReceiver * r, RtpccTime now)
{
  r->stats.keyframe_requests_downstream++;
  if (r->media_ssrc != 0)
    rtpcc_repair_on_corrupt (r->planner, now);
}

guint
rtpcc_rtx_receiver_get_missing (RtpccRtxReceiver * rx, guint16 * seqs,
    guint max)
{
  return rtpcc_repair_get_missing (rx->planner, seqs, max);
}

gboolean
rtpcc_rtx_receiver_recovered_elsewhere (RtpccRtxReceiver * rx, RtpccTime now,
    guint16 seq)
{
  return rtpcc_repair_on_recovered_elsewhere (rx->planner, now, seq);
}

guint32
rtpcc_rtx_receiver_get_media_ssrc (RtpccRtxReceiver * rx)
{
  return rx->media_ssrc;
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

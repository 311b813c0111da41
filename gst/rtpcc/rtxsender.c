/* RtpccRtxSender: NACK → RTX, PLI / FIR → key-frame request (rtxsender.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "rtxsender.h"
#include "rng.h"
#include "feedback/rtcp.h"
#include "feedback/nack.h"
#include "feedback/psfb.h"
#include "feedback/rtpext.h"
#include "packet.h"

#include <string.h>

struct _RtpccRtxSender
{
  RtpccRtxSenderConfig config;
  RtpccRtxHistory *history;
  guint32 rtx_ssrc;
  guint16 rtx_seq;
  guint n_ssrcs;
  guint next_ssrc;              /* slot replaced when full */
  guint32 ssrcs[RTPCC_RTX_SENDER_MAX_SSRCS];
  RtpccFirTracker fir;
  RtpccKeyframeGate gate;
  RtpccRtxSenderStats stats;
  /* the RTX packet being built: grown to the largest answered, so a call
   * holds what its packets need, not the largest datagram possible */
  guint8 *out;
  gsize out_size;
};

void
rtpcc_rtx_sender_config_init (RtpccRtxSenderConfig * config)
{
  memset (config, 0, sizeof *config);
  rtpcc_rtx_history_config_init (&config->history);
}

RtpccRtxSender *
rtpcc_rtx_sender_new (const RtpccRtxSenderConfig * config)
{
  RtpccRtxSender *s = g_new0 (RtpccRtxSender, 1);
  RtpccRng rng;

  s->config = *config;
  if (s->config.rtx_pt > 127)
    s->config.rtx_pt = 0;
  rtpcc_rng_init_stream (&rng, config->seed, 0x525458);
  s->rtx_ssrc = config->rtx_ssrc;
  while (s->rtx_ssrc == 0)
    s->rtx_ssrc = (guint32) rtpcc_rng_next_u64 (&rng);
  /* RFC 3550 §5.1: a random initial sequence number, as for any stream */
  s->rtx_seq = (guint16) rtpcc_rng_next_u64 (&rng);
  if (s->config.rtx_pt != 0)
    s->history = rtpcc_rtx_history_new (&s->config.history);
  rtpcc_fir_tracker_init (&s->fir);
  rtpcc_keyframe_gate_init (&s->gate);
  return s;
}

void
rtpcc_rtx_sender_free (RtpccRtxSender * s)
{
  if (!s)
    return;
  if (s->history)
    rtpcc_rtx_history_free (s->history);
  g_free (s->out);
  g_free (s);
}

guint32
rtpcc_rtx_sender_get_rtx_ssrc (const RtpccRtxSender * s)
{
  return s->rtx_ssrc;
}

guint8
rtpcc_rtx_sender_get_rtx_pt (const RtpccRtxSender * s)
{
  return s->config.rtx_pt;
}

static gboolean
is_ours (const RtpccRtxSender * s, guint32 ssrc)
{
  for (guint i = 0; i < s->n_ssrcs; i++)
    if (s->ssrcs[i] == ssrc)
      return TRUE;
  return FALSE;
}

static void
note_ssrc (RtpccRtxSender * s, guint32 ssrc)
{
  if (is_ours (s, ssrc))
    return;
  if (s->n_ssrcs < RTPCC_RTX_SENDER_MAX_SSRCS) {
    s->ssrcs[s->n_ssrcs++] = ssrc;
  } else {
    s->ssrcs[s->next_ssrc] = ssrc;
    s->next_ssrc = (s->next_ssrc + 1) % RTPCC_RTX_SENDER_MAX_SSRCS;
  }
}

void
rtpcc_rtx_sender_on_sent_ssrc (RtpccRtxSender * s, guint32 ssrc)
{
  if (ssrc != s->rtx_ssrc)
    note_ssrc (s, ssrc);
}

void
rtpcc_rtx_sender_on_sent (RtpccRtxSender * s, RtpccTime now,
    const guint8 * pkt, gsize len, gsize size)
{
  RtpccRtpInfo info;

  if (!rtpcc_rtp_parse (pkt, len, MAX (size, len), 0, &info, NULL)
      || info.ssrc == s->rtx_ssrc)
    return;
  /* a probe on the media SSRC still makes it ours (a PLI may name it),
   * but there is nothing in it worth retransmitting */
  rtpcc_rtx_sender_on_sent_ssrc (s, info.ssrc);
  if (!s->history || info.padding_only)
    return;
  rtpcc_rtx_history_put (s->history, now, pkt, len);
}

static void
on_nack (RtpccRtxSender * s, RtpccTime now, const RtpccRtcpPacket * p,
    RtpccTime rtt, guint64 max_bitrate, RtpccRtxSendFunc send,
    gpointer user_data)
{
  g_autoptr (GError) err = NULL;
  g_autoptr (RtpccNack) nack = rtpcc_nack_parse (p->data, p->len, &err);
  guint16 seqs[17], done[256];
  guint n_done = 0;

  if (!nack) {
    s->stats.rtcp_malformed++;
    return;
  }
  if (!is_ours (s, nack->media_ssrc)) {
    s->stats.rtcp_foreign++;
    return;
  }
  s->stats.nacks_received++;
  for (guint f = 0; f < nack->n_fci; f++) {
    guint n = rtpcc_nack_fci_seqs (nack->fci[f], seqs);
    for (guint i = 0; i < n; i++) {
      const guint8 *orig;
      gsize orig_len, rtx_len;
      RtpccRtxVerdict v;
      gboolean dup = FALSE;

      /* FCIs may overlap: a seq named twice in one NACK is one request */
      for (guint j = 0; j < n_done && !dup; j++)
        dup = done[j] == seqs[i];
      if (dup)
        continue;
      if (n_done < G_N_ELEMENTS (done))
        done[n_done++] = seqs[i];
      s->stats.nacked_packets++;
      if (!s->history) {
        s->stats.rtx_off++;
        s->stats.rtx_dropped++;
        continue;
      }
      v = rtpcc_rtx_history_request (s->history, now, nack->media_ssrc,
          seqs[i], rtt, max_bitrate, &orig, &orig_len);
      switch (v) {
        case RTPCC_RTX_SEND:
          if (s->out_size < orig_len + RTPCC_RTX_OSN_SIZE) {
            s->out_size = orig_len + RTPCC_RTX_OSN_SIZE;
            s->out = g_realloc (s->out, s->out_size);
          }
          rtx_len = rtpcc_rtx_build (orig, orig_len, s->rtx_ssrc,
              s->config.rtx_pt, s->rtx_seq, s->out, s->out_size);
          if (rtx_len == 0) {
            s->stats.rtx_dropped++;
            break;
          }
          s->rtx_seq++;
          s->stats.rtx_sent++;
          s->stats.rtx_bytes += rtx_len;
          send (s->out, rtx_len, user_data);
          break;
        case RTPCC_RTX_UNKNOWN:
          s->stats.rtx_unknown++;
          s->stats.rtx_dropped++;
          break;
        case RTPCC_RTX_TOO_OLD:
          s->stats.rtx_too_old++;
          s->stats.rtx_dropped++;
          break;
        case RTPCC_RTX_TOO_SOON:
          s->stats.rtx_too_soon++;
          s->stats.rtx_dropped++;
          break;
        case RTPCC_RTX_RATE_LIMITED:
          s->stats.rtx_over_budget++;
          s->stats.rtx_dropped++;
          break;
      }
    }
  }
}

static gboolean
keyframe (RtpccRtxSender * s, RtpccTime now, RtpccTime rtt)
{
  if (rtpcc_keyframe_gate_pass (&s->gate, now, rtt)) {
    s->stats.keyunit_requests++;
    return TRUE;
  }
  s->stats.keyunit_suppressed++;
  return FALSE;
}

gboolean
rtpcc_rtx_sender_on_rtcp (RtpccRtxSender * s, RtpccTime now,
    const guint8 * data, gsize len, RtpccTime rtt, guint64 max_bitrate,
    RtpccRtxSendFunc send, gpointer user_data, gboolean * all_headers)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket p;
  gboolean request = FALSE, fir_asked = FALSE;

  if (all_headers)
    *all_headers = FALSE;
  if (!rtpcc_rtcp_iter_init (&it, data, len))
    return FALSE;
  while (rtpcc_rtcp_iter_next (&it, &p)) {
    if (p.pt == RTPCC_RTCP_RTPFB && p.count == RTPCC_NACK_FMT) {
      on_nack (s, now, &p, rtt, max_bitrate, send, user_data);
    } else if (p.pt == RTPCC_RTCP_PSFB && p.count == RTPCC_PSFB_FMT_PLI) {
      guint32 media;
      if (!rtpcc_pli_parse (p.data, p.len, NULL, &media, NULL)) {
        s->stats.rtcp_malformed++;
      } else if (!is_ours (s, media)) {
        s->stats.rtcp_foreign++;
      } else {
        s->stats.plis_received++;
        request |= keyframe (s, now, rtt);
      }
    } else if (p.pt == RTPCC_RTCP_PSFB && p.count == RTPCC_PSFB_FMT_FIR) {
      g_autoptr (RtpccFir) fir = rtpcc_fir_parse (p.data, p.len, NULL);
      if (!fir) {
        s->stats.rtcp_malformed++;
        continue;
      }
      for (guint i = 0; i < fir->n_entries; i++) {
        if (!is_ours (s, fir->entries[i].ssrc)) {
          s->stats.rtcp_foreign++;
          continue;
        }
        s->stats.firs_received++;
        /* RFC 5104 §4.3.1.2: a repeated command number is a repetition
         * of a request already served */
        if (!rtpcc_fir_tracker_is_new (&s->fir, fir->sender_ssrc,
                fir->entries[i].seq)) {
          s->stats.keyunit_suppressed++;
          continue;
        }
        if (keyframe (s, now, rtt)) {
          request = TRUE;
          fir_asked = TRUE;
        }
      }
    }
  }
  if (all_headers)
    *all_headers = fir_asked;
  return request;
}

void
rtpcc_rtx_sender_get_stats (const RtpccRtxSender * s,
    RtpccRtxSenderStats * stats)
{
  *stats = s->stats;
}

/* The receiver's state, shared by receiver.c (packets, RR, feedback) and
 * receiver-reports.c (the report blocks beside the RR: RTCP XR and MPRTCP
 * subflow reports). Internal to the library.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_RECEIVER_PRIVATE_H__
#define __RTPCC_RECEIVER_PRIVATE_H__

#include <rtpcc/receiver.h>
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/arrivallog.h>
#include <rtpcc/feedback/twcc.h>
#include <rtpcc/feedback/xr.h>
#include <rtpcc/rng.h>
#include <rtpcc/rembestimator.h>
#include <rtpcc/naduestimator.h>

G_BEGIN_DECLS

typedef struct
{
  RtpccRtpSourceStats stats;
  guint32 clock_rate;
  guint32 lsr;                  /* middle 32 bits of the last SR's NTP */
  RtpccTime last_sr_arrival;
  GArray *discards;             /* guint16 seqs awaiting a Discard RLE */
  guint32 discards_total;       /* marked ever (MPRTCP Discard Count) */
  RtpccTime last_heard;         /* last RTP packet */
  gboolean media;               /* a packet with payload came on it */
  gboolean subflow;             /* counted on a path's FSSN (MPRTP) */

  /* XR beyond Discard RLE (config xr_blocks) */
  gboolean xr_started;
  guint64 xr_next;              /* first extended seq the next Loss /
                                 * Post-repair RLE covers */
  guint8 *repaired;             /* bitmap of 2^16 seqs marked repaired */
  guint32 *sizes;               /* seq << 16 | size, at seq % SIZE_RING */
  guint64 discarded, discarded_bytes;
  /* the de-jitter buffer's state (rtpcc_receiver_set_dejitter): the
   * latest nominal / maximum, and the water marks since the last block */
  gboolean have_djb, djb_adaptive;
  RtpccTime djb_nominal, djb_maximum, djb_high, djb_low;
  guint64 xr_turn;              /* the XR packet it last went in, 0 never */
} Source;

/* packet sizes kept for Bytes Discarded: a discard is marked well within
 * this many packets of its arrival (a playout delay's worth) */
#define SIZE_RING 4096
#define RTP_FIXED_HEADER 12


struct _RtpccReceiver
{
  RtpccReceiverConfig config;
  gchar *cname;
  RtpccRng rng;
  guint32 ssrc;

  GHashTable *sources;          /* ssrc → Source* */
  /* one path of a multipath stream: its subflow ID, or -1 (mprtp/ext.h) */
  gint mprtp_subflow;
  gboolean mprtp_next;          /* the next packet is numbered by FSSN */
  RtpccPeer *peer;              /* where the media comes from (on_*_from) */
  RtpccArrivalLog *log;
  RtpccTwccRecorder *twcc;      /* TWCC mode */
  guint32 twcc_media_ssrc;      /* the media SSRC TWCC feedback names */

  gboolean have_media;
  gboolean new_since_feedback;
  guint pending;                /* new packets since the last CCFB */
  RtpccTime next_feedback;
  RtpccTime next_rr;
  RtpccTime rr_interval;        /* config, or shorter on request */
  /* our maximum (TMMBR, RFC 5104): 0 none; sent with each RR until a
   * TMMBN shows the sender has it */
  guint64 max_bitrate;
  gboolean tmmbr_pending;
  RtpccTime last_early;         /* last early RR, or NONE */
  /* config remb: the estimate of remb_ssrc (the first media SSRC) */
  RtpccRembEstimator *remb;
  guint32 remb_ssrc;
  /* config nadu: the C-NADU estimate of nadu_ssrc (the first media SSRC) */
  RtpccNaduEstimator *nadu;
  guint32 nadu_ssrc;
  /* the application marks discards (its playout buffer knows them): the
   * estimator's missed frames are then not marked; marking_own while it
   * marks them */
  gboolean app_discards, marking_own;
  /* the application's next unit (set_nadu_next): at, NONE if never */
  RtpccTime nadu_app_at, nadu_app_due;
  guint16 nadu_app_seq;
  RtpccTime last_rr;            /* last RR sent, or NONE */

  /* frame interval from marker bits, for the adaptive CCFB interval */
  RtpccTime last_marker;
  RtpccTime frame_interval;

  RtpccTime rate_window_start;
  guint64 rate_window_bytes;

  RtpccReceiverStats stats;
  guint64 lost_evicted;         /* RFC 3550 losses of evicted sources */

  guint64 xr_packets;           /* XR packets of write_xr_metrics sent */
  /* RTT samples since the last XR Delay Metrics block */
  RtpccTime rtt_min, rtt_max;
  gdouble rtt_sum;
  guint rtt_n;
};

/* The source @ssrc, created if @create (evicting the stalest when full). */
Source *rtpcc_receiver_get_source (RtpccReceiver * r, guint32 ssrc,
    gboolean create, RtpccTime now);
/* Report blocks written after the RR and SDES; each returns the bytes
 * written into @buf (0 when nothing is due or it does not fit). */
/* receiver-remb.c */
void rtpcc_receiver_remb_on_rtp (RtpccReceiver * r, RtpccTime now,
    const RtpccRtpInfo * info, guint clock_rate);
gsize rtpcc_receiver_write_remb (RtpccReceiver * r, RtpccTime now,
    guint8 * buf, gsize max);
/* receiver-nadu.c */
void rtpcc_receiver_nadu_on_rtp (RtpccReceiver * r, RtpccTime now,
    const RtpccRtpInfo * info, guint clock_rate);
gsize rtpcc_receiver_write_nadu (RtpccReceiver * r, RtpccTime now,
    guint8 * buf, gsize max);

gsize rtpcc_receiver_write_discards (RtpccReceiver * r, guint8 * buf,
    gsize max);
gsize rtpcc_receiver_write_xr_metrics (RtpccReceiver * r, guint8 * buf,
    gsize max);
gsize rtpcc_receiver_write_subflow_reports (RtpccReceiver * r,
    const RtpccRtcpRR * rr, guint8 * buf, gsize max);

G_END_DECLS

#endif

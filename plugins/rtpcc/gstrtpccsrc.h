/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_RTPCC_SRC_H__
#define __GST_RTPCC_SRC_H__

#include <gst/gst.h>
#include <rtpcc/mprtp/repairseq.h>
#include <gst/base/gstpushsrc.h>
#include <gio/gio.h>
#include <rtpcc/receiver.h>
#include <rtpcc/rtxreceiver.h>
#include "rtpcctimebase.h"
#include "gstrtpccsrtp.h"

G_BEGIN_DECLS

#define GST_TYPE_RTPCC_SRC (gst_rtpcc_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRtpccSrc, gst_rtpcc_src, GST, RTPCC_SRC, GstPushSrc)
/* unchecked, for the per-packet paths */
#define GST_RTPCC_SRC_CAST(obj) ((GstRtpccSrc *) (obj))

struct _GstRtpccSrc
{
  GstPushSrc parent;

  /* properties (object lock) */
  gchar *address;
  gint port;
  GstCaps *caps;
  guint32 clock_rate;           /* the caps' clock-rate (0: none) */
  gint feedback;
  guint feedback_interval_ms;
  guint rtcp_interval_ms;
  gchar *cname;
  guint buffer_size;
  guint twcc_ext_id;
  guint mprtp_ext_id;           /* 0 = no MPRTP accounting */
  guint64 max_bitrate_request;  /* bit/s, 0 = none (TMMBR) */
  gchar *srtp_key;              /* hex; NULL: no SRTP */
  RtpccSrtpSuite srtp_suite;
  gint repair;                  /* GstRtpccRepairMode */
  gint keyframe_request;        /* RtpccKeyframeRequest */
  guint rtx_pt;
  guint rtx_ssrc;
  guint playout_delay_ms;
  guint xr_blocks;              /* GstRtpccXrBlocks = RtpccReceiverXrBlocks */
  gboolean remb;
  gboolean nadu;
  guint32 media_ssrc;           /* of the last media packet passed on */
  RtpccTime last_repair_rtt;    /* the repair RTT last given to the receiver */
  /* a playoutbuffer downstream reports its de-jitter state
   * ("rtpcc-playout-state"): the XR De-Jitter block is its, not the
   * playout-delay estimate */
  gboolean playout_state_seen;
  /* rtpcc-playout-state / rtpcc-repaired events that were malformed */
  guint64 events_rejected;
  gint fec_pt;                  /* -1: no FEC expected */

  /* runtime */
  RtpccTimebase timebase;       /* the library's time, from the clock */
  GMutex lock;                  /* guards receiver and counters */
  RtpccReceiver *receiver;
  RtpccRtxReceiver *rtx;        /* NULL: repair=none, keyframe-request=none */
  guint8 *restore_buf;          /* an RTX packet's original */
  guint8 *repair_view_buf;      /* MPRTP: a packet as its path's repair
                                 * sees it, numbered by FSSN */
  GSocket *socket;
  gint fd;                      /* the socket's descriptor (create) */
  GSocketAddress *peer;         /* the receiver's peer: feedback goes there */
  RtpccAddress peer_key;        /* ... as the library knows it */
  gint wakeup_fd;
  guint8 *recv_buf;             /* MAX_DATAGRAM bytes, the streaming
                                 * thread's (create) */
  gboolean flushing;
  gint bound_port;
  guint64 invalid_rtp;
  guint64 send_errors;
  GstRtpccSrtpPair srtp;         /* media and SR in, feedback out */
  guint32 kernel_drops;         /* SO_RXQ_OVFL: datagrams the kernel dropped */
  guint64 padding_packets;      /* padding-only (probe) packets, not pushed */
  guint64 padding_pushed;       /* padding-only packets on a media SSRC */
  guint64 twcc_stripped;        /* packets whose TWCC-only extension went */
  guint64 mprtp_packets;        /* accounted on their subflow seq */
  /* MPRTP: the subflow seq each recent media seq was logged under, so a
   * discard (by media seq, from playoutbuffer) marks the right packet */
  guint16 mprtp_map_seq[1024];
  guint16 mprtp_map_fssn[1024];
  guint8 mprtp_map_valid[1024];
  /* ... and the media seq each recent FSSN of this path arrived with (made
   * with the first subflow packet), to tell whether a loss of this path
   * reached the merge by another one */
  RtpccMprtpSeqMap *fssn_map;
  guint64 merged_queries;       /* asked of playoutbuffer */
};

G_END_DECLS

#endif

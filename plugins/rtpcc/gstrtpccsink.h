/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_RTPCC_SINK_H__
#define __GST_RTPCC_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>
#include <gio/gio.h>
#include <sys/socket.h>
#include <rtpcc/sender.h>
#include <rtpcc/rtxsender.h>
#include <rtpcc/peer.h>
#include <rtpcc/mprtp/repairseq.h>
#include "gstrtpccencoder.h"
#include "gstrtpccsenderprops.h"
#include "rtpcctimebase.h"
#include "gstrtpccsrtp.h"

G_BEGIN_DECLS

#define GST_TYPE_RTPCC_SINK (gst_rtpcc_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstRtpccSink, gst_rtpcc_sink, GST, RTPCC_SINK,
    GstBaseSink)

/* where padding probes go (RtpccProbeSsrcMode, plus auto) */
typedef enum
{
  GST_RTPCC_PROBE_SSRC_AUTO = 0,        /* media with twcc, else separate */
  GST_RTPCC_PROBE_SSRC_MEDIA = 1,
  GST_RTPCC_PROBE_SSRC_SEPARATE = 2,
} GstRtpccProbeSsrcMode;

struct _GstRtpccSink
{
  GstBaseSink parent;

  /* properties (object lock) */
  gchar *host;
  gint port;
  gchar *bind_address;
  gint bind_port;
  GstRtpccSenderProps props;   /* controller, bitrates, pacing, encoder */
  gint feedback;
  gboolean circuit_breaker;
  guint rtcp_interval_ms;
  gchar *cname;
  guint twcc_ext_id;
  gint fec_pt;                  /* packets with this PT are FEC (-1: none) */
  /* fecenc's max-block-time (rtpcc-fec-encoder event); NONE: not told.
   * Streaming thread only. */
  GstClockTime fec_block_time;
  gboolean probing;
  gboolean probing_set;         /* set explicitly: overrides the default */
  GstRtpccProbeSsrcMode probe_ssrc_mode;
  gchar *srtp_key;              /* hex; NULL: no SRTP */
  RtpccSrtpSuite srtp_suite;
  guint rtx_pt;                 /* 0: RTX off */
  guint rtx_ssrc;               /* 0: random */
  guint rtx_time_ms;            /* history window */
  gdouble max_fec_share;

  /* runtime */
  RtpccTimebase timebase;       /* the library's time, from the clock */
  GMutex lock;                  /* guards sender and counters below */
  RtpccSender *sender;
  RtpccRtxSender *rtx;          /* NACK → RTX, PLI/FIR → key unit */
  guint8 *rtx_scratch;          /* a sent packet, contiguous, for the history */
  RtpccMprtpSeqMap *mprtp_seqmap;       /* MPRTP: media seq of each FSSN sent,
                                         * for the OSN of a retransmission */
  guint64 mprtp_rtx_unmapped;   /* RTX not sent: its FSSN's media seq gone */
  /* MPRTP: retransmissions offered to mprtpsched (it may send them on a
   * faster path) once the lock is released: GstRtpccSinkRtxOffer */
  GArray *mprtp_offers;
  guint64 mprtp_rtx_moved;      /* of those, sent on another path */
  RtpccTime ntp_offset;
  GSocket *socket;
  GSocketAddress *peer;
  struct sockaddr_storage peer_native;  /* self->peer for sendmsg() */
  socklen_t peer_native_len;
  RtpccAddress peer_key;        /* the peer as rtpcc_address_from_sockaddr
                                 * makes it: feedback only from there */
  GstPoll *poll;
  GstPollFD pollfd;
  GstTask *task;
  GRecMutex task_lock;
  gboolean flushing;
  guint64 published_generation;
  guint64 published_channel;     /* rtpcc_sender_get_channel_generation */
  guint64 invalid_rtp;          /* buffers that could not be mapped */
  guint64 wrong_source;
  guint32 kernel_drops;         /* SO_RXQ_OVFL: datagrams the kernel dropped */
  guint64 send_errors;
  guint64 task_wakeups;         /* buffers after which render() woke the task */
  RtpccTime task_deadline;      /* when the task next runs by itself */
  GstRtpccSrtpPair srtp;         /* media and SR out, feedback in */
  GstRtpccEncoderSetter encoder;        /* encoder control */
  gint bound_port;
  gboolean last_tripped;
  const gchar *feedback_problem;        /* static string or NULL */
  /* behind mprtpsched (its sticky rtpcc-mprtp event): the target goes to
   * mprtpsched only, never to the encoder; mprtp_ext_id > 0: the sender
   * runs on the subflow sequence numbers of that extension (atomic) */
  gint behind_mprtp;
  gint mprtp_ext_id;
  guint64 mprtp_missing;        /* MPRTP packets without the element */
  /* task thread only */
  gboolean upstream_pending;    /* the last target event did not get upstream */
  guint keyunit_count;          /* GstForceKeyUnit events sent upstream */
};

G_END_DECLS

#endif

/* What the endpoints need to know of an RTP packet. The library reads it
 * from the packet's bytes (rtpcc_rtp_parse, feedback/rtpext.h), in the
 * elements and in the simulator alike.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PACKET_H__
#define __RTPCC_PACKET_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef struct
{
  guint32 ssrc;
  guint16 seq;
  guint32 rtp_ts;
  guint8 pt;
  gboolean marker;
  guint size;                   /* the whole RTP packet in bytes */
  guint8 ecn;
  guint32 clock_rate;           /* 0 = unknown (90000 is assumed for video) */
  gboolean is_fec;
  /* transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-
   * extensions-01): read from the header extension; the sender assigns
   * it and writes it into the header it sends (TWCC mode) */
  gboolean has_twcc;
  guint16 twcc_seq;
  /* no payload octets: a sender's bandwidth probe (RFC 3550 padding) */
  gboolean padding_only;
} RtpccRtpInfo;

typedef enum
{
  RTPCC_FEEDBACK_CCFB = 0,      /* RFC 8888 per-packet feedback + RR */
  RTPCC_FEEDBACK_RR = 1,        /* RTCP RR only (RFC 3550) */
  RTPCC_FEEDBACK_TWCC = 2,      /* transport-wide CC (RTPFB FMT 15) + RR */
} RtpccFeedbackMode;

const gchar *rtpcc_feedback_mode_name (RtpccFeedbackMode mode);

G_END_DECLS

#endif

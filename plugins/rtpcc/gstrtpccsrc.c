/* rtpccsrc: receiving end of the congestion-controlled RTP transport.
 *
 * A skin over RtpccReceiver (gst/rtpcc/receiver.h): it owns one UDP socket,
 * logs every RTP arrival, sends the feedback the receiver builds (RFC 8888
 * CCFB, RTCP RR) back to the address the media comes from, takes the
 * sender's RTCP off the stream, and pushes RTP downstream with the caps set
 * on the "caps" property, like udpsrc.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccsrc.h"
#include "rtpccelements.h"
#include "gstrtpccevent.h"
#include "rtpccutil.h"
#include "gstrtpccstringprop.h"

#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/rtpext.h>
#include <rtpcc/mprtp/ext.h>
#include <rtpcc/mprtp/repairseq.h>
#include <gst/video/video-event.h>

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (rtpcc_src_debug);
#define GST_CAT_DEFAULT rtpcc_src_debug

#define DEFAULT_ADDRESS "0.0.0.0"
#define DEFAULT_PORT 5004
#define DEFAULT_FEEDBACK RTPCC_FEEDBACK_CCFB
#define DEFAULT_FEEDBACK_INTERVAL 0
#define DEFAULT_RTCP_INTERVAL 1000
#define DEFAULT_CNAME "rtpcc-receiver@localhost"
#define DEFAULT_BUFFER_SIZE (4 * 1024 * 1024)
#define MAX_DATAGRAM 65536
#define DEFAULT_TWCC_EXT_ID 1
#define DEFAULT_MPRTP_EXT_ID 5
#define DEFAULT_REPAIR GST_RTPCC_REPAIR_NONE
#define DEFAULT_KEYFRAME_REQUEST RTPCC_KEYFRAME_REQUEST_NONE
#define DEFAULT_RTX_PT 0
#define DEFAULT_RTX_SSRC 0
#define DEFAULT_PLAYOUT_DELAY 200
#define DEFAULT_XR_BLOCKS RTPCC_RECEIVER_XR_DISCARD_RLE
#define DEFAULT_REMB FALSE
#define DEFAULT_NADU FALSE
#define DEFAULT_FEC_PT -1
/* room a NACK (RTPCC_REPAIR_MAX_NACK seqs, one FCI each at worst) and a
 * FIR need after the feedback in one datagram */
#define REPAIR_FEEDBACK_MAX (12 + 4 * RTPCC_REPAIR_MAX_NACK + 20)

typedef enum
{
  GST_RTPCC_REPAIR_NONE = 0,
  GST_RTPCC_REPAIR_NACK = 1,
} GstRtpccRepairMode;

enum
{
  PROP_0,
  PROP_ADDRESS,
  PROP_PORT,
  PROP_CAPS,
  PROP_FEEDBACK,
  PROP_FEEDBACK_INTERVAL,
  PROP_RTCP_INTERVAL,
  PROP_CNAME,
  PROP_BUFFER_SIZE,
  PROP_TWCC_EXT_ID,
  PROP_MPRTP_EXT_ID,
  PROP_REPAIR,
  PROP_KEYFRAME_REQUEST,
  PROP_RTX_PAYLOAD_TYPE,
  PROP_RTX_SSRC,
  PROP_PLAYOUT_DELAY,
  PROP_FEC_PT,
  PROP_BOUND_PORT,
  PROP_STATS,
  PROP_MAX_BITRATE_REQUEST,
  PROP_SRTP_KEY,
  PROP_SRTP_SUITE,
  PROP_XR_BLOCKS,
  PROP_REMB,
  PROP_NADU,
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_rtpcc_src_parent_class parent_class
G_DEFINE_TYPE (GstRtpccSrc, gst_rtpcc_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE (rtpccsrc, "rtpccsrc", GST_RANK_NONE,
    GST_TYPE_RTPCC_SRC);

static GType
gst_rtpcc_repair_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_RTPCC_REPAIR_NONE, "No retransmission requests", "none"},
    {GST_RTPCC_REPAIR_NACK,
        "RFC 4585 Generic NACK for losses that can still be played", "nack"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtpccRepairMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_rtpcc_keyframe_request_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {RTPCC_KEYFRAME_REQUEST_NONE, "Never ask for a key frame", "none"},
    {RTPCC_KEYFRAME_REQUEST_PLI, "Picture Loss Indication (RFC 4585)",
        "pli"},
    {RTPCC_KEYFRAME_REQUEST_FIR, "Full Intra Request (RFC 5104)", "fir"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtpccKeyframeRequest", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* the nicks are what gst-launch takes: xr-blocks=discard-rle+loss-rle */
static GType
gst_rtpcc_xr_blocks_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {RTPCC_RECEIVER_XR_DISCARD_RLE, "Discarded Packets RLE (RFC 7097)",
        "discard-rle"},
    {RTPCC_RECEIVER_XR_LOSS_RLE, "Loss RLE (RFC 3611 section 4.1)",
        "loss-rle"},
    {RTPCC_RECEIVER_XR_POST_REPAIR_RLE, "Post-repair Loss RLE (RFC 5725)",
        "post-repair-rle"},
    {RTPCC_RECEIVER_XR_DELAY, "Delay Metrics (RFC 6843)", "delay"},
    {RTPCC_RECEIVER_XR_DISCARD_COUNT, "Discard Count (RFC 7002)",
        "discard-count"},
    {RTPCC_RECEIVER_XR_BYTES_DISCARDED, "Bytes Discarded (RFC 7243)",
        "bytes-discarded"},
    {RTPCC_RECEIVER_XR_DEJITTER, "De-jitter Buffer Metrics (RFC 7005)",
        "dejitter"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstRtpccXrBlocks", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static guint32
caps_clock_rate (GstCaps * caps)
{
  gint rate = 0;
  if (caps && gst_caps_get_size (caps) > 0)
    gst_structure_get_int (gst_caps_get_structure (caps, 0), "clock-rate",
        &rate);
  return rate > 0 ? (guint32) rate : 0;
}

/* The codec whose payload tells key frames (encoding-name in the caps). */
static RtpccSendbufCodec
caps_codec (GstCaps * caps)
{
  const gchar *name = NULL;

  if (caps && gst_caps_get_size (caps) > 0)
    name = gst_structure_get_string (gst_caps_get_structure (caps, 0),
        "encoding-name");
  return name ? rtpcc_sendbuf_codec_from_name (name) :
      RTPCC_SENDBUF_CODEC_OTHER;
}

/* With self->lock. */
static void
send_feedback (GstRtpccSrc * self, const guint8 * data, gsize len)
{
  GError *err = NULL;

  if (gst_rtpcc_srtp_pair_active (&self->srtp)
      && !(data = gst_rtpcc_srtp_pair_protect (&self->srtp, TRUE, data, len,
              &len)))
    return;                     /* (counted) */
  if (g_socket_send_to (self->socket, self->peer, (const gchar *) data, len,
          NULL, &err) < 0) {
    self->send_errors++;
    GST_LOG_OBJECT (self, "feedback send failed: %s", err->message);
    g_clear_error (&err);
  }
}

/* The packet without its header extension block, if that block holds
 * nothing but the transport-wide seq @id, which the sender added on the
 * wire and we have consumed; else NULL. Downstream then sees the packet as
 * the sender's application queued it: fecdec's parity covers the header
 * extension, and fecenc ran before rtpccsink stamped it. */
static GstBuffer *
strip_twcc (const guint8 * data, gsize n, guint id)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, n, NULL);
  GstMapInfo map;
  gsize out;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  out = rtpcc_rtp_strip_extension (data, n, (guint8) id, map.data, n);
  gst_buffer_unmap (b, &map);
  if (out == 0) {
    gst_buffer_unref (b);
    return NULL;
  }
  gst_buffer_set_size (b, out);
  return b;
}

/* Feedback goes to the receiver's peer (peer.h): the element follows it
 * when it moves, with the address of the datagram that moved it. With
 * self->lock. */
static void
follow_peer (GstRtpccSrc * self, const struct sockaddr_storage *from,
    socklen_t from_len)
{
  const RtpccAddress *peer = rtpcc_receiver_get_peer (self->receiver);

  if (!peer || (self->peer && rtpcc_address_equal (peer, &self->peer_key)))
    return;
  g_clear_object (&self->peer);
  self->peer = g_socket_address_new_from_native ((gpointer) from, from_len);
  self->peer_key = *peer;
  GST_INFO_OBJECT (self, "feedback goes to %" GST_PTR_FORMAT, self->peer);
}

/* One datagram from @from: RTCP for the receiver, RTP logged and returned
 * to push (NULL: nothing to push). */
static GstBuffer *
handle_datagram (GstRtpccSrc * self, guint8 * data, gsize n,
    const struct sockaddr_storage *from, socklen_t from_len)
{
  RtpccTime now = rtpcc_timebase_now (&self->timebase);
  RtpccReceiverVerdict verdict;
  RtpccAddress addr;
  RtpccRtpInfo info;
  RtpccMprtpSubflow sf;
  GstBuffer *buf;
  gboolean twcc_mode, is_rtx;
  guint mprtp_id, rtx_pt;

  if (!rtpcc_address_from_sockaddr (from, from_len, &addr))
    return NULL;
  if (gst_rtpcc_srtp_pair_active (&self->srtp)) {
    /* with SRTP, only what authenticates (else counted): the header is
     * in clear, so RTP and RTCP are told apart as before */
    gboolean ok;
    g_mutex_lock (&self->lock);
    ok = gst_rtpcc_srtp_pair_unprotect (&self->srtp, rtpcc_rtcp_is_rtcp (data,
            n), data, &n);
    g_mutex_unlock (&self->lock);
    if (!ok)
      return NULL;
  }
  if (rtpcc_rtcp_is_rtcp (data, n)) {
    g_mutex_lock (&self->lock);
    rtpcc_receiver_on_rtcp_from (self->receiver, now, data, n, &addr);
    g_mutex_unlock (&self->lock);
    return NULL;
  }
  /* the library's bounds-checked parser (an empty datagram is not RTP
   * either) */
  if (!rtpcc_rtp_parse (data, n, n, (guint8) self->twcc_ext_id, &info,
          NULL)) {
    g_mutex_lock (&self->lock);
    self->invalid_rtp++;
    g_mutex_unlock (&self->lock);
    return NULL;
  }

  g_mutex_lock (&self->lock);
  GST_OBJECT_LOCK (self);
  info.clock_rate = self->clock_rate;
  twcc_mode = self->feedback == RTPCC_FEEDBACK_TWCC;
  mprtp_id = self->mprtp_ext_id;
  rtx_pt = self->rtx_pt;
  GST_OBJECT_UNLOCK (self);
  is_rtx = rtx_pt != 0 && info.pt == rtx_pt;
  /* one subflow of a multipath stream (mprtpsched): the receiver accounts
   * it on the subflow seq, the gap-free sequence of this path, so its
   * loss, RR and feedback are this path's; downstream gets the packet
   * unchanged (the merge is by the media seq; depayloaders skip header
   * extensions). An RTX packet carries its original's element: it is
   * not this path's next FSSN, it is accounted on its own SSRC's seq. */
  if (mprtp_id > 0 && !is_rtx && (data[0] & 0x10) /* X: an extension */
      && rtpcc_mprtp_read_subflow (data, n, (guint8) mprtp_id, &sf)) {
    guint slot = info.seq & 1023;
    self->mprtp_map_seq[slot] = info.seq;
    self->mprtp_map_fssn[slot] = sf.fssn;
    self->mprtp_map_valid[slot] = 1;
    if (!self->fssn_map) {
      self->fssn_map = g_new (RtpccMprtpSeqMap, 1);
      rtpcc_mprtp_seqmap_init (self->fssn_map);
    }
    rtpcc_mprtp_seqmap_put (self->fssn_map, sf.fssn, info.seq);
    info.seq = sf.fssn;
    self->mprtp_packets++;
    /* and its regular reports carry an MPRTCP subflow report of this
     * path (the subflow ID of the latest packet) */
    rtpcc_receiver_set_mprtp_subflow (self->receiver, sf.subflow_id);
  }
  verdict = rtpcc_receiver_on_rtp_from (self->receiver, now, &info, &addr);
  follow_peer (self, from, from_len);
  if (verdict == RTPCC_RECEIVER_REFUSED) {
    /* not from the sender: never logged, never pushed (counted) */
    g_mutex_unlock (&self->lock);
    return NULL;
  }
  if (verdict == RTPCC_RECEIVER_CONSUMED) {
    /* a bandwidth probe on an SSRC of its own: logged for feedback,
     * nothing to decode, and an extra SSRC would confuse downstream */
    self->padding_packets++;
    g_mutex_unlock (&self->lock);
    return NULL;
  }
  /* a probe on the media SSRC (rtpccsink probe-ssrc-mode=media) is
   * pushed, so downstream sees no gap (the depayloader drops it as
   * empty) */
  if (info.padding_only)
    self->padding_pushed++;
  if (self->rtx) {
    /* an RTX packet becomes the original it carries (RFC 4588 §4), or
     * is dropped (duplicate, late, unusable: counted) */
    gsize out_len = 0, view_len = 0;
    const guint8 *rdata = data;
    guint16 media_seq = 0;

    /* MPRTP: this path's repair runs on its FSSNs, so the media seqs the
     * other paths carried are no gaps here, and a NACK names what this
     * path's sender numbered (gst/rtpcc/mprtp/repairseq.h) */
    if (mprtp_id > 0)
      view_len = rtpcc_mprtp_repair_view (data, n, (guint8) mprtp_id,
          (guint8) rtx_pt, self->repair_view_buf, MAX_DATAGRAM, &media_seq);
    if (view_len > 0)
      rdata = self->repair_view_buf;
    switch (rtpcc_rtx_receiver_on_rtp (self->rtx, now, rdata,
            view_len > 0 ? view_len : n, view_len > 0 ? view_len : n,
            self->restore_buf, MAX_DATAGRAM, &out_len)) {
      case RTPCC_RTX_RECEIVER_PASS:
        break;
      case RTPCC_RTX_RECEIVER_RESTORED:{
        RtpccRtpLayout l;

        data = self->restore_buf;
        n = out_len;
        /* the original's SSRC and seq: repaired, for the Post-repair
         * Loss RLE (the RTX packet was logged on the RTX SSRC; with MPRTP
         * the seq is the FSSN, the receiver's space) */
        if (rtpcc_rtp_parse_layout (data, n, &l))
          rtpcc_receiver_mark_repaired (self->receiver, now, l.ssrc, l.seq);
        /* downstream merges by the media seq the sender sent as OSN */
        if (view_len > 0)
          rtpcc_rtp_set_seq (self->restore_buf, n, media_seq);
        break;
      }
      case RTPCC_RTX_RECEIVER_DROP:
        g_mutex_unlock (&self->lock);
        return NULL;
    }
  }
  if (data != self->restore_buf && !info.padding_only)
    self->media_ssrc = info.ssrc;
  buf = NULL;
  /* only then did our sender put it there: otherwise an element with
   * that ID is one of the sender's own extensions (mid, audio level) */
  if (info.has_twcc && twcc_mode
      && (buf = strip_twcc (data, n, self->twcc_ext_id)))
    self->twcc_stripped++;
  if (!buf)
    buf = gst_buffer_new_memdup (data, n);
  g_mutex_unlock (&self->lock);
  return buf;
}

/* What the XR blocks report that the receiver cannot see itself (under
 * self->lock): the NACK → RTX round trip the repair planner measured
 * (Delay Metrics, beside the RRTR / DLRR ones); and until a playoutbuffer
 * downstream reports its state ("rtpcc-playout-state"), playout-delay as
 * the de-jitter buffer's nominal delay (RFC 7005). That is the playout
 * budget the repair planner works to, so a receiver whose buffer is not
 * ours (rtpjitterbuffer, none) still reports the delay it was set up
 * for, as before. */
static void
feed_xr (GstRtpccSrc * self)
{
  guint flags, playout_ms;

  GST_OBJECT_LOCK (self);
  flags = self->xr_blocks;
  playout_ms = self->playout_delay_ms;
  GST_OBJECT_UNLOCK (self);
  if ((flags & RTPCC_RECEIVER_XR_DELAY) && self->rtx) {
    RtpccRtxReceiverStats rs;
    rtpcc_rtx_receiver_get_stats (self->rtx, &rs);
    if (rs.repair.repair_rtt > 0
        && rs.repair.repair_rtt != self->last_repair_rtt) {
      rtpcc_receiver_add_rtt (self->receiver, rs.repair.repair_rtt);
      self->last_repair_rtt = rs.repair.repair_rtt;
    }
  }
  if ((flags & RTPCC_RECEIVER_XR_DEJITTER) && self->media_ssrc
      && !self->playout_state_seen)
    rtpcc_receiver_set_dejitter (self->receiver, self->media_ssrc, FALSE,
        RTPCC_MSEC (playout_ms), RTPCC_TIME_NONE,
        RTPCC_TIME_NONE, RTPCC_TIME_NONE);
}

/* One path of a multipath stream: a loss of this path whose repair
 * mprtpsched sent on another path never arrives here, so the planner would
 * NACK it again and then give it up (and ask for a key frame). Before the
 * planner's next request, ask playoutbuffer whether the merge has every
 * media packet the lost one can be (rtpcc_mprtp_seqmap_gap); if so, it is
 * recovered elsewhere. At most MERGED_CHECKS losses per request. Called
 * without the lock: the query goes downstream. */
#define MERGED_CHECKS 16
static void
check_merged (GstRtpccSrc * self, RtpccTime now)
{
  guint16 lost[MERGED_CHECKS], first[MERGED_CHECKS], last[MERGED_CHECKS];
  gboolean all[MERGED_CHECKS];
  guint32 ssrc;
  guint n, m = 0;

  g_mutex_lock (&self->lock);
  if (!self->rtx || !self->fssn_map || !self->peer
      || rtpcc_rtx_receiver_next_timeout (self->rtx) > now) {
    g_mutex_unlock (&self->lock);
    return;
  }
  ssrc = rtpcc_rtx_receiver_get_media_ssrc (self->rtx);
  n = rtpcc_rtx_receiver_get_missing (self->rtx, lost, MERGED_CHECKS);
  for (guint i = 0; i < n; i++)
    if (rtpcc_mprtp_seqmap_gap (self->fssn_map, lost[i], &first[m],
            &last[m]))
      lost[m++] = lost[i];
  self->merged_queries += m;
  g_mutex_unlock (&self->lock);

  for (guint i = 0; i < m; i++) {
    GstQuery *q = gst_rtpcc_merged_query_new (ssrc, first[i], last[i]);

    all[i] = gst_pad_peer_query (GST_BASE_SRC_PAD (self), q)
        && gst_rtpcc_merged_query_all (q);
    gst_query_unref (q);
  }

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < m; i++)
    if (all[i] && self->rtx) {
      GST_LOG_OBJECT (self, "FSSN %u reached the merge by another path",
          lost[i]);
      rtpcc_rtx_receiver_recovered_elsewhere (self->rtx, now, lost[i]);
    }
  g_mutex_unlock (&self->lock);
}

static GstFlowReturn
gst_rtpcc_src_create (GstPushSrc * psrc, GstBuffer ** outbuf)
{
  GstRtpccSrc *self = GST_RTPCC_SRC_CAST (psrc);
  guint8 *data = self->recv_buf;
  guint8 fb[1500];
  GstFlowReturn ret = GST_FLOW_OK;

  for (;;) {
    RtpccTime now, next;
    struct pollfd fds[2];

    if (self->fssn_map)
      check_merged (self, rtpcc_timebase_now (&self->timebase));
    g_mutex_lock (&self->lock);
    if (self->flushing) {
      g_mutex_unlock (&self->lock);
      ret = GST_FLOW_FLUSHING;
      break;
    }
    now = rtpcc_timebase_now (&self->timebase);
    next = rtpcc_receiver_next_feedback_time (self->receiver);
    {
      /* (room for the SRTCP trailer) */
      gsize room = sizeof (fb) - gst_rtpcc_srtp_pair_rtcp_overhead (&self->srtp);
      gsize n = 0;
      if (next != RTPCC_TIME_NONE && now >= next) {
        feed_xr (self);
        n = rtpcc_receiver_build_feedback (self->receiver, now, fb, room);
        next = rtpcc_receiver_next_feedback_time (self->receiver);
      }
      /* NACK / PLI / FIR due now join the feedback compound when there
       * is one, else go alone as reduced-size RTCP (RFC 5506); RFC 4585
       * §3.5.1 lets a two-party session send them at once */
      if (self->rtx && self->peer
          && rtpcc_rtx_receiver_next_timeout (self->rtx) <= now) {
        gsize m;
        /* a NACK of RTPCC_REPAIR_MAX_NACK seqs and a FIR take at most
         * REPAIR_FEEDBACK_MAX bytes: a large CCFB leaves first */
        if (n > 0 && room - n < REPAIR_FEEDBACK_MAX) {
          send_feedback (self, fb, n);
          n = 0;
        }
        m = rtpcc_rtx_receiver_build (self->rtx, now,
            rtpcc_receiver_get_ssrc (self->receiver), fb + n,
            room - n);
        n += m;
      }
      if (n > 0 && self->peer)
        send_feedback (self, fb, n);
    }
    /* without a peer, requests wait for one (no feedback goes anywhere
     * before it is established) */
    if (self->rtx && self->peer) {
      RtpccTime r = rtpcc_rtx_receiver_next_timeout (self->rtx);
      if (r != RTPCC_TIME_INFINITE)
        next = next == RTPCC_TIME_NONE ? r : MIN (next, r);
    }
    g_mutex_unlock (&self->lock);

    fds[0].fd = self->fd;
    fds[0].events = POLLIN;
    fds[1].fd = self->wakeup_fd;
    fds[1].events = POLLIN;
    fds[0].revents = fds[1].revents = 0;
    if (rtpcc_timebase_wait (&self->timebase, GST_OBJECT_CAST (self), fds, 2,
            1, next) < 0 && errno != EINTR) {
      GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
          ("poll failed: %s", g_strerror (errno)));
      ret = GST_FLOW_ERROR;
      break;
    }
    if (fds[1].revents & POLLIN) {
      rtpcc_wakeup_drain (self->wakeup_fd);
      continue;                 /* re-check flushing */
    }
    if (!(fds[0].revents & (POLLIN | POLLERR)))
      continue;

    {
      struct sockaddr_storage from;
      socklen_t from_len = sizeof from;
      guint32 drops = 0;
      gssize n = rtpcc_recv_datagram (fds[0].fd, data, MAX_DATAGRAM, &from,
          &from_len, &drops);

      if (n < 0) {
        /* ICMP port unreachable after a feedback send, EAGAIN: not fatal */
        GST_LOG_OBJECT (self, "receive: %s", g_strerror (errno));
        continue;
      }
      if (drops) {
        g_mutex_lock (&self->lock);
        self->kernel_drops = drops;
        g_mutex_unlock (&self->lock);
      }
      if ((*outbuf = handle_datagram (self, data, n, &from, from_len)))
        break;
    }
  }
  return ret;
}

static gboolean
gst_rtpcc_src_start (GstBaseSrc * bsrc)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (bsrc);
  RtpccReceiverConfig cfg;
  GError *err = NULL;
  GInetAddress *addr;
  GSocketAddress *bind_addr, *local;
  RtpccTime now;

  GST_OBJECT_LOCK (self);
  addr = g_inet_address_new_from_string (self->address);
  if (!gst_rtpcc_srtp_pair_start (&self->srtp, self->srtp_key,
          self->srtp_suite, &err)) {
    GST_OBJECT_UNLOCK (self);
    g_clear_object (&addr);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Bad srtp-key: %s", err->message), (NULL));
    g_clear_error (&err);
    return FALSE;
  }
  GST_OBJECT_UNLOCK (self);
  if (!addr) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Invalid address \"%s\"", self->address), (NULL));
    gst_rtpcc_srtp_pair_stop (&self->srtp);
    return FALSE;
  }
  self->socket = g_socket_new (g_inet_address_get_family (addr),
      G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, &err);
  if (!self->socket) {
    g_object_unref (addr);
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, (NULL), ("socket: %s",
            err->message));
    g_clear_error (&err);
    gst_rtpcc_srtp_pair_stop (&self->srtp);
    return FALSE;
  }
  bind_addr = g_inet_socket_address_new (addr, self->port);
  g_object_unref (addr);
  if (!g_socket_bind (self->socket, bind_addr, TRUE, &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Cannot bind UDP port %d", self->port), ("%s", err->message));
    g_clear_error (&err);
    g_object_unref (bind_addr);
    g_clear_object (&self->socket);
    gst_rtpcc_srtp_pair_stop (&self->srtp);
    return FALSE;
  }
  g_object_unref (bind_addr);
  g_socket_set_blocking (self->socket, FALSE);
  self->fd = g_socket_get_fd (self->socket);
  rtpcc_socket_report_drops (self->fd);
  self->kernel_drops = 0;
  if (self->buffer_size)
    g_socket_set_option (self->socket, SOL_SOCKET, SO_RCVBUF,
        (gint) self->buffer_size, NULL);
  local = g_socket_get_local_address (self->socket, NULL);
  self->bound_port = local ?
      g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)) : 0;
  g_clear_object (&local);

  rtpcc_receiver_config_init (&cfg);
  GST_OBJECT_LOCK (self);
  cfg.feedback = self->feedback;
  cfg.feedback_interval = RTPCC_MSEC (self->feedback_interval_ms);
  cfg.rtcp_interval = RTPCC_MSEC (self->rtcp_interval_ms);
  cfg.cname = self->cname;
  cfg.xr_blocks = self->xr_blocks;
  cfg.remb = self->remb;
  cfg.nadu = self->nadu;
  cfg.nadu_playout_delay = RTPCC_MSEC (self->playout_delay_ms);
  self->media_ssrc = 0;
  self->last_repair_rtt = 0;
  now = rtpcc_timebase_now (&self->timebase);
  cfg.ntp_offset = g_get_real_time () * RTPCC_NSEC_PER_USEC - now +
      RTPCC_NTP_UNIX_EPOCH_NS;
  cfg.seed = (guint64) g_get_real_time ();
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&self->lock);
  self->receiver = rtpcc_receiver_new (&cfg, now);
  self->playout_state_seen = FALSE;
  self->events_rejected = 0;
  /* read under both locks: a set_property racing with us applies its
   * value after ours (it waits for self->lock) */
  GST_OBJECT_LOCK (self);
  rtpcc_receiver_set_max_bitrate (self->receiver, now,
      self->max_bitrate_request);
  GST_OBJECT_UNLOCK (self);
  g_mutex_unlock (&self->lock);
  if (self->repair != GST_RTPCC_REPAIR_NONE
      || self->keyframe_request != RTPCC_KEYFRAME_REQUEST_NONE) {
    RtpccRtxReceiverConfig rc;
    rtpcc_rtx_receiver_config_init (&rc);
    GST_OBJECT_LOCK (self);
    rc.nack = self->repair == GST_RTPCC_REPAIR_NACK;
    rc.keyframe = self->keyframe_request;
    rc.rtx_pt = (guint8) self->rtx_pt;
    rc.rtx_ssrc = self->rtx_ssrc;
    rc.repair.playout_delay = RTPCC_MSEC (self->playout_delay_ms);
    rc.codec = caps_codec (self->caps);
    rc.fec_pt = self->fec_pt;
    rc.repair.clock_rate = caps_clock_rate (self->caps);
    if (rc.repair.clock_rate == 0)
      rc.repair.clock_rate = 90000;
    GST_OBJECT_UNLOCK (self);
    self->rtx = rtpcc_rtx_receiver_new (&rc, &err);
    if (!self->rtx) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("Bad repair settings: %s", err->message), (NULL));
      g_clear_error (&err);
      rtpcc_receiver_free (self->receiver);
      self->receiver = NULL;
      g_clear_object (&self->socket);
      gst_rtpcc_srtp_pair_stop (&self->srtp);
      return FALSE;
    }
    self->restore_buf = g_malloc (MAX_DATAGRAM);
    self->repair_view_buf = g_malloc (MAX_DATAGRAM);
  }
  rtpcc_wakeup_drain (self->wakeup_fd);
  self->flushing = FALSE;
  return TRUE;
}

static gboolean
gst_rtpcc_src_stop (GstBaseSrc * bsrc)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (bsrc);

  g_mutex_lock (&self->lock);
  rtpcc_receiver_free (self->receiver);
  self->receiver = NULL;
  gst_rtpcc_srtp_pair_stop (&self->srtp);
  rtpcc_rtx_receiver_free (self->rtx);
  self->rtx = NULL;
  /* a new stream's FSSNs start afresh */
  g_clear_pointer (&self->fssn_map, g_free);
  g_clear_pointer (&self->restore_buf, g_free);
  g_clear_pointer (&self->repair_view_buf, g_free);
  g_mutex_unlock (&self->lock);
  if (self->socket)
    g_socket_close (self->socket, NULL);
  g_clear_object (&self->socket);
  g_clear_object (&self->peer);
  rtpcc_address_set (&self->peer_key, NULL, 0);
  return TRUE;
}

static gboolean
gst_rtpcc_src_unlock (GstBaseSrc * bsrc)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (bsrc);

  g_mutex_lock (&self->lock);
  self->flushing = TRUE;
  g_mutex_unlock (&self->lock);
  if (!rtpcc_wakeup_signal (self->wakeup_fd))
    GST_WARNING_OBJECT (self, "wake-up failed: %s", g_strerror (errno));
  return TRUE;
}

static gboolean
gst_rtpcc_src_unlock_stop (GstBaseSrc * bsrc)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (bsrc);

  g_mutex_lock (&self->lock);
  self->flushing = FALSE;
  g_mutex_unlock (&self->lock);
  rtpcc_wakeup_drain (self->wakeup_fd);
  return TRUE;
}

/* MPRTP: the receiver logs by subflow seq; @seq (the media seq, as
 * downstream sees it) becomes its packet's, FALSE if it is not in the map
 * (under self->lock). A single path: unchanged. */
static gboolean
map_media_seq (GstRtpccSrc * self, guint16 * seq)
{
  guint slot = *seq & 1023;

  if (self->mprtp_packets == 0)
    return TRUE;
  if (!self->mprtp_map_valid[slot] || self->mprtp_map_seq[slot] != *seq)
    return FALSE;
  *seq = self->mprtp_map_fssn[slot];
  return TRUE;
}

/* The other upstream reports from downstream: fecdec's rebuilt packets
 * ("rtpcc-repaired", for the RFC 5725 Post-repair RLE) and playoutbuffer's
 * de-jitter state ("rtpcc-playout-state", RFC 7005). Malformed ones are
 * dropped and counted (events-rejected); the receiver refuses and counts
 * what does not fit its sources (repairs-rejected, dejitter-rejected). */
static gboolean
handle_report_event (GstRtpccSrc * self, GstEvent * event)
{
  GstRtpccPlayoutState st;
  guint32 ssrc;
  guint16 seq;

  if (gst_rtpcc_repaired_event_is (event)) {
    gboolean ok = gst_rtpcc_repaired_event_parse (event, &ssrc, &seq);
    g_mutex_lock (&self->lock);
    /* (an MPRTP seq the map no longer has counts as rejected too) */
    if (!ok || !map_media_seq (self, &seq))
      self->events_rejected++;
    else if (self->receiver)
      rtpcc_receiver_mark_repaired (self->receiver,
          rtpcc_timebase_now (&self->timebase), ssrc, seq);
    g_mutex_unlock (&self->lock);
    if (!ok)
      GST_WARNING_OBJECT (self, "malformed rtpcc-repaired event: %"
          GST_PTR_FORMAT, gst_event_get_structure (event));
    return TRUE;
  }
  if (gst_rtpcc_playout_state_event_is (event)) {
    gboolean ok = gst_rtpcc_playout_state_event_parse (event, &st);
    g_mutex_lock (&self->lock);
    if (!ok) {
      self->events_rejected++;
    } else if (self->receiver) {
#define T(x) (GST_CLOCK_TIME_IS_VALID (x) ? (RtpccTime) (x) : RTPCC_TIME_NONE)
      /* the playout-delay estimate's marks are not the buffer's */
      if (!self->playout_state_seen)
        rtpcc_receiver_clear_dejitter (self->receiver, st.ssrc);
      if (rtpcc_receiver_set_dejitter (self->receiver, st.ssrc, st.adaptive,
              T (st.nominal), T (st.maximum), T (st.high_water),
              T (st.low_water)))
        self->playout_state_seen = TRUE;
      /* the NADU's next unit (nadu=true), numbered as the receiver logs
       * (by FSSN on one path of a multipath stream) */
      if (st.have_next && map_media_seq (self, &st.next_seq))
        rtpcc_receiver_set_nadu_next (self->receiver,
            rtpcc_timebase_now (&self->timebase), st.ssrc, st.next_seq,
            (RtpccTime) st.next_in);
#undef T
    }
    g_mutex_unlock (&self->lock);
    if (!ok)
      GST_WARNING_OBJECT (self, "malformed rtpcc-playout-state event: %"
          GST_PTR_FORMAT, gst_event_get_structure (event));
    return TRUE;
  }
  return FALSE;
}

/* A playout buffer downstream tells us which packets it discarded as
 * late ("rtpcc-discard": ssrc, seqnum, count); the receiver reports them
 * to the sender (RFC 7097 Discard RLE). Malformed events are counted as
 * rejected discards and dropped. */
static gboolean
gst_rtpcc_src_event (GstBaseSrc * bsrc, GstEvent * event)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (bsrc);
  guint32 ssrc = 0;
  guint16 seqnum = 0;
  guint count = 0;
  gboolean ok;

  if (gst_video_event_is_force_key_unit (event)) {
    /* an element downstream (a decoder) lost the picture: ask the
     * sender for a key frame (PLI / FIR, rate-limited by the planner) */
    gboolean handled = FALSE;
    g_mutex_lock (&self->lock);
    if (self->rtx && self->keyframe_request != RTPCC_KEYFRAME_REQUEST_NONE) {
      rtpcc_rtx_receiver_on_keyframe_request (self->rtx,
          rtpcc_timebase_now (&self->timebase));
      handled = TRUE;
    }
    g_mutex_unlock (&self->lock);
    if (!handled)
      return GST_BASE_SRC_CLASS (parent_class)->event (bsrc, event);
    if (!rtpcc_wakeup_signal (self->wakeup_fd))
      GST_WARNING_OBJECT (self, "wake-up failed: %s", g_strerror (errno));
    return TRUE;
  }
  if (handle_report_event (self, event))
    return TRUE;
  if (!gst_rtpcc_discard_event_is (event))
    return GST_BASE_SRC_CLASS (parent_class)->event (bsrc, event);

  ok = gst_rtpcc_discard_event_parse (event, &ssrc, &seqnum, &count);
  if (!ok)
    GST_WARNING_OBJECT (self, "malformed rtpcc-discard event: %"
        GST_PTR_FORMAT, gst_event_get_structure (event));
  g_mutex_lock (&self->lock);
  if (ok && self->mprtp_packets > 0) {
    /* MPRTP: logged by subflow seq; a discarded run maps to the first
     * packet's, one at a time (a run on one path is rarely contiguous) */
    ok = map_media_seq (self, &seqnum);
    count = 1;
  }
  if (self->receiver)
    rtpcc_receiver_mark_discarded (self->receiver,
        rtpcc_timebase_now (&self->timebase), ssrc, seqnum,
        ok ? MIN (count, RTPCC_RECEIVER_MAX_DISCARDS) : 0);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/* The pipeline's clock from PLAYING on (a GstTestClock in tests): the
 * receiver's timeline continues on it (rtpcctimebase.h). */
static gboolean
gst_rtpcc_src_set_clock (GstElement * element, GstClock * clock)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (element);

  if (rtpcc_timebase_set_clock (&self->timebase, clock)
      && !rtpcc_wakeup_signal (self->wakeup_fd))
    GST_WARNING_OBJECT (self, "wake-up failed: %s", g_strerror (errno));
  return GST_ELEMENT_CLASS (parent_class)->set_clock (element, clock);
}

static GstCaps *
gst_rtpcc_src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (bsrc);
  GstCaps *caps, *res;

  GST_OBJECT_LOCK (self);
  caps = self->caps ? gst_caps_ref (self->caps) :
      gst_static_pad_template_get_caps (&src_template);
  GST_OBJECT_UNLOCK (self);
  if (filter) {
    res = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
  } else {
    res = caps;
  }
  return res;
}

static GstStructure *
make_stats (GstRtpccSrc * self)
{
  GstStructure *s;

  g_mutex_lock (&self->lock);
  if (self->receiver) {
    const RtpccReceiverStats *st = rtpcc_receiver_get_stats (self->receiver,
        rtpcc_timebase_now (&self->timebase));
    s = gst_structure_new ("application/x-rtpcc-src-stats",
        "packets-received", G_TYPE_UINT64, st->packets_received,
        "bytes-received", G_TYPE_UINT64, st->bytes_received,
        "packets-lost", G_TYPE_UINT64, st->packets_lost,
        "duplicates", G_TYPE_UINT64, st->duplicates,
        "receive-rate", G_TYPE_UINT64, st->receive_rate,
        "rtcp-received", G_TYPE_UINT64, st->rtcp_received,
        "rtcp-malformed", G_TYPE_UINT64, st->rtcp_malformed,
        "rtcp-sent", G_TYPE_UINT64, st->rtcp_sent,
        "feedback-sent", G_TYPE_UINT64, st->feedback_sent,
        "feedback-interval", G_TYPE_UINT64,
        (guint64) st->feedback_interval,
        "invalid-rtp", G_TYPE_UINT64, self->invalid_rtp,
        "send-errors", G_TYPE_UINT64, self->send_errors,
        "peer-changes", G_TYPE_UINT64, st->peer_changes,
        "peer-refused", G_TYPE_UINT64, st->peer_refused,
        "rtcp-wrong-source", G_TYPE_UINT64, st->rtcp_wrong_source,
        "rtcp-unknown-ssrc", G_TYPE_UINT64, st->rtcp_unknown_ssrc,
        "kernel-drops", G_TYPE_UINT64, (guint64) self->kernel_drops,
        "padding-packets", G_TYPE_UINT64, self->padding_packets,
        "padding-pushed", G_TYPE_UINT64, self->padding_pushed,
        "twcc-stripped", G_TYPE_UINT64, self->twcc_stripped,
        "mprtp-packets", G_TYPE_UINT64, self->mprtp_packets,
        "mprtcp-sent", G_TYPE_UINT64, st->mprtcp_sent,
        "media-ssrcs", G_TYPE_UINT64, (guint64) st->media_sources,
        "sources", G_TYPE_UINT64, (guint64) st->sources,
        "sources-evicted", G_TYPE_UINT64, st->sources_evicted,
        "packets-untracked", G_TYPE_UINT64, st->packets_untracked,
        "discards-marked", G_TYPE_UINT64, st->discards_marked,
        "discards-reported", G_TYPE_UINT64, st->discards_reported,
        "discards-rejected", G_TYPE_UINT64, st->discards_rejected,
        "report-interval", G_TYPE_UINT64, (guint64) st->report_interval,
        "interval-requests", G_TYPE_UINT64, st->interval_requests,
        "tmmbr-sent", G_TYPE_UINT64, st->tmmbr_sent,
        "tmmbn-received", G_TYPE_UINT64, st->tmmbn_received,
        "max-bitrate-acked", G_TYPE_BOOLEAN, st->max_bitrate_acked,
        "xr-blocks-sent", G_TYPE_UINT64, st->xr_blocks_sent,
        "remb-sent", G_TYPE_UINT64, st->remb_sent,
        "remb-estimate", G_TYPE_UINT64, st->remb_estimate,
        "remb-overuses", G_TYPE_UINT64, st->remb_overuses,
        "remb-decreases", G_TYPE_UINT64, st->remb_decreases,
        "nadu-sent", G_TYPE_UINT64, st->nadu_sent,
        "nadu-estimate", G_TYPE_UINT64, st->nadu_estimate,
        "nadu-frames-late", G_TYPE_UINT64, st->nadu_frames_late,
        "nadu-frames-missed", G_TYPE_UINT64, st->nadu_frames_missed,
        "xr-rle-skipped", G_TYPE_UINT64, st->xr_rle_skipped,
        "repairs-marked", G_TYPE_UINT64, st->repairs_marked,
        "repairs-rejected", G_TYPE_UINT64, st->repairs_rejected,
        "dejitter-rejected", G_TYPE_UINT64, st->dejitter_rejected,
        "events-rejected", G_TYPE_UINT64, self->events_rejected, NULL);
    if (self->rtx) {
      RtpccRtxReceiverStats rs;
      rtpcc_rtx_receiver_get_stats (self->rtx, &rs);
      gst_structure_set (s,
          "nacks-sent", G_TYPE_UINT64, rs.nacks_sent,
          "nacked-packets", G_TYPE_UINT64, rs.nacked_packets,
          "nack-retries", G_TYPE_UINT64, rs.repair.retries,
          "rtx-received", G_TYPE_UINT64, rs.rtx_received,
          "rtx-recovered", G_TYPE_UINT64, rs.rtx_recovered,
          "rtx-late", G_TYPE_UINT64, rs.rtx_late,
          "rtx-duplicate", G_TYPE_UINT64, rs.rtx_duplicate,
          "rtx-invalid", G_TYPE_UINT64, rs.rtx_invalid,
          "plis-sent", G_TYPE_UINT64, rs.plis_sent,
          "firs-sent", G_TYPE_UINT64, rs.firs_sent,
          "keyunit-events", G_TYPE_UINT64, rs.keyframe_requests_downstream,
          "repair-losses", G_TYPE_UINT64, rs.repair.losses,
          "repair-gave-up", G_TYPE_UINT64, rs.repair.gave_up,
          "repair-recovered-elsewhere", G_TYPE_UINT64,
          rs.repair.recovered_elsewhere,
          "merged-queries", G_TYPE_UINT64, self->merged_queries,
          "repair-gave-up-unnacked", G_TYPE_UINT64,
          rs.repair.gave_up_unnacked,
          "repair-tail-probes", G_TYPE_UINT64, rs.repair.tail_probes,
          "keyframes-received", G_TYPE_UINT64, rs.repair.keyframes,
          "keyframe-repeats", G_TYPE_UINT64, rs.repair.keyframe_repeats,
          "keyframe-unanswered", G_TYPE_UINT64,
          rs.repair.keyframe_unanswered,
          "fec-packets", G_TYPE_UINT64, rs.fec_packets,
          "fec-invalid", G_TYPE_UINT64, rs.fec_invalid,
          "fec-waits", G_TYPE_UINT64, rs.repair.fec_waits,
          "fec-rebuildable", G_TYPE_UINT64, rs.repair.fec_rebuildable,
          "fec-unrecoverable", G_TYPE_UINT64, rs.repair.fec_unrecoverable,
          "repair-rtt", G_TYPE_UINT64, (guint64) rs.repair.repair_rtt, NULL);
    }
  } else {
    s = gst_structure_new ("application/x-rtpcc-src-stats",
        "invalid-rtp", G_TYPE_UINT64, self->invalid_rtp, NULL);
  }
  gst_rtpcc_srtp_pair_add_stats (&self->srtp, s);
  g_mutex_unlock (&self->lock);
  return s;
}

static void
gst_rtpcc_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADDRESS:
      gst_rtpcc_set_string_prop (&self->address, value, DEFAULT_ADDRESS);
      break;
    case PROP_PORT:
      self->port = g_value_get_int (value);
      break;
    case PROP_CAPS:{
      const GstCaps *c = gst_value_get_caps (value);
      gst_caps_replace (&self->caps, c ? (GstCaps *) c : NULL);
      if (!self->caps)
        self->caps = gst_caps_new_empty_simple ("application/x-rtp");
      /* read here, not per packet */
      self->clock_rate = caps_clock_rate (self->caps);
      /* extmap-N=<TWCC URI> in the caps names the extension, as in SDP */
      if (gst_caps_get_size (self->caps) > 0) {
        const GstStructure *st = gst_caps_get_structure (self->caps, 0);
        for (guint id = 1; id <= 14; id++) {
          gchar field[16];
          const gchar *uri;
          g_snprintf (field, sizeof field, "extmap-%u", id);
          uri = gst_structure_get_string (st, field);
          if (uri && g_strcmp0 (uri, RTPCC_TWCC_EXTMAP_URI) == 0)
            self->twcc_ext_id = id;
          else if (uri && g_strcmp0 (uri, RTPCC_MPRTP_EXTMAP_URI) == 0)
            self->mprtp_ext_id = id;
        }
      }
      GST_OBJECT_UNLOCK (self);
      gst_pad_mark_reconfigure (GST_BASE_SRC_PAD (self));
      return;
    }
    case PROP_FEEDBACK:
      self->feedback = g_value_get_enum (value);
      break;
    case PROP_FEEDBACK_INTERVAL:
      self->feedback_interval_ms = g_value_get_uint (value);
      break;
    case PROP_RTCP_INTERVAL:
      self->rtcp_interval_ms = g_value_get_uint (value);
      break;
    case PROP_CNAME:
      gst_rtpcc_set_string_prop (&self->cname, value, DEFAULT_CNAME);
      break;
    case PROP_BUFFER_SIZE:
      self->buffer_size = g_value_get_uint (value);
      break;
    case PROP_TWCC_EXT_ID:
      self->twcc_ext_id = g_value_get_uint (value);
      break;
    case PROP_MPRTP_EXT_ID:
      self->mprtp_ext_id = g_value_get_uint (value);
      break;
    case PROP_MAX_BITRATE_REQUEST:{
      guint64 v = g_value_get_uint64 (value);
      self->max_bitrate_request = v;
      GST_OBJECT_UNLOCK (self);
      /* at runtime: the TMMBR goes out at once */
      g_mutex_lock (&self->lock);
      if (self->receiver)
        rtpcc_receiver_set_max_bitrate (self->receiver,
            rtpcc_timebase_now (&self->timebase), v);
      g_mutex_unlock (&self->lock);
      rtpcc_wakeup_signal (self->wakeup_fd);
      return;
    }
    case PROP_SRTP_KEY:
      gst_rtpcc_srtp_set_key (&self->srtp_key, value);
      break;
    case PROP_SRTP_SUITE:
      self->srtp_suite = g_value_get_enum (value);
      break;
    case PROP_REPAIR:
      self->repair = g_value_get_enum (value);
      break;
    case PROP_KEYFRAME_REQUEST:
      self->keyframe_request = g_value_get_enum (value);
      break;
    case PROP_RTX_PAYLOAD_TYPE:
      self->rtx_pt = g_value_get_uint (value);
      break;
    case PROP_RTX_SSRC:
      self->rtx_ssrc = g_value_get_uint (value);
      break;
    case PROP_PLAYOUT_DELAY:
      self->playout_delay_ms = g_value_get_uint (value);
      break;
    case PROP_REMB:
      self->remb = g_value_get_boolean (value);
      break;
    case PROP_NADU:
      self->nadu = g_value_get_boolean (value);
      break;
    case PROP_XR_BLOCKS:
      self->xr_blocks = g_value_get_flags (value);
      break;
    case PROP_FEC_PT:
      self->fec_pt = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rtpcc_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, make_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADDRESS:
      g_value_set_string (value, self->address);
      break;
    case PROP_PORT:
      g_value_set_int (value, self->port);
      break;
    case PROP_CAPS:
      gst_value_set_caps (value, self->caps);
      break;
    case PROP_FEEDBACK:
      g_value_set_enum (value, self->feedback);
      break;
    case PROP_FEEDBACK_INTERVAL:
      g_value_set_uint (value, self->feedback_interval_ms);
      break;
    case PROP_RTCP_INTERVAL:
      g_value_set_uint (value, self->rtcp_interval_ms);
      break;
    case PROP_CNAME:
      g_value_set_string (value, self->cname);
      break;
    case PROP_BUFFER_SIZE:
      g_value_set_uint (value, self->buffer_size);
      break;
    case PROP_TWCC_EXT_ID:
      g_value_set_uint (value, self->twcc_ext_id);
      break;
    case PROP_MPRTP_EXT_ID:
      g_value_set_uint (value, self->mprtp_ext_id);
      break;
    case PROP_SRTP_SUITE:
      g_value_set_enum (value, self->srtp_suite);
      break;
    case PROP_REPAIR:
      g_value_set_enum (value, self->repair);
      break;
    case PROP_KEYFRAME_REQUEST:
      g_value_set_enum (value, self->keyframe_request);
      break;
    case PROP_RTX_PAYLOAD_TYPE:
      g_value_set_uint (value, self->rtx_pt);
      break;
    case PROP_RTX_SSRC:
      g_value_set_uint (value, self->rtx_ssrc);
      break;
    case PROP_PLAYOUT_DELAY:
      g_value_set_uint (value, self->playout_delay_ms);
      break;
    case PROP_REMB:
      g_value_set_boolean (value, self->remb);
      break;
    case PROP_NADU:
      g_value_set_boolean (value, self->nadu);
      break;
    case PROP_XR_BLOCKS:
      g_value_set_flags (value, self->xr_blocks);
      break;
    case PROP_FEC_PT:
      g_value_set_int (value, self->fec_pt);
      break;
    case PROP_BOUND_PORT:
      g_value_set_int (value, self->bound_port);
      break;
    case PROP_MAX_BITRATE_REQUEST:
      g_value_set_uint64 (value, self->max_bitrate_request);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rtpcc_src_finalize (GObject * object)
{
  GstRtpccSrc *self = GST_RTPCC_SRC (object);

  g_free (self->address);
  g_free (self->cname);
  gst_rtpcc_srtp_set_key (&self->srtp_key, NULL);
  gst_rtpcc_srtp_pair_stop (&self->srtp);
  gst_caps_replace (&self->caps, NULL);
  g_free (self->recv_buf);
  g_free (self->fssn_map);
  g_mutex_clear (&self->lock);
  rtpcc_timebase_clear (&self->timebase);
  /* only now: a clock id of the task may still write to it until it is
   * freed, and it holds a reference to us */
  if (self->wakeup_fd >= 0)
    close (self->wakeup_fd);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_rtpcc_src_class_init (GstRtpccSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pushsrc_class = GST_PUSH_SRC_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_rtpcc_src_set_property;
  gobject_class->get_property = gst_rtpcc_src_get_property;
  gobject_class->finalize = gst_rtpcc_src_finalize;

  /**
   * GstRtpccSrc:address:
   *
   * Local address to receive on.
   */
  g_object_class_install_property (gobject_class, PROP_ADDRESS,
      g_param_spec_string ("address", "Address", "Local address to bind",
          DEFAULT_ADDRESS, rw));
  /**
   * GstRtpccSrc:port:
   *
   * Local UDP port for RTP and RTCP (0 = chosen by the system, see
   * bound-port).
   */
  g_object_class_install_property (gobject_class, PROP_PORT,
      g_param_spec_int ("port", "Port", "Local UDP port (RTP and RTCP)", 0,
          65535, DEFAULT_PORT, rw));
  /**
   * GstRtpccSrc:caps:
   *
   * Caps of the RTP pushed downstream, as on udpsrc (e.g.
   * "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264").
   */
  g_object_class_install_property (gobject_class, PROP_CAPS,
      g_param_spec_boxed ("caps", "Caps", "Caps of the RTP stream",
          GST_TYPE_CAPS, rw));
  /**
   * GstRtpccSrc:feedback:
   *
   * Feedback to send: "ccfb" (RFC 8888 per-packet reports plus RTCP RR),
   * "rr" (RTCP RR only) or "twcc" (transport-wide CC feedback plus RR).
   */
  g_object_class_install_property (gobject_class, PROP_FEEDBACK,
      g_param_spec_enum ("feedback", "Feedback", "Feedback mode",
          gst_rtpcc_feedback_mode_get_type (), DEFAULT_FEEDBACK, rw));
  /**
   * GstRtpccSrc:feedback-interval:
   *
   * Interval between per-packet feedback reports (RFC 8888 or
   * transport-wide CC), in ms. 0 = one report per video frame interval
   * (learnt from the marker bits), kept within 20..100 ms.
   */
  g_object_class_install_property (gobject_class, PROP_FEEDBACK_INTERVAL,
      g_param_spec_uint ("feedback-interval", "Feedback interval",
          "Per-packet feedback interval (ms); 0 = once per video frame, "
          "kept within 20-100 ms", 0, 5000,
          DEFAULT_FEEDBACK_INTERVAL, rw));
  /**
   * GstRtpccSrc:rtcp-interval:
   *
   * Mean RTCP RR interval in ms (randomised ±50 %). A sender whose
   * controller needs reports more often (fbra) asks for a shorter interval
   * with its SRs; it is followed down to 100 ms, never above this value
   * (stats: report-interval).
   */
  g_object_class_install_property (gobject_class, PROP_RTCP_INTERVAL,
      g_param_spec_uint ("rtcp-interval", "RTCP interval",
          "Mean RTCP RR interval (ms)", 100, 60000, DEFAULT_RTCP_INTERVAL, rw));
  /**
   * GstRtpccSrc:cname:
   *
   * SDES CNAME in our RTCP.
   */
  g_object_class_install_property (gobject_class, PROP_CNAME,
      g_param_spec_string ("cname", "CNAME", "RTCP SDES CNAME", DEFAULT_CNAME,
          rw));
  /**
   * GstRtpccSrc:buffer-size:
   *
   * Kernel receive buffer size in bytes (0 = system default).
   */
  g_object_class_install_property (gobject_class, PROP_BUFFER_SIZE,
      g_param_spec_uint ("buffer-size", "Buffer size",
          "Kernel receive buffer (bytes, 0 = default)", 0, G_MAXINT,
          DEFAULT_BUFFER_SIZE, rw));
  /**
   * GstRtpccSrc:twcc-ext-id:
   *
   * One-byte header extension ID carrying the transport-wide sequence
   * number (feedback=twcc). Set from extmap-N=<TWCC URI> in the caps
   * property when present.
   */
  g_object_class_install_property (gobject_class, PROP_TWCC_EXT_ID,
      g_param_spec_uint ("twcc-ext-id", "TWCC extension ID",
          "One-byte header extension ID of transport-wide seqs", 1, 14,
          DEFAULT_TWCC_EXT_ID, rw));
  /**
   * GstRtpccSrc:mprtp-ext-id:
   *
   * One-byte header extension ID of the MPRTP subflow element
   * (draft-ietf-avtcore-mprtp §9.1.1; mprtpsched's ext-id). A packet that
   * carries a valid subflow element under this ID is one path of a
   * multipath stream: the receiver logs it, reports on it and counts its
   * loss by the subflow sequence number, so this path's feedback speaks of
   * this path alone. The packet goes downstream unchanged. 0: off. Set
   * from extmap-N=urn:ietf:params:rtp-hdrext:mprtp in the caps property
   * when present.
   */
  g_object_class_install_property (gobject_class, PROP_MPRTP_EXT_ID,
      g_param_spec_uint ("mprtp-ext-id", "MPRTP extension ID",
          "One-byte header extension ID of the MPRTP subflow element "
          "(0 = off)", 0, 14, DEFAULT_MPRTP_EXT_ID, rw));
  /**
   * GstRtpccSrc:repair:
   *
   * "nack": run the repair planner (docs/repair.md) on the arrivals and
   * send RFC 4585 Generic NACKs for losses whose retransmission can still
   * arrive before their playout deadline (playout-delay after the fastest
   * packet's transit), at most 3 per packet, one RTT apart; RFC 4588
   * retransmissions (rtx-payload-type) are restored to the originals
   * before they are pushed. "none" (default): the sender must be told the
   * RTX payload type too (rtpccsink rtx-payload-type), which no default
   * can agree on, and NACKs nobody answers only cost bytes.
   */
  g_object_class_install_property (gobject_class, PROP_REPAIR,
      g_param_spec_enum ("repair", "Repair", "Loss repair by retransmission",
          gst_rtpcc_repair_mode_get_type (), DEFAULT_REPAIR, rw));
  /**
   * GstRtpccSrc:keyframe-request:
   *
   * How to ask the sender for a key frame when a loss cannot be repaired
   * before it is played, or when a GstForceKeyUnit event comes upstream
   * (an element downstream, e.g. a decoder, lost the picture): "pli"
   * (RFC 4585 §6.3.1), "fir" (RFC 5104 §4.3.1) or "none" (default: a key
   * frame is several times a frame's size, so asking for one is the
   * application's choice). At most once per max(2 × RTT, 300 ms).
   */
  g_object_class_install_property (gobject_class, PROP_KEYFRAME_REQUEST,
      g_param_spec_enum ("keyframe-request", "Key-frame request",
          "Feedback asking for a key frame when a picture is lost",
          gst_rtpcc_keyframe_request_get_type (), DEFAULT_KEYFRAME_REQUEST,
          rw));
  /**
   * GstRtpccSrc:rtx-payload-type:
   *
   * Payload type of RFC 4588 retransmissions (SDP "apt" mapping to the
   * media's); 0 (default): none expected, every packet is media.
   */
  g_object_class_install_property (gobject_class, PROP_RTX_PAYLOAD_TYPE,
      g_param_spec_uint ("rtx-payload-type", "RTX payload type",
          "Payload type of RFC 4588 retransmissions (0 = none)", 0, 127,
          DEFAULT_RTX_PT, rw));
  /**
   * GstRtpccSrc:rtx-ssrc:
   *
   * SSRC of the retransmission stream; 0 (default): learnt from the first
   * packet of rtx-payload-type on an SSRC other than the media's.
   */
  g_object_class_install_property (gobject_class, PROP_RTX_SSRC,
      g_param_spec_uint ("rtx-ssrc", "RTX SSRC",
          "SSRC of retransmissions (0 = learn it)", 0, G_MAXUINT32,
          DEFAULT_RTX_SSRC, rw));
  /**
   * GstRtpccSrc:playout-delay:
   *
   * The latency of the jitter buffer downstream in ms (rtpjitterbuffer's
   * latency, playoutbuffer's target): a loss is NACKed only if its
   * retransmission can arrive within it; with nadu, a frame later than
   * this is missed.
   */
  g_object_class_install_property (gobject_class, PROP_PLAYOUT_DELAY,
      g_param_spec_uint ("playout-delay", "Playout delay",
          "Jitter buffer latency downstream (ms): the repair deadline", 1,
          10000, DEFAULT_PLAYOUT_DELAY, rw));
  /**
   * GstRtpccSrc:xr-blocks:
   *
   * The RTCP XR report blocks sent with each regular report, one of each
   * per media source (docs/feedback-formats.md): discard-rle (RFC 7097,
   * packets playoutbuffer reports discarded as late), loss-rle (RFC 3611:
   * arrivals since the previous report, up to 512 packets), post-repair-rle
   * (RFC 5725: the same, with packets RTX restored and packets fecdec
   * downstream rebuilt, "rtpcc-repaired", counted received),
   * delay (RFC 6843: min/mean/max of the round trips measured in the
   * interval: RFC 3611 RRTR blocks the sender answers with DLRR, and
   * NACK → RTX times with repair=nack; "unavailable" without one),
   * discard-count
   * (RFC 7002) and bytes-discarded (RFC 7243, cumulative, late discards),
   * dejitter (RFC 7005: the nominal and maximum delay playoutbuffer
   * downstream reports, "rtpcc-playout-state", with the high- and
   * low-water marks of its nominal delay since the previous report;
   * until it reports, or with another jitter buffer, playout-delay as the
   * nominal delay of a fixed buffer, the maximum "unavailable"). Read
   * when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_XR_BLOCKS,
      g_param_spec_flags ("xr-blocks", "XR blocks",
          "RTCP XR report blocks to send with each report",
          gst_rtpcc_xr_blocks_get_type (), DEFAULT_XR_BLOCKS, rw));

  /**
   * GstRtpccSrc:remb:
   *
   * Estimate the path from the media's arrival times and send the estimate
   * to the sender as REMB (draft-alvestrand-rmcat-remb) with every RR, and
   * at once after a cut: the receiver half of the 2013 RTCWEB congestion
   * control (the sender half is rtpccsink controller=rrtcc, and any
   * rtpccsink or REMB-aware sender keeps its rate at or below it). Packets
   * are grouped by RTP timestamp (one group per video frame); a Kalman
   * filter over the inter-frame delay variation drives an over-use
   * detector and the increase / hold / decrease rate control (beta 0.85
   * of the incoming rate). Stats: remb-sent, remb-estimate,
   * remb-overuses, remb-decreases. Read when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_REMB,
      g_param_spec_boolean ("remb", "REMB",
          "Send a receiver-side bandwidth estimate as REMB", DEFAULT_REMB,
          rw));

  /**
   * GstRtpccSrc:nadu:
   *
   * The receiver half of C-NADU (Singh, Ott and Curcio, "Rate adaptation
   * for conversational 3G video", 2009): judge each video frame of the
   * media by when it arrived against when it was due (its RTP timestamp
   * over the fastest delivery of the last 10-20 s): on time, late (more
   * than a frame interval behind) or missed (more than playout-delay
   * behind). With every RR send a NADU APP packet (3GPP TS 26.234: the
   * next sequence number to decode and the time until it plays, in a
   * buffer that plays each frame playout-delay after its earliest
   * arrival) and the receiver's estimate as a REMB (unless remb is set,
   * whose estimate goes instead): the rate received, cut to 0.85 of it
   * after a missed frame, held at it after a late one, grown by at most
   * 8 % per second while frames are on time. Missed frames are reported
   * as discards (RTCP XR Discard RLE) unless a playout buffer downstream
   * reports its own. The sender half is rtpccsink controller=cnadu.
   * Stats: nadu-sent, nadu-estimate, nadu-frames-late,
   * nadu-frames-missed. Read when the element starts.
   */
  g_object_class_install_property (gobject_class, PROP_NADU,
      g_param_spec_boolean ("nadu", "NADU",
          "Judge frames against their playout deadline and send NADU "
          "reports with a receiver estimate (C-NADU)", DEFAULT_NADU, rw));

  /**
   * GstRtpccSrc:fec-pt:
   *
   * Payload type of the FEC packets that come with the media (fecenc's
   * pt; on their own SSRC, or RFC 5109 ULPFEC on the media's), -1 for
   * none. With repair on, the planner reads which media packets each
   * protects: a loss FEC can rebuild is not NACKed, and a loss waits for
   * FEC only while a NACK after it could still arrive in time. The FEC
   * packets are pushed on untouched, for fecdec downstream.
   */
  g_object_class_install_property (gobject_class, PROP_FEC_PT,
      g_param_spec_int ("fec-pt", "FEC payload type",
          "Payload type of FEC packets the repair planner reads (-1 = none)",
          -1, 127, DEFAULT_FEC_PT, rw));
  /**
   * GstRtpccSrc:bound-port:
   *
   * The local UDP port actually bound.
   */
  g_object_class_install_property (gobject_class, PROP_BOUND_PORT,
      g_param_spec_int ("bound-port", "Bound port", "Local UDP port in use",
          0, 65535, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstRtpccSrc:max-bitrate-request:
   *
   * The most this receiver wants, in bit/s (0 = no maximum), sent to the
   * media sender as an RFC 5104 TMMBR until its TMMBN shows it in force
   * (rtpccsink then keeps its target at or below it). May be changed while
   * playing: the request goes out at once.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_BITRATE_REQUEST,
      g_param_spec_uint64 ("max-bitrate-request", "Maximum bit rate request",
          "Most bit/s the sender may send us, by RFC 5104 TMMBR (0 = none)",
          0, G_MAXUINT64 >> 2, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRtpccSrc:stats:
   *
   * "application/x-rtpcc-src-stats": packets and bytes received, lost
   * (RFC 3550 cumulative), duplicates, receive rate, RTCP and feedback sent,
   * invalid RTP dropped, feedback interval; padding-packets (probes on an
   * SSRC of their own, dropped), padding-pushed (probes on a media SSRC,
   * pushed on), twcc-stripped, media-ssrcs (tracked SSRCs that carried
   * payload), sources (SSRCs tracked, at most 16), sources-evicted (dropped
   * to make room for a new one: silent for 30 s, else the one with the
   * fewest packets), packets-untracked (packets of SSRCs that found 16
   * established live streams: counted, no feedback); peer-changes (the
   * address feedback goes to moved: only with the established media
   * source, or after the peer fell silent, see gst/rtpcc/peer.h),
   * peer-refused (RTP from any other address: dropped unlogged),
   * rtcp-wrong-source (RTCP from any other address: dropped),
   * rtcp-unknown-ssrc (an SR about an SSRC never received), kernel-drops
   * (datagrams the kernel dropped for want of buffer space, SO_RXQ_OVFL);
   * report-interval (RR interval in use, ns: the configured one, or shorter
   * when the sender's controller asked, gst/rtpcc/feedback/reportinterval.h),
   * interval-requests; tmmbr-sent, tmmbn-received, max-bitrate-acked
   * (max-bitrate-request); mprtp-packets (packets of one path of a
   * multipath stream, accounted on their subflow sequence number, see
   * mprtp-ext-id), mprtcp-sent (MPRTCP subflow reports of that path, one
   * beside each RR);
   * xr-blocks-sent (XR blocks other than Discard
   * RLE, xr-blocks), xr-rle-skipped (packets a Loss RLE could not cover),
   * repairs-marked (RTX restorations and fecdec's "rtpcc-repaired"
   * packets, for the Post-repair Loss RLE), repairs-rejected (repairs of
   * an unknown SSRC, too far from the newest packet, or of packets
   * already reported), dejitter-rejected ("rtpcc-playout-state" updates
   * the receiver refused: an unknown SSRC), events-rejected (malformed
   * "rtpcc-repaired" / "rtpcc-playout-state" events: dropped);
   * srtp (on or off), srtp-auth-failures, srtp-replays, srtp-malformed
   * (received packets that did not verify: dropped), srtp-protect-errors
   * (feedback that could not be protected: not sent).

   * With repair or keyframe-request set: nacks-sent (NACK packets),
   * nacked-packets (seqs in them, retries included), nack-retries,
   * rtx-received (packets of the RTX stream), rtx-recovered (restored and
   * pushed), rtx-late (the original's playout deadline had passed) and
   * rtx-duplicate (the original was there already) — both dropped,
   * rtx-invalid (no OSN, or before any media: dropped), plis-sent,
   * firs-sent, keyunit-events (GstForceKeyUnit events from downstream),
   * repair-losses (gaps the planner declared lost), repair-gave-up (not
   * repaired in time), repair-gave-up-unnacked (of those, never NACKed:
   * too late when seen), repair-tail-probes (losses of a frame's last
   * packets found before the next frame), repair-rtt (measured NACK → RTX
   * time, ns), repair-recovered-elsewhere (one path of a multipath
   * stream: losses playoutbuffer's merge had from another path, neither
   * NACKed again nor given up), merged-queries (those asked of it),
   * keyframes-received (key frames read in the H.264 / VP8 payload),
   * keyframe-repeats (requests repeated because no key frame came),
   * keyframe-unanswered (requests given up after the repeats),
   * fec-packets / fec-invalid (fec-pt packets read / unreadable),
   * fec-waits (losses held back from NACK for FEC), fec-rebuildable
   * (losses the FEC packets in can rebuild: not NACKed),
   * fec-unrecoverable (losses a complete FEC block cannot rebuild).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Receiver statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /* srtp-key, srtp-suite: SRTP media and SR in, SRTCP feedback out
   * (gstrtpccsrtp.h) */
  gst_rtpcc_srtp_install_properties (gobject_class, PROP_SRTP_KEY,
      PROP_SRTP_SUITE);

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Congestion-controlled RTP source", "Source/Network",
      "Receives RTP over UDP and sends congestion-control feedback to the "
      "sender: RFC 8888, transport-wide CC or RTCP RR, with RTCP XR "
      "discard reports (RFC 7097) for packets played out too late",
      "gst-rtpcc developers");

  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_rtpcc_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_rtpcc_src_stop);
  basesrc_class->unlock = GST_DEBUG_FUNCPTR (gst_rtpcc_src_unlock);
  basesrc_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_rtpcc_src_unlock_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_rtpcc_src_get_caps);
  basesrc_class->event = GST_DEBUG_FUNCPTR (gst_rtpcc_src_event);
  pushsrc_class->create = GST_DEBUG_FUNCPTR (gst_rtpcc_src_create);
  element_class->set_clock = GST_DEBUG_FUNCPTR (gst_rtpcc_src_set_clock);

  gst_type_mark_as_plugin_api (GST_TYPE_RTPCC_SRTP_SUITE, 0);
  gst_type_mark_as_plugin_api (gst_rtpcc_repair_mode_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_rtpcc_xr_blocks_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_rtpcc_keyframe_request_get_type (), 0);

  GST_DEBUG_CATEGORY_INIT (rtpcc_src_debug, "rtpccsrc", 0,
      "congestion-controlled RTP source");
}

static void
gst_rtpcc_src_init (GstRtpccSrc * self)
{
  self->address = g_strdup (DEFAULT_ADDRESS);
  self->port = DEFAULT_PORT;
  self->caps = gst_caps_new_empty_simple ("application/x-rtp");
  self->feedback = DEFAULT_FEEDBACK;
  self->feedback_interval_ms = DEFAULT_FEEDBACK_INTERVAL;
  self->rtcp_interval_ms = DEFAULT_RTCP_INTERVAL;
  self->cname = g_strdup (DEFAULT_CNAME);
  self->buffer_size = DEFAULT_BUFFER_SIZE;
  self->twcc_ext_id = DEFAULT_TWCC_EXT_ID;
  self->mprtp_ext_id = DEFAULT_MPRTP_EXT_ID;
  self->srtp_suite = GST_RTPCC_SRTP_DEFAULT_SUITE;
  self->repair = DEFAULT_REPAIR;
  self->keyframe_request = DEFAULT_KEYFRAME_REQUEST;
  self->rtx_pt = DEFAULT_RTX_PT;
  self->rtx_ssrc = DEFAULT_RTX_SSRC;
  self->playout_delay_ms = DEFAULT_PLAYOUT_DELAY;
  self->xr_blocks = DEFAULT_XR_BLOCKS;
  self->remb = DEFAULT_REMB;
  self->nadu = DEFAULT_NADU;
  self->fec_pt = DEFAULT_FEC_PT;
  self->fd = -1;
  self->wakeup_fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  /* one receive buffer for the element's life, not one per datagram */
  self->recv_buf = g_malloc (MAX_DATAGRAM);
  rtpcc_timebase_init (&self->timebase);
  g_mutex_init (&self->lock);
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_do_timestamp (GST_BASE_SRC (self), TRUE);
}

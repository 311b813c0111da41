/* rtpccsink: congestion-controlled RTP sender over UDP.
 *
 * A skin over RtpccSender (gst/rtpcc/sender.h): render() hands the mapped
 * packet bytes and the buffer to the sender and, when the pacer lets it go
 * at once, sends it right there (the header bytes the sender wrote, then
 * the rest of the original buffer, in one scatter-gather send: the payload
 * is never copied). A task thread sends what the pacer holds back, at its
 * time, and SR, receives feedback on the same socket (RTCP-mux), and
 * publishes each new target as a bus message, an upstream
 * event and a property, and — with encoder-control=auto — as the bitrate of
 * the encoder it finds upstream.
 *
 * Behind mprtpsched (a sticky "rtpcc-mprtp" event arrives first) the sink
 * is one path of a multipath call: its target goes upstream to mprtpsched
 * only, which couples the paths and drives the encoder itself; and when
 * the packets carry the MPRTP subflow element, the sender (its history,
 * feedback and controller) sees the subflow sequence number in place of
 * the RTP one, so this path's stream is gap-free and its losses are its
 * own, while the wire keeps the media's sequence number for the decoder.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccsink.h"
#include "rtpccelements.h"
#include "rtpccutil.h"
#include "gstrtpccstringprop.h"
#include "gstrtpccencoder.h"
#include "gstrtpccevent.h"
#include "gstrtpccmap.h"
#include "gstrtpccsenderprops.h"

#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/rtpext.h>
#include <rtpcc/mprtp/ext.h>
#include <gst/video/video-event.h>

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (rtpcc_sink_debug);
#define GST_CAT_DEFAULT rtpcc_sink_debug

#define DEFAULT_HOST "127.0.0.1"
#define DEFAULT_PORT 5004
#define DEFAULT_BIND_ADDRESS "0.0.0.0"
#define DEFAULT_BIND_PORT 0
#define DEFAULT_CONTROLLER "tfrc"
#define DEFAULT_FEEDBACK RTPCC_FEEDBACK_CCFB
#define DEFAULT_CIRCUIT_BREAKER TRUE
#define DEFAULT_RTCP_INTERVAL 1000
#define DEFAULT_MAX_PACING_DELAY 100
/* the encoder's buffer follows max-pacing-delay */
#define DEFAULT_ENCODER_BUFFER (-1)
#define DEFAULT_CNAME "rtpcc@localhost"
#define DEFAULT_TWCC_EXT_ID 1
#define DEFAULT_FEC_PT 122
#define DEFAULT_RTX_PT 0
#define DEFAULT_RTX_SSRC 0
#define DEFAULT_RTX_TIME 1000
#define DEFAULT_MAX_FEC_SHARE 0.0
#define RTX_SCRATCH (65536 + 16)

enum
{
  PROP_0,
  PROP_HOST,
  PROP_PORT,
  PROP_BIND_ADDRESS,
  PROP_BIND_PORT,
  /* controller … target-bitrate (gstrtpccsenderprops.h) */
  PROP_SENDER,
  PROP_FEEDBACK = PROP_SENDER + GST_RTPCC_SENDER_N_PROPS,
  PROP_CIRCUIT_BREAKER,
  PROP_RTCP_INTERVAL,
  PROP_CNAME,
  PROP_TWCC_EXT_ID,
  PROP_FEC_PT,
  PROP_PROBING,
  PROP_PROBE_SSRC_MODE,
  PROP_RTX_PAYLOAD_TYPE,
  PROP_RTX_SSRC,
  PROP_RTX_TIME,
  PROP_MAX_FEC_SHARE,
  PROP_BOUND_PORT,
  PROP_STATS,
  PROP_SRTP_KEY,
  PROP_SRTP_SUITE,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_rtpcc_sink_parent_class parent_class
G_DEFINE_TYPE (GstRtpccSink, gst_rtpcc_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE (rtpccsink, "rtpccsink", GST_RANK_NONE,
    GST_TYPE_RTPCC_SINK);

GType
gst_rtpcc_feedback_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {RTPCC_FEEDBACK_CCFB, "RFC 8888 congestion control feedback + RTCP RR",
        "ccfb"},
    {RTPCC_FEEDBACK_RR, "RTCP receiver reports only (RFC 3550)", "rr"},
    {RTPCC_FEEDBACK_TWCC,
        "Transport-wide congestion control feedback (RTPFB 15) + RTCP RR",
        "twcc"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtpccFeedbackMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_rtpcc_probe_ssrc_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_RTPCC_PROBE_SSRC_AUTO,
        "media with feedback=twcc (stock receivers), else separate", "auto"},
    {GST_RTPCC_PROBE_SSRC_MEDIA,
        "Padding on the media SSRC, which is renumbered on the wire", "media"},
    {GST_RTPCC_PROBE_SSRC_SEPARATE, "Padding on an SSRC of its own",
        "separate"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtpccProbeSsrcMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void
wake_task (GstRtpccSink * self)
{
  if (!rtpcc_wakeup_signal (self->pollfd.fd))
    GST_WARNING_OBJECT (self, "cannot wake the task: %s", g_strerror (errno));
}

/* ---- target publication ------------------------------------------------- */

static GstStructure *
target_structure (GstRtpccSink * self, RtpccTime now)
{
  GstRtpccTargetInfo info;

  gst_rtpcc_target_info_from_sender (self->sender, now, &info);
  return gst_rtpcc_target_structure_new (&info);
}

/* Takes @s. */
static void
push_target_upstream (GstRtpccSink * self, GstStructure * s)
{
  /* not delivered: the loop pushes it again once the pad is active */
  g_atomic_int_set (&self->upstream_pending,
      gst_rtpcc_sender_push_target (GST_BASE_SINK_PAD (self), s));
}

static void
publish_target (GstRtpccSink * self, GstStructure * s, guint64 media_bps,
    gboolean breaker_changed, gboolean breaker_tripped, const gchar * reason)
{
  GST_DEBUG_OBJECT (self, "new target %" GST_PTR_FORMAT, s);
  g_atomic_int_set (&self->upstream_pending,
      gst_rtpcc_sender_publish_target (GST_ELEMENT (self),
          GST_BASE_SINK_PAD (self), s));
  if (breaker_changed) {
    if (breaker_tripped)
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("Circuit breaker tripped: %s", reason ? reason : "?"),
          ("RFC 8083: the path looks broken or badly congested; sending is "
              "cut back until feedback shows it has recovered"));
    else
      GST_ELEMENT_INFO (self, STREAM, FAILED,
          ("Circuit breaker cleared"), ("feedback has returned"));
  }
  if (self->props.encoder_control == GST_RTPCC_ENCODER_CONTROL_AUTO
      && !g_atomic_int_get (&self->behind_mprtp))
    gst_rtpcc_encoder_setter_apply (&self->encoder, GST_BASE_SINK_PAD (self),
        rtpcc_timebase_now (&self->timebase), media_bps);
}

/* ---- the task ----------------------------------------------------------- */

/* sendmsg() on the socket's descriptor to the peer's address as the
 * kernel takes it, made once in start(): g_socket_send_message() would
 * convert the address again for every packet. */
static void
send_vectors (GstRtpccSink * self, GOutputVector * v, guint n)
{
  struct iovec iov[2];
  struct msghdr msg;
  gssize r;

  g_assert (n <= G_N_ELEMENTS (iov));
  for (guint i = 0; i < n; i++) {
    iov[i].iov_base = (gpointer) v[i].buffer;
    iov[i].iov_len = v[i].size;
  }
  memset (&msg, 0, sizeof msg);
  msg.msg_name = &self->peer_native;
  msg.msg_namelen = self->peer_native_len;
  msg.msg_iov = iov;
  msg.msg_iovlen = n;
  do {
    r = sendmsg (g_socket_get_fd (self->socket), &msg, 0);
  } while (r < 0 && errno == EINTR);
  if (r < 0) {
    /* a full socket buffer or a transient ICMP error: the packet is lost
     * like any other, counted */
    self->send_errors++;
    GST_LOG_OBJECT (self, "send failed: %s", g_strerror (errno));
  }
}

/* An RTP packet (or an RTCP compound if @rtcp) in two pieces, protected
 * first when SRTP is on. */
static void
send_pieces (GstRtpccSink * self, gboolean rtcp, const guint8 * head,
    gsize head_len, const guint8 * tail, gsize tail_len)
{
  GOutputVector v[2] = { {head, head_len}, {tail, tail_len} };

  if (gst_rtpcc_srtp_pair_active (&self->srtp)) {
    v[0].buffer = gst_rtpcc_srtp_pair_protect2 (&self->srtp, rtcp, head,
        head_len, tail, tail_len, &v[0].size);
    if (!v[0].buffer)
      return;                   /* (counted) */
    v[1].size = 0;
  }
  send_vectors (self, v, v[1].size ? 2 : 1);
}

static void
send_bytes (GstRtpccSink * self, gboolean rtcp, const guint8 * data,
    gsize len)
{
  send_pieces (self, rtcp, data, len, NULL, 0);
}

/* A buffer render() holds mapped while it sends: the packets it sends
 * itself are not mapped again. */
typedef struct
{
  GstBuffer *buffer;
  GstMapInfo map;
} HeldMap;

/* @b readable: @held's mapping if it is of @b, else mapped into @tmp
 * (NULL if that fails). */
static const GstMapInfo *
map_packet (GstBuffer * b, const HeldMap * held, GstMapInfo * tmp)
{
  if (held && held->buffer == b)
    return &held->map;
  return gst_rtpcc_buffer_map_read (b, tmp) ? tmp : NULL;
}

static void
unmap_packet (GstBuffer * b, const GstMapInfo * m, GstMapInfo * tmp)
{
  if (m == tmp)
    gst_buffer_unmap (b, tmp);
}

/* The header the sender wrote, then the buffer from tail_offset on. */
static void
send_packet (GstRtpccSink * self, const RtpccWirePacket * w, GstBuffer * b,
    const HeldMap * held)
{
  GstMapInfo tmp;
  const GstMapInfo *m = map_packet (b, held, &tmp);
  guint8 head[512];
  const guint8 *head_bytes = w->head;

  if (!m) {
    self->send_errors++;
    return;
  }
  /* MPRTP: the sender numbered the packet by its subflow seq; the wire
   * gets the media's seq back (the FSSN stays in the extension) */
  if (g_atomic_int_get (&self->mprtp_ext_id) > 0
      && rtpcc_mprtp_wire_header (w->head, w->head_len, m->data, m->size,
          head, sizeof head) > 0)
    head_bytes = head;
  send_pieces (self, FALSE, head_bytes, w->head_len, m->data + w->tail_offset,
      m->size > w->tail_offset ? m->size - w->tail_offset : 0);
  unmap_packet (b, m, &tmp);
}

/* Keeps what went on the wire (header as rewritten, then the buffer's
 * tail) for retransmission. With self->lock. */
static void
record_sent (GstRtpccSink * self, RtpccTime now, const RtpccWirePacket * w,
    GstBuffer * b, const HeldMap * held)
{
  GstMapInfo tmp;
  const GstMapInfo *m;
  gsize n = w->head_len;

  if (!self->rtx)
    return;
  /* RTX off: the SSRC alone tells which SSRCs a PLI may name */
  if (rtpcc_rtx_sender_get_rtx_pt (self->rtx) == 0) {
    rtpcc_rtx_sender_on_sent_ssrc (self->rtx, w->info.ssrc);
    return;
  }
  m = map_packet (b, held, &tmp);
  if (!m)
    return;
  if (w->head_len <= RTX_SCRATCH) {
    memcpy (self->rtx_scratch, w->head, w->head_len);
    if (m->size > w->tail_offset
        && n + (m->size - w->tail_offset) <= RTX_SCRATCH) {
      memcpy (self->rtx_scratch + n, m->data + w->tail_offset,
          m->size - w->tail_offset);
      n += m->size - w->tail_offset;
    }
    rtpcc_rtx_sender_on_sent (self->rtx, now, self->rtx_scratch, n, n);
  }
  unmap_packet (b, m, &tmp);
}

typedef struct
{
  GstRtpccSink *self;
  RtpccTime now;
} RtxCall;

/* MPRTP: a retransmission waiting for mprtpsched's answer */
typedef struct
{
  GstBuffer *buf;               /* the RTX packet, OSN = media seq */
  guint16 seq;                  /* that media seq */
} GstRtpccSinkRtxOffer;

static void
offer_clear (gpointer data)
{
  GstRtpccSinkRtxOffer *o = data;

  gst_clear_buffer (&o->buf);
}

static GArray *
offers_new (void)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (GstRtpccSinkRtxOffer));

  g_array_set_clear_func (a, offer_clear);
  return a;
}

/* An RTX packet goes into the sender's queue like media: paced, stamped
 * (transport-wide seq) and counted as sent for the controller. On one
 * path of a multipath call it is first offered to mprtpsched. */
static void
queue_rtx (const guint8 * pkt, gsize len, gpointer user_data)
{
  RtxCall *c = user_data;
  GstRtpccSink *self = c->self;
  gint ext_id = g_atomic_int_get (&self->mprtp_ext_id);
  GstBuffer *b = gst_buffer_new_memdup (pkt, len);
  GstMapInfo map;
  RtpccMprtpSubflow sf;

  /* MPRTP: the history is numbered by FSSN (the NACK came from this
   * path's receiver, in that space); the OSN becomes the media seq the
   * decoder knows, the FSSN stays in the copied subflow element
   * (gst/rtpcc/mprtp/repairseq.h). Without it the original cannot be
   * restored: not sent, counted. */
  if (ext_id > 0 && rtpcc_mprtp_read_subflow (pkt, len, (guint8) ext_id, &sf)) {
    gboolean ok = FALSE;
    GstRtpccSinkRtxOffer o = { b, 0 };

    if (rtpcc_mprtp_seqmap_lookup (self->mprtp_seqmap, sf.fssn, &o.seq)
        && gst_buffer_map (b, &map, GST_MAP_WRITE)) {
      ok = rtpcc_mprtp_rtx_osn_to_media (map.data, map.size, (guint8) ext_id,
          self->mprtp_seqmap);
      gst_buffer_unmap (b, &map);
    }
    if (!ok) {
      self->mprtp_rtx_unmapped++;
      gst_buffer_unref (b);
      return;
    }
    /* mprtpsched may send it on a faster path: asked without the lock
     * (gst_rtpcc_sink_offer_rtx), sent here if not */
    g_array_append_val (self->mprtp_offers, o);
    return;
  }
  rtpcc_sender_enqueue_rtp (self->sender, c->now, pkt, len, len, b);
}

/* MPRTP: each retransmission queue_rtx held back is offered upstream to
 * mprtpsched (rtpcc-mprtp-rtx query, the media seq): "moved" means it went
 * out on a path with a clearly lower RTT (Singh's thesis, Publication
 * VII); otherwise it goes out here, on the path that lost it, as before.
 * From the task, without self->lock (mprtpsched pushes the repair down
 * another path's sink from this thread). */
static void
gst_rtpcc_sink_offer_rtx (GstRtpccSink * self)
{
  GArray *offers;

  g_mutex_lock (&self->lock);
  if (self->mprtp_offers->len == 0) {
    g_mutex_unlock (&self->lock);
    return;
  }
  offers = self->mprtp_offers;
  self->mprtp_offers = offers_new ();
  g_mutex_unlock (&self->lock);

  for (guint i = 0; i < offers->len; i++) {
    GstRtpccSinkRtxOffer *o =
        &g_array_index (offers, GstRtpccSinkRtxOffer, i);
    gsize size = gst_buffer_get_size (o->buf);
    GstQuery *q = gst_rtpcc_mprtp_rtx_query_new (o->seq,
        (guint) MIN (size, G_MAXUINT16));
    gboolean moved = gst_pad_peer_query (GST_BASE_SINK_PAD (self), q)
        && gst_rtpcc_mprtp_rtx_query_moved (q);
    GstMapInfo map;

    gst_query_unref (q);

    g_mutex_lock (&self->lock);
    if (moved) {
      self->mprtp_rtx_moved++;
    } else if (self->sender && gst_buffer_map (o->buf, &map, GST_MAP_READ)) {
      /* the sender copies the header now and keeps a reference */
      rtpcc_sender_enqueue_rtp (self->sender,
          rtpcc_timebase_now (&self->timebase), map.data, map.size,
          map.size, gst_buffer_ref (o->buf));
      gst_buffer_unmap (o->buf, &map);
    }
    g_mutex_unlock (&self->lock);
  }
  g_array_unref (offers);
}

/* Feedback from the peer: congestion control, then repair. Returns TRUE
 * if the encoder should make a key frame (@all_headers for a FIR). With
 * self->lock. */
static gboolean
receive_feedback (GstRtpccSink * self, const guint8 * data, gsize len,
    gboolean * all_headers)
{
  RtpccTime now = rtpcc_timebase_now (&self->timebase);
  const RtpccSenderStats *st;
  RtxCall c = { self, now };

  rtpcc_sender_receive_rtcp (self->sender, now, data, len);
  if (!self->rtx)
    return FALSE;
  st = rtpcc_sender_get_stats (self->sender, now);
  /* repair may use at most the target rate: a loss burst cannot make the
   * sender exceed what the controller judged the path to carry for
   * long, and the pacer spreads what it does send */
  {
    RtpccRtxSenderStats before, after;
    gboolean kf;

    rtpcc_rtx_sender_get_stats (self->rtx, &before);
    kf = rtpcc_rtx_sender_on_rtcp (self->rtx, now, data, len, st->srtt,
        rtpcc_sender_get_target (self->sender)->target_bitrate, queue_rtx,
        &c, all_headers);
    rtpcc_rtx_sender_get_stats (self->rtx, &after);
    if (after.nacks_received != before.nacks_received)
      GST_DEBUG_OBJECT (self, "NACK for %" G_GUINT64_FORMAT " packets: %"
          G_GUINT64_FORMAT " retransmitted, %" G_GUINT64_FORMAT " not",
          after.nacked_packets - before.nacked_packets,
          after.rtx_sent - before.rtx_sent,
          after.rtx_dropped - before.rtx_dropped);
    return kf;
  }
}

/* RFC 4585 PLI / RFC 5104 FIR → the encoder, as rtpsession does. Outside
 * self->lock. */
static void
request_key_unit (GstRtpccSink * self, gboolean all_headers)
{
  GstEvent *ev = gst_video_event_new_upstream_force_key_unit
      (GST_CLOCK_TIME_NONE, all_headers, ++self->keyunit_count);

  GST_DEBUG_OBJECT (self, "key unit requested (all-headers %d)",
      all_headers);
  if (!gst_pad_push_event (GST_BASE_SINK_PAD (self), ev))
    GST_DEBUG_OBJECT (self, "nobody upstream took the key-unit request");
}

/* What is due at @now: timers, the packets the pacer releases, probes,
 * an SR. Both threads run it (render() for a packet that need not wait,
 * with the buffer it has mapped as @held; the task for the rest, @held
 * NULL). With self->lock. */
static void
send_due (GstRtpccSink * self, RtpccTime now, const HeldMap * held)
{
  guint8 buf[2048];

  /* per packet only when a timer is due: otherwise the last send or report
   * left the target as a tick would */
  if (rtpcc_sender_tick_due (self->sender, now))
    rtpcc_sender_tick (self->sender, now);
  for (;;) {
    RtpccWirePacket w;
    GstBuffer *b = rtpcc_sender_dequeue (self->sender, now, &w);
    if (!b)
      break;
    send_packet (self, &w, b, held);
    record_sent (self, now, &w, b, held);
    gst_buffer_unref (b);
  }
  {
    /* probe packets the controller asked for: padding-only RTP, whole */
    RtpccWirePacket w;
    for (guint i = 0; i < 64 && rtpcc_sender_dequeue_probe (self->sender, now,
            &w); i++)
      send_bytes (self, FALSE, w.head, w.head_len);
  }
  {
    /* (room for the SRTCP trailer) */
    gsize n = rtpcc_sender_build_rtcp (self->sender, now, buf, sizeof buf -
        gst_rtpcc_srtp_pair_rtcp_overhead (&self->srtp));
    if (n > 0)
      send_bytes (self, TRUE, buf, n);
  }
}

/* The channel (loss, its bursts) moved since the target was last
 * published: worth publishing again for FEC upstream. Not behind
 * mprtpsched, which takes each path's target for that path's rate and
 * publishes the call's own. With self->lock. */
static gboolean
channel_moved (GstRtpccSink * self)
{
  return !g_atomic_int_get (&self->behind_mprtp)
      && rtpcc_sender_get_channel_generation (self->sender) !=
      self->published_channel;
}

/* After render() sent what was due: does the task have to run before its
 * deadline? It does when the pacer holds a packet back to a time before
 * that deadline (or any other timer moved earlier), and for what only the
 * task does: publishing a new target, retrying a target event upstream,
 * reporting a change of the feedback state. With self->lock. */
static gboolean
task_needed (GstRtpccSink * self, RtpccTime now)
{
  RtpccTime next;

  if ((rtpcc_sender_get_generation (self->sender) != self->published_generation
      || channel_moved (self))
      || g_atomic_int_get (&self->upstream_pending)
      || rtpcc_sender_get_feedback_problem (self->sender, now) !=
      self->feedback_problem)
    return TRUE;
  next = rtpcc_sender_next_timeout (self->sender, now);
  return next != RTPCC_TIME_NONE && (self->task_deadline == RTPCC_TIME_NONE
      || next < self->task_deadline);
}

static void
gst_rtpcc_sink_loop (gpointer user_data)
{
  GstRtpccSink *self = user_data;
  RtpccTime now, next;
  struct pollfd fds[2];
  guint8 buf[2048];
  GstStructure *publish = NULL, *resend = NULL;
  guint64 media_bps = 0, retry_bps = 0;
  gboolean breaker_changed = FALSE, tripped = FALSE;
  gboolean fb_problem_changed = FALSE;
  const gchar *breaker_reason = NULL;

  g_mutex_lock (&self->lock);
  if (self->flushing) {
    /* stop() is stopping the task: returning lets it end. A pause here
     * could come after its gst_task_stop and override it, and the join
     * would wait for ever. */
    g_mutex_unlock (&self->lock);
    g_thread_yield ();
    return;
  }
  now = rtpcc_timebase_now (&self->timebase);
  send_due (self, now, NULL);
  if ((rtpcc_sender_get_generation (self->sender) != self->published_generation
      || channel_moved (self))) {
    const RtpccTarget *t = rtpcc_sender_get_target (self->sender);
    const RtpccSenderStats *st = rtpcc_sender_get_stats (self->sender, now);
    self->published_generation = rtpcc_sender_get_generation (self->sender);
    self->published_channel = rtpcc_sender_get_channel_generation (self->sender);
    publish = target_structure (self, now);
    media_bps = t->media_bitrate;
    tripped = st->breaker_tripped;
    breaker_reason = st->breaker_reason;
    breaker_changed = tripped != self->last_tripped;
    self->last_tripped = tripped;
  } else {
    if (g_atomic_int_get (&self->upstream_pending)
        && !GST_PAD_IS_FLUSHING (GST_BASE_SINK_PAD (self)))
      resend = target_structure (self, now);
    if ((self->encoder.retry_at != RTPCC_TIME_NONE
            && now >= self->encoder.retry_at)
        || gst_rtpcc_encoder_setter_take_reapply (&self->encoder)) {
      self->encoder.retry_at = RTPCC_TIME_NONE;
      retry_bps = rtpcc_sender_get_target (self->sender)->media_bitrate;
    }
  }
  next = rtpcc_sender_next_timeout (self->sender, now);
  {
    const gchar *problem = rtpcc_sender_get_feedback_problem (self->sender,
        now);
    if (problem != self->feedback_problem) {
      fb_problem_changed = TRUE;
      self->feedback_problem = problem;
    }
    /* re-check once the grace period can have expired */
    if (!problem && !rtpcc_sender_has_feedback (self->sender)) {
      RtpccTime check = now + RTPCC_MSEC (500);
      next = next == RTPCC_TIME_NONE ? check : MIN (next, check);
    }
  }
  self->task_deadline = next;
  g_mutex_unlock (&self->lock);

  if (fb_problem_changed) {
    if (self->feedback_problem)
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("No congestion-control feedback from the receiver"),
          ("%s", self->feedback_problem));
    else
      GST_ELEMENT_INFO (self, STREAM, FAILED,
          ("Congestion-control feedback is arriving"), (NULL));
  }

  if (publish)
    publish_target (self, publish, media_bps, breaker_changed, tripped,
        breaker_reason);
  if (resend)
    push_target_upstream (self, resend);
  if (retry_bps && self->props.encoder_control == GST_RTPCC_ENCODER_CONTROL_AUTO
      && !g_atomic_int_get (&self->behind_mprtp))
    gst_rtpcc_encoder_setter_apply (&self->encoder, GST_BASE_SINK_PAD (self),
        rtpcc_timebase_now (&self->timebase), retry_bps);
  if (self->encoder.retry_at != RTPCC_TIME_NONE)
    next = next == RTPCC_TIME_NONE ? self->encoder.retry_at :
        MIN (next, self->encoder.retry_at);

  fds[0].fd = g_socket_get_fd (self->socket);
  fds[0].events = POLLIN;
  fds[1].fd = self->pollfd.fd;
  fds[1].events = POLLIN;
  if (rtpcc_timebase_wait (&self->timebase, GST_OBJECT (self), fds, 2, 1,
          next) < 0 && errno != EINTR) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
        ("poll failed: %s", g_strerror (errno)));
    /* paused unless stop() is under way (see above): stop() sets
     * flushing under the lock before it stops the task */
    g_mutex_lock (&self->lock);
    if (!self->flushing)
      gst_task_pause (self->task);
    g_mutex_unlock (&self->lock);
    return;
  }
  if (fds[1].revents & POLLIN)
    rtpcc_wakeup_drain (self->pollfd.fd);
  if (fds[0].revents & (POLLIN | POLLERR)) {
    gboolean keyunit = FALSE, all_headers = FALSE;
    for (;;) {
      struct sockaddr_storage from;
      socklen_t from_len = sizeof from;
      guint32 drops = 0;
      RtpccAddress addr;
      gssize n = rtpcc_recv_datagram (fds[0].fd, buf, sizeof (buf), &from,
          &from_len, &drops);
      if (n < 0) {
        /* EAGAIN, or an ICMP error after a send: not fatal */
        if (errno == EAGAIN || errno == EWOULDBLOCK)
          break;
        continue;
      }
      g_mutex_lock (&self->lock);
      if (drops)
        self->kernel_drops = drops;
      if (!rtpcc_address_from_sockaddr (&from, from_len, &addr)
          || !rtpcc_address_equal (&addr, &self->peer_key)) {
        /* feedback only from the peer we send to: anything else could
         * steer our rate */
        self->wrong_source++;
      } else {
        gsize len = (gsize) n;
        gboolean ah = FALSE;
        /* with SRTP, only what authenticates (else counted) */
        if ((!gst_rtpcc_srtp_pair_active (&self->srtp)
                || gst_rtpcc_srtp_pair_unprotect (&self->srtp, TRUE, buf,
                    &len)) && receive_feedback (self, buf, len, &ah)) {
          keyunit = TRUE;
          all_headers |= ah;
        }
      }
      g_mutex_unlock (&self->lock);
    }
    gst_rtpcc_sink_offer_rtx (self);
    if (keyunit)
      request_key_unit (self, all_headers);
  }
}

/* ---- GstBaseSink -------------------------------------------------------- */

static gboolean
gst_rtpcc_sink_start (GstBaseSink * bsink)
{
  GstRtpccSink *self = GST_RTPCC_SINK (bsink);
  RtpccSenderConfig cfg;
  GError *err = NULL;
  GInetAddress *addr;
  GSocketAddress *bind_addr, *local;
  GResolver *resolver;
  GList *addrs;
  RtpccTime now;

  rtpcc_sender_config_init (&cfg);
  GST_OBJECT_LOCK (self);
  gst_rtpcc_sender_props_to_config (&self->props, &cfg);
  self->encoder.buffer_ms =
      gst_rtpcc_sender_props_encoder_buffer_ms (&self->props);
  cfg.feedback = self->feedback;
  cfg.circuit_breaker = self->circuit_breaker;
  cfg.rtcp_interval = RTPCC_MSEC (self->rtcp_interval_ms);
  /* Probes on a second SSRC make a stock rtpbin expose a pad for it, and
   * an unlinked pad stops its source; on the media SSRC they are one more
   * (empty) packet of the stream. So auto = media with twcc (the mode for
   * stock and WebRTC receivers); separate with twcc probes only when
   * asked for explicitly. */
  cfg.probe_ssrc_mode = self->probe_ssrc_mode == GST_RTPCC_PROBE_SSRC_MEDIA
      || (self->probe_ssrc_mode == GST_RTPCC_PROBE_SSRC_AUTO
      && self->feedback == RTPCC_FEEDBACK_TWCC) ?
      RTPCC_PROBE_SSRC_MEDIA : RTPCC_PROBE_SSRC_SEPARATE;
  cfg.probing = self->probing_set ? self->probing :
      !(self->feedback == RTPCC_FEEDBACK_TWCC
      && cfg.probe_ssrc_mode == RTPCC_PROBE_SSRC_SEPARATE);
  cfg.cname = self->cname;
  cfg.twcc_ext_id = (guint8) self->twcc_ext_id;
  cfg.fec_pt = g_atomic_int_get (&self->fec_pt);
  cfg.clock_rate = 90000;       /* video; caps could refine it */
  cfg.max_fec_share = self->max_fec_share;
  now = rtpcc_timebase_now (&self->timebase);
  self->ntp_offset = g_get_real_time () * RTPCC_NSEC_PER_USEC - now +
      RTPCC_NTP_UNIX_EPOCH_NS;
  cfg.ntp_offset = self->ntp_offset;
  cfg.seed = (guint64) g_get_real_time ();
  self->sender = rtpcc_sender_new (&cfg, now, &err);
  if (self->sender && !gst_rtpcc_srtp_pair_start (&self->srtp,
          self->srtp_key, self->srtp_suite, &err)) {
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Bad srtp-key: %s", err->message), (NULL));
    g_clear_error (&err);
    goto fail;
  }
  GST_OBJECT_UNLOCK (self);
  if (!self->sender) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    g_clear_error (&err);
    return FALSE;
  }
  rtpcc_sender_set_free_func (self->sender, (GDestroyNotify) gst_buffer_unref);
  {
    RtpccRtxSenderConfig rc;
    rtpcc_rtx_sender_config_init (&rc);
    GST_OBJECT_LOCK (self);
    rc.rtx_pt = (guint8) self->rtx_pt;
    rc.rtx_ssrc = self->rtx_ssrc;
    rc.history.max_age = RTPCC_MSEC (self->rtx_time_ms);
    GST_OBJECT_UNLOCK (self);
    rc.seed = cfg.seed;
    self->rtx = rtpcc_rtx_sender_new (&rc);
    if (rc.rtx_pt != 0) {
      rtpcc_sender_set_urgent_ssrc (self->sender,
          rtpcc_rtx_sender_get_rtx_ssrc (self->rtx));
      /* max-fec-share leaves to NACK what it can repair in time */
      rtpcc_sender_set_nack (self->sender, TRUE);
    }
    self->rtx_scratch = g_malloc (RTX_SCRATCH);
    self->mprtp_seqmap = g_new (RtpccMprtpSeqMap, 1);
    rtpcc_mprtp_seqmap_init (self->mprtp_seqmap);
    self->mprtp_rtx_unmapped = 0;
    self->mprtp_rtx_moved = 0;
    self->keyunit_count = 0;
  }
  GST_OBJECT_LOCK (self);
  if (!gst_rtpcc_sender_props_apply_params (&self->props, self->sender,
          &err)) {
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Bad controller-params: %s", err->message), (NULL));
    g_clear_error (&err);
    goto fail;
  }
  GST_OBJECT_UNLOCK (self);

  /* resolve the peer */
  addr = g_inet_address_new_from_string (self->host);
  if (!addr) {
    resolver = g_resolver_get_default ();
    addrs = g_resolver_lookup_by_name (resolver, self->host, NULL, &err);
    g_object_unref (resolver);
    if (!addrs) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("Cannot resolve host \"%s\"", self->host), ("%s", err->message));
      g_clear_error (&err);
      goto fail;
    }
    addr = g_object_ref (addrs->data);
    g_resolver_free_addresses (addrs);
  }
  self->peer = g_inet_socket_address_new (addr, self->port);
  memset (&self->peer_native, 0, sizeof self->peer_native);
  self->peer_native_len = 0;
  if (g_socket_address_to_native (self->peer, &self->peer_native,
          sizeof self->peer_native, NULL))
    self->peer_native_len =
        (socklen_t) g_socket_address_get_native_size (self->peer);
  if (self->peer_native_len == 0
      || !rtpcc_address_from_sockaddr (&self->peer_native,
          self->peer_native_len, &self->peer_key))
    rtpcc_address_set (&self->peer_key, NULL, 0);
  self->socket = g_socket_new (g_inet_address_get_family (addr),
      G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_UDP, &err);
  g_object_unref (addr);
  if (!self->socket) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ_WRITE, (NULL),
        ("socket: %s", err->message));
    g_clear_error (&err);
    goto fail;
  }
  g_socket_set_blocking (self->socket, FALSE);
  rtpcc_socket_report_drops (g_socket_get_fd (self->socket));
  self->kernel_drops = 0;
  {
    GInetAddress *ba = g_inet_address_new_from_string (self->bind_address);
    if (!ba || g_inet_address_get_family (ba) !=
        g_socket_get_family (self->socket)) {
      g_clear_object (&ba);
      ba = g_inet_address_new_any (g_socket_get_family (self->socket));
    }
    bind_addr = g_inet_socket_address_new (ba, self->bind_port);
    g_object_unref (ba);
  }
  if (!g_socket_bind (self->socket, bind_addr, TRUE, &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ_WRITE,
        ("Cannot bind to port %d", self->bind_port), ("%s", err->message));
    g_clear_error (&err);
    g_object_unref (bind_addr);
    goto fail;
  }
  g_object_unref (bind_addr);
  local = g_socket_get_local_address (self->socket, NULL);
  self->bound_port = local ?
      g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)) : 0;
  g_clear_object (&local);
  /* a video frame leaves as a burst: give the kernel room for it */
  g_socket_set_option (self->socket, SOL_SOCKET, SO_SNDBUF, 1 << 21, NULL);

  rtpcc_wakeup_drain (self->pollfd.fd);
  self->flushing = FALSE;
  self->published_generation = G_MAXUINT64;
  self->published_channel = G_MAXUINT64;
  self->last_tripped = FALSE;
  self->feedback_problem = NULL;
  g_atomic_int_set (&self->behind_mprtp, FALSE);
  g_atomic_int_set (&self->mprtp_ext_id, 0);
  self->mprtp_missing = 0;
  /* the sticky events that set these went with the deactivated pad; a
   * restarted upstream sends them again */
  self->fec_block_time = GST_CLOCK_TIME_NONE;
  gst_rtpcc_encoder_setter_reset (&self->encoder);
  g_atomic_int_set (&self->upstream_pending, FALSE);
  self->task_deadline = RTPCC_TIME_NONE;
  self->task = gst_task_new (gst_rtpcc_sink_loop, self, NULL);
  gst_object_set_name (GST_OBJECT (self->task), "rtpccsink:pacer");
  gst_task_set_lock (self->task, &self->task_lock);
  gst_task_start (self->task);
  return TRUE;

fail:
  g_clear_object (&self->peer);
  g_clear_object (&self->socket);
  gst_rtpcc_srtp_pair_stop (&self->srtp);
  rtpcc_sender_free (self->sender);
  self->sender = NULL;
  rtpcc_rtx_sender_free (self->rtx);
  self->rtx = NULL;
  g_clear_pointer (&self->rtx_scratch, g_free);
  g_clear_pointer (&self->mprtp_seqmap, g_free);
  return FALSE;
}

static gboolean
gst_rtpcc_sink_stop (GstBaseSink * bsink)
{
  GstRtpccSink *self = GST_RTPCC_SINK (bsink);

  if (self->task) {
    g_mutex_lock (&self->lock);
    self->flushing = TRUE;
    g_mutex_unlock (&self->lock);
    gst_task_stop (self->task);
    wake_task (self);
    gst_task_join (self->task);
    gst_object_unref (self->task);
    self->task = NULL;
  }
  g_mutex_lock (&self->lock);
  rtpcc_sender_free (self->sender);
  self->sender = NULL;
  gst_rtpcc_srtp_pair_stop (&self->srtp);
  rtpcc_rtx_sender_free (self->rtx);
  self->rtx = NULL;
  g_clear_pointer (&self->rtx_scratch, g_free);
  g_clear_pointer (&self->mprtp_seqmap, g_free);
  g_array_set_size (self->mprtp_offers, 0);
  g_mutex_unlock (&self->lock);
  if (self->socket)
    g_socket_close (self->socket, NULL);
  g_clear_object (&self->socket);
  g_clear_object (&self->peer);
  return TRUE;
}

static GstFlowReturn
gst_rtpcc_sink_render (GstBaseSink * bsink, GstBuffer * buffer)
{
  GstRtpccSink *self = GST_RTPCC_SINK (bsink);
  HeldMap held;
  gboolean wake = FALSE;

  if (!gst_rtpcc_buffer_map_read (buffer, &held.map)) {
    g_mutex_lock (&self->lock);
    self->invalid_rtp++;
    g_mutex_unlock (&self->lock);
    return GST_FLOW_OK;
  }
  g_mutex_lock (&self->lock);
  if (self->sender) {
    const guint8 *data = held.map.data;
    gsize len = held.map.size;
    guint8 head[256];
    gint ext_id = g_atomic_int_get (&self->mprtp_ext_id);
    RtpccTime now = rtpcc_timebase_now (&self->timebase);

    if (ext_id > 0) {
      /* the sender gets a copy of the header numbered by the subflow seq
       * (it reads nothing past the header; send_packet puts the media seq
       * back) */
      gsize hdr_len = rtpcc_mprtp_subflow_header (held.map.data,
          held.map.size, (guint8) ext_id, head, sizeof head);

      if (hdr_len > 0) {
        data = head;
        len = hdr_len;
        if (self->mprtp_seqmap)
          rtpcc_mprtp_seqmap_put (self->mprtp_seqmap,
              GST_READ_UINT16_BE (head + 2),
              GST_READ_UINT16_BE (held.map.data + 2));
      } else {
        self->mprtp_missing++;
      }
    }
    /* not RTP: never put on the wire, counted by the sender (it frees the
     * reference in any case) */
    rtpcc_sender_set_fec_pt (self->sender, g_atomic_int_get (&self->fec_pt));
    if (GST_CLOCK_TIME_IS_VALID (self->fec_block_time))
      rtpcc_sender_set_fec_block_time (self->sender,
          (RtpccTime) self->fec_block_time);
    if (rtpcc_sender_enqueue_rtp (self->sender, now, data, len, held.map.size,
            gst_buffer_ref (buffer)) == RTPCC_SENDER_INVALID)
      GST_LOG_OBJECT (self, "dropping a buffer that is not valid RTP");
    /* what the pacer lets go now leaves from this thread, without a
     * wake-up and a context switch per packet; only a packet pacing holds
     * back (or work of the task's own) wakes the task */
    held.buffer = buffer;
    send_due (self, now, &held);
    wake = task_needed (self, now);
    /* the encoder's output against its target: a changed correction is
     * applied from the task */
    if (self->props.encoder_control == GST_RTPCC_ENCODER_CONTROL_AUTO
        && !g_atomic_int_get (&self->behind_mprtp)
        && gst_rtpcc_encoder_setter_produced (&self->encoder,
            GST_BUFFER_PTS (buffer), held.map.data, held.map.size,
            g_atomic_int_get (&self->fec_pt)))
      wake = TRUE;
    if (wake)
      self->task_wakeups++;
  }
  g_mutex_unlock (&self->lock);
  gst_buffer_unmap (buffer, &held.map);
  if (wake)
    wake_task (self);
  return GST_FLOW_OK;
}

/* mprtpsched announces itself with a sticky rtpcc-mprtp event on each of
 * its src pads; a sendbuffer upstream tells its frame room, which bounds
 * the encoder's rate-control buffer */
static gboolean
gst_rtpcc_sink_event (GstBaseSink * bsink, GstEvent * event)
{
  GstRtpccSink *self = GST_RTPCC_SINK (bsink);
  guint ext_id = 0, subflow = 0;
  GstClockTime room, block_time;

  if (gst_rtpcc_frame_room_event_parse (event, &room)) {
    GST_DEBUG_OBJECT (self, "frame room %" GST_TIME_FORMAT,
        GST_TIME_ARGS (room));
    gst_rtpcc_encoder_setter_set_room (&self->encoder, room);
    wake_task (self);
  }

  if (gst_rtpcc_fec_encoder_event_parse (event, &block_time)) {
    /* max-fec-share reserves for codes that fill a block within it;
     * applied with the next packet (render) */
    GST_DEBUG_OBJECT (self, "FEC encoder upstream: blocks within %"
        GST_TIME_FORMAT, GST_TIME_ARGS (block_time));
    self->fec_block_time = block_time;
  }

  if (gst_rtpcc_mprtp_event_parse (event, &ext_id, &subflow)) {
    /* ext-id 0: one path alone, no extension; the encoder is mprtpsched's
     * in any case */
    GST_INFO_OBJECT (self, "behind mprtpsched: subflow %u, extension %u",
        subflow, ext_id);
    g_atomic_int_set (&self->mprtp_ext_id, (gint) ext_id);
    g_atomic_int_set (&self->behind_mprtp, TRUE);
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (bsink, event);
}

static gboolean
gst_rtpcc_sink_set_caps (GstBaseSink * bsink, GstCaps * caps)
{
  /* clock-rate in the caps could refine SR timestamps; 90 kHz is assumed
   * for video otherwise */
  return TRUE;
}

/* The pipeline's clock from PLAYING on (a GstTestClock in tests): the
 * sender's timeline continues on it (rtpcctimebase.h), and the task waits
 * on it from its next wake-up. */
static gboolean
gst_rtpcc_sink_set_clock (GstElement * element, GstClock * clock)
{
  GstRtpccSink *self = GST_RTPCC_SINK (element);

  if (rtpcc_timebase_set_clock (&self->timebase, clock))
    wake_task (self);
  return GST_ELEMENT_CLASS (parent_class)->set_clock (element, clock);
}

/* ---- GObject ------------------------------------------------------------ */

/* a time for the stats: ns, 0 when unknown */
static guint64
xr_time (RtpccTime t)
{
  return t == RTPCC_TIME_NONE || t < 0 ? 0 : (guint64) t;
}

static GstStructure *
make_stats (GstRtpccSink * self)
{
  GstStructure *s;
  const RtpccSenderStats *st;
  RtpccTime now;

  g_mutex_lock (&self->lock);
  if (!self->sender) {
    s = gst_structure_new ("application/x-rtpcc-sink-stats",
        "invalid-rtp", G_TYPE_UINT64, self->invalid_rtp,
        "task-wakeups", G_TYPE_UINT64, self->task_wakeups,
        "rtcp-wrong-source", G_TYPE_UINT64, self->wrong_source, NULL);
    gst_rtpcc_srtp_pair_add_stats (&self->srtp, s);
    g_mutex_unlock (&self->lock);
    return s;
  }
  now = rtpcc_timebase_now (&self->timebase);
  st = rtpcc_sender_get_stats (self->sender, now);
  s = gst_structure_new ("application/x-rtpcc-sink-stats",
      "send-errors", G_TYPE_UINT64, self->send_errors,
      "task-wakeups", G_TYPE_UINT64, self->task_wakeups,
      "invalid-rtp", G_TYPE_UINT64, self->invalid_rtp + st->invalid_rtp,
      "rtcp-received", G_TYPE_UINT64, st->rtcp_received,
      "rtcp-sent", G_TYPE_UINT64, st->rtcp_sent,
      "rtcp-malformed", G_TYPE_UINT64, st->rtcp_malformed,
      "rtcp-unknown-ssrc", G_TYPE_UINT64, st->rtcp_unknown_ssrc,
      "feedback-implausible", G_TYPE_UINT64, st->feedback_implausible,
      "feedback-contradictory", G_TYPE_UINT64, st->feedback_contradictory,
      "delivery-rate", G_TYPE_UINT64, st->delivery_rate,
      "rtcp-wrong-source", G_TYPE_UINT64, self->wrong_source,
      "kernel-drops", G_TYPE_UINT64, (guint64) self->kernel_drops,
      "probe-bytes", G_TYPE_UINT64, st->probe_bytes,
      "probe-media-packets", G_TYPE_UINT64, st->probe_media_packets,
      "fec-rewritten", G_TYPE_UINT64, st->fec_rewritten,
      "fec-rewrite-drops", G_TYPE_UINT64, st->fec_rewrite_drops,
      "mprtp-missing", G_TYPE_UINT64, self->mprtp_missing,
      "mprtp-rtx-unmapped", G_TYPE_UINT64, self->mprtp_rtx_unmapped,
      "mprtp-rtx-moved", G_TYPE_UINT64, self->mprtp_rtx_moved,
      "mprtcp-received", G_TYPE_UINT64, st->mprtcp_received,
      "mprtcp-rejected", G_TYPE_UINT64, st->mprtcp_rejected,
      "tmmbr-received", G_TYPE_UINT64, st->tmmbr_received,
      "tmmbn-sent", G_TYPE_UINT64, st->tmmbn_sent,
      "remb-received", G_TYPE_UINT64, st->remb_received,
      "remb-expired", G_TYPE_UINT64, st->remb_expired,
      "nadu-received", G_TYPE_UINT64, st->nadu_received,
      "nadu-rejected", G_TYPE_UINT64, st->nadu_rejected,
      "nadu-playout-delay", G_TYPE_UINT64, st->nadu_playout_delay ==
      RTPCC_TIME_NONE ? GST_CLOCK_TIME_NONE : (guint64) st->nadu_playout_delay,
      "xr-blocks", G_TYPE_UINT64, st->xr.blocks,
      "xr-dropped", G_TYPE_UINT64, st->xr.dropped,
      "xr-loss-lost", G_TYPE_UINT64, st->xr.loss_lost,
      "xr-loss-received", G_TYPE_UINT64, st->xr.loss_received,
      "xr-post-repair-lost", G_TYPE_UINT64, st->xr.post_repair_lost,
      "xr-post-repair-received", G_TYPE_UINT64, st->xr.post_repair_received,
      "xr-discarded-packets", G_TYPE_UINT64, st->xr.discarded_packets,
      "xr-discarded-bytes", G_TYPE_UINT64, st->xr.discarded_bytes,
      "xr-rtt-mean", G_TYPE_UINT64, xr_time (st->xr.rtt_mean),
      "xr-rtt-min", G_TYPE_UINT64, xr_time (st->xr.rtt_min),
      "xr-rtt-max", G_TYPE_UINT64, xr_time (st->xr.rtt_max),
      "xr-djb-nominal", G_TYPE_UINT64, xr_time (st->xr.djb_nominal),
      "xr-djb-maximum", G_TYPE_UINT64, xr_time (st->xr.djb_maximum),
      "xr-djb-high-water", G_TYPE_UINT64, xr_time (st->xr.djb_high),
      "xr-djb-low-water", G_TYPE_UINT64, xr_time (st->xr.djb_low),
      "receiver-limit", G_TYPE_UINT64, st->receiver_limit == G_MAXUINT64 ?
      (guint64) 0 : st->receiver_limit,
      "report-interval-asked", G_TYPE_UINT64,
      (guint64) MAX (st->report_interval_asked, 0),
      "feedback-problem", G_TYPE_STRING,
      rtpcc_sender_get_feedback_problem (self->sender, now),
      "fec-block-time", G_TYPE_UINT64, (guint64) self->fec_block_time, NULL);
  gst_rtpcc_sender_props_add_stats (s, self->sender, now, &self->encoder);
  if (st->mprtcp_received > 0)
    gst_structure_set (s,
        "subflow-id", G_TYPE_UINT, (guint) st->subflow_report.subflow_id,
        "subflow-fraction-lost", G_TYPE_UINT,
        (guint) st->subflow_report.rr.fraction_lost,
        "subflow-lost", G_TYPE_INT, st->subflow_report.rr.cumulative_lost,
        "subflow-highest-seq", G_TYPE_UINT,
        st->subflow_report.rr.ext_highest_seq,
        "subflow-discards", G_TYPE_UINT64,
        (guint64) st->subflow_report.discards, NULL);
  gst_rtpcc_srtp_pair_add_stats (&self->srtp, s);
  if (self->rtx) {
    RtpccRtxSenderStats rs;
    rtpcc_rtx_sender_get_stats (self->rtx, &rs);
    gst_structure_set (s,
        "rtx-ssrc", G_TYPE_UINT, rtpcc_rtx_sender_get_rtx_ssrc (self->rtx),
        "nacks-received", G_TYPE_UINT64, rs.nacks_received,
        "nacked-packets", G_TYPE_UINT64, rs.nacked_packets,
        "rtx-sent", G_TYPE_UINT64, rs.rtx_sent,
        "rtx-bytes", G_TYPE_UINT64, rs.rtx_bytes,
        "rtx-dropped", G_TYPE_UINT64, rs.rtx_dropped,
        "rtx-unknown", G_TYPE_UINT64, rs.rtx_unknown,
        "rtx-too-old", G_TYPE_UINT64, rs.rtx_too_old,
        "rtx-too-soon", G_TYPE_UINT64, rs.rtx_too_soon,
        "rtx-over-budget", G_TYPE_UINT64, rs.rtx_over_budget,
        "rtx-off", G_TYPE_UINT64, rs.rtx_off,
        "plis-received", G_TYPE_UINT64, rs.plis_received,
        "firs-received", G_TYPE_UINT64, rs.firs_received,
        "keyunit-requests", G_TYPE_UINT64, rs.keyunit_requests,
        "keyunit-suppressed", G_TYPE_UINT64, rs.keyunit_suppressed,
        "repair-malformed", G_TYPE_UINT64, rs.rtcp_malformed,
        "repair-foreign", G_TYPE_UINT64, rs.rtcp_foreign, NULL);
  }
  g_mutex_unlock (&self->lock);
  return s;
}

static void
gst_rtpcc_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRtpccSink *self = GST_RTPCC_SINK (object);

  if (gst_rtpcc_sender_props_set_property (&self->props, GST_OBJECT (self),
          PROP_SENDER, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_HOST:
      gst_rtpcc_set_string_prop (&self->host, value, DEFAULT_HOST);
      break;
    case PROP_PORT:
      self->port = g_value_get_int (value);
      break;
    case PROP_BIND_ADDRESS:
      gst_rtpcc_set_string_prop (&self->bind_address, value, DEFAULT_BIND_ADDRESS);
      break;
    case PROP_BIND_PORT:
      self->bind_port = g_value_get_int (value);
      break;
    case PROP_FEEDBACK:
      self->feedback = g_value_get_enum (value);
      break;
    case PROP_CIRCUIT_BREAKER:
      self->circuit_breaker = g_value_get_boolean (value);
      break;
    case PROP_RTCP_INTERVAL:
      self->rtcp_interval_ms = g_value_get_uint (value);
      break;
    case PROP_CNAME:
      gst_rtpcc_set_string_prop (&self->cname, value, DEFAULT_CNAME);
      break;
    case PROP_TWCC_EXT_ID:
      self->twcc_ext_id = g_value_get_uint (value);
      break;
    case PROP_FEC_PT:
      g_atomic_int_set (&self->fec_pt, g_value_get_int (value));
      break;
    case PROP_PROBING:
      self->probing = g_value_get_boolean (value);
      self->probing_set = TRUE;
      break;
    case PROP_PROBE_SSRC_MODE:
      self->probe_ssrc_mode = g_value_get_enum (value);
      break;
    case PROP_SRTP_KEY:
      gst_rtpcc_srtp_set_key (&self->srtp_key, value);
      break;
    case PROP_SRTP_SUITE:
      self->srtp_suite = g_value_get_enum (value);
      break;
    case PROP_RTX_PAYLOAD_TYPE:
      self->rtx_pt = g_value_get_uint (value);
      break;
    case PROP_RTX_SSRC:
      self->rtx_ssrc = g_value_get_uint (value);
      break;
    case PROP_RTX_TIME:
      self->rtx_time_ms = g_value_get_uint (value);
      break;
    case PROP_MAX_FEC_SHARE:
      self->max_fec_share = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rtpcc_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstRtpccSink *self = GST_RTPCC_SINK (object);

  if (gst_rtpcc_sender_props_get_property (&self->props, GST_OBJECT (self),
          PROP_SENDER, prop_id, value, &self->lock, &self->sender))
    return;
  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, make_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_HOST:
      g_value_set_string (value, self->host);
      break;
    case PROP_PORT:
      g_value_set_int (value, self->port);
      break;
    case PROP_BIND_ADDRESS:
      g_value_set_string (value, self->bind_address);
      break;
    case PROP_BIND_PORT:
      g_value_set_int (value, self->bind_port);
      break;
    case PROP_FEEDBACK:
      g_value_set_enum (value, self->feedback);
      break;
    case PROP_CIRCUIT_BREAKER:
      g_value_set_boolean (value, self->circuit_breaker);
      break;
    case PROP_RTCP_INTERVAL:
      g_value_set_uint (value, self->rtcp_interval_ms);
      break;
    case PROP_CNAME:
      g_value_set_string (value, self->cname);
      break;
    case PROP_TWCC_EXT_ID:
      g_value_set_uint (value, self->twcc_ext_id);
      break;
    case PROP_FEC_PT:
      g_value_set_int (value, g_atomic_int_get (&self->fec_pt));
      break;
    case PROP_PROBING:
      g_value_set_boolean (value, self->probing);
      break;
    case PROP_PROBE_SSRC_MODE:
      g_value_set_enum (value, self->probe_ssrc_mode);
      break;
    case PROP_SRTP_SUITE:
      g_value_set_enum (value, self->srtp_suite);
      break;
    case PROP_RTX_PAYLOAD_TYPE:
      g_value_set_uint (value, self->rtx_pt);
      break;
    case PROP_RTX_SSRC:
      g_value_set_uint (value, self->rtx_ssrc);
      break;
    case PROP_RTX_TIME:
      g_value_set_uint (value, self->rtx_time_ms);
      break;
    case PROP_MAX_FEC_SHARE:
      g_value_set_double (value, self->max_fec_share);
      break;
    case PROP_BOUND_PORT:
      g_value_set_int (value, self->bound_port);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rtpcc_sink_finalize (GObject * object)
{
  GstRtpccSink *self = GST_RTPCC_SINK (object);

  g_free (self->host);
  g_free (self->bind_address);
  gst_rtpcc_sender_props_clear (&self->props);
  g_free (self->cname);
  gst_rtpcc_srtp_set_key (&self->srtp_key, NULL);
  gst_rtpcc_srtp_pair_stop (&self->srtp);
  g_array_unref (self->mprtp_offers);
  g_mutex_clear (&self->lock);
  g_rec_mutex_clear (&self->task_lock);
  gst_rtpcc_encoder_setter_clear (&self->encoder);
  rtpcc_timebase_clear (&self->timebase);
  /* only now: a clock id of the task may still write to it until it is
   * freed, and it holds a reference to us */
  if (self->pollfd.fd >= 0)
    close (self->pollfd.fd);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* "ccid2, fbra, ...": the controllers registered now */
static gchar *
controller_names (void)
{
  gchar **names = rtpcc_controller_list ();
  gchar *joined = g_strjoinv (", ", names);

  g_strfreev (names);
  return joined;
}

static void
gst_rtpcc_sink_class_init (GstRtpccSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *basesink_class = GST_BASE_SINK_CLASS (klass);
  /* GstBaseSink starts (socket, sender) on NULL→READY: settings apply from
   * the next NULL→READY, so they are not flagged mutable in READY */
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  gchar *controllers = controller_names (), *desc;

  gobject_class->set_property = gst_rtpcc_sink_set_property;
  gobject_class->get_property = gst_rtpcc_sink_get_property;
  gobject_class->finalize = gst_rtpcc_sink_finalize;

  /**
   * GstRtpccSink:host:
   *
   * The receiver's address (name or literal). Feedback is accepted only from
   * this address and port.
   */
  g_object_class_install_property (gobject_class, PROP_HOST,
      g_param_spec_string ("host", "Host", "Receiver address", DEFAULT_HOST,
          rw));
  /**
   * GstRtpccSink:port:
   *
   * The receiver's UDP port; RTP and RTCP share it (RTCP-mux, RFC 5761).
   */
  g_object_class_install_property (gobject_class, PROP_PORT,
      g_param_spec_int ("port", "Port", "Receiver UDP port (RTP and RTCP)", 1,
          65535, DEFAULT_PORT, rw));
  /**
   * GstRtpccSink:bind-address:
   *
   * Local address to bind the socket to.
   */
  g_object_class_install_property (gobject_class, PROP_BIND_ADDRESS,
      g_param_spec_string ("bind-address", "Bind address",
          "Local address to bind to", DEFAULT_BIND_ADDRESS, rw));
  /**
   * GstRtpccSink:bind-port:
   *
   * Local UDP port (0 = any); feedback comes back to it.
   */
  g_object_class_install_property (gobject_class, PROP_BIND_PORT,
      g_param_spec_int ("bind-port", "Bind port",
          "Local UDP port (0 = chosen by the system)", 0, 65535,
          DEFAULT_BIND_PORT, rw));
  /* controller, controller-params, min/max/start-bitrate, encoder-control,
   * pacing, max-pacing-delay, target-bitrate (gstrtpccsenderprops.h) */
  gst_rtpcc_sender_props_install (gobject_class, PROP_SENDER,
      DEFAULT_CONTROLLER, DEFAULT_MAX_PACING_DELAY, DEFAULT_ENCODER_BUFFER);
  /**
   * GstRtpccSink:feedback:
   *
   * Which feedback the receiver is expected to send: "ccfb" (RFC 8888, with
   * RTT from its report timestamps), "rr" (RTCP RR only), or "twcc"
   * (transport-wide CC as stock rtpbin/webrtcbin receivers send it; every
   * packet is stamped with the twcc-ext-id header extension).
   */
  g_object_class_install_property (gobject_class, PROP_FEEDBACK,
      g_param_spec_enum ("feedback", "Feedback", "Feedback mode",
          gst_rtpcc_feedback_mode_get_type (), DEFAULT_FEEDBACK, rw));
  /**
   * GstRtpccSink:circuit-breaker:
   *
   * RFC 8083 circuit breakers.
   */
  g_object_class_install_property (gobject_class, PROP_CIRCUIT_BREAKER,
      g_param_spec_boolean ("circuit-breaker", "Circuit breaker",
          "Enable the RFC 8083 circuit breakers", DEFAULT_CIRCUIT_BREAKER, rw));
  /**
   * GstRtpccSink:rtcp-interval:
   *
   * Mean interval between sender reports, in ms (randomised ±50 %).
   */
  g_object_class_install_property (gobject_class, PROP_RTCP_INTERVAL,
      g_param_spec_uint ("rtcp-interval", "RTCP interval",
          "Mean RTCP SR interval (ms)", 100, 60000, DEFAULT_RTCP_INTERVAL, rw));
  /**
   * GstRtpccSink:cname:
   *
   * SDES CNAME in our RTCP.
   */
  g_object_class_install_property (gobject_class, PROP_CNAME,
      g_param_spec_string ("cname", "CNAME", "RTCP SDES CNAME", DEFAULT_CNAME,
          rw));
  /**
   * GstRtpccSink:twcc-ext-id:
   *
   * RFC 8285 one-byte header extension ID for the transport-wide sequence
   * number, stamped on every packet when feedback=twcc. A receiver needs the
   * same ID (rtpccsrc twcc-ext-id, or extmap-ID=<TWCC URI> in a stock
   * receiver's caps).
   */
  g_object_class_install_property (gobject_class, PROP_TWCC_EXT_ID,
      g_param_spec_uint ("twcc-ext-id", "TWCC extension ID",
          "One-byte header extension ID for transport-wide seqs (twcc mode)",
          1, 14, DEFAULT_TWCC_EXT_ID, rw));
  /**
   * GstRtpccSink:fec-pt:
   *
   * Payload type of FEC packets (fecenc's pt): packets with it are sent
   * and accounted as FEC (RtpccRtpInfo.is_fec), not media. -1 = no FEC
   * classification. Can change while playing: it applies from the next
   * packet.
   */
  g_object_class_install_property (gobject_class, PROP_FEC_PT,
      g_param_spec_int ("fec-pt", "FEC payload type",
          "Payload type of FEC packets (-1 = none)", -1, 127, DEFAULT_FEC_PT,
          rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstRtpccSink:probing:
   *
   * When the controller asks for probe bytes (gcc after a drop, or when
   * application-limited), send them as padding-only RTP packets (no
   * payload: receivers decode nothing from them), where probe-ssrc-mode
   * says. Default: on, except with feedback=twcc and
   * probe-ssrc-mode=separate, where the peer is likely a stock
   * rtpbin/webrtcbin, which exposes a pad for the extra SSRC (its source
   * stops if nothing links it; rtpbin max-streams=1 avoids that). Setting
   * the property explicitly overrides the default.
   */
  g_object_class_install_property (gobject_class, PROP_PROBING,
      g_param_spec_boolean ("probing", "Probing",
          "Send padding-only probe packets when the controller asks", TRUE,
          rw));
  /**
   * GstRtpccSink:probe-ssrc-mode:
   *
   * Where padding probes go. "separate": an SSRC of their own (own seq
   * space; a stock rtpbin exposes a pad for it). "media": the media SSRC,
   * as libwebrtc pads without RTX — the next seq, the last media packet's
   * PT and timestamp, marker 0, only after a frame's last packet (marker
   * bit), and never on an SSRC FEC protects (a fec-pt packet names it, or
   * is on it); that SSRC is renumbered on the wire (original seq + the
   * padding packets sent so far, so gaps from upstream stay gaps) and
   * fecenc's FEC headers are rewritten to match. "auto" (default): media
   * with feedback=twcc, separate otherwise (our rtpccsrc drops padding of
   * either kind before the depayloader).
   */
  g_object_class_install_property (gobject_class, PROP_PROBE_SSRC_MODE,
      g_param_spec_enum ("probe-ssrc-mode", "Probe SSRC mode",
          "Where padding probes go: the media SSRC or one of their own",
          gst_rtpcc_probe_ssrc_mode_get_type (), GST_RTPCC_PROBE_SSRC_AUTO,
          rw));
  /**
   * GstRtpccSink:bound-port:
   *
   * The local UDP port actually bound (useful with bind-port=0).
   */
  g_object_class_install_property (gobject_class, PROP_BOUND_PORT,
      g_param_spec_int ("bound-port", "Bound port", "Local UDP port in use",
          0, 65535, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstRtpccSink:rtx-payload-type:
   *
   * Payload type of RFC 4588 retransmissions (SSRC-multiplexed, on an SSRC
   * of their own, rtx-ssrc). Generic NACKs (RFC 4585) from the receiver
   * are answered from a history of the packets sent (rtx-time): an RTX
   * packet is queued like media, so it is paced and counted as sent by
   * the controller, and retransmissions are limited to the target bitrate
   * over one second. 0 (default): off, NACKs are only counted. Off by
   * default because the receiver must know the payload type (SDP
   * "a=fmtp:<rtx-pt> apt=<media-pt>"): a stock rtpbin that has not been
   * told would expose the RTX SSRC as a new stream. PLI and FIR are
   * always turned into a GstForceKeyUnit event upstream (all-headers
   * TRUE for a FIR), at most once per max(RTT, 300 ms).
   */
  g_object_class_install_property (gobject_class, PROP_RTX_PAYLOAD_TYPE,
      g_param_spec_uint ("rtx-payload-type", "RTX payload type",
          "Payload type of RFC 4588 retransmissions (0 = no retransmission)",
          0, 127, DEFAULT_RTX_PT, rw));
  /**
   * GstRtpccSink:rtx-ssrc:
   *
   * SSRC of the retransmission stream; 0 (default): a random one (read it
   * from the stats, "rtx-ssrc"). rtpccsrc learns it from the first packet
   * of its rtx-payload-type.
   */
  g_object_class_install_property (gobject_class, PROP_RTX_SSRC,
      g_param_spec_uint ("rtx-ssrc", "RTX SSRC",
          "SSRC of retransmissions (0 = random)", 0, G_MAXUINT32,
          DEFAULT_RTX_SSRC, rw));
  /**
   * GstRtpccSink:rtx-time:
   *
   * How long sent packets are kept for retransmission, in ms: a packet
   * is retransmitted only if it can still arrive within this time of its
   * first sending (the receiver's playout delay bounds what is useful).
   */
  g_object_class_install_property (gobject_class, PROP_RTX_TIME,
      g_param_spec_uint ("rtx-time", "RTX time",
          "Keep sent packets this long for retransmission (ms)", 10, 10000,
          DEFAULT_RTX_TIME, rw));
  /**
   * GstRtpccSink:max-fec-share:
   *
   * FEC that follows the channel, whatever the controller: while the
   * receiver reports loss, up to this part of the target is taken from
   * the media (the encoder's bitrate) and published as the "rtpcc-target"
   * event's fec-bitrate, for an FEC encoder upstream (`fecenc
   * scheme=auto`) to spend. As much is taken as the code the channel
   * needs in bytes (parity packets are as long as the longest they
   * protect): the least parity that leaves a negligible residual loss on
   * the measured loss rate and burst length, else all this share allows
   * (blocks that fill within the max-block-time fecenc upstream announces
   * in its rtpcc-fec-encoder event, else 100 ms, its default).
   * With retransmissions on (rtx-payload-type) and a receiver that reports
   * its playout delay (RTCP XR de-jitter buffer metrics: rtpccsrc
   * xr-blocks=dejitter), the code is chosen for what NACK leaves: when a
   * round trip fits in that delay a loss gets one retransmission, and
   * where NACK alone leaves a negligible loss no FEC is reserved (stats
   * "fec-nack-chances").
   * Nothing is taken while nothing is lost, and no padding is sent for
   * it. A controller's own FEC share (fbra, gcc's probes, fixed's
   * fec-share) counts towards it. 0 (the default) turns it off; stats
   * "fec-reserved" says how many bit/s are taken. Applies from the next
   * NULL→READY change.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_FEC_SHARE,
      g_param_spec_double ("max-fec-share", "Maximum FEC share",
          "Most of the target given to FEC while the channel loses packets "
          "(0 = off)", 0.0, 0.5, DEFAULT_MAX_FEC_SHARE, rw));
  /**
   * GstRtpccSink:stats:
   *
   * Counters and estimates ("application/x-rtpcc-sink-stats"): packets and
   * bytes sent, drops by reason, RTCP received / malformed / unknown SSRC /
   * wrong source, kernel-drops (datagrams the kernel dropped for want of
   * buffer space, SO_RXQ_OVFL), task-wakeups (buffers after which the
   * streaming thread woke the sending thread: a packet the pacer held
   * back, a target to publish; the others left from the streaming thread
   * itself), per-packet reports dropped as implausible
   * or contradictory, delivery-rate (what the path delivered, from the
   * acknowledgements: the media target is not raised above three times
   * it), RTT, loss, loss-burst, loss-window, fec-reserved (bit/s of the
   * media target given to FEC by max-fec-share), fec-nack-chances (the
   * retransmissions max-fec-share counted on), receive rate, queue
   * delay, target, state; the
   * receiver's maximum: tmmbr-received, tmmbn-sent, remb-received,
   * remb-expired (REMB limits lifted after 5 s without a REMB),
   * nadu-received / nadu-rejected (NADU APP blocks about our media,
   * malformed "PSS0" packets) and nadu-playout-delay (ns, the latest
   * block's; GST_CLOCK_TIME_NONE when not reported or nothing waits),
   * the receiver's RTCP XR blocks (rtpccsrc xr-blocks): xr-blocks (used),
   * xr-dropped (malformed, or an I / DT value their RFC does not allow),
   * xr-loss-lost / -received and xr-post-repair-lost / -received
   * (packets in Loss RLE, RFC 3611, and Post-repair Loss RLE, RFC 5725),
   * xr-discarded-packets / -bytes (RFC 7002 / RFC 7243, as reported),
   * xr-rtt-mean / -min / -max (RFC 6843, ns), xr-djb-nominal / -maximum /
   * -high-water / -low-water (RFC 7005, ns); times are 0 when the
   * receiver said "unavailable", fec-block-time (ns, the max-block-time
   * the FEC encoder upstream announced, which max-fec-share's codes fill
   * within; GST_CLOCK_TIME_NONE: no FEC encoder announced one),
   * receiver-limit (bit/s the target is held at or below, 0 = none;
   * RFC 5104 TMMBR, REMB); on one path of a multipath call
   * (docs/multipath.md): mprtp-missing, mprtp-rtx-unmapped (NACKed
   * packets not retransmitted: the media seq of their subflow seq was no
   * longer known), mprtp-rtx-moved (retransmissions mprtpsched sent on
   * another path, with a clearly lower RTT, instead of this one; they
   * are in rtx-sent too, not in packets-sent), mprtcp-received /
   * mprtcp-rejected (MPRTCP subflow reports about our media, and PT 211 packets dropped)
   * and, once one came, the latest: subflow-id, subflow-fraction-lost
   * (/256), subflow-lost (cumulative), subflow-highest-seq (extended
   * highest subflow sequence number), subflow-discards (cumulative); report-interval-asked (ns, the RR interval the
   * controller asked of the receiver, 0 = no preference); srtp (on or
   * off), srtp-auth-failures, srtp-replays, srtp-malformed (received RTCP
   * that did not verify: dropped), srtp-protect-errors (packets that could
   * not be protected: not sent).
   * Repair (docs/repair.md): nacks-received (RFC 4585
   * Generic NACKs about our media), nacked-packets (distinct seqs they
   * named), rtx-sent / rtx-bytes (RFC 4588 retransmissions queued; they
   * are also in packets-sent / bytes-sent), rtx-dropped (seqs not
   * answered: rtx-unknown — not held, rtx-too-old — could not be played
   * any more, rtx-too-soon — retransmitted within the last RTT,
   * rtx-over-budget — over the target rate, rtx-off — rtx-payload-type
   * 0), plis-received, firs-received, keyunit-requests (GstForceKeyUnit
   * events sent upstream), keyunit-suppressed (requests within
   * max(RTT, 300 ms) of the last, or repeated FIR commands), rtx-ssrc.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics", "Sender statistics",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /* srtp-key, srtp-suite: SRTP for media and SR out, SRTCP feedback in
   * (gstrtpccsrtp.h; stats srtp-auth-failures etc.) */
  gst_rtpcc_srtp_install_properties (gobject_class, PROP_SRTP_KEY,
      PROP_SRTP_SUITE);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  desc = g_strdup_printf ("Sends RTP over UDP under congestion control "
      "(%s), paced, with RFC 8888, transport-wide CC or RTCP RR feedback "
      "and RFC 8083 circuit breakers; drives the encoder's bitrate",
      controllers);
  gst_element_class_set_metadata (element_class,
      "Congestion-controlled RTP sink", "Sink/Network", desc,
      "gst-rtpcc developers");
  g_free (desc);
  g_free (controllers);

  basesink_class->start = GST_DEBUG_FUNCPTR (gst_rtpcc_sink_start);
  basesink_class->stop = GST_DEBUG_FUNCPTR (gst_rtpcc_sink_stop);
  basesink_class->render = GST_DEBUG_FUNCPTR (gst_rtpcc_sink_render);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (gst_rtpcc_sink_set_caps);
  basesink_class->event = GST_DEBUG_FUNCPTR (gst_rtpcc_sink_event);
  element_class->set_clock = GST_DEBUG_FUNCPTR (gst_rtpcc_sink_set_clock);

  gst_type_mark_as_plugin_api (gst_rtpcc_feedback_mode_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_rtpcc_encoder_control_get_type (), 0);
  gst_type_mark_as_plugin_api (GST_TYPE_RTPCC_SRTP_SUITE, 0);
  GST_DEBUG_CATEGORY_INIT (rtpcc_sink_debug, "rtpccsink", 0,
      "congestion-controlled RTP sink");
}

static void
gst_rtpcc_sink_init (GstRtpccSink * self)
{
  self->host = g_strdup (DEFAULT_HOST);
  self->port = DEFAULT_PORT;
  self->bind_address = g_strdup (DEFAULT_BIND_ADDRESS);
  self->bind_port = DEFAULT_BIND_PORT;
  gst_rtpcc_sender_props_init (&self->props, DEFAULT_CONTROLLER,
      DEFAULT_MAX_PACING_DELAY, DEFAULT_ENCODER_BUFFER);
  self->feedback = DEFAULT_FEEDBACK;
  self->circuit_breaker = DEFAULT_CIRCUIT_BREAKER;
  self->rtcp_interval_ms = DEFAULT_RTCP_INTERVAL;
  self->cname = g_strdup (DEFAULT_CNAME);
  self->twcc_ext_id = DEFAULT_TWCC_EXT_ID;
  self->fec_pt = DEFAULT_FEC_PT;
  self->fec_block_time = GST_CLOCK_TIME_NONE;
  self->probing = TRUE;
  self->probe_ssrc_mode = GST_RTPCC_PROBE_SSRC_AUTO;
  self->srtp_suite = GST_RTPCC_SRTP_DEFAULT_SUITE;
  self->rtx_pt = DEFAULT_RTX_PT;
  self->rtx_ssrc = DEFAULT_RTX_SSRC;
  self->rtx_time_ms = DEFAULT_RTX_TIME;
  self->max_fec_share = DEFAULT_MAX_FEC_SHARE;
  self->task_deadline = RTPCC_TIME_NONE;
  self->pollfd.fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  rtpcc_timebase_init (&self->timebase);
  g_mutex_init (&self->lock);
  self->mprtp_offers = offers_new ();
  g_rec_mutex_init (&self->task_lock);
  gst_rtpcc_encoder_setter_init (&self->encoder, GST_ELEMENT (self));
  /* a network sink: never wait for the clock */
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
}

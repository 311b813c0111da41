/* RtpccSendbuf: the sending buffer in front of the congestion-controlled
 * sender, sans I/O: priorities, expiry and frame-aware dropping.
 *
 *   enqueue(RTP packet, priority, creation time) → policy at insertion
 *   (overflow) → dequeue when the drain rate allows → policy at
 *   transmission (expiry / deadline) → renumbered packet out
 *
 * Policies (SFDPS: Parejiya, Desai, Chaubey, "Streaming Application QoS:
 * Controlling Congestion Video Streaming Media Data Quality through Sending
 * the Finest Data Package Subsequent", after McDonald & Nelson's "sending
 * the best packet next"; UltraGrid's sending buffer: Saurin, "Congestion
 * Control for Video-conferencing Applications", MSc thesis, University of
 * Glasgow 2006, §6.3):
 *   fifo         arrival order within a priority, tail drop when full
 *   deadline     UltraGrid: drop a whole frame at its transmission time if
 *                (now − created) + RTT/2 + L/X + playout > budget
 *   sfdps1       drop at transmission if created + budget < now + RTT/2
 *   sfdps2       sfdps1, but an expired frame that is alone in the queue is
 *                sent (keeps a rate-based controller from starving)
 *   ring         on overflow drop the oldest not-started frame of the
 *                lowest priority present (video before audio); if that
 *                priority's packets all belong to started frames, accept
 *                over the limit rather than evict higher priorities
 *   ring-sfdps2  ring at insertion plus sfdps2 at transmission
 *
 * The papers' baselines, fifo and ring, send in arrival order; the others
 * order by priority first (higher goes first), then by creation time, then
 * arrival. Frames are never split: a frame (packets of
 * one SSRC with one RTP timestamp, ended by the marker bit or the next
 * timestamp) is dropped whole, and never once its first packet has been
 * sent. Packet-level rules of the papers become frame-level rules here.
 *
 * Intentional drops must not look like network loss to the receiver and
 * the controller: the output carries a new RTP sequence number per SSRC
 * with no holes for dropped packets (RtpccSendbufOut.seq).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SENDBUF_H__
#define __RTPCC_SENDBUF_H__

#include <rtpcc/common.h>
#include <rtpcc/frametype.h>

G_BEGIN_DECLS

typedef enum
{
  RTPCC_SENDBUF_FIFO,
  RTPCC_SENDBUF_DEADLINE,
  RTPCC_SENDBUF_SFDPS1,
  RTPCC_SENDBUF_SFDPS2,
  RTPCC_SENDBUF_RING,
  RTPCC_SENDBUF_RING_SFDPS2,
  RTPCC_SENDBUF_N_POLICIES
} RtpccSendbufPolicy;

const gchar *rtpcc_sendbuf_policy_name (RtpccSendbufPolicy policy);
gboolean rtpcc_sendbuf_policy_from_string (const gchar * name,
    RtpccSendbufPolicy * out);

typedef enum
{
  RTPCC_SENDBUF_DROP_EXPIRED,   /* sfdps: created + budget < now + RTT/2 */
  RTPCC_SENDBUF_DROP_LATE,      /* deadline: would be displayed too late */
  RTPCC_SENDBUF_DROP_OVERFLOW,  /* queue limit at insertion */
  RTPCC_SENDBUF_DROP_FRAME,     /* later packet of a frame already dropped */
  RTPCC_SENDBUF_DROP_DEPENDENT, /* needs a reference frame that was dropped */
  RTPCC_SENDBUF_DROP_FLUSH,     /* flushed (element stop / flush) */
  RTPCC_SENDBUF_N_DROP_REASONS
} RtpccSendbufDropReason;

const gchar *rtpcc_sendbuf_drop_reason_name (RtpccSendbufDropReason reason);

/* Priorities 0..RTPCC_SENDBUF_MAX_PRIORITY; higher is sent first. */
#define RTPCC_SENDBUF_MAX_PRIORITY 7
#define RTPCC_SENDBUF_N_PRIORITIES (RTPCC_SENDBUF_MAX_PRIORITY + 1)
/* defaults the element uses: audio above video */
#define RTPCC_SENDBUF_PRIORITY_AUDIO 4
#define RTPCC_SENDBUF_PRIORITY_VIDEO 2

typedef struct
{
  RtpccSendbufPolicy policy;
  RtpccTime budget;             /* γ / expiry, 200 ms */
  RtpccTime playout_delay;      /* t_pbuf in the deadline rule, 0 */
  guint max_packets;            /* queue limit, 0 = none (default 0) */
  guint64 max_bytes;            /* queue limit, 0 = none (default 0) */
  guint max_frames;             /* UltraGrid's hard frame cap, 0 = none */
  RtpccTime burst;              /* drain credit after an idle spell, 5 ms */
  /* after dropping a reference frame, also drop the same SSRC's later
   * non-key frames until its next keyframe (they cannot be decoded): a
   * new frame of that SSRC is held until one of its packets shows a
   * keyframe, and dropped if none does; default FALSE (only meaningful
   * with frame types known) */
  gboolean drop_dependents;
} RtpccSendbufConfig;

void rtpcc_sendbuf_config_init (RtpccSendbufConfig * config);

/* One RTP packet as the buffer needs it. */
typedef struct
{
  guint32 ssrc;
  guint16 seq;                  /* as it came in (output is renumbered) */
  guint32 rtp_ts;
  gboolean marker;              /* last packet of its frame */
  guint size;                   /* bytes */
  guint priority;               /* clamped to RTPCC_SENDBUF_MAX_PRIORITY */
  RtpccTime created;            /* capture time, same clock as now */
  gboolean keyframe;            /* frame is independently decodable */
  gboolean droppable;           /* frame is not a reference for others */
  /* this packet tells nothing about the frame type (an H.264 AUD or SEI):
   * keyframe and droppable are ignored. A frame is a keyframe if any
   * packet says so and droppable if all that tell say so. */
  gboolean type_unknown;
} RtpccSendbufPacket;

typedef struct
{
  RtpccSendbufPacket packet;    /* as enqueued */
  guint16 seq;                  /* renumbered: no holes per SSRC */
  RtpccTime age;                /* now − created at send */
  gboolean frame_start;         /* first packet of its frame */
} RtpccSendbufOut;

typedef struct
{
  /* now in the queue */
  guint queued_packets, queued_frames;
  guint64 queued_bytes;
  guint streams;                /* SSRCs tracked (idle ones forgotten
                                 * beyond 256) */
  /* totals */
  guint64 enqueued_packets, enqueued_bytes;
  guint64 sent_packets, sent_bytes, sent_frames;
  guint64 dropped_packets, dropped_bytes, dropped_frames;
  guint64 dropped_by_reason[RTPCC_SENDBUF_N_DROP_REASONS];      /* packets */
  guint64 frames_by_reason[RTPCC_SENDBUF_N_DROP_REASONS];
  guint64 sent_by_priority[RTPCC_SENDBUF_N_PRIORITIES];         /* packets */
  guint64 dropped_by_priority[RTPCC_SENDBUF_N_PRIORITIES];      /* packets */
  /* age at send (now − created), per priority */
  RtpccTime age_sum[RTPCC_SENDBUF_N_PRIORITIES];
  RtpccTime age_max[RTPCC_SENDBUF_N_PRIORITIES];
} RtpccSendbufStats;

typedef struct _RtpccSendbuf RtpccSendbuf;

RtpccSendbuf *rtpcc_sendbuf_new (const RtpccSendbufConfig * config);
void rtpcc_sendbuf_free (RtpccSendbuf * sb);
/* releases the handles of dropped packets (and those left at free) */
void rtpcc_sendbuf_set_free_func (RtpccSendbuf * sb, GDestroyNotify func);

void rtpcc_sendbuf_set_policy (RtpccSendbuf * sb, RtpccSendbufPolicy policy);
void rtpcc_sendbuf_set_budget (RtpccSendbuf * sb, RtpccTime budget);
void rtpcc_sendbuf_set_limits (RtpccSendbuf * sb, guint max_packets,
    guint64 max_bytes, guint max_frames);
/* Runtime changes of the deadline rule's t_pbuf and of drop_dependents
 * (frames already held for a keyframe stay held until they show one). */
void rtpcc_sendbuf_set_playout_delay (RtpccSendbuf * sb,
    RtpccTime playout_delay);
void rtpcc_sendbuf_set_drop_dependents (RtpccSendbuf * sb, gboolean drop);
const RtpccSendbufConfig *rtpcc_sendbuf_get_config (const RtpccSendbuf * sb);

/* The sending-buffer context from the transmission side: the RTT (for
 * RTT/2 as the one-way delay; RTPCC_TIME_NONE or <= 0: 0) and the drain
 * rate X in bit/s (0: unlimited, and L/X = 0 in the deadline rule). */
void rtpcc_sendbuf_set_rtt (RtpccSendbuf * sb, RtpccTime rtt);
void rtpcc_sendbuf_set_rate (RtpccSendbuf * sb, guint64 bps);
RtpccTime rtpcc_sendbuf_get_rtt (const RtpccSendbuf * sb);
guint64 rtpcc_sendbuf_get_rate (const RtpccSendbuf * sb);

/* Queue one packet; the insertion policy runs (it may drop this packet or
 * others, through the free func). Returns FALSE if this packet was dropped
 * (its handle has been released). */
gboolean rtpcc_sendbuf_enqueue (RtpccSendbuf * sb, RtpccTime now,
    const RtpccSendbufPacket * packet, gpointer handle);
/* Whether a packet of @size bytes fits under the limits as the queue
 * stands: what a producer that blocks instead of dropping waits for. An
 * empty queue always has room (one packet always goes in: progress). */
gboolean rtpcc_sendbuf_has_room (const RtpccSendbuf * sb, guint size);
/* The packet to send now, or NULL (empty, or the drain rate says wait).
 * The transmission policy runs first and may drop frames. */
gpointer rtpcc_sendbuf_dequeue (RtpccSendbuf * sb, RtpccTime now,
    RtpccSendbufOut * out);
/* When dequeue may return a packet next: <= now at once, RTPCC_TIME_NONE
 * when nothing can go (empty, or only dependants of a dropped reference
 * frame held until they show a keyframe: wait for input). */
RtpccTime rtpcc_sendbuf_next_time (const RtpccSendbuf * sb, RtpccTime now);
/* Drop everything queued (reason flush). */
void rtpcc_sendbuf_flush (RtpccSendbuf * sb);

/* UltraGrid rule 1 (Eq. 6.3): the largest next frame that can still make
 * the budget, L = (γ − RTT/2 − t_pbuf)·X − θ, in bytes; −1 when the drain
 * rate is unknown, 0 when nothing fits. For encoder control. */
gint64 rtpcc_sendbuf_max_frame_bytes (const RtpccSendbuf * sb);

/* The same rule for an encoder's rate-control buffer (VBV): the time a
 * frame may wait in the sending queue, γ − RTT/2 − t_pbuf (0 at least),
 * or RTPCC_TIME_NONE for the policies without a budget (fifo, ring). An
 * encoder's VBV models a queue drained at its bitrate, and its fullness
 * is the θ of Eq. 6.3: a VBV of this many ms at the encoder's rate keeps
 * every frame within L. */
RtpccTime rtpcc_sendbuf_frame_room (const RtpccSendbuf * sb);
/* TRUE, with @room, when the frame room differs from the last value
 * taken by a quarter or more (or becomes known / unknown / zero): the
 * values worth handing to an encoder. */
gboolean rtpcc_sendbuf_take_frame_room (RtpccSendbuf * sb, RtpccTime * room);

const RtpccSendbufStats *rtpcc_sendbuf_get_stats (const RtpccSendbuf * sb);

G_END_DECLS

#endif

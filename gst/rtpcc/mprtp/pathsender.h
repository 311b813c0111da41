/* What a multipath sender learns from each path's own sender (one
 * RtpccSender, one congestion controller per path, e.g. an rtpccsink
 * behind mprtpsched), sans I/O:
 *
 *  - its statistics, polled: the cumulative counters become the
 *    scheduler's feedback (on new RTCP: RTT, queuing delay, rates, and the
 *    packets newly reported received and lost; progress when any were
 *    received) and, once per reporting interval, the path's loss over the
 *    interval on its own subflow sequence numbers (its class), unless
 *    the path's receiver sends MPRTCP subflow reports, which then
 *    classify it;
 *  - its target, published: the whole target and its media part, and the
 *    RTT it was computed with;
 *  - the one aggregate target for the encoder: the scheduler's encoder
 *    rate as media, plus the paths' own headroom (headers, probing, the
 *    target over its media part) in proportion over the paths in use, and
 *    the slowest RTT among them (it bounds what upstream may plan for).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_MPRTP_PATHSENDER_H__
#define __RTPCC_MPRTP_PATHSENDER_H__

#include <rtpcc/mprtp/sched.h>

G_BEGIN_DECLS

/* A path sender's statistics as it reports them (cumulative counters). */
typedef struct
{
  guint64 rtcp_received;        /* RTCP packets taken in */
  guint64 reported_received;    /* packets feedback reported received */
  guint64 reported_lost;        /* ... and lost */
  guint64 rtt;                  /* smoothed RTT, ns; 0 = unknown */
  guint64 queue_delay;          /* ns */
  guint64 send_rate, receive_rate;      /* bit/s */
} RtpccMprtpSenderStats;

typedef struct
{
  /* its last target (bit/s) */
  gboolean have_target;
  guint64 target, media;
  RtpccTime rtt;                /* the newest known; NONE: none */
  /* its counters at the last poll, and at the last interval */
  guint64 rtcp_received, reported_received, reported_lost;
  guint64 iv_received, iv_lost;
  /* subflow reports taken; once one came the class comes from them (not
   * reset by a restart: the receiver is the same) */
  guint64 subflow_reports;
} RtpccMprtpPathSender;

/* Nothing known. */
void rtpcc_mprtp_path_sender_init (RtpccMprtpPathSender * ps);
/* A new stream (the sender restarts): no target, counters from zero; the
 * RTT is kept until a newer one is known, and whether subflow reports
 * come. */
void rtpcc_mprtp_path_sender_restart (RtpccMprtpPathSender * ps);

/* The sender published @target bit/s, @media of them for media, with
 * @rtt (RTPCC_TIME_NONE: keep the one known). Tells @sched (may be NULL)
 * the path's rate. */
void rtpcc_mprtp_path_sender_set_target (RtpccMprtpPathSender * ps,
    RtpccMprtpSched * sched, guint path, RtpccTime now, guint64 target,
    guint64 media, RtpccTime rtt);

/* One poll of the sender's @stats at @now: feeds @sched's @path with
 * feedback if RTCP arrived since the last poll; then with the path
 * receiver's new MPRTCP subflow @report (NULL: none came), which
 * classifies the path; or, from a receiver that has sent none so far,
 * with @interval the reporting interval's loss from the feedback counters
 * (counters that went back, a restarted sender, count from where they
 * are). */
void rtpcc_mprtp_path_sender_poll (RtpccMprtpPathSender * ps,
    RtpccMprtpSched * sched, guint path, RtpccTime now,
    const RtpccMprtpSenderStats * stats,
    const RtpccMprtpSubflowReport * report, gboolean interval);

/* The aggregate target (bit/s) for encoder rate @media given the @n path
 * senders @paths (in @sched's path order; NULL entries are skipped): at
 * least @media. @rtt_out (may be NULL): the slowest RTT of the paths in
 * use, RTPCC_TIME_NONE if none is known. */
guint64 rtpcc_mprtp_aggregate_target (const RtpccMprtpSched * sched,
    const RtpccMprtpPathSender * const *paths, guint n, guint64 media,
    RtpccTime * rtt_out);

G_END_DECLS

#endif /* __RTPCC_MPRTP_PATHSENDER_H__ */

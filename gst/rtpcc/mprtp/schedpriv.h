/* The multipath scheduler's state, shared by sched.c (what each path may
 * carry) and pick.c (which path each packet takes). Not installed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_MPRTP_SCHEDPRIV_H__
#define __RTPCC_MPRTP_SCHEDPRIV_H__

#include <rtpcc/mprtp/sched.h>
#include <rtpcc/mprtp/latencygroups.h>

G_BEGIN_DECLS

/* feedbacks remembered for the delivery rate, and its span */
#define DELIVERY_RING 16
#define DELIVERY_SPAN RTPCC_MSEC (200)

typedef struct
{
  guint64 rate;
  RtpccMprtpClassifier cls;     /* class and share */
  gboolean ever_active, active, failed;
  RtpccTime failed_at;
  guint feedbacks_since_failure;
  RtpccTime srtt, last_feedback, last_progress;
  gdouble gap;                  /* mean feedback gap, ns; < 0 unknown */
  RtpccTime first_unanswered;   /* first send after the last progress */
  gdouble vt;                   /* fair-queueing finish tag, ns at rate */
  guint64 allowed;
  guint64 packets, bytes, keyframe_packets, rtx_packets;
  guint64 rtx_in, rtx_out;
  gint rtx_via;                 /* where its repairs go (route_rtx), -1 */
  guint failures;
  guint64 cap;                  /* collapse cap, 0 = none */
  guint64 ramp, ramp_step;      /* re-admission ramp, 0 = none */
  guint collapses, parks;
  guint seen_failures, seen_collapses;  /* at the last take_losses() */
  RtpccTime drain_until;        /* after a collapse: nothing until then */
  RtpccTime parked_until;       /* congested in recovery: passive until */
  RtpccTime probed_at;          /* last duplicate sent on it while unused */
  guint64 probes;
  /* packets reported received by the recent feedbacks (a ring) */
  RtpccTime fb_at[DELIVERY_RING];
  guint64 fb_received[DELIVERY_RING];
  guint fb_head;
} Path;

struct _RtpccMprtpSched
{
  RtpccMprtpSchedConfig config;
  guint n;
  Path path[RTPCC_MPRTP_MAX_PATHS];
  RtpccMprtpCouple *couple;
  guint64 encoder_rate;
  gdouble vstart;               /* start tag of the last packet picked */
};

/* pick.c: @path carries a packet of @size bytes with @flags */
G_GNUC_INTERNAL void rtpcc_mprtp_sched_charge (RtpccMprtpSched * s,
    guint path, RtpccTime now, guint size, RtpccMprtpPacketFlags flags,
    gboolean any);

static inline RtpccTime
latency_of (const Path * p)
{
  return p->srtt == RTPCC_TIME_NONE ? RTPCC_TIME_NONE : p->srtt / 2;
}

static inline RtpccTime
order_latency (const Path * p)
{
  return rtpcc_mprtp_order_latency (latency_of (p));
}

G_END_DECLS

#endif /* __RTPCC_MPRTP_SCHEDPRIV_H__ */

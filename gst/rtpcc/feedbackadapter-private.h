/* The feedback adapter's state and the helpers feedbackadapter.c shares
 * with feedbackadapter-xr.c. Internal to the library.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACKADAPTER_PRIVATE_H__
#define __RTPCC_FEEDBACKADAPTER_PRIVATE_H__

#include <rtpcc/feedbackadapter.h>
#include <rtpcc/deliveryrate.h>
#include <rtpcc/lossevents.h>
#include <rtpcc/lossburst.h>
#include <rtpcc/feedback/twcc.h>

G_BEGIN_DECLS

/* What one RTCP packet of a compound was to us. */
typedef enum
{
  ABOUT_US,                     /* about packets or SSRCs we sent */
  FOREIGN,                      /* about none of ours: counted */
  IGNORED,                      /* valid, nothing for us (e.g. SDES) */
  MALFORMED,                    /* counted */
  IMPLAUSIBLE,                  /* counted, dropped whole */
  CONTRADICTORY,                /* counted, dropped whole */
} Verdict;

struct _RtpccFeedbackAdapter
{
  RtpccSentHistory *history;
  RtpccFeedbackMode mode;
  RtpccTime ntp_offset;
  RtpccFeedbackSink sink;
  gpointer user_data;

  /* the receiver's report clock on ours (a constant, unknown offset) */
  gboolean have_remote;
  RtpccTime remote_offset;
  RtpccTime last_report_remote; /* unwrapped receiver time of last report */
  RtpccTime min_owd;            /* minimum arrival − send seen (with offset) */

  GArray *reports;              /* RtpccPacketReport of the current feedback */
  GArray *discards;             /* RtpccPacketReport from XR */
  /* RR mode: the XR packet just read held Loss RLE about our media, the
   * per-packet feedback of this mode */
  gboolean xr_feedback;
  RtpccTwccUnwrapper *twcc;     /* TWCC mode */
  GArray *twcc_results;         /* RtpccTwccResult scratch */
  guint twcc_epoch;

  /* what finish() hands the controller with the reports */
  RtpccTime rtt_sample, report_time, arrival_resolution;
  guint n_unreported;
  /* packets sent before this crossed an outage: no RTT samples (NONE) */
  RtpccTime rtt_from;

  /* loss events among the packets reported since the last RTCP report,
   * for the breaker's TCP equation */
  RtpccLossEvents events;
  RtpccLossBurst bursts;
  guint64 cb_reported, cb_events;

  /* receive rate over the receiver's report times */
  RtpccTime rr_window_start;
  guint64 rr_window_bytes;

  RtpccDeliveryRate *delivery;
  GArray *disputed;             /* RtpccSentEntry* a report contradicts */
  /* RtpccSentEntry* of each metric of the CCFB being read (NULL: not
   * ours), looked up once for both the check and the use */
  GArray *found;

  RtpccFeedbackAdapterStats stats;
};

/* What the controller learns of @e. */
RtpccPacketReport rtpcc_feedback_adapter_report_of (const RtpccSentEntry * e);
/* A packet reported received: TRUE if that is news (then reported). */
gboolean rtpcc_feedback_adapter_mark_received (RtpccFeedbackAdapter * a,
    RtpccSentEntry * e, RtpccTime arrival);
/* Notes @e if this report contradicts an earlier one about it. */
void rtpcc_feedback_adapter_check_entry (RtpccFeedbackAdapter * a,
    RtpccSentEntry * e, gboolean got, RtpccTime arrival, RtpccTime res);
/* CONTRADICTORY if anything checked contradicted, else ABOUT_US. */
Verdict rtpcc_feedback_adapter_disputes (RtpccFeedbackAdapter * a,
    RtpccTime now);
/* One RTCP XR packet @data of a compound. */
Verdict rtpcc_feedback_adapter_on_xr (RtpccFeedbackAdapter * a, RtpccTime now,
    const guint8 * data, gsize len);
/* Hands the Discard RLE reports gathered to the sink. */
void rtpcc_feedback_adapter_hand_discards (RtpccFeedbackAdapter * a,
    RtpccTime now);

G_END_DECLS

#endif

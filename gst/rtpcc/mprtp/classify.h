/* Path classification for the multipath scheduler (Singh's thesis,
 * Publication VII): each reporting interval of a path, from its subflow
 * report, makes it NON_CONGESTED (no loss), LOSSY (losses only),
 * MILDLY_CONGESTED (losses and discards) or CONGESTED (mildly congested
 * for several intervals in a row). Discards without loss leave a path
 * non-congested: they are the receiver's playout catching up with a
 * path's delay, not congestion. Each class has a share of the path's rate;
 * a share taken away is taken at once and handed back a step per
 * interval (sched.h has the rules and the defaults).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_MPRTP_CLASSIFY_H__
#define __RTPCC_MPRTP_CLASSIFY_H__

#include <rtpcc/common.h>
#include <rtpcc/mprtp/ext.h>

G_BEGIN_DECLS

typedef enum
{
  RTPCC_MPRTP_CLASS_NON_CONGESTED = 0,
  RTPCC_MPRTP_CLASS_LOSSY,
  RTPCC_MPRTP_CLASS_MILDLY_CONGESTED,
  RTPCC_MPRTP_CLASS_CONGESTED,
} RtpccMprtpPathClass;

const gchar *rtpcc_mprtp_path_class_name (RtpccMprtpPathClass klass);

typedef struct
{
  RtpccMprtpPathClass klass;
  guint mild_run;               /* mildly congested intervals in a row */
  guint64 intervals[4];         /* intervals classified, by class */
  gdouble share;                /* the class share, hysteresis applied */
  /* the previous subflow report, to turn cumulative counts into an
   * interval */
  gboolean have_report;
  guint32 prev_ext_high;
  gint32 prev_cum_lost;
  guint32 prev_discards;
} RtpccMprtpClassifier;

/* NON_CONGESTED, share 1, no report yet. */
void rtpcc_mprtp_classifier_init (RtpccMprtpClassifier * c);

/* The interval subflow report @r closes: TRUE with the packets @expected
 * (by FSSN), @lost and @discarded since the previous report (all 0 for
 * the first one, which only starts the count); FALSE for a report whose
 * highest sequence number went back (ignored). Duplicates can make the
 * loss negative (RFC 3550 A.3): counted as none. */
gboolean rtpcc_mprtp_classifier_interval (RtpccMprtpClassifier * c,
    const RtpccMprtpSubflowReport * r, guint64 * expected, guint64 * lost,
    guint64 * discarded);

/* Classifies one interval with @lost packets lost and @discarded of those
 * received discarded; CONGESTED after @congested_intervals mildly
 * congested ones in a row. Counts it in intervals[class]. Returns the
 * class. */
RtpccMprtpPathClass rtpcc_mprtp_classifier_classify (RtpccMprtpClassifier * c,
    guint64 lost, guint64 discarded, guint congested_intervals);

/* Moves the share towards @target, its class's share: down at once, up by
 * at most @step. */
void rtpcc_mprtp_classifier_approach (RtpccMprtpClassifier * c,
    gdouble target, gdouble step);

G_END_DECLS

#endif /* __RTPCC_MPRTP_CLASSIFY_H__ */

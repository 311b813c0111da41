/* The repair planner's state, shared by repair.c (the loss list, the
 * decisions) and repair-fec.c (what FEC will rebuild). Internal.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_REPAIR_PRIVATE_H__
#define __RTPCC_REPAIR_PRIVATE_H__

#include "repair.h"
#include <rtpcc/windowextreme.h>

G_BEGIN_DECLS

typedef struct
{
  gint64 ext;                   /* extended sequence number */
  RtpccTime detected;           /* a later packet arrived */
  RtpccTime lost_at;            /* detected + reorder wait */
  RtpccTime deadline;           /* its frame's playout time */
  RtpccTime fec_until;          /* waiting for FEC until; NONE: not */
  RtpccTime last_nack;
  guint nacks;
  gboolean declared;            /* counted as a loss */
  gboolean fec_ok;              /* a complete FEC block will rebuild it */
  gboolean fec_failed;          /* a complete FEC block cannot */
  gboolean fec_counted;         /* in stats.fec_rebuildable */
  gboolean fec_held;            /* waits for the block's other losses */
  gboolean no_more_nacks;       /* a retry could no longer arrive in time */
} Missing;

/* A FEC block some of whose repair packets are in. */
typedef struct
{
  gint64 ext[RTPCC_REPAIR_FEC_MAX_SEQS];        /* extended seqs covered */
  guint n;
  gint64 lo, hi;                /* the extremes of ext */
  guint n_parity;               /* repair packets in: losses it rebuilds */
  gboolean complete;
} FecBlock;

/* arrival times of the latest originals, for the FEC window */
#define ARRIVALS 1024

struct _RtpccRepair
{
  RtpccRepairConfig config;

  /* stream */
  gboolean started;
  guint32 ssrc;
  gint64 highest;               /* extended seq */
  guint32 highest_ts;
  gboolean highest_marker;
  RtpccTime highest_at;         /* arrival of the highest original */
  RtpccTime tail_at;            /* tail probe due; NONE: none armed */
  RtpccWindowExtreme intra_gap; /* max gap between packets of a frame */
  gboolean have_bad_seq;
  guint16 bad_seq;              /* A.1: a jump waiting for confirmation */

  /* RTP time: extended timestamps, media time from the first one */
  gboolean have_ts;
  gint64 ts_base, ts_last;
  RtpccWindowExtreme transit;   /* min of arrival − media time */
  RtpccWindowExtreme reorder;   /* max lateness of reordered packets */

  GArray *missing;              /* Missing, ascending ext */

  /* FEC */
  FecBlock *blocks;             /* ring of RTPCC_REPAIR_FEC_BLOCKS */
  guint n_blocks, next_block;
  RtpccWindowExtreme fec_window;        /* max first packet → repair packet */
  gint64 arrival_ext[ARRIVALS];
  RtpccTime arrival_at[ARRIVALS];

  /* RTT */
  RtpccTime rtt_set;            /* NONE: not set */
  RtpccTime srtt;               /* 0: no sample */

  /* key frames */
  gboolean broken;
  RtpccTime broken_since;
  RtpccTime last_request;       /* NONE: never asked */
  gboolean request_pending;     /* asked, no key frame since */
  guint request_repeats;        /* of the pending request */
  guint8 fir_seq;

  RtpccTime last_now;           /* the latest time we were given */
  RtpccRepairStats stats;
};

/* The extended sequence number of @seq near the highest seen. */
gint64 rtpcc_repair_ext_of (const RtpccRepair * r, guint16 seq);
/* The missing entry of @ext (its position in @index), or NULL. */
Missing *rtpcc_repair_find_missing (RtpccRepair * r, gint64 ext,
    guint * index);
/* The RTT the decisions use. */
RtpccTime rtpcc_repair_current_rtt (const RtpccRepair * r);
/* Marks the losses complete FEC blocks rebuild, and holds the rest of a
 * short block's losses for it. */
void rtpcc_repair_settle_fec (RtpccRepair * r, RtpccTime now);

G_END_DECLS

#endif

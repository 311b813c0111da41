/* RtpccMprtpSkew: the receiver's path-skew compensation and playout delay
 * of Singh's thesis (V. Singh, doctoral thesis, Aalto University 2015,
 * Publication VII), sans I/O.
 *
 * One media stream (one SSRC, one RTP clock) arriving over several paths.
 * For each arrival j on path p, with i the previous packet on the same
 * path, TR the reception time and TS the RTP timestamp (in ns):
 *
 *   PacketSkew(i, j) = (TR_j − TR_i) − (TS_j − TS_i)
 *
 * The path's drift is the running sum of its PacketSkews. A path's first
 * packet has no predecessor on its path; its PacketSkew is taken against
 * the previous packet of the merged stream, so every path's drift shares
 * one origin, the stream's first packet (by telescoping the drift is the
 * packet's transit time minus that packet's). Then, per path,
 *
 *   Drift Window (DW): the drifts of its last min(2 s of media, 100)
 *                      packets;
 *   PathSkew = 0.01 · median(DW) + 0.99 · PathSkew_prev
 *                      (the first packet of a path starts it at the median)
 *
 * and on every packet, over the Skew Window (SW) of the live paths'
 * PathSkews (MAX rather than the median, so that the slowest path is
 * covered as soon as possible),
 *
 *   PlayoutDelay = (MAX(SW) + 124 · PlayoutDelay_prev) / 125
 *
 * which the thesis feeds into the standard playout calculation (Ramjee et
 * al.): play out at media time + reference + PlayoutDelay + 4·v, v the mean
 * deviation of each packet's drift from its path's PathSkew with the same
 * 1/125 filter. The reference is the stream's first packet's transit, the
 * origin of every drift, so a packet is on time while its drift is at
 * most the target.
 *
 * The thesis' filters count packets, so their time constants scale with
 * 1/packet rate: PlayoutDelay settles after a skew step in about 3 s at
 * ~250 packets/s (the thesis' figure) but in about 7 s at 1 Mbit/s of
 * 1200-byte packets, and in 20 s at 300 kbit/s. With ref_rate R (default
 * 250 packets/s) each filter weighs a packet by the time since the
 * filter's previous input instead: a filter of per-packet weight a gives
 * 1 − (1 − a)^k with k = Δt·R (R divided among the live paths for a
 * path's PathSkew), which is the published filter exactly when packets
 * come at R, and the same time constants at any other rate. k is capped
 * at 10 so that one packet after a gap moves a filter by at most ~10 %.
 * ref_rate = 0 keeps the published per-packet weights.
 *
 * Ours, where the thesis is silent: a path stays in SW while it delivered
 * within live_window (2 s), so a dead slow path does not hold the delay
 * up; RTP timestamps are unwrapped against the highest seen; clock drift
 * between the hosts is not removed (it appears as a slowly growing skew on
 * every path alike, which the filters follow).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_MPRTP_SKEW_H__
#define __RTPCC_MPRTP_SKEW_H__

#include <rtpcc/common.h>
#include <rtpcc/mprtp/ext.h>

G_BEGIN_DECLS

typedef struct
{
  guint clock_rate;             /* RTP clock rate, Hz (90000) */
  RtpccTime dw_span;            /* Drift Window media span, 2 s */
  guint dw_packets;             /* Drift Window packets, 100 (1..1000) */
  RtpccTime live_window;        /* a path counts in SW this long, 2 s */
  guint ref_rate;               /* packets/s the filters' weights are read
                                 * at (250); 0: per packet, as published */
} RtpccMprtpSkewConfig;

void rtpcc_mprtp_skew_config_init (RtpccMprtpSkewConfig * config);

typedef struct _RtpccMprtpSkew RtpccMprtpSkew;

/* NULL if the config is invalid (clock rate 0, window 0 or > 1000). */
RtpccMprtpSkew *rtpcc_mprtp_skew_new (const RtpccMprtpSkewConfig * config);
void rtpcc_mprtp_skew_free (RtpccMprtpSkew * skew);
void rtpcc_mprtp_skew_reset (RtpccMprtpSkew * skew);

typedef struct
{
  RtpccTime packet_skew;        /* PacketSkew of this packet */
  RtpccTime drift;              /* its path's drift after it */
  RtpccTime median;             /* median of the path's DW */
} RtpccMprtpSkewSample;

/* One arrival at @now on @path (< RTPCC_MPRTP_MAX_PATHS; FALSE and
 * nothing changed otherwise) with RTP timestamp @rtp_ts. @sample (may be
 * NULL) gets what this packet measured. */
gboolean rtpcc_mprtp_skew_push (RtpccMprtpSkew * skew, RtpccTime now,
    guint path, guint32 rtp_ts, RtpccMprtpSkewSample * sample);

/* PathSkew of @path; FALSE before its first packet. */
gboolean rtpcc_mprtp_skew_get_path_skew (const RtpccMprtpSkew * skew,
    guint path, gdouble * path_skew);
/* PlayoutDelay (ns; 0 before the first packet). */
gdouble rtpcc_mprtp_skew_get_playout_delay (const RtpccMprtpSkew * skew);
/* v, the mean deviation of the drifts (ns). */
gdouble rtpcc_mprtp_skew_get_deviation (const RtpccMprtpSkew * skew);
/* PlayoutDelay + 4·v, rounded to ns: the buffering over the reference. */
RtpccTime rtpcc_mprtp_skew_get_target (const RtpccMprtpSkew * skew);
/* When a packet with @rtp_ts is due with @target as buffering: its media
 * time + the reference + @target (RTPCC_TIME_NONE before the first
 * packet). Does not change the state. */
RtpccTime rtpcc_mprtp_skew_due (const RtpccMprtpSkew * skew, guint32 rtp_ts,
    RtpccTime target);

/* The formulas alone, for hand-computed tests. */
RtpccTime rtpcc_mprtp_packet_skew (RtpccTime tr_i, RtpccTime ts_i,
    RtpccTime tr_j, RtpccTime ts_j);
gdouble rtpcc_mprtp_path_skew_next (gdouble prev, gdouble median);
gdouble rtpcc_mprtp_playout_delay_next (gdouble prev, gdouble max_skew);

G_END_DECLS

#endif

/* The naive reference of the sending buffer (sendbuf-naive.c): the API of
 * rtpcc/sendbuf.h, naive_ instead of rtpcc_.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __SENDBUF_NAIVE_H__
#define __SENDBUF_NAIVE_H__

#include <rtpcc/sendbuf.h>

G_BEGIN_DECLS

typedef struct _NaiveSendbuf NaiveSendbuf;

NaiveSendbuf *naive_sendbuf_new (const RtpccSendbufConfig * config);
void naive_sendbuf_free (NaiveSendbuf * sb);
void naive_sendbuf_set_free_func (NaiveSendbuf * sb, GDestroyNotify func);
void naive_sendbuf_set_policy (NaiveSendbuf * sb, RtpccSendbufPolicy policy);
void naive_sendbuf_set_budget (NaiveSendbuf * sb, RtpccTime budget);
void naive_sendbuf_set_limits (NaiveSendbuf * sb, guint max_packets,
    guint64 max_bytes, guint max_frames);
void naive_sendbuf_set_playout_delay (NaiveSendbuf * sb,
    RtpccTime playout_delay);
void naive_sendbuf_set_drop_dependents (NaiveSendbuf * sb, gboolean drop);
const RtpccSendbufConfig *naive_sendbuf_get_config (const NaiveSendbuf * sb);
void naive_sendbuf_set_rtt (NaiveSendbuf * sb, RtpccTime rtt);
void naive_sendbuf_set_rate (NaiveSendbuf * sb, guint64 bps);
RtpccTime naive_sendbuf_get_rtt (const NaiveSendbuf * sb);
guint64 naive_sendbuf_get_rate (const NaiveSendbuf * sb);
const RtpccSendbufStats *naive_sendbuf_get_stats (const NaiveSendbuf * sb);
gboolean naive_sendbuf_enqueue (NaiveSendbuf * sb, RtpccTime now,
    const RtpccSendbufPacket * packet, gpointer handle);
gpointer naive_sendbuf_dequeue (NaiveSendbuf * sb, RtpccTime now,
    RtpccSendbufOut * out);
RtpccTime naive_sendbuf_next_time (const NaiveSendbuf * sb, RtpccTime now);
void naive_sendbuf_flush (NaiveSendbuf * sb);

G_END_DECLS

#endif

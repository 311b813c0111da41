/* FEC strength from the channel: which code, and how strong, for the loss
 * the receiver reports, the delay the repair may add and the rate the
 * controller allows for FEC.
 *
 * The channel is the two-state Gilbert model (a good state that loses
 * nothing, a bad state that loses everything; Gilbert 1960, the "simple
 * Gilbert" of the packet-loss literature), fitted from two numbers the
 * sender measures from per-packet feedback: the loss rate p and the mean
 * burst length b (lost packets per run of consecutive losses). Its bad
 * state is left with probability 1/b per packet, entered with p/(b(1−p)),
 * so that it loses p of the packets in runs of b on average (independent,
 * Bernoulli, loss has b = 1/(1 − p)).
 *
 * A block is k media packets followed by their m parity packets on the
 * wire. Reed-Solomon (and XOR, its m = 1 case) is MDS: any k of the k + m
 * recover the block, more than m losses recover nothing. The residual
 * media loss of (k, m) on the channel — the MDS bound, what an ideal
 * decoder leaves — is then exact: E[media lost · 1(losses > m)] / k over
 * a block that starts in the chain's stationary state, computed by
 * dynamic programming over the block's packets (O(k² + m²)).
 *
 * The choice: among XOR n ∈ [2, 14] (one parity per n) and RS k ∈ [2,
 * 48], m ∈ [1, 16], the codes whose parity share m/k fits the controller's
 * FEC budget and whose block fills within the delay budget (k media
 * packets at the media packet rate), the one with the least residual
 * loss, where under RTPCC_FEC_NEGLIGIBLE counts as none (a code that
 * leaves less than one media packet in a million is as good as one that
 * leaves nothing, and parity it need not send is rate the media keeps);
 * on a tie the fewest parity bytes, then the shorter block.
 * XOR is taken over RS(k, 1), which it equals. Bursts are why a
 * budget-bound choice moves from XOR to RS with longer blocks: a run of b
 * losses costs one block b of its m parities.
 *
 * With NACK behind the FEC (retransmissions r > 0: r round trips fit in
 * the playout delay) a packet the code leaves lost is asked for again, and
 * each retransmission is lost with the channel's loss rate p (it goes a
 * round trip later, past the burst that took the original), so what a
 * code leaves is its residual times p^r, and sending no FEC leaves p^(r+1).
 * Codes are compared on that, and one is chosen only if it leaves less
 * than NACK alone: where NACK alone leaves a negligible loss, or the share
 * buys nothing over it, no code: the parity is rate the media keeps.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEC_STRENGTH_H__
#define __RTPCC_FEC_STRENGTH_H__

#include <rtpcc/fec/fec.h>

G_BEGIN_DECLS

#define RTPCC_FEC_NEGLIGIBLE 1e-6

/* Residual media loss (fraction of media packets) of an MDS code with @k
 * media and @m parity packets per block on a Gilbert channel of loss rate
 * @loss in bursts of mean length @burst (< 1, unknown: independent loss).
 * @m 0: no FEC (the channel's loss). */
gdouble rtpcc_fec_residual_mds (guint k, guint m, gdouble loss,
    gdouble burst);

typedef struct
{
  gdouble loss;                 /* packet loss rate, [0, 1) */
  gdouble burst;                /* mean loss burst, packets; < 1 (unknown):
                                 * independent loss, 1 / (1 − loss) */
  gdouble packet_rate;          /* media packets per second */
  RtpccTime budget;             /* longest a block may take to fill */
  gdouble max_overhead;         /* parity bytes per media byte allowed */
  /* [k] for k ≤ RTPCC_FEC_MAX_SPAN: a parity packet's bytes over a media
   * packet's in blocks of k (rtpcc_fec_sizes_ratios); NULL: 1 (the byte
   * share is then one in packets) */
  const gdouble *parity_ratios;
  /* NACK's chances to repair what FEC leaves before it is played out
   * (round trips that fit in the receiver's playout delay); 0: no NACK */
  guint retransmissions;
} RtpccFecChannel;

typedef struct
{
  RtpccFecScheme scheme;        /* XOR or RS */
  guint k, m;                   /* XOR: k = n, m = 1 */
  gdouble residual;             /* rtpcc_fec_residual_mds (k, m, ...) */
} RtpccFecChoice;

/* The code for @channel (above). FALSE (and @out untouched) when none
 * fits: a budget under one parity per 48 packets, or a delay budget under
 * two packets' time; or, with retransmissions, when none leaves less than
 * NACK alone. @out's residual is the code's own (without NACK). */
gboolean rtpcc_fec_choose (const RtpccFecChannel * channel,
    RtpccFecChoice * out);

/* The code for an encoder behind a sender that reserved its FEC rate
 * for one code and named it (rtpccsink max-fec-share: @scheme "xor" with
 * @m 1, or "rs", and @k, @m): that code, within what the encoder builds,
 * with its residual on @channel's loss; one decision, where the reserve is
 * made, since two measures of the channel and the packet rate would not
 * always agree. Without a valid name (NULL, k < 2, m < 1): the choice for
 * @channel (rtpcc_fec_choose). FALSE (and @out untouched) when neither
 * gives a code. */
gboolean rtpcc_fec_choose_named (const RtpccFecChannel * channel,
    const gchar * scheme, guint k, guint m, RtpccFecChoice * out);

G_END_DECLS

#endif

/* The TCP throughput equation (RFC 5348 §3.1), shared by TFRC (cc/tfrc.c)
 * and the RFC 8083 circuit breaker: one implementation, forward and
 * inverse, as DCCP keeps it in ccids/lib/tfrc_equation.c.
 *
 * Units: rates in bytes/s, s in bytes, the round-trip time in seconds.
 * b = 1 and t_RTO = 4 R, as RFC 5348 §3.1 recommends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_TCPEQ_H__
#define __RTPCC_TCPEQ_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

/* X = s / (R f (p)): bytes/s for packet size @s, round-trip time @rtt and
 * loss event rate @p. p <= 0 gives +inf; rtt <= 0 counts as 1 µs. */
gdouble rtpcc_tcpeq_throughput (gdouble s, gdouble rtt, gdouble p);

/* The inverse (RFC 5348 §6.3.1): the loss event rate p at which
 * rtpcc_tcpeq_throughput (@s, @rtt, p) == @x, solved numerically on the
 * full equation. Clamped to [1e-20, 1]: a rate below X (p = 1) gives 1. */
gdouble rtpcc_tcpeq_loss_event_rate (gdouble s, gdouble rtt, gdouble x);

G_END_DECLS

#endif /* __RTPCC_TCPEQ_H__ */

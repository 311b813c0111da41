/* Packet loss models: Bernoulli and Gilbert–Elliott.
 *
 * Gilbert–Elliott uses the classic (p, r, 1-k, 1-h) parameters, as netem's
 * "gemodel": p = P(Good→Bad), r = P(Bad→Good), k = P(delivered | Good),
 * h = P(delivered | Bad). With k = 1 and h = 0 this is the simple Gilbert
 * model whose mean loss burst is 1/r packets.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_LOSS_H__
#define __RTPCC_LOSS_H__

#include <rtpcc/common.h>
#include <rtpcc/rng.h>

G_BEGIN_DECLS

typedef enum
{
  RTPCC_LOSS_BERNOULLI = 0,
  RTPCC_LOSS_GILBERT_ELLIOTT = 1,
} RtpccLossModel;

typedef struct
{
  RtpccLossModel model;
  gdouble loss;                 /* Bernoulli loss probability */
  gdouble ge_p, ge_r, ge_k, ge_h;
} RtpccLossParams;

/* Bernoulli, loss 0; GE p = 0, r = 1, k = 1, h = 0. */
void rtpcc_loss_params_init (RtpccLossParams * params);
/* FALSE (and @error set) if a probability is outside [0, 1]. */
gboolean rtpcc_loss_params_validate (const RtpccLossParams * params,
    GError ** error);
/* Long-run loss rate the parameters imply. */
gdouble rtpcc_loss_params_mean_rate (const RtpccLossParams * params);

typedef struct
{
  RtpccLossParams params;
  gboolean bad;                 /* Gilbert–Elliott state */
  RtpccRng rng;
} RtpccLoss;

void rtpcc_loss_init (RtpccLoss * loss, const RtpccLossParams * params,
    RtpccRng * rng);
/* Parameters change; the GE state and the random stream carry on. */
void rtpcc_loss_set_params (RtpccLoss * loss, const RtpccLossParams * params);
/* One packet: TRUE if it is lost. The draw count per call is fixed for a
 * given model, so runs replay exactly. */
gboolean rtpcc_loss_next (RtpccLoss * loss);

G_END_DECLS

#endif

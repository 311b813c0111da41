/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "loss.h"

void
rtpcc_loss_params_init (RtpccLossParams * params)
{
  params->model = RTPCC_LOSS_BERNOULLI;
  params->loss = 0.0;
  params->ge_p = 0.0;
  params->ge_r = 1.0;
  params->ge_k = 1.0;
  params->ge_h = 0.0;
}

static gboolean
is_prob (gdouble v)
{
  return v >= 0.0 && v <= 1.0;  /* also FALSE for NaN */
}

gboolean
rtpcc_loss_params_validate (const RtpccLossParams * params, GError ** error)
{
  if (params->model != RTPCC_LOSS_BERNOULLI
      && params->model != RTPCC_LOSS_GILBERT_ELLIOTT) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "unknown loss model %d", (int) params->model);
    return FALSE;
  }
  if (!is_prob (params->loss) || !is_prob (params->ge_p)
      || !is_prob (params->ge_r) || !is_prob (params->ge_k)
      || !is_prob (params->ge_h)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "loss probabilities must lie in [0, 1]");
    return FALSE;
  }
  return TRUE;
}

gdouble
rtpcc_loss_params_mean_rate (const RtpccLossParams * params)
{
  gdouble p, r;

  if (params->model == RTPCC_LOSS_BERNOULLI)
    return params->loss;
  p = params->ge_p;
  r = params->ge_r;
  if (p + r <= 0.0)             /* never leaves Good */
    return 1.0 - params->ge_k;
  /* stationary P(Bad) = p / (p + r) */
  return (1.0 - params->ge_k) * r / (p + r) + (1.0 - params->ge_h) * p / (p + r);
}

void
rtpcc_loss_init (RtpccLoss * loss, const RtpccLossParams * params,
    RtpccRng * rng)
{
  loss->params = *params;
  loss->bad = FALSE;
  loss->rng = *rng;
}

void
rtpcc_loss_set_params (RtpccLoss * loss, const RtpccLossParams * params)
{
  loss->params = *params;
}

gboolean
rtpcc_loss_next (RtpccLoss * loss)
{
  const RtpccLossParams *p = &loss->params;

  if (p->model == RTPCC_LOSS_BERNOULLI)
    return rtpcc_rng_bernoulli (&loss->rng, p->loss);

  /* Gilbert–Elliott: move the chain, then lose with the new state's
   * probability (netem's order). Two draws per packet, always. */
  if (loss->bad) {
    if (rtpcc_rng_bernoulli (&loss->rng, p->ge_r))
      loss->bad = FALSE;
  } else {
    if (rtpcc_rng_bernoulli (&loss->rng, p->ge_p))
      loss->bad = TRUE;
  }
  return rtpcc_rng_bernoulli (&loss->rng, loss->bad ? 1.0 - p->ge_h :
      1.0 - p->ge_k);
}

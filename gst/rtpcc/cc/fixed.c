/* "fixed": no congestion control. The target stays at start-bitrate (or
 * min-bitrate); the baseline every comparison needs. Parameter fec-share:
 * the part of that target left for FEC (rtpcc-target's fec-bitrate, what
 * fecenc follows), 0 by default.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>
#include <rtpcc/cc/params.h>

typedef struct
{
  RtpccController parent;
  gdouble fec_share;
} Fixed;

static void
fixed_publish (Fixed * f)
{
  RtpccController *cc = &f->parent;
  guint64 rate = cc->config.start_bitrate ? cc->config.start_bitrate :
      cc->config.min_bitrate;

  rtpcc_controller_update_target (cc, rate, (guint64) (rate * f->fec_share),
      1.0, "fixed", "configured");
}

static void
fixed_init (RtpccController * cc, RtpccTime now)
{
  fixed_publish ((Fixed *) cc);
}

static const RtpccParamSpec param_specs[] = {
  RTPCC_PARAM_DOUBLE ("fec-share", Fixed, fec_share, 0, 0.5, 0),
};

static gboolean
fixed_set_param (RtpccController * cc, const gchar * key, const gchar * value)
{
  if (!rtpcc_params_set (param_specs, G_N_ELEMENTS (param_specs), cc, key,
          value))
    return FALSE;
  fixed_publish ((Fixed *) cc);
  return TRUE;
}

const RtpccControllerOps rtpcc_cc_fixed_ops = {
  .name = "fixed",
  .description = "No congestion control: constant target (for comparisons)",
  .instance_size = sizeof (Fixed),
  .init = fixed_init,
  .set_param = fixed_set_param,
};

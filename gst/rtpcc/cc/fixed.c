/* "fixed": no congestion control. The target stays at start-bitrate (or
 * min-bitrate); the baseline every comparison needs.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/cc/builtin.h>

static void
fixed_init (RtpccController * cc, RtpccTime now)
{
  guint64 rate = cc->config.start_bitrate ? cc->config.start_bitrate :
      cc->config.min_bitrate;
  rtpcc_controller_update_target (cc, rate, 0, 1.0, "fixed", "configured");
}

const RtpccControllerOps rtpcc_cc_fixed_ops = {
  .name = "fixed",
  .description = "No congestion control: constant target (for comparisons)",
  .instance_size = sizeof (RtpccController),
  .init = fixed_init,
};

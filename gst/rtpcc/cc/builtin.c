/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/rtpcc-private.h>
#include <rtpcc/cc/builtin.h>

static const RtpccControllerOps *const builtin_ops[] = {
  &rtpcc_cc_fixed_ops,
  &rtpcc_cc_ccid2_ops,
  &rtpcc_cc_rtcp_rr_ops,
  &rtpcc_cc_rrtcc_ops,
  &rtpcc_cc_cnadu_ops,
  &rtpcc_cc_tfrc_ops,
  &rtpcc_cc_gcc_ops,
  &rtpcc_cc_nada_ops,
  &rtpcc_cc_fbra_ops,
};

const RtpccControllerOps *const *
rtpcc_cc_builtins (guint * n_ops)
{
  *n_ops = G_N_ELEMENTS (builtin_ops);
  return builtin_ops;
}

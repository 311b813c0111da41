/* The controllers built into the library: each cc/NAME.c defines
 * rtpcc_cc_NAME_ops, and cc/builtin.c lists them for the registry.
 * Internal to the library (not installed): applications reach a controller
 * by its registry name.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_CC_BUILTIN_H__
#define __RTPCC_CC_BUILTIN_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

extern const RtpccControllerOps rtpcc_cc_fixed_ops;
extern const RtpccControllerOps rtpcc_cc_ccid2_ops;
extern const RtpccControllerOps rtpcc_cc_rtcp_rr_ops;
extern const RtpccControllerOps rtpcc_cc_rrtcc_ops;
extern const RtpccControllerOps rtpcc_cc_cnadu_ops;
extern const RtpccControllerOps rtpcc_cc_tfrc_ops;
extern const RtpccControllerOps rtpcc_cc_gcc_ops;
extern const RtpccControllerOps rtpcc_cc_nada_ops;
extern const RtpccControllerOps rtpcc_cc_fbra_ops;

G_END_DECLS

#endif

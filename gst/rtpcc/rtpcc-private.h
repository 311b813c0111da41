/* Library-internal links between modules (not installed).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PRIVATE_H__
#define __RTPCC_PRIVATE_H__

#include <rtpcc/controller.h>

G_BEGIN_DECLS

/* The controllers compiled into the library (cc/builtin.c), which the
 * registry loads on first use. The registry knows only that there is such
 * a list, not what is in it: adding a controller touches cc/ alone. */
G_GNUC_INTERNAL
const RtpccControllerOps *const *rtpcc_cc_builtins (guint * n_ops);

G_END_DECLS

#endif /* __RTPCC_PRIVATE_H__ */

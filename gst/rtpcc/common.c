/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common.h"

G_DEFINE_QUARK (rtpcc-error-quark, rtpcc_error);

RtpccTime
rtpcc_time_sub_saturated (RtpccTime a, RtpccTime b)
{
  gint64 r;

  if (__builtin_sub_overflow (a, b, &r))
    return b > 0 ? G_MININT64 + 1 : G_MAXINT64;
  return r;
}

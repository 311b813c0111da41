/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common.h"

G_DEFINE_QUARK (rtpcc-error-quark, rtpcc_error);

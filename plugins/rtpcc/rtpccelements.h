/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __RTPCC_ELEMENTS_H__
#define __RTPCC_ELEMENTS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (rtpccsink);
GST_ELEMENT_REGISTER_DECLARE (rtpccsrc);
GST_ELEMENT_REGISTER_DECLARE (rtpccbwe);
GST_ELEMENT_REGISTER_DECLARE (mprtpsched);

GType gst_rtpcc_feedback_mode_get_type (void);

G_END_DECLS

#endif

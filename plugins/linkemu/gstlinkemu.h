/* linkemu: a bottleneck link emulator element, an I/O skin over RtpccLink.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_LINK_EMU_H__
#define __GST_LINK_EMU_H__

#include <gst/gst.h>
#include <rtpcc/net/link.h>

G_BEGIN_DECLS

/**
 * GstLinkEmuLossModel:
 * @GST_LINK_EMU_LOSS_MODEL_BERNOULLI: independent losses with probability
 *   #GstLinkEmu:loss
 * @GST_LINK_EMU_LOSS_MODEL_GILBERT_ELLIOTT: two-state bursty losses driven
 *   by #GstLinkEmu:ge-p, #GstLinkEmu:ge-r, #GstLinkEmu:ge-k, #GstLinkEmu:ge-h
 *
 * The values equal the library's #RtpccLossModel.
 */
typedef enum
{
  GST_LINK_EMU_LOSS_MODEL_BERNOULLI = RTPCC_LOSS_BERNOULLI,
  GST_LINK_EMU_LOSS_MODEL_GILBERT_ELLIOTT = RTPCC_LOSS_GILBERT_ELLIOTT,
} GstLinkEmuLossModel;

#define GST_TYPE_LINK_EMU_LOSS_MODEL (gst_link_emu_loss_model_get_type ())
GType gst_link_emu_loss_model_get_type (void);

#define GST_TYPE_LINK_EMU (gst_link_emu_get_type ())
G_DECLARE_FINAL_TYPE (GstLinkEmu, gst_link_emu, GST, LINK_EMU, GstElement)

GST_ELEMENT_REGISTER_DECLARE (linkemu);

G_END_DECLS

#endif /* __GST_LINK_EMU_H__ */

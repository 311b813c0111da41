/* fecenc / fecdec: GStreamer skins over the sans-I/O FEC library
 * (gst/rtpcc/fec/fec.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_FEC_H__
#define __GST_FEC_H__

#include <gst/gst.h>
#include <rtpcc/fec/fec.h>

G_BEGIN_DECLS

/**
 * GstFecEncScheme:
 * @GST_FEC_ENC_SCHEME_XOR: one XOR parity packet per #GstFecEnc:n packets
 * @GST_FEC_ENC_SCHEME_RS: #GstFecEnc:m Reed-Solomon parity packets per
 *   #GstFecEnc:k packets
 * @GST_FEC_ENC_SCHEME_XOR_2D: XOR rows of #GstFecEnc:n and interleaved
 *   columns over #GstFecEnc:depth rows
 * @GST_FEC_ENC_SCHEME_AUTO: XOR or Reed-Solomon, and their strength, from
 *   the channel the rtpcc-target event reports (loss, loss-burst, the FEC
 *   share of the rate) within #GstFecEnc:max-block-time
 */
typedef enum
{
  GST_FEC_ENC_SCHEME_XOR = RTPCC_FEC_SCHEME_XOR,
  GST_FEC_ENC_SCHEME_RS = RTPCC_FEC_SCHEME_RS,
  GST_FEC_ENC_SCHEME_XOR_2D = RTPCC_FEC_SCHEME_XOR_2D,
  GST_FEC_ENC_SCHEME_AUTO = 3,
} GstFecEncScheme;

#define GST_TYPE_FEC_ENC_SCHEME (gst_fec_enc_scheme_get_type ())
GType gst_fec_enc_scheme_get_type (void);

/**
 * GstFecDecMode:
 * @GST_FEC_DEC_MODE_RTPCC: our format on its own SSRC / sequence space
 * @GST_FEC_DEC_MODE_ULPFEC: RFC 5109 ULPFEC as sent by rtpulpfecenc (FEC
 *   packets share the media SSRC and sequence space)
 */
typedef enum
{
  GST_FEC_DEC_MODE_RTPCC = 0,
  GST_FEC_DEC_MODE_ULPFEC = 1,
} GstFecDecMode;

#define GST_TYPE_FEC_DEC_MODE (gst_fec_dec_mode_get_type ())
GType gst_fec_dec_mode_get_type (void);

#define GST_TYPE_FEC_ENC (gst_fec_enc_get_type ())
G_DECLARE_FINAL_TYPE (GstFecEnc, gst_fec_enc, GST, FEC_ENC, GstElement)
#define GST_TYPE_FEC_DEC (gst_fec_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstFecDec, gst_fec_dec, GST, FEC_DEC, GstElement)
/* unchecked, for the per-packet paths */
#define GST_FEC_DEC_CAST(obj) ((GstFecDec *) (obj))

/* What one step releases, in order: usually one buffer, pushed alone (a
 * buffer list per packet, which downstream without a chain_list function
 * takes apart again, costs more than the packet's own work); a list once
 * there are more. */
typedef struct
{
  GstBuffer *one;
  GstBufferList *list;
} GstFecOut;

#define GST_FEC_OUT_INIT { NULL, NULL }

static inline void
gst_fec_out_add (GstFecOut * out, GstBuffer * buf)
{
  if (out->one == NULL && out->list == NULL) {
    out->one = buf;
    return;
  }
  if (out->list == NULL) {
    out->list = gst_buffer_list_new ();
    gst_buffer_list_add (out->list, out->one);
    out->one = NULL;
  }
  gst_buffer_list_add (out->list, buf);
}

/* Pushes what @out holds (consumed), in one push. */
static inline GstFlowReturn
gst_fec_out_push (GstPad * srcpad, GstFecOut * out)
{
  GstBuffer *one = out->one;
  GstBufferList *list = out->list;

  out->one = NULL;
  out->list = NULL;
  if (list)
    return gst_pad_push_list (srcpad, list);
  return one ? gst_pad_push (srcpad, one) : GST_FLOW_OK;
}

GST_ELEMENT_REGISTER_DECLARE (fecenc);
GST_ELEMENT_REGISTER_DECLARE (fecdec);

G_END_DECLS

#endif

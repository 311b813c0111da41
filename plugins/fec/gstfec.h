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
 */
typedef enum
{
  GST_FEC_ENC_SCHEME_XOR = RTPCC_FEC_SCHEME_XOR,
  GST_FEC_ENC_SCHEME_RS = RTPCC_FEC_SCHEME_RS,
  GST_FEC_ENC_SCHEME_XOR_2D = RTPCC_FEC_SCHEME_XOR_2D,
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

/* Pushes @list (consumed) unless it is empty: one push for all, which
 * downstream without a chain_list function gets one by one, in order. */
static inline GstFlowReturn
gst_fec_push_list (GstPad * srcpad, GstBufferList * list)
{
  guint n = gst_buffer_list_length (list);
  GstBuffer *one;

  if (n != 1) {
    if (n == 0) {
      gst_buffer_list_unref (list);
      return GST_FLOW_OK;
    }
    return gst_pad_push_list (srcpad, list);
  }
  /* the common case, one packet in one out: a plain push costs less than
   * a list downstream takes apart */
  one = gst_buffer_ref (gst_buffer_list_get (list, 0));
  gst_buffer_list_unref (list);
  return gst_pad_push (srcpad, one);
}

GST_ELEMENT_REGISTER_DECLARE (fecenc);
GST_ELEMENT_REGISTER_DECLARE (fecdec);

G_END_DECLS

#endif

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

/* The element state gst_fec_wait_next() needs (all guarded by @lock). */
typedef struct
{
  GMutex *lock;
  GCond *cond;
  gboolean *flushing;
  GstClockID *clock_id;
} GstFecWait;

/* Called with the lock held, every time the task wakes up. */
typedef RtpccTime (*GstFecNextTime) (gpointer data);

/* For a src-pad task: under @w->lock, waits on @w->cond until @next (data)
 * names a time (ns on the running-time scale) and the element has a clock,
 * then waits on the clock until that time without the lock. FALSE (task
 * paused, lock released) when flushing. */
gboolean gst_fec_wait_next (GstElement * element, GstPad * srcpad,
    const GstFecWait * w, GstFecNextTime next, gpointer data);
/* src-pad activate-mode: sets flushing (unscheduling a wait) and starts or
 * stops the task running @func (@data). */
gboolean gst_fec_task_activate (GstPad * srcpad, const GstFecWait * w,
    gboolean active, GstTaskFunction func, gpointer data);
/* Pushes every buffer of @list until one push fails; frees the rest and
 * the list. */
GstFlowReturn gst_fec_push_list (GstPad * srcpad, GList * list);
/* The library's "now": the element clock's running time, else @buf's
 * running time in @segment, never before *@last_now (updated). */
RtpccTime gst_fec_now (GstElement * element, const GstSegment * segment,
    GstBuffer * buf, RtpccTime * last_now);

GST_ELEMENT_REGISTER_DECLARE (fecenc);
GST_ELEMENT_REGISTER_DECLARE (fecdec);

G_END_DECLS

#endif

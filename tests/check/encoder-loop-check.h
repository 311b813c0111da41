/* What the encoder-loop tests of rtpccsink and rtpccbwe share: a pad
 * probe that counts the RTP payload bytes (fixed 12-byte header, as
 * payloaders write it) of the buffers from a media time on, and the check
 * that an element closed the loop on openh264enc at a 1 Mbit/s target.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __ENCODER_LOOP_CHECK_H__
#define __ENCODER_LOOP_CHECK_H__

#include <gst/check/gstcheck.h>
#include <rtpcc/encoderrate.h>
#include <math.h>

typedef struct
{
  GstClockTime from;            /* PTS from which buffers count */
  guint64 bytes;
} PayloadTail;

static gboolean
payload_tail_buffer (GstBuffer ** buf, guint idx, gpointer data)
{
  PayloadTail *t = data;

  if (GST_BUFFER_PTS_IS_VALID (*buf) && GST_BUFFER_PTS (*buf) >= t->from)
    t->bytes += gst_buffer_get_size (*buf) - 12;
  return TRUE;
}

/* a GstPadProbeCallback over buffers and lists (rtph264pay pushes lists);
 * user data: a PayloadTail */
static G_GNUC_UNUSED GstPadProbeReturn
payload_tail_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info),
        payload_tail_buffer, data);
  } else {
    buf = GST_PAD_PROBE_INFO_BUFFER (info);
    payload_tail_buffer (&buf, 0, data);
  }
  return GST_PAD_PROBE_OK;
}

/* The encoder at @bitrate holds the corrected target @want: the setter's
 * hysteresis (encoderrate.h) leaves a change smaller than its min_change
 * of the applied value unapplied by design, so @bitrate is within that
 * band of @want, not equal to it. */
static G_GNUC_UNUSED gboolean
encoder_within_hysteresis (guint bitrate, gdouble want)
{
  RtpccEncoderHysteresis h;

  rtpcc_encoder_hysteresis_init (&h);
  return bitrate > 0 && fabs (want - (gdouble) bitrate) <
      h.min_change * (gdouble) bitrate;
}

/* @enc holds @element's correction of its 1 Mbit/s target */
static G_GNUC_UNUSED gboolean
encoder_holds_correction (GstElement * element, GstElement * enc)
{
  GstStructure *st;
  gdouble factor = 0;
  guint bitrate = 0;

  g_object_get (element, "stats", &st, NULL);
  gst_structure_get_double (st, "encoder-correction", &factor);
  gst_structure_free (st);
  g_object_get (enc, "bitrate", &bitrate, NULL);
  return encoder_within_hysteresis (bitrate, 1e6 * factor);
}

/* @element (rtpccsink or rtpccbwe, fixed at 1 Mbit/s) corrected @enc
 * (openh264enc) so that what it produced over @tail's 8 s is the target,
 * and @enc holds the corrected value. */
static G_GNUC_UNUSED void
check_encoder_loop_closed (GstElement * element, GstElement * enc,
    const PayloadTail * tail)
{
  GstStructure *st;
  guint64 produced = 0;
  gdouble factor = 0, rate;
  guint bitrate = 0;

  g_object_get (element, "stats", &st, NULL);
  fail_unless (gst_structure_get_uint64 (st, "encoder-produced", &produced));
  fail_unless (gst_structure_get_double (st, "encoder-correction", &factor));
  gst_structure_free (st);
  g_object_get (enc, "bitrate", &bitrate, NULL);
  rate = (gdouble) tail->bytes * 8.0 / 8.0;
  GST_INFO ("openh264enc: %.0f bit/s over the last 8 s for a 1000000 "
      "target (last window %" G_GUINT64_FORMAT "), correction %.3f, encoder "
      "bitrate %u", rate, produced, factor, bitrate);
  /* corrected, and the encoder holds the corrected value */
  fail_unless (factor < 0.95, "correction %.3f", factor);
  fail_unless (encoder_within_hysteresis (bitrate, 1e6 * factor),
      "encoder at %u, correction %.3f", bitrate, factor);
  fail_unless (produced > 0);
  /* what it produces is the target, within the dead band and the
   * encoder's own swing */
  fail_unless (rate > 1e6 * 0.9 && rate < 1e6 * 1.1, "produced %.0f", rate);
}

#endif

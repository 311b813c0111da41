/* Fuzz target: the "rtpcc-repaired" and "rtpcc-playout-state" events as
 * rtpccsrc takes them from downstream (fecdec's rebuilt packets, for the
 * RFC 5725 Post-repair RLE; playoutbuffer's de-jitter state, for the
 * RFC 7005 block): the parser on an event whose structure another element
 * built, then what the receiver does with what it parsed, then the report
 * that carries it.
 *
 * Input: a byte choosing the event (bit 0: repaired or playout-state) and
 * its name (the right one, another, or the right one on a downstream
 * event: the byte / 2 modulo 3), then six fields ("ssrc", "seqnum" /
 * "adaptive", "nominal", "maximum", "high-water", "low-water"; a
 * repaired event reads the first two), each a type byte and 8 value bytes
 * (fuzz-event.h); the rest is RTP for the receiver first, as records
 * (fuzz.h).
 *
 * Checks: a parsed state has a nominal delay within bounds, not above the
 * maximum, and marks in order; the receiver either takes an update or
 * counts its refusal, exactly once; the report after it is well-formed
 * XR and a de-jitter block in it carries the nominal delay taken.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <gst/gst.h>
#include <string.h>

#include "gstrtpccevent.h"
#include "fuzz-event.h"
#include <rtpcc/feedback/rtcp.h>
#include <rtpcc/feedback/xr.h>

#define N_FIELDS 6

static RtpccTime
to_time (GstClockTime t)
{
  return GST_CLOCK_TIME_IS_VALID (t) ? (RtpccTime) t : RTPCC_TIME_NONE;
}

/* The de-jitter block of the report @r sends at @now, checked
 * well-formed; FALSE if none. */
static gboolean
report_dejitter (RtpccReceiver * r, RtpccTime now, RtpccXrDejitter * out)
{
  guint8 buf[1500];
  gsize n = 0;
  RtpccRtcpIter it;
  RtpccRtcpPacket p;
  gboolean found = FALSE;

  for (RtpccTime end = now + RTPCC_SEC (3); now < end && n == 0;
      now += RTPCC_MSEC (10))
    n = rtpcc_receiver_build_feedback (r, now, buf, sizeof buf);
  if (n == 0 || !rtpcc_rtcp_iter_init (&it, buf, n))
    return FALSE;
  while (rtpcc_rtcp_iter_next (&it, &p)) {
    RtpccXrReport *x;
    if (p.pt != RTPCC_RTCP_XR)
      continue;
    x = rtpcc_xr_report_parse (p.data, p.len, NULL);
    FUZZ_CHECK (x != NULL);
    for (guint i = 0; i < x->n_blocks; i++)
      if (x->blocks[i].bt == RTPCC_XR_BT_DEJITTER) {
        *out = x->blocks[i].dejitter;
        found = TRUE;
      }
    rtpcc_xr_report_free (x);
  }
  return found;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static const gchar *state_fields[N_FIELDS] = { "ssrc", "adaptive",
    "nominal", "maximum", "high-water", "low-water"
  };
  static const gchar *repaired_fields[2] = { "ssrc", "seqnum" };
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  RtpccTime now = RTPCC_SEC (1);
  GstStructure *s;
  GstEvent *ev;
  gboolean repaired, ok;
  guint variant;
  size_t at = 1 + N_FIELDS * FUZZ_FIELD_BYTES;

  fuzz_gst_init_once ();
  if (size < at)
    return 0;

  repaired = data[0] & 1;
  variant = (data[0] >> 1) % 3;
  s = gst_structure_new_empty (variant == 1 ? "rtpcc-other" : repaired ?
      GST_RTPCC_REPAIRED_NAME : GST_RTPCC_PLAYOUT_STATE_NAME);
  for (guint i = 0; i < (repaired ? 2u : N_FIELDS); i++)
    fuzz_structure_set_field (s, repaired ? repaired_fields[i] :
        state_fields[i], data + 1 + i * FUZZ_FIELD_BYTES);
  ev = gst_event_new_custom (variant == 2 ? GST_EVENT_CUSTOM_DOWNSTREAM :
      GST_EVENT_CUSTOM_UPSTREAM, s);

  rtpcc_receiver_config_init (&rc);
  rc.seed = 5;
  rc.feedback = RTPCC_FEEDBACK_RR;
  rc.xr_blocks = RTPCC_RECEIVER_XR_ALL;
  r = rtpcc_receiver_new (&rc, now);
  fuzz_receiver_feed (r, data, size, at, &now);

  /* what rtpccsrc's event handler does with it */
  if (repaired) {
    guint32 ssrc = 0;
    guint16 seq = 0;
    const RtpccReceiverStats *st = rtpcc_receiver_get_stats (r, now);
    guint64 marked = st->repairs_marked, rejected = st->repairs_rejected;
    gboolean took;

    ok = gst_rtpcc_repaired_event_parse (ev, &ssrc, &seq);
    FUZZ_CHECK (!ok || gst_rtpcc_repaired_event_is (ev));
    if (ok) {
      took = rtpcc_receiver_mark_repaired (r, now, ssrc, seq);
      st = rtpcc_receiver_get_stats (r, now);
      FUZZ_CHECK (st->repairs_marked == marked + (took ? 1 : 0));
      FUZZ_CHECK (st->repairs_rejected == rejected + (took ? 0 : 1));
    }
  } else {
    GstRtpccPlayoutState ps;
    const RtpccReceiverStats *st = rtpcc_receiver_get_stats (r, now);
    guint64 rejected = st->dejitter_rejected;
    RtpccXrDejitter djb;
    gboolean took;

    ok = gst_rtpcc_playout_state_event_parse (ev, &ps);
    FUZZ_CHECK (!ok || gst_rtpcc_playout_state_event_is (ev));
    if (ok) {
      FUZZ_CHECK (GST_CLOCK_TIME_IS_VALID (ps.nominal)
          && ps.nominal <= GST_RTPCC_PLAYOUT_STATE_MAX);
      FUZZ_CHECK (!GST_CLOCK_TIME_IS_VALID (ps.maximum)
          || ps.nominal <= ps.maximum);
      FUZZ_CHECK (!GST_CLOCK_TIME_IS_VALID (ps.high_water)
          || !GST_CLOCK_TIME_IS_VALID (ps.low_water)
          || ps.low_water <= ps.high_water);
      took = rtpcc_receiver_set_dejitter (r, ps.ssrc, ps.adaptive,
          to_time (ps.nominal), to_time (ps.maximum),
          to_time (ps.high_water), to_time (ps.low_water));
      st = rtpcc_receiver_get_stats (r, now);
      FUZZ_CHECK (st->dejitter_rejected == rejected + (took ? 0 : 1));
      if (took && report_dejitter (r, now, &djb) && djb.ssrc == ps.ssrc) {
        FUZZ_CHECK (djb.nominal ==
            rtpcc_xr_djb_from_time (to_time (ps.nominal)));
        FUZZ_CHECK (djb.low_water <= djb.nominal
            && djb.nominal <= djb.high_water);
      }
    }
  }

  gst_event_unref (ev);
  rtpcc_receiver_free (r);
  return 0;
}

static void
put_field (GByteArray * a, guint8 type, guint64 v)
{
  guint8 f[FUZZ_FIELD_BYTES];

  f[0] = type;
  for (guint i = 0; i < 8; i++)
    f[1 + i] = (guint8) (v >> (56 - 8 * i));
  g_byte_array_append (a, f, sizeof (f));
}

/* type bytes: 0 uint, 2 uint64, 5 boolean, 6 absent */
static GBytes *
seed (guint8 kind, const guint8 types[N_FIELDS], const guint64 values[N_FIELDS])
{
  GByteArray *a = g_byte_array_new ();
  guint8 pkt[40];

  g_byte_array_append (a, &kind, 1);
  for (guint i = 0; i < N_FIELDS; i++)
    put_field (a, types[i], values[i]);
  for (guint i = 0; i < 12; i++) {
    if (i == 5)
      continue;                 /* lost: for a repair */
    rtpcc_fuzz_rtp_header (pkt, 0, 96, (guint16) (100 + i), 3000 * i,
        0x11223344u);
    memset (pkt + 12, 0xab, 28);
    rtpcc_fuzz_add_record (a, 10, pkt, sizeof (pkt));
  }
  return g_byte_array_free_to_bytes (a);
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  static const guint8 rep[N_FIELDS] = { 0, 0, 6, 6, 6, 6 };
  static const guint8 st[N_FIELDS] = { 0, 5, 2, 2, 2, 2 };
  static const guint8 st_short[N_FIELDS] = { 0, 6, 2, 6, 6, 6 };
  const guint64 ms = GST_MSECOND;
  const guint64 rep_ok[N_FIELDS] = { 0x11223344u, 105, 0, 0, 0, 0 };
  const guint64 rep_far[N_FIELDS] = { 0x11223344u, 30000, 0, 0, 0, 0 };
  const guint64 rep_bad[N_FIELDS] = { 0x11223344u, 70000, 0, 0, 0, 0 };
  const guint64 st_ok[N_FIELDS] = { 0x11223344u, 1, 80 * ms, 400 * ms,
    120 * ms, 60 * ms
  };
  const guint64 st_inverted[N_FIELDS] = { 0x11223344u, 1, 80 * ms,
    400 * ms, 60 * ms, 120 * ms
  };
  const guint64 st_huge[N_FIELDS] = { 0x11223344u, 0, G_MAXUINT64 - 1,
    G_MAXUINT64, 0, 0
  };

  g_ptr_array_add (seeds, seed (1, rep, rep_ok));       /* well-formed */
  g_ptr_array_add (seeds, seed (1, rep, rep_far));      /* out of window */
  g_ptr_array_add (seeds, seed (1, rep, rep_bad));      /* seqnum > 16 bits */
  g_ptr_array_add (seeds, seed (3, rep, rep_ok));       /* another name */
  g_ptr_array_add (seeds, seed (0, st, st_ok)); /* well-formed */
  g_ptr_array_add (seeds, seed (0, st_short, st_ok));   /* nominal only */
  g_ptr_array_add (seeds, seed (0, st, st_inverted));   /* low > high */
  g_ptr_array_add (seeds, seed (0, st, st_huge));       /* over the bound */
  g_ptr_array_add (seeds, seed (4, st, st_ok)); /* downstream */
}

/* Fuzz target: the "rtpcc-discard" event as rtpccsrc takes it from
 * downstream (its src event handler): gst_rtpcc_discard_event_parse on an
 * event whose structure another element built, then
 * rtpcc_receiver_mark_discarded with what it parsed (a malformed event
 * marks nothing and is counted as rejected).
 *
 * Input: a byte choosing the structure's name (the right one, another, or
 * the right one on a downstream event), then per field ("ssrc",
 * "seqnum", "count") a type byte (uint, int, uint64, string, double,
 * boolean, absent) and 8 value bytes; the rest is RTP for the receiver
 * first, as records (fuzz.h).
 *
 * Checks: a parsed event names a 16-bit seqnum and a count of at least
 * 1; a receiver never marks more than RTPCC_RECEIVER_MAX_DISCARDS
 * per call or anything for a refused event; every refusal is counted.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <gst/gst.h>
#include <string.h>

#include "gstrtpccevent.h"
#include "fuzz-event.h"

#define FIELD_BYTES FUZZ_FIELD_BYTES

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static const gchar *fields[] = { "ssrc", "seqnum", "count" };
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  RtpccTime now = RTPCC_SEC (1);
  GstStructure *s;
  GstEvent *ev;
  guint32 ssrc = 0;
  guint16 seqnum = 0;
  guint count = 0;
  gboolean ok;
  guint64 marked, rejected;
  const RtpccReceiverStats *st;
  size_t at = 1 + 3 * FIELD_BYTES;

  fuzz_gst_init_once ();
  if (size < at)
    return 0;

  s = gst_structure_new_empty (data[0] % 3 == 1 ? "rtpcc-other" :
      GST_RTPCC_DISCARD_NAME);
  for (guint i = 0; i < 3; i++)
    fuzz_structure_set_field (s, fields[i], data + 1 + i * FIELD_BYTES);
  ev = gst_event_new_custom (data[0] % 3 == 2 ? GST_EVENT_CUSTOM_DOWNSTREAM :
      GST_EVENT_CUSTOM_UPSTREAM, s);

  rtpcc_receiver_config_init (&rc);
  rc.seed = 5;
  r = rtpcc_receiver_new (&rc, now);
  fuzz_receiver_feed (r, data, size, at, &now);

  /* what rtpccsrc's event handler does with it */
  ok = gst_rtpcc_discard_event_parse (ev, &ssrc, &seqnum, &count);
  if (ok)
    FUZZ_CHECK (count >= 1 && gst_rtpcc_discard_event_is (ev));
  st = rtpcc_receiver_get_stats (r, now);
  marked = st->discards_marked;
  rejected = st->discards_rejected;
  if (rtpcc_receiver_mark_discarded (r, now, ssrc, seqnum,
          ok ? MIN (count, RTPCC_RECEIVER_MAX_DISCARDS) : 0))
    FUZZ_CHECK (ok);
  st = rtpcc_receiver_get_stats (r, now);
  FUZZ_CHECK (st->discards_marked - marked <= RTPCC_RECEIVER_MAX_DISCARDS);
  if (!ok)
    FUZZ_CHECK (st->discards_marked == marked
        && st->discards_rejected == rejected + 1);

  gst_event_unref (ev);
  rtpcc_receiver_free (r);
  return 0;
}

static GBytes *
seed (guint8 name, guint8 ssrc_type, guint8 count_type, guint32 count)
{
  GByteArray *a = g_byte_array_new ();
  guint8 f[FIELD_BYTES], pkt[40];

  g_byte_array_append (a, &name, 1);
  /* ssrc 0x11223344, seqnum 105, count */
  memset (f, 0, sizeof (f));
  f[0] = ssrc_type;
  f[5] = 0x11, f[6] = 0x22, f[7] = 0x33, f[8] = 0x44;
  g_byte_array_append (a, f, sizeof (f));
  memset (f, 0, sizeof (f));
  f[8] = 105;
  g_byte_array_append (a, f, sizeof (f));
  memset (f, 0, sizeof (f));
  f[0] = count_type;
  f[5] = (guint8) (count >> 24), f[6] = (guint8) (count >> 16);
  f[7] = (guint8) (count >> 8), f[8] = (guint8) count;
  g_byte_array_append (a, f, sizeof (f));
  for (guint i = 0; i < 12; i++) {
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
  g_ptr_array_add (seeds, seed (0, 0, 0, 3));   /* well-formed */
  g_ptr_array_add (seeds, seed (0, 0, 0, 100000));      /* over the cap */
  g_ptr_array_add (seeds, seed (0, 1, 0, 3));   /* ssrc as int */
  g_ptr_array_add (seeds, seed (0, 0, 6, 3));   /* no count */
  g_ptr_array_add (seeds, seed (1, 0, 0, 3));   /* another name */
}

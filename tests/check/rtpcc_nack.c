/* Unit tests for the loss-repair feedback formats: RFC 4585 Generic NACK
 * (feedback/nack.h), PLI and RFC 5104 FIR (feedback/psfb.h), the media
 * sender's FIR tracker and key-frame gate. Wire formats against
 * hand-assembled bytes, tshark's dissection, GStreamer's RTCP reader and
 * writer, and GStreamer's rtpsession acting on our packets.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#include "assert-bytes.h"
#include "tshark-util.h"

/* ---- NACK ---------------------------------------------------------------- */

/* Losses 100, 101, 103, 116 | 117 | 200 from 0x11223344 about 0x55667788:
 * 101 is PID + 1 (BLP bit 1, 0x0001), 103 PID + 3 (0x0004), 116 PID + 16
 * (0x8000); 117 is PID + 17, past one FCI's reach. */
static const guint8 nack_example[] = {
  0x81, 0xCD, 0x00, 0x05,       /* V=2 P=0 FMT=1, PT 205, length 5 */
  0x11, 0x22, 0x33, 0x44,       /* SSRC of packet sender */
  0x55, 0x66, 0x77, 0x88,       /* SSRC of media source */
  0x00, 0x64, 0x80, 0x05,       /* PID 100, BLP 0x8005 */
  0x00, 0x75, 0x00, 0x00,       /* PID 117 */
  0x00, 0xC8, 0x00, 0x00,       /* PID 200 */
};

static const guint16 nack_example_seqs[] = { 200, 116, 101, 100, 117, 103,
  101
};

GST_START_TEST (test_nack_layout)
{
  guint8 buf[64];
  RtpccNackFci fci[8];
  guint16 seqs[17];
  guint n;
  gsize len;
  g_autoptr (RtpccNack) nack = NULL;
  GError *err = NULL;

  /* shuffled, 101 twice: three FCIs */
  n = rtpcc_nack_fci_from_seqs (nack_example_seqs,
      G_N_ELEMENTS (nack_example_seqs), fci);
  fail_unless_equals_int (n, 3);
  len = rtpcc_nack_write (buf, sizeof (buf), 0x11223344, 0x55667788, fci, n);
  assert_bytes (buf, len, nack_example);
  len = rtpcc_nack_write_seqs (buf, sizeof (buf), 0x11223344, 0x55667788,
      nack_example_seqs, G_N_ELEMENTS (nack_example_seqs));
  assert_bytes (buf, len, nack_example);
  fail_unless_equals_int (rtpcc_nack_size (3), 24);

  /* no room, nothing to say */
  fail_unless_equals_int (rtpcc_nack_write (buf, 23, 1, 2, fci, 3), 0);
  fail_unless_equals_int (rtpcc_nack_write (buf, 64, 1, 2, fci, 0), 0);
  fail_unless_equals_int (rtpcc_nack_write_seqs (buf, 64, 1, 2, NULL, 0), 0);
  fail_unless_equals_int (rtpcc_nack_size (0), 0);
  fail_unless_equals_int (rtpcc_nack_size (RTPCC_NACK_MAX_FCI + 1), 0);
  fail_unless_equals_int (rtpcc_nack_size (RTPCC_NACK_MAX_FCI),
      (G_MAXUINT16 + 1) * 4);

  nack = rtpcc_nack_parse (nack_example, sizeof (nack_example), &err);
  fail_unless (nack != NULL, "%s", err ? err->message : "");
  fail_unless (nack->sender_ssrc == 0x11223344);
  fail_unless (nack->media_ssrc == 0x55667788);
  fail_unless_equals_int (nack->n_fci, 3);
  fail_unless_equals_int (nack->fci[0].pid, 100);
  fail_unless_equals_int (nack->fci[0].blp, 0x8005);
  n = rtpcc_nack_fci_seqs (nack->fci[0], seqs);
  fail_unless_equals_int (n, 4);
  fail_unless (seqs[0] == 100 && seqs[1] == 101 && seqs[2] == 103
      && seqs[3] == 116);
  fail_unless_equals_int (rtpcc_nack_fci_seqs (nack->fci[2], seqs), 1);
  fail_unless_equals_int (seqs[0], 200);
}

GST_END_TEST;

GST_START_TEST (test_nack_wrap_and_full_blp)
{
  /* across the wrap, one FCI: PID 65534; 65535, 0, 1, 5 are PID + 1, 2,
   * 3, 7 → BLP 0x0047 */
  static const guint16 wrap[] = { 1, 65535, 5, 0, 65534 };
  static const guint8 want[] = {
    0x81, 0xCD, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 2,
    0xFF, 0xFE, 0x00, 0x47,
  };
  guint16 all[17], seqs[17];
  RtpccNackFci fci[17];
  guint8 buf[64];
  gsize len;

  len = rtpcc_nack_write_seqs (buf, sizeof (buf), 1, 2, wrap,
      G_N_ELEMENTS (wrap));
  assert_bytes (buf, len, want);

  /* 17 consecutive: one FCI with every BLP bit, and back */
  for (guint i = 0; i < 17; i++)
    all[i] = (guint16) (65530 + i);
  fail_unless_equals_int (rtpcc_nack_fci_from_seqs (all, 17, fci), 1);
  fail_unless_equals_int (fci[0].pid, 65530);
  fail_unless_equals_int (fci[0].blp, 0xFFFF);
  fail_unless_equals_int (rtpcc_nack_fci_seqs (fci[0], seqs), 17);
  for (guint i = 0; i < 17; i++)
    fail_unless_equals_int (seqs[i], all[i]);

  /* a lone seq, and two at opposite ends of the space (each its own) */
  all[0] = 7;
  fail_unless_equals_int (rtpcc_nack_fci_from_seqs (all, 1, fci), 1);
  fail_unless (fci[0].pid == 7 && fci[0].blp == 0);
  all[1] = 7 + 32768;
  fail_unless_equals_int (rtpcc_nack_fci_from_seqs (all, 2, fci), 2);
  fail_unless_equals_int (rtpcc_nack_fci_from_seqs (all, 0, fci), 0);
}

GST_END_TEST;

/* Random loss lists spanning less than half the space: the FCIs name
 * exactly the distinct seqs, and there are as few as possible — their
 * PIDs are input seqs each more than 16 after the previous one, so no
 * 17-wide window (one FCI) can hold two of them: any list of FCIs covering
 * the seqs needs at least that many. */
GST_START_TEST (test_nack_random_round_trip)
{
  RtpccRng rng;
  guint8 *buf = g_malloc (RTPCC_NACK_HEADER_SIZE + 4 * 400);

  rtpcc_rng_init (&rng, 4585);
  for (guint round = 0; round < 500; round++) {
    guint n = 1 + rtpcc_rng_below (&rng, 400), n_fci, n_got = 0;
    guint16 base = (guint16) rtpcc_rng_next_u64 (&rng);
    guint span = 1 + rtpcc_rng_below (&rng, round % 2 ? 60 : 30000);
    guint16 *seqs = g_new (guint16, n);
    RtpccNackFci *fci = g_new (RtpccNackFci, n);
    gboolean *want = g_new0 (gboolean, span), *got = g_new0 (gboolean, span);
    gboolean ok = TRUE;
    gsize len;
    RtpccNack *nack;

    for (guint i = 0; i < n; i++) {
      guint off = rtpcc_rng_below (&rng, span);

      seqs[i] = (guint16) (base + off);
      want[off] = TRUE;
    }
    n_fci = rtpcc_nack_fci_from_seqs (seqs, n, fci);
    fail_unless (n_fci >= 1 && n_fci <= n);
    /* (one assertion per round: check marks every passing one) */
    for (guint i = 1; i < n_fci; i++)
      ok = ok && (guint16) (fci[i].pid - fci[i - 1].pid) > 16;
    fail_unless (ok, "round %u: two FCIs could have been one", round);

    len = rtpcc_nack_write (buf, RTPCC_NACK_HEADER_SIZE + 4 * 400, 9, 10,
        fci, n_fci);
    fail_unless_equals_int (len, RTPCC_NACK_HEADER_SIZE + 4 * n_fci);
    nack = rtpcc_nack_parse (buf, len, NULL);
    fail_unless (nack != NULL);
    fail_unless_equals_int (nack->n_fci, n_fci);
    for (guint i = 0; i < nack->n_fci && ok; i++) {
      guint16 s[17];
      guint k = rtpcc_nack_fci_seqs (nack->fci[i], s);

      for (guint j = 0; j < k && ok; j++) {
        guint off = (guint16) (s[j] - base);

        /* named: lost, and not named before */
        ok = off < span && want[off] && !got[off];
        got[off % span] = TRUE;
        n_got++;
      }
    }
    fail_unless (ok, "round %u: a seq named twice or not lost", round);
    for (guint i = 0; i < span; i++)
      ok = ok && got[i] == want[i];
    fail_unless (ok, "round %u: a lost seq not named", round);
    fail_unless (n_got <= n);
    rtpcc_nack_free (nack);
    g_free (seqs);
    g_free (fci);
    g_free (want);
    g_free (got);
  }
  g_free (buf);
}

GST_END_TEST;

static void
assert_nack_rejected (const guint8 * data, gsize len, const gchar * needle)
{
  GError *err = NULL;
  RtpccNack *nack = rtpcc_nack_parse (data, len, &err);

  fail_unless (nack == NULL);
  fail_unless (err != NULL);
  fail_unless (g_error_matches (err, RTPCC_ERROR, RTPCC_ERROR_PARSE));
  fail_unless (strstr (err->message, needle) != NULL, "'%s' lacks '%s'",
      err->message, needle);
  g_error_free (err);
}

GST_START_TEST (test_nack_malformed)
{
  guint8 b[32] = { 0, };

  memcpy (b, nack_example, sizeof (nack_example));
  assert_nack_rejected (NULL, 0, "bytes");
  assert_nack_rejected (b, 11, "bytes");
  /* the length field must match the bytes exactly */
  assert_nack_rejected (b, 20, "length field");
  assert_nack_rejected (b, 28, "length field");
  b[0] = 0x41;                  /* version 1 */
  assert_nack_rejected (b, 24, "version");
  b[0] = 0x82;                  /* FMT 2 */
  assert_nack_rejected (b, 24, "FMT");
  b[0] = 0x81;
  b[1] = 206;                   /* PSFB */
  assert_nack_rejected (b, 24, "packet type");
  b[1] = 205;

  /* header only: RFC 4585 wants at least one FCI */
  b[3] = 2;
  assert_nack_rejected (b, 12, "no FCI");

  /* padding: the count must be a multiple of 4 within the packet, and
   * what it leaves must hold an FCI */
  b[0] = 0xA1;
  b[3] = 5;
  b[23] = 4;
  {
    g_autoptr (RtpccNack) nack = rtpcc_nack_parse (b, 24, NULL);
    fail_unless (nack != NULL);
    fail_unless_equals_int (nack->n_fci, 2);
  }
  b[23] = 12;
  assert_nack_rejected (b, 24, "no FCI");
  b[23] = 0;
  assert_nack_rejected (b, 24, "padding");
  b[23] = 6;
  assert_nack_rejected (b, 24, "padding");
  b[23] = 16;
  assert_nack_rejected (b, 24, "padding");
}

GST_END_TEST;

/* ---- PLI / FIR ------------------------------------------------------------ */

static const guint8 pli_example[] = {
  0x81, 0xCE, 0x00, 0x02,       /* V=2 P=0 FMT=1, PT 206, length 2 */
  0x11, 0x22, 0x33, 0x44,       /* SSRC of packet sender */
  0x55, 0x66, 0x77, 0x88,       /* SSRC of media source */
};

static const guint8 fir_example[] = {
  0x84, 0xCE, 0x00, 0x06,       /* V=2 P=0 FMT=4, PT 206, length 6 */
  0x11, 0x22, 0x33, 0x44,       /* SSRC of packet sender */
  0x00, 0x00, 0x00, 0x00,       /* media source: unused, 0 */
  0x55, 0x66, 0x77, 0x88,       /* FCI 1: SSRC */
  0x07, 0x00, 0x00, 0x00,       /*        seq 7, reserved */
  0x99, 0x99, 0x99, 0x99,       /* FCI 2: SSRC */
  0xFF, 0x00, 0x00, 0x00,       /*        seq 255 */
};

GST_START_TEST (test_pli_fir_layout)
{
  static const RtpccFirEntry entries[] = {
    {0x55667788, 7}, {0x99999999, 255},
  };
  guint8 buf[64];
  gsize len;
  guint32 sender = 0, media = 0;
  g_autoptr (RtpccFir) fir = NULL;

  len = rtpcc_pli_write (buf, sizeof (buf), 0x11223344, 0x55667788);
  assert_bytes (buf, len, pli_example);
  fail_unless_equals_int (rtpcc_pli_write (buf, 11, 1, 2), 0);
  fail_unless (rtpcc_pli_parse (pli_example, 12, &sender, &media, NULL));
  fail_unless (sender == 0x11223344 && media == 0x55667788);
  fail_unless (rtpcc_pli_parse (pli_example, 12, NULL, NULL, NULL));

  len = rtpcc_fir_write (buf, sizeof (buf), 0x11223344, entries, 2);
  assert_bytes (buf, len, fir_example);
  fail_unless_equals_int (rtpcc_fir_size (2), 28);
  fail_unless_equals_int (rtpcc_fir_write (buf, 27, 1, entries, 2), 0);
  fail_unless_equals_int (rtpcc_fir_write (buf, 64, 1, entries, 0), 0);
  fail_unless_equals_int (rtpcc_fir_size (RTPCC_FIR_MAX_ENTRIES + 1), 0);

  fir = rtpcc_fir_parse (fir_example, sizeof (fir_example), NULL);
  fail_unless (fir != NULL);
  fail_unless (fir->sender_ssrc == 0x11223344);
  fail_unless_equals_int (fir->n_entries, 2);
  fail_unless (fir->entries[0].ssrc == 0x55667788);
  fail_unless_equals_int (fir->entries[0].seq, 7);
  fail_unless (fir->entries[1].ssrc == 0x99999999);
  fail_unless_equals_int (fir->entries[1].seq, 255);
}

GST_END_TEST;

GST_START_TEST (test_pli_fir_malformed)
{
  guint8 b[40] = { 0, };
  GError *err = NULL;
  RtpccFir *fir;

  /* PLI: length exactly 2, so no FCI and no padding */
  memcpy (b, pli_example, 12);
  memset (b + 12, 0, 4);
  b[3] = 3;
  fail_if (rtpcc_pli_parse (b, 16, NULL, NULL, &err));
  fail_unless (strstr (err->message, "must be 2") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  b[0] = 0xA1;
  b[15] = 4;
  fail_if (rtpcc_pli_parse (b, 16, NULL, NULL, NULL));
  b[0] = 0x81;
  b[3] = 2;
  fail_if (rtpcc_pli_parse (b, 11, NULL, NULL, NULL));
  fail_if (rtpcc_pli_parse (b, 16, NULL, NULL, NULL));
  fail_if (rtpcc_pli_parse (fir_example, sizeof (fir_example), NULL, NULL,
          NULL));
  b[1] = 205;                   /* RTPFB FMT 1 is a NACK */
  fail_if (rtpcc_pli_parse (b, 12, NULL, NULL, NULL));

  /* FIR: entries whole, at least one */
  memcpy (b, fir_example, sizeof (fir_example));
  b[3] = 2;
  fir = rtpcc_fir_parse (b, 12, &err);
  fail_unless (fir == NULL && err != NULL);
  fail_unless (strstr (err->message, "8-byte") != NULL, "%s", err->message);
  g_clear_error (&err);
  b[3] = 3;                     /* half an entry */
  fail_unless (rtpcc_fir_parse (b, 16, NULL) == NULL);
  b[3] = 6;
  fail_unless (rtpcc_fir_parse (b, 24, NULL) == NULL);
  fail_unless (rtpcc_fir_parse (b, 32, NULL) == NULL);
  fail_unless (rtpcc_fir_parse (pli_example, 12, NULL) == NULL);
  /* padding that cuts an entry in two */
  b[0] = 0xA4;
  b[27] = 4;
  fail_unless (rtpcc_fir_parse (b, 28, NULL) == NULL);
  /* whole-entry padding is fine, and a non-zero media source field (RFC
   * 5104 leaves it unused) and reserved bits are ignored */
  b[27] = 8;
  b[8] = 0x12;
  b[17] = 0xFF;
  fir = rtpcc_fir_parse (b, 28, NULL);
  fail_unless (fir != NULL);
  fail_unless_equals_int (fir->n_entries, 1);
  fail_unless (fir->entries[0].ssrc == 0x55667788);
  fail_unless_equals_int (fir->entries[0].seq, 7);
  rtpcc_fir_free (fir);
}

GST_END_TEST;

/* RFC 5104 §4.3.1.2: a repetition keeps the number, a new command bumps
 * it; each requester has its own. */
GST_START_TEST (test_fir_tracker)
{
  RtpccFirTracker t;

  rtpcc_fir_tracker_init (&t);
  fail_unless (rtpcc_fir_tracker_is_new (&t, 0xA, 7));
  fail_if (rtpcc_fir_tracker_is_new (&t, 0xA, 7));      /* repeated */
  fail_unless (rtpcc_fir_tracker_is_new (&t, 0xB, 7));  /* other requester */
  fail_unless (rtpcc_fir_tracker_is_new (&t, 0xA, 8));
  fail_if (rtpcc_fir_tracker_is_new (&t, 0xA, 8));
  fail_unless (rtpcc_fir_tracker_is_new (&t, 0xA, 7));  /* wrapped around */

  /* a full table forgets the requester it has tracked longest: 0xA */
  for (guint32 i = 0; i < RTPCC_FIR_TRACKED_REQUESTERS - 2; i++)
    fail_unless (rtpcc_fir_tracker_is_new (&t, 0x100 + i, 1));
  fail_if (rtpcc_fir_tracker_is_new (&t, 0xB, 7));
  fail_unless (rtpcc_fir_tracker_is_new (&t, 0xC, 1));
  fail_unless (rtpcc_fir_tracker_is_new (&t, 0xA, 7));
  fail_if (rtpcc_fir_tracker_is_new (&t, 0xC, 1));
}

GST_END_TEST;

GST_START_TEST (test_keyframe_gate)
{
  RtpccKeyframeGate g;

  rtpcc_keyframe_gate_init (&g);
  /* RTT unknown or short: 300 ms apart */
  fail_unless (rtpcc_keyframe_gate_pass (&g, RTPCC_SEC (1), RTPCC_TIME_NONE));
  fail_if (rtpcc_keyframe_gate_pass (&g, RTPCC_MSEC (1299), RTPCC_MSEC (50)));
  fail_unless (rtpcc_keyframe_gate_pass (&g, RTPCC_MSEC (1300),
          RTPCC_MSEC (50)));
  /* a long RTT sets the interval */
  fail_if (rtpcc_keyframe_gate_pass (&g, RTPCC_MSEC (1799), RTPCC_MSEC (500)));
  fail_unless (rtpcc_keyframe_gate_pass (&g, RTPCC_MSEC (1800),
          RTPCC_MSEC (500)));
  fail_unless_equals_int (g.passed, 3);
  fail_unless_equals_int (g.suppressed, 2);
}

GST_END_TEST;

/* ---- GStreamer ------------------------------------------------------------ */

static GstBuffer *
wrap (const guint8 * data, gsize len)
{
  return gst_buffer_new_memdup (data, len);
}

/* GStreamer's RTCP reader sees in our packets what we wrote, and we read
 * what its writer (the one rtpsession sends NACKs and PLIs with) makes. */
GST_START_TEST (test_gst_rtcp_buffer_interop)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  GstBuffer *buf;
  guint8 *fci, out[64];
  gsize len;
  guint32 sender = 0, media = 0;

  /* ours → GStreamer: a reduced-size compound NACK + PLI + FIR */
  len = rtpcc_nack_write_seqs (out, sizeof (out), 0x11223344, 0x55667788,
      nack_example_seqs, G_N_ELEMENTS (nack_example_seqs));
  len += rtpcc_pli_write (out + len, sizeof (out) - len, 0x11223344,
      0x55667788);
  {
    RtpccFirEntry e = { 0x55667788, 42 };
    len += rtpcc_fir_write (out + len, sizeof (out) - len, 0x11223344, &e, 1);
  }
  fail_unless_equals_int (len, 24 + 12 + 20);
  buf = wrap (out, len);
  fail_unless (gst_rtcp_buffer_validate_reduced (buf));
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READ, &rtcp));
  fail_unless (gst_rtcp_buffer_get_first_packet (&rtcp, &p));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&p), GST_RTCP_TYPE_RTPFB);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_type (&p),
      GST_RTCP_RTPFB_TYPE_NACK);
  fail_unless (gst_rtcp_packet_fb_get_sender_ssrc (&p) == 0x11223344);
  fail_unless (gst_rtcp_packet_fb_get_media_ssrc (&p) == 0x55667788);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_fci_length (&p), 3);
  fci = gst_rtcp_packet_fb_get_fci (&p);
  fail_unless_equals_int (GST_READ_UINT16_BE (fci), 100);
  fail_unless_equals_int (GST_READ_UINT16_BE (fci + 2), 0x8005);
  fail_unless (gst_rtcp_packet_move_to_next (&p));
  fail_unless_equals_int (gst_rtcp_packet_get_type (&p), GST_RTCP_TYPE_PSFB);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_type (&p),
      GST_RTCP_PSFB_TYPE_PLI);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_fci_length (&p), 0);
  fail_unless (gst_rtcp_packet_move_to_next (&p));
  fail_unless_equals_int (gst_rtcp_packet_fb_get_type (&p),
      GST_RTCP_PSFB_TYPE_FIR);
  fail_unless_equals_int (gst_rtcp_packet_fb_get_fci_length (&p), 2);
  fci = gst_rtcp_packet_fb_get_fci (&p);
  fail_unless (GST_READ_UINT32_BE (fci) == 0x55667788);
  fail_unless_equals_int (fci[4], 42);
  fail_if (gst_rtcp_packet_move_to_next (&p));
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (buf);

  /* GStreamer → ours: NACK with two FCIs, then a PLI */
  buf = gst_rtcp_buffer_new (1400);
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RTPFB, &p));
  gst_rtcp_packet_fb_set_type (&p, GST_RTCP_RTPFB_TYPE_NACK);
  gst_rtcp_packet_fb_set_sender_ssrc (&p, 0xAAAA0001);
  gst_rtcp_packet_fb_set_media_ssrc (&p, 0xBBBB0002);
  fail_unless (gst_rtcp_packet_fb_set_fci_length (&p, 2));
  fci = gst_rtcp_packet_fb_get_fci (&p);
  GST_WRITE_UINT16_BE (fci, 65535);
  GST_WRITE_UINT16_BE (fci + 2, 0x0003);
  GST_WRITE_UINT16_BE (fci + 4, 40);
  GST_WRITE_UINT16_BE (fci + 6, 0);
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_PSFB, &p));
  gst_rtcp_packet_fb_set_type (&p, GST_RTCP_PSFB_TYPE_PLI);
  gst_rtcp_packet_fb_set_sender_ssrc (&p, 0xAAAA0001);
  gst_rtcp_packet_fb_set_media_ssrc (&p, 0xBBBB0002);
  gst_rtcp_buffer_unmap (&rtcp);
  {
    GstMapInfo map;
    RtpccRtcpIter it;
    RtpccRtcpPacket pkt;
    g_autoptr (RtpccNack) nack = NULL;
    guint16 s[17];

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless (rtpcc_rtcp_iter_init (&it, map.data, map.size));
    fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
    nack = rtpcc_nack_parse (pkt.data, pkt.len, NULL);
    fail_unless (nack != NULL);
    fail_unless (nack->sender_ssrc == 0xAAAA0001);
    fail_unless (nack->media_ssrc == 0xBBBB0002);
    fail_unless_equals_int (nack->n_fci, 2);
    fail_unless_equals_int (rtpcc_nack_fci_seqs (nack->fci[0], s), 3);
    fail_unless (s[0] == 65535 && s[1] == 0 && s[2] == 1);
    fail_unless_equals_int (nack->fci[1].pid, 40);
    fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
    fail_unless (rtpcc_pli_parse (pkt.data, pkt.len, &sender, &media, NULL));
    fail_unless (sender == 0xAAAA0001 && media == 0xBBBB0002);
    fail_if (rtpcc_rtcp_iter_next (&it, &pkt));
    gst_buffer_unmap (buf, &map);
  }
  gst_buffer_unref (buf);
}

GST_END_TEST;

#define MEDIA_SSRC 0x55667788
#define PEER_SSRC 0x11223344

/* An rtpsession sending MEDIA_SSRC: a harness on its send_rtp_sink that
 * collects what it sends upstream, one on recv_rtcp_sink for our RTCP.
 * NULL (test skipped) without the rtpmanager plugin. */
static GstHarness *
rtpsession_harness (GstHarness ** rtcp)
{
  GstElementFactory *f = gst_element_factory_find ("rtpsession");
  GstHarness *h;
  GstBuffer *buf;
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  if (f == NULL) {
    g_print ("SKIP: rtpsession not available (gst-plugins-good)\n");
    return NULL;
  }
  gst_object_unref (f);
  h = gst_harness_new_with_padnames ("rtpsession", "send_rtp_sink",
      "send_rtp_src");
  gst_harness_set_src_caps_str (h, "application/x-rtp,media=(string)video,"
      "clock-rate=(int)90000,encoding-name=(string)H264,payload=(int)96,"
      "ssrc=(uint)1432778632");
  *rtcp = gst_harness_new_with_element (h->element, "recv_rtcp_sink", NULL);
  gst_harness_set_src_caps_str (*rtcp, "application/x-rtcp");

  /* one packet makes MEDIA_SSRC a source of ours */
  buf = gst_rtp_buffer_new_allocate (10, 0, 0);
  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_ssrc (&rtp, MEDIA_SSRC);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, 100);
  gst_rtp_buffer_unmap (&rtp);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  return h;
}

/* Upstream events named @name that reached the harness's source. */
static GList *
upstream_events (GstHarness * h, const gchar * name)
{
  GList *l = NULL;
  GstEvent *ev;

  while ((ev = gst_harness_try_pull_upstream_event (h)) != NULL) {
    const GstStructure *s = gst_event_get_structure (ev);

    if (s && gst_structure_has_name (s, name))
      l = g_list_append (l, ev);
    else
      gst_event_unref (ev);
  }
  return l;
}

/* Pushes our RTCP packet @out into the session; returns the upstream
 * events named @name it caused. */
static GList *
push_rtcp (GstHarness * h, GstHarness * rtcp, const guint8 * out, gsize len,
    const gchar * name)
{
  fail_unless_equals_int (gst_harness_push (rtcp, wrap (out, len)),
      GST_FLOW_OK);
  return upstream_events (h, name);
}

/* rtpsession asks for a key frame of MEDIA_SSRC with all-headers set for
 * a FIR (a decoder refresh point: parameter sets included) and not for a
 * PLI. */
static void
assert_force_key_unit (GstEvent * ev, gboolean fir)
{
  const GstStructure *s = gst_event_get_structure (ev);
  gboolean all_headers = !fir;
  guint ssrc = 0;

  fail_unless (gst_structure_get_boolean (s, "all-headers", &all_headers));
  fail_unless_equals_int (all_headers, fir);
  fail_unless (gst_structure_get_uint (s, "ssrc", &ssrc));
  fail_unless (ssrc == MEDIA_SSRC);
}

/* rtpsession (rtpbin's session manager) turns our NACK into one
 * GstRTPRetransmissionRequest per seq named, upstream on the sending
 * side, and our PLI and FIR into GstForceKeyUnit. */
GST_START_TEST (test_rtpsession_acts_on_ours)
{
  GstHarness *h, *rtcp = NULL;
  guint8 out[128];
  gsize len;
  GList *evs, *l;
  guint16 want[] = { 100, 101, 103, 116, 117, 200 };
  guint i = 0;

  if ((h = rtpsession_harness (&rtcp)) == NULL)
    return;

  len = rtpcc_nack_write_seqs (out, sizeof (out), PEER_SSRC, MEDIA_SSRC,
      nack_example_seqs, G_N_ELEMENTS (nack_example_seqs));
  evs = push_rtcp (h, rtcp, out, len, "GstRTPRetransmissionRequest");
  fail_unless_equals_int (g_list_length (evs), G_N_ELEMENTS (want));
  for (l = evs; l; l = l->next, i++) {
    const GstStructure *s = gst_event_get_structure (l->data);
    guint seq = 0, ssrc = 0;

    fail_unless (gst_structure_get_uint (s, "seqnum", &seq));
    fail_unless (gst_structure_get_uint (s, "ssrc", &ssrc));
    fail_unless_equals_int (seq, want[i]);
    fail_unless (ssrc == MEDIA_SSRC);
  }
  g_list_free_full (evs, (GDestroyNotify) gst_event_unref);

  len = rtpcc_pli_write (out, sizeof (out), PEER_SSRC, MEDIA_SSRC);
  evs = push_rtcp (h, rtcp, out, len, "GstForceKeyUnit");
  fail_unless_equals_int (g_list_length (evs), 1);
  assert_force_key_unit (evs->data, FALSE);
  g_list_free_full (evs, (GDestroyNotify) gst_event_unref);

  /* a PLI about a stream it does not send is not its business */
  len = rtpcc_pli_write (out, sizeof (out), PEER_SSRC, 0xDEAD);
  evs = push_rtcp (h, rtcp, out, len, "GstForceKeyUnit");
  fail_unless_equals_int (g_list_length (evs), 0);

  gst_harness_teardown (rtcp);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A FIR is taken from a known peer (its RR made it one) for an entry
 * naming our stream; compound RR + SDES + FIR, as our receiver sends. */
GST_START_TEST (test_rtpsession_acts_on_our_fir)
{
  GstHarness *h, *rtcp = NULL;
  guint8 out[256];
  gsize len;
  RtpccRtcpRR rr = { 0 };
  RtpccFirEntry e[2] = { {0xDEAD, 3}, {MEDIA_SSRC, 4} };
  GList *evs;

  if ((h = rtpsession_harness (&rtcp)) == NULL)
    return;
  rr.ssrc = PEER_SSRC;
  len = rtpcc_rtcp_write_rr (out, sizeof (out), &rr);
  len += rtpcc_rtcp_write_sdes_cname (out + len, sizeof (out) - len,
      PEER_SSRC, "peer@example.org");
  len += rtpcc_fir_write (out + len, sizeof (out) - len, PEER_SSRC, e, 2);
  evs = push_rtcp (h, rtcp, out, len, "GstForceKeyUnit");
  fail_unless_equals_int (g_list_length (evs), 1);
  assert_force_key_unit (evs->data, TRUE);
  g_list_free_full (evs, (GDestroyNotify) gst_event_unref);

  gst_harness_teardown (rtcp);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- tshark ----------------------------------------------------------------- */

#define PCAP_PORT 5005

static const gchar *const tshark_opts[] = {
  "-d", "udp.port==" G_STRINGIFY (PCAP_PORT) ",rtcp",
  "-o", "rtcp.heuristic_rtcp:TRUE", NULL
};

GST_START_TEST (test_tshark_dissection)
{
  gchar *tshark = tshark_find ("test_tshark_dissection");
  GByteArray *pcap;
  guint8 pkt[512];
  gchar *dir, *file, *out;
  gsize n;
  RtpccRtcpRR rr = { 0 };
  static const RtpccFirEntry entries[] = {
    {0x55667788, 7}, {0x99999999, 255},
  };

  if (tshark == NULL)
    return;

  pcap = test_pcap_new ();
  /* 1: the NACK example, reduced size; 2: PLI; 3: FIR */
  n = rtpcc_nack_write_seqs (pkt, sizeof (pkt), 0x11223344, 0x55667788,
      nack_example_seqs, G_N_ELEMENTS (nack_example_seqs));
  test_pcap_add (pcap, 1, PCAP_PORT, pkt, n);
  n = rtpcc_pli_write (pkt, sizeof (pkt), 0x11223344, 0x55667788);
  test_pcap_add (pcap, 2, PCAP_PORT, pkt, n);
  n = rtpcc_fir_write (pkt, sizeof (pkt), 0x11223344, entries, 2);
  test_pcap_add (pcap, 3, PCAP_PORT, pkt, n);
  /* 4: RR + SDES + NACK (wrapping) + PLI, a full compound */
  rr.ssrc = 0x11223344;
  n = rtpcc_rtcp_write_rr (pkt, sizeof (pkt), &rr);
  n += rtpcc_rtcp_write_sdes_cname (pkt + n, sizeof (pkt) - n, 0x11223344,
      "rtpcc@example.org");
  {
    static const guint16 wrap_seqs[] = { 65534, 65535, 0, 1, 5 };
    n += rtpcc_nack_write_seqs (pkt + n, sizeof (pkt) - n, 0x11223344,
        0x55667788, wrap_seqs, G_N_ELEMENTS (wrap_seqs));
  }
  n += rtpcc_pli_write (pkt + n, sizeof (pkt) - n, 0x11223344, 0x55667788);
  test_pcap_add (pcap, 4, PCAP_PORT, pkt, n);
  file = test_pcap_save (pcap, "rtpcc-nack-XXXXXX", "nack.pcap", &dir);

  /* no malformed packet, no expert info of warning level or above */
  out = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_no_warnings (out);
  fail_unless (strstr (out, "Frames 101 103 116 lost") != NULL, "%s", out);
  fail_unless (strstr (out, "Picture Loss Indication (1)") != NULL, "%s",
      out);
  fail_unless (strstr (out, "Full Intra Request (FIR) Command (4)") != NULL,
      "%s", out);
  g_free (out);

  out = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "frame.number", "-e", "rtcp.pt", "-e", "rtcp.length_check",
      "-e", "rtcp.senderssrc", "-e", "rtcp.mediassrc",
      "-e", "rtcp.rtpfb.fmt", "-e", "rtcp.psfb.fmt",
      "-e", "rtcp.rtpfb.nack_pid", "-e", "rtcp.rtpfb.nack_blp",
      "-e", "rtcp.psfb.fir.fci.ssrc", "-e", "rtcp.psfb.fir.fci.csn", NULL});
  {
    const gchar *want[] = {
      /* tshark lists every seq a BLP names as a PID too */
      "1;205;1;0x11223344;0x55667788;1;;100,101,103,116,117,200;"
          "0x8005,0x0000,0x0000;;",
      "2;206;1;0x11223344;0x55667788;;1;;;;",
      "3;206;1;0x11223344;0x00000000;;4;;;0x55667788,0x99999999;7,255",
      NULL,
    };
    /* frame 4; tshark 4.0 adds the BLP offsets to the PID without the
     * modulo: it shows 0, 1, 5 after 65535 as 65536, 65537, 65541 */
    const gchar *compound = "\n4;201,202,205,206;1;"
        "0x11223344,0x11223344,0x11223344;0x55667788,0x55667788;1;1;"
        "65534,65535,0,1,5;0x0047;;\n";
    const gchar *unwrapped = "\n4;201,202,205,206;1;"
        "0x11223344,0x11223344,0x11223344;0x55667788,0x55667788;1;1;"
        "65534,65535,65536,65537,65541;0x0047;;\n";

    tshark_assert_lines (out, want, G_N_ELEMENTS (want));
    fail_unless (strstr (out, compound) || strstr (out, unwrapped), "%s",
        out);
  }
  g_free (out);

  test_pcap_remove (file, dir);
  g_free (tshark);
}

GST_END_TEST;

static Suite *
rtpcc_nack_suite (void)
{
  Suite *s = suite_create ("rtpcc_nack");
  TCase *tc = tcase_create ("nack");
  TCase *tc_psfb = tcase_create ("psfb");
  TCase *tc_gst = tcase_create ("gstreamer");
  TCase *tc_tshark = tcase_create ("tshark");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_nack_layout);
  tcase_add_test (tc, test_nack_wrap_and_full_blp);
  tcase_add_test (tc, test_nack_random_round_trip);
  tcase_add_test (tc, test_nack_malformed);

  suite_add_tcase (s, tc_psfb);
  tcase_add_test (tc_psfb, test_pli_fir_layout);
  tcase_add_test (tc_psfb, test_pli_fir_malformed);
  tcase_add_test (tc_psfb, test_fir_tracker);
  tcase_add_test (tc_psfb, test_keyframe_gate);

  suite_add_tcase (s, tc_gst);
  tcase_add_test (tc_gst, test_gst_rtcp_buffer_interop);
  tcase_add_test (tc_gst, test_rtpsession_acts_on_ours);
  tcase_add_test (tc_gst, test_rtpsession_acts_on_our_fir);

  suite_add_tcase (s, tc_tshark);
  tcase_set_timeout (tc_tshark, 120);
  tcase_add_test (tc_tshark, test_tshark_dissection);
  return s;
}

GST_CHECK_MAIN (rtpcc_nack);

/* Element tests for fecenc / fecdec (GstHarness): fecenc -> drop ->
 * fecdec is bit-exact and in order, stats add up, N follows rtpcc-target
 * events, garbage FEC is counted, stock rtpulpfecenc -> fecdec mode=ulpfec
 * recovers.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/strength.h>
#include <math.h>
#include <string.h>

#define CAPS "application/x-rtp,media=video,encoding-name=VP8,clock-rate=90000,payload=96"

static GstBuffer *
make_rtp (RtpccRng * rng, guint16 seq, gboolean marker)
{
  guint size = 20 + (guint) rtpcc_rng_below (rng, 1000);
  GstBuffer *buf = gst_rtp_buffer_new_allocate (size, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint8 *p;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, 3000u * (seq / 4));
  gst_rtp_buffer_set_ssrc (&rtp, 0xdeadbeef);
  gst_rtp_buffer_set_marker (&rtp, marker);
  p = gst_rtp_buffer_get_payload (&rtp);
  for (guint i = 0; i < size; i++)
    p[i] = (guint8) rtpcc_rng_below (rng, 256);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (buf) = seq * GST_MSECOND;
  return buf;
}

/* A harness around one element, properties given as "name=value ..." */
static GstHarness *
harness_new (const gchar * desc)
{
  gchar **tok = g_strsplit (desc, " ", -1);
  GstHarness *h = gst_harness_new (tok[0]);

  for (guint i = 1; h && tok[i]; i++) {
    gchar **kv = g_strsplit (tok[i], "=", 2);

    gst_util_set_object_arg (G_OBJECT (h->element), kv[0], kv[1]);
    g_strfreev (kv);
  }
  g_strfreev (tok);
  return h;
}

static gboolean
buffers_equal (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gboolean eq;

  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  eq = ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) == 0;
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return eq;
}

static guint
buf_pt (GstBuffer * b)
{
  guint8 x;

  gst_buffer_extract (b, 1, &x, 1);
  return x & 0x7f;
}

static guint64
stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, field, &v), "%s", field);
  gst_structure_free (s);
  return v;
}

/* Pushes @n media packets through @enc; returns everything it output. */
static GPtrArray *
run_encoder (GstHarness * enc, GPtrArray * sent, guint n, guint16 seq0,
    RtpccRng * rng, gboolean markers)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b;

  for (guint i = 0; i < n; i++) {
    GstBuffer *m = make_rtp (rng, (guint16) (seq0 + i), markers
        && i % 4 == 3);

    g_ptr_array_add (sent, gst_buffer_ref (m));
    fail_unless_equals_int (gst_harness_push (enc, m), GST_FLOW_OK);
    while ((b = gst_harness_try_pull (enc)) != NULL)
      g_ptr_array_add (out, b);
  }
  return out;
}

GST_START_TEST (test_roundtrip)
{
  static const gchar *descs[] = {
    "fecenc n=5 max-block-time=0",
    "fecenc scheme=rs k=8 m=2 max-block-time=0",
    "fecenc scheme=xor-2d n=4 depth=4 max-block-time=0",
  };

  for (guint d = 0; d < G_N_ELEMENTS (descs); d++) {
    GstHarness *enc = harness_new (descs[d]);
    GstHarness *dec = harness_new ("fecdec deadline=5000");
    GPtrArray *sent = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);
    GPtrArray *out;
    RtpccRng rng;
    GstBuffer *b;
    guint media = 0, fec = 0, lost = 0, next = 0, repaired = 0;
    guint8 *lost_seq = g_malloc0 (65536);
    GstEvent *ev;

    gst_harness_set_src_caps_str (enc, CAPS);
    gst_harness_set_src_caps_str (dec, CAPS);
    rtpcc_rng_init (&rng, d);
    out = run_encoder (enc, sent, 400, 65000, &rng, FALSE);
    gst_harness_push_event (enc, gst_event_new_eos ());
    while ((b = gst_harness_try_pull (enc)) != NULL)
      g_ptr_array_add (out, b);

    /* lose one media packet in every 10 (one per XOR block at most) */
    for (guint i = 0; i < out->len; i++) {
      b = g_ptr_array_index (out, i);
      if (buf_pt (b) == 122) {
        fec++;
      } else if (media++ % 10 == 3) {
        GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
        fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
        lost_seq[gst_rtp_buffer_get_seq (&rtp)] = 1;
        gst_rtp_buffer_unmap (&rtp);
        lost++;
        continue;
      }
      fail_unless_equals_int (gst_harness_push (dec, gst_buffer_ref (b)),
          GST_FLOW_OK);
    }
    gst_harness_push_event (dec, gst_event_new_eos ());
    fail_unless_equals_int (media, 400);
    fail_unless_equals_int (stat_u64 (enc->element, "fec-packets"), fec);
    fail_unless_equals_int (stat_u64 (enc->element, "media-packets"), 400);
    while ((b = gst_harness_try_pull (dec)) != NULL) {
      fail_unless (next < sent->len);
      fail_unless (buffers_equal (b, g_ptr_array_index (sent, next)),
          "%s: packet %u differs", descs[d], next);
      next++;
      gst_buffer_unref (b);
    }
    /* everything back, in order */
    fail_unless_equals_int (next, 400);
    fail_unless_equals_int (stat_u64 (dec->element, "recovered"), lost);
    fail_unless_equals_int (stat_u64 (dec->element, "unrecoverable"), 0);
    fail_unless_equals_int (stat_u64 (dec->element, "fec-packets"), fec);
    /* each packet rebuilt went upstream once as "rtpcc-repaired", for
     * rtpccsrc's Post-repair Loss RLE (RFC 5725) */
    while ((ev = gst_harness_try_pull_upstream_event (dec))) {
      const GstStructure *st = gst_event_get_structure (ev);
      guint ssrc = 0, seq = 0;
      if (st && gst_structure_has_name (st, "rtpcc-repaired")) {
        fail_unless (gst_structure_get_uint (st, "ssrc", &ssrc));
        fail_unless (gst_structure_get_uint (st, "seqnum", &seq));
        fail_unless_equals_int (ssrc, 0xdeadbeef);
        fail_unless (seq < 65536 && lost_seq[seq] == 1,
            "%s: seq %u reported repaired", descs[d], seq);
        lost_seq[seq] = 2;
        repaired++;
      }
      gst_event_unref (ev);
    }
    fail_unless_equals_int (repaired, lost);
    g_free (lost_seq);
    g_ptr_array_unref (out);
    g_ptr_array_unref (sent);
    gst_harness_teardown (enc);
    gst_harness_teardown (dec);
  }
}

GST_END_TEST;

static GstEvent *
target_event (guint64 media, guint64 fec)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
      gst_structure_new ("rtpcc-target", "target-bitrate", G_TYPE_UINT64,
          media + fec, "media-bitrate", G_TYPE_UINT64, media, "fec-bitrate",
          G_TYPE_UINT64, fec, NULL));
}

static guint
count_fec (GPtrArray * out)
{
  guint n = 0;

  for (guint i = 0; i < out->len; i++)
    n += buf_pt (g_ptr_array_index (out, i)) == 122;
  return n;
}

GST_START_TEST (test_follow_target)
{
  GstHarness *enc = harness_new ("fecenc max-block-time=0");
  GPtrArray *sent = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GPtrArray *out;
  RtpccRng rng;
  guint n;
  gboolean enabled;

  rtpcc_rng_init (&rng, 1);
  gst_harness_set_src_caps_str (enc, CAPS);
  /* 1 Mbit/s media, 100 kbit/s FEC -> N = 10 */
  fail_unless (gst_harness_push_upstream_event (enc, target_event (1000000,
              100000)));
  g_object_get (enc->element, "n", &n, "enabled", &enabled, NULL);
  fail_unless_equals_int (n, 10);
  fail_unless (enabled);
  out = run_encoder (enc, sent, 200, 0, &rng, FALSE);
  fail_unless_equals_int (count_fec (out), 20);
  g_ptr_array_unref (out);
  /* ratios beyond the range clamp to [2, 14] */
  fail_unless (gst_harness_push_upstream_event (enc, target_event (1000000,
              900000)));
  g_object_get (enc->element, "n", &n, NULL);
  fail_unless_equals_int (n, 2);
  fail_unless (gst_harness_push_upstream_event (enc, target_event (1000000,
              10000)));
  g_object_get (enc->element, "n", &n, NULL);
  fail_unless_equals_int (n, 14);
  /* fec-bitrate 0: FEC off */
  fail_unless (gst_harness_push_upstream_event (enc, target_event (500000,
              0)));
  g_object_get (enc->element, "enabled", &enabled, NULL);
  fail_if (enabled);
  out = run_encoder (enc, sent, 100, 200, &rng, FALSE);
  fail_unless_equals_int (count_fec (out), 0);
  fail_unless_equals_int (out->len, 100);
  g_ptr_array_unref (out);
  /* back on: N = 4 for the rates, times what a parity packet costs in
   * mean packets in blocks of 4 of what was sent (fec.h) */
  fail_unless (gst_harness_push_upstream_event (enc, target_event (400000,
              100000)));
  {
    RtpccFecSizes sz;
    RtpccFecEncoderConfig c;

    rtpcc_fec_sizes_init (&sz, RTPCC_SEC (1));
    for (guint i = 0; i < sent->len; i++)
      rtpcc_fec_sizes_add (&sz, 0, (guint)
          gst_buffer_get_size (g_ptr_array_index (sent, i)));
    rtpcc_fec_encoder_config_init (&c);
    fail_unless (rtpcc_fec_config_follow (&c, 400000, 100000, 0, 0, &sz));
    fail_unless (c.n > 4, "%u", c.n);
    g_object_get (enc->element, "n", &n, NULL);
    fail_unless_equals_int (n, c.n);
  }
  out = run_encoder (enc, sent, 100, 300, &rng, FALSE);
  fail_unless_equals_int (count_fec (out), 100 / n);
  g_ptr_array_unref (out);
  fail_unless_equals_int (stat_u64 (enc->element, "target-events"), 5);
  /* the encoder upstream sees the event too */
  fail_unless (gst_harness_upstream_events_received (enc) >= 5);
  /* follow-target=false: events are ignored */
  g_object_set (enc->element, "follow-target", FALSE, NULL);
  fail_unless (gst_harness_push_upstream_event (enc, target_event (400000,
              0)));
  g_object_get (enc->element, "enabled", &enabled, NULL);
  fail_unless (enabled);
  fail_unless (stat_u64 (enc->element, "fec-bitrate") > 0);
  g_ptr_array_unref (sent);
  gst_harness_teardown (enc);
}

GST_END_TEST;

static GstEvent *
channel_event (guint64 media, guint64 fec, gdouble loss, gdouble burst)
{
  GstEvent *e = target_event (media, fec);

  gst_structure_set (gst_event_writable_structure (e), "loss", G_TYPE_DOUBLE,
      loss, "loss-burst", G_TYPE_DOUBLE, burst, NULL);
  return e;
}

/* The sizes of the media packets run_at_100 pushed, as fecenc records
 * them. */
static RtpccFecSizes mirror;

/* What the rule (fec/strength.h) chooses for the sizes pushed so far at
 * 100 packets/s: @share of the media's bytes for parity. */
static RtpccFecChoice
expected_code (gdouble loss, gdouble burst, RtpccTime budget, gdouble share)
{
  gdouble ratios[RTPCC_FEC_MAX_SPAN + 1];
  RtpccFecChannel ch = { loss, burst, 100, budget, share, ratios };
  RtpccFecChoice c;

  rtpcc_fec_sizes_ratios (&mirror, ratios);
  fail_unless (rtpcc_fec_choose (&ch, &c));
  return c;
}

/* @n media packets at 100 packets/s from @seq0; returns the FEC count,
 * and into @bytes (may be NULL) the media and the FEC bytes that came out */
static guint
run_at_100_bytes (GstHarness * enc, RtpccRng * rng, guint n, guint16 seq0,
    guint64 bytes[2])
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b;
  guint fec;

  for (guint i = 0; i < n; i++) {
    GstBuffer *m = make_rtp (rng, (guint16) (seq0 + i), FALSE);

    rtpcc_fec_sizes_add (&mirror, (seq0 + i) * 10 * GST_MSECOND,
        (guint) gst_buffer_get_size (m));

    /* (the element's clock is the harness's test clock) */
    GST_BUFFER_PTS (m) = (seq0 + i) * 10 * GST_MSECOND;
    fail_unless (gst_harness_set_time (enc, GST_BUFFER_PTS (m)));
    fail_unless_equals_int (gst_harness_push (enc, m), GST_FLOW_OK);
    while ((b = gst_harness_try_pull (enc)) != NULL)
      g_ptr_array_add (out, b);
  }
  fec = count_fec (out);
  for (guint i = 0; bytes && i < out->len; i++) {
    b = g_ptr_array_index (out, i);
    bytes[buf_pt (b) == 122] += gst_buffer_get_size (b);
  }
  g_ptr_array_unref (out);
  return fec;
}

static guint
run_at_100 (GstHarness * enc, RtpccRng * rng, guint n, guint16 seq0)
{
  return run_at_100_bytes (enc, rng, n, seq0, NULL);
}

static void
check_code (GstHarness * enc, const gchar * scheme, guint k, guint m)
{
  GstStructure *s;
  guint n = 0, kk = 0, mm = 0;

  g_object_get (enc->element, "stats", &s, NULL);
  fail_unless_equals_string (gst_structure_get_string (s, "scheme"), scheme);
  fail_unless (gst_structure_get_uint (s, "n", &n));
  fail_unless (gst_structure_get_uint (s, "k", &kk));
  fail_unless (gst_structure_get_uint (s, "m", &mm));
  if (g_str_equal (scheme, "xor")) {
    fail_unless_equals_int (n, k);
  } else {
    fail_unless_equals_int (kk, k);
    fail_unless_equals_int (mm, m);
  }
  gst_structure_free (s);
}

static gdouble
stat_double (GstElement * e, const gchar * field)
{
  GstStructure *s;
  gdouble v = 0;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_get_double (s, field, &v), "%s", field);
  gst_structure_free (s);
  return v;
}

/* scheme=auto: the code from the channel each target event reports
 * (fec/strength.h), within its FEC share and max-block-time at the media
 * packet rate. The share is in bytes: parity packets as long as the
 * longest they protect buy fewer packets (parity-ratio). */
GST_START_TEST (test_auto_scheme)
{
  GstHarness *enc = harness_new ("fecenc scheme=auto max-block-time=100");
  RtpccRng rng;
  gint scheme;
  gboolean enabled;
  GstStructure *fbra;
  GstEvent *e;
  RtpccFecChoice want;
  guint64 bytes[2] = { 0, 0 };

  rtpcc_rng_init (&rng, 3);
  rtpcc_fec_sizes_init (&mirror, RTPCC_SEC (1));
  gst_harness_set_src_caps_str (enc, CAPS);
  /* one second at 100 packets/s: blocks of 10 fill within 100 ms */
  run_at_100 (enc, &rng, 100, 0);
  /* 5 % independent loss, a fifth of the rate for FEC, in bytes: these
   * packets are 32 to 1051 bytes, so a parity (the longest of its block
   * + 16) costs nearly twice a mean one; the code the rule gives for
   * the sizes sent (RS (10, 2) if parity cost what a mean packet does) */
  want = expected_code (0.05, 1 / 0.95, RTPCC_MSEC (100), 0.2);
  fail_unless (want.m * 5 < want.k, "(%u, %u)", want.k, want.m);
  fail_unless (gst_harness_push_upstream_event (enc, channel_event (1000000,
              200000, 0.05, 1 / 0.95)));
  check_code (enc, want.scheme == RTPCC_FEC_SCHEME_XOR ? "xor" : "rs",
      want.k, want.m);
  fail_unless (fabs (stat_double (enc->element, "predicted-residual") -
          want.residual) < 1e-12);
  fail_unless (stat_double (enc->element, "parity-ratio") > 1.5);
  g_object_get (enc->element, "scheme", &scheme, NULL);
  fail_unless_equals_int (scheme, 3);   /* still auto */
  /* in runs of 3 and with 400 ms to fill a block: longer blocks */
  g_object_set (enc->element, "max-block-time", 400, NULL);
  want = expected_code (0.05, 3, RTPCC_MSEC (400), 0.2);
  fail_unless (gst_harness_push_upstream_event (enc, channel_event (1000000,
              200000, 0.05, 3)));
  check_code (enc, "rs", want.k, want.m);
  /* what goes out keeps to the FEC rate: parity bytes within a fifth of
   * the media's */
  run_at_100_bytes (enc, &rng, 10 * want.k, 100, bytes);
  fail_unless (bytes[1] > 0 && bytes[1] <= 0.2 * bytes[0],
      "FEC %" G_GUINT64_FORMAT " B for %" G_GUINT64_FORMAT " B of media",
      bytes[1], bytes[0]);
  /* the code the sink reserved the rate for, when the event names one
   * (rtpccsink max-fec-share), is the one used */
  e = channel_event (1000000, 200000, 0.05, 3);
  gst_structure_set (gst_event_writable_structure (e), "fec-scheme",
      G_TYPE_STRING, "rs", "fec-k", G_TYPE_UINT, 20, "fec-m", G_TYPE_UINT,
      4, NULL);
  fail_unless (gst_harness_push_upstream_event (enc, e));
  check_code (enc, "rs", 20, 4);
  fail_unless (fabs (stat_double (enc->element, "predicted-residual") -
          rtpcc_fec_residual_mds (20, 4, 0.05, 3)) < 1e-12);
  /* no loss: the least parity, one per block */
  g_object_set (enc->element, "max-block-time", 100, NULL);
  fail_unless (gst_harness_push_upstream_event (enc, channel_event (1000000,
              200000, 0, 0)));
  check_code (enc, "xor", 10, 1);
  fail_unless_equals_int (run_at_100 (enc, &rng, 100, 100 + 10 * want.k),
      10);
  /* a FEC share under one parity per block: off */
  fail_unless (gst_harness_push_upstream_event (enc, channel_event (1000000,
              50000, 0.05, 1)));
  g_object_get (enc->element, "enabled", &enabled, NULL);
  fail_if (enabled);
  fail_unless_equals_int (run_at_100 (enc, &rng, 100, 200 + 10 * want.k),
      0);
  /* a controller's own interval (FBRA): XOR at that interval */
  e = channel_event (1000000, 200000, 0.05, 3);
  fbra = gst_event_writable_structure (e);
  gst_structure_set (fbra, "fec-interval", G_TYPE_UINT, 7, NULL);
  fail_unless (gst_harness_push_upstream_event (enc, e));
  check_code (enc, "xor", 7, 1);
  fail_unless (stat_double (enc->element, "predicted-residual") < 0);
  /* a fixed scheme again: the events leave the code alone */
  g_object_set (enc->element, "scheme", 1, "k", 10, "m", 2, NULL);
  fail_unless (gst_harness_push_upstream_event (enc, channel_event (1000000,
              200000, 0.05, 3)));
  check_code (enc, "rs", 10, 2);
  gst_harness_teardown (enc);
}

GST_END_TEST;

/* The last rtpcc-fec-encoder event fecenc sent downstream since the last
 * call: its max-block-time, G_MAXUINT64 if none came. */
static guint64
block_time_event (GstHarness * h)
{
  guint64 t = G_MAXUINT64;
  GstEvent *e;

  while ((e = gst_harness_try_pull_event (h)) != NULL) {
    if (gst_event_has_name (e, "rtpcc-fec-encoder")) {
      fail_unless_equals_int (GST_EVENT_TYPE (e),
          GST_EVENT_CUSTOM_DOWNSTREAM_STICKY);
      fail_unless (gst_structure_get_uint64 (gst_event_get_structure (e),
              "max-block-time", &t));
    }
    gst_event_unref (e);
  }
  return t;
}

/* fecenc tells the sink downstream (rtpccsink, which reserves FEC for
 * codes that fill a block in time) its max-block-time: before its first
 * packet, and again when the property changes. */
GST_START_TEST (test_announces_block_time)
{
  GstHarness *enc = harness_new ("fecenc max-block-time=200");
  GstBuffer *b;
  RtpccRng rng;

  rtpcc_rng_init (&rng, 5);
  gst_harness_set_src_caps_str (enc, CAPS);
  fail_unless_equals_int (gst_harness_push (enc, make_rtp (&rng, 0, FALSE)),
      GST_FLOW_OK);
  fail_unless_equals_uint64 (block_time_event (enc), 200 * GST_MSECOND);
  fail_unless_equals_int (gst_harness_push (enc, make_rtp (&rng, 1, FALSE)),
      GST_FLOW_OK);
  fail_unless_equals_uint64 (block_time_event (enc), G_MAXUINT64);
  g_object_set (enc->element, "max-block-time", 0, NULL);
  fail_unless_equals_int (gst_harness_push (enc, make_rtp (&rng, 2, FALSE)),
      GST_FLOW_OK);
  fail_unless_equals_uint64 (block_time_event (enc), 0);
  while ((b = gst_harness_try_pull (enc)) != NULL)
    gst_buffer_unref (b);
  gst_harness_teardown (enc);
}

GST_END_TEST;

GST_START_TEST (test_garbage_and_no_fec)
{
  GstHarness *dec = harness_new ("fecdec");
  GstTestClock *clock;
  RtpccRng rng;
  GstBuffer *b;
  guint pulled = 0;

  gst_harness_use_testclock (dec);
  clock = gst_harness_get_testclock (dec);
  gst_harness_set_src_caps_str (dec, CAPS);
  rtpcc_rng_init (&rng, 2);
  /* garbage on the FEC payload type: dropped and counted */
  for (guint i = 0; i < 200; i++) {
    guint len = (guint) rtpcc_rng_below (&rng, 200);
    guint8 *p = g_malloc (MAX (len, 2));

    for (guint j = 0; j < len; j++)
      p[j] = (guint8) rtpcc_rng_below (&rng, 256);
    if (len >= 2)
      p[1] = 122 | (p[1] & 0x80);
    b = gst_buffer_new_wrapped (p, len);
    fail_unless_equals_int (gst_harness_push (dec, b), GST_FLOW_OK);
  }
  fail_unless (stat_u64 (dec->element, "fec-corrupt") >= 150);
  fail_unless_equals_int (stat_u64 (dec->element, "fec-packets") +
      stat_u64 (dec->element, "fec-corrupt") + stat_u64 (dec->element,
          "passed"), 200);
  /* media without FEC: passes in order; a hole waits for the deadline */
  for (guint i = 0; i < 10; i++) {
    if (i == 4)
      continue;
    fail_unless_equals_int (gst_harness_push (dec, make_rtp (&rng, i, FALSE)),
        GST_FLOW_OK);
  }
  while ((b = gst_harness_try_pull (dec)) != NULL) {
    pulled++;
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (pulled, 4);
  gst_test_clock_set_time (clock, 150 * GST_MSECOND);
  fail_unless_equals_int (gst_harness_push (dec, make_rtp (&rng, 10, FALSE)),
      GST_FLOW_OK);
  while ((b = gst_harness_try_pull (dec)) != NULL) {
    pulled++;
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (pulled, 10);
  fail_unless_equals_int (stat_u64 (dec->element, "unrecoverable"), 1);
  /* the timer task releases a hole with nothing arriving after it */
  for (guint i = 11; i < 14; i++)
    if (i != 12)
      gst_harness_push (dec, make_rtp (&rng, i, FALSE));
  b = gst_harness_pull (dec);
  gst_buffer_unref (b);
  fail_unless (gst_harness_try_pull (dec) == NULL);
  /* a stale wait from the first hole may be cranked first: crank until the
   * task has released, polling for its push */
  b = NULL;
  for (guint c = 0; c < 3 && b == NULL; c++) {
    fail_unless (gst_harness_crank_single_clock_wait (dec));
    for (guint w = 0; w < 200 && (b = gst_harness_try_pull (dec)) == NULL; w++)
      g_usleep (5000);
  }
  fail_unless (b != NULL);
  gst_buffer_unref (b);
  fail_unless_equals_int (stat_u64 (dec->element, "unrecoverable"), 2);
  fail_unless_equals_int (stat_u64 (dec->element, "recovered"), 0);
  gst_object_unref (clock);
  gst_harness_teardown (dec);
}

GST_END_TEST;

/* Stock rtpulpfecenc (RFC 5109, FEC in the media sequence space) into
 * fecdec mode=ulpfec: single losses per FEC group are repaired bit-exact;
 * FEC packets are removed from the output. */
GST_START_TEST (test_ulpfec_interop)
{
  GstHarness *enc = harness_new ("rtpulpfecenc pt=122 "
      "percentage=25 multipacket=true");
  GstHarness *dec = harness_new ("fecdec mode=ulpfec pt=122");
  GPtrArray *sent = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GPtrArray *out;
  GHashTable *lost = g_hash_table_new (NULL, NULL);
  RtpccRng rng;
  GstBuffer *b;
  guint fec = 0, media = 0, got = 0;
  gint prev_seq = -1;
  gboolean consecutive = TRUE;

  if (enc == NULL) {
    GST_WARNING ("rtpulpfecenc missing; skipping");
    return;
  }
  rtpcc_rng_init (&rng, 3);
  gst_harness_set_src_caps_str (enc, CAPS);
  gst_harness_set_src_caps_str (dec, CAPS);
  out = run_encoder (enc, sent, 400, 100, &rng, TRUE);
  for (guint i = 0; i < out->len; i++) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    guint16 seq;

    b = g_ptr_array_index (out, i);
    gst_rtp_buffer_map (b, GST_MAP_READ, &rtp);
    seq = gst_rtp_buffer_get_seq (&rtp);
    gst_rtp_buffer_unmap (&rtp);
    if (buf_pt (b) == 122) {
      fec++;
    } else if (media++ % 16 == 5) {
      /* one loss per 16 media packets */
      g_hash_table_add (lost, GUINT_TO_POINTER ((guint) seq));
      continue;
    }
    gst_harness_push (dec, gst_buffer_ref (b));
  }
  gst_harness_push_event (dec, gst_event_new_eos ());
  fail_unless (fec > 50, "rtpulpfecenc produced %u FEC packets", fec);
  while ((b = gst_harness_try_pull (dec)) != NULL) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    gboolean found = FALSE;

    fail_if (buf_pt (b) == 122);
    gst_rtp_buffer_map (b, GST_MAP_READ, &rtp);
    /* the FEC packets' seqs are closed up, as rtpulpfecdec does */
    if (prev_seq >= 0 && gst_rtp_buffer_get_seq (&rtp) !=
        (guint16) (prev_seq + 1))
      consecutive = FALSE;
    prev_seq = gst_rtp_buffer_get_seq (&rtp);
    /* rtpulpfecenc renumbers: compare payloads with what was sent */
    for (guint i = 0; i < sent->len && !found; i++) {
      GstRTPBuffer r2 = GST_RTP_BUFFER_INIT;
      GstBuffer *s = g_ptr_array_index (sent, i);

      gst_rtp_buffer_map (s, GST_MAP_READ, &r2);
      found = gst_rtp_buffer_get_payload_len (&r2) ==
          gst_rtp_buffer_get_payload_len (&rtp)
          && memcmp (gst_rtp_buffer_get_payload (&r2),
          gst_rtp_buffer_get_payload (&rtp),
          gst_rtp_buffer_get_payload_len (&rtp)) == 0
          && gst_rtp_buffer_get_timestamp (&r2) ==
          gst_rtp_buffer_get_timestamp (&rtp)
          && gst_rtp_buffer_get_marker (&r2) == gst_rtp_buffer_get_marker (&rtp);
      gst_rtp_buffer_unmap (&r2);
    }
    gst_rtp_buffer_unmap (&rtp);
    fail_unless (found, "output packet not among those sent");
    got++;
    gst_buffer_unref (b);
  }
  GST_INFO ("ulpfec: %u FEC, %u lost, recovered %" G_GUINT64_FORMAT
      ", unrecoverable %" G_GUINT64_FORMAT, fec, g_hash_table_size (lost),
      stat_u64 (dec->element, "recovered"), stat_u64 (dec->element,
          "unrecoverable"));
  fail_unless (stat_u64 (dec->element, "recovered") > 0);
  fail_unless_equals_int (stat_u64 (dec->element, "recovered") +
      stat_u64 (dec->element, "unrecoverable"), g_hash_table_size (lost));
  fail_unless_equals_int (got, 400 - stat_u64 (dec->element,
          "unrecoverable"));
  /* every loss was repaired: no gap left in the output */
  if (stat_u64 (dec->element, "unrecoverable") == 0)
    fail_unless (consecutive);
  g_hash_table_unref (lost);
  g_ptr_array_unref (out);
  g_ptr_array_unref (sent);
  gst_harness_teardown (enc);
  gst_harness_teardown (dec);
}

GST_END_TEST;

/* The element has no timer: it closes a block when the next packet is
 * expected after the bound. With steady 40 ms spacing and a 100 ms bound,
 * no parity leaves later than its first protected packet + 100 ms. */
GST_START_TEST (test_max_block_time)
{
  GstHarness *enc = harness_new ("fecenc n=14 max-block-time=100");
  GstTestClock *clock;
  RtpccRng rng;
  GstClockTime sent[64];
  guint n_fec = 0;

  gst_harness_use_testclock (enc);
  clock = gst_harness_get_testclock (enc);
  gst_harness_set_src_caps_str (enc, CAPS);
  rtpcc_rng_init (&rng, 4);
  for (guint i = 0; i < 60; i++) {
    GstClockTime now = i * 40 * GST_MSECOND;
    GstBuffer *b;

    gst_test_clock_set_time (clock, now);
    sent[i] = now;
    gst_harness_push (enc, make_rtp (&rng, (guint16) i, FALSE));
    while ((b = gst_harness_try_pull (enc)) != NULL) {
      if (buf_pt (b) == 122) {
        guint8 base[2];

        gst_buffer_extract (b, 12 + 8, base, 2);
        fail_unless (now - sent[(base[0] << 8) | base[1]] <=
            100 * GST_MSECOND);
        n_fec++;
      }
      gst_buffer_unref (b);
    }
  }
  /* 3 packets per block (0, 40, 80 ms) instead of 14 */
  fail_unless (n_fec >= 60 / 3 - 1, "%u parity packets", n_fec);
  fail_unless (stat_u64 (enc->element, "blocks-closed-by-time") > 0);

  /* nothing arrives after two packets: the timer task sends the parity at
   * the bound */
  {
    GstClockTime t0 = 10 * GST_SECOND;
    GstBuffer *b;

    gst_harness_push_event (enc, gst_event_new_eos ());
    while ((b = gst_harness_try_pull (enc)) != NULL)
      gst_buffer_unref (b);
    gst_harness_teardown (enc);
    enc = harness_new ("fecenc n=14 max-block-time=100");
    gst_harness_use_testclock (enc);
    gst_object_unref (clock);
    clock = gst_harness_get_testclock (enc);
    gst_harness_set_src_caps_str (enc, CAPS);
    gst_test_clock_set_time (clock, t0);
    gst_harness_push (enc, make_rtp (&rng, 1000, FALSE));
    gst_test_clock_set_time (clock, t0 + 10 * GST_MSECOND);
    gst_harness_push (enc, make_rtp (&rng, 1001, FALSE));
    for (guint i = 0; i < 2; i++)
      gst_buffer_unref (gst_harness_pull (enc));
    fail_unless (gst_harness_try_pull (enc) == NULL);
    fail_unless (gst_harness_crank_single_clock_wait (enc));
    fail_unless_equals_uint64 (gst_clock_get_time (GST_CLOCK (clock)),
        t0 + 100 * GST_MSECOND);
    b = gst_harness_pull (enc);
    fail_unless (b != NULL && buf_pt (b) == 122);
    gst_buffer_unref (b);
    fail_unless_equals_int (stat_u64 (enc->element, "blocks-closed-by-time"),
        1);
  }
  gst_object_unref (clock);
  gst_harness_teardown (enc);
}

GST_END_TEST;

/* ssrc=0 (the default) means a random SSRC chosen on start: the property
 * keeps reading 0 and the stats give the SSRC the parity carries; a set
 * SSRC is used as is. */
static guint32
parity_ssrc (const gchar * desc, guint * prop, guint * stat)
{
  GstHarness *enc = harness_new (desc);
  GstStructure *s;
  GstBuffer *b = NULL;
  RtpccRng rng;
  guint8 h[4];

  rtpcc_rng_init (&rng, 9);
  gst_harness_set_src_caps_str (enc, CAPS);
  for (guint16 i = 0; i < 5; i++)
    gst_harness_push (enc, make_rtp (&rng, i, FALSE));
  while (b == NULL || buf_pt (b) != 122) {
    if (b)
      gst_buffer_unref (b);
    b = gst_harness_pull (enc);
  }
  gst_buffer_extract (b, 8, h, 4);
  gst_buffer_unref (b);
  g_object_get (enc->element, "ssrc", prop, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint (s, "ssrc", stat));
  gst_structure_free (s);
  gst_harness_teardown (enc);
  return ((guint32) h[0] << 24) | ((guint32) h[1] << 16) |
      ((guint32) h[2] << 8) | h[3];
}

/* Media at 25 packets/s (40 ms apart) through fecenc on the test clock
 * from @seq0: the parity packets that came out. */
static guint
run_at_25 (GstHarness * enc, GstTestClock * clock, RtpccRng * rng, guint n,
    guint16 seq0)
{
  guint n_fec = 0;

  for (guint i = 0; i < n; i++) {
    GstBuffer *b;

    gst_test_clock_set_time (clock, (seq0 + i) * 40 * GST_MSECOND);
    gst_harness_push (enc, make_rtp (rng, (guint16) (seq0 + i), FALSE));
    while ((b = gst_harness_try_pull (enc)) != NULL) {
      n_fec += buf_pt (b) == 122;
      gst_buffer_unref (b);
    }
  }
  return n_fec;
}

/* A controller's own interval (FBRA's fec-interval): blocks by count, so
 * the FEC rate is the one it asked for even where max-block-time would
 * close blocks of three; the rates alone bring the time bound back. */
GST_START_TEST (test_controller_interval_by_count)
{
  GstHarness *enc = harness_new ("fecenc max-block-time=100");
  GstTestClock *clock;
  RtpccRng rng;
  GstEvent *e;
  guint mbt;

  gst_harness_use_testclock (enc);
  clock = gst_harness_get_testclock (enc);
  gst_harness_set_src_caps_str (enc, CAPS);
  rtpcc_rng_init (&rng, 6);
  e = target_event (300000, 300000 / 14);
  gst_structure_set (gst_event_writable_structure (e), "fec-interval",
      G_TYPE_UINT, 14, NULL);
  fail_unless (gst_harness_push_upstream_event (enc, e));
  fail_unless_equals_int (run_at_25 (enc, clock, &rng, 140, 0), 10);
  fail_unless_equals_uint64 (stat_u64 (enc->element, "blocks-closed-by-time"),
      0);
  /* the property keeps what the user set */
  g_object_get (enc->element, "max-block-time", &mbt, NULL);
  fail_unless_equals_int (mbt, 100);
  /* the same split from the rates: N = 14 but at most 100 ms a block,
   * three packets (0, 40, 80 ms) */
  fail_unless (gst_harness_push_upstream_event (enc, target_event (300000,
              300000 / 14)));
  fail_unless (run_at_25 (enc, clock, &rng, 140, 140) >= 140 / 3 - 1);
  fail_unless (stat_u64 (enc->element, "blocks-closed-by-time") > 0);
  gst_object_unref (clock);
  gst_harness_teardown (enc);
}

GST_END_TEST;

GST_START_TEST (test_ssrc)
{
  guint prop, stat;
  guint32 wire = parity_ssrc ("fecenc n=5 max-block-time=0", &prop, &stat);

  fail_unless_equals_int (prop, 0);
  fail_unless (stat != 0);
  fail_unless_equals_int (wire, stat);
  wire = parity_ssrc ("fecenc n=5 max-block-time=0 ssrc=1234", &prop, &stat);
  fail_unless_equals_int (prop, 1234);
  fail_unless_equals_int (stat, 1234);
  fail_unless_equals_int (wire, 1234);
}

GST_END_TEST;

/* Flushing stops and restarts the timer tasks; the streams carry on. */
GST_START_TEST (test_flush)
{
  static const gchar *descs[] = { "fecenc n=3 max-block-time=50",
    "fecdec deadline=50"
  };

  for (guint d = 0; d < G_N_ELEMENTS (descs); d++) {
    GstHarness *h = harness_new (descs[d]);
    RtpccRng rng;
    GstBuffer *b;
    guint got = 0;

    rtpcc_rng_init (&rng, 6);
    gst_harness_set_src_caps_str (h, CAPS);
    gst_harness_push (h, make_rtp (&rng, 0, FALSE));
    gst_harness_push (h, make_rtp (&rng, 2, FALSE));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    gst_harness_set_src_caps_str (h, CAPS);
    {
      GstSegment seg;

      gst_segment_init (&seg, GST_FORMAT_TIME);
      gst_harness_push_event (h, gst_event_new_segment (&seg));
    }
    for (guint i = 100; i < 106; i++)
      fail_unless_equals_int (gst_harness_push (h, make_rtp (&rng, i, FALSE)),
          GST_FLOW_OK);
    gst_harness_push_event (h, gst_event_new_eos ());
    while ((b = gst_harness_try_pull (h)) != NULL) {
      got += buf_pt (b) != 122;
      gst_buffer_unref (b);
    }
    /* at least the 6 packets after the flush */
    fail_unless (got >= 6, "%s: %u media packets", descs[d], got);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static Suite *
elements_fec_suite (void)
{
  Suite *s = suite_create ("elements_fec");
  TCase *tc = tcase_create ("fec");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_roundtrip);
  tcase_add_test (tc, test_follow_target);
  tcase_add_test (tc, test_auto_scheme);
  tcase_add_test (tc, test_announces_block_time);
  tcase_add_test (tc, test_garbage_and_no_fec);
  tcase_add_test (tc, test_ulpfec_interop);
  tcase_add_test (tc, test_max_block_time);
  tcase_add_test (tc, test_controller_interval_by_count);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_ssrc);
  return s;
}

GST_CHECK_MAIN (elements_fec);

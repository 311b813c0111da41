/* Unit tests for SRTP/SRTCP (srtp.h): round trips of RTP packets and of
 * our RTCP compounds (RR/SR, SDES, CCFB, TWCC, XR) in every suite;
 * tampering, replay, wrong keys and malformed input rejected with the
 * documented result; the hex key parser; interop with GStreamer's own
 * srtpenc and srtpdec; tshark's view of the protected packets.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

#include "tshark-util.h"

#define MEDIA_SSRC 0x11223344
#define MEDIA2_SSRC 0x0BADCAFE
#define FB_SSRC 0x55667788

/* out_len before a call that must not set it */
#define UNSET ((gsize) 0xDEAD)

static const struct
{
  RtpccSrtpSuite suite;
  /* the same protection in srtpenc's / srtpdec's terms */
  const gchar *cipher, *rtp_auth, *rtcp_auth;
  gboolean aead;
} suites[] = {
  {RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80, "aes-128-icm", "hmac-sha1-80",
      "hmac-sha1-80", FALSE},
  {RTPCC_SRTP_AES_CM_128_HMAC_SHA1_32, "aes-128-icm", "hmac-sha1-32",
      "hmac-sha1-80", FALSE},
  {RTPCC_SRTP_AES_256_CM_HMAC_SHA1_80, "aes-256-icm", "hmac-sha1-80",
      "hmac-sha1-80", FALSE},
  {RTPCC_SRTP_AES_256_CM_HMAC_SHA1_32, "aes-256-icm", "hmac-sha1-32",
      "hmac-sha1-80", FALSE},
  {RTPCC_SRTP_AEAD_AES_128_GCM, "aes-128-gcm", "null", "null", TRUE},
  {RTPCC_SRTP_AEAD_AES_256_GCM, "aes-256-gcm", "null", "null", TRUE},
};

G_STATIC_ASSERT (G_N_ELEMENTS (suites) == RTPCC_SRTP_N_SUITES);

/* ---- helpers -------------------------------------------------------------- */

/* A fixed key + salt for @suite; @variant changes every byte. */
static gsize
fill_key (guint8 * key, RtpccSrtpSuite suite, guint8 variant)
{
  gsize len = rtpcc_srtp_suite_key_len (suite);

  for (gsize i = 0; i < len; i++)
    key[i] = (guint8) (0x10 + 7 * i + 31 * variant);
  return len;
}

static RtpccSrtp *
make_ctx_full (RtpccSrtpSuite suite, RtpccSrtpDirection dir,
    const guint8 * key, gboolean allow_repeat_tx)
{
  RtpccSrtpConfig cfg;
  GError *err = NULL;
  RtpccSrtp *s;

  rtpcc_srtp_config_init (&cfg);
  cfg.suite = suite;
  cfg.direction = dir;
  cfg.allow_repeat_tx = allow_repeat_tx;
  s = rtpcc_srtp_new (&cfg, key, rtpcc_srtp_suite_key_len (suite), &err);
  fail_unless (s != NULL, "%s", err ? err->message : "");
  fail_unless_equals_int (rtpcc_srtp_get_suite (s), suite);
  fail_unless_equals_int (rtpcc_srtp_get_direction (s), dir);
  return s;
}

static RtpccSrtp *
make_ctx (RtpccSrtpSuite suite, RtpccSrtpDirection dir, guint8 key_variant)
{
  guint8 key[RTPCC_SRTP_MAX_KEY_LEN];

  fill_key (key, suite, key_variant);
  return make_ctx_full (suite, dir, key, FALSE);
}

/* An RTP packet (PT 96) on @ssrc with @payload_len bytes of payload.
 * @variant 0: plain header; 1: two CSRCs; 2: a one-byte header extension
 * (a transport-wide seq, ID 3); 3: four bytes of RTP padding. */
static gsize
make_rtp (guint8 * buf, guint32 ssrc, guint16 seq, guint variant,
    gsize payload_len)
{
  gsize n = 12;

  buf[0] = 0x80;
  buf[1] = 96 | (seq % 5 == 0 ? 0x80 : 0);
  buf[2] = seq >> 8;
  buf[3] = seq & 0xff;
  GST_WRITE_UINT32_BE (buf + 4, 90u * seq);
  GST_WRITE_UINT32_BE (buf + 8, ssrc);
  if (variant == 1) {
    buf[0] |= 2;
    GST_WRITE_UINT32_BE (buf + n, 0xC5C5C5C5);
    GST_WRITE_UINT32_BE (buf + n + 4, 0xC6C6C6C6);
    n += 8;
  } else if (variant == 2) {
    static const guint8 ext[] = { 0xBE, 0xDE, 0x00, 0x01, 0x31, 0, 0, 0 };
    buf[0] |= 0x10;
    memcpy (buf + n, ext, sizeof (ext));
    buf[n + 5] = seq >> 8;
    buf[n + 6] = seq & 0xff;
    n += sizeof (ext);
  }
  for (gsize i = 0; i < payload_len; i++)
    buf[n++] = (guint8) (i * 13 + seq);
  if (variant == 3) {
    buf[0] |= 0x20;
    buf[n++] = 0;
    buf[n++] = 0;
    buf[n++] = 0;
    buf[n++] = 4;
  }
  return n;
}

/* The RTP header length of a packet from make_rtp(). */
static gsize
header_len (guint variant)
{
  return variant == 1 || variant == 2 ? 20 : 12;
}

/* What the endpoints send: @kind 0, the receiver's RR + SDES + CCFB;
 * 1, RR + SDES + TWCC; 2, RR + SDES + XR Loss RLE; 3, the sender's SR +
 * SDES; 4, a lone CCFB (reduced size, RFC 5506). @k varies the content. */
static gsize
make_rtcp (guint8 * buf, gsize max, guint kind, guint k)
{
  RtpccRtcpRR rr = { 0 };
  RtpccRtcpSR sr = { 0 };
  RtpccCcfbMetric m[6];
  RtpccCcfbBlockIn ccfb = { MEDIA_SSRC, (guint16) (1000 + k), 6, m };
  RtpccTwccArrival arr[4];
  guint8 bits[16];
  RtpccXrRleBlock xr = { 0 };
  RtpccRtcpIter it;
  guint used;
  gsize n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (m); i++) {
    m[i].seq = 0;
    m[i].received = i != 2;
    m[i].ecn = 0;
    m[i].ato = (guint16) (10 * i + k);
  }
  rr.ssrc = FB_SSRC;
  rr.n_blocks = 1;
  rr.blocks[0].ssrc = MEDIA_SSRC;
  rr.blocks[0].ext_highest_seq = 1000 + k;
  rr.blocks[0].jitter = 17;
  if (kind == 3) {
    sr.ssrc = MEDIA_SSRC;
    sr.ntp = G_GUINT64_CONSTANT (0xE0000000) << 32 | k;
    sr.rtp_ts = 90000 + k;
    sr.packet_count = k;
    sr.octet_count = 1200 * k;
    n = rtpcc_rtcp_write_sr (buf, max, &sr);
    n += rtpcc_rtcp_write_sdes_cname (buf + n, max - n, MEDIA_SSRC,
        "sender@rtpcc.invalid");
  } else if (kind != 4) {
    n = rtpcc_rtcp_write_rr (buf, max, &rr);
    n += rtpcc_rtcp_write_sdes_cname (buf + n, max - n, FB_SSRC,
        "receiver@rtpcc.invalid");
  }
  switch (kind) {
    case 0:
    case 4:
      n += rtpcc_ccfb_write (buf + n, max - n, FB_SSRC, 0x12340000 + k,
          &ccfb, 1);
      break;
    case 1:
      for (guint i = 0; i < G_N_ELEMENTS (arr); i++) {
        arr[i].seq = 500 + k + i;
        arr[i].arrival = i == 1 ? RTPCC_TIME_NONE : RTPCC_MSEC (20 * i + k);
      }
      n += rtpcc_twcc_write (buf + n, max - n, FB_SSRC, MEDIA_SSRC,
          (guint8) k, arr, G_N_ELEMENTS (arr), &used);
      fail_unless_equals_int (used, G_N_ELEMENTS (arr));
      break;
    case 2:
      for (guint i = 0; i < G_N_ELEMENTS (bits); i++)
        bits[i] = i % 3 != 0;
      xr.bt = RTPCC_XR_BT_LOSS_RLE;
      xr.ssrc = MEDIA_SSRC;
      xr.begin_seq = (guint16) (2000 + k);
      xr.end_seq = (guint16) (xr.begin_seq + G_N_ELEMENTS (bits));
      xr.n_bits = G_N_ELEMENTS (bits);
      xr.bits = bits;
      n += rtpcc_xr_write (buf + n, max - n, FB_SSRC, &xr, 1);
      break;
    default:
      break;
  }
  /* a valid compound, as the library writes them */
  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  return n;
}

/* A heap copy of @data with exactly @capacity bytes, so AddressSanitizer
 * sees any write past what the call was allowed. */
static guint8 *
dup_exact (const guint8 * data, gsize len, gsize capacity)
{
  guint8 *p = g_malloc (capacity);

  memcpy (p, data, len);
  return p;
}

/* Protects @len bytes of @clear into an exact-capacity copy; returns it
 * and its length in *@n. */
static guint8 *
protect_copy (RtpccSrtp * out, gboolean rtcp, const guint8 * clear,
    gsize len, gsize * n)
{
  RtpccSrtpSuite suite = rtpcc_srtp_get_suite (out);
  gsize ov = rtcp ? rtpcc_srtp_suite_rtcp_overhead (suite) :
      rtpcc_srtp_suite_rtp_overhead (suite);
  guint8 *p = dup_exact (clear, len, len + ov);
  RtpccSrtpResult r;

  *n = UNSET;
  r = rtcp ? rtpcc_srtp_protect_rtcp (out, p, len, len + ov, n) :
      rtpcc_srtp_protect_rtp (out, p, len, len + ov, n);
  fail_unless_equals_string (rtpcc_srtp_result_name (r), "ok");
  fail_unless_equals_int (*n, len + ov);
  return p;
}

static RtpccSrtpResult
unprotect (RtpccSrtp * in, gboolean rtcp, guint8 * p, gsize n, gsize * m)
{
  return rtcp ? rtpcc_srtp_unprotect_rtcp (in, p, n, m) :
      rtpcc_srtp_unprotect_rtp (in, p, n, m);
}

#define assert_result(got, want) \
  fail_unless_equals_string (rtpcc_srtp_result_name (got), \
      rtpcc_srtp_result_name (want))

/* ---- the suites ------------------------------------------------------------ */

GST_START_TEST (test_suite_table)
{
  static const gsize key_len[] = { 30, 30, 46, 46, 28, 44 };
  static const gsize rtp_ov[] = { 10, 4, 10, 4, 16, 16 };
  static const gsize rtcp_ov[] = { 14, 14, 14, 14, 20, 20 };
  static const gchar *const names[] = {
    "AES_CM_128_HMAC_SHA1_80", "AES_CM_128_HMAC_SHA1_32",
    "AES_256_CM_HMAC_SHA1_80", "AES_256_CM_HMAC_SHA1_32",
    "AEAD_AES_128_GCM", "AEAD_AES_256_GCM",
  };
  RtpccSrtpConfig cfg;

  for (guint s = 0; s < RTPCC_SRTP_N_SUITES; s++) {
    fail_unless_equals_string (rtpcc_srtp_suite_name (s), names[s]);
    fail_unless_equals_int (rtpcc_srtp_suite_key_len (s), key_len[s]);
    fail_unless_equals_int (rtpcc_srtp_suite_rtp_overhead (s), rtp_ov[s]);
    fail_unless_equals_int (rtpcc_srtp_suite_rtcp_overhead (s), rtcp_ov[s]);
    fail_unless (key_len[s] <= RTPCC_SRTP_MAX_KEY_LEN);
    fail_unless (rtp_ov[s] <= RTPCC_SRTP_MAX_RTP_OVERHEAD);
    fail_unless (rtcp_ov[s] <= RTPCC_SRTP_MAX_RTCP_OVERHEAD);
  }
  fail_unless (rtpcc_srtp_suite_name (RTPCC_SRTP_N_SUITES) == NULL);
  fail_unless_equals_int (rtpcc_srtp_suite_key_len (RTPCC_SRTP_N_SUITES), 0);

  rtpcc_srtp_config_init (&cfg);
  fail_unless_equals_int (cfg.suite, RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80);
  fail_unless_equals_int (cfg.direction, RTPCC_SRTP_OUTBOUND);
  fail_unless_equals_int (cfg.replay_window, 128);
  fail_unless (!cfg.allow_repeat_tx);

  fail_unless_equals_string (rtpcc_srtp_result_name (RTPCC_SRTP_AUTH_FAIL),
      "auth-fail");
  fail_unless_equals_string (rtpcc_srtp_result_name (RTPCC_SRTP_N_RESULTS),
      "invalid");
}

GST_END_TEST;

/* ---- round trips ---------------------------------------------------------- */

/* Every suite (loop index): 300 RTP packets on two SSRCs across a sequence
 * number wrap (the rollover counter), every header form, payloads of 0 to
 * 1200 bytes; then 20 compounds of every kind. The header stays readable,
 * the payload is encrypted, and the receiver gets the original back. */
GST_START_TEST (test_round_trip)
{
  RtpccSrtpSuite suite = suites[__i__].suite;
  RtpccSrtp *out = make_ctx (suite, RTPCC_SRTP_OUTBOUND, 1);
  RtpccSrtp *in = make_ctx (suite, RTPCC_SRTP_INBOUND, 1);
  RtpccSrtpStats st;
  guint8 clear[1400];
  guint32 last_index = 0;

  for (guint i = 0; i < 300; i++) {
    guint variant = i % 4;
    guint32 ssrc = i % 3 ? MEDIA_SSRC : MEDIA2_SSRC;
    guint16 seq = (guint16) (65400 + i);
    gsize payload = (i * 37) % 1201;
    gsize len = make_rtp (clear, ssrc, seq, variant, payload);
    gsize hl = header_len (variant), n, m = UNSET;
    guint8 *p = protect_copy (out, FALSE, clear, len, &n);

    fail_unless (memcmp (p, clear, hl) == 0, "header changed");
    if (payload >= 8)
      fail_unless (memcmp (p + hl, clear + hl, len - hl) != 0,
          "payload not encrypted");
    assert_result (unprotect (in, FALSE, p, n, &m), RTPCC_SRTP_OK);
    fail_unless_equals_int (m, len);
    fail_unless (memcmp (p, clear, len) == 0, "packet %u differs", i);
    g_free (p);
  }

  for (guint i = 0; i < 20; i++) {
    gsize len = make_rtcp (clear, sizeof (clear), i % 5, i), n, m = UNSET;
    guint8 *p = protect_copy (out, TRUE, clear, len, &n);
    /* E flag + SRTCP index: after the encrypted part with HMAC-SHA1,
     * after the tag with AES-GCM */
    guint32 trailer = GST_READ_UINT32_BE (p + (suites[__i__].aead ?
            len + 16 : len));
    RtpccRtcpIter it;

    /* the first packet's header and SSRC stay in clear (RFC 3711 §3.4),
     * the rest is encrypted: E flag set, SRTCP index counting up per
     * SSRC */
    fail_unless (memcmp (p, clear, 8) == 0);
    fail_unless (memcmp (p + 8, clear + 8, len - 8) != 0);
    fail_unless (trailer & 0x80000000u);
    if (i % 5 != 3 && last_index)
      fail_unless_equals_int (trailer & 0x7fffffff, last_index + 1);
    if (i % 5 != 3)
      last_index = trailer & 0x7fffffff;
    assert_result (unprotect (in, TRUE, p, n, &m), RTPCC_SRTP_OK);
    fail_unless_equals_int (m, len);
    fail_unless (memcmp (p, clear, len) == 0, "compound %u differs", i);
    fail_unless (rtpcc_rtcp_iter_init (&it, p, m));
    g_free (p);
  }

  rtpcc_srtp_get_stats (out, &st);
  fail_unless_equals_int (st.rtp_ok, 300);
  fail_unless_equals_int (st.rtcp_ok, 20);
  rtpcc_srtp_get_stats (in, &st);
  fail_unless_equals_int (st.rtp_ok, 300);
  fail_unless_equals_int (st.rtcp_ok, 20);
  fail_unless_equals_int (st.auth_fail + st.replay + st.malformed +
      st.no_space + st.errors, 0);
  rtpcc_srtp_free (out);
  rtpcc_srtp_free (in);
}

GST_END_TEST;

/* ---- rejection ------------------------------------------------------------ */

/* One flipped bit anywhere — header, payload, SRTCP trailer, tag — is an
 * authentication failure; *out_len is not set; with the HMAC suites the
 * bytes are left as they were. The failures leave no trace: the genuine
 * packet is accepted afterwards. */
GST_START_TEST (test_tamper)
{
  RtpccSrtpSuite suite = suites[__i__].suite;
  gboolean aead = suites[__i__].aead;
  RtpccSrtp *out = make_ctx (suite, RTPCC_SRTP_OUTBOUND, 2);
  RtpccSrtp *in = make_ctx (suite, RTPCC_SRTP_INBOUND, 2);
  guint8 clear[512];
  RtpccSrtpStats st;
  guint n_tampered = 0;

  for (guint rtcp = 0; rtcp < 2; rtcp++) {
    gsize len = rtcp ? make_rtcp (clear, sizeof (clear), 0, 1) :
        make_rtp (clear, MEDIA_SSRC, 77, 2, 200);
    gsize n, m;
    guint8 *p = protect_copy (out, rtcp, clear, len, &n);
    gsize rtp_pos[] = { 1, 3, 5, 8, 18, 20, len - 1, len, n - 1 };
    gsize rtcp_pos[] = { 1, 4, 7, 8, len - 1, len, len + 3, len + 4, n - 1 };
    gsize *pos = rtcp ? rtcp_pos : rtp_pos;
    guint8 bit[] = { 0x01, 0x80 };

    for (guint i = 0; i < G_N_ELEMENTS (rtp_pos); i++) {
      for (guint b = 0; b < G_N_ELEMENTS (bit); b++) {
        guint8 *q = g_memdup2 (p, n);
        guint8 *before;

        /* in SRTCP with HMAC-SHA1, bit 0x80 at @len is the E flag */
        q[pos[i]] ^= bit[b];
        before = g_memdup2 (q, n);
        m = UNSET;
        assert_result (unprotect (in, rtcp, q, n, &m), RTPCC_SRTP_AUTH_FAIL);
        fail_unless_equals_int (m, UNSET);
        if (!aead)
          fail_unless (memcmp (q, before, n) == 0, "byte %" G_GSIZE_FORMAT
              " tampered: buffer changed", pos[i]);
        n_tampered++;
        g_free (q);
        g_free (before);
      }
    }
    /* a truncated tag does not verify either */
    {
      guint8 *q = g_memdup2 (p, n);
      m = UNSET;
      assert_result (unprotect (in, rtcp, q, n - 1, &m),
          RTPCC_SRTP_AUTH_FAIL);
      fail_unless_equals_int (m, UNSET);
      n_tampered++;
      g_free (q);
    }

    m = UNSET;
    assert_result (unprotect (in, rtcp, p, n, &m), RTPCC_SRTP_OK);
    fail_unless_equals_int (m, len);
    fail_unless (memcmp (p, clear, len) == 0);
    g_free (p);
  }
  rtpcc_srtp_get_stats (in, &st);
  fail_unless_equals_int (st.auth_fail, n_tampered);
  fail_unless_equals_int (st.rtp_ok, 1);
  fail_unless_equals_int (st.rtcp_ok, 1);
  rtpcc_srtp_free (out);
  rtpcc_srtp_free (in);
}

GST_END_TEST;

/* A packet delivered twice, or older than the replay window (128), is a
 * replay; reordering within the window is not. */
GST_START_TEST (test_replay)
{
  RtpccSrtpSuite suite = suites[__i__].suite;
  RtpccSrtp *out = make_ctx (suite, RTPCC_SRTP_OUTBOUND, 3);
  RtpccSrtp *in = make_ctx (suite, RTPCC_SRTP_INBOUND, 3);
  guint8 clear[512];
  guint8 *prot[201], *copy;
  gsize plen[201], n, m, len;
  RtpccSrtpStats st;

  for (guint i = 0; i <= 200; i++) {
    len = make_rtp (clear, MEDIA_SSRC, (guint16) (1000 + i), 0, 100);
    prot[i] = protect_copy (out, FALSE, clear, len, &plen[i]);
  }
  /* twice */
  copy = g_memdup2 (prot[0], plen[0]);
  assert_result (rtpcc_srtp_unprotect_rtp (in, prot[0], plen[0], &m),
      RTPCC_SRTP_OK);
  m = UNSET;
  assert_result (rtpcc_srtp_unprotect_rtp (in, copy, plen[0], &m),
      RTPCC_SRTP_REPLAY);
  fail_unless_equals_int (m, UNSET);
  g_free (copy);
  /* 200 first, then 100 (100 behind: in the window), then 50 (too old),
   * then 100 again */
  copy = g_memdup2 (prot[100], plen[100]);
  assert_result (rtpcc_srtp_unprotect_rtp (in, prot[200], plen[200], &m),
      RTPCC_SRTP_OK);
  assert_result (rtpcc_srtp_unprotect_rtp (in, prot[100], plen[100], &m),
      RTPCC_SRTP_OK);
  assert_result (rtpcc_srtp_unprotect_rtp (in, prot[50], plen[50], &m),
      RTPCC_SRTP_REPLAY);
  assert_result (rtpcc_srtp_unprotect_rtp (in, copy, plen[100], &m),
      RTPCC_SRTP_REPLAY);
  g_free (copy);
  for (guint i = 0; i <= 200; i++)
    g_free (prot[i]);

  /* SRTCP: the same compound twice */
  len = make_rtcp (clear, sizeof (clear), 0, 0);
  prot[0] = protect_copy (out, TRUE, clear, len, &n);
  copy = g_memdup2 (prot[0], n);
  assert_result (rtpcc_srtp_unprotect_rtcp (in, prot[0], n, &m),
      RTPCC_SRTP_OK);
  m = UNSET;
  assert_result (rtpcc_srtp_unprotect_rtcp (in, copy, n, &m),
      RTPCC_SRTP_REPLAY);
  fail_unless_equals_int (m, UNSET);
  g_free (copy);
  g_free (prot[0]);

  rtpcc_srtp_get_stats (in, &st);
  fail_unless_equals_int (st.replay, 4);
  fail_unless_equals_int (st.rtp_ok, 3);
  fail_unless_equals_int (st.rtcp_ok, 1);
  rtpcc_srtp_free (out);
  rtpcc_srtp_free (in);
}

GST_END_TEST;

/* Protecting the same (SSRC, seq) twice would encrypt with the same
 * keystream: refused unless allow_repeat_tx, and then byte-identical. */
GST_START_TEST (test_repeat_tx)
{
  guint8 key[RTPCC_SRTP_MAX_KEY_LEN], clear[256], *a, *b;
  RtpccSrtpSuite suite = RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80;
  RtpccSrtp *out, *rep;
  gsize len, n, m;

  fill_key (key, suite, 4);
  out = make_ctx_full (suite, RTPCC_SRTP_OUTBOUND, key, FALSE);
  rep = make_ctx_full (suite, RTPCC_SRTP_OUTBOUND, key, TRUE);
  len = make_rtp (clear, MEDIA_SSRC, 5, 0, 100);

  a = protect_copy (out, FALSE, clear, len, &n);
  b = dup_exact (clear, len, len + 10);
  m = UNSET;
  assert_result (rtpcc_srtp_protect_rtp (out, b, len, len + 10, &m),
      RTPCC_SRTP_REPLAY);
  fail_unless_equals_int (m, UNSET);
  fail_unless (memcmp (b, clear, len) == 0);
  g_free (b);

  b = protect_copy (rep, FALSE, clear, len, &m);
  g_free (b);
  b = protect_copy (rep, FALSE, clear, len, &m);
  fail_unless_equals_int (m, n);
  fail_unless (memcmp (a, b, n) == 0);
  g_free (a);
  g_free (b);
  rtpcc_srtp_free (out);
  rtpcc_srtp_free (rep);
}

GST_END_TEST;

/* A key that differs in one bit of the master key or of the salt, or
 * another suite with a key of the same length, does not verify. */
GST_START_TEST (test_wrong_key)
{
  RtpccSrtpSuite suite = suites[__i__].suite;
  guint8 key[RTPCC_SRTP_MAX_KEY_LEN], other[RTPCC_SRTP_MAX_KEY_LEN];
  gsize klen = fill_key (key, suite, 5);
  guint8 clear[512];
  RtpccSrtp *out = make_ctx_full (suite, RTPCC_SRTP_OUTBOUND, key, FALSE);

  for (guint w = 0; w < 3; w++) {
    RtpccSrtpSuite in_suite = suite;
    RtpccSrtp *in;

    memcpy (other, key, klen);
    if (w == 0)
      other[0] ^= 0x01;         /* master key */
    else if (w == 1)
      other[klen - 1] ^= 0x01;  /* master salt */
    else
      /* same key length, other tag length; or the other AES-GCM */
      in_suite = suite ^ 1;
    in = make_ctx_full (in_suite, RTPCC_SRTP_INBOUND, other, FALSE);
    for (guint rtcp = 0; rtcp < 2; rtcp++) {
      gsize len = rtcp ? make_rtcp (clear, sizeof (clear), 1, w) :
          make_rtp (clear, MEDIA_SSRC, (guint16) (10 + w), 3, 300);
      gsize n, m = UNSET;
      guint8 *p = protect_copy (out, rtcp, clear, len, &n);

      if (w == 2 && rtcp && !suites[__i__].aead) {
        /* the _32 suites differ from the _80 ones in the SRTP tag only:
         * their SRTCP is the same */
        assert_result (unprotect (in, rtcp, p, n, &m), RTPCC_SRTP_OK);
        fail_unless (memcmp (p, clear, len) == 0);
      } else {
        assert_result (unprotect (in, rtcp, p, n, &m), RTPCC_SRTP_AUTH_FAIL);
        fail_unless_equals_int (m, UNSET);
      }
      g_free (p);
    }
    rtpcc_srtp_free (in);
  }
  rtpcc_srtp_free (out);
}

GST_END_TEST;

static void
count_log (const gchar * domain, GLogLevelFlags level, const gchar * msg,
    gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* Input that cannot be SRTP/SRTCP is refused before libsrtp sees it; an
 * outbound buffer without room for the tag is refused and left alone. */
GST_START_TEST (test_malformed)
{
  RtpccSrtpSuite suite = RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80;
  RtpccSrtp *out = make_ctx (suite, RTPCC_SRTP_OUTBOUND, 6);
  RtpccSrtp *in = make_ctx (suite, RTPCC_SRTP_INBOUND, 6);
  guint8 clear[256], *p, *q;
  gsize len, n, m;
  guint n_bad = 0;
  RtpccSrtpStats st;

  /* shorter than header + tag: 12 + 10 for RTP, 8 + 4 + 10 for RTCP */
  len = make_rtp (clear, MEDIA_SSRC, 1, 0, 40);
  p = protect_copy (out, FALSE, clear, len, &n);
  for (gsize k = 0; k < 22; k++) {
    q = g_memdup2 (p, MAX (k, 1));
    m = UNSET;
    assert_result (rtpcc_srtp_unprotect_rtp (in, q, k, &m),
        RTPCC_SRTP_MALFORMED);
    fail_unless_equals_int (m, UNSET);
    g_free (q);
    n_bad++;
  }
  /* version 1; 15 CSRCs in 62 bytes; an extension longer than the
   * packet */
  q = g_memdup2 (p, n);
  q[0] = (q[0] & 0x3f) | 0x40;
  assert_result (rtpcc_srtp_unprotect_rtp (in, q, n, &m),
      RTPCC_SRTP_MALFORMED);
  q[0] = 0x8f;
  assert_result (rtpcc_srtp_unprotect_rtp (in, q, n, &m),
      RTPCC_SRTP_MALFORMED);
  q[0] = 0x90;
  q[14] = 0xff;
  q[15] = 0xff;
  assert_result (rtpcc_srtp_unprotect_rtp (in, q, n, &m),
      RTPCC_SRTP_MALFORMED);
  n_bad += 3;
  g_free (q);
  /* the genuine one still passes */
  assert_result (rtpcc_srtp_unprotect_rtp (in, p, n, &m), RTPCC_SRTP_OK);
  g_free (p);

  len = make_rtcp (clear, sizeof (clear), 4, 0);
  p = protect_copy (out, TRUE, clear, len, &n);
  for (gsize k = 0; k < 22; k++) {
    q = g_memdup2 (p, MAX (k, 1));
    assert_result (rtpcc_srtp_unprotect_rtcp (in, q, k, &m),
        RTPCC_SRTP_MALFORMED);
    g_free (q);
    n_bad++;
  }
  q = g_memdup2 (p, n);
  q[0] &= 0x3f;                 /* version 0 */
  assert_result (rtpcc_srtp_unprotect_rtcp (in, q, n, &m),
      RTPCC_SRTP_MALFORMED);
  n_bad++;
  g_free (q);
  g_free (p);

  rtpcc_srtp_get_stats (in, &st);
  fail_unless_equals_int (st.malformed, n_bad);
  fail_unless_equals_int (st.rtp_ok, 1);

  /* outbound: no room for the tag, or not RTP at all */
  len = make_rtp (clear, MEDIA_SSRC, 2, 1, 40);
  p = dup_exact (clear, len, len + 9);
  m = UNSET;
  assert_result (rtpcc_srtp_protect_rtp (out, p, len, len + 9, &m),
      RTPCC_SRTP_NO_SPACE);
  assert_result (rtpcc_srtp_protect_rtp (out, p, len, len - 1, &m),
      RTPCC_SRTP_NO_SPACE);
  fail_unless_equals_int (m, UNSET);
  fail_unless (memcmp (p, clear, len) == 0);
  g_free (p);
  p = dup_exact (clear, len, len + 13);
  assert_result (rtpcc_srtp_protect_rtcp (out, p, len, len + 13, &m),
      RTPCC_SRTP_NO_SPACE);
  g_free (p);
  p = dup_exact (clear, 12, 100);
  p[0] = 0x8f;                  /* CSRCs past the end */
  assert_result (rtpcc_srtp_protect_rtp (out, p, 12, 100, &m),
      RTPCC_SRTP_MALFORMED);
  p[0] = 0x00;
  assert_result (rtpcc_srtp_protect_rtcp (out, p, 12, 100, &m),
      RTPCC_SRTP_MALFORMED);
  assert_result (rtpcc_srtp_protect_rtcp (out, p, 4, 100, &m),
      RTPCC_SRTP_MALFORMED);
  fail_unless_equals_int (m, UNSET);
  g_free (p);
  rtpcc_srtp_get_stats (out, &st);
  fail_unless_equals_int (st.no_space, 3);
  fail_unless_equals_int (st.malformed, 3);

  /* the wrong direction is a programming error: a critical, and the
   * packet is not touched */
  {
    guint criticals = 0;
    guint id = g_log_set_handler ("rtpcc", G_LOG_LEVEL_CRITICAL,
        count_log, &criticals);

    p = g_malloc0 (64);
    m = UNSET;
    assert_result (rtpcc_srtp_unprotect_rtp (out, p, 64, &m),
        RTPCC_SRTP_ERROR);
    p[0] = 0x80;
    assert_result (rtpcc_srtp_protect_rtcp (in, p, 32, 64, &m),
        RTPCC_SRTP_ERROR);
    fail_unless_equals_int (criticals, 2);
    fail_unless_equals_int (m, UNSET);
    fail_unless_equals_int (p[0], 0x80);
    for (guint i = 1; i < 64; i++)
      fail_unless_equals_int (p[i], 0);
    g_free (p);
    g_log_remove_handler ("rtpcc", id);
  }

  rtpcc_srtp_free (out);
  rtpcc_srtp_free (in);
}

GST_END_TEST;

/* ---- keys ----------------------------------------------------------------- */

static gchar *
hex_of (const guint8 * b, gsize n, gboolean upper)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < n; i++)
    g_string_append_printf (s, upper ? "%02X" : "%02x", b[i]);
  return g_string_free (s, FALSE);
}

static void
assert_key_error (const gchar * hex, RtpccSrtpSuite suite, gint code,
    const gchar * needle)
{
  GError *err = NULL;

  fail_unless (rtpcc_srtp_key_from_hex (hex, suite, &err) == NULL);
  fail_unless (err != NULL);
  fail_unless (err->domain == RTPCC_ERROR);
  fail_unless_equals_int (err->code, code);
  fail_unless (strstr (err->message, needle) != NULL, "%s", err->message);
  /* the message never quotes the key */
  if (hex && strlen (hex) >= 8) {
    gchar *head = g_strndup (hex, 8);
    fail_unless (strstr (err->message, head) == NULL, "%s", err->message);
    g_free (head);
  }
  g_error_free (err);
}

GST_START_TEST (test_key_from_hex)
{
  guint8 key[RTPCC_SRTP_MAX_KEY_LEN + 1];

  for (guint s = 0; s < RTPCC_SRTP_N_SUITES; s++) {
    gsize klen = fill_key (key, s, 7);
    gchar *lower = hex_of (key, klen, FALSE), *upper = hex_of (key, klen,
        TRUE);
    gchar *shorter = hex_of (key, klen - 1, FALSE);
    gchar *longer, *want;
    GError *err = NULL;
    GBytes *b;
    RtpccSrtpConfig cfg;
    RtpccSrtp *ctx;

    key[klen] = 0x42;
    longer = hex_of (key, klen + 1, TRUE);
    for (guint c = 0; c < 2; c++) {
      b = rtpcc_srtp_key_from_hex (c ? upper : lower, s, &err);
      fail_unless (b != NULL, "%s", err ? err->message : "");
      fail_unless_equals_int (g_bytes_get_size (b), klen);
      fail_unless (memcmp (g_bytes_get_data (b, NULL), key, klen) == 0);
      /* and it makes a context */
      rtpcc_srtp_config_init (&cfg);
      cfg.suite = s;
      ctx = rtpcc_srtp_new (&cfg, g_bytes_get_data (b, NULL),
          g_bytes_get_size (b), &err);
      fail_unless (ctx != NULL, "%s", err ? err->message : "");
      rtpcc_srtp_free (ctx);
      g_bytes_unref (b);
    }
    want = g_strdup_printf ("%s must be %" G_GSIZE_FORMAT " bytes (%"
        G_GSIZE_FORMAT " hex digits", rtpcc_srtp_suite_name (s), klen,
        2 * klen);
    assert_key_error (shorter, s, RTPCC_ERROR_INVALID, want);
    assert_key_error (longer, s, RTPCC_ERROR_INVALID, want);
    assert_key_error ("", s, RTPCC_ERROR_INVALID, want);
    assert_key_error (NULL, s, RTPCC_ERROR_INVALID, want);
    g_free (want);
    /* a character that is not a hex digit, wherever it is */
    lower[7] = 'g';
    assert_key_error (lower, s, RTPCC_ERROR_PARSE, "character 8 is not");
    lower[7] = ' ';
    assert_key_error (lower, s, RTPCC_ERROR_PARSE, "character 8 is not");
    upper[1] = 'x';
    assert_key_error (upper, s, RTPCC_ERROR_PARSE, "character 2 is not");
    upper[2 * klen - 1] = '\0';
    assert_key_error (upper + 2, s, RTPCC_ERROR_PARSE,
        "odd number of hex digits");
    g_free (lower);
    g_free (upper);
    g_free (shorter);
    g_free (longer);
  }
  /* a 30-byte key is right for AES-CM-128, wrong for AES-GCM-128 */
  {
    gchar *k30 = hex_of (key, 30, FALSE);
    GBytes *b = rtpcc_srtp_key_from_hex (k30, RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80,
        NULL);
    fail_unless (b != NULL);
    g_bytes_unref (b);
    assert_key_error (k30, RTPCC_SRTP_AEAD_AES_128_GCM, RTPCC_ERROR_INVALID,
        "AEAD_AES_128_GCM must be 28 bytes");
    g_free (k30);
  }
  assert_key_error ("00", RTPCC_SRTP_N_SUITES, RTPCC_ERROR_INVALID,
      "out of range");
}

GST_END_TEST;

static void
assert_new_fails (const RtpccSrtpConfig * cfg, const guint8 * key,
    gsize len, const gchar * needle)
{
  GError *err = NULL;

  fail_unless (rtpcc_srtp_new (cfg, key, len, &err) == NULL);
  fail_unless (err != NULL && err->domain == RTPCC_ERROR);
  fail_unless_equals_int (err->code, RTPCC_ERROR_INVALID);
  fail_unless (strstr (err->message, needle) != NULL, "%s", err->message);
  g_error_free (err);
}

GST_START_TEST (test_new_invalid)
{
  guint8 key[RTPCC_SRTP_MAX_KEY_LEN];
  RtpccSrtpConfig cfg;
  RtpccSrtp *ctx;

  rtpcc_srtp_config_init (&cfg);
  fill_key (key, cfg.suite, 0);
  assert_new_fails (&cfg, key, 29, "must be 30 bytes");
  assert_new_fails (&cfg, key, 46, "must be 30 bytes");
  assert_new_fails (&cfg, NULL, 30, "must be 30 bytes");
  cfg.suite = RTPCC_SRTP_AEAD_AES_256_GCM;
  assert_new_fails (&cfg, key, 46, "AEAD_AES_256_GCM must be 44 bytes");
  cfg.suite = RTPCC_SRTP_N_SUITES;
  assert_new_fails (&cfg, key, 30, "suite");
  rtpcc_srtp_config_init (&cfg);
  cfg.direction = 2;
  assert_new_fails (&cfg, key, 30, "direction");
  rtpcc_srtp_config_init (&cfg);
  cfg.replay_window = 63;
  assert_new_fails (&cfg, key, 30, "replay window 63");
  cfg.replay_window = 32768;
  assert_new_fails (&cfg, key, 30, "replay window 32768");
  for (guint w = 0; w < 2; w++) {
    cfg.replay_window = w ? RTPCC_SRTP_REPLAY_WINDOW_MAX :
        RTPCC_SRTP_REPLAY_WINDOW_MIN;
    cfg.direction = RTPCC_SRTP_INBOUND;
    ctx = rtpcc_srtp_new (&cfg, key, 30, NULL);
    fail_unless (ctx != NULL);
    rtpcc_srtp_free (ctx);
  }
  rtpcc_srtp_free (NULL);
}

GST_END_TEST;

/* ---- GStreamer's srtpenc / srtpdec --------------------------------------- */

typedef struct
{
  guint idx;                    /* into suites[] */
  const guint8 *key;
  guint requests;
} KeyRequest;

static GstCaps *
on_request_key (GstElement * dec, guint ssrc, KeyRequest * kr)
{
  GstBuffer *key = gst_buffer_new_memdup (kr->key,
      rtpcc_srtp_suite_key_len (suites[kr->idx].suite));
  GstCaps *caps = gst_caps_new_simple ("application/x-srtp",
      "srtp-key", GST_TYPE_BUFFER, key,
      "srtp-cipher", G_TYPE_STRING, suites[kr->idx].cipher,
      "srtp-auth", G_TYPE_STRING, suites[kr->idx].rtp_auth,
      "srtcp-cipher", G_TYPE_STRING, suites[kr->idx].cipher,
      "srtcp-auth", G_TYPE_STRING, suites[kr->idx].rtcp_auth, NULL);

  gst_buffer_unref (key);
  kr->requests++;
  return caps;
}

static GstHarness *
make_srtpdec (gboolean rtcp, KeyRequest * kr)
{
  GstHarness *h = gst_harness_new_with_padnames ("srtpdec",
      rtcp ? "rtcp_sink" : "rtp_sink", rtcp ? "rtcp_src" : "rtp_src");

  g_signal_connect (h->element, "request-key", G_CALLBACK (on_request_key),
      kr);
  gst_harness_set_src_caps_str (h, rtcp ? "application/x-srtcp" :
      "application/x-srtp");
  return h;
}

static GstStaticPadTemplate harness_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate harness_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GstHarness *
make_srtpenc (gboolean rtcp, guint idx, const guint8 * key)
{
  GstElement *enc = gst_element_factory_make ("srtpenc", NULL);
  GstBuffer *kb = gst_buffer_new_memdup (key,
      rtpcc_srtp_suite_key_len (suites[idx].suite));
  GstHarness *h;

  /* configured before it starts: without a key it refuses to */
  fail_unless (enc != NULL);
  gst_util_set_object_arg (G_OBJECT (enc), "rtp-cipher", suites[idx].cipher);
  gst_util_set_object_arg (G_OBJECT (enc), "rtcp-cipher", suites[idx].cipher);
  gst_util_set_object_arg (G_OBJECT (enc), "rtp-auth", suites[idx].rtp_auth);
  gst_util_set_object_arg (G_OBJECT (enc), "rtcp-auth",
      suites[idx].rtcp_auth);
  g_object_set (enc, "key", kb, NULL);
  gst_buffer_unref (kb);
  h = gst_harness_new_full (enc, &harness_src,
      rtcp ? "rtcp_sink_0" : "rtp_sink_0", &harness_sink,
      rtcp ? "rtcp_src_0" : "rtp_src_0");
  gst_object_unref (enc);
  gst_harness_set_src_caps_str (h, rtcp ? "application/x-rtcp" :
      "application/x-rtp");
  return h;
}

static gboolean
buffer_equals (GstBuffer * b, const guint8 * data, gsize len)
{
  return gst_buffer_get_size (b) == len
      && gst_buffer_memcmp (b, 0, data, len) == 0;
}

/* What we protect, srtpdec accepts and decrypts to the original (and it
 * drops what we tampered with); what srtpenc protects, we accept — and it
 * is byte for byte what we send for the same packet, so the suite maps to
 * srtpenc's cipher/auth pairs exactly. RTP and RTCP, every suite. */
GST_START_TEST (test_gst_interop)
{
  guint idx = __i__;
  RtpccSrtpSuite suite = suites[idx].suite;
  guint8 key[RTPCC_SRTP_MAX_KEY_LEN], clear[1400];
  KeyRequest kr = { idx, key, 0 };
  RtpccSrtp *out, *in;

  fill_key (key, suite, 8);
  out = make_ctx_full (suite, RTPCC_SRTP_OUTBOUND, key, FALSE);
  in = make_ctx_full (suite, RTPCC_SRTP_INBOUND, key, FALSE);

  for (guint rtcp = 0; rtcp < 2; rtcp++) {
    GstHarness *dec = make_srtpdec (rtcp, &kr);
    GstHarness *enc = make_srtpenc (rtcp, idx, key);
    /* our outbound and srtpenc each protect their own copy of the
     * stream, so each needs its own SSRCs: a second context of ours for
     * the comparison */
    RtpccSrtp *mirror = make_ctx_full (suite, RTPCC_SRTP_OUTBOUND, key,
        FALSE);

    for (guint i = 0; i < 8; i++) {
      gsize len = rtcp ? make_rtcp (clear, sizeof (clear), i % 5, i) :
          make_rtp (clear, MEDIA_SSRC, (guint16) (300 + i), i % 4,
          100 + 150 * i);
      gsize n, m;
      guint8 *p = protect_copy (out, rtcp, clear, len, &n);
      guint8 *mine;
      GstBuffer *b;
      GstMapInfo map;

      /* ours → srtpdec */
      b = gst_harness_push_and_pull (dec, gst_buffer_new_memdup (p, n));
      fail_unless (b != NULL);
      fail_unless (buffer_equals (b, clear, len), "srtpdec: %s %u differs",
          rtcp ? "compound" : "packet", i);
      gst_buffer_unref (b);
      g_free (p);

      /* srtpenc → ours */
      b = gst_harness_push_and_pull (enc, gst_buffer_new_memdup (clear,
              len));
      fail_unless (b != NULL);
      mine = protect_copy (mirror, rtcp, clear, len, &n);
      fail_unless (buffer_equals (b, mine, n),
          "srtpenc and we protect %s %u differently",
          rtcp ? "compound" : "packet", i);
      g_free (mine);
      fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
      p = dup_exact (map.data, map.size, map.size);
      m = UNSET;
      assert_result (unprotect (in, rtcp, p, map.size, &m), RTPCC_SRTP_OK);
      fail_unless_equals_int (m, len);
      fail_unless (memcmp (p, clear, len) == 0);
      g_free (p);
      gst_buffer_unmap (b, &map);
      gst_buffer_unref (b);
    }

    /* srtpdec drops a packet of ours with a flipped payload bit */
    {
      gsize len = rtcp ? make_rtcp (clear, sizeof (clear), 0, 9) :
          make_rtp (clear, MEDIA_SSRC, 400, 0, 100);
      gsize n;
      guint8 *p = protect_copy (out, rtcp, clear, len, &n);

      p[len - 1] ^= 0x04;
      fail_unless_equals_int (gst_harness_push (dec,
              gst_buffer_new_memdup (p, n)), GST_FLOW_OK);
      fail_unless (gst_harness_try_pull (dec) == NULL);
      g_free (p);
    }
    rtpcc_srtp_free (mirror);
    gst_harness_teardown (dec);
    gst_harness_teardown (enc);
  }
  fail_unless (kr.requests >= 1);
  rtpcc_srtp_free (out);
  rtpcc_srtp_free (in);
}

GST_END_TEST;

/* libsrtp is initialised by whichever comes first in the process,
 * GStreamer's srtp plugin or us; either order works. Here the plugin is
 * loaded (and its srtp_init() run) before our first context. */
GST_START_TEST (test_gst_first)
{
  GstElement *enc = gst_element_factory_make ("srtpenc", NULL);
  guint8 key[RTPCC_SRTP_MAX_KEY_LEN], clear[256];
  RtpccSrtp *out, *in;
  gsize len, n, m;
  guint8 *p;

  fail_unless (enc != NULL);
  fill_key (key, RTPCC_SRTP_AEAD_AES_128_GCM, 9);
  out = make_ctx_full (RTPCC_SRTP_AEAD_AES_128_GCM, RTPCC_SRTP_OUTBOUND, key,
      FALSE);
  in = make_ctx_full (RTPCC_SRTP_AEAD_AES_128_GCM, RTPCC_SRTP_INBOUND, key,
      FALSE);
  len = make_rtp (clear, MEDIA_SSRC, 1, 0, 64);
  p = protect_copy (out, FALSE, clear, len, &n);
  assert_result (rtpcc_srtp_unprotect_rtp (in, p, n, &m), RTPCC_SRTP_OK);
  fail_unless (memcmp (p, clear, len) == 0);
  g_free (p);
  rtpcc_srtp_free (out);
  rtpcc_srtp_free (in);
  gst_object_unref (enc);
}

GST_END_TEST;

/* ---- tshark --------------------------------------------------------------- */

#define RTP_PORT 5006
#define RTCP_PORT 5007

static const gchar *const tshark_opts[] = {
  "-d", "udp.port==" G_STRINGIFY (RTP_PORT) ",rtp",
  "-d", "udp.port==" G_STRINGIFY (RTCP_PORT) ",rtcp", NULL
};

/* SRTP keeps the RTP header, so a dissector (or a middlebox) reads the
 * same SSRC, seq, timestamp, PT, marker and extension as in the clear
 * packet; an SRTCP compound still shows the first packet's type and SSRC. */
GST_START_TEST (test_tshark_dissection)
{
  gchar *tshark = tshark_find ("test_tshark_dissection");
  RtpccSrtp *out;
  GByteArray *pcap;
  guint8 clear[512], *p;
  gsize len, n;
  gchar *dir, *file, *out_plain = NULL, *out_prot = NULL;
  const gchar *fields[] = { "-T", "fields", "-E", "separator=;",
    "-e", "frame.number", "-e", "rtp.ssrc", "-e", "rtp.seq",
    "-e", "rtp.timestamp", "-e", "rtp.p_type", "-e", "rtp.marker",
    "-e", "rtp.ext.profile", "-e", "rtp.csrc.item",
    "-e", "rtcp.pt", "-e", "rtcp.senderssrc", NULL
  };

  if (tshark == NULL)
    return;
  out = make_ctx (RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80, RTPCC_SRTP_OUTBOUND,
      10);

  /* the clear packets and, in a second capture, the protected ones */
  for (guint prot = 0; prot < 2; prot++) {
    pcap = test_pcap_new ();
    for (guint i = 0; i < 4; i++) {
      len = make_rtp (clear, MEDIA_SSRC, (guint16) (40 + i), i, 120);
      p = prot ? protect_copy (out, FALSE, clear, len, &n) :
          g_memdup2 (clear, (n = len));
      test_pcap_add (pcap, i + 1, RTP_PORT, p, n);
      g_free (p);
    }
    len = make_rtcp (clear, sizeof (clear), 3, 1);
    p = prot ? protect_copy (out, TRUE, clear, len, &n) :
        g_memdup2 (clear, (n = len));
    test_pcap_add (pcap, 5, RTCP_PORT, p, n);
    g_free (p);
    file = test_pcap_save (pcap, "rtpcc-srtp-XXXXXX", "srtp.pcap", &dir);
    if (prot)
      out_prot = tshark_run (tshark, file, tshark_opts, fields);
    else
      out_plain = tshark_run (tshark, file, tshark_opts, fields);
    test_pcap_remove (file, dir);
  }

  {
    gchar **lp = g_strsplit (out_plain, "\n", -1);
    gchar **lq = g_strsplit (out_prot, "\n", -1);

    fail_unless (g_strv_length (lp) >= 5, "%s", out_plain);
    fail_unless (g_strv_length (lq) >= 5, "%s", out_prot);
    /* RTP: every header field as in the clear */
    for (guint i = 0; i < 4; i++) {
      fail_unless (strstr (lp[i], ";0x11223344;") != NULL, "%s", lp[i]);
      fail_unless_equals_string (lq[i], lp[i]);
    }
    /* SRTCP: the first packet (the SR) is still an SR from the sender's
     * SSRC */
    fail_unless (strstr (lq[4], ";200") != NULL, "%s", lq[4]);
    fail_unless (strstr (lq[4], "0x11223344") != NULL, "%s", lq[4]);
    g_strfreev (lp);
    g_strfreev (lq);
  }
  g_free (out_plain);
  g_free (out_prot);
  rtpcc_srtp_free (out);
  g_free (tshark);
}

GST_END_TEST;

static Suite *
rtpcc_srtp_suite (void)
{
  Suite *s = suite_create ("rtpcc_srtp");
  TCase *tc = tcase_create ("srtp");
  TCase *tc_keys = tcase_create ("keys");
  TCase *tc_gst = tcase_create ("gstreamer");
  TCase *tc_tshark = tcase_create ("tshark");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_suite_table);
  tcase_add_loop_test (tc, test_round_trip, 0, RTPCC_SRTP_N_SUITES);
  tcase_add_loop_test (tc, test_tamper, 0, RTPCC_SRTP_N_SUITES);
  tcase_add_loop_test (tc, test_replay, 0, RTPCC_SRTP_N_SUITES);
  tcase_add_test (tc, test_repeat_tx);
  tcase_add_loop_test (tc, test_wrong_key, 0, RTPCC_SRTP_N_SUITES);
  tcase_add_test (tc, test_malformed);

  suite_add_tcase (s, tc_keys);
  tcase_add_test (tc_keys, test_key_from_hex);
  tcase_add_test (tc_keys, test_new_invalid);

  suite_add_tcase (s, tc_gst);
  tcase_add_loop_test (tc_gst, test_gst_interop, 0, RTPCC_SRTP_N_SUITES);
  tcase_add_test (tc_gst, test_gst_first);

  suite_add_tcase (s, tc_tshark);
  tcase_set_timeout (tc_tshark, 120);
  tcase_add_test (tc_tshark, test_tshark_dissection);
  return s;
}

GST_CHECK_MAIN (rtpcc_srtp);

/* Fuzz target: SRTP/SRTCP unprotect (srtp.h), the path every datagram from
 * the network takes once the elements protect the transport pair.
 *
 * Input: one selector byte (low bits: the suite, modulo the number of
 * suites; 0x80: RTCP rather than RTP), then the packet, given to an
 * inbound context with a fixed key. Whatever the bytes, the result is one
 * of the documented codes. A packet that verifies (only the seeds can: the
 * fuzzer does not know the key) decrypts to something that, protected
 * again from a fresh outbound context, gives back the input exactly, and is
 * a replay the second time.
 *
 * Contexts are reused across inputs: libsrtp (with its NSS backend) takes
 * milliseconds to make one. An inbound context changes only when a packet
 * verifies, and is then replaced, so every input meets a fresh one and a
 * crash replays alone. The same bytes, taken as a clear packet, are also
 * protected by a long-lived outbound context (allow_repeat_tx, replaced
 * every few thousand inputs to bound its per-SSRC state): the checks there
 * hold whatever came before.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <rtpcc/srtp.h>
#include <string.h>

static const guint8 *
fixed_key (RtpccSrtpSuite suite)
{
  static guint8 key[RTPCC_SRTP_MAX_KEY_LEN];

  for (gsize i = 0; i < sizeof (key); i++)
    key[i] = (guint8) (0xA5 ^ (i * 11) ^ suite);
  return key;
}

static RtpccSrtp *
make (RtpccSrtpSuite suite, RtpccSrtpDirection dir, gboolean repeat)
{
  RtpccSrtpConfig cfg;
  RtpccSrtp *s;

  rtpcc_srtp_config_init (&cfg);
  cfg.suite = suite;
  cfg.direction = dir;
  cfg.allow_repeat_tx = repeat;
  s = rtpcc_srtp_new (&cfg, fixed_key (suite),
      rtpcc_srtp_suite_key_len (suite), NULL);
  FUZZ_CHECK (s != NULL);
  return s;
}

#define OUTBOUND_RENEW 4096

static RtpccSrtp *inbound[RTPCC_SRTP_N_SUITES];
static RtpccSrtp *outbound[RTPCC_SRTP_N_SUITES];
static guint outbound_uses[RTPCC_SRTP_N_SUITES];

static RtpccSrtpResult
do_protect (RtpccSrtp * s, gboolean rtcp, guint8 * p, gsize len, gsize cap,
    gsize * n)
{
  return rtcp ? rtpcc_srtp_protect_rtcp (s, p, len, cap, n) :
      rtpcc_srtp_protect_rtp (s, p, len, cap, n);
}

static RtpccSrtpResult
do_unprotect (RtpccSrtp * s, gboolean rtcp, guint8 * p, gsize len, gsize * n)
{
  return rtcp ? rtpcc_srtp_unprotect_rtcp (s, p, len, n) :
      rtpcc_srtp_unprotect_rtp (s, p, len, n);
}

static void
check_unprotect (RtpccSrtpSuite suite, gboolean rtcp, const guint8 * data,
    gsize len)
{
  RtpccSrtp *in;
  gsize ov = rtcp ? rtpcc_srtp_suite_rtcp_overhead (suite) :
      rtpcc_srtp_suite_rtp_overhead (suite);
  /* exactly @len bytes, so that ASan sees any access past them */
  guint8 *p = g_malloc (MAX (len, 1));
  gsize n = 0;
  RtpccSrtpResult r;
  RtpccSrtpStats before, after;

  if (inbound[suite] == NULL)
    inbound[suite] = make (suite, RTPCC_SRTP_INBOUND, FALSE);
  in = inbound[suite];
  rtpcc_srtp_get_stats (in, &before);
  memcpy (p, data, len);
  r = do_unprotect (in, rtcp, p, len, &n);
  /* a fresh context has no replay state yet */
  FUZZ_CHECK (r == RTPCC_SRTP_OK || r == RTPCC_SRTP_AUTH_FAIL
      || r == RTPCC_SRTP_MALFORMED);
  rtpcc_srtp_get_stats (in, &after);
  FUZZ_CHECK (after.auth_fail - before.auth_fail == (r ==
          RTPCC_SRTP_AUTH_FAIL));
  FUZZ_CHECK (after.malformed - before.malformed == (r ==
          RTPCC_SRTP_MALFORMED));
  if (r == RTPCC_SRTP_OK) {
    RtpccSrtp *out = make (suite, RTPCC_SRTP_OUTBOUND, FALSE);
    guint8 *q;
    gsize m = 0;

    FUZZ_CHECK (n + ov == len);
    FUZZ_CHECK (n >= (rtcp ? 8u : 12u));
    /* protected again: the input, byte for byte */
    q = g_malloc (len);
    memcpy (q, p, n);
    FUZZ_CHECK (do_protect (out, rtcp, q, n, len, &m) == RTPCC_SRTP_OK);
    FUZZ_CHECK (m == len && memcmp (q, data, len) == 0);
    g_free (q);
    rtpcc_srtp_free (out);
    /* and a second delivery is a replay */
    memcpy (p, data, len);
    FUZZ_CHECK (do_unprotect (in, rtcp, p, len, &m) == RTPCC_SRTP_REPLAY);
    /* the next input meets a context that has seen nothing */
    rtpcc_srtp_free (in);
    inbound[suite] = NULL;
  }
  g_free (p);
}

static void
check_protect (RtpccSrtpSuite suite, gboolean rtcp, const guint8 * data,
    gsize len)
{
  RtpccSrtp *out;
  gsize ov = rtcp ? rtpcc_srtp_suite_rtcp_overhead (suite) :
      rtpcc_srtp_suite_rtp_overhead (suite);
  guint8 *p = g_malloc (len + ov);
  gsize n = 0;
  RtpccSrtpResult r;

  if (outbound[suite] == NULL || ++outbound_uses[suite] > OUTBOUND_RENEW) {
    rtpcc_srtp_free (outbound[suite]);
    outbound[suite] = make (suite, RTPCC_SRTP_OUTBOUND, TRUE);
    outbound_uses[suite] = 0;
  }
  out = outbound[suite];
  memcpy (p, data, len);
  /* one byte short: refused, untouched */
  r = do_protect (out, rtcp, p, len, len + ov - 1, &n);
  FUZZ_CHECK (r == RTPCC_SRTP_NO_SPACE || r == RTPCC_SRTP_MALFORMED);
  FUZZ_CHECK (memcmp (p, data, len) == 0);
  /* exactly enough room (ASan watches the end): the header stays in
   * clear; or refused, untouched (a replay: an index far behind the one
   * this context already used for that SSRC) */
  r = do_protect (out, rtcp, p, len, len + ov, &n);
  FUZZ_CHECK (r == RTPCC_SRTP_OK || r == RTPCC_SRTP_MALFORMED
      || r == RTPCC_SRTP_REPLAY);
  if (r == RTPCC_SRTP_OK) {
    FUZZ_CHECK (n == len + ov);
    FUZZ_CHECK (memcmp (p, data, rtcp ? 8 : 12) == 0);
  } else {
    FUZZ_CHECK (memcmp (p, data, len) == 0);
  }
  g_free (p);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtpccSrtpSuite suite;
  gboolean rtcp;

  if (size < 1)
    return 0;
  suite = (RtpccSrtpSuite) ((data[0] & 0x7f) % RTPCC_SRTP_N_SUITES);
  rtcp = (data[0] & 0x80) != 0;
  check_unprotect (suite, rtcp, data + 1, size - 1);
  check_protect (suite, rtcp, data + 1, size - 1);
  return 0;
}

/* A selector byte and @pkt protected by a fresh outbound context. */
static void
add_protected (GPtrArray * seeds, RtpccSrtpSuite suite, gboolean rtcp,
    const guint8 * pkt, gsize len)
{
  RtpccSrtp *out = make (suite, RTPCC_SRTP_OUTBOUND, FALSE);
  guint8 buf[1 + 600];
  gsize n = 0;

  FUZZ_CHECK (len + RTPCC_SRTP_MAX_RTCP_OVERHEAD < sizeof (buf));
  buf[0] = (guint8) (suite | (rtcp ? 0x80 : 0));
  memcpy (buf + 1, pkt, len);
  FUZZ_CHECK (do_protect (out, rtcp, buf + 1, len, sizeof (buf) - 1,
          &n) == RTPCC_SRTP_OK);
  g_ptr_array_add (seeds, g_bytes_new (buf, 1 + n));
  rtpcc_srtp_free (out);
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  static const guint8 rtp_plain[] = {
    0x80, 0xE0, 0x12, 0x34, 0x00, 0x01, 0x5F, 0x90, 0x11, 0x22, 0x33, 0x44,
    'p', 'a', 'y', 'l', 'o', 'a', 'd', '!',
  };
  /* one CSRC, a one-byte extension (transport-wide seq, ID 3), RTP
   * padding */
  static const guint8 rtp_full[] = {
    0xB1, 0x60, 0xFF, 0xFE, 0x00, 0x00, 0x00, 0x5A, 0x11, 0x22, 0x33, 0x44,
    0xC5, 0xC5, 0xC5, 0xC5, 0xBE, 0xDE, 0x00, 0x01, 0x31, 0x00, 0x07, 0x00,
    0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0x00, 0x00, 0x04,
  };
  RtpccRtcpRR rr = { 0 };
  RtpccRtcpSR sr = { 0 };
  RtpccCcfbMetric m[3] = { {0, TRUE, 0, 5}, {0, FALSE, 0, 0}, {0, TRUE, 2,
      9}
  };
  RtpccCcfbBlockIn block = { 0x11223344, 0x1234, 3, m };
  guint8 rr_ccfb[256], sr_sdes[256], lone[64];
  gsize n_rr, n_sr, n_lone;

  rr.ssrc = 0x55667788;
  rr.n_blocks = 1;
  rr.blocks[0].ssrc = 0x11223344;
  rr.blocks[0].ext_highest_seq = 0x1236;
  n_rr = rtpcc_rtcp_write_rr (rr_ccfb, sizeof (rr_ccfb), &rr);
  n_rr += rtpcc_rtcp_write_sdes_cname (rr_ccfb + n_rr,
      sizeof (rr_ccfb) - n_rr, 0x55667788, "fuzz@rtpcc.invalid");
  n_rr += rtpcc_ccfb_write (rr_ccfb + n_rr, sizeof (rr_ccfb) - n_rr,
      0x55667788, 0x00010000, &block, 1);
  sr.ssrc = 0x11223344;
  sr.ntp = G_GUINT64_CONSTANT (0xE000000012345678);
  sr.packet_count = 100;
  n_sr = rtpcc_rtcp_write_sr (sr_sdes, sizeof (sr_sdes), &sr);
  n_sr += rtpcc_rtcp_write_sdes_cname (sr_sdes + n_sr,
      sizeof (sr_sdes) - n_sr, 0x11223344, "fuzz@rtpcc.invalid");
  n_lone = rtpcc_ccfb_write (lone, sizeof (lone), 0x55667788, 0x00020000,
      &block, 1);

  for (guint s = 0; s < RTPCC_SRTP_N_SUITES; s++) {
    add_protected (seeds, s, FALSE, rtp_plain, sizeof (rtp_plain));
    add_protected (seeds, s, FALSE, rtp_full, sizeof (rtp_full));
    add_protected (seeds, s, TRUE, rr_ccfb, n_rr);
    add_protected (seeds, s, TRUE, sr_sdes, n_sr);
    add_protected (seeds, s, TRUE, lone, n_lone);
  }
}

/* SRTP/SRTCP with a pre-shared master key over libsrtp2.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "srtp.h"

#include <srtp2/srtp.h>
#include <string.h>

typedef struct
{
  const gchar *name;
  gsize key_len;                /* master key + salt */
  gsize rtp_tag;
  gsize rtcp_tag;
} SuiteInfo;

/* The SRTCP trailer before the tag: E flag + 31-bit SRTCP index. */
#define SRTCP_INDEX_LEN 4

static const SuiteInfo suites[RTPCC_SRTP_N_SUITES] = {
  [RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80] = {"AES_CM_128_HMAC_SHA1_80", 30, 10,
      10},
  [RTPCC_SRTP_AES_CM_128_HMAC_SHA1_32] = {"AES_CM_128_HMAC_SHA1_32", 30, 4,
      10},
  [RTPCC_SRTP_AES_256_CM_HMAC_SHA1_80] = {"AES_256_CM_HMAC_SHA1_80", 46, 10,
      10},
  [RTPCC_SRTP_AES_256_CM_HMAC_SHA1_32] = {"AES_256_CM_HMAC_SHA1_32", 46, 4,
      10},
  [RTPCC_SRTP_AEAD_AES_128_GCM] = {"AEAD_AES_128_GCM", 28, 16, 16},
  [RTPCC_SRTP_AEAD_AES_256_GCM] = {"AEAD_AES_256_GCM", 44, 16, 16},
};

G_STATIC_ASSERT (G_N_ELEMENTS (suites) == RTPCC_SRTP_N_SUITES);
G_STATIC_ASSERT (RTPCC_SRTP_MAX_RTP_OVERHEAD == 16);
G_STATIC_ASSERT (RTPCC_SRTP_MAX_RTCP_OVERHEAD == 16 + SRTCP_INDEX_LEN);

struct _RtpccSrtp
{
  srtp_t session;
  RtpccSrtpSuite suite;
  RtpccSrtpDirection direction;
  RtpccSrtpStats stats;
};

static gboolean
suite_valid (RtpccSrtpSuite suite)
{
  return (guint) suite < RTPCC_SRTP_N_SUITES;
}

const gchar *
rtpcc_srtp_suite_name (RtpccSrtpSuite suite)
{
  return suite_valid (suite) ? suites[suite].name : NULL;
}

gsize
rtpcc_srtp_suite_key_len (RtpccSrtpSuite suite)
{
  return suite_valid (suite) ? suites[suite].key_len : 0;
}

gsize
rtpcc_srtp_suite_rtp_overhead (RtpccSrtpSuite suite)
{
  return suite_valid (suite) ? suites[suite].rtp_tag : 0;
}

gsize
rtpcc_srtp_suite_rtcp_overhead (RtpccSrtpSuite suite)
{
  return suite_valid (suite) ? SRTCP_INDEX_LEN + suites[suite].rtcp_tag : 0;
}

const gchar *
rtpcc_srtp_result_name (RtpccSrtpResult result)
{
  static const gchar *const names[RTPCC_SRTP_N_RESULTS] = {
    [RTPCC_SRTP_OK] = "ok",
    [RTPCC_SRTP_AUTH_FAIL] = "auth-fail",
    [RTPCC_SRTP_REPLAY] = "replay",
    [RTPCC_SRTP_MALFORMED] = "malformed",
    [RTPCC_SRTP_NO_SPACE] = "no-space",
    [RTPCC_SRTP_ERROR] = "error",
  };
  return (guint) result < RTPCC_SRTP_N_RESULTS ? names[result] : "invalid";
}

/* ---- key --------------------------------------------------------------- */

/* A parsed key, zeroed when its GBytes goes. */
typedef struct
{
  gsize len;
  guint8 data[];
} KeyBlock;

static void
key_block_free (gpointer data)
{
  KeyBlock *block = data;

  explicit_bzero (block->data, block->len);
  g_free (block);
}

GBytes *
rtpcc_srtp_key_from_hex (const gchar * hex, RtpccSrtpSuite suite,
    GError ** error)
{
  gsize n_digits, want, len;
  KeyBlock *block;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!suite_valid (suite)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "SRTP suite %d out of range", (gint) suite);
    return NULL;
  }
  want = suites[suite].key_len;
  if (hex == NULL)
    hex = "";
  n_digits = strlen (hex);
  for (gsize i = 0; i < n_digits; i++) {
    if (!g_ascii_isxdigit (hex[i])) {
      /* the offending character is not named: it may be part of a key */
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "SRTP key: character %" G_GSIZE_FORMAT " is not a hex digit "
          "(the key is %" G_GSIZE_FORMAT " bytes written as %" G_GSIZE_FORMAT
          " hex digits, no separators)", i + 1, want, 2 * want);
      return NULL;
    }
  }
  if (n_digits % 2) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "SRTP key: odd number of hex digits (%" G_GSIZE_FORMAT ")",
        n_digits);
    return NULL;
  }
  len = n_digits / 2;
  if (len != want) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "SRTP key for %s must be %" G_GSIZE_FORMAT " bytes (%" G_GSIZE_FORMAT
        " hex digits: master key and master salt), got %" G_GSIZE_FORMAT,
        suites[suite].name, want, 2 * want, len);
    return NULL;
  }

  block = g_malloc (sizeof (KeyBlock) + len);
  block->len = len;
  for (gsize i = 0; i < len; i++)
    block->data[i] = (guint8) ((g_ascii_xdigit_value (hex[2 * i]) << 4) |
        g_ascii_xdigit_value (hex[2 * i + 1]));
  return g_bytes_new_with_free_func (block->data, len, key_block_free, block);
}

/* ---- context ----------------------------------------------------------- */

void
rtpcc_srtp_config_init (RtpccSrtpConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->suite = RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80;
  config->direction = RTPCC_SRTP_OUTBOUND;
  config->replay_window = 128;
  config->allow_repeat_tx = FALSE;
}

/* libsrtp wants srtp_init() once per process. A second call (GStreamer's
 * srtp plugin makes its own, unconditionally, when it loads) re-runs the
 * self-tests and then fails with bad_param because its debug module is
 * already registered: the library is initialised all the same. g_once
 * orders our callers; the plugin's call is outside our reach, so the two
 * can still race if that plugin loads while our first context is made. */
static srtp_err_status_t
ensure_init (void)
{
  static gsize once = 0;
  static srtp_err_status_t status;

  if (g_once_init_enter (&once)) {
    status = srtp_init ();
    if (status == srtp_err_status_bad_param)
      status = srtp_err_status_ok;
    g_once_init_leave (&once, 1);
  }
  return status;
}

static void
set_policy (RtpccSrtpSuite suite, srtp_crypto_policy_t * rtp,
    srtp_crypto_policy_t * rtcp)
{
  switch (suite) {
    case RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80:
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80 (rtp);
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80 (rtcp);
      break;
    case RTPCC_SRTP_AES_CM_128_HMAC_SHA1_32:
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32 (rtp);
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80 (rtcp);
      break;
    case RTPCC_SRTP_AES_256_CM_HMAC_SHA1_80:
      srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80 (rtp);
      srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80 (rtcp);
      break;
    case RTPCC_SRTP_AES_256_CM_HMAC_SHA1_32:
      srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32 (rtp);
      srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80 (rtcp);
      break;
    case RTPCC_SRTP_AEAD_AES_128_GCM:
      srtp_crypto_policy_set_aes_gcm_128_16_auth (rtp);
      srtp_crypto_policy_set_aes_gcm_128_16_auth (rtcp);
      break;
    case RTPCC_SRTP_AEAD_AES_256_GCM:
      srtp_crypto_policy_set_aes_gcm_256_16_auth (rtp);
      srtp_crypto_policy_set_aes_gcm_256_16_auth (rtcp);
      break;
  }
}

RtpccSrtp *
rtpcc_srtp_new (const RtpccSrtpConfig * config, const guint8 * key,
    gsize key_len, GError ** error)
{
  srtp_policy_t policy;
  guint8 key_copy[RTPCC_SRTP_MAX_KEY_LEN];
  srtp_err_status_t status;
  RtpccSrtp *self;

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!suite_valid (config->suite)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "SRTP suite %d out of range", (gint) config->suite);
    return NULL;
  }
  if (config->direction != RTPCC_SRTP_OUTBOUND
      && config->direction != RTPCC_SRTP_INBOUND) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "SRTP direction %d out of range", (gint) config->direction);
    return NULL;
  }
  if (key == NULL || key_len != suites[config->suite].key_len) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "SRTP key for %s must be %" G_GSIZE_FORMAT " bytes (master key and "
        "master salt), got %" G_GSIZE_FORMAT, suites[config->suite].name,
        suites[config->suite].key_len, key ? key_len : 0);
    return NULL;
  }
  if (config->replay_window < RTPCC_SRTP_REPLAY_WINDOW_MIN
      || config->replay_window > RTPCC_SRTP_REPLAY_WINDOW_MAX) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "SRTP replay window %u outside %d..%d packets",
        config->replay_window, RTPCC_SRTP_REPLAY_WINDOW_MIN,
        RTPCC_SRTP_REPLAY_WINDOW_MAX);
    return NULL;
  }
  status = ensure_init ();
  if (status != srtp_err_status_ok) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_IO,
        "libsrtp initialisation failed (error %d)", (gint) status);
    return NULL;
  }

  memset (&policy, 0, sizeof (policy));
  set_policy (config->suite, &policy.rtp, &policy.rtcp);
  policy.ssrc.type = config->direction == RTPCC_SRTP_OUTBOUND ?
      ssrc_any_outbound : ssrc_any_inbound;
  /* libsrtp's field is not const; it only reads the key (and derives the
   * session keys from it), so it gets a copy we wipe */
  memcpy (key_copy, key, key_len);
  policy.key = key_copy;
  policy.window_size = config->replay_window;
  policy.allow_repeat_tx = config->allow_repeat_tx ? 1 : 0;
  policy.next = NULL;

  self = g_new0 (RtpccSrtp, 1);
  self->suite = config->suite;
  self->direction = config->direction;
  status = srtp_create (&self->session, &policy);
  explicit_bzero (key_copy, sizeof (key_copy));
  if (status != srtp_err_status_ok) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "libsrtp refused the %s policy (error %d)",
        suites[config->suite].name, (gint) status);
    g_free (self);
    return NULL;
  }
  return self;
}

void
rtpcc_srtp_free (RtpccSrtp * srtp)
{
  if (srtp == NULL)
    return;
  /* libsrtp zeroes the session keys as it frees them */
  srtp_dealloc (srtp->session);
  g_free (srtp);
}

RtpccSrtpSuite
rtpcc_srtp_get_suite (const RtpccSrtp * srtp)
{
  return srtp->suite;
}

RtpccSrtpDirection
rtpcc_srtp_get_direction (const RtpccSrtp * srtp)
{
  return srtp->direction;
}

void
rtpcc_srtp_get_stats (const RtpccSrtp * srtp, RtpccSrtpStats * stats)
{
  *stats = srtp->stats;
}

/* ---- packets ----------------------------------------------------------- */

/* The RTP header's length (fixed part, CSRCs, extension), or 0 if it is not
 * version 2 or runs past @len. Unlike rtpcc_rtp_parse_layout() the padding
 * is not looked at: in SRTP the padding count is encrypted. */
static gsize
rtp_header_len (const guint8 * pkt, gsize len)
{
  gsize h;

  if (len < 12 || (pkt[0] >> 6) != 2)
    return 0;
  h = 12 + 4 * (gsize) (pkt[0] & 0x0f);
  if (pkt[0] & 0x10) {
    if (len < h + 4)
      return 0;
    h += 4 + 4 * (gsize) ((pkt[h + 2] << 8) | pkt[h + 3]);
  }
  return h <= len ? h : 0;
}

static gboolean
rtcp_header_ok (const guint8 * pkt, gsize len)
{
  return len >= 8 && (pkt[0] >> 6) == 2;
}

static RtpccSrtpResult
result_of (srtp_err_status_t status)
{
  switch (status) {
    case srtp_err_status_ok:
      return RTPCC_SRTP_OK;
    case srtp_err_status_auth_fail:
      /* an SRTCP E flag that contradicts the suite: cleared on a compound
       * that should be encrypted, or set on one that should not — only
       * a forgery or corruption gets there */
    case srtp_err_status_cant_check:
      return RTPCC_SRTP_AUTH_FAIL;
    case srtp_err_status_replay_fail:
    case srtp_err_status_replay_old:
      return RTPCC_SRTP_REPLAY;
    case srtp_err_status_bad_param:
    case srtp_err_status_parse_err:
      return RTPCC_SRTP_MALFORMED;
    default:
      return RTPCC_SRTP_ERROR;
  }
}

static RtpccSrtpResult
count (RtpccSrtp * srtp, RtpccSrtpResult r, gboolean rtcp)
{
  switch (r) {
    case RTPCC_SRTP_OK:
      if (rtcp)
        srtp->stats.rtcp_ok++;
      else
        srtp->stats.rtp_ok++;
      break;
    case RTPCC_SRTP_AUTH_FAIL:
      srtp->stats.auth_fail++;
      break;
    case RTPCC_SRTP_REPLAY:
      srtp->stats.replay++;
      break;
    case RTPCC_SRTP_MALFORMED:
      srtp->stats.malformed++;
      break;
    case RTPCC_SRTP_NO_SPACE:
      srtp->stats.no_space++;
      break;
    case RTPCC_SRTP_ERROR:
      srtp->stats.errors++;
      break;
  }
  return r;
}

/* libsrtp's protect functions document that they may write up to
 * SRTP_MAX_TRAILER_LEN (+4) bytes past the packet; libsrtp 2 in fact
 * writes the tag (and SRTCP's index) only, which is what @capacity is
 * checked against. The tests run every suite on buffers of exactly that
 * size under AddressSanitizer. */
static RtpccSrtpResult
protect (RtpccSrtp * srtp, gboolean rtcp, guint8 * pkt, gsize len,
    gsize capacity, gsize * out_len)
{
  gsize overhead;
  srtp_err_status_t status;
  int n;

  g_return_val_if_fail (srtp != NULL, RTPCC_SRTP_ERROR);
  g_return_val_if_fail (srtp->direction == RTPCC_SRTP_OUTBOUND,
      RTPCC_SRTP_ERROR);
  g_return_val_if_fail (pkt != NULL || len == 0, RTPCC_SRTP_ERROR);
  g_return_val_if_fail (out_len != NULL, RTPCC_SRTP_ERROR);

  if (rtcp ? !rtcp_header_ok (pkt, len) : rtp_header_len (pkt, len) == 0)
    return count (srtp, RTPCC_SRTP_MALFORMED, rtcp);
  overhead = rtcp ? rtpcc_srtp_suite_rtcp_overhead (srtp->suite) :
      rtpcc_srtp_suite_rtp_overhead (srtp->suite);
  if (capacity < len || capacity - len < overhead)
    return count (srtp, RTPCC_SRTP_NO_SPACE, rtcp);
  if (len + overhead > G_MAXINT)
    return count (srtp, RTPCC_SRTP_MALFORMED, rtcp);

  n = (int) len;
  status = rtcp ? srtp_protect_rtcp (srtp->session, pkt, &n) :
      srtp_protect (srtp->session, pkt, &n);
  if (status != srtp_err_status_ok)
    return count (srtp, result_of (status), rtcp);
  if ((gsize) n != len + overhead) {
    /* not the libsrtp this was written for: the bytes past @capacity may
     * have been written */
    g_critical ("libsrtp added %d bytes, expected %" G_GSIZE_FORMAT,
        n - (int) len, overhead);
    return count (srtp, RTPCC_SRTP_ERROR, rtcp);
  }
  *out_len = (gsize) n;
  return count (srtp, RTPCC_SRTP_OK, rtcp);
}

static RtpccSrtpResult
unprotect (RtpccSrtp * srtp, gboolean rtcp, guint8 * pkt, gsize len,
    gsize * out_len)
{
  srtp_err_status_t status;
  gsize min;
  int n;

  g_return_val_if_fail (srtp != NULL, RTPCC_SRTP_ERROR);
  g_return_val_if_fail (srtp->direction == RTPCC_SRTP_INBOUND,
      RTPCC_SRTP_ERROR);
  g_return_val_if_fail (pkt != NULL || len == 0, RTPCC_SRTP_ERROR);
  g_return_val_if_fail (out_len != NULL, RTPCC_SRTP_ERROR);

  /* libsrtp checks most of this too; checking here first keeps garbage
   * (and anything its checks might miss) away from it */
  if (rtcp) {
    if (!rtcp_header_ok (pkt, len))
      return count (srtp, RTPCC_SRTP_MALFORMED, rtcp);
    min = 8 + rtpcc_srtp_suite_rtcp_overhead (srtp->suite);
  } else {
    gsize h = rtp_header_len (pkt, len);
    if (h == 0)
      return count (srtp, RTPCC_SRTP_MALFORMED, rtcp);
    min = h + rtpcc_srtp_suite_rtp_overhead (srtp->suite);
  }
  if (len < min || len > G_MAXINT)
    return count (srtp, RTPCC_SRTP_MALFORMED, rtcp);

  n = (int) len;
  status = rtcp ? srtp_unprotect_rtcp (srtp->session, pkt, &n) :
      srtp_unprotect (srtp->session, pkt, &n);
  if (status != srtp_err_status_ok)
    return count (srtp, result_of (status), rtcp);
  if (n < 0 || (gsize) n >= len)
    return count (srtp, RTPCC_SRTP_ERROR, rtcp);
  *out_len = (gsize) n;
  return count (srtp, RTPCC_SRTP_OK, rtcp);
}

RtpccSrtpResult
rtpcc_srtp_protect_rtp (RtpccSrtp * srtp, guint8 * pkt, gsize len,
    gsize capacity, gsize * out_len)
{
  return protect (srtp, FALSE, pkt, len, capacity, out_len);
}

RtpccSrtpResult
rtpcc_srtp_protect_rtcp (RtpccSrtp * srtp, guint8 * pkt, gsize len,
    gsize capacity, gsize * out_len)
{
  return protect (srtp, TRUE, pkt, len, capacity, out_len);
}

RtpccSrtpResult
rtpcc_srtp_unprotect_rtp (RtpccSrtp * srtp, guint8 * pkt, gsize len,
    gsize * out_len)
{
  return unprotect (srtp, FALSE, pkt, len, out_len);
}

RtpccSrtpResult
rtpcc_srtp_unprotect_rtcp (RtpccSrtp * srtp, guint8 * pkt, gsize len,
    gsize * out_len)
{
  return unprotect (srtp, TRUE, pkt, len, out_len);
}

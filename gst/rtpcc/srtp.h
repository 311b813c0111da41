/* SRTP and SRTCP (RFC 3711) with a pre-shared master key, sans I/O: a thin
 * wrapper over libsrtp2, the library GStreamer's srtpenc/srtpdec use.
 *
 * One RtpccSrtp protects (outbound) or verifies (inbound) every packet of
 * one direction of a transport pair, RTP and RTCP alike, whatever its SSRC:
 * libsrtp's ssrc_any_outbound / ssrc_any_inbound policies, one master key
 * for all streams, as srtpenc does and as srtpdec does when it is given a
 * single key. The cryptographic state (rollover counter, replay window,
 * SRTCP index) is kept per SSRC; an inbound stream is created only for a
 * packet that authenticated, so forged SSRCs cost no memory.
 *
 * Everything is in place on a byte array: no clock (SRTP has no time
 * input), no socket, no thread, no GstBuffer. A context is not thread-safe;
 * its caller serialises calls (the elements hold their lock).
 *
 * Key. The master key and the master salt, concatenated, as srtpenc's
 * "key" property and SDES (RFC 4568 "inline:") carry them:
 *
 *   suite                     key + salt    RTP tag  SRTCP tag   RFC
 *   AES_CM_128_HMAC_SHA1_80   16 + 14 = 30     10       10      3711
 *   AES_CM_128_HMAC_SHA1_32   16 + 14 = 30      4       10      3711, 4568
 *   AES_256_CM_HMAC_SHA1_80   32 + 14 = 46     10       10      6188
 *   AES_256_CM_HMAC_SHA1_32   32 + 14 = 46      4       10      6188
 *   AEAD_AES_128_GCM          16 + 12 = 28     16       16      7714
 *   AEAD_AES_256_GCM          32 + 12 = 44     16       16      7714
 *
 * The _32 suites shorten only the SRTP tag: SRTCP keeps 80 bits (RFC 3711
 * §7.5 advises against short RTCP tags; RFC 5764 §4.1.2 and srtpenc's
 * default rtcp-auth do the same). SRTCP also adds 4 bytes, the E flag and
 * the SRTCP index: before the tag with HMAC-SHA1 (RFC 3711 §3.4), after it
 * with AES-GCM (RFC 7714 §9.2).
 *
 * Each endpoint's SSRCs must differ from the peer's: one master key
 * protecting two streams with the same SSRC reuses keystream (RFC 3711
 * §9.1).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_SRTP_H__
#define __RTPCC_SRTP_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

typedef enum
{
  RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80 = 0,       /* the default */
  RTPCC_SRTP_AES_CM_128_HMAC_SHA1_32,
  RTPCC_SRTP_AES_256_CM_HMAC_SHA1_80,
  RTPCC_SRTP_AES_256_CM_HMAC_SHA1_32,
  RTPCC_SRTP_AEAD_AES_128_GCM,
  RTPCC_SRTP_AEAD_AES_256_GCM,
} RtpccSrtpSuite;

#define RTPCC_SRTP_N_SUITES 6

/* The largest key + salt of any suite, in bytes. */
#define RTPCC_SRTP_MAX_KEY_LEN 46

/* The most bytes protection adds to an RTP packet / an RTCP compound, over
 * all suites (the exact figure: rtpcc_srtp_suite_rtp_overhead() etc.). */
#define RTPCC_SRTP_MAX_RTP_OVERHEAD 16
#define RTPCC_SRTP_MAX_RTCP_OVERHEAD 20

/* The RFC name, e.g. "AES_CM_128_HMAC_SHA1_80"; NULL if out of range. */
const gchar *rtpcc_srtp_suite_name (RtpccSrtpSuite suite);
/* Master key + master salt, in bytes (the table above); 0 if out of range. */
gsize rtpcc_srtp_suite_key_len (RtpccSrtpSuite suite);
/* Bytes rtpcc_srtp_protect_rtp() / _rtcp() add with @suite. */
gsize rtpcc_srtp_suite_rtp_overhead (RtpccSrtpSuite suite);
gsize rtpcc_srtp_suite_rtcp_overhead (RtpccSrtpSuite suite);

/* Parses a key written as hex digits (either case, no separators: what
 * gst-launch-1.0 turns into srtpenc's "key" buffer, and what
 * `openssl rand -hex 30` prints), and checks its length against @suite.
 * Returns the key bytes (zeroed when the GBytes is freed), or NULL and
 * @error: RTPCC_ERROR_PARSE for a character that is not a hex digit or an
 * odd number of digits, RTPCC_ERROR_INVALID for the wrong length for
 * @suite. The messages never contain the key. */
GBytes *rtpcc_srtp_key_from_hex (const gchar * hex, RtpccSrtpSuite suite,
    GError ** error);

typedef enum
{
  RTPCC_SRTP_OUTBOUND = 0,      /* protect what we send */
  RTPCC_SRTP_INBOUND,           /* verify and decrypt what we receive */
} RtpccSrtpDirection;

/* Replay window bounds (packets per SSRC), those libsrtp accepts. */
#define RTPCC_SRTP_REPLAY_WINDOW_MIN 64
#define RTPCC_SRTP_REPLAY_WINDOW_MAX 32767

typedef struct
{
  RtpccSrtpSuite suite;         /* default AES_CM_128_HMAC_SHA1_80 */
  RtpccSrtpDirection direction; /* default outbound */
  /* Inbound SRTP: how far behind the highest index a packet may arrive
   * and still be accepted, once (srtpenc's replay-window-size). Default
   * 128. SRTCP's window is libsrtp's fixed 128. */
  guint replay_window;
  /* Outbound: allow protecting the same (SSRC, seq) twice, as srtpenc's
   * allow-repeat-tx. Only safe if the payload is identical (the same
   * keystream encrypts it); off by default, a repeat is then refused as
   * RTPCC_SRTP_REPLAY. */
  gboolean allow_repeat_tx;
} RtpccSrtpConfig;

void rtpcc_srtp_config_init (RtpccSrtpConfig * config);

typedef enum
{
  RTPCC_SRTP_OK = 0,
  RTPCC_SRTP_AUTH_FAIL,         /* tag mismatch (forged, corrupted, wrong
                                 * key), or an SRTCP E flag that
                                 * contradicts the suite */
  RTPCC_SRTP_REPLAY,            /* index seen already, or behind the window */
  RTPCC_SRTP_MALFORMED,         /* not RTP/RTCP, or too short for the tag */
  RTPCC_SRTP_NO_SPACE,          /* protect: capacity < length + overhead */
  RTPCC_SRTP_ERROR,             /* anything else libsrtp reports (e.g. the
                                 * 2^48-packet key limit reached) */
} RtpccSrtpResult;

#define RTPCC_SRTP_N_RESULTS 6

/* "ok", "auth-fail", "replay", "malformed", "no-space", "error". */
const gchar *rtpcc_srtp_result_name (RtpccSrtpResult result);

/* Calls per outcome since the context was made. */
typedef struct
{
  guint64 rtp_ok, rtcp_ok;
  guint64 auth_fail, replay, malformed, no_space, errors;
} RtpccSrtpStats;

typedef struct _RtpccSrtp RtpccSrtp;

/* A context for @config with the master key + salt @key (@key_len bytes,
 * exactly rtpcc_srtp_suite_key_len()). NULL and @error
 * (RTPCC_ERROR_INVALID) for a wrong key length, a suite or direction out of
 * range, a replay window outside [MIN, MAX], or (RTPCC_ERROR_IO) if
 * libsrtp cannot be initialised. libsrtp's one-time srtp_init() is done
 * here, once per process, thread-safely. The key is not kept. */
RtpccSrtp *rtpcc_srtp_new (const RtpccSrtpConfig * config,
    const guint8 * key, gsize key_len, GError ** error);
void rtpcc_srtp_free (RtpccSrtp * srtp);

RtpccSrtpSuite rtpcc_srtp_get_suite (const RtpccSrtp * srtp);
RtpccSrtpDirection rtpcc_srtp_get_direction (const RtpccSrtp * srtp);
void rtpcc_srtp_get_stats (const RtpccSrtp * srtp, RtpccSrtpStats * stats);

/* Outbound. Protects in place the RTP packet / RTCP compound of @len bytes
 * at @pkt, which has room for @capacity bytes. RTPCC_SRTP_OK: *@out_len is
 * the protected length (@len + the suite's overhead). Otherwise *@out_len
 * is not set and, unless RTPCC_SRTP_ERROR, @pkt is unchanged:
 * RTPCC_SRTP_NO_SPACE if @capacity is
 * less than @len + overhead, RTPCC_SRTP_MALFORMED if @pkt is not RTP
 * version 2 with its CSRCs and extension inside @len (for RTCP: version 2,
 * at least 8 bytes), RTPCC_SRTP_REPLAY for a repeated (SSRC, seq) without
 * allow_repeat_tx. The header stays in clear; the payload (for RTCP:
 * everything after the first packet's SSRC) is encrypted. */
RtpccSrtpResult rtpcc_srtp_protect_rtp (RtpccSrtp * srtp, guint8 * pkt,
    gsize len, gsize capacity, gsize * out_len);
RtpccSrtpResult rtpcc_srtp_protect_rtcp (RtpccSrtp * srtp, guint8 * pkt,
    gsize len, gsize capacity, gsize * out_len);

/* Inbound. Verifies and decrypts in place the SRTP packet / SRTCP compound
 * of @len bytes at @pkt. RTPCC_SRTP_OK: *@out_len is the length of the
 * plain packet (tag and SRTCP trailer removed). Any other result: drop the
 * packet. *@out_len is then not set, and the bytes are not promised to be
 * intact: with the HMAC-SHA1 suites they are unchanged (the tag is checked
 * before anything is decrypted), with AES-GCM the crypto backend may have
 * decrypted in place before the tag check failed. A packet too short to
 * hold a header and the tag, or with CSRCs or an extension running past
 * it, is RTPCC_SRTP_MALFORMED without reaching libsrtp. */
RtpccSrtpResult rtpcc_srtp_unprotect_rtp (RtpccSrtp * srtp, guint8 * pkt,
    gsize len, gsize * out_len);
RtpccSrtpResult rtpcc_srtp_unprotect_rtcp (RtpccSrtp * srtp, guint8 * pkt,
    gsize len, gsize * out_len);

G_END_DECLS

#endif /* __RTPCC_SRTP_H__ */

/* SRTP for rtpccsink and rtpccsrc: the two properties they share and the
 * pair of contexts one element needs (gst/rtpcc/srtp.h does the work).
 *
 * Both ends are given the same pre-shared master key + salt ("srtp-key",
 * hex digits, as `openssl rand -hex 30` prints them and as srtpenc's "key"
 * property is written on a gst-launch line) and the same suite
 * ("srtp-suite"). Each element protects what it sends (media and SR on
 * the sink, feedback on the src) with an outbound context and verifies
 * what it receives with an inbound one. A packet that fails verification
 * (forged, corrupted, replayed, wrong key) is dropped before anything
 * looks at it, and counted in the element's stats:
 *
 *   srtp               TRUE when SRTP is on
 *   srtp-auth-failures received packets whose tag did not verify
 *   srtp-replays       received packets already seen (or too old)
 *   srtp-malformed     received packets too short or not RTP/RTCP
 *   srtp-protect-errors  outgoing packets that could not be protected
 *                      (not sent)
 *
 * An empty key (the default) is plain RTP/RTCP, as before.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RTPCC_SRTP_H__
#define __GST_RTPCC_SRTP_H__

#include <gst/gst.h>
#include <rtpcc/srtp.h>

G_BEGIN_DECLS

#define GST_TYPE_RTPCC_SRTP_SUITE (gst_rtpcc_srtp_suite_get_type ())
GType gst_rtpcc_srtp_suite_get_type (void);

#define GST_RTPCC_SRTP_DEFAULT_SUITE RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80

/* The largest packet the elements protect, and room for it protected. */
#define GST_RTPCC_SRTP_MAX_PACKET 65536
#define GST_RTPCC_SRTP_SCRATCH \
  (GST_RTPCC_SRTP_MAX_PACKET + RTPCC_SRTP_MAX_RTP_OVERHEAD)

typedef struct
{
  RtpccSrtp *out, *in;          /* both NULL: SRTP off */
  guint8 *scratch;              /* GST_RTPCC_SRTP_SCRATCH bytes, when on */
  gboolean enabled;             /* the last start turned it on */
  guint64 auth_fail, replay, malformed, protect_errors;
} GstRtpccSrtpPair;

/* Installs "srtp-key" (@key_prop) and "srtp-suite" (@suite_prop). */
void gst_rtpcc_srtp_install_properties (GObjectClass * klass,
    guint key_prop, guint suite_prop);

/* Replaces the key string in *@field with @value's (NULL: none),
 * overwriting the old one before it is freed. */
void gst_rtpcc_srtp_set_key (gchar ** field, const GValue * value);

/* Sets up @pair (zeroed, or stopped) for @key_hex (NULL or "": off) and
 * @suite; counters restart. FALSE and @error for a key that is not hex
 * or has the wrong length for the suite (the message never shows it). */
gboolean gst_rtpcc_srtp_pair_start (GstRtpccSrtpPair * pair,
    const gchar * key_hex, RtpccSrtpSuite suite, GError ** error);
/* Frees the contexts; the counters stay readable. */
void gst_rtpcc_srtp_pair_stop (GstRtpccSrtpPair * pair);

static inline gboolean
gst_rtpcc_srtp_pair_active (const GstRtpccSrtpPair * pair)
{
  return pair->out != NULL;
}

/* Bytes protection adds to an RTCP compound (0 when off): what the
 * caller leaves free when it builds one. */
gsize gst_rtpcc_srtp_pair_rtcp_overhead (const GstRtpccSrtpPair * pair);

/* Protects the @len bytes at @data (RTP, or an RTCP compound if @rtcp)
 * into the pair's scratch buffer; returns it, with *@out_len, or NULL if
 * the packet could not be protected (counted: do not send it). Only while
 * active. */
const guint8 *gst_rtpcc_srtp_pair_protect (GstRtpccSrtpPair * pair,
    gboolean rtcp, const guint8 * data, gsize len, gsize * out_len);
/* The same for a packet in two pieces (a header, then a payload). */
const guint8 *gst_rtpcc_srtp_pair_protect2 (GstRtpccSrtpPair * pair,
    gboolean rtcp, const guint8 * head, gsize head_len,
    const guint8 * tail, gsize tail_len, gsize * out_len);

/* Verifies and decrypts in place the received packet of *@len bytes at
 * @data (SRTCP if @rtcp); TRUE: *@len is the plain length; FALSE: drop it
 * (counted). Only while active. */
gboolean gst_rtpcc_srtp_pair_unprotect (GstRtpccSrtpPair * pair,
    gboolean rtcp, guint8 * data, gsize * len);

/* Adds the counters above to @s. */
void gst_rtpcc_srtp_pair_add_stats (const GstRtpccSrtpPair * pair,
    GstStructure * s);

G_END_DECLS

#endif

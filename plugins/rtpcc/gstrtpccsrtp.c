/* SRTP for rtpccsink and rtpccsrc (gstrtpccsrtp.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccsrtp.h"

#include <string.h>

GType
gst_rtpcc_srtp_suite_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {RTPCC_SRTP_AES_CM_128_HMAC_SHA1_80,
        "AES_CM_128_HMAC_SHA1_80 (RFC 3711; key + salt 30 bytes)",
        "aes-cm-128-hmac-sha1-80"},
    {RTPCC_SRTP_AES_CM_128_HMAC_SHA1_32,
        "AES_CM_128_HMAC_SHA1_32 (RFC 4568; 30 bytes; 80-bit SRTCP tag)",
        "aes-cm-128-hmac-sha1-32"},
    {RTPCC_SRTP_AES_256_CM_HMAC_SHA1_80,
        "AES_256_CM_HMAC_SHA1_80 (RFC 6188; 46 bytes)",
        "aes-256-cm-hmac-sha1-80"},
    {RTPCC_SRTP_AES_256_CM_HMAC_SHA1_32,
        "AES_256_CM_HMAC_SHA1_32 (RFC 6188; 46 bytes; 80-bit SRTCP tag)",
        "aes-256-cm-hmac-sha1-32"},
    {RTPCC_SRTP_AEAD_AES_128_GCM, "AEAD_AES_128_GCM (RFC 7714; 28 bytes)",
        "aead-aes-128-gcm"},
    {RTPCC_SRTP_AEAD_AES_256_GCM, "AEAD_AES_256_GCM (RFC 7714; 44 bytes)",
        "aead-aes-256-gcm"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstRtpccSrtpSuite", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_rtpcc_srtp_install_properties (GObjectClass * klass, guint key_prop,
    guint suite_prop)
{
  /**
   * srtp-key:
   *
   * The SRTP master key followed by the master salt, as hex digits (60 for
   * the AES-128 suites with HMAC-SHA1, 92 for AES-256, 56 and 88 for
   * AES-GCM: `openssl rand -hex 30` makes one for the default suite). The
   * same key on both ends protects media and feedback in both directions
   * (RFC 3711 SRTP and SRTCP); packets that do not verify are dropped and
   * counted in stats. Empty (the default): plain RTP and RTCP. Write-only,
   * so that it does not show in dumps of the element.
   */
  g_object_class_install_property (klass, key_prop,
      g_param_spec_string ("srtp-key", "SRTP key",
          "SRTP master key + master salt as hex digits (empty: no SRTP)",
          NULL, G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * srtp-suite:
   *
   * The SRTP protection profile (cipher and authentication) when srtp-key
   * is set; both ends must use the same.
   */
  g_object_class_install_property (klass, suite_prop,
      g_param_spec_enum ("srtp-suite", "SRTP suite",
          "SRTP cipher and authentication (with srtp-key)",
          GST_TYPE_RTPCC_SRTP_SUITE, GST_RTPCC_SRTP_DEFAULT_SUITE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
}

void
gst_rtpcc_srtp_set_key (gchar ** field, const GValue * value)
{
  const gchar *v = value ? g_value_get_string (value) : NULL;

  if (*field)
    memset (*field, 0, strlen (*field));
  g_free (*field);
  *field = v && *v ? g_strdup (v) : NULL;
}

gboolean
gst_rtpcc_srtp_pair_start (GstRtpccSrtpPair * p, const gchar * key_hex,
    RtpccSrtpSuite suite, GError ** error)
{
  RtpccSrtpConfig cfg;
  GBytes *key;
  const guint8 *k;
  gsize klen;

  gst_rtpcc_srtp_pair_stop (p);
  p->auth_fail = p->replay = p->malformed = p->protect_errors = 0;
  p->enabled = FALSE;
  if (!key_hex || !*key_hex)
    return TRUE;
  if (!(key = rtpcc_srtp_key_from_hex (key_hex, suite, error)))
    return FALSE;
  k = g_bytes_get_data (key, &klen);
  rtpcc_srtp_config_init (&cfg);
  cfg.suite = suite;
  cfg.direction = RTPCC_SRTP_OUTBOUND;
  p->out = rtpcc_srtp_new (&cfg, k, klen, error);
  cfg.direction = RTPCC_SRTP_INBOUND;
  p->in = p->out ? rtpcc_srtp_new (&cfg, k, klen, error) : NULL;
  g_bytes_unref (key);
  if (!p->in) {
    gst_rtpcc_srtp_pair_stop (p);
    return FALSE;
  }
  p->scratch = g_malloc (GST_RTPCC_SRTP_SCRATCH);
  p->enabled = TRUE;
  return TRUE;
}

void
gst_rtpcc_srtp_pair_stop (GstRtpccSrtpPair * p)
{
  g_clear_pointer (&p->out, rtpcc_srtp_free);
  g_clear_pointer (&p->in, rtpcc_srtp_free);
  g_clear_pointer (&p->scratch, g_free);
}

gsize
gst_rtpcc_srtp_pair_rtcp_overhead (const GstRtpccSrtpPair * p)
{
  return p->out ? rtpcc_srtp_suite_rtcp_overhead (rtpcc_srtp_get_suite
      (p->out)) : 0;
}

const guint8 *
gst_rtpcc_srtp_pair_protect2 (GstRtpccSrtpPair * p, gboolean rtcp,
    const guint8 * head, gsize head_len, const guint8 * tail, gsize tail_len,
    gsize * out_len)
{
  gsize len = head_len + tail_len;
  RtpccSrtpResult r;

  g_return_val_if_fail (p->out != NULL, NULL);
  if (len > GST_RTPCC_SRTP_MAX_PACKET) {
    p->protect_errors++;
    return NULL;
  }
  memcpy (p->scratch, head, head_len);
  if (tail_len)
    memcpy (p->scratch + head_len, tail, tail_len);
  r = rtcp ? rtpcc_srtp_protect_rtcp (p->out, p->scratch, len,
      GST_RTPCC_SRTP_SCRATCH, out_len) : rtpcc_srtp_protect_rtp (p->out,
      p->scratch, len, GST_RTPCC_SRTP_SCRATCH, out_len);
  if (r != RTPCC_SRTP_OK) {
    p->protect_errors++;
    return NULL;
  }
  return p->scratch;
}

const guint8 *
gst_rtpcc_srtp_pair_protect (GstRtpccSrtpPair * p, gboolean rtcp,
    const guint8 * data, gsize len, gsize * out_len)
{
  return gst_rtpcc_srtp_pair_protect2 (p, rtcp, data, len, NULL, 0, out_len);
}

gboolean
gst_rtpcc_srtp_pair_unprotect (GstRtpccSrtpPair * p, gboolean rtcp,
    guint8 * data, gsize * len)
{
  gsize out = 0;
  RtpccSrtpResult r;

  g_return_val_if_fail (p->in != NULL, FALSE);
  r = rtcp ? rtpcc_srtp_unprotect_rtcp (p->in, data, *len, &out) :
      rtpcc_srtp_unprotect_rtp (p->in, data, *len, &out);
  switch (r) {
    case RTPCC_SRTP_OK:
      *len = out;
      return TRUE;
    case RTPCC_SRTP_AUTH_FAIL:
      p->auth_fail++;
      break;
    case RTPCC_SRTP_REPLAY:
      p->replay++;
      break;
    default:
      /* (no-space and error cannot happen inbound but for a libsrtp
       * failure: a packet we could not use, like a malformed one) */
      p->malformed++;
      break;
  }
  return FALSE;
}

void
gst_rtpcc_srtp_pair_add_stats (const GstRtpccSrtpPair * p, GstStructure * s)
{
  gst_structure_set (s, "srtp", G_TYPE_BOOLEAN, p->enabled,
      "srtp-auth-failures", G_TYPE_UINT64, p->auth_fail,
      "srtp-replays", G_TYPE_UINT64, p->replay,
      "srtp-malformed", G_TYPE_UINT64, p->malformed,
      "srtp-protect-errors", G_TYPE_UINT64, p->protect_errors, NULL);
}

/* Shared helpers for the tests that check our packets against tshark's
 * dissection: pcap writing (raw IPv4 / UDP), running tshark, and the
 * checks every verbose dissection must pass.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tshark-util.h"

#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <rtpcc/rtpcc.h>
#include <string.h>

const gchar *const tshark_rtcp_opts[] = {
  "-d", "udp.port==" G_STRINGIFY (TSHARK_RTCP_PORT) ",rtcp",
  "-o", "rtcp.heuristic_rtcp:TRUE", NULL
};

/* Returns tshark's path, or NULL after saying that @test_name is skipped. */
gchar *
tshark_find (const gchar * test_name)
{
  gchar *tshark = g_find_program_in_path ("tshark");

  if (tshark == NULL)
    g_print ("SKIP %s: tshark not installed (apt-get install tshark)\n",
        test_name);
  return tshark;
}

/* A new pcap holding only its global header. */
GByteArray *
test_pcap_new (void)
{
  GByteArray *pcap = g_byte_array_new ();
  guint8 hdr[24];

  /* pcap global header: magic, v2.4, tz 0, sigfigs 0, snaplen, RAW IP */
  GST_WRITE_UINT32_LE (hdr, 0xa1b2c3d4);
  GST_WRITE_UINT16_LE (hdr + 4, 2);
  GST_WRITE_UINT16_LE (hdr + 6, 4);
  GST_WRITE_UINT32_LE (hdr + 8, 0);
  GST_WRITE_UINT32_LE (hdr + 12, 0);
  GST_WRITE_UINT32_LE (hdr + 16, 65535);
  GST_WRITE_UINT32_LE (hdr + 20, 101);
  g_byte_array_append (pcap, hdr, 24);
  return pcap;
}

/* IPv4 header checksum (RFC 791). */
static guint16
ip_checksum (const guint8 * h)
{
  guint32 sum = 0;
  for (int i = 0; i < 20; i += 2)
    sum += (h[i] << 8) | h[i + 1];
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  return (guint16) ~sum;
}

/* Appends a pcap record: raw IPv4 (LINKTYPE_RAW) / UDP 127.0.0.1:5004 →
 * 127.0.0.1:@port carrying @payload (UDP checksum 0: none). */
void
test_pcap_add (GByteArray * pcap, guint idx, guint16 port,
    const guint8 * payload, gsize len)
{
  guint8 rec[16], ip[28];
  guint32 total = 28 + len;

  memset (ip, 0, sizeof (ip));
  ip[0] = 0x45;
  ip[2] = total >> 8;
  ip[3] = total;
  ip[6] = 0x40;                 /* DF */
  ip[8] = 64;
  ip[9] = 17;
  ip[12] = ip[16] = 127;
  ip[15] = ip[19] = 1;
  ip[10] = ip_checksum (ip) >> 8;
  ip[11] = ip_checksum (ip) & 0xff;
  ip[20] = TSHARK_PCAP_SRC_PORT >> 8;
  ip[21] = TSHARK_PCAP_SRC_PORT & 0xff;
  ip[22] = port >> 8;
  ip[23] = port & 0xff;
  ip[24] = (8 + len) >> 8;
  ip[25] = (8 + len) & 0xff;

  /* record header, little-endian: ts_sec, ts_usec, incl_len, orig_len */
  GST_WRITE_UINT32_LE (rec, 1700000000 + idx);
  GST_WRITE_UINT32_LE (rec + 4, 0);
  GST_WRITE_UINT32_LE (rec + 8, total);
  GST_WRITE_UINT32_LE (rec + 12, total);
  g_byte_array_append (pcap, rec, 16);
  g_byte_array_append (pcap, ip, 28);
  g_byte_array_append (pcap, payload, len);
}

/* Writes @pcap (and drops it) as @name in a new temporary directory made
 * from @dir_tmpl, returned in @dir; returns the file's path. */
gchar *
test_pcap_save (GByteArray * pcap, const gchar * dir_tmpl, const gchar * name,
    gchar ** dir)
{
  gchar *file;

  *dir = g_dir_make_tmp (dir_tmpl, NULL);
  fail_unless (*dir != NULL);
  file = g_build_filename (*dir, name, NULL);
  fail_unless (g_file_set_contents (file, (const gchar *) pcap->data,
          pcap->len, NULL));
  g_byte_array_unref (pcap);
  return file;
}

/* Removes and frees what test_pcap_save() made. */
void
test_pcap_remove (gchar * file, gchar * dir)
{
  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
}

/* Runs `tshark -n -r @file @opts @extra` (both NULL-terminated, either may
 * be NULL), fails the test if it does not exit 0, returns its stdout. */
gchar *
tshark_run (const gchar * tshark, const gchar * file,
    const gchar * const *opts, const gchar ** extra)
{
  GPtrArray *argv = g_ptr_array_new ();
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  GError *error = NULL;

  g_ptr_array_add (argv, (gpointer) tshark);
  g_ptr_array_add (argv, (gpointer) "-n");
  g_ptr_array_add (argv, (gpointer) "-r");
  g_ptr_array_add (argv, (gpointer) file);
  for (; opts && *opts; opts++)
    g_ptr_array_add (argv, (gpointer) * opts);
  for (; extra && *extra; extra++)
    g_ptr_array_add (argv, (gpointer) * extra);
  g_ptr_array_add (argv, NULL);

  fail_unless (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error),
      "spawn: %s", error ? error->message : "");
  fail_unless (g_spawn_check_wait_status (status, NULL), "tshark failed: %s",
      err);
  g_free (err);
  g_ptr_array_free (argv, TRUE);
  return out;
}

/* The checks on a verbose (-V) dissection: no malformed packet, no
 * error-level expert info, every RTCP length check OK. */
void
tshark_assert_clean (const gchar * out)
{
  fail_if (strstr (out, "Malformed") != NULL, "%s", out);
  fail_if (strstr (out, "Expert Info (Error") != NULL, "%s", out);
  fail_if (strstr (out, "Incorrect RTCP packet length") != NULL, "%s", out);
}

/* tshark_assert_clean(), and no expert info of warning level either. */
void
tshark_assert_no_warnings (const gchar * out)
{
  tshark_assert_clean (out);
  fail_if (strstr (out, "Expert Info (Warning") != NULL, "%s", out);
}

/* Line i of @out (a -T fields dissection, one line per frame) must be
 * @want[i], for i < @n; a NULL @want[i] skips that line. */
void
tshark_assert_lines (const gchar * out, const gchar * const *want, guint n)
{
  gchar **lines = g_strsplit (out, "\n", -1);

  for (guint i = 0; i < n; i++) {
    fail_unless (lines[i] != NULL, "%u lines, want %u: %s", i, n, out);
    if (want[i])
      fail_unless_equals_string (lines[i], want[i]);
  }
  g_strfreev (lines);
}

/* Whether this tshark knows the display field @field. */
gboolean
tshark_has_field (const gchar * tshark, const gchar * field)
{
  const gchar *argv[] = { tshark, "-G", "fields", NULL };
  gchar *out = NULL, *needle;
  gboolean found;

  if (!g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
          NULL, NULL, &out, NULL, NULL, NULL))
    return FALSE;
  needle = g_strdup_printf ("\t%s\t", field);
  found = out && strstr (out, needle) != NULL;
  g_free (needle);
  g_free (out);
  return found;
}

/* Writes what opens a receiver's regular compound: an RR from @ssrc
 * without report blocks, then an SDES CNAME; returns its size. */
gsize
test_rtcp_rr_sdes (guint8 * buf, gsize max, guint32 ssrc)
{
  RtpccRtcpRR rr = { 0 };
  gsize n;

  rr.ssrc = ssrc;
  n = rtpcc_rtcp_write_rr (buf, max, &rr);
  fail_unless (n > 0);
  n += rtpcc_rtcp_write_sdes_cname (buf + n, max - n, ssrc,
      "rtpcc@example.org");
  fail_unless (n > 8);
  return n;
}

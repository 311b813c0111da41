/* Shared helpers for the tests that check our packets against tshark's
 * dissection: pcap writing (raw IPv4 / UDP), running tshark, and the
 * checks every verbose dissection must pass.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __TSHARK_UTIL_H__
#define __TSHARK_UTIL_H__

#include <glib.h>

G_BEGIN_DECLS

/* The UDP source port of every frame test_pcap_add() writes. */
#define TSHARK_PCAP_SRC_PORT 5004

/* A destination port for RTCP frames, and tshark's options (after the
 * file) that dissect it as RTCP, heuristics on; NULL-terminated. */
#define TSHARK_RTCP_PORT 5005
extern const gchar *const tshark_rtcp_opts[];

gchar *tshark_find (const gchar * test_name);

GByteArray *test_pcap_new (void);

void test_pcap_add (GByteArray * pcap, guint idx, guint16 port,
    const guint8 * payload, gsize len);

gchar *test_pcap_save (GByteArray * pcap, const gchar * dir_tmpl,
    const gchar * name, gchar ** dir);

void test_pcap_remove (gchar * file, gchar * dir);

gchar *tshark_run (const gchar * tshark, const gchar * file,
    const gchar * const *opts, const gchar ** extra);

void tshark_assert_clean (const gchar * out);

void tshark_assert_no_warnings (const gchar * out);

void tshark_assert_lines (const gchar * out, const gchar * const *want,
    guint n);

gboolean tshark_has_field (const gchar * tshark, const gchar * field);

gsize test_rtcp_rr_sdes (guint8 * buf, gsize max, guint32 ssrc);

G_END_DECLS

#endif /* __TSHARK_UTIL_H__ */

/* Helpers shared by the real-time rtpcc pipeline tests: UDP sockets on
 * 127.0.0.1, pipeline parsing, the linkemu relay (both directions over two
 * shared sockets), bus/stats checks and the decoded-frame counter.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RT_UTIL_H
#define RT_UTIL_H

#include <gio/gio.h>
#include <gst/gst.h>

G_BEGIN_DECLS

/* Frames decoded at the receiver, counted by rt_decoded_on_handoff. */
typedef struct
{
  GMutex lock;
  gint64 start;                 /* monotonic us; 0 until the run starts */
  gint64 late_after;            /* us after @start: frames late from then */
  guint64 frames;
  guint64 frames_late;          /* decoded at or after @late_after */
} RtDecoded;

void rt_decoded_on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad,
    gpointer data);
void rt_decoded_get (RtDecoded * d, guint64 * frames, guint64 * frames_late);

#define RT_TWCC_URI \
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

/* The stock receiver's recv_rtp_src pads: the first is linked to @depay,
 * any other counted. */
typedef struct
{
  GstElement *bin, *depay;
  gint extra_pads;
} RtPadAdded;

GstElement *rt_stock_receiver_new (guint twcc_ext_id, guint port_b,
    GSocket * sock_r, RtPadAdded * pa, GstElement ** rtpbin,
    GstElement ** depay);

GSocket *rt_udp_socket_new (guint16 * port);
GstElement *rt_parse (const gchar * desc, gboolean strict);
void rt_set_by_name (GstElement * bin, const gchar * name, const gchar * prop,
    gpointer value);
void rt_check_no_error (GstElement * pipeline, const gchar * what);
guint64 rt_stat_u64 (GstElement * e, const gchar * field);

GstElement *rt_relay_new (const gchar * fsrc_opts, guint cap_before_kbps,
    guint cap_after_kbps, guint drop_at_s, guint fwd_port, guint rev_port,
    GSocket * sock_a, GSocket * sock_b, gboolean strict);
/* A relay's udpsrc "fsrc" / udpsink "fsink" (forward) and udpsrc "rsrc"
 * / udpsink "rsink" (reverse) on the shared sockets A and B. */
void rt_relay_set_sockets (GstElement * relay, GSocket * sock_a,
    GSocket * sock_b);
gint64 rt_run_start (GstElement * relay, GstElement * tx, RtDecoded * dec);
gboolean rt_sample_next (gint64 start, gdouble run_s, guint sample_ms,
    GstElement * tx, GstElement * rx, GstElement * relay, gdouble * t);
void rt_stop (GstElement * tx, GstElement * relay, GstElement * rx);

G_END_DECLS

#endif /* RT_UTIL_H */

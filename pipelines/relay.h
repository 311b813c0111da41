/* A symmetric emulated path between two UDP endpoints.
 *
 *   sender ──▶ A ─ udpsrc ! linkemu (forward) ! udpsink ─ B ──▶ receiver
 *   sender ◀── A ─ udpsink ! linkemu (reverse) ! udpsrc ─ B ◀── receiver
 *
 * Socket A faces the sender, socket B the receiver; each is shared by the
 * udpsrc of one direction and the udpsink of the other, so the receiver's
 * feedback goes back to the sender from A — the address the sender sends
 * to — and rtpccsink's peer-address check holds through the relay. The
 * sender's address is learned from the first packet on A.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_RELAY_H__
#define __RTPCC_RELAY_H__

#include <gst/gst.h>
#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  gint listen_port;             /* socket A; 0 = any */
  gchar *receiver_host;
  gint receiver_port;
  /* linkemu properties "name=value ..." for each direction */
  gchar *forward;
  gchar *reverse;
} RtpccRelayConfig;

typedef struct _RtpccRelay RtpccRelay;

RtpccRelay *rtpcc_relay_new (const RtpccRelayConfig * config, GError ** error);
/* PLAYING / NULL for both directions */
gboolean rtpcc_relay_start (RtpccRelay * relay);
void rtpcc_relay_stop (RtpccRelay * relay);
void rtpcc_relay_free (RtpccRelay * relay);

gint rtpcc_relay_get_listen_port (RtpccRelay * relay);
/* the forward / reverse linkemu (borrowed) */
GstElement *rtpcc_relay_get_forward_emu (RtpccRelay * relay);
GstElement *rtpcc_relay_get_reverse_emu (RtpccRelay * relay);
/* the pipelines, e.g. to watch their buses (borrowed) */
GstElement *rtpcc_relay_get_forward (RtpccRelay * relay);
GstElement *rtpcc_relay_get_reverse (RtpccRelay * relay);

G_END_DECLS

#endif

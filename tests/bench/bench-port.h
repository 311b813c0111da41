/* Unshared UDP ports for the benchmarks' sockets.
 *
 * rtpccsrc, rtpccsink and udpsrc bind with address reuse (SO_REUSEADDR,
 * and SO_REUSEPORT through GLib), and Linux then may give a port-0 bind a
 * port that another reusing socket already holds: with hundreds of calls
 * in one process a few pairs share a port, and one of them receives the
 * other's packets or none. A pipeline whose socket shares its port is
 * therefore set aside and built again.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __BENCH_PORT_H__
#define __BENCH_PORT_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* UDP sockets (IPv4 and IPv6, any process) bound to local @port. */
guint bench_udp_port_users (guint port);

/* Parses @desc, brings it to PAUSED (sources and sinks bind then) and
 * returns it once the socket of the element named @name has a port of its
 * own (or none yet: a socket that binds on its first send). NULL, with
 * @error set, if it cannot be built or no unshared port came in 20 tries. */
GstElement *bench_pipeline_bound (const gchar * desc, const gchar * name,
    guint * port, GError ** error);

G_END_DECLS

#endif

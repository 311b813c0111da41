/* Small helpers shared by rtpccsink and rtpccsrc (I/O side only).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_UTIL_H__
#define __RTPCC_UTIL_H__

#include <glib-object.h>
#include <rtpcc/common.h>
#include <rtpcc/peer.h>

#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

G_BEGIN_DECLS

/* The elements' clock for the library: CLOCK_MONOTONIC in ns (the library
 * only needs a monotonic time; the pipeline clock may not run in READY). */
static inline RtpccTime
rtpcc_mono_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (RtpccTime) ts.tv_sec * RTPCC_NSEC_PER_SEC + ts.tv_nsec;
}

/* The ppoll() timeout until @deadline (monotonic ns), never negative. The
 * clock is read once: MAX (0, deadline - rtpcc_mono_now ()) reads it twice
 * and can yield a negative tv_nsec (EINVAL) if time passes in between. */
static inline void
rtpcc_timespec_until (RtpccTime deadline, struct timespec *ts)
{
  RtpccTime d = deadline - rtpcc_mono_now ();
  if (d < 0)
    d = 0;
  ts->tv_sec = d / RTPCC_NSEC_PER_SEC;
  ts->tv_nsec = d % RTPCC_NSEC_PER_SEC;
}

/* Asks the kernel to tell, with each datagram, how many it dropped on the
 * socket for want of room (SO_RXQ_OVFL): drops are invisible otherwise. */
static inline void
rtpcc_socket_report_drops (int fd)
{
  int one = 1;
  (void) setsockopt (fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
}

/* One datagram from the non-blocking socket @fd: its bytes into @buf (at
 * most @max), where it came from into @from / @from_len, and the kernel's
 * count of datagrams dropped on the socket so far into *@drops when the
 * datagram carries it (SO_RXQ_OVFL: from the first drop on). -1 and errno
 * when there is none (or an ICMP error was queued). */
static inline gssize
rtpcc_recv_datagram (int fd, guint8 * buf, gsize max,
    struct sockaddr_storage *from, socklen_t * from_len, guint32 * drops)
{
  struct iovec iov = { buf, max };
  union
  {
    struct cmsghdr align;
    guint8 space[CMSG_SPACE (sizeof (guint32))];
  } ctl;
  struct msghdr msg;
  struct cmsghdr *c;
  gssize n;

  memset (&msg, 0, sizeof msg);
  msg.msg_name = from;
  msg.msg_namelen = sizeof (*from);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = &ctl;
  msg.msg_controllen = sizeof ctl;
  n = recvmsg (fd, &msg, MSG_DONTWAIT);
  if (n < 0)
    return -1;
  *from_len = msg.msg_namelen;
  for (c = CMSG_FIRSTHDR (&msg); c; c = CMSG_NXTHDR (&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL
        && c->cmsg_len >= CMSG_LEN (sizeof (guint32)))
      memcpy (drops, CMSG_DATA (c), sizeof (guint32));
  return n;
}

/* The library's key for a socket address (RtpccAddress, compared byte for
 * byte): family, port and address, and for IPv6 the scope; not the raw
 * sockaddr, whose flow label and padding may differ between datagrams
 * from the same peer. FALSE for other families. */
static inline gboolean
rtpcc_address_from_sockaddr (const struct sockaddr_storage *ss,
    socklen_t len, RtpccAddress * out)
{
  guint8 k[1 + 2 + 16 + 4];

  if (ss->ss_family == AF_INET && len >= sizeof (struct sockaddr_in)) {
    const struct sockaddr_in *in = (const struct sockaddr_in *) ss;
    k[0] = 4;
    memcpy (k + 1, &in->sin_port, 2);
    memcpy (k + 3, &in->sin_addr, 4);
    return rtpcc_address_set (out, k, 7);
  }
  if (ss->ss_family == AF_INET6 && len >= sizeof (struct sockaddr_in6)) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) ss;
    k[0] = 6;
    memcpy (k + 1, &in6->sin6_port, 2);
    memcpy (k + 3, &in6->sin6_addr, 16);
    memcpy (k + 19, &in6->sin6_scope_id, 4);
    return rtpcc_address_set (out, k, sizeof k);
  }
  return rtpcc_address_set (out, NULL, 0);
}

/* eventfd wake-ups of a task sleeping in ppoll() */
static inline gboolean
rtpcc_wakeup_signal (int fd)
{
  guint64 one = 1;
  return fd < 0 || write (fd, &one, sizeof (one)) >= 0 || errno == EAGAIN;
}

static inline void
rtpcc_wakeup_drain (int fd)
{
  guint64 v;
  while (fd >= 0 && read (fd, &v, sizeof (v)) > 0);
}

G_END_DECLS

#endif

/* rtpcc-delayline: a user-space propagation delay between two network
 * namespaces, for real-time evaluation runs with real TCP (netem is not
 * available on the build machines).
 *
 *   netns A ── TUN dev-a ──▶ [RtpccLink, delay] ──▶ TUN dev-b ── netns B
 *          ◀──────────────── [RtpccLink, delay] ◀────────────────
 *
 * The process creates one TUN device in each namespace (a TUN device stays
 * in the namespace it was created in, while its file descriptor works from
 * anywhere), reads IP packets from one and writes them into the other once
 * the library's link model says they are due. Every packet, UDP media and
 * TCP alike, sees the same delay — unless --port-delay gives the UDP/TCP
 * packets of a port range extra delay (RFC 8867 5.5: flows with different
 * propagation delays through one bottleneck); the bottleneck queue is a
 * kernel qdisc (tbf) elsewhere on the path, so the link model here has no
 * capacity limit and no queue limit: it is only the wire. --loss and
 * --loss-ba add the library's random loss (Bernoulli or Gilbert–Elliott,
 * seeded with --seed) to a direction, for the scenario matrix's loss and
 * lossy-feedback cases; those drops are counted.
 *
 * Needs CAP_NET_ADMIN (TUNSETIFF, setns). Runs until SIGINT/SIGTERM, then
 * prints per-direction counts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <rtpcc/net/link.h>
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_PKT 65536
/* bound on packets in flight per direction: 2 s at 100k packets/s is far
 * above anything the evaluation sends; beyond it packets are dropped and
 * counted rather than growing memory without limit */
#define MAX_QUEUED 200000

typedef struct
{
  RtpccTime due;
  guint len;
  guint8 data[];
} Pkt;

/* extra one-way delay for packets with a source or destination port in
 * [lo, hi] (both directions) */
typedef struct
{
  guint lo, hi;
  RtpccTime extra;
} PortDelay;

static PortDelay *port_delays;
static guint n_port_delays;

/* Extra delay of an IPv4 UDP/TCP packet by its ports; 0 for anything else
 * (or a packet too short to tell). */
static RtpccTime
extra_delay (const guint8 * pkt, gsize len)
{
  gsize ihl;
  guint sport, dport;

  if (n_port_delays == 0 || len < 20 || (pkt[0] >> 4) != 4)
    return 0;
  ihl = (gsize) (pkt[0] & 0x0f) * 4;
  if (ihl < 20 || len < ihl + 4 || (pkt[9] != 17 && pkt[9] != 6))
    return 0;
  /* fragments other than the first carry no ports */
  if (((pkt[6] & 0x1f) << 8 | pkt[7]) != 0)
    return 0;
  sport = (guint) pkt[ihl] << 8 | pkt[ihl + 1];
  dport = (guint) pkt[ihl + 2] << 8 | pkt[ihl + 3];
  for (guint i = 0; i < n_port_delays; i++) {
    const PortDelay *pd = &port_delays[i];
    if ((sport >= pd->lo && sport <= pd->hi)
        || (dport >= pd->lo && dport <= pd->hi))
      return pd->extra;
  }
  return 0;
}

/* "LO-HI:MS" or "PORT:MS" */
static gboolean
parse_port_delay (const gchar * str, PortDelay * out)
{
  guint lo, hi, ms;
  gchar tail;

  if (sscanf (str, "%u-%u:%u%c", &lo, &hi, &ms, &tail) == 3) {
    /* range */
  } else if (sscanf (str, "%u:%u%c", &lo, &ms, &tail) == 2) {
    hi = lo;
  } else
    return FALSE;
  if (lo > hi || hi > 65535 || ms > 10000)
    return FALSE;
  out->lo = lo;
  out->hi = hi;
  out->extra = RTPCC_MSEC ((gint64) ms);
  return TRUE;
}

typedef struct
{
  const gchar *name;
  gint in_fd, out_fd;
  RtpccLink *link;
  GQueue q;
  guint64 packets, bytes, overflow, write_errors;
} Dir;

static volatile sig_atomic_t stop;

static void
on_signal (int sig)
{
  (void) sig;
  stop = 1;
}

static RtpccTime
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (RtpccTime) ts.tv_sec * RTPCC_NSEC_PER_SEC + ts.tv_nsec;
}

/* Open a TUN device @dev inside netns @ns (NULL or "" = the current one). */
static gint
open_tun (const gchar * ns, const gchar * dev)
{
  struct ifreq ifr;
  gint fd, nsfd = -1, self = -1;

  if (strlen (dev) >= IFNAMSIZ) {
    g_printerr ("device name too long: %s\n", dev);
    return -1;
  }
  if (ns && *ns) {
    gchar *path = g_strdup_printf ("/var/run/netns/%s", ns);
    self = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    nsfd = open (path, O_RDONLY | O_CLOEXEC);
    if (nsfd < 0 || self < 0 || setns (nsfd, CLONE_NEWNET) < 0) {
      g_printerr ("cannot enter netns %s: %s\n", path, g_strerror (errno));
      g_free (path);
      if (nsfd >= 0)
        close (nsfd);
      if (self >= 0)
        close (self);
      return -1;
    }
    g_free (path);
  }
  fd = open ("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    memset (&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    g_strlcpy (ifr.ifr_name, dev, IFNAMSIZ);
    if (ioctl (fd, TUNSETIFF, &ifr) < 0) {
      g_printerr ("TUNSETIFF %s: %s\n", dev, g_strerror (errno));
      close (fd);
      fd = -1;
    }
  } else
    g_printerr ("/dev/net/tun: %s\n", g_strerror (errno));
  if (self >= 0) {
    if (setns (self, CLONE_NEWNET) < 0)
      g_printerr ("cannot return to own netns: %s\n", g_strerror (errno));
    close (self);
  }
  if (nsfd >= 0)
    close (nsfd);
  return fd;
}

/* Read every packet waiting on @d's input and schedule it. */
static void
drain_input (Dir * d)
{
  guint8 buf[MAX_PKT];

  for (;;) {
    ssize_t n = read (d->in_fd, buf, sizeof buf);
    RtpccLinkOutcome o;
    Pkt *p;

    if (n <= 0)
      return;                   /* EAGAIN, or the device went away */
    rtpcc_link_send (d->link, now_ns (), (guint) n, &o);
    if (o.verdict != RTPCC_LINK_DELIVERED)
      continue;                 /* random loss (counted in the link stats) */
    if (d->q.length >= MAX_QUEUED) {
      d->overflow++;
      continue;
    }
    p = g_malloc (sizeof (Pkt) + (gsize) n);
    p->due = o.deliver_at + extra_delay (buf, (gsize) n);
    p->len = (guint) n;
    memcpy (p->data, buf, (gsize) n);
    /* keep the queue in due order: with per-port delays a packet may be
     * due before ones queued earlier (they are different paths); search
     * from the tail, where it almost always belongs */
    {
      GList *l = d->q.tail;
      while (l && ((Pkt *) l->data)->due > p->due)
        l = l->prev;
      if (l)
        g_queue_insert_after (&d->q, l, p);
      else
        g_queue_push_head (&d->q, p);
    }
  }
}

static void
flush_due (Dir * d, RtpccTime now)
{
  Pkt *p;

  while ((p = g_queue_peek_head (&d->q)) && p->due <= now) {
    g_queue_pop_head (&d->q);
    if (write (d->out_fd, p->data, p->len) != (ssize_t) p->len)
      d->write_errors++;        /* e.g. interface down: the wire drops it */
    else {
      d->packets++;
      d->bytes += p->len;
    }
    g_free (p);
  }
}

static RtpccTime
next_due (Dir * d)
{
  Pkt *p = g_queue_peek_head (&d->q);
  return p ? p->due : RTPCC_TIME_NONE;
}

int
main (int argc, char **argv)
{
  /* freed on every return path */
  g_autofree gchar *ns_a = NULL, *ns_b = NULL, *dev_a = NULL, *dev_b = NULL;
  g_auto (GStrv) port_delay_args = NULL;
  g_autofree gchar *loss_ab = NULL, *loss_ba = NULL;
  gint delay_ms = 50, delay_ba_ms = -1;
  gint64 seed = 1;
  RtpccLossParams loss[2];
  GOptionContext *ctx;
  GError *err = NULL;
  RtpccLinkConfig cfg;
  Dir dirs[2];
  gint fd_a, fd_b;
  struct sigaction sa;
  GOptionEntry entries[] = {
    {"ns-a", 0, 0, G_OPTION_ARG_STRING, &ns_a,
        "Network namespace of side A (default: current)", "NS"},
    {"dev-a", 0, 0, G_OPTION_ARG_STRING, &dev_a,
        "TUN device to create on side A", "DEV"},
    {"ns-b", 0, 0, G_OPTION_ARG_STRING, &ns_b,
        "Network namespace of side B (default: current)", "NS"},
    {"dev-b", 0, 0, G_OPTION_ARG_STRING, &dev_b,
        "TUN device to create on side B", "DEV"},
    {"delay", 0, 0, G_OPTION_ARG_INT, &delay_ms,
        "One-way delay A->B in ms (default 50)", "MS"},
    {"delay-ba", 0, 0, G_OPTION_ARG_INT, &delay_ba_ms,
        "One-way delay B->A in ms (default: same as --delay)", "MS"},
    {"port-delay", 0, 0, G_OPTION_ARG_STRING_ARRAY, &port_delay_args,
          "Extra one-way delay (both directions) for UDP/TCP packets from or "
          "to ports LO-HI (repeatable)", "LO-HI:MS"},
    {"loss", 0, 0, G_OPTION_ARG_STRING, &loss_ab,
        "Random loss A->B: none, bernoulli:P or gilbert:p,r[,k[,h]]", "SPEC"},
    {"loss-ba", 0, 0, G_OPTION_ARG_STRING, &loss_ba,
        "Random loss B->A (same forms)", "SPEC"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Seed of the loss draws (1)",
        "N"},
    {NULL}
  };

  ctx = g_option_context_new ("- user-space delay line between two netns");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    g_error_free (err);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (delay_ba_ms < 0)
    delay_ba_ms = delay_ms;
  if (!dev_a || !dev_b || delay_ms < 0 || delay_ms > 10000
      || delay_ba_ms > 10000) {
    g_printerr ("need --dev-a and --dev-b, delays in [0, 10000] ms\n");
    return 2;
  }

  if (!sim_loss_parse (loss_ab ? loss_ab : "none", &loss[0], &err) ||
      !sim_loss_parse (loss_ba ? loss_ba : "none", &loss[1], &err)) {
    g_printerr ("%s\n", err->message);
    g_error_free (err);
    return 2;
  }

  n_port_delays = port_delay_args ? g_strv_length (port_delay_args) : 0;
  port_delays = g_new0 (PortDelay, MAX (n_port_delays, 1));
  for (guint i = 0; i < n_port_delays; i++)
    if (!parse_port_delay (port_delay_args[i], &port_delays[i])) {
      g_printerr ("bad --port-delay %s (LO-HI:MS or PORT:MS)\n",
          port_delay_args[i]);
      g_free (port_delays);
      return 2;
    }

  fd_a = open_tun (ns_a, dev_a);
  fd_b = fd_a >= 0 ? open_tun (ns_b, dev_b) : -1;
  if (fd_a < 0 || fd_b < 0) {
    if (fd_a >= 0)
      close (fd_a);
    g_free (port_delays);
    return 1;
  }

  for (gint i = 0; i < 2; i++) {
    rtpcc_link_config_init (&cfg);
    cfg.capacity = NULL;        /* unlimited: the qdisc is the bottleneck */
    cfg.queue_limit_time = 0;
    cfg.queue_limit_bytes = 0;
    cfg.delay = RTPCC_MSEC (i == 0 ? delay_ms : delay_ba_ms);
    cfg.loss = loss[i];
    cfg.seed = (guint64) seed * 2 + (guint64) i;
    dirs[i].link = rtpcc_link_new (&cfg);
    g_queue_init (&dirs[i].q);
    dirs[i].packets = dirs[i].bytes = dirs[i].overflow = 0;
    dirs[i].write_errors = 0;
  }
  dirs[0].name = "a->b";
  dirs[0].in_fd = fd_a;
  dirs[0].out_fd = fd_b;
  dirs[1].name = "b->a";
  dirs[1].in_fd = fd_b;
  dirs[1].out_fd = fd_a;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);

  g_print ("delayline: %s/%s <-> %s/%s, %d ms / %d ms\n",
      ns_a ? ns_a : "-", dev_a, ns_b ? ns_b : "-", dev_b, delay_ms,
      delay_ba_ms);
  fflush (stdout);

  while (!stop) {
    struct pollfd pfd[2] = { {fd_a, POLLIN, 0}, {fd_b, POLLIN, 0} };
    RtpccTime now = now_ns (), due = RTPCC_TIME_NONE;
    struct timespec ts, *tsp = NULL;

    for (gint i = 0; i < 2; i++) {
      RtpccTime d = next_due (&dirs[i]);
      if (d != RTPCC_TIME_NONE && (due == RTPCC_TIME_NONE || d < due))
        due = d;
    }
    if (due != RTPCC_TIME_NONE) {
      RtpccTime wait = MAX (due - now, 0);
      ts.tv_sec = wait / RTPCC_NSEC_PER_SEC;
      ts.tv_nsec = wait % RTPCC_NSEC_PER_SEC;
      tsp = &ts;
    }
    if (ppoll (pfd, 2, tsp, NULL) < 0 && errno != EINTR) {
      g_printerr ("ppoll: %s\n", g_strerror (errno));
      break;
    }
    if (pfd[0].revents & POLLIN)
      drain_input (&dirs[0]);
    if (pfd[1].revents & POLLIN)
      drain_input (&dirs[1]);
    now = now_ns ();
    flush_due (&dirs[0], now);
    flush_due (&dirs[1], now);
  }

  for (gint i = 0; i < 2; i++) {
    g_print ("delayline %s: %" G_GUINT64_FORMAT " packets, %" G_GUINT64_FORMAT
        " bytes, %" G_GUINT64_FORMAT " overflow, %" G_GUINT64_FORMAT
        " write errors, %" G_GUINT64_FORMAT " lost\n", dirs[i].name,
        dirs[i].packets, dirs[i].bytes, dirs[i].overflow,
        dirs[i].write_errors,
        rtpcc_link_get_stats (dirs[i].link)->loss_drops);
    g_queue_clear_full (&dirs[i].q, g_free);
    rtpcc_link_free (dirs[i].link);
  }
  close (fd_a);
  close (fd_b);
  g_free (port_delays);
  return 0;
}

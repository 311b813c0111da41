/* Unit tests: RtpccSender and RtpccReceiver wired back to back in-process.
 *
 * A tiny event loop (Loop) owns both endpoints and a clock: media the sender
 * dequeues reaches the receiver after a delay the test chooses (or never),
 * the sender's SRs reach the receiver, and the receiver's feedback reaches
 * the sender, all as bytes. The receiver's clock runs at a constant offset
 * from the sender's. A recording controller ("test-recorder") keeps every
 * RtpccFeedback and RtpccReceiverReport the sender delivers, so the tests
 * assert exactly what a controller sees.
 *
 * Quantisation used in the bounds below: CCFB arrival time offsets are
 * 1/1024 s (rounded: ±1/2048 s), the CCFB report timestamp is the report
 * time rounded *up* to 1/65536 s, and LSR/DLSR are truncated 1/65536 s.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>
#include <rtpcc/fec/strength.h>
#include <math.h>
#include <string.h>

#define MEDIA_SSRC 0x11223344u
#define OTHER_SSRC 0x55667788u
#define FIRST_SEQ 65500         /* the RTP sequence wraps early in every run */
#define RTCP_MAX 1472
#define PKT_SIZE 1250

/* half an ATO unit (1/2048 s) rounded up, one report-timestamp unit
 * (1/65536 s) rounded up, and a few ns of integer truncation */
#define ATO_HALF_NS G_GINT64_CONSTANT (488282)
#define RTS_UNIT_NS G_GINT64_CONSTANT (15259)
#define ATO_UNIT_NS G_GINT64_CONSTANT (976563)

static gint64
abs64 (gint64 v)
{
  return v < 0 ? -v : v;
}

/* ======================================================================== */
/* The recording controller                                                 */

typedef struct
{
  RtpccTime now;
  guint first, n;               /* into RecCC.reports */
  RtpccTime rtt_sample, srtt, report_time, arrival_resolution;
} RecFeedback;

typedef struct
{
  RtpccTime now;
  RtpccReceiverReport rr;
} RecRR;

typedef struct
{
  RtpccController parent;
  GArray *fbs;                  /* RecFeedback */
  GArray *reports;              /* RtpccPacketReport, all feedback in order */
  GArray *rrs;                  /* RecRR */
  guint sent;
} RecCC;

static void
rec_init (RtpccController * cc, RtpccTime now)
{
  RecCC *r = (RecCC *) cc;

  r->fbs = g_array_new (FALSE, TRUE, sizeof (RecFeedback));
  r->reports = g_array_new (FALSE, TRUE, sizeof (RtpccPacketReport));
  r->rrs = g_array_new (FALSE, TRUE, sizeof (RecRR));
  rtpcc_controller_update_target (cc, cc->config.start_bitrate ?
      cc->config.start_bitrate : cc->config.min_bitrate, 0, 1.0, "recording",
      "initial");
}

static void
rec_finalize (RtpccController * cc)
{
  RecCC *r = (RecCC *) cc;

  g_array_unref (r->fbs);
  g_array_unref (r->reports);
  g_array_unref (r->rrs);
}

static void
rec_sent (RtpccController * cc, RtpccTime now, const RtpccSentPacket * pkt)
{
  ((RecCC *) cc)->sent++;
}

static void
rec_feedback (RtpccController * cc, RtpccTime now, const RtpccFeedback * fb)
{
  RecCC *r = (RecCC *) cc;
  RecFeedback f;

  f.now = now;
  f.first = r->reports->len;
  f.n = fb->n_reports;
  f.rtt_sample = fb->rtt_sample;
  f.srtt = fb->srtt;
  f.report_time = fb->report_time;
  f.arrival_resolution = fb->arrival_resolution;
  for (guint i = 1; i < fb->n_reports; i++)
    fail_unless (fb->reports[i - 1].seq < fb->reports[i].seq,
        "reports not in ascending seq");
  g_array_append_vals (r->reports, fb->reports, fb->n_reports);
  g_array_append_val (r->fbs, f);
}

static void
rec_rr (RtpccController * cc, RtpccTime now, const RtpccReceiverReport * rr)
{
  RecRR x;

  x.now = now;
  x.rr = *rr;
  g_array_append_val (((RecCC *) cc)->rrs, x);
}

static gboolean
rec_set_param (RtpccController * cc, const gchar * key, const gchar * value)
{
  if (g_strcmp0 (key, "bitrate") != 0)
    return FALSE;
  rtpcc_controller_update_target (cc, g_ascii_strtoull (value, NULL, 10), 0,
      1.0, NULL, "set-param");
  return TRUE;
}

static const RtpccControllerOps rec_ops = {
  .name = "test-recorder",
  .description = "records what the sender delivers",
  .instance_size = sizeof (RecCC),
  .init = rec_init,
  .finalize = rec_finalize,
  .on_packet_sent = rec_sent,
  .on_feedback = rec_feedback,
  .on_receiver_report = rec_rr,
  .set_param = rec_set_param,
};

static RecCC *
recorder (RtpccSender * s)
{
  RtpccController *cc = rtpcc_sender_get_controller (s);
  fail_unless (cc->ops == &rec_ops);
  return (RecCC *) cc;
}

static const RtpccPacketReport *
rec_report (RecCC * r, guint i)
{
  return &g_array_index (r->reports, RtpccPacketReport, i);
}

static const RecFeedback *
rec_fb (RecCC * r, guint i)
{
  return &g_array_index (r->fbs, RecFeedback, i);
}

/* ======================================================================== */
/* Configs                                                                  */

static void
sender_config (RtpccSenderConfig * sc, const gchar * controller,
    guint64 bitrate)
{
  rtpcc_sender_config_init (sc);
  sc->controller = controller;
  sc->cc.min_bitrate = 100000;
  sc->cc.max_bitrate = 50000000;
  sc->cc.start_bitrate = bitrate;
  sc->cc.packet_size = PKT_SIZE;
  sc->ntp_offset = RTPCC_NTP_UNIX_EPOCH_NS + RTPCC_SEC (1700000000);
  sc->seed = 7;
}

static void
receiver_config (RtpccReceiverConfig * rc)
{
  rtpcc_receiver_config_init (rc);
  rc->ntp_offset = RTPCC_NTP_UNIX_EPOCH_NS + RTPCC_SEC (1700000123);
  rc->ssrc = 0xfeed0001u;
  rc->seed = 11;
}

static RtpccSender *
new_sender (const RtpccSenderConfig * sc, RtpccTime now)
{
  GError *err = NULL;
  RtpccSender *s = rtpcc_sender_new (sc, now, &err);

  fail_unless (s != NULL, "sender: %s", err ? err->message : "?");
  return s;
}

static RtpccRtpInfo
rtp_info (guint16 seq, RtpccTime t, guint size, gboolean marker)
{
  RtpccRtpInfo info;

  memset (&info, 0, sizeof (info));
  info.ssrc = MEDIA_SSRC;
  info.seq = seq;
  info.rtp_ts = (guint32) (t / 100000 * 9);   /* 90 kHz */
  info.pt = 96;
  info.marker = marker;
  info.size = size;
  info.clock_rate = 90000;
  return info;
}

/* ======================================================================== */
/* RTCP inspection                                                          */

typedef struct
{
  guint n_packets;
  guint8 first_pt;
  gboolean has_rr, has_sr, has_sdes, has_ccfb;
  guint ccfb_len_offset;        /* offset of the CCFB in the compound */
  gsize ccfb_len;
} Compound;

static void
inspect (const guint8 * data, gsize len, Compound * c)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;

  memset (c, 0, sizeof (*c));
  fail_unless (rtpcc_rtcp_iter_init (&it, data, len), "invalid compound");
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    if (c->n_packets++ == 0)
      c->first_pt = pkt.pt;
    if (pkt.pt == RTPCC_RTCP_RR)
      c->has_rr = TRUE;
    else if (pkt.pt == RTPCC_RTCP_SR)
      c->has_sr = TRUE;
    else if (pkt.pt == RTPCC_RTCP_SDES)
      c->has_sdes = TRUE;
    else if (pkt.pt == RTPCC_RTCP_RTPFB && pkt.count == RTPCC_CCFB_FMT) {
      c->has_ccfb = TRUE;
      c->ccfb_len_offset = (guint) (pkt.data - data);
      c->ccfb_len = pkt.len;
    }
  }
}

/* the CCFB in a compound, parsed (NULL if none) */
static RtpccCcfb *
compound_ccfb (const guint8 * data, gsize len)
{
  Compound c;
  GError *err = NULL;
  RtpccCcfb *fb;

  inspect (data, len, &c);
  if (!c.has_ccfb)
    return NULL;
  fb = rtpcc_ccfb_parse (data + c.ccfb_len_offset, c.ccfb_len, &err);
  fail_unless (fb != NULL, "bad CCFB: %s", err ? err->message : "?");
  return fb;
}

/* ======================================================================== */
/* The loop                                                                 */

typedef enum
{
  EV_RTP,                       /* media reaches the receiver */
  EV_TO_RECEIVER,               /* sender RTCP reaches the receiver */
  EV_TO_SENDER,                 /* receiver feedback reaches the sender */
} EvKind;

typedef struct
{
  RtpccTime t;                  /* sender clock */
  EvKind kind;
  guint idx;
  RtpccRtpInfo info;
  guint8 *data;
  gsize len;
} Ev;

typedef struct
{
  RtpccRtpInfo info;
  RtpccTime enqueued;
  RtpccTime sent;               /* NONE: never dequeued */
  RtpccTime arrival;            /* first copy, sender clock; NONE: lost */
  guint64 sender_seq;           /* 1-based dequeue order, 0 = not sent */
} Pkt;

typedef struct _Loop Loop;
/* How many copies of packet @idx reach the receiver (0 = dropped), and
 * after which one-way delays; delays[0] is preset to the loop's d_fwd. */
typedef guint (*FateFunc) (Loop * l, guint idx, RtpccTime delays[2]);
typedef void (*FeedbackHook) (Loop * l, const guint8 * data, gsize len);

struct _Loop
{
  RtpccSender *s;
  RtpccReceiver *r;
  RtpccTime now;                /* sender clock */
  RtpccTime r_offset;           /* receiver clock − sender clock */
  RtpccTime d_fwd, d_back;
  FateFunc fate;
  FeedbackHook on_feedback;
  gpointer user;

  GList *events;                /* Ev*, sorted by time, FIFO among equals */
  GArray *pkts;                 /* Pkt, in enqueue order */
  guint next_enq;
  guint16 next_rtp_seq;
  GArray *sent_order;           /* guint idx of the k-th packet dequeued */

  guint spins, r_spins;         /* next wake-up <= now right after service */
  guint iterations;
  guint fb_built, fb_accepted, fb_rejected;
  guint sr_built, sr_accepted;

  /* target / generation bookkeeping after every sender call */
  guint64 last_gen;
  RtpccTarget last_target;
  guint gen_violations, target_changes;
};

static gboolean
target_equal (const RtpccTarget * a, const RtpccTarget * b)
{
  return a->target_bitrate == b->target_bitrate
      && a->media_bitrate == b->media_bitrate
      && a->fec_bitrate == b->fec_bitrate
      && a->pacing_rate == b->pacing_rate && a->cwnd == b->cwnd
      && a->state == b->state && a->reason == b->reason;
}

static void
gen_check (Loop * l)
{
  guint64 g = rtpcc_sender_get_generation (l->s);
  const RtpccTarget *t = rtpcc_sender_get_target (l->s);
  gboolean changed = !target_equal (t, &l->last_target);

  /* one call publishes at most one new target */
  if (changed ? g != l->last_gen + 1 : g != l->last_gen)
    l->gen_violations++;
  if (changed)
    l->target_changes++;
  l->last_gen = g;
  l->last_target = *t;
}

static Loop *
loop_new (const RtpccSenderConfig * sc, const RtpccReceiverConfig * rc,
    RtpccTime r_offset, RtpccTime d_fwd, RtpccTime d_back)
{
  Loop *l = g_new0 (Loop, 1);

  l->s = new_sender (sc, 0);
  l->r = rtpcc_receiver_new (rc, r_offset);
  l->r_offset = r_offset;
  l->d_fwd = d_fwd;
  l->d_back = d_back;
  l->pkts = g_array_new (FALSE, TRUE, sizeof (Pkt));
  l->sent_order = g_array_new (FALSE, TRUE, sizeof (guint));
  l->next_rtp_seq = FIRST_SEQ;
  l->last_gen = rtpcc_sender_get_generation (l->s);
  l->last_target = *rtpcc_sender_get_target (l->s);
  return l;
}

static void
ev_free (gpointer p)
{
  Ev *e = p;
  g_free (e->data);
  g_free (e);
}

static void
loop_free (Loop * l)
{
  g_list_free_full (l->events, ev_free);
  rtpcc_sender_free (l->s);
  rtpcc_receiver_free (l->r);
  g_array_unref (l->pkts);
  g_array_unref (l->sent_order);
  g_free (l);
}

static Pkt *
loop_pkt (Loop * l, guint idx)
{
  return &g_array_index (l->pkts, Pkt, idx);
}

/* the packet the sender calls @sender_seq */
static Pkt *
loop_pkt_by_sender_seq (Loop * l, guint64 sender_seq)
{
  fail_unless (sender_seq >= 1 && sender_seq <= l->sent_order->len);
  return loop_pkt (l, g_array_index (l->sent_order, guint, sender_seq - 1));
}

/* @count packets of @size, one every @interval from @start; every
 * @marker_every-th one carries the marker bit (0: none). Returns the index
 * of the first. */
static guint
loop_add_cbr (Loop * l, RtpccTime start, RtpccTime interval, guint count,
    guint size, guint marker_every)
{
  guint first = l->pkts->len;

  for (guint i = 0; i < count; i++) {
    Pkt p;
    RtpccTime t = start + i * interval;

    memset (&p, 0, sizeof (p));
    p.info = rtp_info (l->next_rtp_seq++, t, size, marker_every &&
        (i + 1) % marker_every == 0);
    p.enqueued = t;
    p.sent = p.arrival = RTPCC_TIME_NONE;
    if (l->pkts->len > 0)
      fail_unless (t >= loop_pkt (l, l->pkts->len - 1)->enqueued);
    g_array_append_val (l->pkts, p);
  }
  return first;
}

static void
loop_schedule (Loop * l, RtpccTime t, EvKind kind, guint idx,
    const RtpccRtpInfo * info, const guint8 * data, gsize len)
{
  Ev *e = g_new0 (Ev, 1);
  GList *it;

  e->t = t;
  e->kind = kind;
  e->idx = idx;
  if (info)
    e->info = *info;
  if (data) {
    e->data = g_memdup2 (data, len);
    e->len = len;
  }
  /* after every event at or before t (FIFO among equal times) */
  for (it = g_list_last (l->events); it && ((Ev *) it->data)->t > t;
      it = it->prev);
  if (!it)
    l->events = g_list_prepend (l->events, e);
  else
    l->events = g_list_insert_before (l->events, it->next, e);
}

static void
loop_service (Loop * l)
{
  guint8 buf[RTCP_MAX];
  RtpccRtpInfo info;
  RtpccWirePacket w;
  gpointer h;
  gsize n;
  RtpccTime rn, t;

  rtpcc_sender_tick (l->s, l->now);
  gen_check (l);
  while ((h = rtpcc_sender_dequeue (l->s, l->now, &w))) {
    guint idx = GPOINTER_TO_UINT (h) - 1;
    Pkt *p = loop_pkt (l, idx);
    RtpccTime delays[2] = { l->d_fwd, l->d_fwd };
    guint copies;

    /* the receiver reads the header the sender wrote */
    fail_unless (rtpcc_rtp_parse (w.head, w.head_len, w.size, 1, &info,
            NULL));
    info.clock_rate = p->info.clock_rate;
    gen_check (l);
    fail_unless (p->sent == RTPCC_TIME_NONE);
    fail_unless (info.seq == p->info.seq);
    p->sent = l->now;
    g_array_append_val (l->sent_order, idx);
    p->sender_seq = l->sent_order->len;
    copies = l->fate ? l->fate (l, idx, delays) : 1;
    for (guint c = 0; c < copies; c++)
      loop_schedule (l, l->now + delays[c], EV_RTP, idx, &info, NULL, 0);
  }
  n = rtpcc_sender_build_rtcp (l->s, l->now, buf, sizeof buf);
  if (n > 0) {
    l->sr_built++;
    loop_schedule (l, l->now + l->d_fwd, EV_TO_RECEIVER, 0, NULL, buf, n);
  }
  rn = l->now + l->r_offset;
  t = rtpcc_receiver_next_feedback_time (l->r);
  if (t != RTPCC_TIME_NONE && t <= rn) {
    n = rtpcc_receiver_build_feedback (l->r, rn, buf, sizeof buf);
    if (n > 0) {
      l->fb_built++;
      if (l->on_feedback)
        l->on_feedback (l, buf, n);
      loop_schedule (l, l->now + l->d_back, EV_TO_SENDER, 0, NULL, buf, n);
    }
  }
}

static void
loop_inputs (Loop * l)
{
  while (l->next_enq < l->pkts->len
      && loop_pkt (l, l->next_enq)->enqueued <= l->now) {
    Pkt *p = loop_pkt (l, l->next_enq);
    rtpcc_sender_enqueue (l->s, l->now, &p->info,
        GUINT_TO_POINTER (l->next_enq + 1));
    l->next_enq++;
  }
  while (l->events && ((Ev *) l->events->data)->t <= l->now) {
    Ev *e = l->events->data;
    l->events = g_list_delete_link (l->events, l->events);
    switch (e->kind) {
      case EV_RTP:{
        Pkt *p = loop_pkt (l, e->idx);
        if (p->arrival == RTPCC_TIME_NONE)
          p->arrival = l->now;
        rtpcc_receiver_on_rtp (l->r, l->now + l->r_offset, &e->info);
        break;
      }
      case EV_TO_RECEIVER:
        if (rtpcc_receiver_on_rtcp (l->r, l->now + l->r_offset, e->data,
                e->len))
          l->sr_accepted++;
        break;
      case EV_TO_SENDER:
        if (rtpcc_sender_receive_rtcp (l->s, l->now, e->data, e->len))
          l->fb_accepted++;
        else
          l->fb_rejected++;
        gen_check (l);
        break;
    }
    ev_free (e);
  }
}

/* The earliest thing due after the service just done. A sender or receiver
 * wake-up at or before now right after a service would make a real event
 * loop spin: counted, and skipped 1 ms ahead. */
static RtpccTime
loop_next (Loop * l)
{
  RtpccTime t = G_MAXINT64, x;

  if (l->next_enq < l->pkts->len)
    t = MIN (t, loop_pkt (l, l->next_enq)->enqueued);
  if (l->events)
    t = MIN (t, ((Ev *) l->events->data)->t);
  x = rtpcc_sender_next_timeout (l->s, l->now);
  if (x != RTPCC_TIME_NONE) {
    if (x <= l->now) {
      l->spins++;
      x = l->now + RTPCC_MSEC (1);
    }
    t = MIN (t, x);
  }
  x = rtpcc_receiver_next_feedback_time (l->r);
  if (x != RTPCC_TIME_NONE) {
    x -= l->r_offset;
    if (x <= l->now) {
      l->r_spins++;
      x = l->now + RTPCC_MSEC (1);
    }
    t = MIN (t, x);
  }
  return t;
}

static void
loop_run (Loop * l, RtpccTime until)
{
  for (;;) {
    RtpccTime t;

    loop_inputs (l);
    loop_service (l);
    t = loop_next (l);
    if (t > until)
      break;
    fail_unless (t >= l->now);
    l->now = t;
    fail_unless (++l->iterations < 10000000, "loop does not advance");
  }
}

/* index of the first report about @sender_seq in @r (G_MAXUINT: none), and
 * how many reports there are about it */
static guint
count_reports (RecCC * r, guint64 sender_seq, guint * first_fb,
    gboolean * received)
{
  guint n = 0;

  *first_fb = G_MAXUINT;
  for (guint f = 0; f < r->fbs->len; f++) {
    const RecFeedback *fb = rec_fb (r, f);
    for (guint i = 0; i < fb->n; i++) {
      const RtpccPacketReport *rep = rec_report (r, fb->first + i);
      if (rep->seq != sender_seq)
        continue;
      if (n++ == 0) {
        *first_fb = f;
        *received = rep->received;
      }
    }
  }
  return n;
}

/* ======================================================================== */
/* 1. RTT from CCFB                                                         */

static void
check_ccfb_rtt (RtpccTime r_offset, RtpccTime r_ntp_offset)
{
  const RtpccTime D = RTPCC_MSEC (40);
  const RtpccTime tol = ATO_HALF_NS + RTS_UNIT_NS + 10;
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  const RtpccSenderStats *st;
  Loop *l;
  RecCC *rec;
  guint samples = 0;

  sender_config (&sc, "test-recorder", 1000000);
  sc.pacing = FALSE;
  receiver_config (&rc);
  rc.ntp_offset = r_ntp_offset;
  l = loop_new (&sc, &rc, r_offset, D, D);
  loop_add_cbr (l, 0, RTPCC_MSEC (10), 300, PKT_SIZE, 0);
  loop_run (l, RTPCC_MSEC (3300));

  rec = recorder (l->s);
  for (guint i = 0; i < rec->fbs->len; i++) {
    const RecFeedback *fb = rec_fb (rec, i);
    if (fb->rtt_sample == RTPCC_TIME_NONE)
      continue;
    samples++;
    fail_unless (abs64 (fb->rtt_sample - 2 * D) <= tol,
        "offset %" G_GINT64_FORMAT ": RTT sample %" G_GINT64_FORMAT
        " ns, expected %" G_GINT64_FORMAT " ± %" G_GINT64_FORMAT, r_offset,
        fb->rtt_sample, 2 * D, tol);
    fail_unless (fb->srtt != RTPCC_TIME_NONE
        && abs64 (fb->srtt - 2 * D) <= tol);
  }
  /* 3 s of media at one CCFB per 50 ms (no marker bits) */
  fail_unless (samples >= 55, "only %u RTT samples", samples);
  st = rtpcc_sender_get_stats (l->s, l->now);
  fail_unless (abs64 (st->rtt - 2 * D) <= tol);
  fail_unless (abs64 (st->srtt - 2 * D) <= tol);
  fail_unless_equals_uint64 (st->reported_received, 300);
  fail_unless_equals_uint64 (st->reported_lost, 0);
  fail_unless (rtpcc_sender_has_feedback (l->s));
  fail_unless_equals_int (l->fb_rejected, 0);
  fail_unless_equals_int (l->spins, 0);
  fail_unless_equals_int (l->r_spins, 0);
  loop_free (l);
}

GST_START_TEST (test_ccfb_rtt_independent_of_clock_offset)
{
  /* same clock */
  check_ccfb_rtt (0, RTPCC_NTP_UNIX_EPOCH_NS + RTPCC_SEC (1700000123));
  /* the receiver's monotonic clock 11 days ahead, its wall clock elsewhere */
  check_ccfb_rtt (RTPCC_SEC (987654) + 321, RTPCC_NTP_UNIX_EPOCH_NS +
      RTPCC_SEC (1600000000) + 777);
  /* the receiver's 16.16 report clock wraps 1.5 s into the call */
  check_ccfb_rtt (RTPCC_SEC (5), RTPCC_SEC (65536) * 40000 - RTPCC_MSEC (6500));
}

GST_END_TEST;

/* The controller learns each format's arrival-time unit: the rounding its
 * one-way delays carry (gcc's queue test allows for it). */
GST_START_TEST (test_feedback_arrival_resolution)
{
  const RtpccFeedbackMode modes[2] = { RTPCC_FEEDBACK_CCFB,
    RTPCC_FEEDBACK_TWCC
  };
  const RtpccTime units[2] = { RTPCC_NSEC_PER_SEC / 1024, RTPCC_USEC (250) };

  for (guint m = 0; m < 2; m++) {
    RtpccSenderConfig sc;
    RtpccReceiverConfig rc;
    Loop *l;
    RecCC *rec;

    sender_config (&sc, "test-recorder", 1000000);
    sc.feedback = modes[m];
    receiver_config (&rc);
    rc.feedback = modes[m];
    l = loop_new (&sc, &rc, RTPCC_SEC (3), RTPCC_MSEC (20), RTPCC_MSEC (20));
    loop_add_cbr (l, 0, RTPCC_MSEC (10), 100, PKT_SIZE, 0);
    loop_run (l, RTPCC_MSEC (1200));
    rec = recorder (l->s);
    fail_unless (rec->fbs->len >= 10, "mode %u: %u feedbacks", m,
        rec->fbs->len);
    for (guint i = 0; i < rec->fbs->len; i++)
      fail_unless_equals_int64 (rec_fb (rec, i)->arrival_resolution,
          units[m]);
    loop_free (l);
  }
}

GST_END_TEST;

/* ======================================================================== */
/* 2. Each packet reported exactly once                                     */

typedef struct
{
  guint16 seq_dropped;
  guint ccfb_missing_dropped;   /* CCFBs that (re)covered it as missing */
} OnceState;

static guint
fate_once (Loop * l, guint idx, RtpccTime delays[2])
{
  if (idx == 20)
    return 0;                   /* dropped */
  if (idx == 40) {
    /* reordered by 2: 40 ms later than its slot, it arrives 15 ms after
     * packet 42 and 5 ms before 43 */
    delays[0] += RTPCC_MSEC (55);
    return 1;
  }
  if (idx == 30) {
    delays[1] = delays[0] + RTPCC_MSEC (5);     /* duplicated */
    return 2;
  }
  return 1;
}

static void
hook_once (Loop * l, const guint8 * data, gsize len)
{
  OnceState *os = l->user;
  RtpccCcfb *fb = compound_ccfb (data, len);

  if (!fb)
    return;
  for (guint b = 0; b < fb->n_blocks; b++) {
    const RtpccCcfbBlock *blk = &fb->blocks[b];
    guint16 off = (guint16) (os->seq_dropped - blk->begin_seq);
    fail_unless_equals_int (blk->media_ssrc, MEDIA_SSRC);
    if (off < blk->num_reports) {
      fail_if (blk->metrics[off].received);
      os->ccfb_missing_dropped++;
    }
  }
  rtpcc_ccfb_free (fb);
}

GST_START_TEST (test_each_packet_reported_once)
{
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  const RtpccSenderStats *st;
  OnceState os;
  Loop *l;
  RecCC *rec;
  guint first_fb[64];
  gboolean received[64];

  sender_config (&sc, "test-recorder", 1000000);
  sc.pacing = FALSE;
  receiver_config (&rc);
  rc.feedback_interval = RTPCC_MSEC (10);       /* several CCFBs per packet */
  l = loop_new (&sc, &rc, RTPCC_SEC (100), RTPCC_MSEC (30), RTPCC_MSEC (30));
  l->fate = fate_once;
  l->on_feedback = hook_once;
  l->user = &os;
  loop_add_cbr (l, 0, RTPCC_MSEC (20), 60, PKT_SIZE, 0);
  os.seq_dropped = loop_pkt (l, 20)->info.seq;
  os.ccfb_missing_dropped = 0;
  loop_run (l, RTPCC_MSEC (1500));

  rec = recorder (l->s);
  fail_unless_equals_int (l->sent_order->len, 60);
  for (guint i = 0; i < 60; i++) {
    Pkt *p = loop_pkt (l, i);
    guint n = count_reports (rec, p->sender_seq, &first_fb[i], &received[i]);
    fail_unless_equals_int (n, 1);
    fail_unless (received[i] == (i != 20), "packet %u received %d", i,
        received[i]);
  }
  /* the premise: the arrival log reported the missing packet in two
   * feedbacks (each packet is in two, arrivallog.h) */
  fail_unless_equals_int (os.ccfb_missing_dropped, 2);
  /* one new packet per 20 ms and a CCFB every 10 ms: 21, 22 and 23 are
   * acknowledged in three feedbacks, and 20 is lost together with 23 */
  fail_unless (first_fb[21] < first_fb[22] && first_fb[22] < first_fb[23]);
  fail_unless_equals_int (first_fb[20], first_fb[23]);
  /* reordered by 2: a feedback acknowledged 42 before 40 arrived; 40 is
   * still reported received, later */
  fail_unless (first_fb[42] < first_fb[40]);
  fail_unless (first_fb[40] <= first_fb[43]);

  st = rtpcc_sender_get_stats (l->s, l->now);
  fail_unless_equals_uint64 (st->reported_received, 59);
  fail_unless_equals_uint64 (st->reported_lost, 1);
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (l->r,
          l->now + l->r_offset)->duplicates, 1);
  fail_unless_equals_int (l->spins, 0);
  loop_free (l);
}

GST_END_TEST;

static guint
fate_burst3 (Loop * l, guint idx, RtpccTime delays[2])
{
  return idx >= 10 && idx <= 12 ? 0 : 1;
}

GST_START_TEST (test_loss_needs_three_received_later)
{
  /* RFC 5348 §5.1 and transport.md: a packet is lost once NDUPACK (3)
   * packets *after it have been received*. Packets 10, 11, 12 are dropped;
   * 13, 14, 15 arrive one per feedback. Only with 15 have three later
   * packets arrived for any of them. */
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  Loop *l;
  RecCC *rec;
  guint first_fb[30];
  gboolean received[30];

  sender_config (&sc, "test-recorder", 1000000);
  sc.pacing = FALSE;
  receiver_config (&rc);
  rc.feedback_interval = RTPCC_MSEC (10);
  l = loop_new (&sc, &rc, 0, RTPCC_MSEC (30), RTPCC_MSEC (30));
  l->fate = fate_burst3;
  loop_add_cbr (l, 0, RTPCC_MSEC (20), 30, PKT_SIZE, 0);
  loop_run (l, RTPCC_MSEC (900));

  rec = recorder (l->s);
  for (guint i = 0; i < 30; i++) {
    fail_unless_equals_int (count_reports (rec, loop_pkt (l, i)->sender_seq,
            &first_fb[i], &received[i]), 1);
    fail_unless (received[i] == (i < 10 || i > 12));
  }
  fail_unless (first_fb[13] < first_fb[14] && first_fb[14] < first_fb[15]);
  for (guint i = 10; i <= 12; i++)
    fail_unless (first_fb[i] == first_fb[15],
        "packet %u declared lost in feedback %u, with only %u later "
        "packet(s) received (the third arrived in feedback %u)", i,
        first_fb[i], first_fb[i] == first_fb[13] ? 1 : 2, first_fb[15]);
  loop_free (l);
}

GST_END_TEST;

/* The mean loss burst the sender measures (lossburst.h): runs of @run
 * lost packets every 20, resolved out of send order as feedback comes. */
static guint
fate_runs (Loop * l, guint idx, RtpccTime delays[2])
{
  guint run = GPOINTER_TO_UINT (l->user);

  return idx % 20 >= 5 && idx % 20 < 5 + run ? 0 : 1;
}

GST_START_TEST (test_loss_burst)
{
  for (guint run = 1; run <= 4; run++) {
    RtpccSenderConfig sc;
    RtpccReceiverConfig rc;
    const RtpccSenderStats *st;
    Loop *l;

    sender_config (&sc, "test-recorder", 1000000);
    sc.pacing = FALSE;
    receiver_config (&rc);
    l = loop_new (&sc, &rc, 0, RTPCC_MSEC (30), RTPCC_MSEC (30));
    l->fate = fate_runs;
    l->user = GUINT_TO_POINTER (run);
    loop_add_cbr (l, 0, RTPCC_MSEC (10), 600, PKT_SIZE, 0);
    loop_run (l, RTPCC_SEC (7));
    st = rtpcc_sender_get_stats (l->s, l->now);
    fail_unless_equals_uint64 (st->reported_lost, 30 * run);
    fail_unless (fabs (st->loss_burst - run) < 0.02 * run,
        "runs of %u: mean burst %.3f", run, st->loss_burst);
    /* and the loss over the same packets */
    fail_unless (fabs (st->loss_window - run / 20.0) < 0.1 * run / 20.0,
        "runs of %u: loss %.4f", run, st->loss_window);
    /* worth publishing again once the channel showed: at least once, at
     * most every 500 ms of the 7 s */
    fail_unless (rtpcc_sender_get_channel_generation (l->s) >= 1);
    fail_unless (rtpcc_sender_get_channel_generation (l->s) <= 14);
    loop_free (l);
  }
}

GST_END_TEST;

/* One packet in 200 lost, alone. */
static guint
fate_rare (Loop * l, guint idx, RtpccTime delays[2])
{
  return idx % 200 == 7 ? 0 : 1;
}

/* max_fec_share: with a controller that gives no FEC share (fixed), FEC
 * appears once the channel loses, as much as buys the least residual the
 * share allows (an encoder choosing from fec / media finds that code):
 * all of the share at 10 % in runs of two, less at 0.5 % alone (a code
 * that leaves a negligible residual with less parity). Never more than
 * the share, taken from the media (the total stays), and no padding
 * fills it. Without loss nothing is taken. */
GST_START_TEST (test_max_fec_share)
{
  for (guint channel = 0; channel < 3; channel++) {
    RtpccSenderConfig sc;
    RtpccReceiverConfig rc;
    const RtpccSenderStats *st;
    const RtpccTarget *t;
    Loop *l;

    sender_config (&sc, "fixed", 1000000);
    sc.pacing = FALSE;
    sc.max_fec_share = 0.25;
    receiver_config (&rc);
    l = loop_new (&sc, &rc, 0, RTPCC_MSEC (30), RTPCC_MSEC (30));
    if (channel == 1) {
      l->fate = fate_runs;
      l->user = GUINT_TO_POINTER (2);
    } else if (channel == 2) {
      l->fate = fate_rare;
    }
    loop_add_cbr (l, 0, RTPCC_MSEC (10), 2000, PKT_SIZE, 0);
    loop_run (l, RTPCC_SEC (20));
    st = rtpcc_sender_get_stats (l->s, l->now);
    t = rtpcc_sender_get_target (l->s);
    fail_unless_equals_uint64 (t->target_bitrate, 1000000);
    fail_unless_equals_uint64 (t->media_bitrate + t->fec_bitrate, 1000000);
    /* (the loop does not ask for probes: nothing may be due) */
    for (guint i = 0; i < 3; i++)
      fail_if (rtpcc_sender_dequeue_probe (l->s, l->now + RTPCC_MSEC (50) *
              i, NULL), "padding for the FEC share");
    if (channel == 0) {
      fail_unless_equals_uint64 (st->fec_reserved, 0);
      fail_unless_equals_uint64 (t->fec_bitrate, 0);
    } else {
      /* parity as long as the packets plus the FEC header: the share in
       * bytes allows that much less in packets */
      gdouble ratio = rtpcc_fec_parity_ratio (PKT_SIZE, PKT_SIZE);
      RtpccFecChannel ch = { st->loss_window, st->loss_burst, 100,
        RTPCC_SENDER_FEC_BLOCK_TIME, 0.25 / 0.75 / ratio
      };
      RtpccFecChoice best, given;

      fail_unless (st->fec_reserved > 0);
      fail_unless_equals_uint64 (t->fec_bitrate, st->fec_reserved);
      fail_unless (t->fec_bitrate <= 250000, "%" G_GUINT64_FORMAT,
          t->fec_bitrate);
      fail_unless (rtpcc_fec_choose (&ch, &best));
      ch.max_overhead = (gdouble) t->fec_bitrate / t->media_bitrate / ratio;
      fail_unless (rtpcc_fec_choose (&ch, &given));
      fail_unless (given.residual <= best.residual,
          "reserved for (%u, %u), residual %g; the share allows (%u, %u), %g",
          given.k, given.m, given.residual, best.k, best.m, best.residual);
      /* the reserve is what that code takes in bytes (plus a twentieth):
       * with 10 % lost in runs of two the best the share allows, which
       * leaves a residual; with 0.5 % alone a code that leaves a
       * negligible one */
      {
        gdouble o = MIN (1.05 * best.m / best.k * ratio, 0.25 / 0.75);
        gdouble expected = 1e6 * o / (1 + o);

        fail_unless (fabs (t->fec_bitrate - expected) < 2000, "%"
            G_GUINT64_FORMAT " for (%u, %u), %.0f expected", t->fec_bitrate,
            best.k, best.m, expected);
        if (channel == 1)
          fail_unless (best.residual >= RTPCC_FEC_NEGLIGIBLE);
        else
          fail_unless (best.residual < RTPCC_FEC_NEGLIGIBLE);
      }
      if (channel == 1) {
        /* an FEC encoder that closes blocks after 15 ms (fecenc
         * max-block-time, rtpccsink tells the sender): one packet a block
         * at 100 packets/s, no code fills one, nothing is reserved; by
         * count alone (0) that code's share again */
        guint64 before = t->fec_bitrate;

        rtpcc_sender_set_fec_block_time (l->s, RTPCC_MSEC (15));
        loop_add_cbr (l, RTPCC_SEC (20), RTPCC_MSEC (10), 100, PKT_SIZE, 0);
        loop_run (l, RTPCC_SEC (21));
        fail_unless_equals_uint64 (rtpcc_sender_get_target (l->s)->fec_bitrate,
            0);
        rtpcc_sender_set_fec_block_time (l->s, 0);
        loop_add_cbr (l, RTPCC_SEC (21), RTPCC_MSEC (10), 100, PKT_SIZE, 0);
        loop_run (l, RTPCC_SEC (22));
        fail_unless (rtpcc_sender_get_target (l->s)->fec_bitrate >= before);
      }
    }
    loop_free (l);
  }
}

GST_END_TEST;

/* One max_fec_share call (fixed 1 Mbit/s, 25 %, 60 ms round trip,
 * 100 packets/s) on @fate; @nack: retransmissions on; @djb: the playout
 * delay the receiver reports from 1 s on (RTCP XR de-jitter buffer
 * metrics; NONE: not reported). The reserve and the chances it counted. */
static guint64
fec_share_call (FateFunc fate, gpointer user, gboolean nack, RtpccTime djb,
    guint * chances)
{
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  const RtpccSenderStats *st;
  guint64 reserved;
  Loop *l;

  sender_config (&sc, "fixed", 1000000);
  sc.pacing = FALSE;
  sc.max_fec_share = 0.25;
  receiver_config (&rc);
  rc.xr_blocks |= RTPCC_RECEIVER_XR_DEJITTER;
  l = loop_new (&sc, &rc, 0, RTPCC_MSEC (30), RTPCC_MSEC (30));
  l->fate = fate;
  l->user = user;
  rtpcc_sender_set_nack (l->s, nack);
  loop_add_cbr (l, 0, RTPCC_MSEC (10), 2000, PKT_SIZE, 0);
  loop_run (l, RTPCC_SEC (1));
  if (djb != RTPCC_TIME_NONE)
    fail_unless (rtpcc_receiver_set_dejitter (l->r, MEDIA_SSRC, FALSE, djb,
            RTPCC_TIME_NONE, RTPCC_TIME_NONE, RTPCC_TIME_NONE));
  loop_run (l, RTPCC_SEC (20));
  st = rtpcc_sender_get_stats (l->s, l->now);
  reserved = st->fec_reserved;
  *chances = st->fec_nack_chances;
  fail_unless_equals_uint64 (rtpcc_sender_get_target (l->s)->fec_bitrate,
      reserved);
  loop_free (l);
  return reserved;
}

/* With retransmissions, max_fec_share reserves for what NACK leaves: one
 * retransmission in time (a 60 ms round trip in a reported 300 or 100 ms
 * playout delay; repeats are not counted on) leaves p² of what a code
 * leaves. 0.5 % lost alone: a weaker code than FEC alone needs then
 * leaves a negligible loss, and less is reserved. 10 % lost in runs of
 * two still wants the strongest code the share allows. A playout delay
 * shorter than a round trip, none reported, or NACK off: as FEC alone. */
GST_START_TEST (test_max_fec_share_with_nack)
{
  gpointer runs2 = GUINT_TO_POINTER (2);
  guint chances;
  guint64 alone, r;

  alone = fec_share_call (fate_rare, NULL, FALSE, RTPCC_MSEC (300), &chances);
  fail_unless (alone > 0);
  fail_unless_equals_int (chances, 0);
  for (guint djb = 100; djb <= 300; djb += 200) {
    r = fec_share_call (fate_rare, NULL, TRUE, RTPCC_MSEC (djb), &chances);
    fail_unless_equals_int (chances, 1);
    fail_unless (r > 0 && r < alone, "%" G_GUINT64_FORMAT " with NACK, %"
        G_GUINT64_FORMAT " without", r, alone);
  }
  /* no time for a round trip: FEC alone */
  fail_unless_equals_uint64 (fec_share_call (fate_rare, NULL, TRUE,
          RTPCC_MSEC (50), &chances), alone);
  fail_unless_equals_int (chances, 0);

  alone = fec_share_call (fate_runs, runs2, FALSE, RTPCC_MSEC (300),
      &chances);
  fail_unless_equals_uint64 (fec_share_call (fate_runs, runs2, TRUE,
          RTPCC_MSEC (300), &chances), alone);
  fail_unless_equals_int (chances, 1);
  /* no playout delay known: FEC alone */
  r = fec_share_call (fate_rare, NULL, TRUE, RTPCC_TIME_NONE, &chances);
  fail_unless_equals_int (chances, 0);
  fail_unless_equals_uint64 (r, fec_share_call (fate_rare, NULL, FALSE,
          RTPCC_TIME_NONE, &chances));
}

GST_END_TEST;

/* ======================================================================== */
/* 3. Arrival differences                                                   */

typedef struct
{
  RtpccTime last_delivery;
} JitterState;

static guint
fate_jitter (Loop * l, guint idx, RtpccTime delays[2])
{
  JitterState *js = l->user;
  RtpccTime at = l->now + RTPCC_MSEC (30) +
      RTPCC_USEC ((idx * 7919u) % 23000u);

  /* jitter without reordering, as on a serial path */
  at = MAX (at, js->last_delivery);
  js->last_delivery = at;
  delays[0] = at - l->now;
  return 1;
}

GST_START_TEST (test_arrival_differences)
{
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  JitterState js = { 0 };
  Loop *l;
  RecCC *rec;
  const RtpccPacketReport *r0 = NULL;
  Pkt *p0 = NULL;
  guint checked = 0;
  RtpccTime min_owd = G_MAXINT64, last_owd = 0;
  const RtpccSenderStats *st;

  sender_config (&sc, "test-recorder", 1000000);
  sc.pacing = FALSE;
  receiver_config (&rc);
  /* across the receiver's 16.16 report-clock wrap */
  rc.ntp_offset = RTPCC_SEC (65536) * 30000 - RTPCC_MSEC (1000) -
      RTPCC_SEC (77);
  l = loop_new (&sc, &rc, RTPCC_SEC (77), 0, RTPCC_MSEC (25));
  l->fate = fate_jitter;
  l->user = &js;
  loop_add_cbr (l, 0, RTPCC_MSEC (10), 200, PKT_SIZE, 0);
  loop_run (l, RTPCC_MSEC (2300));

  rec = recorder (l->s);
  for (guint i = 0; i < rec->reports->len; i++) {
    const RtpccPacketReport *r = rec_report (rec, i);
    Pkt *p = loop_pkt_by_sender_seq (l, r->seq);
    RtpccTime est, truth;

    fail_unless (r->received && r->arrival != RTPCC_TIME_NONE);
    fail_unless_equals_int64 (r->send_time, p->sent);
    if (!r0) {
      r0 = r;
      p0 = p;
    }
    est = r->arrival - r0->arrival;
    truth = p->arrival - p0->arrival;
    fail_unless (abs64 (est - truth) <= ATO_UNIT_NS + 2,
        "packet %" G_GUINT64_FORMAT ": arrival difference %" G_GINT64_FORMAT
        " ns, true %" G_GINT64_FORMAT, r->seq, est, truth);
    min_owd = MIN (min_owd, p->arrival - p->sent);
    last_owd = p->arrival - p->sent;
    checked++;
  }
  fail_unless_equals_int (checked, 200);
  /* queue delay: the last packet's one-way delay above the minimum */
  st = rtpcc_sender_get_stats (l->s, l->now);
  fail_unless (abs64 (st->queue_delay - (last_owd - min_owd)) <= ATO_UNIT_NS
      + 2, "queue delay %" G_GINT64_FORMAT ", true %" G_GINT64_FORMAT,
      st->queue_delay, last_owd - min_owd);
  loop_free (l);
}

GST_END_TEST;

/* ======================================================================== */
/* 4. Loss events for the circuit breaker                                   */

#define BURST_FIRST 1800        /* 6 s into the call */
#define BURST_LEN 20

static guint
fate_burst20 (Loop * l, guint idx, RtpccTime delays[2])
{
  return idx >= BURST_FIRST && idx < BURST_FIRST + BURST_LEN ? 0 : 1;
}

/* 3 Mbit/s of 1250-byte packets (300 packets/s), RTT 1 s, a burst of 20
 * losses 6 s in, and 20 s of call.
 *
 * The window the breaker judges is CB_INTERVAL ≈ 10 RR intervals (RFC 8083
 * §4.3 with Tr = 1 s dominating: 10 × Tr / Tdr), about N = 3000 packets, and
 * the burst's interval holds about M = 300 of them. Sending rate 375 kB/s;
 * the breaker trips above 10 × s / (R · sqrt (2p/3)).
 *   RR fraction:    p ≈ (17/256) · M/N = 0.0066 → 10 X ≈ 188 kB/s: trips.
 *   loss events:    p ≈ (1/256) · M/N = 0.0004 → 10 X ≈ 775 kB/s: does not.
 * A factor of two on each side. */
static Loop *
run_burst_call (RtpccFeedbackMode mode, RtpccTime feedback_interval)
{
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  Loop *l;

  sender_config (&sc, "fixed", 3000000);
  sc.pacing = FALSE;
  sc.feedback = mode;
  receiver_config (&rc);
  rc.feedback = mode;
  rc.feedback_interval = feedback_interval;
  l = loop_new (&sc, &rc, RTPCC_SEC (1000), RTPCC_MSEC (500),
      RTPCC_MSEC (500));
  l->fate = fate_burst20;
  loop_add_cbr (l, 0, RTPCC_NSEC_PER_SEC / 300, 6000, PKT_SIZE, 0);
  loop_run (l, RTPCC_SEC (20));
  return l;
}

GST_START_TEST (test_breaker_gets_loss_event_rate)
{
  Loop *rr, *ccfb;
  const RtpccSenderStats *st;

  /* RR only: the breaker has nothing but the RR fraction lost (the
   * conservative side), and this traffic trips it */
  rr = run_burst_call (RTPCC_FEEDBACK_RR, 0);
  st = rtpcc_sender_get_stats (rr->s, rr->now);
  fail_unless (st->breaker_tripped);
  fail_unless_equals_string (st->breaker_reason, "congestion");
  fail_unless (st->breaker_drops > 0);

  /* CCFB: the same losses are one loss event: 1/N, not 20/N */
  ccfb = run_burst_call (RTPCC_FEEDBACK_CCFB, 0);
  st = rtpcc_sender_get_stats (ccfb->s, ccfb->now);
  fail_unless_equals_uint64 (st->reported_lost, BURST_LEN);
  fail_unless (!st->breaker_tripped, "tripped: %s", st->breaker_reason);
  fail_unless_equals_uint64 (st->breaker_drops, 0);
  fail_unless (abs64 (st->srtt - RTPCC_SEC (1)) < RTPCC_MSEC (1));
  fail_unless_equals_int (ccfb->spins, 0);
  fail_unless_equals_int (ccfb->r_spins, 0);
  loop_free (rr);
  loop_free (ccfb);
}

GST_END_TEST;

GST_START_TEST (test_breaker_loss_events_with_ccfb_in_rr_compound)
{
  /* The same call with feedback-interval = 2 s (rtpccsrc allows up to 5 s):
   * every CCFB now travels in the RR compound (RR + SDES + CCFB). The losses
   * it reports must reach the breaker as loss events as well. */
  Loop *l = run_burst_call (RTPCC_FEEDBACK_CCFB, RTPCC_SEC (2));
  const RtpccSenderStats *st = rtpcc_sender_get_stats (l->s, l->now);

  fail_unless (l->fb_built > 10);
  fail_unless (st->reported_lost >= BURST_LEN);
  fail_unless (!st->breaker_tripped, "tripped (%s): the breaker was given "
      "the RR fraction lost, not the loss event rate", st->breaker_reason);
  loop_free (l);
}

GST_END_TEST;

/* ======================================================================== */
/* 5. Idle sender, SR schedule                                              */

GST_START_TEST (test_idle_sender)
{
  RtpccSenderConfig sc;
  RtpccSender *s;
  RtpccRtpInfo info = rtp_info (1000, RTPCC_SEC (10), PKT_SIZE, TRUE);
  RtpccWirePacket out;
  guint8 buf[RTCP_MAX];
  RtpccTime now = RTPCC_SEC (10), t, last_sr, sum = 0, gmin = G_MAXINT64,
      gmax = 0;
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  RtpccRtcpSR sr;
  gsize n;

  sender_config (&sc, "fixed", 1000000);
  sc.circuit_breaker = FALSE;
  s = new_sender (&sc, now);

  /* nothing to do: no wake-up now or in the past (the element would spin) */
  for (RtpccTime dt = 0; dt <= RTPCC_SEC (3); dt += RTPCC_MSEC (250)) {
    t = rtpcc_sender_next_timeout (s, now + dt);
    fail_unless (t == RTPCC_TIME_NONE || t > now + dt);
    rtpcc_sender_tick (s, now + dt);
    fail_unless (rtpcc_sender_dequeue (s, now + dt, NULL) == NULL);
    fail_unless_equals_int (rtpcc_sender_build_rtcp (s, now + dt, buf,
            sizeof buf), 0);
  }
  now += RTPCC_SEC (3);

  /* one packet: it goes at once, and the first SR is due now */
  info.rtp_ts = 1000000;
  rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (42));
  t = rtpcc_sender_next_timeout (s, now);
  fail_unless (t != RTPCC_TIME_NONE && t <= now);
  fail_unless (rtpcc_sender_dequeue (s, now, &out) == GUINT_TO_POINTER (42));
  fail_unless_equals_int (out.info.seq, 1000);
  fail_unless (rtpcc_sender_dequeue (s, now, NULL) == NULL);
  n = rtpcc_sender_build_rtcp (s, now, buf, sizeof buf);
  fail_unless (n > 0);
  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  fail_if (it.reduced_size);
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless (rtpcc_rtcp_parse_sr (&pkt, &sr));
  fail_unless_equals_int (sr.ssrc, MEDIA_SSRC);
  fail_unless_equals_int (sr.packet_count, 1);
  fail_unless_equals_int (sr.octet_count, PKT_SIZE - 12);
  fail_unless_equals_int (sr.rtp_ts, 1000000);
  fail_unless_equals_uint64 (sr.ntp, rtpcc_ntp_from_time (now,
          sc.ntp_offset));
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless_equals_int (pkt.pt, RTPCC_RTCP_SDES);
  fail_if (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless_equals_int (rtpcc_sender_build_rtcp (s, now, buf, sizeof buf),
      0);

  /* then one SR per [0.5, 1.5] x 1 s, exactly when next_timeout says */
  last_sr = now;
  for (guint i = 0; i < 200; i++) {
    t = rtpcc_sender_next_timeout (s, now);
    fail_unless (t > now);
    fail_unless_equals_int (rtpcc_sender_build_rtcp (s, t - 1, buf,
            sizeof buf), 0);
    now = t;
    n = rtpcc_sender_build_rtcp (s, now, buf, sizeof buf);
    fail_unless (n > 0);
    fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
    fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
    fail_unless (rtpcc_rtcp_parse_sr (&pkt, &sr));
    /* the RTP clock of "now", extrapolated from the packet at 13 s */
    fail_unless_equals_int (sr.rtp_ts, (guint32) (1000000 +
            (guint32) (RTPCC_TIME_AS_SEC (now - RTPCC_SEC (13)) * 90000)));
    fail_unless (now - last_sr >= RTPCC_MSEC (500)
        && now - last_sr <= RTPCC_MSEC (1500));
    sum += now - last_sr;
    gmin = MIN (gmin, now - last_sr);
    gmax = MAX (gmax, now - last_sr);
    last_sr = now;
  }
  /* randomised, not fixed: spread over the range, mean ≈ 1 s */
  fail_unless (gmin < RTPCC_MSEC (600) && gmax > RTPCC_MSEC (1400));
  fail_unless (fabs (RTPCC_TIME_AS_SEC (sum / 200) - 1.0) < 0.1);
  rtpcc_sender_free (s);
}

GST_END_TEST;

GST_START_TEST (test_idle_sender_with_rtcp_ssrc)
{
  /* The same with an explicit RTCP SSRC (what tests/sim configures). Before
   * any stream exists no SR can be built: next_timeout must not report one
   * as due. */
  RtpccSenderConfig sc;
  RtpccSender *s;
  RtpccTime now = RTPCC_SEC (10);
  guint8 buf[RTCP_MAX];

  sender_config (&sc, "fixed", 1000000);
  sc.rtcp_ssrc = MEDIA_SSRC;
  s = new_sender (&sc, now);
  for (RtpccTime dt = 0; dt <= RTPCC_SEC (2); dt += RTPCC_MSEC (500)) {
    RtpccTime t = rtpcc_sender_next_timeout (s, now + dt);
    fail_unless_equals_int (rtpcc_sender_build_rtcp (s, now + dt, buf,
            sizeof buf), 0);
    fail_unless (t == RTPCC_TIME_NONE || t > now + dt,
        "next_timeout (%" G_GINT64_FORMAT ") = %" G_GINT64_FORMAT
        ": due with nothing to do", now + dt, t);
  }
  rtpcc_sender_free (s);
}

GST_END_TEST;

GST_START_TEST (test_sr_before_first_packet)
{
  /* An SR may be built between enqueue and the first dequeue (a window
   * controller or the pacer holding the packet). Its RTP timestamp must
   * belong to the stream, not be extrapolated from time 0 at 90 kHz. */
  RtpccSenderConfig sc;
  RtpccSender *s;
  RtpccTime now = RTPCC_SEC (50);
  RtpccRtpInfo info = rtp_info (7, now, PKT_SIZE, TRUE);
  guint8 buf[RTCP_MAX];
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  RtpccRtcpSR sr;
  gsize n;

  sender_config (&sc, "fixed", 1000000);
  s = new_sender (&sc, 0);
  info.rtp_ts = 123456;
  rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (1));
  n = rtpcc_sender_build_rtcp (s, now, buf, sizeof buf);
  if (n > 0) {
    fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
    fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
    fail_unless (rtpcc_rtcp_parse_sr (&pkt, &sr));
    fail_unless_equals_int (sr.packet_count, 0);
    fail_unless (sr.rtp_ts == 123456, "SR RTP timestamp %u for a stream at "
        "123456", sr.rtp_ts);
  }
  fail_unless (rtpcc_sender_dequeue (s, now, NULL) == GUINT_TO_POINTER (1));
  rtpcc_sender_free (s);
}

GST_END_TEST;

GST_START_TEST (test_no_spin_after_late_wakeup)
{
  /* A sender that sent two packets 1 ms apart and then paused, with no
   * feedback at all, driven by a timer that always fires 2 ms late (a
   * loaded machine). After each service the next wake-up must lie in the
   * future, or the element's task would spin. */
  RtpccSenderConfig sc;
  RtpccSender *s;
  RtpccRtpInfo info;
  RtpccTime now = 0, t;
  guint8 buf[RTCP_MAX];

  sender_config (&sc, "fixed", 1000000);
  sc.pacing = FALSE;
  s = new_sender (&sc, 0);
  for (guint i = 0; i < 2; i++) {
    now = RTPCC_MSEC (i);
    info = rtp_info (i, now, PKT_SIZE, FALSE);
    rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (i + 1));
    fail_unless (rtpcc_sender_dequeue (s, now, NULL) != NULL);
    rtpcc_sender_build_rtcp (s, now, buf, sizeof buf);
  }
  while (now < RTPCC_SEC (30)) {
    t = rtpcc_sender_next_timeout (s, now);
    fail_unless (t == RTPCC_TIME_NONE || t > now,
        "next_timeout (%" G_GINT64_FORMAT ") = %" G_GINT64_FORMAT, now, t);
    if (t == RTPCC_TIME_NONE)
      break;
    now = t + RTPCC_MSEC (2);
    rtpcc_sender_tick (s, now);
    rtpcc_sender_build_rtcp (s, now, buf, sizeof buf);
  }
  rtpcc_sender_free (s);
}

GST_END_TEST;

/* ======================================================================== */
/* 6. RTT from SR/RR                                                        */

typedef struct
{
  guint32 base_seq_ext;
  guint expected_prior, received_prior;
  GArray *fractions;            /* guint8, per RR the receiver built */
  GArray *cumulative;           /* gint32 */
  GArray *highest;              /* guint32 */
  gboolean saw_ccfb;
} RrState;

static guint
fate_every25 (Loop * l, guint idx, RtpccTime delays[2])
{
  return idx % 25 == 24 ? 0 : 1;
}

static void
hook_rr (Loop * l, const guint8 * data, gsize len)
{
  RrState *rs = l->user;
  Compound c;
  guint expected = 0, received = 0, ei, ri, lost_i;
  guint8 fraction;
  gint32 cumulative;
  guint32 highest;

  inspect (data, len, &c);
  if (c.has_ccfb)
    rs->saw_ccfb = TRUE;
  fail_unless (c.has_rr && c.has_sdes && c.first_pt == RTPCC_RTCP_RR);
  /* what the receiver has seen so far (FIFO delivery, no duplicates) */
  for (guint i = 0; i < l->pkts->len; i++) {
    Pkt *p = loop_pkt (l, i);
    if (p->sent != RTPCC_TIME_NONE && p->arrival != RTPCC_TIME_NONE) {
      expected = i + 1;
      received++;
    }
  }
  ei = expected - rs->expected_prior;
  ri = received - rs->received_prior;
  lost_i = ei - ri;
  fraction = ei == 0 || lost_i == 0 ? 0 : (guint8) MIN (lost_i * 256 / ei,
      255);
  cumulative = (gint32) (expected - received);
  highest = rs->base_seq_ext + expected - 1;
  rs->expected_prior = expected;
  rs->received_prior = received;
  g_array_append_val (rs->fractions, fraction);
  g_array_append_val (rs->cumulative, cumulative);
  g_array_append_val (rs->highest, highest);
}

GST_START_TEST (test_rr_mode_rtt_and_loss)
{
  const RtpccTime D = RTPCC_MSEC (70);
  const RtpccTime tol = 2 * RTS_UNIT_NS + 2;
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  RrState rs;
  Loop *l;
  RecCC *rec;
  const RtpccSenderStats *st;
  guint with_rtt = 0;
  guint64 sent_total = 0;

  sender_config (&sc, "test-recorder", 1000000);
  sc.pacing = FALSE;
  sc.feedback = RTPCC_FEEDBACK_RR;
  receiver_config (&rc);
  rc.feedback = RTPCC_FEEDBACK_RR;
  memset (&rs, 0, sizeof (rs));
  rs.base_seq_ext = FIRST_SEQ;
  rs.fractions = g_array_new (FALSE, FALSE, sizeof (guint8));
  rs.cumulative = g_array_new (FALSE, FALSE, sizeof (gint32));
  rs.highest = g_array_new (FALSE, FALSE, sizeof (guint32));
  l = loop_new (&sc, &rc, RTPCC_SEC (4242), D, D);
  l->fate = fate_every25;
  l->on_feedback = hook_rr;
  l->user = &rs;
  loop_add_cbr (l, 0, RTPCC_MSEC (10), 800, PKT_SIZE, 0);
  loop_run (l, RTPCC_MSEC (8000));

  rec = recorder (l->s);
  fail_if (rs.saw_ccfb, "an RR-mode receiver sent CCFB");
  fail_unless_equals_int (rec->fbs->len, 0);
  /* every RR the receiver built reached the controller, in order */
  fail_unless_equals_int (rec->rrs->len, rs.fractions->len);
  fail_unless (rec->rrs->len >= 5);
  for (guint i = 0; i < rec->rrs->len; i++) {
    const RecRR *x = &g_array_index (rec->rrs, RecRR, i);
    fail_unless_equals_int (x->rr.ssrc, MEDIA_SSRC);
    fail_unless_equals_int (x->rr.fraction_lost,
        g_array_index (rs.fractions, guint8, i));
    fail_unless_equals_int (x->rr.cumulative_lost,
        g_array_index (rs.cumulative, gint32, i));
    fail_unless_equals_int (x->rr.ext_highest_seq,
        g_array_index (rs.highest, guint32, i));
    sent_total += x->rr.packets_sent_interval;
    if (x->rr.rtt == RTPCC_TIME_NONE) {
      /* only before the receiver had an SR */
      fail_unless (i == 0, "RR %u without RTT", i);
      continue;
    }
    with_rtt++;
    fail_unless (abs64 (x->rr.rtt - 2 * D) <= tol, "RR RTT %" G_GINT64_FORMAT
        " ns, expected %" G_GINT64_FORMAT, x->rr.rtt, 2 * D);
  }
  fail_unless (with_rtt >= 4);
  /* packets_sent_interval adds up to what was sent before the last RR */
  {
    const RecRR *last = &g_array_index (rec->rrs, RecRR, rec->rrs->len - 1);
    guint64 before = 0;
    for (guint i = 0; i < l->pkts->len; i++)
      /* input at an instant is handled before that instant's sending */
      if (loop_pkt (l, i)->sent != RTPCC_TIME_NONE
          && loop_pkt (l, i)->sent < last->now)
        before++;
    fail_unless_equals_uint64 (sent_total, before);
  }
  st = rtpcc_sender_get_stats (l->s, l->now);
  fail_unless (abs64 (st->rtt - 2 * D) <= tol);
  fail_unless (abs64 (st->srtt - 2 * D) <= tol);
  fail_unless (rtpcc_sender_has_feedback (l->s));
  fail_unless (l->sr_accepted >= 4);
  fail_unless_equals_int (l->spins, 0);
  fail_unless_equals_int (l->r_spins, 0);
  g_array_unref (rs.fractions);
  g_array_unref (rs.cumulative);
  g_array_unref (rs.highest);
  loop_free (l);
}

GST_END_TEST;

/* ======================================================================== */
/* 7. Robustness                                                            */

/* A sender that has sent @n packets (seq @first_seq..) of its media SSRC at
 * @now. */
static RtpccSender *
sender_with_packets (const gchar * controller, RtpccTime now,
    guint16 first_seq, guint n)
{
  RtpccSenderConfig sc;
  RtpccSender *s;

  sender_config (&sc, controller, 1000000);
  sc.pacing = FALSE;
  s = new_sender (&sc, 0);
  for (guint i = 0; i < n; i++) {
    RtpccRtpInfo info = rtp_info ((guint16) (first_seq + i), now, PKT_SIZE,
        FALSE);
    rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (i + 1));
    fail_unless (rtpcc_sender_dequeue (s, now, NULL) != NULL);
  }
  return s;
}

static gsize
write_ccfb (guint8 * buf, guint32 media_ssrc, guint16 begin,
    const RtpccCcfbMetric * m, guint n, guint32 rts)
{
  RtpccCcfbBlockIn blk;
  gsize len;

  blk.media_ssrc = media_ssrc;
  blk.begin_seq = begin;
  blk.num_reports = n;
  blk.metrics = m;
  len = rtpcc_ccfb_write (buf, RTCP_MAX, 0xfeed0001u, rts, &blk, 1);
  fail_unless (len > 0);
  return len;
}

GST_START_TEST (test_robustness)
{
/* the stats as of now (brought up to date when asked for) */
#define ST rtpcc_sender_get_stats (s, RTPCC_SEC (1))
  RtpccSender *s = sender_with_packets ("test-recorder", RTPCC_SEC (1), 100,
      5);
  guint8 buf[RTCP_MAX];
  guint8 junk[64];
  RtpccCcfbMetric m[5];
  RtpccRtcpRR rr;
  RecCC *rec = recorder (s);
  gsize n;
  const RecFeedback *fb;

  /* malformed */
  memset (junk, 0, sizeof junk);
  fail_if (rtpcc_sender_receive_rtcp (s, RTPCC_SEC (1), junk, 0));
  fail_if (rtpcc_sender_receive_rtcp (s, RTPCC_SEC (1), junk, 3));
  junk[0] = 0x40;               /* version 1 */
  junk[1] = RTPCC_RTCP_RR;
  fail_if (rtpcc_sender_receive_rtcp (s, RTPCC_SEC (1), junk, 8));
  junk[0] = 0x80;
  junk[3] = 9;                  /* length beyond the datagram */
  fail_if (rtpcc_sender_receive_rtcp (s, RTPCC_SEC (1), junk, 8));
  fail_unless_equals_uint64 (ST->rtcp_malformed, 4);
  /* a CCFB whose block runs past the report timestamp */
  memset (m, 0, sizeof m);
  n = write_ccfb (buf, MEDIA_SSRC, 100, m, 2, 0x10000);
  buf[14] = 0x10;               /* num_reports 4098 */
  fail_if (rtpcc_sender_receive_rtcp (s, RTPCC_SEC (1), buf, n));
  fail_unless_equals_uint64 (ST->rtcp_malformed, 5);
  fail_unless_equals_uint64 (ST->rtcp_unknown_ssrc, 0);
  fail_unless_equals_uint64 (ST->rtcp_received, 0);

  /* a valid CCFB about an SSRC we do not send */
  m[0].received = TRUE;
  m[0].ato = 10;
  n = write_ccfb (buf, OTHER_SSRC, 100, m, 1, 0x10000);
  fail_if (rtpcc_sender_receive_rtcp (s, RTPCC_SEC (1), buf, n));
  fail_unless_equals_uint64 (ST->rtcp_unknown_ssrc, 1);
  fail_unless_equals_uint64 (ST->rtcp_malformed, 5);
  fail_unless_equals_uint64 (ST->rtcp_received, 0);
  fail_unless_equals_uint64 (ST->reported_received, 0);
  fail_unless_equals_int (rec->fbs->len, 0);

  /* an RR without report blocks (+ SDES): no report about us, not junk */
  memset (&rr, 0, sizeof rr);
  rr.ssrc = 0xfeed0001u;
  n = rtpcc_rtcp_write_rr (buf, sizeof buf, &rr);
  n += rtpcc_rtcp_write_sdes_cname (buf + n, sizeof buf - n, rr.ssrc, "x@y");
  {
    guint64 unknown = ST->rtcp_unknown_ssrc;
    fail_if (rtpcc_sender_receive_rtcp (s, RTPCC_SEC (1), buf, n));
    /* says nothing about anyone: not "about an SSRC we do not send" */
    fail_unless_equals_uint64 (ST->rtcp_unknown_ssrc, unknown);
  }
  fail_unless_equals_uint64 (ST->rtcp_malformed, 5);
  fail_unless_equals_uint64 (ST->rtcp_received, 0);
  fail_unless_equals_int (rec->rrs->len, 0);

  /* over-range and unavailable arrival offsets: received, time unknown */
  memset (m, 0, sizeof m);
  m[0].received = TRUE;
  m[0].ato = RTPCC_CCFB_ATO_OVER_RANGE;
  m[1].received = TRUE;
  m[1].ato = RTPCC_CCFB_ATO_UNAVAILABLE;
  m[2].received = FALSE;
  m[3].received = TRUE;
  m[3].ato = RTPCC_CCFB_ATO_UNAVAILABLE;
  m[4].received = TRUE;
  m[4].ato = RTPCC_CCFB_ATO_OVER_RANGE;
  n = write_ccfb (buf, MEDIA_SSRC, 100, m, 5, 0x12345678);
  fail_unless (rtpcc_sender_receive_rtcp (s, RTPCC_MSEC (1100), buf, n));
  fail_unless_equals_int (rec->fbs->len, 1);
  fb = rec_fb (rec, 0);
  fail_unless_equals_int (fb->n, 4);
  fail_unless (fb->rtt_sample == RTPCC_TIME_NONE);
  for (guint i = 0; i < 4; i++) {
    const RtpccPacketReport *r = rec_report (rec, fb->first + i);
    /* sender seqs 1..5 are RTP 100..104; 3 (RTP 102) is missing, and with
     * only 104 beyond it not yet lost */
    fail_unless_equals_uint64 (r->seq, i < 2 ? i + 1 : i + 2);
    fail_unless (r->received);
    fail_unless (r->arrival == RTPCC_TIME_NONE);
    fail_unless_equals_int64 (r->send_time, RTPCC_SEC (1));
  }
  {
    const RtpccSenderStats *st = rtpcc_sender_get_stats (s,
        RTPCC_MSEC (1100));
    fail_unless_equals_uint64 (st->reported_received, 4);
    fail_unless_equals_uint64 (st->reported_lost, 0);
    fail_unless (st->rtt == RTPCC_TIME_NONE);
    fail_unless_equals_uint64 (st->rtcp_received, 1);
    fail_unless_equals_int64 (st->queue_delay, 0);
  }
  rtpcc_sender_free (s);
#undef ST
}

GST_END_TEST;

GST_START_TEST (test_rtt_sample_belongs_to_its_feedback)
{
  /* RtpccFeedback.rtt_sample is "the RTT sample taken from this feedback,
   * or NONE". A feedback whose only timed packet yields no usable sample
   * (here: a hold time that exceeds the round trip, as ATO rounding does
   * on a sub-millisecond path) must not repeat an older sample. */
  RtpccSender *s = sender_with_packets ("test-recorder", RTPCC_SEC (1), 200,
      1);
  RecCC *rec = recorder (s);
  RtpccCcfbMetric m = { 0, TRUE, 0, 0 };
  guint8 buf[RTCP_MAX];
  guint32 rts = 0x00100000;     /* 16 s on the receiver's report clock */
  RtpccRtpInfo info;
  gsize n;

  /* RTP 200 sent at 1 s, reported at 1.1 s, held 50 ms: RTT 50 ms */
  m.ato = 51;                   /* 51/1024 s = 49.8 ms */
  n = write_ccfb (buf, MEDIA_SSRC, 200, &m, 1, rts);
  fail_unless (rtpcc_sender_receive_rtcp (s, RTPCC_MSEC (1100), buf, n));
  fail_unless_equals_int (rec->fbs->len, 1);
  fail_unless (abs64 (rec_fb (rec, 0)->rtt_sample - RTPCC_MSEC (100) +
          rtpcc_ccfb_ato_to_delta (51)) <= 1);

  /* RTP 201 sent at 2 s and reported 1 ms later with a 5 ms hold */
  info = rtp_info (201, RTPCC_SEC (2), PKT_SIZE, FALSE);
  rtpcc_sender_enqueue (s, RTPCC_SEC (2), &info, GUINT_TO_POINTER (9));
  fail_unless (rtpcc_sender_dequeue (s, RTPCC_SEC (2), NULL) != NULL);
  m.ato = 5;
  /* the receiver's clock advanced as ours did: 16.901 s */
  n = write_ccfb (buf, MEDIA_SSRC, 201, &m, 1, rts + 59049);
  fail_unless (rtpcc_sender_receive_rtcp (s, RTPCC_SEC (2) + RTPCC_MSEC (1),
          buf, n));
  fail_unless_equals_int (rec->fbs->len, 2);
  fail_unless (rec_fb (rec, 1)->rtt_sample == RTPCC_TIME_NONE
      || rec_fb (rec, 1)->rtt_sample <= RTPCC_MSEC (1),
      "rtt_sample %" G_GINT64_FORMAT " ns repeats the previous feedback's",
      rec_fb (rec, 1)->rtt_sample);
  rtpcc_sender_free (s);
}

GST_END_TEST;

GST_START_TEST (test_breaker_recovers_on_empty_rr)
{
  /* No feedback at all: the RTCP timeout (3 x max (1 s, 5 s) = 15 s from
   * the first packet at 0) trips at 15 s, and holds off for 15 s. An RR
   * with no report blocks (all a receiver can say while our media is
   * stopped) is the sign of life recovery waits for. */
  RtpccSenderConfig sc;
  RtpccSender *s;
  RtpccRtcpRR rr;
  guint8 buf[RTCP_MAX];
  gsize n;
  guint seq = 0;
  RtpccTime now;
  const RtpccSenderStats *st;
  RtpccRtpInfo info;
  gboolean woke_at_resume = FALSE;

  sender_config (&sc, "fixed", 1000000);
  sc.pacing = FALSE;
  s = new_sender (&sc, 0);
  for (now = 0; now <= RTPCC_SEC (15); now += RTPCC_MSEC (100)) {
    info = rtp_info (seq++, now, PKT_SIZE, FALSE);
    rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (seq));
    rtpcc_sender_tick (s, now);
    if (now < RTPCC_SEC (15))
      fail_unless (rtpcc_sender_dequeue (s, now, NULL) != NULL,
          "at %" G_GINT64_FORMAT, now);
    else
      fail_unless (rtpcc_sender_dequeue (s, now, NULL) == NULL);
    rtpcc_sender_build_rtcp (s, now, buf, sizeof buf);
  }
  st = rtpcc_sender_get_stats (s, now);
  fail_unless (st->breaker_tripped);
  fail_unless_equals_string (st->breaker_reason, "rtcp-timeout");
  fail_unless_equals_uint64 (st->breaker_drops, 1);
  fail_unless_equals_string (rtpcc_sender_get_target (s)->state,
      "circuit-breaker");
  fail_unless_equals_uint64 (rtpcc_sender_get_target (s)->target_bitrate,
      sc.cc.min_bitrate);

  /* the empty RR at 25 s, during the hold-off: not malformed, no report */
  now = RTPCC_SEC (25);
  memset (&rr, 0, sizeof rr);
  rr.ssrc = 0xfeed0001u;
  n = rtpcc_rtcp_write_rr (buf, sizeof buf, &rr);
  n += rtpcc_rtcp_write_sdes_cname (buf + n, sizeof buf - n, rr.ssrc, "x@y");
  rtpcc_sender_receive_rtcp (s, now, buf, n);
  fail_unless_equals_uint64 (st->rtcp_malformed, 0);
  fail_unless_equals_uint64 (st->rtcp_received, 0);
  rtpcc_sender_build_rtcp (s, now, buf, sizeof buf);
  /* still tripped: media is dropped */
  info = rtp_info (seq++, now, PKT_SIZE, FALSE);
  rtpcc_sender_enqueue (s, now, &info, GUINT_TO_POINTER (seq));
  rtpcc_sender_tick (s, now);
  fail_unless (rtpcc_sender_dequeue (s, now, NULL) == NULL);
  fail_unless_equals_uint64 (st->breaker_drops, 2);

  /* the end of the hold-off (30 s) is one of the wake-ups */
  for (;;) {
    RtpccTime t = rtpcc_sender_next_timeout (s, now);
    fail_unless (t != RTPCC_TIME_NONE && t > now);
    if (t > RTPCC_SEC (30))
      break;
    now = t;
    rtpcc_sender_tick (s, now);
    rtpcc_sender_build_rtcp (s, now, buf, sizeof buf);
    if (now == RTPCC_SEC (30))
      woke_at_resume = TRUE;
  }
  fail_unless (woke_at_resume);

  /* probation at the minimum rate: media flows again */
  info = rtp_info (seq++, RTPCC_SEC (30), PKT_SIZE, FALSE);
  rtpcc_sender_enqueue (s, RTPCC_SEC (30), &info, GUINT_TO_POINTER (seq));
  fail_unless (rtpcc_sender_dequeue (s, RTPCC_SEC (30), NULL) ==
      GUINT_TO_POINTER (seq));
  st = rtpcc_sender_get_stats (s, RTPCC_SEC (30));
  fail_unless (st->breaker_tripped);    /* still on probation */
  fail_unless_equals_uint64 (rtpcc_sender_get_target (s)->target_bitrate,
      sc.cc.min_bitrate);
  rtpcc_sender_free (s);
}

GST_END_TEST;

GST_START_TEST (test_ccfb_report_limit_no_false_losses)
{
  /* feedback-interval = 1 s (rtpccsrc allows up to 5 s) and 2000 small
   * packets/s, no loss: more packets arrive between two CCFBs than one CCFB
   * carries (512 per SSRC). Nothing was lost, so nothing may be reported
   * lost. */
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  Loop *l;
  const RtpccSenderStats *st;

  sender_config (&sc, "test-recorder", 5000000);
  sc.pacing = FALSE;
  receiver_config (&rc);
  rc.feedback_interval = RTPCC_SEC (1);
  l = loop_new (&sc, &rc, 0, RTPCC_MSEC (20), RTPCC_MSEC (20));
  loop_add_cbr (l, 0, RTPCC_USEC (500), 6000, 200, 0);
  loop_run (l, RTPCC_SEC (5));
  st = rtpcc_sender_get_stats (l->s, l->now);
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (l->r,
          l->now + l->r_offset)->packets_lost, 0);
  fail_unless (st->reported_lost == 0, "%" G_GUINT64_FORMAT " of %"
      G_GUINT64_FORMAT " packets reported lost, none was",
      st->reported_lost, st->reported_lost + st->reported_received);
  loop_free (l);
}

GST_END_TEST;

/* ======================================================================== */
/* 8. Pacing through the sender                                             */

/* Runs the sender alone as an element would: wake at next_timeout, tick,
 * dequeue everything, build RTCP. Dequeue times go to @times. */
static guint
drain_sender (RtpccSender * s, RtpccTime * now, RtpccTime until,
    RtpccTime * times, guint max)
{
  guint n = 0;
  guint8 buf[RTCP_MAX];

  for (;;) {
    RtpccTime t;
    rtpcc_sender_tick (s, *now);
    while (rtpcc_sender_dequeue (s, *now, NULL)) {
      fail_unless (n < max);
      times[n++] = *now;
    }
    rtpcc_sender_build_rtcp (s, *now, buf, sizeof buf);
    t = rtpcc_sender_next_timeout (s, *now);
    if (t == RTPCC_TIME_NONE || t > until)
      break;
    fail_unless (t > *now, "next_timeout %" G_GINT64_FORMAT " <= now %"
        G_GINT64_FORMAT, t, *now);
    *now = t;
  }
  return n;
}

static RtpccSender *
sender_with_burst (gboolean pacing, guint count)
{
  RtpccSenderConfig sc;
  RtpccSender *s;

  sender_config (&sc, "fixed", 1000000);
  sc.pacing = pacing;
  fail_unless_equals_int64 (sc.pacer.max_delay, RTPCC_MSEC (100));
  s = new_sender (&sc, 0);
  for (guint i = 0; i < count; i++) {
    RtpccRtpInfo info = rtp_info (i, 0, PKT_SIZE, i + 1 == count);
    rtpcc_sender_enqueue (s, 0, &info, GUINT_TO_POINTER (i + 1));
  }
  return s;
}

GST_START_TEST (test_pacing_bounded_spreading)
{
  /* 100 x 1250 B at 1 Mbit/s would take 1 s; max-delay 100 ms raises the
   * drain rate to (bytes queued) / (time left): with k packets left and
   * L = 100 ms − t, the next goes (L / k) later. The idle pacer also starts
   * with 5 ms of credit, so packets 0..4 leave at once:
   *   t5 = −5 ms + 100 ms × (1/100 + 1/99 + 1/98 + 1/97 + 1/96)
   * and from then on L shrinks by a factor (k − 1)/k per packet:
   *   t_j = 100 ms − (100 ms − t5) × (100 − j) / 95,  j ≥ 5
   * i.e. one every 1.0516 ms, the last at 98.95 ms. */
  RtpccSender *s = sender_with_burst (TRUE, 100);
  RtpccTime times[100], now = 0, t5;
  const gdouble T = RTPCC_MSEC (100);

  fail_unless_equals_int (drain_sender (s, &now, RTPCC_MSEC (200), times,
          100), 100);
  t5 = (RtpccTime) (-RTPCC_MSEC (5) + T * (1.0 / 100 + 1.0 / 99 + 1.0 / 98 +
          1.0 / 97 + 1.0 / 96));
  for (guint j = 0; j < 100; j++) {
    RtpccTime expect = j < 5 ? 0 :
        (RtpccTime) (T - (T - t5) * (100.0 - j) / 95.0);
    fail_unless (abs64 (times[j] - expect) <= 1000, "packet %u at %"
        G_GINT64_FORMAT " ns, expected %" G_GINT64_FORMAT, j, times[j],
        expect);
    fail_unless (times[j] <= RTPCC_MSEC (100));
  }
  fail_unless (times[99] > RTPCC_MSEC (98));
  rtpcc_sender_free (s);

  /* 5 packets fit the 1 Mbit/s rate within 100 ms: 10 ms apart (after the
   * 5 ms idle credit) */
  s = sender_with_burst (TRUE, 5);
  now = 0;
  fail_unless_equals_int (drain_sender (s, &now, RTPCC_MSEC (200), times,
          100), 5);
  fail_unless_equals_int64 (times[0], 0);
  for (guint j = 1; j < 5; j++)
    fail_unless (abs64 (times[j] - RTPCC_MSEC (10 * j - 5)) <= 10,
        "packet %u at %" G_GINT64_FORMAT, j, times[j]);
  rtpcc_sender_free (s);

  /* pacing off: all at once */
  s = sender_with_burst (FALSE, 100);
  now = 0;
  fail_unless_equals_int (drain_sender (s, &now, RTPCC_MSEC (200), times,
          100), 100);
  for (guint j = 0; j < 100; j++)
    fail_unless_equals_int64 (times[j], 0);
  rtpcc_sender_free (s);
}

GST_END_TEST;

/* ======================================================================== */
/* 9. Receiver                                                              */

/* Feeds @frames frames of @per_frame packets @frame_iv apart from @start
 * (marker on each frame's last packet unless @markers is FALSE), building
 * feedback whenever it is due. Returns the times of the CCFB-only (reduced
 * size) feedback in @ccfb_times. */
static guint
feed_frames (RtpccReceiver * r, RtpccTime start, guint frames,
    guint per_frame, RtpccTime frame_iv, gboolean markers, gboolean fec,
    guint16 * seq, RtpccTime * ccfb_times, guint max)
{
  guint8 buf[RTCP_MAX];
  guint n = 0;
  RtpccTime end = start + frames * frame_iv;

  for (guint f = 0; f < frames; f++) {
    RtpccTime t = start + f * frame_iv;
    for (guint k = 0; k < per_frame; k++) {
      RtpccRtpInfo info = rtp_info ((*seq)++, t, PKT_SIZE, markers
          && k + 1 == per_frame);
      info.is_fec = fec;
      rtpcc_receiver_on_rtp (r, t + k * RTPCC_USEC (100), &info);
    }
    /* feedback due before the next frame */
    for (;;) {
      RtpccTime due = rtpcc_receiver_next_feedback_time (r);
      gsize len;
      if (due == RTPCC_TIME_NONE || due >= MIN (t + frame_iv, end))
        break;
      due = MAX (due, t + per_frame * RTPCC_USEC (100));
      len = rtpcc_receiver_build_feedback (r, due, buf, sizeof buf);
      fail_unless (rtpcc_receiver_next_feedback_time (r) > due);
      if (len > 0) {
        Compound c;
        inspect (buf, len, &c);
        if (c.first_pt == RTPCC_RTCP_RTPFB && ccfb_times && n < max)
          ccfb_times[n++] = due;
      }
    }
  }
  return n;
}

static RtpccTime
adaptive_interval (RtpccTime frame_iv, gboolean markers, gboolean fec)
{
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  guint16 seq = 0;
  RtpccTime iv;

  receiver_config (&rc);
  r = rtpcc_receiver_new (&rc, 0);
  feed_frames (r, RTPCC_SEC (1), 20, 3, frame_iv, markers, fec, &seq, NULL,
      0);
  iv = rtpcc_receiver_get_stats (r, RTPCC_SEC (5))->feedback_interval;
  rtpcc_receiver_free (r);
  return iv;
}

GST_START_TEST (test_receiver_feedback_interval)
{
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  RtpccTime times[128];
  guint16 seq = 0;
  guint n, checked = 0;

  /* one CCFB per frame, from the marker bits, within [20, 100] ms */
  fail_unless_equals_int64 (adaptive_interval (33333333, TRUE, FALSE),
      33333333);
  fail_unless_equals_int64 (adaptive_interval (RTPCC_MSEC (40), TRUE, FALSE),
      RTPCC_MSEC (40));
  fail_unless_equals_int64 (adaptive_interval (16666667, TRUE, FALSE),
      RTPCC_MSEC (20));
  fail_unless_equals_int64 (adaptive_interval (RTPCC_MSEC (200), TRUE,
          FALSE), RTPCC_MSEC (100));
  /* no markers (or only on FEC packets): 50 ms */
  fail_unless_equals_int64 (adaptive_interval (33333333, FALSE, FALSE),
      RTPCC_MSEC (50));
  fail_unless_equals_int64 (adaptive_interval (33333333, TRUE, TRUE),
      RTPCC_MSEC (50));

  /* the schedule itself at 30 fps: reduced-size CCFBs exactly one frame
   * interval after the previous feedback */
  receiver_config (&rc);
  r = rtpcc_receiver_new (&rc, 0);
  fail_unless (rtpcc_receiver_next_feedback_time (r) == RTPCC_TIME_NONE);
  n = feed_frames (r, RTPCC_SEC (1), 90, 3, 33333333, TRUE, FALSE, &seq,
      times, G_N_ELEMENTS (times));
  fail_unless (n >= 80, "%u", n);
  for (guint i = 1; i < n; i++) {
    /* an RR compound in between restarts the interval */
    if (times[i] - times[i - 1] > 33333333 + RTPCC_USEC (300))
      continue;
    fail_unless (abs64 (times[i] - times[i - 1] - 33333333) <=
        RTPCC_USEC (300), "gap %" G_GINT64_FORMAT, times[i] - times[i - 1]);
    checked++;
  }
  fail_unless (checked >= 70);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

GST_START_TEST (test_receiver_quiet_without_media)
{
  /* 10 packets in 90 ms, then silence: CCFBs stop, RRs go on at the RTCP
   * interval, the first half an interval after the first packet. */
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  guint8 buf[RTCP_MAX];
  RtpccTime now = RTPCC_SEC (2), last_rr = RTPCC_TIME_NONE;
  guint rrs = 0, ccfbs_after = 0, ccfbs = 0;
  guint64 fb_sent;

  receiver_config (&rc);
  r = rtpcc_receiver_new (&rc, 0);
  for (guint i = 0; i < 10; i++) {
    RtpccRtpInfo info = rtp_info ((guint16) (65530 + i), now, PKT_SIZE, TRUE);
    rtpcc_receiver_on_rtp (r, now + i * RTPCC_MSEC (10), &info);
  }
  while (now < RTPCC_SEC (12)) {
    RtpccTime t = rtpcc_receiver_next_feedback_time (r);
    gsize n;
    Compound c;
    fail_unless (t != RTPCC_TIME_NONE);
    now = MAX (t, RTPCC_SEC (2) + RTPCC_MSEC (90));
    n = rtpcc_receiver_build_feedback (r, now, buf, sizeof buf);
    fail_unless (rtpcc_receiver_next_feedback_time (r) > now);
    if (n == 0)
      continue;
    inspect (buf, n, &c);
    if (c.has_ccfb) {
      ccfbs++;
      if (now > RTPCC_SEC (2) + RTPCC_MSEC (200))
        ccfbs_after++;
    }
    if (c.has_rr) {
      fail_unless (c.first_pt == RTPCC_RTCP_RR && c.has_sdes);
      if (last_rr == RTPCC_TIME_NONE) {
        fail_unless_equals_int64 (now, RTPCC_SEC (2) + RTPCC_MSEC (500));
      } else {
        fail_unless (now - last_rr >= RTPCC_MSEC (500)
            && now - last_rr <= RTPCC_MSEC (1500));
      }
      last_rr = now;
      rrs++;
    } else {
      fail_unless (c.first_pt == RTPCC_RTCP_RTPFB && c.n_packets == 1);
    }
  }
  fail_unless (ccfbs >= 1 && ccfbs <= 2, "%u", ccfbs);
  fail_unless_equals_int (ccfbs_after, 0);
  fail_unless (rrs >= 7, "%u RRs in 10 s", rrs);
  fb_sent = rtpcc_receiver_get_stats (r, now)->feedback_sent;
  fail_unless_equals_uint64 (fb_sent, ccfbs);
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (r, now)->rtcp_sent,
      rrs);
  rtpcc_receiver_free (r);

  /* RR mode: never a CCFB, and next_feedback_time is the RR's */
  receiver_config (&rc);
  rc.feedback = RTPCC_FEEDBACK_RR;
  r = rtpcc_receiver_new (&rc, 0);
  now = RTPCC_SEC (1);
  for (guint i = 0; i < 300; i++) {
    RtpccRtpInfo info = rtp_info ((guint16) i, now, PKT_SIZE, TRUE);
    RtpccTime t;
    now = RTPCC_SEC (1) + i * RTPCC_MSEC (10);
    rtpcc_receiver_on_rtp (r, now, &info);
    t = rtpcc_receiver_next_feedback_time (r);
    if (t <= now) {
      gsize n = rtpcc_receiver_build_feedback (r, now, buf, sizeof buf);
      Compound c;
      fail_unless (n > 0);
      inspect (buf, n, &c);
      fail_unless (c.has_rr && !c.has_ccfb);
    } else {
      fail_unless_equals_int (rtpcc_receiver_build_feedback (r, now, buf,
              sizeof buf), 0);
    }
  }
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (r, now)->feedback_sent,
      0);
  fail_unless (rtpcc_receiver_get_stats (r, now)->rtcp_sent >= 2);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

static void
rx (RtpccReceiver * r, guint16 seq, RtpccTime t)
{
  RtpccRtpInfo info = rtp_info (seq, t, PKT_SIZE, FALSE);
  rtpcc_receiver_on_rtp (r, t, &info);
}

GST_START_TEST (test_receiver_stats)
{
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  const RtpccReceiverStats *st;
  RtpccTime t = RTPCC_SEC (1);

  receiver_config (&rc);

  /* RFC 3550 A.3: lost = expected − received. 65530..9 (16 packets across
   * the wrap), 65533 and 2 missing, 4 before 3 */
  r = rtpcc_receiver_new (&rc, 0);
  for (guint i = 0; i < 16; i++) {
    guint16 seq = (guint16) (65530 + i);
    if (seq == 65533 || seq == 2 || seq == 3)
      continue;
    rx (r, seq, t += RTPCC_MSEC (1));
    if (seq == 4)
      rx (r, 3, t += RTPCC_MSEC (1));
  }
  st = rtpcc_receiver_get_stats (r, t);
  fail_unless_equals_uint64 (st->packets_received, 14);
  fail_unless_equals_uint64 (st->packets_lost, 2);
  fail_unless_equals_uint64 (st->duplicates, 0);
  fail_unless_equals_uint64 (st->stale, 0);
  fail_unless_equals_int (st->sources, 1);
  /* a duplicate counts as received in A.3's arithmetic */
  rx (r, 65535, t += RTPCC_MSEC (1));
  st = rtpcc_receiver_get_stats (r, t);
  fail_unless_equals_uint64 (st->duplicates, 1);
  fail_unless_equals_uint64 (st->packets_lost, 1);
  rtpcc_receiver_free (r);

  /* duplicates vs stale: 0..9999 in order (the log keeps 8192) */
  r = rtpcc_receiver_new (&rc, 0);
  for (guint i = 0; i < 10000; i++)
    rx (r, (guint16) i, t += RTPCC_USEC (100));
  rx (r, 9990, t += RTPCC_USEC (100));  /* still in the log: duplicate */
  rx (r, 1000, t += RTPCC_USEC (100));  /* 9000 back: older than the log */
  rx (r, 9995, t += RTPCC_USEC (100));  /* duplicate */
  rx (r, (guint16) (9999 - 20000), t += RTPCC_USEC (100));      /* stale */
  st = rtpcc_receiver_get_stats (r, t);
  fail_unless_equals_uint64 (st->packets_received, 10004);
  fail_unless_equals_uint64 (st->duplicates, 2);
  fail_unless_equals_uint64 (st->stale, 2);
  fail_unless_equals_uint64 (st->packets_lost, 0);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* One packet of @ssrc: payload unless @padding (a probe). Returns what
 * rtpcc_receiver_on_rtp says: pass it on? */
static gboolean
rx_ssrc (RtpccReceiver * r, guint32 ssrc, guint16 seq, RtpccTime t,
    gboolean padding)
{
  RtpccRtpInfo info = rtp_info (seq, t, padding ? 40 : PKT_SIZE, FALSE);

  info.ssrc = ssrc;
  info.padding_only = padding;
  return rtpcc_receiver_on_rtp (r, t, &info);
}

/* The receiver's source table: which padding is passed on, and who makes
 * room for whom once RTPCC_RECEIVER_MAX_SOURCES SSRCs are tracked. */
GST_START_TEST (test_receiver_source_table)
{
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  const RtpccReceiverStats *st;
  RtpccTime t = RTPCC_SEC (1);
  const guint32 media = 0x1000, probe = 0x2000, spray = 0x30000, late = 0x4000;
  guint16 seq = 0;

  receiver_config (&rc);

  /* padding on an SSRC that never carried payload: logged, not passed on;
   * on a media SSRC it is passed on (it holds a seq of that stream) */
  r = rtpcc_receiver_new (&rc, 0);
  fail_if (rx_ssrc (r, probe, 1, t += RTPCC_MSEC (1), TRUE));
  fail_unless (rx_ssrc (r, media, 1, t += RTPCC_MSEC (1), FALSE));
  fail_unless (rx_ssrc (r, media, 2, t += RTPCC_MSEC (1), TRUE));
  fail_if (rx_ssrc (r, probe, 2, t += RTPCC_MSEC (1), TRUE));
  st = rtpcc_receiver_get_stats (r, t);
  fail_unless_equals_int (st->sources, 2);
  fail_unless_equals_int (st->media_sources, 1);
  fail_unless_equals_uint64 (st->packets_received, 4);
  rtpcc_receiver_free (r);

  /* an established stream survives a spray of one-off SSRCs, which churn
   * among themselves; a new stream still gets a place */
  r = rtpcc_receiver_new (&rc, 0);
  for (guint i = 0; i < RTPCC_RECEIVER_ESTABLISHED; i++)
    rx_ssrc (r, media, seq++, t += RTPCC_MSEC (1), FALSE);
  for (guint i = 0; i < 100; i++)
    fail_unless (rx_ssrc (r, spray + i, 7, t += RTPCC_MSEC (1), FALSE));
  st = rtpcc_receiver_get_stats (r, t);
  fail_unless_equals_int (st->sources, RTPCC_RECEIVER_MAX_SOURCES);
  fail_unless_equals_uint64 (st->sources_evicted,
      100 - (RTPCC_RECEIVER_MAX_SOURCES - 1));
  fail_unless_equals_uint64 (st->packets_untracked, 0);
  /* still tracked: its padding passes, no loss across the spray */
  fail_unless (rx_ssrc (r, media, seq++, t += RTPCC_MSEC (1), TRUE));
  fail_unless (rx_ssrc (r, late, 1, t += RTPCC_MSEC (1), FALSE));
  fail_unless (rx_ssrc (r, late, 2, t += RTPCC_MSEC (1), TRUE));
  st = rtpcc_receiver_get_stats (r, t);
  fail_unless_equals_uint64 (st->packets_lost, 0);
  fail_unless_equals_uint64 (st->sources_evicted,
      100 - (RTPCC_RECEIVER_MAX_SOURCES - 1) + 1);
  rtpcc_receiver_free (r);

  /* a table of established live streams takes nobody new: the newcomer
   * is counted, its payload passes, its padding (unknown SSRC) does not */
  r = rtpcc_receiver_new (&rc, 0);
  for (guint i = 0; i < RTPCC_RECEIVER_ESTABLISHED; i++)
    for (guint k = 0; k < RTPCC_RECEIVER_MAX_SOURCES; k++)
      rx_ssrc (r, media + k, (guint16) (k == 0 && i >= 5 ? i + 1 : i),
          t += RTPCC_USEC (100), FALSE);
  fail_unless (rx_ssrc (r, late, 1, t += RTPCC_MSEC (1), FALSE));
  fail_if (rx_ssrc (r, late, 2, t += RTPCC_MSEC (1), TRUE));
  st = rtpcc_receiver_get_stats (r, t);
  fail_unless_equals_uint64 (st->packets_untracked, 2);
  fail_unless_equals_uint64 (st->sources_evicted, 0);
  /* media + 0 lost its seq 5 */
  fail_unless_equals_uint64 (st->packets_lost, 1);
  {
    guint64 lost_before = st->packets_lost;

    /* the sources fall silent; after the timeout the one silent longest
     * (media + 0) makes room, and its losses stay in the total */
    t += RTPCC_RECEIVER_SOURCE_TIMEOUT;
    fail_unless (rx_ssrc (r, late, 3, t, FALSE));
    st = rtpcc_receiver_get_stats (r, t);
    fail_unless_equals_uint64 (st->sources_evicted, 1);
    fail_unless_equals_uint64 (st->packets_untracked, 2);
    fail_unless_equals_uint64 (st->packets_lost, lost_before);
    fail_unless (rx_ssrc (r, late, 4, t += RTPCC_MSEC (1), TRUE));
    /* media + 0 comes back: a stale one makes room for it in turn (a new
     * source: its padding passes once it carried payload again) */
    fail_if (rx_ssrc (r, media, 70, t += RTPCC_MSEC (1), TRUE));
    fail_unless (rx_ssrc (r, media, 71, t += RTPCC_MSEC (1), FALSE));
    fail_unless (rx_ssrc (r, media, 72, t += RTPCC_MSEC (1), TRUE));
    st = rtpcc_receiver_get_stats (r, t);
    fail_unless_equals_uint64 (st->sources_evicted, 2);
    fail_unless_equals_int (st->sources, RTPCC_RECEIVER_MAX_SOURCES);
    fail_unless_equals_int (st->media_sources, RTPCC_RECEIVER_MAX_SOURCES);
  }
  rtpcc_receiver_free (r);
}

GST_END_TEST;

GST_START_TEST (test_receiver_sr_lsr)
{
  /* An SR from a known source sets LSR; the next RR carries it with DLSR =
   * the time since. An SR from an unknown source is not used. */
  RtpccReceiverConfig rc;
  RtpccReceiver *r;
  RtpccRtcpSR sr;
  RtpccRtcpRR rr;
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  guint8 buf[RTCP_MAX];
  gsize n;
  RtpccTime t;

  receiver_config (&rc);
  rc.feedback = RTPCC_FEEDBACK_RR;
  r = rtpcc_receiver_new (&rc, 0);
  memset (&sr, 0, sizeof sr);
  sr.ssrc = MEDIA_SSRC;
  sr.ntp = G_GUINT64_CONSTANT (0x0001234556789abc);
  n = rtpcc_rtcp_write_sr (buf, sizeof buf, &sr);
  fail_if (rtpcc_receiver_on_rtcp (r, RTPCC_MSEC (900), buf, n));
  rx (r, 1, RTPCC_SEC (1));
  fail_unless (rtpcc_receiver_on_rtcp (r, RTPCC_MSEC (1100), buf, n));
  sr.ssrc = OTHER_SSRC;
  n = rtpcc_rtcp_write_sr (buf, sizeof buf, &sr);
  fail_if (rtpcc_receiver_on_rtcp (r, RTPCC_MSEC (1150), buf, n));
  fail_if (rtpcc_receiver_on_rtcp (r, RTPCC_MSEC (1150), buf, 7));
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (r,
          RTPCC_MSEC (1150))->rtcp_received, 1);
  fail_unless_equals_uint64 (rtpcc_receiver_get_stats (r,
          RTPCC_MSEC (1150))->rtcp_malformed, 1);

  t = rtpcc_receiver_next_feedback_time (r);
  fail_unless_equals_int64 (t, RTPCC_MSEC (1500));
  n = rtpcc_receiver_build_feedback (r, t, buf, sizeof buf);
  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  fail_unless (rtpcc_rtcp_iter_next (&it, &pkt));
  fail_unless (rtpcc_rtcp_parse_rr (&pkt, &rr));
  fail_unless_equals_int (rr.n_blocks, 1);
  fail_unless_equals_int (rr.blocks[0].ssrc, MEDIA_SSRC);
  fail_unless_equals_int (rr.blocks[0].lsr, 0x23455678);
  /* 400 ms in 1/65536 s, truncated */
  fail_unless_equals_int (rr.blocks[0].dlsr, 26214);
  rtpcc_receiver_free (r);
}

GST_END_TEST;

/* ======================================================================== */
/* 10. Target generation                                                    */

GST_START_TEST (test_generation_tracks_target)
{
  RtpccSenderConfig sc;
  RtpccSender *s;
  RtpccController *cc;
  guint64 g;
  RtpccTarget before;
  RtpccRtpInfo info;

  sender_config (&sc, "test-recorder", 1000000);
  s = new_sender (&sc, 0);
  cc = rtpcc_sender_get_controller (s);
  g = rtpcc_sender_get_generation (s);
  fail_unless_equals_uint64 (rtpcc_sender_get_target (s)->target_bitrate,
      1000000);

  /* nothing changed: nothing published */
  rtpcc_sender_tick (s, RTPCC_MSEC (10));
  fail_unless_equals_uint64 (rtpcc_sender_get_generation (s), g);

  /* a new controller target is published at the next sender call, once */
  fail_unless (rtpcc_controller_set_param (cc, "bitrate", "2000000"));
  fail_unless_equals_uint64 (rtpcc_sender_get_generation (s), g);
  rtpcc_sender_tick (s, RTPCC_MSEC (20));
  fail_unless_equals_uint64 (rtpcc_sender_get_generation (s), g + 1);
  fail_unless_equals_uint64 (rtpcc_sender_get_target (s)->target_bitrate,
      2000000);
  fail_unless_equals_uint64 (rtpcc_sender_get_target (s)->pacing_rate,
      2000000);
  fail_unless_equals_string (rtpcc_sender_get_target (s)->reason,
      "set-param");
  rtpcc_sender_tick (s, RTPCC_MSEC (30));
  fail_unless_equals_uint64 (rtpcc_sender_get_generation (s), g + 1);

  /* the same value again, or a change undone before publishing: no change */
  fail_unless (rtpcc_controller_set_param (cc, "bitrate", "2000000"));
  rtpcc_sender_tick (s, RTPCC_MSEC (40));
  fail_unless_equals_uint64 (rtpcc_sender_get_generation (s), g + 1);
  before = *rtpcc_sender_get_target (s);
  fail_unless (rtpcc_controller_set_param (cc, "bitrate", "3000000"));
  fail_unless (rtpcc_controller_set_param (cc, "bitrate", "2000000"));
  rtpcc_sender_tick (s, RTPCC_MSEC (50));
  fail_unless_equals_uint64 (rtpcc_sender_get_generation (s), g + 1);
  fail_unless (target_equal (&before, rtpcc_sender_get_target (s)));

  /* published on dequeue too */
  fail_unless (rtpcc_controller_set_param (cc, "bitrate", "500000"));
  info = rtp_info (1, RTPCC_MSEC (60), PKT_SIZE, FALSE);
  rtpcc_sender_enqueue (s, RTPCC_MSEC (60), &info, GUINT_TO_POINTER (1));
  fail_unless_equals_uint64 (rtpcc_sender_get_generation (s), g + 1);
  fail_unless (rtpcc_sender_dequeue (s, RTPCC_MSEC (60), NULL) != NULL);
  fail_unless_equals_uint64 (rtpcc_sender_get_generation (s), g + 2);
  fail_unless_equals_uint64 (rtpcc_sender_get_target (s)->target_bitrate,
      500000);

  /* a circuit-breaker trip is a new target; the ticks after it are not.
   * No feedback since the first packet (60 ms): the RTCP timeout of
   * 3 x max (1 s, 5 s) expires at 15.06 s, seen by the tick at 15.1 s. */
  for (RtpccTime t = RTPCC_MSEC (100); t <= RTPCC_MSEC (15300);
      t += RTPCC_MSEC (100)) {
    info = rtp_info ((guint16) (t / RTPCC_MSEC (100) + 1), t, PKT_SIZE,
        FALSE);
    rtpcc_sender_enqueue (s, t, &info, GUINT_TO_POINTER (2));
    rtpcc_sender_tick (s, t);
    rtpcc_sender_dequeue (s, t, NULL);
    fail_unless_equals_uint64 (rtpcc_sender_get_generation (s),
        t < RTPCC_MSEC (15100) ? g + 2 : g + 3);
  }
  fail_unless_equals_string (rtpcc_sender_get_target (s)->state,
      "circuit-breaker");
  rtpcc_sender_tick (s, RTPCC_SEC (16));
  rtpcc_sender_tick (s, RTPCC_SEC (17));
  fail_unless_equals_uint64 (rtpcc_sender_get_generation (s), g + 3);
  rtpcc_sender_free (s);
}

GST_END_TEST;

static guint
fate_lossy (Loop * l, guint idx, RtpccTime delays[2])
{
  /* 2 % random-looking loss and a little jitter */
  delays[0] += RTPCC_USEC ((idx * 2654435761u) % 5000u);
  return (idx * 40503u) % 50u == 7 ? 0 : 1;
}

GST_START_TEST (test_generation_in_a_call)
{
  /* tfrc over a lossy path: the generation moves exactly when the target
   * does, by one per sender call, and the loop never spins */
  RtpccSenderConfig sc;
  RtpccReceiverConfig rc;
  Loop *l;

  sender_config (&sc, "tfrc", 500000);
  sc.cc.max_bitrate = 3000000;
  receiver_config (&rc);
  l = loop_new (&sc, &rc, RTPCC_SEC (10), RTPCC_MSEC (25), RTPCC_MSEC (25));
  l->fate = fate_lossy;
  /* 30 fps, ~2.4 Mbit/s offered */
  loop_add_cbr (l, 0, RTPCC_NSEC_PER_SEC / 240, 2400, PKT_SIZE, 8);
  loop_run (l, RTPCC_SEC (10));
  fail_unless (l->target_changes >= 3, "%u", l->target_changes);
  fail_unless_equals_int (l->gen_violations, 0);
  fail_unless_equals_int (l->spins, 0);
  fail_unless_equals_int (l->r_spins, 0);
  fail_unless (l->fb_accepted > 100);
  loop_free (l);
}

GST_END_TEST;

static Suite *
rtpcc_endpoints_suite (void)
{
  Suite *s = suite_create ("rtpcc_endpoints");
  TCase *tc = tcase_create ("general");

  rtpcc_controller_register (&rec_ops);
  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_ccfb_rtt_independent_of_clock_offset);
  tcase_add_test (tc, test_feedback_arrival_resolution);
  tcase_add_test (tc, test_each_packet_reported_once);
  tcase_add_test (tc, test_loss_needs_three_received_later);
  tcase_add_test (tc, test_loss_burst);
  tcase_add_test (tc, test_max_fec_share);
  tcase_add_test (tc, test_max_fec_share_with_nack);
  tcase_add_test (tc, test_arrival_differences);
  tcase_add_test (tc, test_breaker_gets_loss_event_rate);
  tcase_add_test (tc, test_breaker_loss_events_with_ccfb_in_rr_compound);
  tcase_add_test (tc, test_idle_sender);
  tcase_add_test (tc, test_idle_sender_with_rtcp_ssrc);
  tcase_add_test (tc, test_sr_before_first_packet);
  tcase_add_test (tc, test_no_spin_after_late_wakeup);
  tcase_add_test (tc, test_rr_mode_rtt_and_loss);
  tcase_add_test (tc, test_robustness);
  tcase_add_test (tc, test_rtt_sample_belongs_to_its_feedback);
  tcase_add_test (tc, test_breaker_recovers_on_empty_rr);
  tcase_add_test (tc, test_ccfb_report_limit_no_false_losses);
  tcase_add_test (tc, test_pacing_bounded_spreading);
  tcase_add_test (tc, test_receiver_feedback_interval);
  tcase_add_test (tc, test_receiver_quiet_without_media);
  tcase_add_test (tc, test_receiver_stats);
  tcase_add_test (tc, test_receiver_source_table);
  tcase_add_test (tc, test_receiver_sr_lsr);
  tcase_add_test (tc, test_generation_tracks_target);
  tcase_add_test (tc, test_generation_in_a_call);
  return s;
}

GST_CHECK_MAIN (rtpcc_endpoints);

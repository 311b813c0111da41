/* Unit tests for RtpccFeedbackAdapter (gst/rtpcc/feedbackadapter.[ch]):
 * hand-built CCFB, TWCC, XR and RR bytes about packets recorded in a
 * RtpccSentHistory, and what a recording sink receives.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

#define MS(x) RTPCC_MSEC (x)
#define SSRC_A 0xaaaa0001u
#define SSRC_X 0x0bad0badu
#define BUF 1500
#define NTP_OFFSET (RTPCC_NTP_UNIX_EPOCH_NS + RTPCC_SEC (1700000000))
/* CCFB arrival offsets are 1/1024 s (rounded), its report timestamp
 * 1/65536 s */
#define ATO_TOL (RTPCC_NSEC_PER_SEC / 2048 + 1)
#define RTS_TOL (RTPCC_NSEC_PER_SEC / 65536 + 1)

typedef enum
{ EV_RTCP, EV_RR, EV_DISCARDS, EV_FEEDBACK } EvKind;

typedef struct
{
  EvKind kind;
  RtpccTime now;
  RtpccReceiverReport rr, brr;
  GArray *reports;              /* RtpccPacketReport (discards, feedback) */
  gboolean have_fb;
  RtpccFeedback fb;             /* reports pointer not valid after the call */
} Ev;

typedef struct
{
  RtpccSentHistory *h;
  RtpccFeedbackAdapter *a;
  GArray *evs;                  /* Ev */
} Fix;

static Ev *
push_ev (Fix * f, EvKind kind, RtpccTime now)
{
  Ev e = { 0, };

  e.kind = kind;
  e.now = now;
  e.reports = g_array_new (FALSE, FALSE, sizeof (RtpccPacketReport));
  g_array_append_val (f->evs, e);
  return &g_array_index (f->evs, Ev, f->evs->len - 1);
}

static void
s_rtcp (gpointer u, RtpccTime now)
{
  push_ev (u, EV_RTCP, now);
}

static void
s_rr (gpointer u, RtpccTime now, const RtpccReceiverReport * rr,
    const RtpccReceiverReport * brr)
{
  Ev *e = push_ev (u, EV_RR, now);
  e->rr = *rr;
  e->brr = *brr;
}

static void
s_discards (gpointer u, RtpccTime now, const RtpccPacketReport * r, guint n)
{
  g_array_append_vals (push_ev (u, EV_DISCARDS, now)->reports, r, n);
}

static void
s_feedback (gpointer u, RtpccTime now, const RtpccFeedback * fb)
{
  Ev *e = push_ev (u, EV_FEEDBACK, now);

  if (fb) {
    e->have_fb = TRUE;
    e->fb = *fb;
    g_array_append_vals (e->reports, fb->reports, fb->n_reports);
  }
}

static const RtpccFeedbackSink sink = { s_rtcp, s_rr, s_discards,
  s_feedback
};

static Fix *
fix_new (RtpccFeedbackMode mode)
{
  Fix *f = g_new0 (Fix, 1);

  f->h = rtpcc_sent_history_new (FALSE);
  f->a = rtpcc_feedback_adapter_new (f->h, mode, NTP_OFFSET, &sink, f);
  f->evs = g_array_new (FALSE, FALSE, sizeof (Ev));
  return f;
}

static void
fix_free (Fix * f)
{
  for (guint i = 0; i < f->evs->len; i++)
    g_array_unref (g_array_index (f->evs, Ev, i).reports);
  g_array_unref (f->evs);
  rtpcc_feedback_adapter_free (f->a);
  rtpcc_sent_history_free (f->h);
  g_free (f);
}

static Ev *
ev (Fix * f, guint i)
{
  fail_unless (i < f->evs->len, "only %u events", f->evs->len);
  return &g_array_index (f->evs, Ev, i);
}

static const RtpccPacketReport *
rep (Ev * e, guint i)
{
  fail_unless (i < e->reports->len);
  return &g_array_index (e->reports, RtpccPacketReport, i);
}

/* packets 100 + k on SSRC_A, 1000 bytes, sent every 10 ms from 0 */
static void
send_packets (Fix * f, guint n)
{
  for (guint k = 0; k < n; k++) {
    RtpccRtpInfo i = { 0, };
    i.ssrc = SSRC_A;
    i.seq = (guint16) (100 + k);
    i.pt = 96;
    i.size = 1000;
    rtpcc_sent_history_add_stream (f->h, SSRC_A);
    rtpcc_sent_history_record (f->h, MS (10) * k, &i, i.seq, 988, FALSE);
  }
}

/* A CCFB about 100.. on SSRC_A: @arrived[k] (remote clock) or NONE, the
 * report sent at remote time @report. */
static gsize
ccfb (guint8 * buf, guint32 ssrc, const RtpccTime * arrived, guint n,
    RtpccTime report)
{
  RtpccCcfbMetric m[16];
  RtpccCcfbBlockIn blk;
  guint32 rts = rtpcc_ntp_short_from_time (report);
  gsize len;

  memset (m, 0, sizeof m);
  for (guint k = 0; k < n; k++) {
    m[k].received = arrived[k] != RTPCC_TIME_NONE;
    m[k].ato = m[k].received ?
        rtpcc_ccfb_ato_from_delta (rtpcc_ntp_short_to_time (rts) -
        arrived[k]) : 0;
  }
  blk.media_ssrc = ssrc;
  blk.begin_seq = 100;
  blk.num_reports = n;
  blk.metrics = m;
  len = rtpcc_ccfb_write (buf, BUF, 0xfeed0001u, rts, &blk, 1);
  fail_unless (len > 0);
  return len;
}

static gint64
abs64 (gint64 v)
{
  return v < 0 ? -v : v;
}

/* CCFB: each packet reported once, in seq order, arrivals on our clock
 * (only differences count), the missing one lost once three later ones
 * arrived; RTT = now − send − the receiver's hold time. */
GST_START_TEST (test_ccfb)
{
  Fix *f = fix_new (RTPCC_FEEDBACK_CCFB);
  const RtpccTime remote0 = RTPCC_SEC (5000);   /* receiver clock at t = 0 */
  RtpccTime arrived[6];
  const RtpccFeedbackAdapterStats *st = rtpcc_feedback_adapter_get_stats
      (f->a);
  guint8 buf[BUF];
  gsize n;
  Ev *e;

  send_packets (f, 6);
  /* 40 ms one way; packet 102 lost */
  for (guint k = 0; k < 6; k++)
    arrived[k] = remote0 + MS (10) * k + MS (40);
  arrived[2] = RTPCC_TIME_NONE;
  /* the report leaves 10 ms after the last arrival, reaches us 40 ms on */
  n = ccfb (buf, SSRC_A, arrived, 6, remote0 + MS (100));
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (140), buf, n));
  fail_unless_equals_int (f->evs->len, 2);
  fail_unless_equals_int (ev (f, 0)->kind, EV_RTCP);
  e = ev (f, 1);
  fail_unless (e->kind == EV_FEEDBACK && e->have_fb);
  fail_unless_equals_int (e->reports->len, 6);
  for (guint k = 0; k < 6; k++) {
    const RtpccPacketReport *r = rep (e, k);
    fail_unless_equals_uint64 (r->seq, k + 1);
    fail_unless_equals_int64 (r->send_time, MS (10) * k);
    fail_unless_equals_int (r->size, 1000);
    fail_unless_equals_int (r->received, k != 2);
    if (k == 2)
      fail_unless (r->arrival == RTPCC_TIME_NONE);
    else if (k > 0)
      /* one-way delay the same for all: arrival − send constant */
      fail_unless (abs64 ((r->arrival - r->send_time) - (rep (e,
                      0)->arrival - rep (e, 0)->send_time)) <= 2 * ATO_TOL);
  }
  /* hold 10 ms: RTT = 140 − 50 − 10 */
  fail_unless (abs64 (e->fb.rtt_sample - MS (80)) <= ATO_TOL + RTS_TOL,
      "RTT %" G_GINT64_FORMAT, e->fb.rtt_sample);
  fail_unless_equals_int64 (e->fb.srtt, e->fb.rtt_sample);
  fail_unless_equals_int64 (e->fb.arrival_resolution,
      RTPCC_NSEC_PER_SEC / 1024);
  /* the report time sits 10 ms after the last arrival on our timeline */
  fail_unless (abs64 (e->fb.report_time - rep (e, 5)->arrival - MS (10)) <=
      ATO_TOL + RTS_TOL);
  fail_unless_equals_uint64 (st->reported_received, 5);
  fail_unless_equals_uint64 (st->reported_lost, 1);
  fail_unless (st->has_feedback && st->any_rtcp);
  fail_unless_equals_uint64 (st->rtcp_received, 1);
  fail_unless (fabs (st->loss - 0.1 / 6) < 1e-12);

  /* the same report again: nothing new for the controller */
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (150), buf, n));
  e = ev (f, 3);
  fail_unless (e->kind == EV_FEEDBACK && !e->have_fb);
  fail_unless_equals_uint64 (st->reported_received, 5);
  fail_unless_equals_uint64 (st->rtcp_received, 2);

  /* about an SSRC we do not send: foreign, counted */
  n = ccfb (buf, SSRC_X, arrived, 6, remote0 + MS (100));
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (160), buf, n));
  fail_unless_equals_uint64 (st->rtcp_unknown_ssrc, 1);
  fail_unless_equals_int (ev (f, f->evs->len - 1)->kind, EV_RTCP);
  /* junk: malformed, no sign of life */
  memset (buf, 0, 8);
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (170), buf, 8));
  fail_unless_equals_uint64 (st->rtcp_malformed, 1);
  fail_unless_equals_int (ev (f, f->evs->len - 1)->now, MS (160));
  fix_free (f);
}

GST_END_TEST;

/* TWCC: transport-wide seq = sender-wide seq − 1; the RTT sample is
 * send-to-now of the newest packet reported for the first time. */
GST_START_TEST (test_twcc)
{
  Fix *f = fix_new (RTPCC_FEEDBACK_TWCC);
  const RtpccFeedbackAdapterStats *st = rtpcc_feedback_adapter_get_stats
      (f->a);
  RtpccTwccArrival arr[5];
  guint8 buf[BUF];
  guint used;
  gsize n;
  Ev *e;

  /* nothing sent yet: not about us */
  arr[0].seq = 0;
  arr[0].arrival = RTPCC_SEC (3);
  n = rtpcc_twcc_write (buf, BUF, 1, SSRC_A, 0, arr, 1, &used);
  fail_if (rtpcc_feedback_adapter_receive (f->a, 0, buf, n));
  fail_unless_equals_uint64 (st->rtcp_unknown_ssrc, 1);

  send_packets (f, 5);
  for (guint k = 0; k < 5; k++) {
    arr[k].seq = k;
    arr[k].arrival = RTPCC_SEC (3) + MS (10) * k;
  }
  arr[2].arrival = RTPCC_TIME_NONE;
  n = rtpcc_twcc_write (buf, BUF, 1, SSRC_A, 1, arr, 5, &used);
  fail_unless_equals_int (used, 5);
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (95), buf, n));
  e = ev (f, f->evs->len - 1);
  fail_unless (e->kind == EV_FEEDBACK && e->have_fb);
  /* 3 is missing, with only 4 and 5 after it: not lost yet */
  fail_unless_equals_int (e->reports->len, 4);
  fail_unless_equals_uint64 (rep (e, 2)->seq, 4);
  fail_unless_equals_int64 (e->fb.rtt_sample, MS (95) - MS (40));
  fail_unless_equals_int64 (e->fb.arrival_resolution, RTPCC_USEC (250));
  /* arrival differences as sent (250 us ticks; exact here) */
  fail_unless_equals_int64 (rep (e, 3)->arrival - rep (e, 0)->arrival,
      MS (40));
  fail_unless_equals_int64 (e->fb.report_time, rep (e, 3)->arrival);
  fail_unless_equals_uint64 (st->reported_received, 4);
  fail_unless_equals_uint64 (st->reported_lost, 0);
  fix_free (f);
}

GST_END_TEST;

static gsize
discard_xr (guint8 * buf, guint32 ssrc, guint16 begin, guint n_bits)
{
  RtpccXrRleBlock b = { 0, };
  guint8 bits[16];
  gsize len;

  memset (bits, 1, sizeof bits);
  b.bt = RTPCC_XR_BT_DISCARD_RLE;
  b.ssrc = ssrc;
  b.begin_seq = begin;
  b.end_seq = (guint16) (begin + n_bits);
  b.n_bits = n_bits;
  b.bits = bits;
  len = rtpcc_xr_write (buf, BUF, 0xfeed0001u, &b, 1);
  fail_unless (len > 0);
  return len;
}

/* XR Discard RLE: the discarded packets, received = TRUE, handed over
 * with the compound's per-packet feedback (before it), or at once in RR
 * mode. */
GST_START_TEST (test_xr_discards)
{
  Fix *f = fix_new (RTPCC_FEEDBACK_CCFB);
  RtpccTime arrived[4];
  guint8 buf[BUF];
  gsize n;
  Ev *e;

  send_packets (f, 4);
  for (guint k = 0; k < 4; k++)
    arrived[k] = RTPCC_SEC (1) + MS (10) * k;
  n = discard_xr (buf, SSRC_A, 101, 2);
  n += ccfb (buf + n, SSRC_A, arrived, 4, RTPCC_SEC (1) + MS (50));
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (100), buf, n));
  fail_unless_equals_int (f->evs->len, 3);
  e = ev (f, 1);
  fail_unless_equals_int (e->kind, EV_DISCARDS);
  fail_unless_equals_int (e->reports->len, 2);
  fail_unless_equals_uint64 (rep (e, 0)->seq, 2);
  fail_unless_equals_uint64 (rep (e, 1)->seq, 3);
  fail_unless (rep (e, 1)->received && rep (e, 1)->size == 1000);
  fail_unless_equals_int (ev (f, 2)->kind, EV_FEEDBACK);
  fail_unless_equals_uint64 (rtpcc_feedback_adapter_get_stats
      (f->a)->reported_discarded, 2);
  /* a Discard RLE about another SSRC is nothing to us (not foreign) */
  n = discard_xr (buf, SSRC_X, 101, 2);
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (110), buf, n));
  fail_unless_equals_uint64 (rtpcc_feedback_adapter_get_stats
      (f->a)->rtcp_unknown_ssrc, 0);
  fix_free (f);

  f = fix_new (RTPCC_FEEDBACK_RR);
  send_packets (f, 4);
  n = discard_xr (buf, SSRC_A, 100, 1);
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (100), buf, n));
  fail_unless_equals_int (f->evs->len, 2);
  e = ev (f, 1);
  fail_unless (e->kind == EV_DISCARDS && e->reports->len == 1
      && rep (e, 0)->seq == 1);
  fix_free (f);
}

GST_END_TEST;

static gsize
rr_about (guint8 * buf, guint32 ssrc, guint8 fraction, guint32 lsr,
    guint32 dlsr)
{
  RtpccRtcpRR rr;

  memset (&rr, 0, sizeof rr);
  rr.ssrc = 0xfeed0001u;
  rr.n_blocks = 1;
  rr.blocks[0].ssrc = ssrc;
  rr.blocks[0].fraction_lost = fraction;
  rr.blocks[0].lsr = lsr;
  rr.blocks[0].dlsr = dlsr;
  return rtpcc_rtcp_write_rr (buf, BUF, &rr);
}

/* Report blocks: the controller gets the RR's fraction lost; the breaker
 * the loss-event rate of the per-packet feedback since the last report
 * (1 event among 6 reported here), which restarts with each report. */
/* A thinned Discard RLE (T = 2) reports on the multiples of 4 in
 * [begin, end): from begin 101 those are 104 and 108, not 101 and 105. */
GST_START_TEST (test_xr_discards_thinned)
{
  Fix *f = fix_new (RTPCC_FEEDBACK_RR);
  RtpccXrBlock b = { 0, };
  guint8 bits[2] = { 1, 1 };
  guint8 buf[BUF];
  gsize n;
  Ev *e;

  send_packets (f, 12);
  b.bt = b.rle.bt = RTPCC_XR_BT_DISCARD_RLE;
  b.rle.thinning = 2;
  b.rle.ssrc = SSRC_A;
  b.rle.begin_seq = 101;
  b.rle.end_seq = 110;
  b.rle.n_bits = 2;
  b.rle.bits = bits;
  n = rtpcc_xr_report_write (buf, BUF, 0xfeed0001u, &b, 1);
  fail_unless (n > 0);
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (200), buf, n));
  fail_unless_equals_int (f->evs->len, 2);
  e = ev (f, 1);
  fail_unless_equals_int (e->kind, EV_DISCARDS);
  fail_unless_equals_int (e->reports->len, 2);
  /* sender-wide seq = RTP seq − 99 (send_packets starts at 100 ↔ 1) */
  fail_unless_equals_uint64 (rep (e, 0)->seq, 104 - 99);
  fail_unless_equals_uint64 (rep (e, 1)->seq, 108 - 99);
  fix_free (f);
}

GST_END_TEST;

GST_START_TEST (test_report_blocks)
{
  Fix *f = fix_new (RTPCC_FEEDBACK_CCFB);
  RtpccTime arrived[6];
  guint8 buf[BUF];
  gsize n;
  Ev *e;

  send_packets (f, 6);
  for (guint k = 0; k < 6; k++)
    arrived[k] = RTPCC_SEC (1) + MS (10) * k;
  arrived[1] = RTPCC_TIME_NONE;
  n = ccfb (buf, SSRC_A, arrived, 6, RTPCC_SEC (1) + MS (60));
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (100), buf, n));
  n = rr_about (buf, SSRC_A, 64, 0, 0);
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (200), buf, n));
  e = ev (f, f->evs->len - 1);
  fail_unless_equals_int (e->kind, EV_RR);
  fail_unless_equals_int (e->rr.fraction_lost, 64);
  fail_unless_equals_int (e->rr.packets_sent_interval, 6);
  fail_unless (e->rr.rtt == RTPCC_TIME_NONE);
  /* ceil (256 / 6) */
  fail_unless_equals_int (e->brr.fraction_lost, 43);
  /* nothing reported per packet since: the breaker gets the RR's own */
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (300), buf, n));
  e = ev (f, f->evs->len - 1);
  fail_unless_equals_int (e->brr.fraction_lost, 64);
  fail_unless_equals_int (e->rr.packets_sent_interval, 0);
  /* only about another SSRC: foreign */
  n = rr_about (buf, SSRC_X, 64, 0, 0);
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (300), buf, n));
  fail_unless_equals_uint64 (rtpcc_feedback_adapter_get_stats
      (f->a)->rtcp_unknown_ssrc, 1);
  fix_free (f);

  /* RR mode: LSR/DLSR give the RTT, the fraction is the loss */
  f = fix_new (RTPCC_FEEDBACK_RR);
  send_packets (f, 1);
  {
    /* our SR left at 1 s, the receiver held it 30 ms, now is 1.1 s */
    guint32 lsr = rtpcc_ntp_short (rtpcc_ntp_from_time (RTPCC_SEC (1),
            NTP_OFFSET));
    const RtpccFeedbackAdapterStats *st =
        rtpcc_feedback_adapter_get_stats (f->a);
    n = rr_about (buf, SSRC_A, 128, lsr, rtpcc_ntp_short_from_time (MS (30)));
    fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (1100), buf, n));
    e = ev (f, f->evs->len - 1);
    fail_unless (abs64 (e->rr.rtt - MS (70)) <= 2 * RTS_TOL);
    fail_unless_equals_int (e->brr.fraction_lost, 128);
    fail_unless_equals_int64 (st->srtt, e->rr.rtt);
    fail_unless (st->loss == 0.5 && st->has_feedback);
  }
  fix_free (f);
}

GST_END_TEST;

/* A report is checked whole before any of it is used: one acknowledging a
 * packet never sent, or older than one used (CCFB report time), is
 * implausible; one that says otherwise than an earlier report about a
 * packet — missing after received, or another arrival time — is
 * contradictory. Either is dropped and counted, nothing of it reaches the
 * controller, and a contradiction withdraws the packets from the
 * delivery rate. A report that repeats what was said (within the
 * format's resolution) is fine. */
GST_START_TEST (test_ccfb_plausibility)
{
  Fix *f = fix_new (RTPCC_FEEDBACK_CCFB);
  const RtpccTime remote0 = RTPCC_SEC (5000);
  RtpccTime arrived[8];
  const RtpccFeedbackAdapterStats *st = rtpcc_feedback_adapter_get_stats
      (f->a);
  guint8 buf[BUF];
  guint evs;
  gsize n;

  send_packets (f, 6);
  for (guint k = 0; k < 8; k++)
    arrived[k] = remote0 + MS (10) * k + MS (40);
  n = ccfb (buf, SSRC_A, arrived, 6, remote0 + MS (100));
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (140), buf, n));
  fail_unless_equals_uint64 (st->reported_received, 6);
  /* 5000 B after the first packet, over the 50 ms they took to send and
   * to arrive */
  fail_unless (st->delivery_rate > 780000 && st->delivery_rate <= 800000,
      "%" G_GUINT64_FORMAT, st->delivery_rate);
  evs = f->evs->len;

  /* older than the report used: a replay, or reordered */
  n = ccfb (buf, SSRC_A, arrived, 6, remote0 + MS (90));
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (150), buf, n));
  fail_unless_equals_uint64 (st->feedback_implausible, 1);
  /* two packets more than were ever sent */
  n = ccfb (buf, SSRC_A, arrived, 8, remote0 + MS (120));
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (160), buf, n));
  fail_unless_equals_uint64 (st->feedback_implausible, 2);
  /* (a sign of life each, nothing for the controller) */
  for (guint i = evs; i < f->evs->len; i++)
    fail_unless_equals_int (ev (f, i)->kind, EV_RTCP);

  /* the same again, but 103 missing now */
  arrived[3] = RTPCC_TIME_NONE;
  n = ccfb (buf, SSRC_A, arrived, 6, remote0 + MS (120));
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (160), buf, n));
  fail_unless_equals_uint64 (st->feedback_contradictory, 1);
  fail_unless_equals_int64 (st->last_contradiction, MS (160));
  /* 104 arrived 5 ms later than said before */
  arrived[3] = remote0 + MS (70);
  arrived[4] += MS (5);
  n = ccfb (buf, SSRC_A, arrived, 6, remote0 + MS (130));
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (170), buf, n));
  fail_unless_equals_uint64 (st->feedback_contradictory, 2);
  for (guint i = evs; i < f->evs->len; i++)
    fail_unless_equals_int (ev (f, i)->kind, EV_RTCP);
  fail_unless_equals_uint64 (st->reported_received, 6);
  fail_unless_equals_uint64 (st->rtcp_received, 1);

  /* what was said before, again, with a later report time (the arrival
   * offsets round differently): fine */
  arrived[4] -= MS (5);
  n = ccfb (buf, SSRC_A, arrived, 6, remote0 + MS (140) + 12345);
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (180), buf, n));
  fail_unless_equals_uint64 (st->feedback_contradictory, 2);
  fail_unless_equals_uint64 (st->feedback_implausible, 2);
  fail_unless_equals_uint64 (st->rtcp_received, 2);
  fix_free (f);
}

GST_END_TEST;

/* TWCC: a packet never sent acknowledged, or one reported received then
 * missing: dropped, counted. */
GST_START_TEST (test_twcc_plausibility)
{
  Fix *f = fix_new (RTPCC_FEEDBACK_TWCC);
  const RtpccFeedbackAdapterStats *st = rtpcc_feedback_adapter_get_stats
      (f->a);
  RtpccTwccArrival arr[8];
  guint8 buf[BUF];
  guint used;
  gsize n;

  send_packets (f, 5);
  for (guint k = 0; k < 8; k++) {
    arr[k].seq = k;
    arr[k].arrival = RTPCC_SEC (3) + MS (10) * k;
  }
  n = rtpcc_twcc_write (buf, BUF, 1, SSRC_A, 0, arr, 5, &used);
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (95), buf, n));
  fail_unless_equals_uint64 (st->reported_received, 5);
  /* transport-wide seqs 5..7 were never sent */
  n = rtpcc_twcc_write (buf, BUF, 1, SSRC_A, 1, arr + 3, 5, &used);
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (100), buf, n));
  fail_unless_equals_uint64 (st->feedback_implausible, 1);
  /* 2 missing after it was received */
  arr[2].arrival = RTPCC_TIME_NONE;
  n = rtpcc_twcc_write (buf, BUF, 1, SSRC_A, 2, arr, 5, &used);
  fail_if (rtpcc_feedback_adapter_receive (f->a, MS (110), buf, n));
  fail_unless_equals_uint64 (st->feedback_contradictory, 1);
  /* the same as the first, repeated: fine */
  arr[2].arrival = RTPCC_SEC (3) + MS (20);
  n = rtpcc_twcc_write (buf, BUF, 1, SSRC_A, 3, arr, 5, &used);
  fail_unless (rtpcc_feedback_adapter_receive (f->a, MS (120), buf, n));
  fail_unless_equals_uint64 (st->feedback_contradictory, 1);
  fail_unless_equals_uint64 (st->reported_received, 5);
  fix_free (f);
}

GST_END_TEST;

/* RtpccDeliveryRate: bytes over the longer of the send and arrival
 * spans (never above the rate they were sent at, however the arrivals
 * bunch up), the highest sample of the last second; a withdrawn
 * acknowledgement leaves the next sample. */
GST_START_TEST (test_delivery_rate)
{
  RtpccDeliveryRate *d = rtpcc_delivery_rate_new ();

  fail_unless_equals_uint64 (rtpcc_delivery_rate_update (d, MS (100)), 0);
  /* 1000 B every 10 ms (800 kbit/s), "arriving" all within 1 ms */
  for (guint k = 0; k < 3; k++)
    rtpcc_delivery_rate_on_ack (d, k + 1, MS (10) * k, RTPCC_SEC (1) + k,
        1000);
  /* too few packets for a sample */
  fail_unless_equals_uint64 (rtpcc_delivery_rate_update (d, MS (100)), 0);
  for (guint k = 3; k < 10; k++)
    rtpcc_delivery_rate_on_ack (d, k + 1, MS (10) * k, RTPCC_SEC (1) + k,
        1000);
  fail_unless_equals_uint64 (rtpcc_delivery_rate_update (d, MS (100)),
      800000);
  /* arriving more slowly than sent (a bottleneck): the arrival span */
  for (guint k = 10; k < 30; k++)
    rtpcc_delivery_rate_on_ack (d, k + 1, MS (10) * k, RTPCC_SEC (2) +
        MS (20) * k, 1000);
  /* the window (the last 100 ms of send time) holds 11 of them: 10000 B
   * over 200 ms; the estimate is the highest of the last second */
  fail_unless_equals_uint64 (rtpcc_delivery_rate_update (d, MS (100)),
      800000);
  /* a second on, the slow sample alone remains */
  for (guint k = 130; k < 140; k++)
    rtpcc_delivery_rate_on_ack (d, k + 1, MS (10) * k, RTPCC_SEC (4) +
        MS (20) * k, 1000);
  fail_unless_equals_uint64 (rtpcc_delivery_rate_update (d, MS (100)),
      400000);
  /* (acknowledged once; a withdrawal of an unknown one is harmless) */
  rtpcc_delivery_rate_on_ack (d, 135, MS (1340), RTPCC_SEC (5), 1000);
  rtpcc_delivery_rate_withdraw (d, 9999);
  rtpcc_delivery_rate_withdraw (d, 136);
  /* 9 left in the window: 8000 B over their 180 ms of arrivals */
  fail_unless_equals_uint64 (rtpcc_delivery_rate_update (d, MS (100)),
      8000 * 8 * 1000 / 180);
  rtpcc_delivery_rate_free (d);
}

GST_END_TEST;

/* The estimate does not depend on the order the acknowledgements came in:
 * reports that hand them over out of order (the estimator then scans its
 * window) and in order (it reads the window's ends) give the same rate at
 * every update, on a path that keeps order and on one that reorders, with
 * some arrival times missing, whichever span sets the rate. */
GST_START_TEST (test_delivery_rate_order)
{
  for (guint path_reorders = 0; path_reorders < 2; path_reorders++) {
    RtpccDeliveryRate *in_order = rtpcc_delivery_rate_new ();
    RtpccDeliveryRate *shuffled = rtpcc_delivery_rate_new ();
    GRand *rand = g_rand_new_with_seed (7 + path_reorders);
    guint n_updates = 0, n_rates = 0;

    for (guint r = 0; r < 200; r++) {
      guint64 seq[8];
      RtpccTime sent[8], arr[8];
      guint size[8], order[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

      for (guint i = 0; i < 8; i++) {
        guint k = r * 8 + i;
        seq[i] = k + 1;
        sent[i] = MS (5) * k;
        /* arriving faster than sent for a while (the send span counts),
         * then slower (the arrival span) */
        arr[i] = RTPCC_SEC (1) + (k < 800 ? MS (4) * k : MS (3200) +
            MS (6) * (k - 800)) + (path_reorders ?
            MS (g_rand_int_range (rand, 0, 15)) : 0);
        if (g_rand_int_range (rand, 0, 10) == 0)
          arr[i] = RTPCC_TIME_NONE;
        size[i] = 200 + g_rand_int_range (rand, 0, 1000);
      }
      /* a few reports hand their packets over in another order */
      if (r % 5 == 0)
        for (guint i = 7; i > 0; i--) {
          guint j = g_rand_int_range (rand, 0, i + 1), t = order[i];
          order[i] = order[j];
          order[j] = t;
        }
      for (guint i = 0; i < 8; i++) {
        guint o = order[i];
        rtpcc_delivery_rate_on_ack (in_order, seq[i], sent[i], arr[i],
            size[i]);
        rtpcc_delivery_rate_on_ack (shuffled, seq[o], sent[o], arr[o],
            size[o]);
      }
      if (r == 120) {
        rtpcc_delivery_rate_withdraw (in_order, seq[3]);
        rtpcc_delivery_rate_withdraw (shuffled, seq[3]);
      }
      {
        guint64 a = rtpcc_delivery_rate_update (in_order, MS (150));
        guint64 b = rtpcc_delivery_rate_update (shuffled, MS (150));
        fail_unless_equals_uint64 (a, b);
        n_updates++;
        n_rates += a > 0;
      }
    }
    /* (the comparison covered estimates, not only zeros) */
    fail_unless (n_rates > n_updates / 2, "%u of %u", n_rates, n_updates);
    g_rand_free (rand);
    rtpcc_delivery_rate_free (in_order);
    rtpcc_delivery_rate_free (shuffled);
  }
}

GST_END_TEST;

static Suite *
rtpcc_feedbackadapter_suite (void)
{
  Suite *s = suite_create ("rtpcc_feedbackadapter");
  TCase *tc = tcase_create ("feedbackadapter");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ccfb);
  tcase_add_test (tc, test_twcc);
  tcase_add_test (tc, test_xr_discards);
  tcase_add_test (tc, test_xr_discards_thinned);
  tcase_add_test (tc, test_report_blocks);
  tcase_add_test (tc, test_ccfb_plausibility);
  tcase_add_test (tc, test_twcc_plausibility);
  tcase_add_test (tc, test_delivery_rate);
  tcase_add_test (tc, test_delivery_rate_order);
  return s;
}

GST_CHECK_MAIN (rtpcc_feedbackadapter);

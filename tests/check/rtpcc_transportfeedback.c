/* Unit tests for RtpccTransportFeedback (gst/rtpcc/transportfeedback.[ch])
 * and the sender's entry point for it, rtpcc_sender_transport_feedback:
 * reports in a stock rtpsession's numbering (the packets as GStreamer's
 * RTPTWCCPackets event lists them) put onto packets recorded in a
 * RtpccSentHistory, by hand-computed offsets.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

#define MS(x) RTPCC_MSEC (x)
#define SSRC_A 0xaaaa0001u

/* what the callback was handed */
typedef struct
{
  guint16 base_seq, count;
  guint n_received;
  guint8 fb_count;
  guint16 seq[64];
  gboolean received[64];
  RtpccTime arrival[64];        /* reference × 64 ms + offset */
} Run;

typedef struct
{
  RtpccSentHistory *h;
  RtpccTransportFeedback *tf;
  GArray *runs;                 /* Run */
} Fix;

static void
on_run (const RtpccTwcc * fb, gpointer user_data)
{
  Fix *f = user_data;
  Run r = { 0, };
  RtpccTime ref = (RtpccTime) fb->ref_time * RTPCC_TWCC_REF_UNIT;

  fail_unless (fb->status_count <= G_N_ELEMENTS (r.seq));
  r.base_seq = fb->base_seq;
  r.count = fb->status_count;
  r.n_received = fb->n_received;
  r.fb_count = fb->fb_count;
  for (guint i = 0; i < fb->status_count; i++) {
    r.seq[i] = fb->status[i].seq;
    r.received[i] = fb->status[i].received;
    r.arrival[i] = r.received[i] ? ref + fb->status[i].offset :
        RTPCC_TIME_NONE;
    /* consecutive, starting at the base */
    fail_unless_equals_int (r.seq[i], (guint16) (fb->base_seq + i));
  }
  g_array_append_val (f->runs, r);
}

static Fix *
fix_new (void)
{
  Fix *f = g_new0 (Fix, 1);

  f->h = rtpcc_sent_history_new (FALSE);
  f->tf = rtpcc_transport_feedback_new (f->h);
  f->runs = g_array_new (FALSE, TRUE, sizeof (Run));
  return f;
}

static void
fix_free (Fix * f)
{
  rtpcc_transport_feedback_free (f->tf);
  rtpcc_sent_history_free (f->h);
  g_array_unref (f->runs);
  g_free (f);
}

static Run *
run (Fix * f, guint i)
{
  fail_unless (i < f->runs->len, "only %u runs", f->runs->len);
  return &g_array_index (f->runs, Run, i);
}

/* what a video stream looks like to the session: payload sizes that vary
 * (a frame's fragments, then its last one), PT 96 */
static guint
payload_of (guint k)
{
  return k % 4 == 3 ? 300 + 17 * (k % 11) : 1100 + (k % 7);
}

/* @n packets, transport-wide seqs 0 .. n − 1 in our numbering */
static void
send_packets (Fix * f, guint n)
{
  for (guint k = 0; k < n; k++) {
    RtpccRtpInfo i = { 0, };
    i.ssrc = SSRC_A;
    i.seq = (guint16) (100 + k);
    i.pt = 96;
    i.size = 12 + payload_of (k);
    rtpcc_sent_history_add_stream (f->h, SSRC_A);
    rtpcc_sent_history_record (f->h, MS (5) * k, &i, i.seq, payload_of (k),
        FALSE);
  }
}

/* The session's report about our transport seqs [@from, @from + @n), which
 * it numbered @offset lower than we did: arrivals 2 s + 5 ms × k on its
 * clock, packet @lost_k lost (G_MAXUINT: none). */
static void
report (RtpccTransportPacket * p, guint from, guint n, guint16 offset,
    guint lost_k)
{
  for (guint i = 0; i < n; i++) {
    guint k = from + i;
    p[i].seq = (guint16) (k - offset);
    p[i].lost = k == lost_k;
    p[i].arrival = p[i].lost ? RTPCC_TIME_NONE : RTPCC_SEC (2) + MS (5) * k;
    p[i].pt = 96;
    p[i].payload = (gint) payload_of (k);
    p[i].sent = MS (5) * k;
  }
}

static const RtpccTransportFeedbackStats *
stats (Fix * f)
{
  return rtpcc_transport_feedback_get_stats (f->tf);
}

/* A fresh session numbers from 0 like us: offset 0, one run, arrivals and
 * losses as reported (reference time × 64 ms + offset = the arrival). */
GST_START_TEST (test_fresh_session)
{
  Fix *f = fix_new ();
  RtpccTransportPacket p[16];
  Run *r;

  send_packets (f, 20);
  report (p, 0, 10, 0, 4);
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 10, on_run, f));
  fail_unless_equals_int (f->runs->len, 1);
  r = run (f, 0);
  fail_unless_equals_int (r->base_seq, 0);
  fail_unless_equals_int (r->count, 10);
  fail_unless_equals_int (r->n_received, 9);
  for (guint k = 0; k < 10; k++) {
    fail_unless_equals_int (r->received[k], k != 4);
    if (k != 4)
      fail_unless_equals_int64 (r->arrival[k], RTPCC_SEC (2) + MS (5) * k);
  }
  fail_unless (stats (f)->synced);
  fail_unless_equals_int (stats (f)->offset, 0);
  fail_unless_equals_uint64 (stats (f)->syncs, 1);
  fail_unless_equals_uint64 (stats (f)->reports, 1);
  fail_unless_equals_uint64 (stats (f)->packets, 10);

  /* the next report: same offset, no new sync, the count goes on */
  report (p, 10, 10, 0, G_MAXUINT);
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 10, on_run, f));
  fail_unless_equals_int (run (f, 1)->base_seq, 10);
  fail_unless_equals_int (run (f, 1)->fb_count, run (f, 0)->fb_count + 1);
  fail_unless_equals_uint64 (stats (f)->syncs, 1);
  fix_free (f);
}

GST_END_TEST;

/* A session that numbered 40000 packets before ours (we joined a running
 * one, or restarted): its seqs wrap past 65535 where ours do not; the
 * offset is found from the payload types and sizes, and maps exactly. */
GST_START_TEST (test_offset_found)
{
  Fix *f = fix_new ();
  RtpccTransportPacket p[32];
  const guint16 theirs_lower = (guint16) (65536 - 40000);

  send_packets (f, 300);
  /* ours 270..299 are theirs 40270..40299; then 65530..65535, 0.. */
  report (p, 270, 30, theirs_lower, 280);
  fail_unless_equals_int (p[0].seq, 40270);
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 30, on_run, f));
  fail_unless_equals_int (f->runs->len, 1);
  fail_unless_equals_int (run (f, 0)->base_seq, 270);
  fail_unless_equals_int (run (f, 0)->count, 30);
  fail_unless (!run (f, 0)->received[10]);
  fail_unless_equals_int64 (run (f, 0)->arrival[29], RTPCC_SEC (2) + MS (5)
      * 299);
  fail_unless_equals_int (stats (f)->offset, (gint16) theirs_lower);
  fail_unless_equals_uint64 (stats (f)->syncs, 1);
  fix_free (f);
}

GST_END_TEST;

/* The offset moves (a packet we stamped was not numbered by the session):
 * the old offset no longer explains the report, a new one is found. */
GST_START_TEST (test_resync)
{
  Fix *f = fix_new ();
  RtpccTransportPacket p[32];

  send_packets (f, 100);
  report (p, 0, 20, 0, G_MAXUINT);
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 20, on_run, f));
  fail_unless_equals_int (stats (f)->offset, 0);
  /* our 41 never reached the session: from 42 on theirs = ours − 1 */
  report (p, 42, 20, 1, G_MAXUINT);
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 20, on_run, f));
  fail_unless_equals_int (stats (f)->offset, 1);
  fail_unless_equals_uint64 (stats (f)->syncs, 2);
  fail_unless_equals_int (run (f, 1)->base_seq, 42);
  fix_free (f);
}

GST_END_TEST;

/* What no offset explains is dropped and counted, never guessed. */
GST_START_TEST (test_unmatched)
{
  Fix *f = fix_new ();
  RtpccTransportPacket p[32];

  /* nothing sent yet */
  report (p, 0, 10, 0, G_MAXUINT);
  fail_if (rtpcc_transport_feedback_translate (f->tf, p, 10, on_run, f));
  fail_unless_equals_uint64 (stats (f)->unmatched, 1);

  send_packets (f, 50);
  /* packets we never sent (another PT) */
  for (guint i = 0; i < 10; i++)
    p[i].pt = 111;
  fail_if (rtpcc_transport_feedback_translate (f->tf, p, 10, on_run, f));
  fail_unless_equals_uint64 (stats (f)->unmatched, 2);
  /* nothing checkable before an offset is known */
  report (p, 0, 10, 0, G_MAXUINT);
  for (guint i = 0; i < 10; i++)
    p[i].pt = p[i].payload = -1;
  fail_if (rtpcc_transport_feedback_translate (f->tf, p, 10, on_run, f));
  /* one packet is too little to search an offset with: our 5 reported
   * as theirs 5, but looking like our 6 */
  report (p, 5, 1, 0, G_MAXUINT);
  p[0].payload = (gint) payload_of (6);
  fail_if (rtpcc_transport_feedback_translate (f->tf, p, 1, on_run, f));
  /* nor is a report that disagrees with itself */
  report (p, 0, 3, 0, G_MAXUINT);
  p[1].payload = p[2].payload = 7;
  fail_if (rtpcc_transport_feedback_translate (f->tf, p, 3, on_run, f));
  fail_unless_equals_uint64 (stats (f)->unmatched, 5);
  fail_unless_equals_int (f->runs->len, 0);
  fail_if (stats (f)->synced);
  /* an empty report */
  fail_if (rtpcc_transport_feedback_translate (f->tf, p, 0, on_run, f));

  /* once synced, a report without record (the session had pruned it) is
   * taken at the known offset */
  report (p, 0, 10, 0, G_MAXUINT);
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 10, on_run, f));
  report (p, 10, 5, 0, G_MAXUINT);
  for (guint i = 0; i < 5; i++)
    p[i].pt = p[i].payload = -1;
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 5, on_run, f));
  fail_unless_equals_int (run (f, 1)->base_seq, 10);
  fix_free (f);
}

GST_END_TEST;

/* Runs: a gap or a repeated seq starts a new one, a packet neither lost
 * nor timed is left out; a mismatch in < 10 % of the packets is taken
 * (RTP padding counts as payload with us, not with GStreamer). */
GST_START_TEST (test_runs)
{
  Fix *f = fix_new ();
  RtpccTransportPacket p[32], q[32];
  guint n = 0;

  send_packets (f, 60);
  report (p, 0, 30, 0, G_MAXUINT);
  /* 0..9, then 12..19 (10, 11 not in this report), then 15..19 again, a
   * packet without arrival at 19 */
  for (guint i = 0; i < 10; i++)
    q[n++] = p[i];
  for (guint i = 12; i < 20; i++)
    q[n++] = p[i];
  for (guint i = 15; i < 20; i++)
    q[n++] = p[i];
  q[n - 1].arrival = RTPCC_TIME_NONE;
  q[3].payload += 4;            /* 1 of 23 disagrees */
  fail_unless (rtpcc_transport_feedback_translate (f->tf, q, n, on_run, f));
  fail_unless_equals_int (f->runs->len, 3);
  fail_unless (run (f, 0)->base_seq == 0 && run (f, 0)->count == 10);
  fail_unless (run (f, 1)->base_seq == 12 && run (f, 1)->count == 8);
  fail_unless (run (f, 2)->base_seq == 15 && run (f, 2)->count == 4);
  fail_unless_equals_uint64 (stats (f)->skipped, 1);

  /* 3 of 10 disagreeing: not this offset, and no other explains it */
  report (p, 30, 10, 0, G_MAXUINT);
  p[1].payload = p[4].payload = p[7].payload = 5;
  fail_if (rtpcc_transport_feedback_translate (f->tf, p, 10, on_run, f));
  fix_free (f);
}

GST_END_TEST;

/* Several offsets explaining a report equally (a stream that repeats
 * itself, as a frame's equal-sized fragments do): the one whose packets
 * we sent when the session says it sent them wins; without send times,
 * the most recent. */
GST_START_TEST (test_tie_most_recent)
{
  Fix *f = fix_new ();
  RtpccTransportPacket p[4];

  /* period 4: packet k looks like k + 4 */
  for (guint k = 0; k < 40; k++) {
    RtpccRtpInfo i = { 0, };
    i.ssrc = SSRC_A;
    i.seq = (guint16) k;
    i.pt = 96;
    i.size = 12 + 100 * (k % 4);
    rtpcc_sent_history_add_stream (f->h, SSRC_A);
    rtpcc_sent_history_record (f->h, MS (5) * k, &i, i.seq, 100 * (k % 4),
        FALSE);
  }
  /* the session says 1000..1003 are like our 0..3 (and 36..39) */
  for (guint i = 0; i < 4; i++) {
    p[i].seq = (guint16) (1000 + i);
    p[i].lost = FALSE;
    p[i].arrival = MS (10) * i;
    p[i].pt = 96;
    p[i].payload = (gint) (100 * i);
    p[i].sent = RTPCC_TIME_NONE;
  }
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 4, on_run, f));
  fail_unless_equals_int (run (f, 0)->base_seq, 36);
  fix_free (f);

  /* the same, with the session's send times: those of our 8..11, sent
   * at 40..55 ms (plus 0.2 ms on its way into the session) */
  f = fix_new ();
  for (guint k = 0; k < 40; k++) {
    RtpccRtpInfo i = { 0, };
    i.ssrc = SSRC_A;
    i.seq = (guint16) k;
    i.pt = 96;
    i.size = 12 + 100 * (k % 4);
    rtpcc_sent_history_add_stream (f->h, SSRC_A);
    rtpcc_sent_history_record (f->h, MS (5) * k, &i, i.seq, 100 * (k % 4),
        FALSE);
  }
  for (guint i = 0; i < 4; i++)
    p[i].sent = MS (5) * (8 + i) + RTPCC_USEC (200);
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 4, on_run, f));
  fail_unless_equals_int (run (f, 0)->base_seq, 8);
  fix_free (f);
}

GST_END_TEST;

/* The reference time of a run sits on the 64 ms grid under its first
 * arrival, also past the 24-bit wrap (12.4 days of receiver clock). */
GST_START_TEST (test_reference_time)
{
  Fix *f = fix_new ();
  RtpccTransportPacket p[4];
  const RtpccTime wrap = RTPCC_TWCC_REF_WRAP * RTPCC_TWCC_REF_UNIT;

  send_packets (f, 4);
  report (p, 0, 4, 0, 0);
  p[1].arrival = wrap - MS (1);
  p[2].arrival = wrap + MS (70);
  p[3].arrival = wrap + MS (60);        /* reordered: before its predecessor */
  fail_unless (rtpcc_transport_feedback_translate (f->tf, p, 4, on_run, f));
  fail_unless_equals_int (run (f, 0)->n_received, 3);
  for (guint k = 1; k < 4; k++)
    fail_unless_equals_int64 (run (f, 0)->arrival[k] - run (f, 0)->arrival[1],
        p[k].arrival - p[1].arrival);
  fix_free (f);
}

GST_END_TEST;

/* The whole path in the sender: packets stamped and dequeued, a session
 * that numbered them from 40000, its report → per-packet reports (the
 * lost one declared once three later ones arrived), an RTT, the target
 * republished; no SR with sender_reports off. */
GST_START_TEST (test_sender_entry_point)
{
  RtpccSenderConfig cfg;
  RtpccSender *s;
  RtpccTransportPacket p[40];
  const RtpccSenderStats *st;
  const RtpccTransportFeedbackStats *ts;
  GError *err = NULL;
  guint8 buf[1500];
  guint16 sent_twcc[40];
  guint payload[40];

  rtpcc_sender_config_init (&cfg);
  cfg.controller = "fixed";
  cfg.feedback = RTPCC_FEEDBACK_TWCC;
  cfg.pacing = FALSE;
  cfg.probing = FALSE;
  cfg.sender_reports = FALSE;
  cfg.cc.start_bitrate = 1000000;
  s = rtpcc_sender_new (&cfg, 0, &err);
  fail_unless (s != NULL, "%s", err ? err->message : "?");

  /* before anything is sent: unmatched, and not in CCFB mode at all */
  report (p, 0, 4, 0, G_MAXUINT);
  fail_if (rtpcc_sender_transport_feedback (s, 0, p, 4));
  fail_unless_equals_uint64 (rtpcc_sender_get_transport_feedback_stats
      (s)->unmatched, 1);

  for (guint k = 0; k < 40; k++) {
    RtpccRtpInfo i = { 0, };
    RtpccWirePacket w;
    gsize hl;
    i.ssrc = SSRC_A;
    i.seq = (guint16) (500 + k);
    i.pt = 96;
    i.marker = k % 4 == 3;
    payload[k] = payload_of (k);
    hl = rtpcc_rtp_write_header (&i, buf, sizeof buf);
    memset (buf + hl, 0x5a, payload[k]);
    rtpcc_sender_enqueue_rtp (s, MS (5) * k, buf, hl + payload[k],
        hl + payload[k], GUINT_TO_POINTER (k + 1));
    fail_unless (rtpcc_sender_dequeue (s, MS (5) * k, &w) ==
        GUINT_TO_POINTER (k + 1));
    fail_unless (w.info.has_twcc);
    sent_twcc[k] = w.info.twcc_seq;
  }
  fail_unless_equals_int (sent_twcc[0], 0);
  fail_unless_equals_int (sent_twcc[39], 39);
  fail_unless_equals_uint64 (rtpcc_sender_build_rtcp (s, RTPCC_SEC (5), buf,
          sizeof buf), 0);

  /* the session numbered them 40000.. ; packet 10 lost */
  report (p, 0, 40, (guint16) (65536 - 40000), 10);
  fail_unless (rtpcc_sender_transport_feedback (s, MS (250), p, 40));
  st = rtpcc_sender_get_stats (s, MS (250));
  ts = rtpcc_sender_get_transport_feedback_stats (s);
  fail_unless_equals_uint64 (st->reported_received, 39);
  fail_unless_equals_uint64 (st->reported_lost, 1);
  fail_unless_equals_uint64 (st->rtcp_received, 1);
  /* the newest packet was sent at 195 ms */
  fail_unless_equals_int64 (st->rtt, MS (55));
  fail_unless (rtpcc_sender_has_feedback (s));
  fail_unless (rtpcc_sender_get_feedback_problem (s, RTPCC_SEC (10)) ==
      NULL);
  fail_unless (ts->synced);
  fail_unless_equals_int (ts->offset, (gint16) (65536 - 40000));
  fail_unless_equals_uint64 (ts->reports, 2);

  /* in CCFB mode the entry point is refused */
  rtpcc_sender_free (s);
  cfg.feedback = RTPCC_FEEDBACK_CCFB;
  s = rtpcc_sender_new (&cfg, 0, NULL);
  fail_if (rtpcc_sender_transport_feedback (s, 0, p, 4));
  rtpcc_sender_free (s);
}

GST_END_TEST;

static Suite *
rtpcc_transportfeedback_suite (void)
{
  Suite *s = suite_create ("rtpcc_transportfeedback");
  TCase *tc = tcase_create ("transportfeedback");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fresh_session);
  tcase_add_test (tc, test_offset_found);
  tcase_add_test (tc, test_resync);
  tcase_add_test (tc, test_unmatched);
  tcase_add_test (tc, test_runs);
  tcase_add_test (tc, test_tie_most_recent);
  tcase_add_test (tc, test_reference_time);
  tcase_add_test (tc, test_sender_entry_point);
  return s;
}

GST_CHECK_MAIN (rtpcc_transportfeedback);

/* Unit tests for RtpccSentHistory (gst/rtpcc/senthistory.[ch]).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/rtpcc.h>

#define MS(x) RTPCC_MSEC (x)
#define SSRC_A 0xaaaa0001u
#define SSRC_B 0xbbbb0002u

static RtpccRtpInfo
info (guint32 ssrc, guint16 seq, guint32 ts, guint size)
{
  RtpccRtpInfo i;

  memset (&i, 0, sizeof (i));
  i.ssrc = ssrc;
  i.seq = seq;
  i.rtp_ts = ts;
  i.pt = 96;
  i.size = size;
  return i;
}

/* Packets are found by sender-wide seq, by (SSRC, wire seq) and, with
 * by_original, by the seq they were queued with; each stream counts what
 * an SR reports. */
GST_START_TEST (test_record_and_find)
{
  RtpccSentHistory *h = rtpcc_sent_history_new (TRUE);
  RtpccRtpInfo i;
  RtpccSentEntry *e;
  RtpccSentStream *st;

  fail_unless (rtpcc_sent_history_get_stream (h, SSRC_A) == NULL);
  fail_unless_equals_uint64 (rtpcc_sent_history_next_seq (h), 1);
  /* A: original 500 on the wire as 500, 501 renumbered to 502 (a padding
   * packet took 501); B: 7 */
  i = info (SSRC_A, 500, 9000, 1012);
  e = rtpcc_sent_history_record (h, MS (10), &i, 500, 1000, FALSE);
  fail_unless_equals_uint64 (e->seq, 1);
  i = info (SSRC_A, 501, 9000, 267);
  i.is_fec = TRUE;
  rtpcc_sent_history_record (h, MS (11), &i, 501, 0, TRUE);
  i = info (SSRC_A, 502, 12000, 512);
  rtpcc_sent_history_record (h, MS (12), &i, 501, 500, FALSE);
  i = info (SSRC_B, 7, 1, 100);
  rtpcc_sent_history_record (h, MS (13), &i, 7, 88, FALSE);
  fail_unless_equals_uint64 (rtpcc_sent_history_next_seq (h), 5);

  e = rtpcc_sent_history_get (h, 3);
  fail_unless (e && e->ssrc == SSRC_A && e->wire_seq == 502
      && e->orig_seq == 501 && e->size == 512 && e->send_time == MS (12)
      && e->state == RTPCC_SENT_PENDING && !e->padding);
  fail_unless (rtpcc_sent_history_get (h, 0) == NULL);
  fail_unless (rtpcc_sent_history_get (h, 5) == NULL);
  fail_unless (rtpcc_sent_history_find (h, SSRC_A, 502) == e);
  fail_unless_equals_uint64 (rtpcc_sent_history_find (h, SSRC_A, 501)->seq,
      2);
  fail_unless (rtpcc_sent_history_find (h, SSRC_B, 502) == NULL);
  fail_unless (rtpcc_sent_history_find (h, 0x1234, 7) == NULL);
  /* by original seq: the media packet, never the padding */
  fail_unless (rtpcc_sent_history_find_original (h, SSRC_A, 501) == e);
  fail_unless_equals_uint64 (rtpcc_sent_history_find_original (h, SSRC_A,
          500)->seq, 1);
  fail_unless (rtpcc_sent_history_find_original (h, SSRC_A, 503) == NULL);

  /* the SR's counts: the payload octets given (padding probes have
   * none); padding does not move the RTP clock anchor */
  st = rtpcc_sent_history_get_stream (h, SSRC_A);
  fail_unless_equals_int (st->packet_count, 3);
  fail_unless_equals_int (st->octet_count, 1000 + 500);
  fail_unless_equals_int (st->last_rtp_ts, 12000);
  fail_unless_equals_int64 (st->last_rtp_time, MS (12));
  /* add_stream returns the existing stream */
  fail_unless (rtpcc_sent_history_add_stream (h, SSRC_A) == st);
  rtpcc_sent_history_free (h);

  /* without by_original there is no lookup by original seq */
  h = rtpcc_sent_history_new (FALSE);
  i = info (SSRC_A, 500, 0, 100);
  rtpcc_sent_history_record (h, 0, &i, 500, 88, FALSE);
  fail_unless (rtpcc_sent_history_find_original (h, SSRC_A, 500) == NULL);
  fail_unless (rtpcc_sent_history_find (h, SSRC_A, 500) != NULL);
  rtpcc_sent_history_free (h);
}

GST_END_TEST;

typedef struct
{
  guint64 seqs[64];
  guint n;
  guint64 unreported[64];
  guint n_unreported;
} Lost;

static void
collect (RtpccSentEntry * e, gpointer user_data)
{
  Lost *l = user_data;

  if (e->state == RTPCC_SENT_UNREPORTED) {
    l->unreported[l->n_unreported++] = e->seq;
    return;
  }
  fail_unless_equals_int (e->state, RTPCC_SENT_LOST);
  l->seqs[l->n++] = e->seq;
}

/* RFC 5348 §5.1: lost only once NDUPACK (3) later packets have arrived,
 * and only when a report said it was missing; in send order, each once.
 * A packet no report covered is not lost (its reports may have been):
 * it waits, and is given up unreported once RTPCC_SENT_GIVE_UP_REPORTS
 * feedbacks have passed it by. */
GST_START_TEST (test_ndupack)
{
  RtpccSentHistory *h = rtpcc_sent_history_new (FALSE);
  Lost l = { {0}, 0, {0}, 0 };

  for (guint k = 0; k < 10; k++) {
    RtpccRtpInfo i = info (SSRC_A, (guint16) (65533 + k), 0, 100);
    rtpcc_sent_history_record (h, MS (k), &i, i.seq, 88, FALSE);
  }
  /* 1 and 3 received, 2 missing, 4 unreported */
  rtpcc_sent_history_mark_received (h, rtpcc_sent_history_get (h, 1), MS (50));
  rtpcc_sent_history_mark_missing (h, rtpcc_sent_history_get (h, 2));
  fail_unless_equals_int (rtpcc_sent_history_get (h, 2)->state,
      RTPCC_SENT_MISSING);
  rtpcc_sent_history_mark_received (h, rtpcc_sent_history_get (h, 3), MS (52));
  rtpcc_sent_history_mark_received (h, rtpcc_sent_history_get (h, 5), MS (54));
  rtpcc_sent_history_declare_losses (h, collect, &l);
  fail_unless_equals_int (l.n, 0);      /* 2 has two received after it */
  rtpcc_sent_history_mark_received (h, rtpcc_sent_history_get (h, 6), MS (55));
  rtpcc_sent_history_declare_losses (h, collect, &l);
  /* 2 now has 3, 5, 6 after it; 4 only 5, 6 */
  fail_unless_equals_int (l.n, 1);
  fail_unless_equals_uint64 (l.seqs[0], 2);
  rtpcc_sent_history_mark_received (h, rtpcc_sent_history_get (h, 9), MS (58));
  rtpcc_sent_history_declare_losses (h, collect, &l);
  /* 4 and 7, 8 were never covered by a report: not lost */
  fail_unless_equals_int (l.n, 1);
  fail_unless_equals_int (rtpcc_sent_history_get (h, 4)->state,
      RTPCC_SENT_PENDING);
  /* a later report covers 4 as missing, and 7 as missing: 4 is lost (it
   * has 5, 6, 9 after it), 7 only has 9 */
  rtpcc_sent_history_mark_missing (h, rtpcc_sent_history_get (h, 4));
  rtpcc_sent_history_mark_missing (h, rtpcc_sent_history_get (h, 7));
  rtpcc_sent_history_declare_losses (h, collect, &l);
  fail_unless_equals_int (l.n, 2);
  fail_unless_equals_uint64 (l.seqs[1], 4);
  /* a received packet stays received; a missing mark does not undo it */
  rtpcc_sent_history_mark_missing (h, rtpcc_sent_history_get (h, 3));
  fail_unless_equals_int (rtpcc_sent_history_get (h, 3)->state,
      RTPCC_SENT_RECEIVED);
  fail_unless_equals_int64 (rtpcc_sent_history_get (h, 3)->arrival, MS (52));
  /* nothing is declared twice */
  rtpcc_sent_history_declare_losses (h, collect, &l);
  fail_unless_equals_int (l.n, 2);

  /* 11..13 received: 7 (missing) is lost; 8 and 10, never covered, have
   * been passed by one feedback: they wait */
  for (guint k = 10; k < 13; k++) {
    RtpccRtpInfo i = info (SSRC_A, (guint16) (65533 + k), 0, 100);
    rtpcc_sent_history_record (h, MS (k), &i, i.seq, 88, FALSE);
  }
  for (guint64 q = 11; q <= 13; q++)
    rtpcc_sent_history_mark_received (h, rtpcc_sent_history_get (h, q),
        MS (70));
  rtpcc_sent_history_declare_losses (h, collect, &l);
  fail_unless_equals_int (l.n, 3);
  fail_unless_equals_uint64 (l.seqs[2], 7);
  fail_unless_equals_int (l.n_unreported, 0);
  fail_unless_equals_int (rtpcc_sent_history_get (h, 8)->state,
      RTPCC_SENT_PENDING);
  /* the second feedback that passes them by gives them up, in order, as
   * unreported: not lost */
  rtpcc_sent_history_declare_losses (h, collect, &l);
  fail_unless_equals_int (l.n, 3);
  fail_unless_equals_int (l.n_unreported, 2);
  fail_unless_equals_uint64 (l.unreported[0], 8);
  fail_unless_equals_uint64 (l.unreported[1], 10);
  fail_unless_equals_int (rtpcc_sent_history_get (h, 8)->state,
      RTPCC_SENT_UNREPORTED);
  /* a report that comes after the give-up changes nothing */
  rtpcc_sent_history_mark_missing (h, rtpcc_sent_history_get (h, 8));
  fail_unless_equals_int (rtpcc_sent_history_get (h, 8)->state,
      RTPCC_SENT_UNREPORTED);
  rtpcc_sent_history_declare_losses (h, collect, &l);
  fail_unless_equals_int (l.n, 3);
  fail_unless_equals_int (l.n_unreported, 2);
  rtpcc_sent_history_free (h);
}

GST_END_TEST;

typedef struct
{
  guint64 n, first, last;
} Count;

static void
count_losses (RtpccSentEntry * e, gpointer user_data)
{
  Count *c = user_data;

  if (c->n++ == 0)
    c->first = e->seq;
  fail_unless (e->seq > c->last);
  c->last = e->seq;
}

/* At a rate that fills it (10000 packets/s: more than
 * RTPCC_SENT_HISTORY_SIZE within RTPCC_SENT_HISTORY_KEEP) the ring keeps
 * RTPCC_SENT_HISTORY_SIZE packets: older entries are gone (and never
 * declared lost), and a wire seq reused on the same SSRC finds the newest
 * packet only. */
GST_START_TEST (test_ring)
{
  RtpccSentHistory *h = rtpcc_sent_history_new (TRUE);
  const guint n = RTPCC_SENT_HISTORY_SIZE + 100;
  Count c = { 0, 0, 0 };
  RtpccSentEntry *e;

  for (guint k = 0; k < n; k++) {
    RtpccRtpInfo i = info (SSRC_A, (guint16) k, 0, 100);
    rtpcc_sent_history_record (h, (RtpccTime) k * 100000, &i, i.seq, 88,
        FALSE);
  }
  fail_unless_equals_int (rtpcc_sent_history_capacity (h),
      RTPCC_SENT_HISTORY_SIZE);
  fail_unless (rtpcc_sent_history_get (h, 100) == NULL);
  fail_unless (rtpcc_sent_history_get (h, 101) != NULL);
  fail_unless (rtpcc_sent_history_get (h, n) != NULL);
  /* wire seq 99 was packet 100 (gone); 16000 is packet 16001; the seq
   * map holds the last 8192 wire seqs: 8291's slot went to 16483 */
  fail_unless (rtpcc_sent_history_find (h, SSRC_A, 99) == NULL);
  e = rtpcc_sent_history_find (h, SSRC_A, 16000);
  fail_unless (e != NULL && e->seq == 16001);
  fail_unless (rtpcc_sent_history_find_original (h, SSRC_A, 16000) == e);
  fail_unless (rtpcc_sent_history_get (h, 8292) != NULL);
  fail_unless (rtpcc_sent_history_find (h, SSRC_A, 8291) == NULL);
  fail_unless_equals_uint64 (rtpcc_sent_history_find (h, SSRC_A,
          16483)->seq, n);
  /* the three newest received, the rest reported missing: everything
   * still kept below them is lost, once, in order; the entries already
   * overwritten are not */
  for (guint64 q = 101; q < n - 2; q++)
    rtpcc_sent_history_mark_missing (h, rtpcc_sent_history_get (h, q));
  for (guint64 q = n - 2; q <= n; q++)
    rtpcc_sent_history_mark_received (h, rtpcc_sent_history_get (h, q), 0);
  rtpcc_sent_history_declare_losses (h, count_losses, &c);
  fail_unless_equals_uint64 (c.n, n - 3 - 101 + 1);
  fail_unless_equals_uint64 (c.first, 101);
  fail_unless_equals_uint64 (c.last, n - 3);
  rtpcc_sent_history_free (h);
}

GST_END_TEST;

/* The ring follows the packet rate: at 100 packets/s it holds the last
 * RTPCC_SENT_HISTORY_KEEP (500 packets) in 512 entries however long the
 * call, and still finds a packet sent 4.9 s ago; at 1000 packets/s it
 * grows (the per-SSRC maps with it) and loses nothing younger than KEEP;
 * at any rate it stops at RTPCC_SENT_HISTORY_SIZE. */
GST_START_TEST (test_ring_follows_rate)
{
  const RtpccTime keep = RTPCC_SENT_HISTORY_KEEP;
  const guint rates[] = { 100, 1000, 100000 };

  for (guint r = 0; r < G_N_ELEMENTS (rates); r++) {
    RtpccSentHistory *h = rtpcc_sent_history_new (TRUE);
    RtpccTime gap = RTPCC_SEC (1) / rates[r];
    /* 60 s of the call, at most 200000 packets */
    guint n = (guint) MIN (RTPCC_SEC (60) / gap, 200000);
    guint64 need = (guint64) (keep / gap);
    guint expect = RTPCC_SENT_HISTORY_MIN;
    RtpccTime now = 0;

    while (expect <= need && expect < RTPCC_SENT_HISTORY_SIZE)
      expect *= 2;
    for (guint k = 0; k < n; k++) {
      RtpccRtpInfo i = info (k % 2 ? SSRC_A : SSRC_B, (guint16) k, 0, 100);

      now = (RtpccTime) k * gap;
      rtpcc_sent_history_record (h, now, &i, (guint16) (k + 7), 88, FALSE);
    }
    fail_unless_equals_int (rtpcc_sent_history_capacity (h), expect);
    fail_unless (expect <= RTPCC_SENT_HISTORY_SIZE);
    /* everything younger than KEEP (while the ring may hold it) is found
     * by sender seq, wire seq and original seq */
    for (guint k = n - 1; k > 0 && now - (RtpccTime) k * gap < keep
        && n - k <= MIN (expect, RTPCC_SENT_HISTORY_SEQS); k--) {
      guint32 ssrc = k % 2 ? SSRC_A : SSRC_B;
      RtpccSentEntry *e = rtpcc_sent_history_get (h, k + 1);

      fail_unless (e != NULL && e->wire_seq == (guint16) k);
      fail_unless (rtpcc_sent_history_find (h, ssrc, (guint16) k) == e);
      fail_unless (rtpcc_sent_history_find_original (h, ssrc,
              (guint16) (k + 7)) == e);
    }
    /* and nothing older than the ring */
    fail_unless (rtpcc_sent_history_get (h, n - expect) == NULL);
    rtpcc_sent_history_free (h);
  }
}

GST_END_TEST;

static Suite *
rtpcc_senthistory_suite (void)
{
  Suite *s = suite_create ("rtpcc_senthistory");
  TCase *tc = tcase_create ("senthistory");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_record_and_find);
  tcase_add_test (tc, test_ndupack);
  tcase_add_test (tc, test_ring);
  tcase_add_test (tc, test_ring_follows_rate);
  return s;
}

GST_CHECK_MAIN (rtpcc_senthistory);

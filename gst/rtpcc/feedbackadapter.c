/* RtpccFeedbackAdapter: CCFB, TWCC, XR and RR into per-packet reports.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "feedbackadapter-private.h"
#include <rtpcc/deliveryrate.h>
#include <rtpcc/lossevents.h>
#include <rtpcc/feedback/ccfb.h>
#include <rtpcc/feedback/twcc.h>
#include <rtpcc/feedback/xr.h>

#include <string.h>

/* A delivery-rate sample covers the packets sent within a smoothed RTT
 * of the newest acknowledged one (the span TFRC's X_recv covers, RFC 5348
 * §6.2), within these bounds: a few video frames at least, a second at
 * most. */
#define DELIVERY_WINDOW_RTTS 1
#define DELIVERY_WINDOW_MIN RTPCC_MSEC (100)
#define DELIVERY_WINDOW_MAX RTPCC_SEC (1)


const gchar *
rtpcc_feedback_mode_name (RtpccFeedbackMode mode)
{
  switch (mode) {
    case RTPCC_FEEDBACK_CCFB:
      return "ccfb";
    case RTPCC_FEEDBACK_RR:
      return "rr";
    case RTPCC_FEEDBACK_TWCC:
      return "twcc";
  }
  return "unknown";
}

RtpccFeedbackAdapter *
rtpcc_feedback_adapter_new (RtpccSentHistory * history,
    RtpccFeedbackMode mode, RtpccTime ntp_offset,
    const RtpccFeedbackSink * sink, gpointer user_data)
{
  RtpccFeedbackAdapter *a = g_new0 (RtpccFeedbackAdapter, 1);

  a->sink = *sink;
  a->user_data = user_data;

  a->history = history;
  a->mode = mode;
  a->ntp_offset = ntp_offset;
  a->min_owd = RTPCC_TIME_NONE;
  a->reports = g_array_new (FALSE, FALSE, sizeof (RtpccPacketReport));
  a->discards = g_array_new (FALSE, FALSE, sizeof (RtpccPacketReport));
  if (mode == RTPCC_FEEDBACK_TWCC) {
    a->twcc = rtpcc_twcc_unwrapper_new ();
    a->twcc_results = g_array_new (FALSE, FALSE, sizeof (RtpccTwccResult));
  }
  rtpcc_loss_events_init (&a->events);
  rtpcc_loss_burst_init (&a->bursts);
  a->rr_window_start = RTPCC_TIME_NONE;
  a->stats.rtt = a->stats.srtt = RTPCC_TIME_NONE;
  a->stats.xr.rtt_mean = a->stats.xr.rtt_min = a->stats.xr.rtt_max =
      RTPCC_TIME_NONE;
  a->stats.xr.djb_nominal = a->stats.xr.djb_maximum = a->stats.xr.djb_high =
      a->stats.xr.djb_low = RTPCC_TIME_NONE;
  a->stats.last_contradiction = RTPCC_TIME_NONE;
  a->delivery = rtpcc_delivery_rate_new ();
  a->disputed = g_array_new (FALSE, FALSE, sizeof (RtpccSentEntry *));
  a->found = g_array_new (FALSE, FALSE, sizeof (RtpccSentEntry *));
  a->rtt_from = RTPCC_TIME_NONE;
  return a;
}

void
rtpcc_feedback_adapter_free (RtpccFeedbackAdapter * a)
{
  if (!a)
    return;
  g_array_unref (a->reports);
  g_array_unref (a->discards);
  if (a->twcc)
    rtpcc_twcc_unwrapper_free (a->twcc);
  if (a->twcc_results)
    g_array_unref (a->twcc_results);
  rtpcc_delivery_rate_free (a->delivery);
  g_array_unref (a->disputed);
  g_array_unref (a->found);
  g_free (a);
}

void
rtpcc_feedback_adapter_outage (RtpccFeedbackAdapter * a, RtpccTime now)
{
  a->rtt_from = now;
}

/* TRUE if a packet sent at @send_time may give an RTT sample */
static gboolean
rtt_valid (const RtpccFeedbackAdapter * a, RtpccTime send_time)
{
  return a->rtt_from == RTPCC_TIME_NONE || send_time >= a->rtt_from;
}

const RtpccFeedbackAdapterStats *
rtpcc_feedback_adapter_get_stats (const RtpccFeedbackAdapter * a)
{
  return &a->stats;
}

static void
update_rtt (RtpccFeedbackAdapter * a, RtpccTime sample)
{
  if (sample <= 0)
    return;
  a->stats.rtt = sample;
  if (a->stats.srtt == RTPCC_TIME_NONE)
    a->stats.srtt = sample;
  else
    a->stats.srtt = (7 * a->stats.srtt + sample) / 8;   /* RFC 6298 */
}

/* what the controller learns of @e */
RtpccPacketReport
rtpcc_feedback_adapter_report_of (const RtpccSentEntry * e)
{
  RtpccPacketReport r;

  r.seq = e->seq;
  r.send_time = e->send_time;
  r.size = e->size;
  r.received = e->state == RTPCC_SENT_RECEIVED;
  r.arrival = r.received ? e->arrival : RTPCC_TIME_NONE;
  r.ecn = 0;
  r.is_fec = e->is_fec;
  return r;
}

static RtpccOutcome
outcome_of (RtpccFeedbackAdapter * a, guint64 seq)
{
  const RtpccSentEntry *e = rtpcc_sent_history_get (a->history, seq);

  if (!e)
    return RTPCC_OUTCOME_UNKNOWN;
  return e->state == RTPCC_SENT_RECEIVED ? RTPCC_OUTCOME_RECEIVED :
      e->state == RTPCC_SENT_LOST ? RTPCC_OUTCOME_LOST : RTPCC_OUTCOME_UNKNOWN;
}

static void
add_report (RtpccFeedbackAdapter * a, const RtpccSentEntry * e)
{
  RtpccPacketReport r = rtpcc_feedback_adapter_report_of (e);

  /* the channel's bursts: every packet on the wire counts, media or not */
  rtpcc_loss_burst_add (&a->bursts, !r.received, e->seq > 0 ?
      outcome_of (a, e->seq - 1) : RTPCC_OUTCOME_UNKNOWN,
      outcome_of (a, e->seq + 1));
  a->stats.loss_burst = rtpcc_loss_burst_mean (&a->bursts);
  a->stats.loss_window = rtpcc_loss_burst_rate (&a->bursts);

  g_array_append_val (a->reports, r);
  if (r.received) {
    a->stats.reported_received++;
    if (e->padding)
      a->stats.probe_reported_received++;
  } else {
    RtpccTime rtt = a->stats.srtt != RTPCC_TIME_NONE ? a->stats.srtt :
        RTPCC_MSEC (100);
    a->stats.reported_lost++;
    if (rtpcc_loss_events_on_loss (&a->events, e->seq, e->send_time, rtt,
            NULL))
      a->cb_events++;
  }
  a->cb_reported++;
}

static void
on_loss (RtpccSentEntry * e, gpointer user_data)
{
  RtpccFeedbackAdapter *a = user_data;

  /* no report covered it: not a loss, only no longer in flight */
  if (e->state == RTPCC_SENT_UNREPORTED)
    a->n_unreported++;
  else
    add_report (a, e);
}

/* a packet reported received: TRUE if that is news */
gboolean
rtpcc_feedback_adapter_mark_received (RtpccFeedbackAdapter * a, RtpccSentEntry * e, RtpccTime arrival)
{
  if (e->state != RTPCC_SENT_PENDING && e->state != RTPCC_SENT_MISSING)
    return FALSE;
  rtpcc_sent_history_mark_received (a->history, e, arrival);
  add_report (a, e);
  a->rr_window_bytes += e->size;
  rtpcc_delivery_rate_on_ack (a->delivery, e->seq, e->send_time, arrival,
      e->size);
  return TRUE;
}

/* ---- plausibility (see the header) --------------------------------------- */

/* A report says @e (known to the history) was received at @arrival
 * (NONE: at an unknown time) or not (@got FALSE): does it contradict
 * what an earlier one said? A report repeats an arrival to within its
 * resolution @res. */
void
rtpcc_feedback_adapter_check_entry (RtpccFeedbackAdapter * a, RtpccSentEntry * e, gboolean got,
    RtpccTime arrival, RtpccTime res)
{
  if (e->state != RTPCC_SENT_RECEIVED)
    return;
  if (!got || (arrival != RTPCC_TIME_NONE && e->arrival != RTPCC_TIME_NONE
          && ABS (arrival - e->arrival) > 2 * res + RTPCC_USEC (500)))
    g_array_append_val (a->disputed, e);
}

/* After the checks: the report is dropped if anything in it contradicted
 * an earlier one. Returns CONTRADICTORY then (the disputed packets no
 * longer count as delivered), else ABOUT_US. */
Verdict
rtpcc_feedback_adapter_disputes (RtpccFeedbackAdapter * a, RtpccTime now)
{
  if (a->disputed->len == 0)
    return ABOUT_US;
  for (guint i = 0; i < a->disputed->len; i++)
    rtpcc_delivery_rate_withdraw (a->delivery,
        g_array_index (a->disputed, RtpccSentEntry *, i)->seq);
  g_array_set_size (a->disputed, 0);
  a->stats.last_contradiction = now;
  return CONTRADICTORY;
}

/* ---- CCFB (RFC 8888) ----------------------------------------------------- */

static Verdict
on_ccfb (RtpccFeedbackAdapter * a, RtpccTime now,
    const guint8 * data, gsize len)
{
  GError *err = NULL;
  RtpccCcfb *fb = rtpcc_ccfb_parse (data, len, &err);
  RtpccTime report_remote, sample, offset;
  const RtpccTime res = RTPCC_NSEC_PER_SEC / 1024;
  RtpccSentEntry *newest = NULL, **found;
  guint known_blocks = 0, n_found;
  Verdict v;

  if (!fb) {
    g_clear_error (&err);
    return MALFORMED;
  }

  /* Unwrap the receiver's 16.16 report clock (wraps every 18.2 h). */
  report_remote = rtpcc_ntp_short_to_time (fb->report_timestamp);
  if (a->have_remote) {
    const RtpccTime wrap = RTPCC_SEC (65536);
    RtpccTime base = a->last_report_remote - a->last_report_remote % wrap;
    RtpccTime cand = base + report_remote;
    if (cand < a->last_report_remote - wrap / 2)
      cand += wrap;
    else if (cand > a->last_report_remote + wrap / 2)
      cand -= wrap;
    report_remote = cand;
    offset = a->remote_offset;
    /* older than a report used already: reordered, or replayed */
    if (report_remote < a->last_report_remote) {
      rtpcc_ccfb_free (fb);
      return IMPLAUSIBLE;
    }
  } else
    offset = now - report_remote;

  /* the whole report is checked before anything in it is used */
  n_found = 0;
  for (guint b = 0; b < fb->n_blocks; b++)
    n_found += fb->blocks[b].num_reports;
  g_array_set_size (a->found, n_found);
  found = (RtpccSentEntry **) a->found->data;
  n_found = 0;
  for (guint b = 0; b < fb->n_blocks; b++) {
    const RtpccCcfbBlock *blk = &fb->blocks[b];
    RtpccSentStream *st = rtpcc_sent_history_get_stream (a->history,
        blk->media_ssrc);
    if (!st)
      continue;
    for (guint i = 0; i < blk->num_reports; i++) {
      const RtpccCcfbMetric *m = &blk->metrics[i];
      guint16 seq = (guint16) (blk->begin_seq + i);
      RtpccSentEntry *e = rtpcc_sent_history_find (a->history,
          blk->media_ssrc, seq);
      RtpccTime ato;
      found[n_found++] = e;
      if (!e) {
        /* received, yet never sent: beyond the newest seq sent */
        guint16 ahead = (guint16) (seq - st->highest_wire_seq);
        if (m->received && (!st->sent_any || (ahead > 0 && ahead < 0x8000))) {
          g_array_set_size (a->disputed, 0);
          rtpcc_ccfb_free (fb);
          return IMPLAUSIBLE;
        }
        continue;
      }
      ato = rtpcc_ccfb_ato_to_delta (m->ato);
      rtpcc_feedback_adapter_check_entry (a, e, m->received, ato == RTPCC_TIME_NONE
          || ato == RTPCC_TIME_INFINITE ? RTPCC_TIME_NONE :
          report_remote - ato + offset, res);
    }
  }
  if ((v = rtpcc_feedback_adapter_disputes (a, now)) != ABOUT_US) {
    rtpcc_ccfb_free (fb);
    return v;
  }
  a->have_remote = TRUE;
  a->remote_offset = offset;
  a->last_report_remote = report_remote;

  g_array_set_size (a->reports, 0);
  n_found = 0;
  for (guint b = 0; b < fb->n_blocks; b++) {
    const RtpccCcfbBlock *blk = &fb->blocks[b];
    if (!rtpcc_sent_history_get_stream (a->history, blk->media_ssrc))
      continue;
    known_blocks++;
    for (guint i = 0; i < blk->num_reports; i++) {
      const RtpccCcfbMetric *m = &blk->metrics[i];
      RtpccSentEntry *e = found[n_found++];
      RtpccTime ato, arrival;
      if (!e)
        continue;
      if (!m->received) {
        rtpcc_sent_history_mark_missing (a->history, e);
        continue;
      }
      /* over-range / unavailable offsets: received, time unknown */
      ato = rtpcc_ccfb_ato_to_delta (m->ato);
      arrival = ato == RTPCC_TIME_NONE || ato == RTPCC_TIME_INFINITE ?
          RTPCC_TIME_NONE : report_remote - ato + a->remote_offset;
      if (rtpcc_feedback_adapter_mark_received (a, e, arrival) && arrival != RTPCC_TIME_NONE
          && (!newest || e->seq > newest->seq))
        newest = e;
    }
  }
  rtpcc_ccfb_free (fb);

  if (known_blocks == 0)
    return FOREIGN;
  a->stats.has_feedback = TRUE;
  sample = RTPCC_TIME_NONE;
  if (newest && rtt_valid (a, newest->send_time)) {
    /* RTT = now − send − the receiver's hold time (report − arrival) */
    RtpccTime hold = report_remote + a->remote_offset - newest->arrival;
    sample = now - newest->send_time - hold;
    update_rtt (a, sample);
    if (sample <= 0)
      sample = RTPCC_TIME_NONE;
  }
  a->rtt_sample = sample;
  a->report_time = report_remote + a->remote_offset;
  a->arrival_resolution = res;
  return ABOUT_US;
}

/* ---- transport-wide CC --------------------------------------------------- */

/* Transport-wide seqs are our sender-wide seqs − 1. TWCC carries no report
 * timestamp: the RTT sample is send-to-now of the newest newly reported
 * packet (see below), plus LSR/DLSR from RRs. */
static Verdict
on_twcc_parsed (RtpccFeedbackAdapter * a, RtpccTime now, const RtpccTwcc * fb)
{
  guint64 next_seq = rtpcc_sent_history_next_seq (a->history);
  RtpccTwccMapInfo mi;
  RtpccTime newest_arrival = RTPCC_TIME_NONE, sample;
  RtpccSentEntry *newest_sent = NULL;
  guint n, known = 0;

  if (!a->twcc || next_seq <= 1) {
    /* not in TWCC mode, or nothing sent yet: not about our media */
    return FOREIGN;
  }
  g_array_set_size (a->twcc_results, fb->status_count);
  n = rtpcc_twcc_unwrapper_map (a->twcc, now, fb, next_seq - 2,
      (RtpccTwccResult *) a->twcc_results->data, &mi);

  /* the whole report is checked before anything in it is used: a
   * packet received yet never sent, or one it contradicts an earlier
   * report about (arrivals compared within this epoch only) */
  for (guint i = 0; i < n; i++) {
    const RtpccTwccResult *r = &g_array_index (a->twcc_results,
        RtpccTwccResult, i);
    RtpccSentEntry *e = rtpcc_sent_history_get (a->history, r->ext_seq + 1);
    if (!e) {
      if (r->received && r->ext_seq + 1 >= next_seq) {
        g_array_set_size (a->disputed, 0);
        return IMPLAUSIBLE;
      }
      continue;
    }
    rtpcc_feedback_adapter_check_entry (a, e, r->received, r->arrival != RTPCC_TIME_NONE
        && a->have_remote && !mi.new_epoch && mi.epoch == a->twcc_epoch ?
        r->arrival + a->remote_offset : RTPCC_TIME_NONE, RTPCC_USEC (250));
  }
  {
    Verdict v = rtpcc_feedback_adapter_disputes (a, now);
    if (v != ABOUT_US)
      return v;
  }

  /* a new epoch (receiver restart): re-anchor its clock on ours */
  if (mi.new_epoch || mi.epoch != a->twcc_epoch) {
    a->twcc_epoch = mi.epoch;
    a->have_remote = FALSE;
    a->min_owd = RTPCC_TIME_NONE;
  }
  for (guint i = 0; i < n; i++) {
    const RtpccTwccResult *r = &g_array_index (a->twcc_results,
        RtpccTwccResult, i);
    if (r->received && r->arrival != RTPCC_TIME_NONE
        && (newest_arrival == RTPCC_TIME_NONE || r->arrival > newest_arrival))
      newest_arrival = r->arrival;
  }
  if (!a->have_remote && newest_arrival != RTPCC_TIME_NONE) {
    a->have_remote = TRUE;
    a->remote_offset = now - newest_arrival;
  }

  g_array_set_size (a->reports, 0);
  for (guint i = 0; i < n; i++) {
    const RtpccTwccResult *r = &g_array_index (a->twcc_results,
        RtpccTwccResult, i);
    RtpccSentEntry *e = rtpcc_sent_history_get (a->history, r->ext_seq + 1);
    if (!e)
      continue;
    known++;
    if (!r->received)
      rtpcc_sent_history_mark_missing (a->history, e);
    else if (rtpcc_feedback_adapter_mark_received (a, e, r->arrival != RTPCC_TIME_NONE && a->have_remote ?
            r->arrival + a->remote_offset : RTPCC_TIME_NONE)
        && (!newest_sent || e->send_time > newest_sent->send_time))
      newest_sent = e;
  }
  if (known == 0)
    return FOREIGN;
  a->stats.has_feedback = TRUE;
  /* TWCC has no report timestamp, so the receiver's hold time is unknown;
   * but a receiver reports what it has received when it sends, so the
   * newest packet first reported here arrived shortly before the report
   * (within one inter-packet gap, unless its feedback was delayed). Its
   * send-to-now time is an RTT sample biased up by that gap — what a
   * stock rtpbin receiver, which sends few RRs (so few LSR/DLSR RTTs),
   * leaves us. Only packets reported for the first time count: a repeated
   * report would measure the feedback's age, not the path. */
  sample = RTPCC_TIME_NONE;
  if (newest_sent && now > newest_sent->send_time
      && rtt_valid (a, newest_sent->send_time)) {
    sample = now - newest_sent->send_time;
    update_rtt (a, sample);
  }
  a->rtt_sample = sample;
  a->report_time = newest_arrival != RTPCC_TIME_NONE && a->have_remote ?
      newest_arrival + a->remote_offset : RTPCC_TIME_NONE;
  a->arrival_resolution = RTPCC_USEC (250);
  return ABOUT_US;
}

static Verdict
on_twcc (RtpccFeedbackAdapter * a, RtpccTime now,
    const guint8 * data, gsize len)
{
  GError *err = NULL;
  RtpccTwcc *fb = rtpcc_twcc_parse (data, len, &err);
  Verdict v;

  if (!fb) {
    g_clear_error (&err);
    return MALFORMED;
  }
  v = on_twcc_parsed (a, now, fb);
  rtpcc_twcc_free (fb);
  return v;
}

/* ---- after per-packet feedback ------------------------------------------- */

static gint
compare_reports (gconstpointer x, gconstpointer y)
{
  const RtpccPacketReport *a = x, *b = y;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* With one SSRC and no loss declared beside them the reports are in
 * sender-wide seq order already: checking costs a fraction of sorting
 * them (g_array_sort is stable, so skipping it changes nothing). */
static gboolean
reports_sorted (const GArray * reports)
{
  const RtpccPacketReport *r = (const RtpccPacketReport *) reports->data;

  for (guint i = 1; i < reports->len; i++)
    if (r[i].seq < r[i - 1].seq)
      return FALSE;
  return TRUE;
}

static gboolean
finish (RtpccFeedbackAdapter * a, RtpccFeedback * f)
{
  gdouble lost = 0, total = 0;

  rtpcc_sent_history_declare_losses (a->history, on_loss, a);
  if (a->reports->len == 0)
    return FALSE;

  if (!reports_sorted (a->reports))
    g_array_sort (a->reports, compare_reports);
  for (guint i = 0; i < a->reports->len; i++) {
    const RtpccPacketReport *r = &g_array_index (a->reports,
        RtpccPacketReport, i);
    /* FEC and probe padding are not media: their loss is not the media's */
    if (r->is_fec)
      continue;
    total++;
    if (!r->received)
      lost++;
    else if (r->arrival != RTPCC_TIME_NONE) {
      RtpccTime owd = r->arrival - r->send_time;
      if (a->min_owd == RTPCC_TIME_NONE || owd < a->min_owd)
        a->min_owd = owd;
      a->stats.queue_delay = owd - a->min_owd;
    }
  }
  if (total > 0)
    a->stats.loss = 0.9 * a->stats.loss + 0.1 * (lost / total);

  /* receive rate over >= 200 ms of receiver time */
  if (a->report_time != RTPCC_TIME_NONE) {
    if (a->rr_window_start == RTPCC_TIME_NONE)
      a->rr_window_start = a->report_time;
    else if (a->report_time - a->rr_window_start >= RTPCC_MSEC (200)) {
      a->stats.receive_rate = (guint64) (a->rr_window_bytes * 8.0 /
          RTPCC_TIME_AS_SEC (a->report_time - a->rr_window_start));
      a->rr_window_start = a->report_time;
      a->rr_window_bytes = 0;
    }
  }

  {
    RtpccTime window = a->stats.srtt != RTPCC_TIME_NONE ?
        DELIVERY_WINDOW_RTTS * a->stats.srtt : DELIVERY_WINDOW_MIN;
    a->stats.delivery_rate = rtpcc_delivery_rate_update (a->delivery,
        CLAMP (window, DELIVERY_WINDOW_MIN, DELIVERY_WINDOW_MAX));
  }

  f->reports = (const RtpccPacketReport *) a->reports->data;
  f->n_reports = a->reports->len;
  f->rtt_sample = a->rtt_sample;
  f->srtt = a->stats.srtt;
  f->report_time = a->report_time;
  f->arrival_resolution = a->arrival_resolution;
  f->n_unreported = a->n_unreported;
  a->n_unreported = 0;
  return TRUE;
}

/* ---- RR report blocks ---------------------------------------------------- */

static gboolean
on_report_block (RtpccFeedbackAdapter * a, RtpccTime now,
    const RtpccRtcpReportBlock * rb, RtpccReceiverReport * rr,
    RtpccReceiverReport * brr)
{
  RtpccSentStream *st = rtpcc_sent_history_get_stream (a->history, rb->ssrc);
  guint32 now_short;

  if (!st)
    return FALSE;
  now_short = rtpcc_ntp_short (rtpcc_ntp_from_time (now, a->ntp_offset));
  rr->ssrc = rb->ssrc;
  rr->fraction_lost = rb->fraction_lost;
  rr->cumulative_lost = rb->cumulative_lost;
  rr->ext_highest_seq = rb->ext_highest_seq;
  rr->jitter = rb->jitter;
  rr->rtt = rtpcc_rtcp_rtt_from_lsr (now_short, rb->lsr, rb->dlsr);
  rr->lsr_sent = rb->lsr == 0 ? RTPCC_TIME_NONE :
      now - rtpcc_ntp_short_to_time (now_short - rb->lsr);
  if (rr->lsr_sent != RTPCC_TIME_NONE && !rtt_valid (a, rr->lsr_sent))
    rr->rtt = RTPCC_TIME_NONE;
  /* what we sent on this SSRC since the previous report about it */
  rr->packets_sent_interval = st->packet_count - st->packets_at_last_report;
  st->packets_at_last_report = st->packet_count;
  /* CCFB measures RTT itself; RR-only and TWCC need the LSR/DLSR one */
  if (rr->rtt != RTPCC_TIME_NONE && a->mode != RTPCC_FEEDBACK_CCFB)
    update_rtt (a, rr->rtt);
  if (a->mode == RTPCC_FEEDBACK_RR) {
    a->stats.loss = rb->fraction_lost / 256.0;
    a->stats.has_feedback = TRUE;
  }
  /* RFC 8083 §4.3 compares us with the TCP equation, whose p is a loss
   * event rate. RR's fraction lost counts every packet of a drop-tail
   * burst and overstates it several-fold; with per-packet feedback we know
   * the event rate exactly, so the breaker gets that. RR-only mode keeps
   * the fraction lost (an upper bound: the conservative side). */
  *brr = *rr;
  if (a->mode != RTPCC_FEEDBACK_RR && a->cb_reported > 0) {
    gdouble f = (gdouble) a->cb_events / a->cb_reported;
    brr->fraction_lost = (guint8) MIN (255.0, f * 256.0 + 0.999);
    if (a->cb_events == 0)
      brr->fraction_lost = 0;
  }
  return TRUE;
}

/* The report blocks of one SR or RR: those about our SSRCs go to the
 * sink, others are foreign. */
static void
report_blocks (RtpccFeedbackAdapter * a, RtpccTime now,
    const RtpccRtcpReportBlock * blocks, guint n, gboolean * about_us,
    gboolean * foreign)
{
  gboolean any = FALSE;

  for (guint i = 0; i < n; i++) {
    RtpccReceiverReport rr, brr;
    if (!on_report_block (a, now, &blocks[i], &rr, &brr)) {
      *foreign = TRUE;
      continue;
    }
    any = *about_us = TRUE;
    a->sink.receiver_report (a->user_data, now, &rr, &brr);
  }
  /* the loss-event count restarts with this report, before any per-packet
   * feedback later in the same compound adds to it */
  if (any)
    a->cb_reported = a->cb_events = 0;
}

/* Counts what one RTCP packet was; TRUE if about us. */
static gboolean
count (RtpccFeedbackAdapter * a, Verdict v)
{
  if (v == MALFORMED)
    a->stats.rtcp_malformed++;
  else if (v == FOREIGN)
    a->stats.rtcp_unknown_ssrc++;
  else if (v == IMPLAUSIBLE)
    a->stats.feedback_implausible++;
  else if (v == CONTRADICTORY)
    a->stats.feedback_contradictory++;
  return v == ABOUT_US;
}

/* After a per-packet feedback about us: XR discards of the same compound
 * ride with it; then the losses it proves and the controller's view. */
static void
per_packet (RtpccFeedbackAdapter * a, RtpccTime now)
{
  RtpccFeedback f;

  rtpcc_feedback_adapter_hand_discards (a, now);
  a->sink.feedback (a->user_data, now, finish (a, &f) ? &f : NULL);
}

gboolean
rtpcc_feedback_adapter_receive_twcc (RtpccFeedbackAdapter * a, RtpccTime now,
    const RtpccTwcc * fb)
{
  /* what a compound holding only this TWCC packet would do */
  a->stats.any_rtcp = TRUE;
  a->sink.rtcp (a->user_data, now);
  if (!count (a, on_twcc_parsed (a, now, fb)))
    return FALSE;
  per_packet (a, now);
  a->stats.rtcp_received++;
  return TRUE;
}

gboolean
rtpcc_feedback_adapter_receive (RtpccFeedbackAdapter * a, RtpccTime now,
    const guint8 * data, gsize len)
{
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;
  gboolean about_us = FALSE, any = FALSE, foreign = FALSE;
  guint64 unknown_before = a->stats.rtcp_unknown_ssrc;
  guint64 malformed_before = a->stats.rtcp_malformed;

  if (!rtpcc_rtcp_iter_init (&it, data, len)) {
    a->stats.rtcp_malformed++;
    return FALSE;
  }
  a->stats.any_rtcp = TRUE;
  a->sink.rtcp (a->user_data, now);
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    any = TRUE;
    switch (pkt.pt) {
      case RTPCC_RTCP_RR:{
        RtpccRtcpRR rr;
        if (!rtpcc_rtcp_parse_rr (&pkt, &rr))
          a->stats.rtcp_malformed++;
        else
          report_blocks (a, now, rr.blocks, rr.n_blocks, &about_us,
              &foreign);
        break;
      }
      case RTPCC_RTCP_SR:{
        RtpccRtcpSR sr;
        if (!rtpcc_rtcp_parse_sr (&pkt, &sr))
          a->stats.rtcp_malformed++;
        else
          report_blocks (a, now, sr.blocks, sr.n_blocks, &about_us,
              &foreign);
        break;
      }
      case RTPCC_RTCP_XR:
        a->xr_feedback = FALSE;
        if (count (a, rtpcc_feedback_adapter_on_xr (a, now, pkt.data, pkt.len))) {
          about_us = TRUE;
          /* RR mode: Loss RLE is the per-packet feedback, discards ride
           * with it; without it they go alone */
          if (a->xr_feedback)
            per_packet (a, now);
          else if (a->mode == RTPCC_FEEDBACK_RR)
            rtpcc_feedback_adapter_hand_discards (a, now);
        }
        break;
      case RTPCC_RTCP_RTPFB:{
        Verdict v = IGNORED;
        if (pkt.count == RTPCC_CCFB_FMT)
          v = on_ccfb (a, now, pkt.data, pkt.len);
        else if (pkt.count == RTPCC_TWCC_FMT)
          v = on_twcc (a, now, pkt.data, pkt.len);
        if (count (a, v)) {
          about_us = TRUE;
          per_packet (a, now);
        }
        break;
      }
      default:
        break;
    }
  }
  if (!any) {
    a->stats.rtcp_malformed++;
    return FALSE;
  }
  if (about_us) {
    a->stats.rtcp_received++;
    return TRUE;
  }
  /* reports about SSRCs we do not send are counted; RTCP with nothing to
   * say about anyone (an RR without blocks, SDES, BYE) is merely unused */
  if (foreign && a->stats.rtcp_unknown_ssrc == unknown_before
      && a->stats.rtcp_malformed == malformed_before)
    a->stats.rtcp_unknown_ssrc++;
  return FALSE;
}

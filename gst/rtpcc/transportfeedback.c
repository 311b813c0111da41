/* RtpccTransportFeedback: a session's TWCC reports in our numbering.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/transportfeedback.h>

/* a report agrees with an offset when this share of its checkable
 * packets does (a media packet with RTP padding counts its padding as
 * payload with us, not with GStreamer) */
#define AGREE_PERCENT 90
/* an offset found by search needs this many agreeing packets */
#define SYNC_MIN_AGREE 3
/* status count of one TWCC packet */
#define MAX_RUN 65535

struct _RtpccTransportFeedback
{
  RtpccSentHistory *history;
  guint16 offset;               /* ours = the session's + offset */
  guint8 fb_count;
  GArray *status;               /* RtpccTwccStatus scratch */
  RtpccTransportFeedbackStats stats;
};

RtpccTransportFeedback *
rtpcc_transport_feedback_new (RtpccSentHistory * history)
{
  RtpccTransportFeedback *tf = g_new0 (RtpccTransportFeedback, 1);

  tf->history = history;
  tf->status = g_array_new (FALSE, TRUE, sizeof (RtpccTwccStatus));
  return tf;
}

void
rtpcc_transport_feedback_free (RtpccTransportFeedback * tf)
{
  if (!tf)
    return;
  g_array_unref (tf->status);
  g_free (tf);
}

const RtpccTransportFeedbackStats *
rtpcc_transport_feedback_get_stats (const RtpccTransportFeedback * tf)
{
  return &tf->stats;
}

static gboolean
checkable (const RtpccTransportPacket * p)
{
  return p->pt >= 0 && p->payload >= 0;
}

/* our entry for the session's @seq at @offset, or NULL */
static const RtpccSentEntry *
entry_at (RtpccTransportFeedback * tf, guint16 seq, guint16 offset)
{
  guint64 next = rtpcc_sent_history_next_seq (tf->history);
  guint64 ext = rtpcc_twcc_unwrap_seq (next - 2, (guint16) (seq + offset));

  /* sender-wide seq = transport-wide + 1 */
  return ext + 1 < next ? rtpcc_sent_history_get (tf->history, ext + 1) :
      NULL;
}

static gboolean
same_packet (const RtpccSentEntry * e, const RtpccTransportPacket * p)
{
  return e && e->pt == p->pt && e->payload == (guint) p->payload;
}

/* How many checkable packets of the report agree at @offset; stops early
 * once the report cannot agree any more. */
static guint
score (RtpccTransportFeedback * tf, const RtpccTransportPacket * pkts,
    guint n, guint checked, guint16 offset)
{
  guint agree = 0, disagree = 0;
  guint max_disagree = checked - (checked * AGREE_PERCENT + 99) / 100;

  for (guint i = 0; i < n; i++) {
    if (!checkable (&pkts[i]))
      continue;
    if (same_packet (entry_at (tf, pkts[i].seq, offset), &pkts[i]))
      agree++;
    else if (++disagree > max_disagree)
      return 0;
  }
  return agree;
}

/* Mean |their send time − ours| over the report's timed packets at
 * @offset, G_MAXINT64 if none is timed. */
static RtpccTime
time_distance (RtpccTransportFeedback * tf, const RtpccTransportPacket * pkts,
    guint n, guint16 offset)
{
  gdouble sum = 0;
  guint k = 0;

  for (guint i = 0; i < n; i++) {
    const RtpccSentEntry *e;
    if (pkts[i].sent == RTPCC_TIME_NONE || !checkable (&pkts[i]))
      continue;
    e = entry_at (tf, pkts[i].seq, offset);
    if (!same_packet (e, &pkts[i]))
      continue;
    sum += ABS ((gdouble) (pkts[i].sent - e->send_time));
    k++;
  }
  return k ? (RtpccTime) (sum / k) : G_MAXINT64;
}

/* Every packet in the history that looks like the report's first
 * checkable one gives a candidate; the best, on a tie the one closest in
 * send time, else the most recent. */
static gboolean
search (RtpccTransportFeedback * tf, const RtpccTransportPacket * pkts,
    guint n, guint checked, guint16 * offset)
{
  guint64 next = rtpcc_sent_history_next_seq (tf->history);
  guint cap = rtpcc_sent_history_capacity (tf->history);
  guint64 oldest = next > cap ? next - cap : 1;
  const RtpccTransportPacket *first = NULL;
  guint best = 0;
  RtpccTime best_distance = G_MAXINT64;

  for (guint i = 0; i < n && !first; i++)
    if (checkable (&pkts[i]))
      first = &pkts[i];
  /* newest first: a later candidate replaces it only by doing better */
  for (guint64 seq = next - 1; first && seq >= oldest; seq--) {
    const RtpccSentEntry *e = rtpcc_sent_history_get (tf->history, seq);
    guint16 cand;
    guint s;
    RtpccTime d;

    if (!same_packet (e, first))
      continue;
    cand = (guint16) ((guint16) (seq - 1) - first->seq);
    s = score (tf, pkts, n, checked, cand);
    if (s == 0 || s < best)
      continue;
    d = time_distance (tf, pkts, n, cand);
    if (s > best || d < best_distance) {
      best = s;
      best_distance = d;
      *offset = cand;
    }
  }
  return best >= SYNC_MIN_AGREE;
}

/* Hands @func the packets [@from, @to) of @pkts (consecutive seqs, all
 * with information) as one TWCC feedback in our numbering. */
static void
deliver_run (RtpccTransportFeedback * tf, const RtpccTransportPacket * pkts,
    guint from, guint to, RtpccTransportFeedbackFunc func, gpointer user_data)
{
  RtpccTwcc fb = { 0, };
  RtpccTime ref = RTPCC_TIME_NONE;

  g_array_set_size (tf->status, to - from);
  for (guint i = from; i < to; i++)
    if (!pkts[i].lost) {
      /* the reference time: the first arrival's 64 ms tick, as a TWCC
       * writer picks it */
      ref = pkts[i].arrival - (((pkts[i].arrival % RTPCC_TWCC_REF_UNIT) +
              RTPCC_TWCC_REF_UNIT) % RTPCC_TWCC_REF_UNIT);
      break;
    }
  fb.base_seq = (guint16) (pkts[from].seq + tf->offset);
  fb.status_count = (guint16) (to - from);
  fb.ref_time = ref == RTPCC_TIME_NONE ? 0 :
      rtpcc_twcc_ref_time_from_time (ref);
  fb.fb_count = tf->fb_count++;
  fb.status = (RtpccTwccStatus *) tf->status->data;
  for (guint i = from; i < to; i++) {
    RtpccTwccStatus *st = &fb.status[i - from];
    st->seq = (guint16) (pkts[i].seq + tf->offset);
    st->received = !pkts[i].lost;
    st->symbol = st->received ? RTPCC_TWCC_LARGE_DELTA :
        RTPCC_TWCC_NOT_RECEIVED;
    st->delta = 0;
    st->offset = st->received ? pkts[i].arrival - ref : RTPCC_TIME_NONE;
    if (st->received)
      fb.n_received++;
  }
  func (&fb, user_data);
}

gboolean
rtpcc_transport_feedback_translate (RtpccTransportFeedback * tf,
    const RtpccTransportPacket * pkts, guint n,
    RtpccTransportFeedbackFunc func, gpointer user_data)
{
  guint checked = 0, start;
  guint16 offset = tf->offset;

  g_return_val_if_fail (tf != NULL && (pkts != NULL || n == 0), FALSE);

  tf->stats.reports++;
  tf->stats.packets += n;
  for (guint i = 0; i < n; i++)
    if (checkable (&pkts[i]))
      checked++;
  if (n == 0 || rtpcc_sent_history_next_seq (tf->history) <= 1) {
    tf->stats.unmatched++;
    return FALSE;
  }
  if (checked == 0) {
    /* nothing to check a mapping with: an offset found before is
     * trusted, none is guessed */
    if (!tf->stats.synced) {
      tf->stats.unmatched++;
      return FALSE;
    }
  } else if (!tf->stats.synced || score (tf, pkts, n, checked,
          tf->offset) == 0) {
    /* a fresh session numbers from 0, like us: try that first */
    guint s0 = tf->stats.synced ? 0 : score (tf, pkts, n, checked, 0);

    if (s0 > 0 && s0 >= MIN (SYNC_MIN_AGREE, checked))
      offset = 0;
    else if (!search (tf, pkts, n, checked, &offset)) {
      tf->stats.unmatched++;
      return FALSE;
    }
    tf->offset = offset;
    tf->stats.synced = TRUE;
    tf->stats.offset = (gint16) offset;
    tf->stats.syncs++;
  }

  /* runs of consecutive seqs, packets without information left out */
  start = 0;
  for (guint i = 0; i <= n; i++) {
    gboolean skip = i < n && !pkts[i].lost && pkts[i].arrival ==
        RTPCC_TIME_NONE;
    gboolean ends = i == n || skip || i - start == MAX_RUN
        || (i > start && pkts[i].seq != (guint16) (pkts[i - 1].seq + 1));

    if (ends && i > start)
      deliver_run (tf, pkts, start, i, func, user_data);
    if (skip) {
      tf->stats.skipped++;
      start = i + 1;
    } else if (ends) {
      start = i;
    }
  }
  return TRUE;
}

/* RtpccDeliveryRate: delivery rate from acknowledgements (deliveryrate.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/deliveryrate.h>

typedef struct
{
  guint64 seq;
  RtpccTime send_time, arrival;
  guint size;
} Ack;

typedef struct
{
  RtpccTime at;                 /* the newest send time it covered */
  guint64 rate;
} Sample;

struct _RtpccDeliveryRate
{
  GArray *acks;                 /* Ack, in seq order */
  GArray *samples;              /* Sample, oldest first */
  /* Whether send and arrival times (those given) never decrease along
   * acks: true on a path that does not reorder, and then the window's
   * bounds are its ends, found without a scan. A packet inserted out of
   * order clears it; the next full scan sets it again if it holds. */
  gboolean ordered;
  guint64 bytes;                /* the sizes of acks, summed */
  guint64 rate;
  RtpccTime first_send;         /* the oldest send time acknowledged, or
                                 * RTPCC_TIME_NONE */
};

RtpccDeliveryRate *
rtpcc_delivery_rate_new (void)
{
  RtpccDeliveryRate *d = g_new0 (RtpccDeliveryRate, 1);

  d->acks = g_array_new (FALSE, FALSE, sizeof (Ack));
  d->samples = g_array_new (FALSE, FALSE, sizeof (Sample));
  d->first_send = RTPCC_TIME_NONE;
  d->ordered = TRUE;
  return d;
}

void
rtpcc_delivery_rate_free (RtpccDeliveryRate * d)
{
  if (!d)
    return;
  g_array_unref (d->acks);
  g_array_unref (d->samples);
  g_free (d);
}

/* the index of the first ack with a seq >= @seq */
static guint
lower_bound (const RtpccDeliveryRate * d, guint64 seq)
{
  guint lo = 0, hi = d->acks->len;

  while (lo < hi) {
    guint mid = (lo + hi) / 2;
    if (g_array_index (d->acks, Ack, mid).seq < seq)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* the newest arrival time given at or before acks[@i], or NONE */
static RtpccTime
last_arrival_before (const RtpccDeliveryRate * d, guint i)
{
  while (i-- > 0) {
    RtpccTime t = g_array_index (d->acks, Ack, i).arrival;
    if (t != RTPCC_TIME_NONE)
      return t;
  }
  return RTPCC_TIME_NONE;
}

/* @a, appended, keeps the acks ordered (see ordered) */
static gboolean
follows (const RtpccDeliveryRate * d, const Ack * a)
{
  const Ack *last = &g_array_index (d->acks, Ack, d->acks->len - 1);
  RtpccTime arr;

  if (a->send_time < last->send_time)
    return FALSE;
  if (a->arrival == RTPCC_TIME_NONE)
    return TRUE;
  arr = last->arrival != RTPCC_TIME_NONE ? last->arrival :
      last_arrival_before (d, d->acks->len - 1);
  return arr == RTPCC_TIME_NONE || a->arrival >= arr;
}

void
rtpcc_delivery_rate_on_ack (RtpccDeliveryRate * d, guint64 seq,
    RtpccTime send_time, RtpccTime arrival, guint size)
{
  Ack a = { seq, send_time, arrival, size };
  guint at = d->acks->len;

  if (d->first_send == RTPCC_TIME_NONE || send_time < d->first_send)
    d->first_send = send_time;

  /* reports come in seq order, mostly: insert from the end */
  if (at > 0 && g_array_index (d->acks, Ack, at - 1).seq >= seq) {
    at = lower_bound (d, seq);
    if (at < d->acks->len && g_array_index (d->acks, Ack, at).seq == seq)
      return;                   /* (acknowledged once) */
  }
  if (at == d->acks->len) {
    if (d->ordered && at > 0 && !follows (d, &a))
      d->ordered = FALSE;
    g_array_append_val (d->acks, a);
  } else {
    d->ordered = FALSE;
    g_array_insert_val (d->acks, at, a);
  }
  d->bytes += size;
}

void
rtpcc_delivery_rate_withdraw (RtpccDeliveryRate * d, guint64 seq)
{
  guint at = lower_bound (d, seq);

  if (at < d->acks->len && g_array_index (d->acks, Ack, at).seq == seq) {
    d->bytes -= g_array_index (d->acks, Ack, at).size;
    g_array_remove_index (d->acks, at);
  }
  /* the highest so far may have counted it: start over */
  g_array_set_size (d->samples, 0);
}

/* The bounds of the acks' send and arrival times (arrivals NONE when none
 * is given), and the index of the first one sent (the earliest, the first
 * such): from the ends when ordered, otherwise by a scan, which finds out
 * whether they are ordered again. */
static void
bounds (RtpccDeliveryRate * d, RtpccTime * first_send, RtpccTime * last_send,
    RtpccTime * first_arr, RtpccTime * last_arr, guint * first)
{
  guint n = d->acks->len;
  gboolean ordered = TRUE;

  *first_arr = *last_arr = RTPCC_TIME_NONE;
  if (d->ordered) {
    *first = 0;
    *first_send = g_array_index (d->acks, Ack, 0).send_time;
    *last_send = g_array_index (d->acks, Ack, n - 1).send_time;
    for (guint i = 0; i < n && *first_arr == RTPCC_TIME_NONE; i++)
      *first_arr = g_array_index (d->acks, Ack, i).arrival;
    if (*first_arr != RTPCC_TIME_NONE)
      *last_arr = last_arrival_before (d, n);
    return;
  }
  *first = 0;
  *first_send = *last_send = g_array_index (d->acks, Ack, 0).send_time;
  for (guint i = 0; i < n; i++) {
    const Ack *a = &g_array_index (d->acks, Ack, i);
    if (a->send_time < *last_send)
      ordered = FALSE;
    if (a->send_time < *first_send) {
      *first_send = a->send_time;
      *first = i;
    }
    if (a->send_time > *last_send)
      *last_send = a->send_time;
    if (a->arrival != RTPCC_TIME_NONE) {
      if (*last_arr != RTPCC_TIME_NONE && a->arrival < *last_arr)
        ordered = FALSE;
      if (*first_arr == RTPCC_TIME_NONE || a->arrival < *first_arr)
        *first_arr = a->arrival;
      if (*last_arr == RTPCC_TIME_NONE || a->arrival > *last_arr)
        *last_arr = a->arrival;
    }
  }
  d->ordered = ordered;
}

/* The rate over the acks in the window, or 0; the interval is at least
 * @floor. */
static guint64
window_rate (RtpccDeliveryRate * d, RtpccTime floor)
{
  RtpccTime first_send, last_send, first_arr, last_arr, span;
  guint64 bytes;
  guint first;

  if (d->acks->len < RTPCC_DELIVERY_RATE_MIN_PACKETS)
    return 0;
  bounds (d, &first_send, &last_send, &first_arr, &last_arr, &first);
  /* (the first packet sent opens the interval) */
  bytes = d->bytes - g_array_index (d->acks, Ack, first).size;
  span = last_send - first_send;
  if (last_arr != RTPCC_TIME_NONE)
    span = MAX (span, last_arr - first_arr);
  span = MAX (span, floor);
  /* (sent at one instant, and nothing else to go by: no sample) */
  if (floor == 0)
    return 0;
  return span > 0 ? (guint64) (bytes * 8.0 / RTPCC_TIME_AS_SEC (span)) : 0;
}

guint64
rtpcc_delivery_rate_update (RtpccDeliveryRate * d, RtpccTime window)
{
  RtpccTime newest;
  guint drop = 0;
  Sample x;

  if (d->acks->len == 0)
    return d->rate;
  if (d->ordered) {
    newest = g_array_index (d->acks, Ack, d->acks->len - 1).send_time;
  } else {
    newest = g_array_index (d->acks, Ack, 0).send_time;
    for (guint i = 1; i < d->acks->len; i++)
      newest = MAX (newest, g_array_index (d->acks, Ack, i).send_time);
  }
  while (drop < d->acks->len
      && g_array_index (d->acks, Ack, drop).send_time < newest - window)
    d->bytes -= g_array_index (d->acks, Ack, drop++).size;
  g_array_remove_range (d->acks, 0, drop);

  x.at = newest;
  /* Whatever the report says, these bytes were sent within the window
   * (or since the first packet, if that is more recent): over a shorter
   * interval the sample would exceed the rate they were sent at (a burst
   * leaves at one instant, and arrival times are the report's word). */
  x.rate = window_rate (d, MIN (window, newest - d->first_send));
  if (x.rate > 0)
    g_array_append_val (d->samples, x);
  /* the highest over the last RTPCC_DELIVERY_RATE_HOLD */
  drop = 0;
  while (drop < d->samples->len && g_array_index (d->samples, Sample,
          drop).at < newest - RTPCC_DELIVERY_RATE_HOLD)
    drop++;
  g_array_remove_range (d->samples, 0, drop);
  if (d->samples->len == 0)
    return d->rate;
  d->rate = 0;
  for (guint i = 0; i < d->samples->len; i++)
    d->rate = MAX (d->rate, g_array_index (d->samples, Sample, i).rate);
  return d->rate;
}

guint64
rtpcc_delivery_rate_get (const RtpccDeliveryRate * d)
{
  return d->rate;
}

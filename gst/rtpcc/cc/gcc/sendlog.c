/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/sendlog.h>

/* how far back the log reaches */
#define KEEP                  RTPCC_SEC (3)

typedef struct
{
  RtpccTime t;
  guint64 cum;                  /* bytes sent up to and including t */
} SendMark;

void
rtpcc_gcc_send_log_init (RtpccGccSendLog * l)
{
  l->marks = g_array_new (FALSE, FALSE, sizeof (SendMark));
  l->head = 0;
  l->cum = 0;
}

void
rtpcc_gcc_send_log_clear (RtpccGccSendLog * l)
{
  g_clear_pointer (&l->marks, g_array_unref);
}

void
rtpcc_gcc_send_log_add (RtpccGccSendLog * l, RtpccTime t, guint size)
{
  SendMark m;

  l->cum += size;
  m.t = t;
  m.cum = l->cum;
  g_array_append_val (l->marks, m);
  while (l->head < l->marks->len
      && g_array_index (l->marks, SendMark, l->head).t < t - KEEP)
    l->head++;
  /* compact once the dropped marks are the larger part */
  if (l->head > 256 && l->head * 2 > l->marks->len) {
    g_array_remove_range (l->marks, 0, l->head);
    l->head = 0;
  }
}

/* bytes sent at or before @t; FALSE if the log does not reach back to @t */
static gboolean
send_log_at (const RtpccGccSendLog * l, RtpccTime t, guint64 * cum)
{
  guint lo = l->head, hi = l->marks->len;

  if (lo >= hi || g_array_index (l->marks, SendMark, lo).t > t)
    return FALSE;
  /* the last mark with time <= t */
  while (hi - lo > 1) {
    guint mid = lo + (hi - lo) / 2;
    if (g_array_index (l->marks, SendMark, mid).t <= t)
      lo = mid;
    else
      hi = mid;
  }
  *cum = g_array_index (l->marks, SendMark, lo).cum;
  return TRUE;
}

gdouble
rtpcc_gcc_send_log_rate (const RtpccGccSendLog * l, RtpccTime t,
    RtpccTime window)
{
  guint64 a, b;

  if (!send_log_at (l, t - window, &a) || !send_log_at (l, t, &b))
    return -1;
  return (b - a) * 8.0 / RTPCC_TIME_AS_SEC (window);
}

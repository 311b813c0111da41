/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/sendlog.h>

/* how far back the log reaches */
#define KEEP                  RTPCC_SEC (3)

typedef struct
{
  RtpccTime t;                  /* first: rtpcc_gcc_marks_at */
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
  rtpcc_gcc_marks_compact (l->marks, &l->head);
}

void
rtpcc_gcc_marks_compact (GArray * marks, guint * head)
{
  if (*head > 256 && *head * 2 > marks->len) {
    g_array_remove_range (marks, 0, *head);
    *head = 0;
  }
}

gint
rtpcc_gcc_marks_at (GArray * marks, guint head, RtpccTime t)
{
  guint size = g_array_get_element_size (marks);
  guint lo = head, hi = marks->len;

#define MARK_TIME(i) (*(const RtpccTime *) (gconstpointer) \
    (marks->data + (gsize) (i) * size))
  if (lo >= hi || MARK_TIME (lo) > t)
    return -1;
  while (hi - lo > 1) {
    guint mid = lo + (hi - lo) / 2;
    if (MARK_TIME (mid) <= t)
      lo = mid;
    else
      hi = mid;
  }
#undef MARK_TIME
  return (gint) lo;
}

/* bytes sent at or before @t; FALSE if the log does not reach back to @t */
static gboolean
send_log_at (const RtpccGccSendLog * l, RtpccTime t, guint64 * cum)
{
  gint i = rtpcc_gcc_marks_at (l->marks, l->head, t);

  if (i < 0)
    return FALSE;
  *cum = g_array_index (l->marks, SendMark, i).cum;
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

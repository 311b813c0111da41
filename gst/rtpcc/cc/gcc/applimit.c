/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/gcc/applimit.h>

/* how far back the allowance is kept (as the send log) */
#define KEEP                  RTPCC_SEC (3)

typedef struct
{
  RtpccTime t;                  /* first: rtpcc_gcc_marks_at */
  gdouble cum;                  /* bits allowed up to t */
  gdouble rate;                 /* bit/s allowed from t on */
} AllowMark;

void
rtpcc_gcc_app_limit_init (RtpccGccAppLimit * l)
{
  l->marks = g_array_new (FALSE, FALSE, sizeof (AllowMark));
  l->head = 0;
}

void
rtpcc_gcc_app_limit_clear (RtpccGccAppLimit * l)
{
  g_clear_pointer (&l->marks, g_array_unref);
}

static const AllowMark *
last_mark (const RtpccGccAppLimit * l)
{
  if (l->head >= l->marks->len)
    return NULL;
  return &g_array_index (l->marks, AllowMark, l->marks->len - 1);
}

void
rtpcc_gcc_app_limit_set_rate (RtpccGccAppLimit * l, RtpccTime t,
    gdouble rate)
{
  const AllowMark *last = last_mark (l);
  AllowMark m;

  rate = MAX (rate, 0.0);
  if (last && t <= last->t) {
    /* the same instant (or a clock that stepped back): the new rate
     * replaces the one set there */
    g_array_index (l->marks, AllowMark, l->marks->len - 1).rate = rate;
    return;
  }
  if (last && last->rate == rate)
    return;                     /* nothing changes: no mark needed */
  m.t = t;
  m.cum = last ? last->cum + last->rate * RTPCC_TIME_AS_SEC (t - last->t) : 0;
  m.rate = rate;
  g_array_append_val (l->marks, m);
  /* drop marks older than KEEP, but keep the one in force at t − KEEP */
  while (l->head + 1 < l->marks->len
      && g_array_index (l->marks, AllowMark, l->head + 1).t <= t - KEEP)
    l->head++;
  rtpcc_gcc_marks_compact (l->marks, &l->head);
}

/* bits allowed up to @t; FALSE if the allowance does not reach back to @t */
static gboolean
allowed_at (const RtpccGccAppLimit * l, RtpccTime t, gdouble * cum)
{
  /* the last mark at or before t: its rate is in force at t */
  gint i = rtpcc_gcc_marks_at (l->marks, l->head, t);
  const AllowMark *m;

  if (i < 0)
    return FALSE;
  m = &g_array_index (l->marks, AllowMark, i);
  *cum = m->cum + m->rate * RTPCC_TIME_AS_SEC (t - m->t);
  return TRUE;
}

gdouble
rtpcc_gcc_app_limit_allowed (const RtpccGccAppLimit * l, RtpccTime t,
    RtpccTime window)
{
  gdouble a, b;

  if (!allowed_at (l, t - window, &a) || !allowed_at (l, t, &b))
    return -1;
  return b - a;
}

gdouble
rtpcc_gcc_app_limit_used (const RtpccGccAppLimit * l,
    const RtpccGccSendLog * sent, RtpccTime t, RtpccTime window)
{
  gdouble allowed = rtpcc_gcc_app_limit_allowed (l, t, window);
  gdouble rate = rtpcc_gcc_send_log_rate (sent, t, window);

  if (allowed <= 0 || rate < 0)
    return -1;
  return rate * RTPCC_TIME_AS_SEC (window) / allowed;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/tfrc/sendlog.h>

#define SENDER_LIMITED  0.5     /* data-limited below half the allowance */
#define LOG_MIN_CAP     256
#define LOG_MAX_CAP     65536

void
rtpcc_tfrc_send_log_init (RtpccTfrcSendLog * log)
{
  log->cap = LOG_MIN_CAP;
  log->ring = g_new (RtpccTfrcSentEntry, log->cap);
  log->head = log->len = 0;
}

void
rtpcc_tfrc_send_log_clear (RtpccTfrcSendLog * log)
{
  g_clear_pointer (&log->ring, g_free);
  log->cap = log->head = log->len = 0;
}

static const RtpccTfrcSentEntry *
entry_at (const RtpccTfrcSendLog * log, guint i)
{
  return &log->ring[(log->head + i) & (log->cap - 1)];
}

void
rtpcc_tfrc_send_log_push (RtpccTfrcSendLog * log,
    const RtpccTfrcSentEntry * e)
{
  if (log->len == log->cap) {
    if (log->cap >= LOG_MAX_CAP) {
      log->head = (log->head + 1) & (log->cap - 1);
      log->len--;
    } else {
      RtpccTfrcSentEntry *n = g_new (RtpccTfrcSentEntry, log->cap * 2);
      for (guint i = 0; i < log->len; i++)
        n[i] = *entry_at (log, i);
      g_free (log->ring);
      log->ring = n;
      log->cap *= 2;
      log->head = 0;
    }
  }
  log->ring[(log->head + log->len) & (log->cap - 1)] = *e;
  log->len++;
}

void
rtpcc_tfrc_send_log_prune (RtpccTfrcSendLog * log, RtpccTime before)
{
  while (log->len > 0 && entry_at (log, 0)->send_time < before) {
    log->head = (log->head + 1) & (log->cap - 1);
    log->len--;
  }
}

gboolean
rtpcc_tfrc_send_log_data_limited (const RtpccTfrcSendLog * log,
    RtpccTime t_old, RtpccTime t_new)
{
  gboolean any = FALSE, backlog = FALSE;
  gdouble bytes = 0.0, allowed = 0.0, prev_allowed = -1.0;
  RtpccTime prev = t_old;

  if (t_old == RTPCC_TIME_NONE || t_new == RTPCC_TIME_NONE || t_new <= t_old
      || log->len == 0)
    return FALSE;
  for (guint i = 0; i < log->len; i++) {
    const RtpccTfrcSentEntry *e = entry_at (log, i);
    if (e->send_time <= t_old) {
      prev_allowed = e->allowed;
      continue;
    }
    if (e->send_time > t_new)
      break;
    any = TRUE;
    backlog |= !e->app_limited;
    bytes += e->size;
    /* a gap is charged at the lower of the allowances at its two ends: the
     * rate may have changed inside it, and wrongly calling an interval
     * data-limited is the costlier mistake */
    allowed += (prev_allowed < 0.0 ? e->allowed : MIN (prev_allowed,
            e->allowed)) * RTPCC_TIME_AS_SEC (e->send_time - prev);
    prev = e->send_time;
    prev_allowed = e->allowed;
  }
  if (!any || entry_at (log, 0)->send_time > t_old)
    return FALSE;               /* nothing to judge, or the log was cut */
  if (!backlog && bytes < allowed)
    return TRUE;                /* RFC 5348 §8.2: limited the whole time */
  return bytes < SENDER_LIMITED * allowed;
}

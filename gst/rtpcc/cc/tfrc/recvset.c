/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/tfrc/recvset.h>

#include <math.h>
#include <string.h>

gdouble
rtpcc_tfrc_recv_set_max (const RtpccTfrcRecvSet * set)
{
  gdouble m = 0.0;

  if (set->n == 0)
    return INFINITY;
  for (guint i = 0; i < set->n; i++)
    m = MAX (m, set->entries[i].rate);
  return m;
}

void
rtpcc_tfrc_recv_set_update (RtpccTfrcRecvSet * set, RtpccTime now,
    gdouble x_recv, RtpccTime max_age)
{
  guint j = 0;

  for (guint i = 0; i < set->n; i++)
    if (now - set->entries[i].time <= max_age)
      set->entries[j++] = set->entries[i];
  set->n = j;
  if (x_recv < 0.0)
    return;
  if (set->n == RTPCC_TFRC_RECV_SET_SIZE) {
    memmove (&set->entries[0], &set->entries[1],
        (RTPCC_TFRC_RECV_SET_SIZE - 1) * sizeof (RtpccTfrcRecvEntry));
    set->n--;
  }
  set->entries[set->n].rate = x_recv;
  set->entries[set->n].time = now;
  set->n++;
}

void
rtpcc_tfrc_recv_set_maximize (RtpccTfrcRecvSet * set, RtpccTime now,
    gdouble x_recv)
{
  gdouble m = x_recv;

  for (guint i = 0; i < set->n; i++)
    if (isfinite (set->entries[i].rate))
      m = MAX (m, set->entries[i].rate);
  set->n = 0;
  if (m >= 0.0)
    rtpcc_tfrc_recv_set_reset (set, now, m);
}

void
rtpcc_tfrc_recv_set_reset (RtpccTfrcRecvSet * set, RtpccTime now,
    gdouble rate)
{
  set->entries[0].rate = rate;
  set->entries[0].time = now;
  set->n = 1;
}

void
rtpcc_tfrc_recv_set_halve (RtpccTfrcRecvSet * set)
{
  for (guint i = 0; i < set->n; i++)
    set->entries[i].rate /= 2.0;
}

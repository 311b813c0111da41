/* sendbuffer's statistics structure (gstsendbufferstats.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstsendbufferstats.h"

/* The names of the fields per drop reason and per priority, made once
 * (the structure is built every stats interval). */
typedef struct
{
  GQuark dropped_reason[RTPCC_SENDBUF_N_DROP_REASONS];
  GQuark sent_priority[RTPCC_SENDBUF_N_PRIORITIES];
  GQuark dropped_priority[RTPCC_SENDBUF_N_PRIORITIES];
  GQuark age_mean_priority[RTPCC_SENDBUF_N_PRIORITIES];
  GQuark age_max_priority[RTPCC_SENDBUF_N_PRIORITIES];
} FieldNames;

static GQuark
name_quark (gchar * name)
{
  GQuark q = g_quark_from_string (name);

  g_free (name);
  return q;
}

static const FieldNames *
field_names (void)
{
  static FieldNames names;
  static gsize done;

  if (g_once_init_enter (&done)) {
    for (guint r = 0; r < RTPCC_SENDBUF_N_DROP_REASONS; r++)
      names.dropped_reason[r] = name_quark (g_strdup_printf ("dropped-%s",
              rtpcc_sendbuf_drop_reason_name (r)));
    for (guint p = 0; p < RTPCC_SENDBUF_N_PRIORITIES; p++) {
      names.sent_priority[p] =
          name_quark (g_strdup_printf ("sent-priority-%u", p));
      names.dropped_priority[p] =
          name_quark (g_strdup_printf ("dropped-priority-%u", p));
      names.age_mean_priority[p] =
          name_quark (g_strdup_printf ("age-mean-priority-%u", p));
      names.age_max_priority[p] =
          name_quark (g_strdup_printf ("age-max-priority-%u", p));
    }
    g_once_init_leave (&done, 1);
  }
  return &names;
}

GstStructure *
gst_send_buffer_stats_new (const RtpccSendbuf * sb,
    const GstSendBufferCounters * counters)
{
  GstStructure *s;
  const RtpccSendbufStats *st;
  const FieldNames *q = field_names ();
  gint64 max_frame;

  if (!sb)
    return gst_structure_new_empty ("application/x-sendbuffer-stats");
  st = rtpcc_sendbuf_get_stats (sb);
  max_frame = rtpcc_sendbuf_max_frame_bytes (sb);
  s = gst_structure_new ("application/x-sendbuffer-stats",
      "policy", G_TYPE_STRING,
      rtpcc_sendbuf_policy_name (rtpcc_sendbuf_get_config (sb)->policy),
      "queued-packets", G_TYPE_UINT, st->queued_packets,
      "queued-bytes", G_TYPE_UINT64, st->queued_bytes,
      "queued-frames", G_TYPE_UINT, st->queued_frames,
      "enqueued-packets", G_TYPE_UINT64, st->enqueued_packets,
      "sent-packets", G_TYPE_UINT64, st->sent_packets,
      "sent-bytes", G_TYPE_UINT64, st->sent_bytes,
      "sent-frames", G_TYPE_UINT64, st->sent_frames,
      "dropped-packets", G_TYPE_UINT64, st->dropped_packets,
      "dropped-bytes", G_TYPE_UINT64, st->dropped_bytes,
      "dropped-frames", G_TYPE_UINT64, st->dropped_frames,
      "invalid-packets", G_TYPE_UINT64, counters->invalid,
      "renumbered-packets", G_TYPE_UINT64, counters->renumbered,
      "target-events", G_TYPE_UINT64, counters->target_events,
      "rtt", G_TYPE_UINT64, (guint64) MAX (rtpcc_sendbuf_get_rtt (sb),
          0), "drain-rate", G_TYPE_UINT64, rtpcc_sendbuf_get_rate (sb),
      "max-frame-bytes", G_TYPE_INT64, max_frame, NULL);
  for (guint r = 0; r < RTPCC_SENDBUF_N_DROP_REASONS; r++)
    gst_structure_id_set (s, q->dropped_reason[r], G_TYPE_UINT64,
        st->dropped_by_reason[r], NULL);
  for (guint p = 0; p < RTPCC_SENDBUF_N_PRIORITIES; p++) {
    if (st->sent_by_priority[p] == 0 && st->dropped_by_priority[p] == 0)
      continue;
    gst_structure_id_set (s,
        q->sent_priority[p], G_TYPE_UINT64, st->sent_by_priority[p],
        q->dropped_priority[p], G_TYPE_UINT64, st->dropped_by_priority[p],
        q->age_mean_priority[p], G_TYPE_UINT64, st->sent_by_priority[p] ?
        (guint64) MAX (st->age_sum[p] / (RtpccTime) st->sent_by_priority[p],
            0) : (guint64) 0,
        q->age_max_priority[p], G_TYPE_UINT64,
        (guint64) MAX (st->age_max[p], 0), NULL);
  }
  return s;
}

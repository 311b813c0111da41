/* sendbuffer's statistics structure (gstsendbufferstats.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstsendbufferstats.h"

GstStructure *
gst_send_buffer_stats_new (const RtpccSendbuf * sb,
    const GstSendBufferCounters * counters)
{
  GstStructure *s;
  const RtpccSendbufStats *st;
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
  for (guint r = 0; r < RTPCC_SENDBUF_N_DROP_REASONS; r++) {
    gchar *f = g_strdup_printf ("dropped-%s",
        rtpcc_sendbuf_drop_reason_name (r));
    gst_structure_set (s, f, G_TYPE_UINT64, st->dropped_by_reason[r], NULL);
    g_free (f);
  }
  for (guint p = 0; p < RTPCC_SENDBUF_N_PRIORITIES; p++) {
    gchar *f;
    if (st->sent_by_priority[p] == 0 && st->dropped_by_priority[p] == 0)
      continue;
    f = g_strdup_printf ("sent-priority-%u", p);
    gst_structure_set (s, f, G_TYPE_UINT64, st->sent_by_priority[p], NULL);
    g_free (f);
    f = g_strdup_printf ("dropped-priority-%u", p);
    gst_structure_set (s, f, G_TYPE_UINT64, st->dropped_by_priority[p], NULL);
    g_free (f);
    f = g_strdup_printf ("age-mean-priority-%u", p);
    gst_structure_set (s, f, G_TYPE_UINT64, st->sent_by_priority[p] ?
        (guint64) MAX (st->age_sum[p] / (RtpccTime) st->sent_by_priority[p],
            0) : (guint64) 0, NULL);
    g_free (f);
    f = g_strdup_printf ("age-max-priority-%u", p);
    gst_structure_set (s, f, G_TYPE_UINT64, (guint64) MAX (st->age_max[p], 0),
        NULL);
    g_free (f);
  }
  return s;
}

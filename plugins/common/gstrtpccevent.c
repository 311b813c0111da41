/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccevent.h"

#include <rtpcc/fec/fec.h>

#include <string.h>

void
gst_rtpcc_target_info_from_sender (RtpccSender * sender, RtpccTime now,
    GstRtpccTargetInfo * info)
{
  const RtpccTarget *t = rtpcc_sender_get_target (sender);
  const RtpccSenderStats *st = rtpcc_sender_get_stats (sender, now);

  memset (info, 0, sizeof (*info));
  info->target_bitrate = t->target_bitrate;
  info->media_bitrate = t->media_bitrate;
  info->fec_bitrate = t->fec_bitrate;
  info->pacing_rate = t->pacing_rate;
  info->media_pacing_rate = rtpcc_target_media_pacing_rate (t);
  info->rtt = st->srtt == RTPCC_TIME_NONE ? GST_CLOCK_TIME_NONE :
      (GstClockTime) st->srtt;
  info->loss = st->loss;
  info->loss_burst = st->loss_burst;
  info->loss_window = st->loss_window;
  if (st->fec_code_k > 0) {
    info->fec_scheme = rtpcc_fec_scheme_name ((RtpccFecScheme)
        st->fec_code_scheme);
    info->fec_k = st->fec_code_k;
    info->fec_m = st->fec_code_m;
  }
  info->queue_delay = (GstClockTime) MAX (st->queue_delay, 0);
  info->controller = rtpcc_sender_get_controller_name (sender);
  info->state = t->state;
  info->reason = t->reason;
  info->fec_interval = rtpcc_sender_get_fec_interval (sender);
}

GstStructure *
gst_rtpcc_target_structure_new (const GstRtpccTargetInfo * t)
{
  return gst_structure_new (GST_RTPCC_TARGET_NAME,
      "target-bitrate", G_TYPE_UINT64, t->target_bitrate,
      "media-bitrate", G_TYPE_UINT64, t->media_bitrate,
      "fec-bitrate", G_TYPE_UINT64, t->fec_bitrate,
      "pacing-rate", G_TYPE_UINT64, t->pacing_rate,
      "media-pacing-rate", G_TYPE_UINT64, t->media_pacing_rate,
      "fec-interval", G_TYPE_UINT, t->fec_interval,
      "rtt", G_TYPE_UINT64, GST_CLOCK_TIME_IS_VALID (t->rtt) ? t->rtt : 0,
      "loss", G_TYPE_DOUBLE, t->loss,
      "loss-burst", G_TYPE_DOUBLE, t->loss_burst,
      "loss-window", G_TYPE_DOUBLE, t->loss_window,
      "fec-scheme", G_TYPE_STRING, t->fec_scheme ? t->fec_scheme : "",
      "fec-k", G_TYPE_UINT, t->fec_k,
      "fec-m", G_TYPE_UINT, t->fec_m,
      "queue-delay", G_TYPE_UINT64, (guint64) t->queue_delay,
      "controller", G_TYPE_STRING, t->controller ? t->controller : "",
      "state", G_TYPE_STRING, t->state ? t->state : "",
      "reason", G_TYPE_STRING, t->reason ? t->reason : "", NULL);
}

GstEvent *
gst_rtpcc_target_event_new (const GstRtpccTargetInfo * t)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
      gst_rtpcc_target_structure_new (t));
}

GstMessage *
gst_rtpcc_target_message_new (GstObject * src, const GstRtpccTargetInfo * t)
{
  return gst_message_new_element (src, gst_rtpcc_target_structure_new (t));
}

gboolean
gst_rtpcc_target_event_is (GstEvent * event)
{
  return GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM
      && gst_event_has_name (event, GST_RTPCC_TARGET_NAME);
}

gboolean
gst_rtpcc_target_message_is (GstMessage * message)
{
  return GST_MESSAGE_TYPE (message) == GST_MESSAGE_ELEMENT
      && gst_message_has_name (message, GST_RTPCC_TARGET_NAME);
}

gboolean
gst_rtpcc_target_structure_parse (const GstStructure * s,
    GstRtpccTargetInfo * out)
{
  GstRtpccTargetInfo t = { 0, };
  guint64 v;

  if (!s || !gst_structure_has_name (s, GST_RTPCC_TARGET_NAME))
    return FALSE;
  if (!gst_structure_get_uint64 (s, "target-bitrate", &t.target_bitrate)
      || !gst_structure_get_uint64 (s, "media-bitrate", &t.media_bitrate))
    return FALSE;
  /* an application may send a short one: no FEC, no pacing headroom */
  if (!gst_structure_get_uint64 (s, "fec-bitrate", &t.fec_bitrate))
    t.fec_bitrate = 0;
  if (!gst_structure_get_uint64 (s, "pacing-rate", &t.pacing_rate))
    t.pacing_rate = t.target_bitrate;
  if (!gst_structure_get_uint64 (s, "media-pacing-rate",
          &t.media_pacing_rate))
    t.media_pacing_rate = t.media_bitrate;
  if (!gst_structure_get_uint (s, "fec-interval", &t.fec_interval))
    t.fec_interval = 0;
  t.rtt = gst_structure_get_uint64 (s, "rtt", &v) && v > 0 ? v :
      GST_CLOCK_TIME_NONE;
  if (!gst_structure_get_double (s, "loss", &t.loss))
    t.loss = 0.0;
  if (!gst_structure_get_double (s, "loss-burst", &t.loss_burst))
    t.loss_burst = 0.0;
  if (!gst_structure_get_double (s, "loss-window", &t.loss_window))
    t.loss_window = t.loss;
  t.fec_scheme = gst_structure_get_string (s, "fec-scheme");
  if (t.fec_scheme && !*t.fec_scheme)
    t.fec_scheme = NULL;
  if (!gst_structure_get_uint (s, "fec-k", &t.fec_k))
    t.fec_k = 0;
  if (!gst_structure_get_uint (s, "fec-m", &t.fec_m))
    t.fec_m = 0;
  t.queue_delay = gst_structure_get_uint64 (s, "queue-delay", &v) ? v : 0;
  t.controller = gst_structure_get_string (s, "controller");
  t.state = gst_structure_get_string (s, "state");
  t.reason = gst_structure_get_string (s, "reason");
  *out = t;
  return TRUE;
}

gboolean
gst_rtpcc_target_event_parse (GstEvent * event, GstRtpccTargetInfo * t)
{
  return gst_rtpcc_target_event_is (event)
      && gst_rtpcc_target_structure_parse (gst_event_get_structure (event), t);
}

GstEvent *
gst_rtpcc_discard_event_new (guint32 ssrc, guint16 seqnum, guint count)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
      gst_structure_new (GST_RTPCC_DISCARD_NAME,
          "ssrc", G_TYPE_UINT, (guint) ssrc,
          "seqnum", G_TYPE_UINT, (guint) seqnum,
          "count", G_TYPE_UINT, count, NULL));
}

gboolean
gst_rtpcc_discard_event_is (GstEvent * event)
{
  return GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM
      && gst_event_has_name (event, GST_RTPCC_DISCARD_NAME);
}

gboolean
gst_rtpcc_discard_event_parse (GstEvent * event, guint32 * ssrc,
    guint16 * seqnum, guint * count)
{
  const GstStructure *s;
  guint ss = 0, sq = 0, n = 0;

  if (!gst_rtpcc_discard_event_is (event))
    return FALSE;
  s = gst_event_get_structure (event);
  if (!gst_structure_get_uint (s, "ssrc", &ss)
      || !gst_structure_get_uint (s, "seqnum", &sq)
      || !gst_structure_get_uint (s, "count", &n) || sq > G_MAXUINT16 || n < 1)
    return FALSE;
  *ssrc = ss;
  *seqnum = (guint16) sq;
  *count = n;
  return TRUE;
}

/* The playout-state names as quarks: the event goes several times a
 * second, and naming a field by its string is a quark lookup (a locked
 * hash table) every time. */
typedef struct
{
  GQuark name, ssrc, adaptive, nominal, maximum, high_water, low_water;
  GQuark next_seq, next_in;
} PlayoutStateQuarks;

static const PlayoutStateQuarks *
playout_state_quarks (void)
{
  static PlayoutStateQuarks q;
  static gsize init = 0;

  if (g_once_init_enter (&init)) {
    q.name = g_quark_from_static_string (GST_RTPCC_PLAYOUT_STATE_NAME);
    q.ssrc = g_quark_from_static_string ("ssrc");
    q.adaptive = g_quark_from_static_string ("adaptive");
    q.nominal = g_quark_from_static_string ("nominal");
    q.maximum = g_quark_from_static_string ("maximum");
    q.high_water = g_quark_from_static_string ("high-water");
    q.low_water = g_quark_from_static_string ("low-water");
    q.next_seq = g_quark_from_static_string ("next-seq");
    q.next_in = g_quark_from_static_string ("next-in");
    g_once_init_leave (&init, 1);
  }
  return &q;
}

GstEvent *
gst_rtpcc_playout_state_event_new (const GstRtpccPlayoutState * st)
{
  const PlayoutStateQuarks *q = playout_state_quarks ();

  GstStructure *s = gst_structure_new_id (q->name,
      q->ssrc, G_TYPE_UINT, (guint) st->ssrc,
      q->adaptive, G_TYPE_BOOLEAN, st->adaptive,
      q->nominal, G_TYPE_UINT64, (guint64) st->nominal,
      q->maximum, G_TYPE_UINT64, (guint64) st->maximum,
      q->high_water, G_TYPE_UINT64, (guint64) st->high_water,
      q->low_water, G_TYPE_UINT64, (guint64) st->low_water, NULL);

  if (st->have_next)
    gst_structure_id_set (s, q->next_seq, G_TYPE_UINT, (guint) st->next_seq,
        q->next_in, G_TYPE_UINT64, (guint64) st->next_in, NULL);
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s);
}

gboolean
gst_rtpcc_playout_state_event_is (GstEvent * event)
{
  const GstStructure *s;

  return GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM
      && (s = gst_event_get_structure (event)) != NULL
      && gst_structure_get_name_id (s) == playout_state_quarks ()->name;
}

/* An optional time field: NONE if missing or NONE; FALSE if of another
 * type or over GST_RTPCC_PLAYOUT_STATE_MAX. */
static gboolean
get_opt_time (const GstStructure * s, GQuark field, GstClockTime * t)
{
  const GValue *v = gst_structure_id_get_value (s, field);
  guint64 u;

  *t = GST_CLOCK_TIME_NONE;
  if (v == NULL)
    return TRUE;
  if (G_VALUE_TYPE (v) != G_TYPE_UINT64)
    return FALSE;
  u = g_value_get_uint64 (v);
  if (u == GST_CLOCK_TIME_NONE)
    return TRUE;
  if (u > GST_RTPCC_PLAYOUT_STATE_MAX)
    return FALSE;
  *t = u;
  return TRUE;
}

gboolean
gst_rtpcc_playout_state_event_parse (GstEvent * event,
    GstRtpccPlayoutState * out)
{
  const PlayoutStateQuarks *q = playout_state_quarks ();
  GstRtpccPlayoutState st = { 0, };
  const GstStructure *s;
  const GValue *v;

  if (!gst_rtpcc_playout_state_event_is (event))
    return FALSE;
  s = gst_event_get_structure (event);
  v = gst_structure_id_get_value (s, q->ssrc);
  if (v == NULL || G_VALUE_TYPE (v) != G_TYPE_UINT
      || !get_opt_time (s, q->nominal, &st.nominal)
      || !get_opt_time (s, q->maximum, &st.maximum)
      || !get_opt_time (s, q->high_water, &st.high_water)
      || !get_opt_time (s, q->low_water, &st.low_water))
    return FALSE;
  if (!GST_CLOCK_TIME_IS_VALID (st.nominal)
      || (GST_CLOCK_TIME_IS_VALID (st.maximum) && st.nominal > st.maximum)
      || (GST_CLOCK_TIME_IS_VALID (st.high_water)
          && GST_CLOCK_TIME_IS_VALID (st.low_water)
          && st.low_water > st.high_water))
    return FALSE;
  st.ssrc = g_value_get_uint (v);
  v = gst_structure_id_get_value (s, q->adaptive);
  if (v != NULL) {
    if (G_VALUE_TYPE (v) != G_TYPE_BOOLEAN)
      return FALSE;
    st.adaptive = g_value_get_boolean (v);
  }
  v = gst_structure_id_get_value (s, q->next_seq);
  st.next_in = GST_CLOCK_TIME_NONE;
  if (v != NULL) {
    guint n;
    if (G_VALUE_TYPE (v) != G_TYPE_UINT || (n = g_value_get_uint (v)) >
        G_MAXUINT16 || !get_opt_time (s, q->next_in, &st.next_in)
        || !GST_CLOCK_TIME_IS_VALID (st.next_in))
      return FALSE;
    st.have_next = TRUE;
    st.next_seq = (guint16) n;
  } else if (gst_structure_id_has_field (s, q->next_in)) {
    return FALSE;
  }
  *out = st;
  return TRUE;
}

GstEvent *
gst_rtpcc_repaired_event_new (guint32 ssrc, guint16 seqnum)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
      gst_structure_new (GST_RTPCC_REPAIRED_NAME,
          "ssrc", G_TYPE_UINT, (guint) ssrc,
          "seqnum", G_TYPE_UINT, (guint) seqnum, NULL));
}

gboolean
gst_rtpcc_repaired_event_is (GstEvent * event)
{
  return GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM
      && gst_event_has_name (event, GST_RTPCC_REPAIRED_NAME);
}

gboolean
gst_rtpcc_repaired_event_parse (GstEvent * event, guint32 * ssrc,
    guint16 * seqnum)
{
  const GstStructure *s;
  guint ss = 0, sq = 0;

  if (!gst_rtpcc_repaired_event_is (event))
    return FALSE;
  s = gst_event_get_structure (event);
  if (!gst_structure_get_uint (s, "ssrc", &ss)
      || !gst_structure_get_uint (s, "seqnum", &sq) || sq > G_MAXUINT16)
    return FALSE;
  *ssrc = ss;
  *seqnum = (guint16) sq;
  return TRUE;
}

GstEvent *
gst_rtpcc_fec_window_event_new (GstClockTime deadline)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM_STICKY,
      gst_structure_new (GST_RTPCC_FEC_WINDOW_NAME,
          "deadline", G_TYPE_UINT64, (guint64) deadline, NULL));
}

gboolean
gst_rtpcc_fec_window_event_parse (GstEvent * event, GstClockTime * deadline)
{
  guint64 d;

  if (GST_EVENT_TYPE (event) != GST_EVENT_CUSTOM_DOWNSTREAM_STICKY
      || !gst_event_has_name (event, GST_RTPCC_FEC_WINDOW_NAME)
      || !gst_structure_get_uint64 (gst_event_get_structure (event),
          "deadline", &d) || !GST_CLOCK_TIME_IS_VALID (d))
    return FALSE;
  *deadline = d;
  return TRUE;
}

/* A sticky downstream event @name with one guint64 @field. */
static GstEvent *
sticky_u64_event_new (const gchar * name, const gchar * field, guint64 v)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM_STICKY,
      gst_structure_new (name, field, G_TYPE_UINT64, v, NULL));
}

static gboolean
sticky_u64_event_parse (GstEvent * event, const gchar * name,
    const gchar * field, guint64 * v)
{
  return GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_DOWNSTREAM_STICKY
      && gst_event_has_name (event, name)
      && gst_structure_get_uint64 (gst_event_get_structure (event), field, v);
}

GstEvent *
gst_rtpcc_frame_room_event_new (GstClockTime room)
{
  return sticky_u64_event_new (GST_RTPCC_FRAME_ROOM_NAME, "room", room);
}

gboolean
gst_rtpcc_frame_room_event_parse (GstEvent * event, GstClockTime * room)
{
  guint64 r;

  if (!sticky_u64_event_parse (event, GST_RTPCC_FRAME_ROOM_NAME, "room", &r))
    return FALSE;
  *room = r;
  return TRUE;
}

GstEvent *
gst_rtpcc_fec_encoder_event_new (GstClockTime block_time)
{
  return sticky_u64_event_new (GST_RTPCC_FEC_ENCODER_NAME, "max-block-time",
      block_time);
}

gboolean
gst_rtpcc_fec_encoder_event_parse (GstEvent * event, GstClockTime * block_time)
{
  guint64 t;

  if (!sticky_u64_event_parse (event, GST_RTPCC_FEC_ENCODER_NAME,
          "max-block-time", &t))
    return FALSE;
  *block_time = t;
  return TRUE;
}

GstEvent *
gst_rtpcc_mprtp_event_new (guint ext_id, guint subflow_id)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM_STICKY,
      gst_structure_new (GST_RTPCC_MPRTP_NAME,
          "ext-id", G_TYPE_UINT, ext_id,
          "subflow-id", G_TYPE_UINT, subflow_id, NULL));
}

gboolean
gst_rtpcc_mprtp_event_parse (GstEvent * event, guint * ext_id,
    guint * subflow_id)
{
  const GstStructure *s;
  guint id = 0, sf = 0;

  if (GST_EVENT_TYPE (event) != GST_EVENT_CUSTOM_DOWNSTREAM_STICKY
      || !gst_event_has_name (event, GST_RTPCC_MPRTP_NAME))
    return FALSE;
  s = gst_event_get_structure (event);
  if (!gst_structure_get_uint (s, "ext-id", &id)
      || !gst_structure_get_uint (s, "subflow-id", &sf)
      || id > 14 || sf > G_MAXUINT16)
    return FALSE;
  *ext_id = id;
  *subflow_id = sf;
  return TRUE;
}

GstQuery *
gst_rtpcc_mprtp_rtx_query_new (guint16 seq, guint size)
{
  return gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new (GST_RTPCC_MPRTP_RTX_NAME,
          "seq", G_TYPE_UINT, (guint) seq, "size", G_TYPE_UINT, size,
          "moved", G_TYPE_BOOLEAN, FALSE, NULL));
}

gboolean
gst_rtpcc_mprtp_rtx_query_is (GstQuery * query)
{
  const GstStructure *s;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM)
    return FALSE;
  s = gst_query_get_structure (query);
  return s != NULL && gst_structure_has_name (s, GST_RTPCC_MPRTP_RTX_NAME);
}

gboolean
gst_rtpcc_mprtp_rtx_query_parse (GstQuery * query, guint16 * seq,
    guint * size)
{
  const GstStructure *s;
  guint q = 0, n = 0;

  if (!gst_rtpcc_mprtp_rtx_query_is (query))
    return FALSE;
  s = gst_query_get_structure (query);
  if (!gst_structure_get_uint (s, "seq", &q)
      || !gst_structure_get_uint (s, "size", &n)
      || q > G_MAXUINT16 || n == 0 || n > G_MAXUINT16)
    return FALSE;
  *seq = (guint16) q;
  *size = n;
  return TRUE;
}

void
gst_rtpcc_mprtp_rtx_query_set_moved (GstQuery * query, gboolean moved)
{
  GstStructure *s = gst_query_writable_structure (query);

  gst_structure_set (s, "moved", G_TYPE_BOOLEAN, moved, NULL);
}

gboolean
gst_rtpcc_mprtp_rtx_query_moved (GstQuery * query)
{
  gboolean moved = FALSE;

  if (!gst_rtpcc_mprtp_rtx_query_is (query)
      || !gst_structure_get_boolean (gst_query_get_structure (query),
          "moved", &moved))
    return FALSE;
  return moved;
}

GstQuery *
gst_rtpcc_merged_query_new (guint32 ssrc, guint16 first, guint16 last)
{
  return gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new (GST_RTPCC_MERGED_NAME, "ssrc", G_TYPE_UINT, ssrc,
          "first", G_TYPE_UINT, (guint) first, "last", G_TYPE_UINT,
          (guint) last, "all", G_TYPE_BOOLEAN, FALSE, NULL));
}

gboolean
gst_rtpcc_merged_query_parse (GstQuery * query, guint32 * ssrc,
    guint16 * first, guint16 * last)
{
  const GstStructure *s;
  guint id = 0, a = 0, b = 0;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM)
    return FALSE;
  s = gst_query_get_structure (query);
  if (s == NULL || !gst_structure_has_name (s, GST_RTPCC_MERGED_NAME)
      || !gst_structure_get_uint (s, "ssrc", &id)
      || !gst_structure_get_uint (s, "first", &a)
      || !gst_structure_get_uint (s, "last", &b)
      || a > G_MAXUINT16 || b > G_MAXUINT16)
    return FALSE;
  *ssrc = id;
  *first = (guint16) a;
  *last = (guint16) b;
  return TRUE;
}

void
gst_rtpcc_merged_query_set_answer (GstQuery * query, gboolean all)
{
  gst_structure_set (gst_query_writable_structure (query), "all",
      G_TYPE_BOOLEAN, all, NULL);
}

gboolean
gst_rtpcc_merged_query_all (GstQuery * query)
{
  const GstStructure *s;
  gboolean all = FALSE;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM)
    return FALSE;
  s = gst_query_get_structure (query);
  if (s == NULL || !gst_structure_has_name (s, GST_RTPCC_MERGED_NAME)
      || !gst_structure_get_boolean (s, "all", &all))
    return FALSE;
  return all;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtpccencoder.h"

#include <rtpcc/feedback/rtpext.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (rtpcc_encoder_debug);
#define GST_CAT_DEFAULT rtpcc_encoder_debug

static void
ensure_debug (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (rtpcc_encoder_debug, "rtpccencoder", 0,
        "gst-rtpcc encoder control");
    g_once_init_leave (&done, 1);
  }
}

GType
gst_rtpcc_encoder_control_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_RTPCC_ENCODER_CONTROL_NONE,
        "Only publish the target (bus message, event, property)", "none"},
    {GST_RTPCC_ENCODER_CONTROL_AUTO,
        "Find the encoder upstream and set its bitrate", "auto"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    /* this static library may be linked twice into one process (a plugin
     * and a test program): the first copy registers the type */
    GType t = g_type_from_name ("GstRtpccEncoderControl");

    if (t == 0)
      t = g_enum_register_static ("GstRtpccEncoderControl", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_rtpcc_encoder_setter_init (GstRtpccEncoderSetter * ec,
    GstElement * owner)
{
  ensure_debug ();
  memset (ec, 0, sizeof (*ec));
  ec->owner = owner;
  g_mutex_init (&ec->loop_lock);
  ec->room_ms = -1;
  gst_rtpcc_encoder_setter_reset (ec);
}

void
gst_rtpcc_encoder_setter_set_room (GstRtpccEncoderSetter * ec,
    GstClockTime room)
{
  gint ms = -1;

  if (GST_CLOCK_TIME_IS_VALID (room))
    ms = (gint) MIN (MAX (room / GST_MSECOND, 1), G_MAXINT);
  /* applied from the owner's applying thread, as a new correction is */
  if (g_atomic_int_get (&ec->room_ms) != ms) {
    g_atomic_int_set (&ec->room_ms, ms);
    g_atomic_int_set (&ec->reapply, TRUE);
  }
}

guint
gst_rtpcc_encoder_setter_buffer_ms (const GstRtpccEncoderSetter * ec)
{
  gint room = g_atomic_int_get (&ec->room_ms);

  if (ec->buffer_ms == 0 || room < 0)
    return ec->buffer_ms;
  return MIN (ec->buffer_ms, (guint) room);
}

static void
drop_slots (GstRtpccEncoderSetter * ec)
{
  for (guint i = 0; i < ec->n_slots; i++)
    gst_clear_object (&ec->slots[i].enc);
  ec->n_slots = 0;
  g_clear_pointer (&ec->encoder_name, g_free);
}

void
gst_rtpcc_encoder_setter_clear (GstRtpccEncoderSetter * ec)
{
  drop_slots (ec);
  g_mutex_clear (&ec->loop_lock);
}

void
gst_rtpcc_encoder_setter_reset (GstRtpccEncoderSetter * ec)
{
  drop_slots (ec);
  ec->retry_at = RTPCC_TIME_NONE;
  ec->searched = FALSE;
  /* a new stream, perhaps another encoder: measure afresh */
  g_mutex_lock (&ec->loop_lock);
  rtpcc_encoder_loop_init (&ec->loop, NULL);
  g_mutex_unlock (&ec->loop_lock);
  g_atomic_int_set (&ec->reapply, FALSE);
}

gboolean
gst_rtpcc_encoder_setter_produced (GstRtpccEncoderSetter * ec,
    GstClockTime pts, const guint8 * data, gsize len, gint skip_pt)
{
  RtpccRtpLayout l;
  gboolean changed;

  /* the payload, as the encoder's rate counts it; not FEC, not probes */
  if (!rtpcc_rtp_parse_layout (data, len, &l) || l.payload_len == 0
      || (gint) l.pt == skip_pt)
    return FALSE;
  g_mutex_lock (&ec->loop_lock);
  changed = rtpcc_encoder_loop_produced (&ec->loop, GST_CLOCK_TIME_IS_VALID
      (pts) ? (RtpccTime) pts : RTPCC_TIME_NONE, l.payload_len);
  g_mutex_unlock (&ec->loop_lock);
  if (changed) {
    GST_DEBUG_OBJECT (ec->owner, "encoder produced %" G_GUINT64_FORMAT
        " bit/s against its target: correction now %.3f",
        ec->loop.produced_bps, ec->loop.factor);
    g_atomic_int_set (&ec->reapply, TRUE);
  }
  return changed;
}

gboolean
gst_rtpcc_encoder_setter_take_reapply (GstRtpccEncoderSetter * ec)
{
  return g_atomic_int_compare_and_exchange (&ec->reapply, TRUE, FALSE);
}

void
gst_rtpcc_encoder_setter_add_stats (const GstRtpccEncoderSetter * ec,
    GstStructure * s)
{
  GMutex *lock = (GMutex *) & ec->loop_lock;
  guint64 produced;
  gdouble factor;

  g_mutex_lock (lock);
  produced = ec->loop.produced_bps;
  factor = ec->loop.factor;
  g_mutex_unlock (lock);
  gst_structure_set (s, "encoder-produced", G_TYPE_UINT64, produced,
      "encoder-correction", G_TYPE_DOUBLE, factor,
      "encoder-buffer", G_TYPE_UINT, gst_rtpcc_encoder_setter_buffer_ms (ec),
      NULL);
}

static GstElement *
element_of_src_pad (GstPad * pad)
{
  GstPad *p = gst_object_ref (pad);
  GstElement *e;

  /* look through ghost pads into the bin */
  while (GST_IS_GHOST_PAD (p)) {
    GstPad *t = gst_ghost_pad_get_target (GST_GHOST_PAD (p));
    gst_object_unref (p);
    if (!t)
      return NULL;
    p = t;
  }
  e = gst_pad_get_parent_element (p);
  gst_object_unref (p);
  return e;
}

guint
gst_rtpcc_find_encoders (GstPad * sinkpad, GstElement ** encs,
    const RtpccEncoderInfo ** infos, guint max)
{
  GQueue pads = G_QUEUE_INIT;
  guint found = 0;
  guint visited = 0;

  /* breadth first, bounded: a pipeline with loops or huge fan-in must not
   * make a target change expensive */
  g_queue_push_tail (&pads, gst_object_ref (sinkpad));
  while (found < max && !g_queue_is_empty (&pads) && visited < 64) {
    GstPad *pad = g_queue_pop_head (&pads);
    GstPad *peer = gst_pad_get_peer (pad);
    GstElementFactory *f;
    const RtpccEncoderInfo *info;
    GstElement *e;

    gst_object_unref (pad);
    visited++;
    if (!peer)
      continue;
    /* inside a bin (an aux sender in rtpbin, webrtcbin): the peer is the
     * inner side of the bin's ghost sink pad; go on from the ghost pad */
    if (GST_IS_PROXY_PAD (peer) && !GST_IS_GHOST_PAD (peer)) {
      GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (peer));
      gst_object_unref (peer);
      if (ghost)
        g_queue_push_tail (&pads, ghost);
      continue;
    }
    e = element_of_src_pad (peer);
    gst_object_unref (peer);
    if (!e)
      continue;
    /* an element that drives the encoder itself from the targets of
     * several transports (mprtpsched) ends the search: the encoder
     * upstream of it is not this transport's to set */
    if (gst_element_class_get_metadata (GST_ELEMENT_GET_CLASS (e),
            GST_RTPCC_RATE_OWNER_KEY)) {
      gst_object_unref (e);
      continue;
    }
    f = gst_element_get_factory (e);
    info = f ? rtpcc_encoder_lookup (GST_OBJECT_NAME (f)) : NULL;
    if (info && g_object_class_find_property (G_OBJECT_GET_CLASS (e),
            info->property)) {
      encs[found] = gst_object_ref (e);
      infos[found] = info;
      found++;
    } else {
      GstIterator *it = gst_element_iterate_sink_pads (e);
      GValue v = G_VALUE_INIT;
      while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
        g_queue_push_tail (&pads, g_value_dup_object (&v));
        g_value_reset (&v);
      }
      g_value_unset (&v);
      gst_iterator_free (it);
    }
    gst_object_unref (e);
  }
  g_queue_clear_full (&pads, gst_object_unref);
  return found;
}

GstElement *
gst_rtpcc_find_encoder (GstPad * sinkpad, const RtpccEncoderInfo ** info_out)
{
  GstElement *enc = NULL;

  return gst_rtpcc_find_encoders (sinkpad, &enc, info_out, 1) ? enc : NULL;
}

/* The nick of the encoder's rate-control enum, or NULL. */
static gchar *
mode_nick (GstElement * enc, const RtpccEncoderInfo * info)
{
  GParamSpec *pspec;
  GValue v = G_VALUE_INIT;
  GEnumValue *ev;
  gchar *nick = NULL;

  if (!info->mode_property)
    return NULL;
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
      info->mode_property);
  if (!pspec || !G_IS_PARAM_SPEC_ENUM (pspec))
    return NULL;
  g_value_init (&v, pspec->value_type);
  g_object_get_property (G_OBJECT (enc), info->mode_property, &v);
  ev = g_enum_get_value (G_PARAM_SPEC_ENUM (pspec)->enum_class,
      g_value_get_enum (&v));
  if (ev)
    nick = g_strdup (ev->value_nick);
  g_value_unset (&v);
  return nick;
}

static void
check_mode (GstRtpccEncoderSetter * ec, GstRtpccEncoderSlot * slot)
{
  GstElement *enc = slot->enc;
  const RtpccEncoderInfo *info = slot->info;
  gchar *nick;

  if (slot->warned_mode)
    return;
  nick = mode_nick (enc, info);
  if (!rtpcc_encoder_mode_follows_bitrate (info, nick)) {
    slot->warned_mode = TRUE;
    GST_ELEMENT_WARNING (ec->owner, STREAM, ENCODE,
        ("Encoder %s is in %s=%s, where its %s is not the rate it keeps to",
            GST_OBJECT_NAME (enc), info->mode_property, nick, info->property),
        ("Set %s on it so that it follows the congestion controller's "
            "target", info->recommended));
  }
  g_free (nick);
}

/* Stores @value into @v, typed and clamped to the property's own range
 * (rather than trip a g_warning). FALSE for an unexpected type. */
static gboolean
value_for_pspec (GParamSpec * pspec, guint64 value, GValue * v)
{
  g_value_init (v, pspec->value_type);
  switch (G_TYPE_FUNDAMENTAL (pspec->value_type)) {
    case G_TYPE_UINT:
      g_value_set_uint (v, (guint) MIN (value, G_MAXUINT));
      break;
    case G_TYPE_INT:
      g_value_set_int (v, (gint) MIN (value, G_MAXINT));
      break;
    case G_TYPE_UINT64:
      g_value_set_uint64 (v, value);
      break;
    case G_TYPE_INT64:
      g_value_set_int64 (v, (gint64) MIN (value, G_MAXINT64));
      break;
    default:
      g_value_unset (v);
      return FALSE;
  }
  g_param_value_validate (pspec, v);
  return TRUE;
}

/* Sets @prop of @enc to @value (typed and clamped to the property's range)
 * and reads it back: SET_TOOK, SET_REFUSED (read back differently), or
 * SET_UNTYPED (no such property of an integer type). */
typedef enum
{
  SET_TOOK,
  SET_REFUSED,
  SET_UNTYPED,
} SetResult;

static SetResult
set_and_read_back (GstRtpccEncoderSetter * ec, GstElement * enc,
    const gchar * prop, guint64 value)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
      prop);
  GValue want = G_VALUE_INIT, got = G_VALUE_INIT;
  SetResult r;

  if (!pspec || !value_for_pspec (pspec, value, &want))
    return SET_UNTYPED;
  GST_DEBUG_OBJECT (ec->owner, "setting %s:%s = %" G_GUINT64_FORMAT,
      GST_OBJECT_NAME (enc), prop, value);
  g_object_set_property (G_OBJECT (enc), prop, &want);
  g_value_init (&got, pspec->value_type);
  g_object_get_property (G_OBJECT (enc), prop, &got);
  r = g_param_values_cmp (pspec, &want, &got) == 0 ? SET_TOOK : SET_REFUSED;
  g_value_unset (&want);
  g_value_unset (&got);
  return r;
}

/* The encoder's rate-control buffer: how long it may run ahead of its
 * bitrate. x264enc's default (600 ms) lets a key frame or the lag after a
 * rate cut put more than half a second of media into the path at once,
 * which a transport bounded to max-pacing-delay must push into the
 * bottleneck's queue. Set once per value; a refusal is counted, warned
 * about once, and not retried until the value changes. */
static void
apply_buffer (GstRtpccEncoderSetter * ec, GstRtpccEncoderSlot * slot)
{
  GstElement *enc = slot->enc;
  const RtpccEncoderInfo *info = slot->info;
  guint ms = gst_rtpcc_encoder_setter_buffer_ms (ec);

  if (ms == 0 || ms == slot->buffer_applied_ms || !info->buffer_property)
    return;
  if (set_and_read_back (ec, enc, info->buffer_property, ms) == SET_REFUSED) {
    ec->buffer_refused++;
    if (!ec->warned_buffer) {
      ec->warned_buffer = TRUE;
      GST_ELEMENT_WARNING (ec->owner, STREAM, ENCODE,
          ("Encoder %s does not take %s=%u", GST_OBJECT_NAME (enc),
              info->buffer_property, ms),
          ("Its rate-control buffer stays as it is; set encoder-buffer=0 "
              "to leave it alone"));
    }
  }
  /* applied or refused: not tried again for the same value */
  slot->buffer_applied_ms = ms;
}

/* The encoder's rate property now, in bit/s (0 if unreadable). */
static guint64
current_bps (GstElement * enc, const RtpccEncoderInfo * info)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
      info->property);
  GValue v = G_VALUE_INIT, u = G_VALUE_INIT;
  guint64 bps = 0;

  if (!pspec)
    return 0;
  g_value_init (&v, pspec->value_type);
  g_value_init (&u, G_TYPE_UINT64);
  g_object_get_property (G_OBJECT (enc), info->property, &v);
  if (g_value_transform (&v, &u))
    bps = g_value_get_uint64 (&u) * info->unit;
  g_value_unset (&v);
  g_value_unset (&u);
  return bps;
}

/* The slot of @enc, made when it is first found (NULL when full). */
static GstRtpccEncoderSlot *
slot_for (GstRtpccEncoderSetter * ec, GstElement * enc,
    const RtpccEncoderInfo * info)
{
  GstRtpccEncoderSlot *slot;
  GstElementFactory *f;
  const gchar *klass;

  for (guint i = 0; i < ec->n_slots; i++)
    if (ec->slots[i].enc == enc)
      return &ec->slots[i];
  if (ec->n_slots == GST_RTPCC_MAX_ENCODERS) {
    if (!ec->warned_full) {
      ec->warned_full = TRUE;
      GST_WARNING_OBJECT (ec->owner, "more than %d encoders upstream: %s "
          "is left alone", GST_RTPCC_MAX_ENCODERS, GST_OBJECT_NAME (enc));
    }
    return NULL;
  }
  slot = &ec->slots[ec->n_slots++];
  memset (slot, 0, sizeof (*slot));
  slot->enc = gst_object_ref (enc);
  slot->info = info;
  klass = gst_element_class_get_metadata (GST_ELEMENT_GET_CLASS (enc),
      GST_ELEMENT_METADATA_KLASS);
  slot->audio = klass && strstr (klass, "Audio") != NULL;
  slot->wish_bps = current_bps (enc, info);
  rtpcc_encoder_hysteresis_init (&slot->hysteresis);
  f = gst_element_get_factory (enc);
  {
    gchar *name = g_strdup_printf ("%s%s%s",
        ec->encoder_name ? ec->encoder_name : "",
        ec->encoder_name ? ", " : "", f ? GST_OBJECT_NAME (f) : "");
    g_free (ec->encoder_name);
    ec->encoder_name = name;
  }
  GST_INFO_OBJECT (ec->owner, "driving %s (%s, %" G_GUINT64_FORMAT
      " bit/s when found)", GST_OBJECT_NAME (enc), slot->audio ? "audio" :
      "video", slot->wish_bps);
  return slot;
}

/* @bps to one encoder, through its hysteresis; an increase held back
 * moves ec->retry_at. */
static void
apply_one (GstRtpccEncoderSetter * ec, GstRtpccEncoderSlot * slot,
    RtpccTime now, guint64 bps)
{
  GstElement *enc = slot->enc;
  const RtpccEncoderInfo *info = slot->info;
  SetResult r;
  guint64 value;

  check_mode (ec, slot);
  apply_buffer (ec, slot);
  if (!rtpcc_encoder_hysteresis_update (&slot->hysteresis, now, bps)) {
    RtpccTime at = rtpcc_encoder_hysteresis_retry_at (&slot->hysteresis, now,
        bps);
    if (at != RTPCC_TIME_NONE)
      ec->retry_at = ec->retry_at == RTPCC_TIME_NONE ? at :
          MIN (ec->retry_at, at);
    return;
  }
  value = rtpcc_encoder_value_for_bitrate (info, bps);
  r = set_and_read_back (ec, enc, info->property, value);
  if (r == SET_UNTYPED) {
    GST_WARNING_OBJECT (ec->owner, "%s:%s has an unexpected type",
        GST_OBJECT_NAME (enc), info->property);
  } else if (r == SET_REFUSED) {
    /* e.g. avenc_*: "Can't change properties once decoder is setup" */
    ec->refused++;
    if (!ec->warned_refused) {
      ec->warned_refused = TRUE;
      GST_ELEMENT_WARNING (ec->owner, STREAM, ENCODE,
          ("Encoder %s does not take a new %s while playing",
              GST_OBJECT_NAME (enc), info->property),
          ("The congestion controller's target cannot reach it; use an "
              "encoder that can change its rate at run time (x264enc, "
              "vp8enc, openh264enc, ...)"));
    }
    /* let the next target try again rather than believe it applied */
    rtpcc_encoder_hysteresis_init (&slot->hysteresis);
  } else {
    ec->updates++;
    slot->last_value = value;
  }
}

void
gst_rtpcc_encoder_setter_apply (GstRtpccEncoderSetter * ec,
    GstPad * sinkpad, RtpccTime now, guint64 bps)
{
  GstElement *encs[GST_RTPCC_MAX_ENCODERS];
  const RtpccEncoderInfo *infos[GST_RTPCC_MAX_ENCODERS];
  GstRtpccEncoderSlot *slots[GST_RTPCC_MAX_ENCODERS];
  RtpccEncoderShare shares[GST_RTPCC_MAX_ENCODERS];
  guint64 rates[GST_RTPCC_MAX_ENCODERS];
  guint n, m = 0;

  n = gst_rtpcc_find_encoders (sinkpad, encs, infos, GST_RTPCC_MAX_ENCODERS);
  if (n == 0) {
    if (!ec->searched)
      GST_INFO_OBJECT (ec->owner, "no known encoder upstream; publishing the "
          "target only");
    ec->searched = TRUE;
    return;
  }
  ec->searched = TRUE;
  for (guint i = 0; i < n; i++) {
    GstRtpccEncoderSlot *slot = slot_for (ec, encs[i], infos[i]);

    gst_object_unref (encs[i]);
    if (!slot)
      continue;
    slots[m] = slot;
    shares[m].audio = slot->audio;
    shares[m].wish_bps = slot->wish_bps;
    m++;
  }
  /* what the encoders produced over the target so far scales what they
   * are given (encoderloop.h) */
  g_mutex_lock (&ec->loop_lock);
  rtpcc_encoder_loop_target (&ec->loop, bps);
  bps = rtpcc_encoder_loop_correct (&ec->loop, bps);
  g_mutex_unlock (&ec->loop_lock);
  rtpcc_encoder_split (bps, shares, m, rates);
  ec->retry_at = RTPCC_TIME_NONE;
  for (guint i = 0; i < m; i++)
    apply_one (ec, slots[i], now, rates[i]);
}

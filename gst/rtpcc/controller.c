/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/controller.h>
#include <rtpcc/rtpcc-private.h>

#include <string.h>

static GMutex registry_lock;
static GHashTable *registry;

void
rtpcc_controller_config_init (RtpccControllerConfig * config)
{
  memset (config, 0, sizeof (*config));
  config->min_bitrate = 150000;
  config->max_bitrate = 1500000;
  config->start_bitrate = 0;
  config->packet_size = 1200;
}

/* Built-ins go in first, so a controller registered later under the same
 * name replaces them. */
static void
ensure_registry_locked (void)
{
  const RtpccControllerOps *const *builtins;
  guint n;

  if (registry)
    return;
  registry = g_hash_table_new (g_str_hash, g_str_equal);
  builtins = rtpcc_cc_builtins (&n);
  for (guint i = 0; i < n; i++)
    g_hash_table_insert (registry, (gpointer) builtins[i]->name,
        (gpointer) builtins[i]);
}

void
rtpcc_controller_register (const RtpccControllerOps * ops)
{
  g_return_if_fail (ops && ops->name && ops->instance_size >=
      sizeof (RtpccController));
  g_mutex_lock (&registry_lock);
  ensure_registry_locked ();
  g_hash_table_insert (registry, (gpointer) ops->name, (gpointer) ops);
  g_mutex_unlock (&registry_lock);
}

const RtpccControllerOps *
rtpcc_controller_lookup (const gchar * name)
{
  const RtpccControllerOps *ops;

  if (!name)
    return NULL;
  g_mutex_lock (&registry_lock);
  ensure_registry_locked ();
  ops = g_hash_table_lookup (registry, name);
  g_mutex_unlock (&registry_lock);
  return ops;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  /* g_ptr_array_sort passes pointers to the elements */
  return g_strcmp0 (*(const gchar * const *) a, *(const gchar * const *) b);
}

gchar **
rtpcc_controller_list (void)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;

  g_mutex_lock (&registry_lock);
  ensure_registry_locked ();
  g_hash_table_iter_init (&it, registry);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_ptr_array_add (names, g_strdup (key));
  g_mutex_unlock (&registry_lock);
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (gchar **) g_ptr_array_free (names, FALSE);
}

RtpccController *
rtpcc_controller_new (const gchar * name, const RtpccControllerConfig * config,
    RtpccTime now, GError ** error)
{
  const RtpccControllerOps *ops = rtpcc_controller_lookup (name);
  RtpccController *cc;
  guint64 start;

  if (!ops) {
    gchar **names = rtpcc_controller_list ();
    gchar *known = g_strjoinv (", ", names);
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "unknown controller \"%s\" (known: %s)", name ? name : "(null)", known);
    g_free (known);
    g_strfreev (names);
    return NULL;
  }
  if (config->min_bitrate > config->max_bitrate || config->max_bitrate == 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "min-bitrate %" G_GUINT64_FORMAT " exceeds max-bitrate %"
        G_GUINT64_FORMAT, config->min_bitrate, config->max_bitrate);
    return NULL;
  }
  if (config->start_bitrate && (config->start_bitrate < config->min_bitrate
          || config->start_bitrate > config->max_bitrate)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
        "start-bitrate %" G_GUINT64_FORMAT " outside [%" G_GUINT64_FORMAT
        ", %" G_GUINT64_FORMAT "]", config->start_bitrate,
        config->min_bitrate, config->max_bitrate);
    return NULL;
  }

  cc = g_malloc0 (ops->instance_size);
  cc->ops = ops;
  cc->config = *config;
  if (cc->config.packet_size == 0)
    cc->config.packet_size = 1200;
  cc->next_tick = RTPCC_TIME_NONE;
  start = config->start_bitrate ? config->start_bitrate : config->min_bitrate;
  cc->target.target_bitrate = cc->target.media_bitrate = start;
  cc->target.pacing_rate = start;
  cc->target.state = "start";
  cc->target.reason = "initial";
  rtpcc_no_feedback_init (&cc->no_feedback, config->min_bitrate);
  if (ops->init)
    ops->init (cc, now);
  return cc;
}

void
rtpcc_controller_free (RtpccController * cc)
{
  if (!cc)
    return;
  if (cc->ops->finalize)
    cc->ops->finalize (cc);
  g_free (cc);
}

/* The no-feedback cap (nofeedback.h) over whatever the controller just
 * published. */
static void
apply_no_feedback (RtpccController * cc, RtpccTime now)
{
  RtpccTarget *t = &cc->target;
  RtpccNoFeedback *nf = &cc->no_feedback;
  /* the controller's own target: what it last published, or, if it has
   * not published since we capped it, what it had then */
  guint64 own = cc->generation == nf->capped_generation && nf->own_target ?
      nf->own_target : t->target_bitrate;
  guint64 cap = rtpcc_no_feedback_cap (nf, now, own);
  gdouble factor;

  if (cap == 0 || own <= cap) {
    if (own != t->target_bitrate && cc->generation == nf->capped_generation)
      rtpcc_controller_update_target (cc, own, nf->own_fec,
          nf->own_pacing_factor, nf->own_state, nf->own_reason);
    return;
  }
  factor = t->target_bitrate > 0 ?
      (gdouble) t->pacing_rate / (gdouble) t->target_bitrate : 1.0;
  if (cc->generation != nf->capped_generation) {
    nf->own_target = own;
    nf->own_fec = t->fec_bitrate;
    nf->own_pacing_factor = factor;
    nf->own_state = t->state;
    nf->own_reason = t->reason;
  }
  /* no probing either: there is nothing to learn it from */
  rtpcc_controller_update_target (cc, cap, 0, factor,
      rtpcc_no_feedback_stopped (nf, NULL) ? "no-feedback" :
      "feedback-restart", "no-feedback");
  nf->capped_generation = cc->generation;
}

void
rtpcc_controller_packet_sent (RtpccController * cc, RtpccTime now,
    const RtpccSentPacket * pkt)
{
  rtpcc_no_feedback_on_sent (&cc->no_feedback, now);
  if (cc->ops->on_packet_sent)
    cc->ops->on_packet_sent (cc, now, pkt);
  apply_no_feedback (cc, now);
}

void
rtpcc_controller_feedback (RtpccController * cc, RtpccTime now,
    const RtpccFeedback * fb)
{
  if (fb->n_reports > 0)
    rtpcc_no_feedback_on_feedback (&cc->no_feedback, now, fb->srtt);
  if (cc->ops->on_feedback)
    cc->ops->on_feedback (cc, now, fb);
  apply_no_feedback (cc, now);
}

void
rtpcc_controller_receiver_report (RtpccController * cc, RtpccTime now,
    const RtpccReceiverReport * rr)
{
  rtpcc_no_feedback_on_report (&cc->no_feedback, now, rr->ssrc,
      rr->ext_highest_seq, rr->rtt);
  if (cc->ops->on_receiver_report)
    cc->ops->on_receiver_report (cc, now, rr);
  apply_no_feedback (cc, now);
}

void
rtpcc_controller_tick (RtpccController * cc, RtpccTime now)
{
  RtpccTime deadline = rtpcc_no_feedback_deadline (&cc->no_feedback);

  if (deadline != RTPCC_TIME_NONE && now >= deadline) {
    guint64 rate = rtpcc_no_feedback_expire (&cc->no_feedback, now,
        cc->target.target_bitrate);
    if (rate > 0 && cc->ops->on_no_feedback)
      cc->ops->on_no_feedback (cc, now, rate);
  }
  /* a tick handler may schedule the next one at or before now: bound it */
  for (int i = 0; i < 16; i++) {
    if (cc->next_tick == RTPCC_TIME_NONE || now < cc->next_tick
        || !cc->ops->on_tick)
      break;
    cc->next_tick = RTPCC_TIME_NONE;
    cc->ops->on_tick (cc, now);
  }
  apply_no_feedback (cc, now);
}

RtpccTime
rtpcc_controller_next_timeout (const RtpccController * cc)
{
  RtpccTime a = cc->next_tick;
  RtpccTime b = rtpcc_no_feedback_deadline (&cc->no_feedback);

  if (a == RTPCC_TIME_NONE)
    return b;
  if (b == RTPCC_TIME_NONE)
    return a;
  return MIN (a, b);
}

gboolean
rtpcc_controller_feedback_stopped (const RtpccController * cc,
    RtpccTime * since)
{
  return rtpcc_no_feedback_stopped (&cc->no_feedback, since);
}

void
rtpcc_controller_discards (RtpccController * cc, RtpccTime now,
    const RtpccPacketReport * reports, guint n_reports)
{
  if (cc->ops->on_discards && n_reports > 0)
    cc->ops->on_discards (cc, now, reports, n_reports);
}

void
rtpcc_controller_xr_delay (RtpccController * cc, RtpccTime now,
    RtpccTime mean_rtt, RtpccTime min_rtt, RtpccTime max_rtt)
{
  if (cc->ops->on_xr_delay)
    cc->ops->on_xr_delay (cc, now, mean_rtt, min_rtt, max_rtt);
}

void
rtpcc_controller_nadu (RtpccController * cc, RtpccTime now,
    const RtpccNaduBlock * block)
{
  if (cc->ops->on_nadu)
    cc->ops->on_nadu (cc, now, block);
}

void
rtpcc_controller_receiver_limit (RtpccController * cc, RtpccTime now,
    guint64 limit)
{
  if (cc->ops->on_receiver_limit)
    cc->ops->on_receiver_limit (cc, now, limit);
}

RtpccTime
rtpcc_controller_report_interval (RtpccController * cc)
{
  return cc->ops->report_interval ? cc->ops->report_interval (cc) :
      RTPCC_TIME_NONE;
}

gboolean
rtpcc_controller_can_send (RtpccController * cc, RtpccTime now, guint size)
{
  return cc->ops->can_send ? cc->ops->can_send (cc, now, size) : TRUE;
}

gboolean
rtpcc_controller_set_param (RtpccController * cc, const gchar * key,
    const gchar * value)
{
  return cc->ops->set_param ? cc->ops->set_param (cc, key, value) : FALSE;
}

gboolean
rtpcc_controller_set_params (RtpccController * cc, const gchar * params,
    GError ** error)
{
  gchar **items;
  gboolean ok = TRUE;

  if (!params)
    return TRUE;
  items = g_strsplit_set (params, ";,", -1);
  for (guint i = 0; ok && items[i]; i++) {
    gchar *item = g_strstrip (items[i]);
    gchar *eq, *key, *value;

    if (!*item)
      continue;
    eq = strchr (item, '=');
    if (!eq) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "controller parameter \"%s\" is not key=value", item);
      ok = FALSE;
      break;
    }
    *eq = '\0';
    key = g_strstrip (item);
    value = g_strstrip (eq + 1);
    if (!rtpcc_controller_set_param (cc, key, value)) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_INVALID,
          "controller %s rejects parameter %s=%s (unknown key or bad value)",
          cc->ops->name, key, value);
      ok = FALSE;
    }
  }
  g_strfreev (items);
  return ok;
}

void
rtpcc_controller_update_target (RtpccController * cc, guint64 bitrate,
    guint64 fec_bitrate, gdouble pacing_factor, const gchar * state,
    const gchar * reason)
{
  RtpccTarget t = cc->target;

  bitrate = CLAMP (bitrate, cc->config.min_bitrate, cc->config.max_bitrate);
  fec_bitrate = MIN (fec_bitrate, bitrate);
  if (pacing_factor < 1.0)
    pacing_factor = 1.0;
  t.target_bitrate = bitrate;
  t.fec_bitrate = fec_bitrate;
  t.media_bitrate = bitrate - fec_bitrate;
  t.pacing_rate = (guint64) (bitrate * pacing_factor);
  if (state)
    t.state = state;
  if (reason)
    t.reason = reason;
  if (memcmp (&t, &cc->target, sizeof (t)) != 0) {
    cc->target = t;
    cc->generation++;
  }
}

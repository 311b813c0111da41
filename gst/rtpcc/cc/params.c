/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <rtpcc/cc/params.h>

#include <math.h>
#include <string.h>

static gboolean
parse_number (const RtpccParamSpec * s, const gchar * value, gdouble * out)
{
  gchar *end = NULL;
  gdouble v = g_ascii_strtod (value, &end);

  if (end == value || *end != '\0' || !isfinite (v))
    return FALSE;
  if (v < s->min || ((s->flags & RTPCC_PARAM_MIN_OPEN) && v == s->min))
    return FALSE;
  if (v > s->max || ((s->flags & RTPCC_PARAM_MAX_OPEN) && v == s->max))
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
parse_bool (const gchar * value, gboolean * out)
{
  static const gchar *const yes[] = { "true", "1", "yes", "on" };
  static const gchar *const no[] = { "false", "0", "no", "off" };

  for (guint i = 0; i < G_N_ELEMENTS (yes); i++) {
    if (g_ascii_strcasecmp (value, yes[i]) == 0) {
      *out = TRUE;
      return TRUE;
    }
    if (g_ascii_strcasecmp (value, no[i]) == 0) {
      *out = FALSE;
      return TRUE;
    }
  }
  return FALSE;
}

static gboolean
parse_choice (const gchar * const *choices, const gchar * value, gint * out)
{
  for (gint i = 0; choices[i]; i++) {
    if (strcmp (value, choices[i]) == 0) {
      *out = i;
      return TRUE;
    }
  }
  return FALSE;
}

/* Parse into the field's own type, then store: a rejected value leaves the
 * struct untouched. */
static gboolean
apply (const RtpccParamSpec * s, gpointer field, const gchar * value)
{
  gdouble v;
  gboolean b;
  gint i;

  switch (s->type) {
    case RTPCC_PARAM_TYPE_DOUBLE:
      if (!parse_number (s, value, &v))
        return FALSE;
      *(gdouble *) field = v;
      return TRUE;
    case RTPCC_PARAM_TYPE_UINT:
      if (!parse_number (s, value, &v) || v != floor (v) || v < 0
          || v > G_MAXUINT)
        return FALSE;
      *(guint *) field = (guint) v;
      return TRUE;
    case RTPCC_PARAM_TYPE_TIME:
      if (!parse_number (s, value, &v))
        return FALSE;
      /* truncated, not rounded, to the unit kept */
      if (s->flags & RTPCC_PARAM_USEC)
        *(RtpccTime *) field = RTPCC_USEC ((gint64) (v * 1000));
      else
        *(RtpccTime *) field = RTPCC_MSEC ((gint64) v);
      return TRUE;
    case RTPCC_PARAM_TYPE_BOOL:
      if (!parse_bool (value, &b))
        return FALSE;
      *(gboolean *) field = b;
      return TRUE;
    case RTPCC_PARAM_TYPE_CHOICE:
      if (!parse_choice (s->choices, value, &i))
        return FALSE;
      *(gint *) field = i;
      return TRUE;
  }
  return FALSE;
}

const RtpccParamSpec *
rtpcc_params_set (const RtpccParamSpec * specs, guint n_specs, gpointer base,
    const gchar * key, const gchar * value)
{
  if (!key || !value)
    return NULL;
  for (guint i = 0; i < n_specs; i++) {
    if (strcmp (key, specs[i].key) != 0)
      continue;
    return apply (&specs[i], (guint8 *) base + specs[i].offset, value) ?
        &specs[i] : NULL;
  }
  return NULL;
}

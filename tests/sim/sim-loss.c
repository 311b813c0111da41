/* Loss model specifications as text (see sim.h, sim_loss_parse).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sim.h"

#include <string.h>

gboolean
sim_loss_parse (const gchar * spec, RtpccLossParams * out, GError ** error)
{
  gchar *s = g_strstrip (g_strdup (spec)), *colon = strchr (s, ':');
  gchar **parts = NULL;
  gdouble v[4] = { 0.0, 1.0, 1.0, 0.0 };        /* p r k h */
  guint n = 0;
  gboolean ok = FALSE, ge = FALSE;

  rtpcc_loss_params_init (out);
  if (!g_strcmp0 (s, "none")) {
    g_free (s);
    return TRUE;
  }
  if (colon) {
    *colon = '\0';
    ge = !g_strcmp0 (s, "gilbert");
    if (ge || !g_strcmp0 (s, "bernoulli")) {
      parts = g_strsplit (colon + 1, ",", -1);
      n = g_strv_length (parts);
      ok = ge ? n >= 2 && n <= 4 : n == 1;
      for (guint i = 0; ok && i < n; i++) {
        gchar *end = NULL, *p = g_strstrip (parts[i]);
        v[i] = g_ascii_strtod (p, &end);
        ok = end != p && *end == '\0';
      }
    }
  }
  g_strfreev (parts);
  g_free (s);
  if (!ok) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "loss: expected none, bernoulli:P or gilbert:p,r[,k[,h]] (got "
        "\"%s\")", spec);
    return FALSE;
  }
  if (ge) {
    out->model = RTPCC_LOSS_GILBERT_ELLIOTT;
    out->ge_p = v[0];
    out->ge_r = v[1];
    out->ge_k = v[2];
    out->ge_h = v[3];
  } else {
    out->model = RTPCC_LOSS_BERNOULLI;
    out->loss = v[0];
  }
  return rtpcc_loss_params_validate (out, error);
}

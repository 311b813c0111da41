/* What gst-inspect shows of fecenc, fecdec, sendbuffer, playoutbuffer and
 * linkemu: metadata in GStreamer's klass vocabulary, every writable
 * property starting at its declared default, and every time property in
 * milliseconds, said so in its blurb (as rtpjitterbuffer's latency).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>

static const gchar *const factories[] = {
  "fecenc", "fecdec", "sendbuffer", "playoutbuffer", "linkemu", "mprtpsched",
};

/* factory/property: the time properties, all in ms */
static const gchar *const ms_props[] = {
  "fecenc/max-block-time", "fecdec/deadline", "sendbuffer/budget",
  "sendbuffer/playout-delay", "sendbuffer/stats-interval",
  "playoutbuffer/min-delay", "playoutbuffer/max-delay",
  "playoutbuffer/window", "playoutbuffer/level-window",
  "playoutbuffer/return-time", "playoutbuffer/fec-window",
  "playoutbuffer/target-delay", "linkemu/queue-ms", "linkemu/delay",
  "linkemu/jitter", "mprtpsched/latency-bound", "mprtpsched/probe-interval",
};

/* docs/additional/design/draft-klass.txt in GStreamer's documentation */
static const gchar *const klass_words[] = {
  "Source", "Sink", "Filter", "Codec", "Encoder", "Decoder", "Payloader",
  "Depayloader", "Network", "RTP", "Generic", "Analyzer",
};

static gboolean
in_list (const gchar * s, const gchar * const *list, guint n)
{
  for (guint i = 0; i < n; i++)
    if (g_str_equal (s, list[i]))
      return TRUE;
  return FALSE;
}

GST_START_TEST (test_metadata)
{
  for (guint f = 0; f < G_N_ELEMENTS (factories); f++) {
    GstElementFactory *fac = gst_element_factory_find (factories[f]);
    const gchar *keys[] = { GST_ELEMENT_METADATA_LONGNAME,
      GST_ELEMENT_METADATA_KLASS, GST_ELEMENT_METADATA_DESCRIPTION,
      GST_ELEMENT_METADATA_AUTHOR
    };
    gchar **words;

    fail_unless (fac != NULL, "no factory %s", factories[f]);
    for (guint k = 0; k < G_N_ELEMENTS (keys); k++) {
      const gchar *v = gst_element_factory_get_metadata (fac, keys[k]);

      fail_unless (v != NULL && *v != '\0', "%s: no %s", factories[f],
          keys[k]);
    }
    words = g_strsplit (gst_element_factory_get_metadata (fac,
            GST_ELEMENT_METADATA_KLASS), "/", -1);
    for (guint w = 0; words[w]; w++)
      fail_unless (in_list (words[w], klass_words,
              G_N_ELEMENTS (klass_words)), "%s: klass word %s",
          factories[f], words[w]);
    g_strfreev (words);
    gst_object_unref (fac);
  }
}

GST_END_TEST;

GST_START_TEST (test_property_defaults)
{
  for (guint f = 0; f < G_N_ELEMENTS (factories); f++) {
    GstElement *e = gst_element_factory_make (factories[f], NULL);
    GParamSpec **props;
    guint n;

    fail_unless (e != NULL, "cannot make %s", factories[f]);
    props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
    for (guint i = 0; i < n; i++) {
      GParamSpec *ps = props[i];
      GValue v = G_VALUE_INIT;
      const gchar *blurb = g_param_spec_get_blurb (ps);

      if (ps->owner_type != G_OBJECT_TYPE (e))
        continue;               /* name, parent */
      fail_unless (blurb != NULL && *blurb != '\0', "%s:%s has no blurb",
          factories[f], ps->name);
      /* never nanoseconds on the surface */
      fail_if (strstr (blurb, "(ns") != NULL, "%s:%s: %s", factories[f],
          ps->name, blurb);
      if (!(ps->flags & G_PARAM_WRITABLE) || !(ps->flags & G_PARAM_READABLE))
        continue;
      g_value_init (&v, ps->value_type);
      g_object_get_property (G_OBJECT (e), ps->name, &v);
      if (!g_param_value_defaults (ps, &v)) {
        gchar *got = g_strdup_value_contents (&v);
        gchar *def =
            g_strdup_value_contents (g_param_spec_get_default_value (ps));

        fail ("%s:%s reads %s, declared default %s", factories[f], ps->name,
            got, def);
      }
      g_value_unset (&v);
    }
    g_free (props);
    gst_object_unref (e);
  }
}

GST_END_TEST;

GST_START_TEST (test_time_properties_in_ms)
{
  for (guint i = 0; i < G_N_ELEMENTS (ms_props); i++) {
    gchar **fp = g_strsplit (ms_props[i], "/", 2);
    GstElement *e = gst_element_factory_make (fp[0], NULL);
    GParamSpec *ps;

    fail_unless (e != NULL);
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), fp[1]);
    fail_unless (ps != NULL, "no %s", ms_props[i]);
    fail_unless (ps->value_type == G_TYPE_UINT ||
        ps->value_type == G_TYPE_INT, "%s is not a (g)int", ms_props[i]);
    fail_unless (strstr (g_param_spec_get_blurb (ps), "(ms") != NULL,
        "%s: blurb without (ms): %s", ms_props[i],
        g_param_spec_get_blurb (ps));
    gst_object_unref (e);
    g_strfreev (fp);
  }
}

GST_END_TEST;

static Suite *
elements_properties_suite (void)
{
  Suite *s = suite_create ("elements_properties");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_metadata);
  tcase_add_test (tc, test_property_defaults);
  tcase_add_test (tc, test_time_properties_in_ms);
  return s;
}

GST_CHECK_MAIN (elements_properties);

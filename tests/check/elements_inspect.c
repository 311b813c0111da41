/* What gst-inspect-1.0 shows of our elements, read in-process (a sanitizer
 * build cannot load its plugins into another process): every registered
 * controller is offered, and no text names a document outside the
 * repository or a placeholder.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <rtpcc/controller.h>
#include <string.h>

static const gchar *const plugins[] = {
  "rtpcc", "rtpccfec", "linkemu", "playoutbuffer", "sendbuffer", NULL
};

/* Words that point at documents a user does not have, or at nothing. */
static const gchar *const bad_patterns[] = {
  "\\bseed[ _-]?0\\d\\d\\b",    /* "seed 003" */
  "\\bseeds? \\d{3}\\b",
  "example\\.(invalid|com|org)",
  "\\banchors(\\.md)?\\b",
  "DESIGN\\.md",
  "shared/research",
  "\\bTODO\\b|\\bFIXME\\b|\\bXXX\\b",
  NULL
};

static GPtrArray *
regexes (void)
{
  GPtrArray *a = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_regex_unref);
  for (guint i = 0; bad_patterns[i]; i++)
    g_ptr_array_add (a, g_regex_new (bad_patterns[i], G_REGEX_CASELESS, 0,
            NULL));
  return a;
}

static void
check_text (GPtrArray * re, const gchar * where, const gchar * text)
{
  if (!text)
    return;
  for (guint i = 0; i < re->len; i++)
    fail_if (g_regex_match (g_ptr_array_index (re, i), text, 0, NULL),
        "%s: \"%s\" matches /%s/", where, text, bad_patterns[i]);
}

static void
check_enum (GPtrArray * re, const gchar * where, GType type)
{
  GEnumClass *ec = g_type_class_ref (type);
  for (guint i = 0; i < ec->n_values; i++) {
    check_text (re, where, ec->values[i].value_name);
    check_text (re, where, ec->values[i].value_nick);
  }
  g_type_class_unref (ec);
}

static void
check_element (GPtrArray * re, GstElementFactory * f)
{
  const gchar *name = GST_OBJECT_NAME (f);
  gchar **keys = gst_element_factory_get_metadata_keys (f);
  GstElement *e = gst_element_factory_create (f, NULL);
  GParamSpec **props;
  guint n;

  fail_unless (e != NULL, "%s", name);
  for (guint i = 0; keys && keys[i]; i++)
    check_text (re, name, gst_element_factory_get_metadata (f, keys[i]));
  g_strfreev (keys);
  props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
  for (guint i = 0; i < n; i++) {
    gchar *where = g_strdup_printf ("%s::%s", name, props[i]->name);
    GValue v = G_VALUE_INIT;

    check_text (re, where, g_param_spec_get_nick (props[i]));
    check_text (re, where, g_param_spec_get_blurb (props[i]));
    if (G_IS_PARAM_SPEC_ENUM (props[i]))
      check_enum (re, where, props[i]->value_type);
    /* the defaults gst-inspect prints; objects and samples it only names */
    if ((props[i]->flags & G_PARAM_READABLE)
        && !G_IS_PARAM_SPEC_OBJECT (props[i])
        && !G_IS_PARAM_SPEC_POINTER (props[i])
        && (!G_IS_PARAM_SPEC_BOXED (props[i])
            || props[i]->value_type == GST_TYPE_STRUCTURE
            || props[i]->value_type == GST_TYPE_CAPS)) {
      gchar *s;
      g_value_init (&v, props[i]->value_type);
      g_object_get_property (G_OBJECT (e), props[i]->name, &v);
      s = gst_value_serialize (&v);
      check_text (re, where, s);
      g_free (s);
      g_value_unset (&v);
    }
    g_free (where);
  }
  g_free (props);
  gst_object_unref (e);
}

GST_START_TEST (test_inspect_texts)
{
  GPtrArray *re = regexes ();
  guint n_elements = 0;

  for (guint p = 0; plugins[p]; p++) {
    GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (),
        plugins[p]);
    GList *features, *l;

    fail_unless (plugin != NULL, "plugin %s not found", plugins[p]);
    check_text (re, plugins[p], gst_plugin_get_description (plugin));
    check_text (re, plugins[p], gst_plugin_get_origin (plugin));
    check_text (re, plugins[p], gst_plugin_get_package (plugin));
    check_text (re, plugins[p], gst_plugin_get_source (plugin));
    features = gst_registry_get_feature_list_by_plugin (gst_registry_get (),
        plugins[p]);
    for (l = features; l; l = l->next) {
      if (!GST_IS_ELEMENT_FACTORY (l->data))
        continue;
      check_element (re, GST_ELEMENT_FACTORY (l->data));
      n_elements++;
    }
    gst_plugin_feature_list_free (features);
    gst_object_unref (plugin);
  }
  /* the checks above ran on something */
  fail_unless (n_elements >= 7, "only %u elements", n_elements);
  g_ptr_array_unref (re);
}

GST_END_TEST;

/* The patterns catch what they are meant to (a test of the test). */
GST_START_TEST (test_patterns_match)
{
  GPtrArray *re = regexes ();
  const gchar *bad[] = { "Singh's playout (seed 003 6.1)", "seeds 001-004",
    "https://example.invalid/gst-rtpcc", "see anchors.md", NULL
  };
  for (guint i = 0; bad[i]; i++) {
    gboolean hit = FALSE;
    for (guint j = 0; j < re->len; j++)
      hit |= g_regex_match (g_ptr_array_index (re, j), bad[i], 0, NULL);
    fail_unless (hit, "%s", bad[i]);
  }
  g_ptr_array_unref (re);
}

GST_END_TEST;

GST_START_TEST (test_controller_blurb_lists_registry)
{
  GstElement *sink = gst_element_factory_make ("rtpccsink", NULL);
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (sink),
      "controller");
  const gchar *blurb = g_param_spec_get_blurb (p);
  const gchar *desc = gst_element_class_get_metadata (GST_ELEMENT_GET_CLASS
      (sink), GST_ELEMENT_METADATA_DESCRIPTION);
  gchar **names = rtpcc_controller_list ();

  fail_unless (g_strv_length (names) >= 7);
  for (guint i = 0; names[i]; i++) {
    gchar *word = g_strdup_printf ("\\b%s\\b", names[i]);
    fail_unless (g_regex_match_simple (word, blurb, 0, 0), "%s not in \"%s\"",
        names[i], blurb);
    fail_unless (g_regex_match_simple (word, desc, 0, 0), "%s not in \"%s\"",
        names[i], desc);
    g_free (word);
  }
  g_strfreev (names);
  gst_object_unref (sink);
}

GST_END_TEST;

/* The receiver's description names every feedback it can send. */
GST_START_TEST (test_src_description_feedback)
{
  GstElementFactory *f = gst_element_factory_find ("rtpccsrc");
  const gchar *desc = gst_element_factory_get_metadata (f,
      GST_ELEMENT_METADATA_DESCRIPTION);
  GParamSpec *p;
  GEnumClass *ec;
  GstElement *src;

  fail_unless (strstr (desc, "RFC 8888") != NULL, "%s", desc);
  fail_unless (strstr (desc, "transport-wide") != NULL, "%s", desc);
  fail_unless (strstr (desc, "RR") != NULL, "%s", desc);
  fail_unless (strstr (desc, "XR") != NULL, "%s", desc);
  /* and the feedback enum offers exactly these three */
  src = gst_element_factory_create (f, NULL);
  p = g_object_class_find_property (G_OBJECT_GET_CLASS (src), "feedback");
  ec = g_type_class_ref (p->value_type);
  fail_unless (g_enum_get_value_by_nick (ec, "ccfb")
      && g_enum_get_value_by_nick (ec, "twcc")
      && g_enum_get_value_by_nick (ec, "rr"));
  g_type_class_unref (ec);
  gst_object_unref (src);
  gst_object_unref (f);
}

GST_END_TEST;

static Suite *
elements_inspect_suite (void)
{
  Suite *s = suite_create ("elements_inspect");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_patterns_match);
  tcase_add_test (tc, test_inspect_texts);
  tcase_add_test (tc, test_controller_blurb_lists_registry);
  tcase_add_test (tc, test_src_description_feedback);
  return s;
}

GST_CHECK_MAIN (elements_inspect);

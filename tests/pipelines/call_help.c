/* --help of the pipelines/ programs: it exits 0, lists exactly the
 * controllers the library registers, and reads the same in the C locale as
 * in a UTF-8 one. GLib converts help text to the locale's charset, so a
 * non-ASCII character of ours would turn into '?' on a machine without a
 * UTF-8 locale (a fresh minimal install); GLib's own "[OPTION...]" in the
 * usage line is not ours and is left out of the comparison.
 *
 *   call_help PROGRAM [PROGRAM...]   paths of rtpcc-call, rtpcc-fec-call, ...
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include <glib.h>
#include <rtpcc/controller.h>

/* stdout of PROGRAM --help with LC_ALL=@locale, from "Application
 * Options:" on */
static gchar *
app_help (const gchar * program, const gchar * locale)
{
  const gchar *argv[] = { program, "--help", NULL };
  gchar **envp = g_environ_setenv (g_get_environ (), "LC_ALL", locale, TRUE);
  gchar *out = NULL, *err = NULL, *section;
  gint status = 0;
  GError *error = NULL;

  g_spawn_sync (NULL, (gchar **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
      &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s --help (LC_ALL=%s) failed: %s", program, locale, err);
  section = strstr (out, "Application Options:");
  g_assert_nonnull (section);
  section = g_strdup (section);
  g_free (out);
  g_free (err);
  g_strfreev (envp);
  return section;
}

static void
test_help (gconstpointer data)
{
  const gchar *program = data;
  gchar *c = app_help (program, "C");
  gchar *utf8 = app_help (program, "C.UTF-8");
  gchar **lines = g_strsplit (c, "\n", -1);

  g_assert_cmpstr (c, ==, utf8);
  for (const gchar * p = c; *p; p++)
    g_assert_cmpint ((guchar) * p, <, 0x80);
  g_assert_null (strchr (c, '?'));

  /* --controller, where there is one, names every registered controller */
  for (guint i = 0; lines[i]; i++) {
    gchar **names;

    if (!strstr (lines[i], "--controller="))
      continue;
    names = rtpcc_controller_list ();
    g_assert_nonnull (names[0]);
    for (guint j = 0; names[j]; j++) {
      gchar *escaped = g_regex_escape_string (names[j], -1);
      gchar *pattern = g_strdup_printf ("\\b%s\\b", escaped);

      if (!g_regex_match_simple (pattern, lines[i], 0, 0))
        g_error ("%s --help does not list controller %s:\n%s", program,
            names[j], lines[i]);
      g_free (pattern);
      g_free (escaped);
    }
    g_strfreev (names);
  }
  g_strfreev (lines);
  g_free (c);
  g_free (utf8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (gint i = 1; i < argc; i++) {
    gchar *base = g_path_get_basename (argv[i]);
    gchar *path = g_strdup_printf ("/pipelines/help/%s", base);

    g_test_add_data_func (path, argv[i], test_help);
    g_free (path);
    g_free (base);
  }
  return g_test_run ();
}

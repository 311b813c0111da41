/* A program outside the tree, built against the installed gstrtpcc-1.0.pc:
 * the headers and the library are usable as a package user gets them.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/rtpcc.h>
#include <stdio.h>

int
main (void)
{
  gchar **names = rtpcc_controller_list ();
  RtpccControllerConfig cfg;
  GError *err = NULL;
  RtpccController *cc;
  int n = 0;

  for (guint i = 0; names[i]; i++, n++)
    printf ("%s\n", names[i]);
  g_strfreev (names);
  rtpcc_controller_config_init (&cfg);
  cc = rtpcc_controller_new ("gcc", &cfg, 0, &err);
  if (!cc) {
    fprintf (stderr, "%s\n", err->message);
    return 1;
  }
  rtpcc_controller_free (cc);
  return n >= 7 ? 0 : 1;
}

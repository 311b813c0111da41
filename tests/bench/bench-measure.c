/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench-measure.h"

#include <glib/gstdio.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#endif

#define WINDOW_TAG "bench-window"

/* ---- child side ---------------------------------------------------------- */

static guint64 cpu_begin, cpu_end;
static gint window_state;       /* atomic: 0 before, 1 in, 2 after */

gboolean
bench_under_valgrind (void)
{
#ifdef HAVE_CALLGRIND
  return RUNNING_ON_VALGRIND != 0;
#else
  return FALSE;
#endif
}

guint64
bench_process_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) +
      (guint64) ts.tv_nsec;
}

gint64
bench_mono_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
bench_sleep_until (gint64 t_ns)
{
  struct timespec ts = { t_ns / 1000000000, t_ns % 1000000000 };

  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR);
}

void
bench_window_begin (void)
{
  if (!g_atomic_int_compare_and_exchange (&window_state, 0, 1))
    return;
#ifdef HAVE_CALLGRIND
  if (RUNNING_ON_VALGRIND) {
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
  }
#endif
  cpu_begin = bench_process_cpu_ns ();
}

void
bench_window_end (void)
{
  if (!g_atomic_int_compare_and_exchange (&window_state, 1, 2))
    return;
  cpu_end = bench_process_cpu_ns ();
#ifdef HAVE_CALLGRIND
  if (RUNNING_ON_VALGRIND) {
    CALLGRIND_DUMP_STATS_AT (WINDOW_TAG);
    CALLGRIND_STOP_INSTRUMENTATION;
  }
#endif
}

guint64
bench_window_cpu_ns (void)
{
  return cpu_end > cpu_begin ? cpu_end - cpu_begin : 0;
}

/* ---- parent side --------------------------------------------------------- */

struct _BenchChild
{
  GPid pid;
  gint out_fd;
  GString *buf;
  gboolean eof, reaped;
  gchar *dump_dir;              /* callgrind output, or NULL */
};

gchar *
bench_find_valgrind (gboolean no_valgrind)
{
#ifdef HAVE_CALLGRIND
  if (!no_valgrind)
    return g_find_program_in_path ("valgrind");
#endif
  return NULL;
}

BenchChild *
bench_child_spawn (const gchar * valgrind, const gchar * const *args,
    GError ** error)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  gchar *self = g_file_read_link ("/proc/self/exe", error);
  BenchChild *c;

  if (!self) {
    g_ptr_array_unref (argv);
    return NULL;
  }
  c = g_new0 (BenchChild, 1);
  c->buf = g_string_new (NULL);
  c->out_fd = -1;
  if (valgrind) {
    c->dump_dir = g_dir_make_tmp ("rtpcc-bench-XXXXXX", error);
    if (!c->dump_dir)
      goto fail;
    g_ptr_array_add (argv, g_strdup (valgrind));
    g_ptr_array_add (argv, g_strdup ("--tool=callgrind"));
    g_ptr_array_add (argv, g_strdup ("--instr-atstart=no"));
    g_ptr_array_add (argv, g_strdup ("-q"));
    g_ptr_array_add (argv, g_strdup_printf ("--callgrind-out-file=%s/cg.out",
            c->dump_dir));
  }
  g_ptr_array_add (argv, self);
  self = NULL;
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_async_with_pipes (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &c->pid, NULL, &c->out_fd,
          NULL, error))
    goto fail;
  g_ptr_array_unref (argv);
  return c;

fail:
  g_ptr_array_unref (argv);
  g_free (self);
  c->reaped = TRUE;
  bench_child_free (c);
  return NULL;
}

gint
bench_child_fd (BenchChild * c)
{
  return c->out_fd;
}

gchar *
bench_child_read_line (BenchChild * c, gint timeout_ms)
{
  gint64 until = timeout_ms < 0 ? G_MAXINT64 :
      g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  for (;;) {
    gchar *nl = memchr (c->buf->str, '\n', c->buf->len);
    struct pollfd pfd = { c->out_fd, POLLIN, 0 };
    gint64 left;
    gchar chunk[4096];
    gssize n;

    if (nl) {
      gchar *line = g_strndup (c->buf->str, nl - c->buf->str);

      g_string_erase (c->buf, 0, nl - c->buf->str + 1);
      return line;
    }
    if (c->eof)
      return NULL;
    left = until == G_MAXINT64 ? -1 :
        MAX (0, (until - g_get_monotonic_time ()) / 1000);
    if (poll (&pfd, 1, (gint) MIN (left, G_MAXINT)) < 0) {
      if (errno == EINTR)
        continue;
      return NULL;
    }
    if (!pfd.revents) {
      if (left == 0 || g_get_monotonic_time () >= until)
        return NULL;
      continue;
    }
    n = read (c->out_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      c->eof = TRUE;
    else
      g_string_append_len (c->buf, chunk, n);
  }
}

gchar *
bench_child_expect (BenchChild * c, const gchar * key, gint timeout_ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gsize klen = strlen (key);

  for (;;) {
    gint64 left = (until - g_get_monotonic_time ()) / 1000;
    gchar *line = bench_child_read_line (c, (gint) MAX (left, 0));

    if (!line)
      return NULL;
    if (strncmp (line, key, klen) == 0 && line[klen] == ' ')
      return line;
    /* anything else the child says is for the reader */
    g_printerr ("%s\n", line);
    g_free (line);
  }
}

gboolean
bench_child_wait (BenchChild * c, gint timeout_ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  gint status = 0;

  if (c->reaped)
    return FALSE;
  for (;;) {
    pid_t r = waitpid (c->pid, &status, WNOHANG);

    if (r == c->pid)
      break;
    if (r < 0 && errno != EINTR)
      return FALSE;
    if (g_get_monotonic_time () >= until) {
      g_printerr ("bench: child %d did not finish, killed\n", (gint) c->pid);
      kill (c->pid, SIGKILL);
      waitpid (c->pid, &status, 0);
      c->reaped = TRUE;
      return FALSE;
    }
    g_usleep (20000);
  }
  c->reaped = TRUE;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

guint64
bench_child_instructions (BenchChild * c)
{
  GDir *dir;
  const gchar *name;
  guint64 total = 0;

  if (!c->dump_dir || !(dir = g_dir_open (c->dump_dir, 0, NULL)))
    return 0;
  while ((name = g_dir_read_name (dir))) {
    gchar *path = g_build_filename (c->dump_dir, name, NULL);
    gchar *text = NULL;

    if (g_file_get_contents (path, &text, NULL, NULL)
        && strstr (text, "Trigger: Client Request: " WINDOW_TAG)) {
      const gchar *t = strstr (text, "\ntotals:");

      if (t)
        total += g_ascii_strtoull (t + strlen ("\ntotals:"), NULL, 10);
    }
    g_free (text);
    g_free (path);
  }
  g_dir_close (dir);
  return total;
}

void
bench_child_free (BenchChild * c)
{
  if (!c)
    return;
  if (!c->reaped && c->pid > 0) {
    kill (c->pid, SIGKILL);
    waitpid (c->pid, NULL, 0);
  }
  if (c->out_fd >= 0)
    close (c->out_fd);
  /* RTPCC_BENCH_KEEP_DUMPS: leave the callgrind dump for
   * callgrind_annotate (its directory is printed) */
  if (c->dump_dir && g_getenv ("RTPCC_BENCH_KEEP_DUMPS")) {
    g_printerr ("bench: callgrind dump kept in %s\n", c->dump_dir);
    g_clear_pointer (&c->dump_dir, g_free);
  }
  if (c->dump_dir) {
    GDir *dir = g_dir_open (c->dump_dir, 0, NULL);
    const gchar *name;

    while (dir && (name = g_dir_read_name (dir))) {
      gchar *path = g_build_filename (c->dump_dir, name, NULL);

      g_unlink (path);
      g_free (path);
    }
    if (dir)
      g_dir_close (dir);
    g_rmdir (c->dump_dir);
    g_free (c->dump_dir);
  }
  g_string_free (c->buf, TRUE);
  g_free (c);
}

guint64
bench_line_get (const gchar * line, const gchar * key)
{
  gsize klen = strlen (key);
  const gchar *p = line;

  while ((p = strstr (p, key))) {
    if ((p == line || p[-1] == ' ') && p[klen] == '=')
      return g_ascii_strtoull (p + klen + 1, NULL, 10);
    p += klen;
  }
  return 0;
}

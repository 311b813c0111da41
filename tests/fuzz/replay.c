/* Standalone driver for the fuzz targets, so they run under plain gcc (and
 * ASan/UBSan) in CI without libFuzzer.
 *
 *   fuzz_x_replay                 run the target's seeds, then
 *                                 RTPCC_FUZZ_ITERATIONS (default 20000)
 *                                 inputs: random bytes and mutated seeds,
 *                                 from a fixed seed (RTPCC_FUZZ_SEED)
 *   fuzz_x_replay FILE|DIR...     run each file once (a libFuzzer corpus
 *                                 or a crash reproducer)
 *   RTPCC_FUZZ_WRITE_SEEDS=DIR fuzz_x_replay
 *                                 write the seeds into DIR (seed-NNN), to
 *                                 start a corpus (corpus/<target>/)
 *
 * Every input is copied into a heap buffer of exactly its size, so that
 * AddressSanitizer sees any read past the end. With RTPCC_FUZZ_CRASH=FILE
 * an input that aborts (a failed invariant, or a GLib critical under
 * G_DEBUG=fatal-criticals) is written to FILE, to keep as a regression
 * case (regress/<target>/).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_MAX_INPUT 4096

/* the input running, for the abort handler */
static const guint8 *current;
static gsize current_len;
static const gchar *crash_file;

static void
save_current (int sig)
{
  /* async-signal-safe calls only */
  int fd = open (crash_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  if (fd >= 0) {
    if (write (fd, current, current_len) < 0) {
      /* nothing more can be done in a signal handler */
    }
    close (fd);
  }
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
run_one (const guint8 * data, gsize len)
{
  guint8 *copy = g_malloc (MAX (len, 1));

  memcpy (copy, data, len);
  current = copy;
  current_len = len;
  LLVMFuzzerTestOneInput (copy, len);
  current = NULL;
  g_free (copy);
}

static gboolean
run_path (const gchar * path, guint * count)
{
  GError *err = NULL;

  if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    GDir *dir = g_dir_open (path, 0, &err);
    const gchar *name;

    if (dir == NULL) {
      g_printerr ("%s\n", err->message);
      g_error_free (err);
      return FALSE;
    }
    while ((name = g_dir_read_name (dir)) != NULL) {
      gchar *child = g_build_filename (path, name, NULL);
      gboolean ok = run_path (child, count);
      g_free (child);
      if (!ok) {
        g_dir_close (dir);
        return FALSE;
      }
    }
    g_dir_close (dir);
    return TRUE;
  } else {
    gchar *contents;
    gsize len;

    if (!g_file_get_contents (path, &contents, &len, &err)) {
      g_printerr ("%s\n", err->message);
      g_error_free (err);
      return FALSE;
    }
    run_one ((const guint8 *) contents, len);
    g_free (contents);
    (*count)++;
    return TRUE;
  }
}

/* One libFuzzer-style mutation of @buf (length *@len, room FUZZ_MAX_INPUT). */
static void
mutate (RtpccRng * rng, guint8 * buf, gsize * len)
{
  static const guint8 interesting[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x20,
    0x8b, 0xcd, 0xc8, 0xc9, 0xca, 0x40,
  };
  gsize n = *len;

  switch (rtpcc_rng_below (rng, 9)) {
    case 0:                    /* flip a bit */
      if (n)
        buf[rtpcc_rng_below (rng, n)] ^= 1u << rtpcc_rng_below (rng, 8);
      break;
    case 1:                    /* random byte */
      if (n)
        buf[rtpcc_rng_below (rng, n)] = (guint8) rtpcc_rng_next_u64 (rng);
      break;
    case 2:                    /* interesting byte */
      if (n)
        buf[rtpcc_rng_below (rng, n)] =
            interesting[rtpcc_rng_below (rng, sizeof (interesting))];
      break;
    case 3:                    /* truncate */
      if (n)
        *len = rtpcc_rng_below (rng, n);
      break;
    case 4:{                   /* append random bytes */
      /* one draw: MIN () evaluates its arguments twice */
      gsize add = 1 + rtpcc_rng_below (rng, 16);

      add = MIN (add, FUZZ_MAX_INPUT - n);
      for (gsize i = 0; i < add; i++)
        buf[n + i] = (guint8) rtpcc_rng_next_u64 (rng);
      *len = n + add;
      break;
    }
    case 5:                    /* nudge a 16-bit word (length fields) */
      if (n >= 4) {
        gsize at = (rtpcc_rng_below (rng, n / 4)) * 4 + 2;
        guint16 v = (guint16) ((buf[at] << 8) | buf[at + 1]);
        v = (guint16) (v + (rtpcc_rng_bernoulli (rng, 0.5) ? 1 : -1) *
            (gint) (1 + rtpcc_rng_below (rng, 3)));
        buf[at] = v >> 8;
        buf[at + 1] = v & 0xff;
      }
      break;
    case 6:                    /* duplicate a chunk at the end */
      if (n) {
        gsize from = rtpcc_rng_below (rng, n);
        gsize cnt = 1 + rtpcc_rng_below (rng, n - from);

        cnt = MIN (cnt, FUZZ_MAX_INPUT - n);
        memmove (buf + n, buf + from, cnt);
        *len = n + cnt;
      }
      break;
    case 7:                    /* delete a chunk */
      if (n) {
        gsize from = rtpcc_rng_below (rng, n);
        gsize cnt = 1 + rtpcc_rng_below (rng, n - from);
        memmove (buf + from, buf + from + cnt, n - from - cnt);
        *len = n - cnt;
      }
      break;
    default:                   /* insert a byte */
      if (n < FUZZ_MAX_INPUT) {
        gsize at = rtpcc_rng_below (rng, n + 1);
        memmove (buf + at + 1, buf + at, n - at);
        buf[at] = (guint8) rtpcc_rng_next_u64 (rng);
        *len = n + 1;
      }
      break;
  }
}

int
main (int argc, char **argv)
{
  GPtrArray *seeds;
  RtpccRng rng;
  guint64 iterations = 20000, seed = 0x8888;
  const gchar *env;
  guint8 *buf;
  guint count = 0;

  crash_file = g_getenv ("RTPCC_FUZZ_CRASH");
  if (crash_file) {
    signal (SIGABRT, save_current);
    /* G_DEBUG=fatal-criticals breaks into a debugger: SIGTRAP */
    signal (SIGTRAP, save_current);
  }
  if (argc > 1) {
    for (int i = 1; i < argc; i++)
      if (!run_path (argv[i], &count))
        return 1;
    g_print ("%s: ran %u inputs\n", argv[0], count);
    return 0;
  }

  if ((env = g_getenv ("RTPCC_FUZZ_ITERATIONS")) != NULL)
    iterations = g_ascii_strtoull (env, NULL, 10);
  if ((env = g_getenv ("RTPCC_FUZZ_SEED")) != NULL)
    seed = g_ascii_strtoull (env, NULL, 0);

  seeds = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  rtpcc_fuzz_seeds (seeds);
  g_assert (seeds->len > 0);
  if ((env = g_getenv ("RTPCC_FUZZ_WRITE_SEEDS")) != NULL) {
    for (guint i = 0; i < seeds->len; i++) {
      gsize len;
      const guint8 *d = g_bytes_get_data (seeds->pdata[i], &len);
      gchar *name = g_strdup_printf ("%s/seed-%03u", env, i);
      GError *err = NULL;

      if (!g_file_set_contents (name, (const gchar *) d, len, &err)) {
        g_printerr ("%s\n", err->message);
        return 1;
      }
      g_free (name);
    }
    g_ptr_array_unref (seeds);
    return 0;
  }
  for (guint i = 0; i < seeds->len; i++) {
    gsize len;
    const guint8 *d = g_bytes_get_data (seeds->pdata[i], &len);
    run_one (d, len);
    count++;
  }

  rtpcc_rng_init (&rng, seed);
  buf = g_malloc (FUZZ_MAX_INPUT);
  for (guint64 it = 0; it < iterations; it++) {
    gsize len;

    if (rtpcc_rng_bernoulli (&rng, 0.2)) {
      len = rtpcc_rng_below (&rng, 600);
      for (gsize i = 0; i < len; i++)
        buf[i] = (guint8) rtpcc_rng_next_u64 (&rng);
    } else {
      GBytes *s = seeds->pdata[rtpcc_rng_below (&rng, seeds->len)];
      const guint8 *d = g_bytes_get_data (s, &len);
      guint k = 1 + rtpcc_rng_below (&rng, 8);

      len = MIN (len, FUZZ_MAX_INPUT);
      memcpy (buf, d, len);
      while (k--)
        mutate (&rng, buf, &len);
    }
    run_one (buf, len);
    count++;
  }
  g_free (buf);
  g_ptr_array_unref (seeds);
  g_print ("%s: ran %u inputs (seed 0x%" G_GINT64_MODIFIER "x)\n", argv[0],
      count, seed);
  return 0;
}

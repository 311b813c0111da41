/* Measuring one steady window of a benchmark child process.
 *
 * A benchmark (the parent) runs each scenario in a child process of its
 * own executable. Under callgrind (the default where valgrind is
 * installed) the child starts uninstrumented; bench_window_begin() turns
 * instrumentation on and zeroes the counters, bench_window_end() dumps
 * them (all threads of the process, summed: callgrind's per-thread
 * collection switch cannot be used, it only affects the calling thread)
 * and turns instrumentation off again. The parent reads the instruction
 * total from the dump. Without valgrind the window measures the process
 * CPU time instead (all threads), which is noisy on a shared machine.
 *
 * Child and parent talk over the child's stdout, one "key value..." line
 * at a time.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __BENCH_MEASURE_H__
#define __BENCH_MEASURE_H__

#include <glib.h>

G_BEGIN_DECLS

/* ---- in the child ------------------------------------------------------- */

gboolean bench_under_valgrind (void);
/* Safe from any thread; one window per process (later calls do nothing,
 * so an end that races another is harmless). */
void bench_window_begin (void);
void bench_window_end (void);
/* CPU time of the process in the window, ns (0 before it ended). */
guint64 bench_window_cpu_ns (void);
/* Process CPU time so far, ns (user + system, all threads). */
guint64 bench_process_cpu_ns (void);
/* CLOCK_MONOTONIC, ns; and a sleep until such a time. */
gint64 bench_mono_ns (void);
void bench_sleep_until (gint64 t_ns);

/* ---- in the parent ------------------------------------------------------ */

typedef struct _BenchChild BenchChild;

/* The valgrind to use: NULL if @no_valgrind, valgrind is missing, or the
 * build has no callgrind client requests. */
gchar *bench_find_valgrind (gboolean no_valgrind);

/* Runs this executable again with @args (NULL-terminated), under
 * callgrind if @valgrind is non-NULL. */
BenchChild *bench_child_spawn (const gchar * valgrind,
    const gchar * const *args, GError ** error);
/* The child's stdout descriptor (to poll it). */
gint bench_child_fd (BenchChild * child);
/* Next whole line of the child's stdout (newline stripped), waiting up to
 * @timeout_ms (0: only what is there; < 0: forever). NULL on timeout or
 * end of output. */
gchar *bench_child_read_line (BenchChild * child, gint timeout_ms);
/* Waits for the line starting with "@key " and returns it. */
gchar *bench_child_expect (BenchChild * child, const gchar * key,
    gint timeout_ms);
/* Reaps the child (killed after @timeout_ms). TRUE if it exited with 0. */
gboolean bench_child_wait (BenchChild * child, gint timeout_ms);
/* Instructions counted in the child's window (callgrind), 0 if none. */
guint64 bench_child_instructions (BenchChild * child);
void bench_child_free (BenchChild * child);

/* "key=value" in a child's line, as an unsigned integer (0 if absent). */
guint64 bench_line_get (const gchar * line, const gchar * key);

G_END_DECLS

#endif

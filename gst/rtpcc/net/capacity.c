/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "capacity.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct _RtpccCapacity
{
  RtpccCapacityKind kind;

  /* schedule: segment i runs [times[i], times[i+1]) at rates[i] bit/s */
  guint n;
  RtpccTime *times;
  guint64 *rates;

  /* trace: opportunity offsets within one period, sorted */
  RtpccTime *opps;
  RtpccTime period;
};

static RtpccCapacity *
capacity_alloc (RtpccCapacityKind kind)
{
  RtpccCapacity *cap = g_rc_box_new0 (RtpccCapacity);
  cap->kind = kind;
  return cap;
}

static void
capacity_clear (gpointer data)
{
  RtpccCapacity *cap = data;
  g_free (cap->times);
  g_free (cap->rates);
  g_free (cap->opps);
}

RtpccCapacity *
rtpcc_capacity_ref (RtpccCapacity * cap)
{
  return g_rc_box_acquire (cap);
}

void
rtpcc_capacity_unref (RtpccCapacity * cap)
{
  if (cap)
    g_rc_box_release_full (cap, capacity_clear);
}

RtpccCapacityKind
rtpcc_capacity_get_kind (const RtpccCapacity * cap)
{
  return cap ? cap->kind : RTPCC_CAPACITY_UNLIMITED;
}

RtpccCapacity *
rtpcc_capacity_new_unlimited (void)
{
  return capacity_alloc (RTPCC_CAPACITY_UNLIMITED);
}

RtpccCapacity *
rtpcc_capacity_new_constant (guint64 bps)
{
  RtpccCapacity *cap = capacity_alloc (RTPCC_CAPACITY_SCHEDULE);
  cap->n = 1;
  cap->times = g_new0 (RtpccTime, 1);
  cap->rates = g_new (guint64, 1);
  cap->rates[0] = bps;
  return cap;
}

/* A number as the schedule grammar allows it: finite, non-negative, decimal. */
static gboolean
parse_number (const gchar ** p, gdouble * out)
{
  const gchar *s = *p;
  gchar *end = NULL;

  while (g_ascii_isspace (*s))
    s++;
  if (!g_ascii_isdigit (*s) && *s != '.')
    return FALSE;
  errno = 0;
  *out = g_ascii_strtod (s, &end);
  if (end == s || errno != 0 || !isfinite (*out) || *out < 0)
    return FALSE;
  while (g_ascii_isspace (*end))
    end++;
  *p = end;
  return TRUE;
}

RtpccCapacity *
rtpcc_capacity_new_schedule (const gchar * spec, GError ** error)
{
  GArray *times, *rates;
  const gchar *p;
  guint idx = 0;

  if (spec == NULL || *spec == '\0') {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "empty capacity schedule (expected kbit/s@seconds,...)");
    return NULL;
  }

  times = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  rates = g_array_new (FALSE, FALSE, sizeof (guint64));
  p = spec;

  for (;;) {
    gdouble kbps, secs;
    RtpccTime t;
    guint64 bps;

    idx++;
    if (!parse_number (&p, &kbps) || kbps > 1e9) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "capacity schedule \"%s\": entry %u: expected a rate in kbit/s "
          "(a number >= 0)", spec, idx);
      goto fail;
    }
    if (*p != '@') {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "capacity schedule \"%s\": entry %u: expected '@' after the rate "
          "(format kbit/s@seconds)", spec, idx);
      goto fail;
    }
    p++;
    if (!parse_number (&p, &secs) || secs > 1e7) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "capacity schedule \"%s\": entry %u: expected a start time in "
          "seconds (a number >= 0)", spec, idx);
      goto fail;
    }
    t = (RtpccTime) llround (secs * RTPCC_NSEC_PER_SEC);
    bps = (guint64) llround (kbps * 1000.0);

    if (times->len == 0 && t != 0) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "capacity schedule \"%s\": the first entry must start at 0 s", spec);
      goto fail;
    }
    if (times->len > 0
        && t <= g_array_index (times, RtpccTime, times->len - 1)) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "capacity schedule \"%s\": entry %u: start times must strictly "
          "increase", spec, idx);
      goto fail;
    }
    g_array_append_val (times, t);
    g_array_append_val (rates, bps);

    if (*p == '\0')
      break;
    if (*p != ',') {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "capacity schedule \"%s\": entry %u: unexpected '%c' (entries are "
          "separated by ',')", spec, idx, *p);
      goto fail;
    }
    p++;
  }

  {
    RtpccCapacity *cap = capacity_alloc (RTPCC_CAPACITY_SCHEDULE);
    cap->n = times->len;
    cap->times = (RtpccTime *) g_array_free (times, FALSE);
    cap->rates = (guint64 *) g_array_free (rates, FALSE);
    return cap;
  }

fail:
  g_array_free (times, TRUE);
  g_array_free (rates, TRUE);
  return NULL;
}

RtpccCapacity *
rtpcc_capacity_new_trace (const gchar * text, gsize len, GError ** error)
{
  GArray *opps;
  gsize i = 0;
  guint line = 0;
  RtpccTime last = 0;

  g_return_val_if_fail (text != NULL || len == 0, NULL);

  opps = g_array_new (FALSE, FALSE, sizeof (RtpccTime));
  while (i < len) {
    gsize start = i, end;
    guint64 ms = 0;
    gsize j;

    while (i < len && text[i] != '\n')
      i++;
    end = i;
    if (i < len)
      i++;                      /* skip '\n' */
    line++;

    /* trim, drop comments */
    for (j = start; j < end; j++)
      if (text[j] == '#')
        break;
    end = j;
    while (start < end && g_ascii_isspace (text[start]))
      start++;
    while (end > start && g_ascii_isspace (text[end - 1]))
      end--;
    if (start == end)
      continue;

    for (j = start; j < end; j++) {
      if (!g_ascii_isdigit (text[j]) || ms > G_GUINT64_CONSTANT (1000000000)) {
        g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
            "trace line %u: expected a non-negative integer millisecond "
            "timestamp", line);
        goto fail;
      }
      ms = ms * 10 + (guint64) (text[j] - '0');
    }
    if (ms > G_GUINT64_CONSTANT (1000000000)) {
      g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
          "trace line %u: timestamp too large", line);
      goto fail;
    }
    {
      RtpccTime t = RTPCC_MSEC ((gint64) ms);
      if (t < last) {
        g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
            "trace line %u: timestamps must not decrease", line);
        goto fail;
      }
      last = t;
      g_array_append_val (opps, t);
    }
  }

  if (opps->len == 0 || last <= 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "trace has no delivery opportunity after 0 ms (its last timestamp is "
        "its period and must be > 0)");
    goto fail;
  }

  {
    RtpccCapacity *cap = capacity_alloc (RTPCC_CAPACITY_TRACE);
    cap->n = opps->len;
    cap->period = last;
    cap->opps = (RtpccTime *) g_array_free (opps, FALSE);
    return cap;
  }

fail:
  g_array_free (opps, TRUE);
  return NULL;
}

RtpccCapacity *
rtpcc_capacity_new_trace_file (const gchar * path, GError ** error)
{
  gchar *contents = NULL;
  gsize len = 0;
  GError *err = NULL;
  RtpccCapacity *cap;

  if (path == NULL || !g_file_get_contents (path, &contents, &len, &err)) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_IO,
        "cannot read trace file \"%s\": %s", path ? path : "(null)",
        err ? err->message : "no file name");
    g_clear_error (&err);
    return NULL;
  }
  cap = rtpcc_capacity_new_trace (contents, len, &err);
  g_free (contents);
  if (!cap) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE, "trace file \"%s\": %s",
        path, err->message);
    g_clear_error (&err);
  }
  return cap;
}

/* Index of the segment in force at t (the last with times[i] <= t). */
static guint
schedule_segment (const RtpccCapacity * cap, RtpccTime t)
{
  guint lo = 0, hi = cap->n;    /* times[lo] <= t < times[hi] */

  if (t <= 0)
    return 0;
  while (hi - lo > 1) {
    guint mid = lo + (hi - lo) / 2;
    if (cap->times[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Time of global opportunity index g (g counts across periods). */
static RtpccTime
trace_opp_time (const RtpccCapacity * cap, gint64 g)
{
  return (g / cap->n) * cap->period + cap->opps[g % cap->n];
}

/* Global index of the first opportunity at or after t. */
static gint64
trace_first_at_or_after (const RtpccCapacity * cap, RtpccTime t)
{
  gint64 cycle;
  RtpccTime within;
  guint lo, hi;

  if (t <= 0)
    return 0;
  cycle = t / cap->period;
  within = t - cycle * cap->period;
  /* an opportunity at offset == period of the previous cycle falls on t */
  if (within == 0 && cycle > 0) {
    cycle--;
    within = cap->period;
  }
  lo = 0;
  hi = cap->n;                  /* first index with opps[i] >= within */
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (cap->opps[mid] < within)
      lo = mid + 1;
    else
      hi = mid;
  }
  return cycle * (gint64) cap->n + lo;
}

guint64
rtpcc_capacity_rate_at (const RtpccCapacity * cap, RtpccTime t,
    RtpccTime window)
{
  if (cap == NULL)
    return G_MAXUINT64;
  switch (cap->kind) {
    case RTPCC_CAPACITY_UNLIMITED:
      return G_MAXUINT64;
    case RTPCC_CAPACITY_SCHEDULE:
      return cap->rates[schedule_segment (cap, t)];
    case RTPCC_CAPACITY_TRACE:{
      gint64 a, b;
      if (window <= 0)
        window = RTPCC_MSEC (100);
      a = trace_first_at_or_after (cap, t);
      b = trace_first_at_or_after (cap, t + window);
      return (guint64) ((gdouble) (b - a) * RTPCC_TRACE_MTU * 8.0 *
          RTPCC_NSEC_PER_SEC / (gdouble) window);
    }
  }
  return G_MAXUINT64;
}

RtpccTime
rtpcc_capacity_next_change (const RtpccCapacity * cap, RtpccTime t)
{
  guint i;

  if (cap == NULL || cap->kind != RTPCC_CAPACITY_SCHEDULE)
    return RTPCC_TIME_INFINITE;
  i = schedule_segment (cap, t);
  return i + 1 < cap->n ? cap->times[i + 1] : RTPCC_TIME_INFINITE;
}

/* Serialization across schedule segments, in exact integer arithmetic:
 * the remaining work is kept in bit·ns/s ("nanobits") so a partial segment
 * subtracts (segment time × rate) without rounding. */
static RtpccTime
schedule_serve (const RtpccCapacity * cap, RtpccTime start, guint bytes)
{
  guint64 rem = (guint64) bytes * 8 * RTPCC_NSEC_PER_SEC;
  guint i = schedule_segment (cap, start);
  RtpccTime s = start;

  if (bytes == 0)
    return start;
  for (;;) {
    guint64 r = cap->rates[i];
    RtpccTime tnext = i + 1 < cap->n ? cap->times[i + 1] : RTPCC_TIME_INFINITE;

    if (r > 0) {
      guint64 need = (rem + r - 1) / r;
      if (tnext == RTPCC_TIME_INFINITE || (guint64) (tnext - s) >= need)
        return s + (RtpccTime) need;
      rem -= (guint64) (tnext - s) * r;
    } else if (tnext == RTPCC_TIME_INFINITE) {
      return RTPCC_TIME_INFINITE;
    }
    s = tnext;
    i++;
  }
}

static RtpccTime
trace_serve (const RtpccCapacity * cap, RtpccTime start, guint bytes,
    RtpccCapacityCursor * cur)
{
  RtpccCapacityCursor local = RTPCC_CAPACITY_CURSOR_INIT;
  gint64 g;
  guint64 n, left;

  if (cur == NULL)
    cur = &local;
  if (bytes == 0)
    return start;
  if (start < 0)
    start = 0;

  /* Leftover bytes of the last used opportunity serve this packet only if it
   * was already waiting at that opportunity's time. */
  if (cur->credit > 0 && cur->next_opportunity > 0
      && trace_opp_time (cap, cur->next_opportunity - 1) < start)
    cur->credit = 0;
  if (cur->credit >= bytes && cur->next_opportunity > 0) {
    cur->credit -= bytes;
    return MAX (start, trace_opp_time (cap, cur->next_opportunity - 1));
  }

  left = bytes - cur->credit;
  g = MAX (cur->next_opportunity, trace_first_at_or_after (cap, start));
  n = (left + RTPCC_TRACE_MTU - 1) / RTPCC_TRACE_MTU;
  if (n == 0)
    n = 1;
  g += (gint64) n - 1;
  cur->next_opportunity = g + 1;
  cur->credit = (guint) (n * RTPCC_TRACE_MTU - left);
  return trace_opp_time (cap, g);
}

RtpccTime
rtpcc_capacity_serve (const RtpccCapacity * cap, RtpccTime start, guint bytes,
    RtpccCapacityCursor * cursor)
{
  if (cap == NULL)
    return start;
  switch (cap->kind) {
    case RTPCC_CAPACITY_UNLIMITED:
      return start;
    case RTPCC_CAPACITY_SCHEDULE:
      return schedule_serve (cap, start, bytes);
    case RTPCC_CAPACITY_TRACE:
      return trace_serve (cap, start, bytes, cursor);
  }
  return start;
}

gchar *
rtpcc_capacity_to_string (const RtpccCapacity * cap)
{
  GString *s;

  if (cap == NULL || cap->kind == RTPCC_CAPACITY_UNLIMITED)
    return g_strdup ("unlimited");
  if (cap->kind == RTPCC_CAPACITY_TRACE)
    return g_strdup_printf ("trace:%u@%" G_GINT64_FORMAT "ms", cap->n,
        cap->period / RTPCC_NSEC_PER_MSEC);
  s = g_string_new (NULL);
  for (guint i = 0; i < cap->n; i++) {
    gchar buf[2][G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append_printf (s, "%s%s@%s", i ? "," : "",
        g_ascii_formatd (buf[0], sizeof buf[0], "%.6g", cap->rates[i] / 1000.0),
        g_ascii_formatd (buf[1], sizeof buf[1], "%.6g",
            RTPCC_TIME_AS_SEC (cap->times[i])));
  }
  return g_string_free (s, FALSE);
}

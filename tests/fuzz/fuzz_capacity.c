/* Fuzz target: the link emulator's capacity parsers (net/capacity.h), a
 * schedule "kbit/s@seconds,..." and a mahimahi trace, and what a capacity
 * that parsed then computes.
 *
 * The first byte picks the parser (even: schedule, odd: trace); the rest is
 * its text. A schedule that parsed must parse again from its own
 * to_string().
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <string.h>

static void
exercise (RtpccCapacity * cap)
{
  RtpccCapacityCursor cur = RTPCC_CAPACITY_CURSOR_INIT;
  RtpccTime t = 0, done;
  gchar *s = rtpcc_capacity_to_string (cap);

  FUZZ_CHECK (s != NULL);
  g_free (s);
  for (guint i = 0; i < 8; i++) {
    RtpccTime next = rtpcc_capacity_next_change (cap, t);
    FUZZ_CHECK (next > t);
    (void) rtpcc_capacity_rate_at (cap, t, 0);
    done = rtpcc_capacity_serve (cap, t, 1200, &cur);
    FUZZ_CHECK (done >= t);
    if (done == RTPCC_TIME_INFINITE)
      break;
    t = done + RTPCC_MSEC (37) * i;
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  RtpccCapacity *cap;
  GError *err = NULL;

  if (size < 1)
    return 0;
  if (data[0] & 1) {
    cap = rtpcc_capacity_new_trace ((const gchar *) data + 1, size - 1, &err);
  } else {
    gchar *spec = g_strndup ((const gchar *) data + 1, size - 1);
    cap = rtpcc_capacity_new_schedule (spec, &err);
    g_free (spec);
    if (cap && rtpcc_capacity_get_kind (cap) == RTPCC_CAPACITY_SCHEDULE) {
      gchar *again = rtpcc_capacity_to_string (cap);
      RtpccCapacity *cap2 = rtpcc_capacity_new_schedule (again, NULL);
      FUZZ_CHECK (cap2 != NULL);
      rtpcc_capacity_unref (cap2);
      g_free (again);
    }
  }
  if (!cap) {
    FUZZ_CHECK (err != NULL);
    g_error_free (err);
    return 0;
  }
  FUZZ_CHECK (err == NULL);
  exercise (cap);
  rtpcc_capacity_unref (cap);
  return 0;
}

static void
add (GPtrArray * seeds, guint8 kind, const gchar * text)
{
  GByteArray *a = g_byte_array_new ();

  g_byte_array_append (a, &kind, 1);
  g_byte_array_append (a, (const guint8 *) text, strlen (text));
  g_ptr_array_add (seeds, g_byte_array_free_to_bytes (a));
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  add (seeds, 0, "1000@0,2500@40,600@60,1000@80");
  add (seeds, 0, "0@0,1.5@0.25,100000@1");
  add (seeds, 0, "300@0");
  add (seeds, 1, "0\n1\n1\n2\n5\n# comment\n\n8\n13\n");
  add (seeds, 1, "10\n20\n20\n20\n30\n");
}

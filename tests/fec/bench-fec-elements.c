/* Wall-clock speed of the FEC elements against GStreamer's stock ULPFEC
 * ones, in the same run: the same 1200-byte media stream through
 *
 *   encode: fecenc scheme=xor n=5           vs  rtpulpfecenc percentage=20
 *   decode: fecdec (our stream, 5 % loss)   vs  rtpstorage ! rtpulpfecdec
 *           fecdec mode=ulpfec (ULPFEC)         (ULPFEC, 5 % loss, a lost
 *                                                event per missing seq)
 *
 * each driven by GstHarness (pushes and pulls in this thread), without a
 * clock and with the system clock (then fecenc's and fecdec's timer tasks
 * run on it). Prints the best of several runs (the machine is shared: the
 * least disturbed run), in µs per packet, and the context switches of the
 * process during that run.
 *
 *   bench-fec-elements [--packets N] [--runs R]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <rtpcc/rtpcc.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "rtp-header.h"

#define FEC_PT 122
#define CAPS "application/x-rtp,media=video,clock-rate=90000," \
    "encoding-name=VP8,payload=96,ssrc=(uint)305419896"

static GPtrArray *
make_media (guint n)
{
  GPtrArray *a = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  RtpccRng rng;

  rtpcc_rng_init (&rng, 5);
  for (guint i = 0; i < n; i++) {
    guint8 *p = g_malloc (1200);
    GstBuffer *b;
    guint32 ts = (i / 4) * 3000;

    for (guint k = 12; k < 1200; k++)
      p[k] = (guint8) rtpcc_rng_next_u64 (&rng);
    bench_rtp_header (p, i % 4 == 3, (guint16) i, ts, 0x12345678);
    b = gst_buffer_new_wrapped (p, 1200);
    GST_BUFFER_PTS (b) = (GstClockTime) i * GST_MSECOND;
    g_ptr_array_add (a, b);
  }
  return a;
}

static guint64
context_switches (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (guint64) (ru.ru_nvcsw + ru.ru_nivcsw);
}

typedef struct
{
  gdouble us;                   /* best run, µs per input packet */
  guint64 switches;             /* in that run */
  guint64 out;                  /* buffers out */
} Timing;

static GstHarness *
harness (const gchar * launch, gboolean clock)
{
  GstHarness *h = gst_harness_new_parse (launch);

  gst_harness_set_src_caps_str (h, CAPS);
  if (clock)
    gst_harness_use_systemclock (h);
  gst_harness_play (h);
  return h;
}

static guint64
drain (GstHarness * h)
{
  GstBuffer *b;
  guint64 n = 0;

  while ((b = gst_harness_try_pull (h)) != NULL) {
    n++;
    gst_buffer_unref (b);
  }
  while (gst_harness_try_pull_event (h));
  return n;
}

/* The whole @in through @launch, best of @runs. */
static Timing
time_element (const gchar * launch, GPtrArray * in, gboolean clock,
    guint runs)
{
  Timing best = { G_MAXDOUBLE, 0, 0 };

  for (guint r = 0; r < runs; r++) {
    GstHarness *h = harness (launch, clock);
    guint64 out = 0, cs = context_switches ();
    gint64 t0 = g_get_monotonic_time (), t1;

    for (guint i = 0; i < in->len; i++) {
      gst_harness_push (h, gst_buffer_ref (in->pdata[i]));
      out += drain (h);
    }
    gst_harness_push_event (h, gst_event_new_eos ());
    out += drain (h);
    t1 = g_get_monotonic_time ();
    cs = context_switches () - cs;
    gst_harness_teardown (h);
    if ((gdouble) (t1 - t0) / in->len < best.us) {
      best.us = (gdouble) (t1 - t0) / in->len;
      best.switches = cs;
      best.out = out;
    }
  }
  return best;
}

/* The wire after @launch encodes @media, minus a seeded 5 % of it. */
static GPtrArray *
encode_and_lose (const gchar * launch, GPtrArray * media)
{
  GPtrArray *wire = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstHarness *h = harness (launch, FALSE);
  RtpccRng rng;
  GstBuffer *b;

  rtpcc_rng_init (&rng, 9);
  for (guint i = 0; i < media->len; i++) {
    gst_harness_push (h, gst_buffer_ref (media->pdata[i]));
    while ((b = gst_harness_try_pull (h)) != NULL) {
      if (rtpcc_rng_bernoulli (&rng, 0.05))
        gst_buffer_unref (b);
      else
        g_ptr_array_add (wire, b);
    }
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((b = gst_harness_try_pull (h)) != NULL)
    g_ptr_array_add (wire, b);
  gst_harness_teardown (h);
  return wire;
}

static guint16
buf_seq (GstBuffer * b)
{
  guint8 x[4];

  gst_buffer_extract (b, 0, x, 4);
  return (guint16) ((x[2] << 8) | x[3]);
}

/* rtpulpfecdec needs a jitter buffer's lost events: the stream in sequence
 * order with a GstRTPPacketLost event for each missing seq (computed before
 * the timing), packets into rtpstorage, which hands them to the decoder. */
static Timing
time_stock_decoder (GPtrArray * wire, gboolean clock, guint runs)
{
  Timing best = { G_MAXDOUBLE, 0, 0 };
  GPtrArray *ordered = g_ptr_array_new ();
  gint64 first = -1, last = -1;
  GstBuffer **by_seq;

  for (guint i = 0; i < wire->len; i++) {
    gint64 s = buf_seq (wire->pdata[i]);

    first = first < 0 ? s : MIN (first, s);
    last = MAX (last, s);
  }
  by_seq = g_new0 (GstBuffer *, last + 1);
  for (guint i = 0; i < wire->len; i++)
    by_seq[buf_seq (wire->pdata[i])] = wire->pdata[i];
  for (gint64 s = first; s <= last; s++)
    g_ptr_array_add (ordered, by_seq[s]);     /* NULL: lost */

  for (guint r = 0; r < runs; r++) {
    GstHarness *store = harness ("rtpstorage size-time=100000000000", clock);
    GstHarness *dec;
    GObject *storage = NULL;
    guint64 out = 0, cs;
    gint64 t0, t1;

    g_object_get (store->element, "internal-storage", &storage, NULL);
    dec = gst_harness_new ("rtpulpfecdec");
    g_object_set (dec->element, "pt", FEC_PT, "storage", storage, NULL);
    gst_harness_set_src_caps_str (dec, CAPS);
    if (clock)
      gst_harness_use_systemclock (dec);
    gst_harness_play (dec);
    cs = context_switches ();
    t0 = g_get_monotonic_time ();
    for (guint i = 0; i < ordered->len; i++) {
      GstBuffer *b = ordered->pdata[i];

      if (b) {
        gst_harness_push (store, gst_buffer_ref (b));
        while ((b = gst_harness_try_pull (store)) != NULL)
          gst_harness_push (dec, b);
      } else {
        gst_harness_push_event (dec, gst_event_new_custom
            (GST_EVENT_CUSTOM_DOWNSTREAM, gst_structure_new
                ("GstRTPPacketLost", "seqnum", G_TYPE_UINT,
                    (guint) (first + i), "timestamp", G_TYPE_UINT64,
                    (guint64) 0, "duration", G_TYPE_UINT64, (guint64) 0,
                    "retry", G_TYPE_UINT, 0, NULL)));
      }
      out += drain (dec);
    }
    t1 = g_get_monotonic_time ();
    cs = context_switches () - cs;
    g_object_unref (storage);
    gst_harness_teardown (store);
    gst_harness_teardown (dec);
    /* per packet that arrived, as for fecdec */
    if ((gdouble) (t1 - t0) / wire->len < best.us) {
      best.us = (gdouble) (t1 - t0) / wire->len;
      best.switches = cs;
      best.out = out;
    }
  }
  g_free (by_seq);
  g_ptr_array_unref (ordered);
  return best;
}

static void
row (const gchar * what, const gchar * clock, Timing t)
{
  printf ("| %s | %s | %.2f | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT
      " |\n", what, clock, t.us, t.switches, t.out);
}

int
main (int argc, char **argv)
{
  gint n = 20000, runs = 7;
  GOptionEntry entries[] = {
    {"packets", 'n', 0, G_OPTION_ARG_INT, &n, "Media packets", "N"},
    {"runs", 'r', 0, G_OPTION_ARG_INT, &runs, "Runs (the best counts)", "R"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- FEC elements vs ULPFEC");
  GPtrArray *media, *ours, *ulp;
  const gchar *enc_ours = "fecenc scheme=xor n=5 follow-target=false ssrc=1";
  const gchar *enc_ulp = "rtpulpfecenc pt=122 percentage=20 multipacket=true";

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, NULL))
    return 2;
  g_option_context_free (ctx);

  media = make_media ((guint) n);
  ours = encode_and_lose (enc_ours, media);
  ulp = encode_and_lose (enc_ulp, media);
  printf ("%d media packets of 1200 bytes, best of %d runs\n\n", n, runs);
  printf ("| element | clock | µs per packet | context switches | "
      "buffers out |\n|---|---|---|---|---|\n");
  for (guint c = 0; c < 2; c++) {
    const gchar *cl = c ? "system" : "none";

    row ("fecenc xor n=5", cl, time_element (enc_ours, media, c, runs));
    row ("rtpulpfecenc percentage=20", cl, time_element (enc_ulp, media, c,
            runs));
    row ("fecdec (5 % loss)", cl, time_element ("fecdec", ours, c, runs));
    row ("fecdec mode=ulpfec (5 % loss)", cl,
        time_element ("fecdec mode=ulpfec", ulp, c, runs));
    row ("rtpstorage ! rtpulpfecdec (5 % loss)", cl,
        time_stock_decoder (ulp, c, runs));
  }
  g_ptr_array_unref (media);
  g_ptr_array_unref (ours);
  g_ptr_array_unref (ulp);
  return 0;
}

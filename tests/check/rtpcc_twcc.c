/* Unit tests for transport-wide congestion control feedback
 * (gst/rtpcc/feedback/twcc.[ch], draft-holmer-rmcat-transport-wide-cc-
 * extensions-01) and the RTP header extension helpers (rtpext.[ch]):
 * against hand-assembled bytes, seeded random round trips, GstRTPBuffer,
 * and tshark's dissection.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <rtpcc/rtpcc.h>
#include <glib/gstdio.h>
#include <string.h>

#include "assert-bytes.h"
#include "tshark-util.h"

/* For hot loops: check's assertions cost a system call each, even when
 * they pass. */
#define CHECK(cond, ...)                                                    \
  G_STMT_START {                                                            \
    if (G_UNLIKELY (!(cond))) {                                             \
      g_printerr ("%s:%d: assertion '%s' failed\n", __FILE__, __LINE__,     \
          #cond);                                                           \
      ck_abort_msg (__VA_ARGS__);                                           \
    }                                                                       \
  } G_STMT_END

#define REF RTPCC_TWCC_REF_UNIT
#define TICK RTPCC_TWCC_DELTA_UNIT
#define NONE RTPCC_TIME_NONE
/* 2^24 × 64 ms: where the 24-bit reference time wraps */
#define REF_WRAP_TIME (RTPCC_TWCC_REF_WRAP * REF)

static gint64
floor_div (gint64 a, gint64 b)
{
  gint64 q = a / b;
  if ((a % b) != 0 && a < 0)
    q--;
  return q;
}

/* What the writer promises: @t rounded to the nearest 250 µs tick counted
 * from @base (ties up). */
static RtpccTime
rounded_from (RtpccTime base, RtpccTime t)
{
  return base + floor_div (t - base + TICK / 2, TICK) * TICK;
}

static RtpccTwcc *
parse_ok (const guint8 * buf, gsize n)
{
  GError *err = NULL;
  RtpccTwcc *fb = rtpcc_twcc_parse (buf, n, &err);

  CHECK (fb != NULL, "%s", err ? err->message : "");
  CHECK (err == NULL, "error set");
  return fb;
}

/* Writes @n entries as one packet that must take them all. */
static gsize
write_one (guint8 * buf, gsize max, guint32 sender, guint32 media,
    guint8 fb_count, const RtpccTwccArrival * a, guint n)
{
  guint used = 0;
  gsize len = rtpcc_twcc_write (buf, max, sender, media, fb_count, a, n,
      &used);

  fail_unless (len > 0);
  fail_unless_equals_int (used, n);
  return len;
}

/* ---- wire layout -------------------------------------------------------- */

GST_START_TEST (test_twcc_layout_run_length)
{
  static const guint8 want[] = {
    0x8F, 0xCD, 0x00, 0x06,     /* V=2 P=0 FMT=15, PT 205, length 6 */
    0x11, 0x11, 0x11, 0x11,     /* SSRC of packet sender */
    0x22, 0x22, 0x22, 0x22,     /* SSRC of media source */
    0x00, 0x64, 0x00, 0x03,     /* base seq 100, status count 3 */
    0x00, 0x03, 0xE8, 0x05,     /* reference time 1000 (64 s), fb count 5 */
    0x20, 0x03,                 /* run length: T=0 S=01 (small) × 3 */
    0x04, 0x01, 0xFF,           /* deltas 1 ms, 0.25 ms, 63.75 ms */
    0x00, 0x00, 0x00,           /* zero padding to 32 bits */
  };
  RtpccTime t0 = 1000 * REF + RTPCC_MSEC (1);
  RtpccTwccArrival a[] = {
    {100, t0}, {101, t0 + TICK}, {102, t0 + TICK + 255 * TICK},
  };
  guint8 buf[64];
  gsize n;
  g_autoptr (RtpccTwcc) fb = NULL;

  n = write_one (buf, sizeof (buf), 0x11111111, 0x22222222, 5, a, 3);
  assert_bytes (buf, n, want);
  /* a byte short: the last entry goes into the next packet */
  {
    guint used = 99;
    fail_unless_equals_int (rtpcc_twcc_write (buf, 27, 1, 2, 0, a, 3, &used),
        24);
    fail_unless_equals_int (used, 2);
    fail_unless_equals_int (rtpcc_twcc_write (buf, 23, 1, 2, 0, a, 3, &used),
        0);
    fail_unless_equals_int (used, 0);
  }

  fb = parse_ok (want, sizeof (want));
  fail_unless (fb->sender_ssrc == 0x11111111);
  fail_unless (fb->media_ssrc == 0x22222222);
  fail_unless_equals_int (fb->base_seq, 100);
  fail_unless_equals_int (fb->status_count, 3);
  fail_unless_equals_int (fb->ref_time, 1000);
  fail_unless_equals_int (fb->fb_count, 5);
  fail_unless_equals_int (fb->n_received, 3);
  fail_unless_equals_int (fb->status[0].seq, 100);
  fail_unless_equals_int (fb->status[0].symbol, RTPCC_TWCC_SMALL_DELTA);
  fail_unless_equals_int (fb->status[0].delta, 4);
  fail_unless_equals_int64 (fb->status[0].offset, RTPCC_MSEC (1));
  fail_unless_equals_int64 (fb->status[1].offset, RTPCC_USEC (1250));
  fail_unless_equals_int (fb->status[2].seq, 102);
  fail_unless_equals_int (fb->status[2].delta, 255);
  fail_unless_equals_int64 (fb->status[2].offset, RTPCC_USEC (65000));
}

GST_END_TEST;

GST_START_TEST (test_twcc_layout_one_bit_vector)
{
  static const guint8 want[] = {
    0x8F, 0xCD, 0x00, 0x06,
    0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x02,
    0x00, 0x07, 0x00, 0x05,     /* base 7, 5 statuses */
    0x00, 0x00, 0x02, 0x00,     /* reference 2 (128 ms), fb count 0 */
    0xAA, 0x00,                 /* T=1 S=0: 1 0 1 0 1, 9 unused slots */
    0x02, 0x04, 0x28,           /* 0.5 ms, 1 ms, 10 ms */
    0x00, 0x00, 0x00,
  };
  RtpccTwccArrival a[] = {
    {7, RTPCC_USEC (128500)}, {9, RTPCC_USEC (129500)},
    {11, RTPCC_USEC (139500)},
  };
  RtpccTwccArrival b[] = {
    {7, RTPCC_USEC (128500)}, {8, NONE}, {9, RTPCC_USEC (129500)},
    {10, NONE}, {11, RTPCC_USEC (139500)},
  };
  guint8 buf[64];
  gsize n;
  g_autoptr (RtpccTwcc) fb = NULL;

  /* gaps in seq and explicit NONE entries are the same thing */
  n = write_one (buf, sizeof (buf), 1, 2, 0, a, 3);
  assert_bytes (buf, n, want);
  n = write_one (buf, sizeof (buf), 1, 2, 0, b, 5);
  assert_bytes (buf, n, want);

  fb = parse_ok (want, sizeof (want));
  fail_unless_equals_int (fb->status_count, 5);
  fail_unless_equals_int (fb->n_received, 3);
  for (guint i = 0; i < 5; i++) {
    fail_unless_equals_int (fb->status[i].seq, 7 + i);
    fail_unless_equals_int (fb->status[i].received, i % 2 == 0);
  }
  fail_unless (fb->status[1].offset == NONE);
  fail_unless_equals_int (fb->status[1].delta, 0);
  fail_unless_equals_int64 (fb->status[4].offset, RTPCC_USEC (11500));
}

GST_END_TEST;

GST_START_TEST (test_twcc_layout_two_bit_vector_wrap)
{
  /* across the seq wrap: small, lost, large (+75 ms), negative (−1 ms) */
  static const guint8 want[] = {
    0x8F, 0xCD, 0x00, 0x06,
    0xAA, 0xAA, 0xAA, 0xAA,
    0xBB, 0xBB, 0xBB, 0xBB,
    0xFF, 0xFE, 0x00, 0x04,     /* base 65534, 4 statuses: 65534..1 */
    0x12, 0x34, 0x56, 0xFF,     /* reference 0x123456, fb count 255 */
    0xD2, 0x80,                 /* T=1 S=1: 01 00 10 10, 3 unused */
    0x08,                       /* 2 ms */
    0x01, 0x2C,                 /* 300 ticks = 75 ms */
    0xFF, 0xFC,                 /* −4 ticks = −1 ms */
    0x00,
  };
  RtpccTime t0 = 0x123456 * REF + RTPCC_MSEC (2);
  RtpccTwccArrival a[] = {
    {65534, t0}, {65535, NONE}, {65536, t0 + RTPCC_MSEC (75)},
    {65537, t0 + RTPCC_MSEC (74)},
  };
  guint8 buf[64];
  gsize n;
  g_autoptr (RtpccTwcc) fb = NULL;

  n = write_one (buf, sizeof (buf), 0xAAAAAAAA, 0xBBBBBBBB, 255, a, 4);
  assert_bytes (buf, n, want);

  fb = parse_ok (want, sizeof (want));
  fail_unless_equals_int (fb->ref_time, 0x123456);
  fail_unless_equals_int (fb->status[0].seq, 65534);
  fail_unless_equals_int (fb->status[1].seq, 65535);
  fail_unless_equals_int (fb->status[2].seq, 0);
  fail_unless_equals_int (fb->status[3].seq, 1);
  fail_unless_equals_int (fb->status[2].symbol, RTPCC_TWCC_LARGE_DELTA);
  fail_unless_equals_int (fb->status[2].delta, 300);
  fail_unless_equals_int (fb->status[3].symbol, RTPCC_TWCC_LARGE_DELTA);
  fail_unless_equals_int (fb->status[3].delta, -4);
  fail_unless_equals_int64 (fb->status[3].offset, RTPCC_MSEC (76));
}

GST_END_TEST;

GST_START_TEST (test_twcc_layout_mixed_chunks)
{
  /* 0 received; 1..100 lost; 101..121 received: a 1-bit vector (0 and
   * 13 losses), a run of 87 losses, a run of 21 received */
  static const guint8 want_head[] = {
    0x8F, 0xCD, 0x00, 0x0B,     /* 48 bytes */
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x7A,     /* base 0, 122 statuses */
    0x00, 0x00, 0x0A, 0x01,     /* reference 10 (640 ms), fb count 1 */
    0xA0, 0x00,                 /* 1-bit: 1, 13 × 0 */
    0x00, 0x57,                 /* run: 87 × not received */
    0x20, 0x15,                 /* run: 21 × small */
    0x00, 0x04,                 /* deltas: 0, 1 ms, then 20 × 0.25 ms */
  };
  RtpccTwccArrival a[22];
  guint8 buf[128];
  gsize n;
  g_autoptr (RtpccTwcc) fb = NULL;

  a[0].seq = 0;
  a[0].arrival = 10 * REF;
  for (guint i = 1; i < 22; i++) {
    a[i].seq = 100 + i;
    a[i].arrival = 10 * REF + RTPCC_MSEC (1) + (i - 1) * TICK;
  }
  n = write_one (buf, sizeof (buf), 1, 2, 1, a, 22);
  fail_unless_equals_int (n, 48);
  for (gsize i = 0; i < sizeof (want_head); i++)
    fail_unless (buf[i] == want_head[i], "byte %" G_GSIZE_FORMAT, i);
  for (gsize i = sizeof (want_head); i < 48; i++)
    fail_unless (buf[i] == 1);   /* 48 bytes exactly: no padding */

  fb = parse_ok (buf, n);
  fail_unless_equals_int (fb->n_received, 22);
  fail_unless (fb->status[0].received && !fb->status[1].received
      && !fb->status[100].received && fb->status[101].received);

  /* 8 mixed small then a large: a 2-bit vector of the first 7, then the
   * 8th with the large in a 2-bit vector of 2 */
  {
    static const guint8 want_chunks[] = { 0xD1, 0x11, 0xC8, 0x00 };
    RtpccTwccArrival b[5];
    for (guint i = 0; i < 4; i++) {
      b[i].seq = 2 * i;
      b[i].arrival = RTPCC_SEC (1) + i * TICK;
    }
    b[4].seq = 8;
    b[4].arrival = RTPCC_SEC (2);
    n = write_one (buf, sizeof (buf), 1, 2, 0, b, 5);
    for (guint i = 0; i < 4; i++)
      fail_unless (buf[20 + i] == want_chunks[i], "chunk byte %u: %02x", i,
          buf[20 + i]);
    rtpcc_twcc_free (parse_ok (buf, n));
  }

  /* 1000 received in a row: one run chunk, 1000 one-byte deltas */
  {
    RtpccTwccArrival *c = g_new (RtpccTwccArrival, 1000);
    guint8 *big = g_malloc (2048);
    for (guint i = 0; i < 1000; i++) {
      c[i].seq = 5000 + i;
      c[i].arrival = RTPCC_SEC (3) + i * RTPCC_MSEC (1);
    }
    n = write_one (big, 2048, 1, 2, 0, c, 1000);
    fail_unless_equals_int (n, 1024);
    fail_unless (big[20] == 0x23 && big[21] == 0xE8);  /* small × 1000 */
    g_free (big);
    g_free (c);
  }
}

GST_END_TEST;

GST_START_TEST (test_twcc_padding_and_alignment)
{
  /* two received: 20 + 2 + 2 = 24, no zero padding */
  RtpccTwccArrival a[] = { {1, RTPCC_SEC (1)}, {2, RTPCC_SEC (1)} };
  guint8 buf[64], p[64];
  gsize n = write_one (buf, sizeof (buf), 1, 2, 0, a, 2);
  RtpccTwcc *fb;

  fail_unless_equals_int (n, 24);
  fail_unless_equals_int (buf[3], 5);

  /* the same with RTCP padding (P bit, 8 bytes): same content */
  memcpy (p, buf, n);
  memset (p + n, 0, 8);
  p[0] |= 0x20;
  p[3] = 7;
  p[n + 7] = 8;
  fb = parse_ok (p, n + 8);
  fail_unless_equals_int (fb->status_count, 2);
  fail_unless_equals_int (fb->n_received, 2);
  rtpcc_twcc_free (fb);

  /* libwebrtc pads the FCI to 32 bits with the P bit and a count of 1..3
   * in the last byte (RFC 3550 wants a multiple of 4): taken */
  {
    RtpccTwccArrival b[] = { {1, RTPCC_SEC (1)} };
    n = write_one (buf, sizeof (buf), 1, 2, 0, b, 1);
    fail_unless_equals_int (n, 24);
    buf[0] |= 0x20;
    buf[23] = 1;                /* 23 bytes of content + a 1-byte count */
    fb = parse_ok (buf, n);
    fail_unless_equals_int (fb->n_received, 1);
    rtpcc_twcc_free (fb);
    /* ... and by the compound validator the sender runs first */
    {
      RtpccRtcpIter it;
      fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
    }
    buf[23] = 2;                /* eats the delta */
    fail_if (rtpcc_twcc_parse (buf, n, NULL));
    buf[23] = 0;
    fail_if (rtpcc_twcc_parse (buf, n, NULL));
  }
}

GST_END_TEST;

/* ---- rounding, splitting ---------------------------------------------- */

GST_START_TEST (test_twcc_rounding)
{
  RtpccTime b = 100 * REF;
  RtpccTwccArrival a[] = {
    {1, b}, {2, b + TICK / 2 - 1}, {3, b + TICK / 2}, {4, b + 3 * TICK / 2 - 1},
    {5, b + 3 * TICK / 2},
  };
  gint16 want[] = { 0, 0, 1, 0, 1 };
  guint8 buf[64];
  gsize n = write_one (buf, sizeof (buf), 1, 2, 0, a, 5);
  RtpccTwcc *fb = parse_ok (buf, n);

  fail_unless_equals_int (fb->ref_time, 100);
  for (guint i = 0; i < 5; i++)
    fail_unless_equals_int (fb->status[i].delta, want[i]);
  rtpcc_twcc_free (fb);

  /* the first delta from the reference: 255.5 ticks rounds to 256 (large),
   * just below to 255 (small) */
  {
    RtpccTwccArrival c = { 9, b + 255 * TICK + TICK / 2 };
    n = write_one (buf, sizeof (buf), 1, 2, 0, &c, 1);
    fb = parse_ok (buf, n);
    fail_unless_equals_int (fb->ref_time, 100);
    fail_unless_equals_int (fb->status[0].symbol, RTPCC_TWCC_LARGE_DELTA);
    fail_unless_equals_int (fb->status[0].delta, 256);
    rtpcc_twcc_free (fb);
    c.arrival--;
    n = write_one (buf, sizeof (buf), 1, 2, 0, &c, 1);
    fb = parse_ok (buf, n);
    fail_unless_equals_int (fb->status[0].symbol, RTPCC_TWCC_SMALL_DELTA);
    fail_unless_equals_int (fb->status[0].delta, 255);
    rtpcc_twcc_free (fb);
  }

  /* no drift: 1000 packets 100 µs apart (0.4 tick each: rounding every
   * delta on its own would report them all at once) */
  {
    RtpccTwccArrival *c = g_new (RtpccTwccArrival, 1000);
    guint8 *big = g_malloc (4096);
    RtpccTime t0 = RTPCC_SEC (7) + 12345;
    RtpccTime base = floor_div (t0, REF) * REF;

    for (guint i = 0; i < 1000; i++) {
      c[i].seq = i;
      c[i].arrival = t0 + i * RTPCC_USEC (100);
    }
    n = write_one (big, 4096, 1, 2, 0, c, 1000);
    fb = parse_ok (big, n);
    for (guint i = 0; i < 1000; i++) {
      RtpccTime got = base + fb->status[i].offset;
      CHECK (got == rounded_from (base, c[i].arrival), "%u", i);
      CHECK (ABS (got - c[i].arrival) <= TICK / 2, "%u", i);
    }
    rtpcc_twcc_free (fb);
    g_free (big);
    g_free (c);
  }

  /* negative times: reference floor(−1 ns / 64 ms) = −1 = 0xFFFFFF */
  {
    RtpccTwccArrival c[] = { {1, -1}, {2, -REF} };
    fail_unless_equals_int (rtpcc_twcc_ref_time_from_time (-1), 0xFFFFFF);
    fail_unless_equals_int (rtpcc_twcc_ref_time_from_time (-REF), 0xFFFFFF);
    fail_unless_equals_int (rtpcc_twcc_ref_time_from_time (-REF - 1),
        0xFFFFFE);
    fail_unless_equals_int (rtpcc_twcc_ref_time_from_time (REF_WRAP_TIME), 0);
    n = write_one (buf, sizeof (buf), 1, 2, 0, c, 2);
    fb = parse_ok (buf, n);
    fail_unless_equals_int (fb->ref_time, 0xFFFFFF);
    fail_unless_equals_int (rtpcc_twcc_ref_time_signed (fb->ref_time), -1);
    /* −1 ns is 256 ticks after −64 ms (rounded), then back 256 ticks */
    fail_unless_equals_int (fb->status[0].delta, 256);
    fail_unless_equals_int (fb->status[1].delta, -256);
    fail_unless_equals_int64 (fb->status[1].offset, 0);
    rtpcc_twcc_free (fb);
  }
  fail_unless_equals_int (rtpcc_twcc_ref_time_signed (0x7FFFFF), 0x7FFFFF);
  fail_unless_equals_int (rtpcc_twcc_ref_time_signed (0x800000), -0x800000);
  fail_unless_equals_int (rtpcc_twcc_ref_time_signed (0x1000005), 5);
}

GST_END_TEST;

GST_START_TEST (test_twcc_split)
{
  guint8 *buf = g_malloc (300000);
  RtpccTime t = RTPCC_SEC (10);
  guint used;
  gsize n;
  RtpccTwcc *fb;

  /* 32767 ticks (8191.75 ms) between two arrivals fit int16 */
  {
    RtpccTwccArrival a[] = { {1, t}, {2, t + 32767 * TICK} };
    n = write_one (buf, 300000, 1, 2, 0, a, 2);
    fb = parse_ok (buf, n);
    fail_unless_equals_int (fb->status[1].delta, 32767);
    rtpcc_twcc_free (fb);
  }
  /* 32768 ticks do not: the second goes into the next packet */
  {
    RtpccTwccArrival a[] = { {1, t}, {2, t + 32768 * TICK}, {3, t + RTPCC_SEC (9)}
    };
    n = rtpcc_twcc_write (buf, 300000, 1, 2, 0, a, 3, &used);
    fail_unless_equals_int (used, 1);
    fail_unless_equals_int (n, 24);
    n = rtpcc_twcc_write (buf, 300000, 1, 2, 1, a + 1, 2, &used);
    fail_unless_equals_int (used, 2);
    fb = parse_ok (buf, n);
    fail_unless_equals_int (fb->base_seq, 2);
    fail_unless_equals_int (fb->fb_count, 1);
    rtpcc_twcc_free (fb);
  }
  /* backwards: −32768 ticks fit, −32769 do not */
  {
    RtpccTime t0 = 156 * REF + RTPCC_MSEC (16);       /* 64 ticks after ref */
    RtpccTwccArrival a[] = { {1, t0}, {2, t0 - 32768 * TICK} };
    n = write_one (buf, 300000, 1, 2, 0, a, 2);
    fb = parse_ok (buf, n);
    fail_unless_equals_int (fb->status[1].delta, -32768);
    fail_unless_equals_int64 (fb->status[1].offset, (64 - 32768) * TICK);
    rtpcc_twcc_free (fb);
    a[1].arrival -= TICK;
    fail_unless_equals_int (rtpcc_twcc_write (buf, 300000, 1, 2, 0, a, 2,
            &used), 24);
    fail_unless_equals_int (used, 1);
  }
  /* the status count: 70000 received in a row → 65535 + 4465 */
  {
    RtpccTwccArrival *a = g_new (RtpccTwccArrival, 70000);
    for (guint i = 0; i < 70000; i++) {
      a[i].seq = 1000 + i;
      a[i].arrival = t;
    }
    n = rtpcc_twcc_write (buf, 300000, 1, 2, 0, a, 70000, &used);
    fail_unless_equals_int (used, 65535);
    /* 9 run chunks (8 × 8191 + 7), 65535 one-byte deltas */
    fail_unless_equals_int (n, (20 + 18 + 65535 + 3) & ~3);
    fb = parse_ok (buf, n);
    fail_unless_equals_int (fb->status_count, 65535);
    fail_unless_equals_int (fb->status[65534].seq, (guint16) (1000 + 65534));
    rtpcc_twcc_free (fb);
    n = rtpcc_twcc_write (buf, 300000, 1, 2, 1, a + used, 70000 - used,
        &used);
    fail_unless_equals_int (used, 4465);
    /* a gap that would pass 65535 statuses ends the packet too */
    a[1].seq = a[0].seq + 65535;
    n = rtpcc_twcc_write (buf, 300000, 1, 2, 0, a, 2, &used);
    fail_unless_equals_int (used, 1);
    a[1].seq = a[0].seq + 65534;
    n = rtpcc_twcc_write (buf, 300000, 1, 2, 0, a, 2, &used);
    fail_unless_equals_int (used, 2);
    fb = parse_ok (buf, n);
    fail_unless_equals_int (fb->status_count, 65535);
    fail_unless_equals_int (fb->n_received, 2);
    rtpcc_twcc_free (fb);
    /* the worst case, 65535 two-byte deltas, stays far below the 16-bit
     * RTCP length (262144 bytes) */
    for (guint i = 0; i < 70000; i++)
      a[i].arrival = t + (i % 2) * RTPCC_MSEC (100);
    n = rtpcc_twcc_write (buf, 300000, 1, 2, 0, a + 2, 69998, &used);
    fail_unless_equals_int (used, 65535);
    fail_unless (n < 150000);
    rtpcc_twcc_free (parse_ok (buf, n));
    g_free (a);
  }
  /* the size limit: 200 received, 100 bytes → 78 per packet */
  {
    RtpccTwccArrival a[200];
    for (guint i = 0; i < 200; i++) {
      a[i].seq = i;
      a[i].arrival = t + i * TICK;
    }
    n = rtpcc_twcc_write (buf, 100, 1, 2, 0, a, 200, &used);
    fail_unless_equals_int (n, 100);
    fail_unless_equals_int (used, 78);
  }
  /* entries not in increasing order end the packet */
  {
    RtpccTwccArrival a[] = { {5, t}, {6, t}, {6, t}, {4, t} };
    fail_unless (rtpcc_twcc_write (buf, 100, 1, 2, 0, a, 4, &used) > 0);
    fail_unless_equals_int (used, 2);
    fail_unless (rtpcc_twcc_write (buf, 100, 1, 2, 0, a + 2, 2, &used) > 0);
    fail_unless_equals_int (used, 1);
  }
  /* nothing to write, or no room */
  {
    RtpccTwccArrival a[] = { {5, t} };
    fail_unless_equals_int (rtpcc_twcc_write (buf, 100, 1, 2, 0, a, 0, &used),
        0);
    fail_unless_equals_int (rtpcc_twcc_write (NULL, 100, 1, 2, 0, a, 1, &used),
        0);
    fail_unless_equals_int (rtpcc_twcc_write (buf, 23, 1, 2, 0, a, 1, &used),
        0);
    /* a lone loss fits in 24 bytes; its reference time is 0 */
    a[0].arrival = NONE;
    fail_unless_equals_int (rtpcc_twcc_write (buf, 24, 1, 2, 0, a, 1, &used),
        24);
    fb = parse_ok (buf, 24);
    fail_unless_equals_int (fb->ref_time, 0);
    fail_unless_equals_int (fb->n_received, 0);
    rtpcc_twcc_free (fb);
    /* absurd times are refused rather than overflowed */
    a[0].arrival = G_MAXINT64;
    fail_unless_equals_int (rtpcc_twcc_write (buf, 100, 1, 2, 0, a, 1, &used),
        0);
  }
  g_free (buf);
}

GST_END_TEST;

/* Writes @a (@n entries) into as many packets as @max allows and checks
 * every one against the input: coverage, statuses, rounding. */
static guint
write_and_check_all (const RtpccTwccArrival * a, guint n, gsize max,
    guint8 fb0)
{
  guint8 *buf = g_malloc (max);
  guint done = 0, packets = 0;

  while (done < n) {
    guint used = 0, k = done;
    gsize len = rtpcc_twcc_write (buf, max, 0x5EED, 0x3EDA, (guint8) (fb0 +
            packets), a + done, n - done, &used);
    RtpccTwcc *fb;
    RtpccTime base = 0;
    gboolean have_base = FALSE;

    CHECK (len > 0 && len <= max && len % 4 == 0, "len %" G_GSIZE_FORMAT,
        len);
    CHECK (used >= 1 && used <= n - done, "used %u", used);
    fb = parse_ok (buf, len);
    CHECK (fb->fb_count == (guint8) (fb0 + packets), "fb count");
    CHECK (fb->base_seq == (guint16) a[done].seq, "base");
    CHECK (fb->status_count == a[done + used - 1].seq - a[done].seq + 1,
        "count");
    for (guint i = 0; i < fb->status_count; i++) {
      guint64 seq = a[done].seq + i;
      const RtpccTwccStatus *st = &fb->status[i];
      gboolean recv = FALSE;

      CHECK (st->seq == (guint16) seq, "seq");
      if (a[k].seq == seq) {
        recv = a[k].arrival != NONE;
        if (recv) {
          RtpccTime got;
          if (!have_base) {
            base = floor_div (a[k].arrival, REF) * REF;
            CHECK (fb->ref_time ==
                rtpcc_twcc_ref_time_from_time (a[k].arrival), "ref");
            have_base = TRUE;
          }
          got = base + st->offset;
          CHECK (got == rounded_from (base, a[k].arrival), "seq %u",
              st->seq);
          CHECK (ABS (got - a[k].arrival) <= TICK / 2, "seq %u", st->seq);
        }
        k++;
      }
      CHECK (st->received == recv, "seq %u", st->seq);
    }
    CHECK (k == done + used, "k %u", k);
    rtpcc_twcc_free (fb);
    done += used;
    packets++;
  }
  g_free (buf);
  return packets;
}

GST_START_TEST (test_twcc_random_round_trip)
{
  RtpccRng rng;
  guint max_n = 3000;
  RtpccTwccArrival *a = g_new (RtpccTwccArrival, max_n);
  guint total_packets = 0;

  rtpcc_rng_init (&rng, 15);
  for (int iter = 0; iter < 400; iter++) {
    guint n = 1 + rtpcc_rng_below (&rng, iter % 10 == 0 ? max_n : 60);
    gdouble p_loss = rtpcc_rng_uniform (&rng, 0, 0.3);
    guint64 seq = rtpcc_rng_next_u64 (&rng) % 200000;
    RtpccTime clock = (RtpccTime) rtpcc_rng_below (&rng,
        RTPCC_SEC (2000000));
    gsize max;

    if (iter % 7 == 0)
      clock = -clock;           /* negative times are fine too */
    for (guint i = 0; i < n; i++) {
      guint r = rtpcc_rng_below (&rng, 100);

      seq += r < 90 ? 1 : r < 98 ? 2 + rtpcc_rng_below (&rng, 49) :
          2 + rtpcc_rng_below (&rng, 2000);
      r = rtpcc_rng_below (&rng, 100);
      if (r < 60)
        clock += (RtpccTime) rtpcc_rng_exponential (&rng, RTPCC_MSEC (1));
      else if (r < 90)          /* on and around the 125 µs rounding edges */
        clock += rtpcc_rng_below (&rng, 20) * (TICK / 2) - 1 +
            rtpcc_rng_below (&rng, 3);
      else if (r < 95)
        clock += 0;
      else if (r < 99)          /* 60 ms .. 10 s: large deltas, splits */
        clock += RTPCC_MSEC (60) + rtpcc_rng_below (&rng, RTPCC_SEC (10));
      else
        clock += RTPCC_SEC (9);
      a[i].seq = seq;
      a[i].arrival = clock;
      /* reordering: arrived up to 30 ms before its predecessor */
      if (rtpcc_rng_bernoulli (&rng, 0.05))
        a[i].arrival -= rtpcc_rng_below (&rng, RTPCC_MSEC (30));
      if (rtpcc_rng_bernoulli (&rng, p_loss))
        a[i].arrival = NONE;
    }
    max = iter % 3 == 0 ? 300000 : 24 + 4 * rtpcc_rng_below (&rng, 300);
    total_packets += write_and_check_all (a, n, max,
        (guint8) rtpcc_rng_below (&rng, 256));
  }
  fail_unless (total_packets > 400);
  g_free (a);
}

GST_END_TEST;

/* ---- malformed input ---------------------------------------------------- */

static void
expect_twcc_error (const guint8 * p, gsize len, const gchar * what)
{
  GError *err = NULL;
  RtpccTwcc *fb = rtpcc_twcc_parse (p, len, &err);

  fail_unless (fb == NULL, "accepted: %s", what);
  fail_unless (err != NULL, "no error: %s", what);
  fail_unless (g_error_matches (err, RTPCC_ERROR, RTPCC_ERROR_PARSE));
  fail_unless (g_str_has_prefix (err->message, "TWCC: "), "%s", err->message);
  g_error_free (err);
}

GST_START_TEST (test_twcc_malformed)
{
  /* the 2-bit vector sample: 4 statuses, 5 delta bytes, 1 padding byte */
  static const guint8 good[] = {
    0x8F, 0xCD, 0x00, 0x06, 0xAA, 0xAA, 0xAA, 0xAA, 0xBB, 0xBB, 0xBB, 0xBB,
    0xFF, 0xFE, 0x00, 0x04, 0x12, 0x34, 0x56, 0xFF,
    0xD2, 0x80, 0x08, 0x01, 0x2C, 0xFF, 0xFC, 0x00,
  };
  guint8 p[64];
  gsize n = sizeof (good);
  RtpccTwcc *fb;

  rtpcc_twcc_free (parse_ok (good, n));
  expect_twcc_error (NULL, 0, "NULL");
  for (gsize cut = 0; cut < n; cut++)
    expect_twcc_error (good, cut, "truncated");

#define MUTATE(stmt, what)                        \
  G_STMT_START {                                  \
    memcpy (p, good, n);                          \
    stmt;                                         \
    expect_twcc_error (p, n, what);               \
  } G_STMT_END

  MUTATE (p[0] = 0x4F, "version 1");
  MUTATE (p[1] = 206, "PSFB (REMB's PT)");
  MUTATE (p[1] = 200, "SR");
  MUTATE (p[0] = 0x8B, "FMT 11 (CCFB)");
  MUTATE (p[0] = 0x81, "FMT 1 (NACK)");
  MUTATE (p[3] = 7, "length too long");
  MUTATE (p[3] = 5, "length too short");
  MUTATE (p[15] = 0, "status count 0");
  /* one vector holds 7: count 8 needs a second chunk, and the deltas
   * (08 01) are read as a chunk, then what is left is too short */
  MUTATE (p[15] = 8, "status count past the chunks");
  MUTATE (p[15] = 200, "status count far past the chunks");
  {
    static const guint8 short_chunks[] = {
      0x8F, 0xCD, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2,
      0x00, 0x01, 0x00, 0x08, 0x00, 0x00, 0x01, 0x00,
      0xC0, 0x00, 0x00, 0x00,   /* 7 statuses, then a run of 0 */
    };
    expect_twcc_error (short_chunks, sizeof (short_chunks),
        "chunks end before the status count");
  }
  MUTATE (p[21] = 0xC0, "reserved symbol in a 2-bit vector");
  MUTATE (p[20] = 0x60; p[21] = 0x04, "reserved symbol in a run");
  /* 2-bit vector 10 10 10 10: 4 large deltas need 8 bytes, 6 are there */
  MUTATE (p[20] = 0xEA; p[21] = 0x80, "deltas truncated");
  MUTATE (p[0] |= 0x20; p[27] = 3, "padding 3 eats a delta");
  MUTATE (p[0] |= 0x20; p[27] = 0, "padding 0");
  MUTATE (p[0] |= 0x20; p[27] = 12, "padding eats the header");
  MUTATE (p[0] |= 0x20; p[27] = 4, "padding eats the deltas");

  /* 4 stray bytes after the deltas */
  memcpy (p, good, n);
  memset (p + n, 0, 4);
  p[3] = 7;
  expect_twcc_error (p, n + 4, "4 bytes left over");

  /* liberal where nothing is lost: junk in the zero padding, a reserved
   * symbol in the unused tail of the last vector, a run longer than the
   * count, and a zero-length run before the real chunk */
  memcpy (p, good, n);
  p[27] = 0x55;
  fb = parse_ok (p, n);
  rtpcc_twcc_free (fb);
  memcpy (p, good, n);
  p[21] = 0x83;                 /* slot 7 (unused) = 3 */
  fb = parse_ok (p, n);
  fail_unless_equals_int (fb->status[3].delta, -4);
  rtpcc_twcc_free (fb);
  {
    static const guint8 run[] = {
      0x8F, 0xCD, 0x00, 0x06, 0, 0, 0, 1, 0, 0, 0, 2,
      0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x01, 0x00,
      0x00, 0x00,               /* run of 0: describes nothing */
      0x20, 0x09,               /* 9 × small; only 2 counted */
      0x01, 0x02, 0x00, 0x00,
    };
    fb = parse_ok (run, sizeof (run));
    fail_unless_equals_int (fb->n_received, 2);
    fail_unless_equals_int64 (fb->status[1].offset, 3 * TICK);
    rtpcc_twcc_free (fb);
  }
#undef MUTATE
}

GST_END_TEST;

/* ---- sender side: seq and reference-time unwrapping ------------------- */

GST_START_TEST (test_twcc_unwrap_seq)
{
  fail_unless (rtpcc_twcc_unwrap_seq (70000, 4464) == 70000);
  fail_unless (rtpcc_twcc_unwrap_seq (70000, 4465) == 4465);
  fail_unless (rtpcc_twcc_unwrap_seq (70000, 4463) == 69999);
  fail_unless (rtpcc_twcc_unwrap_seq (70000, 65535) == 65535);
  fail_unless (rtpcc_twcc_unwrap_seq (70000, 0) == 65536);
  fail_unless (rtpcc_twcc_unwrap_seq (65535, 65535) == 65535);
  fail_unless (rtpcc_twcc_unwrap_seq (65536 * 3 + 2, 65534) ==
      65536 * 3 - 2);
}

GST_END_TEST;

/* One feedback packet about seq @seq arriving at @t (receiver clock). */
static RtpccTwcc *
single_fb (guint64 seq, RtpccTime t, guint8 fb_count)
{
  RtpccTwccArrival a = { seq, t };
  guint8 buf[32];
  gsize n = write_one (buf, sizeof (buf), 1, 2, fb_count, &a, 1);
  return parse_ok (buf, n);
}

GST_START_TEST (test_twcc_unwrapper_ref_wrap_and_restart)
{
  RtpccTwccUnwrapper *u = rtpcc_twcc_unwrapper_new ();
  /* the receiver's clock 12.4 days in, about to wrap the 24-bit
   * reference; the sender's clock elsewhere */
  RtpccTime rx0 = REF_WRAP_TIME - RTPCC_MSEC (300);
  RtpccTime tx_off = RTPCC_SEC (777);
  RtpccTime prev = NONE;
  RtpccTwccResult res;
  RtpccTwccMapInfo info;
  guint k;

  for (k = 0; k < 20; k++) {
    RtpccTime rx = rx0 + k * RTPCC_MSEC (50) + 1234;
    RtpccTwcc *fb = single_fb (1000 + k, rx, (guint8) (250 + k));

    fail_unless_equals_int (rtpcc_twcc_unwrapper_map (u, rx + tx_off +
            RTPCC_MSEC (20), fb, 1000 + k, &res, &info), 1);
    fail_unless (res.ext_seq == 1000 + k);
    fail_unless (res.received);
    fail_unless_equals_int (info.epoch, 0);
    fail_if (info.new_epoch);
    fail_unless_equals_int (info.feedback_gap, 0);
    /* the truth rounded to 250 µs (the 1234 ns round away), on both sides
     * of the wrap: the first reference is taken as unsigned, so this
     * receiver clock comes out unchanged */
    fail_unless_equals_int64 (res.arrival, rx - 1234);
    if (prev != NONE)
      fail_unless_equals_int64 (res.arrival - prev, RTPCC_MSEC (50));
    prev = res.arrival;
    if (k == 0)
      fail_unless (fb->ref_time == 0xFFFFFB);
    if (k == 19)
      fail_unless (fb->ref_time < 100);
    rtpcc_twcc_free (fb);
  }

  /* a receiver clock step 1.5 s beyond the sender's: under the 2 s
   * threshold, it passes as a change of delay (the arrival times stay the
   * receiver's, exactly) */
  {
    RtpccTime rx = rx0 + 20 * RTPCC_MSEC (50) + RTPCC_MSEC (1500) + 1234;
    RtpccTwcc *fb = single_fb (1020, rx, 14);

    rtpcc_twcc_unwrapper_map (u, rx0 + 20 * RTPCC_MSEC (50) + 1234 + tx_off +
        RTPCC_MSEC (20), fb, 1020, &res, &info);
    fail_if (info.new_epoch);
    fail_unless_equals_int64 (res.arrival, rx - 1234);
    prev = res.arrival;
    rtpcc_twcc_free (fb);
  }

  /* the receiver restarts on a clock 6 hours away, the sender's clock
   * moved on 1 s: a new epoch, carried on by the sender's clock (to within
   * the 64 ms quantisation of both reference times) */
  {
    RtpccTime rx = RTPCC_SEC (6 * 3600);
    RtpccTime last_rx = rx0 + 20 * RTPCC_MSEC (50) + 1234;
    RtpccTime tx = last_rx + tx_off + RTPCC_MSEC (20) + RTPCC_SEC (1);
    RtpccTwcc *fb = single_fb (2000, rx, 0);

    rtpcc_twcc_unwrapper_map (u, tx, fb, 2000, &res, &info);
    fail_unless (info.new_epoch);
    fail_unless_equals_int (info.epoch, 1);
    fail_unless (ABS (res.arrival - (prev + RTPCC_SEC (1))) <= 2 * REF,
        "restart: %" G_GINT64_FORMAT " ms after the last",
        (res.arrival - prev) / RTPCC_NSEC_PER_MSEC);
    prev = res.arrival;
    rtpcc_twcc_free (fb);

    /* and carries on normally in the new epoch, 40 ms later */
    fb = single_fb (2001, rx + RTPCC_MSEC (40), 1);
    rtpcc_twcc_unwrapper_map (u, tx + RTPCC_MSEC (40), fb, 2001, &res, &info);
    fail_if (info.new_epoch);
    fail_unless_equals_int (info.epoch, 1);
    fail_unless_equals_int64 (res.arrival - prev, RTPCC_MSEC (40));
    prev = res.arrival;
    rtpcc_twcc_free (fb);

    /* feedback packets 2..4 lost; 3 arrives late afterwards */
    fb = single_fb (2002, rx + RTPCC_MSEC (80), 5);
    rtpcc_twcc_unwrapper_map (u, tx + RTPCC_MSEC (80), fb, 2002, &res, &info);
    fail_unless_equals_int (info.feedback_gap, 3);
    fail_unless_equals_int64 (res.arrival - prev, RTPCC_MSEC (40));
    rtpcc_twcc_free (fb);
    fb = single_fb (2001, rx + RTPCC_MSEC (40), 3);
    rtpcc_twcc_unwrapper_map (u, tx + RTPCC_MSEC (90), fb, 2002, &res, &info);
    fail_unless_equals_int (info.feedback_gap, 0);
    fail_if (info.new_epoch);
    rtpcc_twcc_free (fb);
    fb = single_fb (2003, rx + RTPCC_MSEC (120), 6);
    rtpcc_twcc_unwrapper_map (u, tx + RTPCC_MSEC (120), fb, 2003, &res,
        &info);
    fail_unless_equals_int (info.feedback_gap, 0);
    fail_unless_equals_int64 (res.arrival - prev, RTPCC_MSEC (80));
    prev = res.arrival;
    rtpcc_twcc_free (fb);

    /* a week of silence on both clocks (beyond the ±6.2 days the 24 bits
     * can tell): nearest-value unwrapping alone would go 5.4 days back;
     * the sender's clock says 7 days forward */
    fb = single_fb (2004, rx + RTPCC_MSEC (120) + RTPCC_SEC (7 * 86400), 7);
    rtpcc_twcc_unwrapper_map (u, tx + RTPCC_MSEC (120) +
        RTPCC_SEC (7 * 86400), fb, 2004, &res, &info);
    fail_unless (info.new_epoch);
    fail_unless_equals_int (info.epoch, 2);
    fail_unless (ABS (res.arrival - prev - RTPCC_SEC (7 * 86400)) <= 2 * REF);
    rtpcc_twcc_free (fb);
  }

  /* a tighter threshold: a 1 s step is a restart; a feedback count far
   * behind (a restarted counter) is no gap, and counting resumes from it */
  {
    RtpccTwccUnwrapper *v = rtpcc_twcc_unwrapper_new ();
    RtpccTwcc *fb;

    rtpcc_twcc_unwrapper_set_restart_threshold (v, RTPCC_MSEC (500));
    fb = single_fb (1, RTPCC_SEC (100), 100);
    rtpcc_twcc_unwrapper_map (v, RTPCC_SEC (5), fb, 1, &res, &info);
    rtpcc_twcc_free (fb);
    fb = single_fb (2, RTPCC_SEC (101) + RTPCC_MSEC (100), 101);
    rtpcc_twcc_unwrapper_map (v, RTPCC_SEC (5) + RTPCC_MSEC (100), fb, 2,
        &res, &info);
    fail_unless (info.new_epoch);
    fail_unless_equals_int (info.feedback_gap, 0);
    rtpcc_twcc_free (fb);
    fb = single_fb (3, RTPCC_SEC (101) + RTPCC_MSEC (200), 10);
    rtpcc_twcc_unwrapper_map (v, RTPCC_SEC (5) + RTPCC_MSEC (200), fb, 3,
        &res, &info);
    fail_if (info.new_epoch);
    fail_unless_equals_int (info.feedback_gap, 0);
    rtpcc_twcc_free (fb);
    fb = single_fb (4, RTPCC_SEC (101) + RTPCC_MSEC (300), 12);
    rtpcc_twcc_unwrapper_map (v, RTPCC_SEC (5) + RTPCC_MSEC (300), fb, 4,
        &res, &info);
    fail_unless_equals_int (info.feedback_gap, 1);
    fail_unless_equals_int (info.epoch, 1);
    rtpcc_twcc_free (fb);
    rtpcc_twcc_unwrapper_free (v);
  }

  /* feedback without a received packet leaves the reference alone */
  {
    RtpccTwccArrival a = { 3000, NONE };
    guint8 buf[32];
    gsize n = write_one (buf, sizeof (buf), 1, 2, 8, &a, 1);
    RtpccTwcc *fb = parse_ok (buf, n);
    rtpcc_twcc_unwrapper_map (u, 0, fb, 3000, &res, &info);
    fail_if (res.received);
    fail_unless (res.arrival == NONE);
    fail_if (info.new_epoch);
    rtpcc_twcc_free (fb);
  }
  rtpcc_twcc_unwrapper_free (u);
}

GST_END_TEST;

/* ---- receiver side: the recorder --------------------------------------- */

/* Parses every packet of a recorder write (back to back in @buf). */
static GPtrArray *
parse_all_max (const guint8 * buf, gsize n, guint n_packets, gsize max_len)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      rtpcc_twcc_free);
  RtpccRtcpIter it;
  RtpccRtcpPacket pkt;

  fail_unless (rtpcc_rtcp_iter_init (&it, buf, n));
  fail_unless (it.reduced_size);
  while (rtpcc_rtcp_iter_next (&it, &pkt)) {
    CHECK (pkt.pt == RTPCC_RTCP_RTPFB, "pt %u", pkt.pt);
    CHECK (pkt.count == RTPCC_TWCC_FMT, "fmt %u", pkt.count);
    CHECK (max_len == 0 || pkt.len <= max_len, "%" G_GSIZE_FORMAT, pkt.len);
    g_ptr_array_add (out, parse_ok (pkt.data, pkt.len));
  }
  fail_unless_equals_int (out->len, n_packets);
  return out;
}

static GPtrArray *
parse_all (const guint8 * buf, gsize n, guint n_packets)
{
  return parse_all_max (buf, n, n_packets, 0);
}

static void
check_fb_pattern (const RtpccTwcc * fb, guint16 base, const gchar * pattern)
{
  gsize len = strlen (pattern);

  fail_unless_equals_int (fb->base_seq, base);
  fail_unless_equals_int (fb->status_count, len);
  for (gsize i = 0; i < len; i++)
    fail_unless_equals_int (fb->status[i].received, pattern[i] == 'x');
}

GST_START_TEST (test_twcc_recorder_basic_wrap)
{
  RtpccTwccRecorder *rec = rtpcc_twcc_recorder_new (256);
  RtpccTwccUnwrapper *u = rtpcc_twcc_unwrapper_new ();
  RtpccTime t0 = RTPCC_SEC (50) + 777;
  RtpccTwccResult res[16];
  RtpccTwccRecorderStats st;
  guint8 buf[1500];
  guint np;
  gsize n;
  GPtrArray *fbs;
  RtpccTwcc *fb;

  fail_if (rtpcc_twcc_recorder_has_pending (rec));
  fail_unless_equals_int (rtpcc_twcc_recorder_write (rec, t0, 1, 2, buf,
          sizeof (buf), &np), 0);
  fail_unless_equals_int (np, 0);

  /* 65530..5 across the wrap, 65533 and 2 lost */
  for (guint i = 0; i < 12; i++) {
    guint16 seq = (guint16) (65530 + i);
    if (seq == 65533 || seq == 2)
      continue;
    fail_unless (rtpcc_twcc_recorder_add (rec, seq, t0 + i * RTPCC_USEC (
                1100)));
  }
  fail_unless (rtpcc_twcc_recorder_has_pending (rec));
  n = rtpcc_twcc_recorder_write (rec, t0 + RTPCC_MSEC (20), 0xA, 0xB, buf,
      sizeof (buf), &np);
  fail_unless_equals_int (np, 1);
  fbs = parse_all (buf, n, 1);
  fb = fbs->pdata[0];
  check_fb_pattern (fb, 65530, "xxx.xxxx.xxx");
  fail_unless (fb->sender_ssrc == 0xA && fb->media_ssrc == 0xB);
  fail_unless_equals_int (fb->fb_count, 0);
  /* the sender's view: its seqs 65530 + 65536 … */
  rtpcc_twcc_unwrapper_map (u, 0, fb, 65536 + 65530 + 11, res, NULL);
  for (guint i = 0; i < 12; i++) {
    fail_unless (res[i].ext_seq == 65536 + 65530 + i);
    if (res[i].received)
      fail_unless (ABS (res[i].arrival - (t0 + i * RTPCC_USEC (1100))) <=
          TICK / 2);
  }
  g_ptr_array_unref (fbs);

  /* nothing new: nothing written */
  fail_if (rtpcc_twcc_recorder_has_pending (rec));
  fail_unless_equals_int (rtpcc_twcc_recorder_write (rec, t0 +
          RTPCC_MSEC (40), 0xA, 0xB, buf, sizeof (buf), NULL), 0);

  /* next: continues after 5, fb count 1 */
  fail_unless (rtpcc_twcc_recorder_add (rec, 7, t0 + RTPCC_MSEC (50)));
  n = rtpcc_twcc_recorder_write (rec, t0 + RTPCC_MSEC (60), 0xA, 0xB, buf,
      sizeof (buf), &np);
  fbs = parse_all (buf, n, 1);
  check_fb_pattern (fbs->pdata[0], 6, ".x");
  fail_unless_equals_int (((RtpccTwcc *) fbs->pdata[0])->fb_count, 1);
  g_ptr_array_unref (fbs);

  rtpcc_twcc_recorder_get_stats (rec, &st);
  fail_unless_equals_int (st.received, 11);
  fail_unless_equals_int (st.duplicates, 0);
  fail_unless_equals_int (st.feedback_packets, 2);
  fail_unless_equals_int (st.next_fb_count, 2);
  rtpcc_twcc_unwrapper_free (u);
  rtpcc_twcc_recorder_free (rec);
}

GST_END_TEST;

GST_START_TEST (test_twcc_recorder_reorder_and_duplicates)
{
  RtpccTwccRecorder *rec = rtpcc_twcc_recorder_new (64);
  RtpccTime t = RTPCC_SEC (3);
  RtpccTwccRecorderStats st;
  guint8 buf[1500];
  GPtrArray *fbs;
  RtpccTwcc *fb;
  gsize n;
  guint np;

  /* duplicates: first arrival wins, one status each (the bogus-FCI bug of
   * gstreamer MR !4328 was two entries for one seq) */
  fail_unless (rtpcc_twcc_recorder_add (rec, 10, t));
  fail_unless (rtpcc_twcc_recorder_add (rec, 11, t + RTPCC_MSEC (1)));
  fail_if (rtpcc_twcc_recorder_add (rec, 11, t + RTPCC_MSEC (5)));
  fail_unless (rtpcc_twcc_recorder_add (rec, 13, t + RTPCC_MSEC (2)));
  fail_if (rtpcc_twcc_recorder_add (rec, 10, t + RTPCC_MSEC (6)));
  fail_if (rtpcc_twcc_recorder_add (rec, 13, t - RTPCC_MSEC (6)));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_MSEC (10), 1, 2, buf,
      sizeof (buf), &np);
  fbs = parse_all (buf, n, 1);
  fb = fbs->pdata[0];
  check_fb_pattern (fb, 10, "xx.x");
  fail_unless_equals_int64 (fb->status[1].offset - fb->status[0].offset,
      RTPCC_MSEC (1));
  fail_unless_equals_int64 (fb->status[3].offset - fb->status[0].offset,
      RTPCC_MSEC (2));
  g_ptr_array_unref (fbs);

  /* 12 was only late: the next feedback goes back to it (the base
   * decreases) and repeats 13; 14 is new. A duplicate of something already
   * reported received does not reach back. */
  fail_unless (rtpcc_twcc_recorder_add (rec, 12, t + RTPCC_MSEC (15)));
  fail_if (rtpcc_twcc_recorder_add (rec, 10, t + RTPCC_MSEC (16)));
  fail_unless (rtpcc_twcc_recorder_add (rec, 14, t + RTPCC_MSEC (16)));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_MSEC (20), 1, 2, buf,
      sizeof (buf), &np);
  fbs = parse_all (buf, n, 1);
  fb = fbs->pdata[0];
  check_fb_pattern (fb, 12, "xxx");
  /* 13 arrived before 12: a negative delta */
  fail_unless_equals_int (fb->status[1].delta, -13 * 4);
  g_ptr_array_unref (fbs);
  fail_if (rtpcc_twcc_recorder_has_pending (rec));
  fail_if (rtpcc_twcc_recorder_add (rec, 13, t + RTPCC_MSEC (21)));
  fail_if (rtpcc_twcc_recorder_has_pending (rec));

  /* 15 lost, 16 arrives; 15 turns up 2 s later, past the late window:
   * recorded but not reported again */
  fail_unless (rtpcc_twcc_recorder_add (rec, 16, t + RTPCC_MSEC (30)));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_MSEC (40), 1, 2, buf,
      sizeof (buf), &np);
  fbs = parse_all (buf, n, 1);
  check_fb_pattern (fbs->pdata[0], 15, ".x");
  g_ptr_array_unref (fbs);
  fail_unless (rtpcc_twcc_recorder_add (rec, 15, t + RTPCC_SEC (2)));
  fail_if (rtpcc_twcc_recorder_has_pending (rec));
  /* …unless the window is widened */
  rtpcc_twcc_recorder_set_late_window (rec, RTPCC_SEC (10));
  fail_unless (rtpcc_twcc_recorder_add (rec, 17, t + RTPCC_SEC (2)));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_SEC (2), 1, 2, buf,
      sizeof (buf), &np);
  fbs = parse_all (buf, n, 1);
  check_fb_pattern (fbs->pdata[0], 17, "x");
  g_ptr_array_unref (fbs);

  /* before the first seq ever recorded (never covered): reached back to */
  fail_unless (rtpcc_twcc_recorder_add (rec, 9, t + RTPCC_SEC (2)));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_SEC (2), 1, 2, buf,
      sizeof (buf), &np);
  fbs = parse_all (buf, n, 1);
  check_fb_pattern (fbs->pdata[0], 9, "xxxxxxxxx");
  g_ptr_array_unref (fbs);

  /* too old for the ring (64): dropped */
  fail_unless (rtpcc_twcc_recorder_add (rec, 200, t + RTPCC_SEC (3)));
  fail_if (rtpcc_twcc_recorder_add (rec, 136, t + RTPCC_SEC (3)));
  fail_unless (rtpcc_twcc_recorder_add (rec, 137, t + RTPCC_SEC (3)));
  /* no time, or an absurd one: refused */
  fail_if (rtpcc_twcc_recorder_add (rec, 201, NONE));
  fail_if (rtpcc_twcc_recorder_add (rec, 201, G_MAXINT64));

  rtpcc_twcc_recorder_get_stats (rec, &st);
  fail_unless_equals_int (st.duplicates, 5);
  fail_unless_equals_int (st.dropped, 1);
  rtpcc_twcc_recorder_free (rec);
}

GST_END_TEST;

GST_START_TEST (test_twcc_recorder_split_restart_count)
{
  RtpccTwccRecorder *rec = rtpcc_twcc_recorder_new (4096);
  RtpccTime t = RTPCC_SEC (1);
  guint8 buf[4096];
  GPtrArray *fbs;
  guint np, next = 100, fbc = 0;
  gsize n;

  /* 300 packets alternating 0 and 100 ms apart (2-byte deltas) in 64-byte
   * feedback packets */
  rtpcc_twcc_recorder_set_max_packet_size (rec, 64);
  for (guint i = 0; i < 300; i++)
    rtpcc_twcc_recorder_add (rec, (guint16) (100 + i), t + (i / 2) *
        RTPCC_MSEC (100));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_SEC (20), 1, 2, buf,
      sizeof (buf), &np);
  fail_unless (np > 10);
  fbs = parse_all_max (buf, n, np, 64);
  for (guint i = 0; i < fbs->len; i++) {
    RtpccTwcc *fb = fbs->pdata[i];
    fail_unless_equals_int (fb->base_seq, next);
    fail_unless_equals_int (fb->fb_count, fbc);
    next += fb->status_count;
    fbc++;
  }
  fail_unless_equals_int (next, 400);
  g_ptr_array_unref (fbs);

  /* a buffer too small for all of it: the rest waits for the next write */
  rtpcc_twcc_recorder_set_max_packet_size (rec, 1200);
  for (guint i = 300; i < 600; i++)
    rtpcc_twcc_recorder_add (rec, (guint16) (100 + i), t + (i / 2) *
        RTPCC_MSEC (100));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_SEC (40), 1, 2, buf, 100,
      &np);
  fail_unless_equals_int (np, 1);
  fail_unless (n <= 100);
  fbs = parse_all (buf, n, 1);
  fail_unless_equals_int (((RtpccTwcc *) fbs->pdata[0])->base_seq, 400);
  next = 400 + ((RtpccTwcc *) fbs->pdata[0])->status_count;
  g_ptr_array_unref (fbs);
  fail_unless (rtpcc_twcc_recorder_has_pending (rec));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_SEC (40), 1, 2, buf,
      sizeof (buf), &np);
  fbs = parse_all (buf, n, np);
  fail_unless_equals_int (((RtpccTwcc *) fbs->pdata[0])->base_seq, next);
  g_ptr_array_unref (fbs);
  fail_if (rtpcc_twcc_recorder_has_pending (rec));

  /* the feedback packet count wraps at 8 bits */
  {
    RtpccTwccRecorderStats st;
    guint8 fc0;
    rtpcc_twcc_recorder_get_stats (rec, &st);
    fc0 = st.next_fb_count;
    for (guint i = 0; i < 300; i++) {
      RtpccTwcc *fb;
      rtpcc_twcc_recorder_add (rec, (guint16) (700 + i), t + RTPCC_SEC (50) +
          i * RTPCC_MSEC (1));
      n = rtpcc_twcc_recorder_write (rec, t + RTPCC_SEC (50) +
          i * RTPCC_MSEC (1), 1, 2, buf, sizeof (buf), &np);
      fail_unless_equals_int (np, 1);
      fb = parse_ok (buf, n);
      fail_unless_equals_int (fb->fb_count, (guint8) (fc0 + i));
      check_fb_pattern (fb, (guint16) (700 + i), "x");
      rtpcc_twcc_free (fb);
    }
  }

  rtpcc_twcc_recorder_free (rec);

  /* the sender restarts its transport seq at 5 after 20010: the first
   * far-behind packet is held as a straggler, the next one confirms */
  rec = rtpcc_twcc_recorder_new (0);
  for (guint16 s = 20000; s <= 20010; s++)
    fail_unless (rtpcc_twcc_recorder_add (rec, s, t + RTPCC_SEC (60)));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_SEC (60), 1, 2, buf,
      sizeof (buf), &np);
  fail_unless_equals_int (np, 1);
  fail_if (rtpcc_twcc_recorder_add (rec, 5, t + RTPCC_SEC (61)));
  fail_unless (rtpcc_twcc_recorder_add (rec, 6, t + RTPCC_SEC (61)));
  fail_unless (rtpcc_twcc_recorder_add (rec, 8, t + RTPCC_SEC (61)));
  n = rtpcc_twcc_recorder_write (rec, t + RTPCC_SEC (62), 1, 2, buf,
      sizeof (buf), &np);
  fbs = parse_all (buf, n, 1);
  check_fb_pattern (fbs->pdata[0], 6, "x.x");
  fail_unless_equals_int (((RtpccTwcc *) fbs->pdata[0])->fb_count, 1);
  g_ptr_array_unref (fbs);
  rtpcc_twcc_recorder_free (rec);
}

GST_END_TEST;

/* Receiver and sender end to end: a random stream with losses, reordering
 * and duplicates over several seq wraps; every packet's fate must reach
 * the sender exactly. */
GST_START_TEST (test_twcc_recorder_end_to_end)
{
  RtpccRng rng;
  const guint total = 200000;
  RtpccTime *truth = g_new (RtpccTime, total);  /* NONE: lost */
  RtpccTime *reported = g_new (RtpccTime, total);
  gboolean *seen = g_new0 (gboolean, total);
  RtpccTwccRecorder *rec = rtpcc_twcc_recorder_new (0);
  RtpccTwccUnwrapper *u = rtpcc_twcc_unwrapper_new ();
  RtpccTwccResult *res = g_new (RtpccTwccResult, 65536);
  guint8 *buf = g_malloc (16384);
  RtpccTime clock = RTPCC_SEC (100), next_fb = RTPCC_SEC (100);
  guint64 sent_base = 65536 * 7 + 60000;        /* the sender's ext seqs */
  guint held = G_MAXUINT;       /* a packet delayed behind later ones */
  RtpccTime held_at = 0;

  rtpcc_rng_init (&rng, 1515);
  for (guint i = 0; i < total; i++)
    reported[i] = NONE;

  for (guint i = 0; i <= total; i++) {
    /* feedback every 50 ms (and once at the end) */
    if (clock >= next_fb || i == total) {
      guint np;
      gsize n = rtpcc_twcc_recorder_write (rec, clock, 1, 2, buf, 16384, &np);
      GPtrArray *fbs = n ? parse_all (buf, n, np) : NULL;

      for (guint f = 0; fbs && f < fbs->len; f++) {
        RtpccTwcc *fb = fbs->pdata[f];
        guint m = rtpcc_twcc_unwrapper_map (u, clock + RTPCC_MSEC (10), fb,
            sent_base + i - 1, res, NULL);
        for (guint k = 0; k < m; k++) {
          guint idx = (guint) (res[k].ext_seq - sent_base);
          CHECK (idx < i, "reported seq %u not sent yet", idx);
          if (res[k].received) {
            CHECK (truth[idx] != NONE, "%u", idx);
            /* whichever packet reports it, the same rounded time */
            CHECK (reported[idx] == NONE || res[k].arrival == reported[idx],
                "%u", idx);
            reported[idx] = res[k].arrival;
            CHECK (ABS (res[k].arrival - truth[idx]) <= TICK / 2,
                "seq %u off by %" G_GINT64_FORMAT, idx,
                res[k].arrival - truth[idx]);
          } else {
            /* reported lost: not arrived (yet) */
            CHECK (!seen[idx], "seq %u reported lost", idx);
          }
        }
      }
      if (fbs)
        g_ptr_array_unref (fbs);
      next_fb = clock + RTPCC_MSEC (50);
    }
    if (i == total)
      break;

    clock += (RtpccTime) rtpcc_rng_exponential (&rng, RTPCC_USEC (400));
    truth[i] = NONE;
    if (rtpcc_rng_bernoulli (&rng, 0.05))
      continue;                 /* lost */
    if (held == G_MAXUINT && rtpcc_rng_bernoulli (&rng, 0.02)) {
      /* delayed: arrives after a few later packets */
      held = i;
      held_at = clock + rtpcc_rng_below (&rng, RTPCC_MSEC (30));
      truth[i] = held_at;
      continue;
    }
    truth[i] = clock;
    seen[i] = TRUE;
    CHECK (rtpcc_twcc_recorder_add (rec, (guint16) (sent_base + i), clock),
        "%u", i);
    if (rtpcc_rng_bernoulli (&rng, 0.02))      /* duplicated on the way */
      CHECK (!rtpcc_twcc_recorder_add (rec, (guint16) (sent_base + i),
              clock + 1000), "%u", i);
    if (held != G_MAXUINT && clock >= held_at) {
      truth[held] = clock;      /* it arrives now */
      seen[held] = TRUE;
      CHECK (rtpcc_twcc_recorder_add (rec, (guint16) (sent_base + held),
              clock), "%u", held);
      held = G_MAXUINT;
    }
  }

  /* every packet that arrived was reported received, at its time */
  for (guint i = 0; i < total; i++) {
    if (seen[i])
      CHECK (reported[i] != NONE, "seq %u never reported", i);
    else
      CHECK (reported[i] == NONE, "%u", i);
  }
  g_free (buf);
  g_free (res);
  g_free (seen);
  g_free (reported);
  g_free (truth);
  rtpcc_twcc_unwrapper_free (u);
  rtpcc_twcc_recorder_free (rec);
}

GST_END_TEST;

/* RTT from TWCC alone (no RR, as with a stock rtpbin receiver that sends
 * few): 30 ms each way, a packet every 5 ms, feedback every 100 ms. The
 * newest packet a feedback reports arrived at most one packet gap before
 * it, so the RTT is 60 ms + at most 5 ms, on a receiver clock far from
 * ours. */
GST_START_TEST (test_twcc_rtt_without_rr)
{
  RtpccSenderConfig cfg;
  RtpccSender *s;
  RtpccTwccRecorder *rec = rtpcc_twcc_recorder_new (0);
  const RtpccTime owd = RTPCC_MSEC (30), rx_offset = RTPCC_SEC (1000);
  RtpccTime t = RTPCC_SEC (1), next_fb = RTPCC_SEC (1) + RTPCC_MSEC (100);
  GQueue pending = G_QUEUE_INIT;        /* feedback in flight: GBytes */
  GQueue due = G_QUEUE_INIT;    /* their arrival times */
  guint8 buf[4096];
  const RtpccSenderStats *st;
  guint16 seq = 0;

  rtpcc_sender_config_init (&cfg);
  cfg.controller = "fixed";
  cfg.feedback = RTPCC_FEEDBACK_TWCC;
  cfg.pacing = FALSE;
  cfg.circuit_breaker = FALSE;
  cfg.cc.start_bitrate = cfg.cc.max_bitrate = 2000000;
  s = rtpcc_sender_new (&cfg, t, NULL);
  fail_unless (s != NULL);

  for (; t < RTPCC_SEC (3); t += RTPCC_MSEC (5)) {
    RtpccRtpInfo in = { 0 };
    RtpccWirePacket out;

    /* feedback that reached us by now */
    while (!g_queue_is_empty (&due)
        && GPOINTER_TO_SIZE (g_queue_peek_head (&due)) <= (gsize) t) {
      GBytes *b = g_queue_pop_head (&pending);
      gsize n;
      const guint8 *d = g_bytes_get_data (b, &n);
      g_queue_pop_head (&due);
      fail_unless (rtpcc_sender_receive_rtcp (s, t, d, n));
      g_bytes_unref (b);
    }
    in.ssrc = 0x1234;
    in.seq = seq++;
    in.rtp_ts = (guint32) (t / 11111);
    in.pt = 96;
    in.size = 1000;
    rtpcc_sender_enqueue (s, t, &in, GUINT_TO_POINTER (1));
    while (rtpcc_sender_dequeue (s, t, &out)) {
      fail_unless (out.info.has_twcc);
      rtpcc_twcc_recorder_add (rec, out.info.twcc_seq, t + owd + rx_offset);
    }
    if (t + owd >= next_fb) {
      guint np;
      gsize n = rtpcc_twcc_recorder_write (rec, next_fb + rx_offset, 7,
          0x1234, buf, sizeof (buf), &np);
      if (n) {
        g_queue_push_tail (&pending, g_bytes_new (buf, n));
        g_queue_push_tail (&due, GSIZE_TO_POINTER ((gsize) (next_fb + owd)));
      }
      next_fb += RTPCC_MSEC (100);
    }
  }
  st = rtpcc_sender_get_stats (s, t);
  fail_unless (st->srtt != RTPCC_TIME_NONE, "no RTT from TWCC");
  fail_unless (st->srtt >= RTPCC_MSEC (60) && st->srtt <= RTPCC_MSEC (66),
      "srtt %.1f ms", RTPCC_TIME_AS_MSEC (st->srtt));
  g_queue_clear_full (&pending, (GDestroyNotify) g_bytes_unref);
  g_queue_clear (&due);
  rtpcc_twcc_recorder_free (rec);
  rtpcc_sender_free (s);
}

GST_END_TEST;

/* ---- RTP header extensions --------------------------------------------- */

/* An RTP packet: @cc CSRCs, @payload_len bytes of payload, @pad bytes of
 * padding (P bit), no extension. */
static gsize
make_rtp (guint8 * buf, guint cc, gsize payload_len, guint8 pad)
{
  gsize n = 0;

  buf[n++] = 0x80 | (pad ? 0x20 : 0) | cc;
  buf[n++] = 0x80 | 96;         /* M, PT 96 */
  buf[n++] = 0x12;
  buf[n++] = 0x34;              /* seq 0x1234 */
  buf[n++] = 0xDE;
  buf[n++] = 0xAD;
  buf[n++] = 0xBE;
  buf[n++] = 0xEF;              /* timestamp */
  buf[n++] = 0xCA;
  buf[n++] = 0xFE;
  buf[n++] = 0xBA;
  buf[n++] = 0xBE;              /* SSRC */
  for (guint i = 0; i < cc; i++)
    for (guint j = 0; j < 4; j++)
      buf[n++] = (guint8) (0xC0 + i);
  for (gsize i = 0; i < payload_len; i++)
    buf[n++] = (guint8) ('a' + i % 26);
  for (guint i = 0; i < pad; i++)
    buf[n++] = i + 1 == pad ? pad : 0;
  return n;
}

GST_START_TEST (test_rtp_layout)
{
  guint8 p[128];
  gsize n = make_rtp (p, 2, 3, 4), hdr = 0;
  RtpccRtpLayout l;

  fail_unless (rtpcc_rtp_parse_layout (p, n, &l));
  fail_unless_equals_int (l.csrc_count, 2);
  fail_unless (l.marker);
  fail_unless_equals_int (l.pt, 96);
  fail_unless_equals_int (l.seq, 0x1234);
  fail_unless (l.timestamp == 0xDEADBEEF && l.ssrc == 0xCAFEBABE);
  fail_if (l.has_extension);
  fail_unless_equals_int (l.header_len, 20);
  fail_unless_equals_int (l.payload_len, 3);
  fail_unless_equals_int (l.padding_len, 4);
  fail_unless (rtpcc_rtp_header_size (p, n, &hdr));
  fail_unless_equals_int (hdr, 20);

  /* invalid: short, version, CSRCs past the end, padding 0 or too big,
   * an extension header or data past the end */
  fail_if (rtpcc_rtp_parse_layout (NULL, 0, &l));
  fail_if (rtpcc_rtp_parse_layout (p, 11, &l));
  fail_if (rtpcc_rtp_parse_layout (p, 19, &l));
  p[0] = 0x40 | 2;
  fail_if (rtpcc_rtp_parse_layout (p, n, &l));
  n = make_rtp (p, 0, 3, 4);
  p[n - 1] = 0;
  fail_if (rtpcc_rtp_parse_layout (p, n, &l));
  p[n - 1] = 7;
  fail_unless (rtpcc_rtp_parse_layout (p, n, &l));   /* payload + padding */
  fail_unless_equals_int (l.payload_len, 0);
  p[n - 1] = 8;
  fail_if (rtpcc_rtp_parse_layout (p, n, &l));
  n = make_rtp (p, 0, 0, 0);
  p[0] |= 0x10;
  fail_if (rtpcc_rtp_parse_layout (p, n, &l));
  memcpy (p + n, "\xBE\xDE\x00\x01\x10\xAA\x00", 7);
  fail_if (rtpcc_rtp_parse_layout (p, n + 7, &l));
  p[n + 7] = 0;
  fail_unless (rtpcc_rtp_parse_layout (p, n + 8, &l));
  fail_unless (l.has_extension && l.ext_profile == 0xBEDE);
  fail_unless_equals_int (l.ext_offset, 16);
  fail_unless_equals_int (l.ext_len, 4);
  fail_unless_equals_int (l.header_len, 20);
}

GST_END_TEST;

GST_START_TEST (test_rtp_ext_add_new_block)
{
  /* CC=2, payload "abc", 4 bytes of padding; add TWCC seq 0xBEEF as ID 5 */
  static const guint8 want[] = {
    0xB2, 0xE0, 0x12, 0x34,     /* V=2 P=1 X=1 CC=2 */
    0xDE, 0xAD, 0xBE, 0xEF, 0xCA, 0xFE, 0xBA, 0xBE,
    0xC0, 0xC0, 0xC0, 0xC0, 0xC1, 0xC1, 0xC1, 0xC1,
    0xBE, 0xDE, 0x00, 0x01,     /* one-byte form, 1 word */
    0x51, 0xBE, 0xEF, 0x00,     /* ID 5, L=1, seq; zero padding */
    'a', 'b', 'c', 0x00, 0x00, 0x00, 0x04,
  };
  guint8 p[64], out[64];
  gsize n = make_rtp (p, 2, 3, 4), m;
  guint16 seq = 0;
  RtpccRtpLayout l;

  m = rtpcc_rtp_add_twcc_seq (p, n, 5, 0xBEEF, out, sizeof (out));
  assert_bytes (out, m, want);
  /* every size below is refused */
  for (gsize max = 0; max < m; max++)
    fail_unless_equals_int (rtpcc_rtp_add_twcc_seq (p, n, 5, 0xBEEF, out,
            max), 0);
  fail_unless (rtpcc_rtp_read_twcc_seq (out, m, 5, &seq));
  fail_unless_equals_int (seq, 0xBEEF);
  fail_if (rtpcc_rtp_read_twcc_seq (out, m, 4, &seq));
  fail_unless (rtpcc_rtp_parse_layout (out, m, &l));
  fail_unless_equals_int (l.payload_len, 3);
  fail_unless_equals_int (l.padding_len, 4);

  /* in place */
  fail_unless (rtpcc_rtp_write_twcc_seq (out, m, 5, 0x0102));
  fail_unless (out[25] == 0x01 && out[26] == 0x02);
  fail_if (rtpcc_rtp_write_twcc_seq (out, m, 6, 0x0102));
  fail_if (rtpcc_rtp_write_twcc_seq (p, n, 5, 0x0102));

  /* already there: refused; bad IDs and sizes refused */
  fail_unless_equals_int (rtpcc_rtp_add_twcc_seq (out, m, 5, 1, p, 64), 0);
  fail_unless_equals_int (rtpcc_rtp_add_twcc_seq (p, n, 0, 1, out, 64), 0);
  fail_unless_equals_int (rtpcc_rtp_add_twcc_seq (p, n, 15, 1, out, 64), 0);
  fail_unless_equals_int (rtpcc_rtp_add_extension (p, n, 3,
          (const guint8 *) "0123456789abcdefg", 17, out, 64), 0);
  fail_unless_equals_int (rtpcc_rtp_add_extension (p, n, 3, NULL, 0, out,
          64), 0);
  fail_unless (rtpcc_rtp_add_extension (p, n, 3,
          (const guint8 *) "0123456789abcdef", 16, out, 64) > 0);
  /* not RTP */
  p[0] = 0;
  fail_unless_equals_int (rtpcc_rtp_add_twcc_seq (p, n, 5, 1, out, 64), 0);
}

GST_END_TEST;

/* What the endpoints take from an RTP packet's bytes, whole or (a
 * simulated packet) header only; and the 12-byte header the sender writes
 * for a packet it only knows by its fields. */
GST_START_TEST (test_rtp_parse)
{
  guint8 p[300], out[64];
  gsize n = make_rtp (p, 2, 3, 4), m, hdr = 0;
  RtpccRtpInfo i, j;

  fail_unless (rtpcc_rtp_parse (p, n, n, 5, &i, &hdr));
  fail_unless (i.ssrc == 0xCAFEBABE && i.seq == 0x1234
      && i.rtp_ts == 0xDEADBEEF && i.pt == 96 && i.marker);
  fail_unless_equals_int (i.size, n);
  fail_unless_equals_int (hdr, 20);
  fail_if (i.padding_only || i.has_twcc || i.is_fec || i.clock_rate);
  /* the header alone, the rest virtual: padding unchecked, payload */
  fail_unless (rtpcc_rtp_parse (p, 20, 1000, 0, &j, NULL));
  fail_unless (j.seq == i.seq && j.size == 1000 && !j.padding_only);
  fail_if (rtpcc_rtp_parse (p, 19, 1000, 0, &j, NULL));
  fail_if (rtpcc_rtp_parse (p, n, n - 1, 0, &j, NULL));
  /* the transport-wide seq of a 2-byte element with the ID asked for */
  m = rtpcc_rtp_add_twcc_seq (p, n, 5, 0xBEEF, out, sizeof (out));
  fail_unless (rtpcc_rtp_parse (out, m, m, 5, &i, &hdr));
  fail_unless (i.has_twcc && i.twcc_seq == 0xBEEF);
  fail_unless_equals_int (hdr, 28);
  fail_unless (rtpcc_rtp_parse (out, m, m, 4, &i, NULL) && !i.has_twcc);
  fail_unless (rtpcc_rtp_parse (out, m, m, 0, &i, NULL) && !i.has_twcc);
  m = rtpcc_rtp_add_extension (p, n, 5, (const guint8 *) "abc", 3, out,
      sizeof (out));
  fail_unless (rtpcc_rtp_parse (out, m, m, 5, &i, NULL) && !i.has_twcc);
  /* in a header alone: overwritten where it is, else FALSE */
  m = rtpcc_rtp_add_twcc_seq (p, n, 5, 0xBEEF, out, sizeof (out));
  fail_unless (rtpcc_rtp_header_write_twcc_seq (out, 28, 5, 0x0102));
  fail_unless (out[25] == 0x01 && out[26] == 0x02);
  fail_if (rtpcc_rtp_header_write_twcc_seq (out, 28, 6, 0x0102));
  fail_if (rtpcc_rtp_header_write_twcc_seq (p, 20, 5, 0x0102));
  /* a padding-only packet (a probe) */
  n = make_rtp (p, 0, 0, 255 - 12);
  fail_unless (rtpcc_rtp_parse (p, n, n, 0, &i, NULL) && i.padding_only);
  /* not RTP, untouched */
  i.seq = 7;
  p[0] = 0x40;
  fail_if (rtpcc_rtp_parse (p, n, n, 0, &i, NULL));
  fail_unless_equals_int (i.seq, 7);

  /* a header from fields, and back */
  memset (&i, 0, sizeof i);
  i.ssrc = 0x01020304;
  i.seq = 65535;
  i.rtp_ts = 0x90000;
  i.pt = 111;
  i.marker = TRUE;
  fail_unless_equals_int (rtpcc_rtp_write_header (&i, out, 11), 0);
  fail_unless_equals_int (rtpcc_rtp_write_header (&i, out, 12), 12);
  fail_unless (rtpcc_rtp_parse (out, 12, 1200, 0, &j, NULL));
  fail_unless (j.ssrc == i.ssrc && j.seq == i.seq && j.rtp_ts == i.rtp_ts
      && j.pt == i.pt && j.marker && j.size == 1200);
  fail_unless_equals_int (out[0], 0x80);
}

GST_END_TEST;

/* Stripping is the inverse of adding a TWCC seq to a packet without a
 * block; any other element (or a broken block) keeps the packet as it is. */
GST_START_TEST (test_rtp_ext_strip)
{
  guint8 p[64], with[64], out[64], two[64];
  gsize n = make_rtp (p, 2, 3, 4), m, k;

  m = rtpcc_rtp_add_twcc_seq (p, n, 5, 0xBEEF, with, sizeof (with));
  fail_unless (m > n);
  k = rtpcc_rtp_strip_extension (with, m, 5, out, sizeof (out));
  fail_unless_equals_int (k, n);
  fail_unless (memcmp (out, p, n) == 0);
  /* too small an output, the wrong ID, no block at all */
  fail_unless_equals_int (rtpcc_rtp_strip_extension (with, m, 5, out, n - 1),
      0);
  fail_unless_equals_int (rtpcc_rtp_strip_extension (with, m, 4, out, 64), 0);
  fail_unless_equals_int (rtpcc_rtp_strip_extension (p, n, 5, out, 64), 0);
  /* a second element (the sender's own, e.g. mid) stays: nothing stripped */
  k = rtpcc_rtp_add_extension (with, m, 3, (const guint8 *) "v", 1, two,
      sizeof (two));
  fail_unless (k > m);
  fail_unless_equals_int (rtpcc_rtp_strip_extension (two, k, 5, out, 64), 0);
  /* a block whose length runs past the packet, an element past the block */
  memcpy (two, with, m);
  two[23] = 9;                  /* block length 9 words */
  fail_unless_equals_int (rtpcc_rtp_strip_extension (two, m, 5, out, 64), 0);
  memcpy (two, with, m);
  two[24] = 0x53;               /* ID 5 with 4 data bytes: 5 in a 4-byte block */
  fail_unless_equals_int (rtpcc_rtp_strip_extension (two, m, 5, out, 64), 0);
}

GST_END_TEST;

GST_START_TEST (test_rtp_ext_append)
{
  guint8 p[64], out[64];
  gsize n, m;
  const guint8 *d;
  gsize dl;
  guint16 seq;

  /* an existing one-byte block: ID 1 (2 bytes), then padding; the new
   * element goes after ID 1, into the old padding and one more word */
  {
    static const guint8 want[] = {
      0x90, 0xE0, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF, 0xCA, 0xFE, 0xBA, 0xBE,
      0xBE, 0xDE, 0x00, 0x02,
      0x11, 0xAA, 0xBB,         /* ID 1, L=1 */
      0x31, 0x12, 0x34,         /* ID 3, L=1: seq 0x1234 */
      0x00, 0x00,
      'a', 'b',
    };
    n = make_rtp (p, 0, 0, 0);
    p[0] |= 0x10;
    memcpy (p + n, "\xBE\xDE\x00\x01\x11\xAA\xBB\x00", 8);
    n += 8;
    memcpy (p + n, "ab", 2);
    n += 2;
    m = rtpcc_rtp_add_twcc_seq (p, n, 3, 0x1234, out, sizeof (out));
    assert_bytes (out, m, want);
    fail_unless (rtpcc_rtp_find_extension (out, m, 1, &d, &dl));
    fail_unless (dl == 2 && d[0] == 0xAA && d[1] == 0xBB);
    fail_unless (rtpcc_rtp_read_twcc_seq (out, m, 3, &seq));
    fail_unless_equals_int (seq, 0x1234);
  }

  /* padding bytes between elements are skipped; the new one goes right
   * after the last element, and the trailing padding shrinks */
  {
    static const guint8 want_block[] = {
      0xBE, 0xDE, 0x00, 0x02,
      0x00, 0x20, 0x07, 0x51, 0x00, 0x09, 0x00, 0x00,
    };
    n = make_rtp (p, 0, 0, 0);
    p[0] |= 0x10;
    memcpy (p + n, "\xBE\xDE\x00\x02\x00\x20\x07\x00\x00\x00\x00\x00", 12);
    n += 12;
    fail_unless (rtpcc_rtp_find_extension (p, n, 2, &d, &dl));
    fail_unless (dl == 1 && d[0] == 0x07);
    m = rtpcc_rtp_add_twcc_seq (p, n, 5, 0x0009, out, sizeof (out));
    fail_unless_equals_int (m, 24);
    for (gsize i = 0; i < sizeof (want_block); i++)
      fail_unless (out[12 + i] == want_block[i], "byte %" G_GSIZE_FORMAT, i);
  }

  /* a block with more padding than the new element needs keeps its size
   * (the packet never shrinks), and a byte after the last element whose
   * ID nibble is 0 but which is not 0 is kept as it is: only zero bytes
   * are free (the libFuzzer finding: 67 bytes in, 63 out) */
  {
    static const guint8 want_block[] = {
      0xBE, 0xDE, 0x00, 0x03,
      0x10, 0x07, 0x05, 0x31, 0x00, 0x09, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00,
    };
    n = make_rtp (p, 0, 0, 0);
    p[0] |= 0x10;
    memcpy (p + n, "\xBE\xDE\x00\x03\x10\x07\x05\x00\x00\x00\x00\x00"
        "\x00\x00\x00\x00", 16);
    n += 16;
    memcpy (p + n, "ab", 2);
    n += 2;
    m = rtpcc_rtp_add_twcc_seq (p, n, 3, 0x0009, out, sizeof (out));
    fail_unless_equals_int (m, n);
    for (gsize i = 0; i < sizeof (want_block); i++)
      fail_unless (out[12 + i] == want_block[i], "byte %" G_GSIZE_FORMAT, i);
    fail_unless (memcmp (out + 12 + sizeof (want_block), "ab", 2) == 0);
    fail_unless (rtpcc_rtp_find_extension (out, m, 1, &d, &dl));
    fail_unless (dl == 1 && d[0] == 0x07);
    fail_unless (rtpcc_rtp_read_twcc_seq (out, m, 3, &seq));
    fail_unless_equals_int (seq, 0x0009);
  }

  /* a two-byte block (profile 0x100, appbits 5): a two-byte element */
  {
    static const guint8 want_block[] = {
      0x10, 0x05, 0x00, 0x02,
      0x07, 0x02, 0xAA, 0xBB, 0x03, 0x02, 0x56, 0x78,
    };
    n = make_rtp (p, 0, 0, 0);
    p[0] |= 0x10;
    memcpy (p + n, "\x10\x05\x00\x01\x07\x02\xAA\xBB", 8);
    n += 8;
    m = rtpcc_rtp_add_twcc_seq (p, n, 3, 0x5678, out, sizeof (out));
    fail_unless_equals_int (m, 24);
    for (gsize i = 0; i < sizeof (want_block); i++)
      fail_unless (out[12 + i] == want_block[i], "byte %" G_GSIZE_FORMAT, i);
    fail_unless (rtpcc_rtp_read_twcc_seq (out, m, 3, &seq));
    fail_unless_equals_int (seq, 0x5678);
    /* two-byte IDs go up to 255, and empty elements exist */
    m = rtpcc_rtp_add_extension (p, n, 200, NULL, 0, out, sizeof (out));
    fail_unless (m > 0);
    fail_unless (rtpcc_rtp_find_extension (out, m, 200, &d, &dl));
    fail_unless_equals_int (dl, 0);
  }

  /* refused: a non-RFC 8285 extension, an ID 15 terminator, a truncated
   * element */
  n = make_rtp (p, 0, 0, 0);
  p[0] |= 0x10;
  memcpy (p + n, "\xAB\xAC\x00\x01\x11\xAA\xBB\x00", 8);
  fail_unless_equals_int (rtpcc_rtp_add_twcc_seq (p, n + 8, 3, 1, out, 64),
      0);
  fail_if (rtpcc_rtp_find_extension (p, n + 8, 1, &d, &dl));
  memcpy (p + n, "\xBE\xDE\x00\x01\x10\xAA\xF0\x22", 8);
  fail_unless_equals_int (rtpcc_rtp_add_twcc_seq (p, n + 8, 3, 1, out, 64),
      0);
  /* ID 15 ends parsing: what came before counts, what follows does not */
  fail_unless (rtpcc_rtp_find_extension (p, n + 8, 1, &d, &dl));
  memcpy (p + n, "\xBE\xDE\x00\x02\x10\xAA\xF0\x22\x21\x00\x00\x00", 12);
  fail_if (rtpcc_rtp_find_extension (p, n + 12, 2, &d, &dl));
  memcpy (p + n, "\xBE\xDE\x00\x01\x10\xAA\x23\x00", 8);
  fail_unless_equals_int (rtpcc_rtp_add_twcc_seq (p, n + 8, 3, 1, out, 64),
      0);
  fail_unless (rtpcc_rtp_find_extension (p, n + 8, 1, &d, &dl));
  fail_if (rtpcc_rtp_find_extension (p, n + 8, 2, &d, &dl));
  /* the block finder on its own, and its argument checks */
  fail_unless (rtpcc_rtp_ext_block_find (0xBEDE,
          (const guint8 *) "\x00\x31\x01\x02", 4, 3, &d, &dl));
  fail_unless_equals_int (dl, 2);
  fail_if (rtpcc_rtp_ext_block_find (0xBEDE,
          (const guint8 *) "\x00\x31\x01\x02", 4, 15, &d, &dl));
  fail_if (rtpcc_rtp_ext_block_find (0xBEDE,
          (const guint8 *) "\x00\x31\x01\x02", 4, 0, &d, &dl));
  fail_if (rtpcc_rtp_ext_block_find (0xBEDE, NULL, 4, 3, &d, &dl));
  fail_unless (rtpcc_rtp_ext_block_find (0x100F,
          (const guint8 *) "\x00\x00\x31\x01\x02", 5, 0x31, &d, &dl));
  fail_unless (dl == 1 && d[0] == 0x02);
  fail_if (rtpcc_rtp_ext_block_find (0x100F,
          (const guint8 *) "\x00\x00\x31\x05\x02", 5, 0x31, &d, &dl));
  fail_if (rtpcc_rtp_ext_block_find (0x2000,
          (const guint8 *) "\x31\x01\x02\x00", 4, 3, &d, &dl));
}

GST_END_TEST;

/* Random packets (CSRCs, existing one- or two-byte blocks, padding) get a
 * TWCC element: everything else survives, and GstRTPBuffer agrees. */
GST_START_TEST (test_rtp_ext_random_round_trip)
{
  RtpccRng rng;
  guint8 p[600], out[700];

  rtpcc_rng_init (&rng, 8285);
  for (int iter = 0; iter < 2000; iter++) {
    guint cc = rtpcc_rng_below (&rng, 16);
    gsize payload = rtpcc_rng_below (&rng, 200);
    guint8 pad = rtpcc_rng_bernoulli (&rng, 0.3) ? 1 + rtpcc_rng_below (&rng,
        40) : 0;
    guint form = rtpcc_rng_below (&rng, 3);     /* none, one-, two-byte */
    guint8 present[16] = { 0 };
    guint8 id;
    gsize n, m, hdr = 12 + 4 * cc;
    RtpccRtpLayout l0, l1;
    guint16 seq = (guint16) rtpcc_rng_next_u64 (&rng), got;

    n = make_rtp (p, cc, 0, 0);
    if (form) {
      guint8 block[64];
      gsize bl = 0;
      guint ne = rtpcc_rng_below (&rng, 4);
      for (guint e = 0; e < ne; e++) {
        guint8 eid = 1 + rtpcc_rng_below (&rng, 14);
        guint8 len = 1 + rtpcc_rng_below (&rng, 4);
        if (present[eid])
          continue;
        present[eid] = len;
        if (rtpcc_rng_bernoulli (&rng, 0.3))
          block[bl++] = 0;      /* padding between elements */
        if (form == 1) {
          block[bl++] = (guint8) ((eid << 4) | (len - 1));
        } else {
          block[bl++] = eid;
          block[bl++] = len;
        }
        for (guint k = 0; k < len; k++)
          block[bl++] = (guint8) (eid * 16 + k);
      }
      while (bl % 4)
        block[bl++] = 0;
      p[0] |= 0x10;
      p[n++] = form == 1 ? 0xBE : 0x10;
      p[n++] = form == 1 ? 0xDE : 0x00;
      p[n++] = 0;
      p[n++] = (guint8) (bl / 4);
      memcpy (p + n, block, bl);
      n += bl;
    }
    for (gsize i = 0; i < payload; i++)
      p[n++] = (guint8) rtpcc_rng_next_u64 (&rng);
    if (pad) {
      p[0] |= 0x20;
      memset (p + n, 0, pad);
      n += pad;
      p[n - 1] = pad;
    }
    do
      id = 1 + rtpcc_rng_below (&rng, 14);
    while (present[id]);

    fail_unless (rtpcc_rtp_parse_layout (p, n, &l0));
    m = rtpcc_rtp_add_twcc_seq (p, n, id, seq, out, sizeof (out));
    fail_unless (m >= n && m <= n + 8, "iter %d: %" G_GSIZE_FORMAT " → %"
        G_GSIZE_FORMAT, iter, n, m);
    fail_unless (rtpcc_rtp_parse_layout (out, m, &l1));
    fail_unless (rtpcc_rtp_read_twcc_seq (out, m, id, &got));
    fail_unless_equals_int (got, seq);
    /* fixed header (but X) and CSRCs, payload and padding intact */
    fail_unless ((out[0] & ~0x10) == (p[0] & ~0x10) && (out[0] & 0x10));
    fail_unless (memcmp (out + 1, p + 1, hdr - 1) == 0);
    fail_unless_equals_int (l1.payload_len, l0.payload_len);
    fail_unless_equals_int (l1.padding_len, l0.padding_len);
    fail_unless (memcmp (out + l1.header_len, p + l0.header_len,
            n - l0.header_len) == 0);
    /* the header alone gets the same new header (what the sender puts in
     * front of the untouched rest), and a parse of it or of the whole
     * packet says the same */
    {
      guint8 h[200], d[2] = { (guint8) (seq >> 8), (guint8) seq };
      gsize hl = rtpcc_rtp_header_add_extension (p, l0.header_len, id, d, 2,
          h, sizeof h), hl2;
      RtpccRtpInfo a, b;
      fail_unless_equals_int (hl, l1.header_len);
      fail_unless (memcmp (h, out, hl) == 0);
      fail_unless (rtpcc_rtp_parse (out, m, m, id, &a, &hl2));
      fail_unless_equals_int (hl2, hl);
      fail_unless (rtpcc_rtp_parse (h, hl, m, id, &b, NULL));
      fail_unless (a.has_twcc && a.twcc_seq == seq && b.has_twcc
          && b.twcc_seq == seq && a.ssrc == b.ssrc && a.size == m
          && b.size == m && a.padding_only == (l0.payload_len == 0)
          && b.padding_only == (hl == m && l0.payload_len == 0));
      /* not exactly a header: refused */
      fail_unless_equals_int (rtpcc_rtp_header_add_extension (p, n, id, d, 2,
              h, sizeof h), n == l0.header_len ? hl : 0);
    }
    for (guint8 e = 1; e < 15; e++) {
      const guint8 *d;
      gsize dl;
      if (!present[e])
        continue;
      fail_unless (rtpcc_rtp_find_extension (out, m, e, &d, &dl));
      fail_unless_equals_int (dl, present[e]);
      fail_unless (d[0] == e * 16);
    }

    /* GStreamer reads what we wrote, and writes the same bytes as we do
     * into a one-byte block (or a packet without one) */
    {
      GstBuffer *buf = gst_buffer_new_memdup (out, m);
      GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
      gpointer d;
      guint size;

      fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp));
      if (form == 2)
        fail_unless (gst_rtp_buffer_get_extension_twobytes_header (&rtp, NULL,
                id, 0, &d, &size));
      else
        fail_unless (gst_rtp_buffer_get_extension_onebyte_header (&rtp, id, 0,
                &d, &size));
      fail_unless_equals_int (size, 2);
      /* byte by byte: GST_READ_UINT16_BE may load unaligned */
      fail_unless_equals_int ((((const guint8 *) d)[0] << 8) |
          ((const guint8 *) d)[1], seq);
      fail_unless_equals_int (gst_rtp_buffer_get_payload_len (&rtp),
          l0.payload_len);
      gst_rtp_buffer_unmap (&rtp);
      gst_buffer_unref (buf);
    }
    if (form != 2) {
      GstBuffer *buf = gst_buffer_new_memdup (p, n);
      GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
      guint8 d[2];
      GstMapInfo map;

      d[0] = (guint8) (seq >> 8);
      d[1] = (guint8) seq;
      fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READWRITE, &rtp));
      fail_unless (gst_rtp_buffer_add_extension_onebyte_header (&rtp, id, d,
              2));
      gst_rtp_buffer_unmap (&rtp);
      fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
      fail_unless_equals_int (map.size, m);
      fail_unless (memcmp (map.data, out, m) == 0, "iter %d: GstRTPBuffer "
          "wrote other bytes", iter);
      gst_buffer_unmap (buf, &map);
      gst_buffer_unref (buf);
    }
  }
}

GST_END_TEST;

/* ---- tshark ------------------------------------------------------------ */

#define PCAP_RTCP_PORT 5005
#define PCAP_RTP_PORT 5006

/* tshark's options besides the file: our RTCP and RTP ports */
static const gchar *const tshark_opts[] = {
  "-d", "udp.port==" G_STRINGIFY (PCAP_RTCP_PORT) ",rtcp",
  "-d", "udp.port==" G_STRINGIFY (PCAP_RTP_PORT) ",rtp", NULL
};

/* The TWCC packets of the tshark test: each written by us, with the
 * entries kept to compare tshark's reading against. */
typedef struct
{
  RtpccTwccArrival a[64];
  guint n;
  guint8 fb_count;
} TsharkCase;

static gsize
tshark_case_write (const TsharkCase * c, guint8 * buf, gsize max)
{
  return write_one (buf, max, 0x11111111, 0x22222222, c->fb_count, c->a,
      c->n);
}

GST_START_TEST (test_tshark_dissection)
{
  gchar *tshark = tshark_find ("test_tshark_dissection");
  GByteArray *pcap;
  guint8 pkt[1024], rtp[256];
  gchar *dir, *file, *out;
  gsize n;
  TsharkCase cases[4];
  RtpccRng rng;

  if (tshark == NULL)
    return;

  /* case 0: the 2-bit vector across the seq wrap (large, negative) */
  {
    RtpccTime t0 = 0x123456 * REF + RTPCC_MSEC (2);
    RtpccTwccArrival a[] = {
      {65534, t0}, {65535, NONE}, {65536, t0 + RTPCC_MSEC (75)},
      {65537, t0 + RTPCC_MSEC (74)},
    };
    memcpy (cases[0].a, a, sizeof (a));
    cases[0].n = 4;
    cases[0].fb_count = 255;
  }
  /* case 1: a 1-bit vector, a run of losses, a run of small deltas */
  cases[1].a[0].seq = 0;
  cases[1].a[0].arrival = 10 * REF;
  for (guint i = 1; i < 22; i++) {
    cases[1].a[i].seq = 100 + i;
    cases[1].a[i].arrival = 10 * REF + RTPCC_MSEC (1) + (i - 1) * TICK;
  }
  cases[1].n = 22;
  cases[1].fb_count = 1;
  /* case 2: a negative reference time */
  cases[2].a[0].seq = 40000;
  cases[2].a[0].arrival = -1;
  cases[2].a[1].seq = 40001;
  cases[2].a[1].arrival = -REF;
  cases[2].n = 2;
  cases[2].fb_count = 2;
  /* case 3: random: losses, reordering, large gaps */
  rtpcc_rng_init (&rng, 4017);
  {
    RtpccTime t = RTPCC_SEC (3600) + 123456;
    guint64 seq = 65500;
    for (guint i = 0; i < 64; i++) {
      seq += rtpcc_rng_bernoulli (&rng, 0.2) ? 1 + rtpcc_rng_below (&rng, 5) :
          1;
      t += rtpcc_rng_bernoulli (&rng, 0.1) ? RTPCC_MSEC (70) +
          (RtpccTime) rtpcc_rng_below (&rng, RTPCC_SEC (2)) :
          (RtpccTime) rtpcc_rng_below (&rng, RTPCC_MSEC (3));
      cases[3].a[i].seq = seq;
      cases[3].a[i].arrival = t - (rtpcc_rng_bernoulli (&rng, 0.1) ?
          (RtpccTime) rtpcc_rng_below (&rng, RTPCC_MSEC (10)) : 0);
    }
    cases[3].n = 64;
    cases[3].fb_count = 3;
  }

  pcap = test_pcap_new ();

  /* frames 1, 3, 4: reduced-size TWCC; frame 2: RR + SDES + TWCC */
  n = tshark_case_write (&cases[0], pkt, sizeof (pkt));
  test_pcap_add (pcap, 1, PCAP_RTCP_PORT, pkt, n);
  {
    RtpccRtcpRR rr = { 0 };
    rr.ssrc = 0x11111111;
    n = rtpcc_rtcp_write_rr (pkt, sizeof (pkt), &rr);
    n += rtpcc_rtcp_write_sdes_cname (pkt + n, sizeof (pkt) - n, 0x11111111,
        "twcc@rtpcc");
    n += tshark_case_write (&cases[1], pkt + n, sizeof (pkt) - n);
    test_pcap_add (pcap, 2, PCAP_RTCP_PORT, pkt, n);
  }
  n = tshark_case_write (&cases[2], pkt, sizeof (pkt));
  test_pcap_add (pcap, 3, PCAP_RTCP_PORT, pkt, n);
  n = tshark_case_write (&cases[3], pkt, sizeof (pkt));
  test_pcap_add (pcap, 4, PCAP_RTCP_PORT, pkt, n);

  /* frame 5: RTP with a one-byte block holding ID 1, TWCC seq appended as
   * ID 5; frame 6: RTP with 2 CSRCs and padding, TWCC seq as ID 3 */
  {
    guint8 p[128];
    gsize m = make_rtp (p, 0, 0, 0);
    p[0] |= 0x10;
    memcpy (p + m, "\xBE\xDE\x00\x01\x11\xAA\xBB\x00", 8);
    m += 8;
    memcpy (p + m, "payload", 7);
    m += 7;
    n = rtpcc_rtp_add_twcc_seq (p, m, 5, 0xBEEF, rtp, sizeof (rtp));
    fail_unless (n > 0);
    test_pcap_add (pcap, 5, PCAP_RTP_PORT, rtp, n);
    m = make_rtp (p, 2, 10, 4);
    n = rtpcc_rtp_add_twcc_seq (p, m, 3, 4321, rtp, sizeof (rtp));
    fail_unless (n > 0);
    test_pcap_add (pcap, 6, PCAP_RTP_PORT, rtp, n);
  }

  file = test_pcap_save (pcap, "rtpcc-twcc-XXXXXX", "twcc.pcap", &dir);

  /* the verbose tree: no malformed packet, no error-level expert info,
   * every RTCP length check OK, TWCC and the header extensions decoded */
  out = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
      "-V", NULL});
  tshark_assert_clean (out);
  fail_if (strstr (out, "Too many packet chunks") != NULL, "%s", out);
  {
    guint ok = 0, fci = 0, ext = 0;
    for (const gchar * q = out; (q = strstr (q, "length check: OK")); q++)
      ok++;
    for (const gchar * q = out; (q = strstr (q, "Transport-wide Congestion "
                "Control (Transport-cc) (15)")); q++)
      fci++;
    for (const gchar * q = out; (q = strstr (q, "RFC 5285 Header Extension "
                "(One-Byte Header)")); q++)
      ext++;
    fail_unless_equals_int (ok, 4);
    fail_unless_equals_int (fci, 4);
    fail_unless_equals_int (ext, 3);
  }
  g_free (out);

  /* field values, one line per frame, against what we encoded */
  fail_unless (tshark_has_field (tshark, "rtcp.rtpfb.transportcc.baseseq"));
  out = tshark_run (tshark, file, tshark_opts, (const gchar *[]) {
      "-T", "fields", "-E", "separator=;", "-E", "occurrence=a",
      "-e", "frame.number", "-e", "rtcp.pt", "-e", "rtcp.rtpfb.fmt",
      "-e", "rtcp.rtpfb.transportcc.baseseq",
      "-e", "rtcp.rtpfb.transportcc.statuscount",
      "-e", "rtcp.rtpfb.transportcc.reftime",
      "-e", "rtcp.rtpfb.transportcc.pktcount",
      "-e", "rtcp.rtpfb.transportcc.pktchunk",
      "-e", "rtcp.rtpfb.transportcc.recv_delta",
      "-e", "rtcp.length_check", "-e", "rtp.ext.profile", "-e", "rtp.ext.len",
      "-e", "rtp.ext.rfc5285.id", "-e", "rtp.ext.rfc5285.len",
      "-e", "rtp.ext.rfc5285.data", "-e", "rtp.padding.count", NULL});
  {
    gchar **lines = g_strsplit (out, "\n", -1);
    static const gchar *chunks[] = {
      "53888", "40960,87,8213", "16386", NULL,
    };

    fail_unless (g_strv_length (lines) >= 6, "%s", out);
    for (guint c = 0; c < 4; c++) {
      const TsharkCase *tc = &cases[c];
      GString *want = g_string_new (NULL);
      gchar **f = g_strsplit (lines[c], ";", -1);
      RtpccTime base = 0;
      gint64 prev = 0;
      gboolean have_base = FALSE;
      guint64 count = tc->a[tc->n - 1].seq - tc->a[0].seq + 1;

      /* deltas from the truth: each arrival rounded to the nearest tick
       * counted from the reference, differenced */
      for (guint i = 0; i < tc->n; i++) {
        gint64 ticks, d;
        if (tc->a[i].arrival == NONE)
          continue;
        if (!have_base) {
          base = floor_div (tc->a[i].arrival, REF) * REF;
          have_base = TRUE;
        }
        ticks = floor_div (tc->a[i].arrival - base + TICK / 2, TICK);
        d = ticks - prev;
        prev = ticks;
        if (want->len)
          g_string_append_c (want, ',');
        if (d >= 0 && d <= 255)
          g_string_append_printf (want, "0x%02x", (guint) d);
        else
          g_string_append_printf (want, "0x%04x", (guint16) (gint16) d);
      }

      fail_unless (g_strv_length (f) >= 10, "%s", lines[c]);
      fail_unless_equals_int (atoi (f[0]), c + 1);
      fail_unless (g_str_has_suffix (f[1], "205"), "%s", lines[c]);
      fail_unless_equals_string (f[2], "15");
      fail_unless_equals_int (atoi (f[3]), (guint16) tc->a[0].seq);
      fail_unless_equals_int (atoi (f[4]), count);
      fail_unless_equals_int (atoi (f[5]), rtpcc_twcc_ref_time_signed
          (rtpcc_twcc_ref_time_from_time (base)));
      fail_unless_equals_int (atoi (f[6]), tc->fb_count);
      if (chunks[c])
        fail_unless_equals_string (f[7], chunks[c]);
      fail_unless_equals_string (f[8], want->str);
      fail_unless_equals_string (f[9], "1");    /* length check OK */
      g_strfreev (f);
      g_string_free (want, TRUE);
    }
    /* the hand-made ones, to be sure the comparison above means something */
    fail_unless (g_str_has_prefix (lines[0],
            "1;205;15;65534;4;1193046;255;53888;0x08,0x012c,0xfffc;1;"),
        "%s", lines[0]);
    fail_unless (g_str_has_prefix (lines[2],
            "3;205;15;40000;2;-1;2;16386;0x0100,0xff00;1;"), "%s", lines[2]);
    /* RTP: ID 1 kept, our TWCC seq 0xBEEF as ID 5 after it; then a packet
     * with CSRCs and padding, seq 4321 = 0x10e1 as ID 3 */
    fail_unless_equals_string (lines[4],
        "5;;;;;;;;;;0xbede;2;1,5;2,2;aabb,beef;");
    fail_unless_equals_string (lines[5], "6;;;;;;;;;;0xbede;1;3;2;10e1;4");
    g_strfreev (lines);
  }
  g_free (out);

  test_pcap_remove (file, dir);
  g_free (tshark);
}

GST_END_TEST;

static Suite *
rtpcc_twcc_suite (void)
{
  Suite *s = suite_create ("rtpcc_twcc");
  TCase *tc = tcase_create ("wire");
  TCase *tc_map = tcase_create ("unwrap");
  TCase *tc_rec = tcase_create ("recorder");
  TCase *tc_ext = tcase_create ("rtpext");
  TCase *tc_tshark = tcase_create ("tshark");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_twcc_layout_run_length);
  tcase_add_test (tc, test_twcc_layout_one_bit_vector);
  tcase_add_test (tc, test_twcc_layout_two_bit_vector_wrap);
  tcase_add_test (tc, test_twcc_layout_mixed_chunks);
  tcase_add_test (tc, test_twcc_padding_and_alignment);
  tcase_add_test (tc, test_twcc_rounding);
  tcase_add_test (tc, test_twcc_split);
  tcase_add_test (tc, test_twcc_random_round_trip);
  tcase_add_test (tc, test_twcc_malformed);

  suite_add_tcase (s, tc_map);
  tcase_add_test (tc_map, test_twcc_unwrap_seq);
  tcase_add_test (tc_map, test_twcc_unwrapper_ref_wrap_and_restart);

  suite_add_tcase (s, tc_rec);
  tcase_set_timeout (tc_rec, 120);
  tcase_add_test (tc_rec, test_twcc_recorder_basic_wrap);
  tcase_add_test (tc_rec, test_twcc_recorder_reorder_and_duplicates);
  tcase_add_test (tc_rec, test_twcc_recorder_split_restart_count);
  tcase_add_test (tc_rec, test_twcc_recorder_end_to_end);
  tcase_add_test (tc_rec, test_twcc_rtt_without_rr);

  suite_add_tcase (s, tc_ext);
  tcase_add_test (tc_ext, test_rtp_layout);
  tcase_add_test (tc_ext, test_rtp_ext_add_new_block);
  tcase_add_test (tc_ext, test_rtp_ext_append);
  tcase_add_test (tc_ext, test_rtp_ext_strip);
  tcase_add_test (tc_ext, test_rtp_parse);
  tcase_add_test (tc_ext, test_rtp_ext_random_round_trip);

  suite_add_tcase (s, tc_tshark);
  tcase_set_timeout (tc_tshark, 120);
  tcase_add_test (tc_tshark, test_tshark_dissection);
  return s;
}

GST_CHECK_MAIN (rtpcc_twcc);

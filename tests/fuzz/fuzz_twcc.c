/* Fuzz target: the TWCC feedback parser (with a write/re-parse round trip
 * and the sender-side mapping), the RTP header extension reader and writer,
 * and the TWCC recorder.
 *
 * The first byte picks the mode (modulo 3): 0 → the rest is one TWCC
 * packet; 1 → the rest is an RTP packet whose extensions are read, and to
 * which a transport-wide seq is added; 2 → the rest is a script of
 * recorder operations whose every output must parse.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz.h"

#include <string.h>

#define REF RTPCC_TWCC_REF_UNIT
#define WRAP_TIME (RTPCC_TWCC_REF_WRAP * REF)

static RtpccTime
absolute (const RtpccTwcc * fb, guint i)
{
  return (RtpccTime) rtpcc_twcc_ref_time_signed (fb->ref_time) * REF +
      fb->status[i].offset;
}

static void
fuzz_parse (const guint8 * data, size_t size)
{
  GError *err = NULL;
  RtpccTwcc *fb = rtpcc_twcc_parse (data, size, &err), *again;
  RtpccTwccArrival *in;
  RtpccTwccResult *res;
  RtpccTwccUnwrapper *u;
  RtpccTwccMapInfo info;
  guint8 *buf;
  guint used = 0, n_recv = 0;
  gint64 acc = 0;
  gsize n;

  if (fb == NULL) {
    FUZZ_CHECK (err != NULL && err->domain == RTPCC_ERROR);
    g_error_free (err);
    return;
  }
  FUZZ_CHECK (err == NULL);
  FUZZ_CHECK (fb->status_count > 0 && fb->ref_time <= 0xFFFFFF);

  /* every status is consistent with its symbol, offsets are running sums */
  for (guint i = 0; i < fb->status_count; i++) {
    const RtpccTwccStatus *st = &fb->status[i];
    FUZZ_CHECK (st->seq == (guint16) (fb->base_seq + i));
    FUZZ_CHECK (st->symbol <= RTPCC_TWCC_LARGE_DELTA);
    FUZZ_CHECK (st->received == (st->symbol != RTPCC_TWCC_NOT_RECEIVED));
    if (!st->received) {
      FUZZ_CHECK (st->delta == 0 && st->offset == RTPCC_TIME_NONE);
      continue;
    }
    if (st->symbol == RTPCC_TWCC_SMALL_DELTA)
      FUZZ_CHECK (st->delta >= 0 && st->delta <= 255);
    acc += st->delta;
    FUZZ_CHECK (st->offset == acc * RTPCC_TWCC_DELTA_UNIT);
    n_recv++;
  }
  FUZZ_CHECK (n_recv == fb->n_received);
  /* at least header, a chunk per 14 statuses at best, the deltas */
  FUZZ_CHECK (size >= RTPCC_TWCC_HEADER_SIZE + 2 + n_recv);

  /* write what we parsed (arrival times on the 250 µs grid), parse that:
   * the same statuses and arrival times, in one packet */
  in = g_new (RtpccTwccArrival, fb->status_count);
  for (guint i = 0; i < fb->status_count; i++) {
    in[i].seq = G_GUINT64_CONSTANT (65536) + fb->base_seq + i;
    in[i].arrival = fb->status[i].received ? absolute (fb, i) :
        RTPCC_TIME_NONE;
  }
  buf = g_malloc (300000);
  n = rtpcc_twcc_write (buf, 300000, fb->sender_ssrc, fb->media_ssrc,
      fb->fb_count, in, fb->status_count, &used);
  FUZZ_CHECK (n > 0 && n % 4 == 0 && used == fb->status_count);
  again = rtpcc_twcc_parse (buf, n, NULL);
  FUZZ_CHECK (again != NULL);
  FUZZ_CHECK (again->sender_ssrc == fb->sender_ssrc);
  FUZZ_CHECK (again->media_ssrc == fb->media_ssrc);
  FUZZ_CHECK (again->base_seq == fb->base_seq);
  FUZZ_CHECK (again->status_count == fb->status_count);
  FUZZ_CHECK (again->fb_count == fb->fb_count);
  FUZZ_CHECK (again->n_received == fb->n_received);
  for (guint i = 0; i < fb->status_count; i++) {
    FUZZ_CHECK (again->status[i].received == fb->status[i].received);
    if (fb->status[i].received) {
      /* the same instant, modulo the 24-bit reference's wrap */
      RtpccTime d = absolute (again, i) - absolute (fb, i);
      FUZZ_CHECK (d % WRAP_TIME == 0);
    }
  }
  /* the first delta from the writer's reference is 0..256 ticks */
  for (guint i = 0; i < again->status_count; i++) {
    if (again->status[i].received) {
      FUZZ_CHECK (again->status[i].delta >= 0
          && again->status[i].delta <= 256);
      break;
    }
  }
  rtpcc_twcc_free (again);

  /* the sender's view */
  u = rtpcc_twcc_unwrapper_new ();
  res = g_new (RtpccTwccResult, fb->status_count);
  {
    guint64 highest = G_GUINT64_CONSTANT (1) << 20 | fb->fb_count;
    for (int round = 0; round < 2; round++) {
      FUZZ_CHECK (rtpcc_twcc_unwrapper_map (u, (RtpccTime) fb->ref_time *
              RTPCC_MSEC (7) * (round + 1), fb, highest, res, &info)
          == fb->status_count);
      for (guint i = 0; i < fb->status_count; i++) {
        FUZZ_CHECK ((guint16) res[i].ext_seq == fb->status[i].seq);
        FUZZ_CHECK (res[i].ext_seq <= highest
            && res[i].ext_seq + 65536 > highest);
        FUZZ_CHECK (res[i].received == fb->status[i].received);
        FUZZ_CHECK (res[i].received == (res[i].arrival != RTPCC_TIME_NONE));
      }
    }
  }
  g_free (res);
  rtpcc_twcc_unwrapper_free (u);
  g_free (buf);
  g_free (in);
  rtpcc_twcc_free (fb);
}

static void
fuzz_rtp (const guint8 * data, size_t size)
{
  RtpccRtpLayout l, l2;
  const guint8 *found[16];
  gsize found_len[16];
  guint8 *out;
  gsize hdr = 0, n, max;
  guint8 id;
  guint16 seq = 0;

  /* the block reader on raw bytes, both forms */
  if (size >= 2) {
    guint16 profile = (guint16) ((data[0] << 8) | data[1]);
    for (guint i = 0; i < 256; i++) {
      const guint8 *d = NULL;
      gsize dl = 0;
      if (rtpcc_rtp_ext_block_find (profile, data + 2, size - 2, (guint8) i,
              &d, &dl))
        FUZZ_CHECK (d >= data + 2 && dl <= size - 2
            && (gsize) (d - data - 2) + dl <= size - 2);
    }
  }

  if (!rtpcc_rtp_parse_layout (data, size, &l)) {
    FUZZ_CHECK (!rtpcc_rtp_header_size (data, size, &hdr));
    FUZZ_CHECK (!rtpcc_rtp_find_extension (data, size, 1, NULL, NULL));
    return;
  }
  FUZZ_CHECK (rtpcc_rtp_header_size (data, size, &hdr) && hdr ==
      l.header_len);
  FUZZ_CHECK (l.header_len + l.payload_len + l.padding_len == size);
  FUZZ_CHECK (!l.has_extension || (l.ext_offset + l.ext_len == l.header_len
          && l.ext_len % 4 == 0));

  for (guint i = 0; i < 16; i++) {
    found[i] = NULL;
    found_len[i] = 0;
    if (rtpcc_rtp_find_extension (data, size, (guint8) i, &found[i],
            &found_len[i])) {
      FUZZ_CHECK (l.has_extension && i != 0);
      FUZZ_CHECK (found[i] >= data + l.ext_offset
          && (gsize) (found[i] - data) + found_len[i] <= l.header_len);
    }
  }

  /* add a transport-wide seq under an ID not there yet */
  id = (guint8) (1 + (size % 14));
  max = size + 8 + (data[size - 1] & 3);
  out = g_malloc (max);
  n = rtpcc_rtp_add_twcc_seq (data, size, id, 0xA55A, out, max);
  if (n == 0) {
    g_free (out);
    return;
  }
  FUZZ_CHECK (found[id] == NULL);
  FUZZ_CHECK (n >= size && n <= size + 8 && n <= max);
  FUZZ_CHECK (rtpcc_rtp_parse_layout (out, n, &l2));
  FUZZ_CHECK (rtpcc_rtp_read_twcc_seq (out, n, id, &seq) && seq == 0xA55A);
  FUZZ_CHECK (l2.csrc_count == l.csrc_count && l2.ssrc == l.ssrc
      && l2.seq == l.seq && l2.pt == l.pt && l2.marker == l.marker);
  FUZZ_CHECK (l2.payload_len == l.payload_len
      && l2.padding_len == l.padding_len);
  FUZZ_CHECK (memcmp (out + l2.header_len, data + l.header_len,
          size - l.header_len) == 0);
  /* what was found before is still there, byte for byte */
  for (guint i = 1; i < 16; i++) {
    const guint8 *d;
    gsize dl;
    if (found[i] == NULL)
      continue;
    FUZZ_CHECK (rtpcc_rtp_find_extension (out, n, (guint8) i, &d, &dl));
    FUZZ_CHECK (dl == found_len[i] && memcmp (d, found[i], dl) == 0);
  }
  /* the same ID again is refused; overwriting in place works */
  {
    guint8 *again = g_malloc (n + 8);
    FUZZ_CHECK (rtpcc_rtp_add_twcc_seq (out, n, id, 1, again, n + 8) == 0);
    g_free (again);
  }
  FUZZ_CHECK (rtpcc_rtp_write_twcc_seq (out, n, id, 0x0102));
  FUZZ_CHECK (rtpcc_rtp_read_twcc_seq (out, n, id, &seq) && seq == 0x0102);
  /* stripping: the inverse of adding to a packet without a block; any
   * result is the packet minus exactly its block, and parses */
  {
    guint8 *back = g_malloc (n);
    gsize k = rtpcc_rtp_strip_extension (out, n, id, back, n);
    RtpccRtpLayout l3;

    if (!l.has_extension)
      FUZZ_CHECK (k == size && memcmp (back, data, size) == 0);
    for (guint i = 1; i < 15; i++) {
      k = rtpcc_rtp_strip_extension (data, size, (guint8) i, back, size);
      if (k == 0)
        continue;
      FUZZ_CHECK (l.has_extension && l.ext_profile == 0xBEDE);
      FUZZ_CHECK (k == size - l.ext_len - 4);
      FUZZ_CHECK (rtpcc_rtp_parse_layout (back, k, &l3) && !l3.has_extension);
      FUZZ_CHECK (memcmp (back + l3.header_len, data + l.header_len,
              size - l.header_len) == 0);
    }
    g_free (back);
  }
  g_free (out);
}

/* Script: 4-byte ops. op & 3: 0–2 record seq += (int8) b1 (× 257 with op
 * bit 7) at arrival +=
 * b2 × 100 µs (b3 & 0x80: 300 ms earlier, reordering); 3 write into
 * b1 × 8 bytes with packets of at most b2 × 4 bytes, b3 ms later (b3 = 255:
 * set the late window to b2 ms instead). */
static void
fuzz_recorder (const guint8 * data, size_t size)
{
  RtpccTwccRecorder *rec;
  RtpccTwccRecorderStats st;
  guint16 seq = 65500;
  RtpccTime now = RTPCC_SEC (1000);
  guint8 buf[2048];
  guint8 expect_fb = 0;

  if (size < 1)
    return;
  rec = rtpcc_twcc_recorder_new (64u << (data[0] & 7));
  for (size_t i = 1; i + 4 <= size; i += 4) {
    const guint8 *p = data + i;

    if ((p[0] & 3) != 3) {
      RtpccTime t;
      /* bit 7 of op: a far jump (a restarted sender, a straggler) */
      seq = (guint16) (seq + (gint8) p[1] * (p[0] & 0x80 ? 257 : 1));
      now += (RtpccTime) p[2] * RTPCC_USEC (100);
      t = p[3] & 0x80 ? now - RTPCC_MSEC (300) : now;
      (void) rtpcc_twcc_recorder_add (rec, seq, t);
      /* whatever became of it, the same seq again is never new */
      FUZZ_CHECK (!rtpcc_twcc_recorder_add (rec, seq, t + 1));
    } else if (p[3] == 255) {
      rtpcc_twcc_recorder_set_late_window (rec, RTPCC_MSEC (p[2]));
    } else {
      gsize max = MIN ((gsize) p[1] * 8, sizeof (buf));
      gboolean pending = rtpcc_twcc_recorder_has_pending (rec);
      guint np = 0;
      gsize n;

      now += RTPCC_MSEC (p[3]);
      rtpcc_twcc_recorder_set_max_packet_size (rec, (gsize) p[2] * 4);
      n = rtpcc_twcc_recorder_write (rec, now, 0xfeed, 0xbeef, buf, max, &np);
      FUZZ_CHECK (n <= max && (n == 0) == (np == 0));
      FUZZ_CHECK (n == 0 || pending);
      /* with room for one packet, something pending is written */
      FUZZ_CHECK (!pending || max < RTPCC_TWCC_MIN_SIZE || n > 0);
      if (n > 0) {
        RtpccRtcpIter it;
        RtpccRtcpPacket pkt;
        guint got = 0;

        FUZZ_CHECK (rtpcc_rtcp_iter_init (&it, buf, n));
        while (rtpcc_rtcp_iter_next (&it, &pkt)) {
          RtpccTwcc *fb = rtpcc_twcc_parse (pkt.data, pkt.len, NULL);
          FUZZ_CHECK (fb != NULL);
          FUZZ_CHECK (pkt.len <= MAX ((gsize) p[2] * 4,
                  RTPCC_TWCC_MIN_SIZE));
          FUZZ_CHECK (fb->fb_count == expect_fb);
          expect_fb++;
          rtpcc_twcc_free (fb);
          got++;
        }
        FUZZ_CHECK (got == np);
      }
    }
  }
  rtpcc_twcc_recorder_get_stats (rec, &st);
  FUZZ_CHECK (st.next_fb_count == expect_fb);
  rtpcc_twcc_recorder_free (rec);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  if (size < 1)
    return 0;
  switch (data[0] % 3) {
    case 0:
      fuzz_parse (data + 1, size - 1);
      break;
    case 1:
      if (size > 1)
        fuzz_rtp (data + 1, size - 1);
      break;
    default:
      fuzz_recorder (data + 1, size - 1);
      break;
  }
  return 0;
}

void
rtpcc_fuzz_seeds (GPtrArray * seeds)
{
  guint8 buf[1024];
  gsize n;
  RtpccTime t0 = 0x123456 * REF + RTPCC_MSEC (2);
  RtpccTwccArrival a[] = {
    {65534, t0}, {65535, RTPCC_TIME_NONE}, {65536, t0 + RTPCC_MSEC (75)},
    {65537, t0 + RTPCC_MSEC (74)}, {65540, t0 + RTPCC_MSEC (74)},
    {65541, t0 + RTPCC_MSEC (80)}, {65700, t0 + RTPCC_SEC (2)},
  };
  RtpccTwccArrival b[40];
  static const guint8 rtp_ext[] = {
    0x01,
    0x91, 0xE0, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF, 0xCA, 0xFE, 0xBA, 0xBE,
    0x01, 0x02, 0x03, 0x04,
    0xBE, 0xDE, 0x00, 0x02, 0x11, 0xAA, 0xBB, 0x00, 0x20, 0x07, 0x00, 0x00,
    'p', 'a', 'y',
  };
  static const guint8 rtp_two[] = {
    0x04,
    0xB0, 0x60, 0x00, 0x01, 0, 0, 0, 1, 0, 0, 0, 2,
    0x10, 0x05, 0x00, 0x01, 0x07, 0x02, 0xAA, 0xBB,
    'x', 0x00, 0x02,
  };
  static const guint8 script[] = {
    0x02, 0x03,
    0x00, 0x01, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00,
    0x03, 0x40, 0x10, 0x14, 0x00, 0xff, 0x05, 0x80, 0x01, 0x01, 0x0a, 0x00,
    0x03, 0xff, 0xff, 0x05, 0x00, 0x00, 0x00, 0x00, 0x03, 0x10, 0x06, 0x01,
    0x00, 0x20, 0xff, 0x00, 0x03, 0xff, 0x20, 0x01, 0x03, 0x00, 0x14, 0xff,
  };

  buf[0] = 0;
  n = rtpcc_twcc_write (buf + 1, sizeof (buf) - 1, 0x11111111, 0x22222222,
      7, a, G_N_ELEMENTS (a), NULL);
  g_ptr_array_add (seeds, g_bytes_new (buf, n + 1));
  /* a mixed one: runs, 1-bit vectors */
  for (guint i = 0; i < G_N_ELEMENTS (b); i++) {
    b[i].seq = 1000 + i + (i > 20 ? 30 : 0);
    b[i].arrival = i % 5 == 3 ? RTPCC_TIME_NONE : RTPCC_SEC (5) +
        i * RTPCC_USEC (700);
  }
  n = rtpcc_twcc_write (buf + 1, sizeof (buf) - 1, 1, 2, 0, b,
      G_N_ELEMENTS (b), NULL);
  g_ptr_array_add (seeds, g_bytes_new (buf, n + 1));
  /* the same with RTCP padding */
  buf[1] |= 0x20;
  buf[4] += 1;
  memset (buf + 1 + n, 0, 4);
  buf[n + 4] = 4;
  g_ptr_array_add (seeds, g_bytes_new (buf, n + 5));

  g_ptr_array_add (seeds, g_bytes_new_static (rtp_ext, sizeof (rtp_ext)));
  g_ptr_array_add (seeds, g_bytes_new_static (rtp_two, sizeof (rtp_two)));
  g_ptr_array_add (seeds, g_bytes_new_static (script, sizeof (script)));
}

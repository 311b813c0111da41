/* PLI (RFC 4585) and FIR (RFC 5104): build, parse, and the media sender's
 * handling of them.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "psfb.h"
#include "rtcp.h"
#include "fbheader.h"

#include <string.h>

#define FIR_ENTRY_SIZE 8

gsize
rtpcc_pli_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    guint32 media_ssrc)
{
  if (buf == NULL || max < RTPCC_PLI_SIZE)
    return 0;
  rtpcc_fb_write_header (buf, RTPCC_PLI_SIZE, RTPCC_RTCP_PSFB,
      RTPCC_PSFB_FMT_PLI, sender_ssrc, media_ssrc);
  return RTPCC_PLI_SIZE;
}

gboolean
rtpcc_pli_parse (const guint8 * pkt, gsize len, guint32 * sender_ssrc,
    guint32 * media_ssrc, GError ** error)
{
  gsize fci_len;

  if (!rtpcc_fb_check_header (pkt, len, RTPCC_RTCP_PSFB, RTPCC_PSFB_FMT_PLI,
          "PLI", &fci_len, error))
    return FALSE;
  /* RFC 4585 §6.3.1: "the length field MUST be 2" (so no padding either) */
  if (len != RTPCC_PLI_SIZE) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "PLI: length field %u, must be 2", rtpcc_rd16 (pkt + 2));
    return FALSE;
  }
  if (sender_ssrc)
    *sender_ssrc = rtpcc_rd32 (pkt + 4);
  if (media_ssrc)
    *media_ssrc = rtpcc_rd32 (pkt + 8);
  return TRUE;
}

gsize
rtpcc_fir_size (guint n)
{
  if (n == 0 || n > RTPCC_FIR_MAX_ENTRIES)
    return 0;
  return RTPCC_FB_HEADER_SIZE + (gsize) n * FIR_ENTRY_SIZE;
}

gsize
rtpcc_fir_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccFirEntry * entries, guint n)
{
  gsize len = rtpcc_fir_size (n);

  if (buf == NULL || entries == NULL || len == 0 || len > max)
    return 0;
  rtpcc_fb_write_header (buf, len, RTPCC_RTCP_PSFB, RTPCC_PSFB_FMT_FIR,
      sender_ssrc, 0);
  for (guint i = 0; i < n; i++) {
    guint8 *e = buf + RTPCC_FB_HEADER_SIZE + FIR_ENTRY_SIZE * i;

    rtpcc_wr32 (e, entries[i].ssrc);
    rtpcc_wr32 (e + 4, (guint32) entries[i].seq << 24);
  }
  return len;
}

RtpccFir *
rtpcc_fir_parse (const guint8 * pkt, gsize len, GError ** error)
{
  RtpccFir *fir;
  gsize fci_len;
  guint n;

  if (!rtpcc_fb_check_header (pkt, len, RTPCC_RTCP_PSFB, RTPCC_PSFB_FMT_FIR,
          "FIR", &fci_len, error))
    return NULL;
  if (fci_len == 0 || fci_len % FIR_ENTRY_SIZE != 0) {
    g_set_error (error, RTPCC_ERROR, RTPCC_ERROR_PARSE,
        "FIR: %" G_GSIZE_FORMAT " FCI bytes, need one or more 8-byte "
        "entries (RFC 5104 §4.3.1.2)", fci_len);
    return NULL;
  }
  n = (guint) (fci_len / FIR_ENTRY_SIZE);
  fir = g_malloc (sizeof (RtpccFir) + n * sizeof (RtpccFirEntry));
  fir->sender_ssrc = rtpcc_rd32 (pkt + 4);
  fir->n_entries = n;
  fir->entries = (RtpccFirEntry *) (fir + 1);
  for (guint i = 0; i < n; i++) {
    const guint8 *e = pkt + RTPCC_FB_HEADER_SIZE + FIR_ENTRY_SIZE * i;

    fir->entries[i].ssrc = rtpcc_rd32 (e);
    fir->entries[i].seq = e[4];
  }
  return fir;
}

void
rtpcc_fir_free (RtpccFir * fir)
{
  g_free (fir);
}

void
rtpcc_fir_tracker_init (RtpccFirTracker * tracker)
{
  memset (tracker, 0, sizeof (*tracker));
}

gboolean
rtpcc_fir_tracker_is_new (RtpccFirTracker * tracker, guint32 requester_ssrc,
    guint8 seq)
{
  guint slot;

  for (guint i = 0; i < tracker->n; i++) {
    if (tracker->requester[i] == requester_ssrc) {
      if (tracker->seq[i] == seq)
        return FALSE;
      tracker->seq[i] = seq;
      return TRUE;
    }
  }
  if (tracker->n < RTPCC_FIR_TRACKED_REQUESTERS) {
    slot = tracker->n++;
  } else {
    /* slots fill in order, so round robin replaces the requester tracked
     * longest */
    slot = tracker->next;
    tracker->next = (tracker->next + 1) % RTPCC_FIR_TRACKED_REQUESTERS;
  }
  tracker->requester[slot] = requester_ssrc;
  tracker->seq[slot] = seq;
  return TRUE;
}

void
rtpcc_keyframe_gate_init (RtpccKeyframeGate * gate)
{
  gate->last = RTPCC_TIME_NONE;
  gate->passed = gate->suppressed = 0;
}

gboolean
rtpcc_keyframe_gate_pass (RtpccKeyframeGate * gate, RtpccTime now,
    RtpccTime rtt)
{
  RtpccTime interval = RTPCC_KEYFRAME_MIN_INTERVAL;

  if (rtt != RTPCC_TIME_NONE && rtt > interval)
    interval = rtt;
  if (gate->last != RTPCC_TIME_NONE && now - gate->last < interval) {
    gate->suppressed++;
    return FALSE;
  }
  gate->last = now;
  gate->passed++;
  return TRUE;
}

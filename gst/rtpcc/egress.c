/* RtpccEgress: the send queue and the wire bytes of its packets.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/egress.h>
#include <rtpcc/feedback/rtpext.h>

#include <string.h>

struct _RtpccEgress
{
  RtpccPacer *pacer;
  guint64 max_bytes;
  guint8 twcc_ext_id;
  GDestroyNotify free_func;
  GByteArray *head;             /* what the last write produced */
  guint64 stamp_errors;
};

RtpccEgress *
rtpcc_egress_new (const RtpccPacerConfig * pacer, guint8 twcc_ext_id)
{
  RtpccEgress *e = g_new0 (RtpccEgress, 1);
  RtpccPacerConfig pc = *pacer;

  /* the byte limit is enforced here, where handles can be freed */
  e->max_bytes = pc.max_bytes;
  pc.max_bytes = 0;
  e->pacer = rtpcc_pacer_new (&pc);
  e->twcc_ext_id = twcc_ext_id;
  e->head = g_byte_array_new ();
  return e;
}

void
rtpcc_egress_release (RtpccEgress * e, gpointer handle)
{
  if (e->free_func && handle)
    e->free_func (handle);
}

void
rtpcc_egress_discard (RtpccEgress * e, RtpccEgressPacket * pkt)
{
  rtpcc_egress_release (e, pkt->handle);
  g_free (pkt);
}

void
rtpcc_egress_free (RtpccEgress * e)
{
  if (!e)
    return;
  rtpcc_egress_drop_all (e);
  rtpcc_pacer_free (e->pacer);
  g_byte_array_unref (e->head);
  g_free (e);
}

void
rtpcc_egress_set_free_func (RtpccEgress * e, GDestroyNotify func)
{
  e->free_func = func;
}

RtpccPacer *
rtpcc_egress_get_pacer (RtpccEgress * e)
{
  return e->pacer;
}

guint64
rtpcc_egress_get_stamp_errors (const RtpccEgress * e)
{
  return e->stamp_errors;
}

RtpccEgressPacket *
rtpcc_egress_packet_new (const RtpccRtpInfo * info, const guint8 * prefix,
    gsize header_len, gsize prefix_len, gpointer handle)
{
  RtpccEgressPacket *pkt = g_malloc (sizeof (*pkt) + prefix_len);

  pkt->info = *info;
  pkt->handle = handle;
  pkt->size = info->size;
  pkt->payload = info->size > header_len ? (guint) (info->size - header_len)
      : 0;
  pkt->header_len = header_len;
  pkt->prefix_len = prefix_len;
  pkt->urgent = FALSE;
  memcpy (pkt->prefix, prefix, prefix_len);
  return pkt;
}

guint
rtpcc_egress_push (RtpccEgress * e, RtpccTime now, RtpccEgressPacket * pkt)
{
  guint dropped = 0;

  while (e->max_bytes && rtpcc_pacer_get_bytes (e->pacer) + pkt->info.size >
      e->max_bytes && rtpcc_pacer_get_packets (e->pacer) > 0) {
    rtpcc_egress_discard (e, rtpcc_pacer_pop_oldest (e->pacer, NULL));
    dropped++;
  }
  if (pkt->urgent)
    rtpcc_pacer_push_urgent (e->pacer, now, pkt, pkt->info.size);
  else
    rtpcc_pacer_push (e->pacer, now, pkt, pkt->info.size);
  return dropped;
}

RtpccEgressPacket *
rtpcc_egress_pop (RtpccEgress * e, RtpccTime now)
{
  guint size;

  return rtpcc_pacer_pop (e->pacer, now, &size, NULL);
}

guint
rtpcc_egress_drop_all (RtpccEgress * e)
{
  RtpccEgressPacket *pkt;
  guint n = 0;

  while ((pkt = rtpcc_pacer_pop_any (e->pacer, NULL))) {
    rtpcc_egress_discard (e, pkt);
    n++;
  }
  return n;
}

/* The RTP header @hdr (@len bytes) into e->head with the transport-wide
 * seq: overwritten if the header has the element, else added. */
static gboolean
stamp (RtpccEgress * e, const guint8 * hdr, gsize len, guint16 seq)
{
  guint8 d[2] = { (guint8) (seq >> 8), (guint8) seq };
  gsize n;

  g_byte_array_set_size (e->head, 0);
  g_byte_array_append (e->head, hdr, len);
  if (rtpcc_rtp_header_write_twcc_seq (e->head->data, len, e->twcc_ext_id,
          seq))
    return TRUE;
  /* a new element takes at most 4 + 4 bytes (block header, padding) or, in
   * a two-byte block, 2 + 2 + 3 */
  g_byte_array_set_size (e->head, len + 8);
  n = rtpcc_rtp_header_add_extension (hdr, len, e->twcc_ext_id, d, 2,
      e->head->data, len + 8);
  if (n == 0) {
    g_byte_array_set_size (e->head, 0);
    g_byte_array_append (e->head, hdr, len);
    return FALSE;
  }
  g_byte_array_set_size (e->head, n);
  return TRUE;
}

void
rtpcc_egress_write (RtpccEgress * e, const RtpccEgressPacket * pkt,
    guint16 wire_seq, gboolean has_twcc, guint16 twcc_seq,
    RtpccWirePacket * out)
{
  guint8 *h;

  out->handle = pkt->handle;
  out->info = pkt->info;
  out->info.seq = wire_seq;
  out->info.has_twcc = FALSE;
  if (has_twcc && e->twcc_ext_id) {
    if (stamp (e, pkt->prefix, pkt->header_len, twcc_seq)) {
      out->info.has_twcc = TRUE;
      out->info.twcc_seq = twcc_seq;
    } else
      e->stamp_errors++;
    /* what follows the RTP header in the prefix (a rewritten FEC header) */
    g_byte_array_append (e->head, pkt->prefix + pkt->header_len,
        pkt->prefix_len - pkt->header_len);
  } else {
    /* the prefix as it is, in one copy */
    g_byte_array_set_size (e->head, (guint) pkt->prefix_len);
    memcpy (e->head->data, pkt->prefix, pkt->prefix_len);
  }
  h = e->head->data;
  h[2] = (guint8) (wire_seq >> 8);
  h[3] = (guint8) wire_seq;
  out->head = h;
  out->head_len = e->head->len;
  out->tail_offset = pkt->prefix_len;
  out->size = out->head_len + (pkt->size - pkt->prefix_len);
}

guint
rtpcc_egress_stamp_growth (RtpccEgress * e, const RtpccEgressPacket * pkt)
{
  if (!e->twcc_ext_id || !stamp (e, pkt->prefix, pkt->header_len, 0))
    return 0;
  return (guint) (e->head->len - pkt->header_len);
}

void
rtpcc_egress_write_probe (RtpccEgress * e, const RtpccRtpInfo * info,
    guint padding, RtpccWirePacket * out)
{
  guint8 hdr[RTPCC_RTP_HEADER_MIN];
  gsize at;

  g_return_if_fail (padding >= 1 && padding <= 255);
  rtpcc_rtp_write_header (info, hdr, sizeof hdr);
  hdr[0] |= 0x20;               /* P: the padding is all there is */
  out->handle = NULL;
  out->info = *info;
  out->info.has_twcc = FALSE;
  if (info->has_twcc && e->twcc_ext_id
      && stamp (e, hdr, sizeof hdr, info->twcc_seq))
    out->info.has_twcc = TRUE;
  else {
    if (info->has_twcc)
      e->stamp_errors++;
    g_byte_array_set_size (e->head, 0);
    g_byte_array_append (e->head, hdr, sizeof hdr);
  }
  at = e->head->len;
  g_byte_array_set_size (e->head, at + padding);
  memset (e->head->data + at, 0, padding - 1);
  e->head->data[at + padding - 1] = (guint8) padding;
  out->head = e->head->data;
  out->head_len = out->size = e->head->len;
  out->tail_offset = 0;
}

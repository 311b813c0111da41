/* Next Application Data Unit (3GPP TS 26.234, Release 6, the NADU APP
 * packet): the RTCP APP packet (PT 204) named "PSS0", subtype 0, in which
 * a receiver reports its playout buffer per media stream. Made for
 * streaming, it serves conversational calls too (Singh, Ott and Curcio,
 * "Rate adaptation for conversational 3G video", INFOCOM Workshops 2009):
 * the sender sees how much the receiver still has to play out. Build and
 * parse.
 *
 *  |V=2|P| subtype |   PT=APP=204  |             length            |
 *  |                    SSRC of packet sender                      |
 *  |                      name (ASCII) "PSS0"                      |
 *  |                              SSRC                             |  ×n
 *  |         Playout Delay         |              NSN              |
 *  |      Reserved       |   NUN   |    Free Buffer Space (FBS)    |
 *
 * Per stream, in this order (TS 26.234 V6.4.0, "Data format block for
 * NADU reporting"):
 *  - Playout Delay: ms from sending this report until the next unit to
 *    decode is played out. 0xFFFF is the reserved value: the receiver
 *    "may choose not to indicate this value", and with an empty buffer
 *    "the playout delay is not defined and the client should also use
 *    the reserved value 0xFFFF";
 *  - NSN: the RTP sequence number of the next unit to decode; with no
 *    packet of the stream in the buffer, the next one not yet received
 *    (one more than the low 16 bits of the extended highest sequence
 *    number of its RR report block);
 *  - NUN (5 bits): that unit's number within its packet, counted from 0
 *    (an audio frame, an H.264 NAL unit; 0 for one unit per packet);
 *  - FBS: free buffer space in complete 64-byte blocks, 0xFFFF when more
 *    is free;
 *  - 11 reserved bits before NUN: 0, ignored on reception.
 * One block is sent for each stream that has a report block in the same
 * compound RTCP packet; the length field is 2 + 3 · blocks.
 *
 * The APP header has the shape of RFC 4585's feedback header (12 bytes,
 * a 5-bit field where FMT is, the name where the media source is), so
 * the same strict check applies: version 2, subtype 0, the length field
 * equal to the bytes, padding in whole words; then the name, and one
 * 12-byte block or more.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_NADU_H__
#define __RTPCC_FEEDBACK_NADU_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_NADU_SUBTYPE 0
/* "PSS0" */
#define RTPCC_NADU_NAME 0x50535330u
#define RTPCC_NADU_DELAY_UNSET 0xFFFF
#define RTPCC_NADU_MAX_BLOCKS ((G_MAXUINT16 - 2) / 3)

typedef struct
{
  guint32 ssrc;                 /* the media stream reported on */
  guint16 playout_delay;        /* ms, or RTPCC_NADU_DELAY_UNSET: not
                                 * reported, or the buffer is empty */
  guint16 nsn;                  /* next sequence number to decode (or
                                 * expected, the buffer empty) */
  guint8 nun;                   /* next unit number, 0..31 */
  guint16 fbs;                  /* free buffer space, 64-byte blocks */
} RtpccNaduBlock;

typedef struct
{
  guint32 sender_ssrc;
  guint n_blocks;               /* >= 1 */
  RtpccNaduBlock *blocks;
} RtpccNadu;

/* Bytes of a NADU with @n blocks; 0 if @n is 0 or over the maximum. */
gsize rtpcc_nadu_size (guint n);
/* Writes one NADU APP packet (reserved bits 0, no padding); returns its
 * size, or 0 if it does not fit in @max, @n is 0 / over the maximum, or a
 * NUN is over 31. */
gsize rtpcc_nadu_write (guint8 * buf, gsize max, guint32 sender_ssrc,
    const RtpccNaduBlock * blocks, guint n);
/* Parses exactly one RTCP packet. NULL and @error (RTPCC_ERROR_PARSE)
 * unless it is a well-formed NADU APP packet. */
RtpccNadu *rtpcc_nadu_parse (const guint8 * pkt, gsize len, GError ** error);
void rtpcc_nadu_free (RtpccNadu * nadu);
/* The last block about @media_ssrc in any NADU of the compound @data into
 * @block; TRUE if there was one. APP packets named "PSS0" subtype 0 that
 * do not parse are counted in @rejected (may be NULL); other APP packets
 * are anyone's and ignored. */
gboolean rtpcc_nadu_find (const guint8 * data, gsize len, guint32 media_ssrc,
    RtpccNaduBlock * block, guint64 * rejected);

/* Playout delay field for a duration: ms, truncated, at most 0xFFFE;
 * RTPCC_TIME_NONE (not known, or nothing to play) gives
 * RTPCC_NADU_DELAY_UNSET and negative durations 0. */
guint16 rtpcc_nadu_delay_from_time (RtpccTime d);
/* ... and back: RTPCC_TIME_NONE for RTPCC_NADU_DELAY_UNSET. */
RtpccTime rtpcc_nadu_delay_to_time (guint16 v);
/* FBS for @free_bytes: complete 64-byte blocks, at most 0xFFFF ("if more
 * is available, it shall be reported as the maximal amount"). */
guint16 rtpcc_nadu_fbs_from_bytes (guint64 free_bytes);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtpccNadu, rtpcc_nadu_free)

G_END_DECLS

#endif

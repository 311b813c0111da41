/* RTP header layout and RFC 8285 header extensions on raw packet bytes.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |V=2|P|X|  CC   |M|     PT      |       sequence number         |
 *  |                           timestamp                           |
 *  |                             SSRC                              |
 *  |                      CSRC (CC × 32 bits)                      |
 *  |  profile (0xBEDE, 0x100x)     |   length (32-bit words)       |  X = 1
 *  |                  extension data (length words)                |
 *  |                    payload … | padding … | pad count          |  P = 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * RFC 8285 one-byte form (profile 0xBEDE): each element is a byte
 * ID (4 bits) | L (4 bits) followed by L + 1 data bytes. A byte with ID 0
 * is a single padding byte (libwebrtc and GStreamer read it so, whatever
 * its low bits); ID 15 is reserved and ends parsing of the whole block.
 * Two-byte form (profile 0x100 in the top 12 bits, the low 4 are
 * "appbits"): an ID byte, a length byte (0..255), then the data; an ID
 * byte of 0 is a single padding byte. An element that runs past the block
 * ends parsing: only the elements before it count.
 *
 * The transport-wide sequence number of draft-holmer-rmcat-transport-wide-
 * cc-extensions-01 is one such element: 2 bytes, big-endian (in one-byte
 * form: ID | L=1, seq). The sender (RtpccSender) stamps it with the
 * writer here, on the header alone, so the element and the simulator put
 * the same bytes on the wire; it produces what GStreamer's
 * gst_rtp_buffer_add_extension_onebyte_header() does (element appended
 * after the last one, zero padding to a 32-bit boundary).
 *
 * Every reader checks bounds and trusts no length; every writer returns 0
 * (and writes nothing useful) when the output would not be a valid packet.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEEDBACK_RTPEXT_H__
#define __RTPCC_FEEDBACK_RTPEXT_H__

#include <rtpcc/common.h>
#include <rtpcc/packet.h>

G_BEGIN_DECLS

#define RTPCC_RTP_HEADER_MIN 12
#define RTPCC_RTP_EXT_ONE_BYTE 0xBEDE
/* top 12 bits of the profile; the low 4 are application bits */
#define RTPCC_RTP_EXT_TWO_BYTE 0x1000
#define RTPCC_RTP_EXT_TWO_BYTE_MASK 0xFFF0

/* The layout of a syntactically valid RTP packet. */
typedef struct
{
  guint8 csrc_count;
  gboolean marker;
  guint8 pt;
  guint16 seq;
  guint32 timestamp;
  guint32 ssrc;
  gboolean has_extension;       /* the X bit */
  guint16 ext_profile;          /* 0 when !has_extension */
  gsize ext_offset;             /* first byte of the extension data */
  gsize ext_len;                /* extension data bytes (length × 4) */
  gsize header_len;             /* 12 + 4 × CC (+ 4 + ext_len with X) */
  gsize payload_len;            /* between the header and the padding */
  guint8 padding_len;           /* 0 unless the P bit is set */
} RtpccRtpLayout;

/* Parses the fixed header, CSRCs, extension header and padding of @pkt.
 * FALSE (and @layout untouched) unless: version 2, at least 12 bytes, the
 * CSRCs and the extension fit, and with P the padding count is 1..the
 * bytes after the header. */
gboolean rtpcc_rtp_parse_layout (const guint8 * pkt, gsize len,
    RtpccRtpLayout * layout);
/* The header size (fixed + CSRCs + extension) of a valid RTP packet. */
gboolean rtpcc_rtp_header_size (const guint8 * pkt, gsize len,
    gsize * hdr_len);

/* What the endpoints need of an RTP packet, from its bytes: @pkt holds the
 * first @len bytes of a @size-byte packet — all of it (@len = @size), or
 * at least its header (a simulator's packet with a virtual payload; the
 * padding of the rest cannot be checked then, and it counts as payload).
 * Fills @info (ssrc, seq, rtp_ts, pt, marker, size = @size, padding_only,
 * and has_twcc/twcc_seq from a 2-byte element @twcc_ext_id if non-zero;
 * the rest 0) and @header_len. FALSE, @info untouched, if it is not valid
 * RTP (rtpcc_rtp_parse_layout's checks on what is at hand). */
gboolean rtpcc_rtp_parse (const guint8 * pkt, gsize len, gsize size,
    guint8 twcc_ext_id, RtpccRtpInfo * info, gsize * header_len);
/* Sets the sequence number of the RTP packet @pkt (@len bytes) to @seq in
 * place (a renumbering, e.g. sendbuffer closing the holes its own drops
 * left). FALSE, @pkt untouched, unless it is valid RTP. */
gboolean rtpcc_rtp_set_seq (guint8 * pkt, gsize len, guint16 seq);
/* A 12-byte RTP header (no CSRC, extension or padding) from @info's ssrc,
 * seq, rtp_ts, pt and marker; 0 if @max is too small. */
gsize rtpcc_rtp_write_header (const RtpccRtpInfo * info, guint8 * out,
    gsize max);

/* Finds element @id in an RFC 8285 extension block: @profile as in the
 * extension header, @block/@block_len its data (e.g. from
 * gst_rtp_buffer_get_extension_data(): bits, data, wordlen × 4). One-byte
 * form: @id 1..14; two-byte form: @id 1..255. @data points into @block;
 * a two-byte element may have @data_len 0. FALSE if absent, if the block
 * is of another profile, or if @id is out of range. */
gboolean rtpcc_rtp_ext_block_find (guint16 profile, const guint8 * block,
    gsize block_len, guint8 id, const guint8 ** data, gsize * data_len);
/* The same on a whole RTP packet. */
gboolean rtpcc_rtp_find_extension (const guint8 * pkt, gsize len, guint8 id,
    const guint8 ** data, gsize * data_len);

/* Writes into @out a copy of @pkt with element (@id, @data) added:
 *   - no extension yet: sets X and inserts a one-byte (0xBEDE) block after
 *     the CSRCs (so @id must be 1..14 and @data_len 1..16);
 *   - a one-byte block: appends the element after its last element,
 *     reusing the zero padding that follows it (any other byte is kept,
 *     and the block never shrinks), then re-pads with zeros to 32 bits;
 *   - a two-byte block: appends a two-byte element (@id 1..255, @data_len
 *     0..255) and re-pads.
 * CSRCs, payload and RTP padding (P bit and count) are preserved. Returns
 * the new packet length, or 0 if @pkt is not valid RTP, already carries
 * @id, has a block of another profile (or an ID 15 terminator), the
 * element cannot be encoded, the length field would overflow, or @out
 * (@max bytes; must not overlap @pkt) is too small. */
gsize    rtpcc_rtp_add_extension (const guint8 * pkt, gsize len, guint8 id,
    const guint8 * data, gsize data_len, guint8 * out, gsize max);
/* The same on a header alone: @hdr is exactly an RTP header (@len its
 * size: fixed header, CSRCs, extension block), and @out gets the new
 * header, for a sender that puts the unchanged payload (and padding) on
 * the wire from the original buffer after it. 0 also if @len is not
 * exactly the header's size. */
gsize    rtpcc_rtp_header_add_extension (const guint8 * hdr, gsize len,
    guint8 id, const guint8 * data, gsize data_len, guint8 * out, gsize max);

/* The inverse of adding element @id to a packet that had no extension:
 * if @pkt's extension block is one-byte form (0xBEDE) and holds only
 * elements @id (and padding), writes into @out a copy without the block and
 * with X cleared, and returns its length. 0 (nothing written) if there is
 * no block, another element or an ID 15 terminator is in it, an element
 * runs past the block, the block runs past the packet, or @out (@max bytes;
 * must not overlap @pkt) is too small. A receiver uses it to hand on a
 * packet as the sender's application made it, after consuming what the
 * transport added (the transport-wide seq). */
gsize    rtpcc_rtp_strip_extension (const guint8 * pkt, gsize len, guint8 id,
    guint8 * out, gsize max);

/* ---- transport-wide sequence number ------------------------------------ */

#define RTPCC_TWCC_EXTMAP_URI \
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

/* The 2-byte transport-wide seq of element @id (one- or two-byte form);
 * FALSE if absent or not exactly 2 bytes long. */
gboolean rtpcc_rtp_read_twcc_seq (const guint8 * pkt, gsize len, guint8 id,
    guint16 * seq);
/* Overwrites in place an existing 2-byte element @id with @seq; FALSE
 * (nothing written) if there is none. */
gboolean rtpcc_rtp_write_twcc_seq (guint8 * pkt, gsize len, guint8 id,
    guint16 seq);
/* The same in an RTP header alone (@hdr holds at least the header). */
gboolean rtpcc_rtp_header_write_twcc_seq (guint8 * hdr, gsize len,
    guint8 id, guint16 seq);
/* rtpcc_rtp_add_extension() with the 2-byte big-endian @seq. */
gsize    rtpcc_rtp_add_twcc_seq (const guint8 * pkt, gsize len, guint8 id,
    guint16 seq, guint8 * out, gsize max);

G_END_DECLS

#endif

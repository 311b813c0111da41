/* Packet-level forward error correction on its own SSRC / PT / sequence
 * space (FlexFEC-like, RFC 8627 in spirit; protection per RFC 5109).
 *
 * Every media packet is turned into an RFC 5109 "bit string": the first
 * two RTP header bytes (V P X CC M PT), a 16-bit length (the packet length
 * minus the 12-byte fixed header, i.e. CSRCs + extension + payload +
 * padding), the 32-bit timestamp and then everything after the fixed
 * header. Parity is computed over these strings zero-padded to the longest,
 * so a recovered string restores the header fields, the length and the
 * payload; sequence number and SSRC come from the FEC header.
 *
 * FEC packet = 12-byte RTP header (FEC SSRC, FEC PT, FEC seq) +
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |V=1| S | rsvd  |     index     |       m       |   reserved    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       protected SSRC                          |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |         SN base               |  mask (48 bits, MSB = SN base) :
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  :                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  parity bit string (>= 8 bytes) ...           |
 *
 * S = 0: XOR (m = 1, index = 0): parity = XOR of the protected strings.
 * S = 1: Reed-Solomon over GF(2^8) (ISA-L, Cauchy generator): parity row
 *        @index of @m; the protected packets in ascending sequence order
 *        are the k = popcount(mask) data symbols, so any m losses among
 *        the k + m packets of a block are recoverable.
 * 2-D XOR is plain XOR packets with row and column (strided) masks; the
 * decoder's iterative peeling recovers what rows alone cannot.
 *
 * The ULPFEC compatibility parser reads RFC 5109 packets as produced by
 * GStreamer's rtpulpfecenc (same SSRC and sequence space as the media) into
 * the same representation.
 *
 * Everything here is sans-I/O: time is an argument, nothing blocks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEC_H__
#define __RTPCC_FEC_H__

#include <rtpcc/common.h>

G_BEGIN_DECLS

#define RTPCC_FEC_HEADER_LEN   16       /* after the RTP header */
#define RTPCC_FEC_MAX_SPAN     48       /* mask bits: packets a block spans */
#define RTPCC_FEC_MAX_PARITY   16       /* m */
#define RTPCC_FEC_MAX_RTP      8192     /* largest protected RTP packet */
#define RTPCC_FEC_MIN_N        2
#define RTPCC_FEC_MAX_N        14

/* The XOR interval N for a controller's split of the target into media
 * and FEC bit rates (one parity per N media packets: fec = media / N, as
 * FBRA sets its FEC interval; Nagy, Singh, Ott, Eggert, "Congestion control
 * using FEC for conversational multimedia communication", ACM MMSys 2014):
 * round (media / fec) clamped to [RTPCC_FEC_MIN_N, RTPCC_FEC_MAX_N]; 0 when
 * either rate is 0 (FEC off). */
guint rtpcc_fec_interval_for_rates (guint64 media_bitrate,
    guint64 fec_bitrate);

#define RTPCC_FEC_DEFAULT_PT   122

typedef enum
{
  RTPCC_FEC_SCHEME_XOR = 0,
  RTPCC_FEC_SCHEME_RS = 1,
  RTPCC_FEC_SCHEME_XOR_2D = 2,  /* encoder only: rows + interleaved columns */
} RtpccFecScheme;

const gchar *rtpcc_fec_scheme_name (RtpccFecScheme scheme);

/* ---- format ---------------------------------------------------------- */

/* TRUE if @data is a structurally valid RTP packet (V = 2, CSRC list,
 * header extension and padding all inside @len). */
gboolean rtpcc_fec_rtp_valid (const guint8 * data, gsize len);

/* Bit string of a valid RTP packet into @out (room for @len - 4 bytes);
 * returns its length, @len - 4. */
gsize rtpcc_fec_bitstring (const guint8 * rtp, gsize len, guint8 * out);

/* Rebuilds the RTP packet from a recovered bit string. Returns a new
 * GBytes, or NULL if the string does not describe a valid packet (its
 * length field exceeds @bs_len or the result fails rtpcc_fec_rtp_valid). */
GBytes *rtpcc_fec_rebuild (const guint8 * bs, gsize bs_len, guint16 seq,
    guint32 ssrc);

typedef struct
{
  RtpccFecScheme scheme;        /* XOR or RS (2-D packets are XOR) */
  guint8 index;                 /* RS parity row, 0 for XOR */
  guint8 m;                     /* RS parity count, 1 for XOR */
  guint8 k;                     /* popcount (mask) */
  guint32 ssrc;                 /* protected SSRC */
  guint16 base;                 /* SN base */
  guint64 mask;                 /* bit (47 - i) set: base + i protected */
  guint16 fec_seq;              /* the FEC packet's own RTP seq */
  guint32 fec_ssrc;
  guint8 *parity;               /* owned copy */
  gsize parity_len;
} RtpccFecPacket;

/* Parses a whole RTP packet carrying our FEC payload. On failure @out is
 * untouched and @error says why. */
gboolean rtpcc_fec_packet_parse (const guint8 * data, gsize len,
    RtpccFecPacket * out, GError ** error);
/* Parses an RFC 5109 ULPFEC packet (level 0 only; the L bit selects the
 * 16- or 48-bit mask) as rtpulpfecenc sends it: protected SSRC = its own
 * SSRC. */
gboolean rtpcc_fec_packet_parse_ulpfec (const guint8 * data, gsize len,
    RtpccFecPacket * out, GError ** error);
void rtpcc_fec_packet_clear (RtpccFecPacket * pkt);
/* The SSRC a FEC payload (what follows the RTP header) protects, read from
 * its header without parsing the rest: FALSE if @len is shorter than the
 * header or the version is not ours. Lets a sender learn which SSRC
 * fecenc protects before the packet goes out. */
gboolean rtpcc_fec_payload_protected_ssrc (const guint8 * payload, gsize len,
    guint32 * ssrc);

/* Seq of the i-th protected packet (i-th set bit from the MSB); FALSE if
 * there is no such bit. */
guint rtpcc_fec_mask_seqs (guint64 mask, guint16 base, guint16 * seqs);
/* Writes SN base and mask into an FEC header (@fec_header: its
 * RTPCC_FEC_HEADER_LEN bytes). */
void rtpcc_fec_header_set_protected (guint8 * fec_header, guint16 base,
    guint64 mask);

/* ---- codecs (pure functions on equal-length buffers) -------------------- */

/* parity[0..len) = XOR of data[i][0..len) */
void rtpcc_fec_xor (guint8 * parity, guint8 * const *data, guint n, gsize len);
/* acc[0..len) ^= src[0..len) */
void rtpcc_fec_xor_into (guint8 * acc, const guint8 * src, gsize len);
/* m parity rows from k data rows (Cauchy RS over GF(2^8), ISA-L). k + m
 * <= 255. */
void rtpcc_fec_rs_encode (guint k, guint m, gsize len, guint8 * const *data,
    guint8 ** parity);
/* Restores the missing data rows in place. @data[i] for i < k points to a
 * buffer of @len bytes; @present[i] says whether it holds the symbol.
 * @parity[j] (j < m) is NULL if parity row j is missing. FALSE if fewer
 * than k symbols are present (nothing is written). */
gboolean rtpcc_fec_rs_decode (guint k, guint m, gsize len, guint8 ** data,
    const gboolean * present, guint8 * const *parity);

/* ---- encoder ----------------------------------------------------------- */

typedef struct
{
  RtpccFecScheme scheme;
  guint n;                      /* XOR / 2-D row length, [2, 14] */
  guint depth;                  /* 2-D rows per matrix, [2, 8]; n*depth <= 48 */
  guint k, m;                   /* RS: k in [2, 48], m in [1, 16] */
  RtpccTime max_block_time;     /* > 0: parity no later than first + this */
  guint32 ssrc;                 /* FEC stream SSRC */
  guint8 pt;                    /* FEC payload type */
} RtpccFecEncoderConfig;

void rtpcc_fec_encoder_config_init (RtpccFecEncoderConfig * config);
gboolean rtpcc_fec_encoder_config_validate (const RtpccFecEncoderConfig *
    config, GError ** error);
/* A parity packet's bytes over a media packet's, on average: a parity
 * packet is as long as the longest packet it protects plus the FEC header,
 * so one parity per n media packets costs about this / n of the media's
 * bytes, more than 1 / n where sizes vary (a video frame's last packet is
 * short). From the media packets' mean size @mean and the largest @longest
 * of late (a block nearly always holds one as long); 1 if either is
 * unknown (0). What turns a byte budget for FEC into a packet share. */
gdouble rtpcc_fec_parity_ratio (gdouble mean, guint longest);

#define RTPCC_FEC_SIZES_RING 256

/* The media packets' sizes: mean and largest over the last @window, and
 * the last RTPCC_FEC_SIZES_RING of them in order. */
typedef struct
{
  RtpccTime window;
  RtpccTime start;              /* of the current window; NONE: empty */
  guint64 bytes, packets;       /* current window */
  guint longest;
  gdouble ratio;                /* rtpcc_fec_parity_ratio of the last full
                                 * window; 1 before */
  guint16 ring[RTPCC_FEC_SIZES_RING];
  guint ring_len, ring_pos;
} RtpccFecSizes;

void rtpcc_fec_sizes_init (RtpccFecSizes * sizes, RtpccTime window);
void rtpcc_fec_sizes_add (RtpccFecSizes * sizes, RtpccTime now, guint size);
/* The parity ratio per block length: @ratios[k] (1 ≤ k ≤
 * RTPCC_FEC_MAX_SPAN) is the mean over the consecutive blocks of k of the
 * last packets of (their largest + the FEC header), over their mean size:
 * what one parity for k of them costs against one of them. A short block
 * of small packets has a short parity; the longer the block, the likelier
 * it holds a full-size packet. Where fewer than two blocks of k are known,
 * the window's ratio. @ratios[0] = 1. */
void rtpcc_fec_sizes_ratios (const RtpccFecSizes * sizes,
    gdouble ratios[RTPCC_FEC_MAX_SPAN + 1]);
/* The same for one block length @k (1 ≤ k ≤ RTPCC_FEC_MAX_SPAN). */
gdouble rtpcc_fec_sizes_ratio (const RtpccFecSizes * sizes, guint k);

/* What an encoder following a controller's target sets (fecenc
 * follow-target, the simulator's FEC) in @config, whose scheme is the
 * caller's: with the controller's own FEC interval @interval (> 0: FBRA's,
 * rtpcc_sender_get_fec_interval), n = that interval and blocks closed by
 * count (its FEC is its probe, at the rate it asked for: a time bound
 * would close blocks short of n at low packet rates and multiply that
 * rate); else n from the rates and @max_block_time: the fec bit rate
 * buys parity packets rtpcc_fec_sizes_ratio (@sizes, n) times a media
 * packet's size (@sizes NULL: 1), so n = rtpcc_fec_interval_for_rates of
 * the media rate × that ratio, taken at the n of the rates alone.
 * Returns whether FEC is on (@config untouched if not). */
gboolean rtpcc_fec_config_follow (RtpccFecEncoderConfig * config,
    guint64 media_bitrate, guint64 fec_bitrate, guint interval,
    RtpccTime max_block_time, const RtpccFecSizes * sizes);

typedef struct
{
  guint64 media_packets, media_bytes;
  guint64 fec_packets, fec_bytes;
  guint64 blocks, blocks_closed_by_time;
  guint64 skipped;              /* invalid RTP or SSRC change: not protected */
} RtpccFecEncoderStats;

typedef struct _RtpccFecEncoder RtpccFecEncoder;

RtpccFecEncoder *rtpcc_fec_encoder_new (const RtpccFecEncoderConfig * config,
    GError ** error);
void rtpcc_fec_encoder_free (RtpccFecEncoder * enc);
/* New parameters apply at once: an open block that already reaches the new
 * size is closed (its parity queued). */
gboolean rtpcc_fec_encoder_set_config (RtpccFecEncoder * enc,
    const RtpccFecEncoderConfig * config, GError ** error);
const RtpccFecEncoderConfig *rtpcc_fec_encoder_get_config (RtpccFecEncoder *
    enc);
/* Disabling discards the open block: no parity is produced after it. */
void rtpcc_fec_encoder_set_enabled (RtpccFecEncoder * enc, gboolean enabled);
gboolean rtpcc_fec_encoder_get_enabled (RtpccFecEncoder * enc);
/* One media packet sent at @now (it should be sent before any parity this
 * queues). Closes blocks the time bound expired first. */
void rtpcc_fec_encoder_push (RtpccFecEncoder * enc, const guint8 * rtp,
    gsize len, RtpccTime now);
/* Closes blocks whose time bound is reached at @now. */
void rtpcc_fec_encoder_poll (RtpccFecEncoder * enc, RtpccTime now);
/* Earliest time poll() has something to do; RTPCC_TIME_INFINITE if none. */
RtpccTime rtpcc_fec_encoder_next_deadline (RtpccFecEncoder * enc);
/* After a push at @now: if the next media packet, expected one mean
 * inter-arrival later, would come after the open block's time bound, the
 * block is closed now (its parity goes with this packet, not a gap
 * later). */
void rtpcc_fec_encoder_close_early (RtpccFecEncoder * enc, RtpccTime now);
/* Closes every open block now (EOS). */
void rtpcc_fec_encoder_flush (RtpccFecEncoder * enc);
/* Next queued FEC packet (a whole RTP packet), or NULL. */
GBytes *rtpcc_fec_encoder_pop (RtpccFecEncoder * enc);
void rtpcc_fec_encoder_get_stats (RtpccFecEncoder * enc,
    RtpccFecEncoderStats * stats);

/* ---- decoder ----------------------------------------------------------- */

typedef struct
{
  /* How long a missing packet is waited for (from the arrival of the first
   * packet after it) before it is given up; a recovery after that is
   * "late" and discarded. */
  RtpccTime deadline;
  /* FEC packets are RFC 5109 in the media seq space; released media is
   * renumbered to close the gaps FEC packets leave (real losses stay gaps) */
  gboolean ulpfec;
  /* rtpcc_fec_decoder_push: the payload type that marks FEC packets */
  guint8 fec_pt;
} RtpccFecDecoderConfig;

void rtpcc_fec_decoder_config_init (RtpccFecDecoderConfig * config);

typedef struct
{
  guint64 media_packets;        /* media of the stream received */
  guint64 fec_packets;          /* valid FEC received */
  guint64 fec_corrupt;          /* malformed FEC packets dropped */
  guint64 bad_recoveries;       /* recovered bytes not a valid RTP packet */
  guint64 recovered;            /* rebuilt in time and released */
  guint64 late_recovered;       /* rebuilt after being given up: discarded */
  guint64 unrecoverable;        /* given up: never released */
  guint64 late_media;           /* media arriving after its slot was given up */
  guint64 duplicates;
  guint64 pushed;               /* released packets, recovered included */
  guint64 passed;               /* not ours to order (other SSRC, bad RTP) */
  guint64 not_rtp;              /* push(): shorter than an RTP header */
  guint64 refused;              /* sequence jumps no packet confirmed:
                                 * dropped */
  guint64 restarts;             /* sequence jumps believed: the window
                                 * started over */
  guint64 ssrc_changes;         /* the stream moved to another SSRC */
  guint fec_stored;             /* FEC packets held for repair now */
} RtpccFecDecoderStats;

typedef enum
{
  RTPCC_FEC_MEDIA_QUEUED,       /* stored; comes out of pop() in order */
  RTPCC_FEC_MEDIA_PASS,         /* not handled: forward it unchanged */
  RTPCC_FEC_MEDIA_DROPPED,      /* duplicate or too late: drop it */
} RtpccFecMediaResult;

/* What rtpcc_fec_decoder_push made of a packet. */
typedef enum
{
  RTPCC_FEC_INPUT_QUEUED,       /* media, comes out of pop() */
  RTPCC_FEC_INPUT_PASS,         /* forward it unchanged */
  RTPCC_FEC_INPUT_DROPPED,      /* media, duplicate or too late */
  RTPCC_FEC_INPUT_FEC,          /* a FEC packet, taken */
  RTPCC_FEC_INPUT_FEC_CORRUPT,  /* a malformed FEC packet, counted */
  RTPCC_FEC_INPUT_NOT_RTP,      /* shorter than an RTP header, counted */
} RtpccFecInput;

typedef struct _RtpccFecDecoder RtpccFecDecoder;

/* The media stream is the SSRC the FEC protects (its header names it), or
 * else the first one seen. A packet of another SSRC is held back (QUEUED)
 * until the next packet shows what it was: a stray, then it comes out of
 * pop() unchanged (counted passed), or the stream's new SSRC (a sender
 * restart: a second packet following it in sequence, or FEC naming it),
 * then the old stream's packets come out and the new one is followed. A
 * sequence jump on the stream (more than 256 ahead of the highest sequence
 * number or 1024 behind it, in the manner of RFC 3550 A.1) is held back
 * the same way: refused (dropped, counted) unless the next packet follows
 * it within 16, then the window starts over at it. */
RtpccFecDecoder *rtpcc_fec_decoder_new (const RtpccFecDecoderConfig * config);
void rtpcc_fec_decoder_free (RtpccFecDecoder * dec);
void rtpcc_fec_decoder_set_deadline (RtpccFecDecoder * dec, RtpccTime deadline);
void rtpcc_fec_decoder_set_fec_pt (RtpccFecDecoder * dec, guint8 pt);
/* Whatever arrives on a session: a packet of payload type config.fec_pt
 * is FEC, any other media. @tag is the caller's (e.g. a timestamp) and
 * comes back with the packet from rtpcc_fec_decoder_pop_tagged. */
RtpccFecInput rtpcc_fec_decoder_push (RtpccFecDecoder * dec,
    const guint8 * data, gsize len, RtpccTime now, guint64 tag);
RtpccFecMediaResult rtpcc_fec_decoder_push_media (RtpccFecDecoder * dec,
    const guint8 * rtp, gsize len, RtpccTime now);
/* FALSE if the packet is malformed (dropped and counted). */
gboolean rtpcc_fec_decoder_push_fec (RtpccFecDecoder * dec,
    const guint8 * data, gsize len, RtpccTime now);
/* The copy the last push stored of its media packet in the window, or
 * NULL (FEC, held back, dropped, passed): the very GBytes pop returns for
 * that packet, unless renumbered (ULPFEC). The decoder's until the next
 * push. A caller tells its own packet coming back by it, without
 * comparing bytes. */
GBytes *rtpcc_fec_decoder_last_stored (RtpccFecDecoder * dec);
/* Next packet to forward, in sequence order, or NULL. @recovered (may be
 * NULL) tells whether it was rebuilt from FEC. With @now
 * RTPCC_TIME_INFINITE (nothing more will arrive) every hole is final and a
 * packet held back for a confirmation that cannot come is settled. */
GBytes *rtpcc_fec_decoder_pop (RtpccFecDecoder * dec, RtpccTime now,
    gboolean * recovered);
/* The same, and the @tag (may be NULL) the packet was pushed with (0 for a
 * rebuilt one). */
GBytes *rtpcc_fec_decoder_pop_tagged (RtpccFecDecoder * dec, RtpccTime now,
    gboolean * recovered, guint64 * tag);
/* When pop() may next release something by timeout; INFINITE if never. */
RtpccTime rtpcc_fec_decoder_next_timeout (RtpccFecDecoder * dec);
void rtpcc_fec_decoder_get_stats (RtpccFecDecoder * dec,
    RtpccFecDecoderStats * stats);

G_END_DECLS

#endif

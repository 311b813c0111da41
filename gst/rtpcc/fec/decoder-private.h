/* The FEC decoder's state, shared by its two halves: decoder.c (which
 * stream, the sequence window, release in order) and recover.c (the stored
 * FEC blocks, indexed by the sequence numbers they protect, and repair).
 *
 * Library-internal (not installed).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_FEC_DECODER_PRIVATE_H__
#define __RTPCC_FEC_DECODER_PRIVATE_H__

#include "fec.h"
#include "rs.h"
#include <rtpcc/seqjump.h>

G_BEGIN_DECLS

#define RTPCC_FEC_WIN 1024      /* sequence window, power of two */
#define RTPCC_FEC_MAX_ROWS 1024 /* stored FEC packets at most */
/* Blocks whose last seq is this far behind the release point are dropped
 * unread: nothing they could rebuild would still be wanted. */
#define RTPCC_FEC_TOO_OLD (RTPCC_FEC_WIN / 2)

typedef enum
{
  SLOT_EMPTY = 0,
  SLOT_MEDIA,
  SLOT_RECOVERED,
  SLOT_GONE,                    /* given up */
  SLOT_NOT_MEDIA,               /* ULPFEC packet in the media seq space */
} SlotState;

typedef struct _FecBlock FecBlock;

typedef struct
{
  gint64 ext;
  SlotState state;
  GBytes *pkt;
  guint64 tag;
  RtpccTime arrival;
  /* the stored blocks protecting a seq that maps to this slot (ext or, in
   * a window far ahead of its release point, ext ± RTPCC_FEC_WIN) */
  FecBlock **prot;
  guint n_prot, cap_prot;
} Slot;

/* What one FEC packet, or the rows of one RS block, protect. */
struct _FecBlock
{
  RtpccFecScheme scheme;
  guint32 ssrc;
  guint16 base;
  guint64 mask;
  guint8 m, k;
  gsize parity_len;
  gint64 ext_base;              /* SN base, unwrapped when stored */
  gint64 ext[RTPCC_FEC_MAX_SPAN];       /* the protected seqs, ascending */
  guint8 *rows[RTPCC_FEC_MAX_PARITY];   /* XOR: rows[0]; RS: by index */
  guint n_rows;
  GList link;                   /* in the decoder's arrival-ordered list */
};

/* A packet held back: on probation (a sequence jump or another SSRC). */
typedef struct
{
  gboolean held;
  GBytes *pkt;
  guint64 tag;
  guint32 ssrc;
  guint16 seq;
} Held;

typedef struct
{
  GBytes *pkt;
  guint64 tag;
  gboolean recovered;
} Ready;

struct _RtpccFecDecoder
{
  RtpccFecDecoderConfig cfg;
  RtpccFecDecoderStats stats;
  gboolean have_ssrc;
  guint32 ssrc;                 /* the media stream ordered and repaired */
  gboolean have_fec_ssrc;
  guint32 fec_ssrc;             /* the SSRC the last valid FEC protected */
  gboolean started;
  gint64 next;                  /* next extended seq to release */
  gint64 highest;
  RtpccTime highest_time;       /* when @highest last rose */
  Slot slots[RTPCC_FEC_WIN];
  GQueue ready;                 /* Ready*: released before the window */
  guint16 fec_slots;            /* ULPFEC: FEC seqs released so far */

  RtpccSeqJump jump;            /* the media SSRC's sequence probation */
  Held jump_held;               /* the packet that jumped */
  Held other;                   /* a packet of another SSRC */
  GBytes *last_stored;          /* the last push's packet as stored, or
                                 * NULL (a reference) */

  /* recover.c */
  GQueue blocks;                /* FecBlock, oldest first (link) */
  guint n_rows;
  GPtrArray *early;             /* RtpccFecPacket*: before the first media */
  GArray *work;                 /* gint64: seqs that gained data */
  GPtrArray *snapshot;          /* FecBlock*: the blocks one seq retries */
  RtpccFecRsCache rs;
  guint8 *scratch[RTPCC_FEC_MAX_SPAN + 1];
};

/* decoder.c */
G_GNUC_INTERNAL Slot *rtpcc_fec_dec_slot_get (RtpccFecDecoder * dec,
    gint64 ext);
G_GNUC_INTERNAL gboolean rtpcc_fec_dec_has_data (RtpccFecDecoder * dec,
    gint64 ext);
G_GNUC_INTERNAL gint64 rtpcc_fec_dec_unwrap (RtpccFecDecoder * dec,
    guint16 seq);
/* A rebuilt packet for @ext (NULL: a bad recovery): stored if still
 * wanted (TRUE), else counted late. */
G_GNUC_INTERNAL gboolean rtpcc_fec_dec_place_recovered (RtpccFecDecoder *
    dec, gint64 ext, GBytes * pkt, RtpccTime now);

/* recover.c */
G_GNUC_INTERNAL void rtpcc_fec_blocks_init (RtpccFecDecoder * dec);
G_GNUC_INTERNAL void rtpcc_fec_blocks_clear (RtpccFecDecoder * dec);
G_GNUC_INTERNAL void rtpcc_fec_blocks_free (RtpccFecDecoder * dec);
/* A valid FEC packet of the current stream (@pkt's parity is taken). */
G_GNUC_INTERNAL void rtpcc_fec_blocks_add (RtpccFecDecoder * dec,
    RtpccFecPacket * pkt, RtpccTime now);
/* Media (or a rebuilt packet) is now stored at @ext: retry what protects
 * it, and what that repairs in turn. */
G_GNUC_INTERNAL void rtpcc_fec_blocks_gained (RtpccFecDecoder * dec,
    gint64 ext, RtpccTime now);
/* The stream started: the FEC packets that came before its first media. */
G_GNUC_INTERNAL void rtpcc_fec_blocks_started (RtpccFecDecoder * dec,
    RtpccTime now);
/* @ext was given up: blocks it leaves beyond repair are dropped. */
G_GNUC_INTERNAL void rtpcc_fec_blocks_given_up (RtpccFecDecoder * dec,
    gint64 ext);
/* Drop the blocks that fell too far behind the release point. */
G_GNUC_INTERNAL void rtpcc_fec_blocks_prune (RtpccFecDecoder * dec);

G_END_DECLS

#endif /* __RTPCC_FEC_DECODER_PRIVATE_H__ */

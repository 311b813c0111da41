/* RtpccPeer: which address a receiver answers to (see peer.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <rtpcc/peer.h>

#include <string.h>

/* addresses on probation at once: a spray of packets from other addresses
 * or SSRCs does not reset the probation of the real sender's (the least
 * recently heard candidate gives way) */
#define CANDIDATES 8

typedef struct
{
  RtpccAddress addr;
  guint32 ssrc;
  guint16 next_seq;
  guint count;                  /* 0: free */
  gboolean media;               /* the run carried payload */
  RtpccTime heard;
} Candidate;

typedef struct
{
  guint32 ssrc;
  guint16 max_seq;
  RtpccTime heard;              /* NONE: free */
} MediaSsrc;

struct _RtpccPeer
{
  RtpccAddress peer;            /* len 0: none */
  RtpccTime last_heard;
  MediaSsrc media[RTPCC_PEER_MAX_SSRCS];
  Candidate cand[CANDIDATES];
  RtpccPeerStats stats;
};

gboolean
rtpcc_address_set (RtpccAddress * addr, const void *bytes, gsize len)
{
  memset (addr, 0, sizeof (*addr));
  if (len == 0 || len > RTPCC_ADDRESS_MAX || !bytes)
    return FALSE;
  addr->len = (guint8) len;
  memcpy (addr->bytes, bytes, len);
  return TRUE;
}

gboolean
rtpcc_address_equal (const RtpccAddress * a, const RtpccAddress * b)
{
  return a->len == b->len && memcmp (a->bytes, b->bytes, a->len) == 0;
}

static void
clear_media (RtpccPeer * p)
{
  for (guint i = 0; i < RTPCC_PEER_MAX_SSRCS; i++)
    p->media[i].heard = RTPCC_TIME_NONE;
}

RtpccPeer *
rtpcc_peer_new (void)
{
  RtpccPeer *p = g_new0 (RtpccPeer, 1);

  p->last_heard = RTPCC_TIME_NONE;
  clear_media (p);
  return p;
}

void
rtpcc_peer_free (RtpccPeer * p)
{
  g_free (p);
}

const RtpccAddress *
rtpcc_peer_get (const RtpccPeer * p)
{
  return p->peer.len ? &p->peer : NULL;
}

const RtpccPeerStats *
rtpcc_peer_get_stats (const RtpccPeer * p)
{
  return &p->stats;
}

static MediaSsrc *
find_media (RtpccPeer * p, guint32 ssrc)
{
  for (guint i = 0; i < RTPCC_PEER_MAX_SSRCS; i++)
    if (p->media[i].heard != RTPCC_TIME_NONE && p->media[i].ssrc == ssrc)
      return &p->media[i];
  return NULL;
}

/* the peer sent @seq on @ssrc (with payload, or on an SSRC known to carry
 * it): remember the highest seq */
static void
note_media (RtpccPeer * p, RtpccTime now, guint32 ssrc, guint16 seq)
{
  MediaSsrc *m = find_media (p, ssrc);

  if (!m) {
    m = &p->media[0];
    for (guint i = 0; i < RTPCC_PEER_MAX_SSRCS; i++) {
      if (p->media[i].heard == RTPCC_TIME_NONE) {
        m = &p->media[i];
        break;
      }
      if (p->media[i].heard < m->heard)
        m = &p->media[i];
    }
    m->ssrc = ssrc;
    m->max_seq = seq;
  } else if ((gint16) (seq - m->max_seq) > 0)
    m->max_seq = seq;
  m->heard = now;
}

static void
clear_candidates (RtpccPeer * p)
{
  memset (p->cand, 0, sizeof (p->cand));
}

/* One more packet in sequence from (@from, @ssrc)? Returns the length of
 * the run it is part of; 0 while the run carried no payload (padding
 * probes continue a run, as they share the media's seqs, but never make
 * one on their own). */
static guint
candidate_run (RtpccPeer * p, RtpccTime now, const RtpccAddress * from,
    guint32 ssrc, guint16 seq, gboolean media)
{
  Candidate *c = NULL, *victim = &p->cand[0];

  for (guint i = 0; i < CANDIDATES; i++) {
    Candidate *x = &p->cand[i];
    if (x->count && x->ssrc == ssrc && rtpcc_address_equal (&x->addr, from)) {
      c = x;
      break;
    }
    if (!x->count || (victim->count && x->heard < victim->heard))
      victim = x;
  }
  if (c && seq == c->next_seq)
    c->count++;
  else {
    if (!c) {
      c = victim;
      c->addr = *from;
      c->ssrc = ssrc;
    }
    c->count = 1;
    c->media = FALSE;
  }
  c->media |= media;
  c->next_seq = (guint16) (seq + 1);
  c->heard = now;
  return c->media ? c->count : 0;
}

/* @from becomes the peer */
static void
adopt (RtpccPeer * p, RtpccTime now, const RtpccAddress * from)
{
  if (p->peer.len)
    p->stats.changes++;
  p->peer = *from;
  p->last_heard = now;
  clear_candidates (p);
}

RtpccPeerVerdict
rtpcc_peer_on_rtp (RtpccPeer * p, RtpccTime now, const RtpccAddress * from,
    guint32 ssrc, guint16 seq, gboolean media)
{
  MediaSsrc *m;

  if (p->peer.len && rtpcc_address_equal (from, &p->peer)) {
    p->last_heard = now;
    if (media || find_media (p, ssrc))
      note_media (p, now, ssrc, seq);
    /* the peer still sends on this SSRC: a run elsewhere is not a move */
    for (guint i = 0; i < CANDIDATES; i++)
      if (p->cand[i].count && p->cand[i].ssrc == ssrc)
        p->cand[i].count = 0;
    return RTPCC_PEER_TAKE;
  }

  if (!p->peer.len || now - p->last_heard >= RTPCC_PEER_SILENCE) {
    /* no peer, or it is gone: the first source to pass probation */
    gboolean had = p->peer.len != 0;
    if (candidate_run (p, now, from, ssrc, seq, media) >=
        RTPCC_PEER_PROBATION) {
      adopt (p, now, from);
      clear_media (p);
      note_media (p, now, ssrc, seq);
      return RTPCC_PEER_TAKE;
    }
    if (!had)
      return RTPCC_PEER_TAKE;
    p->stats.refused++;
    return RTPCC_PEER_REFUSE;
  }

  /* the established media source from a new address: continuing its
   * sequence, several times in a row */
  m = find_media (p, ssrc);
  if (m) {
    guint16 ahead = (guint16) (seq - m->max_seq);
    if (ahead >= 1 && ahead <= RTPCC_PEER_MAX_DROPOUT
        && candidate_run (p, now, from, ssrc, seq, TRUE) >=
        RTPCC_PEER_PROBATION) {
      adopt (p, now, from);
      note_media (p, now, ssrc, seq);
      return RTPCC_PEER_TAKE;
    }
  }
  p->stats.refused++;
  return RTPCC_PEER_REFUSE;
}

RtpccPeerVerdict
rtpcc_peer_on_rtcp (RtpccPeer * p, RtpccTime now, const RtpccAddress * from)
{
  if (!p->peer.len)
    return RTPCC_PEER_TAKE;
  if (rtpcc_address_equal (from, &p->peer)) {
    p->last_heard = now;
    return RTPCC_PEER_TAKE;
  }
  p->stats.rtcp_refused++;
  return RTPCC_PEER_REFUSE;
}

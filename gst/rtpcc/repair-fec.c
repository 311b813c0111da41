/* The repair planner's FEC side: which losses the FEC blocks whose repair
 * packets came in can rebuild (peeling), and how long FEC takes to come
 * (the learnt FEC window). The rules are in repair.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "repair-private.h"

#include <string.h>

/* TRUE if @blk may cover a missing seq (most remembered blocks do not). */
static gboolean
block_active (const RtpccRepair * r, const FecBlock * blk)
{
  const GArray *a = r->missing;

  return a->len > 0 && blk->hi >= g_array_index (a, Missing, 0).ext
      && blk->lo <= g_array_index (a, Missing, a->len - 1).ext;
}

/* Peels the remembered blocks, from scratch each time (a loss revealed
 * later may join a block that looked rebuildable): a block with no more
 * losses left than repair packets in rebuilds them, and those count as
 * present for the other blocks (a 2-D decoder's iteration); then
 * complete blocks that cannot rebuild their losses get some NACKed. */
void
rtpcc_repair_settle_fec (RtpccRepair * r, RtpccTime now)
{
  gboolean changed = TRUE;

  for (guint i = 0; i < r->missing->len; i++)
    g_array_index (r->missing, Missing, i).fec_ok = FALSE;
  while (changed) {
    changed = FALSE;
    for (guint b = 0; b < r->n_blocks; b++) {
      FecBlock *blk = &r->blocks[b];
      guint left = 0;

      if (!block_active (r, blk))
        continue;
      for (guint i = 0; i < blk->n; i++) {
        Missing *m = rtpcc_repair_find_missing (r, blk->ext[i], NULL);
        if (m != NULL && !m->fec_ok)
          left++;
      }
      if (left == 0 || left > blk->n_parity)
        continue;
      for (guint i = 0; i < blk->n; i++) {
        Missing *m = rtpcc_repair_find_missing (r, blk->ext[i], NULL);
        if (m != NULL && !m->fec_ok) {
          m->fec_ok = TRUE;
          if (!m->fec_counted) {
            m->fec_counted = TRUE;
            r->stats.fec_rebuildable++;
          }
        }
      }
      changed = TRUE;
    }
  }
  /* a complete block short of k repair packets needs k of its losses
   * retransmitted, and rebuilds the rest once they are in: NACK k, hold
   * the others back for as long as that takes (an RTT), then NACK them
   * too if they are still missing */
  for (guint b = 0; b < r->n_blocks; b++) {
    FecBlock *blk = &r->blocks[b];
    guint left = 0, failed = 0;

    if (!blk->complete || !block_active (r, blk))
      continue;
    for (guint i = 0; i < blk->n; i++) {
      Missing *m = rtpcc_repair_find_missing (r, blk->ext[i], NULL);
      if (m != NULL && !m->fec_ok) {
        left++;
        if (m->fec_failed)
          failed++;
      }
    }
    for (guint i = 0; i < blk->n && left > blk->n_parity; i++) {
      Missing *m = rtpcc_repair_find_missing (r, blk->ext[i], NULL);
      if (m == NULL || m->fec_ok || m->fec_failed)
        continue;
      if (failed < left - blk->n_parity) {
        m->fec_failed = TRUE;
        m->fec_until = RTPCC_TIME_NONE;
        r->stats.fec_unrecoverable++;
        failed++;
      } else if (!m->fec_held) {
        m->fec_held = TRUE;
        m->fec_until = now + rtpcc_repair_current_rtt (r) + r->config.nack_margin;
      }
    }
  }
}

/* The window sample of a repair packet: from the earliest arrival among
 * the originals it covers. */
static void
learn_fec_window (RtpccRepair * r, RtpccTime now, const FecBlock * blk)
{
  RtpccTime first = RTPCC_TIME_NONE;

  for (guint i = 0; i < blk->n; i++) {
    guint slot = (guint) (blk->ext[i] % ARRIVALS);

    if (r->arrival_ext[slot] == blk->ext[i] && (first == RTPCC_TIME_NONE
            || r->arrival_at[slot] < first))
      first = r->arrival_at[slot];
  }
  if (first != RTPCC_TIME_NONE && now >= first)
    rtpcc_window_extreme_add (&r->fec_window, now, now - first, TRUE);
}

void
rtpcc_repair_on_fec_parity (RtpccRepair * repair, RtpccTime now,
    const guint16 * seqs, guint n_seqs, guint n_parity, gboolean complete)
{
  RtpccRepair *r = repair;
  FecBlock blk = { {0}, 0, 0, 0, 0, FALSE };
  FecBlock *slot = NULL;

  r->last_now = now;
  if (!r->started || seqs == NULL || n_seqs == 0)
    return;
  blk.n = MIN (n_seqs, RTPCC_REPAIR_FEC_MAX_SEQS);
  blk.lo = G_MAXINT64;
  blk.hi = G_MININT64;
  for (guint i = 0; i < blk.n; i++) {
    blk.ext[i] = rtpcc_repair_ext_of (r, seqs[i]);
    blk.lo = MIN (blk.lo, blk.ext[i]);
    blk.hi = MAX (blk.hi, blk.ext[i]);
  }
  blk.n_parity = n_parity;
  blk.complete = complete;
  learn_fec_window (r, now, &blk);

  for (guint b = 0; b < r->n_blocks && slot == NULL; b++) {
    FecBlock *o = &r->blocks[b];
    if (o->n == blk.n && memcmp (o->ext, blk.ext,
            blk.n * sizeof (gint64)) == 0)
      slot = o;
  }
  if (slot != NULL) {
    slot->n_parity = MAX (slot->n_parity, blk.n_parity);
    slot->complete |= blk.complete;
  } else {
    /* the oldest goes: its losses are long settled */
    slot = &r->blocks[r->next_block];
    r->next_block = (r->next_block + 1) % RTPCC_REPAIR_FEC_BLOCKS;
    r->n_blocks = MIN (r->n_blocks + 1, RTPCC_REPAIR_FEC_BLOCKS);
    *slot = blk;
  }
  rtpcc_repair_settle_fec (r, now);
}

void
rtpcc_repair_on_fec_block (RtpccRepair * repair, RtpccTime now,
    const guint16 * seqs, guint n_seqs, guint can_recover)
{
  rtpcc_repair_on_fec_parity (repair, now, seqs, n_seqs, can_recover, TRUE);
}

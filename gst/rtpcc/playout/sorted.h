/* Sorted arrays of doubles, ascending: what the playout keeps for an order
 * statistic by index (a path's spread, a path's median skew), updated by
 * a binary search and one short move per sample instead of a sort.
 *
 * Library-internal (not installed).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __RTPCC_PLAYOUT_SORTED_H__
#define __RTPCC_PLAYOUT_SORTED_H__

#include <string.h>
#include <rtpcc/common.h>

G_BEGIN_DECLS

/* The first index of @a[0..@n) whose value is not below @v. */
static inline guint
rtpcc_sorted_lower_bound (const gdouble * a, guint n, gdouble v)
{
  guint lo = 0, hi = n;

  while (lo < hi) {
    guint mid = (lo + hi) / 2;

    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Inserts @v into @a[0..@n) (room for n + 1). */
static inline void
rtpcc_sorted_insert (gdouble * a, guint n, gdouble v)
{
  guint pos = rtpcc_sorted_lower_bound (a, n, v);

  memmove (&a[pos + 1], &a[pos], (n - pos) * sizeof (gdouble));
  a[pos] = v;
}

/* Removes @v, which was inserted, from @a[0..@n). */
static inline void
rtpcc_sorted_remove (gdouble * a, guint n, gdouble v)
{
  guint pos = rtpcc_sorted_lower_bound (a, n, v);

  if (pos < n)
    memmove (&a[pos], &a[pos + 1], (n - pos - 1) * sizeof (gdouble));
}

G_END_DECLS

#endif /* __RTPCC_PLAYOUT_SORTED_H__ */
